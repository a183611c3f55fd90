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
the presence of tied scores", ECIR 2008).  Untied policies (optimistic,
pessimistic, ordinal) are blocks of size one after a policy-specific sort;
the realistic policy is blocks of size one at fractional mid positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import digamma, gammaln, polygamma

from ._inputs import GroupedData

# Rows of the score matrix processed at once in the label-index layout:
# the temporary boolean arrays stay at a few MB whatever the matrix size.
_CHUNK_ELEMENTS = 1 << 21


@dataclass
class Blocks:
    query: np.ndarray
    start: np.ndarray
    size: np.ndarray
    n_rel: np.ndarray
    gain: np.ndarray


@dataclass
class QueryStats:
    """Per-query facts independent of the tie policy."""

    n_candidates: np.ndarray      # candidates in the list (after exclusion)
    n_rel_retrieved: np.ndarray   # relevant candidates in the list
    n_relevant: np.ndarray        # relevant items, judged ones included (denominators)
    ideal_query: np.ndarray       # positive ideal gains, sorted by query then decreasing gain
    ideal_gain: np.ndarray


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
        Rank when ties are broken by input order.
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
        return len(self.optimistic)

    def __repr__(self):
        return (f"Ranks(n_targets={len(self)}, n_queries={len(self.qid)}, "
                f"mean realistic rank={np.mean(self.realistic) if len(self) else float('nan'):.4g})")


def relevance_masks(rel, relevance_level, gain):
    is_rel = rel >= relevance_level if relevance_level is not None else rel > 0
    gains = rel if gain == "linear" else np.expm1(rel * np.log(2.0))
    return is_rel, gains


# --------------------------------------------------------------------------------------------
# Grouped layout: one sort, then segment reductions.
# --------------------------------------------------------------------------------------------
def sort_rows(query, key, n_queries, tie_key=None):
    """Stable order of rows by (query, key[, tie_key]): equal keys keep input order.

    Two stable argsorts beat ``np.lexsort`` by about 2x: a float sort, then a sort of the
    query codes, which numpy does by radix sort for 8- and 16-bit integers.
    """
    if tie_key is None:
        order = np.argsort(key, kind="stable")
    else:
        order = np.lexsort((tie_key, key))
    codes = query[order]
    if n_queries <= np.iinfo(np.uint16).max:
        codes = codes.astype(np.uint16)
    elif n_queries <= np.iinfo(np.int32).max:
        codes = codes.astype(np.int32)
    return order[np.argsort(codes, kind="stable")]


