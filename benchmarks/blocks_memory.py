"""``evaluate_blocks`` on a 20,000 x 20,000 score matrix made 500 users at a time: its memory peak.

A 64-factor model (``U @ V.T``, float32) scores 500 users at a time; each user has 5 held-out relevant
items and about 1.5% of the items as training interactions, filtered by a sparse ``exclude``. The
generator makes one block of scores (40 MB) at a time. tracemalloc (which sees NumPy's allocations)
reports the peak of everything allocated during the evaluation, the generator's blocks included; the
issue's target is at most 4 blocks of scores.

    python benchmarks/blocks_memory.py [--users 20000] [--items 20000] [--block 500]
"""

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import sklearn_rank  # noqa: E402

METRICS = ["ndcg@10", "hits@10", "p@10", "r@10", "map@10", "mrr"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20_000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--block", type=int, default=500)
    parser.add_argument("--ties", default="expected")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    U = rng.standard_normal((args.users, 64), dtype=np.float32)
    V = rng.standard_normal((args.items, 64), dtype=np.float32)
    test_cols = np.argsort(rng.random((args.users, args.items // 100)), axis=1)[:, :5] * 100
    test = sp.csr_array((np.ones(test_cols.size), test_cols.ravel(), np.arange(0, test_cols.size + 1, 5)),
                        shape=(args.users, args.items))
    train = sp.random_array((args.users, args.items), density=0.015, format="coo", rng=rng)
    cells = train.row.astype(np.int64) * args.items + train.col
    held_out = np.isin(cells, test_cols.ravel() + np.repeat(np.arange(args.users) * args.items, 5))
    keep = ~held_out  # a held-out item is never a training interaction
    train = sp.csr_array((np.ones(keep.sum(), dtype=bool), (train.row[keep], train.col[keep])),
                         shape=(args.users, args.items))
    block_bytes = args.block * args.items * 4

    def blocks():
        for i in range(0, args.users, args.block):
            j = min(i + args.block, args.users)
            yield test[i:j], U[i:j] @ V.T, train[i:j]

    tracemalloc.start()
    start = time.perf_counter()
    report = sklearn_rank.evaluate_blocks(blocks(), metrics=METRICS, ties=args.ties)
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"{args.users:,} x {args.items:,} in blocks of {args.block} users ({block_bytes / 2**20:.0f} MiB of "
          f"float32 scores each), ties={args.ties}: {seconds:.1f} s, peak {peak / 2**20:.0f} MiB = "
          f"{peak / block_bytes:.2f} blocks of scores (target: at most 4)")
    print({name: round(value, 6) for name, value in report.summary.items()})


if __name__ == "__main__":
    main()
