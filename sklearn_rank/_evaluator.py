"""RankingEvaluator: a meta-estimator whose ``score`` is a ranking metric."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn import get_config
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._conventions import default_options
from ._engine import DEFINITION_DEFAULTS, DEFINITION_OPTIONS, evaluate as engine_evaluate, read_scorer_name
from ._inputs import _query_codes
from ._estimator_inputs import (as_2d, check_qid_spec, describe_missing_qid, drop_column, qid_column_position,
                                ranking_inputs, read_qid_column, refuse_qid_column_in_column_tool)
from ._ranker_fit import RankerFitMixin, _query_parameter, _safe_len
from ._scorer import check_metric_params, parse_scoring_name
from ._sklearn_compat import EvaluatorTagsMixin, check_features, fitted_for_own_score_in_cv
from .exceptions import InputValueError

__all__ = ["RankingEvaluator"]

_DEFAULT_REPORT_METRICS = ("mrr", "map", "ndcg@10")


def _check_features(estimator, X, *, reset):
    """Record or check n_features_in_ and feature_names_in_ without converting X."""
    if not reset and _same_features(estimator, X):
        return X
    return check_features(estimator, X, reset=reset)


def _same_features(estimator, X):
    """X has exactly the columns seen in fit: the common case, checked without scikit-learn's
    full validation (which a mismatch still goes through, for its errors and warnings)."""
    fitted_names = getattr(estimator, "feature_names_in_", None)
    columns = getattr(X, "columns", None)
    if fitted_names is None or columns is None:
        return False
    return len(columns) == len(fitted_names) and list(columns) == fitted_names.tolist()


def _routing_enabled():
    return get_config().get("enable_metadata_routing", False)


def _estimator_has(attr):
    """The fitted estimator, or else the unfitted one, has ``attr``."""

    def check(self):
        if hasattr(self, "estimator_"):
            return hasattr(self.estimator_, attr)
        return hasattr(self.estimator, attr)

    return check


_D = default_options(ties="expected", gain="linear", no_relevant="skip", targets="first", nan_policy="raise",
                     **DEFINITION_DEFAULTS)
# the options the evaluator takes as parameters of its own (None: the convention's value or the default)
_OPTIONS = ("ties", "gain", "no_relevant", "targets", "nan_policy", *DEFINITION_OPTIONS)


class RankingEvaluator(RankerFitMixin, EvaluatorTagsMixin, MetaEstimatorMixin, BaseEstimator):
    """Wrap a regressor, classifier or ranker; its ``score`` is a ranking metric.

    ``RankingEvaluator`` puts any estimator into scikit-learn's model selection
    with a ranking metric as its score: :func:`~sklearn.model_selection.cross_val_score`
    and :class:`~sklearn.model_selection.GridSearchCV` use ``score`` when no
    ``scoring`` is given. It

    - strips the query-id column ``qid`` from X before the wrapped estimator
      sees it, and reads the query ids from it;
    - forwards query information to rankers that need it in ``fit``: a
      ``qid`` array to estimators whose ``fit`` takes ``qid`` (XGBRanker), or
      ``group`` sizes to those whose ``fit`` takes ``group`` (LGBMRanker),
      with the rows (and row-aligned fit parameters such as ``sample_weight``)
      sorted by query, as these libraries require;
    - prepares evaluation sets for early stopping (``eval_set``): strips their
      query-id column, and for rankers sorts their rows by query and passes
      ``eval_group`` or ``eval_qid`` (see :meth:`fit`);
    - delegates ``predict``, ``predict_proba``, ``predict_log_proba`` and
      ``decision_function`` (each present only when the wrapped estimator has
      it), ``classes_`` and the estimator tags;
    - exposes nested parameters for search (``estimator__max_depth``).

    The layout follows the wrapped estimator and ``y``, exactly as in
    :func:`make_ranking_scorer`: grouped rows for regressors and rankers,
    label-index (rank of the true class among ``classes_``) for classifiers,
    relevance matrix for a 2-D ``y``.

    Read more in the :ref:`User Guide <model_selection_evaluator>`.

    Parameters
    ----------
    estimator : estimator object
        The regressor, classifier or ranker to fit and evaluate.
    metric : str, default="ndcg@10"
        Metric of the registry returned by :meth:`score`.
    qid : str, int or None, default="qid"
        The query-id column of X: a column name (DataFrames) or a column index
        (arrays and DataFrames). ``qid=None`` declares that X has no query-id
        column: query ids then come only from the ``qid`` argument of
        :meth:`fit` and :meth:`score` (or metadata routing), and **without
        them all rows form one single query** — a choice made explicitly by
        setting ``qid=None``. With a column name or index, grouped rows
        without query ids raise an error.
    ties : {"expected", "realistic", "optimistic", "pessimistic", "ordinal"}, default=None
        How tied scores are ranked, as in :func:`sklearn_rank.evaluate`;
        None is ``"expected"``, or the policy of ``convention``.
        This and the next seven engine options are explicit parameters,
        rather than ``**params``, so that ``get_params``, ``clone`` and
        searches see them (``ties`` can be searched over). Those left at
        None take the value of ``convention`` where it sets one, otherwise
        the default of :func:`sklearn_rank.evaluate`.
    gain : {"linear", "exponential"}, default=None
        (n)DCG gain: ``rel`` (None's meaning without a convention) or
        ``2**rel - 1``.
    relevance_level : float, default=None
        An item is relevant when ``y >= relevance_level`` (default: ``y > 0``).
    no_relevant : {"skip", "zero", "one", "error"}, default=None
        What to do with queries without a relevant item (None: ``"skip"``).
    targets : {"first", "all"}, default=None
        Rank statistics: rank of the best-ranked relevant item per query, or
        of every relevant item against the non-relevant candidates only
        (None: ``"first"``).
    ap_denominator : {"relevant", "capped", "retrieved", "list"}, default=None
        What average precision divides by (see :func:`sklearn_rank.evaluate`;
        None: ``"relevant"``).
    nan_policy : {"raise", "omit"}, default=None
        NaN predictions: an error, or those candidates removed before ranking
        (None: ``"raise"``, or the policy of ``convention``).
    convention : str, default=None
        A peer's conventions (``"lightgbm"``, ``"xgboost"``, ``"ranx"``, ...)
        for the engine options left at their defaults; see
        :func:`sklearn_rank.evaluate`.
    precision_denominator, recall_denominator, discount, ideal_dcg, \
stop_probability, average, all_relevant, ap_ties : str, default=None
        The definition options of :func:`sklearn_rank.evaluate` (None: its
        default, or the value of ``convention``).

    Attributes
    ----------
    estimator_ : estimator object
        The fitted clone of ``estimator``.
    classes_ : ndarray of shape (n_classes,)
        The wrapped classifier's classes (only for classifiers).
    n_features_in_ : int
        Number of columns of X seen in ``fit``, the query-id column included.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of X seen in ``fit``, when X is a DataFrame with string
        column names.

    Notes
    -----
    :meth:`score` returns the metric for higher-is-better metrics and its
    negation for lower-is-better ones (``"mr"``, ``"gmr"``, ...), as
    :meth:`sklearn.cluster.KMeans.score` negates its objective: searches
    maximise ``score``. :meth:`evaluate` returns the metrics themselves.

    The evaluator remembers the query ids it was fitted on, and :meth:`score`
    (and :meth:`evaluate`) warn with a ``UserWarning`` when

    - ``fit`` got query ids and ``score`` gets none (``qid=None`` and the query
      ids passed to ``fit`` only, as ``cross_val_score(..., params={"qid":
      qid})`` does without metadata routing): the rows would silently be
      ranked as one query;
    - ``score`` rates queries of which ``fit`` saw rows (a splitter that
      ignores queries, such as ``KFold`` or ``ShuffleSplit``): the warning
      gives their number and points to
      :class:`~sklearn_rank.model_selection.QueryGroupKFold`. Scoring exactly
      the rows of ``fit`` (a training score) does not warn.

    In a scikit-learn cross-validation or search that scores with
    :meth:`score` (no ``scoring=``), :meth:`fit` raises a ``ValueError``
    before any training when that ``score`` could not rank: X lacks the
    query-id column named by ``qid``, metadata routing is off, and the query
    ids were passed to ``fit`` only (or, for a regressor or ranker, not at
    all). scikit-learn's default ``error_score=np.nan`` would otherwise turn
    every failed score into a warning and a NaN, after training every
    candidate on every fold. The message gives the fix: routing, with the
    ``set_fit_request`` flags the wrapped estimator needs, or a query-id
    column.

    For a binary classifier with query ids, a row is relevant when its label
    is the positive class ``classes_[1]`` (see :func:`make_ranking_scorer`).

    Because ``score`` is a ranking metric, not R², the evaluator of a
    regressor sets the ``poor_score`` regressor tag: scikit-learn's common
    checks compare ``score`` with an R² threshold, on targets that are not
    relevance grades (some are negative), which does not apply here. All
    other tags are the wrapped estimator's.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.linear_model import LinearRegression
    >>> from sklearn_rank._evaluator import RankingEvaluator
    >>> X = pd.DataFrame({"qid": [1, 1, 1, 2, 2, 2],
    ...                   "feature": [0.9, 0.1, 0.4, 0.2, 0.8, 0.3]})
    >>> y = [2, 0, 1, 0, 1, 0]
    >>> model = RankingEvaluator(LinearRegression(), metric="mrr").fit(X, y)
    >>> model.estimator_.n_features_in_  # the qid column was stripped
    1
    >>> model.score(X, y)
    1.0
    >>> model.evaluate(X, y)
    RankingReport(n_queries=2, n_skipped=0, ties='expected')
      mrr      1.0000
      map      1.0000
      ndcg@10  1.0000
    """

    # The evaluator consumes query ids itself, in fit and in score.
    __metadata_request__fit = {"qid": True, "eval_qid": True}
    __metadata_request__score = {"qid": True}

    def __init__(self, estimator, *, metric="ndcg@10", qid="qid", ties=None, gain=None, relevance_level=None,
                 no_relevant=None, targets=None, ap_denominator=None, nan_policy=None, convention=None,
                 precision_denominator=None, recall_denominator=None, discount=None, ideal_dcg=None,
                 stop_probability=None, average=None, all_relevant=None, ap_ties=None):
        self.estimator = estimator
        self.metric = metric
        self.qid = qid
        self.ties = ties
        self.gain = gain
        self.relevance_level = relevance_level
        self.no_relevant = no_relevant
        self.targets = targets
        self.ap_denominator = ap_denominator
        self.nan_policy = nan_policy
        self.convention = convention
        self.precision_denominator = precision_denominator
        self.recall_denominator = recall_denominator
        self.discount = discount
        self.ideal_dcg = ideal_dcg
        self.stop_probability = stop_probability
        self.average = average
        self.all_relevant = all_relevant
        self.ap_ties = ap_ties

    # ---- helpers --------------------------------------------------------------------------

    def _metric_params(self):
        # None: the convention's value, else the engine's default (scikit-learn wants plain defaults, so
        # None stands for "not written" here, as the engine's Default markers do in the functions)
        options = {name: _D[name] if getattr(self, name) is None else getattr(self, name)
                   for name in _OPTIONS}
        return check_metric_params({**options, "relevance_level": self.relevance_level,
                                    "convention": self.convention})

    def _split_query(self, X, qid):
        """Return (query ids or None, X without the query-id column)."""
        query, X, _ = self._split_query_column(X, qid)
        return query, X

    def _split_query_column(self, X, qid):
        """Return (query ids or None, X without the query-id column, whether X had that column)."""
        spec = check_qid_spec(self.qid)
        if isinstance(spec, int):
            X = as_2d(X)
        position = qid_column_position(X, spec)
        query = None
        if position is not None:
            refuse_qid_column_in_column_tool("RankingEvaluator", spec)
            query = read_qid_column(X, position)
            X = drop_column(X, position)
        if qid is not None:
            query = np.asarray(qid)
        return query, X, position is not None

    def _missing_qid(self, X):
        return describe_missing_qid("RankingEvaluator", self.qid, X,
                                    extra=" Or set qid=None to declare that all rows of X form one query.")

    # ---- fit and delegation -----------------------------------------------------------------

    def fit(self, X, y, *, qid=None, eval_qid=None, **fit_params):
        """Fit a clone of the wrapped estimator on X without its query-id column.

        Evaluation sets among the fit parameters (for early stopping with
        LightGBM or XGBoost: ``eval_set``, or LightGBM's ``eval_X`` and
        ``eval_y``) are prepared like X: the query-id column is stripped
        from the X of every ``(X, y)`` pair, and for rankers the
        rows of each evaluation set are sorted stably by query (with the
        matching entries of per-evaluation-set lists such as
        ``eval_sample_weight`` or ``eval_init_score``) and their query
        information is passed in the ranker's own convention: ``eval_group``
        (group sizes) to estimators whose ``fit`` takes ``group``
        (LGBMRanker), ``eval_qid`` to those whose ``fit`` takes ``qid``
        (XGBRanker). Other estimators (LGBMRegressor, XGBRegressor, ...) get
        the evaluation sets without the column and no query information.

        For rankers, fit parameters with one value per row (``sample_weight``,
        ``init_score``, ``base_margin``, and the entries of
        ``eval_sample_weight``, ``eval_init_score``, ``base_margin_eval_set``
        and ``sample_weight_eval_set``) follow their rows, and a length other
        than the number of rows raises a ``ValueError``. XGBRanker takes
        ``sample_weight`` and the entries of ``sample_weight_eval_set`` as one
        weight per query, in the order the queries appear in the data: for
        rankers whose ``fit`` takes ``qid``, such weights (their length is the
        number of queries, not the number of rows) are permuted to the sorted
        query order. That order of appearance is defined only when the rows
        of every query are contiguous; per-query weights for data whose
        queries are scattered raise a ``ValueError``. Rows already sorted by
        query are passed on unchanged.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_features)
            Training data, possibly with the query-id column.
        y : array-like of shape (n_rows,) or (n_rows, n_labels)
            Relevance per row, class labels, or a relevance matrix.
        qid : array-like of shape (n_rows,), default=None
            Query ids; they win over the query-id column of X. NaN or None
            among them (argument or column) raises a ``ValueError``.
        eval_qid : list of array-like, default=None
            Query ids of the evaluation sets, one array (or None) per item of
            the ``eval_set`` fit parameter (or of LightGBM's ``eval_X``), as
            in ``XGBRanker.fit``; an array
            wins over the query-id column of that set's X. Needed for rankers
            when the evaluation sets have no query-id column (with
            ``qid=None`` and no ``eval_qid``, each evaluation set is one
            query, as the training rows are). Only rankers (estimators whose
            ``fit`` takes ``group`` or ``qid``) take it.
        **fit_params : dict
            Passed to the wrapped estimator's ``fit`` (with metadata routing:
            those it requests). The ranker's own query arguments (``group``,
            ``qid``, ``eval_group``, ``eval_qid``) are refused: the evaluator
            passes them itself.

        Returns
        -------
        self : RankingEvaluator
        """
        parse_scoring_name(self.metric)
        self._metric_params()
        _check_features(self, X, reset=True)
        query, X_inner, has_column = self._split_query_column(X, qid)
        if not has_column and self.qid is not None:
            self._refuse_unscorable_fit(X, y, qid)
        codes = None
        # What fit saw, for the checks of score(): query ids given to fit but not to score, and queries
        # split between fit and score.
        self._fit_queries = self._fit_query_sizes = None
        if query is not None:
            # The engine's check: one query id per row, no NaN or None (a ranker would train on them).
            uniques, codes, _ = _query_codes(query, _safe_len(y))
            self._fit_queries, self._fit_query_sizes = uniques, np.bincount(codes, minlength=len(uniques))
        if _routing_enabled():
            inner_params = dict(process_routing(self, "fit", **fit_params).estimator.fit)
        else:
            inner_params = dict(fit_params)
        estimator = clone(self.estimator)
        mode = _query_parameter(estimator)
        if mode is not None:
            X_inner, y, inner_params = self._ranker_inputs(X_inner, y, codes, mode, inner_params)
        inner_params = self._eval_set_inputs(inner_params, eval_qid, mode)
        estimator.fit(X_inner, y, **inner_params)
        self.estimator_ = estimator
        return self

    def _refuse_unscorable_fit(self, X, y, qid):
        """Raise, before any training, when a scikit-learn cross-validation or search will score this fit with
        :meth:`score` and ``score`` must fail for want of query ids (X has no query-id column).

        Without metadata routing scikit-learn passes ``qid`` to ``fit`` only; its default
        ``error_score=np.nan`` turns each failed ``score`` into a warning and a NaN, so the search would
        train every candidate on every fold and end with a NaN ``best_score_``. A failed ``fit`` ends it
        with an error instead. Outside such a loop ``score(X, y, qid=...)`` can still get the query ids.
        """
        if _routing_enabled():
            return  # score gets the routed query ids, sliced as those of fit
        if qid is None:
            # No query ids at all: score fails only in the grouped-rows layout (not for a classifier, which
            # ranks its classes per row, nor for a 2-D y, a relevance matrix).
            shape = getattr(y, "shape", None)
            if shape is None:  # a list, or an object that converts (scikit-learn's _NotAnArray refuses np.shape)
                shape = np.asarray(y).shape
            if is_classifier(self.estimator) or not (len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)):
                return
        if not fitted_for_own_score_in_cv(self):
            return
        if qid is None:
            raise InputValueError(describe_missing_qid(
                "RankingEvaluator", self.qid, X, extra=" Or set qid=None to declare that all rows of X form one query. "
                "(Raised by fit, before any training: scikit-learn's cross-validation would score every fold "
                "without query ids and record NaN.)"))
        kind = f"{type(X).__name__} without a query-id column {self.qid!r}"
        raise InputValueError(
            "RankingEvaluator.fit got query ids as `qid=` with metadata routing off, inside a scikit-learn "
            "cross-validation or search that scores with RankingEvaluator.score: without routing, scikit-learn "
            "passes `qid` to fit only, so score would get no query ids for the test rows of any fold (and "
            "error_score=np.nan would record NaN for every fold after training them all). Either (1) switch "
            "metadata routing on for the search: `with sklearn.config_context(enable_metadata_routing=True): "
            "search.fit(X, y, groups=qid, qid=qid)` (cross_validate(..., params={'groups': qid, 'qid': qid})), "
            "which slices qid for fit and score alike. RankingEvaluator requests `qid` for fit and score and "
            "`eval_qid` for fit, QueryGroupKFold requests `groups`; every other fit parameter must be requested by "
            "the wrapped estimator, inside the same block: for LightGBM early stopping "
            "LGBMRanker(...).set_fit_request(eval_X=True, eval_y=True, eval_metric=True, callbacks=True) "
            "(eval_set=True for eval_set, eval_at=True for eval_at), with the query ids of the evaluation set as "
            "eval_qid=[qid_valid]. Or (2) give X a query-id column that fit and score both read: a dense array with "
            "the query ids in column 0, np.column_stack([qid, X.toarray()]) for a sparse X, and "
            "RankingEvaluator(..., qid=0) (or a DataFrame with a 'qid' column). "
            f"Got qid passed to fit with routing off and X {kind} instead.")

    # What fit gives rankers (_ranker_inputs) and evaluation sets (_eval_set_inputs): RankerFitMixin.

    def _check_is_fitted(self):
        if not hasattr(self, "estimator_"):
            check_is_fitted(self)  # raises NotFittedError

    def _inner_X(self, X):
        self._check_is_fitted()
        if _is_2d(X):
            # Other inputs go to the wrapped estimator as they are: it raises its usual error.
            _check_features(self, X, reset=False)
            return self._split_query(X, None)[1]
        return X

    def predict(self, X):
        """Predict with the wrapped estimator on X without its query-id column.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_features)
            Data, possibly with the query-id column.

        Returns
        -------
        y_pred : ndarray
        """
        X_inner = self._inner_X(X)
        return self.estimator_.predict(X_inner)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities of the wrapped classifier (query-id column stripped).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_features)
            Data, possibly with the query-id column.

        Returns
        -------
        proba : ndarray of shape (n_rows, n_classes)
        """
        X_inner = self._inner_X(X)
        return self.estimator_.predict_proba(X_inner)

    @available_if(_estimator_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """Log class probabilities of the wrapped classifier (query-id column stripped).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_features)
            Data, possibly with the query-id column.

        Returns
        -------
        log_proba : ndarray of shape (n_rows, n_classes)
        """
        X_inner = self._inner_X(X)
        return self.estimator_.predict_log_proba(X_inner)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        """Decision function of the wrapped estimator (query-id column stripped).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_features)
            Data, possibly with the query-id column.

        Returns
        -------
        scores : ndarray
        """
        X_inner = self._inner_X(X)
        return self.estimator_.decision_function(X_inner)

    @property
    def classes_(self):
        """Classes of the wrapped classifier."""
        return self.estimator_.classes_

    # ---- the metric ---------------------------------------------------------------------------

    def _report(self, X, y, qid, sample_weight, metrics):
        query, inputs, params = evaluator_inputs(self, X, y, qid)
        self._check_scored_queries(query, inputs)
        return engine_evaluate(**inputs, metrics=metrics, sample_weight=sample_weight, **params)

    def _check_scored_queries(self, query, inputs):
        """Warn when score() gets no query ids although fit() did, or scores queries that fit saw in part.

        Cheap enough for every score() of a search: one pass over the query ids (no sort when the
        rows come grouped) and a set operation on the distinct ids.
        """
        fit_queries = getattr(self, "_fit_queries", None)
        if fit_queries is None or inputs["y_true"].ndim != 1:
            return
        if query is None:
            n_rows = inputs["y_true"].shape[0]
            if "labels" in inputs:
                what = "each row is scored as a query over the classes of the classifier (label-index layout)"
            else:
                what = f"all {n_rows} rows are scored as one single query"
            warnings.warn(
                f"RankingEvaluator.score got no query ids, although fit got them ({len(fit_queries)} queries): "
                f"{what}. Pass them to score as well: score(X, y, qid=...); or with metadata routing "
                "(sklearn.set_config(enable_metadata_routing=True)), where search.fit(X, y, qid=qid) and "
                "cross_validate(..., params={'qid': qid}) slice them for fit and score alike (without routing, "
                "params= reach fit only); or as a query-id column of X (qid='qid' names a DataFrame column, "
                "qid=<int> a column index), which both read.", UserWarning, stacklevel=4)
            return
        queries, sizes = _distinct_queries(query, inputs["y_true"].shape[0])
        if queries is None:
            return  # ids that do not sort: the engine refuses them
        n_seen = int(np.count_nonzero(np.isin(queries, fit_queries)))
        if n_seen == 0:
            return
        if (n_seen == len(fit_queries) == len(queries) and np.array_equal(queries, fit_queries)
                and np.array_equal(sizes, self._fit_query_sizes)):
            return  # the rows of fit itself (a training score): no query is split
        warnings.warn(
            f"{n_seen} of the {len(queries)} queries scored also had rows in fit: the rows of these queries were "
            "split between training and scoring (plain KFold, ShuffleSplit and train_test_split split queries), "
            "so the score rates queries the model has partly seen. Split by query: "
            "cv=sklearn_rank.model_selection.QueryGroupKFold(n_splits) (or GroupKFold with groups=qid).",
            UserWarning, stacklevel=4)

    def score(self, X, y, *, qid=None, sample_weight=None):
        """The ranking metric on X (negated when lower is better).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_features)
            Data, possibly with the query-id column.
        y : array-like of shape (n_rows,) or (n_rows, n_labels)
            Relevance per row, class labels, or a relevance matrix.
        qid : array-like of shape (n_rows,), default=None
            Query ids; they win over the query-id column of X.
        sample_weight : array-like, default=None
            One weight per query (per row, constant within a query, for grouped rows).

        Returns
        -------
        score : float
            ``metric``, or ``-metric`` when the metric is lower-is-better.
        """
        spec, sign = self._metric_spec()
        report = self._report(X, y, qid, sample_weight, [spec])
        return float(sign * report.summary[spec.name])

    def _metric_spec(self):
        """The metric computed for ``metric`` (its name read under ``convention``) and its sign."""
        spec, sign = parse_scoring_name(self.metric)
        return read_scorer_name(self.metric, spec, self.convention), sign

    def evaluate(self, X, y, *, qid=None, sample_weight=None, metrics=None):
        """The full report: several metrics, summary and per query.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_features)
            Data, possibly with the query-id column.
        y : array-like of shape (n_rows,) or (n_rows, n_labels)
            Relevance per row, class labels, or a relevance matrix.
        qid : array-like of shape (n_rows,), default=None
            Query ids; they win over the query-id column of X.
        sample_weight : array-like, default=None
            One weight per query (per row, constant within a query, for grouped rows).
        metrics : str or sequence of str, default=None
            Metrics of the report; by default ``metric`` followed by
            ``("mrr", "map", "ndcg@10")``. Values are not negated.

        Returns
        -------
        report : RankingReport
        """
        if metrics is None:
            spec, _ = self._metric_spec()
            metrics = [spec] + [name for name in _DEFAULT_REPORT_METRICS if name != spec.name]
        return self._report(X, y, qid, sample_weight, metrics)

    # ---- scikit-learn protocols -------------------------------------------------------------

    def get_metadata_routing(self):
        """Metadata routing: the evaluator consumes ``qid``; ``fit`` routes the rest to the estimator.

        Returns
        -------
        routing : MetadataRouter
        """
        return (MetadataRouter(owner=self.__class__.__name__)
                .add_self_request(self)
                .add(estimator=self.estimator, method_mapping=MethodMapping().add(caller="fit", callee="fit")))

    # Estimator tags (the wrapped estimator's, poor_score for regressors): EvaluatorTagsMixin.


def evaluator_inputs(evaluator, X, y, qid):
    """The engine's inputs for a fitted RankingEvaluator's scores of X, and its metric options.

    For use inside the package, not part of the public API: what ``RankingEvaluator.score`` and
    ``evaluate`` compute on, and what the Displays' ``from_estimator`` (:mod:`sklearn_rank.plot`)
    draw, read the evaluator's query ids, features and options in this one place.

    Parameters
    ----------
    evaluator : RankingEvaluator
        A fitted evaluator (``NotFittedError`` otherwise).
    X : array-like or DataFrame of shape (n_rows, n_features)
        Data, possibly with the evaluator's query-id column (left out of what the wrapped estimator sees).
    y : array-like of shape (n_rows,) or (n_rows, n_labels)
        Relevance per row, class labels, or a relevance matrix.
    qid : array-like of shape (n_rows,) or None
        Query ids; they win over the query-id column of X.

    Returns
    -------
    query : ndarray of shape (n_rows,) or None
        The query ids read (None: none given, none in X).
    inputs : dict
        Keyword arguments of the engine: ``y_true``, ``y_score`` and ``qid`` or ``labels``.
    options : dict
        The evaluator's metric options (``ties``, ``gain``, ..., ``relevance_level``, ``convention``).
    """
    evaluator._check_is_fitted()
    if _is_2d(X):
        _check_features(evaluator, X, reset=False)
    query, X_inner = evaluator._split_query(X, qid)
    options = evaluator._metric_params()
    inputs = ranking_inputs(evaluator.estimator_, X_inner, y, query, allow_single_query=evaluator.qid is None,
                            missing_qid_message=lambda: evaluator._missing_qid(X),
                            relevance_level=options.get("relevance_level"))
    return query, inputs, options


def _distinct_queries(query, n_rows):
    """Sorted distinct query ids and the number of rows of each (None, None for ids that do not sort).

    The engine's query codes: no sort when the rows come grouped, and its errors for NaN or None ids.
    """
    try:
        queries, codes, _ = _query_codes(query, n_rows)
    except TypeError:  # ids that do not sort: the engine refuses them, with the same message
        return None, None
    return queries, np.bincount(codes, minlength=len(queries))


def _is_2d(X):
    shape = getattr(X, "shape", None)
    if shape is not None:
        return len(shape) == 2
    return isinstance(X, (list, tuple)) and np.ndim(X) == 2
