"""SVMlight / LETOR ranking files with their query groups: ``load_svmlight_ranking``, ``dump_svmlight_ranking``.

The rows are parsed by scikit-learn's SVMlight reader (:func:`sklearn.datasets.load_svmlight_file`); this
module adds the query groups (``qid:`` tokens or a sidecar file of group sizes) and the checks that keep a
file from being grouped wrongly in silence. scikit-learn is imported on first use: ``sklearn_rank.io`` is
loaded by the command line, which does not need it.
"""

from __future__ import annotations

import os
import re
import warnings

import numpy as np

from .._checks import check_positive_int
from ..exceptions import InputTypeError, InputValueError

__all__ = ["load_svmlight_ranking", "dump_svmlight_ranking"]

_BOM = b"\xef\xbb\xbf"
# Sidecars found next to the data file: LightGBM reads ``<data>.query``; XGBoost's documentation names
# ``<data>.group`` (the same content: one group size per line).
_SIDECAR_SUFFIXES = (".query", ".group")
_SIZE = re.compile(r"[0-9]+")
_ROWS_PER_CHUNK = 65536  # rows formatted at a time by the writer: memory stays bounded


def _check_path(path, name):
    if isinstance(path, (str, os.PathLike)):
        path = os.fspath(path)
        if isinstance(path, str):
            return path
    raise InputTypeError(f"`{name}` must be a str or path-like object naming a file. Got {path!r} of type "
                         f"{type(path).__name__} instead.")


def _open_binary(name):
    """The file for reading bytes, decompressed as scikit-learn's reader would (``.gz``, ``.bz2``)."""
    extension = os.path.splitext(name)[1]
    if extension == ".gz":
        import gzip

        return gzip.open(name, "rb")
    if extension == ".bz2":
        import bz2

        return bz2.BZ2File(name, "rb")
    return open(name, "rb")


# ------------------------------------------------------------------------------------------------
# Reading
# ------------------------------------------------------------------------------------------------

