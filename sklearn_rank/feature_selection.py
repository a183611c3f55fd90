"""Feature selection by a ranking metric, with the query ids in a column of X.

scikit-learn's :class:`~sklearn.feature_selection.SequentialFeatureSelector`, :class:`~sklearn.feature_selection.RFE`
and :class:`~sklearn.feature_selection.RFECV` hand the estimator and the splitter column subsets of X: a
query-id column would be one more candidate feature, and the subsets without it have no query ids (their
metadata routing, from scikit-learn 1.6 on, is the other way to give the query ids). The selectors here
read the query ids from the column ``qid`` of X and choose among the other columns only: every subset they
fit, split and score is the candidate features plus the query-id column, at its place, so that
:class:`~sklearn_rank.RankingEvaluator`, a ranking scorer and
:class:`~sklearn_rank.model_selection.QueryGroupKFold` find it. Their greedy steps, stopping rules,
tie-breaking, elimination order and choice of the number of features are scikit-learn's, so they select
the features that scikit-learn's selectors select by metadata routing on the same data.
"""

from __future__ import annotations

import numbers
import warnings
from operator import attrgetter

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv, cross_val_score
from sklearn.utils.metaestimators import available_if
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted

from ._estimator_inputs import _estimator_chain, as_2d, check_qid_spec, qid_column_position, read_qid_column
from ._evaluator import _estimator_has
from ._inputs import _query_codes
from ._sklearn_compat import EvaluatorTagsMixin, check_features, safe_indexing
from .exceptions import InputTypeError, InputValueError
from .model_selection import QueryGroupKFold

__all__ = ["RFE", "RFECV", "SequentialFeatureSelector"]

# numpydoc entries the three selectors share, put into their docstrings by _shared_docs.
_DOCS = {
    "estimator": """estimator : estimator object
        An unfitted estimator that finds the query ids in X, usually a
        :class:`~sklearn_rank.RankingEvaluator` (whose ``score`` is the
        ranking metric and which strips the query-id column before its
        model sees X), cloned for every fit.""",
    "qid": """qid : str or int, default="qid"
        The query-id column of X: a DataFrame column name, or ``0`` (the
        first column) or ``-1`` (the last one) of an array or DataFrame. It
        is no candidate feature; every subset keeps it at its place, where
        the estimator, the scorer and the splitter find it with the same
        ``qid``.""",
    "cv": """cv : int, cross-validation generator or iterable, default=None
        The splits, made once from the whole X and used for every subset;
        a splitter gets the query ids as ``groups``. None: 5-fold
        :class:`~sklearn_rank.model_selection.QueryGroupKFold`; an integer:
        ``QueryGroupKFold`` with that many folds (scikit-learn's
        ``KFold`` would split queries).""",
    "scoring": """scoring : str, callable or None, default=None
        The score of a subset: a scorer (``make_ranking_scorer("ndcg@10")``,
        which reads the query-id column) or a scikit-learn scoring name;
        None: the estimator's own ``score`` (a ``RankingEvaluator``'s ranking
        metric).""",
    "importance_getter": """importance_getter : str or callable, default="auto"
        How the importances of the features are read from a fitted
        estimator: ``"auto"``, its ``coef_`` or ``feature_importances_``, or
        those of the estimator it wraps (a ``RankingEvaluator``'s
        ``estimator_``, a pipeline's last step); an attribute path
        (``"estimator_.coef_"``); or a callable of the estimator. Their
        squares rank the features (summed over the rows of a 2-D
        ``coef_``). An importance for the query-id column, when the model
        saw it, is left out.""",
    "step": """step : int or float, default=1
        Features removed at each step: a number (at least 1), or a fraction
        in (0, 1) of the features, rounded down (at least 1).""",
    "n_features_in_": """n_features_in_ : int
        Number of columns of X seen in ``fit``, the query-id column included.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of X seen in ``fit``, when they are all strings.""",
    "support_": """support_ : ndarray of shape (`n_features_in_`,), dtype=bool
        The selected columns of X; the query-id column is always selected,
        so that :meth:`transform` keeps it.""",
}
_DOCS["rfe_attributes"] = _DOCS["n_features_in_"] + """
    n_features_ : int
        The number of features selected, the query-id column not counted.
    """ + _DOCS["support_"] + """
    ranking_ : ndarray of shape (`n_features_in_`,), dtype=int
        The rank of every column: 1 for the selected ones (and the query-id
        column), 2 for the last removed, and so on.
    estimator_ : estimator object
        The clone of ``estimator`` fitted on the selected columns and the
        query-id column.
    classes_ : ndarray of shape (n_classes,)
        The classes of ``estimator_`` (for classifiers)."""


