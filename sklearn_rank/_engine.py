"""The one internal entry to the metric engine.

Every public entry point (the metric functions and :func:`~sklearn_rank.evaluate`, the scorers and
``RankingEvaluator`` through them, ``io.evaluate_trec`` and the command line) calls :func:`evaluate`,
:func:`compute_ranks` or :func:`evaluate_ranks` here. Each validates its input into the canonical
per-query form (``_inputs``), builds the rank structure of that layout once (``_ranks``) and runs the
vectorised kernels over it (``_kernels``); the result is a ``RankingReport`` (``_report``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
import warnings

import numpy as np

from ._inputs import (ALL_EXCLUDED, AP_DENOMINATORS, GAINS, MISSING, NO_RELEVANT, TARGETS, TIE_POLICIES,
                      GroupedData, RelevanceMatrix, check_exponential_gain, check_option, check_relevance_level,
                      prepare, weights_per_row)
from ._kernels import ListKernels, RankDistribution, RankStats
from ._ranks import GroupedStructure, LabelIndexStructure, Ranks
from ._conventions import default_options, normalise_convention, resolve as resolve_convention
from ._registry import DUAL_FAMILY, base_spec, get_metric, normalise_name, with_k
from ._report import RankingReport, weighted_mean
from .exceptions import UndefinedMetricWarning


_D = default_options(ties="expected", gain="linear", no_relevant="skip", targets="first",
                     ap_denominator="relevant", nan_policy="raise")


def evaluate(y_true, y_score, *, metrics, qid=None, ties=_D["ties"], exclude=None, labels=None,
             relevance_level=None, gain=_D["gain"], no_relevant=_D["no_relevant"], sample_weight=None,
             targets=_D["targets"], judged=None, missing="skip", ap_denominator=_D["ap_denominator"],
             nan_policy=_D["nan_policy"], convention=None, report_params=None, unjudged=None):
    """All ``metrics`` from one rank computation: a RankingReport (see ``sklearn_rank.evaluate``).

    ``convention`` names a preset (``_conventions.PRESETS``) for the options left at their defaults.
    ``report_params`` overrides entries of the report's ``params`` (``evaluate_trec`` reports its
    ``ties="trec"``, which the engine computes as ``"ordinal"`` on rows in trec_eval's order).
    """
    options, aliases = resolve_convention(convention, dict(
        ties=ties, gain=gain, no_relevant=no_relevant, targets=targets, ap_denominator=ap_denominator,
        nan_policy=nan_policy))
    ties, gain, no_relevant, targets, ap_denominator, nan_policy = (options[name] for name in (
        "ties", "gain", "no_relevant", "targets", "ap_denominator", "nan_policy"))
    no_relevant_for = options["no_relevant_for"]
    level = check_options(ties, no_relevant, gain, targets, relevance_level)
    check_option(missing, "missing", MISSING)
    check_option(ap_denominator, "ap_denominator", AP_DENOMINATORS)
    resolved = resolve_metrics(metrics, targets, aliases)
    data, structure = _structure(y_true, y_score, qid, exclude, labels, sample_weight, judged, level, gain,
                                 stable=ties == "ordinal", ties=ties, targets=targets,
                                 families={family for _, _, family in resolved} | _extra_needs(resolved),
                                 unjudged=unjudged, nan_policy=nan_policy)
    params = dict(ties=ties, targets=targets, gain=gain, relevance_level=level, no_relevant=no_relevant)
    if ap_denominator != "relevant":
        params["ap_denominator"] = ap_denominator
    if convention is not None:
        params["convention"] = normalise_convention(convention)
    if nan_policy != "raise":
        params["nan_policy"] = nan_policy
    if judged is not None:
        params["missing"] = missing
    if report_params:
        params.update(report_params)
    return _evaluate_structure(structure, data, resolved, ties=ties, no_relevant=no_relevant, targets=targets,
                               params=params, missing=missing, ap_denominator=ap_denominator,
                               no_relevant_for=no_relevant_for)


def compute_ranks(y_true, y_score, *, qid=None, exclude=None, labels=None, relevance_level=None,
                  targets=_D["targets"], nan_policy=_D["nan_policy"], convention=None):
    """The Ranks of the targets (see ``sklearn_rank.compute_ranks``)."""
    options = resolve_convention(convention, dict(targets=targets, nan_policy=nan_policy))[0]
    targets, nan_policy = options["targets"], options["nan_policy"]
    level = check_relevance_level(relevance_level)
    check_option(targets, "targets", TARGETS)
    _, structure = _structure(y_true, y_score, qid, exclude, labels, None, None, level, "linear", stable=True,
                              targets=targets, families=("rank",), nan_policy=nan_policy)
    return structure.ranks(targets)


def evaluate_ranks(ranks, *, metrics, num_candidates=None, ties=_D["ties"], sample_weight=None, num_relevant=None,
                   convention=None):
    """Rank statistics of precomputed ranks (see ``sklearn_rank.evaluate_ranks``)."""
    # Ranks have one target each: names keep sklearn-rank's reading here (a preset's reading of names,
    # such as ranx's hits@k as a count of relevant items, is for relevance lists).
    ties = resolve_convention(convention, dict(ties=ties))[0]["ties"]
    check_option(ties, "ties", TIE_POLICIES)
    resolved = resolve_metrics(metrics, "all")
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
                          UndefinedMetricWarning, stacklevel=3)
        out[written] = value
    return out


def check_options(ties, no_relevant, gain, targets, relevance_level):
    check_option(ties, "ties", TIE_POLICIES)
    check_option(no_relevant, "no_relevant", NO_RELEVANT)
    check_option(gain, "gain", GAINS)
    check_option(targets, "targets", TARGETS)
    return check_relevance_level(relevance_level)


def resolve_metrics(metrics, targets, aliases=()):
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
        spec = read_name(written, get_metric(written), aliases)
        family = spec.family
        if spec.base in DUAL_FAMILY and targets == "all":
            family = "rank"
        resolved.append((written if isinstance(written, str) else spec.name, spec, family))
    return resolved


def read_name(written, spec, aliases):
    """The metric a preset reads in the name ``written`` (whose registry spec is ``spec``).

    The preset's reading of a name as the peer spells it (ranx's ``hits@k`` counts the relevant items
    in the top k, its ``hit_rate@k`` does not; XGBoost's ``ndcg`` is ``ndcg@32``). Only names written by
    the caller are read so: a MetricSpec (a metric function's own metric) is taken as it is.
    """
    if not aliases or not isinstance(written, str):
        return spec
    text = written.strip()
    head = normalise_name(text.partition("@")[0])
    if head not in aliases:
        return spec
    base, k = aliases[head] if isinstance(aliases[head], tuple) else (aliases[head], None)
    return with_k(base_spec(base), spec.k if spec.k is not None else k)


def read_scorer_name(written, spec, convention):
    """The metric a scorer computes for the name ``written`` (without ``neg_``) under ``convention``."""
    aliases = resolve_convention(convention, {})[1]
    if isinstance(written, str) and written.strip().lower().startswith("neg_"):
        written = written.strip()[4:]
    return read_name(written, spec, aliases)


def _extra_needs(resolved):
    """What the list metrics need beyond the blocks: per-item grades (ERR), judged blocks (judged@k)."""
    bases = {spec.base for _, spec, family in resolved if family == "list"}
    return ({"items"} if "err" in bases else set()) | ({"judged"} if "judged" in bases else set())


def _structure(y_true, y_score, qid, exclude, labels, sample_weight, judged, relevance_level, gain, stable,
               ties=None, targets=None, families=("list", "rank"), unjudged=None, nan_policy="raise"):
    """Validate, then build the rank structure; ``stable`` keeps input order among ties (ordinal ranks).

    A large relevance matrix is ranked a block of queries at a time, keeping only what the metrics
    need (``families`` under ``ties`` and ``targets``), so that memory follows the block, not the matrix.
    """
    data = prepare(y_true, y_score, qid=qid, exclude=exclude, labels=labels, sample_weight=sample_weight,
                   judged=judged, unjudged=unjudged, nan_policy=nan_policy)
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
        items, judged = [], []
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
            if "items" in families:
                items.append(_shift(part.item_blocks(ties), offset, ("query",)))
            if "judged" in families and matrix.unjudged is not None:
                judged.append(_shift(part.judged_blocks(ties), offset, ("query",)))
            offset += data.n_queries
            del data, part
        if not qids:
            raise ValueError(ALL_EXCLUDED)
        qid = np.concatenate(qids)
        weight = None if matrix.weight is None else np.concatenate(weights)
        self.queries = _Queries(qid, weight)
        self._stats = _join(stats)
        self._blocks = (_join(binary), _join(gain_blocks)) if binary else None
        if ranks:
            self._ranks = _join(ranks)
            self._ranks.qid = qid
        self._items = _join(items) if items else None
        self._judged = _join(judged) if judged else None

    def item_blocks(self, ties):
        if ties != self.ties or self._items is None:
            raise RuntimeError(f"the matrix structure was built for ties={self.ties!r}")
        return self._items

    def judged_blocks(self, ties):
        if ties != self.ties:
            raise RuntimeError(f"the matrix structure was built for ties={self.ties!r}")
        return self._judged

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
    joined = {f.name: None if getattr(first, f.name) is None else np.concatenate([getattr(r, f.name) for r in records])
              for f in fields(first) if f.name != "qid"}
    if any(f.name == "qid" for f in fields(first)):
        joined["qid"] = None
    return type(first)(**joined)


def _evaluate_structure(structure, data, resolved, *, ties, no_relevant, targets, params, missing="skip",
                        ap_denominator="relevant", no_relevant_for=None):
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
                kernels = ListKernels(binary, gain_blocks, stats, n_q, ap_denominator, structure=structure,
                                      ties=ties)
            values = kernels.compute(spec.base, spec.k, spec.param)
            # a preset's score for a query without a relevant item may differ by metric (LightGBM, XGBoost)
            fill_policy = (no_relevant_for or {}).get(spec.base, no_relevant)
            if fill_policy in ("zero", "one") and spec.needs_relevant:
                values = np.where(has_relevant, values, 0.0 if fill_policy == "zero" else 1.0)
            values = values[evaluated]
            if n_added:
                # a judged query without candidate rows scores 0, or 1 under no_relevant="one" when it
                # has no relevant item either
                fill = np.zeros(n_added)
                if fill_policy == "one" and spec.needs_relevant:
                    fill[~missing_has_relevant[added]] = 1.0
                values = np.concatenate([values, fill])[order]
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
                          UndefinedMetricWarning, stacklevel=4)
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
                      "the mean.", UndefinedMetricWarning, stacklevel=5)
        return
    hint = (" With gain='exponential' the gains 2**rel - 1 overflow; use gain='linear' or smaller relevance "
            "grades." if params.get("gain") == "exponential" else "")
    raise ValueError(f"Metric {written!r} must be finite for every query.{hint} Got {int(bad.sum())} non-finite "
                     f"per-query values (e.g. qid {qid[bad][:5].tolist()}) instead.")


def _positive_ints(values, n, name):
    arr = np.asarray(values)
    if arr.ndim == 0:
        arr = np.full(n, arr)
    if arr.shape != (n,) or arr.dtype.kind not in "iuf" or not np.isfinite(arr).all() or (arr < 1).any() \
            or (arr != np.round(arr)).any():
        raise ValueError(f"`{name}` must hold one positive integer per rank ({n}). Got {arr!r} instead.")
    return arr.astype(np.int64)


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
