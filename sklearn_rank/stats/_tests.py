"""The two-sample tests behind compare: rank, t, permutation and bootstrap tests, and the dispatch ``_run``."""

import math

import numpy as np
from scipy import stats as _scipy_stats

from .._checks import check_positive_int
from ..exceptions import DegenerateDataWarning
from ._hodges_lehmann import _median_of, _PairwiseDifferences, _WalshAverages
from ._intervals import (_bootstrap_data, _BootstrapInterval, _MannWhitneyInterval, _mean, _mean_difference,
                         _PointInterval, _pvalue_from_t, _scipy_ttest, _TInterval, _TTestInterval,
                         _WeightedMeanDifference, _WilcoxonInterval)
from ._pairing import _prepare
from ._results import ComparisonResult, _replaced, _with_interval
from ._validation import (TESTS, _ALTERNATIVES, _check_choice, _check_confidence_level, _check_paired,
                          _check_rng, _warn)


def _weighted(weights):
    """Whether a test weighs the queries (``weights``: the pair of weight arrays or None of ``_prepare``)."""
    return any(weight is not None for weight in weights)


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


def _weighted_moments(values, weight):
    """Weighted mean and variance, ``weight`` taken as frequency weights rescaled to total ``n``.

    The variance ``n / (n - 1) * sum(w (v - mean)^2) / sum(w)`` is the sample variance (ddof=1) of the values
    repeated ``w_i`` times when integer weights sum to ``n``, and the plain sample variance for equal weights;
    the scale of the weights does not matter, as in a report's summary. None weighs 1.
    """
    if weight is None:
        return float(np.mean(values)), _variance(values)
    if np.all(values == values[0]):
        return float(values[0]), 0.0
    n = values.size
    mean = float(np.dot(weight, values) / weight.sum())
    return mean, float(n / (n - 1) * np.dot(weight, (values - mean) ** 2) / weight.sum())


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


def _weighted_ttest(x, y, paired, alternative, weights):
    """The paired or Welch t test of the weighted means (see ``_weighted_moments``).

    Returns ``(difference, effect, effect_name, statistic, pvalue, interval)``; statistic None when the data
    have no variance.
    """
    if paired:
        n = x.size
        difference, variance = _weighted_moments(x - y, weights[0])
        scale = math.sqrt(variance)
        effect, effect_name = _standardised(difference, scale), "d_z"
        standard_error, df = scale / math.sqrt(n), n - 1
    else:
        n_a, n_b = x.size, y.size
        (mean_a, var_a), (mean_b, var_b) = _weighted_moments(x, weights[0]), _weighted_moments(y, weights[1])
        difference = mean_a - mean_b
        pooled_sd = math.sqrt(((n_a - 1) * var_a + (n_b - 1) * var_b) / (n_a + n_b - 2))
        effect, effect_name = _standardised(difference, pooled_sd), "cohens_d"
        part_a, part_b = var_a / n_a, var_b / n_b
        standard_error = math.sqrt(part_a + part_b)
        if standard_error > 0:  # Welch-Satterthwaite
            df = (part_a + part_b) ** 2 / (part_a ** 2 / (n_a - 1) + part_b ** 2 / (n_b - 1))
    if not standard_error > 0:
        return difference, effect, effect_name, None, None, None
    statistic = difference / standard_error
    return (difference, effect, effect_name, statistic, _pvalue_from_t(statistic, df, alternative),
            _TInterval(difference, standard_error, df, alternative))


def _ttest(x, y, paired, alternative, confidence_level, weights=(None, None)):
    """scipy's paired or Welch t test, with d_z or Cohen's d; a defined answer for data without variance.

    With ``weights``, the t test of the weighted means (``_weighted_ttest``).
    """
    n_a, n_b = x.size, y.size
    if _weighted(weights):
        difference, effect, effect_name, statistic, pvalue, interval = _weighted_ttest(x, y, paired, alternative,
                                                                                       weights)
        if statistic is None:
            what = "paired difference" if paired else "value within each sample"
            _degenerate(f"Every {what} is equal (zero variance), so the t statistic is undefined: returning "
                        "statistic 0.0 and p-value 1.0 for a zero difference, an infinite statistic otherwise.")
            statistic, pvalue = _constant_difference_answer(difference, alternative)
            interval = _PointInterval(difference, alternative)
        result = _with_interval(ComparisonResult(
            statistic=float(statistic), pvalue=float(pvalue), test="ttest", alternative=alternative, n_a=n_a,
            n_b=n_b, estimate=float(difference), estimate_name="mean_difference", effect_size=float(effect),
            effect_size_name=effect_name, paired=paired), interval, confidence_level)
        return result, _paired_counts(x, y) if paired else _cross_pair_counts(x, y)
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


