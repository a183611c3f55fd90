"""Tests for sklearn_rank.stats.

Oracles: scipy.stats (the peer for every statistic and p-value), slow loops
written here (pairwise counts, multiple-comparison adjustments, exhaustive
enumeration of permutations and sign flips, explicit pairwise differences and
Walsh averages) and the Nadeau-Bengio formula of scikit-learn's example
"Statistical comparison of models using grid search".
"""

import itertools
import math
import re
import warnings

import numpy as np
import pytest
from scipy import stats as scipy_stats

from sklearn_rank import stats
from sklearn_rank.stats import (ComparisonResult, ComparisonTable, DegenerateDataWarning, bootstrap_ci, compare,
                                compare_many, corrected_ttest, mann_whitney_u)
from sklearn_rank.stats._hodges_lehmann import (_mann_whitney_null_cdf, _median_of, _PairwiseDifferences,
                                                _signed_rank_null_cdf, _WalshAverages)
from sklearn_rank.stats._multiple import adjust_pvalues


def _floats(interval):
    # scipy before 1.16 returns 0-d arrays for infinite bounds
    return tuple(float(v) for v in interval)

ALTERNATIVES = ["two-sided", "less", "greater"]


class StandInReport:
    """The smallest thing that looks like a RankingReport to sklearn_rank.stats."""

    def __init__(self, qid, **metrics):
        self.per_query = {"qid": np.asarray(qid), **{name: np.asarray(values, dtype=float)
                                                     for name, values in metrics.items()}}


def reciprocal_ranks(rng, size, num_candidates=20):
    """Per-query MRR-like values: heavily tied, in (0, 1]."""
    return 1.0 / rng.integers(1, num_candidates + 1, size=size)


def paired_samples(seed, size=30):
    rng = np.random.default_rng(seed)
    base = rng.random(size)
    return base + rng.normal(0.05, 0.1, size), base


