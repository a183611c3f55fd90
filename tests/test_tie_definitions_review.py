"""Review of issue 24's definitions (``ap_ties="max"``, ``auc@k``, a preset's per-metric tie policy) by tests:
the numbers against independent oracles (every order of the tied items, scipy's ``rankdata``, scipy's
hypergeometric law, scikit-learn's ``roc_auc_score`` and ``label_ranking_average_precision_score``, the peers'
recorded outputs) on every layout and entry point.

The tests marked ``xfail(strict=True)`` are bugs found by the review: each states the behaviour expected once
fixed (remove the mark then)."""

import contextlib
import io
import itertools
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import hypergeom, rankdata
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.metrics import label_ranking_average_precision_score, roc_auc_score

from sklearn_rank import (RankingEvaluator, evaluate, evaluate_batches, evaluate_blocks, make_ranking_scorer,
                          mean_average_precision)

from oracles import roc_auc

PEERS = Path(__file__).parent / "data" / "peers"
FILL = {"zero": 0.0, "one": 1.0, "skip": math.nan}


# -- oracles, independent of the package -------------------------------------------------------------------
def _orders(scores):
    """Every total order of the candidates (indices): the tie blocks by decreasing score, each permuted."""
    scores = np.asarray(scores, dtype=float)
    blocks = [list(np.flatnonzero(scores == value)) for value in sorted(set(scores.tolist()), reverse=True)]
    for perms in itertools.product(*(itertools.permutations(block) for block in blocks)):
        yield [i for perm in perms for i in perm]


def _auc_of_ranked(relevant, k, fill):
    """AUC of the (relevant, non-relevant) pairs of a ranked list cut at k: 0 without a relevant item there
    (torchmetrics' top_k), ``fill`` without a non-relevant one."""
    top = list(relevant) if k is None else list(relevant)[:k]
    if not any(top):
        return 0.0
    return fill if all(top) else roc_auc(top)


def auc_over_orders(scores, relevant, k, fill):
    """The mean over every order of the tied candidates (NaN when some order has no pair and fill is NaN)."""
    relevant = np.asarray(relevant, dtype=bool)
    return float(np.mean([_auc_of_ranked(relevant[order], k, fill) for order in _orders(scores)]))


def ap_rankdata_max(scores, relevant, k=None, denominator=None):
    """AP with every candidate at rankdata(-scores, "max"); with k, the relevant items of rank <= k count."""
    rank = rankdata(-np.asarray(scores, dtype=float), method="max")
    rel = np.asarray(relevant, dtype=bool)
    cut = math.inf if k is None else k
    total = sum(np.sum(rel & (rank <= rank[i])) / rank[i] for i in np.flatnonzero(rel) if rank[i] <= cut)
    den = int(rel.sum()) if denominator is None else denominator
    return total / den if den else 0.0


def _grouped(queries):
    y_score = np.concatenate([np.asarray(s, dtype=float) for s, _ in queries])
    y_true = np.concatenate([np.asarray(g, dtype=float) for _, g in queries])
    qid = np.repeat(np.arange(len(queries)), [len(s) for s, _ in queries])
    return y_true, y_score, qid


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


class Passthrough(RegressorMixin, BaseEstimator):
    """Predicts the first feature: the scores are given as data."""

    def fit(self, X, y=None):
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0]


