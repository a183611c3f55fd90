"""Record CatBoost's own ranking metrics on the seeded cases of ``cases.py`` (issue 24).

Run with CatBoost's environment, from the repository root::

    /tmp/recbench/venv-catboost/bin/python tests/data/peers/record_catboost.py

which writes ``tests/data/peers/catboost.json``. Recorded with catboost 1.2.10, NumPy 2.4.6, Python 3.11.7
(the exact versions are in the JSON's ``versions``).

How a case is fed: a user's rows are its candidates (the items with ``train`` 0), in item id order;
``label`` = the grade (0-3), ``approx`` = the score (CatBoost sorts and breaks ties itself). A user without
candidates has no rows: per query null, and not a group of the mean. Every metric is
``catboost.utils.eval_metric(label, approx, metric)``: per query one call per user (its rows only,
``group_id`` all 0), the mean one call over every user's rows with ``group_id`` = the user
(``thread_count`` left at its default). Metrics, at the case's ``k`` where they take a cut-off:
``NDCG``, ``NDCG:top=k``, ``NDCG:denominator=Position``, ``DCG:top=k``, ``PrecisionAt:top=k``,
``RecallAt:top=k``, ``MAP:top=k``, ``MRR``, ``ERR``, ``PFound``, ``PFound:top=k``,
``QueryAUC:type=Ranking``; then ``ERR``, ``PFound`` and ``PFound:top=k`` again with ``label`` = grade / 3
(they read labels as probabilities), recorded as ``"<metric> [label=grade/3]"``, and the default
``QueryAUC`` (type=Classic, labels in [0, 1]) with ``label`` = 1 for a grade above 0, else 0, recorded as
``"QueryAUC [label=relevant]"``. CatBoost stores labels
as float32: grade / 3 is not exact there, so compare those at a relative tolerance of about 1e-7.
"""

import sys

import numpy as np
from catboost.utils import eval_metric

from cases import error_text, outcome, record_all, versions



def metric_names(k):
    return ["NDCG", f"NDCG:top={k}", "NDCG:denominator=Position", f"DCG:top={k}", f"PrecisionAt:top={k}",
            f"RecallAt:top={k}", f"MAP:top={k}", "MRR", "ERR", "PFound", f"PFound:top={k}",
            "QueryAUC:type=Ranking"]


SCALED = ("ERR", "PFound", "PFound:top={k}")


def evaluate(metric, labels, scores, candidates):
    """Per query and mean of one metric: {"per_query", "mean", "error"}."""
    per_query = []
    rows_label, rows_score, rows_group = [], [], []
    try:
        for user, items in enumerate(candidates):
            if items.size == 0:
                per_query.append(None)
                continue
            label, score = labels[user, items], scores[user, items]
            per_query.append(eval_metric(label, score, metric, group_id=np.zeros(items.size, np.int64))[0])
            rows_label.append(label)
            rows_score.append(score)
            rows_group.append(np.full(items.size, user, np.int64))
        mean = eval_metric(np.concatenate(rows_label), np.concatenate(rows_score), metric,
                           group_id=np.concatenate(rows_group))[0]
    except Exception as exc:  # recorded: what CatBoost does with the case
        return outcome(error=error_text(exc))
    return outcome(per_query, mean)


def record(case):
    labels = np.asarray(case["labels"], dtype=np.float64)
    scores = np.asarray(case["scores"], dtype=np.float64)
    train = np.asarray(case["train"], dtype=bool)
    candidates = [np.flatnonzero(~row) for row in train]
    outputs = {name: evaluate(name, labels, scores, candidates) for name in metric_names(case["k"])}
    for name in SCALED:
        name = name.format(k=case["k"])
        outputs[f"{name} [label=grade/3]"] = evaluate(name, labels / 3.0, scores, candidates)
    # the default QueryAUC (type=Classic) takes labels in [0, 1]: relevant (grade > 0) as 1
    outputs["QueryAUC [label=relevant]"] = evaluate("QueryAUC", (labels > 0).astype(np.float64), scores, candidates)
    return {**case, "outputs": outputs}


FED = ("rows = the user's candidates in item id order, label = grade (or grade / 3, or 1 for a grade above 0, "
       "where the metric name says so), "
       "approx = score; per query one eval_metric call per user, mean one call with group_id = user; users without "
       "candidates: per query null, no group")


def main():
    return record_all("catboost", record, versions("catboost"), FED)


if __name__ == "__main__":
    sys.exit(main())
