"""Scorers: names, repr, pickling, layouts read from the estimator and y, query ids, routing.

Expected values come from independent computations written here (ranks counted
by hand, scikit-learn's label_ranking_average_precision_score) or, where the
test is about how the scorer assembles its inputs, from :func:`sklearn_rank.evaluate`
called on inputs assembled by hand.
"""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn import config_context
from sklearn.datasets import make_classification, make_multilabel_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import label_ranking_average_precision_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.naive_bayes import GaussianNB

from sklearn_rank import evaluate
from sklearn_rank._scorer import RankingScorer, get_scorer, make_ranking_scorer, make_scorers

ATOL = 1e-12


def grouped_data(seed=0, n_queries=8):
    """Rows of several queries (interleaved), distinct scores, at least one relevant row per query."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 7, n_queries)
    qid = np.repeat(np.arange(n_queries) * 10 + 5, sizes)
    y = rng.integers(0, 3, qid.size)
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        if not (y[rows] > 0).any():
            y[rows[0]] = 2
    X = np.column_stack([y + rng.normal(scale=1.5, size=qid.size), rng.normal(size=qid.size)])
    order = rng.permutation(qid.size)
    return X[order], y[order], qid[order]


def oracle_mrr(scores, relevance, qid):
    """Reciprocal rank of the best-scored relevant row per query, averaged (distinct scores)."""
    values = []
    for q in np.unique(qid):
        rows = qid == q
        ranking = np.argsort(-scores[rows])
        first = np.flatnonzero(relevance[rows][ranking] > 0)[0]
        values.append(1.0 / (first + 1))
    return float(np.mean(values))


def oracle_mean_rank(scores, relevance, qid):
    ranks = []
    for q in np.unique(qid):
        rows = qid == q
        ranking = np.argsort(-scores[rows])
        ranks.append(np.flatnonzero(relevance[rows][ranking] > 0)[0] + 1)
    return float(np.mean(ranks))


# --------------------------------------------------------------------------------------
# names, repr, equality, pickling
# --------------------------------------------------------------------------------------


def test_lower_is_better_metrics_are_negated_and_named_neg():
    assert get_scorer("mr") == get_scorer("neg_mean_rank") == get_scorer("Mean-Rank")
    assert get_scorer("mr").name == "neg_mr"
    assert get_scorer("mr").greater_is_better is False
    assert get_scorer("mrr").name == "mrr"
    assert get_scorer("mean_reciprocal_rank") == get_scorer("mrr")
    assert make_ranking_scorer("ndcg", k=5) == get_scorer("NDCG@5")
    assert get_scorer("mrr") != get_scorer("mrr", ties="realistic")


def test_negated_value_matches_a_rank_counted_by_hand():
    X, y, qid = grouped_data()
    model = LinearRegression().fit(X, y)
    value = get_scorer("neg_mean_rank")(model, X, y, qid=qid)
    assert value == pytest.approx(-oracle_mean_rank(model.predict(X), y, qid), abs=ATOL)
    assert get_scorer("mrr")(model, X, y, qid=qid) == pytest.approx(oracle_mrr(model.predict(X), y, qid), abs=ATOL)


@pytest.mark.parametrize("name, message", [
    ("neg_mrr", "higher-is-better"),
    ("mrrr", "Unknown metric"),
    ("ndcg@0", "positive integer"),
])
def test_bad_names_raise(name, message):
    with pytest.raises(ValueError, match=message):
        get_scorer(name)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"tie": "expected"}, TypeError, "Unknown metric parameter"),
    ({"ties": "random"}, ValueError, "`ties` must be one of"),
    ({"gain": "quadratic"}, ValueError, "`gain` must be one of"),
    ({"relevance_level": 0}, ValueError, "relevance_level"),
    ({"qid": 1.5}, TypeError, "`qid` must be the name"),
    ({"qid": True}, TypeError, "`qid` must be the name"),
    ({"k": 0}, ValueError, "`k` must be a positive integer"),
])
def test_bad_parameters_raise_at_construction(kwargs, error, message):
    with pytest.raises(error, match=message):
        make_ranking_scorer("ndcg", **kwargs)


def test_repr_is_readable_and_round_trips():
    scorer = make_ranking_scorer("mean_rank", qid=0, ties="realistic")
    assert repr(scorer) == "make_ranking_scorer('neg_mr', qid=0, ties='realistic')"
    assert repr(get_scorer("ndcg@10")) == "make_ranking_scorer('ndcg@10')"
    assert eval(repr(scorer)) == scorer  # noqa: S307 - a repr written to be evaluated
    assert repr(make_ranking_scorer("mrr", ties="expected")) == "make_ranking_scorer('mrr')"


def test_scorer_pickles_with_its_requests():
    X, y, qid = grouped_data(seed=1)
    model = LinearRegression().fit(X, y)
    scorer = make_ranking_scorer("ndcg@3", gain="exponential")
    clone = pickle.loads(pickle.dumps(scorer))
    assert clone == scorer
    assert clone(model, X, y, qid=qid) == scorer(model, X, y, qid=qid)
    with config_context(enable_metadata_routing=True):
        aliased = pickle.loads(pickle.dumps(make_ranking_scorer("mrr").set_score_request(qid="query")))
        assert aliased.get_metadata_routing().score.requests["qid"] == "query"


def test_get_scorer_returns_a_scorer_unchanged_and_rejects_other_types():
    scorer = make_ranking_scorer("map")
    assert get_scorer(scorer) is scorer
    with pytest.raises(TypeError, match="Parameters apply to scorer names"):
        get_scorer(scorer, ties="realistic")
    with pytest.raises(TypeError, match="must be a metric name"):
        get_scorer(3)


def test_make_scorers_keys_are_the_names_as_given():
    scorers = make_scorers(["MRR", "ndcg@10", "neg_mean_rank", "mr"], ties="optimistic")
    assert list(scorers) == ["MRR", "ndcg@10", "neg_mean_rank", "mr"]
    assert scorers["neg_mean_rank"] == scorers["mr"]
    assert all(isinstance(s, RankingScorer) and s.params == {"ties": "optimistic"} for s in scorers.values())
    assert list(make_scorers("mrr")) == ["mrr"]
    with pytest.raises(ValueError, match="unique"):
        make_scorers(["mrr", "mrr"])
    with pytest.raises(ValueError, match="at least one"):
        make_scorers([])
    with pytest.raises(TypeError, match="hold strings"):
        make_scorers(["mrr", 3])


# --------------------------------------------------------------------------------------
# grouped rows: where the query ids come from
# --------------------------------------------------------------------------------------


def test_qid_from_a_dataframe_column_by_name_or_index():
    X, y, qid = grouped_data(seed=2)
    frame = pd.DataFrame({"a": X[:, 0], "qid": qid, "b": X[:, 1]})
    model = LinearRegression().fit(X, y)

    class DropQid:  # scores the frame without its qid column, like a pipeline would
        def predict(self, frame):
            return model.predict(frame[["a", "b"]].to_numpy())

    expected = oracle_mrr(model.predict(X), y, qid)
    assert make_ranking_scorer("mrr")(DropQid(), frame, y) == pytest.approx(expected, abs=ATOL)
    assert make_ranking_scorer("mrr", qid=1)(DropQid(), frame, y) == pytest.approx(expected, abs=ATOL)
    assert make_ranking_scorer("mrr", qid=-2)(DropQid(), frame, y) == pytest.approx(expected, abs=ATOL)


def test_qid_from_an_array_column_index_and_routed_qid_wins():
    X, y, qid = grouped_data(seed=3)
    stacked = np.column_stack([X[:, 0], qid, X[:, 1]])
    model = LinearRegression().fit(stacked, y)
    scores = model.predict(stacked)
    scorer = make_ranking_scorer("mrr", qid=1)
    assert scorer(model, stacked, y) == pytest.approx(oracle_mrr(scores, y, qid), abs=ATOL)
    assert scorer(model, stacked.tolist(), y) == pytest.approx(oracle_mrr(scores, y, qid), abs=ATOL)
    other_qid = np.arange(y.size) // 4
    assert scorer(model, stacked, y, qid=other_qid) == pytest.approx(oracle_mrr(scores, y, other_qid), abs=ATOL)


@pytest.mark.parametrize("make_X, qid_spec", [
    (lambda X: X, "qid"),
    (lambda X: pd.DataFrame(X, columns=["a", "b"]), "qid"),
    (lambda X: X, None),
])
def test_rows_without_query_ids_raise_naming_both_routes(make_X, qid_spec):
    X, y, _ = grouped_data(seed=4)
    model = LinearRegression().fit(X, y)
    with pytest.raises(ValueError) as info:
        make_ranking_scorer("mrr", qid=qid_spec)(model, make_X(X), y)
    message = str(info.value)
    assert "enable_metadata_routing=True" in message and "column" in message and "Got " in message


def test_qid_column_index_out_of_range_raises():
    X, y, _ = grouped_data(seed=4)
    model = LinearRegression().fit(X, y)
    with pytest.raises(ValueError, match=r"must lie in \[-2, 1\]"):
        make_ranking_scorer("mrr", qid=2)(model, X, y)


def test_sample_weight_is_one_weight_per_query():
    X, y, qid = grouped_data(seed=5)
    model = LinearRegression().fit(X, y)
    queries = np.unique(qid)
    weight_of_query = np.linspace(1.0, 3.0, queries.size)
    sample_weight = weight_of_query[np.searchsorted(queries, qid)]
    scores = model.predict(X)
    per_query = [oracle_mrr(scores[qid == q], y[qid == q], qid[qid == q]) for q in queries]
    expected = np.dot(per_query, weight_of_query) / weight_of_query.sum()
    value = make_ranking_scorer("mrr")(model, X, y, qid=qid, sample_weight=sample_weight)
    assert value == pytest.approx(expected, abs=ATOL)
    assert make_ranking_scorer("mrr")._accept_sample_weight()


# --------------------------------------------------------------------------------------
# classifiers: label-index layout in classes_ order
# --------------------------------------------------------------------------------------


def _true_class_mrr(scores, y, classes):
    true_column = np.searchsorted(classes, y)
    true_score = scores[np.arange(len(y)), true_column]
    return float(np.mean(1.0 / (1 + (scores > true_score[:, None]).sum(axis=1))))


def test_multiclass_uses_decision_function_in_classes_order_when_a_class_is_missing():
    X, y = make_classification(n_samples=200, n_features=6, n_informative=4, n_classes=4, random_state=0)
    labels = np.array(["ant", "bee", "cat", "dog"])[y]
    model = LogisticRegression(max_iter=1000).fit(X[:150], labels[:150])
    test = np.flatnonzero(labels[150:] != "cat") + 150  # the test rows lack one class
    scores = model.decision_function(X[test])
    value = make_ranking_scorer("mrr")(model, X[test], labels[test])
    assert value == pytest.approx(_true_class_mrr(scores, labels[test], model.classes_), abs=ATOL)


def test_classifier_without_decision_function_uses_predict_proba():
    X, y = make_classification(n_samples=120, n_features=5, n_informative=3, n_classes=3, random_state=1)
    model = GaussianNB().fit(X, y)
    proba = model.predict_proba(X)
    assert make_ranking_scorer("mrr")(model, X, y) == pytest.approx(_true_class_mrr(proba, y, model.classes_),
                                                                     abs=ATOL)


def test_binary_decision_function_ranks_the_two_classes():
    X, y = make_classification(n_samples=100, n_features=4, random_state=2)
    model = LogisticRegression().fit(X, y)
    correct = model.predict(X) == y
    # Rank 1 when the predicted class is the true one, else rank 2.
    expected = float(np.mean(np.where(correct, 1.0, 0.5)))
    assert make_ranking_scorer("mrr")(model, X, y) == pytest.approx(expected, abs=ATOL)
    assert make_ranking_scorer("hits@1")(model, X, y) == pytest.approx(correct.mean(), abs=ATOL)


def test_unseen_class_label_raises():
    X, y = make_classification(n_samples=60, n_features=4, n_classes=2, random_state=3)
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="did not see in fit"):
        make_ranking_scorer("mrr")(model, X, np.where(y == 1, 7, y))


def test_binary_classifier_with_query_ids_ranks_rows_by_the_positive_class():
    X, y, qid = grouped_data(seed=6)
    relevant = (y > 0).astype(int)
    model = LogisticRegression().fit(X, relevant)
    value = make_ranking_scorer("mrr")(model, X, relevant, qid=qid)
    assert value == pytest.approx(oracle_mrr(model.decision_function(X), relevant, qid), abs=ATOL)


def test_graded_classifier_with_query_ids_ranks_by_expected_grade():
    X, y, qid = grouped_data(seed=7)
    model = LogisticRegression(max_iter=1000).fit(X, y)
    expected_grade = model.predict_proba(X) @ model.classes_
    value = make_ranking_scorer("mrr")(model, X, y, qid=qid)
    assert value == pytest.approx(oracle_mrr(expected_grade, y, qid), abs=ATOL)


@pytest.mark.parametrize("negative, positive", [(1, 2), ("no", "yes"), (-1, 1)])
def test_binary_classifier_with_query_ids_reads_relevance_as_the_positive_class(negative, positive):
    # Issue 11, item 2: classes {1, 2} are names, not grades: relevance is y == classes_[1].
    # (Before, every row with label 1 or 2 counted as relevant and MRR was 1.0 whatever the model.)
    X, y, qid = grouped_data(seed=9, n_queries=12)
    labels = np.where(y == 2, positive, negative)  # one row in three or so is of the positive class
    model = LogisticRegression().fit(X, labels)
    assert model.classes_[1] == positive
    relevance = (labels == positive).astype(int)
    has_relevant = np.isin(qid, qid[relevance > 0])  # queries without a positive row are skipped
    expected = oracle_mrr(model.decision_function(X)[has_relevant], relevance[has_relevant], qid[has_relevant])
    value = make_ranking_scorer("mrr")(model, X, labels, qid=qid)
    assert value == pytest.approx(expected, abs=ATOL)
    assert value < 1.0
    # A model that ranks backwards is rated so: the metric depends on the model.
    flipped = LogisticRegression().fit(-X, labels)
    assert make_ranking_scorer("mrr")(flipped, X, labels, qid=qid) < value


def test_binary_classifier_with_query_ids_refuses_labels_that_are_not_its_classes():
    # Graded relevance scored against a classifier fitted on binarised labels: which grade is the
    # positive class is ambiguous, so the scorer refuses rather than guess.
    X, y, qid = grouped_data(seed=10)
    model = LogisticRegression().fit(X, (y > 0).astype(int))
    with pytest.raises(ValueError, match=r"y == classes_\[1\].*Got \[2\] in y instead"):
        make_ranking_scorer("mrr")(model, X, y, qid=qid)
    with pytest.raises(ValueError, match="`relevance_level` applies to graded relevance.*Got relevance_level=1"):
        make_ranking_scorer("mrr", relevance_level=1)(model, X, (y > 0).astype(int), qid=qid)


def _iris():
    from sklearn.datasets import load_iris

    return load_iris(return_X_y=True)


@pytest.mark.filterwarnings("ignore:The `probability` parameter was deprecated:FutureWarning")
def test_one_vs_one_decision_function_is_not_read_as_class_scores():
    # Issue 11, item 7: SVC(decision_function_shape="ovo") gives one column per pair of classes; with
    # 3 classes that is 3 columns, which used to be read as the scores of the 3 classes.
    from sklearn.svm import SVC

    X, y = _iris()
    ovo = SVC(decision_function_shape="ovo").fit(X, y)
    assert ovo.decision_function(X).shape == (150, 3)
    with pytest.raises(ValueError, match="one-vs-one.*Got 3 one-vs-one columns for 3 classes instead"):
        make_ranking_scorer("mrr")(ovo, X, y)
    # With probabilities, they rank the classes.
    ovo_proba = SVC(decision_function_shape="ovo", probability=True, random_state=0).fit(X, y)
    expected = _true_class_mrr(ovo_proba.predict_proba(X), y, ovo_proba.classes_)
    assert make_ranking_scorer("mrr")(ovo_proba, X, y) == pytest.approx(expected, abs=ATOL)
    from sklearn.calibration import CalibratedClassifierCV

    calibrated = CalibratedClassifierCV(SVC(decision_function_shape="ovo")).fit(X, y)
    expected = _true_class_mrr(calibrated.predict_proba(X), y, calibrated.classes_)
    assert make_ranking_scorer("mrr")(calibrated, X, y) == pytest.approx(expected, abs=ATOL)
    # The default one-vs-rest shape is a score per class, used as it is.
    ovr = SVC().fit(X, y)
    expected = _true_class_mrr(ovr.decision_function(X), y, ovr.classes_)
    assert make_ranking_scorer("mrr")(ovr, X, y) == pytest.approx(expected, abs=ATOL)


def test_one_vs_one_is_detected_in_a_pipeline_and_by_its_column_count():
    from sklearn.datasets import load_digits
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    X, y = _iris()
    pipeline = make_pipeline(StandardScaler(), SVC(decision_function_shape="ovo")).fit(X, y)
    with pytest.raises(ValueError, match="one-vs-one"):
        make_ranking_scorer("mrr")(pipeline, X, y)
    X, y = load_digits(n_class=4, return_X_y=True)
    ovo = SVC(decision_function_shape="ovo").fit(X, y)
    assert ovo.decision_function(X).shape[1] == 6  # 4 classes, 6 pairs
    with pytest.raises(ValueError, match="Got 6 one-vs-one columns for 4 classes instead"):
        make_ranking_scorer("mrr")(ovo, X, y)


# --------------------------------------------------------------------------------------
# multilabel: relevance-matrix layout
# --------------------------------------------------------------------------------------


def test_multilabel_decision_function_matches_label_ranking_average_precision():
    X, Y = make_multilabel_classification(n_samples=80, n_features=8, n_classes=5, allow_unlabeled=False,
                                          random_state=0)
    model = OneVsRestClassifier(LogisticRegression(max_iter=1000)).fit(X, Y)
    expected = label_ranking_average_precision_score(Y, model.decision_function(X))
    assert make_ranking_scorer("map")(model, X, Y) == pytest.approx(expected, abs=ATOL)


def test_multilabel_predict_proba_list_takes_the_positive_column_of_each_label():
    X, Y = make_multilabel_classification(n_samples=80, n_features=8, n_classes=4, allow_unlabeled=False,
                                          random_state=1)
    Y_train = Y.copy()
    Y_train[:, 3] = 0  # label 3 never set in training: its classes_ is [0]
    model = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, Y_train)
    proba = model.predict_proba(X)
    assert isinstance(proba, list) and proba[3].shape[1] == 1
    by_hand = np.column_stack([p[:, list(c).index(1)] if 1 in c else np.zeros(len(X))
                               for p, c in zip(proba, model.classes_)])
    for metric in ["map", "ndcg@3", "mrr"]:
        expected = evaluate(Y, by_hand, metrics=[metric]).summary[metric]
        assert make_ranking_scorer(metric)(model, X, Y) == pytest.approx(expected, abs=ATOL)


def test_multilabel_with_query_ids_raises():
    X, Y = make_multilabel_classification(n_samples=30, n_classes=3, random_state=2)
    model = OneVsRestClassifier(LogisticRegression()).fit(X, Y)
    with pytest.raises(ValueError, match="relevance matrix"):
        make_ranking_scorer("map")(model, X, Y, qid=np.arange(30))


# --------------------------------------------------------------------------------------
# metadata routing
# --------------------------------------------------------------------------------------


def test_scorer_requests_qid_by_default_and_sample_weight_on_demand():
    with config_context(enable_metadata_routing=True):
        scorer = make_ranking_scorer("mrr")
        requests = scorer.get_metadata_routing().score.requests
        assert requests["qid"] is True and requests["sample_weight"] is None
        scorer.set_score_request(sample_weight=True, qid=False)
        requests = scorer.get_metadata_routing().score.requests
        assert requests["qid"] is False and requests["sample_weight"] is True
    with pytest.raises(RuntimeError, match="enable_metadata_routing"):
        make_ranking_scorer("mrr").set_score_request(qid=True)


def test_multimetric_scorer_of_scikit_learn_calls_every_scorer():
    # What _MultimetricScorer expects of a scorer: scorer(estimator, X, y, **metadata), _accept_sample_weight()
    # and, with routing, get_metadata_routing(). check_scoring builds one from a dict (scikit-learn >= 1.5).
    from sklearn.metrics import check_scoring

    X, y, qid = grouped_data(seed=8)
    model = LinearRegression().fit(X, y)
    scoring = {**make_scorers(["mrr", "mr"]), "r2": "r2"}
    try:
        multimetric = check_scoring(model, scoring=scoring)
    except (ValueError, TypeError):  # pragma: no cover - scikit-learn 1.4
        pytest.skip("check_scoring takes a dict from scikit-learn 1.5 on")
    stacked = np.column_stack([qid, X])
    with config_context(enable_metadata_routing=True):
        scores = multimetric(_Columns(model), stacked, y, qid=qid)
    assert scores["mrr"] == pytest.approx(oracle_mrr(model.predict(X), y, qid), abs=ATOL)
    assert scores["mr"] == pytest.approx(-oracle_mean_rank(model.predict(X), y, qid), abs=ATOL)


class _Columns:
    """A fitted regressor that ignores the first column of its input (the query ids)."""

    def __init__(self, model):
        self.model = model

    def predict(self, X):
        return self.model.predict(np.asarray(X)[:, 1:])

    def __sklearn_tags__(self):
        return self.model.__sklearn_tags__()

    _estimator_type = "regressor"