# -- what holds: oracles on every option and layout ------------------------------------------------------
def test_auc_at_k_and_ap_max_against_oracles_with_exclusions_weights_and_levels():
    rng = np.random.default_rng(4)
    for trial in range(40):
        queries, excluded = [], []
        for _ in range(int(rng.integers(1, 5))):
            n = int(rng.integers(2, 7))
            scores = rng.integers(0, 3, n).astype(float)
            grades = ((rng.random(n) < 0.45) * rng.integers(1, 4, n)).astype(float)
            grades[0] = max(grades[0], 2.0)
            queries.append((scores, grades))
            excluded.append((rng.random(n) < 0.25) & (grades == 0))
        k = int(rng.integers(1, 7))
        all_relevant = ["zero", "one", "skip"][trial % 3]
        level = None if trial % 2 else 2.0
        y_true, y_score, qid = _grouped(queries)
        exclude = np.concatenate(excluded)
        weight = rng.random(len(queries)) + 0.1
        metrics = [f"auc@{k}", "auc", "map", f"map@{k}"]
        options = dict(metrics=metrics, all_relevant=all_relevant, ap_ties="max", relevance_level=level,
                       sample_weight=np.repeat(weight, [len(s) for s, _ in queries]))
        by_exclude = _quiet(evaluate, y_true, y_score, qid=qid, exclude=exclude, **options)
        nan_scores = np.where(exclude, np.nan, y_score)
        by_nan = _quiet(evaluate, y_true, nan_scores, qid=qid, nan_policy="omit", **options)
        expected = {name: [] for name in metrics}
        for (scores, grades), ex in zip(queries, excluded):
            scores, rel = scores[~ex], (grades[~ex] > 0) if level is None else (grades[~ex] >= level)
            expected[f"auc@{k}"].append(auc_over_orders(scores, rel, k, FILL[all_relevant]))
            expected["auc"].append(auc_over_orders(scores, rel, None, FILL[all_relevant]))
            expected["map"].append(ap_rankdata_max(scores, rel))
            expected[f"map@{k}"].append(ap_rankdata_max(scores, rel, k))
        for report in (by_exclude, by_nan):
            for name in metrics:
                values = np.asarray(expected[name])
                np.testing.assert_allclose(report.per_query[name], values, rtol=1e-12, atol=1e-14,
                                           equal_nan=True, err_msg=name)
                kept = ~np.isnan(values)
                mean = np.sum(weight[kept] * values[kept]) / np.sum(weight[kept]) if kept.any() else np.nan
                assert report.summary[name] == pytest.approx(mean, rel=1e-12, nan_ok=True), name


def test_auc_at_k_at_or_beyond_the_list_is_auc():
    rng = np.random.default_rng(7)
    for trial in range(60):
        n_q, n = int(rng.integers(1, 5)), int(rng.integers(1, 7))
        y_score = rng.integers(0, 3, (n_q, n)).astype(float)
        y_true = ((rng.random((n_q, n)) < 0.5) * rng.integers(1, 3, (n_q, n))).astype(float)
        y_true[:, 0] = 1.0
        options = dict(ties=["expected", "realistic", "pessimistic", "optimistic", "ordinal"][trial % 5],
                       all_relevant=["skip", "zero", "one"][trial % 3])
        report = _quiet(evaluate, y_true, y_score, metrics=["auc", f"auc@{n}", f"auc@{n + 3}"], **options)
        for name in (f"auc@{n}", f"auc@{n + 3}"):
            np.testing.assert_array_equal(report.per_query[name], report.per_query["auc"])


def test_layouts_threads_and_float32_agree_on_the_new_definitions():
    rng = np.random.default_rng(1)
    n_q, n = 30, 6
    y_score = rng.integers(0, 3, (n_q, n)).astype(float)
    y_true = ((rng.random((n_q, n)) < 0.4) * rng.integers(1, 3, (n_q, n))).astype(float)
    y_true[np.arange(n_q), rng.integers(0, n, n_q)] = 1.0
    exclude = (rng.random((n_q, n)) < 0.2) & (y_true == 0)
    qid = np.repeat(np.arange(n_q), n)
    for options in (dict(ties="pessimistic", ap_ties="max", all_relevant="zero"),
                    dict(ties="realistic", ap_ties="max", all_relevant="one"),
                    dict(convention="torchmetrics"), dict(convention="cornac")):
        metrics = (["auc", "map", "mrr", "ndcg@3"] if options.get("convention") == "cornac"
                   else ["auc@3", "auc", "map", "map@2", "mrr", "mr"])
        rows = ~exclude.ravel()
        grouped = _quiet(evaluate, y_true.ravel()[rows], y_score.ravel()[rows], qid=qid[rows], metrics=metrics,
                         **options)
        for report in (_quiet(evaluate, y_true, y_score, exclude=exclude, metrics=metrics, **options),
                       _quiet(evaluate, sp.csr_matrix(y_true), y_score, exclude=sp.csr_matrix(exclude),
                              metrics=metrics, **options),
                       _quiet(evaluate, y_true, y_score.astype(np.float32), exclude=exclude, metrics=metrics,
                              **options),
                       _quiet(evaluate, y_true.ravel(), y_score.ravel(), qid=qid, exclude=exclude.ravel(),
                              metrics=metrics, n_jobs=2, **options)):
            assert list(report.summary) == metrics and list(report.per_query) == ["qid", *metrics]
            assert report.params == grouped.params
            for name in metrics:
                np.testing.assert_allclose(report.per_query[name], grouped.per_query[name], rtol=1e-12,
                                           atol=1e-15, equal_nan=True, err_msg=f"{options} {name}")


