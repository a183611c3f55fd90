"""Every scikit-learn tool that takes ``scoring=`` or scores an estimator, by both routes (issue 26).

Routes:

- ``"column"``: a ``qid`` column in X, ``RankingEvaluator(Ridge())`` (its ``score`` is nDCG@10) and
  ``QueryGroupKFold(3)`` reading the column;
- ``"routing"``: X holds the features only, ``Ridge()`` with ``scoring=make_ranking_scorer("ndcg@10")``,
  ``QueryGroupKFold(3)``, and the query ids routed (``groups=qid, qid=qid``) inside
  ``sklearn.config_context(enable_metadata_routing=True)``.

Both routes see the same folds (``QueryGroupKFold`` depends only on the queries) and fit Ridge on the
same features, so a tool that works gives the same numbers by both; each is also checked against an
independent computation: the fold's model fitted here and its predictions evaluated by
``sklearn_rank.evaluate``. A tool that cannot work by a route raises an error naming the route that
works (the table of docs/model_selection.rst).
"""

import inspect

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.feature_selection import RFECV, SelectKBest, SequentialFeatureSelector, f_regression
from sklearn.inspection import permutation_importance as sklearn_permutation_importance
from sklearn.linear_model import Ridge
from sklearn.model_selection import (GridSearchCV, HalvingGridSearchCV, HalvingRandomSearchCV, RandomizedSearchCV,
                                     cross_val_score, cross_validate, learning_curve, permutation_test_score,
                                     validation_curve)
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeRegressor

from sklearn_rank import RankingEvaluator, evaluate, make_ranking_scorer, make_scorers
from sklearn_rank.datasets import make_ranking
from sklearn_rank.feature_selection import RFECV as RankingRFECV
from sklearn_rank.feature_selection import SequentialFeatureSelector as RankingSequentialFeatureSelector
from sklearn_rank.inspection import permutation_importance
from sklearn_rank.model_selection import QueryGroupKFold

ATOL = 1e-12
ROUTES = ["column", "routing"]
# scikit-learn >= 1.6 routes metadata through these tools (1.4 and 1.5 take fit_params, for fit only)
CURVES_ROUTE = "params" in inspect.signature(learning_curve).parameters
SELECTORS_ROUTE = "params" in inspect.signature(SequentialFeatureSelector.fit).parameters
COLUMN_TOOL_ERROR = "Select features with sklearn_rank.feature_selection.*or with scikit-learn's selectors by metadata"
OURS = r"Use sklearn_rank.inspection.permutation_importance\("


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_ranking(n_queries=30, n_candidates=(5, 11), n_features=5, n_informative=3, noise=0.5,
                             random_state=0, as_frame=True)
    features = X.drop(columns="qid")
    folds = list(QueryGroupKFold(3).split(features, groups=qid))
    return {"frame": X, "features": features, "y": np.asarray(y), "qid": np.asarray(qid), "folds": folds}


def scorer():
    return make_ranking_scorer("ndcg@10")


def ndcg(model, features, y, qid, rows):
    return evaluate(y[rows], model.predict(features.iloc[rows]), qid=qid[rows], metrics=["ndcg@10"]).summary["ndcg@10"]


def by_hand(data, model=None, train_rows=None, metric="ndcg@10"):
    """The test score of each fold: ``model`` (default Ridge()) fitted here on the training rows (or the
    first ``train_rows`` of them), its predictions of the test rows evaluated by sklearn_rank.evaluate."""
    features, y, qid = data["features"], data["y"], data["qid"]
    scores = []
    for train, test in data["folds"]:
        train = train if train_rows is None else train[:train_rows]
        fitted = clone(Ridge() if model is None else model).fit(features.iloc[train], y[train])
        report = evaluate(y[test], fitted.predict(features.iloc[test]), qid=qid[test], metrics=[metric])
        scores.append(report.summary[metric])
    return np.array(scores)


