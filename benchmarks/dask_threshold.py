"""Is a no-shuffle path for threshold metrics (MRR) faster than sklearn_rank.dask's shuffle by qid?

Issue 14 asks to offer a path without the shuffle for the metrics that need only counts against a
per-query threshold (MRR, hits@k, mean rank) if it measures faster. The cheapest such path is two
passes over the rows without moving them: a group-by maximum of the relevant scores per query (the
threshold), broadcast back to every partition, then a group-by sum of the candidates above and tied
with it. This script times it against ``sklearn_rank.dask.evaluate`` (shuffle, then the engine per
partition) and against collecting the rows and evaluating them in one process, on Parquet files
whose rows of each query are scattered over every file, on a local cluster of two worker processes.
The prototype's MRR (mid rank of the first relevant item, ``ties="realistic"``) is checked against
the engine's before any time is reported.

    python benchmarks/dask_threshold.py --queries 100000 --candidates 20 --files 8
"""

import argparse
import logging
import os
import tempfile
import time

import numpy as np


def write_parquet(folder, n_queries, n_candidates, n_files, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), n_candidates)
    frame = pd.DataFrame({"qid": qid, "score": rng.integers(0, 1000, qid.size).astype(np.float64),
                          "label": (rng.random(qid.size) < 0.1).astype(np.int64)})
    frame = frame.iloc[rng.permutation(len(frame))]  # every query's rows over every file
    for i, piece in enumerate(np.array_split(np.arange(len(frame)), n_files)):
        frame.iloc[piece].to_parquet(os.path.join(folder, f"part-{i:03d}.parquet"), index=False)
    return qid.size


def _counts(partition, threshold):
    """Per query of one partition: candidates above the threshold, non-relevant ones tied with it."""
    joined = partition.join(threshold, on="qid", how="inner")
    return joined.assign(above=joined["score"] > joined["threshold"],
                         tied=(joined["score"] == joined["threshold"]) & (joined["label"] <= 0)
                         ).groupby("qid")[["above", "tied"]].sum().reset_index()


def mrr_without_shuffle(ddf):
    """MRR (realistic ties) from a per-query threshold sent to every partition: no row changes partition.

    The threshold (one float per query with a relevant item) comes to the driver and goes out to the
    partitions as an argument. (The same written with ``ddf.merge(threshold, broadcast=True)`` and a
    ``groupby("qid")`` on the result returned one group per query and partition, not per query, from
    16 partitions on, in dask 2026.1.1 and 2026.8.0: a silently wrong MRR.)
    """
    import pandas as pd

    threshold = ddf[ddf["label"] > 0].groupby("qid")["score"].max().to_frame("threshold").compute()
    meta = pd.DataFrame({"qid": pd.Series(dtype=np.int64), "above": pd.Series(dtype=np.int64),
                         "tied": pd.Series(dtype=np.int64)})
    counts = ddf.map_partitions(_counts, threshold, meta=meta).groupby("qid").sum().compute().sort_index()
    assert len(counts) == len(threshold), (len(counts), len(threshold))
    optimistic = counts["above"].to_numpy() + 1.0
    pessimistic = optimistic + counts["tied"].to_numpy()
    return float(np.mean(2.0 / (optimistic + pessimistic)))


def best_of(function, repeat):
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return min(times), value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--candidates", type=int, default=20)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import dask
    import dask.dataframe as dd
    import distributed

    import sklearn_rank
    import sklearn_rank.dask

    with tempfile.TemporaryDirectory() as folder, \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                     silence_logs=logging.ERROR) as cluster, distributed.Client(cluster):
        n_rows = write_parquet(folder, args.queries, args.candidates, args.files)
        ddf = dd.read_parquet(folder)
        options = dict(metrics=["mrr"], ties="realistic")

        def shuffled():
            return sklearn_rank.dask.evaluate(ddf, **options).summary["mrr"]

        def collected():
            frame = ddf.compute()
            return sklearn_rank.evaluate(frame["label"].to_numpy(), frame["score"].to_numpy(),
                                         qid=frame["qid"].to_numpy(), **options).summary["mrr"]

        results = {}
        for name, function in [("shuffle by qid + engine (sklearn_rank.dask)", shuffled),
                               ("no shuffle: threshold broadcast + counts", lambda: mrr_without_shuffle(ddf)),
                               ("collect to one process + evaluate", collected)]:
            results[name] = best_of(function, args.repeat)
        values = [value for _, value in results.values()]
        assert np.allclose(values, values[0], rtol=1e-12, atol=0), values  # the same MRR by every path
        print(f"{n_rows:,} rows ({args.queries:,} queries x {args.candidates}) in {args.files} Parquet files; "
              f"dask {dask.__version__}, LocalCluster(n_workers=2, threads_per_worker=1, processes=True); "
              f"best of {args.repeat}")
        for name, (seconds, value) in results.items():
            print(f"  {name:<45} {seconds:7.2f} s   mrr={value:.12f}")


if __name__ == "__main__":
    main()
