"""Array API dispatch, evaluation: reports and ranks computed in the namespace of the scores.

``_engine`` hands a call here when :func:`array_namespace` finds scores of another array library
under scikit-learn's ``array_api_dispatch``: the inputs are validated in their namespace
(``_namespace_inputs``), ranked by the layout's namespace structure (``_label_index``, ``_matrix``),
and reduced by the same kernels as NumPy's (``_lists``, ``_rank_stats``) laid out as rows.
"""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np

from ._label_index import NamespaceLabelIndex
from ._lists import ListKernels, undefined_auc
from ._matrix import NamespaceMatrix
from ._namespace_inputs import _weights_ns, check_strided, prepare_namespace, to_namespace
from ._rank_stats import ADJUSTED, NamespaceRankStats
from ._ranks import Ranks
from ._registry import list_kernel
from ._report import RankingReport
from ._top_counts import metrics_horizon
from .exceptions import InputTypeError, InputValueError, UndefinedMetricWarning

def array_namespace(y_score):
    """The namespace of ``y_score`` under Array API dispatch, None for the NumPy path (``_sklearn_compat``).

    NumPy arrays and lists are answered here without importing scikit-learn (dispatch is a
    scikit-learn setting: it cannot be on before scikit-learn is imported).
    """
    if isinstance(y_score, (np.ndarray, list, tuple)) or "sklearn" not in sys.modules:
        return None
    from ._sklearn_compat import array_namespace as namespace_of

    return namespace_of(y_score)


def namespace_structure(data, relevance_level, gain, stable, ties, targets, families, horizon=None):
    """The namespace structure of ``data``'s layout (a label index or a relevance matrix); ``horizon``: every
    metric is cut within it (``_top_counts``)."""
    if data.layout == "label index":
        return NamespaceLabelIndex(data, stable=stable)
    return NamespaceMatrix(data, relevance_level, gain, stable=stable, ties=ties, targets=targets,
                           families=families, horizon=horizon)


def evaluate_in_namespace(xp, evaluation, y_true, y_score, *, qid, exclude, labels, sample_weight, judged,
                          unjudged, families):
    """The RankingReport of matrix-layout input in its own namespace (see :func:`evaluate`).

    ``summary`` holds Python floats, ``per_query`` arrays of the namespace (``"qid"``: the row numbers).
    """
    data = prepare_namespace(xp, y_true, y_score, qid=qid, exclude=exclude, labels=labels,
                             sample_weight=sample_weight, judged=judged, unjudged=unjudged,
                             nan_policy=evaluation.nan_policy)
    ties, resolved = evaluation.ties, evaluation.resolved
    structure = namespace_structure(data, evaluation.relevance_level, evaluation.gain, ties == "ordinal", ties,
                                    evaluation.targets, families, metrics_horizon(resolved))
    if data.layout != "label index":
        return structure.report(evaluation)
    n_q = data.n_queries
    weight = data.weight if data.weight is not None else xp.ones(n_q, dtype=xp.float64, device=data.device)
    total = xp.sum(weight)
    if not float(total) > 0:
        raise InputValueError("`sample_weight` must give the evaluated queries a positive total weight. Got a total "
                              "of 0 instead.")
    s, m = structure.point(ties)
    n_cand = xp.astype(structure.n_candidates, xp.float64)
    # the rank a point policy gives, the mid rank of the tie block under "expected" (RankDistribution)
    mid = s + 1.0 if ties != "expected" else s + (m + 1.0) / 2
    lists = ListKernels.label_index(xp, s, m, n_cand, evaluation.definitions)
    ones = xp.ones_like(s)
    # per query: a row per query holding its one target; pooled: one row of every target
    per_target = NamespaceRankStats(xp, *(v[:, None] for v in (s, m, ones, mid, ones, n_cand, ones)))
    pooled = NamespaceRankStats(xp, *(v[None, :] for v in (s, m, ones, mid, weight, n_cand, ones)))
    summary, per_query = {}, {"qid": data.qid}
    for written, spec, family in resolved:
        if family == "list":
            if not hasattr(lists, list_kernel(spec.base)):
                raise InputTypeError(f"Metric {written!r} is not computed under array_api_dispatch; pass NumPy arrays "
                                     f"for it. Got `y_score` of type {type(y_score).__name__} instead.")
            values = lists.compute(spec.base, spec.k, spec.param)
            defined = ~xp.isnan(values)
            if not bool(xp.all(defined)):  # AUC of a query without a non-relevant candidate
                warnings.warn(undefined_auc(written, spec.k, int(xp.count_nonzero(~defined))),
                              UndefinedMetricWarning, stacklevel=4)
            kept = xp.where(defined, weight, 0.0)
            if evaluation.definitions.for_metric(spec.base).average == "micro":  # weighed by the denominators
                kept = kept * lists.denominator(spec.base, spec.k)
            kept_total = float(xp.sum(kept))
            value = (float(xp.sum(xp.where(defined, values, 0.0) * kept)) / kept_total if kept_total > 0
                     else float("nan"))
        else:
            values = per_target.compute(spec.base, spec.k)
            value = float(pooled.compute(spec.base, spec.k)[0])
        if math.isnan(value):
            warnings.warn(f"Metric {written!r} is undefined on this input (no query has a defined value); it is "
                          "reported as NaN.", UndefinedMetricWarning, stacklevel=4)
        summary[written] = value
        per_query[written] = values
    return RankingReport(summary, per_query, n_q, 0, evaluation.params, sample_weight=data.weight)


