"""Beyond one process (issue 14): the same evaluation from Parquet through every path, time and peak memory.

Paths, each in a fresh child process; memory is the peak resident memory of that process beyond its
own peak after the imports and a warm-up on a tiny input (read from /proc: VmHWM), and for the paths
with other processes (Dask workers, Spark's JVM) their peaks too:

* ``in memory``: the Parquet dataset read whole into NumPy arrays, then ``sklearn_rank.evaluate``;
* ``pyarrow reader alone`` and ``evaluate_batches (pyarrow)``: the files read file by file with
  ``pyarrow.parquet.ParquetFile.iter_batches`` (one thread, no pre-buffering), just iterated, and streamed
  through ``sklearn_rank.evaluate_batches``;
* ``DuckDB reader alone`` and ``evaluate_batches (DuckDB)``: the same with DuckDB's Arrow reader (one
  thread), the issue's reader;
* ``dask``: ``dask.dataframe.read_parquet`` on a ``LocalCluster(n_workers=2, threads_per_worker=1)``, then
  ``sklearn_rank.dask.evaluate``; and ``dask collect``: the same frame collected (``compute()``) and evaluated
  in the driver, the baseline of the issue's "within 2x" target;
* ``spark``: ``spark.read.parquet`` in a ``local[2]`` session, then ``sklearn_rank.spark.evaluate``; and
  ``spark RankingEvaluator``: Spark's own evaluator on the metrics it has (MAP, nDCG@10, precision@10),
  from prediction and label arrays built per query in Spark.

Every path's summary is checked against the in-memory one. The data: ``--queries`` queries of 20
candidates (1,000,000 x 20 = 20 M rows by default), graded relevance, scores rounded to two decimals (ties),
written sorted by query id to a folder of Parquet files in ``--workdir`` (not kept).

    python benchmarks/scaling.py                      # 20 M rows, a few minutes
    python benchmarks/scaling.py --queries 100000     # 2 M rows
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import textwrap

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import log, run_command  # noqa: E402

METRICS = ["mrr", "map", "ndcg@10", "hits@10", "p@10"]
CANDIDATES = 20

_PRELUDE = """
import glob, json, sys, time
import numpy as np
METRICS = {metrics!r}
FOLDER = {folder!r}
def stop_spark(spark):
    # the JVM's peak memory (read before it stops), then stop it and wait for it
    from pyspark import SparkContext
    gateway = SparkContext._gateway
    proc = getattr(gateway, "proc", None)
    jvm_peak = status("VmHWM", proc.pid) if proc is not None else 0
    spark.stop()
    if proc is not None:  # Spark's gateway JVM exits when its standard input closes
        gateway.shutdown()
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=120)
    return jvm_peak
def status(field, pid="self"):
    # VmHWM: the peak resident memory of this process's own address space. (getrusage's ru_maxrss would
    # not do: Linux carries it over fork and exec, so a child started by a large parent reports at least
    # the parent's size.)
    with open("/proc/%s/status" % pid) as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0
BASE = [0]
def mark():
    # the baseline: imports done and the engine warmed up on a tiny input
    BASE[0] = status("VmHWM")
def done(start, summary, others=0):
    print(json.dumps(dict(seconds=time.perf_counter() - start, summary=summary, base=BASE[0],
                          peak=status("VmHWM"), others=others)))
"""

_WARM = "sklearn_rank.evaluate([1, 0], [0.5, 0.2], qid=[1, 1], metrics=METRICS)\nmark()\n"
_FILES = "FILES = sorted(glob.glob(FOLDER + '/*.parquet'))\n"
# pyarrow's reader, file by file, one thread, no pre-buffering: the leanest way to stream Parquet
_PYARROW_BATCHES = """
def batches():
    for path in FILES:
        yield from pq.ParquetFile(path, pre_buffer=False).iter_batches(
            batch_size=1 << 16, columns=["qid", "score", "label"], use_threads=False)
"""
# DuckDB's reader on the files as they are (sorted by query: the insertion order DuckDB keeps by
# default), one thread
_DUCKDB_BATCHES = """
def batches():
    con = duckdb.connect(config={"threads": 1})
    return con.sql(f"SELECT qid, score, label FROM read_parquet('{FOLDER}/*.parquet')").to_arrow_reader(1 << 16)
