"""Public metric functions, :func:`evaluate`, :func:`compute_ranks` and :func:`evaluate_ranks`.

Signatures and documentation only: every function here calls the one engine (``_engine``), which
validates the input, computes the ranks once and runs the kernels.
"""

from __future__ import annotations

import numpy as np

from . import _engine, _namespace
from ._conventions import default_options
from ._parameter_docs import PARAMETER_DOCS as _PARAMETER_DOCS  # noqa: F401 (tests read it here)
from ._parameter_docs import document_parameters as _document_parameters
from ._registry import base_spec, with_k
from .exceptions import InputValueError

# Option defaults a ``convention=`` preset may replace (an explicitly written value wins).
_D = default_options(ties="expected", gain="linear", no_relevant="skip", targets="first",
                     ap_denominator="relevant", nan_policy="raise", missing="skip", precision_denominator="k",
                     recall_denominator="relevant", discount="log2", ideal_dcg="relevant", stop_probability="graded",
                     average="macro", all_relevant="skip", ap_ties="follow")

__all__ = [
    "evaluate", "evaluate_ranks", "compute_ranks", "positive_vs_negatives",
    "mean_reciprocal_rank", "mean_average_precision", "ndcg_score", "dcg_score", "hits_at_k",
    "precision_at_k", "recall_at_k", "r_precision", "mean_rank",
]


@_document_parameters
def evaluate(y_true, y_score, *, metrics=("mrr", "map", "ndcg@10"), qid=None, ties=_D["ties"], exclude=None,
             labels=None, relevance_level=None, gain=_D["gain"], no_relevant=_D["no_relevant"], sample_weight=None,
             targets=_D["targets"], judged=None, missing=_D["missing"], ap_denominator=_D["ap_denominator"],
             nan_policy=_D["nan_policy"], convention=None, unjudged=None, n_jobs=None,
             precision_denominator=_D["precision_denominator"], recall_denominator=_D["recall_denominator"],
             discount=_D["discount"], ideal_dcg=_D["ideal_dcg"], stop_probability=_D["stop_probability"],
             average=_D["average"], all_relevant=_D["all_relevant"], ap_ties=_D["ap_ties"]):
    """Compute several ranking metrics from one rank computation.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    y_true : array-like
        Relevance per row (grouped layout, with ``qid``), a relevance matrix
        of shape (n_queries, n_candidates), or the column index (or class
        label, with ``labels``) of the one true candidate per row of a score
        matrix.
    y_score : array-like
        Scores, shaped like ``y_true`` or (n_queries, n_candidates).
    metrics : str or sequence of str, default=("mrr", "map", "ndcg@10")
        Metric names (see :func:`metric_names`).

    Returns
    -------
    report : RankingReport
        ``report.summary`` maps each name as written to its value;
        ``report.per_query`` holds per-query values and ``"qid"``. A metric
        undefined on the whole input (for example ``zhits@k`` when k is at
        least every query's number of candidates) is NaN, with an
        :class:`UndefinedMetricWarning`; the other metrics are computed.

    See Also
    --------
    compute_ranks : The ranks behind the rank statistics.

    Examples
    --------
    >>> from sklearn_rank import evaluate
    >>> y_true = [0, 1, 0, 1, 0, 0]
    >>> y_score = [0.9, 0.8, 0.1, 0.3, 0.6, 0.2]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> report = evaluate(y_true, y_score, qid=qid, metrics=["mrr", "hits@1", "map"])
    >>> {name: round(value, 4) for name, value in report.summary.items()}
    {'mrr': 0.5, 'hits@1': 0.0, 'map': 0.5}
    >>> report.per_query["mrr"]
    array([0.5, 0.5])
    """
    return _engine.evaluate(y_true, y_score, metrics=metrics, qid=qid, ties=ties, exclude=exclude, labels=labels,
                            relevance_level=relevance_level, gain=gain, no_relevant=no_relevant,
                            sample_weight=sample_weight, targets=targets, judged=judged, missing=missing,
                            ap_denominator=ap_denominator, nan_policy=nan_policy, convention=convention,
                            unjudged=unjudged, n_jobs=n_jobs, precision_denominator=precision_denominator,
                            recall_denominator=recall_denominator, discount=discount, ideal_dcg=ideal_dcg,
                            stop_probability=stop_probability, average=average, all_relevant=all_relevant,
                            ap_ties=ap_ties)


