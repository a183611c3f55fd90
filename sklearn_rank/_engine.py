"""The one internal entry to the metric engine.

Every public entry point (the metric functions and :func:`~sklearn_rank.evaluate`, the scorers and
``RankingEvaluator`` through them, ``io.evaluate_trec`` and the command line) calls :func:`evaluate`,
:func:`compute_ranks` or :func:`evaluate_ranks` here. Each validates its input into the canonical
per-query form (``_inputs``), builds the rank structure of that layout once (``_ranks``) and runs the
vectorised kernels over it (``_lists``, ``_rank_stats``); the result is a ``RankingReport`` (``_report``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
import warnings

import numpy as np

from ._inputs import (AP_DENOMINATORS, DISCOUNTS, GAINS, IDEAL_DCGS, MISSING, NAN_POLICIES, NO_RELEVANT,
                      PRECISION_DENOMINATORS, RECALL_DENOMINATORS, STOP_PROBABILITIES, TARGETS, TIE_POLICIES,
                      GroupedData, GroupedRows, RelevanceMatrix, check_exponential_gain, check_option, prepare,
                      weights_per_row)
from ._checks import check_relevance_level
from ._definitions import Definitions, kernel_ties
from ._lists import MICRO_METRICS
from ._label_index import LabelIndexStructure
from ._matrix import MatrixStructure
from ._namespace import array_namespace, evaluate_in_namespace, evaluate_ranks_in_namespace, namespace_structure
from ._namespace_inputs import prepare_namespace
from ._parts import join_parts, partial_report, reduce_partials
from ._rank_stats import ADJUSTED, RankDistribution, RankStats
from ._ranks import GroupedStructure, Ranks
from ._top_counts import metrics_horizon
from ._threads import (PART_ROWS, PARTS_PER_JOB, NotInRuns, check_n_jobs, map_in_order, queries_in, query_ranges,
                       row_ranges, rows_in, rows_pass_checks)
from ._conventions import check_preset_metrics, default_options, normalise_convention, resolve as resolve_convention
from ._report import RankingReport
from ._registry import DUAL_FAMILY, base_spec, display_name as _display_name, get_metric, normalise_name, with_k
from .exceptions import InputTypeError, InputValueError, UndefinedMetricWarning


_D = default_options(ties="expected", gain="linear", no_relevant="skip", targets="first",
                     ap_denominator="relevant", nan_policy="raise", missing="skip", precision_denominator="k",
                     recall_denominator="relevant", discount="log2", ideal_dcg="relevant", stop_probability="graded",
                     average="macro", all_relevant="skip", ap_ties="follow")

# The options that choose between a metric's published definitions (``_lists.Definitions``), with their
# values: every entry point takes them as keywords and hands them to :func:`plan`.
DEFINITION_OPTIONS = dict(ap_denominator=AP_DENOMINATORS, precision_denominator=PRECISION_DENOMINATORS,
                          recall_denominator=RECALL_DENOMINATORS, discount=DISCOUNTS, ideal_dcg=IDEAL_DCGS,
                          stop_probability=STOP_PROBABILITIES, average=("macro", "micro"),
                          all_relevant=("skip", "zero", "one"), ap_ties=("follow", "max"))
DEFINITION_DEFAULTS = {name: str(_D[name]) for name in DEFINITION_OPTIONS}
# The options of :func:`plan` that hold for every part of an evaluation alike: what the split back ends
# (``evaluate_batches``, ``evaluate_blocks``, Dask, Spark) forward.
PLAN_OPTIONS = ("ties", "relevance_level", "gain", "no_relevant", "targets", "nan_policy", "convention",
                *DEFINITION_OPTIONS)


def evaluate(y_true, y_score, *, metrics, qid=None, ties=_D["ties"], exclude=None, labels=None,
             relevance_level=None, gain=_D["gain"], no_relevant=_D["no_relevant"], sample_weight=None,
             targets=_D["targets"], judged=None, missing=_D["missing"], ap_denominator=_D["ap_denominator"],
             nan_policy=_D["nan_policy"], convention=None, report_params=None, unjudged=None, n_jobs=None,
             precision_denominator=_D["precision_denominator"], recall_denominator=_D["recall_denominator"],
             discount=_D["discount"], ideal_dcg=_D["ideal_dcg"], stop_probability=_D["stop_probability"],
             average=_D["average"], all_relevant=_D["all_relevant"], ap_ties=_D["ap_ties"]):
    """All ``metrics`` from one rank computation: a RankingReport (see ``sklearn_rank.evaluate``).

    ``convention`` names a preset (``_conventions.PRESETS``) for the options left at their defaults.
    ``report_params`` overrides entries of the report's ``params`` (``evaluate_trec`` reports its
    ``ties="trec"``, which the engine computes as ``"ordinal"`` on rows in trec_eval's order).
    """
    evaluation = plan(metrics=metrics, ties=ties, relevance_level=relevance_level, gain=gain,
                      no_relevant=no_relevant, targets=targets, missing=missing, ap_denominator=ap_denominator,
                      nan_policy=nan_policy, convention=convention, report_params=report_params,
                      judged=judged is not None, precision_denominator=precision_denominator,
                      recall_denominator=recall_denominator, discount=discount, ideal_dcg=ideal_dcg,
                      stop_probability=stop_probability, average=average, all_relevant=all_relevant,
                      ap_ties=ap_ties)
    n_jobs = check_n_jobs(n_jobs)
    xp = array_namespace(y_score)
    if xp is not None:  # scikit-learn's array_api_dispatch, y_score of another library than NumPy
        reports = []
        for each in evaluation.by_ties():  # (a loop, not a comprehension: warnings point at the caller's line)
            reports.append(evaluate_in_namespace(xp, each, y_true, y_score, qid=qid, exclude=exclude, labels=labels,
                                                 sample_weight=sample_weight, judged=judged, unjudged=unjudged,
                                                 families=_needs(each.resolved)))
        return reports[0] if len(reports) == 1 else _joined_reports(reports, evaluation)
    part = evaluation.part(y_true, y_score, qid=qid, exclude=exclude, labels=labels, sample_weight=sample_weight,
                           judged=judged, unjudged=unjudged, n_jobs=n_jobs)
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
    definitions: Definitions
    nan_policy: str
    relevance_level: float | None
    missing: str
    no_relevant_for: dict
    params: dict
    # the tie policy of some list metrics where a preset's peer ranks them otherwise (registry base names)
    ties_for: dict = field(default_factory=dict)

    def by_ties(self):
        """This plan as one plan per tie policy in force (a preset's ``ties_for``, a definition's
        ``_definitions.kernel_ties``), each with its own metrics: one plan, itself, when every metric is
        ranked under ``ties``."""
        groups = {}
        for item in self.resolved:
            spec = item[1]
            ties = kernel_ties(spec.base, spec.k, self.definitions, self.ties_for.get(spec.base, self.ties)) if (
                item[2] == "list") else self.ties
            groups.setdefault(ties, []).append(item)
        if list(groups) == [self.ties]:
            return [self]
        return [replace(self, resolved=items, ties=ties, ties_for={}) for ties, items in groups.items()]

    def part(self, y_true, y_score, *, qid=None, exclude=None, labels=None, sample_weight=None, judged=None,
             unjudged=None, n_jobs=1):
        """The :class:`PartialReport` of the rows of some whole queries; ``n_jobs`` threads rank parts of
        them (see ``_threads``), with the same numbers as one."""
        plans = self.by_ties()
        if len(plans) == 1 and plans[0] is not self:  # every metric ranked under another policy than ties
            return plans[0].part(y_true, y_score, qid=qid, exclude=exclude, labels=labels,
                                 sample_weight=sample_weight, judged=judged, unjudged=unjudged, n_jobs=n_jobs)
        if len(plans) > 1:  # the metrics of each tie policy ranked apart, their values joined
            parts = [each.part(y_true, y_score, qid=qid, exclude=exclude, labels=labels,
                               sample_weight=sample_weight, judged=judged, unjudged=unjudged, n_jobs=n_jobs)
                     for each in plans]
            return replace(parts[0], values={name: value for part in parts for name, value in part.values.items()},
                           ranks=next((part.ranks for part in parts if part.ranks is not None), None))
        stable = self.ties == "ordinal"
        data = _validated(y_true, y_score, qid, exclude, labels, sample_weight, judged, self.gain, unjudged,
                          self.nan_policy, defer_row_checks=True)
        options = dict(ties=self.ties, no_relevant=self.no_relevant, targets=self.targets,
                       definitions=self.definitions, no_relevant_for=self.no_relevant_for,
                       relevance_level=self.relevance_level)
        if isinstance(data, RelevanceMatrix):  # a chunk of rows at a time, then their values joined
            structure = MatrixStructure(data, self.relevance_level, self.gain, stable, self.ties, self.targets,
                                        _needs(self.resolved), n_jobs=n_jobs, horizon=metrics_horizon(self.resolved))
            return structure.partial_report(self.resolved, **options)

        def one(span):  # a part is cut from the data on the thread that evaluates it
            queries = rows_in(data, span) if isinstance(data, GroupedRows) else queries_in(data, span)
            if isinstance(queries, GroupedData) and not queries.rows_checked and not rows_pass_checks(queries):
                raise _RowsFailChecks
            structure = _rank_structure(queries, self.relevance_level, self.gain, stable)
            return partial_report(structure, queries, self.resolved, **options)

        try:
            if isinstance(data, GroupedRows):  # parts cut where the query id changes, factorized on their threads
                spans = row_ranges(data, _n_parts(data.score.shape[0], n_jobs), decreasing=n_jobs > 1)
                if spans is not None:
                    try:
                        return join_parts(map_in_order(one, spans, n_jobs))
                    except NotInRuns:
                        pass
                data = data.factorized()  # the ids are not in increasing runs: factorized whole
            n_parts = _n_parts(data.score.shape[0], n_jobs) if isinstance(data, GroupedData) else (
                n_jobs * PARTS_PER_JOB if n_jobs > 1 else 1)
            return join_parts(map_in_order(one, query_ranges(data, n_parts), n_jobs))
        except _RowsFailChecks:  # the whole input's checks, in their order: the error of one part
            _validated(y_true, y_score, qid, exclude, labels, sample_weight, judged, self.gain, unjudged,
                       self.nan_policy)
            raise

    def reduce(self, parts, consume=False):
        """The report of ``parts``; with ``consume``, each part's per-query values are released as they are
        joined (the parts cannot be reduced again), which bounds the memory of a long stream's end."""
        return reduce_partials(list(parts), self.resolved, no_relevant=self.no_relevant, params=self.params,
                               missing=self.missing, no_relevant_for=self.no_relevant_for, consume=consume)


