"""``n_jobs``: the same numbers for every value, threads used, bad values refused (issue 23)."""

import os
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import sklearn_rank as skr
from sklearn_rank import _threads

METRICS = ["mrr", "map", "ndcg@10", "err", "auc", "p@5", "mr", "gmr", "amri", "hits@3"]


def _same(a, b):
    assert a.summary == b.summary
    assert a.per_query.keys() == b.per_query.keys()
    for name in a.per_query:
        np.testing.assert_array_equal(np.asarray(a.per_query[name]), np.asarray(b.per_query[name]), err_msg=name)


@pytest.fixture
def pools(monkeypatch):
    """The thread pools opened (their max_workers)."""
    opened = []

    class Counting(_threads.ThreadPoolExecutor):
        def __init__(self, max_workers):
            opened.append(max_workers)
            super().__init__(max_workers=max_workers)

    monkeypatch.setattr(_threads, "ThreadPoolExecutor", Counting)
    return opened


def _evaluate(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined values warn alike for every n_jobs
        return skr.evaluate(*args, **kwargs)


def _rows(seed, n_queries, sorted_ids, n=20_000):
    """Graded grouped rows with tied scores: (y, score, qid, the generator for more draws)."""
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, n_queries, n)
    if sorted_ids:
        qid = np.sort(qid)
    y = rng.integers(0, 3, n) * (rng.random(n) < 0.15)
    return y, np.round(rng.random(n), 2), qid, rng


@pytest.mark.parametrize("ties", ["expected", "realistic", "ordinal"])
@pytest.mark.parametrize("sorted_ids", [True, False])
def test_grouped_rows(ties, sorted_ids, pools):
    y, s, qid, rng = _rows(1, 700, sorted_ids)
    weight = (rng.random(700) + 0.1)[qid]
    one = _evaluate(y, s, qid=qid, metrics=METRICS, ties=ties, sample_weight=weight)
    for n_jobs in (2, 3, -1):
        _same(one, _evaluate(y, s, qid=qid, metrics=METRICS, ties=ties, sample_weight=weight, n_jobs=n_jobs))
    assert 2 in pools


@pytest.mark.parametrize("ties", ["expected", "ordinal"])
@pytest.mark.parametrize("sorted_ids", [True, False])
def test_grouped_rows_in_parts_of_part_rows(ties, sorted_ids, monkeypatch):
    """Grouped rows are ranked in parts of about PART_ROWS rows on one thread too: the numbers of one part."""
    from sklearn_rank import _engine

    y, s, qid, _ = _rows(2, 900, sorted_ids)
    n = qid.size
    monkeypatch.setattr(_engine, "PART_ROWS", 1 << 40)
    whole = _evaluate(y, s, qid=qid, metrics=METRICS, ties=ties)
    monkeypatch.setattr(_engine, "PART_ROWS", 1 << 11)  # 9 parts
    seen = {"rows_in": [], "queries_in": []}
    for name in seen:  # rows cut where the sorted ids change (rows_in), else query codes of factorized rows
        real = getattr(_engine, name)
        monkeypatch.setattr(_engine, name, lambda data, span, real=real, name=name: seen[name].append(span)
                            or real(data, span))
    _same(whole, _evaluate(y, s, qid=qid, metrics=METRICS, ties=ties))
    used = seen["rows_in"] if sorted_ids else seen["queries_in"]
    assert len(used) == n >> 11
    if sorted_ids:  # about equal parts, each cut at the first change of id from its place on
        assert not seen["queries_in"]
        sizes = np.diff([0] + [hi for _, hi in used])
        assert sizes.sum() == n and (np.abs(sizes - n / len(used)) < 100).all()


@pytest.mark.parametrize("ties", ["expected", "pessimistic", "ordinal"])
@pytest.mark.parametrize("relevance", ["sparse", "dense graded"])
def test_relevance_matrix(ties, relevance, pools, monkeypatch):
    from sklearn_rank import _matrix

    monkeypatch.setattr(_matrix, "MATRIX_MIN_ENTRIES", 1)  # several chunks on this small matrix
    rng = np.random.default_rng(2)
    share = 0.03 if relevance == "sparse" else 0.8
    y = (rng.random((400, 300)) < share) * rng.integers(1, 4, (400, 300))
    s = np.round(rng.random((400, 300)), 2).astype(np.float32)
    exclude = (rng.random((400, 300)) < 0.05) & (y == 0)
    for targets, metrics in (("first", METRICS), ("all", ["mr", "mrr", "amri"])):
        one = _evaluate(y, s, metrics=metrics, ties=ties, exclude=exclude, targets=targets)
        _same(one, _evaluate(y, s, metrics=metrics, ties=ties, exclude=exclude, targets=targets, n_jobs=2))
    assert 2 in pools


