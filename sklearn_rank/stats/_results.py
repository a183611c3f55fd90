"""The result objects of the tests: ComparisonResult, ComparisonRow, ComparisonTable, ConfidenceInterval."""

from collections import namedtuple
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Callable

from . import _tables
from ._validation import _check_confidence_level
from ..exceptions import InputTypeError, InputValueError

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
    mean_a, mean_b : float or None
        The (weighted) mean of the values of ``a`` (of ``b``) that the test
        compared: the reports' summaries when every query is compared; the
        mean fold scores for :func:`corrected_ttest`. None for a result made
        without them (the tables of :meth:`to_latex` need them).
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
    mean_a: float | None = None
    mean_b: float | None = None
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

    def _columns(self, names, metric):
        """The two systems and the one column of this result's tables."""
        if self.mean_a is None or self.mean_b is None:
            raise InputValueError("A table shows the means of both samples, and this result holds none (it was "
                                  "made without mean_a and mean_b; compare and the other tests fill them). "
                                  f"Got mean_a={self.mean_a!r} and mean_b={self.mean_b!r} instead.")
        if not (isinstance(names, Sequence) and not isinstance(names, str) and len(names) == 2
                and names[0] != names[1]):
            raise InputValueError("`names` must be two different names, for `a` and `b`. "
                                  f"Got {names!r} instead.")
        name_a, name_b = names
        column = _tables._Column(
            label="value" if metric is None else str(metric), greater_is_better=_tables.greater_is_better(metric),
            values={name_a: self.mean_a, name_b: self.mean_b},
            comparisons=(_tables._Comparison(name_a, name_b, self.pvalue, _tables.larger_side(
                self.alternative, self.estimate, self.mean_a, self.mean_b)),),
            tests=(_tables.test_name(self.test, self.paired),), correction=None, alternative=self.alternative,
            single=True)
        return [name_a, name_b], [column]

    def to_latex(self, *, names=("a", "b"), metric=None, alpha=0.05, digits=3, caption=None,
                 label="tab:results"):
        r"""The comparison as a LaTeX table: ``a`` and ``b`` as rows, the metric as column.

        Each row shows the sample's mean (``mean_a``, ``mean_b``), the better
        one in bold, and a superscript letter on the value that is
        significantly better than the other (``pvalue < alpha``); the caption
        names the test. The table uses the ``booktabs`` package. See
        :meth:`ComparisonTable.to_latex` for several models and metrics.

        Parameters
        ----------
        names : pair of str, default=("a", "b")
            The names of the two systems, in the order of ``a`` and ``b``.
        metric : str, default=None
            The column's header. A name of the metric registry also gives the
            direction (``"mr"``: lower is better, marked with an arrow); None
            (header ``value``) and unknown names are taken as higher is better.
        alpha : float in (0, 1), default=0.05
            The level below which a p-value earns a marker.
        digits : int, default=3
            Decimals of the values.
        caption : str, default=None
            LaTeX text put before the generated caption (which says what bold
            and the letters mean and names the test). Not escaped.
        label : str or None, default="tab:results"
            The table's ``\label``; None for none.

        Returns
        -------
        latex : str
            A ``table`` environment holding a ``tabular``; names are escaped
            (``_``, ``%``, ``&``, ``#``, ``$`` and the other special characters).

        Examples
        --------
        >>> from sklearn_rank.stats import compare
        >>> bm25 = [0.2, 0.5, 0.1, 0.3, 0.25, 0.4]
        >>> dense = [0.6, 0.9, 0.4, 0.8, 0.7, 0.5]
        >>> result = compare(dense, bm25, test="ttest", paired=True)
        >>> print(result.to_latex(names=("dense", "bm25"), metric="ndcg@10"))
        % in the preamble: \usepackage{booktabs}
        \begin{table}
          \centering
          \caption{Mean per-query values; the best value of each column in bold. Superscript letters name the
          systems a value is significantly better than (two-sided paired t-test, one comparison, no correction,
          $p < 0.05$).}
          \label{tab:results}
          \begin{tabular}{llr}
            \toprule
             & System & ndcg@10 \\
            \midrule
            a & dense & \textbf{0.650}\textsuperscript{b} \\
            b & bm25 & 0.292 \\
            \bottomrule
          \end{tabular}
        \end{table}
        """
        systems, columns = self._columns(names, metric)
        return _tables.to_latex(systems, columns, alpha=alpha, digits=digits, caption=caption, label=label)

    def to_markdown(self, *, names=("a", "b"), metric=None, alpha=0.05, digits=3, caption=None):
        """The comparison as a Markdown table, with the caption as a paragraph under it.

        The same table as :meth:`to_latex`: bold for the better mean,
        ``<sup>`` letters for a significant difference, a lower-is-better
        metric marked with an arrow.

        Parameters
        ----------
        names : pair of str, default=("a", "b")
            The names of the two systems, in the order of ``a`` and ``b``.
        metric : str, default=None
            The column's header and, for a name of the metric registry, its
            direction; None (header ``value``) is taken as higher is better.
        alpha : float in (0, 1), default=0.05
            The level below which a p-value earns a marker.
        digits : int, default=3
            Decimals of the values.
        caption : str, default=None
            Text put before the generated note under the table.

        Returns
        -------
        markdown : str
            A pipe table (GitHub, pandoc), a blank line, the note.

        Examples
        --------
        >>> from sklearn_rank.stats import compare
        >>> ranks_a = [1, 2, 1, 3, 1, 2]          # rank of the relevant item, query by query
        >>> ranks_b = [4, 6, 3, 5, 2, 7]
        >>> result = compare(ranks_a, ranks_b, test="ttest", paired=True)
        >>> print(result.to_markdown(names=("new", "old"), metric="mr"))
        |   | System | mr ↓ |
        | --- | --- | ---: |
        | a | new | **1.667**<sup>b</sup> |
        | b | old | 4.500 |
        <BLANKLINE>
        Mean per-query values; the best value of each column in bold (↓: lower is better). Superscript letters
        name the systems a value is significantly better than (two-sided paired t-test, one comparison, no
        correction, p < 0.05).
        """
        systems, columns = self._columns(names, metric)
        return _tables.to_markdown(systems, columns, alpha=alpha, digits=digits, caption=caption)

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
    metric : str, default=None
        The metric compared, as given to :func:`compare_many` (None: not
        named).
    means : mapping of str to float, default=None
        Each compared model's (weighted) mean of the metric, in the order of
        :func:`compare_many`'s ``results``. None takes them from the rows'
        results (``mean_a``, ``mean_b``).

    Attributes
    ----------
    correction : str or None
        The multiple-comparison correction applied to the p-values.
    alternative : str
        The alternative hypothesis of every test.
    metric : str or None
        The metric compared.
    means : dict of str to float, or None
        Each model's mean of the metric over all its values (its report's
        summary), the numbers of :meth:`to_latex` and :meth:`to_markdown`.
        A paired test runs on the queries two reports share, so when some
        are left out a row's ``result.mean_a`` can differ from
        ``means[row.a]``.
    """

    def __init__(self, rows, *, correction, alternative, metric=None, means=None):
        self._rows = tuple(rows)
        self.correction = correction
        self.alternative = alternative
        self.metric = metric
        self.means = None if means is None else {name: float(mean) for name, mean in means.items()}

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ComparisonTable(self._rows[index], correction=self.correction, alternative=self.alternative,
                                   metric=self.metric, means=self.means)
        return self._rows[index]

    def __len__(self):
        return len(self._rows)

    def __eq__(self, other):
        if not isinstance(other, ComparisonTable):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def _key(self):
        means = None if self.means is None else tuple(self.means.items())
        return self._rows, self.correction, self.alternative, self.metric, means

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

    def _systems(self):
        """The compared systems, in the order of ``compare_many``'s ``results`` (of the rows without ``means``),
        and each one's value."""
        if self.means is not None:
            return list(self.means), dict(self.means)
        values = {}
        for row in self._rows:
            for name, mean in ((row.a, row.result.mean_a), (row.b, row.result.mean_b)):
                if mean is None:
                    raise InputValueError(
                        "A table shows each model's mean, and this table holds none (it was made without means= "
                        "from rows whose results lack mean_a and mean_b; compare_many fills them). "
                        f"Got no mean for {name!r} instead.")
                if values.setdefault(name, mean) != mean:
                    raise InputValueError(
                        f"A table shows one mean per model, and the rows give {name!r} two ({values[name]!r} and "
                        f"{mean!r}: comparisons on different queries); give ComparisonTable the models' means "
                        "(means=), as compare_many does. Got no means instead.")
        return list(values), values

    def _column(self, values):
        label = "value" if self.metric is None else str(self.metric)
        return _tables._Column(
            label=label, greater_is_better=_tables.greater_is_better(self.metric), values=values,
            comparisons=tuple(_tables._Comparison(row.a, row.b, row.pvalue_adjusted, _tables.larger_side(
                self.alternative, row.estimate, row.result.mean_a, row.result.mean_b)) for row in self._rows),
            tests=tuple(dict.fromkeys(_tables.test_name(row.test, row.result.paired) for row in self._rows)),
            correction=self.correction, alternative=self.alternative, single=False)

    def _columns(self, others):
        """The systems and one column per table: this one, then ``others``."""
        systems, values = self._systems()
        columns = [self._column(values)]
        for position, other in enumerate(others):
            if not isinstance(other, ComparisonTable):
                raise InputTypeError("`others` must be tables of compare_many (ComparisonTable), one per further "
                                     f"metric. Got {type(other).__name__} at position {position} instead.")
            other_systems, other_values = other._systems()
            if set(other_systems) != set(systems):
                raise InputValueError(f"`others` must compare the same models as the first table, {systems!r}. "
                                      f"Got {other_systems!r} at position {position} instead.")
            if (other.correction, other.alternative) != (self.correction, self.alternative):
                raise InputValueError(
                    "`others` must share the first table's correction and alternative, which the caption names "
                    f"once ({self.correction!r}, {self.alternative!r}). Got ({other.correction!r}, "
                    f"{other.alternative!r}) at position {position} instead.")
            columns.append(other._column(other_values))
        labels = [column.label for column in columns]
        repeated = sorted({label for label in labels if labels.count(label) > 1})
        if repeated:
            raise InputValueError("Each table must be of another metric, one column each (tables of arrays name "
                                  f"theirs with compare_many(..., metric=...)). Got {repeated!r} more than once "
                                  "instead.")
        return systems, columns

    def to_latex(self, *others, alpha=0.05, digits=3, caption=None, label="tab:results"):
        r"""The table as a LaTeX table: systems as rows, metrics as columns.

        Each system gets a letter and a row with its mean per metric (the
        report's summary, or the mean of the values given); the best value of
        each column is in bold (the smallest for a lower-is-better metric of
        the registry, whose header carries an arrow), and a value carries the
        superscript letters of the systems it is significantly better than:
        adjusted p-value below ``alpha``, and the difference in the metric's
        better direction. With a baseline, only the comparisons with it were
        made, so the letters are the baseline's (or, on the baseline's row,
        those of the systems significantly worse than it). The caption names
        the test, the correction and the level. The table uses ``booktabs``.

        ``compare_many`` compares one metric; for several, make one table per
        metric (the same models) and pass the others here: each adds a column,
        in order. Each table's correction covers its own comparisons (one
        metric); the tables must share ``correction`` and ``alternative``.

        Parameters
        ----------
        *others : ComparisonTable
            Tables of further metrics, on the same models.
        alpha : float in (0, 1), default=0.05
            The level below which an adjusted p-value earns a marker.
        digits : int, default=3
            Decimals of the values.
        caption : str, default=None
            LaTeX text put before the generated caption (which says what bold
            and the letters mean and names the test and the correction). Not
            escaped.
        label : str or None, default="tab:results"
            The table's ``\label``; None for none.

        Returns
        -------
        latex : str
            A ``table`` environment holding a ``tabular``; model and metric
            names are escaped (``_``, ``%``, ``&``, ``#``, ``$`` and the other
            special characters).

        See Also
        --------
        to_markdown : The same table in Markdown.

        Examples
        --------
        >>> from sklearn_rank.stats import compare_many
        >>> mrr = {"bm25": [0.2, 0.5, 0.1, 0.3, 0.25, 0.4, 0.2, 0.3],
        ...        "dense": [0.6, 0.9, 0.4, 0.8, 0.7, 0.5, 0.6, 0.7],
        ...        "hybrid": [0.7, 0.9, 0.5, 0.9, 0.6, 0.55, 0.8, 0.7]}
        >>> mean_rank = {"bm25": [9, 4, 12, 6, 8, 5, 9, 7], "dense": [2, 1, 3, 2, 2, 4, 2, 1],
        ...              "hybrid": [2, 1, 2, 1, 2, 3, 1, 2]}
        >>> mrr_table = compare_many(mrr, metric="mrr", baseline="bm25", test="ttest", paired=True)
        >>> mr_table = compare_many(mean_rank, metric="mr", baseline="bm25", test="ttest", paired=True)
        >>> print(mrr_table.to_latex(mr_table))
        % in the preamble: \usepackage{booktabs}
        \begin{table}
          \centering
          \caption{Mean per-query values; the best value of each column in bold ($\downarrow$: lower is
          better). Superscript letters name the systems a value is significantly better than (two-sided paired
          t-test, Holm's correction over the comparisons of each metric, adjusted $p < 0.05$). Each system was
          compared with the baseline, bm25 (a).}
          \label{tab:results}
          \begin{tabular}{llrr}
            \toprule
             & System & mrr & mr $\downarrow$ \\
            \midrule
            a & bm25 & 0.281 & 7.500 \\
            b & dense & 0.650\textsuperscript{a} & 2.125\textsuperscript{a} \\
            c & hybrid & \textbf{0.706}\textsuperscript{a} & \textbf{1.750}\textsuperscript{a} \\
            \bottomrule
          \end{tabular}
        \end{table}
        """
        systems, columns = self._columns(others)
        return _tables.to_latex(systems, columns, alpha=alpha, digits=digits, caption=caption, label=label)

    def to_markdown(self, *others, alpha=0.05, digits=3, caption=None):
        r"""The table in Markdown: systems as rows, metrics as columns, the caption as a paragraph under it.

        The same table as :meth:`to_latex`: the best value of each column in
        bold, ``<sup>`` letters naming the systems a value is significantly
        better than, a lower-is-better metric marked with an arrow, and the
        test, the correction and the level in the note under the table.

        Parameters
        ----------
        *others : ComparisonTable
            Tables of further metrics, on the same models.
        alpha : float in (0, 1), default=0.05
            The level below which an adjusted p-value earns a marker.
        digits : int, default=3
            Decimals of the values.
        caption : str, default=None
            Text put before the generated note under the table.

        Returns
        -------
        markdown : str
            A pipe table (GitHub, pandoc), a blank line, the note.

        See Also
        --------
        to_latex : The same table in LaTeX.

        Examples
        --------
        >>> from sklearn_rank.stats import compare_many
        >>> average_precision = {"tf_idf": [0.31, 0.12, 0.45, 0.2, 0.18, 0.4],
        ...                      "splade": [0.52, 0.4, 0.61, 0.38, 0.45, 0.58],
        ...                      "colbert": [0.55, 0.41, 0.66, 0.35, 0.5, 0.6]}
        >>> table = compare_many(average_precision, metric="map", test="ttest", paired=True)
        >>> print(table.to_markdown())
        |   | System | map |
        | --- | --- | ---: |
        | a | tf\_idf | 0.277 |
        | b | splade | 0.490<sup>a</sup> |
        | c | colbert | **0.512**<sup>a</sup> |
        <BLANKLINE>
        Mean per-query values; the best value of each column in bold. Superscript letters name the systems a value
        is significantly better than (two-sided paired t-test, Holm's correction over the comparisons of the
        table, adjusted p < 0.05).
        """
        systems, columns = self._columns(others)
        return _tables.to_markdown(systems, columns, alpha=alpha, digits=digits, caption=caption)

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
