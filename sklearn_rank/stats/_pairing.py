"""Reports to values: the metric's per-query values (and weights), aligned by query id when the test is paired."""

import numbers

import numpy as np

from ..exceptions import InputTypeError, InputValueError, UnpairedQueriesWarning
from .._registry import _normalise
from ._validation import _as_values, _format_choices, _is_report, _preview, _warn

# the tests that rank the values: no weighted form
_RANK_TESTS = ("wilcoxon", "mannwhitneyu")
# what pair_by_qid does with a query id found in one report only
UNPAIRED_POLICIES = ("raise", "drop")


def _id_type(qid):
    """What the query ids are, as the engine reads them (all numbers or all strings): "numbers", "strings",
    "bytes", or the dtype's name for anything else."""
    kind = qid.dtype.kind
    if kind == "O":
        values = qid.tolist()
        if all(isinstance(v, str) for v in values):
            kind = "U"
        elif all(isinstance(v, bytes) for v in values):
            kind = "S"
        elif all(isinstance(v, numbers.Number) for v in values):
            kind = "f"
        else:
            return "mixed objects"
    return {"b": "numbers", "i": "numbers", "u": "numbers", "f": "numbers", "U": "strings",
            "S": "bytes"}.get(kind, str(qid.dtype))


def _check_id_types(qid_a, qid_b, label_a="a", label_b="b"):
    """Refuse to pair query ids of two types: numpy compares 3 and '3' as equal strings, but they are two
    queries (the engine refuses them mixed within one input, for the same reason)."""
    if not (qid_a.size and qid_b.size):
        return
    type_a, type_b = _id_type(qid_a), _id_type(qid_b)
    if type_a != type_b:
        raise InputValueError(f"`{label_a}` and `{label_b}` must have query ids of one type to be paired by query id "
                              f"(the number 3 and the string '3' are different queries). Got {type_a} ({qid_a.dtype}) "
                              f"in `{label_a}` and {type_b} ({qid_b.dtype}) in `{label_b}` instead.")


def pair_by_qid(qid_a, qid_b, *, unpaired="drop", label_a="a", label_b="b"):
    """Pair two reports by query id: the ids in both, where they are in each report, and the ids in one only.

    For use inside the package, not part of the public API: the one pairing of reports by query id, for the
    paired tests of :mod:`sklearn_rank.stats` (which leave out the unpaired queries with a warning) and for
    :class:`sklearn_rank.plot.QueryComparisonDisplay` (which refuses them or leaves them out).

    Parameters
    ----------
    qid_a, qid_b : ndarray of shape (n_a,) and (n_b,)
        Query ids of the two reports, each id once (the callers check it, each with its own message).
    unpaired : {"raise", "drop"}, default="drop"
        Query ids found in one report only: a ``ValueError`` that names them, or left out (returned in
        ``only_a`` and ``only_b``, for the caller to count or warn about). Ids of two types (numbers in one
        report, strings in the other) are a ``ValueError`` either way.
    label_a, label_b : str, default="a", "b"
        Names of the two reports in the error.

    Returns
    -------
    shared : ndarray of shape (n_shared,)
        The query ids in both reports, sorted.
    index_a, index_b : ndarray of shape (n_shared,)
        Where each id of ``shared`` is in ``qid_a`` and in ``qid_b``.
    only_a, only_b : ndarray
        The query ids only in ``qid_a`` (only in ``qid_b``), sorted.
    """
    if unpaired not in UNPAIRED_POLICIES:
        raise InputValueError(f"`unpaired` must be one of {_format_choices(list(UNPAIRED_POLICIES))}. "
                              f"Got {unpaired!r} instead.")
    _check_id_types(qid_a, qid_b, label_a, label_b)
    shared, index_a, index_b = np.intersect1d(qid_a, qid_b, assume_unique=True, return_indices=True)
    only_a = np.setdiff1d(qid_a, shared, assume_unique=True) if qid_a.size > shared.size else qid_a[:0]
    only_b = np.setdiff1d(qid_b, shared, assume_unique=True) if qid_b.size > shared.size else qid_b[:0]
    if (only_a.size or only_b.size) and unpaired == "raise":
        raise InputValueError(
            f"`{label_a}` and `{label_b}` must hold the same queries to be paired by query id "
            "(unpaired='drop' leaves out the others). Got "
            f"{only_a.size} query ids only in {label_a} {only_a[:5].tolist()} and {only_b.size} only in "
            f"{label_b} {only_b[:5].tolist()} instead.")
    return shared, index_a, index_b, only_a, only_b


