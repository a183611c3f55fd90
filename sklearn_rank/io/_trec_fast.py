"""The fast path for large regular TREC files: pandas' C tokenizer, then NumPy checks.

``_read_fast`` returns exactly the ``Qrels`` or ``Run`` that the line reader (``_trec_lines``) would
return for the same file, or None when it declines; the public readers then run the line reader, which
reads the file or reports the exact line.
"""

from __future__ import annotations

import csv
import os
import re
import stat

import numpy as np

from ._trec_keys import _has_duplicate_keys, _row_keys
from ._trec_lines import _MAX_LINE_BYTES, _UTF8_BOM, Qrels, Run, _fits_fixed_width

# ------------------------------------------------------------------------------------------------
# Reading: the fast path for large regular files (pandas' C tokenizer, NumPy checks)
# ------------------------------------------------------------------------------------------------
_FAST_READ = True           # False: always the line-by-line reader (the tests switch paths with it)
_FAST_MIN_BYTES = 4 << 20   # smaller files: the line-by-line reader is quicker than importing pandas
_SCAN_BLOCK = 1 << 24       # bytes per block of the byte scan
_SAMPLE_LINES = 2000        # data lines sampled for the column widths (at the start, and at the end)
_SAMPLE_BYTES = 1 << 18     # the sample at the end: its last bytes
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
    """The file as Qrels or Run, exactly as the line reader (``_trec_lines._read_lines``) would return it, or
    None when the fast path declines: not a regular file of ``_FAST_MIN_BYTES`` or more, no pandas, or anything
    irregular (then the line reader reads the file, or names the line at fault)."""
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
        start = len(_UTF8_BOM) if handle.read(len(_UTF8_BOM)) == _UTF8_BOM else 0  # the text starts after a BOM
        layout = _scan(handle, kind, start)
        if layout is None:
            return None
        return _parse(pandas, handle, kind, layout, info.st_size, progress, start)


def _scan(handle, kind, start=0):
    """Check that the file (from byte ``start``) is regular, and describe it: (n_cols, has_comments, longest
    sampled value per column, first fields, most rows)."""
    buffer = bytearray(_SCAN_BLOCK)  # one buffer for the whole file
    n_lines = n_hash = 0
    previous = 0x0A  # the byte before the block (a newline before the file: its first line starts there)
    pending = 0  # bytes of the line that the previous blocks end in
    window = _MAX_LINE_BYTES // 2
    handle.seek(start)
    while True:
        size = handle.readinto(buffer)
        if not size:
            break
        chars = np.frombuffer(buffer, dtype=np.uint8, count=size)
        if chars.max() > 0x7E:
            return None  # not ASCII, or DEL
        is_newline = chars == 0x0A
        newlines = np.count_nonzero(is_newline)
        n_lines += newlines
        # No line longer than _MAX_LINE_BYTES (the line-by-line reader refuses it): a newline in every aligned
        # window of half as many bytes bounds the lines inside the block; the ends are counted across blocks.
        n_windows = size // window
        if n_windows and not is_newline[:n_windows * window].reshape(n_windows, window).any(axis=1).all():
            return None
        del is_newline
        first = buffer.find(b"\n", 0, size)
        if first < 0:
            pending += size
        else:
            if pending + first > _MAX_LINE_BYTES:
                return None
            pending = size - buffer.rfind(b"\n", 0, size) - 1
        if pending > _MAX_LINE_BYTES:
            return None
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
    handle.seek(start)
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


def _parse(pandas, handle, kind, layout, size, progress, start=0):
    n_cols, has_comments, sampled, first, most_rows = layout
    # Strings are read as fixed-width bytes of half as much again as the longest sampled value; a value
    # that may not fit has the file read once more with the longest line's width.
    widths = {j: sampled[j] + sampled[j] // 2 + 4 for j in ((0, 2, 3) if kind == "qrels" else (0, 2))}
    if not all(_fits_fixed_width(most_rows, max(1, sampled[j]), size) for j in (0, 2)):
        return None  # a few very long values: object arrays, from the line-by-line reader
    if max(widths.values()) * most_rows > max(8 * size, 1 << 26):
        return None
    parsed = _parse_chunks(pandas, handle, kind, n_cols, has_comments, widths, sampled, most_rows, size, progress,
                           start)
    if parsed == "longer":
        longest = _longest_line(handle) + 1
        if longest * most_rows > max(8 * size, 1 << 26):
            return None  # a few very long lines: the line-by-line reader
        widths = {j: longest for j in widths}
        parsed = _parse_chunks(pandas, handle, kind, n_cols, has_comments, widths, sampled, most_rows, size,
                               progress, start)
    if parsed is None or parsed == "longer":
        return None
    qid, docno, values, keys = parsed
    if _has_duplicate_keys(keys, qid, docno):
        return None  # the line-by-line reader names the line of the duplicate
    if kind == "qrels":
        return Qrels(qid, docno, values)
    return Run(qid, docno, values, first[5].decode("ascii"))


def _parse_chunks(pandas, handle, kind, n_cols, has_comments, widths, sampled, most_rows, size, progress,
                  start=0):
    """Parse the file from byte ``start`` by chunks of rows: (qid, docno, relevance or score, (qid, docno)
    hash keys); "longer" when a string may not fit its width; None when the file is not regular, or when a
    string column would be stored as objects (see _fits_fixed_width)."""
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
    handle.seek(start)
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
                text[j] = _store_ascii(text[j], n, columns[j], size)
                if text[j] is None:
                    return None
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


def _store_ascii(out, start, column, size):
    """Copy a chunk of fixed-width ASCII bytes into the code points ``out[start:]``, widening ``out`` (a new
    array) first if the chunk holds a longer value than it fits; None when the column, as wide as that, would
    be stored as objects (a file of ``size`` bytes: see _fits_fixed_width)."""
    m = column.shape[0]
    chars = column.view(np.uint8).reshape(m, column.itemsize)
    longest = _longest(column)
    if longest > out.shape[1]:
        if not _fits_fixed_width(out.shape[0], longest, size):
            return None
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
