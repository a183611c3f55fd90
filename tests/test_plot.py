"""sklearn_rank.plot: the plotted numbers are the engine's, checked against per-query loops (not pixels)."""

import contextlib
import math
import re
import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from sklearn_rank import compute_ranks, evaluate, get_metric, hits_at_k  # noqa: E402
from sklearn_rank._conventions import CONVENTIONS  # noqa: E402
from sklearn_rank.exceptions import DegenerateDataWarning  # noqa: E402
from sklearn_rank.plot import HitsAtKCurveDisplay, QueryComparisonDisplay, RankDistributionDisplay  # noqa: E402

TIES = ("expected", "realistic", "optimistic", "pessimistic", "ordinal")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def _grouped(seed=0, n_queries=12, sizes=(3, 14), ties=True):
    """Grouped rows with tied scores (rounded), some queries without a relevant row."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(sizes[0], sizes[1] + 1, size=n_queries)
    qid = np.repeat(np.arange(n_queries) * 7 + 3, counts)
    rng.shuffle(qid)  # rows of a query are not contiguous
    y = (rng.random(qid.size) < 0.25).astype(float) * rng.integers(1, 3, size=qid.size)
    y[qid == 3] = 0  # one query without a relevant row
    score = rng.normal(size=qid.size) + 0.8 * y
    if ties:
        score = np.round(score * 2) / 2
    return y, score, qid


def _label_index(seed=1, n_queries=40, n_candidates=9):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_candidates, size=n_queries)
    score = np.round(rng.normal(size=(n_queries, n_candidates)), 1)
    score[np.arange(n_queries), y] += 0.7
    return y, score


# --------------------------------------------------------------------------------------------
# oracles: slow, per query
# --------------------------------------------------------------------------------------------
def _random_hits_oracle(y, qid, k):
    """Mean over queries with a relevant row of 1 - C(N - r, k) / C(N, k): a random order's hits@k."""
    values = []
    for q in np.unique(qid):
        rows = qid == q
        n, r = int(rows.sum()), int((y[rows] > 0).sum())
        if r:
            values.append(1 - math.comb(n - r, k) / math.comb(n, k) if k <= n else 1.0)
    return float(np.mean(values))


def _best_of_random_probability(n, r, rank):
    """P(the best of r distinct random positions among n is ``rank``), by counting subsets."""
    return math.comb(n - rank, r - 1) / math.comb(n, r)


# --------------------------------------------------------------------------------------------
# HitsAtKCurveDisplay
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ties", TIES)
def test_hits_equal_hits_at_k_at_every_k_grouped(ties):
    y, score, qid = _grouped()
    display = HitsAtKCurveDisplay.from_predictions(y, score, qid=qid, ties=ties, k=15)
    assert display.k.tolist() == list(range(1, 16))
    expected = [hits_at_k(y, score, qid=qid, k=k, ties=ties) for k in range(1, 16)]
    assert display.hits.tolist() == expected  # exactly
    assert display.auc == pytest.approx(np.mean(expected), abs=1e-15)
    line = display.line_
    assert np.array_equal(line.get_xdata(), display.k) and np.array_equal(line.get_ydata(), display.hits)


@pytest.mark.parametrize("ties", TIES)
def test_hits_equal_hits_at_k_label_index_with_exclusions_weights_and_targets(ties):
    y, score = _label_index()
    rng = np.random.default_rng(5)
    exclude = rng.random(score.shape) < 0.2
    exclude[np.arange(len(y)), y] = False
    weight = rng.random(len(y)) + 0.5
    display = HitsAtKCurveDisplay.from_predictions(y, score, ties=ties, exclude=exclude, sample_weight=weight)
    assert display.k.tolist() == list(range(1, score.shape[1] + 1))  # default: up to the largest N
    expected = [hits_at_k(y, score, k=k, ties=ties, exclude=exclude, sample_weight=weight)
                for k in display.k]
    assert display.hits.tolist() == expected

    y_true, score_g, qid = _grouped(seed=3)
    for targets in ("first", "all"):
        display = HitsAtKCurveDisplay.from_predictions(y_true, score_g, qid=qid, ties=ties, targets=targets, k=6,
                                                       no_relevant="zero")
        expected = [hits_at_k(y_true, score_g, qid=qid, k=k, ties=ties, targets=targets, no_relevant="zero")
                    for k in range(1, 7)]
        assert display.hits.tolist() == expected


def test_hits_baseline_is_the_random_ranking_expectation():
    y, score, qid = _grouped(seed=4, ties=False)
    display = HitsAtKCurveDisplay.from_predictions(y, score, qid=qid, k=14)
    oracle = [_random_hits_oracle(y, qid, k) for k in range(1, 15)]
    np.testing.assert_allclose(display.baseline_hits, oracle, rtol=1e-12)
    np.testing.assert_allclose(display.baseline_line_.get_ydata(), oracle, rtol=1e-12)
    assert display.baseline_auc == pytest.approx(np.mean(oracle), rel=1e-12)
    labels = [text.get_text() for text in display.ax_.get_legend().get_texts()]
    assert labels == [f"area = {np.mean(display.hits):.3f}", f"random (area = {np.mean(oracle):.3f})"]


def test_hits_default_k_is_capped_at_100_and_uses_a_log_axis():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 300, size=20)
    score = rng.normal(size=(20, 300))
    display = HitsAtKCurveDisplay.from_predictions(y, score)
    assert display.k[-1] == 100
    assert display.ax_.get_xscale() == "log"
    small = HitsAtKCurveDisplay.from_predictions(y % 10, score[:, :10])
    assert small.k[-1] == 10 and small.ax_.get_xscale() == "linear"


def test_several_models_on_one_axes():
    y, score, qid = _grouped()
    first = HitsAtKCurveDisplay.from_predictions(y, score, qid=qid, k=8, name="first")
    second = HitsAtKCurveDisplay.from_predictions(y, -score, qid=qid, k=8, name="second", ax=first.ax_,
                                                  plot_baseline=False)
    assert second.ax_ is first.ax_ and second.figure_ is first.figure_
    assert len(first.ax_.get_lines()) == 3  # two models and one baseline
    labels = [text.get_text() for text in first.ax_.get_legend().get_texts()]
    assert labels == [f"first (area = {first.auc:.3f})", f"random (area = {first.baseline_auc:.3f})",
                      f"second (area = {second.auc:.3f})"]
    # plot() again on another axes, under another name
    _, ax = plt.subplots()
    again = first.plot(ax=ax, name="renamed", color="red")
    assert again is first and first.ax_ is ax and first.line_.get_label().startswith("renamed")


# --------------------------------------------------------------------------------------------
# RankDistributionDisplay
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ties", TIES)
def test_rank_distribution_ranks_and_counts(ties):
    y, score, qid = _grouped()
    display = RankDistributionDisplay.from_predictions(y, score, qid=qid, ties=ties)
    ranks = compute_ranks(y, score, qid=qid)
    assert np.array_equal(display.ranks, getattr(ranks, ties))
    assert np.array_equal(display.num_candidates, ranks.num_candidates)
    # max N <= 50: one bin per integer rank, centred on it; a mid rank r + 0.5 counts in the bin above
    max_rank = int(ranks.num_candidates.max())
    assert not display.log_scale and display.ax_.get_xscale() == "linear"
    np.testing.assert_array_equal(display.bin_edges, np.arange(1, max_rank + 2) - 0.5)
    if ties == "expected":  # expected counts over tie orders: see the enumeration test below
        return
    expected = np.zeros(max_rank, dtype=int)
    for rank in getattr(ranks, ties):
        expected[int(math.floor(rank + 0.5)) - 1] += 1
    assert display.counts.tolist() == expected.tolist()
    assert [bar.get_height() for bar in display.bars_] == expected.tolist()
    assert [bar.get_x() for bar in display.bars_] == display.bin_edges[:-1].tolist()


