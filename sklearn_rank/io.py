"""TREC qrels and run files, and their evaluation with trec_eval's conventions.

A qrels line is ``qid iter docno rel``; a run line is
``qid iter docno rank score runid`` (extra trailing columns are tolerated, and
lines starting with ``#`` are comments, as trec_eval 10 accepts). The readers
stream the file line by line and name the file and line of any malformed
line.
"""

from __future__ import annotations

from dataclasses import dataclass
import os

import numpy as np

from .metrics import _check_options, _evaluate_structure, _resolve_metrics, _structure
from ._inputs import check_option
from ._report import RankingReport, weighted_mean

__all__ = ["Qrels", "Run", "read_qrels", "read_run", "write_qrels", "write_run", "evaluate_trec"]


@dataclass
class Qrels:
    """Relevance judgements: one entry per judged (query, document) pair."""

    qid: np.ndarray
    docno: np.ndarray
    relevance: np.ndarray

    def __len__(self):
        return len(self.qid)


@dataclass
class Run:
    """A ranked run: one entry per retrieved (query, document) pair."""

    qid: np.ndarray
    docno: np.ndarray
    score: np.ndarray
    name: str = "run"

    def __len__(self):
        return len(self.qid)


class TrecFormatError(ValueError):
    """A malformed line in a TREC file (the message names the file and line)."""