def load_svmlight_ranking(path, *, query_file=None, n_features=None, dtype=np.float64, zero_based="auto",
                          dense=False):
    """Read a learning-to-rank file in SVMlight / LETOR format: features, relevance and query ids.

    Each data line is ``<relevance> [qid:<int>] <index>:<value> ...``, as in
    the LETOR, MSLR, Yahoo! LTR and Istella collections. Lines are parsed by
    :func:`sklearn.datasets.load_svmlight_file` (``#`` starts a comment, blank
    lines are skipped, ``.gz`` and ``.bz2`` files are decompressed); a UTF-8
    byte-order mark at the start of the file is skipped (scikit-learn's reader
    alone would refuse the first line).

    The query groups come from one of two places:

    - ``qid:`` tokens, one on every data line. The query ids are returned as
      read, and rows with the same ``qid`` form one query wherever they are
      (SVMlight's meaning). LightGBM and XGBoost instead read each *run* of
      equal ``qid`` as a query of its own, so a file whose queries are not
      contiguous is read with a ``UserWarning`` that says how many queries
      are split (:class:`~sklearn_rank.RankingEvaluator` and
      :class:`~sklearn_rank.model_selection.QueryGroupKFold` group by value
      and need nothing more).
    - a sidecar file of group sizes: one positive integer per line, the
      number of consecutive rows of each query (blank lines are skipped).
      ``query_file=`` names it; otherwise ``path + ".query"`` (the file
      LightGBM reads with a data file) or ``path + ".group"`` (the name in
      XGBoost's documentation; XGBoost 3's text loader itself reads only
      ``qid:`` tokens) is used when it exists. The query ids are then the
      group numbers ``0, 1, ..., n_groups - 1``.

    When a file has both, they must group the rows identically (same
    partition of the rows), and the query ids of the ``qid:`` tokens are
    returned; pass ``query_file=False`` to ignore a sidecar. Anything that
    leaves the grouping in doubt is a ``ValueError`` naming the file(s):
    ``qid:`` tokens on some data lines only, neither tokens nor sidecar, group
    sizes that do not add up to the number of rows, a sidecar line that is
    not a positive integer, a ``.query`` and a ``.group`` sidecar that
    disagree, tokens and sidecar that disagree, and relevance labels that are
    not finite.

    Read more in the :ref:`User Guide <letor_files>`.

    Parameters
    ----------
    path : str or path-like
        The data file (``.gz`` and ``.bz2`` are decompressed).
    query_file : str, path-like, False or None, default=None
        The sidecar of group sizes. None looks for ``path + ".query"`` and
        ``path + ".group"`` (when both exist they must hold the same sizes);
        False ignores sidecars, so the groups come from the ``qid:`` tokens.
    n_features : int, default=None
        Number of columns of X (default: the highest feature index in the
        file). Give it to read several files into the same columns.
    dtype : numpy dtype, default=np.float64
        Data type of X.
    zero_based : bool or "auto", default="auto"
        Whether feature indices start at 0 (True) or 1 (False); "auto"
        reads them as one-based unless some index is 0, as
        :func:`~sklearn.datasets.load_svmlight_file` does. LETOR files are
        one-based.
    dense : bool, default=False
        Return X as a dense ndarray instead of a CSR sparse matrix.

    Returns
    -------
    X : scipy.sparse.csr_matrix or ndarray of shape (n_rows, n_features)
        Features (CSR unless ``dense=True``).
    y : ndarray of shape (n_rows,) of float64
        Relevance labels, as read.
    qid : ndarray of shape (n_rows,) of int64
        Query id of every row: the ``qid:`` tokens as read, or the group
        numbers of the sidecar.

    See Also
    --------
    dump_svmlight_ranking : Write such a file (and its sidecar).
    sklearn.datasets.load_svmlight_file : The reader of the lines.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank.datasets import load_svmlight_ranking
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "train.txt")
    ...     with open(path, "w") as f:
    ...         _ = f.write("2 qid:10 1:0.5 3:1.0\\n0 qid:10 2:0.2\\n1 qid:11 1:0.9\\n")
    ...     X, y, qid = load_svmlight_ranking(path)
    >>> X.shape, y.tolist(), qid.tolist()
    ((3, 3), [2.0, 0.0, 1.0], [10, 10, 11])

    Group sizes in a sidecar ``train.txt.query`` (LightGBM's layout) are
    found next to the data file:

    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "train.txt")
    ...     with open(path, "w") as f:
    ...         _ = f.write("2 1:0.5 3:1.0\\n0 2:0.2\\n1 1:0.9\\n")
    ...     with open(path + ".query", "w") as f:
    ...         _ = f.write("2\\n1\\n")
    ...     X, y, qid = load_svmlight_ranking(path, dense=True)
    >>> qid.tolist()
    [0, 0, 1]
    >>> X
    array([[0.5, 0. , 1. ],
           [0. , 0.2, 0. ],
           [0.9, 0. , 0. ]])
    """
    name = _check_path(path, "path")
    if query_file is not None and query_file is not False:
        query_file = _check_path(query_file, "query_file")
    if n_features is not None:
        n_features = check_positive_int(n_features, "n_features", rule="None or an integer >= 1")
    if not (zero_based is True or zero_based is False or (isinstance(zero_based, str) and zero_based == "auto")):
        raise InputValueError(f"`zero_based` must be True, False or 'auto'. Got {zero_based!r} instead.")
    if not isinstance(dense, (bool, np.bool_)):
        raise InputTypeError(f"`dense` must be True or False. Got {dense!r} instead.")
    dtype = np.dtype(dtype)

    X, y, tokens = _read_rows(name, n_features, dtype, zero_based)
    n_rows = X.shape[0]
    if n_rows == 0:
        raise InputValueError(f"{name!r} holds no data line (only comments or blank lines, or nothing). Got an "
                              "empty data set instead.")
    not_finite = np.flatnonzero(~np.isfinite(y))
    if not_finite.size:
        row = int(not_finite[0])
        raise InputValueError(
            f"The relevance labels of {name!r} must be finite numbers. Got {float(y[row])!r} on data line "
            f"{row + 1} (comment and blank lines not counted) instead.")
    if 0 < tokens.size < n_rows:
        line = _first_line_without_qid(name)
        raise InputValueError(f"{name!r} has qid: tokens on {tokens.size} of its {n_rows} data lines: give every line "
                              "a qid: token, or none and the group sizes in a sidecar file (query_file=). Got line "
                              f"{line} without one instead.")

    sizes, sidecar = _sidecar_sizes(name, query_file)
    if sizes is None:
        if tokens.size == 0:
            looked = ("query_file=False" if query_file is False
                      else " nor ".join(repr(name + suffix) for suffix in _SIDECAR_SUFFIXES))
            raise InputValueError(f"{name!r} has no query ids: give its lines qid: tokens ('2 qid:7 1:0.5 ...'), or "
                                  "the number of rows of each query, one per line, in a sidecar file named "
                                  f"query_file= (found automatically as {name!r} + '.query' or '.group'). Got no qid: "
                                  f"token and no sidecar ({looked}) instead.")
        qid = tokens
        _warn_if_split(name, qid)
    else:
        total = sum(sizes)
        if total != n_rows:
            raise InputValueError(f"The group sizes in {sidecar!r} must add up to the {n_rows} data lines of {name!r}. "
                                  f"Got {len(sizes)} groups of {total} rows in all instead.")
        sizes = np.asarray(sizes, dtype=np.int64)
        if tokens.size:
            _check_same_groups(name, sidecar, tokens, sizes)
            qid = tokens
        else:
            qid = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
    if dense:
        X = X.toarray()
    return X, y, qid