def run(route, data, tool):
    """``tool(estimator, X, prefix, fit_params, scoring)`` by ``route``: the evaluator and the frame with its
    qid column, or Ridge, the features and the routed query ids; ``prefix`` is prepended to parameter names."""
    if route == "column":
        return tool(RankingEvaluator(Ridge()), data["frame"], "estimator__", {}, None)
    with sklearn.config_context(enable_metadata_routing=True):
        return tool(Ridge(), data["features"], "", {"groups": data["qid"], "qid": data["qid"]}, scorer())


def both_routes(data, tool):
    column, routing = run("column", data, tool), run("routing", data, tool)
    assert len(column) == len(routing)
    for one, other in zip(column, routing):
        np.testing.assert_allclose(np.asarray(one, dtype=float), np.asarray(other, dtype=float), rtol=0, atol=ATOL)
    return column


# --------------------------------------------------------------------------------------
# searches
# --------------------------------------------------------------------------------------


def split_scores(results, candidate):
    return np.array([results[f"split{fold}_test_score"][candidate] for fold in range(3)])


def test_grid_search(data):
    def tool(estimator, X, prefix, fit_params, scoring):
        search = GridSearchCV(estimator, {prefix + "alpha": [0.1, 300.0]}, scoring=scoring, cv=QueryGroupKFold(3))
        results = search.fit(X, data["y"], **fit_params).cv_results_
        return [split_scores(results, candidate) for candidate in range(2)]

    scores = both_routes(data, tool)
    for candidate, alpha in enumerate([0.1, 300.0]):
        np.testing.assert_allclose(scores[candidate], by_hand(data, Ridge(alpha=alpha)), rtol=0, atol=ATOL)


def test_randomized_search(data):
    def tool(estimator, X, prefix, fit_params, scoring):
        search = RandomizedSearchCV(estimator, {prefix + "alpha": [0.1, 3.0, 300.0]}, n_iter=2, random_state=0,
                                    scoring=scoring, cv=QueryGroupKFold(3))
        results = search.fit(X, data["y"], **fit_params).cv_results_
        return [[params[prefix + "alpha"] for params in results["params"]]] + [split_scores(results, c)
                                                                              for c in range(2)]

    alphas, *scores = both_routes(data, tool)
    for candidate, alpha in enumerate(alphas):
        np.testing.assert_allclose(scores[candidate], by_hand(data, Ridge(alpha=alpha)), rtol=0, atol=ATOL)


@pytest.mark.parametrize("search", [HalvingGridSearchCV, HalvingRandomSearchCV])
def test_halving_searches(data, search):
    # A model resource (tree depth), as the docs recommend: resource="n_samples" would cut queries.
    def tool(estimator, X, prefix, fit_params, scoring):
        tree = DecisionTreeRegressor(random_state=0)
        model = RankingEvaluator(tree) if prefix else tree
        grid = {prefix + "min_samples_leaf": [1, 8]}
        extra = {"n_candidates": 2} if search is HalvingRandomSearchCV else {}
        halving = search(model, grid, resource=prefix + "max_depth", min_resources=2, max_resources=4, factor=2,
                         random_state=0, scoring=scoring, cv=QueryGroupKFold(3), **extra)
        results = halving.fit(X, data["y"], **fit_params).cv_results_
        return [np.concatenate([[results["n_resources"][c], results["params"][c][prefix + "min_samples_leaf"]],
                                split_scores(results, c)]) for c in range(len(results["params"]))]

    rows = both_routes(data, tool)
    assert sorted({int(row[0]) for row in rows}) == [2, 4]
    for depth, leaf, *scores in rows:
        tree = DecisionTreeRegressor(max_depth=int(depth), min_samples_leaf=int(leaf), random_state=0)
        np.testing.assert_allclose(scores, by_hand(data, tree), rtol=0, atol=ATOL)


# --------------------------------------------------------------------------------------
# cross-validation functions and curves
# --------------------------------------------------------------------------------------


def test_cross_val_score(data):
    def tool(estimator, X, prefix, fit_params, scoring):
        return cross_val_score(estimator, X, data["y"], scoring=scoring, cv=QueryGroupKFold(3), params=fit_params)

    np.testing.assert_allclose(both_routes(data, tool), by_hand(data), rtol=0, atol=ATOL)


