"""
Which queries does the new model win? Per-query comparison of two rankers
=========================================================================

Two rankers are trained on the same queries and evaluated on the same held-out queries.
Their mean ``nDCG@10`` differ; :class:`~sklearn_rank.plot.QueryComparisonDisplay` shows
the difference query by query: one point per query (model A on x, model B on y), the
diagonal where both are equal, how many queries each model wins, and the paired
significance test of :func:`sklearn_rank.stats.compare` (Wilcoxon's signed-rank test) in
the legend.

Run: python examples/plot_model_comparison.py
"""

# %%
# Two models, one held-out report each
# ------------------------------------
# :meth:`RankingEvaluator.evaluate <sklearn_rank.RankingEvaluator.evaluate>` returns a
# report with per-query values and the query ids that pair them.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupShuffleSplit

from sklearn_rank import RankingEvaluator
from sklearn_rank.datasets import make_ranking
from sklearn_rank.plot import HitsAtKCurveDisplay, QueryComparisonDisplay

X, y, qid = make_ranking(n_queries=300, n_candidates=25, n_features=12, n_informative=6,
                         noise=1.5, relevant_fraction=0.15, random_state=3)
Xq = np.column_stack([qid, X])
splitter = GroupShuffleSplit(n_splits=1, test_size=0.4, random_state=0)
train, test = next(splitter.split(Xq, groups=qid))
boosting = HistGradientBoostingRegressor(max_iter=40, random_state=0)
models = {
    "Ridge": RankingEvaluator(Ridge(alpha=1.0), qid=0),
    "Boosting": RankingEvaluator(boosting, qid=0),
}
reports = {name: model.fit(Xq[train], y[train]).evaluate(Xq[test], y[test],
                                                         metrics=["ndcg@10", "mrr"])
           for name, model in models.items()}
for name, report in reports.items():
    print(f"{name:<9} nDCG@10 {report.summary['ndcg@10']:.4f}  "
          f"MRR {report.summary['mrr']:.4f}")

# %%
# Query by query
# --------------
# Points below the diagonal are queries where Ridge (x) scores higher than the
# boosted trees (y).
display = QueryComparisonDisplay.from_reports(reports["Ridge"], reports["Boosting"],
                                              metric="ndcg@10", name_a="Ridge",
                                              name_b="Boosting")
display.ax_.set_title("nDCG@10 per held-out query")
# the legend beside the axes: inside, it covered the points of a corner
display.ax_.get_legend().set(loc="upper left", bbox_to_anchor=(1.02, 1))
display.figure_.subplots_adjust(left=0.1, right=0.62)
print(f"{display.qid.size} queries paired by id: Ridge better on {display.wins}, "
      f"equal on {display.ties}, Boosting better on {display.losses}")
print(f"{display.result.test} (paired): p = {display.result.pvalue:.3g}, "
      f"{display.result.effect_size_name} = {display.result.effect_size:.3f}")

# %%
# The same two models as ``hits@k`` curves
# ----------------------------------------
# A curve per model on one axes; the random baseline is drawn with the first.
curve = None
for name, model in models.items():
    curve = HitsAtKCurveDisplay.from_estimator(model, Xq[test], y[test], name=name,
                                               ax=None if curve is None else curve.ax_,
                                               plot_baseline=curve is None)
    print(f"{name:<9} hits@1 {curve.hits[0]:.4f}  hits@5 {curve.hits[4]:.4f}  "
          f"area (k = 1..25) {curve.auc:.4f}")
curve.ax_.set_title("Hits@k on the held-out queries")
plt.show()
