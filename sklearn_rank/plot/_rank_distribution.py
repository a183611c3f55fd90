"""RankDistributionDisplay: the histogram of the targets' ranks, with the random-ranking baseline."""

from __future__ import annotations

import numpy as np

from .. import _engine
from .._checks import check_positive_int
from ._base import (LOG_SCALE_RATIO, _D, _axes, _bool, _check_ax, _check_keywords, _choice, _estimator_inputs,
                    _estimator_name, _first_outside, _merge, _name, _no_target, _numbers)
from ..exceptions import InputValueError

_RANK_VARIANTS = ("realistic", "optimistic", "pessimistic", "ordinal", "expected")
_LOG_SCALE = ("auto", True, False)
_DENSITY = (False, True, "per_rank")
# Elements of the (rows x bin boundaries) matrices computed at once: a few MB, however many targets or bins.
_CHUNK_ELEMENTS = 1 << 18
# Likely guesses at the Display's keywords, for the error on an unknown one.
_HINTS = {"bins": "n_bins", "nbins": "n_bins", "num_bins": "n_bins", "logscale": "log_scale",
          "log_x": "log_scale", "baseline": "plot_baseline", "normed": "density", "normalize": "density",
          "per_rank": "density"}


def _rows_per_chunk(n_columns):
    return max(1, _CHUNK_ELEMENTS // max(1, n_columns))


def _log_comb(n, r):
    from scipy.special import gammaln

    return gammaln(n + 1.0) - gammaln(r + 1.0) - gammaln(n - r + 1.0)


# Up to this many relevant candidates, C(m, r) / C(n, r) is a product of r ratios, exact to a few ulps.
_PRODUCT_TERMS = 32


def _comb_ratio(m, n, r):
    """``C(m, r) / C(n, r)`` for whole ``r <= n`` and ``m <= n`` (float64, broadcast together); 0 where ``m < r``.

    For ``r`` up to ``_PRODUCT_TERMS`` the product of the ``r`` ratios ``(m - j) / (n - j)``: a relative
    error of a few ulps, so that the differences of these survival probabilities (a bin's share) keep 12
    digits and ``density="per_rank"`` of a random scorer is flat to 1e-12; the log-gamma form lost 1e-13 in
    logs of size ``n log n``, about 1e-10 in a bin's share for ``n = 200``. Larger ``r`` by log-gamma.
    """
    m, n, r = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (m, n, r)))
    ratio = np.zeros(m.shape)
    possible = m >= r
    small = possible & (r <= _PRODUCT_TERMS)
    if small.any():
        m_small, n_small, r_small = m[small], n[small], r[small]
        product = np.ones(m_small.shape)
        for j in range(int(r_small.max())):
            active = r_small > j  # n - j > 0 there (j < r <= n)
            product[active] *= (m_small[active] - j) / (n_small[active] - j)
        ratio[small] = product
    large = possible & ~small
    if large.any():
        ratio[large] = np.exp(np.minimum(_log_comb(m[large], r[large]) - _log_comb(n[large], r[large]), 0.0))
    return ratio


def _random_rank_survival(num_candidates, num_relevant, at):
    """P(R >= at) for R the best of ``num_relevant`` distinct uniformly random positions among
    ``num_candidates``: C(N - at + 1, r) / C(N, r), zero where N - at + 1 < r.

    ``num_candidates`` and ``num_relevant`` of shape (n,), ``at`` of shape (m,); returns (n, m).
    """
    n = num_candidates[:, None].astype(np.float64)
    r = num_relevant[:, None].astype(np.float64)
    remaining = n - np.asarray(at, dtype=np.float64)[None, :] + 1.0
    return _comb_ratio(remaining, n, r)