class CountingRidge(Ridge):
    """Ridge that counts its predict calls (class-level: clones share the count)."""

    predict_calls = 0

    def predict(self, X):
        type(self).predict_calls += 1
        return super().predict(X)


METRICS = ["mrr", "ndcg@10", "map", "mr"]


@pytest.mark.parametrize("route", ROUTES)
def test_cross_validate_with_a_dict_of_scorers_predicts_once_per_fold(data, route):
    CountingRidge.predict_calls = 0
    if route == "column":
        result = cross_validate(RankingEvaluator(CountingRidge()), data["frame"], data["y"], cv=QueryGroupKFold(3),
                                scoring=make_scorers(METRICS))
    else:
        with sklearn.config_context(enable_metadata_routing=True):
            result = cross_validate(CountingRidge(), data["features"], data["y"], cv=QueryGroupKFold(3),
                                    scoring=make_scorers(METRICS), params={"groups": data["qid"], "qid": data["qid"]})
    assert CountingRidge.predict_calls == 3  # one per fold, for four metrics
    for metric in METRICS:
        sign = -1 if metric == "mr" else 1
        np.testing.assert_allclose(result[f"test_{metric}"], sign * by_hand(data, metric=metric), rtol=0, atol=ATOL)
    # the same numbers as each scorer alone (which predicts for itself)
    CountingRidge.predict_calls = 0
    alone = cross_validate(RankingEvaluator(CountingRidge()), data["frame"], data["y"], cv=QueryGroupKFold(3),
                           scoring=make_ranking_scorer("map"))
    assert CountingRidge.predict_calls == 3
    np.testing.assert_array_equal(alone["test_score"], result["test_map"])


def curve_params(fit_params):
    """Routed query ids (scikit-learn >= 1.6); before, only ``groups`` reaches the splitter, nothing the scorer."""
    if CURVES_ROUTE:
        return {"params": fit_params}
    return {"groups": fit_params["groups"]} if fit_params else {}


def curve_routes(data, tool):
    """``tool`` by both routes where the curve tools route query ids to scorers; on scikit-learn 1.4 and 1.5 (the
    scorer gets no query ids) the routing route's error names the column route, and the column route's result."""
    if not CURVES_ROUTE:
        with pytest.raises(ValueError, match="query-id column in X"):
            run("routing", data, tool)
        return run("column", data, tool)
    return both_routes(data, tool)


def test_learning_curve(data):
    def tool(estimator, X, prefix, fit_params, scoring):
        sizes, _, test = learning_curve(estimator, X, data["y"], train_sizes=[0.5, 1.0], scoring=scoring,
                                        cv=QueryGroupKFold(3), error_score="raise", **curve_params(fit_params))
        return [sizes] + list(test)

    sizes, *test = curve_routes(data, tool)
    for row, size in enumerate(sizes):
        np.testing.assert_allclose(test[row], by_hand(data, train_rows=int(size)), rtol=0, atol=ATOL)


def test_validation_curve(data):
    def tool(estimator, X, prefix, fit_params, scoring):
        _, test = validation_curve(estimator, X, data["y"], param_name=prefix + "alpha", param_range=[0.1, 300.0],
                                   scoring=scoring, cv=QueryGroupKFold(3), error_score="raise",
                                   **curve_params(fit_params))
        return test

    test = curve_routes(data, tool)
    for row, alpha in enumerate([0.1, 300.0]):
        np.testing.assert_allclose(test[row], by_hand(data, Ridge(alpha=alpha)), rtol=0, atol=ATOL)


def test_permutation_test_score(data):
    def tool(estimator, X, prefix, fit_params, scoring):
        score, permuted, _ = permutation_test_score(estimator, X, data["y"], n_permutations=2, random_state=0,
                                                    scoring=scoring, cv=QueryGroupKFold(3), **curve_params(fit_params))
        return np.concatenate([[score], permuted])

    scores = curve_routes(data, tool)
    assert scores[0] == pytest.approx(by_hand(data).mean(), abs=ATOL)
    assert scores[1:].max() < scores[0]  # shuffled relevance ranks worse


# --------------------------------------------------------------------------------------
# feature selection
# --------------------------------------------------------------------------------------


