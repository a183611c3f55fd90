"""Public metric functions, :func:`evaluate`, :func:`compute_ranks` and :func:`evaluate_ranks`.

Signatures and documentation only: every function here calls the one engine (``_engine``), which
validates the input, computes the ranks once and runs the kernels.
"""

from __future__ import annotations

import inspect
import itertools

import numpy as np

from . import _engine, _namespace
from ._conventions import default_options
from ._registry import base_spec, with_k
from .exceptions import InputTypeError, InputValueError

# Option defaults a ``convention=`` preset may replace (an explicitly written value wins).
_D = default_options(ties="expected", gain="linear", no_relevant="skip", targets="first",
                     ap_denominator="relevant", nan_policy="raise")

__all__ = [
    "evaluate", "evaluate_ranks", "compute_ranks", "positive_vs_negatives",
    "mean_reciprocal_rank", "mean_average_precision", "ndcg_score", "dcg_score", "hits_at_k",
    "precision_at_k", "recall_at_k", "r_precision", "mean_rank",
]

# --------------------------------------------------------------------------------------------
# Docstrings: each function documents exactly its own parameters, in signature order.
# --------------------------------------------------------------------------------------------
# numpydoc entries shared by the functions that take the parameter. A key naming several
# parameters ("y_true, y_score") is one combined entry for those consecutive parameters.
_PARAMETER_DOCS = {
    "y_true, y_score": """
y_true, y_score : array-like
    Any layout (see :func:`evaluate`).""",
    "qid": """
qid : array-like of shape (n_rows,), default=None
    Query id of each row (grouped layout). Without it, 1-D input is one query.""",
    "ties": """
ties : {"expected", "realistic", "optimistic", "pessimistic", "ordinal"}, default="expected"
    How tied scores are ranked. ``"expected"`` is the exact expectation over
    every ordering of the tied items.""",
    "exclude": """
exclude : array-like of bool or sparse matrix, default=None
    Candidates removed before ranking (filtered protocol): shaped like
    ``y_score`` (a SciPy sparse matrix in the matrix layouts: its stored
    cells are excluded).""",
    "n_jobs": """
n_jobs : int, default=None
    Threads that rank parts of the queries at once (None: 1, -1: every
    core). The numbers are the same for every value. Inside a search that
    already runs in parallel (``GridSearchCV(n_jobs=...)``), leave it at 1.""",
    "labels": """
labels : array-like of shape (n_candidates,), default=None
    Label-index layout: the class label of each column of ``y_score``.""",
    "relevance_level": """
relevance_level : float, default=None
    An item is relevant when ``y_true >= relevance_level`` (default: ``y_true > 0``).""",
    "gain": """
gain : {"linear", "exponential"}, default="linear"
    (n)DCG gain: ``rel`` or ``2**rel - 1``.""",
    "no_relevant": """
no_relevant : {"skip", "zero", "one", "error"}, default="skip"
    What to do with queries without a relevant item: leave them out of the
    mean (counted in ``report.n_skipped``), score them 0 (scikit-learn,
    trec_eval, ranx) or 1 (LightGBM's and XGBoost's nDCG), or raise.""",
    "ap_denominator": """
ap_denominator : {"relevant", "capped", "retrieved"}, default="relevant"
    What average precision divides by: ``"relevant"``, every relevant item of
    the query (trec_eval, ranx); ``"capped"``, ``min(k, relevant)`` with a
    cut-off (Spark's ``MAP@k``, LightGBM, XGBoost); ``"retrieved"``, the relevant
    items in the top ``k`` (torchmetrics).""",
    "convention": """
convention : {"sklearn", "trec_eval", "ranx", "pykeen", "ogb", "tgb", "lightgbm", \
"xgboost", "torchmetrics", "spark"}, default=None
    A peer's conventions: sets every option (``ties``, ``gain``,
    ``no_relevant``, ...) needed to reproduce that peer's numbers, except
    the options written explicitly in the call. See :doc:`/conventions`.""",
    "nan_policy": """
nan_policy : {"raise", "omit"}, default="raise"
    What a NaN score means. ``"raise"``: an error (unless the candidate is
    excluded). ``"omit"``: the candidate is removed exactly as ``exclude``
    would remove it (PyKEEN's filtered setting writes NaN over the scores
    of the known answers to filter): the query's candidate count
    :math:`N_i` shrinks, and together with ``exclude`` the union of both
    is removed. A NaN score on a query's own target (or on a relevant
    item) is an error either way, as excluding it is. ``+inf`` and
    ``-inf`` are ordinary scores, the highest and the lowest, under both
    policies (two ``+inf`` tie): ``-inf`` does not filter a candidate, it
    ranks it last and keeps it in :math:`N_i`.""",
    "sample_weight": """
sample_weight : array-like, default=None
    One weight per query (grouped layout: per row, constant within a query).""",
    "targets": """
targets : {"first", "all"}, default="first"
    Rank statistics: rank of the best-ranked relevant item per query, or of
    every relevant item against the non-relevant candidates only.""",
    "judged": """
judged : tuple of (qid, relevance) arrays, default=None
    Retrieval setting: every judged item of every query, retrieved or not;
    relevant items missing from the candidates still count in the
    denominators of AP, recall, R-precision and in the ideal DCG.""",
    "missing": """
missing : {"skip", "zero"}, default="skip"
    With ``judged``: what to do with judged queries that have no
    candidate row at all (the system retrieved nothing for them). They
    are counted in ``report.n_missing`` either way; ``"skip"`` leaves them
    out (trec_eval's default), ``"zero"`` scores every list metric 0 for
    them (trec_eval's ``-c``, ranx). Rank statistics have no rank for such
    a query: NaN per query, and the pooled value is unchanged.""",
    "unjudged": """
unjudged : array-like of bool, default=None
    Retrieval setting: True for the candidates without a relevance
    judgement (a TREC run's documents missing from the qrels), shaped
    like ``y_score`` (grouped and relevance-matrix layouts); their
    ``y_true`` must be 0. ``bpref`` skips them and ``judged@k`` counts
    the others; every other metric ignores this (an unjudged candidate
    is not relevant). Default: every candidate is judged.""",
}


