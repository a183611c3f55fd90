"""
Learning to rank with RankingEvaluator
======================================

A grid search on ``nDCG@10`` with folds of whole queries, then a held-out report for a
regressor, the best gradient-boosting model, ``LGBMRanker`` and ``XGBRanker``, against
the random baseline. See :doc:`/model_selection`.

``make_ranking`` generates queries with 10 to 30 candidates each, graded 0-3, as a
DataFrame whose ``qid`` column holds the query id. ``RankingEvaluator`` wraps a model so
that its ``score`` is a ranking metric: it reads the query ids from the ``qid`` column
and strips that column before the model sees X. ``QueryGroupKFold`` keeps every query
whole in one fold.

A regressor learns the grades row by row (pointwise). LightGBM's and XGBoost's rankers
learn the order within each query (LambdaMART); the evaluator sorts the rows by query
and hands them their ``group`` sizes or ``qid`` array. They run when the libraries are
installed (the test extras install both).

Run: python examples/learning_to_rank.py
"""

import importlib.util

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupShuffleSplit

from sklearn_rank import RankingEvaluator, evaluate
from sklearn_rank.datasets import make_ranking
from sklearn_rank.model_selection import QueryGroupKFold

X, y, qid = make_ranking(n_queries=240, n_candidates=(10, 30), n_features=12,
                         n_informative=6, noise=0.8, random_state=0, as_frame=True)
splitter = GroupShuffleSplit(n_splits=1, test_size=0.25, random_state=0)
train, test = next(splitter.split(X, y, groups=qid))
X_train, y_train = X.iloc[train], y.iloc[train]
X_test, y_test = X.iloc[test], y.iloc[test]
print(f"{qid.max() + 1} queries, {len(X)} rows: {len(np.unique(qid[train]))} training "
      f"queries, {len(np.unique(qid[test]))} test queries")

# %%
# Grid search on ``nDCG@10``, folds made of whole queries
# -------------------------------------------------------
search = GridSearchCV(
    RankingEvaluator(HistGradientBoostingRegressor(max_iter=60, random_state=0),
                     metric="ndcg@10"),
    {"estimator__learning_rate": [0.05, 0.2], "estimator__max_leaf_nodes": [7, 31]},
    cv=QueryGroupKFold(4),
)
search.fit(X_train, y_train)
print("\nGrid search (4-fold, QueryGroupKFold), mean cross-validated nDCG@10:")
results = search.cv_results_
for params, score in zip(results["params"], results["mean_test_score"]):
    print(f"  learning_rate={params['estimator__learning_rate']:<5} "
          f"max_leaf_nodes={params['estimator__max_leaf_nodes']:<3} {score:.4f}")
print(f"best: {search.best_params_}")

# %%
# Models evaluated on the held-out queries
# ----------------------------------------
# The search refitted its best model on all the training queries; the other models
# are fitted here.
models = {
    "Ridge": RankingEvaluator(Ridge(alpha=1.0)),
    "HistGradientBoosting (best)": search.best_estimator_,
}
if importlib.util.find_spec("lightgbm") is not None:
    from lightgbm import LGBMRanker

    models["LGBMRanker"] = RankingEvaluator(
        LGBMRanker(n_estimators=60, learning_rate=0.1, verbose=-1, random_state=0))
if importlib.util.find_spec("xgboost") is not None:
    from xgboost import XGBRanker

    models["XGBRanker"] = RankingEvaluator(
        XGBRanker(n_estimators=60, learning_rate=0.1, random_state=0))

metrics = ["ndcg@10", "map", "mrr", "p@5"]
summaries = {}
print(f"\nHeld-out queries ({len(np.unique(qid[test]))}):")
print(f"  {'model':<34}" + "".join(f"{name:>10}" for name in metrics))
for name, model in models.items():
    if name != "HistGradientBoosting (best)":
        model.fit(X_train, y_train)
    report = model.evaluate(X_test, y_test, metrics=metrics)
    summaries[name] = report.summary
    print(f"  {name:<34}" + "".join(f"{report.summary[m]:>10.4f}" for m in metrics))

# A model that has learnt nothing gives every candidate the same score: with
# ties="expected" it scores exactly the metric of a random ordering.
constant = evaluate(y_test.to_numpy(), np.zeros(len(y_test)), qid=qid[test],
                    metrics=metrics)
print(f"  {'constant score (random baseline)':<34}"
      + "".join(f"{constant.summary[m]:>10.4f}" for m in metrics))
for name in ("lightgbm", "xgboost"):
    if importlib.util.find_spec(name) is None:
        print(f"({name} is not installed: its ranker was skipped)")

# %%
# The held-out metrics side by side
# ---------------------------------
# One group of bars per metric, one bar per model; the dashed line of each group is the
# random baseline (a constant score). Drawn when matplotlib is installed.
if importlib.util.find_spec("matplotlib") is not None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4), layout="constrained")
    width = 0.8 / len(summaries)
    positions = np.arange(len(metrics))
    for i, (name, summary) in enumerate(summaries.items()):
        ax.bar(positions + (i - (len(summaries) - 1) / 2) * width,
               [summary[m] for m in metrics], width, label=name)
    for position, metric in zip(positions, metrics):
        ax.hlines(constant.summary[metric], position - 0.4, position + 0.4,
                  colors="black", linestyles="dashed",
                  label="random baseline" if position == 0 else None)
    ax.set_xticks(positions, metrics)
    ax.set_ylim(0, 1)
    ax.set_ylabel("mean over the held-out queries")
    ax.set_title("Held-out ranking metrics")
    # the legend below the axes: inside, it covered the bars of the last metric
    fig.legend(loc="outside lower center", ncols=3, fontsize="small")
    plt.show()
