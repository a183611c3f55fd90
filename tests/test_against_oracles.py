"""The metric engine against the slow reference implementations of ``oracles.py``.

Many small random cases (fixed seeds) with small integer scores, so that ties
are frequent, for every metric, every tie policy and the three array layouts
(grouped rows, relevance matrix, label index), with exclusion masks,
``relevance_level``, exponential gains, ``judged`` (retrieval setting),
``sample_weight``, ``no_relevant`` and ``targets``. Agreement to 1e-12.
"""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import sklearn_rank as skr

try:
    from . import oracles
except ImportError:
    import oracles

TIES = oracles.TIE_POLICIES
RTOL = 1e-12
ATOL = 1e-12
# Per-metric tolerances, where one needs more than RTOL. zgmr no longer does: the engine
# carries each factor of E[G] and E[G^2] as its excess over one (issue 11, item 11).
RTOL_BY_METRIC = {}

# name as written -> (oracle list metric, k); every spelling below is a valid name or synonym
LIST_METRICS = {
    "mrr": ("rr", None),
    "mrr@2": ("rr", 2),
    "MAP": ("ap", None),
    "map@3": ("ap", 3),
    "ndcg": ("ndcg", None),
    "NDCG@3": ("ndcg", 3),
    "dcg": ("dcg", None),
    "dcg@2": ("dcg", 2),
    "p@1": ("p", 1),
    "precision@3": ("p", 3),
    "p@10": ("p", 10),
    "r@2": ("r", 2),
    "recall@4": ("r", 4),
    "f1@3": ("f1", 3),
    "hits@1": ("hits", 1),
    "success@3": ("hits", 3),
    "rprec": ("rprec", None),
    "auc": ("auc", None),
    "num_rel_ret": ("relret", None),
    "rel_ret@3": ("relret", 3),
}
# per-query values defined without a relevant item (needs_relevant=False in the registry)
DEFINED_WITHOUT_RELEVANT = ("dcg", "relret")

# name as written -> (oracle rank statistic, k)
RANK_METRICS = {
    "mr": ("mr", None),
    "mrr": ("mrr", None),
    "mrr@2": ("mrr", 2),
    "hits@1": ("hits", 1),
    "hits@3": ("hits", 3),
    "gmr": ("gmr", None),
    "igmr": ("igmr", None),
    "hmr": ("hmr", None),
    "iamr": ("iamr", None),
    "median_rank": ("median_rank", None),
    "inverse_median_rank": ("inverse_median_rank", None),
    "rank_std": ("rank_std", None),
    "rank_var": ("rank_var", None),
    "rank_mad": ("rank_mad", None),
    "count": ("count", None),
    "amr": ("amr", None),
    "amri": ("amri", None),
    "agmri": ("agmri", None),
    "amrr": ("amrr", None),
    "ahits@2": ("ahits", 2),
    "zmr": ("zmr", None),
    "zmrr": ("zmrr", None),
    "zgmr": ("zgmr", None),
    "zhits@2": ("zhits", 2),
}

pytestmark = pytest.mark.filterwarnings("ignore::sklearn_rank.UndefinedMetricWarning")


# ---------------------------------------------------------------------------
# random cases in one canonical form
# ---------------------------------------------------------------------------


class Query:
    """One query: candidates in input order, exclusion flags, unretrieved judged items."""

    def __init__(self, scores, rels, excluded, missing):
        self.scores = scores
        self.rels = rels
        self.excluded = excluded
        self.missing = missing

    def kept(self):
        keep = [i for i, flag in enumerate(self.excluded) if not flag]
        return [self.scores[i] for i in keep], [self.rels[i] for i in keep]

    def __repr__(self):
        return f"Query(scores={self.scores}, rels={self.rels}, excluded={self.excluded}, missing={self.missing})"


def random_queries(
    rng,
    *,
    n_queries,
    n_items=None,
    max_items=7,
    n_levels=3,
    score_values=3,
    exclude_prob=0.0,
    missing=False,
    one_relevant=False,
    empty_prob=0.15,
    min_items=1,
):
    """Small queries with small integer scores (frequent ties)."""
    queries = []
    for _ in range(n_queries):
        n = n_items if n_items is not None else int(rng.integers(min_items, max_items + 1))
        values = int(rng.integers(1, score_values + 1))  # 1: a constant scorer
        scores = rng.integers(0, values, size=n).astype(float).tolist()
        if one_relevant:
            rels = [0] * n
            rels[int(rng.integers(n))] = 1
        elif rng.random() < empty_prob:
            rels = [0] * n
        else:
            rels = rng.integers(0, n_levels, size=n).tolist()
        excluded = [bool(rel == 0 and rng.random() < exclude_prob) for rel in rels]
        if all(excluded):
            excluded[0] = False
        extra = rng.integers(0, n_levels, size=int(rng.integers(0, 3))).tolist() if missing else []
        queries.append(Query(scores, rels, excluded, extra))
    return queries


# ---------------------------------------------------------------------------
# the oracle side: per-query values and summaries
# ---------------------------------------------------------------------------


def _query_has_relevant(query, relevance_level, judged):
    _, rels = query.kept()
    all_rels = rels + query.missing if judged else rels
    return any(oracles.binary_labels(all_rels, relevance_level))


def _list_value(query, metric, k, *, ties, relevance_level, gain, judged, ap_denominator="relevant"):
    scores, rels = query.kept()
    judged_rels = rels + query.missing if judged else None
    return oracles.query_metric(
        metric, scores, rels, ties=ties, k=k, relevance_level=relevance_level, gain=gain,
        judged_rels=judged_rels, ap_denominator=ap_denominator,
    )  # fmt: skip


