"""Record implicit's own ranking metrics on the seeded cases of ``cases.py`` (issue 24).

Run with implicit's environment, from the repository root::

    /tmp/recbench/venv-implicit/bin/python tests/data/peers/record_implicit.py

which writes ``tests/data/peers/implicit.json``. Recorded with implicit 0.7.3, NumPy 2.4.6, SciPy 1.17.1,
Python 3.11.7 (the exact versions are in the JSON's ``versions``).

How a case is fed: ``implicit.evaluation.ranking_metrics_at_k(model, train, test, K=k,
show_progress=False, num_threads=1)`` where ``model`` is implicit's CPU
``implicit.cpu.als.AlternatingLeastSquares(factors=n_items)`` (never fitted) whose ``user_factors`` are the
case's score rows and ``item_factors`` the identity, both float32 (implicit's dtype; the scores are
exact float32 ties where they are float64 ties, and distinct where they are distinct); ``train`` the
``train`` cells (CSR, float32 ones, filtered by ``recommend``); ``test`` the relevant cells (CSR, float32
ones: implicit reads only which cells are stored, not their values). implicit scores every item and takes
the top ``k`` itself (``recommend`` with ``filter_already_liked_items=True``: a filtered item gets
``-finfo(float32).max`` and can still fill the tail of a short list). It returns means only:
``precision``, ``map``, ``ndcg``, ``auc``.

A case with a user whose relevant items are the whole catalogue (an ``all_relevant`` user without
training items: 4 of the recorded cases) makes ``ranking_metrics_at_k`` raise ``ZeroDivisionError`` (its
AUC divides by the number of negatives, 0 there): every metric of that case has ``error`` and no mean.

Cases with ``k`` beyond the catalogue (``k = 50 > n_items``) are not recorded (``"skipped"``): implicit
pads the top ``k`` with item 0, which says nothing about a convention.

Each recorded case also carries ``peer_rankings``: ``model.recommend(user, train[user], N=k)``'s item ids
for every user, the order implicit's metrics see (its tie order; training items included at the tail of a
short list).
"""

import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # implicit warns about a threaded BLAS otherwise

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from implicit.cpu.als import AlternatingLeastSquares  # noqa: E402
from implicit.evaluation import ranking_metrics_at_k  # noqa: E402

from cases import error_text, outcome, record_all, versions  # noqa: E402

METRICS = ("precision", "map", "ndcg", "auc")


def record(case):
    n_users, n_items, k = case["n_users"], case["n_items"], case["k"]
    if k > n_items:
        return {**case, "outputs": {}, "skipped": f"k = {k} > n_items = {n_items}: implicit pads with item 0"}
    scores = np.asarray(case["scores"], dtype=np.float64)
    user_factors = scores.astype(np.float32)
    # float32 keeps every row's ties and distinctions (one decimal or multiples of 1e-4 in [-1, 1])
    for row, row64 in zip(user_factors, scores):
        if np.unique(row).size != np.unique(row64).size:
            raise RuntimeError(f"case {case['id']}: float32 merges scores")
    model = AlternatingLeastSquares(factors=n_items, random_state=0)
    model.user_factors = user_factors
    model.item_factors = np.eye(n_items, dtype=np.float32)
    train = sp.csr_matrix(np.asarray(case["train"], dtype=np.float32))
    test = sp.csr_matrix((np.asarray(case["labels"]) > 0).astype(np.float32))
    try:
        result = ranking_metrics_at_k(model, train, test, K=k, show_progress=False, num_threads=1)
        outputs = {name: outcome(mean=result[name]) for name in METRICS}
    except Exception as exc:  # recorded: what implicit does with the case
        outputs = {name: outcome(error=error_text(exc)) for name in METRICS}
    ids, _ = model.recommend(np.arange(n_users), train, N=k, filter_already_liked_items=True)
    return {**case, "outputs": outputs, "peer_rankings": {f"recommend(N={k})": ids.tolist()}}


FED = ("ranking_metrics_at_k(model, train, test, K=k): CPU ALS, user_factors = scores (float32), item_factors = "
       "identity; train = train cells, test = relevant cells (ones); means only; k > n_items skipped")


def main():
    return record_all("implicit", record, versions("implicit", "scipy"), FED)


if __name__ == "__main__":
    sys.exit(main())
