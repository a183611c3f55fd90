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

from dataclasses import dataclass

import numpy as np

from ._inputs import GroupedData, gain_of
from ._segments import exclusive_segment_sum, is_nondecreasing, segment_max, segment_starts

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
            from ._namespace_inputs import _compat_namespace

            mean = float(_compat_namespace(self.realistic).mean(self.realistic))
        return (f"Ranks(n_targets={len(self)}, n_queries={int(self.qid.shape[0])}, "
                f"mean realistic rank={mean:.4g})")


def relevance_masks(rel, relevance_level, gain):
    is_rel = rel >= relevance_level if relevance_level is not None else rel > 0
    gains = gain_of(np, rel, gain)
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
        max_grade = segment_max(self.item_q, self.item_grade, n_q)  # (the gain items are sorted by query)
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
        if ties in ("optimistic", "pessimistic") and not unjudged:
            return self._grade_ordered_blocks(ties)
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

    def _grade_ordered_blocks(self, ties):
        """The optimistic or pessimistic blocks from the tie blocks, without a second sort: the gain items of a
        tie block by grade, the higher first (optimistic: before the tied candidates without gain) or the
        lower first (pessimistic: after them); equal grades in item order (interchangeable: same gain)."""
        key = -self.item_grade if ties == "optimistic" else self.item_grade
        order = np.lexsort((np.arange(key.size), key, self.item_block))
        rank_in_block = np.empty(key.size)
        rank_in_block[order] = exclusive_segment_sum(np.ones(key.size), self.item_block[order])
        n_items = np.bincount(self.item_block, minlength=self.block_query.size)[self.item_block]
        start = self.block_start[self.item_block]
        if ties == "pessimistic":
            start = start + self.block_size[self.item_block] - n_items
        pos = start + rank_in_block
        by_place = np.lexsort((pos, self.item_q))
        q = self.item_q[by_place]
        b = Blocks(q, pos[by_place], np.ones(q.size), self.item_rel[by_place], self.item_gain[by_place],
                   grade=self.item_grade[by_place])
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
            return make_ranks(self.block_start[blk], self.block_size[blk], self.block_rel[blk], ordinal,
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
        return make_ranks(nonrel_before_block[r], nonrel_in_block[r] + 1.0, ones, ordinal, n_cand, ones,
                           query, data.qid)


def make_ranks(s, m, r, ordinal, n_cand, num_relevant, query, qid):
    optimistic = s + 1
    pessimistic = s + m - r + 1
    return Ranks(optimistic=optimistic, pessimistic=pessimistic, realistic=(optimistic + pessimistic) / 2,
                 ordinal=np.asarray(ordinal, dtype=np.float64), expected=s + (m + 1) / (r + 1),
                 num_candidates=n_cand.astype(np.int64), tied_targets=r.astype(np.int64),
                 num_relevant=np.asarray(num_relevant).astype(np.int64), query=query.astype(np.intp), qid=qid)


def namespace_ranks(xp, s, m, r, ordinal, n_cand, num_relevant, query, qid):
    """:func:`_make_ranks` for namespace arrays (float64 ranks, int64 counts)."""
    optimistic = s + 1
    pessimistic = s + m - r + 1
    return Ranks(optimistic=optimistic, pessimistic=pessimistic, realistic=(optimistic + pessimistic) / 2,
                 ordinal=ordinal, expected=s + (m + 1) / (r + 1), num_candidates=xp.astype(n_cand, xp.int64),
                 tied_targets=xp.astype(r, xp.int64), num_relevant=xp.astype(num_relevant, xp.int64),
                 query=query, qid=qid)


