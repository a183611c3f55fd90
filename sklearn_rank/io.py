"""TREC qrels and run files, and their evaluation with trec_eval's conventions.

A qrels line is ``qid iter docno rel``; a run line is
``qid iter docno rank score runid`` (extra trailing columns are tolerated, and
lines starting with ``#`` are comments, as trec_eval 10 accepts). The readers
name the file and line of any malformed line.

What the readers accept
-----------------------
- Text: UTF-8; a UTF-8 byte-order mark at the start of the file is skipped.
  Bytes that are not UTF-8, NUL bytes (binary data) and lines longer than
  1 MiB (binary data, or a file without line breaks) are errors.
- Lines end with ``\\n``, ``\\r\\n`` or ``\\r``. Columns are separated by
  ASCII whitespace (space, tab, ``\\v``, ``\\f``, ``\\r``: C's ``isspace``, as in
  trec_eval); any other character, a no-break space included, belongs to its
  field.
- Relevance: an optional sign and ASCII digits, within the 64-bit integer range.
  trec_eval reads it with ``atol``, which stops at the first other character
  (``1.9`` and ``1_0`` are 1 to it, ``x`` is 0); these readers refuse such a
  field instead of guessing.
- Score: a finite decimal number (an optional sign, digits with an optional
  point, an optional exponent), which ``atof`` reads whole. Refused rather than
  reinterpreted: ``inf``, ``nan``, hexadecimal numbers, ``_`` between digits
  and non-ASCII digits, and anything ``atof`` would read only a prefix of.
- Query ids and docnos come back as fixed-width ``str`` arrays, unless padding
  every value of a column to its longest one would take more than 4 times the
  size of the file (a few very long values): that column is then an ``object``
  array of ``str``, so that memory follows the size of the file.

Reading has two paths that give the same arrays, bit for bit. The line-by-line
reader handles every file and words every error. Regular files of 4 MB and more
(ASCII after an optional byte-order mark, columns separated by spaces and
tabs, ``#`` only at the start of a comment line, no line with more columns than
the first, no very long line or value, numbers that parse, finite scores, no
duplicate) are parsed by pandas' C reader when pandas is
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

from . import _engine
from .exceptions import TrecFormatError
from ._inputs import check_option
from ._ranks import _small_codes

__all__ = ["Qrels", "Run", "read_qrels", "read_run", "write_qrels", "write_run", "evaluate_trec"]


@dataclass
class Qrels:
    """Relevance judgements: one entry per judged (query, document) pair.

    The readers give ``qid`` and ``docno`` as ``str`` arrays (see the module
    docstring for when they are ``object`` arrays) and ``relevance`` as int64.
    """

    qid: np.ndarray
    docno: np.ndarray
    relevance: np.ndarray

    def __len__(self):
        return len(self.qid)


@dataclass
class Run:
    """A ranked run: one entry per retrieved (query, document) pair.

    The readers give ``qid`` and ``docno`` as ``str`` arrays (see the module
    docstring for when they are ``object`` arrays), ``score`` as float64 and
    ``name`` as the run id of the first line.
    """

    qid: np.ndarray
    docno: np.ndarray
    score: np.ndarray
    name: str = "run"

    def __len__(self):
        return len(self.qid)


# ------------------------------------------------------------------------------------------------
# Reading: the line-by-line reader (every file, every error message)
# ------------------------------------------------------------------------------------------------
_READ_BLOCK = 1 << 20        # bytes per read of the line-by-line reader
_MAX_LINE_BYTES = 1 << 20    # a longer line is no TREC line: binary data, or a file without line breaks
_UTF8_BOM = b"\xef\xbb\xbf"
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
# Fixed-width strings while n_rows * longest <= _WIDE_FACTOR * file bytes + _WIDE_FLOOR, else objects
_WIDE_FACTOR = 4
_WIDE_FLOOR = 1 << 20


def _fits_fixed_width(n_rows, longest, size):
    """Whether a column of n_rows strings, the longest of ``longest`` characters, read from a file of
    ``size`` bytes, is stored as a fixed-width array (else as an object array)."""
    return n_rows * longest <= _WIDE_FACTOR * size + _WIDE_FLOOR


def _string_array(values, size):
    """A list of str as a fixed-width str array, or an object array when padding would cost too much."""
    longest = max(map(len, values), default=0)
    if _fits_fixed_width(len(values), longest, size):
        return np.array(values)
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def _text(field):
    """A field (bytes, already checked to be UTF-8) as str, for messages."""
    return field.decode("utf-8", "backslashreplace")


def _chunks(name, progress, info):
    """The file's lines by chunks: (number of lines before the chunk, its lines as bytes without their line
    breaks, (index of the line, message) of the first line that is no text line, or None).

    The file is read in blocks, never holding more than a block and one line; ``info`` gets "bytes" (the
    number of bytes read), "ascii" (whether they all were ASCII) and "underscore" (whether the last chunk
    holds a "_").
    """
    with open(name, "rb") as handle:
        total = 0
        if progress is not None:
            try:
                total = os.fstat(handle.fileno()).st_size
            except OSError:
                pass
        head = handle.read(len(_UTF8_BOM))
        done = len(head)
        if head == _UTF8_BOM:
            carry = b""
        elif head[:2] in (b"\xff\xfe", b"\xfe\xff"):
            raise TrecFormatError(f"{name}:1: a UTF-16 or UTF-32 byte-order mark: TREC files are read as UTF-8 "
                                  "text (convert the file, e.g. with iconv -t UTF-8).")
        else:
            carry = head
        number = 0  # lines before the chunk
        info["ascii"] = True
        while True:
            block = handle.read(_READ_BLOCK)
            done += len(block)
            if block:
                data = carry + block
                # the chunk ends after the last line break; a "\r" ending the data may start a "\r\n"
                end = max(data.rfind(b"\n"), data.rfind(b"\r", 0, len(data) - 1)) + 1
                chunk, carry = data[:end], data[end:]
                del data
            elif carry:
                chunk, carry = carry, b""
            else:
                break
            if b"\r" in chunk:
                chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            lines = chunk.split(b"\n")
            if not lines[-1]:
                lines.pop()  # after the last line break
            ascii = chunk.isascii()
            problem = _chunk_problem(chunk, lines, ascii)
            if problem is None and len(carry) > _MAX_LINE_BYTES:
                problem = (len(lines), "a NUL byte: this is binary data, not a TREC file." if b"\x00" in carry
                           else _long_line_message())
            if problem is not None:
                del lines[problem[0]:]
            info["ascii"] = info["ascii"] and ascii
            info["underscore"] = b"_" in chunk
            del chunk
            yield number, lines, problem
            number += len(lines)
            if progress is not None:
                progress(done, max(total, done))
    info["bytes"] = done


def _chunk_problem(chunk, lines, ascii):
    """(index into ``lines``, message) of the chunk's first line that is no text line, or None."""
    found = []
    nul = chunk.find(b"\x00")
    if nul >= 0:
        found.append((chunk.count(b"\n", 0, nul), "a NUL byte: this is binary data, not a TREC file."))
    if not ascii:
        try:
            chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            found.append((chunk.count(b"\n", 0, exc.start),
                          f"bytes that are not UTF-8 ({chunk[exc.start:exc.end]!r}): TREC files are read as "
                          "UTF-8 text."))
    if len(chunk) > _MAX_LINE_BYTES:
        lengths = list(map(len, lines))
        if max(lengths) > _MAX_LINE_BYTES:
            found.append((next(i for i, n in enumerate(lengths) if n > _MAX_LINE_BYTES), _long_line_message()))
    return min(found, key=lambda item: item[0]) if found else None


