"""The one internal entry to the metric engine.

Every public entry point (the metric functions and :func:`~sklearn_rank.evaluate`, the scorers and
``RankingEvaluator`` through them, ``io.evaluate_trec`` and the command line) calls :func:`evaluate`,
:func:`compute_ranks` or :func:`evaluate_ranks` here. Each validates its input into the canonical
per-query form (``_inputs``), builds the rank structure of that layout once (``_ranks``) and runs the
vectorised kernels over it (``_lists``, ``_rank_stats``); the result is a ``RankingReport`` (``_report``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
import math
import sys
import warnings

import numpy as np

from ._inputs import (ALL_EXCLUDED, AP_DENOMINATORS, GAINS, MISSING, NAN_POLICIES, NO_RELEVANT, TARGETS, TIE_POLICIES,
                      GroupedData, RelevanceMatrix, check_exponential_gain, check_option, check_relevance_level,
                      prepare, prepare_namespace, weights_per_row)
from ._lists import ListKernels
from ._rank_stats import NamespaceRankStats, RankDistribution, RankStats
from ._ranks import GroupedStructure, LabelIndexStructure, NamespaceLabelIndex, Ranks, matrix_chunk_rows
from ._conventions import default_options, normalise_convention, resolve as resolve_convention
from ._registry import DUAL_FAMILY, base_spec, get_metric, list_kernel, normalise_name, with_k
from ._report import RankingReport, weighted_mean
from .exceptions import InputTypeError, InputValueError, UndefinedMetricWarning


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
    evaluation = plan(metrics=metrics, ties=ties, relevance_level=relevance_level, gain=gain,
                      no_relevant=no_relevant, targets=targets, missing=missing, ap_denominator=ap_denominator,
                      nan_policy=nan_policy, convention=convention, report_params=report_params,
                      judged=judged is not None)
    xp = array_namespace(y_score)
    if xp is not None:  # scikit-learn's array_api_dispatch, y_score of another library than NumPy
        return _evaluate_in_namespace(xp, evaluation, y_true, y_score, qid=qid, exclude=exclude, labels=labels,
                                      sample_weight=sample_weight, judged=judged, unjudged=unjudged)
    part = evaluation.part(y_true, y_score, qid=qid, exclude=exclude, labels=labels, sample_weight=sample_weight,
                           judged=judged, unjudged=unjudged)
    return evaluation.reduce([part])


@dataclass
class Plan:
    """Checked options and metrics of one evaluation, applied to whole queries a part at a time.

    ``part`` turns the rows of some whole queries into their per-query values (:class:`PartialReport`);
    ``reduce`` turns the parts into the report. ``evaluate`` is one part; the streaming and distributed
    back ends evaluate a batch or a partition per part, and send only the parts back. A plan pickles.
    """

    resolved: list
    ties: str
    gain: str
    no_relevant: str
    targets: str
    ap_denominator: str
    nan_policy: str
    relevance_level: float | None
    missing: str
    no_relevant_for: dict
    params: dict

    def part(self, y_true, y_score, *, qid=None, exclude=None, labels=None, sample_weight=None, judged=None,
             unjudged=None):
        data, structure = _structure(y_true, y_score, qid, exclude, labels, sample_weight, judged,
                                     self.relevance_level, self.gain, stable=self.ties == "ordinal",
                                     ties=self.ties, targets=self.targets, families=_needs(self.resolved),
                                     unjudged=unjudged, nan_policy=self.nan_policy)
        options = dict(ties=self.ties, no_relevant=self.no_relevant, targets=self.targets,
                       ap_denominator=self.ap_denominator, no_relevant_for=self.no_relevant_for,
                       relevance_level=self.relevance_level)
        if isinstance(structure, MatrixStructure):  # a chunk of rows at a time, then their values joined
            return structure.partial_report(self.resolved, **options)
        return partial_report(structure, data, self.resolved, **options)

    def reduce(self, parts, consume=False):
        """The report of ``parts``; with ``consume``, each part's per-query values are released as they are
        joined (the parts cannot be reduced again), which bounds the memory of a long stream's end."""
        return reduce_partials(list(parts), self.resolved, no_relevant=self.no_relevant, params=self.params,
                               missing=self.missing, no_relevant_for=self.no_relevant_for, consume=consume)


