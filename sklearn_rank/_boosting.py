"""Training-time metric bridges: any metric of the registry as LightGBM's or XGBoost's custom evaluation.

Early stopping then monitors exactly the metric used in model selection (MRR, ``hits@10``, ...), computed
by the engine on each evaluation set's predictions, with its query groups. Neither engine is imported
here: the bridges recognise the engines' data objects by their methods.
"""

from __future__ import annotations

import inspect
import numbers
import warnings

import numpy as np

from . import _engine
from ._registry import get_metric
from .exceptions import InputTypeError, InputValueError

__all__ = ["LightGBMMetric", "XGBoostMetric", "lightgbm_metric", "xgboost_metric"]

# Arguments of the engine that carry data, not options: the bridge supplies them.
_DATA_ARGUMENTS = frozenset({"y_true", "y_score", "metrics", "qid", "exclude", "labels", "sample_weight", "judged",
                             "unjudged", "report_params"})


def _engine_options():
    return [name for name in inspect.signature(_engine.evaluate).parameters if name not in _DATA_ARGUMENTS]


class _MetricBridge:
    """The shared part: the metric, its options, and the engine on grouped predictions."""

    _factory = None  # the public function's name, for repr and messages

    def __init__(self, metric, *, name=None, **params):
        if not isinstance(metric, str):
            raise InputTypeError(f"`metric` must be the name of a metric of the registry (str). Got "
                                 f"{type(metric).__name__} instead.")
        spec = get_metric(metric)
        options = _engine_options()
        unknown = sorted(set(params) - set(options))
        if unknown:
            raise InputTypeError(f"{self._factory} takes the engine's options {options}; the data (labels, "
                                 f"predictions, groups, weights) come from the engine. Got {unknown} instead.")
        if name is not None and (not isinstance(name, str) or not name):
            raise InputTypeError(f"`name` must be a non-empty str or None. Got {name!r} instead.")
        # One tiny evaluation checks the option values now rather than at the first boosting round.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            level = params.get("relevance_level")
            top = max(level, 1) if isinstance(level, numbers.Real) and np.isfinite(level) else 1
            _engine.evaluate(np.array([top, 0]), np.array([1.0, 0.0]), qid=np.zeros(2, dtype=np.intp),
                             metrics=[metric], **params)
        self.metric = metric
        self.params = dict(params)
        self.name = spec.name if name is None else name
        self.greater_is_better = spec.greater_is_better
        self.__name__ = self.name  # XGBoost and logs read it

    def __repr__(self):
        arguments = [repr(self.metric)]
        if self.name != get_metric(self.metric).name:
            arguments.append(f"name={self.name!r}")
        arguments += [f"{key}={value!r}" for key, value in self.params.items()]
        return f"{self._factory}({', '.join(arguments)})"

    def _compute(self, labels, predictions, group_sizes, query_weight):
        """The metric over the queries of consecutive rows ``group_sizes``, weighted by ``query_weight``
        (one weight per query, or None)."""
        labels = np.asarray(labels).reshape(-1)
        predictions = np.asarray(predictions)
        if predictions.ndim == 2 and predictions.shape[1] == 1:
            predictions = predictions[:, 0]
        if predictions.ndim != 1 or predictions.shape[0] != labels.shape[0]:
            raise InputValueError(f"{self._factory} ranks one score per row: the predictions must have shape "
                                  f"({labels.shape[0]},). Got shape {predictions.shape} instead (a multi-class or "
                                  "multi-output objective has no ranking).")
        sizes = np.asarray(group_sizes, dtype=np.int64).reshape(-1)
        if sizes.sum() != labels.shape[0] or (sizes < 0).any():
            raise InputValueError(f"The query groups must have non-negative sizes summing to the number of rows "
                                  f"({labels.shape[0]}). Got sizes summing to {int(sizes.sum())} instead.")
        keep = sizes > 0
        sizes = sizes[keep]
        codes = np.repeat(np.arange(sizes.shape[0]), sizes)
        row_weight = None
        if query_weight is not None:
            row_weight = np.repeat(np.asarray(query_weight, dtype=np.float64)[keep], sizes)
        report = _engine.evaluate(labels, predictions, qid=codes, metrics=[self.metric], sample_weight=row_weight,
                                  **self.params)
        return float(report.summary[self.metric])


