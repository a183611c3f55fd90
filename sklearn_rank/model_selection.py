"""Cross-validation that keeps every query whole: :class:`QueryGroupKFold`."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.model_selection import BaseCrossValidator
from sklearn.utils import check_random_state

from ._inputs import _query_codes
from ._estimator_inputs import (as_2d, check_qid_spec, column_tool_message, qid_column_position, read_qid_column,
                                refuse_qid_column_in_column_tool)
from .exceptions import InputTypeError, InputValueError

__all__ = ["QueryGroupKFold"]


class QueryGroupKFold(BaseCrossValidator):
    """K-fold over queries: the rows of a query are never split across folds.

    Query ids come from ``groups`` when given, or else from the query-id
    column ``qid`` of X, so ``cross_val_score(RankingEvaluator(LGBMRanker()),
    X, y, cv=QueryGroupKFold(5))`` needs nothing else when X holds a ``qid``
    column.

    Folds are balanced by number of rows. Without shuffling the assignment is
    deterministic: queries are sorted by size (largest first, ties by query
    id) and dealt to the folds in snake order (0, 1, ..., k-1, k-1, ..., 0, 0,
    ...). With ``shuffle=True`` the queries are dealt in an order drawn from
    ``random_state``, so folds hold about the same number of queries.

    Read more in the :ref:`User Guide <model_selection_splitting>`.

    Parameters
    ----------
    n_splits : int, default=5
        Number of folds, at least 2 and at most the number of queries.
    qid : str, int or None, default="qid"
        The query-id column of X (column name for DataFrames, column index
        for arrays), read when ``groups`` is not given. The column is left in
        X (:class:`RankingEvaluator` strips it).
    shuffle : bool, default=False
        Whether to deal the queries in a random order.
    random_state : int, RandomState instance or None, default=None
        Seed of the order when ``shuffle=True``; must be None otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.model_selection import QueryGroupKFold
    >>> qid = np.array([1, 1, 1, 2, 2, 3, 3, 3, 3, 4])
    >>> X = np.zeros((10, 2))
    >>> for train, test in QueryGroupKFold(2).split(X, groups=qid):
    ...     print(test, np.unique(qid[test]))
    [5 6 7 8 9] [3 4]
    [0 1 2 3 4] [1 2]
    """

    # Query ids reach split() as `groups`, also with metadata routing.
    __metadata_request__split = {"groups": True}

    def __init__(self, n_splits=5, *, qid="qid", shuffle=False, random_state=None):
        self.n_splits = n_splits
        self.qid = qid
        self.shuffle = shuffle
        self.random_state = random_state

    def _check_params(self):
        if isinstance(self.n_splits, bool) or not isinstance(self.n_splits, numbers.Integral):
            raise InputTypeError(f"`n_splits` must be an integer. Got {self.n_splits!r} of type "
                                 f"{type(self.n_splits).__name__} instead.")
        if self.n_splits < 2:
            raise InputValueError(f"`n_splits` must be at least 2. Got {self.n_splits} instead.")
        if not isinstance(self.shuffle, (bool, np.bool_)):
            raise InputTypeError(f"`shuffle` must be True or False. Got {self.shuffle!r} instead.")
        if not self.shuffle and self.random_state is not None:
            raise InputValueError(
                "`random_state` has no effect unless shuffle=True: leave it None or set shuffle=True. "
                f"Got random_state={self.random_state!r} instead.")
        return check_qid_spec(self.qid)

    def get_n_splits(self, X=None, y=None, groups=None):
        """Number of folds.

        Parameters
        ----------
        X, y, groups : object
            Ignored, present for API compatibility.

        Returns
        -------
        n_splits : int
        """
        self._check_params()
        return int(self.n_splits)

    def _query_ids(self, X, groups, spec):
        if groups is not None:
            query = np.asarray(groups)
            if query.ndim != 1:
                raise InputValueError(
                    f"`groups` must be 1-D with one query id per row. Got shape {query.shape} instead.")
            return query
        X_cols = as_2d(X) if isinstance(spec, int) else X
        position = qid_column_position(X_cols, spec)
        if position is None:
            in_tool = column_tool_message("QueryGroupKFold", spec, found=False)
            if in_tool is not None:
                raise InputValueError(in_tool)
            where = (f"no column {spec!r} in X" if spec is not None else "qid=None")
            raise InputValueError("QueryGroupKFold needs query ids: pass groups=qid to split (cross_val_score(..., "
                                  "groups=qid), GridSearchCV(...).fit(X, y, groups=qid)), or give X a query-id column "
                                  f"(qid='qid' names a DataFrame column, qid=<int> a column index). Got {where} "
                                  "instead.")
        refuse_qid_column_in_column_tool("QueryGroupKFold", spec)
        return read_qid_column(X_cols, position)

    def split(self, X, y=None, groups=None):
        """Generate train and test row indices; each query falls in one test fold.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_rows, n_features)
            Data; its query-id column is read when ``groups`` is None.
        y : object
            Ignored.
        groups : array-like of shape (n_rows,), default=None
            Query id of every row.

        Yields
        ------
        train : ndarray
            Sorted indices of the training rows.
        test : ndarray
            Sorted indices of the test rows.
        """
        spec = self._check_params()
        query = self._query_ids(X, groups, spec)
        n_rows = _n_rows(X) if X is not None else query.shape[0]
        if query.shape[0] != n_rows:
            raise InputValueError(f"The query ids must have one entry per row of X ({n_rows}). Got {query.shape[0]} "
                                  "instead.")
        # The engine's query codes: no sort when the rows come grouped, and NaN or None ids refused
        # (rows without a query id are no query).
        _, codes, _ = _query_codes(query, n_rows)
        sizes = np.bincount(codes)
        n_queries = sizes.shape[0]
        if self.n_splits > n_queries:
            raise InputValueError(f"`n_splits` must not exceed the number of queries ({n_queries}). Got "
                                  f"{self.n_splits} instead.")
        if self.shuffle:
            order = check_random_state(self.random_state).permutation(n_queries)
        else:
            order = np.argsort(-sizes, kind="stable")
        position = np.arange(n_queries)
        lap, seat = np.divmod(position, self.n_splits)
        fold_at_position = np.where(lap % 2 == 0, seat, self.n_splits - 1 - seat)
        fold_of_query = np.empty(n_queries, dtype=np.intp)
        fold_of_query[order] = fold_at_position
        fold_of_row = fold_of_query[codes]
        rows = np.arange(n_rows)
        for fold in range(self.n_splits):
            in_test = fold_of_row == fold
            yield rows[~in_test], rows[in_test]


def _n_rows(X):
    """Number of rows of X: ``shape[0]`` when X has a shape (arrays, DataFrames, sparse matrices, whose
    ``len()`` raises), else ``len(X)`` (lists)."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    return len(X)
