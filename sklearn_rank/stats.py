"""Significance tests on per-query values: is model A really better than model B?

Every test here compares two sets of per-query values of one metric (the
reciprocal rank, the average precision, the nDCG@10 of each query), given as
1-D arrays or as reports from :func:`sklearn_rank.evaluate` together with the
name of a metric.

Conventions shared by every function of this module:

- **Direction.** Everything is about ``a - b``. ``alternative="greater"`` is the
  hypothesis that ``a`` tends to be larger than ``b``, ``"less"`` that it tends
  to be smaller, ``"two-sided"`` (the default) that they differ. Estimates,
  effect sizes and confidence intervals are positive when ``a`` is larger.
- **Pairing.** A paired test needs each query evaluated under both models.
  Reports are aligned by query id; arrays carry no query ids and are paired by
  position, only when asked (``paired=True``) or when the test is paired by
  nature (Wilcoxon). Reports that share only some query ids are paired on the
  shared ones; the others are left out with an :class:`UnpairedQueriesWarning`,
  and the result counts them (``n_unpaired_a``, ``n_unpaired_b``).
- **Estimates.** The mean difference for the t, permutation and bootstrap
  tests; the Hodges-Lehmann estimate for the rank tests (the median of all
  pairwise differences ``a_i - b_j`` for Mann-Whitney, the median of the Walsh
  averages of the differences for Wilcoxon).
- **Effect sizes.** The rank-biserial correlation for the rank tests, Cohen's
  d (pooled standard deviation) for unpaired mean-based tests and d_z (mean
  difference over the standard deviation of the differences) for paired ones.
- **Randomness** (permutation and bootstrap) comes only through ``rng``: an
  int seed or a :class:`numpy.random.Generator`. The same seed gives the same
  p-value; no global generator is touched.
- **Degenerate data.** When a test has nothing to work with (all differences
  zero, every value equal, zero variance) it returns a defined answer and
  emits a :class:`DegenerateDataWarning` instead of failing.
"""

from __future__ import annotations

import inspect
import math
import numbers
import re
import struct
import warnings
from collections import namedtuple
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any, Callable

import numpy as np
from scipy import stats as _scipy_stats

from .exceptions import DegenerateDataWarning, UnpairedQueriesWarning

__all__ = [
    "ComparisonResult",
    "ComparisonRow",
    "ComparisonTable",
    "ConfidenceInterval",
    "DegenerateDataWarning",
    "UnpairedQueriesWarning",
    "bootstrap_ci",
    "compare",
    "compare_many",
    "corrected_ttest",
    "mann_whitney_u",
]

_ALTERNATIVES = ("two-sided", "less", "greater")
_TESTS = ("auto", "mannwhitneyu", "wilcoxon", "ttest", "permutation", "bootstrap")
_CORRECTIONS = ("holm", "bonferroni", "fdr_bh", None)
_BOOTSTRAP_METHODS = ("percentile", "basic", "BCa")
# scipy >= 1.15 names the generator argument of its resampling functions `rng`; older releases `random_state`
_SCIPY_RNG = "rng" if "rng" in inspect.signature(_scipy_stats.permutation_test).parameters else "random_state"

ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])
ConfidenceInterval.__doc__ = """Confidence interval ``(low, high)`` for the difference ``a - b``.

One-sided alternatives give one infinite bound, as in :mod:`scipy.stats`.
"""


# --------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------

def _format_choices(allowed):
    return "{" + ", ".join(repr(choice) for choice in allowed) + "}"


def _check_choice(value, name, allowed):
    if value is None:
        ok = None in allowed
    else:
        ok = isinstance(value, str) and value in allowed
    if not ok:
        raise ValueError(f"`{name}` must be one of {_format_choices(allowed)}. Got {value!r} instead.")
    return value


def _check_confidence_level(confidence_level):
    if (isinstance(confidence_level, (bool, np.bool_)) or not isinstance(confidence_level, numbers.Real)
            or not 0 < confidence_level < 1):
        raise ValueError("`confidence_level` must be a number strictly between 0 and 1. "
                         f"Got {confidence_level!r} instead.")
    return float(confidence_level)


def _check_n_resamples(n_resamples):
    if (isinstance(n_resamples, (bool, np.bool_)) or not isinstance(n_resamples, numbers.Integral)
            or n_resamples < 1):
        raise ValueError(f"`n_resamples` must be a positive integer. Got {n_resamples!r} instead.")
    return int(n_resamples)


def _check_paired(paired):
    if paired is None:
        return None
    if isinstance(paired, (bool, np.bool_)):
        return bool(paired)
    raise ValueError(f"`paired` must be None, True or False. Got {paired!r} instead.")