# --------------------------------------------------------------------------------------------
# --------------------------------------------------------------------------------------------
class GroupedStructure:
    """The grouped rows sorted once by (query, decreasing score), with their tie blocks."""

    def __init__(self, data: GroupedData, relevance_level, gain):
        self.data = data
        self.relevance_level, self.gain = relevance_level, gain
        n_q = data.n_queries
        self.is_rel, self.gains = relevance_masks(data.rel, relevance_level, gain)
        self.counts = np.bincount(data.query, minlength=n_q)
        self.qstart = np.cumsum(self.counts) - self.counts
        # Stable: equal scores keep input order, which is the ordinal policy's tie rule.
        self.order = sort_rows(data.query, -data.score, n_q)
        self.q = data.query[self.order]
        self.pos = np.arange(self.q.size) - self.qstart[self.q]
        sc = data.score[self.order]
        new = np.empty(self.q.size, dtype=bool)
        new[0] = True
        np.not_equal(sc[1:], sc[:-1], out=new[1:])
        new[1:] |= self.q[1:] != self.q[:-1]
        self.block_id = np.cumsum(new) - 1
        self.first = np.flatnonzero(new)
        self.block_size = np.diff(np.append(self.first, self.q.size))
        self.rel_s = self.is_rel[self.order]
        self.gain_s = self.gains[self.order]
        self.block_rel = np.bincount(self.block_id, weights=self.rel_s)
        self.block_gain = np.bincount(self.block_id, weights=self.gain_s)

    def query_stats(self):
        data = self.data
        n_q = data.n_queries
        n_rel_retrieved = np.bincount(data.query, weights=self.is_rel, minlength=n_q)
        if data.judged_query is not None:
            judged_is_rel, judged_gains = relevance_masks(data.judged_rel, self.relevance_level, self.gain)
            n_relevant = np.bincount(data.judged_query, weights=judged_is_rel, minlength=n_q)
            # Relevant candidates that are missing from the judgements still count.
            n_relevant = np.maximum(n_relevant, n_rel_retrieved)
            iq, ig = data.judged_query, judged_gains
        else:
            n_relevant = n_rel_retrieved
            iq, ig = data.query, self.gains
        keep = ig > 0
        iq, ig = iq[keep], ig[keep]
        o = np.lexsort((-ig, iq))
        return QueryStats(self.counts.astype(np.float64), n_rel_retrieved, n_relevant, iq[o], ig[o])

    def blocks(self, ties):
        """Blocks for the binary metrics and for (n)DCG under a tie policy."""
        if ties == "expected":
            keep = self.block_gain > 0
            b = Blocks(self.q[self.first][keep], self.pos[self.first][keep].astype(np.float64),
                       self.block_size[keep].astype(np.float64), self.block_rel[keep], self.block_gain[keep])
            return b, b
        if ties == "realistic":
            return self._realistic_blocks()
        if ties == "ordinal":
            order = self.order
        else:
            d = self.data
            rel_key = -d.rel if ties == "optimistic" else d.rel
            order = sort_rows(d.query, -d.score, d.n_queries, tie_key=rel_key)
        q = self.data.query[order]
        pos = np.arange(q.size) - self.qstart[q]
        g = self.gains[order]
        keep = g > 0
        b = Blocks(q[keep], pos[keep].astype(np.float64), np.ones(int(keep.sum())),
                   self.is_rel[order][keep].astype(np.float64), g[keep])
        return b, b

    def _realistic_blocks(self):
        bid, first = self.block_id, self.first
        start = self.pos[first].astype(np.float64)
        size = self.block_size.astype(np.float64)
        # Binary metrics: the j-th relevant item of a block sits at s + (m - r) / 2 + j.
        crel = np.cumsum(self.rel_s)
        rel_before_block = crel[first] - self.rel_s[first]
        j = crel - rel_before_block[bid]
        rho = start[bid] + (size[bid] - self.block_rel[bid]) / 2 + j
        r = self.rel_s
        binary = Blocks(self.q[r], rho[r] - 1, np.ones(int(r.sum())), np.ones(int(r.sum())), self.gain_s[r])
        # DCG: the same rule with the gain items in place of the relevant ones. The tied items
        # without gain are split half before and half after them; the gain items keep their best
        # order, so the value stays between the optimistic and the pessimistic one.
        has_gain = self.gain_s > 0
        by_gain = np.lexsort((-self.gain_s, bid))
        j_gain = np.empty(bid.size)
        j_gain[by_gain] = np.arange(bid.size) - first[bid[by_gain]] + 1
        n_gain = np.bincount(bid, weights=has_gain)
        rho_gain = start[bid] + (size[bid] - n_gain[bid]) / 2 + j_gain
        g = has_gain
        gain_blocks = Blocks(self.q[g], rho_gain[g] - 1, np.ones(int(g.sum())),
                             self.rel_s[g].astype(np.float64), self.gain_s[g])
        return binary, gain_blocks

    def ranks(self, targets):
        data = self.data
        n_rel_q = np.bincount(data.query, weights=self.is_rel, minlength=data.n_queries)
        bid = self.block_id
        start = self.pos[self.first]
        if targets == "first":
            has = self.block_rel > 0
            bq = self.q[self.first]
            cand = np.flatnonzero(has)
            # blocks are sorted by query: the first relevant block of each query
            _, first_of_q = np.unique(bq[cand], return_index=True)
            blk = cand[first_of_q]
            s = start[blk].astype(np.float64)
            m = self.block_size[blk].astype(np.float64)
            r = self.block_rel[blk]
            query = bq[blk]
            # ordinal: first relevant row in input order among ties
            rel_rows = np.flatnonzero(self.rel_s)
            _, first_rel = np.unique(self.q[rel_rows], return_index=True)
            ordinal = self.pos[rel_rows[first_rel]] + 1.0
            n_cand = self.counts[query].astype(np.float64)
            num_relevant = n_rel_q[query]
            return _make_ranks(s, m, r, ordinal, n_cand, num_relevant, query, data.qid)
        # targets == "all": each relevant item against the non-relevant candidates only.
        crel = np.cumsum(self.rel_s)
        crel_excl = crel - self.rel_s
        rel_before_query = crel_excl[self.qstart[self.q]] if self.q.size else crel_excl
        rel_before_block = crel_excl[self.first][bid] - rel_before_query
        nonrel_before_block = start[bid] - rel_before_block
        nonrel_in_block = self.block_size[bid] - self.block_rel[bid]
        nonrel_before_row = self.pos - (crel_excl - rel_before_query)
        r = self.rel_s
        query = self.q[r]
        n_cand = (self.counts - n_rel_q)[query] + 1.0
        ones = np.ones(int(r.sum()))
        return _make_ranks(nonrel_before_block[r].astype(np.float64), nonrel_in_block[r] + 1.0, ones,
                           nonrel_before_row[r] + 1.0, n_cand, ones, query, data.qid)


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
class LabelIndexStructure:
    """Counts, for each row, candidates scored above and level with the true one."""

    def __init__(self, data):
        self.data = data
        score, target, exclude = data.score, data.target, data.exclude
        n_q, n_c = score.shape
        self.greater = np.empty(n_q, dtype=np.int64)
        self.equal = np.empty(n_q, dtype=np.int64)
        self.equal_before = np.empty(n_q, dtype=np.int64)
        self.n_candidates = np.empty(n_q, dtype=np.int64)
        step = max(1, _CHUNK_ELEMENTS // max(n_c, 1))
        cols = np.arange(n_c)
        for lo in range(0, n_q, step):
            hi = min(n_q, lo + step)
            block = score[lo:hi]
            true = block[np.arange(hi - lo), target[lo:hi]][:, None]
            keep = None
            if exclude is not None:
                ex = exclude[lo:hi]
                keep = ~(ex.toarray() if hasattr(ex, "toarray") else ex)
            finite = np.isfinite(block)
            if keep is not None:
                finite |= ~keep
            if not finite.all():
                row = lo + int(np.flatnonzero(~finite.all(axis=1))[0])
                raise ValueError("`y_score` must be finite (excluded candidates may hold any value). "
                                 f"Got a NaN or infinite score in row {row} instead.")
            gt = block > true
            eq = block == true
            if keep is not None:
                gt &= keep
                eq &= keep
            self.greater[lo:hi] = gt.sum(axis=1)
            self.equal[lo:hi] = eq.sum(axis=1) - 1
            self.equal_before[lo:hi] = (eq & (cols < target[lo:hi, None])).sum(axis=1)
            self.n_candidates[lo:hi] = n_c if keep is None else keep.sum(axis=1)

    def query_stats(self):
        n_q = self.data.n_queries
        ones = np.ones(n_q)
        return QueryStats(self.n_candidates.astype(np.float64), ones, ones, np.arange(n_q), ones)

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
            s = s + self.equal_before
        b = Blocks(np.arange(n_q), s, size, ones, ones)
        return b, b

    def ranks(self, targets):
        n_q = self.data.n_queries
        ones = np.ones(n_q)
        return _make_ranks(self.greater.astype(np.float64), self.equal + 1.0, ones,
                           self.greater + self.equal_before + 1.0, self.n_candidates.astype(np.float64),
                           ones, np.arange(n_q), self.data.qid)


# --------------------------------------------------------------------------------------------
# Expectations over "s + X", X the best of r positions drawn from 1..m without replacement.
# --------------------------------------------------------------------------------------------
def harmonic(x):
    """H(x) = sum_{j<=x} 1/j, extended to real x >= 0 through the digamma function."""
    return digamma(np.asarray(x, dtype=np.float64) + 1.0) + np.euler_gamma


def harmonic2(x):
    """Second-order harmonic number sum_{j<=x} 1/j**2 (real x >= 0)."""
    return np.pi ** 2 / 6 - polygamma(1, np.asarray(x, dtype=np.float64) + 1.0)


def _expand(s, m, r):
    """Probability mass of s + X for targets with r > 1: (owner, value, probability)."""
    length = (m - r + 1).astype(np.int64)
    owner = np.repeat(np.arange(len(s)), length)
    offsets = np.cumsum(length) - length
    x = np.arange(owner.size) - offsets[owner] + 1.0
    mo, ro = m[owner], r[owner]
    # P(X = x) = C(m - x, r - 1) / C(m, r)
    logp = (gammaln(mo - x + 1) - gammaln(mo - x - ro + 2) - gammaln(ro)
            - gammaln(mo + 1) + gammaln(mo - ro + 1) + gammaln(ro + 1))
    p = np.exp(logp)
    total = np.bincount(owner, weights=p, minlength=len(s))
    p /= total[owner]  # renormalise: removes the rounding of the log-gamma terms
    return owner, s[owner] + x, p


def expect_reciprocal(s, m, r, power=1):
    """E[1 / (s + X)**power] for power 1 or 2."""
    s, m, r = (np.asarray(a, dtype=np.float64) for a in (s, m, r))
    out = np.empty(s.shape)
    point = m == 1
    out[point] = 1.0 / (s[point] + 1) ** power
    uni = (~point) & (r == 1)
    h = harmonic if power == 1 else harmonic2
    out[uni] = (h(s[uni] + m[uni]) - h(s[uni])) / m[uni]
    many = (~point) & (r > 1)
    if many.any():
        idx = np.flatnonzero(many)
        owner, value, p = _expand(s[idx], m[idx], r[idx])
        out[idx] = np.bincount(owner, weights=p / value ** power, minlength=idx.size)
    return out


def expect_hits(s, m, r, k):
    """P(s + X <= k)."""
    s, m, r = (np.asarray(a, dtype=np.float64) for a in (s, m, r))
    t = np.clip(np.floor(k - s), 0, m)
    out = np.where(m == 1, t, t / m)
    many = (m > 1) & (r > 1)
    if many.any():
        mm, rr, tt = m[many], r[many], t[many]
        # 1 - C(m - t, r) / C(m, r)
        ok = mm - tt >= rr
        log_ratio = (gammaln(mm - tt + 1) - gammaln(mm - tt - rr + 1)
                     - gammaln(mm + 1) + gammaln(mm - rr + 1))
        out[many] = np.where(ok, -np.expm1(np.where(ok, log_ratio, 0.0)), 1.0)
    return out


def expect_rank(s, m, r):
    return np.asarray(s, dtype=np.float64) + (np.asarray(m, dtype=np.float64) + 1) / (np.asarray(r) + 1.0)


def variance_rank(m, r):
    """Var[X] of the best of r positions among m (s does not matter)."""
    m = np.asarray(m, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    return r * (m + 1) * (m - r) / ((r + 1) ** 2 * (r + 2))


def log_expect_power(s, m, r, a):
    """log E[(s + X)**a], with a per target (a = weight share of the target, for geometric means)."""
    s, m, r, a = (np.asarray(v, dtype=np.float64) for v in (s, m, r, a))
    out = np.empty(s.shape)
    point = m == 1
    out[point] = a[point] * np.log(s[point] + 1)
    uni = (~point) & (r == 1)
    if uni.any():
        idx = np.flatnonzero(uni)
        # sum_{j=s+1}^{s+m} j**a from a cumulative table per distinct exponent
        for value in np.unique(a[idx]):
            sel = idx[a[idx] == value]
            hi = (s[sel] + m[sel]).astype(np.int64)
            lo = s[sel].astype(np.int64)
            j = np.arange(1, hi.max() + 1, dtype=np.float64)
            table = np.concatenate(([0.0], np.cumsum(j ** value)))
            out[sel] = np.log((table[hi] - table[lo]) / m[sel])
    many = (~point) & (r > 1)
    if many.any():
        idx = np.flatnonzero(many)
        owner, value, p = _expand(s[idx], m[idx], r[idx])
        out[idx] = np.log(np.bincount(owner, weights=p * value ** a[idx][owner], minlength=idx.size))
    return out