"""
PATHS = {
    "in memory": "import pyarrow.dataset as ds\nimport sklearn_rank\n" + _WARM + """
start = time.perf_counter()
table = ds.dataset(FOLDER).to_table(columns=["qid", "score", "label"])
arrays = [table.column(name).to_numpy() for name in ("qid", "score", "label")]
del table
report = sklearn_rank.evaluate(arrays[2], arrays[1], qid=arrays[0], metrics=METRICS)
done(start, report.summary)
""",
    "pyarrow reader alone": "import glob\nimport pyarrow.parquet as pq\nimport sklearn_rank\n" + _FILES
    + _PYARROW_BATCHES + _WARM + """
start = time.perf_counter()
rows = sum(batch.num_rows for batch in batches())
done(start, {})
""",
    "evaluate_batches (pyarrow)": "import glob\nimport pyarrow.parquet as pq\nimport sklearn_rank\n" + _FILES
    + _PYARROW_BATCHES + _WARM + """
start = time.perf_counter()
report = sklearn_rank.evaluate_batches(batches(), qid="qid", score="score", label="label", metrics=METRICS)
done(start, report.summary)
""",
    "DuckDB reader alone": "import duckdb\nimport sklearn_rank\n" + _DUCKDB_BATCHES + _WARM + """
start = time.perf_counter()
rows = sum(batch.num_rows for batch in batches())
done(start, {})
""",
    "evaluate_batches (DuckDB)": "import duckdb\nimport sklearn_rank\n" + _DUCKDB_BATCHES + _WARM + """
start = time.perf_counter()
report = sklearn_rank.evaluate_batches(batches(), qid="qid", score="score", label="label", metrics=METRICS)
done(start, report.summary)
""",
    "dask": """
import dask.dataframe as dd
from distributed import Client, LocalCluster
import sklearn_rank.dask
""" + _WARM + """
with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \\
        Client(cluster) as client:
    start = time.perf_counter()
    ddf = dd.read_parquet(FOLDER, columns=["qid", "score", "label"])
    report = sklearn_rank.dask.evaluate(ddf, qid="qid", score="score", label="label", metrics=METRICS)
    seconds = time.perf_counter() - start
    workers = sum(client.run(status, "VmHWM").values())
done(time.perf_counter() - seconds, report.summary, workers)
""",
    "dask collect": """
import dask.dataframe as dd
from distributed import Client, LocalCluster
import sklearn_rank
""" + _WARM + """
with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \\
        Client(cluster) as client:
    start = time.perf_counter()
    frame = dd.read_parquet(FOLDER, columns=["qid", "score", "label"]).compute()
    report = sklearn_rank.evaluate(frame["label"].to_numpy(), frame["score"].to_numpy(), qid=frame["qid"].to_numpy(),
                                   metrics=METRICS)
    seconds = time.perf_counter() - start
    workers = sum(client.run(status, "VmHWM").values())
done(time.perf_counter() - seconds, report.summary, workers)
""",
    "spark": """
from pyspark.sql import SparkSession
import sklearn_rank.spark
""" + _WARM + """
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.driver.memory", "8g").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
start = time.perf_counter()
sdf = spark.read.parquet(FOLDER)
report = sklearn_rank.spark.evaluate(sdf, qid="qid", score="score", label="label", metrics=METRICS)
seconds = time.perf_counter() - start
jvm = stop_spark(spark)
done(time.perf_counter() - seconds, report.summary, jvm)
""",
    "spark RankingEvaluator": """
