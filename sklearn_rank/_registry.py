"""Metric registry: one :class:`MetricSpec` per metric, names, synonyms and ``@k``."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
import math

from ._checks import check_positive_int
from .exceptions import InputTypeError, InputValueError

__all__ = ["MetricSpec", "get_metric", "metric_names"]


@dataclass(frozen=True)
class MetricSpec:
    """Description of one metric of the registry.

    Attributes
    ----------
    name : str
        Canonical name, with ``@k`` when a cut-off is set (``"ndcg@10"``).
    base : str
        Canonical name without the cut-off (``"ndcg"``).
    family : {"list", "rank"}
        ``"list"``: a per-query list metric averaged over queries.
        ``"rank"``: a statistic of the ranks of the targets (pooled over
        queries when ``targets="all"``).
    greater_is_better : bool
        Direction of the metric.
    takes_k : {"no", "optional", "required"}
        Whether the metric has a cut-off.
    k : int or None
        The cut-off, when given.
    lower, upper : float
        Range of the metric (``-inf``/``inf`` when unbounded).
    needs_relevant : bool
        Whether a query without relevant items is undefined for the metric
        (see ``no_relevant``).
    description : str
        One line saying what the metric is.
    param : float or None
        The metric's parameter, for the metrics that have one: the
        persistence ``p`` of ``rbp`` (``"rbp(p=0.95)"``), the fixed maximum
        grade of ``err`` (``"err(max_grade=4)@20"``); None otherwise (for
        ``err``: the largest grade judged for each query).
    """

    name: str
    base: str
    family: str
    greater_is_better: bool
    takes_k: str
    k: int | None
    lower: float
    upper: float
    needs_relevant: bool
    description: str
    param: float | None = None


_INF = math.inf

@dataclass(frozen=True)
class _Entry:
    """One metric of the registry: what it is, and the kernel method that computes it.

    ``list_kernel`` names the ``_kernels.ListKernels`` method of a per-query list metric,
    ``rank_kernel`` the ``_kernels.RankStats`` method of a rank statistic (``"adjusted"``: the
    adjusted and z-scored family, computed from the base statistic and its random baseline).
    A metric with both (``mrr``, ``hits``) is a list metric with ``targets="first"`` and a rank
    statistic with ``targets="all"``.
    """

    family: str
    greater_is_better: bool
    takes_k: str
    lower: float
    upper: float
    needs_relevant: bool
    description: str
    synonyms: tuple
    list_kernel: str | None = None
    rank_kernel: str | None = None
    param: str | None = None          # name of the metric's parameter, written ``base(name=value)``
    param_default: float | None = None


_SPECS = {  # family, greater_is_better, takes_k, lower, upper, needs_relevant, description, ...
    "mrr": _Entry(
        "list", True, "optional", 0.0, 1.0, True,
        "mean reciprocal rank of the first relevant item (with @k: 0 beyond rank k)",
        synonyms=("rr", "meanreciprocalrank", "reciprank", "reciprocalrank"), list_kernel="reciprocal_rank",
        rank_kernel="reciprocal_rank"),
    "map": _Entry(
        "list", True, "optional", 0.0, 1.0, True,
        "mean average precision (denominator: number of relevant items)",
        synonyms=("ap", "meanaverageprecision", "averageprecision"), list_kernel="average_precision"),
    "ndcg": _Entry(
        "list", True, "optional", 0.0, 1.0, True, "normalized discounted cumulative gain", synonyms=(),
        list_kernel="ndcg"),
    "dcg": _Entry(
        "list", True, "optional", 0.0, _INF, False, "discounted cumulative gain (log2 discount)", synonyms=(),
        list_kernel="dcg"),
    "p": _Entry(
        "list", True, "required", 0.0, 1.0, True, "precision at k (divides by k)", synonyms=("precision",),
        list_kernel="precision"),
    "r": _Entry(
        "list", True, "required", 0.0, 1.0, True, "recall at k (divides by the number of relevant items)",
        synonyms=("recall",), list_kernel="recall"),
    "f1": _Entry(
        "list", True, "required", 0.0, 1.0, True, "harmonic mean of precision and recall at k", synonyms=(),
        list_kernel="f1"),
    "hits": _Entry(
        "list", True, "required", 0.0, 1.0, True, "fraction of queries with a relevant item in the top k",
        synonyms=("h", "hitrate", "success"), list_kernel="hit", rank_kernel="hit"),
    "numrelret": _Entry(
        "list", True, "optional", 0.0, _INF, False,
        "number of relevant items retrieved (in the top k): trec_eval's num_rel_ret, ranx's hits@k",
        synonyms=("relret", "relevantretrieved"), list_kernel="relevant_retrieved"),
    "rprec": _Entry(
        "list", True, "no", 0.0, 1.0, True, "precision at R, the number of relevant items",
        synonyms=("rprecision",), list_kernel="r_precision"),
    "auc": _Entry(
        "list", True, "optional", 0.0, 1.0, True,
        "per-query ROC AUC (ties count half; with @k: of the top k, torchmetrics' top_k)", synonyms=("rocauc",),
        list_kernel="auc"),
    "bpref": _Entry(
        "list", True, "no", 0.0, 1.0, True,
        "binary preference: judged non-relevant items ranked above each relevant one (trec_eval's bpref)",
        synonyms=(), list_kernel="bpref"),
    "rbp": _Entry(
        "list", True, "optional", 0.0, 1.0, True,
        "rank-biased precision with persistence p (Moffat & Zobel 2008; with @k: the top k only)",
        synonyms=("rankbiasedprecision",), list_kernel="rbp", param="p", param_default=0.8),
    "err": _Entry(
        "list", True, "optional", 0.0, 1.0, True, "expected reciprocal rank (Chapelle et al. 2009)",
        synonyms=("expectedreciprocalrank",), list_kernel="err", param="max_grade"),
    "pfound": _Entry(
        "list", True, "optional", 0.0, 1.0, True,
        "pFound (Yandex; CatBoost's PFound): ERR's cascade with a 0.85 chance of looking further at each place",
        synonyms=("pfound",), list_kernel="pfound", param="max_grade"),
    "judged": _Entry(
        "list", True, "required", 0.0, 1.0, False, "share of the top k that carries a judgement (divides by k)",
        synonyms=(), list_kernel="judged"),
    "mr": _Entry(
        "rank", False, "no", 1.0, _INF, True, "arithmetic mean rank",
        synonyms=("meanrank", "arithmeticmeanrank", "amean"), rank_kernel="mean_rank"),
    "gmr": _Entry(
        "rank", False, "no", 1.0, _INF, True, "geometric mean rank", synonyms=("geometricmeanrank",),
        rank_kernel="geometric_mean_rank"),
    "igmr": _Entry(
        "rank", True, "no", 0.0, 1.0, True, "inverse geometric mean rank",
        synonyms=("inversegeometricmeanrank",), rank_kernel="inverse_geometric_mean_rank"),
    "hmr": _Entry(
        "rank", False, "no", 1.0, _INF, True, "harmonic mean rank (1 / MRR)", synonyms=("harmonicmeanrank",),
        rank_kernel="harmonic_mean_rank"),
    "iamr": _Entry(
        "rank", True, "no", 0.0, 1.0, True, "inverse arithmetic mean rank (1 / MR)",
        synonyms=("inversearithmeticmeanrank",), rank_kernel="inverse_arithmetic_mean_rank"),
    "medianrank": _Entry(
        "rank", False, "no", 1.0, _INF, True, "median rank", synonyms=("median",), rank_kernel="median_rank"),
    "inversemedianrank": _Entry(
        "rank", True, "no", 0.0, 1.0, True, "inverse median rank", synonyms=(),
        rank_kernel="inverse_median_rank"),
    "rankstd": _Entry(
        "rank", False, "no", 0.0, _INF, True, "population standard deviation of the ranks", synonyms=("std",),
        rank_kernel="rank_std"),
    "rankvar": _Entry(
        "rank", False, "no", 0.0, _INF, True, "population variance of the ranks", synonyms=("var", "variance"),
        rank_kernel="rank_variance"),
    "rankmad": _Entry(
        "rank", False, "no", 0.0, _INF, True, "median absolute deviation of the ranks, scaled by 1/0.67449",
        synonyms=("mad",), rank_kernel="rank_mad"),
    "count": _Entry(
        "rank", True, "no", 0.0, _INF, True, "number of ranks (targets) aggregated", synonyms=("rankcount",),
        rank_kernel="target_count"),
    "amr": _Entry(
        "rank", False, "no", 0.0, 2.0, True, "adjusted mean rank: MR / E[MR] (Berrendorf et al. 2020)",
        synonyms=("adjustedmeanrank", "aamr"), rank_kernel="adjusted"),
    "amri": _Entry(
        "rank", True, "no", -1.0, 1.0, True, "adjusted mean rank index: 1 - (MR - 1) / (E[MR] - 1)",
        synonyms=("adjustedmeanrankindex", "aamri"), rank_kernel="adjusted"),
    "agmri": _Entry(
        "rank", True, "no", -_INF, 1.0, True, "adjusted geometric mean rank index",
        synonyms=("adjustedgeometricmeanrankindex",), rank_kernel="adjusted"),
    "amrr": _Entry(
        "rank", True, "no", -_INF, 1.0, True, "adjusted MRR: (MRR - E[MRR]) / (1 - E[MRR])",
        synonyms=("adjustedmrr", "adjustedmeanreciprocalrank", "aihmr"), rank_kernel="adjusted"),
    "ahits": _Entry(
        "rank", True, "required", -_INF, 1.0, True, "adjusted hits at k: (H - E[H]) / (1 - E[H])",
        synonyms=("adjustedhits", "ah"), rank_kernel="adjusted"),
    "zmr": _Entry(
        "rank", True, "no", -_INF, _INF, True, "z-scored mean rank (sign flipped: higher is better)",
        synonyms=("zamr",), rank_kernel="adjusted"),
    "zmrr": _Entry(
        "rank", True, "no", -_INF, _INF, True, "z-scored mean reciprocal rank", synonyms=("zihmr",),
        rank_kernel="adjusted"),
    "zgmr": _Entry(
        "rank", True, "no", -_INF, _INF, True, "z-scored geometric mean rank (sign flipped: higher is better)",
        synonyms=(), rank_kernel="adjusted"),
    "zhits": _Entry(
        "rank", True, "required", -_INF, _INF, True, "z-scored hits at k", synonyms=("zh",),
        rank_kernel="adjusted"),
}

# Canonical spellings shown to users (registry keys are normalised).
_DISPLAY = {
    "p": "p", "r": "r", "numrelret": "num_rel_ret", "medianrank": "median_rank", "inversemedianrank": "inverse_median_rank",
    "rankstd": "rank_std", "rankvar": "rank_var", "rankmad": "rank_mad",
}

_ALIASES = {}
for _base, _entry in _SPECS.items():
    _ALIASES[_base] = _base
    for _syn in _entry.synonyms:
        _ALIASES[_syn] = _base

# Metrics that exist in both families: list metrics when targets="first", rank statistics otherwise.
DUAL_FAMILY = frozenset(base for base, entry in _SPECS.items() if entry.list_kernel and entry.rank_kernel)


def list_kernel(base):
    """The ``ListKernels`` method that computes the list metric ``base``."""
    return _SPECS[base].list_kernel


def rank_kernel(base):
    """The ``RankStats`` method that computes the rank statistic ``base``."""
    return _SPECS[base].rank_kernel


def _normalise(name):
    return "".join(ch for ch in name.lower() if ch not in "-_ ")


normalise_name = _normalise  # the registry's reading of a name (case, "-", "_" and spaces ignored)


def display_name(base, k, param=None):
    """The canonical name of ``base`` with cut-off ``k`` and parameter ``param`` (``"rbp(p=0.85)@10"``)."""
    return _display(base, k, param)


def _display(base, k, param=None):
    text = _DISPLAY.get(base, base)
    entry = _SPECS[base]
    if param is not None and param != entry.param_default:
        shown = str(int(param)) if float(param).is_integer() else repr(float(param))
        text = f"{text}({entry.param}={shown})"
    return text if k is None else f"{text}@{k}"


def metric_names():
    """List the canonical metric names of the registry.

    Metrics with a cut-off are listed with ``@k``.

    Returns
    -------
    names : list of str
        Sorted canonical names.

    Examples
    --------
    >>> from sklearn_rank import metric_names
    >>> "ndcg@k" in metric_names() and "mrr" in metric_names()
    True
    """
    names = []
    for base, entry in _SPECS.items():
        names.append(_display(base, None) + ("@k" if entry.takes_k == "required" else ""))
        if entry.takes_k == "optional":
            names.append(_display(base, None) + "@k")
    return sorted(names)


def _suggestions(text):
    """Up to three valid names close to ``text``, synonyms included, keeping the cut-off as written."""
    head, sep, tail = text.partition("@")
    head = _split_param(head)[0]
    close = difflib.get_close_matches(_normalise(head), list(_ALIASES), n=8, cutoff=0.6)
    tail = tail.strip()
    hints = []
    for alias in close:
        base = _ALIASES[alias]
        takes_k = _SPECS[base].takes_k
        if takes_k == "no":
            hint = _display(base, None)
        elif sep or takes_k == "required":
            hint = _display(base, tail if sep and tail.isdigit() else "k")
        else:
            hint = _display(base, None)
        if hint not in hints:
            hints.append(hint)
    return hints[:3]


def get_metric(name):
    """Look up a metric by name.

    Names are case-insensitive; ``-``, ``_`` and spaces are ignored; a cut-off
    is written ``@k`` (``"ndcg@10"``, ``"hit_rate@5"``, ``"P@5"``).

    Parameters
    ----------
    name : str or MetricSpec
        Metric name or synonym.

    Returns
    -------
    spec : MetricSpec
        The metric's description, with ``k`` set when given.

    Raises
    ------
    ValueError
        If the name is unknown (the message lists the closest valid names),
        or a cut-off is missing, not allowed, or not a positive integer.

    Examples
    --------
    >>> from sklearn_rank import get_metric
    >>> spec = get_metric("NDCG@10")
    >>> spec.name, spec.k, spec.greater_is_better
    ('ndcg@10', 10, True)
    >>> get_metric("mean_rank").greater_is_better
    False
    """
    if isinstance(name, MetricSpec):
        return name
    if not isinstance(name, str):
        raise InputTypeError(f"`metric` must be a string. Got {name!r} of type {type(name).__name__} instead.")
    cached = _RESOLVED.get(name)
    if cached is not None:
        return cached
    spec = _parse(name)
    if len(_RESOLVED) < 4096:
        _RESOLVED[name] = spec  # MetricSpec is frozen: safe to share
    return spec


# Names already resolved (a search resolves the same name at every scoring call).
_RESOLVED = {}


def _parse(name):
    text = name.strip()
    if text.endswith("-") and len(text) > 1:
        # "-" is ignored inside names, so XGBoost's "ndcg-" would silently read as "ndcg"
        plain = text.rstrip("-")
        raise InputValueError(f"A trailing '-' is XGBoost's mark for scoring a query without a relevant item 0; "
                              f"sklearn-rank writes that as an option: {plain!r} with no_relevant='zero'. Got "
                              f"{name!r} instead.")
    head, sep, tail = text.partition("@")
    head, param_text = _split_param(head)
    base = _ALIASES.get(_normalise(head))
    if base is None and param_text is None:
        base, param_text = _ranx_persistence(head)
    if base is None:
        hints = _suggestions(text)
        hint = f" Did you mean {', '.join(repr(h) for h in hints)}?" if hints else ""
        raise InputValueError(
            f"Unknown metric {name!r}.{hint} Valid names: {', '.join(metric_names())}."
        )
    takes_k = _SPECS[base].takes_k
    k = None
    if sep:
        if takes_k == "no":
            raise InputValueError(f"Metric {_display(base, None)!r} takes no cut-off. Got {name!r} instead.")
        k = _parse_k(tail.strip(), name)
    elif takes_k == "required":
        raise InputValueError(
            f"Metric {_display(base, None)!r} needs a cut-off, e.g. {_display(base, 10)!r}. Got {name!r} instead."
        )
    return _spec(base, k, _parse_param(base, param_text, name))


def _split_param(head):
    """``"rbp(p=0.9)"`` -> (``"rbp"``, ``"p=0.9"``); a name without parentheses -> (name, None)."""
    stripped = head.strip()
    if "(" not in stripped and ")" not in stripped:
        return head, None
    before, _, inside = stripped.partition("(")
    if not inside.endswith(")") or "(" in inside or ")" in inside[:-1]:
        return head, None  # malformed: reported as an unknown name
    return before, inside[:-1]


def _ranx_persistence(head):
    """ranx's spelling ``rbp.95``: the digits after the dot are the decimals of p -> ("rbp", "p=0.95")."""
    base_text, dot, digits = _normalise(head).partition(".")
    if dot and _ALIASES.get(base_text) == "rbp" and digits.isdigit():
        return "rbp", f"p=0.{digits}"
    return None, None


