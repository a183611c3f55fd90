"""
Where do the true answers land? Rank histograms and ``hits@k`` curves
=====================================================================

A learning-to-rank model scores 200 candidates per query, of which two are relevant. The
mean of a metric hides *where* the relevant items end up: near the top for most queries
and far down for a few, or somewhere in the middle for all. Two pictures answer that:

* :class:`~sklearn_rank.plot.RankDistributionDisplay`: the histogram of the rank of the
  first relevant item of each query, against the histogram a random ranking would give;
* :class:`~sklearn_rank.plot.HitsAtKCurveDisplay`: ``hits@k`` for every cut-off k (the
  cumulative view of the same ranks), for two models on one axes, with the random
  baseline.

Both take a fitted :class:`~sklearn_rank.RankingEvaluator` (``from_estimator``), which
reads the query ids from a column of X, or the labels and scores themselves
(``from_predictions``).

Run: python examples/plot_rank_distribution.py
"""

# %%
# Data: 240 queries of 200 candidates, split by query
# ---------------------------------------------------
# The query ids travel as column 0 of X; the evaluator strips that column before its
# estimator sees X.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupShuffleSplit
from sklearn.neighbors import KNeighborsRegressor

from sklearn_rank import RankingEvaluator
from sklearn_rank.datasets import make_ranking
from sklearn_rank.plot import HitsAtKCurveDisplay, RankDistributionDisplay

X, y, qid = make_ranking(n_queries=240, n_candidates=200, n_features=8,
                         n_relevance_levels=2, noise=1.5, relevant_fraction=0.01,
                         random_state=0)
Xq = np.column_stack([qid, X])
splitter = GroupShuffleSplit(n_splits=1, test_size=0.5, random_state=0)
train, test = next(splitter.split(Xq, groups=qid))
ridge = RankingEvaluator(Ridge(alpha=1.0), qid=0).fit(Xq[train], y[train])
# brute force: faster here than the default tree search, with the same neighbours
knn = RankingEvaluator(KNeighborsRegressor(n_neighbors=25, algorithm="brute"), qid=0)
knn.fit(Xq[train], y[train])

# %%
# The rank histogram
# ------------------
# With 200 candidates the ranks span two orders of magnitude, so the bins and the axis
# are logarithmic (the display switches when the largest possible rank exceeds 50). Each
# bar counts the held-out queries whose first relevant item landed in that range of
# ranks; the dashed steps are the expected counts under uniformly random ranking of the
# same candidates.
display = RankDistributionDisplay.from_estimator(ridge, Xq[test], y[test])
display.ax_.set_title("Ridge: rank of the first relevant item")
ranks = display.ranks
print(f"{ranks.size} held-out queries, ranks {ranks.min():.0f} to {ranks.max():.0f} "
      f"(log scale: {display.log_scale})")
print(f"median rank {np.median(ranks):.1f}; first relevant item in the top 10 for "
      f"{np.mean(ranks <= 10):.1%} of the queries")
print(f"rank 1: {display.counts[0]:.1f} queries "
      f"(random ranking: {display.baseline_counts[0]:.1f} expected)")

# %%
# ``Hits@k`` for two models
# -------------------------
# ``display.hits[i]`` is exactly ``sklearn_rank.hits_at_k`` at ``k = display.k[i]``. The
# second model goes on the same axes (``ax=``); its baseline is the same, so it is drawn
# once. The legend's area is the mean of ``hits@k`` over k = 1..100.
curve = HitsAtKCurveDisplay.from_estimator(ridge, Xq[test], y[test], name="Ridge")
other = HitsAtKCurveDisplay.from_estimator(knn, Xq[test], y[test],
                                           name="25 nearest neighbours", ax=curve.ax_,
                                           plot_baseline=False)
curve.ax_.set_title("Hits@k on the held-out queries")
# the legend in the empty upper left corner: lower right, it hid the random baseline
curve.ax_.legend(loc="upper left")
for name, shown in (("Ridge", curve), ("25 nearest neighbours", other)):
    print(f"{name:<22} hits@1 {shown.hits[0]:.3f}  hits@10 {shown.hits[9]:.3f}  "
          f"area {shown.auc:.3f}")
print(f"{'random ranking':<22} hits@1 {curve.baseline_hits[0]:.3f}  "
      f"hits@10 {curve.baseline_hits[9]:.3f}  area {curve.baseline_auc:.3f}")
plt.show()
