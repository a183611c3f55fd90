"""
Multiclass MRR: the rank of the true class
==========================================

MRR, ``hits@k`` and mean rank of two classifiers on scikit-learn's digits, against
accuracy and ``top_k_accuracy_score``; what ties do to a classifier whose probabilities
saturate; MRR as a cross-validation score. See :doc:`/layouts` (label index).

Accuracy only asks whether the true class came first. The rank of the true class among
all classes says more: MRR, ``hits@3`` (top-3 accuracy) and the mean rank. Each image is
one query whose candidates are the ten classes, scored by ``predict_proba`` (the
label-index layout, with ``labels=`` naming the columns).

``hits@1`` is accuracy and ``hits@k`` is scikit-learn's ``top_k_accuracy_score`` when no
two classes tie. Gaussian naive Bayes saturates probabilities to exactly 0.0 or 1.0, so
classes tie; when the true class is among them, the tie policy matters, and
``ties="expected"`` (the default) gives the mean over every order of the tied classes.

Finally, ``make_ranking_scorer("mrr")`` cross-validates a classifier on MRR directly.

Run: python examples/multiclass_mrr.py
"""

import importlib.util

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, top_k_accuracy_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict, cross_val_score
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rank import evaluate, make_ranking_scorer

X, y = load_digits(return_X_y=True)
classes = np.unique(y)
cv = StratifiedKFold(5, shuffle=True, random_state=0)
print(f"digits: {X.shape[0]} images, {classes.size} classes; "
      "5-fold out-of-fold probabilities")

# %%
# The rank of the true class against accuracy
# -------------------------------------------
models = {
    "LogisticRegression": make_pipeline(StandardScaler(),
                                        LogisticRegression(max_iter=1000)),
    "GaussianNB": GaussianNB(),
}
metrics = ["mrr", "hits@1", "hits@3", "mr"]
print(f"\n{'model':<20}" + "".join(f"{name:>9}" for name in metrics)
      + f"{'accuracy':>10}{'top-3 acc':>11}")
probabilities = {}
for name, model in models.items():
    proba = cross_val_predict(model, X, y, cv=cv, method="predict_proba")
    probabilities[name] = proba
    report = evaluate(y, proba, labels=classes, metrics=metrics)
    accuracy = accuracy_score(y, classes[proba.argmax(axis=1)])
    top3 = top_k_accuracy_score(y, proba, k=3, labels=classes)
    print(f"{name:<20}" + "".join(f"{report.summary[m]:>9.4f}" for m in metrics)
          + f"{accuracy:>10.4f}{top3:>11.4f}")

# %%
# Ties
# ----
# How many images have their true class tied with another class, and what the tie policy
# does to the metrics.
for name, proba in probabilities.items():
    true_score = proba[np.arange(len(y)), np.searchsorted(classes, y)]
    tied = ((proba == true_score[:, None]).sum(axis=1) > 1).mean()
    print(f"\n{name}: true class tied with another class in {100 * tied:.1f}% "
          "of the images")
    for ties in ["optimistic", "expected", "realistic", "pessimistic"]:
        values = evaluate(y, proba, labels=classes, metrics=["mrr", "hits@3"],
                          ties=ties).summary
        print(f"  ties={ties!r:<14} mrr {values['mrr']:.4f}   "
              f"hits@3 {values['hits@3']:.4f}")

# %%
# ``hits@k`` against k
# --------------------
# The share of images whose true class is among the k best-scored classes (the
# cumulative match curve); ``hits@10`` is 1, as there are ten classes. Drawn when
# matplotlib is installed.
if importlib.util.find_spec("matplotlib") is not None:
    import matplotlib.pyplot as plt

    ks = np.arange(1, classes.size + 1)
    fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    for name, proba in probabilities.items():
        summary = evaluate(y, proba, labels=classes,
                           metrics=[f"hits@{k}" for k in ks]).summary
        ax.plot(ks, [summary[f"hits@{k}"] for k in ks], marker="o", label=name)
    ax.plot(ks, ks / classes.size, color="gray", linestyle="dashed",
            label="random ranking")
    ax.set_xticks(ks)
    ax.set_xlabel("k")
    ax.set_ylabel("hits@k")
    ax.set_ylim(0, 1.02)
    ax.legend(loc="lower right")
    plt.show()

# %%
# MRR as a cross-validation score
# -------------------------------
# The scorer ranks the classes by ``decision_function`` (or ``predict_proba``) in
# ``classes_`` order.
scores = cross_val_score(models["LogisticRegression"], X, y, cv=cv,
                         scoring=make_ranking_scorer("mrr"))
print("\ncross_val_score(LogisticRegression, scoring=make_ranking_scorer('mrr')):\n"
      f"{scores.mean():.4f} +/- {scores.std():.4f} over {len(scores)} folds")
