"""Property-based tests of the metric engine (hypothesis).

The properties hold for every metric and every tie policy, so each test runs the
whole metric list through ``evaluate`` at once.  Expected values of the random
baseline come from closed forms computed here with exact fractions.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sklearn_rank as skr

from report_closeness import values_close

TIE_POLICIES = ["expected", "realistic", "optimistic", "pessimistic", "ordinal"]
ORDER_FREE_POLICIES = [t for t in TIE_POLICIES if t != "ordinal"]
TARGETS = ["first", "all"]

LIST_METRICS = [
    "mrr", "map", "map@3", "ndcg", "ndcg@3", "dcg", "dcg@3", "p@3", "r@3", "f1@3",
    "hits@1", "hits@3", "rprec", "auc", "mrr@2", "num_rel_ret", "num_rel_ret@3",
    "bpref", "rbp", "rbp(p=0.5)", "rbp@3", "err", "err@3", "pfound", "pfound@3", "judged@3",
]
RANK_STATISTICS = [
    "mr", "gmr", "igmr", "hmr", "iamr", "median_rank", "inverse_median_rank",
    "rank_std", "rank_var", "rank_mad", "count",
    "amr", "amri", "agmri", "amrr", "ahits@1", "zmr", "zmrr", "zgmr", "zhits@1",
]
ALL_METRICS = LIST_METRICS + RANK_STATISTICS
# Spread statistics are not monotone in the ranks, and count does not depend on them.
NOT_MONOTONE = {"rank_std", "rank_var", "rank_mad", "count"}
MONOTONE_METRICS = [m for m in ALL_METRICS if m not in NOT_MONOTONE]

SLACK = 1e-12

FAST = dict(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --------------------------------------------------------------------------------------
# strategies
# --------------------------------------------------------------------------------------


@st.composite
def queries(draw, max_queries=4, min_size=2, max_size=7, max_grade=3):
    """Per-query lists of (relevance, score): each query has a relevant and a
    non-relevant item, scores lie on a few integer levels (so ties are common)."""
    result = []
    for _ in range(draw(st.integers(1, max_queries))):
        size = draw(st.integers(min_size, max_size))
        relevance = draw(st.lists(st.integers(0, max_grade), min_size=size, max_size=size))
        positions = draw(st.permutations(range(size)))
        relevance[positions[0]] = max(relevance[positions[0]], 1)
        relevance[positions[1]] = 0
        scores = draw(st.lists(st.integers(-2, 2), min_size=size, max_size=size))
        weight = draw(st.sampled_from([0.5, 1.0, 2.0, 3.0]))
        result.append((relevance, scores, weight))
    return result


def to_grouped(query_list, query_ids=None, weighted=True):
    """Grouped-rows arrays; query q gets id query_ids[q] (default 10 * q + 3)."""
    if query_ids is None:
        query_ids = [10 * q + 3 for q in range(len(query_list))]
    y_true, y_score, qid, weight = [], [], [], []
    for query_id, (relevance, scores, query_weight) in zip(query_ids, query_list):
        y_true += relevance
        y_score += scores
        qid += [query_id] * len(relevance)
        weight += [query_weight] * len(relevance)
    data = dict(
        y_true=np.array(y_true),
        y_score=np.array(y_score, dtype=float),
        qid=np.array(qid),
    )
    if weighted:
        data["sample_weight"] = np.array(weight)
    return data


@st.composite
def matrices(draw, max_queries=4, min_candidates=2, max_candidates=6, max_grade=3):
    n_queries = draw(st.integers(1, max_queries))
    n_candidates = draw(st.integers(min_candidates, max_candidates))
    y_true = np.zeros((n_queries, n_candidates), dtype=int)
    y_score = np.zeros((n_queries, n_candidates))
    for row in range(n_queries):
        y_true[row] = draw(
            st.lists(st.integers(0, max_grade), min_size=n_candidates, max_size=n_candidates)
        )
        positions = draw(st.permutations(range(n_candidates)))
        y_true[row, positions[0]] = max(y_true[row, positions[0]], 1)
        y_true[row, positions[1]] = 0
        y_score[row] = draw(
            st.lists(st.integers(-2, 2), min_size=n_candidates, max_size=n_candidates)
        )
    return y_true, y_score


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def _report(data, **params):
    return skr.evaluate(data["y_true"], data["y_score"], metrics=ALL_METRICS,
                        **{k: v for k, v in data.items() if k not in ("y_true", "y_score")},
                        **params)


def _assert_same_report(left, right, context=""):
    assert set(left.summary) == set(right.summary)
    assert set(left.per_query) == set(right.per_query)
    np.testing.assert_array_equal(left.per_query["qid"], right.per_query["qid"])
    assert left.n_queries == right.n_queries
    assert left.n_skipped == right.n_skipped
    per_query_names = [name for name in left.per_query if name != "qid"]
    if values_close(left, right, list(left.summary), per_query_names, rtol=1e-10, atol=SLACK):
        return
    # a value differs: the same tolerances, metric by metric, say which
    for name in left.summary:
        np.testing.assert_allclose(
            left.summary[name], right.summary[name], rtol=1e-10, atol=SLACK,
            equal_nan=True, err_msg=f"summary[{name!r}] {context}",
        )
    for name in per_query_names:
        np.testing.assert_allclose(
            np.asarray(left.per_query[name], dtype=float),
            np.asarray(right.per_query[name], dtype=float),
            rtol=1e-10, atol=SLACK, equal_nan=True,
            err_msg=f"per_query[{name!r}] {context}",
        )


def _harmonic(n):
    return sum(Fraction(1, i) for i in range(1, n + 1))


# --------------------------------------------------------------------------------------
# the metric list is the registry's
# --------------------------------------------------------------------------------------


def test_metric_list_resolves_and_covers_registry():
    covered = {skr.get_metric(name).base for name in ALL_METRICS}
    missing = sorted(
        name for name in skr.metric_names()
        if skr.get_metric(name.replace("@k", "@3")).base not in covered
    )
    assert not missing, f"metrics not covered by the property tests: {missing}"


# --------------------------------------------------------------------------------------
# permutation invariance
# --------------------------------------------------------------------------------------


@settings(max_examples=20, **FAST)
@given(query_list=queries(), data=st.data(), targets=st.sampled_from(TARGETS))
def test_shuffling_rows_changes_nothing(query_list, data, targets):
    grouped = to_grouped(query_list)
    order = np.array(data.draw(st.permutations(range(grouped["qid"].size))))
    shuffled = {k: v[order] for k, v in grouped.items()}
    for ties in ORDER_FREE_POLICIES:
        _assert_same_report(
            _report(grouped, ties=ties, targets=targets),
            _report(shuffled, ties=ties, targets=targets),
            f"ties={ties!r} targets={targets!r}",
        )


@settings(max_examples=20, **FAST)
@given(query_list=queries(), data=st.data(), targets=st.sampled_from(TARGETS))
def test_shuffling_whole_queries_changes_nothing(query_list, data, targets):
    # Rows keep their order inside each query, so even "ordinal" is unaffected.
    query_ids = [10 * q + 3 for q in range(len(query_list))]
    order = data.draw(st.permutations(range(len(query_list))))
    grouped = to_grouped(query_list, query_ids)
    reordered = to_grouped([query_list[i] for i in order], [query_ids[i] for i in order])
    for ties in TIE_POLICIES:
        _assert_same_report(
            _report(grouped, ties=ties, targets=targets),
            _report(reordered, ties=ties, targets=targets),
            f"ties={ties!r} targets={targets!r}",
        )


# --------------------------------------------------------------------------------------
# order of the tie policies
# --------------------------------------------------------------------------------------


def _oriented(report, name):
    """Summary and per-query values, signed so that larger is better."""
    sign = 1.0 if skr.get_metric(name).greater_is_better else -1.0
    per_query = np.asarray(report.per_query.get(name, np.array([])), dtype=float)
    return sign * report.summary[name], sign * per_query


def _assert_not_worse(better, worse, context):
    better_summary, better_per_query = better
    worse_summary, worse_per_query = worse
    tolerance = SLACK * max(1.0, abs(better_summary), abs(worse_summary))
    assert better_summary >= worse_summary - tolerance, context
    if better_per_query.size and worse_per_query.size:
        both = ~(np.isnan(better_per_query) | np.isnan(worse_per_query))
        tolerance = SLACK * np.maximum(
            1.0, np.maximum(np.abs(better_per_query), np.abs(worse_per_query))
        )
        bad = both & (better_per_query < worse_per_query - tolerance)
        assert not np.any(bad), f"{context} (per query)"


# "realistic" splits the tied items without credit half before and half after the
# credited ones (relevant items for the binary metrics, gain items for (n)DCG),
# which keep their best order: every metric lands between its optimistic and
# pessimistic values, with graded gains too.  Regression case: relevance
# [1, 0, 2, 0] with scores [0, 1, 0, 1] once gave realistic nDCG@3 = 0.


@settings(max_examples=30, **FAST)
@given(query_list=queries(), targets=st.sampled_from(TARGETS), graded=st.booleans())
def test_optimistic_expected_pessimistic_order(query_list, targets, graded):
    grouped = to_grouped(query_list)
    if not graded:
        grouped["y_true"] = (grouped["y_true"] > 0).astype(int)
    reports = {ties: _report(grouped, ties=ties, targets=targets) for ties in TIE_POLICIES}
    for name in MONOTONE_METRICS:
        value = {ties: _oriented(reports[ties], name) for ties in TIE_POLICIES}
        context = f"{name} targets={targets!r}"
        _assert_not_worse(value["optimistic"], value["expected"], f"opt>=exp {context}")
        _assert_not_worse(value["expected"], value["pessimistic"], f"exp>=pess {context}")
        _assert_not_worse(value["optimistic"], value["ordinal"], f"opt>=ord {context}")
        _assert_not_worse(value["ordinal"], value["pessimistic"], f"ord>=pess {context}")
        _assert_not_worse(value["optimistic"], value["realistic"], f"opt>=real {context}")
        _assert_not_worse(value["realistic"], value["pessimistic"], f"real>=pess {context}")


@pytest.mark.parametrize("y_true, y_score, metric", [
    ([1, 0, 2, 0], [0, 1, 0, 1], "ndcg@3"),
    ([0, 1, 0, 1, 2, 0, 0], [0, 2, 0, 2, 2, 0, 0], "ndcg"),
    ([2, 0, 1, 0, 3], [1, 1, 1, 1, 1], "dcg@2"),
])
def test_realistic_graded_dcg_between_bounds(y_true, y_score, metric):
    value = {t: skr.evaluate(y_true, y_score, metrics=[metric], ties=t).summary[metric]
             for t in ("optimistic", "realistic", "pessimistic")}
    assert value["optimistic"] + 1e-12 >= value["realistic"] >= value["pessimistic"] - 1e-12
    assert value["realistic"] > 0


@settings(max_examples=20, **FAST)
@given(query_list=queries(), targets=st.sampled_from(TARGETS))
def test_policies_agree_without_ties(query_list, targets):
    # Break every tie (scores become distinct), then all five policies coincide.
    distinct = []
    offset = 0
    for relevance, scores, weight in query_list:
        size = len(scores)
        distinct.append(
            (relevance, [s * 100.0 + i + offset for i, s in enumerate(scores)], weight)
        )
        offset += size
    grouped = to_grouped(distinct)
    reference = _report(grouped, ties="ordinal", targets=targets)
    for ties in ORDER_FREE_POLICIES:
        _assert_same_report(_report(grouped, ties=ties, targets=targets), reference,
                            f"ties={ties!r} targets={targets!r}")


# --------------------------------------------------------------------------------------
# a constant scorer scores the random baseline under "expected"
# --------------------------------------------------------------------------------------

ADJUSTED_ZERO = ["amri", "amrr", "agmri", "ahits@1", "ahits@2",
                 "zmr", "zmrr", "zgmr", "zhits@1", "zhits@2"]


def _check_baseline(report, rank_counts, k_values=(1, 2)):
    """rank_counts: the candidate count N of every target (each target's rank is
    uniform on 1..N under a constant scorer)."""
    n = len(rank_counts)
    expected = {
        "mrr": sum(_harmonic(N) / N for N in rank_counts) / n,
        "mr": sum(Fraction(N + 1, 2) for N in rank_counts) / n,
    }
    for k in k_values:
        expected[f"hits@{k}"] = sum(Fraction(min(k, N), N) for N in rank_counts) / n
    for name, value in expected.items():
        np.testing.assert_allclose(report.summary[name], float(value), rtol=1e-12,
                                   atol=SLACK, err_msg=name)
    np.testing.assert_allclose(report.summary["amr"], 1.0, rtol=0, atol=1e-10,
                               err_msg="amr")


@settings(max_examples=25, **FAST)
@given(
    sizes=st.lists(st.integers(3, 12), min_size=1, max_size=5),
    data=st.data(),
    constant=st.floats(-1e3, 1e3, allow_nan=False),
    targets=st.sampled_from(TARGETS),
)
def test_constant_scorer_one_relevant_scores_random_baseline(sizes, data, constant, targets):
    query_list = []
    for size in sizes:
        relevance = [0] * size
        relevance[data.draw(st.integers(0, size - 1))] = 1
        query_list.append((relevance, [0] * size, 1.0))
    grouped = to_grouped(query_list, weighted=False)
    grouped["y_score"] = np.full(grouped["y_true"].size, constant)
    # with one relevant item per query, targets="first" and "all" coincide
    metrics = ["mrr", "mr", "hits@1", "hits@2", "amr"] + ADJUSTED_ZERO
    report = skr.evaluate(**grouped, metrics=metrics, ties="expected", targets=targets)
    _check_baseline(report, sizes)
    for name in ADJUSTED_ZERO:
        np.testing.assert_allclose(report.summary[name], 0.0, rtol=0, atol=1e-10,
                                   err_msg=name)


@settings(max_examples=25, **FAST)
@given(
    counts=st.lists(st.tuples(st.integers(1, 4), st.integers(2, 8)), min_size=1,
                    max_size=5),
    data=st.data(),
    constant=st.floats(-1e3, 1e3, allow_nan=False),
)
def test_constant_scorer_several_relevant_all_targets(counts, data, constant):
    # targets="all": each relevant item is ranked against the non-relevant items of
    # its query only, so its rank is uniform on 1..(n_non_relevant + 1).
    query_list, rank_counts = [], []
    for n_relevant, n_non_relevant in counts:
        relevance = [1] * n_relevant + [0] * n_non_relevant
        order = data.draw(st.permutations(range(len(relevance))))
        query_list.append(([relevance[i] for i in order], [0] * len(relevance), 1.0))
        rank_counts += [n_non_relevant + 1] * n_relevant
    grouped = to_grouped(query_list, weighted=False)
    grouped["y_score"] = np.full(grouped["y_true"].size, constant)
    metrics = ["mrr", "mr", "hits@1", "hits@2", "amr"] + ADJUSTED_ZERO
    report = skr.evaluate(**grouped, metrics=metrics, ties="expected", targets="all")
    _check_baseline(report, rank_counts)
    for name in ADJUSTED_ZERO:
        np.testing.assert_allclose(report.summary[name], 0.0, rtol=0, atol=1e-10,
                                   err_msg=name)


@settings(max_examples=25, **FAST)
@given(
    counts=st.lists(st.tuples(st.integers(1, 4), st.integers(1, 8)), min_size=1,
                    max_size=4),
    k=st.integers(1, 6),
)
def test_constant_scorer_list_metrics_are_their_expectations(counts, k):
    # Under a constant scorer each position holds a uniformly drawn item, so
    # E[p@k] = min(k, n) * R / (n * k), E[r@k] = min(k, n) / n and, with binary
    # gains, E[DCG@k] = (R / n) * sum_{i <= min(k, n)} 1 / log2(i + 1).
    query_list = [([1] * r + [0] * m, [0] * (r + m), 1.0) for r, m in counts]
    grouped = to_grouped(query_list, weighted=False)
    report = skr.evaluate(**grouped, metrics=[f"p@{k}", f"r@{k}", f"dcg@{k}", f"ndcg@{k}"],
                          ties="expected")
    precision, recall, dcg, ndcg = [], [], [], []
    for r, m in counts:
        n = r + m
        precision.append(min(k, n) * r / (n * k))
        recall.append(min(k, n) / n)
        discount = [1.0 / np.log2(i + 1) for i in range(1, n + 1)]
        dcg.append(r / n * sum(discount[:k]))
        ndcg.append(dcg[-1] / sum(discount[: min(k, r)]))
    for name, values in [(f"p@{k}", precision), (f"r@{k}", recall),
                         (f"dcg@{k}", dcg), (f"ndcg@{k}", ndcg)]:
        np.testing.assert_allclose(report.summary[name], np.mean(values), rtol=1e-12,
                                   atol=SLACK, err_msg=name)


# --------------------------------------------------------------------------------------
# invariance to monotone affine maps of the scores
# --------------------------------------------------------------------------------------


@settings(max_examples=20, **FAST)
@given(
    query_list=queries(),
    shift=st.floats(-1e6, 1e6, allow_nan=False),
    scale=st.floats(1e-3, 1e3, allow_nan=False),
    targets=st.sampled_from(TARGETS),
)
def test_adding_or_scaling_scores_changes_nothing(query_list, shift, scale, targets):
    grouped = to_grouped(query_list)
    shifted = dict(grouped, y_score=grouped["y_score"] + shift)
    scaled = dict(grouped, y_score=grouped["y_score"] * scale)
    both = dict(grouped, y_score=grouped["y_score"] * scale + shift)
    for ties in TIE_POLICIES:
        reference = _report(grouped, ties=ties, targets=targets)
        for name, transformed in [("shift", shifted), ("scale", scaled), ("both", both)]:
            _assert_same_report(reference, _report(transformed, ties=ties, targets=targets),
                                f"{name} ties={ties!r} targets={targets!r}")


# --------------------------------------------------------------------------------------
# inputs are never modified in place
# --------------------------------------------------------------------------------------


def _call_everything(y_true, y_score, **common):
    skr.evaluate(y_true, y_score, metrics=ALL_METRICS, **common)
    skr.compute_ranks(y_true, y_score, **{name: value for name, value in common.items()
                                          if name in ("qid", "exclude", "labels")})
    skr.mean_reciprocal_rank(y_true, y_score, **common)
    skr.mean_average_precision(y_true, y_score, k=3, **common)
    skr.ndcg_score(y_true, y_score, k=3, **common)
    skr.dcg_score(y_true, y_score, **common)
    skr.hits_at_k(y_true, y_score, k=2, **common)
    skr.precision_at_k(y_true, y_score, k=2, **common)
    skr.recall_at_k(y_true, y_score, k=2, **common)
    skr.r_precision(y_true, y_score, **common)
    skr.mean_rank(y_true, y_score, **common)


def _check_unmodified(arguments, read_only):
    copies = {name: value.copy() for name, value in arguments.items()}
    if read_only:
        for value in arguments.values():
            value.flags.writeable = False
    common = {name: value for name, value in arguments.items()
              if name not in ("y_true", "y_score")}
    for ties in ("expected", "ordinal"):
        _call_everything(arguments["y_true"], arguments["y_score"], ties=ties, **common)
    for name, value in arguments.items():
        np.testing.assert_array_equal(value, copies[name], err_msg=name)
        assert value.dtype == copies[name].dtype, name


@settings(max_examples=10, **FAST)
@given(query_list=queries(), data=st.data(), read_only=st.booleans())
def test_grouped_inputs_are_not_modified(query_list, data, read_only):
    grouped = to_grouped(query_list)
    relevant_rows = grouped["y_true"] > 0
    exclude = np.array(data.draw(st.lists(st.booleans(), min_size=relevant_rows.size,
                                          max_size=relevant_rows.size)))
    exclude &= ~relevant_rows
    for query in np.unique(grouped["qid"]):  # keep a non-relevant row in every query
        exclude[np.flatnonzero((grouped["qid"] == query) & ~relevant_rows)[0]] = False
    grouped["exclude"] = exclude
    # one judged list per query (everything retrieved is judged, plus one extra)
    judged_qid = np.concatenate([grouped["qid"], np.unique(grouped["qid"])])
    judged_rel = np.concatenate([grouped["y_true"], np.ones(np.unique(grouped["qid"]).size,
                                                           dtype=int)])
    _check_unmodified(dict(grouped), read_only)
    judged_arguments = dict(to_grouped(query_list), judged_qid=judged_qid,
                            judged_rel=judged_rel)
    copies = {name: value.copy() for name, value in judged_arguments.items()}
    skr.evaluate(judged_arguments["y_true"], judged_arguments["y_score"],
                 qid=judged_arguments["qid"], metrics=ALL_METRICS,
                 judged=(judged_qid, judged_rel))
    for name, value in judged_arguments.items():
        np.testing.assert_array_equal(value, copies[name], err_msg=name)


@settings(max_examples=10, **FAST)
@given(matrix=matrices(), data=st.data(), read_only=st.booleans())
def test_matrix_inputs_are_not_modified(matrix, data, read_only):
    y_true, y_score = matrix
    exclude = np.array(data.draw(st.lists(st.booleans(), min_size=y_true.size,
                                          max_size=y_true.size))).reshape(y_true.shape)
    exclude &= y_true == 0
    exclude[np.arange(y_true.shape[0]), np.argmin(y_true, axis=1)] = False  # keep one
    sample_weight = np.linspace(0.5, 2.0, y_true.shape[0])
    _check_unmodified(dict(y_true=y_true, y_score=y_score, exclude=exclude,
                           sample_weight=sample_weight), read_only)


@settings(max_examples=10, **FAST)
@given(matrix=matrices(min_candidates=3), data=st.data(), read_only=st.booleans())
def test_label_index_inputs_are_not_modified(matrix, data, read_only):
    _, y_score = matrix
    n_queries, n_candidates = y_score.shape
    y_true = np.array(data.draw(st.lists(st.integers(0, n_candidates - 1),
                                         min_size=n_queries, max_size=n_queries)))
    exclude = np.zeros(y_score.shape, dtype=bool)
    for row, target in enumerate(y_true):
        other = (target + 1) % n_candidates
        exclude[row, other] = data.draw(st.booleans())
    _check_unmodified(dict(y_true=y_true, y_score=y_score, exclude=exclude), read_only)


# --------------------------------------------------------------------------------------
# the layouts agree
# --------------------------------------------------------------------------------------


@settings(max_examples=20, **FAST)
@given(matrix=matrices(), targets=st.sampled_from(TARGETS))
def test_matrix_layout_equals_grouped_layout(matrix, targets):
    y_true, y_score = matrix
    n_queries, n_candidates = y_true.shape
    sample_weight = np.arange(1.0, n_queries + 1.0)
    grouped = dict(
        y_true=y_true.ravel(),
        y_score=y_score.ravel(),
        qid=np.repeat(np.arange(n_queries), n_candidates),
        sample_weight=np.repeat(sample_weight, n_candidates),
    )
    as_matrix = dict(y_true=y_true, y_score=y_score, sample_weight=sample_weight)
    for ties in TIE_POLICIES:  # row-major order keeps each query's input order
        _assert_same_report(_report(as_matrix, ties=ties, targets=targets),
                            _report(grouped, ties=ties, targets=targets),
                            f"ties={ties!r} targets={targets!r}")


@settings(max_examples=15, **FAST)
@given(matrix=matrices(min_candidates=3), data=st.data(), targets=st.sampled_from(TARGETS))
def test_matrix_exclusion_equals_dropping_rows(matrix, data, targets):
    # The filtered protocol removes candidates before ranking: the same as not
    # listing them at all.  Only non-relevant items are excluded, and each query
    # keeps at least one of them.
    y_true, y_score = matrix
    n_queries, n_candidates = y_true.shape
    exclude = np.zeros(y_true.shape, dtype=bool)
    for row in range(n_queries):
        non_relevant = np.flatnonzero(y_true[row] == 0)
        keep = data.draw(st.sampled_from(list(non_relevant)))
        for column in non_relevant:
            if column != keep:
                exclude[row, column] = data.draw(st.booleans())
    kept = ~exclude.ravel()
    grouped = dict(
        y_true=y_true.ravel()[kept],
        y_score=y_score.ravel()[kept],
        qid=np.repeat(np.arange(n_queries), n_candidates)[kept],
    )
    for ties in TIE_POLICIES:
        _assert_same_report(
            _report(dict(y_true=y_true, y_score=y_score, exclude=exclude), ties=ties,
                    targets=targets),
            _report(grouped, ties=ties, targets=targets),
            f"ties={ties!r} targets={targets!r}",
        )


@settings(max_examples=15, **FAST)
@given(matrix=matrices(), data=st.data())
def test_label_index_layout_equals_one_hot_matrix(matrix, data):
    _, y_score = matrix
    n_queries, n_candidates = y_score.shape
    y_true = np.array(data.draw(st.lists(st.integers(0, n_candidates - 1),
                                         min_size=n_queries, max_size=n_queries)))
    one_hot = np.zeros(y_score.shape, dtype=int)
    one_hot[np.arange(n_queries), y_true] = 1
    for ties in TIE_POLICIES:
        _assert_same_report(_report(dict(y_true=y_true, y_score=y_score), ties=ties),
                            _report(dict(y_true=one_hot, y_score=y_score), ties=ties),
                            f"ties={ties!r}")


@pytest.mark.parametrize("ties", TIE_POLICIES)
def test_label_index_with_labels_equals_column_index(ties):
    rng = np.random.default_rng(3)
    labels = np.array(["b", "c", "a", "d"])  # column j belongs to labels[j], any order
    column = rng.integers(0, labels.size, size=20)
    y_score = rng.integers(0, 3, size=(20, labels.size)).astype(float)
    _assert_same_report(
        _report(dict(y_true=labels[column], y_score=y_score), labels=labels, ties=ties),
        _report(dict(y_true=column, y_score=y_score), ties=ties),
    )
