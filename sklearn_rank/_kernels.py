"""Vectorised per-query kernels: segment reductions over blocks, no Python loop over queries."""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.special import ndtri

from ._registry import list_kernel, rank_kernel
from .exceptions import InputValueError, UndefinedMetricWarning
from ._expectations import (_clip, expect_hits, expect_order_reciprocal, expect_rank, expect_reciprocal,
                            harmonic, log_expect_power, symmetric_means, variance_rank)
from ._ranks import exclusive_segment_sum, segment_starts
from ._xp import NUMPY

# scipy.stats.median_abs_deviation(scale="normal") divides by this constant, as PyKEEN does.
_MAD_SCALE = 1.0 / ndtri(0.75)  # ndtri: the standard normal quantile, scipy.stats.norm.ppf


def _segment_sum(seg, values, n):
    return np.bincount(seg, weights=values, minlength=n)


def _in_top(blocks, k_of_query):
    """Number of each block's positions inside the top k (k per query; inf for no cut-off)."""
    k = k_of_query[blocks.query]
    return np.clip(np.floor(np.minimum(k, 2.0 ** 62) - blocks.start), 0, blocks.size)


_DISCOUNT_CACHE = {}


def _cumulative_discount(n):
    """D(n) = sum_{p<=n} 1 / log2(1 + p), as a table indexed 0..n."""
    n = int(n)
    table = _DISCOUNT_CACHE.get("table")
    if table is None or table.size <= n:
        size = max(n + 1, 1024)
        table = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2, size + 1, dtype=np.float64)))))
        _DISCOUNT_CACHE["table"] = table
    return table


def ideal_dcg(query, gain, n_queries, k=None):
    """DCG of each query's gains in decreasing order (its ideal list), cut at ``k``.

    ``query`` and ``gain`` list the positive gains of every query in any order. The equal gains of a
    query fill a run of places of its ideal list, whose discounts sum to a difference of the
    cumulative table (a run of one item: its own discount); a query's runs are added one after the
    other, its largest gain first. A query's value so depends on its own gains only, not on the other
    queries of the call: a relevance matrix ranked in chunks of rows, or queries split into parts,
    give the numbers of all queries at once. The runs are counted per query and value when the gains
    take a few integer values (graded relevance, linear or exponential gain): no sort; otherwise the
    gains are sorted by query and decreasing gain.
    """
    if gain.size == 0:
        return np.zeros(n_queries)
    runs = _integer_gain_runs(query, gain, n_queries)
    if runs is None:
        order = np.lexsort((-gain, query))
        q, g = query[order], gain[order]
        new = segment_starts(q)
        new[1:] |= g[1:] != g[:-1]
        first = np.flatnonzero(new)
        runs = q[first], g[first], np.diff(np.append(first, q.size))
    run_query, run_gain, run_count = runs
    # the place of each run's first item in its query's ideal list (integers: exact)
    before = np.cumsum(run_count) - run_count
    start = before - before[_exclusive_first(run_query)]
    end = start + run_count
    cut = np.inf if k is None else float(k)
    table = _cumulative_discount(min(int(end.max()), cut))
    spread = table[np.minimum(end, cut).astype(np.int64)] - table[np.minimum(start, cut).astype(np.int64)]
    single = run_count == 1
    spread[single] = np.where(start[single] < cut, 1.0 / np.log2(start[single] + 2.0), 0.0)
    # bincount adds each query's runs in their order, from zero
    return np.bincount(run_query, weights=run_gain * spread, minlength=n_queries)


def _integer_gain_runs(query, gain, n_queries):
    """(query, gain, count) of each run of equal gains of a query, by query and decreasing gain, counted per
    query and value; None unless the gains are a few integer values (the counts' table stays small)."""
    if gain.max() > 1 << 16:
        return None
    whole = gain.astype(np.int64)
    if not np.array_equal(whole, gain):
        return None
    histogram = np.bincount(whole)
    values = np.flatnonzero(histogram)[::-1]  # decreasing
    n_values = values.size
    if n_queries * n_values > 4 * gain.size + 4096:
        return None
    column = n_values - np.cumsum(histogram > 0)  # column of each gain value, the largest first
    counts = np.bincount(query * n_values + column[whole], minlength=n_queries * n_values)
    cell = np.flatnonzero(counts)  # by query, then decreasing gain
    return cell // n_values, values[cell % n_values].astype(np.float64), counts[cell]


