"""The one-pass multi-metric scorer: call counts, values, names, routing, searches, errors.

Values are checked against the one-metric scorers of ``make_ranking_scorer``, each called on
its own with the same fitted model and rows (those scorers are checked against brute-force
oracles in test_scorer.py), and, for MRR and the mean rank, against a rank counted here query by
query. Call counts come from an estimator that counts its ``predict`` calls and from a counting
wrapper around the engine's entry as the scorers reach it (``sklearn_rank._scorer.engine_evaluate``).
"""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn import config_context
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.compose import ColumnTransformer
from sklearn.datasets import make_classification, make_multilabel_classification
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, RandomizedSearchCV, cross_validate
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeRegressor

import sklearn_rank
from sklearn_rank import RankingEvaluator, _engine, _scorer
from sklearn_rank._scorer import (MultimetricRankingScorer, make_multimetric_scorer, make_ranking_scorer,
                                  make_scorers)
from sklearn_rank.model_selection import QueryGroupKFold

ATOL = 1e-12
METRICS = ["mrr", "map", "ndcg@10", "hits@5"]
FEATURES = ["f0", "f1", "f2", "f3"]


def ranking_data(n_queries=30, seed=0):
    """Graded relevance 0-3 for queries of 3-12 rows, rows of different queries interleaved; some
    queries have no relevant row."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 13, n_queries)
    qid = np.repeat(np.arange(500, 500 + n_queries), sizes)
    X = rng.normal(size=(qid.size, len(FEATURES)))
    latent = X @ np.array([1.0, -0.7, 0.4, 0.0]) + rng.normal(scale=1.5, size=qid.size)
    y = np.digitize(latent, np.quantile(latent, [0.7, 0.88, 0.96]))
    order = rng.permutation(qid.size)
    return X[order], y[order], qid[order]


def as_frame(X, qid):
    frame = pd.DataFrame(X, columns=FEATURES)
    frame.insert(1, "qid", qid)
    return frame


class CountingRidge(RegressorMixin, BaseEstimator):
    """Ridge that records the number of rows of every predict call (class-level: clones share it)."""

    predict_calls = []

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y):
        self.model_ = Ridge(alpha=self.alpha).fit(X, y)
        return self

    def predict(self, X):
        type(self).predict_calls.append(len(X))
        return self.model_.predict(X)


@pytest.fixture
def counts(monkeypatch):
    """Fresh predict and engine call counters: ``counts["predict"]`` and ``counts["engine"]`` (lists)."""
    assert _scorer.engine_evaluate is _engine.evaluate  # the scorers reach the engine through this name
    engine_calls = []

    def counting_evaluate(*args, **kwargs):
        # the scorers pass the metrics as specs (read under their preset when made): record the names
        engine_calls.append(tuple(getattr(m, "name", m) for m in kwargs["metrics"]))
        return _engine.evaluate(*args, **kwargs)

    monkeypatch.setattr(_scorer, "engine_evaluate", counting_evaluate)
    monkeypatch.setattr(CountingRidge, "predict_calls", [])
    return {"engine": engine_calls, "predict": CountingRidge.predict_calls}


def single_values(metrics, estimator, X, y, qid=None, sample_weight=None, **params):
    """Each metric from its own one-metric scorer, keyed by that scorer's name."""
    out = {}
    for metric in metrics:
        scorer = make_ranking_scorer(metric, **params)
        out[scorer.name] = scorer(estimator, X, y, qid=qid, sample_weight=sample_weight)
    return out


def assert_same_values(actual, expected):
    assert list(actual) == list(expected)
    for name, value in expected.items():
        assert actual[name] == pytest.approx(value, abs=ATOL), name


