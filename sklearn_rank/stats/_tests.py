"""The two-sample tests behind compare: rank, t, permutation and bootstrap tests, and the dispatch ``_run``."""

import math
from dataclasses import replace

import numpy as np
from scipy import stats as _scipy_stats

from ..exceptions import DegenerateDataWarning
from ._hodges_lehmann import _median_of, _PairwiseDifferences, _WalshAverages
from ._intervals import (_bootstrap_data, _BootstrapInterval, _MannWhitneyInterval, _mean, _mean_difference,
                         _PointInterval, _scipy_ttest, _TTestInterval, _WilcoxonInterval)
from ._pairing import _prepare
from ._results import ComparisonResult, _with_interval
from ._validation import (TESTS, _ALTERNATIVES, _check_choice, _check_confidence_level,
                          _check_n_resamples, _check_paired, _check_rng, _warn)


def _degenerate(message):
    _warn(message, DegenerateDataWarning)


def _cross_pair_counts(x, y):
    """Counts of cross pairs ``(i, j)`` with ``x_i > y_j``, ``x_i == y_j``, ``x_i < y_j``."""
    y_sorted = np.sort(y)
    below = np.searchsorted(y_sorted, x, side="left")
    below_or_equal = np.searchsorted(y_sorted, x, side="right")
    wins = int(below.sum())
    ties = int((below_or_equal - below).sum())
    return wins, ties, x.size * y.size - wins - ties


def _paired_counts(x, y):
    d = x - y
    return int(np.count_nonzero(d > 0)), int(np.count_nonzero(d == 0)), int(np.count_nonzero(d < 0))


def _variance(values):
    """Sample variance (ddof=1), exactly 0.0 for a constant sample (np.var can leave rounding residue)."""
    return 0.0 if np.all(values == values[0]) else float(np.var(values, ddof=1))


def _standardised(difference, scale):
    if scale > 0:
        return difference / scale
    return 0.0 if difference == 0 else math.copysign(math.inf, difference)


def _constant_difference_answer(difference, alternative):
    """Statistic and p-value of a mean-based test whose differences are all ``difference`` (zero variance)."""
    if difference == 0:
        return 0.0, 1.0
    statistic = math.copysign(math.inf, difference)
    if alternative == "two-sided":
        return statistic, 0.0
    return statistic, 0.0 if (difference > 0) == (alternative == "greater") else 1.0


def _mann_whitney(x, y, alternative, confidence_level):
    """scipy's Mann-Whitney U, the Hodges-Lehmann shift and the rank-biserial correlation of validated samples."""
    n_a, n_b = x.size, y.size
    wins, ties, losses = _cross_pair_counts(x, y)
    combined = np.concatenate([x, y])
    if np.all(combined == combined[0]):
        _degenerate("Every value is equal in both samples, so Mann-Whitney has nothing to rank: "
                    "returning U = n_a * n_b / 2 and p-value 1.0.")
        statistic, pvalue = n_a * n_b / 2, 1.0
    else:
        res = _scipy_stats.mannwhitneyu(x, y, alternative=alternative)
        statistic, pvalue = float(res.statistic), float(res.pvalue)
    differences = _PairwiseDifferences(x, y)
    result = _with_interval(ComparisonResult(
        statistic=float(statistic), pvalue=float(pvalue), test="mannwhitneyu", alternative=alternative,
        n_a=n_a, n_b=n_b, estimate=_median_of(differences), estimate_name="hodges_lehmann",
        effect_size=(wins - losses) / (n_a * n_b), effect_size_name="rank_biserial", paired=False),
        _MannWhitneyInterval(differences, alternative), confidence_level)
    return result, (wins, ties, losses)


def _wilcoxon(x, y, alternative, confidence_level):
    """scipy's Wilcoxon signed-rank test, the Hodges-Lehmann estimate and the matched-pairs rank-biserial."""
    d = x - y
    nonzero = d[d != 0]
    if nonzero.size == 0:
        _degenerate("Every paired difference is zero, so the Wilcoxon test has nothing to rank: "
                    "returning statistic 0.0 and p-value 1.0.")
        statistic, pvalue, effect = 0.0, 1.0, 0.0
    else:
        res = _scipy_stats.wilcoxon(x, y, alternative=alternative)
        statistic, pvalue = float(res.statistic), float(res.pvalue)
        # matched-pairs rank-biserial correlation, Kerby (2014): (R+ - R-) / (R+ + R-), zeros dropped as in the test
        ranks = _scipy_stats.rankdata(np.abs(nonzero))
        effect = float((ranks[nonzero > 0].sum() - ranks[nonzero < 0].sum()) / ranks.sum())
    walsh = _WalshAverages(d)
    n = d.size
    result = _with_interval(ComparisonResult(
        statistic=statistic, pvalue=pvalue, test="wilcoxon", alternative=alternative, n_a=n, n_b=n,
        estimate=_median_of(walsh), estimate_name="hodges_lehmann", effect_size=effect,
        effect_size_name="rank_biserial", paired=True), _WilcoxonInterval(walsh, alternative), confidence_level)
    return result, _paired_counts(x, y)


