"""NaN and infinite scores: ``nan_policy="raise"|"omit"``, and +-inf as ordinary scores.

Oracles: ``nan_policy="omit"`` must equal the same input with the NaN-scored candidates marked in
``exclude=`` (and their NaN replaced by any finite value); infinite scores must equal the same
input with +inf replaced by a finite value above every other score and -inf by one below every
other score; and, for ties among infinities, the brute force over every order of the tied items
(``oracles.py`` reads the scores as Python floats, infinities included).
"""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import sklearn_rank as skr
from sklearn_rank import _inputs
from sklearn_rank import _label_index as label_index_module
from sklearn_rank.exceptions import UndefinedMetricWarning

from report_closeness import values_close

try:
    from .test_against_oracles import LIST_METRICS, RANK_METRICS, Query, oracle_evaluate
except ImportError:
    from test_against_oracles import LIST_METRICS, RANK_METRICS, Query, oracle_evaluate

TIES = ("expected", "realistic", "optimistic", "pessimistic", "ordinal")
METRICS = ["mrr", "map", "map@3", "ndcg", "ndcg@3", "dcg@2", "p@2", "r@3", "f1@2", "hits@2", "rprec", "auc",
           "mr", "gmr", "hmr", "amr", "amri", "agmri", "amrr", "zmrr", "ahits@2", "rank_std", "median_rank",
           "count"]
LAYOUTS = ("label_index", "matrix", "grouped")

pytestmark = pytest.mark.filterwarnings("ignore::sklearn_rank.UndefinedMetricWarning")


def _evaluate(y_true, y_score, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return skr.evaluate(y_true, y_score, metrics=METRICS, **params)


def _assert_same_report(got, expected):
    assert (got.n_queries, got.n_skipped) == (expected.n_queries, expected.n_skipped)
    assert list(got.summary) == list(expected.summary)
    np.testing.assert_array_equal(got.per_query["qid"], expected.per_query["qid"])
    if values_close(got, expected, list(got.summary), list(got.summary), rtol=1e-12, atol=1e-12):
        return
    # a value differs: the same tolerances, metric by metric, say which
    for name in got.summary:
        np.testing.assert_allclose(got.summary[name], expected.summary[name], rtol=1e-12, atol=1e-12,
                                   equal_nan=True, err_msg=name)
    for name in got.summary:
        np.testing.assert_allclose(got.per_query[name], expected.per_query[name], rtol=1e-12, atol=1e-12,
                                   equal_nan=True, err_msg=name)


def _assert_same_ranks(got, expected):
    for field in ("optimistic", "pessimistic", "realistic", "ordinal", "expected", "num_candidates",
                  "tied_targets", "num_relevant", "query", "qid"):
        np.testing.assert_array_equal(getattr(got, field), getattr(expected, field), err_msg=field)


# --------------------------------------------------------------------------------------------
# random cases: small integer scores (frequent ties), NaN and an exclude mask on other candidates
# --------------------------------------------------------------------------------------------
def _case(layout, seed, *, nan_prob=0.3, exclude_prob=0.2, n_queries=9, n_candidates=7):
    """(y_true, finite scores, NaN positions, exclude mask, extra kwargs) of one layout.

    NaN and the mask fall on candidates that may be removed: not the target (label index),
    not a relevant item (other layouts); they overlap, so that omit + exclude is their union.
    One query has every removable candidate NaN.
    """
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 4, size=(n_queries, n_candidates)).astype(float)
    if layout == "label_index":
        target = rng.integers(0, n_candidates, size=n_queries)
        removable = np.ones_like(scores, dtype=bool)
        removable[np.arange(n_queries), target] = False
        y_true = target
    else:
        rel = rng.integers(0, 3, size=scores.shape) * (rng.random(scores.shape) < 0.35)
        rel[1] = 0  # a query without a relevant item
        removable = rel == 0
        y_true = rel
    nan = removable & (rng.random(scores.shape) < nan_prob)
    nan[2] = removable[2]
    mask = removable & (rng.random(scores.shape) < exclude_prob)
    return y_true, scores, nan, mask


