"""``--plot FILE`` on the command line: a valid PNG, drawn from the numbers the command prints.

``demo --plot`` is checked in tests/test_main.py, on the one run of the demo there.
"""

import json

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
import matplotlib.image  # noqa: E402

from sklearn_rank import cli, compute_ranks, evaluate, hits_at_k  # noqa: E402
from sklearn_rank.io import evaluate_trec  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def run_main(capsys, *args):
    code = cli.main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _check_png(path):
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    image = matplotlib.image.imread(path)
    assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
    return image


@pytest.fixture
def figures(monkeypatch):
    """The figures the command line saves, kept for their data."""
    saved = []
    original = cli._save_figure

    def keep(figure, path):
        saved.append(figure)
        original(figure, path)

    for module in (cli._evaluate, cli._compare):  # the subcommands that save these figures
        monkeypatch.setattr(module, "_save_figure", keep)
    return saved


def _trec_files(tmp_path, n_queries=10, n_docs=25, seed=0):
    rng = np.random.default_rng(seed)
    qrels, run_a, run_b = [], [], []
    for q in range(n_queries):
        for d in range(n_docs):
            rel = int(rng.random() < 0.15) * int(rng.integers(1, 3))
            qrels.append(f"q{q} 0 d{d} {rel}")
            if d < n_docs - 3:  # a few judged documents are never retrieved
                run_a.append(f"q{q} Q0 d{d} 0 {round(rng.random() + 0.4 * rel, 1)} A")
                run_b.append(f"q{q} Q0 d{d} 0 {round(rng.random(), 1)} B")
    paths = []
    for name, lines in (("qrels", qrels), ("a.run", run_a), ("b.run", run_b)):
        (tmp_path / name).write_text("\n".join(lines) + "\n")
        paths.append(tmp_path / name)
    return paths


def _table(tmp_path, seed=1):
    rng = np.random.default_rng(seed)
    rows = ["qid,score,label,system"]
    data = []
    for q in range(15):
        labels = (rng.random(20) < 0.2).astype(int)
        for system in ("x", "y"):
            for label in labels:
                score = rng.random() + (0.6 if system == "x" else 0.1) * label
                rows.append(f"q{q},{score},{label},{system}")
                data.append((f"q{q}", score, label, system))
    path = tmp_path / "table.csv"
    path.write_text("\n".join(rows) + "\n")
    return path, data


def test_evaluate_trec_plot(tmp_path, capsys, figures):
    qrels, run, _ = _trec_files(tmp_path)
    out = tmp_path / "evaluate.png"
    code, stdout, err = run_main(capsys, "evaluate", qrels, run, "-m", "hits@10", "--plot", out)
    assert code == 0, err
    _check_png(out)
    (figure,) = figures
    ranks_ax, hits_ax = [ax for ax in figure.axes if ax.get_visible()]
    # the curve is evaluate_trec's hits@k, the same numbers the command prints
    curve = hits_ax.get_lines()[0]
    expected = evaluate_trec(str(qrels), str(run), metrics=[f"hits@{k}" for k in range(1, 23)]).summary
    assert curve.get_xdata().tolist() == list(range(1, 23))
    assert curve.get_ydata().tolist() == list(expected.values())
    assert f"{expected['hits@10']:.4f}" in stdout
    # the histogram: per query, the position of the first relevant document retrieved in trec_eval's order
    # (decreasing score, then decreasing docno), by a loop over queries
    relevant = {tuple(line.split()[::2][:2]) for line in qrels.read_text().splitlines() if int(line.split()[3]) > 0}
    retrieved = {}
    for line in run.read_text().splitlines():
        q, _, doc, _, score, _ = line.split()
        retrieved.setdefault(q, []).append((float(score), doc))
    first_ranks = []
    for q, docs in retrieved.items():
        ordered = sorted(docs, reverse=True)
        hits = [i + 1 for i, (_, doc) in enumerate(ordered) if (q, doc) in relevant]
        if hits:
            first_ranks.append(hits[0])
    heights = [bar.get_height() for bar in ranks_ax.containers[0]]
    assert heights == np.histogram(first_ranks, bins=np.arange(1, 24) - 0.5)[0].tolist()


