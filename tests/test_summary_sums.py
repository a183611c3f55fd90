"""Summary means sum in an order of their own (``_report.order_free_sum``): the same summary whatever order the
queries come in, on any path. Oracle: ``math.fsum`` (exactly rounded) for the value, permutations for the order."""

import math

import numpy as np

import sklearn_rank as skr
from sklearn_rank._report import order_free_sum, weighted_mean


def test_the_sum_is_the_same_in_every_order_and_close_to_the_exact_sum():
    rng = np.random.default_rng(0)
    values = rng.random(5_000) * 10.0 ** rng.integers(-8, 8, 5_000)
    first = order_free_sum(values)
    for _ in range(20):
        assert order_free_sum(rng.permutation(values)) == first
    assert math.isclose(first, math.fsum(values), rel_tol=1e-14)


def test_the_weighted_mean_skips_nan_values_and_needs_a_positive_total_weight():
    values = np.array([0.5, np.nan, 0.25, 1.0])
    weights = np.array([1.0, 5.0, 2.0, 1.0])
    assert weighted_mean(values, weights) == math.fsum([0.5, 0.5, 1.0]) / 4.0
    assert np.isnan(weighted_mean(values, np.array([0.0, 1.0, 0.0, 0.0])))
    assert np.isnan(weighted_mean(np.array([np.nan]), np.array([1.0])))


def test_a_report_has_the_same_summary_whatever_the_order_of_the_queries():
    rng = np.random.default_rng(1)
    n_q, n_c = 3_000, 7
    qid = np.repeat(rng.permutation(n_q), n_c)
    y = rng.integers(0, 3, qid.size)
    s = np.round(rng.random(qid.size), 2)
    weight = rng.random(n_q) + 0.1
    metrics = ["ndcg@3", "map", "mrr", "mr"]
    report = skr.evaluate(y, s, qid=qid, metrics=metrics, sample_weight=weight[qid])
    for seed in range(5):  # the same rows, whole queries in another order
        order = np.argsort(np.random.default_rng(seed).permutation(n_q)[qid], kind="stable")
        other = skr.evaluate(y[order], s[order], qid=qid[order], metrics=metrics, sample_weight=weight[qid][order])
        assert other.summary == report.summary