@_document_parameters
def compute_ranks(y_true, y_score, *, qid=None, exclude=None, labels=None, relevance_level=None,
                  targets=_D["targets"], nan_policy=_D["nan_policy"], convention=None):
    """Compute the ranks of the targets under every tie policy at once.

    Read more in the :ref:`User Guide <ties_every_rank>`.

    Parameters
    ----------
    y_true, y_score : array-like
        As in :func:`evaluate` (any layout).

    Returns
    -------
    ranks : Ranks
        Optimistic, pessimistic, realistic, ordinal and expected ranks of
        every target, with ``num_candidates`` and the query of each target.
        Queries without a retrieved relevant item have no target.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank import compute_ranks
    >>> y_score = np.array([[0.1, 0.5, 0.5, 0.2],
    ...                     [0.9, 0.3, 0.2, 0.1]])
    >>> ranks = compute_ranks([1, 0], y_score)   # true columns 1 and 0
    >>> ranks.optimistic, ranks.pessimistic, ranks.realistic
    (array([1., 1.]), array([2., 1.]), array([1.5, 1. ]))
    >>> ranks.num_candidates
    array([4, 4])
    """
    return _engine.compute_ranks(y_true, y_score, qid=qid, exclude=exclude, labels=labels,
                                 relevance_level=relevance_level, targets=targets,
                                 nan_policy=nan_policy, convention=convention)


@_document_parameters
def evaluate_ranks(ranks, *, num_candidates=None, metrics=("mrr", "hits@10"), ties=_D["ties"],
                   sample_weight=None, num_relevant=None, convention=None):
    """Rank statistics from precomputed ranks (PyKEEN-style rank lists).

    Read more in the :ref:`User Guide <layout_ranks>`.

    Parameters
    ----------
    ranks : Ranks or array-like of shape (n_targets,)
        A :class:`Ranks` from :func:`compute_ranks` (every tie policy is
        available), or plain 1-based ranks (possibly fractional, e.g. mid
        ranks), used as given.
    num_candidates : array-like of shape (n_targets,) or int, default=None
        Candidates each rank was computed against; needed by the adjusted and
        z-scored metrics. Taken from ``ranks`` when it is a :class:`Ranks`.
    metrics : str or sequence of str, default=("mrr", "hits@10")
        Rank-statistic names: ``mr``, ``mrr``, ``hits@k``, ``gmr``, ``amri``, ...
    ties : {"expected", "realistic", "optimistic", "pessimistic", "ordinal"}, default="expected"
        Which rank of a :class:`Ranks` to use (ignored for plain ranks).
    sample_weight : array-like of shape (n_targets,), default=None
        One weight per rank.
    num_relevant : array-like of shape (n_targets,), default=None
        For plain ranks of the best of several relevant items: how many
        relevant candidates each rank is the best of (default 1); only the
        random baselines of the adjusted metrics use it.

    Returns
    -------
    values : dict
        Metric name as written to its value.

    Examples
    --------
    >>> from sklearn_rank import evaluate_ranks
    >>> values = evaluate_ranks([2, 1, 4], metrics=["mrr", "hits@1", "hits@3", "mr"])
    >>> {name: round(value, 4) for name, value in values.items()}
    {'mrr': 0.5833, 'hits@1': 0.3333, 'hits@3': 0.6667, 'mr': 2.3333}
    >>> round(evaluate_ranks([1, 1], num_candidates=[3, 3], metrics="amri")["amri"], 4)
    1.0
    """
    return _engine.evaluate_ranks(ranks, num_candidates=num_candidates, metrics=metrics, ties=ties,
                                  sample_weight=sample_weight, num_relevant=num_relevant, convention=convention)