def one_warning_free_call(function, *args, **kwargs):
    """Call and return, failing on any warning (RuntimeWarnings leaking from numpy/scipy in particular)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return function(*args, **kwargs)


# --------------------------------------------------------------------------
# peers: scipy.stats
# --------------------------------------------------------------------------

@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("kind", ["continuous", "tied", "small_exact"])
def test_mann_whitney_matches_scipy(alternative, kind):
    rng = np.random.default_rng(1)
    if kind == "continuous":
        a, b = rng.normal(0.3, 1, 25), rng.normal(0, 1, 19)
    elif kind == "tied":
        a, b = reciprocal_ranks(rng, 40, 5), reciprocal_ranks(rng, 31, 8)
    else:
        a, b = rng.random(5), rng.random(6)
    expected = scipy_stats.mannwhitneyu(a, b, alternative=alternative)
    for result in (mann_whitney_u(a, b, alternative=alternative),
                   compare(a, b, test="mannwhitneyu", alternative=alternative),
                   compare(a, b, alternative=alternative)):
        assert result.test == "mannwhitneyu"
        assert not result.paired
        assert result.alternative == alternative
        assert (result.n_a, result.n_b) == (a.size, b.size)
        assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
        assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("kind", ["continuous", "zeros_and_ties", "small_exact"])
def test_wilcoxon_matches_scipy(alternative, kind):
    rng = np.random.default_rng(2)
    if kind == "continuous":
        a, b = paired_samples(3, 40)
    elif kind == "zeros_and_ties":
        a, b = reciprocal_ranks(rng, 60, 4), reciprocal_ranks(rng, 60, 4)
    else:
        a, b = paired_samples(4, 9)
    expected = scipy_stats.wilcoxon(a, b, alternative=alternative)
    for result in (compare(a, b, test="wilcoxon", alternative=alternative),
                   compare(a, b, paired=True, alternative=alternative)):
        assert result.test == "wilcoxon"
        assert result.paired
        assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
        assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_paired_ttest_matches_scipy(alternative):
    a, b = paired_samples(5, 25)
    result = compare(a, b, test="ttest", paired=True, alternative=alternative)
    expected = scipy_stats.ttest_rel(a, b, alternative=alternative)
    assert (result.test, result.paired) == ("ttest", True)
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-10)
    for level in (0.95, 0.8):
        assert result.confidence_interval(level) == pytest.approx(_floats(expected.confidence_interval(level)),
                                                                  rel=1e-12)
    d = a - b
    assert result.estimate == pytest.approx(d.mean(), rel=1e-12)
    assert result.effect_size_name == "d_z"
    assert result.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_unpaired_ttest_is_welch_and_matches_scipy(alternative):
    rng = np.random.default_rng(6)
    a, b = rng.normal(0.4, 1.0, 23), rng.normal(0.0, 2.0, 14)
    result = compare(a, b, test="ttest", alternative=alternative)
    expected = scipy_stats.ttest_ind(a, b, equal_var=False, alternative=alternative)
    assert (result.test, result.paired) == ("ttest", False)
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-10)
    for level in (0.95, 0.9):
        assert result.confidence_interval(level) == pytest.approx(_floats(expected.confidence_interval(level)),
                                                                  rel=1e-10)
    pooled = math.sqrt(((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1)) / (a.size + b.size - 2))
    assert result.effect_size_name == "cohens_d"
    assert result.effect_size == pytest.approx((a.mean() - b.mean()) / pooled, rel=1e-12)
    assert result.estimate == pytest.approx(a.mean() - b.mean(), rel=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("paired", [True, False])
def test_ttests_are_scipys_ttests(paired, alternative):
    # Issue 12: the t tests and their intervals are scipy's own (ttest_rel; ttest_ind with equal_var=False),
    # not a second implementation that agrees to rounding.
    rng = np.random.default_rng(32)
    a, b = (paired_samples(33, 21) if paired else (rng.normal(0.4, 1.0, 23), rng.normal(0.0, 2.0, 14)))
    expected = (scipy_stats.ttest_rel(a, b, alternative=alternative) if paired
                else scipy_stats.ttest_ind(a, b, equal_var=False, alternative=alternative))
    result = compare(a, b, test="ttest", paired=paired, alternative=alternative, confidence_level=0.9)
    assert (result.statistic, result.pvalue) == (float(expected.statistic), float(expected.pvalue))
    assert result.confidence_interval() == _floats(expected.confidence_interval(0.9))
    for level in (0.5, 0.95, 0.999):
        assert result.confidence_interval(level) == _floats(expected.confidence_interval(level))


def _mean_axis(x, axis=-1):
    return np.mean(x, axis=axis)


def _mean_difference_axis(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_paired_permutation_matches_scipy(alternative):
    a, b = paired_samples(7, 20)
    result = compare(a, b, test="permutation", paired=True, alternative=alternative, rng=42, n_resamples=999)
    expected = scipy_stats.permutation_test((a - b,), _mean_axis, permutation_type="samples", vectorized=True,
                                            n_resamples=999, alternative=alternative,
                                            rng=np.random.default_rng(42))
    assert (result.test, result.paired) == ("permutation", True)
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-12)
    assert result.estimate == pytest.approx(np.mean(a - b), rel=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_paired_permutation_is_exact_sign_flipping(alternative):
    # 2**8 = 256 sign patterns <= n_resamples: exact. Oracle: enumerate every sign flip.
    a, b = paired_samples(8, 8)
    d = a - b
    observed = d.mean()
    flipped = np.array([np.mean(np.array(signs) * d) for signs in itertools.product([1, -1], repeat=d.size)])
    tolerance = 1e-12
    p_greater = np.mean(flipped >= observed - tolerance)
    p_less = np.mean(flipped <= observed + tolerance)
    expected = {"greater": p_greater, "less": p_less, "two-sided": min(1.0, 2 * min(p_greater, p_less))}
    result = compare(a, b, test="permutation", paired=True, alternative=alternative, rng=0, n_resamples=999)
    assert result.pvalue == pytest.approx(expected[alternative], rel=1e-12)
    # scipy's two-sample "samples" permutation of mean(x - y) is the same exact test
    swapped = scipy_stats.permutation_test((a, b), lambda x, y, axis=-1: np.mean(x - y, axis=axis),
                                           permutation_type="samples", vectorized=True, n_resamples=999,
                                           alternative=alternative)
    assert result.pvalue == pytest.approx(swapped.pvalue, rel=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_unpaired_permutation_matches_scipy(alternative):
    rng = np.random.default_rng(9)
    a, b = rng.normal(0.3, 1, 21), rng.normal(0, 1, 15)
    result = compare(a, b, test="permutation", alternative=alternative, rng=3, n_resamples=999)
    expected = scipy_stats.permutation_test((a, b), _mean_difference_axis, permutation_type="independent",
                                            vectorized=True, n_resamples=999, alternative=alternative,
                                            rng=np.random.default_rng(3))
    assert (result.test, result.paired) == ("permutation", False)
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_unpaired_permutation_is_exact_label_shuffling(alternative):
    # C(9, 4) = 126 relabellings <= n_resamples: exact. Oracle: enumerate them.
    rng = np.random.default_rng(10)
    a, b = rng.normal(0.5, 1, 4), rng.normal(0, 1, 5)
    pooled = np.concatenate([a, b])
    observed = a.mean() - b.mean()
    null = []
    for chosen in itertools.combinations(range(pooled.size), a.size):
        mask = np.zeros(pooled.size, bool)
        mask[list(chosen)] = True
        null.append(pooled[mask].mean() - pooled[~mask].mean())
    null = np.array(null)
    p_greater = np.mean(null >= observed - 1e-12)
    p_less = np.mean(null <= observed + 1e-12)
    expected = {"greater": p_greater, "less": p_less, "two-sided": min(1.0, 2 * min(p_greater, p_less))}
    result = compare(a, b, test="permutation", alternative=alternative, rng=0, n_resamples=999)
    assert result.pvalue == pytest.approx(expected[alternative], rel=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("paired", [True, False])
def test_bootstrap_matches_scipy(alternative, paired):
    a, b = paired_samples(11, 18)
    if not paired:
        b = b[:13]
    data = (a - b,) if paired else (a, b)
    statistic = _mean_axis if paired else _mean_difference_axis
    result = compare(a, b, test="bootstrap", paired=paired, alternative=alternative, confidence_level=0.9,
                     rng=5, n_resamples=999)
    expected = scipy_stats.bootstrap(data, statistic, n_resamples=999, vectorized=True, confidence_level=0.9,
                                     alternative=alternative, method="BCa", rng=np.random.default_rng(5))
    assert (result.test, result.paired) == ("bootstrap", paired)
    observed = float(statistic(*data))
    assert result.statistic == pytest.approx(observed, rel=1e-12)
    assert result.estimate == pytest.approx(observed, rel=1e-12)
    assert result.confidence_interval() == pytest.approx(_floats(expected.confidence_interval), rel=1e-12)
    assert result.confidence_interval(0.9) == pytest.approx(_floats(expected.confidence_interval), rel=1e-12)
    # another level: the same resamples (same seed), as scipy computes it
    other = scipy_stats.bootstrap(data, statistic, n_resamples=999, vectorized=True, confidence_level=0.8,
                                  alternative=alternative, method="BCa", rng=np.random.default_rng(5))
    assert result.confidence_interval(0.8) == pytest.approx(_floats(other.confidence_interval), rel=1e-12)
    # percentile-bootstrap p-value, counted by hand from scipy's bootstrap distribution
    distribution = expected.bootstrap_distribution
    at_most_zero = sum(1 for value in distribution if value <= 0)
    at_least_zero = sum(1 for value in distribution if value >= 0)
    p_greater = (at_most_zero + 1) / (distribution.size + 1)
    p_less = (at_least_zero + 1) / (distribution.size + 1)
    p_expected = {"greater": p_greater, "less": p_less, "two-sided": min(1.0, 2 * min(p_greater, p_less))}
    assert result.pvalue == pytest.approx(p_expected[alternative], rel=1e-12)


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa", "bca"])
def test_bootstrap_ci_matches_scipy(method):
    rng = np.random.default_rng(12)
    values = reciprocal_ranks(rng, 35)
    low, high = bootstrap_ci(values, method=method, n_resamples=999, confidence_level=0.9, rng=7)
    expected = scipy_stats.bootstrap((values,), np.mean, n_resamples=999, confidence_level=0.9,
                                     method=method, rng=np.random.default_rng(7))
    assert (low, high) == pytest.approx(_floats(expected.confidence_interval), rel=1e-12)
    median_ci = bootstrap_ci(values, statistic=np.median, method=method, n_resamples=199, rng=1)
    expected = scipy_stats.bootstrap((values,), np.median, n_resamples=199, method=method,
                                     rng=np.random.default_rng(1))
    assert tuple(median_ci) == pytest.approx(_floats(expected.confidence_interval), rel=1e-12)


# --------------------------------------------------------------------------
# corrected resampled t test (Nadeau & Bengio)
# --------------------------------------------------------------------------

@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_corrected_ttest_matches_the_formula(alternative):
    scores_a = np.array([0.852, 0.871, 0.839, 0.866, 0.858, 0.874, 0.849, 0.861, 0.869, 0.855])
    scores_b = np.array([0.841, 0.862, 0.842, 0.851, 0.850, 0.860, 0.845, 0.849, 0.866, 0.848])
    n_train, n_test = 900, 100
    # scikit-learn's example, written out independently
    differences = scores_a - scores_b
    k = differences.size
    corrected_var = (1 / k + n_test / n_train) * np.var(differences, ddof=1)
    t_stat = np.mean(differences) / np.sqrt(corrected_var)
    if alternative == "greater":
        p_val = scipy_stats.t.sf(t_stat, k - 1)
    elif alternative == "less":
        p_val = scipy_stats.t.cdf(t_stat, k - 1)
    else:
        p_val = 2 * scipy_stats.t.sf(np.abs(t_stat), k - 1)
    result = corrected_ttest(scores_a, scores_b, n_train=n_train, n_test=n_test, alternative=alternative)
    assert result.test == "corrected_ttest"
    assert result.statistic == pytest.approx(t_stat, rel=1e-12)
    assert result.pvalue == pytest.approx(p_val, rel=1e-10)
    assert result.estimate == pytest.approx(differences.mean(), rel=1e-12)
    low, high = result.confidence_interval()
    margin = scipy_stats.t.ppf(0.975 if alternative == "two-sided" else 0.95, k - 1) * np.sqrt(corrected_var)
    if alternative != "less":
        assert low == pytest.approx(differences.mean() - margin, rel=1e-10)
    else:
        assert low == -np.inf
    if alternative != "greater":
        assert high == pytest.approx(differences.mean() + margin, rel=1e-10)
    else:
        assert high == np.inf
    # the correction only widens: the plain paired t statistic is larger in magnitude
    assert abs(result.statistic) < abs(scipy_stats.ttest_rel(scores_a, scores_b).statistic)


def test_corrected_ttest_takes_scikit_learn_cv_scores():
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, KFold, cross_validate

    X, y = make_classification(n_samples=120, n_features=6, random_state=0)
    cv = KFold(n_splits=5, shuffle=True, random_state=0)
    search = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, cv=cv).fit(X, y)
    folds = [f"split{fold}_test_score" for fold in range(5)]
    scores = np.array([search.cv_results_[name] for name in folds]).T  # (n_candidates, n_folds)
    train_index, test_index = next(cv.split(X, y))
    result = corrected_ttest(scores[1], scores[0], n_train=len(train_index), n_test=len(test_index))
    d = scores[1] - scores[0]
    expected = d.mean() / np.sqrt((1 / 5 + len(test_index) / len(train_index)) * d.var(ddof=1))
    assert result.statistic == pytest.approx(expected, rel=1e-12)

    plain = cross_validate(LogisticRegression(C=1.0), X, y, cv=cv)["test_score"]
    weak = cross_validate(LogisticRegression(C=0.01), X, y, cv=cv)["test_score"]
    again = corrected_ttest(plain, weak, n_train=len(train_index), n_test=len(test_index))
    assert again.statistic == pytest.approx(result.statistic, rel=1e-12)


# --------------------------------------------------------------------------
# multiple comparisons
# --------------------------------------------------------------------------

def holm_by_hand(pvalues):
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    for position, index in enumerate(order):
        # max over the step-down chain up to this position
        adjusted[index] = max(min(1.0, (m - earlier) * pvalues[order[earlier]]) for earlier in range(position + 1))
    return adjusted


def bh_by_hand(pvalues):
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    for position, index in enumerate(order):
        adjusted[index] = min(min(1.0, m * pvalues[order[later]] / (later + 1)) for later in range(position, m))
    return adjusted


def bonferroni_by_hand(pvalues):
    return [min(1.0, len(pvalues) * p) for p in pvalues]


def holm_rejects(pvalues, alpha):
    """Holm's step-down procedure itself: reject in order while p_(i) <= alpha / (m - i + 1)."""
    m = len(pvalues)
    rejected = set()
    for position, index in enumerate(sorted(range(m), key=lambda i: pvalues[i])):
        if pvalues[index] > alpha / (m - position):
            break
        rejected.add(index)
    return rejected


