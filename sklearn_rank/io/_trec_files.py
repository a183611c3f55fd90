"""Reading and writing TREC qrels and run files (the formats: see :mod:`sklearn_rank.io`)."""

from __future__ import annotations

import os
import re

import numpy as np

from ._trec_fast import _read_fast
from ._trec_keys import _trec_order
from ._trec_lines import _INT64_MAX, _read_lines
from ..exceptions import InputTypeError, InputValueError


def read_qrels(path, *, progress=None):
    """Read a TREC qrels file (``qid iter docno rel``).

    The file is UTF-8 text (a byte-order mark is skipped), its columns
    separated by ASCII whitespace, as trec_eval reads them. The relevance is
    an integer written as ASCII digits after an optional sign, within the
    64-bit range: trec_eval's ``atol`` would read ``1.9`` or ``1_0`` as 1 and
    ``x`` as 0, this reader refuses them (see the module docstring).

    Read more in the :ref:`User Guide <conventions_trec_eval>`.

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
    return _read(path, "qrels", progress)


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

    Read more in the :ref:`User Guide <conventions_trec_eval>`.

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
    return _read(path, "run", progress)


def _read(path, kind, progress):
    """The file as Qrels (``kind="qrels"``) or Run.

    The fast path returns exactly what the line reader would (the same dtypes and widths, the values bit for
    bit, the same run name), or None when it declines; the line reader then reads the file, or names the file
    and line of its first fault.
    """
    name = os.fspath(path)
    found = _read_fast(name, kind, progress)
    return found if found is not None else _read_lines(name, kind, progress)


def write_qrels(qrels, path):
    """Write a :class:`Qrels` as a TREC qrels file (``qid 0 docno rel``).

    Everything is checked before the file is opened: nothing is written that
    would not read back as itself.

    Read more in the :ref:`User Guide <conventions_trec_eval>`.

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

    Read more in the :ref:`User Guide <conventions_trec_eval>`.

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
        raise InputTypeError(f"`run.score` must hold numbers. Got an array of dtype {score.dtype} instead.")
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
        raise InputValueError(f"The columns of `{what}` must have the same length. Got {got} instead.")
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
                raise InputValueError(f"`{what}` must be text: bytes must be UTF-8. Got {value!r} at row "
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
                raise InputValueError(f"`{what}` {rule}. Got {text!r} at row {_row(i, rows)} instead.")
    return texts


def _row(i, rows):
    return i if rows is None else int(rows[i])


def _relevance_values(relevance):
    """Relevance levels as Python ints; ValueError naming the first one that is no 64-bit integer."""
    rel = np.asarray(relevance)
    if rel.dtype.kind == "O":
        rel = np.array(rel.tolist())
    if rel.dtype.kind not in "biuf":
        raise InputTypeError(f"`qrels.relevance` must hold integers. Got an array of dtype {rel.dtype} instead.")
    if rel.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            good = np.isfinite(rel) & (rel == np.trunc(rel)) & (rel >= -2.0 ** 63) & (rel < 2.0 ** 63)
    elif rel.dtype.kind == "u":
        good = rel <= _INT64_MAX
    else:
        good = np.ones(rel.shape, dtype=bool)
    if not good.all():
        row = int(np.argmin(good))
        raise InputValueError(f"`qrels.relevance` must hold integers within the 64-bit range (a qrels file holds "
                              f"integer levels: nothing is rounded or truncated). Got {rel[row].item()!r} at row {row} "
                              "instead.")
    return rel.astype(np.int64).tolist()
