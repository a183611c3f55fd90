"""Definitions that place tied items their own way: AP with ``ap_ties="max"`` (scipy's rankdata "max",
cornac's MAP, scikit-learn's label ranking average precision), ``auc@k`` (the AUC of the top k, torchmetrics'
``top_k``), and a preset's per-metric tie policy (``Preset.ties_for``: CatBoost's and torchmetrics' AUC count
a tied pair half under presets that rank the other metrics another way).

Oracles: per-query loops over one ranked list (every order of the tied items for ``ties="expected"``),
scipy's ``rankdata`` and scikit-learn's ``label_ranking_average_precision_score`` and ``roc_auc_score``."""

import math

import numpy as np
import pytest
from scipy.stats import rankdata
from sklearn.metrics import label_ranking_average_precision_score, roc_auc_score

from sklearn_rank import evaluate, evaluate_batches, evaluate_blocks, mean_average_precision

from oracles import expected_over_orderings, ordering, roc_auc, tie_blocks

TIES = ["expected", "optimistic", "pessimistic", "ordinal"]


def _queries(seed, n_queries=14, binary=False):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_queries):
        n = int(rng.integers(1, 8))
        scores = rng.integers(0, 4, n).astype(float)  # many ties
        grades = rng.integers(0, 3 if not binary else 2, n) * (rng.random(n) < 0.6)
        if not grades.any():
            grades[int(rng.integers(n))] = 1
        out.append((scores, grades.astype(float)))
    return out


def _rows(queries):
    scores = np.concatenate([s for s, _ in queries])
    grades = np.concatenate([g for _, g in queries])
    qid = np.repeat(np.arange(len(queries)), [len(s) for s, _ in queries])
    return grades, scores, qid


# -- AP with every tied item at its block's last place ------------------------------------------------------
def ap_max(scores, grades, k=None, denominator="relevant"):
    """AP from scipy's rankdata(-scores, "max"): a relevant item at rank r counts the relevant items of
    rank <= r over r; with k, the items of rank <= k."""
    rank = rankdata(-np.asarray(scores), method="max")
    rel = np.asarray(grades) > 0
    cut = math.inf if k is None else k
    total = sum(np.sum(rel & (rank <= rank[i])) / rank[i] for i in np.flatnonzero(rel) if rank[i] <= cut)
    n_rel = int(rel.sum())
    den = {"relevant": n_rel, "capped": min(cut, n_rel), "list": min(n_rel, cut, len(grades))}[denominator]
    return total / den if den else 0.0


@pytest.mark.parametrize("ties", TIES + ["realistic"])
@pytest.mark.parametrize("k", [None, 1, 3])
@pytest.mark.parametrize("denominator", ["relevant", "capped", "list"])
def test_ap_ties_max_is_rankdata_max_whatever_the_tie_policy(ties, k, denominator):
    queries = _queries(3 if k is None else 3 + k)
    y_true, y_score, qid = _rows(queries)
    name = "map" if k is None else f"map@{k}"
    report = evaluate(y_true, y_score, qid=qid, metrics=[name, "mrr"], ties=ties, ap_ties="max",
                      ap_denominator=denominator)
    expected = [ap_max(s, g, k, denominator) for s, g in queries]
    np.testing.assert_allclose(report.per_query[name], expected, rtol=1e-12, atol=1e-15)
    # the other metrics keep the call's tie policy
    plain = evaluate(y_true, y_score, qid=qid, metrics=["mrr"], ties=ties)
    np.testing.assert_array_equal(report.per_query["mrr"], plain.per_query["mrr"])
    assert report.params["ap_ties"] == "max"