@pytest.mark.parametrize("targets", ["first", "all"])
@pytest.mark.parametrize("seed", [0, 4])
def test_rank_distribution_expected_counts_by_enumerating_tie_orders(targets, seed):
    """ties="expected": each target's rank over every equally likely order of its tie block, enumerated
    (the places of the block's relevant items: all combinations), summed into the bins."""
    from itertools import combinations

    y, score, qid = _grouped(seed=seed)
    display = RankDistributionDisplay.from_predictions(y, score, qid=qid, targets=targets)
    assert display.ties == "expected"
    expected = np.zeros(len(display.counts))
    for q in np.unique(qid):
        s, rel = score[qid == q], y[qid == q] > 0
        if not rel.any():
            continue
        levels = [s[rel].max()] if targets == "first" else list(s[rel])
        for level in levels:  # "all": each relevant item against the non-relevant candidates only
            others = s if targets == "first" else s[~rel]
            above = int(np.sum(others > level))
            in_block = (s == level) if targets == "first" else None
            if targets == "first":
                b, r = int(in_block.sum()), int((in_block & rel).sum())
            else:
                b, r = int(np.sum(others == level)) + 1, 1
            places = list(combinations(range(b), r))
            for chosen in places:
                expected[above + min(chosen)] += 1 / len(places)
    np.testing.assert_allclose(display.counts, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose([bar.get_height() for bar in display.bars_], expected, rtol=1e-12, atol=1e-12)
    assert display.counts.sum() == pytest.approx(len(compute_ranks(y, score, qid=qid, targets=targets)))


def test_rank_distribution_of_a_constant_scorer_is_the_random_baseline():
    """With tied scores everywhere the expected counts are the random-ranking baseline (they were not with
    mid ranks: a two-way tie's rank 1.5 counted at rank 2)."""
    rng = np.random.default_rng(3)
    y = (rng.random((50, 7)) < 0.3).astype(int)
    y[:, 0] = 1  # every query has a relevant item
    display = RankDistributionDisplay.from_predictions(y, np.zeros((50, 7)))
    np.testing.assert_allclose(display.counts, display.baseline_counts, rtol=1e-12, atol=1e-12)
    two = RankDistributionDisplay.from_predictions(np.zeros(100, dtype=int), np.zeros((100, 2)))
    np.testing.assert_allclose(two.counts, [50, 50])


def test_rank_distribution_baseline_counts_by_a_loop_over_targets():
    y, score, qid = _grouped(seed=8)
    display = RankDistributionDisplay.from_predictions(y, score, qid=qid)
    ranks = compute_ranks(y, score, qid=qid)
    expected = np.zeros(len(display.counts))
    for n, r in zip(ranks.num_candidates, ranks.num_relevant):
        for rank in range(1, n + 1):
            expected[rank - 1] += _best_of_random_probability(int(n), int(r), rank)
    np.testing.assert_allclose(display.baseline_counts, expected, rtol=1e-10, atol=1e-12)
    assert display.baseline_counts.sum() == pytest.approx(len(ranks))
    data = display.baseline_.get_data()
    values, edges = data.values, data.edges
    np.testing.assert_allclose(values, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(edges, display.bin_edges)


def test_rank_distribution_log_bins_for_long_lists():
    rng = np.random.default_rng(2)
    n_candidates = 500
    y = rng.integers(0, n_candidates, size=200)
    score = rng.normal(size=(200, n_candidates))
    score[np.arange(200), y] += rng.exponential(2.0, size=200)
    exclude = rng.random(score.shape) < 0.3
    exclude[np.arange(200), y] = False
    display = RankDistributionDisplay.from_predictions(y, score, exclude=exclude)
    assert display.log_scale and display.ax_.get_xscale() == "log"
    edges = display.bin_edges
    assert edges[0] == 0.5 and edges[-1] == display.num_candidates.max() + 0.5
    assert np.all(np.diff(edges) >= 1) and np.all(edges % 1 == 0.5)  # whole integer ranks per bin
    ranks = compute_ranks(y, score, exclude=exclude).realistic
    expected = [int(np.sum((ranks >= lo) & (ranks < hi))) for lo, hi in zip(edges[:-1], edges[1:])]
    assert display.counts.tolist() == expected
    # uniform ranks (one target per query): P(lo <= R < hi) summed over targets
    baseline = np.zeros(len(expected))
    for n in display.num_candidates:
        for i, (lo, hi) in enumerate(zip(edges[:-1], edges[1:])):
            baseline[i] += max(0, min(hi, n + 0.5) - lo) / n
    np.testing.assert_allclose(display.baseline_counts, baseline, rtol=1e-10, atol=1e-12)
    forced = RankDistributionDisplay.from_predictions(y, score, exclude=exclude, log_scale=False, n_bins=10)
    assert not forced.log_scale and len(forced.counts) == 10 and forced.counts.sum() == 200


def test_rank_distribution_density_per_rank_draws_a_random_scorer_flat():
    """Log bins hold 1, 2, 3, ... ranks, so raw counts of uniformly random ranks rise with the width (a spike
    where a bin of two ranks follows bins of one); per rank, a constant scorer (the exact random baseline
    under ties="expected") draws equal bars."""
    n_candidates, n_targets = 200, 400
    y = np.arange(n_targets) % n_candidates
    score = np.zeros((n_targets, n_candidates))
    raw = RankDistributionDisplay.from_predictions(y, score, n_bins=30)
    widths = np.diff(raw.bin_edges)
    assert raw.log_scale and raw.density is False and {1, 2, 3} <= set(widths.tolist())
    two = int(np.flatnonzero(widths == 2)[0])
    assert widths[two - 1] == 1 and raw.heights[two] == pytest.approx(2 * raw.heights[two - 1])
    np.testing.assert_array_equal(raw.heights, raw.counts)
    per_rank = n_targets / n_candidates
    display = RankDistributionDisplay.from_predictions(y, score, n_bins=30, density="per_rank")
    np.testing.assert_array_equal(display.bin_edges, raw.bin_edges)
    np.testing.assert_array_equal(display.counts, raw.counts)  # the counts stay counts
    for heights in (display.heights, display.baseline_heights, [bar.get_height() for bar in display.bars_],
                    display.baseline_.get_data().values):
        np.testing.assert_allclose(heights, per_rank, rtol=1e-12, atol=0)
    np.testing.assert_allclose(display.heights, display.counts / widths, rtol=1e-15)
    assert display.ax_.get_ylabel() == "targets per rank"
    # True, as matplotlib's hist(density=True): per rank and per target, the bars' areas sum to 1
    share = RankDistributionDisplay.from_predictions(y, score, n_bins=30, density=np.True_)
    np.testing.assert_allclose(share.heights, 1 / n_candidates, rtol=1e-12, atol=0)
    assert share.density is True and (share.heights * widths).sum() == pytest.approx(1, rel=1e-12)
    assert share.ax_.get_ylabel() == "share of targets per rank"


def test_rank_distribution_density_of_point_ranks_is_numpy_histogram():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 300, size=150)
    score = rng.normal(size=(150, 300))
    score[np.arange(150), y] += 2.0
    ranks = compute_ranks(y, score).ordinal
    for density in (False, "per_rank", True):
        display = RankDistributionDisplay.from_predictions(y, score, ties="ordinal", density=density)
        assert display.log_scale
        edges = display.bin_edges
        counts = np.histogram(ranks, bins=edges)[0]
        expected = {False: counts, "per_rank": counts / np.diff(edges),
                    True: np.histogram(ranks, bins=edges, density=True)[0]}[density]
        np.testing.assert_allclose(display.heights, expected, rtol=1e-13, atol=0)
        scale = {False: 1, "per_rank": 1 / np.diff(edges), True: 1 / (150 * np.diff(edges))}[density]
        np.testing.assert_allclose(display.baseline_heights, display.baseline_counts * scale, rtol=1e-13)
    # from_estimator and the constructor take it too
    from sklearn.linear_model import Ridge

    from sklearn_rank.datasets import make_ranking

    X, y_rows, qid = make_ranking(n_queries=20, n_candidates=10, random_state=0)
    fitted = RankDistributionDisplay.from_estimator(Ridge().fit(X, y_rows), X, y_rows, qid=qid, density="per_rank")
    np.testing.assert_allclose(fitted.heights, fitted.counts / np.diff(fitted.bin_edges))
    built = RankDistributionDisplay(ranks=[1, 2, 2], num_candidates=[3, 3, 3], n_bins=2, log_scale=True,
                                    density="per_rank")
    np.testing.assert_allclose(built.heights, built.counts / np.diff(built.bin_edges))


@pytest.mark.parametrize("density", ["yes", 1, None, "per-rank"])
def test_rank_distribution_bad_density(density):
    message = f"`density` must be one of False, True, 'per_rank'. Got {density!r} instead."
    with pytest.raises(ValueError, match=re.escape(message)):
        RankDistributionDisplay(ranks=[1], num_candidates=[3], density=density)
    with pytest.raises(ValueError, match=re.escape(message)):
        RankDistributionDisplay.from_predictions("not ranked before the check", None, density=density)


# --------------------------------------------------------------------------------------------
# from_estimator
# --------------------------------------------------------------------------------------------
def test_from_estimator_on_a_ranking_evaluator_and_on_a_plain_estimator():
    from sklearn.linear_model import Ridge

    from sklearn_rank import RankingEvaluator
    from sklearn_rank.datasets import make_ranking

    X, y, qid = make_ranking(n_queries=30, n_candidates=(4, 20), random_state=0)
    Xq = np.column_stack([qid, X])
    evaluator = RankingEvaluator(Ridge(), qid=0, ties="optimistic").fit(Xq, y)
    scores = evaluator.predict(Xq)
    display = HitsAtKCurveDisplay.from_estimator(evaluator, Xq, y, k=10)
    # the evaluator's options (ties="optimistic") and its query-id column
    assert display.hits.tolist() == [hits_at_k(y, scores, qid=qid, k=k, ties="optimistic") for k in range(1, 11)]
    assert display.line_.get_label().startswith("Ridge")
    overridden = HitsAtKCurveDisplay.from_estimator(evaluator, Xq, y, k=10, ties="pessimistic", name="mine")
    assert overridden.hits.tolist() == [hits_at_k(y, scores, qid=qid, k=k, ties="pessimistic")
                                        for k in range(1, 11)]
    ranks = RankDistributionDisplay.from_estimator(evaluator, Xq, y)
    assert np.array_equal(ranks.ranks, compute_ranks(y, scores, qid=qid).optimistic)

    plain = Ridge().fit(X, y)
    display = HitsAtKCurveDisplay.from_estimator(plain, X, y, qid=qid, k=5)
    assert display.hits.tolist() == [hits_at_k(y, plain.predict(X), qid=qid, k=k) for k in range(1, 6)]
    ranks = RankDistributionDisplay.from_estimator(plain, X, y, qid=qid)
    assert np.array_equal(ranks.ranks, compute_ranks(y, plain.predict(X), qid=qid).realistic)
    with pytest.raises(ValueError, match="needs query ids.*Got qid=None instead"):
        HitsAtKCurveDisplay.from_estimator(plain, X, y)


def test_from_estimator_classifier_label_index():
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression

    X, y = load_digits(return_X_y=True)
    model = LogisticRegression(max_iter=300).fit(X[:900], y[:900])
    proba = model.predict_proba(X[900:])
    display = HitsAtKCurveDisplay.from_estimator(model, X[900:], y[900:])
    assert display.hits.tolist() == [hits_at_k(y[900:], proba, labels=model.classes_, k=k) for k in range(1, 11)]
    ranks = RankDistributionDisplay.from_estimator(model, X[900:], y[900:], ties="pessimistic")
    assert np.array_equal(ranks.ranks, compute_ranks(y[900:], proba, labels=model.classes_).pessimistic)


def test_from_estimator_refuses_an_unfitted_estimator():
    from sklearn.exceptions import NotFittedError
    from sklearn.linear_model import Ridge

    with pytest.raises(NotFittedError):
        HitsAtKCurveDisplay.from_estimator(Ridge(), np.zeros((4, 2)), np.zeros(4), qid=[1, 1, 2, 2])
    with pytest.raises(TypeError, match="fitted scikit-learn estimator"):
        RankDistributionDisplay.from_estimator(object(), np.zeros((4, 2)), np.zeros(4), qid=[1, 1, 2, 2])


# --------------------------------------------------------------------------------------------
# QueryComparisonDisplay
# --------------------------------------------------------------------------------------------
def _two_reports(metrics=("ndcg@5", "mr")):
    y, score, qid = _grouped(seed=11, n_queries=30, ties=False)
    rng = np.random.default_rng(3)
    report_a = evaluate(y, score, qid=qid, metrics=list(metrics))
    report_b = evaluate(y, score + rng.normal(scale=1.0, size=score.size), qid=qid, metrics=list(metrics))
    # B lists its queries in another order: pairing is by id, not position
    order = rng.permutation(report_b.n_queries)
    report_b.per_query = {key: np.asarray(values)[order] for key, values in report_b.per_query.items()}
    return report_a, report_b


def test_query_comparison_pairs_by_query_id_and_counts_outcomes():
    from sklearn_rank import stats

    report_a, report_b = _two_reports()
    display = QueryComparisonDisplay.from_reports(report_a, report_b, metric="nDCG@5", name_a="a", name_b="b")
    by_id_b = dict(zip(report_b.per_query["qid"].tolist(), report_b.per_query["ndcg@5"].tolist()))
    pairs = sorted((q, v, by_id_b[q]) for q, v in zip(report_a.per_query["qid"].tolist(),
                                                      report_a.per_query["ndcg@5"].tolist()))
    assert display.qid.tolist() == [p[0] for p in pairs]
    assert display.values_a.tolist() == [p[1] for p in pairs]
    assert display.values_b.tolist() == [p[2] for p in pairs]
    wins = sum(a > b for _, a, b in pairs)
    losses = sum(a < b for _, a, b in pairs)
    assert (display.wins, display.ties, display.losses) == (wins, len(pairs) - wins - losses, losses)
    np.testing.assert_array_equal(display.scatter_.get_offsets(), np.column_stack([display.values_a,
                                                                                    display.values_b]))
    expected = stats.compare(report_a, report_b, metric="ndcg@5")
    assert display.result.pvalue == expected.pvalue and display.result.test == expected.test == "wilcoxon"
    legend = display.ax_.get_legend()
    assert legend.get_title().get_text() == f"wilcoxon (paired), p = {expected.pvalue:.3g}"
    assert [t.get_text() for t in legend.get_texts()] == [f"a better: {wins}", f"tie: {display.ties}",
                                                          f"b better: {losses}"]
    low, high = display.diagonal_.get_xdata()
    assert list(display.diagonal_.get_ydata()) == [low, high]


def test_query_comparison_lower_is_better_metric_counts_lower_as_a_win():
    report_a, report_b = _two_reports()
    # most queries have one relevant item, whose rank the noise of model B seldom moves: Wilcoxon's test warns
    with pytest.warns(DegenerateDataWarning, match=r"^18 of 27 paired differences are zero"):
        display = QueryComparisonDisplay.from_reports(report_a, report_b, metric="mr")
    assert (display.ties, display.values_a.size) == (18, 27)
    assert not display.greater_is_better
    assert display.wins == int(np.sum(display.values_a < display.values_b))
    assert display.losses == int(np.sum(display.values_a > display.values_b))


def test_query_comparison_unpaired_queries_and_undefined_values():
    report_a, report_b = _two_reports()
    report_b.per_query = {key: np.asarray(values)[2:] for key, values in report_b.per_query.items()}
    with pytest.raises(ValueError, match="same queries.*Got 2 query ids only in report_a"):
        QueryComparisonDisplay.from_reports(report_a, report_b, metric="ndcg@5")
    display = QueryComparisonDisplay.from_reports(report_a, report_b, metric="ndcg@5", unpaired="drop")
    assert (display.n_unpaired_a, display.n_unpaired_b) == (2, 0)
    assert display.values_a.size == len(report_b.per_query["qid"]) == report_a.n_queries - 2
    report_b.per_query["ndcg@5"] = np.asarray(report_b.per_query["ndcg@5"]).copy()
    report_b.per_query["ndcg@5"][0] = np.nan
    display = QueryComparisonDisplay.from_reports(report_a, report_b, metric="ndcg@5", unpaired="drop")
    assert display.n_undefined == 1 and display.values_a.size == report_a.n_queries - 3
    assert not np.isnan(display.values_b).any()


# --------------------------------------------------------------------------------------------
# bad input and missing matplotlib
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, error, message", [
    (lambda y, s, q: HitsAtKCurveDisplay.from_predictions(y, s, qid=q, k=0), ValueError,
     "`k` must be a positive integer. Got 0 instead."),
    (lambda y, s, q: HitsAtKCurveDisplay.from_predictions(y, s, qid=q, k=True), ValueError,
     "`k` must be a positive integer. Got True instead."),
    (lambda y, s, q: HitsAtKCurveDisplay.from_predictions(y, s, qid=q, ties="bogus"), ValueError, "bogus"),
    (lambda y, s, q: HitsAtKCurveDisplay.from_predictions(y, s, qid=q, name=3), TypeError,
     "`name` must be a str or None. Got int instead."),
    (lambda y, s, q: RankDistributionDisplay.from_predictions(y, s, qid=q, ties="mean"), ValueError,
     "`ties` must be one of 'realistic', 'optimistic', 'pessimistic', 'ordinal', 'expected'. Got 'mean' instead."),
    (lambda y, s, q: RankDistributionDisplay.from_predictions(y, s, qid=q, log_scale="yes"), ValueError,
     "`log_scale` must be one of 'auto', True, False. Got 'yes' instead."),
    (lambda y, s, q: RankDistributionDisplay.from_predictions(y, s, qid=q, n_bins=0), ValueError,
     "`n_bins` must be a positive integer. Got 0 instead."),
    (lambda y, s, q: RankDistributionDisplay.from_predictions(np.zeros_like(y), s, qid=q), ValueError,
     "no target has a rank"),
    (lambda y, s, q: HitsAtKCurveDisplay.from_predictions(np.zeros_like(y), s, qid=q), ValueError,
     "No query has a relevant item"),
])
def test_bad_input(call, error, message):
    y, score, qid = _grouped()
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")
                       .replace("*", r"\*")):
        call(y, score, qid)


