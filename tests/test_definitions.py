"""The definition options (precision/recall/AP denominators, discounts, ideal DCG, binary gain) against a
plain per-query oracle: each metric written out for one ranked list, averaged over every order of the tied
items (brute force), or taken on the one order of a point tie policy."""

import math

import numpy as np
import pytest

from sklearn_rank import dcg_score, evaluate, ndcg_score, precision_at_k, recall_at_k

from oracles import expected_over_orderings, ordering


def _discount(rank, kind):
    if kind == "reciprocal":
        return 1.0 / rank
    if kind == "log2_max2":
        return 1.0 / math.log2(max(rank, 2))
    return 1.0 / math.log2(rank + 1)


def _gain(grade, gain):
    if grade <= 0:
        return 0.0
    return {"linear": grade, "exponential": 2.0 ** grade - 1, "binary": 1.0}[gain]


def oracle(metric, grades, k, options):
    """The metric of one list of grades in rank order (relevant: grade > 0)."""
    rel = [g > 0 for g in grades]
    n, n_rel = len(grades), sum(rel)
    top = rel[:k] if k is not None else rel
    hits = sum(top)
    if metric == "p":
        den = {"k": k, "list": min(k, n), "capped": min(k, n_rel)}[options.get("precision_denominator", "k")]
        return hits / den if den else 0.0
    if metric == "r":
        den = min(n_rel, k) if options.get("recall_denominator") == "capped" else n_rel
        return hits / den if den else 0.0
    if metric == "rbp":  # persistence 0.8, the top k only
        return 0.2 * sum(0.8 ** i for i, is_rel in enumerate(top) if is_rel)
    if metric in ("err", "pfound"):  # grades out of the list's largest, (2^g - 1) / 2^g_max
        top = max(grades)
        total, reach = 0.0, 1.0
        for i, g in enumerate(grades[:k] if k else grades):
            stop = (2.0 ** g - 1) / 2.0 ** top
            total += reach * stop * (1.0 / (i + 1) if metric == "err" else 0.85 ** i)
            reach *= 1 - stop
        return total
    if metric == "map":
        total, seen = 0.0, 0
        for i, is_rel in enumerate(top):
            if is_rel:
                seen += 1
                total += seen / (i + 1)
        cut = math.inf if k is None else k
        den = {"relevant": n_rel, "capped": min(cut, n_rel), "list": min(n_rel, cut, n)}[
            options.get("ap_denominator", "relevant")]
        return total / den if den else 0.0
    discount, gain = options.get("discount", "log2"), options.get("gain", "linear")
    cut = n if k is None else min(k, n)
    dcg = sum(_gain(g, gain) * _discount(i + 1, discount) for i, g in enumerate(grades[:cut]))
    if metric == "dcg":
        return dcg
    if options.get("ideal_dcg") == "k":
        ideal = sum(_discount(i + 1, discount) for i in range(k))
    else:
        best = sorted((_gain(g, gain) for g in grades), reverse=True)
        ideal = sum(v * _discount(i + 1, discount) for i, v in enumerate(best[:k] if k else best))
    return dcg / ideal if ideal else 0.0


def oracle_query(metric, scores, grades, k, ties, options):
    if ties == "expected":
        return expected_over_orderings(lambda seq: oracle(metric, list(seq), k, options), list(scores), list(grades))
    # what the point policies order a tie block by: the gain (nDCG), the grade (the cascades), relevance
    values = [_gain(g, options.get("gain", "linear")) if metric in ("dcg", "ndcg") else
              float(g) if metric in ("err", "pfound") else float(g > 0) for g in grades]
    order = ordering(list(scores), values, ties)
    return oracle(metric, [grades[i] for i in order], k, options)


def _queries(seed, n_queries=12):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_queries):
        n = int(rng.integers(1, 8))
        scores = rng.integers(0, 4, n).astype(float)  # many ties
        grades = rng.integers(0, 4, n) * (rng.random(n) < 0.5)
        if not grades.any():
            grades[int(rng.integers(n))] = int(rng.integers(1, 4))
        out.append((scores, grades.astype(float)))
    return out