def _long_line_message():
    limit = f"{_MAX_LINE_BYTES >> 20} MiB" if _MAX_LINE_BYTES % (1 << 20) == 0 else f"{_MAX_LINE_BYTES} bytes"
    return f"a line longer than {limit}: this is no TREC file (binary data, or text without line breaks)."


def _raise_problem(name, number, problem):
    if problem is not None:
        raise TrecFormatError(f"{name}:{number + 1}: {problem[1]}")


def _bad_relevance(name, number, field):
    return TrecFormatError(f"{name}:{number}: the relevance must be an integer (ASCII digits after an optional "
                           f"sign). Got {_text(field)!r} instead.")


def _read_qrels_lines(name, progress):
    qids, docnos, rels = [], [], []
    seen = set()
    remember = seen.add
    info = {}
    for number, lines, problem in _chunks(name, progress, info):
        underscore = info["underscore"]
        for line in lines:
            number += 1
            # the fields of the stripped line; no field, or a first one starting with "#": blank or comment
            fields = line.split()
            if not fields or fields[0][0] == 0x23:
                continue
            if len(fields) != 4:
                raise TrecFormatError(f"{name}:{number}: a qrels line must have 4 columns (qid iter docno rel). "
                                      f"Got {len(fields)} instead.")
            try:
                rel = int(fields[3])
            except ValueError:
                raise _bad_relevance(name, number, fields[3]) from None
            if underscore and b"_" in fields[3]:  # int() reads "1_0" as 10
                raise _bad_relevance(name, number, fields[3])
            if not _INT64_MIN <= rel <= _INT64_MAX:
                raise TrecFormatError(f"{name}:{number}: the relevance must be a 64-bit integer (between -2**63 "
                                      f"and 2**63 - 1). Got {_text(fields[3])!r} instead.")
            n_seen = len(seen)
            remember((fields[0], fields[2]))
            if len(seen) == n_seen:
                raise TrecFormatError(f"{name}:{number}: duplicate judgement of document {_text(fields[2])!r} "
                                      f"for query {_text(fields[0])!r}.")
            qids.append(fields[0])
            docnos.append(fields[2])
            rels.append(rel)
        _raise_problem(name, number, problem)
    if not qids:
        raise TrecFormatError(f"{name}: the qrels file holds no judgement. Got an empty file instead.")
    del seen
    return Qrels(_decoded(qids, info), _decoded(docnos, info), np.array(rels, dtype=np.int64))


