"""From a fitted estimator, X and y to the engine's inputs: what the scorers, ``RankingEvaluator``,
``QueryGroupKFold`` and the Displays read the same way.

- the query-id column of X: ``qid`` checked (a column name, a column index or None), the column
  found, read and dropped, and the message for rows without query ids (it names both routes:
  metadata routing and a column);
- :func:`ranking_inputs`: the layout from the estimator and ``y`` (a relevance matrix for a 2-D
  ``y``, the label index for a classifier without query ids, grouped rows otherwise) and the
  estimator's scores read for it (``predict``, ``decision_function`` or ``predict_proba``, in
  ``classes_`` order).
"""

from __future__ import annotations

import functools
import numbers

import numpy as np
import scipy.sparse as sp

from ._inputs import sparse_input_error
from ._sklearn_compat import FINAL_ESTIMATOR, column_tool_on_stack, safe_indexing, selectors_route_metadata
from .exceptions import InputTypeError, InputValueError


# --------------------------------------------------------------------------------------
# the query-id column of X (shared with RankingEvaluator and QueryGroupKFold)
# --------------------------------------------------------------------------------------


def check_qid_spec(qid):
    """``qid`` names the query-id column of X: a column name (str), a column index (int) or None."""
    if qid is None or isinstance(qid, str):
        return qid
    if isinstance(qid, numbers.Integral) and not isinstance(qid, bool):
        return int(qid)
    raise InputTypeError("`qid` must be the name (str) or the index (int) of the query-id column of X, or None. "
                         f"Got {qid!r} of type {type(qid).__name__} instead.")


def _n_columns(X):
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) == 2:
        return int(shape[1])
    return None


def qid_column_position(X, qid):
    """Position of the query-id column ``qid`` in X, or None when X has no such column.

    A string names a column of a DataFrame; an integer is a column index, for
    arrays and DataFrames alike (as in :class:`~sklearn.compose.ColumnTransformer`).
    """
    if qid is None:
        return None
    if isinstance(qid, str):
        columns = getattr(X, "columns", None)
        if columns is None:
            return None
        positions = [i for i, column in enumerate(columns) if isinstance(column, str) and column == qid]
        if len(positions) > 1:
            raise InputValueError(f"X must have one query-id column {qid!r}. Got {len(positions)} columns with that "
                                  "name instead.")
        return positions[0] if positions else None
    n_columns = _n_columns(X)
    if n_columns is None:
        return None
    if not -n_columns <= qid < n_columns:
        raise InputValueError(f"The query-id column index `qid` must lie in [{-n_columns}, {n_columns - 1}] for X "
                              f"with {n_columns} columns. Got {qid} instead.")
    return qid % n_columns


def as_2d(X):
    """Lists of rows become arrays, so that columns can be selected."""
    if isinstance(X, (list, tuple)):
        return np.asarray(X)
    return X


def read_qid_column(X, position):
    """The query ids held in column ``position`` of X, as a 1-D numpy array."""
    if hasattr(X, "iloc"):  # pandas, without the generic indexing's overhead
        return np.asarray(X.iloc[:, position].to_numpy())
    column = safe_indexing(X, position, axis=1)
    if sp.issparse(column):
        return column.toarray().ravel()
    column = np.asarray(column)
    return column.ravel() if column.ndim > 1 else column


def drop_column(X, position):
    """X without column ``position`` (arrays, sparse matrices and DataFrames).

    A first or last column is dropped with a slice, which arrays and DataFrames take
    without copying the other columns.
    """
    n_columns = _n_columns(X)
    if position == 0:
        keep = slice(1, n_columns)
    elif position == n_columns - 1:
        keep = slice(0, n_columns - 1)
    else:
        keep = [i for i in range(n_columns) if i != position]
    if hasattr(X, "iloc"):
        return X.iloc[:, keep]
    if isinstance(X, np.ndarray):
        return X[:, keep]
    return safe_indexing(X, keep, axis=1)


