"""Rank statistics: aggregations of per-target rank distributions within segments, in any array namespace.

Segments are queries for per-query values and one segment for the pooled summary. Each target's rank is
a :class:`RankDistribution` (``s + X``, X the best of ``r`` positions among ``m``); :class:`RankStats` holds
the formulas (mean rank, MRR, hits@k, the geometric and harmonic means, median, variance, MAD, and the
adjusted and z-scored forms against a random ranking), written once in ``xp``. The layout gives the
sums per segment and the weighted median: ``_Segments`` for NumPy (flat targets, ``np.bincount``: the
standard has no segment reduction), ``_Rows`` for any namespace (one row per segment).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import ndtri

from ._expectations import expect_hits, expect_rank, expect_reciprocal, log_expect_power, variance_rank
from ._registry import rank_kernel
from ._segments import first_true_per_segment
from ._xp import NUMPY
from .exceptions import UndefinedMetricWarning

# The rank statistics measured against a random ranking: they need each target's number of candidates.
ADJUSTED = frozenset({"amr", "amri", "agmri", "amrr", "ahits", "zmr", "zmrr", "zgmr", "zhits"})

# scipy.stats.median_abs_deviation(scale="normal") divides by this constant, as PyKEEN does.
_MAD_SCALE = 1.0 / ndtri(0.75)  # ndtri: the standard normal quantile, scipy.stats.norm.ppf


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
        lo_idx = first_true_per_segment(within >= half * (1 - 1e-12), sg, self.n_segments)
        hi_idx = first_true_per_segment(within > half * (1 + 1e-12), sg, self.n_segments)
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
