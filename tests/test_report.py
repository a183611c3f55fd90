import numpy as np
import pytest

from sklearn_rank import evaluate


def _data():
    y_true = np.array([0, 1, 0, 1, 0, 0, 0, 0, 0])
    y_score = np.array([0.9, 0.8, 0.1, 0.3, 0.6, 0.2, 0.5, 0.4, 0.3])
    qid = np.array(["b", "b", "b", "a", "a", "a", "c", "c", "c"])
    return y_true, y_score, qid


def test_summary_keys_are_names_as_written():
    y_true, y_score, qid = _data()
    written = ["MRR", "ndcg@10", "Hit_Rate@1", "mean_rank"]
    report = evaluate(y_true, y_score, qid=qid, metrics=written)
    assert list(report.summary) == written
    assert set(report.per_query) == {"qid", *written}


def test_per_query_and_skipped_queries():
    y_true, y_score, qid = _data()
    report = evaluate(y_true, y_score, qid=qid, metrics=["mrr"])
    # query "c" has no relevant item: skipped and counted
    assert report.n_queries == 2 and report.n_skipped == 1
    assert report.per_query["qid"].tolist() == ["a", "b"]
    # a: relevant scored 0.3 below 0.6 -> rank 2; b: 0.8 below 0.9 -> rank 2
    np.testing.assert_allclose(report.per_query["mrr"], [0.5, 0.5])
    zero = evaluate(y_true, y_score, qid=qid, metrics=["mrr"], no_relevant="zero")
    assert zero.n_queries == 3 and zero.n_skipped == 0
    np.testing.assert_allclose(zero.per_query["mrr"], [0.5, 0.5, 0.0])
    assert zero.summary["mrr"] == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="no_relevant='error'.*'c'"):
        evaluate(y_true, y_score, qid=qid, metrics=["mrr"], no_relevant="error")


def test_dcg_alone_keeps_queries_without_relevant_items():
    y_true, y_score, qid = _data()
    report = evaluate(y_true, y_score, qid=qid, metrics=["dcg"])
    assert report.n_queries == 3 and report.n_skipped == 0


def test_repr_and_frame():
    y_true, y_score, qid = _data()
    report = evaluate(y_true, y_score, qid=qid, metrics=["mrr", "map"])
    text = repr(report)
    assert "n_queries=2" in text and "mrr" in text and "0.5000" in text
    pd = pytest.importorskip("pandas")
    frame = report.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert frame.index.name == "qid" and list(frame.columns) == ["mrr", "map"]
    assert frame.loc["a", "mrr"] == pytest.approx(0.5)
    assert report["map"] == report.summary["map"]


def test_weighted_mean_over_queries():
    y_true, y_score, qid = _data()
    # a: rank 2 of the relevant item; b: rank 2; weight query "a" twice as much -> mean stays 0.5
    w = np.where(qid == "a", 2.0, 1.0)
    y_true2 = y_true.copy()
    y_true2[6] = 1  # query c: relevant at score 0.5, rank 1
    report = evaluate(y_true2, y_score, qid=qid, metrics=["mrr"], sample_weight=w)
    assert report.summary["mrr"] == pytest.approx((2 * 0.5 + 0.5 + 1.0) / 4)