_FIT_SECTIONS = """Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_columns)
            The features and the query-id column ``qid``.
        y : array-like of shape (n_rows,)
            Relevance per row (or what the estimator's score needs).

        Returns
        -------
        self : {name}
            The fitted selector."""


# The docstring of a method of a fitted selector that takes X (and y).
_METHOD_DOC = """{what}.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, `n_features_in_`)
            The columns seen in ``fit``.{y}

        Returns
        -------
        {returns}
        """
_SCORE_Y = """
        y : array-like of shape (n_rows,)
            Relevance per row (or what the score needs)."""
_SCORE_RETURNS = """score : float
            A ``RankingEvaluator``'s ranking metric, for one."""


def _shared_docs(cls):
    """Fill a selector's docstring and its ``fit``'s with the shared entries (``{qid}``, ``{cv}``, ...)."""
    cls.__doc__ = cls.__doc__.format(**_DOCS)
    cls.fit.__doc__ = cls.fit.__doc__.format(fit_sections=_FIT_SECTIONS.format(name=cls.__name__))
    return cls


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_fraction(value, *, closed):
    """A float in (0, 1], or (0, 1) when not ``closed``."""
    return (isinstance(value, numbers.Real) and not isinstance(value, (bool, numbers.Integral))
            and (0 < value < 1 or (closed and value == 1)))


def _rows(data, rows):
    return data.iloc[rows] if hasattr(data, "iloc") else safe_indexing(data, rows, axis=0)


def _columns(X, columns):
    """The columns ``columns`` (positions, ascending) of X: a DataFrame stays a DataFrame with its names."""
    return X.iloc[:, columns] if hasattr(X, "iloc") else safe_indexing(X, columns, axis=1)


class _QueryColumnSelector(SelectorMixin, MetaEstimatorMixin, BaseEstimator):
    """What the selectors share: the query-id column read, kept in every subset, in the support and in
    :meth:`transform`; the splits made once."""

    def _query_column(self, X):
        """X (lists as an array), the position of its query-id column, the query ids, and the positions of
        the candidate features; ``n_features_in_`` and ``feature_names_in_`` recorded."""
        name = type(self).__name__
        spec = check_qid_spec(self.qid)
        if spec is None:
            raise InputValueError(f"{name} reads the query ids from a column of X: `qid` must name it (a column "
                                  "name, 0 or -1). Got qid=None instead.")
        if isinstance(spec, int) and spec not in (0, -1):
            raise InputValueError(
                f"An integer `qid` must be 0 (the first column of X) or -1 (the last one): {name} keeps the "
                "query-id column at its place in every column subset, where only qid=0 or qid=-1 finds it "
                f"whatever the subset (or name a DataFrame column). Got qid={spec} instead.")
        X = as_2d(X)
        if len(getattr(X, "shape", ())) != 2:
            raise InputValueError(f"X must be 2-D (rows, columns). Got {type(X).__name__} of shape "
                                  f"{getattr(X, 'shape', None)} instead.")
        position = qid_column_position(X, spec)
        if position is None:
            got = (f"a DataFrame with the columns {list(X.columns)[:8]}" if hasattr(X, "columns") else
                   f"{type(X).__name__} without column names")
            raise InputValueError(
                f"{name} reads the query ids from the column qid={spec!r} of X and selects among the other "
                "columns: give X that column (a DataFrame column, or qid=0 for the first column of an array), or "
                "select with scikit-learn's selectors by metadata routing (scikit-learn >= 1.6), X holding the "
                f"features only. Got {got} instead.")
        n_features = X.shape[1] - 1
        if n_features < 2:
            raise InputValueError(f"{name} selects among the columns of X other than the query-id column "
                                  f"{spec!r} and needs at least 2 of them. Got {n_features} instead.")
        check_features(self, X, reset=True)
        query = read_qid_column(X, position)
        _query_codes(query, X.shape[0])  # the engine's checks: no NaN or None ids
        return X, position, query, np.delete(np.arange(n_features + 1), position)

    @staticmethod
    def _subset(X, features, position):
        """The columns ``features`` of X and the query-id column at ``position``, in the order of X."""
        return _columns(X, np.sort(np.append(features, position)))

    def _splits(self, X, y, query):
        cv = self.cv
        if cv is None or _is_int(cv):
            cv = QueryGroupKFold(5 if cv is None else cv, qid=self.qid)
        return list(check_cv(cv).split(X, y, groups=query))

    def _get_support_mask(self):
        check_is_fitted(self)
        return self.support_

    def transform(self, X):
        check_is_fitted(self)
        X = as_2d(X)
        check_features(self, X, reset=False)
        return _columns(X, np.flatnonzero(self.support_))

    transform.__doc__ = _METHOD_DOC.format(what="""Keep the selected columns of X and its query-id column.

        Unlike scikit-learn's selectors, a DataFrame stays a DataFrame with
        its column names, so that the steps after this one find the
        query-id column by name""", y="", returns="""X_selected : array-like or DataFrame of shape (n_rows, n_selected + 1)
            The selected columns and the query-id column, in the order of X.""")