def _ttest(x, y, paired, alternative, confidence_level):
    """scipy's paired or Welch t test, with d_z or Cohen's d; a defined answer for data without variance."""
    n_a, n_b = x.size, y.size
    if paired:
        d = x - y
        difference = float(np.mean(d))
        sd = math.sqrt(_variance(d))
        constant = bool(np.all(d == d[0])) or sd == 0
        if constant:
            difference = float(d[0])
        effect, effect_name = _standardised(difference, sd), "d_z"
        counts = _paired_counts(x, y)
    else:
        var_a, var_b = _variance(x), _variance(y)
        difference = float(np.mean(x) - np.mean(y))
        constant = (bool(np.all(x == x[0]) and np.all(y == y[0]))) or var_a / n_a + var_b / n_b == 0
        if constant:
            difference = float(x[0] - y[0])
        pooled_sd = math.sqrt(((n_a - 1) * var_a + (n_b - 1) * var_b) / (n_a + n_b - 2))
        effect, effect_name = _standardised(difference, pooled_sd), "cohens_d"
        counts = _cross_pair_counts(x, y)
    if constant:
        what = "paired difference" if paired else "value within each sample"
        _degenerate(f"Every {what} is equal (zero variance), so the t statistic is undefined: returning "
                    "statistic 0.0 and p-value 1.0 for a zero difference, an infinite statistic otherwise.")
        statistic, pvalue = _constant_difference_answer(difference, alternative)
        interval = _PointInterval(difference, alternative)
    else:
        res = _scipy_ttest(x, y, paired, alternative)
        statistic, pvalue = res.statistic, res.pvalue
        interval = _TTestInterval(x, y, paired, alternative)
    result = _with_interval(ComparisonResult(
        statistic=float(statistic), pvalue=float(pvalue), test="ttest", alternative=alternative, n_a=n_a,
        n_b=n_b, estimate=difference, estimate_name="mean_difference", effect_size=effect,
        effect_size_name=effect_name, paired=paired), interval, confidence_level)
    return result, counts


def _mean_effect(x, y, paired):
    """Mean difference, standardised effect and its name for the mean-based resampling tests."""
    if paired:
        d = x - y
        difference = float(np.mean(d))
        return difference, _standardised(difference, math.sqrt(_variance(d))), "d_z"
    n_a, n_b = x.size, y.size
    pooled_var = ((n_a - 1) * _variance(x) + (n_b - 1) * _variance(y)) / (n_a + n_b - 2)
    difference = float(np.mean(x) - np.mean(y))
    return difference, _standardised(difference, math.sqrt(pooled_var)), "cohens_d"


def _permutation(x, y, paired, alternative, confidence_level, generator, n_resamples):
    """scipy's permutation test of the mean difference (sign flips when paired), with a BCa bootstrap interval."""
    n_a, n_b = x.size, y.size
    difference, effect, effect_name = _mean_effect(x, y, paired)
    values = x - y if paired else np.concatenate([x, y])
    if (paired and np.all(values == 0)) or (not paired and np.all(values == values[0])):
        what = "paired difference is zero" if paired else "value is equal in both samples"
        _degenerate(f"Every {what}, so every permutation gives the same statistic: returning statistic 0.0 "
                    "and p-value 1.0.")
        statistic, pvalue = 0.0, 1.0
    else:
        if paired:  # one sample: scipy flips the sign of each difference
            res = _scipy_stats.permutation_test((values,), _mean, permutation_type="samples", vectorized=True,
                                                n_resamples=n_resamples, alternative=alternative,
                                                rng=generator)
        else:
            res = _scipy_stats.permutation_test((x, y), _mean_difference, permutation_type="independent",
                                                vectorized=True, n_resamples=n_resamples,
                                                alternative=alternative, rng=generator)
        statistic, pvalue = float(res.statistic), float(res.pvalue)
    seed = int(generator.integers(2**63))
    if (paired and np.all(values == values[0])) or (not paired and np.all(x == x[0]) and np.all(y == y[0])):
        interval = _PointInterval(difference, alternative)
    else:
        interval = _BootstrapInterval(x, y, paired, alternative, n_resamples, seed=seed)
    result = _with_interval(ComparisonResult(
        statistic=statistic, pvalue=pvalue, test="permutation", alternative=alternative, n_a=n_a, n_b=n_b,
        estimate=difference, estimate_name="mean_difference", effect_size=effect, effect_size_name=effect_name,
        paired=paired), interval, confidence_level)
    return result, _paired_counts(x, y) if paired else _cross_pair_counts(x, y)