def _targets(query, targets, relevance_level):
    scores, rels = query.kept()
    labels = oracles.binary_labels(rels, relevance_level)
    if targets == "first":
        target = oracles.first_target_rank(scores, labels)
        return [] if target is None else [target]
    return oracles.all_target_ranks(scores, labels)


def _nan_weighted_mean(values, weights):
    pairs = [(v, w) for v, w in zip(values, weights) if not math.isnan(v)]
    if not pairs:
        return float("nan")
    return math.fsum(v * w for v, w in pairs) / math.fsum(w for _, w in pairs)


def oracle_evaluate(
    queries,
    metrics,
    *,
    ties="expected",
    relevance_level=None,
    gain="linear",
    no_relevant="skip",
    weights=None,
    judged=False,
    targets="first",
    ap_denominator="relevant",
):
    """Per-query values (canonical query order) and summaries, from the oracles."""
    weights = [1.0] * len(queries) if weights is None else list(weights)
    has = [_query_has_relevant(q, relevance_level, judged) for q in queries]
    needs_relevant = any(
        not (name in LIST_METRICS and LIST_METRICS[name][0] in DEFINED_WITHOUT_RELEVANT) for name in metrics
    )
    evaluated = [i for i in range(len(queries)) if has[i] or not (needs_relevant and no_relevant == "skip")]
    per_query = {"query": evaluated}
    summary = {}
    for name in metrics:
        # MRR and hits@k are rank statistics with targets="all", list metrics otherwise
        is_list = name in LIST_METRICS and not (
            targets == "all" and LIST_METRICS[name][0] in ("rr", "hits")
        )
        if is_list:
            metric, k = LIST_METRICS[name]
            values = []
            for i in evaluated:
                if not has[i] and metric not in DEFINED_WITHOUT_RELEVANT and no_relevant in ("zero", "one"):
                    values.append(0.0 if no_relevant == "zero" else 1.0)
                    continue
                values.append(
                    _list_value(queries[i], metric, k, ties=ties, relevance_level=relevance_level,
                                gain=gain, judged=judged, ap_denominator=ap_denominator)  # fmt: skip
                )
            per_query[name] = values
            summary[name] = _nan_weighted_mean(values, [weights[i] for i in evaluated])
        else:
            if name in RANK_METRICS:
                statistic, k = RANK_METRICS[name]
            else:
                metric, k = LIST_METRICS[name]
                statistic = {"rr": "mrr", "hits": "hits"}[metric]
            pooled, pooled_weights, values = [], [], []
            for i in evaluated:
                mine = _targets(queries[i], targets, relevance_level)
                pooled += mine
                pooled_weights += [weights[i]] * len(mine)
                if mine:
                    # one weight per query: a query's own statistic does not depend on it
                    values.append(oracles.target_statistic(statistic, mine, ties, k=k))
                else:
                    # no target: zero targets counted, every other statistic undefined
                    values.append(0.0 if statistic == "count" else float("nan"))
            per_query[name] = values
            summary[name] = (
                oracles.target_statistic(statistic, pooled, ties, k=k, weights=pooled_weights)
                if pooled
                else float("nan")
            )
    return per_query, summary


# ---------------------------------------------------------------------------
# the engine side: the three layouts
# ---------------------------------------------------------------------------


def grouped_layout(queries, rng, *, weights=None, judged=False, exclude=False):
    """Rows of all queries interleaved at random (order kept within a query)."""
    qid_values = np.sort(rng.choice(10_000, size=len(queries), replace=False))
    qid_values = rng.permutation(qid_values)  # canonical order != sorted qid order
    sequence = rng.permutation(np.repeat(np.arange(len(queries)), [len(q.scores) for q in queries]))
    cursor = [0] * len(queries)
    y_true, y_score, qid, flags, row_weight = [], [], [], [], []
    for qi in sequence:
        query = queries[qi]
        i = cursor[qi]
        cursor[qi] += 1
        y_true.append(query.rels[i])
        y_score.append(query.scores[i])
        qid.append(qid_values[qi])
        flags.append(query.excluded[i])
        row_weight.append(1.0 if weights is None else weights[qi])
    kwargs = {"qid": np.asarray(qid)}
    if exclude:
        kwargs["exclude"] = np.asarray(flags)
    if weights is not None:
        kwargs["sample_weight"] = np.asarray(row_weight)
    if judged:
        judged_qid, judged_rel = [], []
        for qi, query in enumerate(queries):
            for rel in query.rels + query.missing:
                judged_qid.append(qid_values[qi])
                judged_rel.append(rel)
        order = rng.permutation(len(judged_qid))
        kwargs["judged"] = (np.asarray(judged_qid)[order], np.asarray(judged_rel)[order])
    return np.asarray(y_true), np.asarray(y_score), kwargs, qid_values


def matrix_layout(queries, *, weights=None, exclude=False):
    y_true = np.array([q.rels for q in queries])
    y_score = np.array([q.scores for q in queries])
    kwargs = {}
    if exclude:
        kwargs["exclude"] = np.array([q.excluded for q in queries])
    if weights is not None:
        kwargs["sample_weight"] = np.asarray(weights)
    return y_true, y_score, kwargs, np.arange(len(queries))


def label_index_layout(queries, rng, *, weights=None, exclude=None, labels=False):
    """One relevant item per query: its column index (or class label)."""
    y_true = np.array([q.rels.index(1) for q in queries])
    y_score = np.array([q.scores for q in queries])
    kwargs = {}
    if exclude is not None:
        mask = np.array([q.excluded for q in queries])
        kwargs["exclude"] = sp.csr_matrix(mask) if exclude == "sparse" else mask
    if weights is not None:
        kwargs["sample_weight"] = np.asarray(weights)
    if labels:
        class_labels = rng.permutation(np.arange(100, 100 + 3 * y_score.shape[1], 3))
        kwargs["labels"] = class_labels
        y_true = class_labels[y_true]
    return y_true, y_score, kwargs, np.arange(len(queries))