def _parse_param(base, param_text, name):
    """The value of the metric's parameter written in ``name`` (its default when not written)."""
    entry = _SPECS[base]
    if param_text is None:
        return entry.param_default
    if entry.param is None:
        raise InputValueError(f"Metric {_display(base, None)!r} takes no parameter. Got {name!r} instead.")
    key, eq, value = param_text.partition("=")
    if not eq:
        key, value = entry.param, key  # "rbp(0.9)"
    if _normalise(key) != _normalise(entry.param):
        raise InputValueError(f"Metric {_display(base, None)!r} takes the parameter {entry.param!r}, written "
                              f"{_display(base, None)}({entry.param}=...). Got {name!r} instead.")
    try:
        number = float(value.strip())
    except ValueError:
        number = math.nan
    return check_param(base, number, f"The parameter {entry.param} in {name!r}", value.strip())


def check_param(base, value, where, shown=None):
    """Validate the parameter of ``base``: rbp's p in (0, 1), err's max_grade a positive number."""
    shown = value if shown is None else shown
    if base == "rbp" and not 0.0 < value < 1.0:
        raise InputValueError(f"{where} (the persistence) must lie strictly between 0 and 1. Got {shown!r} instead.")
    if base == "err" and not (0.0 < value < 1024.0):
        raise InputValueError(f"{where} (the maximum relevance grade) must be a positive number below 1024. "
                              f"Got {shown!r} instead.")
    return float(value)