OPTION_CASES = [
    ("p", dict(precision_denominator="list")),
    ("p", dict(precision_denominator="capped")),
    ("r", dict(recall_denominator="capped")),
    ("map", dict(ap_denominator="list")),
    ("ndcg", dict(discount="log2_max2")),
    ("ndcg", dict(discount="reciprocal")),
    ("dcg", dict(discount="reciprocal")),
    ("ndcg", dict(discount="log2_max2", gain="binary")),
    ("dcg", dict(gain="binary")),
    ("ndcg", dict(ideal_dcg="k", gain="binary")),
    ("rbp", {}),
    ("pfound", {}),
    ("err", {}),
]


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "ordinal"])
@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("metric, options", OPTION_CASES)
def test_definition_options_equal_the_oracle(metric, options, k, ties):
    queries = _queries(7 + k)
    scores = np.concatenate([s for s, _ in queries])
    grades = np.concatenate([g for _, g in queries])
    qid = np.repeat(np.arange(len(queries)), [len(s) for s, _ in queries])
    report = evaluate(grades, scores, qid=qid, metrics=[f"{metric}@{k}"], ties=ties, **options)
    expected = [oracle_query(metric, s, g, k, ties, options) for s, g in queries]
    np.testing.assert_allclose(report.per_query[f"{metric}@{k}"], expected, rtol=1e-12, atol=1e-15)
    # the relevance-matrix layout (padded with excluded cells) gives the same values
    width = max(len(s) for s, _ in queries)
    y_true = np.zeros((len(queries), width))
    y_score = np.zeros((len(queries), width))
    exclude = np.ones((len(queries), width), dtype=bool)
    for i, (s, g) in enumerate(queries):
        y_true[i, :len(s)], y_score[i, :len(s)], exclude[i, :len(s)] = g, s, False
    if ties != "ordinal":  # (the matrix's input order is the rows' order: the same here, but padded)
        matrix = evaluate(y_true, y_score, exclude=exclude, metrics=[f"{metric}@{k}"], ties=ties, **options)
        np.testing.assert_allclose(matrix.per_query[f"{metric}@{k}"], expected, rtol=1e-12, atol=1e-15)


def test_defaults_are_unchanged_and_reported_only_when_set():
    y_true, y_score = [1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1]
    plain = evaluate(y_true, y_score, metrics=["p@10", "ndcg@2"])
    assert plain.summary["p@10"] == 0.2
    assert "precision_denominator" not in plain.params
    listed = evaluate(y_true, y_score, metrics=["p@10"], precision_denominator="list")
    assert listed.summary["p@10"] == 0.5  # 2 relevant among the 4 listed
    assert listed.params["precision_denominator"] == "list"


def test_metric_functions_take_their_options():
    y_true, y_score = [1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1]
    assert precision_at_k(y_true, y_score, k=10, precision_denominator="capped") == 1.0
    assert recall_at_k(y_true, y_score, k=1, recall_denominator="capped") == 1.0
    # ranks 1 and 3 relevant: 1 + 1/log2(3) under log2_max2; 1 + 1/3 under reciprocal
    assert dcg_score(y_true, y_score, discount="reciprocal") == pytest.approx(1 + 1 / 3, rel=1e-15)
    assert ndcg_score(y_true, y_score, discount="log2_max2") == pytest.approx((1 + 1 / math.log2(3)) / 2, rel=1e-15)


@pytest.mark.parametrize("options, match", [
    (dict(precision_denominator="min"), "precision_denominator"),
    (dict(recall_denominator="k"), "recall_denominator"),
    (dict(discount="ln"), "discount"),
    (dict(ideal_dcg="all"), "ideal_dcg"),
    (dict(ap_denominator="shown"), "ap_denominator"),
    (dict(gain="binomial"), "gain"),
])
def test_unknown_option_values_name_the_option(options, match):
    with pytest.raises(ValueError, match=match):
        evaluate([1, 0], [0.5, 0.2], metrics=["p@1"], **options)


def test_ideal_dcg_k_needs_a_cut_off_and_binary_gains():
    with pytest.raises(ValueError, match="needs a cut-off"):
        evaluate([1, 0], [0.5, 0.2], metrics=["ndcg"], ideal_dcg="k")
    with pytest.raises(ValueError, match="binary gains.*Got a gain of 2"):
        evaluate([2, 0], [0.5, 0.2], metrics=["ndcg@3"], ideal_dcg="k")
    # RecTools: one relevant item at rank 1 of k = 3 ideal hits
    value = evaluate([1, 0], [0.5, 0.2], metrics=["ndcg@3"], ideal_dcg="k").summary["ndcg@3"]
    assert value == pytest.approx(1 / (1 + 1 / math.log2(3) + 0.5), rel=1e-15)


