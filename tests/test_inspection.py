"""sklearn_rank.inspection.permutation_importance (issue 26).

Checked against: scikit-learn's own permutation_importance (``permute="all_rows"`` draws its
permutations, so a scorer that knows the query ids gives its numbers), a hand computation from the
rows the model was given (recorded by a spy) evaluated by ``sklearn_rank.evaluate``, and itself across
the two routes (a RankingEvaluator's query-id column, or ``qid=`` for a model fitted without it).
"""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.datasets import make_classification
from sklearn.inspection import permutation_importance as sklearn_permutation_importance
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline

from sklearn_rank import RankingEvaluator, evaluate, make_multimetric_scorer, make_ranking_scorer
from sklearn_rank.datasets import make_ranking
from sklearn_rank.inspection import permutation_importance

ATOL = 1e-12


def ranking_frame(seed=0, n_queries=30):
    """make_ranking data, rows of different queries interleaved, plus a query-level column 'level' (one value
    per query); the qid column in the middle of the frame."""
    X, y, qid = make_ranking(n_queries=n_queries, n_candidates=(4, 12), n_features=4, n_informative=3,
                             random_state=seed, as_frame=True)
    rng = np.random.default_rng(seed)
    level = pd.Series(rng.normal(size=n_queries), index=np.unique(qid))
    X["level"] = level.loc[np.asarray(qid)].to_numpy()
    order = rng.permutation(len(X))
    X = X.iloc[order].reset_index(drop=True)
    y = np.asarray(y)[order]
    X = X[["f0", "f1", "qid", "f2", "level", "f3"]]
    return X, y, X["qid"].to_numpy()


FEATURES = ["f0", "f1", "f2", "level", "f3"]


class SpyRidge(RegressorMixin, BaseEstimator):
    """Ridge that records a copy of every X it predicts (class-level list: clones share it)."""

    seen = []

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y):
        self.model_ = Ridge(alpha=self.alpha).fit(np.asarray(X, dtype=float), y)
        return self

    def predict(self, X):
        type(self).seen.append(np.array(X, dtype=float))
        return self.model_.predict(np.asarray(X, dtype=float))


@pytest.mark.parametrize("permute", ["within_queries", "all_rows"])
@pytest.mark.parametrize("metric", ["ndcg@10", "mr"])
def test_both_routes_give_the_same_importances(permute, metric):
    X, y, qid = ranking_frame(seed=1)
    evaluator = RankingEvaluator(Ridge()).fit(X, y)
    from_column = permutation_importance(evaluator, X, y, metric=metric, permute=permute, n_repeats=4,
                                         random_state=7)
    features = X[FEATURES]
    plain = Ridge().fit(features, y)
    from_qid = permutation_importance(plain, features, y, qid=qid, metric=metric, permute=permute, n_repeats=4,
                                      random_state=7)
    # NumPy arrays: the query-id column by index (2), and no column at all.
    array_model = RankingEvaluator(Ridge(), qid=2).fit(X.to_numpy(), y)
    from_array = permutation_importance(array_model, X.to_numpy(), y, metric=metric, permute=permute, n_repeats=4,
                                        random_state=np.random.RandomState(7))
    for result in (from_column, from_qid, from_array):
        assert result.importances.shape == (5, 4)
        np.testing.assert_allclose(result.importances, from_column.importances, rtol=0, atol=ATOL)
        np.testing.assert_allclose(result.importances_mean, result.importances.mean(axis=1), rtol=0, atol=ATOL)
        np.testing.assert_allclose(result.importances_std, result.importances.std(axis=1), rtol=0, atol=ATOL)
    assert list(from_column.feature_names) == list(from_qid.feature_names) == FEATURES
    assert list(from_array.feature_names) == ["x0", "x1", "x3", "x4", "x5"]  # column indices of X, qid (2) left out
    # an informative feature matters, in the direction of "helps" for both directions of metric
    assert from_column.importances_mean.max() > 0.02


def test_all_rows_is_scikit_learns_permutation_importance():
    # A scorer that knows the query ids of the rows (their order never changes) gives scikit-learn's numbers.
    X, y, qid = ranking_frame(seed=2)
    features = X[FEATURES]

    def ndcg(estimator, X_scored, y_scored):
        return evaluate(y_scored, estimator.predict(X_scored), qid=qid, metrics=["ndcg@10"]).summary["ndcg@10"]

    for data in (features, features.to_numpy()):
        model = Ridge().fit(data, y)
        ours = permutation_importance(model, data, y, qid=qid, permute="all_rows", n_repeats=3, random_state=3)
        theirs = sklearn_permutation_importance(model, data, y, scoring=ndcg, n_repeats=3, random_state=3)
        np.testing.assert_allclose(ours.importances, theirs.importances, rtol=0, atol=ATOL)


