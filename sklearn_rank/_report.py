"""RankingReport: the result of :func:`sklearn_rank.evaluate`."""

from __future__ import annotations

import numpy as np

from .exceptions import InputTypeError


class RankingReport:
    """Metrics of one evaluation: a summary and per-query values.

    Attributes
    ----------
    summary : dict
        Metric name, exactly as the caller wrote it, to its value over all
        evaluated queries (weighted mean for list metrics, pooled statistic for
        rank statistics).
    per_query : dict
        ``"qid"`` to the ids of the evaluated queries, and each metric name to
        a 1-D array of per-query values in the same order. A value is NaN where
        the metric is undefined for that query (AUC of a query without
        non-relevant candidates; a rank statistic of a query whose relevant
        items were never retrieved).
    n_queries : int
        Number of evaluated queries.
    n_skipped : int
        Number of queries skipped because they have no relevant item
        (``no_relevant="skip"``).
    params : dict
        The options the metrics were computed with (``ties``, ``targets``, ...).
    n_missing : int
        Retrieval setting (``judged=``): number of judged queries that have no
        candidate row at all. They are left out of ``n_queries`` with
        ``missing="skip"`` and counted as evaluated queries scoring 0 with
        ``missing="zero"`` (trec_eval's ``-c``).
    sample_weight : ndarray of shape (n_queries,) or None
        The weight of each evaluated query, in the order of
        ``per_query["qid"]`` (what the summary's means are weighted by), or
        None when evaluated without ``sample_weight``. :mod:`sklearn_rank.stats`
        weights its tests by it.
    """

    def __init__(self, summary, per_query, n_queries, n_skipped, params, n_missing=0, sample_weight=None):
        self.summary = summary
        self.sample_weight = sample_weight
        self.per_query = per_query
        self.n_queries = n_queries
        self.n_skipped = n_skipped
        self.n_missing = n_missing
        self.params = params

    def to_frame(self):
        """Per-query values as a :class:`pandas.DataFrame` indexed by ``qid``.

        A report computed under Array API dispatch holds arrays of the input's
        library: those on the CPU are read through DLPack (no copy); arrays
        on another device must be moved to the host first (a ``TypeError``
        says so).

        Returns
        -------
        frame : pandas.DataFrame
            One row per evaluated query, one column per metric.
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("RankingReport.to_frame needs pandas: pip install pandas") from exc
        columns = {name: _host(values, name) for name, values in self.per_query.items()}
        qid = columns.pop("qid")
        return pd.DataFrame(columns, index=pd.Index(qid, name="qid"))

    def __getitem__(self, name):
        return self.summary[name]

    def __repr__(self):
        width = max((len(name) for name in self.summary), default=6)
        missing = f", n_missing={self.n_missing}" if self.n_missing else ""
        lines = [f"RankingReport(n_queries={self.n_queries}, n_skipped={self.n_skipped}{missing}, "
                 f"ties={self.params.get('ties')!r})"]
        for name, value in self.summary.items():
            lines.append(f"  {name:<{width}}  {value:.4f}")
        return "\n".join(lines)

    def _repr_html_(self):
        rows = "".join(f"<tr><td>{name}</td><td>{value:.4f}</td></tr>" for name, value in self.summary.items())
        return (f"<table><caption>RankingReport: {self.n_queries} queries, {self.n_skipped} skipped</caption>"
                f"<tr><th>metric</th><th>value</th></tr>{rows}</table>")


def _host(values, name):
    """A NumPy array of per-query ``values`` (an array of another library under Array API dispatch)."""
    if isinstance(values, np.ndarray) or not hasattr(values, "__dlpack__"):
        return values
    try:
        return np.from_dlpack(values)
    except (BufferError, RuntimeError, TypeError, ValueError) as exc:
        raise InputTypeError(f"RankingReport.to_frame reads per-query values on the host; {name!r} lives on a device "
                             f"NumPy cannot read ({exc}). Got an array of type {type(values).__name__} instead: move "
                             "the report's arrays to the CPU first.") from None


def weighted_mean(values, weights):
    """The mean of the non-NaN ``values`` weighted by ``weights``; NaN without a positive total weight."""
    ok = ~np.isnan(values)
    if not ok.all():
        values, weights = values[ok], weights[ok]
    total = order_free_sum(weights)
    if not total > 0:
        return np.nan
    return order_free_sum(values * weights) / total


def order_free_sum(values):
    """The sum of ``values`` whatever their order: NumPy's pairwise sum of the values sorted. Every path
    (parts, threads, batches, Dask partitions, Spark) lists the queries in its own order and gets the same
    summary; no BLAS call (a dot product of a long vector wakes BLAS's threads, which then compete with
    ``n_jobs``' threads)."""
    return float(np.sort(values).sum()) + 0.0  # (+ 0.0: -0.0 and 0.0 sort in any order)