@pytest.mark.parametrize("entry", ["batches", "blocks"])
def test_split_entry_points_take_the_definition_options(entry):
    import sklearn_rank

    rng = np.random.default_rng(3)
    y_true = (rng.random((20, 9)) < 0.3).astype(float)
    y_score = rng.integers(0, 3, (20, 9)).astype(float)
    options = dict(precision_denominator="capped", discount="log2_max2", recall_denominator="capped")
    metrics = ["p@3", "r@2", "ndcg@4"]
    whole = evaluate(y_true, y_score, metrics=metrics, **options)
    if entry == "blocks":
        split = sklearn_rank.evaluate_blocks(((y_true[i:i + 7], y_score[i:i + 7]) for i in range(0, 20, 7)),
                                             metrics=metrics, **options)
    else:
        pa = pytest.importorskip("pyarrow")
        q = np.repeat(np.arange(20), 9)
        table = pa.table({"qid": q, "score": y_score.ravel(), "label": y_true.ravel()})
        split = sklearn_rank.evaluate_batches(table.to_batches(max_chunksize=45), metrics=metrics, **options)
    for name in metrics:
        np.testing.assert_allclose(split.per_query[name], whole.per_query[name], rtol=1e-12)


@pytest.mark.parametrize("ties", ["expected", "pessimistic"])
def test_definition_options_in_another_array_namespace(monkeypatch, ties):
    """The relevance matrix in array-api-strict (the namespace path) gives the NumPy numbers."""
    import sklearn

    xp = pytest.importorskip("array_api_strict")
    pytest.importorskip("array_api_compat")
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    rng = np.random.default_rng(5)
    y_true = rng.integers(0, 3, (15, 8)) * (rng.random((15, 8)) < 0.4)
    y_true[:, 0] = np.maximum(y_true[:, 0], 1)
    y_score = rng.integers(0, 4, (15, 8)).astype(float)
    metrics = ["p@3", "r@2", "map@4", "ndcg@4", "dcg@3", "ndcg@20"]
    for options in (dict(precision_denominator="list", recall_denominator="capped", ap_denominator="list",
                         discount="log2_max2"),
                    dict(precision_denominator="capped", discount="reciprocal", gain="binary", ideal_dcg="k")):
        expected = evaluate(y_true.astype(float), y_score, metrics=metrics, ties=ties, **options)
        try:
            with sklearn.config_context(array_api_dispatch=True):
                got = evaluate(xp.asarray(y_true.astype(float)), xp.asarray(y_score), metrics=metrics, ties=ties,
                               **options)
        except (ImportError, RuntimeError) as exc:  # pragma: no cover - depends on the environment
            pytest.skip(f"scikit-learn cannot turn array_api_dispatch on here: {exc}")
        for name in metrics:
            np.testing.assert_allclose(np.asarray(got.per_query[name]), expected.per_query[name], rtol=1e-12)


def test_pfound_and_err_with_labels_as_stopping_chances():
    # CatBoost's PFound on labels [0.5, 0.3]: 0.5 + (1 - 0.5) * 0.85 * 0.3
    assert evaluate([0.5, 0.3], [2, 1], metrics=["pfound"], stop_probability="label").summary["pfound"] == \
        pytest.approx(0.6275, rel=1e-15)
    assert evaluate([0.5, 0, 0.3], [3, 2, 1], metrics=["err"], stop_probability="label").summary["err"] == \
        pytest.approx(0.5 + 0.5 * 0.3 / 3, rel=1e-15)
    # a label of 1 stops the user: nothing after it counts (and no NaN from log(0))
    assert evaluate([1, 1, 1], [3, 2, 1], metrics=["pfound"], stop_probability="label").summary["pfound"] == 1.0
    with pytest.raises(ValueError, match=r"labels must lie in \[0, 1\]. Got labels from 1.0 to 2.0"):
        evaluate([2, 0, 1], [3, 2, 1], metrics=["pfound"], stop_probability="label")


