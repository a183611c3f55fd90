"""Layout detection and validation: every entry point turns its input into one canonical form here."""

from __future__ import annotations

from dataclasses import dataclass
import math

import numpy as np
import scipy.sparse as sp

from ._factorize import RUN_KINDS, factorize_runs
from .exceptions import InputTypeError, InputValueError

TIE_POLICIES = ("expected", "realistic", "optimistic", "pessimistic", "ordinal")
NO_RELEVANT = ("skip", "zero", "one", "error")
AP_DENOMINATORS = ("relevant", "capped", "retrieved", "list")
PRECISION_DENOMINATORS = ("k", "list", "capped")
RECALL_DENOMINATORS = ("relevant", "capped")
DISCOUNTS = ("log2", "log2_max2", "reciprocal")
IDEAL_DCGS = ("relevant", "k")
STOP_PROBABILITIES = ("graded", "label")
MISSING = ("skip", "zero")
GAINS = ("linear", "exponential", "binary")
TARGETS = ("first", "all")
NAN_POLICIES = ("raise", "omit")


def gain_of(xp, grade, gain):
    """The (n)DCG gain of each ``grade`` under the ``gain`` option, in namespace ``xp``: the grade itself
    (``"linear"``), ``2**grade - 1`` (``"exponential"``) or 1 for every positive grade (``"binary"``)."""
    if gain == "linear":
        return grade
    if gain == "binary":
        return xp.where(grade > 0, xp.ones_like(grade), xp.zeros_like(grade))
    return xp.expm1(grade * math.log(2.0))


@dataclass
class GroupedData:
    """Rows of many queries (the grouped and relevance-matrix layouts), excluded rows removed.

    ``query`` holds codes ``0..n_queries-1`` into ``qid`` (the sorted unique query ids).
    """

    query: np.ndarray
    score: np.ndarray
    rel: np.ndarray
    qid: np.ndarray
    weight: np.ndarray | None
    judged_query: np.ndarray | None = None
    judged_rel: np.ndarray | None = None
    missing_judged: tuple | None = None  # (qid, relevance) of judged queries without any candidate row
    grouped: bool | None = None  # True: ``query`` is nondecreasing (each query's rows contiguous); None: unknown
    unjudged: np.ndarray | None = None  # bool per row: the candidate has no judgement (None: every one has)
    # False: the rows' scores (no NaN) and relevance (finite, non-negative) are not checked yet, left by
    # ``prepare(defer_row_checks=True)`` to the caller, which checks each part (``_threads.rows_pass_checks``)
    rows_checked: bool = True

    @property
    def n_queries(self):
        return len(self.qid)


@dataclass
class GroupedRows:
    """Grouped rows as they came (``prepare(defer_row_checks=True)``): the query ids, one per row, checked
    but not factorized; scores and relevance as float64, not checked. The caller cuts them where the id
    changes and each part factorizes its ids and checks its rows on its own thread (``_threads.rows_in``);
    ids not in increasing runs are factorized whole (:meth:`factorized`)."""

    qid: np.ndarray
    score: np.ndarray
    rel: np.ndarray
    unjudged: np.ndarray | None = None

    def factorized(self):
        """The GroupedData of all the rows (its rows not checked)."""
        uniques, codes, in_order = factorize_runs(self.qid)
        return GroupedData(query=codes, score=self.score, rel=self.rel, qid=uniques, weight=None,
                           grouped=True if in_order else None, unjudged=self.unjudged, rows_checked=False)


@dataclass
class LabelIndexData:
    """A score matrix with one true column per row; ranks are counted, never sorted."""

    score: np.ndarray
    target: np.ndarray
    exclude: object  # None, dense boolean array or CSR matrix
    qid: np.ndarray
    weight: np.ndarray | None
    nan_policy: str = "raise"  # NaN scores: an error, or candidates removed as ``exclude`` does
    missing_judged = None  # no judgements in this layout

    @property
    def n_queries(self):
        return len(self.qid)


def check_option(value, name, allowed):
    """``value`` if it is one of ``allowed`` (strings, and None where None is allowed), else a ValueError."""
    ok = (None in allowed) if value is None else (isinstance(value, str) and value in allowed)
    if not ok:
        import difflib

        words = [a for a in allowed if isinstance(a, str)]
        close = difflib.get_close_matches(value, words, n=1) if isinstance(value, str) else []
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise InputValueError(
            f"`{name}` must be one of {{{', '.join(repr(a) for a in allowed)}}}.{hint} Got {value!r} instead."
        )
    return value


