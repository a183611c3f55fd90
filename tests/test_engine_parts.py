"""The engine's parts and reduction: whole queries evaluated a part at a time give the one-part report.

This is what the streaming and distributed back ends rely on: each batch or partition is one part, and
only the parts' per-query values (and the targets' rank distributions) are reduced.
"""

import warnings

import numpy as np
import pytest

import sklearn_rank as skr
from sklearn_rank import _engine, _parts

METRICS = ["mrr", "mrr@3", "map", "map@5", "ndcg", "ndcg@5", "dcg@3", "p@3", "r@5", "f1@3", "hits@1", "hits@10",
           "rprec", "auc", "num_rel_ret@5", "bpref", "rbp", "err@5", "judged@5",
           "mr", "gmr", "hmr", "median_rank", "rank_std", "rank_mad", "count", "amri", "agmri", "zmrr", "ahits@3"]


def grouped(seed, n_queries=40):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, size=n_queries)
    qid = np.repeat(rng.permutation(np.arange(1000, 1000 + 7 * n_queries, 7)), sizes)
    y = rng.integers(0, 4, size=qid.size) * (rng.random(qid.size) < 0.4)
    s = rng.integers(0, 5, size=qid.size).astype(float)  # many ties
    order = rng.permutation(qid.size)  # rows of a query scattered in the input
    weight_of = {q: w for q, w in zip(np.unique(qid), rng.uniform(0.2, 3.0, size=n_queries))}
    return y[order], s[order], qid[order], np.array([weight_of[q] for q in qid[order]])


def split(qid, n_parts, seed):
    """Row masks of ``n_parts`` parts, each holding whole queries (taken in a scattered order)."""
    queries = np.unique(qid)
    owner = np.random.default_rng(seed).integers(0, n_parts, size=queries.size)
    owner[:n_parts] = np.arange(n_parts)  # no empty part
    part_of_row = owner[np.searchsorted(queries, qid)]
    return [part_of_row == p for p in range(n_parts)]


def assert_same(got, expected):
    assert got.summary.keys() == expected.summary.keys()
    for name, value in expected.summary.items():
        assert got.summary[name] == pytest.approx(value, rel=1e-12, abs=1e-12, nan_ok=True), name
    np.testing.assert_array_equal(got.per_query["qid"], expected.per_query["qid"])
    for name, values in expected.per_query.items():
        np.testing.assert_allclose(got.per_query[name], values, rtol=1e-12, atol=1e-12, err_msg=name)
    assert (got.n_queries, got.n_skipped, got.params) == (expected.n_queries, expected.n_skipped, expected.params)


@pytest.mark.parametrize("n_parts", [1, 3, 7])
@pytest.mark.parametrize("ties", ["expected", "realistic", "optimistic", "pessimistic", "ordinal"])
@pytest.mark.parametrize("options", [{}, {"targets": "all"}, {"no_relevant": "zero"}, {"convention": "lightgbm"},
                                     {"weights": True, "exclude": True, "unjudged": True}])