def test_pfound_of_the_label_index_in_another_namespace(monkeypatch):
    """One true column per row (the label index) in array-api-strict: pFound and ERR equal NumPy's."""
    import sklearn

    xp = pytest.importorskip("array_api_strict")
    pytest.importorskip("array_api_compat")
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    rng = np.random.default_rng(8)
    y_score = rng.integers(0, 4, (30, 9)).astype(float)
    target = rng.integers(0, 9, 30)
    metrics = ["pfound", "pfound@2", "err@3"]
    for ties in ("expected", "optimistic", "pessimistic"):
        expected = evaluate(target, y_score, metrics=metrics, ties=ties)
        with sklearn.config_context(array_api_dispatch=True):
            got = evaluate(xp.asarray(target), xp.asarray(y_score), metrics=metrics, ties=ties)
        for name in metrics:
            np.testing.assert_allclose(np.asarray(got.per_query[name]), expected.per_query[name], rtol=1e-12)


def _micro_oracle(metric, queries, k, ties, options, weights):
    num = den = 0.0
    for (scores, grades), w in zip(queries, weights):
        n, n_rel = len(scores), int((grades > 0).sum())
        if metric == "p":
            d = {"k": k, "list": min(k, n), "capped": min(k, n_rel)}[options.get("precision_denominator", "k")]
        elif metric == "r":
            d = min(n_rel, k) if options.get("recall_denominator") == "capped" else n_rel
        elif metric == "f1":
            d = (k + n_rel) / 2
        else:  # rprec
            d = n_rel
        value = oracle_query("p" if metric == "f1" else metric, scores, grades, k, ties,
                             dict(options, precision_denominator="k")) if metric == "f1" else \
            oracle_query(metric, scores, grades, k, ties, options)
        count = value * k if metric == "f1" else value * d  # f1's count: the hits (p@k times k)
        num += w * count
        den += w * d
    return num / den


@pytest.mark.parametrize("ties", ["expected", "pessimistic"])
@pytest.mark.parametrize("metric, options", [
    ("p", {}), ("p", dict(precision_denominator="capped")), ("p", dict(precision_denominator="list")),
    ("r", {}), ("r", dict(recall_denominator="capped")), ("f1", {}),
])
def test_micro_average_is_the_sum_of_counts_over_the_sum_of_denominators(metric, options, ties):
    queries = _queries(21, n_queries=15)
    k = 3
    scores = np.concatenate([s for s, _ in queries])
    grades = np.concatenate([g for _, g in queries])
    qid = np.repeat(np.arange(len(queries)), [len(s) for s, _ in queries])
    weights = np.random.default_rng(4).integers(1, 4, len(queries)).astype(float)
    name = f"{metric}@{k}"
    report = evaluate(grades, scores, qid=qid, metrics=[name], ties=ties, average="micro",
                      sample_weight=weights[qid], **options)
    assert report.summary[name] == pytest.approx(_micro_oracle(metric, queries, k, ties, options, weights),
                                                 rel=1e-12)
    macro = evaluate(grades, scores, qid=qid, metrics=[name], ties=ties, sample_weight=weights[qid], **options)
    np.testing.assert_array_equal(report.per_query[name], macro.per_query[name])  # per query: the same


def test_micro_average_is_the_same_on_every_path(monkeypatch):
    import sklearn
    import sklearn_rank

    rng = np.random.default_rng(9)
    y_true = (rng.random((24, 10)) < 0.3).astype(float)
    y_true[:, 0] = 1.0
    y_score = rng.integers(0, 4, (24, 10)).astype(float)
    options = dict(average="micro", precision_denominator="capped")
    metrics = ["p@3", "r@4", "rprec"]
    whole = evaluate(y_true, y_score, metrics=metrics, **options)
    grouped = evaluate(y_true.ravel(), y_score.ravel(), qid=np.repeat(np.arange(24), 10), metrics=metrics,
                       **options)
    blocks = sklearn_rank.evaluate_blocks(((y_true[i:i + 5], y_score[i:i + 5]) for i in range(0, 24, 5)),
                                          metrics=metrics, **options)
    threads = evaluate(y_true, y_score, metrics=metrics, n_jobs=2, **options)
    for report in (grouped, blocks, threads):
        for name in metrics:
            assert report.summary[name] == pytest.approx(whole.summary[name], rel=1e-12), name
    xp = pytest.importorskip("array_api_strict")
    pytest.importorskip("array_api_compat")
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    with sklearn.config_context(array_api_dispatch=True):
        namespace = evaluate(xp.asarray(y_true), xp.asarray(y_score), metrics=metrics, **options)
        target = np.argmax(y_score, axis=1)  # the label index: one true column per row
        label_index = evaluate(xp.asarray(target), xp.asarray(y_score), metrics=["p@3"], **options)
    for name in metrics:
        assert namespace.summary[name] == pytest.approx(whole.summary[name], rel=1e-12), name
    assert label_index.summary["p@3"] == pytest.approx(
        evaluate(target, y_score, metrics=["p@3"], **options).summary["p@3"], rel=1e-12)