def assert_matches(report, per_query, summary, qid_values, context):
    engine_qid = np.asarray(report.per_query["qid"])
    oracle_qid = np.asarray(qid_values)[per_query["query"]]
    order = np.argsort(oracle_qid, kind="stable")
    np.testing.assert_array_equal(engine_qid, oracle_qid[order], err_msg=f"qid {context}")
    assert report.n_queries == len(per_query["query"])
    for name, expected in summary.items():
        got = report.summary[name]
        rtol = RTOL_BY_METRIC.get(name, RTOL)
        assert got == pytest.approx(expected, rel=rtol, abs=ATOL), (
            f"summary {name!r}: expected {expected!r}, got {got!r}; {context}"
        )
        np.testing.assert_allclose(
            np.asarray(report.per_query[name], dtype=float),
            np.asarray(per_query[name], dtype=float)[order],
            rtol=rtol, atol=ATOL, err_msg=f"per-query {name!r}; {context}",
        )  # fmt: skip


def check_evaluate(y_true, y_score, engine_kwargs, queries, metrics, oracle_kwargs, qid_values):
    """evaluate() against oracle_evaluate(); a metric undefined on every query is NaN with a warning."""
    per_query, summary = oracle_evaluate(queries, metrics, **oracle_kwargs)
    undefined = [name for name in metrics if math.isnan(summary[name])]
    if undefined:
        with pytest.warns(skr.UndefinedMetricWarning, match="undefined"):
            report = skr.evaluate(y_true, y_score, metrics=metrics, **engine_kwargs)
        for name in undefined:
            assert math.isnan(report.summary[name]), (name, report.summary)
        metrics = [name for name in metrics if name not in undefined]
        if not metrics:
            return None
        # without the undefined metrics, other queries may be skipped (only dcg left)
        per_query, summary = oracle_evaluate(queries, metrics, **oracle_kwargs)
        if any(math.isnan(summary[name]) for name in metrics):
            return None
    report = skr.evaluate(y_true, y_score, metrics=metrics, **engine_kwargs)
    context = f"{queries}, {oracle_kwargs}"
    assert_matches(report, per_query, summary, qid_values, context)
    return report


SEEDS = range(6)

# scenario -> (options for random_queries, options for the engine/oracle)
SCENARIOS = {
    "plain": ({}, {}),
    "exclude": ({"exclude_prob": 0.35}, {"exclude": True}),
    "relevance_level": ({"n_levels": 4}, {"relevance_level": 2}),
    "exponential": ({"n_levels": 4}, {"gain": "exponential"}),
    "weights": ({}, {"weights": True}),
    "zero": ({"empty_prob": 0.4}, {"no_relevant": "zero"}),
    "one": ({"empty_prob": 0.4}, {"no_relevant": "one"}),
    "capped": ({}, {"ap_denominator": "capped"}),
}


def _scenario_case(seed, scenario, n_items=None):
    rng = np.random.default_rng([seed, sorted(SCENARIOS).index(scenario)])
    query_options, options = SCENARIOS[scenario]
    queries = random_queries(rng, n_queries=int(rng.integers(2, 7)), n_items=n_items, **query_options)
    weights = rng.uniform(0.2, 3.0, size=len(queries)).tolist() if options.get("weights") else None
    return rng, queries, weights, options


def _oracle_options(options, weights):
    return {
        "relevance_level": options.get("relevance_level"),
        "gain": options.get("gain", "linear"),
        "no_relevant": options.get("no_relevant", "skip"),
        "ap_denominator": options.get("ap_denominator", "relevant"),
        "weights": weights,
    }


def _engine_options(options):
    out = {}
    for key in ("relevance_level", "gain", "no_relevant", "ap_denominator"):
        if key in options:
            out[key] = options[key]
    return out


