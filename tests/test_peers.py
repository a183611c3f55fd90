"""Conformance of sklearn-rank with peer libraries.

Every expected value here comes from a peer (scikit-learn, pytrec_eval) or from a
definition written out in the test (TGB/OGB's realistic rank, small brute-force
loops), never from sklearn-rank itself.  Equality is to 1e-12.
"""

import itertools
import math

import numpy as np
import pytest
import pytrec_eval
from sklearn.metrics import (
    dcg_score as sk_dcg_score,
    label_ranking_average_precision_score,
    ndcg_score as sk_ndcg_score,
    roc_auc_score,
    top_k_accuracy_score,
)

import sklearn_rank as skr

ATOL = 1e-12
SEEDS = [0, 1, 2, 3, 4]


def _assert_close(actual, expected, atol=ATOL):
    np.testing.assert_allclose(actual, expected, rtol=0, atol=atol)


# --------------------------------------------------------------------------------------
# data generators
# --------------------------------------------------------------------------------------


def _graded_matrix(rng, n_queries=12, n_candidates=7, max_grade=3, all_zero_rows=0):
    """Graded relevance matrix; every row has a relevant item except the first
    ``all_zero_rows`` rows, which are all zero."""
    y_true = rng.integers(0, max_grade + 1, size=(n_queries, n_candidates))
    for row in range(n_queries):
        if row < all_zero_rows:
            y_true[row] = 0
        elif not np.any(y_true[row] > 0):
            y_true[row, rng.integers(n_candidates)] = rng.integers(1, max_grade + 1)
    return y_true


def _tied_scores(rng, shape, n_levels=4):
    """Scores on a few integer levels, so that most rows contain ties."""
    return rng.integers(0, n_levels, size=shape).astype(float)


def _distinct_scores(rng, shape):
    """Scores without ties within a row."""
    scores = rng.standard_normal(size=shape)
    flat = scores.reshape(-1, shape[-1]) if len(shape) > 1 else scores[None, :]
    assert all(np.unique(row).size == row.size for row in flat)
    return scores


# --------------------------------------------------------------------------------------
# scikit-learn: ndcg_score and dcg_score (relevance matrix layout)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [None, 1, 3, 5, 20])
@pytest.mark.parametrize("weighted", [False, True])
def test_ndcg_dcg_match_sklearn_with_ties(seed, k, weighted):
    rng = np.random.default_rng(seed)
    y_true = _graded_matrix(rng)
    y_score = _tied_scores(rng, y_true.shape)
    sample_weight = rng.uniform(0.1, 3.0, size=y_true.shape[0]) if weighted else None

    expected_ndcg = sk_ndcg_score(y_true, y_score, k=k, sample_weight=sample_weight)
    expected_dcg = sk_dcg_score(y_true, y_score, k=k, sample_weight=sample_weight)
    _assert_close(
        skr.ndcg_score(y_true, y_score, k=k, sample_weight=sample_weight), expected_ndcg
    )
    _assert_close(
        skr.dcg_score(y_true, y_score, k=k, sample_weight=sample_weight), expected_dcg
    )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [None, 2, 4])
def test_ndcg_dcg_match_sklearn_without_ties(seed, k):
    rng = np.random.default_rng(seed)
    y_true = _graded_matrix(rng, n_queries=9, n_candidates=6)
    y_score = _distinct_scores(rng, y_true.shape)
    _assert_close(skr.ndcg_score(y_true, y_score, k=k), sk_ndcg_score(y_true, y_score, k=k))
    _assert_close(skr.dcg_score(y_true, y_score, k=k), sk_dcg_score(y_true, y_score, k=k))


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("k", [None, 3])
def test_ndcg_dcg_match_sklearn_float_grades(seed, k):
    rng = np.random.default_rng(seed)
    y_true = rng.uniform(0.0, 2.5, size=(8, 6)) * (rng.random((8, 6)) < 0.6)
    y_true[:, 0] = np.maximum(y_true[:, 0], 0.25)  # every row has a relevant item
    y_score = _tied_scores(rng, y_true.shape, n_levels=3)
    _assert_close(skr.ndcg_score(y_true, y_score, k=k), sk_ndcg_score(y_true, y_score, k=k))
    _assert_close(skr.dcg_score(y_true, y_score, k=k), sk_dcg_score(y_true, y_score, k=k))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [None, 2, 5])
