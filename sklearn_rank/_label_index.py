"""The label-index layout (a score matrix and each row's true column): ranks by counting, never sorting.

For each row, the candidates scored above the true one and level with it are counted, a chunk of
rows at a time (:class:`LabelIndexStructure` for NumPy, with packed boolean counts; 
:class:`NamespaceLabelIndex` in another array namespace); each target's block follows from the two
counts, so the layout gives the same per-query facts, blocks and ranks as the sorted layouts.
"""

from __future__ import annotations

import functools

import numpy as np

from ._inputs import nan_message
from ._namespace_inputs import SparseMask, namespace_chunk, take_entries
from ._ranks import Blocks, QueryStats, make_ranks, namespace_ranks
from .exceptions import InputValueError

# Entries of the score matrix processed at once in the label-index layout, whole rows: the
# chunk (512 KiB of float32 scores) and its flag buffers stay in a 2 MiB CPU cache between the
# passes over them, whatever the matrix size (2**18 measured 5-10% slower on workload 2, 2**16
# no faster).
_CHUNK_ELEMENTS = 1 << 17


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
        return make_ranks(self.greater.astype(np.float64), self.equal + 1.0, ones, ordinal,
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
        return namespace_ranks(xp, s, m, xp.ones_like(s), ordinal, self.n_candidates, ones,
                                xp.arange(n_q, dtype=xp.int64, device=self.data.device), self.data.qid)