def _in_layout(layout, y_true, arrays, seed):
    """The case in its layout: (y_true, [each of ``arrays`` shaped like y_score], kwargs).

    The grouped layout interleaves the rows of the queries at random, each query's own rows
    kept in their order (ordinal ties), with string query ids.
    """
    if layout != "grouped":
        return y_true, arrays, {}
    n_queries, n_candidates = arrays[0].shape
    sequence = np.random.default_rng(seed + 1000).permutation(np.repeat(np.arange(n_queries), n_candidates))
    rows = np.empty(sequence.size, dtype=np.intp)
    rows[np.argsort(sequence, kind="stable")] = np.arange(sequence.size)  # k-th row of a query, k-th time
    qid = np.array([f"q{q}" for q in range(n_queries)])[rows // n_candidates]
    return y_true.reshape(-1)[rows], [a.reshape(-1)[rows] for a in arrays], {"qid": qid}


def _with_nan(scores, nan):
    return np.where(nan, np.nan, scores)


def _any_finite(scores, nan, seed):
    """The NaN positions filled with arbitrary finite values (some tie with the others)."""
    return np.where(nan, np.random.default_rng(seed + 7).integers(-2, 6, size=scores.shape), scores)


# --------------------------------------------------------------------------------------------
# nan_policy="omit" is exclude=
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("with_mask", [False, True])
@pytest.mark.parametrize("targets", ["first", "all"])
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_omit_equals_exclude(layout, ties, targets, with_mask):
    for seed in range(3):
        y_true, scores, nan, mask = _case(layout, seed)
        if not with_mask:
            mask = np.zeros_like(mask)
        y, (with_nan, filled, m, union), kw = _in_layout(
            layout, y_true, [_with_nan(scores, nan), _any_finite(scores, nan, seed), mask, nan | mask], seed)
        exclude = m if with_mask else None
        got = _evaluate(y, with_nan, nan_policy="omit", exclude=exclude, ties=ties, targets=targets, **kw)
        _assert_same_report(got, _evaluate(y, filled, exclude=union, ties=ties, targets=targets, **kw))
        ranks = skr.compute_ranks(y, with_nan, nan_policy="omit", exclude=exclude, targets=targets, **kw)
        _assert_same_ranks(ranks, skr.compute_ranks(y, filled, exclude=union, targets=targets, **kw))
        # not vacuous: the candidate counts shrank
        assert ranks.num_candidates.sum() < skr.compute_ranks(y, filled, targets=targets, **kw).num_candidates.sum()


@pytest.mark.parametrize("ties", TIES)
def test_omit_equals_a_sparse_exclude_mask_in_the_label_index(ties):
    for seed in range(3):
        target, scores, nan, mask = _case("label_index", seed)
        got = _evaluate(target, _with_nan(scores, nan), nan_policy="omit", exclude=sp.csr_matrix(mask), ties=ties)
        expected = _evaluate(target, _any_finite(scores, nan, seed), exclude=sp.csr_matrix(nan | mask), ties=ties)
        _assert_same_report(got, expected)


@pytest.mark.parametrize("layout", ["label_index", "matrix"])
@pytest.mark.parametrize("ties", TIES)
def test_omit_and_infinities_in_chunks_equal_exclude_and_the_whole(monkeypatch, layout, ties):
    y_true, scores, nan, mask = _case(layout, 11, n_queries=13)
    scores = _with_infinities(scores, 11)
    with_nan, filled = _with_nan(scores, nan), _finite_replacement(_any_finite(scores, nan, 11))
    if layout == "matrix":  # two leading queries without relevant item, every candidate NaN: an empty block
        y_true[:2] = 0
        with_nan[:2] = np.nan
        filled[:2] = 1.0
    union = np.isnan(with_nan) | mask
    whole = _evaluate(y_true, with_nan, nan_policy="omit", exclude=mask, ties=ties)
    whole_ranks = skr.compute_ranks(y_true, with_nan, nan_policy="omit", exclude=mask)
    monkeypatch.setattr(_inputs, "MATRIX_CHUNK", 16)  # blocks of two queries
    monkeypatch.setattr(label_index_module, "_CHUNK_ELEMENTS", 14)
    if layout == "matrix":
        assert isinstance(_inputs.prepare(y_true, with_nan, nan_policy="omit"), _inputs.RelevanceMatrix)
    got = _evaluate(y_true, with_nan, nan_policy="omit", exclude=mask, ties=ties)
    _assert_same_report(got, whole)
    _assert_same_report(got, _evaluate(y_true, filled, exclude=union, ties=ties))
    _assert_same_ranks(skr.compute_ranks(y_true, with_nan, nan_policy="omit", exclude=mask), whole_ranks)
    with pytest.raises(ValueError, match=r"`y_score` must not hold NaN.*nan_policy='omit'"):
        skr.evaluate(y_true, with_nan, metrics="mrr")


def test_a_query_left_without_candidates_is_dropped_as_with_exclude():
    y_true = np.array([[1, 0, 0], [0, 0, 0], [0, 2, 0]])
    scores = np.array([[0.5, 0.2, 0.1], [np.nan, np.nan, np.nan], [0.3, 0.3, np.nan]])
    got = _evaluate(y_true, scores, nan_policy="omit", no_relevant="zero")
    expected = _evaluate(y_true, np.nan_to_num(scores), exclude=np.isnan(scores), no_relevant="zero")
    _assert_same_report(got, expected)
    assert got.n_queries == 2  # query 1 is gone, as with exclude
    qid = np.repeat([5, 6, 7], 3)
    got = _evaluate(y_true.reshape(-1), scores.reshape(-1), qid=qid, nan_policy="omit", no_relevant="zero")
    _assert_same_report(got, _evaluate(y_true.reshape(-1), np.nan_to_num(scores).reshape(-1), qid=qid,
                                       exclude=np.isnan(scores).reshape(-1), no_relevant="zero"))
    np.testing.assert_array_equal(got.per_query["qid"], [5, 7])
    # every candidate NaN: the error of every candidate excluded
    for params in ({"nan_policy": "omit"}, {"exclude": np.ones(3, dtype=bool)}):
        with pytest.raises(ValueError, match="Every candidate was excluded"):
            skr.evaluate([0, 0, 0], [np.nan, np.nan, np.nan], metrics="dcg", **params)


# --------------------------------------------------------------------------------------------
# NaN where exclude may not go, and the messages of nan_policy="raise"
# --------------------------------------------------------------------------------------------
def test_nan_on_the_true_candidate_raises_under_both_policies():
    scores = np.array([[0.2, 0.9, np.nan], [np.nan, 0.1, 0.3]])
    with pytest.raises(ValueError, match=r"own true candidate.*Got a NaN true score in rows \[1\] instead\."):
        skr.mean_reciprocal_rank([1, 0], scores, nan_policy="omit")
    with pytest.raises(ValueError, match=r"`y_score` must not hold NaN.*true candidate of rows \[1\] instead\."):
        skr.mean_reciprocal_rank([1, 0], scores)
    # as a mask on the target is
    with pytest.raises(ValueError, match="must not remove a query's own target"):
        skr.mean_reciprocal_rank([1, 0], np.nan_to_num(scores), exclude=np.isnan(scores))
    # a NaN target that is excluded is still the target: the mask error comes first
    with pytest.raises(ValueError, match="must not remove a query's own target"):
        skr.mean_reciprocal_rank([1, 0], scores, exclude=np.isnan(scores), nan_policy="omit")


@pytest.mark.parametrize("layout", ["matrix", "grouped", "chunked"])
def test_nan_on_a_relevant_item_raises_under_both_policies(monkeypatch, layout):
    y_true = np.array([[0, 1, 0, 2], [1, 0, 0, 0], [0, 0, 3, 0]])
    scores = np.array([[0.1, 0.2, np.nan, 0.4], [0.5, 0.6, 0.7, 0.8], [0.9, 1.0, 1.1, np.nan]])
    scores[1, 0] = np.nan  # relevant
    kw = {}
    if layout == "grouped":
        y_true, scores, kw = y_true.reshape(-1), scores.reshape(-1), {"qid": np.repeat([1, 2, 3], 4)}
    if layout == "chunked":
        monkeypatch.setattr(_inputs, "MATRIX_CHUNK", 4)
    with pytest.raises(ValueError, match=r"own relevant candidate.*Got a NaN score for a relevant item at row 4 "
                                         r"instead\."):
        skr.evaluate(y_true, scores, metrics="map", nan_policy="omit", **kw)
    with pytest.raises(ValueError, match=r"`y_score` must not hold NaN.*Got 3 NaN scores, the first at row 2 "
                                         r"(\(qid 1\) )?instead\.|Got 1 NaN score, the first at row 2 instead\."):
        skr.evaluate(y_true, scores, metrics="map", **kw)
    # as a mask on a relevant item is
    with pytest.raises(ValueError, match="must not remove a query's own relevant candidates.*row 4"):
        skr.evaluate(y_true, np.nan_to_num(scores), metrics="map", exclude=np.isnan(scores), **kw)


@pytest.mark.parametrize("call", [
    lambda **kw: skr.mean_reciprocal_rank([1, 0, 0], [0.5, np.nan, 0.1], **kw),
    lambda **kw: skr.ndcg_score([[1, 0, 0]], [[0.5, np.nan, 0.1]], **kw),
    lambda **kw: skr.hits_at_k([0], [[0.5, np.nan, 0.1]], k=1, **kw),
    lambda **kw: skr.compute_ranks([0], [[0.5, np.nan, 0.1]], **kw),
])
def test_raise_policy_names_y_score_and_the_remedy(call):
    message = r"`y_score` must not hold NaN: NaN does not rank .*nan_policy='omit' removes NaN-scored candidates"
    with pytest.raises(ValueError, match=message):
        call()
    with pytest.raises(ValueError, match=message):
        call(nan_policy="raise")
    call(nan_policy="omit")  # no error


def _public_functions():
    from sklearn_rank import metrics

    return [getattr(metrics, name) for name in metrics.__all__
            if name not in ("evaluate_ranks", "positive_vs_negatives")]


@pytest.mark.parametrize("func", _public_functions(), ids=lambda f: f.__name__)
def test_every_public_function_takes_nan_policy_and_checks_it(func):
    import inspect

    parameter = inspect.signature(func).parameters["nan_policy"]
    assert parameter.default == "raise" and parameter.kind == parameter.KEYWORD_ONLY
    assert "nan_policy : {\"raise\", \"omit\"}" in func.__doc__
    k = {"k": 1} if "k" in inspect.signature(func).parameters and \
        inspect.signature(func).parameters["k"].default is inspect.Parameter.empty else {}
    with pytest.raises(ValueError, match=r"^`nan_policy` must be one of \{'raise', 'omit'\}\. Did you mean 'omit'\? "
                                         r"Got 'omitt' instead\.$"):
        func([0, 1], [[0.5, np.nan, 0.2], [0.1, 0.4, 0.3]], nan_policy="omitt", **k)
    with pytest.raises(ValueError, match=r"`nan_policy` must be one of \{'raise', 'omit'\}\. Got None instead\."):
        func([0, 1], [[0.5, 0.1, 0.2], [0.1, 0.4, 0.3]], nan_policy=None, **k)
    # omit gives what exclude gives
    scores = np.array([[0.5, np.nan, 0.2], [0.1, 0.4, np.nan]])
    got = func([0, 1], scores, nan_policy="omit", **k)
    expected = func([0, 1], np.nan_to_num(scores), exclude=np.isnan(scores), **k)
    if isinstance(got, float):
        assert got == expected
    elif hasattr(got, "summary"):
        _assert_same_report(got, expected)
    else:
        _assert_same_ranks(got, expected)


# --------------------------------------------------------------------------------------------
# infinities are ordinary scores
# --------------------------------------------------------------------------------------------
def _finite_replacement(scores):
    """+inf -> a value above every finite score, -inf -> one below (NaN stays NaN)."""
    finite = scores[np.isfinite(scores)]
    out = scores.copy()
    out[scores == np.inf] = finite.max() + 1
    out[scores == -np.inf] = finite.min() - 1
    return out


def _with_infinities(scores, seed, prob=0.2):
    rng = np.random.default_rng(seed + 99)
    draw = rng.random(scores.shape)
    return np.where(draw < prob, np.inf, np.where(draw > 1 - prob, -np.inf, scores))


@pytest.mark.parametrize("nan_policy", ["raise", "omit"])
@pytest.mark.parametrize("targets", ["first", "all"])
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_infinities_rank_as_the_highest_and_lowest_scores(layout, ties, targets, nan_policy):
    for seed in range(3):
        y_true, scores, nan, mask = _case(layout, seed)
        infinite = _with_infinities(scores, seed)
        if nan_policy == "omit":
            infinite = _with_nan(infinite, nan)
        y, (with_inf, replaced, m), kw = _in_layout(layout, y_true, [infinite, _finite_replacement(infinite), mask],
                                                     seed)
        assert np.isinf(with_inf).sum() > 5
        for exclude in (None, m):
            params = dict(ties=ties, targets=targets, nan_policy=nan_policy, exclude=exclude, **kw)
            _assert_same_report(_evaluate(y, with_inf, **params), _evaluate(y, replaced, **params))
            params.pop("ties")
            _assert_same_ranks(skr.compute_ranks(y, with_inf, **params), skr.compute_ranks(y, replaced, **params))


def test_infinite_true_scores_tie_with_each_other():
    # the target at +inf ties with the other +inf; at -inf with the other -inf
    scores = np.array([[np.inf, 0.3, np.inf, np.inf], [-np.inf, 0.1, -np.inf, 5.0], [np.inf, -np.inf, 1.0, 2.0]])
    ranks = skr.compute_ranks([0, 2, 1], scores)
    np.testing.assert_array_equal(ranks.optimistic, [1, 3, 4])
    np.testing.assert_array_equal(ranks.pessimistic, [3, 4, 4])
    np.testing.assert_array_equal(ranks.ordinal, [1, 4, 4])
    np.testing.assert_array_equal(ranks.num_candidates, [4, 4, 4])
    # float32 row sums are +inf + -inf = NaN in row 2: an infinity, not a NaN score
    for dtype in (np.float16, np.float32, np.longdouble):
        _assert_same_ranks(skr.compute_ranks([0, 2, 1], scores.astype(dtype)), ranks)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.longdouble])
