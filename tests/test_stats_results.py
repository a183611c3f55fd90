"""The result objects of sklearn_rank.stats: they pickle and copy like scipy's results.

Oracles: the object before pickling (every interval computed afresh on both
sides), and scipy.stats for the intervals that an unpickled result computes.
"""

import copy
import pickle
import re
import warnings

import numpy as np
import pytest
from scipy import stats as scipy_stats

from sklearn_rank.stats import (ComparisonResult, ComparisonRow, ComparisonTable, ConfidenceInterval,
                                DegenerateDataWarning, bootstrap_ci, compare, compare_many, corrected_ttest,
                                mann_whitney_u)

ALTERNATIVES = ["two-sided", "less", "greater"]
TESTS = [("mannwhitneyu", False), ("wilcoxon", True), ("ttest", True), ("ttest", False), ("permutation", True),
         ("permutation", False), ("bootstrap", True), ("bootstrap", False)]


def _samples(kind):
    rng = np.random.default_rng(40)
    if kind == "varied":
        b = rng.random(30)
        return b + rng.normal(0.05, 0.1, 30), b
    if kind == "tied":  # many ties: the rank intervals use the normal approximation
        return 1.0 / rng.integers(1, 5, 60), 1.0 / rng.integers(1, 6, 60)
    # zero variance: the mean-based intervals are a single point
    return np.full(8, 0.75), np.full(8, 0.5)