def refuse_qid_column_in_column_tool(owner, qid):
    """Raise when a query-id column of X is read inside a scikit-learn tool that permutes or selects columns.

    scikit-learn's ``permutation_importance`` permutes every column of X, the query-id column too
    (the rows regrouped into other queries: a meaningless importance that looks like any other);
    ``SequentialFeatureSelector``, ``RFE`` and ``RFECV`` treat it as a candidate feature and pass
    column subsets without it. Both are certain whenever such a tool gives a query-id column to
    ``owner`` (``RankingEvaluator``, a scorer, ``QueryGroupKFold``), so it is an error naming the route
    that works. Called only where the column was found (no cost on the other routes).
    """
    message = column_tool_message(owner, qid, found=True)
    if message is not None:
        raise InputValueError(message)


def column_tool_message(owner, qid, *, found):
    """The message for query ids inside a scikit-learn tool that permutes or selects the columns of X, or None
    outside such tools: the query-id column ``qid`` of X was read (``found``) or is missing (the tool's
    column subsets and permuted copies have no query ids, and scikit-learn's permutation_importance routes no
    metadata); both name the route that works."""
    tool = column_tool_on_stack()
    if tool is None:
        return None
    column = "no query-id column" if qid is None else f"the query-id column {qid!r}"
    if tool == "sklearn.inspection.permutation_importance":
        what = (f"{owner} read {column} of X inside sklearn.inspection.permutation_importance, which permutes every "
                "column of X in turn: permuting the query ids regroups the rows into other queries, so the importance "
                "it would report for that column is meaningless and looks like any other." if found else
                f"{owner} needs query ids inside sklearn.inspection.permutation_importance, which routes no metadata "
                "(and would permute a query-id column of X like any other column).")
        got = (f"Got {column} in the X of scikit-learn's permutation_importance instead." if found else
               f"Got {column} in X and no routed query ids instead." if qid is None else
               f"Got no column {qid!r} in X and no routed query ids instead.")
        return (what + " Use sklearn_rank.inspection.permutation_importance(estimator, X, y, metric='ndcg@10'), which "
                "takes the query ids from a RankingEvaluator's column or as qid=..., never permutes them, and "
                "shuffles each feature within queries. " + got)
    older = ("" if selectors_route_metadata() else
             "; the installed scikit-learn is older: its selectors pass no metadata")
    what = (f"{owner} read {column} of X inside {tool}, which fits, splits and scores subsets of the columns of "
            "X: the query-id column would be one more candidate feature, and the subsets without it have no query "
            "ids." if found else
            f"{owner} needs query ids inside {tool}, which fits, splits and scores subsets of the columns of X as "
            "arrays without column names: a query-id column of X does not reach it (and would be one more "
            "candidate feature).")
    got = (f"Got {column} in the X that {tool} passed instead." if found else
           f"Got no column {qid!r} in the X that {tool} passed instead." if qid is not None else
           "Got no query ids instead.")
    return (what + " Select features with sklearn_rank.feature_selection.SequentialFeatureSelector, RFE or RFECV "
            "(every supported scikit-learn), which keep the query-id column of X in every subset: "
            "SequentialFeatureSelector(RankingEvaluator(Ridge()), cv=QueryGroupKFold(3)).fit(X, y); or with "
            "scikit-learn's selectors by metadata routing (scikit-learn >= 1.6" + older + "), with X holding the "
            "features only: with sklearn.config_context(enable_metadata_routing=True): "
            "SequentialFeatureSelector(Ridge(), scoring=make_ranking_scorer('ndcg@10'), cv=QueryGroupKFold(3))"
            ".fit(X, y, groups=qid, qid=qid), and RFECV(Ridge(), scoring=..., cv=...) likewise. " + got)


