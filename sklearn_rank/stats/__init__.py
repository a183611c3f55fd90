"""Significance tests on per-query values: is model A really better than model B?

Every test here compares two sets of per-query values of one metric (the
reciprocal rank, the average precision, the ``nDCG@10`` of each query), given as
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
- **Weights.** Reports of ``evaluate(..., sample_weight=...)`` carry their
  per-query weights; the t, permutation and bootstrap tests compare their
  weighted means, the rank tests refuse them (see :func:`compare`). Weights
  all equal are no weighting.
- **Counts.** Every result counts the queries where ``a`` is larger, equal,
  smaller (``wins``, ``ties``, ``losses``; cross pairs when unpaired) and
  the zero paired differences (``n_zero``), and warns when those are more
  than half of the pairs.
- **Randomness** (permutation and bootstrap) comes only through ``rng``: an
  int seed or a :class:`numpy.random.Generator`. The same seed gives the same
  p-value; no global generator is touched.
- **Degenerate data.** When a test has nothing to work with (all differences
  zero, every value equal, zero variance) it returns a defined answer and
  emits a :class:`DegenerateDataWarning` instead of failing.
- **Results** are plain data, as scipy's: they pickle and copy, and an
  unpickled :class:`ComparisonResult` still computes its intervals.
"""

# The modules, for contributors: _validation (argument checks, per-query values, warnings at the caller),
# _pairing (reports to values, alignment by query id, test="auto"), _tests (the two-sample tests on
# scipy.stats, wins/ties/losses, the dispatch _run), _hodges_lehmann (estimates and distribution-free
# intervals of the rank tests), _intervals (the intervals a result computes on demand, stored as data),
# _results (the result classes and the table's columns), _tables (results as LaTeX and Markdown tables for a
# paper), then one module per public function family:
# _compare (compare, mann_whitney_u), _multiple (compare_many, p-value adjustments), _corrected_ttest,
# _bootstrap_ci.
from ..exceptions import DegenerateDataWarning, UnpairedQueriesWarning
from ._bootstrap_ci import bootstrap_ci
from ._compare import compare, mann_whitney_u
from ._corrected_ttest import corrected_ttest
from ._multiple import compare_many
from ._results import ComparisonResult, ComparisonRow, ComparisonTable, ConfidenceInterval

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
