"""Displays: rank histograms, ``hits@k`` curves and per-query comparisons, in scikit-learn's conventions.

Each Display computes its numbers with the metric engine (``from_predictions``,
``from_estimator``, ``from_reports``), keeps them as public attributes, and draws
them with :meth:`plot` on a matplotlib ``Axes`` (``ax_``) of a figure
(``figure_``), as :class:`sklearn.metrics.RocCurveDisplay` does.

``import sklearn_rank.plot`` does not import matplotlib: it is imported when
something is drawn (install it with ``pip install "sklearn-rank[plot]"``).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

from .. import _engine
from .._conventions import default_options, resolve as _resolve_convention
from .._registry import base_spec, get_metric, with_k

__all__ = ["HitsAtKCurveDisplay", "QueryComparisonDisplay", "RankDistributionDisplay"]

# The engine's defaults, as markers a ``convention=`` preset may replace (an explicit value wins).
_D = default_options(ties="expected", no_relevant="skip", targets="first", nan_policy="raise")

# Rank axes turn logarithmic when the largest possible rank is more than this many times the smallest (1).
LOG_SCALE_RATIO = 50
# The hits@k curve goes up to this cut-off by default (or the largest candidate count, if smaller).
DEFAULT_MAX_K = 100
_RANK_VARIANTS = ("realistic", "optimistic", "pessimistic", "ordinal", "expected")
_LOG_SCALE = ("auto", True, False)
_UNPAIRED = ("raise", "drop")
# Colours of the outcomes of a query in the comparison: A better, tie, B better.
_OUTCOME_COLORS = ("tab:blue", "tab:gray", "tab:orange")


# --------------------------------------------------------------------------------------------
# matplotlib, imported on first use
# --------------------------------------------------------------------------------------------
def _pyplot(caller):
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(f"{caller} needs matplotlib, which the `plot` extra of sklearn-rank installs: "
                          f'pip install "sklearn-rank[plot]" (or pip install matplotlib). '
                          f"The import failed with: {exc}") from exc
    return plt


def _check_ax(ax, caller):
    """``ax`` itself, checked before any work: a matplotlib Axes or None."""
    if ax is None:
        return None
    _pyplot(caller)
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(f"`ax` must be a matplotlib Axes or None. Got {type(ax).__name__} instead.")
    return ax


def _axes(ax, caller):
    plt = _pyplot(caller)
    if _check_ax(ax, caller) is None:
        _, ax = plt.subplots()
    return ax


# --------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------
def _positive_int(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"`{name}` must be a positive integer. Got {value!r} instead.")
    return int(value)


def _choice(value, name, allowed):
    if not any(value is a or (isinstance(value, str) and value == a) for a in allowed):
        raise ValueError(f"`{name}` must be one of {', '.join(repr(a) for a in allowed)}. Got {value!r} instead.")
    return value


def _name(value, name):
    if value is not None and not isinstance(value, str):
        raise TypeError(f"`{name}` must be a str or None. Got {type(value).__name__} instead.")
    return value


# --------------------------------------------------------------------------------------------
# from an estimator to the inputs of the engine
# --------------------------------------------------------------------------------------------
def _estimator_inputs(estimator, X, y, qid, caller):
    """The engine's inputs from a fitted estimator, and the metric options of a RankingEvaluator.

    A :class:`~sklearn_rank.RankingEvaluator` reads its query ids as its ``score`` does (the
    ``qid`` column of X, or ``qid=``), strips the column and asks its wrapped estimator; a plain
    estimator takes ``qid=`` (grouped rows), or a classifier's class scores (label-index layout),
    or a 2-D y (relevance matrix), exactly as the scorers read them.
    """
    from sklearn.utils.validation import check_is_fitted

    from .._evaluator import RankingEvaluator, _check_features, _is_2d
    from .._scorer import ranking_inputs

    if isinstance(estimator, RankingEvaluator):
        estimator._check_is_fitted()
        if _is_2d(X):
            _check_features(estimator, X, reset=False)
        query, X_inner = estimator._split_query(X, qid)
        options = estimator._metric_params()
        inputs = ranking_inputs(estimator.estimator_, X_inner, y, query, allow_single_query=estimator.qid is None,
                                missing_qid_message=lambda: estimator._missing_qid(X),
                                relevance_level=options.get("relevance_level"))
        return inputs, options
    if not hasattr(estimator, "fit"):
        raise TypeError(f"`estimator` must be a fitted scikit-learn estimator. Got {type(estimator).__name__} "
                        "instead.")
    check_is_fitted(estimator)
    query = None if qid is None else np.asarray(qid)
    message = (f"{caller} needs query ids to rank the rows of X with {type(estimator).__name__} (1-D y with a "
               "regressor or ranker is the grouped-rows layout): pass qid=..., or wrap the estimator in a "
               "RankingEvaluator that reads a query-id column of X. Got qid=None instead.")
    inputs = ranking_inputs(estimator, X, y, query, allow_single_query=False, missing_qid_message=message)
    return inputs, {}


def _estimator_name(estimator):
    """The legend's default name: the class of the estimator (of the wrapped one, for a RankingEvaluator)."""
    inner = getattr(estimator, "estimator_", None)
    return type(inner if inner is not None and hasattr(estimator, "_split_query") else estimator).__name__


def _merge(options, **explicit):
    """The evaluator's options (``options``), overridden by the arguments written (not None)."""
    merged = {name: value for name, value in options.items() if name in explicit}
    merged.update({name: value for name, value in explicit.items() if value is not None})
    return merged