def plan(*, metrics, ties=_D["ties"], relevance_level=None, gain=_D["gain"], no_relevant=_D["no_relevant"],
         targets=_D["targets"], missing="skip", ap_denominator=_D["ap_denominator"], nan_policy=_D["nan_policy"],
         convention=None, report_params=None, judged=False):
    """The :class:`Plan` of ``metrics`` under these options (checked here, before any data is read)."""
    options, aliases = resolve_convention(convention, dict(
        ties=ties, gain=gain, no_relevant=no_relevant, targets=targets, ap_denominator=ap_denominator,
        nan_policy=nan_policy))
    ties, gain, no_relevant, targets, ap_denominator, nan_policy = (options[name] for name in (
        "ties", "gain", "no_relevant", "targets", "ap_denominator", "nan_policy"))
    level = check_options(ties, no_relevant, gain, targets, relevance_level)
    check_option(missing, "missing", MISSING)
    check_option(ap_denominator, "ap_denominator", AP_DENOMINATORS)
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    resolved = resolve_metrics(metrics, targets, aliases)
    params = dict(ties=ties, targets=targets, gain=gain, relevance_level=level, no_relevant=no_relevant)
    if ap_denominator != "relevant":
        params["ap_denominator"] = ap_denominator
    if convention is not None:
        params["convention"] = normalise_convention(convention)
    if nan_policy != "raise":
        params["nan_policy"] = nan_policy
    if judged:
        params["missing"] = missing
    if report_params:
        params.update(report_params)
    return Plan(resolved, ties, gain, no_relevant, targets, ap_denominator, nan_policy, level, missing,
                options["no_relevant_for"], params)


def compute_ranks(y_true, y_score, *, qid=None, exclude=None, labels=None, relevance_level=None,
                  targets=_D["targets"], nan_policy=_D["nan_policy"], convention=None):
    """The Ranks of the targets (see ``sklearn_rank.compute_ranks``)."""
    options = resolve_convention(convention, dict(targets=targets, nan_policy=nan_policy))[0]
    targets, nan_policy = options["targets"], options["nan_policy"]
    level = check_relevance_level(relevance_level)
    check_option(targets, "targets", TARGETS)
    xp = array_namespace(y_score)
    if xp is not None:
        data = prepare_namespace(xp, y_true, y_score, qid=qid, exclude=exclude, labels=labels, nan_policy=nan_policy)
        return _namespace_structure(data, level, "linear", True, None, targets, ("rank",)).ranks(targets)
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
            raise InputValueError(f"evaluate_ranks computes rank statistics (mr, mrr, hits@k, gmr, amri, ...); "
                                  f"{spec.name!r} needs relevance lists: use evaluate(). Got {written!r} instead.")
    xp = array_namespace(ranks.optimistic if isinstance(ranks, Ranks) else ranks)
    if xp is not None:
        return _evaluate_ranks_in_namespace(xp, ranks, resolved, ties, num_candidates, sample_weight, num_relevant)
    if isinstance(ranks, Ranks):
        dist = RankDistribution.from_ranks(ranks, ties)
        n_cand = ranks.num_candidates if num_candidates is None else _positive_ints(num_candidates, len(ranks),
                                                                                     "num_candidates")
        n_rel = ranks.num_relevant
        n = len(ranks)
    else:
        values = np.asarray(ranks)
        if values.dtype.kind not in "iuf" or values.ndim != 1:
            raise InputTypeError(f"`ranks` must be a Ranks object or a 1-D array of numbers. Got "
                                 f"{type(ranks).__name__} with dtype {values.dtype} and shape {values.shape} instead.")
        values = values.astype(np.float64)
        n = values.size
        if n == 0:
            raise InputValueError("`ranks` must not be empty. Got 0 ranks instead.")
        if not np.isfinite(values).all() or (values < 1).any():
            raise InputValueError(
                f"`ranks` must be finite and >= 1 (ranks are 1-based). Got minimum {float(values.min())!r} "
                "instead.")
        dist = RankDistribution.point(values)
        n_cand = None if num_candidates is None else _positive_ints(num_candidates, n, "num_candidates")
        n_rel = np.ones(n, dtype=np.int64) if num_relevant is None else _positive_ints(num_relevant, n,
                                                                                      "num_relevant")
        if n_cand is not None:
            _check_possible_ranks(values, n_cand, n_rel)
    needs_candidates = any(spec.base in _ADJUSTED for _, spec, _ in resolved)
    if needs_candidates and n_cand is None:
        raise InputValueError("The adjusted and z-scored metrics need `num_candidates`. Got None instead.")
    weight = np.ones(n) if sample_weight is None else weights_per_row(sample_weight, n, "rank")
    if not weight.sum() > 0:
        raise InputValueError("`sample_weight` must have a positive total. Got a total of 0 instead.")
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
        raise InputTypeError(
            f"`metrics` must be a metric name or a sequence of names. Got {metrics!r} instead.") from None
    if not metrics:
        raise InputValueError("`metrics` must name at least one metric. Got an empty sequence instead.")
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


def _needs(resolved):
    """What the structure must keep for these metrics: their families and what else they read."""
    return {family for _, _, family in resolved} | _extra_needs(resolved)


def _extra_needs(resolved):
    """What the list metrics need beyond the blocks: per-item grades (ERR), judged blocks (judged@k)."""
    bases = {spec.base for _, spec, family in resolved if family == "list"}
    return ({"items"} if "err" in bases else set()) | ({"judged"} if "judged" in bases else set())