class ListKernels:
    """Per-query list metrics from the blocks of one tie policy."""

    def __init__(self, binary, gain_blocks, stats, n_queries, ap_denominator="relevant", structure=None,
                 ties=None):
        self.ap_denominator = ap_denominator
        self.binary = binary
        self.gain_blocks = gain_blocks
        self.stats = stats
        self.n_queries = n_queries
        # the rank structure and tie policy, for the metrics that take blocks of their own (err, judged@k)
        self.structure, self.ties = structure, ties
        self._relevant_before = None
        self._first = None

    @property
    def relevant_before(self):
        if self._relevant_before is None:
            self._relevant_before = exclusive_segment_sum(self.binary.n_rel, self.binary.query)
        return self._relevant_before

    @property
    def first(self):
        if self._first is None:
            # index of the first block holding a relevant item, per query (-1 where none)
            self._first = _first_true_per_segment(self.binary.n_rel > 0, self.binary.query, self.n_queries)
        return self._first

    def _k(self, k):
        return np.full(self.n_queries, np.inf if k is None else float(k))

    def hits_count(self, k_of_query):
        b = self.binary
        t = _in_top(b, k_of_query)
        return _segment_sum(b.query, b.n_rel * t / b.size, self.n_queries)

    # One method per list metric, named in the registry (``_registry``), each taking the cut-off k.
    def reciprocal_rank(self, k):
        return self._first_expectation(lambda s, m, r: expect_reciprocal(s, m, r, k=k))

    def hit(self, k):
        return self._first_expectation(lambda s, m, r: expect_hits(s, m, r, k))

    def precision(self, k):
        return self.hits_count(self._k(k)) / k

    def recall(self, k):
        return _divide(self.hits_count(self._k(k)), self.stats.n_relevant)

    def f1(self, k):
        return 2 * self.hits_count(self._k(k)) / (k + self.stats.n_relevant)

    def r_precision(self, k):
        n_relevant = self.stats.n_relevant
        return _divide(self.hits_count(n_relevant.astype(np.float64)), n_relevant)

    def average_precision(self, k):
        n_relevant = self.stats.n_relevant
        if self.ap_denominator == "capped":  # Spark's and LightGBM's MAP@k: min(k, relevant)
            denominator = n_relevant if k is None else np.minimum(n_relevant, k)
        elif self.ap_denominator == "retrieved":  # torchmetrics: the relevant items in the top k
            denominator = self._exact_hits_count(k)
        else:
            denominator = n_relevant
        return _divide(self._ap_sum(self._k(k)), denominator)

    def relevant_retrieved(self, k):
        return self.hits_count(self._k(k))

    def _exact_hits_count(self, k):
        """The relevant items in the top k, where no tie order can change that number."""
        b = self.binary
        t = _in_top(b, self._k(k))
        uncertain = (t > 0) & (t < b.size) & (b.n_rel > 0) & (b.n_rel < b.size)
        if uncertain.any():
            raise InputValueError("ap_denominator='retrieved' divides by the number of relevant items in the top k, "
                                  "which depends on the order of tied candidates across the cut-off; its expectation "
                                  "over tie orders has no closed form here. Choose ties='ordinal', 'optimistic' or "
                                  f"'pessimistic'. Got ties='expected' with {int(uncertain.sum())} such tie blocks "
                                  "instead.")
        return self.hits_count(self._k(k))

    def dcg(self, k):
        return self._dcg(self._k(k))

    def ndcg(self, k):
        return _divide(self._dcg(self._k(k)), self._idcg(k))

    def auc(self, k):
        return self._auc()

    def bpref(self, k):
        # trec_eval's bpref: (1/R) sum over retrieved relevant items of 1 - min(n, R) / min(N, R), n the
        # judged non-relevant items ranked above it (unjudged ones are skipped), N all judged non-relevant
        # items. Within a tie block of u judged non-relevant items, the number of them above a given
        # relevant item is uniform on 0..u under random tie orders (its place among them and itself).
        b, st = self.binary, self.stats
        n_rel = st.n_relevant
        unjudged_before = 0.0 if b.unjudged_before is None else b.unjudged_before
        unjudged_tied = 0.0 if b.unjudged is None else b.unjudged
        before = b.start - self.relevant_before - unjudged_before
        tied = b.size - b.n_rel - unjudged_tied
        r = n_rel[b.query]
        d = np.minimum(st.n_judged_nonrel, n_rel)[b.query]
        mean_min = _mean_capped(before, tied, r)
        share = np.divide(mean_min, d, out=np.zeros_like(mean_min), where=d > 0)
        return _divide(_segment_sum(b.query, b.n_rel * (1.0 - share), self.n_queries), n_rel)

    def rbp(self, k, p):
        # (1 - p) sum_i rel_i p^(i - 1); a tie block of m places from s gives each of its items the mean
        # weight (1 - p) (p^s + ... + p^(s + m - 1)) / m = p^s (1 - p^m) / m.
        b = self.binary
        log_p = np.log(p)
        weight = np.exp(b.start * log_p) * -np.expm1(b.size * log_p) / b.size
        return _segment_sum(b.query, b.n_rel * weight, self.n_queries)

    def err(self, k, max_grade=None):
        # Chapelle et al. 2009: sum_r R_r / r prod_{i<r} (1 - R_i), R = (2^g - 1) / 2^g_max, g_max the
        # fixed ``max_grade`` or else the query's largest judged grade. The items come as blocks of
        # places (one place each, except the tie blocks of ties="expected", whose exact expectation is
        # in ``_expectations``: the stopping chances of the blocks' items and their places are independent).
        items = self.structure.item_blocks(self.ties)
        # a tie block's items by grade: a canonical order for its sums (the sort that made the blocks leaves
        # tied rows in an order that depends on the other queries' rows)
        order = np.lexsort((items.grade, items.start, items.query))
        q, start, size, grade = items.query[order], items.start[order], items.size[order], items.grade[order]
        if max_grade is None:
            top = self.stats.max_grade[q]
        else:
            if grade.size and grade.max() > max_grade:
                raise InputValueError(f"err(max_grade={max_grade:g}) needs every relevance grade to be at most "
                                      f"{max_grade:g}. Got grade {float(grade.max())!r} instead.")
            top = np.full(q.size, float(max_grade))
        stop = -np.expm1(-grade * np.log(2.0)) * np.exp2(grade - top)  # (2^g - 1) / 2^top, no overflow
        if not q.size:
            return np.zeros(self.n_queries)
        # 1 - R = (2^top - 2^g + 1) / 2^top exactly: from about grade 53 on, R rounds to 1 and log1p(-R)
        # would be -inf (the query's later items unreachable, but -inf - -inf in the segment sums is NaN)
        go_on = np.exp2(-top) + (1.0 - np.exp2(grade - top))
        small = stop < 0.5
        log_go_on = np.empty_like(stop)
        log_go_on[small] = np.log1p(-stop[small])  # accurate for small stopping chances
        log_go_on[~small] = np.log(go_on[~small])  # go_on >= 2**-top > 0
        new = np.ones(q.size, dtype=bool)
        new[1:] = (q[1:] != q[:-1]) | (start[1:] != start[:-1])
        block = np.cumsum(new) - 1
        n_blocks = int(block[-1]) + 1
        block_q, block_start, block_size = q[new], start[new], size[new]
        count = np.bincount(block, minlength=n_blocks)
        # the chance of reaching each block: every item of the query's earlier blocks failed to stop
        failed = np.bincount(block, weights=log_go_on, minlength=n_blocks)
        reach = np.exp(_local_exclusive_sum(failed, block_q))
        means = symmetric_means(go_on, block, count)
        pair_block = np.repeat(np.arange(n_blocks), count)
        i = np.arange(pair_block.size) - (np.cumsum(count) - count)[pair_block] + 1
        at = (np.cumsum(count + 1) - (count + 1))[pair_block] + i
        stops_at_i = means[at - 1] - means[at]
        place = expect_order_reciprocal(block_start[pair_block], block_size[pair_block], count[pair_block], i,
                                        self._k(k)[block_q[pair_block]])
        per_block = np.bincount(pair_block, weights=stops_at_i * place, minlength=n_blocks) * reach
        return _segment_sum(block_q, per_block, self.n_queries)

    def judged(self, k):
        # judged candidates among the top k, divided by k (as p@k)
        blocks = self.structure.judged_blocks(self.ties) if self.structure is not None else None
        if blocks is None:  # every candidate is judged
            return np.minimum(self.stats.n_candidates, k) / k
        t = _in_top(blocks, self._k(k))
        return _segment_sum(blocks.query, blocks.n_rel * t / blocks.size, self.n_queries) / k

    def compute(self, base, k, param=None):
        """The per-query values of the list metric ``base`` (a registry name) at cut-off ``k``, with the
        metric's parameter ``param`` when it has one (rbp's p, err's max_grade)."""
        method = getattr(self, list_kernel(base))
        return method(k) if base not in ("rbp", "err") else method(k, param)

    def _first_expectation(self, fn):
        out = np.zeros(self.n_queries)
        has = self.first >= 0
        idx = self.first[has]
        b = self.binary
        out[has] = fn(b.start[idx], b.size[idx], b.n_rel[idx])
        return out

    def _ap_sum(self, k_of_query):
        # Expected precision at each relevant position of a block (McSherry & Najork 2008):
        # position i of the block is relevant with probability r/m, and then the expected number
        # of relevant items at or above it is c + 1 + (i - 1)(r - 1)/(m - 1).
        b = self.binary
        c = self.relevant_before
        t = _in_top(b, k_of_query)
        a_coef = b.n_rel / b.size * (c + 1)
        multi = b.size > 1
        b_coef = np.zeros_like(a_coef)
        b_coef[multi] = b.n_rel[multi] / b.size[multi] * (b.n_rel[multi] - 1) / (b.size[multi] - 1)
        contrib = np.where(t > 0, a_coef / (b.start + 1), 0.0)
        if multi.any():
            s, tm = b.start[multi], t[multi]
            contrib[multi] = ((a_coef[multi] - b_coef[multi] * (s + 1)) * (harmonic(s + tm) - harmonic(s))
                              + b_coef[multi] * tm)
        return _segment_sum(b.query, contrib, self.n_queries)

    def _dcg(self, k_of_query):
        g = self.gain_blocks
        t = _in_top(g, k_of_query)
        contrib = np.where(t > 0, g.gain / np.log2(g.start + 2), 0.0)
        multi = g.size > 1
        if multi.any():
            s = g.start[multi].astype(np.int64)
            tm = t[multi].astype(np.int64)
            table = _cumulative_discount((s + tm).max())
            contrib[multi] = g.gain[multi] / g.size[multi] * (table[s + tm] - table[s])
        return _segment_sum(g.query, contrib, self.n_queries)

    def _idcg(self, k):
        st = self.stats
        return ideal_dcg(st.ideal_query, st.ideal_gain, self.n_queries, k)

    def _auc(self):
        # Pairs (relevant, non-relevant) ordered correctly; tied pairs count half under "expected"
        # and "realistic" (the block start already carries the half for realistic blocks).
        b, st = self.binary, self.stats
        c = self.relevant_before
        n_nonrel = st.n_candidates - st.n_rel_retrieved
        nonrel_before = b.start - c
        nonrel_tied = b.size - b.n_rel
        correct = b.n_rel * (n_nonrel[b.query] - nonrel_before - nonrel_tied / 2)
        pairs = st.n_rel_retrieved * n_nonrel
        out = np.full(self.n_queries, np.nan)
        ok = pairs > 0
        out[ok] = _segment_sum(b.query, correct, self.n_queries)[ok] / pairs[ok]
        return out


