"""The command line: in this process (``cli.main``), and through a real process where the process is what is
tested (both entry points, exit codes and one-line errors and warnings on a real standard error, the csv
module's default field limit, what a fresh interpreter imports)."""

import contextlib
import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sklearn_rank import evaluate
from sklearn_rank.io import evaluate_trec

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "trec_eval"
needs_conformance = pytest.mark.skipif(
    not (CONFORMANCE / "qrels.test").exists(),
    reason=f"trec_eval conformance data not found at {CONFORMANCE} (it lives in the project's shared/ folder)",
)


def run_process(*args):
    """``python -m sklearn_rank.cli ...`` in a process of its own."""
    return subprocess.run([sys.executable, "-m", "sklearn_rank.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def run_cli(*args):
    """The command line in this process, returned as a finished process would be: the exit code (argparse's
    included), standard output and standard error. (A process of its own costs a second of imports.)"""
    from sklearn_rank.cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exit_:
            code = exit_.code
    return subprocess.CompletedProcess(args, code, stdout.getvalue(), stderr.getvalue())


def test_console_script_and_module_entry_point_agree(tmp_path):
    qrels, run = _tiny_trec(tmp_path)
    a = run_process("evaluate", qrels, run, "--format", "json")
    b = subprocess.run([sys.executable, "-m", "sklearn_rank", "evaluate", str(qrels), str(run), "--format", "json"],
                       capture_output=True, text=True, timeout=300)
    assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stderr)
    assert json.loads(a.stdout) == json.loads(b.stdout)


def _tiny_trec(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 x 1\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 a 1 3.0 r\nq1 Q0 b 2 2.0 r\nq2 Q0 y 1 5.0 r\nq2 Q0 x 2 4.0 r\n")
    return qrels, run


def test_evaluate_trec_json_full_precision_matches_api(tmp_path):
    qrels, run = _tiny_trec(tmp_path)
    out = run_cli("evaluate", qrels, run, "-m", "map", "mrr", "ndcg", "--format", "json", "--per-query")
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    report = evaluate_trec(qrels, run, metrics=["map", "mrr", "ndcg"])
    assert payload["summary"] == report.summary  # exact: json carries every digit
    assert payload["per_query"]["qid"] == ["q1", "q2"]
    # q1: a (rel 1) at 1, c (rel 2) unretrieved -> AP = 1/2; q2: x at rank 2 -> AP = RR = 1/2
    assert payload["summary"]["map"] == 0.5 and payload["summary"]["mrr"] == 0.75


@needs_conformance
def test_evaluate_trec_eval_regression_files(tmp_path):
    out = run_cli("evaluate", CONFORMANCE / "qrels.test", CONFORMANCE / "results.trunc", "-m", "map", "P@10",
                  "--missing", "zero", "--per-query", "--format", "csv")
    assert out.returncode == 0, out.stderr
    rows = {line.split(",")[0]: line.split(",")[1:] for line in out.stdout.strip().splitlines()[1:]}
    expected = {}
    for line in (CONFORMANCE / "out.test.aqc").read_text().splitlines():
        measure, topic, value = line.split()
        if measure in ("map", "P_10"):
            expected[(measure, topic)] = float(value)
    for (measure, topic), value in expected.items():
        got = float(rows[topic][0 if measure == "map" else 1])
        assert got == pytest.approx(value, abs=5e-5), (measure, topic)


def test_evaluate_table_csv_and_output_file(tmp_path):
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(5), 6)
    label = rng.integers(0, 3, qid.size)
    label[::6] = 1
    score = rng.random(qid.size).round(1)
    exclude = np.zeros(qid.size, dtype=bool)
    exclude[(label == 0) & (rng.random(qid.size) < 0.3)] = True
    table = tmp_path / "t.csv"
    lines = ["query,s,y,filtered"] + [f"{q},{s},{y},{str(e).lower()}" for q, s, y, e in zip(qid, score, label, exclude)]
    table.write_text("\n".join(lines) + "\n")
    out_file = tmp_path / "out.json"
    out = run_cli("evaluate", table, "--qid", "query", "--score", "s", "--label", "y", "--exclude-col", "filtered",
                  "-m", "mrr", "ndcg@3", "--format", "json", "-o", out_file)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out_file.read_text())
    expected = evaluate(label, score, qid=qid.astype(str), exclude=exclude, metrics=["mrr", "ndcg@3"])
    assert payload["summary"] == pytest.approx(expected.summary, rel=1e-15)


def _expect_error(out, *fragments):
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    for fragment in fragments:
        assert fragment in out.stderr, (fragment, out.stderr)


@pytest.mark.parametrize("run_text, fragments", [
    ("q1 Q0 a 1 3.0\n", ["run:1", "6 columns"]),
    ("q1 Q0 a 1 3.0 r\nq1 Q0 b 2 high r\n", ["run:2", "score must be a number", "'high'"]),
    ("q1 Q0 a 1 3.0 r\nq1 Q0 a 2 1.0 r\n", ["run:2", "duplicate"]),
    ("", ["run", "empty"]),
    ("# only a comment\n", ["run", "empty"]),
])
def test_malformed_run_files(tmp_path, run_text, fragments):
    qrels, _ = _tiny_trec(tmp_path)
    bad = tmp_path / "run"
    bad.write_text(run_text)
    out_file = tmp_path / "result.txt"
    out = run_cli("evaluate", qrels, bad, "-o", out_file)
    _expect_error(out, *fragments)
    assert not out_file.exists()
    assert not list(tmp_path.glob(".sklearn-rank-*"))


@pytest.mark.parametrize("qrels_text, fragments", [
    ("q1 0 a\n", ["qrels:1", "4 columns"]),
    ("q1 0 a 1\nq1 0 b yes\n", ["qrels:2", "integer"]),
    ("q1 0 a 1\nq1 0 a 0\n", ["qrels:2", "duplicate"]),
    ("", ["qrels", "empty"]),
])
def test_malformed_qrels_files(tmp_path, qrels_text, fragments):
    _, run = _tiny_trec(tmp_path)
    bad = tmp_path / "qrels"
    bad.write_text(qrels_text)
    _expect_error(run_cli("evaluate", bad, run), *fragments)


