"""Tables for a paper: ComparisonResult / ComparisonTable .to_latex() and .to_markdown(), and CITATION.cff."""

import pickle
import re
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import sklearn_rank
from sklearn_rank import evaluate, get_metric
from sklearn_rank.datasets import make_ranking
from sklearn_rank.stats import ComparisonTable, DegenerateDataWarning, compare, compare_many

ROOT = Path(__file__).resolve().parents[1]
METRICS = ["mrr", "ndcg@10", "mr", "hits@1"]


@pytest.fixture(scope="module")
def reports():
    """Four scorers of decreasing quality on the same 40 queries (and one that is as good as the best)."""
    _, y, qid = make_ranking(n_queries=40, n_candidates=30, random_state=0)
    rng = np.random.default_rng(0)
    noise = {"bm25": 3.0, "dense_v2": 1.0, "hybrid": 1.0, "random": 50.0}
    return {name: evaluate(y, y + rng.normal(scale=scale, size=y.size), qid=qid, metrics=METRICS)
            for name, scale in noise.items()}


@pytest.fixture(scope="module")
def tables(reports):
    with warnings.catch_warnings():  # the reciprocal ranks tie on many queries: the tests say so, and count them
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return [compare_many(reports, metric=metric, baseline="bm25", test="ttest") for metric in METRICS]


# ------------------------------------------------------------------------------------------------
# Reading the output back
# ------------------------------------------------------------------------------------------------
def latex_body(latex):
    """The header cells and the body rows (lists of cells) of the one tabular in ``latex``."""
    lines = [line.strip() for line in latex.splitlines()]
    top, mid, bottom = lines.index(r"\toprule"), lines.index(r"\midrule"), lines.index(r"\bottomrule")
    assert mid == top + 2
    split = [re.split(r"(?<!\\)&", line.removesuffix(r"\\")) for line in lines[top + 1:bottom] if line != r"\midrule"]
    for line in lines[top + 1:bottom]:
        assert line == r"\midrule" or line.endswith(r"\\"), line
    return [cell.strip() for cell in split[0]], [[cell.strip() for cell in row] for row in split[1:]]


def markdown_body(markdown):
    lines = markdown.splitlines()
    table = [line for line in lines if line.startswith("|")]
    split = [re.split(r"(?<!\\)\|", line.strip())[1:-1] for line in table]
    assert all(set(cell.strip()) <= set("-:") for cell in split[1])
    return [cell.strip() for cell in split[0]], [[cell.strip() for cell in row] for row in split[2:]]


def braces_balance(latex):
    depth = 0
    for piece in re.sub(r"\\[{}]", "", latex):  # escaped braces are characters, not groups
        depth += {"{": 1, "}": -1}.get(piece, 0)
        if depth < 0:
            return False
    return depth == 0


def latex_cell(cell):
    """``(value as printed, bold, superscript letters)`` of a LaTeX cell."""
    match = re.fullmatch(r"(\\textbf\{)?([-0-9.]+)\}?(?:\\textsuperscript\{([a-z]+)\})?", cell)
    assert match, cell
    return match.group(2), match.group(1) is not None, match.group(3) or ""


def markdown_cell(cell):
    match = re.fullmatch(r"(\*\*)?([-0-9.]+)(?:\*\*)?(?:<sup>([a-z]+)</sup>)?", cell)
    assert match, cell
    return match.group(2), match.group(1) is not None, match.group(3) or ""


# ------------------------------------------------------------------------------------------------
# Structure: one row per system, one column per metric, balanced braces
# ------------------------------------------------------------------------------------------------
def test_latex_has_one_row_per_system_and_one_column_per_metric(reports, tables):
    latex = tables[0].to_latex(*tables[1:])
    header, rows = latex_body(latex)
    assert header[2:] == ["mrr", r"ndcg@10", r"mr $\downarrow$", "hits@1"]
    assert [row[1] for row in rows] == ["bm25", r"dense\_v2", "hybrid", "random"]
    assert [row[0] for row in rows] == ["a", "b", "c", "d"]
    assert all(len(row) == 2 + len(METRICS) for row in rows)
    assert re.search(r"\\begin\{tabular\}\{ll(r+)\}", latex).group(1) == "r" * len(METRICS)
    assert braces_balance(latex)
    assert latex.count(r"\begin{") == latex.count(r"\end{") == 2