def _missing_groups(factory, where):
    return (f"{factory} computes a ranking metric over the queries of the evaluation data, and {where} has no "
            "query groups. Got no groups instead.")


class LightGBMMetric(_MetricBridge):
    """A metric of the registry as LightGBM's custom evaluation function.

    Build it with :func:`lightgbm_metric`. The same object serves both of
    LightGBM's interfaces:

    - the scikit-learn API (``LGBMRanker.fit(..., eval_metric=metric)``)
      calls it as ``metric(y_true, y_pred, weight, group)``, with ``group``
      the query sizes of the evaluation set (``eval_group``);
    - :func:`lightgbm.train` (``feval=metric``) calls it as
      ``metric(preds, eval_data)`` with the :class:`lightgbm.Dataset`;
      labels, weights and groups then come from ``eval_data`` (its
      ``get_group()``).

    It returns ``(name, value, is_higher_better)``, LightGBM's convention;
    ``is_higher_better`` is the metric's direction (``False`` for ``"mr"``),
    so early stopping needs nothing else. Evaluation data without query
    groups (``LGBMRegressor``, a ``Dataset`` without ``group``) is an error:
    the bridge never ranks all rows as one query.

    LightGBM gives one weight per row; as in LightGBM's own ranking metrics,
    a query's weight is the mean weight of its rows.

    Parameters
    ----------
    metric : str
        Name of a metric of the registry (``"mrr"``, ``"hits@10"``,
        ``"ndcg@5"``, ``"map"``, ``"mr"``, ...).
    name : str, default=None
        Name under which LightGBM logs and records the metric (the key of
        ``evals_result_``); by default the registry's canonical name of
        ``metric``.
    **params : dict
        Options of :func:`sklearn_rank.evaluate` (``ties``, ``gain``,
        ``relevance_level``, ``no_relevant``, ``targets``, ...), checked when
        the bridge is built.

    Attributes
    ----------
    metric : str
        ``metric`` as given.
    params : dict
        The engine options.
    name : str
        The logged name (also ``__name__``).
    greater_is_better : bool
        The metric's direction, returned to LightGBM as ``is_higher_better``.

    See Also
    --------
    lightgbm_metric : Build it.
    XGBoostMetric : The same for XGBoost.

    Examples
    --------
    >>> from sklearn_rank import LightGBMMetric
    >>> metric = LightGBMMetric("hits@3")
    >>> metric([1, 0, 0, 0, 0, 1], [0.1, 0.9, 0.8, 0.7, 0.6, 0.5], None, [4, 2])
    ('hits@3', 0.5, True)
    """

    _factory = "lightgbm_metric"

    def __call__(self, y_true, y_pred, weight=None, group=None):
        """The metric on an evaluation set, in either of LightGBM's calling conventions.

        Parameters
        ----------
        y_true : ndarray of shape (n_rows,)
            Relevance labels (scikit-learn API); with :func:`lightgbm.train`,
            the predictions.
        y_pred : ndarray of shape (n_rows,) or lightgbm.Dataset
            Predictions (scikit-learn API); with :func:`lightgbm.train`, the
            evaluation Dataset, which holds labels, weights and groups.
        weight : ndarray of shape (n_rows,), default=None
            Row weights (scikit-learn API); a query weighs the mean of its rows.
        group : ndarray of shape (n_queries,), default=None
            Sizes of the queries of consecutive rows (scikit-learn API).

        Returns
        -------
        name : str
            The bridge's name.
        value : float
            The metric over the queries.
        is_higher_better : bool
            The metric's direction.
        """
        # Four parameters: LightGBM's scikit-learn API counts them to pass weight and group.
        if hasattr(y_pred, "get_group") and hasattr(y_pred, "get_label"):  # lightgbm.train: (preds, Dataset)
            predictions, dataset = y_true, y_pred
            y_true, weight, group = dataset.get_label(), dataset.get_weight(), dataset.get_group()
            where = "this lightgbm.Dataset (build it with group=...)"
        else:
            predictions = y_pred
            where = ("the evaluation set (LightGBM's scikit-learn API passes groups to rankers only: LGBMRanker with "
                     "eval_group=...)")
        if group is None:
            raise InputValueError(_missing_groups(self._factory, where))
        sizes = np.asarray(group, dtype=np.int64).reshape(-1)
        query_weight = None
        if weight is not None and np.size(weight) > 0:
            weight = np.asarray(weight, dtype=np.float64).reshape(-1)
            if weight.shape[0] != sizes.sum():
                raise InputValueError(f"LightGBM's weights must have one value per row ({int(sizes.sum())}). Got "
                                      f"{weight.shape[0]} instead.")
            # LightGBM's query weight: the mean weight of the query's rows.
            starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
            nonempty = sizes > 0
            query_weight = np.zeros(sizes.shape[0])
            query_weight[nonempty] = np.add.reduceat(weight, starts[nonempty]) / sizes[nonempty]
        value = self._compute(y_true, predictions, sizes, query_weight)
        return self.name, value, self.greater_is_better


