"""One column resolver for every tabular source: the same table gets the same verdict and message on every path.

The same pandas frame goes through the command line (CSV, TSV, JSON Lines, Parquet, and Parquet with
``--stream``), ``evaluate_batches`` (an Arrow table and a pandas frame), ``sklearn_rank.dask.evaluate`` and
``sklearn_rank.spark.evaluate``. A bad table must be refused on every path with the same rule naming the same
role and column (the location differs: a file and line, a batch and row, nothing after a shuffle); a good one
must give the numbers of ``sklearn_rank.evaluate`` on the same rows.
"""

import json
import os
import re
import shutil
import sys

import numpy as np
import pytest

import sklearn_rank as skr
from sklearn_rank.cli import main

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

METRICS = ["mrr", "map", "ndcg@3"]
FLAGS = {"--qid": "qid", "--score": "score", "--label": "label"}
HUGE = 2 ** 62  # ids that differ only beyond 2**53: float64 would merge them


def good_frame():
    return pd.DataFrame({"qid": ["a", "a", "a", "b", "b", "c", "c"],
                         "score": [0.9, 0.5, 0.1, 0.2, 0.8, 0.3, 0.3],
                         "label": [0, 1, 0, 1, 0, 2, 0]})


def cases():
    """(name, frame, columns by role, expected rule or None for a good table)."""
    null_qid = good_frame().astype({"qid": object})
    null_qid.loc[3, "qid"] = None
    null_label = good_frame().astype({"label": float})
    null_label.loc[4, "label"] = np.nan
    text_score = good_frame().astype({"score": str})
    text_score.loc[2, "score"] = "oops"
    huge = good_frame().assign(qid=np.repeat([HUGE + 1, HUGE + 2, HUGE + 3], [3, 2, 2]).astype(np.int64))
    plain = {"qid": "qid", "score": "score", "label": "label"}
    return [
        ("null qid", null_qid, plain, "`qid` column 'qid' must not hold missing values"),
        ("two roles", good_frame(), {"qid": "qid", "score": "label", "label": "label"},
         "`score` and `label` must name different columns: a column cannot play two roles"),
        ("missing column", good_frame(), {"qid": "qid", "score": "nope", "label": "label"},
         "`score` must name a column"),
        ("text scores", text_score, plain, "`score` column 'score' must hold numbers"),
        ("null labels", null_label, plain, "`label` column 'label' must not hold missing values"),
        ("huge ids", huge, plain, None),
        ("good", good_frame(), plain, None),
    ]


CASES = cases()
IDS = [case[0] for case in CASES]


def rule(message):
    """The rule of a message, whichever path said it: flags read as keywords, the location and what was
    found left out (``t.csv:5: --score column 's' must hold numbers. Got 'x' instead.`` -> ``\\`score\\`
    column 's' must hold numbers``)."""
    message = message.strip().splitlines()[0].removeprefix("sklearn-rank: error: ")
    for flag, role in FLAGS.items():
        message = re.sub(rf"{flag}\b", f"`{role}`", message)
    message = message[message.index("`"):]  # the location ends before the role
    message = message.split(". Got ")[0]
    return re.sub(r" (of|in) (the header|the schema|the table|the batches|`ddf`|`sdf`) \(its columns: .*", "",
                  message).split(" (")[0]


def in_memory(frame):
    return skr.evaluate(frame["label"].to_numpy(), frame["score"].to_numpy(), qid=frame["qid"].to_numpy(),
                        metrics=METRICS)


def check_outcome(outcome, expected, frame):
    kind, value = outcome
    if expected is None:
        assert kind == "report", value
        reference = in_memory(frame)
        n_queries, summary = value
        assert n_queries == reference.n_queries == 3
        for name in METRICS:
            assert summary[name] == pytest.approx(reference.summary[name], rel=1e-12, abs=1e-15)
    else:
        assert kind == "error", value
        assert rule(value) == expected, value


# ------------------------------------------------------------------------------- the command line
def write(frame, path):
    suffix = path.suffix
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    elif suffix == ".tsv":
        frame.to_csv(path, index=False, sep="\t")
    elif suffix == ".jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=3)
    return path


def run_cli(capsys, path, columns, *extra):
    args = ["evaluate", str(path), "--qid", columns["qid"], "--score", columns["score"], "--label",
            columns["label"], "-m", *METRICS, "--format", "json", *extra]
    code = main(args)
    out, err = capsys.readouterr()
    if code == 0:
        payload = json.loads(out)
        return "report", (payload["n_queries"], payload["summary"])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (code, out, err)
    return "error", err


@pytest.mark.parametrize("suffix, extra", [(".csv", ()), (".tsv", ()), (".jsonl", ()), (".parquet", ()),
                                           (".parquet", ("--stream",))],
                         ids=["csv", "tsv", "jsonl", "parquet", "parquet-stream"])
@pytest.mark.parametrize("name, frame, columns, expected", CASES, ids=IDS)
def test_command_line(tmp_path, capsys, suffix, extra, name, frame, columns, expected):
    path = write(frame, tmp_path / f"t{suffix}")
    outcome = run_cli(capsys, path, columns, *extra)
    check_outcome(outcome, expected, frame)
    if outcome[0] == "error" and name != "two roles":  # the message says where (two roles: before any reading)
        assert str(path) in outcome[1]


