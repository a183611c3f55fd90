"""The relevance matrix of another array namespace ranked by counting: the gain items only, never an
argsort of every row.

:func:`counted_items` ranks the gain items of a chunk of rows with the counting kernel (``_counts``, the
one the NumPy relevance matrix uses) and lays them out as matrices, one row per query and one column per
gain item, in the order of their places (decreasing score, then column). :class:`CountedItems` turns them
into the blocks of each tie policy (``_lists.RowBlocks``: a column without a block adds nothing) and into
the targets of the rank statistics: the quantities ``_matrix.NamespaceMatrix`` reads from a sort of
every candidate, computed from counts.
"""

from __future__ import annotations

import math

from ._counts import block_counts
from ._inputs import gain_of
from ._lists import _device
from ._matrix_counts import COUNTED_SHARE, block_width
from ._namespace_inputs import namespace_chunk
from ._top_counts import top_counts
from ._xp import NUMPY


def counting_chunk(device):
    """Entries per chunk of rows ranked by counting on ``device``: its temporaries are a few copies of the
    scores, not the sort's dozen matrices, so four times the namespace's chunk on a CPU (a million entries,
    as the NumPy path's: they stay in cache while the gain items are searched) and a quarter of it on a GPU
    (still few kernel launches)."""
    chunk = namespace_chunk(device)
    return chunk * 4 if "cpu" in str(device).lower() else chunk // 4