def test_evaluate_table_plot_matches_the_engine(tmp_path, capsys, figures):
    path, data = _table(tmp_path)
    rows = [row for row in data if row[3] == "x"]
    qid = np.array([r[0] for r in rows])
    score = np.array([r[1] for r in rows])
    label = np.array([r[2] for r in rows], dtype=float)
    (tmp_path / "x.csv").write_text("qid,score,label\n" + "".join(f"{q},{float(s)!r},{lab:g}\n" for q, s, lab in
                                                                  zip(qid, score, label)))
    out = tmp_path / "table.png"
    code, _, err = run_main(capsys, "evaluate", tmp_path / "x.csv", "--qid", "qid", "--score", "score",
                            "--label", "label", "--ties", "pessimistic", "--plot", out)
    assert code == 0, err
    _check_png(out)
    (figure,) = figures
    ranks_ax, hits_ax = [ax for ax in figure.axes if ax.get_visible()]
    curve = hits_ax.get_lines()[0]
    assert curve.get_ydata().tolist() == [hits_at_k(label, score, qid=qid, k=k, ties="pessimistic")
                                          for k in range(1, 21)]
    heights = [bar.get_height() for bar in ranks_ax.containers[0]]
    ranks = compute_ranks(label, score, qid=qid).pessimistic
    assert heights == np.histogram(ranks, bins=np.arange(1, 22) - 0.5)[0].tolist()


def test_compare_plot_trec_and_groups(tmp_path, capsys, figures):
    qrels, run_a, run_b = _trec_files(tmp_path)
    out = tmp_path / "compare.png"
    code, stdout, err = run_main(capsys, "compare", qrels, run_a, run_b, "-m", "map", "--format", "json",
                                 "--plot", out)
    assert code == 0, err
    _check_png(out)
    (figure,) = figures
    (ax,) = [ax for ax in figure.axes if ax.get_visible()]
    offsets = ax.collections[0].get_offsets()
    report_a = evaluate_trec(str(qrels), str(run_a), metrics=["map"], missing="zero")
    report_b = evaluate_trec(str(qrels), str(run_b), metrics=["map"], missing="zero")
    np.testing.assert_array_equal(offsets, np.column_stack([report_a.per_query["map"], report_b.per_query["map"]]))
    record = json.loads(stdout)["comparisons"][0]
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [
        f"A better: {record['wins']}", f"tie: {record['ties']}", f"B better: {record['losses']}"]
    assert legend.get_title().get_text() == f"wilcoxon (paired), p = {record['pvalue']:.3g}"

    path, _ = _table(tmp_path)
    out = tmp_path / "groups.png"
    code, _, err = run_main(capsys, "compare", path, "--qid", "qid", "--score", "score", "--label", "label",
                            "--group", "system", "-m", "mrr", "--plot", out)
    assert code == 0, err
    _check_png(out)


def test_plot_usage_errors(tmp_path, capsys, monkeypatch):
    path, _ = _table(tmp_path)
    parquet = tmp_path / "t.parquet"
    parquet.write_bytes(b"")
    code, out, err = run_main(capsys, "evaluate", parquet, "--stream", "--qid", "qid", "--score", "score",
                              "--label", "label", "--plot", tmp_path / "x.png")
    assert code == 2 and out == "" and "--plot needs the whole table in memory" in err
    assert not (tmp_path / "x.png").exists()
    # no matplotlib: a one-line error naming the extra, before any work
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)
    code, out, err = run_main(capsys, "evaluate", path, "--qid", "qid", "--score", "score", "--label", "label",
                              "--plot", tmp_path / "y.png")
    assert code == 2 and out == "" and "sklearn-rank[plot]" in err and "Traceback" not in err
    assert not (tmp_path / "y.png").exists()


def test_plot_is_written_all_or_nothing(tmp_path, capsys):
    qrels, run, _ = _trec_files(tmp_path)
    code, _, err = run_main(capsys, "evaluate", qrels, run, "--plot", tmp_path / "missing-folder" / "e.png")
    assert code == 2 and "cannot write the output file" in err


def test_table_plot_uses_the_table_report(tmp_path, capsys, figures):
    # the plotted hits@10 is the printed hits@10 (same options, same engine)
    path, data = _table(tmp_path)
    code, stdout, err = run_main(capsys, "evaluate", path, "--qid", "qid", "--score", "score", "--label", "label",
                                 "-m", "hits@10", "--format", "json", "--plot", tmp_path / "t.png")
    assert code == 0, err
    (figure,) = figures
    hits_ax = [ax for ax in figure.axes if ax.get_visible()][1]
    printed = json.loads(stdout)["summary"]["hits@10"]
    assert hits_ax.get_lines()[0].get_ydata()[9] == printed
    qid = np.array([r[0] for r in data])
    # one row per (query, system): the table evaluates both systems' rows as one list per query
    score = np.array([r[1] for r in data])
    label = np.array([r[2] for r in data], dtype=float)
    assert printed == evaluate(label, score, qid=qid, metrics=["hits@10"]).summary["hits@10"]