def test_markdown_has_one_row_per_system_and_one_column_per_metric(reports, tables):
    markdown = tables[0].to_markdown(*tables[1:])
    header, rows = markdown_body(markdown)
    assert header[2:] == ["mrr", "ndcg@10", "mr ↓", "hits@1"]
    assert [row[1] for row in rows] == ["bm25", r"dense\_v2", "hybrid", "random"]
    assert all(len(row) == 2 + len(METRICS) for row in rows)
    note = markdown.split("\n\n")[-1]
    assert "paired t-test" in note and "Holm's correction" in note and "p < 0.05" in note and "↓" in note


def test_the_values_are_the_reports_summaries(reports, tables):
    _, rows = latex_body(tables[0].to_latex(*tables[1:], digits=6))
    for row, report in zip(rows, reports.values()):
        for cell, metric in zip(row[2:], METRICS):
            assert float(latex_cell(cell)[0]) == pytest.approx(report[metric], abs=5e-7)


def test_weighted_reports_show_their_weighted_summaries():
    _, y, qid = make_ranking(n_queries=20, random_state=3)
    rng = np.random.default_rng(3)
    weight = np.where(qid < 5, 3.0, 1.0)
    runs = {name: evaluate(y, y + rng.normal(scale=2.0, size=y.size), qid=qid, metrics=["ndcg@10"],
                           sample_weight=weight) for name in ("x", "y")}
    table = compare_many(runs, metric="ndcg@10", test="ttest")
    assert table.means == {name: pytest.approx(report["ndcg@10"]) for name, report in runs.items()}
    assert table[0].result.mean_a == pytest.approx(runs["x"]["ndcg@10"])


# ------------------------------------------------------------------------------------------------
# Bold: the best value of each column, in the metric's direction
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("render, body, cell", [("to_latex", latex_body, latex_cell),
                                                ("to_markdown", markdown_body, markdown_cell)])
def test_bold_marks_the_best_value_in_the_metrics_direction(tables, render, body, cell):
    _, rows = body(getattr(tables[0], render)(*tables[1:]))
    for column, metric in enumerate(METRICS, start=2):
        cells = [cell(row[column]) for row in rows]
        values = [float(value) for value, _, _ in cells]
        best = max(values) if get_metric(metric).greater_is_better else min(values)
        assert [bold for _, bold, _ in cells] == [value == best for value in values], metric
    # the random scorer has the largest mean rank, and it is not bold
    assert not latex_cell(latex_body(tables[0].to_latex(*tables[1:]))[1][3][4])[1]


def test_values_equal_as_printed_are_both_bold():
    table = compare_many({"a": [0.5, 0.6, 0.7], "b": [0.6, 0.5, 0.7001], "c": [0.1, 0.2, 0.3]},
                         metric="map", test="ttest", paired=True)
    _, rows = latex_body(table.to_latex(digits=2))
    assert [latex_cell(row[2])[1] for row in rows] == [True, True, False]


# ------------------------------------------------------------------------------------------------
# Markers: only where the adjusted p-value is below alpha, on the better system
# ------------------------------------------------------------------------------------------------
def expected_markers(table, letters, alpha):
    """Letters each system should carry: those of the systems it beats, adjusted p < alpha, by direction."""
    higher = get_metric(table.metric).greater_is_better
    markers = {name: set() for name in letters}
    for row in table:
        if row.pvalue_adjusted < alpha:
            a_better = (row.estimate > 0) == higher
            winner, loser = (row.a, row.b) if a_better else (row.b, row.a)
            markers[winner].add(letters[loser])
    return markers


