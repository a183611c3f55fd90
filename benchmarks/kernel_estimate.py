"""What would meet workload 5's target: a compiled nDCG@k kernel, timed in the same grid search.

Not part of sklearn-rank: a prototype that puts a number on the alternative to NumPy, as issue 6
asks before any dependency is added. It handles rows grouped by query with untied scores and one
metric only (what workload 5 feeds it), and checks its value against ``sklearn_rank.evaluate``.
The grid search runs three times with the same scorer machinery -- sklearn-rank's NumPy engine,
this kernel in its place, and a constant in its place (the floor: the model's predict and
scikit-learn's scoring) -- interleaved, so that a busy spell of the machine hits each of them.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/kernel_estimate.py   # needs numba
"""
import time

import numpy as np

try:
    import numba
except ImportError:  # pragma: no cover
    raise SystemExit("numba is not installed: pip install numba")

import sklearn
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV

from sklearn_rank import evaluate, make_ranking_scorer
from sklearn_rank.datasets import make_ranking
from sklearn_rank.model_selection import QueryGroupKFold


@numba.njit(cache=True)
def _ndcg_grouped(rel, score, starts, k):
    # Per query, one pass keeps the k best (score, relevance) pairs and the k largest relevances by
    # insertion into small buffers: no sort and no allocation per query.
    top_score = np.empty(k)
    top_rel = np.empty(k)
    best_rel = np.empty(k)
    discount = 1.0 / np.log2(np.arange(k) + 2.0)
    total, n_eval = 0.0, 0
    for j in range(starts.size - 1):
        lo, hi = starts[j], starts[j + 1]
        n_top = 0
        n_best = 0
        for i in range(lo, hi):
            s, r = score[i], rel[i]
            if n_top < k or s > top_score[n_top - 1]:
                p = min(n_top, k - 1)
                while p > 0 and top_score[p - 1] < s:
                    top_score[p] = top_score[p - 1]
                    top_rel[p] = top_rel[p - 1]
                    p -= 1
                top_score[p] = s
                top_rel[p] = r
                n_top = min(n_top + 1, k)
            if r > 0 and (n_best < k or r > best_rel[n_best - 1]):
                p = min(n_best, k - 1)
                while p > 0 and best_rel[p - 1] < r:
                    best_rel[p] = best_rel[p - 1]
                    p -= 1
                best_rel[p] = r
                n_best = min(n_best + 1, k)
        if n_best:
            dcg = 0.0
            for p in range(n_top):
                dcg += top_rel[p] * discount[p]
            idcg = 0.0
            for p in range(n_best):
                idcg += best_rel[p] * discount[p]
            total += dcg / idcg
            n_eval += 1
    return total / n_eval


def compiled_ndcg(y, s, qid, k=10):
    qid = np.asarray(qid)
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1], True])
    return _ndcg_grouped(np.asarray(y, dtype=np.float64), np.asarray(s, dtype=np.float64), starts, k)


def main():
    X, y, qid = make_ranking(n_queries=2000, n_candidates=50, n_features=20, random_state=0)
    alphas = np.logspace(-3, 3, 20)
    test = np.arange(20000, 40000)
    pred = Ridge().fit(X, y).predict(X[test])
    ours = evaluate(y[test], pred, qid=qid[test], metrics=["ndcg@10"]).summary["ndcg@10"]
    theirs = compiled_ndcg(y[test], pred, qid[test])  # compiles on first use
    if abs(theirs - ours) > 1e-12:
        raise SystemExit(f"the kernel disagrees with sklearn_rank.evaluate: {theirs!r} != {ours!r}")

    def best(fn, n=50):
        times = []
        for _ in range(n):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return min(times)

    engine_alone = best(lambda: evaluate(y[test], pred, qid=qid[test], metrics=["ndcg@10"]))
    kernel_alone = best(lambda: compiled_ndcg(y[test], pred, qid[test]))
    print(f"nDCG@10 = {ours:.6f}; one call on 20,000 rows outside the search: sklearn_rank.evaluate "
          f"{engine_alone * 1e3:.3f} ms, compiled kernel {kernel_alone * 1e3:.3f} ms")

    # The same search three times, with the same scorer machinery: sklearn-rank's NumPy engine, the
    # compiled kernel in its place, and a constant in its place (the floor: predict and scikit-learn).
    import sklearn_rank._scorer as scorer_module

    engine = scorer_module.engine_evaluate

    class _Report:
        def __init__(self, value, name):
            self.summary = {name: value}

    metrics = {
        "NumPy engine": engine,
        "compiled kernel": lambda y_true, y_score, qid=None, metrics=None, **_: _Report(
            compiled_ndcg(y_true, y_score, qid), metrics[0]),
        "predict only": lambda y_true, y_score, qid=None, metrics=None, **_: _Report(0.0, metrics[0]),
    }
    results = {name: [] for name in metrics}
    with sklearn.config_context(enable_metadata_routing=True):
        for _ in range(4):  # interleaved, so that a busy spell hits every variant
            for name, fn in metrics.items():
                scorer_module.engine_evaluate = fn
                start = time.perf_counter()
                gs = GridSearchCV(Ridge(), {"alpha": alphas}, cv=QueryGroupKFold(5),
                                  scoring=make_ranking_scorer("ndcg@10"), n_jobs=1).fit(X, y, qid=qid, groups=qid)
                wall = time.perf_counter() - start
                score = np.sum(gs.cv_results_["mean_score_time"]) * 5
                results[name].append((wall, score))
    scorer_module.engine_evaluate = engine
    for name, runs in results.items():
        wall, score = min(runs)
        print(f"{name:16s} wall {wall:.2f} s, scoring {score * 1e3:.0f} ms = {100 * score / wall:.1f}% "
              f"({score / 100 * 1e3:.2f} ms per score)")


if __name__ == "__main__":
    main()
