"""Memory of the relevance-matrix layout, and the results of its chunks of rows.

A relevance matrix is ranked a chunk of whole rows at a time, each chunk reduced to its per-query values
(and its targets' ranks) before the next one: the temporaries follow the chunk, whatever the share of
relevant cells. The chunks' results must be the very numbers of the whole matrix ranked at once.
"""

import math
import tracemalloc
import warnings

import numpy as np
import pytest

import sklearn_rank as skr
from sklearn_rank import _inputs, _matrix
from sklearn_rank._lists import ideal_dcg
from sklearn_rank.exceptions import UndefinedMetricWarning

try:
    from . import oracles
except ImportError:
    import oracles

TIES = ("expected", "realistic", "optimistic", "pessimistic", "ordinal")
LIST_AND_RANK = ["mrr", "map", "ndcg@10", "ndcg", "p@10", "r@10", "hits@10", "mr", "auc", "rprec"]


# ------------------------------------------------------------------------------------------------
# memory: the peak of new allocations within 3x the score matrix
# ------------------------------------------------------------------------------------------------
def _dense_case(n_queries, n_candidates, score_dtype, label_dtype, seed=0):
    """Graded labels 0-3, three cells in four relevant."""
    rng = np.random.default_rng(seed)
    score = rng.random((n_queries, n_candidates)).astype(score_dtype)
    rel = rng.integers(0, 4, (n_queries, n_candidates)).astype(label_dtype)
    return rel, score


def _peak(function):
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("ties", TIES)
def test_dense_relevance_peak_memory_is_within_three_score_matrices(ties):
    skr.evaluate([[1, 0, 2]], [[0.3, 0.2, 0.1]], metrics=LIST_AND_RANK, ties=ties)  # lazy imports, caches
    # float64 scores and labels, the default metrics
    rel, score = _dense_case(200, 3000, np.float64, np.float64)
    peak = _peak(lambda: skr.evaluate(rel, score, ties=ties))
    ratio = peak / score.nbytes
    assert ratio <= 3, f"peak {ratio:.2f}x the score matrix under ties={ties!r}"
    # float32 scores and int8 labels (the worst ratio), list metrics and rank statistics, with `exclude`
    rel, score = _dense_case(200, 3000, np.float32, np.int8, seed=1)
    exclude = (rel == 0) & (np.arange(3000) % 2 == 0)
    peak = _peak(lambda: skr.evaluate(rel, score, metrics=LIST_AND_RANK, ties=ties, exclude=exclude))
    ratio = peak / score.nbytes
    assert ratio <= 3, f"peak {ratio:.2f}x the score matrix under ties={ties!r}, float32 scores"


# ------------------------------------------------------------------------------------------------
# numbers: chunks of one row give the numbers of the whole matrix at once, exactly
# ------------------------------------------------------------------------------------------------
def _small_case(seed, graded=True):
    rng = np.random.default_rng(seed)
    n_queries, n_candidates = 14, 7
    score = rng.integers(0, 4, (n_queries, n_candidates)).astype(float)  # frequent ties
    if graded:
        rel = rng.integers(0, 4, (n_queries, n_candidates)) * (rng.random((n_queries, n_candidates)) < 0.6)
    else:  # many distinct gains, rare relevant items: the ideal DCG's two ways of summing meet here
        rel = np.round(rng.random((n_queries, n_candidates)) * 9, 1) * (rng.random((n_queries, n_candidates)) < 0.2)
    rel = rel.astype(float)
    rel[3] = 0  # a query without relevant items
    exclude = (rng.random((n_queries, n_candidates)) < 0.2) & (rel == 0)
    exclude[5] = rel[5] == 0  # a query left with its relevant items only
    exclude[7] = True
    rel[7] = 0  # a query with every candidate excluded
    weight = rng.random(n_queries) + 0.1
    unjudged = (rel == 0) & ~exclude & (rng.random((n_queries, n_candidates)) < 0.3)
    return rel, score, exclude, weight, unjudged


LIST_METRICS = ["mrr", "mrr@2", "map", "map@3", "ndcg", "ndcg@3", "dcg", "dcg@2", "p@3", "r@2", "f1@3", "hits@2",
                "rprec", "auc", "num_rel_ret", "bpref", "rbp(p=0.7)", "err", "err@3", "judged@2"]
RANK_METRICS = ["mr", "gmr", "hmr", "median_rank", "rank_mad", "rank_std", "count", "amri", "agmri", "zmrr",
                "zhits@2"]