def test_ap_ties_max_is_scikit_learns_label_ranking_average_precision():
    rng = np.random.default_rng(5)
    y_score = rng.integers(0, 5, (40, 9)).astype(float)
    y_true = (rng.random((40, 9)) < 0.3).astype(int)
    y_true[y_true.sum(axis=1) == 0, 0] = 1  # LRAP scores a row without a relevant label 1, not ours
    lrap = label_ranking_average_precision_score(y_true, y_score)
    assert evaluate(y_true, y_score, metrics=["map"], ap_ties="max").summary["map"] == pytest.approx(lrap, rel=1e-12)
    assert mean_average_precision(y_true, y_score, ap_ties="max") == pytest.approx(lrap, rel=1e-12)
    # the same number through the blocks and the batches of rows
    assert evaluate_blocks([(y_true[:15], y_score[:15]), (y_true[15:], y_score[15:])], metrics=["map"],
                           ap_ties="max").summary["map"] == pytest.approx(lrap, rel=1e-12)
    qid = np.repeat(np.arange(40), 9)
    pd = pytest.importorskip("pandas")
    batches = [pd.DataFrame({"qid": qid[i:i + 90], "label": y_true.ravel()[i:i + 90], "score": y_score.ravel()[i:i + 90]})
               for i in range(0, 360, 90)]
    assert evaluate_batches(batches, metrics=["map"], ap_ties="max").summary["map"] == pytest.approx(lrap,
                                                                                                    rel=1e-12)


def test_ap_ties_max_of_the_label_index_is_one_over_the_block_end():
    y_score = np.array([[0.5, 0.5, 0.1], [0.9, 0.5, 0.5], [0.2, 0.2, 0.2]])
    report = evaluate(np.array([0, 1, 2]), y_score, metrics=["map", "map@2"], ap_ties="max")
    np.testing.assert_allclose(report.per_query["map"], [1 / 2, 1 / 3, 1 / 3])
    np.testing.assert_allclose(report.per_query["map@2"], [1 / 2, 0.0, 0.0])


# -- auc@k ------------------------------------------------------------------------------------------------
def auc_of_list(labels, fill):
    """The share of (relevant, non-relevant) pairs of a ranked list in the right order (``oracles.roc_auc``):
    0 without a relevant item, ``fill`` without a non-relevant one."""
    if not any(labels):
        return 0.0
    return fill if all(labels) else roc_auc(labels)


def _split_across(scores, grades, k):
    """Whether a tie block of relevant and non-relevant items crosses the cut-off k."""
    start = 0
    for block in tie_blocks(list(scores)):
        rel = [grades[i] > 0 for i in block]
        if start < k < start + len(block) and any(rel) and not all(rel):
            return True
        start += len(block)
    return False


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("k", [None, 1, 2, 4])
def test_auc_at_k_is_the_auc_of_the_top_k(ties, k):
    queries = _queries(11 + (k or 0), n_queries=30)
    if ties == "expected" and k is not None:  # tie blocks split by the cut-off: the expectation over their orders
        assert sum(_split_across(s, g, k) for s, g in queries) >= 3
    y_true, y_score, qid = _rows(queries)
    name = "auc" if k is None else f"auc@{k}"
    report = evaluate(y_true, y_score, qid=qid, metrics=[name], ties=ties, all_relevant="one")

    def of(seq):
        return auc_of_list([g > 0 for g in (seq if k is None else seq[:k])], fill=1.0)

    if ties == "expected":
        expected = [expected_over_orderings(of, list(s), list(g)) for s, g in queries]
    else:
        expected = [of([g[i] for i in ordering(list(s), [float(v > 0) for v in g], ties)]) for s, g in queries]
    np.testing.assert_allclose(report.per_query[name], expected, rtol=1e-12, atol=1e-15)


def test_auc_at_k_of_a_tie_block_split_by_the_cut_off():
    # the top 2: the non-relevant 0.9, then either tied item (the relevant one: its pair is ordered wrong)
    y_true, y_score, qid = [1, 0, 0, 1], [0.5, 0.5, 0.9, 0.1], [1, 1, 1, 1]
    assert evaluate(y_true, y_score, qid=qid, metrics=["auc@2"]).summary["auc@2"] == 0.0
    assert evaluate(y_true, y_score, qid=qid, metrics=["auc@2"], ties="pessimistic").summary["auc@2"] == 0.0
    assert evaluate(y_true, y_score, qid=qid, metrics=["auc@3"]).summary["auc@3"] == 0.25
    # the top 3: 0.9 (relevant), then two of a tie block of one relevant and two non-relevant items: with
    # chance 2/3 one of each (AUC (1 + 1/2) / 2), else two non-relevant ones (AUC 1)
    y_true, y_score = [1, 0, 1, 0, 0], [0.9, 0.5, 0.5, 0.5, 0.1]
    assert evaluate(y_true, y_score, metrics=["auc@3"]).summary["auc@3"] == pytest.approx(2 / 3 * 0.75 + 1 / 3)
    # the top 2: with chance 1/3 both relevant (no pair: all_relevant decides), else AUC 1
    assert evaluate(y_true, y_score, metrics=["auc@2"], all_relevant="zero").summary["auc@2"] == pytest.approx(2 / 3)
    with pytest.warns(Warning, match="undefined for 1 queries"):  # undefined under some orders: undefined
        report = evaluate(y_true + [1, 0], y_score + [0.9, 0.1], qid=[1] * 5 + [2] * 2, metrics=["auc@2"])
    np.testing.assert_array_equal(report.per_query["auc@2"], [np.nan, 1.0])