def _structure(y_true, y_score, qid, exclude, labels, sample_weight, judged, relevance_level, gain, stable,
               ties=None, targets=None, families=("list", "rank"), unjudged=None, nan_policy="raise"):
    """Validate, then build the rank structure; ``stable`` keeps input order among ties (ordinal ranks).

    A relevance matrix is ranked a chunk of whole rows at a time (:class:`MatrixStructure`), so that memory
    follows the chunk, not the matrix; its data is returned as it is.
    """
    data = prepare(y_true, y_score, qid=qid, exclude=exclude, labels=labels, sample_weight=sample_weight,
                   judged=judged, unjudged=unjudged, nan_policy=nan_policy)
    if isinstance(data, RelevanceMatrix):
        if gain == "exponential":
            check_exponential_gain(data.rel)
        return data, MatrixStructure(data, relevance_level, gain, stable, ties, targets, families)
    if isinstance(data, GroupedData):
        if gain == "exponential":
            check_exponential_gain(data.rel, data.judged_rel)
        return data, GroupedStructure(data, relevance_level, gain, stable=stable)
    return data, LabelIndexStructure(data, stable=stable)


class MatrixStructure:
    """A relevance matrix ranked a chunk of whole rows at a time.

    Each chunk goes through :class:`GroupedStructure`; only what the metrics read of it is kept (its
    per-query facts, the blocks of the tie policy, its targets' ranks: :class:`_KeptChunks`), and the
    per-query values (:meth:`partial_report`) are computed once the kept records of consecutive chunks
    reach ``1 / MATRIX_KEPT_SHARE`` of the score matrix. Sparse relevance keeps little, and the values
    of the whole matrix are computed at once; the records of dense relevance (several float64 numbers
    per relevant cell: kept for the whole matrix, over ten times the score matrix) are reduced chunk by
    chunk. The chunks are sized by ``matrix_chunk_rows`` from the score matrix's size. A query's values
    depend on its own rows only, however the rows are grouped.
    """

    def __init__(self, matrix, relevance_level, gain, stable, ties, targets, families):
        self.matrix, self.relevance_level, self.gain, self.stable = matrix, relevance_level, gain, stable
        self.ties, self.targets, self.families = ties, targets, families

    def row_ranges(self):
        """(lo, hi) of each chunk of rows."""
        from . import _inputs

        n_queries, n_candidates = self.matrix.score.shape
        step = matrix_chunk_rows(n_candidates, _inputs.MATRIX_CHUNK, self.matrix.score.nbytes)
        return [(lo, min(n_queries, lo + step)) for lo in range(0, n_queries, step)]

    def structure(self, data):
        return GroupedStructure(data, self.relevance_level, self.gain, stable=self.stable)

    def groups(self):
        """:class:`_KeptChunks` of consecutive chunks, each group's records within the budget (but one chunk)."""
        budget = max(self.matrix.score.nbytes // MATRIX_KEPT_SHARE, MATRIX_KEPT_MIN)
        kept = []
        for lo, hi in self.row_ranges():
            data = self.matrix.grouped(lo, hi)
            if data is None:  # every candidate of these rows excluded
                continue
            # the chunk's structure, and its data, go before the next chunk is ranked
            kept.append(_ChunkRecords(data, self.structure(data), self.ties, self.targets, self.families))
            del data
            if sum(record.nbytes for record in kept) > budget:
                yield _KeptChunks(kept, self.ties, self.targets)
                kept = []
        if kept:
            yield _KeptChunks(kept, self.ties, self.targets)

    def partial_report(self, resolved, **options):
        """The :class:`PartialReport` of the whole matrix, joined from those of its groups of chunks."""
        parts = [partial_report(group, group.queries, resolved, **options) for group in self.groups()]
        if not parts:
            raise InputValueError(ALL_EXCLUDED)
        return _join_parts(parts)

    def ranks(self, targets):
        if targets != self.targets:
            raise RuntimeError(f"the matrix structure was built for targets={self.targets!r}")
        ranks, qids, offset = [], [], 0
        for lo, hi in self.row_ranges():
            data = self.matrix.grouped(lo, hi)
            if data is not None:
                ranks.append(_shift(self.structure(data).ranks(targets), offset, ("query",)))
                qids.append(data.qid)
                offset += data.n_queries
        if not ranks:
            raise InputValueError(ALL_EXCLUDED)
        joined = _join(ranks)
        joined.qid = np.concatenate(qids)
        return joined


# The records kept of a relevance matrix's chunks before their values are computed: at most this share
# of the score matrix, or MATRIX_KEPT_MIN bytes, so that sparse relevance is reduced in one go (one
# kernel call per metric) and dense relevance chunk by chunk.
MATRIX_KEPT_SHARE = 8
MATRIX_KEPT_MIN = 1 << 20


class _ChunkRecords:
    """What the metrics read of one chunk's structure (families as ``_needs`` names them)."""

    def __init__(self, data, structure, ties, targets, families):
        self.qid, self.weight, self.n_queries = data.qid, data.weight, data.n_queries
        self.stats = structure.query_stats()
        self.blocks = structure.blocks(ties) if "list" in families else None
        self.ranks = structure.ranks(targets) if "rank" in families else None
        self.items = structure.item_blocks(ties) if "items" in families else None
        self.judged = (structure.judged_blocks(ties) if "judged" in families and data.unjudged is not None
                       else None)
        records = [self.stats, self.ranks, self.items, self.judged]
        if self.blocks is not None:
            records += [self.blocks[0]] if self.blocks[0] is self.blocks[1] else list(self.blocks)
        self.nbytes = sum(value.nbytes for record in records if record is not None
                          for value in vars(record).values() if isinstance(value, np.ndarray))


class _KeptChunks:
    """The records of consecutive chunks joined, query codes shifted: a structure for ``partial_report``."""

    def __init__(self, kept, ties, targets):
        self.ties, self.targets = ties, targets
        offsets = np.cumsum([0] + [record.n_queries for record in kept[:-1]])

        def joined(name, fields=("query",)):
            records = [getattr(record, name) for record in kept]
            if records[0] is None:
                return None
            return _join([_shift(record, offset, fields) for record, offset in zip(records, offsets)])

        qid = np.concatenate([record.qid for record in kept])
        weight = None if kept[0].weight is None else np.concatenate([record.weight for record in kept])
        self.queries = _Queries(qid, weight)
        self._stats = joined("stats", ("ideal_query",))
        self._blocks = None
        if kept[0].blocks is not None:
            binary = _join([_shift(r.blocks[0], o, ("query",)) for r, o in zip(kept, offsets)])
            same = kept[0].blocks[0] is kept[0].blocks[1]
            gain_blocks = binary if same else _join([_shift(r.blocks[1], o, ("query",)) for r, o in zip(kept, offsets)])
            self._blocks = binary, gain_blocks
        self._ranks = joined("ranks")
        if self._ranks is not None:
            self._ranks.qid = qid
        self._items = joined("items")
        self._judged = joined("judged")

    def query_stats(self):
        return self._stats

    def blocks(self, ties):
        if ties != self.ties or self._blocks is None:
            raise RuntimeError(f"the matrix structure was built for ties={self.ties!r}")
        return self._blocks

    def item_blocks(self, ties):
        if ties != self.ties or self._items is None:
            raise RuntimeError(f"the matrix structure was built for ties={self.ties!r}")
        return self._items

    def judged_blocks(self, ties):
        if ties != self.ties:
            raise RuntimeError(f"the matrix structure was built for ties={self.ties!r}")
        return self._judged

    def ranks(self, targets):
        if targets != self.targets or self._ranks is None:
            raise RuntimeError(f"the matrix structure was built for targets={self.targets!r}")
        return self._ranks


@dataclass
class _Queries:
    """The queries of a group of chunks (what ``partial_report`` reads of its data)."""

    qid: np.ndarray
    weight: np.ndarray | None
    missing_judged = None

    @property
    def n_queries(self):
        return len(self.qid)


def _join_parts(parts):
    """One :class:`PartialReport` of the chunks' parts (consecutive rows of one matrix), in their order."""
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    join = np.concatenate
    weight = None if first.weight is None else join([part.weight for part in parts])
    values = {name: join([part.values[name] for part in parts]) for name in first.values}
    ranks = None
    if first.ranks is not None:
        # the targets' query column indexes the part's queries: shifted by the queries of the parts before
        offsets = np.cumsum([0] + [part.n_queries for part in parts[:-1]])
        ranks = tuple(join([part.ranks[i] + offset if i == 4 else part.ranks[i]
                            for part, offset in zip(parts, offsets)]) for i in range(len(first.ranks)))
    return PartialReport(join([part.qid for part in parts]), join([part.has_relevant for part in parts]), weight,
                         values, ranks, first.missing_qid, first.missing_has_relevant)


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


@dataclass
class PartialReport:
    """The per-query values of one part of the queries, before the summary (see :func:`reduce_partials`).

    A part holds whole queries. ``values`` has one value per query of the part for every metric (a list
    metric's value already filled under ``no_relevant``; NaN where a rank statistic has no target);
    ``ranks`` holds what the pooled rank statistics need of every target: its rank distribution, its
    query (an index into ``qid``), its number of candidates and of competing relevant candidates.
    """

    qid: np.ndarray
    has_relevant: np.ndarray
    weight: np.ndarray | None
    values: dict
    ranks: tuple | None = None  # (s, m, r, mid, query, num_candidates, num_relevant)
    missing_qid: np.ndarray | None = None
    missing_has_relevant: np.ndarray | None = None

    @property
    def n_queries(self):
        return len(self.qid)


def partial_report(structure, data, resolved, *, ties, no_relevant, targets, ap_denominator="relevant",
                   no_relevant_for=None, relevance_level=None):
    """The per-query values of the queries of one structure (one process, one partition or one batch)."""
    n_q = data.n_queries
    stats = structure.query_stats()
    has_relevant = stats.n_relevant > 0
    missing_qid, missing_has_relevant = _missing_queries(data, relevance_level)
    values = {}
    kernels = ranks = None
    rank_table = None
    for written, spec, family in resolved:
        if family == "list":
            if kernels is None:
                binary, gain_blocks = structure.blocks(ties)
                kernels = ListKernels.numpy(binary, gain_blocks, stats, n_q, ap_denominator, structure=structure,
                                            ties=ties)
            per_query = kernels.compute(spec.base, spec.k, spec.param)
            # a preset's score for a query without a relevant item may differ by metric (LightGBM, XGBoost)
            fill_policy = (no_relevant_for or {}).get(spec.base, no_relevant)
            if fill_policy in ("zero", "one") and spec.needs_relevant:
                per_query = np.where(has_relevant, per_query, 0.0 if fill_policy == "zero" else 1.0)
        else:
            if ranks is None:
                ranks = structure.ranks(targets)
                if len(ranks):
                    dist = RankDistribution.from_ranks(ranks, ties)
                    rank_table = (dist.s, dist.m, dist.r, dist.mid, ranks.query, ranks.num_candidates,
                                  ranks.num_relevant)
            if len(ranks) == 0:
                # no target in this part: as RankStats reads a query without a target (count 0, else NaN)
                per_query = np.zeros(n_q) if spec.base == "count" else np.full(n_q, np.nan)
            else:
                # Within a query the weight is constant and cancels: per-query values are unweighted,
                # so a query of weight zero still shows its own value.
                per_q_stats = RankStats(dist, np.ones(len(ranks)), ranks.query, n_q, ranks.num_candidates,
                                        ranks.num_relevant)
                per_query = per_q_stats.compute(spec.base, spec.k)
        values[written] = per_query
    if ranks is None:
        rank_table = None
    elif rank_table is None:  # rank statistics asked for, no target in this part
        empty = np.zeros(0)
        rank_table = (empty, empty, empty, empty, np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.int64),
                      np.zeros(0, dtype=np.int64))
    return PartialReport(data.qid, has_relevant, data.weight, values, rank_table, missing_qid,
                         missing_has_relevant)


