"""Adversarial pass, round 4 (issue 21's last item): the table edge and the Displays.

Each test is a finding of that pass, and failed before its fix: a silent wrong number, two paths giving two
verdicts for one table, or an error that did not say what came in.
"""

import bz2
import gzip
import json
import zipfile

import numpy as np
import pytest

import sklearn_rank as skr
from sklearn_rank.cli import main

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

GOOD = "qid,score,label\na,0.9,0\na,0.5,1\na,0.1,0\nb,0.2,1\nb,0.8,0\nc,0.3,2\nc,0.3,0\n"


def run(capsys, *args):
    code = main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    return code, out, err


def evaluate_table(capsys, path, *extra, metrics=("mrr",)):
    return run(capsys, "evaluate", path, "--qid", "qid", "--score", "score", "--label", "label", "-m", *metrics,
               "--format", "json", *extra)


def frame():
    return pd.DataFrame({"qid": ["a", "a", "a", "b", "b", "c", "c"], "score": [0.9, 0.5, 0.1, 0.2, 0.8, 0.3, 0.3],
                         "label": [0, 1, 0, 1, 0, 2, 0]})


# ------------------------------------------------------------------------------- integers beyond 2**53
BIG = 2 ** 60


@pytest.mark.parametrize("rest", ["a,0.5,0", "a,,0"], ids=["a fraction", "a missing score under omit"])
def test_csv_integer_scores_beyond_2_53_beside_a_non_integer_are_refused(tmp_path, capsys, rest):
    """A column of integer scores above 2**53 with one fraction (or one empty cell, NaN under omit) was read as
    float64, which tied 2**60 + 1 and 2**60: mrr 0.75 instead of 1.0, exit 0."""
    path = tmp_path / "t.csv"
    path.write_text(f"qid,score,label\na,{BIG + 1},1\na,{BIG},0\n{rest}\nb,1,1\nb,0,0\n")
    code, out, err = evaluate_table(capsys, path, "--nan-policy", "omit")
    assert code == 2 and out == "", out
    assert f"{path}:2: --score column 'score'" in err and "beyond 2**53" in err and str(BIG + 1) in err, err


def test_csv_integer_scores_beyond_2_53_refused_when_a_later_chunk_holds_a_fraction(tmp_path, capsys, monkeypatch):
    """The first chunk of rows was read as exact integers, a later one as floats: finish() turned the integers
    into float64 without a word."""
    from sklearn_rank.io import _tables

    monkeypatch.setattr(_tables, "_CHUNK_ROWS", 2)
    path = tmp_path / "t.csv"
    path.write_text(f"qid,score,label\na,{BIG + 1},1\na,{BIG},0\nb,0.5,1\nb,0.25,0\n")
    code, out, err = evaluate_table(capsys, path)
    assert code == 2 and out == "", out
    assert f"{path}:2: --score column 'score'" in err and "beyond 2**53" in err, err


def test_csv_large_integers_that_float64_holds_exactly_are_accepted(tmp_path, capsys):
    """Only a loss is refused: 2**60 and 2**61 are float64 values, a fraction beside them changes nothing."""
    path = tmp_path / "t.csv"
    path.write_text(f"qid,score,label\na,{2 ** 61},1\na,{BIG},0\na,0.5,0\n")
    code, out, err = evaluate_table(capsys, path)
    assert code == 0, err
    assert json.loads(out)["summary"]["mrr"] == 1.0


# ------------------------------------------------------------------------------- compressed tables
def _gzip(path, text):
    with gzip.open(path, "wt") as handle:
        handle.write(text)


def _bz2(path, text):
    with bz2.open(path, "wt") as handle:
        handle.write(text)


def _zip(path, text):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("t.csv", text)


@pytest.mark.parametrize("name, write, kind", [("t.csv.gz", _gzip, "gzip"), ("t.tsv.bz2", _bz2, "bzip2"),
                                               ("t.zip", _zip, "zip")])
def test_a_compressed_table_is_named_as_compressed(tmp_path, capsys, name, write, kind):
    """`t.csv.gz` said "the table must be UTF-8 text. Got the bytes b'\\x8b' instead": true, and no help."""
    path = tmp_path / name
    write(path, GOOD)
    code, out, err = evaluate_table(capsys, path)
    assert code == 2 and out == ""
    assert err.startswith(f"sklearn-rank: error: {path}: ") and f"{kind}-compressed" in err, err
    assert "decompress" in err, err