def plan(*, metrics, ties=_D["ties"], relevance_level=None, gain=_D["gain"], no_relevant=_D["no_relevant"],
         targets=_D["targets"], missing=_D["missing"], ap_denominator=_D["ap_denominator"], nan_policy=_D["nan_policy"],
         convention=None, report_params=None, judged=False, precision_denominator=_D["precision_denominator"],
         recall_denominator=_D["recall_denominator"], discount=_D["discount"], ideal_dcg=_D["ideal_dcg"],
         stop_probability=_D["stop_probability"], average=_D["average"], all_relevant=_D["all_relevant"],
         ap_ties=_D["ap_ties"]):
    """The :class:`Plan` of ``metrics`` under these options (checked here, before any data is read)."""
    written = dict(ap_denominator=ap_denominator, precision_denominator=precision_denominator,
                   recall_denominator=recall_denominator, discount=discount, ideal_dcg=ideal_dcg,
                   stop_probability=stop_probability, average=average, all_relevant=all_relevant,
                   ap_ties=ap_ties)
    options, aliases = resolve_convention(convention, dict(
        ties=ties, gain=gain, no_relevant=no_relevant, targets=targets, nan_policy=nan_policy, missing=missing,
        **written))
    ties, gain, no_relevant, targets, nan_policy, missing = (options[name] for name in (
        "ties", "gain", "no_relevant", "targets", "nan_policy", "missing"))
    level = check_options(ties, no_relevant, gain, targets, relevance_level)
    check_option(missing, "missing", MISSING)
    for name, allowed in DEFINITION_OPTIONS.items():
        check_option(options[name], name, allowed)
    definitions = Definitions(**{name: options[name] for name in DEFINITION_OPTIONS})
    definitions = replace(definitions, by_metric=tuple(
        (base, replace(definitions, **values)) for base, values in options["definitions_for"].items() if values))
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    resolved = resolve_metrics(metrics, targets, aliases)
    check_preset_metrics(convention, resolved)
    for written, spec, family in resolved:
        if spec.base == "auc" and definitions.for_metric("auc").auc_labels == "binary" and gain == "binary":
            raise InputValueError(
                f"{written!r} under convention={normalise_convention(convention)!r} reproduces the peer's AUC of "
                "labels 0 and 1 only, checked on the gains; gain='binary' turns every label into 0 or 1 and would "
                "hide the others. Leave gain to the convention. Got gain='binary' instead.")
        if definitions.for_metric(spec.base).average == "micro" and (
                family != "list" or spec.base not in MICRO_METRICS):
            raise InputValueError(
                f"average='micro' pools the numerators and denominators of the count metrics "
                f"({', '.join(MICRO_METRICS)}); {written!r} is a mean of per-query values only. Evaluate it in "
                f"a call without average='micro'. Got metric {written!r} instead.")
    params = dict(ties=ties, targets=targets, gain=gain, relevance_level=level, no_relevant=no_relevant)
    for name in DEFINITION_OPTIONS:  # reported when they differ from the default
        if options[name] != _D[name]:
            params[name] = options[name]
    if convention is not None:
        params["convention"] = normalise_convention(convention)
    if nan_policy != "raise":
        params["nan_policy"] = nan_policy
    if judged:
        params["missing"] = missing
    if report_params:
        params.update(report_params)
    ties_for = {base: policy for base, policy in options["ties_for"].items() if policy != ties}
    if ties_for:
        params["ties_for"] = ties_for
    return Plan(resolved, ties, gain, no_relevant, targets, definitions, nan_policy, level, missing,
                options["no_relevant_for"], params, ties_for)


