"""QueryComparisonDisplay: per-query values of one metric under two models, paired by query id."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .. import _engine
from .._conventions import resolve as _resolve_convention
from .._registry import get_metric
from ._base import _axes, _bool, _check_ax, _check_keywords, _choice, _name, _numbers
from ..exceptions import InputTypeError, InputValueError

# Colours of the outcomes of a query in the comparison: A better, tie, B better.
_OUTCOME_COLORS = ("tab:blue", "tab:gray", "tab:orange")


def _per_query(report, metric, label):
    per_query = getattr(report, "per_query", None)
    if not isinstance(per_query, Mapping) or "qid" not in per_query:
        raise InputTypeError(f"`{label}` must be a RankingReport (from sklearn_rank.evaluate) with per-query values "
                             f"and query ids. Got {type(report).__name__} instead.")
    available = [key for key in per_query if key != "qid"]
    if metric is None:
        if len(available) != 1:
            raise InputValueError(f"`metric` must name the metric to compare, one of {available}. Got None instead.")
        key = available[0]
    elif metric in available:
        key = metric
    else:
        from .._registry import _normalise

        matches = [key for key in available if isinstance(key, str) and _normalise(key) == _normalise(metric)]
        if len(matches) != 1:
            raise InputValueError(f"`metric` must name a per-query metric of `{label}`, one of {available}. "
                                  f"Got {metric!r} instead.")
        key = matches[0]
    qid = np.asarray(per_query["qid"])
    values = np.asarray(per_query[key], dtype=np.float64)
    if qid.ndim != 1 or qid.shape != values.shape:
        raise InputValueError(f"`{label}.per_query` must hold one query id per value of {key!r}. "
                              f"Got shapes {qid.shape} and {values.shape} instead.")
    unique, counts = np.unique(qid, return_counts=True)
    if unique.size != qid.size:
        raise InputValueError(f"`{label}` lists some query ids more than once, so it cannot be paired. "
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
        raise InputValueError(f"`report_a` and `report_b` must hold the same metric under {key_a!r} to be compared "
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
    >>> y_score_b = np.eye(3)[[0, 1, 2, 1, 1]]
    >>> report_a = evaluate(y_true, y_score_a, metrics=["mrr"])
    >>> report_b = evaluate(y_true, y_score_b, metrics=["mrr"])
    >>> display = QueryComparisonDisplay.from_reports(report_a, report_b, metric="mrr")
    >>> display.wins, display.ties, display.losses
    (2, 2, 1)
    >>> display.result.test
    'wilcoxon'
    >>> import matplotlib.pyplot as plt
    >>> plt.close(display.figure_)
    """

    def __init__(self, *, values_a, values_b, qid, metric, result=None, name_a="A", name_b="B",
                 greater_is_better=True):
        values_a = _numbers(values_a, "values_a").astype(np.float64)
        values_b = _numbers(values_b, "values_b").astype(np.float64)
        qid = np.asarray(qid)
        if values_a.ndim != 1 or values_a.shape != values_b.shape or values_a.shape != qid.shape:
            raise InputValueError("`values_a`, `values_b` and `qid` must be 1-D of one length. Got shapes "
                                  f"{values_a.shape}, {values_b.shape} and {qid.shape} instead.")
        for label, values in (("values_a", values_a), ("values_b", values_b)):
            if not np.isfinite(values).all():
                i = int(np.flatnonzero(~np.isfinite(values))[0])
                raise InputValueError(
                    f"`{label}` must be finite: leave out the queries where the metric is undefined "
                    f"(from_reports does). Got {label}[{i}] = {float(values[i])!r} (query {qid[i].item()!r}) "
                    "instead.")
        self.values_a, self.values_b, self.qid = values_a, values_b, qid
        self.metric = metric
        self.result = result
        self.name_a, self.name_b = _name(name_a, "name_a"), _name(name_b, "name_b")
        self.greater_is_better = _bool(greater_is_better, "greater_is_better")
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
            Passed to :meth:`matplotlib.axes.Axes.scatter` (its parameters and
            the properties of a ``PathCollection``); any other keyword is a
            ``TypeError``, before any work.

        Returns
        -------
        display : QueryComparisonDisplay
            This display, with ``scatter_``, ``diagonal_``, ``ax_`` and
            ``figure_``.
        """
        _check_ax(ax, "QueryComparisonDisplay.plot")
        _check_keywords(kwargs, "scatter", "QueryComparisonDisplay.plot", QueryComparisonDisplay.plot)
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
            Passed to :meth:`matplotlib.axes.Axes.scatter` (its parameters and
            the properties of a ``PathCollection``); any other keyword is a
            ``TypeError``, before any work.

        Returns
        -------
        display : QueryComparisonDisplay
            The display, drawn.
        """
        from .. import stats
        from ..stats._pairing import UNPAIRED_POLICIES, pair_by_qid

        _check_ax(ax, "QueryComparisonDisplay.from_reports")
        _check_keywords(kwargs, "scatter", "QueryComparisonDisplay.from_reports", cls.from_reports)
        _choice(unpaired, "unpaired", UNPAIRED_POLICIES)
        key_a, qid_a, values_a = _per_query(report_a, metric, "report_a")
        key_b, qid_b, values_b = _per_query(report_b, key_a if metric is None else metric, "report_b")
        spec = _same_metric(report_a, key_a, report_b, key_b)
        shared, index_a, index_b, only_a, only_b = pair_by_qid(qid_a, qid_b, unpaired=unpaired, label_a="report_a",
                                                               label_b="report_b")
        n_unpaired_a, n_unpaired_b = only_a.size, only_b.size
        x, y = values_a[index_a], values_b[index_b]
        defined = ~(np.isnan(x) | np.isnan(y))
        shared, x, y = shared[defined], x[defined], y[defined]
        if x.size < 2:
            raise InputValueError(
                f"`report_a` and `report_b` must share at least two queries with a value of {key_a!r} "
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
