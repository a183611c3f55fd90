"""Ranks of a few items among many by counting, in any array namespace: the counting kernel.

A relevance matrix needs the rank of its gain items only: for each, the candidates of its row scored
above it, level with it (itself included), and, for ties broken by input order, level with it in an
earlier column. :func:`block_counts` computes them for a chunk of rows from each row's values sorted a
block of ``width`` columns at a time (``xp.sort`` of values: no index array), one branch-free binary search
per gain item and block, and, for the earlier ties, a scan of the item's own block. Written once against
the array namespace ``xp``: the NumPy relevance matrix (``_matrix_counts``) and another namespace's
(``_namespace_counts``) call the same functions.
"""

from __future__ import annotations

from ._lists import _device
from ._xp import is_numpy


def block_counts(xp, values, n_columns, width, rows, columns, item_score, ordinal):
    """``(above, level, tied_earlier)`` of each gain item, or None when a score is NaN.

    ``values``: the chunk's scores, shape (n_rows, n_blocks * width), removed candidates at -inf (they
    count as level with an item scored -inf: the caller subtracts them) and the columns beyond
    ``n_columns`` NaN (no comparison counts them). ``rows``, ``columns`` (int64) and ``item_score``: one
    entry per gain item. ``tied_earlier`` is None unless ``ordinal``. ``values`` is the caller's own copy:
    a NumPy one is sorted in place.
    """
    n_rows = values.shape[0]
    n_blocks = values.shape[1] // width
    blocks = xp.reshape(values, (n_rows * n_blocks, width))
    n_items = rows.shape[0]
    item_block = rows * n_blocks + columns // width
    within = earlier_in_block(xp, blocks, item_block, columns % width, item_score) if ordinal else None
    blocks = _sorted_rows(xp, blocks)  # NaN last: a NaN score is in the last place of its block or before the fill
    last_real = n_columns - (n_blocks - 1) * width - 1
    if bool(xp.any(xp.isnan(xp.reshape(blocks[:, width - 1], (n_rows, n_blocks))[:, :n_blocks - 1]))) or bool(
            xp.any(xp.isnan(blocks[n_blocks - 1::n_blocks, last_real]))):
        return None
    # every (gain item, block of its row): the block's values below the item's, and level with it
    block_index = xp.arange(n_blocks, dtype=rows.dtype, device=_device(rows))
    base = xp.reshape((rows * n_blocks)[:, None] + block_index[None, :], (-1,)) * width
    pair_score = xp.reshape(xp.broadcast_to(item_score[:, None], (n_items, n_blocks)), (-1,))
    flat = xp.reshape(blocks, (-1,))
    below = count_below(xp, flat, base, pair_score, width, strict=True)
    level_in_block = xp.reshape(count_level(xp, flat, base, pair_score, below, width), (n_items, n_blocks))
    below = xp.reshape(below, (n_items, n_blocks))
    level = xp.sum(level_in_block, axis=1)
    above = n_columns - xp.sum(below, axis=1) - level
    if not ordinal:
        return above, level, None
    earlier = block_index[None, :] < (columns // width)[:, None]
    tied_earlier = xp.sum(xp.where(earlier, level_in_block, 0), axis=1) + within
    return above, level, tied_earlier


def count_below(xp, flat, base, values, width, strict):
    """For each query, the entries of the sorted run ``flat[base:base + width]`` below ``value`` (``<``, or
    ``<=`` unless ``strict``): a branch-free binary search, one vectorised step per halving of the width."""
    at = base
    n = width
    while n > 1:
        half = n // 2
        probe = xp.take(flat, at + half)
        at = xp.where((probe < values) if strict else (probe <= values), at + half, at)
        n -= half
    probe = xp.take(flat, at)
    return at + xp.astype((probe < values) if strict else (probe <= values), at.dtype) - base


def count_level(xp, flat, base, values, below, width):
    """For each query, the entries of the sorted run ``flat[base:base + width]`` equal to ``value``, given the
    entries ``below`` it (the equal ones follow them): up to three counted one by one, a longer run by a
    second binary search."""
    level = xp.zeros_like(below)
    open_run = below < width
    for _ in range(3):
        at = xp.where(open_run, base + below + level, base)
        equal = open_run & (xp.take(flat, at) == values)
        level = level + xp.astype(equal, level.dtype)
        open_run = equal & (below + level < width)
    if bool(xp.any(open_run)):
        at_most = count_below(xp, flat, base, values, width, strict=False)
        level = xp.where(open_run, at_most - below, level)
    return level


def earlier_in_block(xp, blocks, item_block, offset, item_score):
    """For each gain item, the cells of its (unsorted) block before its own place ``offset`` that hold its
    score, a bounded number of items at a time."""
    width = blocks.shape[1]
    place = xp.arange(width, dtype=offset.dtype, device=_device(offset))[None, :]
    step = max(1, (1 << 20) // width)
    parts = []
    for start in range(0, item_block.shape[0], step):
        stop = min(start + step, item_block.shape[0])
        cells = xp.take(blocks, item_block[start:stop], axis=0)
        tied = (cells == item_score[start:stop, None]) & (place < offset[start:stop, None])
        parts.append(xp.astype(xp.count_nonzero(tied, axis=1), offset.dtype))
    if not parts:
        return xp.zeros_like(offset)
    return parts[0] if len(parts) == 1 else xp.concat(parts)


def _sorted_rows(xp, blocks):
    """``xp.sort(blocks, axis=1)``; NumPy sorts the caller's own array in place (no copy of the chunk)."""
    if is_numpy(xp):
        blocks.sort(axis=1)
        return blocks
    return xp.sort(blocks, axis=1)
