"""The relevance matrix at catalog scale: ``evaluate`` against ``np.argpartition`` in the same run.

4,000 users x 20,000 items of float32 scores rounded to three decimals (so every row has ties), about
11 relevant items per row, the six metrics of a recommendation report. Each tie policy is timed against
the top-10 selection every recommender library starts from, ``np.argpartition(-S, 10, axis=1)``, the
two called in turn (A, B, A, B, ...) so that a busy spell of a shared machine slows both alike.

    python benchmarks/catalog.py [--repeat 7] [--json benchmarks/results/catalog.json]
    python benchmarks/catalog.py --metrics ndcg@10 hits@10 p@10 r@10 mrr@10 map@10  # every metric cut at 10

Prints, per tie policy, the best time of each and their ratio (the issue's target: at most 2x).
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import sklearn_rank  # noqa: E402

METRICS = ["ndcg@10", "hits@10", "p@10", "r@10", "mrr", "map"]
TIES = ["expected", "realistic", "optimistic", "pessimistic", "ordinal"]


def catalog(n_users=4_000, n_items=20_000, relevant_per_row=11, seed=0):
    """Scores with ties (three decimals) and a binary relevance matrix with about ``relevant_per_row``
    relevant items per row, placed at random."""
    rng = np.random.default_rng(seed)
    scores = np.round(rng.random((n_users, n_items), dtype=np.float32), 3)
    relevant = rng.random((n_users, n_items)) < relevant_per_row / n_items
    return relevant, scores


def _best(times):
    return float(np.min(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--users", type=int, default=4_000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--ties", nargs="+", default=TIES, choices=TIES)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--metrics", nargs="+", default=METRICS,
                        help="metrics evaluated (all cut at k: the threshold kernel ranks them)")
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args()
    relevant, scores = catalog(args.users, args.items)
    print(f"{args.users:,} x {args.items:,} float32 scores (three decimals), "
          f"{relevant.sum(axis=1).mean():.1f} relevant per row, metrics {', '.join(args.metrics)}, "
          f"n_jobs={args.n_jobs}", flush=True)

    def top10():
        np.argpartition(-scores, 10, axis=1)

    results = {}
    for ties in args.ties:
        def ours(ties=ties):
            sklearn_rank.evaluate(relevant, scores, metrics=args.metrics, ties=ties, n_jobs=args.n_jobs)

        ours(), top10()  # warm-up
        times = {"ours": [], "argpartition": []}
        for _ in range(args.repeat):
            for label, call in (("ours", ours), ("argpartition", top10)):
                start = time.perf_counter()
                call()
                times[label].append(time.perf_counter() - start)
        a, b = _best(times["ours"]), _best(times["argpartition"])
        results[ties] = {"evaluate_s": a, "argpartition_s": b, "ratio": a / b}
        print(f"ties={ties:12s} evaluate {a * 1e3:7.1f} ms   argpartition {b * 1e3:7.1f} ms   "
              f"ratio {a / b:5.2f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"users": args.users, "items": args.items, "metrics": args.metrics,
                                               "n_jobs": args.n_jobs, "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
