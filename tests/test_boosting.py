"""Training-time metric bridges (lightgbm_metric, xgboost_metric) against the engine on independent predictions.

The oracle of each recorded value is sklearn_rank.evaluate on the booster's own predictions at that
iteration (``predict(num_iteration=i)`` / ``iteration_range``), computed after training: the test checks
that the bridge receives the right rows, groups, weights and options at every round.
"""

import inspect
import pickle
import warnings

import numpy as np
import pytest

from sklearn_rank import LightGBMMetric, XGBoostMetric, evaluate, lightgbm_metric, xgboost_metric
from sklearn_rank.datasets import make_ranking

NO_RELEVANT_QUERIES = [3, 7, 41, 47, 52]


def letor_split(seed=0):
    """LETOR-like data: queries of 3 to 15 documents, graded relevance, some queries without a relevant one."""
    X, y, qid = make_ranking(n_queries=60, n_candidates=(3, 15), noise=2.0, random_state=seed)
    y = np.where(np.isin(qid, NO_RELEVANT_QUERIES), 0, y)
    train, valid = qid < 40, qid >= 40
    return (X[train], y[train], qid[train]), (X[valid], y[valid], qid[valid])


def sizes(qid):
    return np.unique(qid, return_counts=True)[1]  # rows of a query are contiguous here


