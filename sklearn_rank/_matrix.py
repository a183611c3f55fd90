"""The relevance-matrix layout (one row of candidates per query), ranked a chunk of whole rows at a time.

:class:`MatrixStructure` (NumPy) ranks each chunk of rows as grouped rows and reduces it to its
per-query values (or its targets' ranks) before the next, so that memory follows the score matrix,
not the share of relevant cells; :class:`NamespaceMatrix` does the same in another array namespace,
sorting each chunk's rows in place of the grouped sort. Chunks are sized by :func:`matrix_chunk_rows`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
import math
import warnings

import numpy as np

from ._inputs import ALL_EXCLUDED, gain_of
from ._lists import DENOMINATOR, ListKernels, undefined_auc
from ._matrix_counts import COUNTED_CHUNK, counted_structure
from ._namespace_counts import block_bounds, counted_items, counting_chunk, exclusive_cumulative
from ._namespace_inputs import namespace_chunk
from ._parts import join_parts, partial_report
from ._threads import imap_in_order, map_in_order
from ._rank_stats import NamespaceRankStats
from ._ranks import GroupedStructure, namespace_ranks
from ._registry import list_kernel
from ._report import RankingReport
from .exceptions import InputTypeError, InputValueError, UndefinedMetricWarning

# Bytes of temporaries per entry of a chunk of a relevance matrix ranked as grouped rows (float64 copies
# of its scores and grades, query codes, the sort order, the tie blocks of a dense chunk, the blocks of
# a tie policy): 150-200 measured with three cells in four relevant under every policy, list metrics and
# rank statistics (issue 21); ERR's per-item records add up to 150 more.
MATRIX_ENTRY_BYTES = 200
# Entries of the smallest chunk (its temporaries a few MB): the per-chunk costs of a small matrix stay small.
MATRIX_MIN_ENTRIES = 1 << 14


def matrix_chunk_rows(n_columns, entries, score_nbytes=None):
    """Whole rows of a matrix processed at once: about ``entries`` entries (at least one row).

    With ``score_nbytes`` (the size of the score matrix), fewer when the chunk's temporaries,
    ``MATRIX_ENTRY_BYTES`` per entry, would outgrow the score matrix itself (down to
    ``MATRIX_MIN_ENTRIES`` entries): then the peak memory of a matrix processed chunk by chunk stays a
    small multiple of its scores, whatever the matrix's size and the share of relevant cells.
    """
    if score_nbytes is not None:
        entries = min(entries, max(MATRIX_MIN_ENTRIES, int(score_nbytes) // MATRIX_ENTRY_BYTES))
    return max(1, int(entries) // max(int(n_columns), 1))


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

    def __init__(self, matrix, relevance_level, gain, stable, ties, targets, families, n_jobs=1, horizon=None):
        self.matrix, self.relevance_level, self.gain, self.stable = matrix, relevance_level, gain, stable
        self.ties, self.targets, self.families = ties, targets, families
        self.n_jobs, self.horizon = n_jobs, horizon

    def row_ranges(self, lo=0, hi=None):
        """(lo, hi) of each chunk of rows of the grouped structure, from row ``lo`` to ``hi``."""
        from . import _inputs

        n_queries, n_candidates = self.matrix.score.shape
        hi = n_queries if hi is None else hi
        step = matrix_chunk_rows(n_candidates, _inputs.MATRIX_CHUNK, self.matrix.score.nbytes)
        return [(start, min(hi, start + step)) for start in range(lo, hi, step)]

    def structure(self, data):
        return GroupedStructure(data, self.relevance_level, self.gain, stable=self.stable)

    def chunks(self, build=None):
        """``build(data, structure)`` (default: the pair itself) of each chunk of rows with a candidate, in row
        order: ranked by counting where it applies (few gain items: chunks of about ``COUNTED_CHUNK`` cells,
        a copy of their scores the largest temporary), else by the grouped structure's sort (its own chunks,
        within the counted chunk's rows). With ``n_jobs``, that many chunks at a time on threads."""
        build = build or (lambda data, structure: (data, structure))
        n_queries, n_candidates = self.matrix.score.shape
        entries = max(MATRIX_MIN_ENTRIES, min(COUNTED_CHUNK, self.matrix.score.size // (8 * self.n_jobs)))
        step = matrix_chunk_rows(n_candidates, entries)
        ranges = [(lo, min(n_queries, lo + step)) for lo in range(0, n_queries, step)]
        counted = imap_in_order(lambda bounds: self._counted(*bounds, build), ranges, self.n_jobs)
        for (lo, hi), built in zip(ranges, counted):
            if built is not None:
                yield built
                continue
            # declined: the sort, one of its chunks at a time (their records are yielded before the next
            # is made: the budget of kept records applies between them)
            sorted_ranges = self.row_ranges(lo, hi)
            for start in range(0, len(sorted_ranges), self.n_jobs):
                yield from (built for built in map_in_order(lambda bounds: self._sorted(*bounds, build),
                                                            sorted_ranges[start:start + self.n_jobs],
                                                            self.n_jobs) if built is not None)

    def _counted(self, lo, hi, build):
        counted = counted_structure(self.matrix, lo, hi, self.relevance_level, self.gain, self.stable,
                                    self.horizon)
        return None if counted is None else build(*counted)

    def _sorted(self, lo, hi, build):
        data = self.matrix.grouped(lo, hi)
        return None if data is None else build(data, self.structure(data))  # None: every candidate excluded

    def groups(self):
        """:class:`_KeptChunks` of consecutive chunks, each group's records within the budget (but one chunk)."""
        budget = max(self.matrix.score.nbytes // MATRIX_KEPT_SHARE, MATRIX_KEPT_MIN)
        kept = []
        # each chunk's structure, and its data, go once its records are made (on its thread)
        for records in self.chunks(lambda data, structure: _ChunkRecords(data, structure, self.ties, self.targets,
                                                                         self.families)):
            kept.append(records)
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
        return join_parts(parts)

    def ranks(self, targets):
        if targets != self.targets:
            raise RuntimeError(f"the matrix structure was built for targets={self.targets!r}")
        ranks, qids, offset = [], [], 0
        for data, structure in self.chunks():
            if data is not None:
                ranks.append(_shift(structure.ranks(targets), offset, ("query",)))
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




class NamespaceMatrix:
    """The ranks of a relevance matrix's targets, in the score's namespace (``compute_ranks``).

    A chunk of rows with few gain items is ranked by counting (``_namespace_counts``, with the counting
    kernel of the NumPy path): only its gain items, laid out one column per item. Otherwise each piece of
    whole rows is sorted row by row by decreasing score (ties in input order), the
    removed candidates (``exclude``, NaN under ``nan_policy="omit"``) moved behind the kept ones
    by a second, stable sort. A tie block starts where the score changes; the start of each
    position's block is looked up among the compacted block starts, and counts of relevant
    candidates before and inside a block are differences of a row's cumulative count. The same
    quantities as :class:`GroupedStructure`'s blocks, laid out as a matrix: no segment reduction.
    Metrics of this layout are computed with NumPy only (an error under dispatch).
    """

    def __init__(self, data, relevance_level, gain, stable=True, ties=None, targets=None, families=("rank",),
                 horizon=None):
        self.xp, self.data, self.relevance_level, self.gain = data.xp, data, relevance_level, gain
        self.horizon = horizon

    def _pieces(self, ordinal):
        """Chunks of rows ``(lo, score, grades, removed candidates, counted)``, NaN checked: a chunk's gain
        items ranked by counting (``counted``, a :class:`~._namespace_counts.CountedItems`; ``ordinal``:
        with the input order of ties), else the chunk cut into pieces for the sort (``counted`` None)."""
        xp, data = self.xp, self.data
        # a sorted piece holds about a dozen float64 and int64 matrices (orders, tie blocks, cumulative
        # counts, the blocks of a tie policy): an eighth of the label index's chunk
        step = matrix_chunk_rows(data.score.shape[1], namespace_chunk(data.device) // 8)
        for lo, score, rel, drop in self._rows():
            counted = counted_items(xp, score, rel, drop, self.relevance_level, self.gain, ordinal, self.horizon)
            if counted is not None:
                yield lo, score, rel, drop, counted
                continue
            for start in range(0, score.shape[0], step):
                stop = min(score.shape[0], start + step)
                yield lo + start, score[start:stop, ...], rel[start:stop, ...], drop[start:stop, ...], None

    def _rows(self):
        """Chunks of rows: (lo, score, relevance grades, removed candidates), NaN checked."""
        from ._inputs import nan_message

        xp, data = self.xp, self.data
        n_q, n_c = data.score.shape
        step = matrix_chunk_rows(n_c, counting_chunk(data.device))
        for lo in range(0, n_q, step):
            hi = min(n_q, lo + step)
            score = data.score[lo:hi, ...]
            rel = data.true[lo:hi, ...]
            is_rel = rel >= self.relevance_level if self.relevance_level is not None else rel > 0
            drop = xp.isnan(score)
            if data.exclude is not None:
                drop = drop & ~data.exclude[lo:hi, ...]
            if bool(xp.any(drop)):
                if data.nan_policy != "omit":
                    row = lo + int(xp.nonzero(xp.any(drop, axis=1))[0][0])
                    raise InputValueError(nan_message(f"a NaN score in row {row}"))
                if bool(xp.any(drop & is_rel)):
                    raise InputValueError(
                        "`y_score` must not be NaN for a query's own relevant candidate: "
                        "nan_policy='omit' removes NaN-scored candidates as `exclude` does. Got a NaN "
                        "score for a relevant item instead.")
            if data.exclude is not None:
                drop = drop | data.exclude[lo:hi, ...]
            yield lo, score, rel, drop

    def _sorted(self, score, drop, tie_key=None):
        """Each row's order by decreasing score (then increasing ``tie_key``, then input order), the
        removed candidates last; the number of kept candidates per row."""
        xp = self.xp
        if tie_key is None:
            order = xp.argsort(-score, axis=1, stable=True)
        else:  # two stable sorts: by the tie key, then by decreasing score
            order = xp.argsort(tie_key, axis=1, stable=True)
            by_score = xp.argsort(-xp.take_along_axis(score, order, axis=1), axis=1, stable=True)
            order = xp.take_along_axis(order, by_score, axis=1)
        behind = xp.argsort(xp.astype(xp.take_along_axis(drop, order, axis=1), xp.int8), axis=1, stable=True)
        return xp.take_along_axis(order, behind, axis=1), xp.astype(xp.count_nonzero(~drop, axis=1), xp.int64)

    def _tie_blocks(self, sc, n_keep):
        """Per sorted position: its tie block's number, start and end (the removed candidates a block)."""
        xp = self.xp
        h, n_c = sc.shape
        device = self.data.device
        position = xp.arange(n_c, dtype=xp.int64, device=device)[None, :]
        new = xp.concat([xp.ones((h, 1), dtype=xp.bool, device=device), sc[:, 1:] != sc[:, :-1]], axis=1)
        new = new | (position == n_keep[:, None])
        block, start, end = block_bounds(xp, new)
        return new, block, start, end, position

    def _cumulative(self, values):
        """Exclusive cumulative sums along rows, one column longer: column j sums entries before j."""
        return exclusive_cumulative(self.xp, values, self.data.device)

    def _gains(self, grade):
        return gain_of(self.xp, grade, self.gain)

    def report(self, evaluation):
        """The RankingReport of ``evaluation``'s metrics (``_engine._evaluate_in_namespace``)."""
        xp, data = self.xp, self.data
        for written, spec, family in evaluation.resolved:
            cascade = spec.base in ("err", "pfound")  # per-item grades: NumPy's rank structure
            if family == "list" and (cascade or not hasattr(ListKernels, list_kernel(spec.base))):
                raise InputTypeError(
                    f"Under array_api_dispatch, {spec.name!r} of the relevance-matrix layout (2-D "
                    "`y_true`) is computed with NumPy only (the other metrics, and compute_ranks, run "
                    "in the namespace); pass NumPy arrays (for a tensor: `.cpu().numpy()`). Got metric "
                    f"{written!r} with `y_score` of type {type(data.score).__name__} instead.")
        if self.gain == "exponential" and bool(xp.any(data.true >= 1024)):
            raise InputValueError(
                "`gain='exponential'` uses 2**rel - 1, which overflows for relevance of 1024 or more; "
                "use gain='linear' for such grades. Got maximum relevance "
                f"{float(xp.max(data.true))!r} instead.")
        # a name written twice is computed once (its values are the same)
        ranked = list({written: spec for written, spec, family in evaluation.resolved if family == "rank"}.items())
        listed = list({written: spec for written, spec, family in evaluation.resolved if family == "list"}.items())
        columns, targets = {}, {}
        for lo, score, rel, drop, counted in self._pieces(evaluation.ties == "ordinal" or bool(ranked)):
            kernels, n_rel, n_keep = self._chunk_kernels(score, rel, drop, evaluation, counted)
            columns.setdefault("__has__", []).append(n_rel > 0)
            columns.setdefault("__present__", []).append(n_keep > 0)
            for written, spec in listed:
                columns.setdefault(written, []).append(kernels.compute(spec.base, spec.k, spec.param))
                if evaluation.definitions.for_metric(spec.base).average == "micro":
                    columns.setdefault(DENOMINATOR + written, []).append(kernels.denominator(spec.base, spec.k))
            if not ranked:
                continue
            is_rel = rel >= self.relevance_level if self.relevance_level is not None else rel > 0
            records = self._targets(score, is_rel, drop, evaluation.targets, lo, counted)
            # per query: the query's own targets, unweighted (the weight of a query cancels in it)
            s, m, r, mid = _rank_distribution(xp, records, evaluation.ties)
            per_query = NamespaceRankStats(xp, s, m, r, mid, xp.ones_like(s), records["n_cand"],
                                           records["num_relevant"], present=records["present"])
            for written, spec in ranked:
                columns.setdefault(written, []).append(per_query.compute(spec.base, spec.k))
            for name, value in _flatten_targets(xp, records).items():
                targets.setdefault(name, []).append(value)
        joined = {name: (parts[0] if len(parts) == 1 else xp.concat(parts)) for name, parts in columns.items()}
        pooled = {}
        if ranked:
            flat = {name: (parts[0] if len(parts) == 1 else xp.concat(parts)) for name, parts in targets.items()}
            if flat["s"].shape[0]:
                weight = data.weight if data.weight is not None else xp.ones(data.n_queries, dtype=xp.float64,
                                                                             device=data.device)
                s, m, r, mid = _rank_distribution(xp, flat, evaluation.ties)
                stats = NamespaceRankStats(xp, *(v[None, :] for v in (s, m, r, mid, xp.take(weight, flat["query"]),
                                                                      flat["n_cand"], flat["num_relevant"])))
                pooled = {written: float(stats.compute(spec.base, spec.k)[0]) for written, spec in ranked}
            else:
                pooled = {written: None for written, _ in ranked}  # no target at all
        return _namespace_list_report(xp, data, joined, evaluation, pooled)

    def _chunk_kernels(self, score, rel, drop, evaluation, counted):
        xp, ties = self.xp, evaluation.ties
        if counted is not None:  # few gain items: ranked by counting
            binary, gain_blocks = counted.blocks(ties)
            kernels = ListKernels.rows(xp, binary, gain_blocks, counted.stats(), evaluation.definitions)
            return kernels, counted.n_relevant, counted.n_keep
        as_float = (lambda x: xp.astype(x, xp.float64))
        order, n_keep = self._sorted(score, drop)
        sc = xp.take_along_axis(score, order, axis=1)
        grade = xp.take_along_axis(rel, order, axis=1)
        kept = xp.arange(score.shape[1], device=self.data.device)[None, :] < n_keep[:, None]
        is_rel = (grade >= self.relevance_level if self.relevance_level is not None else grade > 0) & kept
        gains = xp.where(kept, self._gains(grade), 0.0)
        positive = is_rel if self.relevance_level is None else gains > 0
        gains = xp.where(positive, gains, 0.0)
        new, block, start, end, position = self._tie_blocks(sc, n_keep)
        cum_rel = self._cumulative(as_float(is_rel))
        n_rel = cum_rel[:, -1]
        take = (lambda x, index: xp.take_along_axis(x, index, axis=1))
        rel_before = take(cum_rel, start)
        rel_in_block = take(cum_rel, end) - rel_before
        ones = xp.ones_like(gains)
        pos = as_float(position) + xp.zeros_like(gains)
        stats = dict(n_candidates=as_float(n_keep), n_relevant=n_rel, ideal=xp.sort(gains, axis=1, descending=True))
        if ties == "expected":
            cum_gain = self._cumulative(gains)
            record = new & kept
            blocks = dict(s=pos, size=xp.where(record, as_float(end - start), 1.0),
                          n_rel=xp.where(record, rel_in_block, 0.0),
                          gain=xp.where(record, take(cum_gain, end) - take(cum_gain, start), 0.0), before=rel_before)
            return ListKernels.rows(xp, blocks, blocks, stats, evaluation.definitions), n_rel, n_keep
        if ties == "realistic":
            size = as_float(end - start)
            rel_rank = cum_rel[:, 1:] - rel_before  # 1-based place of a relevant candidate among its block's
            binary = dict(s=as_float(start) + (size - rel_in_block) / 2 + rel_rank - 1, size=ones,
                          n_rel=as_float(is_rel), gain=gains, before=cum_rel[:, :-1])
            # the gain items of a block by decreasing gain (ties in order), at the middle places of the block
            by_gain = xp.argsort(-gains, axis=1, stable=True)
            grouped = xp.take_along_axis(by_gain, xp.argsort(take(block, by_gain), axis=1, stable=True), axis=1)
            cum_positive = self._cumulative(as_float(positive))
            n_gain = take(cum_positive, end) - take(cum_positive, start)
            g_start, g_size, g_gain = take(as_float(start), grouped), take(size, grouped), take(gains, grouped)
            gain_rank = pos - g_start + 1
            gain_blocks = dict(s=g_start + (g_size - take(n_gain, grouped)) / 2 + gain_rank - 1, size=ones,
                               n_rel=take(as_float(is_rel), grouped), gain=g_gain, before=xp.zeros_like(gains))
            return ListKernels.rows(xp, binary, gain_blocks, stats, evaluation.definitions), n_rel, n_keep
        if ties in ("optimistic", "pessimistic"):
            # relevant (higher graded) candidates first, or last, among the tied ones
            order, _ = self._sorted(score, drop, tie_key=-rel if ties == "optimistic" else rel)
            grade = xp.take_along_axis(rel, order, axis=1)
            is_rel = (grade >= self.relevance_level if self.relevance_level is not None else grade > 0) & kept
            gains = xp.where(kept, self._gains(grade), 0.0)
            positive = is_rel if self.relevance_level is None else gains > 0
            gains = xp.where(positive, gains, 0.0)
            cum_rel = self._cumulative(as_float(is_rel))
        blocks = dict(s=pos, size=ones, n_rel=as_float(is_rel), gain=gains, before=cum_rel[:, :-1])
        return ListKernels.rows(xp, blocks, blocks, stats, evaluation.definitions), n_rel, n_keep

    def ranks(self, targets):
        xp = self.xp
        columns = {}
        for lo, score, rel, drop, counted in self._pieces(True):
            is_rel = rel >= self.relevance_level if self.relevance_level is not None else rel > 0
            for name, value in _flatten_targets(xp, self._targets(score, is_rel, drop, targets, lo, counted)).items():
                columns.setdefault(name, []).append(value)
        joined = {name: (parts[0] if len(parts) == 1 else xp.concat(parts)) for name, parts in columns.items()}
        return namespace_ranks(xp, joined["s"], joined["m"], joined["r"], joined["ordinal"], joined["n_cand"],
                                joined["num_relevant"], joined["query"], self.data.qid)

    def _targets(self, score, is_rel, drop, targets, lo, counted=None):
        """The targets of a chunk of rows as matrices, one row per query, ``present`` marking the slots
        holding a target: one slot per query (its best-ranked relevant candidate) under
        ``targets="first"``, every sorted position (the relevant ones present) under ``"all"``."""
        xp = self.xp
        if counted is not None:  # few gain items: ranked by counting
            return counted.targets(targets, lo)
        h, n_c = score.shape
        device = self.data.device
        order, n_keep = self._sorted(score, drop)
        sc = xp.take_along_axis(score, order, axis=1)
        rel = xp.astype(xp.take_along_axis(is_rel, order, axis=1), xp.int64)
        _, _, start, end, position = self._tie_blocks(sc, n_keep)
        cum_rel = self._cumulative(rel)  # cum_rel[:, j]: relevant candidates before j
        rel_before_block = xp.take_along_axis(cum_rel, start, axis=1)
        rel_in_block = xp.take_along_axis(cum_rel, end, axis=1) - rel_before_block
        n_rel = cum_rel[:, n_c]
        to_float = (lambda x: xp.astype(x, xp.float64))
        rows = xp.arange(lo, lo + h, dtype=xp.int64, device=device)[:, None]
        if targets == "all":
            # each relevant candidate against the non-relevant ones: its block without the relevant ones
            zeros = xp.zeros((h, n_c), dtype=xp.float64, device=device)
            return dict(s=to_float(start - rel_before_block), m=to_float((end - start) - rel_in_block) + 1,
                        r=zeros + 1, ordinal=to_float(position - cum_rel[:, :n_c]) + 1,
                        n_cand=zeros + to_float(n_keep - n_rel + 1)[:, None], num_relevant=zeros + 1,
                        query=rows + xp.zeros((h, n_c), dtype=xp.int64, device=device), present=rel > 0)
        # "first": the tie block of each query's best-ranked relevant candidate
        first = xp.argmax(rel, axis=1)[:, None]  # the first relevant position (ties in input order)
        at_first = (lambda x: to_float(xp.take_along_axis(x, first, axis=1)))
        return dict(s=at_first(start), m=at_first(end - start), r=at_first(rel_in_block),
                    ordinal=to_float(first) + 1, n_cand=to_float(n_keep)[:, None], num_relevant=to_float(n_rel)[:, None],
                    query=rows, present=(n_rel > 0)[:, None])


def _flatten_targets(xp, records):
    """The present targets of :meth:`NamespaceMatrix._targets`, row after row, as 1-D arrays."""
    at = xp.nonzero(xp.reshape(records["present"], (-1,)))[0]
    return {name: xp.take(xp.reshape(value, (-1,)), at) for name, value in records.items() if name != "present"}


def _rank_distribution(xp, records, ties):
    """(s, m, r, mid) of targets under ``ties``, as ``RankDistribution.from_ranks`` reads ``Ranks``."""
    optimistic = records["s"] + 1
    pessimistic = records["s"] + records["m"] - records["r"] + 1
    realistic = (optimistic + pessimistic) / 2
    if ties == "expected":
        return records["s"], records["m"], records["r"], realistic
    value = {"optimistic": optimistic, "pessimistic": pessimistic, "realistic": realistic,
             "ordinal": records["ordinal"]}[ties]
    ones = xp.ones_like(value)
    return value - 1, ones, ones, value


def _namespace_list_report(xp, data, columns, evaluation, pooled):
    """The report of per-query values in the namespace, as ``partial_report`` and ``reduce_partials``
    make it: the ``no_relevant`` policy, skipped queries, weighted means of the list metrics; the rank
    statistics' summaries are ``pooled`` (None: no target to rank)."""
    resolved, no_relevant = evaluation.resolved, evaluation.no_relevant
    present = columns["__present__"]
    if not bool(xp.any(present)):
        raise InputValueError(ALL_EXCLUDED)
    kept = xp.nonzero(present)[0]  # a query whose every candidate was removed is dropped
    pick = (lambda values: xp.take(values, kept))
    has_relevant = pick(columns["__has__"])
    qid = pick(data.qid)
    needs_relevant = any(spec.needs_relevant for _, spec, _ in resolved)
    if needs_relevant and no_relevant == "error" and not bool(xp.all(has_relevant)):
        lacking = xp.take(qid, xp.nonzero(~has_relevant)[0])
        raise InputValueError(f"Every query must have a relevant item (no_relevant='error'). Got {lacking.shape[0]} "
                              f"without one, e.g. qid {[int(lacking[i]) for i in range(min(5, lacking.shape[0]))]} "
                              "instead.")
    evaluated = has_relevant if (needs_relevant and no_relevant == "skip") else xp.ones_like(has_relevant)
    if not bool(xp.any(evaluated)):
        raise InputValueError("No query has a relevant item, so the metrics are undefined (`no_relevant='skip'`). "
                              "Got only queries without relevant items instead.")
    rows = xp.nonzero(evaluated)[0]
    weight = (xp.ones(rows.shape[0], dtype=xp.float64, device=data.device) if data.weight is None
              else xp.take(pick(data.weight), rows))
    if not float(xp.sum(weight)) > 0:
        raise InputValueError("`sample_weight` must give the evaluated queries a positive total weight. Got a total "
                              "of 0 instead.")
    summary, per_query = {}, {"qid": xp.take(qid, rows)}
    for written, spec, family in resolved:
        values = pick(columns[written])
        if family == "rank":
            value = pooled[written]
            if value is None or math.isnan(value):
                reason = ("no query has a retrieved relevant item to rank" if value is None
                          else "no query has a defined value")
                warnings.warn(f"Metric {written!r} is undefined on this input ({reason}); it is reported as NaN.",
                              UndefinedMetricWarning, stacklevel=5)
                value = float("nan")
            summary[written] = value
            per_query[written] = xp.take(values, rows)
            continue
        fill_policy = (evaluation.no_relevant_for or {}).get(spec.base, no_relevant)
        if fill_policy in ("zero", "one") and spec.needs_relevant:
            values = xp.where(has_relevant, values, 0.0 if fill_policy == "zero" else 1.0)
        values = xp.take(values, rows)
        finite = xp.isfinite(values)
        if not bool(xp.all(finite)):
            n_bad = int(xp.count_nonzero(~finite))
            if spec.base == "auc" and bool(xp.all(finite | xp.isnan(values))):
                warnings.warn(undefined_auc(written, spec.k, n_bad), UndefinedMetricWarning, stacklevel=5)
            else:
                raise InputValueError(f"Metric {written!r} must be finite for every query. Got {n_bad} non-finite "
                                      "per-query values instead.")
        defined = ~xp.isnan(values)
        # average="micro": weighed by each query's denominator (the sum of the counts over the sum of those)
        weigh = weight if DENOMINATOR + written not in columns else weight * xp.take(
            pick(columns[DENOMINATOR + written]), rows)
        total = float(xp.sum(xp.where(defined, weigh, 0.0)))
        value = (float(xp.sum(xp.where(defined, values, 0.0) * weigh)) / total if total > 0 else float("nan"))
        if math.isnan(value):
            warnings.warn(f"Metric {written!r} is undefined on this input (no query has a defined value); it is "
                          "reported as NaN.", UndefinedMetricWarning, stacklevel=5)
        summary[written] = value
        per_query[written] = values
    n_present = int(kept.shape[0])
    return RankingReport(summary, per_query, int(rows.shape[0]), n_present - int(rows.shape[0]), evaluation.params,
                         sample_weight=None if data.weight is None else weight)
