"""``n_jobs``: the queries of one evaluation split into parts computed on threads, joined in query order.

NumPy releases the GIL in the sorts, counts and reductions that dominate the engine, so threads share a
machine's cores without copying the input. The validated data is split into parts of whole queries
(rows of a matrix, code ranges of grouped rows; grouped rows with sorted ids are cut where the id
changes, and each part factorizes its ids and checks its values on its thread), each part gets its own
structure and per-query values, and the parts are joined in order: a query's values depend on its own
rows only, and the rank statistics pool every part's targets in one canonical order, so the numbers are
the same for every ``n_jobs``.
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
import os

import numpy as np

from ._checks import check_positive_int
from ._factorize import factorize_runs
from ._inputs import GroupedData, LabelIndexData, has_nan
from .exceptions import InputTypeError, InputValueError

# Parts per thread: a few, so that a thread that finishes early takes another part.
PARTS_PER_JOB = 4
# Grouped rows are ranked in parts of about this many rows on one thread (on n_jobs threads, of up to n_jobs
# times this on average, see _engine._n_parts): a part's sort and segment sums stay in the processor's cache
# (4 million rows: 113 ms in 16 parts against 139 ms in one, on one thread).
PART_ROWS = 1 << 18


def check_n_jobs(n_jobs):
    """The number of threads for ``n_jobs``: None is 1, -1 every core, a positive integer itself."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, (int, np.integer)) and not isinstance(n_jobs, (bool, np.bool_)) and n_jobs == -1:
        return max(1, os.cpu_count() or 1)
    if isinstance(n_jobs, (int, np.integer)) and not isinstance(n_jobs, (bool, np.bool_)) and n_jobs < -1:
        raise InputValueError(f"`n_jobs` must be None, -1 (every core) or a positive integer. Got {int(n_jobs)} "
                              "instead.")
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, (int, np.integer)):
        raise InputTypeError(f"`n_jobs` must be None, -1 (every core) or a positive integer. Got "
                             f"{type(n_jobs).__name__} {n_jobs!r} instead.")
    return check_positive_int(n_jobs, "n_jobs")


def map_in_order(function, items, n_jobs):
    """``[function(item) for item in items]``, on ``n_jobs`` threads, in the order of ``items``."""
    items = list(items)
    return list(imap_in_order(function, items, n_jobs if len(items) > 1 else 1))


