"""sklearn_rank._xp: NumPy as an array namespace on NumPy 1.26 (the standard's names it lacks) and 2.x."""

import numpy as np
import pytest

from sklearn_rank._xp import NUMPY, _NumPy1Namespace, is_numpy

SHIM = _NumPy1Namespace()  # what NUMPY is on NumPy 1.26, tested on whichever NumPy is installed


def test_numpy_is_the_namespace_on_numpy_2():
    assert is_numpy(NUMPY) and is_numpy(np)
    if hasattr(np, "astype"):
        assert NUMPY is np
    else:  # pragma: no cover - NumPy 1.26 (CI's oldest-dependency leg)
        assert isinstance(NUMPY, _NumPy1Namespace)


def test_other_names_pass_through_to_numpy():
    assert SHIM.where is np.where and SHIM.float64 is np.float64 and SHIM.bincount is np.bincount
    assert SHIM.bool is np.bool_


def test_astype_copies_unless_told_not_to():
    x = np.array([1, 2, 3], dtype=np.int64)
    out = SHIM.astype(x, np.float64)
    assert out.dtype == np.float64 and out.tolist() == [1.0, 2.0, 3.0]
    same = SHIM.astype(x, np.int64)
    assert same is not x and same.tolist() == x.tolist()
    assert SHIM.astype(x, np.int64, copy=False) is x


def test_concat_joins_along_an_axis():
    a, b = np.arange(6).reshape(2, 3), np.arange(6, 12).reshape(2, 3)
    assert SHIM.concat([a, b]).tolist() == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]
    assert SHIM.concat([a, b], axis=1).tolist() == [[0, 1, 2, 6, 7, 8], [3, 4, 5, 9, 10, 11]]


@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_sum_against_a_running_loop(include_initial):
    x = np.array([[3, 1, 4, 1], [5, 9, 2, 6]])
    for axis in (0, 1):
        out = SHIM.cumulative_sum(x, axis=axis, include_initial=include_initial)
        moved = np.moveaxis(x, axis, -1)
        expected = []
        for row in moved.reshape(-1, moved.shape[-1]).tolist():
            total, sums = 0, [0] if include_initial else []
            for v in row:
                total += v
                sums.append(total)
            expected.append(sums)
        expected = np.moveaxis(np.array(expected).reshape(moved.shape[:-1] + (-1,)), -1, axis)
        assert out.tolist() == expected.tolist()
        if hasattr(np, "cumulative_sum"):  # the standard's own, on NumPy 2
            assert out.tolist() == np.cumulative_sum(x, axis=axis, include_initial=include_initial).tolist()
    assert SHIM.cumulative_sum(np.array([1.5, 2.5])).tolist() == [1.5, 4.0]
    with pytest.raises(ValueError, match="axis must be given"):
        SHIM.cumulative_sum(x)


@pytest.mark.parametrize("dtype, kind, expected", [
    (np.float32, "real floating", True), (np.int64, "real floating", False), (np.int8, "integral", True),
    (np.uint16, "signed integer", False), (np.uint16, "unsigned integer", True), (np.bool_, "bool", True),
    (np.bool_, "integral", False), (np.bool_, "numeric", False), (np.float64, "numeric", True),
    (np.complex128, "complex floating", True), (np.int32, ("bool", "integral"), True),
    (np.float64, np.float64, True), (np.float32, np.float64, False),
])
def test_isdtype(dtype, kind, expected):
    assert SHIM.isdtype(np.dtype(dtype), kind) is expected
    if hasattr(np, "isdtype"):
        assert np.isdtype(np.dtype(dtype), kind) is expected


def test_arange_takes_the_cpu_device():
    # NumPy 1.26's arange has no device keyword; the standard's calls pass the input's device ("cpu")
    for device in (None, "cpu"):
        out = SHIM.arange(2, 7, 2, dtype=np.int64, device=device)
        assert out.dtype == np.int64 and out.tolist() == np.arange(2, 7, 2).tolist()
    with pytest.raises(ValueError, match="NumPy arrays live on the CPU. Got device 'cuda:0' instead."):
        SHIM.arange(3, device="cuda:0")