def _mean_capped(before, tied, cap):
    """Mean of min(before + x, cap) over x = 0..tied (``tied`` 0 where ``before`` may be fractional)."""
    out = np.minimum(before, cap)
    many = tied > 0
    if many.any():
        c, u, r = before[many], tied[many], cap[many]

        def total(m):  # sum of min(t, r) over t = 0..m, for m >= -1
            return np.where(m <= r, m * (m + 1) / 2, r * (r + 1) / 2 + (m - r) * r)

        out[many] = (total(c + u) - total(c - 1)) / (u + 1)
    return out


def _local_exclusive_sum(values, seg):
    """For float values sorted by segment: the sum of the earlier values of the same segment, computed
    from that segment's values only (a scan by doubling), so that a query's value does not depend on
    the queries before it: a running sum over all segments, less its value at the segment's start,
    rounds by the size of the earlier segments' total (parts split differently gave other last bits).
    """
    if values.size == 0:
        return np.zeros(0)
    pos = np.arange(values.size) - _exclusive_first(seg)  # place within the segment
    inclusive = values.astype(np.float64)  # a copy
    step, longest = 1, int(pos.max())
    while step <= longest:
        at = np.flatnonzero(pos >= step)
        inclusive[at] = inclusive[at] + inclusive[at - step]  # the right side is read before the write
        step *= 2
    out = np.zeros(values.size)
    later = pos > 0
    out[later] = inclusive[np.flatnonzero(later) - 1]
    return out