def _check_rng(rng):
    """Return a numpy Generator built from ``rng`` (None, a seed or a Generator)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, numbers.Integral) and not isinstance(rng, (bool, np.bool_)):
        if rng < 0:
            raise ValueError(f"`rng` must be a non-negative integer seed. Got {rng!r} instead.")
        return np.random.default_rng(int(rng))
    raise TypeError("`rng` must be None, a non-negative int or a numpy.random.Generator. "
                    f"Got {type(rng).__name__} instead.")


def _preview(items, limit=10):
    items = list(items)
    shown = ", ".join(repr(item.item() if isinstance(item, np.generic) else item) for item in items[:limit])
    more = f", ... ({len(items) - limit} more)" if len(items) > limit else ""
    return f"[{shown}{more}]"


def _is_report(obj):
    return isinstance(getattr(obj, "per_query", None), Mapping)


def _as_values(values, name, *, qid=None):
    """Validate one sample of per-query values: a finite 1-D float array of at least two values."""
    if _is_report(values):
        raise TypeError(f"`{name}` is a report; pass reports to compare(..., metric=...), "
                        "or pass report.per_query[metric] here. "
                        f"Got {type(values).__name__} instead.")
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`{name}` must be a 1-D array of numbers. Got {type(values).__name__} instead.") from exc
    if array.ndim != 1:
        raise ValueError(f"`{name}` must be a 1-D array of per-query values. "
                         f"Got an array of shape {array.shape} instead.")
    if array.size < 2:
        raise ValueError(f"`{name}` needs at least two values. Got {array.size} instead.")
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        where = (f"query ids {_preview(np.asarray(qid)[bad])}" if qid is not None
                 else f"positions {_preview(bad)}")
        raise ValueError(f"`{name}` must not contain NaN or infinite values. "
                         f"Got {array[bad[0]]} at {where} instead.")
    return array


def _normalise_metric_name(name):
    return re.sub(r"[-_ ]", "", name.lower())


def _report_values(report, metric, name):
    """Return ``(qid, values)`` of ``metric`` from a report (anything with a ``per_query`` mapping)."""
    per_query = report.per_query
    available = [key for key in per_query if key != "qid"]
    if metric is None:
        raise ValueError(f"`metric` is required when comparing reports; `{name}` has {_format_choices(available)}. "
                         "Got None instead.")
    if not isinstance(metric, str):
        raise TypeError(f"`metric` must be a metric name (str). Got {type(metric).__name__} instead.")
    if metric in per_query and metric != "qid":
        key = metric
    else:
        matches = [key for key in available
                   if isinstance(key, str) and _normalise_metric_name(key) == _normalise_metric_name(metric)]
        if len(matches) != 1:
            raise ValueError(f"`metric` must name a per-query metric of `{name}`, one of "
                             f"{_format_choices(available)}. Got {metric!r} instead.")
        key = matches[0]
    if "qid" not in per_query:
        raise ValueError(f"`{name}.per_query` must hold the query ids under 'qid'. "
                         f"Got the keys {_format_choices(list(per_query))} instead.")
    qid = np.asarray(per_query["qid"])
    values = _as_values(per_query[key], f"{name}.per_query[{key!r}]", qid=qid)
    if qid.shape != values.shape:
        raise ValueError(f"`{name}.per_query['qid']` must have one query id per value of {key!r}. "
                         f"Got {qid.shape[0] if qid.ndim else 0} ids for {values.size} values instead.")
    return qid, values


def _align_by_qid(qid_a, values_a, qid_b, values_b, label_a, label_b):
    """Pair the values of two reports on the query ids they share.

    Returns ``(x, y, n_unpaired_a, n_unpaired_b)``: the paired values in
    query-id order and the number of queries of each report left out.
    """
    for qid, label in ((qid_a, label_a), (qid_b, label_b)):
        unique, counts = np.unique(qid, return_counts=True)
        if unique.size != qid.size:
            raise ValueError(f"`{label}` lists some query ids more than once, so it cannot be aligned. "
                             f"Got repeated query ids {_preview(unique[counts > 1])} instead.")
    shared, index_a, index_b = np.intersect1d(qid_a, qid_b, assume_unique=True, return_indices=True)
    n_unpaired_a, n_unpaired_b = qid_a.size - shared.size, qid_b.size - shared.size
    if shared.size < 2:
        raise ValueError(f"A paired test aligns reports by query id and needs at least two queries found in both "
                         f"`{label_a}` and `{label_b}`; pass paired=False to compare them as independent samples. "
                         f"Got {shared.size} shared query ids ({qid_a.size} and {qid_b.size} queries) instead.")
    if n_unpaired_a or n_unpaired_b:
        only_a = np.setdiff1d(qid_a, shared, assume_unique=True)
        only_b = np.setdiff1d(qid_b, shared, assume_unique=True)
        warnings.warn(f"`{label_a}` and `{label_b}` share {shared.size} query ids: the paired test uses those and "
                      f"leaves out {n_unpaired_a} query ids only in `{label_a}` {_preview(only_a)} and "
                      f"{n_unpaired_b} only in `{label_b}` {_preview(only_b)}.", UnpairedQueriesWarning,
                      stacklevel=5)
    return values_a[index_a], values_b[index_b], n_unpaired_a, n_unpaired_b


def _prepare(a, b, *, metric, test, paired, label_a="a", label_b="b"):
    """Resolve inputs, pairing and the test to run.

    Returns ``(x, y, paired, test, (n_unpaired_a, n_unpaired_b))``.
    """
    if test == "wilcoxon" and paired is False:
        raise ValueError("`test='wilcoxon'` is a paired test (signed ranks of a - b). "
                         "Use test='mannwhitneyu' for independent samples. Got paired=False instead.")
    if test == "mannwhitneyu" and paired is True:
        raise ValueError("`test='mannwhitneyu'` compares independent samples. "
                         "Use test='wilcoxon' for paired values. Got paired=True instead.")
    qid_a = qid_b = None
    if _is_report(a):
        qid_a, x = _report_values(a, metric, label_a)
    else:
        x = _as_values(a, label_a)
    if _is_report(b):
        qid_b, y = _report_values(b, metric, label_b)
    else:
        y = _as_values(b, label_b)

    both_reports = qid_a is not None and qid_b is not None
    if paired is None:
        if test == "wilcoxon":
            paired = True
        elif test == "mannwhitneyu" or not both_reports:
            paired = False
        else:  # reports on (some of) the same queries are paired on those
            paired = bool(np.intersect1d(qid_a, qid_b).size)

    unpaired = (0, 0)
    if paired:
        if both_reports:
            x, y, *unpaired = _align_by_qid(qid_a, x, qid_b, y, label_a, label_b)
        elif x.size != y.size:
            raise ValueError(f"Paired tests need as many values in `{label_b}` as in `{label_a}`. "
                             f"Got {x.size} and {y.size} instead.")
    if test == "auto":
        test = "wilcoxon" if paired else "mannwhitneyu"
    return x, y, bool(paired), test, tuple(unpaired)


# --------------------------------------------------------------------------
# result objects
# --------------------------------------------------------------------------

def _format_number(value):
    return repr(float(format(value, ".6g")))


@dataclass(frozen=True, repr=False)
class ComparisonResult:
    """Result of a two-sample comparison.

    Attributes
    ----------
    statistic : float
        The test statistic, as :mod:`scipy.stats` defines it for the test: U of
        ``a`` (Mann-Whitney), the Wilcoxon T (the smaller rank sum for
        ``"two-sided"``, the sum of positive ranks otherwise), Student's t, or
        the mean difference (permutation and bootstrap).
    pvalue : float
        The p-value for ``alternative``.
    test : str
        The test that ran: ``"mannwhitneyu"``, ``"wilcoxon"``, ``"ttest"``,
        ``"permutation"``, ``"bootstrap"`` or ``"corrected_ttest"``. With
        ``test="auto"`` this says which test was picked.
    alternative : str
        ``"two-sided"``, ``"less"`` or ``"greater"`` (``a`` larger than ``b``).
    n_a, n_b : int
        Number of values in each sample (equal for paired tests).
    estimate : float
        Estimated difference ``a - b``; see ``estimate_name``.
    estimate_name : str
        ``"mean_difference"`` or ``"hodges_lehmann"``.
    effect_size : float
        Standardised effect, positive when ``a`` is larger; see
        ``effect_size_name``.
    effect_size_name : str
        ``"rank_biserial"``, ``"cohens_d"`` or ``"d_z"``.
    paired : bool
        Whether the values were compared as pairs.
    n_unpaired_a, n_unpaired_b : int
        Paired comparisons of reports: number of queries of ``a`` (of ``b``)
        whose query id is not in the other report, left out of the test.
        0 otherwise.
    """

    statistic: float
    pvalue: float
    test: str
    alternative: str
    n_a: int
    n_b: int
    estimate: float
    estimate_name: str
    effect_size: float
    effect_size_name: str
    paired: bool
    n_unpaired_a: int = 0
    n_unpaired_b: int = 0
    _interval: Callable[[float], tuple] | None = field(default=None, compare=False)
    _confidence_level: float = field(default=0.95, compare=False)
    _cache: dict = field(default_factory=dict, compare=False)

    def confidence_interval(self, confidence_level=None):
        """Confidence interval for the difference ``a - b``.

        Parameters
        ----------
        confidence_level : float in (0, 1), default=None
            None uses the level given to the function that made this result
            (0.95 unless told otherwise).

        Returns
        -------
        ci : ConfidenceInterval
            Named tuple ``(low, high)``. One-sided alternatives give one
            infinite bound. t tests use Student's t; the rank tests invert the
            test (order statistics of the pairwise differences or of the
            Walsh averages, exact null distribution for small samples without
            ties, normal approximation otherwise); permutation and bootstrap
            tests use a BCa bootstrap interval of the mean difference.

        Examples
        --------
        >>> from sklearn_rank.stats import compare
        >>> res = compare([0.9, 0.8, 0.7, 0.95], [0.6, 0.5, 0.65, 0.7], test="ttest", paired=True)
        >>> low, high = res.confidence_interval(0.9)
        >>> bool(low < res.estimate < high)
        True
        """
        level = self._confidence_level if confidence_level is None else _check_confidence_level(confidence_level)
        if level not in self._cache:
            low, high = self._interval(level)
            self._cache[level] = ConfidenceInterval(float(low), float(high))
        return self._cache[level]

    def __repr__(self):
        return (f"ComparisonResult(\n"
                f"    test={self.test!r}, paired={self.paired}, alternative={self.alternative!r},\n"
                f"    statistic={_format_number(self.statistic)}, pvalue={_format_number(self.pvalue)},\n"
                f"    n_a={self.n_a}, n_b={self.n_b},\n"
                f"    estimate={_format_number(self.estimate)}, estimate_name={self.estimate_name!r},\n"
                f"    effect_size={_format_number(self.effect_size)}, "
                f"effect_size_name={self.effect_size_name!r},\n"
                + (f"    n_unpaired_a={self.n_unpaired_a}, n_unpaired_b={self.n_unpaired_b},\n"
                   if self.n_unpaired_a or self.n_unpaired_b else "")
                + ")")


@dataclass(frozen=True)
class ComparisonRow:
    """One comparison of :func:`compare_many`: ``a`` against ``b``.

    Attributes
    ----------
    a, b : str
        Names of the compared models (``b`` is the baseline when one is given).
    result : ComparisonResult
        The full test result.
    pvalue_adjusted : float
        p-value adjusted for the multiple comparisons of the table.
    wins, ties, losses : int
        Paired comparisons: number of queries where ``a`` is larger than,
        equal to, smaller than ``b``. Unpaired comparisons: the same counts
        over all ``n_a * n_b`` cross pairs of values (the counts behind the
        Mann-Whitney U and the rank-biserial correlation).
    """

    a: Any
    b: Any
    result: ComparisonResult
    pvalue_adjusted: float
    wins: int
    ties: int
    losses: int

    @property
    def test(self):
        """Name of the test that ran."""
        return self.result.test

    @property
    def statistic(self):
        """Test statistic."""
        return self.result.statistic

    @property
    def pvalue(self):
        """Raw p-value."""
        return self.result.pvalue

    @property
    def estimate(self):
        """Estimated difference ``a - b``."""
        return self.result.estimate

    @property
    def effect_size(self):
        """Effect size, positive when ``a`` is larger."""
        return self.result.effect_size


class ComparisonTable(Sequence):
    """The comparisons of :func:`compare_many`: a sequence of :class:`ComparisonRow`.

    Attributes
    ----------
    correction : str or None
        The multiple-comparison correction applied to the p-values.
    alternative : str
        The alternative hypothesis of every test.
    """

    _COLUMNS = ("a", "b", "test", "paired", "n_a", "n_b", "n_unpaired_a", "n_unpaired_b", "statistic", "pvalue", "pvalue_adjusted",
                "estimate", "estimate_name", "effect_size", "effect_size_name", "wins", "ties", "losses")

    def __init__(self, rows, *, correction, alternative):
        self._rows = tuple(rows)
        self.correction = correction
        self.alternative = alternative

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ComparisonTable(self._rows[index], correction=self.correction, alternative=self.alternative)
        return self._rows[index]

    def __len__(self):
        return len(self._rows)

    def to_records(self):
        """The table as a list of dicts, one per comparison (the columns of :meth:`to_frame`).

        Returns
        -------
        records : list of dict
        """
        return list(self._records())

    def _records(self):
        for row in self._rows:
            result = row.result
            yield {"a": row.a, "b": row.b, "test": result.test, "paired": result.paired, "n_a": result.n_a,
                   "n_b": result.n_b, "n_unpaired_a": result.n_unpaired_a, "n_unpaired_b": result.n_unpaired_b,
                   "statistic": result.statistic, "pvalue": result.pvalue,
                   "pvalue_adjusted": row.pvalue_adjusted, "estimate": result.estimate,
                   "estimate_name": result.estimate_name, "effect_size": result.effect_size,
                   "effect_size_name": result.effect_size_name, "wins": row.wins, "ties": row.ties,
                   "losses": row.losses}

    def to_frame(self):
        """The table as a :class:`pandas.DataFrame`, one row per comparison.

        Returns
        -------
        frame : pandas.DataFrame
            Columns ``a``, ``b``, ``test``, ``paired``, ``n_a``, ``n_b``,
            ``n_unpaired_a``, ``n_unpaired_b``, ``statistic``, ``pvalue``, ``pvalue_adjusted``, ``estimate``,
            ``estimate_name``, ``effect_size``, ``effect_size_name``,
            ``wins``, ``ties``, ``losses``. ``frame.attrs`` holds
            ``correction`` and ``alternative``.

        Examples
        --------
        >>> from sklearn_rank.stats import compare_many
        >>> table = compare_many({"bm25": [0.2, 0.5, 0.1, 0.3], "dense": [0.6, 0.9, 0.4, 0.8]},
        ...                      test="ttest", paired=True)
        >>> table.to_frame()[["a", "b", "wins", "ties", "losses"]]
              a      b  wins  ties  losses
        0  bm25  dense     0     0       4
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("ComparisonTable.to_frame needs pandas: pip install pandas") from exc
        frame = pd.DataFrame(list(self._records()), columns=list(self._COLUMNS))
        frame.attrs["correction"] = self.correction
        frame.attrs["alternative"] = self.alternative
        return frame

    def __repr__(self):
        header = (f"ComparisonTable(correction={self.correction!r}, alternative={self.alternative!r}, "
                  f"{len(self)} comparisons)")
        cells = [("a", "b", "test", "estimate", "effect", "pvalue", "adjusted", "W/T/L")]
        for row in self._rows:
            cells.append((str(row.a), str(row.b), row.test, format(row.estimate, ".4g"),
                          format(row.effect_size, ".3g"), format(row.pvalue, ".4g"),
                          format(row.pvalue_adjusted, ".4g"), f"{row.wins}/{row.ties}/{row.losses}"))
        widths = [max(len(line[column]) for line in cells) for column in range(len(cells[0]))]
        lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in cells]
        return "\n".join([header, *("  " + line for line in lines)])