def engine_value(metric, y, scores, qid, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(y, scores, qid=qid, metrics=[metric], **params).summary[metric]


CASES = [("mrr", {}), ("hits@3", {"ties": "optimistic"}), ("ndcg@5", {"gain": "exponential", "ties": "ordinal"}),
         ("map", {"no_relevant": "zero"}), ("mr", {"ties": "realistic"}), ("p@5", {"relevance_level": 2})]


# ---- LightGBM ----------------------------------------------------------------------------------


@pytest.mark.parametrize("metric, params", CASES)
def test_lightgbm_sklearn_api_records_the_engine_value_at_every_iteration(metric, params):
    lgb = pytest.importorskip("lightgbm")
    (X, y, qid), (Xv, yv, qv) = letor_split()
    bridge = lightgbm_metric(metric, **params)
    ranker = lgb.LGBMRanker(n_estimators=8, num_leaves=7, metric="None", verbose=-1, n_jobs=1)
    ranker.fit(X, y, group=sizes(qid), eval_X=Xv, eval_y=yv, eval_group=[sizes(qv)], eval_metric=bridge)
    recorded = ranker.evals_result_["valid_0"][bridge.name]
    assert len(recorded) == 8
    expected = [engine_value(metric, yv, ranker.predict(Xv, num_iteration=i), qv, **params) for i in range(1, 9)]
    np.testing.assert_allclose(recorded, expected, rtol=1e-12)
    assert len(set(np.round(expected, 12))) > 1  # the model changes between rounds


@pytest.mark.parametrize("metric, params", CASES)
def test_lightgbm_train_feval_records_the_engine_value_at_every_iteration(metric, params):
    lgb = pytest.importorskip("lightgbm")
    (X, y, qid), (Xv, yv, qv) = letor_split(seed=1)
    train_set = lgb.Dataset(X, y, group=sizes(qid))
    valid_set = lgb.Dataset(Xv, yv, group=sizes(qv), reference=train_set)
    history = {}
    booster = lgb.train({"objective": "lambdarank", "metric": "None", "verbose": -1, "num_leaves": 7,
                         "num_threads": 1}, train_set, num_boost_round=8, valid_sets=[valid_set],
                        valid_names=["valid"], feval=lightgbm_metric(metric, **params),
                        callbacks=[lgb.record_evaluation(history)])
    name = lightgbm_metric(metric).name
    expected = [engine_value(metric, yv, booster.predict(Xv, num_iteration=i), qv, **params) for i in range(1, 9)]
    np.testing.assert_allclose(history["valid"][name], expected, rtol=1e-12)


def test_lightgbm_query_weight_is_the_mean_of_its_row_weights():
    lgb = pytest.importorskip("lightgbm")
    (X, y, qid), (Xv, yv, qv) = letor_split(seed=2)
    row_weight = np.random.RandomState(0).uniform(0.1, 3.0, len(yv))
    ranker = lgb.LGBMRanker(n_estimators=3, num_leaves=7, metric="None", verbose=-1, n_jobs=1)
    ranker.fit(X, y, group=sizes(qid), eval_X=Xv, eval_y=yv, eval_group=[sizes(qv)],
               eval_sample_weight=[row_weight], eval_metric=lightgbm_metric("mrr", ties="ordinal"))
    # Oracle: a per-query loop for the query weights, then the weighted mean of per-query reciprocal ranks
    # (ties in input order). LightGBM stores weights as float32.
    row_weight = row_weight.astype(np.float32).astype(np.float64)
    scores = ranker.predict(Xv, num_iteration=3)
    values, weights = [], []
    for query in np.unique(qv):
        rows = qv == query
        if not (yv[rows] > 0).any():
            continue  # no_relevant="skip"
        order = np.argsort(-scores[rows], kind="stable")
        values.append(1.0 / (1 + np.flatnonzero(yv[rows][order] > 0)[0]))
        weights.append(row_weight[rows].mean())
    assert ranker.evals_result_["valid_0"]["mrr"][-1] == pytest.approx(np.average(values, weights=weights),
                                                                         rel=1e-12)


@pytest.mark.parametrize("metric", ["mrr", "mr"])
def test_lightgbm_early_stopping_picks_the_best_recorded_iteration(metric):
    lgb = pytest.importorskip("lightgbm")
    (X, y, qid), (Xv, yv, qv) = letor_split(seed=3)
    bridge = lightgbm_metric(metric)
    ranker = lgb.LGBMRanker(n_estimators=300, num_leaves=15, learning_rate=0.3, metric="None", verbose=-1,
                            n_jobs=1)
    ranker.fit(X, y, group=sizes(qid), eval_X=Xv, eval_y=yv, eval_group=[sizes(qv)], eval_metric=bridge,
               callbacks=[lgb.early_stopping(5, verbose=False)])
    history = np.asarray(ranker.evals_result_["valid_0"][metric])
    best = np.argmax(history) if bridge.greater_is_better else np.argmin(history)  # the first best
    assert ranker.best_iteration_ == best + 1
    assert ranker.best_iteration_ < 300 and len(history) == best + 1 + 5


@pytest.mark.parametrize("no_relevant", ["skip", "zero"])
def test_queries_without_relevant_documents_follow_no_relevant(no_relevant):
    lgb = pytest.importorskip("lightgbm")
    (X, y, qid), (Xv, yv, qv) = letor_split(seed=4)
    assert not all((yv[qv == query] > 0).any() for query in np.unique(qv))
    metric = lightgbm_metric("ndcg@5", no_relevant=no_relevant)
    ranker = lgb.LGBMRanker(n_estimators=2, num_leaves=7, metric="None", verbose=-1, n_jobs=1)
    ranker.fit(X, y, group=sizes(qid), eval_X=Xv, eval_y=yv, eval_group=[sizes(qv)], eval_metric=metric)
    scores = ranker.predict(Xv)
    recorded = ranker.evals_result_["valid_0"]["ndcg@5"][-1]
    assert recorded == pytest.approx(engine_value("ndcg@5", yv, scores, qv, no_relevant=no_relevant), rel=1e-12)
    other = "zero" if no_relevant == "skip" else "skip"
    assert recorded != pytest.approx(engine_value("ndcg@5", yv, scores, qv, no_relevant=other), rel=1e-6)


def test_lightgbm_without_groups_raises():
    lgb = pytest.importorskip("lightgbm")
    (X, y, _), (Xv, yv, _) = letor_split()
    regressor = lgb.LGBMRegressor(n_estimators=2, verbose=-1, n_jobs=1)
    with pytest.raises(ValueError, match="LGBMRanker.*no query groups. Got no groups instead"):
        regressor.fit(X, y, eval_X=Xv, eval_y=yv, eval_metric=lightgbm_metric("mrr"))
    train_set = lgb.Dataset(X, y)
    with pytest.raises(ValueError, match="lightgbm.Dataset .build it with group"):
        lgb.train({"objective": "regression", "metric": "None", "verbose": -1}, train_set, num_boost_round=1,
                  valid_sets=[lgb.Dataset(Xv, yv, reference=train_set)], feval=lightgbm_metric("mrr"))


def test_lightgbm_direction_and_name():
    metric = lightgbm_metric("MR")
    assert metric([1, 0, 0], [0.1, 0.9, 0.5], None, [3]) == ("mr", 3.0, False)
    assert lightgbm_metric("h@10").name == lightgbm_metric("h@10").__name__ == "hits@10"
    renamed = lightgbm_metric("ndcg@5", name="ndcg@5_expected")
    assert renamed([1, 0], [0.0, 0.0], None, [2])[0] == "ndcg@5_expected"
    assert isinstance(metric, LightGBMMetric)


# ---- XGBoost -----------------------------------------------------------------------------------


@pytest.mark.parametrize("metric, params", CASES)
def test_xgboost_train_records_the_engine_value_at_every_iteration(metric, params):
    xgb = pytest.importorskip("xgboost")
    (X, y, qid), (Xv, yv, qv) = letor_split(seed=5)
    dtrain = xgb.DMatrix(X, label=y, qid=qid)
    dvalid = xgb.DMatrix(Xv, label=yv, qid=qv)
    history = {}
    booster = xgb.train({"objective": "rank:ndcg", "disable_default_eval_metric": 1, "max_depth": 3, "nthread": 1},
                        dtrain, num_boost_round=8, evals=[(dvalid, "valid")],
                        custom_metric=xgboost_metric(metric, **params), evals_result=history, verbose_eval=False)
    bridge = xgboost_metric(metric, **params)
    predictions = [booster.predict(dvalid, iteration_range=(0, i)) for i in range(1, 9)]
    expected = [engine_value(metric, yv, scores, qv, **params) for scores in predictions]
    # The bridge on the DMatrix gives the engine's value on the predictions...
    assert [bridge(scores, dvalid) for scores in predictions] == [(bridge.name, value) for value in expected]
    # ... and XGBoost records it, formatted with 6 decimals ("%f") in its evaluation log.
    np.testing.assert_allclose(history["valid"][bridge.name], expected, rtol=0, atol=5.1e-7)
    assert len(set(np.round(expected, 12))) > 1


def test_xgboost_group_weights_weight_the_queries():
    xgb = pytest.importorskip("xgboost")
    (X, y, qid), (Xv, yv, qv) = letor_split(seed=6)
    query_weight = np.random.RandomState(1).uniform(0.1, 3.0, len(np.unique(qv)))
    dvalid = xgb.DMatrix(Xv, label=yv, qid=qv, weight=query_weight)
    booster = xgb.train({"objective": "rank:ndcg", "max_depth": 3, "nthread": 1},
                        xgb.DMatrix(X, label=y, qid=qid), num_boost_round=3)
    scores = booster.predict(dvalid)
    row_weight = np.repeat(query_weight.astype(np.float32), sizes(qv))  # XGBoost stores float32 weights
    assert xgboost_metric("map")(scores, dvalid) == ("map", pytest.approx(
        engine_value("map", yv, scores, qv, sample_weight=row_weight), rel=1e-12))
    assert engine_value("map", yv, scores, qv, sample_weight=row_weight) != pytest.approx(
        engine_value("map", yv, scores, qv), rel=1e-9)


@pytest.mark.parametrize("metric", ["mrr", "hits@3", "mr"])
def test_xgboost_early_stopping_with_maximize_picks_the_best_recorded_iteration(metric):
    xgb = pytest.importorskip("xgboost")
    (X, y, qid), (Xv, yv, qv) = letor_split(seed=7)
    bridge = xgboost_metric(metric)
    history = {}
    booster = xgb.train({"objective": "rank:ndcg", "disable_default_eval_metric": 1, "eta": 0.5, "nthread": 1},
                        xgb.DMatrix(X, label=y, qid=qid), num_boost_round=300,
                        evals=[(xgb.DMatrix(Xv, label=yv, qid=qv), "valid")], custom_metric=bridge,
                        early_stopping_rounds=5, maximize=bridge.maximize, evals_result=history, verbose_eval=False)
    recorded = np.asarray(history["valid"][metric])
    best = np.argmax(recorded) if bridge.maximize else np.argmin(recorded)
    assert booster.best_iteration == best
    assert len(recorded) == best + 1 + 5 < 300


def test_xgboost_sklearn_api_is_refused_with_the_reason():
    xgb = pytest.importorskip("xgboost")
    (X, y, qid), (Xv, yv, qv) = letor_split()
    ranker = xgb.XGBRanker(n_estimators=2, eval_metric=xgboost_metric("mrr"), n_jobs=1)
    with pytest.raises(TypeError, match="xgboost.train.*once per\nquery|once per query"):
        ranker.fit(X, y, qid=qid, eval_set=[(Xv, yv)], eval_qid=[qv], verbose=False)
    with pytest.raises(TypeError, match="Got ndarray instead of a DMatrix"):
        xgboost_metric("mrr")(np.zeros(3), np.zeros(3))


def test_xgboost_dmatrix_without_groups_raises():
    xgb = pytest.importorskip("xgboost")
    dmatrix = xgb.DMatrix(np.zeros((3, 1)), label=[1, 0, 0])
    with pytest.raises(ValueError, match="DMatrix .build it with qid=.*Got no groups instead"):
        xgboost_metric("mrr")(np.zeros(3), dmatrix)


def test_xgboost_direction_and_name():
    assert xgboost_metric("hits@10").maximize is True
    assert xgboost_metric("mean_rank").maximize is False
    assert xgboost_metric("success@3").__name__ == "hits@3"
    assert isinstance(xgboost_metric("mrr"), XGBoostMetric)


# ---- both ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("factory", [lightgbm_metric, xgboost_metric])
def test_invalid_arguments_raise_when_the_bridge_is_built(factory):
    with pytest.raises(ValueError, match="nope"):
        factory("nope")
    with pytest.raises(TypeError, match=r"engine's options.*Got \['color'\] instead"):
        factory("mrr", color="red")
    with pytest.raises(TypeError, match=r"Got \['qid'\] instead"):
        factory("mrr", qid=[0, 0])
    with pytest.raises(ValueError, match="ties"):
        factory("mrr", ties="random")
    with pytest.raises(TypeError, match="`metric` must be"):
        factory(["mrr"])
    with pytest.raises(TypeError, match="`name` must be"):
        factory("mrr", name=3)


@pytest.mark.parametrize("factory", [lightgbm_metric, xgboost_metric])
def test_bridges_pickle_and_read(factory):
    metric = factory("hits@10", ties="realistic")
    clone = pickle.loads(pickle.dumps(metric))
    assert (clone.name, clone.params, clone.greater_is_better) == ("hits@10", {"ties": "realistic"}, True)
    assert repr(metric) == f"{factory.__name__}('hits@10', ties='realistic')"


def test_predictions_of_several_columns_are_refused():
    with pytest.raises(ValueError, match=r"shape \(4,\). Got shape \(4, 3\) instead"):
        lightgbm_metric("mrr")([1, 0, 0, 1], np.zeros((4, 3)), None, [2, 2])
    with pytest.raises(ValueError, match="summing to the number of rows"):
        lightgbm_metric("mrr")([1, 0, 0, 1], np.zeros(4), None, [2, 3])


# ---- the engines' own metrics, reproduced by the bridges with their conventions ----------------------


@pytest.mark.parametrize("metric", ["ndcg@5", "map@5", "ndcg@10"])
def test_lightgbm_convention_bridge_records_lightgbms_own_metric(metric):
    lgb = pytest.importorskip("lightgbm")
    (X, y, qid), (Xv, yv, qv) = letor_split(seed=8)
    train_set = lgb.Dataset(X, y, group=sizes(qid))
    valid_set = lgb.Dataset(Xv, yv, group=sizes(qv), reference=train_set)
    base, k = metric.split("@")
    history = {}
    lgb.train({"objective": "lambdarank", "metric": base, "eval_at": [int(k)], "verbose": -1, "num_leaves": 3,
               "num_threads": 1}, train_set, num_boost_round=10, valid_sets=[valid_set], valid_names=["valid"],
              feval=lightgbm_metric(metric, convention="lightgbm", name="bridge"),
              callbacks=[lgb.record_evaluation(history)])
    # Queries without a relevant document (scored 1) and ties in the first rounds (few leaves) included.
    np.testing.assert_allclose(history["valid"]["bridge"], history["valid"][metric], rtol=1e-12)


@pytest.mark.parametrize("metric", ["ndcg@5", "map@5", "ndcg"])
def test_xgboost_convention_bridge_records_xgboosts_own_metric(metric):
    xgb = pytest.importorskip("xgboost")
    (X, y, qid), (Xv, yv, qv) = letor_split(seed=9)
    if metric.startswith("map"):  # XGBoost's MAP takes binary labels only
        y, yv = (y > 0).astype(int), (yv > 0).astype(int)
    history = {}
    xgb.train({"objective": "rank:ndcg", "eval_metric": metric, "max_depth": 1, "nthread": 1},
              xgb.DMatrix(X, label=y, qid=qid), num_boost_round=10, evals=[(xgb.DMatrix(Xv, label=yv, qid=qv), "v")],
              custom_metric=xgboost_metric(metric, convention="xgboost", name="bridge"), evals_result=history,
              verbose_eval=False)
    np.testing.assert_allclose(history["v"]["bridge"], history["v"][metric], rtol=0, atol=1.1e-6)


# ---- RankingEvaluator: per-query and per-row fit parameters follow the rows it sorts -------------


def _evaluator(estimator):
    from sklearn_rank import RankingEvaluator

    return RankingEvaluator(estimator, qid=None)


def _rearrange(qid, layout, seed=0):
    """A row order of data sorted by query: queries in descending id order or in a random order (rows of
    each query contiguous, shuffled within it), or all rows shuffled (queries scattered)."""
    rng = np.random.default_rng(seed)
    if layout == "scattered":
        return rng.permutation(len(qid))
    queries = np.unique(qid)[::-1] if layout == "descending" else rng.permutation(np.unique(qid))
    return np.concatenate([rng.permutation(np.flatnonzero(qid == q)) for q in queries])


def _appearance(qid):
    """Query ids in the order of their first appearance (rows of each query contiguous)."""
    return qid[np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])]