def _exclusive_first(seg):
    """Index of the first element of each element's segment (seg sorted)."""
    new = segment_starts(seg)
    starts = np.flatnonzero(new)
    return starts[np.cumsum(new) - 1]


def _divide(num, den, fill=0.0):
    """num / den where den > 0, ``fill`` elsewhere."""
    out = np.full(np.shape(num), fill)
    ok = den > 0
    out[ok] = num[ok] / den[ok]
    return out


# --------------------------------------------------------------------------------------------
# Rank statistics: aggregations of per-target rank distributions within segments
# (segments = queries for per-query values, one segment for the pooled summary).
# --------------------------------------------------------------------------------------------
class RankDistribution:
    """Each target's rank as s + X, X the best of r positions among m (a point mass when m == 1)."""

    def __init__(self, s, m, r, mid):
        self.s, self.m, self.r, self.mid = s, m, r, mid

    @classmethod
    def from_ranks(cls, ranks, ties):
        if ties == "expected":
            s = ranks.optimistic - 1
            r = ranks.tied_targets.astype(np.float64)
            m = ranks.pessimistic - ranks.optimistic + r
            return cls(s, m, r, ranks.realistic)
        value = {"optimistic": ranks.optimistic, "pessimistic": ranks.pessimistic,
                 "realistic": ranks.realistic, "ordinal": ranks.ordinal}[ties]
        return cls.point(value)

    @classmethod
    def point(cls, value):
        value = np.asarray(value, dtype=np.float64)
        ones = np.ones(value.shape)
        return cls(value - 1, ones, ones, value)


class _Segments:
    """NumPy layout: targets as flat arrays with a segment id each, segments summed by ``np.bincount``
    (the array API standard has no segment reduction)."""

    def __init__(self, seg, n_seg):
        self.seg, self.n_segments = seg, n_seg

    def total(self, values):
        return np.bincount(self.seg, weights=values, minlength=self.n_segments)

    def per_target(self, values):
        return values[self.seg]

    def count(self, like):
        return np.bincount(self.seg, minlength=self.n_segments).astype(np.float64)

    def weighted_median(self, values, weight, wsum):
        # Sort by (segment, value); the median is the mean of the values where the cumulative
        # weight first reaches half and first exceeds half (the usual median for equal weights).
        order = np.lexsort((values, self.seg))
        v, sg, w_sorted = values[order], self.seg[order], weight[order]
        cw = np.cumsum(w_sorted)
        before = np.bincount(sg, weights=w_sorted, minlength=self.n_segments)
        base = np.cumsum(before) - before
        within = cw - base[sg]
        half = wsum[sg] / 2
        lo_idx = _first_true_per_segment(within >= half * (1 - 1e-12), sg, self.n_segments)
        hi_idx = _first_true_per_segment(within > half * (1 + 1e-12), sg, self.n_segments)
        out = np.full(self.n_segments, np.nan)
        ok = (lo_idx >= 0) & (wsum > 0)
        hi = np.where(hi_idx >= 0, hi_idx, lo_idx)
        out[ok] = (v[lo_idx[ok]] + v[hi[ok]]) / 2
        return out


class _Rows:
    """Layout of any namespace: targets as 2-D arrays, one row per segment, one column per slot;
    ``present`` marks the slots holding a target (None: all). Segments are summed along rows."""

    def __init__(self, xp, present):
        self.xp, self.present = xp, present

    def total(self, values):
        if self.present is not None:
            values = self.xp.where(self.present, values, 0.0)
        return self.xp.sum(values, axis=1)

    def per_target(self, values):
        return values[:, None]

    def count(self, like):
        return self.total(self.xp.ones_like(like))

    def weighted_median(self, values, weight, wsum):
        # _Segments.weighted_median per row: in increasing order of value (ties in slot order, empty
        # slots last), the mean of the values where the cumulative weight first reaches half and first
        # exceeds half; the cumulative weight never decreases, so "first" is a count.
        xp = self.xp
        n = values.shape[1]
        if n == 1:
            return xp.where(wsum > 0, values[:, 0], float("nan"))
        if self.present is not None:
            values = xp.where(self.present, values, float("inf"))
        order = xp.argsort(values, axis=1, stable=True)
        v = xp.take_along_axis(values, order, axis=1)
        cw = xp.cumulative_sum(xp.take_along_axis(weight, order, axis=1), axis=1)
        half = (wsum / 2)[:, None]
        lo = xp.count_nonzero(~(cw >= half * (1 - 1e-12)), axis=1)
        hi = xp.count_nonzero(~(cw > half * (1 + 1e-12)), axis=1)
        ok = (lo < n) & (wsum > 0)
        lo = xp.minimum(lo, n - 1)
        hi = xp.where(hi < n, hi, lo)
        at = (lambda index: xp.take_along_axis(v, xp.astype(index, xp.int64)[:, None], axis=1)[:, 0])
        return xp.where(ok, (at(lo) + at(hi)) / 2, float("nan"))


