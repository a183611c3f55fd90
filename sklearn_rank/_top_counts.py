"""Ranks of the gain items within the top ``horizon`` of their rows, by comparisons: the threshold kernel.

When every metric of an evaluation is cut at ``k <= horizon`` (``ndcg@10``, ``p@10``, ``map@10``...), a
gain item with ``horizon`` or more candidates above it adds nothing, and only the others need their counts.
:func:`top_counts` takes each row's gain items in decreasing score: the first is compared with every
candidate of its row (the candidates above it are counted; one pass over the chunk), and the rows where
fewer than ``horizon`` candidates beat it (about the hit rate of the top ``horizon``) go on to their next item,
until an item falls beyond the horizon. Each item that stays within it gets its exact counts (above, level,
earlier ties: the same as ``_counts.block_counts``); the items beyond get stand-in places, distinct, in
decreasing score, at or after the horizon and the last exact block of their row, and at or before their true
places, so that no metric cut within the horizon can tell them from their counts. A row with few gain items in
the top costs one or two comparisons per candidate, against the sort of ``block_counts``. Written once
against the array namespace ``xp``, with gathers only (no scatter).
"""

from __future__ import annotations

from ._lists import _device
from ._xp import is_numpy

# Rounds (gain items of a row taken in turn) after which the rows still within the horizon are handed to the
# sort: each round compares the remaining rows' candidates once or twice, a sort of values costs about 8 such
# passes.
MAX_ROUNDS = 6


# List metrics that read only the places before their cut-off, besides each query's counts (its candidates,
# relevant items and their grades): an item beyond the largest cut-off needs no exact place.
_TOP_ONLY = frozenset({"mrr", "map", "ndcg", "dcg", "p", "r", "f1", "hits", "numrelret", "rbp"})


def metrics_horizon(resolved):
    """The largest cut-off of the resolved metrics (``_engine.plan``) when every one is such a list metric
    with a cut-off, else None (an exact place for every gain item)."""
    cut = [spec.k for _, spec, family in resolved if family == "list" and spec.base in _TOP_ONLY and spec.k]
    return max(cut) if resolved and len(cut) == len(resolved) else None


def top_counts(xp, values, rows, columns, item_score, horizon, ordinal, removed=None):
    """``(above, level, tied_earlier)`` of each gain item, exact for those with fewer than ``horizon``
    candidates above them, stand-ins (``level`` 1, ``tied_earlier`` 0) for the others; or None when more
    than :data:`MAX_ROUNDS` items of a row are within the horizon (the sort is cheaper then).

    ``values``: the chunk's scores (n_rows, n_columns), no NaN, removed candidates at -inf (counted as level
    with an item scored -inf, as ``block_counts`` counts them) or given as ``removed``, the (rows, columns)
    of their cells in row order (int64: not counted at all, whatever their scores). ``rows``, ``columns``
    (int64) and ``item_score``: one entry per gain item, in any order. ``tied_earlier`` is None unless
    ``ordinal``.
    """
    n_rows, n_columns = values.shape
    n_items = rows.shape[0]
    int64, device = xp.int64, _device(values)
    # the items by row, then decreasing score (then column: the order of the places)
    order = xp.argsort(columns, stable=True)
    order = xp.take(order, xp.argsort(-xp.take(item_score, order), stable=True))
    order = xp.take(order, xp.argsort(xp.take(rows, order), stable=True))
    row_s, score_s, column_s = (xp.take(a, order) for a in (rows, item_score, columns))
    per_row = _row_totals(xp, row_s, n_rows)
    first = xp.cumulative_sum(per_row) - per_row
    slot = xp.arange(n_items, dtype=int64, device=device) - xp.take(first, row_s)
    if removed is not None:  # the removed cells' scores, to take their comparisons off the counts
        removed = (*removed, xp.take(xp.reshape(values, (-1,)), removed[0] * n_columns + removed[1]))
    rounds = []  # per round: (above, level, tied_earlier) of each row's item of that slot (-1: not taken)
    taking = per_row > 0
    while bool(xp.any(taking)):
        if len(rounds) == MAX_ROUNDS:
            return None
        j = len(rounds)
        at = xp.where(taking, first + j, 0)
        threshold = xp.take(score_s, at)
        above = _counts_in_rows(xp, values, taking, threshold, "above", removed=removed)
        within = taking & (above < horizon)
        level = _counts_in_rows(xp, values, within, threshold, "level", removed=removed)
        tied = None
        if ordinal:  # the earlier ties, on the rows whose item ties with another candidate
            tied = _counts_in_rows(xp, values, within & (level > 1), threshold, "earlier",
                                   xp.take(column_s, at), removed)
        rounds.append((xp.where(taking, above, -1), xp.where(within, level, 0),
                       None if tied is None else xp.where(within, tied, 0)))
        taking = within & (per_row > j + 1)
    n_rounds = len(rounds)
    if not n_rounds:
        zeros = xp.zeros_like(rows)
        return zeros, zeros, zeros if ordinal else None
    # each item's round results (rows x rounds, gathered at row * n_rounds + slot)
    cell = row_s * n_rounds + xp.minimum(slot, n_rounds - 1)
    taken = slot < n_rounds

    def per_item(index, fill):
        table = xp.reshape(xp.stack([r[index] for r in rounds], axis=1), (-1,))
        return xp.where(taken, xp.take(table, cell), fill)

    above, level = per_item(0, -1), per_item(1, 0)
    tied = per_item(2, 0) if ordinal else None
    exact = (above >= 0) & (above < horizon)
    # the stand-in places: after the horizon and the row's last exact block, in decreasing score
    end = xp.where(exact, above + level, 0)
    n_exact = _row_totals(xp, row_s, n_rows, xp.astype(exact, int64))
    last = xp.take(xp.where(n_exact > 0, first + n_exact - 1, 0), row_s)
    row_end = xp.where(xp.take(n_exact, row_s) > 0, xp.take(end, last), 0)
    stand_in = xp.maximum(row_end, horizon) + slot - xp.take(n_exact, row_s)
    above = xp.where(exact, above, stand_in)
    level = xp.where(exact, level, 1)
    tied = xp.where(exact, tied, 0) if ordinal else None
    inverse = xp.argsort(order)
    back = (lambda a: xp.take(a, inverse))
    return back(above), back(level), None if tied is None else back(tied)


