"""Which features a model uses to rank: :func:`permutation_importance` by a ranking metric.

scikit-learn's :func:`sklearn.inspection.permutation_importance` permutes every column of X across
all rows. For a ranking metric that has two problems: a query-id column of X would be permuted too
(its rows regrouped into other queries), and scores of a model fitted without that column cannot
get their query ids at all (it routes no metadata). The function here takes the query ids from a
:class:`~sklearn_rank.RankingEvaluator`'s column or from ``qid=``, never permutes them, and by
default shuffles each feature among the rows of each query. Every score is computed by the
scorers of :func:`~sklearn_rank.make_ranking_scorer`, that is by the engine of
:func:`sklearn_rank.evaluate`.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch, check_random_state
from sklearn.utils.parallel import Parallel, delayed

from ._estimator_inputs import as_2d, check_qid_spec, drop_column, qid_column_position, read_qid_column
from ._evaluator import RankingEvaluator, _check_features
from ._inputs import _query_codes
from ._registry import MetricSpec
from ._scorer import make_multimetric_scorer, make_ranking_scorer
from .exceptions import InputTypeError, InputValueError

__all__ = ["permutation_importance"]

PERMUTE = ("within_queries", "all_rows")


def permutation_importance(estimator, X, y, *, qid=None, metric="ndcg@10", n_repeats=5, random_state=None,
                           permute="within_queries", n_jobs=None, sample_weight=None, **options):
    """Permutation importance of each feature for a ranking metric.

    The importance of a feature is the drop of the metric when the
    feature's values are shuffled: the metric on ``X`` (the baseline) minus
    the metric on ``X`` with that one column permuted, for ``n_repeats``
    permutations, as in :func:`sklearn.inspection.permutation_importance`.
    For a lower-is-better metric (``"mr"``, ``"gmr"``, ...) the difference
    is taken the other way round (permuted minus baseline, the drop of the
    negated metric that the scorers maximise), so that a positive
    importance always means that the model's ranking gets worse without
    the feature.

    Query ids come from the query-id column of a fitted
    :class:`~sklearn_rank.RankingEvaluator` (that column is never permuted
    and gets no importance) or from ``qid=`` (any fitted regressor, ranker
    or classifier; ``qid=`` also wins over an evaluator's column).

    ``permute="within_queries"`` (the default) shuffles a feature's values
    among the rows of each query; ``"all_rows"`` shuffles them across all
    rows, as scikit-learn does. A ranking metric only sees the order of the
    rows within each query. A shuffle within queries keeps each query's
    values of the feature (its distribution in that query) and breaks only
    their link to the rows, so the drop measures how much the model uses
    the feature to order a query's items. A shuffle across all rows also
    moves values between queries, and so also measures features that only
    tell queries apart (a query-level feature: a constant within each query
    cannot change any order within a query, and gets importance 0 within
    queries).

    Read more in the :ref:`User Guide <inspection>`.

    Parameters
    ----------
    estimator : fitted estimator
        A fitted :class:`~sklearn_rank.RankingEvaluator` (its wrapped
        estimator scores X without the query-id column), or any fitted
        regressor, ranker or classifier scoring ``X`` as it is.
    X : ndarray or DataFrame of shape (n_rows, n_columns)
        The rows to score; for an evaluator, with its query-id column. A
        sparse matrix is refused (``X.toarray()``).
    y : array-like of shape (n_rows,) or (n_rows, n_labels)
        Relevance per row, class labels, or a relevance matrix, as for
        :func:`~sklearn_rank.make_ranking_scorer`.
    qid : array-like of shape (n_rows,), default=None
        Query id of every row. Required unless ``estimator`` is a
        :class:`~sklearn_rank.RankingEvaluator` whose query-id column is in
        X, or the layout needs none (a classifier ranking its classes, a
        2-D ``y``: each row is a query) with ``permute="all_rows"``.
    metric : str, MetricSpec or sequence of them, default="ndcg@10"
        The metric of the registry (``"mrr"``, ``"map@100"``, ``"mr"``, ...).
        An evaluator's own ``metric`` and options are not read: pass them
        here. A sequence of metrics gives a dict of results (scored from one
        prediction per permuted X), keyed by the scorer names of
        :func:`~sklearn_rank.make_multimetric_scorer`.
    n_repeats : int, default=5
        Number of permutations of each feature.
    random_state : int, RandomState instance or None, default=None
        Seed of the permutations. As in scikit-learn, one seed is drawn from
        it and every feature gets the same sequence of ``n_repeats`` row
        permutations (so the same ``random_state`` gives the same
        permutations whether or not X holds a query-id column); with
        ``permute="all_rows"`` they are scikit-learn's own.
    permute : {"within_queries", "all_rows"}, default="within_queries"
        Shuffle each feature among the rows of each query, or across all
        rows.
    n_jobs : int, default=None
        Features scored in parallel (joblib, threads preferred); the numbers
        do not depend on it.
    sample_weight : array-like of shape (n_rows,), default=None
        One weight per query (per row, constant within a query).
    **options
        Engine options of the metric: ``ties``, ``gain``,
        ``relevance_level``, ``no_relevant``, ``targets``,
        ``ap_denominator``, ``nan_policy``, ``convention``.

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch` or dict of them
        With the fields of scikit-learn's result and one more:

        importances_mean : ndarray of shape (n_features,)
            Mean importance of each feature over the repeats.
        importances_std : ndarray of shape (n_features,)
            Standard deviation over the repeats.
        importances : ndarray of shape (n_features, n_repeats)
            Every importance.
        feature_names : ndarray of shape (n_features,)
            The columns of X that the rows above describe, in order, the
            query-id column left out: the column names of a DataFrame, or
            ``"x<i>"`` with ``i`` the column's index in X for an array.

    See Also
    --------
    sklearn.inspection.permutation_importance : scikit-learn's, across all rows, for its own scorers.
    make_ranking_scorer : the scorer that computes each value.

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank import RankingEvaluator
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.inspection import permutation_importance
    >>> X, y, qid = make_ranking(n_queries=40, n_features=4, n_informative=2,
    ...                          random_state=0, as_frame=True)
    >>> model = RankingEvaluator(Ridge()).fit(X, y)
    >>> result = permutation_importance(model, X, y, metric="ndcg@10", random_state=0)
    >>> list(result.feature_names)                  # no importance for the qid column
    ['f0', 'f1', 'f2', 'f3']
    >>> result.importances.shape
    (4, 5)
    >>> ranked = sorted(zip(result.importances_mean, result.feature_names), reverse=True)
    >>> [name for _, name in ranked[:2]]            # the two informative features
    ['f2', 'f1']

    The same numbers from a model fitted without the column, query ids given:

    >>> features = X.drop(columns="qid")
    >>> plain = permutation_importance(Ridge().fit(features, y), features, y, qid=qid,
    ...                                metric="ndcg@10", random_state=0)
    >>> bool(abs(plain.importances - result.importances).max() < 1e-12)
    True
    """
    n_repeats = _check_n_repeats(n_repeats)
    if permute not in PERMUTE:
        raise InputValueError(f"`permute` must be one of {list(PERMUTE)}. Got {permute!r} instead.")
    if isinstance(metric, (str, MetricSpec)):
        scorer, keys = make_ranking_scorer(metric, qid=None, **options), None
    else:
        scorer = make_multimetric_scorer(metric, qid=None, **options)
        keys = scorer.names
    if sp.issparse(X):
        raise InputTypeError("permutation_importance permutes columns of a dense X or DataFrame: pass X.toarray(). "
                             f"Got a sparse {type(X).__name__} instead.")
    X = as_2d(X)
    if getattr(X, "ndim", None) != 2:
        raise InputValueError(f"X must be 2-D (rows, columns). Got shape {getattr(X, 'shape', None)} instead.")
    scored_estimator, X_features, names, query = _features_and_query(estimator, X, qid)
    n_rows = X_features.shape[0]
    codes = None
    if query is not None:
        query = np.asarray(query)
        if query.shape != (n_rows,):
            raise InputValueError(f"`qid` must hold one query id per row of X ({n_rows}). Got shape {query.shape} "
                                  "instead.")
        _, codes, _ = _query_codes(query, n_rows)  # the engine's checks: no NaN or None ids
    elif permute == "within_queries":
        raise InputValueError(
            "permute='within_queries' shuffles each feature among the rows of each query, and needs query ids: "
            "pass qid=... (one per row), or a fitted RankingEvaluator with its query-id column in X; for a "
            "classifier ranking its classes or a 2-D y (each row a query) use permute='all_rows'. Got no query "
            "ids instead.")
    row_orders = _row_permutations(codes, n_rows, n_repeats, random_state, permute)

    def missing_qid_message():
        return ("permutation_importance needs query ids to rank the rows of X (1-D y with a regressor or ranker "
                "is the grouped-rows layout): pass qid=... (one per row), or a fitted RankingEvaluator with its "
                "query-id column in X. Got no query ids instead.")

    def score(X_scored):
        return scorer._score_values(scored_estimator, X_scored, y, qid=query, sample_weight=sample_weight,
                                    missing_qid_message=missing_qid_message)

    baseline = score(X_features)
    # Threads: the work is the estimator's prediction and the engine's NumPy passes; no copy of X per process.
    permuted = Parallel(n_jobs=n_jobs, prefer="threads")(
        delayed(_permuted_scores)(score, X_features, column, row_orders) for column in range(X_features.shape[1]))
    names = np.asarray(names, dtype=object)
    if keys is None:
        return _importances(baseline, np.array(permuted, dtype=np.float64), names)
    return {key: _importances(baseline[key], np.array([[one[key] for one in scores] for scores in permuted]), names)
            for key in keys}


def _check_n_repeats(n_repeats):
    if isinstance(n_repeats, bool) or not isinstance(n_repeats, numbers.Integral):
        raise InputTypeError(f"`n_repeats` must be an integer. Got {n_repeats!r} of type {type(n_repeats).__name__} "
                             "instead.")
    if n_repeats < 1:
        raise InputValueError(f"`n_repeats` must be at least 1. Got {n_repeats} instead.")
    return int(n_repeats)


def _features_and_query(estimator, X, qid):
    """The estimator that scores, X without a query-id column, the names of its columns, and the query ids.

    For a RankingEvaluator: its wrapped estimator, X without the evaluator's query-id column (read as the
    query ids unless ``qid`` is given), and the names of the other columns; for any other estimator: itself,
    X as it is, and ``qid``.
    """
    position = None
    if isinstance(estimator, RankingEvaluator):
        estimator._check_is_fitted()
        _check_features(estimator, X, reset=False)
        spec = check_qid_spec(estimator.qid)
        position = qid_column_position(X, spec)
        if position is not None:
            column = read_qid_column(X, position)
            qid = column if qid is None else qid
            X = drop_column(X, position)
        estimator = estimator.estimator_
    n_columns = X.shape[1] + (position is not None)
    kept = [index for index in range(n_columns) if index != position]
    columns = getattr(X, "columns", None)
    names = [str(name) for name in columns] if columns is not None else [f"x{index}" for index in kept]
    if not hasattr(X, "iloc"):
        X = np.asarray(X)
    return estimator, X, names, qid


def _row_permutations(codes, n_rows, n_repeats, random_state, permute):
    """The row order of a permuted column for each repeat: ``column[order]`` is the permuted column.

    As scikit-learn: one seed drawn from ``random_state``, the same permutations for every feature.
    ``"all_rows"``: scikit-learn's shuffles, each applied to the column the previous one left (so a
    composed order). ``"within_queries"``: per repeat, one sort of the rows by (query code, random key)
    gives each query's rows in a random order; the rows of the query in their original order receive
    them, so every value stays in its query.
    """
    rng = check_random_state(check_random_state(random_state).randint(np.iinfo(np.int32).max + 1))
    orders = []
    if permute == "all_rows":
        shuffle, composed = np.arange(n_rows), np.arange(n_rows)
        for _ in range(n_repeats):
            rng.shuffle(shuffle)
            composed = composed[shuffle]
            orders.append(composed)
        return orders
    by_query = np.argsort(codes, kind="stable")
    for _ in range(n_repeats):
        shuffled = np.lexsort((rng.random_sample(n_rows), codes))
        order = np.empty(n_rows, dtype=np.intp)
        order[by_query] = shuffled
        orders.append(order)
    return orders


def _permuted_scores(score, X, column, row_orders):
    """The score of X with ``column`` permuted by each of ``row_orders`` (the other columns untouched)."""
    X_permuted = X.copy()
    scores = []
    for order in row_orders:
        if hasattr(X_permuted, "iloc"):
            values = X.iloc[order, column]
            values.index = X_permuted.index
            X_permuted.isetitem(column, values)
        else:
            X_permuted[:, column] = X[order, column]
        scores.append(score(X_permuted))
    return scores


def _importances(baseline, permuted, names):
    """scikit-learn's fields from the baseline and the permuted scores (greater is better for both)."""
    importances = baseline - permuted
    return Bunch(importances_mean=np.mean(importances, axis=1), importances_std=np.std(importances, axis=1),
                 importances=importances, feature_names=names)
