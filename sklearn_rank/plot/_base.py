"""What the Displays share: matplotlib on first use, argument checks, and an estimator's scores for the engine."""

from __future__ import annotations

import numbers

import numpy as np

from .._conventions import default_options
from ..exceptions import InputTypeError, InputValueError

# The engine's defaults, as markers a ``convention=`` preset may replace (an explicit value wins).
_D = default_options(ties="expected", no_relevant="skip", targets="first", nan_policy="raise")

# Rank axes turn logarithmic when the largest possible rank is more than this many times the smallest (1).
LOG_SCALE_RATIO = 50


# --------------------------------------------------------------------------------------------
# matplotlib, imported on first use
# --------------------------------------------------------------------------------------------
def _pyplot(caller):
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(f"{caller} needs matplotlib, which the `plot` extra of sklearn-rank installs: "
                          f'pip install "sklearn-rank[plot]" (or pip install matplotlib). '
                          f"The import failed with: {exc}") from exc
    return plt


def _check_ax(ax, caller):
    """``ax`` itself, checked before any work: a matplotlib Axes or None."""
    if ax is None:
        return None
    _pyplot(caller)
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise InputTypeError(f"`ax` must be a matplotlib Axes or None. Got {type(ax).__name__} instead.")
    return ax


def _axes(ax, caller):
    plt = _pyplot(caller)
    if _check_ax(ax, caller) is None:
        _, ax = plt.subplots()
    return ax


# --------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------
def _choice(value, name, allowed):
    if not any(value is a or (isinstance(value, str) and value == a) for a in allowed):
        raise InputValueError(f"`{name}` must be one of {', '.join(repr(a) for a in allowed)}. Got {value!r} instead.")
    return value


def _name(value, name):
    if value is not None and not isinstance(value, str):
        raise InputTypeError(f"`{name}` must be a str or None. Got {type(value).__name__} instead.")
    return value


def _bool(value, name):
    # a string such as "no" is truthy: only a real bool says what the caller meant
    if not isinstance(value, (bool, np.bool_)):
        raise InputTypeError(f"`{name}` must be a bool. Got {type(value).__name__} instead.")
    return bool(value)


def _numbers(values, name):
    """``values`` as an array of real numbers (integer, float, or object holding numbers as float), or a
    TypeError naming the first element that is not a number (bools, strings, None and complex are not)."""
    array = np.asarray(values)
    kind = array.dtype.kind
    if kind in "iuf":
        return array
    flat = array.ravel()
    position = 0
    if kind == "O":
        is_number = [isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in flat.tolist()]
        if all(is_number):
            return array.astype(np.float64)
        position = is_number.index(False)
    if flat.size == 0:  # an empty array of another dtype: nothing in it is a number
        raise InputTypeError(f"`{name}` must hold numbers. Got an empty array of {array.dtype} instead.")
    value = flat[position].item() if kind != "O" else flat[position]
    where = (f"{name}[{', '.join(str(i) for i in np.unravel_index(position, array.shape))}]" if array.ndim
             else name)
    raise InputTypeError(f"`{name}` must hold numbers. Got {where} = {value!r} ({type(value).__name__}) instead.")


def _first_outside(inside, values, name, rule):
    """A ValueError naming the first of ``values`` where ``inside`` is False (``rule``: what it must be)."""
    if not inside.all():
        i = int(np.flatnonzero(~inside)[0])
        raise InputValueError(f"`{name}` must {rule}. Got {name}[{i}] = {values[i].item()!r} instead.")


def _no_target(ranks, relevance_level, what):
    """The error for ranks without a target: the relevance rule that found none, by the parameter that set it."""
    n_queries = len(ranks.qid)
    if relevance_level is None:
        return InputValueError(f"No query has a relevant item (y_true > 0) among its candidates: {what}. "
                               f"Got {n_queries} queries without one instead.")
    return InputValueError("`relevance_level` must leave at least one query with a relevant item (y_true >= "
                           f"relevance_level): {what}. Got relevance_level={relevance_level!r}, with none in the "
                           f"{n_queries} queries, instead.")


# The artist each Display's **kwargs reach, through which Axes method; the method's own parameters that the
# Display sets itself (a second value would be a TypeError from inside, after all the work).
_ARTISTS = {"plot": ("matplotlib.lines", "Line2D", ("args",)),
            "bar": ("matplotlib.patches", "Rectangle", ("x", "height", "width", "align")),
            "scatter": ("matplotlib.collections", "PathCollection", ("x", "y"))}