def test_rank_statistics_beside_keep_the_calls_ties_and_targets():
    rng = np.random.default_rng(0)
    y_true = (rng.random((10, 6)) < 0.4).astype(float)
    y_true[:, 0] = 1.0
    y_score = rng.integers(0, 3, (10, 6)).astype(float)
    both = evaluate(y_true, y_score, metrics=["map", "auc@3", "mr", "hits@2", "mrr"], targets="all",
                    ap_ties="max", ties="pessimistic", all_relevant="zero")
    ranks = evaluate(y_true, y_score, metrics=["mr", "hits@2", "mrr"], targets="all", ties="pessimistic")
    lists = evaluate(y_true, y_score, metrics=["map", "auc@3", "mrr"], ap_ties="max", ties="pessimistic",
                     all_relevant="zero")
    assert list(both.per_query) == ["qid", "map", "auc@3", "mr", "hits@2", "mrr"]
    for name, alone in (("mr", ranks), ("hits@2", ranks), ("mrr", ranks), ("map", lists), ("auc@3", lists)):
        np.testing.assert_array_equal(both.per_query[name], alone.per_query[name], err_msg=name)


def test_ap_ties_max_of_the_label_index_with_exclusions():
    rng = np.random.default_rng(11)
    y_score = rng.integers(0, 3, (40, 6)).astype(float)
    labels = rng.integers(0, 6, 40)
    exclude = rng.random((40, 6)) < 0.3
    exclude[np.arange(40), labels] = False
    report = evaluate(labels, y_score, exclude=exclude, metrics=["map", "map@2", "mrr"], ties="optimistic",
                      ap_ties="max")
    target = np.zeros((40, 6), dtype=bool)
    target[np.arange(40), labels] = True
    for name, k in (("map", None), ("map@2", 2)):
        expected = [ap_rankdata_max(s[~e], t[~e], k) for s, t, e in zip(y_score, target, exclude)]
        np.testing.assert_allclose(report.per_query[name], expected, rtol=1e-12)


def test_ap_ties_max_in_the_retrieval_setting_divides_by_every_judged_relevant_item():
    # query 1: scores 2, 2, 1, 1 (relevant: the first and the third) and a relevant document not retrieved
    y_true, y_score, qid = [1, 0, 1, 0, 0, 0], [2.0, 2, 1, 1, 3, 3], [1, 1, 1, 1, 2, 2]
    judged = (np.array([1, 1, 1, 1, 1, 2, 2, 2]), np.array([1, 0, 1, 0, 1, 0, 0, 1]))
    report = evaluate(y_true, y_score, qid=qid, metrics=["map", "map@2", "mrr"], judged=judged, ap_ties="max",
                      ties="pessimistic")
    np.testing.assert_allclose(report.per_query["map"], [ap_rankdata_max([2, 2, 1, 1], [1, 0, 1, 0],
                                                                         denominator=3), 0.0])
    np.testing.assert_allclose(report.per_query["map@2"], [ap_rankdata_max([2, 2, 1, 1], [1, 0, 1, 0], 2,
                                                                           denominator=3), 0.0])


