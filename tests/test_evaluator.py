"""RankingEvaluator: stripping the query-id column, forwarding queries to rankers, delegation, routing."""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn import clone, config_context
from sklearn.base import BaseEstimator, RegressorMixin, is_classifier, is_regressor
from sklearn.datasets import make_multilabel_classification
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.metrics import label_ranking_average_precision_score
from sklearn.model_selection import GroupKFold, cross_validate
from sklearn.multiclass import OneVsRestClassifier

from sklearn_rank import RankingReport, evaluate
from sklearn_rank._evaluator import RankingEvaluator

ATOL = 1e-12


def grouped_data(seed=0, n_queries=9):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 8, n_queries)
    qid = np.repeat(np.arange(n_queries) * 7 + 3, sizes)
    y = rng.integers(0, 4, qid.size)
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        if not (y[rows] > 0).any():
            y[rows[-1]] = 1
    X = np.column_stack([y + rng.normal(scale=2.0, size=qid.size), rng.normal(size=(qid.size, 2))])
    order = rng.permutation(qid.size)
    return X[order], y[order], qid[order]


def frame_of(X, qid):
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame.insert(1, "qid", qid)
    return frame


def oracle_mrr(scores, relevance, qid):
    values = []
    for q in np.unique(qid):
        rows = qid == q
        ranking = np.argsort(-scores[rows])
        values.append(1.0 / (np.flatnonzero(relevance[rows][ranking] > 0)[0] + 1))
    return float(np.mean(values))


# --------------------------------------------------------------------------------------
# the query-id column
# --------------------------------------------------------------------------------------


def test_qid_column_is_stripped_and_read():
    X, y, qid = grouped_data()
    frame = frame_of(X, qid)
    model = RankingEvaluator(LinearRegression(), metric="mrr").fit(frame, y)
    assert list(model.feature_names_in_) == ["x0", "qid", "x1", "x2"] and model.n_features_in_ == 4
    assert list(model.estimator_.feature_names_in_) == ["x0", "x1", "x2"]
    reference = LinearRegression().fit(X, y)
    np.testing.assert_allclose(model.predict(frame), reference.predict(X), rtol=0, atol=1e-10)
    assert model.score(frame, y) == pytest.approx(oracle_mrr(reference.predict(X), y, qid), abs=1e-10)


def test_qid_column_index_of_an_array():
    X, y, qid = grouped_data(seed=1)
    stacked = np.column_stack([X, qid])
    model = RankingEvaluator(LinearRegression(), metric="mrr", qid=-1).fit(stacked, y)
    assert model.estimator_.n_features_in_ == 3 and model.n_features_in_ == 4
    reference = LinearRegression().fit(X, y)
    assert model.score(stacked, y) == pytest.approx(oracle_mrr(reference.predict(X), y, qid), abs=1e-10)


@pytest.mark.parametrize("position", [0, 1, 3])
@pytest.mark.parametrize("container", ["array", "frame"])
def test_qid_column_at_any_position(position, container):
    # First and last columns are dropped with a slice, the others with a list: same results.
    import pandas as pd

    X, y, qid = grouped_data(seed=4)
    stacked = np.insert(X, position, qid, axis=1)
    names = [f"x{i}" for i in range(X.shape[1])]
    names.insert(position, "qid")
    data = pd.DataFrame(stacked, columns=names) if container == "frame" else stacked
    spec = "qid" if container == "frame" else position
    model = RankingEvaluator(LinearRegression(), metric="mrr", qid=spec).fit(data, y)
    reference = LinearRegression().fit(X, y)
    np.testing.assert_allclose(model.predict(data), reference.predict(X), rtol=0, atol=1e-10)
    assert model.score(data, y) == pytest.approx(oracle_mrr(reference.predict(X), y, qid), abs=1e-10)
    assert stacked[0, position] == qid[0]  # the input is not modified


def test_columns_other_than_those_seen_in_fit_raise_scikit_learns_error():
    X, y, qid = grouped_data(seed=5)
    frame = frame_of(X, qid)
    model = RankingEvaluator(LinearRegression(), metric="mrr").fit(frame, y)
    renamed = frame.rename(columns={"x1": "other"})
    with pytest.raises(ValueError, match="feature names should match"):
        model.score(renamed, y)
    with pytest.raises(ValueError, match="feature names should match"):
        model.score(frame[list(reversed(frame.columns))], y)
    with pytest.raises(ValueError, match="feature names should match"):
        model.score(frame.drop(columns="x2"), y)


def test_qid_argument_wins_over_the_column():
    X, y, qid = grouped_data(seed=2)
    frame = frame_of(X, qid)
    model = RankingEvaluator(LinearRegression(), metric="mrr").fit(frame, y)
    other = np.arange(y.size) // 3
    scores = LinearRegression().fit(X, y).predict(X)
    # Other query ids that reuse two of the fitted ids: those look split between fit and score.
    with pytest.warns(UserWarning, match="2 of the 14 queries scored also had rows in fit"):
        value = model.score(frame, y, qid=other)
    assert value == pytest.approx(oracle_mrr(scores, y, other), abs=1e-10)