def evaluate_ranks_in_namespace(xp, ranks, resolved, ties, num_candidates, sample_weight, num_relevant):
    """:func:`evaluate_ranks` of ranks in another namespace than NumPy (``Ranks`` from ``compute_ranks``
    under dispatch, or a 1-D array of ranks): the same checks, the pooled statistics in the namespace."""
    from ._sklearn_compat import array_device

    reference = ranks.optimistic if isinstance(ranks, Ranks) else ranks
    device = array_device(reference)
    as_float = (lambda x: xp.astype(x, xp.float64))

    def counts(values, name, n):
        arr = to_namespace(xp, values, device, name, reference)
        if arr.ndim == 0:
            arr = xp.full(n, float(arr), dtype=xp.float64, device=device)
        ok = arr.ndim == 1 and arr.shape[0] == n and (xp.isdtype(arr.dtype, "integral")
                                                       or xp.isdtype(arr.dtype, "real floating"))
        if not ok:
            raise InputValueError(f"`{name}` must hold one positive integer per rank ({n}). Got an array of shape "
                                  f"{tuple(arr.shape)} and dtype {arr.dtype} instead.")
        arr = as_float(arr)
        bad = ~(xp.isfinite(arr) & (arr >= 1) & (arr == xp.round(arr)))
        if bool(xp.any(bad)):
            i = first(bad)
            raise InputValueError(f"`{name}` must hold one positive integer per rank ({n}). Got {float(arr[i])!r} at "
                                  f"position {i} instead.")
        return arr

    def first(flags):
        return int(xp.nonzero(flags)[0][0])

    if isinstance(ranks, Ranks):
        n = len(ranks)
        if ties == "expected":
            r = as_float(ranks.tied_targets)
            s, m, mid = ranks.optimistic - 1, ranks.pessimistic - ranks.optimistic + r, ranks.realistic
        else:
            mid = {"optimistic": ranks.optimistic, "pessimistic": ranks.pessimistic, "realistic": ranks.realistic,
                   "ordinal": ranks.ordinal}[ties]
            s, m, r = mid - 1, xp.ones_like(mid), xp.ones_like(mid)
        n_cand = (as_float(ranks.num_candidates) if num_candidates is None
                  else counts(num_candidates, "num_candidates", n))
        n_rel = as_float(ranks.num_relevant)
    else:
        if ranks.ndim != 1 or not (xp.isdtype(ranks.dtype, "integral") or xp.isdtype(ranks.dtype, "real floating")):
            raise InputTypeError(
                f"`ranks` must be a Ranks object or a 1-D array of numbers. Got {type(ranks).__name__} "
                f"with dtype {ranks.dtype} and shape {tuple(ranks.shape)} instead.")
        mid = as_float(ranks)
        n = mid.shape[0]
        if n == 0:
            raise InputValueError("`ranks` must not be empty. Got 0 ranks instead.")
        if not bool(xp.all(xp.isfinite(mid) & (mid >= 1))):
            raise InputValueError(
                f"`ranks` must be finite and >= 1 (ranks are 1-based). Got minimum {float(xp.min(mid))!r} "
                "instead.")
        s, m, r = mid - 1, xp.ones_like(mid), xp.ones_like(mid)
        n_cand = None if num_candidates is None else counts(num_candidates, "num_candidates", n)
        n_rel = xp.ones_like(mid) if num_relevant is None else counts(num_relevant, "num_relevant", n)
        if n_cand is not None:
            if bool(xp.any(n_rel > n_cand)):
                i = first(n_rel > n_cand)
                raise InputValueError(
                    f"`num_relevant` must not exceed `num_candidates`. Got num_relevant={int(n_rel[i])} "
                    f"with num_candidates={int(n_cand[i])} at position {i} instead.")
            if bool(xp.any(mid > n_cand - n_rel + 1)):
                i = first(mid > n_cand - n_rel + 1)
                raise InputValueError("`ranks` must be possible: the best of num_relevant relevant candidates among "
                                      f"num_candidates ranks at most num_candidates - num_relevant + 1. Got rank "
                                      f"{float(mid[i])!r} with num_candidates={int(n_cand[i])} and num_relevant="
                                      f"{int(n_rel[i])} at position {i} instead.")
    if any(spec.base in ADJUSTED for _, spec, _ in resolved) and n_cand is None:
        raise InputValueError("The adjusted and z-scored metrics need `num_candidates`. Got None instead.")
    weight = xp.ones(n, dtype=xp.float64, device=device) if sample_weight is None else _weights_ns(
        xp, sample_weight, n, device, reference, "rank")
    if not float(xp.sum(weight)) > 0:
        raise InputValueError("`sample_weight` must have a positive total. Got a total of 0 instead.")
    n_cand = xp.ones(n, dtype=xp.float64, device=device) if n_cand is None else n_cand
    stats = NamespaceRankStats(xp, *(v[None, :] for v in (s, m, r, mid, weight, n_cand, n_rel)))
    out = {}
    for written, spec, _ in resolved:
        value = float(stats.compute(spec.base, spec.k)[0])
        if math.isnan(value):
            warnings.warn(f"Metric {written!r} is undefined on these ranks; it is reported as NaN.",
                          UndefinedMetricWarning, stacklevel=3)
        out[written] = value
    return out