def _bad_score(name, number, field):
    return TrecFormatError(f"{name}:{number}: the score must be a number (decimal digits with an optional sign, "
                           f"point and exponent). Got {_text(field)!r} instead.")


def _read_run_lines(name, progress):
    qids, docnos, scores = [], [], []
    seen = set()
    remember = seen.add
    isfinite = math.isfinite
    run_name = None
    info = {}
    for number, lines, problem in _chunks(name, progress, info):
        underscore = info["underscore"]
        for line in lines:
            number += 1
            fields = line.split()
            if not fields or fields[0][0] == 0x23:
                continue
            if len(fields) < 6:
                raise TrecFormatError(f"{name}:{number}: a run line must have at least 6 columns "
                                      f"(qid iter docno rank score runid). Got {len(fields)} instead.")
            try:
                score = float(fields[4])
            except ValueError:
                raise _bad_score(name, number, fields[4]) from None
            if underscore and b"_" in fields[4]:  # float() reads "1_5" as 15.0
                raise _bad_score(name, number, fields[4])
            if not isfinite(score):
                raise TrecFormatError(f"{name}:{number}: the score must be finite. Got {_text(fields[4])!r} "
                                      "instead.")
            n_seen = len(seen)
            remember((fields[0], fields[2]))
            if len(seen) == n_seen:
                raise TrecFormatError(f"{name}:{number}: duplicate document {_text(fields[2])!r} for query "
                                      f"{_text(fields[0])!r} in the run.")
            qids.append(fields[0])
            docnos.append(fields[2])
            scores.append(score)
            if run_name is None:
                run_name = fields[5].decode("utf-8")
        _raise_problem(name, number, problem)
    if not qids:
        raise TrecFormatError(f"{name}: the run file holds no line. Got an empty file instead.")
    del seen
    return Run(_decoded(qids, info), _decoded(docnos, info), np.array(scores, dtype=np.float64), run_name)