@_shared_docs
class SequentialFeatureSelector(_QueryColumnSelector):
    """Greedy forward or backward selection of features by a ranking metric.

    The features are added (``direction="forward"``) or removed
    (``"backward"``) one at a time, each time the one whose subset has the
    best cross-validated score, as by
    :class:`sklearn.feature_selection.SequentialFeatureSelector`; X holds a
    query-id column, which every subset keeps (see
    :mod:`sklearn_rank.feature_selection`). Of features whose subsets score
    the same, the one of the lowest column index is added (or removed).

    Read more in the :ref:`User Guide <model_selection_feature_selection>`.

    Parameters
    ----------
    {estimator}
    {qid}
    n_features_to_select : "auto", int or float, default="auto"
        How many features to select, the query-id column not counted: a
        number (less than the number of features), a fraction in (0, 1] of
        them (rounded down), or ``"auto"``: half of them (rounded down)
        without ``tol``, else until a step improves the score by less than
        ``tol``.
    tol : float, default=None
        With ``n_features_to_select="auto"``, stop when the best subset of a
        step scores less than ``tol`` above the previous step's; not
        negative in forward selection. A negative ``tol`` in backward
        selection removes features at a small loss of score.
    direction : {{"forward", "backward"}}, default="forward"
        Add features to an empty set, or remove them from all.
    {scoring}
    {cv}
    n_jobs : int, default=None
        Folds fitted in parallel for each candidate subset
        (:func:`~sklearn.model_selection.cross_val_score`'s ``n_jobs``).

    Attributes
    ----------
    {n_features_in_}
    n_features_to_select_ : int
        The number of features selected, the query-id column not counted.
    {support_}

    See Also
    --------
    RFECV : Recursive feature elimination with the number of features chosen by cross-validation.
    sklearn.feature_selection.SequentialFeatureSelector : scikit-learn's, for metadata routing.

    Examples
    --------
    An array with the query ids in its first column (``qid=0`` for the
    selector and the evaluator alike):

    >>> import numpy as np
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank import RankingEvaluator
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.feature_selection import SequentialFeatureSelector
    >>> X, y, qid = make_ranking(n_queries=30, n_features=4, n_informative=2, random_state=0)
    >>> X_qid = np.column_stack([qid, X])
    >>> selector = SequentialFeatureSelector(RankingEvaluator(Ridge(), qid=0), qid=0,
    ...                                      n_features_to_select=2, cv=3).fit(X_qid, y)
    >>> selector.get_support()  # the query-id column and two features
    array([ True,  True,  True, False, False])
    >>> selector.n_features_to_select_, selector.transform(X_qid).shape
    (2, (600, 3))
    """

    def __init__(self, estimator, *, qid="qid", n_features_to_select="auto", tol=None, direction="forward",
                 scoring=None, cv=None, n_jobs=None):
        self.estimator = estimator
        self.qid = qid
        self.n_features_to_select = n_features_to_select
        self.tol = tol
        self.direction = direction
        self.scoring = scoring
        self.cv = cv
        self.n_jobs = n_jobs

    def _number_to_select(self, n_features):
        """The number of features to select (for ``"auto"`` with ``tol``: the most steps to take)."""
        wanted = self.n_features_to_select
        if isinstance(wanted, str) and wanted == "auto":
            return n_features - 1 if self.tol is not None else n_features // 2
        if _is_int(wanted):
            if not 0 < wanted < n_features:
                raise InputValueError(
                    f"An integer `n_features_to_select` must lie in [1, {n_features - 1}]: fewer than the "
                    f"{n_features} features of X (the query-id column not counted). Got {wanted} instead.")
            return int(wanted)
        if _is_fraction(wanted, closed=True):
            return int(n_features * wanted)
        raise InputValueError("`n_features_to_select` must be 'auto', an integer or a fraction in (0, 1]. Got "
                              f"{wanted!r} instead.")

    def fit(self, X, y):
        """Select the features, one step at a time, by the cross-validated score of each subset.

        {fit_sections}
        """
        if self.direction not in ("forward", "backward"):
            raise InputValueError(f"`direction` must be 'forward' or 'backward'. Got {self.direction!r} instead.")
        if self.tol is not None and not (isinstance(self.tol, numbers.Real) and not isinstance(self.tol, bool)):
            raise InputTypeError(f"`tol` must be a number or None. Got {self.tol!r} instead.")
        if self.tol is not None and self.tol < 0 and self.direction == "forward":
            raise InputValueError("`tol` must not be negative in forward selection (a step must improve the "
                                  f"score). Got tol={self.tol} instead.")
        X, position, query, features = self._query_column(X)
        n_features = len(features)
        n_to_select = self._number_to_select(n_features)
        auto = isinstance(self.n_features_to_select, str)
        n_steps = n_to_select if auto or self.direction == "forward" else n_features - n_to_select
        splits = self._splits(X, y, query)
        # Forward: the features added so far; backward: those removed so far.
        chosen = np.zeros(n_features, dtype=bool)
        previous = -np.inf
        for _ in range(n_steps):
            best, best_score = None, None
            for candidate in np.flatnonzero(~chosen):
                mask = chosen.copy()
                mask[candidate] = True
                if self.direction == "backward":
                    mask = ~mask
                score = cross_val_score(self.estimator, self._subset(X, features[mask], position), y, cv=splits,
                                        scoring=self.scoring, n_jobs=self.n_jobs).mean()
                if best is None or score > best_score:  # the first of equal scores stays, as max() keeps it
                    best, best_score = candidate, score
            if auto and self.tol is not None and best_score - previous < self.tol:
                break
            previous = best_score
            chosen[best] = True
        selected = ~chosen if self.direction == "backward" else chosen
        self.support_ = np.insert(selected, position, True)
        self.n_features_to_select_ = int(selected.sum())
        return self