def _read_rows(name, n_features, dtype, zero_based):
    """X (CSR), y and the qid: tokens (empty when the file has none), by scikit-learn's reader."""
    from sklearn.datasets import load_svmlight_file

    with _open_binary(name) as handle:
        if handle.peek(len(_BOM))[:len(_BOM)] == _BOM:
            handle.read(len(_BOM))
        try:
            X, y, tokens = load_svmlight_file(handle, n_features=n_features, dtype=dtype,
                                              zero_based=zero_based, query_id=True)
        except (ValueError, OverflowError) as error:  # OverflowError: a qid: token beyond int64
            raise InputValueError(f"{name!r} is not a valid SVMlight ranking file: {error}. Lines must read "
                                  f"'<relevance> [qid:<int>] <index>:<value> ...' with increasing indices, qid: "
                                  "tokens within the signed 64-bit range.") from error
    return X, np.asarray(y, dtype=np.float64), np.asarray(tokens, dtype=np.int64)


def _first_line_without_qid(name):
    """Number of the first data line without a qid: token (the error path only)."""
    with _open_binary(name) as handle:
        for number, line in enumerate(handle, start=1):
            if number == 1 and line.startswith(_BOM):
                line = line[len(_BOM):]
            fields = line.split(b"#", 1)[0].split()
            if fields and not any(field.startswith(b"qid:") for field in fields[1:]):
                return number
    return None  # pragma: no cover - the reader counted fewer tokens than data lines


def _sidecar_sizes(name, query_file):
    """(group sizes as a list of int, sidecar path), or (None, None) when no sidecar is to be used."""
    if query_file is False:
        return None, None
    if query_file is not None:
        return _read_sizes(query_file), query_file
    found = [name + suffix for suffix in _SIDECAR_SUFFIXES if os.path.isfile(name + suffix)]
    if not found:
        return None, None
    sizes = [_read_sizes(sidecar) for sidecar in found]
    if len(found) == 2 and sizes[0] != sizes[1]:
        raise InputValueError(f"The sidecar files {found[0]!r} and {found[1]!r} of {name!r} must hold the same group "
                              "sizes when both exist: name the right one with query_file=, or pass query_file=False to "
                              f"use only the qid: tokens. Got {len(sizes[0])} and {len(sizes[1])} groups that differ "
                              "instead.")
    return sizes[0], found[0]