def _with_relevant(X, y, qid):
    """The queries with a relevant document: XGBoost adds the ndcg of 1 of a query without one unweighted
    (rank_metric.cc, EvalNDCG) to the weighted sum, which only weights of mean 1 make a weighted mean."""
    keep = np.isin(qid, np.unique(qid[y > 0]))
    return X[keep], y[keep], qid[keep]


def _query_weights(n_queries, kind, seed=1):
    if kind == "first":  # the review's case: all weight on the query that comes first in the data
        return np.r_[1.0, np.full(n_queries - 1, 1e-6)]
    return np.random.default_rng(seed).uniform(0.1, 3.0, n_queries)


@pytest.mark.parametrize("layout", ["descending", "shuffled"])
@pytest.mark.parametrize("kind", ["first", "random"])
def test_evaluator_xgbranker_eval_weights_per_query_follow_their_queries(layout, kind):
    xgb = pytest.importorskip("xgboost")
    (X, y, qid), valid = letor_split()
    Xv, yv, qv = _with_relevant(*valid)
    assert 0 < len(np.unique(qv)) < len(np.unique(valid[2]))
    order = _rearrange(qv, layout)
    Xp, yp, qp = Xv[order], yv[order], qv[order]
    appearance = _appearance(qp)
    weights = _query_weights(len(appearance), kind)
    ranker = xgb.XGBRanker(n_estimators=5, max_depth=3, eval_metric="ndcg@5", tree_method="hist", n_jobs=1)
    model = _evaluator(ranker).fit(X, y, qid=qid, eval_set=[(Xp, yp)], eval_qid=[qp],
                                   sample_weight_eval_set=[weights], verbose=False)
    recorded = model.estimator_.evals_result()["validation_0"]["ndcg@5"]
    # Oracle: the engine's per-query ndcg@5 (XGBoost's conventions) on the booster's predictions at each
    # round, weighted by the weight given to each query id (XGBoost keeps weights in float32).
    # XGBoost breaks ties by row order: the rows as the evaluator passes them, sorted stably by query.
    weight_of = dict(zip(appearance.tolist(), weights.astype(np.float32).astype(np.float64)))
    rows = np.argsort(qp, kind="stable")
    Xs, ys, qs = Xp[rows], yp[rows], qp[rows]
    expected = []
    for i in range(1, 6):
        scores = model.estimator_.predict(Xs, iteration_range=(0, i))
        per_query = evaluate(ys, scores, qid=qs, metrics=["ndcg@5"], convention="xgboost").per_query
        w = np.array([weight_of[q] for q in per_query["qid"].tolist()])
        expected.append(np.sum(w * per_query["ndcg@5"]) / np.sum(w))
    np.testing.assert_allclose(recorded, expected, rtol=1e-5)  # XGBoost's float32 weights
    if kind == "random":
        assert len(set(np.round(expected, 4))) > 1  # the model changes between rounds
    else:  # the weight sits on the query that came first in the data
        first = per_query["ndcg@5"][per_query["qid"] == appearance[0]][0]
        np.testing.assert_allclose(recorded[-1], first, atol=1e-4)