@_document_parameters
def positive_vs_negatives(y_pred_pos, y_pred_neg):
    """Turn one positive score and its sampled negatives into the label-index layout.

    This is the TGB / OGB evaluation input (``y_pred_pos``, ``y_pred_neg``):
    the positive goes to column 0 of the score matrix.

    Read more in the :ref:`User Guide <layout_label_index>`.

    Parameters
    ----------
    y_pred_pos : array-like of shape (n_queries,)
        Score of the positive candidate of each query.
    y_pred_neg : array-like of shape (n_queries, n_negatives)
        Scores of the negative candidates.

    Returns
    -------
    y_true : ndarray of shape (n_queries,)
        Zeros: the true column of every row.
    y_score : ndarray of shape (n_queries, 1 + n_negatives)
        The positive score followed by the negative ones. Under scikit-learn's
        Array API dispatch, scores of another library (a torch tensor) give
        arrays of that library on its device, ``y_true`` too.

    Examples
    --------
    >>> from sklearn_rank import mean_reciprocal_rank, positive_vs_negatives
    >>> y_true, y_score = positive_vs_negatives([0.9, 0.2], [[0.5, 0.1], [0.2, 0.7]])
    >>> y_score
    array([[0.9, 0.5, 0.1],
           [0.2, 0.2, 0.7]])
    >>> round(mean_reciprocal_rank(y_true, y_score, ties="realistic"), 4)   # ranks 1 and 2.5
    0.7
    """
    xp = _namespace.array_namespace(y_pred_neg)
    if xp is not None:
        return _namespace.positive_vs_negatives_in_namespace(xp, y_pred_pos, y_pred_neg)
    pos = np.asarray(y_pred_pos)
    neg = np.asarray(y_pred_neg)
    if pos.ndim != 1:
        raise InputValueError(f"`y_pred_pos` must be 1-D (one score per query). Got shape {pos.shape} instead.")
    if neg.ndim == 1 and pos.shape[0] == 1:
        neg = neg[None, :]
    if neg.ndim != 2 or neg.shape[0] != pos.shape[0]:
        raise InputValueError(f"`y_pred_neg` must be 2-D with one row per query ({pos.shape[0]}). "
                              f"Got shape {neg.shape} instead.")
    y_score = np.concatenate([pos[:, None], neg], axis=1)
    return np.zeros(pos.shape[0], dtype=np.intp), y_score


# --------------------------------------------------------------------------------------------
# One function per common metric: thin wrappers around the one engine.
# --------------------------------------------------------------------------------------------
def _single(name, y_true, y_score, k, kwargs):
    spec = with_k(base_spec(name), k)
    # the spec itself, not its name: a preset's reading of names (``convention="ranx"``) is for names
    # written by the caller, never for the function's own metric
    return evaluate(y_true, y_score, metrics=[spec], **kwargs).summary[spec.name]


@_document_parameters
def mean_reciprocal_rank(y_true, y_score, *, k=None, qid=None, ties=_D["ties"], exclude=None, labels=None,
                         relevance_level=None, no_relevant=_D["no_relevant"], sample_weight=None, targets=_D["targets"],
                         judged=None, nan_policy=_D["nan_policy"], convention=None, n_jobs=None):
    """Mean reciprocal rank of the first relevant item (or of every target with ``targets="all"``).

    Read more in the :ref:`User Guide <metrics_list>`.

    Parameters
    ----------
    k : int, default=None
        With a cut-off, a first relevant item ranked below ``k`` scores 0
        (``mrr@k`` of ranx and torchmetrics).

    Returns
    -------
    mrr : float in [0, 1]
        Weighted mean over queries of ``1 / rank`` of the first relevant item
        (0 for a query whose relevant items were not retrieved).

    Examples
    --------
    >>> from sklearn_rank import mean_reciprocal_rank
    >>> y_score = [[0.2, 0.9, 0.1], [0.8, 0.1, 0.3], [0.1, 0.2, 0.6]]
    >>> round(mean_reciprocal_rank([0, 0, 0], y_score), 4)   # ranks 2, 1, 3
    0.6111
    >>> round(mean_reciprocal_rank([0, 0], [[1.0, 1.0], [1.0, 1.0]]), 4)   # constant scorer: H(2)/2
    0.75
    """
    return _single("mrr", y_true, y_score, k, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        no_relevant=no_relevant, sample_weight=sample_weight, targets=targets, judged=judged,
        nan_policy=nan_policy, convention=convention, n_jobs=n_jobs))


@_document_parameters
def mean_average_precision(y_true, y_score, *, k=None, qid=None, ties=_D["ties"], exclude=None, labels=None,
                           relevance_level=None, no_relevant=_D["no_relevant"], sample_weight=None, judged=None,
                           ap_denominator=_D["ap_denominator"], nan_policy=_D["nan_policy"], convention=None,
                           n_jobs=None, ap_ties=_D["ap_ties"]):
    """Mean average precision; with ``k``, trec_eval's ``map_cut`` (denominator: all relevant items).

    Read more in the :ref:`User Guide <metrics_list>`.

    Parameters
    ----------
    k : int, default=None
        Only relevant items in the top ``k`` contribute; the denominator stays
        the number of relevant items.

    Returns
    -------
    map : float in [0, 1]
        Weighted mean over queries of average precision.

    Examples
    --------
    >>> from sklearn_rank import mean_average_precision
    >>> y_true = [1, 0, 0, 1, 1, 0, 0, 0, 0, 0]          # relevant at ranks 1, 4 and 5
    >>> y_score = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]
    >>> round(mean_average_precision(y_true, y_score), 4)  # (1/1 + 2/4 + 3/5) / 3
    0.7

    With ``ap_ties="max"``, tied candidates all sit at their block's last
    place (scikit-learn's label ranking average precision, cornac's MAP):

    >>> mean_average_precision([1, 0, 1], [0.9, 0.5, 0.5], ap_ties="max")  # (1/1 + 2/3) / 2
    0.8333333333333333
    """
    return _single("map", y_true, y_score, k, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        no_relevant=no_relevant, sample_weight=sample_weight, judged=judged, ap_denominator=ap_denominator,
        nan_policy=nan_policy, convention=convention, n_jobs=n_jobs, ap_ties=ap_ties))