# --------------------------------------------------------------------------
# order statistics of pairwise differences and Walsh averages (Hodges-Lehmann)
# --------------------------------------------------------------------------

def _order_key(value):
    """Integer key that orders floats like their values (IEEE 754 bit pattern, sign folded)."""
    (bits,) = struct.unpack("<q", struct.pack("<d", value))
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


def _key_value(key):
    (value,) = struct.unpack("<d", struct.pack("<q", abs(key)))
    return value if key >= 0 else -value


def _smallest_reaching(count_le, k):
    """Smallest float ``t`` with ``count_le(t) >= k``.

    Bisection over the ordered bit patterns of floats: at most 64 calls of
    ``count_le``, whatever the scale of the data.
    """
    low, high = _order_key(-math.inf), _order_key(math.inf)  # count_le(-inf) = 0 < k <= count_le(inf)
    while high - low > 1:
        middle = (low + high) // 2
        if count_le(_key_value(middle)) >= k:
            high = middle
        else:
            low = middle
    return _key_value(high)


class _PairwiseDifferences:
    """The ``m * n`` differences ``x_i - y_j``, ordered without materialising them."""

    def __init__(self, x, y):
        self.x = np.sort(x)
        self.y = np.sort(y)
        self.size = self.x.size * self.y.size
        # runs of equal values, so that corrections jump over ties in one step
        self.run_start = np.searchsorted(self.y, self.y, side="left")
        self.run_end = np.searchsorted(self.y, self.y, side="right")

    def count_le(self, t):
        """Number of differences ``x_i - y_j`` (as computed in floating point) that are ``<= t``."""
        y, last = self.y, self.y.size - 1
        with np.errstate(over="ignore", invalid="ignore"):
            # row i qualifies for a suffix of the sorted y: start from y_j >= x_i - t, then step over the
            # few positions where rounding of x_i - t and of x_i - y_j disagree
            first = np.searchsorted(y, self.x - t, side="left")
            while True:
                previous = np.maximum(first - 1, 0)
                step = (first > 0) & (self.x - y[previous] <= t)
                if not step.any():
                    break
                first = np.where(step, self.run_start[previous], first)
            while True:
                current = np.minimum(first, last)
                step = (first <= last) & (self.x - y[current] > t)
                if not step.any():
                    break
                first = np.where(step, self.run_end[current], first)
        return self.size - int(first.sum())

    def kth(self, k):
        """The ``k``-th smallest difference (1-based)."""
        return _smallest_reaching(self.count_le, k)


class _WalshAverages:
    """The ``n (n + 1) / 2`` averages ``(d_i + d_j) / 2``, ``i <= j``, ordered without materialising them."""

    def __init__(self, d):
        self.d = np.sort(d)
        self.index = np.arange(self.d.size)
        self.size = self.d.size * (self.d.size + 1) // 2
        self.run_start = np.searchsorted(self.d, self.d, side="left")
        self.run_end = np.searchsorted(self.d, self.d, side="right")

    def count_le(self, t):
        """Number of Walsh averages (as computed in floating point) that are ``<= t``."""
        d, last = self.d, self.d.size - 1
        with np.errstate(over="ignore", invalid="ignore"):
            # row i: a prefix of the sorted d qualifies; start from d_j <= 2 t - d_i and fix rounding
            end = np.searchsorted(d, 2.0 * t - d, side="right")
            while True:
                previous = np.maximum(end - 1, 0)
                step = (end > 0) & ((d + d[previous]) / 2 > t)
                if not step.any():
                    break
                end = np.where(step, self.run_start[previous], end)
            while True:
                current = np.minimum(end, last)
                step = (end <= last) & ((d + d[current]) / 2 <= t)
                if not step.any():
                    break
                end = np.where(step, self.run_end[current], end)
        return int(np.maximum(end - self.index, 0).sum())

    def kth(self, k):
        """The ``k``-th smallest Walsh average (1-based)."""
        return _smallest_reaching(self.count_le, k)


