"""Per-query list metrics (MRR, AP, DCG and nDCG, precision, recall, F1, AUC, bpref, RBP, ERR, judged@k).

A tie policy reduces each query's ranked list to *blocks* (``_ranks``): runs of tied candidates holding
a relevant or gain item, each with its start ``s`` (candidates ranked before it), size ``m``, relevant
items ``r``, summed gain, and the relevant items ranked before it. Every metric of :class:`ListKernels`
is an elementwise function of a query's blocks, summed over the query, written once against the array
namespace ``xp``. The blocks come in one of two layouts, which give the sums and the few steps the
array API standard has no primitive for:

- :class:`SegmentBlocks` (NumPy): the blocks of every query as flat arrays, each with its query id;
  per-query sums by ``np.bincount`` and a query's first relevant block by a segment scan. A formula
  that holds for some blocks only (tie blocks of several candidates) runs on those blocks only.
- :class:`RowBlocks` (any namespace): one row per query, one column per slot (a relevance matrix's
  sorted positions, or the label index's one target); a slot without a block has no relevant item and
  no gain, so it adds nothing. The formula that holds for some blocks is selected with ``xp.where``.

ERR's cascade and judged@k take blocks of their own from the NumPy rank structure; the label index in
another namespace, one relevant item of grade 1 per query, is ERR's one-item case.
"""

from __future__ import annotations

import copy
import math

import numpy as np

from ._definitions import DEFAULT_DEFINITIONS, Definitions  # noqa: F401 (the engine imports them here)
from ._expectations import (_clip, expect_hits, expect_order_reciprocal, expect_reciprocal, expect_top_auc,
                            harmonic, symmetric_means)
from ._registry import list_kernel
from ._segments import (exclusive_first, exclusive_segment_sum, first_true_per_segment, local_exclusive_sum,
                        segment_starts, segment_sum)
from ._xp import NUMPY, is_numpy
from .exceptions import InputValueError

_DISCOUNT_CACHE = {}


def discount_at(xp, position, kind="log2"):
    """The (n)DCG discount of the 0-based ``position`` (rank ``position + 1``) under ``kind``."""
    if kind == "reciprocal":
        return 1.0 / (position + 1.0)
    if kind == "log2_max2":
        return 1.0 / xp.log2(xp.maximum(position + 1.0, 2.0))
    return 1.0 / xp.log2(position + 2.0)


def _cumulative_discount(n, xp=NUMPY, device=None, kind="log2"):
    """D(p) = the sum of the discounts of ranks 1..p, for p = 0..n (at least), as a table indexed by p.

    NumPy keeps one table per kind, grown as needed; its prefix is the same whatever its length (a
    running sum).
    """
    n = int(n)
    if is_numpy(xp):
        table = _DISCOUNT_CACHE.get(kind)
        if table is None or table.size <= n:
            table = _discount_table(xp, max(n, 1023), None, kind)
            _DISCOUNT_CACHE[kind] = table
        return table
    return _discount_table(xp, n, device, kind)


def _discount_table(xp, n, device, kind):
    where = {} if device is None else {"device": device}
    positions = xp.arange(0, n + 1, dtype=xp.float64, **where)
    zero = xp.zeros(1, dtype=xp.float64, **where)
    return xp.concat([zero, xp.cumulative_sum(discount_at(xp, positions, kind))])


def _lookup(xp, table, index):
    """``table[index]`` for an integer array ``index`` of any shape."""
    return xp.reshape(xp.take(table, xp.reshape(index, (-1,))), index.shape)


def ideal_dcg(query, gain, n_queries, k=None, discount="log2"):
    """DCG of each query's gains in decreasing order (its ideal list), cut at ``k`` (NumPy layout).

    ``query`` and ``gain`` list the positive gains of every query in any order. The equal gains of a
    query fill a run of places of its ideal list, whose discounts sum to a difference of the
    cumulative table (a run of one item: its own discount); a query's runs are added one after the
    other, its largest gain first. A query's value so depends on its own gains only, not on the other
    queries of the call: a relevance matrix ranked in chunks of rows, or queries split into parts,
    give the numbers of all queries at once. The runs are counted per query and value when the gains
    take a few integer values (graded relevance, linear or exponential gain): no sort; otherwise the
    gains are sorted by query and decreasing gain.
    """
    if gain.size == 0:
        return np.zeros(n_queries)
    runs = _integer_gain_runs(query, gain, n_queries)
    if runs is None:
        order = np.lexsort((-gain, query))
        q, g = query[order], gain[order]
        new = segment_starts(q)
        new[1:] |= g[1:] != g[:-1]
        first = np.flatnonzero(new)
        runs = q[first], g[first], np.diff(np.append(first, q.size))
    run_query, run_gain, run_count = runs
    # the place of each run's first item in its query's ideal list (integers: exact)
    before = np.cumsum(run_count) - run_count
    start = before - before[exclusive_first(run_query)]
    end = start + run_count
    cut = np.inf if k is None else float(k)
    table = _cumulative_discount(min(int(end.max()), cut), kind=discount)
    spread = table[np.minimum(end, cut).astype(np.int64)] - table[np.minimum(start, cut).astype(np.int64)]
    single = run_count == 1
    spread[single] = np.where(start[single] < cut, discount_at(np, start[single], discount), 0.0)
    # bincount adds each query's runs in their order, from zero
    return np.bincount(run_query, weights=run_gain * spread, minlength=n_queries)


