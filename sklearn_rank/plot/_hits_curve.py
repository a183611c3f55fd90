"""HitsAtKCurveDisplay: hits@k against k (the cumulative match curve), with the random-ranking baseline."""

from __future__ import annotations

import numpy as np

from .. import _engine
from .._checks import check_positive_int
from .._registry import base_spec, with_k
from ._base import (LOG_SCALE_RATIO, _D, _axes, _bool, _check_ax, _check_keywords, _estimator_inputs,
                    _estimator_name, _first_outside, _merge, _name, _no_target, _numbers)
from ..exceptions import InputValueError

# The hits@k curve goes up to this cut-off by default (or the largest candidate count, if smaller).
DEFAULT_MAX_K = 100
# Likely guesses at the Display's keywords, for the error on an unknown one.
_HINTS = {"max_k": "k", "k_max": "k", "maxk": "k", "top_k": "k", "cutoff": "k", "cutoffs": "k",
          "max_cutoff": "k", "baseline": "plot_baseline"}


def _largest_candidate_count(y_true, y_score, options):
    ranks = _engine.compute_ranks(y_true, y_score, **{name: options[name] for name in (
        "qid", "exclude", "labels", "relevance_level", "targets", "nan_policy", "convention") if name in options})
    if not len(ranks):
        raise _no_target(ranks, options.get("relevance_level"), "there is no hits@k curve to draw")
    return int(ranks.num_candidates.max())


def _constant_scores(y_score):
    """Every score the same, NaN kept where it was: with ties="expected" the engine then gives the exact
    expectation of the metric under uniformly random ranking, for the same candidates."""
    if hasattr(y_score, "toarray"):
        y_score = y_score.toarray()
    score = np.asarray(y_score, dtype=np.float64)
    return np.where(np.isnan(score), np.nan, 0.0)


def _hits_curve(y_true, y_score, k, options):
    if k is None:
        k = min(DEFAULT_MAX_K, _largest_candidate_count(y_true, y_score, options))
    k = check_positive_int(k, "k")
    cutoffs = np.arange(1, k + 1)
    # The hit rate's own spec, not the name "hits@k": a preset reads names the peer's way (ranx's hits@k
    # counts the relevant items in the top k), and the curve is the hit rate under every preset.
    specs = [with_k(base_spec("hits"), int(j)) for j in cutoffs]
    report = _engine.evaluate(y_true, y_score, metrics=specs, **options)
    hits = np.array([report.summary[spec.name] for spec in specs], dtype=np.float64)
    baseline_report = _engine.evaluate(y_true, _constant_scores(y_score), metrics=specs,
                                       **{**options, "ties": "expected"})
    baseline = np.array([baseline_report.summary[spec.name] for spec in specs], dtype=np.float64)
    return cutoffs, hits, baseline