@_document_parameters
def ndcg_score(y_true, y_score, *, k=None, qid=None, ties=_D["ties"], exclude=None, labels=None, gain=_D["gain"],
               no_relevant=_D["no_relevant"], sample_weight=None, judged=None,
               nan_policy=_D["nan_policy"], convention=None, n_jobs=None, discount=_D["discount"],
               ideal_dcg=_D["ideal_dcg"]):
    """Normalized discounted cumulative gain (scikit-learn's value on scikit-learn's input).

    Read more in the :ref:`User Guide <metrics_list>`.

    Parameters
    ----------
    y_true, y_score : array-like
        Any layout (see :func:`evaluate`); graded relevance gives the gains.
    k : int, default=None
        Only the top ``k`` positions count (the ideal DCG is cut at ``k`` too).

    Returns
    -------
    ndcg : float in [0, 1]
        Weighted mean over queries of DCG / ideal DCG.

    Examples
    --------
    >>> from sklearn_rank import ndcg_score
    >>> y_true = [[10, 0, 0, 1, 5]]
    >>> y_score = [[.1, .2, .3, 4, 70]]
    >>> round(ndcg_score(y_true, y_score), 4)     # sklearn.metrics.ndcg_score gives the same
    0.6957
    """
    return _single("ndcg", y_true, y_score, k, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, gain=gain, no_relevant=no_relevant,
        sample_weight=sample_weight, judged=judged, nan_policy=nan_policy, convention=convention, n_jobs=n_jobs,
        discount=discount, ideal_dcg=ideal_dcg))


@_document_parameters
def dcg_score(y_true, y_score, *, k=None, qid=None, ties=_D["ties"], exclude=None, labels=None, gain=_D["gain"],
              no_relevant=_D["no_relevant"], sample_weight=None, judged=None,
              nan_policy=_D["nan_policy"], convention=None, n_jobs=None, discount=_D["discount"]):
    """Discounted cumulative gain with the ``log2(1 + position)`` discount.

    Read more in the :ref:`User Guide <metrics_list>`.

    Parameters
    ----------
    k : int, default=None
        Only the top ``k`` positions count.
    no_relevant : {"skip", "zero", "error"}, default="skip"
        Accepted for a uniform signature; no effect here: the DCG of a query
        without a relevant item is 0, and every query is evaluated.

    Returns
    -------
    dcg : float >= 0
        Weighted mean over queries of the DCG.

    Examples
    --------
    >>> from sklearn_rank import dcg_score
    >>> round(dcg_score([[10, 0, 0, 1, 5]], [[.1, .2, .3, 4, 70]]), 4)
    9.4995
    """
    return _single("dcg", y_true, y_score, k, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, gain=gain, no_relevant=no_relevant,
        sample_weight=sample_weight, judged=judged, nan_policy=nan_policy, convention=convention, n_jobs=n_jobs,
        discount=discount))


@_document_parameters
def hits_at_k(y_true, y_score, *, k, qid=None, ties=_D["ties"], exclude=None, labels=None, relevance_level=None,
              no_relevant=_D["no_relevant"], sample_weight=None, targets=_D["targets"], judged=None,
              nan_policy=_D["nan_policy"], convention=None, n_jobs=None):
    """Fraction of queries (or targets) with a relevant item in the top ``k`` (``hits@k``, ``success@k``).

    Read more in the :ref:`User Guide <metrics_list>`.

    Parameters
    ----------
    k : int
        The cut-off.

    Returns
    -------
    hits : float in [0, 1]
        Weighted mean of the indicator "first relevant rank <= k".

    Examples
    --------
    >>> from sklearn_rank import hits_at_k
    >>> y_score = [[0.2, 0.9, 0.1], [0.8, 0.1, 0.3], [0.1, 0.2, 0.6]]
    >>> round(hits_at_k([0, 0, 0], y_score, k=2), 4)    # ranks 2, 1, 3
    0.6667
    """
    return _single("hits", y_true, y_score, k, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        no_relevant=no_relevant, sample_weight=sample_weight, targets=targets, judged=judged,
        nan_policy=nan_policy, convention=convention, n_jobs=n_jobs))


