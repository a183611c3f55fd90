"""Tie-aware positions and ranks.

Every layout is reduced to *blocks*: runs of tied candidates of one query
that contain at least one item with a positive gain.  A block is described by

- ``start`` (s): how many candidates of the query are ranked before it
  (fractional for the realistic policy, where tied items take mid positions),
- ``size`` (m): how many candidates are tied in it,
- ``n_rel`` (r): how many of them are relevant,
- ``gain``: the sum of their gains (for DCG).

Under ``ties="expected"`` the order inside a block is uniformly random, so the
position of the first relevant item of a block is ``s + X`` with ``X`` the
minimum of ``r`` positions drawn without replacement from ``1..m``.  Every
exact expectation of this package is taken over that distribution (McSherry &
Najork, "Computing information retrieval performance measures efficiently in
the presence of tied scores", ECIR 2008); those expectations live in
``_expectations``.  Untied policies (optimistic, pessimistic, ordinal) are
blocks of size one after a policy-specific sort; the realistic policy is
blocks of size one at fractional mid positions.
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass

import numpy as np

from ._inputs import GroupedData, nan_message
from ._segments import exclusive_segment_sum, is_nondecreasing, segment_starts
from .exceptions import InputTypeError, InputValueError

# Entries of the score matrix processed at once in the label-index layout, whole rows: the
# chunk (512 KiB of float32 scores) and its flag buffers stay in a 2 MiB CPU cache between the
# passes over them, whatever the matrix size (2**18 measured 5-10% slower on workload 2, 2**16
# no faster).
_CHUNK_ELEMENTS = 1 << 17

# Bytes of temporaries per entry of a chunk of a relevance matrix ranked as grouped rows (float64 copies
# of its scores and grades, query codes, the sort order, the tie blocks of a dense chunk, the blocks of
# a tie policy): 150-200 measured with three cells in four relevant under every policy, list metrics and
# rank statistics (issue 21); ERR's per-item records add up to 150 more.
MATRIX_ENTRY_BYTES = 200
# Entries of the smallest chunk (its temporaries a few MB): the per-chunk costs of a small matrix stay small.
MATRIX_MIN_ENTRIES = 1 << 14


def matrix_chunk_rows(n_columns, entries, score_nbytes=None):
    """Whole rows of a matrix processed at once: about ``entries`` entries (at least one row).

    With ``score_nbytes`` (the size of the score matrix), fewer when the chunk's temporaries,
    ``MATRIX_ENTRY_BYTES`` per entry, would outgrow the score matrix itself (down to
    ``MATRIX_MIN_ENTRIES`` entries): then the peak memory of a matrix processed chunk by chunk stays a
    small multiple of its scores, whatever the matrix's size and the share of relevant cells.
    """
    if score_nbytes is not None:
        entries = min(entries, max(MATRIX_MIN_ENTRIES, int(score_nbytes) // MATRIX_ENTRY_BYTES))
    return max(1, int(entries) // max(int(n_columns), 1))


@dataclass
class Blocks:
    query: np.ndarray
    start: np.ndarray
    size: np.ndarray
    n_rel: np.ndarray
    gain: np.ndarray
    # With ``unjudged=`` (bpref): unjudged candidates of the query ranked before the block, and tied
    # in it (None: none). ``grade``: the relevance grade of a one-item block (ERR), None for sums.
    unjudged_before: np.ndarray | None = None
    unjudged: np.ndarray | None = None
    grade: np.ndarray | None = None


@dataclass
class QueryStats:
    """Per-query facts independent of the tie policy."""

    n_candidates: np.ndarray      # candidates in the list (after exclusion)
    n_rel_retrieved: np.ndarray   # relevant candidates in the list
    n_relevant: np.ndarray        # relevant items, judged ones included (denominators)
    ideal_query: np.ndarray       # the positive gains of the ideal lists, per query, in any order
    ideal_gain: np.ndarray
    n_judged_nonrel: np.ndarray | None = None  # judged non-relevant items, unretrieved ones included (bpref)
    max_grade: np.ndarray | None = None        # largest relevance grade judged (ERR)


@dataclass
class Ranks:
    """Ranks of the targets, one entry per target.

    Attributes
    ----------
    optimistic, pessimistic : ndarray of float
        Rank when the target is placed before / after every candidate tied with it.
        With ``targets="first"`` the tied *relevant* candidates compete for the
        first place too (the best of them is the target).
    realistic : ndarray of float
        Mid rank, ``(optimistic + pessimistic) / 2``.
    ordinal : ndarray of float
        Rank when ties are broken by input order (first row ranks higher).
    expected : ndarray of float
        Expected rank over all orderings of tied candidates.
    num_candidates : ndarray of int
        Candidates the target was ranked against (itself included).
    tied_targets : ndarray of int
        Relevant candidates sharing the target's tie block (``1`` with
        ``targets="all"``); the exact expectations need it.
    num_relevant : ndarray of int
        Relevant candidates competing for the target's rank: the random
        baseline of the adjusted metrics is the best of that many random
        positions (``1`` with ``targets="all"`` and in the label-index layout).
    query : ndarray of int
        Index of the target's query into ``qid``.
    qid : ndarray
        Query ids.
    """

    optimistic: np.ndarray
    pessimistic: np.ndarray
    realistic: np.ndarray
    ordinal: np.ndarray
    expected: np.ndarray
    num_candidates: np.ndarray
    tied_targets: np.ndarray
    num_relevant: np.ndarray
    query: np.ndarray
    qid: np.ndarray

    def __len__(self):
        return int(self.optimistic.shape[0])

    def __repr__(self):
        if isinstance(self.realistic, np.ndarray) or not len(self):
            mean = float(np.mean(self.realistic)) if len(self) else float("nan")
        else:  # ranks of another array library (Array API dispatch): its own mean
            from ._inputs import _compat_namespace

            mean = float(_compat_namespace(self.realistic).mean(self.realistic))
        return (f"Ranks(n_targets={len(self)}, n_queries={int(self.qid.shape[0])}, "
                f"mean realistic rank={mean:.4g})")


def relevance_masks(rel, relevance_level, gain):
    is_rel = rel >= relevance_level if relevance_level is not None else rel > 0
    gains = rel if gain == "linear" else np.expm1(rel * np.log(2.0))
    return is_rel, gains


# --------------------------------------------------------------------------------------------
# Grouped layout: one sort, then segment reductions.
# --------------------------------------------------------------------------------------------
def sort_rows(query, key, n_queries, tie_key=None, stable=True, counts=None, descending=False, grouped=None):
    """Order of rows by (query, key[, tie_key]); with ``stable``, equal keys keep input order.

    ``descending`` sorts by decreasing key (the ties of an unstable sort come out in any order).
    When the queries are of similar sizes (``counts`` given), the rows are laid out as a padded
    matrix, one query per row, and each row is sorted on its own: sorting many short rows that
    fit in cache is several times faster than one long sort (and does less work, n log C
    instead of n log n). Otherwise two argsorts: the keys, then a stable sort of the query
    codes, which numpy does by radix sort for 8- and 16-bit integers. ``grouped`` tells that
    ``query`` is already nondecreasing (None: find out).
    """
    n = query.size
    if descending and (stable or tie_key is not None):
        # Reversing an ascending sort would reverse the input order of ties: negate instead.
        key, descending = -key, False
    kind = "stable" if stable else None
    if tie_key is None and counts is not None and n:
        width = int(counts.max())
        if n_queries * width <= 2 * n + 1024:
            return _sort_padded(query, key, n_queries, counts, width, kind, descending, grouped)
    if tie_key is None:
        order = np.argsort(key, kind=kind)
        if descending:
            order = order[::-1]
    else:
        order = np.lexsort((tie_key, key))
    return order[np.argsort(_small_codes(query[order], n_queries), kind="stable")]


def _small_codes(codes, n_queries):
    if n_queries <= np.iinfo(np.uint16).max:
        return codes.astype(np.uint16)
    if n_queries <= np.iinfo(np.int32).max:
        return codes.astype(np.int32)
    return codes


def _sort_padded(query, key, n_queries, counts, width, kind, descending, grouped):
    n = query.size
    qstart = (np.cumsum(counts) - counts)[:, None]
    if grouped is None:
        grouped = is_nondecreasing(query)
    perm = None if grouped else np.argsort(_small_codes(query, n_queries), kind="stable")
    if perm is None and n == n_queries * width:
        within = np.argsort(key.reshape(n_queries, width), axis=1, kind=kind)
        if descending:
            return np.add(within[:, ::-1], qstart).reshape(-1)
        within += qstart
        return within.reshape(-1)
    q = query if perm is None else query[perm]
    k = key if perm is None else key[perm]
    # Keys are never NaN (infinities are ordinary keys): NaN padding sorts after every key, a
    # descending order reads the rows backwards and takes the last ``counts`` entries of each.
    matrix = np.full((n_queries, width), np.nan)
    matrix[q, np.arange(n) - qstart[q, 0]] = k
    within = np.argsort(matrix, axis=1, kind=kind)
    if descending:
        within = within[:, ::-1]
        flat = (within + qstart)[np.arange(width) >= width - counts[:, None]]
    else:
        flat = (within + qstart)[np.arange(width) < counts[:, None]]
    return flat if perm is None else perm[flat]


class GroupedStructure:
    """The grouped rows sorted once by (query, decreasing score), and the tie blocks of their gain items.

    Only the candidates with a positive gain (relevant ones included) and the blocks that hold
    them are kept: in real data they are a small share of the rows, and every metric and rank
    is a function of them, their positions and the sizes of their blocks.
    """

    def __init__(self, data: GroupedData, relevance_level, gain, stable=True):
        # Only the ordinal policy depends on the order of tied rows: the others may sort unstably.
        self.stable = stable
        self.data = data
        self.relevance_level, self.gain = relevance_level, gain
        n_q = data.n_queries
        self.is_rel, self.gains = relevance_masks(data.rel, relevance_level, gain)
        self.counts = np.bincount(data.query, minlength=n_q)
        self.qstart = np.cumsum(self.counts) - self.counts
        grouped = data.grouped
        if grouped is None:
            grouped = is_nondecreasing(data.query)
        order = sort_rows(data.query, data.score, n_q, stable=stable, counts=self.counts, descending=True,
                          grouped=grouped)
        n = order.size
        # Rows already grouped by query keep their query codes in sorted order.
        q = data.query if grouped else data.query[order]
        sc = data.score[order]
        # Tie blocks: a new block at each change of score, and at the first row of each query.
        new = segment_starts(sc)
        new[self.qstart[self.counts > 0]] = True
        # Gain items, in sorted order.
        positive = self.is_rel if relevance_level is None else self.gains > 0
        idx = np.flatnonzero(positive[order])
        rows = order[idx]
        self.item_q = q[idx]
        self.item_pos = idx - self.qstart[self.item_q]  # 0-based position within the query
        self.item_rel = self.is_rel[rows].astype(np.float64)
        self.item_gain = self.gains[rows]
        self.item_grade = data.rel[rows]
        if data.unjudged is not None:
            unjudged_cum = self._judgement_counts(data.unjudged[order], q, new, idx)
        if new.all():
            # No ties: every gain item is a block of its own.
            self.item_block = np.arange(idx.size)
            self.block_query = self.item_q
            self.block_start = self.item_pos.astype(np.float64)
            self.block_size = np.ones(idx.size)
            self.block_rel = self.item_rel
            self.block_gain = self.item_gain
            if data.unjudged is not None:
                self.block_unjudged_before = self.item_unjudged_before
                self.block_unjudged = np.zeros(idx.size)
            return
        first = np.flatnonzero(new)  # sorted position where each tie block starts
        # The blocks of the gain items.
        block = np.searchsorted(first, idx, side="right") - 1
        new_block = segment_starts(block)
        self.item_block = np.cumsum(new_block) - 1
        kept = block[new_block]
        begin = first[kept]
        end = np.full(kept.size, n)
        following = kept + 1
        inside = following < first.size
        end[inside] = first[following[inside]]
        self.block_query = q[begin]
        self.block_start = (begin - self.qstart[self.block_query]).astype(np.float64)
        self.block_size = (end - begin).astype(np.float64)
        self.block_rel = np.bincount(self.item_block, weights=self.item_rel, minlength=kept.size)
        self.block_gain = np.bincount(self.item_block, weights=self.item_gain, minlength=kept.size)
        if data.unjudged is not None:
            self.block_unjudged_before = (unjudged_cum[begin] - unjudged_cum[self.qstart[self.block_query]]
                                          ).astype(np.float64)
            self.block_unjudged = (unjudged_cum[end] - unjudged_cum[begin]).astype(np.float64)

    def _judgement_counts(self, unjudged_sorted, q, new, idx):
        """With ``unjudged=``: the unjudged candidates ranked before each gain item, and the tie blocks
        of the judged candidates (for ``judged@k``); returns the exclusive cumulative unjudged count."""
        n = unjudged_sorted.size
        cum = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(unjudged_sorted, out=cum[1:])
        self.item_unjudged_before = (cum[idx] - cum[self.qstart[self.item_q]]).astype(np.float64)
        first = np.flatnonzero(new)
        end = np.append(first[1:], n)
        n_judged = (end - first) - (cum[end] - cum[first])
        has = n_judged > 0
        first, end = first[has], end[has]
        query = q[first]
        self.judged_tie_blocks = (query, (first - self.qstart[query]).astype(np.float64),
                                  (end - first).astype(np.float64), n_judged[has].astype(np.float64))
        if self.stable:
            judged_rows = np.flatnonzero(~unjudged_sorted)
            judged_q = q[judged_rows]
            self.judged_items = (judged_q, (judged_rows - self.qstart[judged_q]).astype(np.float64))
        return cum

    def query_stats(self):
        data = self.data
        n_q = data.n_queries
        # relevant items all have a gain: counting over the gain items is enough
        n_rel_retrieved = np.bincount(self.item_q, weights=self.item_rel, minlength=n_q)
        if data.judged_query is not None:
            judged_is_rel, judged_gains = relevance_masks(data.judged_rel, self.relevance_level, self.gain)
            n_relevant = np.bincount(data.judged_query, weights=judged_is_rel, minlength=n_q)
            # Relevant candidates that are missing from the judgements still count.
            n_relevant = np.maximum(n_relevant, n_rel_retrieved)
            iq, ig = data.judged_query, judged_gains
            keep = ig > 0
            iq, ig = iq[keep], ig[keep]
        else:
            n_relevant = n_rel_retrieved
            iq, ig = self.item_q, self.item_gain
        # bpref's N and ERR's largest grade
        n_unjudged = 0.0 if data.unjudged is None else np.bincount(data.query, weights=data.unjudged.astype(np.float64),
                                                                  minlength=n_q)
        n_judged_nonrel = self.counts - n_rel_retrieved - n_unjudged
        max_grade = np.zeros(n_q)
        np.maximum.at(max_grade, self.item_q, self.item_grade)
        if data.judged_query is not None:
            judged_nonrel = np.bincount(data.judged_query, weights=(~judged_is_rel).astype(np.float64), minlength=n_q)
            n_judged_nonrel = np.maximum(n_judged_nonrel, judged_nonrel)
            np.maximum.at(max_grade, data.judged_query, data.judged_rel)
        return QueryStats(self.counts.astype(np.float64), n_rel_retrieved, n_relevant, iq, ig,
                          n_judged_nonrel.astype(np.float64), max_grade)

    def blocks(self, ties):
        """Blocks for the binary metrics and for (n)DCG under a tie policy."""
        unjudged = self.data.unjudged is not None
        if ties == "expected":
            b = Blocks(self.block_query, self.block_start, self.block_size, self.block_rel, self.block_gain,
                       unjudged_before=self.block_unjudged_before if unjudged else None,
                       unjudged=self.block_unjudged if unjudged else None)
            return b, b
        if ties == "realistic":
            return self._realistic_blocks()
        unjudged_before = None
        if ties == "ordinal":
            if not self.stable:
                raise RuntimeError("the ordinal policy needs a structure built with stable=True")
            q, pos, rel, gain, grade = self.item_q, self.item_pos, self.item_rel, self.item_gain, self.item_grade
            if unjudged:
                unjudged_before = self.item_unjudged_before
        else:
            d = self.data
            rel_key = -d.rel if ties == "optimistic" else d.rel
            order = sort_rows(d.query, d.score, d.n_queries, tie_key=rel_key, descending=True)
            idx = np.flatnonzero(self.gains[order] > 0)
            rows = order[idx]
            q = d.query[rows]
            pos = idx - self.qstart[q]
            rel, gain, grade = self.is_rel[rows].astype(np.float64), self.gains[rows], d.rel[rows]
            if unjudged:
                cum = np.zeros(order.size + 1)
                np.cumsum(d.unjudged[order], out=cum[1:])
                unjudged_before = cum[idx] - cum[self.qstart[q]]
        b = Blocks(q, pos.astype(np.float64), np.ones(q.size), rel, gain, unjudged_before=unjudged_before,
                   grade=grade)
        return b, b

    def item_blocks(self, ties):
        """One record per gain item, with its grade (ERR): under ``"expected"`` the start and size of its
        tie block, under the other policies its own place (size 1)."""
        if ties == "expected":
            blk = self.item_block
            return Blocks(self.item_q, self.block_start[blk], self.block_size[blk], self.item_rel, self.item_gain,
                          grade=self.item_grade)
        if ties == "realistic":
            return self._realistic_blocks()[1]
        return self.blocks(ties)[1]

    def judged_blocks(self, ties):
        """Blocks of the judged candidates under ``ties`` (``n_rel`` counts them): ``_in_top`` of a block
        times ``n_rel / size`` is the number of its judged candidates in the top k. None without
        ``unjudged=`` (every candidate is judged)."""
        if self.data.unjudged is None:
            return None
        if ties == "ordinal":
            if not self.stable:
                raise RuntimeError("the ordinal policy needs a structure built with stable=True")
            q, pos = self.judged_items
            ones = np.ones(q.size)
            return Blocks(q, pos, ones, ones, np.zeros(q.size))
        q, start, size, n_judged = self.judged_tie_blocks
        if ties == "optimistic":      # judged candidates first in their tie block
            return Blocks(q, start, n_judged, n_judged, np.zeros(q.size))
        if ties == "pessimistic":     # judged candidates last
            return Blocks(q, start + size - n_judged, n_judged, n_judged, np.zeros(q.size))
        if ties == "realistic":       # judged candidates in the middle of their tie block
            return Blocks(q, start + (size - n_judged) / 2, n_judged, n_judged, np.zeros(q.size))
        return Blocks(q, start, size, n_judged, np.zeros(q.size))

    def _realistic_blocks(self):
        blk = self.item_block
        start, size = self.block_start[blk], self.block_size[blk]
        # Binary metrics: the j-th relevant item of a block sits at s + (m - r) / 2 + j.
        r = self.item_rel > 0
        j = exclusive_segment_sum(self.item_rel, blk) + 1
        rho = start + (size - self.block_rel[blk]) / 2 + j
        n_rel = int(r.sum())
        unjudged_before = None
        if self.data.unjudged is not None:  # the tied unjudged candidates split half before, half after
            unjudged_before = (self.block_unjudged_before[blk] + self.block_unjudged[blk] / 2)[r]
        binary = Blocks(self.item_q[r], rho[r] - 1, np.ones(n_rel), np.ones(n_rel), self.item_gain[r],
                        unjudged_before=unjudged_before)
        # DCG: the same rule with the gain items in place of the relevant ones. The tied items
        # without gain are split half before and half after them; the gain items keep their best
        # order, so the value stays between the optimistic and the pessimistic one.
        by_gain = np.lexsort((-self.item_gain, blk))
        j_gain = np.empty(blk.size)
        j_gain[by_gain] = exclusive_segment_sum(np.ones(blk.size), blk[by_gain]) + 1
        n_gain = np.bincount(blk, minlength=self.block_size.size)[blk]
        rho_gain = start + (size - n_gain) / 2 + j_gain
        gain_blocks = Blocks(self.item_q, rho_gain - 1, np.ones(blk.size), self.item_rel, self.item_gain,
                             grade=self.item_grade)
        return binary, gain_blocks

    def ranks(self, targets):
        data = self.data
        n_rel_q = np.bincount(self.item_q, weights=self.item_rel, minlength=data.n_queries)
        if targets == "first":
            cand = np.flatnonzero(self.block_rel > 0)
            # blocks are sorted by query: the first relevant block of each query
            _, first_of_q = np.unique(self.block_query[cand], return_index=True)
            blk = cand[first_of_q]
            query = self.block_query[blk]
            ordinal = np.full(query.size, np.nan)
            if self.stable:
                # first relevant row in input order among ties
                rel_items = np.flatnonzero(self.item_rel > 0)
                _, first_rel = np.unique(self.item_q[rel_items], return_index=True)
                ordinal = self.item_pos[rel_items[first_rel]] + 1.0
            return _make_ranks(self.block_start[blk], self.block_size[blk], self.block_rel[blk], ordinal,
                               self.counts[query].astype(np.float64), n_rel_q[query], query, data.qid)
        # targets == "all": each relevant item against the non-relevant candidates only.
        blk = self.item_block
        rel_before_block = exclusive_segment_sum(self.block_rel, self.block_query)[blk]
        nonrel_before_block = self.block_start[blk] - rel_before_block
        nonrel_in_block = self.block_size[blk] - self.block_rel[blk]
        r = self.item_rel > 0
        query = self.item_q[r]
        n_cand = (self.counts - n_rel_q)[query] + 1.0
        ones = np.ones(int(r.sum()))
        ordinal = np.full(ones.size, np.nan)
        if self.stable:
            rel_before_row = exclusive_segment_sum(self.item_rel, self.item_q)
            ordinal = (self.item_pos - rel_before_row)[r] + 1.0
        return _make_ranks(nonrel_before_block[r], nonrel_in_block[r] + 1.0, ones, ordinal, n_cand, ones,
                           query, data.qid)


def _make_ranks(s, m, r, ordinal, n_cand, num_relevant, query, qid):
    optimistic = s + 1
    pessimistic = s + m - r + 1
    return Ranks(optimistic=optimistic, pessimistic=pessimistic, realistic=(optimistic + pessimistic) / 2,
                 ordinal=np.asarray(ordinal, dtype=np.float64), expected=s + (m + 1) / (r + 1),
                 num_candidates=n_cand.astype(np.int64), tied_targets=r.astype(np.int64),
                 num_relevant=np.asarray(num_relevant).astype(np.int64), query=query.astype(np.intp), qid=qid)


# --------------------------------------------------------------------------------------------
# Label-index layout: count, never sort.
# --------------------------------------------------------------------------------------------
class _RowCounter:
    """Reusable boolean row buffers and a fast count of the True entries of each row.

    Counting is the hot loop of the label-index layout, so no boolean sum (which widens every
    element to int64). Rows of at least 256 entries are padded with zeros to whole 64-bit words
    and summed a word at a time, 8 entries in 8 byte lanes at once, in groups of at most 255
    words so that no lane overflows; ``totals`` adds the lanes up. Shorter rows are summed entry
    by entry into a narrow integer. ``words`` and ``keep_words`` view ``buffer`` and ``keep``
    (rows of not-excluded flags) as what ``count`` sums; ``keep_words`` masks ``words`` in place.
    """

    def __init__(self, n_rows, n_columns, keep=False, flag_sets=1):
        words = -(-n_columns // 8)
        self.groups = -(-words // 255) if n_columns >= 256 else 0
        self.per_group = -(-words // self.groups) if self.groups else 0
        # ``flag_sets`` sets of ``n_rows`` rows of flags, one after the other
        self.buffer, self.words = self._make(flag_sets * n_rows, n_columns)
        self.keep, self.keep_words = self._make(n_rows, n_columns) if keep else (None, None)
        # the count of a view from ``words``/``keep_words`` into rows of an accumulator
        if self.groups:
            self.count = functools.partial(np.add.reduce, axis=2)
        else:
            self.count = functools.partial(np.add.reduce, axis=1, dtype=self.accumulator(0).dtype)

    def _make(self, n_rows, n_columns):
        if not self.groups:
            data = np.zeros((n_rows, n_columns), dtype=bool)
            return data, data.view(np.uint8)
        storage = np.zeros((n_rows, self.groups * self.per_group * 8), dtype=bool)  # padding stays 0
        return storage[:, :n_columns], storage.view(np.uint64).reshape(n_rows, self.groups, self.per_group)

    def accumulator(self, n_rows):
        """Zeros to ``count`` into, one row per buffer row."""
        if self.groups:
            return np.zeros((n_rows, self.groups), dtype=np.uint64)
        return np.zeros(n_rows, dtype=np.uint16)  # rows of fewer than 256 entries

    def totals(self, counted):
        """The counts per row (int64) from rows of an accumulator."""
        if not self.groups:
            return counted.astype(np.int64)
        # byte lanes (each <= 255) to four 16-bit lanes, then their sum in the top 16 bits
        low = np.uint64(0x00FF00FF00FF00FF)
        pairs = (counted & low) + ((counted >> np.uint64(8)) & low)
        lanes = (pairs * np.uint64(0x0001000100010001)) >> np.uint64(48)
        return lanes.sum(axis=1, dtype=np.int64)


class LabelIndexStructure:
    """Counts, for each row, candidates scored above and level with the true one.

    The counts are taken chunk of rows by chunk of rows. A sparse exclusion mask is never
    made dense: the counts are taken over every candidate, then the excluded entries' share is
    subtracted, in time proportional to their number. A dense boolean mask is inverted into a
    reused buffer of kept flags, chunk by chunk, which masks the comparisons in place and
    whose count is the number of candidates. (Locating the few entries of a sparse-ish dense
    mask and subtracting them as for a sparse mask measured no faster: reading it dominates.)
    """

    def __init__(self, data, stable=True):
        self.data = data
        self.stable = stable
        score, target, exclude = data.score, data.target, data.exclude
        n_q, n_c = score.shape
        true_scores = score[np.arange(n_q), target]
        sparse = exclude is not None and hasattr(exclude, "indptr")
        dense = exclude is not None and not sparse
        step = max(1, _CHUNK_ELEMENTS // max(n_c, 1))
        # The flags of both comparisons of a chunk sit in one buffer (greater, then equal), so
        # that one masking and one count serve both.
        counter = _RowCounter(min(step, n_q), n_c, keep=dense, flag_sets=2)
        pair = np.stack([counter.accumulator(n_q), counter.accumulator(n_q)])
        counts = [pair[0], pair[1]] + ([counter.accumulator(n_q)] if dense else [])
        # A finite row sum proves the row free of NaN (NaN propagates); checked at the end. BLAS
        # sums a chunk of rows in one pass (a matrix-vector product with ones), faster than a
        # maximum and a minimum. A sum that is not finite only sends its row to the exact check:
        # it overflowed, or the row holds an infinity (an ordinary score), or +inf and -inf (NaN).
        row_sums = np.empty(n_q, dtype=score.dtype) if score.dtype.kind == "f" else None  # integers are finite
        self.equal_before = np.zeros(n_q, dtype=np.int64)
        with np.errstate(over="ignore", invalid="ignore"):
            self._count_chunks(score, true_scores, target, exclude if dense else None, step, counter, pair,
                               counts, row_sums)
        nan_rows = nan_counts = None
        if row_sums is not None:
            nan_rows, nan_counts = self._find_nan(score, row_sums, exclude, step, data.nan_policy, counter)
        self.greater = counter.totals(counts[0])
        self.equal = counter.totals(counts[1]) - 1  # the true candidate ties with itself
        self.n_candidates = counter.totals(counts[2]) if dense else np.full(n_q, n_c, dtype=np.int64)
        if sparse:
            self._subtract_excluded(score, true_scores, target, exclude)
        if nan_rows is not None:
            # nan_policy="omit": a NaN compares neither above nor level with the true score, so only
            # the candidate counts lose the NaN-scored candidates that no mask removed already.
            self.n_candidates[nan_rows] -= nan_counts

    def _count_chunks(self, score, true_scores, target, mask, step, counter, pair, counts, row_sums):
        """Candidates above, level with, and level with but before the true one, chunk by chunk;
        with a dense ``mask``, among the candidates it keeps, and how many it keeps.

        Every pass writes into the counter's buffers or into rows of the accumulators (only
        rows with ties under input order take a temporary), so a chunk costs a fixed number of
        fast passes over data already in the cache, and the mask is read once. ``pair`` holds
        the counts above and level as its two rows.
        """
        n_q, n_c = score.shape
        kept = counts[2] if mask is not None else None
        ones = np.ones(n_c, dtype=score.dtype) if row_sums is not None else None
        blas = row_sums is not None and score.dtype in (np.float32, np.float64)
        true_column = true_scores[:, None]
        cols = np.arange(n_c)
        add, matmul, count, not_, and_ = (np.add.reduce, np.matmul, counter.count, np.logical_not,
                                          np.bitwise_and)
        greater, equal = np.greater, np.equal
        word_shape = counter.words.shape[1:]
        sum_type = None if counter.groups else pair.dtype

        def views(rows):
            flags = counter.buffer[:2 * rows]
            words = counter.words[:2 * rows].reshape((2, rows) + word_shape)
            keep = keep_words = None
            if mask is not None:
                keep, keep_words = counter.keep[:rows], counter.keep_words[:rows]
            return flags[:rows], flags[rows:], words, keep, keep_words

        above, level, words, keep, keep_words = views(min(step, n_q))
        for lo in range(0, n_q, step):
            hi = lo + step
            if hi > n_q:  # the last chunk may be shorter
                hi = n_q
                above, level, words, keep, keep_words = views(hi - lo)
            block = score[lo:hi]
            true = true_column[lo:hi]
            if blas:
                matmul(block, ones, out=row_sums[lo:hi])
            elif row_sums is not None:  # float16, long double: no BLAS
                add(block, axis=1, out=row_sums[lo:hi])
            greater(block, true, out=above)
            equal(block, true, out=level)
            if mask is not None:  # kept flags, counted, then masking both comparisons at once
                not_(mask[lo:hi], out=keep)
                count(keep_words, out=kept[lo:hi])
                and_(words, keep_words, out=words)
            add(words, axis=-1, dtype=sum_type, out=pair[:, lo:hi])
            if self.stable:
                # Input order among ties matters only in rows where another candidate ties with
                # the true one: few rows, so the column comparison runs on them alone.
                tied = np.flatnonzero(counter.totals(pair[1, lo:hi]) > 1)
                if tied.size:
                    before = level[tied] & (cols < target[lo + tied, None])
                    self.equal_before[lo + tied] = before.sum(axis=1)

    def _subtract_excluded(self, score, true_scores, target, exclude):
        """Take a sparse mask's entries out of the counts taken over every candidate."""
        n_q = score.shape[0]
        rows = np.repeat(np.arange(n_q), np.diff(exclude.indptr))
        cols = exclude.indices
        values = score[rows, cols]
        level = true_scores[rows]

        def tally(flags):
            return np.bincount(rows, weights=flags, minlength=n_q).astype(np.int64)

        self.greater -= tally(values > level)
        tied = values == level
        if tied.any():
            self.equal -= tally(tied)
            if self.stable:
                self.equal_before -= tally(tied & (cols < target[rows]))
        self.n_candidates -= np.diff(exclude.indptr)

    @staticmethod
    def _find_nan(score, row_sums, exclude, step, nan_policy, counter):
        """The rows with NaN scores that no mask excludes, and how many each holds (None, None if none).

        Under nan_policy="raise" such a score is an error naming the first row; excluded
        candidates may hold any value, and infinities are ordinary scores.
        """
        sparse = exclude is not None and hasattr(exclude, "indptr")
        # Only the rows whose sums are not finite are looked at closely, ``step`` rows at a time
        # in the counter's buffers (NaN or -inf written over the filtered candidates of every row
        # is common, and then every row is looked at).
        suspects = np.flatnonzero(~np.isfinite(row_sums))
        found_rows, found_counts = [], []
        for start in range(0, suspects.size, step):
            rows = suspects[start:start + step]
            m = rows.size
            # a run of consecutive rows is a view, not a copy
            at = slice(rows[0], rows[-1] + 1) if rows[-1] - rows[0] + 1 == m else rows
            bad, words = counter.buffer[:m], counter.words[:m]
            np.isnan(score[at], out=bad)
            if sparse:
                part = exclude[rows]
                bad[np.repeat(np.arange(m), np.diff(part.indptr)), part.indices] = False
            elif exclude is not None:
                np.logical_not(exclude[at], out=counter.keep[:m])
                np.bitwise_and(words, counter.keep_words[:m], out=words)
            counted = counter.accumulator(m)
            counter.count(words, out=counted)
            per_row = counter.totals(counted)
            if not per_row.any():
                continue
            if nan_policy != "omit":
                row = int(rows[np.flatnonzero(per_row)[0]])
                raise InputValueError(nan_message(f"a NaN score in row {row}"))
            found_rows.append(rows[per_row > 0])
            found_counts.append(per_row[per_row > 0])
        if not found_rows:
            return None, None
        return np.concatenate(found_rows), np.concatenate(found_counts)

    def query_stats(self):
        n_q = self.data.n_queries
        ones = np.ones(n_q)
        n_candidates = self.n_candidates.astype(np.float64)
        return QueryStats(n_candidates, ones, ones, np.arange(n_q), ones, n_candidates - 1, ones)

    def blocks(self, ties):
        n_q = self.data.n_queries
        ones = np.ones(n_q)
        s, size = self.greater.astype(np.float64), ones
        if ties == "expected":
            size = self.equal + 1.0
        elif ties == "pessimistic":
            s = s + self.equal
        elif ties == "realistic":
            s = s + self.equal / 2
        elif ties == "ordinal":
            if not self.stable:
                raise RuntimeError("the ordinal policy needs a structure built with stable=True")
            s = s + self.equal_before
        b = Blocks(np.arange(n_q), s, size, ones, ones)
        return b, b

    def item_blocks(self, ties):
        """The true candidate as a one-item block of grade 1 (ERR)."""
        b = self.blocks(ties)[0]
        return Blocks(b.query, b.start, b.size, b.n_rel, b.gain, grade=b.n_rel)

    def judged_blocks(self, ties):
        return None  # every candidate is judged in this layout

    def ranks(self, targets):
        n_q = self.data.n_queries
        ones = np.ones(n_q)
        ordinal = self.greater + self.equal_before + 1.0 if self.stable else np.full(n_q, np.nan)
        return _make_ranks(self.greater.astype(np.float64), self.equal + 1.0, ones, ordinal,
                           self.n_candidates.astype(np.float64), ones, np.arange(n_q), self.data.qid)


