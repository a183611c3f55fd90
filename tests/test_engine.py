"""Engine paths that the oracle tests reach only by chance: sort strategies, chunking, large values."""

import numpy as np
import pytest
import scipy.sparse as sp

import sklearn_rank._label_index as label_index_module
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
    sizes = rng.integers(2, 12, 30)
    qid = np.repeat(np.arange(30), sizes)
    y = rng.integers(0, 3, qid.size)
    s = rng.integers(0, 3, qid.size).astype(float)
    y[np.cumsum(sizes) - sizes] = 0  # a non-relevant candidate in every query: auc is defined for each
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
    monkeypatch.setattr(label_index_module, "_CHUNK_ELEMENTS", 30)  # a few rows per chunk
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
    scores[1, 2] = np.nan
    with pytest.raises(ValueError, match="`y_score` must not hold NaN.*row 1"):
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
    from sklearn_rank._lists import ideal_dcg

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


# ---------------------------------------------------------------------------
# issue 11
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("metric, num_candidates, cause", [
    ("zhits@10", [3, 3], "k=10 is at least the number of candidates of every target"),
    ("ahits@3", [3, 2], "k=3 is at least the number of candidates of every target"),
    ("zhits@10", [1, 1], "every target has a single possible rank"),
    ("amri", [1, 1], "every target has a single possible rank"),
    ("zgmr", [1, 1], "every target has a single possible rank"),
])  # fmt: skip
def test_degenerate_baseline_warning_names_the_cause(metric, num_candidates, cause):
    # With k >= N a random ranking hits for sure: hits@k has no spread and the adjusted forms
    # divide by zero. That is not "a single possible rank" (item 10, the message part). The
    # rank statistics straight from the kernel; what evaluate makes of the NaN is metrics.py's.
    from sklearn_rank import UndefinedMetricWarning
    from sklearn_rank._rank_stats import RankDistribution, RankStats
    from sklearn_rank._registry import get_metric

    spec = get_metric(metric)
    ranks = [1.0, 2.0] if min(num_candidates) > 1 else [1.0, 1.0]
    stats = RankStats(RankDistribution.point(ranks), np.ones(2), np.zeros(2, dtype=np.intp), 1,
                      np.array(num_candidates), np.ones(2, dtype=np.int64))
    with pytest.warns(UndefinedMetricWarning) as record:
        value = stats.compute(spec.base, spec.k)[0]
    assert np.isnan(value)  # a random ranking scores the best value: 0 / 0
    messages = [str(w.message) for w in record]
    assert any(cause in m for m in messages), messages
    wrong = "k=" if "single" in cause else "single possible rank"
    assert not any(wrong in m for m in messages), messages


def test_degenerate_baseline_warning_names_both_causes_per_query():
    # per-query values: one query has a single candidate, the other fewer candidates than k
    from sklearn_rank import UndefinedMetricWarning

    with pytest.warns(UndefinedMetricWarning) as record:
        report = evaluate([0, 1], np.array([[0.3, 0.0, 0.0], [0.2, 0.5, 0.1]]),
                          exclude=np.array([[False, True, True], [False, False, False]]),
                          metrics=["zhits@10"])
    assert np.isnan(report.per_query["zhits@10"]).all()
    message = next(str(w.message) for w in record if str(w.message).startswith("zhits@10 is undefined"))
    assert "single possible rank" in message and "k=10 is at least" in message and "at most 3" in message


def _python_calls(fn):
    """Python and builtin function calls made while ``fn()`` runs (a count of interpreted work)."""
    import gc
    import sys

    calls = 0

    def profile(frame, event, arg):
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    gc_was_enabled = gc.isenabled()
    gc.disable()  # a collection's callbacks (hypothesis installs one) would be counted now and then
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
        if gc_was_enabled:
            gc.enable()
    return calls


@pytest.mark.parametrize("case", ["ranks", "tied targets"])
def test_geometric_means_take_no_loop_over_distinct_weights(case):
    # agmri, zgmr and gmr with tied targets used to loop over each distinct sample weight (one
    # power table per exponent): quadratic in practice (item 19). The interpreted work must not
    # depend on how many distinct weights there are: the same data with 2, 20 and 800 of them
    # makes the same calls. (Equal weights take a shortcut of their own: one exponent.)
    from sklearn_rank import evaluate_ranks

    rng = np.random.default_rng(13)
    n = 800
    if case == "ranks":
        num_candidates = rng.integers(50, 400, n)
        ranks = 1 + np.floor(num_candidates * rng.random(n))

        def run(weights):
            return evaluate_ranks(ranks, num_candidates=num_candidates, metrics=["agmri", "zgmr", "gmr"],
                                  sample_weight=weights)
    else:
        qid = np.repeat(np.arange(n), 6)
        y = (rng.random(qid.size) < 0.4).astype(int)
        y[::6], y[1::6] = 1, 0  # every query has a target and something to rank it against
        s = rng.integers(0, 3, qid.size).astype(float)  # ties everywhere

        def run(weights):
            return evaluate(y, s, qid=qid, metrics=["gmr", "agmri", "zgmr"], targets="all",
                            sample_weight=np.repeat(weights, 6))
    counts = set()
    for n_distinct in (2, 20, n):
        weights = 0.5 + rng.permutation(np.arange(n) % n_distinct) / n_distinct
        run(weights)  # warm caches
        counts.add(_python_calls(lambda: run(weights)))
    assert len(counts) == 1, counts