def imap_in_order(function, items, n_jobs):
    """``function(item)`` for each of ``items``, yielded in order, computed on ``n_jobs`` threads of one pool
    with a few items in flight ahead of the one yielded (a slow item does not hold the others' threads, and
    the consumer's work overlaps theirs); an exception is raised where its item is yielded."""
    if n_jobs <= 1:
        for item in items:
            yield function(item)
        return
    with ThreadPoolExecutor(max_workers=n_jobs) as pool:
        pending = deque()
        for item in items:
            pending.append(pool.submit(function, item))
            if len(pending) > 2 * n_jobs:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def query_ranges(data, n_parts):
    """The ranges ``(lo, hi)`` of query codes of up to ``n_parts`` parts of the validated ``data``
    (``GroupedData`` or ``LabelIndexData``) holding whole queries, in query order; ``[None]`` for the whole
    when it cannot be split (one query, or judgements beside the rows). Cheap, so that each part is cut
    from ``data`` (:func:`queries_in`) on the thread that evaluates it."""
    n_queries = data.n_queries
    if n_parts <= 1 or n_queries < 2 or getattr(data, "judged_query", None) is not None:
        return [None]
    bounds = np.linspace(0, n_queries, min(n_parts, n_queries) + 1).astype(np.intp)
    return [(int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]


def queries_in(data, span):
    """The part of ``data`` holding the queries of codes ``span = (lo, hi)`` (None: ``data`` itself)."""
    if span is None:
        return data
    lo, hi = span
    if isinstance(data, LabelIndexData):
        return _label_index_rows(data, lo, hi)
    return _grouped_queries(data, lo, hi)


def _label_index_rows(data, lo, hi):
    exclude = data.exclude
    if exclude is not None:
        exclude = exclude[lo:hi]
    return replace(data, score=data.score[lo:hi], target=data.target[lo:hi], exclude=exclude,
                   qid=data.qid[lo:hi], weight=None if data.weight is None else data.weight[lo:hi])


def _grouped_queries(data: GroupedData, lo, hi):
    if data.grouped:  # rows sorted by query code: the part's rows are a slice (no copy)
        start, stop = np.searchsorted(data.query, [lo, hi])
        rows = slice(int(start), int(stop))
    else:
        rows = np.flatnonzero((data.query >= lo) & (data.query < hi))
    return GroupedData(query=data.query[rows] - lo, score=data.score[rows], rel=data.rel[rows], qid=data.qid[lo:hi],
                       weight=None if data.weight is None else data.weight[lo:hi], grouped=data.grouped,
                       unjudged=None if data.unjudged is None else data.unjudged[rows], rows_checked=data.rows_checked)


class NotInRuns(Exception):
    """The query ids of a part of :class:`GroupedRows` are not in increasing runs (internal: the rows are
    then factorized whole)."""


def row_ranges(rows, n_parts, decreasing=False):
    """The row ranges ``(lo, hi)`` of up to ``n_parts`` parts of ``rows`` (:class:`GroupedRows`), each cut
    where the query id changes, in order; None when the id decreases at a cut (the ids are not in
    increasing runs). A cut reads the ids from its place to the next change only. Parts of about equal
    size, or with ``decreasing`` (for threads), of decreasing size: the i-th of P cuts near
    ``n (1 - (1 - i/P)**2)``, so that the last parts are small and the threads finish together."""
    ids = rows.qid
    n = ids.shape[0]
    cuts = [0]
    for i in range(1, n_parts):
        place = int(n * (1 - (1 - i / n_parts) ** 2)) if decreasing else i * n // n_parts
        cut = _next_change(ids, max(place, cuts[-1] + 1))
        if cut >= n:
            break
        if not ids[cut - 1] < ids[cut]:
            return None
        cuts.append(cut)
    return list(zip(cuts, cuts[1:] + [n]))


def _next_change(ids, start):
    """The first row at or after ``start`` (> 0) whose id differs from the row before; ``len(ids)`` if none."""
    n, width = ids.shape[0], 1024
    while start < n:
        stop = min(n, start + width)
        changed = np.flatnonzero(ids[start:stop] != ids[start - 1:stop - 1])
        if changed.size:
            return start + int(changed[0])
        start, width = stop, width * 4
    return n


def rows_in(rows, span):
    """The GroupedData of the rows ``span = (lo, hi)`` of ``rows`` (whole queries, from
    :func:`row_ranges`), their ids factorized, their values not checked; NotInRuns when the ids are not in
    increasing runs."""
    lo, hi = span
    uniques, codes, increasing = factorize_runs(rows.qid[lo:hi])
    if not increasing:
        raise NotInRuns
    return GroupedData(query=codes, score=rows.score[lo:hi], rel=rows.rel[lo:hi], qid=uniques, weight=None,
                       grouped=True, unjudged=None if rows.unjudged is None else rows.unjudged[lo:hi],
                       rows_checked=False)


def rows_pass_checks(data):
    """Whether the rows of ``data`` (GroupedData, or a part of it) pass the checks ``prepare`` defers:
    no NaN score, and finite, non-negative relevance (float64 here): the conditions of
    ``_inputs._nan_rows`` under ``nan_policy="raise"`` (its ``has_nan``) and of
    ``_inputs._check_relevance``."""
    if data.score.size == 0:
        return True
    low, high = data.rel.min(), data.rel.max()
    return bool(np.isfinite(low) and np.isfinite(high) and low >= 0) and not has_nan(data.score)