# --------------------------------------------------------------------------------------------
# Array API dispatch: the matrix layouts counted and sorted in the input's namespace.
# --------------------------------------------------------------------------------------------
class NamespaceLabelIndex:
    """The label-index counts of :class:`LabelIndexStructure`, taken in the score's namespace.

    For each row, the candidates above and level with the true one (and level with it but earlier
    in the row, for the ordinal policy), among the candidates ``exclude`` keeps: comparisons of a
    chunk of whole rows at a time (``NAMESPACE_CHUNK`` entries), so that the temporaries stay bounded
    on the device whatever the matrix size; only per-row counts are kept. NaN-scored candidates that
    no mask removes are an error, or removed under ``nan_policy="omit"`` (a NaN compares neither
    above nor level); a row's sum is finite exactly when it holds neither NaN nor infinity, so
    only a matrix with a non-finite sum is read a second time.
    """

    def __init__(self, data, stable=True):
        from ._inputs import namespace_chunk, take_entries

        from ._inputs import SparseMask

        xp, score, target, mask = data.xp, data.score, data.true, data.exclude
        sparse = mask if isinstance(mask, SparseMask) else None
        mask = None if sparse is not None else mask
        self.xp, self.data, self.stable, self.sparse = xp, data, stable, sparse
        n_q, n_c = score.shape
        step = max(1, namespace_chunk(data.device) // n_c)
        columns = xp.arange(n_c, dtype=xp.int64, device=data.device)
        greater, equal, before, kept, sums = [], [], [], [], []
        for lo in range(0, n_q, step):
            hi = min(n_q, lo + step)
            block = score[lo:hi, ...]
            true = take_entries(xp, score, target[lo:hi], lo)[:, None]
            above = block > true
            level = block == true
            if mask is not None:
                keep = ~mask[lo:hi, ...]
                above = above & keep
                level = level & keep
                kept.append(xp.count_nonzero(keep, axis=1))
            greater.append(xp.count_nonzero(above, axis=1))
            equal.append(xp.count_nonzero(level, axis=1))
            if stable:
                before.append(xp.count_nonzero(level & (columns < target[lo:hi, None]), axis=1))
            sums.append(xp.sum(block, axis=1))
            if sparse is not None:
                # a sparse mask is never made dense: its entries' share is taken out of the counts
                self._subtract_excluded(block, true, target[lo:hi], lo, hi, greater, equal, before, kept)
            del above, level, block
        join = (lambda parts: xp.astype(parts[0] if len(parts) == 1 else xp.concat(parts), xp.int64))
        self.greater = join(greater)
        self.equal = join(equal) - 1  # the true candidate ties with itself
        self.equal_before = join(before) if stable else None
        self.n_candidates = (join(kept) + n_c if sparse is not None else join(kept) if mask is not None
                             else xp.full(n_q, n_c, dtype=xp.int64, device=data.device))
        row_sums = xp.concat(sums) if len(sums) > 1 else sums[0]
        if not bool(xp.all(xp.isfinite(row_sums))):
            self.n_candidates = self.n_candidates - self._nan_counts(step)

    def _subtract_excluded(self, block, true, target, lo, hi, greater, equal, before, kept):
        """Take the entries of a sparse mask in rows ``lo:hi`` out of the chunk's counts (last in each list)."""
        xp, sparse, device = self.xp, self.sparse, self.data.device
        at = sparse.entries(lo, hi)
        rows, columns = sparse.rows[at] - lo, sparse.columns[at]
        n_c = block.shape[1]
        values = xp.take(xp.reshape(block, (-1,)), rows * n_c + columns)
        level = xp.take(true[:, 0], rows)
        greater[-1] = xp.astype(greater[-1], xp.int64) - sparse.per_row(xp, values > level, lo, hi, device)
        tied = values == level
        equal[-1] = xp.astype(equal[-1], xp.int64) - sparse.per_row(xp, tied, lo, hi, device)
        if self.stable:
            earlier = tied & (columns < xp.take(target, rows))
            before[-1] = xp.astype(before[-1], xp.int64) - sparse.per_row(xp, earlier, lo, hi, device)
        kept.append(-sparse.per_row(xp, xp.ones_like(tied), lo, hi, device))

    def _nan_counts(self, step):
        """NaN-scored candidates that no mask removes, per row (an error under nan_policy="raise")."""
        from ._inputs import nan_message

        xp, data = self.xp, self.data
        counts = []
        for lo in range(0, data.n_queries, step):
            hi = min(data.n_queries, lo + step)
            block = data.score[lo:hi, ...]
            nan = xp.isnan(block)
            if data.exclude is not None and self.sparse is None:
                nan = nan & ~data.exclude[lo:hi, ...]
            per_row = xp.astype(xp.count_nonzero(nan, axis=1), xp.int64)
            if self.sparse is not None:  # the excluded entries may hold any value
                at = self.sparse.entries(lo, hi)
                flat = (self.sparse.rows[at] - lo) * block.shape[1] + self.sparse.columns[at]
                per_row = per_row - self.sparse.per_row(xp, xp.isnan(xp.take(xp.reshape(block, (-1,)), flat)), lo,
                                                        hi, data.device)
            if data.nan_policy != "omit" and bool(xp.any(per_row > 0)):
                row = lo + int(xp.nonzero(per_row > 0)[0][0])
                raise InputValueError(nan_message(f"a NaN score in row {row}"))
            counts.append(per_row)
        return counts[0] if len(counts) == 1 else xp.concat(counts)

    def point(self, ties):
        """(s, m): the true candidate after ``s`` others, in a tie block of ``m`` (float64; m = 1 but
        under ``ties="expected"``, where it is the row's tie block with the true candidate)."""
        xp = self.xp
        s = xp.astype(self.greater, xp.float64)
        ones = xp.ones_like(s)
        if ties == "expected":
            return s, xp.astype(self.equal, xp.float64) + 1.0
        if ties == "pessimistic":
            s = s + xp.astype(self.equal, xp.float64)
        elif ties == "realistic":
            s = s + xp.astype(self.equal, xp.float64) / 2
        elif ties == "ordinal":
            if not self.stable:
                raise RuntimeError("the ordinal policy needs a structure built with stable=True")
            s = s + xp.astype(self.equal_before, xp.float64)
        return s, ones

    def ranks(self, targets):
        xp, n_q = self.xp, self.data.n_queries
        s = xp.astype(self.greater, xp.float64)
        m = xp.astype(self.equal, xp.float64) + 1.0
        ones = xp.ones(n_q, dtype=xp.int64, device=self.data.device)
        ordinal = (s + xp.astype(self.equal_before, xp.float64) + 1.0 if self.stable
                   else xp.full(n_q, float("nan"), dtype=xp.float64, device=self.data.device))
        return _namespace_ranks(xp, s, m, xp.ones_like(s), ordinal, self.n_candidates, ones,
                                xp.arange(n_q, dtype=xp.int64, device=self.data.device), self.data.qid)


def _namespace_ranks(xp, s, m, r, ordinal, n_cand, num_relevant, query, qid):
    """:func:`_make_ranks` for namespace arrays (float64 ranks, int64 counts)."""
    optimistic = s + 1
    pessimistic = s + m - r + 1
    return Ranks(optimistic=optimistic, pessimistic=pessimistic, realistic=(optimistic + pessimistic) / 2,
                 ordinal=ordinal, expected=s + (m + 1) / (r + 1), num_candidates=xp.astype(n_cand, xp.int64),
                 tied_targets=xp.astype(r, xp.int64), num_relevant=xp.astype(num_relevant, xp.int64),
                 query=query, qid=qid)


class NamespaceMatrix:
    """The ranks of a relevance matrix's targets, in the score's namespace (``compute_ranks``).

    Each chunk of whole rows is sorted row by row by decreasing score (ties in input order), the
    removed candidates (``exclude``, NaN under ``nan_policy="omit"``) moved behind the kept ones
    by a second, stable sort. A tie block starts where the score changes; the start of each
    position's block is looked up among the compacted block starts, and counts of relevant
    candidates before and inside a block are differences of a row's cumulative count. The same
    quantities as :class:`GroupedStructure`'s blocks, laid out as a matrix: no segment reduction.
    Metrics of this layout are computed with NumPy only (an error under dispatch).
    """

    def __init__(self, data, relevance_level, gain, stable=True, ties=None, targets=None, families=("rank",)):
        self.xp, self.data, self.relevance_level, self.gain = data.xp, data, relevance_level, gain

    def _rows(self):
        """Chunks of rows: (lo, score, relevance grades, removed candidates), NaN checked."""
        from ._inputs import namespace_chunk, nan_message

        xp, data = self.xp, self.data
        n_q, n_c = data.score.shape
        # a sorted chunk holds about a dozen float64 and int64 matrices (orders, tie blocks, cumulative
        # counts, the blocks of a tie policy): an eighth of the label index's chunk
        step = matrix_chunk_rows(n_c, namespace_chunk(data.device) // 8)
        for lo in range(0, n_q, step):
            hi = min(n_q, lo + step)
            score = data.score[lo:hi, ...]
            rel = data.true[lo:hi, ...]
            is_rel = rel >= self.relevance_level if self.relevance_level is not None else rel > 0
            drop = xp.isnan(score)
            if data.exclude is not None:
                drop = drop & ~data.exclude[lo:hi, ...]
            if bool(xp.any(drop)):
                if data.nan_policy != "omit":
                    row = lo + int(xp.nonzero(xp.any(drop, axis=1))[0][0])
                    raise InputValueError(nan_message(f"a NaN score in row {row}"))
                if bool(xp.any(drop & is_rel)):
                    raise InputValueError(
                        "`y_score` must not be NaN for a query's own relevant candidate: "
                        "nan_policy='omit' removes NaN-scored candidates as `exclude` does. Got a NaN "
                        "score for a relevant item instead.")
            if data.exclude is not None:
                drop = drop | data.exclude[lo:hi, ...]
            yield lo, score, rel, drop

    def _sorted(self, score, drop, tie_key=None):
        """Each row's order by decreasing score (then increasing ``tie_key``, then input order), the
        removed candidates last; the number of kept candidates per row."""
        xp = self.xp
        if tie_key is None:
            order = xp.argsort(-score, axis=1, stable=True)
        else:  # two stable sorts: by the tie key, then by decreasing score
            order = xp.argsort(tie_key, axis=1, stable=True)
            by_score = xp.argsort(-xp.take_along_axis(score, order, axis=1), axis=1, stable=True)
            order = xp.take_along_axis(order, by_score, axis=1)
        behind = xp.argsort(xp.astype(xp.take_along_axis(drop, order, axis=1), xp.int8), axis=1, stable=True)
        return xp.take_along_axis(order, behind, axis=1), xp.astype(xp.count_nonzero(~drop, axis=1), xp.int64)

    def _tie_blocks(self, sc, n_keep):
        """Per sorted position: its tie block's number, start and end (the removed candidates a block)."""
        xp = self.xp
        h, n_c = sc.shape
        device = self.data.device
        position = xp.arange(n_c, dtype=xp.int64, device=device)[None, :]
        new = xp.concat([xp.ones((h, 1), dtype=xp.bool, device=device), sc[:, 1:] != sc[:, :-1]], axis=1)
        new = new | (position == n_keep[:, None])
        block = xp.cumulative_sum(xp.astype(new, xp.int64), axis=1) - 1
        starts = xp.argsort(xp.astype(~new, xp.int8), axis=1, stable=True)  # block starts first, in order
        n_blocks = xp.count_nonzero(new, axis=1)[:, None]
        start = xp.take_along_axis(starts, block, axis=1)
        following = xp.minimum(block + 1, n_c - 1)
        end = xp.where(block + 1 < n_blocks, xp.take_along_axis(starts, following, axis=1), n_c)
        return new, block, start, end, position

    def _cumulative(self, values):
        """Exclusive cumulative sums along rows, one column longer: column j sums entries before j."""
        xp = self.xp
        zero = xp.zeros((values.shape[0], 1), dtype=values.dtype, device=self.data.device)
        return xp.concat([zero, xp.cumulative_sum(values, axis=1)], axis=1)

    def _gains(self, grade):
        xp = self.xp
        return grade if self.gain == "linear" else xp.expm1(grade * math.log(2.0))

    def report(self, evaluation):
        """The RankingReport of ``evaluation``'s metrics (``_engine._evaluate_in_namespace``)."""
        from ._lists import ListKernels
        from ._rank_stats import NamespaceRankStats
        from ._registry import list_kernel

        xp, data = self.xp, self.data
        for written, spec, family in evaluation.resolved:
            if family == "list" and (spec.base == "err" or not hasattr(ListKernels, list_kernel(spec.base))):
                raise InputTypeError(
                    f"Under array_api_dispatch, {spec.name!r} of the relevance-matrix layout (2-D "
                    "`y_true`) is computed with NumPy only (the other metrics, and compute_ranks, run "
                    "in the namespace); pass NumPy arrays (for a tensor: `.cpu().numpy()`). Got metric "
                    f"{written!r} with `y_score` of type {type(data.score).__name__} instead.")
        if self.gain == "exponential" and bool(xp.any(data.true >= 1024)):
            raise InputValueError(
                "`gain='exponential'` uses 2**rel - 1, which overflows for relevance of 1024 or more; "
                "use gain='linear' for such grades. Got maximum relevance "
                f"{float(xp.max(data.true))!r} instead.")
        # a name written twice is computed once (its values are the same)
        ranked = list({written: spec for written, spec, family in evaluation.resolved if family == "rank"}.items())
        listed = list({written: spec for written, spec, family in evaluation.resolved if family == "list"}.items())
        columns, targets = {}, {}
        for lo, score, rel, drop in self._rows():
            kernels, n_rel, n_keep = self._chunk_kernels(score, rel, drop, evaluation)
            columns.setdefault("__has__", []).append(n_rel > 0)
            columns.setdefault("__present__", []).append(n_keep > 0)
            for written, spec in listed:
                columns.setdefault(written, []).append(kernels.compute(spec.base, spec.k, spec.param))
            if not ranked:
                continue
            is_rel = rel >= self.relevance_level if self.relevance_level is not None else rel > 0
            records = self._targets(score, is_rel, drop, evaluation.targets, lo)
            # per query: the query's own targets, unweighted (the weight of a query cancels in it)
            s, m, r, mid = _rank_distribution(xp, records, evaluation.ties)
            per_query = NamespaceRankStats(xp, s, m, r, mid, xp.ones_like(s), records["n_cand"],
                                           records["num_relevant"], present=records["present"])
            for written, spec in ranked:
                columns.setdefault(written, []).append(per_query.compute(spec.base, spec.k))
            for name, value in _flatten_targets(xp, records).items():
                targets.setdefault(name, []).append(value)
        joined = {name: (parts[0] if len(parts) == 1 else xp.concat(parts)) for name, parts in columns.items()}
        pooled = {}
        if ranked:
            flat = {name: (parts[0] if len(parts) == 1 else xp.concat(parts)) for name, parts in targets.items()}
            if flat["s"].shape[0]:
                weight = data.weight if data.weight is not None else xp.ones(data.n_queries, dtype=xp.float64,
                                                                             device=data.device)
                s, m, r, mid = _rank_distribution(xp, flat, evaluation.ties)
                stats = NamespaceRankStats(xp, *(v[None, :] for v in (s, m, r, mid, xp.take(weight, flat["query"]),
                                                                      flat["n_cand"], flat["num_relevant"])))
                pooled = {written: float(stats.compute(spec.base, spec.k)[0]) for written, spec in ranked}
            else:
                pooled = {written: None for written, _ in ranked}  # no target at all
        return _namespace_list_report(xp, data, joined, evaluation, pooled)

    def _chunk_kernels(self, score, rel, drop, evaluation):
        from ._lists import ListKernels

        xp, ties = self.xp, evaluation.ties
        as_float = (lambda x: xp.astype(x, xp.float64))
        order, n_keep = self._sorted(score, drop)
        sc = xp.take_along_axis(score, order, axis=1)
        grade = xp.take_along_axis(rel, order, axis=1)
        kept = xp.arange(score.shape[1], device=self.data.device)[None, :] < n_keep[:, None]
        is_rel = (grade >= self.relevance_level if self.relevance_level is not None else grade > 0) & kept
        gains = xp.where(kept, self._gains(grade), 0.0)
        positive = is_rel if self.relevance_level is None else gains > 0
        gains = xp.where(positive, gains, 0.0)
        new, block, start, end, position = self._tie_blocks(sc, n_keep)
        cum_rel = self._cumulative(as_float(is_rel))
        n_rel = cum_rel[:, -1]
        take = (lambda x, index: xp.take_along_axis(x, index, axis=1))
        rel_before = take(cum_rel, start)
        rel_in_block = take(cum_rel, end) - rel_before
        ones = xp.ones_like(gains)
        pos = as_float(position) + xp.zeros_like(gains)
        stats = dict(n_candidates=as_float(n_keep), n_relevant=n_rel, ideal=xp.sort(gains, axis=1, descending=True))
        if ties == "expected":
            cum_gain = self._cumulative(gains)
            record = new & kept
            blocks = dict(s=pos, size=xp.where(record, as_float(end - start), 1.0),
                          n_rel=xp.where(record, rel_in_block, 0.0),
                          gain=xp.where(record, take(cum_gain, end) - take(cum_gain, start), 0.0), before=rel_before)
            return ListKernels.rows(xp, blocks, blocks, stats, evaluation.ap_denominator), n_rel, n_keep
        if ties == "realistic":
            size = as_float(end - start)
            rel_rank = cum_rel[:, 1:] - rel_before  # 1-based place of a relevant candidate among its block's
            binary = dict(s=as_float(start) + (size - rel_in_block) / 2 + rel_rank - 1, size=ones,
                          n_rel=as_float(is_rel), gain=gains, before=cum_rel[:, :-1])
            # the gain items of a block by decreasing gain (ties in order), at the middle places of the block
            by_gain = xp.argsort(-gains, axis=1, stable=True)
            grouped = xp.take_along_axis(by_gain, xp.argsort(take(block, by_gain), axis=1, stable=True), axis=1)
            cum_positive = self._cumulative(as_float(positive))
            n_gain = take(cum_positive, end) - take(cum_positive, start)
            g_start, g_size, g_gain = take(as_float(start), grouped), take(size, grouped), take(gains, grouped)
            gain_rank = pos - g_start + 1
            gain_blocks = dict(s=g_start + (g_size - take(n_gain, grouped)) / 2 + gain_rank - 1, size=ones,
                               n_rel=take(as_float(is_rel), grouped), gain=g_gain, before=xp.zeros_like(gains))
            return ListKernels.rows(xp, binary, gain_blocks, stats, evaluation.ap_denominator), n_rel, n_keep
        if ties in ("optimistic", "pessimistic"):
            # relevant (higher graded) candidates first, or last, among the tied ones
            order, _ = self._sorted(score, drop, tie_key=-rel if ties == "optimistic" else rel)
            grade = xp.take_along_axis(rel, order, axis=1)
            is_rel = (grade >= self.relevance_level if self.relevance_level is not None else grade > 0) & kept
            gains = xp.where(kept, self._gains(grade), 0.0)
            positive = is_rel if self.relevance_level is None else gains > 0
            gains = xp.where(positive, gains, 0.0)
            cum_rel = self._cumulative(as_float(is_rel))
        blocks = dict(s=pos, size=ones, n_rel=as_float(is_rel), gain=gains, before=cum_rel[:, :-1])
        return ListKernels.rows(xp, blocks, blocks, stats, evaluation.ap_denominator), n_rel, n_keep

    def ranks(self, targets):
        xp = self.xp
        columns = {}
        for lo, score, rel, drop in self._rows():
            is_rel = rel >= self.relevance_level if self.relevance_level is not None else rel > 0
            for name, value in _flatten_targets(xp, self._targets(score, is_rel, drop, targets, lo)).items():
                columns.setdefault(name, []).append(value)
        joined = {name: (parts[0] if len(parts) == 1 else xp.concat(parts)) for name, parts in columns.items()}
        return _namespace_ranks(xp, joined["s"], joined["m"], joined["r"], joined["ordinal"], joined["n_cand"],
                                joined["num_relevant"], joined["query"], self.data.qid)

    def _targets(self, score, is_rel, drop, targets, lo):
        """The targets of a chunk of rows as matrices, one row per query, ``present`` marking the slots
        holding a target: one slot per query (its best-ranked relevant candidate) under
        ``targets="first"``, every sorted position (the relevant ones present) under ``"all"``."""
        xp = self.xp
        h, n_c = score.shape
        device = self.data.device
        order, n_keep = self._sorted(score, drop)
        sc = xp.take_along_axis(score, order, axis=1)
        rel = xp.astype(xp.take_along_axis(is_rel, order, axis=1), xp.int64)
        _, _, start, end, position = self._tie_blocks(sc, n_keep)
        cum_rel = self._cumulative(rel)  # cum_rel[:, j]: relevant candidates before j
        rel_before_block = xp.take_along_axis(cum_rel, start, axis=1)
        rel_in_block = xp.take_along_axis(cum_rel, end, axis=1) - rel_before_block
        n_rel = cum_rel[:, n_c]
        to_float = (lambda x: xp.astype(x, xp.float64))
        rows = xp.arange(lo, lo + h, dtype=xp.int64, device=device)[:, None]
        if targets == "all":
            # each relevant candidate against the non-relevant ones: its block without the relevant ones
            zeros = xp.zeros((h, n_c), dtype=xp.float64, device=device)
            return dict(s=to_float(start - rel_before_block), m=to_float((end - start) - rel_in_block) + 1,
                        r=zeros + 1, ordinal=to_float(position - cum_rel[:, :n_c]) + 1,
                        n_cand=zeros + to_float(n_keep - n_rel + 1)[:, None], num_relevant=zeros + 1,
                        query=rows + xp.zeros((h, n_c), dtype=xp.int64, device=device), present=rel > 0)
        # "first": the tie block of each query's best-ranked relevant candidate
        first = xp.argmax(rel, axis=1)[:, None]  # the first relevant position (ties in input order)
        at_first = (lambda x: to_float(xp.take_along_axis(x, first, axis=1)))
        return dict(s=at_first(start), m=at_first(end - start), r=at_first(rel_in_block),
                    ordinal=to_float(first) + 1, n_cand=to_float(n_keep)[:, None], num_relevant=to_float(n_rel)[:, None],
                    query=rows, present=(n_rel > 0)[:, None])


def _flatten_targets(xp, records):
    """The present targets of :meth:`NamespaceMatrix._targets`, row after row, as 1-D arrays."""
    at = xp.nonzero(xp.reshape(records["present"], (-1,)))[0]
    return {name: xp.take(xp.reshape(value, (-1,)), at) for name, value in records.items() if name != "present"}


def _rank_distribution(xp, records, ties):
    """(s, m, r, mid) of targets under ``ties``, as ``RankDistribution.from_ranks`` reads ``Ranks``."""
    optimistic = records["s"] + 1
    pessimistic = records["s"] + records["m"] - records["r"] + 1
    realistic = (optimistic + pessimistic) / 2
    if ties == "expected":
        return records["s"], records["m"], records["r"], realistic
    value = {"optimistic": optimistic, "pessimistic": pessimistic, "realistic": realistic,
             "ordinal": records["ordinal"]}[ties]
    ones = xp.ones_like(value)
    return value - 1, ones, ones, value


def _namespace_list_report(xp, data, columns, evaluation, pooled):
    """The report of per-query values in the namespace, as ``partial_report`` and ``reduce_partials``
    make it: the ``no_relevant`` policy, skipped queries, weighted means of the list metrics; the rank
    statistics' summaries are ``pooled`` (None: no target to rank)."""
    from ._inputs import ALL_EXCLUDED
    from ._report import RankingReport
    from .exceptions import UndefinedMetricWarning

    resolved, no_relevant = evaluation.resolved, evaluation.no_relevant
    present = columns["__present__"]
    if not bool(xp.any(present)):
        raise InputValueError(ALL_EXCLUDED)
    kept = xp.nonzero(present)[0]  # a query whose every candidate was removed is dropped
    pick = (lambda values: xp.take(values, kept))
    has_relevant = pick(columns["__has__"])
    qid = pick(data.qid)
    needs_relevant = any(spec.needs_relevant for _, spec, _ in resolved)
    if needs_relevant and no_relevant == "error" and not bool(xp.all(has_relevant)):
        lacking = xp.take(qid, xp.nonzero(~has_relevant)[0])
        raise InputValueError(f"Every query must have a relevant item (no_relevant='error'). Got {lacking.shape[0]} "
                              f"without one, e.g. qid {[int(lacking[i]) for i in range(min(5, lacking.shape[0]))]} "
                              "instead.")
    evaluated = has_relevant if (needs_relevant and no_relevant == "skip") else xp.ones_like(has_relevant)
    if not bool(xp.any(evaluated)):
        raise InputValueError("No query has a relevant item, so the metrics are undefined (`no_relevant='skip'`). "
                              "Got only queries without relevant items instead.")
    rows = xp.nonzero(evaluated)[0]
    weight = (xp.ones(rows.shape[0], dtype=xp.float64, device=data.device) if data.weight is None
              else xp.take(pick(data.weight), rows))
    if not float(xp.sum(weight)) > 0:
        raise InputValueError("`sample_weight` must give the evaluated queries a positive total weight. Got a total "
                              "of 0 instead.")
    summary, per_query = {}, {"qid": xp.take(qid, rows)}
    for written, spec, family in resolved:
        values = pick(columns[written])
        if family == "rank":
            value = pooled[written]
            if value is None or math.isnan(value):
                reason = ("no query has a retrieved relevant item to rank" if value is None
                          else "no query has a defined value")
                warnings.warn(f"Metric {written!r} is undefined on this input ({reason}); it is reported as NaN.",
                              UndefinedMetricWarning, stacklevel=5)
                value = float("nan")
            summary[written] = value
            per_query[written] = xp.take(values, rows)
            continue
        fill_policy = (evaluation.no_relevant_for or {}).get(spec.base, no_relevant)
        if fill_policy in ("zero", "one") and spec.needs_relevant:
            values = xp.where(has_relevant, values, 0.0 if fill_policy == "zero" else 1.0)
        values = xp.take(values, rows)
        finite = xp.isfinite(values)
        if not bool(xp.all(finite)):
            n_bad = int(xp.count_nonzero(~finite))
            if spec.base == "auc" and bool(xp.all(finite | xp.isnan(values))):
                warnings.warn(f"Metric {written!r} is undefined for {n_bad} queries without a non-relevant "
                              "candidate; they are NaN per query and left out of the mean.",
                              UndefinedMetricWarning, stacklevel=5)
            else:
                raise InputValueError(f"Metric {written!r} must be finite for every query. Got {n_bad} non-finite "
                                      "per-query values instead.")
        defined = ~xp.isnan(values)
        total = float(xp.sum(xp.where(defined, weight, 0.0)))
        value = (float(xp.sum(xp.where(defined, values, 0.0) * weight)) / total if total > 0 else float("nan"))
        if math.isnan(value):
            warnings.warn(f"Metric {written!r} is undefined on this input (no query has a defined value); it is "
                          "reported as NaN.", UndefinedMetricWarning, stacklevel=5)
        summary[written] = value
        per_query[written] = values
    n_present = int(kept.shape[0])
    return RankingReport(summary, per_query, int(rows.shape[0]), n_present - int(rows.shape[0]), evaluation.params,
                         sample_weight=None if data.weight is None else weight)
