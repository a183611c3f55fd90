"""NumPy as an array namespace, on every supported NumPy version.

The formulas written once for every array namespace (rank statistics, expectations) run on NumPy
arrays with ``xp = NUMPY``. NumPy 2 follows the array API standard in its main namespace, so there
``NUMPY`` is ``numpy`` itself. NumPy 1.26 lacks the standard's names that those formulas use
(``astype``, ``concat``, ``cumulative_sum``, ``isdtype``, ``bool``); ``NUMPY`` is then a namespace
that gives them in terms of NumPy 1.26 and passes every other name through to ``numpy``, so both
versions compute with the same NumPy functions and give the same numbers.
"""

from __future__ import annotations

import numpy as np

__all__ = ["NUMPY", "is_numpy"]

_KINDS = {"bool": np.bool_, "signed integer": np.signedinteger, "unsigned integer": np.unsignedinteger,
          "integral": np.integer, "real floating": np.floating, "complex floating": np.complexfloating,
          "numeric": np.number}


class _NumPy1Namespace:
    """The array API names NumPy 1.26 lacks, over ``numpy`` (only used on NumPy < 2)."""

    bool = np.bool_

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def astype(x, dtype, /, *, copy=True):
        return np.asarray(x).astype(dtype, copy=copy)

    @staticmethod
    def concat(arrays, /, *, axis=0):
        return np.concatenate(arrays, axis=axis)

    @staticmethod
    def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
        x = np.asarray(x)
        if axis is None:
            if x.ndim > 1:
                raise ValueError(f"axis must be given for an array of {x.ndim} dimensions. Got None instead.")
            axis = 0
        out = np.cumsum(x, axis=axis, dtype=dtype)
        if include_initial:
            shape = list(out.shape)
            shape[axis] = 1
            out = np.concatenate([np.zeros(shape, dtype=out.dtype), out], axis=axis)
        return out

    @staticmethod
    def argsort(x, /, *, axis=-1, descending=False, stable=True):
        if descending:
            raise NotImplementedError("descending argsort is not used here")
        return np.argsort(x, axis=axis, kind="stable" if stable else None)

    @staticmethod
    def arange(*args, device=None, **kwargs):
        _check_cpu(device)
        return np.arange(*args, **kwargs)

    @staticmethod
    def isdtype(dtype, kind):
        if isinstance(kind, tuple):
            return any(_NumPy1Namespace.isdtype(dtype, k) for k in kind)
        if isinstance(kind, str):
            return np.issubdtype(dtype, _KINDS[kind])
        return np.dtype(dtype) == np.dtype(kind)


def _check_cpu(device):
    if device not in (None, "cpu"):
        raise ValueError(f"NumPy arrays live on the CPU. Got device {device!r} instead.")


NUMPY = np if hasattr(np, "astype") else _NumPy1Namespace()


def is_numpy(xp):
    """Whether the namespace ``xp`` computes on NumPy arrays with NumPy's own functions."""
    return xp is NUMPY or xp is np
