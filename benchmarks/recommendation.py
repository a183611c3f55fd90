"""Recommendation benchmark (issue 23): sklearn-rank against the recommender libraries' own evaluation on
the same scores and filter, and against CatBoost's ``eval_metric`` on grouped rows.

Usage::

    python benchmarks/recommendation.py --quick          # 4,000 users x 5,000 items, about a minute
    python benchmarks/recommendation.py --json benchmarks/results/recommendation.json --rst rec.rst

Workload (``recommendation_workload``, seeded): a "true" preference of every user for every item (63
latent dimensions of decaying scale plus an item popularity term), from which each user's interactions
are drawn without replacement (about 1.5% of the catalog, lognormal counts); 5 of each user's
interactions, chosen at random, are held out (``test``, a CSR matrix of ones), the others are the
training interactions (``train``), filtered from every ranking. The model being evaluated is a 64-factor
float32 factorization ``U`` (users) and ``V`` (items): the true factors plus noise, the popularity in the
last factor. sklearn-rank scores ``U[i:j] @ V.T`` a block of 1,000 users at a time and evaluates the
blocks with ``sklearn_rank.evaluate_blocks`` (``exclude``: the block's rows of ``train``, sparse), metrics
nDCG@10, hits@10, P@10, R@10, MAP@10 and MRR; the same scores as one matrix with ``evaluate`` are timed
apart.

Peers, each in a process of its own started from ``--venvs`` (``venv-<peer>/bin/python``, else this
interpreter), fed the same arrays from ``.npy`` files and timed end to end from them (the scores or the
factors available; the top-k computed as that library does):

* implicit: ``implicit.evaluation.ranking_metrics_at_k`` on an ``implicit.cpu.als.AlternatingLeastSquares``
  whose ``user_factors``/``item_factors`` are ``U``/``V`` (it scores and takes the top-k itself);
* RecTools: top-10 by its ``ImplicitRanker`` (dot product of ``U`` and ``V``, training pairs filtered),
  then ``rectools.metrics.calc_metrics`` on the recommendation table;
* cornac: ``cornac.eval_methods.ranking_eval`` with a ``Recommender`` whose ``score`` is the user's row of
  sklearn-rank's block ``U[i:j] @ V.T`` (each block computed once);
* LensKit: top-10 by ``np.argpartition`` on ``U[i:j] @ V.T`` (1,000 users at a time, training items set
  to -inf), then ``lenskit.metrics.RunAnalysis`` on the item-list collections;
* CatBoost: ``catboost.utils.eval_metric(label, approx, "NDCG:top=10", group_id=...)`` on grouped rows
  (10,000 queries x 100 candidates, graded 0-3, scores rounded to 3 decimals, so with ties), against
  ``evaluate(..., metrics=["ndcg@10"], ties="pessimistic", no_relevant="one")`` (CatBoost's ties and
  empty queries), at ``thread_count=1`` vs ``n_jobs=1`` and ``thread_count=2`` vs ``n_jobs=2``.

Every thread count is ``--threads`` (default 1) for the recommenders: the BLAS of every process, the
peers' ``num_threads`` and sklearn-rank's ``n_jobs``. Timings are interleaved (sklearn-rank, peer,
sklearn-rank, peer, ...: a busy spell of this shared machine slows both alike), best of ``repeat`` after a
warm-up. Agreement: each peer's values (per user where the peer gives them, means otherwise) against
sklearn-rank's under the matching options, and inside sklearn-rank's optimistic and pessimistic values
(a tie broken either way); a value outside those bounds is a DISAGREEMENT (exit status 1) unless it is
a known and explained difference (``KNOWN``).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from harness import fmt_s, log  # noqa: E402

SEED = 23  # issue 23
K = 10
METRICS = ["ndcg@10", "hits@10", "p@10", "r@10", "map@10", "mrr"]
REFERENCE_METRICS = [*METRICS, "mrr@10", "map", "dcg@10", "num_rel_ret@10"]
IDCG_10 = float(np.sum(1.0 / np.log2(np.arange(2, K + 2))))  # every one of 10 slots relevant
BOUND_TOL = 1e-9
PEERS = ["implicit", "rectools", "cornac", "lenskit", "catboost"]
# What each peer computes in its timed call, and so what sklearn-rank computes against it (the same work on
# both sides): implicit's ranking_metrics_at_k gives ndcg, map and precision at K (its auc is not compared),
# the others the metrics of their classes below.
PEER_METRICS = {"implicit": ["ndcg@10", "map@10", "r@10"],
                "rectools": ["ndcg@10", "p@10", "r@10", "hits@10", "map@10", "mrr@10"],
                "cornac": ["ndcg@10", "p@10", "r@10", "hits@10", "map", "mrr"],
                "lenskit": ["ndcg@10", "p@10", "r@10", "hits@10", "map@10", "mrr@10"]}
NAMES = {"implicit": "implicit", "rectools": "RecTools", "cornac": "cornac", "lenskit": "LensKit",
         "catboost": "CatBoost"}
SLOW_PEERS = {"cornac", "lenskit"}
BLOCK = 1_000  # users scored at a time, by sklearn-rank and by the peers given the scores

FULL = dict(n_users=20_000, n_items=20_000, block=BLOCK, grouped=(10_000, 100),
            repeat=3, repeat_slow=2, warmup_slow=1, repeat_catboost=7)
QUICK = dict(n_users=4_000, n_items=5_000, block=BLOCK, grouped=(10_000, 100),
             repeat=3, repeat_slow=1, warmup_slow=0, repeat_catboost=3)


# ------------------------------------------------------------------------------------------------
# Workloads
# ------------------------------------------------------------------------------------------------
@dataclass
class RecommendationWorkload:
    """Factors of a model, training interactions to filter and held-out items, users x items."""

    U: np.ndarray           # (n_users, 64) float32
    V: np.ndarray           # (n_items, 64) float32
    train: sp.csr_matrix    # (n_users, n_items) ones, sorted indices
    test: sp.csr_matrix     # (n_users, n_items) ones, n_test per row, none in train

    @property
    def shape(self):
        return self.train.shape


def recommendation_workload(n_users, n_items, *, factors=64, density=0.015, n_test=5, noise=0.5,
                            temperature=0.5, block=1_000, seed=SEED):
    """Interactions drawn from a low-rank preference, and a noisy factor model of it.

    Parameters
    ----------
    n_users, n_items : int
        Size of the catalog.
    factors : int, default=64
        Factors of the model; the last one carries the item popularity.
    density : float, default=0.015
        Mean share of the catalog a user interacted with (lognormal counts, at least 5).
    n_test : int, default=5
        Interactions held out per user, chosen at random among the user's interactions.
    noise : float, default=0.5
        Standard deviation of the noise added to the true factors to make the model's.
    temperature : float, default=0.5
        Divides the true preference before the Gumbel draw: lower is more predictable.
    block : int, default=1000
        Users drawn at a time (memory).
    seed : int, default=SEED
        Seed of the stream; each size has its own stream.

    Returns
    -------
    RecommendationWorkload
    """
    rng = np.random.default_rng([seed, 1, n_users, n_items])
    d = factors - 1
    scale = (1.0 / np.sqrt(1.0 + np.arange(d) / 4.0)).astype(np.float32)
    Z = rng.standard_normal((n_users, d), dtype=np.float32) * scale
    W = rng.standard_normal((n_items, d), dtype=np.float32) * scale
    popularity = rng.standard_normal(n_items, dtype=np.float32)
    mean = density * n_items
    counts = np.clip(np.rint(rng.lognormal(np.log(mean) - 0.18, 0.6, n_users)), 5,
                     min(4 * mean, n_items - n_test - 1)).astype(np.int64)
    rows, cols, held_out = [], [], []
    for i in range(0, n_users, block):
        j = min(i + block, n_users)
        # Gumbel top-k: the first `total` items of each row are a draw without replacement from
        # softmax(preference / temperature)
        perturbed = Z[i:j] @ W.T + popularity
        perturbed /= np.float32(temperature)
        perturbed -= np.log(-np.log(rng.random(perturbed.shape, dtype=np.float32) + np.float32(1e-30)))
        total = counts[i:j] + n_test
        m = int(total.max())
        top = np.argpartition(-perturbed, m - 1, axis=1)[:, :m]
        top = np.take_along_axis(top, np.argsort(-np.take_along_axis(perturbed, top, axis=1), axis=1), axis=1)
        position = np.arange(m)
        keys = rng.random((j - i, m))
        keys[position >= total[:, None]] = np.inf
        test_position = np.argpartition(keys, n_test - 1, axis=1)[:, :n_test]
        is_test = np.zeros((j - i, m), dtype=bool)
        np.put_along_axis(is_test, test_position, True, axis=1)
        r, c = np.nonzero((position < total[:, None]) & ~is_test)
        rows.append(r + i)
        cols.append(top[r, c])
        held_out.append(np.sort(np.take_along_axis(top, test_position, axis=1), axis=1))
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    train = sp.csr_matrix((np.ones(rows.size, np.float32), (rows, cols)), shape=(n_users, n_items))
    train.sort_indices()
    held_out = np.concatenate(held_out).ravel()
    test = sp.csr_matrix((np.ones(held_out.size, np.float32), held_out,
                          np.arange(0, held_out.size + 1, n_test)), shape=(n_users, n_items))
    U = np.empty((n_users, factors), np.float32)
    V = np.empty((n_items, factors), np.float32)
    U[:, :d] = Z + np.float32(noise) * rng.standard_normal(Z.shape, dtype=np.float32) * scale
    V[:, :d] = W + np.float32(noise) * rng.standard_normal(W.shape, dtype=np.float32) * scale
    U[:, d] = 1.0
    V[:, d] = popularity + np.float32(noise) * rng.standard_normal(n_items, dtype=np.float32)
    return RecommendationWorkload(U, V, train, test)


def grouped_workload(n_queries, n_candidates, *, seed=SEED):
    """Grouped rows for CatBoost: graded 0-3 from a latent affinity, scores its noisy estimate rounded to
    3 decimals (so with ties). Returns (label float64, approx float64, qid int64)."""
    rng = np.random.default_rng([seed, 2, n_queries, n_candidates])
    query = rng.standard_normal((n_queries, 16))
    candidate = rng.standard_normal((n_queries, n_candidates, 16))
    affinity = np.einsum("qd,qcd->qc", query, candidate).ravel() / 4.0
    truth = affinity + 0.5 * rng.standard_normal(affinity.size)
    label = np.digitize(truth, np.quantile(truth, [0.9, 0.97, 0.995])).astype(np.float64)
    approx = np.round(affinity + 0.5 * rng.standard_normal(affinity.size), 3)
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), n_candidates)
    return label, approx, qid


def score_blocks(w, block, filtered=True):
    """The blocks of ``evaluate_blocks``: (held-out rows, U[i:j] @ V.T, training rows)."""
    for i in range(0, w.shape[0], block):
        j = min(i + block, w.shape[0])
        yield (w.test[i:j], w.U[i:j] @ w.V.T, w.train[i:j]) if filtered else (w.test[i:j], w.U[i:j] @ w.V.T)


def top_k_blocks(U, V, train, k, block):
    """Top-``k`` items per user, best first, training items filtered: (n_users, k) int64.

    ``np.argpartition`` on each block of scores, then the ``k`` sorted by score (ties in argpartition's
    order): what recommender libraries compute before their metrics.
    """
    out = np.empty((U.shape[0], k), dtype=np.int64)
    for i in range(0, U.shape[0], block):
        j = min(i + block, U.shape[0])
        scores = U[i:j] @ V.T
        rows = train[i:j]
        scores[np.repeat(np.arange(j - i), np.diff(rows.indptr)), rows.indices] = -np.inf
        top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(scores, top, axis=1), axis=1, kind="stable")
        out[i:j] = np.take_along_axis(top, order, axis=1)
    return out


def save_workloads(folder, w, grouped):
    folder = Path(folder)
    np.save(folder / "U.npy", w.U)
    np.save(folder / "V.npy", w.V)
    for name in ("train", "test"):
        matrix = getattr(w, name)
        np.save(folder / f"{name}_indptr.npy", matrix.indptr)
        np.save(folder / f"{name}_indices.npy", matrix.indices)
    for name, array in zip(("label", "approx", "qid"), grouped):
        np.save(folder / f"{name}.npy", array)
    (folder / "shape.json").write_text(json.dumps(list(w.shape)))


def load_workloads(folder):
    folder = Path(folder)
    shape = tuple(json.loads((folder / "shape.json").read_text()))
    data = {"U": np.load(folder / "U.npy"), "V": np.load(folder / "V.npy")}
    for name in ("train", "test"):
        indptr, indices = np.load(folder / f"{name}_indptr.npy"), np.load(folder / f"{name}_indices.npy")
        data[name] = sp.csr_matrix((np.ones(indices.size, np.float32), indices, indptr), shape=shape)
    for name in ("label", "approx", "qid"):
        data[name] = np.load(folder / f"{name}.npy")
    return data


def interactions_frame(pd, matrix, user="user_id", item="item_id"):
    """A CSR matrix's stored cells as a (user, item) data frame."""
    return pd.DataFrame({user: np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr)),
                         item: matrix.indices.astype(np.int64)})


