"""The ``sklearn-rank`` command line: ``evaluate``, ``compare`` and ``demo``.

Exit codes: 0 on success, 2 on bad usage or bad input (a one-line message on
stderr, no traceback).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import secrets
import stat
import sys
import time
import traceback
import warnings

import numpy as np

from ._conventions import CONVENTIONS, Default, normalise_convention, resolve as resolve_convention
from ._inputs import GAINS, NAN_POLICIES, TIE_POLICIES
from .io import TrecFormatError, evaluate_trec, read_qrels, read_run
from .io._tables import Table, TableFormatError, parquet_batches, read_table, table_roles  # noqa: F401 (Table)
from .metrics import evaluate

__all__ = ["main"]

_TESTS = ("auto", "mannwhitneyu", "wilcoxon", "ttest", "permutation", "bootstrap")
_CORRECTIONS = ("holm", "bonferroni", "fdr_bh", "none")
DEFAULT_METRICS = ["mrr", "map", "ndcg@10", "p@10", "r@100", "hits@10"]


class UsageError(ValueError):
    """Bad usage or bad input: reported in one line with exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")


# --------------------------------------------------------------------------------------------
# Progress on stderr, only for a terminal and only once an operation has taken a second.
# --------------------------------------------------------------------------------------------
class Progress:
    def __init__(self, label, stream=None, delay=1.0):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.monotonic()
        self.delay = delay
        self.shown = False

    def update(self, done, total):
        if not self.enabled or time.monotonic() - self.start < self.delay:
            return
        self.shown = True
        share = done / total if total else 1.0
        bar = "#" * int(30 * share)
        self.stream.write(f"\r{self.label} [{bar:<30}] {100 * share:5.1f}%")
        self.stream.flush()

    def close(self):
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------
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


# --------------------------------------------------------------------------------------------
# Subcommands
# --------------------------------------------------------------------------------------------
def _metric_options(parser):
    parser.add_argument("-m", "--metrics", nargs="+", default=DEFAULT_METRICS, metavar="METRIC",
                        help="metric names, e.g. mrr map ndcg@10 p@5 (default: %(default)s)")
    parser.add_argument("--ties", choices=TIE_POLICIES + ("trec",), default=None,
                        help="tie policy (default: trec for TREC files, i.e. docno descending; expected for tables)")
    parser.add_argument("-l", "--relevance-level", type=float, default=None,
                        help="minimum grade that counts as relevant (trec_eval -l)")
    parser.add_argument("--gain", choices=GAINS, default=None, help="nDCG gain (default: linear)")
    parser.add_argument("--convention", type=_convention_name, default=None, metavar="{" + ",".join(CONVENTIONS) + "}",
                        help="a peer's conventions for the options not given (see the conventions page)")


def _convention_name(text):
    name = normalise_convention(text)
    if name is None:
        raise argparse.ArgumentTypeError(f"choose from {', '.join(CONVENTIONS)} (case, '-' and '_' aside). "
                                         f"Got {text!r} instead.")
    return name


def _gain(args):
    return args.gain or Default("linear")


def _nan_policy(args):
    """--nan-policy, else the --convention preset's (the table reader needs it before the engine)."""
    return resolve_convention(args.convention, {"nan_policy": args.nan_policy or Default("raise")})[0]["nan_policy"]


_TABLE_OPTIONS = (("--qid", "qid_col"), ("--score", "score_col"), ("--label", "label_col"),
                  ("--exclude-col", "exclude_col"), ("--nan-policy", "nan_policy"))


def _table_options(parser):
    parser.add_argument("--qid", dest="qid_col", help="query id column (tables)")
    parser.add_argument("--score", dest="score_col", help="score column (tables)")
    parser.add_argument("--label", dest="label_col", help="relevance column (tables)")
    parser.add_argument("--exclude-col", help="column of true/false flags: candidates removed before ranking (tables)")
    parser.add_argument("--nan-policy", choices=NAN_POLICIES, default=None,
                        help="NaN scores: an error (raise, the default), or rows removed as --exclude-col removes "
                             "them (omit); inf and -inf are ordinary scores (tables)")


