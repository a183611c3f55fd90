"""metrics.py: behaviours found by testing as a new user would (issue 11), each against an independent
reference: exact Python integers, hand-worked values, scikit-learn, or a per-query loop."""

import math
import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

import sklearn_rank as skr
import sklearn_rank._inputs as inputs
from sklearn_rank import UndefinedMetricWarning, evaluate, evaluate_ranks, get_metric, mean_reciprocal_rank

METRICS = ["mrr", "map", "ndcg@3", "p@2", "auc", "mr", "gmr", "hits@2"]


def _exact_dense_ranks(values):
    """Dense ranks from exact comparisons of Python objects (ints, Fractions): no float rounding."""
    order = {v: i for i, v in enumerate(sorted(set(values)))}
    return np.array([order[v] for v in values], dtype=np.float64)


# --- item 1: scores wider than float64 keep their order and ties -----------------------------------------
def test_int64_scores_beyond_2_53_are_not_false_ties():
    assert mean_reciprocal_rank([0, 0, 1], np.array([2**60, 2**60 + 1, 2**60 + 2])) == 1.0
    assert mean_reciprocal_rank([0, 0, 1], np.array([2**60, 2**60 + 1, 2**60 + 2], dtype=np.uint64)) == 1.0


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
@pytest.mark.parametrize("ties", ["expected", "realistic", "ordinal"])
def test_wide_integer_scores_match_exact_python_order(dtype, ties):
    rng = np.random.default_rng(0)
    base = 2**62 if dtype is np.uint64 else 2**61
    # values a few units apart (collide in float64), with real ties among them
    ints = [base + int(v) for v in rng.integers(0, 6, size=60)]
    y = rng.integers(0, 3, size=60)
    qid = np.repeat(np.arange(6), 10)
    got = evaluate(y, np.array(ints, dtype=dtype), qid=qid, metrics=METRICS, ties=ties)
    want = evaluate(y, _exact_dense_ranks(ints), qid=qid, metrics=METRICS, ties=ties)
    assert got.summary == pytest.approx(want.summary, rel=1e-12)
    # and not what a float64 cast gives: every score of a query ties there
    cast = evaluate(y, np.array(ints, dtype=dtype).astype(np.float64), qid=qid, metrics=["mrr"], ties=ties)
    assert cast.summary["mrr"] != pytest.approx(got.summary["mrr"])


def test_long_double_and_timestamp_scores_keep_their_order():
    one, eps = np.longdouble(1), np.longdouble(1e-18)
    if one + eps == one:
        pytest.skip("long double is float64 on this platform")
    assert mean_reciprocal_rank([0, 0, 1], np.array([one, one + eps, one + 2 * eps])) == 1.0
    stamps = np.array(["2024-01-01T00:00:00.000000001", "2024-01-01T00:00:00.000000002",
                       "2024-01-01T00:00:00.000000003"], dtype="datetime64[ns]")
    assert mean_reciprocal_rank([0, 0, 1], stamps) == 1.0
    with pytest.raises(ValueError, match="NaT"):
        mean_reciprocal_rank([0, 1], np.array(["2024-01-01", "NaT"], dtype="datetime64[ns]"))


def test_wide_integer_score_matrix_label_index():
    scores = np.array([[2**60, 2**60 + 1, 2**60 + 2], [2**60 + 2, 2**60 + 2, 2**60]], dtype=np.int64)
    # row 0: the true column 2 is strictly first; row 1: column 0 ties with column 1 for first place
    assert mean_reciprocal_rank([2, 0], scores, ties="realistic") == pytest.approx((1 + 1 / 1.5) / 2)


def test_long_double_nan_still_refused():
    scores = np.array([1.0, np.nan, 2.0], dtype=np.longdouble)
    with pytest.raises(ValueError, match="must not hold NaN"):
        evaluate([0, 1, 0], scores)


# --- item 6: no per-query NaN leaves a mean ------------------------------------------------------------
def test_exponential_gain_overflow_is_an_error_naming_gain():
    with pytest.raises(ValueError, match="gain='exponential'.*Got maximum relevance 1100.0"):
        evaluate([1100, 0, 0, 1, 0, 0], [0.1, 0.2, 0.3, 0.3, 0.2, 0.1], qid=[1, 1, 1, 2, 2, 2],
                 gain="exponential", metrics=["ndcg"])
    # grades that stay finite still work, and equal the hand-worked value for one relevant item at rank 3
    value = evaluate([3, 0, 0], [0.1, 0.2, 0.3], gain="exponential", metrics=["ndcg"]).summary["ndcg"]
    assert value == pytest.approx(1 / math.log2(4))


def test_dcg_that_overflows_is_an_error_not_a_dropped_query():
    rel = [1023, 1023, 1023, 1, 0]
    with pytest.raises(ValueError, match="must be finite for every query.*exponential"):
        evaluate(rel, [0.5, 0.4, 0.3, 0.9, 0.1], qid=[1, 1, 1, 2, 2], gain="exponential", metrics=["dcg"])


