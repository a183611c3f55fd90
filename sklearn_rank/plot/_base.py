"""What the Displays share: matplotlib on first use, argument checks, and an estimator's scores for the engine."""

from __future__ import annotations

import numbers

import numpy as np

from .._conventions import default_options

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
        raise TypeError(f"`ax` must be a matplotlib Axes or None. Got {type(ax).__name__} instead.")
    return ax


def _axes(ax, caller):
    plt = _pyplot(caller)
    if _check_ax(ax, caller) is None:
        _, ax = plt.subplots()
    return ax


# --------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------
def _positive_int(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"`{name}` must be a positive integer. Got {value!r} instead.")
    return int(value)


def _choice(value, name, allowed):
    if not any(value is a or (isinstance(value, str) and value == a) for a in allowed):
        raise ValueError(f"`{name}` must be one of {', '.join(repr(a) for a in allowed)}. Got {value!r} instead.")
    return value


def _name(value, name):
    if value is not None and not isinstance(value, str):
        raise TypeError(f"`{name}` must be a str or None. Got {type(value).__name__} instead.")
    return value


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
        raise TypeError(f"`estimator` must be a fitted scikit-learn estimator. Got {type(estimator).__name__} "
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

