"""``n_jobs``: the same numbers for every value, threads used, bad values refused (issue 23)."""

import os
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
    seen = []
    real = _engine.queries_in
    monkeypatch.setattr(_engine, "queries_in", lambda data, span: seen.append(span) or real(data, span))
    _same(whole, _evaluate(y, s, qid=qid, metrics=METRICS, ties=ties))
    assert len(seen) == n >> 11


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