def _whole_and_chunked(monkeypatch, function):
    """``function()`` on the whole matrix at once, then ranked in chunks of one row, their records kept and
    reduced together (as for sparse relevance), then each chunk reduced alone (as for dense relevance)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        whole = function()
        with monkeypatch.context() as patch:
            patch.setattr(_inputs, "MATRIX_CHUNK", 1)  # one row per chunk
            kept = function()
            patch.setattr(_matrix, "MATRIX_KEPT_MIN", 0)
            patch.setattr(_matrix, "MATRIX_KEPT_SHARE", 1 << 40)  # no record kept past its chunk
            alone = function()
    return whole, kept, alone


def _assert_same_report(got, expected):
    assert got.summary.keys() == expected.summary.keys()
    for name, value in expected.summary.items():
        assert got.summary[name] == value or (math.isnan(got.summary[name]) and math.isnan(value)), name
    assert got.per_query.keys() == expected.per_query.keys()
    for name, values in expected.per_query.items():
        np.testing.assert_array_equal(got.per_query[name], values, err_msg=name, strict=True)
    assert (got.n_queries, got.n_skipped) == (expected.n_queries, expected.n_skipped)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("targets, graded", [("first", True), ("all", True), ("first", False)])
def test_chunks_of_rows_give_the_numbers_of_the_whole_matrix(monkeypatch, ties, targets, graded):
    rel, score, exclude, weight, unjudged = _small_case(3, graded)
    for options in (dict(exclude=exclude, sample_weight=weight, no_relevant="zero"),
                    dict(unjudged=unjudged, gain="exponential"),
                    dict(relevance_level=2, no_relevant="skip")):
        kwargs = dict(metrics=LIST_METRICS + RANK_METRICS, ties=ties, targets=targets, **options)
        whole, kept, alone = _whole_and_chunked(monkeypatch, lambda: skr.evaluate(rel, score, **kwargs))
        _assert_same_report(kept, whole)
        _assert_same_report(alone, whole)
    whole, kept, alone = _whole_and_chunked(
        monkeypatch, lambda: skr.compute_ranks(rel, score, exclude=exclude, targets=targets))
    for field in ("optimistic", "pessimistic", "realistic", "ordinal", "expected", "num_candidates",
                  "tied_targets", "num_relevant", "query", "qid"):
        np.testing.assert_array_equal(getattr(kept, field), getattr(whole, field), err_msg=field, strict=True)


@pytest.mark.parametrize("ties", TIES)
def test_chunks_of_rows_agree_with_the_oracles(monkeypatch, ties):
    rel, score, exclude, _, _ = _small_case(4)
    monkeypatch.setattr(_inputs, "MATRIX_CHUNK", 2 * score.shape[1])  # two rows per chunk
    metrics = {"mrr": ("rr", None), "map": ("ap", None), "ndcg": ("ndcg", None), "ndcg@3": ("ndcg", 3),
               "p@3": ("p", 3), "r@2": ("r", 2), "hits@2": ("hits", 2), "rprec": ("rprec", None),
               "auc": ("auc", None)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        report = skr.evaluate(rel, score, metrics=list(metrics), ties=ties, exclude=exclude, no_relevant="zero")
    rows = report.per_query["qid"]
    assert 7 not in rows  # every candidate excluded: the query is dropped
    for name, (metric, k) in metrics.items():
        expected = []
        for row in rows:
            kept = ~exclude[row]
            value = oracles.query_metric(metric, score[row, kept].tolist(), rel[row, kept].tolist(), ties=ties, k=k)
            has_relevant = (rel[row, kept] > 0).any()
            expected.append(value if has_relevant else 0.0)  # no_relevant="zero"
        np.testing.assert_allclose(report.per_query[name], expected, rtol=1e-12, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("k", [None, 3, 10])
def test_a_query_ideal_dcg_depends_on_its_own_gains_only(k):
    # Many gain values, few gains per query but in every 97th: all queries at once sort their gains, a
    # query alone counts them per value; both add the query's runs of equal gains in the same order.
    rng = np.random.default_rng(5)
    n_queries = 3000
    query = np.repeat(np.arange(n_queries), np.where(np.arange(n_queries) % 97 == 0, 25, 1))
    gain = rng.integers(1, 12, query.size).astype(float)
    together = ideal_dcg(query, gain, n_queries, k)
    for q in range(0, n_queries, 97):
        alone = ideal_dcg(np.zeros(int((query == q).sum()), dtype=np.intp), gain[query == q], 1, k)
        assert alone[0] == together[q]
        assert together[q] == pytest.approx(oracles.dcg_at_k(sorted(gain[query == q], reverse=True), k), rel=1e-13)


ADJUSTED = ["zmrr", "zgmr", "zmr", "amri", "agmri", "amrr"]


def test_adjusted_rank_statistics_on_dense_relevance_stay_within_three_score_matrices():
    """Their random baseline of a target among r relevant expands over m - r + 1 positions per target: all at
    once, 400 x 3,000 float32 scores with 75% relevant cells peaked at 4.8x the score matrix."""
    skr.evaluate([[1, 0, 2]], [[0.3, 0.2, 0.1]], metrics=ADJUSTED)  # lazy imports, caches
    rel, score = _dense_case(400, 3000, np.float32, np.int8, seed=2)
    ratio = _peak(lambda: skr.evaluate(rel, score, metrics=ADJUSTED)) / score.nbytes
    assert ratio <= 3, f"peak {ratio:.2f}x the score matrix"


def test_the_baseline_expansion_in_groups_gives_the_same_numbers(monkeypatch):
    from sklearn_rank import _expectations

    rel, score = _dense_case(30, 40, np.float64, np.int64, seed=3)
    whole = skr.evaluate(rel, score, metrics=ADJUSTED).summary
    monkeypatch.setattr(_expectations, "_EXPAND_ENTRIES", 7)  # groups of a target or two
    assert skr.evaluate(rel, score, metrics=ADJUSTED).summary == whole
