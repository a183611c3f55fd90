"""Displays: rank histograms, ``hits@k`` curves and per-query comparisons, in scikit-learn's conventions.

Each Display computes its numbers with the metric engine (``from_predictions``,
``from_estimator``, ``from_reports``), keeps them as public attributes, and draws
them with :meth:`plot` on a matplotlib ``Axes`` (``ax_``) of a figure
(``figure_``), as :class:`sklearn.metrics.RocCurveDisplay` does.

``import sklearn_rank.plot`` does not import matplotlib: it is imported when
something is drawn (install it with ``pip install "sklearn-rank[plot]"``).
"""

# The modules, for contributors: _base (matplotlib on first use, the argument checks, an estimator's scores
# and options for the engine), then one module per Display: _rank_distribution, _hits_curve, _query_comparison.
from ._base import LOG_SCALE_RATIO  # noqa: F401 (sklearn_rank.plot.LOG_SCALE_RATIO, as before)
from ._hits_curve import DEFAULT_MAX_K, HitsAtKCurveDisplay  # noqa: F401 (DEFAULT_MAX_K: read by the CLI)
from ._query_comparison import QueryComparisonDisplay
from ._rank_distribution import RankDistributionDisplay

__all__ = ["HitsAtKCurveDisplay", "QueryComparisonDisplay", "RankDistributionDisplay"]

# The Displays keep the module they had before sklearn_rank.plot became a package (pickles, reprs, the docs).
for _public in (HitsAtKCurveDisplay, QueryComparisonDisplay, RankDistributionDisplay):
    _public.__module__ = __name__
del _public