def test_plot_when_no_relevant_item_was_ranked(tmp_path, capsys, figures):
    # a run that retrieves no relevant document, and a table whose queries have none (--missing zero): the
    # report is printed as without --plot, the figure says why its panels are empty
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d5 1\n")
    (tmp_path / "run").write_text("q1 Q0 d2 1 3 x\nq1 Q0 d3 2 2 x\nq2 Q0 d4 1 3 x\n")
    (tmp_path / "t.csv").write_text("qid,score,label\na,0.1,0\na,0.2,0\nb,0.3,0\n")
    table = ["--qid", "qid", "--score", "score", "--label", "label", "--missing", "zero"]
    for inputs in ([tmp_path / "qrels", tmp_path / "run"], [tmp_path / "t.csv", *table]):
        _, plain, _ = run_main(capsys, "evaluate", *inputs, "-m", "mrr", "hits@2")
        out = tmp_path / "empty.png"
        code, stdout, err = run_main(capsys, "evaluate", *inputs, "-m", "mrr", "hits@2", "--plot", out)
        assert code == 0, err
        assert stdout == plain and "0.0000" in stdout
        _check_png(out)
        ranks_ax, hits_ax = [ax for ax in figures[-1].axes if ax.get_visible()]
        assert not ranks_ax.containers and "no relevant item" in ranks_ax.texts[0].get_text()
    # the TREC curve is still drawn: every k a miss, as evaluate_trec counts it
    trec_figure = figures[0]
    assert trec_figure.axes[1].get_lines()[0].get_ydata().tolist() == [0.0, 0.0]



@pytest.mark.parametrize("test", ["bootstrap", "permutation", "mannwhitneyu"])
def test_compare_plot_legend_gives_the_printed_p_value(tmp_path, capsys, figures, test):
    # three systems: one random generator feeds the table's resampling tests pair after pair, so the figure
    # must show the table's results, not tests drawn again from the seed (an unpaired test: Wilcoxon's).
    # 14 queries: with tied differences and 13 or fewer, scipy's Wilcoxon test runs a 2**n-sample permutation
    # test (2 s each, six of them), with more, the normal approximation
    rng = np.random.default_rng(2)
    rows, mrr = ["qid,system,label,score"], {}
    for system in "xyz":
        for q in range(14):
            scores = rng.random(6)
            rows += [f"Q{q},{system},{int(d == q % 6)},{float(scores[d])!r}" for d in range(6)]
            mrr.setdefault(system, []).append(1 / (1 + np.sum(scores > scores[q % 6])))
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    code, stdout, err = run_main(capsys, "compare", tmp_path / "t.csv", "--group", "system", "--qid", "qid",
                                 "--score", "score", "--label", "label", "-m", "mrr", "--test", test, "--seed", "0",
                                 "--format", "json", "--plot", tmp_path / "c.png")
    assert code == 0, err
    records = json.loads(stdout)["comparisons"]
    axes = [ax for ax in figures[-1].axes if ax.get_visible()]
    assert len(axes) == len(records) == 3
    for ax, record in zip(axes, records):
        title = ax.get_legend().get_title().get_text()
        if test == "mannwhitneyu":
            from scipy.stats import wilcoxon

            assert title == f"wilcoxon (paired), p = {wilcoxon(mrr[record['a']], mrr[record['b']]).pvalue:.3g}"
        else:
            assert title == f"{test} (paired), p = {record['pvalue']:.3g}"


def test_plot_file_name_must_say_png(tmp_path, capsys):
    # the figure is written as PNG bytes whatever the name: another suffix is refused before any work
    qrels, run, _ = _trec_files(tmp_path)
    for name in ("figure.svg", "figure.jpg", "figure"):
        for command in (["evaluate", qrels, run], ["compare", qrels, run, run], ["demo"]):
            code, out, err = run_main(capsys, *command, "--plot", tmp_path / name)
            assert code == 2 and out == "" and "must end in .png" in err and err.rstrip().endswith("instead."), name
            assert not (tmp_path / name).exists()
    # (once: the three names above each drew this figure again)
    code, _, err = run_main(capsys, "evaluate", qrels, run, "--plot", tmp_path / "upper.PNG")
    assert code == 0, err
    _check_png(tmp_path / "upper.PNG")


def test_evaluate_trec_plot_histogram_follows_the_convention_preset(tmp_path, capsys, figures):
    """With --convention sklearn the printed numbers break ties by expectation, and so must the histogram
    (it drew trec_eval's docno order whatever the preset)."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 0\nq1 0 d2 1\n")
    run.write_text("q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 0.5 r\n")  # a tie: d2 first by docno, descending
    heights = {}
    for name, extra in (("trec", ()), ("sklearn", ("--convention", "sklearn"))):
        code, out, err = run_main(capsys, "evaluate", qrels, run, "-m", "mrr", "--plot", tmp_path / f"{name}.png",
                                  *extra)
        assert code == 0, err
        ranks_ax = [ax for ax in figures[-1].axes if ax.get_visible()][0]
        heights[name] = [bar.get_height() for bar in ranks_ax.containers[0]]
    # one relevant document in a two-way tie: rank 1 in docno order; rank 1 or 2 with chance 1/2 each
    assert heights["trec"][:2] == [1.0, 0.0]
    assert heights["sklearn"][:2] == [0.5, 0.5]