@pytest.mark.parametrize("weighted", [False, True])
def test_ndcg_all_zero_rows_no_relevant_zero_matches_sklearn(seed, k, weighted):
    # scikit-learn scores a row without relevant items 0 and keeps it in the mean.
    rng = np.random.default_rng(seed)
    y_true = _graded_matrix(rng, all_zero_rows=3)
    rng.shuffle(y_true, axis=0)
    y_score = _tied_scores(rng, y_true.shape)
    sample_weight = rng.uniform(0.1, 3.0, size=y_true.shape[0]) if weighted else None
    expected = sk_ndcg_score(y_true, y_score, k=k, sample_weight=sample_weight)
    got = skr.ndcg_score(
        y_true, y_score, k=k, sample_weight=sample_weight, no_relevant="zero"
    )
    _assert_close(got, expected)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [None, 2, 5])
def test_dcg_all_zero_rows_match_sklearn(seed, k):
    # DCG of a row without relevant items is well defined (0); with
    # no_relevant="zero" such rows stay in the mean, as in scikit-learn.
    rng = np.random.default_rng(seed)
    y_true = _graded_matrix(rng, all_zero_rows=4)
    rng.shuffle(y_true, axis=0)
    y_score = _tied_scores(rng, y_true.shape)
    expected = sk_dcg_score(y_true, y_score, k=k)
    _assert_close(skr.dcg_score(y_true, y_score, k=k, no_relevant="zero"), expected)
    # DCG needs no relevant item to be defined, so the default keeps those rows too.
    _assert_close(skr.dcg_score(y_true, y_score, k=k), expected)


def test_ndcg_default_skips_all_zero_rows():
    # Default no_relevant="skip": the mean is over the rows that have a relevant item.
    rng = np.random.default_rng(7)
    y_true = _graded_matrix(rng, all_zero_rows=3)
    y_score = _tied_scores(rng, y_true.shape)
    keep = np.any(y_true > 0, axis=1)
    expected = sk_ndcg_score(y_true[keep], y_score[keep], k=4)
    _assert_close(skr.ndcg_score(y_true, y_score, k=4), expected)


# --------------------------------------------------------------------------------------
# scikit-learn: top_k_accuracy_score vs hits@k (label index layout)
# --------------------------------------------------------------------------------------


def _label_index_data(rng, n_queries=40, n_classes=6):
    y_true = np.concatenate(
        [np.arange(n_classes), rng.integers(0, n_classes, size=n_queries - n_classes)]
    )
    rng.shuffle(y_true)
    y_score = _distinct_scores(rng, (n_queries, n_classes))
    return y_true, y_score


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [1, 2, 3, 5])
@pytest.mark.parametrize("weighted", [False, True])
def test_hits_at_k_matches_top_k_accuracy(seed, k, weighted):
    rng = np.random.default_rng(seed)
    y_true, y_score = _label_index_data(rng)
    sample_weight = rng.uniform(0.1, 3.0, size=y_true.shape[0]) if weighted else None
    expected = top_k_accuracy_score(y_true, y_score, k=k, sample_weight=sample_weight)
    got = skr.hits_at_k(y_true, y_score, k=k, sample_weight=sample_weight)
    _assert_close(got, expected)
    report = skr.evaluate(
        y_true, y_score, metrics=[f"hits@{k}"], sample_weight=sample_weight
    )
    _assert_close(report.summary[f"hits@{k}"], expected)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [1, 2, 4])
def test_hits_at_k_matches_top_k_accuracy_integer_labels(seed, k):
    # Integer class labels that are not column indices: labels= maps them.
    rng = np.random.default_rng(seed)
    labels = np.array([-3, 2, 10, 11, 40])
    index = rng.integers(0, labels.size, size=30)
    y_true = labels[index]
    y_score = _distinct_scores(rng, (30, labels.size))
    expected = top_k_accuracy_score(y_true, y_score, k=k, labels=labels)
    _assert_close(skr.hits_at_k(y_true, y_score, k=k, labels=labels), expected)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [1, 2, 4])