def test_ap_ties_max_is_lrap_with_sample_weight():
    rng = np.random.default_rng(6)
    y_score = rng.integers(0, 4, (25, 7)).astype(float)
    y_true = (rng.random((25, 7)) < 0.35).astype(int)
    y_true[y_true.sum(axis=1) == 0, 0] = 1
    weight = rng.random(25) + 0.2
    lrap = label_ranking_average_precision_score(y_true, y_score, sample_weight=weight)
    report = evaluate(y_true, y_score, metrics=["map", "mrr"], ap_ties="max", sample_weight=weight)
    assert report.summary["map"] == pytest.approx(lrap, rel=1e-12)


@pytest.mark.parametrize("m, r, k, above", [(2000, 600, 1000, []), (2000, 1, 1000, []), (2000, 1999, 1000, []),
                                            (5000, 2500, 2500, [1, 0, 1]), (2000, 600, 1999, [0, 1])])
def test_auc_at_k_of_a_big_tie_block_is_the_hypergeometric_mean(m, r, k, above):
    # `above`: candidates of distinct scores above a block of m tied candidates, r of them relevant
    y_score = np.concatenate([np.arange(len(above), 0, -1) + 1.0, np.zeros(m)])
    y_true = np.concatenate([np.array(above, dtype=float), np.ones(r), np.zeros(m - r)])
    s, c, t = len(above), int(sum(above)), k - len(above)
    correct_above = sum(above[i] and not above[j] for i in range(s) for j in range(i + 1, s))
    x = np.arange(max(0, t - (m - r)), min(r, t) + 1)
    values = []
    for drawn in x:  # the relevant items of the block in the top k
        n_rel, n_nonrel = c + drawn, s - c + t - drawn
        values.append(0.0 if n_rel == 0 else 0.0 if n_nonrel == 0 else
                      (correct_above + c * (t - drawn) + drawn * (t - drawn) / 2) / (n_rel * n_nonrel))
    expected = float(np.dot(hypergeom(m, r, t).pmf(x), values))
    for scores in (y_score, y_score.astype(np.float32)):
        got = evaluate(y_true, scores, metrics=[f"auc@{k}", "mrr"], all_relevant="zero").summary[f"auc@{k}"]
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_the_namespace_path_joins_the_tie_policies_with_weights_exclusions_and_skipped_queries(monkeypatch):
    xp = pytest.importorskip("array_api_strict")
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    import sklearn

    rng = np.random.default_rng(3)
    y_true = (rng.random((12, 6)) < 0.35).astype(float)
    y_true[0], y_true[1] = 0.0, 1.0  # a query without a relevant item, one without a non-relevant one
    y_score = rng.integers(0, 3, (12, 6)).astype(float)
    weight = rng.random(12) + 0.5
    exclude = (rng.random((12, 6)) < 0.2) & (y_true == 0)
    for options in (dict(metrics=["auc", "map", "mrr", "auc@3", "mr"], convention="torchmetrics"),
                    dict(metrics=["auc", "map", "mrr", "auc@3", "mr"], ap_ties="max", ties="pessimistic",
                         all_relevant="zero"),
                    dict(metrics=["auc", "rocauc", "mrr"], convention="catboost")):
        expected = _quiet(evaluate, y_true, y_score, sample_weight=weight, exclude=exclude, **options)
        with sklearn.config_context(array_api_dispatch=True):
            got = _quiet(evaluate, xp.asarray(y_true), xp.asarray(y_score), sample_weight=xp.asarray(weight),
                         exclude=xp.asarray(exclude), **options)
        assert (got.n_queries, got.n_skipped, got.params) == (expected.n_queries, expected.n_skipped,
                                                              expected.params)
        assert list(got.per_query) == ["qid", *options["metrics"]]
        for name in options["metrics"]:
            np.testing.assert_allclose(np.asarray(got.per_query[name]), expected.per_query[name], rtol=1e-12,
                                       equal_nan=True, err_msg=name)
            assert float(got.summary[name]) == pytest.approx(expected.summary[name], rel=1e-12)


