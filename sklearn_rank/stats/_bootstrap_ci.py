"""Bootstrap confidence interval for a statistic of one sample of per-query values."""

import numpy as np
from scipy import stats as _scipy_stats

from .._checks import check_positive_int
from ..exceptions import DegenerateDataWarning, InputTypeError, InputValueError
from ._results import ConfidenceInterval
from ._validation import (_BOOTSTRAP_METHODS, _as_values, _check_confidence_level, _check_rng, _format_choices,
                          _warn)


def bootstrap_ci(values, *, statistic=np.mean, confidence_level=0.95, n_resamples=9999, method="BCa", rng=None):
    """Bootstrap confidence interval for a statistic of per-query values.

    Read more in the :ref:`User Guide <significance_bootstrap>`.

    Parameters
    ----------
    values : array-like of shape (n_queries,)
        Per-query values (or per-query differences of two models); at least
        two finite values.
    statistic : callable, default=numpy.mean
        Statistic of a 1-D sample. If it takes an ``axis`` keyword it is
        called on batches of resamples at once.
    confidence_level : float in (0, 1), default=0.95
        Coverage of the two-sided interval.
    n_resamples : int, default=9999
        Number of bootstrap resamples.
    method : {"percentile", "basic", "BCa"}, default="BCa"
        Interval construction (case-insensitive), as in
        :func:`scipy.stats.bootstrap`.
    rng : int or numpy.random.Generator, default=None
        Source of randomness; the same seed gives the same interval.

    Returns
    -------
    ci : ConfidenceInterval
        Named tuple ``(low, high)``: :func:`scipy.stats.bootstrap`'s interval.
        When every value is equal the interval is the single point
        ``(statistic(values), statistic(values))``, with a
        :class:`DegenerateDataWarning`.

    See Also
    --------
    scipy.stats.bootstrap : The resampling itself.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap",
       Chapman & Hall, 1993.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.stats import bootstrap_ci
    >>> reciprocal_ranks = [1.0, 0.5, 1.0, 0.33, 1.0, 0.25, 0.5, 1.0]
    >>> low, high = bootstrap_ci(reciprocal_ranks, n_resamples=999, rng=0)
    >>> bool(low < np.mean(reciprocal_ranks) < high)
    True
    >>> bool(0.25 <= low and high <= 1.0)
    True
    """
    array = _as_values(values, "values")
    if not callable(statistic):
        raise InputTypeError(f"`statistic` must be callable. Got {type(statistic).__name__} instead.")
    confidence_level = _check_confidence_level(confidence_level)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    methods = {choice.lower(): choice for choice in _BOOTSTRAP_METHODS}
    if not isinstance(method, str) or method.lower() not in methods:
        raise InputValueError(f"`method` must be one of {_format_choices(_BOOTSTRAP_METHODS)}. Got {method!r} instead.")
    generator = _check_rng(rng)
    if np.all(array == array[0]):
        point = float(statistic(array))
        _warn("Every value is equal, so every bootstrap resample is the same sample: the interval is "
              "the single point statistic(values).", DegenerateDataWarning)
        return ConfidenceInterval(point, point)
    res = _scipy_stats.bootstrap((array,), statistic, n_resamples=n_resamples, confidence_level=confidence_level,
                                 method=methods[method.lower()], rng=generator)
    return ConfidenceInterval(float(res.confidence_interval.low), float(res.confidence_interval.high))