class HitsAtKCurveDisplay:
    """Hits@k against k (the cumulative match curve), with the random-ranking baseline.

    ``hits[i]`` is :func:`sklearn_rank.hits_at_k` at ``k[i]`` with the same
    options, for ``k = 1 .. K``: the hit rate under every ``convention``
    preset (ranx's metric name ``hits@k``, a count, is not what is drawn). The area under the curve, shown
    in the legend as "area" (not "AUC", the name of the per-query ROC metric ``auc``), is the mean of
    ``hits@k`` over ``k = 1 .. K``,

    .. math:: \\mathrm{area}_K = \\frac{1}{K} \\sum_{k=1}^{K} \\mathrm{hits@}k \\in [0, 1],

    which is 1 when every target is ranked first, and equals the mean of
    :math:`\\max(0, K + 1 - \\mathrm{rank}) / K` over the targets (for untied
    ranks). The baseline is the same curve for uniformly random rankings of the
    same candidates: ``hits@k`` of a constant scorer under ``ties="expected"``,
    :math:`1 - \\binom{N_i - r_i}{k} / \\binom{N_i}{k}` per query with
    :math:`N_i` candidates of which :math:`r_i` are relevant. Read more in the
    :ref:`User Guide <plotting>`.

    Several models go on one axes: draw the first, then pass its ``ax_`` to the
    next ``from_predictions`` (with ``plot_baseline=False`` when the baseline
    is the same), or call :meth:`plot` of another display with ``ax=``.

    Parameters
    ----------
    k : array-like of shape (K,)
        The cut-offs ``1 .. K`` (integers).
    hits : array-like of shape (K,)
        ``Hits@k`` at each cut-off, in ``[0, 1]``.
    baseline_hits : array-like of shape (K,), default=None
        ``Hits@k`` of uniformly random rankings at each cut-off, in ``[0, 1]``.
    name : str, default=None
        Name of the model, for the legend.

    Attributes
    ----------
    k : ndarray of shape (K,)
        The cut-offs.
    hits : ndarray of shape (K,)
        ``Hits@k`` at each cut-off.
    baseline_hits : ndarray of shape (K,) or None
        The random baseline at each cut-off.
    auc : float in [0, 1]
        Mean of ``hits``: the area under the curve (the legend's "area").
    baseline_auc : float in [0, 1] or None
        Mean of ``baseline_hits``.
    line_ : matplotlib Line2D
        The curve (after :meth:`plot`).
    baseline_line_ : matplotlib Line2D or None
        The baseline curve.
    ax_ : matplotlib Axes
        Axes with the curve.
    figure_ : matplotlib Figure
        Figure holding ``ax_``.

    See Also
    --------
    RankDistributionDisplay : Where the targets land, bin by bin.
    sklearn_rank.hits_at_k : The value at one cut-off.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_rank.plot import HitsAtKCurveDisplay
    >>> y_score = [[0.1, 0.5, 0.2], [0.9, 0.3, 0.2], [0.2, 0.3, 0.1]]
    >>> display = HitsAtKCurveDisplay.from_predictions([1, 0, 2], y_score, name="model")
    >>> display.k, display.hits.round(4)
    (array([1, 2, 3]), array([0.6667, 0.6667, 1.    ]))
    >>> round(display.auc, 4), round(display.baseline_auc, 4)
    (0.7778, 0.6667)
    >>> import matplotlib.pyplot as plt
    >>> plt.close(display.figure_)
    """

    def __init__(self, *, k, hits, baseline_hits=None, name=None):
        k = _numbers(k, "k")
        hits = _numbers(hits, "hits").astype(np.float64)
        if k.ndim != 1 or k.size == 0 or k.dtype.kind not in "iu" or not np.array_equal(k, np.arange(1, k.size + 1)):
            raise InputValueError(f"`k` must be the cut-offs 1 .. K. Got {k!r} instead.")
        if hits.shape != k.shape:
            raise InputValueError(f"`hits` must hold one value per cut-off ({k.size}). Got shape {hits.shape} instead.")
        # hit rates: the area in the legend is their mean, documented within [0, 1]
        _first_outside((hits >= 0) & (hits <= 1), hits, "hits", "lie in [0, 1] (hit rates)")
        if baseline_hits is not None:
            baseline_hits = _numbers(baseline_hits, "baseline_hits").astype(np.float64)
            if baseline_hits.shape != k.shape:
                raise InputValueError(f"`baseline_hits` must hold one value per cut-off ({k.size}). "
                                      f"Got shape {baseline_hits.shape} instead.")
            _first_outside((baseline_hits >= 0) & (baseline_hits <= 1), baseline_hits, "baseline_hits",
                           "lie in [0, 1] (hit rates)")
        self.k = k
        self.hits = hits
        self.baseline_hits = baseline_hits
        self.auc = float(hits.mean())
        self.baseline_auc = None if baseline_hits is None else float(baseline_hits.mean())
        self.name = _name(name, "name")

    def plot(self, ax=None, *, name=None, plot_baseline=True, **kwargs):
        """Draw the curve (and the baseline) on ``ax``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None. Pass the ``ax_`` of
            another display to put several models on one axes.
        name : str, default=None
            Name of the model for the legend (default: ``self.name``).
        plot_baseline : bool, default=True
            Whether to draw the random baseline (when known).
        **kwargs : dict
            Passed to :meth:`matplotlib.axes.Axes.plot` (properties of a
            ``Line2D``); any other keyword is a ``TypeError``, before any work.

        Returns
        -------
        display : HitsAtKCurveDisplay
            This display, with ``line_``, ``baseline_line_``, ``ax_`` and
            ``figure_``.
        """
        _check_ax(ax, "HitsAtKCurveDisplay.plot")
        plot_baseline = _bool(plot_baseline, "plot_baseline")
        _check_keywords(kwargs, "plot", "HitsAtKCurveDisplay.plot", HitsAtKCurveDisplay.plot, hints=_HINTS)
        ax = _axes(ax, "HitsAtKCurveDisplay.plot")
        name = _name(name, "name") if name is not None else self.name
        label = f"{name} (area = {self.auc:.3f})" if name else f"area = {self.auc:.3f}"
        (self.line_,) = ax.plot(self.k, self.hits, **{"label": label, **kwargs})
        self.baseline_line_ = None
        if plot_baseline and self.baseline_hits is not None:
            (self.baseline_line_,) = ax.plot(self.k, self.baseline_hits, color="black", linestyle="--",
                                             label=f"random (area = {self.baseline_auc:.3f})")
        if self.k[-1] > LOG_SCALE_RATIO:
            ax.set_xscale("log")
        ax.set_xlabel("k (cut-off)")
        ax.set_ylabel("hits@k")
        ax.set_ylim(-0.02, 1.02)
        ax.legend(loc="lower right")
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    def from_predictions(cls, y_true, y_score, *, k=None, qid=None, ties=_D["ties"], exclude=None, labels=None,
                         relevance_level=None, no_relevant=_D["no_relevant"], sample_weight=None,
                         targets=_D["targets"], nan_policy=_D["nan_policy"], convention=None, name=None, ax=None,
                         plot_baseline=True, **kwargs):
        """Compute ``hits@k`` for k = 1 .. K with the engine and draw the curve.

        Parameters
        ----------
        y_true, y_score : array-like
            Any layout (see :func:`sklearn_rank.evaluate`).
        k : int, default=None
            The largest cut-off K. Default: the largest candidate count of a
            query with a target, at most 100.
        qid : array-like of shape (n_rows,), default=None
            Query id of each row (grouped layout).
        ties : {"expected", "realistic", "optimistic", "pessimistic", "ordinal"}, default="expected"
            How tied scores are ranked, as in :func:`sklearn_rank.hits_at_k`.
        exclude : array-like of bool or sparse matrix, default=None
            Candidates removed before ranking (filtered protocol).
        labels : array-like of shape (n_candidates,), default=None
            Label-index layout: the class label of each column of ``y_score``.
        relevance_level : float, default=None
            An item is relevant when ``y_true >= relevance_level``.
        no_relevant : {"skip", "zero", "one", "error"}, default="skip"
            Queries without a relevant item.
        sample_weight : array-like, default=None
            One weight per query (grouped layout: per row).
        targets : {"first", "all"}, default="first"
            One target per query, or every relevant item.
        nan_policy : {"raise", "omit"}, default="raise"
            What a NaN score means.
        convention : str, default=None
            A peer's conventions for the options not written (the values
            stay hit rates, as :func:`~sklearn_rank.hits_at_k` returns them).
        name : str, default=None
            Name of the model, for the legend.
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        plot_baseline : bool, default=True
            Whether to draw the random baseline.
        **kwargs : dict
            Passed to :meth:`matplotlib.axes.Axes.plot` (properties of a
            ``Line2D``); any other keyword is a ``TypeError``, before any work.

        Returns
        -------
        display : HitsAtKCurveDisplay
            The display, drawn.
        """
        _check_drawing(ax, plot_baseline, kwargs, "HitsAtKCurveDisplay.from_predictions", cls.from_predictions)
        options = dict(qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
                       no_relevant=no_relevant, sample_weight=sample_weight, targets=targets,
                       nan_policy=nan_policy, convention=convention)
        cutoffs, hits, baseline = _hits_curve(y_true, y_score, k, options)
        display = cls(k=cutoffs, hits=hits, baseline_hits=baseline, name=name)
        return display.plot(ax=ax, plot_baseline=plot_baseline, **kwargs)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, k=None, qid=None, ties=None, exclude=None, relevance_level=None,
                       no_relevant=None, sample_weight=None, targets=None, nan_policy=None, convention=None,
                       name=None, ax=None, plot_baseline=True, **kwargs):
        """Compute ``hits@k`` of a fitted estimator's scores and draw the curve.

        Parameters
        ----------
        estimator : estimator
            A fitted :class:`~sklearn_rank.RankingEvaluator` (its wrapped
            estimator's scores, its query ids and its metric options), or a
            fitted regressor, ranker or classifier.
        X : array-like or DataFrame of shape (n_rows, n_features)
            Data; with a ``RankingEvaluator``, possibly with its query-id column.
        y : array-like of shape (n_rows,) or (n_rows, n_labels)
            Relevance per row, class labels, or a relevance matrix.
        k : int, default=None
            The largest cut-off K (default: the largest candidate count, at
            most 100).
        qid : array-like of shape (n_rows,), default=None
            Query ids (grouped rows); they win over a query-id column of X.
            Without them a classifier's class scores are ranked per row
            (label-index layout).
        ties, exclude, relevance_level, no_relevant, sample_weight, targets, nan_policy, convention : default=None
            As in :meth:`from_predictions`; None: the evaluator's setting,
            else the default.
        name : str, default=None
            Name of the model (default: the estimator's class name; for a
            ``RankingEvaluator``, its wrapped estimator's).
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        plot_baseline : bool, default=True
            Whether to draw the random baseline.
        **kwargs : dict
            Passed to :meth:`matplotlib.axes.Axes.plot` (properties of a
            ``Line2D``); any other keyword is a ``TypeError``, before any work.

        Returns
        -------
        display : HitsAtKCurveDisplay
            The display, drawn.
        """
        _check_drawing(ax, plot_baseline, kwargs, "HitsAtKCurveDisplay.from_estimator", cls.from_estimator)
        inputs, options = _estimator_inputs(estimator, X, y, qid, "HitsAtKCurveDisplay.from_estimator")
        merged = _merge(options, ties=ties, relevance_level=relevance_level, no_relevant=no_relevant,
                        targets=targets, nan_policy=nan_policy, convention=convention)
        y_true, y_score = inputs.pop("y_true"), inputs.pop("y_score")
        all_options = {**inputs, **merged, "exclude": exclude, "sample_weight": sample_weight}
        cutoffs, hits, baseline = _hits_curve(y_true, y_score, k, all_options)
        name = _estimator_name(estimator) if name is None else name
        display = cls(k=cutoffs, hits=hits, baseline_hits=baseline, name=name)
        return display.plot(ax=ax, plot_baseline=plot_baseline, **kwargs)


def _check_drawing(ax, plot_baseline, kwargs, caller, method):
    """The drawing options of ``from_predictions`` and ``from_estimator``, checked before any evaluation."""
    _check_ax(ax, caller)
    _bool(plot_baseline, "plot_baseline")
    _check_keywords(kwargs, "plot", caller, method, hints=_HINTS)
