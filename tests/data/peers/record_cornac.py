"""Record cornac's own ranking metrics on the seeded cases of ``cases.py`` (issue 24).

Run with cornac's environment, from the repository root::

    /tmp/recbench/venv-cornac/bin/python tests/data/peers/record_cornac.py

which writes ``tests/data/peers/cornac.json``. Recorded with cornac 3.0.1, NumPy 2.4.6, SciPy 1.17.1,
Python 3.11.7 (the exact versions are in the JSON's ``versions``).

How a case is fed: ``cornac.eval_methods.base_method.ranking_eval(model, [metric], train_set, test_set)``
with its defaults (``rating_threshold=1.0``, ``exclude_unknowns=True``, no validation set), where

* ``train_set`` is a ``cornac.data.Dataset`` of every user and item (identity id maps) holding the
  ``train`` cells with rating 1 (so they are "train positives", removed from the candidates);
* ``test_set`` the same with the relevant cells, rating = grade (1-3, all >= the threshold);
* ``model`` a ``cornac.models.Recommender`` fitted on ``train_set`` whose ``score(user)`` is the case's
  score row (float64, every item); cornac ranks it itself (``Recommender.rank``: ``np.argpartition`` and
  the top ``k`` sorted for metrics with a cut-off, ``argsort()[::-1]`` for ``k = -1``).

So cornac's candidates of a user are exactly the case's candidates (the items with ``train`` 0), in item
id order. Each metric is evaluated in a call of its own, because ``ranking_eval`` ranks once at the largest
``k`` of the metrics it is given (MRR, MAP and AUC, with ``k = -1``, would see a partly sorted list beside
a metric at ``k``). Metrics, named as cornac names them: ``NDCG@k``, ``Precision@k``, ``Recall@k``,
``F1@k`` (``FMeasure(k)``), ``HitRatio@k``, ``MRR``, ``MAP``, ``AUC``. Per query: cornac's per-user
results (null for users it leaves out: those without a relevant item); mean: cornac's average. When the
call raises (``np.argpartition`` in ``Recommender.rank`` with ``k`` beyond a user's candidates: every
metric with a cut-off when ``k = 50``, and when ``k`` is 3 or 5 and a user has fewer candidates), the
error is recorded, the mean is null and the per-query values come from one call per evaluated user
(``"per_query_source": "one call per user"``, null where that user's call raised, its message in
``per_query_errors``).

Each case also carries ``peer_rankings``: ``Recommender.rank(user, candidates, k)`` for ``k`` = the case's
``k`` and -1, the item ids in cornac's order (its tie order), null where it raised.
"""

import sys

import numpy as np
from cornac.data import Dataset
from cornac.eval_methods.base_method import ranking_eval
from cornac.metrics import AUC, MAP, MRR, NDCG, FMeasure, HitRatio, Precision, Recall
from cornac.models import Recommender

from cases import error_text, outcome, record_all, versions



class GivenScores(Recommender):
    """A Recommender whose scores are given: the case's score matrix."""

    def __init__(self, scores):
        super().__init__(name="given", trainable=False)
        self.scores = scores

    def score(self, user_idx, item_idx=None):
        row = self.scores[user_idx]
        return row if item_idx is None else row[item_idx]


def dataset(mask, values, n_users, n_items):
    users, items = np.nonzero(mask)
    return Dataset(n_users, n_items, {u: u for u in range(n_users)}, {i: i for i in range(n_items)},
                   (users.astype(np.int64), items.astype(np.int64), values[users, items].astype(np.float64)))


def metrics(k):
    return [NDCG(k=k), Precision(k=k), Recall(k=k), FMeasure(k=k), HitRatio(k=k), MRR(), MAP(), AUC()]


def evaluate(metric, model, train_set, labels):
    n_users, n_items = labels.shape
    try:
        means, per_user = ranking_eval(model, [metric], train_set, dataset(labels > 0, labels, n_users, n_items))
    except Exception as exc:  # recorded, then one user at a time
        per_query, errors = [None] * n_users, {}
        for user in np.flatnonzero((labels > 0).any(axis=1)):
            user = int(user)
            only_user = np.zeros(labels.shape, dtype=bool)
            only_user[user] = labels[user] > 0
            one = dataset(only_user, labels, n_users, n_items)
            try:
                _, values = ranking_eval(model, [metric], train_set, one)
            except Exception as user_exc:  # recorded per user
                errors[str(user)] = error_text(user_exc)
                continue
            per_query[user] = values[0].get(user)
        return outcome(per_query, None, error_text(exc), per_query_source="one call per user",
                       per_query_errors=errors)
    per_query = [per_user[0].get(user) for user in range(n_users)]
    return outcome(per_query, means[0])


def record(case):
    n_users, n_items, k = case["n_users"], case["n_items"], case["k"]
    scores = np.asarray(case["scores"], dtype=np.float64)
    labels = np.asarray(case["labels"], dtype=np.float64)
    train = np.asarray(case["train"], dtype=bool)
    train_set = dataset(train, np.ones((n_users, n_items)), n_users, n_items)
    model = GivenScores(scores).fit(train_set)
    outputs = {metric.name: evaluate(metric, model, train_set, labels) for metric in metrics(k)}
    rankings = {}
    for cut in (k, -1):
        ranked = []
        for user in range(n_users):
            candidates = np.flatnonzero(~train[user])
            try:
                ranked.append([int(i) for i in model.rank(user, candidates, k=cut)[0]])
            except Exception:  # the same argpartition error as in ranking_eval
                ranked.append(None)
        rankings[f"rank(k={cut})"] = ranked
    return {**case, "outputs": outputs, "peer_rankings": rankings}


FED = ("ranking_eval(model, [metric], train_set, test_set) per metric, defaults; train_set = train cells (rating 1), "
       "test_set = relevant cells (rating = grade), model.score(user) = the score row; candidates = the items not in "
       "train, item id order; per query null for users cornac skips")


def main():
    return record_all("cornac", record, versions("cornac", "scipy"), FED)


if __name__ == "__main__":
    sys.exit(main())