# ---------------------------------------------------------------------------
# list metrics
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("seed", SEEDS)
def test_list_metrics_grouped(seed, scenario, ties):
    rng, queries, weights, options = _scenario_case(seed, scenario)
    y_true, y_score, kwargs, qid_values = grouped_layout(
        queries, rng, weights=weights, exclude=options.get("exclude", False)
    )
    check_evaluate(
        y_true, y_score, dict(ties=ties, **kwargs, **_engine_options(options)), queries,
        list(LIST_METRICS), dict(ties=ties, **_oracle_options(options, weights)), qid_values,
    )  # fmt: skip


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("seed", SEEDS)
def test_list_metrics_matrix(seed, scenario, ties):
    rng, queries, weights, options = _scenario_case(seed, scenario, n_items=6)
    y_true, y_score, kwargs, qid_values = matrix_layout(
        queries, weights=weights, exclude=options.get("exclude", False)
    )
    check_evaluate(
        y_true, y_score, dict(ties=ties, **kwargs, **_engine_options(options)), queries,
        list(LIST_METRICS), dict(ties=ties, **_oracle_options(options, weights)), qid_values,
    )  # fmt: skip


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_list_metrics_retrieval_setting(seed, ties):
    rng = np.random.default_rng([seed, 99])
    queries = random_queries(rng, n_queries=int(rng.integers(2, 7)), missing=True)
    y_true, y_score, kwargs, qid_values = grouped_layout(queries, rng, judged=True)
    check_evaluate(
        y_true, y_score, dict(ties=ties, **kwargs), queries, list(LIST_METRICS),
        dict(ties=ties, judged=True), qid_values,
    )  # fmt: skip


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("variant", ["plain", "dense_exclude", "sparse_exclude", "labels", "weights"])
@pytest.mark.parametrize("seed", SEEDS)
def test_list_metrics_label_index(seed, variant, ties):
    rng = np.random.default_rng([seed, 7])
    queries = random_queries(
        rng, n_queries=int(rng.integers(2, 7)), n_items=6, one_relevant=True,
        exclude_prob=0.35 if "exclude" in variant else 0.0,
    )  # fmt: skip
    weights = rng.uniform(0.2, 3.0, size=len(queries)).tolist() if variant == "weights" else None
    exclude = {"dense_exclude": "dense", "sparse_exclude": "sparse"}.get(variant)
    y_true, y_score, kwargs, qid_values = label_index_layout(
        queries, rng, weights=weights, exclude=exclude, labels=variant == "labels"
    )
    check_evaluate(
        y_true, y_score, dict(ties=ties, **kwargs), queries, list(LIST_METRICS),
        dict(ties=ties, weights=weights), qid_values,
    )  # fmt: skip


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", range(4))
def test_list_metrics_graded_with_relevance_level_and_exponential_gain(seed, ties):
    rng = np.random.default_rng([seed, 11])
    queries = random_queries(rng, n_queries=5, n_levels=5, exclude_prob=0.2)
    y_true, y_score, kwargs, qid_values = grouped_layout(queries, rng, exclude=True)
    check_evaluate(
        y_true, y_score, dict(ties=ties, relevance_level=3, gain="exponential", **kwargs), queries,
        list(LIST_METRICS), dict(ties=ties, relevance_level=3, gain="exponential"), qid_values,
    )  # fmt: skip


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", range(4))
def test_dcg_alone_keeps_queries_without_relevant_items(seed, ties):
    # DCG is defined (0) without relevant items: with only dcg requested nothing is skipped
    rng = np.random.default_rng([seed, 13])
    queries = random_queries(rng, n_queries=5, empty_prob=0.5)
    y_true, y_score, kwargs, qid_values = grouped_layout(queries, rng)
    report = check_evaluate(
        y_true, y_score, dict(ties=ties, **kwargs), queries, ["dcg", "dcg@2"], dict(ties=ties), qid_values
    )
    assert report.n_skipped == 0


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", range(8))
def test_public_functions(seed, ties):
    rng = np.random.default_rng([seed, 17])
    queries = random_queries(rng, n_queries=5, exclude_prob=0.2, missing=True, n_levels=4)
    weights = rng.uniform(0.5, 2.0, size=len(queries)).tolist()
    y_true, y_score, kwargs, _ = grouped_layout(queries, rng, weights=weights, exclude=True, judged=True)
    judged_kwargs = dict(kwargs)
    plain_kwargs = {key: value for key, value in kwargs.items() if key != "judged"}

    def oracle(name, **options):
        return oracle_evaluate(queries, [name], ties=ties, weights=weights, **options)[1][name]

    checks = [
        (skr.mean_reciprocal_rank(y_true, y_score, ties=ties, **judged_kwargs),
         oracle("mrr", judged=True)),
        (skr.mean_average_precision(y_true, y_score, ties=ties, **judged_kwargs),
         oracle("MAP", judged=True)),
        (skr.mean_average_precision(y_true, y_score, k=3, ties=ties, relevance_level=2, **judged_kwargs),
         oracle("map@3", judged=True, relevance_level=2)),
        (skr.ndcg_score(y_true, y_score, ties=ties, **judged_kwargs), oracle("ndcg", judged=True)),
        (skr.ndcg_score(y_true, y_score, k=3, gain="exponential", ties=ties, **plain_kwargs),
         oracle("NDCG@3", gain="exponential")),
        (skr.dcg_score(y_true, y_score, k=2, ties=ties, **plain_kwargs), oracle("dcg@2")),
        (skr.hits_at_k(y_true, y_score, k=3, ties=ties, **plain_kwargs), oracle("success@3")),
        (skr.precision_at_k(y_true, y_score, k=10, ties=ties, **judged_kwargs),
         oracle("p@10", judged=True)),
        (skr.recall_at_k(y_true, y_score, k=4, ties=ties, **judged_kwargs),
         oracle("recall@4", judged=True)),
        (skr.r_precision(y_true, y_score, ties=ties, **judged_kwargs), oracle("rprec", judged=True)),
        (skr.mean_rank(y_true, y_score, ties=ties, **plain_kwargs), oracle("mr")),
        (skr.mean_rank(y_true, y_score, ties=ties, targets="all", **plain_kwargs),
         oracle("mr", targets="all")),
        (skr.mean_reciprocal_rank(y_true, y_score, ties=ties, targets="all", **plain_kwargs),
         oracle("mrr", targets="all")),
    ]  # fmt: skip
    for index, (got, expected) in enumerate(checks):
        assert got == pytest.approx(expected, rel=RTOL, abs=ATOL), (index, queries)