def _integer_gain_runs(query, gain, n_queries):
    """(query, gain, count) of each run of equal gains of a query, by query and decreasing gain, counted per
    query and value; None unless the gains are a few integer values (the counts' table stays small)."""
    if gain.max() > 1 << 16:
        return None
    whole = gain.astype(np.int64)
    if not np.array_equal(whole, gain):
        return None
    histogram = np.bincount(whole)
    values = np.flatnonzero(histogram)[::-1]  # decreasing
    n_values = values.size
    if n_queries * n_values > 4 * gain.size + 4096:
        return None
    column = n_values - np.cumsum(histogram > 0)  # column of each gain value, the largest first
    counts = np.bincount(query * n_values + column[whole], minlength=n_queries * n_values)
    cell = np.flatnonzero(counts)  # by query, then decreasing gain
    return cell // n_values, values[cell % n_values].astype(np.float64), counts[cell]


class SegmentBlocks:
    """NumPy layout: the blocks of every query as flat arrays (a ``_ranks.Blocks``, sorted by query)."""

    xp = NUMPY

    def __init__(self, blocks, n_queries):
        self.blocks, self.n_queries = blocks, n_queries
        self.start, self.size, self.n_rel, self.gain = blocks.start, blocks.size, blocks.n_rel, blocks.gain
        self.unjudged_before, self.unjudged = blocks.unjudged_before, blocks.unjudged
        self._before = None

    @property
    def before(self):
        """The relevant items of the query ranked before each block."""
        if self._before is None:
            self._before = exclusive_segment_sum(self.n_rel, self.blocks.query)
        return self._before

    def total(self, values):
        """The sum of ``values`` (one per block) per query."""
        return segment_sum(self.blocks.query, values, self.n_queries)

    def per_block(self, values):
        """``values`` (one per query) for each block."""
        return values[self.blocks.query]

    @staticmethod
    def select(mask, fn, args, otherwise=0.0):
        """``fn(*args)`` where ``mask`` holds, ``otherwise`` elsewhere; ``fn`` sees the entries of ``mask`` only."""
        out = np.array(np.broadcast_to(otherwise, mask.shape), dtype=np.float64)
        if mask.any():
            out[mask] = fn(*(a[mask] for a in args))
        return out

    def at_first_relevant(self, fn):
        """``fn(s, m, r)`` of each query's first block holding a relevant item; 0 for a query without one."""
        first = first_true_per_segment(self.n_rel > 0, self.blocks.query, self.n_queries)
        out = np.zeros(self.n_queries)
        has = first >= 0
        idx = first[has]
        out[has] = fn(self.start[idx], self.size[idx], self.n_rel[idx])
        return out

    def ideal_dcg(self, stats, k, discount="log2"):
        return ideal_dcg(stats.ideal_query, stats.ideal_gain, self.n_queries, k, discount)

    @staticmethod
    def max_gain(stats):
        """The largest gain of any query (0 without one)."""
        return float(stats.ideal_gain.max(initial=0.0))