def test_an_empty_qid_cell_is_not_a_query(tmp_path, capsys):
    """Item 1: the empty cell on line 5 was read as a twelfth query id (exit 0, '12 queries evaluated')."""
    path = tmp_path / "t.csv"
    path.write_text("qid,score,label\na,0.9,1\na,0.5,0\nb,0.3,1\n,0.2,0\nb,0.8,0\n")
    outcome = run_cli(capsys, path, {"qid": "qid", "score": "score", "label": "label"})
    assert outcome[0] == "error"
    assert f"{path}:5: --qid column 'qid' must not hold missing values" in outcome[1]
    # the same in `compare --group`: an empty group cell is not a group, an empty qid not a query
    path.write_text("qid,score,label,system\na,0.9,1,x\na,0.5,0,x\nb,0.3,1,\nb,0.2,0,y\n")
    code = main(["compare", str(path), "--qid", "qid", "--score", "score", "--label", "label", "--group", "system"])
    err = capsys.readouterr().err
    assert code == 2 and f"{path}:4: --group column 'system' must not hold missing values" in err


def test_one_column_in_two_roles_never_scores_perfectly(tmp_path, capsys):
    """Item 2: --score label --label label printed MRR, MAP and nDCG of exactly 1.0000 (exit 0)."""
    path = write(good_frame(), tmp_path / "t.csv")
    for columns in ({"qid": "qid", "score": "label", "label": "label"},
                    {"qid": "label", "score": "score", "label": "label"}):
        kind, message = run_cli(capsys, path, columns)
        assert kind == "error" and "must name different columns" in message
    code = main(["compare", str(path), "--qid", "qid", "--score", "label", "--label", "label", "--group", "qid"])
    assert code == 2 and "must name different columns" in capsys.readouterr().err


def test_a_json_array_is_refused_with_the_way_to_write_json_lines(tmp_path, capsys):
    path = tmp_path / "t.json"
    good_frame().to_json(path, orient="records")
    kind, message = run_cli(capsys, path, {"qid": "qid", "score": "score", "label": "label"})
    assert kind == "error" and "JSON Lines" in message and "lines=True" in message
    good_frame().to_json(path, orient="records", lines=True)  # .json holding JSON Lines is read
    kind, (n_queries, summary) = run_cli(capsys, path, {"qid": "qid", "score": "score", "label": "label"})
    assert kind == "report" and summary["mrr"] == pytest.approx(in_memory(good_frame()).summary["mrr"])


def test_a_damaged_parquet_page_under_stream_names_the_file(tmp_path, capsys):
    """Item 11: `sklearn-rank: error: : None` (exit 2): an OSError of pyarrow with no file name or reason."""
    frame = pd.DataFrame({"qid": np.repeat(np.arange(400), 5), "score": np.linspace(0, 1, 2000),
                          "label": np.tile([1, 0, 0, 0, 0], 400)})
    path = write(frame, tmp_path / "t.parquet")
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 200] = os.urandom(200)  # a damaged data page; the footer still reads
    path.write_bytes(bytes(data))
    for extra in (("--stream",), ()):
        kind, message = run_cli(capsys, path, {"qid": "qid", "score": "score", "label": "label"}, *extra)
        assert kind == "error", message
        assert message.startswith(f"sklearn-rank: error: {path}: ") and "None" not in message, message


# ------------------------------------------------------------------------------- evaluate_batches
def api_outcome(call):
    try:
        report = call()
    except (ValueError, TypeError) as exc:
        return "error", str(exc)
    return "report", (report.n_queries, report.summary)


@pytest.mark.parametrize("source", ["arrow", "pandas"])
@pytest.mark.parametrize("name, frame, columns, expected", CASES, ids=IDS)
def test_evaluate_batches(source, name, frame, columns, expected):
    data = pa.Table.from_pandas(frame, preserve_index=False) if source == "arrow" else frame
    batches = data.to_batches(max_chunksize=3) if source == "arrow" else [frame.iloc[:3], frame.iloc[3:]]
    outcome = api_outcome(lambda: skr.evaluate_batches(batches, metrics=METRICS, **columns))
    check_outcome(outcome, expected, frame)


# ------------------------------------------------------------------------------- Dask
@pytest.mark.parametrize("name, frame, columns, expected", CASES, ids=IDS)
def test_dask(name, frame, columns, expected):
    dd = pytest.importorskip("dask.dataframe")
    import sklearn_rank.dask as skd

    ddf = dd.from_pandas(frame, npartitions=2, sort=False)
    check_outcome(api_outcome(lambda: skd.evaluate(ddf, metrics=METRICS, **columns)), expected, frame)


# ------------------------------------------------------------------------------- Spark
@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("Spark needs a Java runtime, and `java` is not on PATH")
    from sklearn_rank import spark as skr_spark

    try:
        skr_spark._import_pyspark()
    except ImportError as error:
        pytest.skip(str(error))
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (SparkSession.builder.master("local[2]").appName("sklearn-rank-columns")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_spark(spark):
    """All the cases in one test: a Spark job costs seconds."""
    from sklearn_rank import spark as skr_spark

    for name, frame, columns, expected in CASES:
        sdf = spark.createDataFrame(frame)
        check_outcome(api_outcome(lambda: skr_spark.evaluate(sdf, metrics=METRICS, **columns)), expected, frame)