# --------------------------------------------------------------------------------------------
# RankDistributionDisplay
# --------------------------------------------------------------------------------------------
def _log_comb(n, r):
    from scipy.special import gammaln

    return gammaln(n + 1.0) - gammaln(r + 1.0) - gammaln(n - r + 1.0)


def _random_rank_survival(num_candidates, num_relevant, at):
    """P(R >= at) for R the best of ``num_relevant`` distinct uniformly random positions among
    ``num_candidates``: C(N - at + 1, r) / C(N, r), zero where N - at + 1 < r.

    ``num_candidates`` and ``num_relevant`` of shape (n,), ``at`` of shape (m,); returns (n, m).
    """
    n = num_candidates[:, None].astype(np.float64)
    r = num_relevant[:, None].astype(np.float64)
    remaining = n - np.asarray(at, dtype=np.float64)[None, :] + 1.0
    possible = remaining >= r
    log_ratio = _log_comb(np.where(possible, remaining, r), r) - _log_comb(n, r)
    return np.where(possible, np.exp(np.minimum(log_ratio, 0.0)), 0.0)


def _expected_counts(optimistic, pessimistic, expected, bounds, chunk=1 << 14):
    """Expected targets per bin ``[bounds[i], bounds[i + 1])`` over uniformly random orders of tied candidates.

    A target whose tie block starts at ``optimistic`` and holds ``d = pessimistic - optimistic``
    non-relevant candidates and ``r`` relevant ones (itself included) ranks ``optimistic - 1 + B``, ``B``
    the best of ``r`` random places among ``b = d + r``: ``P(B >= a) = C(b - a + 1, r) / C(b, r)``.
    ``r`` is read from the expected rank, ``expected = optimistic + d / (r + 1)``.
    """
    d = pessimistic - optimistic
    tied = d > 0
    counts = np.histogram(optimistic[~tied], bins=bounds - 0.5)[0].astype(np.float64)
    if not tied.any():
        return counts
    o, d = optimistic[tied], d[tied]
    r = np.rint(d / (expected[tied] - o)) - 1.0
    b = d + r
    for lo in range(0, o.size, chunk):
        part = slice(lo, lo + chunk)
        # P(R >= bound) = P(B >= bound - o + 1): 1 below the block, 0 past its last possible place
        a = bounds[None, :] - o[part, None] + 1.0
        remaining = b[part, None] - a + 1.0
        possible = remaining >= r[part, None]
        log_ratio = _log_comb(np.where(possible, remaining, r[part, None]), r[part, None]) - \
            _log_comb(b[part, None], r[part, None])
        survival = np.where(a <= 1.0, 1.0, np.where(possible, np.exp(np.minimum(log_ratio, 0.0)), 0.0))
        counts += (survival[:, :-1] - survival[:, 1:]).sum(axis=0)
    return counts


def _rank_bins(max_rank, log_scale, n_bins):
    """Integer rank boundaries ``1 = b_0 < b_1 < ... < b_n = max_rank + 1``: bin i holds the integer
    ranks ``b_i .. b_{i+1} - 1``."""
    if log_scale:
        n_bins = 30 if n_bins is None else n_bins
        raw = np.geomspace(1.0, max_rank + 1.0, n_bins + 1)
    else:
        n_bins = min(max_rank, 50) if n_bins is None else n_bins
        raw = np.linspace(1.0, max_rank + 1.0, n_bins + 1)
    bounds = np.unique(np.rint(raw).astype(np.int64))
    bounds[0], bounds[-1] = 1, max_rank + 1
    return np.unique(bounds)


