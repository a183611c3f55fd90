"""sklearn_rank.feature_selection: feature selection by a ranking metric with a query-id column in X (issue 26).

The selectors here must select what scikit-learn's own selectors select by metadata routing on the same data
(scikit-learn >= 1.6, where those route metadata), and what a greedy search written out here selects; they
keep the query-id column in every subset, in ``get_support()`` and in ``transform``.
"""

import inspect
import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn import feature_selection as sklearn_selection
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import Pipeline

from sklearn_rank import RankingEvaluator, evaluate, make_ranking_scorer
from sklearn_rank.datasets import make_ranking
from sklearn_rank.feature_selection import RFE, RFECV, SequentialFeatureSelector
from sklearn_rank.model_selection import QueryGroupKFold

ROUTING = "params" in inspect.signature(sklearn_selection.SequentialFeatureSelector.fit).parameters
needs_routing = pytest.mark.skipif(not ROUTING, reason="scikit-learn's selectors route metadata from 1.6 on")
ATOL = 1e-12


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_ranking(n_queries=24, n_candidates=(5, 11), n_features=5, n_informative=3, noise=0.5,
                             random_state=0, as_frame=True)
    return {"frame": X, "features": X.drop(columns="qid"), "y": np.asarray(y), "qid": np.asarray(qid)}


def evaluator():
    return RankingEvaluator(Ridge(), metric="ndcg@10")


def routed(selector, data):
    """scikit-learn's ``selector`` fitted by metadata routing on the features alone."""
    with sklearn.config_context(enable_metadata_routing=True):
        return selector.fit(data["features"], data["y"], groups=data["qid"], qid=data["qid"])


def features_of(selector):
    """The selected columns other than the query-id column."""
    return [name for name in selector.get_feature_names_out() if name != "qid"]


# --------------------------------------------------------------------------------------
# the same features as scikit-learn's selectors by metadata routing
# --------------------------------------------------------------------------------------

SEQUENTIAL_CASES = [
    {},  # "auto" without tol: half of the 5 features, rounded down
    {"n_features_to_select": 2, "direction": "backward"},
    {"n_features_to_select": "auto", "tol": 0.002},  # stops after 2 of at most 4 steps
    {"n_features_to_select": "auto", "tol": -0.002, "direction": "backward"},
    {"n_features_to_select": 0.5},  # 2.5 features, rounded down
]


@needs_routing
@pytest.mark.parametrize("params", SEQUENTIAL_CASES, ids=str)
def test_sequential_selects_what_scikit_learn_selects_by_routing(data, params):
    ours = SequentialFeatureSelector(evaluator(), cv=QueryGroupKFold(3), **params).fit(data["frame"], data["y"])
    theirs = routed(sklearn_selection.SequentialFeatureSelector(
        Ridge(), scoring=make_ranking_scorer("ndcg@10"), cv=QueryGroupKFold(3), **params), data)
    assert features_of(ours) == theirs.get_feature_names_out().tolist()
    assert ours.n_features_to_select_ == theirs.n_features_to_select_


@needs_routing
@pytest.mark.parametrize("params", [{}, {"step": 2}, {"step": 0.4, "min_features_to_select": 2}], ids=str)
def test_rfecv_selects_what_scikit_learn_selects_by_routing(data, params):
    ours = RFECV(evaluator(), cv=QueryGroupKFold(3), **params).fit(data["frame"], data["y"])
    theirs = routed(sklearn_selection.RFECV(Ridge(), scoring=make_ranking_scorer("ndcg@10"), cv=QueryGroupKFold(3),
                                            **params), data)
    assert features_of(ours) == theirs.get_feature_names_out().tolist()
    assert ours.n_features_ == theirs.n_features_
    np.testing.assert_array_equal(ours.ranking_[1:], theirs.ranking_)
    assert set(ours.cv_results_) == set(theirs.cv_results_)
    for key, values in theirs.cv_results_.items():
        ours_values = np.asarray(ours.cv_results_[key])
        if ours_values.ndim == 2:  # split<i>_support and split<i>_ranking: the query-id column first
            assert (ours_values[:, 0] == 1).all()
            ours_values = ours_values[:, 1:]
        np.testing.assert_allclose(ours_values, values, rtol=0, atol=ATOL)