def test_missing_query_ids_raise_naming_both_routes_and_qid_none():
    X, y, _ = grouped_data(seed=3)
    model = RankingEvaluator(LinearRegression()).fit(X, y)  # fitting a regressor needs no query ids
    with pytest.raises(ValueError) as info:
        model.score(X, y)
    message = str(info.value)
    assert "enable_metadata_routing=True" in message and "column" in message and "qid=None" in message


def test_qid_none_treats_the_rows_as_one_query_by_explicit_choice():
    X, y, qid = grouped_data(seed=4)
    model = RankingEvaluator(LinearRegression(), metric="ndcg", qid=None).fit(X, y)
    scores = LinearRegression().fit(X, y).predict(X)
    one_query = evaluate(y, scores, metrics=["ndcg"]).summary["ndcg"]
    per_query = evaluate(y, scores, qid=qid, metrics=["ndcg"]).summary["ndcg"]
    assert one_query != pytest.approx(per_query)
    assert model.score(X, y) == pytest.approx(one_query, abs=ATOL)
    assert model.score(X, y, qid=qid) == pytest.approx(per_query, abs=ATOL)


# --------------------------------------------------------------------------------------
# score and evaluate
# --------------------------------------------------------------------------------------


def test_lower_is_better_score_is_negated_and_evaluate_is_not():
    X, y, qid = grouped_data(seed=5)
    frame = frame_of(X, qid)
    model = RankingEvaluator(Ridge(), metric="mean_rank", ties="optimistic").fit(frame, y)
    scores = Ridge().fit(X, y).predict(X)
    mean_rank = evaluate(y, scores, qid=qid, metrics=["mr"], ties="optimistic").summary["mr"]
    assert model.score(frame, y) == pytest.approx(-mean_rank, abs=1e-10)
    report = model.evaluate(frame, y)
    assert isinstance(report, RankingReport)
    assert list(report.summary) == ["mr", "mrr", "map", "ndcg@10"]
    assert report.summary["mr"] == pytest.approx(mean_rank, abs=1e-10)
    assert report.params["ties"] == "optimistic"
    assert list(model.evaluate(frame, y, metrics=["p@2"]).summary) == ["p@2"]


def test_score_with_sample_weight():
    X, y, qid = grouped_data(seed=6)
    model = RankingEvaluator(LinearRegression(), metric="mrr", qid=None).fit(X, y)
    queries = np.unique(qid)
    weight = np.arange(1, queries.size + 1, dtype=float)
    sample_weight = weight[np.searchsorted(queries, qid)]
    scores = model.predict(X)
    per_query = [oracle_mrr(scores[qid == q], y[qid == q], qid[qid == q]) for q in queries]
    expected = np.dot(per_query, weight) / weight.sum()
    assert model.score(X, y, qid=qid, sample_weight=sample_weight) == pytest.approx(expected, abs=ATOL)


def test_classifier_ranks_its_classes():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(120, 4))
    y = np.array(["low", "mid", "high"])[np.digitize(X[:, 0] + rng.normal(scale=0.5, size=120), [-0.5, 0.5])]
    model = RankingEvaluator(LogisticRegression(), metric="mrr").fit(X, y)  # no query ids needed
    scores = model.decision_function(X)
    true_score = scores[np.arange(120), np.searchsorted(model.classes_, y)]
    expected = np.mean(1.0 / (1 + (scores > true_score[:, None]).sum(axis=1)))
    assert model.score(X, y) == pytest.approx(expected, abs=ATOL)
    np.testing.assert_array_equal(model.classes_, ["high", "low", "mid"])


def test_multilabel_through_the_evaluator():
    X, Y = make_multilabel_classification(n_samples=60, n_features=6, n_classes=4, allow_unlabeled=False,
                                          random_state=0)
    model = RankingEvaluator(OneVsRestClassifier(LogisticRegression(max_iter=1000)), metric="map").fit(X, Y)
    expected = label_ranking_average_precision_score(Y, model.decision_function(X))
    assert model.score(X, Y) == pytest.approx(expected, abs=ATOL)


# --------------------------------------------------------------------------------------
# delegation, tags, params
# --------------------------------------------------------------------------------------


def test_methods_are_delegated_only_when_the_estimator_has_them():
    assert not hasattr(RankingEvaluator(Ridge()), "predict_proba")
    assert not hasattr(RankingEvaluator(Ridge()), "decision_function")
    assert hasattr(RankingEvaluator(LogisticRegression()), "predict_proba")
    assert hasattr(RankingEvaluator(LogisticRegression()), "decision_function")
    assert not hasattr(RankingEvaluator(LogisticRegression()), "classes_")  # not fitted yet
    X, y, qid = grouped_data(seed=8)
    frame = frame_of(X, qid)
    labels = (y > 1).astype(int)
    model = RankingEvaluator(LogisticRegression()).fit(frame, labels)
    reference = LogisticRegression().fit(X, labels)
    for method in ["predict", "predict_proba", "predict_log_proba", "decision_function"]:
        np.testing.assert_allclose(getattr(model, method)(frame), getattr(reference, method)(X), atol=1e-10)