# --------------------------------------------------------------------------------------
# one predict and one engine call per fold and scored split
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("n_splits", [2, 3])
@pytest.mark.parametrize("return_train_score", [False, True])
def test_cross_validate_predicts_once_per_fold_and_split(counts, n_splits, return_train_score):
    X, y, qid = ranking_data()
    cv = GroupKFold(n_splits)
    result = cross_validate(CountingRidge(), as_frame(X, qid), y, groups=qid, cv=cv,
                            scoring=make_multimetric_scorer(METRICS), return_train_score=return_train_score,
                            return_estimator=True, return_indices=True)
    scored_splits = 2 if return_train_score else 1
    assert len(counts["predict"]) == n_splits * scored_splits
    assert counts["engine"] == [tuple(METRICS)] * (n_splits * scored_splits)
    # The test folds (and training folds) were predicted whole, once each.
    sizes = [len(test) for test in result["indices"]["test"]]
    if return_train_score:
        sizes = [size for train, test in zip(result["indices"]["train"], result["indices"]["test"])
                 for size in (len(test), len(train))]
    assert counts["predict"] == sizes

    # The dict of one-metric scorers, for contrast: it shares one predict per fold and scored split, as
    # scikit-learn's own scorers in a dict do (issue 26), and calls the engine once per metric.
    del counts["predict"][:], counts["engine"][:]
    cross_validate(CountingRidge(), as_frame(X, qid), y, groups=qid, cv=cv, scoring=make_scorers(METRICS),
                   return_train_score=return_train_score)
    assert len(counts["predict"]) == n_splits * scored_splits
    assert len(counts["engine"]) == n_splits * scored_splits * len(METRICS)

    # The values are those of the one-metric scorers on the same fitted models and rows.
    frame = as_frame(X, qid)
    for fold, (estimator, train, test) in enumerate(zip(result["estimator"], result["indices"]["train"],
                                                        result["indices"]["test"])):
        splits = [("test", test), ("train", train)] if return_train_score else [("test", test)]
        for split, rows in splits:
            expected = single_values(METRICS, estimator, frame.iloc[rows], y[rows])
            for name, value in expected.items():
                assert result[f"{split}_{name}"][fold] == pytest.approx(value, abs=ATOL), (split, name, fold)


def test_grid_search_predicts_once_per_candidate_and_fold(counts):
    X, y, qid = ranking_data(seed=1)
    alphas = [0.1, 10.0, 1000.0]
    with config_context(enable_metadata_routing=True):
        search = GridSearchCV(CountingRidge(), {"alpha": alphas}, cv=GroupKFold(2), refit="ndcg@10",
                              scoring=make_multimetric_scorer(METRICS))
        search.fit(X, y, groups=qid, qid=qid)
    assert len(counts["predict"]) == len(counts["engine"]) == len(alphas) * 2
    assert {f"mean_test_{name}" for name in METRICS} <= set(search.cv_results_)


# --------------------------------------------------------------------------------------
# values: the one-metric scorers', in every layout, with every option
# --------------------------------------------------------------------------------------


def _mrr_and_mean_rank_by_hand(scores, relevance, qid):
    """Per query: rank of the best-scored relevant row (no tied scores), skipping queries without one."""
    ranks = []
    for q in np.unique(qid):
        rows = qid == q
        ranked = relevance[rows][np.argsort(-scores[rows])]
        if (ranked > 0).any():
            ranks.append(np.flatnonzero(ranked > 0)[0] + 1)
    ranks = np.asarray(ranks, dtype=float)
    return float(np.mean(1.0 / ranks)), float(np.mean(ranks))


def test_values_match_a_rank_counted_by_hand():
    X, y, qid = ranking_data(seed=2)
    model = Ridge().fit(X, y)
    scores = make_multimetric_scorer(["mean_rank", "mrr"])(model, X, y, qid=qid)
    mrr, mean_rank = _mrr_and_mean_rank_by_hand(model.predict(X), y, qid)
    assert list(scores) == ["neg_mr", "mrr"]
    assert scores["mrr"] == pytest.approx(mrr, abs=ATOL)
    assert scores["neg_mr"] == pytest.approx(-mean_rank, abs=ATOL)


OPTIONS = [
    {},
    {"ties": "realistic"},
    {"ties": "pessimistic", "gain": "exponential"},
    {"ties": "ordinal", "no_relevant": "zero"},
    {"relevance_level": 2, "targets": "all"},
]
MANY = ["mrr", "map", "ndcg@10", "ndcg", "hits@5", "p@3", "r@5", "mr", "gmr", "amri", "median_rank", "auc"]


@pytest.mark.parametrize("params", OPTIONS, ids=lambda params: ",".join(f"{k}={v}" for k, v in params.items()))
def test_grouped_rows_with_ties_equal_the_one_metric_scorers(params):
    X, y, qid = ranking_data(seed=3)
    model = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, y)  # few leaves: many tied scores
    assert np.unique(model.predict(X)).size <= 4
    scores = make_multimetric_scorer(MANY, **params)(model, X, y, qid=qid)
    assert_same_values(scores, single_values(MANY, model, X, y, qid=qid, **params))


