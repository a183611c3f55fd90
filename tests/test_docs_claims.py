"""Claims of docs/definitions.rst that are not covered by the peer and oracle tests."""

import numpy as np
import pytest

from sklearn_rank import UndefinedMetricWarning, evaluate

POLICY_TABLE = {
    # policy: (rr, hits@2, mr) for scores [0.9, 0.5, 0.5, 0.5] with the relevant item at index 2
    "optimistic": (1 / 2, 1.0, 2.0),
    "pessimistic": (1 / 4, 0.0, 4.0),
    "realistic": (1 / 3, 0.0, 3.0),
    "expected": ((1 / 2 + 1 / 3 + 1 / 4) / 3, 1 / 3, 3.0),
    "ordinal": (1 / 3, 0.0, 3.0),  # index 2 is the second of the tied rows
}


@pytest.mark.parametrize("ties", sorted(POLICY_TABLE))
def test_worked_tie_example(ties):
    report = evaluate([0, 0, 1, 0], [0.9, 0.5, 0.5, 0.5], metrics=["mrr", "hits@2", "mr"], ties=ties)
    assert [report.summary[m] for m in ("mrr", "hits@2", "mr")] == pytest.approx(POLICY_TABLE[ties], abs=1e-12)


def test_auc_and_somers_d():
    y_true = np.r_[np.zeros(10), np.ones(10), np.zeros(90)]
    y_score = -np.arange(110.0)
    auc = evaluate(y_true, y_score, metrics=["auc"]).summary["auc"]
    assert auc == pytest.approx(0.9, abs=1e-12)
    assert 2 * auc - 1 == pytest.approx(0.8, abs=1e-12)


def test_relevance_level_keeps_ndcg_gains():
    # Grade 1 is not relevant at level 2, but still a gain for nDCG (trec_eval's -l rule).
    y_true = [1, 2, 0]
    y_score = [0.9, 0.5, 0.1]
    at_level = evaluate(y_true, y_score, metrics=["ndcg", "mrr"], relevance_level=2).summary
    default = evaluate(y_true, y_score, metrics=["ndcg", "mrr"]).summary
    assert at_level["ndcg"] == default["ndcg"]
    assert at_level["mrr"] == 0.5 and default["mrr"] == 1.0


def test_auc_undefined_without_negatives_is_left_out():
    with pytest.warns(UndefinedMetricWarning, match=r"'auc' is undefined for 1 queries .*qid \[1\]"):
        report = evaluate([1, 1, 0, 1], [0.3, 0.2, 0.5, 0.1], qid=[1, 1, 2, 2], metrics=["auc"])
    assert np.isnan(report.per_query["auc"][0])
    assert report.summary["auc"] == 0.0  # query 2: the relevant item is below the non-relevant one
