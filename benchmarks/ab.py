"""Before and after in one process: this checkout's sklearn-rank against another checkout's, interleaved.

A change that should not move the speed (a refactor) is timed against the commit before it on the same
data, in the same process, the two versions called in turn (A, B, A, B, ...), so that a busy spell of
a shared machine slows both alike. The other checkout's package is copied under another name
(``sklearn_rank_baseline``), which its relative imports allow.

    git worktree add /tmp/baseline <commit>
    python benchmarks/ab.py /tmp/baseline [--repeat 21]

Prints, per workload, the best and the median of each version and their ratio (after / before).
"""

import argparse
import importlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import workloads as wl  # noqa: E402


def _baseline(checkout):
    folder = Path(tempfile.mkdtemp(prefix="ab_"))
    shutil.copytree(Path(checkout) / "sklearn_rank", folder / "sklearn_rank_baseline")
    sys.path.insert(0, str(folder))
    return importlib.import_module("sklearn_rank_baseline")


def _time(name, before, after, repeat):
    before(), after()  # warm-up
    times = {"before": [], "after": []}
    for _ in range(repeat):
        for label, call in (("before", before), ("after", after)):
            start = time.perf_counter()
            call()
            times[label].append(time.perf_counter() - start)
    b, a = np.array(times["before"]), np.array(times["after"])
    print(f"{name:44s} before {b.min() * 1e3:8.1f} ms (median {np.median(b) * 1e3:8.1f})   after "
          f"{a.min() * 1e3:8.1f} ms (median {np.median(a) * 1e3:8.1f})   after/before: best "
          f"{a.min() / b.min():.3f}, median {np.median(a) / np.median(b):.3f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", help="a checkout (e.g. a git worktree) of the version to compare with")
    parser.add_argument("--repeat", type=int, default=11, help="timed calls of each version per workload")
    args = parser.parse_args()
    before = _baseline(args.baseline)
    import sklearn_rank as after

    grouped = wl.grouped_rows(10_000, 100)
    list_metrics = ["mrr", "map", "ndcg@10"]
    _time("W1 grouped rows, 1M rows", lambda: before.evaluate(grouped.y_true, grouped.y_score, qid=grouped.qid,
                                                              metrics=list_metrics),
          lambda: after.evaluate(grouped.y_true, grouped.y_score, qid=grouped.qid, metrics=list_metrics),
          args.repeat)
    index = wl.label_index(2000, 15_000)
    link_metrics = ["mr", "mrr", "hits@1", "hits@3", "hits@10"]
    _time("W2 label index, sparse filter", lambda: before.evaluate(index.target, index.scores, exclude=index.exclude,
                                                                   metrics=link_metrics),
          lambda: after.evaluate(index.target, index.scores, exclude=index.exclude, metrics=link_metrics), args.repeat)
    y_true, _, y_tied = wl.relevance_matrix(2000, 500)
    for ties in ("expected", "ordinal"):
        _time(f"W3 relevance matrix, graded, {ties}",
              lambda: before.evaluate(y_true, y_tied, metrics=["ndcg@10", "ndcg", "map"], ties=ties),
              lambda: after.evaluate(y_true, y_tied, metrics=["ndcg@10", "ndcg", "map"], ties=ties), args.repeat)
    rng = np.random.default_rng(0)
    scores = np.round(rng.random((1000, 20_000), dtype=np.float32), 3)
    held_out = (rng.random((1000, 20_000)) < 11 / 20_000).astype(np.int8)
    rec_metrics = ["ndcg@10", "hits@10", "p@10", "r@10", "mrr", "map"]
    for ties in ("expected", "ordinal"):
        _time(f"relevance matrix, 11 relevant of 20,000, {ties}",
              lambda: before.evaluate(held_out, scores, metrics=rec_metrics, ties=ties),
              lambda: after.evaluate(held_out, scores, metrics=rec_metrics, ties=ties), max(3, args.repeat // 3))


if __name__ == "__main__":
    main()