def _read_sizes(sidecar):
    """The group sizes of a sidecar file: one positive integer per line, blank lines skipped."""
    with open(sidecar, "rb") as handle:
        content = handle.read()
    if content.startswith(_BOM):
        content = content[len(_BOM):]
    sizes = []
    for number, raw in enumerate(content.splitlines(), start=1):
        text = raw.strip()
        if not text:
            continue
        decoded = text.decode("ascii", errors="replace")
        if _SIZE.fullmatch(decoded) is None or int(decoded) == 0:
            raise InputValueError(f"Each line of the sidecar {sidecar!r} must hold one positive integer, the number of "
                                  f"rows of a query. Got {decoded!r} on line {number} instead.")
        sizes.append(int(decoded))
    if not sizes:
        raise InputValueError(f"The sidecar {sidecar!r} must hold the size of each query, one per line. Got an empty "
                              "file instead.")
    return sizes


def _check_same_groups(name, sidecar, tokens, sizes):
    """The qid: tokens and the sidecar partition the rows identically, or a ValueError says where not."""
    starts = np.cumsum(sizes)[:-1]
    changes = np.flatnonzero(tokens[1:] != tokens[:-1]) + 1  # rows where the qid differs from the row above
    inside = changes[~np.isin(changes, starts)]
    advice = ("Fix or remove one of them, or pass query_file=False to use only the qid: tokens.")
    if inside.size:
        row = int(inside[0])
        group = int(np.searchsorted(starts, row, side="right"))
        raise InputValueError(f"The qid: tokens of {name!r} and the sidecar {sidecar!r} must group the rows alike. "
                              f"{advice} Got qid:{tokens[row - 1]} then qid:{tokens[row]} on data lines {row} and "
                              f"{row + 1}, both in group {group + 1} of the sidecar, instead.")
    # Every sidecar group holds one qid; two groups must not share it.
    group_qid = tokens[np.r_[0, starts]]
    values, first, counts = np.unique(group_qid, return_index=True, return_counts=True)
    if values.size < group_qid.size:
        shared = values[counts > 1][0]
        groups = np.flatnonzero(group_qid == shared)[:2] + 1
        raise InputValueError(
            f"The qid: tokens of {name!r} and the sidecar {sidecar!r} must group the rows alike. "
            f"{advice} Got qid:{shared} in groups {groups[0]} and {groups[1]} of the sidecar instead.")


def _warn_if_split(name, qid):
    """Warn when the rows of some query are not contiguous (engines that read runs would split it)."""
    run_starts = np.r_[0, np.flatnonzero(qid[1:] != qid[:-1]) + 1]
    _, runs_per_query = np.unique(qid[run_starts], return_counts=True)
    n_split = int(np.count_nonzero(runs_per_query > 1))
    if n_split:
        warnings.warn(f"The rows of {n_split} of the {runs_per_query.size} queries of {name!r} are not contiguous. "
                      "The query ids are returned as read (rows with the same qid form one query); LightGBM and "
                      "XGBoost read each run of equal qid as a query of its own. Sort the rows by qid "
                      "(np.argsort(qid, kind='stable')) before giving group sizes to such an engine yourself.",
                      UserWarning, stacklevel=3)


# ------------------------------------------------------------------------------------------------
# Writing
# ------------------------------------------------------------------------------------------------

