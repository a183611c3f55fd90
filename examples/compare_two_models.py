"""
Comparing two models
====================

Is model A really better than model B? Two rankers, their per-query ``nDCG@10``, and the
tests: paired Wilcoxon and permutation tests, a bootstrap interval, the corrected t test
on cross-validation scores against the uncorrected one, and a Holm-corrected table for
three models. See :doc:`/significance`.

Two models are trained on the same training queries and evaluated on the same held-out
queries. The difference of their mean ``nDCG@10`` alone says nothing about chance: the
tests of ``sklearn_rank.stats`` use the per-query values of the reports.

* ``compare(report_a, report_b, metric=...)``: the reports hold the same query ids, so
  the values are paired by query and the paired Wilcoxon signed-rank test runs (a
  permutation test of the mean difference is one option away);
* ``bootstrap_ci``: a confidence interval for the per-query differences;
* ``corrected_ttest``: the Nadeau-Bengio test for cross-validation scores, whose folds
  overlap;
* ``compare_many``: a third model, every pair tested, p-values corrected (Holm).

Run: python examples/compare_two_models.py
"""

import importlib.util

import numpy as np
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupShuffleSplit, cross_validate
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rank import RankingEvaluator
from sklearn_rank.datasets import make_ranking
from sklearn_rank.model_selection import QueryGroupKFold
from sklearn_rank.stats import bootstrap_ci, compare, compare_many, corrected_ttest

X, y, qid = make_ranking(n_queries=200, n_candidates=20, n_features=10, noise=1.0,
                         random_state=1, as_frame=True)
splitter = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=0)
train, test = next(splitter.split(X, y, groups=qid))
X_train, y_train = X.iloc[train], y.iloc[train]
X_test, y_test = X.iloc[test], y.iloc[test]


def knn(n_neighbors):
    return make_pipeline(StandardScaler(), KNeighborsRegressor(n_neighbors=n_neighbors))


models = {
    "ridge": RankingEvaluator(Ridge(alpha=1.0)),
    "knn15": RankingEvaluator(knn(15)),
    "knn5": RankingEvaluator(knn(5)),
}
reports = {
    name: model.fit(X_train, y_train).evaluate(
        X_test, y_test, metrics=["ndcg@10", "mrr"])
    for name, model in models.items()
}
print(f"{len(np.unique(qid[test]))} held-out queries; mean nDCG@10: "
      + ", ".join(f"{name} {report.summary['ndcg@10']:.4f}"
                  for name, report in reports.items()))

# %%
# Two models on the same queries
# ------------------------------
a, b = reports["ridge"], reports["knn15"]
result = compare(a, b, metric="ndcg@10")
low, high = result.confidence_interval()
print(f"\nridge vs knn15, paired by query ({result.n_a} pairs): {result.test} "
      f"p = {result.pvalue:.3g}, Hodges-Lehmann difference {result.estimate:+.4f} "
      f"(95% CI {low:+.4f} to {high:+.4f}), rank-biserial {result.effect_size:+.3f}")
permutation = compare(a, b, metric="ndcg@10", test="permutation", rng=0)
print(f"permutation test of the mean difference {permutation.estimate:+.4f}: "
      f"p = {permutation.pvalue:.3g}")
differences = a.per_query["ndcg@10"] - b.per_query["ndcg@10"]  # same qid order in both
low, high = bootstrap_ci(differences, rng=0)
print(f"bootstrap 95% CI of the mean per-query difference: {low:+.4f} to {high:+.4f}")
verdict = "ridge is better" if result.pvalue < 0.05 and result.estimate > 0 else (
    "knn15 is better" if result.pvalue < 0.05 else "no significant difference")
print(f"verdict at the 0.05 level: {verdict}")

# %%
# Query by query
# --------------
# Each point is one held-out query: its ``nDCG@10`` under ridge (x) and under knn15
# (y). Points below the diagonal are queries ridge ranks better. Drawn when matplotlib
# is installed.
if importlib.util.find_spec("matplotlib") is not None:
    import matplotlib.pyplot as plt

    values_a, values_b = a.per_query["ndcg@10"], b.per_query["ndcg@10"]
    fig, ax = plt.subplots(figsize=(5, 5), layout="constrained")
    ax.plot([0, 1], [0, 1], color="gray", linestyle="dashed", linewidth=1)
    ax.scatter(values_a, values_b, s=18, alpha=0.7)
    wins, losses = int((values_a > values_b).sum()), int((values_a < values_b).sum())
    ax.set_xlabel("nDCG@10, ridge")
    ax.set_ylabel("nDCG@10, knn15")
    ax.set_title(f"ridge better on {wins} queries, knn15 on {losses}\n"
                 f"{result.test} p = {result.pvalue:.3g}")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_aspect("equal")
    plt.show()

# %%
# Cross-validation scores: the corrected t test
# ---------------------------------------------
cv = QueryGroupKFold(5)
scores = {name: cross_validate(models[name], X_train, y_train, cv=cv)["test_score"]
          for name in ("ridge", "knn15")}
n_test = len(y_train) // 5
corrected = corrected_ttest(scores["ridge"], scores["knn15"],
                            n_train=len(y_train) - n_test, n_test=n_test)
naive = compare(scores["ridge"], scores["knn15"], test="ttest", paired=True)
print(f"\n5-fold CV nDCG@10: ridge {scores['ridge'].mean():.4f}, "
      f"knn15 {scores['knn15'].mean():.4f}")
print(f"corrected (Nadeau-Bengio) t test: t = {corrected.statistic:.3f}, "
      f"p = {corrected.pvalue:.3g}; uncorrected paired t test: p = {naive.pvalue:.3g}")

# %%
# Three models: every pair, Holm-corrected
# ----------------------------------------
table = compare_many(reports, metric="ndcg@10", correction="holm")
print("\nEvery pair on held-out nDCG@10 (Wilcoxon, Holm-adjusted p-values):")
for row in table:
    print(f"  {row.a:<5} vs {row.b:<5} p = {row.pvalue:<9.3g} "
          f"adjusted = {row.pvalue_adjusted:<9.3g} "
          f"wins/ties/losses {row.wins}/{row.ties}/{row.losses}")