def _mean_effect(x, y, paired, weights=(None, None)):
    """Mean difference, standardised effect and its name for the mean-based resampling tests."""
    if _weighted(weights):
        difference, effect, effect_name, *_ = _weighted_ttest(x, y, paired, "two-sided", weights)
        return difference, effect, effect_name
    if paired:
        d = x - y
        difference = float(np.mean(d))
        return difference, _standardised(difference, math.sqrt(_variance(d))), "d_z"
    n_a, n_b = x.size, y.size
    pooled_var = ((n_a - 1) * _variance(x) + (n_b - 1) * _variance(y)) / (n_a + n_b - 2)
    difference = float(np.mean(x) - np.mean(y))
    return difference, _standardised(difference, math.sqrt(pooled_var)), "cohens_d"


def _permutation_data(x, y, paired, weights):
    """Samples and statistic of scipy's permutation test of the (weighted) mean difference.

    Weighted and paired, the sign flips keep each difference in its place, with its weight; unpaired, the
    positions of the values in ``concatenate([x, y])`` are shuffled, each value keeping its weight.
    """
    if not _weighted(weights):
        return ((x - y,), _mean) if paired else ((x, y), _mean_difference)
    if paired:
        return (x - y,), _SignFlippedWeightedMean(weights[0])
    values = np.concatenate([x, y])
    weight = np.concatenate([np.ones(x.size) if weights[0] is None else weights[0],
                             np.ones(y.size) if weights[1] is None else weights[1]])
    statistic = _WeightedMeanDifference(values, weight, values, weight)
    return (np.arange(x.size), np.arange(x.size, values.size)), statistic


class _SignFlippedWeightedMean:
    """Weighted mean of the differences whose signs scipy flipped in place (last axis)."""

    def __init__(self, weight):
        self.weight = weight

    def __call__(self, differences, axis=-1):
        return np.dot(np.moveaxis(differences, axis, -1), self.weight) / self.weight.sum()


def _permutation(x, y, paired, alternative, confidence_level, generator, n_resamples, weights=(None, None)):
    """scipy's permutation test of the (weighted) mean difference (sign flips when paired), with a BCa bootstrap
    interval."""
    n_a, n_b = x.size, y.size
    difference, effect, effect_name = _mean_effect(x, y, paired, weights)
    values = x - y if paired else np.concatenate([x, y])
    if (paired and np.all(values == 0)) or (not paired and np.all(values == values[0])):
        what = "paired difference is zero" if paired else "value is equal in both samples"
        _degenerate(f"Every {what}, so every permutation gives the same statistic: returning statistic 0.0 "
                    "and p-value 1.0.")
        statistic, pvalue = 0.0, 1.0
    else:
        # paired: one sample, whose signs scipy flips; unpaired: scipy shuffles the labels
        data, statistic_function = _permutation_data(x, y, paired, weights)
        res = _scipy_stats.permutation_test(data, statistic_function, vectorized=True,
                                            permutation_type="samples" if paired else "independent",
                                            n_resamples=n_resamples, alternative=alternative, rng=generator)
        statistic, pvalue = float(res.statistic), float(res.pvalue)
    seed = int(generator.integers(2**63))
    if (paired and np.all(values == values[0])) or (not paired and np.all(x == x[0]) and np.all(y == y[0])):
        interval = _PointInterval(difference, alternative)
    else:
        interval = _BootstrapInterval(x, y, paired, alternative, n_resamples, seed=seed, weight_x=weights[0],
                                      weight_y=weights[1])
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


