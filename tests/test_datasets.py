import numpy as np
import pytest

from sklearn_rank import evaluate
from sklearn_rank.datasets import make_ranking


def test_shapes_grades_and_contiguous_queries():
    X, y, qid = make_ranking(n_queries=7, n_candidates=(3, 9), n_features=5, n_relevance_levels=3,
                             random_state=1)
    assert X.shape == (qid.size, 5) and y.shape == qid.shape
    assert set(np.unique(y)) <= {0, 1, 2}
    assert np.all(np.diff(qid) >= 0) and np.unique(qid).size == 7
    # every query has at least one relevant candidate
    assert np.all(np.bincount(qid, weights=y > 0) >= 1)


def test_seeded_and_reproducible():
    a = make_ranking(random_state=3)
    b = make_ranking(random_state=3)
    c = make_ranking(random_state=4)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])


def test_signal_is_learnable_and_noise_hurts():
    from sklearn.linear_model import Ridge

    scores = []
    for noise in (0.0, 5.0):
        X, y, qid = make_ranking(n_queries=60, n_candidates=20, noise=noise, random_state=0)
        pred = Ridge().fit(X, y).predict(X)
        scores.append(evaluate(y, pred, qid=qid, metrics=["ndcg@10"]).summary["ndcg@10"])
        random = evaluate(y, np.zeros_like(pred), qid=qid, metrics=["ndcg@10"]).summary["ndcg@10"]
        assert scores[-1] > random
    assert scores[0] > scores[1]


def test_as_frame():
    pd = pytest.importorskip("pandas")
    X, y, qid = make_ranking(n_queries=2, n_candidates=3, n_features=2, random_state=0, as_frame=True)
    assert isinstance(X, pd.DataFrame) and list(X.columns) == ["qid", "f0", "f1"]
    assert X["qid"].tolist() == qid.tolist() and isinstance(y, pd.Series)


@pytest.mark.parametrize("kwargs, match", [
    ({"n_queries": 0}, "n_queries"),
    ({"n_candidates": (5, 2)}, "n_candidates"),
    ({"n_relevance_levels": 1}, "n_relevance_levels"),
    ({"n_informative": 20, "n_features": 3}, "n_informative"),
    ({"noise": -1.0}, "noise"),
    ({"relevant_fraction": 0.0}, "relevant_fraction"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_ranking(**kwargs)