class RankStats:
    """Rank statistics of targets grouped into segments, with weights, in any array namespace.

    Each target's rank is ``dist`` (a :class:`RankDistribution`), its random baseline the best of
    ``num_relevant`` among ``num_candidates``. Built from NumPy arrays of targets and their segment ids
    ``seg`` (``n_seg`` segments); :class:`NamespaceRankStats` builds the same statistics from 2-D arrays
    of another namespace. The formulas are written once, in ``self.xp``; the layout (``_Segments``,
    ``_Rows``) gives the sums per segment and the weighted median.
    """

    def __init__(self, dist, weight, seg, n_seg, num_candidates, num_relevant):
        self._setup(NUMPY, dist, weight, _Segments(seg, n_seg), np.asarray(num_candidates, dtype=np.float64),
                    np.asarray(num_relevant, dtype=np.float64))

    def _setup(self, xp, dist, weight, layout, num_candidates, num_relevant):
        self.xp, self.dist, self.weight, self.layout = xp, dist, weight, layout
        self.wsum = layout.total(weight)
        self.count = layout.count(weight)
        self.num_candidates, self.num_relevant = num_candidates, num_relevant
        self._baselines = {}  # (base, k) -> moments: zgmr and agmri share one

    def _divide(self, num, den):
        xp = self.xp
        return xp.where(den > 0, num / xp.where(den > 0, den, 1.0), float("nan"))

    def _mean(self, values):
        return self._divide(self.layout.total(self.weight * values), self.wsum)

    def _var_of_mean(self, variances):
        return self._divide(self.layout.total(self.weight ** 2 * variances), self.wsum ** 2)

    def _share(self):
        return self._divide(self.weight, self.layout.per_target(self.wsum))

    def _weighted_median(self, values):
        return self.layout.weighted_median(values, self.weight, self.wsum)

    def _gmr(self, dist):
        xp = self.xp
        log_gmr = self.layout.total(log_expect_power(dist.s, dist.m, dist.r, self._share(), xp=xp))
        # a segment without targets has no geometric mean (not the empty product 1)
        return xp.where(self.count > 0, xp.exp(log_gmr), float("nan"))

    # One method per rank statistic, named in the registry (``_registry``), each taking the cut-off k.
    def mean_rank(self, k):
        dist = self.dist
        return self._mean(expect_rank(dist.s, dist.m, dist.r, xp=self.xp))

    def reciprocal_rank(self, k):
        dist = self.dist
        return self._mean(expect_reciprocal(dist.s, dist.m, dist.r, k=k, xp=self.xp))

    def hit(self, k):
        dist = self.dist
        return self._mean(expect_hits(dist.s, dist.m, dist.r, k, xp=self.xp))

    def geometric_mean_rank(self, k):
        return self._gmr(self.dist)

    def inverse_geometric_mean_rank(self, k):
        return 1.0 / self._gmr(self.dist)

    def harmonic_mean_rank(self, k):
        return 1.0 / self.reciprocal_rank(None)

    def inverse_arithmetic_mean_rank(self, k):
        return 1.0 / self.mean_rank(None)

    def target_count(self, k):
        return self.count

    def median_rank(self, k):
        return self._weighted_median(self.dist.mid)

    def inverse_median_rank(self, k):
        return 1.0 / self._weighted_median(self.dist.mid)

    def rank_variance(self, k):
        mid = self.dist.mid
        mean = self._mean(mid)
        return self._mean((mid - self.layout.per_target(mean)) ** 2)

    def rank_std(self, k):
        return self.xp.sqrt(self.rank_variance(k))

    def rank_mad(self, k):
        mid = self.dist.mid
        med = self._weighted_median(mid)
        return float(_MAD_SCALE) * self._weighted_median(self.xp.abs(mid - self.layout.per_target(med)))

    def compute(self, base, k):
        """The value per segment of the rank statistic ``base`` (a registry name) at cut-off ``k``."""
        name = rank_kernel(base)
        if name == "adjusted":
            return self._adjusted(base, k)
        return getattr(self, name)(k)

    def baseline(self, base, k):
        """Expectation and variance of a base statistic under uniformly random ranking."""
        if (base, k) not in self._baselines:
            self._baselines[base, k] = self._random_moments(base, k)
        return self._baselines[base, k]

    def _random_moments(self, base, k):
        # a uniformly random ranking: the best of num_relevant among num_candidates, from the top
        xp, n, r = self.xp, self.num_candidates, self.num_relevant
        zero = xp.zeros_like(n)
        if base == "mr":
            return self._mean(expect_rank(zero, n, r, xp=xp)), self._var_of_mean(variance_rank(n, r, xp=xp))
        if base == "mrr":
            e1 = expect_reciprocal(zero, n, r, xp=xp)
            e2 = expect_reciprocal(zero, n, r, power=2, xp=xp)
            return self._mean(e1), self._var_of_mean(xp.maximum(e2 - e1 ** 2, 0.0))
        if base == "hits":
            p = expect_hits(zero, n, r, k, xp=xp)
            return self._mean(p), self._var_of_mean(p * (1 - p))
        if base == "gmr":
            a = self._share()
            log_first = log_expect_power(zero, n, r, a, xp=xp)
            log_second = log_expect_power(zero, n, r, 2 * a, xp=xp)
            e = xp.exp(self.layout.total(log_first))
            # Var = E[G^2] - E[G]^2 = E[G]^2 expm1(log E[G^2] - 2 log E[G]); the difference is taken
            # per target (each is the small spread of one factor) before the sum, never between
            # the two large sums.
            spread = self.layout.total(log_second - 2 * log_first)
            return e, xp.maximum(e * e * xp.expm1(spread), 0.0)
        raise KeyError(base)

    def _adjusted(self, base, k):
        xp = self.xp
        if base in ("amr", "amri", "zmr"):
            stat, ref = self.mean_rank(None), "mr"
        elif base in ("amrr", "zmrr"):
            stat, ref = self.reciprocal_rank(None), "mrr"
        elif base in ("agmri", "zgmr"):
            stat, ref = self.geometric_mean_rank(None), "gmr"
        elif base in ("ahits", "zhits"):
            stat, ref = self.hit(k), "hits"
        else:
            raise KeyError(base)
        e, var = self.baseline(ref, k)
        if base == "amr":
            num, den = stat, e
        elif base in ("amri", "agmri"):
            # (E[M] - M) / (E[M] - 1): 1 for a perfect ranking, 0 for a random one
            num, den = e - stat, e - 1
        elif base in ("amrr", "ahits"):
            num, den = stat - e, 1 - e
        else:
            sign = -1.0 if ref in ("mr", "gmr") else 1.0
            num, den = sign * (stat - e), xp.sqrt(var)
        # x / 0 is +-inf or NaN in every namespace: undefined (the errstate also silences the namespaces
        # that compute with NumPy, such as array-api-strict)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = num / den + 0.0  # no negative zero in reports
        # Exact zero numerators (a random scorer) over zero denominators stay undefined.
        undefined = ~xp.isfinite(out) & (self.wsum > 0)
        if bool(xp.any(undefined)):
            name = base if k is None else f"{base}@{k}"
            warnings.warn(f"{name} is undefined where {self._degenerate_cause(undefined, k)}, since a random "
                          "ranking then scores the best value; it is reported as NaN there.",
                          UndefinedMetricWarning, stacklevel=4)
        return xp.where(xp.isfinite(out), out, float("nan"))

    def _degenerate_cause(self, undefined, k):
        """Why the random baseline of the ``undefined`` segments has no spread, in words."""
        xp = self.xp
        # the best of r relevant candidates among N takes one of N - r + 1 ranks
        possible = self.num_candidates - self.num_relevant + 1
        spread = self.layout.total(xp.astype((possible > 1) & (self.weight > 0), xp.float64)) > 0
        causes = []
        if bool(xp.any(undefined & ~spread)):
            causes.append("every target has a single possible rank (one candidate)")
        if bool(xp.any(undefined & spread)) and k is None:
            causes.append("the random baseline has no measurable spread")
        elif bool(xp.any(undefined & spread)):
            # only a cut-off can make a baseline with several possible ranks certain
            weighted = (self.weight > 0) & self.layout.per_target(undefined)
            most = int(xp.max(xp.where(weighted, possible, 0.0)))
            causes.append(f"k={k} is at least the number of candidates of every target (at most {most} "
                          "possible ranks)")
        return " and where ".join(causes)