def _refuse_table_options(args, inputs):
    for flag, dest in _TABLE_OPTIONS:
        if getattr(args, dest) is not None:
            what = ("applies to the scores of a table (TREC run files refuse NaN)" if flag == "--nan-policy"
                    else "names a column of a table")
            raise UsageError(f"{flag} {what}; it does not apply to TREC files ({inputs}). "
                             f"Got {flag} {getattr(args, dest)} instead.")


def _table_ties(args):
    if args.ties == "trec":
        raise UsageError("--ties trec breaks ties by docno, which tables do not have; choose another policy. "
                         "Got --ties trec with a table instead.")
    return args.ties or Default("expected")


def _trec_ties(args):
    return args.ties or Default("trec")


def _require_table_columns(args):
    missing = [flag for flag, col in (("--qid", args.qid_col), ("--score", args.score_col),
                                      ("--label", args.label_col)) if not col]
    if missing:
        raise UsageError(f"evaluating a table needs {', '.join(missing)} (the column names).")


def _read_table_inputs(args, path, group=None):
    _require_table_columns(args)
    progress = Progress(f"reading {os.path.basename(os.fspath(path))}")
    table = read_table(path, qid=args.qid_col, score=args.score_col, label=args.label_col, exclude=args.exclude_col,
                       group=group, progress=progress.update, nan_policy=_nan_policy(args))
    progress.close()
    return table


def _read_trec(reader, path):
    progress = Progress(f"reading {os.path.basename(os.fspath(path))}")
    try:
        return reader(path, progress=progress.update)
    finally:
        progress.close()


def _with_query_ids(report, qid_values):
    """The report of integer query codes, with the table's query ids back in ``per_query["qid"]``."""
    report.per_query["qid"] = qid_values[np.asarray(report.per_query["qid"], dtype=np.int64)]
    return report


def _run_evaluate(args):
    if args.plot:
        _plot_setup(args)  # before any reading: a missing matplotlib fails fast
    if len(args.inputs) == 2:
        _refuse_table_options(args, "QRELS RUN")
        if args.stream:
            raise UsageError("--stream reads one Parquet table a batch at a time. Got --stream with QRELS RUN "
                             "instead.")
        qrels_path, run_path = args.inputs
        qrels, run = _read_trec(read_qrels, qrels_path), _read_trec(read_run, run_path)
        report = evaluate_trec(qrels, run, metrics=args.metrics, relevance_level=args.relevance_level,
                               missing=args.missing, ties=_trec_ties(args), gain=_gain(args),
                               convention=args.convention)
        if args.plot:
            figure = _trec_figure(args, qrels, run)
    elif len(args.inputs) == 1 and args.stream:
        if args.plot:
            raise UsageError("--plot needs the whole table in memory; --stream reads it a batch at a time. "
                             "Got --plot with --stream instead.")
        report = _evaluate_parquet_stream(args, args.inputs[0])
    elif len(args.inputs) == 1:
        path = args.inputs[0]
        ties = _table_ties(args)
        table = _read_table_inputs(args, path)
        report = evaluate(table.label, table.score, qid=table.qid, metrics=args.metrics, ties=ties,
                          exclude=table.exclude, relevance_level=args.relevance_level, gain=_gain(args),
                          no_relevant="zero" if args.missing == "zero" else Default("skip"),
                          nan_policy=_nan_policy(args), convention=args.convention)
        report = _with_query_ids(report, table.qid_values)
        if args.plot:
            figure = _table_figure(args, table, ties)
    else:
        raise UsageError("evaluate takes QRELS RUN (TREC files) or one TABLE. Got "
                         f"{len(args.inputs)} paths instead.")
    _write(_format_report(report, args.format, args.per_query, args.missing), args.output)
    if args.plot:
        _save_figure(figure, args.plot)


_STREAM_BATCH_ROWS = 1 << 16


def _evaluate_parquet_stream(args, path):
    """``evaluate TABLE.parquet --stream``: the table's rows, grouped by query, read a batch at a time."""
    path = os.fspath(path)
    if not path.endswith((".parquet", ".pq")):
        raise UsageError(f"--stream reads Parquet tables (.parquet, .pq) a batch at a time. Got {path} instead.")
    _require_table_columns(args)
    ties, nan_policy = _table_ties(args), _nan_policy(args)
    roles = table_roles(qid=args.qid_col, score=args.score_col, label=args.label_col, exclude=args.exclude_col)
    batches = parquet_batches(path, roles, batch_rows=_STREAM_BATCH_ROWS)
    from ._batches import evaluate_stream

    try:
        return evaluate_stream(batches, roles, metrics=args.metrics, ties=ties,
                               relevance_level=args.relevance_level, gain=_gain(args),
                               no_relevant="zero" if args.missing == "zero" else Default("skip"),
                               nan_policy=nan_policy, convention=args.convention)
    except (ValueError, TypeError) as exc:
        if not _is_input_error(exc) or str(exc).startswith(f"{path}:"):
            raise
        raise TableFormatError(f"{path}: {exc}") from None