def test_parts_reduce_to_the_one_part_report(n_parts, ties, options):
    seed = n_parts * 100 + len(options)
    y, s, qid, weight = grouped(seed)
    rng = np.random.default_rng(seed)
    rows = {"qid": qid}
    if options.get("weights"):
        rows["sample_weight"] = weight
    if options.get("exclude"):
        rows["exclude"] = (y == 0) & (rng.random(y.size) < 0.2)
    if options.get("unjudged"):
        rows["unjudged"] = (y == 0) & (rng.random(y.size) < 0.3)
    engine_options = {key: value for key, value in options.items() if key in ("targets", "no_relevant", "convention")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", skr.UndefinedMetricWarning)
        expected = skr.evaluate(y, s, metrics=METRICS, ties=ties, **rows, **engine_options)
        evaluation = _engine.plan(metrics=METRICS, ties=ties, **engine_options)
        parts = [evaluation.part(y[mask], s[mask], **{key: value[mask] for key, value in rows.items()})
                 for mask in split(qid, n_parts, seed)]
        got = evaluation.reduce(parts)
    assert_same(got, expected)


def test_a_query_in_two_parts_is_refused():
    y, s, qid, _ = grouped(1)
    evaluation = _engine.plan(metrics=["mrr"])
    first = qid == qid[0]
    half = first & (np.cumsum(first) <= first.sum() // 2 + 1)
    parts = [evaluation.part(y[~half], s[~half], qid=qid[~half]), evaluation.part(y[half], s[half], qid=qid[half])]
    if first.sum() > 1:
        with pytest.raises(ValueError, match=r"Every query must lie in one part .* Got the rows of 1 queries"):
            evaluation.reduce(parts)


def test_global_checks_apply_to_all_parts_together():
    # "no query has a relevant item" is a property of all parts, not of one
    evaluation = _engine.plan(metrics=["mrr"])
    without = evaluation.part([0, 0], [0.5, 0.2], qid=[1, 1])
    with_relevant = evaluation.part([1, 0], [0.5, 0.2], qid=[2, 2])
    assert evaluation.reduce([without, with_relevant]).summary == {"mrr": 1.0}
    with pytest.raises(ValueError, match="No query has a relevant item"):
        evaluation.reduce([without, evaluation.part([0, 0], [0.1, 0.2], qid=[3, 3])])
    strict = _engine.plan(metrics=["mrr"], no_relevant="error")
    with pytest.raises(ValueError, match="no_relevant='error'.*qid \\[1\\]"):
        strict.reduce([strict.part([0, 0], [0.5, 0.2], qid=[1, 1]), strict.part([1, 0], [0.5, 0.2], qid=[2, 2])])


def test_a_part_without_targets_counts_zero_targets_per_query():
    # A part whose queries have no relevant item (kept by no_relevant="zero") has no target at all; its
    # queries' per-query count is 0, as in a part where other queries have targets (it was NaN).
    y = np.array([0, 0, 1, 0, 0, 0, 0, 1])
    s = np.array([0.3, 0.2, 0.9, 0.1, 0.5, 0.4, 0.8, 0.7])
    qid = np.array([1, 1, 2, 2, 3, 3, 4, 4])
    metrics = ["count", "mr", "zmrr"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", skr.UndefinedMetricWarning)
        expected = skr.evaluate(y, s, qid=qid, metrics=metrics, no_relevant="zero")
        evaluation = _engine.plan(metrics=metrics, no_relevant="zero")
        without = np.isin(qid, [1, 3])
        got = evaluation.reduce([evaluation.part(y[mask], s[mask], qid=qid[mask]) for mask in (without, ~without)])
    np.testing.assert_array_equal(expected.per_query["count"], [0, 1, 0, 1])
    assert_same(got, expected)


def test_a_consuming_reduction_reads_a_name_written_twice():
    # Plan.reduce(consume=True) releases each part's values at their last use (evaluate_batches' end)
    y, s, qid, _ = grouped(2)
    metrics = ["mrr", "map", "mrr", "MRR", "ndcg@5", "mr"]
    expected = skr.evaluate(y, s, qid=qid, metrics=metrics)
    evaluation = _engine.plan(metrics=metrics)
    queries = np.unique(qid)
    bounds = queries[[10, 20, 30]]  # parts of consecutive query ids, in order: the joining path
    owner = np.searchsorted(bounds, qid, side="right")
    parts = [evaluation.part(y[owner == p], s[owner == p], qid=qid[owner == p]) for p in range(4)]
    assert_same(evaluation.reduce(parts, consume=True), expected)


# every metric of the registry, a cut-off where it takes one
ALL_METRICS = [name.replace("@k", "@10") for name in skr.metric_names()]


def assert_identical(got, expected):
    """The same numbers, bit for bit: the summary must not depend on how the queries were split."""
    assert got.summary.keys() == expected.summary.keys()
    differ = {name: (got.summary[name], value) for name, value in expected.summary.items()
              if not (got.summary[name] == value or (np.isnan(value) and np.isnan(got.summary[name])))}
    assert not differ, differ
    for name, values in expected.per_query.items():
        np.testing.assert_array_equal(got.per_query[name], values, err_msg=name)


@pytest.mark.parametrize("string_qid", [False, True])
@pytest.mark.parametrize("targets", ["first", "all"])
@pytest.mark.parametrize("ties", ["expected", "ordinal"])
def test_the_summary_is_identical_however_the_queries_are_split(string_qid, targets, ties):
    # Partition independence (DESIGN): per-query values are pooled in query-id order, whatever the order
    # of the parts and of the queries within them, so 1, 3 or 7 parts give the in-memory numbers exactly
    # (the adjusted metrics amplify rounding by 1 / (1 - e): a pooled sum in part order differed by 1e-12).
    y, s, qid, weight = grouped(7 + len(targets), n_queries=400)
    if string_qid:
        qid = np.array([f"q{q}" for q in qid], dtype=object)
    rng = np.random.default_rng(3)
    rows = {"qid": qid, "sample_weight": weight, "exclude": (y == 0) & (rng.random(y.size) < 0.2),
            "unjudged": (y == 0) & (rng.random(y.size) < 0.3)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", skr.UndefinedMetricWarning)
        expected = skr.evaluate(y, s, metrics=ALL_METRICS, ties=ties, targets=targets, **rows)
        evaluation = _engine.plan(metrics=ALL_METRICS, ties=ties, targets=targets)
        queries = np.unique(qid)
        for n_parts in (1, 3, 7):
            masks = split(qid, n_parts, n_parts)
            parts = [evaluation.part(y[mask], s[mask], **{key: value[mask] for key, value in rows.items()})
                     for mask in masks]
            assert_identical(evaluation.reduce(parts), expected)
            assert_identical(evaluation.reduce(parts[::-1]), expected)
            # a stream's parts, joined as they come (evaluate_batches): in part order, or query ranges
            store = _parts.PartStore()
            for part in parts:
                store.add(part)
            assert_identical(evaluation.reduce([store.finish()], consume=True), expected)
            owner = np.searchsorted(queries[np.linspace(0, queries.size, n_parts + 1).astype(int)[1:-1]], qid,
                                    side="right")
            ranges = [evaluation.part(y[owner == p], s[owner == p],
                                      **{key: value[owner == p] for key, value in rows.items()})
                      for p in range(n_parts)]
            assert_identical(evaluation.reduce(ranges), expected)


@pytest.mark.parametrize("qid, named", [([7, 7, 9, 9, 9], "qid 9"), (["b", "b", "a", "a", "a"], "qid 'a'")])
def test_a_nan_score_names_its_query_id(qid, named):
    # the row alone is local to a batch or a partition on the split paths: the query id locates it anywhere
    y, s = [1, 0, 0, 1, 0], [0.5, 0.2, 0.3, np.nan, np.nan]
    with pytest.raises(ValueError, match=rf"Got 2 NaN scores, the first at row 3 \({named}\) instead\."):
        skr.evaluate(y, s, qid=qid, metrics=["mrr"])
    with pytest.raises(ValueError, match=r"Got 2 NaN scores, the first at row 3 instead\."):  # one query, no id
        skr.evaluate(y, s, metrics=["mrr"])


def test_a_querys_err_does_not_depend_on_the_other_queries():
    # ERR sums over a tie block's items; the sort that made the blocks left tied rows in an order set by
    # the other queries' rows, and a query evaluated alone differed in its last bit
    rng = np.random.default_rng(1)
    sizes = [3, 400, 2, 1, 250, 5] + [4] * 60
    qid = np.repeat(np.arange(len(sizes)), sizes)
    y, s = rng.integers(0, 3, size=qid.size), rng.integers(0, 5, size=qid.size).astype(float)
    metrics = ["err", "err@10"]
    together = skr.evaluate(y, s, qid=qid, metrics=metrics).per_query
    for query in (1, 4):
        alone = skr.evaluate(y[qid == query], s[qid == query], qid=qid[qid == query], metrics=metrics).per_query
        for name in metrics:
            assert alone[name][0] == together[name][together["qid"] == query][0], (query, name)