class NamespaceRankStats(RankStats):
    """:class:`RankStats` of 2-D arrays of any namespace: one row per segment, one column per slot.

    ``s``, ``m``, ``r`` place each target (s + X, X the best of r positions among m), ``mid`` is its
    mid rank, ``weight`` its weight, ``num_candidates`` and ``num_relevant`` its random baseline;
    ``present`` marks the slots holding a target (None: all). Per query, a row per query (one column
    for one target per query, or the candidate slots of a relevance matrix's row); pooled, one row
    of every target. ``compute`` returns one value per row.
    """

    def __init__(self, xp, s, m, r, mid, weight, num_candidates, num_relevant, present=None):
        if present is not None:  # harmless values in the empty slots
            s, m, r, mid = (xp.where(present, v, d) for v, d in ((s, 0.0), (m, 1.0), (r, 1.0), (mid, 1.0)))
            num_candidates = xp.where(present, num_candidates, 1.0)
            num_relevant = xp.where(present, num_relevant, 1.0)
            weight = xp.where(present, weight, 0.0)
        self._setup(xp, RankDistribution(s, m, r, mid), weight, _Rows(xp, present), num_candidates, num_relevant)


def _first_true_per_segment(mask, seg, n):
    """Index of the first True of each segment (seg sorted), -1 where none."""
    idx = np.flatnonzero(mask)
    owner = seg[idx]
    # idx is increasing and seg sorted: the first True of a segment is where owner changes.
    # Each segment is written once (NumPy leaves the winner of repeated fancy writes open).
    first = segment_starts(owner)
    out = np.full(n, -1, dtype=np.intp)
    out[owner[first]] = idx[first]
    return out



def _device(x):
    from ._sklearn_compat import array_device

    return array_device(x)