def _report_values(report, metric, name):
    """Return ``(qid, values)`` of ``metric`` from a report (anything with a ``per_query`` mapping)."""
    per_query = report.per_query
    available = [key for key in per_query if key != "qid"]
    if metric is None:
        raise InputValueError(
            f"`metric` is required when comparing reports; `{name}` has {_format_choices(available)}. "
            "Got None instead.")
    if not isinstance(metric, str):
        raise InputTypeError(f"`metric` must be a metric name (str). Got {type(metric).__name__} instead.")
    if metric in per_query and metric != "qid":
        key = metric
    else:
        matches = [key for key in available
                   if isinstance(key, str) and _normalise(key) == _normalise(metric)]
        if len(matches) != 1:
            raise InputValueError(f"`metric` must name a per-query metric of `{name}`, one of "
                                  f"{_format_choices(available)}. Got {metric!r} instead.")
        key = matches[0]
    if "qid" not in per_query:
        raise InputValueError(f"`{name}.per_query` must hold the query ids under 'qid'. "
                              f"Got the keys {_format_choices(list(per_query))} instead.")
    qid = np.asarray(per_query["qid"])
    values = _as_values(per_query[key], f"{name}.per_query[{key!r}]", qid=qid)
    if qid.shape != values.shape:
        raise InputValueError(f"`{name}.per_query['qid']` must have one query id per value of {key!r}. "
                              f"Got {qid.shape[0] if qid.ndim else 0} ids for {values.size} values instead.")
    return qid, values


