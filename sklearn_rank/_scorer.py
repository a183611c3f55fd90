"""Scorers for scikit-learn's model selection: :func:`make_ranking_scorer`, :func:`get_scorer`, :func:`make_scorers`,
:func:`make_multimetric_scorer`.

scikit-learn calls a scorer as ``scorer(estimator, X, y)``. A ranking metric
also needs to know which rows form a query, and a classifier's scores must be
read in ``estimator.classes_`` order. The scorer here works both out:

- query ids come from metadata routing (the scorer requests ``qid``) or from a
  query-id column of ``X``;
- the layout follows the estimator and ``y`` (see :func:`make_ranking_scorer`).

The metric itself is always computed by the engine's one entry (``_engine.evaluate``,
the function behind :func:`sklearn_rank.evaluate`). The multi-metric scorer scores X
once and calls the engine once for all its metrics.
"""

from __future__ import annotations

import numpy as np
from sklearn import get_config
from sklearn.utils.metadata_routing import UNCHANGED

from ._engine import (DEFINITION_DEFAULTS, DEFINITION_OPTIONS, evaluate as engine_evaluate, plan as engine_plan,
                      read_scorer_name)
from ._checks import check_relevance_level
from ._conventions import Default, check_convention
from ._estimator_inputs import (as_2d, check_qid_spec, describe_missing_qid, qid_column_position, ranking_inputs,
                                read_qid_column, refuse_qid_column_in_column_tool)
from ._inputs import GAINS, NAN_POLICIES, NO_RELEVANT, TARGETS, TIE_POLICIES, check_option
from ._registry import MetricSpec, get_metric
from ._sklearn_compat import ScorerRequester, SharedResponseScorer
from .exceptions import InputTypeError, InputValueError

__all__ = ["make_ranking_scorer", "get_scorer", "make_scorers", "make_multimetric_scorer"]

# Options of the engine that describe how a metric is computed (not the data).
METRIC_PARAMS = ("ties", "gain", "relevance_level", "no_relevant", "targets", "nan_policy", "convention",
                 *DEFINITION_OPTIONS)
_METRIC_DEFAULTS = {"ties": "expected", "gain": "linear", "relevance_level": None, "no_relevant": "skip",
                    "targets": "first", "nan_policy": "raise", "convention": None,
                    **DEFINITION_DEFAULTS}
_NO_DEFAULT = object()  # an option without an entry in _METRIC_DEFAULTS is always kept


# --------------------------------------------------------------------------------------
# validation shared with RankingEvaluator
# --------------------------------------------------------------------------------------


def check_metric_params(params):
    """Validate engine options (names and values); return them as a new dict."""
    unknown = sorted(set(params) - set(METRIC_PARAMS))
    if unknown:
        raise InputTypeError(f"Unknown metric parameter(s) {unknown}; the allowed ones are {list(METRIC_PARAMS)}. "
                             f"Got {unknown[0]!r} instead.")
    checked = dict(params)
    for name, allowed in (("ties", TIE_POLICIES), ("gain", GAINS), ("no_relevant", NO_RELEVANT),
                          ("targets", TARGETS), ("nan_policy", NAN_POLICIES), *DEFINITION_OPTIONS.items()):
        if name in checked:
            check_option(checked[name], name, allowed)
    if "convention" in checked:
        check_convention(checked["convention"])
    if "relevance_level" in checked:
        check_relevance_level(checked["relevance_level"])
    return checked


def scorer_params(params):
    """The engine options a scorer keeps: validated, those equal to their default left out.

    Both scorers take every option of ``METRIC_PARAMS`` through this one function and pass what
    it returns to the engine as keywords, so an option added there reaches both.
    """
    checked = check_metric_params(params)
    # Options left at their defaults are left out (the scorer's repr and equality). Under a preset, an
    # option written with its default value still overrides the preset, so it is kept.
    preset = checked.get("convention") is not None
    return {key: value for key, value in checked.items()
            if value != _METRIC_DEFAULTS.get(key, _NO_DEFAULT) or (preset and not isinstance(value, Default))}