# ---------------------------------------------------------------------------
# rank statistics through evaluate
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("targets", ["first", "all"])
@pytest.mark.parametrize("layout", ["grouped", "matrix", "label_index"])
@pytest.mark.parametrize("seed", range(5))
def test_rank_statistics(seed, layout, targets, ties):
    rng = np.random.default_rng([seed, 23, ["grouped", "matrix", "label_index"].index(layout)])
    one_relevant = layout == "label_index"
    queries = random_queries(
        rng, n_queries=int(rng.integers(2, 7)), n_items=None if layout == "grouped" else 6,
        min_items=2, one_relevant=one_relevant, exclude_prob=0.25, empty_prob=0.2,
    )  # fmt: skip
    use_weights = seed % 2 == 1
    weights = rng.uniform(0.2, 3.0, size=len(queries)).tolist() if use_weights else None
    if layout == "grouped":
        y_true, y_score, kwargs, qid_values = grouped_layout(queries, rng, weights=weights, exclude=True)
    elif layout == "matrix":
        y_true, y_score, kwargs, qid_values = matrix_layout(queries, weights=weights, exclude=True)
    else:
        y_true, y_score, kwargs, qid_values = label_index_layout(
            queries, rng, weights=weights, exclude="sparse"
        )
    check_evaluate(
        y_true, y_score, dict(ties=ties, targets=targets, **kwargs), queries, list(RANK_METRICS),
        dict(ties=ties, weights=weights, targets=targets), qid_values,
    )  # fmt: skip


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", range(4))
def test_rank_statistics_no_relevant_zero_and_judged(seed, ties):
    # queries without a retrieved relevant item have no target: NaN per query,
    # absent from the pooled statistics (no_relevant="zero" keeps them evaluated)
    rng = np.random.default_rng([seed, 47])
    queries = random_queries(rng, n_queries=6, min_items=2, empty_prob=0.4, missing=True)
    queries[0] = Query([1.0, 0.0, 1.0], [1, 0, 0], [False] * 3, [])
    y_true, y_score, kwargs, qid_values = grouped_layout(queries, rng, judged=seed % 2 == 1)
    metrics = ["mr", "gmr", "amri", "zmrr", "median_rank", "count", "MAP", "mrr"]
    check_evaluate(
        y_true, y_score, dict(ties=ties, no_relevant="zero", **kwargs), queries, metrics,
        dict(ties=ties, no_relevant="zero", judged="judged" in kwargs), qid_values,
    )  # fmt: skip


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("targets", ["first", "all"])
def test_zero_weight_queries(ties, targets):
    # A query's own values do not depend on its weight; zero-weight queries only
    # drop out of the summary.
    rng = np.random.default_rng(53)
    queries = random_queries(rng, n_queries=6, min_items=3, empty_prob=0.0)
    for query in queries:
        query.rels[0] = 1
    weights = [0.0, 1.0, 2.0, 0.0, 0.5, 1.0]
    y_true, y_score, kwargs, qid_values = grouped_layout(queries, rng, weights=weights)
    metrics = ["mrr", "MAP", "NDCG@3", "mr", "gmr", "amri", "median_rank", "rank_std", "zhits@2"]
    check_evaluate(
        y_true, y_score, dict(ties=ties, targets=targets, **kwargs), queries, metrics,
        dict(ties=ties, targets=targets, weights=weights), qid_values,
    )  # fmt: skip


# ---------------------------------------------------------------------------
# compute_ranks and evaluate_ranks
# ---------------------------------------------------------------------------


def _target_rows(target_ranks):
    return sorted(
        (t.optimistic, t.pessimistic, t.realistic, t.ordinal, t.expected, t.num_candidates,
         t.tied_relevant, t.num_relevant)
        for t in target_ranks
    )  # fmt: skip


@pytest.mark.parametrize("targets", ["first", "all"])
@pytest.mark.parametrize("layout", ["grouped", "matrix", "label_index"])
@pytest.mark.parametrize("seed", range(8))
def test_compute_ranks(seed, layout, targets):
    rng = np.random.default_rng([seed, 29, ["grouped", "matrix", "label_index"].index(layout)])
    queries = random_queries(
        rng, n_queries=int(rng.integers(1, 7)), n_items=None if layout == "grouped" else 6,
        one_relevant=layout == "label_index", exclude_prob=0.3, n_levels=4,
    )  # fmt: skip
    relevance_level = 2 if (layout == "matrix" and seed % 2) else None
    if layout == "grouped":
        y_true, y_score, kwargs, qid_values = grouped_layout(queries, rng, exclude=True)
    elif layout == "matrix":
        y_true, y_score, kwargs, qid_values = matrix_layout(queries, exclude=True)
    else:
        y_true, y_score, kwargs, qid_values = label_index_layout(queries, rng, exclude="dense")
    ranks = skr.compute_ranks(
        y_true, y_score, targets=targets, relevance_level=relevance_level, **kwargs
    )
    np.testing.assert_array_equal(ranks.qid, np.sort(qid_values))
    fields = ("optimistic", "pessimistic", "realistic", "ordinal", "expected", "num_candidates",
              "tied_targets", "num_relevant")  # fmt: skip
    assert all(len(getattr(ranks, f)) == len(ranks) for f in fields + ("query",))
    sorted_qid = np.sort(qid_values)
    for qi, query in enumerate(queries):
        code = int(np.searchsorted(sorted_qid, qid_values[qi]))
        mine = np.flatnonzero(ranks.query == code)
        got = sorted(tuple(float(getattr(ranks, f)[j]) for f in fields) for j in mine)
        expected = _target_rows(_targets(query, targets, relevance_level))
        if layout == "label_index":
            true_column = query.rels.index(1)
            direct = oracles.label_index_rank(query.scores, true_column, query.excluded)
            assert _target_rows([direct]) == expected
        assert len(got) == len(expected), (query, got, expected)
        flat_got = [value for row in got for value in row]
        flat_expected = [float(value) for row in expected for value in row]
        assert flat_got == pytest.approx(flat_expected, rel=RTOL, abs=ATOL), (query, got, expected)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("targets", ["first", "all"])
