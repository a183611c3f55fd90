"""The sparse LETOR route through model selection, and sparse inputs of the metric functions (issue 21).

Item 14: a search of ``RankingEvaluator`` on the sparse X of an SVMlight file, with the query ids given to
``fit`` and metadata routing off, cannot score any fold (``score`` never gets the query ids), and
scikit-learn's default ``error_score=np.nan`` turned every failure into a warning and a NaN
``best_score_`` after all the training. The evaluator now refuses that ``fit`` before training, with a
message that names the fix; the routed search is checked against folds scored by hand.

Item 15: a scipy sparse ``y_true``, ``y_score`` or (matrix layouts) ``exclude`` is a ``TypeError`` that
names the parameter, says what came in and how to convert it.
"""

import lightgbm
import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, cross_val_score

from sklearn_rank import RankingEvaluator, evaluate
from sklearn_rank.datasets import dump_svmlight_ranking, load_svmlight_ranking, make_ranking
from sklearn_rank.metrics import compute_ranks, mean_reciprocal_rank, ndcg_score
from sklearn_rank.model_selection import QueryGroupKFold


class CountingRanker(lightgbm.LGBMRanker):
    """LGBMRanker that counts its trainings (a class attribute: searches fit clones)."""

    n_fits = 0

    def fit(self, X, y, **params):
        type(self).n_fits += 1
        return super().fit(X, y, **params)


@pytest.fixture
def letor(tmp_path):
    """A small SVMlight file written and read back by sklearn_rank.datasets: sparse X, y, qid."""
    X, y, qid = make_ranking(n_queries=30, n_candidates=(4, 12), n_features=6, random_state=0)
    X[np.abs(X) < 0.5] = 0.0
    path = tmp_path / "train.txt"
    dump_svmlight_ranking(X, y, qid, path)
    X_sparse, y_read, qid_read = load_svmlight_ranking(path, n_features=X.shape[1])
    assert sp.issparse(X_sparse)
    return X_sparse, y_read, qid_read


def tiny_ranker():
    return lightgbm.LGBMRanker(n_estimators=5, num_leaves=7, min_child_samples=2, verbose=-1, n_jobs=1)


GRID = {"estimator__learning_rate": [0.05, 0.2]}


# ------------------------------------------------------------------------------------------------
# Item 14: the trap
# ------------------------------------------------------------------------------------------------

def test_search_without_routing_fails_before_training_and_names_the_fix(letor):
    X, y, qid = letor
    CountingRanker.n_fits = 0
    search = GridSearchCV(RankingEvaluator(CountingRanker(n_estimators=5, verbose=-1)), GRID, cv=QueryGroupKFold(3))
    with pytest.raises(ValueError) as error:
        search.fit(X, y, groups=qid, qid=qid)
    message = str(error.value)
    # scikit-learn collects the failures of fit; every one is ours, and no ranker was trained.
    assert "All the 6 fits failed" in message
    assert CountingRanker.n_fits == 0
    for part in ("metadata routing off", "score would get no query ids",
                 "sklearn.config_context(enable_metadata_routing=True)", "search.fit(X, y, groups=qid, qid=qid)",
                 "set_fit_request(eval_X=True, eval_y=True", "eval_qid=[qid_valid]", "RankingEvaluator(..., qid=0)",
                 "X.toarray()", "Got qid passed to fit with routing off and X csr_matrix"):
        assert part in message, part


def test_the_error_is_raised_by_the_first_fit_with_error_score_raise(letor):
    X, y, qid = letor
    CountingRanker.n_fits = 0
    search = GridSearchCV(RankingEvaluator(CountingRanker(n_estimators=5, verbose=-1)), GRID, cv=QueryGroupKFold(3),
                          error_score="raise")
    with pytest.raises(ValueError, match=r"RankingEvaluator\.fit got query ids as `qid=` with metadata routing "
                                         r"off.*enable_metadata_routing=True"):
        search.fit(X, y, groups=qid, qid=qid)
    assert CountingRanker.n_fits == 0


def test_cross_val_score_without_routing_fails_the_same_way(letor):
    X, y, qid = letor
    with pytest.raises(ValueError, match=r"All the 3 fits failed(.|\n)*metadata routing off"):
        cross_val_score(RankingEvaluator(Ridge()), X, y, cv=QueryGroupKFold(3), groups=qid, params={"qid": qid})