def parse_scoring_name(metric):
    """Return ``(spec, sign)`` for a metric name, a ``neg_`` name or a :class:`MetricSpec`."""
    if isinstance(metric, str):
        text = metric.strip()
        if text.lower().startswith("neg_"):
            spec = get_metric(text[4:])
            if spec.greater_is_better:
                raise InputValueError(f"The prefix 'neg_' marks a lower-is-better metric, and {spec.name!r} is "
                                      f"higher-is-better: write {spec.name!r}. Got {metric!r} instead.")
            return spec, -1
    spec = get_metric(metric)
    return spec, (1 if spec.greater_is_better else -1)


def scorer_name(spec):
    """The scikit-learn style name: ``neg_<name>`` for lower-is-better metrics."""
    return spec.name if spec.greater_is_better else f"neg_{spec.name}"


# --------------------------------------------------------------------------------------
# the scorer
# --------------------------------------------------------------------------------------


class _EstimatorScorer(ScorerRequester):
    """What the one-metric and the multi-metric scorer share: from ``(estimator, X, y)`` to one engine call.

    A subclass sets ``qid`` (the query-id column of X) and ``params`` (engine options), names its
    factory function in ``_factory`` and defines ``_key`` (its value for equality and hashing),
    ``_repr_metrics`` (the factory's first argument), ``_engine_metrics`` (what the engine computes)
    and ``_values`` (the scorer's result from the report's summary).
    """

    # Query ids are requested by default, sample weights only when asked for.
    _default_score_requests = (("qid", True), ("sample_weight", None))

    def _report(self, estimator, X, y_true, metrics, qid, sample_weight, responses=None, missing_qid_message=None):
        """The RankingReport of ``metrics`` on the estimator's scores of X: one response-method call
        (``predict``, ``decision_function`` or ``predict_proba``; none when ``responses``, a dict shared
        by the scorers of one scoring call, holds it) and one engine call."""
        query = None
        if qid is not None:
            query = np.asarray(qid)
        else:
            X_cols = as_2d(X) if isinstance(self.qid, int) else X
            position = qid_column_position(X_cols, self.qid)
            if position is not None:
                refuse_qid_column_in_column_tool(repr(self), self.qid)
                query = read_qid_column(X_cols, position)
        if missing_qid_message is None:
            missing_qid_message = lambda: describe_missing_qid(repr(self), self.qid, X)  # noqa: E731
        inputs = ranking_inputs(estimator, X, y_true, query, allow_single_query=False,
                                missing_qid_message=missing_qid_message,
                                relevance_level=self.params.get("relevance_level"), responses=responses)
        return engine_evaluate(**inputs, metrics=metrics, sample_weight=sample_weight, **self.params)

    def _score_values(self, estimator, X, y_true, *, qid=None, sample_weight=None, responses=None,
                      missing_qid_message=None):
        """What ``__call__`` returns (``_values`` of the report of ``_engine_metrics``), with the options
        of :meth:`_report`: the responses shared in one scoring call, the message for missing query ids."""
        report = self._report(estimator, X, y_true, self._engine_metrics(), qid, sample_weight, responses=responses,
                              missing_qid_message=missing_qid_message)
        return self._values(report.summary)

    def set_score_request(self, *, qid=UNCHANGED, sample_weight=UNCHANGED):
        """Set which routed metadata the scorer receives (metadata routing only).

        ``qid`` is requested by default; pass a string to read it under another
        name (an alias), or False to stop requesting it.

        Parameters
        ----------
        qid : bool, None, str, default=UNCHANGED
            Request for the query ids.
        sample_weight : bool, None, str, default=UNCHANGED
            Request for the per-query sample weights.

        Returns
        -------
        self : object
            The scorer itself.
        """
        if not get_config().get("enable_metadata_routing", False):
            raise RuntimeError("set_score_request is only available when metadata routing is enabled: "
                               "sklearn.set_config(enable_metadata_routing=True).")
        aliases = {"qid": qid, "sample_weight": sample_weight}
        return self._set_score_requests({param: alias for param, alias in aliases.items() if alias is not UNCHANGED})

    def __repr__(self):
        # The call of the factory that builds an equal scorer (``_factory``, set by the subclass).
        args = [self._repr_metrics()]
        if self.qid != "qid":
            args.append(f"qid={self.qid!r}")
        args.extend(f"{key}={value!r}" for key, value in sorted(self.params.items()))
        return f"{self._factory}({', '.join(args)})"

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())


