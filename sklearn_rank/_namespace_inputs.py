"""Array API dispatch, inputs: the label index and the relevance matrix validated in the input's namespace.

Under scikit-learn's ``array_api_dispatch``, scores of another array library than NumPy (torch, CuPy,
array-api-strict, ...) stay in their namespace and on their device: :func:`prepare_namespace` checks
them as ``_inputs.prepare`` checks NumPy arrays (the same rules and messages) and returns a
:class:`NamespaceData`; the grouped-rows layout is NumPy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._inputs import _EXACT_INT, NAN_POLICIES, _as_array, _as_numeric, check_option, nan_message
from .exceptions import InputTypeError, InputValueError

NUMPY_ONLY = ("under scikit-learn's array_api_dispatch, the grouped-rows layout (1-D `y_true` and "
              "`y_score`, with or without `qid`) is computed with NumPy only; pass NumPy arrays (for a "
              "tensor: `.cpu().numpy()`), or the score matrix of the label-index or relevance-matrix layout")


@dataclass
class NamespaceData:
    """A label index (``true``: the true column of each row) or a relevance matrix (``true``: the
    relevance of each candidate) whose arrays live in the namespace ``xp`` on ``device``.

    ``exclude``: None or a boolean array of the score's shape; ``weight``: None or float64 per query.
    """

    xp: object
    device: object
    score: object
    true: object
    exclude: object
    weight: object
    nan_policy: str
    layout: str  # "label index" or "relevance matrix"
    missing_judged = None

    @property
    def n_queries(self):
        return self.score.shape[0]

    @property
    def qid(self):
        return self.xp.arange(self.n_queries, device=self.device)


def _namespace_name(x):
    return type(x).__module__.split(".")[0] + "." + type(x).__name__


def check_strided(x, name):
    """A TypeError for a sparse array of the namespace (a torch sparse COO or CSR tensor): the
    namespace kernels slice and index dense arrays only."""
    layout = getattr(x, "layout", None)
    if layout is not None and "sparse" in str(layout):
        raise InputTypeError(f"`{name}` must be a dense array under array_api_dispatch (sparse tensors are not "
                             "computed in the namespace); pass it dense (`.to_dense()`), or for `exclude` of the "
                             f"label index a SciPy sparse matrix. Got a tensor of layout {layout} instead.")


def to_namespace(xp, x, device, name, reference):
    """``x`` as an array of ``xp`` on ``device``: an array of ``xp`` as it is (never copied), a NumPy
    array or a list moved there; an array of a third library is an error."""
    from ._sklearn_compat import is_namespace_array

    check_strided(x, name)
    if sp.issparse(x):
        raise InputTypeError(f"`{name}` must be a dense array of the namespace of `y_score` under array_api_dispatch "
                             "(sparse matrices are for NumPy scores). Got a scipy.sparse "
                             f"{type(x).__name__} with `y_score` of type {_namespace_name(reference)} instead.")
    if is_namespace_array(x):
        from ._sklearn_compat import array_device

        try:
            same = _compat_namespace(x, reference) is xp
        except TypeError:
            same = False
        if not same:
            raise InputTypeError(f"`{name}` must come from the same array library as `y_score` under "
                                 f"array_api_dispatch. Got {_namespace_name(x)} with `y_score` of type "
                                 f"{_namespace_name(reference)} instead.")
        if array_device(x) != device:
            raise InputValueError(f"`{name}` must be on the device of `y_score` ({device}). Got an array on "
                                  f"{array_device(x)} instead.")
        return x
    arr = _as_array(x, name)
    if arr.dtype.kind != "b":  # strings, objects: the namespace's own conversion error names nothing
        arr = _as_numeric(arr, name)
    return xp.asarray(arr, device=device)


def _compat_namespace(*arrays):
    from ._sklearn_compat import namespace_of

    return namespace_of(*arrays)


def _bool_mask_ns(xp, mask, shape, name):
    if xp.isdtype(mask.dtype, "bool"):
        pass
    elif xp.isdtype(mask.dtype, "integral") and not bool(xp.any((mask != 0) & (mask != 1))):
        mask = mask == 1
    else:
        raise InputTypeError(f"`{name}` must be a boolean mask. Got dtype {mask.dtype} instead.")
    if tuple(mask.shape) != tuple(shape):
        raise InputValueError(f"`{name}` must have the shape of `y_score` {tuple(shape)}. Got {tuple(mask.shape)} "
                              "instead.")
    return mask


def _first_rows(xp, flags, n=5):
    """The first ``n`` row numbers where ``flags`` is True, as Python ints (for messages)."""
    rows = xp.nonzero(flags)[0]
    return [int(rows[i]) for i in range(min(n, rows.shape[0]))]


def _weights_ns(xp, sample_weight, n_queries, device, reference, unit="query"):
    w = to_namespace(xp, sample_weight, device, "sample_weight", reference)
    if w.ndim != 1 or not (xp.isdtype(w.dtype, "real floating") or xp.isdtype(w.dtype, "integral")
                           or xp.isdtype(w.dtype, "bool")):  # booleans weigh 0 or 1, as on the NumPy path
        raise InputValueError(f"`sample_weight` must be 1-D and hold numbers. Got shape {tuple(w.shape)} and dtype "
                              f"{w.dtype} instead.")
    if w.shape[0] != n_queries:
        raise InputValueError(f"`sample_weight` must have one weight per {unit} ({n_queries}). Got {w.shape[0]} "
                              "instead.")
    w = xp.astype(w, xp.float64)
    if not bool(xp.all(xp.isfinite(w))):
        raise InputValueError("`sample_weight` must be finite. Got NaN or infinite values instead.")
    if bool(xp.any(w < 0)):
        raise InputValueError(f"`sample_weight` must be non-negative. Got minimum {float(xp.min(w))!r} instead.")
    return w


def prepare_namespace(xp, y_true, y_score, *, qid=None, exclude=None, labels=None, sample_weight=None,
                      judged=None, unjudged=None, nan_policy="raise"):
    """Validate matrix-layout inputs under Array API dispatch, without leaving ``y_score``'s namespace.

    The checks are those of :func:`prepare` for the label-index and relevance-matrix layouts; what
    runs only on NumPy (the grouped-rows layout, ``labels=``, ``judged=``, ``unjudged=``, a sparse
    ``exclude``) is a TypeError naming the option.
    """
    from ._sklearn_compat import array_device

    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    if y_true is None:
        raise InputValueError("`y_true` and `y_score` are required. Got None instead.")
    check_strided(y_score, "y_score")
    score = y_score
    if score.ndim > 2 or score.ndim == 0:  # invalid in every layout, as on the NumPy path
        raise InputValueError(f"`y_score` must be 1-D or 2-D. Got shape {tuple(score.shape)} instead.")
    if score.ndim == 2 and qid is not None:
        raise InputValueError("`qid` is for the grouped layout (1-D y_true and y_score); in the matrix layouts each "
                              f"row of `y_score` is one query. Got qid with 2-D y_score of shape {tuple(score.shape)} "
                              "instead.")
    if score.ndim != 2:
        got = "qid=" if qid is not None else f"a {score.ndim}-D `y_score`"
        raise InputTypeError(f"`y_score`: {NUMPY_ONLY}. Got {got} with {_namespace_name(score)} instead.")
    for name, value in (("labels", labels), ("judged", judged), ("unjudged", unjudged)):
        if value is not None:
            raise InputTypeError(f"`{name}` is supported on NumPy input only: under array_api_dispatch, pass NumPy "
                                 f"arrays to use it. Got `{name}` with `y_score` of type {_namespace_name(score)} "
                                 "instead.")
    if xp.isdtype(score.dtype, "bool") or xp.isdtype(score.dtype, "integral"):
        exact = not (xp.isdtype(score.dtype, "integral") and score.shape[0] * score.shape[1] and (
            int(xp.max(score)) > _EXACT_INT or int(xp.min(score)) < -_EXACT_INT))
        if exact:
            score = xp.astype(score, xp.float64)
        elif score.dtype != xp.int64 or int(xp.min(score)) == -2 ** 63:
            # float64 would round them into ties; int64 is compared exactly, and negated (the sorts of the
            # relevance matrix) as long as it does not hold -2**63
            raise InputTypeError(
                "`y_score` integers beyond 2**53 are ranked exactly under array_api_dispatch as int64 "
                "without -2**63 (float64 would round them into ties); pass them so, or as NumPy arrays. "
                f"Got integers of dtype {score.dtype} instead.")
    elif not xp.isdtype(score.dtype, "real floating"):
        raise InputTypeError(f"`y_score` must hold numbers. Got an array of dtype {score.dtype} instead.")
    n_queries, n_candidates = score.shape
    if n_queries * n_candidates == 0:
        raise InputValueError(f"`y_score` must not be empty. Got shape {tuple(score.shape)} instead.")
    device = array_device(score)
    true = to_namespace(xp, y_true, device, "y_true", y_score)
    if not (xp.isdtype(true.dtype, "numeric") or xp.isdtype(true.dtype, "bool")):
        raise InputTypeError(f"`y_true` must hold numbers. Got an array of dtype {true.dtype} instead.")
    if xp.isdtype(true.dtype, "bool"):
        true = xp.astype(true, xp.float64)
    weight = None if sample_weight is None else _weights_ns(xp, sample_weight, n_queries, device, y_score)
    mask = None
    if exclude is not None and sp.issparse(exclude):
        if true.ndim != 1:
            raise InputTypeError("`exclude` may be a sparse matrix only in the label-index layout. Got "
                                 f"{type(exclude).__name__} with a 2-D `y_true` instead.")
        mask = SparseMask.from_matrix(xp, exclude, score.shape, device)
    elif exclude is not None:
        mask = _bool_mask_ns(xp, to_namespace(xp, exclude, device, "exclude", y_score), score.shape, "exclude")
    if true.ndim == 2:
        if tuple(true.shape) != tuple(score.shape):
            raise InputValueError("`y_true` and `y_score` must have the same shape in the relevance-matrix layout. "
                                  f"Got {tuple(true.shape)} and {tuple(score.shape)} instead.")
        rel = xp.astype(true, xp.float64)
        if not bool(xp.all(xp.isfinite(rel))):
            raise InputValueError("`y_true` must be finite. Got NaN or infinite values instead.")
        if bool(xp.any(rel < 0)):
            raise InputValueError(f"`y_true` must be non-negative relevance values. Got minimum {float(xp.min(rel))!r} "
                                  "instead.")
        if mask is not None and bool(xp.any(mask & (rel > 0))):
            row = _first_rows(xp, xp.any(mask & (rel > 0), axis=1), 1)[0]
            raise InputValueError(
                "`exclude` must not remove a query's own relevant candidates (the filtered protocol "
                f"removes other known answers only). Got a relevant item excluded at row {row} instead.")
        return NamespaceData(xp, device, score, rel, mask, weight, nan_policy, "relevance matrix")
    if true.ndim != 1:
        raise InputValueError("`y_true` must be 1-D (label index) or 2-D (relevance matrix) when `y_score` is 2-D. "
                              f"Got shape {tuple(true.shape)} instead.")
    if true.shape[0] != n_queries:
        raise InputValueError(f"`y_true` must hold one target per row of `y_score` ({n_queries}). Got {true.shape[0]} "
                              "instead.")
    if xp.isdtype(true.dtype, "real floating"):
        if not bool(xp.all(xp.isfinite(true) & (true == xp.round(true)))):
            raise InputValueError("`y_true` must hold integer column indices in the label-index layout (or class "
                                  "labels with `labels=`). Got non-integer values instead.")
    elif not xp.isdtype(true.dtype, "integral"):
        raise InputTypeError(f"`y_true` must hold integer column indices. Got dtype {true.dtype} instead.")
    bad = (true < 0) | (true >= n_candidates)
    if bool(xp.any(bad)):
        values = xp.take(true, xp.nonzero(bad)[0])
        raise InputValueError(f"`y_true` column indices must lie in [0, {n_candidates - 1}]. "
                              f"Got {[int(values[i]) for i in range(min(5, values.shape[0]))]} instead.")
    target = xp.astype(true, xp.int64)
    if isinstance(mask, SparseMask):
        own = mask.columns == xp.take(target, mask.rows)
        if bool(xp.any(own)):
            rows = xp.take(mask.rows, xp.nonzero(own)[0])
            raise InputValueError("`exclude` must not remove a query's own target. Got the target excluded in rows "
                                  f"{sorted({int(rows[i]) for i in range(min(5, rows.shape[0]))})} instead.")
    elif mask is not None:
        own = take_entries(xp, mask, target)
        if bool(xp.any(own)):
            raise InputValueError("`exclude` must not remove a query's own target. Got the target excluded in rows "
                                  f"{_first_rows(xp, own)} instead.")
    own_nan = xp.isnan(take_entries(xp, score, target))
    if bool(xp.any(own_nan)):
        if nan_policy != "omit":
            raise InputValueError(nan_message(f"a NaN score for the true candidate of rows {_first_rows(xp, own_nan)}"))
        raise InputValueError(
            "`y_score` must not be NaN for a query's own true candidate: nan_policy='omit' removes "
            "NaN-scored candidates as `exclude` does, and a query's own target cannot be removed. Got "
            f"a NaN true score in rows {_first_rows(xp, own_nan)} instead.")
    return NamespaceData(xp, device, score, target, mask, weight, nan_policy, "label index")


@dataclass
class SparseMask:
    """A SciPy sparse ``exclude`` of the label index under dispatch: its entries' rows and columns on the
    device (the row pointer stays on the host: it only slices the entries of a chunk of rows)."""

    indptr: np.ndarray
    rows: object
    columns: object

    @classmethod
    def from_matrix(cls, xp, exclude, shape, device):
        if tuple(exclude.shape) != tuple(shape):
            raise InputValueError(f"`exclude` must have the shape of `y_score` {tuple(shape)}. Got {exclude.shape} "
                                  "instead.")
        mask = sp.csr_matrix(exclude, copy=True).astype(bool)
        mask.sum_duplicates()
        mask.eliminate_zeros()
        rows = np.repeat(np.arange(shape[0], dtype=np.int64), np.diff(mask.indptr))
        return cls(mask.indptr.astype(np.int64), xp.asarray(rows, device=device),
                   xp.asarray(mask.indices.astype(np.int64), device=device))

    def per_row(self, xp, flags, lo, hi, device):
        """Per row of ``lo:hi``: the True ``flags`` among the entries of those rows (in order)."""
        first = int(self.indptr[lo])
        bounds = xp.asarray(self.indptr[lo:hi + 1] - first, device=device)
        cumulative = xp.concat([xp.zeros(1, dtype=xp.int64, device=device),
                                xp.cumulative_sum(xp.astype(flags, xp.int64))])
        return xp.take(cumulative, bounds[1:]) - xp.take(cumulative, bounds[:-1])

    def entries(self, lo, hi):
        """The slice of the entries of rows ``lo:hi``."""
        return slice(int(self.indptr[lo]), int(self.indptr[hi]))


def take_entries(xp, matrix, column, lo=0):
    """``matrix[lo + i, column[i]]`` for each i (rows ``lo:lo + len(column)``), a chunk of rows at a time."""
    from ._sklearn_compat import array_device

    n_columns = matrix.shape[1]
    parts = []
    step = max(1, namespace_chunk(array_device(column)) // max(n_columns, 1))
    for start in range(0, column.shape[0], step):
        stop = min(column.shape[0], start + step)
        block = xp.reshape(matrix[lo + start:lo + stop, ...], (-1,))
        index = xp.arange(stop - start, dtype=xp.int64, device=array_device(column)) * n_columns + column[start:stop]
        parts.append(xp.take(block, index))
    return parts[0] if len(parts) == 1 else xp.concat(parts)


# Entries of a namespace score matrix compared at once (the label index's counts, the relevance
# matrix's sorts). On a GPU, large chunks (a few bytes of temporaries per entry: about 100 MB)
# keep the number of kernel launches small; on a CPU, a chunk whose flags stay in cache between
# the passes over them is several times faster (torch 2.13 on 2 cores, 15,000 columns: 2**18
# entries 60 ms per 2,000 rows, 2**23 entries 680 ms).
NAMESPACE_CHUNK = 1 << 24
NAMESPACE_CHUNK_CPU = 1 << 18


def namespace_chunk(device):
    """Entries per chunk on ``device`` (a CPU device by its name: torch's ``cpu``, ``CPU_DEVICE``)."""
    return NAMESPACE_CHUNK_CPU if "cpu" in str(device).lower() else NAMESPACE_CHUNK
