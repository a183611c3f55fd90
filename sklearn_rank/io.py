"""TREC qrels and run files, and their evaluation with trec_eval's conventions.

A qrels line is ``qid iter docno rel``; a run line is
``qid iter docno rank score runid`` (extra trailing columns are tolerated, and
lines starting with ``#`` are comments, as trec_eval 10 accepts). The readers
name the file and line of any malformed line.

Reading has two paths that give the same arrays, bit for bit. The line-by-line
reader handles every file and words every error. Regular files of 4 MB and more
(ASCII, columns separated by spaces and tabs, ``#`` only at the start of a
comment line, no line with more columns than the first, numbers that parse,
finite scores, no duplicate) are parsed by pandas' C reader when pandas is
installed, then checked with vectorised NumPy code; anything irregular goes
back to the line-by-line reader, which either reads the file or reports the
exact line.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
import math
import os
import re
import stat

import numpy as np

from .metrics import _check_options, _evaluate_structure, _resolve_metrics, _structure
from ._inputs import check_option
from ._ranks import _small_codes
from ._report import RankingReport, weighted_mean

__all__ = ["Qrels", "Run", "read_qrels", "read_run", "write_qrels", "write_run", "evaluate_trec"]


@dataclass
class Qrels:
    """Relevance judgements: one entry per judged (query, document) pair."""

    qid: np.ndarray
    docno: np.ndarray
    relevance: np.ndarray

    def __len__(self):
        return len(self.qid)


@dataclass
class Run:
    """A ranked run: one entry per retrieved (query, document) pair."""

    qid: np.ndarray
    docno: np.ndarray
    score: np.ndarray
    name: str = "run"

    def __len__(self):
        return len(self.qid)


class TrecFormatError(ValueError):
    """A malformed line in a TREC file (the message names the file and line)."""


# ------------------------------------------------------------------------------------------------
# Reading: the line-by-line reader (every file, every error message)
# ------------------------------------------------------------------------------------------------
_PROGRESS_EVERY = 65536  # lines between two progress calls


def _data_lines(name, progress):
    """(line number, fields) of every line that is neither blank nor a comment."""
    total = os.path.getsize(name) if progress is not None else 0
    done = 0
    with open(name, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if progress is not None:
                done += len(line)
                if number % _PROGRESS_EVERY == 0:
                    progress(done, total)
            # the fields of the stripped line; no field, or a first one starting with "#": blank or comment
            fields = line.split()
            if fields and fields[0][0] != "#":
                yield number, fields


def _read_qrels_lines(name, progress):
    qids, docnos, rels = [], [], []
    seen = set()
    remember = seen.add
    for number, fields in _data_lines(name, progress):
        if len(fields) != 4:
            raise TrecFormatError(f"{name}:{number}: a qrels line must have 4 columns (qid iter docno rel). "
                                  f"Got {len(fields)} instead.")
        try:
            rel = int(fields[3])
        except ValueError:
            raise TrecFormatError(f"{name}:{number}: the relevance must be an integer. Got {fields[3]!r} "
                                  "instead.") from None
        size = len(seen)
        remember((fields[0], fields[2]))
        if len(seen) == size:
            raise TrecFormatError(f"{name}:{number}: duplicate judgement of document {fields[2]!r} for query "
                                  f"{fields[0]!r}.")
        qids.append(fields[0])
        docnos.append(fields[2])
        rels.append(rel)
    if not qids:
        raise TrecFormatError(f"{name}: the qrels file holds no judgement. Got an empty file instead.")
    return Qrels(np.array(qids), np.array(docnos), np.array(rels, dtype=np.int64))


def _read_run_lines(name, progress):
    qids, docnos, scores = [], [], []
    seen = set()
    remember = seen.add
    isfinite = math.isfinite
    run_name = None
    for number, fields in _data_lines(name, progress):
        if len(fields) < 6:
            raise TrecFormatError(f"{name}:{number}: a run line must have at least 6 columns "
                                  f"(qid iter docno rank score runid). Got {len(fields)} instead.")
        try:
            score = float(fields[4])
        except ValueError:
            raise TrecFormatError(f"{name}:{number}: the score must be a number. Got {fields[4]!r} "
                                  "instead.") from None
        if not isfinite(score):
            raise TrecFormatError(f"{name}:{number}: the score must be finite. Got {fields[4]!r} instead.")
        size = len(seen)
        remember((fields[0], fields[2]))
        if len(seen) == size:
            raise TrecFormatError(f"{name}:{number}: duplicate document {fields[2]!r} for query {fields[0]!r} "
                                  "in the run.")
        qids.append(fields[0])
        docnos.append(fields[2])
        scores.append(score)
        if run_name is None:
            run_name = fields[5]
    if not qids:
        raise TrecFormatError(f"{name}: the run file holds no line. Got an empty file instead.")
    return Run(np.array(qids), np.array(docnos), np.array(scores, dtype=np.float64), run_name)


# ------------------------------------------------------------------------------------------------
# Reading: the fast path for large regular files (pandas' C tokenizer, NumPy checks)
# ------------------------------------------------------------------------------------------------
_FAST_READ = True           # False: always the line-by-line reader (the tests switch paths with it)
_FAST_MIN_BYTES = 4 << 20   # smaller files: the line-by-line reader is quicker than importing pandas
_SCAN_BLOCK = 1 << 24       # bytes per block of the byte scan
_SAMPLE_LINES = 2000        # data lines sampled for the column widths (at the start, and at the end)
_SAMPLE_BYTES = 1 << 18     # the sample at the end: its last bytes
_HASH_BLOCK = 1 << 15       # rows per block of the string hash
_CHUNK_ROWS = 1 << 20       # rows per chunk of the pandas reader


def _pandas():
    try:
        import pandas
    except Exception:  # not installed, or broken: the line-by-line reader does the job
        return None
    return pandas


def _pandas_options(pandas):
    # pandas >= 3.1 parses floats with a correctly rounded converter (float_precision is deprecated);
    # before, only "round_trip" (Python's own parser) is correctly rounded.
    version = re.match(r"(\d+)\.(\d+)", pandas.__version__)
    if version is not None and (int(version[1]), int(version[2])) >= (3, 1):
        return {}
    return {"float_precision": "round_trip"}


def _read_fast(name, kind, progress):
    """The file as Qrels or Run through the fast path, or None when the line-by-line reader must read it."""
    if not _FAST_READ or not isinstance(name, str):
        return None
    try:
        info = os.stat(name)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size < _FAST_MIN_BYTES:
        return None
    pandas = _pandas()
    if pandas is None:
        return None
    with open(name, "rb") as handle:
        layout = _scan(handle, kind)
        if layout is None:
            return None
        return _parse(pandas, handle, kind, layout, info.st_size, progress)


def _scan(handle, kind):
    """Check that the file is regular, and describe it: (n_cols, has_comments, longest sampled value per
    column, first fields, most rows)."""
    buffer = bytearray(_SCAN_BLOCK)  # one buffer for the whole file
    n_lines = n_hash = 0
    previous = 0x0A  # the byte before the block (a newline before the file: its first line starts there)
    handle.seek(0)
    while True:
        size = handle.readinto(buffer)
        if not size:
            break
        chars = np.frombuffer(buffer, dtype=np.uint8, count=size)
        if chars.max() > 0x7E:
            return None  # not ASCII, or DEL
        newlines = np.count_nonzero(chars == 0x0A)
        n_lines += newlines
        controls = np.count_nonzero(chars < 0x20)
        if controls != newlines:
            if controls != newlines + np.count_nonzero(chars == 0x09) + np.count_nonzero(chars == 0x0D):
                return None  # control characters (whitespace to Python, not to pandas), NUL
            # a "\r" only in "\r\n" (a lone "\r" is a line break to Python): the next byte is "\n"
            after = np.flatnonzero(chars == 0x0D) + 1
            if after.size and after[-1] == size:
                following = handle.read(1)
                handle.seek(-len(following), os.SEEK_CUR)
                if following != b"\n":
                    return None
                after = after[:-1]
            if not (chars[after] == 0x0A).all():
                return None
        if np.count_nonzero(chars == 0x23):  # "#" only as the first character of a line (a comment line)
            before = np.flatnonzero(chars == 0x23) - 1
            n_hash += before.size
            if before[0] < 0 and previous != 0x0A:
                return None
            if not (chars[before[before >= 0]] == 0x0A).all():
                return None
        previous = int(chars[-1])
        del chars
    # The first data line (column count, run name), and the widths of sampled lines at both ends
    handle.seek(0)
    first, widths = _sample(handle, None)
    if first is None:
        return None  # no data line: the line-by-line reader reports the empty file
    if (kind == "qrels" and len(first) != 4) or (kind == "run" and len(first) < 6):
        return None
    end = handle.seek(0, os.SEEK_END)
    if end > _SAMPLE_BYTES:
        handle.seek(end - _SAMPLE_BYTES)
        handle.readline()  # a partial line
        widths = [max(a, b) for a, b in zip(widths, _sample(handle, len(widths))[1])]
    return len(first), n_hash > 0, widths, first, n_lines + (previous != 0x0A)


def _sample(handle, n_cols):
    """(first data line's fields, longest field per column) over the next data lines."""
    first, widths, sampled = None, [0] * (n_cols or 0), 0
    for line in handle:
        fields = line.split()
        if not fields or fields[0][:1] == b"#":
            continue
        if first is None:
            first = fields
            if n_cols is None:
                widths = [0] * len(fields)
        for j, field in enumerate(fields[:len(widths)]):
            widths[j] = max(widths[j], len(field))
        sampled += 1
        if sampled == _SAMPLE_LINES:
            break
    return first, widths


def _parse(pandas, handle, kind, layout, size, progress):
    n_cols, has_comments, sampled, first, most_rows = layout
    # Strings are read as fixed-width bytes of half as much again as the longest sampled value; a value
    # that may not fit has the file read once more with the longest line's width.
    widths = {j: sampled[j] + sampled[j] // 2 + 4 for j in ((0, 2, 3) if kind == "qrels" else (0, 2))}
    parsed = _parse_chunks(pandas, handle, kind, n_cols, has_comments, widths, sampled, most_rows, size, progress)
    if parsed == "longer":
        longest = _longest_line(handle) + 1
        if longest * most_rows > max(8 * size, 1 << 26):
            return None  # a few very long lines: the line-by-line reader
        widths = {j: longest for j in widths}
        parsed = _parse_chunks(pandas, handle, kind, n_cols, has_comments, widths, sampled, most_rows, size,
                               progress)
    if parsed is None or parsed == "longer":
        return None
    qid, docno, values, keys = parsed
    if _has_duplicate_keys(keys, qid, docno):
        return None  # the line-by-line reader names the line of the duplicate
    if kind == "qrels":
        return Qrels(qid, docno, values)
    return Run(qid, docno, values, first[5].decode("ascii"))


def _parse_chunks(pandas, handle, kind, n_cols, has_comments, widths, sampled, most_rows, size, progress):
    """Parse the file by chunks of rows: (qid, docno, relevance or score, (qid, docno) hash keys); "longer"
    when a string may not fit its width; None when the file is not regular."""
    dtypes = {j: "S1" for j in range(n_cols)}  # "S1": present or not is all that matters
    dtypes.update({j: f"S{w}" for j, w in widths.items()})
    if kind == "run":
        dtypes[4] = np.float64
    options = dict(sep=r"\s+", header=None, index_col=False, quoting=csv.QUOTE_NONE, keep_default_na=False,
                   na_filter=False, skip_blank_lines=True, comment="#" if has_comments else None, engine="c",
                   compression=None, encoding="utf-8", dtype=dtypes, chunksize=_CHUNK_ROWS,
                   **_pandas_options(pandas))
    values = np.empty(most_rows, dtype=np.int64 if kind == "qrels" else np.float64)
    keys = np.empty(most_rows, dtype=np.uint64)
    # the code points of the strings, as wide as the longest value so far
    text = {j: np.empty((most_rows, max(1, sampled[j])), dtype=np.uint32) for j in (0, 2)}
    offsets = (1, 1 + widths[0])  # hash constants of the qid characters, then of the docno characters
    n = 0
    handle.seek(0)
    chunks = _pandas_call(lambda: pandas.read_csv(handle, **options))
    if chunks is None:
        return None
    try:
        while True:
            columns = _pandas_call(lambda: _next_columns(pandas, chunks, kind, dtypes, n_cols))
            if columns is None:
                return None
            if not columns:
                break
            m = columns[0].shape[0]
            if n + m > most_rows:
                return None
            for j, column in columns.items():
                if column.dtype.kind != "S":
                    continue
                if not column.view(np.uint8)[::column.itemsize].all():
                    return None  # an empty field: a line with fewer columns
                if j in widths and column.view(np.uint8)[widths[j] - 1::widths[j]].any():
                    return "longer"
            if kind == "qrels":
                chunk_values = _parse_integers(columns[3])
                if chunk_values is None:
                    return None
                values[n:n + m] = chunk_values
            else:
                values[n:n + m] = columns[4]
            keys[n:n + m] = _row_keys(None, (columns[0], columns[2]), offsets)
            for j in (0, 2):
                text[j] = _store_ascii(text[j], n, columns[j])
            n += m
            del columns
            if progress is not None:
                progress(max(1, min(handle.tell(), size)), size)
    finally:
        chunks.close()
    if n == 0 or (kind == "run" and not np.isfinite(values[:n]).all()):
        return None
    strings = []
    for j in (0, 2):
        chars = text.pop(j)
        if n < most_rows:  # comment or blank lines
            chars = chars[:n].copy()
        strings.append(chars.view(f"U{chars.shape[1]}").reshape(n))
    if n < most_rows:
        values, keys = values[:n].copy(), keys[:n]
    return strings[0], strings[1], values, keys


def _pandas_call(call):
    """call(), or None when pandas raises (a line with more columns, a score that is not a number, ...: the
    line-by-line reader decides)."""
    try:
        return call()
    except Exception:
        return None


def _next_columns(pandas, chunks, kind, dtypes, n_cols):
    """The next chunk's columns (the required ones: bytes arrays, and the score), {} at the end, or None."""
    try:
        frame = next(chunks)
    except StopIteration:
        return {}
    if frame.shape[1] != n_cols:
        return None
    m = len(frame)
    columns = {}
    for j in range(4 if kind == "qrels" else 6):
        values = frame[j].to_numpy()
        if j == 4 and kind == "run":
            if values.dtype != np.float64 or values.shape != (m,):
                return None
        else:
            if values.dtype.kind == "O":  # pandas versions that hold bytes as objects
                if pandas.api.types.infer_dtype(values, skipna=False) != "bytes":
                    return None
                values = values.astype(dtypes[j])
            if values.dtype != np.dtype(dtypes[j]) or values.shape != (m,):
                return None
        columns[j] = np.ascontiguousarray(values)
    return columns


def _store_ascii(out, start, column):
    """Copy a chunk of fixed-width ASCII bytes into the code points ``out[start:]``, widening ``out`` (a new
    array) first if the chunk holds a longer value than it fits."""
    m = column.shape[0]
    chars = column.view(np.uint8).reshape(m, column.itemsize)
    longest = _longest(column)
    if longest > out.shape[1]:
        wider = np.zeros((out.shape[0], longest), dtype=np.uint32)
        wider[:start, :out.shape[1]] = out[:start]
        out = wider
    out[start:start + m] = chars[:, :out.shape[1]]
    return out


def _longest(column):
    """The length of the longest value of a fixed-width bytes array (its itemsize at most)."""
    chars = column.view(np.uint8).reshape(column.shape[0], column.itemsize)
    width = column.itemsize
    while width > 1 and not chars[:, width - 1].any():
        width -= 1
    return width


def _longest_line(handle):
    longest, last = 0, -1
    position = 0
    handle.seek(0)
    while True:
        block = handle.read(_SCAN_BLOCK)
        if not block:
            break
        ends = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 0x0A) + position
        if ends.size:
            longest = max(longest, int(ends[0] - last - 1), int(np.diff(ends).max(initial=0)))
            last = int(ends[-1])
        position += len(block)
    return max(longest, position - last - 1)


def _parse_integers(column):
    """Python's int() of ASCII fields [+-]digits (up to 18 characters); None for any other field."""
    n, width = column.shape[0], column.itemsize
    chars = column.view(np.uint8).reshape(n, width)
    if width > 18 and chars[:, 18].any():
        return None  # could overflow int64: the line-by-line reader decides
    lead = chars[:, 0]
    signed = (lead == 0x2B) | (lead == 0x2D)
    value = np.zeros(n, dtype=np.int64)
    digits = np.zeros(n, dtype=np.int64)
    for j in range(width):
        c = chars[:, j]
        if not c.any():
            break  # past the longest value
        is_digit = (c >= 0x30) & (c <= 0x39)
        ok = is_digit | (c == 0)
        if j == 0:
            ok |= signed
        if not ok.all():
            return None
        value = np.where(is_digit, value * 10 + (c.astype(np.int64) - 0x30), value)
        digits += is_digit
    if not (digits > 0).all():
        return None  # a lone sign
    value[lead == 0x2D] *= -1
    return value


@lru_cache(maxsize=32)
def _multipliers(width):
    """Odd 64-bit constants (splitmix64): [0] for the code, [1 + j] for character position j."""
    mask, state, out = (1 << 64) - 1, 0, []
    for _ in range(width + 1):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out.append((z ^ (z >> 31)) | 1)
    return np.array(out, dtype=np.uint64)


def _row_keys(codes, columns, offsets=(1,)):
    """A 64-bit hash per row of (code, the strings of each column); equal rows give equal keys, whatever the
    widths of the arrays, for str and bytes alike (characters: code points and bytes).

    The hash is code * constant plus, for each character, character * the constant of its position
    (``offsets``: the position of each column's first character; padding characters are 0). It is a sort
    and join key only: every match is checked on the strings themselves.
    """
    n = columns[0].shape[0]
    keys = np.zeros(n, dtype=np.uint64)
    if codes is not None:
        keys[...] = codes
        keys *= _multipliers(0)[0]
    term = np.empty(min(n, _HASH_BLOCK), dtype=np.uint64)
    for strings, offset in zip(columns, offsets):
        chars = _char_matrix(strings)
        width = chars.shape[1]
        while width and not chars[:, width - 1].any():
            width -= 1
        constants = _multipliers(offset + width)[offset:]
        for start in range(0, n, _HASH_BLOCK):  # blocks of rows that stay in the cache
            block, out = chars[start:start + _HASH_BLOCK], keys[start:start + _HASH_BLOCK]
            part = term[:out.size]
            for j in range(width):
                part[...] = block[:, j]
                part *= constants[j]
                out += part
    return keys


def _char_matrix(strings):
    """The characters of a str (code points) or bytes array as a 2-D unsigned array, padded with zeros."""
    strings = np.ascontiguousarray(strings)
    n = strings.shape[0]
    if strings.dtype.kind == "U":
        return strings.view(np.uint32).reshape(n, strings.itemsize // 4)
    return strings.view(np.uint8).reshape(n, strings.itemsize)


def _has_duplicate_keys(keys, qid, docno):
    """Whether any (qid, docno) pair occurs twice, from their hash keys (suspects checked exactly)."""
    ordered = np.sort(keys)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    del ordered
    if not repeated.size:
        return False
    suspects = np.unique(repeated)
    at = np.minimum(np.searchsorted(suspects, keys), suspects.size - 1)
    rows = np.flatnonzero(suspects[at] == keys)
    pairs = set(zip(qid[rows].tolist(), docno[rows].tolist()))
    return len(pairs) < rows.size


def read_qrels(path, *, progress=None):
    """Read a TREC qrels file (``qid iter docno rel``).

    Parameters
    ----------
    path : str or path-like
        The file.
    progress : callable, default=None
        Called now and then as ``progress(characters_read, file_size)``.

    Returns
    -------
    qrels : Qrels
        Query ids and document numbers as strings, relevance as integers
        (negative levels, "judged non-relevant", are kept as read).

    Raises
    ------
    TrecFormatError
        (a ``ValueError``) naming the file and line of a malformed line, a
        duplicate judgement, or an empty file.

    Examples
    --------
    >>> import tempfile, os
    >>> from sklearn_rank.io import read_qrels
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "qrels")
    ...     with open(path, "w") as f:
    ...         _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\n")
    ...     qrels = read_qrels(path)
    >>> qrels.docno.tolist(), qrels.relevance.tolist()
    (['d1', 'd2'], [1, 0])
    """
    name = os.fspath(path)
    qrels = _read_fast(name, "qrels", progress)
    return qrels if qrels is not None else _read_qrels_lines(name, progress)


def read_run(path, *, progress=None):
    """Read a TREC run file (``qid iter docno rank score runid``).

    The rank column is ignored (as trec_eval does): documents are ranked by
    score. Extra trailing columns are tolerated.

    Parameters
    ----------
    path : str or path-like
        The file.
    progress : callable, default=None
        Called now and then as ``progress(characters_read, file_size)``.

    Returns
    -------
    run : Run

    Raises
    ------
    TrecFormatError
        (a ``ValueError``) naming the file and line of a malformed line, a
        non-numeric or non-finite score, a duplicate (qid, docno), or an empty
        file.

    Examples
    --------
    >>> import tempfile, os
    >>> from sklearn_rank.io import read_run
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "run")
    ...     with open(path, "w") as f:
    ...         _ = f.write("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.5 bm25\\n")
    ...     run = read_run(path)
    >>> run.name, run.score.tolist()
    ('bm25', [2.5, 1.5])
    """
    name = os.fspath(path)
    run = _read_fast(name, "run", progress)
    return run if run is not None else _read_run_lines(name, progress)


def write_qrels(qrels, path):
    """Write a :class:`Qrels` as a TREC qrels file.

    Parameters
    ----------
    qrels : Qrels
    path : str or path-like
    """
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        for q, d, r in zip(qrels.qid, qrels.docno, qrels.relevance):
            handle.write(f"{q} 0 {d} {int(r)}\n")


def write_run(run, path):
    """Write a :class:`Run` as a TREC run file, ranked by decreasing score within each query.

    Parameters
    ----------
    run : Run
    path : str or path-like
    """
    order = _trec_order(run)
    q, d, s = run.qid[order], run.docno[order], run.score[order]
    new = np.r_[True, q[1:] != q[:-1]] if len(q) else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(new)
    rank = np.arange(len(q)) - starts[np.cumsum(new) - 1] + 1
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        for qi, di, ri, si in zip(q, d, rank, s):
            # repr of a Python float: the shortest text that reads back to the same double
            handle.write(f"{qi} Q0 {di} {ri} {float(si)!r} {run.name}\n")


# ------------------------------------------------------------------------------------------------
# trec_eval's order: by query, decreasing score, ties broken by decreasing docno
# ------------------------------------------------------------------------------------------------
_SIGN = np.uint64(1 << 63)
_MIN_SCORE_BITS = 16  # below, the packed sort key is given up for an exact lexsort


def _trec_order(run):
    # trec_eval: by query, decreasing score, then decreasing docno (string comparison).
    if _plain_rows(run.qid, run.docno, run.score):
        uniques, codes = _factorize(run.qid)
        return _order_rows(codes, uniques.size, run.score, run.docno)
    _, docno_code = np.unique(run.docno, return_inverse=True)
    return np.lexsort((-docno_code.reshape(-1), -run.score, run.qid))


def _plain_rows(qid, docno, score):
    """Arrays the vectorised code handles (anything else takes the generic NumPy code)."""
    arrays = (qid, docno, score)
    return (all(isinstance(a, np.ndarray) and a.ndim == 1 and a.shape == score.shape for a in arrays)
            and score.size > 0 and score.dtype == np.float64
            and qid.dtype.kind in "USiub" and docno.dtype.kind in "USiub")


def _factorize(values):
    """Sorted unique values and each element's code; equal neighbours (the usual grouped layout) scanned once."""
    n = values.shape[0]
    if n == 0:
        return values[:0], np.zeros(0, dtype=np.uint16)
    starts = np.flatnonzero(values[1:] != values[:-1]) + 1
    starts = np.concatenate(([0], starts))
    uniques, inverse = np.unique(values[starts], return_inverse=True)
    code_type = np.uint16 if uniques.size <= 1 << 16 else np.uint32 if uniques.size <= 1 << 32 else np.intp
    codes = np.repeat(inverse.reshape(-1).astype(code_type), np.diff(np.append(starts, n)))
    return uniques, codes


def _score_keys(score):
    """uint64 keys in increasing order of -score: equal keys for equal scores (0.0 and -0.0 too), NaN last."""
    negated = -score
    negated += 0.0  # -0.0 becomes 0.0: both zeros tie, as in a float sort
    keys = negated.view(np.uint64)
    negative = keys >= _SIGN
    np.invert(keys, out=keys, where=negative)
    np.bitwise_or(keys, _SIGN, out=keys, where=~negative)
    nan = np.isnan(score)
    if nan.any():
        keys[nan] = np.uint64(np.iinfo(np.uint64).max)
    return keys


def _order_rows(codes, n_codes, score, docno):
    """np.lexsort((-docno_rank, -score, qid)) without sorting strings: query code, then score, then the
    docno of tied rows only."""
    n = score.shape[0]
    index_bits = max(1, (n - 1).bit_length())
    code_bits = (n_codes - 1).bit_length()
    score_bits = 64 - index_bits - code_bits
    if score_bits < _MIN_SCORE_BITS:
        keys = _score_keys(score)
        perm = np.lexsort((keys, codes))
        return _break_ties(perm, np.arange(n), codes[perm], score, docno, ordered=True)
    # one uint64 per row: query code | leading bits of the score key | row; sorted by value
    packed = _score_keys(score)
    packed >>= np.uint64(64 - score_bits)
    packed <<= np.uint64(index_bits)
    for start in range(0, n, _HASH_BLOCK):
        stop = min(n, start + _HASH_BLOCK)
        block = packed[start:stop]
        block |= np.arange(start, stop, dtype=np.uint64)
        if code_bits:
            block |= codes[start:stop].astype(np.uint64) << np.uint64(64 - code_bits)
    packed.sort()
    perm = (packed & np.uint64((1 << index_bits) - 1)).view(np.int64).astype(np.intp, copy=False)
    packed >>= np.uint64(index_bits)
    same = packed[1:] == packed[:-1]
    del packed
    # rows sharing query and leading score bits: ordered by the full score key, then by docno
    pairs = np.flatnonzero(same)
    if not pairs.size:
        return perm
    members = np.zeros(n, dtype=bool)
    members[pairs] = True
    members[pairs + 1] = True
    members = np.flatnonzero(members)
    new_group = np.ones(members.size, dtype=bool)
    new_group[1:] = ~same[members[1:] - 1]
    return _break_ties(perm, members, np.cumsum(new_group), score, docno, ordered=False)


def _break_ties(perm, members, groups, score, docno, ordered):
    """Order the rows perm[members] within each group: decreasing score, then decreasing docno, then row."""
    rows = perm[members]
    row_keys = _score_keys(score[rows])
    if not ordered:
        by_score = np.lexsort((rows, row_keys, groups))
        rows, row_keys = rows[by_score], row_keys[by_score]
    tie = (groups[1:] == groups[:-1]) & (row_keys[1:] == row_keys[:-1])
    pairs = np.flatnonzero(tie)
    if pairs.size:
        tied = np.zeros(rows.size, dtype=bool)
        tied[pairs] = True
        tied[pairs + 1] = True
        tied = np.flatnonzero(tied)
        new_group = np.ones(tied.size, dtype=bool)
        new_group[1:] = ~tie[tied[1:] - 1]
        tied_rows = rows[tied]
        _, docno_code = np.unique(docno[tied_rows], return_inverse=True)
        rows[tied] = tied_rows[np.lexsort((tied_rows, -docno_code.reshape(-1), np.cumsum(new_group)))]
    perm[members] = rows
    return perm


def _query_order(codes, n_codes):
    """np.argsort(qid, kind="stable") from the query codes."""
    if codes.size < 2 or (codes[1:] >= codes[:-1]).all():
        return np.arange(codes.size)
    return np.argsort(_small_codes(codes, n_codes), kind="stable")  # 16-bit keys: a radix sort


def evaluate_trec(qrels, run, *, metrics=("map", "mrr", "ndcg@10"), relevance_level=None, missing="skip",
                  ties="trec", gain="linear"):
    """Evaluate a run against qrels with trec_eval's conventions.

    Documents are ranked by decreasing score, ties broken by decreasing
    docno (``ties="trec"``, trec_eval's rule; any policy of :func:`evaluate`
    may be chosen instead). Judged-relevant documents the run never retrieved
    count in the denominators of AP, recall and R-precision and in the ideal
    DCG. Unjudged documents and negative levels are not relevant.
    ``relevance_level`` decides relevance for the binary measures (trec_eval
    ``-l``); nDCG keeps every positive level as its gain.

    Parameters
    ----------
    qrels : Qrels or path
    run : Run or path
    metrics : sequence of str
    relevance_level : int, default=None
        trec_eval's ``-l`` (default: relevance > 0).
    missing : {"skip", "zero"}, default="skip"
        Judged queries without any retrieved document: left out of the
        average (trec_eval's default), or counted as 0 (``-c``).
    ties : str, default="trec"
        ``"trec"`` or one of the tie policies of :func:`evaluate`.
    gain : {"linear", "exponential"}, default="linear"

    Returns
    -------
    report : RankingReport
        One entry per query of the run that has judgements (trec_eval leaves
        out run queries absent from the qrels); a judged query without any
        relevant document scores 0 and counts in the mean, as in trec_eval.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.io import Qrels, Run, evaluate_trec
    >>> qrels = Qrels(np.array(["q1", "q1", "q1"]), np.array(["a", "b", "c"]), np.array([1, 0, 1]))
    >>> run = Run(np.array(["q1", "q1"]), np.array(["a", "b"]), np.array([2.0, 1.0]))
    >>> report = evaluate_trec(qrels, run, metrics=["map", "r@10"])   # "c" is never retrieved
    >>> report.summary
    {'map': 0.5, 'r@10': 0.5}
    """
    if not isinstance(qrels, Qrels):
        qrels = read_qrels(qrels)
    if not isinstance(run, Run):
        run = read_run(run)
    check_option(missing, "missing", ("skip", "zero"))
    trec_ties = ties == "trec"
    engine_ties = "ordinal" if trec_ties else ties
    level = _check_options(engine_ties, "skip", gain, "first", relevance_level)
    resolved = _resolve_metrics(metrics, "first")

    # Keep only run queries that have judgements (trec_eval evaluates queries in both files).
    judged_rel = np.maximum(qrels.relevance, 0).astype(np.float64)
    rows = _judged_rows(qrels, judged_rel, run, trec_ties)
    uniques = None
    if rows is not None:
        # Query codes stand in for the query ids (same order, same groups); the report gets the ids back.
        order, y_true, uniques, codes, qrels_codes = rows
        del rows
        r_qid, r_score = codes[order], run.score[order]
        del codes
        judged = (qrels_codes, judged_rel)
    else:
        in_qrels = np.isin(run.qid, qrels.qid)
        order = _trec_order(run) if trec_ties else np.argsort(run.qid, kind="stable")
        order = order[in_qrels[order]]
        r_qid, r_doc, r_score = run.qid[order], run.docno[order], run.score[order]
        y_true = _lookup_relevance(qrels, judged_rel, r_qid, r_doc)
        judged = (qrels.qid, judged_rel)
    del order
    data, structure = _structure(y_true, r_score, r_qid, None, None, None, judged, level, gain,
                                 stable=engine_ties == "ordinal")
    # trec_eval scores a judged query without a relevant document 0 and keeps it in the mean.
    params = dict(ties=ties, targets="first", gain=gain, relevance_level=level, no_relevant="zero")
    report = _evaluate_structure(structure, data, resolved, ties=engine_ties, no_relevant="zero",
                                 targets="first", params=params)
    run_queries = data.qid
    if uniques is not None:
        run_queries = uniques[run_queries]
        report.per_query["qid"] = uniques[report.per_query["qid"]]
    if missing == "zero":
        report = _add_missing_queries(report, qrels, set(run_queries.tolist()), resolved)
    return report


def _judged_rows(qrels, judged_rel, run, trec_ties):
    """Without string sorts or joins: (order of the kept run rows, their relevance, the sorted run query
    ids, each run row's query code, each judgement's query code or -1), or None for inputs the generic
    code handles."""
    if not (_plain_rows(run.qid, run.docno, run.score) and run.qid.dtype.kind == "U" and run.docno.dtype.kind == "U"
            and all(isinstance(a, np.ndarray) and a.ndim == 1 and a.dtype.kind == "U" and a.shape == qrels.qid.shape
                    and a.size for a in (qrels.qid, qrels.docno)) and judged_rel.shape == qrels.qid.shape):
        return None
    uniques, codes = _factorize(run.qid)
    at = np.minimum(np.searchsorted(uniques, qrels.qid), uniques.size - 1)
    qrels_codes = np.where(uniques[at] == qrels.qid, at, -1)
    relevance = _relevance_rows(qrels, judged_rel, qrels_codes, codes, run.docno)
    if relevance is None:
        return None
    order = _order_rows(codes, uniques.size, run.score, run.docno) if trec_ties else _query_order(codes, uniques.size)
    judged = np.zeros(uniques.size, dtype=bool)
    judged[qrels_codes[qrels_codes >= 0]] = True
    if not judged.all():
        order = order[judged[codes[order]]]
    return order, relevance[order], uniques, codes, qrels_codes


def _relevance_rows(qrels, judged_rel, qrels_codes, codes, docno):
    """The judged relevance of every run row (0 when unjudged): a hash join checked on the strings.

    None when two judgements share a hash key (duplicates, or a collision): the generic code decides then.
    """
    relevance = np.zeros(codes.size)
    kept = np.flatnonzero(qrels_codes >= 0)
    if not kept.size:
        return relevance
    qrels_keys = _row_keys(qrels_codes[kept], (qrels.docno[kept],))
    by_key = np.argsort(qrels_keys)
    sorted_keys = qrels_keys[by_key]
    if (sorted_keys[1:] == sorted_keys[:-1]).any():
        return None
    run_keys = _row_keys(codes, (docno,))
    # most run rows are unjudged: a bitmap of the keys' leading bits leaves few rows for the binary search
    bits = min(26, max(10, sorted_keys.size.bit_length() + 4))
    shift = np.uint64(64 - bits)
    bitmap = np.zeros(1 << bits, dtype=bool)
    bitmap[sorted_keys >> shift] = True
    rows = np.concatenate([np.flatnonzero(bitmap[run_keys[start:start + _HASH_BLOCK] >> shift]) + start
                           for start in range(0, run_keys.size, _HASH_BLOCK)])
    run_keys = run_keys[rows]
    pos = np.minimum(np.searchsorted(sorted_keys, run_keys), sorted_keys.size - 1)
    found = sorted_keys[pos] == run_keys
    hit, pos = rows[found], pos[found]
    match = kept[by_key[pos]]
    ok = (codes[hit] == qrels_codes[match]) & (docno[hit] == qrels.docno[match])
    relevance[hit[ok]] = judged_rel[match[ok]]
    return relevance


def _lookup_relevance(qrels, judged_rel, qid, docno):
    sep = "\x1f"
    keys = np.char.add(np.char.add(qrels.qid.astype(str), sep), qrels.docno.astype(str))
    order = np.argsort(keys)
    sorted_keys = keys[order]
    wanted = np.char.add(np.char.add(qid.astype(str), sep), docno.astype(str))
    pos = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
    found = sorted_keys[pos] == wanted
    return np.where(found, judged_rel[order][pos], 0.0)


def _add_missing_queries(report, qrels, run_queries, resolved):
    """trec_eval -c: judged queries without any retrieved document count as 0.

    Rank statistics have no rank for such a query: NaN per query, summary unchanged.
    """
    judged_queries = np.unique(qrels.qid)
    missing = np.array([q for q in judged_queries if q not in run_queries], dtype=judged_queries.dtype)
    if missing.size == 0:
        return report
    per_query = {"qid": np.concatenate([report.per_query["qid"], missing])}
    order = np.argsort(per_query["qid"], kind="stable")
    per_query["qid"] = per_query["qid"][order]
    summary = {}
    for name, _, family in resolved:
        fill = 0.0 if family == "list" else np.nan
        full = np.concatenate([report.per_query[name], np.full(missing.size, fill)])[order]
        per_query[name] = full
        summary[name] = weighted_mean(full, np.ones(full.size)) if family == "list" else report.summary[name]
    return RankingReport(summary, per_query, report.n_queries + missing.size, report.n_skipped,
                         dict(report.params, missing="zero"))