# -- bugs --------------------------------------------------------------------------------------------------
# Plan.part runs the plans of Plan.by_ties only when there are several: when every metric of a call is ranked
# under one policy other than the call's (a metric alone, or all of them: map with ap_ties="max" under another
# ties, auc@k under "realistic", a preset's ties_for), the single plan is dropped and the metric is computed on
# the call's blocks. evaluate_in_namespace loops over by_ties() and is right.
ALONE = [
    # (id, metric, options, queries (scores, relevance), oracle of one query)
    ("map-ap_ties-max-pessimistic", "map", dict(ap_ties="max", ties="pessimistic"),
     [([0, 0, 1, 0, 1, 2], [1, 0, 1, 1, 1, 1])], lambda s, g: ap_rankdata_max(s, g)),
    ("map-ap_ties-max-optimistic", "map", dict(ap_ties="max", ties="optimistic"),
     [([0, 0, 2, 2, 0], [0, 1, 0, 1, 0])], lambda s, g: ap_rankdata_max(s, g)),
    ("map-ap_ties-max-ordinal", "map@1", dict(ap_ties="max", ties="ordinal"),
     [([1, 1, 0, 0, 0], [1, 0, 1, 1, 1])], lambda s, g: ap_rankdata_max(s, g, 1)),
    ("map-ap_ties-max-realistic", "map", dict(ap_ties="max", ties="realistic"),
     [([2, 2], [1, 0])], lambda s, g: ap_rankdata_max(s, g)),
    ("auc@k-realistic", "auc@3", dict(ties="realistic", all_relevant="zero"),
     [([0, 1, 1, 1, 1], [0, 1, 0, 1, 0])], lambda s, g: auc_over_orders(s, g, 3, 0.0)),
    ("cornac-map", "map", dict(convention="cornac"),
     [([0, 0, 1, 0, 1, 2], [1, 0, 1, 1, 1, 1])], lambda s, g: ap_rankdata_max(s, g)),
    ("catboost-auc", "auc", dict(convention="catboost"),
     [([0.5, 0.5, 0.9, 0.1], [1, 0, 0, 1])], lambda s, g: roc_auc_score(g, s)),
    ("torchmetrics-auc", "auc", dict(convention="torchmetrics"),
     [([0.5, 0.5, 0.9, 0.1], [1, 0, 0, 1])], lambda s, g: roc_auc_score(g, s)),
    ("torchmetrics-auc@3", "auc@3", dict(convention="torchmetrics"),
     [([0.5, 0.5, 0.9, 0.1], [1, 0, 0, 1])], lambda s, g: roc_auc_score([1, 0, 0], [0.5, 0.5, 0.9])),
]


@pytest.mark.parametrize("metric, options, queries, oracle", [pytest.param(*case[1:], id=case[0]) for case in ALONE])
def test_a_metric_alone_is_ranked_under_its_own_tie_policy(metric, options, queries, oracle):
    y_true, y_score, qid = _grouped(queries)
    expected = [oracle(np.asarray(s, dtype=float), np.asarray(g) > 0) for s, g in queries]
    beside = evaluate(y_true, y_score, qid=qid, metrics=[metric, "mrr"], **options)
    np.testing.assert_allclose(beside.per_query[metric], expected, rtol=1e-12)  # (holds today)
    alone = evaluate(y_true, y_score, qid=qid, metrics=[metric], **options)
    np.testing.assert_allclose(alone.per_query[metric], expected, rtol=1e-12)


def _peer_rows(case):
    y_true, y_score, qid = [], [], []
    for user in range(case["n_users"]):
        for item in range(case["n_items"]):
            if not case["train"][user][item]:
                y_true.append(case["labels"][user][item])
                y_score.append(case["scores"][user][item])
                qid.append(user)
    return np.array(y_true, dtype=float), np.array(y_score, dtype=float), np.array(qid)


