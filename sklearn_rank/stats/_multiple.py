"""Several models at once: compare_many and the multiple-comparison adjustments."""

from collections.abc import Mapping
from itertools import combinations

import numpy as np
from scipy import stats as _scipy_stats

from ._pairing import _model_mean
from ._results import ComparisonRow, ComparisonTable
from ._tests import _run
from ._validation import (CORRECTIONS, TESTS, _ALTERNATIVES, _check_choice, _check_confidence_level, _check_rng,
                          _format_choices)
from ..exceptions import InputTypeError, InputValueError


def adjust_pvalues(pvalues, correction):
    """Adjusted p-values for ``correction`` in {"holm", "bonferroni", "fdr_bh", None}."""
    pvalues = np.asarray(pvalues, dtype=np.float64)
    m = pvalues.size
    if correction is None or m == 0:
        return pvalues.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, m * pvalues)
    if correction == "fdr_bh":  # Benjamini & Hochberg (1995)
        return _scipy_stats.false_discovery_control(pvalues, method="bh")
    # Holm (1979), which scipy lacks: step down, multiplier m - i for the i-th smallest (0-based), kept monotone
    order = np.argsort(pvalues, kind="stable")
    adjusted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * pvalues[order]))
    result = np.empty(m)
    result[order] = adjusted
    return result


def compare_many(results, *, metric=None, baseline=None, test="auto", correction="holm",
                 alternative="two-sided", paired=None, confidence_level=0.95, rng=None, n_resamples=9999):
    """Compare several models, every pair or each against a baseline, with corrected p-values.

    Read more in the :ref:`User Guide <significance_multiple>`.

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
    confidence_level : float in (0, 1), default=0.95
        Default level of ``row.result.confidence_interval()`` for every row,
        and the level of the bootstrap test's interval, as in :func:`compare`.
        The p-values do not depend on it.
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
        raise InputTypeError("`results` must be a mapping of model name to per-query values or report. "
                             f"Got {type(results).__name__} instead.")
    names = list(results)
    if len(names) < 2:
        raise InputValueError(f"`results` needs at least two models to compare. Got {len(names)} instead.")
    _check_choice(correction, "correction", CORRECTIONS)
    _check_choice(test, "test", TESTS)
    _check_choice(alternative, "alternative", _ALTERNATIVES)
    if baseline is not None and baseline not in results:
        raise InputValueError(f"`baseline` must be one of the models {_format_choices(names)}. "
                              f"Got {baseline!r} instead.")
    confidence_level = _check_confidence_level(confidence_level)
    generator = _check_rng(rng)
    pairs = ([(name, baseline) for name in names if name != baseline] if baseline is not None
             else list(combinations(names, 2)))
    computed = []
    for name_a, name_b in pairs:
        computed.append(_run(results[name_a], results[name_b], metric=metric, test=test, paired=paired,
                             alternative=alternative, confidence_level=confidence_level, rng=generator,
                             n_resamples=n_resamples, label_a=f"results[{name_a!r}]",
                             label_b=f"results[{name_b!r}]"))
    adjusted = adjust_pvalues([result.pvalue for result, _ in computed], correction)
    rows = [ComparisonRow(a=name_a, b=name_b, result=result, pvalue_adjusted=float(p_adjusted), wins=wins,
                          ties=ties, losses=losses)
            for (name_a, name_b), (result, (wins, ties, losses)), p_adjusted in zip(pairs, computed, adjusted)]
    means = {name: _model_mean(results[name], metric, f"results[{name!r}]") for name in names}
    return ComparisonTable(rows, correction=correction, alternative=alternative, metric=metric, means=means)
