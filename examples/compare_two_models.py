"""Is model A really better than model B? Two rankers, their per-query nDCG@10, and the tests.

Two models are trained on the same training queries and evaluated on the same held-out queries.
The difference of their mean nDCG@10 alone says nothing about chance: the tests of
``sklearn_rank.stats`` use the per-query values of the reports.

* ``compare(report_a, report_b, metric=...)``: the reports hold the same query ids, so the values
  are paired by query and the paired Wilcoxon signed-rank test runs (a permutation test of the
  mean difference is one option away);
* ``bootstrap_ci``: a confidence interval for the per-query differences;
* ``corrected_ttest``: the Nadeau-Bengio test for cross-validation scores, whose folds overlap;
* ``compare_many``: a third model, every pair tested, p-values corrected (Holm).

Run: python examples/compare_two_models.py
"""

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

X, y, qid = make_ranking(n_queries=200, n_candidates=20, n_features=10, noise=1.0, random_state=1,
                         as_frame=True)
train, test = next(GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=0).split(X, y, groups=qid))
X_train, y_train, X_test, y_test = X.iloc[train], y.iloc[train], X.iloc[test], y.iloc[test]

models = {
    "ridge": RankingEvaluator(Ridge(alpha=1.0)),
    "knn15": RankingEvaluator(make_pipeline(StandardScaler(), KNeighborsRegressor(n_neighbors=15))),
    "knn5": RankingEvaluator(make_pipeline(StandardScaler(), KNeighborsRegressor(n_neighbors=5))),
}
reports = {name: model.fit(X_train, y_train).evaluate(X_test, y_test, metrics=["ndcg@10", "mrr"])
           for name, model in models.items()}
print(f"{len(np.unique(qid[test]))} held-out queries; mean nDCG@10: "
      + ", ".join(f"{name} {report.summary['ndcg@10']:.4f}" for name, report in reports.items()))

# --- two models on the same queries -------------------------------------------------------------------
a, b = reports["ridge"], reports["knn15"]
result = compare(a, b, metric="ndcg@10")
low, high = result.confidence_interval()
print(f"\nridge vs knn15, paired by query ({result.n_a} pairs): {result.test} p = {result.pvalue:.3g}, "
      f"Hodges-Lehmann difference {result.estimate:+.4f} (95% CI {low:+.4f} to {high:+.4f}), "
      f"rank-biserial {result.effect_size:+.3f}")
permutation = compare(a, b, metric="ndcg@10", test="permutation", rng=0)
print(f"permutation test of the mean difference {permutation.estimate:+.4f}: p = {permutation.pvalue:.3g}")
differences = a.per_query["ndcg@10"] - b.per_query["ndcg@10"]   # same qid order in both reports
low, high = bootstrap_ci(differences, rng=0)
print(f"bootstrap 95% CI of the mean per-query difference: {low:+.4f} to {high:+.4f}")
verdict = "ridge is better" if result.pvalue < 0.05 and result.estimate > 0 else (
    "knn15 is better" if result.pvalue < 0.05 else "no significant difference")
print(f"verdict at the 0.05 level: {verdict}")

# --- cross-validation scores: the corrected t test ---------------------------------------------------
cv = QueryGroupKFold(5)
scores = {name: cross_validate(models[name], X_train, y_train, cv=cv)["test_score"] for name in ("ridge", "knn15")}
n_test = len(y_train) // 5
corrected = corrected_ttest(scores["ridge"], scores["knn15"], n_train=len(y_train) - n_test, n_test=n_test)
naive = compare(scores["ridge"], scores["knn15"], test="ttest", paired=True)
print(f"\n5-fold CV nDCG@10: ridge {scores['ridge'].mean():.4f}, knn15 {scores['knn15'].mean():.4f}")
print(f"corrected (Nadeau-Bengio) t test: t = {corrected.statistic:.3f}, p = {corrected.pvalue:.3g}; "
      f"uncorrected paired t test: p = {naive.pvalue:.3g}")

# --- three models: every pair, Holm-corrected --------------------------------------------------------
table = compare_many(reports, metric="ndcg@10", correction="holm")
print("\nEvery pair on held-out nDCG@10 (Wilcoxon, Holm-adjusted p-values):")
for row in table:
    print(f"  {row.a:<5} vs {row.b:<5} p = {row.pvalue:<9.3g} adjusted = {row.pvalue_adjusted:<9.3g} "
          f"wins/ties/losses {row.wins}/{row.ties}/{row.losses}")
