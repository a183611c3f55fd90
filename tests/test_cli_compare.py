"""``sklearn-rank compare`` with several metrics, and the zero differences it reports (issue 21, items 6, 7).

Oracles: :mod:`sklearn_rank.stats` on reports made by :func:`sklearn_rank.io.evaluate_trec` (the
command line's numbers are that API's), and Holm's step-down adjustment by a slow loop written here.
"""

import csv
import io
import json
import warnings

import numpy as np
import pytest

from sklearn_rank import cli
from sklearn_rank.io import evaluate_trec
from sklearn_rank.stats import DegenerateDataWarning, compare


def run_main(capsys, *args):
    code = cli.main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def footers(text, start="(p-values adjusted with "):
    """The footer under each table of compare's text output, its wrapped lines joined: (lines, joined).

    With another ``start``, the notes under the tables that begin so (``"("``: every footer and note).
    """
    lines, found = text.splitlines(), []
    for i, line in enumerate(lines):
        if line.startswith(start):
            end = i + 1
            while end < len(lines) and lines[end].startswith(" ") and not lines[end - 1].endswith(")"):
                end += 1
            found.append((lines[i:end], " ".join(part.strip() for part in lines[i:end])))
    return found


def _runs(tmp_path, n_runs=3, n_queries=15, seed=11):
    """Qrels and ``n_runs`` runs of increasing noise, as TREC files."""
    rng = np.random.default_rng(seed)
    qrels_lines, runs = [], [[] for _ in range(n_runs)]
    for q in range(n_queries):
        for d in range(10):
            relevant = int(d < 3)
            qrels_lines.append(f"q{q} 0 d{d} {relevant}")
            for r, lines in enumerate(runs):
                lines.append(f"q{q} Q0 d{d} 0 {relevant * 2.0 + rng.normal(0, 0.5 + r):.6f} R{r}")
    paths = [tmp_path / "qrels"] + [tmp_path / f"r{r}.run" for r in range(n_runs)]
    for path, lines in zip(paths, [qrels_lines] + runs):
        path.write_text("\n".join(lines) + "\n")
    return paths


