"""Factorising ids: the sorted distinct values and each element's integer code into them.

Query ids and TREC docnos become integer codes this one way, so that codes order as the values do.
The module imports NumPy only: the engine's modules and the io package can both import it.
"""

from __future__ import annotations

import numpy as np

# dtypes that NumPy compares element by element; object arrays go to np.unique as they are (Python comparisons)
RUN_KINDS = "biufUS"


def factorize(values, *, compact=False):
    """Return the sorted distinct values of ``values`` and each element's code into them.

    Rows of one id usually come together (a query's rows): the distinct values are looked for among
    the first element of each run of equal neighbours only, and when those are already increasing
    (rows sorted by id) nothing is sorted at all.

    Parameters
    ----------
    values : array-like
        The ids, flattened as :func:`numpy.unique` flattens them. The elements of an object array
        are compared as Python objects.
    compact : bool, default=False
        Give the codes in the smallest unsigned type that holds them (``uint16``, else ``uint32``),
        for packed sort keys; else in ``intp``.

    Returns
    -------
    uniques : ndarray of shape (n_uniques,)
        The distinct values, sorted, in the dtype of ``values``.
    codes : ndarray of shape (n_values,)
        Each element's position in ``uniques``: ``uniques[codes]`` equals ``values``.

    Raises
    ------
    TypeError
        When the values do not compare with each other (an object array of numbers and strings).
    """
    uniques, codes, _ = factorize_runs(values, compact=compact)
    return uniques, codes


def factorize_runs(values, *, compact=False):
    """:func:`factorize`, and whether the values were sorted (the codes then increase along ``values``,
    known without a pass over the codes: the runs of equal values came in increasing order)."""
    values = np.asarray(values).reshape(-1)
    n = values.shape[0]
    if values.dtype.kind not in RUN_KINDS:
        uniques, inverse = _unique_objects(values)
        codes = _codes(inverse, uniques.size, compact)
        return uniques, codes, bool((codes[1:] >= codes[:-1]).all())
    if n == 0:
        return values[:0], np.zeros(0, dtype=np.uint16 if compact else np.intp), True
    starts = np.concatenate(([0], np.flatnonzero(values[1:] != values[:-1]) + 1))
    heads = values[starts]
    increasing = bool((heads[1:] > heads[:-1]).all())
    if increasing:
        uniques, inverse = heads, np.arange(heads.size)
    else:
        uniques, inverse = np.unique(heads, return_inverse=True)
    codes = _codes(inverse.reshape(-1), uniques.size, compact)
    return uniques, np.repeat(codes, np.diff(np.append(starts, n))), increasing


def _unique_objects(values):
    """``np.unique(values, return_inverse=True)`` of a 1-D object array, sorted by Python's sort.

    Python's sort orders Python objects (str ids) several times faster than NumPy's sort of an
    object array, with the same comparisons; equal neighbours are merged as ``np.unique`` merges them.
    """
    items = values.tolist()
    order = np.array(sorted(range(len(items)), key=items.__getitem__), dtype=np.intp)
    ordered = values[order]
    first = np.ones(len(items), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    inverse = np.empty(len(items), dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


def _codes(inverse, n_uniques, compact):
    if not compact:
        return inverse.astype(np.intp, copy=False)
    code_type = np.uint16 if n_uniques <= 1 << 16 else np.uint32 if n_uniques <= 1 << 32 else np.intp
    return inverse.astype(code_type)