class XGBoostMetric(_MetricBridge):
    """A metric of the registry as XGBoost's custom evaluation function.

    Build it with :func:`xgboost_metric` and pass it as
    ``xgboost.train(..., custom_metric=metric)``. XGBoost calls it as
    ``metric(predt, dtrain)`` with each evaluation :class:`xgboost.DMatrix`;
    the query groups come from the DMatrix (its ``group_ptr``, set by
    ``DMatrix(..., qid=...)`` or ``group=``), the weights from its
    ``get_weight()`` (one per query in XGBoost's learning to rank). It
    returns ``(name, value)``.

    XGBoost does not ask a custom metric for its direction, and guesses it
    from the name when early stopping (``"mrr"`` or ``"hits@10"`` would be
    minimised): pass ``maximize=metric.maximize`` to :func:`xgboost.train`
    (or to ``xgboost.callback.EarlyStopping``).

    XGBoost's scikit-learn estimators cannot use it, and it raises a
    ``TypeError`` there rather than compute something else: their
    ``eval_metric`` callable receives label and prediction arrays without
    query information. ``XGBRanker`` (xgboost 2 and 3) calls it once per
    query and averages the values weighted by each query's number of rows,
    and scores one-row queries 1.0 without calling it; ``XGBRegressor``
    passes all rows at once. Use :func:`xgboost.train` for early stopping on
    a registry metric, or ``XGBRanker``'s own metrics (``eval_metric="ndcg@10"``,
    ``"map@10"``) through :class:`RankingEvaluator` (see :doc:`/lightgbm_xgboost`).

    Parameters
    ----------
    metric : str
        Name of a metric of the registry (``"mrr"``, ``"hits@10"``,
        ``"ndcg@5"``, ``"map"``, ``"mr"``, ...).
    name : str, default=None
        Name under which XGBoost logs and records the metric (the key of
        ``evals_result``); by default the registry's canonical name of
        ``metric``.
    **params : dict
        Options of :func:`sklearn_rank.evaluate` (``ties``, ``gain``,
        ``relevance_level``, ``no_relevant``, ``targets``, ...), checked when
        the bridge is built.

    Attributes
    ----------
    metric : str
        ``metric`` as given.
    params : dict
        The engine options.
    name : str
        The logged name (also ``__name__``).
    greater_is_better : bool
        The metric's direction.
    maximize : bool
        The same, under the name of :func:`xgboost.train`'s argument.

    See Also
    --------
    xgboost_metric : Build it.
    LightGBMMetric : The same for LightGBM.

    Examples
    --------
    >>> import numpy as np
    >>> import xgboost as xgb
    >>> from sklearn_rank import XGBoostMetric
    >>> dmatrix = xgb.DMatrix(np.zeros((6, 1)), label=[1, 0, 0, 0, 0, 1], qid=[0, 0, 0, 0, 1, 1])
    >>> metric = XGBoostMetric("mr")
    >>> metric(np.array([0.1, 0.9, 0.8, 0.7, 0.6, 0.5]), dmatrix), metric.maximize
    (('mr', 3.0), False)
    """

    _factory = "xgboost_metric"

    @property
    def maximize(self):
        return self.greater_is_better

    def __call__(self, predt, dtrain):
        """The metric on an evaluation DMatrix (``xgboost.train``'s ``custom_metric`` convention).

        Parameters
        ----------
        predt : ndarray of shape (n_rows,)
            Predictions of the current model on ``dtrain``.
        dtrain : xgboost.DMatrix
            The evaluation data, with its labels and query groups.

        Returns
        -------
        name : str
            The bridge's name.
        value : float
            The metric over the queries.
        """
        if not hasattr(dtrain, "get_uint_info"):
            raise InputTypeError(
                f"{self._factory}({self.metric!r}) is XGBoost's custom_metric for xgboost.train(..., "
                "custom_metric=...), called with the predictions and the DMatrix. XGBoost's scikit-learn "
                "estimators call a callable eval_metric with label and prediction arrays only (XGBRanker: once per "
                "query, then a mean weighted by the number of rows of each query), which cannot give the metric "
                "over the queries. Use xgboost.train, or an XGBoost metric through RankingEvaluator. Got "
                f"{type(dtrain).__name__} instead of a DMatrix.")
        group_ptr = np.asarray(dtrain.get_uint_info("group_ptr"), dtype=np.int64)
        if group_ptr.size < 2:
            raise InputValueError(_missing_groups(self._factory, "this DMatrix (build it with qid=... or group=...)"))
        sizes = np.diff(group_ptr)
        weight = np.asarray(dtrain.get_weight(), dtype=np.float64)
        query_weight = None
        if weight.size == sizes.size:
            query_weight = weight
        elif weight.size == group_ptr[-1]:
            # Row weights (a DMatrix outside learning to rank): a ranking metric weights queries.
            first_rows = np.minimum(group_ptr[:-1], max(weight.size - 1, 0))
            if (weight != np.repeat(weight[first_rows], sizes)).any():
                raise InputValueError("The DMatrix has one weight per row, varying within a query; a ranking metric "
                                      "weights queries. Got row weights that differ within a query instead.")
            query_weight = weight[first_rows]
        elif weight.size:
            raise InputValueError(f"The DMatrix weights must be one per query ({sizes.size}) or one per row "
                                  f"({int(group_ptr[-1])}). Got {weight.size} instead.")
        return self.name, self._compute(dtrain.get_label(), predt, sizes, query_weight)