def _quietly(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return function(*args, **kwargs)


def _roundtrip(obj):
    return pickle.loads(pickle.dumps(obj))


def _assert_same_result(restored, result, levels=(None, 0.8, 0.99)):
    assert type(restored) is type(result)
    assert restored == result
    assert repr(restored) == repr(result)
    for level in levels:
        interval = _quietly(restored.confidence_interval, level)
        assert type(interval) is ConfidenceInterval
        assert interval == _quietly(result.confidence_interval, level)


@pytest.mark.parametrize(("test", "paired"), TESTS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("kind", ["varied", "tied", "constant"])
def test_comparison_results_pickle_to_equal_results_with_working_intervals(test, paired, alternative, kind):
    a, b = _samples(kind)
    result = _quietly(compare, a, b, test=test, paired=paired, alternative=alternative, confidence_level=0.9,
                      rng=0, n_resamples=199)
    # pickled before any interval was asked for: the unpickled result computes them itself
    _assert_same_result(_roundtrip(result), result)
    # and after: the copy answers the same
    _assert_same_result(_roundtrip(result), result)
    _assert_same_result(copy.deepcopy(result), result)
    _assert_same_result(copy.copy(result), result)


def test_unpickled_intervals_are_scipy_intervals():
    a, b = _samples("varied")
    bootstrap = _roundtrip(compare(a, b, test="bootstrap", paired=True, rng=5, n_resamples=999))
    expected = scipy_stats.bootstrap((a - b,), np.mean, n_resamples=999, confidence_level=0.8, method="BCa",
                                     rng=np.random.default_rng(5))
    assert bootstrap.confidence_interval(0.8) == pytest.approx(tuple(map(float, expected.confidence_interval)),
                                                               rel=1e-12)
    ttest = _roundtrip(compare(a, b, test="ttest", paired=True))
    expected = scipy_stats.ttest_rel(a, b).confidence_interval(0.8)
    assert ttest.confidence_interval(0.8) == pytest.approx(tuple(map(float, expected)), rel=1e-12)
    rank = _roundtrip(mann_whitney_u(a[:7], b[:8]))
    differences = np.sort(np.subtract.outer(a[:7], b[:8]).ravel())
    assert rank.estimate == np.median(differences)
    low, high = rank.confidence_interval()
    assert low in differences and high in differences and low <= rank.estimate <= high


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("kind", ["varied", "constant"])
def test_corrected_ttest_results_pickle(alternative, kind):
    a, b = _samples(kind)
    result = _quietly(corrected_ttest, a[:10], b[:10], n_train=90, n_test=10, alternative=alternative)
    _assert_same_result(_roundtrip(result), result)


@pytest.mark.parametrize("test", ["auto", "permutation", "bootstrap"])
def test_comparison_tables_and_rows_pickle(test):
    rng = np.random.default_rng(41)
    runs = {name: rng.random(20) + shift for name, shift in zip("abc", (0.0, 0.1, 0.3))}
    table = compare_many(runs, test=test, paired=True, correction="fdr_bh", rng=3, n_resamples=199)
    restored = _roundtrip(table)
    assert type(restored) is ComparisonTable
    assert restored == table and hash(restored) == hash(table)
    assert (restored.correction, restored.alternative) == ("fdr_bh", "two-sided")
    assert repr(restored) == repr(table)
    assert restored.to_records() == table.to_records()
    for row, original in zip(restored, table):
        assert type(row) is ComparisonRow and row == original
        _assert_same_result(row.result, original.result)
        _assert_same_result(_roundtrip(original).result, original.result)
    assert restored[1:] == table[1:]
    assert restored != compare_many(runs, test=test, paired=True, correction="holm", rng=3, n_resamples=199)
    assert restored != table[1:]


def test_bootstrap_ci_pickles():
    values = np.random.default_rng(42).random(25)
    interval = bootstrap_ci(values, n_resamples=199, rng=0)
    restored = _roundtrip(interval)
    assert type(restored) is ConfidenceInterval and restored == interval
    assert (restored.low, restored.high) == (interval.low, interval.high)


def test_result_fields_are_plain_data():
    # nothing callable hides in the state that pickle stores, apart from the interval's data object
    result = compare(*_samples("varied"), paired=True)
    assert isinstance(result, ComparisonResult)
    assert not any(callable(value) and not hasattr(value, "__dataclass_fields__")
                   for value in vars(result).values())


# --------------------------------------------------------------------------
# warnings point at the caller's line
# --------------------------------------------------------------------------

class _Report:
    def __init__(self, qid, values):
        self.per_query = {"qid": np.asarray(qid), "mrr": np.asarray(values, dtype=float)}


CONSTANT = [0.5, 0.5, 0.5, 0.5]
WARNING_CALLS = {
    "compare": lambda: compare(CONSTANT, CONSTANT, paired=True),
    "compare-mannwhitneyu": lambda: compare(CONSTANT, CONSTANT),
    "compare-ttest": lambda: compare(CONSTANT, CONSTANT, test="ttest"),
    "compare-permutation": lambda: compare(CONSTANT, CONSTANT, test="permutation", rng=0),
    "compare-bootstrap": lambda: compare(CONSTANT, CONSTANT, test="bootstrap", rng=0),
    "mann_whitney_u": lambda: mann_whitney_u(CONSTANT, CONSTANT),
    "compare_many": lambda: compare_many({"a": CONSTANT, "b": CONSTANT}),
    "corrected_ttest": lambda: corrected_ttest(CONSTANT, CONSTANT, n_train=9, n_test=1),
    "bootstrap_ci": lambda: bootstrap_ci(CONSTANT),
    "confidence_interval": lambda: compare([0.1, 0.9], [0.3, 0.5]).confidence_interval(),
    "unpaired queries": lambda: compare(_Report([1, 2, 3], [1, 0.5, 0.2]), _Report([2, 3, 4], [1, 1, 0.5]),
                                        metric="mrr"),
}


@pytest.mark.parametrize("call", WARNING_CALLS, ids=list(WARNING_CALLS))
def test_warnings_point_at_the_callers_line(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        WARNING_CALLS[call]()
    assert caught
    assert {w.filename for w in caught} == {__file__}, [(w.filename, w.lineno, str(w.message)) for w in caught]


# --------------------------------------------------------------------------
# the names other modules (the command line) take from stats
# --------------------------------------------------------------------------

def test_table_columns_are_the_columns_of_records_and_frames():
    from sklearn_rank.stats._results import TABLE_COLUMNS

    rng = np.random.default_rng(43)
    table = compare_many({name: rng.random(15) for name in "xyz"}, baseline="x", paired=True)
    frame = table.to_frame()
    assert list(frame.columns) == list(TABLE_COLUMNS)
    for record, row in zip(table.to_records(), table):
        assert list(record) == list(TABLE_COLUMNS)
        result = row.result
        assert record == {"a": row.a, "b": row.b, "test": result.test, "paired": result.paired, "n_a": result.n_a,
                          "n_b": result.n_b, "n_unpaired_a": result.n_unpaired_a,
                          "n_unpaired_b": result.n_unpaired_b, "statistic": result.statistic,
                          "pvalue": result.pvalue, "pvalue_adjusted": row.pvalue_adjusted,
                          "estimate": result.estimate, "estimate_name": result.estimate_name,
                          "effect_size": result.effect_size, "effect_size_name": result.effect_size_name,
                          "wins": row.wins, "ties": row.ties, "losses": row.losses}


def test_test_and_correction_choices_are_what_the_functions_take():
    from sklearn_rank.stats._validation import CORRECTIONS, TESTS

    a, b = _samples("varied")
    for test in TESTS:
        assert compare(a, b, test=test, paired=test != "mannwhitneyu", rng=0, n_resamples=99).test in TESTS
    for correction in CORRECTIONS:
        assert compare_many({"a": a, "b": b}, correction=correction).correction == correction
    listed = "{" + ", ".join(map(repr, TESTS)) + "}"
    with pytest.raises(ValueError, match=re.escape(f"`test` must be one of {listed}")):
        compare(a, b, test="sign")
    listed = "{" + ", ".join(map(repr, CORRECTIONS)) + "}"
    with pytest.raises(ValueError, match=re.escape(f"`correction` must be one of {listed}")):
        compare_many({"a": a, "b": b}, correction="sidak")
