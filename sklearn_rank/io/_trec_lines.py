"""The TREC line reader: it reads every file, and names the file and line of every error.

``Qrels`` and ``Run``, the records that the readers return, live here beside the rules the lines
follow (the docstring of :mod:`sklearn_rank.io` states them). The fast path (``_trec_fast``) returns
exactly what this reader returns, or declines.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
import os

import numpy as np

from ..exceptions import TrecFormatError


@dataclass
class Qrels:
    """Relevance judgements: one entry per judged (query, document) pair.

    The readers give ``qid`` and ``docno`` as ``str`` arrays (see the module
    docstring for when they are ``object`` arrays) and ``relevance`` as int64.

    Attributes
    ----------
    qid : ndarray of shape (n_judgements,)
        The query id of each judgement.
    docno : ndarray of shape (n_judgements,)
        The judged document.
    relevance : ndarray of shape (n_judgements,)
        The relevance level (negative levels, "judged non-relevant", are kept
        as read).
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

    Attributes
    ----------
    qid : ndarray of shape (n_rows,)
        The query id of each retrieved document.
    docno : ndarray of shape (n_rows,)
        The retrieved document.
    score : ndarray of shape (n_rows,)
        Its score: documents are ranked by decreasing score.
    name : str, default="run"
        The run id.
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


def _read_lines(name, kind, progress):
    """The file as Qrels (``kind="qrels"``) or Run, read line by line; TrecFormatError naming the file and
    line of the first fault."""
    return _read_qrels_lines(name, progress) if kind == "qrels" else _read_run_lines(name, progress)


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
