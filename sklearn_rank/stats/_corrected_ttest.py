"""The Nadeau-Bengio corrected resampled t test for cross-validation scores."""

import math
import numbers

import numpy as np

from ._intervals import _PointInterval, _pvalue_from_t, _TInterval
from ._results import ComparisonResult, _with_interval
from ._tests import _constant_difference_answer, _degenerate, _paired_counts, _standardised, _variance
from ._validation import _ALTERNATIVES, _as_values, _check_choice
from ..exceptions import InputValueError


def corrected_ttest(scores_a, scores_b, *, n_train, n_test, alternative="two-sided"):
    """Nadeau-Bengio corrected resampled t test for cross-validation scores of two models.

    Scores of the same folds are not independent (the training sets
    overlap), which makes the plain paired t test far too optimistic. Nadeau
    and Bengio inflate the variance of the mean difference accordingly.

    Read more in the :ref:`User Guide <significance_corrected_ttest>`.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_folds,)
        Per-fold scores of each model on the same folds, for example
        ``cross_validate(...)["test_score"]``, or one candidate's
        ``split0_test_score``, ``split1_test_score``, ... from
        ``GridSearchCV.cv_results_``. At least two folds.
    n_train, n_test : int
        Size of the training and test set of one fold.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"greater"``: model A scores higher than model B.

    Returns
    -------
    result : ComparisonResult
        With ``d = scores_a - scores_b`` over ``k`` folds:
        ``statistic = mean(d) / sqrt((1 / k + n_test / n_train) * var(d, ddof=1))``
        and the p-value from Student's t with ``k - 1`` degrees of freedom.
        ``estimate`` is ``mean(d)``, ``effect_size`` is d_z
        (``mean(d) / std(d, ddof=1)``, uncorrected), and the confidence
        interval uses the corrected standard error. Constant differences
        (zero variance) return statistic 0.0 and p-value 1.0 when they are
        zero (an infinite statistic otherwise) with a
        :class:`DegenerateDataWarning`.

    See Also
    --------
    compare : Tests on per-query values.

    References
    ----------
    .. [1] C. Nadeau and Y. Bengio, "Inference for the generalization error",
       Machine Learning 52(3), 2003.
    .. [2] scikit-learn example "Statistical comparison of models using grid
       search".

    Examples
    --------
    >>> from sklearn_rank.stats import corrected_ttest
    >>> scores_a = [0.81, 0.79, 0.84, 0.80, 0.82]
    >>> scores_b = [0.78, 0.77, 0.80, 0.79, 0.78]
    >>> res = corrected_ttest(scores_a, scores_b, n_train=800, n_test=200)
    >>> round(res.statistic, 3), round(res.pvalue, 4)
    (3.201, 0.0329)
    """
    _check_choice(alternative, "alternative", _ALTERNATIVES)
    x = _as_values(scores_a, "scores_a")
    y = _as_values(scores_b, "scores_b")
    if x.size != y.size:
        raise InputValueError("`scores_a` and `scores_b` must hold the scores of the same folds. "
                              f"Got {x.size} and {y.size} scores instead.")
    for value, name in ((n_train, "n_train"), (n_test, "n_test")):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not value > 0:
            raise InputValueError(f"`{name}` must be a positive number of samples. Got {value!r} instead.")
    d = x - y
    folds = d.size
    df = folds - 1
    variance = _variance(d)
    difference = float(np.mean(d))
    if np.all(d == d[0]) or variance == 0:
        difference = float(d[0])
        _degenerate("Every fold gives the same score difference (zero variance), so the corrected t "
                    "statistic is undefined: returning statistic 0.0 and p-value 1.0 for a zero difference, "
                    "an infinite statistic otherwise.")
        statistic, pvalue = _constant_difference_answer(difference, alternative)
        interval = _PointInterval(difference, alternative)
    else:
        standard_error = math.sqrt((1 / folds + n_test / n_train) * variance)
        statistic = difference / standard_error
        pvalue = _pvalue_from_t(statistic, df, alternative)
        interval = _TInterval(difference, standard_error, df, alternative)
    return _with_interval(ComparisonResult(
        statistic=float(statistic), pvalue=float(pvalue), test="corrected_ttest", alternative=alternative,
        n_a=folds, n_b=folds, estimate=difference, estimate_name="mean_difference",
        effect_size=_standardised(difference, math.sqrt(variance)), effect_size_name="d_z", paired=True,
        mean_a=float(np.mean(x)), mean_b=float(np.mean(y)),
        **dict(zip(("wins", "ties", "losses"), _paired_counts(x, y)))), interval)
