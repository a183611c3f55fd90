"""Parts: the per-query values of one structure (a process, partition, batch or chunk of whole queries),
and the reduction of parts into one report.

:func:`partial_report` computes a part's per-query values with the kernels (``_lists``, ``_rank_stats``)
and keeps what the pooled rank statistics need of each target; :func:`reduce_partials` joins the parts
(``PartStore``) into the summary of a ``RankingReport``, whatever the partitioning.
"""

from __future__ import annotations

from dataclasses import dataclass
import warnings

import numpy as np

from ._lists import DEFAULT_DEFINITIONS, DENOMINATOR, ListKernels, undefined_auc
from ._rank_stats import RankDistribution, RankStats
from ._report import RankingReport, weighted_mean
from .exceptions import InputValueError, UndefinedMetricWarning


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


def partial_report(structure, data, resolved, *, ties, no_relevant, targets, definitions=DEFAULT_DEFINITIONS,
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
                kernels = ListKernels.numpy(binary, gain_blocks, stats, n_q, definitions, structure=structure,
                                            ties=ties)
            per_query = kernels.compute(spec.base, spec.k, spec.param)
            # a preset's score for a query without a relevant item may differ by metric (LightGBM, XGBoost)
            fill_policy = (no_relevant_for or {}).get(spec.base, no_relevant)
            if fill_policy in ("zero", "one") and spec.needs_relevant:
                per_query = np.where(has_relevant, per_query, 0.0 if fill_policy == "zero" else 1.0)
            if definitions.for_metric(spec.base).average == "micro":  # the weights of its pooled mean
                values[DENOMINATOR + written] = kernels.denominator(spec.base, spec.k)
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
    # a micro-averaged metric's per-query denominators, read with its values
    micro = {name for name in remaining if DENOMINATOR + name in parts[0].values}
    remaining.update({DENOMINATOR + name: remaining[name] for name in micro})
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
            if written in micro:  # the sum of the counts over the sum of the denominators
                if n_added:
                    raise InputValueError(f"average='micro' needs the denominator of every query; the judged "
                                          f"queries without candidate rows (missing='zero') have none. Got "
                                          f"{written!r} with missing='zero' instead.")
                value = weighted_mean(values_out, weight_out * evaluated_values(DENOMINATOR + written, evaluated))
            else:
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
        warnings.warn(undefined_auc(written, spec.k, int(bad.sum()), f" (e.g. qid {qid[bad][:5].tolist()})"),
                      UndefinedMetricWarning, stacklevel=6)
        return
    hint = (" With gain='exponential' the gains 2**rel - 1 overflow; use gain='linear' or smaller relevance "
            "grades." if params.get("gain") == "exponential" else "")
    raise InputValueError(f"Metric {written!r} must be finite for every query.{hint} Got {int(bad.sum())} non-finite "
                          f"per-query values (e.g. qid {qid[bad][:5].tolist()}) instead.")


def join_parts(parts):
    """One :class:`PartialReport` of parts of consecutive queries (a matrix's chunks of rows, ``n_jobs``'s
    parts), in their order."""
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