def test_hits_at_k_matches_top_k_accuracy_string_labels(seed, k):
    rng = np.random.default_rng(seed)
    # scikit-learn requires sorted labels; "fox" never occurs in y_true.
    labels = np.array(["ant", "bee", "cat", "dog", "eel", "fox"])
    y_true = labels[rng.integers(0, labels.size - 1, size=35)]
    y_score = _distinct_scores(rng, (35, labels.size))
    sample_weight = rng.uniform(0.5, 2.0, size=35)
    expected = top_k_accuracy_score(
        y_true, y_score, k=k, labels=labels, sample_weight=sample_weight
    )
    got = skr.hits_at_k(y_true, y_score, k=k, labels=labels, sample_weight=sample_weight)
    _assert_close(got, expected)
    got_list = skr.hits_at_k(list(y_true), y_score, k=k, labels=list(labels),
                             sample_weight=sample_weight)
    _assert_close(got_list, expected)


# --------------------------------------------------------------------------------------
# scikit-learn: label_ranking_average_precision_score vs MAP (relevance matrix layout)
# --------------------------------------------------------------------------------------


def _binary_matrix(rng, n_queries=15, n_candidates=8):
    # LRAP scores rows with no relevant label, or only relevant labels, 1 by
    # convention; give every row at least one of each.
    y_true = (rng.random((n_queries, n_candidates)) < 0.35).astype(int)
    for row in range(n_queries):
        relevant_at, non_relevant_at = rng.choice(n_candidates, size=2, replace=False)
        y_true[row, relevant_at], y_true[row, non_relevant_at] = 1, 0
    return y_true


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_map_matches_lrap_without_ties(seed, weighted):
    rng = np.random.default_rng(seed)
    y_true = _binary_matrix(rng)
    y_score = _distinct_scores(rng, y_true.shape)
    sample_weight = rng.uniform(0.1, 3.0, size=y_true.shape[0]) if weighted else None
    expected = label_ranking_average_precision_score(
        y_true, y_score, sample_weight=sample_weight
    )
    for ties in ["expected", "realistic", "optimistic", "pessimistic", "ordinal"]:
        got = skr.mean_average_precision(
            y_true, y_score, sample_weight=sample_weight, ties=ties
        )
        _assert_close(got, expected)


# LRAP's tie rule is none of the five tie policies: an item tied with others is
# counted at the *worst* position of its tie block, in the numerator (number of
# relevant items scored >= it) and in the denominator (number of items scored >= it)
# alike.  With several relevant items in one tie block every one of them gets the same
# precision (R_through_block / position_of_block_end), which is neither the
# pessimistic order (relevant items last, one after another), nor the optimistic
# one, nor the expectation over orderings, nor the input order.


def _average_precision_of_order(relevant_in_order):
    hits, total = 0, 0.0
    for position, is_relevant in enumerate(relevant_in_order, start=1):
        if is_relevant:
            hits += 1
            total += hits / position
    return total / sum(relevant_in_order)


def _lrap_row_loop(relevant, scores):
    precisions = []
    for j in range(len(scores)):
        if relevant[j]:
            at_or_above = [i for i in range(len(scores)) if scores[i] >= scores[j]]
            relevant_at_or_above = [i for i in at_or_above if relevant[i]]
            precisions.append(len(relevant_at_or_above) / len(at_or_above))
    return sum(precisions) / len(precisions)


def _tie_blocks(scores):
    """Lists of item indices with equal score, best score first, input order inside."""
    levels = sorted(set(scores), reverse=True)
    return [[i for i in range(len(scores)) if scores[i] == level] for level in levels]


def _ap_policy_loop(relevant, scores, policy):
    blocks = _tie_blocks(scores)
    if policy == "ordinal":
        order = [i for block in blocks for i in block]
        return _average_precision_of_order([relevant[i] for i in order])
    if policy in ("optimistic", "pessimistic"):
        first = 1 if policy == "optimistic" else 0
        order = [
            i
            for block in blocks
            for i in sorted(block, key=lambda i: (relevant[i] != first, block.index(i)))
        ]
        return _average_precision_of_order([relevant[i] for i in order])
    if policy == "expected":
        values = []
        for arrangement in itertools.product(
            *[itertools.permutations(block) for block in blocks]
        ):
            order = [i for block in arrangement for i in block]
            values.append(_average_precision_of_order([relevant[i] for i in order]))
        return sum(values) / len(values)
    raise AssertionError(policy)


TIED_AP_ROWS = [
    # relevance, scores (rows of one relevance matrix, each with a tie block holding
    # several relevant and non-relevant items)
    ([1, 0, 1, 1, 0, 0], [0.5, 0.5, 0.5, 0.9, 0.5, 0.1]),
    ([0, 1, 1, 0, 0, 1], [0.2, 0.7, 0.7, 0.7, 0.9, 0.2]),
    ([1, 1, 0, 0, 0, 0], [0.3, 0.3, 0.3, 0.3, 0.8, 0.1]),
]