class RankingScorer(_EstimatorScorer, SharedResponseScorer):
    """A scorer ``scorer(estimator, X, y, *, qid=None, sample_weight=None)`` for one ranking metric.

    Build it with :func:`make_ranking_scorer`, :func:`get_scorer` or
    :func:`make_scorers`; see :func:`make_ranking_scorer` for how it reads the
    layout. Lower-is-better metrics are negated, so that greater is always
    better, and their :attr:`name` reads ``neg_<metric>``.

    Parameters
    ----------
    spec : MetricSpec
        The metric, with its cut-off (see :func:`get_metric`).
    sign : {1, -1}
        -1 negates the metric (lower-is-better metrics), 1 leaves it as it is.
    qid : str, int or None
        The query-id column of X (see :func:`make_ranking_scorer`).
    params : dict
        Validated engine options that differ from their defaults.
    written : str, default=None
        The metric name as the caller wrote it, read under the ``convention``
        of ``params`` (ranx's ``hits@k`` is a count); default ``spec.name``.

    Attributes
    ----------
    name : str
        ``"ndcg@10"``, or ``"neg_mr"`` for a lower-is-better metric.
    metric : str
        Canonical name of the metric.
    greater_is_better : bool
        Direction of the metric (the score is always greater-is-better).
    qid : str, int or None
        The query-id column of X.
    params : dict
        Engine options passed to :func:`sklearn_rank.evaluate`.
    """

    _factory = "make_ranking_scorer"

    def __init__(self, spec, sign, qid, params, written=None):
        self._spec = spec
        self._sign = sign
        self.qid = qid
        self.params = params
        # what the engine computes: a preset that reads names the peer's way (ranx's hits@k) reads the
        # name as written; the scorer keeps its name
        self._computed = read_scorer_name(spec.name if written is None else written, spec,
                                          params.get("convention"))
        # a metric its options cannot define (a preset's peer lacks it, micro averaging of nDCG): refused now,
        # not at the first fold
        engine_plan(metrics=[self._computed], **params)

    @property
    def name(self):
        return scorer_name(self._spec) if self._sign < 0 else self._spec.name

    @property
    def metric(self):
        return self._spec.name

    @property
    def greater_is_better(self):
        return self._spec.greater_is_better

    def __call__(self, estimator, X, y_true, *, qid=None, sample_weight=None):
        """Evaluate the metric on the fitted ``estimator``'s scores of ``X``.

        Parameters
        ----------
        estimator : fitted estimator
            Regressor, ranker, classifier or multilabel classifier.
        X : array-like or DataFrame of shape (n_rows, n_features)
            Passed as is to the estimator; may hold the query-id column.
        y_true : array-like of shape (n_rows,) or (n_rows, n_labels)
            Relevance per row, class labels, or a relevance matrix.
        qid : array-like of shape (n_rows,), default=None
            Query ids (routed metadata); when given, they win over the column of X.
        sample_weight : array-like of shape (n_rows,), default=None
            One weight per query (per row, constant within a query, in the
            grouped layout).

        Returns
        -------
        score : float
            The metric, negated when lower is better.
        """
        return self._score_values(estimator, X, y_true, qid=qid, sample_weight=sample_weight)

    def _score_shared(self, responses, estimator, X, y_true, *, qid=None, sample_weight=None):
        # What scikit-learn's _MultimetricScorer calls for the scorers of a scoring= dict (through
        # SharedResponseScorer._score), with `responses` shared between them: one prediction per call.
        return self._score_values(estimator, X, y_true, qid=qid, sample_weight=sample_weight, responses=responses)

    def _engine_metrics(self):
        # the spec itself, not its name: the name was read under the preset when the scorer was made
        return [self._computed]

    def _values(self, summary):
        return float(self._sign * summary[self._computed.name])

    # ---- value semantics ---------------------------------------------------------------

    def _key(self):
        return (self._spec.name, self._sign, self.qid, tuple(sorted(self.params.items())))

    def _repr_metrics(self):
        return repr(self.name)


