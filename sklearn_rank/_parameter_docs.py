"""Docstrings of the public metric functions: numpydoc entries of the parameters they share.

:func:`document_parameters` fills a function's "Parameters" section from its signature, taking each
parameter's entry from the function's own docstring or from :data:`PARAMETER_DOCS`.
"""

from __future__ import annotations

import inspect
import itertools

from .exceptions import InputTypeError

# --------------------------------------------------------------------------------------------
# Docstrings: each function documents exactly its own parameters, in signature order.
# --------------------------------------------------------------------------------------------
# numpydoc entries shared by the functions that take the parameter. A key naming several
# parameters ("y_true, y_score") is one combined entry for those consecutive parameters.
PARAMETER_DOCS = {
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
gain : {"linear", "exponential", "binary"}, default="linear"
    (n)DCG gain: ``rel``, ``2**rel - 1``, or 1 for every positive grade
    (``"binary"``: grades ignored, as LensKit and RecTools).""",
    "no_relevant": """
no_relevant : {"skip", "zero", "one", "error"}, default="skip"
    What to do with queries without a relevant item: leave them out of the
    mean (counted in ``report.n_skipped``), score them 0 (scikit-learn,
    trec_eval, ranx) or 1 (LightGBM's and XGBoost's nDCG), or raise.""",
    "ap_denominator": """
ap_denominator : {"relevant", "capped", "retrieved", "list"}, default="relevant"
    What average precision divides by: ``"relevant"``, every relevant item of
    the query (trec_eval, ranx); ``"capped"``, ``min(k, relevant)`` with a
    cut-off (Spark's ``MAP@k``, LightGBM, XGBoost); ``"retrieved"``, the relevant
    items in the top ``k`` (torchmetrics); ``"list"``, ``min(relevant, k,
    candidates)`` (LensKit, CatBoost).""",
    "precision_denominator": """
precision_denominator : {"k", "list", "capped"}, default="k"
    What precision at ``k`` divides by: ``"k"`` (trec_eval, ranx,
    scikit-learn); ``"list"``, ``min(k, candidates)``, so a list shorter than
    ``k`` can reach 1 (CatBoost, LensKit, torchmetrics' ``adaptive_k``);
    ``"capped"``, ``min(k, relevant)`` (RecTools' ``r_precision``).""",
    "recall_denominator": """
recall_denominator : {"relevant", "capped"}, default="relevant"
    What recall at ``k`` divides by: every relevant item of the query, or
    ``"capped"``, ``min(relevant, k)``, so that 1 is reachable (LensKit).""",
    "discount": """
discount : {"log2", "log2_max2", "reciprocal"}, default="log2"
    The (n)DCG weight of rank ``i``: ``1 / log2(i + 1)``; ``"log2_max2"``,
    ``1 / log2(max(i, 2))`` (ranks 1 and 2 both weigh 1: LensKit);
    ``"reciprocal"``, ``1 / i`` (CatBoost's ``denominator=Position``). The
    ideal DCG uses the same discount.""",
    "ideal_dcg": """
ideal_dcg : {"relevant", "k"}, default="relevant"
    What nDCG divides by: the DCG of the query's own gains in decreasing
    order, cut at ``k``; or ``"k"``, the DCG of ``k`` items of gain 1
    whatever the number of relevant items (RecTools' default), which needs
    a cut-off and binary gains.""",
    "stop_probability": """
stop_probability : {"graded", "label"}, default="graded"
    The chance that ``err`` and ``pfound`` stop at an item of grade ``g``:
    ``(2**g - 1) / 2**g_max`` (Chapelle et al.), or ``"label"``, the label
    itself, which must lie in [0, 1] (CatBoost's ERR and PFound).""",
    "average": """
average : {"macro", "micro"}, default="macro"
    How the count metrics (``p@k``, ``r@k``, ``rprec``, ``f1@k``,
    ``judged@k``) are averaged over queries: the mean of the per-query
    values, or ``"micro"``, the sum of their counts over the sum of their
    denominators (implicit's precision). The per-query values are the same
    either way; another metric with ``"micro"`` is an error.""",
    "all_relevant": """
all_relevant : {"skip", "zero", "one"}, default="skip"
    The ``auc`` of a query whose candidates are all relevant, where no
    pair orders a relevant item against another: undefined (NaN per query,
    left out of the mean, with a warning), 0 (torchmetrics' AUROC,
    CatBoost's QueryAUC) or 1.""",
    "ap_ties": """
ap_ties : {"follow", "max"}, default="follow"
    The places of tied candidates in ``map`` and ``map@k``: those of
    ``ties``, or ``"max"``: every candidate of a tie block at the block's
    last place, with every relevant candidate of the block counted there
    (scipy's ``rankdata(method="max")``; cornac's MAP, scikit-learn's
    ``label_ranking_average_precision_score``). With ``@k``, a block counts
    when its last place is within the top k.""",
    "convention": """
convention : {"sklearn", "trec_eval", "ranx", "pykeen", "ogb", "tgb", "lightgbm", \
"xgboost", "torchmetrics", "spark", "catboost", "lenskit", "rectools", "cornac", \
"implicit", "ir_measures"}, default=None
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


def document_parameters(func):
    """Fill the "Parameters" section of ``func``'s docstring from its signature.

    The section may hold entries of the function's own; every other parameter takes
    its entry from ``PARAMETER_DOCS``. Entries are written in signature order. A
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
              for key, text in PARAMETER_DOCS.items()}

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
                                 "in the docstring's 'Parameters' section or in PARAMETER_DOCS.")
        names = max(candidates, key=len)
        section.extend(indent + line if line else "" for line in source[names])
        i += len(names)
    body = lines[head + 2:end]
    trailing = len(body) - len(list(itertools.dropwhile(lambda line: not line.strip(), reversed(body))))
    func.__doc__ = "\n".join(lines[:head + 2] + section + body[len(body) - trailing:] + lines[end:])
    return func