def describe_missing_qid(owner, qid, X, extra=""):
    """The error message for rows without query ids: it names both routes (inside a scikit-learn tool that
    permutes or selects the columns of X, the route that works there)."""
    in_tool = column_tool_message(owner, qid, found=False)
    if in_tool is not None:
        return in_tool
    if qid is None:
        where = "no query-id column was declared (`qid=None`)"
    elif isinstance(qid, str):
        kind = "a DataFrame" if hasattr(X, "columns") else f"{type(X).__name__} without column names"
        where = f"X is {kind} with no column named {qid!r}"
    else:
        where = f"X has no column {qid}"
    return (f"{owner} needs query ids to rank the rows of X (1-D y with a regressor or ranker is the grouped-rows "
            "layout). Give them one of two ways: (1) metadata routing: with sklearn.config_context("
            "enable_metadata_routing=True) (or sklearn.set_config), pass qid=... to fit, e.g. "
            "GridSearchCV(...).fit(X, y, qid=qid) or "
            "cross_validate(..., params={'qid': qid}), which slices it per fold; or (2) a query-id column in X: "
            "qid='qid' names a DataFrame column, qid=<int> a column index." + extra + f" Got {where} instead.")


# --------------------------------------------------------------------------------------
# from an estimator and y to the inputs of evaluate
# --------------------------------------------------------------------------------------