@pytest.mark.parametrize("with_mask", ["none", "dense", "sparse"])
def test_label_index_row_sums_with_infinities_find_only_nan(monkeypatch, dtype, with_mask):
    # Rows holding +inf and -inf sum to NaN: only an exact look at such rows tells NaN scores apart.
    monkeypatch.setattr(label_index_module, "_CHUNK_ELEMENTS", 24)  # 4 rows of 6 per chunk
    target, scores, nan, mask = _case("label_index", 5, n_queries=11, n_candidates=6)
    infinite = _with_infinities(scores, 5, prob=0.25)
    infinite[np.arange(11), target] = scores[np.arange(11), target]
    exclude = {"none": None, "dense": mask, "sparse": sp.csr_matrix(mask)}[with_mask]
    union = nan if exclude is None else nan | mask
    expected = skr.compute_ranks(target, _finite_replacement(infinite), exclude=sp.csr_matrix(union) if with_mask
                                 == "sparse" else union)
    with_nan = _with_nan(infinite, nan).astype(dtype)
    _assert_same_ranks(skr.compute_ranks(target, with_nan, exclude=exclude, nan_policy="omit"), expected)
    first = int(np.flatnonzero((nan & ~(mask if exclude is not None else False)).any(axis=1))[0])
    with pytest.raises(ValueError, match=f"Got a NaN score in row {first} instead"):
        skr.compute_ranks(target, with_nan, exclude=exclude)