@pytest.mark.parametrize("stable", [False, True])
@pytest.mark.parametrize("masked", [False, True])
def test_label_index_counts_into_preallocated_buffers(monkeypatch, masked, stable):
    # Item 22: every pass of the count loop writes into buffers made once (two chunks of
    # comparison flags, above and level, with a dense mask a chunk of kept flags) or into rows of
    # per-row arrays: no temporary per chunk. The old loop built ~mask, its int64 row sums and, for input order,
    # a column comparison per chunk, each as large as the chunk.
    import tracemalloc

    from sklearn_rank._inputs import prepare

    monkeypatch.setattr(label_index_module, "_CHUNK_ELEMENTS", 1 << 18)
    rng = np.random.default_rng(17)
    n_queries, n_candidates = 650, 4000  # 65 rows (260 kB of flags) per chunk, 10 chunks
    scores = rng.random((n_queries, n_candidates), dtype=np.float32)
    target = rng.integers(0, n_candidates, n_queries)
    mask = rng.random((n_queries, n_candidates)) < 0.01
    mask[np.arange(n_queries), target] = False
    data = prepare(target, scores, exclude=mask if masked else None)
    # a first use imports modules lazily: not counted (under pytest-xdist this test may be a worker's first)
    label_index_module.LabelIndexStructure(prepare(target[:2], scores[:2], exclude=mask[:2] if masked else None),
                                     stable=stable)
    # tracemalloc also counts what other threads of the process allocate meanwhile (a worker's Spark gateway or
    # Dask cluster): the smallest of seven peaks is this call's own (three were not always enough on a busy
    # machine: a CI run saw 977 kB where the call itself takes 911 kB)
    peaks = []
    for _ in range(7):
        tracemalloc.start()
        try:
            label_index_module.LabelIndexStructure(data, stable=stable)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    peak = min(peaks)
    chunk_flags = (1 << 18) // n_candidates * n_candidates  # 4000 columns: whole 64-bit words
    per_row = 256 * n_queries  # the counts, their words, the extremes and the results
    assert peak <= (3 if masked else 2) * chunk_flags + per_row, peak


@pytest.mark.parametrize("n_columns", [1, 7, 255, 256, 257, 2040, 2041, 4089, 15000])
def test_row_counter_counts_match_a_plain_sum(n_columns):
    # The word-wise count (8 flags per 64-bit word, groups of at most 255 words per lane)
    # against a plain sum, with full rows (every lane at its limit), empty rows, random rows,
    # and the kept flags masking the buffer.
    rng = np.random.default_rng(n_columns)
    n_rows = 6
    counter = label_index_module._RowCounter(n_rows, n_columns, keep=True)
    flags = rng.random((n_rows, n_columns)) < 0.5
    flags[0] = True
    flags[1] = False
    keep = rng.random((n_rows, n_columns)) < 0.7
    keep[0] = True
    counter.buffer[...] = flags
    counter.keep[...] = keep
    counted = counter.accumulator(n_rows)
    counter.count(counter.words, out=counted)
    np.testing.assert_array_equal(counter.totals(counted), flags.sum(axis=1))
    np.bitwise_and(counter.words, counter.keep_words, out=counter.words)
    counter.count(counter.words, out=counted)
    np.testing.assert_array_equal(counter.totals(counted), (flags & keep).sum(axis=1))
    counter.count(counter.keep_words, out=counted)
    np.testing.assert_array_equal(counter.totals(counted), keep.sum(axis=1))
    np.testing.assert_array_equal(counter.buffer, flags & keep)  # no flag beyond the row