def _target_array(y):
    if y is None:
        raise InputValueError("Ranking metrics need the true relevance or class of every row. Got y=None instead.")
    if sp.issparse(y):
        raise sparse_input_error(y, "y")
    to_numpy = getattr(y, "to_numpy", None)
    y = np.asarray(to_numpy() if to_numpy is not None else y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    return y


def _score_array(values, method):
    if isinstance(values, list):
        raise InputTypeError(
            f"{method} returned a list; expected an array. Got a list of {len(values)} arrays instead.")
    return np.asarray(values)


def _estimator_chain(estimator, max_depth=8):
    """The estimator, then what it wraps: a pipeline's last step, a fitted meta-estimator's
    ``estimator_`` or a search's ``best_estimator_``."""
    for _ in range(max_depth):
        if estimator is None:
            return
        yield estimator
        inner = None
        for attribute in (FINAL_ESTIMATOR, "estimator_", "best_estimator_"):
            try:
                inner = getattr(estimator, attribute, None)
            except Exception:  # a property of an unfitted meta-estimator may raise anything
                inner = None
            if inner is not None and inner is not estimator and not isinstance(inner, str):
                break
            inner = None
        estimator = inner


def _one_vs_one_columns(estimator, n_columns, n_classes):
    """decision_function gives one column per pair of classes (``decision_function_shape="ovo"``)."""
    if n_classes < 3:
        return False  # a binary one-vs-one decision function is the usual single column
    if n_columns == n_classes * (n_classes - 1) // 2 and n_columns != n_classes:
        return True
    return any(getattr(step, "decision_function_shape", None) == "ovo" for step in _estimator_chain(estimator))


def _class_scores(estimator, call, classes):
    """Scores of every class, columns in ``classes`` order (label-index layout).

    ``decision_function`` is preferred; one-vs-one decision values (a column per
    pair of classes, ``SVC(decision_function_shape="ovo")``) are no class scores,
    so ``predict_proba`` is used instead when the estimator has it, and otherwise
    the scores are refused.
    """
    n_classes = len(classes)
    if hasattr(estimator, "decision_function"):
        scores = _score_array(call("decision_function"), "decision_function")
        if scores.ndim == 1 or (scores.ndim == 2 and scores.shape[1] == 1 and n_classes == 2):
            # Binary decision_function scores classes_[1]: classes_[0] gets the opposite score.
            scores = scores.reshape(-1)
            return np.column_stack([-scores, scores])
        n_columns = scores.shape[1] if scores.ndim == 2 else None
        if n_columns is not None and _one_vs_one_columns(estimator, n_columns, n_classes):
            if hasattr(estimator, "predict_proba"):
                return _check_class_columns(_score_array(call("predict_proba"), "predict_proba"), n_classes,
                                            "predict_proba")
            raise InputValueError("Ranking the classes needs one score per class, and a one-vs-one decision_function "
                                  "(decision_function_shape='ovo') gives one column per pair of classes. Use "
                                  "decision_function_shape='ovr' (SVC's default) or a classifier with predict_proba "
                                  "(CalibratedClassifierCV(SVC(...))). Got "
                                  f"{n_columns} one-vs-one columns for {n_classes} classes instead.")
        return _check_class_columns(scores, n_classes, "decision_function")
    if hasattr(estimator, "predict_proba"):
        return _check_class_columns(_score_array(call("predict_proba"), "predict_proba"), n_classes,
                                    "predict_proba")
    raise InputTypeError(f"A classifier must have decision_function or predict_proba to rank its classes. "
                         f"Got {type(estimator).__name__} with neither instead.")


def _check_class_columns(scores, n_classes, method):
    if scores.ndim != 2 or scores.shape[1] != n_classes:
        raise InputValueError(f"Ranking the classes needs one column of {method} per class of estimator.classes_ "
                              f"({n_classes}). Got shape {scores.shape} instead.")
    return scores


def _binary_relevance(y_true, classes, relevance_level):
    """Relevance of each row for a binary classifier: 1 for the positive class ``classes[1]``, else 0.

    The labels are class names, not grades (classes {1, 2} would otherwise make every row
    relevant). Anything that is not one of the two classes is ambiguous and refused.
    """
    unseen = ~np.isin(y_true, classes)
    if unseen.any():
        raise InputValueError(
            "A binary classifier ranks rows by the score of its positive class estimator.classes_[1] "
            f"({classes[1]!r}), and a row is relevant when y == classes_[1]: y must hold its two classes "
            f"{classes.tolist()} (for graded relevance use a regressor or a ranker). Got "
            f"{np.unique(y_true[unseen])[:5].tolist()} in y instead.")
    if relevance_level is not None:
        raise InputValueError(
            "`relevance_level` applies to graded relevance; with a binary classifier a row is relevant "
            f"when y == classes_[1] ({classes[1]!r}). Got relevance_level={relevance_level!r} instead.")
    return (y_true == classes[1]).astype(np.int8)


def _positive_class_scores(estimator, call, classes):
    """One score per row for a classifier in the grouped layout (binary: positive class; else expected grade)."""
    classes = np.asarray(classes)
    if len(classes) == 2:
        if hasattr(estimator, "decision_function"):
            return np.asarray(call("decision_function")).reshape(-1)
        return np.asarray(call("predict_proba"))[:, 1]
    if len(classes) > 2 and classes.dtype.kind in "iuf" and hasattr(estimator, "predict_proba"):
        # Graded relevance classes: rank by the expected grade.
        return np.asarray(call("predict_proba")) @ classes.astype(np.float64)
    raise InputTypeError("A classifier used with query ids needs two classes, or numeric graded classes and "
                         f"predict_proba. Got classes {classes.tolist()[:10]} instead.")


def _multilabel_scores(estimator, call, classes, n_outputs):
    """Relevance-matrix layout: one column of scores per output."""
    if classes is None:
        scores = np.asarray(call("predict"))
    elif hasattr(estimator, "decision_function"):
        scores = np.asarray(call("decision_function"))
    elif hasattr(estimator, "predict_proba"):
        proba = call("predict_proba")
        if isinstance(proba, list):
            # One (n_rows, n_classes_k) array per output, in the order of classes_[k].
            columns = []
            for output_classes, output_proba in zip(classes, proba):
                output_classes = np.asarray(output_classes)
                positive = np.flatnonzero(output_classes == 1)
                if positive.size:
                    columns.append(np.asarray(output_proba)[:, positive[0]])
                else:  # the label was never set in the training rows
                    columns.append(np.zeros(np.asarray(output_proba).shape[0]))
            scores = np.column_stack(columns)
        else:
            scores = np.asarray(proba)
    else:
        raise InputTypeError("A multilabel classifier must have decision_function or predict_proba. "
                             f"Got {type(estimator).__name__} with neither instead.")
    if scores.ndim != 2 or scores.shape[1] != n_outputs:
        raise InputValueError(f"The estimator's scores must have one column per column of y ({n_outputs}). "
                              f"Got shape {scores.shape} instead.")
    return scores


def _response(estimator, X, responses, method):
    """``estimator.<method>(X)``, taken from ``responses`` when another scorer of the same call computed it.

    ``responses`` is the dict scikit-learn shares between the scorers of a ``scoring=`` dict for one
    scoring call (see :class:`~sklearn_rank._sklearn_compat.SharedResponseScorer`), or None. The raw
    output is kept under a key of this package's own, which scikit-learn's scorers never read (they keep
    post-processed responses under the method's name); nothing here changes it in place.
    """
    if responses is None:
        return getattr(estimator, method)(X)
    key = ("sklearn_rank", method)
    if key not in responses:
        responses[key] = getattr(estimator, method)(X)
    return responses[key]


def ranking_inputs(estimator, X, y, query, *, allow_single_query, missing_qid_message, relevance_level=None,
                   responses=None):
    """Turn a fitted estimator, X and y into the keyword arguments of :func:`evaluate`.

    - 2-D y (multilabel indicator or graded relevance matrix): relevance-matrix layout;
    - a classifier (``classes_``) without query ids: label-index layout with
      ``labels=estimator.classes_``;
    - otherwise grouped rows with ``qid=query`` (one query only when
      ``allow_single_query``); for a binary classifier the relevance is
      ``y == classes_[1]``, for other estimators ``y`` itself.

    ``responses``: a dict shared by the scorers of one scoring call, where the estimator's outputs
    are kept for the next scorer (see :func:`_response`), or None.
    """
    call = functools.partial(_response, estimator, X, responses)
    y_true = _target_array(y)
    classes = getattr(estimator, "classes_", None)
    if y_true.ndim == 2:
        if query is not None:
            raise InputValueError(
                "Query ids are for 1-D y (grouped rows); a 2-D y is a relevance matrix whose rows are "
                f"the queries. Got query ids with y of shape {y_true.shape} instead.")
        return {"y_true": y_true, "y_score": _multilabel_scores(estimator, call, classes, y_true.shape[1])}
    if y_true.ndim != 1:
        raise InputValueError(f"y must be 1-D (relevance or class per row) or 2-D (relevance matrix). "
                              f"Got shape {y_true.shape} instead.")
    if classes is not None and query is None:
        classes = np.asarray(classes)
        if classes.ndim != 1:
            raise InputValueError(f"A 1-D y needs a single-output classifier. Got classes_ of shape {classes.shape} "
                                  "instead.")
        unseen = ~np.isin(y_true, classes)
        if unseen.any():
            raise InputValueError("y holds class labels that the estimator did not see in fit (estimator.classes_), so "
                                  "their rank is undefined; make sure every class is in every training fold (e.g. a "
                                  f"stratified split). Got {np.unique(y_true[unseen])[:5].tolist()} instead.")
        return {"y_true": y_true, "y_score": _class_scores(estimator, call, classes), "labels": classes}
    if query is None and not allow_single_query:
        raise InputValueError(missing_qid_message() if callable(missing_qid_message) else missing_qid_message)
    if classes is not None:
        classes = np.asarray(classes)
        if classes.ndim == 1 and len(classes) == 2:
            y_true = _binary_relevance(y_true, classes, relevance_level)
        y_score = _positive_class_scores(estimator, call, classes)
    else:
        y_score = np.asarray(call("predict"))
        if y_score.ndim == 2 and y_score.shape[1] == 1:
            y_score = y_score.ravel()
    return {"y_true": y_true, "y_score": y_score, "qid": query}