def _baseline_counts(num_candidates, num_relevant, bounds):
    """Expected targets per bin under uniformly random ranking: the sum over targets of
    ``P(b_i <= R < b_{i+1}) = S(b_i) - S(b_{i+1})``, computed once per distinct (N, r) pair, in chunks."""
    pairs, multiplicity = np.unique(np.column_stack([num_candidates, num_relevant]), axis=0, return_counts=True)
    counts = np.zeros(bounds.size - 1)
    chunk = _rows_per_chunk(bounds.size)
    for lo in range(0, pairs.shape[0], chunk):
        survival = _random_rank_survival(pairs[lo:lo + chunk, 0], pairs[lo:lo + chunk, 1], bounds)
        counts += multiplicity[lo:lo + chunk] @ (survival[:, :-1] - survival[:, 1:])
    return counts


def _expected_counts(optimistic, pessimistic, expected, bounds):
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
    chunk = _rows_per_chunk(bounds.size)
    for lo in range(0, o.size, chunk):
        part = slice(lo, lo + chunk)
        # P(R >= bound) = P(B >= bound - o + 1): 1 below the block, 0 past its last possible place
        a = bounds[None, :] - o[part, None] + 1.0
        # min(., b): at or above the block's start, P = 1 (the ratio's m <= n)
        remaining = np.minimum(b[part, None] - a + 1.0, b[part, None])
        survival = np.where(a <= 1.0, 1.0, _comb_ratio(remaining, b[part, None], r[part, None]))
        counts += (survival[:, :-1] - survival[:, 1:]).sum(axis=0)
    return counts


def _check_density(density):
    """``density`` as one of ``_DENSITY`` (a NumPy bool as a bool)."""
    if isinstance(density, np.bool_):
        density = bool(density)
    return _choice(density, "density", _DENSITY)