def test_estimator_type_and_nested_params_pass_through():
    assert is_classifier(RankingEvaluator(LogisticRegression()))
    assert is_regressor(RankingEvaluator(Ridge()))
    model = RankingEvaluator(Ridge(alpha=2.0))
    assert model.get_params()["estimator__alpha"] == 2.0
    model.set_params(estimator__alpha=5.0, ties="realistic")
    assert model.estimator.alpha == 5.0 and clone(model).get_params()["ties"] == "realistic"


def test_tags_of_the_wrapped_estimator():
    get_tags = pytest.importorskip("sklearn.utils").__dict__.get("get_tags")
    if get_tags is None:  # pragma: no cover - scikit-learn < 1.6
        pytest.skip("estimator tags as dataclasses from scikit-learn 1.6 on")
    from sklearn.ensemble import HistGradientBoostingRegressor

    assert get_tags(RankingEvaluator(HistGradientBoostingRegressor())).input_tags.allow_nan
    assert not get_tags(RankingEvaluator(Ridge())).input_tags.allow_nan
    assert get_tags(RankingEvaluator(LogisticRegression())).classifier_tags is not None


def test_fitted_evaluator_pickles():
    X, y, qid = grouped_data(seed=9)
    frame = frame_of(X, qid)
    model = RankingEvaluator(Ridge(), metric="ndcg@3").fit(frame, y)
    restored = pickle.loads(pickle.dumps(model))
    assert restored.score(frame, y) == model.score(frame, y)


@pytest.mark.parametrize("params, error, message", [
    ({"metric": "ndcg@x"}, ValueError, "positive integer"),
    ({"metric": "nope"}, ValueError, "Unknown metric"),
    ({"ties": "random"}, ValueError, "`ties` must be one of"),
    ({"qid": 2.5}, TypeError, "`qid` must be the name"),
    ({"qid": 9}, ValueError, "must lie in"),
])
def test_invalid_parameters_raise_in_fit(params, error, message):
    X, y, _ = grouped_data(seed=10)
    with pytest.raises(error, match=message):
        RankingEvaluator(Ridge(), **params).fit(X, y)


# --------------------------------------------------------------------------------------
# rankers: query information forwarded, rows sorted by query
# --------------------------------------------------------------------------------------


class GroupRanker(RegressorMixin, BaseEstimator):
    """Records what fit received (a LightGBM-like signature)."""

    def fit(self, X, y, sample_weight=None, group=None):
        self.X_, self.y_, self.sample_weight_, self.group_ = np.asarray(X), np.asarray(y), sample_weight, group
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0]


class QidRanker(RegressorMixin, BaseEstimator):
    """Records what fit received (an XGBoost-like signature)."""

    def fit(self, X, y, group=None, qid=None, sample_weight=None):
        self.X_, self.y_, self.qid_, self.group_, self.sample_weight_ = np.asarray(X), np.asarray(y), qid, group, \
            sample_weight
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0]


def test_group_ranker_gets_rows_sorted_by_query_and_group_sizes():
    X, y, qid = grouped_data(seed=11)
    frame = frame_of(X, qid)
    weight = np.arange(y.size, dtype=float)
    model = RankingEvaluator(GroupRanker()).fit(frame, y, sample_weight=weight)
    order = np.argsort(qid, kind="stable")
    fitted = model.estimator_
    np.testing.assert_array_equal(fitted.X_, X[order])
    np.testing.assert_array_equal(fitted.y_, y[order])
    np.testing.assert_array_equal(fitted.sample_weight_, weight[order])
    np.testing.assert_array_equal(fitted.group_, np.unique(qid, return_counts=True)[1])


def test_qid_ranker_gets_sorted_query_codes():
    X, y, qid = grouped_data(seed=12)
    labels = np.array([f"q{q:03d}" for q in qid])  # string query ids
    model = RankingEvaluator(QidRanker(), qid=None).fit(X, y, qid=labels)
    order = np.argsort(labels, kind="stable")
    fitted = model.estimator_
    assert fitted.group_ is None
    np.testing.assert_array_equal(fitted.X_, X[order])
    assert np.all(np.diff(fitted.qid_) >= 0)
    np.testing.assert_array_equal(np.unique(fitted.qid_, return_counts=True)[1],
                                  np.unique(labels, return_counts=True)[1])


def test_ranker_without_query_ids_raises_unless_qid_none():
    X, y, _ = grouped_data(seed=13)
    with pytest.raises(ValueError, match="needs query ids"):
        RankingEvaluator(GroupRanker()).fit(X, y)
    single = RankingEvaluator(GroupRanker(), qid=None).fit(X, y)
    np.testing.assert_array_equal(single.estimator_.group_, [y.size])


def test_ranker_query_arguments_in_fit_params_are_refused():
    X, y, qid = grouped_data(seed=14)
    with pytest.raises(ValueError, match="passes the query information"):
        RankingEvaluator(GroupRanker()).fit(frame_of(X, qid), y, group=[y.size])


# --------------------------------------------------------------------------------------
# metadata routing
# --------------------------------------------------------------------------------------