def _importances(estimator, getter, n_features, qid_index):
    """The squared importances of the features of a fitted estimator (summed over the rows of a 2-D
    ``coef_``), one per feature: an importance of the query-id column (at ``qid_index`` among the
    columns the estimator saw) is left out."""
    values = None
    if isinstance(getter, str) and getter == "auto":
        for step in _estimator_chain(estimator):
            values = getattr(step, "coef_", getattr(step, "feature_importances_", None))
            if values is not None:
                break
        if values is None:
            raise InputValueError(
                "importance_getter='auto' reads coef_ or feature_importances_ from the fitted estimator or the "
                "estimator it wraps (a RankingEvaluator's estimator_, a pipeline's last step); pass an attribute "
                f"path or a callable otherwise. Got {type(estimator).__name__} without either instead.")
    elif isinstance(getter, str):
        values = attrgetter(getter)(estimator)
    elif callable(getter):
        values = getter(estimator)
    else:
        raise InputTypeError(f"`importance_getter` must be 'auto', an attribute path or a callable. Got {getter!r} "
                             "instead.")
    values = np.asarray(values.toarray() if sp.issparse(values) else values, dtype=float)
    if values.ndim not in (1, 2):
        raise InputValueError(f"The importances must be 1-D or 2-D. Got shape {values.shape} instead.")
    squares = values**2 if values.ndim == 1 else (values**2).sum(axis=0)
    if squares.shape[0] == n_features + 1:  # the model saw the query-id column
        return np.delete(squares, qid_index)
    if squares.shape[0] != n_features:
        raise InputValueError(f"importance_getter must give one importance per feature ({n_features}, or "
                              f"{n_features + 1} with the query-id column). Got {squares.shape[0]} instead.")
    return squares