# ------------------------------------------------------------------------------------------------
# Peers, each run in a worker process of its own (python recommendation.py --worker PEER FOLDER)
# ------------------------------------------------------------------------------------------------
class ImplicitPeer:
    """implicit's ``ranking_metrics_at_k`` on an ALS model holding the given factors."""

    dist = "implicit"
    top_k = "the model's recommend (implicit.cpu.topk: U @ V.T 100 users at a time, training items filtered)"

    def __init__(self, data, threads):
        from implicit.cpu.als import AlternatingLeastSquares
        from implicit.evaluation import ranking_metrics_at_k
        self.data, self.threads = data, threads
        self.model_class, self.evaluate = AlternatingLeastSquares, ranking_metrics_at_k
        self.result = None

    def run(self):
        d = self.data
        model = self.model_class(factors=d["U"].shape[1], num_threads=self.threads, random_state=0)
        model.user_factors, model.item_factors = d["U"], d["V"]
        self.result = self.evaluate(model, d["train"], d["test"], K=K, show_progress=False,
                                    num_threads=self.threads)

    def values(self):
        return {"summary": {name: float(value) for name, value in self.result.items()}, "per_user": None}


class RectoolsPeer:
    """RecTools: top-10 by its ImplicitRanker, then ``calc_metrics`` on the recommendation table."""

    dist = "RecTools"
    top_k = "its ImplicitRanker (Distance.DOT, training pairs filtered; implicit.cpu.topk inside)"

    def __init__(self, data, threads):
        import pandas as pd
        from rectools import Columns
        from rectools.metrics import MAP, MRR, NDCG, HitRate, Precision, Recall, calc_metrics
        from rectools.models.rank import Distance, ImplicitRanker
        self.data, self.threads, self.pd, self.columns = data, threads, pd, Columns
        self.ranker = (ImplicitRanker, Distance.DOT)
        self.calc_metrics = calc_metrics
        self.metrics = {"ndcg@10": NDCG(k=K, divide_by_achievable=True), "p@10": Precision(k=K),
                        "r@10": Recall(k=K), "hits@10": HitRate(k=K), "map@10": MAP(k=K), "mrr@10": MRR(k=K)}
        # the default nDCG divides by the DCG of 10 relevant items whatever the user's number
        self.extra = {"ndcg@10 (default)": NDCG(k=K)}
        self.result = None

    def run(self):
        d, pd, C = self.data, self.pd, self.columns
        ranker_class, distance = self.ranker
        ranker = ranker_class(distance, d["U"], d["V"], num_threads=self.threads)
        users, items, _ = ranker.rank(np.arange(d["U"].shape[0]), k=K, filter_pairs_csr=d["train"])
        reco = pd.DataFrame({C.User: users, C.Item: items})
        reco[C.Rank] = reco.groupby(C.User, sort=False).cumcount() + 1
        interactions = interactions_frame(pd, d["test"], C.User, C.Item)
        self.result = (self.calc_metrics(self.metrics, reco, interactions), reco, interactions)

    def values(self):
        summary, reco, interactions = self.result
        users = np.arange(self.data["U"].shape[0])
        per_user = {}
        for name, metric in {**self.metrics, **self.extra}.items():
            per_user[name] = metric.calc_per_user(reco, interactions).reindex(users, fill_value=0.0).to_numpy()
        summary = dict(summary, **{name: float(np.mean(per_user[name])) for name in self.extra})
        return {"summary": summary, "per_user": per_user}


