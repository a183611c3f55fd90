"""check_positive_int: the one check of a count or cut-off parameter (k, n_resamples, n_bins, ...)."""

import re

import numpy as np
import pytest

from sklearn_rank._checks import check_positive_int
from sklearn_rank.exceptions import InputTypeError, InputValueError


@pytest.mark.parametrize("value, kwargs, expected", [
    (1, {}, 1),
    (10**20, {}, 10**20),
    (np.int64(3), {}, 3),
    (np.uint8(255), {}, 255),
    (np.uint64(2**63), {}, 2**63),
    (np.array(4), {}, 4),
    (2, {"minimum": 2}, 2),
    (0, {"minimum": 0}, 0),
    (-3, {"minimum": -5}, -3),
    (5, {"type_error": True}, 5),
])
def test_accepted(value, kwargs, expected):
    got = check_positive_int(value, "n", **kwargs)
    assert got == expected and type(got) is int


@pytest.mark.parametrize("value, kwargs, error, message", [
    # below the minimum: always a ValueError, the integer shown as a Python int
    (0, {}, InputValueError, "`n` must be a positive integer. Got 0 instead."),
    (-3, {}, InputValueError, "`n` must be a positive integer. Got -3 instead."),
    (np.int64(0), {}, InputValueError, "`n` must be a positive integer. Got 0 instead."),
    (np.array(0), {"type_error": True}, InputValueError, "`n` must be a positive integer. Got 0 instead."),
    (1, {"minimum": 2}, InputValueError, "`n` must be an integer >= 2. Got 1 instead."),
    (3, {"minimum": 4, "rule": "at least 4"}, InputValueError, "`n` must be at least 4. Got 3 instead."),
    # not an integer: a ValueError by default
    (True, {}, InputValueError, "`n` must be a positive integer. Got True instead."),
    (np.True_, {}, InputValueError, f"`n` must be a positive integer. Got {np.True_!r} instead."),  # NumPy 1: True
    (2.5, {}, InputValueError, "`n` must be a positive integer. Got 2.5 instead."),
    (5.0, {}, InputValueError, "`n` must be a positive integer. Got 5.0 instead."),
    (np.float64(5), {}, InputValueError, f"`n` must be a positive integer. Got {np.float64(5)!r} instead."),
    ("10", {}, InputValueError, "`n` must be a positive integer. Got '10' instead."),
    (None, {}, InputValueError, "`n` must be a positive integer. Got None instead."),
    (np.array([5]), {}, InputValueError, "`n` must be a positive integer. Got array([5]) instead."),
    (np.array(5.0), {}, InputValueError, "`n` must be a positive integer. Got array(5.) instead."),
    (2.5, {"rule": "None or an integer >= 1"}, InputValueError,
     "`n` must be None or an integer >= 1. Got 2.5 instead."),
    # not an integer, with type_error=True: a TypeError naming the type
    (True, {"type_error": True}, InputTypeError, "`n` must be a positive integer. Got True of type bool instead."),
    (2.5, {"type_error": True}, InputTypeError, "`n` must be a positive integer. Got 2.5 of type float instead."),
    ("3", {"type_error": True}, InputTypeError, "`n` must be a positive integer. Got '3' of type str instead."),
    (np.float32(2), {"type_error": True}, InputTypeError,
     f"`n` must be a positive integer. Got {np.float32(2)!r} of type float32 instead."),
])
def test_refused(value, kwargs, error, message):
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        check_positive_int(value, "n", **kwargs)


def test_errors_are_the_builtin_classes():
    # callers and users catch ValueError and TypeError
    with pytest.raises(ValueError):
        check_positive_int(0, "n")
    with pytest.raises(TypeError):
        check_positive_int(1.5, "n", type_error=True)
