"""The confidence intervals of the results, computed on demand from data the result stores.

A :class:`ComparisonResult` keeps one of these objects and calls it with a
confidence level. Each holds numbers and samples only (as scipy's result
objects do), never a closure, so that results pickle and copy.
"""

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats as _scipy_stats

from ._hodges_lehmann import (_mann_whitney_null_cdf, _PairwiseDifferences, _rank_interval, _signed_rank_null_cdf,
                              _tie_term, _WalshAverages)


@dataclass(frozen=True, eq=False)
class _PointInterval:
    """The single point ``value``, for data without variance; a one-sided alternative opens the other side."""

    value: float
    alternative: str

    def __call__(self, level):
        return (self.value if self.alternative != "less" else -math.inf,
                self.value if self.alternative != "greater" else math.inf)


@dataclass(frozen=True, eq=False)
class _TInterval:
    """Student's t interval ``center -+ t(df) * standard_error`` (the corrected t test; scipy has no such test)."""

    center: float
    standard_error: float
    df: float
    alternative: str

    def __call__(self, level):
        center, standard_error, df = self.center, self.standard_error, self.df
        if self.alternative == "two-sided":
            half = float(_scipy_stats.t.ppf(0.5 + level / 2, df)) * standard_error
            return center - half, center + half
        half = float(_scipy_stats.t.ppf(level, df)) * standard_error
        return (center - half, math.inf) if self.alternative == "greater" else (-math.inf, center + half)


def _pvalue_from_t(t, df, alternative):
    """p-value of Student's t statistic ``t`` with ``df`` degrees of freedom."""
    if alternative == "greater":
        return float(_scipy_stats.t.sf(t, df))
    if alternative == "less":
        return float(_scipy_stats.t.cdf(t, df))
    return float(min(1.0, 2 * _scipy_stats.t.sf(abs(t), df)))


def _scipy_ttest(x, y, paired, alternative):
    """:func:`scipy.stats.ttest_rel`, or Welch's :func:`scipy.stats.ttest_ind`, of data with some variance."""
    with warnings.catch_warnings():
        # one constant sample (or nearly constant differences) is fine for the test; scipy's note on the
        # precision of its variance is not for the user
        warnings.filterwarnings("ignore", message="Precision loss occurred", category=RuntimeWarning)
        if paired:
            return _scipy_stats.ttest_rel(x, y, alternative=alternative)
        return _scipy_stats.ttest_ind(x, y, equal_var=False, alternative=alternative)


@dataclass(frozen=True, eq=False)
class _TTestInterval:
    """scipy's interval of the paired or Welch t test (``TtestResult.confidence_interval``)."""

    x: np.ndarray
    y: np.ndarray
    paired: bool
    alternative: str

    def __call__(self, level):
        return tuple(_scipy_ttest(self.x, self.y, self.paired, self.alternative).confidence_interval(level))


@dataclass(frozen=True, eq=False)
class _MannWhitneyInterval:
    """Interval of the Hodges-Lehmann shift: order statistics of the pairwise differences, by inverting U."""

    differences: _PairwiseDifferences
    alternative: str

    def __call__(self, level):
        n_a, n_b = self.differences.x.size, self.differences.y.size
        combined = np.concatenate([self.differences.x, self.differences.y])
        has_ties = np.unique(combined).size < combined.size
        null_cdf = None if has_ties else _mann_whitney_null_cdf(n_a, n_b)
        total = n_a + n_b
        null_sd = math.sqrt(max(0.0, n_a * n_b / 12 * ((total + 1) - _tie_term(combined) / (total * (total - 1)))))
        return _rank_interval(self.differences, confidence_level=level, alternative=self.alternative,
                              null_cdf=null_cdf, null_sd=null_sd, n_label=f"{n_a} and {n_b} values")


@dataclass(frozen=True, eq=False)
class _WilcoxonInterval:
    """Interval of the Hodges-Lehmann estimate: order statistics of the Walsh averages, by inverting T."""

    walsh: _WalshAverages
    alternative: str

    def __call__(self, level):
        d = self.walsh.d
        n = d.size
        exact = n <= 50 and np.all(d != 0) and np.unique(np.abs(d)).size == n
        null_cdf = _signed_rank_null_cdf(n) if exact else None
        null_sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24 - _tie_term(np.abs(d)) / 48)
        return _rank_interval(self.walsh, confidence_level=level, alternative=self.alternative, null_cdf=null_cdf,
                              null_sd=null_sd, n_label=f"{n} paired values")


def _mean(values, axis=-1):
    return np.mean(values, axis=axis)


def _mean_difference(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def _weighted_mean(values, weight, axis=-1):
    return np.sum(values * weight, axis=axis) / np.sum(weight, axis=axis)


@dataclass(frozen=True, eq=False)
class _WeightedMeanDifference:
    """Weighted mean difference of the queries at the given positions (resampled index arrays, last axis).

    Resampling positions keeps each value with its weight; ``weight_x`` or ``weight_y`` None weighs 1.
    Paired: ``x`` holds the differences and one index array comes in.
    """

    x: np.ndarray
    weight_x: np.ndarray
    y: np.ndarray = None
    weight_y: np.ndarray = None

    def __call__(self, *indices, axis=-1):
        means = []
        for index, values, weight in zip(indices, (self.x, self.y), (self.weight_x, self.weight_y)):
            index = np.moveaxis(np.asarray(index), axis, -1)
            weight = np.ones(values.size) if weight is None else weight
            means.append(_weighted_mean(values[index], weight[index]))
        return means[0] if len(means) == 1 else means[0] - means[1]


def _bootstrap_data(x, y, paired, weight_x=None, weight_y=None):
    """Samples and statistic that :func:`scipy.stats.bootstrap` resamples for the (weighted) mean difference.

    Weighted: the samples are the positions of the queries, resampled together with their weights.
    """
    if weight_x is None and weight_y is None:
        return ((x - y,), _mean) if paired else ((x, y), _mean_difference)
    if paired:
        return (np.arange(x.size),), _WeightedMeanDifference(x - y, weight_x)
    return (np.arange(x.size), np.arange(y.size)), _WeightedMeanDifference(x, weight_x, y, weight_y)


@dataclass(frozen=True, eq=False)
class _BootstrapInterval:
    """BCa bootstrap interval of the mean difference ``x - y`` (weighted by ``weight_x``, ``weight_y``).

    With ``result`` (scipy's ``BootstrapResult`` at ``result_level``), other
    levels reuse its resamples; without it, resamples are drawn from ``seed``,
    so that every call gives the same interval.
    """

    x: np.ndarray
    y: np.ndarray
    paired: bool
    alternative: str
    n_resamples: int
    seed: int = None
    result: object = None
    result_level: float = None
    weight_x: np.ndarray = None
    weight_y: np.ndarray = None

    def __call__(self, level):
        data, statistic = _bootstrap_data(self.x, self.y, self.paired, self.weight_x, self.weight_y)
        if self.result is None:
            found = _scipy_stats.bootstrap(data, statistic, n_resamples=self.n_resamples, vectorized=True,
                                           confidence_level=level, alternative=self.alternative, method="BCa",
                                           rng=np.random.default_rng(self.seed))
        elif level == self.result_level:
            found = self.result
        else:  # same resamples, another level
            found = _scipy_stats.bootstrap(data, statistic, n_resamples=0, vectorized=True, confidence_level=level,
                                           alternative=self.alternative, method="BCa", bootstrap_result=self.result)
        return found.confidence_interval.low, found.confidence_interval.high