def _median_of(selector):
    half = selector.size // 2
    if selector.size % 2:
        return selector.kth(half + 1)
    low, high = selector.kth(half), selector.kth(half + 1)
    return low / 2 + high / 2 if max(abs(low), abs(high)) > 1e300 else (low + high) / 2


def _mann_whitney_null_cdf(m, n):
    """Exact CDF of U under H0 without ties, from the Gaussian binomial coefficient [m+n choose m]_q.

    Returns None when the counts would not fit in int64 or the table is large.
    """
    m, n = min(m, n), max(m, n)
    if math.comb(m + n, m) >= 2**62 or m * n > 10**6:
        return None
    size = m * n + 1
    counts = np.zeros(size, dtype=np.int64)
    counts[0] = 1
    for i in range(1, m + 1):
        shift = n + i
        if shift < size:  # multiply by (1 - q^(n+i))
            counts[shift:] -= counts[:size - shift].copy()
        # divide by (1 - q^i): running sums within each residue class modulo i
        padded = np.zeros(-(-size // i) * i, dtype=np.int64)
        padded[:size] = counts
        counts = np.cumsum(padded.reshape(-1, i), axis=0).ravel()[:size]
    return np.cumsum(counts) / math.comb(m + n, m)


def _signed_rank_null_cdf(n):
    """Exact CDF of the Wilcoxon signed-rank statistic under H0 without ties: coefficients of prod (1 + q^i)."""
    size = n * (n + 1) // 2 + 1
    counts = np.zeros(size, dtype=np.int64)
    counts[0] = 1
    for i in range(1, n + 1):
        counts[i:] = counts[i:] + counts[:-i]
    return np.cumsum(counts) / 2.0**n


def _tie_term(values):
    _, counts = np.unique(values, return_counts=True)
    counts = counts.astype(np.float64)
    return float(np.sum(counts**3 - counts))


def _rank_interval(selector, *, confidence_level, alternative, null_cdf, null_sd, n_label):
    """Distribution-free interval: order statistics ``k`` and ``size + 1 - k`` of ``selector``.

    ``k - 1`` is the largest count ``u`` with ``P(W <= u) <= alpha`` under H0
    (Hollander, Wolfe & Chicco 2013, chapters 3 and 4), from the exact
    null CDF when given, else a normal approximation with continuity
    correction.
    """
    alpha = 1.0 - confidence_level
    tail = alpha / 2 if alternative == "two-sided" else alpha
    size = selector.size
    if null_cdf is not None:
        k = int(np.searchsorted(null_cdf, tail * (1 + 1e-10), side="right"))
    else:
        z = float(_scipy_stats.norm.ppf(1.0 - tail))
        k = math.floor(size / 2 - 0.5 - z * null_sd) + 1
    k = min(k, size)
    if k < 1:
        warnings.warn(f"{n_label} are too few for a distribution-free interval at confidence_level="
                      f"{confidence_level}; the interval is unbounded.", DegenerateDataWarning, stacklevel=4)
        return -math.inf, math.inf
    low = -math.inf if alternative == "less" else selector.kth(k)
    high = math.inf if alternative == "greater" else selector.kth(size + 1 - k)
    return low, high


# --------------------------------------------------------------------------
# the tests
# --------------------------------------------------------------------------

def _degenerate(message, stacklevel=5):
    # default depth: _degenerate <- test helper <- _run <- compare / compare_many <- caller
    warnings.warn(message, DegenerateDataWarning, stacklevel=stacklevel)


def _cross_pair_counts(x, y):
    """Counts of cross pairs ``(i, j)`` with ``x_i > y_j``, ``x_i == y_j``, ``x_i < y_j``."""
    y_sorted = np.sort(y)
    below = np.searchsorted(y_sorted, x, side="left")
    below_or_equal = np.searchsorted(y_sorted, x, side="right")
    wins = int(below.sum())
    ties = int((below_or_equal - below).sum())
    return wins, ties, x.size * y.size - wins - ties


def _paired_counts(x, y):
    d = x - y
    return int(np.count_nonzero(d > 0)), int(np.count_nonzero(d == 0)), int(np.count_nonzero(d < 0))


def _pvalue_from_t(t, df, alternative):
    if alternative == "greater":
        return float(_scipy_stats.t.sf(t, df))
    if alternative == "less":
        return float(_scipy_stats.t.cdf(t, df))
    return float(min(1.0, 2 * _scipy_stats.t.sf(abs(t), df)))


def _t_interval(center, standard_error, df, confidence_level, alternative):
    if alternative == "two-sided":
        half = float(_scipy_stats.t.ppf(0.5 + confidence_level / 2, df)) * standard_error
        return center - half, center + half
    half = float(_scipy_stats.t.ppf(confidence_level, df)) * standard_error
    return (center - half, math.inf) if alternative == "greater" else (-math.inf, center + half)


def _variance(values):
    """Sample variance (ddof=1), exactly 0.0 for a constant sample (np.var can leave rounding residue)."""
    return 0.0 if np.all(values == values[0]) else float(np.var(values, ddof=1))


def _standardised(difference, scale):
    if scale > 0:
        return difference / scale
    return 0.0 if difference == 0 else math.copysign(math.inf, difference)


def _constant_difference_answer(difference, alternative):
    """Statistic and p-value of a mean-based test whose differences are all ``difference`` (zero variance)."""
    if difference == 0:
        return 0.0, 1.0
    statistic = math.copysign(math.inf, difference)
    if alternative == "two-sided":
        return statistic, 0.0
    return statistic, 0.0 if (difference > 0) == (alternative == "greater") else 1.0


def _mann_whitney(x, y, alternative, confidence_level):
    n_a, n_b = x.size, y.size
    wins, ties, losses = _cross_pair_counts(x, y)
    combined = np.concatenate([x, y])
    if np.all(combined == combined[0]):
        _degenerate("Every value is equal in both samples, so Mann-Whitney has nothing to rank: "
                    "returning U = n_a * n_b / 2 and p-value 1.0.")
        statistic, pvalue = n_a * n_b / 2, 1.0
    else:
        res = _scipy_stats.mannwhitneyu(x, y, alternative=alternative)
        statistic, pvalue = float(res.statistic), float(res.pvalue)
    differences = _PairwiseDifferences(x, y)

    def interval(level):
        has_ties = np.unique(combined).size < combined.size
        null_cdf = None if has_ties else _mann_whitney_null_cdf(n_a, n_b)
        total = n_a + n_b
        null_sd = math.sqrt(max(0.0, n_a * n_b / 12 * ((total + 1) - _tie_term(combined) / (total * (total - 1)))))
        return _rank_interval(differences, confidence_level=level, alternative=alternative, null_cdf=null_cdf,
                              null_sd=null_sd, n_label=f"{n_a} and {n_b} values")

    result = ComparisonResult(
        statistic=float(statistic), pvalue=float(pvalue), test="mannwhitneyu", alternative=alternative,
        n_a=n_a, n_b=n_b, estimate=_median_of(differences), estimate_name="hodges_lehmann",
        effect_size=(wins - losses) / (n_a * n_b), effect_size_name="rank_biserial", paired=False,
        _interval=interval, _confidence_level=confidence_level)
    return result, (wins, ties, losses)


def _wilcoxon(x, y, alternative, confidence_level):
    d = x - y
    nonzero = d[d != 0]
    if nonzero.size == 0:
        _degenerate("Every paired difference is zero, so the Wilcoxon test has nothing to rank: "
                    "returning statistic 0.0 and p-value 1.0.")
        statistic, pvalue, effect = 0.0, 1.0, 0.0
    else:
        res = _scipy_stats.wilcoxon(x, y, alternative=alternative)
        statistic, pvalue = float(res.statistic), float(res.pvalue)
        # matched-pairs rank-biserial correlation, Kerby (2014): (R+ - R-) / (R+ + R-), zeros dropped as in the test
        ranks = _scipy_stats.rankdata(np.abs(nonzero))
        effect = float((ranks[nonzero > 0].sum() - ranks[nonzero < 0].sum()) / ranks.sum())
    walsh = _WalshAverages(d)
    n = d.size

    def interval(level):
        exact = n <= 50 and np.all(d != 0) and np.unique(np.abs(d)).size == n
        null_cdf = _signed_rank_null_cdf(n) if exact else None
        null_sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24 - _tie_term(np.abs(d)) / 48)
        return _rank_interval(walsh, confidence_level=level, alternative=alternative, null_cdf=null_cdf,
                              null_sd=null_sd, n_label=f"{n} paired values")

    result = ComparisonResult(
        statistic=statistic, pvalue=pvalue, test="wilcoxon", alternative=alternative, n_a=n, n_b=n,
        estimate=_median_of(walsh), estimate_name="hodges_lehmann", effect_size=effect,
        effect_size_name="rank_biserial", paired=True, _interval=interval, _confidence_level=confidence_level)
    return result, _paired_counts(x, y)


def _ttest(x, y, paired, alternative, confidence_level):
    n_a, n_b = x.size, y.size
    if paired:
        d = x - y
        difference = float(np.mean(d))
        sd = math.sqrt(_variance(d))
        constant = bool(np.all(d == d[0])) or sd == 0
        if constant:
            difference = float(d[0])
        standard_error = sd / math.sqrt(n_a)
        df = n_a - 1
        effect, effect_name = _standardised(difference, sd), "d_z"
        counts = _paired_counts(x, y)
    else:
        var_a, var_b = _variance(x), _variance(y)
        difference = float(np.mean(x) - np.mean(y))
        share_a, share_b = var_a / n_a, var_b / n_b
        constant = (bool(np.all(x == x[0]) and np.all(y == y[0]))) or share_a + share_b == 0
        if constant:
            difference = float(x[0] - y[0])
        standard_error = math.sqrt(share_a + share_b)
        # Welch-Satterthwaite degrees of freedom
        df = (share_a + share_b) ** 2 / (share_a**2 / (n_a - 1) + share_b**2 / (n_b - 1)) if not constant else 1.0
        pooled_sd = math.sqrt(((n_a - 1) * var_a + (n_b - 1) * var_b) / (n_a + n_b - 2))
        effect, effect_name = _standardised(difference, pooled_sd), "cohens_d"
        counts = _cross_pair_counts(x, y)
    if constant:
        what = "paired difference" if paired else "value within each sample"
        _degenerate(f"Every {what} is equal (zero variance), so the t statistic is undefined: returning "
                    "statistic 0.0 and p-value 1.0 for a zero difference, an infinite statistic otherwise.")
        statistic, pvalue = _constant_difference_answer(difference, alternative)

        def interval(level):
            return (difference if alternative != "less" else -math.inf,
                    difference if alternative != "greater" else math.inf)
    else:
        statistic = difference / standard_error
        pvalue = _pvalue_from_t(statistic, df, alternative)

        def interval(level):
            return _t_interval(difference, standard_error, df, level, alternative)

    result = ComparisonResult(
        statistic=float(statistic), pvalue=float(pvalue), test="ttest", alternative=alternative, n_a=n_a,
        n_b=n_b, estimate=difference, estimate_name="mean_difference", effect_size=effect,
        effect_size_name=effect_name, paired=paired, _interval=interval, _confidence_level=confidence_level)
    return result, counts


def _mean(values, axis=-1):
    return np.mean(values, axis=axis)


def _mean_difference(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def _mean_effect(x, y, paired):
    """Mean difference, standardised effect and its name for the mean-based resampling tests."""
    if paired:
        d = x - y
        difference = float(np.mean(d))
        return difference, _standardised(difference, math.sqrt(_variance(d))), "d_z"
    n_a, n_b = x.size, y.size
    pooled_var = ((n_a - 1) * _variance(x) + (n_b - 1) * _variance(y)) / (n_a + n_b - 2)
    difference = float(np.mean(x) - np.mean(y))
    return difference, _standardised(difference, math.sqrt(pooled_var)), "cohens_d"


def _bootstrap_data(x, y, paired):
    return ((x - y,), _mean) if paired else ((x, y), _mean_difference)


def _bootstrap_interval_factory(x, y, paired, alternative, n_resamples, seed):
    """Lazy BCa interval of the mean difference, reproducible from ``seed``."""
    data, statistic = _bootstrap_data(x, y, paired)

    def interval(level):
        res = _scipy_stats.bootstrap(data, statistic, n_resamples=n_resamples, vectorized=True,
                                     confidence_level=level, alternative=alternative, method="BCa",
                                     **{_SCIPY_RNG: np.random.default_rng(seed)})
        return res.confidence_interval.low, res.confidence_interval.high
    return interval


def _permutation(x, y, paired, alternative, confidence_level, generator, n_resamples):
    n_a, n_b = x.size, y.size
    difference, effect, effect_name = _mean_effect(x, y, paired)
    values = x - y if paired else np.concatenate([x, y])
    if (paired and np.all(values == 0)) or (not paired and np.all(values == values[0])):
        what = "paired difference is zero" if paired else "value is equal in both samples"
        _degenerate(f"Every {what}, so every permutation gives the same statistic: returning statistic 0.0 "
                    "and p-value 1.0.")
        statistic, pvalue = 0.0, 1.0
    else:
        if paired:  # one sample: scipy flips the sign of each difference
            res = _scipy_stats.permutation_test((values,), _mean, permutation_type="samples", vectorized=True,
                                                n_resamples=n_resamples, alternative=alternative,
                                                **{_SCIPY_RNG: generator})
        else:
            res = _scipy_stats.permutation_test((x, y), _mean_difference, permutation_type="independent",
                                                vectorized=True, n_resamples=n_resamples,
                                                alternative=alternative, **{_SCIPY_RNG: generator})
        statistic, pvalue = float(res.statistic), float(res.pvalue)
    seed = int(generator.integers(2**63))
    if (paired and np.all(values == values[0])) or (not paired and np.all(x == x[0]) and np.all(y == y[0])):
        def interval(level):
            return (difference if alternative != "less" else -math.inf,
                    difference if alternative != "greater" else math.inf)
    else:
        interval = _bootstrap_interval_factory(x, y, paired, alternative, n_resamples, seed)
    result = ComparisonResult(
        statistic=statistic, pvalue=pvalue, test="permutation", alternative=alternative, n_a=n_a, n_b=n_b,
        estimate=difference, estimate_name="mean_difference", effect_size=effect, effect_size_name=effect_name,
        paired=paired, _interval=interval, _confidence_level=confidence_level)
    return result, _paired_counts(x, y) if paired else _cross_pair_counts(x, y)


def _bootstrap_pvalue(distribution, alternative):
    """Percentile-bootstrap p-value: the smallest alpha whose percentile interval excludes zero.

    Counted as ``(#{theta* <= 0} + 1) / (B + 1)`` for ``"greater"`` (and
    mirrored for ``"less"``), so that it is never exactly zero.
    """
    resamples = distribution.size
    p_greater = (np.count_nonzero(distribution <= 0) + 1) / (resamples + 1)
    p_less = (np.count_nonzero(distribution >= 0) + 1) / (resamples + 1)
    if alternative == "greater":
        return float(p_greater)
    if alternative == "less":
        return float(p_less)
    return float(min(1.0, 2 * min(p_greater, p_less)))


def _bootstrap_test(x, y, paired, alternative, confidence_level, generator, n_resamples):
    n_a, n_b = x.size, y.size
    difference, effect, effect_name = _mean_effect(x, y, paired)
    data, statistic_function = _bootstrap_data(x, y, paired)
    constant = bool(np.all(data[0] == data[0][0])) if paired else bool(np.all(x == x[0]) and np.all(y == y[0]))
    if constant:
        _degenerate("The data have zero variance, so every bootstrap resample gives the same mean difference: "
                    "the interval is a single point and the p-value is 1.0 for a zero difference.")
        difference = float(data[0][0]) if paired else float(x[0] - y[0])
        pvalue = _bootstrap_pvalue(np.full(n_resamples, difference), alternative)

        def interval(level):
            return (difference if alternative != "less" else -math.inf,
                    difference if alternative != "greater" else math.inf)
    else:
        res = _scipy_stats.bootstrap(data, statistic_function, n_resamples=n_resamples, vectorized=True,
                                     confidence_level=confidence_level, alternative=alternative, method="BCa",
                                     **{_SCIPY_RNG: generator})
        pvalue = _bootstrap_pvalue(res.bootstrap_distribution, alternative)

        def interval(level):
            if level == confidence_level:
                found = res
            else:  # same resamples, another level
                found = _scipy_stats.bootstrap(data, statistic_function, n_resamples=0, vectorized=True,
                                               confidence_level=level, alternative=alternative, method="BCa",
                                               bootstrap_result=res)
            return found.confidence_interval.low, found.confidence_interval.high
    result = ComparisonResult(
        statistic=difference, pvalue=pvalue, test="bootstrap", alternative=alternative, n_a=n_a, n_b=n_b,
        estimate=difference, estimate_name="mean_difference", effect_size=effect, effect_size_name=effect_name,
        paired=paired, _interval=interval, _confidence_level=confidence_level)
    return result, _paired_counts(x, y) if paired else _cross_pair_counts(x, y)


def _run(a, b, *, metric, test, paired, alternative, confidence_level, rng, n_resamples, label_a="a", label_b="b"):
    """Validate, pair and run one comparison. Returns ``(result, (wins, ties, losses))``."""
    _check_choice(test, "test", _TESTS)
    _check_choice(alternative, "alternative", _ALTERNATIVES)
    confidence_level = _check_confidence_level(confidence_level)
    n_resamples = _check_n_resamples(n_resamples)
    paired = _check_paired(paired)
    generator = _check_rng(rng)
    x, y, paired, test, (n_unpaired_a, n_unpaired_b) = _prepare(a, b, metric=metric, test=test, paired=paired,
                                                                label_a=label_a, label_b=label_b)
    if test == "mannwhitneyu":
        result, counts = _mann_whitney(x, y, alternative, confidence_level)
    elif test == "wilcoxon":
        result, counts = _wilcoxon(x, y, alternative, confidence_level)
    elif test == "ttest":
        result, counts = _ttest(x, y, paired, alternative, confidence_level)
    elif test == "permutation":
        result, counts = _permutation(x, y, paired, alternative, confidence_level, generator, n_resamples)
    else:
        result, counts = _bootstrap_test(x, y, paired, alternative, confidence_level, generator, n_resamples)
    if n_unpaired_a or n_unpaired_b:
        result = replace(result, n_unpaired_a=n_unpaired_a, n_unpaired_b=n_unpaired_b, _cache={})
    return result, counts


# --------------------------------------------------------------------------
# public functions
# --------------------------------------------------------------------------

def mann_whitney_u(a, b, *, alternative="two-sided"):
    """Mann-Whitney U test on two independent samples of per-query values.

    Use it when the two samples come from different queries (two groups of
    queries, two test collections), so that no pairing exists; for two
    models evaluated on the same queries, :func:`compare` runs the paired
    Wilcoxon test.

    Parameters
    ----------
    a, b : array-like of shape (n_a,) and (n_b,)
        Per-query values (for example reciprocal ranks) of each sample; at
        least two finite values each. The sizes may differ.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"greater"``: values of ``a`` tend to be larger than those of ``b``.

    Returns
    -------
    result : ComparisonResult
        ``statistic`` is U of ``a`` (pairs with ``a_i > b_j``, ties counting
        half) and ``pvalue`` is :func:`scipy.stats.mannwhitneyu`'s (exact for
        small samples without ties, normal approximation with tie and
        continuity corrections otherwise). ``estimate`` is the
        Hodges-Lehmann shift (median of all ``a_i - b_j``), ``effect_size``
        the rank-biserial correlation ``2 U / (n_a n_b) - 1``, that is
        ``(#{a_i > b_j} - #{a_i < b_j}) / (n_a n_b)``, in [-1, 1] and
        positive when ``a`` tends to be larger.

    See Also
    --------
    compare : Every test, on arrays or reports.
    scipy.stats.mannwhitneyu : The test itself.

    References
    ----------
    .. [1] H. B. Mann and D. R. Whitney, "On a test of whether one of two
       random variables is stochastically larger than the other", Annals of
       Mathematical Statistics 18(1), 1947.
    .. [2] J. L. Hodges and E. L. Lehmann, "Estimates of location based on rank
       tests", Annals of Mathematical Statistics 34(2), 1963.
    .. [3] D. S. Kerby, "The simple difference formula: an approach to
       teaching nonparametric correlation", Comprehensive Psychology 3, 2014.

    Examples
    --------
    Reciprocal ranks of the queries of two groups of different sizes:

    >>> from sklearn_rank.stats import mann_whitney_u
    >>> group_a = [1.0, 1.0, 0.5, 1.0, 0.5, 1.0, 0.25]
    >>> group_b = [0.2, 0.5, 0.1, 0.25, 1.0]
    >>> res = mann_whitney_u(group_a, group_b)
    >>> res.statistic
    27.5
    >>> round(res.pvalue, 4)
    0.1063
    >>> round(res.effect_size, 4)
    0.5714
    >>> round(res.estimate, 4)
    0.4
    """
    a, b = _as_values(a, "a"), _as_values(b, "b")
    result, _ = _run(a, b, metric=None, test="mannwhitneyu", paired=False, alternative=alternative,
                     confidence_level=0.95, rng=None, n_resamples=1)
    return result


def compare(a, b, *, metric=None, test="auto", paired=None, alternative="two-sided", confidence_level=0.95,
            rng=None, n_resamples=9999):
    """Test whether the per-query values of model A differ from those of model B.

    Parameters
    ----------
    a, b : array-like of shape (n_queries,) or report
        Per-query values, or reports of :func:`sklearn_rank.evaluate`
        (anything with a ``per_query`` mapping holding ``"qid"`` and one 1-D
        array per metric) together with ``metric``. Values must be finite;
        at least two per sample.
    metric : str, default=None
        Metric to compare when ``a`` and ``b`` are reports, as written in
        ``per_query`` (case, ``-``, ``_`` and spaces are ignored when the
        exact key is missing). Ignored for arrays.
    test : {"auto", "mannwhitneyu", "wilcoxon", "ttest", "permutation", \
"bootstrap"}, default="auto"
        ``"auto"`` runs the paired Wilcoxon test when the values are paired
        and Mann-Whitney otherwise; ``result.test`` says which ran.
        ``"ttest"`` is the paired t test, or Welch's t test for independent
        samples. ``"permutation"`` tests the mean difference by sign flips
        (paired) or label shuffles (unpaired); ``"bootstrap"`` resamples
        queries (see Notes).
    paired : bool, default=None
        None: reports that share query ids are paired (aligned by query id);
        reports on different queries and arrays are independent samples,
        except for ``test="wilcoxon"``, which is always paired. True: pair
        reports by query id or arrays by position. False: independent
        samples. Paired reports that share only some query ids are compared
        on the shared ones (at least two): the others are left out with an
        :class:`UnpairedQueriesWarning` naming them, and counted in
        ``result.n_unpaired_a`` and ``result.n_unpaired_b``.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"greater"``: ``a`` tends to be larger than ``b``.
    confidence_level : float in (0, 1), default=0.95
        Level of the bootstrap test's interval and the default level of
        :meth:`ComparisonResult.confidence_interval`.
    rng : int or numpy.random.Generator, default=None
        Source of randomness for ``"permutation"`` and ``"bootstrap"``. The
        same seed gives the same p-value. None draws fresh entropy.
    n_resamples : int, default=9999
        Resamples of the permutation and bootstrap tests. A permutation test
        with no more distinct permutations than this is exact.

    Returns
    -------
    result : ComparisonResult
        Statistic, p-value, the test that ran, the estimated difference
        ``a - b`` and an effect size; ``result.confidence_interval()`` gives
        an interval for the difference.

    See Also
    --------
    mann_whitney_u : The unpaired rank test alone.
    compare_many : Several models at once, with corrected p-values.
    corrected_ttest : Cross-validation scores instead of per-query values.

    Notes
    -----
    Statistics and p-values are those of :func:`scipy.stats.mannwhitneyu`,
    :func:`scipy.stats.wilcoxon` (zero differences dropped, its default),
    :func:`scipy.stats.ttest_rel`, :func:`scipy.stats.ttest_ind` with
    ``equal_var=False`` and :func:`scipy.stats.permutation_test` on the mean
    difference. The bootstrap test reports the observed mean difference, a
    BCa interval from :func:`scipy.stats.bootstrap`, and the percentile
    bootstrap p-value: for ``"greater"``, ``(#{theta* <= 0} + 1) / (B + 1)``
    over the ``B`` bootstrap mean differences ``theta*``, mirrored for
    ``"less"``, twice the smaller of the two for ``"two-sided"``.

    For rank tests the estimate is the Hodges-Lehmann estimate: the median of
    the pairwise differences ``a_i - b_j`` (Mann-Whitney) or of the Walsh
    averages ``(d_i + d_j) / 2, i <= j`` of the paired differences, zeros
    included (Wilcoxon). The effect size is the rank-biserial correlation:
    ``(#{a_i > b_j} - #{a_i < b_j}) / (n_a n_b)`` for Mann-Whitney, and
    ``(R+ - R-) / (R+ + R-)`` over the signed ranks of the non-zero
    differences for Wilcoxon. Mean-based tests report Cohen's d (pooled
    standard deviation) when unpaired and d_z (mean over standard deviation
    of the differences) when paired.

    Degenerate inputs return a defined answer with a
    :class:`DegenerateDataWarning`: with all paired differences zero (or
    every value equal, unpaired), every test gives p-value 1.0, statistic 0.0
    (``n_a n_b / 2`` for U) and effect size 0.0. The t test with constant,
    non-zero differences (zero variance) gives an infinite statistic and a
    p-value of 0.0 (1.0 for the opposite one-sided alternative).

    Examples
    --------
    Two models evaluated on the same six queries:

    >>> from sklearn_rank.stats import compare
    >>> model_a = [1.0, 0.5, 1.0, 1.0, 0.33, 1.0]
    >>> model_b = [0.5, 0.5, 0.25, 1.0, 0.2, 0.5]
    >>> res = compare(model_a, model_b, paired=True)
    >>> res.test
    'wilcoxon'
    >>> round(res.pvalue, 4)
    0.125
    >>> res.effect_size
    1.0
    >>> res = compare(model_a, model_b, test="permutation", paired=True, rng=0)
    >>> round(res.pvalue, 4), round(res.estimate, 4)
    (0.125, 0.3133)

    Reports from :func:`sklearn_rank.evaluate` are aligned by query id:
    ``compare(report_a, report_b, metric="mrr")``.
    """
    result, _ = _run(a, b, metric=metric, test=test, paired=paired, alternative=alternative,
                     confidence_level=confidence_level, rng=rng, n_resamples=n_resamples)
    return result


def _adjust_pvalues(pvalues, correction):
    """Adjusted p-values for ``correction`` in {"holm", "bonferroni", "fdr_bh", None}."""
    pvalues = np.asarray(pvalues, dtype=np.float64)
    m = pvalues.size
    if correction is None or m == 0:
        return pvalues.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, m * pvalues)
    order = np.argsort(pvalues, kind="stable")
    ordered = pvalues[order]
    if correction == "holm":
        # Holm (1979): step down, multiplier m - i for the i-th smallest (0-based), kept monotone
        adjusted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ordered))
    else:
        # Benjamini & Hochberg (1995): step up, multiplier m / rank, kept monotone from the largest down
        adjusted = np.minimum(1.0, np.minimum.accumulate((m / np.arange(m, 0, -1)) * ordered[::-1])[::-1])
    result = np.empty(m)
    result[order] = adjusted
    return result