class RowBlocks:
    """Layout of any namespace: blocks as matrices, one row per query, one column per slot.

    ``blocks`` maps ``s``, ``size``, ``n_rel``, ``gain`` and ``before`` (the relevant items ranked before
    the block) to such matrices; a slot without a block has ``n_rel`` and ``gain`` 0 and ``size`` 1.
    """

    unjudged_before = unjudged = None  # no unjudged candidates in a namespace's layouts

    def __init__(self, xp, blocks):
        self.xp = xp
        self.start, self.size, self.n_rel = blocks["s"], blocks["size"], blocks["n_rel"]
        self.gain, self.before = blocks["gain"], blocks["before"]
        self.n_queries = self.start.shape[0]

    def total(self, values):
        return self.xp.sum(values, axis=1)

    def per_block(self, values):
        return values[:, None]

    def select(self, mask, fn, args, otherwise=0.0):
        return self.xp.where(mask, fn(*args), otherwise)

    def at_first_relevant(self, fn):
        xp = self.xp
        has = xp.any(self.n_rel > 0, axis=1)
        idx = xp.argmax(xp.astype(self.n_rel > 0, xp.int8), axis=1)[:, None]
        at = (lambda values: xp.take_along_axis(values, idx, axis=1)[:, 0])
        return xp.where(has, fn(at(self.start), at(self.size), xp.where(has, at(self.n_rel), 1.0)), 0.0)

    def ideal_dcg(self, stats, k, discount="log2"):
        # stats.ideal: each row's positive gains in decreasing order
        xp, ideal = self.xp, stats.ideal
        position = xp.arange(ideal.shape[1], dtype=xp.float64, device=_device(ideal))[None, :]
        weight = discount_at(xp, position, discount)
        if k is not None:
            weight = xp.where(position < k, weight, 0.0)
        return xp.sum(ideal * weight, axis=1)

    def max_gain(self, stats):
        """The largest gain of any query (0 without one)."""
        ideal = stats.ideal
        return float(self.xp.max(ideal)) if ideal.shape[0] * ideal.shape[1] else 0.0


class RowStats:
    """Per-query facts of a :class:`RowBlocks` layout (every relevant candidate is in the list, judged)."""

    max_grade = None

    def __init__(self, xp, n_candidates, n_relevant, ideal):
        self.n_candidates, self.n_relevant, self.ideal = n_candidates, n_relevant, ideal
        self.n_rel_retrieved = n_relevant
        self.n_judged_nonrel = n_candidates - n_relevant


def _device(x):
    from ._sklearn_compat import array_device

    return array_device(x)


