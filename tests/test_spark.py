"""sklearn_rank.spark: the in-memory engine's numbers on a Spark DataFrame, and Spark's own evaluator beside them.

One local Spark session (``local[2]``, 4 shuffle partitions, Arrow batches of 16 rows) serves the module, so
queries are scattered over partitions and cross batch boundaries; the worker's chunk size is lowered in some
cases so that queries also cross chunk boundaries. The oracle is :func:`sklearn_rank.evaluate` on the same
rows in memory (itself checked against brute force elsewhere), and for the metrics Spark has, Spark's own
``RankingEvaluator`` / ``RankingMetrics``.
"""

import doctest
import math
import sys
import warnings

import numpy as np
import pytest

import sklearn_rank as skr
from sklearn_rank import spark as skr_spark

pd = pytest.importorskip("pandas")

pytestmark = [pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
              pytest.mark.filterwarnings("ignore:Deprecated in 3.0.0. Use SparkSession:FutureWarning")]

METRICS = ["mrr", "map", "map@5", "ndcg", "ndcg@5", "dcg@3", "p@3", "r@5", "f1@3", "hits@1", "rprec", "auc",
           "bpref", "rbp", "err@5", "judged@5", "mr", "gmr", "median_rank", "rank_std", "count", "amri", "zmrr",
           "ahits@3"]


# The `spark` fixture (tests/conftest.py): one session per process, with the settings this module relies on.