def _is_section_header(lines, i):
    """Whether ``lines[i]`` is a numpydoc section title (underlined by dashes on the next line)."""
    if i + 1 >= len(lines) or not lines[i].strip():
        return False
    underline = lines[i + 1].strip()
    return len(underline) >= 3 and set(underline) == {"-"}


def _split_entries(body, indent):
    """Parameter entries of a section body: {(name, ...): lines}, each line without ``indent``."""
    entries = {}
    current = None
    for line in body:
        if line.strip() and len(line) - len(line.lstrip()) == len(indent):
            header = line.strip().partition(" :")[0].replace("\\", "")
            names = tuple(name.strip() for name in header.split(","))
            if any(name in seen for seen in entries for name in names):
                raise InputTypeError(f"Parameter entry {line.strip()!r} documents a parameter a second time.")
            current = entries[names] = []
        elif current is None:
            if line.strip():
                raise InputTypeError(f"Text before the first parameter entry: {line.strip()!r}.")
            continue
        current.append(line[len(indent):] if line.strip() else "")
    for lines in entries.values():
        while lines and not lines[-1]:
            lines.pop()
    return entries


def _document_parameters(func):
    """Fill the "Parameters" section of ``func``'s docstring from its signature.

    The section may hold entries of the function's own; every other parameter takes
    its entry from ``_PARAMETER_DOCS``. Entries are written in signature order. A
    parameter without an entry, or an entry naming no parameter of ``func``, raises
    at import: the documentation cannot drift from the signature.
    """
    if func.__doc__ is None:  # python -OO strips docstrings
        return func
    where = ".".join(filter(None, [func.__module__, func.__qualname__]))
    lines = func.__doc__.split("\n")
    head = next((i for i in range(len(lines)) if lines[i].strip() == "Parameters"
                 and _is_section_header(lines, i)), None)
    if head is None:
        raise InputTypeError(f"The docstring of {where} has no 'Parameters' section.")
    indent = lines[head][:len(lines[head]) - len(lines[head].lstrip())]
    end = next((i for i in range(head + 2, len(lines)) if _is_section_header(lines, i)), len(lines))
    own = _split_entries(lines[head + 2:end], indent)
    shared = {tuple(name.strip() for name in key.split(",")): text.strip("\n").split("\n")
              for key, text in _PARAMETER_DOCS.items()}

    signature = inspect.signature(func)
    stars = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    params = [stars.get(p.kind, "") + p.name for p in signature.parameters.values()]
    if params[:1] in (["self"], ["cls"]):
        params = params[1:]
    documented_here = {name for names in own for name in names}
    unknown = sorted(documented_here - set(params))
    if unknown:
        raise InputTypeError(f"The docstring of {where} documents {unknown}, which are not parameters of "
                             f"{func.__qualname__}{signature}.")
    section, i = [], 0
    while i < len(params):
        # The function's own entry for params[i] (and the parameters after it, for a combined
        # entry); else the longest shared entry that documents nothing the function writes itself.
        candidates = [names for names in own if tuple(params[i:i + len(names)]) == names]
        source = own
        if not candidates:
            candidates = [names for names in shared if tuple(params[i:i + len(names)]) == names
                          and not documented_here.intersection(names)]
            source = shared
        if not candidates:
            misplaced = [names for names in own if params[i] in names]
            if misplaced:
                raise InputTypeError(f"The docstring of {where} documents {', '.join(misplaced[0])} together, "
                                     f"but they are not consecutive parameters of {func.__qualname__}.")
            raise InputTypeError(f"Parameter {params[i]!r} of {where} is not documented: write its entry "
                                 "in the docstring's 'Parameters' section or in _PARAMETER_DOCS.")
        names = max(candidates, key=len)
        section.extend(indent + line if line else "" for line in source[names])
        i += len(names)
    body = lines[head + 2:end]
    trailing = len(body) - len(list(itertools.dropwhile(lambda line: not line.strip(), reversed(body))))
    func.__doc__ = "\n".join(lines[:head + 2] + section + body[len(body) - trailing:] + lines[end:])
    return func