def test_long_double_and_wide_integer_paths_keep_infinities():
    # long doubles that float64 cannot hold go through a dense rank: infinities stay outermost
    tiny = np.longdouble(2) ** -60
    if np.finfo(np.longdouble).nmant < 60:
        pytest.skip("long double is float64 here")
    scores = np.array([1 + tiny, 1, np.inf, -np.inf, 1 + 2 * tiny, np.inf, np.nan], dtype=np.longdouble)
    rel = np.array([0, 1, 0, 0, 1, 1, 0])
    expected = np.array([2, 1, 9, -9, 3, 9, 0.0])
    got = _evaluate(rel, scores, nan_policy="omit", ties="pessimistic")
    _assert_same_report(got, _evaluate(rel, expected, exclude=np.isnan(scores), ties="pessimistic"))


def test_nat_is_nan_under_omit():
    times = np.array(["2024-01-01T00:00:00.000000001", "NaT", "2024-01-01", "2024-01-02"], dtype="datetime64[ns]")
    rel = [0, 0, 1, 0]
    with pytest.raises(ValueError, match=r"NaT.*nan_policy='omit'"):
        skr.evaluate(rel, times, metrics="mrr")
    got = _evaluate(rel, times, nan_policy="omit")
    filled = times.copy()
    filled[1] = np.datetime64("2030-01-01")
    _assert_same_report(got, _evaluate(rel, filled, exclude=[False, True, False, False]))