def _delegate(method, returns):
    """``RFE.<method>``: the fitted estimator's ``method`` on the selected columns of X (when it has one)."""

    def call(self, X):
        return getattr(self.estimator_, method)(self.transform(X))

    call.__name__ = call.__qualname__ = method
    call.__doc__ = _METHOD_DOC.format(what=f"The fitted estimator's ``{method}`` on the selected columns of X", y="",
                                      returns=returns)
    return available_if(_estimator_has(method))(call)


@_shared_docs
class RFE(EvaluatorTagsMixin, _QueryColumnSelector):
    """Recursive feature elimination, with the query ids in a column of X.

    The estimator is fitted on the features left (and the query-id
    column), and the ``step`` features of the smallest squared importances
    are removed, until ``n_features_to_select`` are left, as by
    :class:`sklearn.feature_selection.RFE` (see
    :mod:`sklearn_rank.feature_selection`).

    Read more in the :ref:`User Guide <model_selection_feature_selection>`.

    Parameters
    ----------
    {estimator}
    {qid}
    n_features_to_select : int, float or None, default=None
        How many features to keep, the query-id column not counted: a
        number, a fraction in (0, 1] of them (rounded down), or None: half
        of them (rounded down).
    {step}
    {importance_getter}

    Attributes
    ----------
    {rfe_attributes}

    See Also
    --------
    RFECV : The same, with the number of features chosen by cross-validation.
    sklearn.feature_selection.RFE : scikit-learn's.

    Examples
    --------
    A tree's ``feature_importances_``, read through the evaluator:

    >>> from sklearn.tree import DecisionTreeRegressor
    >>> from sklearn_rank import RankingEvaluator
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.feature_selection import RFE
    >>> frame, relevance, _ = make_ranking(n_queries=20, n_features=5, n_informative=2,
    ...                                    random_state=1, as_frame=True)
    >>> tree = DecisionTreeRegressor(max_depth=3, random_state=0)
    >>> rfe = RFE(RankingEvaluator(tree, metric="mrr"), n_features_to_select=2)
    >>> rfe = rfe.fit(frame, relevance)
    >>> rfe.get_feature_names_out().tolist(), rfe.ranking_.tolist()
    (['qid', 'f0', 'f3'], [1, 1, 4, 3, 1, 2])
    >>> round(rfe.score(frame, relevance), 4)  # MRR of the tree on f0 and f3
    0.9066
    """

    def __init__(self, estimator, *, qid="qid", n_features_to_select=None, step=1, importance_getter="auto"):
        self.estimator = estimator
        self.qid = qid
        self.n_features_to_select = n_features_to_select
        self.step = step
        self.importance_getter = importance_getter

    @property
    def classes_(self):
        """The classes of the fitted estimator (classifiers only)."""
        return self.estimator_.classes_

    def _step_size(self, n_features):
        if _is_int(self.step) and self.step >= 1:
            return int(self.step)
        if _is_fraction(self.step, closed=False):
            return int(max(1, self.step * n_features))
        raise InputValueError(f"`step` must be an integer of at least 1 or a fraction in (0, 1). Got {self.step!r} "
                              "instead.")

    def _eliminate(self, X, y, position, features, n_to_select, step, score=None):
        """Remove the least important features ``step`` at a time down to ``n_to_select``.

        Returns the support and ranking over ``features``, the estimator fitted on the features left, and
        (with ``score(estimator, kept)``) a record ``(n_features, score, support, ranking)`` of every step.
        """
        support = np.ones(len(features), dtype=bool)
        ranking = np.ones(len(features), dtype=int)
        records = []
        while True:
            kept = np.flatnonzero(support)
            estimator = clone(self.estimator).fit(self._subset(X, features[kept], position), y)
            if score is not None:
                records.append((len(kept), score(estimator, kept), support.copy(), ranking.copy()))
            if len(kept) <= n_to_select:
                return support, ranking, estimator, records
            qid_index = int(np.searchsorted(features[kept], position))
            importances = _importances(estimator, self.importance_getter, len(kept), qid_index)
            n_removed = min(step, len(kept) - n_to_select)
            support[kept[np.argsort(importances, kind="stable")[:n_removed]]] = False
            ranking[~support] += 1

    def _finish(self, X, y, position, features, n_to_select, step):
        support, ranking, self.estimator_, _ = self._eliminate(X, y, position, features, n_to_select, step)
        self.support_ = np.insert(support, position, True)
        self.ranking_ = np.insert(ranking, position, 1)
        self.n_features_ = int(support.sum())
        return self

    def fit(self, X, y):
        """Eliminate features down to ``n_features_to_select``, then fit the estimator on those left.

        {fit_sections}
        """
        X, position, _, features = self._query_column(X)
        n_features = len(features)
        wanted = self.n_features_to_select
        if wanted is None:
            n_to_select = n_features // 2
        elif _is_int(wanted) and wanted >= 1:
            n_to_select = int(wanted)
            if n_to_select > n_features:
                warnings.warn(f"n_features_to_select={n_to_select} exceeds the {n_features} features of X: all are "
                              "kept.", UserWarning, stacklevel=2)
        elif _is_fraction(wanted, closed=True):
            n_to_select = int(n_features * wanted)
        else:
            raise InputValueError("`n_features_to_select` must be None, an integer of at least 1 or a fraction in "
                                  f"(0, 1]. Got {wanted!r} instead.")
        return self._finish(X, y, position, features, n_to_select, self._step_size(n_features))

    predict = _delegate("predict", "y_pred : ndarray of shape (n_rows,)")
    decision_function = _delegate("decision_function", "scores : ndarray of shape (n_rows,) or (n_rows, n_classes)")
    predict_proba = _delegate("predict_proba", "proba : ndarray of shape (n_rows, n_classes)")

    def score(self, X, y):
        return self.estimator_.score(self.transform(X), y)

    score.__doc__ = _METHOD_DOC.format(what="The fitted estimator's ``score`` on the selected columns of X",
                                       y=_SCORE_Y, returns=_SCORE_RETURNS)
    score = available_if(_estimator_has("score"))(score)  # after the docstring, which available_if copies