@pytest.mark.parametrize("alpha", [0.001, 0.05, 0.5])
def test_markers_only_where_the_adjusted_pvalue_is_below_alpha(reports, tables, alpha):
    letters = dict(zip(reports, "abcd"))
    _, latex_rows = latex_body(tables[0].to_latex(*tables[1:], alpha=alpha))
    _, markdown_rows = markdown_body(tables[0].to_markdown(*tables[1:], alpha=alpha))
    for column, table in enumerate(tables, start=2):
        markers = expected_markers(table, letters, alpha)
        for latex_row, markdown_row, name in zip(latex_rows, markdown_rows, reports):
            assert set(latex_cell(latex_row[column])[2]) == markers[name], (table.metric, name)
            assert set(markdown_cell(markdown_row[column])[2]) == markers[name], (table.metric, name)
    # some markers at 0.05, and the baseline beats the random scorer on the lower-is-better mr
    mr_column = 2 + METRICS.index("mr")
    if alpha == 0.05:
        assert latex_cell(latex_rows[0][mr_column])[2] == "d"
        assert latex_cell(latex_rows[3][mr_column])[2] == ""


def test_markers_of_every_pair_without_a_baseline():
    runs = {"low": [0.1, 0.2, 0.1, 0.3, 0.2, 0.1, 0.2, 0.15], "mid": [0.5, 0.6, 0.4, 0.6, 0.5, 0.55, 0.45, 0.5],
            "high": [0.9, 0.8, 0.85, 0.9, 0.95, 0.8, 0.9, 0.85]}
    table = compare_many(runs, metric="ndcg", test="ttest", paired=True)
    _, rows = latex_body(table.to_latex())
    assert [latex_cell(row[2])[2] for row in rows] == ["", "a", "ab"]
    assert "baseline" not in table.to_latex()
    # the same values as ranks (lower is better): the markers change sides
    table = compare_many(runs, metric="mean_rank", test="ttest", paired=True)
    _, rows = latex_body(table.to_latex())
    assert [latex_cell(row[2])[2] for row in rows] == ["bc", "c", ""]
    assert [latex_cell(row[2])[1] for row in rows] == [True, False, False]


def test_one_sided_alternative_marks_its_side():
    worse, better = [0.2, 0.3, 0.1, 0.25, 0.3, 0.2], [0.6, 0.7, 0.5, 0.65, 0.8, 0.6]
    table = compare_many({"x": worse, "y": better}, metric="map", test="ttest", paired=True, alternative="less")
    _, rows = latex_body(table.to_latex())
    assert [latex_cell(row[2])[2] for row in rows] == ["", "a"]
    assert "one-sided" in table.to_latex()


def test_caption_names_the_test_the_correction_and_the_level(tables):
    latex = tables[0].to_latex(*tables[1:], alpha=0.01, caption="Runs on the 40 queries.", label="tab:runs")
    caption = latex[latex.index(r"\caption{"):latex.index(r"\label{")]
    assert caption.startswith(r"\caption{Runs on the 40 queries. Mean per-query values")
    assert "two-sided paired t-test" in caption and "Holm's correction" in caption
    assert r"$p < 0.01$" in caption and "baseline, bm25 (a)" in caption
    assert r"\label{tab:runs}" in latex
    assert r"\label" not in tables[0].to_latex(label=None)
    fdr = compare_many({"a": [1, 2, 3, 4.0], "b": [2, 3, 4, 5.5]}, correction="fdr_bh", paired=True)
    assert "Wilcoxon signed-rank test" in fdr.to_latex() and "Benjamini-Hochberg" in fdr.to_latex()
    unpaired = compare_many({"a": [1, 2, 3, 4.0], "b": [2, 3, 4, 5.5]}, correction=None)
    assert "Mann-Whitney U test" in unpaired.to_markdown()
    assert "no correction for multiple comparisons" in unpaired.to_markdown()