def lightgbm_metric(metric, *, name=None, **params):
    """A metric of the registry as LightGBM's custom evaluation function.

    Early stopping on any metric (MRR, ``hits@10``, ...): pass the result as
    ``eval_metric=`` to ``LGBMRanker.fit`` (scikit-learn API, groups from
    ``eval_group``) or as ``feval=`` to :func:`lightgbm.train` (groups from
    each validation :class:`lightgbm.Dataset`). The value at each round is
    :func:`sklearn_rank.evaluate` on the evaluation set's predictions with
    its query groups; see :class:`LightGBMMetric`.

    LightGBM also computes its own metrics (``ndcg@1`` to ``ndcg@5`` for
    ``objective="lambdarank"``) and early-stops when *any* metric stops
    improving, unless told otherwise: set LightGBM's ``metric="None"``
    (``LGBMRanker(metric="None")`` or ``params={"metric": "None"}``) so that
    the bridge is the only metric (LightGBM lists its own metrics first, so
    ``first_metric_only=True`` would watch one of them).

    Read more in the :ref:`User Guide <boosting_bridges>`.

    Parameters
    ----------
    metric : str
        Name of a metric of the registry (``"mrr"``, ``"hits@10"``,
        ``"ndcg@5"``, ``"map"``, ``"mr"``, ...). Lower-is-better metrics
        (``"mr"``) are returned as they are, with ``is_higher_better=False``.
    name : str, default=None
        Name under which LightGBM logs and records the metric; by default
        the registry's canonical name. Give another name when LightGBM's own
        metric of the same name (``"ndcg@5"``) is on too.
    **params : dict
        Options of :func:`sklearn_rank.evaluate` (``ties``, ``gain``,
        ``relevance_level``, ``no_relevant``, ``targets``, ...).

    Returns
    -------
    metric : LightGBMMetric
        A callable for ``eval_metric=`` and ``feval=``.

    See Also
    --------
    xgboost_metric : The same for XGBoost.

    Examples
    --------
    >>> import lightgbm as lgb
    >>> import numpy as np
    >>> from sklearn_rank import lightgbm_metric
    >>> from sklearn_rank.datasets import make_ranking
    >>> X, y, qid = make_ranking(n_queries=40, n_candidates=10, random_state=0)
    >>> train, valid = qid < 30, qid >= 30
    >>> mrr = lightgbm_metric("mrr")
    >>> ranker = lgb.LGBMRanker(n_estimators=5, metric="None", verbose=-1)
    >>> ranker = ranker.fit(X[train], y[train], group=np.bincount(qid[train]),
    ...                     eval_X=X[valid], eval_y=y[valid],
    ...                     eval_group=[np.bincount(qid[valid] - 30)], eval_metric=mrr)
    >>> list(ranker.evals_result_["valid_0"]), len(ranker.evals_result_["valid_0"]["mrr"])
    (['mrr'], 5)

    With :func:`lightgbm.train`, the groups come from the validation Dataset:

    >>> train_set = lgb.Dataset(X[train], y[train], group=np.bincount(qid[train]))
    >>> valid_set = lgb.Dataset(X[valid], y[valid], group=np.bincount(qid[valid] - 30))
    >>> history = {}
    >>> params = {"objective": "lambdarank", "metric": "None", "verbose": -1}
    >>> booster = lgb.train(params, train_set, num_boost_round=5, valid_sets=[valid_set],
    ...                     feval=lightgbm_metric("hits@3"),
    ...                     callbacks=[lgb.record_evaluation(history)])
    >>> len(history["valid_0"]["hits@3"])
    5
    """
    return LightGBMMetric(metric, name=name, **params)