@pytest.mark.parametrize("params", [
    {"convention": "lightgbm"},
    {"convention": "xgboost"},
    {"convention": "ranx"},  # ranx's hits@k is sklearn-rank's num_rel_ret@k
    {"convention": "trec_eval", "ties": "expected"},  # an explicit option wins over the preset
    {"ap_denominator": "capped"},
], ids=lambda params: ",".join(f"{k}={v}" for k, v in params.items()))
def test_conventions_equal_the_one_metric_scorers(params):
    X, y, qid = ranking_data(seed=14)
    model = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    metrics = ["ndcg", "ndcg@5", "map@5", "hits@5", "mrr", "p@3"]
    scores = make_multimetric_scorer(metrics, **params)(model, X, y, qid=qid)
    assert_same_values(scores, single_values(metrics, model, X, y, qid=qid, **params))
    if params == {"convention": "ranx"}:  # the preset reached the engine: hits@5 counts relevant items
        assert scores["hits@5"] > 1


def test_sample_weight_gives_the_one_metric_scorers_values():
    X, y, qid = ranking_data(seed=4)
    model = Ridge().fit(X, y)
    queries, query_index = np.unique(qid, return_inverse=True)
    sample_weight = np.linspace(0.5, 3.0, queries.size)[query_index]
    scores = make_multimetric_scorer(METRICS)(model, X, y, qid=qid, sample_weight=sample_weight)
    assert_same_values(scores, single_values(METRICS, model, X, y, qid=qid, sample_weight=sample_weight))
    assert scores != make_multimetric_scorer(METRICS)(model, X, y, qid=qid)  # the weights mattered


def test_classifier_and_multilabel_layouts_equal_the_one_metric_scorers():
    X, y = make_classification(n_samples=150, n_features=6, n_informative=4, n_classes=4, random_state=0)
    classifier = LogisticRegression(max_iter=1000).fit(X, y)
    metrics = ["mrr", "hits@1", "hits@3", "mr"]
    assert_same_values(make_multimetric_scorer(metrics)(classifier, X, y),
                       single_values(metrics, classifier, X, y))
    X, Y = make_multilabel_classification(n_samples=80, n_features=8, n_classes=5, allow_unlabeled=False,
                                          random_state=0)
    multilabel = OneVsRestClassifier(LogisticRegression(max_iter=1000)).fit(X, Y)
    metrics = ["map", "ndcg@3", "mrr", "p@2"]
    assert_same_values(make_multimetric_scorer(metrics)(multilabel, X, Y), single_values(metrics, multilabel, X, Y))


def test_engine_options_are_forwarded_as_the_one_metric_scorer_forwards_them(monkeypatch):
    # Both scorers pass the same keywords to the engine; an option added to METRIC_PARAMS (the
    # scorers' list of engine options) reaches the engine from both without further code.
    X, y, qid = ranking_data(seed=5)
    model = Ridge().fit(X, y)
    seen = []

    def recording_evaluate(*args, **kwargs):
        seen.append(kwargs)
        return _engine.evaluate(*args, **{key: value for key, value in kwargs.items() if key != "new_option"})

    monkeypatch.setattr(_scorer, "engine_evaluate", recording_evaluate)
    # (the scorer checks its metric and options with the engine's plan when it is made: the fake option too)
    monkeypatch.setattr(_scorer, "engine_plan", lambda **kwargs: _engine.plan(
        **{key: value for key, value in kwargs.items() if key != "new_option"}))
    monkeypatch.setattr(_scorer, "METRIC_PARAMS", (*_scorer.METRIC_PARAMS, "new_option"))
    params = {"ties": "realistic", "gain": "exponential", "new_option": "value"}
    make_ranking_scorer("mrr", **params)(model, X, y, qid=qid)
    make_multimetric_scorer(["mrr", "map"], **params)(model, X, y, qid=qid)
    single, multi = seen
    names = lambda metrics: [getattr(metric, "name", metric) for metric in metrics]  # noqa: E731 (specs)
    assert names(single.pop("metrics")) == ["mrr"] and names(multi.pop("metrics")) == ["mrr", "map"]
    assert single.keys() == multi.keys() and single["new_option"] == multi["new_option"] == "value"
    assert single["ties"] == multi["ties"] == "realistic" and single["gain"] == multi["gain"] == "exponential"