def holm(pvalues):
    """Holm's adjusted p-values by the definition: max over the smaller ones of (m - rank) p, capped at 1."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def _expected(paths, metrics, test="wilcoxon", **options):
    """Per metric, the stats API's result of every pair of runs (in the command line's order)."""
    qrels, *runs = paths
    reports = {f"R{r}": evaluate_trec(qrels, run, metrics=list(metrics), missing="zero")
               for r, run in enumerate(runs)}
    names = list(reports)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)  # runs with mostly equal values: said elsewhere
        return reports, {metric: [(a, b, compare(reports[a], reports[b], metric=metric, test=test, **options))
                                  for a, b in pairs] for metric in metrics}


def test_every_metric_is_tested_with_one_correction_over_all_comparisons_json(tmp_path, capsys):
    paths = _runs(tmp_path)
    metrics = ["ndcg@10", "mrr", "map"]
    code, out, err = run_main(capsys, "compare", *paths, "-m", *metrics, "--format", "json")
    assert code == 0, err
    payload = json.loads(out)
    assert payload["metrics"] == metrics
    assert payload["correction"] == "holm" and payload["n_comparisons"] == 9
    assert [entry["metric"] for entry in payload["results"]] == metrics
    reports, expected = _expected(paths, metrics)
    raw = [result.pvalue for metric in metrics for _, _, result in expected[metric]]
    adjusted = holm(raw)
    rows = [row for entry in payload["results"] for row in entry["comparisons"]]
    assert len(rows) == 9
    for row, (metric, (a, b, result)), p_adjusted in zip(
            rows, [(m, item) for m in metrics for item in expected[m]], adjusted):
        assert (row["a"], row["b"], row["test"]) == (a, b, "wilcoxon")
        assert row["pvalue"] == pytest.approx(result.pvalue, rel=1e-12)
        assert row["statistic"] == pytest.approx(result.statistic, rel=1e-12)
        assert row["pvalue_adjusted"] == pytest.approx(p_adjusted, rel=1e-12)
    # adjusted over all nine, not within each metric's three
    per_metric = [holm([result.pvalue for _, _, result in expected[m]]) for m in metrics]
    assert [row["pvalue_adjusted"] for row in rows] != pytest.approx([p for ps in per_metric for p in ps])
    for entry in payload["results"]:
        for name, mean in entry["means"].items():
            assert mean == pytest.approx(reports[name].summary[entry["metric"]], rel=1e-12)


def test_several_metrics_in_text_give_one_table_each_and_say_how_they_were_corrected(tmp_path, capsys):
    paths = _runs(tmp_path, n_runs=2)
    code, out, err = run_main(capsys, "compare", *paths, "-m", "ndcg@10", "mrr", "--correction", "bonferroni")
    assert code == 0, err
    _, expected = _expected(paths, ["ndcg@10", "mrr"])
    lines = out.splitlines()
    headers = [i for i, line in enumerate(lines) if "(mean over queries)" in line]
    assert [lines[i].split()[0] for i in headers] == ["ndcg@10", "mrr"]
    for i, metric in zip(headers, ["ndcg@10", "mrr"]):
        (a, b, result), = expected[metric]
        cells = lines[i + 2].split()
        assert cells[:3] == [a, b, "wilcoxon"]
        assert float(cells[5]) == pytest.approx(result.pvalue, rel=1e-3)
        assert float(cells[6]) == pytest.approx(min(1.0, 2 * result.pvalue), rel=1e-3)
    # one footer per table, wrapped to an 88-column terminal (it was one line of 150 characters)
    assert [joined for _, joined in footers(out)] == [
        "(p-values adjusted with bonferroni across all 2 comparisons of the 2 metrics; effect: "
        "rank_biserial; win/tie/loss: queries where a is higher, equal, lower)"] * 2
    assert all(len(wrapped) == 2 and max(map(len, wrapped)) <= 88 for wrapped, _ in footers(out))


def test_several_metrics_in_csv_lead_each_row_with_its_metric(tmp_path, capsys):
    paths = _runs(tmp_path)
    code, out, err = run_main(capsys, "compare", *paths, "-m", "mrr", "map", "--format", "csv",
                              "--correction", "fdr_bh")
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    header, body = rows[0], rows[1:]
    assert header[0] == "metric"
    _, single = run_main(capsys, "compare", *paths, "-m", "mrr", "--format", "csv")[:2]
    assert header[1:] == next(csv.reader(io.StringIO(single)))  # the one-metric columns, after the metric
    assert [row[0] for row in body] == ["mrr"] * 3 + ["map"] * 3
    _, expected = _expected(paths, ["mrr", "map"])
    column = header.index("pvalue")
    assert [float(row[column]) for row in body] == pytest.approx(
        [result.pvalue for m in ("mrr", "map") for _, _, result in expected[m]], rel=1e-12)


def test_one_metric_keeps_its_output(tmp_path, capsys):
    paths = _runs(tmp_path)
    code, out, err = run_main(capsys, "compare", *paths, "-m", "mrr", "--format", "json")
    assert code == 0, err
    payload = json.loads(out)
    assert set(payload) == {"metric", "means", "n_undefined", "correction", "comparisons"}
    _, expected = _expected(paths, ["mrr"])
    assert [row["pvalue_adjusted"] for row in payload["comparisons"]] == pytest.approx(
        holm([result.pvalue for _, _, result in expected["mrr"]]), rel=1e-12)
    code, text, err = run_main(capsys, "compare", *paths, "-m", "mrr")
    assert code == 0, err
    assert "across all" not in text
    (wrapped, joined), = footers(text)
    assert joined == ("(p-values adjusted with holm; effect: rank_biserial; win/tie/loss: queries where a is "
                      "higher, equal, lower)")
    assert max(map(len, wrapped)) <= 88


def test_resampling_tests_of_the_first_metric_draw_as_with_that_metric_alone(tmp_path, capsys):
    paths = _runs(tmp_path, n_runs=2)
    options = ("--test", "permutation", "--seed", "4", "--format", "json")
    _, alone, _ = run_main(capsys, "compare", *paths, "-m", "mrr", *options)
    _, both, _ = run_main(capsys, "compare", *paths, "-m", "mrr", "map", *options)
    first = json.loads(both)["results"][0]["comparisons"][0]
    assert first["pvalue"] == json.loads(alone)["comparisons"][0]["pvalue"]


def test_a_metric_named_twice_is_refused(tmp_path, capsys):
    paths = _runs(tmp_path, n_runs=2)
    code, out, err = run_main(capsys, "compare", *paths, "-m", "mrr", "map", "mrr")
    assert code == 2 and out == ""
    assert "mrr" in err and "more than once" in err


@pytest.mark.parametrize("name_a, name_b", [("A", "B"), ("bm25_rm3_tuned_on_robust04", "dense_distilled_v2")])
def test_mostly_zero_differences_are_said_in_the_output_not_in_a_warning(tmp_path, capsys, name_a, name_b):
    # two runs that rank the relevant document first on 12 of 15 queries: most reciprocal ranks are equal
    qrels, run_a, run_b = [], [], []
    for q in range(15):
        for d in range(5):
            qrels.append(f"q{q} 0 d{d} {int(d == 0)}")
            run_a.append(f"q{q} Q0 d{d} 0 {5 - d} {name_a}")
            run_b.append(f"q{q} Q0 d{d} 0 {(5 - d) if q < 12 else d} {name_b}")
    paths = [tmp_path / "qrels", tmp_path / "a.run", tmp_path / "b.run"]
    for path, lines in zip(paths, (qrels, run_a, run_b)):
        path.write_text("\n".join(lines) + "\n")
    code, out, err = run_main(capsys, "compare", *paths, "-m", "mrr")
    assert code == 0 and err == ""
    (wrapped, joined), = footers(out, start=f"({name_a} - {name_b}: ")
    assert "12 of 15 paired differences are zero" in joined and "3/12/0" in out
    assert joined == (f"({name_a} - {name_b}: 12 of 15 paired differences are zero; the Wilcoxon test ranks only "
                      "the other 3)")
    # wrapped to an 88-column terminal as the footer: one line for short run names (87 characters), two
    # for long ones (129)
    assert max(map(len, wrapped)) <= 88 and len(wrapped) == (1 if name_a == "A" else 2)


def test_plot_with_several_metrics_draws_the_first_and_says_so(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    paths = _runs(tmp_path, n_runs=2)
    figure = tmp_path / "pairs.png"
    code, out, err = run_main(capsys, "compare", *paths, "-m", "ndcg@10", "mrr", "--plot", figure)
    assert code == 0, err
    assert figure.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert "--plot draws the first metric, ndcg@10" in err and "mrr" in err
    assert "mrr (mean over queries)" in out  # every metric is still tested


def test_a_group_with_one_query_names_the_group(tmp_path, capsys):
    """The message named an internal expression: "`results['A'].per_query['map']` needs at least two values"."""
    from sklearn_rank.cli import main

    path = tmp_path / "grp.csv"
    path.write_text("sys,qid,score,label\nA,1,0.5,1\nA,1,0.1,0\nB,1,0.4,1\nB,1,0.9,0\nB,2,0.3,1\n")
    code = main(["compare", str(path), "--qid", "qid", "--score", "score", "--label", "label", "--group", "sys",
                 "-m", "map"])
    err = capsys.readouterr().err
    assert code == 2
    assert "at least two queries with a value of map" in err and "group 'A' of --group sys" in err, err
    assert "results[" not in err


def test_outputs_never_replace_an_input_or_each_other(tmp_path, capsys):
    from sklearn_rank.cli import main

    table = tmp_path / "t.csv"
    text = "qid,score,label\n1,0.5,1\n1,0.2,0\n2,0.1,1\n2,0.3,0\n"
    table.write_text(text)
    args = ["evaluate", str(table), "--qid", "qid", "--score", "score", "--label", "label", "-m", "mrr"]
    assert main(args + ["-o", str(table)]) == 2
    assert "-o names a file to write, and must not name an input" in capsys.readouterr().err
    assert table.read_text() == text  # the table was replaced by the report
    same = tmp_path / "out.png"
    assert main(args + ["-o", str(same), "--plot", str(same)]) == 2
    assert "-o and --plot must name different files" in capsys.readouterr().err
    assert not same.exists()


def test_the_table_fits_a_terminal_for_short_run_names(tmp_path, capsys):
    # the run names' columns are as wide as the names: with a fixed 14 characters a row took 113 and the
    # win/tie/loss column wrapped onto its own line in a 100-column terminal
    paths = _runs(tmp_path, n_runs=2)
    code, out, _ = run_main(capsys, "compare", *paths, "-m", "ndcg@10")
    assert code == 0
    header = next(line for line in out.splitlines() if line.startswith("a "))
    rows = [line for line in out.splitlines() if line.startswith("R0 ")]
    assert rows and header.endswith("win/tie/loss") and max(len(header), *map(len, rows)) <= 90
    assert rows[0].split()[:3] == ["R0", "R1", "wilcoxon"]
