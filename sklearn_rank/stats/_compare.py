"""Public tests of two samples: compare and mann_whitney_u."""

from ._results import _replaced
from ._tests import _mann_whitney, _run
from ._validation import _ALTERNATIVES, _as_values, _check_choice


def mann_whitney_u(a, b, *, alternative="two-sided"):
    """Mann-Whitney U test on two independent samples of per-query values.

    Use it when the two samples come from different queries (two groups of
    queries, two test collections), so that no pairing exists; for two
    models evaluated on the same queries, :func:`compare` runs the paired
    Wilcoxon test.

    Read more in the :ref:`User Guide <significance_mann_whitney>`.

    Parameters
    ----------
    a, b : array-like of shape (n_a,) and (n_b,)
        Per-query values (for example reciprocal ranks) of each sample; at
        least two finite values each. The sizes may differ.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"greater"``: values of ``a`` tend to be larger than those of ``b``.

    Returns
    -------
    result : ComparisonResult
        ``statistic`` is U of ``a`` (pairs with ``a_i > b_j``, ties counting
        half) and ``pvalue`` is :func:`scipy.stats.mannwhitneyu`'s (exact for
        small samples without ties, normal approximation with tie and
        continuity corrections otherwise). ``estimate`` is the
        Hodges-Lehmann shift (median of all ``a_i - b_j``), ``effect_size``
        the rank-biserial correlation ``2 U / (n_a n_b) - 1``, that is
        ``(#{a_i > b_j} - #{a_i < b_j}) / (n_a n_b)``, in [-1, 1] and
        positive when ``a`` tends to be larger.

    See Also
    --------
    compare : Every test, on arrays or reports.
    scipy.stats.mannwhitneyu : The test itself.

    References
    ----------
    .. [1] H. B. Mann and D. R. Whitney, "On a test of whether one of two
       random variables is stochastically larger than the other", Annals of
       Mathematical Statistics 18(1), 1947.
    .. [2] J. L. Hodges and E. L. Lehmann, "Estimates of location based on rank
       tests", Annals of Mathematical Statistics 34(2), 1963.
    .. [3] D. S. Kerby, "The simple difference formula: an approach to
       teaching nonparametric correlation", Comprehensive Psychology 3, 2014.

    Examples
    --------
    Reciprocal ranks of the queries of two groups of different sizes:

    >>> from sklearn_rank.stats import mann_whitney_u
    >>> group_a = [1.0, 1.0, 0.5, 1.0, 0.5, 1.0, 0.25]
    >>> group_b = [0.2, 0.5, 0.1, 0.25, 1.0]
    >>> res = mann_whitney_u(group_a, group_b)
    >>> res.statistic
    27.5
    >>> round(res.pvalue, 4)
    0.1063
    >>> round(res.effect_size, 4)
    0.5714
    >>> round(res.estimate, 4)
    0.4
    """
    x, y = _as_values(a, "a"), _as_values(b, "b")
    _check_choice(alternative, "alternative", _ALTERNATIVES)
    result, (wins, ties, losses) = _mann_whitney(x, y, alternative, 0.95)
    return _replaced(result, wins=wins, ties=ties, losses=losses)


