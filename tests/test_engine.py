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
    stable = sort_rows(query, key, len(sizes), counts=counts)
    np.testing.assert_array_equal(stable, _reference_order(query, key))
    unstable = sort_rows(query, key, len(sizes), stable=False, counts=counts)
    np.testing.assert_array_equal(query[unstable], query[stable])
    np.testing.assert_array_equal(key[unstable], key[stable])


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
