"""Record RecTools' own ranking metrics on the seeded cases of ``cases.py`` (issue 24).

Run with RecTools' environment, from the repository root::

    /tmp/recbench/venv-rectools/bin/python tests/data/peers/record_rectools.py

which writes ``tests/data/peers/rectools.json``. Recorded with RecTools 0.19.0, NumPy 1.26.4, pandas as
listed in the JSON's ``versions``, Python 3.11.7.

How a case is fed: ``reco`` = a data frame (``Columns.User``, ``Columns.Item``, ``Columns.Rank``) holding
every user's candidates (the items with ``train`` 0) in the order of the case's ``ranking`` (score
descending, ties by item id ascending), rank 1, 2, ... (RecTools takes the ranks as given; a user without
candidates has no row); ``interactions`` = (``Columns.User``, ``Columns.Item``) of the relevant cells
(RecTools' relevance is binary: grades are not passed). Per query: ``metric.calc_per_user(reco,
interactions)`` (null for users RecTools leaves out: those without a relevant item); mean:
``metric.calc(reco, interactions)``. Metrics, defaults otherwise, named ``<class>(k=<k>[, option])``:
``NDCG(k)``, ``MAP(k)``, ``MRR(k)``, ``Precision(k)``, ``Precision(k, r_precision=True)``, ``Recall(k)``,
``HitRate(k)``.
"""

import sys

import numpy as np
import pandas as pd
from rectools import Columns
from rectools.metrics import MAP, MRR, NDCG, HitRate, Precision, Recall

from cases import error_text, outcome, record_all, versions



def metrics(k):
    return {f"NDCG(k={k})": NDCG(k=k), f"MAP(k={k})": MAP(k=k), f"MRR(k={k})": MRR(k=k),
            f"Precision(k={k})": Precision(k=k), f"Precision(k={k}, r_precision=True)": Precision(k=k, r_precision=True),
            f"Recall(k={k})": Recall(k=k), f"HitRate(k={k})": HitRate(k=k)}


def record(case):
    n_users = case["n_users"]
    ranking = case["ranking"]
    labels = np.asarray(case["labels"])
    reco = pd.DataFrame({
        Columns.User: np.repeat(np.arange(n_users), [len(items) for items in ranking]),
        Columns.Item: np.concatenate([np.asarray(items, dtype=np.int64) for items in ranking]),
        Columns.Rank: np.concatenate([np.arange(1, len(items) + 1) for items in ranking]),
    })
    users, items = np.nonzero(labels > 0)
    interactions = pd.DataFrame({Columns.User: users.astype(np.int64), Columns.Item: items.astype(np.int64)})
    outputs = {}
    for name, metric in metrics(case["k"]).items():
        try:
            per_user = metric.calc_per_user(reco, interactions)
            mean = metric.calc(reco, interactions)
        except Exception as exc:  # recorded: what RecTools does with the case
            outputs[name] = outcome(error=error_text(exc))
            continue
        values = per_user.to_dict()
        outputs[name] = outcome([values.get(user) for user in range(n_users)], mean)
    return {**case, "outputs": outputs}


FED = ("reco = every user's candidates in the case's 'ranking' order (score descending, ties by item id ascending), "
       "ranks 1..n; interactions = relevant cells (binary); calc_per_user and calc")


def main():
    return record_all("rectools", record, versions("RecTools", "pandas", "scipy"), FED)


if __name__ == "__main__":
    sys.exit(main())