@pytest.mark.parametrize("seed", range(6))
def test_evaluate_ranks_from_compute_ranks(seed, targets, ties):
    rng = np.random.default_rng([seed, 31])
    queries = random_queries(rng, n_queries=int(rng.integers(2, 8)), min_items=2, empty_prob=0.0)
    y_true, y_score, kwargs, _ = grouped_layout(queries, rng)
    ranks = skr.compute_ranks(y_true, y_score, targets=targets, **kwargs)
    target_ranks = [t for q in queries for t in _targets(q, targets, None)]
    weights = rng.uniform(0.2, 3.0, size=len(ranks)) if seed % 2 else None
    values = {}
    for name in RANK_METRICS:
        try:
            values.update(skr.evaluate_ranks(ranks, metrics=[name], ties=ties, sample_weight=weights))
        except ValueError as exc:
            assert "undefined" in str(exc)
            values[name] = float("nan")
    # the engine lists targets query by query (sorted qid); weights follow the engine's order
    if weights is not None:
        engine_rows = [
            (ranks.optimistic[j], ranks.pessimistic[j], ranks.ordinal[j], ranks.num_candidates[j],
             ranks.tied_targets[j], ranks.num_relevant[j])
            for j in range(len(ranks))
        ]  # fmt: skip
        remaining = list(range(len(target_ranks)))
        ordered = []
        for row in engine_rows:
            match = next(
                i for i in remaining
                if (target_ranks[i].optimistic, target_ranks[i].pessimistic, target_ranks[i].ordinal,
                    target_ranks[i].num_candidates, target_ranks[i].tied_relevant,
                    target_ranks[i].num_relevant) == row
            )  # fmt: skip
            remaining.remove(match)
            ordered.append(target_ranks[match])
        target_ranks = ordered
    for name, (statistic, k) in RANK_METRICS.items():
        expected = oracles.target_statistic(
            statistic, target_ranks, ties, k=k, weights=None if weights is None else weights.tolist()
        )
        rtol = RTOL_BY_METRIC.get(name, RTOL)
        assert values[name] == pytest.approx(expected, rel=rtol, abs=ATOL, nan_ok=True), (name, queries)


@pytest.mark.parametrize("seed", range(12))
def test_evaluate_ranks_plain(seed):
    rng = np.random.default_rng([seed, 37])
    n = int(rng.integers(1, 12))
    num_candidates = rng.integers(2, 15, size=n)
    # integer ranks, and mid ranks (halves) as a realistic rank list would hold
    ranks = np.array([rng.integers(1, c + 1) for c in num_candidates], dtype=float)
    ranks = np.minimum(ranks + 0.5 * rng.integers(0, 2, size=n), num_candidates)
    weights = rng.uniform(0.2, 3.0, size=n) if seed % 3 == 1 else None
    num_relevant = (
        np.array([rng.integers(1, c) if c > 1 else 1 for c in num_candidates]) if seed % 3 == 2 else None
    )
    if num_relevant is not None:
        # a best-of-r rank cannot exceed N - r + 1
        ranks = np.minimum(ranks, num_candidates - num_relevant + 1)
    values = skr.evaluate_ranks(
        ranks, num_candidates=num_candidates, metrics=list(RANK_METRICS), sample_weight=weights,
        num_relevant=num_relevant,
    )  # fmt: skip
    for name, (statistic, k) in RANK_METRICS.items():
        expected = oracles.rank_statistic(
            statistic, ranks.tolist(), num_candidates.tolist(), k=k,
            weights=None if weights is None else weights.tolist(),
            num_relevant=None if num_relevant is None else num_relevant.tolist(),
        )  # fmt: skip
        rtol = RTOL_BY_METRIC.get(name, RTOL)
        assert values[name] == pytest.approx(expected, rel=rtol, abs=ATOL), (name, ranks, num_candidates)


@pytest.mark.parametrize("seed", range(6))
def test_evaluate_ranks_matches_evaluate(seed):
    # the same statistics from the ranks of compute_ranks and from evaluate()
    rng = np.random.default_rng([seed, 41])
    queries = random_queries(rng, n_queries=6, min_items=2, empty_prob=0.0, exclude_prob=0.2)
    y_true, y_score, kwargs, _ = grouped_layout(queries, rng, exclude=True)
    for targets in ("first", "all"):
        ranks = skr.compute_ranks(y_true, y_score, targets=targets, **kwargs)
        for ties in TIES:
            report = skr.evaluate(
                y_true, y_score, metrics=list(RANK_METRICS), ties=ties, targets=targets, **kwargs
            )
            values = skr.evaluate_ranks(ranks, metrics=list(RANK_METRICS), ties=ties)
            for name in RANK_METRICS:
                assert values[name] == pytest.approx(report.summary[name], rel=RTOL, abs=ATOL)


def test_constant_scorer_is_the_random_baseline():
    # "expected" ties: a constant scorer scores exactly the random baseline
    rng = np.random.default_rng(43)
    y_true = (rng.random((6, 7)) < 0.3).astype(int)
    y_true[:, 0] = 1
    y_score = np.zeros((6, 7))
    for targets in ("first", "all"):
        report = skr.evaluate(
            y_true, y_score, metrics=["amr", "amri", "agmri", "amrr", "ahits@2", "zmr", "zmrr",
                                      "zgmr", "zhits@2"],
            targets=targets,
        )  # fmt: skip
        for name, value in report.summary.items():
            expected = 1.0 if name == "amr" else 0.0
            assert value == pytest.approx(expected, abs=1e-12), (targets, name)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", range(4))
def test_positive_vs_negatives(seed, ties):
    # TGB/OGB input: one positive score against sampled negatives (label index, column 0)
    rng = np.random.default_rng([seed, 59])
    n_queries, n_negatives = int(rng.integers(1, 8)), int(rng.integers(1, 7))
    y_pred_pos = rng.integers(0, 3, size=n_queries).astype(float)
    y_pred_neg = rng.integers(0, 3, size=(n_queries, n_negatives)).astype(float)
    y_true, y_score = skr.positive_vs_negatives(y_pred_pos, y_pred_neg)
    targets = [
        oracles.label_index_rank([y_pred_pos[i]] + y_pred_neg[i].tolist(), 0) for i in range(n_queries)
    ]
    expected_mrr = oracles.target_statistic("mrr", targets, ties)
    expected_hits = oracles.target_statistic("hits", targets, ties, k=2)
    assert skr.mean_reciprocal_rank(y_true, y_score, ties=ties) == pytest.approx(
        expected_mrr, rel=RTOL, abs=ATOL
    )
    assert skr.hits_at_k(y_true, y_score, k=2, ties=ties) == pytest.approx(
        expected_hits, rel=RTOL, abs=ATOL
    )