def _decoded(fields, info):
    """Fields (UTF-8 bytes) as a str array, fixed-width or object (see _fits_fixed_width); ``fields`` is
    emptied on the way."""
    longest = max(map(len, fields))  # in bytes: at least the longest in characters
    if info["ascii"] and _fits_fixed_width(len(fields), longest, info["bytes"]):
        values = np.array(fields)
        fields.clear()
        return values.astype(f"U{values.itemsize}")
    values = [field.decode("utf-8") for field in fields]
    fields.clear()
    return _string_array(values, info["bytes"])


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

    The file is UTF-8 text (a byte-order mark is skipped), its columns
    separated by ASCII whitespace, as trec_eval reads them. The relevance is
    an integer written as ASCII digits after an optional sign, within the
    64-bit range: trec_eval's ``atol`` would read ``1.9`` or ``1_0`` as 1 and
    ``x`` as 0, this reader refuses them (see the module docstring).

    Parameters
    ----------
    path : str or path-like
        The file.
    progress : callable, default=None
        Called now and then as ``progress(bytes_read, file_size)``.

    Returns
    -------
    qrels : Qrels
        Query ids and document numbers as strings (fixed-width ``str``
        arrays, or ``object`` arrays of ``str`` when a few values are far
        longer than the others: see the module docstring), relevance as
        int64 (negative levels, "judged non-relevant", are kept as read).

    Raises
    ------
    TrecFormatError
        (a ``ValueError``) naming the file and line of a malformed line (a
        column missing or extra, a relevance that is no integer or does not
        fit 64 bits), a duplicate judgement, bytes that are not UTF-8, a NUL
        byte or a line longer than 1 MiB (binary data), or an empty file.

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
    score. Extra trailing columns are tolerated. The file is UTF-8 text (a
    byte-order mark is skipped), its columns separated by ASCII whitespace, as
    trec_eval reads them. The score is a finite decimal number (optional
    sign, digits with an optional point, optional exponent) that trec_eval's
    ``atof`` reads whole: ``inf``, ``nan``, hexadecimal numbers, ``1_5`` and
    non-ASCII digits are refused rather than reinterpreted (see the module
    docstring).

    Parameters
    ----------
    path : str or path-like
        The file.
    progress : callable, default=None
        Called now and then as ``progress(bytes_read, file_size)``.

    Returns
    -------
    run : Run
        Query ids and document numbers as strings (fixed-width ``str``
        arrays, or ``object`` arrays of ``str`` when a few values are far
        longer than the others: see the module docstring), scores as
        float64, and the run id of the first line as ``name``.

    Raises
    ------
    TrecFormatError
        (a ``ValueError``) naming the file and line of a malformed line (fewer
        than 6 columns, a score that is no finite number), a duplicate (qid,
        docno), bytes that are not UTF-8, a NUL byte or a line longer than
        1 MiB (binary data), or an empty file.

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
    """Write a :class:`Qrels` as a TREC qrels file (``qid 0 docno rel``).

    Everything is checked before the file is opened: nothing is written that
    would not read back as itself.

    Parameters
    ----------
    qrels : Qrels
        Query ids and docnos: text (``str``, UTF-8 ``bytes``, or numbers,
        written with ``str``) that is not empty and holds no whitespace or NUL
        character; a query id must not start with ``#`` (the line would be a
        comment). Relevance: integers, or floats with integral values, within
        the 64-bit integer range.
    path : str or path-like
        The file to write.

    Raises
    ------
    ValueError
        Naming the field, the row and the value that would not read back: a
        query id or docno with whitespace, or empty; a relevance that is not an
        integer, such as ``1.9``; columns of different lengths.
    """
    n = _common_length(qrels, ("qid", "docno", "relevance"), "qrels")
    rels = _relevance_values(qrels.relevance)
    qids = _field_texts(qrels.qid, "qrels.qid", query=True)
    docnos = _field_texts(qrels.docno, "qrels.docno")
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        for i in range(n):
            handle.write(f"{qids[i]} 0 {docnos[i]} {rels[i]}\n")


def write_run(run, path):
    """Write a :class:`Run` as a TREC run file, ranked by decreasing score within each query.

    Everything is checked before the file is opened: nothing is written that
    would not read back as itself.

    Parameters
    ----------
    run : Run
        Query ids, docnos and the run's name: text (``str``, UTF-8 ``bytes``,
        or numbers, written with ``str``) that is not empty and holds no
        whitespace or NUL character; a query id must not start with ``#``.
        Scores: numbers.
    path : str or path-like
        The file to write.

    Raises
    ------
    ValueError
        Naming the field, the row and the value that would not read back: a
        query id, docno or name with whitespace, or empty; columns of
        different lengths.
    """
    _common_length(run, ("qid", "docno", "score"), "run")
    name = _field_texts([run.name], "run.name")[0]
    score = np.asarray(run.score)
    if score.dtype.kind not in "biuf":
        raise TypeError(f"`run.score` must hold numbers. Got an array of dtype {score.dtype} instead.")
    order = _trec_order(run)
    q, d, s = np.asarray(run.qid)[order], np.asarray(run.docno)[order], score[order]
    qids = _field_texts(q, "run.qid", query=True, rows=order)
    docnos = _field_texts(d, "run.docno", rows=order)
    new = np.r_[True, q[1:] != q[:-1]] if len(q) else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(new)
    rank = np.arange(len(q)) - starts[np.cumsum(new) - 1] + 1
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        for qi, di, ri, si in zip(qids, docnos, rank.tolist(), s.tolist()):
            # repr of a Python float: the shortest text that reads back to the same double
            handle.write(f"{qi} Q0 {di} {ri} {float(si)!r} {name}\n")


# what ends a field, or a line, when a TREC file is read (and NUL and lone surrogates: no UTF-8 text)
_NOT_IN_FIELD = re.compile("[ \t\n\r\x0b\x0c\x00\ud800-\udfff]")