def xgboost_metric(metric, *, name=None, **params):
    """A metric of the registry as XGBoost's custom evaluation function.

    Early stopping on any metric (MRR, ``hits@10``, ...): pass the result as
    ``custom_metric=`` to :func:`xgboost.train`, and ``maximize=metric.maximize``
    (XGBoost guesses the direction of a custom metric from its name). The
    value at each round is :func:`sklearn_rank.evaluate` on the evaluation
    DMatrix's predictions with its query groups; see :class:`XGBoostMetric`
    (also for why XGBoost's scikit-learn estimators cannot use it).

    Read more in the :ref:`User Guide <boosting_bridges>`.

    Parameters
    ----------
    metric : str
        Name of a metric of the registry (``"mrr"``, ``"hits@10"``,
        ``"ndcg@5"``, ``"map"``, ``"mr"``, ...). Lower-is-better metrics
        (``"mr"``) are returned as they are, with ``maximize=False``.
    name : str, default=None
        Name under which XGBoost logs and records the metric; by default the
        registry's canonical name.
    **params : dict
        Options of :func:`sklearn_rank.evaluate` (``ties``, ``gain``,
        ``relevance_level``, ``no_relevant``, ``targets``, ...).

    Returns
    -------
    metric : XGBoostMetric
        A callable for ``custom_metric=``, with a ``maximize`` attribute.

    See Also
    --------
    lightgbm_metric : The same for LightGBM.

    Examples
    --------
    >>> import xgboost as xgb
    >>> from sklearn_rank import xgboost_metric
    >>> from sklearn_rank.datasets import make_ranking
    >>> X, y, qid = make_ranking(n_queries=40, n_candidates=10, random_state=0)
    >>> train, valid = qid < 30, qid >= 30
    >>> dtrain = xgb.DMatrix(X[train], label=y[train], qid=qid[train])
    >>> dvalid = xgb.DMatrix(X[valid], label=y[valid], qid=qid[valid])
    >>> mrr = xgboost_metric("mrr")
    >>> history = {}
    >>> booster = xgb.train({"objective": "rank:ndcg", "disable_default_eval_metric": 1}, dtrain,
    ...                     num_boost_round=50, evals=[(dvalid, "valid")], custom_metric=mrr,
    ...                     early_stopping_rounds=5, maximize=mrr.maximize, evals_result=history,
    ...                     verbose_eval=False)
    >>> scores = history["valid"]["mrr"]
    >>> booster.best_iteration == max(range(len(scores)), key=scores.__getitem__)
    True
    """
    return XGBoostMetric(metric, name=name, **params)