def _bootstrap_test(x, y, paired, alternative, confidence_level, generator, n_resamples, weights=(None, None)):
    """scipy's BCa bootstrap of the (weighted) mean difference, and the percentile-bootstrap p-value.

    Weighted: the queries are resampled with their weights, and each resample gives its weighted mean.
    """
    n_a, n_b = x.size, y.size
    difference, effect, effect_name = _mean_effect(x, y, paired, weights)
    data, statistic_function = _bootstrap_data(x, y, paired, *weights)
    constant = bool(np.all(x - y == (x - y)[0])) if paired else bool(np.all(x == x[0]) and np.all(y == y[0]))
    if constant:
        _degenerate("The data have zero variance, so every bootstrap resample gives the same mean difference: "
                    "the interval is a single point and the p-value is 1.0 for a zero difference.")
        difference = float(x[0] - y[0])
        pvalue = _bootstrap_pvalue(np.full(n_resamples, difference), alternative)
        interval = _PointInterval(difference, alternative)
    else:
        res = _scipy_stats.bootstrap(data, statistic_function, n_resamples=n_resamples, vectorized=True,
                                     confidence_level=confidence_level, alternative=alternative, method="BCa",
                                     rng=generator)
        pvalue = _bootstrap_pvalue(res.bootstrap_distribution, alternative)
        interval = _BootstrapInterval(x, y, paired, alternative, n_resamples, result=res,
                                      result_level=confidence_level, weight_x=weights[0], weight_y=weights[1])
    result = _with_interval(ComparisonResult(
        statistic=difference, pvalue=pvalue, test="bootstrap", alternative=alternative, n_a=n_a, n_b=n_b,
        estimate=difference, estimate_name="mean_difference", effect_size=effect, effect_size_name=effect_name,
        paired=paired), interval, confidence_level)
    return result, _paired_counts(x, y) if paired else _cross_pair_counts(x, y)


def _zero_differences_note(test, n_zero, n):
    """What zeros do to ``test`` when most paired differences are zero."""
    if test == "wilcoxon":
        return (f"the Wilcoxon test drops them and ranks the other {n - n_zero}, while its estimate (a median of "
                "Walsh averages, zeros included) stays near 0")
    return f"the mean difference counts them, and the test rests on the other {n - n_zero}"


def _run(a, b, *, metric, test, paired, alternative, confidence_level, rng, n_resamples, label_a="a", label_b="b"):
    """Validate, pair and run one comparison. Returns ``(result, (wins, ties, losses))``."""
    _check_choice(test, "test", TESTS)
    _check_choice(alternative, "alternative", _ALTERNATIVES)
    confidence_level = _check_confidence_level(confidence_level)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    paired = _check_paired(paired)
    generator = _check_rng(rng)
    x, y, paired, test, (n_unpaired_a, n_unpaired_b), weights = _prepare(
        a, b, metric=metric, test=test, paired=paired, label_a=label_a, label_b=label_b)
    if test == "mannwhitneyu":
        result, counts = _mann_whitney(x, y, alternative, confidence_level)
    elif test == "wilcoxon":
        result, counts = _wilcoxon(x, y, alternative, confidence_level)
    elif test == "ttest":
        result, counts = _ttest(x, y, paired, alternative, confidence_level, weights)
    elif test == "permutation":
        result, counts = _permutation(x, y, paired, alternative, confidence_level, generator, n_resamples, weights)
    else:
        result, counts = _bootstrap_test(x, y, paired, alternative, confidence_level, generator, n_resamples,
                                         weights)
    wins, ties, losses = counts
    if paired and 0 < ties < x.size and 2 * ties > x.size:  # (all zero: the test has warned already)
        _warn(f"{ties} of {x.size} paired differences are zero (queries where `{label_a}` and `{label_b}` score "
              f"the same): {_zero_differences_note(test, ties, x.size)}. The result counts them in n_zero.",
              DegenerateDataWarning)
    result = _replaced(result, n_unpaired_a=n_unpaired_a, n_unpaired_b=n_unpaired_b, wins=wins, ties=ties,
                       losses=losses, weighted=_weighted(weights), mean_a=_sample_mean(x, weights[0]),
                       mean_b=_sample_mean(y, weights[1]))
    return result, counts


def _sample_mean(values, weight):
    """The (weighted) mean of the values a test compared: a report's summary when every query is compared."""
    return float(np.mean(values) if weight is None else np.dot(weight, values) / weight.sum())
