"""The threshold kernel (``_top_counts``): relevance matrices whose metrics are all cut at k.

Oracles: brute-force counts of every candidate against every gain item (the kernel's own contract), and
the same evaluation with a rank statistic added (``mr``: every gain item then needs its exact place, so
the sort or the counting kernel of ``_counts`` ranks the matrix), which tests/test_matrix_counting.py and
tests/test_against_oracles.py check against brute force. The per-query values must be identical, bit for
bit, for every tie policy, with ties, -inf scores, dense and sparse ``exclude``, sparse ``y_true``, and in
another array namespace.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn

import sklearn_rank as skr
from sklearn_rank import _matrix_counts, _top_counts
from sklearn_rank._top_counts import metrics_horizon, top_counts
from sklearn_rank._xp import NUMPY

TIES = ["expected", "realistic", "optimistic", "pessimistic", "ordinal"]
CUT = ["ndcg@10", "hits@5", "p@10", "r@10", "map@10", "mrr@10", "dcg@3", "f1@10", "numrelret@10", "rbp@10"]


def _brute(values, rows, columns, item_score):
    above = np.array([np.sum(values[r] > s) for r, s in zip(rows, item_score)])
    level = np.array([np.sum(values[r] == s) for r, s in zip(rows, item_score)])
    earlier = np.array([np.sum(values[r, :c] == s) for r, c, s in zip(rows, columns, item_score)])
    return above, level, earlier


@pytest.mark.parametrize("seed", range(8))
def test_the_kernel_counts_exactly_within_the_horizon_and_places_the_rest_after_it(seed):
    rng = np.random.default_rng(seed)
    n_rows, n_columns, horizon = int(rng.integers(1, 30)), int(rng.integers(20, 200)), int(rng.integers(1, 12))
    values = rng.integers(0, int(rng.integers(2, 40)), size=(n_rows, n_columns)).astype(np.float64)
    values[rng.random(values.shape) < 0.05] = -np.inf
    mask = rng.random(values.shape) < rng.choice([0.02, 0.1, 0.3])
    rows, columns = np.nonzero(mask)
    rows, columns = rows.astype(np.int64), columns.astype(np.int64)
    item_score = values[rows, columns]
    removed = None
    if seed % 2:  # removed candidates given by position, whatever their scores: not counted
        removed = np.nonzero((rng.random(values.shape) < 0.2) & ~mask)
        removed = tuple(a.astype(np.int64) for a in removed)
    counts = top_counts(NUMPY, values, rows, columns, item_score, horizon, ordinal=True, removed=removed)
    if removed is not None:
        values = values.copy()
        values[removed] = np.nan  # the oracle's comparisons skip them
    if counts is None:  # more than MAX_ROUNDS items of a row within the horizon
        per_row = [np.sum(np.sum(values[r] > values[r, mask[r]][:, None], axis=1) < horizon) for r in range(n_rows)]
        assert max(per_row) > _top_counts.MAX_ROUNDS
        return
    above, level, earlier = counts
    true_above, true_level, true_earlier = _brute(values, rows, columns, item_score)
    exact = true_above < horizon
    np.testing.assert_array_equal(above[exact], true_above[exact])
    np.testing.assert_array_equal(level[exact], true_level[exact])
    np.testing.assert_array_equal(earlier[exact], true_earlier[exact])
    beyond = ~exact
    assert np.all(above[beyond] >= horizon) and np.all(level[beyond] == 1) and np.all(earlier[beyond] == 0)
    # a stand-in is at or before its item's true place, after every exact block of its row, and its own
    assert np.all(above[beyond] <= (true_above + true_earlier)[beyond])
    for r in range(n_rows):
        mine = rows == r
        if np.any(mine & exact) and np.any(mine & beyond):
            assert above[mine & beyond].min() >= (above + level)[mine & exact].max()
        assert len(set(above[mine & beyond])) == np.sum(mine & beyond)


def _case(rng, case):
    n_q, n_c = int(rng.integers(1, 40)), int(rng.integers(30, 300))
    dtype = [np.float32, np.float64][case % 2]
    s = np.round(rng.standard_normal((n_q, n_c)), int(rng.integers(0, 3))).astype(dtype)  # ties
    y = (rng.random((n_q, n_c)) < rng.choice([0.01, 0.03, 0.08])) * rng.integers(1, 4, (n_q, n_c))
    if case % 5 == 0:
        s[rng.random((n_q, n_c)) < 0.05] = -np.inf
    exclude = None
    if case % 3:
        exclude = (rng.random((n_q, n_c)) < 0.1) & (y == 0)
        exclude = sp.csr_array(exclude) if case % 3 == 1 else exclude
    if case % 4 == 3:
        y = sp.csr_array(y)
    return y, s, exclude


def _spy(monkeypatch, module, name):
    """Record, for each call of ``module.name``, whether it gave counts (True) or declined (False)."""
    used = []
    original = getattr(module, name)

    def spy(*args):
        result = original(*args)
        used.append(result is not None)
        return result

    monkeypatch.setattr(module, name, spy)
    return used


@pytest.mark.parametrize("ties", TIES)
def test_cut_metrics_equal_the_exact_places(monkeypatch, ties):
    rng = np.random.default_rng(TIES.index(ties))
    used = _spy(monkeypatch, _matrix_counts, "_top")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # queries without a relevant item
        for case in range(16):
            y, s, exclude = _case(rng, case)
            metrics = list(rng.choice(CUT, size=int(rng.integers(1, 5)), replace=False))
            options = dict(exclude=exclude, ties=ties, no_relevant="zero")
            cut = skr.evaluate(y, s, metrics=metrics, **options)
            n_asked = len(used)
            exact = skr.evaluate(y, s, metrics=metrics + ["mr"], **options)
            assert len(used) == n_asked  # every place exact: the threshold kernel is not asked
            for name in metrics:
                np.testing.assert_array_equal(cut.per_query[name], exact.per_query[name], err_msg=f"{name} case {case}")
    assert sum(used) >= 10, used  # most chunks (it declines a few: many items in the top, short rows)


def test_the_horizon_is_set_only_when_every_metric_is_cut_and_reads_the_top_only():
    from sklearn_rank._engine import plan

    def horizon(metrics, **options):
        return metrics_horizon(plan(metrics=metrics, **options).resolved)

    assert horizon(["ndcg@10", "p@5", "map@20"]) == 20
    assert horizon(["ndcg@10", "map"]) is None  # an uncut metric needs every place
    assert horizon(["ndcg@10", "mr"]) is None  # a rank statistic too
    assert horizon(["auc@10"]) is None and horizon(["err@10"]) is None and horizon(["rprec"]) is None
    assert horizon(["mrr@10"], targets="all") is None  # the rank statistic of every target


def test_many_items_within_the_horizon_go_to_the_sort():
    """Rows with more than MAX_ROUNDS relevant items in the top: the kernel declines, the sort ranks them."""
    rng = np.random.default_rng(7)
    s = rng.standard_normal((5, 400))
    y = np.zeros(s.shape, dtype=int)
    top = np.argsort(-s, axis=1)[:, :12]
    np.put_along_axis(y, top, 1, axis=1)
    assert top_counts(NUMPY, s, *map(lambda a: a.astype(np.int64), np.nonzero(y)), s[y > 0], 20, False) is None
    # exactly MAX_ROUNDS items within the horizon, the next one beyond: the kernel finishes the row
    y6 = np.zeros(s.shape, dtype=int)
    order = np.argsort(-s, axis=1)
    np.put_along_axis(y6, order[:, :_top_counts.MAX_ROUNDS], 1, axis=1)
    np.put_along_axis(y6, order[:, 100:102], 1, axis=1)
    rows6, columns6 = (a.astype(np.int64) for a in np.nonzero(y6))
    counts = top_counts(NUMPY, s, rows6, columns6, s[y6 > 0], 20, False)
    assert counts is not None
    above = np.sort(counts[0].reshape(5, 8), axis=1)  # (the items in column order: sorted per row)
    np.testing.assert_array_equal(above[:, :6], np.tile(np.arange(6), (5, 1)))
    assert np.all(above[:, 6:] >= 20)
    cut = skr.evaluate(y, s, metrics=["ndcg@20", "p@20"])
    exact = skr.evaluate(y, s, metrics=["ndcg@20", "p@20", "mr"])
    for name in ("ndcg@20", "p@20"):
        np.testing.assert_array_equal(cut.per_query[name], exact.per_query[name])


@pytest.mark.parametrize("ties", ["expected", "ordinal"])
def test_another_namespace_gives_the_numbers_of_numpy(monkeypatch, ties):
    xp = pytest.importorskip("array_api_strict")
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    rng = np.random.default_rng(11)
    from sklearn_rank import _namespace_counts

    used = _spy(monkeypatch, _namespace_counts, "top_counts")
    for case in range(6):
        y, s, exclude = _case(rng, case * 2)  # dense inputs (even cases)
        y = y.toarray() if sp.issparse(y) else y
        exclude = exclude.toarray() if sp.issparse(exclude) else exclude
        options = dict(metrics=["ndcg@10", "map@5", "mrr@10"], ties=ties, no_relevant="zero")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = skr.evaluate(y, s, exclude=exclude, **options)
            with sklearn.config_context(array_api_dispatch=True):
                got = skr.evaluate(xp.asarray(y), xp.asarray(s),
                                   exclude=None if exclude is None else xp.asarray(exclude), **options)
        for name in options["metrics"]:
            np.testing.assert_allclose(np.asarray(got.per_query[name]), expected.per_query[name], rtol=0, atol=1e-12)
    assert any(used)


def test_expected_hits_of_a_block_starting_beyond_k_is_exactly_zero():
    """A tie block of several relevant items starting at or after k: P(hit) is 0, not the rounding left by
    the log-gamma form (1.1e-16 was reported before), on every path."""
    from sklearn_rank._expectations import expect_hits

    s = np.array([92.0, 7.0, 12.0, 3.0])
    m = np.array([4.0, 9.0, 33.0, 4.0])  # (92, 4, 2): 1.1e-16 before
    r = np.array([2.0, 3.0, 5.0, 2.0])
    out = expect_hits(s, m, r, 5)
    assert np.all(out[:3] == 0.0) and out[3] > 0
    y = np.zeros((1, 140), dtype=int)
    y[0, [100, 101]] = 1
    s = np.zeros((1, 140))
    s[0, :20] = 1.0  # 20 candidates above a block of 120 ties holding both relevant items
    for metrics in (["hits@5"], ["hits@5", "mr"]):
        assert skr.evaluate(y, s, metrics=metrics).per_query["hits@5"][0] == 0.0