class CornacPeer:
    """cornac's ``ranking_eval`` with a Recommender returning the rows of ``U[i:j] @ V.T``."""

    dist = "cornac"
    top_k = "Recommender.rank (np.argpartition of each user's scores, the top 10 sorted)"

    def __init__(self, data, threads):
        from cornac.data import Dataset
        from cornac.eval_methods.base_method import ranking_eval
        from cornac.metrics import MAP, MRR, NDCG, HitRatio, Precision, Recall
        from cornac.models import Recommender

        class GivenScores(Recommender):
            # the scores of sklearn-rank's blocks, U[i:j] @ V.T, each block computed once (ranking_eval
            # asks for one user at a time, in increasing order)
            def __init__(self, U, V):
                super().__init__(name="given", trainable=False)
                self.U, self.V, self.cached = U, V, (None, None)

            def score(self, user_idx, item_idx=None):
                start = user_idx // BLOCK * BLOCK
                if self.cached[0] != start:
                    self.cached = (start, self.U[start:start + BLOCK] @ self.V.T)
                row = self.cached[1][user_idx - start]
                return row if item_idx is None else row[item_idx]

        self.data, self.dataset, self.ranking_eval, self.model_class = data, Dataset, ranking_eval, GivenScores
        self.metrics = {"ndcg@10": NDCG(k=K), "p@10": Precision(k=K), "r@10": Recall(k=K),
                        "hits@10": HitRatio(k=K), "map": MAP(), "mrr": MRR()}
        self.result = None

    def _dataset(self, matrix, uid_map, iid_map):
        coo = matrix.tocoo()
        return self.dataset(matrix.shape[0], matrix.shape[1], uid_map, iid_map,
                            (coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data.astype(np.float64)))

    def run(self):
        d = self.data
        n_users, n_items = d["train"].shape
        uid_map, iid_map = dict(zip(range(n_users), range(n_users))), dict(zip(range(n_items), range(n_items)))
        train, test = self._dataset(d["train"], uid_map, iid_map), self._dataset(d["test"], uid_map, iid_map)
        model = self.model_class(d["U"], d["V"]).fit(train)
        self.result = self.ranking_eval(model, list(self.metrics.values()), train, test)

    def values(self):
        means, per_user = self.result
        n_users = self.data["U"].shape[0]
        out = {}
        for (name, _), values in zip(self.metrics.items(), per_user):
            column = np.full(n_users, np.nan)
            column[np.fromiter(values.keys(), dtype=np.int64)] = np.fromiter(values.values(), dtype=float)
            out[name] = column
        return {"summary": dict(zip(self.metrics, map(float, means))), "per_user": out}