def frame(seed, n_queries=30, qid_kind="int"):
    """Grouped rows in a scattered order: graded labels, many tied scores, queries without a relevant item,
    per-query weights, exclusion and unjudged flags."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 20, size=n_queries)
    codes = np.repeat(rng.permutation(n_queries), sizes)
    label = rng.integers(0, 4, size=codes.size) * (rng.random(codes.size) < 0.4)
    label[codes == codes[0]] = 0  # at least one query without a relevant item
    score = rng.integers(0, 5, size=codes.size).astype(float)
    weight = rng.uniform(0.2, 3.0, size=n_queries)[codes]
    if qid_kind == "int":
        qid = codes * 7 + 1000
    elif qid_kind == "string":
        qid = np.array([f"q{code:03d}" for code in codes], dtype=object)
    else:  # consecutive ids beyond 2**53, which a double cannot tell apart
        qid = np.int64(2**60) + codes.astype(np.int64)
    order = rng.permutation(codes.size)
    return pd.DataFrame({"qid": qid[order], "score": score[order], "label": label[order].astype(np.int64),
                         "weight": weight[order],
                         "excluded": ((label == 0) & (rng.random(codes.size) < 0.2))[order],
                         "unjudged": ((label == 0) & (rng.random(codes.size) < 0.3))[order]})


def in_memory(pdf, metrics, columns=(), **options):
    rows = {"qid": pdf["qid"].to_numpy()}
    for name, column in [("sample_weight", "weight"), ("exclude", "excluded"), ("unjudged", "unjudged")]:
        if name in columns:
            rows[name] = pdf[column].to_numpy()
    return skr.evaluate(pdf["label"].to_numpy(), pdf["score"].to_numpy(), metrics=metrics, **rows, **options)


def assert_same(got, expected):
    assert got.summary.keys() == expected.summary.keys()
    for name, value in expected.summary.items():
        assert got.summary[name] == pytest.approx(value, rel=1e-12, abs=1e-12, nan_ok=True), name
    assert got.per_query["qid"].dtype == expected.per_query["qid"].dtype
    np.testing.assert_array_equal(got.per_query["qid"], expected.per_query["qid"])
    for name, values in expected.per_query.items():
        if name == "qid":
            continue
        np.testing.assert_allclose(got.per_query[name], values, rtol=1e-12, atol=1e-12, err_msg=name)
    assert (got.n_queries, got.n_skipped, got.params) == (expected.n_queries, expected.n_skipped, expected.params)


CASES = {
    "defaults": dict(),
    "weights-exclude-unjudged": dict(columns=("sample_weight", "exclude", "unjudged"), ties="realistic"),
    "targets-all": dict(targets="all", ties="pessimistic", columns=("exclude",)),
    "spark-convention": dict(convention="spark"),  # ordinal ties: the DataFrame's row order
    "string-qids": dict(qid_kind="string", no_relevant="zero", gain="exponential", relevance_level=2),
    "qids-beyond-2**53": dict(qid_kind="big", ties="ordinal", columns=("sample_weight",)),
}


@pytest.mark.parametrize("case, chunk_rows", [(case, 7) for case in CASES] + [("defaults", None),
                                                                               ("weights-exclude-unjudged", None)])
def test_equal_to_in_memory(spark, monkeypatch, case, chunk_rows):
    if chunk_rows is not None:  # queries cross chunk boundaries inside a partition, not only batches
        monkeypatch.setattr(skr_spark, "_CHUNK_ROWS", chunk_rows)
    options = dict(CASES[case])
    columns = options.pop("columns", ())
    pdf = frame(len(case) + (chunk_rows or 0), qid_kind=options.pop("qid_kind", "int"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", skr.UndefinedMetricWarning)
        expected = in_memory(pdf, METRICS, columns, **options)
        got = skr_spark.evaluate(
            spark.createDataFrame(pdf), metrics=METRICS,
            sample_weight="weight" if "sample_weight" in columns else None,
            exclude="excluded" if "exclude" in columns else None,
            unjudged="unjudged" if "unjudged" in columns else None, **options)
    assert_same(got, expected)


def test_qids_beyond_2_53_stay_apart(spark):
    pdf = pd.DataFrame({"qid": np.array([2**60 + 1, 2**60 + 1, 2**60 + 2, 2**60 + 2], dtype=np.int64),
                        "score": [0.9, 0.1, 0.9, 0.1], "label": [1, 0, 0, 1]})
    assert float(2**60 + 1) == float(2**60 + 2)  # what a double would merge
    report = skr_spark.evaluate(spark.createDataFrame(pdf), metrics=["mrr"])
    assert report.per_query["qid"].tolist() == [2**60 + 1, 2**60 + 2]
    assert report.per_query["mrr"].tolist() == [1.0, 0.5]


def test_null_scores_are_nan_scores(spark):
    pdf = frame(3)
    # NaN in pandas, null in Spark; on candidates that are not relevant (nan_policy="omit" excludes them)
    pdf["score"] = pdf["score"].where((np.arange(len(pdf)) % 5 != 0) | (pdf["label"] > 0))
    sdf = spark.createDataFrame(pdf)
    assert sdf.filter(sdf.score.isNull() | sdf.score.isNaN()).count() > 0
    with pytest.raises(ValueError, match="nan_policy"):
        skr_spark.evaluate(sdf, metrics=["mrr"])
    assert_same(skr_spark.evaluate(sdf, metrics=["mrr", "ndcg@5"], nan_policy="omit"),
                in_memory(pdf, ["mrr", "ndcg@5"], nan_policy="omit"))


def test_worker_warnings_reach_the_driver(spark):
    pdf = frame(4)
    with warnings.catch_warnings(record=True) as expected:
        warnings.simplefilter("always")
        in_memory(pdf, ["zhits@30", "mrr"])
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        skr_spark.evaluate(spark.createDataFrame(pdf), metrics=["zhits@30", "mrr"])
    # The kernels warn per part (a message names the part's largest query), the reduction once.
    expected = {str(w.message).split("(")[0] for w in expected if w.category is skr.UndefinedMetricWarning}
    got = {str(w.message).split("(")[0] for w in got if w.category is skr.UndefinedMetricWarning}
    assert any(message.startswith("zhits@30 is undefined where") for message in expected)
    assert got == expected


def test_docstring_example(spark):
    # The example is skipped by --doctest-modules (it needs Java and a session); run it here on ours.
    test = doctest.DocTestFinder().find(skr_spark.evaluate, "evaluate", globs={})[0]
    for example in test.examples:
        example.options.pop(doctest.SKIP, None)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


# ---------------------------------------------------------------- bad input
def test_bad_columns_and_options(spark):
    sdf = spark.createDataFrame(pd.DataFrame({"qid": [1, 1], "score": [0.5, 0.2], "label": [1, 0],
                                              "text": ["a", "b"], "flag": [1, 0]}))
    with pytest.raises(ValueError, match=r"`qid` must name a column of `sdf` \(its columns: \['qid', 'score', "
                                         r"'label', 'text', 'flag'\]\)\. Got 'query' instead\."):
        skr_spark.evaluate(sdf, qid="query")
    with pytest.raises(ValueError, match="`sample_weight` must name a column.*Got 'w' instead"):
        skr_spark.evaluate(sdf, sample_weight="w")
    with pytest.raises(TypeError, match="`score` column 'text' must hold numbers. Got the Spark type string instead"):
        skr_spark.evaluate(sdf, score="text")
    with pytest.raises(TypeError, match="`exclude` column 'text' must hold true/false flags. Got 'a' "):
        skr_spark.evaluate(sdf, exclude="text")
    with pytest.raises(TypeError, match="`qid` column 'score' must hold integers or strings"):
        skr_spark.evaluate(sdf.selectExpr("array(score) AS score", "score AS s", "label"), qid="score", score="s")
    with pytest.raises(ValueError, match="`judged`.*not supported by a split evaluation"):
        skr_spark.evaluate(sdf, judged=([1], [1]))
    with pytest.raises(ValueError, match="`missing`.*not supported"):
        skr_spark.evaluate(sdf, missing="zero")
    with pytest.raises(TypeError, match="Got tie instead"):
        skr_spark.evaluate(sdf, tie="ordinal")
    with pytest.raises(ValueError, match="ties"):
        skr_spark.evaluate(sdf, ties="random")
    with pytest.raises(TypeError, match="`sdf` must be a pyspark.sql.DataFrame. Got DataFrame instead"):
        skr_spark.evaluate(pd.DataFrame({"qid": [1], "score": [0.5], "label": [1]}))
    with pytest.raises(ValueError, match="must name different columns"):
        skr_spark.evaluate(sdf, label="score")


@pytest.mark.parametrize("chunk_rows", [1, None])
def test_null_query_ids_are_refused(spark, chunk_rows, monkeypatch):
    """Nulls sort first: a chunk of only null ids (chunk_rows=1) and a chunk with others are both refused."""
    if chunk_rows is not None:
        monkeypatch.setattr(skr_spark, "_CHUNK_ROWS", chunk_rows)
    pdf = pd.DataFrame({"qid": pd.array([None, None, 2, 2], dtype="Int64"), "score": [0.5, 0.2, 0.3, 0.1],
                        "label": [1, 0, 1, 0]})
    with pytest.raises(ValueError, match="`qid` column 'qid' must not hold missing values"):
        skr_spark.evaluate(spark.createDataFrame(pdf).coalesce(1))


def test_bad_values_raise_in_the_driver_as_raised_in_the_worker(spark):
    pdf = pd.DataFrame({"qid": [1, 1, 2, 2], "score": [0.5, 0.2, 0.3, 0.1], "label": [1.0, None, 1.0, 0.0],
                        "weight": [1.0, 2.0, 1.0, 1.0]})
    with pytest.raises(ValueError, match="`label` column 'label' must not hold missing values"):
        skr_spark.evaluate(spark.createDataFrame(pdf))
    pdf["label"] = [1.0, 0.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="sample_weight") as caught:  # the engine's own message
        skr.evaluate(pdf["label"], pdf["score"], qid=pdf["qid"], sample_weight=pdf["weight"])
    with pytest.raises(ValueError, match=caught.value.args[0].replace("(", r"\(").replace(")", r"\)")[:40]):
        skr_spark.evaluate(spark.createDataFrame(pdf), sample_weight="weight")
    empty = spark.createDataFrame([], schema="qid long, score double, label long")
    with pytest.raises(ValueError, match="`sdf` must hold at least one row. Got an empty DataFrame instead."):
        skr_spark.evaluate(empty)


@pytest.mark.parametrize("missing", ["pyspark", "pyspark.sql.pandas.utils"])
def test_missing_pyspark_names_the_extra(monkeypatch, missing):
    monkeypatch.setitem(sys.modules, missing, None)
    with pytest.raises(ImportError, match=r'pip install "sklearn-rank\[spark\]"'):
        skr_spark.evaluate(None)


# `import sklearn_rank` loads neither this module nor PySpark: tests/test_cli.py checks it in the fresh interpreter
# of its import checks.


# ---------------------------------------------------------------- Spark's own evaluator, on the metrics it has
def _spark_pairs(seed, n_queries=25):
    """Rows (qid, item, score, label) and Spark's (prediction list, label list) of the same queries.

    Scores are distinct within a query, so the prediction list is the ranking; every label is among the
    predictions (Spark's labels missing from the predictions would be judged items never retrieved, which a
    split evaluation cannot take); one query in five has no label at all.
    """
    rng = np.random.default_rng(seed)
    rows, pairs = [], []
    for q in range(n_queries):
        n = int(rng.integers(1, 15))
        items = rng.choice(100, size=n, replace=False)
        scores = rng.permutation(n).astype(float)
        grades = rng.integers(1, 4, size=n) * (rng.random(n) < 0.35) * (q % 5 != 0)
        ranking = items[np.argsort(-scores)]
        # Spark's graded ideal DCG is the DCG of the label list in the order given: best grade first
        by_grade = np.argsort(-grades, kind="stable")[:int((grades > 0).sum())]
        pairs.append(([float(i) for i in ranking], [float(i) for i in items[by_grade]],
                      [float(g) for g in grades[by_grade]]))
        rows += [(q, int(i), float(sc), int(g)) for i, sc, g in zip(items, scores, grades)]
    return pd.DataFrame(rows, columns=["qid", "item", "score", "label"]), pairs


def test_spark_ranking_evaluator_agrees_under_the_spark_convention(spark):
    from pyspark.ml.evaluation import RankingEvaluator

    pdf, pairs = _spark_pairs(0)
    predictions = spark.createDataFrame([(p, lab) for p, lab, _ in pairs],
                                        schema="prediction array<double>, label array<double>")
    names = {("meanAveragePrecision", 5): "map", ("meanAveragePrecisionAtK", 5): "map@5",
             ("precisionAtK", 5): "p@5", ("recallAtK", 5): "r@5", ("ndcgAtK", 5): "ndcg@5",
             ("ndcgAtK", 20): "ndcg@20", ("precisionAtK", 1): "p@1"}
    expected = {name: RankingEvaluator(metricName=metric, k=k).evaluate(predictions)
                for (metric, k), name in names.items()}
    binary = pdf.assign(label=(pdf["label"] > 0).astype(np.int64))  # RankingEvaluator has no grades
    got = skr_spark.evaluate(spark.createDataFrame(binary), metrics=list(expected), convention="spark").summary
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, rel=1e-12, abs=1e-15), name


def _spark_graded_ndcg(prediction, labels, grades, k):
    """Spark's graded ndcgAt of one query, as its Scala source defines it: gain 2**rel - 1, natural log (which
    cancels), and the "ideal" DCG taken over the label list in the order given (here best grade first)."""
    if not labels:
        return 0.0
    grade_of = dict(zip(labels, grades))
    n = min(max(len(prediction), len(labels)), k)
    dcg = sum((2 ** grade_of.get(prediction[i], 0.0) - 1) / math.log(i + 2) for i in range(min(n, len(prediction))))
    ideal = sum((2 ** grade_of[labels[i]] - 1) / math.log(i + 2) for i in range(min(n, len(labels))))
    return dcg / ideal


def test_spark_graded_ndcg_and_what_pyspark_drops(spark):
    # mllib's RankingMetrics documents graded nDCG (Spark >= 3.4) from (prediction, labels, grades) triples,
    # but PySpark's bridge passes only the first two lists on: from Python the grades are dropped and the
    # result is binary nDCG. sklearn-rank keeps the grades; binarised, it gives PySpark's number.
    from pyspark.mllib.evaluation import RankingMetrics

    pdf, pairs = _spark_pairs(1)
    metrics = RankingMetrics(spark.sparkContext.parallelize(pairs, 2))
    from_pyspark = {"ndcg@3": metrics.ndcgAt(3), "ndcg@10": metrics.ndcgAt(10)}
    binary = pdf.assign(label=(pdf["label"] > 0).astype(np.int64))
    got_binary = skr_spark.evaluate(spark.createDataFrame(binary), metrics=list(from_pyspark),
                                    convention="spark").summary
    got_graded = skr_spark.evaluate(spark.createDataFrame(pdf), metrics=list(from_pyspark),
                                    convention="spark").summary
    for name, value in from_pyspark.items():
        k = int(name.split("@")[1])
        scala = math.fsum(_spark_graded_ndcg(p, lab, rel, k) for p, lab, rel in pairs) / len(pairs)
        assert got_binary[name] == pytest.approx(value, rel=1e-12, abs=1e-15), name
        assert got_graded[name] == pytest.approx(scala, rel=1e-12, abs=1e-15), name
        assert got_graded[name] != pytest.approx(value, rel=1e-6), name  # the grades matter on this data


def test_duplicate_predictions(spark):
    # Spark scores the prediction list [2, 2, 3] against the labels [2]: both 2s are hits, the denominator
    # is the one label, so its AP is (1/1 + 2/2) / 1 = 2.
    from pyspark.ml.evaluation import RankingEvaluator

    prediction, labels = [2.0, 2.0, 3.0], [2.0]
    hits = np.cumsum([p in labels for p in prediction])
    spark_formula = sum(hits[i] / (i + 1) for i, p in enumerate(prediction) if p in labels) / len(labels)
    predictions = spark.createDataFrame([(prediction, labels)], schema="prediction array<double>, label array<double>")
    assert RankingEvaluator(metricName="meanAveragePrecision").evaluate(predictions) == spark_formula
    assert spark_formula > 1
    # sklearn-rank ranks rows: the duplicated item is two relevant candidates and AP stays in [0, 1].
    rows = pd.DataFrame({"qid": [1, 1, 1], "score": [3.0, 2.0, 1.0], "label": [1, 1, 0]})
    got = skr_spark.evaluate(spark.createDataFrame(rows), metrics=["map"], convention="spark").summary["map"]
    precision_at_hits = [1 / 1, 2 / 2]
    assert got == math.fsum(precision_at_hits) / len(precision_at_hits) == 1.0


def test_wide_integer_and_decimal_scores_rank_exactly(spark):
    # 2**60 + 0, 1, 2 are distinct scores: as doubles they would tie (found by review)
    from decimal import Decimal

    from pyspark.sql import types as T

    pdf = frame(11)
    pdf["score"] = (np.int64(2**60) + (np.arange(len(pdf)) % 3)).astype(np.int64)
    with pytest.warns(skr.UndefinedMetricWarning):
        expected = in_memory(pdf, METRICS)
    with pytest.warns(skr.UndefinedMetricWarning):  # the adjusted metrics and AUC of some queries, as in memory
        got = skr_spark.evaluate(spark.createDataFrame(pdf[["qid", "score", "label"]]), metrics=METRICS)
    assert_same(got, expected)
    schema = T.StructType([T.StructField("qid", T.LongType()), T.StructField("score", T.DecimalType(38, 0)),
                           T.StructField("label", T.LongType())])
    rows = [(int(q), Decimal(int(s)), int(y)) for q, s, y in zip(pdf["qid"], pdf["score"], pdf["label"])]
    with pytest.warns(skr.UndefinedMetricWarning):
        got = skr_spark.evaluate(spark.createDataFrame(rows, schema), metrics=METRICS)
    assert_same(got, expected)


def test_a_partition_whose_candidates_are_all_excluded_drops_out(spark):
    pdf = frame(13)
    gone = pdf["qid"] % 2 == 0
    pdf.loc[gone, "excluded"] = True  # every candidate of half the queries (none of them relevant)
    pdf.loc[gone, "label"] = 0
    with pytest.warns(skr.UndefinedMetricWarning):
        expected = in_memory(pdf, METRICS, columns=("exclude",))
    previous = spark.conf.get("spark.sql.shuffle.partitions")
    # 12 partitions of the 30 queries: some hold only excluded candidates, one holds none (each task is a
    # call to a Python worker: the evaluation took 2.5 to 3 s on 40 partitions, 0.9 s on these)
    spark.conf.set("spark.sql.shuffle.partitions", "12")
    try:
        from pyspark.sql import functions as F

        sdf = spark.createDataFrame(pdf)
        by_partition = (sdf.repartition("qid").groupBy(F.spark_partition_id())  # evaluate's partitions
                        .agg(F.min(F.col("excluded").cast("int")).alias("all_excluded")).collect())
        assert sum(row.all_excluded for row in by_partition) >= 1 and len(by_partition) < 12  # this test's case
        with pytest.warns(skr.UndefinedMetricWarning):  # the adjusted metrics of some queries, as in memory
            got = skr_spark.evaluate(sdf, exclude="excluded", metrics=METRICS)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", previous)
    assert_same(got, expected)
    everything = pdf.assign(excluded=True, label=0)
    with pytest.raises(ValueError, match="Every candidate was excluded"):
        skr_spark.evaluate(spark.createDataFrame(everything), exclude="excluded")


# The worker's streaming, called directly on Arrow batches (no Spark): each batch is scanned once and
# each row copied once, whatever the size of the query that runs over many batches.

def _partition_columns():
    from sklearn_rank import _columns

    return _columns.resolve({"qid": "qid", "score": "score", "label": "label", "sample_weight": None,
                             "exclude": None, "unjudged": None})


def _sorted_rows(sizes, seed):
    """Rows sorted by query id, queries of the given sizes (many ties, some without a relevant item)."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(len(sizes)) * 3 + 10, sizes)
    return qid, rng.integers(0, 5, size=qid.size).astype(float), rng.integers(0, 3, size=qid.size)