class _Values:
    """The per-query values of one metric with a value (not NaN): what the tests compare."""

    def __init__(self, qid, values, metric):
        self.per_query = {"qid": qid, metric: values}


def _run_compare(args):
    from dataclasses import replace

    from . import stats
    from .stats._multiple import _adjust_pvalues

    if args.plot:
        _plot_setup(args)

    metrics = list(args.metrics)
    repeated = [name for i, name in enumerate(metrics) if name in metrics[:i]]
    if repeated:
        raise UsageError(f"compare -m names {', '.join(dict.fromkeys(repeated))} more than once; name each metric "
                         f"once. Got -m {' '.join(metrics)} instead.")
    reports = {}
    if args.group:
        if len(args.inputs) != 1:
            raise UsageError(f"compare --group takes one TABLE. Got {len(args.inputs)} paths instead.")
        path = args.inputs[0]
        ties = _table_ties(args)
        table = _read_table_inputs(args, path, group=args.group)
        for name, rows in table.groups():
            report = evaluate(table.label[rows], table.score[rows], qid=table.qid[rows], metrics=metrics,
                              exclude=None if table.exclude is None else table.exclude[rows], ties=ties,
                              relevance_level=args.relevance_level, gain=_gain(args), nan_policy=_nan_policy(args),
                              convention=args.convention)
            reports[str(name)] = _with_query_ids(report, table.qid_values)
    else:
        if len(args.inputs) < 3:
            raise UsageError("compare takes QRELS RUN_A RUN_B [RUN_C ...] or one TABLE with --group. Got "
                             f"{len(args.inputs)} paths instead.")
        _refuse_table_options(args, "QRELS RUN_A RUN_B ...")
        qrels = _read_trec(read_qrels, args.inputs[0])
        for path in args.inputs[1:]:
            run = _read_trec(read_run, path)
            name = run.name if run.name not in reports else os.path.basename(path)
            reports[name] = evaluate_trec(qrels, run, metrics=metrics, relevance_level=args.relevance_level,
                                          missing="zero", ties=_trec_ties(args), gain=_gain(args),
                                          convention=args.convention)
    if len(reports) < 2:
        raise UsageError(f"compare needs at least two runs or groups. Got {len(reports)} instead.")
    correction = None if args.correction == "none" else args.correction
    # one stream for the resampling tests of every metric, in output order: the first metric's draws are
    # those of a run with that metric alone
    generator = np.random.default_rng(args.seed)
    compared = []
    for metric in metrics:
        # A rank statistic (mr, gmr, ...) has no value for a query whose relevant items were not retrieved
        # (NaN, as in `evaluate`): such queries are left out of the comparisons, and counted.
        values, n_undefined = {}, {}
        for name, report in reports.items():
            per_query = np.asarray(report.per_query[metric], dtype=np.float64)
            defined = ~np.isnan(per_query)
            values[name] = _Values(np.asarray(report.per_query["qid"])[defined], per_query[defined], metric)
            n_undefined[name] = int(per_query.size - np.count_nonzero(defined))
        with warnings.catch_warnings():
            # the output counts the queries left out, and says when most paired differences are zero
            warnings.simplefilter("ignore", stats.UnpairedQueriesWarning)
            warnings.filterwarnings("ignore", message=r"\d+ of \d+ paired differences are zero",
                                    category=stats.DegenerateDataWarning)
            table = stats.compare_many(values, metric=metric, baseline=args.baseline, test=args.test,
                                       correction=correction if len(metrics) == 1 else None, rng=generator)
        compared.append((metric, table, n_undefined))
    if len(metrics) > 1:  # one family: every comparison of every metric, adjusted together
        adjusted = iter(_adjust_pvalues([row.pvalue for _, table, _ in compared for row in table], correction))
        compared = [(metric, stats.ComparisonTable([replace(row, pvalue_adjusted=float(next(adjusted)))
                                                    for row in table], correction=correction,
                                                   alternative=table.alternative), n_undefined)
                    for metric, table, n_undefined in compared]
    _write(_format_comparison(compared, reports, args.format), args.output)
    if args.plot:
        metric, table, _ = compared[0]
        if len(metrics) > 1:
            sys.stderr.write(f"sklearn-rank: note: --plot draws the first metric, {metric}, and leaves out "
                             f"{', '.join(metrics[1:])}; run compare with one -m METRIC for each figure.\n")
        _save_figure(_comparison_figure(args, table, reports, metric), args.plot)