def _spec(base, k, param=None):
    """The MetricSpec of a registry entry with cut-off ``k`` (None: none) and parameter ``param``."""
    entry = _SPECS[base]
    return MetricSpec(
        name=_display(base, k, param), base=base, family=entry.family, greater_is_better=entry.greater_is_better,
        takes_k=entry.takes_k, k=k, lower=entry.lower, upper=entry.upper, needs_relevant=entry.needs_relevant,
        description=entry.description, param=param,
    )


def _parse_k(text, name):
    try:
        k = int(text)
    except ValueError:
        raise InputValueError(f"The cut-off k in {name!r} must be a positive integer. Got {text!r} instead.") from None
    if k < 1 or str(k) != text.lstrip("+"):
        raise InputValueError(f"The cut-off k in {name!r} must be a positive integer. Got {text!r} instead.")
    return k


def base_spec(base):
    """The spec of a canonical base name without a cut-off (for the metric functions)."""
    return _spec(base, None, _SPECS[base].param_default)


def with_k(spec, k):
    """Return ``spec`` with cut-off ``k`` (validated), used by the metric functions."""
    if k is None:
        if spec.takes_k == "required" and spec.k is None:
            raise InputValueError(f"`k` is required for {spec.name!r}. Got None instead.")
        return spec
    k = check_positive_int(k, "k", type_error=True)
    if spec.takes_k == "no":
        raise InputValueError(f"Metric {spec.name!r} takes no cut-off. Got k={k} instead.")
    return replace(spec, k=k, name=_display(spec.base, k, spec.param))