def _as_array(x, name):
    """``np.asarray`` with an error that names the argument (ragged nested lists)."""
    try:
        return np.asarray(x)
    except ValueError:
        raise InputValueError(f"`{name}` must be a rectangular array: every row of the same length. "
                              "Got a ragged nested sequence instead.") from None


def _as_numeric(x, name, ndim=None):
    if sp.issparse(x):
        raise InputTypeError(
            f"`{name}` must be a dense array-like, not a sparse matrix. Got {type(x).__name__} instead.")
    arr = _as_array(x, name)
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise InputTypeError(f"`{name}` must hold numbers. Got an array of dtype object instead.") from None
    if arr.dtype.kind == "b":
        arr = arr.astype(np.float64)
    if arr.dtype.kind not in "iuf":
        raise InputTypeError(f"`{name}` must hold numbers. Got an array of dtype {arr.dtype} instead.")
    if ndim is not None and arr.ndim not in ndim:
        raise InputValueError(f"`{name}` must be {' or '.join(f'{d}-D' for d in ndim)}. Got shape {arr.shape} instead.")
    return arr


# Integers of at most 53 bits are exact in float64.
_EXACT_INT = 2 ** 53


def score_values(y_score, nan_policy="raise"):
    """Validate scores and return them as floats that order and tie exactly as the input does.

    Only the order of the scores matters to a rank. float64 and narrower floats are used as they are,
    and so are integers that float64 holds exactly. Wider integers (int64, uint64 beyond 2**53),
    long doubles and timestamps would collide when rounded to float64 and create ties the input does
    not have: they are replaced by their dense rank among all scores, which keeps every comparison.
    Infinities stay infinite (the highest and lowest scores) and NaN stays NaN; under
    ``nan_policy="omit"`` a NaT (not-a-time) is NaN too.
    """
    arr = _as_array(y_score, "y_score")
    if arr.dtype.kind in "mM":
        as_int = arr.view(np.int64)
        not_a_time = as_int == np.iinfo(np.int64).min
        if not_a_time.any():
            if nan_policy != "omit":
                raise InputValueError(f"`y_score` must not hold NaT (not-a-time), or set nan_policy='omit' to remove "
                                      f"those candidates. Got {int(not_a_time.sum())} NaT instead.")
            ranked = _dense_rank(as_int)
            ranked[not_a_time] = np.nan
            return ranked
        arr = as_int
    score = _as_numeric(arr, "y_score", ndim=(1, 2))
    kind, size = score.dtype.kind, score.dtype.itemsize
    if kind == "f" and size <= 8:
        return score
    if kind in "iu" and (score.size == 0 or (int(score.min()) >= -_EXACT_INT and int(score.max()) <= _EXACT_INT)):
        return score.astype(np.float64)
    if kind == "f":  # long double: keep it if float64 holds every value exactly
        rounded = score.astype(np.float64)
        if np.array_equal(rounded.astype(score.dtype), score, equal_nan=True):
            return rounded
    return _dense_rank(score)


def _dense_rank(score):
    finite = np.isfinite(score) if score.dtype.kind == "f" else None
    values = score if finite is None else np.where(finite, score, 0)
    _, codes = np.unique(values.reshape(-1), return_inverse=True)
    ranked = codes.reshape(score.shape).astype(np.float64)
    if finite is not None and not finite.all():
        # NaN and infinities stay what they are: infinities rank above and below every dense rank.
        ranked[~finite] = score[~finite].astype(np.float64)
    return ranked


def _check_finite(values, name, where=""):
    # Finite extremes prove every value finite (min and max propagate NaN) without a temporary.
    if values.dtype.kind == "f" and not (values.size == 0 or (np.isfinite(values.min())
                                                              and np.isfinite(values.max()))):
        bad = ~np.isfinite(values)
        if bad.any():
            n_bad = int(bad.sum())
            raise InputValueError(
                f"`{name}` must be finite{where}. Got {n_bad} NaN or infinite value{'s' if n_bad > 1 else ''} instead."
            )