@pytest.mark.parametrize("permute", ["within_queries", "all_rows"])
def test_importances_match_a_hand_computation(permute):
    X, y, qid = ranking_frame(seed=3)
    features = X[FEATURES].to_numpy()
    model = SpyRidge().fit(features, y)
    SpyRidge.seen = []
    result = permutation_importance(model, features, y, qid=qid, metric="map", permute=permute, n_repeats=3,
                                    random_state=0)
    seen = SpyRidge.seen
    assert len(seen) == 1 + features.shape[1] * 3  # the baseline, then each feature's repeats in order
    np.testing.assert_array_equal(seen[0], features)

    def hand(X_scored):
        return evaluate(y, model.model_.predict(X_scored), qid=qid, metrics=["map"]).summary["map"]

    baseline = hand(features)
    for column in range(features.shape[1]):
        for repeat in range(3):
            X_scored = seen[1 + 3 * column + repeat]
            others = np.delete(np.arange(features.shape[1]), column)
            np.testing.assert_array_equal(X_scored[:, others], features[:, others])  # one column permuted
            np.testing.assert_array_equal(np.sort(X_scored[:, column]), np.sort(features[:, column]))
            if permute == "within_queries":
                for query in np.unique(qid):  # every value stays in its query
                    rows = qid == query
                    np.testing.assert_array_equal(np.sort(X_scored[rows, column]), np.sort(features[rows, column]))
            assert result.importances[column, repeat] == pytest.approx(baseline - hand(X_scored), abs=ATOL)


def test_a_query_level_feature_has_no_importance_within_queries():
    X, y, qid = ranking_frame(seed=4)
    features = X[FEATURES]
    model = Ridge().fit(features, y)
    level = FEATURES.index("level")
    within = permutation_importance(model, features, y, qid=qid, n_repeats=3, random_state=0)
    across = permutation_importance(model, features, y, qid=qid, n_repeats=3, random_state=0, permute="all_rows")
    np.testing.assert_array_equal(within.importances[level], 0.0)  # a constant per query orders nothing
    assert np.abs(across.importances[level]).max() > 0  # moved between queries, it shifts ties and orders


def test_lower_is_better_metrics_count_a_worse_ranking_as_positive():
    X, y, qid = ranking_frame(seed=5)
    features = X[FEATURES].to_numpy()
    model = SpyRidge().fit(features, y)
    SpyRidge.seen = []
    result = permutation_importance(model, features, y, qid=qid, metric="mr", n_repeats=2, random_state=0)
    seen = SpyRidge.seen

    def mean_rank(X_scored):
        return evaluate(y, model.model_.predict(X_scored), qid=qid, metrics=["mr"]).summary["mr"]

    # permuted minus baseline: the mean rank of the first relevant row grows when a useful feature is lost
    assert result.importances[0, 1] == pytest.approx(mean_rank(seen[2]) - mean_rank(seen[0]), abs=ATOL)
    assert result.importances_mean.max() > 0


def test_several_metrics_give_a_dict_keyed_by_scorer_names():
    X, y, qid = ranking_frame(seed=6)
    evaluator = RankingEvaluator(Ridge()).fit(X, y)
    both = permutation_importance(evaluator, X, y, metric=["mrr", "mean_rank"], n_repeats=2, random_state=1,
                                  ties="realistic")
    assert list(both) == list(make_multimetric_scorer(["mrr", "mean_rank"]).names) == ["mrr", "neg_mr"]
    for metric, key in [("mrr", "mrr"), ("mean_rank", "neg_mr")]:
        alone = permutation_importance(evaluator, X, y, metric=metric, n_repeats=2, random_state=1, ties="realistic")
        np.testing.assert_allclose(both[key].importances, alone.importances, rtol=0, atol=ATOL)
        assert list(both[key].feature_names) == FEATURES


def test_n_jobs_and_sample_weight():
    X, y, qid = ranking_frame(seed=7)
    evaluator = RankingEvaluator(Ridge()).fit(X, y)
    one = permutation_importance(evaluator, X, y, n_repeats=2, random_state=0)
    two = permutation_importance(evaluator, X, y, n_repeats=2, random_state=0, n_jobs=2)
    np.testing.assert_array_equal(one.importances, two.importances)
    weights = 1.0 + (qid % 3)  # constant within each query
    weighted = permutation_importance(evaluator, X, y, n_repeats=2, random_state=0, sample_weight=weights)
    scorer = make_ranking_scorer("ndcg@10", qid="qid")
    baseline = scorer(evaluator, X, y, sample_weight=weights)
    assert not np.allclose(weighted.importances, one.importances)
    assert baseline > 0