class LenskitPeer:
    """LensKit's ``RunAnalysis`` on top-10 lists from ``np.argpartition``."""

    dist = "lenskit"
    top_k = ("np.argpartition on U[i:j] @ V.T, 1,000 users at a time, training items at -inf (not LensKit's "
             "pipeline, which ranks one user at a time)")

    def __init__(self, data, threads):
        import pandas as pd
        from lenskit.data import ItemListCollection
        from lenskit.metrics import NDCG, Hit, LogRankWeight, Precision, Recall, RecipRank, RunAnalysis
        from lenskit.metrics.ranking import AveragePrecision
        try:
            import torch
            torch.set_num_threads(threads)
        except ImportError:
            pass
        self.data, self.pd, self.collection, self.analysis = data, pd, ItemListCollection, RunAnalysis
        # offset=1: the discount 1 / log2(rank + 1); LensKit's default clips the rank at 2 instead
        self.metrics = {"ndcg@10": NDCG(K, weight=LogRankWeight(offset=1)), "p@10": Precision(K),
                        "r@10": Recall(K), "hits@10": Hit(K), "map@10": AveragePrecision(K),
                        "mrr@10": RecipRank(K)}
        self.extra = {"ndcg@10 (default)": NDCG(K)}
        self.result = None

    def _measure(self, metrics, recs, test):
        analysis = self.analysis()
        for name, metric in metrics.items():
            analysis.add_metric(metric, label=name)
        return analysis.measure(recs, test)

    def run(self):
        d, pd = self.data, self.pd
        top = top_k_blocks(d["U"], d["V"], d["train"], K, BLOCK)
        frame = pd.DataFrame({"user_id": np.repeat(np.arange(top.shape[0]), K), "item_id": top.ravel(),
                              "rank": np.tile(np.arange(1, K + 1), top.shape[0])})
        recs = self.collection.from_df(frame, ["user_id"])
        test = self.collection.from_df(interactions_frame(pd, d["test"]), ["user_id"])
        self.result = (self._measure(self.metrics, recs, test), recs, test)

    def values(self):
        result, recs, test = self.result
        extra = self._measure(self.extra, recs, test).list_metrics()
        users = np.arange(self.data["U"].shape[0])
        per_user = {name: result.list_metrics()[name].reindex(users).to_numpy(dtype=float) for name in self.metrics}
        per_user.update({name: extra[name].reindex(users).to_numpy(dtype=float) for name in self.extra})
        return {"summary": {name: float(np.mean(values)) for name, values in per_user.items()}, "per_user": per_user}


class CatboostPeer:
    """CatBoost's ``eval_metric`` NDCG:top=10 on grouped rows."""

    dist = "catboost"
    top_k = "CatBoost's own sort"

    def __init__(self, data, threads):
        from catboost.utils import eval_metric
        self.data, self.eval_metric, self.result = data, eval_metric, {}

    def run(self, thread_count=1):
        d = self.data
        self.result[thread_count] = self.eval_metric(d["label"], d["approx"], f"NDCG:top={K}", group_id=d["qid"],
                                                     thread_count=thread_count)[0]

    def values(self):
        return {"summary": {f"ndcg@10 (thread_count={t})": float(v) for t, v in self.result.items()},
                "per_user": None}


PEER_CLASSES = {"implicit": ImplicitPeer, "rectools": RectoolsPeer, "cornac": CornacPeer,
                "lenskit": LenskitPeer, "catboost": CatboostPeer}


def _tolist(values):
    return {name: np.asarray(v, dtype=float).tolist() for name, v in values.items()} if values else None