# ---------------------------------------------------------------------------
# geometric mean rank at knowledge-graph scale (issue 11, items 11 and 19)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("start, size, exponent", [
    (0, 1, 0.5), (0, 8, 0.5), (0, 9, 0.5), (0, 10, 1e-4), (0, 37, 1.37), (0, 1500, 5e-4),
    (0, 1500, 2.0), (0, 1500, 1.0), (3, 400, 0.25), (10**6, 20, 0.5), (10**6, 300, 1e-3),
    (10**6, 9, 2.0), (5 * 10**7, 40, 0.9), (250, 1000, 1.7), (0, 2000, 0.0),
])  # fmt: skip
def test_power_means_match_decimal_sums(start, size, exponent):
    # log E[(s + X)**a], X uniform on 1..m: the term-by-term 40-digit sum of every power.
    # Deep tie blocks (large s, small m) cancelled in the old cumulative tables.
    from sklearn_rank._expectations import log_expect_power

    excess = oracles.power_mean_excess(start, size, exponent)
    expected = float((1 + excess).ln()) if excess else 0.0
    got = log_expect_power([start], [size], [1], [exponent])[0]
    assert got == pytest.approx(expected, rel=1e-14, abs=1e-300)


def _knowledge_graph_ranks(seed, n_targets=2000):
    # PyKEEN-like: N_i in [7270, 14541] (FB15k-237's entity count, halved to doubled), good ranks
    rng = np.random.default_rng([seed, 61])
    num_candidates = rng.integers(7270, 14542, n_targets)
    ranks = 1 + np.floor(num_candidates * rng.random(n_targets) ** 4)
    return rng, ranks, num_candidates


@pytest.mark.parametrize("weighted", [False, True])
def test_zgmr_at_knowledge_graph_scale(weighted):
    # 2000 targets, N ~ 10^4: the variance of the random GMR is a 1e-4 share of E[G]^2. The
    # oracle sums every power exactly (math.fsum) and combines in 40-digit decimals. Weighted:
    # 2000 distinct weights, hence 2000 distinct exponents (item 19 computes them in one pass).
    rng, ranks, num_candidates = _knowledge_graph_ranks(0)
    weights = rng.uniform(0.05, 5.0, ranks.size) if weighted else None
    oracle_weights = None if weights is None else weights.tolist()
    moments = oracles.random_gmr_moments_by_sums(num_candidates.tolist(), oracle_weights)
    gmr = oracles.rank_statistic("gmr", ranks.tolist(), num_candidates.tolist(), weights=oracle_weights)
    expected = {
        "gmr": gmr,
        "zgmr": oracles.adjust("zgmr", gmr, num_candidates, weights=oracle_weights, moments=moments),
        "agmri": oracles.adjust("agmri", gmr, num_candidates, weights=oracle_weights, moments=moments),
    }
    got = skr.evaluate_ranks(ranks, num_candidates=num_candidates, metrics=list(expected),
                             sample_weight=weights)
    assert expected["zgmr"] > 30  # far from the random baseline: the z-score magnifies nothing
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, rel=1e-11), name


def test_zgmr_oracle_by_sums_matches_the_exact_oracle():
    # the fast oracle above against random_moments' decimal powers, on small N
    rng = np.random.default_rng(67)
    num_candidates = rng.integers(1, 40, 30).tolist()
    weights = rng.uniform(0.1, 3.0, 30).tolist()
    for w in (None, weights):
        fast = oracles.random_gmr_moments_by_sums(num_candidates, w)
        exact = oracles.random_moments("gmr", num_candidates, weights=w)
        assert fast == pytest.approx(exact, rel=1e-14)


@pytest.mark.parametrize("ties", ["expected", "pessimistic", "ordinal"])
def test_label_index_dense_mask_in_chunks_matches_the_oracle(ties, monkeypatch):
    # The dense exclusion mask folds into the chunked comparisons (item 22): every rank, the
    # candidate counts and the order-dependent ordinal rank against a loop over each row, with
    # many ties, NaN in excluded cells, and chunks of a few rows.
    import sklearn_rank._label_index as label_index_module

    rng = np.random.default_rng(71)
    n_queries, n_candidates = 150, 23
    scores = rng.integers(0, 6, (n_queries, n_candidates)).astype(np.float32)
    target = rng.integers(0, n_candidates, n_queries)
    mask = rng.random((n_queries, n_candidates)) < 0.3
    mask[np.arange(n_queries), target] = False
    mask[5] = True  # a row with its target alone
    mask[5, target[5]] = False
    scores[mask & (rng.random(mask.shape) < 0.3)] = np.nan
    monkeypatch.setattr(label_index_module, "_CHUNK_ELEMENTS", 100)  # 4 rows per chunk
    ranks = skr.compute_ranks(target, scores, exclude=mask)
    expected = [oracles.label_index_rank(scores[i].tolist(), target[i], mask[i].tolist())
                for i in range(n_queries)]
    np.testing.assert_array_equal(ranks.optimistic, [t.optimistic for t in expected])
    np.testing.assert_array_equal(ranks.pessimistic, [t.pessimistic for t in expected])
    np.testing.assert_array_equal(ranks.ordinal, [t.ordinal for t in expected])
    np.testing.assert_array_equal(ranks.num_candidates, [t.num_candidates for t in expected])
    names = ["mr", "mrr", "hits@3", "amri"]
    got = skr.evaluate(target, scores, exclude=mask, metrics=names, ties=ties).summary
    for name, (statistic, k) in {"mr": ("mr", None), "mrr": ("mrr", None), "hits@3": ("hits", 3),
                                 "amri": ("amri", None)}.items():
        assert got[name] == pytest.approx(oracles.target_statistic(statistic, expected, ties, k=k),
                                          rel=RTOL, abs=ATOL), name


