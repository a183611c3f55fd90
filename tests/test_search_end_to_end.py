"""End-to-end model selection: real searches, every reported number recomputed by hand.

Each test fits a scikit-learn search (or cross-validation, or permutation
importance) with a sklearn-rank scorer or :class:`RankingEvaluator`, then
recomputes every entry of the result independently: refit the estimator with
the candidate's parameters on the fold's training rows, score the fold's test
rows, and evaluate the metric with :func:`sklearn_rank.evaluate` on those rows
only (the multiclass test also checks against a rank counted by hand).
"""

import lightgbm
import numpy as np
import pandas as pd
import pytest
import xgboost
from scipy.stats import loguniform
from sklearn import clone, config_context
from sklearn.compose import ColumnTransformer
from sklearn.datasets import load_digits
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import (GridSearchCV, GroupKFold, HalvingGridSearchCV, KFold, RandomizedSearchCV,
                                     cross_val_score, cross_validate)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor

from sklearn_rank import evaluate
from sklearn_rank._evaluator import RankingEvaluator
from sklearn_rank._scorer import make_ranking_scorer, make_scorers
from sklearn_rank.model_selection import QueryGroupKFold

ATOL = 1e-10
FEATURES = ["f0", "f1", "f2", "f3", "f4"]


def ranking_data(n_queries=24, seed=0):
    """Graded relevance (0-3) for queries of 4-9 rows; rows of different queries interleaved."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(4, 10, n_queries)
    qid = np.repeat(np.arange(100, 100 + n_queries), sizes)
    # Correlated features and a noisy target: regularisation changes the ranking, not just its scale.
    mixing = np.eye(len(FEATURES)) + 0.8 * rng.normal(size=(len(FEATURES), len(FEATURES)))
    X = rng.normal(size=(qid.size, len(FEATURES))) @ mixing
    latent = X @ np.array([1.5, -1.0, 0.5, 0.0, 0.25]) + rng.normal(scale=2.0, size=qid.size)
    y = np.digitize(latent, np.quantile(latent, [0.75, 0.9, 0.97]))
    order = rng.permutation(qid.size)
    return X[order], y[order], qid[order]


def as_frame(X, qid):
    frame = pd.DataFrame(X, columns=FEATURES)
    frame.insert(2, "qid", qid)  # the query-id column need not come first
    return frame


def grouped_metric(model, X_test, y_test, qid_test, metric, sample_weight=None):
    return evaluate(y_test, model.predict(X_test), qid=qid_test, metrics=[metric],
                    sample_weight=sample_weight).summary[metric]


def hand_fold_score(estimator, params, X, y, qid, train, test, metric, sign=1):
    """Refit ``estimator`` with ``params`` on the training rows, evaluate the test rows."""
    model = clone(estimator).set_params(**params).fit(X[train], y[train])
    return sign * grouped_metric(model, X[test], y[test], qid[test], metric)


def assert_search_matches(search, splits, hand, score_key="test_score"):
    """Every ``split{i}_<score_key>`` entry of ``search.cv_results_`` equals ``hand(params, train, test)``."""
    results = search.cv_results_
    for candidate, params in enumerate(results["params"]):
        for fold, (train, test) in enumerate(splits):
            expected = hand(params, train, test)
            actual = results[f"split{fold}_{score_key}"][candidate]
            assert actual == pytest.approx(expected, abs=ATOL), (params, fold)
    # The candidates were told apart: the search had something to choose.
    assert np.unique(np.round(results[f"mean_{score_key}"], 10)).size > 1


# --------------------------------------------------------------------------------------
# route 1: metadata routing
# --------------------------------------------------------------------------------------


def test_grid_search_with_routing_matches_hand_computation():
    X, y, qid = ranking_data()
    cv = GroupKFold(n_splits=3)
    with config_context(enable_metadata_routing=True):
        search = GridSearchCV(Ridge(), {"alpha": [0.01, 30.0, 3000.0]}, scoring=make_ranking_scorer("mrr"), cv=cv,
                              n_jobs=2)
        search.fit(X, y, groups=qid, qid=qid)
    splits = list(cv.split(X, y, groups=qid))
    assert_search_matches(search, splits,
                          lambda params, train, test: hand_fold_score(Ridge(), params, X, y, qid, train, test, "mrr"))


def test_cross_validate_with_routing_and_an_alias_matches_hand_computation():
    X, y, qid = ranking_data(seed=1)
    cv = GroupKFold(n_splits=4)
    splits = list(cv.split(X, y, groups=qid))
    with config_context(enable_metadata_routing=True):
        result = cross_validate(Ridge(alpha=1.0), X, y, cv=cv, scoring=make_ranking_scorer("ndcg@5"),
                                params={"groups": qid, "qid": qid})
        aliased = make_ranking_scorer("ndcg@5").set_score_request(qid="query_id")
        result_alias = cross_validate(Ridge(alpha=1.0), X, y, cv=cv, scoring=aliased,
                                      params={"groups": qid, "query_id": qid})
    expected = [hand_fold_score(Ridge(alpha=1.0), {}, X, y, qid, train, test, "ndcg@5") for train, test in splits]
    np.testing.assert_allclose(result["test_score"], expected, rtol=0, atol=ATOL)
    np.testing.assert_allclose(result_alias["test_score"], expected, rtol=0, atol=ATOL)


# --------------------------------------------------------------------------------------
# route 2: a query-id column in X, routing off
# --------------------------------------------------------------------------------------


def test_grid_search_with_qid_column_through_the_scorer():
    X, y, qid = ranking_data(seed=2)
    frame = as_frame(X, qid)
    # The scorer reads the column; a pipeline keeps it away from the model.
    pipeline = make_pipeline(ColumnTransformer([("drop_qid", "drop", ["qid"])], remainder="passthrough"), Ridge())
    cv = GroupKFold(n_splits=3)
    search = GridSearchCV(pipeline, {"ridge__alpha": [0.01, 30.0, 3000.0]}, scoring=make_ranking_scorer("map"),
                          cv=cv).fit(frame, y, groups=frame["qid"])
    splits = list(cv.split(X, y, groups=qid))
    assert_search_matches(search, splits, lambda params, train, test: hand_fold_score(
        Ridge(), {"alpha": params["ridge__alpha"]}, X, y, qid, train, test, "map"))


def test_grid_search_with_qid_column_index_of_an_array():
    X, y, qid = ranking_data(seed=3)
    stacked = np.column_stack([qid, X])  # column 0 holds the query ids
    pipeline = make_pipeline(ColumnTransformer([("drop_qid", "drop", [0])], remainder="passthrough"), Ridge())
    cv = GroupKFold(n_splits=3)
    search = GridSearchCV(pipeline, {"ridge__alpha": [0.01, 30.0, 3000.0]},
                          scoring=make_ranking_scorer("p@3", qid=0), cv=cv).fit(stacked, y, groups=qid)
    splits = list(cv.split(X, y, groups=qid))
    assert_search_matches(search, splits, lambda params, train, test: hand_fold_score(
        Ridge(), {"alpha": params["ridge__alpha"]}, X, y, qid, train, test, "p@3"))


def test_grid_search_with_qid_column_through_the_evaluator():
    X, y, qid = ranking_data(seed=4)
    frame = as_frame(X, qid)
    cv = QueryGroupKFold(n_splits=3)
    search = GridSearchCV(RankingEvaluator(Ridge(), metric="ndcg@10"), {"estimator__alpha": [0.01, 30.0, 3000.0]},
                          cv=cv).fit(frame, y)
    splits = list(cv.split(frame))
    assert_search_matches(search, splits, lambda params, train, test: hand_fold_score(
        Ridge(), {"alpha": params["estimator__alpha"]}, X, y, qid, train, test, "ndcg@10"))
    assert search.best_estimator_.estimator_.n_features_in_ == len(FEATURES)


def test_cross_val_score_of_a_lower_is_better_metric_is_negated():
    X, y, qid = ranking_data(seed=5)
    frame = as_frame(X, qid)
    cv = QueryGroupKFold(n_splits=4)
    scores = cross_val_score(RankingEvaluator(Ridge(alpha=1.0), metric="mr"), frame, y, cv=cv)
    expected = [hand_fold_score(Ridge(alpha=1.0), {}, X, y, qid, train, test, "mr", sign=-1)
                for train, test in cv.split(frame)]
    np.testing.assert_allclose(scores, expected, rtol=0, atol=ATOL)
    assert (scores < 0).all()


def test_multimetric_search_with_refit_on_ndcg():
    X, y, qid = ranking_data(seed=6)
    frame = as_frame(X, qid)
    cv = QueryGroupKFold(n_splits=3)
    names = ["mrr", "ndcg@10", "neg_mean_rank"]
    search = GridSearchCV(RankingEvaluator(Ridge()), {"estimator__alpha": [0.01, 30.0, 3000.0]},
                          scoring=make_scorers(names), refit="ndcg@10", cv=cv).fit(frame, y)
    splits = list(cv.split(frame))
    metrics = {"mrr": ("mrr", 1), "ndcg@10": ("ndcg@10", 1), "neg_mean_rank": ("mr", -1)}
    for key, (metric, sign) in metrics.items():
        assert_search_matches(search, splits, lambda params, train, test: hand_fold_score(
            Ridge(), {"alpha": params["estimator__alpha"]}, X, y, qid, train, test, metric, sign=sign),
            score_key=f"test_{key}")
    assert search.best_index_ == int(np.argmax(search.cv_results_["mean_test_ndcg@10"]))
    refit = Ridge(**{"alpha": search.best_params_["estimator__alpha"]}).fit(X, y)
    assert search.score(frame, y) == pytest.approx(grouped_metric(refit, X, y, qid, "ndcg@10"), abs=ATOL)


def test_multimetric_search_with_sample_weight_and_a_scikit_learn_scorer():
    # scikit-learn 1.7 asks every scorer of a multi-metric search whether it accepts sample_weight
    # (_accept_sample_weight, scikit-learn #31599); sklearn-rank scorers answer yes and use it.
    X, y, qid = ranking_data(seed=7)
    frame = as_frame(X, qid)
    query_weight = dict(zip(np.unique(qid), np.linspace(0.5, 2.0, np.unique(qid).size)))
    sample_weight = np.array([query_weight[q] for q in qid])
    cv = QueryGroupKFold(n_splits=3)
    scoring = {"mrr": make_ranking_scorer("mrr"), "r2": "r2"}
    search = GridSearchCV(RankingEvaluator(Ridge()), {"estimator__alpha": [0.01, 3000.0]}, scoring=scoring,
                          refit="mrr", cv=cv).fit(frame, y, sample_weight=sample_weight)
    forwards_weights = hasattr(GridSearchCV, "_check_scorers_accept_sample_weight")

    def hand(params, train, test):
        model = Ridge(alpha=params["estimator__alpha"]).fit(X[train], y[train], sample_weight=sample_weight[train])
        weight = sample_weight[test] if forwards_weights else None
        return grouped_metric(model, X[test], y[test], qid[test], "mrr", sample_weight=weight)

    assert_search_matches(search, list(cv.split(frame)), hand, score_key="test_mrr")


# --------------------------------------------------------------------------------------
# classifiers: the rank of the true class among estimator.classes_
# --------------------------------------------------------------------------------------


def _digits_folds(y, n_splits=3):
    """KFold, then every class-9 row of the first test fold moved to training."""
    folds = []
    for index, (train, test) in enumerate(KFold(n_splits, shuffle=True, random_state=0).split(y)):
        if index == 0:
            train = np.sort(np.concatenate([train, test[y[test] == 9]]))
            test = test[y[test] != 9]
        folds.append((train, test))
    return folds


def test_multiclass_search_on_digits_with_a_fold_missing_a_class():
    X, y = load_digits(return_X_y=True)
    X, y = X[:450], y[:450]
    folds = _digits_folds(y)
    assert 9 not in y[folds[0][1]] and all(np.unique(y[train]).size == 10 for train, _ in folds)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    search = GridSearchCV(model, {"logisticregression__C": [1e-3, 1.0]}, scoring=make_ranking_scorer("mrr"),
                          cv=folds).fit(X, y)

    def hand(params, train, test):
        fitted = clone(model).set_params(**params).fit(X[train], y[train])
        scores = fitted.decision_function(X[test])
        value = evaluate(y[test], scores, labels=fitted.classes_, metrics=["mrr"]).summary["mrr"]
        # Independent count: 1 + number of classes scored above the true class (no ties here).
        true_column = np.searchsorted(fitted.classes_, y[test])
        true_score = scores[np.arange(len(test)), true_column]
        assert np.unique(scores, axis=1).shape == scores.shape
        ranks = 1 + (scores > true_score[:, None]).sum(axis=1)
        assert value == pytest.approx(np.mean(1.0 / ranks), abs=1e-12)
        return value

    assert_search_matches(search, folds, hand)


# --------------------------------------------------------------------------------------
# real rankers inside RankingEvaluator
# --------------------------------------------------------------------------------------


def _sorted_by_query(train, qid):
    return train[np.argsort(qid[train], kind="stable")]


def test_lgbm_ranker_grid_search_with_query_group_kfold():
    X, y, qid = ranking_data(seed=8)
    frame = as_frame(X, qid)
    ranker = lightgbm.LGBMRanker(n_estimators=8, num_leaves=4, min_child_samples=3, n_jobs=1, verbose=-1,
                                 random_state=0)
    cv = QueryGroupKFold(n_splits=3)
    search = GridSearchCV(RankingEvaluator(ranker, metric="ndcg@5"),
                          {"estimator__learning_rate": [0.01, 0.5]}, cv=cv).fit(frame, y)
    features = frame.drop(columns="qid")

    def hand(params, train, test):
        rows = _sorted_by_query(train, qid)  # LightGBM wants the rows of a query together
        _, sizes = np.unique(qid[rows], return_counts=True)
        model = clone(ranker).set_params(learning_rate=params["estimator__learning_rate"])
        model.fit(features.iloc[rows], y[rows], group=sizes)
        return grouped_metric(model, features.iloc[test], y[test], qid[test], "ndcg@5")

    assert_search_matches(search, list(cv.split(frame)), hand)


def test_xgb_ranker_grid_search_with_query_group_kfold():
    X, y, qid = ranking_data(seed=9)
    frame = as_frame(X, qid)
    ranker = xgboost.XGBRanker(n_estimators=8, max_depth=2, tree_method="hist", n_jobs=1, random_state=0)
    cv = QueryGroupKFold(n_splits=3)
    search = GridSearchCV(RankingEvaluator(ranker, metric="ndcg@5"),
                          {"estimator__learning_rate": [0.01, 0.8]}, cv=cv).fit(frame, y)
    features = frame.drop(columns="qid")

    def hand(params, train, test):
        rows = _sorted_by_query(train, qid)  # XGBoost wants qid sorted
        model = clone(ranker).set_params(learning_rate=params["estimator__learning_rate"])
        model.fit(features.iloc[rows], y[rows], qid=qid[rows])
        return grouped_metric(model, features.iloc[test], y[test], qid[test], "ndcg@5")

    assert_search_matches(search, list(cv.split(frame)), hand)


def test_cross_val_score_of_lgbm_ranker_needs_nothing_else():
    X, y, qid = ranking_data(seed=10)
    frame = as_frame(X, qid)
    ranker = lightgbm.LGBMRanker(n_estimators=10, n_jobs=1, verbose=-1)
    scores = cross_val_score(RankingEvaluator(ranker), frame, y, cv=QueryGroupKFold(3))
    expected = []
    for train, test in QueryGroupKFold(3).split(frame):
        rows = _sorted_by_query(train, qid)
        model = clone(ranker).fit(frame.drop(columns="qid").iloc[rows], y[rows],
                                  group=np.unique(qid[rows], return_counts=True)[1])
        expected.append(grouped_metric(model, frame.drop(columns="qid").iloc[test], y[test], qid[test], "ndcg@10"))
    np.testing.assert_allclose(scores, expected, rtol=0, atol=ATOL)


# --------------------------------------------------------------------------------------
# the other searches and permutation importance
# --------------------------------------------------------------------------------------


def test_randomized_search_matches_hand_computation():
    X, y, qid = ranking_data(seed=11)
    frame = as_frame(X, qid)
    cv = QueryGroupKFold(n_splits=3, shuffle=True, random_state=0)
    search = RandomizedSearchCV(RankingEvaluator(Ridge(), metric="map@5"),
                                {"estimator__alpha": loguniform(1e-2, 1e4)}, n_iter=4, random_state=0,
                                cv=cv).fit(frame, y)
    assert_search_matches(search, list(cv.split(frame)), lambda params, train, test: hand_fold_score(
        Ridge(), {"alpha": params["estimator__alpha"]}, X, y, qid, train, test, "map@5"))


def test_halving_grid_search_matches_hand_computation():
    X, y, qid = ranking_data(n_queries=30, seed=12)
    frame = as_frame(X, qid)
    cv = QueryGroupKFold(n_splits=3)
    tree = DecisionTreeRegressor(random_state=0)
    search = HalvingGridSearchCV(RankingEvaluator(tree, metric="ndcg@10"),
                                 {"estimator__min_samples_leaf": [1, 4, 16, 64]}, resource="estimator__max_depth",
                                 min_resources=1, max_resources=4, factor=2, cv=cv, random_state=0).fit(frame, y)
    results = search.cv_results_
    assert len(set(results["n_resources"])) > 1
    for candidate, params in enumerate(results["params"]):
        depth = int(results["n_resources"][candidate])
        for fold, (train, test) in enumerate(cv.split(frame)):
            expected = hand_fold_score(tree, {"min_samples_leaf": params["estimator__min_samples_leaf"],
                                              "max_depth": depth}, X, y, qid, train, test, "ndcg@10")
            assert results[f"split{fold}_test_score"][candidate] == pytest.approx(expected, abs=ATOL)


def test_permutation_importance_refuses_to_permute_the_query_ids():
    """scikit-learn's permutation_importance would shuffle the qid column like a feature (regrouping the rows
    into other queries) and report an importance for it: refused, naming the function that works (whose
    numbers tests/test_inspection.py checks against a hand computation)."""
    X, y, qid = ranking_data(seed=13)
    frame = as_frame(X, qid)
    model = RankingEvaluator(Ridge(alpha=1.0), metric="ndcg@10").fit(frame, y)
    with pytest.raises(ValueError, match="sklearn_rank.inspection.permutation_importance"):
        permutation_importance(model, frame, y, scoring=make_ranking_scorer("ndcg@10"), n_repeats=3, random_state=0)


# --------------------------------------------------------------------------------------
# sparse X from an svmlight file, query ids passed separately (issue 11, item 18)
# --------------------------------------------------------------------------------------


def _oracle_ndcg_at_10(y, scores, qid):
    """scikit-learn's ndcg_score query by query (ties averaged, as ties="expected"), queries without a
    relevant row skipped."""
    from sklearn.metrics import ndcg_score

    values = [ndcg_score([y[qid == q]], [scores[qid == q]], k=10) for q in np.unique(qid) if (y[qid == q] > 0).any()]
    return float(np.mean(values))


@pytest.mark.parametrize("estimator", ["Ridge", "LGBMRanker"])
def test_sparse_svmlight_data_with_query_ids_passed_separately(tmp_path, estimator):
    import scipy.sparse as sp
    from sklearn.datasets import dump_svmlight_file, load_svmlight_file

    X, y, qid = ranking_data(seed=14)
    order = np.argsort(qid, kind="stable")  # svmlight ranking files hold the rows of a query together
    path = str(tmp_path / "train.svm")
    dump_svmlight_file(X[order], y[order], path, query_id=qid[order])
    X_sparse, y_read, qid_read = load_svmlight_file(path, query_id=True)
    assert sp.issparse(X_sparse)
    if estimator == "Ridge":
        model = Ridge()
    else:
        model = lightgbm.LGBMRanker(n_estimators=8, num_leaves=4, min_child_samples=3, n_jobs=1, verbose=-1,
                                    random_state=0)
    cv = QueryGroupKFold(3)
    with config_context(enable_metadata_routing=True):
        scores = cross_val_score(RankingEvaluator(model, qid=None), X_sparse, y_read, cv=cv,
                                 params={"groups": qid_read, "qid": qid_read})
    expected = []
    for train, test in cv.split(X_sparse, groups=qid_read):
        fit_params = {} if estimator == "Ridge" else {"group": np.unique(qid_read[train], return_counts=True)[1]}
        fitted = clone(model).fit(X_sparse[train], y_read[train], **fit_params)
        expected.append(_oracle_ndcg_at_10(y_read[test], fitted.predict(X_sparse[test]), qid_read[test]))
    np.testing.assert_allclose(scores, expected, rtol=0, atol=ATOL)


# --------------------------------------------------------------------------------------
# rankers without RankingEvaluator: what docs/model_selection.rst says works
# --------------------------------------------------------------------------------------


def test_lgbm_ranker_cannot_take_routed_group_sizes():
    # group= holds one size per query; scikit-learn slices metadata row by row, so every fold's fit
    # gets the sizes of all queries. Only RankingEvaluator (route 3) can fit LGBMRanker in a search.
    X, y, qid = ranking_data(seed=15)
    order = np.argsort(qid, kind="stable")
    X, y, qid = X[order], y[order], qid[order]
    sizes = np.unique(qid, return_counts=True)[1]
    ranker = lightgbm.LGBMRanker(n_estimators=4, n_jobs=1, verbose=-1)
    with config_context(enable_metadata_routing=True):
        with pytest.raises(lightgbm.basic.LightGBMError, match="Sum of query counts"):
            cross_validate(ranker.set_fit_request(group=True), X, y, cv=GroupKFold(3),
                           scoring=make_ranking_scorer("ndcg@10"), params={"groups": qid, "qid": qid, "group": sizes},
                           error_score="raise")


def test_xgb_ranker_takes_routed_qid_or_its_qid_column_on_rows_sorted_by_query():
    X, y, qid = ranking_data(seed=16)
    order = np.argsort(qid, kind="stable")
    X, y, qid = X[order], y[order], qid[order]
    frame = as_frame(X, qid)
    ranker = xgboost.XGBRanker(n_estimators=8, max_depth=2, tree_method="hist", n_jobs=1, random_state=0)
    cv = GroupKFold(3)
    # route 1: routing, the ranker requests qid (scikit-learn's folds keep the rows sorted)
    with config_context(enable_metadata_routing=True):
        routed = cross_val_score(clone(ranker).set_fit_request(qid=True), X, y, cv=cv,
                                 scoring=make_ranking_scorer("ndcg@10"), params={"groups": qid, "qid": qid})
    # route 2: a DataFrame column named "qid", which XGBRanker reads (and drops) itself
    by_column = cross_val_score(ranker, frame, y, cv=cv, groups=qid, scoring=make_ranking_scorer("ndcg@10"))
    # route 3: RankingEvaluator
    evaluated = cross_val_score(RankingEvaluator(ranker), frame, y, cv=cv, groups=qid)
    expected = []
    for train, test in cv.split(X, y, groups=qid):
        fitted = clone(ranker).fit(X[train], y[train], qid=qid[train])
        expected.append(_oracle_ndcg_at_10(y[test], fitted.predict(X[test]), qid[test]))
    for scores in (routed, by_column, evaluated):
        np.testing.assert_allclose(scores, expected, rtol=0, atol=ATOL)
    # Rows in any other order: XGBoost refuses them outside RankingEvaluator.
    shuffled = np.random.default_rng(0).permutation(len(y))
    with pytest.raises(xgboost.core.XGBoostError, match="must be sorted"):
        clone(ranker).fit(frame.iloc[shuffled], y[shuffled])