def test_bad_reports():
    report_a, report_b = _two_reports()
    with pytest.raises(TypeError, match="`report_b` must be a RankingReport.*Got dict instead"):
        QueryComparisonDisplay.from_reports(report_a, {"ndcg@5": [1, 2]}, metric="ndcg@5")
    with pytest.raises(ValueError, match="`metric` must name a per-query metric.*Got 'map' instead"):
        QueryComparisonDisplay.from_reports(report_a, report_b, metric="map")
    with pytest.raises(ValueError, match="`metric` must name the metric to compare.*Got None instead"):
        QueryComparisonDisplay.from_reports(report_a, report_b)
    with pytest.raises(ValueError, match="`unpaired` must be one of 'raise', 'drop'. Got 'keep' instead"):
        QueryComparisonDisplay.from_reports(report_a, report_b, metric="mr", unpaired="keep")


def test_inputs_are_not_modified():
    y, score, qid = _grouped()
    copies = [a.copy() for a in (y, score, qid)]
    HitsAtKCurveDisplay.from_predictions(y, score, qid=qid, k=4)
    RankDistributionDisplay.from_predictions(y, score, qid=qid)
    for original, copy in zip((y, score, qid), copies):
        assert np.array_equal(original, copy)


def test_the_module_imports_without_matplotlib_and_drawing_names_the_extra():
    # one fresh interpreter: importing the module does not load matplotlib, and without it drawing says so
    code = ("import sys\n"
            "import sklearn_rank.plot as p\n"
            "assert 'matplotlib' not in sys.modules\n"
            "sys.modules['matplotlib'] = None\n"
            "try:\n"
            "    p.HitsAtKCurveDisplay.from_predictions([0, 1], [[0.2, 0.1], [0.3, 0.5]])\n"
            "except ImportError as exc:\n"
            "    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "HitsAtKCurveDisplay.plot needs matplotlib" in out.stdout and "sklearn-rank[plot]" in out.stdout


def test_each_display_links_to_the_user_guide():
    # (tests/test_docstrings.py checks the parameters of sklearn_rank.plot's docstrings with the other modules')
    import sklearn_rank.plot as module

    assert sorted(module.__all__) == ["HitsAtKCurveDisplay", "QueryComparisonDisplay", "RankDistributionDisplay"]
    for name in module.__all__:
        assert "Read more in the :ref:`User Guide <plotting>`." in " ".join(getattr(module, name).__doc__.split())


def test_query_comparison_needs_two_paired_queries_and_says_so():
    report_a, report_b = _two_reports()
    qid = np.asarray(report_a.per_query["qid"])
    report_b.per_query = {key: np.asarray(values)[np.isin(qid, qid[:1])] for key, values in
                          report_b.per_query.items()}
    with pytest.raises(ValueError, match=r"`report_a` and `report_b` must share at least two queries with a value "
                                         r"of 'ndcg@5'.*Got 1 instead\.$"):
        QueryComparisonDisplay.from_reports(report_a, report_b, metric="ndcg@5", unpaired="drop")


@pytest.mark.parametrize("kwargs, message", [
    (dict(ranks=[1, 5], num_candidates=[3, 3]), r"`ranks` must lie in \[1, num_candidates\].*Got ranks\[1\] = "),
    (dict(ranks=[1, np.nan], num_candidates=[3, 3]), r"`ranks` must .*Got ranks\[1\] = .*nan"),
    (dict(ranks=[1, 2], num_candidates=[3, 3], num_relevant=[0, 1]), r"`num_relevant` must .*Got num_relevant\[0\]"),
])
def test_rank_distribution_constructor_names_the_bad_value(kwargs, message):
    with pytest.raises(ValueError, match=message + r".* instead\.$"):
        RankDistributionDisplay(**kwargs)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_query_comparison_constructor_refuses_undefined_values(bad):
    # a NaN pair compares neither higher nor lower: it would count as a tie, drawn nowhere
    with pytest.raises(ValueError, match=r"`values_b` must be finite.*Got values_b\[1\] = .* \(query 'q2'\) "
                                         r"instead\.$"):
        QueryComparisonDisplay(values_a=[0.5, 0.2, 1.0], values_b=[0.2, bad, 1.0], qid=["q1", "q2", "q3"],
                               metric="mrr")


def test_rank_distribution_tie_blocks_are_checked():
    ranks = compute_ranks(np.zeros(4, dtype=int), np.zeros((4, 3)))
    with pytest.raises(ValueError, match="`optimistic` and `pessimistic` go together.*Got only `optimistic` instead"):
        RankDistributionDisplay(ranks=ranks.expected, num_candidates=ranks.num_candidates,
                                optimistic=ranks.optimistic)
    with pytest.raises(ValueError, match="one rank per target"):
        RankDistributionDisplay(ranks=ranks.expected, num_candidates=ranks.num_candidates,
                                optimistic=ranks.optimistic[:2], pessimistic=ranks.pessimistic[:2])
    with pytest.raises(ValueError, match="must be the expected ranks"):
        RankDistributionDisplay(ranks=ranks.realistic * 0 + 1.7, num_candidates=ranks.num_candidates,
                                optimistic=ranks.optimistic, pessimistic=ranks.pessimistic)
    display = RankDistributionDisplay(ranks=ranks.expected, num_candidates=ranks.num_candidates,
                                      optimistic=ranks.optimistic, pessimistic=ranks.pessimistic)
    np.testing.assert_allclose(display.counts, [4 / 3] * 3)


# --------------------------------------------------------------------------------------------
# every convention preset (the list is read from _conventions, so a new preset is tested too)
# --------------------------------------------------------------------------------------------
def _engine_or_error(call):
    """The engine's value, or the error it raises (a preset may refuse the data, e.g. NaN scores)."""
    try:
        return call(), None
    except (ValueError, TypeError) as exc:
        return None, exc


def _with_nan(score, seed=6):
    rng = np.random.default_rng(seed)
    score = score.copy()
    score[rng.random(score.size) < 0.1] = np.nan
    return score


@pytest.mark.parametrize("convention", CONVENTIONS)
@pytest.mark.parametrize("nan", [False, True])
def test_hits_curve_is_hits_at_k_under_every_convention(convention, nan):
    """The curve is the hit rate of hits_at_k under the preset, never a metric the preset reads in the name
    ``hits@k`` (ranx's hits@k counts the relevant items in the top k: the curve went above 1)."""
    y, score, qid = _grouped(seed=2)
    if nan:
        score = _with_nan(score)
    expected, error = _engine_or_error(lambda: [hits_at_k(y, score, qid=qid, k=k, convention=convention)
                                                for k in range(1, 11)])
    if error is not None:  # the preset refuses the data: so does the display, with the engine's message
        with pytest.raises(type(error), match=re.escape(str(error))):
            HitsAtKCurveDisplay.from_predictions(y, score, qid=qid, k=10, convention=convention)
        return
    display = HitsAtKCurveDisplay.from_predictions(y, score, qid=qid, k=10, convention=convention)
    assert display.hits.tolist() == expected
    assert 0 <= display.hits.min() and display.hits.max() <= 1 and 0 <= display.auc <= 1
    # the baseline: hits_at_k of a constant scorer (NaN kept) with ties="expected", same preset otherwise
    constant = np.where(np.isnan(score), np.nan, 0.0)
    baseline = [hits_at_k(y, constant, qid=qid, k=k, ties="expected", convention=convention) for k in range(1, 11)]
    np.testing.assert_allclose(display.baseline_hits, baseline, rtol=1e-12, atol=1e-15)
    assert display.baseline_hits.max() <= 1


def test_hits_curve_under_ranx_is_the_hit_rate_by_a_loop_over_queries():
    """ranx's own reading: input order among ties, 0 for a query without a relevant row; a hit is a relevant
    row in the top k (at most 1 per query, however many relevant rows are there)."""
    y, score, qid = _grouped(seed=2)
    display = HitsAtKCurveDisplay.from_predictions(y, score, qid=qid, k=10, convention="ranx")
    oracle = []
    for k in range(1, 11):
        values = []
        for q in np.unique(qid):
            rows = np.flatnonzero(qid == q)  # input order
            order = np.argsort(-score[rows], kind="stable")
            relevant = y[rows][order] > 0
            values.append(float(relevant[:k].any()))
        oracle.append(np.mean(values))
    assert max(np.sum(y[qid == q] > 0) for q in np.unique(qid)) > 1  # a count would differ from the rate
    np.testing.assert_allclose(display.hits, oracle, rtol=1e-12, atol=1e-15)


def _preset_has(convention, metric):
    """Whether the preset's peer has the metric (a preset refuses the others)."""
    from sklearn_rank._conventions import PRESETS

    allowed = PRESETS[convention].metrics
    return allowed is None or get_metric(metric).base in allowed and get_metric(metric).base not in \
        PRESETS[convention].refused


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_hits_curve_from_estimator_under_every_convention(convention):
    from sklearn.linear_model import Ridge

    from sklearn_rank import RankingEvaluator
    from sklearn_rank.datasets import make_ranking

    X, y, qid = make_ranking(n_queries=20, n_candidates=(4, 12), random_state=1)
    y = (y > 0).astype(float)  # several relevant rows per query
    if not _preset_has(convention, "hits@1"):  # the curve is refused as hits_at_k is, naming the preset
        with pytest.raises(ValueError, match=rf"convention='{convention}' .* has no 'hits'"):
            HitsAtKCurveDisplay.from_estimator(Ridge().fit(X, y), X, y, qid=qid, k=6, convention=convention)
        return
    evaluator = RankingEvaluator(Ridge(), qid=0, convention=convention).fit(np.column_stack([qid, X]), y)
    scores = evaluator.predict(np.column_stack([qid, X]))
    display = HitsAtKCurveDisplay.from_estimator(evaluator, np.column_stack([qid, X]), y, k=6)
    assert display.hits.tolist() == [hits_at_k(y, scores, qid=qid, k=k, convention=convention) for k in range(1, 7)]
    plain = Ridge().fit(X, y)
    display = HitsAtKCurveDisplay.from_estimator(plain, X, y, qid=qid, k=6, convention=convention)
    assert display.hits.tolist() == [hits_at_k(y, plain.predict(X), qid=qid, k=k, convention=convention)
                                     for k in range(1, 7)]


@pytest.mark.parametrize("convention", CONVENTIONS)
@pytest.mark.parametrize("nan", [False, True])
def test_rank_distribution_is_compute_ranks_under_every_convention(convention, nan):
    y, score, qid = _grouped(seed=5)
    if nan:
        score = _with_nan(score)
    ranks, error = _engine_or_error(lambda: compute_ranks(y, score, qid=qid, convention=convention))
    for ties in TIES:
        if error is not None:
            with pytest.raises(type(error), match=re.escape(str(error))):
                RankDistributionDisplay.from_predictions(y, score, qid=qid, ties=ties, convention=convention)
            continue
        display = RankDistributionDisplay.from_predictions(y, score, qid=qid, ties=ties, convention=convention)
        assert display.ranks.tolist() == getattr(ranks, ties).tolist()
        assert display.num_candidates.tolist() == ranks.num_candidates.tolist()
        assert display.num_relevant.tolist() == ranks.num_relevant.tolist()
        assert display.counts.sum() == pytest.approx(len(ranks), rel=1e-12)


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_query_comparison_under_every_convention(convention):
    """Reports of one preset: the values drawn are the reports' per-query values, and a win is judged in the
    direction of the metric the preset reads in the name."""
    y, score, qid = _grouped(seed=11, n_queries=30, ties=False)
    rng = np.random.default_rng(4)
    metrics = [m for m in ["hits@3", "mr", "ndcg@5", "map", "mrr"] if _preset_has(convention, m)]
    report_a = evaluate(y, score, qid=qid, metrics=metrics, convention=convention)
    report_b = evaluate(y, score + rng.normal(size=score.size), qid=qid, metrics=metrics, convention=convention)
    for metric in metrics:
        a = dict(zip(report_a.per_query["qid"].tolist(), report_a.per_query[metric].tolist()))
        b = dict(zip(report_b.per_query["qid"].tolist(), report_b.per_query[metric].tolist()))
        pairs = [(q, a[q], b[q]) for q in sorted(a) if not (np.isnan(a[q]) or np.isnan(b[q]))]
        n_zero = sum(x == z for _, x, z in pairs)
        # hits@3, mr and mrr of the two models are mostly equal under most presets: Wilcoxon's test warns then
        warned = (pytest.warns(DegenerateDataWarning, match=rf"^(Every paired difference is zero|{n_zero} of "
                                                            rf"{len(pairs)} paired differences are zero)")
                  if 2 * n_zero > len(pairs) else contextlib.nullcontext())
        with warned:
            display = QueryComparisonDisplay.from_reports(report_a, report_b, metric=metric)
        assert display.values_a.tolist() == [p[1] for p in pairs]
        assert display.values_b.tolist() == [p[2] for p in pairs]
        higher = get_metric(metric).greater_is_better
        assert display.greater_is_better == higher
        assert display.wins == sum((x > z) if higher else (x < z) for _, x, z in pairs)


def test_query_comparison_refuses_a_name_two_presets_read_as_different_metrics():
    """ranx's hits@3 counts relevant items in the top 3, sklearn-rank's is a hit rate: not one metric."""
    y, score, qid = _grouped(seed=11, n_queries=30, ties=False)
    ranx = evaluate(y, score, qid=qid, metrics=["hits@3", "mrr"], convention="ranx")
    plain = evaluate(y, -score, qid=qid, metrics=["hits@3", "mrr"])
    with pytest.raises(ValueError, match=r"`report_a` and `report_b` must hold the same metric under 'hits@3'.*"
                                         r"Got .*num_rel_ret@3.* and .*hits@3.* instead\.$"):
        QueryComparisonDisplay.from_reports(ranx, plain, metric="hits@3")
    # the same metric under both (mrr) is compared, whatever else the presets change
    display = QueryComparisonDisplay.from_reports(ranx, plain, metric="mrr", unpaired="drop")
    assert display.values_a.size > 2


# --------------------------------------------------------------------------------------------
# ax
# --------------------------------------------------------------------------------------------
_AX_MESSAGE = "`ax` must be a matplotlib Axes or None. Got {} instead."


def _ax_calls():
    y, score, qid = _grouped()
    report_a, report_b = _two_reports()
    hits = HitsAtKCurveDisplay(k=[1, 2], hits=[0.5, 1.0])
    ranks = RankDistributionDisplay(ranks=[1, 2], num_candidates=[3, 3])
    comparison = QueryComparisonDisplay(values_a=[0.5, 0.2], values_b=[0.2, 0.4], qid=[1, 2], metric="mrr")
    from sklearn.linear_model import Ridge

    model = Ridge().fit(score[:, None], y)
    return {
        "HitsAtKCurveDisplay.from_predictions": lambda ax: HitsAtKCurveDisplay.from_predictions(
            y, score, qid=qid, k=3, ax=ax),
        "HitsAtKCurveDisplay.from_estimator": lambda ax: HitsAtKCurveDisplay.from_estimator(
            model, score[:, None], y, qid=qid, k=3, ax=ax),
        "HitsAtKCurveDisplay.plot": lambda ax: hits.plot(ax=ax),
        "RankDistributionDisplay.from_predictions": lambda ax: RankDistributionDisplay.from_predictions(
            y, score, qid=qid, ax=ax),
        "RankDistributionDisplay.from_estimator": lambda ax: RankDistributionDisplay.from_estimator(
            model, score[:, None], y, qid=qid, ax=ax),
        "RankDistributionDisplay.plot": lambda ax: ranks.plot(ax=ax),
        "QueryComparisonDisplay.from_reports": lambda ax: QueryComparisonDisplay.from_reports(
            report_a, report_b, metric="ndcg@5", ax=ax),
        "QueryComparisonDisplay.plot": lambda ax: comparison.plot(ax=ax),
    }


@pytest.mark.parametrize("call", sorted(_ax_calls()))
@pytest.mark.parametrize("bad", ["x", 3, np.zeros(2), "figure"])
def test_a_bad_ax_is_refused_naming_the_parameter(call, bad):
    with pytest.raises(TypeError, match=re.escape(_AX_MESSAGE.format(type(bad).__name__)) + "$"):
        _ax_calls()[call](bad)


def test_a_figure_is_not_an_axes():
    figure = plt.figure()
    with pytest.raises(TypeError, match=re.escape(_AX_MESSAGE.format("Figure"))):
        HitsAtKCurveDisplay(k=[1, 2], hits=[0.5, 1.0]).plot(ax=figure)


@pytest.mark.parametrize("call", sorted(_ax_calls()))
def test_an_axes_or_none_is_drawn_on(call):
    _, ax = plt.subplots()
    display = _ax_calls()[call](ax)
    assert display.ax_ is ax and display.figure_ is ax.figure
    display = _ax_calls()[call](None)
    assert display.ax_ is not ax and display.ax_.figure is display.figure_


def test_query_comparison_weighs_weighted_reports_as_stats_does():
    """The legend's test used the plain per-query values of weighted reports (stats weighs them)."""
    from sklearn_rank import stats

    rng = np.random.default_rng(3)
    qid = np.repeat(np.arange(30), 6)
    y_true = (rng.random(qid.size) < 0.3).astype(int)
    y_true[::6] = 1
    weight = np.repeat(rng.integers(1, 5, size=30), 6).astype(float)
    a = evaluate(y_true, rng.normal(size=qid.size) + y_true, qid=qid, metrics=["mrr"], sample_weight=weight)
    b = evaluate(y_true, rng.normal(size=qid.size), qid=qid, metrics=["mrr"], sample_weight=weight)
    display = QueryComparisonDisplay.from_reports(a, b, metric="mrr", test="ttest")
    expected = stats.compare(a, b, metric="mrr", test="ttest")
    assert display.result.weighted and expected.weighted
    assert display.result.pvalue == expected.pvalue and display.result.estimate == expected.estimate
    unweighted = stats.compare(a.per_query["mrr"], b.per_query["mrr"], test="ttest", paired=True)
    assert display.result.pvalue != unweighted.pvalue
    with pytest.raises(ValueError, match="sample_weight"):  # the rank test has no weighted form: refused
        QueryComparisonDisplay.from_reports(a, b, metric="mrr", test="wilcoxon")
    plt.close("all")


# --------------------------------------------------------------------------------------------
# input checks from an adversarial pass (issue 21)
# --------------------------------------------------------------------------------------------
def _peak_memory(call):
    """Peak bytes numpy and Python allocate while ``call`` runs (numpy reports to tracemalloc)."""
    import tracemalloc

    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("log_scale", [False, True])
def test_n_bins_beyond_the_largest_rank_is_one_bin_per_rank_without_allocating_them(log_scale):
    """n_bins=10**9 built 10**9 + 1 bin boundaries (gigabytes) before keeping the few integer ranks."""
    y, score, qid = _grouped()
    display, peak = _peak_memory(lambda: RankDistributionDisplay.from_predictions(
        y, score, qid=qid, ties="realistic", n_bins=10**9, log_scale=log_scale))
    assert peak < 50 * 2**20
    max_rank = int(compute_ranks(y, score, qid=qid).num_candidates.max())
    assert display.bin_edges.tolist() == [rank - 0.5 for rank in range(1, max_rank + 2)]
    ranks = compute_ranks(y, score, qid=qid).realistic
    # one bin per rank: a mid rank r + 0.5 lies on an edge and counts in the bin above
    assert display.counts.tolist() == [int(np.sum(np.floor(ranks + 0.5) == rank)) for rank in range(1, max_rank + 1)]
    assert display.log_scale is log_scale


def test_many_bins_and_many_candidate_counts_stay_in_bounded_memory():
    """The baseline (distinct candidate counts x bins) and the expected counts (tied targets x bins) were
    one matrix each: 5000 x 5001 floats, several times over."""
    num_candidates = np.arange(1, 5001)
    optimistic, pessimistic = np.ones(5000), num_candidates.astype(float)
    expected = (optimistic + pessimistic) / 2  # one target tied with every candidate: a constant scorer
    display, peak = _peak_memory(lambda: RankDistributionDisplay(
        ranks=expected, num_candidates=num_candidates, optimistic=optimistic, pessimistic=pessimistic,
        n_bins=5000, log_scale=False))
    assert peak < 64 * 2**20
    assert display.bin_edges.size == 5001
    # a constant scorer draws the random baseline exactly; each target's rank is uniform on 1 .. N
    np.testing.assert_allclose(display.counts, display.baseline_counts, rtol=1e-9, atol=1e-9)
    oracle = np.array([np.sum(1.0 / num_candidates[num_candidates >= rank]) for rank in range(1, 5001)])
    np.testing.assert_allclose(display.baseline_counts, oracle, rtol=1e-9)


@pytest.mark.parametrize("bad, error, message", [
    (2.5, ValueError, "`n_bins` must be a positive integer. Got 2.5 instead."),
    ("10", ValueError, "`n_bins` must be a positive integer. Got '10' instead."),
    (-3, ValueError, "`n_bins` must be a positive integer. Got -3 instead."),
])
def test_n_bins_is_checked_before_any_work(bad, error, message):
    # the data are nonsense: the n_bins check comes first
    with pytest.raises(error, match=re.escape(message) + "$"):
        RankDistributionDisplay.from_predictions("nonsense", None, n_bins=bad)
    with pytest.raises(error, match=re.escape(message) + "$"):
        RankDistributionDisplay(ranks=[1], num_candidates=[3], n_bins=bad)


def test_no_relevant_item_at_the_relevance_level_names_the_relevance_level():
    y, score, qid = _grouped()
    n_queries = np.unique(qid).size
    message = (r"^`relevance_level` must leave at least one query with a relevant item \(y_true >= "
               r"relevance_level\): {}\. Got relevance_level=5, with none in the "
               rf"{n_queries} queries, instead\.$")
    histogram = message.format("no target has a rank to draw")
    curve = message.format("there is no hits@k curve to draw")
    with pytest.raises(ValueError, match=histogram):
        RankDistributionDisplay.from_predictions(y, score, qid=qid, relevance_level=5)
    with pytest.raises(ValueError, match=curve):
        HitsAtKCurveDisplay.from_predictions(y, score, qid=qid, relevance_level=5)
    from sklearn.linear_model import Ridge

    model = Ridge().fit(score[:, None], y)
    with pytest.raises(ValueError, match=histogram):
        RankDistributionDisplay.from_estimator(model, score[:, None], y, qid=qid, relevance_level=5)
    with pytest.raises(ValueError, match=curve):
        HitsAtKCurveDisplay.from_estimator(model, score[:, None], y, qid=qid, relevance_level=5)
    # without relevance_level: no item with y_true > 0
    with pytest.raises(ValueError, match=r"No query has a relevant item \(y_true > 0\) among its candidates: no "
                                         rf"target has a rank to draw\. Got {n_queries} queries without one instead"):
        RankDistributionDisplay.from_predictions(np.zeros_like(y), score, qid=qid)


@pytest.mark.parametrize("call, error, message", [
    # RankDistributionDisplay
    (lambda: RankDistributionDisplay(ranks=[3.2], num_candidates=[3.5]), ValueError,
     "`num_candidates` must hold whole candidate counts. Got num_candidates[0] = 3.5 instead."),
    (lambda: RankDistributionDisplay(ranks=[1, 2], num_candidates=[3, 3], num_relevant=[1, 1.5]), ValueError,
     "`num_relevant` must hold whole counts of relevant candidates. Got num_relevant[1] = 1.5 instead."),
    (lambda: RankDistributionDisplay(ranks=[1, 3.2], num_candidates=[4, 4], ties="realistic"), ValueError,
     "`ranks` must be whole or half ranks (mid ranks) under ties='realistic'. Got ranks[1] = 3.2 instead."),
    (lambda: RankDistributionDisplay(ranks=[1, 2.5], num_candidates=[4, 4], ties="ordinal"), ValueError,
     "`ranks` must be whole ranks under ties='ordinal'. Got ranks[1] = 2.5 instead."),
    (lambda: RankDistributionDisplay(ranks=[2.5], num_candidates=[4], ties="optimistic"), ValueError,
     "`ranks` must be whole ranks under ties='optimistic'. Got ranks[0] = 2.5 instead."),
    (lambda: RankDistributionDisplay(ranks=[1], num_candidates=[4], ties="bogus"), ValueError,
     "`ties` must be one of 'realistic', 'optimistic', 'pessimistic', 'ordinal', 'expected'. Got 'bogus' instead."),
    (lambda: RankDistributionDisplay(ranks=["a"], num_candidates=[4]), TypeError,
     "`ranks` must hold numbers. Got ranks[0] = 'a' (str) instead."),
    (lambda: RankDistributionDisplay(ranks=[1], num_candidates=["4"]), TypeError,
     "`num_candidates` must hold numbers. Got num_candidates[0] = '4' (str) instead."),
    (lambda: RankDistributionDisplay(ranks=[1], num_candidates=[True]), TypeError,
     "`num_candidates` must hold numbers. Got num_candidates[0] = True (bool) instead."),
    (lambda: RankDistributionDisplay(ranks=[1], num_candidates=[4]).plot(plot_baseline="no"), TypeError,
     "`plot_baseline` must be a bool. Got str instead."),
    # HitsAtKCurveDisplay
    (lambda: HitsAtKCurveDisplay(k=[1, 2], hits=[1.5, 2]), ValueError,
     "`hits` must lie in [0, 1] (hit rates). Got hits[0] = 1.5 instead."),
    (lambda: HitsAtKCurveDisplay(k=[1, 2], hits=[0.5, np.nan]), ValueError,
     "`hits` must lie in [0, 1] (hit rates). Got hits[1] = nan instead."),
    (lambda: HitsAtKCurveDisplay(k=[1, 2], hits=[0.5, 1], baseline_hits=[-0.1, 0.5]), ValueError,
     "`baseline_hits` must lie in [0, 1] (hit rates). Got baseline_hits[0] = -0.1 instead."),
    (lambda: HitsAtKCurveDisplay(k=[1, 2], hits=["a", "b"]), TypeError,
     "`hits` must hold numbers. Got hits[0] = 'a' (str) instead."),
    (lambda: HitsAtKCurveDisplay(k=["a", "b"], hits=[0.5, 1]), TypeError,
     "`k` must hold numbers. Got k[0] = 'a' (str) instead."),
    (lambda: HitsAtKCurveDisplay(k=[1, 2], hits=[0.5, 1]).plot(plot_baseline="no"), TypeError,
     "`plot_baseline` must be a bool. Got str instead."),
    # QueryComparisonDisplay
    (lambda: QueryComparisonDisplay(values_a=["a", 0.2], values_b=[0.1, 0.2], qid=[1, 2], metric="mrr"), TypeError,
     "`values_a` must hold numbers. Got values_a[0] = 'a' (str) instead."),
    (lambda: QueryComparisonDisplay(values_a=[0.1, 0.2], values_b=[0.1, None], qid=[1, 2], metric="mrr"), TypeError,
     "`values_b` must hold numbers. Got values_b[1] = None (NoneType) instead."),
    (lambda: QueryComparisonDisplay(values_a=[0.1, 0.2], values_b=[0.1, 0.3], qid=[1, 2], metric="mrr",
                                    greater_is_better="no"), TypeError,
     "`greater_is_better` must be a bool. Got str instead."),
])
def test_constructors_refuse_what_cannot_be_their_numbers(call, error, message):
    with pytest.raises(error, match=re.escape(message) + "$"):
        call()


@pytest.mark.parametrize("ties, ranks", [
    ("expected", [1, 3.2, 1 + 2 / 3]),  # optimistic + d / (r + 1): any fraction
    ("realistic", [1, 2.5, 4]),
    ("ordinal", [1.0, 2, 4]),
])
def test_constructor_accepts_every_rank_its_ties_can_give(ties, ranks):
    display = RankDistributionDisplay(ranks=ranks, num_candidates=[4, 4, 4], ties=ties)
    assert display.ranks.tolist() == [float(r) for r in ranks]


def test_plot_baseline_is_checked_before_any_work():
    with pytest.raises(TypeError, match=r"^`plot_baseline` must be a bool\. Got str instead\.$"):
        HitsAtKCurveDisplay.from_predictions("nonsense", None, plot_baseline="no")
    with pytest.raises(TypeError, match=r"^`plot_baseline` must be a bool\. Got int instead\.$"):
        RankDistributionDisplay.from_predictions("nonsense", None, plot_baseline=1)
    # numpy's bool is a bool
    display = HitsAtKCurveDisplay(k=[1, 2], hits=[0.5, 1], baseline_hits=[0.5, 1]).plot(plot_baseline=np.False_)
    assert display.baseline_line_ is None


def _from_calls():
    """Each from_* of the Displays, on nonsense data: an unknown keyword is refused before the data are read."""
    from sklearn.linear_model import Ridge

    report_a, report_b = _two_reports()
    model = Ridge().fit(np.zeros((4, 1)), np.arange(4.0))
    return {
        "HitsAtKCurveDisplay.from_predictions": lambda **kw: HitsAtKCurveDisplay.from_predictions(
            "nonsense", None, **kw),
        "HitsAtKCurveDisplay.from_estimator": lambda **kw: HitsAtKCurveDisplay.from_estimator(
            model, "nonsense", None, **kw),
        "RankDistributionDisplay.from_predictions": lambda **kw: RankDistributionDisplay.from_predictions(
            "nonsense", None, **kw),
        "RankDistributionDisplay.from_estimator": lambda **kw: RankDistributionDisplay.from_estimator(
            model, "nonsense", None, **kw),
        "QueryComparisonDisplay.from_reports": lambda **kw: QueryComparisonDisplay.from_reports(
            report_a, {"no": "report"}, **kw),
    }


@pytest.mark.parametrize("call", sorted(_from_calls()))
def test_an_unknown_keyword_is_refused_before_any_work(call):
    with pytest.raises(TypeError, match=rf"^{re.escape(call)} got an unexpected keyword argument 'colour' \(did you "
                                        r"mean 'color'\?\): .*Got colour='red' instead\.$"):
        _from_calls()[call](colour="red")


def test_max_k_is_refused_naming_k():
    y, score, qid = _grouped()
    message = (r"^HitsAtKCurveDisplay.from_predictions got an unexpected keyword argument 'max_k' \(did you mean "
               r"'k'\?\): its own keywords are y_true, y_score, k, qid, .*; any other keyword goes to matplotlib's "
               r"Axes\.plot and must be a property of a Line2D\. Got max_k=5 instead\.$")
    with pytest.raises(TypeError, match=message):
        HitsAtKCurveDisplay.from_predictions(y, score, qid=qid, max_k=5)


def test_keywords_the_display_sets_itself_are_refused_up_front():
    y, score, qid = _grouped()
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'width' \(the display sets it\)"):
        RankDistributionDisplay.from_predictions(y, score, qid=qid, width=3)


def test_matplotlib_keywords_reach_the_artists():
    y, score, qid = _grouped()
    hits = HitsAtKCurveDisplay.from_predictions(y, score, qid=qid, k=3, color="red", lw=3, scalex=False)
    assert hits.line_.get_color() == "red" and hits.line_.get_linewidth() == 3
    ranks = RankDistributionDisplay.from_predictions(y, score, qid=qid, hatch="/", edgecolor="green",
                                                     tick_label=None, log=False)
    assert all(bar.get_hatch() == "/" for bar in ranks.bars_)
    report_a, report_b = _two_reports()
    comparison = QueryComparisonDisplay.from_reports(report_a, report_b, metric="ndcg@5", marker="x", s=5,
                                                     linewidths=2)
    assert comparison.scatter_.get_sizes().tolist() == [5]


def _mixed_id_reports():
    y, score, qid = _grouped(seed=11, n_queries=30, ties=False)
    report_int = evaluate(y, score, qid=qid, metrics=["mrr"])
    report_str = evaluate(y, -score, qid=qid.astype(str), metrics=["mrr"])
    return report_int, report_str


def test_integer_and_string_query_ids_are_not_paired():
    """Query 3 and query '3' are different queries: stats and the Display paired them silently."""
    from sklearn_rank import stats

    report_int, report_str = _mixed_id_reports()
    message = (r"^`{a}` and `{b}` must have query ids of one type to be paired by query id \(the number 3 and the "
               r"string '3' are different queries\)\. Got numbers \(int64\) in `{a}` and strings \(<U\d+\) in `{b}` "
               r"instead\.$")
    with pytest.raises(ValueError, match=message.format(a="report_a", b="report_b")):
        QueryComparisonDisplay.from_reports(report_int, report_str, metric="mrr")
    for paired in (None, True):
        with pytest.raises(ValueError, match=message.format(a="a", b="b")):
            stats.compare(report_int, report_str, metric="mrr", paired=paired)
    # as independent samples there is nothing to pair
    assert stats.compare(report_int, report_str, metric="mrr", paired=False).paired is False


def test_query_ids_of_two_number_types_are_paired():
    from sklearn_rank import stats

    report_int, _ = _mixed_id_reports()
    y, score, qid = _grouped(seed=11, n_queries=30, ties=False)
    report_float = evaluate(y, -score, qid=qid.astype(float), metrics=["mrr"])
    display = QueryComparisonDisplay.from_reports(report_int, report_float, metric="mrr")
    assert display.values_a.size == report_int.n_queries
    assert stats.compare(report_int, report_float, metric="mrr").paired