def test_rfe_eliminates_as_scikit_learn_does(data):
    # RFE routes nothing: scikit-learn's on the features alone works on every version.
    ours = RFE(evaluator(), n_features_to_select=2, step=1).fit(data["frame"], data["y"])
    theirs = sklearn_selection.RFE(Ridge(), n_features_to_select=2, step=1).fit(data["features"], data["y"])
    np.testing.assert_array_equal(ours.ranking_, np.r_[1, theirs.ranking_])
    np.testing.assert_array_equal(ours.support_, np.r_[True, theirs.support_])
    assert ours.n_features_ == theirs.n_features_ == 2


# --------------------------------------------------------------------------------------
# independent oracles
# --------------------------------------------------------------------------------------


def cross_fold_score(X, y, qid, train, test):
    """nDCG@10 of Ridge fitted here on the rows ``train`` of X, its predictions of the rows ``test`` evaluated by
    evaluate()."""
    predictions = Ridge().fit(X.iloc[train], y[train]).predict(X.iloc[test])
    return evaluate(y[test], predictions, qid=qid[test], metrics=["ndcg@10"]).summary["ndcg@10"]


def subset_score(data, columns):
    """The cross-validated nDCG@10 of Ridge on ``columns``, over QueryGroupKFold(3)."""
    X, y, qid = data["features"][columns], data["y"], data["qid"]
    folds = QueryGroupKFold(3).split(X, groups=qid)
    return np.mean([cross_fold_score(X, y, qid, train, test) for train, test in folds])


@pytest.mark.parametrize("direction, n_select", [("forward", 2), ("backward", 4)])
def test_greedy_steps_by_brute_force(data, direction, n_select):
    names = list(data["features"].columns)
    chosen = []  # added (forward) or removed (backward)
    for _ in range(n_select if direction == "forward" else len(names) - n_select):
        def score(name):
            subset = chosen + [name] if direction == "forward" else [n for n in names if n not in chosen + [name]]
            return subset_score(data, [n for n in names if n in subset])
        chosen.append(max((name for name in names if name not in chosen), key=score))
    expected = sorted(chosen) if direction == "forward" else [n for n in names if n not in chosen]
    selector = SequentialFeatureSelector(evaluator(), n_features_to_select=n_select, direction=direction,
                                         cv=QueryGroupKFold(3)).fit(data["frame"], data["y"])
    assert features_of(selector) == sorted(expected)


def test_the_first_of_equal_scores_wins(data):
    # A copy of the best single feature scores exactly as the feature: the lower column index is chosen.
    best, *others = sorted(data["features"].columns, key=lambda name: -subset_score(data, [name]))
    frame = data["frame"].assign(copy=data["frame"][best])
    selector = SequentialFeatureSelector(evaluator(), n_features_to_select=1, cv=QueryGroupKFold(3))
    assert features_of(selector.fit(frame[["qid", others[0], best, "copy"]], data["y"])) == [best]
    assert features_of(selector.fit(frame[["qid", "copy", others[0], best]], data["y"])) == ["copy"]


def test_rfe_by_hand_with_the_query_id_column_seen_by_the_model(data):
    # A plain Ridge sees the query-id column too (route 2): its weight is no candidate's importance.
    frame, y = data["frame"], data["y"]
    kept = list(data["features"].columns)
    ranking = {}
    while len(kept) > 2:
        weights = Ridge().fit(frame[["qid", *kept]], y).coef_[1:] ** 2
        removed = kept.pop(int(np.argmin(weights)))
        ranking[removed] = len(kept)  # 1 + the eliminations from this one on: 4, 3, then 2
    rfe = RFE(Ridge(), n_features_to_select=2).fit(frame, y)
    assert features_of(rfe) == kept
    np.testing.assert_array_equal(rfe.ranking_, [1] + [ranking.get(name, 1) for name in data["features"].columns])