def _check_relevance(rel, name="y_true"):
    if rel.dtype.kind == "f" and rel.size:  # the extremes once: finite (they propagate NaN) and not negative
        low, high = rel.min(), rel.max()
        if not (np.isfinite(low) and np.isfinite(high)):
            _check_finite(rel, name)
    else:
        _check_finite(rel, name)
        low = rel.min() if rel.size else 0
    if rel.size and low < 0:
        raise InputValueError(
            f"`{name}` must be non-negative relevance values. Got minimum {float(low)!r} instead.")


def _query_codes(qid, n_rows):
    qid = _query_ids(qid, n_rows)
    try:
        uniques, codes, in_order = factorize_runs(qid)
    except TypeError:
        raise InputTypeError("`qid` values must be mutually comparable (all numbers or all strings). "
                             "Got mixed types instead.") from None
    # grouped: True when each query's rows are contiguous and in id order (the sort can be skipped)
    return uniques, codes, True if in_order else None


def _query_ids(qid, n_rows):
    """``qid`` as an array, checked: 1-D, one id per row, no NaN or None."""
    qid = _as_array(qid, "qid")
    if qid.ndim != 1 or qid.shape[0] != n_rows:
        raise InputValueError(f"`qid` must be 1-D with one query id per row ({n_rows}). Got shape {qid.shape} instead.")
    if qid.dtype.kind == "f" and np.isnan(qid).any():
        n_nan = int(np.isnan(qid).sum())
        raise InputValueError(
            f"`qid` must not contain NaN. Got {n_nan} NaN query id{'s' if n_nan > 1 else ''} instead.")
    if qid.dtype == object:
        if any(v is None or (isinstance(v, float) and v != v) for v in qid):
            raise InputValueError("`qid` must not contain None or NaN. Got missing query ids instead.")
    return qid


def weights_per_row(sample_weight, n, unit="query"):
    w = _as_numeric(sample_weight, "sample_weight", ndim=(1,)).astype(np.float64)
    if w.shape[0] != n:
        raise InputValueError(f"`sample_weight` must have one weight per {unit} ({n}). Got {w.shape[0]} instead.")
    _check_finite(w, "sample_weight")
    if (w < 0).any():
        raise InputValueError(f"`sample_weight` must be non-negative. Got minimum {float(w.min())!r} instead.")
    return w


_SPARSE_EXCLUDE = ("`exclude` may be a sparse matrix only in the matrix layouts (2-D y_score); in the grouped "
                   "layout give one boolean flag per row: exclude.toarray().ravel().astype(bool).")


def sparse_input_error(x, name, rule=None):
    """The TypeError for a SciPy sparse matrix or array ``x`` given as ``name`` where a dense array is needed.

    Checked before ``np.asarray``, which would wrap the matrix in a 0-D object array (reported as
    "shape ()"). The message says what came in (class, format, shape) and how to convert it.
    """
    if rule is None:
        rule = f"`{name}` must be a dense array-like. Convert it with {name}.toarray()."
    return InputTypeError(f"{rule} Got a scipy sparse {type(x).__name__} (format {x.format!r}) of shape {x.shape} "
                          "instead.")


