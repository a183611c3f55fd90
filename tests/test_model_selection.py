"""QueryGroupKFold: whole queries per fold, query ids from groups or the qid column, determinism."""

import numpy as np
import pandas as pd
import pytest
from sklearn import config_context
from sklearn.linear_model import Ridge
from sklearn.model_selection import cross_val_score, cross_validate

from sklearn_rank._evaluator import RankingEvaluator
from sklearn_rank._scorer import make_ranking_scorer
from sklearn_rank.model_selection import QueryGroupKFold


def random_queries(seed, n_queries=None):
    rng = np.random.default_rng(seed)
    n_queries = n_queries or int(rng.integers(5, 40))
    sizes = rng.integers(1, 15, n_queries)
    qid = rng.permutation(np.repeat(rng.choice(10_000, n_queries, replace=False), sizes))
    return qid


def folds_of(splitter, X=None, groups=None):
    n_rows = len(groups) if groups is not None else len(X)
    return list(splitter.split(np.zeros((n_rows, 1)) if X is None else X, groups=groups))


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("shuffle", [False, True])
def test_every_query_is_tested_once_and_never_split(seed, shuffle):
    qid = random_queries(seed)
    n_splits = min(5, np.unique(qid).size)
    splitter = QueryGroupKFold(n_splits, shuffle=shuffle, random_state=seed if shuffle else None)
    folds = folds_of(splitter, groups=qid)
    assert len(folds) == n_splits == splitter.get_n_splits()
    tested = np.concatenate([test for _, test in folds])
    np.testing.assert_array_equal(np.sort(tested), np.arange(qid.size))  # each row tested exactly once
    for train, test in folds:
        assert test.size > 0
        np.testing.assert_array_equal(np.sort(np.concatenate([train, test])), np.arange(qid.size))
        assert not set(qid[train]) & set(qid[test])  # no query on both sides
        assert np.all(np.diff(train) > 0) and np.all(np.diff(test) > 0)


@pytest.mark.parametrize("seed", range(20))
def test_folds_are_balanced_by_rows(seed):
    qid = random_queries(seed, n_queries=30)
    sizes = np.unique(qid, return_counts=True)[1]
    rows_per_fold = [test.size for _, test in folds_of(QueryGroupKFold(4), groups=qid)]
    # Dealing queries largest first in snake order keeps folds within one query of each other.
    assert max(rows_per_fold) - min(rows_per_fold) <= sizes.max()


def test_query_ids_from_groups_a_column_name_or_a_column_index_agree():
    qid = random_queries(0, n_queries=12)
    frame = pd.DataFrame({"feature": np.arange(qid.size), "qid": qid})
    stacked = np.column_stack([np.arange(qid.size), qid])
    from_groups = folds_of(QueryGroupKFold(3), groups=qid)
    from_name = folds_of(QueryGroupKFold(3), X=frame)
    from_index = folds_of(QueryGroupKFold(3, qid=1), X=stacked)
    from_list = folds_of(QueryGroupKFold(3, qid=1), X=stacked.tolist())
    for other in (from_name, from_index, from_list):
        for (train_a, test_a), (train_b, test_b) in zip(from_groups, other):
            np.testing.assert_array_equal(test_a, test_b)
            np.testing.assert_array_equal(train_a, train_b)


def test_groups_win_over_the_column():
    qid = random_queries(1, n_queries=10)
    frame = pd.DataFrame({"qid": np.zeros(qid.size)})  # a column with a single query
    folds = folds_of(QueryGroupKFold(3), X=frame, groups=qid)
    assert len(folds) == 3


def test_without_shuffle_the_split_depends_only_on_the_queries():
    qid = random_queries(2, n_queries=15)
    permutation = np.random.default_rng(0).permutation(qid.size)
    fold_a = {q: fold for fold, (_, test) in enumerate(folds_of(QueryGroupKFold(4), groups=qid))
              for q in qid[test]}
    fold_b = {q: fold for fold, (_, test) in enumerate(folds_of(QueryGroupKFold(4), groups=qid[permutation]))
              for q in qid[permutation][test]}
    assert fold_a == fold_b


def test_shuffle_is_reproducible_and_seeded():
    qid = random_queries(3, n_queries=20)

    def assignment(random_state):
        splitter = QueryGroupKFold(4, shuffle=True, random_state=random_state)
        return [tuple(test) for _, test in folds_of(splitter, groups=qid)]

    assert assignment(0) == assignment(0)
    assert assignment(np.random.RandomState(5)) == assignment(np.random.RandomState(5))
    assert len({tuple(assignment(seed)) for seed in range(5)}) > 1
    unshuffled = [tuple(test) for _, test in folds_of(QueryGroupKFold(4), groups=qid)]
    assert unshuffled == [tuple(test) for _, test in folds_of(QueryGroupKFold(4), groups=qid)]


@pytest.mark.parametrize("kwargs, error, message", [
    ({"n_splits": 1}, ValueError, "at least 2"),
    ({"n_splits": 2.0}, TypeError, "must be an integer"),
    ({"n_splits": 3, "random_state": 0}, ValueError, "no effect unless shuffle=True"),
    ({"n_splits": 3, "shuffle": "yes"}, TypeError, "`shuffle` must be True or False"),
    ({"n_splits": 3, "qid": 1.0}, TypeError, "`qid` must be the name"),
    ({"n_splits": 9}, ValueError, "must not exceed the number of queries"),
])
def test_invalid_parameters_raise(kwargs, error, message):
    with pytest.raises(error, match=message):
        folds_of(QueryGroupKFold(**kwargs), groups=np.repeat(np.arange(4), 3))