def dump_svmlight_ranking(X, y, qid, path, *, query_file=False, zero_based=False):
    """Write features, relevance and query ids to an SVMlight / LETOR ranking file.

    Each row becomes a line ``<relevance> qid:<qid> <index>:<value> ...``
    (zero values left out), or, with ``query_file``, a line without the
    ``qid:`` token and the number of rows of each query, one per line, in a
    sidecar file (``path + ".query"``, the file LightGBM reads with a data
    file, which does not accept ``qid:`` tokens). Numbers are written in
    Python's shortest round-trip form, so :func:`load_svmlight_ranking` reads
    back exactly the values written (as float64; scikit-learn's
    :func:`~sklearn.datasets.dump_svmlight_file` keeps 16 significant digits,
    which can change the last bit of a float64).

    Read more in the :ref:`User Guide <letor_files>`.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_rows, n_features)
        Features; finite numbers.
    y : array-like of shape (n_rows,)
        Relevance labels; finite numbers.
    qid : array-like of shape (n_rows,)
        Query id of every row. Written as ``qid:`` tokens they must be
        integers, and rows of a query may lie anywhere (SVMlight's meaning;
        note that LightGBM and XGBoost read each run of equal ``qid`` as a
        query of its own). With ``query_file`` any values will do, but the rows
        of each query must be contiguous: the sidecar holds only the sizes of
        the runs.
    path : str or path-like
        The data file to write (replaced if it exists).
    query_file : bool, str or path-like, default=False
        False writes ``qid:`` tokens; True writes the group sizes to
        ``path + ".query"`` instead; a path writes them there.
    zero_based : bool, default=False
        Whether feature indices start at 0. The default writes them from 1,
        as LETOR files, SVMlight and RankLib do, and as
        :func:`load_svmlight_ranking` with ``zero_based="auto"`` reads them
        back whatever the columns hold (a zero-based file whose first column
        is all zero would be read as one-based). LightGBM reads indices as
        zero-based column numbers: a one-based file gives it an extra empty
        column 0.

    Returns
    -------
    None

    See Also
    --------
    load_svmlight_ranking : Read such a file back.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from sklearn_rank.datasets import dump_svmlight_ranking, load_svmlight_ranking
    >>> X = np.array([[0.5, 0.0], [0.0, 0.25], [1.0, 2.0]])
    >>> y, qid = [2, 0, 1], [7, 7, 8]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "train.txt")
    ...     dump_svmlight_ranking(X, y, qid, path)
    ...     with open(path) as f:
    ...         print(f.read(), end="")
    ...     X_read, y_read, qid_read = load_svmlight_ranking(path, dense=True)
    2 qid:7 1:0.5
    0 qid:7 2:0.25
    1 qid:8 1:1 2:2
    >>> np.array_equal(X_read, X), qid_read.tolist()
    (True, [7, 7, 8])

    With ``query_file=True`` the groups go to a ``.query`` sidecar:

    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "train.txt")
    ...     dump_svmlight_ranking(X, y, qid, path, query_file=True)
    ...     with open(path + ".query") as f:
    ...         print(f.read(), end="")
    ...     qid_read = load_svmlight_ranking(path)[2]
    2
    1
    >>> qid_read.tolist()
    [0, 0, 1]
    """
    import scipy.sparse as sp

    name = _check_path(path, "path")
    if query_file is True:
        sidecar = name + ".query"
    elif query_file is False:
        sidecar = None
    else:
        sidecar = _check_path(query_file, "query_file")
    if not isinstance(zero_based, (bool, np.bool_)):
        raise InputTypeError(f"`zero_based` must be True or False. Got {zero_based!r} instead.")

    if sp.issparse(X):
        features = sp.csr_matrix(X, copy=True)  # the caller's matrix is left as it was
        features.sum_duplicates()
        features.eliminate_zeros()
        features.sort_indices()
    else:
        dense_features = np.asarray(X)
        if dense_features.ndim != 2:
            raise InputValueError(f"`X` must be 2-D (n_rows, n_features). Got shape {dense_features.shape} instead.")
        features = sp.csr_matrix(_numeric(dense_features, "X"))
    n_rows = features.shape[0]
    if n_rows == 0:
        raise InputValueError("`X` must have at least one row. Got 0 rows instead.")
    values = _numeric(features.data, "X")
    relevance = _numeric(np.asarray(y), "y")
    query = np.asarray(qid)
    for label, array in (("y", relevance), ("qid", query)):
        if array.shape != (n_rows,):
            raise InputValueError(f"`{label}` must be 1-D with one entry per row of X ({n_rows}). Got shape "
                                  f"{array.shape} instead.")
    if sidecar is None:
        if query.dtype.kind not in "iu":
            raise InputTypeError("`qid` must hold integers to be written as qid: tokens (or write the group sizes to "
                                 f"a sidecar with query_file=True). Got dtype {query.dtype} instead.")
        if query.dtype.kind == "u" and query.size and query.max() > np.iinfo(np.int64).max:
            # scikit-learn's reader (and LightGBM's, XGBoost's) hold qid: tokens in a signed 64-bit integer
            raise InputValueError("`qid` must fit in a signed 64-bit integer to be read back from qid: tokens (or "
                                  f"write the group sizes to a sidecar with query_file=True). Got {int(query.max())} "
                                  "instead.")
        sizes = None
    else:
        run_starts = np.r_[0, np.flatnonzero(query[1:] != query[:-1]) + 1]
        n_queries = np.unique(query).size
        if run_starts.size != n_queries:
            raise InputValueError("The rows of each query must be contiguous to be written as group sizes "
                                  "(query_file): sort the rows by qid, or write qid: tokens (query_file=False). Got "
                                  f"{run_starts.size - n_queries} queries split in more than one run instead.")
        sizes = np.diff(np.r_[run_starts, n_rows])

    offset = 0 if zero_based else 1
    with open(name, "w", encoding="ascii", newline="\n") as handle:
        for start in range(0, n_rows, _ROWS_PER_CHUNK):
            stop = min(start + _ROWS_PER_CHUNK, n_rows)
            handle.write(_format_rows(features, values, relevance, None if sizes is not None else query,
                                      start, stop, offset))
    if sidecar is not None:
        with open(sidecar, "w", encoding="ascii", newline="\n") as handle:
            handle.write("".join(f"{size}\n" for size in sizes.tolist()))