def test_the_peers_recorded_map_and_auc_evaluated_alone():
    for peer, metric, output in (("cornac", "map", "MAP"), ("catboost", "auc", "QueryAUC [label=relevant]")):
        path = PEERS / f"{peer}.json"
        if not path.exists():  # pragma: no cover - the files are in the repository
            pytest.skip(f"{path} is missing")
        for case in json.loads(path.read_text())["cases"]:
            y_true, y_score, qid = _peer_rows(case)
            if peer == "catboost":
                y_true = (y_true > 0).astype(float)
            report = _quiet(evaluate, y_true, y_score, qid=qid, metrics=[metric], convention=peer)
            recorded = case["outputs"][output]
            got = np.full(case["n_users"], np.nan)
            got[report.per_query["qid"]] = report.per_query[metric]
            np.testing.assert_allclose(got, [np.nan if v is None else v for v in recorded["per_query"]],
                                       rtol=1e-12, atol=1e-14, equal_nan=True, err_msg=f"{peer} {case['id']}")


def test_single_metric_entry_points_use_the_metrics_tie_policy():
    y_score, y_true = np.array([0.5, 0.5, 0.9, 0.1]), np.array([1.0, 0, 0, 1])
    qid, X = np.ones(4, dtype=int), y_score[:, None]
    half = roc_auc_score(y_true, y_score)  # 0.125: the tied pair counts half
    model = Passthrough().fit(X, y_true)
    assert make_ranking_scorer("auc", qid=None, convention="catboost")(model, X, y_true, qid=qid) == half
    evaluator = RankingEvaluator(Passthrough(), metric="auc", qid=0, convention="catboost")
    frame = np.c_[qid, X]
    assert evaluator.fit(frame, y_true).score(frame, y_true) == pytest.approx(half)
    scores, grades = [0, 0, 1, 0, 1, 2], [1, 0, 1, 1, 1, 1]
    assert mean_average_precision(grades, scores, ap_ties="max", ties="pessimistic") == pytest.approx(
        ap_rankdata_max(scores, np.array(grades) > 0))
    assert mean_average_precision(grades, scores, convention="cornac") == pytest.approx(
        ap_rankdata_max(scores, np.array(grades) > 0))


def test_single_metric_split_back_ends_and_namespaces_agree(monkeypatch):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(9)
    y_true = (rng.random((30, 8)) < 0.3).astype(float)
    y_score = rng.integers(0, 3, (30, 8)).astype(float)
    half = [roc_auc_score(t, s) if 0 < t.sum() < t.size else 0.0 for t, s in zip(y_true, y_score)]
    options = dict(metrics=["auc"], convention="catboost")
    frame = pd.DataFrame({"qid": np.repeat(np.arange(30), 8), "label": y_true.ravel(), "score": y_score.ravel()})
    reports = {"blocks": evaluate_blocks([(y_true[:10], y_score[:10]), (y_true[10:], y_score[10:])], **options),
               "batches": evaluate_batches([frame[:80], frame[80:]], **options)}
    with contextlib.suppress(ImportError):
        import dask.dataframe as dd

        from sklearn_rank import dask as skr_dask

        reports["dask"] = skr_dask.evaluate(dd.from_pandas(frame, npartitions=3), **options)
    with contextlib.suppress(ImportError):
        import array_api_strict as xp
        import sklearn

        monkeypatch.setenv("SCIPY_ARRAY_API", "1")
        with sklearn.config_context(array_api_dispatch=True):
            reports["namespace"] = evaluate(xp.asarray(y_true), xp.asarray(y_score), **options)  # (right today)
    reports["numpy"] = evaluate(y_true, y_score, **options)
    for where, report in reports.items():
        np.testing.assert_allclose(np.asarray(report.per_query["auc"]), half, rtol=1e-12, err_msg=where)


