"""Segment reductions of NumPy arrays sorted by segment (a query's rows, a query's blocks).

The array API standard has no segment reduction; these are the NumPy primitives the kernels build on
(``np.bincount``, running sums, first elements of runs). Every function takes the segment ids ``seg``
sorted, each segment's elements contiguous.
"""

from __future__ import annotations

import numpy as np


def is_nondecreasing(values):
    """Whether ``values`` are sorted (each query's rows contiguous, for query codes)."""
    return bool((values[1:] >= values[:-1]).all())


def segment_starts(seg):
    """True where a run of equal values of ``seg`` begins (at the first element, and at each change)."""
    new = np.empty(seg.size, dtype=bool)
    new[:1] = True
    np.not_equal(seg[1:], seg[:-1], out=new[1:])
    return new


def exclusive_segment_sum(values, seg):
    """For values sorted by segment: the sum of the earlier values of the same segment."""
    if values.size == 0:
        return np.zeros(0)
    cs = np.cumsum(values) - values
    new = segment_starts(seg)
    starts = np.flatnonzero(new)
    return cs - cs[starts][np.cumsum(new) - 1]


def segment_sum(seg, values, n):
    """The sum of ``values`` per segment, segments 0..n-1 (added in order of the elements)."""
    return np.bincount(seg, weights=values, minlength=n)


def segment_max(seg, values, n, initial=0.0):
    """The largest of ``initial`` and the ``values`` of each segment (seg sorted), segments 0..n-1: a
    reduction per segment (``np.maximum.at`` holds the GIL and is several times slower)."""
    out = np.full(n, initial, dtype=np.float64)
    if seg.size:
        starts = np.flatnonzero(segment_starts(seg))
        out[seg[starts]] = np.maximum(np.maximum.reduceat(values, starts), initial)
    return out


def local_exclusive_sum(values, seg):
    """For float values sorted by segment: the sum of the earlier values of the same segment, computed
    from that segment's values only (a scan by doubling), so that a query's value does not depend on
    the queries before it: a running sum over all segments, less its value at the segment's start,
    rounds by the size of the earlier segments' total (parts split differently gave other last bits).
    """
    if values.size == 0:
        return np.zeros(0)
    pos = np.arange(values.size) - exclusive_first(seg)  # place within the segment
    inclusive = values.astype(np.float64)  # a copy
    step, longest = 1, int(pos.max())
    while step <= longest:
        at = np.flatnonzero(pos >= step)
        inclusive[at] = inclusive[at] + inclusive[at - step]  # the right side is read before the write
        step *= 2
    out = np.zeros(values.size)
    later = pos > 0
    out[later] = inclusive[np.flatnonzero(later) - 1]
    return out


def exclusive_first(seg):
    """Index of the first element of each element's segment (seg sorted)."""
    new = segment_starts(seg)
    starts = np.flatnonzero(new)
    return starts[np.cumsum(new) - 1]


def first_true_per_segment(mask, seg, n):
    """Index of the first True of each segment (seg sorted), -1 where none."""
    idx = np.flatnonzero(mask)
    owner = seg[idx]
    # idx is increasing and seg sorted: the first True of a segment is where owner changes.
    # Each segment is written once (NumPy leaves the winner of repeated fancy writes open).
    first = segment_starts(owner)
    out = np.full(n, -1, dtype=np.intp)
    out[owner[first]] = idx[first]
    return out