def compare_many(results, *, metric=None, baseline=None, test="auto", correction="holm",
                 alternative="two-sided", paired=None, rng=None, n_resamples=9999):
    """Compare several models, every pair or each against a baseline, with corrected p-values.

    Parameters
    ----------
    results : mapping of str to array-like or report
        Model name to its per-query values, or to its report (then give
        ``metric``). Two entries at least.
    metric : str, default=None
        Metric to compare when the values are reports.
    baseline : str, default=None
        None compares every pair ``(a, b)`` in the order of ``results``.
        A name compares every other model ``a`` against it (``b``).
    test : {"auto", "mannwhitneyu", "wilcoxon", "ttest", "permutation", \
"bootstrap"}, default="auto"
        Test of each comparison, as in :func:`compare`.
    correction : {"holm", "bonferroni", "fdr_bh", None}, default="holm"
        Adjustment of the p-values over the whole table: Holm's step-down
        family-wise correction, Bonferroni, Benjamini-Hochberg's false
        discovery rate, or none.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"greater"``: ``a`` tends to be larger than ``b``.
    paired : bool, default=None
        As in :func:`compare`, for every comparison.
    rng : int or numpy.random.Generator, default=None
        Randomness for permutation and bootstrap tests; one generator feeds
        the comparisons in table order, so a seed reproduces the table.
    n_resamples : int, default=9999
        Resamples of the permutation and bootstrap tests.

    Returns
    -------
    table : ComparisonTable
        A sequence of :class:`ComparisonRow` (``a``, ``b``, the
        :class:`ComparisonResult`, ``pvalue_adjusted``, ``wins``, ``ties``,
        ``losses``) with ``to_frame()``. For paired comparisons the counts
        are queries where ``a`` is larger, equal, smaller; for unpaired ones
        they count all ``n_a * n_b`` cross pairs of values, the counts behind
        U and the rank-biserial correlation.

    See Also
    --------
    compare : One comparison.
    scipy.stats.false_discovery_control : Benjamini-Hochberg adjustment.

    References
    ----------
    .. [1] S. Holm, "A simple sequentially rejective multiple test
       procedure", Scandinavian Journal of Statistics 6(2), 1979.
    .. [2] Y. Benjamini and Y. Hochberg, "Controlling the false discovery
       rate: a practical and powerful approach to multiple testing", Journal
       of the Royal Statistical Society B 57(1), 1995.

    Examples
    --------
    >>> from sklearn_rank.stats import compare_many
    >>> runs = {
    ...     "bm25": [0.2, 0.5, 0.1, 0.3, 0.25, 0.4],
    ...     "dense": [0.6, 0.9, 0.4, 0.8, 0.7, 0.5],
    ...     "hybrid": [0.7, 0.9, 0.5, 0.9, 0.6, 0.55],
    ... }
    >>> table = compare_many(runs, baseline="bm25", paired=True)
    >>> [(row.a, row.b, row.test) for row in table]
    [('dense', 'bm25', 'wilcoxon'), ('hybrid', 'bm25', 'wilcoxon')]
    >>> [round(row.pvalue, 4) for row in table]
    [0.0312, 0.0312]
    >>> [round(row.pvalue_adjusted, 4) for row in table]
    [0.0625, 0.0625]
    >>> table[0].wins, table[0].ties, table[0].losses
    (6, 0, 0)
    """
    if not isinstance(results, Mapping):
        raise TypeError("`results` must be a mapping of model name to per-query values or report. "
                        f"Got {type(results).__name__} instead.")
    names = list(results)
    if len(names) < 2:
        raise ValueError(f"`results` needs at least two models to compare. Got {len(names)} instead.")
    _check_choice(correction, "correction", _CORRECTIONS)
    _check_choice(test, "test", _TESTS)
    _check_choice(alternative, "alternative", _ALTERNATIVES)
    if baseline is not None and baseline not in results:
        raise ValueError(f"`baseline` must be one of the models {_format_choices(names)}. "
                         f"Got {baseline!r} instead.")
    generator = _check_rng(rng)
    pairs = ([(name, baseline) for name in names if name != baseline] if baseline is not None
             else list(combinations(names, 2)))
    computed = []
    for name_a, name_b in pairs:
        computed.append(_run(results[name_a], results[name_b], metric=metric, test=test, paired=paired,
                             alternative=alternative, confidence_level=0.95, rng=generator,
                             n_resamples=n_resamples, label_a=f"results[{name_a!r}]",
                             label_b=f"results[{name_b!r}]"))
    adjusted = _adjust_pvalues([result.pvalue for result, _ in computed], correction)
    rows = [ComparisonRow(a=name_a, b=name_b, result=result, pvalue_adjusted=float(p_adjusted), wins=wins,
                          ties=ties, losses=losses)
            for (name_a, name_b), (result, (wins, ties, losses)), p_adjusted in zip(pairs, computed, adjusted)]
    return ComparisonTable(rows, correction=correction, alternative=alternative)