def test_label_index_with_a_sparse_filter(pools):
    rng = np.random.default_rng(3)
    scores = np.round(rng.random((2000, 400)), 2)
    target = rng.integers(0, 400, 2000)
    exclude = (sp.random(2000, 400, density=0.02, random_state=0, format="csr") > 0).tolil()
    exclude[np.arange(2000), target] = False
    exclude = sp.csr_array(exclude)
    for ties in ("expected", "ordinal"):
        metrics = ["mrr", "mr", "hits@10", "amri", "ndcg@10"]
        one = _evaluate(target, scores, exclude=exclude, metrics=metrics, ties=ties)
        _same(one, _evaluate(target, scores, exclude=exclude, metrics=metrics, ties=ties, n_jobs=2))
    assert 2 in pools


def test_metric_functions_blocks_and_batches_take_n_jobs():
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(4)
    y = (rng.random((300, 50)) < 0.1) * 1
    s = rng.random((300, 50))
    for function in (skr.mean_reciprocal_rank, skr.mean_average_precision, skr.ndcg_score, skr.r_precision,
                     skr.mean_rank):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert function(y, s, n_jobs=2) == function(y, s)
    blocks = [(y[i:i + 70], s[i:i + 70]) for i in range(0, 300, 70)]
    _same(skr.evaluate_blocks(blocks, metrics=METRICS, n_jobs=2, no_relevant="zero"),
          _evaluate(y, s, metrics=METRICS, no_relevant="zero"))
    qid = np.repeat(np.arange(300), 50)
    table = pa.table({"qid": qid, "score": s.ravel(), "label": y.ravel()})
    _same(skr.evaluate_batches(table.to_batches(max_chunksize=2000), metrics=["mrr", "map"], n_jobs=2,
                               no_relevant="zero"),
          _evaluate(y.ravel(), s.ravel(), qid=qid, metrics=["mrr", "map"], no_relevant="zero"))


def test_one_job_opens_no_pool(pools):
    rng = np.random.default_rng(5)
    skr.evaluate(rng.integers(0, 2, 1000), rng.random(1000), qid=np.repeat(np.arange(100), 10), metrics=["mrr"])
    assert pools == []


@pytest.mark.parametrize("n_jobs, expected", [(None, 1), (1, 1), (3, 3), (np.int64(2), 2), (-1, os.cpu_count() or 1)])
def test_n_jobs_values(n_jobs, expected):
    assert _threads.check_n_jobs(n_jobs) == expected


@pytest.mark.parametrize("n_jobs, error, match", [
    (0, ValueError, r"`n_jobs` must be a positive integer.*Got 0 instead"),
    (-2, ValueError, r"`n_jobs` must be None, -1 \(every core\) or a positive integer\. Got -2 instead"),
    (1.5, TypeError, r"`n_jobs`.*Got float 1\.5 instead"),
    (True, TypeError, r"`n_jobs`.*Got bool True instead"),
    ("2", TypeError, r"`n_jobs`.*Got str '2' instead"),
])
def test_bad_n_jobs_is_refused(n_jobs, error, match):
    with pytest.raises(error, match=match):
        skr.evaluate([1, 0], [0.5, 0.2], metrics=["mrr"], n_jobs=n_jobs)


@pytest.mark.parametrize("n_jobs", [1, 2, 3])
def test_imap_in_order_yields_in_order_with_a_bounded_look_ahead(n_jobs):
    import threading
    import time

    started = []
    lock = threading.Lock()

    def slow_first(item):
        with lock:
            started.append(item)
        time.sleep(0.05 if item == 0 else 0.0)  # the first item finishes last
        return item * item

    results = _threads.imap_in_order(slow_first, range(20), n_jobs)
    assert next(results) == 0
    # while the first item was computed, at most 2 * n_jobs + 1 items were started (one item at a time without threads)
    assert len(started) <= (1 if n_jobs == 1 else 2 * n_jobs + 1)
    assert [0] + list(results) == [i * i for i in range(20)]


def test_imap_in_order_raises_at_the_failing_item():
    def fail_at_three(item):
        if item == 3:
            raise ValueError("item 3")
        return item

    results = _threads.imap_in_order(fail_at_three, range(10), 2)
    assert [next(results) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError, match="item 3"):
        next(results)