def _batches(qid, score, label, size):
    pa = pytest.importorskip("pyarrow")
    for lo in range(0, qid.size, size):
        yield pa.RecordBatch.from_pydict({"qid": qid[lo:lo + size], "score": score[lo:lo + size],
                                          "label": label[lo:lo + size]})


def _run_partition(evaluation, qid, score, label, batch_rows, chunk_rows):
    import pickle

    out = []
    for record in skr_spark._evaluate_partition(_batches(qid, score, label, batch_rows), evaluation=evaluation,
                                                columns=_partition_columns(), chunk_rows=chunk_rows):
        kind, payload, _ = pickle.loads(record.column(0)[0].as_py())
        if kind == "error":
            raise payload
        out.append(payload)
    return out


@pytest.mark.parametrize("sizes", [[5000], [3, 4000, 2, 1, 3000, 5], [7] * 500])
def test_the_worker_scans_each_batch_once(sizes, monkeypatch):
    # one query over many batches was recombined and rescanned at every later batch: 1M / 2M / 4M rows in
    # one query took 0.5 / 3.6 / 10.9 s. The rows compared (qid scans) and copied (chunks cut) are counted.
    pc = pytest.importorskip("pyarrow.compute")
    scanned, copied = [], []
    equal = pc.equal
    monkeypatch.setattr(pc, "equal", lambda values, value, *a, **k: scanned.append(len(values)) or
                        equal(values, value, *a, **k))
    cut = skr_spark._cut
    monkeypatch.setattr(skr_spark, "_cut", lambda pa, batches, at: copied.append(at) or cut(pa, batches, at))
    qid, score, label = _sorted_rows(sizes, seed=len(sizes))
    evaluation = skr._engine.plan(metrics=["mrr", "ndcg@5", "ahits@3"])
    parts = _run_partition(evaluation, qid, score, label, batch_rows=10, chunk_rows=100)
    assert sum(scanned) <= qid.size  # each batch at most once
    assert sum(copied) == qid.size  # each row once, in the chunk that evaluates it
    assert sum(part.n_queries for part in parts) == len(sizes)