def test_routing_qid_reaches_fit_and_score_and_sample_weight_reaches_the_estimator():
    X, y, qid = grouped_data(seed=15)
    weight = np.linspace(0.5, 2.0, y.size)
    cv = GroupKFold(n_splits=3)
    with config_context(enable_metadata_routing=True):
        inner = Ridge().set_fit_request(sample_weight=True)
        ranker = RankingEvaluator(GroupRanker(), qid=None)
        ranker.fit(X, y, qid=qid)
        np.testing.assert_array_equal(ranker.estimator_.group_, np.unique(qid, return_counts=True)[1])
        # Per-row weights are for the regressor; the metric takes one weight per query, so it declines them.
        evaluator = RankingEvaluator(inner, metric="mrr", qid=None).set_score_request(sample_weight=False)
        result = cross_validate(evaluator, X, y, cv=cv, params={"groups": qid, "qid": qid, "sample_weight": weight})
    expected = []
    for train, test in cv.split(X, y, groups=qid):
        reference = Ridge().fit(X[train], y[train], sample_weight=weight[train])
        expected.append(oracle_mrr(reference.predict(X[test]), y[test], qid[test]))
    np.testing.assert_allclose(result["test_score"], expected, rtol=0, atol=1e-10)


def test_routing_aliases_for_the_evaluator():
    X, y, qid = grouped_data(seed=16)
    with config_context(enable_metadata_routing=True):
        model = RankingEvaluator(GroupRanker(), metric="mrr", qid=None)
        model.set_fit_request(qid="query").set_score_request(qid="query")
        requests = model.get_metadata_routing()
        assert requests.consumes("fit", ["query"]) == {"query"}
        cross = cross_validate(model, X, y, cv=GroupKFold(3), params={"groups": qid, "query": qid})
    assert np.all(np.isfinite(cross["test_score"]))
    assert cross["test_score"] == pytest.approx(
        [oracle_mrr(X[test, 0], y[test], qid[test]) for _, test in GroupKFold(3).split(X, y, groups=qid)])


def test_fit_params_go_straight_to_the_estimator_without_routing():
    X, y, qid = grouped_data(seed=17)
    weight = np.linspace(0.5, 2.0, y.size)
    model = RankingEvaluator(Ridge()).fit(frame_of(X, qid), y, sample_weight=weight)
    np.testing.assert_allclose(model.estimator_.coef_, Ridge().fit(X, y, sample_weight=weight).coef_, atol=1e-10)


def test_routed_qid_and_qid_column_give_the_same_ranker_scores():
    # XGBRanker.fit takes `qid` itself, unrequested: the evaluator consumes the routed ids and forwards them.
    xgboost = pytest.importorskip("xgboost")
    X, y, qid = grouped_data(seed=18, n_queries=12)
    ranker = xgboost.XGBRanker(n_estimators=4, max_depth=2, n_jobs=1, random_state=0)
    cv = GroupKFold(n_splits=3)
    by_column = cross_validate(RankingEvaluator(ranker), frame_of(X, qid), y, cv=cv, groups=qid)["test_score"]
    with config_context(enable_metadata_routing=True):
        routed = cross_validate(RankingEvaluator(ranker, qid=None), X, y, cv=cv,
                                params={"groups": qid, "qid": qid})["test_score"]
    np.testing.assert_allclose(routed, by_column, rtol=0, atol=1e-12)


# --------------------------------------------------------------------------------------
# binary classifiers with query ids (issue 11, item 2)
# --------------------------------------------------------------------------------------


def test_binary_classifier_with_a_qid_column_reads_relevance_as_the_positive_class():
    X, y, qid = grouped_data(seed=19, n_queries=12)
    labels = np.where(y >= 2, 2, 1)  # classes {1, 2}: names, not grades
    model = RankingEvaluator(LogisticRegression(), metric="mrr").fit(frame_of(X, qid), labels)
    reference = LogisticRegression().fit(X, labels)
    relevance = (labels == 2).astype(int)
    has_relevant = np.isin(qid, qid[relevance > 0])
    expected = oracle_mrr(reference.decision_function(X)[has_relevant], relevance[has_relevant], qid[has_relevant])
    assert model.score(frame_of(X, qid), labels) == pytest.approx(expected, abs=1e-10)
    assert expected < 1.0


# --------------------------------------------------------------------------------------
# query ids in fit and score (issue 11, items 3, 4 and 17)
# --------------------------------------------------------------------------------------


def _queries_seen_in_fit(qid, train, test):
    """Independent count: the test queries that also have training rows."""
    return np.intersect1d(qid[train], qid[test]).size, np.unique(qid[test]).size