def prepare(y_true, y_score, *, qid=None, exclude=None, labels=None, sample_weight=None, judged=None,
            unjudged=None, nan_policy="raise", defer_row_checks=False):
    """Validate the inputs of any entry point and return GroupedData, RelevanceMatrix or LabelIndexData.

    ``nan_policy="omit"`` removes the candidates with a NaN score as ``exclude`` does (both together:
    their union); ``"raise"`` refuses NaN. Infinities are ordinary scores either way.

    ``defer_row_checks``: grouped rows whose last checks are the NaN scores and the relevance values (no
    ``exclude``, ``judged``, ``nan_policy="omit"``) are returned unchecked, for the caller to check each
    part it ranks on the part's thread, while its rows are in cache (``_threads.rows_pass_checks``), and,
    if one fails, to call ``prepare`` again without deferring for the error of the whole input. Without
    ``sample_weight`` either, they are :class:`GroupedRows` (query ids not factorized), else GroupedData
    with ``rows_checked=False``.
    """
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    if y_true is None or y_score is None:
        raise InputValueError("`y_true` and `y_score` are required. Got None instead.")
    if sp.issparse(y_true) and not (getattr(y_true, "ndim", 2) == 2 and np.ndim(y_score) == 2
                                    and not sp.issparse(y_score)):
        raise sparse_input_error(y_true, "y_true", "`y_true` must be a dense array-like here. Convert it with "
                                 "y_true.toarray() (a sparse y_true is taken in the relevance-matrix layout only: "
                                 "2-D y_true beside a dense 2-D y_score).")
    if sp.issparse(y_score):
        raise sparse_input_error(y_score, "y_score", "`y_score` must be a dense array-like. Convert it with "
                                 "y_score.toarray().")
    score = score_values(y_score, nan_policy)
    if score.size == 0:
        raise InputValueError(f"`y_score` must not be empty. Got shape {score.shape} instead.")
    if score.ndim == 2:
        if qid is not None:
            raise InputValueError(
                "`qid` is for the grouped layout (1-D y_true and y_score); in the matrix layouts each "
                f"row of `y_score` is one query. Got qid with 2-D y_score of shape {score.shape} instead.")
        true_arr = y_true if sp.issparse(y_true) else _as_array(y_true, "y_true")
        if true_arr.ndim == 2:
            if labels is not None:
                raise InputValueError("`labels` is for the label-index layout (1-D y_true). Got labels with a 2-D "
                                      "y_true instead.")
            return _relevance_matrix(true_arr, score, exclude, sample_weight, judged, unjudged, nan_policy)
        if true_arr.ndim == 1:
            if unjudged is not None:
                raise InputValueError("`unjudged` is for the grouped and relevance-matrix layouts (in the label-index "
                                      "layout every candidate is judged). Got it with the label-index layout instead.")
            if judged is not None:
                raise InputValueError("`judged` is for the grouped and relevance-matrix layouts. Got it with the "
                                      "label-index layout instead.")
            return _label_index(true_arr, score, exclude, labels, sample_weight, nan_policy)
        raise InputValueError(f"`y_true` must be 1-D (label index) or 2-D (relevance matrix) when `y_score` is 2-D. "
                              f"Got shape {true_arr.shape} instead.")
    if labels is not None:
        raise InputValueError(
            "`labels` is for the label-index layout (2-D y_score). Got labels with 1-D y_score instead.")
    rel = _as_numeric(y_true, "y_true", ndim=(1, 2))
    if rel.shape != score.shape:
        raise InputValueError(f"`y_true` and `y_score` must have the same length in the grouped layout. "
                              f"Got shapes {rel.shape} and {score.shape} instead.")
    n = score.shape[0]
    if (defer_row_checks and qid is not None and sample_weight is None and exclude is None and judged is None
            and nan_policy == "raise"):
        ids = _query_ids(qid, n)
        if ids.dtype.kind in RUN_KINDS:  # the other path's checks, in its order, up to the rows' own
            unjudged_rows = None if unjudged is None else _mask(unjudged, (n,), "unjudged")
            rel = rel.astype(np.float64, copy=False)
            if unjudged_rows is not None:
                _check_unjudged(unjudged_rows, rel, 0)
            return GroupedRows(ids, score.astype(np.float64, copy=False), rel, unjudged_rows)
    if qid is None:
        uniques, codes, grouped = np.zeros(1, dtype=np.intp), np.zeros(n, dtype=np.intp), True
    else:
        uniques, codes, grouped = _query_codes(qid, n)
    weight = None
    if sample_weight is not None:
        w = weights_per_row(sample_weight, n, "row")
        weight = np.zeros(len(uniques))
        weight[codes] = w
        if not np.array_equal(weight[codes], w):
            raise InputValueError("`sample_weight` must be constant within each query in the grouped layout. "
                                  "Got different weights for rows of the same query instead.")
    keep = None
    if sp.issparse(exclude):
        raise sparse_input_error(exclude, "exclude", _SPARSE_EXCLUDE)
    if exclude is not None:
        keep = ~_mask(exclude, (n,), "exclude")
    unjudged_rows = None if unjudged is None else _mask(unjudged, (n,), "unjudged")
    return _finish_grouped(codes, score.astype(np.float64, copy=False), rel.astype(np.float64, copy=False),
                           uniques, weight, keep, judged, grouped, unjudged=unjudged_rows, nan_policy=nan_policy,
                           named_queries=qid is not None, defer_row_checks=defer_row_checks)