# --------------------------------------------------------------------------------------
# searches: refit on one metric, same choice as the dict of one-metric scorers
# --------------------------------------------------------------------------------------


NAMES = ["mrr", "map", "ndcg@10", "hits@5", "neg_mr"]


@pytest.mark.parametrize("search_class", ["grid", "randomized"])
def test_search_with_refit_picks_what_the_dict_of_scorers_picks(search_class):
    X, y, qid = ranking_data(n_queries=40, seed=6)
    frame = as_frame(X, qid)
    model = make_pipeline(ColumnTransformer([("drop_qid", "drop", ["qid"])], remainder="passthrough"), Ridge())
    grid = {"ridge__alpha": [0.01, 30.0, 300.0, 3000.0, 30000.0]}

    def search(scoring):
        if search_class == "grid":
            found = GridSearchCV(model, grid, scoring=scoring, refit="ndcg@10", cv=QueryGroupKFold(3))
        else:
            found = RandomizedSearchCV(model, grid, n_iter=4, random_state=0, scoring=scoring, refit="ndcg@10",
                                       cv=QueryGroupKFold(3))
        return found.fit(frame, y)

    one_pass = search(make_multimetric_scorer(NAMES))
    separate = search(make_scorers(NAMES))
    assert one_pass.multimetric_ and separate.multimetric_
    assert one_pass.best_params_ == separate.best_params_
    assert one_pass.best_index_ == int(np.argmax(one_pass.cv_results_["mean_test_ndcg@10"]))
    for name in NAMES:
        np.testing.assert_allclose(one_pass.cv_results_[f"mean_test_{name}"],
                                   separate.cv_results_[f"mean_test_{name}"], rtol=0, atol=ATOL)
    assert (one_pass.cv_results_["mean_test_neg_mr"] < 0).all()
    assert np.unique(np.round(one_pass.cv_results_["mean_test_ndcg@10"], 10)).size > 1  # a real choice
    # score() of the refitted search is the refit metric.
    assert one_pass.score(frame, y) == pytest.approx(make_ranking_scorer("ndcg@10")(one_pass.best_estimator_,
                                                                                   frame, y), abs=ATOL)


# --------------------------------------------------------------------------------------
# query ids and sample weights: both routes
# --------------------------------------------------------------------------------------


def _expected_folds(estimator, X, y, qid, cv, metrics, sample_weight=None):
    expected = []
    for train, test in cv.split(X, y, groups=qid):
        fitted = estimator.fit(X[train], y[train])
        weight = None if sample_weight is None else sample_weight[test]
        expected.append(single_values(metrics, fitted, X[test], y[test], qid=qid[test], sample_weight=weight))
    return expected


def assert_folds(result, expected):
    """``result[f"test_{name}"][fold]`` of cross_validate equals ``expected[fold][name]``."""
    for fold, values in enumerate(expected):
        for name, value in values.items():
            assert result[f"test_{name}"][fold] == pytest.approx(value, abs=ATOL), (name, fold)


def test_routed_qid_and_an_alias():
    X, y, qid = ranking_data(seed=7)
    cv = GroupKFold(3)
    expected = _expected_folds(Ridge(), X, y, qid, cv, NAMES)
    with config_context(enable_metadata_routing=True):
        scorer = make_multimetric_scorer(NAMES)
        assert scorer.get_metadata_routing().score.requests["qid"] is True
        routed = cross_validate(Ridge(), X, y, cv=cv, scoring=scorer, params={"groups": qid, "qid": qid})
        aliased = make_multimetric_scorer(NAMES).set_score_request(qid="query_id")
        by_alias = cross_validate(Ridge(), X, y, cv=cv, scoring=aliased, params={"groups": qid, "query_id": qid})
    for result in (routed, by_alias):
        assert_folds(result, expected)


@pytest.mark.parametrize("column", ["name", "index"])
def test_qid_column_of_X(column):
    X, y, qid = ranking_data(seed=8)
    cv = GroupKFold(3)
    expected = _expected_folds(Ridge(), X, y, qid, cv, NAMES)
    if column == "name":
        data, drop, scorer = as_frame(X, qid), ["qid"], make_multimetric_scorer(NAMES)
    else:
        data, drop, scorer = np.column_stack([qid, X]), [0], make_multimetric_scorer(NAMES, qid=0)
    model = make_pipeline(ColumnTransformer([("drop_qid", "drop", drop)], remainder="passthrough"), Ridge())
    result = cross_validate(model, data, y, groups=qid, cv=cv, scoring=scorer)
    assert_folds(result, expected)


