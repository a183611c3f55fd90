"""The relevance matrix of another array namespace ranked by counting (``_namespace_counts``).

Oracle: the same namespace's sort of every candidate (the counting path switched off with monkeypatch),
which tests/test_array_api.py checks against the NumPy path; and the NumPy path itself. Few relevant
items among many tied candidates, every tie policy, with removed candidates (``exclude`` and NaN scores
under ``nan_policy="omit"``), graded relevance and both target kinds.
"""

import warnings

import numpy as np
import pytest
import sklearn

import sklearn_rank as skr
from sklearn_rank import _matrix, _namespace_counts

xp = pytest.importorskip("array_api_strict")

TIES = ["expected", "realistic", "optimistic", "pessimistic", "ordinal"]
LIST = ["mrr", "mrr@3", "map", "map@5", "ndcg", "ndcg@3", "dcg@5", "p@3", "r@5", "f1@3", "rprec", "hits@3", "auc",
        "bpref", "rbp", "judged@3", "numrelret@3"]
RANK = ["mr", "mrr", "hits@2", "gmr", "hmr", "amri", "zmrr", "median_rank", "rank_var", "ahits@3"]


@pytest.fixture
def dispatch(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    with sklearn.config_context(array_api_dispatch=True):
        yield


@pytest.fixture
def calls(monkeypatch):
    """How often the counting path ranked a chunk (it declines some: the sort then)."""
    counted = []
    original = _namespace_counts.counted_items

    def spy(*args, **kwargs):
        result = original(*args, **kwargs)
        counted.append(result is not None)
        return result

    monkeypatch.setattr(_matrix, "counted_items", spy)
    return counted


def _case(rng, case):
    n_q, n_c = int(rng.integers(1, 7)), int(rng.integers(2, 60))
    share = rng.choice([0.03, 0.08, 0.2])
    y = rng.integers(1, int(rng.integers(2, 5)), size=(n_q, n_c)) * (rng.random((n_q, n_c)) < share)
    dtype = [np.float32, np.float64][case % 2]
    s = rng.integers(0, int(rng.integers(1, 8)), size=(n_q, n_c)).astype(dtype)  # many ties
    if case % 3 == 0:
        s = (s + rng.integers(0, 3, size=(n_q, n_c)) / 4).astype(dtype)
    if case % 5 == 0:
        s[rng.random((n_q, n_c)) < 0.1] = -np.inf
    exclude = (rng.random((n_q, n_c)) < 0.15) & (y == 0) if case % 2 else None
    nan = (rng.random((n_q, n_c)) < 0.1) & (y == 0) if case % 4 == 1 else None
    if nan is not None:
        s[nan] = np.nan
    return y, s, exclude


def _outcome(namespace, y, s, exclude, **options):
    """(per-query values, summary) of evaluate, or its error message."""
    asarray = xp.asarray if namespace else np.asarray
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            report = skr.evaluate(asarray(y), asarray(s), exclude=None if exclude is None else asarray(exclude),
                                  nan_policy="omit", **options)
        except ValueError as exc:
            return str(exc)
    return {name: np.asarray(values, dtype=np.float64) for name, values in report.per_query.items()}, report.summary


def _assert_same(got, expected, label, atol=1e-14):
    """The same values; ``atol`` 1e-12 against NumPy, as tests/test_array_api.py (the adjusted and z-scored
    statistics of the two paths differ in the last bits of their moments)."""
    if isinstance(got, str) or isinstance(expected, str):
        assert got == expected, label
        return
    for name in expected[0]:
        np.testing.assert_allclose(got[0][name], expected[0][name], rtol=1e-12, atol=atol, err_msg=(label, name))
    for name, value in expected[1].items():
        np.testing.assert_allclose(got[1][name], value, rtol=1e-12, atol=atol, err_msg=(label, name))


def test_counting_gives_the_numbers_of_the_sort(dispatch, calls, monkeypatch):
    rng = np.random.default_rng(25)
    counted = _matrix.counted_items
    for case in range(6):  # every branch of _case: dtypes, fractions, -inf, exclude, NaN under omit
        y, s, exclude = _case(rng, case)
        for ties in TIES:
            for targets in ("first", "all"):
                options = dict(ties=ties, targets=targets, gain=["linear", "exponential"][case % 2],
                               relevance_level=[None, 2][case % 3 == 1],
                               metrics=LIST + RANK if targets == "first" else RANK)
                got = _outcome(True, y, s, exclude, **options)
                monkeypatch.setattr(_matrix, "counted_items", lambda *args, **kwargs: None)
                expected = _outcome(True, y, s, exclude, **options)
                monkeypatch.setattr(_matrix, "counted_items", counted)
                _assert_same(got, expected, (case, ties, targets, "sort"))
                _assert_same(got, _outcome(False, y, s, exclude, **options), (case, ties, targets, "numpy"), atol=1e-12)
    assert sum(calls) > len(calls) / 2  # the counting path ranked most chunks


@pytest.mark.parametrize("targets", ["first", "all"])
def test_counted_ranks_are_the_sorted_ranks(targets, dispatch, calls, monkeypatch):
    rng = np.random.default_rng(11)
    counted = _matrix.counted_items
    for case in range(30):
        y, s, exclude = _case(rng, case)
        s = np.where(np.isnan(s), 0.0, s).astype(s.dtype)
        args = (xp.asarray(y), xp.asarray(s))
        mask = None if exclude is None else xp.asarray(exclude)
        got = skr.compute_ranks(*args, exclude=mask, targets=targets)
        monkeypatch.setattr(_matrix, "counted_items", lambda *a, **k: None)
        expected = skr.compute_ranks(*args, exclude=mask, targets=targets)
        monkeypatch.setattr(_matrix, "counted_items", counted)
        for field in ("optimistic", "pessimistic", "realistic", "ordinal", "expected", "num_candidates",
                      "tied_targets", "num_relevant", "query", "qid"):
            np.testing.assert_array_equal(np.asarray(getattr(got, field)), np.asarray(getattr(expected, field)),
                                          err_msg=field)
    assert any(calls)


def test_many_relevant_items_take_the_sort(dispatch, calls):
    y = np.ones((3, 10))
    s = np.arange(30.0).reshape(3, 10)
    skr.evaluate(xp.asarray(y), xp.asarray(s), metrics=["map"])
    assert calls == [False]


def test_chunks_of_a_few_rows_give_the_numbers_of_one_chunk(dispatch, calls, monkeypatch):
    import sklearn_rank._namespace_inputs as namespace_inputs

    rng = np.random.default_rng(4)
    y = (rng.random((40, 30)) < 0.08) * rng.integers(1, 3, (40, 30))
    s = np.round(rng.random((40, 30)), 1)
    metrics = ["mrr", "map", "ndcg@5", "p@3", "mr", "amri"]
    whole = {ties: _outcome(True, y, s, None, metrics=metrics, ties=ties) for ties in TIES}
    monkeypatch.setattr(namespace_inputs, "NAMESPACE_CHUNK_CPU", 16)  # counting chunks of 64 entries: 2 rows
    calls.clear()
    for ties in TIES:
        _assert_same(_outcome(True, y, s, None, metrics=metrics, ties=ties), whole[ties], ties)
    assert len(calls) >= 20 * len(TIES) and sum(calls) > len(calls) / 2