def test_missing_query_ids_raise_naming_both_routes():
    with pytest.raises(ValueError, match="groups=qid.*query-id column"):
        folds_of(QueryGroupKFold(2), X=np.zeros((6, 2)))
    with pytest.raises(ValueError, match="one entry per row"):
        list(QueryGroupKFold(2).split(np.zeros((6, 2)), groups=np.arange(5)))


@pytest.mark.parametrize("groups, error, message", [
    # Rows without a query id are no query: before, all NaN rows were dealt to one fold as one query.
    (np.array([1.0, 1.0, np.nan, 2.0, 2.0, np.nan, 3.0, 3.0]), ValueError, "`qid` must not contain NaN"),
    (np.array(["a", "a", None, "b", "b", "c", "c", "c"], dtype=object), ValueError, "must not contain None"),
    (np.array([1, 1, "b", "b", 2, 2, "c", "c"], dtype=object), TypeError, "mutually comparable"),
])
def test_missing_or_incomparable_query_ids_are_refused_as_the_engine_does(groups, error, message):
    with pytest.raises(error, match=message):
        folds_of(QueryGroupKFold(2), groups=groups)
    # the same ids in the query-id column of X
    X = pd.DataFrame({"qid": groups, "feature": np.arange(len(groups), dtype=float)})
    with pytest.raises(error, match=message):
        list(QueryGroupKFold(2).split(X))


def test_repr():
    assert repr(QueryGroupKFold(3, qid=0)) == "QueryGroupKFold(n_splits=3, qid=0, random_state=None, shuffle=False)"


def test_cross_val_score_reads_the_column_and_routing_reads_groups():
    rng = np.random.default_rng(4)
    qid = random_queries(4, n_queries=12)
    X = rng.normal(size=(qid.size, 3))
    y = (X[:, 0] + rng.normal(size=qid.size) > 0.5).astype(int)
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(qid=qid)
    by_column = cross_val_score(RankingEvaluator(Ridge(), metric="ndcg"), frame, y, cv=QueryGroupKFold(3))
    with config_context(enable_metadata_routing=True):
        routed = cross_validate(Ridge(), X, y, cv=QueryGroupKFold(3), scoring=make_ranking_scorer("ndcg"),
                                params={"groups": qid, "qid": qid})["test_score"]
    np.testing.assert_allclose(by_column, routed, rtol=0, atol=1e-12)
    assert QueryGroupKFold().get_metadata_routing().split.requests["groups"] is True


def _svmlight_ranking(tmp_path, seed=5, n_queries=10):
    """X, y, qid as load_svmlight_file returns them: X is a scipy CSR matrix."""
    from sklearn.datasets import dump_svmlight_file, load_svmlight_file

    rng = np.random.default_rng(seed)
    qid = np.sort(random_queries(seed, n_queries=n_queries))
    X = rng.normal(size=(qid.size, 4)) * (rng.random((qid.size, 4)) < 0.5)  # sparse-ish
    y = rng.integers(0, 3, qid.size)
    path = str(tmp_path / "train.svm")
    dump_svmlight_file(X, y, path, query_id=qid)
    X_sparse, y_read, qid_read = load_svmlight_file(path, query_id=True)
    np.testing.assert_array_equal(qid_read, qid)
    return X_sparse, y_read, qid_read


@pytest.mark.parametrize("shuffle", [False, True])
def test_split_takes_a_sparse_matrix(tmp_path, shuffle):
    # Issue 11, item 18: len() of a scipy sparse matrix raises, and split() used to evaluate it.
    import scipy.sparse as sp

    X, _, qid = _svmlight_ranking(tmp_path)
    assert sp.issparse(X)
    splitter = QueryGroupKFold(3, shuffle=shuffle, random_state=0 if shuffle else None)
    sparse_folds = list(splitter.split(X, groups=qid))
    dense_folds = folds_of(splitter, groups=qid)
    assert len(sparse_folds) == 3
    for (train, test), (dense_train, dense_test) in zip(sparse_folds, dense_folds):
        np.testing.assert_array_equal(train, dense_train)
        np.testing.assert_array_equal(test, dense_test)
        assert not np.isin(qid[test], qid[train]).any()
    np.testing.assert_array_equal(np.sort(np.concatenate([test for _, test in sparse_folds])), np.arange(len(qid)))
    # The query-id column of a sparse matrix (and sparse arrays, not only matrices) works too.
    for container in (sp.csr_matrix, sp.csr_array, sp.csc_matrix):
        stacked = container(sp.hstack([sp.csr_matrix(qid[:, None]), X]))
        column_folds = list(QueryGroupKFold(3, qid=0, shuffle=shuffle,
                                            random_state=0 if shuffle else None).split(stacked))
        for (train, test), (dense_train, dense_test) in zip(column_folds, dense_folds):
            np.testing.assert_array_equal(test, dense_test)
    with pytest.raises(ValueError, match=r"one entry per row of X \(" + str(len(qid)) + r"\)"):
        list(QueryGroupKFold(2).split(X, groups=qid[:-1]))