def _left_out(record, reports):
    """Queries evaluated for a or b that the comparison did not use."""
    qid_a, qid_b = (np.asarray(reports[name].per_query["qid"]) for name in (record["a"], record["b"]))
    if record["paired"]:
        return int(np.union1d(qid_a, qid_b).size - record["n_a"])
    return int(qid_a.size + qid_b.size - record["n_a"] - record["n_b"])


def _format_comparison(compared, reports, fmt):
    """The output of compare: ``compared`` holds ``(metric, table, n_undefined)`` for each metric.

    One metric: one table (json: one object). Several: one table each, their p-values adjusted as one
    family (json: the object of each metric under "results"; csv: a leading "metric" column).
    """
    several = len(compared) > 1
    correction = compared[0][1].correction
    n_comparisons = sum(len(table) for _, table, _ in compared)
    blocks = []
    for metric, table, n_undefined in compared:
        records = table.to_records()
        for record in records:
            record["n_left_out"] = _left_out(record, reports)
        means = {}
        for name, report in reports.items():
            per_query = np.asarray(report.per_query[metric], dtype=np.float64)
            defined = per_query[~np.isnan(per_query)]
            means[name] = float(defined.mean()) if defined.size else math.nan
        blocks.append((metric, records, means, n_undefined))
    if fmt == "json":
        payloads = [{"metric": metric, "means": {n: _jsonable(m) for n, m in means.items()},
                     "n_undefined": n_undefined, "correction": correction,
                     "comparisons": [{k: _jsonable(v) for k, v in r.items()} for r in records]}
                    for metric, records, means, n_undefined in blocks]
        if not several:
            return _json(payloads[0])
        for payload in payloads:
            del payload["correction"]
        return _json({"metrics": [metric for metric, *_ in blocks], "correction": correction,
                      "n_comparisons": n_comparisons, "results": payloads})
    from .stats._results import TABLE_COLUMNS  # compare has loaded stats already

    # the comparison table's columns, less those the output says otherwise (names, the unpaired counts
    # summed into n_left_out)
    columns = [c for c in TABLE_COLUMNS if c not in ("n_unpaired_a", "n_unpaired_b", "estimate_name",
                                                     "effect_size_name")]
    columns.insert(columns.index("n_b") + 1, "n_left_out")
    if fmt == "csv":
        rows = [(["metric"] if several else []) + columns]
        for metric, records, _, _ in blocks:
            rows += [([metric] if several else []) + [repr(r[c]) if isinstance(r[c], float) else r[c]
                                                      for c in columns] for r in records]
        return _csv_text(rows)
    adjusted = (f"{correction or 'no correction'} across all {n_comparisons} comparisons of the "
                f"{len(compared)} metrics" if several else correction or "no correction")
    texts = []
    for metric, records, means, n_undefined in blocks:
        lines = [f"{metric} (mean over queries): " + ", ".join(f"{n} {m:.4f}" for n, m in means.items())]
        lines.append(f"{'a':<14} {'b':<14} {'test':<13} {'queries':>7} {'left out':>8} {'p-value':>9} "
                     f"{'adjusted':>9} {'estimate':>9} {'effect':>8}  win/tie/loss")
        for r in records:
            queries = str(r["n_a"]) if r["paired"] else f"{r['n_a']}+{r['n_b']}"
            lines.append(f"{str(r['a']):<14} {str(r['b']):<14} {r['test']:<13} {queries:>7} {r['n_left_out']:>8} "
                         f"{r['pvalue']:>9.4g} {r['pvalue_adjusted']:>9.4g} {r['estimate']:>9.4f} "
                         f"{r['effect_size']:>8.4f}  {r['wins']}/{r['ties']}/{r['losses']}")
        paired = any(r["paired"] for r in records)
        unpaired = not all(r["paired"] for r in records)
        counts = ", ".join(part + (f" ({kind})" if paired and unpaired else "") for part, kind, used in (
            ("queries where a is higher, equal, lower", "paired", paired),
            ("all cross pairs of values a_i, b_j", "unpaired", unpaired)) if used)
        lines.append(f"(p-values adjusted with {adjusted}; effect: "
                     f"{records[0]['effect_size_name'] if records else ''}; win/tie/loss: {counts})")
        # a small p-value beside an estimate near 0: most pairs are equal, and Wilcoxon ranks the others
        for r in records:
            if r["paired"] and 0 < r["ties"] < r["n_a"] and 2 * r["ties"] > r["n_a"]:
                rest = ("the Wilcoxon test ranks only" if r["test"] == "wilcoxon" else "the test rests on")
                lines.append(f"({r['a']} - {r['b']}: {r['ties']} of {r['n_a']} paired differences are zero; "
                             f"{rest} the other {r['n_a'] - r['ties']})")
        if any(n_undefined.values()):
            lines.append(f"({metric} has no value for a query whose relevant documents were not retrieved: "
                         + ", ".join(f"{n} in {name}" for name, n in n_undefined.items() if n)
                         + "; those queries are left out)")
        texts.append("\n".join(lines) + "\n")
    return "\n".join(texts)