# Keywords Axes.bar takes from **kwargs for itself (error bars, tick labels), not properties of the bars.
_BAR_KEYWORDS = ("tick_label", "xerr", "yerr", "ecolor", "capsize", "error_kw", "log")


def _check_keywords(kwargs, method, caller, own, *, hints=None):
    """Refuse, before any work, a keyword that neither the Display (``own``: its method) nor matplotlib's
    ``Axes.<method>`` would take: matplotlib only says so once everything is computed, in its own words.

    ``hints`` maps likely guesses to the Display's own keyword (``max_k`` -> ``k``). Nothing is imported when
    ``kwargs`` is empty (matplotlib is imported when drawing).
    """
    if not kwargs:
        return
    import difflib
    import importlib
    import inspect

    _pyplot(caller)
    from matplotlib.axes import Axes

    module, artist_name, fixed = _ARTISTS[method]
    artist = getattr(importlib.import_module(module), artist_name)
    own = [p for p in inspect.signature(own).parameters if p not in ("self", "cls", "kwargs")]
    taken = [p for p in inspect.signature(getattr(Axes, method)).parameters
             if p not in ("self", "kwargs") and p not in fixed]
    taken += [a[4:] for a in dir(artist) if a.startswith("set_")] + list(_BAR_KEYWORDS if method == "bar" else ())
    for name, value in kwargs.items():
        if name in taken and name not in fixed:  # (a Rectangle has set_width: the bar's width is the bin's)
            continue
        if name in fixed:
            note = " (the display sets it)"
        else:
            guess = (hints or {}).get(name) or next(iter(difflib.get_close_matches(name, own + taken, n=1,
                                                                                    cutoff=0.75)), None)
            note = f" (did you mean {guess!r}?)" if guess else ""
        shown = repr(value) if len(repr(value)) <= 40 else f"<{type(value).__name__}>"
        raise InputTypeError(f"{caller} got an unexpected keyword argument {name!r}{note}: its own keywords are "
                             f"{', '.join(own)}; any other keyword goes to matplotlib's Axes.{method} and must be a "
                             f"property of a {artist_name}. Got {name}={shown} instead.")


# --------------------------------------------------------------------------------------------
# from an estimator to the inputs of the engine
# --------------------------------------------------------------------------------------------
def _estimator_inputs(estimator, X, y, qid, caller):
    """The engine's inputs from a fitted estimator, and the metric options of a RankingEvaluator.

    A :class:`~sklearn_rank.RankingEvaluator` reads its query ids as its ``score`` does (the
    ``qid`` column of X, or ``qid=``), strips the column and asks its wrapped estimator; a plain
    estimator takes ``qid=`` (grouped rows), or a classifier's class scores (label-index layout),
    or a 2-D y (relevance matrix), exactly as the scorers read them.
    """
    from sklearn.utils.validation import check_is_fitted

    from .._evaluator import RankingEvaluator, evaluator_inputs
    from .._scorer import ranking_inputs

    if isinstance(estimator, RankingEvaluator):
        _, inputs, options = evaluator_inputs(estimator, X, y, qid)
        return inputs, options
    if not hasattr(estimator, "fit"):
        raise InputTypeError(f"`estimator` must be a fitted scikit-learn estimator. Got {type(estimator).__name__} "
                             "instead.")
    check_is_fitted(estimator)
    query = None if qid is None else np.asarray(qid)
    message = (f"{caller} needs query ids to rank the rows of X with {type(estimator).__name__} (1-D y with a "
               "regressor or ranker is the grouped-rows layout): pass qid=..., or wrap the estimator in a "
               "RankingEvaluator that reads a query-id column of X. Got qid=None instead.")
    inputs = ranking_inputs(estimator, X, y, query, allow_single_query=False, missing_qid_message=message)
    return inputs, {}


def _estimator_name(estimator):
    """The legend's default name: the class of the estimator (of the wrapped one, for a RankingEvaluator)."""
    from .._evaluator import RankingEvaluator

    inner = getattr(estimator, "estimator_", None)
    return type(inner if inner is not None and isinstance(estimator, RankingEvaluator) else estimator).__name__


def _merge(options, **explicit):
    """The evaluator's options (``options``), overridden by the arguments written (not None)."""
    merged = {name: value for name, value in options.items() if name in explicit}
    merged.update({name: value for name, value in explicit.items() if value is not None})
    return merged