def make_ranking_scorer(metric, *, qid="qid", k=None, **params):
    """Make a scikit-learn scorer from a ranking metric.

    The scorer is called as ``scorer(estimator, X, y)`` by
    :class:`~sklearn.model_selection.GridSearchCV`,
    :func:`~sklearn.model_selection.cross_validate`,
    :func:`~sklearn.inspection.permutation_importance` and friends, and reads
    what a ranking metric needs from the estimator and ``y``:

    - **grouped rows** (regressors, rankers; 1-D ``y`` of relevance): the query
      id of every row comes from metadata routing (the scorer requests ``qid``:
      ``sklearn.set_config(enable_metadata_routing=True)``, then
      ``search.fit(X, y, qid=qid)``), or else from the query-id column ``qid``
      of ``X``. Scores are ``estimator.predict(X)``. Rows without query ids
      raise a ``ValueError`` naming both routes.
    - **classifiers** (1-D ``y`` of class labels, no query ids): every row is
      a query whose candidates are the classes, scored by
      ``decision_function`` (preferred, as scikit-learn's ranking scorers do)
      or ``predict_proba``, in ``estimator.classes_`` order. A test fold that
      lacks a class is still evaluated against every class the estimator knows.
      One-vs-one decision values (``SVC(decision_function_shape="ovo")``: a
      column per pair of classes) are no class scores: ``predict_proba`` is
      used instead when the estimator has it (``SVC(probability=True)``), and
      otherwise the scorer raises a ``ValueError`` (use the default
      ``decision_function_shape="ovr"``, or
      ``CalibratedClassifierCV(SVC(...))`` for probabilities).
    - **multilabel** (2-D indicator or graded ``y``): every row is a query over
      the labels, scored by ``decision_function``, ``predict_proba`` (also the
      list-of-arrays form of multi-output classifiers) or ``predict``.
    - a classifier **with** query ids ranks rows: binary classifiers by the
      score of the positive class ``estimator.classes_[1]`` (as scikit-learn's
      scorers), a row being relevant when its label is ``classes_[1]`` — so
      classes ``{1, 2}`` are names, not grades; a label that is neither class,
      or a ``relevance_level``, is refused as ambiguous. Numeric graded classes
      (more than two) are ranked by the expected grade and ``y`` is the grade.

    The metric is computed by :func:`sklearn_rank.evaluate`. Lower-is-better
    metrics (``"mr"``, ``"gmr"``, ...) are negated, as scikit-learn's
    ``neg_...`` scorers are.

    Read more in the :ref:`User Guide <model_selection_scorers>`.

    Parameters
    ----------
    metric : str or MetricSpec
        A metric name of the registry (``"mrr"``, ``"ndcg@10"``, ``"mr"``,
        ...); a lower-is-better metric may also be written ``"neg_<name>"``.
    qid : str, int or None, default="qid"
        The query-id column of ``X``: a column name (DataFrames) or a column
        index (arrays and DataFrames). None: read no column; query ids then
        come from routing only. The column is read, never removed: the
        estimator sees ``X`` as it is (drop the column in a pipeline, or use
        :class:`RankingEvaluator`, which strips it).
    k : int, default=None
        Cut-off, the same as writing ``metric@k``.
    **params
        Engine options: ``ties``, ``gain``, ``relevance_level``,
        ``no_relevant``, ``targets``, ``nan_policy``, ``convention`` (a peer's
        preset) and the definition options (``ap_denominator``,
        ``precision_denominator``, ``recall_denominator``, ``discount``,
        ``ideal_dcg``, ``stop_probability``, ``average``, ``all_relevant``,
        ``ap_ties``);
        see :func:`sklearn_rank.evaluate`.

    Returns
    -------
    scorer : RankingScorer
        A picklable callable ``scorer(estimator, X, y, *, qid=None,
        sample_weight=None) -> float``; ``scorer.name`` is its scikit-learn
        style name.

    See Also
    --------
    get_scorer : the same from a scikit-learn style name.
    make_multimetric_scorer : several metrics from one prediction (multi-metric search).
    make_scorers : a dict of one-metric scorers.
    RankingEvaluator : a meta-estimator whose ``score`` is the metric.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from sklearn_rank._scorer import make_ranking_scorer
    >>> X = np.array([[1, 0.9], [1, 0.2], [2, 0.1], [2, 0.7]])  # column 0: query id
    >>> y = np.array([1, 0, 0, 1])
    >>> model = LinearRegression().fit(X[:, 1:], y)
    >>> scorer = make_ranking_scorer("mrr", qid=0)
    >>> scorer
    make_ranking_scorer('mrr', qid=0)
    >>> scorer(model, X[:, 1:], y, qid=X[:, 0])
    1.0
    >>> make_ranking_scorer("mr", qid=0).name
    'neg_mr'
    """
    spec, sign = parse_scoring_name(metric)
    if k is not None:
        from ._registry import with_k

        spec = with_k(spec, k)
    qid = check_qid_spec(qid)
    return RankingScorer(spec, sign, qid, scorer_params(params), written=metric)


