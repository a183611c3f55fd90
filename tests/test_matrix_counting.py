"""The relevance matrix ranked by counting (issue 23), and scipy sparse ``y_true`` and ``exclude`` there.

The reference is the grouped structure's sort, which ranked every relevance matrix before (the counted
path switched off with monkeypatch), and brute force through ``tests/oracles.py`` where the sort's own
tests do; sparse inputs are checked against the same matrices made dense.
"""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import sklearn_rank as skr
from sklearn_rank import _matrix, _matrix_counts

TIES = ["expected", "realistic", "optimistic", "pessimistic", "ordinal"]
LIST = ["mrr", "map", "map@5", "ndcg", "ndcg@3", "dcg@5", "p@3", "r@5", "f1@3", "rprec", "hits@3", "auc", "bpref",
        "rbp", "err", "err@4", "judged@5", "mrr@2"]
RANK = ["mr", "gmr", "hmr", "amri", "zmrr", "mrr", "hits@2", "median_rank", "rank_var"]


def _case(rng, case):
    n_q, n_c = int(rng.integers(1, 9)), int(rng.integers(1, 40))
    share = rng.choice([0.05, 0.1, 0.3])
    y = rng.integers(0, int(rng.integers(2, 5)), size=(n_q, n_c)) * (rng.random((n_q, n_c)) < share)
    dtype = [np.float32, np.float64][case % 2]
    s = rng.integers(0, int(rng.integers(1, 8)), size=(n_q, n_c)).astype(dtype)  # many ties
    if case % 3 == 0:
        s = (s + rng.random((n_q, n_c))).astype(dtype)
    if case % 7 == 0:
        s[rng.random((n_q, n_c)) < 0.1] = -np.inf
    if case % 11 == 0:
        s[rng.random((n_q, n_c)) < 0.2] = -0.0  # ties with 0.0
    exclude = (rng.random((n_q, n_c)) < 0.2) & (y == 0) if case % 2 else None
    weight = rng.random(n_q) + 0.1 if case % 5 == 0 else None
    return y, s, exclude, weight


