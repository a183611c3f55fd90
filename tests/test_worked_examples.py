"""Worked examples of the field, computed by hand (4-decimal figures)."""

import numpy as np
import pytest

import sklearn_rank as skr

FOUR_DECIMALS = 5e-5


def _approx(value):
    return pytest.approx(value, abs=FOUR_DECIMALS)


# ---------------------------------------------------------------------------
# ranks 2, 1, 4: MRR = (1/2 + 1 + 1/4) / 3 = 0.5833, hits@1 = 1/3, hits@3 = 2/3
# ---------------------------------------------------------------------------


def test_ranks_2_1_4_from_rank_list():
    values = skr.evaluate_ranks([2, 1, 4], metrics=["mrr", "hits@1", "hits@3"])
    assert values["mrr"] == _approx(0.5833)
    assert values["hits@1"] == _approx(0.3333)
    assert values["hits@3"] == _approx(0.6667)


# The true item (column 0) of each row has rank 2, 1 and 4 among 5 candidates.
SCORES_2_1_4 = np.array(
    [
        [0.8, 0.9, 0.1, 0.2, 0.3],
        [0.9, 0.5, 0.4, 0.3, 0.2],
        [0.3, 0.9, 0.8, 0.7, 0.1],
    ]
)


@pytest.mark.parametrize("ties", ["expected", "realistic", "optimistic", "pessimistic", "ordinal"])
def test_ranks_2_1_4_from_score_matrix(ties):
    y_true = np.zeros(3, dtype=int)
    report = skr.evaluate(y_true, SCORES_2_1_4, metrics=["mrr", "hits@1", "hits@3", "mr"], ties=ties)
    assert report.summary["mrr"] == _approx(0.5833)
    assert report.summary["hits@1"] == _approx(0.3333)
    assert report.summary["hits@3"] == _approx(0.6667)
    assert report.summary["mr"] == _approx(2.3333)
    np.testing.assert_allclose(report.per_query["mrr"], [0.5, 1.0, 0.25])
    ranks = skr.compute_ranks(y_true, SCORES_2_1_4)
    np.testing.assert_array_equal(ranks.optimistic, [2, 1, 4])
    assert skr.evaluate_ranks(ranks, metrics=["mrr"], ties=ties)["mrr"] == _approx(0.5833)
    assert skr.mean_reciprocal_rank(y_true, SCORES_2_1_4, ties=ties) == _approx(0.5833)
    assert skr.hits_at_k(y_true, SCORES_2_1_4, k=3, ties=ties) == _approx(0.6667)


def test_ranks_2_1_4_as_relevance_matrix_and_grouped_rows():
    y_true = np.zeros_like(SCORES_2_1_4, dtype=int)
    y_true[:, 0] = 1
    assert skr.mean_reciprocal_rank(y_true, SCORES_2_1_4) == _approx(0.5833)
    qid = np.repeat([10, 20, 30], 5)
    assert skr.mean_reciprocal_rank(y_true.ravel(), SCORES_2_1_4.ravel(), qid=qid) == _approx(0.5833)
    assert skr.hits_at_k(y_true.ravel(), SCORES_2_1_4.ravel(), qid=qid, k=1) == _approx(0.3333)


# ---------------------------------------------------------------------------
# three TracIn-style lists, first relevant at 3, 1 and 5: MRR = (1/3 + 1 + 1/5) / 3
# ---------------------------------------------------------------------------


def _grouped(lists):
    """Grouped rows from lists of relevance in rank order (scores decrease down a list)."""
    y_true, y_score, qid = [], [], []
    for q, rels in enumerate(lists):
        y_true += rels
        y_score += [float(len(rels) - i) for i in range(len(rels))]
        qid += [q] * len(rels)
    return np.array(y_true), np.array(y_score), np.array(qid)


def test_tracin_style_mrr():
    lists = [
        [0, 0, 1, 0, 0],
        [1, 0, 0, 1],
        [0, 0, 0, 0, 1, 0],
    ]
    y_true, y_score, qid = _grouped(lists)
    assert skr.mean_reciprocal_rank(y_true, y_score, qid=qid) == _approx(0.5111)
    assert skr.mean_rank(y_true, y_score, qid=qid) == _approx(3.0)


# ---------------------------------------------------------------------------
# MAP: relevant at (2, 4, 6 of 7), (1, 3 of 4), (3 of 3)
#   AP = (1/2 + 2/4 + 3/6) / 3 = 0.5, (1 + 2/3) / 2 = 0.8333, (1/3) / 1 = 0.3333
#   MAP = 0.5556
# ---------------------------------------------------------------------------


def test_map_three_lists():
    lists = [
        [0, 1, 0, 1, 0, 1, 0],
        [1, 0, 1, 0],
        [0, 0, 1],
    ]
    y_true, y_score, qid = _grouped(lists)
    assert skr.mean_average_precision(y_true, y_score, qid=qid) == _approx(0.5556)
    report = skr.evaluate(y_true, y_score, qid=qid, metrics=["map"])
    np.testing.assert_allclose(report.per_query["map"], [0.5, 5 / 6, 1 / 3])


# ---------------------------------------------------------------------------
# relevant at ranks 1, 4, 5 of 10: AP = (1/1 + 2/4 + 3/5) / 3 = 0.7000
# (0.7333 would come from a wrong precision at one of the relevant positions)
# ---------------------------------------------------------------------------


def test_ap_relevant_at_1_4_5_of_10():
    rels = [1, 0, 0, 1, 1, 0, 0, 0, 0, 0]
    y_score = np.arange(10, 0, -1, dtype=float)
    value = skr.mean_average_precision(rels, y_score)
    assert value == _approx(0.7000)
    assert value != _approx(0.7333)
    # shuffling the rows changes nothing
    perm = np.random.default_rng(0).permutation(10)
    assert skr.mean_average_precision(np.array(rels)[perm], y_score[perm]) == _approx(0.7000)


# ---------------------------------------------------------------------------
# 10 non-relevant, then 10 relevant, then 90 non-relevant: each relevant item
# beats 90 of the 100 non-relevant ones, AUC = 0.9000; Somers' D = 2 AUC - 1 = 0.8
# ---------------------------------------------------------------------------


def test_auc_block_of_relevant_items():
    rels = [0] * 10 + [1] * 10 + [0] * 90
    y_score = np.arange(110, 0, -1, dtype=float)
    report = skr.evaluate(rels, y_score, metrics=["auc"])
    auc = report.summary["auc"]
    assert auc == _approx(0.9000)
    assert 2 * auc - 1 == _approx(0.8000)
