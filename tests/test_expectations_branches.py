"""The expectations over tie orders are written once for every array namespace; where a primitive is
missing from the array API standard, a helper has a NumPy branch (scipy.special, log-gamma masses added
by np.bincount) and a branch for the other namespaces (series, matrices of terms). The two branches of
each helper must give the same numbers."""

import numpy as np
import pytest

from sklearn_rank import _expectations as ex

xps = pytest.importorskip("array_api_strict")


def _tie_blocks(seed, n=400):
    # targets after s others in tie blocks of m, best of r relevant ones: points, uniform and r > 1
    rng = np.random.default_rng(seed)
    m = rng.choice([1, 2, 7, 30, 300], size=n).astype(float)
    r = np.minimum(rng.integers(1, 5, size=n), m).astype(float)
    s = rng.integers(0, 50, size=n).astype(float)
    a = rng.random(n) * 2  # exponents of the power means, 0 <= a <= 2
    return s, m, r, a


def _both(fn, *arrays, **kwargs):
    numpy_value = fn(*arrays, xp=np, **kwargs)
    other = fn(*(xps.asarray(v) for v in arrays), xp=xps, **kwargs)
    return numpy_value, np.asarray(other)


@pytest.mark.parametrize("seed", [0, 1])
def test_numpy_branch_and_namespace_branch_agree(seed):
    s, m, r, a = _tie_blocks(seed)
    cases = [
        (ex.harmonic, (s + m,), {}),
        (ex.harmonic2, (s + m,), {}),
        (ex.expect_reciprocal, (s, m, r), {}),
        (ex.expect_reciprocal, (s, m, r), {"power": 2}),
        (ex.expect_reciprocal, (s, m, r), {"k": 40}),
        (ex.expect_hits, (s, m, r), {"k": 40}),
        (ex.expect_hits, (s, m, r), {"k": 3}),
        (ex.expect_rank, (s, m, r), {}),
        (ex.variance_rank, (m, r), {}),
        (ex.expect_power_excess, (s, m, r, a), {}),
        (ex.log_expect_power, (s, m, r, a), {}),
    ]
    for fn, arrays, kwargs in cases:
        numpy_value, other = _both(fn, *arrays, **kwargs)
        assert numpy_value.shape == other.shape == s.shape
        # hits: NumPy's log-gamma difference loses about 1e-13 in absolute terms for m in the hundreds
        atol = 1e-12 if fn is ex.expect_hits else 0.0
        np.testing.assert_allclose(other, numpy_value, rtol=1e-12, atol=atol, err_msg=f"{fn.__name__} {kwargs}")


def test_namespace_branch_keeps_the_shape_of_2d_arrays():
    s, m, r, a = (v.reshape(20, 20) for v in _tie_blocks(2))
    for fn, arrays in ((ex.expect_reciprocal, (s, m, r)), (ex.log_expect_power, (s, m, r, a))):
        numpy_value, other = _both(fn, *arrays)
        assert other.shape == (20, 20)
        np.testing.assert_allclose(other, numpy_value, rtol=1e-12)