def test_routed_sample_weight_on_request():
    X, y, qid = ranking_data(seed=9)
    queries, query_index = np.unique(qid, return_inverse=True)
    sample_weight = np.linspace(0.2, 4.0, queries.size)[query_index]
    cv = GroupKFold(3)
    expected = _expected_folds(Ridge(), X, y, qid, cv, METRICS, sample_weight=sample_weight)
    unweighted = _expected_folds(Ridge(), X, y, qid, cv, METRICS)
    with config_context(enable_metadata_routing=True):
        scorer = make_multimetric_scorer(METRICS)
        assert scorer.get_metadata_routing().score.requests["sample_weight"] is None
        scorer.set_score_request(sample_weight=True)
        model = Ridge().set_fit_request(sample_weight=False)  # the weights are for the scorer only
        result = cross_validate(model, X, y, cv=cv, scoring=scorer,
                                params={"groups": qid, "qid": qid, "sample_weight": sample_weight})
    assert_folds(result, expected)
    assert any(result[f"test_{name}"][fold] != pytest.approx(unweighted[fold][name], abs=ATOL)
               for fold in range(3) for name in METRICS)


def test_sample_weight_without_routing_is_forwarded_as_to_the_one_metric_scorers():
    # scikit-learn >= 1.7 forwards a search's sample_weight to scorers that accept it
    # (_accept_sample_weight); earlier versions do not. The one-pass scorer does what the
    # one-metric scorers do, in either case.
    X, y, qid = ranking_data(seed=10)
    frame = as_frame(X, qid)
    queries, query_index = np.unique(qid, return_inverse=True)
    sample_weight = np.linspace(0.5, 2.0, queries.size)[query_index]
    cv = QueryGroupKFold(3)
    search = GridSearchCV(RankingEvaluator(Ridge()), {"estimator__alpha": [0.1, 1000.0]},
                          scoring=make_multimetric_scorer(METRICS), refit="mrr", cv=cv)
    search.fit(frame, y, sample_weight=sample_weight)
    forwards_weights = hasattr(GridSearchCV, "_check_scorers_accept_sample_weight")
    assert make_multimetric_scorer(METRICS)._accept_sample_weight()
    for candidate, alpha in enumerate([0.1, 1000.0]):
        for fold, (train, test) in enumerate(cv.split(frame)):
            fitted = Ridge(alpha=alpha).fit(X[train], y[train], sample_weight=sample_weight[train])
            weight = sample_weight[test] if forwards_weights else None
            expected = single_values(METRICS, fitted, X[test], y[test], qid=qid[test], sample_weight=weight)
            for name, value in expected.items():
                actual = search.cv_results_[f"split{fold}_test_{name}"][candidate]
                assert actual == pytest.approx(value, abs=ATOL), (name, alpha, fold)


def test_rows_without_query_ids_raise_naming_both_routes():
    X, y, qid = ranking_data(seed=11)
    model = Ridge().fit(X, y)
    with pytest.raises(ValueError, match="enable_metadata_routing=True.*column.*Got "):
        make_multimetric_scorer(METRICS)(model, X, y)


# --------------------------------------------------------------------------------------
# names, repr, equality, pickling, errors
# --------------------------------------------------------------------------------------


def test_names_are_the_one_metric_scorers_names():
    scorer = make_multimetric_scorer(["MRR", "mean_rank", "NDCG@10", "recall@5", "success@3", "neg_gmr"])
    assert scorer.names == tuple(make_ranking_scorer(name).name
                                 for name in ["MRR", "mean_rank", "NDCG@10", "recall@5", "success@3", "neg_gmr"])
    assert scorer.names == ("mrr", "neg_mr", "ndcg@10", "r@5", "hits@3", "neg_gmr")
    assert scorer.metrics == ("mrr", "mr", "ndcg@10", "r@5", "hits@3", "gmr")
    assert scorer.greater_is_better == (True, False, True, True, True, False)
    assert make_multimetric_scorer("mrr").names == ("mrr",)
    assert sklearn_rank.make_multimetric_scorer is make_multimetric_scorer
    assert sklearn_rank.MultimetricRankingScorer is MultimetricRankingScorer