def _brute_force_queries(seed):
    """Queries whose scores are 0, 1, +inf or -inf: every tie block small enough to enumerate."""
    rng = np.random.default_rng(seed)
    queries = []
    for _ in range(8):
        n = int(rng.integers(2, 7))
        scores = rng.choice([np.inf, -np.inf, 0.0, 1.0], size=n).tolist()
        rels = (rng.integers(0, 3, size=n) * (rng.random(n) < 0.5)).tolist()
        queries.append(Query(scores, rels, [False] * n, []))
    return queries


@pytest.mark.parametrize("targets", ["first", "all"])
@pytest.mark.parametrize("ties", TIES)
def test_ties_among_infinities_against_brute_force(ties, targets):
    names = ["mrr", "MAP", "NDCG@3", "dcg", "p@1", "r@2", "f1@3", "hits@1", "rprec", "auc", "mr", "gmr", "hmr",
             "amri", "zmrr", "ahits@2", "rank_std", "count"]
    assert all(name in LIST_METRICS or name in RANK_METRICS for name in names)
    for seed in range(4):
        queries = _brute_force_queries(seed)
        y_true = np.concatenate([q.rels for q in queries])
        y_score = np.concatenate([q.scores for q in queries])
        qid = np.repeat(np.arange(len(queries)), [len(q.scores) for q in queries])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            report = skr.evaluate(y_true, y_score, qid=qid, metrics=names, ties=ties, targets=targets)
        per_query, summary = oracle_evaluate(queries, names, ties=ties, targets=targets)
        np.testing.assert_array_equal(report.per_query["qid"], per_query["query"])
        for name in names:
            np.testing.assert_allclose(report.per_query[name], np.array(per_query[name], dtype=float), rtol=1e-12,
                                       atol=1e-12, equal_nan=True, err_msg=name)
            assert math.isclose(report.summary[name], summary[name], rel_tol=1e-12, abs_tol=1e-12) or (
                math.isnan(report.summary[name]) and math.isnan(summary[name])), name


