"""`sklearn-rank demo`'s baselines, metric directions and what a query is (issue 25).

The baseline rows are checked against ``evaluate`` on a constant scorer, computed here through the public API
from the demo's data (tests/test_main.py checks the models' rows against loops over queries).
"""

import re

import numpy as np
import pytest

from sklearn_rank import evaluate, get_metric

LTR_METRICS = ["mrr", "map", "ndcg@10", "hits@10"]
CLASS_METRICS = ["mrr", "hits@1", "hits@3", "mr"]


def one_line_sentences(text):
    """The demo's text with each wrapped sentence on one line: its continuation lines (four spaces or more in;
    the tables' lines are two) joined to the line before by a space."""
    return re.sub(r"\n {4,}(?=\S)", " ", text)


@pytest.fixture(scope="module")
def demo_parts(demo_run):
    """What ``sklearn-rank demo`` prints (the session's one run, tests/conftest.py), cut into its two parts,
    each sentence on one line."""
    text = one_line_sentences(demo_run[0])
    ltr, digits = text.split("\nRank of the true class:", 1)
    return {"ltr": ltr, "digits": "Rank of the true class:" + digits, "all": text}


def _row(part, name):
    """The numbers of the row whose name (two spaces in) is ``name``."""
    line = next(line for line in part.splitlines() if line.startswith(f"  {name}  "))
    return [float(cell) for cell in line[len(name) + 2:].split()]


def _header(part):
    return next(line for line in part.splitlines() if line.strip().startswith("model"))


def _ltr_held_out():
    """The demo's held-out queries, rebuilt from its description: make_ranking's data, split by query."""
    from sklearn.model_selection import GroupShuffleSplit

    from sklearn_rank.datasets import make_ranking

    X, y, qid = make_ranking(n_queries=300, n_candidates=25, n_features=20, n_informative=10, noise=2.0,
                             relevant_fraction=0.12, random_state=0)
    _, held_out = next(GroupShuffleSplit(n_splits=1, test_size=1 / 3, random_state=0).split(X, groups=qid))
    return y[held_out], qid[held_out]


@pytest.mark.parametrize("part, metrics", [("ltr", LTR_METRICS), ("digits", CLASS_METRICS)])
def test_metric_directions_in_the_header(demo_parts, part, metrics):
    header = _header(demo_parts[part]).split()[1:]
    labels = [" ".join(header[i:i + 2]) for i in range(0, len(header), 2)]
    assert labels == [f"{m} {'↑' if get_metric(m).greater_is_better else '↓'}" for m in metrics]
    assert "↑ higher is better" in demo_parts[part]
    if part == "digits":
        assert "mr ↓" in labels and "mrr ↑" in labels and "↓ lower is better" in demo_parts[part]


def test_learning_to_rank_baseline_is_evaluate_on_a_constant_scorer(demo_parts):
    y, qid = _ltr_held_out()
    printed = _row(demo_parts["ltr"], "random ranking")
    random_order = evaluate(y, np.full(len(y), 0.5), qid=qid, metrics=LTR_METRICS, ties="expected")
    np.testing.assert_allclose(printed, [random_order.summary[m] for m in LTR_METRICS], rtol=0, atol=5.1e-5)
    # the numbers for a constant scorer on these queries
    np.testing.assert_allclose(printed, [0.302, 0.223, 0.229, 0.802], rtol=0, atol=5.1e-4)
    # a constant scorer under the demo's ties (the default of evaluate, 'expected') gets the same numbers:
    # one line says so, no second row
    constant = evaluate(y, np.full(len(y), -3.0), qid=qid, metrics=LTR_METRICS)
    assert constant.summary == pytest.approx(random_order.summary, rel=1e-12)
    assert "(done in" in demo_parts["all"] and "ties='expected'" in demo_parts["all"].splitlines()[-1]
    assert "  constant score  " in demo_parts["ltr"] and "the same numbers" in demo_parts["ltr"]
    assert demo_parts["ltr"].count("constant score") == 1