@pytest.mark.parametrize("n_candidates", [23, 300, 2100])  # entry by entry; 64-bit words in one and in 2 groups
@pytest.mark.parametrize("density", ["sparse", "dense"])
def test_label_index_dense_masks_sparse_and_dense_match_the_oracle(n_candidates, density, monkeypatch):
    # Item 22: a dense mask becomes kept flags that mask both comparisons and are counted for
    # the candidate counts, chunk by chunk, counted 8 flags a word for wide rows. Filtered
    # link prediction excludes a few entries per row ("sparse"); a dense-ish mask excludes
    # 30%. Small integer scores tie often; excluded cells hold NaN, or tie with the target, or
    # beat it, some of them before the target's column (input order). The same mask as a
    # sparse matrix (counted, then subtracted) gives the same ranks.
    import sklearn_rank._label_index as label_index_module

    rng = np.random.default_rng([73, n_candidates])
    n_queries = 61
    scores = rng.integers(0, 8, (n_queries, n_candidates)).astype(np.float32)
    target = rng.integers(0, n_candidates, n_queries)
    rows = np.arange(n_queries)
    if density == "sparse":
        mask = np.zeros((n_queries, n_candidates), dtype=bool)
        mask[rows[:, None], rng.integers(0, n_candidates, (n_queries, 4))] = True
    else:
        mask = rng.random((n_queries, n_candidates)) < 0.3
    before = np.maximum(target - 1, 0)  # excluded cells just before the target: tied, then above it
    mask[rows, before] = True
    scores[rows[::2], before[::2]] = scores[rows[::2], target[::2]]
    scores[rows[1::2], before[1::2]] = scores[rows[1::2], target[1::2]] + 1
    mask[rows, target] = False
    scores[mask & (rng.random(mask.shape) < 0.2)] = np.nan
    mask[7] = True  # a row with its target alone
    mask[7, target[7]] = False
    # a few rows per chunk and a shorter last chunk; at least one 64-bit word per row
    monkeypatch.setattr(label_index_module, "_CHUNK_ELEMENTS", 7 * n_candidates)
    expected = [oracles.label_index_rank(scores[i].tolist(), target[i], mask[i].tolist())
                for i in range(n_queries)]
    for exclude in (mask, sp.csr_matrix(mask)):
        ranks = skr.compute_ranks(target, scores, exclude=exclude)
        np.testing.assert_array_equal(ranks.optimistic, [t.optimistic for t in expected])
        np.testing.assert_array_equal(ranks.pessimistic, [t.pessimistic for t in expected])
        np.testing.assert_array_equal(ranks.ordinal, [t.ordinal for t in expected])
        np.testing.assert_array_equal(ranks.num_candidates, [t.num_candidates for t in expected])
        for ties in ("expected", "ordinal"):
            got = skr.evaluate(target, scores, exclude=exclude, metrics=["mr", "mrr", "hits@3"], ties=ties).summary
            for name, (statistic, k) in {"mr": ("mr", None), "mrr": ("mrr", None), "hits@3": ("hits", 3)}.items():
                assert got[name] == pytest.approx(oracles.target_statistic(statistic, expected, ties, k=k),
                                                  rel=RTOL, abs=ATOL), (name, ties)
    assert any(t.ordinal > t.optimistic for t in expected)  # input order matters somewhere


@pytest.mark.parametrize("ties", ["ordinal", "optimistic", "pessimistic", "realistic"])
@pytest.mark.parametrize("seed", SEEDS)
def test_average_precision_divided_by_the_relevant_items_retrieved(seed, ties):
    # torchmetrics' AP@k: the mean precision over the relevant items found in the top k
    rng, queries, weights, options = _scenario_case(seed, "plain")
    y_true, y_score, kwargs, qid_values = grouped_layout(queries, rng)
    check_evaluate(
        y_true, y_score, dict(ties=ties, ap_denominator="retrieved", **kwargs), queries,
        ["MAP", "map@3"], dict(ties=ties, ap_denominator="retrieved"), qid_values,
    )  # fmt: skip


def test_retrieved_denominator_under_expected_ties_needs_a_certain_count():
    # no tie block across the cut-off: the count is certain and the expectation exact
    y_true, y_score, qid = [1, 0, 1, 0], [3.0, 3.0, 1.0, 0.0], [0, 0, 0, 0]
    queries = [Query([3.0, 3.0, 1.0, 0.0], [1, 0, 1, 0], [False] * 4, [])]
    for k_metric, k in (("map@2", 2), ("map@3", 3)):
        got = skr.evaluate(y_true, y_score, qid=qid, metrics=[k_metric], ap_denominator="retrieved").summary
        expected = oracles.query_metric("ap", queries[0].scores, queries[0].rels, ties="expected", k=k,
                                        ap_denominator="retrieved")
        assert got[k_metric] == pytest.approx(expected, rel=RTOL)
    # a tie block of a relevant and a non-relevant candidate across k=1: refused, naming the way out
    with pytest.raises(ValueError, match="ap_denominator='retrieved'.*ties='ordinal'"):
        skr.evaluate(y_true, y_score, qid=qid, metrics=["map@1"], ap_denominator="retrieved")
