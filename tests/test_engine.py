"""Engine paths that the oracle tests reach only by chance: sort strategies, chunking, large values."""

import numpy as np
import pytest
import scipy.sparse as sp

import sklearn_rank._ranks as ranks_module
from sklearn_rank import compute_ranks, evaluate
from sklearn_rank._ranks import sort_rows

METRICS = ["mrr", "map", "ndcg@3", "p@2", "auc", "mr", "gmr"]


def _reference_order(query, key):
    return np.lexsort((key, query))  # stable, by query then key


@pytest.mark.parametrize("sizes, shuffled", [
    ([5, 5, 5, 5], False),        # equal sizes, grouped: a reshape, no copy
    ([5, 5, 5, 5], True),         # equal sizes, interleaved
    ([1, 7, 3, 6, 2], False),     # padded matrix
    ([1, 7, 3, 6, 2], True),
    ([1, 1, 1, 40], False),       # too uneven to pad: flat sort
])
def test_sort_strategies_agree_with_lexsort(sizes, shuffled):
    rng = np.random.default_rng(0)
    query = np.repeat(np.arange(len(sizes)), sizes)
    key = rng.integers(0, 4, query.size).astype(float)  # many ties: stability shows
    if shuffled:
        perm = rng.permutation(query.size)
        query, key = query[perm], key[perm]
    counts = np.bincount(query)
    grouped = None if shuffled else True
    stable = sort_rows(query, key, len(sizes), counts=counts, grouped=grouped)
    np.testing.assert_array_equal(stable, _reference_order(query, key))
    unstable = sort_rows(query, key, len(sizes), stable=False, counts=counts, grouped=grouped)
    np.testing.assert_array_equal(query[unstable], query[stable])
    np.testing.assert_array_equal(key[unstable], key[stable])
    # decreasing keys: stable keeps the input order of ties; unstable gives the same keys
    down = sort_rows(query, key, len(sizes), counts=counts, descending=True, grouped=grouped)
    np.testing.assert_array_equal(down, _reference_order(query, -key))
    down_unstable = sort_rows(query, key, len(sizes), stable=False, counts=counts, descending=True,
                              grouped=grouped)
    np.testing.assert_array_equal(np.sort(down_unstable), np.arange(query.size))  # a permutation
    np.testing.assert_array_equal(query[down_unstable], query[down])
    np.testing.assert_array_equal(key[down_unstable], key[down])
    # the flat strategy (no counts) agrees too
    flat = sort_rows(query, key, len(sizes), stable=False, descending=True)
    np.testing.assert_array_equal(key[flat], key[down])
    np.testing.assert_array_equal(query[flat], query[down])


@pytest.mark.parametrize("ties", ["expected", "realistic", "optimistic", "pessimistic"])
def test_unstable_sort_gives_the_stable_values(ties, monkeypatch):
    rng = np.random.default_rng(1)
    qid = np.repeat(np.arange(30), rng.integers(2, 12, 30))
    y = rng.integers(0, 3, qid.size)
    s = rng.integers(0, 3, qid.size).astype(float)
    fast = evaluate(y, s, qid=qid, metrics=METRICS, ties=ties).summary
    original = ranks_module.GroupedStructure.__init__

    def always_stable(self, data, relevance_level, gain, stable=True):
        original(self, data, relevance_level, gain, stable=True)

    monkeypatch.setattr(ranks_module.GroupedStructure, "__init__", always_stable)
    slow = evaluate(y, s, qid=qid, metrics=METRICS, ties=ties).summary
    assert fast == pytest.approx(slow, rel=1e-12, abs=1e-12)


