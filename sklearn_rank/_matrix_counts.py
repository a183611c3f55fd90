"""The relevance matrix ranked by counting: the ranks of the gain items, never an argsort of every row.

Every metric reads the gain items (the candidates with a positive gain, the relevant ones among them)
and, for each, how many candidates of its row score higher, how many tie with it, and (ties broken by
input order) how many tie with it in an earlier column. :class:`CountedStructure` computes those counts
for a chunk of rows and gives the same per-query facts, tie blocks and ranks as
``_ranks.GroupedStructure`` does after sorting every candidate by (query, score): the kernels cannot tell
which one ranked the chunk.

The counts come from each row's values sorted a block of columns at a time (``np.sort`` of values, a
vectorised sort that leaves no index array), then one batched binary search per gain item and block;
the ordinal policy also scans the gain item's own block for the tied candidates before it. A cost model
(:func:`block_width`) picks the width: whole rows when gain items are many, narrower blocks when a few gain
items sit in long rows (cheaper to sort, a few more searches). The ordinal policy with many gain items in
float32 rows sorts float64 keys that hold the value and the column instead. Every tie policy thus costs
about one sort of values.

:func:`counted_structure` returns None whenever the chunk needs the grouped structure's handling (NaN
scores, relevance to validate, unjudged candidates, a relevant item scored -inf beside excluded
candidates, many gain items): the grouped structure then ranks it, with its checks and messages.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._counts import block_counts
from ._inputs import GroupedData
from ._ranks import GroupedStructure, relevance_masks
from ._segments import exclusive_segment_sum, segment_starts
from ._top_counts import top_counts
from ._xp import NUMPY

# Gain items of a chunk, as a share of its cells, up to which counting replaces the grouped sort: beyond,
# most candidates are gain items and the grouped structure's sort does no more work than counting.
COUNTED_SHARE = 1 / 8
# Cells of a chunk of rows ranked by counting (at most an eighth of the score matrix): its largest temporaries
# are a copy of its scores and, under the ordinal policy with many gain items, its float64 keys (two to four
# times the scores). A million cells of float32 stay in a core's cache while the gain items are searched:
# 4,000 x 20,000 with 11 gain items per row took 0.69 s in chunks of 2**20 cells, 0.87 s in chunks of 2**22.
COUNTED_CHUNK = 1 << 20
# Bits for the column in the ordinal keys: value (32 bits) and column in an integer exact in float64.
_COLUMN_BITS = 21


def counted_structure(matrix, lo, hi, relevance_level, gain, ordinal, horizon=None):
    """``(data, structure)`` of rows ``lo:hi`` of the ``_inputs.RelevanceMatrix`` ``matrix`` ranked by
    counting, or None when the grouped structure must rank them (see the module's docstring). ``ordinal``:
    count the tied candidates of earlier columns too (the ordinal policy, and ``Ranks.ordinal``).
    ``horizon``: every metric is cut within the top ``horizon`` (``_top_counts``: the items beyond it get
    stand-in places), or None."""
    if matrix.unjudged is not None:
        return None
    score = matrix.score[lo:hi]
    n_rows, n_columns = score.shape
    if not n_columns:
        return None
    exclude = None if matrix.exclude is None else matrix.exclude[lo:hi]
    if sp.issparse(matrix.rel):  # validated: finite positive stored grades, none of them excluded
        rel = matrix.rel[lo:hi]
        rows = np.repeat(np.arange(n_rows), np.diff(rel.indptr))
        columns, grade = rel.indices, rel.data
    else:
        rel = matrix.rel[lo:hi]
        if np.count_nonzero(rel) > COUNTED_SHARE * score.size:
            return None  # many gain items: the sort (decided before any other pass over the chunk)
        if not _valid_relevance(rel):
            return None  # the grouped structure reports it, with its location
        # the gain items: a positive gain has a positive grade, whatever the relevance level (one-byte
        # grades, validated non-negative, are their own mask: nonzero is positive)
        positive = rel if rel.dtype.itemsize == 1 and rel.dtype.kind in "bu" else rel > 0
        if exclude is not None and not sp.issparse(exclude):
            if (exclude & positive).any():
                return None  # an excluded relevant item: the grouped structure's error
        rows, columns = _nonzero_sparse(positive)
        del positive
        grade = rel[rows, columns]
    if rows.size > COUNTED_SHARE * score.size:
        return None
    item_score = score[rows, columns]
    if not np.isfinite(item_score).all():
        if np.isnan(item_score).any():
            return None  # NaN scores: nan_policy's checks and messages are the grouped structure's
        if ordinal and exclude is not None and np.isneginf(item_score).any():
            return None  # -inf ties with the excluded candidates' stand-ins, in no column order
    n_excluded = np.zeros(n_rows, dtype=np.intp)
    if sp.issparse(exclude):
        n_excluded = np.diff(exclude.indptr)
    elif exclude is not None:
        n_excluded = np.count_nonzero(exclude, axis=1)
    counts = None
    if horizon is not None and horizon < n_columns and score.dtype in (np.float32, np.float64):
        counts = _top(score, exclude, rows, columns, item_score, horizon, ordinal)
    if counts is None:
        counts = _sorted_counts(score, exclude, rows, columns, item_score, ordinal)
        if counts is None:
            return None  # NaN scores: nan_policy's checks and messages are the grouped structure's
        # an item scored -inf ties with the excluded candidates' stand-ins (-inf in the sorted values)
        counts = (counts[0], counts[1] - np.where(np.isneginf(item_score), n_excluded[rows], 0), counts[2])
    above, level, tied_earlier = counts
    item_score = item_score + item_score.dtype.type(0)  # -0.0 as 0.0 (they tie)
    n_candidates = n_columns - n_excluded
    present = n_candidates > 0
    if not present.any():
        return None
    # query codes of the rows with a candidate, in row order
    code = np.cumsum(present) - 1
    qid = np.arange(lo, hi)[present]
    weight = None if matrix.weight is None else matrix.weight[lo:hi][present]
    data = GroupedData(query=np.zeros(0, dtype=np.intp), score=np.zeros(0), rel=np.zeros(0), qid=qid,
                       weight=weight, grouped=True)
    grade = np.asarray(grade, dtype=np.float64)
    structure = CountedStructure(data, relevance_level, gain, code[rows], item_score, columns, grade,
                                 above.astype(np.float64), level.astype(np.float64),
                                 None if tied_earlier is None else tied_earlier.astype(np.float64),
                                 n_candidates[present])
    return data, structure


def _nonzero_sparse(mask):
    """``np.nonzero`` of a 2-D boolean array with few True cells: the cells are scanned 8 at a time (as
    64-bit words), and only the words holding a True cell are looked into."""
    flat = np.ascontiguousarray(mask).reshape(-1)
    n_words = flat.size // 8
    words = flat[:n_words * 8].view(np.uint64)
    hit = np.flatnonzero(words)
    bytes_of_hits = flat[:n_words * 8].reshape(n_words, 8)[hit]
    word, byte = np.nonzero(bytes_of_hits)
    cells = hit[word] * 8 + byte
    tail = np.flatnonzero(flat[n_words * 8:]) + n_words * 8
    cells = np.concatenate([cells, tail]) if tail.size else cells
    return np.divmod(cells, mask.shape[1])


def _valid_relevance(rel):
    """Whether the grades are finite and non-negative (else the grouped structure raises, naming the row)."""
    if rel.dtype.kind == "b" or not rel.size:
        return True
    if rel.dtype.kind == "u":
        return True
    low, high = rel.min(), rel.max()
    return bool(low >= 0) and bool(np.isfinite(high)) if rel.dtype.kind == "f" else bool(low >= 0)


def block_width(n_rows, n_columns, n_items, ordinal, dtype, keyed=True):
    """The columns sorted together (each row's values in blocks of that width), or None for the ordinal
    policy's float64 keys of whole rows (NumPy only: ``keyed``); the cheapest by a cost model measured on
    NumPy 2's vectorised sorts. Wider blocks cost more to sort (log2 of the width per value) and to scan for
    earlier ties (ordinal: the width, per gain item), narrower ones more to search (a binary search per
    block, per gain item). ``n_items``: the gain items of the ``n_rows`` rows."""
    def cost(width):
        n_blocks = -(-n_columns // width)
        search = n_items * n_blocks * (np.log2(width) + 1) * _SEARCH_STEP
        scan = n_items * width * _SCAN_CELL if ordinal else 0.0
        return n_rows * n_blocks * width * np.log2(max(width, 2)) * _SORT_STEP + search + scan

    widths = [n_columns] + [w for w in _BLOCK_WIDTHS if w < n_columns]
    best = min(widths, key=cost)
    if keyed and ordinal and dtype in (np.float32, np.float16) and n_columns < 1 << _COLUMN_BITS:
        keyed = n_rows * n_columns * (np.log2(max(n_columns, 2)) * _SORT_STEP * 2 + _KEY_CELL)
        if keyed < cost(best):
            return None
    return best


# The cost model's constants, in nanoseconds, measured on chunks of a million float32 cells (NumPy 2.4,
# x86-64 with AVX2): a sort's comparison per value (4.4 ns a value in blocks of 512, 6.2 in rows of 20,000),
# a step of the binary search per gain item and block (the tied entries after it included), a cell scanned
# for earlier ties, a float64 key built; and the block widths tried.
_SORT_STEP, _SEARCH_STEP, _SCAN_CELL, _KEY_CELL = 0.45, 13.0, 2.0, 6.0
_BLOCK_WIDTHS = (256, 512, 1024, 2048, 4096)


def _block_counts(score, exclude, rows, columns, item_score, width, ordinal):
    """``(above, level, tied_earlier)`` of each gain item (``rows``, ``columns``) of the chunk ``score``:
    the candidates of its row scored above it, level with it (itself included; -inf ties with the excluded
    candidates' stand-ins, which the caller subtracts), and under ``ordinal`` level with it in an earlier
    column (else None). Each row's values are sorted ``width`` columns at a time (the last block filled up
    with NaN, which no comparison counts), then searched once per block; or None when a score is NaN."""
    n_rows, n_columns = score.shape
    n_blocks = -(-n_columns // width)
    dtype = np.float32 if score.dtype in (np.float32, np.float16) else np.float64
    values = np.empty((n_rows, n_blocks * width), dtype=dtype)
    values[:, :n_columns] = score
    values[:, n_columns:] = np.nan
    _exclude(values[:, :n_columns], exclude)
    rows = rows.astype(np.int64, copy=False)
    columns = columns.astype(np.int64, copy=False)
    return block_counts(NUMPY, values, n_columns, width, rows, columns, item_score, ordinal)


def _sorted_counts(score, exclude, rows, columns, item_score, ordinal):
    """``(above, level, tied_earlier)`` from each row's values sorted (blocks of the cost model's width, or
    the ordinal policy's keys of whole rows), or None on a NaN score."""
    width = block_width(score.shape[0], score.shape[1], rows.size, ordinal, score.dtype)
    if width is None:  # ordinal, with many gain items: the float64 keys of value and column, whole rows
        return _keyed_counts(score, exclude, rows, columns, item_score)
    return _block_counts(score, exclude, rows, columns, item_score, width, ordinal)


def _top(score, exclude, rows, columns, item_score, horizon, ordinal):
    """``_top_counts.top_counts`` on the chunk ``score`` (the excluded cells given by position: no copy of the
    scores), or None on a NaN score (an excluded one included) or when many items are within the horizon."""
    removed = None if exclude is None else _excluded_cells(exclude)
    if np.isnan(score.max()):
        return None
    as_int = (lambda a: a.astype(np.int64, copy=False))
    return top_counts(NUMPY, score, as_int(rows), as_int(columns), item_score, horizon, ordinal,
                      None if removed is None else tuple(map(as_int, removed)))


def _exclude(values, exclude):
    """The excluded cells of ``values`` (a chunk's own copy) set to -inf, below every score: they are never
    above a gain item (``exclude``: a dense mask, a CSR array, or None)."""
    if sp.issparse(exclude):
        values[_excluded_cells(exclude)] = -np.inf
    elif exclude is not None:
        values[exclude] = -np.inf


def _excluded_cells(exclude):
    """``(rows, columns)`` of the excluded cells of a chunk (a CSR array or a dense mask), in row order."""
    if sp.issparse(exclude):
        return np.repeat(np.arange(exclude.shape[0]), np.diff(exclude.indptr)), exclude.indices
    return np.nonzero(exclude)


def _keyed_counts(score, exclude, rows, columns, item_score):
    """``(above, level, tied_earlier)`` as :func:`_block_counts` gives them under the ordinal policy, from
    whole rows of float64 keys that hold the value and the column (float32 scores); or None on a NaN."""
    n_rows, n_columns = score.shape
    values = score + score.dtype.type(0)  # a copy, with -0.0 as 0.0 (the keys are bits: they must tie)
    _exclude(values, exclude)
    if np.isnan(values).any():
        return None
    keys = _ordinal_keys(values)
    del values
    keys.sort(axis=1)
    item_key = _ordinal_keys(item_score + item_score.dtype.type(0), columns)
    value_key = np.floor(item_key / 2.0 ** _COLUMN_BITS) * 2.0 ** _COLUMN_BITS
    below_or_level = _search_rows(keys, rows, value_key + 2.0 ** _COLUMN_BITS, "left")
    above = n_columns - below_or_level
    level = below_or_level - _search_rows(keys, rows, value_key, "left")
    # the keys of tied candidates decrease with the column: the earlier ones are above the item's key
    tied_earlier = below_or_level - _search_rows(keys, rows, item_key, "right")
    return above, level, tied_earlier


def _ordinal_keys(values, columns=None):
    """float64 integers ordered as (value, then decreasing column): the value's 32 bits in the high part,
    ``2**21 - 1 - column`` in the low part (exact: below 2**53). ``columns`` None: each row's own columns."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    # order-preserving: negative floats have their bits flipped, the others their sign bit set
    keys = np.where(bits >> np.uint32(31), ~bits, bits | np.uint32(0x80000000)).astype(np.float64)
    if columns is None:
        columns = np.arange(bits.shape[-1])
    keys *= 2.0 ** _COLUMN_BITS  # in place: the keys are the largest temporary
    keys += 2.0 ** _COLUMN_BITS - 1 - columns
    return keys


def _search_rows(sorted_rows, rows, values, side):
    """``np.searchsorted(sorted_rows[row], value, side)`` for each (row, value), as one batched binary search
    (about log2(n_columns) vectorised steps over the queries, whatever the number of rows)."""
    n_columns = sorted_rows.shape[1]
    flat = sorted_rows.reshape(-1)
    base = rows.astype(np.intp) * n_columns
    low = np.zeros(rows.size, dtype=np.intp)
    high = np.full(rows.size, n_columns, dtype=np.intp)
    values = np.asarray(values, dtype=sorted_rows.dtype)
    while True:
        active = low < high
        if not active.any():
            return low
        mid = (low + high) >> 1
        at = flat[base + np.minimum(mid, n_columns - 1)]
        right = (at < values) if side == "left" else (at <= values)
        low = np.where(active & right, mid + 1, low)
        high = np.where(active & ~right, mid, high)


class CountedStructure(GroupedStructure):
    """:class:`GroupedStructure`'s records of a chunk of a relevance matrix, computed from counts.

    One entry per gain item: its query ``query``, score, column, grade, the candidates of its query
    scored ``above`` it and ``level`` with it (itself included), and under the ordinal policy those
    level with it in an earlier column (``tied_earlier``); ``counts`` holds each query's candidates. The
    items are laid out as the grouped structure lays them out (by query, decreasing score, then column:
    the order a stable sort leaves tied rows in), so its methods apply unchanged.
    """

    def __init__(self, data, relevance_level, gain, query, score, column, grade, above, level, tied_earlier,
                 counts):
        self.data, self.relevance_level, self.gain = data, relevance_level, gain
        self.stable = tied_earlier is not None
        self.counts = counts
        self.qstart = np.cumsum(counts) - counts
        order = np.lexsort((column, -score, query))
        query, grade, above, level = query[order], grade[order], above[order], level[order]
        is_rel, gains = relevance_masks(grade, relevance_level, gain)
        self.item_q = query
        self.item_rel = is_rel.astype(np.float64)
        self.item_gain = gains
        self.item_grade = grade
        # tie blocks: the items of a query with the same number of candidates above them
        new_block = segment_starts(query) | np.append(True, above[1:] != above[:-1])
        self.item_block = np.cumsum(new_block) - 1
        self.block_query = query[new_block]
        self.block_start = above[new_block]
        self.block_size = level[new_block]
        self.block_rel = np.bincount(self.item_block, weights=self.item_rel, minlength=self.block_query.size)
        self.block_gain = np.bincount(self.item_block, weights=self.item_gain, minlength=self.block_query.size)
        # the place of each item in the order of the sort: under "ordinal" the input order of the ties,
        # otherwise any order of the tied candidates (the grouped structure's unstable sort), the items first
        self.item_pos = above + (tied_earlier[order] if self.stable
                                 else exclusive_segment_sum(np.ones(query.size), self.item_block))