def test_lrap_tie_rule_differs_from_every_tie_policy():
    y_true = np.array([row[0] for row in TIED_AP_ROWS])
    y_score = np.array([row[1] for row in TIED_AP_ROWS])

    lrap_loop = np.mean([_lrap_row_loop(rel, sc) for rel, sc in TIED_AP_ROWS])
    _assert_close(label_ranking_average_precision_score(y_true, y_score), lrap_loop)

    for policy in ["ordinal", "optimistic", "pessimistic", "expected"]:
        expected = np.mean([_ap_policy_loop(rel, sc, policy) for rel, sc in TIED_AP_ROWS])
        got = skr.mean_average_precision(y_true, y_score, ties=policy)
        _assert_close(got, expected)
        assert abs(expected - lrap_loop) > 1e-3, policy

    realistic = skr.mean_average_precision(y_true, y_score, ties="realistic")
    assert abs(realistic - lrap_loop) > 1e-3


# --------------------------------------------------------------------------------------
# scikit-learn: per-query roc_auc_score vs "auc" (grouped layout)
# --------------------------------------------------------------------------------------


def _grouped_binary_with_ties(rng, n_queries=10):
    qids, y_true, y_score = [], [], []
    query_ids = rng.permutation(np.arange(100, 100 + 3 * n_queries, 3))
    for query in query_ids:
        size = rng.integers(4, 13)
        labels = (rng.random(size) < 0.4).astype(int)
        labels[0], labels[-1] = 1, 0  # both classes present
        rng.shuffle(labels)
        qids.append(np.full(size, query))
        y_true.append(labels * rng.integers(1, 4, size=size))  # graded, binarised by > 0
        y_score.append(_tied_scores(rng, (size,), n_levels=3))
    return np.concatenate(y_true), np.concatenate(y_score), np.concatenate(qids)


@pytest.mark.parametrize("seed", SEEDS)
def test_auc_matches_per_query_roc_auc_score(seed):
    rng = np.random.default_rng(seed)
    y_true, y_score, qid = _grouped_binary_with_ties(rng)
    unique_qids = np.unique(qid)
    expected = np.array(
        [roc_auc_score(y_true[qid == q] > 0, y_score[qid == q]) for q in unique_qids]
    )

    report = skr.evaluate(y_true, y_score, qid=qid, metrics=["auc"], ties="expected")
    np.testing.assert_array_equal(report.per_query["qid"], unique_qids)
    _assert_close(report.per_query["auc"], expected)
    _assert_close(report.summary["auc"], expected.mean())

    query_weight = dict(zip(unique_qids, rng.uniform(0.5, 2.0, size=unique_qids.size)))
    sample_weight = np.array([query_weight[q] for q in qid])
    weighted = skr.evaluate(
        y_true, y_score, qid=qid, metrics=["auc"], sample_weight=sample_weight
    )
    _assert_close(
        weighted.summary["auc"],
        np.average(expected, weights=[query_weight[q] for q in unique_qids]),
    )


# --------------------------------------------------------------------------------------
# TGB / OGB link-prediction MRR and hits@k (realistic ties)
# --------------------------------------------------------------------------------------


def _tgb_ogb_reference(y_pred_pos, y_pred_neg, ks):
    """The TGB/OGB evaluator's definition, written out."""
    y_pred_pos = y_pred_pos.reshape(-1, 1)
    optimistic_rank = (y_pred_neg > y_pred_pos).sum(1)
    pessimistic_rank = (y_pred_neg >= y_pred_pos).sum(1)
    ranking_list = 0.5 * (optimistic_rank + pessimistic_rank) + 1
    result = {"mrr": np.mean(1.0 / ranking_list)}
    for k in ks:
        result[f"hits@{k}"] = np.mean(ranking_list <= k)
    return result


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_levels", [3, 6, 50])
def test_tgb_ogb_realistic_mrr_and_hits(seed, n_levels):
    rng = np.random.default_rng(seed)
    n_edges, n_negatives = 60, 20
    y_pred_pos = rng.integers(0, n_levels, size=n_edges).astype(float)
    y_pred_neg = rng.integers(0, n_levels, size=(n_edges, n_negatives)).astype(float)
    ks = [1, 3, 10, 20]
    expected = _tgb_ogb_reference(y_pred_pos, y_pred_neg, ks)

    y_true, y_score = skr.positive_vs_negatives(y_pred_pos, y_pred_neg)
    np.testing.assert_array_equal(np.asarray(y_score)[:, 0], y_pred_pos)
    np.testing.assert_array_equal(np.asarray(y_score)[:, 1:], y_pred_neg)
    np.testing.assert_array_equal(np.asarray(y_true), 0)

    _assert_close(skr.mean_reciprocal_rank(y_true, y_score, ties="realistic"),
                  expected["mrr"])
    for k in ks:
        _assert_close(skr.hits_at_k(y_true, y_score, k=k, ties="realistic"),
                      expected[f"hits@{k}"])
    report = skr.evaluate(
        y_true, y_score, metrics=["mrr"] + [f"hits@{k}" for k in ks], ties="realistic"
    )
    for name, value in expected.items():
        _assert_close(report.summary[name], value)