def test_label_index_chunks_and_sparse_filter_match_dense(monkeypatch):
    rng = np.random.default_rng(2)
    scores = rng.integers(0, 5, (37, 11)).astype(np.float32)
    target = rng.integers(0, 11, 37)
    mask = rng.random((37, 11)) < 0.3
    mask[np.arange(37), target] = False
    scores[mask & (rng.random((37, 11)) < 0.5)] = np.nan  # excluded entries may hold anything
    names = ["mr", "mrr", "hits@3", "amri"]
    reference = {t: evaluate(target, scores, exclude=mask, metrics=names, ties=t).summary
                 for t in ("expected", "ordinal", "pessimistic")}
    monkeypatch.setattr(ranks_module, "_CHUNK_ELEMENTS", 30)  # a few rows per chunk
    for ties, values in reference.items():
        assert evaluate(target, scores, exclude=sp.csr_matrix(mask), metrics=names, ties=ties).summary == \
            pytest.approx(values, rel=1e-12)
        assert evaluate(target, scores, exclude=mask, metrics=names, ties=ties).summary == \
            pytest.approx(values, rel=1e-12)


def test_huge_finite_scores_are_not_mistaken_for_infinite():
    scores = np.full((3, 4), 3e38, dtype=np.float32)  # their float32 sum overflows
    scores[:, 0] = 3.3e38
    ranks = compute_ranks([0, 1, 2], scores)
    np.testing.assert_array_equal(ranks.optimistic, [1, 2, 2])
    np.testing.assert_array_equal(ranks.pessimistic, [1, 4, 4])
    scores[1, 2] = np.inf
    with pytest.raises(ValueError, match="`y_score` must be finite.*row 1"):
        compute_ranks([0, 1, 2], scores)


def _ideal_dcg_loop(query, gain, n_queries, k):
    """Per-query reference: sort the gains in decreasing order, discount, cut at k."""
    out = np.zeros(n_queries)
    for q in range(n_queries):
        g = np.sort(gain[query == q])[::-1][: k if k is not None else None]
        out[q] = np.sum(g / np.log2(np.arange(g.size) + 2.0))
    return out


@pytest.mark.parametrize("kind", ["grades", "exponential", "continuous", "wide integers"])
@pytest.mark.parametrize("k", [None, 1, 3, 50])
def test_ideal_dcg_counting_and_sorting_agree_with_a_loop(kind, k):
    from sklearn_rank._kernels import ideal_dcg

    rng = np.random.default_rng(7)
    n_queries = 40
    query = rng.integers(0, n_queries - 3, 600)  # the last queries have no gain at all
    gain = {"grades": rng.integers(1, 4, 600).astype(float),
            "exponential": 2.0 ** rng.integers(1, 5, 600) - 1,
            "continuous": rng.uniform(0.1, 3.0, 600),
            "wide integers": rng.integers(1, 5000, 600).astype(float)}[kind]
    np.testing.assert_allclose(ideal_dcg(query, gain, n_queries, k), _ideal_dcg_loop(query, gain, n_queries, k),
                               rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("ties", ["expected", "realistic", "optimistic", "pessimistic", "ordinal"])
def test_untied_fast_path_matches_the_block_path(ties):
    # Untied scores skip the block search. Tying two neighbours without gain sends the same
    # input through it and changes no value, so both paths must give the same numbers.
    rng = np.random.default_rng(3)
    qid = np.repeat(np.arange(25), rng.integers(3, 15, 25))
    y = rng.integers(0, 4, qid.size) * (rng.random(qid.size) < 0.5)
    s = rng.permutation(qid.size).astype(float)
    rows = np.flatnonzero(qid == 0)
    y[rows[:2]] = 0
    s[rows[0]], s[rows[1]] = 1000.0, 999.5  # neighbours at the top of query 0, no gain
    names = ["mrr", "map", "ndcg@5", "ndcg", "auc", "rprec", "mr", "gmr", "hits@3"]
    untied = evaluate(y, s, qid=qid, metrics=names, ties=ties)
    s_tied = s.copy()
    s_tied[rows[1]] = 1000.0
    tied = evaluate(y, s_tied, qid=qid, metrics=names, ties=ties)
    assert tied.summary == pytest.approx(untied.summary, rel=1e-12, abs=1e-12)
    for name in names:
        np.testing.assert_allclose(tied.per_query[name], untied.per_query[name], rtol=1e-12, atol=1e-12)