def _mask(exclude, shape, name):
    if sp.issparse(exclude):
        where = "only in the label-index layout" if name == "exclude" else "nowhere: use a dense boolean array"
        raise InputTypeError(f"`{name}` may be a sparse matrix {where}. Got {type(exclude).__name__} instead.")
    mask = np.asarray(exclude)
    if mask.dtype.kind != "b":
        if mask.dtype.kind in "iu" and mask.size and set(np.unique(mask)).issubset({0, 1}):
            mask = mask.astype(bool)
        else:
            raise InputTypeError(f"`{name}` must be a boolean mask. Got dtype {mask.dtype} instead.")
    if mask.shape != shape:
        raise InputValueError(f"`{name}` must have the shape of `y_score` {shape}. Got {mask.shape} instead.")
    return mask


def _finish_grouped(codes, score, rel, uniques, weight, keep, judged, grouped, row_offset=0, allow_empty=False,
                    unjudged=None, nan_policy="raise", named_queries=False, defer_row_checks=False):
    if unjudged is not None:
        _check_unjudged(unjudged, rel, row_offset)
    if defer_row_checks and keep is None and judged is None and nan_policy == "raise":
        # the checks below would find an error or change nothing: the caller runs them by part
        return GroupedData(query=codes, score=score, rel=rel, qid=uniques, weight=weight, grouped=grouped,
                           unjudged=unjudged, rows_checked=False)
    if keep is not None:
        excluded_relevant = (~keep) & (rel > 0)
        if excluded_relevant.any():
            row = row_offset + int(np.flatnonzero(excluded_relevant)[0])
            raise InputValueError(
                "`exclude` must not remove a query's own relevant candidates (the filtered protocol "
                f"removes other known answers only). Got a relevant item excluded at row {row} instead.")
    nan = _nan_rows(score, keep, nan_policy, row_offset, (codes, uniques) if named_queries else None)
    if nan is not None:
        # nan_policy="omit": a NaN score removes its candidate as ``exclude`` does (the union of both).
        nan_relevant = nan & (rel > 0)
        if nan_relevant.any():
            row = row_offset + int(np.flatnonzero(nan_relevant)[0])
            raise InputValueError(
                "`y_score` must not be NaN for a query's own relevant candidate: nan_policy='omit' "
                "removes NaN-scored candidates as `exclude` does, and the filtered protocol removes "
                f"other known answers only. Got a NaN score for a relevant item at row {row} instead.")
        keep = ~nan if keep is None else keep & ~nan
    if keep is not None:
        codes, score, rel = codes[keep], score[keep], rel[keep]
        if unjudged is not None:
            unjudged = unjudged[keep]
    _check_relevance(rel)
    # Every query has a row, unless all of its candidates were excluded: then drop the query.
    present = np.bincount(codes, minlength=len(uniques)) > 0 if keep is not None else None
    if present is not None and not present.all():
        remap = np.cumsum(present) - 1
        codes = remap[codes]
        uniques = uniques[present]
        if weight is not None:
            weight = weight[present]
    if codes.size == 0:
        if allow_empty:
            return None
        raise InputValueError(ALL_EXCLUDED)
    data = GroupedData(query=codes, score=score, rel=rel, qid=uniques, weight=weight, grouped=grouped,
                       unjudged=unjudged)
    if judged is not None:
        data.judged_query, data.judged_rel, data.missing_judged = _judged(judged, uniques)
    return data


def _check_unjudged(unjudged, rel, row_offset):
    """An unjudged candidate has no relevance grade: a positive ``y_true`` there is a contradiction."""
    graded = unjudged & (rel > 0)
    if graded.any():
        row = int(np.flatnonzero(graded)[0])
        raise InputValueError("`unjudged` must mark only candidates whose `y_true` is 0 (a relevance grade is a "
                              f"judgement). Got an unjudged candidate with y_true={float(rel[row])!r} at row "
                              f"{row_offset + row} instead.")


ALL_EXCLUDED = ("Every candidate was excluded (by `exclude`, or by a NaN score under nan_policy='omit'). Got no "
                 "candidate left to rank instead.")


def has_nan(values):
    """Whether a float array holds a NaN: its minimum is NaN exactly then (one pass, no temporary)."""
    return values.dtype.kind == "f" and values.size > 0 and bool(np.isnan(values.min()))