# --------------------------------------------------------------------------------------
# pytrec_eval (trec_eval) on grouped retrieval data without ties
# --------------------------------------------------------------------------------------

TREC_MEASURES = {
    # trec_eval result key: (measure requested from pytrec_eval, sklearn-rank name)
    "map": ("map", "map"),
    "recip_rank": ("recip_rank", "mrr"),
    "ndcg": ("ndcg", "ndcg"),
    "ndcg_cut_10": ("ndcg_cut.10", "ndcg@10"),
    "P_5": ("P.5", "p@5"),
    "recall_10": ("recall.10", "r@10"),
    "Rprec": ("Rprec", "rprec"),
}


def _trec_data(rng, n_queries=25, all_relevant_missing=(), extra_queries=False):
    """Run and qrels with string qids and docnos, distinct scores.

    Some queries have fewer than 10 retrieved documents; many have relevant judged
    documents that the run does not retrieve.  Every query has a retrieved relevant
    document, except the queries listed in ``all_relevant_missing``.  With
    ``extra_queries``, the qrels also judge a query the run lacks and the run holds a
    query without judgments; trec_eval evaluates neither."""
    run, qrels = {}, {}
    rows = {"qid": [], "docno": [], "score": [], "rel": []}
    for q in range(n_queries):
        qid = f"Q{rng.integers(0, 10**6):06d}_{q}"
        n_retrieved = int(rng.integers(2, 25))
        docnos = [f"{qid}-d{i}" for i in rng.permutation(n_retrieved)]
        scores = rng.standard_normal(n_retrieved) * 3
        assert np.unique(scores).size == n_retrieved
        judged = {}
        for docno in docnos:
            if rng.random() < 0.75:
                judged[docno] = int(rng.choice([0, 0, 1, 2, 3]))
        if q in all_relevant_missing:
            judged = {d: 0 for d in judged}
        elif not any(rel > 0 for rel in judged.values()):
            judged[docnos[int(rng.integers(n_retrieved))]] = int(rng.integers(1, 4))
        for i in range(int(rng.integers(0, 5))):  # judged, never retrieved
            judged[f"{qid}-missing{i}"] = int(rng.choice([0, 1, 2, 3]))
        if q in all_relevant_missing:
            judged[f"{qid}-missing-rel"] = 2
        qrels[qid] = judged
        run[qid] = {d: float(s) for d, s in zip(docnos, scores)}
        for docno, score in zip(docnos, scores):
            rows["qid"].append(qid)
            rows["docno"].append(docno)
            rows["score"].append(float(score))
            rows["rel"].append(judged.get(docno, 0))
    if extra_queries:
        qrels["qrels-only"] = {"x1": 1, "x2": 0, "x3": 2}
        run["run-only"] = {f"r{i}": float(i) + 0.5 for i in range(4)}
        for docno, score in run["run-only"].items():
            rows["qid"].append("run-only")
            rows["docno"].append(docno)
            rows["score"].append(score)
            rows["rel"].append(0)
    judged_qid = np.array([qid for qid, docs in qrels.items() for _ in docs])
    judged_rel = np.array([rel for docs in qrels.values() for rel in docs.values()])
    return run, qrels, {k: np.array(v) for k, v in rows.items()}, (judged_qid, judged_rel)


def _shuffled_rows(rng, rows):
    order = rng.permutation(rows["qid"].size)
    return {k: v[order] for k, v in rows.items()}


