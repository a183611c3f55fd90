"""The result objects of the tests: ComparisonResult, ComparisonRow, ComparisonTable, ConfidenceInterval."""

from collections import namedtuple
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Callable

from ._validation import _check_confidence_level

ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])
ConfidenceInterval.__doc__ = """Confidence interval ``(low, high)`` for the difference ``a - b``.

One-sided alternatives give one infinite bound, as in :mod:`scipy.stats`.

Attributes
----------
low, high : float
    The lower and the upper bound.
"""


def _format_number(value):
    return repr(float(format(value, ".6g")))


@dataclass(frozen=True, repr=False)
class ComparisonResult:
    """Result of a two-sample comparison.

    Like scipy's result objects it holds data only: it pickles and copies,
    and a copy computes its confidence intervals as the original does.

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
    wins, ties, losses : int
        Paired: number of compared queries where ``a`` is larger than, equal
        to, smaller than ``b``. Unpaired: the same counts over all
        ``n_a * n_b`` cross pairs of values (the counts behind U and the
        rank-biserial correlation). Folds for :func:`corrected_ttest`. The
        property ``n_zero`` is the number of zero paired differences: ``ties``
        of a paired test, 0 unpaired.
    weighted : bool
        Whether the queries were weighted by the reports' ``sample_weight``
        (weights that are all equal are no weighting: False).
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
    wins: int = 0
    ties: int = 0
    losses: int = 0
    weighted: bool = False
    # Set by _with_interval, not by the constructor: how to compute the interval at a level (one of the data
    # objects of ``_intervals``; no closure, so that results pickle), its default level, computed intervals.
    _interval: Callable[[float], tuple] | None = field(default=None, init=False, compare=False)
    _confidence_level: float = field(default=0.95, init=False, compare=False)
    _cache: dict = field(default_factory=dict, init=False, compare=False)

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

    @property
    def n_zero(self):
        """Number of zero paired differences ``a_i - b_i``: ``ties`` of a paired test, 0 unpaired.

        The Wilcoxon test drops them; when they are more than half of the
        pairs, every paired test warns with a :class:`DegenerateDataWarning`
        naming the count.
        """
        return self.ties if self.paired else 0

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
                + f"    wins={self.wins}, ties={self.ties}, losses={self.losses},"
                + (f" n_zero={self.n_zero},\n" if self.paired else "\n")
                + ("    weighted=True,\n" if self.weighted else "")
                + ")")


def _replaced(result, **changes):
    """``dataclasses.replace`` that keeps the interval (replace resets the fields the constructor leaves out)."""
    return _with_interval(replace(result, **changes), result._interval, result._confidence_level)


def _with_interval(result, interval, confidence_level=0.95):
    """``result``, whose ``confidence_interval(level)`` is ``interval(level)``, at ``confidence_level`` by default.

    The constructor leaves these private fields out, so that it takes (and documents) the public fields only.
    """
    object.__setattr__(result, "_interval", interval)
    object.__setattr__(result, "_confidence_level", confidence_level)
    return result


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


# The columns of ComparisonTable.to_records() and .to_frame(), in order: a field of the row (a, b,
# pvalue_adjusted, wins, ties, losses) or of its result. Public, for the modules that print tables
# (the command line picks its columns from these).
TABLE_COLUMNS = ("a", "b", "test", "paired", "n_a", "n_b", "n_unpaired_a", "n_unpaired_b", "statistic", "pvalue",
                 "pvalue_adjusted", "estimate", "estimate_name", "effect_size", "effect_size_name", "wins", "ties",
                 "losses")
_ROW_FIELDS = frozenset(row_field.name for row_field in fields(ComparisonRow))


class ComparisonTable(Sequence):
    """The comparisons of :func:`compare_many`: a sequence of :class:`ComparisonRow`.

    Parameters
    ----------
    rows : iterable of ComparisonRow
        The comparisons, in table order.
    correction : str or None
        The multiple-comparison correction applied to the rows' p-values.
    alternative : str
        The alternative hypothesis of every test.

    Attributes
    ----------
    correction : str or None
        The multiple-comparison correction applied to the p-values.
    alternative : str
        The alternative hypothesis of every test.
    """

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

    def __eq__(self, other):
        if not isinstance(other, ComparisonTable):
            return NotImplemented
        return (self._rows, self.correction, self.alternative) == (other._rows, other.correction, other.alternative)

    def __hash__(self):
        return hash((self._rows, self.correction, self.alternative))

    def to_records(self):
        """The table as a list of dicts, one per comparison (the columns of :meth:`to_frame`).

        Returns
        -------
        records : list of dict
        """
        return list(self._records())

    def _records(self):
        for row in self._rows:
            yield {column: getattr(row if column in _ROW_FIELDS else row.result, column) for column in TABLE_COLUMNS}

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
        frame = pd.DataFrame(list(self._records()), columns=list(TABLE_COLUMNS))
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