def test_evaluator_xgbranker_training_weights_per_query_follow_their_queries():
    xgb = pytest.importorskip("xgboost")
    (X, y, qid), _ = letor_split()
    order = _rearrange(qid, "shuffled", seed=3)
    Xp, yp, qp = X[order], y[order], qid[order]
    appearance = _appearance(qp)
    weights = _query_weights(len(appearance), "random", seed=4)
    params = dict(n_estimators=5, max_depth=3, tree_method="hist", n_jobs=1)
    model = _evaluator(xgb.XGBRanker(**params)).fit(Xp, yp, qid=qp, sample_weight=weights)
    # Direct XGBoost on the rows sorted by query, with the weights in the sorted query order.
    by_query = np.argsort(qp, kind="stable")
    sorted_weights = weights[np.argsort(appearance)]
    direct = xgb.XGBRanker(**params).fit(Xp[by_query], yp[by_query], qid=qp[by_query], sample_weight=sorted_weights)
    np.testing.assert_array_equal(model.predict(X), direct.predict(X))
    # The weights matter: the weights in the order given train another model.
    other = xgb.XGBRanker(**params).fit(Xp[by_query], yp[by_query], qid=qp[by_query], sample_weight=weights)
    assert not np.array_equal(other.predict(X), direct.predict(X))


