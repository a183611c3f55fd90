"""Sanity checks of the reference implementations in ``oracles.py``.

The oracles are checked against peers (scikit-learn, scipy, pytrec_eval), against
closed forms and against each other (enumeration vs mid rank, fixed order vs
positions), so that the engine tests compare with something trustworthy.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats
from sklearn.metrics import average_precision_score, dcg_score, ndcg_score, roc_auc_score

try:
    from . import oracles
except ImportError:
    import oracles


def _random_query(rng, n_items, n_levels=3, score_values=None):
    rels = rng.integers(0, n_levels, size=n_items).tolist()
    if score_values is None:
        scores = rng.permutation(n_items).astype(float).tolist()  # tie-free
    else:
        scores = rng.integers(0, score_values, size=n_items).tolist()
    return scores, rels


# ---------------------------------------------------------------------------
# fixed-order definitions on hand-computed lists
# ---------------------------------------------------------------------------


def test_fixed_order_hand_values():
    labels = [0, 1, 0, 1, 1]
    assert oracles.reciprocal_rank(labels) == 0.5
    assert oracles.reciprocal_rank([0, 0]) == 0.0
    assert oracles.average_precision(labels, 3) == pytest.approx((1 / 2 + 2 / 4 + 3 / 5) / 3)
    # retrieval setting: two more relevant items were never retrieved
    assert oracles.average_precision(labels, 5) == pytest.approx((1 / 2 + 2 / 4 + 3 / 5) / 5)
    assert oracles.average_precision(labels, 3, k=4) == pytest.approx((1 / 2 + 2 / 4) / 3)
    assert oracles.precision_at_k(labels, 2) == 0.5
    assert oracles.precision_at_k(labels, 10) == 0.3  # divides by k for short lists
    assert oracles.recall_at_k(labels, 3, 4) == pytest.approx(2 / 3)
    assert oracles.f1_at_k(labels, 3, 4) == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert oracles.f1_at_k(labels, 3, 1) == 0.0
    assert oracles.hits_at_k(labels, 1) == 0.0
    assert oracles.hits_at_k(labels, 2) == 1.0
    assert oracles.r_precision(labels, 3) == pytest.approx(1 / 3)
    assert oracles.r_precision(labels, 7) == pytest.approx(3 / 7)
    assert oracles.roc_auc(labels) == pytest.approx(1 / 6)
    assert oracles.dcg_at_k([3, 2, 0, 1]) == pytest.approx(3 + 2 / math.log2(3) + 1 / math.log2(5))
    assert oracles.dcg_at_k([3, 2, 0, 1], k=2) == pytest.approx(3 + 2 / math.log2(3))
    assert oracles.ndcg_at_k([0, 1], [1, 0]) == pytest.approx(1 / math.log2(3))
    assert oracles.gain_values([0, 1, 3], "exponential") == [0.0, 1.0, 7.0]
    assert oracles.binary_labels([0, 1, 2, 3], relevance_level=2) == [0, 0, 1, 1]


def test_tie_orderings():
    scores = [1, 2, 2, 2, 0]
    values = [1, 0, 1, 0, 0]
    assert oracles.tie_blocks(scores) == [[1, 2, 3], [0], [4]]
    assert oracles.ordering(scores, values, "ordinal") == [1, 2, 3, 0, 4]
    assert oracles.ordering(scores, values, "optimistic") == [2, 1, 3, 0, 4]
    assert oracles.ordering(scores, values, "pessimistic") == [1, 3, 2, 0, 4]
    arrangements = list(oracles.block_arrangements(scores, values))
    assert sum(m for m, _ in arrangements) == oracles.number_of_orderings(scores) == 6
    assert sorted(tuple(seq) for _, seq in arrangements) == [
        (0, 0, 1, 1, 0),
        (0, 1, 0, 1, 0),
        (1, 0, 0, 1, 0),
    ]
    position = oracles.realistic_positions(scores, values)
    assert position == [4.0, 1.5, 2.0, 2.5, 5.0]
    # (n)DCG: gain items in decreasing gain, items without gain split around them
    gains = [0, 1, 3, 0, 2]
    scores = [5, 5, 5, 5, 1]
    assert oracles.realistic_gain_positions(scores, gains) == [None, 3.0, 2.0, None, 5.0]


@pytest.mark.parametrize("seed", range(20))
def test_realistic_gain_positions_with_binary_gains(seed):
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(1, 9))
    scores = rng.integers(0, 3, size=n_items).tolist()
    labels = rng.integers(0, 2, size=n_items).tolist()
    mid = oracles.realistic_positions(scores, labels)
    by_gain = oracles.realistic_gain_positions(scores, labels)
    for i, label in enumerate(labels):
        assert by_gain[i] == (mid[i] if label else None)


# ---------------------------------------------------------------------------
# peers: scikit-learn
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("k", [None, 1, 3])
def test_dcg_ndcg_vs_sklearn_tie_free(seed, k):
    rng = np.random.default_rng(seed)
    scores, rels = _random_query(rng, int(rng.integers(2, 9)))
    if sum(rels) == 0:
        rels[0] = 1
    for ties in oracles.TIE_POLICIES:
        dcg = oracles.query_metric("dcg", scores, rels, ties=ties, k=k)
        ndcg = oracles.query_metric("ndcg", scores, rels, ties=ties, k=k)
        assert dcg == pytest.approx(dcg_score([rels], [scores], k=k), abs=1e-12)
        assert ndcg == pytest.approx(ndcg_score([rels], [scores], k=k), abs=1e-12)


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("k", [None, 1, 2, 4])
def test_expected_dcg_enumeration_vs_sklearn_tie_averaging(seed, k):
    # scikit-learn averages the gains of a tie block (McSherry & Najork 2008),
    # which is the exact expectation over the orderings of the block.
    rng = np.random.default_rng(seed)
    scores, rels = _random_query(rng, int(rng.integers(2, 8)), score_values=3)
    if sum(rels) == 0:
        rels[-1] = 2
    dcg = oracles.query_metric("dcg", scores, rels, ties="expected", k=k)
    ndcg = oracles.query_metric("ndcg", scores, rels, ties="expected", k=k)
    assert dcg == pytest.approx(dcg_score([rels], [scores], k=k), abs=1e-12)
    assert ndcg == pytest.approx(ndcg_score([rels], [scores], k=k), abs=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_auc_vs_sklearn(seed):
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(2, 9))
    scores, rels = _random_query(rng, n_items, n_levels=2, score_values=3)
    rels[0], rels[1] = 1, 0
    expected = roc_auc_score(rels, scores)
    assert oracles.auc_ties_half(scores, rels) == pytest.approx(expected, abs=1e-12)
    assert oracles.query_metric("auc", scores, rels, ties="expected") == pytest.approx(
        expected, abs=1e-12
    )
    assert oracles.query_metric("auc", scores, rels, ties="realistic") == pytest.approx(
        expected, abs=1e-12
    )
    # tie-free order: pairs counted in the fixed order agree with sklearn too
    distinct = rng.permutation(n_items).tolist()
    order = oracles.ordering(distinct, rels, "ordinal")
    assert oracles.roc_auc([rels[i] for i in order]) == pytest.approx(
        roc_auc_score(rels, distinct), abs=1e-12
    )


@pytest.mark.parametrize("seed", range(30))
def test_ap_vs_sklearn_tie_free(seed):
    rng = np.random.default_rng(seed)
    scores, rels = _random_query(rng, int(rng.integers(2, 12)), n_levels=2)
    rels[int(rng.integers(len(rels)))] = 1
    for ties in oracles.TIE_POLICIES:
        ap = oracles.query_metric("ap", scores, rels, ties=ties)
        assert ap == pytest.approx(average_precision_score(rels, scores), abs=1e-12)


# ---------------------------------------------------------------------------
# peers: pytrec_eval (trec_eval), including the retrieval setting
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(15))
def test_vs_pytrec_eval_retrieval_setting(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(1, 9))
    scores, rels = _random_query(rng, n_items)
    # judged but never retrieved items, some of them relevant
    missing = rng.integers(0, 3, size=int(rng.integers(0, 4))).tolist()
    judged = rels + missing
    if sum(1 for r in judged if r > 0) == 0:
        judged.append(1)
    qrels = {"q": {f"d{i}": int(r) for i, r in enumerate(judged)}}
    run = {"q": {f"d{i}": float(s) for i, s in enumerate(scores)}}
    measures = {"map", "map_cut.3", "P.2", "P.10", "recall.3", "ndcg", "ndcg_cut.3",
                "recip_rank", "Rprec", "success.1", "success.5"}  # fmt: skip
    result = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)["q"]

    def oracle(metric, k=None):
        return oracles.query_metric(
            metric, scores, rels, ties="ordinal", k=k, judged_rels=judged
        )

    assert oracle("ap") == pytest.approx(result["map"], abs=1e-12)
    assert oracle("ap", k=3) == pytest.approx(result["map_cut_3"], abs=1e-12)
    assert oracle("p", k=2) == pytest.approx(result["P_2"], abs=1e-12)
    assert oracle("p", k=10) == pytest.approx(result["P_10"], abs=1e-12)
    assert oracle("r", k=3) == pytest.approx(result["recall_3"], abs=1e-12)
    assert oracle("ndcg") == pytest.approx(result["ndcg"], abs=1e-12)
    assert oracle("ndcg", k=3) == pytest.approx(result["ndcg_cut_3"], abs=1e-12)
    assert oracle("rr") == pytest.approx(result["recip_rank"], abs=1e-12)
    assert oracle("rprec") == pytest.approx(result["Rprec"], abs=1e-12)
    assert oracle("hits", k=1) == pytest.approx(result["success_1"], abs=1e-12)
    assert oracle("hits", k=5) == pytest.approx(result["success_5"], abs=1e-12)


# ---------------------------------------------------------------------------
# internal consistency of the tie policies
# ---------------------------------------------------------------------------

BINARY_METRICS = ("rr", "ap", "p", "r", "f1", "hits", "rprec", "rank")


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("metric", BINARY_METRICS + ("dcg", "ndcg"))
def test_realistic_equals_fixed_order_without_ties(seed, metric):
    rng = np.random.default_rng(seed)
    scores, rels = _random_query(rng, int(rng.integers(1, 8)))
    rels[0] = max(rels[0], 1)
    k = int(rng.integers(1, 6))
    values = [
        oracles.query_metric(metric, scores, rels, ties=ties, k=k)
        for ties in oracles.TIE_POLICIES
    ]
    assert all(v == pytest.approx(values[0], abs=1e-12) for v in values)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("metric", BINARY_METRICS + ("dcg", "ndcg", "auc"))
def test_tie_policies_are_ordered(seed, metric):
    rng = np.random.default_rng(seed)
    scores, rels = _random_query(rng, int(rng.integers(2, 8)), score_values=2)
    rels[0], rels[1] = 1, 0
    k = int(rng.integers(1, 6))
    value = {
        ties: oracles.query_metric(metric, scores, rels, ties=ties, k=k)
        for ties in oracles.TIE_POLICIES
    }
    sign = -1 if metric == "rank" else 1
    for ties in ("expected", "realistic", "ordinal"):
        assert sign * value["pessimistic"] <= sign * value[ties] + 1e-12
        assert sign * value[ties] <= sign * value["optimistic"] + 1e-12


@pytest.mark.parametrize(
    "n_items, n_rel", [(n, r) for n in (1, 2, 5, 7) for r in (1, 2, 3) if r <= n]
)
def test_constant_scorer_expected_is_random_baseline(n_items, n_rel):
    scores = [0] * n_items
    rels = [1] * n_rel + [0] * (n_items - n_rel)
    # E[precision@k] = R / N and E[recall@k] = min(k, N) / N for a random order
    for k in (1, 2, 4):
        p = oracles.query_metric("p", scores, rels, ties="expected", k=k)
        assert p == pytest.approx(min(k, n_items) * n_rel / n_items / k, abs=1e-12)
        r = oracles.query_metric("r", scores, rels, ties="expected", k=k)
        assert r == pytest.approx(min(k, n_items) / n_items, abs=1e-12)
    # E[AP] of a random order (Bestgen 2015 closed form)
    ap = oracles.query_metric("ap", scores, rels, ties="expected")
    harmonic = sum(1 / i for i in range(1, n_items + 1))
    closed = ((n_rel - 1) / (n_items - 1) * (n_items - harmonic) + harmonic) / n_items if (
        n_items > 1
    ) else 1.0
    assert ap == pytest.approx(closed, abs=1e-12)
    if n_rel == 1:
        rr = oracles.query_metric("rr", scores, rels, ties="expected")
        assert rr == pytest.approx(harmonic / n_items, abs=1e-12)
        rank = oracles.query_metric("rank", scores, rels, ties="expected")
        assert rank == pytest.approx((n_items + 1) / 2, abs=1e-12)
    auc = oracles.query_metric("auc", scores + [0], rels + [0], ties="expected")
    assert auc == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("seed", range(15))
def test_realistic_single_relevant_is_mid_rank(seed):
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(1, 9))
    scores = rng.integers(0, 3, size=n_items).tolist()
    rels = [0] * n_items
    rels[int(rng.integers(n_items))] = 1
    target = oracles.first_target_rank(scores, rels)
    assert oracles.query_metric("rank", scores, rels, ties="realistic") == target.realistic
    assert oracles.query_metric("rr", scores, rels, ties="realistic") == 1 / target.realistic
    expected_rank = oracles.query_metric("rank", scores, rels, ties="expected")
    assert expected_rank == pytest.approx(target.realistic, abs=1e-12)


# ---------------------------------------------------------------------------
# target ranks
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(25))
def test_first_target_rank_vs_full_enumeration(seed):
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(1, 8))
    scores = rng.integers(0, 3, size=n_items).tolist()
    labels = rng.integers(0, 2, size=n_items).tolist()
    labels[int(rng.integers(n_items))] = 1
    target = oracles.first_target_rank(scores, labels)
    # every total order (permutations of every tie block), one by one
    blocks = oracles.tie_blocks(scores)
    law = {}
    count = 0
    for perms in itertools.product(*(itertools.permutations(b) for b in blocks)):
        order = [i for perm in perms for i in perm]
        first = next(p for p, i in enumerate(order, start=1) if labels[i])
        law[first] = law.get(first, 0) + 1
        count += 1
    assert dict((r, p) for p, r in target.distribution) == {
        r: Fraction(c, count) for r, c in law.items()
    }
    for ties in ("optimistic", "pessimistic", "ordinal"):
        assert target.rank(ties) == oracles.query_metric("rank", scores, labels, ties=ties)
    assert target.expectation(lambda r: r) == pytest.approx(
        oracles.query_metric("rank", scores, labels, ties="expected"), abs=1e-12
    )
    assert target.expectation(lambda r: Fraction(1, r)) == pytest.approx(
        oracles.query_metric("rr", scores, labels, ties="expected"), abs=1e-12
    )
    assert target.realistic == oracles.query_metric("rank", scores, labels, ties="realistic")


@pytest.mark.parametrize("seed", range(25))
def test_all_targets_vs_label_index(seed):
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(2, 9))
    scores = rng.integers(0, 3, size=n_items).tolist()
    labels = rng.integers(0, 2, size=n_items).tolist()
    targets = oracles.all_target_ranks(scores, labels)
    relevant = [i for i, label in enumerate(labels) if label]
    assert len(targets) == len(relevant)
    for t, target in zip(relevant, targets):
        # the other relevant items are excluded candidates
        exclude = [bool(label) and i != t for i, label in enumerate(labels)]
        same = oracles.label_index_rank(scores, t, exclude)
        assert vars(same) == vars(target)
        # and the same as "first" on the list without the other relevant items
        keep = [i for i in range(n_items) if not exclude[i]]
        first = oracles.first_target_rank([scores[i] for i in keep], [labels[i] for i in keep])
        assert vars(first) == vars(target)


def test_label_index_rank_hand_values():
    target = oracles.label_index_rank([0.5, 0.9, 0.5, 0.1, 0.5], 2, [False, True, False, False, False])
    assert (target.optimistic, target.pessimistic, target.realistic) == (1, 3, 2.0)
    assert target.ordinal == 2
    assert target.num_candidates == 4


# ---------------------------------------------------------------------------
# rank statistics and random baselines
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(10))
def test_rank_statistics_vs_scipy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    num_candidates = rng.integers(1, 20, size=n).tolist()
    ranks = [float(rng.integers(1, c + 1)) + 0.5 * float(rng.integers(0, 2)) for c in num_candidates]
    ranks = [min(r, c) for r, c in zip(ranks, num_candidates)]
    arr = np.asarray(ranks)

    def stat(name, **kw):
        return oracles.rank_statistic(name, ranks, num_candidates, **kw)

    assert stat("mr") == pytest.approx(arr.mean(), abs=1e-12)
    assert stat("mrr") == pytest.approx(np.mean(1 / arr), abs=1e-12)
    assert stat("hits", k=3) == pytest.approx(np.mean(arr <= 3), abs=1e-12)
    assert stat("gmr") == pytest.approx(scipy.stats.gmean(arr), rel=1e-12)
    assert stat("igmr") == pytest.approx(1 / scipy.stats.gmean(arr), rel=1e-12)
    assert stat("hmr") == pytest.approx(scipy.stats.hmean(arr), rel=1e-12)
    assert stat("iamr") == pytest.approx(1 / arr.mean(), rel=1e-12)
    assert stat("median_rank") == np.median(arr)
    assert stat("inverse_median_rank") == pytest.approx(1 / np.median(arr), rel=1e-12)
    assert stat("rank_std") == pytest.approx(np.std(arr), abs=1e-12)
    assert stat("rank_var") == pytest.approx(np.var(arr), abs=1e-12)
    assert stat("rank_mad") == pytest.approx(
        scipy.stats.median_abs_deviation(arr, scale="normal"), abs=1e-12
    )
    assert stat("count") == n
    weights = rng.uniform(0.5, 2, size=n).tolist()
    assert stat("mr", weights=weights) == pytest.approx(np.average(arr, weights=weights), abs=1e-12)
    assert stat("gmr", weights=weights) == pytest.approx(
        scipy.stats.gmean(arr, weights=weights), rel=1e-12
    )


@pytest.mark.parametrize("seed", range(10))
def test_random_moments_closed_forms(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    big_n = rng.integers(1, 15, size=n)
    mean, var = oracles.random_moments("mr", big_n.tolist())
    assert mean == pytest.approx(np.mean((big_n + 1) / 2), abs=1e-12)
    assert var == pytest.approx(np.sum((big_n**2 - 1) / 12) / n**2, abs=1e-12)
    harmonic = np.array([sum(1 / i for i in range(1, c + 1)) for c in big_n])
    harmonic2 = np.array([sum(1 / i**2 for i in range(1, c + 1)) for c in big_n])
    mean, var = oracles.random_moments("mrr", big_n.tolist())
    assert mean == pytest.approx(np.mean(harmonic / big_n), abs=1e-12)
    assert var == pytest.approx(
        np.sum(harmonic2 / big_n - (harmonic / big_n) ** 2) / n**2, abs=1e-12
    )
    for k in (1, 3, 10):
        p = np.minimum(k, big_n) / big_n
        mean, var = oracles.random_moments("hits", big_n.tolist(), k=k)
        assert mean == pytest.approx(p.mean(), abs=1e-12)
        assert var == pytest.approx(np.sum(p * (1 - p)) / n**2, abs=1e-12)


@pytest.mark.parametrize("num_candidates", [[1], [3], [2, 4], [3, 3, 5], [1, 6, 2]])
def test_random_moments_by_joint_enumeration(num_candidates):
    # enumerate the whole joint space of rank tuples, no independence argument
    n = len(num_candidates)
    space = list(itertools.product(*(range(1, c + 1) for c in num_candidates)))
    for statistic, k in (("mr", None), ("mrr", None), ("hits", 2), ("gmr", None)):
        values = [oracles.rank_statistic(statistic, list(r), num_candidates, k=k) for r in space]
        mean, var = oracles.random_moments(statistic, num_candidates, k=k)
        assert mean == pytest.approx(np.mean(values), abs=1e-12)
        assert var == pytest.approx(np.var(values), abs=1e-12)
    weights = [1.0 + i for i in range(n)]
    for statistic, k in (("mr", None), ("mrr", None), ("hits", 2), ("gmr", None)):
        values = [
            oracles.rank_statistic(statistic, list(r), num_candidates, k=k, weights=weights)
            for r in space
        ]
        mean, var = oracles.random_moments(statistic, num_candidates, k=k, weights=weights)
        assert mean == pytest.approx(np.mean(values), abs=1e-12)
        assert var == pytest.approx(np.var(values), abs=1e-12)


def test_adjusted_statistics_hand_values():
    num_candidates = [5, 5]
    # perfect ranks: adjusted indices are 1
    for statistic in ("amri", "agmri", "amrr", "ahits"):
        assert oracles.rank_statistic(statistic, [1, 1], num_candidates, k=1) == pytest.approx(1.0)
    # E[MR] = 3
    assert oracles.rank_statistic("amr", [3, 3], num_candidates) == pytest.approx(1.0)
    assert oracles.rank_statistic("amri", [3, 3], num_candidates) == pytest.approx(0.0)
    assert oracles.rank_statistic("zmr", [3, 3], num_candidates) == pytest.approx(0.0)
    # Var[MR] = 2 * (25 - 1) / 12 / 4 = 1; MR = 2 is one sd better than random
    assert oracles.rank_statistic("zmr", [2, 2], num_candidates) == pytest.approx(1.0)
    # hits@1: E = 1/5, Var = 2 * (1/5 * 4/5) / 4 = 0.08
    assert oracles.rank_statistic("zhits", [1, 5], num_candidates, k=1) == pytest.approx(
        (0.5 - 0.2) / math.sqrt(0.08)
    )
    assert oracles.rank_statistic("ahits", [1, 5], num_candidates, k=1) == pytest.approx(
        (0.5 - 0.2) / 0.8
    )


@pytest.mark.parametrize("seed", range(10))
def test_target_statistic_expected_vs_enumeration(seed):
    rng = np.random.default_rng(seed)
    queries = []
    for _ in range(int(rng.integers(1, 4))):
        n_items = int(rng.integers(1, 6))
        scores = rng.integers(0, 2, size=n_items).tolist()
        labels = rng.integers(0, 2, size=n_items).tolist()
        labels[0] = 1
        queries.append((scores, labels))
    targets = [oracles.first_target_rank(s, lab) for s, lab in queries]
    mr = oracles.target_statistic("mr", targets, "expected")
    mrr = oracles.target_statistic("mrr", targets, "expected")
    hits = oracles.target_statistic("hits", targets, "expected", k=2)
    assert mr == pytest.approx(
        np.mean([oracles.query_metric("rank", s, lab) for s, lab in queries]), abs=1e-12
    )
    assert mrr == pytest.approx(
        np.mean([oracles.query_metric("rr", s, lab) for s, lab in queries]), abs=1e-12
    )
    assert hits == pytest.approx(
        np.mean([oracles.query_metric("hits", s, lab, k=2) for s, lab in queries]), abs=1e-12
    )


@pytest.mark.parametrize("seed", range(10))
def test_weighted_median_is_median_of_repeated_values(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    values = (rng.integers(1, 10, size=n) / 2).tolist()
    weights = rng.integers(1, 4, size=n).tolist()
    repeated = [v for v, w in zip(values, weights) for _ in range(w)]
    assert oracles.weighted_median(values, weights) == np.median(repeated)
    assert oracles.weighted_median(values, [1.0] * n) == np.median(values)
    # scaling the weights changes nothing
    assert oracles.weighted_median(values, [0.25 * w for w in weights]) == np.median(repeated)


@pytest.mark.parametrize("num_candidates, num_relevant", [(1, 1), (4, 1), (4, 2), (5, 3), (6, 6), (7, 2)])
def test_random_rank_law_vs_permutations(num_candidates, num_relevant):
    # best position of the relevant items over every permutation of the list
    items = [1] * num_relevant + [0] * (num_candidates - num_relevant)
    counts = {}
    total = 0
    for perm in itertools.permutations(items):
        first = perm.index(1) + 1
        counts[first] = counts.get(first, 0) + 1
        total += 1
    law = oracles.random_rank_law(num_candidates, num_relevant)
    assert dict((r, p) for p, r in law) == {r: Fraction(c, total) for r, c in counts.items()}
    # E[best of r among N] = (N + 1) / (r + 1)
    mean = sum(p * r for p, r in law)
    assert mean == Fraction(num_candidates + 1, num_relevant + 1)


@pytest.mark.parametrize("seed", range(10))
def test_constant_scorer_targets_match_random_baseline(seed):
    # a constant scorer's exact expected statistics equal the random baseline,
    # so every adjusted index is 0 (amr is 1) under ties="expected"
    rng = np.random.default_rng(seed)
    targets_first, targets_all = [], []
    for _ in range(int(rng.integers(1, 5))):
        n_items = int(rng.integers(2, 7))
        labels = rng.integers(0, 2, size=n_items).tolist()
        labels[0] = 1
        labels[-1] = 0
        scores = [0] * n_items
        targets_first.append(oracles.first_target_rank(scores, labels))
        targets_all += oracles.all_target_ranks(scores, labels)
    for targets in (targets_first, targets_all):
        for statistic in ("amri", "agmri", "amrr", "zmr", "zmrr", "zgmr"):
            value = oracles.target_statistic(statistic, targets, "expected")
            assert value == pytest.approx(0.0, abs=1e-9)
        assert oracles.target_statistic("amr", targets, "expected") == pytest.approx(1.0)
        assert oracles.target_statistic("ahits", targets, "expected", k=1) == pytest.approx(
            0.0, abs=1e-12
        )