def _nan_rows(score, keep, nan_policy, row_offset=0, queries=None):
    """The NaN scores of the kept candidates (None if there are none); an error under nan_policy="raise".

    Infinities are ordinary scores (the highest and lowest); excluded candidates may hold any value.
    ``queries``: the rows' query codes and the query ids, to name the query of the first NaN (a row
    number alone is local to a batch or a partition when the input is split).
    """
    if not has_nan(score):
        return None
    nan = np.isnan(score)
    if keep is not None:
        nan &= keep
    if not nan.any():
        return None
    if nan_policy != "omit":
        n_nan = int(nan.sum())
        first = int(np.flatnonzero(nan)[0])
        named = ""
        if queries is not None:
            query_id = queries[1][queries[0][first]]
            named = f" (qid {query_id.item() if isinstance(query_id, np.generic) else query_id!r})"
        raise InputValueError(nan_message(f"{n_nan} NaN score{'s' if n_nan > 1 else ''}, the first at row "
                                     f"{row_offset + first}{named}"))
    return nan


def nan_message(got):
    return ("`y_score` must not hold NaN: NaN does not rank (excluded candidates may hold any value, and "
            f"nan_policy='omit' removes NaN-scored candidates as `exclude` does). Got {got} instead.")


def _judged(judged, uniques):
    if not isinstance(judged, (tuple, list)) or len(judged) != 2:
        raise InputTypeError("`judged` must be a pair (qid, relevance) of 1-D arrays listing every judged item. "
                             f"Got {type(judged).__name__} instead.")
    jq = np.asarray(judged[0])
    jrel = _as_numeric(judged[1], "judged relevance", ndim=(1,)).astype(np.float64)
    if jq.ndim != 1 or jq.shape != jrel.shape:
        raise InputValueError(f"`judged` must hold two 1-D arrays of equal length. Got shapes {jq.shape} and "
                              f"{jrel.shape} instead.")
    _check_relevance(jrel, "judged relevance")
    try:
        pos = np.searchsorted(uniques, jq)
    except TypeError:
        raise InputTypeError("`judged` query ids must be of the same type as `qid`. Got mixed types instead.") from None
    pos_clipped = np.minimum(pos, len(uniques) - 1)
    found = uniques[pos_clipped] == jq
    # Judged queries without candidates are returned apart: the engine counts them (``missing=``).
    return pos_clipped[found].astype(np.intp), jrel[found], (jq[~found], jrel[~found])


# Elements of a relevance matrix validated and ranked at once: the engine's temporaries (about ten
# times the elements' size) stay at a few hundred MB however large the matrix is.
MATRIX_CHUNK = 1 << 21


@dataclass
class RelevanceMatrix:
    """A validated relevance matrix, turned into grouped rows a block of queries at a time."""

    rel: np.ndarray
    score: np.ndarray
    exclude: np.ndarray | None
    weight: np.ndarray | None
    unjudged: np.ndarray | None = None
    nan_policy: str = "raise"

    @property
    def n_queries(self):
        return self.score.shape[0]

    def grades(self):
        """The grades that may be positive: every cell, or the stored ones of a sparse ``rel``."""
        return self.rel.data if sp.issparse(self.rel) else self.rel

    def grouped(self, lo, hi):
        """GroupedData of rows ``lo:hi`` (query ids ``lo..hi-1``), or None when all were excluded. Sparse
        ``rel`` and ``exclude`` are made dense for these rows only."""
        n_candidates = self.score.shape[1]
        codes = np.repeat(np.arange(hi - lo, dtype=np.intp), n_candidates)
        rows = (lambda m: m[lo:hi].toarray() if sp.issparse(m) else m[lo:hi])
        keep = None if self.exclude is None else ~rows(self.exclude).reshape(-1)
        weight = None if self.weight is None else self.weight[lo:hi]
        unjudged = None if self.unjudged is None else self.unjudged[lo:hi].reshape(-1)
        return _finish_grouped(codes, self.score[lo:hi].reshape(-1).astype(np.float64, copy=False),
                               rows(self.rel).reshape(-1).astype(np.float64, copy=False),
                               np.arange(lo, hi), weight, keep, None, True, row_offset=lo * n_candidates,
                               allow_empty=True, unjudged=unjudged, nan_policy=self.nan_policy)


