"""Checks of scalar parameters shared by the package's entry points.

The module imports only NumPy and the package's exceptions, so that any module can import it.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from .exceptions import InputTypeError, InputValueError


def check_positive_int(value, name, *, minimum=1, rule=None, type_error=False):
    """Return ``value`` as an int after checking that it is an integer of at least ``minimum``.

    Integers are Python and NumPy integers and 0-d integer arrays (what :func:`operator.index`
    takes); booleans, floats (even ``5.0``), strings and other arrays are refused.

    Parameters
    ----------
    value : object
        The parameter's value.
    name : str
        The parameter's name, shown in backticks in the message.
    minimum : int, default=1
        The smallest value accepted.
    rule : str, default=None
        What the message says ``value`` must be: by default ``"a positive integer"`` when
        ``minimum`` is 1, else ``"an integer >= {minimum}"``.
    type_error : bool, default=False
        Raise an ``InputTypeError`` naming the type of a value that is not an integer at all;
        else an ``InputValueError``, as for an integer below ``minimum``.

    Returns
    -------
    value : int
        The value as a Python int.

    Raises
    ------
    InputTypeError
        (a ``TypeError``) With ``type_error=True``, for a value that is not an integer.
    InputValueError
        (a ``ValueError``) For an integer below ``minimum``, and for a value that is not an
        integer unless ``type_error=True``.
    """
    if rule is None:
        rule = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
    try:
        if isinstance(value, (bool, np.bool_)):
            raise TypeError
        number = operator.index(value)
    except TypeError:
        if type_error:
            raise InputTypeError(f"`{name}` must be {rule}. Got {value!r} of type {type(value).__name__} "
                                 "instead.") from None
        raise InputValueError(f"`{name}` must be {rule}. Got {value!r} instead.") from None
    if number < minimum:
        raise InputValueError(f"`{name}` must be {rule}. Got {number!r} instead.")
    return number


def check_relevance_level(relevance_level):
    if relevance_level is None:
        return None
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, numbers.Real):
        raise InputTypeError(f"`relevance_level` must be a number. Got {relevance_level!r} instead.")
    if not relevance_level > 0:
        raise InputValueError(f"`relevance_level` must be > 0 (0 means not relevant). Got {relevance_level!r} instead.")
    return float(relevance_level)