def corrected_ttest(scores_a, scores_b, *, n_train, n_test, alternative="two-sided"):
    """Nadeau-Bengio corrected resampled t test for cross-validation scores of two models.

    Scores of the same folds are not independent (the training sets
    overlap), which makes the plain paired t test far too optimistic. Nadeau
    and Bengio inflate the variance of the mean difference accordingly.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_folds,)
        Per-fold scores of each model on the same folds, for example
        ``cross_validate(...)["test_score"]``, or one candidate's
        ``split0_test_score``, ``split1_test_score``, ... from
        ``GridSearchCV.cv_results_``. At least two folds.
    n_train, n_test : int
        Size of the training and test set of one fold.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"greater"``: model A scores higher than model B.

    Returns
    -------
    result : ComparisonResult
        With ``d = scores_a - scores_b`` over ``k`` folds:
        ``statistic = mean(d) / sqrt((1 / k + n_test / n_train) * var(d, ddof=1))``
        and the p-value from Student's t with ``k - 1`` degrees of freedom.
        ``estimate`` is ``mean(d)``, ``effect_size`` is d_z
        (``mean(d) / std(d, ddof=1)``, uncorrected), and the confidence
        interval uses the corrected standard error. Constant differences
        (zero variance) return statistic 0.0 and p-value 1.0 when they are
        zero (an infinite statistic otherwise) with a
        :class:`DegenerateDataWarning`.

    See Also
    --------
    compare : Tests on per-query values.

    References
    ----------
    .. [1] C. Nadeau and Y. Bengio, "Inference for the generalization error",
       Machine Learning 52(3), 2003.
    .. [2] scikit-learn example "Statistical comparison of models using grid
       search".

    Examples
    --------
    >>> from sklearn_rank.stats import corrected_ttest
    >>> scores_a = [0.81, 0.79, 0.84, 0.80, 0.82]
    >>> scores_b = [0.78, 0.77, 0.80, 0.79, 0.78]
    >>> res = corrected_ttest(scores_a, scores_b, n_train=800, n_test=200)
    >>> round(res.statistic, 3), round(res.pvalue, 4)
    (3.201, 0.0329)
    """
    _check_choice(alternative, "alternative", _ALTERNATIVES)
    x = _as_values(scores_a, "scores_a")
    y = _as_values(scores_b, "scores_b")
    if x.size != y.size:
        raise ValueError("`scores_a` and `scores_b` must hold the scores of the same folds. "
                         f"Got {x.size} and {y.size} scores instead.")
    for value, name in ((n_train, "n_train"), (n_test, "n_test")):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not value > 0:
            raise ValueError(f"`{name}` must be a positive number of samples. Got {value!r} instead.")
    d = x - y
    folds = d.size
    df = folds - 1
    variance = _variance(d)
    difference = float(np.mean(d))
    if np.all(d == d[0]) or variance == 0:
        difference = float(d[0])
        _degenerate("Every fold gives the same score difference (zero variance), so the corrected t "
                    "statistic is undefined: returning statistic 0.0 and p-value 1.0 for a zero difference, "
                    "an infinite statistic otherwise.", stacklevel=3)
        statistic, pvalue = _constant_difference_answer(difference, alternative)

        def interval(level):
            return (difference if alternative != "less" else -math.inf,
                    difference if alternative != "greater" else math.inf)
    else:
        standard_error = math.sqrt((1 / folds + n_test / n_train) * variance)
        statistic = difference / standard_error
        pvalue = _pvalue_from_t(statistic, df, alternative)

        def interval(level):
            return _t_interval(difference, standard_error, df, level, alternative)
    return ComparisonResult(
        statistic=float(statistic), pvalue=float(pvalue), test="corrected_ttest", alternative=alternative,
        n_a=folds, n_b=folds, estimate=difference, estimate_name="mean_difference",
        effect_size=_standardised(difference, math.sqrt(variance)), effect_size_name="d_z", paired=True,
        _interval=interval)


