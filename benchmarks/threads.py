"""``n_jobs``: one evaluation on one thread and on two, called in turn in the same run.

4 million grouped rows (40,000 queries of 100 candidates, graded relevance, scores with ties) and the
relevance matrix of ``catalog.py`` (4,000 x 20,000 float32, 11 relevant items per row), each evaluated
with ``n_jobs=1`` and ``n_jobs=2`` in turn (A, B, A, B, ...), so that a busy spell of a shared machine
slows both alike. The numbers must be identical; the issue's target is 1.4x on the grouped rows.

    python benchmarks/threads.py [--repeat 7]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import sklearn_rank  # noqa: E402
import workloads as wl  # noqa: E402
from catalog import METRICS as CATALOG_METRICS, catalog  # noqa: E402

GROUPED_METRICS = ["mrr", "map", "ndcg@10", "hits@10", "p@10"]


def _interleaved(calls, repeat):
    for call in calls.values():
        call()  # warm-up
    times = {label: [] for label in calls}
    for _ in range(repeat):
        for label, call in calls.items():
            start = time.perf_counter()
            call()
            times[label].append(time.perf_counter() - start)
    return {label: min(values) for label, values in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--ties", default="expected")
    args = parser.parse_args()
    grouped = wl.grouped_rows(40_000, 100)
    relevant, scores = catalog()
    cases = {
        f"grouped rows, {grouped.n_rows:,} rows": lambda jobs: sklearn_rank.evaluate(
            grouped.y_true, grouped.y_score, qid=grouped.qid, metrics=GROUPED_METRICS, ties=args.ties, n_jobs=jobs),
        f"relevance matrix {scores.shape[0]:,} x {scores.shape[1]:,}": lambda jobs: sklearn_rank.evaluate(
            relevant, scores, metrics=CATALOG_METRICS, ties=args.ties, n_jobs=jobs),
    }
    for name, run in cases.items():
        one, two = run(1), run(2)
        same = one.summary == two.summary and all(
            np.array_equal(one.per_query[m], two.per_query[m], equal_nan=True) for m in one.per_query)
        best = _interleaved({1: lambda: run(1), 2: lambda: run(2)}, args.repeat)
        print(f"{name:40s} n_jobs=1 {best[1] * 1e3:7.1f} ms   n_jobs=2 {best[2] * 1e3:7.1f} ms   "
              f"speed-up {best[1] / best[2]:.2f}x   identical numbers: {same}", flush=True)


if __name__ == "__main__":
    main()