def _bootstrap_pvalue(distribution, alternative):
    """Percentile-bootstrap p-value: the smallest alpha whose percentile interval excludes zero.

    Counted as ``(#{theta* <= 0} + 1) / (B + 1)`` for ``"greater"`` (and
    mirrored for ``"less"``), so that it is never exactly zero.
    """
    resamples = distribution.size
    p_greater = (np.count_nonzero(distribution <= 0) + 1) / (resamples + 1)
    p_less = (np.count_nonzero(distribution >= 0) + 1) / (resamples + 1)
    if alternative == "greater":
        return float(p_greater)
    if alternative == "less":
        return float(p_less)
    return float(min(1.0, 2 * min(p_greater, p_less)))


def _bootstrap_test(x, y, paired, alternative, confidence_level, generator, n_resamples):
    """scipy's BCa bootstrap of the mean difference, and the percentile-bootstrap p-value."""
    n_a, n_b = x.size, y.size
    difference, effect, effect_name = _mean_effect(x, y, paired)
    data, statistic_function = _bootstrap_data(x, y, paired)
    constant = bool(np.all(data[0] == data[0][0])) if paired else bool(np.all(x == x[0]) and np.all(y == y[0]))
    if constant:
        _degenerate("The data have zero variance, so every bootstrap resample gives the same mean difference: "
                    "the interval is a single point and the p-value is 1.0 for a zero difference.")
        difference = float(data[0][0]) if paired else float(x[0] - y[0])
        pvalue = _bootstrap_pvalue(np.full(n_resamples, difference), alternative)
        interval = _PointInterval(difference, alternative)
    else:
        res = _scipy_stats.bootstrap(data, statistic_function, n_resamples=n_resamples, vectorized=True,
                                     confidence_level=confidence_level, alternative=alternative, method="BCa",
                                     rng=generator)
        pvalue = _bootstrap_pvalue(res.bootstrap_distribution, alternative)
        interval = _BootstrapInterval(x, y, paired, alternative, n_resamples, result=res,
                                      result_level=confidence_level)
    result = _with_interval(ComparisonResult(
        statistic=difference, pvalue=pvalue, test="bootstrap", alternative=alternative, n_a=n_a, n_b=n_b,
        estimate=difference, estimate_name="mean_difference", effect_size=effect, effect_size_name=effect_name,
        paired=paired), interval, confidence_level)
    return result, _paired_counts(x, y) if paired else _cross_pair_counts(x, y)


def _run(a, b, *, metric, test, paired, alternative, confidence_level, rng, n_resamples, label_a="a", label_b="b"):
    """Validate, pair and run one comparison. Returns ``(result, (wins, ties, losses))``."""
    _check_choice(test, "test", TESTS)
    _check_choice(alternative, "alternative", _ALTERNATIVES)
    confidence_level = _check_confidence_level(confidence_level)
    n_resamples = _check_n_resamples(n_resamples)
    paired = _check_paired(paired)
    generator = _check_rng(rng)
    x, y, paired, test, (n_unpaired_a, n_unpaired_b) = _prepare(a, b, metric=metric, test=test, paired=paired,
                                                                label_a=label_a, label_b=label_b)
    if test == "mannwhitneyu":
        result, counts = _mann_whitney(x, y, alternative, confidence_level)
    elif test == "wilcoxon":
        result, counts = _wilcoxon(x, y, alternative, confidence_level)
    elif test == "ttest":
        result, counts = _ttest(x, y, paired, alternative, confidence_level)
    elif test == "permutation":
        result, counts = _permutation(x, y, paired, alternative, confidence_level, generator, n_resamples)
    else:
        result, counts = _bootstrap_test(x, y, paired, alternative, confidence_level, generator, n_resamples)
    if n_unpaired_a or n_unpaired_b:
        result = _with_interval(replace(result, n_unpaired_a=n_unpaired_a, n_unpaired_b=n_unpaired_b),
                                result._interval, result._confidence_level)
    return result, counts