def _numeric(array, label):
    if array.dtype.kind not in "biuf":
        raise InputTypeError(f"`{label}` must hold numbers. Got dtype {array.dtype} instead.")
    if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
        raise InputValueError(f"`{label}` must hold finite numbers (no NaN or infinity). Got "
                              f"{int(np.count_nonzero(~np.isfinite(array)))} non-finite values instead.")
    return array


def _format_numbers(array):
    """Numbers as text that reads back exactly: integers as such, floats in Python's shortest round-trip
    form (as float64), without a trailing ``.0``."""
    if array.dtype.kind in "biu":
        return [str(value) for value in array.astype(np.int64 if array.dtype.kind == "b" else array.dtype).tolist()]
    texts = map(repr, array.astype(np.float64).tolist())
    return [text[:-2] if text.endswith(".0") else text for text in texts]


def _format_rows(features, values, relevance, query, start, stop, offset):
    """Lines ``start .. stop - 1`` of the file, as one string."""
    n_rows = stop - start
    indptr = features.indptr[start:stop + 1]
    low, high = int(indptr[0]), int(indptr[-1])
    heads = _format_numbers(relevance[start:stop])
    if query is not None:
        heads = [f"{head} qid:{value}" for head, value in zip(heads, query[start:stop].tolist())]
    columns = (features.indices[low:high].astype(np.int64) + offset).tolist()
    pairs = [f"{column}:{value}" for column, value in zip(columns, _format_numbers(values[low:high]))]
    # One token array per chunk: each row's head, then its pairs; a space after every token but a row's
    # last, which gets the line break.
    n_tokens = n_rows + (high - low)
    head_positions = (indptr[:-1] - low) + np.arange(n_rows)
    tokens = np.empty(n_tokens, dtype=object)
    is_head = np.zeros(n_tokens, dtype=bool)
    is_head[head_positions] = True
    tokens[is_head] = heads
    tokens[~is_head] = pairs
    separators = np.full(n_tokens, " ", dtype=object)
    separators[np.r_[head_positions[1:] - 1, n_tokens - 1]] = "\n"
    pieces = np.empty(2 * n_tokens, dtype=object)
    pieces[0::2] = tokens
    pieces[1::2] = separators
    return "".join(pieces.tolist())