def test_malformed_tables(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("q,s,y\n1,0.5,1\n1,oops,0\n")
    _expect_error(run_cli("evaluate", table, "--qid", "q", "--score", "s", "--label", "y"), "t.csv:3", "'oops'")
    table.write_text("q,s,y\n1,0.5,1\n1,0.2\n")
    _expect_error(run_cli("evaluate", table, "--qid", "q", "--score", "s", "--label", "y"), "t.csv:3", "columns")
    table.write_text("q,s,y\n1,0.5,1\n")
    _expect_error(run_cli("evaluate", table, "--qid", "q", "--score", "nope", "--label", "y"), "t.csv:1", "'nope'")
    _expect_error(run_cli("evaluate", table, "--score", "s", "--label", "y"), "--qid")


def test_unknown_metric_and_bad_usage(tmp_path):
    qrels, run = _tiny_trec(tmp_path)
    _expect_error(run_cli("evaluate", qrels, run, "-m", "ndgc@10"), "Unknown metric", "ndcg@10")
    _expect_error(run_cli("evaluate", qrels, run, "--ties", "random"), "--ties")
    _expect_error(run_cli("evaluate", qrels, tmp_path / "missing"), "missing")
    _expect_error(run_cli("frobnicate"), "invalid choice")


def _two_runs(tmp_path, n_queries=12):
    rng = np.random.default_rng(5)
    qrels_lines, run_a, run_b = [], [], []
    for q in range(n_queries):
        for d in range(8):
            qrels_lines.append(f"q{q} 0 d{d} {int(d < 2)}")
            good = (8 - d) + rng.normal(0, 1.0)  # relevant docs d0, d1 score higher in run A
            run_a.append(f"q{q} Q0 d{d} 0 {good:.6f} A")
            run_b.append(f"q{q} Q0 d{d} 0 {rng.normal():.6f} B")
    paths = [tmp_path / "qrels", tmp_path / "a.run", tmp_path / "b.run"]
    for path, lines in zip(paths, (qrels_lines, run_a, run_b)):
        path.write_text("\n".join(lines) + "\n")
    return paths


def test_compare_runs_json_matches_stats_api(tmp_path):
    from sklearn_rank.stats import compare

    qrels, a, b = _two_runs(tmp_path)
    out = run_cli("compare", qrels, a, b, "-m", "map", "--format", "json")
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    (row,) = payload["comparisons"]
    assert (row["a"], row["b"], row["test"]) == ("A", "B", "wilcoxon")
    ra = evaluate_trec(qrels, a, metrics=["map"], missing="zero")
    rb = evaluate_trec(qrels, b, metrics=["map"], missing="zero")
    expected = compare(ra, rb, metric="map", test="wilcoxon")
    assert row["pvalue"] == pytest.approx(expected.pvalue, rel=1e-12)
    assert row["statistic"] == pytest.approx(expected.statistic, rel=1e-12)
    assert row["wins"] + row["ties"] + row["losses"] == 12
    assert payload["means"]["A"] == pytest.approx(ra.summary["map"], rel=1e-12)


def test_compare_table_groups_mann_whitney(tmp_path):
    from scipy.stats import mannwhitneyu

    rng = np.random.default_rng(2)
    rows = ["dataset,q,s,y"]
    for group, signal in (("cora", 2.0), ("citeseer", 0.0)):
        for q in range(15):
            for d in range(6):
                y = int(d == 0)
                rows.append(f"{group},{group}-{q},{signal * y + rng.normal():.6f},{y}")
    table = tmp_path / "influence.csv"
    table.write_text("\n".join(rows) + "\n")
    out = run_cli("compare", table, "--group", "dataset", "--qid", "q", "--score", "s", "--label", "y",
                  "-m", "mrr", "--format", "json")
    assert out.returncode == 0, out.stderr
    (row,) = json.loads(out.stdout)["comparisons"]
    assert row["test"] == "mannwhitneyu"
    per_group = {}
    for group in ("citeseer", "cora"):
        lines = [line.split(",") for line in rows[1:] if line.startswith(group + ",")]
        per_group[group] = evaluate(np.array([float(x[3]) for x in lines]), np.array([float(x[2]) for x in lines]),
                                    qid=[x[1] for x in lines], metrics=["mrr"]).per_query["mrr"]
    expected = mannwhitneyu(per_group[row["a"]], per_group[row["b"]], alternative="two-sided")
    assert row["pvalue"] == pytest.approx(expected.pvalue, rel=1e-12)


def test_compare_bad_usage(tmp_path):
    qrels, a, _ = _two_runs(tmp_path)
    _expect_error(run_cli("compare", qrels, a), "compare takes")
    _expect_error(run_cli("compare", qrels, a, a, "--correction", "sidak"), "--correction")


TREC_MEASURES = {
    "map": "map", "recip_rank": "mrr", "ndcg": "ndcg", "ndcg_cut_10": "ndcg@10", "ndcg_cut_20": "ndcg@20",
    "P_5": "p@5", "P_10": "p@10", "P_20": "p@20", "recall_5": "r@5", "recall_10": "r@10",
    "recall_100": "r@100", "Rprec": "rprec", "success_1": "hits@1", "success_5": "hits@5",
    "success_10": "hits@10",
}


@needs_conformance
@pytest.mark.parametrize("run_file, expected_file, extra", [
    ("results.test", "out.test.aq", []),
    ("results.trunc", "out.test.aqc", ["--missing", "zero"]),
])
def test_command_line_matches_trec_eval_per_topic(run_file, expected_file, extra):
    names = list(TREC_MEASURES.values())
    out = run_cli("evaluate", CONFORMANCE / "qrels.test", CONFORMANCE / run_file, "-m", *names, "--per-query",
                  "--format", "json", *extra)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    topics = payload["per_query"]["qid"]
    checked = 0
    for line in (CONFORMANCE / expected_file).read_text().splitlines():
        measure, topic, value = line.split()
        if measure not in TREC_MEASURES:
            continue
        name = TREC_MEASURES[measure]
        got = payload["summary"][name] if topic == "all" else payload["per_query"][name][topics.index(topic)]
        assert got == pytest.approx(float(value), abs=5e-5), (measure, topic)
        checked += 1
    assert checked == 4 * len(TREC_MEASURES)  # three topics and "all"


class _FakeTerminal:
    def __init__(self, tty):
        self.tty, self.text = tty, ""

    def isatty(self):
        return self.tty

    def write(self, text):
        self.text += text

    def flush(self):
        pass


def test_progress_bar_only_on_a_terminal_and_only_after_the_delay():
    from sklearn_rank.cli import Progress

    quiet = Progress("reading", stream=_FakeTerminal(tty=False), delay=0.0)
    quiet.update(5, 10)
    quiet.close()
    assert quiet.stream.text == ""
    fast = Progress("reading", stream=_FakeTerminal(tty=True), delay=3600.0)
    fast.update(5, 10)
    fast.close()
    assert fast.stream.text == ""
    slow = Progress("reading", stream=_FakeTerminal(tty=True), delay=0.0)
    slow.update(5, 10)
    slow.close()
    assert "reading" in slow.stream.text and "50.0%" in slow.stream.text and slow.stream.text.endswith("\n")


def test_readers_report_progress(tmp_path):
    from sklearn_rank.io import read_run

    path = tmp_path / "big.run"
    path.write_text("".join(f"q{i % 7} Q0 d{i} 0 {i}.5 r\n" for i in range(70000)))
    calls = []
    run = read_run(path, progress=lambda done, total: calls.append((done, total)))
    assert len(run) == 70000
    assert calls and all(0 < done <= total == path.stat().st_size for done, total in calls)


def test_the_metric_functions_and_the_command_line_do_not_load_scikit_learn(tmp_path):
    # scikit-learn (and with it pandas and scipy.stats) loads on first use of the integration only; the Spark and
    # Dask modules, with PySpark and Dask, on first use of sklearn_rank.spark and sklearn_rank.dask (one fresh
    # interpreter for these import checks: tests/test_spark.py and tests/test_dask.py each started one)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    run.write_text("q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\n")
    code = ("import sys, sklearn_rank\n"
            "backends = ('sklearn_rank.spark', 'pyspark', 'sklearn_rank.dask', 'dask')\n"
            "assert not [m for m in backends if m in sys.modules], [m for m in backends if m in sys.modules]\n"
            "from sklearn_rank import cli\n"
            "sklearn_rank.evaluate([1, 0], [0.5, 0.2], qid=[1, 1])\n"
            f"assert cli.main(['evaluate', {str(qrels)!r}, {str(run)!r}]) == 0\n"
            "loaded = sorted(m for m in ('sklearn', 'scipy.stats') if m in sys.modules)\n"
            "assert not loaded, loaded\n"
            "from sklearn_rank import RankingEvaluator\n"
            "assert 'sklearn' in sys.modules\n")
    package_root = str(Path(sys.modules["sklearn_rank"].__file__).parents[1])  # the checkout under test
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr


# ------------------------------------------------------------------------------------------------
# Issue 11: no silent wrong number and no traceback on the command line
# ------------------------------------------------------------------------------------------------

def run_module(*args):
    """``python -m sklearn_rank ...``, as a user types it."""
    return subprocess.run([sys.executable, "-m", "sklearn_rank", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def run_main(capsys, *args):
    """The command line in this process: (exit code, stdout, stderr)."""
    from sklearn_rank.cli import main

    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _expect_main_error(result, *fragments):
    code, out, err = result
    assert code == 2, (code, out, err)
    assert out == ""
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def _reciprocal_rank(scores, labels):
    """Oracle: 1 / rank of the best-scored relevant row (scores without ties)."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    return next(1.0 / (rank + 1) for rank, i in enumerate(order) if labels[i] > 0)


TABLE_ARGS = ("--qid", "q", "--score", "s", "--label", "y")


def test_csv_byte_order_mark_is_not_part_of_the_first_column(tmp_path, capsys):
    # item 5: Excel writes UTF-8 CSV with a byte-order mark; the first column was named '\ufeffq'.
    table = tmp_path / "bom.csv"
    table.write_bytes(b"\xef\xbb\xbfq,s,y\nu1,0.9,0\nu1,0.4,1\nu2,0.3,1\nu2,0.1,0\n")
    code, out, err = run_main(capsys, "evaluate", table, *TABLE_ARGS, "-m", "mrr", "--format", "json", "-q")
    assert code == 0, err
    payload = json.loads(out)
    assert payload["per_query"]["qid"] == ["u1", "u2"]
    assert payload["per_query"]["mrr"] == [_reciprocal_rank([0.9, 0.4], [0, 1]), _reciprocal_rank([0.3, 0.1], [1, 0])]
    done = run_module("evaluate", table, *TABLE_ARGS, "-m", "mrr", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["summary"] == {"mrr": 0.75}


def _system_table(path, queries_a, queries_b, seed=7):
    """Two systems ranking (some of) the same queries: one row per (system, query, candidate)."""
    rng = np.random.default_rng(seed)
    rows, per_query = ["system,q,s,y"], {"good": {}, "noisy": {}}
    for system, queries, noise in (("good", queries_a, 0.6), ("noisy", queries_b, 1.5)):
        for q in queries:
            labels = [1, 0, 0, 1, 0, 0, 0]
            scores = [float(f"{v:.9f}") for v in np.array(labels) + rng.normal(0, noise, len(labels))]
            rows += [f"{system},{q},{s!r},{y}" for s, y in zip(scores, labels)]
            per_query[system][q] = _reciprocal_rank(scores, labels)
    path.write_text("\n".join(rows) + "\n")
    return per_query


def test_compare_groups_on_the_same_queries_are_paired_by_query(tmp_path, capsys):
    # item 9: both groups hold the same queries: Wilcoxon on per-query pairs and win/tie/loss per query,
    # not Mann-Whitney over all cross pairs of values.
    from scipy.stats import wilcoxon

    queries = [f"t{i}" for i in range(40)]
    per_query = _system_table(tmp_path / "runs.csv", queries, queries[::-1])
    code, out, err = run_main(capsys, "compare", tmp_path / "runs.csv", "--group", "system", *TABLE_ARGS, "-m", "mrr",
                              "--format", "json")
    assert code == 0, err
    (row,) = json.loads(out)["comparisons"]
    assert (row["a"], row["b"], row["test"], row["paired"]) == ("good", "noisy", "wilcoxon", True)
    a = np.array([per_query["good"][q] for q in queries])
    b = np.array([per_query["noisy"][q] for q in queries])
    expected = wilcoxon(a, b)
    assert row["pvalue"] == pytest.approx(expected.pvalue, rel=1e-12)
    assert row["statistic"] == pytest.approx(expected.statistic, rel=1e-12)
    assert (row["wins"], row["ties"], row["losses"]) == (int((a > b).sum()), int((a == b).sum()), int((a < b).sum()))
    assert (row["n_a"], row["n_left_out"]) == (40, 0)
    # the same through a real process, in the text format
    done = run_process("compare", tmp_path / "runs.csv", "--group", "system", *TABLE_ARGS, "-m", "mrr")
    assert done.returncode == 0, done.stderr
    assert "wilcoxon" in done.stdout and f"{int((a > b).sum())}/{int((a == b).sum())}/{int((a < b).sum())}" in done.stdout


def test_compare_groups_sharing_some_queries_pair_on_those_and_say_how_many_were_left_out(tmp_path, capsys):
    from scipy.stats import wilcoxon

    queries = [f"t{i}" for i in range(30)]
    per_query = _system_table(tmp_path / "runs.csv", queries + ["only-good"], queries[5:] + ["only-noisy-1", "x"])
    code, out, err = run_main(capsys, "compare", tmp_path / "runs.csv", "--group", "system", *TABLE_ARGS, "-m", "mrr",
                              "--format", "json")
    assert code == 0, err
    assert err == ""  # the queries left out are in the output, not in a warning
    (row,) = json.loads(out)["comparisons"]
    shared = queries[5:]
    a = np.array([per_query["good"][q] for q in shared])
    b = np.array([per_query["noisy"][q] for q in shared])
    assert (row["test"], row["n_a"], row["n_b"]) == ("wilcoxon", 25, 25)
    assert row["pvalue"] == pytest.approx(wilcoxon(a, b).pvalue, rel=1e-12)
    # left out: t0..t4 and only-good (6 of good), only-noisy-1 and x (2 of noisy)
    assert (row["n_unpaired_a"], row["n_unpaired_b"], row["n_left_out"]) == (6, 2, 8)
    code, out, err = run_main(capsys, "compare", tmp_path / "runs.csv", "--group", "system", *TABLE_ARGS, "-m", "mrr")
    assert code == 0, err
    header, values = out.splitlines()[1:3]
    assert "left out" in header
    assert values.split()[3:5] == ["25", "8"]  # queries compared, queries left out


def test_csv_field_longer_than_the_csv_module_limit(tmp_path, capsys):
    # item 13: a 200,000-character query id raised _csv.Error (field larger than field limit (131072)).
    long_id = "d" * 200_000
    table = tmp_path / "long.csv"
    table.write_text(f"q,s,y\n{long_id},0.2,0\n{long_id},0.7,1\nshort,0.1,1\nshort,0.5,0\n")
    done = run_process("evaluate", table, *TABLE_ARGS, "-m", "mrr", "--format", "json", "-q")  # the default limit
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["per_query"]["qid"] == [long_id, "short"]
    assert payload["per_query"]["mrr"] == [1.0, 0.5]
    import csv as csv_module

    assert csv_module.field_size_limit() == 131072  # the process-wide setting is restored after reading
    code, out, err = run_main(capsys, "evaluate", table, *TABLE_ARGS, "-m", "mrr")
    assert code == 0, err
    assert csv_module.field_size_limit() == 131072


@pytest.mark.parametrize("body, fragments", [
    # item 14: NaN score, NaN / negative label, an exclude flag on a relevant row (inf is a score)
    ("u1,0.5,1,0\nu1,nan,0,0\n", ["t.csv:3", "'s'", "--score", "nan", "--nan-policy omit"]),
    ("u1,0.5,1,0\nu1,1e999,0,0\n", ["t.csv:3", "'s'", "float64 range", "'1e999'"]),
    ("u1,0.5,1,0\nu1,0.2,NaN,0\n", ["t.csv:3", "'y'", "--label", "nan"]),
    ("u1,0.5,1,0\nu1,0.2,-1,0\n", ["t.csv:3", "'y'", "non-negative", "-1.0"]),
    ("u1,0.5,1,0\nu1,0.2,1,true\n", ["t.csv:3", "'excl'", "--exclude-col", "relevant"]),
    # after a blank line and a quoted field spanning two lines, lines are still counted right
    ('u1,0.5,1,0\n\n"u\n2",0.5,1,0\nu2,0.1,-3,0\n', ["t.csv:6", "'y'", "-3.0"]),
    # numbers are plain ASCII: '1_0' and Arabic-Indic digits are not read as 10 and 1
    ("u1,0.5,1,0\nu1,0.2,1_0,0\n", ["t.csv:3", "'y'", "'1_0'"]),
    ("u1,0.5,1,0\nu1,\u0661,0,0\n", ["t.csv:3", "'s'", "numbers"]),
    ("u1,0.5,1,0\nu1,0.2,0,maybe\n", ["t.csv:3", "'excl'", "flags", "'maybe'"]),
])
def test_bad_table_values_name_file_line_and_column(tmp_path, capsys, body, fragments):
    table = tmp_path / "t.csv"
    table.write_text("q,s,y,excl\n" + body, encoding="utf-8")
    out_file = tmp_path / "out.txt"
    _expect_main_error(run_main(capsys, "evaluate", table, *TABLE_ARGS, "--exclude-col", "excl", "-o", out_file),
                       *fragments)
    assert not out_file.exists()
    assert not list(tmp_path.glob(".sklearn-rank-*"))


def test_bad_table_values_through_a_process(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("q,s,y\nu1,0.5,1\nu1,nan,0\n")
    _expect_error(run_module("evaluate", table, *TABLE_ARGS), "t.csv:3", "'s'", "nan")
    # item 14: bytes that are not UTF-8
    table.write_bytes(b"q,s,y\nu1,0.5,1\nu\xe9,0.2,0\n")
    _expect_error(run_module("evaluate", table, *TABLE_ARGS), "t.csv:3", "UTF-8", "\\xe9")
    # item 14: -o into a folder that does not exist names the output path
    output = tmp_path / "no-such-folder" / "out.json"
    table.write_text("q,s,y\nu1,0.5,1\n")
    _expect_error(run_module("evaluate", table, *TABLE_ARGS, "-o", output), str(output))


def test_non_utf8_csv_names_the_line(tmp_path, capsys):
    table = tmp_path / "latin1.csv"
    lines = ["q,s,y"] + [f"u{i},0.{i},1" for i in range(1, 5000)] + ["caf\u00e9,0.5,1"]
    table.write_bytes(("\n".join(lines) + "\n").encode("latin-1"))
    _expect_main_error(run_main(capsys, "evaluate", table, *TABLE_ARGS), "latin1.csv:5001", "UTF-8", "b'\\xe9'")


def _parquet(path, **columns):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table(columns), path)
    return path


@pytest.mark.parametrize("columns, fragments", [
    (dict(q=["a", "a", "b"], s=[0.5, None, 0.2], y=[1, 0, 1]), ["row 2", "'s'", "null"]),
    (dict(q=["a", None, "b"], s=[0.5, 0.1, 0.2], y=[1, 0, 1]), ["row 2", "'q'", "null"]),
    (dict(q=["a", "a", "b"], s=[0.5, 0.1, 0.2], y=[1, 0, None]), ["row 3", "'y'", "null"]),
    (dict(q=["a", "a", "b"], s=[[0.5], [0.1], [0.2]], y=[1, 0, 1]), ["'s'", "list"]),
    (dict(q=[{"id": 1}, {"id": 1}, {"id": 2}], s=[0.5, 0.1, 0.2], y=[1, 0, 1]), ["'q'", "struct"]),
    (dict(q=["a", "a", "b"], s=["0.5", "0.1", "0.2"], y=[1, 0, 1]), ["'s'", "numbers", "string"]),
    (dict(q=["a", "a", "b"], s=[0.5, float("nan"), 0.2], y=[1, 0, 1]), ["row 2", "'s'", "NaN"]),
    (dict(q=["a", "a", "b"], s=[0.5, 0.1, 0.2], y=[1, -2, 1]), ["row 2", "'y'", "non-negative"]),
])
def test_bad_parquet_values_name_file_row_and_column(tmp_path, capsys, columns, fragments):
    # item 14: Parquet nulls and list/struct columns gave tracebacks or errors without a location
    table = _parquet(tmp_path / "t.parquet", **columns)
    _expect_main_error(run_main(capsys, "evaluate", table, *TABLE_ARGS), "t.parquet", *fragments)


def test_parquet_tables_keep_integer_scores_and_read_dictionary_ids(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    table = _parquet(tmp_path / "t.parquet", q=pa.array(["b", "b", "a", "a"]).dictionary_encode(),
                     s=[2**60, 2**60 + 1, 5, 4], y=[0, 1, 1, 0], excl=[False, False, False, True])
    code, out, err = run_main(capsys, "evaluate", table, *TABLE_ARGS, "--exclude-col", "excl", "-m", "mrr",
                              "--format", "json", "-q")
    assert code == 0, err
    payload = json.loads(out)
    # 2**60 + 1 is above 2**60: float64 would tie them and give b a reciprocal rank of 0.75
    assert payload["per_query"] == {"qid": ["a", "b"], "mrr": [1.0, 1.0]}


def test_csv_integer_scores_keep_every_digit(tmp_path, capsys):
    table = tmp_path / "t.csv"
    table.write_text(f"q,s,y\nu1,{2**60},0\nu1,{2**60 + 1},1\nu2,3,1\nu2,2,0\n")
    code, out, err = run_main(capsys, "evaluate", table, *TABLE_ARGS, "-m", "mrr", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["summary"] == {"mrr": 1.0}


@pytest.mark.parametrize("where", ["missing-folder/out.txt", "a-file/out.txt"])
def test_output_into_a_folder_that_cannot_hold_it_names_the_output(tmp_path, capsys, where):
    # item 14: the error named the hidden temporary file (.sklearn-rank-xxxx), not the path given
    qrels, run = _tiny_trec(tmp_path)
    (tmp_path / "a-file").write_text("not a folder")
    output = tmp_path / where
    code, out, err = run_main(capsys, "evaluate", qrels, run, "-o", output)
    _expect_main_error((code, out, err), str(output))
    assert ".sklearn-rank" not in err


def test_output_file_gets_the_usual_permissions(tmp_path, capsys):
    # item 16: -o forced mode 0600 (tempfile.mkstemp); a new file follows the umask, as any new file.
    qrels, run = _tiny_trec(tmp_path)
    output = tmp_path / "out.txt"
    previous = os.umask(0o022)
    try:
        code, _, err = run_main(capsys, "evaluate", qrels, run, "-o", output)
        assert code == 0, err
        assert stat.S_IMODE(output.stat().st_mode) == 0o644
        # an existing file keeps its permissions, as open(path, "w") would keep them
        output.chmod(0o640)
        code, _, err = run_main(capsys, "evaluate", qrels, run, "-m", "map", "-o", output)
        assert code == 0, err
        assert stat.S_IMODE(output.stat().st_mode) == 0o640
        assert output.read_text().startswith("metric")
        os.umask(0o077)
        other = tmp_path / "private.txt"
        assert run_main(capsys, "evaluate", qrels, run, "-o", other)[0] == 0
        assert stat.S_IMODE(other.stat().st_mode) == 0o600
    finally:
        os.umask(previous)
    assert not list(tmp_path.glob(".sklearn-rank-*"))


def test_json_output_is_standard_json_when_a_statistic_is_infinite(tmp_path, capsys):
    # item 16: a constant non-zero paired difference gives an infinite t statistic; json wrote Infinity.
    rows = ["system,q,s,y"]
    for q in range(6):
        rows += [f"a,q{q},0.9,1", f"a,q{q},0.1,0", f"b,q{q},0.1,1", f"b,q{q},0.9,0"]  # RR 1 against 1/2
    table = tmp_path / "t.csv"
    table.write_text("\n".join(rows) + "\n")
    code, out, err = run_main(capsys, "compare", table, "--group", "system", *TABLE_ARGS, "-m", "mrr",
                              "--test", "ttest", "--format", "json")
    assert code == 0, err

    def refuse(token):
        raise ValueError(f"not standard JSON: {token}")

    (row,) = json.loads(out, parse_constant=refuse)["comparisons"]
    assert row["statistic"] == "Infinity" and row["effect_size"] == "Infinity"
    assert row["estimate"] == 0.5


def test_csv_output_quotes_query_ids(tmp_path, capsys):
    # item 16: a query id "a,b" made a line with one column too many
    import csv as csv_module

    table = tmp_path / "t.csv"
    table.write_text('q,s,y\n"a,b",0.9,1\n"a,b",0.1,0\n"say ""hi""",0.1,1\n"say ""hi""",0.9,0\n')
    code, out, err = run_main(capsys, "evaluate", table, *TABLE_ARGS, "-m", "mrr", "--format", "csv", "-q")
    assert code == 0, err
    rows = list(csv_module.reader(out.splitlines()))
    assert rows == [["qid", "mrr"], ["a,b", "1.0"], ['say "hi"', "0.5"], ["all", "0.75"]]


def test_repeated_header_column_is_refused(tmp_path, capsys):
    # item 16: the first of two 'y' columns was used silently
    table = tmp_path / "t.csv"
    table.write_text("q,s,y,y\nu1,0.9,1,0\nu1,0.1,0,1\n")
    _expect_main_error(run_main(capsys, "evaluate", table, *TABLE_ARGS), "t.csv:1", "'y'", "2 times")
    # a repeated column that is not used is harmless
    table.write_text("q,s,y,note,note\nu1,0.9,1,,\nu1,0.1,0,,\n")
    assert run_main(capsys, "evaluate", table, *TABLE_ARGS)[0] == 0


@pytest.mark.parametrize("option", [["--exclude-col", "filtered"], ["--qid", "q"], ["--score", "s"],
                                    ["--label", "y"]])
def test_table_options_are_refused_for_trec_files(tmp_path, capsys, option):
    # item 16: --exclude-col was silently ignored with TREC files
    qrels, run = _tiny_trec(tmp_path)
    _expect_main_error(run_main(capsys, "evaluate", qrels, run, *option), option[0], "TREC")
    _expect_main_error(run_main(capsys, "compare", qrels, run, run, *option), option[0], "TREC")


def test_ties_trec_is_refused_for_tables(tmp_path, capsys):
    table = tmp_path / "t.csv"
    table.write_text("q,s,y\nu1,0.9,1\nu1,0.9,0\n")
    _expect_main_error(run_main(capsys, "evaluate", table, *TABLE_ARGS, "--ties", "trec"), "--ties trec", "docno")


def _first_relevant_rank(qrels_lines, run_lines):
    """Oracle: rank of the best-ranked relevant document of each run query with judgements, None if none."""
    relevant = {(q, d) for q, _, d, r in (line.split() for line in qrels_lines) if int(r) > 0}
    judged = {line.split()[0] for line in qrels_lines}
    by_query = {}
    for q, _, d, _, score, _ in (line.split() for line in run_lines):
        by_query.setdefault(q, []).append((-float(score), d))
    ranks = {}
    for q, docs in by_query.items():
        if q in judged:
            ordered = [d for _, d in sorted(docs)]
            ranks[q] = next((i + 1 for i, d in enumerate(ordered) if (q, d) in relevant), None)
    for q in judged - set(by_query):
        ranks[q] = None
    return ranks


def test_compare_a_rank_statistic_when_some_queries_have_no_retrieved_relevant_document(tmp_path, capsys):
    # item 15: `compare -m mr` exited 2 whenever a judged query had no retrieved relevant document.
    from scipy.stats import wilcoxon

    rng = np.random.default_rng(15)
    qrels_lines, runs = [], {"A": [], "B": []}
    for q in range(30):
        qrels_lines += [f"q{q} 0 d{d} {int(d == 0)}" for d in range(6)]
        for name, noise in (("A", 1.0), ("B", 3.0)):
            for d in range(6):
                if name == "A" and q < 4 and d == 0:
                    continue  # A never retrieves the relevant document of q0..q3
                if name == "B" and q in (2, 3, 10) and d == 0:
                    continue
                score = (3.0 if d == 0 else 0.0) + rng.normal(0, noise)
                runs[name].append(f"q{q} Q0 d{d} 0 {score:.6f} {name}")
    paths = [tmp_path / "qrels", tmp_path / "a.run", tmp_path / "b.run"]
    for path, lines in zip(paths, (qrels_lines, runs["A"], runs["B"])):
        path.write_text("\n".join(lines) + "\n")
    rank_a = _first_relevant_rank(qrels_lines, runs["A"])
    rank_b = _first_relevant_rank(qrels_lines, runs["B"])
    both = sorted(q for q in rank_a if rank_a[q] is not None and rank_b[q] is not None)
    assert len(both) == 30 - 5  # q0, q1, q2, q3 (A) and q10 (B, and q2, q3) left out
    expected = wilcoxon([rank_a[q] for q in both], [rank_b[q] for q in both])

    code, out, err = run_main(capsys, "compare", *paths, "-m", "mr", "--format", "json")
    assert code == 0, err
    payload = json.loads(out)
    (row,) = payload["comparisons"]
    assert (row["test"], row["n_a"], row["n_left_out"]) == ("wilcoxon", 25, 5)
    assert payload["n_undefined"] == {"A": 4, "B": 3}
    assert row["pvalue"] == pytest.approx(expected.pvalue, rel=1e-12)
    assert row["statistic"] == pytest.approx(expected.statistic, rel=1e-12)
    done = run_module("compare", *paths, "-m", "mr")
    assert done.returncode == 0, done.stderr
    # the note under the table, wrapped to 88 columns as the footer (one line took 117 characters)
    note = done.stdout[done.stdout.index("(mr has no value"):].splitlines()
    joined = " ".join(line.strip() for line in note)
    assert "4 in A, 3 in B" in joined and "left out" in joined
    assert joined == ("(mr has no value for a query whose relevant documents were not retrieved: 4 in A, 3 in B; "
                      "those queries are left out)")
    assert len(note) == 2 and max(map(len, note)) <= 88 and note[1].startswith(" ")
    assert done.stdout.splitlines()[2].split()[3:5] == ["25", "5"]
    # list metrics are 0 for those queries, as in trec_eval: every query is compared
    code, out, err = run_main(capsys, "compare", *paths, "-m", "mrr", "--format", "json")
    assert code == 0, err
    (row,) = json.loads(out)["comparisons"]
    assert (row["n_a"], row["n_left_out"]) == (30, 0)


def test_reading_a_large_csv_table(tmp_path, capsys):
    # more than 65,536 rows: the progress update called tell() on a text file being iterated and the
    # command failed with "sklearn-rank: error: : None"
    rng = np.random.default_rng(3)
    n = 70_000
    qid = rng.integers(0, 2000, n)
    score = rng.random(n).round(6)
    label = rng.integers(0, 2, n)
    table = tmp_path / "big.csv"
    table.write_text("q,s,y\n" + "".join(f"x{q},{s},{y}\n" for q, s, y in zip(qid, score, label)))
    code, out, err = run_main(capsys, "evaluate", table, *TABLE_ARGS, "-m", "mrr", "--format", "json")
    assert code == 0, err
    expected = evaluate(label, score, qid=np.array([f"x{q}" for q in qid]), metrics=["mrr"])
    assert json.loads(out)["summary"]["mrr"] == pytest.approx(expected.summary["mrr"], rel=1e-15)


def test_one_long_query_id_does_not_widen_every_row(tmp_path, capsys):
    # item 20: a 0.15 MiB CSV with one 100,000-character query id peaked at 4.6 GiB (fixed-width numpy
    # strings: every row as wide as the longest). Peak memory must follow the size of the file.
    import tracemalloc

    from sklearn_rank.cli import read_table

    rows = ["q,s,y", "w" * 100_000 + ",0.5,1"] + [f"q{i % 500},{(i % 997) / 997:.4f},{i % 3}" for i in range(4000)]
    table = tmp_path / "wide.csv"
    table.write_text("\n".join(rows) + "\n")
    size = table.stat().st_size
    assert run_main(capsys, "evaluate", table, *TABLE_ARGS, "-m", "mrr")[0] == 0  # imports outside the measure
    tracemalloc.start()
    try:
        code, out, err = run_main(capsys, "evaluate", table, *TABLE_ARGS, "-m", "mrr", "ndcg@10", "-q")
        evaluate_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 0, err
    assert evaluate_peak < 24 * size, evaluate_peak / size
    tracemalloc.start()
    try:
        read = read_table(table, qid="q", score="s", label="y")
        read_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert read_peak < 16 * size, read_peak / size
    # query ids are integer codes into the distinct ids, kept as Python strings (no fixed-width array)
    assert read.qid.dtype.kind == "i" and read.qid_values.dtype == object and read.qid_values.size == 501
    assert max(len(line) for line in out.splitlines()) < 100_100  # the long id's own line, no padding elsewhere
    assert sum(len(line) for line in out.splitlines()) < 2 * size


def test_evaluate_says_how_many_judged_queries_had_no_retrieved_document(tmp_path, capsys, monkeypatch):
    # item 12: RankingReport.n_missing reaches the output (text and JSON)
    from sklearn_rank import cli
    from sklearn_rank._report import RankingReport

    qrels, run = _tiny_trec(tmp_path)

    def fake_evaluate_trec(qrels, run, *, missing, **kwargs):
        n_queries = 2 if missing == "skip" else 5
        return RankingReport({"map": 0.5}, {"qid": np.array(["q1", "q2"]), "map": np.array([0.5, 0.5])}, n_queries,
                             0, {}, n_missing=3)

    monkeypatch.setattr(cli._evaluate, "evaluate_trec", fake_evaluate_trec)  # where the subcommand uses it
    code, out, err = run_main(capsys, "evaluate", qrels, run, "-m", "map")
    assert code == 0, err
    assert "3 judged queries without any retrieved document skipped" in out and "--missing zero" in out
    code, out, err = run_main(capsys, "evaluate", qrels, run, "-m", "map", "--missing", "zero")
    assert "3 judged queries without any retrieved document counted as 0" in out
    code, out, err = run_main(capsys, "evaluate", qrels, run, "-m", "map", "--format", "json")
    assert json.loads(out)["n_missing"] == 3


def test_evaluate_reports_judged_queries_missing_from_the_run(tmp_path, capsys):
    # item 12 end to end: q3 and q4 are judged, the run has no line for them
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\nq3 0 c 1\nq4 0 d 2\nq4 0 e 0\n")
    run.write_text("q1 Q0 a 1 2.0 r\nq2 Q0 x 1 2.0 r\n")
    code, out, err = run_main(capsys, "evaluate", qrels, run, "-m", "map", "--format", "json")
    assert code == 0, err
    payload = json.loads(out)
    assert (payload["n_queries"], payload["n_missing"]) == (2, 2)
    code, out, err = run_main(capsys, "evaluate", qrels, run, "-m", "map")
    assert "2 judged queries without any retrieved document skipped" in out


def test_programming_errors_are_not_reported_as_bad_input(tmp_path, capsys, monkeypatch):
    # cli.main caught every TypeError: a bug became "exit 2" with a one-line message and no traceback.
    from sklearn_rank import cli

    qrels, run = _tiny_trec(tmp_path)
    table = tmp_path / "t.csv"
    table.write_text("q,s,y\nu1,0.9,1\nu1,0.1,0\n")

    def buggy(*args, **kwargs):
        return None + 1

    monkeypatch.setattr(cli._evaluate, "evaluate_trec", buggy)  # where the subcommand uses it
    with pytest.raises(TypeError, match="unsupported operand"):
        cli.main(["evaluate", str(qrels), str(run)])
    # the package's own input errors (a `raise` of its validation) still give exit 2 and one line
    real_evaluate = cli.evaluate

    def mixed_query_ids(y_true, y_score, *, qid, **kwargs):
        return real_evaluate(y_true, y_score, qid=np.array([1, "u"], dtype=object), **kwargs)

    monkeypatch.setattr(cli._evaluate, "evaluate", mixed_query_ids)
    _expect_main_error(run_main(capsys, "evaluate", table, *TABLE_ARGS), "`qid`", "instead")


def test_warnings_take_one_line(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\n")
    run.write_text("q1 Q0 b 1 2.0 r\nq1 Q0 c 2 1.0 r\n")  # the relevant document is never retrieved
    done = run_module("evaluate", qrels, run, "-m", "mr", "map", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["summary"] == {"mr": None, "map": 0.0}  # mr undefined: null, not NaN
    (line,) = done.stderr.splitlines()
    assert line.startswith("sklearn-rank: warning: ") and "'mr'" in line


def test_compare_choices_are_the_stats_choices():
    from sklearn_rank import cli
    from sklearn_rank.stats._validation import CORRECTIONS, TESTS

    assert cli._TESTS == TESTS
    assert cli._CORRECTIONS == tuple("none" if c is None else c for c in CORRECTIONS)


def _grouped_parquet(path, *, shuffled=False, seed=0):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=30)
    q = np.repeat([f"u{i:02d}" for i in rng.permutation(30)], sizes)  # grouped by query, not sorted
    n = q.size
    y = rng.integers(0, 3, size=n) * (rng.random(n) < 0.4)
    s = rng.integers(0, 6, size=n).astype(float)
    s[(y == 0) & (rng.random(n) < 0.15)] = np.nan
    excl = (y == 0) & (rng.random(n) < 0.2)
    order = rng.permutation(n) if shuffled else np.arange(n)
    pq.write_table(pa.table({"q": q[order], "s": pa.array(s[order], from_pandas=True), "y": y[order],
                             "excl": excl[order]}), path)
    return path


def test_evaluate_stream_equals_the_table_reader(tmp_path, capsys, monkeypatch):
    import sklearn_rank.cli as cli

    monkeypatch.setattr(cli._evaluate, "_STREAM_BATCH_ROWS", 7)  # queries split across batches
    table = _grouped_parquet(tmp_path / "t.parquet")  # NaN scores written as nulls
    args = (*TABLE_ARGS, "--exclude-col", "excl", "--nan-policy", "omit", "-m", "mrr", "map", "ndcg@5", "mr",
            "--format", "json", "-q")
    code, whole, err = run_main(capsys, "evaluate", table, *args)
    assert code == 0, err
    code, streamed, err = run_main(capsys, "evaluate", table, *args, "--stream")
    assert code == 0, err
    whole, streamed = json.loads(whole), json.loads(streamed)
    assert streamed["per_query"]["qid"] == whole["per_query"]["qid"]
    for name, value in whole["summary"].items():
        assert streamed["summary"][name] == pytest.approx(value, rel=1e-12, abs=1e-12)
        np.testing.assert_allclose(streamed["per_query"][name], whole["per_query"][name], rtol=1e-12, atol=1e-12)


def test_evaluate_stream_refuses_rows_not_grouped_by_query_and_other_inputs(tmp_path, capsys):
    table = _grouped_parquet(tmp_path / "t.parquet", shuffled=True)
    _expect_main_error(run_main(capsys, "evaluate", table, *TABLE_ARGS, "--nan-policy", "omit", "--stream"),
                       "t.parquet: qid", "appears again at batch 0, row", "ORDER BY qid")
    (tmp_path / "t.csv").write_text("q,s,y\nu,1,1\n")
    _expect_main_error(run_main(capsys, "evaluate", tmp_path / "t.csv", *TABLE_ARGS, "--stream"),
                       "--stream reads Parquet tables", "t.csv")
    _expect_main_error(run_main(capsys, "evaluate", table, "--qid", "q", "--score", "nope", "--label", "y",
                                "--stream"), "t.parquet", "--score must name a column", "'nope'")
    _expect_main_error(run_main(capsys, "evaluate", table, *TABLE_ARGS, "--stream"), "t.parquet", "null")


def test_output_file_is_synced_before_and_after_the_rename(tmp_path, capsys, monkeypatch):
    """Issue 21, item 16: -o was renamed into place without fsync (safe against a kill, not a power loss)."""
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", os.path.realpath(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(src, dst):
        events.append(("replace", os.path.realpath(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    table = tmp_path / "t.csv"
    table.write_text("q,s,y\nu1,0.5,1\nu1,0.2,0\n")
    output = tmp_path / "out.json"
    code, out, err = run_main(capsys, "evaluate", table, *TABLE_ARGS, "-m", "mrr", "--format", "json", "-o", output)
    assert code == 0, err
    assert json.loads(output.read_text())["summary"] == {"mrr": 1.0}
    kinds = [kind for kind, _ in events]
    assert kinds == ["fsync", "replace", "fsync"], events
    assert os.path.basename(events[0][1]).startswith(".sklearn-rank-")  # the temporary file, before the rename
    assert events[2][1] == os.path.realpath(tmp_path)  # then its folder