def forward_selection_by_hand(data, n_select):
    chosen = []
    candidates = list(data["features"].columns)
    for _ in range(n_select):
        def score(name):
            picked = {**data, "features": data["features"][chosen + [name]]}
            return by_hand(picked).mean()
        best = max((name for name in candidates if name not in chosen), key=score)
        chosen.append(best)
    return sorted(chosen)


def test_sequential_feature_selector(data):
    def selector():
        return SequentialFeatureSelector(Ridge(), n_features_to_select=2, scoring=scorer(), cv=QueryGroupKFold(3))

    qid_first = data["frame"][["qid", *data["features"]]].to_numpy()
    with pytest.raises(ValueError, match=COLUMN_TOOL_ERROR):  # the qid column is no feature to select
        SequentialFeatureSelector(RankingEvaluator(Ridge(), qid=0), n_features_to_select=2,
                                  cv=QueryGroupKFold(3, qid=0)).fit(qid_first, data["y"])
    with pytest.raises(ValueError, match=COLUMN_TOOL_ERROR):  # column names are gone inside the selector
        SequentialFeatureSelector(RankingEvaluator(Ridge()), n_features_to_select=2,
                                  cv=QueryGroupKFold(3)).fit(data["frame"], data["y"])
    with sklearn.config_context(enable_metadata_routing=True):
        if not SELECTORS_ROUTE:  # scikit-learn 1.4, 1.5: fit takes no metadata
            with pytest.raises(TypeError):
                selector().fit(data["features"], data["y"], groups=data["qid"], qid=data["qid"])
            with pytest.raises(ValueError, match=COLUMN_TOOL_ERROR):  # without: no query ids, and ours named
                selector().fit(data["features"], data["y"])
            return
        fitted = selector().fit(data["features"], data["y"], groups=data["qid"], qid=data["qid"])
    assert sorted(fitted.get_feature_names_out()) == forward_selection_by_hand(data, 2)


def test_rfecv(data):
    with pytest.raises(ValueError, match=COLUMN_TOOL_ERROR):
        RFECV(RankingEvaluator(Ridge()), cv=QueryGroupKFold(3)).fit(data["frame"], data["y"])
    with pytest.raises(ValueError, match=COLUMN_TOOL_ERROR):  # route 2: the scorer reads column 0
        RFECV(Ridge(), cv=QueryGroupKFold(3, qid=0), scoring=make_ranking_scorer("ndcg@10", qid=0)).fit(
            data["frame"][["qid", *data["features"]]].to_numpy(), data["y"])
    with sklearn.config_context(enable_metadata_routing=True):
        selector = RFECV(Ridge(), scoring=scorer(), cv=QueryGroupKFold(3))
        if not SELECTORS_ROUTE:
            with pytest.raises((TypeError, NotImplementedError)):
                selector.fit(data["features"], data["y"], groups=data["qid"], qid=data["qid"])
            with pytest.raises(ValueError, match=COLUMN_TOOL_ERROR):
                selector.fit(data["features"], data["y"])
            return
        selector.fit(data["features"], data["y"], groups=data["qid"], qid=data["qid"])
    all_features = selector.cv_results_["n_features"] == data["features"].shape[1]
    np.testing.assert_allclose(selector.cv_results_["mean_test_score"][all_features], by_hand(data).mean(), rtol=0,
                               atol=ATOL)
    best = np.argmax(selector.cv_results_["mean_test_score"])
    assert selector.n_features_ == selector.cv_results_["n_features"][best]


def test_sklearn_rank_selectors(data):
    # The qid column route on every version: the features of the greedy search by hand, and RFECV's score of all
    # the features as the folds' by hand (tests/test_feature_selection.py compares them with scikit-learn's).
    forward = RankingSequentialFeatureSelector(RankingEvaluator(Ridge()), n_features_to_select=2,
                                               cv=QueryGroupKFold(3)).fit(data["frame"], data["y"])
    assert forward.get_feature_names_out().tolist() == ["qid", *forward_selection_by_hand(data, 2)]
    rfecv = RankingRFECV(RankingEvaluator(Ridge()), step=2, cv=QueryGroupKFold(3)).fit(data["frame"], data["y"])
    all_features = rfecv.cv_results_["n_features"] == data["features"].shape[1]
    np.testing.assert_allclose(rfecv.cv_results_["mean_test_score"][all_features], by_hand(data).mean(), rtol=0,
                               atol=ATOL)
    # Routing: X holds no qid column to read, and the error says so (scikit-learn's selectors take that route).
    with sklearn.config_context(enable_metadata_routing=True):
        for selector in (forward, rfecv):
            with pytest.raises(ValueError, match="reads the query ids from the column qid='qid' of X.*metadata "
                                                 "routing"):
                clone(selector).fit(data["features"], data["y"])