def _row_totals(xp, row_s, n_rows, weights=None):
    """Per row, the items (or the sum of ``weights``) of the row-sorted ``row_s``."""
    if is_numpy(xp):
        import numpy as np

        return np.bincount(row_s, weights=weights, minlength=n_rows).astype(np.int64)
    # sorted rows: the searchsorted bounds of each row
    bounds = xp.arange(n_rows + 1, dtype=row_s.dtype, device=_device(row_s))
    edges = xp.searchsorted(row_s, bounds)
    if weights is None:
        return xp.astype(edges[1:] - edges[:-1], xp.int64)
    total = xp.cumulative_sum(weights, include_initial=True)
    return xp.astype(xp.take(total, edges[1:]) - xp.take(total, edges[:-1]), xp.int64)


def _counts_in_rows(xp, values, mask, threshold, what, column=None, removed=None):
    """Per row (0 where ``mask`` is False), the candidates scored above ``threshold`` (``what="above"``),
    level with it (``"level"``) or level with it in an earlier column than ``column`` (``"earlier"``): the
    masked rows gathered first when they are few; the ``removed`` cells (rows, columns, scores) not counted."""
    counts = _cells_in_rows(xp, values, mask, threshold, what, column)
    if removed is None:
        return counts
    rr, rc, rv = removed
    t = xp.take(threshold, rr)
    hit = (rv > t) if what == "above" else (rv == t)
    if what == "earlier":
        hit = hit & (rc < xp.take(column, rr))
    hit = hit & xp.take(mask, rr)
    return counts - _row_totals(xp, rr, values.shape[0], xp.astype(hit, xp.int64))


def _cells_in_rows(xp, values, mask, threshold, what, column):
    """:func:`_counts_in_rows` of every cell of ``values``."""
    n_rows = values.shape[0]
    picked = xp.nonzero(mask)[0]
    n_picked = picked.shape[0]
    if n_picked == 0:
        return xp.zeros_like(mask, dtype=xp.int64)
    gather = n_picked < n_rows
    sub = xp.take(values, picked, axis=0) if gather else values
    t = (xp.take(threshold, picked) if gather else threshold)[:, None]
    if what == "above":
        hit = sub > t
    else:
        hit = sub == t
        if what == "earlier":
            place = xp.arange(values.shape[1], dtype=xp.int64, device=_device(values))[None, :]
            hit = hit & (place < (xp.take(column, picked) if gather else column)[:, None])
    counts = _count_rows(xp, hit)
    if not gather:
        return counts
    position = xp.cumulative_sum(xp.astype(mask, xp.int64)) - 1
    return xp.where(mask, xp.take(counts, xp.maximum(position, 0)), 0)


def _count_rows(xp, hit):
    """The True cells of each row of the 2-D boolean ``hit``, as int64."""
    if is_numpy(xp):
        import numpy as np

        # a byte view summed into 32-bit integers: about twice as fast as count_nonzero along an axis
        return hit.view(np.uint8).sum(axis=1, dtype=np.int32).astype(np.int64)
    return xp.astype(xp.count_nonzero(hit, axis=1), xp.int64)