def test_evaluator_xgbranker_base_margin_per_row_follows_its_rows():
    xgb = pytest.importorskip("xgboost")
    (X, y, qid), (Xv, yv, qv) = letor_split()
    rng = np.random.default_rng(5)
    order, eval_order = _rearrange(qid, "scattered"), _rearrange(qv, "shuffled")
    margin, eval_margin = rng.normal(size=len(y)), rng.normal(size=len(yv))
    params = dict(n_estimators=3, max_depth=3, eval_metric="ndcg@5", tree_method="hist", n_jobs=1)
    model = _evaluator(xgb.XGBRanker(**params)).fit(
        X[order], y[order], qid=qid[order], base_margin=list(margin[order]), eval_set=[(Xv[eval_order], yv[eval_order])],
        eval_qid=[qv[eval_order]], base_margin_eval_set=[eval_margin[eval_order]], verbose=False)
    # Direct XGBoost on the rows in the order the evaluator passes them: sorted stably by query.
    rows = order[np.argsort(qid[order], kind="stable")]
    eval_rows = eval_order[np.argsort(qv[eval_order], kind="stable")]
    direct = xgb.XGBRanker(**params).fit(
        X[rows], y[rows], qid=qid[rows], base_margin=margin[rows], eval_set=[(Xv[eval_rows], yv[eval_rows])],
        eval_qid=[qv[eval_rows]], base_margin_eval_set=[eval_margin[eval_rows]], verbose=False)
    np.testing.assert_allclose(model.estimator_.evals_result()["validation_0"]["ndcg@5"],
                               direct.evals_result()["validation_0"]["ndcg@5"], rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X), direct.predict(X))