def get_scorer(scoring, **params):
    """Get a ranking scorer from its scikit-learn style name.

    ``get_scorer("mr")`` and ``get_scorer("neg_mean_rank")`` give the same
    scorer: names of lower-is-better metrics may carry the ``neg_`` prefix
    (and are negated with or without it). Every synonym of the registry is
    accepted.

    Read more in the :ref:`User Guide <model_selection_scorers>`.

    Parameters
    ----------
    scoring : str or RankingScorer
        A metric name; a scorer is returned as it is.
    **params
        Passed to :func:`make_ranking_scorer` (``qid``, ``ties``, ...).

    Returns
    -------
    scorer : RankingScorer

    Examples
    --------
    >>> from sklearn_rank._scorer import get_scorer
    >>> get_scorer("neg_mean_rank") == get_scorer("mr")
    True
    >>> get_scorer("NDCG@10")
    make_ranking_scorer('ndcg@10')
    """
    if isinstance(scoring, RankingScorer):
        if params:
            raise InputTypeError(f"Parameters apply to scorer names, not to a scorer. Got {sorted(params)} with "
                                 f"{scoring!r} instead.")
        return scoring
    if not isinstance(scoring, (str, MetricSpec)):
        raise InputTypeError(f"`scoring` must be a metric name. Got {scoring!r} of type {type(scoring).__name__} "
                             "instead.")
    return make_ranking_scorer(scoring, **params)


def make_scorers(names, **params):
    """Scorers for multi-metric search, keyed by the names as given.

    In scikit-learn's cross-validation, searches and
    ``permutation_importance``, the scorers of the dict share one prediction
    per fold and scored split, as scikit-learn's own scorers in a dict do,
    and each calls the engine on its own (with the same values as alone).
    :func:`make_multimetric_scorer` also ranks once for all the metrics, and
    is the recommended ``scoring=`` for several metrics; this dict stays for
    code that wants its own keys or mixes in other scorers
    (``{**make_scorers([...]), "r2": "r2"}``).

    Read more in the :ref:`User Guide <model_selection_multimetric>`.

    Parameters
    ----------
    names : str or sequence of str
        Metric names (``neg_`` names allowed).
    **params
        Passed to every :func:`make_ranking_scorer` (``qid``, ``ties``, ...).

    Returns
    -------
    scorers : dict
        ``{name as given: RankingScorer}``, ready for ``scoring=`` with
        ``refit=<one of the names>``.

    See Also
    --------
    make_multimetric_scorer : the same metrics from one prediction and one ranking per fold (recommended).

    Examples
    --------
    >>> from sklearn_rank._scorer import make_scorers
    >>> scorers = make_scorers(["mrr", "ndcg@10", "mr"])
    >>> list(scorers)
    ['mrr', 'ndcg@10', 'mr']
    >>> scorers["mr"].name
    'neg_mr'
    """
    if isinstance(names, str):
        names = [names]
    try:
        names = list(names)
    except TypeError:
        raise InputTypeError(f"`names` must be a sequence of metric names. Got {names!r} instead.") from None
    if not names:
        raise InputValueError("`names` must hold at least one metric name. Got an empty sequence instead.")
    scorers = {}
    for name in names:
        if not isinstance(name, str):
            raise InputTypeError(f"`names` must hold strings (the keys of the result). Got {name!r} instead.")
        if name in scorers:
            raise InputValueError(f"`names` must be unique. Got {name!r} twice instead.")
        scorers[name] = make_ranking_scorer(name, **params)
    return scorers


# --------------------------------------------------------------------------------------
# several metrics from one prediction and one engine call
# --------------------------------------------------------------------------------------