def _run_demo(args):
    from ._demo import leaderboard_figure, run_demo

    if args.plot:
        _plot_setup(args)
    figure_data = {} if args.plot else None
    _write(run_demo(figure_data), args.output)
    if args.plot:
        _save_figure(leaderboard_figure(figure_data, _matplotlib().figure.Figure), args.plot)


# --------------------------------------------------------------------------------------------
# --plot: figures drawn off screen (matplotlib's Agg renderer), written as PNG files
# --------------------------------------------------------------------------------------------


def _matplotlib():
    """matplotlib with the Agg backend (files only, no window), or a usage error naming the extra."""
    try:
        import matplotlib
    except ImportError:
        raise UsageError('--plot needs matplotlib, which the `plot` extra installs: pip install "sklearn-rank[plot]" '
                         "(or pip install matplotlib). Got no matplotlib instead.") from None
    if "matplotlib.pyplot" not in sys.modules:
        # the figures here are matplotlib.figure.Figure objects that never reach pyplot; a program that has
        # already chosen its backend (pyplot imported) keeps it
        matplotlib.use("Agg")
    import matplotlib.figure  # noqa: F401 (the Figure class, used by the callers)

    return matplotlib


def _plot_setup(args):
    """Check ``--plot FILE`` before any work: the figure is a PNG, so the file name says so."""
    if os.path.splitext(os.fspath(args.plot))[1].lower() != ".png":
        raise UsageError(f"--plot writes a PNG image: the file name must end in .png. Got {args.plot!r} instead.")
    _matplotlib()