@_document_parameters
def evaluate(y_true, y_score, *, metrics=("mrr", "map", "ndcg@10"), qid=None, ties=_D["ties"], exclude=None,
             labels=None, relevance_level=None, gain=_D["gain"], no_relevant=_D["no_relevant"], sample_weight=None,
             targets=_D["targets"], judged=None, missing="skip", ap_denominator=_D["ap_denominator"],
             nan_policy=_D["nan_policy"], convention=None, unjudged=None, n_jobs=None):
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
                            unjudged=unjudged, n_jobs=n_jobs)


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
                           n_jobs=None):
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
    """
    return _single("map", y_true, y_score, k, dict(
        qid=qid, ties=ties, exclude=exclude, labels=labels, relevance_level=relevance_level,
        no_relevant=no_relevant, sample_weight=sample_weight, judged=judged, ap_denominator=ap_denominator,
        nan_policy=nan_policy, convention=convention, n_jobs=n_jobs))


@_document_parameters
def ndcg_score(y_true, y_score, *, k=None, qid=None, ties=_D["ties"], exclude=None, labels=None, gain=_D["gain"],
               no_relevant=_D["no_relevant"], sample_weight=None, judged=None,
               nan_policy=_D["nan_policy"], convention=None, n_jobs=None):
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
        sample_weight=sample_weight, judged=judged, nan_policy=nan_policy, convention=convention, n_jobs=n_jobs))


@_document_parameters
def dcg_score(y_true, y_score, *, k=None, qid=None, ties=_D["ties"], exclude=None, labels=None, gain=_D["gain"],
              no_relevant=_D["no_relevant"], sample_weight=None, judged=None,
              nan_policy=_D["nan_policy"], convention=None, n_jobs=None):
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
        sample_weight=sample_weight, judged=judged, nan_policy=nan_policy, convention=convention, n_jobs=n_jobs))


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
                   nan_policy=_D["nan_policy"], convention=None, n_jobs=None):
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
        nan_policy=nan_policy, convention=convention, n_jobs=n_jobs))


@_document_parameters
def recall_at_k(y_true, y_score, *, k, qid=None, ties=_D["ties"], exclude=None, labels=None,
                relevance_level=None, no_relevant=_D["no_relevant"], sample_weight=None, judged=None,
                   nan_policy=_D["nan_policy"], convention=None, n_jobs=None):
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
        nan_policy=nan_policy, convention=convention, n_jobs=n_jobs))


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

