"""Every example script runs, and prints what it claims; every example of the user guide runs.

The scripts of ``examples/`` run as subprocesses, once each, and their printed output is parsed and
checked (a filtered MRR that is not above the raw one, hits@1 that differs from accuracy, a verdict
that contradicts its p-value would all fail here). The ``>>>`` examples of the pages in ``docs/``
run as doctests, and the claims that ``docs/cli.rst`` makes about the output of its command-line
session are checked against that output.
"""

import doctest
import functools
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import sklearn

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
DOCS = ROOT / "docs"
CLI_FILES = DOCS / "_static" / "cli"

# One OpenMP thread: on a busy machine, the OpenMP thread pools of HistGradientBoosting, LightGBM
# and XGBoost spin against each other and turn a four-second script into a minute.
SUBPROCESS_ENV = dict(os.environ, OMP_NUM_THREADS="1", MPLBACKEND="Agg",
                      PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
TIMEOUT = 120  # seconds; each script takes well under 10 s on one core


@functools.lru_cache(maxsize=None)
def run_example(name):
    done = subprocess.run([sys.executable, str(EXAMPLES / name)], cwd=ROOT, env=SUBPROCESS_ENV,
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, f"{name} failed:\n{done.stderr}"
    return done.stdout, done.stderr


@pytest.fixture
def run_cli(monkeypatch, capsys):
    """The command line of docs/cli.rst's session, in its folder, in this process: (exit code, standard output,
    standard error)."""
    from sklearn_rank.cli import main

    monkeypatch.chdir(CLI_FILES)

    def run(*arguments):
        code = main(list(arguments))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def numbers(line):
    return [float(x) for x in re.findall(r"[-+]?\d+\.\d+(?:e[-+]?\d+)?|[-+]?\d+e[-+]?\d+", line)]


def table_rows(stdout, header_start, n_rows):
    """The rows after the line starting with ``header_start``: {first word(s): numbers}."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(header_start))
    rows = {}
    for line in lines[start + 1:start + 1 + n_rows]:
        label = re.split(r"\s{2,}", line.strip())[0]
        rows[label] = numbers(line[line.index(label) + len(label):])
    return rows


# ------------------------------------------------------------------------------------------------
# examples/
# ------------------------------------------------------------------------------------------------

CHECKED_EXAMPLES = {"link_prediction_filtered.py", "learning_to_rank.py", "multiclass_mrr.py",
                    "compare_two_models.py", "plot_rank_distribution.py", "plot_model_comparison.py"}


def test_the_tests_of_this_file_share_one_worker(request):
    # run_example is memoized per process: under --dist loadgroup, the group conftest.py gives this file
    # must reach pytest-xdist's scheduler, or each example runs once for each worker that gets one of its tests
    if getattr(request.config.option, "loadgroup", False):
        assert request.node.nodeid.endswith("@examples")


def test_every_example_has_a_check():
    assert {path.name for path in EXAMPLES.glob("*.py")} == CHECKED_EXAMPLES


@pytest.mark.parametrize("name", sorted(CHECKED_EXAMPLES))
def test_example_runs_quietly(name):
    stdout, stderr = run_example(name)
    assert stdout.strip(), f"{name} printed nothing"
    assert stderr == "", f"{name} wrote to stderr (warnings?):\n{stderr}"
    source = (EXAMPLES / name).read_text()
    assert source.startswith('"""') and "Run: python examples/" + name in source


def test_link_prediction_example():
    stdout, _ = run_example("link_prediction_filtered.py")
    rows = table_rows(stdout, "metric", 6)
    raw = {name: values[0] for name, values in rows.items()}
    filtered = {name: values[1] for name, values in rows.items()}
    assert set(rows) == {"mrr", "hits@1", "hits@3", "hits@10", "mr", "amri"}
    # Filtering removes competitors only: every rank gets better or stays.
    for name in ("mrr", "hits@1", "hits@3", "hits@10", "amri"):
        assert filtered[name] >= raw[name], name
    assert filtered["mr"] <= raw["mr"]
    assert filtered["hits@1"] <= filtered["hits@3"] <= filtered["hits@10"] <= 1
    assert 0 < filtered["mrr"] < 1
    n_queries = int(re.search(r"Head and tail prediction, (\d+) queries", stdout).group(1))
    pooled = re.search(r"targets='all': (\d+) queries, (\d+) ranks pooled", stdout)
    assert int(pooled.group(2)) == n_queries  # one rank per test answer, head and tail
    assert int(pooled.group(1)) < n_queries    # queries with several test answers become one row
    assert "same filtered metrics as the label-index evaluation: True" in stdout


def test_learning_to_rank_example():
    stdout, _ = run_example("learning_to_rank.py")
    grid = re.findall(r"learning_rate=(\S+)\s+max_leaf_nodes=(\d+)\s+(\S+)", stdout)
    assert len(grid) == 4
    best_line = next(line for line in stdout.splitlines() if line.startswith("best:"))
    learning_rate, max_leaf_nodes, _ = max(grid, key=lambda row: float(row[2]))
    assert best_line == (f"best: {{'estimator__learning_rate': {learning_rate}, "
                         f"'estimator__max_leaf_nodes': {max_leaf_nodes}}}")
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("model"))
    header = lines[start].split()[1:]
    assert header == ["ndcg@10", "map", "mrr", "p@5"]
    models = {}
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        label = re.split(r"\s{2,}", line.strip())[0]
        models[label] = dict(zip(header, numbers(line[line.index(label) + len(label):])))
    baseline = models.pop("constant score (random baseline)")
    assert {"Ridge", "HistGradientBoosting (best)"} <= set(models)
    for name, package in (("LGBMRanker", "lightgbm"), ("XGBRanker", "xgboost")):
        assert (name in models) == (importlib.util.find_spec(package) is not None)
    for name, values in models.items():
        for metric, value in values.items():
            assert 0 <= value <= 1
            assert value > baseline[metric] + 0.1, (name, metric)   # every model learnt something


def test_multiclass_example():
    stdout, _ = run_example("multiclass_mrr.py")
    rows = table_rows(stdout, "model", 2)
    for name, values in rows.items():
        mrr, hits1, hits3, mean_rank, accuracy, top3 = values
        assert hits1 == pytest.approx(accuracy, abs=1e-4), name       # hits@1 is accuracy
        assert hits1 <= mrr <= 1 and hits1 <= hits3 <= 1 and mean_rank >= 1
    # Logistic regression has no tied classes: hits@3 is scikit-learn's top-3 accuracy.
    assert "LogisticRegression: true class tied with another class in 0.0% of the images" in stdout
    assert rows["LogisticRegression"][2] == pytest.approx(rows["LogisticRegression"][5], abs=1e-4)
    # Gaussian naive Bayes has ties: optimistic >= expected >= pessimistic, realistic in between.
    section = stdout[stdout.index("GaussianNB: true class tied"):]
    policy = {match[0]: (float(match[1]), float(match[2]))
              for match in re.findall(r"ties='(\w+)'\s+mrr ([\d.]+)\s+hits@3 ([\d.]+)", section)}
    assert set(policy) == {"optimistic", "expected", "realistic", "pessimistic"}
    for index in (0, 1):
        assert policy["optimistic"][index] >= policy["expected"][index] >= policy["pessimistic"][index]
        assert policy["optimistic"][index] >= policy["realistic"][index] >= policy["pessimistic"][index]
    assert policy["optimistic"][0] > policy["pessimistic"][0]
    assert policy["expected"][0] == pytest.approx(rows["GaussianNB"][0], abs=1e-4)   # the default
    cv_mrr = numbers(stdout.splitlines()[-1])[0]
    assert cv_mrr == pytest.approx(rows["LogisticRegression"][0], abs=0.01)


def test_compare_two_models_example():
    stdout, _ = run_example("compare_two_models.py")
    paired = re.search(r"ridge vs knn15, paired by query \((\d+) pairs\): wilcoxon p = (\S+), "
                       r"Hodges-Lehmann difference (\S+) \(95% CI (\S+) to (\S+)\)", stdout)
    n_pairs, pvalue, estimate, low, high = (float(x.rstrip(",")) for x in paired.groups())
    assert n_pairs == int(re.search(r"(\d+) held-out queries", stdout).group(1))
    assert 0 < pvalue <= 1 and low <= estimate <= high
    verdict = re.search(r"verdict at the 0.05 level: (.+)", stdout).group(1)
    expected = ("no significant difference" if pvalue >= 0.05 else
                "ridge is better" if estimate > 0 else "knn15 is better")
    assert verdict == expected
    # The corrected test is the more conservative one: its variance is inflated.
    cv = re.search(r"t test: t = \S+, p = (\S+); uncorrected paired t test: p = (\S+)", stdout)
    corrected, naive = float(cv.group(1)), float(cv.group(2))
    assert naive < corrected <= 1
    # Holm: adjusted p-values are at least the raw ones, and the smallest is multiplied by 3.
    pairs = re.findall(r"p = (\S+)\s+adjusted = (\S+)\s+wins/ties/losses (\d+)/(\d+)/(\d+)", stdout)
    assert len(pairs) == 3
    raw = [float(p) for p, *_ in pairs]
    adjusted = [float(a) for _, a, *_ in pairs]
    assert all(a >= p for p, a in zip(raw, adjusted))
    assert min(adjusted) == pytest.approx(min(1.0, 3 * min(raw)), rel=1e-2)
    assert all(int(w) + int(t) + int(loss) == n_pairs for _, _, w, t, loss in pairs)


def test_rank_distribution_example_agrees_with_itself():
    out, _ = run_example("plot_rank_distribution.py")
    n_queries = int(re.search(r"(\d+) held-out queries", out).group(1))
    top10 = float(re.search(r"top 10 for ([\d.]+)%", out).group(1)) / 100
    at_one = float(re.search(r"rank 1: ([\d.]+) queries", out).group(1))
    hits1, hits10 = map(float, re.search(r"Ridge\s+hits@1 ([\d.]+)\s+hits@10 ([\d.]+)", out).groups())
    # the histogram (compute_ranks) and the curve (the metric engine) tell the same story
    assert hits1 == pytest.approx(at_one / n_queries, abs=5e-4)
    assert hits10 == pytest.approx(top10, abs=5e-4)
    # random baseline for one relevant item in 200... two relevant: 1 - C(198, k) / C(200, k)
    base1, base10 = map(float, re.search(r"random ranking\s+hits@1 ([\d.]+)\s+hits@10 ([\d.]+)", out).groups())
    assert base1 == pytest.approx(1 - math.comb(198, 1) / math.comb(200, 1), abs=5e-4)
    assert base10 == pytest.approx(1 - math.comb(198, 10) / math.comb(200, 10), abs=5e-4)


def test_model_comparison_example_counts_every_query():
    out, _ = run_example("plot_model_comparison.py")
    n, wins, ties, losses = map(int, re.search(r"(\d+) queries paired by id: Ridge better on (\d+), equal on (\d+), "
                                               r"Boosting better on (\d+)", out).groups())
    assert n == wins + ties + losses == 120  # 40 % of the 300 queries are held out
    pvalue = float(re.search(r"wilcoxon \(paired\): p = ([\d.e-]+)", out).group(1))
    assert 0 < pvalue <= 1


# ------------------------------------------------------------------------------------------------
# docs/: the >>> examples of the user guide, and the command-line session of cli.rst
# ------------------------------------------------------------------------------------------------

DOC_PAGES = sorted(path.name for path in DOCS.glob("*.rst") if ">>>" in path.read_text(encoding="utf-8"))
# Optional packages a page's examples import (the test extras install them all).
PAGE_NEEDS = {
    "conventions.rst": ["pytrec_eval"],
    "quickstart.rst": ["pandas"],
    "significance.rst": ["pandas"],
    "model_selection.rst": ["pandas", "lightgbm", "xgboost"],
    "lightgbm_xgboost.rst": ["pandas", "lightgbm", "xgboost"],
    "_scaling_dask.rst": ["pandas", "dask.dataframe"],
}


def test_user_guide_has_runnable_examples():
    assert {"quickstart.rst", "layouts.rst", "ties.rst", "filtered.rst", "conventions.rst",
            "significance.rst", "metrics.rst"} <= set(DOC_PAGES)


@pytest.mark.parametrize("page", DOC_PAGES)
def test_docs_page_examples(page):
    for module in PAGE_NEEDS.get(page, []):
        pytest.importorskip(module)
    # A page may switch on metadata routing: restore scikit-learn's configuration afterwards.
    with sklearn.config_context():
        result = doctest.testfile(str(DOCS / page), module_relative=False, report=False,
                                  optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} of the {result.attempted} examples of docs/{page} failed (see above)"


def test_cli_page_table_claims(run_cli):
    # "In query u3 the relevant item ties for the first place: reciprocal rank 0.75, hits@1 0.5."
    code, out, err = run_cli("evaluate", "scores.csv", "--qid", "query", "--score", "score", "--label", "relevant",
                             "-m", "mrr", "hits@1", "--format", "json", "--per-query")
    assert code == 0, err
    output = json.loads(out)
    u3 = output["per_query"]["qid"].index("u3")
    assert output["per_query"]["mrr"][u3] == 0.75 and output["per_query"]["hits@1"][u3] == 0.5
    assert output["summary"] == {"mrr": 0.5625, "hits@1": 0.125}


def test_cli_page_compare_claims(run_cli):
    # "On ten queries, dense beats bm25 on eight, but the difference is not significant at 0.05."
    code, out, err = run_cli("compare", "qrels.txt", "bm25.run", "dense.run", "-m", "ndcg@10", "--format", "json")
    assert code == 0, err
    (row,) = json.loads(out)["comparisons"]
    assert (row["a"], row["b"], row["test"], row["n_a"]) == ("bm25", "dense", "wilcoxon", 10)
    assert (row["wins"], row["ties"], row["losses"]) == (2, 0, 8)
    assert 0.05 < row["pvalue"] < 0.1


def test_cli_page_error_claim(run_cli):
    code, out, err = run_cli("evaluate", "qrels.txt", "missing.run")
    assert code == 2
    assert err.strip() == "sklearn-rank: error: missing.run: No such file or directory"
    assert "Traceback" not in err