def test_micro_average_refuses_a_metric_without_a_denominator():
    with pytest.raises(ValueError, match="average='micro' pools .* 'ndcg@3' is a mean of per-query values"):
        evaluate([1, 0], [0.5, 0.2], metrics=["p@1", "ndcg@3"], average="micro")


@pytest.mark.parametrize("all_relevant, expected", [("zero", 0.0), ("one", 1.0)])
def test_auc_of_an_all_relevant_query(all_relevant, expected):
    # query 1: one pair, ordered right; query 2: every candidate relevant (no pair)
    y_true, y_score, qid = [1, 0, 1, 1], [0.9, 0.1, 0.5, 0.4], [1, 1, 2, 2]
    report = evaluate(y_true, y_score, qid=qid, metrics=["auc"], all_relevant=all_relevant)
    np.testing.assert_array_equal(report.per_query["auc"], [1.0, expected])
    assert report.summary["auc"] == (1.0 + expected) / 2
    with pytest.warns(Warning, match="undefined for 1 queries"):
        skipped = evaluate(y_true, y_score, qid=qid, metrics=["auc"])
    assert skipped.summary["auc"] == 1.0
    # torchmetrics' RetrievalAUROC scores such a query 0 (and counts tied pairs half: the preset ranks auc
    # under ties="expected", tests/test_tie_definitions.py)
    assert evaluate(y_true, y_score, qid=qid, metrics=["auc"], convention="torchmetrics").summary["auc"] == 0.5
    matrix = evaluate(np.array([[1, 0], [1, 1]]), np.array([[0.9, 0.1], [0.5, 0.4]]), metrics=["auc"],
                      all_relevant=all_relevant)
    np.testing.assert_array_equal(matrix.per_query["auc"], [1.0, expected])


def test_scorers_and_the_evaluator_take_the_definition_options():
    from sklearn.base import clone
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import cross_val_score

    from sklearn_rank import RankingEvaluator, make_ranking_scorer
    from sklearn_rank.datasets import make_ranking
    from sklearn_rank.model_selection import QueryGroupKFold

    X, y, qid = make_ranking(n_queries=40, n_candidates=8, random_state=0)
    model = Ridge().fit(X, y)
    options = dict(precision_denominator="list", discount="log2_max2", average="micro")
    scorer = make_ranking_scorer("p@5", **options)
    assert "precision_denominator='list'" in repr(scorer)
    expected = evaluate(y, model.predict(X), qid=qid, metrics=["p@5"], **options).summary["p@5"]
    assert scorer(model, X, y, qid=qid) == pytest.approx(expected, rel=1e-15)
    assert make_ranking_scorer("ndcg@5", discount="reciprocal")(model, X, y, qid=qid) == pytest.approx(
        evaluate(y, model.predict(X), qid=qid, metrics=["ndcg@5"], discount="reciprocal").summary["ndcg@5"])
    # the evaluator: parameters of its own, kept by clone, used by its score
    frame = np.c_[qid, X]
    evaluator = RankingEvaluator(Ridge(), metric="p@5", qid=0, **options)
    assert clone(evaluator).get_params()["precision_denominator"] == "list"
    scores = cross_val_score(evaluator, frame, y, cv=QueryGroupKFold(n_splits=3), groups=qid)
    fold = list(QueryGroupKFold(n_splits=3).split(frame, y, groups=qid))[0]
    fitted = clone(evaluator).fit(frame[fold[0]], y[fold[0]])
    test = fold[1]
    assert scores[0] == pytest.approx(evaluate(y[test], fitted.predict(frame[test]), qid=qid[test], metrics=["p@5"],
                                               **options).summary["p@5"], rel=1e-12)
    # refused when made, not at the first fold
    from sklearn_rank import make_multimetric_scorer

    with pytest.raises(ValueError, match="implicit has no 'mrr'"):
        make_ranking_scorer("mrr", convention="implicit")
    with pytest.raises(ValueError, match="implicit has no 'mrr'"):
        make_multimetric_scorer(["map", "mrr"], convention="implicit")
    with pytest.raises(ValueError, match="discount"):
        make_ranking_scorer("ndcg@5", discount="ln")