# --------------------------------------------------------------------------------------------
# inputs are not modified
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
def test_inputs_are_not_modified(layout):
    y_true, scores, nan, mask = _case(layout, 3)
    y, (with_nan, m), kw = _in_layout(layout, y_true, [_with_infinities(_with_nan(scores, nan), 3), mask], 3)
    masks = [m] + ([sp.csr_matrix(m)] if layout == "label_index" else [])
    for exclude in masks:
        before = [y.copy(), with_nan.copy(), exclude.copy()] + [v.copy() for v in kw.values()]
        _evaluate(y, with_nan, nan_policy="omit", exclude=exclude, ties="ordinal", **kw)
        skr.compute_ranks(y, with_nan, nan_policy="omit", exclude=exclude, **kw)
        after = [y, with_nan, exclude] + list(kw.values())
        for old, new in zip(before, after):
            if sp.issparse(old):
                assert (old != new).nnz == 0
            else:
                np.testing.assert_array_equal(old, new)


# --------------------------------------------------------------------------------------------
# PyKEEN's filtered setting: NaN filters, -inf does not
# --------------------------------------------------------------------------------------------
def test_pykeen_filtered_scores_nan_filters_but_minus_inf_only_ranks_last():
    rng = np.random.default_rng(8)
    n_queries, n_entities = 12, 9
    scores = rng.integers(0, 5, size=(n_queries, n_entities)).astype(float)
    true = rng.integers(0, n_entities, size=n_queries)
    known = rng.random(scores.shape) < 0.3
    known[np.arange(n_queries), true] = False
    # PyKEEN's computation, written out: filtered scores set to NaN; optimistic = #{score > true} + 1,
    # pessimistic = #{score >= true}, number of options = #finite scores
    filtered = np.where(known, np.nan, scores)
    true_score = scores[np.arange(n_queries), true][:, None]
    optimistic = (filtered > true_score).sum(axis=1) + 1
    pessimistic = (filtered >= true_score).sum(axis=1)
    options = np.isfinite(filtered).sum(axis=1)
    ranks = skr.compute_ranks(true, filtered, nan_policy="omit")
    np.testing.assert_array_equal(ranks.optimistic, optimistic)
    np.testing.assert_array_equal(ranks.pessimistic, pessimistic)
    np.testing.assert_array_equal(ranks.realistic, (optimistic + pessimistic) / 2)
    np.testing.assert_array_equal(ranks.num_candidates, options)
    _assert_same_ranks(ranks, skr.compute_ranks(true, scores, exclude=known))
    # -inf in place of NaN: the same ranks (every true score is finite), but every entity stays a
    # candidate, so the random baseline, and every adjusted metric, is that of n_entities candidates
    minus_inf = skr.compute_ranks(true, np.where(known, -np.inf, scores))
    np.testing.assert_array_equal(minus_inf.realistic, ranks.realistic)
    np.testing.assert_array_equal(minus_inf.num_candidates, np.full(n_queries, n_entities))
    names = ["mr", "mrr", "hits@3", "amri", "amr"]
    omitted = skr.evaluate(true, filtered, nan_policy="omit", ties="realistic", metrics=names).summary
    ranked_last = skr.evaluate(true, np.where(known, -np.inf, scores), ties="realistic", metrics=names).summary
    assert [omitted[n] for n in ("mr", "mrr", "hits@3")] == [ranked_last[n] for n in ("mr", "mrr", "hits@3")]
    # amri = 1 - (MR - 1) / (E[MR] - 1) with E[MR] = (N + 1) / 2: a larger N makes the same ranks look better
    expected_amri = {}
    for name, n_cand in (("omitted", options), ("ranked_last", np.full(n_queries, n_entities))):
        expected_amri[name] = 1 - (ranks.realistic - 1).sum() / ((n_cand + 1) / 2 - 1).sum()
    assert math.isclose(omitted["amri"], expected_amri["omitted"], rel_tol=1e-12)
    assert math.isclose(ranked_last["amri"], expected_amri["ranked_last"], rel_tol=1e-12)
    assert ranked_last["amri"] > omitted["amri"]


# --------------------------------------------------------------------------------------------
# the scikit-learn face and the command line
# --------------------------------------------------------------------------------------------
def _last_column_model():
    """A regressor whose prediction is the last column of X (NaN and infinities included)."""
    from sklearn.base import BaseEstimator, RegressorMixin

    class LastColumn(RegressorMixin, BaseEstimator):
        def fit(self, X, y):
            return self

        def predict(self, X):
            return np.asarray(X, dtype=float)[:, -1]

    return LastColumn()


def _scored_rows():
    qid = np.repeat([1.0, 2.0, 3.0], 4)
    score = np.array([0.9, np.nan, 0.2, 0.4, np.nan, 0.1, 0.8, np.inf, 0.3, -np.inf, 0.3, np.nan])
    y = np.array([0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0])
    return np.column_stack([qid, score]), y, qid, score