def test_score_without_query_ids_after_fit_with_them_warns():
    # Item 3: qid=None, query ids given to fit only (as cross_val_score(params=...) does without
    # routing): score() ranks all rows as one query, and now says so.
    X, y, qid = grouped_data(seed=20)
    model = RankingEvaluator(Ridge(), metric="ndcg", qid=None).fit(X, y, qid=qid)
    scores = Ridge().fit(X, y).predict(X)
    with pytest.warns(UserWarning, match=r"score got no query ids, although fit got them \(9 queries\): all "
                                         rf"{y.size} rows are scored as one single query.*score\(X, y, qid=\.\.\.\)"
                                         r".*enable_metadata_routing=True.*query-id column"):
        value = model.score(X, y)
    from sklearn.metrics import ndcg_score

    assert value == pytest.approx(ndcg_score([y], [scores]), abs=ATOL)  # the one-query value, as before
    # Without routing, cross_val_score's params= reach fit only: every fold warns.
    from sklearn.model_selection import cross_val_score

    with pytest.warns(UserWarning, match="score got no query ids, although fit got them") as record:
        cross_val_score(RankingEvaluator(Ridge(), qid=None), X, y, cv=GroupKFold(3), groups=qid,
                        params={"qid": qid})
    assert sum("although fit got them" in str(w.message) for w in record) == 3


def test_query_ids_in_fit_and_score_alike_do_not_warn():
    import warnings

    X, y, qid = grouped_data(seed=21)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = RankingEvaluator(Ridge(), metric="mrr", qid=None).fit(X, y, qid=qid)
        model.score(X, y, qid=qid)  # the training rows themselves: no query is split
        with config_context(enable_metadata_routing=True):
            cross_validate(RankingEvaluator(Ridge(), qid=None), X, y, cv=GroupKFold(3),
                           params={"groups": qid, "qid": qid}, return_train_score=True)
        from sklearn_rank.model_selection import QueryGroupKFold

        cross_validate(RankingEvaluator(Ridge(), qid="qid"), frame_of(X, qid), y, cv=QueryGroupKFold(3),
                       return_train_score=True)
        RankingEvaluator(Ridge(), qid=None).fit(X, y).score(X, y)  # one query, by choice, throughout


@pytest.mark.parametrize("splitter", ["KFold", "ShuffleSplit"])
def test_queries_split_between_fit_and_score_warn_with_their_count(splitter):
    # Item 4: a splitter that ignores queries puts rows of one query in training and test.
    from sklearn.model_selection import KFold, ShuffleSplit

    X, y, qid = grouped_data(seed=22, n_queries=15)
    frame = frame_of(X, qid)
    cv = KFold(3, shuffle=True, random_state=0) if splitter == "KFold" else ShuffleSplit(3, random_state=0)
    for train, test in cv.split(frame):
        n_split, n_test_queries = _queries_seen_in_fit(qid, train, test)
        assert n_split > 0
        model = RankingEvaluator(Ridge(), metric="mrr").fit(frame.iloc[train], y[train])
        with pytest.warns(UserWarning, match=rf"^{n_split} of the {n_test_queries} queries scored also had rows in "
                                             r"fit.*sklearn_rank\.model_selection\.QueryGroupKFold") as record:
            model.score(frame.iloc[test], y[test])
        assert len([w for w in record if "also had rows in fit" in str(w.message)]) == 1


def test_queries_split_by_cross_val_score_with_kfold_warn():
    from sklearn.model_selection import KFold, cross_val_score

    X, y, qid = grouped_data(seed=23)
    cv = KFold(3)
    with pytest.warns(UserWarning, match="also had rows in fit") as record:
        cross_val_score(RankingEvaluator(Ridge(), qid=0), np.column_stack([qid, X]), y, cv=cv)
    counts = sorted(int(str(w.message).split(" of the ")[0]) for w in record
                    if "also had rows in fit" in str(w.message))
    assert counts == sorted(_queries_seen_in_fit(qid, train, test)[0] for train, test in cv.split(X))


@pytest.mark.parametrize("ranker", ["lightgbm", "xgboost", "GroupRanker", "Ridge"])
@pytest.mark.parametrize("missing", ["nan", "none"])
def test_fit_refuses_missing_query_ids(ranker, missing):
    # Item 17: LGBMRanker used to train with NaN query ids (each NaN its own group).
    X, y, qid = grouped_data(seed=24)
    if ranker == "lightgbm":
        estimator = pytest.importorskip("lightgbm").LGBMRanker(n_estimators=3, verbose=-1)
    elif ranker == "xgboost":
        estimator = pytest.importorskip("xgboost").XGBRanker(n_estimators=3)
    else:
        estimator = GroupRanker() if ranker == "GroupRanker" else Ridge()
    if missing == "nan":
        bad = qid.astype(float)
        bad[[2, 5]] = np.nan
        message = r"`qid` must not contain NaN\. Got 2 NaN query ids instead"
    else:
        bad = qid.astype(object)
        bad[4] = None
        message = r"`qid` must not contain None or NaN"
    with pytest.raises(ValueError, match=message):
        RankingEvaluator(estimator, qid=None).fit(X, y, qid=bad)
    frame = frame_of(X, qid)
    frame["qid"] = bad
    with pytest.raises(ValueError, match=message):
        RankingEvaluator(estimator).fit(frame, y)


def test_fit_refuses_query_ids_of_the_wrong_length():
    X, y, qid = grouped_data(seed=25)
    with pytest.raises(ValueError, match=rf"`qid` must be 1-D with one query id per row \({y.size}\)"):
        RankingEvaluator(GroupRanker(), qid=None).fit(X, y, qid=qid[:-1])