def test_a_pipeline_with_feature_selection_in_a_grid_search(data):
    def tool(estimator, X, prefix, fit_params, scoring):
        pipeline = make_pipeline(SelectKBest(f_regression), Ridge())
        model = RankingEvaluator(pipeline) if prefix else pipeline
        search = GridSearchCV(model, {prefix + "selectkbest__k": [2, 4]}, scoring=scoring, cv=QueryGroupKFold(3))
        results = search.fit(X, data["y"], **fit_params).cv_results_
        return [split_scores(results, candidate) for candidate in range(2)]

    scores = both_routes(data, tool)
    for candidate, k in enumerate([2, 4]):
        expected = by_hand(data, make_pipeline(SelectKBest(f_regression, k=k), Ridge()))
        np.testing.assert_allclose(scores[candidate], expected, rtol=0, atol=ATOL)


# --------------------------------------------------------------------------------------
# permutation importance
# --------------------------------------------------------------------------------------


def test_sklearn_permutation_importance_names_ours(data):
    evaluator = RankingEvaluator(Ridge()).fit(data["frame"], data["y"])
    with pytest.raises(ValueError, match="read the query-id column 'qid' of X inside sklearn.inspection.perm.*" + OURS):
        sklearn_permutation_importance(evaluator, data["frame"], data["y"], n_repeats=2, random_state=0)
    model = Ridge().fit(data["features"], data["y"])
    with sklearn.config_context(enable_metadata_routing=True):  # it routes nothing: the scorer has no query ids
        with pytest.raises(ValueError, match="needs query ids inside sklearn.inspection.perm.*" + OURS):
            sklearn_permutation_importance(model, data["features"], data["y"], scoring=scorer(), n_repeats=2)


def test_our_permutation_importance_by_both_routes(data):
    evaluator = RankingEvaluator(Ridge()).fit(data["frame"], data["y"])
    from_column = permutation_importance(evaluator, data["frame"], data["y"], n_repeats=3, random_state=0)
    model = Ridge().fit(data["features"], data["y"])
    from_qid = permutation_importance(model, data["features"], data["y"], qid=data["qid"], n_repeats=3,
                                      random_state=0)
    np.testing.assert_allclose(from_column.importances, from_qid.importances, rtol=0, atol=ATOL)
    assert list(from_column.feature_names) == list(data["features"].columns)
    # the first repeat of the first feature, by hand: the rows of each query shuffled among themselves
    baseline = ndcg(model, data["features"], data["y"], data["qid"], np.arange(len(data["y"])))
    assert from_qid.importances_mean.max() > 0.05 and baseline > 0.5


@pytest.mark.skipif(not SELECTORS_ROUTE, reason="the selectors route metadata from scikit-learn 1.6 on")
def test_the_feature_selection_example_of_the_docs():
    # docs/model_selection.rst marks the lines that need scikit-learn >= 1.6 with +SKIP: run them here.
    import doctest
    import pathlib

    page = (pathlib.Path(__file__).resolve().parents[1] / "docs" / "model_selection.rst").read_text(encoding="utf-8")
    section = page.split("Feature selection by a ranking metric\n")[1].split("\nInside a search, ")[0]
    section = section.replace("  # doctest: +SKIP", "")
    test = doctest.DocTestParser().get_doctest(section, {}, "feature selection", "model_selection.rst", 0)
    assert sum("+SKIP" not in example.source for example in test.examples) == len(test.examples)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    with sklearn.config_context():
        runner.run(test)
    assert runner.failures == 0 and runner.tries >= 10