def test_digits_baseline_is_evaluate_on_a_constant_scorer(demo_parts):
    from sklearn.datasets import load_digits

    y = load_digits().target
    printed = _row(demo_parts["digits"], "random ranking")
    random_order = evaluate(y, np.zeros((len(y), 10)), labels=np.arange(10), metrics=CLASS_METRICS, ties="expected")
    np.testing.assert_allclose(printed, [random_order.summary[m] for m in CLASS_METRICS], rtol=0, atol=5.1e-5)
    # one true class among 10 in a uniformly random order: rank uniform on 1..10
    harmonic = sum(1 / k for k in range(1, 11))
    np.testing.assert_allclose(printed, [harmonic / 10, 0.1, 0.3, 5.5], rtol=0, atol=5.1e-5)
    assert "the same numbers" in demo_parts["digits"] and demo_parts["digits"].count("constant score") == 1


def test_each_part_says_what_a_query_is(demo_parts):
    assert "A query is one search session of make_ranking: its 25 candidate documents" in demo_parts["ltr"]
    assert ("A query is one image: its 10 candidate classes ranked by predicted probability"
            in demo_parts["digits"])


def test_the_baselines_come_after_the_models_rows(demo_parts):
    # the models' rows end at the first line that is not indented: a reader (and tests/test_main.py's
    # parser) of the leaderboard finds the two models, then the baselines under a caption of their own
    for part, models in (("ltr", {"Ridge", "HistGradientBoosting"}), ("digits", {"LogisticRegression",
                                                                                 "GaussianNB"})):
        lines = demo_parts[part].splitlines()
        start = lines.index(_header(demo_parts[part])) + 2
        end = next(i for i in range(start, len(lines)) if not lines[i].startswith("  "))
        assert {line.split()[0] for line in lines[start:end]} == models
        assert lines[end].startswith("Baselines without a model")
        assert lines[end + 1].startswith("  random ranking  ")


def test_a_constant_scorer_under_another_tie_policy_gets_its_own_row():
    # the demo's policy is 'expected'; under any other one the constant score is a row of its own
    from sklearn_rank._demo import _leaderboard

    y, qid = np.array([1, 0, 0, 0, 1, 0]), np.array([1, 1, 1, 2, 2, 2])
    constant = np.zeros(len(y))
    model = evaluate(y, [3.0, 2, 1, 1, 2, 3], qid=qid, metrics=["mrr", "mr"])
    random_order = evaluate(y, constant, qid=qid, metrics=["mrr", "mr"], ties="expected")
    realistic = evaluate(y, constant, qid=qid, metrics=["mrr", "mr"], ties="realistic")
    lines = _leaderboard({"model": model}, ["mrr", "mr"], (random_order, realistic))
    text = "\n".join(lines)
    assert "the same numbers" not in text
    np.testing.assert_allclose(_row(text, "constant score (realistic)"),
                               [realistic.summary["mrr"], realistic.summary["mr"]], atol=5.1e-5)
    np.testing.assert_allclose(_row(text, "random ranking"), [random_order.summary["mrr"], 2.0], atol=5.1e-5)
    assert realistic.summary["mrr"] != pytest.approx(random_order.summary["mrr"])


def test_the_prose_is_wrapped_to_88_columns_and_the_tables_are_not(demo_run):
    # a sentence of up to 193 characters took a line of its own (issue 25); the tables' rows keep their lines
    lines = demo_run[0].splitlines()
    long_lines = [line for line in lines if len(line) > 88]
    models = ("Ridge", "HistGradientBoosting", "LogisticRegression", "GaussianNB")
    assert long_lines and all(line.startswith(("  model ", "  ---")) or line.split()[0] in models
                              for line in long_lines), long_lines
    assert all(line.startswith("  ") and not line.startswith("   ") for line in long_lines)
    # a continuation line continues a sentence, never a table's row of numbers
    for before, line in zip(lines, lines[1:]):
        if line.startswith("    "):
            assert before.strip() and not re.search(r"\d\.\d{4}\s*$", before), (before, line)
    joined = one_line_sentences(demo_run[0])
    assert ("Baselines without a model (exact means over the same queries; random ranking: the expectation under "
            "a uniformly random order of each query's candidates):") in joined
    assert ("the same numbers: under the demo's ties='expected' tied candidates count in every order, equally "
            "likely") in joined