def _relevance_matrix(true_arr, score, exclude, sample_weight, judged, unjudged=None, nan_policy="raise"):
    if sp.issparse(true_arr):
        rel = _sparse_relevance(true_arr)
    else:
        arr = _as_array(true_arr, "y_true")
        # 0/1 flags read in place (as uint8, never written): a float64 copy would be eight times the flags,
        # and the grades are made floats a chunk of rows at a time
        rel = arr.view(np.uint8) if arr.dtype.kind == "b" else _as_numeric(arr, "y_true")
    if rel.shape != score.shape:
        raise InputValueError(f"`y_true` and `y_score` must have the same shape in the relevance-matrix layout. "
                              f"Got {rel.shape} and {score.shape} instead.")
    n_queries = score.shape[0]
    weight = None
    if sample_weight is not None:
        weight = weights_per_row(sample_weight, n_queries)
    mask = None
    if sp.issparse(exclude):
        mask = _sparse_mask(exclude, score.shape, "exclude")
        _check_sparse_exclusion(rel, mask)
    elif exclude is not None:
        mask = _mask(exclude, score.shape, "exclude")
        if sp.issparse(rel):
            _check_sparse_exclusion(rel, sp.csr_array(mask))
    if judged is not None:
        raise InputValueError("`judged` needs query ids: use the grouped layout (1-D y_true, y_score and qid). "
                              "Got it with the relevance-matrix layout instead.")
    unjudged_mask = None if unjudged is None else _mask(unjudged, score.shape, "unjudged")
    # whatever its size: the engine ranks it a chunk of rows at a time (a small one in one chunk)
    return RelevanceMatrix(rel=rel, score=score, exclude=mask, weight=weight, unjudged=unjudged_mask,
                           nan_policy=nan_policy)


def _sparse_relevance(y_true):
    """A scipy sparse ``y_true`` as a CSR array of its stored non-zero grades (duplicates summed)."""
    rel = sp.csr_array(y_true)  # a copy: the input is never modified
    if rel.dtype.kind not in "biuf":
        raise InputTypeError(f"`y_true` must hold numbers. Got a sparse matrix of dtype {rel.dtype} instead.")
    rel.sum_duplicates()
    rel.eliminate_zeros()
    values = rel.data
    bad = ~np.isfinite(values) | (values < 0) if values.dtype.kind == "f" else values < 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = int(np.searchsorted(rel.indptr, i, side="right") - 1)
        raise InputValueError("`y_true` must hold finite, non-negative relevance values. Got "
                              f"{values[i].item()!r} at query {row}, column {int(rel.indices[i])} instead.")
    rel.sort_indices()
    return rel


def _sparse_mask(mask, shape, name):
    """A scipy sparse boolean mask as a CSR array of its stored non-zero cells."""
    csr = sp.csr_array(mask)
    if csr.shape != shape:
        raise InputValueError(f"`{name}` must have the shape of `y_score` {shape}. Got {csr.shape} instead.")
    csr.sum_duplicates()
    csr.eliminate_zeros()
    csr.sort_indices()
    return sp.csr_array((np.ones(csr.nnz, dtype=bool), csr.indices, csr.indptr), shape=shape)


def _check_sparse_exclusion(rel, mask):
    """The filtered protocol removes other known answers only: no relevant cell may be excluded."""
    rel_csr = rel if sp.issparse(rel) else None
    excluded = mask.tocoo()
    if rel_csr is None:
        hit = rel[excluded.row, excluded.col] > 0
    else:
        n_columns = mask.shape[1]
        rel_coo = rel_csr.tocoo()
        relevant = rel_coo.row.astype(np.int64) * n_columns + rel_coo.col
        hit = np.isin(excluded.row.astype(np.int64) * n_columns + excluded.col, relevant)
    if hit.any():
        i = int(np.flatnonzero(hit)[0])
        raise InputValueError(
            "`exclude` must not remove a query's own relevant candidates (the filtered protocol removes other "
            f"known answers only). Got a relevant item excluded at query {int(excluded.row[i])}, column "
            f"{int(excluded.col[i])} instead.")