def test_a_parquet_file_with_a_csv_name_is_named(tmp_path, capsys):
    path = tmp_path / "t.csv"
    pq.write_table(pa.Table.from_pandas(frame(), preserve_index=False), path)
    code, out, err = evaluate_table(capsys, path)
    assert code == 2 and "Parquet" in err and ".parquet" in err, err


# ------------------------------------------------------------------------------- blank query ids
BLANK_RULE = "column 'qid' must not hold missing values"


def blank_frame():
    data = frame()
    data["qid"] = ["a", "a", "a", " ", " ", "c", "c"]
    return data


def write(data, path):
    if path.suffix == ".csv":
        data.to_csv(path, index=False)
    elif path.suffix == ".tsv":
        data.to_csv(path, index=False, sep="\t")
    elif path.suffix == ".jsonl":
        data.to_json(path, orient="records", lines=True)
    else:
        pq.write_table(pa.Table.from_pandas(data, preserve_index=False), path)
    return path


@pytest.mark.parametrize("suffix, extra", [(".csv", ()), (".tsv", ()), (".jsonl", ()), (".parquet", ()),
                                           (".parquet", ("--stream",))],
                         ids=["csv", "tsv", "jsonl", "parquet", "parquet-stream"])
def test_a_blank_qid_is_a_missing_id_on_the_command_line(tmp_path, capsys, suffix, extra):
    """A qid cell holding a space looks empty, and became a query of its own (exit 0, 3 queries) on every path,
    where an empty cell is refused."""
    path = write(blank_frame(), tmp_path / f"t{suffix}")
    code, out, err = evaluate_table(capsys, path, *extra)
    assert code == 2 and out == "", out
    assert f"--qid {BLANK_RULE}" in err and "a blank id ' '" in err and str(path) in err, err


def test_a_blank_group_is_refused_by_compare(tmp_path, capsys):
    rows = "".join(f"{q},{s},{l},A\n{q},{s},{l},B\n" for q, s, l in frame().itertuples(index=False))
    path = tmp_path / "g.csv"
    path.write_text("qid,score,label,run\n" + rows.replace("a,0.9,0,B", "a,0.9,0,  "))
    code, out, err = run(capsys, "compare", path, "--qid", "qid", "--score", "score", "--label", "label",
                         "--group", "run", "-m", "mrr")
    assert code == 2 and f"{path}:3: --group column 'run' must not hold missing values" in err, err


@pytest.mark.parametrize("source", ["arrow", "pandas", "numpy-strings"])
def test_a_blank_qid_is_a_missing_id_in_evaluate_batches(source):
    data = blank_frame()
    if source == "arrow":
        batches = pa.Table.from_pandas(data, preserve_index=False)
    elif source == "pandas":
        batches = [data]
    else:
        batches = [pa.RecordBatch.from_pydict({"qid": np.array(data["qid"], dtype="U1"),
                                               "score": data["score"], "label": data["label"]})]
    with pytest.raises(ValueError, match=f"batch 0, row 3: `qid` {BLANK_RULE}.*Got a blank id ' ' instead"):
        skr.evaluate_batches(batches, metrics=["mrr"])


def test_a_blank_qid_is_a_missing_id_in_dask():
    dd = pytest.importorskip("dask.dataframe")
    import sklearn_rank.dask as skd

    with pytest.raises(ValueError, match=f"`qid` {BLANK_RULE}.*Got a blank id ' ' instead"):
        skd.evaluate(dd.from_pandas(blank_frame(), npartitions=2, sort=False), metrics=["mrr"])


def test_a_blank_qid_in_a_numpy_string_array_is_a_missing_id():
    from sklearn_rank import _columns

    roles = _columns.resolve({"qid": "q"})
    for values in (np.array(["a", "\t", "b"]), np.array([b"a", b" ", b"b"])):
        with pytest.raises(ValueError, match="Got a blank id"):
            _columns.check(roles, "qid", values, where=lambda i: f"row {i}")


# ------------------------------------------------------------------------------- dates and times as scores
def dated(tz=None):
    data = frame()
    data["score"] = pd.to_datetime(["2020-01-09", "2020-01-05", "2020-01-01", "2020-01-02", "2020-01-08",
                                    "2020-01-03", "2020-01-03"]).as_unit("us")
    if tz is not None:
        data["score"] = data["score"].dt.tz_localize(tz)
    return data