def _new_figure(n_panels, width=5.5, height=4.5):
    figure_class = _matplotlib().figure.Figure
    columns = min(n_panels, 3)
    rows = -(-n_panels // columns)
    figure = figure_class(figsize=(width * columns, height * rows), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return figure, axes[:n_panels]


def _save_figure(figure, path):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    _write(buffer.getvalue(), path)


def _rank_ties(ties):
    """The rank drawn in the histogram: the tie policy written on the command line, else the mid rank."""
    return str(ties) if not isinstance(ties, Default) and ties != "trec" else "realistic"


def _nothing_to_draw(ax, what):
    """A panel that says why it is empty (no relevant item was ranked): the report is still written."""
    ax.text(0.5, 0.5, f"no relevant item was ranked:\nno {what} to draw", ha="center", va="center",
            transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def _table_figure(args, table, ties):
    from ._engine import compute_ranks
    from .plot import HitsAtKCurveDisplay, RankDistributionDisplay

    figure, (left, right) = _new_figure(2)
    common = dict(qid=table.qid, exclude=table.exclude, relevance_level=args.relevance_level,
                  nan_policy=_nan_policy(args), convention=args.convention)
    figure.suptitle(os.path.basename(os.fspath(args.inputs[0])))
    if not len(compute_ranks(table.label, table.score, **common)):
        _nothing_to_draw(left, "rank histogram")
        _nothing_to_draw(right, "hits@k curve")
        return figure
    RankDistributionDisplay.from_predictions(table.label, table.score, ties=_rank_ties(ties), ax=left, **common)
    HitsAtKCurveDisplay.from_predictions(table.label, table.score, ties=ties,
                                         no_relevant="zero" if args.missing == "zero" else Default("skip"),
                                         ax=right, **common)
    return figure


def _trec_figure(args, qrels, run):
    """The run's rank histogram and hits@k curve. The curve is evaluate_trec's hits@k (judged relevant
    documents that the run never retrieved count as misses); the histogram has the ranks of the relevant
    documents retrieved."""
    from ._engine import compute_ranks
    from .io import Run
    from .io._trec_eval import _lookup_relevance
    from .io._trec_keys import _trec_order
    from .plot import DEFAULT_MAX_K, HitsAtKCurveDisplay, RankDistributionDisplay

    ties = _trec_ties(args)
    judged = np.isin(run.qid, qrels.qid)
    order = _trec_order(run) if ties == "trec" else np.argsort(run.qid, kind="stable")
    order = order[judged[order]]
    qid, docno, score = run.qid[order], run.docno[order], run.score[order]
    y_true = _lookup_relevance(qrels, np.maximum(qrels.relevance, 0).astype(np.float64), qid, docno)
    figure, (left, right) = _new_figure(2)
    engine_ties = "ordinal" if ties == "trec" else ties
    rank_ties = "ordinal" if ties == "trec" else _rank_ties(engine_ties)
    if len(compute_ranks(y_true, score, qid=qid, relevance_level=args.relevance_level)):
        RankDistributionDisplay.from_predictions(y_true, score, qid=qid, relevance_level=args.relevance_level,
                                                 ties=rank_ties, ax=left)
    else:  # the run retrieved no relevant document: its hits@k curve is still drawn (all misses)
        _nothing_to_draw(left, "rank histogram")
    max_k = min(DEFAULT_MAX_K, int(np.unique(qid, return_counts=True)[1].max()))
    names = [f"hits@{k}" for k in range(1, max_k + 1)]
    options = dict(metrics=names, relevance_level=args.relevance_level, missing=args.missing,
                   convention=args.convention)
    hits = evaluate_trec(qrels, run, ties=ties, **options).summary
    # the same documents in random order: a constant score under ties="expected"
    constant = Run(run.qid, run.docno, np.zeros_like(run.score, dtype=np.float64), run.name)
    baseline = evaluate_trec(qrels, constant, ties="expected", **options).summary
    display = HitsAtKCurveDisplay(k=np.arange(1, max_k + 1), hits=[hits[n] for n in names],
                                  baseline_hits=[baseline[n] for n in names], name=run.name)
    display.plot(ax=right)
    figure.suptitle(f"{run.name} ({os.path.basename(os.fspath(args.inputs[1]))})")
    return figure


def _comparison_figure(args, table, reports, metric):
    """One per-query scatter for each pair of the comparison table, its paired test in the legend: the
    table's own result (unadjusted p-value), the one printed; Wilcoxon's when the table's test is unpaired."""
    from .plot import QueryComparisonDisplay

    figure, axes = _new_figure(len(table))
    for row, ax in zip(table, axes):
        display = QueryComparisonDisplay.from_reports(
            reports[row.a], reports[row.b], metric=metric, name_a=str(row.a), name_b=str(row.b), unpaired="drop",
            test="wilcoxon" if row.result.paired else "auto", alternative="two-sided", rng=args.seed, ax=ax)
        if row.result.paired:  # not a second draw of a permutation or bootstrap test under another stream
            display.result = row.result
            ax.cla()
            display.plot(ax=ax)
    return figure


def build_parser():
    parser = _Parser(prog="sklearn-rank", description="Rank-based evaluation: TREC files, tables, and a demo.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    ev = sub.add_parser("evaluate", help="evaluate a TREC run against qrels, or a table")
    ev.add_argument("inputs", nargs="+", metavar="PATH", help="QRELS RUN, or one TABLE (CSV, TSV, Parquet)")
    _metric_options(ev)
    _table_options(ev)
    ev.add_argument("--missing", choices=("skip", "zero"), default="skip",
                    help="queries with relevant items but no retrieved document (TREC) or no relevant item "
                         "(tables): skip them, or count them as 0 (trec_eval -c)")
    ev.add_argument("--stream", action="store_true",
                    help="read a Parquet table whose rows are grouped by query (ORDER BY qid) a batch at a "
                         "time, in the memory of about one batch; a query that comes back after others is an "
                         "error")
    ev.add_argument("-q", "--per-query", action="store_true", help="print one line per query as well")
    ev.add_argument("--format", choices=("table", "json", "csv"), default="table",
                    help="output format; json and csv print full precision")
    ev.add_argument("-o", "--output", help="write to this file instead of standard output")
    ev.add_argument("--plot", metavar="FILE", help="also draw the rank histogram and the hits@k curve into this "
                                                    "PNG file (needs matplotlib: the plot extra)")
    ev.set_defaults(func=_run_evaluate)

    cp = sub.add_parser("compare", help="per-query significance tests between runs or groups")
    cp.add_argument("inputs", nargs="+", metavar="PATH", help="QRELS RUN_A RUN_B [RUN_C ...], or one TABLE")
    _metric_options(cp)
    cp.set_defaults(metrics=["map"])
    _table_options(cp)
    cp.add_argument("--group", help="table column whose values name the groups to compare")
    # stats' TESTS and CORRECTIONS, written out: importing stats here would load scipy.stats for every
    # command (a test checks that the lists agree)
    cp.add_argument("--test", default="auto", choices=_TESTS,
                    help="test (default: paired Wilcoxon on the queries both sides share, Mann-Whitney when "
                         "they share none)")
    cp.add_argument("--correction", default="holm",
                    choices=_CORRECTIONS)
    cp.add_argument("--baseline", help="compare every other run with this one only")
    cp.add_argument("--seed", type=int, default=0, help="seed of the resampling tests")
    cp.add_argument("--format", choices=("table", "json", "csv"), default="table")
    cp.add_argument("-o", "--output", help="write to this file instead of standard output")
    cp.add_argument("--plot", metavar="FILE", help="also draw the per-query comparison of each pair into this PNG "
                                                    "file (needs matplotlib: the plot extra)")
    cp.set_defaults(func=_run_compare)

    dm = sub.add_parser("demo", help="grid-search two model families on built-in data and print a leaderboard")
    dm.add_argument("-o", "--output", help="write to this file instead of standard output")
    dm.add_argument("--plot", metavar="FILE", help="also draw the leaderboard figure into this PNG file (needs "
                                                    "matplotlib: the plot extra)")
    dm.set_defaults(func=_run_demo)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """A warning on one line of standard error, without the source line Python would add."""
    text = str(message).splitlines()[0] if str(message) else category.__name__
    sys.stderr.write(f"sklearn-rank: warning: {text}\n")


def _is_input_error(exc):
    """Whether ``exc`` reports bad input: the package's own ValueError/TypeError, raised by a ``raise``
    statement of sklearn-rank (its validation), not one that a bug let escape from an expression."""
    if isinstance(exc, (UsageError, TrecFormatError, TableFormatError)):
        return True
    if not isinstance(exc, (ValueError, TypeError)) or exc.__traceback__ is None:
        return False
    innermost = traceback.extract_tb(exc.__traceback__)[-1]
    package = os.path.dirname(os.path.abspath(__file__))
    if not os.path.abspath(innermost.filename).startswith(package + os.sep):  # sklearn_rank and its packages
        return False
    source = (innermost.line or "").strip()
    return not source or source == "raise" or source.startswith("raise ")


def main(argv=None):
    """Run the command line; return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            args.func(args)
    except (ValueError, TypeError) as exc:
        if not _is_input_error(exc):
            raise
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        sys.stderr.write(f"sklearn-rank: error: {message}\n" if not message.startswith("sklearn-rank") else
                         f"{message}\n")
        return 2
    except OSError as exc:
        # an OSError of a library may carry no file name or reason: its text then says what
        where = f"{exc.filename}: " if exc.filename else ""
        sys.stderr.write(f"sklearn-rank: error: {where}{exc.strerror or exc or type(exc).__name__}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
