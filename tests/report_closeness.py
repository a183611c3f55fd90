"""One vectorised comparison of the values of two reports, for the tests that compare hundreds of pairs.

``np.testing.assert_allclose`` once per metric, for the summary and again for the per-query values, cost
about 13 ms per pair of reports of 43 metrics (half of tests/test_properties.py's time). ``values_close``
accepts exactly what those calls accept, in a few NumPy calls; a test runs its own per-metric assertions
only when it says no, for their messages.
"""

import numpy as np


def values_close(left, right, summary_names, per_query_names, *, rtol, atol):
    """Whether every summary value of ``summary_names`` and per-query array of ``per_query_names`` in ``left``
    lies within ``atol + rtol * |right|`` of the one in ``right``: NaN where the other is NaN, an infinity
    where the other is the same infinity, per-query arrays of the same shape (what
    ``np.testing.assert_allclose(..., equal_nan=True)`` accepts, value by value)."""
    got = [np.asarray(left.summary[name], dtype=float).reshape(-1) for name in summary_names]
    expected = [np.asarray(right.summary[name], dtype=float).reshape(-1) for name in summary_names]
    for name in per_query_names:
        got.append(np.asarray(left.per_query[name], dtype=float))
        expected.append(np.asarray(right.per_query[name], dtype=float))
        if got[-1].shape != expected[-1].shape:
            return False
    if not got:
        return True
    return bool(np.allclose(np.concatenate(got), np.concatenate(expected), rtol=rtol, atol=atol, equal_nan=True))