@pytest.mark.parametrize("batch_rows, chunk_rows", [(10, 100), (1, 7), (64, 1), (1000, 10 ** 6)])
def test_the_worker_gives_the_same_report_for_any_chunk_size(batch_rows, chunk_rows):
    qid, score, label = _sorted_rows([3, 400, 2, 1, 250, 5] + [4] * 60, seed=1)
    metrics = [name.replace("@k", "@10") for name in skr.metric_names()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", skr.UndefinedMetricWarning)
        expected = skr.evaluate(label, score, qid=qid, metrics=metrics)
        evaluation = skr._engine.plan(metrics=metrics)
        got = evaluation.reduce(_run_partition(evaluation, qid, score, label, batch_rows, chunk_rows))
    assert got.summary.keys() == expected.summary.keys()
    for name, value in expected.summary.items():
        assert got.summary[name] == value or (np.isnan(value) and np.isnan(got.summary[name])), name
    for name, values in expected.per_query.items():
        np.testing.assert_array_equal(got.per_query[name], values, err_msg=name)



def test_the_summary_is_identical_whatever_the_partitioning(spark, monkeypatch):
    # Partition independence (DESIGN): 1 or 7 shuffle partitions, chunks of 40 rows or the default, give
    # the in-memory numbers bit for bit on every metric of the registry (pooled in query-id order; the
    # rank tables joined in part order differed by up to 1e-11)
    metrics = [name.replace("@k", "@10") for name in skr.metric_names()]
    pdf = frame(17, n_queries=200)
    sdf = spark.createDataFrame(pdf)
    before = spark.conf.get("spark.sql.shuffle.partitions")
    try:
        for partitions, chunk_rows, targets in ((1, 1 << 20, "first"), (7, 40, "all")):
            spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
            monkeypatch.setattr(skr_spark, "_CHUNK_ROWS", chunk_rows)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", skr.UndefinedMetricWarning)
                expected = in_memory(pdf, metrics, ("sample_weight", "exclude", "unjudged"), targets=targets)
                got = skr_spark.evaluate(sdf, metrics=metrics, sample_weight="weight", exclude="excluded",
                                         unjudged="unjudged", targets=targets)
            differ = {name: (got.summary[name], value) for name, value in expected.summary.items()
                      if not (got.summary[name] == value or (np.isnan(value) and np.isnan(got.summary[name])))}
            assert not differ, (partitions, differ)
            for name, values in expected.per_query.items():
                np.testing.assert_array_equal(got.per_query[name], values, err_msg=f"{name}, {partitions}")
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", before)