@pytest.mark.parametrize("where", ["train", "eval"])
def test_evaluator_xgbranker_weights_per_query_with_scattered_queries_raise(where):
    xgb = pytest.importorskip("xgboost")
    (X, y, qid), (Xv, yv, qv) = letor_split()
    ranker = xgb.XGBRanker(n_estimators=2, tree_method="hist", n_jobs=1)
    if where == "train":
        order = _rearrange(qid, "scattered")
        args, kwargs = (X[order], y[order]), dict(qid=qid[order], sample_weight=np.ones(len(np.unique(qid))))
        name = "sample_weight"
    else:
        order = _rearrange(qv, "scattered")
        args = (X, y)
        kwargs = dict(qid=qid, eval_set=[(Xv[order], yv[order])], eval_qid=[qv[order]],
                      sample_weight_eval_set=[np.ones(len(np.unique(qv)))], verbose=False)
        name = r"sample_weight_eval_set\[0\]"
    with pytest.raises(ValueError, match=rf"`{name}` holds one weight per query .*ambiguous.* Got \d+ queries with "
                                         r"scattered rows instead\.$"):
        _evaluator(ranker).fit(*args, **kwargs)


def test_lightgbm_weights_per_row_follow_their_rows():
    lgb = pytest.importorskip("lightgbm")
    (X, y, qid), (Xv, yv, qv) = letor_split()
    rng = np.random.default_rng(6)
    order, eval_order = _rearrange(qid, "scattered"), _rearrange(qv, "scattered", seed=7)
    weight, eval_weight = rng.uniform(0.1, 3.0, len(y)), rng.uniform(0.1, 3.0, len(yv))
    params = dict(n_estimators=5, num_leaves=7, min_child_samples=3, metric="ndcg", verbose=-1, n_jobs=1)

    def evaluation(rows):  # LightGBM >= 4.7 takes eval_X and eval_y (eval_set is deprecated there)
        if "eval_X" in inspect.signature(lgb.LGBMRanker.fit).parameters:
            return dict(eval_X=(Xv[rows],), eval_y=(yv[rows],))
        return dict(eval_set=[(Xv[rows], yv[rows])])

    # LightGBM's weights are per row (Dataset.set_weight: "Weight to be set for each data point"); a list
    # as sample_weight too.
    model = _evaluator(lgb.LGBMRanker(**params)).fit(
        X[order], y[order], qid=qid[order], sample_weight=list(weight[order]), eval_qid=[qv[eval_order]],
        eval_sample_weight=[list(eval_weight[eval_order])], eval_at=[5], **evaluation(eval_order))
    # Direct LightGBM on the rows in the order the evaluator passes them (tied scores keep the row order).
    rows = order[np.argsort(qid[order], kind="stable")]
    eval_rows = eval_order[np.argsort(qv[eval_order], kind="stable")]
    direct = lgb.LGBMRanker(**params).fit(
        X[rows], y[rows], group=sizes(qid), sample_weight=weight[rows], eval_group=[sizes(qv)],
        eval_sample_weight=[eval_weight[eval_rows]], eval_at=[5], **evaluation(eval_rows))
    np.testing.assert_allclose(model.estimator_.evals_result_["valid_0"]["ndcg@5"],
                               direct.evals_result_["valid_0"]["ndcg@5"], rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X), direct.predict(X))