class NamespaceListKernels:
    """:class:`ListKernels` of the label index in the namespace: one relevant candidate of gain 1 per
    query, after ``s`` others in a tie block of ``size`` among ``num_candidates``, so each list metric
    is an elementwise function of them (``_in_top``, ``_ap_sum``, ``_dcg``, ... with r = 1)."""

    def __init__(self, xp, s, size, num_candidates, ap_denominator="relevant"):
        self.xp, self.s, self.size, self.n = xp, s, size, num_candidates
        self.ap_denominator = ap_denominator

    def _in_top(self, k):
        if k is None:
            return self.size
        return _clip(self.xp, self.xp.floor(min(float(k), 2.0 ** 62) - self.s), 0.0, self.size)

    def hits_count(self, k):
        return self._in_top(k) / self.size

    def reciprocal_rank(self, k):
        return expect_reciprocal(self.s, self.size, 1, k=k, xp=self.xp)

    def hit(self, k):
        return expect_hits(self.s, self.size, 1, k, xp=self.xp)

    def precision(self, k):
        return self.hits_count(k) / k

    def recall(self, k):
        return self.hits_count(k)

    def relevant_retrieved(self, k):
        return self.hits_count(k)

    def f1(self, k):
        return 2 * self.hits_count(k) / (k + 1.0)

    def r_precision(self, k):
        return self.hits_count(1)

    def average_precision(self, k):
        # _ap_sum with one relevant item: (H(s + t) - H(s)) / m, 1 / (s + 1) for a point
        xp, s, m = self.xp, self.s, self.size
        t = self._in_top(k)
        value = xp.where(m > 1, (harmonic(s + t, xp=xp) - harmonic(s, xp=xp)) / m,
                         xp.where(t > 0, 1.0 / (s + 1), 0.0))
        if self.ap_denominator != "retrieved":
            return value  # one relevant item: min(k, 1) = 1
        uncertain = (t > 0) & (t < m)
        if bool(xp.any(uncertain)):
            raise InputValueError("ap_denominator='retrieved' divides by the number of relevant items in the top k, "
                                  "which depends on the order of tied candidates across the cut-off; its expectation "
                                  "over tie orders has no closed form here. Choose ties='ordinal', 'optimistic' or "
                                  f"'pessimistic'. Got ties='expected' with {int(xp.count_nonzero(uncertain))} such "
                                  "tie blocks instead.")
        retrieved = self.hits_count(k)
        return xp.where(retrieved > 0, value / xp.where(retrieved > 0, retrieved, 1.0), 0.0)

    def dcg(self, k):
        # _dcg with gain 1: 1 / log2(s + 2) for a point, (D(s + t) - D(s)) / m over a tie block
        xp, s, m = self.xp, self.s, self.size
        t = self._in_top(k)
        point = xp.where(t > 0, 1.0 / xp.log2(s + 2), 0.0)
        if not bool(xp.any(m > 1)):
            return point
        top = int(xp.max(xp.where(m > 1, s + t, 0.0)))
        positions = xp.arange(2, top + 2, dtype=xp.float64, device=_device(s))
        table = xp.concat([xp.zeros(1, dtype=xp.float64, device=_device(s)),
                           xp.cumulative_sum(1.0 / xp.log2(positions))])
        start = xp.astype(xp.where(m > 1, s, 0.0), xp.int64)
        end = xp.astype(xp.where(m > 1, s + t, 0.0), xp.int64)
        return xp.where(m > 1, (xp.take(table, end) - xp.take(table, start)) / m, point)

    def ndcg(self, k):
        return self.dcg(k)  # the ideal list holds the one relevant item first: IDCG = 1

    def auc(self, k):
        xp = self.xp
        n_nonrel = self.n - 1
        correct = n_nonrel - self.s - (self.size - 1) / 2
        return xp.where(n_nonrel > 0, correct / xp.where(n_nonrel > 0, n_nonrel, 1.0), float("nan"))

    def bpref(self, k):
        # ListKernels.bpref with R = 1 and N = num_candidates - 1 judged non-relevant candidates
        xp = self.xp
        before, tied = self.s, self.size - 1
        d = xp.minimum(self.n - 1, 1.0)

        def total(count):  # sum of min(t, 1) over t = 0..count, for count >= -1
            return xp.where(count <= 1, count * (count + 1) / 2, 1.0 + (count - 1))

        mean_min = xp.where(tied > 0, (total(before + tied) - total(before - 1)) / (tied + 1),
                            xp.minimum(before, 1.0))
        share = xp.where(d > 0, mean_min / xp.where(d > 0, d, 1.0), 0.0)
        return 1.0 - share

    def rbp(self, k, p):
        log_p = math.log(p)
        return self.xp.exp(self.s * log_p) * -self.xp.expm1(self.size * log_p) / self.size

    def err(self, k, max_grade=None):
        # one item of grade 1: it stops the cascade with chance (2 - 1) / 2**top, at 1 / its rank
        xp = self.xp
        top = 1.0 if max_grade is None else float(max_grade)
        if max_grade is not None and 1.0 > max_grade:
            raise InputValueError(f"err(max_grade={max_grade:g}) needs every relevance grade to be at most "
                                  f"{max_grade:g}. Got grade 1.0 instead.")
        go_on = 2.0 ** -top + (1.0 - 2.0 ** (1.0 - top))
        s, m = self.s, self.size
        k_value = math.inf if k is None else float(k)
        point = xp.where(s + 1 <= k_value, 1.0 / (s + 1), 0.0)
        last = xp.maximum(xp.floor(xp.minimum(xp.full_like(s, k_value), s + m)), s)
        uniform = (harmonic(last, xp=xp) - harmonic(s, xp=xp)) / m
        return (1.0 - go_on) * xp.where(m == 1, point, uniform)

    def judged(self, k):
        return self.xp.minimum(self.n, float(k)) / k

    def compute(self, base, k, param=None):
        method = getattr(self, list_kernel(base))
        return method(k) if base not in ("rbp", "err") else method(k, param)