def _checked_rows(n_queries=400, per_query=50):
    """Grouped rows sorted by qid: (y, score, qid), qid = row // per_query."""
    rng = np.random.default_rng(7)
    n = n_queries * per_query
    return (rng.integers(0, 3, n).astype(float), np.round(rng.random(n), 2), np.arange(n) // per_query)


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("case", ["nan score", "negative relevance", "infinite relevance", "nan relevance",
                                  "early bad relevance, late nan score"])
def test_row_checks_done_by_the_parts_raise_the_error_of_the_whole_input(case, n_jobs, monkeypatch):
    """The NaN-score and relevance checks run on each part's thread (``prepare(defer_row_checks=True)``);
    a failing part raises the error the checks of the whole input raise, in their order: the count and the
    first row of every NaN score, the minimum of every relevance value, NaN scores before relevance."""
    from sklearn_rank import _engine

    monkeypatch.setattr(_engine, "PART_ROWS", 1 << 11)  # 9 parts on one thread too
    y, s, qid = _checked_rows()
    if case == "nan score":
        s[[15_000, 17_345]] = np.nan
        message = "Got 2 NaN scores, the first at row 15000 (qid 300) instead."
    elif case == "negative relevance":
        y[[12_000, 19_999]] = [-1.0, -2.5]
        message = "`y_true` must be non-negative relevance values. Got minimum -2.5 instead."
    elif case == "infinite relevance":
        y[18_000] = np.inf
        message = "`y_true` must be finite"
    elif case == "nan relevance":
        y[[100, 18_000]] = np.nan
        message = "`y_true` must be finite"
    else:  # the relevance of the first part fails, the NaN score of a later part is reported (checked first)
        y[3] = -1.0
        s[16_001] = np.nan
        message = "Got 1 NaN score, the first at row 16001 (qid 320) instead."
    with pytest.raises(skr.exceptions.InputValueError, match=re.escape(message)):
        skr.evaluate(y, s, qid=qid, metrics=["mrr", "ndcg@10"], n_jobs=n_jobs)


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("layout", ["unsorted ids", "sample_weight"])
def test_row_checks_of_rows_factorized_whole_raise_the_error_of_the_whole_input(layout, n_jobs, monkeypatch):
    """Unsorted ids and ``sample_weight`` are factorized whole before the split; the parts still check
    their values, and a failing part raises the whole input's error."""
    from sklearn_rank import _engine

    monkeypatch.setattr(_engine, "PART_ROWS", 1 << 11)
    y, s, qid = _checked_rows()
    weight = None
    if layout == "unsorted ids":
        order = np.random.default_rng(2).permutation(qid.size)
        y, s, qid = y[order], s[order], qid[order]
    else:
        weight = (qid % 7 + 1.0)
    s[[19_000, 4_321]] = np.nan
    message = f"Got 2 NaN scores, the first at row 4321 (qid {qid[4_321]}) instead."
    with pytest.raises(skr.exceptions.InputValueError, match=re.escape(message)):
        skr.evaluate(y, s, qid=qid, metrics=["mrr"], sample_weight=weight, n_jobs=n_jobs)
    y[[50, 15_000]] = [-3.0, -1.0]
    s[[19_000, 4_321]] = 0.5
    with pytest.raises(skr.exceptions.InputValueError, match=re.escape("Got minimum -3.0 instead.")):
        skr.evaluate(y, s, qid=qid, metrics=["mrr"], sample_weight=weight, n_jobs=n_jobs)


def test_row_checks_are_deferred_only_where_they_are_the_last_checks():
    """``prepare(defer_row_checks=True)`` leaves the rows unchecked only without ``exclude``, ``judged`` and
    ``nan_policy="omit"`` (where the checks change the rows or come before other checks); the engine does not
    defer with the exponential gain (whose overflow check reads the rows); ``rows_pass_checks`` holds exactly
    when the checks of a whole input pass."""
    from sklearn_rank import _engine, _inputs

    y, s, qid = _checked_rows(40, 10)
    assert isinstance(_inputs.prepare(y, s, qid=qid, defer_row_checks=True), _inputs.GroupedRows)
    assert not _inputs.prepare(y, s, qid=qid, defer_row_checks=True, sample_weight=np.ones(400)).rows_checked
    assert _inputs.prepare(y, s, qid=qid).rows_checked
    assert _inputs.prepare(y, s, qid=qid, defer_row_checks=True, exclude=np.zeros(400, bool)).rows_checked
    assert _inputs.prepare(y, s, qid=qid, defer_row_checks=True, nan_policy="omit").rows_checked
    assert _inputs.prepare(y, s, qid=qid, defer_row_checks=True, judged=(qid[::10], y[::10])).rows_checked
    assert _engine._validated(y, s, qid, None, None, None, None, "exponential", None, "raise",
                              defer_row_checks=True).rows_checked
    rng = np.random.default_rng(3)
    for _ in range(200):
        y_bad, s_bad = y.copy(), s.copy()
        for values, bad in ((y_bad, [-1.0, np.inf, -np.inf, np.nan]), (s_bad, [np.nan, np.inf, -np.inf])):
            if rng.random() < 0.3:
                values[rng.integers(0, 400)] = rng.choice(bad)
        try:
            _inputs.prepare(y_bad, s_bad, qid=qid)
            passes = True
        except skr.exceptions.InputValueError:
            passes = False
        deferred = _inputs.prepare(y_bad, s_bad, qid=qid, defer_row_checks=True).factorized()
        assert _threads.rows_pass_checks(deferred) == passes


def _id_layouts():
    """Query ids (one per row, 1,200 rows) of the layouts the row cuts meet."""
    rng = np.random.default_rng(11)
    runs = np.sort(rng.integers(0, 60, 1_200))
    yield "sorted runs", runs
    yield "a run of 1,100 rows", np.sort(np.r_[np.full(1_100, 7), rng.integers(0, 20, 100)])
    yield "string ids", np.array([f"q{v:03d}" for v in runs])
    yield "float ids", runs * 0.5 - 10
    yield "each half sorted", np.r_[runs[::2], runs[1::2]]  # increasing at most cuts, not in one part
    yield "decreasing", runs[::-1].copy()
    yield "shuffled", rng.permutation(runs)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_parts_cut_where_the_id_changes_match_a_per_query_oracle(n_jobs, monkeypatch):
    """The rows cut where the query id changes (``_threads.row_ranges``), each part's ids factorized on its
    thread, and the fallback of ids not in increasing runs: the per-query values of a slow loop over the
    queries (``oracles.query_metric``), with ties, under two policies."""
    import oracles
    from sklearn_rank import _engine

    monkeypatch.setattr(_engine, "PART_ROWS", 128)
    rng = np.random.default_rng(5)
    for layout, qid in _id_layouts():
        y = rng.integers(0, 3, qid.size) * (rng.random(qid.size) < 0.3)
        s = np.round(rng.random(qid.size), 2 if layout != "a run of 1,100 rows" else 4)  # ties
        for ties in ("pessimistic", "ordinal"):  # (the oracle's expected ties enumerate orders: too slow here)
            report = _evaluate(y, s, qid=qid, metrics=["mrr", "ndcg@5", "map"], ties=ties, n_jobs=n_jobs,
                               no_relevant="zero")
            ids = np.unique(qid)
            np.testing.assert_array_equal(report.per_query["qid"], ids, err_msg=layout)
            for i, query in enumerate(ids):
                rows = np.flatnonzero(qid == query)
                for name, metric, k in (("mrr", "rr", None), ("ndcg@5", "ndcg", 5), ("map", "ap", None)):
                    expected = oracles.query_metric(metric, s[rows].tolist(), y[rows].tolist(), ties=ties, k=k)
                    assert report.per_query[name][i] == pytest.approx(expected, abs=1e-12), (layout, ties, name)


def test_row_ranges_cut_at_changes_of_id_or_give_up_at_a_decrease():
    from sklearn_rank._inputs import GroupedRows

    def cuts(ids, n_parts):
        ids = np.asarray(ids)
        return _threads.row_ranges(GroupedRows(ids, np.zeros(ids.size), np.zeros(ids.size)), n_parts)

    assert cuts([1, 1, 2, 2, 3, 3], 3) == [(0, 2), (2, 4), (4, 6)]
    assert cuts([1, 1, 1, 1, 1, 2], 3) == [(0, 5), (5, 6)]  # a long run: fewer parts
    assert cuts([4, 4, 4, 4], 4) == [(0, 4)]
    assert cuts([5], 2) == [(0, 1)]
    assert cuts(np.r_[np.zeros(5_000), np.ones(10)], 2) == [(0, 5_000), (5_000, 5_010)]  # windows beyond 1,024
    assert cuts([1, 1, 2, 2, 1, 1], 3) is None  # the id decreases at a cut
    # for threads, parts of decreasing size: cuts near 1000 (1 - (1 - i/4)**2) = 437.5, 750, 937.5
    assert _threads.row_ranges(GroupedRows(np.arange(1_000), np.zeros(1_000), np.zeros(1_000)), 4,
                               decreasing=True) == [(0, 437), (437, 750), (750, 937), (937, 1_000)]
    assert cuts([1, 2, 1, 2, 3, 4], 2) == [(0, 3), (3, 6)]  # increasing at the cut: the part finds out
    with pytest.raises(_threads.NotInRuns):
        _threads.rows_in(GroupedRows(np.array([1, 2, 1]), np.zeros(3), np.zeros(3)), (0, 3))