def test_repr_round_trips_and_equality_and_pickle():
    scorer = make_multimetric_scorer(["mrr", "mr"], qid=0, ties="realistic", gain="linear")
    assert repr(scorer) == "make_multimetric_scorer(['mrr', 'neg_mr'], qid=0, ties='realistic')"
    assert eval(repr(scorer)) == scorer  # noqa: S307 - a repr written to be evaluated
    assert hash(eval(repr(scorer))) == hash(scorer)  # noqa: S307
    assert scorer != make_multimetric_scorer(["mrr", "mr"], qid=0)
    assert scorer != make_multimetric_scorer(["mr", "mrr"], qid=0, ties="realistic")  # the order of the keys
    assert repr(make_multimetric_scorer(["ndcg@10"])) == "make_multimetric_scorer(['ndcg@10'])"
    X, y, qid = ranking_data(seed=12)
    model = Ridge().fit(X, y)
    clone = pickle.loads(pickle.dumps(scorer))
    assert clone == scorer and clone(model, X, y, qid=qid) == scorer(model, X, y, qid=qid)
    with config_context(enable_metadata_routing=True):
        aliased = pickle.loads(pickle.dumps(make_multimetric_scorer(["mrr"]).set_score_request(qid="query")))
        assert aliased.get_metadata_routing().score.requests["qid"] == "query"
    with pytest.raises(RuntimeError, match="enable_metadata_routing"):
        make_multimetric_scorer(["mrr"]).set_score_request(qid=True)


@pytest.mark.parametrize("metrics, kwargs, error, message", [
    ([], {}, ValueError, "`metrics` must hold at least one metric name. Got an empty sequence instead."),
    (["mrr", "mrrr"], {}, ValueError, "Unknown metric"),
    (["mrr", "MRR"], {}, ValueError, "`metrics` must name each metric once: 'mrr' and 'MRR' are both 'mrr'"),
    (["mr", "neg_mean_rank"], {}, ValueError, "'mr' and 'neg_mean_rank' are both 'neg_mr'"),
    (["hits@5", "success@5"], {}, ValueError, "are both 'hits@5'"),
    (["neg_mrr"], {}, ValueError, "higher-is-better"),
    (["mrr", 3], {}, TypeError, "`metrics` must hold metric names"),
    (3, {}, TypeError, "`metrics` must be a metric name or a sequence"),
    (["mrr"], {"tie": "expected"}, TypeError, "Unknown metric parameter"),
    (["mrr"], {"ties": "random"}, ValueError, "`ties` must be one of"),
    (["mrr"], {"k": 5}, TypeError, "Unknown metric parameter"),
    (["mrr"], {"qid": 1.5}, TypeError, "`qid` must be the name"),
])
def test_bad_input_raises(metrics, kwargs, error, message):
    with pytest.raises(error, match=message):
        make_multimetric_scorer(metrics, **kwargs)


def test_unknown_metric_raises_the_registry_error():
    with pytest.raises(ValueError) as from_registry:
        sklearn_rank.get_metric("mrrr")
    with pytest.raises(ValueError) as from_scorer:
        make_multimetric_scorer(["mrrr"])
    assert str(from_scorer.value) == str(from_registry.value)


def test_permutation_importance_gives_one_result_per_key():
    # scikit-learn's permutation_importance permutes every column of X, so it takes no query-id column
    # (issue 26: an error naming sklearn_rank.inspection.permutation_importance, tested in
    # test_inspection.py); a classifier ranking its classes needs no query ids.
    from sklearn.inspection import permutation_importance

    X, y = make_classification(n_samples=120, n_features=5, n_informative=3, n_classes=4, random_state=0)
    model = LogisticRegression(max_iter=500).fit(X, y)
    both = permutation_importance(model, X, y, scoring=make_multimetric_scorer(["mrr", "mr"]), n_repeats=2,
                                  random_state=0)
    assert list(both) == ["mrr", "neg_mr"]
    for name in ["mrr", "mr"]:
        alone = permutation_importance(model, X, y, scoring=make_ranking_scorer(name), n_repeats=2,
                                       random_state=0)
        np.testing.assert_allclose(both[make_ranking_scorer(name).name].importances, alone.importances,
                                   rtol=0, atol=ATOL)