def _rank_bins(max_rank, log_scale, n_bins):
    """Integer rank boundaries ``1 = b_0 < b_1 < ... < b_n = max_rank + 1``: bin i holds the integer
    ranks ``b_i .. b_{i+1} - 1``."""
    if n_bins is None:
        n_bins = 30 if log_scale else min(max_rank, 50)
    if n_bins >= max_rank:
        # one bin per rank is the finest there is: decided before allocating n_bins + 1 boundaries
        return np.arange(1, max_rank + 2, dtype=np.int64)
    if log_scale:
        raw = np.geomspace(1.0, max_rank + 1.0, n_bins + 1)
    else:
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
        1-based rank of each target: whole ranks under ``ties="ordinal"``,
        ``"optimistic"`` and ``"pessimistic"``, whole or half ranks (mid
        ranks) under ``"realistic"``, any rank in ``[1, num_candidates]``
        under ``"expected"``.
    num_candidates : array-like of shape (n_targets,)
        Candidates each target was ranked against (itself included): whole
        numbers.
    num_relevant : array-like of shape (n_targets,), default=None
        Relevant candidates competing for each target's rank (the random
        baseline is the best of that many random positions); default 1.
    ties : {"expected", "realistic", "optimistic", "pessimistic", "ordinal"}, default="expected"
        Which rank of :class:`~sklearn_rank.Ranks` ``ranks`` holds; shown on
        the axis label. With ``"expected"`` and ``optimistic`` and
        ``pessimistic`` given, the bars are the expected counts over every
        order of the tied candidates (see ``counts``).
    log_scale : {"auto", True, False}, default="auto"
        Logarithmic bins and rank axis. ``"auto"``: when the largest possible
        rank (the largest candidate count) is more than 50 times the smallest
        possible rank, 1.
    n_bins : int, default=None
        Number of bins (fewer when bins would hold no integer rank: at most
        one per rank, so ``n_bins`` at or above the largest candidate count
        gives one bin per rank, linear or logarithmic). Default: one per rank
        up to 50 ranks, else 50 linear or 30 logarithmic bins.
    density : {False, "per_rank", True}, default=False
        What the bars (and the baseline) show. ``False``: targets per bin.
        ``"per_rank"``: each bin's count divided by the number of whole
        ranks it holds (its width), so logarithmic bins of growing width
        compare with each other: uniformly random ranks among equally many
        candidates draw a flat histogram. ``True``: as ``density=True`` of
        :meth:`matplotlib.axes.Axes.hist`, per rank and divided by the
        number of targets (the bars' areas sum to 1).
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
    density : {False, "per_rank", True}
        What the bars show (see Parameters).
    heights : ndarray of shape (n_bins,)
        The bar heights: ``counts``, divided by the number of ranks of each
        bin (``np.diff(bin_edges)``) under ``density="per_rank"``, and also
        by the number of targets under ``density=True``.
    baseline_heights : ndarray of shape (n_bins,)
        The baseline's step heights, ``baseline_counts`` scaled as ``heights``.
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
                 n_bins=None, density=False, name=None, optimistic=None, pessimistic=None):
        ties = _choice(ties, "ties", _RANK_VARIANTS)
        density = _check_density(density)
        ranks = _numbers(ranks, "ranks").astype(np.float64)
        num_candidates = _numbers(num_candidates, "num_candidates")
        if ranks.ndim != 1 or ranks.size == 0:
            raise InputValueError("`ranks` must hold at least one rank (1-D): no target has a rank to draw (are there "
                                  f"relevant items among the candidates?). Got shape {ranks.shape} instead.")
        if num_candidates.shape != ranks.shape:
            raise InputValueError(f"`num_candidates` must hold one candidate count per rank ({ranks.size}). "
                                  f"Got {num_candidates.dtype} of shape {num_candidates.shape} instead.")
        # a fractional count would be truncated when stored as int64
        _first_outside(num_candidates == np.floor(num_candidates), num_candidates, "num_candidates",
                       "hold whole candidate counts")
        num_relevant = np.ones_like(num_candidates) if num_relevant is None else _numbers(num_relevant,
                                                                                          "num_relevant")
        if num_relevant.shape != ranks.shape:
            raise InputValueError(f"`num_relevant` must hold one count per rank ({ranks.size}). "
                                  f"Got shape {num_relevant.shape} instead.")
        _first_outside(num_relevant == np.floor(num_relevant), num_relevant, "num_relevant",
                       "hold whole counts of relevant candidates")
        for label, values in (("ranks", ranks), ("num_relevant", num_relevant)):
            outside = ~((values >= 1) & (values <= num_candidates))
            if outside.any():
                i = int(np.flatnonzero(outside)[0])
                raise InputValueError(
                    f"`{label}` must lie in [1, num_candidates] for each target. Got {label}[{i}] = "
                    f"{values[i].item()!r} with num_candidates[{i}] = {num_candidates[i].item()!r} instead.")
        # what each kind of rank can be: optimistic, pessimistic and ordinal ranks are places; a mid rank
        # is halfway between two places; an expected rank optimistic + d / (r + 1) is any fraction
        if ties == "realistic":
            _first_outside(2 * ranks == np.floor(2 * ranks), ranks, "ranks",
                           "be whole or half ranks (mid ranks) under ties='realistic'")
        elif ties != "expected":
            _first_outside(ranks == np.floor(ranks), ranks, "ranks", f"be whole ranks under ties={ties!r}")
        self.ranks = ranks
        self.num_candidates = num_candidates.astype(np.int64)
        self.num_relevant = num_relevant.astype(np.int64)
        self.ties = ties
        self.name = _name(name, "name")
        _choice(log_scale, "log_scale", _LOG_SCALE)
        if n_bins is not None:
            n_bins = check_positive_int(n_bins, "n_bins")
        max_rank = int(self.num_candidates.max())
        self.log_scale = bool(max_rank > LOG_SCALE_RATIO) if log_scale == "auto" else bool(log_scale)
        bounds = _rank_bins(max_rank, self.log_scale, n_bins)
        self.bin_edges = bounds - 0.5
        if (optimistic is None) != (pessimistic is None):
            raise InputValueError("`optimistic` and `pessimistic` go together (the tie block of each target). Got "
                                  f"only `{'optimistic' if pessimistic is None else 'pessimistic'}` instead.")
        if ties == "expected" and optimistic is not None:
            optimistic = np.asarray(optimistic, dtype=np.float64)
            pessimistic = np.asarray(pessimistic, dtype=np.float64)
            if optimistic.shape != ranks.shape or pessimistic.shape != ranks.shape or not (
                    (optimistic <= ranks) & (ranks <= pessimistic)).all():
                raise InputValueError("`optimistic` and `pessimistic` must hold one rank per target, with "
                                      "optimistic <= ranks <= pessimistic (the fields of compute_ranks). Got shapes "
                                      f"{optimistic.shape} and {pessimistic.shape} for {ranks.size} ranks, or ranks "
                                      "outside them, instead.")
            tied = pessimistic > optimistic
            competing = (pessimistic[tied] - optimistic[tied]) / (ranks[tied] - optimistic[tied])
            if not (np.isfinite(competing) & (np.abs(competing - np.rint(competing)) < 1e-6)).all():
                raise InputValueError(
                    "`ranks` must be the expected ranks under ties='expected' (optimistic + d / (r + 1) "
                    "for d tied non-relevant and r tied relevant candidates). Got ranks that are not "
                    "instead.")
            self.counts = _expected_counts(optimistic, pessimistic, ranks, bounds)
        else:
            self.counts = np.histogram(self.ranks, bins=self.bin_edges)[0]
        self.baseline_counts = _baseline_counts(self.num_candidates, self.num_relevant, bounds)
        self.density = density
        # per rank: a bin of w whole ranks holds w ranks' worth of targets (a log bin's width grows with the rank)
        scale = 1.0 if density is False else 1.0 / np.diff(bounds)
        if density is True:
            scale = scale / ranks.size
        self.heights = self.counts * scale
        self.baseline_heights = self.baseline_counts * scale

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
            Passed to :meth:`matplotlib.axes.Axes.bar` (properties of the bars,
            ``Rectangle``, and its error-bar and tick keywords); any other
            keyword is a ``TypeError``, before any work.

        Returns
        -------
        display : RankDistributionDisplay
            This display, with ``bars_``, ``baseline_``, ``ax_`` and ``figure_``.
        """
        _check_ax(ax, "RankDistributionDisplay.plot")
        plot_baseline = _bool(plot_baseline, "plot_baseline")
        _check_keywords(kwargs, "bar", "RankDistributionDisplay.plot", RankDistributionDisplay.plot, hints=_HINTS)
        ax = _axes(ax, "RankDistributionDisplay.plot")
        name = _name(name, "name") if name is not None else self.name
        label = f"{name}: {self.ranks.size} targets" if name else f"{self.ranks.size} targets"
        bar_kwargs = {"alpha": 0.8, "label": label, **kwargs}
        self.bars_ = ax.bar(self.bin_edges[:-1], self.heights, width=np.diff(self.bin_edges), align="edge",
                            **bar_kwargs)
        self.baseline_ = None
        if plot_baseline:
            self.baseline_ = ax.stairs(self.baseline_heights, self.bin_edges, color="black", linestyle="--",
                                       label="uniformly random ranks (expected)")
        if self.log_scale:
            ax.set_xscale("log")
        ax.set_xlabel(f"rank of the target ({self.ties}; 1 = top)")
        ax.set_ylabel({False: "targets", "per_rank": "targets per rank",
                       True: "share of targets per rank"}[self.density])
        ax.legend(loc="upper right")
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    def from_predictions(cls, y_true, y_score, *, qid=None, ties="expected", exclude=None, labels=None,
                         relevance_level=None, targets=_D["targets"], nan_policy=_D["nan_policy"], convention=None,
                         log_scale="auto", n_bins=None, density=False, name=None, ax=None, plot_baseline=True,
                         **kwargs):
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
        density : {False, "per_rank", True}, default=False
            Targets per bin, per rank of the bin (a random scorer draws flat
            logarithmic bins), or per rank and target (see the class
            documentation).
        name : str, default=None
            Name of the model, for the legend.
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        plot_baseline : bool, default=True
            Whether to draw the random baseline.
        **kwargs : dict
            Passed to :meth:`matplotlib.axes.Axes.bar` (properties of the bars,
            ``Rectangle``, and its error-bar and tick keywords); any other
            keyword is a ``TypeError``, before any work.

        Returns
        -------
        display : RankDistributionDisplay
            The display, drawn.
        """
        caller = "RankDistributionDisplay.from_predictions"
        _check_drawing(ax, log_scale, n_bins, density, plot_baseline, kwargs, caller, cls.from_predictions)
        _choice(ties, "ties", _RANK_VARIANTS)
        ranks = _engine.compute_ranks(y_true, y_score, qid=qid, exclude=exclude, labels=labels,
                                      relevance_level=relevance_level, targets=targets, nan_policy=nan_policy,
                                      convention=convention)
        if not len(ranks):
            raise _no_target(ranks, relevance_level, "no target has a rank to draw")
        return cls._draw(ranks, ties, log_scale, n_bins, density, name, ax, plot_baseline, kwargs)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, qid=None, ties=None, exclude=None, relevance_level=None,
                       targets=None, nan_policy=None, convention=None, log_scale="auto", n_bins=None, density=False,
                       name=None, ax=None, plot_baseline=True, **kwargs):
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
        density : {False, "per_rank", True}, default=False
            Targets per bin, per rank of the bin, or per rank and target
            (see the class documentation).
        name : str, default=None
            Name of the model (default: the estimator's class name; for a
            ``RankingEvaluator``, its wrapped estimator's).
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        plot_baseline : bool, default=True
            Whether to draw the random baseline.
        **kwargs : dict
            Passed to :meth:`matplotlib.axes.Axes.bar` (properties of the bars,
            ``Rectangle``, and its error-bar and tick keywords); any other
            keyword is a ``TypeError``, before any work.

        Returns
        -------
        display : RankDistributionDisplay
            The display, drawn.
        """
        caller = "RankDistributionDisplay.from_estimator"
        _check_drawing(ax, log_scale, n_bins, density, plot_baseline, kwargs, caller, cls.from_estimator)
        inputs, options = _estimator_inputs(estimator, X, y, qid, "RankDistributionDisplay.from_estimator")
        if ties is None:
            ties = options.get("ties")
            ties = "expected" if ties is None or type(ties) is not str else str(ties)
        _choice(ties, "ties", _RANK_VARIANTS)
        merged = _merge(options, relevance_level=relevance_level, targets=targets, nan_policy=nan_policy,
                        convention=convention)
        ranks = _engine.compute_ranks(**inputs, exclude=exclude, **merged)
        if not len(ranks):
            raise _no_target(ranks, merged.get("relevance_level"), "no target has a rank to draw")
        name = _estimator_name(estimator) if name is None else name
        return cls._draw(ranks, ties, log_scale, n_bins, density, name, ax, plot_baseline, kwargs)

    @classmethod
    def _draw(cls, ranks, ties, log_scale, n_bins, density, name, ax, plot_baseline, kwargs):
        display = cls(ranks=getattr(ranks, ties), num_candidates=ranks.num_candidates,
                      num_relevant=ranks.num_relevant, ties=ties, log_scale=log_scale, n_bins=n_bins,
                      density=density, name=name, optimistic=ranks.optimistic, pessimistic=ranks.pessimistic)
        return display.plot(ax=ax, plot_baseline=plot_baseline, **kwargs)


def _check_drawing(ax, log_scale, n_bins, density, plot_baseline, kwargs, caller, method):
    """The drawing options of ``from_predictions`` and ``from_estimator``, checked before any ranking."""
    _check_ax(ax, caller)
    _choice(log_scale, "log_scale", _LOG_SCALE)
    _check_density(density)
    if n_bins is not None:
        check_positive_int(n_bins, "n_bins")
    _bool(plot_baseline, "plot_baseline")
    _check_keywords(kwargs, "bar", caller, method, hints=_HINTS)
