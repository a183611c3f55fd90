"""`sklearn-rank demo`: it runs, and what it prints is true."""

import re
import subprocess
import sys

import numpy as np
import pytest


@pytest.fixture(scope="module")
def demo_output():
    out = subprocess.run([sys.executable, "-m", "sklearn_rank", "demo"], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _leaderboard(text, header_start):
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("model") and header_start in line)
    rows = {}
    for line in lines[start + 2:]:
        if not line.startswith("  ") or not line.strip():
            break
        name, *cells = line.split()
        values = [float(v) for v in cells if v != "±"]
        rows[name] = values
    return rows


def test_learning_to_rank_leaderboard(demo_output):
    rows = _leaderboard(demo_output, "ndcg@10")
    assert set(rows) == {"Ridge", "HistGradientBoosting"}
    from sklearn_rank.datasets import make_ranking
    from sklearn_rank import evaluate

    X, y, qid = make_ranking(n_queries=300, n_candidates=25, n_features=20, n_informative=10, noise=2.0,
                             relevant_fraction=0.12, random_state=0)
    random = evaluate(y, np.zeros(len(y)), qid=qid, metrics=["mrr", "map", "ndcg@10", "hits@10"]).summary
    for name, values in rows.items():
        means = values[0::2]
        spreads = values[1::2]
        assert len(means) == 4 and all(0 <= v <= 1 for v in means)
        assert all(s >= 0 for s in spreads)
        # both families learn something: better than the random-ranking baseline on every metric
        assert means[0] > random["mrr"] and means[2] > random["ndcg@10"], name


def test_verdicts_match_leaderboards(demo_output):
    verdicts = [line for line in demo_output.splitlines() if " vs " in line and "p = " in line]
    assert len(verdicts) == 2
    for line in verdicts:
        best, runner_up = re.match(r"(\S+) vs (\S+) on", line).groups()
        p = float(re.search(r"p = ([0-9.e+-]+)", line).group(1))
        assert 0 <= p <= 1
        if p < 0.05:
            assert f"{best} beats {runner_up} significantly" in line
        else:
            assert "no significant difference" in line


def test_class_rank_leaderboard(demo_output):
    rows = _leaderboard(demo_output, "hits@3")
    assert set(rows) == {"LogisticRegression", "GaussianNB"}
    for values in rows.values():
        mrr, hits1, hits3, mr = values[0::2]
        # internal consistency: hits@1 <= hits@3, hits@1 <= MRR, MR >= 1
        assert hits1 <= hits3 and hits1 <= mrr <= 1 and mr >= 1


def test_no_subcommand_prints_usage_and_exits_2():
    out = subprocess.run([sys.executable, "-m", "sklearn_rank"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "usage: sklearn-rank" in out.stderr