def test_rfecv_cv_results_by_hand(data):
    rfecv = RFECV(evaluator(), cv=QueryGroupKFold(3)).fit(data["frame"], data["y"])
    assert rfecv.cv_results_["n_features"].tolist() == [1, 2, 3, 4, 5]
    # all features: the cross-validated score of Ridge on every feature
    assert rfecv.cv_results_["mean_test_score"][-1] == pytest.approx(subset_score(data, list(data["features"])),
                                                                      abs=ATOL)
    best = np.flatnonzero(rfecv.cv_results_["mean_test_score"] == rfecv.cv_results_["mean_test_score"].max())[0]
    assert rfecv.n_features_ == rfecv.cv_results_["n_features"][best]
    assert rfecv.support_.sum() == rfecv.n_features_ + 1


# --------------------------------------------------------------------------------------
# inside a pipeline and a grid search
# --------------------------------------------------------------------------------------


def grid_search(data, route):
    """The pipeline of a selector and a ranker, searched over by both routes, on three of the features."""
    grid = {"select__n_features_to_select": [1, 2]}
    if route == "column":
        select = SequentialFeatureSelector(evaluator(), cv=QueryGroupKFold(2))
        search = GridSearchCV(Pipeline([("select", select), ("rank", evaluator())]), grid, cv=QueryGroupKFold(3))
        return search.fit(data["frame"][["qid", *PIPELINE_FEATURES]], data["y"])
    scorer = make_ranking_scorer("ndcg@10")
    select = sklearn_selection.SequentialFeatureSelector(Ridge(), scoring=scorer, cv=QueryGroupKFold(2))
    search = GridSearchCV(Pipeline([("select", select), ("rank", Ridge())]), grid, scoring=scorer,
                          cv=QueryGroupKFold(3))
    return routed(search, {**data, "features": data["features"][PIPELINE_FEATURES]})


PIPELINE_FEATURES = ["f0", "f3", "f4"]


def test_a_pipeline_in_a_grid_search(data):
    column = grid_search(data, "column")
    # the outer folds of one candidate by hand: the feature chosen on each training fold, Ridge on it, evaluate()
    features, y, qid = data["features"][PIPELINE_FEATURES], data["y"], data["qid"]
    for fold, (train, test) in enumerate(QueryGroupKFold(3).split(features, groups=qid)):
        chosen = max(features.columns, key=lambda name: np.mean([
            cross_fold_score(features[[name]].iloc[train], y[train], qid[train], inner_train, inner_test)
            for inner_train, inner_test in QueryGroupKFold(2).split(features.iloc[train], groups=qid[train])]))
        expected = cross_fold_score(features[[chosen]], y, qid, train, test)
        assert column.cv_results_[f"split{fold}_test_score"][0] == pytest.approx(expected, abs=ATOL)
    assert "qid" in column.best_estimator_.named_steps["select"].get_feature_names_out()
    if not ROUTING:
        return
    routing = grid_search(data, "routing")
    assert column.best_params_ == routing.best_params_
    assert column.best_score_ == pytest.approx(routing.best_score_, abs=ATOL)
    for candidate in range(2):
        assert [column.cv_results_[f"split{fold}_test_score"][candidate] for fold in range(3)] == pytest.approx(
            [routing.cv_results_[f"split{fold}_test_score"][candidate] for fold in range(3)], abs=ATOL)


# --------------------------------------------------------------------------------------
# the query-id column: kept, found by position, inputs untouched
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda: SequentialFeatureSelector(evaluator(), n_features_to_select=1, cv=3),
    lambda: RFE(evaluator(), n_features_to_select=2),
    lambda: RFECV(evaluator(), step=2, cv=3),
], ids=["sequential", "rfe", "rfecv"])
def test_the_query_id_column_is_kept_and_the_inputs_untouched(data, make):
    frame, y = data["frame"].copy(), data["y"].copy()
    selector = make().fit(frame, y)
    pd.testing.assert_frame_equal(frame, data["frame"])
    np.testing.assert_array_equal(y, data["y"])
    assert selector.get_support()[0] and selector.get_support(indices=True)[0] == 0
    assert selector.n_features_in_ == 6 and list(selector.feature_names_in_) == list(frame.columns)
    transformed = selector.transform(frame)
    assert isinstance(transformed, pd.DataFrame)
    assert list(transformed.columns) == list(selector.get_feature_names_out()) == ["qid", *features_of(selector)]
    pd.testing.assert_frame_equal(frame, data["frame"])
    # the same columns from an array with the query ids first (qid=0) or last (qid=-1)
    values = frame.to_numpy()
    for qid, array in [(0, values), (-1, np.roll(values, -1, axis=1))]:
        by_position = make().set_params(qid=qid, estimator=RankingEvaluator(Ridge(), qid=qid)).fit(array, y)
        support = by_position.get_support()
        np.testing.assert_array_equal(support if qid == 0 else np.roll(support, 1), selector.get_support())
        np.testing.assert_array_equal(by_position.transform(array), array[:, support])