def _joined_reports(reports, evaluation):
    """One report of the reports of :meth:`Plan.by_ties` (the same queries), in the plan's metric order."""
    summary = {name: value for report in reports for name, value in report.summary.items()}
    per_query = {name: value for report in reports for name, value in report.per_query.items()}
    order = [written for written, _, _ in evaluation.resolved]
    first = reports[0]
    return RankingReport({name: summary[name] for name in order},
                         {"qid": per_query.pop("qid"), **{name: per_query[name] for name in order}},
                         first.n_queries, first.n_skipped, evaluation.params, n_missing=first.n_missing,
                         sample_weight=first.sample_weight)


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
        return namespace_structure(data, level, "linear", True, None, targets, ("rank",)).ranks(targets)
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
        return evaluate_ranks_in_namespace(xp, ranks, resolved, ties, num_candidates, sample_weight, num_relevant)
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
    needs_candidates = any(spec.base in ADJUSTED for _, spec, _ in resolved)
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
    base, k, param = (tuple(aliases[head]) + (None,))[:3] if isinstance(aliases[head], tuple) else (
        aliases[head], None, None)
    read = with_k(base_spec(base), spec.k if spec.k is not None else k)
    # the parameter written in the name, else the peer's (LensKit's RBP patience), else the registry's
    if "(" in text.partition("@")[0]:
        param = spec.param
    if param is None:
        return read
    return replace(read, param=param, name=_display_name(base, read.k, param))


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
    return ({"items"} if bases & {"err", "pfound"} else set()) | ({"judged"} if "judged" in bases else set())