def _common_length(record, names, what):
    lengths = {name: len(getattr(record, name)) for name in names}
    if len(set(lengths.values())) > 1:
        got = ", ".join(f"{what}.{name} of {n}" for name, n in lengths.items())
        raise ValueError(f"The columns of `{what}` must have the same length. Got {got} instead.")
    return lengths[names[0]]


def _field_texts(values, what, *, query=False, rows=None):
    """The values of a query id, docno or name column as the text written to a TREC file; ValueError naming
    the first one that would not read back as itself (``rows``: the original row of each value)."""
    texts = []
    for i, value in enumerate(np.asarray(values, dtype=object).ravel().tolist()):
        if isinstance(value, bytes):
            try:
                value = value.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError(f"`{what}` must be text: bytes must be UTF-8. Got {value!r} at row "
                                 f"{_row(i, rows)} instead.") from None
        texts.append(value if isinstance(value, str) else str(value))
    if not all(texts) or _NOT_IN_FIELD.search("".join(texts)) or (query and "\n#" in "\n" + "\n".join(texts)):
        for i, text in enumerate(texts):
            rule = None
            if not text:
                rule = "must not be empty (an empty field vanishes from a TREC line)"
            elif re.search("[ \t\n\r\x0b\x0c]", text):
                rule = ("must not contain whitespace (it separates the columns of a TREC file: the value would "
                        "read back as other columns)")
            elif _NOT_IN_FIELD.search(text):
                rule = "must be UTF-8 text without NUL characters"
            elif query and text.startswith("#"):
                rule = "must not start with '#' (the line would read back as a comment)"
            if rule is not None:
                raise ValueError(f"`{what}` {rule}. Got {text!r} at row {_row(i, rows)} instead.")
    return texts


def _row(i, rows):
    return i if rows is None else int(rows[i])


def _relevance_values(relevance):
    """Relevance levels as Python ints; ValueError naming the first one that is no 64-bit integer."""
    rel = np.asarray(relevance)
    if rel.dtype.kind == "O":
        rel = np.array(rel.tolist())
    if rel.dtype.kind not in "biuf":
        raise TypeError(f"`qrels.relevance` must hold integers. Got an array of dtype {rel.dtype} instead.")
    if rel.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            good = np.isfinite(rel) & (rel == np.trunc(rel)) & (rel >= -2.0 ** 63) & (rel < 2.0 ** 63)
    elif rel.dtype.kind == "u":
        good = rel <= _INT64_MAX
    else:
        good = np.ones(rel.shape, dtype=bool)
    if not good.all():
        row = int(np.argmin(good))
        raise ValueError(f"`qrels.relevance` must hold integers within the 64-bit range (a qrels file holds "
                         f"integer levels: nothing is rounded or truncated). Got {rel[row].item()!r} at row {row} "
                         "instead.")
    return rel.astype(np.int64).tolist()


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

    Raises
    ------
    ValueError
        When the run and the qrels have no query in common (the message gives
        both query counts); :class:`TrecFormatError` (a ``ValueError``) for a
        malformed file given by its path.

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
    # options and metric names are checked before the files are joined
    _engine.check_options(engine_ties, "skip", gain, "first", relevance_level)
    _engine.resolve_metrics(metrics, "first")

    # Strings held as objects (a few very long ones): integer codes in the same order stand in for them.
    judgements, ranking, uniques = qrels, run, None
    coded = _coded(qrels, run)
    if coded is not None:
        judgements, ranking, uniques = coded
    del coded
    # Keep only run queries that have judgements (trec_eval evaluates queries in both files).
    judged_rel = np.maximum(judgements.relevance, 0).astype(np.float64)
    rows = _judged_rows(judgements, judged_rel, ranking, trec_ties)
    run_uniques = None
    if rows is not None:
        # Query codes stand in for the query ids (same order, same groups); the report gets the ids back.
        order, y_true, uniques, codes, qrels_codes = rows
        del rows
        if not order.size:
            raise _no_common_query(qrels, run)
        r_qid, r_score = codes[order], ranking.score[order]
        del codes
        # Judged queries absent from the run get codes of their own after the run's, so that the engine
        # counts each of them (``missing``).
        absent = qrels_codes < 0
        run_uniques = uniques
        if absent.any():
            absent_names, absent_codes = np.unique(judgements.qid[absent], return_inverse=True)
            qrels_codes = qrels_codes.copy()
            qrels_codes[absent] = uniques.size + absent_codes.reshape(-1)
            uniques = np.concatenate([uniques, absent_names])
        judged = (qrels_codes, judged_rel)
    else:
        in_qrels = np.isin(ranking.qid, judgements.qid)
        order = _trec_order(ranking) if trec_ties else np.argsort(ranking.qid, kind="stable")
        order = order[in_qrels[order]]
        if not order.size:
            raise _no_common_query(qrels, run)
        r_qid, r_doc, r_score = ranking.qid[order], ranking.docno[order], ranking.score[order]
        y_true = _lookup_relevance(judgements, judged_rel, r_qid, r_doc)
        judged = (judgements.qid, judged_rel)
    del order, judgements, ranking
    # trec_eval scores a judged query without a relevant document 0 and keeps it in the mean.
    report = _engine.evaluate(y_true, r_score, metrics=metrics, qid=r_qid, ties=engine_ties,
                              relevance_level=relevance_level, gain=gain, no_relevant="zero", judged=judged,
                              missing=missing, report_params=dict(ties=ties))
    if uniques is not None:
        codes = report.per_query["qid"]
        # the run's ids keep their own dtype unless judged queries absent from the run were added
        if run_uniques is not None and not (codes >= run_uniques.size).any():
            uniques = run_uniques
        names = uniques[codes]
        # codes of judged queries absent from the run follow the run's: list the queries by id again
        by_name = np.argsort(names, kind="stable")
        report.per_query = {key: values[by_name] for key, values in report.per_query.items()}
        report.per_query["qid"] = names[by_name]
    return report