class ListKernels:
    """Per-query list metrics from the blocks of one tie policy, in any array namespace.

    ``binary`` and ``gain_blocks`` are the blocks of the relevant items and of the gain items (the same
    blocks unless graded gains order a tie block's items differently), in a layout
    (:class:`SegmentBlocks` or :class:`RowBlocks`); ``stats`` the per-query facts (``n_candidates``,
    ``n_relevant``, ``n_rel_retrieved``, ``n_judged_nonrel``, ``max_grade``, and the ideal gains the
    layout's ``ideal_dcg`` reads). ``structure`` and ``ties`` (NumPy) give ERR and judged@k their blocks.
    :meth:`numpy` and :meth:`rows` build it from the engine's structures.
    """

    def __init__(self, binary, gain_blocks, stats, definitions=DEFAULT_DEFINITIONS, structure=None, ties=None):
        self.xp = binary.xp
        self.binary, self.gain_blocks, self.stats = binary, gain_blocks, stats
        self.n_queries = binary.n_queries
        self.definitions = definitions
        self.structure, self.ties = structure, ties

    @classmethod
    def numpy(cls, binary, gain_blocks, stats, n_queries, definitions=DEFAULT_DEFINITIONS, structure=None,
              ties=None):
        """From NumPy ``_ranks.Blocks`` of every query and its ``QueryStats``."""
        binary_segments = SegmentBlocks(binary, n_queries)
        gain_segments = binary_segments if gain_blocks is binary else SegmentBlocks(gain_blocks, n_queries)
        return cls(binary_segments, gain_segments, stats, definitions, structure, ties)

    @classmethod
    def rows(cls, xp, binary, gain_blocks, stats, definitions=DEFAULT_DEFINITIONS):
        """From matrices of another namespace (see :class:`RowBlocks`); ``stats`` maps ``n_candidates``,
        ``n_relevant`` and ``ideal`` (each row's positive gains in decreasing order) to per-row arrays."""
        binary_rows = RowBlocks(xp, binary)
        gain_rows = binary_rows if gain_blocks is binary else RowBlocks(xp, gain_blocks)
        return cls(binary_rows, gain_rows, RowStats(xp, stats["n_candidates"], stats["n_relevant"], stats["ideal"]),
                   definitions)

    @classmethod
    def label_index(cls, xp, s, size, num_candidates, definitions=DEFAULT_DEFINITIONS):
        """The label index in a namespace: one relevant candidate of gain 1 per query, after ``s`` others in
        a tie block of ``size``, among ``num_candidates``: one block per query, one column."""
        ones = xp.ones_like(s)[:, None]
        blocks = dict(s=s[:, None], size=size[:, None], n_rel=ones, gain=ones, before=xp.zeros_like(ones))
        return cls.rows(xp, blocks, blocks, dict(n_candidates=num_candidates, n_relevant=ones[:, 0], ideal=ones),
                        definitions)

    # -- shared steps -------------------------------------------------------------------------
    def _k(self, k):
        """The cut-off of each query (inf: none)."""
        return self.xp.full_like(self.stats.n_relevant, float("inf") if k is None else float(k),
                                 dtype=self.xp.float64)

    def _in_top(self, blocks, k_of_query):
        """Number of each block's positions inside the top k (k per query)."""
        xp = self.xp
        k = blocks.per_block(k_of_query)
        return _clip(xp, xp.floor(xp.minimum(k, 2.0 ** 62) - blocks.start), 0.0, blocks.size)

    def _divide(self, num, den, fill=0.0):
        """num / den where den > 0, ``fill`` elsewhere."""
        xp = self.xp
        ok = den > 0
        return xp.where(ok, num / xp.where(ok, den, 1.0), fill)

    def hits_count(self, k_of_query):
        b = self.binary
        return b.total(b.n_rel * self._in_top(b, k_of_query) / b.size)

    # -- one method per list metric, named in the registry (``_registry``), each taking the cut-off k ------
    def reciprocal_rank(self, k):
        return self.binary.at_first_relevant(lambda s, m, r: expect_reciprocal(s, m, r, k=k, xp=self.xp))

    def hit(self, k):
        return self.binary.at_first_relevant(lambda s, m, r: expect_hits(s, m, r, k, xp=self.xp))

    def precision(self, k):
        xp, st, kind = self.xp, self.stats, self.definitions.precision_denominator
        hits = self.hits_count(self._k(k))
        if kind == "list":  # CatBoost, LensKit, torchmetrics' adaptive_k: the list's length when shorter than k
            return self._divide(hits, xp.minimum(xp.astype(st.n_candidates, xp.float64), float(k)))
        if kind == "capped":  # RecTools' r_precision: min(k, relevant)
            return self._divide(hits, xp.minimum(xp.astype(st.n_relevant, xp.float64), float(k)))
        return hits / k

    def recall(self, k):
        n_relevant = self.stats.n_relevant
        if self.definitions.recall_denominator == "capped":  # LensKit: min(relevant, k)
            n_relevant = self.xp.minimum(self.xp.astype(n_relevant, self.xp.float64), float(k))
        return self._divide(self.hits_count(self._k(k)), n_relevant)

    def f1(self, k):
        return 2 * self.hits_count(self._k(k)) / (k + self.stats.n_relevant)

    def r_precision(self, k):
        n_relevant = self.stats.n_relevant
        return self._divide(self.hits_count(self.xp.astype(n_relevant, self.xp.float64)), n_relevant)

    def relevant_retrieved(self, k):
        return self.hits_count(self._k(k))

    def average_precision(self, k):
        xp, n_relevant = self.xp, self.stats.n_relevant
        kind = self.definitions.ap_denominator
        if kind == "capped":  # Spark's and LightGBM's MAP@k: min(k, relevant)
            denominator = n_relevant if k is None else xp.minimum(n_relevant, float(k))
        elif kind == "list":  # LensKit and CatBoost: min(relevant, the length of the list cut at k)
            shown = xp.astype(self.stats.n_candidates, xp.float64)
            denominator = xp.minimum(n_relevant, shown if k is None else xp.minimum(shown, float(k)))
        elif kind == "retrieved" and self.definitions.ap_ties != "max":  # torchmetrics: relevant items in the top k
            denominator = self._exact_hits_count(k)
        else:
            denominator = n_relevant
        if self.definitions.ap_ties == "max":  # the blocks are the tie blocks (``kernel_ties``)
            b = self.binary
            end = b.start + b.size  # every candidate of the block at its last place
            inside = end <= b.per_block(self._k(k))
            if kind == "retrieved":  # the relevant items at places within the top k
                denominator = b.total(xp.where(inside, b.n_rel, 0.0))
            return self._divide(b.total(xp.where(inside, b.n_rel * (b.before + b.n_rel) / end, 0.0)), denominator)
        return self._divide(self._ap_sum(self._k(k)), denominator)

    def _exact_hits_count(self, k):
        """The relevant items in the top k, where no tie order can change that number."""
        xp, b = self.xp, self.binary
        t = self._in_top(b, self._k(k))
        uncertain = (t > 0) & (t < b.size) & (b.n_rel > 0) & (b.n_rel < b.size)
        if bool(xp.any(uncertain)):
            raise InputValueError(
                "ap_denominator='retrieved' divides by the number of relevant items in the top k, which depends "
                "on the order of tied candidates across the cut-off; its expectation over tie orders has no "
                "closed form here. Choose ties='ordinal', 'optimistic' or 'pessimistic'. Got ties='expected' "
                f"with {int(xp.count_nonzero(uncertain))} such tie blocks instead.")
        return self.hits_count(self._k(k))

    def _ap_sum(self, k_of_query):
        # Expected precision at each relevant position of a block (McSherry & Najork 2008):
        # position i of the block is relevant with probability r/m, and then the expected number
        # of relevant items at or above it is c + 1 + (i - 1)(r - 1)/(m - 1).
        xp, b = self.xp, self.binary
        t = self._in_top(b, k_of_query)
        a_coef = b.n_rel / b.size * (b.before + 1)
        multi = b.size > 1
        # (m - 1 >= 1 where multi holds; the maximum keeps a RowBlocks layout's other slots from dividing by 0)
        b_coef = b.select(multi, lambda r, m: r / m * (r - 1) / xp.maximum(m - 1, 1.0), (b.n_rel, b.size))
        single = xp.where(t > 0, a_coef / (b.start + 1), 0.0)

        def spread(a, c, s, tm):
            return (a - c * (s + 1)) * (harmonic(s + tm, xp=xp) - harmonic(s, xp=xp)) + c * tm

        return b.total(b.select(multi, spread, (a_coef, b_coef, b.start, t), single))

    def dcg(self, k):
        return self._dcg(self._k(k))

    def ndcg(self, k):
        return self._divide(self._dcg(self._k(k)), self._ideal_dcg(k))

    def _ideal_dcg(self, k):
        xp, discount = self.xp, self.definitions.discount
        if self.definitions.ideal_dcg == "relevant":
            return self.binary.ideal_dcg(self.stats, k, discount)
        # "k" (RecTools): k items of gain 1, whatever the query's relevant items
        if k is None:
            raise InputValueError("ideal_dcg='k' divides by the DCG of k relevant items and needs a cut-off "
                                  "(ndcg@k). Got ndcg without a cut-off instead.")
        top = self.binary.max_gain(self.stats)
        if top > 1.0:
            raise InputValueError("ideal_dcg='k' assumes binary gains (k items of gain 1 are the best list). Got a "
                                  f"gain of {top:g} instead: use gain='binary' or ideal_dcg='relevant'.")
        table = _cumulative_discount(k, xp, None if is_numpy(xp) else _device(self.stats.n_relevant), discount)
        return xp.full_like(self.stats.n_relevant, float(table[k]), dtype=xp.float64)

    def _dcg(self, k_of_query):
        # a tie block of m places from s spreads its gain evenly: gain / m (D(s + t) - D(s)), D the
        # cumulative discount, t its places in the top k; one place: gain times the discount of rank s + 1
        xp, g, discount = self.xp, self.gain_blocks, self.definitions.discount
        t = self._in_top(g, k_of_query)
        point = xp.where(t > 0, g.gain * discount_at(xp, g.start, discount), 0.0)
        multi = (g.size > 1) & (g.gain > 0)
        if not bool(xp.any(multi)):
            return g.total(point)
        as_int = (lambda v: xp.astype(v, xp.int64))
        top = int(xp.max(xp.where(multi, as_int(g.start) + as_int(t), 0)))
        table = _cumulative_discount(top, xp, None if is_numpy(xp) else _device(t), discount)

        def spread(gain, size, s, tm):
            s = as_int(s)
            end = s + as_int(tm)
            # (the slots of a RowBlocks layout outside `multi` are computed too: kept within the table)
            return gain / size * (_lookup(xp, table, xp.minimum(end, top)) - _lookup(xp, table, xp.minimum(s, top)))

        return g.total(g.select(multi, spread, (g.gain, g.size, g.start, t), point))

    def auc(self, k):
        # Pairs (relevant, non-relevant) of the top k ordered right; tied pairs count half under "expected"
        # (the realistic policy's block start already carries the half; with @k the plan ranks it as
        # "expected": ``kernel_ties``). A tie block's share of the top k holds r * t / m relevant items:
        # exact unless it holds relevant and non-relevant items and the cut-off splits it (below).
        xp, b, st = self.xp, self.binary, self.stats
        if self.definitions.auc_labels == "binary":
            self._check_binary_labels()
        t = self._in_top(b, self._k(k))
        rel_top = b.n_rel * t / b.size
        shown = xp.astype(st.n_candidates, xp.float64)
        if k is not None:
            shown = xp.minimum(shown, float(k))
        n_rel = xp.astype(b.total(rel_top), xp.float64)  # (NumPy's bincount of nothing is integer)
        n_nonrel = shown - n_rel
        nonrel_before = b.start - b.before
        correct = rel_top * (b.per_block(n_nonrel) - nonrel_before - (t - rel_top) / 2)
        pairs = n_rel * n_nonrel
        # no pair: nothing but relevant candidates (in the top k: ``all_relevant`` decides), or no relevant
        # candidate (in the top k): 0, as torchmetrics' (a query without a relevant item: ``no_relevant``
        # decides; a judged relevant item that was not retrieved is ranked below every candidate)
        undefined = xp.full_like(n_rel, {"skip": float("nan"), "zero": 0.0, "one": 1.0}[self.definitions.all_relevant])
        fill = xp.where(n_rel > 0, undefined, xp.zeros_like(n_rel))
        value = self._divide(b.total(correct), pairs, fill)
        split = (t > 0) & (t < b.size) & (b.n_rel > 0) & (b.n_rel < b.size)  # (never without k)
        if k is None or not bool(xp.any(split)):
            return value
        # The top k ends inside a tie block of relevant and non-relevant items (one per query at most):
        # its expectation over the orders of that block (``expect_top_auc``), from the blocks above it.
        def of_split(v):
            return b.total(xp.where(split, v, 0.0))

        has = of_split(xp.ones_like(t)) > 0
        s, c = of_split(b.start), of_split(b.before)
        above = (t == b.size) & (b.start < b.per_block(s))
        prefix = b.total(xp.where(above, b.n_rel * (b.per_block(s - c) - nonrel_before - (b.size - b.n_rel) / 2),
                                  0.0))
        args = [prefix, c, s, of_split(b.size), of_split(b.n_rel), of_split(t), undefined]
        if is_numpy(xp):  # the queries that need it only
            value[has] = expect_top_auc(*(a[has] for a in args))
            return value
        return xp.where(has, expect_top_auc(*args, xp=xp), value)

    def _check_binary_labels(self):
        """Refuse gains other than 0 and 1 (``auc_labels="binary"``: a preset's peer reads such labels its
        own way)."""
        xp, st = self.xp, self.stats
        gain_sum = self.gain_blocks.total(self.gain_blocks.gain)
        if self.binary.max_gain(st) > 1.0 or bool(xp.any(gain_sum != xp.astype(st.n_rel_retrieved, xp.float64))):
            raise InputValueError(
                "auc under this convention reproduces the peer's AUC of labels 0 and 1 only (CatBoost's QueryAUC "
                "reads a label between 0 and 1 as a probability and refuses labels above 1). Evaluate it without "
                "the convention for graded labels. Got relevance labels other than 0 and 1 instead.")

    def bpref(self, k):
        # trec_eval's bpref: (1/R) sum over retrieved relevant items of 1 - min(n, R) / min(N, R), n the
        # judged non-relevant items ranked above it (unjudged ones are skipped), N all judged non-relevant
        # items. Within a tie block of u judged non-relevant items, the number of them above a given
        # relevant item is uniform on 0..u under random tie orders (its place among them and itself).
        xp, b, st = self.xp, self.binary, self.stats
        n_rel = st.n_relevant
        unjudged_before = 0.0 if b.unjudged_before is None else b.unjudged_before
        unjudged_tied = 0.0 if b.unjudged is None else b.unjudged
        before = b.start - b.before - unjudged_before
        tied = b.size - b.n_rel - unjudged_tied
        r = b.per_block(n_rel)
        d = b.per_block(xp.minimum(st.n_judged_nonrel, n_rel))

        def total(count, r):  # sum of min(t, r) over t = 0..count, for count >= -1
            return xp.where(count <= r, count * (count + 1) / 2, r * (r + 1) / 2 + (count - r) * r)

        def mean_min(c, u, r):  # the mean of min(c + x, r) over x = 0..u
            return (total(c + u, r) - total(c - 1, r)) / (u + 1)

        mean = b.select(tied > 0, mean_min, (before, tied, r), xp.minimum(before, r))
        share = self._divide(mean, d)
        return self._divide(b.total(b.n_rel * (1.0 - share)), n_rel)

    def rbp(self, k, p):
        # (1 - p) sum_{i <= k} rel_i p^(i - 1); a tie block of m places from s, t of them in the top k,
        # gives each of its items the mean weight (1 - p) (p^s + ... + p^(s + t - 1)) / m = p^s (1 - p^t) / m.
        xp, b = self.xp, self.binary
        log_p = float(np.log(p))
        t = b.size if k is None else self._in_top(b, self._k(k))
        weight = xp.exp(b.start * log_p) * -xp.expm1(t * log_p) / b.size
        return b.total(b.n_rel * weight)

    def err(self, k, max_grade=None):
        # Chapelle et al. 2009: sum_r R_r / r prod_{i<r} (1 - R_i), R = (2^g - 1) / 2^g_max, g_max the
        # fixed ``max_grade`` or else the query's largest judged grade (stop_probability="label": R = g).
        return self._cascade_metric("err", k, max_grade, None)

    def pfound(self, k, max_grade=None):
        # Yandex's pFound (Segalovich 2010; CatBoost's PFound): sum_r R_r 0.85^(r - 1) prod_{i<r} (1 - R_i),
        # the user going on past each item with chance 1 - R_i and then looking further with chance 0.85,
        # R as in ERR
        return self._cascade_metric("pfound", k, max_grade, PFOUND_DECAY)

    def _cascade_metric(self, name, k, max_grade, decay):
        label = self.definitions.stop_probability == "label"
        if self.structure is None:  # the label index of a namespace: one item of grade 1 per query
            if not label and max_grade is not None and 1.0 > max_grade:
                raise InputValueError(f"{name}(max_grade={max_grade:g}) needs every relevance grade to be at "
                                      f"most {max_grade:g}. Got grade 1.0 instead.")
            top = 1.0 if max_grade is None else float(max_grade)
            stop = 1.0 if label else float(1.0 - _cascade(np.float64(1.0), np.float64(top))[1])
            if decay is None:
                return stop * self.reciprocal_rank(k)
            return stop * self.binary.at_first_relevant(
                lambda s, m, r: _expect_geometric(self.xp, s, m, float("inf") if k is None else float(k), decay))
        return self._cascade(name, k, max_grade, decay, label)

    def _cascade(self, name, k, max_grade, decay, label):
        # NumPy: the items come as blocks of places (one place each, except the tie blocks of
        # ties="expected", whose exact expectation is in ``_expectations``: the stopping chances of the
        # blocks' items and their places are independent).
        items = self.structure.item_blocks(self.ties)
        # a tie block's items by grade: a canonical order for its sums (the sort that made the blocks leaves
        # tied rows in an order that depends on the other queries' rows)
        order = np.lexsort((items.grade, items.start, items.query))
        q, start, size, grade = items.query[order], items.start[order], items.size[order], items.grade[order]
        if label:  # the grade is the chance of stopping itself (CatBoost)
            if grade.size and not (grade.min() >= 0.0 and grade.max() <= 1.0):
                raise InputValueError(f"stop_probability='label' reads each relevance label as the chance that "
                                      f"{name} stops at the item, so labels must lie in [0, 1]. Got labels from "
                                      f"{float(grade.min())!r} to {float(grade.max())!r} instead.")
            stop, go_on = grade.astype(np.float64), 1.0 - grade.astype(np.float64)
        elif max_grade is None:
            stop, go_on = _cascade(grade, self.stats.max_grade[q])
        else:
            if grade.size and grade.max() > max_grade:
                raise InputValueError(f"{name}(max_grade={max_grade:g}) needs every relevance grade to be at most "
                                      f"{max_grade:g}. Got grade {float(grade.max())!r} instead.")
            stop, go_on = _cascade(grade, np.full(q.size, float(max_grade)))
        if not q.size:
            return np.zeros(self.n_queries)
        small = stop < 0.5
        log_go_on = np.empty_like(stop)
        log_go_on[small] = np.log1p(-stop[small])  # accurate for small stopping chances
        with np.errstate(divide="ignore"):  # go_on >= 2**-top > 0, or 0 for a label of 1: -inf, reach 0 after it
            log_go_on[~small] = np.log(go_on[~small])
        new = np.ones(q.size, dtype=bool)
        new[1:] = (q[1:] != q[:-1]) | (start[1:] != start[:-1])
        block = np.cumsum(new) - 1
        n_blocks = int(block[-1]) + 1
        block_q, block_start, block_size = q[new], start[new], size[new]
        count = np.bincount(block, minlength=n_blocks)
        # the chance of reaching each block: every item of the query's earlier blocks failed to stop
        failed = np.bincount(block, weights=log_go_on, minlength=n_blocks)
        reach = np.exp(local_exclusive_sum(failed, block_q))
        means = symmetric_means(go_on, block, count)
        pair_block = np.repeat(np.arange(n_blocks), count)
        i = np.arange(pair_block.size) - (np.cumsum(count) - count)[pair_block] + 1
        at = (np.cumsum(count + 1) - (count + 1))[pair_block] + i
        stops_at_i = means[at - 1] - means[at]
        place = expect_order_reciprocal(block_start[pair_block], block_size[pair_block], count[pair_block], i,
                                        self._k(k)[block_q[pair_block]], decay)
        per_block = np.bincount(pair_block, weights=stops_at_i * place, minlength=n_blocks) * reach
        return segment_sum(block_q, per_block, self.n_queries)

    def judged(self, k):
        # judged candidates among the top k, divided as p@k is (precision_denominator "k" or "list"; ir_measures
        # divides by min(k, list length))
        xp = self.xp
        shown = xp.minimum(xp.astype(self.stats.n_candidates, xp.float64), float(k))
        if self.definitions.precision_denominator == "list":
            divide = (lambda count: self._divide(count, shown))
        else:
            divide = (lambda count: count / k)
        if self.definitions.precision_denominator == "capped":
            raise InputValueError("judged@k divides by k or by the list's length; precision_denominator='capped' "
                                  "(min(k, relevant)) has no meaning for it. Got precision_denominator='capped' "
                                  "instead.")
        blocks = self.structure.judged_blocks(self.ties) if self.structure is not None else None
        if blocks is None:  # every candidate is judged
            return divide(shown)
        judged = SegmentBlocks(blocks, self.n_queries)
        return divide(judged.total(judged.n_rel * self._in_top(judged, self._k(k)) / judged.size))

    def _for_metric(self, base):
        """These kernels under the definitions of the metric ``base`` (a preset may define some metrics its
        own way: ``Definitions.by_metric``): ``self``, or a copy sharing the blocks."""
        own = self.definitions.for_metric(base)
        if own is self.definitions:
            return self
        other = copy.copy(self)
        other.definitions = own
        return other

    def denominator(self, base, k):
        """What each query's value of the count metric ``base`` divides its count by (``MICRO_METRICS``):
        micro averaging weighs the per-query values by it."""
        kernels = self._for_metric(base)
        xp, st, d = kernels.xp, kernels.stats, kernels.definitions
        as_float = (lambda v: xp.astype(v, xp.float64))
        n_rel, n_cand = as_float(st.n_relevant), as_float(st.n_candidates)
        if base == "r":
            return xp.minimum(n_rel, float(k)) if d.recall_denominator == "capped" else n_rel
        if base == "rprec":
            return n_rel
        if base == "f1":
            return (n_rel + float(k)) / 2.0  # F1 = hits / ((k + relevant) / 2)
        if base in ("p", "judged"):
            if d.precision_denominator == "list":
                return xp.minimum(n_cand, float(k))
            if d.precision_denominator == "capped":
                return xp.minimum(n_rel, float(k))
            return xp.full_like(n_rel, float(k))
        raise ValueError(base)  # pragma: no cover - the plan refuses micro averaging of other metrics

    def compute(self, base, k, param=None):
        """The per-query values of the list metric ``base`` (a registry name) at cut-off ``k``, with the
        metric's parameter ``param`` when it has one (rbp's p, err's max_grade), under the definitions of
        that metric."""
        method = getattr(self._for_metric(base), list_kernel(base))
        return method(k) if base not in ("rbp", "err", "pfound") else method(k, param)