def _pytrec_results(run, qrels):
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {request for request, _ in TREC_MEASURES.values()}
    )
    return evaluator.evaluate(run)


@pytest.mark.parametrize("seed", SEEDS)
def test_matches_pytrec_eval_per_query_and_mean(seed):
    rng = np.random.default_rng(seed)
    run, qrels, rows, judged = _trec_data(rng, extra_queries=True)
    rows = _shuffled_rows(rng, rows)
    expected = _pytrec_results(run, qrels)
    assert "qrels-only" not in expected and "run-only" not in expected
    assert any(len(docs) < 10 for docs in run.values())
    assert any(
        set(d for d, r in qrels[q].items() if r > 0) - set(run[q]) for q in run
    ), "some relevant documents should be missing from the run"

    names = [name for _, name in TREC_MEASURES.values()]
    report = skr.evaluate(
        rows["rel"], rows["score"], qid=rows["qid"], metrics=names, judged=judged
    )
    qids = list(report.per_query["qid"])
    assert qids == sorted(expected)
    assert report.n_skipped == 1  # the query without any judgment
    for trec_key, (_, name) in TREC_MEASURES.items():
        per_query = np.array([expected[q][trec_key] for q in qids])
        _assert_close(report.per_query[name], per_query)
        _assert_close(report.summary[name], per_query.mean())


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_matches_pytrec_eval_metric_functions(seed):
    rng = np.random.default_rng(seed)
    run, qrels, rows, judged = _trec_data(rng, n_queries=12)
    expected = _pytrec_results(run, qrels)

    def mean_of(key):
        return np.mean([expected[q][key] for q in expected])

    common = dict(qid=rows["qid"], judged=judged)
    y_true, y_score = rows["rel"], rows["score"]
    _assert_close(skr.mean_average_precision(y_true, y_score, **common), mean_of("map"))
    _assert_close(skr.mean_reciprocal_rank(y_true, y_score, **common), mean_of("recip_rank"))
    _assert_close(skr.ndcg_score(y_true, y_score, **common), mean_of("ndcg"))
    _assert_close(skr.ndcg_score(y_true, y_score, k=10, **common), mean_of("ndcg_cut_10"))
    _assert_close(skr.precision_at_k(y_true, y_score, k=5, **common), mean_of("P_5"))
    _assert_close(skr.recall_at_k(y_true, y_score, k=10, **common), mean_of("recall_10"))
    _assert_close(skr.r_precision(y_true, y_score, **common), mean_of("Rprec"))


def test_pytrec_eval_query_with_every_relevant_document_missing_counts_as_zero():
    # trec_eval keeps a query whose relevant documents were all missed and scores it 0;
    # with `judged` the query has relevant items, so it is evaluated, not skipped.
    rng = np.random.default_rng(11)
    run, qrels, rows, judged = _trec_data(rng, n_queries=8, all_relevant_missing=(2, 5))
    expected = _pytrec_results(run, qrels)
    names = [name for _, name in TREC_MEASURES.values()]
    report = skr.evaluate(
        rows["rel"], rows["score"], qid=rows["qid"], metrics=names, judged=judged
    )
    assert list(report.per_query["qid"]) == sorted(expected)
    assert report.n_queries == len(expected)
    for trec_key, (_, name) in TREC_MEASURES.items():
        per_query = np.array([expected[q][trec_key] for q in sorted(expected)])
        _assert_close(report.per_query[name], per_query)
        _assert_close(report.summary[name], per_query.mean())


def test_pytrec_eval_ndcg_gain_is_linear_with_log2_discount():
    # A hand-sized case written out from the definition, checked against trec_eval too.
    qrels = {"q": {"a": 2, "b": 0, "c": 1, "z": 3}}
    run = {"q": {"a": 0.9, "b": 0.8, "c": 0.7}}
    expected_ndcg = (2 / math.log2(2) + 1 / math.log2(4)) / (
        3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    )
    trec = _pytrec_results(run, qrels)["q"]
    _assert_close(trec["ndcg"], expected_ndcg)
    got = skr.ndcg_score(
        np.array([2, 0, 1]),
        np.array([0.9, 0.8, 0.7]),
        qid=np.array(["q", "q", "q"]),
        judged=(np.array(["q"] * 4), np.array([2, 0, 1, 3])),
    )
    _assert_close(got, expected_ndcg)