# ------------------------------------------------------------------------------------------------
# Escaping
# ------------------------------------------------------------------------------------------------
def test_latex_special_characters_in_names_are_escaped():
    runs = {"bm25_k1%2": [0.1, 0.2, 0.3, 0.4], "a&b #1 $x$": [0.5, 0.6, 0.7, 0.8], "{c}~^\\": [0.2, 0.3, 0.2, 0.1]}
    table = compare_many(runs, metric="P@5", baseline="bm25_k1%2", test="ttest", paired=True)
    latex = table.to_latex()
    _, rows = latex_body(latex)
    assert [row[1] for row in rows] == [r"bm25\_k1\%2", r"a\&b \#1 \$x\$", r"\{c\}\textasciitilde{}"
                                        r"\textasciicircum{}\textbackslash{}"]
    assert r"baseline, bm25\_k1\%2 (a)" in latex
    assert braces_balance(latex)
    # no unescaped special character left outside the commands we wrote
    stripped = re.sub(r"\\(textbf|textsuperscript|textasciitilde|textasciicircum|textbackslash|caption|label|"
                      r"begin|end|centering|toprule|midrule|bottomrule|usepackage|downarrow)", "", latex)
    stripped = re.sub(r"\\[_%&#${}]|\$p < 0\.05\$|\\\\", "", stripped)
    stripped = "\n".join(line for line in stripped.splitlines() if not line.startswith("%"))
    assert not re.search(r"(?<!\\)[_%#$]", stripped), stripped
    assert stripped.count("&") == 3 * 2 + 2  # the column separators only
    header, _ = latex_body(compare_many({"x": [1, 2, 3.0], "y": [2, 3, 4.0]}, metric="my_metric%").to_latex())
    assert header[2] == r"my\_metric\%"


def test_markdown_pipes_and_emphasis_in_names_are_escaped():
    table = compare_many({"a|b": [0.1, 0.2, 0.3], "*c*_d": [0.4, 0.5, 0.6]}, metric="mrr", test="ttest", paired=True)
    _, rows = markdown_body(table.to_markdown())
    assert [row[1] for row in rows] == [r"a\|b", r"\*c\*\_d"]


# ------------------------------------------------------------------------------------------------
# A single comparison
# ------------------------------------------------------------------------------------------------
def test_comparison_result_tables(reports):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        result = compare(reports["hybrid"], reports["bm25"], metric="mr")
    assert result.mean_a == pytest.approx(reports["hybrid"]["mr"])
    assert result.mean_b == pytest.approx(reports["bm25"]["mr"])
    latex = result.to_latex(names=("hybrid", "bm_25"), metric="mr")
    header, rows = latex_body(latex)
    assert header[2] == r"mr $\downarrow$" and [row[1] for row in rows] == ["hybrid", r"bm\_25"]
    assert braces_balance(latex) and "Wilcoxon signed-rank test" in latex and "no correction" in latex
    cells = [latex_cell(row[2]) for row in rows]
    assert [bold for _, bold, _ in cells] == [True, False]  # the smaller mean rank
    assert [letters for _, _, letters in cells] == ["b", ""]  # these two differ clearly
    assert [markdown_cell(row[2])[2] for row in markdown_body(result.to_markdown(alpha=result.pvalue))[1]] == ["", ""]
    header, rows = markdown_body(result.to_markdown())
    assert header[2] == "value" and [row[1] for row in rows] == ["a", "b"]


def test_corrected_ttest_results_have_means():
    from sklearn_rank.stats import corrected_ttest
    result = corrected_ttest([0.81, 0.79, 0.84, 0.80, 0.82], [0.78, 0.77, 0.80, 0.79, 0.78], n_train=800,
                             n_test=200)
    assert (result.mean_a, result.mean_b) == pytest.approx((0.812, 0.784))
    assert "Nadeau-Bengio" in result.to_markdown(metric="ndcg@10")