class MultimetricRankingScorer(_EstimatorScorer):
    """A scorer ``scorer(estimator, X, y, *, qid=None, sample_weight=None) -> dict`` for several metrics.

    Build it with :func:`make_multimetric_scorer`. One call scores ``X`` with
    the estimator once (``predict``, ``decision_function`` or
    ``predict_proba``, read as :func:`make_ranking_scorer` reads them) and
    computes every metric from one engine call; the values equal those of
    the one-metric scorers of :func:`make_ranking_scorer` with the same
    options. Lower-is-better metrics are negated and keyed ``neg_<metric>``.

    Parameters
    ----------
    specs : tuple of MetricSpec
        The metrics, with their cut-offs (see :func:`get_metric`); the
        lower-is-better ones are negated.
    qid : str, int or None
        The query-id column of X (see :func:`make_ranking_scorer`).
    params : dict
        Validated engine options that differ from their defaults.
    computed : sequence of MetricSpec, default=None
        What the engine computes for each metric: the names as written, read
        under the ``convention`` of ``params``; default ``specs``.

    Attributes
    ----------
    names : tuple of str
        The keys of the returned dict, in order: each metric's one-metric
        scorer name (``"ndcg@10"``, ``"neg_mr"``). These are the names to
        give ``refit=`` and to read in ``cv_results_`` (``mean_test_<name>``).
    metrics : tuple of str
        Canonical names of the metrics, in the same order.
    greater_is_better : tuple of bool
        Direction of each metric (the scores are always greater-is-better).
    qid : str, int or None
        The query-id column of X.
    params : dict
        Engine options passed to :func:`sklearn_rank.evaluate`.
    """

    _factory = "make_multimetric_scorer"

    def __init__(self, specs, qid, params, computed=None):
        self._specs = tuple(specs)
        # what the engine computes for each (see RankingScorer): the names read under the preset
        self._computed = tuple(specs if computed is None else computed)
        self.qid = qid
        self.params = params
        engine_plan(metrics=list(self._computed), **params)  # refused when made, as RankingScorer is

    @property
    def names(self):
        return tuple(scorer_name(spec) for spec in self._specs)

    @property
    def metrics(self):
        return tuple(spec.name for spec in self._specs)

    @property
    def greater_is_better(self):
        return tuple(spec.greater_is_better for spec in self._specs)

    def __call__(self, estimator, X, y_true, *, qid=None, sample_weight=None):
        """Evaluate every metric on the fitted ``estimator``'s scores of ``X``.

        Parameters
        ----------
        estimator : fitted estimator
            Regressor, ranker, classifier or multilabel classifier.
        X : array-like or DataFrame of shape (n_rows, n_features)
            Passed as is to the estimator; may hold the query-id column.
        y_true : array-like of shape (n_rows,) or (n_rows, n_labels)
            Relevance per row, class labels, or a relevance matrix.
        qid : array-like of shape (n_rows,), default=None
            Query ids (routed metadata); when given, they win over the column of X.
        sample_weight : array-like of shape (n_rows,), default=None
            One weight per query (per row, constant within a query, in the
            grouped layout).

        Returns
        -------
        scores : dict
            ``{name: float}`` keyed by :attr:`names`, in that order; each value
            negated when lower is better.
        """
        return self._score_values(estimator, X, y_true, qid=qid, sample_weight=sample_weight)

    def _engine_metrics(self):
        return list(self._computed)

    def _values(self, summary):
        return {name: float(summary[done.name] if spec.greater_is_better else -summary[done.name])
                for name, spec, done in zip(self.names, self._specs, self._computed)}

    # ---- value semantics ---------------------------------------------------------------

    def _key(self):
        return (self.metrics, self.qid, tuple(sorted(self.params.items())))

    def _repr_metrics(self):
        return repr(list(self.names))