def undefined_auc(written, k, n_bad, example=""):
    """The warning for the queries whose AUC (of the top ``k``) has no pair: no non-relevant candidate."""
    where = "" if k is None else f" in the top {k}"
    return (f"Metric {written!r} is undefined for {n_bad} queries without a non-relevant candidate{where}{example}; "
            "they are NaN per query and left out of the mean.")


# The list metrics that are a count over a denominator per query, which average="micro" pools.
MICRO_METRICS = ("p", "r", "rprec", "f1", "judged")
# The key of a micro-averaged metric's per-query denominators among a part's values.
DENOMINATOR = "\x00denominator of "

PFOUND_DECAY = 0.85  # pFound's chance of looking at the next item (1 - pBreak, pBreak = 0.15)


def _expect_geometric(xp, s, m, k, decay):
    """E[decay^(place - 1); place <= k], the place uniform over a tie block's s + 1 .. s + m (any namespace);
    a point (m == 1) is the place s + 1, which the realistic policy puts half-way (s a half-integer)."""
    cut = float(math.floor(min(k, 2.0 ** 62)))
    top = xp.maximum(xp.minimum(s + m, cut), s)
    log_decay = float(np.log(decay))
    spread = (xp.exp(s * log_decay) - xp.exp(top * log_decay)) / ((1.0 - decay) * m)
    point = xp.where(s + 1.0 <= k, xp.exp(s * log_decay), xp.zeros_like(s))
    return xp.where(m == 1, point, spread)


def _cascade(grade, top):
    """ERR's chance that an item of ``grade`` stops the user, (2^g - 1) / 2^top, and that it does not,
    1 - that, both without overflow (NumPy arrays or scalars)."""
    stop = -np.expm1(-grade * np.log(2.0)) * np.exp2(grade - top)
    # 1 - R = (2^top - 2^g + 1) / 2^top exactly: from about grade 53 on, R rounds to 1 and log1p(-R)
    # would be -inf (the query's later items unreachable, but -inf - -inf in the segment sums is NaN)
    go_on = np.exp2(-top) + (1.0 - np.exp2(grade - top))
    return stop, go_on