def bootstrap_ci(values, *, statistic=np.mean, confidence_level=0.95, n_resamples=9999, method="BCa", rng=None):
    """Bootstrap confidence interval for a statistic of per-query values.

    Parameters
    ----------
    values : array-like of shape (n_queries,)
        Per-query values (or per-query differences of two models); at least
        two finite values.
    statistic : callable, default=numpy.mean
        Statistic of a 1-D sample. If it takes an ``axis`` keyword it is
        called on batches of resamples at once.
    confidence_level : float in (0, 1), default=0.95
        Coverage of the two-sided interval.
    n_resamples : int, default=9999
        Number of bootstrap resamples.
    method : {"percentile", "basic", "BCa"}, default="BCa"
        Interval construction (case-insensitive), as in
        :func:`scipy.stats.bootstrap`.
    rng : int or numpy.random.Generator, default=None
        Source of randomness; the same seed gives the same interval.

    Returns
    -------
    ci : ConfidenceInterval
        Named tuple ``(low, high)``: :func:`scipy.stats.bootstrap`'s interval.
        When every value is equal the interval is the single point
        ``(statistic(values), statistic(values))``, with a
        :class:`DegenerateDataWarning`.

    See Also
    --------
    scipy.stats.bootstrap : The resampling itself.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap",
       Chapman & Hall, 1993.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.stats import bootstrap_ci
    >>> reciprocal_ranks = [1.0, 0.5, 1.0, 0.33, 1.0, 0.25, 0.5, 1.0]
    >>> low, high = bootstrap_ci(reciprocal_ranks, n_resamples=999, rng=0)
    >>> bool(low < np.mean(reciprocal_ranks) < high)
    True
    >>> bool(0.25 <= low and high <= 1.0)
    True
    """
    array = _as_values(values, "values")
    if not callable(statistic):
        raise TypeError(f"`statistic` must be callable. Got {type(statistic).__name__} instead.")
    confidence_level = _check_confidence_level(confidence_level)
    n_resamples = _check_n_resamples(n_resamples)
    methods = {choice.lower(): choice for choice in _BOOTSTRAP_METHODS}
    if not isinstance(method, str) or method.lower() not in methods:
        raise ValueError(f"`method` must be one of {_format_choices(_BOOTSTRAP_METHODS)}. Got {method!r} instead.")
    generator = _check_rng(rng)
    if np.all(array == array[0]):
        point = float(statistic(array))
        warnings.warn("Every value is equal, so every bootstrap resample is the same sample: the interval is "
                      "the single point statistic(values).", DegenerateDataWarning, stacklevel=2)
        return ConfidenceInterval(point, point)
    res = _scipy_stats.bootstrap((array,), statistic, n_resamples=n_resamples, confidence_level=confidence_level,
                                 method=methods[method.lower()], **{_SCIPY_RNG: generator})
    return ConfidenceInterval(float(res.confidence_interval.low), float(res.confidence_interval.high))