@pytest.mark.parametrize("name, make", [
    ("eval_sample_weight", lambda n_rows, n_queries: [np.ones(n_rows - 1)]),
    ("eval_sample_weight", lambda n_rows, n_queries: [np.ones(n_queries)]),  # per query: not for LightGBM
    ("eval_init_score", lambda n_rows, n_queries: [np.zeros(n_rows + 1)]),
])
def test_lightgbm_eval_parameters_of_the_wrong_length_raise(name, make):
    lgb = pytest.importorskip("lightgbm")
    (X, y, qid), (Xv, yv, qv) = letor_split()
    value = make(len(yv), len(np.unique(qv)))
    with pytest.raises(ValueError, match=rf"`{name}\[0\]` must hold one value per row \({len(yv)}\)\. "
                                         rf"Got {len(value[0])} values instead\.$"):
        _evaluator(lgb.LGBMRanker(n_estimators=2, verbose=-1)).fit(
            X, y, qid=qid, eval_set=[(Xv, yv)], eval_qid=[qv], **{name: value})


def test_xgbranker_eval_weights_of_the_wrong_length_raise():
    xgb = pytest.importorskip("xgboost")
    (X, y, qid), (Xv, yv, qv) = letor_split()
    with pytest.raises(ValueError, match=rf"`sample_weight_eval_set\[0\]` must hold one value per row "
                                         rf"\({len(yv)}\) or, for XGBRanker, one weight per query \(20\)\. "
                                         r"Got 7 values instead\.$"):
        _evaluator(xgb.XGBRanker(n_estimators=2)).fit(X, y, qid=qid, eval_set=[(Xv, yv)], eval_qid=[qv],
                                                      sample_weight_eval_set=[np.ones(7)], verbose=False)


