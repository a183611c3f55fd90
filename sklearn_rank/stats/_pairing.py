"""Reports to values: the metric's per-query values, aligned by query id when the test is paired."""

import numpy as np

from ..exceptions import UnpairedQueriesWarning
from .._registry import _normalise
from ._validation import _as_values, _format_choices, _is_report, _preview, _warn


def _report_values(report, metric, name):
    """Return ``(qid, values)`` of ``metric`` from a report (anything with a ``per_query`` mapping)."""
    per_query = report.per_query
    available = [key for key in per_query if key != "qid"]
    if metric is None:
        raise ValueError(f"`metric` is required when comparing reports; `{name}` has {_format_choices(available)}. "
                         "Got None instead.")
    if not isinstance(metric, str):
        raise TypeError(f"`metric` must be a metric name (str). Got {type(metric).__name__} instead.")
    if metric in per_query and metric != "qid":
        key = metric
    else:
        matches = [key for key in available
                   if isinstance(key, str) and _normalise(key) == _normalise(metric)]
        if len(matches) != 1:
            raise ValueError(f"`metric` must name a per-query metric of `{name}`, one of "
                             f"{_format_choices(available)}. Got {metric!r} instead.")
        key = matches[0]
    if "qid" not in per_query:
        raise ValueError(f"`{name}.per_query` must hold the query ids under 'qid'. "
                         f"Got the keys {_format_choices(list(per_query))} instead.")
    qid = np.asarray(per_query["qid"])
    values = _as_values(per_query[key], f"{name}.per_query[{key!r}]", qid=qid)
    if qid.shape != values.shape:
        raise ValueError(f"`{name}.per_query['qid']` must have one query id per value of {key!r}. "
                         f"Got {qid.shape[0] if qid.ndim else 0} ids for {values.size} values instead.")
    return qid, values


def _align_by_qid(qid_a, values_a, qid_b, values_b, label_a, label_b):
    """Pair the values of two reports on the query ids they share.

    Returns ``(x, y, n_unpaired_a, n_unpaired_b)``: the paired values in
    query-id order and the number of queries of each report left out.
    """
    for qid, label in ((qid_a, label_a), (qid_b, label_b)):
        unique, counts = np.unique(qid, return_counts=True)
        if unique.size != qid.size:
            raise ValueError(f"`{label}` lists some query ids more than once, so it cannot be aligned. "
                             f"Got repeated query ids {_preview(unique[counts > 1])} instead.")
    shared, index_a, index_b = np.intersect1d(qid_a, qid_b, assume_unique=True, return_indices=True)
    n_unpaired_a, n_unpaired_b = qid_a.size - shared.size, qid_b.size - shared.size
    if shared.size < 2:
        raise ValueError(f"A paired test aligns reports by query id and needs at least two queries found in both "
                         f"`{label_a}` and `{label_b}`; pass paired=False to compare them as independent samples. "
                         f"Got {shared.size} shared query ids ({qid_a.size} and {qid_b.size} queries) instead.")
    if n_unpaired_a or n_unpaired_b:
        only_a = np.setdiff1d(qid_a, shared, assume_unique=True)
        only_b = np.setdiff1d(qid_b, shared, assume_unique=True)
        _warn(f"`{label_a}` and `{label_b}` share {shared.size} query ids: the paired test uses those and "
              f"leaves out {n_unpaired_a} query ids only in `{label_a}` {_preview(only_a)} and "
              f"{n_unpaired_b} only in `{label_b}` {_preview(only_b)}.", UnpairedQueriesWarning)
    return values_a[index_a], values_b[index_b], n_unpaired_a, n_unpaired_b


def _prepare(a, b, *, metric, test, paired, label_a="a", label_b="b"):
    """Resolve inputs, pairing and the test to run.

    Returns ``(x, y, paired, test, (n_unpaired_a, n_unpaired_b))``.
    """
    if test == "wilcoxon" and paired is False:
        raise ValueError("`test='wilcoxon'` is a paired test (signed ranks of a - b). "
                         "Use test='mannwhitneyu' for independent samples. Got paired=False instead.")
    if test == "mannwhitneyu" and paired is True:
        raise ValueError("`test='mannwhitneyu'` compares independent samples. "
                         "Use test='wilcoxon' for paired values. Got paired=True instead.")
    qid_a = qid_b = None
    if _is_report(a):
        qid_a, x = _report_values(a, metric, label_a)
    else:
        x = _as_values(a, label_a)
    if _is_report(b):
        qid_b, y = _report_values(b, metric, label_b)
    else:
        y = _as_values(b, label_b)

    both_reports = qid_a is not None and qid_b is not None
    if paired is None:
        if test == "wilcoxon":
            paired = True
        elif test == "mannwhitneyu" or not both_reports:
            paired = False
        else:  # reports on (some of) the same queries are paired on those
            paired = bool(np.intersect1d(qid_a, qid_b).size)

    unpaired = (0, 0)
    if paired:
        if both_reports:
            x, y, *unpaired = _align_by_qid(qid_a, x, qid_b, y, label_a, label_b)
        elif x.size != y.size:
            raise ValueError(f"Paired tests need as many values in `{label_b}` as in `{label_a}`. "
                             f"Got {x.size} and {y.size} instead.")
    if test == "auto":
        test = "wilcoxon" if paired else "mannwhitneyu"
    return x, y, bool(paired), test, tuple(unpaired)