@_shared_docs
class RFECV(RFE):
    """Recursive feature elimination, with the number of features chosen by cross-validated ranking metric.

    In each fold, features are eliminated as by :class:`RFE` on the
    training rows, down to ``min_features_to_select``, and every step's
    subset is scored on the test rows. The number of features with the best
    total score over the folds (the smallest such number on equal totals)
    is then selected by :class:`RFE` on all rows, as by
    :class:`sklearn.feature_selection.RFECV`. X holds a query-id column,
    which every subset keeps (see :mod:`sklearn_rank.feature_selection`).

    Read more in the :ref:`User Guide <model_selection_feature_selection>`.

    Parameters
    ----------
    {estimator}
    {qid}
    {step}
    min_features_to_select : int, default=1
        The fewest features to keep, the query-id column not counted.
    {cv}
    {scoring}
    n_jobs : int, default=None
        Folds eliminated in parallel (joblib).
    {importance_getter}

    Attributes
    ----------
    {rfe_attributes}
    cv_results_ : dict of ndarrays
        By number of features, fewest first: ``n_features`` (the query-id
        column not counted), ``mean_test_score``, ``std_test_score``, and
        for each fold ``split<i>_test_score``, ``split<i>_support`` and
        ``split<i>_ranking`` (over the columns of X, as ``support_``).

    See Also
    --------
    SequentialFeatureSelector : Greedy selection by the cross-validated score of each subset.
    sklearn.feature_selection.RFECV : scikit-learn's, for metadata routing.

    Examples
    --------
    Two features removed at a time, MAP over four folds of queries:

    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank import RankingEvaluator
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.feature_selection import RFECV
    >>> frame, relevance, _ = make_ranking(n_queries=24, n_features=6, n_informative=3,
    ...                                    random_state=2, as_frame=True)
    >>> rfecv = RFECV(RankingEvaluator(Ridge(), metric="map"), step=2, cv=4)
    >>> rfecv = rfecv.fit(frame, relevance)
    >>> rfecv.cv_results_["n_features"].tolist()
    [1, 2, 4, 6]
    >>> rfecv.cv_results_["mean_test_score"].round(4).tolist()
    [0.652, 0.6744, 0.7235, 0.719]
    >>> rfecv.n_features_, rfecv.get_feature_names_out().tolist()
    (4, ['qid', 'f0', 'f1', 'f2', 'f5'])
    """

    def __init__(self, estimator, *, qid="qid", step=1, min_features_to_select=1, cv=None, scoring=None,
                 n_jobs=None, importance_getter="auto"):
        self.estimator = estimator
        self.qid = qid
        self.step = step
        self.min_features_to_select = min_features_to_select
        self.cv = cv
        self.scoring = scoring
        self.n_jobs = n_jobs
        self.importance_getter = importance_getter

    def _fold(self, X, y, position, features, train, test, scorer, n_to_select, step):
        """Every step of the elimination on the rows ``train``, scored on the rows ``test``."""
        X_test, y_test = _rows(X, test), _rows(y, test)

        def score(estimator, kept):
            return scorer(estimator, self._subset(X_test, features[kept], position), y_test)

        return self._eliminate(_rows(X, train), _rows(y, train), position, features, n_to_select, step, score)[3]

    def fit(self, X, y):
        """Score every number of features in cross-validation, then eliminate down to the best.

        {fit_sections}
        """
        if not (_is_int(self.min_features_to_select) and self.min_features_to_select >= 1):
            raise InputValueError("`min_features_to_select` must be an integer of at least 1. Got "
                                  f"{self.min_features_to_select!r} instead.")
        X, position, query, features = self._query_column(X)
        n_features = len(features)
        if self.min_features_to_select > n_features:
            warnings.warn(f"min_features_to_select={self.min_features_to_select} exceeds the {n_features} features "
                          "of X: all are kept.", UserWarning, stacklevel=2)
        step = self._step_size(n_features)
        scorer = check_scoring(self.estimator, scoring=self.scoring)
        folds = Parallel(n_jobs=self.n_jobs)(
            delayed(self._fold)(X, y, position, features, train, test, scorer,
                                min(self.min_features_to_select, n_features), step)
            for train, test in self._splits(X, y, query))
        # Steps from the fewest features on, as scikit-learn reports them.
        n_kept = np.array([record[0] for record in folds[0]])[::-1]
        scores = np.array([[record[1] for record in fold] for fold in folds], dtype=float)[:, ::-1]
        # np.argmax takes the first best total: the fewest features on equal totals.
        self._finish(X, y, position, features, int(n_kept[np.argmax(scores.sum(axis=0))]), step)
        self.cv_results_ = {"mean_test_score": scores.mean(axis=0), "std_test_score": scores.std(axis=0),
                            **{f"split{i}_test_score": fold for i, fold in enumerate(scores)}}
        for key, column, fill in (("support", 2, True), ("ranking", 3, 1)):
            for i, fold in enumerate(folds):
                self.cv_results_[f"split{i}_{key}"] = np.array([np.insert(record[column], position, fill)
                                                                for record in fold[::-1]])
        self.cv_results_["n_features"] = n_kept
        return self

    def score(self, X, y):
        if self.scoring is None:
            return super().score(X, y)
        return check_scoring(self, scoring=self.scoring)(self, X, y)

    score.__doc__ = _METHOD_DOC.format(what="The score of the fitted selector on X: ``scoring``, or else the fitted "
                                            "estimator's ``score`` on the selected columns", y=_SCORE_Y,
                                       returns=_SCORE_RETURNS)
