"""The rank of the true class: MRR and hits@k of classifiers on scikit-learn's digits.

Accuracy only asks whether the true class came first. The rank of the true class among all
classes says more: MRR, hits@3 (top-3 accuracy) and the mean rank. Each image is one query whose
candidates are the ten classes, scored by ``predict_proba`` (the label-index layout, with
``labels=`` naming the columns).

hits@1 is accuracy and hits@k is scikit-learn's ``top_k_accuracy_score`` when no two classes tie.
Gaussian naive Bayes saturates probabilities to exactly 0.0 or 1.0, so classes tie; when the true
class is among them, the tie policy matters, and ``ties="expected"`` (the default) gives the mean
over every order of the tied classes.

Finally, ``make_ranking_scorer("mrr")`` cross-validates a classifier on MRR directly.

Run: python examples/multiclass_mrr.py
"""

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
print(f"digits: {X.shape[0]} images, {classes.size} classes; 5-fold out-of-fold probabilities")

models = {
    "LogisticRegression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
    "GaussianNB": GaussianNB(),
}
metrics = ["mrr", "hits@1", "hits@3", "mr"]
print(f"\n{'model':<20}" + "".join(f"{name:>9}" for name in metrics) + f"{'accuracy':>10}{'top-3 acc':>11}")
probabilities = {}
for name, model in models.items():
    proba = cross_val_predict(model, X, y, cv=cv, method="predict_proba")
    probabilities[name] = proba
    report = evaluate(y, proba, labels=classes, metrics=metrics)
    accuracy = accuracy_score(y, classes[proba.argmax(axis=1)])
    top3 = top_k_accuracy_score(y, proba, k=3, labels=classes)
    print(f"{name:<20}" + "".join(f"{report.summary[m]:>9.4f}" for m in metrics) + f"{accuracy:>10.4f}{top3:>11.4f}")

# Ties: how many images have their true class tied with another class?
for name, proba in probabilities.items():
    true_score = proba[np.arange(len(y)), np.searchsorted(classes, y)]
    tied = ((proba == true_score[:, None]).sum(axis=1) > 1).mean()
    print(f"\n{name}: true class tied with another class in {100 * tied:.1f}% of the images")
    for ties in ["optimistic", "expected", "realistic", "pessimistic"]:
        values = evaluate(y, proba, labels=classes, metrics=["mrr", "hits@3"], ties=ties).summary
        print(f"  ties={ties!r:<14} mrr {values['mrr']:.4f}   hits@3 {values['hits@3']:.4f}")

# MRR as the cross-validation score of a classifier: the scorer ranks the classes by
# decision_function (or predict_proba) in classes_ order.
scores = cross_val_score(models["LogisticRegression"], X, y, cv=cv, scoring=make_ranking_scorer("mrr"))
print(f"\ncross_val_score(LogisticRegression, scoring=make_ranking_scorer('mrr')): "
      f"{scores.mean():.4f} +/- {scores.std():.4f} over {len(scores)} folds")