def append_in_place(arr, used, values):
    """``values`` written after the first ``used`` items of ``arr`` (None: a new array), which grows by half
    its size when full, in place where it can (``ndarray.resize``, a reallocation: large blocks move
    without a copy). The caller holds no view of ``arr``. Returns the array, maybe a new one."""
    need = used + len(values)
    if arr is None:
        arr = np.empty(max(need, 1 << 12), dtype=values.dtype)
    elif np.result_type(arr.dtype, values.dtype) != arr.dtype:  # wider integers, or floats after ints
        arr = arr.astype(np.result_type(arr.dtype, values.dtype))
    if need > arr.size:
        grown = max(need, arr.size + arr.size // 2)
        if arr.dtype.hasobject:
            arr = np.concatenate([arr[:used], np.empty(grown - used, dtype=arr.dtype)])
        else:
            arr.resize(grown, refcheck=False)
    arr[used:need] = values
    return arr


class PartStore:
    """The parts of a long stream joined as they come, in arrays that grow in place.

    ``add`` appends a part's per-query values (and rank table) to one array per field, grown by
    ``ndarray.resize`` (a reallocation, which moves large blocks without copying them);
    ``finish`` gives one part, its queries sorted by id, for ``Plan.reduce(..., consume=True)``, which
    then hands the arrays to the report without copying them again. A stream of many parts so holds its
    results once, not once in the parts and once more in the report.
    """

    def __init__(self):
        self.n_queries = 0
        self.n_targets = 0
        self.arrays = {}  # field -> array with spare capacity at its end

    def _append(self, key, values, used):
        self.arrays[key] = append_in_place(self.arrays.get(key), used, values)

    def ids(self):
        """The query ids added so far, in the order added (a view)."""
        qid = self.arrays.get("qid")
        return np.zeros(0) if qid is None else qid[:self.n_queries]

    def add(self, part):
        if part.missing_qid is not None and part.missing_qid.size:
            raise InputValueError("Judged queries without candidate rows (`judged` with missing='zero') need all "
                                  "queries in one part. Got them in a split evaluation instead.")
        n, n_new = self.n_queries, part.n_queries
        if part.weight is not None and "weight" not in self.arrays:
            self._append("weight", np.ones(n), 0)
        if "weight" in self.arrays:
            self._append("weight", np.ones(n_new) if part.weight is None else part.weight, n)
        self._append("qid", part.qid, n)
        self._append("has_relevant", part.has_relevant, n)
        for name, values in part.values.items():
            self._append(("values", name), values, n)
        if part.ranks is not None:
            for i, column in enumerate(part.ranks):
                self._append(("ranks", i), column + n if i == 4 else column, self.n_targets)
            self.n_targets += len(part.ranks[0])
        self.n_queries += n_new

    def finish(self):
        """One :class:`PartialReport` of every query added, sorted by query id."""
        n, n_t = self.n_queries, self.n_targets
        arrays, self.arrays = self.arrays, {}
        for key, arr in arrays.items():
            size = n_t if isinstance(key, tuple) and key[0] == "ranks" else n
            if arr.dtype.hasobject:
                arrays[key] = arr[:size].copy()
            else:
                arr.resize(size, refcheck=False)
        qid = arrays["qid"]
        ranks = tuple(arrays[("ranks", i)] for i in range(7)) if ("ranks", 0) in arrays else None
        values = {key[1]: arr for key, arr in arrays.items() if isinstance(key, tuple) and key[0] == "values"}
        part = PartialReport(qid, arrays["has_relevant"], arrays.get("weight"), values, ranks)
        if qid.size > 1 and not bool((qid[1:] > qid[:-1]).all()):  # a stream not sorted by query id
            order = np.argsort(qid, kind="stable")
            repeated = qid[order[1:]][qid[order[1:]] == qid[order[:-1]]]
            if repeated.size:  # the stream's own check refuses this first; never a query counted twice
                raise InputValueError("Every query must lie in one part whole. Got the rows of "
                                      f"{np.unique(repeated).size} queries in several parts, e.g. qid "
                                      f"{np.unique(repeated)[:5].tolist()} instead.")
            inverse = np.empty_like(order)
            inverse[order] = np.arange(order.size)
            if ranks is not None:
                ranks = ranks[:4] + (inverse[ranks[4]],) + ranks[5:]
            part = PartialReport(qid[order], part.has_relevant[order],
                                 None if part.weight is None else part.weight[order],
                                 {name: v[order] for name, v in values.items()}, ranks)
        return part


def _by_query(rank_table):
    """The rank table with its targets in query order (stable: a query's targets keep their order).

    The pooled statistics sum over the targets in this order, so that it is canonical: the same sums,
    to the last bit, however the queries were split into parts and in whatever order the parts came.
    A part's own table (one process) is in query order already, and is returned as it is.
    """
    query = None if rank_table is None else rank_table[4]
    if query is None or bool((query[1:] >= query[:-1]).all()):
        return rank_table
    order = np.argsort(query, kind="stable")
    return tuple(column[order] for column in rank_table)


def reduce_partials(parts, resolved, *, no_relevant, params, missing="skip", no_relevant_for=None, consume=False):
    """The RankingReport of parts holding disjoint sets of whole queries.

    List metrics are weighted means of their per-query values; rank statistics are pooled over the
    targets of every part. The result does not depend on how the queries were split into parts.
    """
    if not parts:
        raise InputValueError("A split evaluation needs at least one part with rows. Got no part instead.")
    # a name written twice is read twice: a consuming reduction releases its values at its last use only
    remaining = {}
    for name, _, _ in resolved:
        remaining[name] = remaining.get(name, 0) + 1
    if len(parts) == 1:
        part = parts[0]
        qid, has_relevant, weight = part.qid, part.has_relevant, part.weight

        def evaluated_values(written, evaluated):
            remaining[written] -= 1
            if consume and remaining[written] == 0:  # the part's array itself when every query counts
                values = part.values.pop(written)
                return values if all_evaluated else values[evaluated]
            return part.values[written][evaluated]

        rank_table = _by_query(part.ranks)
        missing_qid, missing_has_relevant = part.missing_qid, part.missing_has_relevant
    else:
        sizes = [part.n_queries for part in parts]
        qid = np.concatenate([part.qid for part in parts])
        # parts of a stream sorted by query come in query order: no reordering copy of every array then
        in_order = qid.size < 2 or bool((qid[1:] > qid[:-1]).all())
        query_order = slice(None) if in_order else np.argsort(qid, kind="stable")
        if not in_order:
            qid = qid[query_order]
        if qid.size > 1 and (qid[1:] == qid[:-1]).any():
            repeated = qid[1:][qid[1:] == qid[:-1]]
            raise InputValueError("Every query must lie in one part (partition or batch) whole. Got the rows of "
                                  f"{np.unique(repeated).size} queries in several parts, e.g. qid "
                                  f"{np.unique(repeated)[:5].tolist()} instead.")
        has_relevant = np.concatenate([part.has_relevant for part in parts])[query_order]
        if all(part.weight is None for part in parts):
            weight = None
        else:
            weight = np.concatenate([np.ones(part.n_queries) if part.weight is None else part.weight
                                     for part in parts])[query_order]
        bounds = np.cumsum(sizes)[:-1]
        if consume:  # joined above: the parts' copies go
            for part in parts:
                part.qid = part.has_relevant = part.weight = None

        def evaluated_values(written, evaluated):
            """One metric's values of the evaluated queries, in query order: one copy, metric by metric."""
            remaining[written] -= 1
            release = consume and remaining[written] == 0
            if in_order:  # each part's evaluated queries, written into the result: no intermediate arrays
                out, at = None, 0
                for part, mask in zip(parts, np.split(evaluated, bounds)):
                    values = part.values.pop(written) if release else part.values[written]
                    if out is None:
                        out = np.empty(n_evaluated, dtype=values.dtype)
                    taken = values[mask]
                    out[at:at + taken.size] = taken
                    at += taken.size
                return out
            return np.concatenate([part.values[written] for part in parts])[query_order][evaluated]
        tables = [part.ranks for part in parts]
        rank_table = None
        if tables[0] is not None:
            offsets = np.cumsum([0] + sizes[:-1])
            inverse = np.arange(qid.size)
            if not in_order:
                inverse[query_order] = np.arange(qid.size)
            columns = [np.concatenate([table[i] for table in tables]) for i in range(7)]
            columns[4] = inverse[np.concatenate([table[4] + offset for table, offset in zip(tables, offsets)])]
            rank_table = _by_query(tuple(columns))
        missing_qid, missing_has_relevant = qid[:0], np.zeros(0, dtype=bool)
        if any(part.missing_qid is not None and part.missing_qid.size for part in parts):
            raise InputValueError("Judged queries without candidate rows (`judged` with missing='zero') need all "
                                  "queries in one part. Got them in a split evaluation instead.")
    n_q = qid.size
    needs_relevant = any(spec.needs_relevant for _, spec, _ in resolved)
    if missing_qid is None:
        missing_qid, missing_has_relevant = qid[:0], np.zeros(0, dtype=bool)
    if needs_relevant and no_relevant == "error" and not (has_relevant.all() and (
            missing == "skip" or missing_has_relevant.all())):
        lacking = qid[~has_relevant]
        if missing == "zero":
            lacking = np.concatenate([lacking, missing_qid[~missing_has_relevant]])
        raise InputValueError(f"Every query must have a relevant item (no_relevant='error'). Got "
                              f"{lacking.size} without one, e.g. qid {lacking[:5].tolist()} instead.")
    evaluated = has_relevant if (needs_relevant and no_relevant == "skip") else np.ones(n_q, dtype=bool)
    # Judged queries without any candidate row (missing="zero", trec_eval's -c): every list metric is 0.
    added = np.zeros(0, dtype=bool)
    if missing == "zero" and missing_qid.size:
        if weight is not None:
            raise InputValueError("`missing='zero'` adds judged queries that have no candidate row, and those have "
                                  "no sample weight. Got `sample_weight` together with missing='zero' instead.")
        added = missing_has_relevant if (needs_relevant and no_relevant == "skip") else \
            np.ones(missing_qid.size, dtype=bool)
    n_added = int(added.sum())
    if not evaluated.any() and not n_added:
        raise InputValueError("No query has a relevant item, so the metrics are undefined (`no_relevant='skip'`). "
                              "Got only queries without relevant items instead.")
    all_evaluated = bool(evaluated.all())
    n_evaluated = int(evaluated.sum())
    # without sample weights, every query weighs 1 (arrays of ones made only where needed)
    weight_out = np.ones(n_evaluated) if weight is None else (
        weight if all_evaluated else weight[evaluated])
    if not weight_out.sum() > 0 and not n_added:
        raise InputValueError("`sample_weight` must give the evaluated queries a positive total weight. Got a total "
                              "of 0 instead.")
    # the ids of the evaluated queries only, from here on: a long stream's end holds no second copy (the
    # ids of a single part not consumed are the caller's data: copied)
    qid_out = qid if all_evaluated and (len(parts) > 1 or consume) else qid[evaluated]
    del qid
    order = None
    if n_added:
        qid_out = np.concatenate([qid_out, missing_qid[added]])
        order = np.argsort(qid_out, kind="stable")
        qid_out = qid_out[order]
        weight_out = np.concatenate([weight_out, np.ones(n_added)])[order]
    pooled = None
    summary, per_query = {}, {"qid": qid_out}
    for written, spec, family in resolved:
        values_out = evaluated_values(written, evaluated)
        if family == "list":
            if n_added:
                # a judged query without candidate rows scores 0, or 1 under no_relevant="one" when it
                # has no relevant item either
                fill_policy = (no_relevant_for or {}).get(spec.base, no_relevant)
                fill = np.zeros(n_added)
                if fill_policy == "one" and spec.needs_relevant:
                    fill[~missing_has_relevant[added]] = 1.0
                values_out = np.concatenate([values_out, fill])[order]
            _check_list_values(written, spec, values_out, qid_out, params)
            value = weighted_mean(values_out, weight_out)
            no_target = False
        else:
            no_target = rank_table is None or rank_table[0].size == 0
            if no_target:
                value = np.nan
            else:
                if pooled is None:
                    s, m, r, mid, target_query, n_cand, n_rel = rank_table
                    target_weight = np.ones(s.size) if weight is None else weight[target_query]
                    pooled = RankStats(RankDistribution(s, m, r, mid), target_weight,
                                       np.zeros(s.size, dtype=np.intp), 1, n_cand, n_rel)
                value = float(pooled.compute(spec.base, spec.k)[0])
            # A query without a retrieved relevant item has no rank: NaN there, outside the pooled value.
            if n_added:
                values_out = np.concatenate([values_out, np.full(n_added, np.nan)])[order]
        if np.isnan(value):
            reason = ("no query has a retrieved relevant item to rank" if family == "rank" and no_target
                      else "no query has a defined value")
            warnings.warn(f"Metric {written!r} is undefined on this input ({reason}); it is reported as NaN.",
                          UndefinedMetricWarning, stacklevel=5)
        summary[written] = value
        per_query[written] = values_out
    return RankingReport(summary, per_query, int(evaluated.sum()) + n_added, int(n_q - evaluated.sum()) +
                         int(added.size - n_added), params, n_missing=int(missing_qid.size),
                         sample_weight=None if weight is None else weight_out)


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
                      "the mean.", UndefinedMetricWarning, stacklevel=6)
        return
    hint = (" With gain='exponential' the gains 2**rel - 1 overflow; use gain='linear' or smaller relevance "
            "grades." if params.get("gain") == "exponential" else "")
    raise InputValueError(f"Metric {written!r} must be finite for every query.{hint} Got {int(bad.sum())} non-finite "
                          f"per-query values (e.g. qid {qid[bad][:5].tolist()}) instead.")