def test_scorer_and_evaluator_forward_nan_policy():
    X, y, qid, score = _scored_rows()
    names = ["mrr", "amri"]
    expected = skr.evaluate(y, np.nan_to_num(score, nan=7.0), qid=qid, exclude=np.isnan(score), metrics=names)
    for name in names:
        scorer = skr.make_ranking_scorer(name, qid=0, nan_policy="omit")
        assert "nan_policy='omit'" in repr(scorer)
        assert scorer(_last_column_model(), X, y) == pytest.approx(expected.summary[name], rel=1e-12)
        with pytest.raises(ValueError, match="`y_score` must not hold NaN"):
            skr.make_ranking_scorer(name, qid=0)(_last_column_model(), X, y)
        evaluator = skr.RankingEvaluator(_last_column_model(), metric=name, qid=0, nan_policy="omit").fit(X, y)
        assert evaluator.get_params()["nan_policy"] == "omit"
        assert evaluator.score(X, y) == pytest.approx(expected.summary[name], rel=1e-12)
    with pytest.raises(ValueError, match=r"`nan_policy` must be one of \{'raise', 'omit'\}.*Got 'skip' instead"):
        skr.make_ranking_scorer("mrr", nan_policy="skip")
    multi = skr.make_multimetric_scorer(names, qid=0, nan_policy="omit")(_last_column_model(), X, y)
    assert multi == pytest.approx(expected.summary, rel=1e-12)
    with pytest.raises(ValueError, match="`y_score` must not hold NaN"):
        skr.make_multimetric_scorer(names, qid=0)(_last_column_model(), X, y)
    # convention="pykeen" omits NaN there too, unless nan_policy is written
    pykeen = skr.evaluate(y, np.nan_to_num(score, nan=7.0), qid=qid, exclude=np.isnan(score), metrics="mrr",
                          ties="realistic", targets="all").summary["mrr"]
    assert skr.make_ranking_scorer("mrr", qid=0, convention="pykeen")(_last_column_model(), X, y) == \
        pytest.approx(pykeen, rel=1e-12)
    evaluator = skr.RankingEvaluator(_last_column_model(), metric="mrr", qid=0, convention="pykeen").fit(X, y)
    assert evaluator.score(X, y) == pytest.approx(pykeen, rel=1e-12)
    with pytest.raises(ValueError, match="`y_score` must not hold NaN"):
        skr.make_ranking_scorer("mrr", qid=0, convention="pykeen", nan_policy="raise")(_last_column_model(), X, y)
    with pytest.raises(ValueError, match="`y_score` must not hold NaN"):
        evaluator.set_params(nan_policy="raise").score(X, y)


def _run_cli(capsys, *args):
    from sklearn_rank.cli import main

    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_command_line_tables_nan_policy_and_infinite_scores(tmp_path, capsys):
    import json

    _, _, qid, score = _scored_rows()
    y = np.array([0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0])
    lines = ["q,s,y,excl"] + [f"q{int(q)},{float(s)!r},{label},{int(np.isnan(s))}" for q, s, label in zip(qid, score, y)]
    table = tmp_path / "t.csv"
    table.write_text("\n".join(lines) + "\n")
    assert "nan" in table.read_text() and "-inf" in table.read_text()
    args = ("evaluate", table, "--qid", "q", "--score", "s", "--label", "y", "-m", "mrr", "amri", "--format", "json")
    code, out, err = _run_cli(capsys, *args)
    assert code == 2 and "--nan-policy omit" in err and "t.csv:3" in err
    code, out, err = _run_cli(capsys, *args, "--nan-policy", "omit")
    assert code == 0, err
    got = json.loads(out)["summary"]
    expected = skr.evaluate(y, _finite_replacement(np.nan_to_num(score, nan=0.0)), qid=qid, exclude=np.isnan(score),
                            metrics=["mrr", "amri"]).summary
    assert got == pytest.approx(expected, rel=1e-12)
    # --convention pykeen reads NaN as filtered too (with its realistic ranks and pooled targets),
    # unless --nan-policy says otherwise
    code, out, err = _run_cli(capsys, *args, "--convention", "pykeen")
    assert code == 0, err
    pykeen = skr.evaluate(y, _finite_replacement(np.nan_to_num(score, nan=0.0)), qid=qid, exclude=np.isnan(score),
                          ties="realistic", targets="all", metrics=["mrr", "amri"]).summary
    assert json.loads(out)["summary"] == pytest.approx(pykeen, rel=1e-12)
    code, out, err = _run_cli(capsys, *args, "--convention", "pykeen", "--nan-policy", "raise")
    assert code == 2 and "--nan-policy omit" in err
    # NaN scores of rows that --exclude-col removes are fine under either policy
    code, out, err = _run_cli(capsys, *args, "--exclude-col", "excl")
    assert code == 0, err
    assert json.loads(out)["summary"] == pytest.approx(expected, rel=1e-12)
    # a NaN score on a relevant row, and --nan-policy with TREC files
    table.write_text("q,s,y\nq1,0.5,0\nq1,nan,1\n")
    code, out, err = _run_cli(capsys, "evaluate", table, "--qid", "q", "--score", "s", "--label", "y",
                              "--nan-policy", "omit")
    assert code == 2 and "t.csv:3" in err and "relevant" in err
    code, out, err = _run_cli(capsys, "evaluate", table, table, "--nan-policy", "omit")
    assert code == 2 and "--nan-policy applies to the scores of a table" in err and "TREC" in err