class NamespaceDenseLists:
    """:class:`ListKernels` on a chunk of rows of a relevance matrix, in the namespace.

    A tie policy's blocks are laid out as matrices (one row per query, one column per slot; a slot
    without a block has ``n_rel`` and ``gain`` 0, which adds nothing to any sum): ``binary`` and
    ``gain_blocks`` map ``s``, ``size``, ``n_rel``, ``gain``, ``before`` (relevant candidates ranked
    before the block) to such matrices; ``stats`` maps ``n_candidates``, ``n_relevant`` and
    ``ideal`` (each row's positive gains in decreasing order) to per-row arrays. Each metric is an
    elementwise function of a block summed along its row.
    """

    def __init__(self, xp, binary, gain_blocks, stats, ap_denominator="relevant"):
        self.xp, self.b, self.g, self.stats = xp, binary, gain_blocks, stats
        self.ap_denominator = ap_denominator

    def _in_top(self, blocks, k):
        if k is None:
            return blocks["size"]
        k = min(float(k), 2.0 ** 62) if isinstance(k, (int, float)) else self.xp.minimum(k[:, None], 2.0 ** 62)
        return _clip(self.xp, self.xp.floor(k - blocks["s"]), 0.0, blocks["size"])

    def _divide(self, num, den):
        return self.xp.where(den > 0, num / self.xp.where(den > 0, den, 1.0), 0.0)

    def hits_count(self, k):
        b = self.b
        return self.xp.sum(b["n_rel"] * self._in_top(b, k) / b["size"], axis=1)

    def _first(self, fn):
        xp, b = self.xp, self.b
        has = xp.any(b["n_rel"] > 0, axis=1)
        idx = xp.argmax(xp.astype(b["n_rel"] > 0, xp.int8), axis=1)[:, None]
        at = (lambda name: xp.take_along_axis(b[name], idx, axis=1)[:, 0])
        return xp.where(has, fn(at("s"), at("size"), xp.where(has, at("n_rel"), 1.0)), 0.0)

    def reciprocal_rank(self, k):
        return self._first(lambda s, m, r: expect_reciprocal(s, m, r, k=k, xp=self.xp))

    def hit(self, k):
        return self._first(lambda s, m, r: expect_hits(s, m, r, k, xp=self.xp))

    def precision(self, k):
        return self.hits_count(k) / k

    def recall(self, k):
        return self._divide(self.hits_count(k), self.stats["n_relevant"])

    def relevant_retrieved(self, k):
        return self.hits_count(k)

    def f1(self, k):
        return 2 * self.hits_count(k) / (k + self.stats["n_relevant"])

    def r_precision(self, k):
        n_relevant = self.stats["n_relevant"]
        return self._divide(self.hits_count(n_relevant), n_relevant)

    def average_precision(self, k):
        xp, b = self.xp, self.b
        n_relevant = self.stats["n_relevant"]
        if self.ap_denominator == "capped":
            denominator = n_relevant if k is None else xp.minimum(n_relevant, float(k))
        elif self.ap_denominator == "retrieved":
            t = self._in_top(b, k)
            uncertain = (t > 0) & (t < b["size"]) & (b["n_rel"] > 0) & (b["n_rel"] < b["size"])
            if bool(xp.any(uncertain)):
                raise InputValueError(
                    "ap_denominator='retrieved' divides by the number of relevant items in the top k, "
                    "which depends on the order of tied candidates across the cut-off; its "
                    "expectation over tie orders has no closed form here. Choose ties='ordinal', "
                    "'optimistic' or 'pessimistic'. Got ties='expected' with "
                    f"{int(xp.count_nonzero(uncertain))} such tie blocks instead.")
            denominator = self.hits_count(k)
        else:
            denominator = n_relevant
        # ListKernels._ap_sum (McSherry & Najork 2008)
        s, m, r, c = b["s"], b["size"], b["n_rel"], b["before"]
        t = self._in_top(b, k)
        a_coef = r / m * (c + 1)
        multi = m > 1
        b_coef = xp.where(multi, r / m * (r - 1) / xp.where(multi, m - 1, 1.0), 0.0)
        single = xp.where(t > 0, a_coef / (s + 1), 0.0)
        spread = (a_coef - b_coef * (s + 1)) * (harmonic(s + t, xp=xp) - harmonic(s, xp=xp)) + b_coef * t
        return self._divide(xp.sum(xp.where(multi, spread, single), axis=1), denominator)

    def _dcg(self, k):
        xp, g = self.xp, self.g
        t = self._in_top(g, k)
        point = xp.where(t > 0, g["gain"] / xp.log2(g["s"] + 2), 0.0)
        multi = (g["size"] > 1) & (g["gain"] > 0)
        if not bool(xp.any(multi)):
            return xp.sum(point, axis=1)
        top = int(xp.max(xp.where(multi, g["s"] + t, 0.0)))
        device = _device(t)
        positions = xp.arange(2, top + 2, dtype=xp.float64, device=device)
        table = xp.concat([xp.zeros(1, dtype=xp.float64, device=device), xp.cumulative_sum(1.0 / xp.log2(positions))])
        start = xp.astype(xp.where(multi, g["s"], 0.0), xp.int64)
        end = xp.astype(xp.where(multi, g["s"] + t, 0.0), xp.int64)
        flat = (lambda index: xp.reshape(xp.take(table, xp.reshape(index, (-1,))), index.shape))
        spread = g["gain"] / g["size"] * (flat(end) - flat(start))
        return xp.sum(xp.where(multi, spread, point), axis=1)

    def dcg(self, k):
        return self._dcg(k)

    def ndcg(self, k):
        xp = self.xp
        ideal = self.stats["ideal"]
        n = ideal.shape[1]
        position = xp.arange(n, dtype=xp.float64, device=_device(ideal))[None, :]
        discount = 1.0 / xp.log2(position + 2.0)
        if k is not None:
            discount = xp.where(position < k, discount, 0.0)
        return self._divide(self._dcg(k), xp.sum(ideal * discount, axis=1))

    def auc(self, k):
        xp, b, st = self.xp, self.b, self.stats
        n_rel = st["n_relevant"]
        n_nonrel = st["n_candidates"] - n_rel
        correct = b["n_rel"] * (n_nonrel[:, None] - (b["s"] - b["before"]) - (b["size"] - b["n_rel"]) / 2)
        pairs = n_rel * n_nonrel
        return xp.where(pairs > 0, xp.sum(correct, axis=1) / xp.where(pairs > 0, pairs, 1.0), float("nan"))

    def bpref(self, k):
        xp, b, st = self.xp, self.b, self.stats
        n_rel = st["n_relevant"]
        before = b["s"] - b["before"]
        tied = b["size"] - b["n_rel"]
        r = n_rel[:, None]
        d = xp.minimum(st["n_candidates"] - n_rel, n_rel)[:, None]

        def total(count):  # sum of min(t, r) over t = 0..count, for count >= -1
            return xp.where(count <= r, count * (count + 1) / 2, r * (r + 1) / 2 + (count - r) * r)

        mean_min = xp.where(tied > 0, (total(before + tied) - total(before - 1)) / (tied + 1), xp.minimum(before, r))
        share = xp.where(d > 0, mean_min / xp.where(d > 0, d, 1.0), 0.0)
        return self._divide(xp.sum(b["n_rel"] * (1.0 - share), axis=1), n_rel)

    def rbp(self, k, p):
        xp, b = self.xp, self.b
        log_p = math.log(p)
        weight = xp.exp(b["s"] * log_p) * -xp.expm1(b["size"] * log_p) / b["size"]
        return xp.sum(b["n_rel"] * weight, axis=1)

    def judged(self, k):
        return self.xp.minimum(self.stats["n_candidates"], float(k)) / k  # every candidate is judged

    def compute(self, base, k, param=None):
        method = getattr(self, list_kernel(base))
        return method(k) if base not in ("rbp", "err") else method(k, param)