def _positive_ints(values, n, name):
    arr = np.asarray(values)
    if arr.ndim == 0:
        arr = np.full(n, arr)
    if arr.shape != (n,) or arr.dtype.kind not in "iuf" or not np.isfinite(arr).all() or (arr < 1).any() \
            or (arr != np.round(arr)).any():
        raise InputValueError(f"`{name}` must hold one positive integer per rank ({n}). Got {arr!r} instead.")
    return arr.astype(np.int64)


def _check_possible_ranks(ranks, num_candidates, num_relevant):
    """The best of r relevant candidates among N ranks at most N - r + 1."""
    if (num_relevant > num_candidates).any():
        i = int(np.flatnonzero(num_relevant > num_candidates)[0])
        raise InputValueError("`num_relevant` must not exceed `num_candidates`. Got num_relevant="
                              f"{int(num_relevant[i])} with num_candidates={int(num_candidates[i])} at position {i} "
                              "instead.")
    worst = num_candidates - num_relevant + 1
    if (ranks > worst).any():
        i = int(np.flatnonzero(ranks > worst)[0])
        raise InputValueError("`ranks` must be possible: the best of num_relevant relevant candidates among "
                              "num_candidates ranks at most num_candidates - num_relevant + 1. Got rank "
                              f"{float(ranks[i])!r} with num_candidates={int(num_candidates[i])} and num_relevant="
                              f"{int(num_relevant[i])} at position {i} instead.")