def test_undefined_auc_queries_are_announced():
    y, s, q = [1, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.3, 0.2], [1, 1, 1, 2, 2]
    with pytest.warns(UndefinedMetricWarning, match="auc.*1 queries.*left out of the mean"):
        report = evaluate(y, s, qid=q, metrics=["auc"])
    assert np.isnan(report.per_query["auc"][1])  # still visible per query
    assert report.summary["auc"] == 0.0  # query 1: both relevant items below the non-relevant one


# --- item 10: a degenerate baseline does not abort the report ------------------------------------------
def test_zhits_with_k_beyond_candidates_is_nan_and_other_metrics_survive():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = evaluate([0, 1], [[1, 2, 3], [3, 2, 1]], metrics=["mrr", "zhits@10"])
    assert report.summary["mrr"] == pytest.approx((1 / 3 + 1 / 2) / 2)  # ranks 3 and 2
    assert math.isnan(report.summary["zhits@10"])
    assert np.isnan(report.per_query["zhits@10"]).all()
    messages = [str(w.message) for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    assert any("zhits@10" in m for m in messages)


def test_rank_statistics_without_any_retrieved_relevant_item_are_nan():
    judged = (np.array([1, 1]), np.array([0, 1]))  # q1's relevant item was never retrieved
    with pytest.warns(UndefinedMetricWarning, match="no query has a retrieved relevant item"):
        report = evaluate([0, 0], [0.3, 0.2], qid=[1, 1], judged=judged, metrics=["map", "mr"])
    assert report.summary["map"] == 0.0
    assert math.isnan(report.summary["mr"])


def test_zero_total_weight_is_an_error():
    with pytest.raises(ValueError, match="sample_weight.*positive total"):
        evaluate([1, 0, 1, 0], [0.2, 0.1, 0.3, 0.4], qid=[1, 1, 2, 2], sample_weight=[0, 0, 0, 0])


# --- item 12: judged queries without candidate rows ----------------------------------------------------
def _retrieval_case():
    y = np.array([1, 0, 0, 0, 1])
    s = np.array([0.3, 0.2, 0.1, 0.9, 0.5])
    q = np.array(["a", "a", "a", "b", "b"])
    judged = (np.array(["a", "a", "b", "c", "c", "d"]), np.array([1, 0, 1, 2, 0, 0]))
    return y, s, q, judged


def test_missing_judged_queries_are_counted():
    y, s, q, judged = _retrieval_case()
    report = evaluate(y, s, qid=q, judged=judged, metrics=["map"])
    assert report.n_missing == 2  # "c" (relevant judged) and "d" (nothing relevant), no rows at all
    assert report.n_queries == 2
    assert "n_missing=2" in repr(report)
    # AP per retrieved query, from scikit-learn: every relevant item of a and b was retrieved
    ap = [average_precision_score(y[q == name], s[q == name]) for name in ("a", "b")]
    assert report.summary["map"] == pytest.approx(np.mean(ap))


def test_missing_zero_counts_them_as_zero_like_trec_eval_c():
    y, s, q, judged = _retrieval_case()
    report = evaluate(y, s, qid=q, judged=judged, metrics=["map", "mrr", "mr"], missing="zero")
    ap = [average_precision_score(y[q == name], s[q == name]) for name in ("a", "b")]
    # "c" scores 0; "d" has no relevant judgement and is skipped (no_relevant="skip")
    assert report.summary["map"] == pytest.approx(sum(ap) / 3)
    assert report.per_query["qid"].tolist() == ["a", "b", "c"]
    assert report.per_query["map"][2] == 0.0
    assert math.isnan(report.per_query["mr"][2])
    assert report.n_queries == 3 and report.n_skipped == 1 and report.n_missing == 2
    with_zero = evaluate(y, s, qid=q, judged=judged, metrics=["map"], missing="zero", no_relevant="zero")
    assert with_zero.summary["map"] == pytest.approx(sum(ap) / 4)


def test_missing_option_is_checked():
    y, s, q, judged = _retrieval_case()
    with pytest.raises(ValueError, match="`missing` must be one of"):
        evaluate(y, s, qid=q, judged=judged, missing="drop")
    with pytest.raises(ValueError, match="sample_weight"):
        evaluate(y, s, qid=q, judged=judged, missing="zero", sample_weight=np.ones(5))


# --- item 17: messages that name the argument ----------------------------------------------------------
def test_ragged_lists_name_the_argument():
    with pytest.raises(ValueError, match="`y_score` must be a rectangular array"):
        evaluate([[0, 1], [1]], [[0.1, 0.2], [0.3]])
    with pytest.raises(ValueError, match="`y_true` must be a rectangular array"):
        evaluate([[0, 1], [1]], [[0.1, 0.2], [0.3, 0.4]])


def test_evaluate_ranks_sample_weight_message():
    with pytest.raises(TypeError, match="`sample_weight` must hold numbers"):
        evaluate_ranks([1, 2], sample_weight=["a", "b"])
    with pytest.raises(ValueError, match="`sample_weight` must have one weight per rank"):
        evaluate_ranks([1, 2], sample_weight=[1.0])


def test_evaluate_ranks_refuses_impossible_ranks():
    # the best of 2 relevant candidates among 3 ranks at most 2: amri would leave [-1, 1]
    with pytest.raises(ValueError, match="`ranks` must be possible.*rank 3.0"):
        evaluate_ranks([3], num_candidates=3, num_relevant=[2], metrics="amri")
    with pytest.raises(ValueError, match="`num_relevant` must not exceed `num_candidates`"):
        evaluate_ranks([1], num_candidates=3, num_relevant=[4], metrics="amri")
    value = evaluate_ranks([2], num_candidates=3, num_relevant=[2], metrics="amri")["amri"]
    # E[rank] of the best of 2 among 3 is 4/3: amri = (4/3 - 2) / (4/3 - 1) = -2, the worst possible
    assert value == pytest.approx(-2.0)


@pytest.mark.parametrize("typo, suggestion", [("precison@5", "p@5"), ("recal@10", "r@10"), ("hit@3", "hits@3"),
                                              ("ndgc@10", "ndcg@10")])
def test_unknown_metric_suggests_synonyms_with_the_cut_off(typo, suggestion):
    with pytest.raises(ValueError, match=f"Did you mean '{suggestion}'"):
        get_metric(typo)


# --- item 21: the relevance-matrix layout in bounded memory --------------------------------------------
def _matrix_case(seed, n_queries=37, n_candidates=11):
    rng = np.random.default_rng(seed)
    score = rng.integers(0, 4, size=(n_queries, n_candidates)).astype(np.float32)  # many ties
    rel = rng.integers(0, 3, size=(n_queries, n_candidates)) * (rng.random((n_queries, n_candidates)) < 0.3)
    rel[3] = 0  # a query without relevant items
    exclude = (rng.random((n_queries, n_candidates)) < 0.2) & (rel == 0)
    exclude[5] = rel[5] == 0  # a query left with its relevant items only
    exclude[7] = True
    rel[7] = 0  # a query with every candidate excluded
    weight = rng.random(n_queries)
    return rel, score, exclude, weight


@pytest.mark.parametrize("ties", ["expected", "realistic", "optimistic", "pessimistic", "ordinal"])
@pytest.mark.parametrize("targets", ["first", "all"])
def test_relevance_matrix_in_blocks_equals_the_whole(monkeypatch, ties, targets):
    rel, score, exclude, weight = _matrix_case(0)
    metrics = ["mrr", "map", "ndcg@3", "dcg", "r@4", "rprec", "auc", "mr", "gmr", "amri", "zhits@2", "median_rank"]
    kwargs = dict(metrics=metrics, ties=ties, targets=targets, exclude=exclude, sample_weight=weight,
                  no_relevant="zero")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        whole = evaluate(rel, score, **kwargs)
        monkeypatch.setattr(inputs, "MATRIX_CHUNK", 3 * score.shape[1])  # blocks of three queries
        blocks = evaluate(rel, score, **kwargs)
    np.testing.assert_array_equal(blocks.per_query["qid"], whole.per_query["qid"])
    assert 7 not in blocks.per_query["qid"]
    for name in metrics:
        np.testing.assert_allclose(blocks.per_query[name], whole.per_query[name], rtol=1e-12, atol=1e-15)
        assert blocks.summary[name] == pytest.approx(whole.summary[name], rel=1e-12, nan_ok=True)
    ranks_whole = skr.compute_ranks(rel, score, exclude=exclude, targets=targets)
    monkeypatch.setattr(inputs, "MATRIX_CHUNK", 2 * score.shape[1])
    ranks_blocks = skr.compute_ranks(rel, score, exclude=exclude, targets=targets)
    for field in ("optimistic", "pessimistic", "ordinal", "num_candidates", "query", "qid"):
        np.testing.assert_array_equal(getattr(ranks_blocks, field), getattr(ranks_whole, field))


def test_relevance_matrix_errors_in_blocks_name_the_flat_row(monkeypatch):
    rel, score, exclude, _ = _matrix_case(1)
    rel[20, 4] = 2
    exclude[20, 4] = True
    monkeypatch.setattr(inputs, "MATRIX_CHUNK", 3 * score.shape[1])
    with pytest.raises(ValueError, match=f"at row {20 * score.shape[1] + 4} "):
        evaluate(rel, score, exclude=exclude)
    with pytest.raises(ValueError, match="Every candidate was excluded"):
        evaluate(rel * 0 + 0, score, exclude=np.ones_like(exclude))


def test_relevance_matrix_extra_memory_is_bounded(monkeypatch):
    # Before: about 10x the input in temporaries. Now: a block of queries at a time.
    monkeypatch.setattr(inputs, "MATRIX_CHUNK", 1 << 16)
    rng = np.random.default_rng(0)
    score = rng.random((400, 3000))
    rel = (rng.random((400, 3000)) < 0.01).astype(np.int8)
    input_bytes = score.nbytes + rel.nbytes
    tracemalloc.start()
    try:
        evaluate(rel, score, metrics=["mrr", "map", "ndcg@10", "mr"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * input_bytes, (peak, input_bytes)
