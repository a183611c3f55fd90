"""Sparse filter masks for the filtered protocol: :func:`exclude_from_pairs` and :func:`exclude_known_triples`.

Both return a boolean :class:`scipy.sparse.csr_array` shaped like the score matrix, to pass as
``exclude=`` in the label-index layout. Memory grows with the number of excluded pairs, never with
the size of the score matrix.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._checks import check_positive_int
from ._inputs import _as_array, check_option
from .exceptions import InputError, InputTypeError, InputValueError

__all__ = ["exclude_from_pairs", "exclude_known_triples"]

SIDES = ("tail", "head", "both")

# Ids are held as int64: a larger id (a uint64 above this, a float beyond it) is refused.
_ID_LIMIT = 2**63


def exclude_from_pairs(rows, columns, *, shape):
    """Build a sparse ``exclude`` mask from (row, column) index pairs.

    The recommendation case: the (user, item) training interactions of the
    users being evaluated, removed from their score matrix before ranking.
    Row ``i`` of the mask is row ``i`` of the score matrix, so give the
    users as their row numbers in it. A training matrix that is already a
    SciPy sparse matrix of the score matrix's shape needs no conversion:
    the label-index layout takes it as ``exclude=`` as it is.

    Read more in the :ref:`User Guide <filters_from_pairs>`.

    Parameters
    ----------
    rows : array-like of int of shape (n_pairs,)
        The row of each excluded pair, in ``[0, shape[0])``.
    columns : array-like of int of shape (n_pairs,)
        The column of each excluded pair, in ``[0, shape[1])``. A pair
        given more than once is excluded once.
    shape : tuple of (int, int)
        The shape of the score matrix, ``(n_queries, n_candidates)``.

    Returns
    -------
    exclude : scipy.sparse.csr_array of bool of shape ``shape``
        True at each given pair, in canonical format (sorted column
        indices, no duplicates).

    See Also
    --------
    exclude_known_triples : The filter of knowledge-graph link prediction.
    evaluate : Many metrics at once; takes the mask as ``exclude=``.

    Examples
    --------
    Leave-one-out evaluation of three users over five items: each user's
    held-out item is the true column, and the items they were trained on
    are filtered out.

    >>> import numpy as np
    >>> from sklearn_rank import compute_ranks, evaluate, exclude_from_pairs
    >>> train_user = [0, 0, 1, 2, 2]
    >>> train_item = [1, 3, 0, 3, 4]
    >>> exclude = exclude_from_pairs(train_user, train_item, shape=(3, 5))
    >>> exclude.toarray()
    array([[False,  True, False,  True, False],
           [ True, False, False, False, False],
           [False, False, False,  True,  True]])
    >>> held_out = np.array([2, 4, 0])
    >>> scores = np.array([[0.1, 0.9, 0.5, 0.7, 0.3],
    ...                    [0.8, 0.1, 0.2, 0.3, 0.6],
    ...                    [0.4, 0.2, 0.1, 0.9, 0.8]])
    >>> compute_ranks(held_out, scores).realistic       # raw: behind training items
    array([3., 2., 3.])
    >>> compute_ranks(held_out, scores, exclude=exclude).realistic
    array([1., 1., 1.])
    >>> evaluate(held_out, scores, exclude=exclude, metrics="mrr").summary
    {'mrr': 1.0}
    """
    n_rows, n_columns = _check_shape(shape)
    row = _index_array(rows, "rows", "row indices", n_rows)
    column = _index_array(columns, "columns", "column indices", n_columns)
    if row.shape != column.shape:
        raise InputValueError(f"`rows` and `columns` must have the same length (one pair per position). "
                              f"Got {row.shape[0]} rows and {column.shape[0]} columns instead.")
    # COO to CSR sorts the pairs and merges the duplicates (True + True is True in a boolean matrix).
    mask = sp.csr_array((np.ones(row.shape[0], dtype=bool), (row, column)), shape=(n_rows, n_columns))
    mask.sum_duplicates()
    return mask


def exclude_known_triples(triples, known, *, n_entities, side="tail"):
    """Build the sparse filter of knowledge-graph link prediction from (head, relation, tail) triples.

    Each evaluated triple ``(h, r, t)`` is one query per side: its tail
    row ranks every entity as the tail of ``(h, r, ?)``, its head row every
    entity as the head of ``(?, r, t)``. The filter of a tail row removes
    every entity ``e != t`` such that ``(h, r, e)`` is a known triple or one
    of the evaluated triples; the filter of a head row every ``e != h`` such
    that ``(e, r, t)`` is. A row's own true entity is never removed. This is
    the filtered setting of Bordes et al. (2013) and of PyKEEN's
    ``RankBasedEvaluator`` (``filtered=True``, whose filter is the evaluated
    triples and the ``additional_filter_triples``).

    Read more in the :ref:`User Guide <filters_from_triples>`.

    Parameters
    ----------
    triples : array-like of int of shape (n_triples, 3)
        The evaluated triples, one ``(head, relation, tail)`` per row.
    known : array-like of int of shape (n_known, 3)
        Every known true triple: usually the training, validation and
        testing triples together. The evaluated triples may be among them
        or not; they are filtered either way.
    n_entities : int
        The number of entities: the columns of the score matrix. Entity ids
        lie in ``[0, n_entities)``; relation ids are any integers >= 0.
    side : {"tail", "head", "both"}, default="tail"
        The queries: ``"tail"``, one row per triple predicting its tail;
        ``"head"``, one row per triple predicting its head; ``"both"``, the
        ``n_triples`` tail rows then the ``n_triples`` head rows, whose true
        columns are ``np.concatenate([tails, heads])``.

    Returns
    -------
    exclude : scipy.sparse.csr_array of bool of shape (n_rows, n_entities)
        The filter, ``n_rows`` being ``n_triples`` (``2 * n_triples`` with
        ``side="both"``), in canonical format.

    See Also
    --------
    exclude_from_pairs : A mask from (row, column) index pairs.
    compute_ranks : The filtered ranks, with the mask as ``exclude=``.

    Examples
    --------
    Four entities, one relation; two test triples, three training triples:

    >>> import numpy as np
    >>> from sklearn_rank import exclude_known_triples
    >>> train = np.array([[0, 0, 1], [0, 0, 2], [3, 0, 2]])
    >>> test = np.array([[0, 0, 3], [1, 0, 2]])
    >>> exclude_known_triples(test, train, n_entities=4).toarray()      # (0, 0, ?) and (1, 0, ?)
    array([[False,  True,  True, False],
           [False, False, False, False]])
    >>> exclude_known_triples(test, train, n_entities=4, side="head").toarray()  # (?, 0, 3), (?, 0, 2)
    array([[False, False, False, False],
           [ True, False, False,  True]])
    >>> exclude_known_triples(test, train, n_entities=4, side="both").shape
    (4, 4)
    """
    n_entities = check_positive_int(n_entities, "n_entities", type_error=True)
    check_option(side, "side", SIDES)
    evaluated = _triple_array(triples, "triples", n_entities)
    true = np.concatenate([_triple_array(known, "known", n_entities), evaluated])
    true[:, 1] = _compact(true[:, 1], n_entities)  # relation * n_entities + entity fits in int64
    evaluated = true[true.shape[0] - evaluated.shape[0]:]
    columns = {"tail": (0, 2), "head": (2, 0)}
    parts = [_side_filter(evaluated, true, n_entities, *columns[name])
             for name in (("tail", "head") if side == "both" else (side,))]
    counts = np.concatenate([counts for counts, _ in parts])
    indptr = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    indices = np.concatenate([indices for _, indices in parts])
    return sp.csr_array((np.ones(indices.shape[0], dtype=bool), indices, indptr),
                        shape=(counts.shape[0], n_entities))


def _side_filter(evaluated, true, n_entities, given, answer):
    """Each evaluated triple's other true answers: (count per triple, answers row after row).

    ``given`` is the column of the entity the query gives (0, the head, when predicting tails) and
    ``answer`` the column it asks for. A true triple is coded ``query * n_entities + answer``, its
    query being ``relation * n_entities + given entity``; the sorted distinct codes hold each
    query's answers as one run, found by binary search. No loop over triples, and memory for the
    true triples and the answers found only.
    """
    queries = _compact(true[:, 1] * n_entities + true[:, given], n_entities)
    codes = np.sort(queries * n_entities + true[:, answer])
    codes = codes[np.concatenate(([True], codes[1:] != codes[:-1]))]  # (np.unique hashes: slower on NumPy 2.3+)
    # The evaluated triples are the last rows of ``true``: their queries are coded alike.
    wanted = queries[true.shape[0] - evaluated.shape[0]:] * n_entities
    # Sorted needles: the binary searches then walk the codes in order (several times faster).
    order = np.argsort(wanted, kind="stable")
    start, stop = np.empty_like(wanted), np.empty_like(wanted)
    start[order] = np.searchsorted(codes, wanted[order])
    stop[order] = np.searchsorted(codes, wanted[order] + n_entities)
    counts = stop - start
    row = np.repeat(np.arange(evaluated.shape[0]), counts)
    first = np.cumsum(counts) - counts  # each row's first position among the answers found
    found = codes[np.arange(row.shape[0]) - first[row] + start[row]] - wanted[row]
    # The evaluated triples are among the true ones, so each run holds its row's own answer once.
    return counts - 1, found[found != evaluated[row, answer]]


def _compact(values, factor):
    """``values`` (>= 0), or their ranks among the distinct values when ``values * factor`` would
    overflow int64: the codes built from them then fit, in the same order."""
    if values.shape[0] and (int(values.max()) + 1) * factor > _ID_LIMIT:
        return np.unique(values, return_inverse=True)[1].reshape(-1)
    return values


def _check_shape(shape):
    """``shape`` as two Python ints, after checking that it is a pair of non-negative integers."""
    rule = "`shape` must be a pair of non-negative integers (n_rows, n_columns)."
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__len__"):
        raise InputTypeError(f"{rule} Got {shape!r} of type {type(shape).__name__} instead.")
    if len(shape) != 2:
        raise InputValueError(f"{rule} Got {shape!r} instead.")
    try:
        return tuple(check_positive_int(size, "shape", minimum=0, type_error=True) for size in shape)
    except InputError as error:
        raise type(error)(f"{rule} Got {tuple(shape)!r} instead.") from None


def _triple_array(values, name, n_entities):
    """``values`` as an int64 array of shape (n, 3) of valid (head, relation, tail) ids."""
    array = _integer_array(values, name, "ids", 2)
    if array.shape[1] != 3:
        raise InputValueError(f"`{name}` must have 3 columns (head, relation, tail). "
                              f"Got shape {array.shape} instead.")
    _check_range(array[:, [0, 2]], name, "entity ids in columns 0 and 2 (head, tail)", n_entities)
    _check_range(array[:, 1], name, "relation ids in column 1", None)
    return array.astype(np.int64)


def _index_array(values, name, what, upper):
    """``values`` as a 1-D int64 array of integers in ``[0, upper)``."""
    array = _integer_array(values, name, what, 1)
    _check_range(array, name, what, upper)
    return array.astype(np.int64)


def _integer_array(values, name, what, ndim):
    """``values`` as an array of ``ndim`` dimensions holding integers, in its own dtype.

    Integral floats are accepted (``np.asarray([])`` is a float array); booleans, fractions and
    non-numbers are refused.
    """
    if sp.issparse(values):
        hint = (" A sparse matrix is already a mask: pass it as `exclude=` directly."
                if name in ("rows", "columns") else "")
        raise InputTypeError(f"`{name}` must be an array-like of integer {what}.{hint} Got a scipy sparse "
                             f"{type(values).__name__} of shape {values.shape} instead.")
    array = _as_array(values, name)
    if ndim == 2 and array.ndim == 1 and array.shape[0] == 0:
        array = array.reshape(0, 3)  # an empty list of triples
    if array.ndim != ndim:
        layout = "1-D" if ndim == 1 else "2-D, one triple per row"
        raise InputValueError(f"`{name}` must be {layout}. Got shape {array.shape} instead.")
    if array.dtype.kind == "b" or array.dtype.kind not in "iuf":
        raise InputTypeError(f"`{name}` must hold integer {what}. Got dtype {array.dtype} instead.")
    if array.dtype.kind == "f":
        fractional = ~np.isfinite(array) | (array != np.round(array))
        if fractional.any():
            raise InputValueError(f"`{name}` must hold integer {what}. "
                                  f"Got {array[fractional][:5].tolist()} instead.")
    return array


def _check_range(array, name, what, upper):
    """Refuse values of ``array`` outside ``[0, upper)``; ``upper=None``: outside ``[0, 2**63)`` (int64)."""
    bad = (array < 0) | (array >= (_ID_LIMIT if upper is None else upper))
    if bad.any():
        interval = ">= 0 (and below 2**63)" if upper is None else f"in [0, {upper})"
        raise InputValueError(f"`{name}` must hold {what} {interval}. Got {array[bad][:5].tolist()} instead.")