def test_search_without_any_query_ids_fails_in_fit(letor):
    # No query ids at all, a regressor (which trains without them): score would fail in every fold.
    X, y, qid = letor
    search = GridSearchCV(RankingEvaluator(Ridge()), {"estimator__alpha": [0.1, 10.0]}, cv=QueryGroupKFold(3),
                          error_score="raise")
    with pytest.raises(ValueError, match=r"RankingEvaluator needs query ids to rank the rows of X.*Raised by fit, "
                                         r"before any training"):
        search.fit(X, y, groups=qid)


def test_standalone_fit_with_qid_then_score_with_qid_still_works(letor):
    # Outside a search the query ids of score come from its caller: fit(qid=...) is no error.
    X, y, qid = letor
    model = RankingEvaluator(tiny_ranker()).fit(X, y, qid=qid)
    expected = evaluate(y, model.estimator_.predict(X), qid=qid, metrics=["ndcg@10"]).summary["ndcg@10"]
    assert model.score(X, y, qid=qid) == pytest.approx(expected, abs=1e-12)


def test_a_search_with_its_own_scoring_is_left_alone(letor):
    # The search does not score with RankingEvaluator.score: the evaluator's fit has no reason to refuse.
    X, y, qid = letor
    search = GridSearchCV(RankingEvaluator(Ridge()), {"estimator__alpha": [0.1, 10.0]}, cv=QueryGroupKFold(3),
                          scoring="neg_mean_squared_error", error_score="raise")
    search.fit(X, y, groups=qid, qid=qid)
    assert np.isfinite(search.best_score_)


def test_label_index_classifier_without_query_ids_is_left_alone():
    # A classifier with 1-D y and no query ids ranks the classes: no query ids needed anywhere.
    from sklearn.datasets import load_iris
    from sklearn.model_selection import StratifiedKFold

    X, y = load_iris(return_X_y=True)
    scores = cross_val_score(RankingEvaluator(LogisticRegression(max_iter=500), metric="mrr"), X, y,
                             cv=StratifiedKFold(3), error_score="raise")
    assert np.all(np.isfinite(scores))


def test_dense_x_with_a_qid_column_needs_no_routing(letor):
    X, y, qid = letor
    X_dense = np.column_stack([qid, X.toarray()])
    search = GridSearchCV(RankingEvaluator(tiny_ranker(), qid=0), GRID, cv=QueryGroupKFold(3), error_score="raise")
    search.fit(X_dense, y, groups=qid)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


def test_routed_search_on_sparse_x_equals_folds_scored_by_hand(letor):
    X, y, qid = letor
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(RankingEvaluator(tiny_ranker()), GRID, cv=QueryGroupKFold(3), error_score="raise")
        search.fit(X, y, groups=qid, qid=qid)
    folds = list(QueryGroupKFold(3).split(X, y, groups=qid))
    for index, params in enumerate(search.cv_results_["params"]):
        for fold, (train, test) in enumerate(folds):
            # Oracle: the ranker fitted by hand on the fold's rows sorted by query, the metric by evaluate.
            order = np.argsort(qid[train], kind="stable")
            rows = train[order]
            ranker = tiny_ranker().set_params(learning_rate=params["estimator__learning_rate"])
            ranker.fit(X[rows], y[rows], group=np.unique(qid[rows], return_counts=True)[1])
            expected = evaluate(y[test], ranker.predict(X[test]), qid=qid[test], metrics=["ndcg@10"])
            assert search.cv_results_[f"split{fold}_test_score"][index] == pytest.approx(
                expected.summary["ndcg@10"], abs=1e-12)


def test_routed_search_with_lightgbm_early_stopping_on_sparse_x(letor):
    from sklearn_rank import lightgbm_metric

    X, y, qid = letor
    X_valid, y_valid, qid_valid = X[qid >= 20], y[qid >= 20], qid[qid >= 20]
    X, y, qid = X[qid < 20], y[qid < 20], qid[qid < 20]
    with sklearn.config_context(enable_metadata_routing=True):
        ranker = lightgbm.LGBMRanker(n_estimators=50, metric="None", min_child_samples=2, verbose=-1, n_jobs=1)
        ranker.set_fit_request(eval_X=True, eval_y=True, eval_metric=True, callbacks=True)
        search = GridSearchCV(RankingEvaluator(ranker, metric="mrr"), {"estimator__num_leaves": [3, 7]},
                              cv=QueryGroupKFold(3), error_score="raise")
        search.fit(X, y, groups=qid, qid=qid, eval_X=X_valid, eval_y=y_valid, eval_qid=[qid_valid],
                   eval_metric=lightgbm_metric("mrr"), callbacks=[lightgbm.early_stopping(3, verbose=False)])
    best = search.best_estimator_.estimator_
    history = best.evals_result_["valid_0"]["mrr"]
    assert best.best_iteration_ == int(np.argmax(history)) + 1
    # The recorded value is the metric of the held-out queries (rows already grouped by query).
    assert history[best.best_iteration_ - 1] == pytest.approx(
        evaluate(y_valid, best.predict(X_valid), qid=qid_valid, metrics=["mrr"]).summary["mrr"], abs=1e-12)