# --------------------------------------------------------------------------------------
# evaluation sets (early stopping of LightGBM and XGBoost)
# --------------------------------------------------------------------------------------

EVAL_NO_RELEVANT = [52, 57]


def letor_frames(seed=0):
    """LETOR-like training and evaluation frames with a qid column: 3 to 20 documents per query, graded
    relevance, evaluation queries without a relevant document, evaluation rows shuffled."""
    from sklearn_rank.datasets import make_ranking

    frame, y, qid = make_ranking(n_queries=80, n_candidates=(3, 20), noise=2.0, random_state=seed, as_frame=True)
    y = y.where(~frame["qid"].isin(EVAL_NO_RELEVANT), 0)
    train = frame["qid"] < 50
    eval_frame = frame[~train].sample(frac=1.0, random_state=seed)
    return frame[train], y[train], eval_frame, y.loc[eval_frame.index]


def engine_ndcg_oracle(y, scores, qid, k):
    """LightGBM's and XGBoost's ndcg@k, one query at a time: gain 2**rel - 1, ties in row order (the rows as
    the engine holds them), a query without a relevant document scores 1."""
    values = []
    for query in np.unique(qid):
        rows = np.flatnonzero(qid == query)
        gains = 2.0 ** np.asarray(y)[rows] - 1
        discounts = 1 / np.log2(np.arange(2, len(rows) + 2))
        ideal = (np.sort(gains)[::-1][:k] * discounts[:k]).sum()
        order = np.argsort(-np.asarray(scores)[rows], kind="stable")
        values.append(1.0 if ideal == 0 else (gains[order][:k] * discounts[:k]).sum() / ideal)
    return float(np.mean(values))


def spy_class(base, query_argument):
    """A subclass of an engine's ranker that records the fit parameters it receives."""
    if query_argument == "group":
        def fit(self, X, y, group=None, **params):
            self.seen_ = dict(params, X=X, group=group)
            return base.fit(self, X, y, group=group, **params)
    else:
        def fit(self, X, y, qid=None, **params):
            self.seen_ = dict(params, X=X, qid=qid)
            return base.fit(self, X, y, qid=qid, **params)
    return type(f"Spy{base.__name__}", (base,), {"fit": fit})


@pytest.mark.filterwarnings("ignore:The argument 'eval_set' is deprecated")
@pytest.mark.parametrize("route", ["column", "keyword"])
def test_lgbm_ranker_early_stops_on_eval_set_through_the_evaluator(route):
    lightgbm = pytest.importorskip("lightgbm")
    X, y, X_eval, y_eval = letor_frames(seed=0)
    eval_qid = X_eval["qid"].to_numpy()
    ranker = spy_class(lightgbm.LGBMRanker, "group")(n_estimators=300, learning_rate=0.3, verbose=-1, n_jobs=1)
    callbacks = [lightgbm.early_stopping(5, verbose=False)]
    if route == "column":
        model = RankingEvaluator(ranker).fit(X, y, eval_set=[(X_eval, y_eval)], eval_at=[5], callbacks=callbacks)
    elif hasattr(lightgbm.sklearn, "_validate_eval_set_Xy"):  # LightGBM >= 4.7: eval_X and eval_y
        # arrays without a qid column, query ids as keywords
        model = RankingEvaluator(ranker).fit(X.drop(columns="qid").to_numpy(), y.to_numpy(), qid=X["qid"].to_numpy(),
                                             eval_X=(X_eval.drop(columns="qid").to_numpy(),),
                                             eval_y=(y_eval.to_numpy(),), eval_qid=[eval_qid], eval_at=[5],
                                             callbacks=callbacks)
    else:
        model = RankingEvaluator(ranker).fit(X.drop(columns="qid").to_numpy(), y.to_numpy(), qid=X["qid"].to_numpy(),
                                             eval_set=[(X_eval.drop(columns="qid").to_numpy(), y_eval.to_numpy())],
                                             eval_qid=[eval_qid], eval_at=[5], callbacks=callbacks)
    fitted = model.estimator_
    assert fitted.best_iteration_ < 300
    # The ranker got the evaluation rows sorted stably by query, without the qid column, and their group sizes.
    order = np.argsort(eval_qid, kind="stable")
    if "eval_set" in fitted.seen_:
        (X_seen, y_seen), = fitted.seen_["eval_set"]
    else:
        (X_seen,), (y_seen,) = fitted.seen_["eval_X"], fitted.seen_["eval_y"]
    features = X_eval.drop(columns="qid").iloc[order]
    if route == "keyword":
        features = features.to_numpy()
    np.testing.assert_array_equal(np.asarray(X_seen), np.asarray(features))
    np.testing.assert_array_equal(np.asarray(y_seen), y_eval.to_numpy()[order])
    np.testing.assert_array_equal(fitted.seen_["eval_group"][0], np.unique(eval_qid, return_counts=True)[1])
    # LightGBM's recorded ndcg@5 is the oracle's on the predictions of each iteration.
    recorded = fitted.evals_result_["valid_0"]["ndcg@5"]
    assert fitted.best_iteration_ == int(np.argmax(recorded)) + 1
    for iteration in range(1, fitted.best_iteration_ + 1):  # the model keeps the trees up to the best one
        scores = fitted.predict(features, num_iteration=iteration)
        assert recorded[iteration - 1] == pytest.approx(
            engine_ndcg_oracle(y_eval.to_numpy()[order], scores, eval_qid[order], 5), rel=1e-9)