@pytest.mark.parametrize("estimator", ["lightgbm", "xgboost"])
def test_evaluator_eval_set_with_labels_and_rows_of_different_lengths_raises(estimator):
    module = pytest.importorskip(estimator)
    ranker = module.LGBMRanker(verbose=-1) if estimator == "lightgbm" else module.XGBRanker()
    (X, y, qid), (Xv, yv, qv) = letor_split()
    with pytest.raises(ValueError, match=rf"`eval_set\[0\]` must hold one label per row of X \({len(yv) - 1} rows\)\. "
                                         rf"Got {len(yv)} labels instead\.$"):
        _evaluator(ranker).fit(X, y, qid=qid, eval_set=[(Xv[:-1], yv)], eval_qid=[qv[:-1]])


def test_evaluator_eval_parameter_lists_of_the_wrong_length_raise():
    lgb = pytest.importorskip("lightgbm")
    (X, y, qid), (Xv, yv, qv) = letor_split()
    with pytest.raises(ValueError, match=r"`eval_sample_weight` must be a list with one entry \(or None\) per "
                                         r"evaluation set \(1\)\. Got 2 entries instead\.$"):
        _evaluator(lgb.LGBMRanker(n_estimators=2, verbose=-1)).fit(
            X, y, qid=qid, eval_set=[(Xv, yv)], eval_qid=[qv], eval_sample_weight=[np.ones(len(yv))] * 2)


@pytest.mark.parametrize("value, got", [(2.0, "float 2.0"), (np.float64(2.0), r"float64 np.float64\(2.0\)|float64 2.0"),
                                        (np.ones(7), "7 values")])
def test_xgbranker_training_weights_that_are_neither_per_row_nor_per_query_raise(value, got):
    xgb = pytest.importorskip("xgboost")
    (X, y, qid), _ = letor_split()
    with pytest.raises(ValueError, match=rf"`sample_weight` must hold one value per row \({len(y)}\) or, for "
                                         rf"XGBRanker, one weight per query \(40\)\. Got ({got}) instead\.$"):
        _evaluator(xgb.XGBRanker(n_estimators=2)).fit(X, y, qid=qid, sample_weight=value)