# ------------------------------------------------------------------------------------------------
# Item 15: sparse y_true, y_score, exclude
# ------------------------------------------------------------------------------------------------

Y_MATRIX = np.array([[1, 0, 0], [0, 1, 0]])
SCORES = np.array([[0.9, 0.1, 0.2], [0.3, 0.2, 0.1]])


@pytest.mark.parametrize("function", [
    lambda y_true, y_score: evaluate(y_true, y_score, metrics=["mrr", "ndcg", "mr"]).summary,
    mean_reciprocal_rank, ndcg_score, lambda y_true, y_score: compute_ranks(y_true, y_score).realistic.tolist(),
])
@pytest.mark.parametrize("container", [sp.csr_matrix, sp.csc_array, sp.coo_matrix])
def test_sparse_relevance_matrix_equals_the_dense_one(function, container):
    # refused until issue 23 ("sparse relevance matrices are planned"): now the stored non-zeros are the
    # relevant items, whatever the format
    assert function(container(Y_MATRIX), SCORES) == function(Y_MATRIX, SCORES)


@pytest.mark.parametrize("y_true", [Y_MATRIX, np.array([0, 1])])
def test_sparse_y_score_is_a_type_error_that_says_what_to_do(y_true):
    with pytest.raises(TypeError, match=r"`y_score` must be a dense array.*y_score\.toarray\(\).*Got a scipy "
                                        r"sparse csr_matrix \(format 'csr'\) of shape \(2, 3\) instead"):
        evaluate(y_true, sp.csr_matrix(SCORES), metrics=["mrr"])


def test_sparse_y_true_of_grouped_rows_says_what_to_do():
    with pytest.raises(TypeError, match=r"`y_true` must be a dense array.*y_true\.toarray\(\).*Got a scipy sparse "
                                        r"csr_matrix \(format 'csr'\) of shape \(1, 4\) instead"):
        evaluate(sp.csr_matrix(np.array([[1, 0, 0, 1]])), np.ones(4), qid=[0, 0, 1, 1], metrics=["mrr"])


def test_sparse_exclude_in_relevance_matrix_layout_equals_the_dense_mask():
    # refused until issue 23; a sparse filter (e.g. a training interaction matrix) is now taken as it is
    exclude = sp.csr_matrix(np.array([[0, 0, 1], [0, 0, 0]]))
    sparse = evaluate(Y_MATRIX, SCORES, metrics=["mrr"], exclude=exclude)
    dense = evaluate(Y_MATRIX, SCORES, metrics=["mrr"], exclude=exclude.toarray().astype(bool))
    # Oracle: query 0 has its relevant item first (rr 1); query 1's relevant item is second (rr 1/2).
    assert dense.summary["mrr"] == pytest.approx(0.75)
    assert sparse.summary == dense.summary


@pytest.mark.parametrize("container", [sp.csr_matrix, sp.coo_matrix, sp.csr_array])
def test_sparse_exclude_in_label_index_layout_still_works(container):
    labels = [0, 1, 2]
    y_true = np.array([0, 2])
    exclude = np.array([[False, True, False], [True, False, False]])
    dense = evaluate(y_true, SCORES, labels=labels, metrics=["mrr"], exclude=exclude)
    sparse = evaluate(y_true, SCORES, labels=labels, metrics=["mrr"], exclude=container(exclude.astype(int)))
    # Oracle by hand: row 0 ranks class 0 first (rr 1); row 1 without class 0 ranks 1 (0.2) above 2 (0.1): rr 1/2.
    assert dense.summary["mrr"] == pytest.approx(0.75)
    assert sparse.summary["mrr"] == pytest.approx(dense.summary["mrr"])


def test_sparse_y_in_the_evaluator_says_what_to_do():
    X = np.arange(12.0).reshape(6, 2)
    y = np.array([1, 0, 0, 0, 1, 0])
    qid = np.array([0, 0, 0, 1, 1, 1])
    model = RankingEvaluator(Ridge(), qid=None).fit(X, y, qid=qid)
    with pytest.raises(TypeError, match=r"`y` must be a dense array.*y\.toarray\(\).*Got a scipy sparse "
                                        r"csr_matrix \(format 'csr'\) of shape \(6, 1\) instead"):
        model.score(X, sp.csr_matrix(y.reshape(-1, 1)), qid=qid)