@pytest.mark.parametrize("route", ["column", "keyword"])
def test_xgb_ranker_early_stops_on_eval_set_through_the_evaluator(route):
    xgboost = pytest.importorskip("xgboost")
    X, y, X_eval, y_eval = letor_frames(seed=1)
    eval_qid = X_eval["qid"].to_numpy()
    ranker = spy_class(xgboost.XGBRanker, "qid")(n_estimators=300, learning_rate=0.3, eval_metric="ndcg@5",
                                                 early_stopping_rounds=5, n_jobs=1)
    if route == "column":
        model = RankingEvaluator(ranker).fit(X, y, eval_set=[(X_eval, y_eval)], verbose=False)
    else:
        model = RankingEvaluator(ranker).fit(X.drop(columns="qid"), y, qid=X["qid"].to_numpy(),
                                             eval_set=[(X_eval.drop(columns="qid"), y_eval)], eval_qid=[eval_qid],
                                             verbose=False)
    fitted = model.estimator_
    assert fitted.best_iteration + 1 < 300
    order = np.argsort(eval_qid, kind="stable")
    (X_seen, _), = fitted.seen_["eval_set"]
    assert list(X_seen.columns) == [f"f{i}" for i in range(10)]
    np.testing.assert_array_equal(fitted.seen_["eval_qid"][0],
                                  np.unique(eval_qid, return_inverse=True)[1].reshape(-1)[order])
    recorded = fitted.evals_result()["validation_0"]["ndcg@5"]
    assert fitted.best_iteration == int(np.argmax(recorded))
    features = X_eval.drop(columns="qid").iloc[order]
    for iteration in (1, fitted.best_iteration + 1, len(recorded)):
        scores = fitted.predict(features, iteration_range=(0, iteration))
        # XGBoost's evaluation log holds 6 decimals.
        assert recorded[iteration - 1] == pytest.approx(
            engine_ndcg_oracle(y_eval.to_numpy()[order], scores, eval_qid[order], 5), abs=5.1e-7)