# ------------------------------------------------------------------------------------------------
# Refusals, and the table as data
# ------------------------------------------------------------------------------------------------
def test_refusals(reports, tables):
    with pytest.raises(TypeError, match=r"`others` must be tables of compare_many .* Got dict at position 0"):
        tables[0].to_latex({"mr": tables[2]})
    two = {"bm25": reports["bm25"], "hybrid": reports["hybrid"]}
    with pytest.raises(ValueError, match=r"`others` must compare the same models"):
        tables[0].to_latex(compare_many(two, metric="ndcg@10", test="ttest"))
    with pytest.raises(ValueError, match=r"Got \['mrr'\] more than once"):
        tables[0].to_markdown(tables[0])
    with pytest.raises(ValueError, match=r"`others` must share the first table's correction"):
        tables[0].to_latex(compare_many(reports, metric="ndcg@10", baseline="bm25", test="ttest", correction=None))
    for alpha in (0, 1, -0.1, float("nan"), "0.05", True):
        with pytest.raises(ValueError, match=r"`alpha` must be a number strictly between 0 and 1. Got"):
            tables[0].to_latex(alpha=alpha)
    with pytest.raises(ValueError, match=r"`digits`"):
        tables[0].to_markdown(digits=-1)
    with pytest.raises(TypeError, match=r"`caption` must be a string or None. Got int instead"):
        tables[0].to_latex(caption=3)
    result = compare([0.1, 0.2, 0.3], [0.3, 0.4, 0.5], paired=True)
    with pytest.raises(ValueError, match=r"`names` must be two different names"):
        result.to_latex(names=("x", "x"))
    with pytest.raises(ValueError, match=r"`names` must be two different names"):
        result.to_latex(names="xy")
    with pytest.raises(ValueError, match=r"this result holds none .* Got mean_a=None"):
        replace(result, mean_a=None).to_markdown()


def test_tables_without_means_take_them_from_the_rows(tables):
    rebuilt = ComparisonTable(list(tables[0]), correction="holm", alternative="two-sided", metric="mrr")
    assert rebuilt.means is None and tables[0].means is not None
    _, rows = latex_body(rebuilt.to_latex())
    # the systems in the order the rows name them (the baseline is each row's b), each with its mean
    assert [row[1] for row in rows] == [r"dense\_v2", "bm25", "hybrid", "random"]
    shown = {row[1].replace("\\", ""): latex_cell(row[2])[0] for row in rows}
    assert shown == {name: format(mean, ".3f") for name, mean in tables[0].means.items()}
    # rows that give a model two means (different queries) need the table's means
    row = tables[0][0]
    other = replace(row, a="bm25", b="x", result=replace(row.result, mean_a=row.result.mean_b + 0.1))
    with pytest.raises(ValueError, match=r"the rows give 'bm25' two"):
        ComparisonTable([row, other], correction="holm", alternative="two-sided").to_latex()


def test_pickled_and_sliced_tables_render_alike(tables):
    restored = pickle.loads(pickle.dumps(tables[0]))
    assert restored == tables[0] and restored.to_latex() == tables[0].to_latex()
    assert tables[0][:2].metric == "mrr" and tables[0][:2].means == tables[0].means


# ------------------------------------------------------------------------------------------------
# CITATION.cff
# ------------------------------------------------------------------------------------------------
def test_citation_file_is_valid_cff_with_the_package_version():
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed: CITATION.cff is not parsed")
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors", "version", "license", "type"):
        assert citation.get(key), key
    assert str(citation["version"]) == sklearn_rank.__version__
    assert citation["license"] == "BSD-3-Clause"
    assert citation["authors"] == [{"name": "The sklearn-rank developers"}]
    assert citation["type"] == "software"