def _label_index(true_arr, score, exclude, labels, sample_weight, nan_policy):
    n_queries, n_candidates = score.shape
    if true_arr.shape[0] != n_queries:
        raise InputValueError(f"`y_true` must hold one target per row of `y_score` ({n_queries}). "
                              f"Got {true_arr.shape[0]} instead.")
    if labels is not None:
        labels = np.asarray(labels)
        if labels.ndim != 1 or labels.shape[0] != n_candidates:
            raise InputValueError(f"`labels` must name each of the {n_candidates} columns of `y_score`. "
                                  f"Got shape {labels.shape} instead.")
        order = np.argsort(labels, kind="stable")
        sorted_labels = labels[order]
        if n_candidates > 1 and (sorted_labels[1:] == sorted_labels[:-1]).any():
            raise InputValueError("`labels` must be unique. Got repeated labels instead.")
        try:
            pos = np.minimum(np.searchsorted(sorted_labels, true_arr), n_candidates - 1)
        except TypeError:
            raise InputTypeError(
                "`y_true` and `labels` must be of comparable types. Got mixed types instead.") from None
        missing = sorted_labels[pos] != true_arr
        if missing.any():
            raise InputValueError(
                f"`y_true` holds labels that are not in `labels`. Got {true_arr[missing][:5].tolist()} "
                "instead.")
        target = order[pos].astype(np.intp)
    else:
        t = _as_numeric(true_arr, "y_true")
        if t.dtype.kind == "f":
            if not np.isfinite(t).all() or (t != np.round(t)).any():
                raise InputValueError("`y_true` must hold integer column indices in the label-index layout (or class "
                                      "labels with `labels=`). Got non-integer values instead.")
        target = t.astype(np.intp)
        bad = (target < 0) | (target >= n_candidates)
        if bad.any():
            raise InputValueError(f"`y_true` column indices must lie in [0, {n_candidates - 1}]. "
                                  f"Got {target[bad][:5].tolist()} instead.")
    weight = None
    if sample_weight is not None:
        weight = weights_per_row(sample_weight, n_queries)
    rows = np.arange(n_queries)
    if exclude is not None:
        if sp.issparse(exclude):
            if exclude.shape != score.shape:
                raise InputValueError(f"`exclude` must have the shape of `y_score` {score.shape}. "
                                      f"Got {exclude.shape} instead.")
            exclude = sp.csr_matrix(exclude, copy=True).astype(bool)
            exclude.sum_duplicates()
            exclude.eliminate_zeros()
            own = np.asarray(exclude[rows, target]).reshape(-1)
        else:
            exclude = _mask(exclude, score.shape, "exclude")
            own = exclude[rows, target]
        if own.any():
            raise InputValueError("`exclude` must not remove a query's own target. Got the target excluded in rows "
                                  f"{np.flatnonzero(own)[:5].tolist()} instead.")
    if score.dtype.kind != "f":
        score = score.astype(np.float64)
    own_nan = np.isnan(score[rows, target]) if score.dtype.kind == "f" else None
    if own_nan is not None and own_nan.any():
        if nan_policy != "omit":
            raise InputValueError(nan_message(f"a NaN score for the true candidate of rows "
                                         f"{np.flatnonzero(own_nan)[:5].tolist()}"))
        raise InputValueError(
            "`y_score` must not be NaN for a query's own true candidate: nan_policy='omit' removes "
            "NaN-scored candidates as `exclude` does, and a query's own target cannot be removed. Got "
            f"a NaN true score in rows {np.flatnonzero(own_nan)[:5].tolist()} instead.")
    return LabelIndexData(score=score, target=target, exclude=exclude, qid=np.arange(n_queries), weight=weight,
                          nan_policy=nan_policy)


# 2**rel - 1 is a finite float64 for rel < 1024.
_EXPONENTIAL_OVERFLOW = 1024


def check_exponential_gain(rel, judged_rel=None):
    """The exponential gain 2**rel - 1 must be finite for every relevance grade, judged ones included."""
    largest = rel.max(initial=0.0)
    if judged_rel is not None:
        largest = max(largest, judged_rel.max(initial=0.0))
    if largest >= _EXPONENTIAL_OVERFLOW:
        raise InputValueError(
            f"`gain='exponential'` uses 2**rel - 1, which overflows for relevance of "
            f"{_EXPONENTIAL_OVERFLOW} or more; use gain='linear' for such grades. Got maximum relevance "
            f"{float(largest)!r} instead.")