_ADJUSTED = frozenset({"amr", "amri", "agmri", "amrr", "ahits", "zmr", "zmrr", "zgmr", "zhits"})


# --------------------------------------------------------------------------------------------
# Array API dispatch (scikit-learn's ``array_api_dispatch=True`` with torch, CuPy, array-api-strict
# scores): the matrix layouts computed in the score's namespace, on its device. Only Python floats
# (the summary) and the error messages' few numbers leave it; nothing goes through NumPy.
# --------------------------------------------------------------------------------------------
def array_namespace(y_score):
    """The namespace of ``y_score`` under Array API dispatch, None for the NumPy path (``_sklearn_compat``).

    NumPy arrays and lists are answered here without importing scikit-learn (dispatch is a
    scikit-learn setting: it cannot be on before scikit-learn is imported).
    """
    if isinstance(y_score, (np.ndarray, list, tuple)) or "sklearn" not in sys.modules:
        return None
    from ._sklearn_compat import array_namespace as namespace_of

    return namespace_of(y_score)


def _namespace_structure(data, relevance_level, gain, stable, ties, targets, families):
    if data.layout == "label index":
        return NamespaceLabelIndex(data, stable=stable)
    from ._ranks import NamespaceMatrix

    return NamespaceMatrix(data, relevance_level, gain, stable=stable, ties=ties, targets=targets,
                           families=families)