def _report(y, s, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined values (NaN) are compared as values
        try:
            report = skr.evaluate(y, s, **options)
        except ValueError as exc:
            return str(exc)
    return {name: np.asarray(values) for name, values in report.per_query.items()}, report.summary


def _assert_same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    (pa, sa), (pb, sb) = a, b
    assert pa.keys() == pb.keys()
    for name in pa:
        np.testing.assert_allclose(pa[name], pb[name], rtol=1e-12, atol=1e-14, err_msg=name)
    for name in sa:
        np.testing.assert_allclose(sa[name], sb[name], rtol=1e-12, atol=1e-14, err_msg=name)


@pytest.fixture
def calls(monkeypatch):
    """How often the counted path ranked a chunk (it declines some chunks: the reference then)."""
    counted = []
    original = _matrix_counts.counted_structure

    def spy(*args, **kwargs):
        result = original(*args, **kwargs)
        counted.append(result is not None)
        return result

    monkeypatch.setattr(_matrix, "counted_structure", spy)
    return counted


@pytest.mark.parametrize("seed", range(2))
def test_counting_gives_the_numbers_of_the_sort(seed, calls, monkeypatch):
    rng = np.random.default_rng([23, seed])
    counted = _matrix.counted_structure
    for case in range(22):
        y, s, exclude, weight = _case(rng, case)
        for ties in TIES:
            for targets in ("first", "all"):
                options = dict(ties=ties, exclude=exclude, sample_weight=weight, targets=targets,
                               gain=["linear", "exponential"][case % 2], relevance_level=[None, 2][case % 3 == 1],
                               metrics=LIST + RANK if targets == "first" else RANK)
                got = _report(y, s, **options)
                monkeypatch.setattr(_matrix, "counted_structure", lambda *args, **kwargs: None)
                expected = _report(y, s, **options)
                monkeypatch.setattr(_matrix, "counted_structure", counted)
                _assert_same(got, expected)
    assert sum(calls) > 60  # the counted path did rank most chunks


@pytest.mark.parametrize("targets", ["first", "all"])
def test_counted_ranks_are_the_sorted_ranks_exactly(targets, calls, monkeypatch):
    rng = np.random.default_rng(5)
    counted = _matrix.counted_structure
    for case in range(40):
        y, s, exclude, _ = _case(rng, case)
        got = skr.compute_ranks(y, s, exclude=exclude, targets=targets)
        monkeypatch.setattr(_matrix, "counted_structure", lambda *args, **kwargs: None)
        expected = skr.compute_ranks(y, s, exclude=exclude, targets=targets)
        monkeypatch.setattr(_matrix, "counted_structure", counted)
        for field in ("optimistic", "pessimistic", "realistic", "ordinal", "expected", "num_candidates",
                      "tied_targets", "num_relevant", "query", "qid"):
            np.testing.assert_array_equal(getattr(got, field), getattr(expected, field), err_msg=field)
    assert any(calls)


def test_a_relevant_item_tied_with_many_others_by_hand(calls):
    # 3 candidates score above the relevant one, 4 tie with it (itself included), 2 of them earlier columns
    s = np.array([[0.5, 0.9, 0.5, 0.9, 0.5, 0.1, 0.9, 0.5]], dtype=np.float32)
    y = np.array([[0, 0, 0, 0, 1, 0, 0, 0]])
    ranks = skr.compute_ranks(y, s)
    assert (ranks.optimistic[0], ranks.pessimistic[0], ranks.ordinal[0]) == (4.0, 7.0, 6.0)
    assert ranks.expected[0] == 3 + (4 + 1) / 2
    assert skr.mean_reciprocal_rank(y, s, ties="optimistic") == 0.25
    assert calls and all(calls)


def test_chunks_of_few_rows_give_the_numbers_of_one_chunk(monkeypatch, calls):
    rng = np.random.default_rng(7)
    y = (rng.random((60, 50)) < 0.1) * rng.integers(1, 4, (60, 50))
    s = np.round(rng.random((60, 50)), 1).astype(np.float32)
    metrics = ["mrr", "map", "ndcg@5", "err", "mr", "gmr"]
    whole = {ties: skr.evaluate(y, s, metrics=metrics, ties=ties) for ties in TIES}
    monkeypatch.setattr(_matrix, "MATRIX_MIN_ENTRIES", 1)
    monkeypatch.setattr(_matrix, "COUNTED_CHUNK", 3 * 50)  # three rows per chunk
    for ties in TIES:
        parts = skr.evaluate(y, s, metrics=metrics, ties=ties)
        assert parts.summary == whole[ties].summary
    assert len(calls) > 20 * len(TIES)


def test_many_gain_items_take_the_sort():
    # dense graded relevance: the grouped structure ranks it (counting would do the work of a sort anyway)
    rng = np.random.default_rng(3)
    y = rng.integers(1, 4, (20, 30))
    s = rng.random((20, 30))
    from sklearn_rank._inputs import prepare

    assert _matrix_counts.counted_structure(prepare(y, s), 0, 20, None, "linear", False) is None
    assert _matrix_counts.counted_structure(prepare(y * (rng.random((20, 30)) < 0.05), s), 0, 20, None,
                                            "linear", False) is not None


# ------------------------------------------------------------------------------------------------------
# scipy sparse y_true and exclude in the relevance-matrix layout
# ------------------------------------------------------------------------------------------------------
FORMATS = [sp.csr_matrix, sp.csr_array, sp.csc_matrix, sp.coo_array]


@pytest.mark.parametrize("container", FORMATS)
@pytest.mark.parametrize("ties", TIES)
def test_sparse_y_true_and_exclude_equal_the_dense_ones(container, ties):
    rng = np.random.default_rng([31, TIES.index(ties)])
    for case in range(6):
        y, s, exclude, weight = _case(rng, case)
        options = dict(ties=ties, sample_weight=weight, metrics=LIST + RANK, gain=["linear", "exponential"][case % 2])
        dense = _report(y, s, exclude=exclude, **options)
        sparse_y = _report(container(y), s, exclude=exclude, **options)
        _assert_same(sparse_y, dense)
        if exclude is not None:
            both = _report(container(y), s, exclude=container(exclude), **options)
            _assert_same(both, dense)
            only_exclude = _report(y, s, exclude=container(exclude), **options)
            _assert_same(only_exclude, dense)


def test_sparse_inputs_as_a_recommender_has_them():
    # held-out items as y_true, training interactions as exclude: both sparse, never densified
    rng = np.random.default_rng(11)
    n_users, n_items = 300, 400
    scores = rng.random((n_users, n_items), dtype=np.float32)
    train = sp.random(n_users, n_items, density=0.05, random_state=1, format="csr") > 0
    held_out = (sp.random(n_users, n_items, density=0.02, random_state=2, format="csr") > 0).multiply(~train.toarray())
    metrics = ["ndcg@10", "hits@10", "p@10", "r@10", "mrr", "map@10"]
    sparse = skr.evaluate(sp.csr_array(held_out), scores, exclude=train, metrics=metrics, no_relevant="zero")
    dense = skr.evaluate(held_out.toarray(), scores, exclude=train.toarray(), metrics=metrics, no_relevant="zero")
    assert sparse.summary == dense.summary


def test_duplicates_are_summed_and_stored_zeros_are_not_relevant():
    s = np.array([[0.9, 0.5, 0.1]])
    coo = sp.coo_array((np.array([1, 1, 0]), (np.array([0, 0, 0]), np.array([2, 2, 0]))), shape=(1, 3))
    # column 2 has grade 2 (1 + 1), column 0 a stored zero
    report = skr.evaluate(coo, s, metrics=["mrr", "dcg"])
    assert report.summary["mrr"] == pytest.approx(1 / 3)
    assert report.summary["dcg"] == pytest.approx(2 / np.log2(4))


@pytest.mark.parametrize("y_true, exclude, error, match", [
    (sp.csr_array(np.array([[1, 0, 0]])), None, ValueError, r"same shape.*Got \(1, 3\) and \(2, 3\)"),
    (sp.csr_array(np.array([[1, -1, 0], [0, 0, 1]])), None, ValueError,
     r"`y_true` must hold finite, non-negative.*Got -1 at query 0, column 1"),
    (sp.csr_array(np.array([[1, np.nan, 0], [0, 0, 1]])), None, ValueError, r"`y_true`.*Got nan at query 0"),
    (sp.csr_array(np.array([[1, 0, 0], [0, 0, 1]])), sp.csr_array(np.array([[1, 0, 0]], dtype=bool)), ValueError,
     r"`exclude` must have the shape of `y_score` \(2, 3\)\. Got \(1, 3\) instead"),
    (sp.csr_array(np.array([[1, 0, 0], [0, 0, 1]])), sp.csr_array(np.array([[0, 0, 0], [0, 0, 1]], dtype=bool)),
     ValueError, r"must not remove a query's own relevant candidates.*query 1, column 2"),
    (np.array([[1, 0, 0], [0, 0, 1]]), sp.csr_array(np.array([[1, 0, 0], [0, 0, 0]], dtype=bool)), ValueError,
     r"must not remove a query's own relevant candidates.*query 0, column 0"),
    (sp.csr_array(np.array([["a", "b", "c"], ["d", "e", "f"]], dtype=object).astype("U1") == "a"), None, None,
     None),
])
def test_bad_sparse_inputs_name_the_argument(y_true, exclude, error, match):
    s = np.array([[0.9, 0.5, 0.1], [0.2, 0.4, 0.6]])
    if error is None:  # a boolean sparse y_true is binary relevance
        assert skr.evaluate(y_true, s, metrics=["mrr"], no_relevant="zero").summary["mrr"] == 0.5
        return
    with pytest.raises(error, match=match):
        skr.evaluate(y_true, s, exclude=exclude, metrics=["mrr"])


def test_sparse_y_true_outside_the_relevance_matrix_says_what_to_do():
    with pytest.raises(TypeError, match=r"`y_true` must be a dense array-like here.*relevance-matrix layout only"):
        skr.evaluate(sp.csr_array(np.array([[1, 0, 0, 1]])), np.ones(4), qid=[0, 0, 1, 1], metrics=["mrr"])


def test_sparse_inputs_are_not_densified():
    # extra memory beyond the score matrix (float32) stays below its size: the chunks' copies only
    rng = np.random.default_rng(13)
    n_users, n_items = 800, 3000
    scores = rng.random((n_users, n_items), dtype=np.float32)
    y_true = sp.random(n_users, n_items, density=11 / n_items, random_state=3, format="csr") > 0
    exclude = (sp.random(n_users, n_items, density=0.01, random_state=4, format="csr") > 0).multiply(
        ~y_true.toarray())
    exclude = sp.csr_array(exclude)
    metrics = ["ndcg@10", "hits@10", "mrr", "map", "mr"]
    skr.evaluate(y_true, scores, exclude=exclude, metrics=metrics, no_relevant="zero")  # warm-up
    tracemalloc.start()
    skr.evaluate(y_true, scores, exclude=exclude, metrics=metrics, no_relevant="zero")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= scores.nbytes, (peak, scores.nbytes)


@pytest.mark.parametrize("width", [1, 3, 7, "keys"])
def test_every_block_width_gives_the_numbers_of_the_sort(width, calls, monkeypatch):
    # each row's values sorted a block of `width` columns at a time (the last block filled up), or the
    # ordinal policy's float64 keys of whole rows: the cost model picks one, each must give the sort's numbers
    rng = np.random.default_rng([23, 99, len(str(width))])
    counted = _matrix.counted_structure
    chosen = []

    def forced(n_rows, n_columns, n_items, ordinal, dtype, keyed=True):
        if width == "keys":
            keyed = keyed and ordinal and dtype in (np.float32, np.float16)
            chosen.append(keyed)
            return None if keyed else n_columns
        chosen.append(True)
        return width

    monkeypatch.setattr(_matrix_counts, "block_width", forced)
    for case in range(14):  # every branch of _case (its moduli 2, 3, 5, 7 and 11)
        y, s, exclude, weight = _case(rng, case)
        for ties in TIES:
            options = dict(ties=ties, exclude=exclude, sample_weight=weight, metrics=LIST + RANK)
            got = _report(y, s, **options)
            ranks = None if isinstance(got, str) else skr.compute_ranks(y, s, exclude=exclude, targets="all")
            monkeypatch.setattr(_matrix, "counted_structure", lambda *args, **kwargs: None)
            expected = _report(y, s, **options)
            expected_ranks = None if ranks is None else skr.compute_ranks(y, s, exclude=exclude, targets="all")
            monkeypatch.setattr(_matrix, "counted_structure", counted)
            _assert_same(got, expected)
            if ranks is not None:
                for field in ("optimistic", "pessimistic", "ordinal", "expected", "tied_targets"):
                    np.testing.assert_array_equal(getattr(ranks, field), getattr(expected_ranks, field))
    assert sum(calls) > 35 and any(chosen)


def test_the_cost_model_picks_blocks_for_few_gain_items_in_long_rows():
    # 11 gain items in rows of 20,000: narrow blocks (cheaper to sort, few searches); many gain items: whole
    # rows, and for the ordinal policy on float32 the float64 keys
    few = _matrix_counts.block_width(200, 20_000, 2_200, True, np.float32)
    assert few is not None and few < 20_000
    assert _matrix_counts.block_width(200, 20_000, 200 * 2_500, False, np.float32) == 20_000
    assert _matrix_counts.block_width(200, 20_000, 200 * 2_500, True, np.float32) is None
    assert _matrix_counts.block_width(200, 30, 20, True, np.float32) == 30