def test_auc_at_k_without_a_pair_in_the_top_k():
    # query 1: the top 1 is relevant (no non-relevant item there); query 2: no relevant item in the top 1
    y_true, y_score, qid = [1, 0, 0, 1], [0.9, 0.1, 0.9, 0.1], [1, 1, 2, 2]
    with pytest.warns(Warning, match=r"'auc@1' is undefined for 1 queries without a non-relevant candidate in "
                                     r"the top 1"):
        skipped = evaluate(y_true, y_score, qid=qid, metrics=["auc@1"])
    np.testing.assert_array_equal(skipped.per_query["auc@1"], [np.nan, 0.0])
    zero = evaluate(y_true, y_score, qid=qid, metrics=["auc@1"], all_relevant="zero")
    np.testing.assert_array_equal(zero.per_query["auc@1"], [0.0, 0.0])


def torchmetrics_auroc(scores, labels, k):
    """torchmetrics' retrieval_auroc written out: the top k by score, 0 without a relevant item there, else
    the binary AUROC of the selection (a tied pair half; 0 without a non-relevant item)."""
    top = np.argsort(-np.asarray(scores), kind="stable")[:k]
    selected = np.asarray(labels)[top] > 0
    if not selected.any() or selected.all():
        return 0.0
    return roc_auc_score(selected, np.asarray(scores)[top])