def _report_weights(report, qid, name):
    """The report's per-query weights (``report.sample_weight``, in ``per_query["qid"]`` order), or None."""
    weight = getattr(report, "sample_weight", None)
    if weight is None:
        return None
    try:
        weight = np.asarray(weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputTypeError(f"`{name}.sample_weight` must be a 1-D array of numbers. "
                             f"Got {type(weight).__name__} instead.") from exc
    if weight.shape != qid.shape:
        raise InputValueError(f"`{name}.sample_weight` must hold one weight per query id. "
                              f"Got shape {weight.shape} for {qid.size} query ids instead.")
    bad = np.flatnonzero(~(np.isfinite(weight) & (weight >= 0)))
    if bad.size:
        raise InputValueError(f"`{name}.sample_weight` must be finite and non-negative. "
                              f"Got {weight[bad[0]]} at query ids {_preview(qid[bad])} instead.")
    return weight


def _no_weighting(weight):
    """None for weights that weigh nothing (absent, or all equal: the summary's means ignore their scale)."""
    return None if weight is None or np.all(weight == weight[0]) else weight


def _positive_weight(values, weight, label):
    """Values and weights of the queries of positive weight (a weight 0 takes a query out of the summary, and
    so out of the test); None for weights left all equal."""
    if weight is None:
        return values, None
    keep = weight > 0
    if not keep.all():
        if np.count_nonzero(keep) < 2:
            raise InputValueError(f"`{label}` needs at least two queries of positive sample_weight to compare. "
                                  f"Got {np.count_nonzero(keep)} instead.")
        values = values[..., keep]
        weight = weight[keep]
    return values, _no_weighting(weight)


def _model_mean(values, metric, label):
    """The (weighted) mean of one model's values over all its queries: the report's summary of ``metric``, the
    mean of an array; what a table of several models shows for it."""
    if _is_report(values):
        qid, values_of_metric = _report_values(values, metric, label)
        values_of_metric, weight = _positive_weight(values_of_metric, _report_weights(values, qid, label), label)
    else:
        values_of_metric, weight = _as_values(values, label), None
    if weight is None:
        return float(np.mean(values_of_metric))
    return float(np.dot(weight, values_of_metric) / weight.sum())


def _paired_weight(qid, weight_a, weight_b, label_a, label_b):
    """The one weight of each pair: both reports must weigh a shared query alike."""
    weight_a, weight_b = _no_weighting(weight_a), _no_weighting(weight_b)
    if weight_a is None and weight_b is None:
        return None
    if weight_a is None or weight_b is None:
        weighted, other = (label_a, label_b) if weight_b is None else (label_b, label_a)
        raise InputValueError(
            f"A paired test weighs each query once, so `{label_a}` and `{label_b}` must carry the "
            f"same sample_weight. Got `{weighted}` with per-query sample_weight and `{other}` with no "
            "sample_weight (or all equal) instead.")
    differ = np.flatnonzero(weight_a != weight_b)
    if differ.size:
        first = differ[0]
        raise InputValueError(f"A paired test weighs each query once, so `{label_a}` and `{label_b}` must carry the "
                              f"same sample_weight for the queries they share. Got {weight_a[first]} and "
                              f"{weight_b[first]} for query id {_preview(qid[[first]])[1:-1]} "
                              f"({differ.size} queries differ) instead.")
    return weight_a


def _align_by_qid(qid_a, values_a, qid_b, values_b, label_a, label_b):
    """Pair the values of two reports on the query ids they share.

    Returns ``(x, y, index_a, index_b, n_unpaired_a, n_unpaired_b)``: the
    paired values in query-id order, where they are in each report, and the
    number of queries of each report left out.
    """
    for qid, label in ((qid_a, label_a), (qid_b, label_b)):
        unique, counts = np.unique(qid, return_counts=True)
        if unique.size != qid.size:
            raise InputValueError(f"`{label}` lists some query ids more than once, so it cannot be aligned. "
                                  f"Got repeated query ids {_preview(unique[counts > 1])} instead.")
    shared, index_a, index_b, only_a, only_b = pair_by_qid(qid_a, qid_b, unpaired="drop", label_a=label_a,
                                                           label_b=label_b)
    n_unpaired_a, n_unpaired_b = only_a.size, only_b.size
    if shared.size < 2:
        raise InputValueError(f"A paired test aligns reports by query id and needs at least two queries found in both "
                              f"`{label_a}` and `{label_b}`; pass paired=False to compare them as independent samples. "
                              f"Got {shared.size} shared query ids ({qid_a.size} and {qid_b.size} queries) instead.")
    if n_unpaired_a or n_unpaired_b:
        _warn(f"`{label_a}` and `{label_b}` share {shared.size} query ids: the paired test uses those and "
              f"leaves out {n_unpaired_a} query ids only in `{label_a}` {_preview(only_a)} and "
              f"{n_unpaired_b} only in `{label_b}` {_preview(only_b)}.", UnpairedQueriesWarning)
    return values_a[index_a], values_b[index_b], index_a, index_b, n_unpaired_a, n_unpaired_b


def _prepare(a, b, *, metric, test, paired, label_a="a", label_b="b"):
    """Resolve inputs, pairing, weights and the test to run.

    Returns ``(x, y, paired, test, (n_unpaired_a, n_unpaired_b), (weight_x, weight_y))``: the weights of the
    values of reports that carry unequal ``sample_weight`` (the same array twice when paired), else None.
    """
    if test == "wilcoxon" and paired is False:
        raise InputValueError("`test='wilcoxon'` is a paired test (signed ranks of a - b). "
                              "Use test='mannwhitneyu' for independent samples. Got paired=False instead.")
    if test == "mannwhitneyu" and paired is True:
        raise InputValueError("`test='mannwhitneyu'` compares independent samples. "
                              "Use test='wilcoxon' for paired values. Got paired=True instead.")
    qid_a = qid_b = weight_a = weight_b = None
    if _is_report(a):
        qid_a, x = _report_values(a, metric, label_a)
        weight_a = _report_weights(a, qid_a, label_a)
    else:
        x = _as_values(a, label_a)
    if _is_report(b):
        qid_b, y = _report_values(b, metric, label_b)
        weight_b = _report_weights(b, qid_b, label_b)
    else:
        y = _as_values(b, label_b)

    both_reports = qid_a is not None and qid_b is not None
    if paired is None:
        if test == "wilcoxon":
            paired = True
        elif test == "mannwhitneyu" or not both_reports:
            paired = False
        else:  # reports on (some of) the same queries are paired on those
            _check_id_types(qid_a, qid_b, label_a, label_b)
            paired = bool(np.intersect1d(qid_a, qid_b).size)

    unpaired = (0, 0)
    if paired:
        if both_reports:
            x, y, index_a, index_b, *unpaired = _align_by_qid(qid_a, x, qid_b, y, label_a, label_b)
            weight = _paired_weight(qid_a[index_a], None if weight_a is None else weight_a[index_a],
                                    None if weight_b is None else weight_b[index_b], label_a, label_b)
            pair = np.stack([x, y])
            pair, weight = _positive_weight(pair, weight, f"{label_a}` and `{label_b}")
            x, y = pair
            weight_a = weight_b = weight
        elif x.size != y.size:
            raise InputValueError(f"Paired tests need as many values in `{label_b}` as in `{label_a}`. "
                                  f"Got {x.size} and {y.size} instead.")
    else:
        x, weight_a = _positive_weight(x, weight_a, label_a)
        y, weight_b = _positive_weight(y, weight_b, label_b)
    requested = test
    if test == "auto":
        test = "wilcoxon" if paired else "mannwhitneyu"
    if test in _RANK_TESTS and (weight_a is not None or weight_b is not None):
        weighted = [f"`{label}`" for label, weight in ((label_a, weight_a), (label_b, weight_b))
                    if weight is not None]
        picked = f"test='auto' picks {test!r} here, which" if requested == "auto" else f"test={test!r}"
        raise InputValueError(f"{picked} ranks the values and has no weighted form, and {' and '.join(weighted)} "
                              f"{'carry' if len(weighted) == 2 else 'carries'} per-query "
                              "sample_weight (not all equal): use test='ttest', 'permutation' or 'bootstrap', which "
                              f"weigh the queries. Got test={requested!r} with weighted reports instead.")
    return x, y, bool(paired), test, tuple(unpaired), (weight_a, weight_b)