from pyspark.sql import SparkSession, functions as F
from pyspark.ml.evaluation import RankingEvaluator
import sklearn_rank
""" + _WARM + """
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.driver.memory", "8g").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
start = time.perf_counter()
sdf = spark.read.parquet(FOLDER)
# Spark ranks lists of item ids: the candidates of a query by decreasing score, ties by item id (its rank in
# the file); the relevant items as the label list
rows = sdf.withColumn("item", F.col("item").cast("double"))
per_query = rows.groupBy("qid").agg(
    F.sort_array(F.collect_list(F.struct((-F.col("score")).alias("key"), F.col("item")))).alias("ranked"),
    F.collect_list(F.when(F.col("label") > 0, F.col("item"))).alias("label"),
).select(F.expr("transform(ranked, x -> x.item)").alias("prediction"), "label").cache()
summary = {}
for metric, name in (("meanAveragePrecision", "map"), ("ndcgAtK", "ndcg@10"), ("precisionAtK", "p@10")):
    summary[name] = RankingEvaluator(metricName=metric, k=10).evaluate(per_query)
seconds = time.perf_counter() - start
jvm = stop_spark(spark)
done(time.perf_counter() - seconds, summary, jvm)
""",
}


def write_data(folder, n_queries, seed=0):
    """Graded relevance (0-3), two-decimal scores, sorted by qid, in files of about 2 M rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    per_file = max(1, (2_000_000 // CANDIDATES))
    nbytes = 0
    for number, first in enumerate(range(0, n_queries, per_file)):
        queries = np.arange(first, min(first + per_file, n_queries), dtype=np.int64)
        qid = np.repeat(queries, CANDIDATES)
        label = (rng.random(qid.size) < 0.15) * rng.integers(1, 4, size=qid.size)
        score = np.round(rng.normal(size=qid.size) + 0.8 * label, 2)
        item = np.tile(np.arange(CANDIDATES, dtype=np.int64), queries.size)
        table = pa.table({"qid": qid, "item": item, "score": score, "label": label.astype(np.int8)})
        nbytes += qid.nbytes + score.nbytes + label.astype(np.int8).nbytes
        pq.write_table(table, os.path.join(folder, f"part-{number:04d}.parquet"))
    return nbytes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=1_000_000, help="queries of 20 candidates (default: 1 M)")
    parser.add_argument("--paths", nargs="+", choices=list(PATHS), default=list(PATHS))
    parser.add_argument("--json", help="write the measurements here")
    parser.add_argument("--workdir", default=None, help="where the Parquet folder is written (default: a temp dir)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        folder = os.path.join(tmp, "data")
        nbytes = write_data(folder, args.queries)
        rows = args.queries * CANDIDATES
        log(f"{rows:,} rows ({args.queries:,} queries x {CANDIDATES}); qid, score and label take "
            f"{nbytes / 2**20:,.0f} MiB in memory; metrics {', '.join(METRICS)}")
        results = {}
        for name in args.paths:
            code = textwrap.dedent(_PRELUDE.format(metrics=METRICS, folder=folder)) + textwrap.dedent(PATHS[name])
            wall, out, err, status, _ = run_command([sys.executable, "-c", code])
            if status != 0:
                log(f"  {name:<24} failed (exit {status}): {err.strip().splitlines()[-1] if err.strip() else ''}")
                results[name] = {"error": err[-2000:]}
                continue
            record = json.loads(out.strip().splitlines()[-1])
            record.update(wall=wall)
            results[name] = record
        reference = results.get("in memory", {}).get("summary", {})
        log(f"{'path':<28} {'seconds':>8} {'peak':>8} {'above imports':>14} {'/ data':>7} {'other processes':>16}"
            "  max |diff|")
        for name, record in results.items():
            if "error" in record:
                continue
            # Spark's evaluator reads relevance as binary and breaks ties by item: other numbers by definition
            diffs = [] if name == "spark RankingEvaluator" else [
                abs(value - reference[metric]) for metric, value in record["summary"].items() if metric in reference]
            record["above_imports"] = record["peak"] - record["base"]
            others = f"{record['others'] / 2**20:,.0f} MB" if record["others"] else "-"
            log(f"{name:<28} {record['seconds']:8.1f} {record['peak'] / 2**20:6,.0f} MB "
                f"{record['above_imports'] / 2**20:11,.0f} MB {record['above_imports'] / nbytes:7.0%} {others:>16}"
                f"  {max(diffs) if diffs else float('nan'):.1e}")
        if args.json:
            with open(args.json, "w") as handle:
                json.dump(dict(rows=rows, queries=args.queries, data_bytes=nbytes, metrics=METRICS, results=results),
                          handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