@pytest.mark.parametrize("k", [2, 3, 10])
def test_torchmetrics_preset_auc_at_k(k):
    # (where the top k splits a tie block, torchmetrics' topk keeps tied items in an unspecified order)
    queries = [(s, g) for s, g in _queries(21 + k, n_queries=40, binary=True) if not _split_across(s, g, k)]
    y_true, y_score, qid = _rows(queries)
    report = evaluate(y_true, y_score, qid=qid, metrics=[f"auc@{k}", "auc", "mrr"], convention="torchmetrics")
    expected = [torchmetrics_auroc(s, g, k) for s, g in queries]
    np.testing.assert_allclose(report.per_query[f"auc@{k}"], expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(report.per_query["auc"], [torchmetrics_auroc(s, g, len(s)) for s, g in queries],
                               rtol=1e-12, atol=1e-15)
    # auc is ranked apart under ties="expected"; the other metrics keep the preset's input order
    assert report.params["ties"] == "ordinal" and report.params["ties_for"] == {"auc": "expected"}
    ordinal = evaluate(y_true, y_score, qid=qid, metrics=["mrr"], ties="ordinal", gain="linear", no_relevant="zero")
    np.testing.assert_array_equal(report.per_query["mrr"], ordinal.per_query["mrr"])
    assert list(report.summary) == [f"auc@{k}", "auc", "mrr"]
    # ties= written in the call applies to every metric, auc included
    written = evaluate(y_true, y_score, qid=qid, metrics=["auc"], convention="torchmetrics", ties="pessimistic")
    assert "ties_for" not in written.params
    np.testing.assert_array_equal(written.per_query["auc"], evaluate(
        y_true, y_score, qid=qid, metrics=["auc"], ties="pessimistic", all_relevant="zero",
        no_relevant="zero").per_query["auc"])


def test_catboost_auc_counts_a_tie_half_beside_pessimistic_metrics_on_every_path():
    rng = np.random.default_rng(9)
    y_true = (rng.random((30, 8)) < 0.3).astype(float)
    y_score = rng.integers(0, 3, (30, 8)).astype(float)
    metrics = ["auc", "mrr", "ndcg@3"]
    matrix = evaluate(y_true, y_score, metrics=metrics, convention="catboost")
    qid = np.repeat(np.arange(30), 8)
    grouped = evaluate(y_true.ravel(), y_score.ravel(), qid=qid, metrics=metrics, convention="catboost")
    blocks = evaluate_blocks([(y_true[:10], y_score[:10]), (y_true[10:], y_score[10:])], metrics=metrics,
                             convention="catboost")
    threads = evaluate(y_true.ravel(), y_score.ravel(), qid=qid, metrics=metrics, convention="catboost", n_jobs=2)
    half = [roc_auc_score(t, s) if 0 < t.sum() < t.size else 0.0 for t, s in zip(y_true, y_score)]
    for report in (matrix, grouped, blocks, threads):
        np.testing.assert_allclose(report.per_query["auc"], half, rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(report.per_query["mrr"], matrix.per_query["mrr"])
        assert list(report.summary) == metrics
    mrr = evaluate(y_true, y_score, metrics=["mrr"], ties="pessimistic", no_relevant="zero")
    np.testing.assert_array_equal(matrix.per_query["mrr"], mrr.per_query["mrr"])


def test_tie_definitions_in_another_array_namespace(monkeypatch):
    xp = pytest.importorskip("array_api_strict")
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    import sklearn

    rng = np.random.default_rng(2)
    y_true = (rng.random((25, 7)) < 0.35).astype(np.float64)
    y_true[:, 0] = 1.0
    y_score = rng.integers(0, 3, (25, 7)).astype(np.float64)
    metrics = ["map", "auc@3", "auc", "mrr"]
    options = dict(ap_ties="max", ties="pessimistic", all_relevant="zero")
    expected = evaluate(y_true, y_score, metrics=metrics, **options)
    distinct = rng.random((25, 7))
    torchy = evaluate(y_true, distinct, metrics=["auc", "auc@3"], convention="torchmetrics")
    with sklearn.config_context(array_api_dispatch=True):
        got = evaluate(xp.asarray(y_true), xp.asarray(y_score), metrics=metrics, **options)
        got_preset = evaluate(xp.asarray(y_true), xp.asarray(distinct), metrics=["auc", "auc@3"],
                              convention="torchmetrics")
        labels = evaluate(xp.asarray(np.argmax(y_score, axis=1)), xp.asarray(y_score), metrics=["map", "auc@2"],
                          ap_ties="max", ties="optimistic", all_relevant="zero")
        # tie blocks split by the cut-off: the expectation over their orders
        split = evaluate(xp.asarray(y_true), xp.asarray(y_score), metrics=["auc@3"], all_relevant="zero")
    np.testing.assert_allclose(np.asarray(split.per_query["auc@3"]), evaluate(
        y_true, y_score, metrics=["auc@3"], all_relevant="zero").per_query["auc@3"], rtol=1e-12)
    for name in metrics:
        np.testing.assert_allclose(np.asarray(got.per_query[name]), expected.per_query[name], rtol=1e-12)
        assert got.summary[name] == pytest.approx(expected.summary[name], rel=1e-12)
    for name in ("auc", "auc@3"):
        np.testing.assert_allclose(np.asarray(got_preset.per_query[name]), torchy.per_query[name], rtol=1e-12)
    assert list(got.summary) == metrics
    plain = evaluate(np.argmax(y_score, axis=1), y_score, metrics=["map", "auc@2"], ap_ties="max",
                     ties="optimistic", all_relevant="zero")
    for name in ("map", "auc@2"):
        np.testing.assert_allclose(np.asarray(labels.per_query[name]), plain.per_query[name], rtol=1e-12)


@pytest.mark.parametrize("options, match", [
    (dict(ap_ties="min"), r"`ap_ties` must be one of \{'follow', 'max'\}. Got 'min' instead"),
])
def test_unknown_values_name_the_option(options, match):
    with pytest.raises(ValueError, match=match):
        evaluate([1, 0], [0.5, 0.2], metrics=["map"], **options)