class RankDistributionDisplay:
    """Histogram of the ranks of the targets, with the random-ranking baseline.

    One rank per target, as :func:`sklearn_rank.compute_ranks` computes it (the
    best-ranked relevant item of each query with ``targets="first"``, every
    relevant item with ``targets="all"``). The bars count the targets whose
    rank falls in each bin; the dashed steps show the expected counts if each
    target's rank were uniformly random given its query's candidate count
    :math:`N_i` (the best of :math:`r_i` random positions when :math:`r_i`
    relevant items compete for the first place). Read more in the
    :ref:`User Guide <plotting>`.

    Use :meth:`from_predictions` or :meth:`from_estimator` to build one; the
    constructor takes ranks already computed.

    Parameters
    ----------
    ranks : array-like of shape (n_targets,)
        1-based rank of each target (may be fractional, e.g. mid ranks).
    num_candidates : array-like of shape (n_targets,)
        Candidates each target was ranked against (itself included).
    num_relevant : array-like of shape (n_targets,), default=None
        Relevant candidates competing for each target's rank (the random
        baseline is the best of that many random positions); default 1.
    ties : str, default="expected"
        Which rank of :class:`~sklearn_rank.Ranks` ``ranks`` holds; shown on
        the axis label. With ``"expected"`` and ``optimistic`` and
        ``pessimistic`` given, the bars are the expected counts over every
        order of the tied candidates (see ``counts``).
    log_scale : {"auto", True, False}, default="auto"
        Logarithmic bins and rank axis. ``"auto"``: when the largest possible
        rank (the largest candidate count) is more than 50 times the smallest
        possible rank, 1.
    n_bins : int, default=None
        Number of bins (fewer when bins would hold no integer rank). Default:
        one per rank up to 50 ranks, else 50 linear or 30 logarithmic bins.
    name : str, default=None
        Name of the model, for the legend.
    optimistic, pessimistic : array-like of shape (n_targets,), default=None
        The optimistic and pessimistic ranks of the targets
        (:class:`~sklearn_rank.Ranks`): where each tie block starts and how
        many non-relevant candidates it holds, for ``ties="expected"``.

    Attributes
    ----------
    ranks : ndarray of shape (n_targets,)
        The ranks drawn.
    num_candidates : ndarray of shape (n_targets,)
        Candidate count of each target's query.
    num_relevant : ndarray of shape (n_targets,)
        Relevant candidates competing for each target's rank.
    bin_edges : ndarray of shape (n_bins + 1,)
        Edges of the bins, at half ranks: bin ``i`` covers
        ``[bin_edges[i], bin_edges[i + 1])`` and so holds whole integer ranks
        (a mid rank ``r + 0.5`` lies on an edge and counts in the bin above).
    counts : ndarray of shape (n_bins,)
        Targets per bin (the bar heights). Under ``ties="expected"`` (with
        ``optimistic`` and ``pessimistic``), the expected number over a
        uniformly random order of tied candidates: a target tied with ``d``
        non-relevant candidates and ``r - 1`` other relevant ones ranks
        ``optimistic - 1 + B``, ``B`` the best of ``r`` random places among
        ``d + r``, so a constant scorer draws exactly the random baseline.
        Otherwise the number of ``ranks`` in each bin.
    baseline_counts : ndarray of shape (n_bins,)
        Expected targets per bin under uniformly random ranking.
    log_scale : bool
        Whether the bins and the rank axis are logarithmic.
    bars_ : matplotlib BarContainer
        The bars (after :meth:`plot`).
    baseline_ : matplotlib StepPatch or None
        The random baseline.
    ax_ : matplotlib Axes
        Axes with the histogram.
    figure_ : matplotlib Figure
        Figure holding ``ax_``.

    See Also
    --------
    HitsAtKCurveDisplay : The cumulative view: ``hits@k`` against k.
    sklearn_rank.compute_ranks : The ranks drawn here.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_rank.plot import RankDistributionDisplay
    >>> y_score = [[0.1, 0.5, 0.2], [0.9, 0.3, 0.2], [0.2, 0.3, 0.1]]
    >>> display = RankDistributionDisplay.from_predictions([1, 0, 2], y_score)
    >>> display.ranks
    array([1., 1., 3.])
    >>> display.counts, display.baseline_counts
    (array([2., 0., 1.]), array([1., 1., 1.]))
    >>> import matplotlib.pyplot as plt
    >>> plt.close(display.figure_)
    """

    def __init__(self, *, ranks, num_candidates, num_relevant=None, ties="expected", log_scale="auto",
                 n_bins=None, name=None, optimistic=None, pessimistic=None):
        ranks = np.asarray(ranks, dtype=np.float64)
        num_candidates = np.asarray(num_candidates)
        if ranks.ndim != 1 or ranks.size == 0:
            raise ValueError("`ranks` must hold at least one rank (1-D): no target has a rank to draw (are there "
                             f"relevant items among the candidates?). Got shape {ranks.shape} instead.")
        if num_candidates.shape != ranks.shape or num_candidates.dtype.kind not in "iuf":
            raise ValueError(f"`num_candidates` must hold one candidate count per rank ({ranks.size}). "
                             f"Got {num_candidates.dtype} of shape {num_candidates.shape} instead.")
        num_relevant = np.ones_like(num_candidates) if num_relevant is None else np.asarray(num_relevant)
        if num_relevant.shape != ranks.shape:
            raise ValueError(f"`num_relevant` must hold one count per rank ({ranks.size}). "
                             f"Got shape {num_relevant.shape} instead.")
        for label, values in (("ranks", ranks), ("num_relevant", num_relevant)):
            outside = ~((values >= 1) & (values <= num_candidates))
            if outside.any():
                i = int(np.flatnonzero(outside)[0])
                raise ValueError(f"`{label}` must lie in [1, num_candidates] for each target. Got {label}[{i}] = "
                                 f"{values[i].item()!r} with num_candidates[{i}] = {num_candidates[i].item()!r} instead.")
        self.ranks = ranks
        self.num_candidates = num_candidates.astype(np.int64)
        self.num_relevant = num_relevant.astype(np.int64)
        self.ties = ties
        self.name = _name(name, "name")
        _choice(log_scale, "log_scale", _LOG_SCALE)
        if n_bins is not None:
            n_bins = _positive_int(n_bins, "n_bins")
        max_rank = int(self.num_candidates.max())
        self.log_scale = bool(max_rank > LOG_SCALE_RATIO) if log_scale == "auto" else bool(log_scale)
        bounds = _rank_bins(max_rank, self.log_scale, n_bins)
        self.bin_edges = bounds - 0.5
        if (optimistic is None) != (pessimistic is None):
            raise ValueError("`optimistic` and `pessimistic` go together (the tie block of each target). Got "
                             f"only `{'optimistic' if pessimistic is None else 'pessimistic'}` instead.")
        if ties == "expected" and optimistic is not None:
            optimistic = np.asarray(optimistic, dtype=np.float64)
            pessimistic = np.asarray(pessimistic, dtype=np.float64)
            if optimistic.shape != ranks.shape or pessimistic.shape != ranks.shape or not (
                    (optimistic <= ranks) & (ranks <= pessimistic)).all():
                raise ValueError("`optimistic` and `pessimistic` must hold one rank per target, with "
                                 "optimistic <= ranks <= pessimistic (the fields of compute_ranks). Got shapes "
                                 f"{optimistic.shape} and {pessimistic.shape} for {ranks.size} ranks, or ranks "
                                 "outside them, instead.")
            tied = pessimistic > optimistic
            competing = (pessimistic[tied] - optimistic[tied]) / (ranks[tied] - optimistic[tied])
            if not (np.isfinite(competing) & (np.abs(competing - np.rint(competing)) < 1e-6)).all():
                raise ValueError("`ranks` must be the expected ranks under ties='expected' (optimistic + d / (r + 1) "
                                 "for d tied non-relevant and r tied relevant candidates). Got ranks that are not "
                                 "instead.")
            self.counts = _expected_counts(optimistic, pessimistic, ranks, bounds)
        else:
            self.counts = np.histogram(self.ranks, bins=self.bin_edges)[0]
        # Expected counts: sum over targets of P(b_i <= R < b_{i+1}) = S(b_i) - S(b_{i+1}), computed once
        # per distinct (N, r) pair.
        pairs, multiplicity = np.unique(np.column_stack([self.num_candidates, self.num_relevant]), axis=0,
                                        return_counts=True)
        survival = _random_rank_survival(pairs[:, 0], pairs[:, 1], bounds)
        self.baseline_counts = multiplicity @ (survival[:, :-1] - survival[:, 1:])

    def plot(self, ax=None, *, name=None, plot_baseline=True, **kwargs):
        """Draw the histogram (and the baseline) on ``ax``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        name : str, default=None
            Name of the model for the legend (default: ``self.name``).
        plot_baseline : bool, default=True
            Whether to draw the expected counts of uniformly random ranks.
        **kwargs : dict
            Passed to :meth:`matplotlib.axes.Axes.bar`.

        Returns
        -------
        display : RankDistributionDisplay
            This display, with ``bars_``, ``baseline_``, ``ax_`` and ``figure_``.
        """
        ax = _axes(ax, "RankDistributionDisplay.plot")
        name = _name(name, "name") if name is not None else self.name
        label = f"{name}: {self.ranks.size} targets" if name else f"{self.ranks.size} targets"
        bar_kwargs = {"alpha": 0.8, "label": label, **kwargs}
        self.bars_ = ax.bar(self.bin_edges[:-1], self.counts, width=np.diff(self.bin_edges), align="edge",
                            **bar_kwargs)
        self.baseline_ = None
        if plot_baseline:
            self.baseline_ = ax.stairs(self.baseline_counts, self.bin_edges, color="black", linestyle="--",
                                       label="uniformly random ranks (expected)")
        if self.log_scale:
            ax.set_xscale("log")
        ax.set_xlabel(f"rank of the target ({self.ties}; 1 = top)")
        ax.set_ylabel("targets")
        ax.legend(loc="upper right")
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    def from_predictions(cls, y_true, y_score, *, qid=None, ties="expected", exclude=None, labels=None,
                         relevance_level=None, targets=_D["targets"], nan_policy=_D["nan_policy"], convention=None,
                         log_scale="auto", n_bins=None, name=None, ax=None, plot_baseline=True, **kwargs):
        """Rank the targets with :func:`sklearn_rank.compute_ranks` and draw their histogram.

        Parameters
        ----------
        y_true, y_score : array-like
            Any layout (see :func:`sklearn_rank.evaluate`).
        qid : array-like of shape (n_rows,), default=None
            Query id of each row (grouped layout).
        ties : {"expected", "realistic", "optimistic", "pessimistic", "ordinal"}, default="expected"
            Which rank of a tied target to draw (an attribute of
            :class:`~sklearn_rank.Ranks`). ``"expected"``: the bars are the
            expected counts over every order of the tied candidates (a
            constant scorer draws the random baseline), ``display.ranks`` the
            expected ranks; the others draw one point rank per target
            (``"realistic"``: the mid rank). ``convention=`` does not change it.
        exclude : array-like of bool or sparse matrix, default=None
            Candidates removed before ranking (filtered protocol).
        labels : array-like of shape (n_candidates,), default=None
            Label-index layout: the class label of each column of ``y_score``.
        relevance_level : float, default=None
            An item is relevant when ``y_true >= relevance_level``.
        targets : {"first", "all"}, default="first"
            The best-ranked relevant item per query, or every relevant item
            ranked against the non-relevant candidates.
        nan_policy : {"raise", "omit"}, default="raise"
            What a NaN score means (see :func:`sklearn_rank.evaluate`).
        convention : str, default=None
            A peer's conventions for ``targets`` and ``nan_policy``.
        log_scale : {"auto", True, False}, default="auto"
            Logarithmic bins and rank axis (``"auto"``: largest candidate
            count above 50).
        n_bins : int, default=None
            Number of bins (see the class documentation).
        name : str, default=None
            Name of the model, for the legend.
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        plot_baseline : bool, default=True
            Whether to draw the random baseline.
        **kwargs : dict
            Passed to :meth:`matplotlib.axes.Axes.bar`.

        Returns
        -------
        display : RankDistributionDisplay
            The display, drawn.
        """
        _check_ax(ax, "RankDistributionDisplay.from_predictions")
        _choice(ties, "ties", _RANK_VARIANTS)
        ranks = _engine.compute_ranks(y_true, y_score, qid=qid, exclude=exclude, labels=labels,
                                      relevance_level=relevance_level, targets=targets, nan_policy=nan_policy,
                                      convention=convention)
        return cls._draw(ranks, ties, log_scale, n_bins, name, ax, plot_baseline, kwargs)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, qid=None, ties=None, exclude=None, relevance_level=None,
                       targets=None, nan_policy=None, convention=None, log_scale="auto", n_bins=None, name=None,
                       ax=None, plot_baseline=True, **kwargs):
        """Rank the targets by the scores of a fitted estimator and draw their histogram.

        Parameters
        ----------
        estimator : estimator
            A fitted :class:`~sklearn_rank.RankingEvaluator` (its wrapped
            estimator's scores, its query ids and its options), or a fitted
            regressor, ranker or classifier.
        X : array-like or DataFrame of shape (n_rows, n_features)
            Data; with a ``RankingEvaluator``, possibly with its query-id column.
        y : array-like of shape (n_rows,) or (n_rows, n_labels)
            Relevance per row, class labels, or a relevance matrix.
        qid : array-like of shape (n_rows,), default=None
            Query ids (grouped rows); they win over a query-id column of X.
            Without them a classifier's class scores are ranked per row
            (label-index layout).
        ties : {"expected", "realistic", "optimistic", "pessimistic", "ordinal"}, default=None
            Which rank to draw; None: the evaluator's ``ties`` if it sets one,
            else ``"expected"``.
        exclude : array-like of bool or sparse matrix, default=None
            Candidates removed before ranking, shaped like the scores.
        relevance_level, targets, nan_policy, convention : default=None
            As in :meth:`from_predictions`; None: the evaluator's setting, else
            the default.
        log_scale : {"auto", True, False}, default="auto"
            Logarithmic bins and rank axis.
        n_bins : int, default=None
            Number of bins.
        name : str, default=None
            Name of the model (default: the estimator's class name; for a
            ``RankingEvaluator``, its wrapped estimator's).
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        plot_baseline : bool, default=True
            Whether to draw the random baseline.
        **kwargs : dict
            Passed to :meth:`matplotlib.axes.Axes.bar`.

        Returns
        -------
        display : RankDistributionDisplay
            The display, drawn.
        """
        _check_ax(ax, "RankDistributionDisplay.from_estimator")
        inputs, options = _estimator_inputs(estimator, X, y, qid, "RankDistributionDisplay.from_estimator")
        if ties is None:
            ties = options.get("ties")
            ties = "expected" if ties is None or type(ties) is not str else str(ties)
        _choice(ties, "ties", _RANK_VARIANTS)
        merged = _merge(options, relevance_level=relevance_level, targets=targets, nan_policy=nan_policy,
                        convention=convention)
        ranks = _engine.compute_ranks(**inputs, exclude=exclude, **merged)
        name = _estimator_name(estimator) if name is None else name
        return cls._draw(ranks, ties, log_scale, n_bins, name, ax, plot_baseline, kwargs)

    @classmethod
    def _draw(cls, ranks, ties, log_scale, n_bins, name, ax, plot_baseline, kwargs):
        display = cls(ranks=getattr(ranks, ties), num_candidates=ranks.num_candidates,
                      num_relevant=ranks.num_relevant, ties=ties, log_scale=log_scale, n_bins=n_bins, name=name,
                      optimistic=ranks.optimistic, pessimistic=ranks.pessimistic)
        return display.plot(ax=ax, plot_baseline=plot_baseline, **kwargs)


