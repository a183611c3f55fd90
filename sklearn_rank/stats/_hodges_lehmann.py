"""Hodges-Lehmann estimates and distribution-free intervals of the rank tests.

Order statistics of the pairwise differences ``x_i - y_j`` (Mann-Whitney) and of
the Walsh averages ``(d_i + d_j) / 2`` (Wilcoxon) without materialising them, the
exact null distributions of both statistics, and the interval that inverts the test.
"""

import math
import struct

import numpy as np
from scipy import stats as _scipy_stats

from ..exceptions import DegenerateDataWarning
from ._validation import _warn


def _order_key(value):
    """Integer key that orders floats like their values (IEEE 754 bit pattern, sign folded)."""
    (bits,) = struct.unpack("<q", struct.pack("<d", value))
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


def _key_value(key):
    (value,) = struct.unpack("<d", struct.pack("<q", abs(key)))
    return value if key >= 0 else -value


def _smallest_reaching(count_le, k):
    """Smallest float ``t`` with ``count_le(t) >= k``.

    Bisection over the ordered bit patterns of floats: at most 64 calls of
    ``count_le``, whatever the scale of the data.
    """
    low, high = _order_key(-math.inf), _order_key(math.inf)  # count_le(-inf) = 0 < k <= count_le(inf)
    while high - low > 1:
        middle = (low + high) // 2
        if count_le(_key_value(middle)) >= k:
            high = middle
        else:
            low = middle
    return _key_value(high)


class _PairwiseDifferences:
    """The ``m * n`` differences ``x_i - y_j``, ordered without materialising them."""

    def __init__(self, x, y):
        self.x = np.sort(x)
        self.y = np.sort(y)
        self.size = self.x.size * self.y.size
        # runs of equal values, so that corrections jump over ties in one step
        self.run_start = np.searchsorted(self.y, self.y, side="left")
        self.run_end = np.searchsorted(self.y, self.y, side="right")

    def count_le(self, t):
        """Number of differences ``x_i - y_j`` (as computed in floating point) that are ``<= t``."""
        y, last = self.y, self.y.size - 1
        with np.errstate(over="ignore", invalid="ignore"):
            # row i qualifies for a suffix of the sorted y: start from y_j >= x_i - t, then step over the
            # few positions where rounding of x_i - t and of x_i - y_j disagree
            first = np.searchsorted(y, self.x - t, side="left")
            while True:
                previous = np.maximum(first - 1, 0)
                step = (first > 0) & (self.x - y[previous] <= t)
                if not step.any():
                    break
                first = np.where(step, self.run_start[previous], first)
            while True:
                current = np.minimum(first, last)
                step = (first <= last) & (self.x - y[current] > t)
                if not step.any():
                    break
                first = np.where(step, self.run_end[current], first)
        return self.size - int(first.sum())

    def kth(self, k):
        """The ``k``-th smallest difference (1-based)."""
        return _smallest_reaching(self.count_le, k)


class _WalshAverages:
    """The ``n (n + 1) / 2`` averages ``(d_i + d_j) / 2``, ``i <= j``, ordered without materialising them."""

    def __init__(self, d):
        self.d = np.sort(d)
        self.index = np.arange(self.d.size)
        self.size = self.d.size * (self.d.size + 1) // 2
        self.run_start = np.searchsorted(self.d, self.d, side="left")
        self.run_end = np.searchsorted(self.d, self.d, side="right")

    def count_le(self, t):
        """Number of Walsh averages (as computed in floating point) that are ``<= t``."""
        d, last = self.d, self.d.size - 1
        with np.errstate(over="ignore", invalid="ignore"):
            # row i: a prefix of the sorted d qualifies; start from d_j <= 2 t - d_i and fix rounding
            end = np.searchsorted(d, 2.0 * t - d, side="right")
            while True:
                previous = np.maximum(end - 1, 0)
                step = (end > 0) & ((d + d[previous]) / 2 > t)
                if not step.any():
                    break
                end = np.where(step, self.run_start[previous], end)
            while True:
                current = np.minimum(end, last)
                step = (end <= last) & ((d + d[current]) / 2 <= t)
                if not step.any():
                    break
                end = np.where(step, self.run_end[current], end)
        return int(np.maximum(end - self.index, 0).sum())

    def kth(self, k):
        """The ``k``-th smallest Walsh average (1-based)."""
        return _smallest_reaching(self.count_le, k)


def _median_of(selector):
    half = selector.size // 2
    if selector.size % 2:
        return selector.kth(half + 1)
    low, high = selector.kth(half), selector.kth(half + 1)
    return low / 2 + high / 2 if max(abs(low), abs(high)) > 1e300 else (low + high) / 2


def _mann_whitney_null_cdf(m, n):
    """Exact CDF of U under H0 without ties, from the Gaussian binomial coefficient [m+n choose m]_q.

    Returns None when the counts would not fit in int64 or the table is large.
    """
    m, n = min(m, n), max(m, n)
    if math.comb(m + n, m) >= 2**62 or m * n > 10**6:
        return None
    size = m * n + 1
    counts = np.zeros(size, dtype=np.int64)
    counts[0] = 1
    for i in range(1, m + 1):
        shift = n + i
        if shift < size:  # multiply by (1 - q^(n+i))
            counts[shift:] -= counts[:size - shift].copy()
        # divide by (1 - q^i): running sums within each residue class modulo i
        padded = np.zeros(-(-size // i) * i, dtype=np.int64)
        padded[:size] = counts
        counts = np.cumsum(padded.reshape(-1, i), axis=0).ravel()[:size]
    return np.cumsum(counts) / math.comb(m + n, m)


def _signed_rank_null_cdf(n):
    """Exact CDF of the Wilcoxon signed-rank statistic under H0 without ties: coefficients of prod (1 + q^i)."""
    size = n * (n + 1) // 2 + 1
    counts = np.zeros(size, dtype=np.int64)
    counts[0] = 1
    for i in range(1, n + 1):
        counts[i:] = counts[i:] + counts[:-i]
    return np.cumsum(counts) / 2.0**n


def _tie_term(values):
    _, counts = np.unique(values, return_counts=True)
    counts = counts.astype(np.float64)
    return float(np.sum(counts**3 - counts))


def _rank_interval(selector, *, confidence_level, alternative, null_cdf, null_sd, n_label):
    """Distribution-free interval: order statistics ``k`` and ``size + 1 - k`` of ``selector``.

    ``k - 1`` is the largest count ``u`` with ``P(W <= u) <= alpha`` under H0
    (Hollander, Wolfe & Chicco 2013, chapters 3 and 4), from the exact
    null CDF when given, else a normal approximation with continuity
    correction.
    """
    alpha = 1.0 - confidence_level
    tail = alpha / 2 if alternative == "two-sided" else alpha
    size = selector.size
    if null_cdf is not None:
        k = int(np.searchsorted(null_cdf, tail * (1 + 1e-10), side="right"))
    else:
        z = float(_scipy_stats.norm.ppf(1.0 - tail))
        k = math.floor(size / 2 - 0.5 - z * null_sd) + 1
    k = min(k, size)
    if k < 1:
        _warn(f"{n_label} are too few for a distribution-free interval at confidence_level="
              f"{confidence_level}; the interval is unbounded.", DegenerateDataWarning)
        return -math.inf, math.inf
    low = -math.inf if alternative == "less" else selector.kth(k)
    high = math.inf if alternative == "greater" else selector.kth(size + 1 - k)
    return low, high
