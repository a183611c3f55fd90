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
def spark(spark):
    """The shared session (tests/conftest.py) with Spark's own defaults for the shuffle and the Arrow batches
    (these cases are about the columns, not the partitioning), and 2 shuffle partitions, while this module runs."""
    settings = {"spark.sql.shuffle.partitions": "2", "spark.sql.adaptive.enabled": "true",
                "spark.sql.execution.arrow.maxRecordsPerBatch": "10000"}
    previous = {key: spark.conf.get(key) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    yield spark
    for key, value in previous.items():
        spark.conf.set(key, value)


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_spark(spark):
    """All the cases in one test: a Spark job costs seconds."""
    from sklearn_rank import spark as skr_spark

    for name, frame, columns, expected in CASES:
        sdf = spark.createDataFrame(frame)
        check_outcome(api_outcome(lambda: skr_spark.evaluate(sdf, metrics=METRICS, **columns)), expected, frame)


# ------------------------------------------------------------------------------- the adversarial pass
PLAIN = {"qid": "qid", "score": "score", "label": "label"}


def test_csv_integer_scores_beyond_int64_stay_exact(tmp_path, capsys):
    """Scores between 2**63 and 2**64 were parsed as float64 and tied (mrr 0.75 instead of 0.5)."""
    path = tmp_path / "u64.csv"
    path.write_text("qid,score,label\n1,9223372036854775812,1\n1,9223372036854775813,0\n")
    kind, (n_queries, summary) = run_cli(capsys, path, PLAIN)
    assert summary["mrr"] == 0.5
    path.write_text("qid,score,label\n1,-1,1\n1,18446744073709551615,0\n")  # no integer type holds both
    kind, message = run_cli(capsys, path, PLAIN)
    assert kind == "error" and "beyond the int64 range" in message
    frame = pd.DataFrame({"qid": [1] * 3, "score": np.array([2**63 + 5, 2**63 + 6, 3], dtype=np.uint64),
                          "label": [1, 0, 0]})
    for suffix in (".csv", ".parquet"):
        assert run_cli(capsys, write(frame, tmp_path / f"t{suffix}"), PLAIN)[1][1]["mrr"] == 0.5


@pytest.mark.parametrize("word", ["NA", "null", "None", "nan", "N/A", "#N/A"])
def test_csv_missing_words_are_missing_values_not_queries(tmp_path, capsys, word):
    path = tmp_path / "t.csv"
    path.write_text(f"qid,score,label\n1,0.5,1\n{word},0.3,1\n{word},0.2,0\n")
    kind, message = run_cli(capsys, path, PLAIN)
    assert kind == "error" and f"{path}:3: --qid column 'qid' must not hold missing values" in message
    path.write_text(f"qid,score,label\n1,0.5,1\n1,{word},0\n2,0.2,1\n")  # a missing score: NaN, then omitted
    assert "--nan-policy omit" in run_cli(capsys, path, PLAIN)[1]
    kind, (n_queries, summary) = run_cli(capsys, path, PLAIN, "--nan-policy", "omit")
    assert summary["mrr"] == 1.0
    path.write_text(f"qid,score,label\n1,0.5,1\n1,0.4,{word}\n")
    expected = "must hold finite relevance values" if word == "nan" else "must not hold missing values"
    assert f"--label column 'label' {expected}" in run_cli(capsys, path, PLAIN)[1]


@pytest.mark.parametrize("role", ["qid", "score", "label"])
@pytest.mark.parametrize("stream", [(), ("--stream",)])
def test_a_parquet_column_of_arrow_type_null_is_a_missing_value(tmp_path, capsys, role, stream):
    """An all-None pandas column is Arrow's null type: a TypeError from inside the resolver (exit 1)."""
    columns = {"qid": pa.array([1, 1]), "score": pa.array([0.5, 0.2]), "label": pa.array([1, 0])}
    columns[role] = pa.array([None, None], pa.null())
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table(columns), path)
    kind, message = run_cli(capsys, path, PLAIN, *stream)
    assert kind == "error"
    assert ("not NaN or missing values" if role == "score" else "must not hold missing values") in message


def test_date_and_time_scores_rank_as_their_ticks(tmp_path, capsys):
    import datetime

    days = [datetime.date(2020, 1, d) for d in (3, 1, 2, 5)]
    for score in (pa.array(days), pa.array([datetime.time(0, d) for d in (3, 1, 2, 5)], pa.time32("s"))):
        path = tmp_path / "t.parquet"
        pq.write_table(pa.table({"qid": [1, 1, 2, 2], "score": score, "label": [0, 1, 1, 0]}), path)
        kind, (n_queries, summary) = run_cli(capsys, path, PLAIN)
        expected = skr.evaluate([0, 1, 1, 0], [3, 1, 2, 5], qid=[1, 1, 2, 2], metrics=METRICS).summary
        assert summary == pytest.approx(expected)