def _structure(y_true, y_score, qid, exclude, labels, sample_weight, judged, relevance_level, gain, stable,
               ties=None, targets=None, families=("list", "rank"), unjudged=None, nan_policy="raise"):
    """Validate, then build the rank structure; ``stable`` keeps input order among ties (ordinal ranks).

    A relevance matrix is ranked a chunk of whole rows at a time (:class:`MatrixStructure`), so that memory
    follows the chunk, not the matrix; its data is returned as it is.
    """
    data = _validated(y_true, y_score, qid, exclude, labels, sample_weight, judged, gain, unjudged, nan_policy)
    if isinstance(data, RelevanceMatrix):
        return data, MatrixStructure(data, relevance_level, gain, stable, ties, targets, families)
    return data, _rank_structure(data, relevance_level, gain, stable)


def _n_parts(n_rows, n_jobs):
    """The number of parts of grouped rows. On one thread, parts of about PART_ROWS rows, which sort in
    cache. On threads, a few parts per thread, of up to n_jobs times that on average: each part's
    Python-level calls hold the GIL (4 million rows on two threads: 8 parts about 5% faster than 16),
    a multiple of n_jobs."""
    if n_jobs == 1:
        return max(1, n_rows // PART_ROWS)
    n_parts = max(n_jobs * PARTS_PER_JOB, n_rows // (PART_ROWS * n_jobs))
    return -(-n_parts // n_jobs) * n_jobs


class _RowsFailChecks(RuntimeError):
    """A part of grouped rows failed the checks ``prepare(defer_row_checks=True)`` left to the parts."""

    def __init__(self):
        super().__init__("Internal error: a part of the rows failed the checks that the whole input passed. "
                         "Please report it.")


def _validated(y_true, y_score, qid, exclude, labels, sample_weight, judged, gain, unjudged, nan_policy,
               defer_row_checks=False):
    """The checked data of any layout (``prepare``), with the exponential gain's overflow check;
    ``defer_row_checks`` see ``prepare`` (not with the exponential gain, whose check reads the rows)."""
    data = prepare(y_true, y_score, qid=qid, exclude=exclude, labels=labels, sample_weight=sample_weight,
                   judged=judged, unjudged=unjudged, nan_policy=nan_policy,
                   defer_row_checks=defer_row_checks and gain != "exponential")
    if gain == "exponential" and isinstance(data, RelevanceMatrix):
        check_exponential_gain(data.grades())
    elif gain == "exponential" and isinstance(data, GroupedData):
        check_exponential_gain(data.rel, data.judged_rel)
    return data


def _rank_structure(data, relevance_level, gain, stable):
    """The rank structure of grouped rows (one sort) or of a label index (counts)."""
    if isinstance(data, GroupedData):
        return GroupedStructure(data, relevance_level, gain, stable=stable)
    return LabelIndexStructure(data, stable=stable)


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