def positive_vs_negatives_in_namespace(xp, y_pred_pos, y_pred_neg):
    """``positive_vs_negatives`` of arrays of ``xp``: the score matrix built in the namespace, on the device."""
    from ._sklearn_compat import array_device

    check_strided(y_pred_neg, "y_pred_neg")
    device = array_device(y_pred_neg)
    neg = y_pred_neg
    pos = to_namespace(xp, y_pred_pos, device, "y_pred_pos", neg)
    if pos.ndim != 1:
        raise InputValueError(f"`y_pred_pos` must be 1-D (one score per query). Got shape {tuple(pos.shape)} instead.")
    if neg.ndim == 1 and pos.shape[0] == 1:
        neg = neg[None, :]
    if neg.ndim != 2 or neg.shape[0] != pos.shape[0]:
        raise InputValueError(f"`y_pred_neg` must be 2-D with one row per query ({pos.shape[0]}). "
                              f"Got shape {tuple(neg.shape)} instead.")
    same_kind = any(xp.isdtype(pos.dtype, kind) and xp.isdtype(neg.dtype, kind)
                    for kind in ("bool", "integral", "real floating"))
    # as NumPy's concatenation: integers with floats in float64 (array-api-strict does not promote
    # across kinds, torch would round integers beyond 2**24 into float32 ties)
    dtype = xp.result_type(pos.dtype, neg.dtype) if same_kind else xp.float64
    y_score = xp.concat([xp.astype(pos, dtype)[:, None], xp.astype(neg, dtype)], axis=1)
    return xp.zeros(pos.shape[0], dtype=xp.int64, device=device), y_score
