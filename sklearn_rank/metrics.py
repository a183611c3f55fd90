"""Public metric functions, :func:`evaluate`, :func:`compute_ranks` and :func:`evaluate_ranks`.

Every function here goes through the same validation (``_inputs.prepare``),
the same rank computation (``_ranks``) and the same kernels (``_kernels``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
import warnings

import numpy as np

from ._inputs import (GAINS, MISSING, NO_RELEVANT, TARGETS, TIE_POLICIES, GroupedData, RelevanceMatrix,
                      check_exponential_gain, check_option, check_relevance_level, prepare, weights_per_row)
from ._kernels import ListKernels, RankDistribution, RankStats, UndefinedMetricWarning
from ._ranks import GroupedStructure, LabelIndexStructure, Ranks
from ._registry import DUAL_FAMILY, base_spec, get_metric, with_k
from ._report import RankingReport, weighted_mean

__all__ = [
    "evaluate", "evaluate_ranks", "compute_ranks", "positive_vs_negatives",
    "mean_reciprocal_rank", "mean_average_precision", "ndcg_score", "dcg_score", "hits_at_k",
    "precision_at_k", "recall_at_k", "r_precision", "mean_rank",
]

_COMMON_DOC = """
    qid : array-like of shape (n_rows,), default=None
        Query id of each row (grouped layout). Without it, 1-D input is one query.
    ties : {"expected", "realistic", "optimistic", "pessimistic", "ordinal"}, default="expected"
        How tied scores are ranked. ``"expected"`` is the exact expectation over
        every ordering of the tied items.
    exclude : array-like of bool or sparse matrix, default=None
        Candidates removed before ranking (filtered protocol): shaped like
        ``y_score`` (a sparse matrix is accepted in the label-index layout).
    labels : array-like of shape (n_candidates,), default=None
        Label-index layout: the class label of each column of ``y_score``.
    relevance_level : float, default=None
        An item is relevant when ``y_true >= relevance_level`` (default: ``y_true > 0``).
    gain : {"linear", "exponential"}, default="linear"
        (n)DCG gain: ``rel`` or ``2**rel - 1``.
    no_relevant : {"skip", "zero", "error"}, default="skip"
        What to do with queries without a relevant item.
    sample_weight : array-like, default=None
        One weight per query (grouped layout: per row, constant within a query).
    targets : {"first", "all"}, default="first"
        Rank statistics: rank of the best-ranked relevant item per query, or of
        every relevant item against the non-relevant candidates only.
    judged : tuple of (qid, relevance) arrays, default=None
        Retrieval setting: every judged item of every query, retrieved or not;
        relevant items missing from the candidates still count in the
        denominators of AP, recall, R-precision and in the ideal DCG."""


def _check_options(ties, no_relevant, gain, targets, relevance_level):
    check_option(ties, "ties", TIE_POLICIES)
    check_option(no_relevant, "no_relevant", NO_RELEVANT)
    check_option(gain, "gain", GAINS)
    check_option(targets, "targets", TARGETS)
    return check_relevance_level(relevance_level)


def _resolve_metrics(metrics, targets):
    if isinstance(metrics, str):
        metrics = (metrics,)
    try:
        metrics = list(metrics)
    except TypeError:
        raise TypeError(f"`metrics` must be a metric name or a sequence of names. Got {metrics!r} instead.") from None
    if not metrics:
        raise ValueError("`metrics` must name at least one metric. Got an empty sequence instead.")
    resolved = []
    for written in metrics:
        spec = get_metric(written)
        family = spec.family
        if spec.base in DUAL_FAMILY and targets == "all":
            family = "rank"
        resolved.append((written if isinstance(written, str) else spec.name, spec, family))
    return resolved


def _structure(y_true, y_score, qid, exclude, labels, sample_weight, judged, relevance_level, gain, stable,
               ties=None, targets=None, families=("list", "rank")):
    """Validate, then build the rank structure; ``stable`` keeps input order among ties (ordinal ranks).

    A large relevance matrix is ranked a block of queries at a time, keeping only what the metrics
    need (``families`` under ``ties`` and ``targets``), so that memory follows the block, not the matrix.
    """
    data = prepare(y_true, y_score, qid=qid, exclude=exclude, labels=labels, sample_weight=sample_weight,
                   judged=judged)
    if isinstance(data, RelevanceMatrix):
        if gain == "exponential":
            check_exponential_gain(data.rel)
        structure = MatrixStructure(data, relevance_level, gain, stable, ties, targets, families)
        return structure.queries, structure
    if isinstance(data, GroupedData):
        if gain == "exponential":
            check_exponential_gain(data.rel, data.judged_rel)
        return data, GroupedStructure(data, relevance_level, gain, stable=stable)
    return data, LabelIndexStructure(data, stable=stable)


@dataclass
class _Queries:
    """The evaluated queries of a relevance matrix ranked in blocks (what the report needs of its data)."""

    qid: np.ndarray
    weight: np.ndarray | None
    missing_judged = None

    @property
    def n_queries(self):
        return len(self.qid)


class MatrixStructure:
    """The structure of a relevance matrix, built a block of queries at a time.

    Each block goes through :class:`GroupedStructure`; only its per-query facts, blocks and ranks
    (a small share of the matrix for sparse relevance) are kept and joined, query codes shifted.
    """

    def __init__(self, matrix, relevance_level, gain, stable, ties, targets, families):
        self.ties, self.targets = ties, targets
        qids, weights, stats, binary, gain_blocks, ranks = [], [], [], [], [], []
        offset = 0
        for lo, hi in matrix.row_blocks():
            data = matrix.grouped(lo, hi)
            if data is None:
                continue
            part = GroupedStructure(data, relevance_level, gain, stable=stable)
            qids.append(data.qid)
            weights.append(data.weight)
            stats.append(_shift(part.query_stats(), offset, ("ideal_query",)))
            if "list" in families:
                b, g = part.blocks(ties)
                binary.append(_shift(b, offset, ("query",)))
                gain_blocks.append(binary[-1] if g is b else _shift(g, offset, ("query",)))
            if "rank" in families:
                ranks.append(_shift(part.ranks(targets), offset, ("query",)))
            offset += data.n_queries
            del data, part
        if not qids:
            raise ValueError("Every candidate was excluded. Got no candidate left to rank instead.")
        qid = np.concatenate(qids)
        weight = None if matrix.weight is None else np.concatenate(weights)
        self.queries = _Queries(qid, weight)
        self._stats = _join(stats)
        self._blocks = (_join(binary), _join(gain_blocks)) if binary else None
        if ranks:
            self._ranks = _join(ranks)
            self._ranks.qid = qid

    def query_stats(self):
        return self._stats

    def blocks(self, ties):
        if ties != self.ties or self._blocks is None:
            raise RuntimeError(f"the matrix structure was built for ties={self.ties!r}")
        return self._blocks

    def ranks(self, targets):
        if targets != self.targets or not hasattr(self, "_ranks"):
            raise RuntimeError(f"the matrix structure was built for targets={self.targets!r}")
        return self._ranks


def _shift(record, offset, fields):
    """A copy of a dataclass record with its query-code ``fields`` shifted by ``offset``."""
    return replace(record, **{name: getattr(record, name) + offset for name in fields})


def _join(records):
    """Concatenate dataclass records field by field (``qid`` is set by the caller)."""
    first = records[0]
    joined = {f.name: np.concatenate([getattr(r, f.name) for r in records]) for f in fields(first)
              if f.name != "qid"}
    if any(f.name == "qid" for f in fields(first)):
        joined["qid"] = None
    return type(first)(**joined)


def evaluate(y_true, y_score, *, metrics=("mrr", "map", "ndcg@10"), qid=None, ties="expected", exclude=None,
             labels=None, relevance_level=None, gain="linear", no_relevant="skip", sample_weight=None,
             targets="first", judged=None, missing="skip"):
    """Compute several ranking metrics from one rank computation.

    Parameters
    ----------
    y_true : array-like
        Relevance per row (grouped layout, with ``qid``), a relevance matrix
        of shape (n_queries, n_candidates), or the column index (or class
        label, with ``labels``) of the one true candidate per row of a score
        matrix.
    y_score : array-like
        Scores, shaped like ``y_true`` or (n_queries, n_candidates).
    metrics : str or sequence of str, default=("mrr", "map", "ndcg@10")
        Metric names (see :func:`metric_names`).
    {common}
    missing : {{"skip", "zero"}}, default="skip"
        With ``judged``: what to do with judged queries that have no
        candidate row at all (the system retrieved nothing for them). They
        are counted in ``report.n_missing`` either way; ``"skip"`` leaves them
        out (trec_eval's default), ``"zero"`` scores every list metric 0 for
        them (trec_eval's ``-c``, ranx). Rank statistics have no rank for such
        a query: NaN per query, and the pooled value is unchanged.

    Returns
    -------
    report : RankingReport
        ``report.summary`` maps each name as written to its value;
        ``report.per_query`` holds per-query values and ``"qid"``. A metric
        undefined on the whole input (for example ``zhits@k`` when k is at
        least every query's number of candidates) is NaN, with an
        :class:`UndefinedMetricWarning`; the other metrics are computed.

    See Also
    --------
    compute_ranks : the ranks behind the rank statistics.

    Examples
    --------
    >>> from sklearn_rank import evaluate
    >>> y_true = [0, 1, 0, 1, 0, 0]
    >>> y_score = [0.9, 0.8, 0.1, 0.3, 0.6, 0.2]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> report = evaluate(y_true, y_score, qid=qid, metrics=["mrr", "hits@1", "map"])
    >>> {{name: round(value, 4) for name, value in report.summary.items()}}
    {{'mrr': 0.5, 'hits@1': 0.0, 'map': 0.5}}
    >>> report.per_query["mrr"]
    array([0.5, 0.5])
    """
    level = _check_options(ties, no_relevant, gain, targets, relevance_level)
    check_option(missing, "missing", MISSING)
    resolved = _resolve_metrics(metrics, targets)
    data, structure = _structure(y_true, y_score, qid, exclude, labels, sample_weight, judged, level, gain,
                                 stable=ties == "ordinal", ties=ties, targets=targets,
                                 families={family for _, _, family in resolved})
    params = dict(ties=ties, targets=targets, gain=gain, relevance_level=level, no_relevant=no_relevant)
    if judged is not None:
        params["missing"] = missing
    return _evaluate_structure(structure, data, resolved, ties=ties, no_relevant=no_relevant, targets=targets,
                               params=params, missing=missing)


evaluate.__doc__ = evaluate.__doc__.format(common=_COMMON_DOC.strip())


def _evaluate_structure(structure, data, resolved, *, ties, no_relevant, targets, params, missing="skip"):
    n_q = data.n_queries
    stats = structure.query_stats()
    has_relevant = stats.n_relevant > 0
    needs_relevant = any(spec.needs_relevant for _, spec, _ in resolved)
    missing_qid, missing_has_relevant = _missing_queries(data, params.get("relevance_level"))
    if needs_relevant and no_relevant == "error" and not (has_relevant.all() and (
            missing == "skip" or missing_has_relevant.all())):
        lacking = data.qid[~has_relevant]
        if missing == "zero":
            lacking = np.concatenate([lacking, missing_qid[~missing_has_relevant]])
        raise ValueError(f"Every query must have a relevant item (no_relevant='error'). Got "
                         f"{lacking.size} without one, e.g. qid {lacking[:5].tolist()} instead.")
    evaluated = has_relevant if (needs_relevant and no_relevant == "skip") else np.ones(n_q, dtype=bool)
    # Judged queries without any candidate row (missing="zero", trec_eval's -c): every list metric is 0.
    added = np.zeros(0, dtype=bool)
    if missing == "zero" and missing_qid.size:
        if data.weight is not None:
            raise ValueError("`missing='zero'` adds judged queries that have no candidate row, and those have "
                             "no sample weight. Got `sample_weight` together with missing='zero' instead.")
        added = missing_has_relevant if (needs_relevant and no_relevant == "skip") else \
            np.ones(missing_qid.size, dtype=bool)
    n_added = int(added.sum())
    if not evaluated.any() and not n_added:
        raise ValueError("No query has a relevant item, so the metrics are undefined (`no_relevant='skip'`). "
                         "Got only queries without relevant items instead.")
    weight = data.weight if data.weight is not None else np.ones(n_q)
    if not weight[evaluated].sum() > 0 and not n_added:
        raise ValueError("`sample_weight` must give the evaluated queries a positive total weight. Got a total "
                         "of 0 instead.")
    qid_out = data.qid[evaluated]
    order = None
    if n_added:
        qid_out = np.concatenate([qid_out, missing_qid[added]])
        order = np.argsort(qid_out, kind="stable")
        qid_out = qid_out[order]
        weight = np.concatenate([weight[evaluated], np.ones(n_added)])[order]
    else:
        weight = weight[evaluated]
    summary, per_query = {}, {"qid": qid_out}
    kernels = ranks = None
    for written, spec, family in resolved:
        if family == "list":
            if kernels is None:
                binary, gain_blocks = structure.blocks(ties)
                kernels = ListKernels(binary, gain_blocks, stats, n_q)
            values = kernels.compute(spec.base, spec.k)
            if no_relevant == "zero" and spec.needs_relevant:
                values = np.where(has_relevant, values, 0.0)
            values = values[evaluated]
            if n_added:
                values = np.concatenate([values, np.zeros(n_added)])[order]
            _check_list_values(written, spec, values, qid_out, params)
            value = weighted_mean(values, weight)
        else:
            if ranks is None:
                ranks = structure.ranks(targets)
                if len(ranks):
                    dist = RankDistribution.from_ranks(ranks, ties)
                    target_weight = (data.weight if data.weight is not None else np.ones(n_q))[ranks.query]
            if len(ranks) == 0:
                values, value = np.full(n_q, np.nan), np.nan
            else:
                # Within a query the weight is constant and cancels: per-query values are unweighted,
                # so a query of weight zero still shows its own value.
                per_q_stats = RankStats(dist, np.ones(len(ranks)), ranks.query, n_q, ranks.num_candidates,
                                        ranks.num_relevant)
                pooled = RankStats(dist, target_weight, np.zeros(len(ranks), dtype=np.intp), 1,
                                   ranks.num_candidates, ranks.num_relevant)
                values = per_q_stats.compute(spec.base, spec.k)
                value = float(pooled.compute(spec.base, spec.k)[0])
            # A query without a retrieved relevant item has no rank: NaN there, outside the pooled value.
            values = values[evaluated]
            if n_added:
                values = np.concatenate([values, np.full(n_added, np.nan)])[order]
        if np.isnan(value):
            reason = ("no query has a retrieved relevant item to rank" if family == "rank" and len(ranks) == 0
                      else "no query has a defined value")
            warnings.warn(f"Metric {written!r} is undefined on this input ({reason}); it is reported as NaN.",
                          UndefinedMetricWarning, stacklevel=3)
        summary[written] = value
        per_query[written] = values
    return RankingReport(summary, per_query, int(evaluated.sum()) + n_added, int(n_q - evaluated.sum()) +
                         int(added.size - n_added), params, n_missing=int(missing_qid.size))


def _missing_queries(data, relevance_level):
    """Judged queries without any candidate row, and whether each has a relevant judged item."""
    if data.missing_judged is None or not data.missing_judged[0].size:
        return data.qid[:0], np.zeros(0, dtype=bool)
    judged_qid, judged_rel = data.missing_judged
    is_rel = judged_rel >= relevance_level if relevance_level is not None else judged_rel > 0
    missing_qid = np.unique(judged_qid)
    return missing_qid, np.isin(missing_qid, judged_qid[is_rel])


def _check_list_values(written, spec, values, qid, params):
    """No per-query value leaves a mean unannounced: undefined ones warn, non-finite ones raise."""
    bad = ~np.isfinite(values)
    if not bad.any():
        return
    if spec.base == "auc" and np.isnan(values[bad]).all():
        warnings.warn(f"Metric {written!r} is undefined for {int(bad.sum())} queries without a non-relevant "
                      f"candidate (e.g. qid {qid[bad][:5].tolist()}); they are NaN per query and left out of "
                      "the mean.", UndefinedMetricWarning, stacklevel=4)
        return
    hint = (" With gain='exponential' the gains 2**rel - 1 overflow; use gain='linear' or smaller relevance "
            "grades." if params.get("gain") == "exponential" else "")
    raise ValueError(f"Metric {written!r} must be finite for every query.{hint} Got {int(bad.sum())} non-finite "
                     f"per-query values (e.g. qid {qid[bad][:5].tolist()}) instead.")


def compute_ranks(y_true, y_score, *, qid=None, exclude=None, labels=None, relevance_level=None,
                  targets="first"):
    """Ranks of the targets under every tie policy at once.

    Parameters
    ----------
    y_true, y_score : array-like
        As in :func:`evaluate` (any layout).
    qid, exclude, labels, relevance_level, targets
        As in :func:`evaluate`.

    Returns
    -------
    ranks : Ranks
        Optimistic, pessimistic, realistic, ordinal and expected ranks of
        every target, with ``num_candidates`` and the query of each target.
        Queries without a retrieved relevant item have no target.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank import compute_ranks
    >>> y_score = np.array([[0.1, 0.5, 0.5, 0.2],
    ...                     [0.9, 0.3, 0.2, 0.1]])
    >>> ranks = compute_ranks([1, 0], y_score)   # true columns 1 and 0
    >>> ranks.optimistic, ranks.pessimistic, ranks.realistic
    (array([1., 1.]), array([2., 1.]), array([1.5, 1. ]))
    >>> ranks.num_candidates
    array([4, 4])
    """
    level = check_relevance_level(relevance_level)
    check_option(targets, "targets", TARGETS)
    _, structure = _structure(y_true, y_score, qid, exclude, labels, None, None, level, "linear", stable=True,
                              targets=targets, families=("rank",))
    return structure.ranks(targets)


def evaluate_ranks(ranks, *, num_candidates=None, metrics=("mrr", "hits@10"), ties="expected",
                   sample_weight=None, num_relevant=None):
    """Rank statistics from precomputed ranks (PyKEEN-style rank lists).

    Parameters
    ----------
    ranks : Ranks or array-like of shape (n_targets,)
        A :class:`Ranks` from :func:`compute_ranks` (every tie policy is
        available), or plain 1-based ranks (possibly fractional, e.g. mid
        ranks), used as given.
    num_candidates : array-like of shape (n_targets,) or int, default=None
        Candidates each rank was computed against; needed by the adjusted and
        z-scored metrics. Taken from ``ranks`` when it is a :class:`Ranks`.
    metrics : str or sequence of str, default=("mrr", "hits@10")
        Rank-statistic names: ``mr``, ``mrr``, ``hits@k``, ``gmr``, ``amri``, ...
    ties : {"expected", "realistic", "optimistic", "pessimistic", "ordinal"}, default="expected"
        Which rank of a :class:`Ranks` to use (ignored for plain ranks).
    sample_weight : array-like of shape (n_targets,), default=None
        One weight per rank.
    num_relevant : array-like of shape (n_targets,), default=None
        For plain ranks of the best of several relevant items: how many
        relevant candidates each rank is the best of (default 1); only the
        random baselines of the adjusted metrics use it.

    Returns
    -------
    values : dict
        Metric name as written to its value.

    Examples
    --------
    >>> from sklearn_rank import evaluate_ranks
    >>> values = evaluate_ranks([2, 1, 4], metrics=["mrr", "hits@1", "hits@3", "mr"])
    >>> {name: round(value, 4) for name, value in values.items()}
    {'mrr': 0.5833, 'hits@1': 0.3333, 'hits@3': 0.6667, 'mr': 2.3333}
    >>> round(evaluate_ranks([1, 1], num_candidates=[3, 3], metrics="amri")["amri"], 4)
    1.0
    """
    check_option(ties, "ties", TIE_POLICIES)
    resolved = _resolve_metrics(metrics, "all")
    for written, spec, family in resolved:
        if family != "rank":
            raise ValueError(f"evaluate_ranks computes rank statistics (mr, mrr, hits@k, gmr, amri, ...); "
                             f"{spec.name!r} needs relevance lists: use evaluate(). Got {written!r} instead.")
    if isinstance(ranks, Ranks):
        dist = RankDistribution.from_ranks(ranks, ties)
        n_cand = ranks.num_candidates if num_candidates is None else _positive_ints(num_candidates, len(ranks),
                                                                                     "num_candidates")
        n_rel = ranks.num_relevant
        n = len(ranks)
    else:
        values = np.asarray(ranks)
        if values.dtype.kind not in "iuf" or values.ndim != 1:
            raise TypeError(f"`ranks` must be a Ranks object or a 1-D array of numbers. Got "
                            f"{type(ranks).__name__} with dtype {values.dtype} and shape {values.shape} instead.")
        values = values.astype(np.float64)
        n = values.size
        if n == 0:
            raise ValueError("`ranks` must not be empty. Got 0 ranks instead.")
        if not np.isfinite(values).all() or (values < 1).any():
            raise ValueError(f"`ranks` must be finite and >= 1 (ranks are 1-based). Got minimum {float(values.min())!r} "
                             "instead.")
        dist = RankDistribution.point(values)
        n_cand = None if num_candidates is None else _positive_ints(num_candidates, n, "num_candidates")
        n_rel = np.ones(n, dtype=np.int64) if num_relevant is None else _positive_ints(num_relevant, n,
                                                                                      "num_relevant")
        if n_cand is not None:
            _check_possible_ranks(values, n_cand, n_rel)
    needs_candidates = any(spec.base in _ADJUSTED for _, spec, _ in resolved)
    if needs_candidates and n_cand is None:
        raise ValueError("The adjusted and z-scored metrics need `num_candidates`. Got None instead.")
    weight = np.ones(n) if sample_weight is None else weights_per_row(sample_weight, n, "rank")
    if not weight.sum() > 0:
        raise ValueError("`sample_weight` must have a positive total. Got a total of 0 instead.")
    stats = RankStats(dist, weight, np.zeros(n, dtype=np.intp), 1,
                      n_cand if n_cand is not None else np.ones(n), n_rel)
    out = {}
    for written, spec, _ in resolved:
        value = float(stats.compute(spec.base, spec.k)[0])
        if np.isnan(value):
            warnings.warn(f"Metric {written!r} is undefined on these ranks; it is reported as NaN.",
                          UndefinedMetricWarning, stacklevel=2)
        out[written] = value
    return out


def _check_possible_ranks(ranks, num_candidates, num_relevant):
    """The best of r relevant candidates among N ranks at most N - r + 1."""
    if (num_relevant > num_candidates).any():
        i = int(np.flatnonzero(num_relevant > num_candidates)[0])
        raise ValueError("`num_relevant` must not exceed `num_candidates`. Got num_relevant="
                         f"{int(num_relevant[i])} with num_candidates={int(num_candidates[i])} at position {i} "
                         "instead.")
    worst = num_candidates - num_relevant + 1
    if (ranks > worst).any():
        i = int(np.flatnonzero(ranks > worst)[0])
        raise ValueError("`ranks` must be possible: the best of num_relevant relevant candidates among "
                         "num_candidates ranks at most num_candidates - num_relevant + 1. Got rank "
                         f"{float(ranks[i])!r} with num_candidates={int(num_candidates[i])} and num_relevant="
                         f"{int(num_relevant[i])} at position {i} instead.")


_ADJUSTED = frozenset({"amr", "amri", "agmri", "amrr", "ahits", "zmr", "zmrr", "zgmr", "zhits"})


def _positive_ints(values, n, name):
    arr = np.asarray(values)
    if arr.ndim == 0:
        arr = np.full(n, arr)
    if arr.shape != (n,) or arr.dtype.kind not in "iuf" or not np.isfinite(arr).all() or (arr < 1).any() \
            or (arr != np.round(arr)).any():
        raise ValueError(f"`{name}` must hold one positive integer per rank ({n}). Got {arr!r} instead.")
    return arr.astype(np.int64)


def positive_vs_negatives(y_pred_pos, y_pred_neg):
    """Turn one positive score and its sampled negatives into the label-index layout.

    This is the TGB / OGB evaluation input (``y_pred_pos``, ``y_pred_neg``):
    the positive goes to column 0 of the score matrix.

    Parameters
    ----------
    y_pred_pos : array-like of shape (n_queries,)
        Score of the positive candidate of each query.
    y_pred_neg : array-like of shape (n_queries, n_negatives)
        Scores of the negative candidates.

    Returns
    -------
    y_true : ndarray of shape (n_queries,)
        Zeros: the true column of every row.
    y_score : ndarray of shape (n_queries, 1 + n_negatives)
        The positive score followed by the negative ones.

    Examples
    --------
    >>> from sklearn_rank import mean_reciprocal_rank, positive_vs_negatives
    >>> y_true, y_score = positive_vs_negatives([0.9, 0.2], [[0.5, 0.1], [0.2, 0.7]])
    >>> y_score
    array([[0.9, 0.5, 0.1],
           [0.2, 0.2, 0.7]])
    >>> round(mean_reciprocal_rank(y_true, y_score, ties="realistic"), 4)   # ranks 1 and 2.5
    0.7
    """
    pos = np.asarray(y_pred_pos)
    neg = np.asarray(y_pred_neg)
    if pos.ndim != 1:
        raise ValueError(f"`y_pred_pos` must be 1-D (one score per query). Got shape {pos.shape} instead.")
    if neg.ndim == 1 and pos.shape[0] == 1:
        neg = neg[None, :]
    if neg.ndim != 2 or neg.shape[0] != pos.shape[0]:
        raise ValueError(f"`y_pred_neg` must be 2-D with one row per query ({pos.shape[0]}). "
                         f"Got shape {neg.shape} instead.")
    y_score = np.concatenate([pos[:, None], neg], axis=1)
    return np.zeros(pos.shape[0], dtype=np.intp), y_score


# --------------------------------------------------------------------------------------------
# One function per common metric: thin wrappers around the one engine.
# --------------------------------------------------------------------------------------------
def _single(name, y_true, y_score, k, kwargs):
    spec = with_k(base_spec(name), k)
    return evaluate(y_true, y_score, metrics=[spec.name], **kwargs).summary[spec.name]


def mean_reciprocal_rank(y_true, y_score, *, qid=None, ties="expected", exclude=None, labels=None,
                         relevance_level=None, no_relevant="skip", sample_weight=None, targets="first",
                         judged=None):
    """Mean reciprocal rank of the first relevant item (or of every target with ``targets="all"``).

    Parameters
    ----------
    y_true, y_score : array-like
        Any layout (see :func:`evaluate`).
    {common}

    Returns
    -------
    mrr : float in [0, 1]
        Weighted mean over queries of ``1 / rank`` of the first relevant item
        (0 for a query whose relevant items were not retrieved).

    Examples
    --------
    >>> from sklearn_rank import mean_reciprocal_rank
    >>> y_score = [[0.2, 0.9, 0.1], [0.8, 0.1, 0.3], [0.1, 0.2, 0.6]]
    >>> round(mean_reciprocal_rank([0, 0, 0], y_score), 4)   # ranks 2, 1, 3
    0.6111
    >>> round(mean_reciprocal_rank([0, 0], [[1.0, 1.0], [1.0, 1.0]]), 4)   # constant scorer: H(2)/2
    0.75
    """
    return _single("mrr", y_true, y_score, None, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        no_relevant=no_relevant, sample_weight=sample_weight, targets=targets, judged=judged))


def mean_average_precision(y_true, y_score, *, k=None, qid=None, ties="expected", exclude=None, labels=None,
                           relevance_level=None, no_relevant="skip", sample_weight=None, judged=None):
    """Mean average precision; with ``k``, trec_eval's ``map_cut`` (denominator: all relevant items).

    Parameters
    ----------
    y_true, y_score : array-like
        Any layout (see :func:`evaluate`).
    k : int, default=None
        Only relevant items in the top ``k`` contribute; the denominator stays
        the number of relevant items.
    {common}

    Returns
    -------
    map : float in [0, 1]
        Weighted mean over queries of average precision.

    Examples
    --------
    >>> from sklearn_rank import mean_average_precision
    >>> y_true = [1, 0, 0, 1, 1, 0, 0, 0, 0, 0]          # relevant at ranks 1, 4 and 5
    >>> y_score = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]
    >>> round(mean_average_precision(y_true, y_score), 4)  # (1/1 + 2/4 + 3/5) / 3
    0.7
    """
    return _single("map", y_true, y_score, k, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        no_relevant=no_relevant, sample_weight=sample_weight, judged=judged))


def ndcg_score(y_true, y_score, *, k=None, qid=None, ties="expected", exclude=None, labels=None, gain="linear",
               no_relevant="skip", sample_weight=None, judged=None):
    """Normalized discounted cumulative gain (scikit-learn's value on scikit-learn's input).

    Parameters
    ----------
    y_true, y_score : array-like
        Any layout (see :func:`evaluate`); graded relevance gives the gains.
    k : int, default=None
        Only the top ``k`` positions count (the ideal DCG is cut at ``k`` too).
    {common}

    Returns
    -------
    ndcg : float in [0, 1]
        Weighted mean over queries of DCG / ideal DCG.

    Examples
    --------
    >>> from sklearn_rank import ndcg_score
    >>> y_true = [[10, 0, 0, 1, 5]]
    >>> y_score = [[.1, .2, .3, 4, 70]]
    >>> round(ndcg_score(y_true, y_score), 4)     # sklearn.metrics.ndcg_score gives the same
    0.6957
    """
    return _single("ndcg", y_true, y_score, k, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, gain=gain, no_relevant=no_relevant,
        sample_weight=sample_weight, judged=judged))


def dcg_score(y_true, y_score, *, k=None, qid=None, ties="expected", exclude=None, labels=None, gain="linear",
              no_relevant="skip", sample_weight=None, judged=None):
    """Discounted cumulative gain with the ``log2(1 + position)`` discount.

    Parameters
    ----------
    y_true, y_score : array-like
        Any layout (see :func:`evaluate`).
    k : int, default=None
        Only the top ``k`` positions count.
    {common}

    Returns
    -------
    dcg : float >= 0
        Weighted mean over queries of the DCG.

    Examples
    --------
    >>> from sklearn_rank import dcg_score
    >>> round(dcg_score([[10, 0, 0, 1, 5]], [[.1, .2, .3, 4, 70]]), 4)
    9.4995
    """
    return _single("dcg", y_true, y_score, k, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, gain=gain, no_relevant=no_relevant,
        sample_weight=sample_weight, judged=judged))


def hits_at_k(y_true, y_score, *, k, qid=None, ties="expected", exclude=None, labels=None, relevance_level=None,
              no_relevant="skip", sample_weight=None, targets="first", judged=None):
    """Fraction of queries (or targets) with a relevant item in the top ``k`` (hits@k, success@k).

    Parameters
    ----------
    y_true, y_score : array-like
        Any layout (see :func:`evaluate`).
    k : int
        The cut-off.
    {common}

    Returns
    -------
    hits : float in [0, 1]
        Weighted mean of the indicator "first relevant rank <= k".

    Examples
    --------
    >>> from sklearn_rank import hits_at_k
    >>> y_score = [[0.2, 0.9, 0.1], [0.8, 0.1, 0.3], [0.1, 0.2, 0.6]]
    >>> round(hits_at_k([0, 0, 0], y_score, k=2), 4)    # ranks 2, 1, 3
    0.6667
    """
    return _single("hits", y_true, y_score, k, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        no_relevant=no_relevant, sample_weight=sample_weight, targets=targets, judged=judged))


def precision_at_k(y_true, y_score, *, k, qid=None, ties="expected", exclude=None, labels=None,
                   relevance_level=None, no_relevant="skip", sample_weight=None, judged=None):
    """Precision at ``k``: relevant items in the top ``k``, divided by ``k`` (even for shorter lists).

    Parameters
    ----------
    y_true, y_score : array-like
        Any layout (see :func:`evaluate`).
    k : int
        The cut-off.
    {common}

    Returns
    -------
    precision : float in [0, 1]

    Examples
    --------
    >>> from sklearn_rank import precision_at_k
    >>> round(precision_at_k([1, 0, 1], [0.9, 0.8, 0.7], k=5), 4)   # 2 relevant / 5
    0.4
    """
    return _single("p", y_true, y_score, k, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        no_relevant=no_relevant, sample_weight=sample_weight, judged=judged))


def recall_at_k(y_true, y_score, *, k, qid=None, ties="expected", exclude=None, labels=None,
                relevance_level=None, no_relevant="skip", sample_weight=None, judged=None):
    """Recall at ``k``: relevant items in the top ``k`` divided by the number of relevant items.

    Parameters
    ----------
    y_true, y_score : array-like
        Any layout (see :func:`evaluate`).
    k : int
        The cut-off.
    {common}

    Returns
    -------
    recall : float in [0, 1]

    Examples
    --------
    >>> from sklearn_rank import recall_at_k
    >>> round(recall_at_k([1, 0, 1, 1], [0.9, 0.8, 0.7, 0.1], k=2), 4)   # 1 of 3
    0.3333
    """
    return _single("r", y_true, y_score, k, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        no_relevant=no_relevant, sample_weight=sample_weight, judged=judged))


def r_precision(y_true, y_score, *, qid=None, ties="expected", exclude=None, labels=None, relevance_level=None,
                no_relevant="skip", sample_weight=None, judged=None):
    """R-precision: precision at ``R``, the number of relevant items of the query.

    Parameters
    ----------
    y_true, y_score : array-like
        Any layout (see :func:`evaluate`).
    {common}

    Returns
    -------
    rprec : float in [0, 1]

    Examples
    --------
    >>> from sklearn_rank import r_precision
    >>> round(r_precision([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1]), 4)   # 1 relevant in the top 2
    0.5
    """
    return _single("rprec", y_true, y_score, None, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        no_relevant=no_relevant, sample_weight=sample_weight, judged=judged))


def mean_rank(y_true, y_score, *, qid=None, ties="expected", exclude=None, labels=None, relevance_level=None,
              sample_weight=None, targets="first"):
    """Mean rank of the targets (lower is better).

    Parameters
    ----------
    y_true, y_score : array-like
        Any layout (see :func:`evaluate`).
    {common}

    Returns
    -------
    mr : float >= 1
        Weighted mean of the (expected, under ``ties="expected"``) ranks.

    Examples
    --------
    >>> from sklearn_rank import mean_rank
    >>> y_score = [[0.5, 0.5, 0.5, 0.5]]
    >>> mean_rank([2], y_score)                      # one tie of 4: expected rank (4 + 1) / 2
    2.5
    >>> mean_rank([2], y_score, ties="pessimistic")
    4.0
    """
    return _single("mr", y_true, y_score, None, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        sample_weight=sample_weight, targets=targets))


for _fn in (mean_reciprocal_rank, mean_average_precision, ndcg_score, dcg_score, hits_at_k, precision_at_k,
            recall_at_k, r_precision, mean_rank):
    _fn.__doc__ = _fn.__doc__.replace("{common}", _COMMON_DOC.strip())
del _fn