def test_the_command_line_on_a_table_with_one_metric(tmp_path):
    from sklearn_rank.cli import main

    pd = pytest.importorskip("pandas")
    scores, grades = [0.0, 0, 1, 0, 1, 2], [1, 0, 1, 1, 1, 1]
    path = tmp_path / "t.csv"
    pd.DataFrame({"qid": 1, "score": scores, "label": grades}).to_csv(path, index=False)
    values = {}
    for metrics in (["map", "mrr"], ["map"]):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["evaluate", "--convention", "cornac", "-m", *metrics, "--qid", "qid", "--score", "score",
                         "--label", "label", "--format", "json", str(path)]) == 0
        values[len(metrics)] = json.loads(out.getvalue())["summary"]["map"]
    expected = ap_rankdata_max(scores, np.array(grades) > 0)
    assert values[2] == pytest.approx(expected, rel=1e-12)  # (holds today)
    assert values[1] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("convention", ["catboost", "torchmetrics"])
def test_evaluate_trec_keeps_a_presets_tie_policy_for_auc(convention):
    from sklearn_rank.io import Qrels, Run, evaluate_trec

    qrels = Qrels(np.array(["q1"] * 4), np.array(["a", "b", "c", "d"]), np.array([1, 0, 0, 1]))
    run = Run(np.array(["q1"] * 4), np.array(["a", "b", "c", "d"]), np.array([0.5, 0.5, 0.9, 0.1]))
    report = evaluate_trec(qrels, run, metrics=["auc", "mrr"], convention=convention)
    rows = evaluate([1, 0, 0, 1], [0.5, 0.5, 0.9, 0.1], metrics=["auc", "mrr"], convention=convention)
    assert rows.summary["auc"] == roc_auc_score([1, 0, 0, 1], [0.5, 0.5, 0.9, 0.1])  # (holds today)
    assert report.summary["auc"] == pytest.approx(rows.summary["auc"], rel=1e-12)
    assert report.params.get("ties_for") == {"auc": "expected"}


@pytest.mark.parametrize("options", [dict(ties="pessimistic"), dict(ties="ordinal"),
                                     dict(convention="torchmetrics")])
def test_ap_ties_max_with_the_retrieved_denominator(options):
    # rankdata "max": the relevant 0.9 at place 1, the tie block {relevant, non-relevant} at place 3: outside the
    # top 2, so neither its AP term nor its relevant item counts; AP@2 = (1/1) / 1
    y_true, y_score = [1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1]
    report = evaluate(y_true, y_score, metrics=["map@2", "mrr"], ap_ties="max", ap_denominator="retrieved",
                      **options)
    assert report.summary["map@2"] == pytest.approx(ap_rankdata_max(y_score, np.array(y_true) > 0, 2,
                                                                    denominator=1))


@pytest.mark.parametrize("all_relevant", ["skip", "one"])  # ("zero": 0 either way)
def test_auc_of_a_query_that_retrieves_no_relevant_item(all_relevant):
    # query 1 retrieves three non-relevant documents; its relevant document is judged, not retrieved
    y_true, y_score, qid = [0, 0, 0, 1, 0], [3.0, 2, 1, 2, 1], [1, 1, 1, 2, 2]
    judged = (np.array([1, 1, 1, 1, 2, 2]), np.array([0, 0, 0, 1, 1, 0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no query lacks a non-relevant candidate
        report = evaluate(y_true, y_score, qid=qid, metrics=["auc", "auc@10"], judged=judged,
                          all_relevant=all_relevant)
    np.testing.assert_array_equal(report.per_query["auc@10"], [0.0, 1.0])  # (holds today, warning aside)
    np.testing.assert_array_equal(report.per_query["auc"], report.per_query["auc@10"])


@pytest.mark.parametrize("labels", [[2.0, 0, 1, 0], [0.3, 0, 1, 0]])
def test_catboost_auc_refuses_other_labels_whatever_the_gain(labels):
    with pytest.raises(ValueError, match="AUC of labels 0 and 1 only"):
        evaluate([labels], [[0.5, 0.5, 0.9, 0.1]], metrics=["auc", "mrr"], convention="catboost", gain="binary")
