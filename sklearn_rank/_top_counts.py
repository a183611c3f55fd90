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

import math

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
    taking = per_row > 0  # the rows whose item of the round (slot j) is compared
    if not bool(xp.any(taking)):
        zeros = xp.zeros_like(rows)
        return zeros, zeros, zeros if ordinal else None
    rows_of = _Gathered(xp, values, removed, taking)
    above = rows_of.spread(rows_of.count("above", rows_of.item(score_s, first, 0, per_row)), -1)
    rounds = []  # per round: (above, level, tied_earlier) of each row's item of that slot (-1: not taken)
    for j in range(MAX_ROUNDS + 1):
        within = taking & (above < horizon)
        if j == MAX_ROUNDS:
            if bool(xp.any(within)):
                return None
            break  # the items compared last are beyond the horizon: stand-ins, as the items not compared
        level = tied = xp.zeros_like(above)
        if bool(xp.any(within)):  # one gather of these rows: the item's level, then the next item's above
            rows_of = _Gathered(xp, values, removed, within)
            threshold = rows_of.item(score_s, first, j, per_row)
            level_in = rows_of.count("level", threshold)
            level = rows_of.spread(level_in, 0)
            if ordinal and bool(xp.any(level_in > 1)):  # the earlier ties, where the item ties with another
                tied = rows_of.spread(rows_of.count("earlier", threshold, rows_of.item(column_s, first, j, per_row)), 0)
        rounds.append((xp.where(taking, above, -1), level, tied))
        taking = within & (per_row > j + 1)
        if not bool(xp.any(taking)):
            break
        above = xp.where(taking, rows_of.spread(rows_of.count("above", rows_of.item(score_s, first, j + 1, per_row)),
                                                -1), -1)
    n_rounds = len(rounds)
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


class _Gathered:
    """The rows of a chunk where ``mask`` holds, gathered (or the chunk itself when every row is), with their
    removed cells renumbered to the gathered rows: their candidates compared with a value per row."""

    def __init__(self, xp, values, removed, mask):
        self.xp, self.mask = xp, mask
        self.picked = xp.nonzero(mask)[0]
        self.every = self.picked.shape[0] == values.shape[0]
        self.values = values if self.every else xp.take(values, self.picked, axis=0)
        self.position = xp.cumulative_sum(xp.astype(mask, xp.int64)) - 1
        self.removed = removed
        if removed is not None and not self.every:
            kept = xp.nonzero(xp.take(mask, removed[0]))[0]
            cells = tuple(xp.take(a, kept) for a in removed)
            self.removed = (xp.take(self.position, cells[0]), *cells[1:])

    def item(self, sorted_values, first, j, per_row):
        """Per gathered row, ``sorted_values`` of its item of slot ``j`` (rows without one: +inf, which no
        candidate is above; only the scores are asked so)."""
        xp = self.xp
        has = xp.take(per_row, self.picked) > j
        at = xp.where(has, xp.take(first, self.picked) + j, 0)
        value = xp.take(sorted_values, at)
        if not xp.isdtype(value.dtype, "real floating"):
            return value
        return xp.where(has, value, xp.full_like(value, math.inf))

    def count(self, what, threshold, column=None):
        """Per gathered row, the candidates above ``threshold`` (``"above"``), level with it (``"level"``), or
        level with it in a column before ``column`` (``"earlier"``); removed cells not counted."""
        xp, values = self.xp, self.values
        t = threshold[:, None]
        hit = (values > t) if what == "above" else (values == t)
        if what == "earlier":
            place = xp.arange(values.shape[1], dtype=xp.int64, device=_device(values))[None, :]
            hit = hit & (place < column[:, None])
        counts = _count_rows(xp, hit)
        if self.removed is None:
            return counts
        rr, rc, rv = self.removed
        t = xp.take(threshold, rr)
        hit = (rv > t) if what == "above" else (rv == t)
        if what == "earlier":
            hit = hit & (rc < xp.take(column, rr))
        return counts - _row_totals(xp, rr, values.shape[0], xp.astype(hit, xp.int64))

    def spread(self, counts, fill):
        """Per-row ``counts`` of the gathered rows as a value per row of the chunk (``fill`` elsewhere)."""
        xp = self.xp
        if self.every:
            return counts
        return xp.where(self.mask, xp.take(counts, xp.maximum(self.position, 0)), fill)


def _count_rows(xp, hit):
    """The True cells of each row of the 2-D boolean ``hit``, as int64."""
    if is_numpy(xp):
        import numpy as np

        # a byte view summed into 32-bit integers: about twice as fast as count_nonzero along an axis
        return hit.view(np.uint8).sum(axis=1, dtype=np.int32).astype(np.int64)
    return xp.astype(xp.count_nonzero(hit, axis=1), xp.int64)