def _coded(qrels, run):
    """When a query id or docno column is an object array of str: (qrels, run with integer codes in the
    order of the strings, so that trec_eval's docno order is kept, the sorted query ids the codes stand
    for); else None."""
    columns = (run.qid, run.docno, qrels.qid, qrels.docno)
    if not (all(isinstance(c, np.ndarray) and c.ndim == 1 and c.dtype.kind in "UO" for c in columns)
            and any(c.dtype.kind == "O" for c in columns)):
        return None
    n = run.qid.shape[0]
    try:
        qid_names, qid_codes = np.unique(np.concatenate([run.qid.astype(object), qrels.qid.astype(object)]),
                                         return_inverse=True)
        _, docno_codes = np.unique(np.concatenate([run.docno.astype(object), qrels.docno.astype(object)]),
                                   return_inverse=True)
    except TypeError:  # values that do not compare with each other: the generic code decides
        return None
    qid_codes, docno_codes = qid_codes.reshape(-1), docno_codes.reshape(-1)
    return (Qrels(qid_codes[n:], docno_codes[n:], qrels.relevance),
            Run(qid_codes[:n], docno_codes[:n], run.score, run.name), qid_names)


def _no_common_query(qrels, run):
    def queries(qid):
        names = np.unique(np.asarray(qid))
        shown = ", ".join(repr(str(name)) for name in names[:3].tolist()) + (", ..." if names.size > 3 else "")
        return f"{names.size} {'query' if names.size == 1 else 'queries'}" + (f" ({shown})" if names.size else "")

    return ValueError("The run and the qrels must have a query in common (trec_eval evaluates the queries of the "
                      f"run that have judgements): nothing to evaluate. Got a run of {queries(run.qid)} and qrels "
                      f"of {queries(qrels.qid)} instead.")


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
    columns = (qrels.qid, qrels.docno, qid, docno)
    if all(c.dtype.kind in "iu" and (not c.size or c.min() >= 0) for c in columns) and qrels.qid.size:
        # integer codes: one int64 key per (qid, docno) pair
        width = max(int(qrels.docno.max()), int(docno.max(initial=0))) + 1
        if (max(int(qrels.qid.max()), int(qid.max(initial=0))) + 1) * width < 1 << 63:
            keys = qrels.qid.astype(np.int64) * width + qrels.docno
            wanted = qid.astype(np.int64) * width + docno
            order = np.argsort(keys)
            sorted_keys = keys[order]
            pos = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
            found = sorted_keys[pos] == wanted
            return np.where(found, judged_rel[order][pos], 0.0)
    sep = "\x1f"
    keys = np.char.add(np.char.add(qrels.qid.astype(str), sep), qrels.docno.astype(str))
    order = np.argsort(keys)
    sorted_keys = keys[order]
    wanted = np.char.add(np.char.add(qid.astype(str), sep), docno.astype(str))
    pos = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
    found = sorted_keys[pos] == wanted
    return np.where(found, judged_rel[order][pos], 0.0)