def test_rfe_delegates_to_its_fitted_estimator(data):
    rfe = RFE(evaluator(), n_features_to_select=2).fit(data["frame"], data["y"])
    chosen = data["frame"][["qid", *features_of(rfe)]]
    np.testing.assert_array_equal(rfe.predict(data["frame"]), rfe.estimator_.predict(chosen))
    assert rfe.score(data["frame"], data["y"]) == evaluator().fit(chosen, data["y"]).score(chosen, data["y"])
    assert not hasattr(rfe, "predict_proba") and not hasattr(rfe, "classes_")
    # RFECV scores with its scoring (by default, with the estimator's own score, as RFE)
    rfecv = RFECV(evaluator(), step=2, cv=3, scoring=make_ranking_scorer("mrr")).fit(data["frame"], data["y"])
    mrr = evaluate(data["y"], rfecv.predict(data["frame"]), qid=data["qid"], metrics=["mrr"]).summary["mrr"]
    assert rfecv.score(data["frame"], data["y"]) == pytest.approx(mrr, abs=ATOL)


def test_cv_as_an_integer_is_query_group_k_fold(data):
    by_number = RFECV(evaluator(), step=2, cv=3).fit(data["frame"], data["y"])
    by_splitter = RFECV(evaluator(), step=2, cv=QueryGroupKFold(3)).fit(data["frame"], data["y"])
    np.testing.assert_array_equal(by_number.cv_results_["mean_test_score"], by_splitter.cv_results_["mean_test_score"])
    scores = cross_val_score(evaluator(), data["frame"], data["y"], cv=QueryGroupKFold(3))
    assert by_number.cv_results_["mean_test_score"][-1] == pytest.approx(scores.mean(), abs=ATOL)


def test_rfecv_in_parallel_gives_the_same_results(data):
    one = RFECV(evaluator(), step=2, cv=3).fit(data["frame"], data["y"])
    with joblib.parallel_backend("threading"):  # the n_jobs path without starting processes
        two = RFECV(evaluator(), step=2, cv=3, n_jobs=2).fit(data["frame"], data["y"])
    for key, values in one.cv_results_.items():
        np.testing.assert_array_equal(two.cv_results_[key], values)


# --------------------------------------------------------------------------------------
# errors and warnings
# --------------------------------------------------------------------------------------


def test_errors_of_the_query_id_column(data):
    frame, y = data["frame"], data["y"]
    selector = SequentialFeatureSelector(evaluator(), cv=3)
    with pytest.raises(ValueError, match=r"reads the query ids from the column qid='qid'.*metadata routing.*Got a "
                                         r"DataFrame with the columns \['f0'"):
        selector.fit(data["features"], y)
    with pytest.raises(ValueError, match="Got ndarray without column names instead"):
        selector.fit(frame.to_numpy(), y)
    with pytest.raises(ValueError, match="needs at least 2 of them. Got 0 instead"):  # the only column
        selector.fit(frame[["qid"]], y)
    with pytest.raises(ValueError, match="needs at least 2 of them. Got 1 instead"):
        RFECV(evaluator()).fit(frame[["qid", "f0"]], y)
    with pytest.raises(ValueError, match="must name it.*Got qid=None instead"):
        RFE(evaluator(), qid=None).fit(frame, y)
    with pytest.raises(ValueError, match=r"must be 0 \(the first column of X\) or -1.*Got qid=2 instead"):
        RFE(evaluator(), qid=2).fit(frame.to_numpy(), y)
    with pytest.raises(TypeError, match="`qid` must be the name"):
        RFE(evaluator(), qid=1.5).fit(frame, y)
    with pytest.raises(ValueError, match="`qid` must not contain NaN"):
        RFE(evaluator()).fit(frame.assign(qid=np.where(frame["qid"] == 0, np.nan, frame["qid"])), y)
    with pytest.raises(ValueError, match=r"X must be 2-D.*Got ndarray of shape \(3,\) instead"):
        RFE(evaluator(), qid=0).fit(np.zeros(3), [0, 1, 0])