@_document_parameters
def precision_at_k(y_true, y_score, *, k, qid=None, ties=_D["ties"], exclude=None, labels=None,
                   relevance_level=None, no_relevant=_D["no_relevant"], sample_weight=None, judged=None,
                   nan_policy=_D["nan_policy"], convention=None, n_jobs=None,
                   precision_denominator=_D["precision_denominator"]):
    """Precision at ``k``: relevant items in the top ``k``, divided by ``k`` (even for shorter lists).

    Read more in the :ref:`User Guide <metrics_list>`.

    Parameters
    ----------
    k : int
        The cut-off.

    Returns
    -------
    precision : float in [0, 1]
        Weighted mean over queries of the precision at ``k``.

    Examples
    --------
    >>> from sklearn_rank import precision_at_k
    >>> round(precision_at_k([1, 0, 1], [0.9, 0.8, 0.7], k=5), 4)   # 2 relevant / 5
    0.4
    """
    return _single("p", y_true, y_score, k, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        no_relevant=no_relevant, sample_weight=sample_weight, judged=judged,
        nan_policy=nan_policy, convention=convention, n_jobs=n_jobs, precision_denominator=precision_denominator))


@_document_parameters
def recall_at_k(y_true, y_score, *, k, qid=None, ties=_D["ties"], exclude=None, labels=None,
                relevance_level=None, no_relevant=_D["no_relevant"], sample_weight=None, judged=None,
                nan_policy=_D["nan_policy"], convention=None, n_jobs=None,
                recall_denominator=_D["recall_denominator"]):
    """Recall at ``k``: relevant items in the top ``k`` divided by the number of relevant items.

    Read more in the :ref:`User Guide <metrics_list>`.

    Parameters
    ----------
    k : int
        The cut-off.

    Returns
    -------
    recall : float in [0, 1]
        Weighted mean over queries of the recall at ``k``.

    Examples
    --------
    >>> from sklearn_rank import recall_at_k
    >>> round(recall_at_k([1, 0, 1, 1], [0.9, 0.8, 0.7, 0.1], k=2), 4)   # 1 of 3
    0.3333
    """
    return _single("r", y_true, y_score, k, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        no_relevant=no_relevant, sample_weight=sample_weight, judged=judged,
        nan_policy=nan_policy, convention=convention, n_jobs=n_jobs, recall_denominator=recall_denominator))


@_document_parameters
def r_precision(y_true, y_score, *, qid=None, ties=_D["ties"], exclude=None, labels=None, relevance_level=None,
                no_relevant=_D["no_relevant"], sample_weight=None, judged=None,
                nan_policy=_D["nan_policy"], convention=None, n_jobs=None):
    """R-precision: precision at ``R``, the number of relevant items of the query.

    Read more in the :ref:`User Guide <metrics_list>`.

    Parameters
    ----------

    Returns
    -------
    rprec : float in [0, 1]
        Weighted mean over queries of the precision at ``R``.

    Examples
    --------
    >>> from sklearn_rank import r_precision
    >>> round(r_precision([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1]), 4)   # 1 relevant in the top 2
    0.5
    """
    return _single("rprec", y_true, y_score, None, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        no_relevant=no_relevant, sample_weight=sample_weight, judged=judged,
        nan_policy=nan_policy, convention=convention, n_jobs=n_jobs))


@_document_parameters
def mean_rank(y_true, y_score, *, qid=None, ties=_D["ties"], exclude=None, labels=None, relevance_level=None,
              sample_weight=None, targets=_D["targets"], nan_policy=_D["nan_policy"], convention=None, n_jobs=None):
    """Mean rank of the targets (lower is better).

    Read more in the :ref:`User Guide <rank_statistics>`.

    Parameters
    ----------

    Returns
    -------
    mr : float >= 1
        Weighted mean of the (expected, under ``ties="expected"``) ranks.

    Examples
    --------
    >>> from sklearn_rank import mean_rank
    >>> y_score = [[0.5, 0.5, 0.5, 0.5]]
    >>> mean_rank([2], y_score)                      # one tie of 4: expected rank (4 + 1) / 2
    2.5
    >>> mean_rank([2], y_score, ties="pessimistic")
    4.0
    """
    return _single("mr", y_true, y_score, None, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        sample_weight=sample_weight, targets=targets, nan_policy=nan_policy, convention=convention, n_jobs=n_jobs))