def _lines(path, progress=None):
    name = os.fspath(path)
    total = os.path.getsize(name) if progress is not None else 0
    done = 0
    with open(name, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if progress is not None:
                done += len(line)
                if number % 65536 == 0:
                    progress(done, total)
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            yield name, number, stripped.split()


def read_qrels(path, *, progress=None):
    """Read a TREC qrels file (``qid iter docno rel``).

    Parameters
    ----------
    path : str or path-like
        The file.
    progress : callable, default=None
        Called now and then as ``progress(characters_read, file_size)``.

    Returns
    -------
    qrels : Qrels
        Query ids and document numbers as strings, relevance as integers
        (negative levels, "judged non-relevant", are kept as read).

    Raises
    ------
    TrecFormatError
        (a ``ValueError``) naming the file and line of a malformed line, a
        duplicate judgement, or an empty file.

    Examples
    --------
    >>> import tempfile, os
    >>> from sklearn_rank.io import read_qrels
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "qrels")
    ...     with open(path, "w") as f:
    ...         _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\n")
    ...     qrels = read_qrels(path)
    >>> qrels.docno.tolist(), qrels.relevance.tolist()
    (['d1', 'd2'], [1, 0])
    """
    qids, docnos, rels = [], [], []
    seen = set()
    name = os.fspath(path)
    for name, number, fields in _lines(path, progress):
        if len(fields) != 4:
            raise TrecFormatError(f"{name}:{number}: a qrels line must have 4 columns (qid iter docno rel). "
                                  f"Got {len(fields)} instead.")
        try:
            rel = int(fields[3])
        except ValueError:
            raise TrecFormatError(f"{name}:{number}: the relevance must be an integer. Got {fields[3]!r} "
                                  "instead.") from None
        key = (fields[0], fields[2])
        if key in seen:
            raise TrecFormatError(f"{name}:{number}: duplicate judgement of document {fields[2]!r} for query "
                                  f"{fields[0]!r}.")
        seen.add(key)
        qids.append(fields[0])
        docnos.append(fields[2])
        rels.append(rel)
    if not qids:
        raise TrecFormatError(f"{name}: the qrels file holds no judgement. Got an empty file instead.")
    return Qrels(np.array(qids), np.array(docnos), np.array(rels, dtype=np.int64))


def read_run(path, *, progress=None):
    """Read a TREC run file (``qid iter docno rank score runid``).

    The rank column is ignored (as trec_eval does): documents are ranked by
    score. Extra trailing columns are tolerated.

    Parameters
    ----------
    path : str or path-like
        The file.
    progress : callable, default=None
        Called now and then as ``progress(characters_read, file_size)``.

    Returns
    -------
    run : Run

    Raises
    ------
    TrecFormatError
        (a ``ValueError``) naming the file and line of a malformed line, a
        non-numeric or non-finite score, a duplicate (qid, docno), or an empty
        file.

    Examples
    --------
    >>> import tempfile, os
    >>> from sklearn_rank.io import read_run
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "run")
    ...     with open(path, "w") as f:
    ...         _ = f.write("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.5 bm25\\n")
    ...     run = read_run(path)
    >>> run.name, run.score.tolist()
    ('bm25', [2.5, 1.5])
    """
    qids, docnos, scores = [], [], []
    seen = set()
    run_name = None
    name = os.fspath(path)
    for name, number, fields in _lines(path, progress):
        if len(fields) < 6:
            raise TrecFormatError(f"{name}:{number}: a run line must have at least 6 columns "
                                  f"(qid iter docno rank score runid). Got {len(fields)} instead.")
        try:
            score = float(fields[4])
        except ValueError:
            raise TrecFormatError(f"{name}:{number}: the score must be a number. Got {fields[4]!r} "
                                  "instead.") from None
        if not np.isfinite(score):
            raise TrecFormatError(f"{name}:{number}: the score must be finite. Got {fields[4]!r} instead.")
        key = (fields[0], fields[2])
        if key in seen:
            raise TrecFormatError(f"{name}:{number}: duplicate document {fields[2]!r} for query {fields[0]!r} "
                                  "in the run.")
        seen.add(key)
        qids.append(fields[0])
        docnos.append(fields[2])
        scores.append(score)
        run_name = run_name or fields[5]
    if not qids:
        raise TrecFormatError(f"{name}: the run file holds no line. Got an empty file instead.")
    return Run(np.array(qids), np.array(docnos), np.array(scores, dtype=np.float64), run_name)


def write_qrels(qrels, path):
    """Write a :class:`Qrels` as a TREC qrels file.

    Parameters
    ----------
    qrels : Qrels
    path : str or path-like
    """
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        for q, d, r in zip(qrels.qid, qrels.docno, qrels.relevance):
            handle.write(f"{q} 0 {d} {int(r)}\n")


def write_run(run, path):
    """Write a :class:`Run` as a TREC run file, ranked by decreasing score within each query.

    Parameters
    ----------
    run : Run
    path : str or path-like
    """
    order = _trec_order(run)
    q, d, s = run.qid[order], run.docno[order], run.score[order]
    new = np.r_[True, q[1:] != q[:-1]] if len(q) else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(new)
    rank = np.arange(len(q)) - starts[np.cumsum(new) - 1] + 1
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        for qi, di, ri, si in zip(q, d, rank, s):
            handle.write(f"{qi} Q0 {di} {ri} {si!r} {run.name}\n")


def _trec_order(run):
    # trec_eval: by query, decreasing score, then decreasing docno (string comparison).
    _, docno_code = np.unique(run.docno, return_inverse=True)
    return np.lexsort((-docno_code.reshape(-1), -run.score, run.qid))


def evaluate_trec(qrels, run, *, metrics=("map", "mrr", "ndcg@10"), relevance_level=None, missing="skip",
                  ties="trec", gain="linear"):
    """Evaluate a run against qrels with trec_eval's conventions.

    Documents are ranked by decreasing score, ties broken by decreasing
    docno (``ties="trec"``, trec_eval's rule; any policy of :func:`evaluate`
    may be chosen instead). Judged-relevant documents the run never retrieved
    count in the denominators of AP, recall and R-precision and in the ideal
    DCG. Unjudged documents and negative levels are not relevant.
    ``relevance_level`` decides relevance for the binary measures (trec_eval
    ``-l``); nDCG keeps every positive level as its gain.

    Parameters
    ----------
    qrels : Qrels or path
    run : Run or path
    metrics : sequence of str
    relevance_level : int, default=None
        trec_eval's ``-l`` (default: relevance > 0).
    missing : {"skip", "zero"}, default="skip"
        Judged queries without any retrieved document: left out of the
        average (trec_eval's default), or counted as 0 (``-c``).
    ties : str, default="trec"
        ``"trec"`` or one of the tie policies of :func:`evaluate`.
    gain : {"linear", "exponential"}, default="linear"

    Returns
    -------
    report : RankingReport
        One entry per query of the run that has judgements (trec_eval leaves
        out run queries absent from the qrels); a judged query without any
        relevant document scores 0 and counts in the mean, as in trec_eval.

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
    check_option(missing, "missing", ("skip", "zero"))
    trec_ties = ties == "trec"
    engine_ties = "ordinal" if trec_ties else ties
    level = _check_options(engine_ties, "skip", gain, "first", relevance_level)
    resolved = _resolve_metrics(metrics, "first")

    # Keep only run queries that have judgements (trec_eval evaluates queries in both files).
    judged_rel = np.maximum(qrels.relevance, 0).astype(np.float64)
    in_qrels = np.isin(run.qid, qrels.qid)
    order = _trec_order(run) if trec_ties else np.argsort(run.qid, kind="stable")
    order = order[in_qrels[order]]
    r_qid, r_doc, r_score = run.qid[order], run.docno[order], run.score[order]
    y_true = _lookup_relevance(qrels, judged_rel, r_qid, r_doc)
    data, structure = _structure(y_true, r_score, r_qid, None, None, None, (qrels.qid, judged_rel), level, gain,
                                 stable=engine_ties == "ordinal")
    # trec_eval scores a judged query without a relevant document 0 and keeps it in the mean.
    params = dict(ties=ties, targets="first", gain=gain, relevance_level=level, no_relevant="zero")
    report = _evaluate_structure(structure, data, resolved, ties=engine_ties, no_relevant="zero",
                                 targets="first", params=params)
    if missing == "zero":
        report = _add_missing_queries(report, qrels, set(r_qid.tolist()), resolved)
    return report


def _lookup_relevance(qrels, judged_rel, qid, docno):
    sep = "\x1f"
    keys = np.char.add(np.char.add(qrels.qid.astype(str), sep), qrels.docno.astype(str))
    order = np.argsort(keys)
    sorted_keys = keys[order]
    wanted = np.char.add(np.char.add(qid.astype(str), sep), docno.astype(str))
    pos = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
    found = sorted_keys[pos] == wanted
    return np.where(found, judged_rel[order][pos], 0.0)


def _add_missing_queries(report, qrels, run_queries, resolved):
    """trec_eval -c: judged queries without any retrieved document count as 0.

    Rank statistics have no rank for such a query: NaN per query, summary unchanged.
    """
    judged_queries = np.unique(qrels.qid)
    missing = np.array([q for q in judged_queries if q not in run_queries], dtype=judged_queries.dtype)
    if missing.size == 0:
        return report
    per_query = {"qid": np.concatenate([report.per_query["qid"], missing])}
    order = np.argsort(per_query["qid"], kind="stable")
    per_query["qid"] = per_query["qid"][order]
    summary = {}
    for name, _, family in resolved:
        fill = 0.0 if family == "list" else np.nan
        full = np.concatenate([report.per_query[name], np.full(missing.size, fill)])[order]
        per_query[name] = full
        summary[name] = weighted_mean(full, np.ones(full.size)) if family == "list" else report.summary[name]
    return RankingReport(summary, per_query, report.n_queries + missing.size, report.n_skipped,
                         dict(report.params, missing="zero"))