def by_day():
    return frame().assign(score=[9, 5, 1, 2, 8, 3, 3])


METRICS = ["mrr", "map", "ndcg@3"]


def expected_summary():
    data = by_day()
    return skr.evaluate(data["label"].to_numpy(), data["score"].to_numpy(), qid=data["qid"].to_numpy(),
                        metrics=METRICS).summary


@pytest.mark.parametrize("tz", [None, "Europe/Paris"])
def test_date_scores_rank_as_their_ticks_from_pandas_as_from_arrow(tz):
    """Dates and times rank as their ticks from Arrow (the command line, evaluate_batches of Arrow); a pandas
    frame of the same column was refused ("Got values of type datetime64[us] instead")."""
    data = dated(tz)
    arrow = skr.evaluate_batches(pa.Table.from_pandas(data, preserve_index=False), metrics=METRICS)
    frames = skr.evaluate_batches([data], metrics=METRICS)
    assert arrow.summary == frames.summary == expected_summary()


def test_date_scores_in_dask_rank_as_their_ticks():
    dd = pytest.importorskip("dask.dataframe")
    import sklearn_rank.dask as skd

    report = skd.evaluate(dd.from_pandas(dated(), npartitions=3, sort=False), metrics=METRICS)
    assert report.summary == expected_summary()


def test_a_missing_time_is_a_missing_score_from_pandas():
    data = dated()
    data.loc[2, "score"] = pd.NaT  # a non-relevant row: NaN under nan_policy="omit"
    with pytest.raises(ValueError, match="`score` column 'score' must hold numbers, not NaN or missing values"):
        skr.evaluate_batches([data], metrics=METRICS)
    omitted = skr.evaluate_batches([data], metrics=METRICS, nan_policy="omit")
    arrow = skr.evaluate_batches(pa.Table.from_pandas(data, preserve_index=False), metrics=METRICS,
                                 nan_policy="omit")
    assert omitted.summary == arrow.summary


def test_date_labels_are_still_refused_from_pandas():
    data = dated().rename(columns={"score": "when", "label": "grade"}).assign(score=frame()["score"])
    with pytest.raises(TypeError, match="`label` column 'when' must hold numbers"):
        skr.evaluate_batches([data], metrics=METRICS, label="when")


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_spark_date_and_timestamp_scores_rank_as_their_ticks(spark):
    """Spark refused a DateType score from its schema ("Got the Spark type date"), the Arrow paths rank it."""
    from sklearn_rank import spark as skr_spark

    data = dated()
    for column in (data["score"].dt.date, data["score"]):
        sdf = spark.createDataFrame(data.assign(score=column))
        assert skr_spark.evaluate(sdf, metrics=METRICS).summary == pytest.approx(expected_summary(), rel=1e-15)


# ------------------------------------------------------------------------------- Dask's text columns
def test_dask_numbers_turned_into_text_name_dasks_conversion():
    """An object column of numbers (a None among floats, Decimals) becomes a string column in Dask (its
    dataframe.convert-string setting): the error said "Got text ('0.9') instead" and nothing of why."""
    dd = pytest.importorskip("dask.dataframe")
    import sklearn_rank.dask as skd

    data = frame().astype({"score": object})
    data.loc[2, "score"] = None
    ddf = dd.from_pandas(data, npartitions=2, sort=False)
    with pytest.raises(TypeError, match=r"`score` column 'score' must hold numbers\. Got text \(Dask's string "
                                        r"dtype.*convert-string.*astype\(float\)"):
        skd.evaluate(ddf, metrics=["mrr"], nan_policy="omit")


# ------------------------------------------------------------------------------- compare --group
def test_compare_group_names_the_group_an_evaluation_refused(tmp_path, capsys):
    """A group whose queries have no relevant item stopped compare with the engine's message alone: which of the
    groups, the user could not tell."""
    rows = "".join(f"{q},{s},{l},A\n" for q, s, l in frame().itertuples(index=False))
    rows += "a,0.9,0,B\na,0.1,0,B\nb,0.5,0,B\n"
    path = tmp_path / "g.csv"
    path.write_text("qid,score,label,run\n" + rows)
    code, out, err = run(capsys, "compare", path, "--qid", "qid", "--score", "score", "--label", "label",
                         "--group", "run", "-m", "mrr")
    assert code == 2 and out == ""
    assert err.startswith(f"sklearn-rank: error: {path}: group 'B' of --group run: No query has a relevant item"), err