def worker_main(peer, folder, threads):
    """Serve one peer over stdin/stdout: one JSON command per line, one JSON reply per line."""
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # whatever the libraries print goes to the log, not to the channel

    def send(reply):
        channel.write(json.dumps(reply) + "\n")

    try:
        from importlib.metadata import version
        state = PEER_CLASSES[peer](load_workloads(folder), threads)
        send({"ready": True, "version": version(state.dist), "top_k": state.top_k,
              "python": sys.version.split()[0], "numpy": np.__version__})
    except Exception as exc:  # reported to the driver, which skips the peer
        send({"error": f"{type(exc).__name__}: {exc}"})
        return
    for line in sys.stdin:
        command = json.loads(line)
        try:
            if command["do"] == "run":
                gc.collect()
                start = time.perf_counter()
                state.run(**command.get("params", {}))
                send({"seconds": time.perf_counter() - start})
            elif command["do"] == "values":
                values = state.values()
                send({"summary": values["summary"], "per_user": _tolist(values["per_user"])})
            else:
                break
        except Exception as exc:  # reported to the driver
            send({"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-2000:]})


class PeerError(RuntimeError):
    pass


class Worker:
    """The driver's end of a worker process."""

    def __init__(self, peer, python, folder, threads, logdir):
        self.peer = peer
        self.log_path = Path(logdir) / f"{peer}.log"
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
                   MKL_NUM_THREADS=str(threads))
        with open(self.log_path, "w") as log_file:
            self.proc = subprocess.Popen(
                [python, str(Path(__file__).resolve()), "--worker", peer, str(folder), "--threads", str(threads)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log_file, text=True, env=env)
        self.hello = self._read()

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            tail = self.log_path.read_text()[-1500:].strip()
            raise PeerError(f"{self.peer} worker exited (code {self.proc.wait()}): {tail}")
        reply = json.loads(line)
        if "error" in reply:
            raise PeerError(reply["error"] + ("\n" + reply["traceback"] if "traceback" in reply else ""))
        return reply

    def call(self, do, **params):
        self.proc.stdin.write(json.dumps({"do": do, "params": params}) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self):
        try:
            self.proc.stdin.write(json.dumps({"do": "quit"}) + "\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def peer_python(peer, args):
    for spec in args.peer_python or []:
        name, _, path = spec.partition("=")
        if name == peer:
            return path
    candidate = Path(args.venvs) / f"venv-{peer}" / "bin" / "python"
    return str(candidate) if candidate.exists() else sys.executable


# ------------------------------------------------------------------------------------------------
# Agreement: a peer's values against sklearn-rank's (ties "expected"), inside its optimistic and
# pessimistic values
# ------------------------------------------------------------------------------------------------
# peer value -> how sklearn-rank computes it: ("metric", name[, ties]) per user (ties="expected" unless the
# peer's tie rule is a policy: cornac's MAP ranks with scipy's rankdata(method="max")); ("micro",)
# implicit's precision, hits summed over users / min(K, held-out) summed over users; ("scaled", name,
# factor) per user.
COMPARED = {
    "implicit": {"ndcg": ("metric", "ndcg@10"), "map": ("metric", "map@10"), "precision": ("micro",)},
    "rectools": {"ndcg@10": ("metric", "ndcg@10"), "p@10": ("metric", "p@10"), "r@10": ("metric", "r@10"),
                 "hits@10": ("metric", "hits@10"), "map@10": ("metric", "map@10"), "mrr@10": ("metric", "mrr@10"),
                 "ndcg@10 (default)": ("scaled", "dcg@10", 1.0 / IDCG_10)},
    "cornac": {"ndcg@10": ("metric", "ndcg@10"), "p@10": ("metric", "p@10"), "r@10": ("metric", "r@10"),
               "hits@10": ("metric", "hits@10"), "map": ("metric", "map", "pessimistic"), "mrr": ("metric", "mrr")},
    "lenskit": {"ndcg@10": ("metric", "ndcg@10"), "p@10": ("metric", "p@10"), "r@10": ("metric", "r@10"),
                "hits@10": ("metric", "hits@10"), "map@10": ("metric", "map@10"), "mrr@10": ("metric", "mrr@10")},
}
NOT_COMPARED = {
    "implicit": {"auc": "implicit's AUC counts the filtered training items among the negatives and places the "
                        "relevant items missed by the top 10 halfway down the rest: no sklearn-rank equivalent"},
    "lenskit": {"ndcg@10 (default)": "LensKit's default discount 1 / log2(max(rank, 2)) gives ranks 1 and 2 the "
                                     "same weight: no sklearn-rank option for it"},
}
# Differences explained by a peer's own computation, not by the scores or the conventions.
KNOWN = {
    ("cornac", "mrr"): "cornac's ranking_eval ranks each user's items with Recommender.rank(k=max_k) (10 here, "
                       "the largest k of the metrics), which sorts the top 10 only and leaves the rest in "
                       "argpartition's order; MRR (no cut-off) reads its first relevant item from that list, so "
                       "a user whose first relevant item is below rank 10 gets the reciprocal of an arbitrary "
                       "position",
}


def ours(spec, report, n_rel):
    """sklearn-rank's counterpart of a peer's value: per-user array, or a scalar (micro average)."""
    if spec[0] == "metric":
        return np.asarray(report.per_query[spec[1]], dtype=float)
    if spec[0] == "scaled":
        return np.asarray(report.per_query[spec[1]], dtype=float) * spec[2]
    hits = np.asarray(report.per_query["num_rel_ret@10"], dtype=float)
    return float(hits.sum() / np.minimum(K, n_rel).sum())


def compare(peer, values, reports, n_rel):
    """Per compared value: the peer's mean, sklearn-rank's, the largest per-user difference and the users
    outside sklearn-rank's optimistic..pessimistic range."""
    out = {}
    for name, spec in COMPARED.get(peer, {}).items():
        if name not in values["summary"]:
            continue
        ties = spec[2] if spec[0] == "metric" and len(spec) > 2 else "expected"
        expected, low, high = (ours(spec, reports[t], n_rel) for t in (ties, "pessimistic", "optimistic"))
        row = {"peer": values["summary"][name], "sklearn-rank option": spec}
        per_user = (values.get("per_user") or {}).get(name)
        if per_user is not None and np.ndim(expected):
            theirs = np.asarray(per_user, dtype=float)
            row["sklearn-rank"] = float(np.mean(expected))
            row["max |diff| per user"] = float(np.max(np.abs(theirs - expected)))
            row["users differing"] = int(np.count_nonzero(np.abs(theirs - expected) > BOUND_TOL))
            outside = (theirs < low - BOUND_TOL) | (theirs > high + BOUND_TOL)
            row["users outside tie bounds"] = int(np.count_nonzero(outside))
            if outside.any():
                first = int(np.flatnonzero(outside)[0])
                row["first outside"] = {"user": first, "peer": float(theirs[first]),
                                        "sklearn-rank": float(expected[first]),
                                        "bounds": [float(low[first]), float(high[first])]}
        else:
            mean = lambda v: float(np.mean(v)) if np.ndim(v) else v  # noqa: E731
            row["sklearn-rank"] = mean(expected)
            row["users outside tie bounds"] = int(not (mean(low) - BOUND_TOL <= row["peer"] <= mean(high) + BOUND_TOL))
        row["|diff| of means"] = abs(row["peer"] - row["sklearn-rank"])
        row["known"] = KNOWN.get((peer, name))
        out[name] = row
    return out


def disagreements(results):
    found = []
    for peer, res in results.get("peers", {}).items():
        for name, row in res.get("agreement", {}).items():
            if row["users outside tie bounds"] and not row["known"]:
                found.append(f"{peer} {name}: {row['users outside tie bounds']} users outside sklearn-rank's "
                             f"tie bounds (max |diff| {row.get('max |diff| per user', row['|diff| of means']):.2e})")
    catboost = results.get("catboost", {})
    for label, row in catboost.get("agreement", {}).items():
        if row["|diff|"] > BOUND_TOL:
            found.append(f"catboost {label}: |diff| {row['|diff|']:.2e}")
    return found


# ------------------------------------------------------------------------------------------------
# Measurements
# ------------------------------------------------------------------------------------------------
def interleaved(ours_call, peer_call, warmup, repeat):
    """Run sklearn-rank, then the peer, ``warmup + repeat`` times; the timed runs' seconds of each."""
    mine, theirs = [], []
    for i in range(warmup + repeat):
        gc.collect()
        start = time.perf_counter()
        ours_call()
        seconds = time.perf_counter() - start
        peer_seconds = peer_call()
        if i >= warmup:
            mine.append(seconds)
            theirs.append(peer_seconds)
    return mine, theirs


def sklearn_rank_alone(w, cfg, n_jobs, repeat):
    """sklearn-rank's own measurements: blocks, the scoring alone, argpartition, one matrix."""
    from sklearn_rank import evaluate, evaluate_blocks

    block = cfg["block"]
    res = {"times": {}, "runs": {}}
    T = res["times"]

    def blocks():
        return evaluate_blocks(score_blocks(w, block), metrics=METRICS, **n_jobs)

    def scoring():
        for _ in score_blocks(w, block):
            pass

    def argpartition():
        return top_k_blocks(w.U, w.V, w.train, K, block)

    for label, call in (("evaluate_blocks (scoring included)", blocks), ("scoring alone (U[i:j] @ V.T)", scoring),
                        ("scoring + filter + argpartition top-10", argpartition)):
        call()
        runs = []
        for _ in range(repeat):
            gc.collect()
            start = time.perf_counter()
            result = call()
            runs.append(time.perf_counter() - start)
        T[label], res["runs"][label] = min(runs), runs
        if label.startswith("evaluate_blocks"):
            report = result
    res["summary"] = dict(report.summary)
    start = time.perf_counter()
    S = w.U @ w.V.T
    T["U @ V.T as one matrix"] = time.perf_counter() - start
    runs = []
    one = None
    for i in range(repeat + 1):
        gc.collect()
        start = time.perf_counter()
        one = evaluate(w.test, S, exclude=w.train, metrics=METRICS, **n_jobs)
        if i:
            runs.append(time.perf_counter() - start)
    del S
    gc.collect()
    T["evaluate on the one matrix"], res["runs"]["evaluate on the one matrix"] = min(runs), runs
    res["one matrix == blocks, max |diff| per user"] = max(
        float(np.max(np.abs(np.asarray(one.per_query[m]) - np.asarray(report.per_query[m])))) for m in METRICS)
    log(f"    sklearn-rank evaluate_blocks {fmt_s(T['evaluate_blocks (scoring included)'])} "
        f"(scoring alone {fmt_s(T['scoring alone (U[i:j] @ V.T)'])}, scoring + argpartition "
        f"{fmt_s(T['scoring + filter + argpartition top-10'])}); evaluate on one matrix "
        f"{fmt_s(T['evaluate on the one matrix'])} (+ {fmt_s(T['U @ V.T as one matrix'])} for U @ V.T); "
        f"one matrix vs blocks max |diff| {res['one matrix == blocks, max |diff| per user']:.1e}")
    return res, report, blocks


def reference_reports(w, cfg):
    """Untimed: every compared metric under the three tie policies that bound a peer's tie-breaking."""
    from sklearn_rank import evaluate_blocks
    return {ties: evaluate_blocks(score_blocks(w, cfg["block"]), metrics=REFERENCE_METRICS, ties=ties)
            for ties in ("expected", "optimistic", "pessimistic")}


def run_peer(peer, worker, blocks_call, w, cfg, reports):
    slow = peer in SLOW_PEERS
    repeat, warmup = (cfg["repeat_slow"], cfg["warmup_slow"]) if slow else (cfg["repeat"], 1)
    mine, theirs = interleaved(blocks_call, lambda: worker.call("run")["seconds"], warmup, repeat)
    values = worker.call("values")
    n_rel = np.diff(w.test.indptr)
    agreement = compare(peer, values, reports, n_rel)
    res = {"version": worker.hello["version"], "python": worker.hello["python"], "numpy": worker.hello["numpy"],
           "top_k": worker.hello["top_k"], "seconds": min(theirs), "runs": theirs,
           "sklearn-rank seconds": min(mine), "sklearn-rank runs": mine, "ratio": min(theirs) / min(mine),
           "warmup": warmup, "repeat": repeat, "summary": values["summary"], "agreement": agreement,
           "not compared": NOT_COMPARED.get(peer, {})}
    worst = max((row.get("max |diff| per user", row["|diff| of means"]) for row in agreement.values()
                 if not row["known"]), default=float("nan"))
    res["max |diff|"] = worst
    log(f"    {peer} {res['version']}: {fmt_s(res['seconds'])}, sklearn-rank {fmt_s(res['sklearn-rank seconds'])} "
        f"(x{res['ratio']:.1f}); max |diff| {worst:.1e}"
        + "".join(f"; {name}: {row['users outside tie bounds']} outside tie bounds"
                  + (" (known)" if row["known"] else "")
                  for name, row in agreement.items() if row["users outside tie bounds"]))
    return res


def run_catboost(worker, grouped, cfg, evaluate_kwargs):
    """CatBoost's NDCG:top=10 against sklearn-rank's at the same thread count (1 and 2)."""
    from sklearn_rank import evaluate

    label, approx, qid = grouped
    res = {"n_queries": int(qid[-1] + 1), "n_rows": int(qid.size), "version": worker.hello["version"],
           "python": worker.hello["python"], "numpy": worker.hello["numpy"],
           "relevant_per_query": float((label > 0).sum() / (qid[-1] + 1)),
           "queries without relevant rows": int(np.count_nonzero(np.bincount(qid, weights=label > 0) == 0)),
           "rows": {}, "agreement": {}}
    for threads in (1, 2):
        jobs = evaluate_kwargs(threads)
        if jobs is None:
            res["rows"][f"{threads} threads"] = "sklearn-rank's evaluate has no n_jobs: not compared"
            continue

        def skr(jobs=jobs):
            return evaluate(label, approx, qid=qid, metrics=["ndcg@10"], ties="pessimistic", no_relevant="one", **jobs)

        report = skr()
        mine, theirs = interleaved(skr, lambda t=threads: worker.call("run", thread_count=t)["seconds"], 1,
                                   cfg["repeat_catboost"])
        key = f"ndcg@10 (thread_count={threads})"
        theirs_value = worker.call("values")["summary"][key]
        res["rows"][f"{threads} threads"] = {"catboost seconds": min(theirs), "catboost runs": theirs,
                                             "sklearn-rank seconds": min(mine), "sklearn-rank runs": mine,
                                             "ratio": min(theirs) / min(mine), "catboost": theirs_value,
                                             "sklearn-rank": report.summary["ndcg@10"]}
        res["agreement"][f"{threads} threads"] = {"|diff|": abs(theirs_value - report.summary["ndcg@10"])}
        log(f"    catboost thread_count={threads}: {fmt_s(min(theirs))}, sklearn-rank n_jobs={threads}: "
            f"{fmt_s(min(mine))} (x{min(theirs) / min(mine):.2f}); NDCG@10 {theirs_value:.12f} vs "
            f"{report.summary['ndcg@10']:.12f}")
    return res


# ------------------------------------------------------------------------------------------------
# Report
# ------------------------------------------------------------------------------------------------
def table_rows(results):
    """[label, peer time, sklearn-rank time, ratio, max |diff|, note] for every measured peer."""
    rows = []
    for peer, res in results.get("peers", {}).items():
        if "error" in res:
            continue
        known = [name for name, row in res["agreement"].items() if row["known"]]
        rows.append([f"{NAMES[peer]} {res['version']}", fmt_s(res["seconds"]), fmt_s(res["sklearn-rank seconds"]),
                     f"{res['ratio']:.1f}", f"{res['max |diff|']:.1e}",
                     ", ".join(res["agreement"]) + (f" (not counted: {', '.join(known)}, see below)" if known else "")])
    cat = results.get("catboost", {})
    for threads, row in cat.get("rows", {}).items():
        if isinstance(row, dict):
            n = threads.split()[0]
            rows.append([f"CatBoost {cat['version']}, thread_count={n} / n_jobs={n}",
                         fmt_s(row["catboost seconds"]), fmt_s(row["sklearn-rank seconds"]), f"{row['ratio']:.1f}",
                         f"{cat['agreement'][threads]['|diff|']:.1e}", "ndcg@10 (mean; pessimistic ties)"])
    return rows


def print_table(results):
    log("=" * 120)
    log(f"  {'peer':<42} {'peer':>9} {'sklearn-rank':>12} {'ratio':>6} {'max |diff|':>10}  compared "
        "(ratio: peer / sklearn-rank)")
    for row in table_rows(results):
        log(f"  {row[0]:<42} {row[1]:>9} {row[2]:>12} {row[3]:>6} {row[4]:>10}  {row[5]}")
    for peer, res in results.get("peers", {}).items():
        if "error" in res:
            log(f"  {peer}: not measured: {res['error'].splitlines()[0]}")
    log("=" * 120)


def rst(results, env, command):
    """The measured table and its notes in reStructuredText, for docs/performance.rst."""
    from report import _list_table

    w = results["workload"]
    own = results["sklearn-rank"]["times"]
    peers = {p: r for p, r in results["peers"].items() if "error" not in r}
    out = [f"Measured with ``{command}`` on {env['cpu']} ({env['cores']} cores), Python {env['python']}, NumPy "
           f"{env['versions']['numpy']}, SciPy {env['versions']['scipy']}; sklearn-rank at git "
           f"{env['git_commit']}; load average {env['load_average_at_start'][0]:.2f} at the start, "
           f"{env['load_average_at_end'][0]:.2f} at the end; {results['threads']} thread(s) for the "
           "recommenders.\n",
           f"{w['n_users']:,} users x {w['n_items']:,} items, {w['train_nnz']:,} training interactions "
           f"({100 * w['density']:.2f}%) filtered, {w['n_test']} held out per user. sklearn-rank's "
           f"``evaluate_blocks`` of ``U[i:j] @ V.T`` in blocks of {w['block']:,} users, scoring included, alone: "
           f"{fmt_s(own['evaluate_blocks (scoring included)'])}; the scoring alone "
           f"{fmt_s(own['scoring alone (U[i:j] @ V.T)'])}; scoring, filter and top-10 by ``np.argpartition`` "
           f"{fmt_s(own['scoring + filter + argpartition top-10'])}; ``evaluate`` on the scores as one matrix "
           f"{fmt_s(own['evaluate on the one matrix'])} (the same values as the blocks, to "
           f"{results['sklearn-rank']['one matrix == blocks, max |diff| per user']:.0e}).\n"]
    out.append(_list_table(["peer", "peer's time", "sklearn-rank's time", "peer / sklearn-rank", "max abs. difference",
                            "values compared"], table_rows(results), [18, 10, 12, 10, 12, 38]))
    notes = [f"{NAMES[p]}: top 10 by {r['top_k']}" for p, r in peers.items()]
    for peer, res in peers.items():
        for name, row in res["agreement"].items():
            if row["known"]:
                notes.append(f"{NAMES[peer]} {name}: {row['users outside tie bounds']:,} of {w['n_users']:,} users "
                             f"outside sklearn-rank's tie bounds, mean {row['peer']:.6f} against "
                             f"{row['sklearn-rank']:.6f}: {row['known']}")
        for name, reason in res["not compared"].items():
            if name in res["summary"]:
                notes.append(f"{NAMES[peer]} {name} = {res['summary'][name]:.6f}, not compared: {reason}")
    out.append("\n".join(f"* {note}." for note in notes) + "\n")
    return "\n".join(out)


def recommenders(args, cfg, folder, logdir, results, w, n_jobs):
    log(f"[recommendation] {w.shape[0]:,} users x {w.shape[1]:,} items")
    from sklearn_rank import evaluate_blocks

    res, report, _ = sklearn_rank_alone(w, cfg, n_jobs, cfg["repeat"])
    results["sklearn-rank"] = res
    reports = reference_reports(w, cfg)
    results["reference summary"] = {t: dict(r.summary) for t, r in reports.items()}
    same = max(abs(report.summary[m] - reports["expected"].summary[m]) for m in METRICS)
    if same:
        log(f"DISAGREEMENT: evaluate_blocks with METRICS and with REFERENCE_METRICS differ by {same:.1e}")
        results["internal disagreement"] = same
    results["peers"] = {}
    for peer in [p for p in args.peers if p != "catboost"]:
        python = peer_python(peer, args)
        try:
            worker = Worker(peer, python, folder, args.threads, logdir)
        except PeerError as exc:
            results["peers"][peer] = {"error": str(exc), "python": python}
            log(f"    {peer}: skipped ({str(exc).splitlines()[0]}; python {python})")
            continue
        def peer_blocks(metrics=PEER_METRICS[peer]):
            return evaluate_blocks(score_blocks(w, cfg["block"]), metrics=metrics, **n_jobs)

        try:
            results["peers"][peer] = run_peer(peer, worker, peer_blocks, w, cfg, reports)
            results["peers"][peer]["sklearn-rank metrics"] = PEER_METRICS[peer]
        except PeerError as exc:
            results["peers"][peer] = {"error": str(exc), "python": python}
            log(f"    {peer}: failed: {exc}")
        finally:
            worker.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="4,000 users x 5,000 items (about a minute)")
    parser.add_argument("--peers", nargs="*", default=PEERS, choices=PEERS, help="peers to run (default: all)")
    parser.add_argument("--venvs", default="/tmp/recbench",
                        help="folder of the peers' virtual environments, venv-<peer> (default: /tmp/recbench)")
    parser.add_argument("--peer-python", action="append", metavar="PEER=PYTHON",
                        help="the interpreter of one peer (overrides --venvs)")
    parser.add_argument("--threads", type=int, default=1, help="threads of every library for the recommenders")
    parser.add_argument("--repeat", type=int, help="timed runs per measurement")
    parser.add_argument("--json", help="write every measurement to this JSON file")
    parser.add_argument("--rst", help="write the table as reStructuredText to this file")
    parser.add_argument("--worker", nargs=2, metavar=("PEER", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker_main(args.worker[0], args.worker[1], args.threads)
        return 0

    import inspect

    from harness import describe_environment
    from sklearn_rank import evaluate
    from threadpoolctl import threadpool_limits

    cfg = dict(QUICK if args.quick else FULL)
    if args.repeat:
        cfg["repeat"] = args.repeat
        cfg["repeat_slow"] = min(cfg["repeat_slow"], args.repeat)
    has_jobs = "n_jobs" in inspect.signature(evaluate).parameters

    def jobs(threads):
        return {"n_jobs": threads} if has_jobs else ({} if threads == 1 else None)

    started = time.perf_counter()
    command = " ".join(["python", "benchmarks/recommendation.py", *(argv if argv is not None else sys.argv[1:])])
    env = describe_environment()
    results = {"threads": args.threads, "n_jobs supported": has_jobs}
    start = time.perf_counter()
    w = recommendation_workload(cfg["n_users"], cfg["n_items"], block=cfg["block"])
    grouped = grouped_workload(*cfg["grouped"])
    results["workload"] = {"n_users": w.shape[0], "n_items": w.shape[1], "factors": w.U.shape[1],
                           "train_nnz": int(w.train.nnz), "density": w.train.nnz / (w.shape[0] * w.shape[1]),
                           "n_test": int(w.test.nnz // w.shape[0]), "block": cfg["block"],
                           "generation_seconds": time.perf_counter() - start}
    log(f"workloads generated in {fmt_s(results['workload']['generation_seconds'])}")
    with tempfile.TemporaryDirectory(prefix="recbench_") as tmp, threadpool_limits(limits=args.threads):
        folder = Path(tmp) / "data"
        folder.mkdir()
        save_workloads(folder, w, grouped)
        recommenders(args, cfg, folder, tmp, results, w, jobs(args.threads))
        if "catboost" in args.peers:
            log(f"[catboost] {cfg['grouped'][0]:,} queries x {cfg['grouped'][1]} candidates, NDCG:top=10")
            python = peer_python("catboost", args)
            try:
                worker = Worker("catboost", python, folder, 1, tmp)
            except PeerError as exc:
                results["catboost"] = {"error": str(exc), "python": python}
                log(f"    catboost: skipped ({str(exc).splitlines()[0]})")
            else:
                try:
                    with threadpool_limits(limits=2):
                        results["catboost"] = run_catboost(worker, grouped, cfg, jobs)
                finally:
                    worker.close()
    env["load_average_at_end"] = os.getloadavg()
    env["max_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print_table(results)
    failures = disagreements(results)
    for failure in failures:
        log(f"DISAGREEMENT: {failure}")
    for peer, res in results["peers"].items():
        for name, row in res.get("agreement", {}).items():
            if row["known"] and row["users outside tie bounds"]:
                log(f"known difference, {peer} {name} ({row['users outside tie bounds']} users): {row['known']}")
    log(f"total {time.perf_counter() - started:.0f} s; command: {command}")
    if args.json:
        from run import _json_default
        payload = {"command": command, "quick": args.quick, "config": cfg, "environment": env,
                   "results": results, "disagreements": failures}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(payload, indent=1, default=_json_default))
        log(f"results written to {args.json}")
    if args.rst:
        Path(args.rst).write_text(rst(results, env, command))
        log(f"reStructuredText written to {args.rst}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