# --------------------------------------------------------------------------------------------
# HitsAtKCurveDisplay
# --------------------------------------------------------------------------------------------
def _largest_candidate_count(y_true, y_score, options):
    ranks = _engine.compute_ranks(y_true, y_score, **{name: options[name] for name in (
        "qid", "exclude", "labels", "relevance_level", "targets", "nan_policy", "convention") if name in options})
    if not len(ranks):
        raise ValueError("No query has a relevant item among its candidates: there is no hits@k curve to draw. "
                         f"Got {len(ranks.qid)} queries without a target instead.")
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
    k = _positive_int(k, "k")
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
    preset (ranx's metric name ``hits@k``, a count, is not what is drawn). The area under the curve shown in the legend
    is the mean of ``hits@k`` over ``k = 1 .. K``,

    .. math:: \\mathrm{AUC}_K = \\frac{1}{K} \\sum_{k=1}^{K} \\mathrm{hits@}k \\in [0, 1],

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
        The cut-offs ``1 .. K``.
    hits : array-like of shape (K,)
        ``Hits@k`` at each cut-off.
    baseline_hits : array-like of shape (K,), default=None
        ``Hits@k`` of uniformly random rankings at each cut-off.
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
        Mean of ``hits``.
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
        k = np.asarray(k)
        hits = np.asarray(hits, dtype=np.float64)
        if k.ndim != 1 or k.size == 0 or k.dtype.kind not in "iu" or not np.array_equal(k, np.arange(1, k.size + 1)):
            raise ValueError(f"`k` must be the cut-offs 1 .. K. Got {k!r} instead.")
        if hits.shape != k.shape:
            raise ValueError(f"`hits` must hold one value per cut-off ({k.size}). Got shape {hits.shape} instead.")
        if baseline_hits is not None:
            baseline_hits = np.asarray(baseline_hits, dtype=np.float64)
            if baseline_hits.shape != k.shape:
                raise ValueError(f"`baseline_hits` must hold one value per cut-off ({k.size}). "
                                 f"Got shape {baseline_hits.shape} instead.")
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
            Passed to :meth:`matplotlib.axes.Axes.plot`.

        Returns
        -------
        display : HitsAtKCurveDisplay
            This display, with ``line_``, ``baseline_line_``, ``ax_`` and
            ``figure_``.
        """
        ax = _axes(ax, "HitsAtKCurveDisplay.plot")
        name = _name(name, "name") if name is not None else self.name
        label = f"{name} (AUC = {self.auc:.3f})" if name else f"AUC = {self.auc:.3f}"
        (self.line_,) = ax.plot(self.k, self.hits, **{"label": label, **kwargs})
        self.baseline_line_ = None
        if plot_baseline and self.baseline_hits is not None:
            (self.baseline_line_,) = ax.plot(self.k, self.baseline_hits, color="black", linestyle="--",
                                             label=f"random (AUC = {self.baseline_auc:.3f})")
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
            Passed to :meth:`matplotlib.axes.Axes.plot`.

        Returns
        -------
        display : HitsAtKCurveDisplay
            The display, drawn.
        """
        _check_ax(ax, "HitsAtKCurveDisplay.from_predictions")
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
            Passed to :meth:`matplotlib.axes.Axes.plot`.

        Returns
        -------
        display : HitsAtKCurveDisplay
            The display, drawn.
        """
        _check_ax(ax, "HitsAtKCurveDisplay.from_estimator")
        inputs, options = _estimator_inputs(estimator, X, y, qid, "HitsAtKCurveDisplay.from_estimator")
        merged = _merge(options, ties=ties, relevance_level=relevance_level, no_relevant=no_relevant,
                        targets=targets, nan_policy=nan_policy, convention=convention)
        y_true, y_score = inputs.pop("y_true"), inputs.pop("y_score")
        all_options = {**inputs, **merged, "exclude": exclude, "sample_weight": sample_weight}
        cutoffs, hits, baseline = _hits_curve(y_true, y_score, k, all_options)
        name = _estimator_name(estimator) if name is None else name
        display = cls(k=cutoffs, hits=hits, baseline_hits=baseline, name=name)
        return display.plot(ax=ax, plot_baseline=plot_baseline, **kwargs)


# --------------------------------------------------------------------------------------------
# QueryComparisonDisplay
# --------------------------------------------------------------------------------------------
def _per_query(report, metric, label):
    per_query = getattr(report, "per_query", None)
    if not isinstance(per_query, Mapping) or "qid" not in per_query:
        raise TypeError(f"`{label}` must be a RankingReport (from sklearn_rank.evaluate) with per-query values "
                        f"and query ids. Got {type(report).__name__} instead.")
    available = [key for key in per_query if key != "qid"]
    if metric is None:
        if len(available) != 1:
            raise ValueError(f"`metric` must name the metric to compare, one of {available}. Got None instead.")
        key = available[0]
    elif metric in available:
        key = metric
    else:
        from .._registry import _normalise

        matches = [key for key in available if isinstance(key, str) and _normalise(key) == _normalise(metric)]
        if len(matches) != 1:
            raise ValueError(f"`metric` must name a per-query metric of `{label}`, one of {available}. "
                             f"Got {metric!r} instead.")
        key = matches[0]
    qid = np.asarray(per_query["qid"])
    values = np.asarray(per_query[key], dtype=np.float64)
    if qid.ndim != 1 or qid.shape != values.shape:
        raise ValueError(f"`{label}.per_query` must hold one query id per value of {key!r}. "
                         f"Got shapes {qid.shape} and {values.shape} instead.")
    unique, counts = np.unique(qid, return_counts=True)
    if unique.size != qid.size:
        raise ValueError(f"`{label}` lists some query ids more than once, so it cannot be paired. "
                         f"Got repeated query ids {unique[counts > 1][:5].tolist()} instead.")
    return key, qid, values


def _convention(report):
    params = getattr(report, "params", None)
    return params.get("convention") if isinstance(params, Mapping) else None


def _read_metric(report, key):
    """The metric the report's values under ``key`` are: the name read under the report's preset (ranx's
    ``hits@k`` is ``num_rel_ret@k``), or None for a name outside the registry."""
    try:
        spec = get_metric(key)
    except (ValueError, TypeError):
        return None
    try:
        aliases = _resolve_convention(_convention(report), {})[1]
    except ValueError:
        return spec  # a convention this version does not know: the name as written
    return _engine.read_name(key, spec, aliases)


def _same_metric(report_a, key_a, report_b, key_b):
    """The metric both reports hold under the names compared; a name that the reports' presets read as
    two different metrics is refused (they are not paired values of one metric)."""
    spec_a, spec_b = _read_metric(report_a, key_a), _read_metric(report_b, key_b)
    if spec_a is not None and spec_b is not None and (spec_a.base, spec_a.k, spec_a.param) != (
            spec_b.base, spec_b.k, spec_b.param):
        raise ValueError(f"`report_a` and `report_b` must hold the same metric under {key_a!r} to be compared "
                         "(their `convention` presets read the name differently). Got "
                         f"{spec_a.name!r} (convention={_convention(report_a)!r}) and "
                         f"{spec_b.name!r} (convention={_convention(report_b)!r}) instead.")
    return spec_a if spec_a is not None else spec_b


class QueryComparisonDisplay:
    """Per-query values of one metric under two models, paired by query id.

    Each point is a query: its value under model A (x) and model B (y). Points
    on the dashed diagonal are ties; the legend counts the queries each model
    wins (a better value: higher, or lower for metrics where lower is better,
    such as the mean rank) and gives the paired significance test of
    :func:`sklearn_rank.stats.compare`. Read more in the
    :ref:`User Guide <plotting>`.

    Use :meth:`from_reports` to build one.

    Parameters
    ----------
    values_a, values_b : array-like of shape (n_queries,)
        Paired per-query values of the two models.
    qid : array-like of shape (n_queries,)
        Query id of each pair.
    metric : str
        Metric name, for the axis labels.
    result : ComparisonResult, default=None
        The significance test (shown in the legend when given).
    name_a, name_b : str, default="A", "B"
        Names of the two models.
    greater_is_better : bool, default=True
        Whether a higher value is a win.

    Attributes
    ----------
    values_a, values_b : ndarray of shape (n_queries,)
        The paired values drawn (x and y).
    qid : ndarray of shape (n_queries,)
        Query ids of the pairs, sorted.
    wins, ties, losses : int
        Queries where A is better than, equal to, worse than B.
    result : ComparisonResult or None
        The paired test.
    n_unpaired_a, n_unpaired_b : int
        Queries only in A's (B's) report, left out (``unpaired="drop"``).
    n_undefined : int
        Shared queries left out because the metric is undefined (NaN) in one
        of the reports.
    scatter_ : matplotlib PathCollection
        The points (after :meth:`plot`).
    diagonal_ : matplotlib Line2D
        The diagonal ``y = x``.
    ax_ : matplotlib Axes
        Axes with the scatter.
    figure_ : matplotlib Figure
        Figure holding ``ax_``.

    See Also
    --------
    sklearn_rank.stats.compare : The paired test in the legend.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sklearn_rank import evaluate
    >>> from sklearn_rank.plot import QueryComparisonDisplay
    >>> y_true = [1, 0, 2, 1, 0]
    >>> y_score_a = np.eye(3)[[1, 0, 2, 0, 1]]
    >>> y_score_b = np.eye(3)[[1, 1, 2, 1, 1]]
    >>> report_a = evaluate(y_true, y_score_a, metrics=["mrr"])
    >>> report_b = evaluate(y_true, y_score_b, metrics=["mrr"])
    >>> display = QueryComparisonDisplay.from_reports(report_a, report_b, metric="mrr")
    >>> display.wins, display.ties, display.losses
    (1, 3, 1)
    >>> display.result.test
    'wilcoxon'
    >>> import matplotlib.pyplot as plt
    >>> plt.close(display.figure_)
    """

    def __init__(self, *, values_a, values_b, qid, metric, result=None, name_a="A", name_b="B",
                 greater_is_better=True):
        values_a = np.asarray(values_a, dtype=np.float64)
        values_b = np.asarray(values_b, dtype=np.float64)
        qid = np.asarray(qid)
        if values_a.ndim != 1 or values_a.shape != values_b.shape or values_a.shape != qid.shape:
            raise ValueError("`values_a`, `values_b` and `qid` must be 1-D of one length. Got shapes "
                             f"{values_a.shape}, {values_b.shape} and {qid.shape} instead.")
        for label, values in (("values_a", values_a), ("values_b", values_b)):
            if not np.isfinite(values).all():
                i = int(np.flatnonzero(~np.isfinite(values))[0])
                raise ValueError(f"`{label}` must be finite: leave out the queries where the metric is undefined "
                                 f"(from_reports does). Got {label}[{i}] = {float(values[i])!r} (query {qid[i].item()!r}) "
                                 "instead.")
        self.values_a, self.values_b, self.qid = values_a, values_b, qid
        self.metric = metric
        self.result = result
        self.name_a, self.name_b = _name(name_a, "name_a"), _name(name_b, "name_b")
        self.greater_is_better = bool(greater_is_better)
        higher, lower = int(np.sum(values_a > values_b)), int(np.sum(values_a < values_b))
        self.ties = int(values_a.size) - higher - lower
        self.wins, self.losses = (higher, lower) if self.greater_is_better else (lower, higher)
        self.n_unpaired_a = self.n_unpaired_b = self.n_undefined = 0

    def plot(self, ax=None, **kwargs):
        """Draw the scatter, the diagonal and the legend on ``ax``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        **kwargs : dict
            Passed to :meth:`matplotlib.axes.Axes.scatter`.

        Returns
        -------
        display : QueryComparisonDisplay
            This display, with ``scatter_``, ``diagonal_``, ``ax_`` and
            ``figure_``.
        """
        ax = _axes(ax, "QueryComparisonDisplay.plot")
        from matplotlib.lines import Line2D

        a_better = self.values_a > self.values_b if self.greater_is_better else self.values_a < self.values_b
        b_better = self.values_a < self.values_b if self.greater_is_better else self.values_a > self.values_b
        outcome = np.where(a_better, 0, np.where(b_better, 2, 1))
        colors = np.array(_OUTCOME_COLORS)[outcome]
        self.scatter_ = ax.scatter(self.values_a, self.values_b, **{"c": colors, "alpha": 0.7, "s": 20, **kwargs})
        both = np.concatenate([self.values_a, self.values_b])
        low, high = (float(both.min()), float(both.max())) if both.size else (0.0, 1.0)
        pad = 0.03 * (high - low) if high > low else 0.5
        low, high = low - pad, high + pad
        (self.diagonal_,) = ax.plot([low, high], [low, high], color="black", linestyle="--", linewidth=1)
        ax.set_xlim(low, high)
        ax.set_ylim(low, high)
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel(f"{self.metric} of {self.name_a} (per query)")
        ax.set_ylabel(f"{self.metric} of {self.name_b} (per query)")
        handles = [Line2D([], [], marker="o", linestyle="", color=color, label=label) for color, label in zip(
            _OUTCOME_COLORS, (f"{self.name_a} better: {self.wins}", f"tie: {self.ties}",
                              f"{self.name_b} better: {self.losses}"))]
        title = None
        if self.result is not None:
            title = f"{self.result.test} (paired), p = {self.result.pvalue:.3g}"
        ax.legend(handles=handles, title=title, loc="best")
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    def from_reports(cls, report_a, report_b, *, metric=None, name_a="A", name_b="B", unpaired="raise",
                     test="auto", alternative="two-sided", rng=None, ax=None, **kwargs):
        """Pair two reports by query id, test the difference and draw the scatter.

        Parameters
        ----------
        report_a, report_b : RankingReport
            Reports of :func:`sklearn_rank.evaluate` (or anything with a
            ``per_query`` mapping holding ``"qid"``) of the two models.
        metric : str, default=None
            The per-query metric to compare, as written in the reports (case,
            ``-``, ``_`` and spaces aside); may be left out when the reports
            hold one metric. A name that the reports' ``convention`` presets
            read as different metrics (ranx's ``hits@k`` is a count) is
            refused with a ``ValueError``.
        name_a, name_b : str, default="A", "B"
            Names of the two models.
        unpaired : {"raise", "drop"}, default="raise"
            Queries found in one report only: an error, or left out (counted in
            ``n_unpaired_a`` and ``n_unpaired_b``).
        test : {"auto", "wilcoxon", "ttest", "permutation", "bootstrap"}, default="auto"
            The paired test of :func:`sklearn_rank.stats.compare` (``"auto"``:
            Wilcoxon's signed-rank test).
        alternative : {"two-sided", "less", "greater"}, default="two-sided"
            ``"greater"``: A's values tend to be larger than B's.
        rng : int or numpy.random.Generator, default=None
            Randomness of the permutation and bootstrap tests.
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        **kwargs : dict
            Passed to :meth:`matplotlib.axes.Axes.scatter`.

        Returns
        -------
        display : QueryComparisonDisplay
            The display, drawn.
        """
        from .. import stats

        _check_ax(ax, "QueryComparisonDisplay.from_reports")
        _choice(unpaired, "unpaired", _UNPAIRED)
        key_a, qid_a, values_a = _per_query(report_a, metric, "report_a")
        key_b, qid_b, values_b = _per_query(report_b, key_a if metric is None else metric, "report_b")
        spec = _same_metric(report_a, key_a, report_b, key_b)
        shared, index_a, index_b = np.intersect1d(qid_a, qid_b, assume_unique=True, return_indices=True)
        n_unpaired_a, n_unpaired_b = qid_a.size - shared.size, qid_b.size - shared.size
        if (n_unpaired_a or n_unpaired_b) and unpaired == "raise":
            only_a = np.setdiff1d(qid_a, shared, assume_unique=True)[:5].tolist()
            only_b = np.setdiff1d(qid_b, shared, assume_unique=True)[:5].tolist()
            raise ValueError("`report_a` and `report_b` must hold the same queries to be paired by query id "
                             "(unpaired='drop' leaves out the others). Got "
                             f"{n_unpaired_a} query ids only in report_a {only_a} and {n_unpaired_b} only in "
                             f"report_b {only_b} instead.")
        x, y = values_a[index_a], values_b[index_b]
        defined = ~(np.isnan(x) | np.isnan(y))
        shared, x, y = shared[defined], x[defined], y[defined]
        if x.size < 2:
            raise ValueError(f"`report_a` and `report_b` must share at least two queries with a value of {key_a!r} "
                             f"for the paired test ({n_unpaired_a + n_unpaired_b} query ids in one report only, "
                             f"{defined.size - x.size} undefined (NaN)). Got {x.size} instead.")
        # the paired values as reports, with the reports' per-query weights: stats weighs them (or refuses a
        # test that has no weighted form), as it does for the reports themselves
        side_a, side_b = (_Paired(shared, key_a, values, _weights(report, index, defined))
                          for values, report, index in ((x, report_a, index_a), (y, report_b, index_b)))
        result = stats.compare(side_a, side_b, metric=key_a, test=test, paired=True, alternative=alternative,
                               rng=rng)
        display = cls(values_a=x, values_b=y, qid=shared, metric=key_a, result=result, name_a=name_a,
                      name_b=name_b, greater_is_better=True if spec is None else bool(spec.greater_is_better))
        display.n_unpaired_a, display.n_unpaired_b = n_unpaired_a, n_unpaired_b
        display.n_undefined = int(defined.size - np.count_nonzero(defined))
        return display.plot(ax=ax, **kwargs)


class _Paired:
    """The paired values of one report as a report for :func:`sklearn_rank.stats.compare`."""

    def __init__(self, qid, metric, values, sample_weight):
        self.per_query = {"qid": qid, metric: values}
        self.sample_weight = sample_weight


def _weights(report, index, keep):
    """The report's per-query weights at ``index`` (positions in ``per_query["qid"]``) where ``keep``, or None."""
    weight = getattr(report, "sample_weight", None)
    return None if weight is None else np.asarray(weight)[index][keep]