def compare(a, b, *, metric=None, test="auto", paired=None, alternative="two-sided", confidence_level=0.95,
            rng=None, n_resamples=9999):
    """Test whether the per-query values of model A differ from those of model B.

    Read more in the :ref:`User Guide <significance_paired>`.

    Parameters
    ----------
    a, b : array-like of shape (n_queries,) or report
        Per-query values, or reports of :func:`sklearn_rank.evaluate`
        (anything with a ``per_query`` mapping holding ``"qid"`` and one 1-D
        array per metric) together with ``metric``. Values must be finite;
        at least two per sample.
    metric : str, default=None
        Metric to compare when ``a`` and ``b`` are reports, as written in
        ``per_query`` (case, ``-``, ``_`` and spaces are ignored when the
        exact key is missing). Ignored for arrays.

        Reports of :func:`sklearn_rank.evaluate` with ``sample_weight`` carry
        their per-query weights (``report.sample_weight``), and the tests
        that have a weighted form use them (see Notes, "Weights").
    test : {"auto", "mannwhitneyu", "wilcoxon", "ttest", "permutation", \
"bootstrap"}, default="auto"
        ``"auto"`` runs the paired Wilcoxon test when the values are paired
        and Mann-Whitney otherwise; ``result.test`` says which ran.
        ``"ttest"`` is the paired t test, or Welch's t test for independent
        samples. ``"permutation"`` tests the mean difference by sign flips
        (paired) or label shuffles (unpaired); ``"bootstrap"`` resamples
        queries (see Notes).
    paired : bool, default=None
        None: reports that share query ids are paired (aligned by query id);
        reports on different queries and arrays are independent samples,
        except for ``test="wilcoxon"``, which is always paired. True: pair
        reports by query id or arrays by position. False: independent
        samples. Paired reports that share only some query ids are compared
        on the shared ones (at least two): the others are left out with an
        :class:`UnpairedQueriesWarning` naming them, and counted in
        ``result.n_unpaired_a`` and ``result.n_unpaired_b``.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"greater"``: ``a`` tends to be larger than ``b``.
    confidence_level : float in (0, 1), default=0.95
        Level of the bootstrap test's interval and the default level of
        :meth:`ComparisonResult.confidence_interval`.
    rng : int or numpy.random.Generator, default=None
        Source of randomness for ``"permutation"`` and ``"bootstrap"``. The
        same seed gives the same p-value. None draws fresh entropy.
    n_resamples : int, default=9999
        Resamples of the permutation and bootstrap tests. A permutation test
        with no more distinct permutations than this is exact.

    Returns
    -------
    result : ComparisonResult
        Statistic, p-value, the test that ran, the estimated difference
        ``a - b`` and an effect size; ``result.confidence_interval()`` gives
        an interval for the difference. ``wins``, ``ties``, ``losses`` count
        the queries where ``a`` is larger, equal, smaller (all cross pairs of
        values when unpaired), and ``n_zero`` the zero paired differences.

    See Also
    --------
    mann_whitney_u : The unpaired rank test alone.
    compare_many : Several models at once, with corrected p-values.
    corrected_ttest : Cross-validation scores instead of per-query values.

    Notes
    -----
    Statistics and p-values are those of :func:`scipy.stats.mannwhitneyu`,
    :func:`scipy.stats.wilcoxon` (zero differences dropped, its default),
    :func:`scipy.stats.ttest_rel`, :func:`scipy.stats.ttest_ind` with
    ``equal_var=False`` and :func:`scipy.stats.permutation_test` on the mean
    difference. The bootstrap test reports the observed mean difference, a
    BCa interval from :func:`scipy.stats.bootstrap`, and the percentile
    bootstrap p-value: for ``"greater"``, ``(#{theta* <= 0} + 1) / (B + 1)``
    over the ``B`` bootstrap mean differences ``theta*``, mirrored for
    ``"less"``, twice the smaller of the two for ``"two-sided"``.

    For rank tests the estimate is the Hodges-Lehmann estimate: the median of
    the pairwise differences ``a_i - b_j`` (Mann-Whitney) or of the Walsh
    averages ``(d_i + d_j) / 2, i <= j`` of the paired differences, zeros
    included (Wilcoxon). The effect size is the rank-biserial correlation:
    ``(#{a_i > b_j} - #{a_i < b_j}) / (n_a n_b)`` for Mann-Whitney, and
    ``(R+ - R-) / (R+ + R-)`` over the signed ranks of the non-zero
    differences for Wilcoxon. Mean-based tests report Cohen's d (pooled
    standard deviation) when unpaired and d_z (mean over standard deviation
    of the differences) when paired.

    Zero paired differences (queries where both models score the same) are
    counted in ``result.n_zero``. When they are more than half of the pairs,
    every paired test warns with a :class:`DegenerateDataWarning` naming the
    count: the Wilcoxon test drops them and ranks the others only, so a small
    p-value can stand beside an estimate of 0.

    **Weights.** Reports whose ``sample_weight`` is not all equal are compared
    by their weighted means, the quantity their summaries hold: the estimate
    is the difference of the weighted means ``sum(w d) / sum(w)``. Weights
    all equal (or absent) change nothing: the numbers are those of the
    unweighted test. A query of weight 0 is left out, as from the summary.
    Paired reports must weigh each shared query alike (a ValueError says
    which query differs).

    - ``"ttest"``: the weights are frequency weights rescaled to total ``n``
      (the number of queries compared): with the weighted mean
      ``m = sum(w d) / sum(w)`` and variance
      ``s^2 = n / (n - 1) * sum(w (d - m)^2) / sum(w)``, the statistic is
      ``t = m / (s / sqrt(n))`` on ``n - 1`` degrees of freedom (Welch's
      test of the two weighted means, each sample's variance so, when
      unpaired). Integer weights that sum to ``n`` give exactly the t test
      of the values repeated ``w_i`` times; other integer weights give the
      mean of the repeated values, and the t of the repeated values times
      ``sqrt((n - 1) / (sum(w) - 1))``: the test counts the ``n`` queries
      measured, not ``sum(w)``, so the scale of the weights does not matter,
      as in the summary.
    - ``"permutation"``: the weighted mean difference under sign flips of the
      paired differences (each keeping its weight), or under shuffles of the
      values between the samples (each value keeping its weight).
    - ``"bootstrap"``: queries are resampled with their weights and each
      resample gives its weighted mean difference; interval and p-value as
      above.
    - ``"wilcoxon"``, ``"mannwhitneyu"`` and ``"auto"`` (which picks one of
      them) rank the values and have no weighted form: a ValueError names
      the weights and the test.

    Degenerate inputs return a defined answer with a
    :class:`DegenerateDataWarning`: with all paired differences zero (or
    every value equal, unpaired), every test gives p-value 1.0, statistic 0.0
    (``n_a n_b / 2`` for U) and effect size 0.0. The t test with constant,
    non-zero differences (zero variance) gives an infinite statistic and a
    p-value of 0.0 (1.0 for the opposite one-sided alternative).

    Examples
    --------
    Two models evaluated on the same six queries:

    >>> from sklearn_rank.stats import compare
    >>> model_a = [1.0, 0.5, 1.0, 1.0, 0.33, 1.0]
    >>> model_b = [0.5, 0.5, 0.25, 1.0, 0.2, 0.5]
    >>> res = compare(model_a, model_b, paired=True)
    >>> res.test
    'wilcoxon'
    >>> round(res.pvalue, 4)
    0.125
    >>> res.effect_size
    1.0
    >>> res = compare(model_a, model_b, test="permutation", paired=True, rng=0)
    >>> round(res.pvalue, 4), round(res.estimate, 4)
    (0.125, 0.3133)

    Reports from :func:`sklearn_rank.evaluate` are aligned by query id:
    ``compare(report_a, report_b, metric="mrr")``.
    """
    result, _ = _run(a, b, metric=metric, test=test, paired=paired, alternative=alternative,
                     confidence_level=confidence_level, rng=rng, n_resamples=n_resamples)
    return result
