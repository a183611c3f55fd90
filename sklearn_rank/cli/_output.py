"""The output of the subcommands: reports as text, JSON or CSV, written all or nothing."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import secrets
import stat
import sys

import numpy as np

from ._options import UsageError


def _jsonable(x):
    """A JSON value: NaN (undefined) is null, infinities are the strings "Infinity" and "-Infinity"."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (np.integer, int)):
        return int(x)
    if isinstance(x, (np.floating, float)):
        if math.isnan(x):
            return None
        if math.isinf(x):
            return "Infinity" if x > 0 else "-Infinity"
        return float(x)
    if x is None or isinstance(x, str):
        return x
    return str(x)


def _json(payload):
    # allow_nan=False: standard JSON, never the NaN / Infinity tokens that strict parsers reject
    return json.dumps(payload, indent=2, allow_nan=False) + "\n"


def _csv_text(rows):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def _missing_note(report, missing):
    n_missing = getattr(report, "n_missing", 0)
    if not n_missing:
        return None
    queries = "query" if n_missing == 1 else "queries"
    if missing == "zero":
        return f"({n_missing} judged {queries} without any retrieved document counted as 0, --missing zero)"
    return (f"({n_missing} judged {queries} without any retrieved document skipped; --missing zero counts them as "
            "0, as trec_eval -c)")


def _format_report(report, fmt, per_query, missing="skip"):
    names = list(report.summary)
    if fmt == "json":
        payload = {"summary": {n: _jsonable(v) for n, v in report.summary.items()},
                   "n_queries": int(report.n_queries), "n_skipped": int(report.n_skipped),
                   "n_missing": int(getattr(report, "n_missing", 0))}
        if per_query:
            payload["per_query"] = {k: [_jsonable(x) for x in v] for k, v in report.per_query.items()}
        return _json(payload)
    if fmt == "csv":
        rows = [["qid", *names]]
        if per_query:
            rows += [[q, *(repr(float(report.per_query[n][i])) for n in names)]
                     for i, q in enumerate(report.per_query["qid"])]
        rows.append(["all", *(repr(float(report.summary[n])) for n in names)])
        return _csv_text(rows)
    width = max(len(n) for n in names + ["metric"])
    lines = []
    if per_query:
        # aligned on ids of up to 40 characters: a longer id overflows its column instead of widening every line
        qwidth = min(max(len(str(q)) for q in list(report.per_query["qid"]) + ["qid"]), 40)
        lines.append(f"{'qid':<{qwidth}}  " + "  ".join(f"{n:>{max(len(n), 8)}}" for n in names))
        for i, q in enumerate(report.per_query["qid"]):
            lines.append(f"{str(q):<{qwidth}}  "
                         + "  ".join(f"{report.per_query[n][i]:>{max(len(n), 8)}.4f}" for n in names))
        lines.append(f"{'all':<{qwidth}}  " + "  ".join(f"{report.summary[n]:>{max(len(n), 8)}.4f}" for n in names))
    else:
        lines.append(f"{'metric':<{width}}  {'value':>8}")
        for n in names:
            lines.append(f"{n:<{width}}  {report.summary[n]:>8.4f}")
    lines.append(f"({report.n_queries} queries evaluated, {report.n_skipped} skipped without relevant items)")
    note = _missing_note(report, missing)
    if note:
        lines.append(note)
    return "\n".join(lines) + "\n"


def _write(text, output):
    """Write all or nothing: a temporary file in the same folder, flushed to disk, renamed into place and
    the folder synced (``text``: str, or bytes written as they are).

    The file gets the permissions of any new file (the umask applies), or keeps
    those of the file it replaces. Errors name ``output``, not the temporary file.
    """
    if output is None:
        sys.stdout.write(text)
        return
    output = os.fspath(output)
    directory = os.path.dirname(os.path.abspath(output))
    try:
        existing = os.stat(output)
        mode = stat.S_IMODE(existing.st_mode) if stat.S_ISREG(existing.st_mode) else None
    except OSError:
        mode = None
    tmp = fd = None
    try:
        while fd is None:
            tmp = os.path.join(directory, f".sklearn-rank-{secrets.token_hex(6)}.tmp")
            try:  # mode 0o666 and the umask, as open(output, "w") would give; mkstemp would force 0o600
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
            except FileExistsError:
                continue
        with (os.fdopen(fd, "wb") if isinstance(text, bytes) else
              os.fdopen(fd, "w", encoding="utf-8", newline="")) as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())  # the data on disk before the name points to it (power loss)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, output)
        _sync_directory(directory)  # and the rename itself
    except OSError as exc:
        _remove(tmp if fd is not None else None)
        raise UsageError(f"{output}: cannot write the output file: {exc.strerror or exc}.") from None
    except BaseException:
        _remove(tmp if fd is not None else None)
        raise


def _sync_directory(directory):
    """fsync a folder, so that a rename in it survives a power loss (where folders can be opened: POSIX)."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse fsync on a folder: the rename stands, unsynced
        pass
    finally:
        os.close(fd)


def _remove(path):
    if path is not None:
        try:
            os.unlink(path)
        except OSError:
            pass