def test_a_classifier_ranking_its_classes_needs_no_query_ids_across_all_rows():
    X, y = make_classification(n_samples=150, n_features=5, n_informative=3, n_classes=3, random_state=0)
    model = LogisticRegression(max_iter=500).fit(X, y)
    ours = permutation_importance(model, X, y, metric="mrr", permute="all_rows", n_repeats=2, random_state=0)
    theirs = sklearn_permutation_importance(model, X, y, scoring=make_ranking_scorer("mrr"), n_repeats=2,
                                            random_state=0)
    np.testing.assert_allclose(ours.importances, theirs.importances, rtol=0, atol=ATOL)
    with pytest.raises(ValueError, match="permute='within_queries'.*needs query ids.*permute='all_rows'"):
        permutation_importance(model, X, y, metric="mrr")


@pytest.mark.parametrize("kwargs, error, match", [
    ({"permute": "rows"}, ValueError, r"`permute` must be one of \['within_queries', 'all_rows'\]. Got 'rows'"),
    ({"n_repeats": 0}, ValueError, "`n_repeats` must be at least 1. Got 0 instead."),
    ({"n_repeats": 2.0}, TypeError, "`n_repeats` must be an integer"),
    ({"metric": "ndcgg@10"}, ValueError, "ndcg"),
    ({"ties": "random"}, ValueError, "ties"),
])
def test_invalid_arguments(kwargs, error, match):
    X, y, qid = ranking_frame(seed=8, n_queries=6)
    evaluator = RankingEvaluator(Ridge()).fit(X, y)
    with pytest.raises(error, match=match):
        permutation_importance(evaluator, X, y, **kwargs)


def test_missing_or_wrong_query_ids():
    X, y, qid = ranking_frame(seed=9, n_queries=6)
    features = X[FEATURES]
    model = Ridge().fit(features, y)
    with pytest.raises(ValueError, match="needs query ids: pass qid="):
        permutation_importance(model, features, y)
    with pytest.raises(ValueError, match="permutation_importance needs query ids.*Got no query ids instead"):
        permutation_importance(model, features, y, permute="all_rows")
    with pytest.raises(ValueError, match="one query id per row"):
        permutation_importance(model, features, y, qid=qid[:-1])
    with pytest.raises(TypeError, match="X.toarray"):
        permutation_importance(model, sp.csr_matrix(features.to_numpy()), y, qid=qid)
    with pytest.raises(ValueError, match="not fitted|NotFitted|fit"):
        permutation_importance(RankingEvaluator(Ridge()), X, y)


# --------------------------------------------------------------------------------------
# scikit-learn's permutation_importance never reports a query-id column
# --------------------------------------------------------------------------------------

SKLEARN_ERROR = ("of X inside sklearn.inspection.permutation_importance, which permutes every column of X.*"
                 r"Use sklearn_rank.inspection.permutation_importance\(")


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_sklearn_permutation_importance_refuses_the_evaluators_qid_column(n_jobs):
    X, y, qid = ranking_frame(seed=10, n_queries=8)
    evaluator = RankingEvaluator(Ridge()).fit(X, y)
    with pytest.raises(ValueError, match="RankingEvaluator read the query-id column 'qid' " + SKLEARN_ERROR):
        sklearn_permutation_importance(evaluator, X, y, n_repeats=2, random_state=0, n_jobs=n_jobs)
    with pytest.raises(ValueError, match=SKLEARN_ERROR):  # a scorer predicting through the evaluator
        sklearn_permutation_importance(evaluator, X, y, scoring=make_ranking_scorer("mrr"), n_repeats=2)


def test_sklearn_permutation_importance_refuses_a_scorers_qid_column():
    # Route 2: a pipeline drops the column, the scorer reads it.
    X, y, qid = ranking_frame(seed=11, n_queries=8)
    drop_qid = ColumnTransformer([("drop_qid", "drop", ["qid"])], remainder="passthrough")
    model = make_pipeline(drop_qid, Ridge()).fit(X, y)
    with pytest.raises(ValueError, match=r"make_ranking_scorer\('ndcg@10'\) read the query-id column 'qid' "
                       + SKLEARN_ERROR):
        sklearn_permutation_importance(model, X, y, scoring=make_ranking_scorer("ndcg@10"), n_repeats=2)
    # The same model and scorer outside scikit-learn's permutation_importance read the column as before.
    assert 0 < make_ranking_scorer("ndcg@10")(model, X, y) <= 1


def test_the_replacement_reports_every_column_but_qid():
    X, y, qid = ranking_frame(seed=12)
    evaluator = RankingEvaluator(clone(Ridge(alpha=0.5))).fit(X, y)
    result = permutation_importance(evaluator, X, y, n_repeats=3, random_state=0)
    assert "qid" not in list(result.feature_names)
    assert result.importances.shape == (len(FEATURES), 3)