def test_stream_names_the_flag_and_the_table(tmp_path, capsys):
    frame = pd.DataFrame({"qid": np.repeat(np.arange(50), 4), "score": np.linspace(0, 1, 200),
                          "label": np.tile([1.0, 0, 0, 0], 50)})
    nan_score, nan_label = frame.copy(), frame.copy()
    nan_score.loc[150, "score"] = np.nan
    nan_label.loc[150, "label"] = np.inf
    for bad, flag in ((nan_score, "--score"), (nan_label, "--label")):
        path = write(bad, tmp_path / "t.parquet")
        whole, streamed = (run_cli(capsys, path, PLAIN, *extra)[1] for extra in ((), ("--stream",)))
        assert rule(whole) == rule(streamed) and f"{flag} column" in streamed, (whole, streamed)
    empty = write(frame.iloc[:0], tmp_path / "empty.parquet")
    assert run_cli(capsys, empty, PLAIN, "--stream")[1].strip().endswith("the table has no rows.")


def test_true_and_false_labels_and_object_flags(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("qid,score,label\n1,0.5,True\n1,0.7,False\n")
    assert run_cli(capsys, path, PLAIN)[1][1]["mrr"] == 0.5
    frame = pd.DataFrame({"qid": [1, 1, 1], "score": [0.5, 0.7, 0.9], "label": [1, 0, 0],
                          "ex": pd.array([False, False, True], dtype=object)})
    report = skr.evaluate_batches([frame], exclude="ex", metrics=["mrr"])
    assert report.summary["mrr"] == 0.5


def test_a_missing_score_on_an_excluded_row_is_accepted_on_every_path(tmp_path, capsys):
    """The score of an excluded row is never ranked: NaN, null or an empty cell there is accepted everywhere
    (Arrow batches and CSV refused a null or empty cell, pandas accepted NaN)."""
    frame = pd.DataFrame({"qid": [1, 1, 1, 2, 2], "score": [0.5, np.nan, 0.7, 0.1, 0.2], "label": [1, 0, 0, 1, 0],
                          "ex": [False, True, False, False, False]})
    expected = skr.evaluate(frame["label"], frame["score"], qid=frame["qid"], exclude=frame["ex"],
                            metrics=METRICS).summary
    for suffix in (".csv", ".parquet", ".jsonl"):
        kind, (n_queries, summary) = run_cli(capsys, write(frame, tmp_path / f"t{suffix}"), PLAIN,
                                             "--exclude-col", "ex")
        assert summary == pytest.approx(expected), suffix
    arrow = pa.Table.from_pandas(frame, preserve_index=False)
    for batches in ([frame], arrow.to_batches(max_chunksize=2)):
        assert skr.evaluate_batches(batches, exclude="ex", metrics=METRICS).summary == pytest.approx(expected)


def test_object_scores_with_none_under_omit():
    frame = pd.DataFrame({"qid": [1, 1, 1], "score": pd.array([0.5, None, 0.7], dtype=object),
                          "label": [1, 0, 0]})
    expected = skr.evaluate([1, 0], [0.5, 0.7], metrics=["mrr"]).summary
    assert skr.evaluate_batches([frame], metrics=["mrr"], nan_policy="omit").summary == expected
    with pytest.raises(ValueError, match="not NaN or missing values"):
        skr.evaluate_batches([frame], metrics=["mrr"])
    from decimal import Decimal

    decimals = frame.assign(score=pd.array([Decimal("0.5"), Decimal("0.1"), Decimal("0.7")], dtype=object))
    assert skr.evaluate_batches([decimals], metrics=["mrr"]).summary == {"mrr": 0.5}


def test_json_numbers_beyond_2_53_are_refused_with_the_reason(tmp_path, capsys):
    path = tmp_path / "t.jsonl"
    path.write_text('{"qid": 9223372036854775812, "score": 0.5, "label": 1}\n'
                    '{"qid": 9223372036854775813, "score": 0.2, "label": 1}\n')
    kind, message = run_cli(capsys, path, PLAIN)
    assert kind == "error" and "JSON" in message and "2**53" in message
    decimal_ids = tmp_path / "t.parquet"
    import decimal

    ids = pa.array([decimal.Decimal(2**60 + 1), decimal.Decimal(2**60 + 2)], pa.decimal128(38, 0))
    pq.write_table(pa.table({"qid": ids, "score": [0.5, 0.2], "label": [1, 1]}), decimal_ids)
    kind, (n_queries, summary) = run_cli(capsys, decimal_ids, PLAIN)
    assert n_queries == 2  # whole decimals are exact int64 ids (as floats they were one query)


def test_a_json_array_with_a_byte_order_mark_and_an_empty_flag_cell(tmp_path, capsys):
    path = tmp_path / "t.json"
    path.write_bytes(b"\xef\xbb\xbf" + good_frame().to_json(orient="records").encode())
    assert "JSON Lines" in run_cli(capsys, path, PLAIN)[1]
    csv_path = tmp_path / "t.csv"
    csv_path.write_text("qid,score,label,ex\n1,0.5,1,false\n1,0.2,0,\n")
    message = run_cli(capsys, csv_path, PLAIN, "--exclude-col", "ex")[1]
    assert f"{csv_path}:3: --exclude-col column 'ex' must not hold missing values" in message