def _evaluate_in_namespace(xp, evaluation, y_true, y_score, *, qid, exclude, labels, sample_weight, judged,
                           unjudged):
    """The RankingReport of matrix-layout input in its own namespace (see :func:`evaluate`).

    ``summary`` holds Python floats, ``per_query`` arrays of the namespace (``"qid"``: the row numbers).
    """
    data = prepare_namespace(xp, y_true, y_score, qid=qid, exclude=exclude, labels=labels,
                             sample_weight=sample_weight, judged=judged, unjudged=unjudged,
                             nan_policy=evaluation.nan_policy)
    ties, resolved = evaluation.ties, evaluation.resolved
    structure = _namespace_structure(data, evaluation.relevance_level, evaluation.gain, ties == "ordinal", ties,
                                     evaluation.targets, _needs(resolved))
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
    lists = ListKernels.label_index(xp, s, m, n_cand, evaluation.ap_denominator)
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
                warnings.warn(f"Metric {written!r} is undefined for {int(xp.count_nonzero(~defined))} queries "
                              "without a non-relevant candidate; they are NaN per query and left out of the "
                              "mean.", UndefinedMetricWarning, stacklevel=4)
            kept = xp.where(defined, weight, 0.0)
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


def _evaluate_ranks_in_namespace(xp, ranks, resolved, ties, num_candidates, sample_weight, num_relevant):
    """:func:`evaluate_ranks` of ranks in another namespace than NumPy (``Ranks`` from ``compute_ranks``
    under dispatch, or a 1-D array of ranks): the same checks, the pooled statistics in the namespace."""
    from ._inputs import _weights_ns, to_namespace
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
    if any(spec.base in _ADJUSTED for _, spec, _ in resolved) and n_cand is None:
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
    from ._inputs import check_strided, to_namespace
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