def test_command_line_parquet_infinite_and_nan_scores(tmp_path, capsys):
    import json

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    _, y, qid, score = _scored_rows()
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"q": qid.astype(int), "s": score, "y": y}), path)
    code, out, err = _run_cli(capsys, "evaluate", path, "--qid", "q", "--score", "s", "--label", "y", "-m", "mrr",
                              "--format", "json", "--nan-policy", "omit")
    assert code == 0, err
    expected = skr.evaluate(y, _finite_replacement(np.nan_to_num(score, nan=0.0)), qid=qid, exclude=np.isnan(score),
                            metrics="mrr").summary["mrr"]
    assert json.loads(out)["summary"]["mrr"] == pytest.approx(expected, rel=1e-12)
    code, out, err = _run_cli(capsys, "evaluate", path, "--qid", "q", "--score", "s", "--label", "y")
    assert code == 2 and "row 2" in err and "NaN" in err


@pytest.mark.parametrize("cell, value", [("inf", np.inf), ("-inf", -np.inf), ("Infinity", np.inf),
                                         ("-INF", -np.inf), ("+inf", np.inf)])
def test_csv_infinity_spellings_are_scores(tmp_path, cell, value):
    from sklearn_rank.io._tables import read_table

    table = tmp_path / "t.csv"
    table.write_text(f"q,s,y\na,0.5,1\na,{cell},0\n")
    got = read_table(table, qid="q", score="s", label="y")
    np.testing.assert_array_equal(got.score, [0.5, value])
    assert float(cell) == value  # Python's float, as NumPy's and pandas' parsers, reads it so


def test_pykeen_convention_omits_nan_and_an_explicit_policy_wins():
    scores = np.array([[0.2, np.nan, 0.9, 0.5], [0.7, 0.1, np.nan, 0.7]])
    target = np.array([3, 0])
    names = ["mrr", "amri", "hits@1"]
    preset = skr.evaluate(target, scores, convention="pykeen", metrics=names)
    written = skr.evaluate(target, scores, nan_policy="omit", ties="realistic", targets="all", metrics=names)
    assert preset.summary == written.summary
    _assert_same_ranks(skr.compute_ranks(target, scores, convention="pykeen"),
                       skr.compute_ranks(target, scores, nan_policy="omit", targets="all"))
    with pytest.raises(ValueError, match="`y_score` must not hold NaN"):
        skr.evaluate(target, scores, convention="pykeen", nan_policy="raise", metrics=names)
    with pytest.raises(ValueError, match="`y_score` must not hold NaN"):
        skr.mean_rank(target, scores, convention="pykeen", nan_policy="raise")
    # realistic ranks: 2 (0.9 above 0.5), 1.5 (a tie at 0.7); the NaN candidates take no part
    assert skr.mean_rank(target, scores, convention="pykeen") == (2 + 1.5) / 2


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_command_line_reads_pandas_missing_scores_as_nan_under_omit(tmp_path, capsys, suffix):
    # pandas writes NaN as an empty CSV cell and as a Parquet null: under --nan-policy omit that is a
    # NaN score (a row to remove); otherwise the error says how to get there
    import json

    pd = pytest.importorskip("pandas")
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"q": [1, 1, 1, 2, 2, 2], "s": [0.5, np.nan, 0.2, 0.9, np.nan, 0.1],
                          "y": [1, 0, 0, 0, 0, 1]})
    path = tmp_path / f"t{suffix}"
    frame.to_csv(path, index=False) if suffix == ".csv" else frame.to_parquet(path)

    def cli(*extra):  # in this process: tests/test_cli.py runs the command line in processes of its own
        return _run_cli(capsys, "evaluate", path, "--qid", "q", "--score", "s", "--label", "y", "-m", "mrr", "ndcg",
                        "--format", "json", *extra)

    code, out, err = cli("--nan-policy", "omit")
    assert code == 0, err
    expected = skr.evaluate(frame.y.to_numpy(), frame.s.to_numpy(), qid=frame.q.to_numpy(), metrics=["mrr", "ndcg"],
                            nan_policy="omit")
    assert json.loads(out)["summary"] == pytest.approx(expected.summary, rel=1e-15)
    code, out, err = cli()
    assert code == 2 and "--nan-policy omit" in err and "Got " in err