def bh_rejects(pvalues, alpha):
    """Benjamini-Hochberg step-up: reject the k smallest, k the largest i with p_(i) <= i alpha / m."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    k = max((position + 1 for position, index in enumerate(order) if pvalues[index] <= (position + 1) * alpha / m),
            default=0)
    return set(order[:k])


@pytest.mark.parametrize("seed", range(5))
def test_adjustments_match_hand_loops(seed):
    rng = np.random.default_rng(seed)
    pvalues = np.concatenate([rng.random(7) ** 3, [0.01, 0.01, 1.0, 0.04]])  # ties and a 1.0
    rng.shuffle(pvalues)
    holm = adjust_pvalues(pvalues, "holm")
    bh = adjust_pvalues(pvalues, "fdr_bh")
    assert holm == pytest.approx(holm_by_hand(list(pvalues)), rel=1e-12)
    assert adjust_pvalues(pvalues, "bonferroni") == pytest.approx(bonferroni_by_hand(list(pvalues)), rel=1e-12)
    assert bh == pytest.approx(bh_by_hand(list(pvalues)), rel=1e-12)
    assert bh == pytest.approx(scipy_stats.false_discovery_control(pvalues, method="bh"), rel=1e-12)
    assert adjust_pvalues(pvalues, None) == pytest.approx(pvalues, rel=0)
    for alpha in (0.01, 0.05, 0.1, 0.3):
        assert set(np.flatnonzero(holm <= alpha)) == holm_rejects(list(pvalues), alpha)
        assert set(np.flatnonzero(bh <= alpha)) == bh_rejects(list(pvalues), alpha)


def test_benjamini_hochberg_is_scipys():
    # Issue 12: the false discovery rate adjustment is scipy.stats.false_discovery_control itself
    rng = np.random.default_rng(34)
    runs = {name: rng.random(25) + shift for name, shift in zip("abcde", (0.0, 0.02, 0.1, 0.15, 0.3))}
    table = compare_many(runs, correction="fdr_bh", paired=True)
    raw = np.array([row.pvalue for row in table])
    expected = scipy_stats.false_discovery_control(raw, method="bh")
    assert [row.pvalue_adjusted for row in table] == expected.tolist()
    pvalues = np.concatenate([rng.random(30) ** 4, [0.01, 0.01, 1.0, 0.0, 0.04]])
    assert np.array_equal(adjust_pvalues(pvalues, "fdr_bh"), scipy_stats.false_discovery_control(pvalues))


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "fdr_bh", None])
def test_compare_many_adjusts_the_table(correction):
    rng = np.random.default_rng(13)
    base = rng.random(30)
    runs = {name: base + rng.normal(shift, 0.1, 30) for name, shift in
            [("a", 0.0), ("b", 0.02), ("c", 0.08), ("d", -0.05)]}
    table = compare_many(runs, correction=correction, paired=True)
    assert isinstance(table, ComparisonTable)
    assert [(row.a, row.b) for row in table] == list(itertools.combinations(runs, 2))
    raw = [row.pvalue for row in table]
    expected = {"holm": holm_by_hand, "bonferroni": bonferroni_by_hand, "fdr_bh": bh_by_hand,
                None: lambda p: p}[correction](raw)
    assert [row.pvalue_adjusted for row in table] == pytest.approx(expected, rel=1e-12)
    for row in table:
        direct = compare(runs[row.a], runs[row.b], paired=True)
        assert row.test == "wilcoxon"
        assert row.pvalue == pytest.approx(direct.pvalue, rel=1e-12)
        assert row.statistic == pytest.approx(direct.statistic, rel=1e-12)


def test_compare_many_takes_a_confidence_level():
    # Issue 12: compare_many fixed every row's interval level at 0.95
    a, b = paired_samples(35, 24)
    runs = {"a": a, "b": b}
    table = compare_many(runs, test="ttest", paired=True, confidence_level=0.8)
    assert table[0].result.confidence_interval() == _floats(scipy_stats.ttest_rel(a, b).confidence_interval(0.8))
    default = compare_many(runs, test="ttest", paired=True)
    assert default[0].result.confidence_interval() == _floats(scipy_stats.ttest_rel(a, b).confidence_interval(0.95))
    assert table[0].pvalue == default[0].pvalue
    # the bootstrap test resamples at that level (first row: the seed's first draws)
    (row,) = compare_many(runs, test="bootstrap", paired=True, confidence_level=0.8, rng=6, n_resamples=999)
    expected = scipy_stats.bootstrap((a - b,), _mean_axis, n_resamples=999, vectorized=True, confidence_level=0.8,
                                     method="BCa", rng=np.random.default_rng(6))
    assert row.result.confidence_interval() == pytest.approx(_floats(expected.confidence_interval), rel=1e-12)
    for bad in (0.0, 1.0, 95, "0.9", True):
        with pytest.raises(ValueError, match=rf"`confidence_level` must be a number strictly between 0 and 1. "
                                             rf"Got {re.escape(repr(bad))} instead"):
            compare_many(runs, confidence_level=bad)


def test_compare_many_against_a_baseline_and_counts():
    rng = np.random.default_rng(14)
    runs = {"bm25": reciprocal_ranks(rng, 40, 6), "dense": reciprocal_ranks(rng, 40, 4),
            "hybrid": reciprocal_ranks(rng, 40, 3)}
    table = compare_many(runs, baseline="bm25", paired=True, correction="bonferroni")
    assert len(table) == 2
    assert [(row.a, row.b) for row in table] == [("dense", "bm25"), ("hybrid", "bm25")]
    for row in table:
        a, b = runs[row.a], runs[row.b]
        wins = sum(1 for x, y in zip(a, b) if x > y)
        ties = sum(1 for x, y in zip(a, b) if x == y)
        losses = sum(1 for x, y in zip(a, b) if x < y)
        assert (row.wins, row.ties, row.losses) == (wins, ties, losses)
        assert row.pvalue_adjusted == pytest.approx(min(1.0, 2 * row.pvalue), rel=1e-12)

    frame = table.to_frame()
    for column in ["a", "b", "test", "statistic", "pvalue", "pvalue_adjusted", "estimate", "effect_size",
                   "wins", "ties", "losses"]:
        assert column in frame.columns
    assert list(frame["a"]) == ["dense", "hybrid"]
    assert list(frame["pvalue"]) == pytest.approx([row.pvalue for row in table])
    assert frame.attrs["correction"] == "bonferroni"
    text = repr(table)
    assert "dense" in text and "hybrid" in text and "bonferroni" in text


def test_compare_many_unpaired_counts_cross_pairs():
    rng = np.random.default_rng(15)
    runs = {"x": reciprocal_ranks(rng, 12, 4), "y": reciprocal_ranks(rng, 9, 4)}
    (row,) = compare_many(runs)
    assert row.test == "mannwhitneyu"
    wins = sum(1 for p in runs["x"] for q in runs["y"] if p > q)
    ties = sum(1 for p in runs["x"] for q in runs["y"] if p == q)
    losses = sum(1 for p in runs["x"] for q in runs["y"] if p < q)
    assert (row.wins, row.ties, row.losses) == (wins, ties, losses)
    assert wins + ties + losses == 12 * 9
    assert row.effect_size == pytest.approx((wins - losses) / (12 * 9), rel=1e-12)


def test_compare_many_with_reports_and_resampling_is_reproducible():
    rng = np.random.default_rng(16)
    qid = np.arange(25)
    reports = {name: StandInReport(rng.permutation(qid), mrr=reciprocal_ranks(rng, 25)) for name in "pqr"}
    first = compare_many(reports, metric="mrr", test="permutation", rng=8, n_resamples=199)
    second = compare_many(reports, metric="mrr", test="permutation", rng=8, n_resamples=199)
    assert all(row.result.paired for row in first)
    assert [row.pvalue for row in first] == [row.pvalue for row in second]


# --------------------------------------------------------------------------
# the TracIn-style use case: two groups of queries, Mann-Whitney
# --------------------------------------------------------------------------

def test_two_groups_of_queries_mann_whitney_with_rank_biserial():
    rng = np.random.default_rng(17)
    # per-query MRR of the queries whose training influence is high (group A) or low (group B)
    mrr_a = 1.0 / rng.integers(1, 6, size=37)
    mrr_b = 1.0 / rng.integers(1, 15, size=52)
    # per-query average precision, continuous in (0, 1]
    map_a = rng.beta(3, 2, size=37)
    map_b = rng.beta(2, 3, size=52)
    for group_a, group_b in ((mrr_a, mrr_b), (map_a, map_b)):
        result = mann_whitney_u(group_a, group_b, alternative="two-sided")
        expected = scipy_stats.mannwhitneyu(group_a, group_b, alternative="two-sided")
        assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-12)
        assert result.effect_size_name == "rank_biserial"
        # independent pairwise count
        greater = sum(1 for x in group_a for y in group_b if x > y)
        smaller = sum(1 for x in group_a for y in group_b if x < y)
        n_pairs = group_a.size * group_b.size
        assert result.effect_size == pytest.approx((greater - smaller) / n_pairs, rel=1e-12)
        # documented sign convention: 2 U_a / (n_a n_b) - 1 = 1 - 2 U_b / (n_a n_b)
        u_b = scipy_stats.mannwhitneyu(group_b, group_a).statistic
        assert result.effect_size == pytest.approx(2 * expected.statistic / n_pairs - 1, rel=1e-12)
        assert result.effect_size == pytest.approx(1 - 2 * u_b / n_pairs, rel=1e-12)
        assert result.effect_size > 0  # group A is better in both metrics
        # the same through compare() with reports of disjoint query ids
        report_a = StandInReport(np.arange(37), value=group_a)
        report_b = StandInReport(np.arange(100, 152), value=group_b)
        via_reports = compare(report_a, report_b, metric="value")
        assert (via_reports.test, via_reports.paired) == ("mannwhitneyu", False)
        assert via_reports.pvalue == pytest.approx(result.pvalue, rel=1e-12)


def test_mann_whitney_u_validates_each_sample_once(monkeypatch):
    # Issue 12: mann_whitney_u checked and converted its samples twice
    import sys

    calls = []
    for name, module in list(sys.modules.items()):
        original = getattr(module, "_as_values", None) if name.startswith("sklearn_rank.stats") else None
        if original is not None:
            def counting(values, label, *args, _original=original, **kwargs):
                calls.append(label)
                return _original(values, label, *args, **kwargs)
            monkeypatch.setattr(module, "_as_values", counting)
    group_a, group_b = [1.0, 1.0, 0.5, 1.0, 0.5, 1.0, 0.25], [0.2, 0.5, 0.1, 0.25, 1.0]
    result = mann_whitney_u(group_a, group_b)
    assert sorted(calls) == ["a", "b"]
    assert result.pvalue == pytest.approx(scipy_stats.mannwhitneyu(group_a, group_b).pvalue, rel=1e-12)


# --------------------------------------------------------------------------
# estimates, effect sizes and rank-based intervals against explicit enumeration
# --------------------------------------------------------------------------

def brute_mwu_null_cdf(m, n):
    """CDF of U = #(x > y) by enumerating every way to pick the x ranks among 1..m+n."""
    counts = np.zeros(m * n + 1)
    for x_ranks in itertools.combinations(range(m + n), m):
        u = sum(x_rank - position for position, x_rank in enumerate(x_ranks))  # y values below each x
        counts[u] += 1
    return np.cumsum(counts) / counts.sum()


