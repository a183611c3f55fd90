"""The command line through a real subprocess."""

import json
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


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "sklearn_rank.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def test_console_script_and_module_entry_point_agree(tmp_path):
    qrels, run = _tiny_trec(tmp_path)
    a = run_cli("evaluate", qrels, run, "--format", "json")
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
    # scikit-learn (and with it pandas and scipy.stats) loads on first use of the integration only.
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    run.write_text("q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\n")
    code = ("import sys, sklearn_rank\n"
            "from sklearn_rank import cli\n"
            "sklearn_rank.evaluate([1, 0], [0.5, 0.2], qid=[1, 1])\n"
            f"assert cli.main(['evaluate', {str(qrels)!r}, {str(run)!r}]) == 0\n"
            "loaded = sorted(m for m in ('sklearn', 'scipy.stats') if m in sys.modules)\n"
            "assert not loaded, loaded\n"
            "from sklearn_rank import RankingEvaluator\n"
            "assert 'sklearn' in sys.modules\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
