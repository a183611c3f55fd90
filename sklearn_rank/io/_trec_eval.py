"""Evaluating a run against qrels with trec_eval's conventions: trec_eval's order, the relevance join."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _engine
from .._conventions import Default, default_options, normalise_convention, resolve as resolve_convention
from .._factorize import factorize
from .._inputs import check_option
from ._trec_files import read_qrels, read_run
from ._trec_keys import _HASH_BLOCK, _order_rows, _plain_rows, _query_order, _row_keys, _trec_order
from ._trec_lines import Qrels, Run
from ..exceptions import InputValueError


_D = default_options(ties="trec", gain="linear", no_relevant="zero", ap_denominator="relevant", missing="skip")


def evaluate_trec(qrels, run, *, metrics=("map", "mrr", "ndcg@10"), relevance_level=None, missing=_D["missing"],
                  ties=_D["ties"], gain=_D["gain"], convention=None):
    """Evaluate a run against qrels with trec_eval's conventions.

    Documents are ranked by decreasing score, ties broken by decreasing
    docno (``ties="trec"``, trec_eval's rule; any policy of :func:`evaluate`
    may be chosen instead). Judged-relevant documents the run never retrieved
    count in the denominators of AP, recall and R-precision and in the ideal
    DCG. Unjudged documents and negative levels are not relevant.
    ``relevance_level`` decides relevance for the binary measures (trec_eval
    ``-l``); nDCG keeps every positive level as its gain.

    Read more in the :ref:`User Guide <conventions_trec_eval>`.

    Parameters
    ----------
    qrels : Qrels or path
        The judgements, or the path of a qrels file (read with
        :func:`read_qrels`).
    run : Run or path
        The run, or the path of a run file (read with :func:`read_run`).
    metrics : sequence of str, default=("map", "mrr", "ndcg@10")
        Metric names, as for :func:`sklearn_rank.evaluate`.
    relevance_level : int, default=None
        The lowest relevance level that counts as relevant, trec_eval's ``-l``
        (default: relevance > 0).
    missing : {"skip", "zero"}, default="skip"
        Judged queries without any retrieved document: left out of the
        average (trec_eval's default), or counted as 0 (``-c``).
    ties : str, default="trec"
        ``"trec"`` or one of the tie policies of :func:`evaluate`.
    gain : {"linear", "exponential"}, default="linear"
        The gain of a relevance level in (n)DCG: the level itself
        (trec_eval), or ``2**level - 1``.
    convention : str, default=None
        A peer's conventions (see :func:`sklearn_rank.evaluate`) for the
        options not written in the call: its gain, its score for a query
        without a relevant document, its AP denominator, and its tie policy,
        where input order is the run file's order. ``"trec_eval"`` keeps
        trec_eval's docno order.

    Returns
    -------
    report : RankingReport
        One entry per query of the run that has judgements (trec_eval leaves
        out run queries absent from the qrels); a judged query without any
        relevant document scores 0 and counts in the mean, as in trec_eval.

    Raises
    ------
    ValueError
        When the run and the qrels have no query in common (the message gives
        both query counts); :class:`TrecFormatError` (a ``ValueError``) for a
        malformed file given by its path.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.io import Qrels, Run, evaluate_trec
    >>> qrels = Qrels(np.array(["q1", "q1", "q1"]), np.array(["a", "b", "c"]), np.array([1, 0, 1]))
    >>> run = Run(np.array(["q1", "q1"]), np.array(["a", "b"]), np.array([2.0, 1.0]))
    >>> report = evaluate_trec(qrels, run, metrics=["map", "r@10"])   # "c" is never retrieved
    >>> report.summary
    {'map': 0.5, 'r@10': 0.5}
    """
    if not isinstance(qrels, Qrels):
        qrels = read_qrels(qrels)
    if not isinstance(run, Run):
        run = read_run(run)
    key = normalise_convention(convention) if convention is not None else None
    if key == "trec_eval":
        convention = None  # this function's defaults are trec_eval's, docno order included
    ties_left_to_preset = isinstance(ties, Default)
    options, _ = resolve_convention(convention, dict(ties=ties, gain=gain, no_relevant=_D["no_relevant"],
                                                     ap_denominator=_D["ap_denominator"], missing=missing))
    if key == "ir_measures" and isinstance(ties, Default):
        options["ties"] = "trec"  # its trec_eval measures order ties as trec_eval does (docno descending)
    ties, gain, no_relevant, ap_denominator, missing = (options[name] for name in (
        "ties", "gain", "no_relevant", "ap_denominator", "missing"))
    check_option(missing, "missing", ("skip", "zero"))
    trec_ties = ties == "trec"
    engine_ties = "ordinal" if trec_ties else ties
    # options and metric names are checked before the files are joined
    _engine.check_options(engine_ties, no_relevant, gain, "first", relevance_level)
    resolved = _engine.resolve_metrics(metrics, "first")
    # bpref and judged@k tell unjudged documents (absent from the qrels, or judged with a negative level,
    # which trec_eval reads as "in the pool but unjudged") from judged non-relevant ones.
    with_unjudged = any(spec.base in ("bpref", "judged") for _, spec, _ in resolved)

    rows = join_run(qrels, run, trec_ties=trec_ties, with_unjudged=with_unjudged)
    uniques, run_uniques = rows.qid_names, rows.run_qid_names
    # trec_eval scores a judged query without a relevant document 0 and keeps it in the mean.
    # a tie policy left to the preset stays a default there, so that its per-metric policies hold (ties_for)
    report = _engine.evaluate(rows.y_true, rows.score, metrics=metrics, qid=rows.qid,
                              ties=Default(engine_ties) if ties_left_to_preset else engine_ties,
                              relevance_level=relevance_level, gain=gain, judged=rows.judged,
                              # left to the engine's reading of the preset (its per-metric exceptions)
                              no_relevant=_D["no_relevant"],
                              missing=missing, ap_denominator=ap_denominator, convention=convention,
                              report_params=dict(ties=ties), unjudged=rows.unjudged)
    del rows
    if uniques is not None:
        codes = report.per_query["qid"]
        # the run's ids keep their own dtype unless judged queries absent from the run were added
        if run_uniques is not None and not (codes >= run_uniques.size).any():
            uniques = run_uniques
        names = uniques[codes]
        # codes of judged queries absent from the run follow the run's: list the queries by id again
        by_name = np.argsort(names, kind="stable")
        report.per_query = {key: values[by_name] for key, values in report.per_query.items()}
        report.per_query["qid"] = names[by_name]
    return report


@dataclass
class JoinedRun:
    """The rows of a run that :func:`evaluate_trec` gives the engine (see :func:`join_run`)."""

    y_true: np.ndarray               # each row's judged level; 0 when unjudged or negative
    score: np.ndarray
    qid: np.ndarray                  # query ids, or integer codes when ``qid_names`` is not None
    judged: tuple                    # (query, level) of the judgements: the engine's ``judged=``
    unjudged: np.ndarray | None      # with_unjudged: rows absent from the qrels or judged negative
    qid_names: np.ndarray | None     # the query id of each code (judged queries the run lacks after the run's)
    run_qid_names: np.ndarray | None  # the run's query ids (their own dtype), the first codes' ids, or None


def join_run(qrels, run, *, trec_ties, with_unjudged=False):
    """The rows of ``run`` that :func:`evaluate_trec` evaluates, joined with ``qrels``: what the engine gets.

    The run keeps its queries that have judgements, grouped by query, each in trec_eval's order
    (decreasing score, then decreasing docno) when ``trec_ties``, else in the run's order. With
    ``with_unjudged`` (bpref, judged@k), ``unjudged`` flags the rows without a judgement or with a
    negative one, and ``judged`` leaves out the negative levels of the run's queries.

    Raises a ValueError when the run and the qrels have no query in common.
    """
    # Strings held as objects (a few very long ones): integer codes in the same order stand in for them.
    judgements, ranking, uniques = qrels, run, None
    coded = _coded(qrels, run)
    if coded is not None:
        judgements, ranking, uniques = coded
    del coded
    # Keep only run queries that have judgements (trec_eval evaluates queries in both files).
    judged_rel = np.maximum(judgements.relevance, 0).astype(np.float64)
    # with unjudged documents: each run row's own level, NaN when the qrels have none
    looked_up, fill = (judgements.relevance.astype(np.float64), np.nan) if with_unjudged else (judged_rel, 0.0)
    rows = _judged_rows(judgements, looked_up, ranking, trec_ties, fill)
    run_uniques = None
    if rows is not None:
        # Query codes stand in for the query ids (same order, same groups); the report gets the ids back.
        order, y_true, uniques, codes, qrels_codes = rows
        del rows
        if not order.size:
            raise _no_common_query(qrels, run)
        r_qid, r_score = codes[order], ranking.score[order]
        del codes
        # Judged queries absent from the run get codes of their own after the run's, so that the engine
        # counts each of them (``missing``).
        absent = qrels_codes < 0
        run_uniques = uniques
        if absent.any():
            absent_names, absent_codes = factorize(judgements.qid[absent])
            qrels_codes = qrels_codes.copy()
            qrels_codes[absent] = uniques.size + absent_codes
            uniques = np.concatenate([uniques, absent_names])
        judged = (qrels_codes, judged_rel)
    else:
        in_qrels = np.isin(ranking.qid, judgements.qid)
        order = _trec_order(ranking) if trec_ties else np.argsort(ranking.qid, kind="stable")
        order = order[in_qrels[order]]
        if not order.size:
            raise _no_common_query(qrels, run)
        r_qid, r_doc, r_score = ranking.qid[order], ranking.docno[order], ranking.score[order]
        y_true = _lookup_relevance(judgements, looked_up, r_qid, r_doc, fill)
        judged = (judgements.qid, judged_rel)
    unjudged = None
    if with_unjudged:
        unjudged = ~(y_true >= 0)  # NaN (not in the qrels) or a negative level
        y_true = np.where(unjudged, 0.0, y_true)
        # negative levels are neither relevant nor judged non-relevant (bpref's N); judged queries the run
        # lacks keep every judgement so that ``missing`` still counts them
        run_queries = np.unique(r_qid)
        keep = (judgements.relevance >= 0) | ~np.isin(judged[0], run_queries)
        judged = (judged[0][keep], judged[1][keep])
    return JoinedRun(y_true, r_score, r_qid, judged, unjudged, uniques, run_uniques)


def _coded(qrels, run):
    """When a query id or docno column is an object array of str: (qrels, run with integer codes in the
    order of the strings, so that trec_eval's docno order is kept, the sorted query ids the codes stand
    for); else None."""
    columns = (run.qid, run.docno, qrels.qid, qrels.docno)
    if not (all(isinstance(c, np.ndarray) and c.ndim == 1 and c.dtype.kind in "UO" for c in columns)
            and any(c.dtype.kind == "O" for c in columns)):
        return None
    n = run.qid.shape[0]
    try:
        qid_names, qid_codes = factorize(np.concatenate([run.qid.astype(object), qrels.qid.astype(object)]))
        _, docno_codes = factorize(np.concatenate([run.docno.astype(object), qrels.docno.astype(object)]))
    except TypeError:  # values that do not compare with each other: the generic code decides
        return None
    return (Qrels(qid_codes[n:], docno_codes[n:], qrels.relevance),
            Run(qid_codes[:n], docno_codes[:n], run.score, run.name), qid_names)


def _no_common_query(qrels, run):
    def queries(qid):
        names = np.unique(np.asarray(qid))
        shown = ", ".join(repr(str(name)) for name in names[:3].tolist()) + (", ..." if names.size > 3 else "")
        return f"{names.size} {'query' if names.size == 1 else 'queries'}" + (f" ({shown})" if names.size else "")

    return InputValueError("The run and the qrels must have a query in common (trec_eval evaluates the queries of the "
                           f"run that have judgements): nothing to evaluate. Got a run of {queries(run.qid)} and qrels "
                           f"of {queries(qrels.qid)} instead.")


def _judged_rows(qrels, judged_rel, run, trec_ties, fill=0.0):
    """Without string sorts or joins: (order of the kept run rows, their relevance, the sorted run query
    ids, each run row's query code, each judgement's query code or -1), or None for inputs the generic
    code handles."""
    if not (_plain_rows(run.qid, run.docno, run.score) and run.qid.dtype.kind == "U" and run.docno.dtype.kind == "U"
            and all(isinstance(a, np.ndarray) and a.ndim == 1 and a.dtype.kind == "U" and a.shape == qrels.qid.shape
                    and a.size for a in (qrels.qid, qrels.docno)) and judged_rel.shape == qrels.qid.shape):
        return None
    uniques, codes = factorize(run.qid, compact=True)
    at = np.minimum(np.searchsorted(uniques, qrels.qid), uniques.size - 1)
    qrels_codes = np.where(uniques[at] == qrels.qid, at, -1)
    relevance = _relevance_rows(qrels, judged_rel, qrels_codes, codes, run.docno, fill)
    if relevance is None:
        return None
    order = _order_rows(codes, uniques.size, run.score, run.docno) if trec_ties else _query_order(codes, uniques.size)
    judged = np.zeros(uniques.size, dtype=bool)
    judged[qrels_codes[qrels_codes >= 0]] = True
    if not judged.all():
        order = order[judged[codes[order]]]
    return order, relevance[order], uniques, codes, qrels_codes


def _relevance_rows(qrels, judged_rel, qrels_codes, codes, docno, fill=0.0):
    """The judged relevance of every run row (``fill`` when unjudged): a hash join checked on the strings.

    None when two judgements share a hash key (duplicates, or a collision): the generic code decides then.
    """
    relevance = np.full(codes.size, fill)
    kept = np.flatnonzero(qrels_codes >= 0)
    if not kept.size:
        return relevance
    qrels_keys = _row_keys(qrels_codes[kept], (qrels.docno[kept],))
    by_key = np.argsort(qrels_keys)
    sorted_keys = qrels_keys[by_key]
    if (sorted_keys[1:] == sorted_keys[:-1]).any():
        return None
    run_keys = _row_keys(codes, (docno,))
    # most run rows are unjudged: a bitmap of the keys' leading bits leaves few rows for the binary search
    bits = min(26, max(10, sorted_keys.size.bit_length() + 4))
    shift = np.uint64(64 - bits)
    bitmap = np.zeros(1 << bits, dtype=bool)
    bitmap[sorted_keys >> shift] = True
    rows = np.concatenate([np.flatnonzero(bitmap[run_keys[start:start + _HASH_BLOCK] >> shift]) + start
                           for start in range(0, run_keys.size, _HASH_BLOCK)])
    run_keys = run_keys[rows]
    pos = np.minimum(np.searchsorted(sorted_keys, run_keys), sorted_keys.size - 1)
    found = sorted_keys[pos] == run_keys
    hit, pos = rows[found], pos[found]
    match = kept[by_key[pos]]
    ok = (codes[hit] == qrels_codes[match]) & (docno[hit] == qrels.docno[match])
    relevance[hit[ok]] = judged_rel[match[ok]]
    return relevance


def _lookup_relevance(qrels, judged_rel, qid, docno, fill=0.0):
    columns = (qrels.qid, qrels.docno, qid, docno)
    if all(c.dtype.kind in "iu" and (not c.size or c.min() >= 0) for c in columns) and qrels.qid.size:
        # integer codes: one int64 key per (qid, docno) pair
        width = max(int(qrels.docno.max()), int(docno.max(initial=0))) + 1
        if (max(int(qrels.qid.max()), int(qid.max(initial=0))) + 1) * width < 1 << 63:
            keys = qrels.qid.astype(np.int64) * width + qrels.docno
            wanted = qid.astype(np.int64) * width + docno
            order = np.argsort(keys)
            sorted_keys = keys[order]
            pos = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
            found = sorted_keys[pos] == wanted
            return np.where(found, judged_rel[order][pos], fill)
    sep = "\x1f"
    keys = np.char.add(np.char.add(qrels.qid.astype(str), sep), qrels.docno.astype(str))
    order = np.argsort(keys)
    sorted_keys = keys[order]
    wanted = np.char.add(np.char.add(qid.astype(str), sep), docno.astype(str))
    pos = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
    found = sorted_keys[pos] == wanted
    return np.where(found, judged_rel[order][pos], fill)