def brute_signed_rank_null_cdf(n):
    counts = np.zeros(n * (n + 1) // 2 + 1)
    for signs in itertools.product([0, 1], repeat=n):
        counts[sum(rank for rank, positive in zip(range(1, n + 1), signs) if positive)] += 1
    return np.cumsum(counts) / counts.sum()


@pytest.mark.parametrize(("m", "n"), [(1, 1), (2, 3), (4, 4), (5, 7), (6, 3)])
def test_exact_null_distributions_match_enumeration(m, n):
    assert _mann_whitney_null_cdf(m, n) == pytest.approx(brute_mwu_null_cdf(m, n), rel=1e-12)
    assert _signed_rank_null_cdf(m + n) == pytest.approx(brute_signed_rank_null_cdf(m + n), rel=1e-12)


def order_statistic_interval(sorted_values, null_cdf, level, alternative):
    """k-th smallest and k-th largest, k - 1 = largest u with P(W <= u) <= alpha (per tail)."""
    alpha = 1 - level
    tail = alpha / 2 if alternative == "two-sided" else alpha
    k = sum(1 for value in null_cdf if value <= tail + 1e-12)
    low = -np.inf if alternative == "less" else sorted_values[k - 1]
    high = np.inf if alternative == "greater" else sorted_values[len(sorted_values) - k]
    return low, high


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_mann_whitney_estimate_and_exact_interval(alternative, level):
    rng = np.random.default_rng(18)
    a, b = rng.normal(1, 1, 7), rng.normal(0, 1, 8)
    differences = np.sort([x - y for x in a for y in b])
    result = compare(a, b, test="mannwhitneyu", alternative=alternative)
    assert result.estimate_name == "hodges_lehmann"
    assert result.estimate == pytest.approx(np.median(differences), rel=1e-12)
    expected = order_statistic_interval(differences, brute_mwu_null_cdf(7, 8), level, alternative)
    assert result.confidence_interval(level) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_wilcoxon_estimate_effect_and_exact_interval(alternative):
    a, b = paired_samples(19, 10)
    d = a - b
    walsh = np.sort([(d[i] + d[j]) / 2 for i in range(d.size) for j in range(i, d.size)])
    result = compare(a, b, test="wilcoxon", alternative=alternative)
    assert result.estimate == pytest.approx(np.median(walsh), rel=1e-12)
    expected = order_statistic_interval(walsh, brute_signed_rank_null_cdf(10), 0.95, alternative)
    assert result.confidence_interval() == pytest.approx(expected, rel=1e-12)
    # matched-pairs rank-biserial, no ties: 4 T+ / (n (n + 1)) - 1 with T+ = scipy's one-sided statistic
    t_plus = scipy_stats.wilcoxon(a, b, alternative="greater").statistic
    assert result.effect_size == pytest.approx(4 * t_plus / (d.size * (d.size + 1)) - 1, rel=1e-12)


def test_wilcoxon_rank_biserial_with_zeros_and_ties():
    rng = np.random.default_rng(20)
    a, b = reciprocal_ranks(rng, 50, 3), reciprocal_ranks(rng, 50, 3)
    d = a - b
    nonzero = [value for value in d if value != 0]
    # mid ranks of |d| by a slow loop
    ranks = [1 + sum(abs(other) < abs(value) for other in nonzero)
             + (sum(abs(other) == abs(value) for other in nonzero) - 1) / 2 for value in nonzero]
    r_plus = sum(rank for rank, value in zip(ranks, nonzero) if value > 0)
    r_minus = sum(rank for rank, value in zip(ranks, nonzero) if value < 0)
    result = compare(a, b, test="wilcoxon")
    assert result.effect_size == pytest.approx((r_plus - r_minus) / (r_plus + r_minus), rel=1e-12)
    walsh = [(d[i] + d[j]) / 2 for i in range(d.size) for j in range(i, d.size)]
    assert result.estimate == pytest.approx(np.median(walsh), abs=1e-15)


@pytest.mark.parametrize("kind", ["tiny", "unit", "huge", "rounded", "tied", "mixed_scales", "cancellation"])
def test_order_statistics_without_materialising_match_sorting(kind):
    rng = np.random.default_rng(len(kind))
    if kind in ("tiny", "unit", "huge"):
        scale = {"tiny": 1e-6, "unit": 1.0, "huge": 1e6}[kind]
        x, y = rng.normal(0, scale, 60), rng.normal(0, scale, 45)
    elif kind == "rounded":
        x, y = np.round(rng.normal(0, 1, 60), 3), np.round(rng.normal(0, 1, 45), 3)
    elif kind == "tied":
        x, y = reciprocal_ranks(rng, 60, 4) - 0.5, -reciprocal_ranks(rng, 45, 3)
    elif kind == "mixed_scales":
        x = rng.normal(0, 1, 60) * 10.0 ** rng.integers(-20, 20, 60)
        y = rng.normal(0, 1, 45) * 10.0 ** rng.integers(-20, 20, 45)
    else:  # 1e16 + small integers: every difference is rounded
        x, y = 1e16 + rng.integers(0, 5, 60).astype(float), rng.integers(0, 5, 45).astype(float)
    # explicit, sorted: computed with the same floating-point operations
    differences = np.sort(np.subtract.outer(x, y).ravel())
    walsh_values = np.sort(((x[:, None] + x[None, :]) / 2)[np.triu_indices(x.size)])
    pairwise, walsh = _PairwiseDifferences(x, y), _WalshAverages(x)
    for k in [1, 2, 17, 333, differences.size // 2, differences.size - 1, differences.size]:
        assert pairwise.kth(k) == differences[k - 1]
    for k in [1, 5, 100, walsh_values.size // 2, walsh_values.size]:
        assert walsh.kth(k) == walsh_values[k - 1]
    assert _median_of(pairwise) == pytest.approx(np.median(differences), rel=1e-15)
    assert _median_of(walsh) == pytest.approx(np.median(walsh_values), rel=1e-15)


def test_large_tied_samples_interval_by_normal_approximation():
    rng = np.random.default_rng(21)
    a, b = reciprocal_ranks(rng, 300, 10), reciprocal_ranks(rng, 250, 12)
    result = compare(a, b, test="mannwhitneyu")
    differences = np.sort(np.subtract.outer(a, b).ravel())
    assert result.estimate == pytest.approx(np.median(differences), rel=1e-12)
    low, high = result.confidence_interval()
    assert low <= result.estimate <= high
    assert low in differences and high in differences


def test_too_small_samples_give_an_unbounded_interval_with_a_warning():
    result = compare([0.1, 0.9], [0.3, 0.5], test="mannwhitneyu")
    with pytest.warns(DegenerateDataWarning, match="too few"):
        assert result.confidence_interval() == (-np.inf, np.inf)


@pytest.mark.parametrize("test", ["mannwhitneyu", "wilcoxon", "ttest", "permutation", "bootstrap"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_intervals_contain_the_estimate_and_open_on_the_right_side(test, alternative):
    a, b = paired_samples(22, 40)
    result = compare(a, b, test=test, paired=test != "mannwhitneyu", alternative=alternative, rng=1,
                     n_resamples=499)
    low, high = result.confidence_interval()
    assert low <= result.estimate <= high
    assert (low == -np.inf) == (alternative == "less")
    assert (high == np.inf) == (alternative == "greater")
    assert result.confidence_interval() == result.confidence_interval()  # reproducible


# --------------------------------------------------------------------------
# reports: alignment by query id
# --------------------------------------------------------------------------

def test_reports_are_aligned_by_query_id():
    rng = np.random.default_rng(23)
    qid = np.arange(100, 140)
    a, b = reciprocal_ranks(rng, 40, 5), reciprocal_ranks(rng, 40, 5)
    order_a, order_b = rng.permutation(40), rng.permutation(40)
    report_a = StandInReport(qid[order_a], mrr=a[order_a], map=a[order_a] / 2)
    report_b = StandInReport(qid[order_b], mrr=b[order_b], map=b[order_b] / 2)
    result = compare(report_a, report_b, metric="mrr")
    expected = scipy_stats.wilcoxon(a, b)
    assert (result.test, result.paired) == ("wilcoxon", True)
    assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-12)
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    # metric names are matched like the registry's: case, '-', '_' and spaces ignored
    assert compare(report_a, report_b, metric="M-R R").pvalue == result.pvalue
    t_result = compare(report_a, report_b, metric="map", test="ttest")
    assert t_result.paired
    assert t_result.statistic == pytest.approx(scipy_stats.ttest_rel(a / 2, b / 2).statistic, rel=1e-12)


def test_reports_sharing_some_queries_are_paired_on_the_shared_ones():
    # Issue 11, item 9: pair on the shared queries and say how many were left out.
    rng = np.random.default_rng(31)
    qid_a = np.array([f"q{i}" for i in range(25)] + ["only-a-1", "only-a-2"])
    qid_b = np.array(["only-b"] + [f"q{i}" for i in range(24, -1, -1)])  # the shared queries in another order
    values_a = reciprocal_ranks(rng, qid_a.size, 6)
    values_b = reciprocal_ranks(rng, qid_b.size, 6)
    report_a, report_b = StandInReport(qid_a, mrr=values_a), StandInReport(qid_b, mrr=values_b)
    # oracle: a dict join on the query ids
    by_qid_b = dict(zip(qid_b.tolist(), values_b))
    shared = [q for q in qid_a.tolist() if q in by_qid_b]
    x = np.array([values_a[qid_a.tolist().index(q)] for q in shared])
    y = np.array([by_qid_b[q] for q in shared])
    expected = scipy_stats.wilcoxon(x, y)
    for paired, test in ((None, "auto"), (True, "auto"), (None, "wilcoxon")):
        with pytest.warns(stats.UnpairedQueriesWarning,
                          match=r"share 25 query ids.*leaves out 2 query ids only in `a` \['only-a-1', 'only-a-2'\] "
                                r"and 1 only in `b` \['only-b'\]"):
            result = compare(report_a, report_b, metric="mrr", paired=paired, test=test)
        assert (result.test, result.paired, result.n_a, result.n_b) == ("wilcoxon", True, 25, 25)
        assert (result.n_unpaired_a, result.n_unpaired_b) == (2, 1)
        assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-12)
        assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert "n_unpaired_a=2, n_unpaired_b=1" in repr(result)
    with pytest.warns(stats.UnpairedQueriesWarning):
        table = compare_many({"a": report_a, "b": report_b}, metric="mrr")
    (row,) = table
    assert (row.wins, row.ties, row.losses) == (int(np.sum(x > y)), int(np.sum(x == y)), int(np.sum(x < y)))
    record = table.to_records()[0]
    assert (record["n_unpaired_a"], record["n_unpaired_b"]) == (2, 1)
    # the same queries: nothing left out, no warning
    full = one_warning_free_call(compare, report_a, StandInReport(qid_a[::-1], mrr=values_a + 0.5),
                                 metric="mrr", test="ttest")
    assert (full.n_unpaired_a, full.n_unpaired_b) == (0, 0)


def test_reports_without_shared_queries():
    report_a = StandInReport([1, 2, 3, 4, 7], mrr=[1, 0.5, 1, 0.2, 1])
    report_b = StandInReport([11, 12, 13, 14], mrr=[0.5, 0.5, 1, 0.25])
    # no shared query: independent samples, without a warning
    result = one_warning_free_call(compare, report_a, report_b, metric="mrr")
    assert (result.test, result.paired) == ("mannwhitneyu", False)
    for kwargs in ({"paired": True}, {"test": "wilcoxon"}):
        with pytest.raises(ValueError, match=r"at least two queries found in both.*Got 0 shared query ids"):
            compare(report_a, report_b, metric="mrr", **kwargs)
    one_shared = StandInReport([1, 12, 13], mrr=[0.5, 0.5, 1])
    with pytest.raises(ValueError, match=r"paired=False.*Got 1 shared query ids \(5 and 3 queries\)"):
        compare(report_a, one_shared, metric="mrr")


def test_report_errors():
    report = StandInReport([1, 2, 3], mrr=[1, 0.5, 0.25])
    with pytest.raises(ValueError, match=r"`metric` is required.*Got None instead"):
        compare(report, report)
    with pytest.raises(ValueError, match=r"`metric` must name.*\{'mrr'\}. Got 'ndcg@10' instead"):
        compare(report, report, metric="ndcg@10")
    repeated = StandInReport([1, 1, 3], mrr=[1, 0.5, 0.25])
    with pytest.raises(ValueError, match=r"more than once.*\[1\]"):
        compare(repeated, report, metric="mrr", paired=True)
    with_nan = StandInReport([5, 6, 7], mrr=[1, np.nan, 0.25])
    with pytest.raises(ValueError, match=r"NaN.*query ids \[6\]"):
        compare(with_nan, report, metric="mrr")
    with pytest.raises(TypeError, match="is a report"):
        mann_whitney_u(report, [1.0, 2.0])


def test_real_report_from_evaluate():
    try:
        from sklearn_rank import evaluate
    except ImportError:
        pytest.skip("sklearn_rank.evaluate is not available yet (the engine is being written)")
    rng = np.random.default_rng(24)
    qid = np.repeat(np.arange(30), 8)
    y_true = np.zeros(qid.size, dtype=int)
    y_true[::8] = 1  # one relevant item per query, so no query is skipped
    good = y_true + rng.normal(0, 0.8, qid.size)
    poor = y_true + rng.normal(0, 2.0, qid.size)
    report_good = evaluate(y_true, good, qid=qid, metrics=["mrr"])
    report_poor = evaluate(y_true, poor, qid=qid, metrics=["mrr"])
    result = compare(report_good, report_poor, metric="mrr")
    assert (result.test, result.paired) == ("wilcoxon", True)
    expected = scipy_stats.wilcoxon(report_good.per_query["mrr"], report_poor.per_query["mrr"])
    assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-12)
    assert result.n_a == result.n_b == 30


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------

GOOD = [0.1, 0.5, 0.3, 0.9]


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: compare([0.5], GOOD), ValueError, r"`a` needs at least two values. Got 1 instead"),
        (lambda: mann_whitney_u(GOOD, []), ValueError, r"`b` needs at least two values. Got 0 instead"),
        (lambda: compare([0.5, np.nan, 0.2], GOOD), ValueError, r"`a` must not contain NaN.*positions \[1\]"),
        (lambda: compare(GOOD, [0.1, np.inf]), ValueError, r"`b` must not contain NaN or infinite"),
        (lambda: compare(np.ones((2, 3)), GOOD), ValueError, r"1-D.*Got an array of shape \(2, 3\) instead"),
        (lambda: compare(["x", "y"], GOOD), TypeError, r"`a` must be a 1-D array of numbers"),
        (lambda: compare(GOOD, GOOD[:3], paired=True), ValueError, r"as many values.*Got 4 and 3 instead"),
        (lambda: compare(GOOD, GOOD[:3], test="wilcoxon"), ValueError, r"Got 4 and 3 instead"),
        (lambda: compare(GOOD, GOOD, test="sign"), ValueError,
         r"`test` must be one of \{'auto', 'mannwhitneyu', 'wilcoxon', 'ttest', 'permutation', 'bootstrap'\}. "
         r"Got 'sign' instead"),
        (lambda: compare(GOOD, GOOD, alternative="bigger"), ValueError,
         r"`alternative` must be one of \{'two-sided', 'less', 'greater'\}. Got 'bigger' instead"),
        (lambda: mann_whitney_u(GOOD, GOOD, alternative="two_sided"), ValueError, r"`alternative` must be one of"),
        (lambda: corrected_ttest(GOOD, GOOD, n_train=9, n_test=1, alternative=None), ValueError,
         r"`alternative` must be one of.*Got None instead"),
        (lambda: compare_many({"a": GOOD, "b": GOOD}, correction="sidak"), ValueError,
         r"`correction` must be one of \{'holm', 'bonferroni', 'fdr_bh', None\}. Got 'sidak' instead"),
        (lambda: compare_many({"a": GOOD, "b": GOOD}, alternative="up"), ValueError, r"`alternative` must be"),
        (lambda: compare_many({"a": GOOD}), ValueError, r"at least two models.*Got 1 instead"),
        (lambda: compare_many([GOOD, GOOD]), TypeError, r"`results` must be a mapping.*Got list instead"),
        (lambda: compare_many({"a": GOOD, "b": GOOD}, baseline="c"), ValueError,
         r"`baseline` must be one of the models \{'a', 'b'\}. Got 'c' instead"),
        (lambda: compare_many({"a": GOOD, "b": [1.0]}), ValueError, r"`results\['b'\]` needs at least two"),
        (lambda: compare(GOOD, GOOD, test="wilcoxon", paired=False), ValueError, r"paired test.*Got paired=False"),
        (lambda: compare(GOOD, GOOD, test="mannwhitneyu", paired=True), ValueError,
         r"independent samples.*Got paired=True"),
        (lambda: compare(GOOD, GOOD, paired="yes"), ValueError, r"`paired` must be None, True or False"),
        (lambda: compare(GOOD, GOOD, confidence_level=95), ValueError,
         r"`confidence_level` must be a number strictly between 0 and 1. Got 95 instead"),
        (lambda: compare(GOOD, GOOD, test="permutation", n_resamples=0), ValueError,
         r"`n_resamples` must be a positive integer. Got 0 instead"),
        (lambda: compare(GOOD, GOOD, test="permutation", rng=-1), ValueError, r"`rng` must be a non-negative"),
        (lambda: compare(GOOD, GOOD, test="bootstrap", rng=np.random.RandomState(0)), TypeError,
         r"`rng` must be None, a non-negative int or a numpy.random.Generator. Got RandomState instead"),
        (lambda: corrected_ttest(GOOD, GOOD[:3], n_train=9, n_test=1), ValueError, r"Got 4 and 3 scores instead"),
        (lambda: corrected_ttest(GOOD, GOOD, n_train=0, n_test=1), ValueError, r"`n_train` must be a positive"),
        (lambda: corrected_ttest([0.8], [0.7], n_train=9, n_test=1), ValueError, r"`scores_a` needs at least two"),
        (lambda: bootstrap_ci(GOOD, method="studentized"), ValueError,
         r"`method` must be one of \{'percentile', 'basic', 'BCa'\}. Got 'studentized' instead"),
        (lambda: bootstrap_ci([0.3]), ValueError, r"`values` needs at least two values"),
        (lambda: bootstrap_ci(GOOD, confidence_level=0), ValueError, r"`confidence_level`"),
        (lambda: bootstrap_ci(GOOD, statistic="mean"), TypeError, r"`statistic` must be callable"),
        (lambda: compare(GOOD, GOOD).confidence_interval(1.0), ValueError, r"`confidence_level`"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


# --------------------------------------------------------------------------
# degenerate data: defined answers and a warning, never a RuntimeWarning
# --------------------------------------------------------------------------

def run_expecting_degenerate_warning(function, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args, **kwargs)
    categories = [w.category for w in caught]
    assert DegenerateDataWarning in categories
    assert issubclass(DegenerateDataWarning, UserWarning)
    assert not any(issubclass(category, RuntimeWarning) for category in categories), categories
    return result


@pytest.mark.parametrize(("test", "paired"), [("mannwhitneyu", False), ("wilcoxon", True), ("ttest", True),
                                             ("ttest", False), ("permutation", True), ("permutation", False),
                                             ("bootstrap", True), ("bootstrap", False)])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_identical_values_give_pvalue_one_and_a_warning(test, paired, alternative):
    values = [0.5, 0.5, 0.5, 0.5, 0.5]
    result = run_expecting_degenerate_warning(compare, values, list(values), test=test, paired=paired,
                                              alternative=alternative, rng=0, n_resamples=99)
    assert result.pvalue == 1.0
    assert result.statistic == (12.5 if test == "mannwhitneyu" else 0.0)
    assert result.estimate == 0.0
    assert result.effect_size == 0.0
    low, high = result.confidence_interval()
    assert (low <= 0.0 <= high) and math.isfinite(low if alternative != "less" else high)


def test_paired_zero_differences_with_varying_values():
    a = [1.0, 0.5, 0.25, 1.0, 0.2]
    for test in ["wilcoxon", "ttest", "permutation", "bootstrap"]:
        result = run_expecting_degenerate_warning(compare, a, list(a), test=test, paired=True, rng=0,
                                                  n_resamples=99)
        assert result.pvalue == 1.0


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_constant_nonzero_differences_in_a_t_test(alternative):
    a = np.array([0.6, 0.7, 0.8, 0.9])
    b = a - 0.5
    b = a - (a - b)[0]  # exactly constant differences
    result = run_expecting_degenerate_warning(compare, a, b, test="ttest", paired=True, alternative=alternative)
    difference = (a - b)[0]
    assert result.statistic == np.inf and result.effect_size == np.inf
    assert result.estimate == difference
    assert result.pvalue == {"two-sided": 0.0, "greater": 0.0, "less": 1.0}[alternative]
    # the rank and permutation tests are well defined here
    assert one_warning_free_call(compare, a, b, test="wilcoxon", alternative=alternative).pvalue > 0
    assert one_warning_free_call(compare, a, b, test="permutation", paired=True, rng=0,
                                 alternative=alternative).pvalue > 0


def test_corrected_ttest_and_bootstrap_ci_with_zero_variance():
    result = run_expecting_degenerate_warning(corrected_ttest, [0.8, 0.8, 0.8], [0.8, 0.8, 0.8], n_train=90,
                                              n_test=10)
    assert (result.statistic, result.pvalue) == (0.0, 1.0)
    assert result.confidence_interval() == (0.0, 0.0)
    interval = run_expecting_degenerate_warning(bootstrap_ci, [0.25, 0.25, 0.25], n_resamples=99, rng=0)
    assert interval == (0.25, 0.25)


def test_one_constant_sample_is_fine_for_the_unpaired_t_test():
    # scipy.stats.ttest_ind warns (RuntimeWarning) on a constant sample; the test itself is well defined
    a, b = np.array([1.0, 1.0, 1.0, 1.0]), np.array([0.2, 0.5, 0.25, 1.0, 0.33])
    result = one_warning_free_call(compare, a, b, test="ttest")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = scipy_stats.ttest_ind(a, b, equal_var=False)
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-10)
    one_warning_free_call(compare, a, b, test="mannwhitneyu")
    one_warning_free_call(compare, a, b, test="bootstrap", rng=0, n_resamples=199)


# --------------------------------------------------------------------------
# randomness, repr, result object
# --------------------------------------------------------------------------

@pytest.mark.parametrize("test", ["permutation", "bootstrap"])
@pytest.mark.parametrize("paired", [True, False])
def test_same_seed_same_pvalue_and_no_global_state(test, paired):
    a, b = paired_samples(25, 40)
    before = np.random.get_state()[1].copy()
    first = compare(a, b, test=test, paired=paired, rng=123, n_resamples=299)
    second = compare(a, b, test=test, paired=paired, rng=123, n_resamples=299)
    generator = compare(a, b, test=test, paired=paired, rng=np.random.default_rng(123), n_resamples=299)
    assert first.pvalue == second.pvalue == generator.pvalue
    assert first.confidence_interval() == second.confidence_interval()
    assert np.array_equal(np.random.get_state()[1], before)


def test_auto_says_which_test_it_picked():
    a, b = paired_samples(26, 12)
    assert compare(a, b).test == "mannwhitneyu"
    assert compare(a, b, paired=True).test == "wilcoxon"
    assert compare(a, b[:7]).test == "mannwhitneyu"


def test_result_repr_and_fields():
    result = compare([1.0, 0.5, 1.0, 0.25, 1.0, 0.33, 1.0], [0.5, 0.2, 0.5, 0.2, 0.1, 0.25, 0.14], paired=True)
    assert isinstance(result, ComparisonResult)
    text = repr(result)
    for piece in ["ComparisonResult(", "test='wilcoxon'", "paired=True", "pvalue=", "statistic=",
                  "estimate_name='hodges_lehmann'", "effect_size_name='rank_biserial'", "n_a=7"]:
        assert piece in text
    assert "np.float64" not in text
    for name in ["statistic", "pvalue", "estimate", "effect_size"]:
        assert type(getattr(result, name)) is float
    assert isinstance(result.n_a, int)
    low, high = result.confidence_interval()
    assert (low, high) == tuple(result.confidence_interval(0.95))


def test_greater_and_less_are_about_a_minus_b():
    rng = np.random.default_rng(27)
    b = rng.random(30)
    a = b + rng.normal(0.6, 0.2, 30)  # a is larger
    for test in ["mannwhitneyu", "wilcoxon", "ttest"]:
        greater = compare(a, b, test=test, alternative="greater", paired=test != "mannwhitneyu")
        less = compare(a, b, test=test, alternative="less", paired=test != "mannwhitneyu")
        assert greater.pvalue < 0.05 < less.pvalue
        assert greater.estimate > 0 and greater.effect_size > 0


@pytest.mark.parametrize(("test", "paired"), [("mannwhitneyu", False), ("wilcoxon", True), ("ttest", True),
                                             ("ttest", False), ("permutation", True)])
def test_swapping_a_and_b_mirrors_everything(test, paired):
    # (random label shuffles of swapped samples are other draws, so the unpaired permutation test is left out)
    rng = np.random.default_rng(28)
    a, b = reciprocal_ranks(rng, 14, 5), reciprocal_ranks(rng, 14, 6)
    forward = {alt: compare(a, b, test=test, paired=paired, alternative=alt, rng=4, n_resamples=199)
               for alt in ALTERNATIVES}
    backward = {alt: compare(b, a, test=test, paired=paired, alternative=alt, rng=4, n_resamples=199)
                for alt in ALTERNATIVES}
    assert forward["greater"].pvalue == pytest.approx(backward["less"].pvalue, rel=1e-9)
    assert forward["two-sided"].pvalue == pytest.approx(backward["two-sided"].pvalue, rel=1e-9)
    assert forward["two-sided"].estimate == pytest.approx(-backward["two-sided"].estimate, abs=1e-15)
    assert forward["two-sided"].effect_size == pytest.approx(-backward["two-sided"].effect_size, abs=1e-15)
    low, high = forward["two-sided"].confidence_interval()
    back_low, back_high = backward["two-sided"].confidence_interval()
    if test != "permutation":  # bootstrap intervals of the mirrored data differ by resampling noise
        assert (low, high) == pytest.approx((-back_high, -back_low), abs=1e-12)


def test_table_slices_keep_the_family_adjustment():
    rng = np.random.default_rng(29)
    runs = {name: rng.random(12) for name in "abcd"}
    table = compare_many(runs, correction="bonferroni")
    head = table[:2]
    assert isinstance(head, ComparisonTable) and len(head) == 2
    assert [row.pvalue_adjusted for row in head] == [row.pvalue_adjusted for row in table][:2]
    assert all(row.pvalue_adjusted == pytest.approx(min(1.0, 6 * row.pvalue)) for row in head)


# --------------------------------------------------------------------------
# issue 21 item 6: a paired result says how many differences were zero
# --------------------------------------------------------------------------

def _mostly_zero_differences(n=40, n_nonzero=8, seed=60):
    rng = np.random.default_rng(seed)
    b = reciprocal_ranks(rng, n, 10)
    a = b.copy()
    a[:n_nonzero] += rng.uniform(0.05, 0.5, n_nonzero)  # only these queries differ, all in favour of a
    return a, b


@pytest.mark.parametrize("test", ["wilcoxon", "ttest", "permutation", "bootstrap"])
def test_paired_result_counts_zero_differences_and_warns_when_they_dominate(test):
    a, b = _mostly_zero_differences()
    # oracle: a loop over the pairs
    wins = sum(1 for x, y in zip(a, b) if x > y)
    ties = sum(1 for x, y in zip(a, b) if x == y)
    losses = sum(1 for x, y in zip(a, b) if x < y)
    assert (wins, ties, losses) == (8, 32, 0)
    with pytest.warns(DegenerateDataWarning, match=r"32 of 40 paired differences are zero"):
        result = compare(a, b, test=test, paired=True, rng=0, n_resamples=199)
    assert (result.wins, result.ties, result.losses) == (wins, ties, losses)
    assert result.n_zero == ties
    text = repr(result)
    assert "wins=8, ties=32, losses=0" in text
    assert "n_zero=32" in text


def test_wilcoxon_with_mostly_zero_differences_says_why_the_estimate_is_zero():
    # the case of the issue: a tiny p-value beside a Hodges-Lehmann estimate of 0.0
    a, b = _mostly_zero_differences(n=100, n_nonzero=20, seed=61)
    with pytest.warns(DegenerateDataWarning) as caught:
        result = compare(a, b, test="wilcoxon")
    assert result.estimate == 0.0 and result.pvalue < 1e-3
    message = " ".join(str(w.message) for w in caught)
    assert "80 of 100" in message and "20" in message and "Wilcoxon" in message


def test_few_zero_differences_do_not_warn_and_are_still_counted():
    a, b = _mostly_zero_differences(n=10, n_nonzero=5, seed=62)  # exactly half zero: no warning
    result = one_warning_free_call(compare, a, b, test="wilcoxon")
    assert (result.wins, result.ties, result.losses, result.n_zero) == (5, 5, 0, 5)


def test_unpaired_result_counts_cross_pairs_as_compare_many_rows_do():
    rng = np.random.default_rng(63)
    a, b = reciprocal_ranks(rng, 9, 4), reciprocal_ranks(rng, 7, 4)
    result = compare(a, b, test="mannwhitneyu")
    cross = [(x > y, x == y, x < y) for x in a for y in b]
    assert (result.wins, result.ties, result.losses) == tuple(int(sum(c[i] for c in cross)) for i in range(3))
    assert result.n_zero == 0  # no paired differences
    assert "n_zero" not in repr(result) and f"wins={result.wins}" in repr(result)
    row = compare_many({"a": a, "b": b}, test="mannwhitneyu")[0]
    assert (row.wins, row.ties, row.losses) == (result.wins, result.ties, result.losses)


def test_compare_many_rows_and_their_results_agree_on_the_counts():
    a, b = _mostly_zero_differences(n=12, n_nonzero=9, seed=64)
    with pytest.warns(DegenerateDataWarning, match="8 of 12 paired differences are zero"):  # b and c
        table = compare_many({"a": a, "b": b, "c": b[::-1].copy()}, paired=True, test="ttest")
    for row in table:
        assert (row.wins, row.ties, row.losses) == (row.result.wins, row.result.ties, row.result.losses)


def test_corrected_ttest_counts_the_folds():
    a, b = [0.8, 0.7, 0.75, 0.9, 0.85], [0.8, 0.6, 0.7, 0.95, 0.8]
    result = corrected_ttest(a, b, n_train=80, n_test=20)
    assert (result.wins, result.ties, result.losses, result.n_zero) == (3, 1, 1, 1)


# --------------------------------------------------------------------------
# issue 21 item 5: weighted reports are compared with their weights
# --------------------------------------------------------------------------

def _weighted_reports(seed=70, n=30, shared=None):
    """Two evaluate() reports of the same queries with one weight per query, and the per-query arrays."""
    from sklearn_rank import evaluate

    rng = np.random.default_rng(seed)
    labels = (rng.random((n, 6)) < 0.3).astype(int)
    labels[:, 0] = 1  # every query has a relevant item
    scores_a = labels * 0.8 + rng.normal(0, 1, labels.shape)
    scores_b = rng.normal(0, 1, labels.shape)
    weight = rng.choice([1.0, 2.0, 5.0, 0.5], size=n)
    report_a = evaluate(labels, scores_a, metrics=["mrr"], sample_weight=weight)
    report_b = evaluate(labels, scores_b, metrics=["mrr"], sample_weight=weight)
    return report_a, report_b, weight


def weighted_t_oracle(d, w):
    """The documented weighted paired t, by a loop: frequency weights rescaled to total n."""
    n = len(d)
    total = sum(w)
    mean = sum(wi * di for wi, di in zip(w, d)) / total
    variance = n / (n - 1) * sum(wi * (di - mean) ** 2 for wi, di in zip(w, d)) / total
    standard_error = math.sqrt(variance / n)
    return mean, mean / standard_error, n - 1, math.sqrt(variance)


def test_reports_carry_their_per_query_weights():
    from sklearn_rank import evaluate

    report = evaluate([[1, 0], [0, 1], [1, 0]], [[0.9, 0.1], [0.8, 0.2], [0.3, 0.7]], metrics=["mrr"],
                      sample_weight=[2.0, 1.0, 3.0])
    assert np.array_equal(report.sample_weight, [2.0, 1.0, 3.0])
    assert evaluate([[1, 0], [0, 1]], [[0.9, 0.1], [0.8, 0.2]], metrics=["mrr"]).sample_weight is None


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_weighted_paired_ttest_matches_the_formula_and_the_weighted_summaries(alternative):
    report_a, report_b, weight = _weighted_reports()
    result = compare(report_a, report_b, metric="mrr", test="ttest", alternative=alternative)
    assert result.weighted and result.paired and result.test == "ttest"
    d = report_a.per_query["mrr"] - report_b.per_query["mrr"]
    mean, t, df, sd = weighted_t_oracle(list(d), list(weight))
    # the estimate is the difference of the reports' (weighted) summaries
    assert result.estimate == pytest.approx(report_a.summary["mrr"] - report_b.summary["mrr"], rel=1e-12)
    assert result.estimate == pytest.approx(mean, rel=1e-12)
    assert result.statistic == pytest.approx(t, rel=1e-10)
    expected_p = {"two-sided": 2 * scipy_stats.t.sf(abs(t), df), "greater": scipy_stats.t.sf(t, df),
                  "less": scipy_stats.t.cdf(t, df)}[alternative]
    assert result.pvalue == pytest.approx(expected_p, rel=1e-9)
    assert result.effect_size == pytest.approx(mean / sd, rel=1e-10)
    unweighted = compare(report_a.per_query["mrr"], report_b.per_query["mrr"], test="ttest", paired=True,
                         alternative=alternative)
    assert result.estimate != pytest.approx(unweighted.estimate, rel=1e-6)
    if alternative == "two-sided":
        low, high = result.confidence_interval(0.9)
        half = scipy_stats.t.ppf(0.95, df) * sd / math.sqrt(len(d))
        assert (low, high) == pytest.approx((mean - half, mean + half), rel=1e-10)


def test_weighted_ttest_with_integer_weights_is_the_t_test_of_repeated_rows_counted_as_n_queries():
    # scipy on the rows repeated w times: the same mean, and the same t once the sample size is n, not sum(w)
    rng = np.random.default_rng(71)
    d = rng.normal(0.1, 0.3, 15)
    w = rng.integers(1, 5, 15)
    result = compare(StandInWeightedReport(np.arange(15), d, w), StandInWeightedReport(np.arange(15), 0 * d, w),
                     metric="m", test="ttest")
    repeated = scipy_stats.ttest_1samp(np.repeat(d, w), 0.0)
    assert result.estimate == pytest.approx(np.repeat(d, w).mean(), rel=1e-12)
    n, total = d.size, w.sum()
    assert result.statistic == pytest.approx(repeated.statistic * math.sqrt((n - 1) / (total - 1)), rel=1e-10)
    # weights summing to n are the repeated rows exactly
    w = np.array([3, 1, 0, 2, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1])
    assert w.sum() == 15
    kept = w > 0  # a query of weight 0 counts neither in the summary nor in the test
    result = compare(StandInWeightedReport(np.arange(15), d, w), StandInWeightedReport(np.arange(15), 0 * d, w),
                     metric="m", test="ttest")
    mean, t, df, _ = weighted_t_oracle(list(d[kept]), list(w[kept]))
    assert result.n_a == kept.sum() and result.statistic == pytest.approx(t, rel=1e-10)


class StandInWeightedReport:
    """A report with one metric ``m`` and per-query weights."""

    def __init__(self, qid, values, weight):
        self.per_query = {"qid": np.asarray(qid), "m": np.asarray(values, dtype=float)}
        self.sample_weight = None if weight is None else np.asarray(weight, dtype=float)


@pytest.mark.parametrize(("test", "paired"), [("auto", None), ("wilcoxon", True), ("ttest", True),
                                             ("ttest", False), ("permutation", True), ("bootstrap", True),
                                             ("bootstrap", False), ("mannwhitneyu", False)])
def test_equal_weights_keep_the_unweighted_numbers_exactly(test, paired):
    rng = np.random.default_rng(72)
    qid = np.arange(25)
    a, b = reciprocal_ranks(rng, 25, 6), reciprocal_ranks(rng, 25, 6)
    plain = compare(StandInReport(qid, m=a), StandInReport(qid, m=b), metric="m", test=test, paired=paired,
                    rng=3, n_resamples=299)
    for value in (1.0, 3.0):
        weighted = compare(StandInWeightedReport(qid, a, np.full(25, value)),
                           StandInWeightedReport(qid, b, np.full(25, value)), metric="m", test=test,
                           paired=paired, rng=3, n_resamples=299)
        assert weighted == plain and not weighted.weighted
        assert weighted.confidence_interval() == plain.confidence_interval()


@pytest.mark.parametrize("test", ["auto", "wilcoxon", "mannwhitneyu"])
def test_rank_tests_refuse_weighted_reports(test):
    report_a, report_b, _ = _weighted_reports(seed=73)
    paired = False if test == "mannwhitneyu" else None
    with pytest.raises(ValueError, match=r"sample_weight.*(wilcoxon|mannwhitneyu)|"
                                         r"(wilcoxon|mannwhitneyu).*sample_weight") as caught:
        compare(report_a, report_b, metric="mrr", test=test, paired=paired)
    assert "ttest" in str(caught.value)  # says what to run instead
    with pytest.raises(ValueError, match="sample_weight"):
        compare_many({"a": report_a, "b": report_b}, metric="mrr", test=test, paired=paired)


def test_paired_reports_must_agree_on_the_weights():
    qid = np.arange(6)
    values = [0.1, 0.5, 0.3, 1.0, 0.2, 0.7]
    weighted = StandInWeightedReport(qid, values, [1, 2, 1, 1, 1, 1])
    other = StandInWeightedReport(qid, values[::-1], [1, 2, 1, 1, 3, 1])
    with pytest.raises(ValueError, match=r"sample_weight.*query id.*4"):
        compare(weighted, other, metric="m", test="ttest")
    with pytest.raises(ValueError, match=r"`b`.*no sample_weight|sample_weight.*`b`"):
        compare(weighted, StandInWeightedReport(qid, values[::-1], None), metric="m", test="ttest")
    # independent samples each keep their own weights
    result = compare(weighted, StandInWeightedReport(qid, values[::-1], None), metric="m", test="ttest",
                     paired=False)
    assert result.weighted and not result.paired


def test_weighted_welch_ttest_matches_the_formula():
    rng = np.random.default_rng(74)
    x, y = rng.random(12), rng.random(9) + 0.2
    wx, wy = rng.uniform(0.2, 3, 12), rng.uniform(0.2, 3, 9)
    result = compare(StandInWeightedReport(np.arange(12), x, wx), StandInWeightedReport(np.arange(12, 21), y, wy),
                     metric="m", test="ttest")
    assert not result.paired and result.weighted

    def moments(v, w):
        n = len(v)
        mean = sum(a * b for a, b in zip(w, v)) / sum(w)
        return mean, n / (n - 1) * sum(b * (a - mean) ** 2 for a, b in zip(v, w)) / sum(w), n

    (mx, vx, nx), (my, vy, ny) = moments(x, wx), moments(y, wy)
    se2 = vx / nx + vy / ny
    df = se2 ** 2 / ((vx / nx) ** 2 / (nx - 1) + (vy / ny) ** 2 / (ny - 1))
    t = (mx - my) / math.sqrt(se2)
    assert result.estimate == pytest.approx(mx - my, rel=1e-12)
    assert result.statistic == pytest.approx(t, rel=1e-10)
    assert result.pvalue == pytest.approx(2 * scipy_stats.t.sf(abs(t), df), rel=1e-9)


def test_weighted_paired_permutation_matches_every_sign_flip():
    rng = np.random.default_rng(75)
    d = rng.normal(0.2, 0.4, 9)
    w = rng.uniform(0.5, 4, 9)
    result = compare(StandInWeightedReport(np.arange(9), d, w), StandInWeightedReport(np.arange(9), 0 * d, w),
                     metric="m", test="permutation", alternative="greater", rng=0)
    observed = sum(w * d) / sum(w)
    flips = [sum(s * wi * di for s, wi, di in zip(signs, w, d)) / sum(w)
             for signs in itertools.product([1, -1], repeat=9)]
    expected = sum(1 for f in flips if f >= observed - 1e-12) / len(flips)
    assert result.weighted
    assert result.estimate == pytest.approx(observed, rel=1e-12)
    assert result.pvalue == pytest.approx(expected, rel=1e-12)


def test_weighted_bootstrap_is_about_the_weighted_mean():
    # heavy queries favour a, the many light ones favour b: the unweighted mean difference is negative,
    # the weighted one positive
    rng = np.random.default_rng(76)
    n = 40
    d = np.where(np.arange(n) < 10, rng.normal(0.4, 0.05, n), rng.normal(-0.2, 0.05, n))
    w = np.where(np.arange(n) < 10, 10.0, 1.0)
    a, b = StandInWeightedReport(np.arange(n), d, w), StandInWeightedReport(np.arange(n), 0 * d, w)
    result = compare(a, b, metric="m", test="bootstrap", alternative="greater", rng=1, n_resamples=1999)
    weighted_mean = float(np.dot(w, d) / w.sum())
    assert d.mean() < 0 < weighted_mean
    assert result.weighted and result.estimate == pytest.approx(weighted_mean, rel=1e-12)
    assert result.pvalue < 0.01
    low, high = result.confidence_interval()
    assert low > 0 and high == math.inf
    two_sided = compare(a, b, metric="m", test="bootstrap", rng=1, n_resamples=1999)
    low, high = two_sided.confidence_interval()
    assert low < weighted_mean < high and not low < d.mean() < high
    # oracle for the resampling: a slow loop drawing queries with their weights (same question, other draws)
    draws = np.random.default_rng(5)
    means = []
    for _ in range(1000):
        pick = draws.integers(0, n, n)
        means.append(np.dot(w[pick], d[pick]) / w[pick].sum())
    assert (low, high) == pytest.approx(tuple(np.percentile(means, [2.5, 97.5])), abs=0.03)