def make_multimetric_scorer(metrics, *, qid="qid", **params):
    """Make one scorer for several ranking metrics, computed in one pass.

    This is the recommended ``scoring=`` for multi-metric
    :class:`~sklearn.model_selection.GridSearchCV`,
    :class:`~sklearn.model_selection.RandomizedSearchCV` and
    :func:`~sklearn.model_selection.cross_validate`. scikit-learn calls the
    scorer once per fold and scored split; each call scores ``X`` with the
    estimator once (``predict``, or ``decision_function`` / ``predict_proba``
    for classifiers, read as :func:`make_ranking_scorer` reads them) and
    computes all metrics from one rank computation of the engine, where the
    dict of :func:`make_scorers` shares the prediction but ranks once per
    metric. It
    returns a dict, which scikit-learn reads as multi-metric scoring: pass
    ``refit=`` one of its keys.

    The keys are the names of the one-metric scorers: a metric's canonical
    name (``"mrr"``, ``"ndcg@10"``, ``"hits@5"``, ``"r@5"`` for
    ``"recall@5"``), and ``neg_<name>`` with the value negated for
    lower-is-better metrics (``"neg_mr"`` for ``"mr"``, ``"mean_rank"`` or
    ``"neg_mean_rank"``), exactly as :func:`make_ranking_scorer` names them.
    Every value equals the one-metric scorer's with the same options.

    Query ids and sample weights arrive as for :func:`make_ranking_scorer`:
    by metadata routing (the scorer requests ``qid``; ``sample_weight`` on
    request with :meth:`~MultimetricRankingScorer.set_score_request`), or
    from the query-id column ``qid`` of ``X``; without routing,
    scikit-learn >= 1.7 forwards a search's ``sample_weight`` to it.

    Read more in the :ref:`User Guide <model_selection_multimetric>`.

    Parameters
    ----------
    metrics : str, MetricSpec or sequence of them
        Metric names of the registry (``"mrr"``, ``"ndcg@10"``, ``"mr"``,
        ...); a lower-is-better metric may also be written ``"neg_<name>"``.
        Each metric at most once (``"mr"`` and ``"mean_rank"`` are one).
    qid : str, int or None, default="qid"
        The query-id column of ``X``: a column name (DataFrames) or a column
        index (arrays and DataFrames). None: read no column; query ids then
        come from routing only. The column is read, never removed.
    **params
        Engine options, shared by all metrics and validated as
        :func:`make_ranking_scorer` validates them: ``ties``, ``gain``,
        ``relevance_level``, ``no_relevant``, ``targets``, ``nan_policy``,
        ``convention`` (a peer's preset) and the definition options (see
        :func:`make_ranking_scorer` and :func:`sklearn_rank.evaluate`).

    Returns
    -------
    scorer : MultimetricRankingScorer
        A picklable callable ``scorer(estimator, X, y, *, qid=None,
        sample_weight=None) -> dict``; ``scorer.names`` lists its keys.

    See Also
    --------
    make_scorers : a dict of one-metric scorers, each ranking on its own.
    make_ranking_scorer : the scorer of one metric.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from sklearn_rank._scorer import make_multimetric_scorer
    >>> X = np.array([[1, 0.9], [1, 0.2], [2, 0.1], [2, 0.7]])  # column 0: query id
    >>> y = np.array([1, 0, 0, 1])
    >>> model = LinearRegression().fit(X[:, 1:], y)
    >>> scorer = make_multimetric_scorer(["mrr", "ndcg@10", "mean_rank"], qid=0)
    >>> scorer
    make_multimetric_scorer(['mrr', 'ndcg@10', 'neg_mr'], qid=0)
    >>> scorer(model, X[:, 1:], y, qid=X[:, 0])
    {'mrr': 1.0, 'ndcg@10': 1.0, 'neg_mr': -1.0}
    """
    if isinstance(metrics, (str, MetricSpec)):
        metrics = [metrics]
    try:
        metrics = list(metrics)
    except TypeError:
        raise InputTypeError(f"`metrics` must be a metric name or a sequence of metric names. Got {metrics!r} "
                             "instead.") from None
    if not metrics:
        raise InputValueError("`metrics` must hold at least one metric name. Got an empty sequence instead.")
    checked_params = scorer_params(params)
    specs, computed, written_as = [], [], {}
    for metric in metrics:
        if not isinstance(metric, (str, MetricSpec)):
            raise InputTypeError(f"`metrics` must hold metric names (str). Got {metric!r} of type "
                                 f"{type(metric).__name__} instead.")
        spec, _ = parse_scoring_name(metric)  # the sign follows the spec's direction
        name = scorer_name(spec)
        if name in written_as:
            raise InputValueError(f"`metrics` must name each metric once: {written_as[name]!r} and {metric!r} are both "
                                  f"{name!r}. Got {metrics!r} instead.")
        written_as[name] = metric
        specs.append(spec)
        computed.append(read_scorer_name(metric, spec, checked_params.get("convention")))
    return MultimetricRankingScorer(specs, check_qid_spec(qid), checked_params, computed=computed)