def counted_items(xp, score, rel, drop, relevance_level, gain, ordinal, horizon=None):
    """:class:`CountedItems` of a chunk of rows (``score``, grades ``rel``, removed candidates ``drop``),
    or None when the sort must rank it: many gain items, or an item scored -inf beside removed candidates
    when the input order of ties is needed (``ordinal``: they tie with the removed ones' stand-ins).
    ``horizon``: every metric is cut within it (``_top_counts``: stand-in places beyond it), or None."""
    n_rows, n_columns = score.shape
    positive = (rel > 0) & ~drop
    n_items = xp.astype(xp.count_nonzero(positive, axis=1), xp.int64)
    total = int(xp.sum(n_items))
    if total == 0 or total > COUNTED_SHARE * n_rows * n_columns:
        return None
    device = _device(score)
    rows, columns = xp.nonzero(positive)
    rows, columns = xp.astype(rows, xp.int64), xp.astype(columns, xp.int64)
    dtype = xp.float32 if score.dtype == xp.float32 else xp.float64
    values = xp.where(drop, -math.inf, xp.astype(score, dtype))
    flat_cell = rows * n_columns + columns
    item_score = xp.take(xp.reshape(values, (-1,)), flat_cell)
    n_drop = xp.astype(xp.count_nonzero(drop, axis=1), xp.int64)
    if ordinal and bool(xp.any(item_score == -math.inf)) and bool(xp.any(n_drop > 0)):
        return None
    counts = None
    if horizon is not None and horizon < n_columns:
        counts = top_counts(xp, values, rows, columns, item_score, horizon, ordinal)
    if counts is None:
        width = block_width(n_rows, n_columns, total, ordinal, NUMPY.float64, keyed=False)
        n_blocks = -(-n_columns // width)
        if n_blocks * width > n_columns:
            fill = xp.full((n_rows, n_blocks * width - n_columns), math.nan, dtype=dtype, device=device)
            values = xp.concat([values, fill], axis=1)
        counts = block_counts(xp, values, n_columns, width, rows, columns, item_score, ordinal)
    if counts is None:  # NaN among the kept scores: NamespaceMatrix refused them before
        return None
    above, level, tied_earlier = counts
    # (an item scored -inf ties with the removed candidates' stand-ins; one beyond the horizon has its own place)
    level = level - xp.where((item_score == -math.inf) & (above < (horizon or n_columns + 1)), xp.take(n_drop, rows), 0)
    grade = xp.astype(xp.take(xp.reshape(rel, (-1,)), flat_cell), xp.float64)
    # one row per query, one column per gain item (in column order), then in the order of places
    k = int(xp.max(n_items))
    slot = xp.arange(k, dtype=xp.int64, device=device)[None, :]
    valid = slot < n_items[:, None]
    first = xp.cumulative_sum(n_items) - n_items
    at = xp.where(valid, first[:, None] + slot, 0)
    as_matrix = (lambda v: xp.reshape(xp.take(v, xp.reshape(at, (-1,))), (n_rows, k)))
    big = float(n_columns + 1)
    above_m = xp.where(valid, xp.astype(as_matrix(above), xp.float64), big)
    order = xp.argsort(above_m, axis=1, stable=True)
    by_place = (lambda m: xp.take_along_axis(m, order, axis=1))
    fields = dict(above=by_place(above_m), level=by_place(xp.astype(as_matrix(level), xp.float64)),
                  grade=by_place(as_matrix(grade)), valid=by_place(valid))
    if tied_earlier is not None:
        fields["tied_earlier"] = by_place(xp.astype(as_matrix(tied_earlier), xp.float64))
    n_keep = xp.astype(n_columns - n_drop, xp.float64)
    return CountedItems(xp, fields, n_keep, relevance_level, gain)


class CountedItems:
    """The gain items of a chunk of rows as matrices (one row per query, one column per item, by place):
    ``above`` (candidates scored higher), ``level`` (tied with it, itself included), ``tied_earlier``
    (tied in an earlier column), ``grade``; the columns past a row's items are not ``valid``."""

    def __init__(self, xp, fields, n_keep, relevance_level, gain):
        self.xp, self.n_keep = xp, n_keep
        self.above, self.level, self.grade, self.valid = (fields[n] for n in ("above", "level", "grade", "valid"))
        self.tied_earlier = fields.get("tied_earlier")
        n_rows, k = self.above.shape
        self.k = k
        self.device = _device(self.above)
        self.slot = xp.arange(k, dtype=xp.int64, device=self.device)[None, :]
        relevant = self.grade >= relevance_level if relevance_level is not None else self.grade > 0
        self.is_rel = xp.astype(relevant & self.valid, xp.float64)
        gains = gain_of(xp, self.grade, gain)
        self.gains = xp.where(self.valid, gains, 0.0)
        # tie blocks among the items: a new block where the candidates above change; the columns past a row's
        # items are a block of their own, after every other
        previous = xp.concat([xp.full((n_rows, 1), -1.0, dtype=xp.float64, device=self.device),
                              self.above[:, :k - 1]], axis=1)
        n_items = xp.count_nonzero(self.valid, axis=1)[:, None]
        self.block, self.start, self.end = block_bounds(xp, (self.above != previous) | (self.slot == n_items))
        self.new = self.valid & (self.start == self.slot)  # each item block's first item
        self.cum_rel = exclusive_cumulative(xp, self.is_rel, self.device)
        self.rel_before = xp.take_along_axis(self.cum_rel, self.start, axis=1)
        self.rel_in_block = xp.take_along_axis(self.cum_rel, self.end, axis=1) - self.rel_before
        self.n_relevant = self.cum_rel[:, k]

    def stats(self):
        xp = self.xp
        return dict(n_candidates=self.n_keep, n_relevant=self.n_relevant,
                    ideal=xp.sort(self.gains, axis=1, descending=True))

    def blocks(self, ties):
        """(binary, gain_blocks) of ``ties`` for ``ListKernels.rows``."""
        xp, take = self.xp, (lambda m, i: self.xp.take_along_axis(m, i, axis=1))
        ones = xp.ones_like(self.above)
        if ties == "expected":
            cum_gain = exclusive_cumulative(xp, self.gains, self.device)
            record = self.new
            gain_in_block = take(cum_gain, self.end) - take(cum_gain, self.start)
            blocks = dict(s=self.above, size=xp.where(record, self.level, 1.0),
                          n_rel=xp.where(record, self.rel_in_block, 0.0), gain=xp.where(record, gain_in_block, 0.0),
                          before=self.rel_before)
            return blocks, blocks
        if ties == "realistic":
            rel_rank = self.cum_rel[:, 1:] - self.rel_before  # 1-based place among the block's relevant items
            binary = dict(s=self.above + (self.level - self.rel_in_block) / 2 + rel_rank - 1, size=ones,
                          n_rel=self.is_rel, gain=self.gains, before=self.cum_rel[:, :self.k])
            # the items of a block by decreasing gain (ties in order), at the middle places of the block
            by_gain = xp.argsort(-self.gains, axis=1, stable=True)
            grouped = take(by_gain, xp.argsort(take(self.block, by_gain), axis=1, stable=True))
            n_gain = xp.astype(self.end - self.start, xp.float64)
            gain_rank = xp.astype(self.slot - take(self.start, grouped), xp.float64) + 1
            gain_blocks = dict(s=take(self.above, grouped) + (take(self.level, grouped) - take(n_gain, grouped)) / 2
                               + gain_rank - 1, size=ones, n_rel=take(self.is_rel, grouped),
                               gain=take(self.gains, grouped), before=xp.zeros_like(self.gains))
            return binary, gain_blocks
        if ties in ("optimistic", "pessimistic"):
            # the items of a tie block by grade (higher first, or last after the other tied candidates)
            key = -self.grade if ties == "optimistic" else self.grade
            by_key = xp.argsort(key, axis=1, stable=True)
            order = take(by_key, xp.argsort(take(self.block, by_key), axis=1, stable=True))
            offset = xp.astype(self.slot - take(self.start, order), xp.float64)
            if ties == "pessimistic":
                offset = offset + take(self.level, order) - xp.astype(take(self.end - self.start, order), xp.float64)
            place = take(self.above, order) + offset
            is_rel, gains = take(self.is_rel, order), take(self.gains, order)
        else:  # ordinal: ties in column order, the items' own order
            place, is_rel, gains = self.above + self.tied_earlier, self.is_rel, self.gains
        before = exclusive_cumulative(xp, is_rel, self.device)[:, :self.k]
        blocks = dict(s=place, size=ones, n_rel=is_rel, gain=gains, before=before)
        return blocks, blocks

    def targets(self, targets, lo):
        """The records of ``NamespaceMatrix._targets`` (one slot per query under ``"first"``, one per gain
        item under ``"all"``, ``present`` marking the relevant ones)."""
        xp = self.xp
        n_rows = self.above.shape[0]
        rows = xp.arange(lo, lo + n_rows, dtype=xp.int64, device=self.device)[:, None]
        ordinal = self.above + self.tied_earlier  # 0-based place, ties in column order
        if targets == "all":
            zeros = xp.zeros_like(self.above)
            return dict(s=self.above - self.rel_before, m=self.level - self.rel_in_block + 1, r=zeros + 1,
                        ordinal=ordinal - self.cum_rel[:, :self.k] + 1,
                        n_cand=zeros + (self.n_keep - self.n_relevant + 1)[:, None], num_relevant=zeros + 1,
                        query=rows + xp.zeros((n_rows, self.k), dtype=xp.int64, device=self.device),
                        present=self.is_rel > 0)
        first = xp.argmax(xp.astype(self.is_rel > 0, xp.int8), axis=1)[:, None]
        at_first = (lambda m: xp.take_along_axis(m, first, axis=1))
        return dict(s=at_first(self.above), m=at_first(self.level), r=at_first(self.rel_in_block),
                    ordinal=at_first(ordinal) + 1, n_cand=self.n_keep[:, None],
                    num_relevant=self.n_relevant[:, None], query=rows, present=(self.n_relevant > 0)[:, None])


def exclusive_cumulative(xp, values, device):
    """Exclusive cumulative sums along rows, one column longer: column j sums the entries before j."""
    zero = xp.zeros((values.shape[0], 1), dtype=values.dtype, device=device)
    return xp.concat([zero, xp.cumulative_sum(values, axis=1)], axis=1)


def block_bounds(xp, new):
    """Rows of entries in order, ``new`` marking the first entry of each block (column 0 always): each
    entry's block number, and its block's first column and the column past its end."""
    width = new.shape[1]
    block = xp.cumulative_sum(xp.astype(new, xp.int64), axis=1) - 1
    starts = xp.argsort(xp.astype(~new, xp.int8), axis=1, stable=True)  # block starts first, in order
    n_blocks = xp.count_nonzero(new, axis=1)[:, None]
    start = xp.take_along_axis(starts, block, axis=1)
    following = xp.minimum(block + 1, width - 1)
    end = xp.where(block + 1 < n_blocks, xp.take_along_axis(starts, following, axis=1), width)
    return block, start, end
