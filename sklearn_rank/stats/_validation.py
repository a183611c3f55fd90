"""Argument checks and per-query values: the one place that validates what users pass to the tests."""

import numbers
import os
import sys
import warnings
from collections.abc import Mapping

import numpy as np

from .._inputs import check_option as _check_choice  # noqa: F401 (the engine's check, for stats)
from ..exceptions import InputTypeError, InputValueError

_ALTERNATIVES = ("two-sided", "less", "greater")
# The choices of `test` and `correction` (of compare and compare_many). Public, for the modules that offer
# them (the command line's --test and --correction).
TESTS = ("auto", "mannwhitneyu", "wilcoxon", "ttest", "permutation", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "fdr_bh", None)
_BOOTSTRAP_METHODS = ("percentile", "basic", "BCa")
_PACKAGE_DIRECTORY = os.path.dirname(__file__) + os.sep


def _warn(message, category):
    """Warn at the first caller outside ``sklearn_rank.stats``, however deep in the package the warning starts.

    (Python 3.12's ``warnings.warn(skip_file_prefixes=...)``, by hand for older versions.)
    """
    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIRECTORY):
        level, frame = level + 1, frame.f_back
    warnings.warn(message, category, stacklevel=level)


def _format_choices(allowed):
    return "{" + ", ".join(repr(choice) for choice in allowed) + "}"


def _check_confidence_level(confidence_level):
    if (isinstance(confidence_level, (bool, np.bool_)) or not isinstance(confidence_level, numbers.Real)
            or not 0 < confidence_level < 1):
        raise InputValueError("`confidence_level` must be a number strictly between 0 and 1. "
                              f"Got {confidence_level!r} instead.")
    return float(confidence_level)


def _check_paired(paired):
    if paired is None:
        return None
    if isinstance(paired, (bool, np.bool_)):
        return bool(paired)
    raise InputValueError(f"`paired` must be None, True or False. Got {paired!r} instead.")


def _check_rng(rng):
    """``numpy.random.default_rng(rng)`` for what the tests accept: None, a non-negative int seed or a Generator.

    A Generator comes back as it is (its state advances with use); other seeds numpy also accepts
    (a SeedSequence, a RandomState on NumPy 2) are refused, so every NumPy version takes the same arguments.
    """
    if isinstance(rng, (bool, np.bool_)) or not (rng is None or isinstance(rng, (numbers.Integral,
                                                                                 np.random.Generator))):
        raise InputTypeError("`rng` must be None, a non-negative int or a numpy.random.Generator. "
                             f"Got {type(rng).__name__} instead.")
    if isinstance(rng, numbers.Integral):
        if rng < 0:
            raise InputValueError(f"`rng` must be a non-negative integer seed. Got {rng!r} instead.")
        rng = int(rng)
    return np.random.default_rng(rng)


def _preview(items, limit=10):
    items = list(items)
    shown = ", ".join(repr(item.item() if isinstance(item, np.generic) else item) for item in items[:limit])
    more = f", ... ({len(items) - limit} more)" if len(items) > limit else ""
    return f"[{shown}{more}]"


def _is_report(obj):
    return isinstance(getattr(obj, "per_query", None), Mapping)


def _as_values(values, name, *, qid=None):
    """Validate one sample of per-query values: a finite 1-D float array of at least two values."""
    if _is_report(values):
        raise InputTypeError(f"`{name}` is a report; pass reports to compare(..., metric=...), "
                             "or pass report.per_query[metric] here. "
                             f"Got {type(values).__name__} instead.")
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputTypeError(f"`{name}` must be a 1-D array of numbers. Got {type(values).__name__} instead.") from exc
    if array.ndim != 1:
        raise InputValueError(f"`{name}` must be a 1-D array of per-query values. "
                              f"Got an array of shape {array.shape} instead.")
    if array.size < 2:
        raise InputValueError(f"`{name}` needs at least two values. Got {array.size} instead.")
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        where = (f"query ids {_preview(np.asarray(qid)[bad])}" if qid is not None
                 else f"positions {_preview(bad)}")
        raise InputValueError(f"`{name}` must not contain NaN or infinite values. "
                              f"Got {array[bad[0]]} at {where} instead.")
    return array