@pytest.mark.filterwarnings("ignore:The argument 'eval_set' is deprecated")
def test_per_eval_set_lists_follow_the_sorted_rows():
    lightgbm = pytest.importorskip("lightgbm")
    X, y, X_eval, y_eval = letor_frames(seed=2)
    init_score = np.random.RandomState(0).standard_normal(len(y_eval))  # one score per (shuffled) row
    ranker = lightgbm.LGBMRanker(n_estimators=1, learning_rate=1e-300, verbose=-1, n_jobs=1)
    model = RankingEvaluator(ranker).fit(X, y, eval_set=[(X_eval, y_eval)], eval_init_score=[init_score],
                                         eval_at=[3])
    # With a vanishing learning rate the recorded ndcg@3 is that of the initial scores, which must have
    # followed their rows when the evaluator sorted them.
    order = np.argsort(X_eval["qid"].to_numpy(), kind="stable")
    expected = engine_ndcg_oracle(y_eval.to_numpy()[order], init_score[order], X_eval["qid"].to_numpy()[order], 3)
    assert model.estimator_.evals_result_["valid_0"]["ndcg@3"][0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.filterwarnings("ignore:The argument 'eval_set' is deprecated")
def test_regressor_eval_set_loses_the_qid_column_and_gets_no_groups():
    lightgbm = pytest.importorskip("lightgbm")
    X, y, X_eval, y_eval = letor_frames(seed=3)
    regressor = lightgbm.LGBMRegressor(n_estimators=200, learning_rate=0.3, verbose=-1, n_jobs=1)
    model = RankingEvaluator(regressor).fit(X, y, eval_set=[(X_eval, y_eval)],
                                            callbacks=[lightgbm.early_stopping(5, verbose=False)])
    assert model.estimator_.n_features_in_ == 10 and model.estimator_.best_iteration_ < 200
    # Rows keep their order: the recorded l2 is that of the predictions on the rows as given.
    scores = model.predict(X_eval)
    best = model.estimator_.best_iteration_
    assert model.estimator_.evals_result_["valid_0"]["l2"][best - 1] == pytest.approx(
        np.mean((y_eval.to_numpy() - scores) ** 2), rel=1e-6)


def test_eval_set_preparation_for_a_recording_ranker():
    X, y, qid = grouped_data(seed=31)
    X_eval, y_eval, qid_eval = grouped_data(seed=32)
    shuffle = np.random.RandomState(0).permutation(len(y_eval))
    X_eval, y_eval, qid_eval = X_eval[shuffle], y_eval[shuffle], qid_eval[shuffle]
    weight = np.arange(len(y_eval), dtype=float)

    class EvalGroupRanker(GroupRanker):
        def fit(self, X, y, group=None, eval_set=None, eval_group=None, eval_sample_weight=None, eval_names=None):
            self.eval_set_, self.eval_group_, self.eval_sample_weight_ = eval_set, eval_group, eval_sample_weight
            self.eval_names_ = eval_names
            return super().fit(X, y, group=group)

    model = RankingEvaluator(EvalGroupRanker(), qid=0).fit(
        np.column_stack([qid, X]), y, eval_set=[(np.column_stack([qid_eval, X_eval]), y_eval)],
        eval_sample_weight=[weight], eval_names=["valid"])
    order = np.argsort(qid_eval, kind="stable")
    fitted = model.estimator_
    np.testing.assert_array_equal(fitted.eval_set_[0][0], X_eval[order])
    np.testing.assert_array_equal(fitted.eval_set_[0][1], y_eval[order])
    np.testing.assert_array_equal(fitted.eval_sample_weight_[0], weight[order])
    np.testing.assert_array_equal(fitted.eval_group_[0], np.unique(qid_eval, return_counts=True)[1])
    assert fitted.eval_names_ == ["valid"]


@pytest.mark.parametrize("estimator, params, error, message", [
    ("group", {"eval_set": [("X", "y")]}, ValueError, r"query ids of eval_set\[0\].*Got neither instead"),
    ("group", {"eval_set": [("X", "y")], "eval_qid": []}, ValueError, r"one array .* per item of eval_set \(1\). "
                                                                    "Got 0 instead"),
    ("group", {"eval_qid": [None]}, ValueError, "Got eval_qid without evaluation sets instead"),
    ("ridge", {"eval_set": [("X", "y")], "eval_qid": ["q"]}, ValueError, "Ridge.fit takes no query information"),
    ("group", {"eval_set": [("X", "y")], "eval_group": [[3]]}, ValueError, "Got fit parameter 'eval_group'"),
    ("group", {"eval_set": 5}, TypeError, r"list of \(X, y\) pairs. Got int 5 instead"),
    ("group", {"eval_set": [("X", "y")], "eval_qid": ["q"]}, ValueError, r"eval_set\[0\].*one query id per row"),
])
def test_invalid_evaluation_sets_raise(estimator, params, error, message):
    X, y, qid = grouped_data(seed=33)
    X_eval, y_eval, qid_eval = grouped_data(seed=34)
    substitutes = {"X": X_eval, "y": y_eval, "q": qid_eval[:-1]}

    def substitute(value):
        if isinstance(value, str):
            return substitutes.get(value, value)
        if isinstance(value, tuple):
            return tuple(substitute(v) for v in value)
        if isinstance(value, list):
            return [substitute(v) for v in value]
        return value

    params = {key: substitute(value) for key, value in params.items()}

    class EvalRidge(Ridge):
        def fit(self, X, y, eval_set=None):
            return super().fit(X, y)

    class EvalGroupRanker(GroupRanker):
        def fit(self, X, y, group=None, eval_set=None, eval_group=None):
            return super().fit(X, y, group=group)

    inner = EvalGroupRanker() if estimator == "group" else EvalRidge()
    with pytest.raises(error, match=message):
        RankingEvaluator(inner).fit(X, y, qid=qid, **params)


class EvalGroupRecorder(GroupRanker):
    """Records the evaluation sets and groups that fit receives (a LightGBM-like signature)."""

    def fit(self, X, y, sample_weight=None, group=None, eval_set=None, eval_group=None):
        self.eval_set_, self.eval_group_ = eval_set, eval_group
        return super().fit(X, y, sample_weight=sample_weight, group=group)


def test_routing_sends_eval_set_to_the_ranker_and_eval_qid_to_the_evaluator():
    X, y, qid = grouped_data(seed=35)
    X_eval, y_eval, qid_eval = grouped_data(seed=36)
    shuffle = np.random.RandomState(1).permutation(len(y_eval))
    X_eval, y_eval, qid_eval = X_eval[shuffle], y_eval[shuffle], qid_eval[shuffle]
    with config_context(enable_metadata_routing=True):
        ranker = EvalGroupRecorder().set_fit_request(eval_set=True, sample_weight=False)
        model = RankingEvaluator(ranker, qid=None).fit(X, y, qid=qid, eval_set=[(X_eval, y_eval)],
                                                       eval_qid=[qid_eval])
    order = np.argsort(qid_eval, kind="stable")
    np.testing.assert_array_equal(model.estimator_.eval_set_[0][0], X_eval[order])
    np.testing.assert_array_equal(model.estimator_.eval_group_[0], np.unique(qid_eval, return_counts=True)[1])


def test_a_ranker_without_eval_group_gets_none():
    X, y, qid = grouped_data(seed=37)

    class EvalSetOnly(GroupRanker):
        def fit(self, X, y, group=None, eval_set=None):
            self.eval_set_ = eval_set
            return super().fit(X, y, group=group)

    model = RankingEvaluator(EvalSetOnly(), qid=0).fit(np.column_stack([qid, X]), y,
                                                        eval_set=[(np.column_stack([qid, X]), y)])
    np.testing.assert_array_equal(model.estimator_.eval_set_[0][0], X[np.argsort(qid, kind="stable")])