@pytest.mark.parametrize("params, error, match", [
    ({"n_features_to_select": 5}, ValueError, r"must lie in \[1, 4\].*Got 5 instead"),
    ({"n_features_to_select": 0}, ValueError, r"must lie in \[1, 4\].*Got 0 instead"),
    ({"n_features_to_select": "half"}, ValueError, "'auto', an integer or a fraction in .0, 1.. Got 'half'"),
    ({"n_features_to_select": 1.5}, ValueError, "Got 1.5 instead"),
    ({"n_features_to_select": True}, ValueError, "Got True instead"),
    ({"tol": -0.1}, ValueError, "must not be negative in forward selection.*Got tol=-0.1 instead"),
    ({"tol": "small"}, TypeError, "`tol` must be a number or None. Got 'small' instead"),
    ({"direction": "both"}, ValueError, "'forward' or 'backward'. Got 'both' instead"),
])
def test_sequential_parameter_errors(data, params, error, match):
    with pytest.raises(error, match=match):
        SequentialFeatureSelector(evaluator(), cv=3, **params).fit(data["frame"], data["y"])


@pytest.mark.parametrize("selector, error, match", [
    (RFE(RankingEvaluator(Ridge()), step=0), ValueError, "`step` must be an integer of at least 1 .*Got 0 instead"),
    (RFE(RankingEvaluator(Ridge()), step=1.0), ValueError, "Got 1.0 instead"),
    (RFE(RankingEvaluator(Ridge()), n_features_to_select="all"), ValueError, "None, an integer .*Got 'all'"),
    (RFECV(RankingEvaluator(Ridge()), min_features_to_select=0), ValueError, "at least 1. Got 0 instead"),
    (RFE(RankingEvaluator(KNeighborsRegressor())), ValueError,
     "importance_getter='auto' reads coef_ or feature_importances_.*Got RankingEvaluator without either instead"),
    (RFE(RankingEvaluator(Ridge()), importance_getter=3), TypeError, "an attribute path or a callable. Got 3"),
    (RFE(RankingEvaluator(Ridge()), importance_getter=lambda model: np.ones(2)), ValueError,
     r"one importance per feature \(5, or 6 with the query-id column\). Got 2 instead"),
])
def test_elimination_parameter_errors(data, selector, error, match):
    with pytest.raises(error, match=match):
        selector.fit(data["frame"], data["y"])


def test_importance_getter_path_and_callable(data):
    auto = RFE(evaluator(), n_features_to_select=2).fit(data["frame"], data["y"])
    for getter in ["estimator_.coef_", lambda model: model.estimator_.coef_]:
        other = RFE(evaluator(), n_features_to_select=2, importance_getter=getter).fit(data["frame"], data["y"])
        np.testing.assert_array_equal(other.ranking_, auto.ranking_)


def test_more_features_asked_than_there_are_keeps_all(data):
    with pytest.warns(UserWarning, match="n_features_to_select=9 exceeds the 5 features of X: all are kept"):
        rfe = RFE(evaluator(), n_features_to_select=9).fit(data["frame"], data["y"])
    assert rfe.support_.all()
    with pytest.warns(UserWarning, match="min_features_to_select=9 exceeds the 5 features"):
        rfecv = RFECV(evaluator(), min_features_to_select=9, cv=3).fit(data["frame"], data["y"])
    assert rfecv.support_.all() and rfecv.cv_results_["n_features"].tolist() == [5]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RFE(evaluator(), n_features_to_select=5).fit(data["frame"], data["y"])
