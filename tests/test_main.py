"""`sklearn-rank demo`: it runs, and what it prints is true."""

import re

import numpy as np
import pytest


@pytest.fixture(scope="module")
def demo_output(demo_run):
    # each sentence on one line: the demo wraps its prose to 88 columns, continuation lines four spaces in (the
    # tables' lines two); tests/test_demo_baselines.py checks the wrapping
    return re.sub(r"\n {4,}(?=\S)", " ", demo_run[0])


def test_demo_plot(demo_run):
    stdout, plot = demo_run
    if plot is None:
        pytest.skip("--plot needs matplotlib")
    import matplotlib.image

    assert "Leaderboard" in stdout
    assert plot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    image = matplotlib.image.imread(plot)
    assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100


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


def _oracle_per_query(y, scores, qid):
    """MRR, AP, nDCG@10 and hits@10 of every query with a relevant row, by a loop over queries.

    nDCG@10 is scikit-learn's ``ndcg_score`` (linear gain); the others rank by hand and need
    distinct scores within a query, which is checked.
    """
    from sklearn.metrics import ndcg_score

    values = {"mrr": [], "map": [], "ndcg@10": [], "hits@10": []}
    for q in np.unique(qid):
        rows = qid == q
        relevance, score = y[rows], scores[rows]
        if not (relevance > 0).any():
            continue  # no_relevant="skip"
        assert np.unique(score).size == score.size, "the oracle needs distinct scores"
        relevant_in_order = relevance[np.argsort(-score)] > 0
        ranks = np.flatnonzero(relevant_in_order) + 1
        values["mrr"].append(1.0 / ranks[0])
        values["map"].append(np.mean(np.arange(1, ranks.size + 1) / ranks))
        values["ndcg@10"].append(ndcg_score([relevance], [score], k=10))
        values["hits@10"].append(float(ranks[0] <= 10))
    return {name: np.asarray(v) for name, v in values.items()}


def _best_params(text, name):
    line = next(line for line in text.splitlines() if line.strip().startswith(name + " ") and " best " in line)
    params = re.search(r" best (.*?)\s+CV nDCG@10", line).group(1)
    return {key: (int(value) if value.isdigit() else float(value))
            for key, value in (item.strip().split("=") for item in params.split(","))}


def test_learning_to_rank_leaderboard_is_measured_on_held_out_queries(demo_output):
    # The leaderboard comes from queries the search never saw: the chosen models, refitted on the
    # search queries, are re-scored here on the held-out queries by a loop over queries.
    from scipy.stats import wilcoxon
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GroupShuffleSplit
    from threadpoolctl import threadpool_limits

    from sklearn_rank.datasets import make_ranking

    rows = _leaderboard(demo_output, "ndcg@10")
    assert set(rows) == {"Ridge", "HistGradientBoosting"}
    X, y, qid = make_ranking(n_queries=300, n_candidates=25, n_features=20, n_informative=10, noise=2.0,
                             relevant_fraction=0.12, random_state=0)
    search, held_out = next(GroupShuffleSplit(n_splits=1, test_size=1 / 3, random_state=0).split(X, groups=qid))
    assert not np.isin(qid[held_out], qid[search]).any()
    header = next(line for line in demo_output.splitlines() if line.startswith("Leaderboard"))
    assert f"{np.unique(qid[held_out]).size} held-out queries" in header
    models = {"Ridge": Ridge(**_best_params(demo_output, "Ridge")),
              "HistGradientBoosting": HistGradientBoostingRegressor(
                  random_state=0, **_best_params(demo_output, "HistGradientBoosting"))}
    per_query = {}
    with threadpool_limits(1):
        for name, model in models.items():
            scores = model.fit(X[search], y[search]).predict(X[held_out])
            per_query[name] = _oracle_per_query(y[held_out], scores, qid[held_out])
    for name, values in rows.items():
        means, spreads = values[0::2], values[1::2]
        for position, metric in enumerate(["mrr", "map", "ndcg@10", "hits@10"]):
            oracle = per_query[name][metric]
            assert means[position] == pytest.approx(oracle.mean(), abs=5.1e-5), (name, metric)
            assert spreads[position] == pytest.approx(oracle.std(), abs=5.1e-4), (name, metric)
    # the verdict's p-value is the paired Wilcoxon test on the same held-out per-query nDCG@10
    line = next(line for line in demo_output.splitlines() if "held-out queries:" in line and " vs " in line)
    best, runner_up = re.match(r"(\S+) vs (\S+) on", line).groups()
    p = float(re.search(r"p = ([0-9.e+-]+)", line).group(1))
    # The oracle's per-query values differ from the engine's by rounding (1e-16), which would break
    # ties among the absolute differences that Wilcoxon ranks: round the differences so ties stay ties.
    differences = np.round(per_query[best]["ndcg@10"] - per_query[runner_up]["ndcg@10"], 12)
    expected = wilcoxon(differences).pvalue
    assert p == pytest.approx(expected, rel=5e-3)


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


def test_no_subcommand_prints_usage_and_exits_2(capsys):
    # in this process (python -m sklearn_rank passes its exit code on: tests/test_cli.py's processes)
    from sklearn_rank.cli import main

    code = main([])
    assert code == 2 and "usage: sklearn-rank" in capsys.readouterr().err