@pytest.mark.parametrize("exclude_kind", ["none", "dense", "sparse"])
def test_label_index_non_finite_scores(monkeypatch, exclude_kind):
    # Row sums that are not finite flag the rows to look at (NaN, and infinities, which are
    # ordinary scores); the error names the first row with a NaN score that is not excluded, in
    # whichever chunk it lies. Excluded cells may hold anything.
    monkeypatch.setattr(label_index_module, "_CHUNK_ELEMENTS", 40)  # 4 rows of 10 per chunk
    rng = np.random.default_rng(23)
    scores = rng.random((13, 10))
    target = np.zeros(13, dtype=int)
    mask = np.zeros((13, 10), dtype=bool)
    mask[2:, 9] = True
    for row, value in ((2, np.nan), (5, np.inf), (7, -np.inf), (11, np.nan)):
        scores[row, 9] = value  # excluded, except without a mask
    exclude = {"none": None, "dense": mask, "sparse": sp.csr_matrix(mask)}[exclude_kind]
    if exclude is None:
        with pytest.raises(ValueError, match="must not hold NaN.*row 2 instead"):
            compute_ranks(target, scores)
        return
    ranks = compute_ranks(target, scores, exclude=exclude)
    kept = np.where(mask, -np.inf, scores)
    np.testing.assert_array_equal(ranks.pessimistic, 1 + (kept > scores[:, :1]).sum(axis=1))
    np.testing.assert_array_equal(ranks.num_candidates, 10 - mask.sum(axis=1))
    for row, value in ((9, np.nan), (6, np.nan), (8, np.nan), (3, np.inf), (4, -np.inf)):
        scores[row, 4] = value  # not excluded
    with pytest.raises(ValueError, match="must not hold NaN.*row 6 instead"):
        compute_ranks(target, scores, exclude=exclude)
    scores[6, 4] = 0.5
    with pytest.raises(ValueError, match="must not hold NaN.*row 8 instead"):
        compute_ranks(target, scores, exclude=exclude)
    scores[8, 4] = 0.5
    with pytest.raises(ValueError, match="must not hold NaN.*row 9 instead"):
        compute_ranks(target, scores, exclude=exclude)
    scores[9, 4] = 0.5  # the infinities left are ordinary scores
    kept = np.where(mask, -np.inf, scores)
    np.testing.assert_array_equal(compute_ranks(target, scores, exclude=exclude).pessimistic,
                                  1 + (kept > scores[:, :1]).sum(axis=1))


def _first_true_loop(mask, seg, n):
    out = np.full(n, -1)
    for i in range(len(mask)):
        if mask[i] and out[seg[i]] < 0:
            out[seg[i]] = i
    return out


def test_first_true_per_segment_matches_a_loop():
    # Item 23: the result no longer rests on which of several writes to one index NumPy keeps.
    # NumPy happens to keep the last today, so the old code passes this check as well: it
    # guards the correctness of the new construction, it cannot show the undefined behaviour.
    from sklearn_rank._segments import first_true_per_segment as _first_true_per_segment

    rng = np.random.default_rng(19)
    for n in (1, 5, 40):
        for density in (0.0, 0.1, 0.5, 1.0):
            seg = np.sort(rng.integers(0, n, 200))  # some segments empty, the last ones maybe too
            mask = rng.random(200) < density
            np.testing.assert_array_equal(_first_true_per_segment(mask, seg, n + 3),
                                          _first_true_loop(mask, seg, n + 3))
    empty = np.zeros(0, dtype=bool)
    np.testing.assert_array_equal(_first_true_per_segment(empty, np.zeros(0, dtype=np.intp), 2), [-1, -1])


def test_segment_max_matches_a_loop():
    from sklearn_rank._segments import segment_max

    rng = np.random.default_rng(23)
    for n in (1, 5, 40):
        seg = np.sort(rng.integers(0, n, 200))  # some segments empty, the last ones maybe too
        values = rng.integers(0, 6, 200) * rng.random(200)
        expected = np.zeros(n + 3)
        for i, v in zip(seg, values):
            expected[i] = max(expected[i], v)
        np.testing.assert_array_equal(segment_max(seg, values, n + 3), expected)
    np.testing.assert_array_equal(segment_max(np.zeros(0, dtype=np.intp), np.zeros(0), 2), [0.0, 0.0])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_label_index_huge_finite_scores_whose_row_sums_overflow(dtype):
    # The finiteness check sums each row: a sum that overflows is no error, only a closer look.
    big = np.finfo(dtype).max
    scores = np.full((3, 40), big, dtype=dtype)
    scores[:, 5] = big / 2  # the true column ranks below every other candidate
    scores[1, 7] = -big
    ranks = compute_ranks([5, 5, 5], scores)
    np.testing.assert_array_equal(ranks.optimistic, [40.0, 39.0, 40.0])
    exclude = np.zeros_like(scores, dtype=bool)
    exclude[2, 9] = True
    scores[2, 9] = np.nan  # excluded: any value
    ranks = compute_ranks([5, 5, 5], scores, exclude=exclude)
    np.testing.assert_array_equal(ranks.optimistic, [40.0, 39.0, 39.0])
    scores[0, 11] = np.nan  # not excluded: refused, naming the row
    with pytest.raises(ValueError, match="row 0"):
        compute_ranks([5, 5, 5], scores, exclude=exclude)
