"""Streaming evaluation of record batches grouped by query: :func:`evaluate_batches`.

The stream is read once. The rows of the queries that are complete (a later row of the stream
belongs to another query) are evaluated as one part of the engine's plan (``_engine.Plan.part``);
the last query of a batch may continue in the next batch, so its rows are carried over until
its end. Only the parts' per-query values are kept, and reduced at the end (``Plan.reduce``),
which gives the numbers of :func:`~sklearn_rank.evaluate` on all the rows.
"""

from __future__ import annotations

import sys

import numpy as np

from . import _columns, _engine, _parts
from ._inputs import ALL_EXCLUDED
from ._threads import check_n_jobs
from .exceptions import InputTypeError, InputValueError

__all__ = ["evaluate_batches"]

# Complete queries go to the engine in parts of about this many rows, cut at query boundaries: a
# part costs a fixed overhead (option dispatch, one sort, the kernels' set-up), so many tiny batches
# are gathered into one part, and a larger batch is cut, which bounds the engine's temporaries.
_PART_ROWS = 1 << 16

# The options of ``evaluate`` that a split evaluation takes.
_OPTIONS = _engine.PLAN_OPTIONS
# The options of ``evaluate`` that need every query in one process.
_WHOLE_INPUT_OPTIONS = ("judged", "missing")


def evaluate_batches(batches, *, qid="qid", score="score", label="label", metrics=("mrr", "map", "ndcg@10"),
                     sample_weight=None, exclude=None, unjudged=None, n_jobs=None, **options):
    """Evaluate a stream of record batches whose rows are grouped by query.

    The rows of each query must be contiguous in the stream (one query
    after the other, as ``ORDER BY qid`` gives them; the queries need not be
    sorted). A query may span any number of batches: its rows are carried
    over until the query ends. Memory holds one batch, the rows of the query
    carried over, the complete queries gathered for the engine (about
    65536 rows) and the per-query values; the numbers are
    those of :func:`evaluate` on all the rows.

    Read more in the :ref:`User Guide <scaling_batches>`.

    Parameters
    ----------
    batches : pyarrow.RecordBatchReader or iterable
        The rows: a :class:`pyarrow.RecordBatchReader`, or an iterable of
        :class:`pyarrow.RecordBatch`, :class:`pyarrow.Table`,
        :class:`pandas.DataFrame` or other data frames with a ``to_arrow()``
        method (Polars). A single table or data frame is one batch. Empty
        batches are skipped. Dictionary-encoded columns are decoded.
    qid : str, default="qid"
        The column of query ids (integers or strings). The rows of a query
        must be contiguous in the stream; a query that appears again after
        other queries raises a ``ValueError``.
    score : str, default="score"
        The column of scores (higher ranks first).
    label : str, default="label"
        The column of relevance values.
    metrics : str or sequence of str, default=("mrr", "map", "ndcg@10")
        Metric names (see :func:`metric_names`).
    sample_weight : str, default=None
        The column of query weights (per row, constant within a query).
    exclude : str, default=None
        The column of boolean flags of the candidates removed before ranking
        (filtered protocol).
    unjudged : str, default=None
        The column of boolean flags of the candidates without a relevance
        judgement (see :func:`evaluate`).
    n_jobs : int, default=None
        Threads that rank parts of the queries gathered for the engine at once (None: 1, -1: every
        core); the numbers are the same for every value.
    **options : dict
        The options of :func:`evaluate`: ``ties``, ``relevance_level``,
        ``gain``, ``no_relevant``, ``targets``, the definition options
        (``ap_denominator``, ``precision_denominator``,
        ``recall_denominator``, ``discount``, ``ideal_dcg``), ``nan_policy``
        and ``convention``. ``judged`` and ``missing`` need every query in one
        process and are refused.

    Returns
    -------
    report : RankingReport
        As :func:`evaluate` on the concatenated rows; ``report.per_query``
        is ordered by query id.

    Raises
    ------
    ValueError
        When a query's rows are not contiguous, a column is missing or
        holds nulls, the stream has no rows, or the rows are refused by
        :func:`evaluate`. Messages locate rows by batch and row, both
        counted from 0 (a table counts as its record batches).

    See Also
    --------
    evaluate : The same numbers from arrays in memory.

    Notes
    -----
    The rows of the complete queries are evaluated in parts of about 65536
    rows, cut at query boundaries: many small batches are gathered, so they
    cost little, and a larger batch is cut, so that the engine's temporary
    arrays stay small (a query longer than that is one part). See :doc:`/scaling` for
    recipes (Parquet files and folders, DuckDB, pandas and Polars).

    Examples
    --------
    >>> import pyarrow as pa
    >>> from sklearn_rank import evaluate_batches
    >>> first = pa.RecordBatch.from_pydict({"qid": [1, 1, 2], "score": [0.9, 0.8, 0.1],
    ...                                     "label": [0, 1, 0]})
    >>> second = pa.RecordBatch.from_pydict({"qid": [2, 2], "score": [0.6, 0.3],
    ...                                      "label": [0, 1]})
    >>> report = evaluate_batches([first, second], metrics=["mrr", "hits@1"])
    >>> report.summary
    {'mrr': 0.5, 'hits@1': 0.0}
    >>> report.per_query["mrr"]
    array([0.5, 0.5])
    """
    for name in options:
        if name in _WHOLE_INPUT_OPTIONS:
            raise InputValueError(f"`{name}` (judged queries without candidate rows) needs every query in one process "
                                  "and is not supported by evaluate_batches; use evaluate. Got "
                                  f"{name}={options[name]!r} instead.")
        if name not in _OPTIONS:
            raise InputTypeError(f"evaluate_batches takes the options {list(_OPTIONS)}. Got an unexpected keyword "
                                 f"argument {name!r} instead.")
    roles = _columns.resolve({"qid": qid, "score": score, "label": label, "sample_weight": sample_weight,
                              "exclude": exclude, "unjudged": unjudged})
    return evaluate_stream(batches, roles, metrics=metrics, n_jobs=n_jobs, **options)


def evaluate_stream(batches, roles, *, metrics, n_jobs=None, **options):
    """:func:`evaluate_batches` with the columns resolved (``roles``: a ``_columns.Roles``, whose flags
    name the command line's options when it reads a table with ``--stream``)."""
    evaluation = _engine.plan(metrics=metrics, **options)
    stream = _Stream(evaluation, roles, check_n_jobs(n_jobs))
    for index, batch in enumerate(_batches(batches)):
        stream.add(index, batch)
    return stream.finish()


def _batches(batches):
    """The stream as batches: a table is its record batches, a lone batch or frame is one batch."""
    if _is_frame(batches):
        batches = [batches]
    elif isinstance(batches, (str, bytes)) or not hasattr(batches, "__iter__"):
        raise InputTypeError("`batches` must be a pyarrow.RecordBatchReader or an iterable of record batches, tables "
                             f"or data frames. Got {type(batches).__name__} instead.")
    for batch in batches:
        if _is_arrow(batch, "Table"):
            yield from batch.to_batches()
        elif _is_frame(batch):
            if not (_is_arrow(batch, "RecordBatch") or _is_pandas(batch)):
                batch = batch.to_arrow()  # Polars, and other frames that convert to Arrow
                if _is_arrow(batch, "Table"):
                    yield from batch.to_batches()
                    continue
            yield batch
        else:
            raise InputTypeError("`batches` must yield pyarrow record batches or tables, or data frames. Got "
                                 f"{type(batch).__name__} instead.")


def _is_arrow(obj, name):
    pa = sys.modules.get("pyarrow")  # nothing is an Arrow object unless pyarrow was imported
    return pa is not None and isinstance(obj, getattr(pa, name))


def _is_pandas(obj):
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)


def _is_frame(obj):
    return (_is_arrow(obj, "RecordBatch") or _is_arrow(obj, "Table") or _is_pandas(obj)
            or (callable(getattr(obj, "to_arrow", None)) and hasattr(obj, "columns")))


def _column_names(batch):
    return list(batch.schema.names) if _is_arrow(batch, "RecordBatch") else [str(name) for name in batch.columns]


def _is_text(values):
    return values.dtype.kind in "OUS"


class _Stream:
    """The state of one pass over the stream: the query carried over and the complete rows gathered."""

    def __init__(self, evaluation, roles, n_jobs=1):
        self.n_jobs = n_jobs
        self.evaluation = evaluation
        self.roles = roles  # a _columns.Roles: parameter -> column name
        self.results = _parts.PartStore()  # the per-query values of the parts evaluated so far
        self.pending = []  # column dicts of complete queries, not yet evaluated
        self.pending_rows = 0
        self.pending_start = None  # (batch, row) of the first pending row, for errors
        self.carried = []  # column dicts of the rows of the last query seen, maybe incomplete
        self.carried_qid = None
        self.carried_start = None
        self.finished = _Finished(self._finished_ids)  # query ids whose rows ended
        self.dropped = []  # ids of the queries of parts whose every candidate was excluded
        self.qid_dtype = None
        self.n_rows = 0
        self.excluded_part = None  # a part whose every candidate was excluded, kept for its error

    def _read(self, index, batch):
        names = _column_names(batch)
        _columns.require_present(self.roles, names, where=f"batch {index}", source="the batches")
        arrow = _is_arrow(batch, "RecordBatch")

        def where(row):
            return f"batch {index}, row {row}" if row is not None else f"batch {index}"

        data = {}
        for parameter, column in self.roles.items():
            if arrow:
                data[parameter] = _columns.arrow_column(self.roles, parameter, batch.column(names.index(column)),
                                                        nan_policy=self.evaluation.nan_policy, where=where)
            else:
                data[parameter] = _columns.pandas_column(self.roles, parameter, batch[column],
                                                         nan_policy=self.evaluation.nan_policy, where=where)
        _columns.check_rows(self.roles, data["score"], data["label"], data.get("exclude"), where=where,
                            nan_policy=self.evaluation.nan_policy)
        return data

    def _check_qid_type(self, values, index):
        if values.dtype.kind not in "iufOUS":
            raise InputTypeError(f"{self.roles.subject('qid')} must hold integers or strings. Got "
                                 f"{values.dtype} in batch {index} instead.")
        if self.qid_dtype is None:
            self.qid_dtype = values.dtype
            return values
        # int64 and uint64 ids meet as float64, which rounds ids above 2**53
        if _is_text(values) != _is_text(np.empty(0, self.qid_dtype)) or (
                not _is_text(values) and values.dtype.kind in "iu" and self.qid_dtype.kind in "iu"
                and np.result_type(values.dtype, self.qid_dtype).kind == "f"):
            raise InputTypeError(
                f"{self.roles.subject('qid')} must keep one type across the stream (a query's "
                f"id is compared exactly from batch to batch). Got {self.qid_dtype} before batch {index} "
                f"and {values.dtype} in batch {index} instead.")
        return values

    def add(self, index, batch):
        n = batch.num_rows if _is_arrow(batch, "RecordBatch") else len(batch)
        data = self._read(index, batch)  # the columns are checked on empty batches too
        if n == 0:
            return
        qid = self._check_qid_type(data["qid"], index)
        self.n_rows += n
        # segments: maximal runs of one query id within the batch
        starts = np.concatenate(([0], np.flatnonzero(qid[1:] != qid[:-1]) + 1))
        segment_qid = qid[starts]
        continues = self.carried_qid is not None and segment_qid[0] == self.carried_qid[0]
        if self.carried_qid is not None and not continues:
            self._end_carried()
        # the carried query is not among the finished ones while it continues: a later run of it in
        # this batch is caught as a repeat within the batch
        self._check_contiguous(segment_qid, starts, index)
        last = int(starts[-1])
        if continues and last == 0:  # the whole batch continues the carried query
            self.carried.append(data)
            return
        if last > 0:
            if continues:
                self._end_carried()
            # the complete queries go to the engine in pieces of at most about _PART_ROWS rows, cut at
            # query boundaries (the first run continues the carried query when `continues`: not a cut)
            bounds = starts[:-1]
            cuts = bounds[np.searchsorted(bounds, np.arange(_PART_ROWS, last, max(_PART_ROWS, 1)), side="right") - 1]
            cuts = np.unique(np.concatenate(([0], starts[1:2] if continues else starts[:0], cuts, [last])))
            for lo, hi in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
                piece = {parameter: values[lo:hi] for parameter, values in data.items()}
                self._gather(piece, None if (continues and lo == 0) else (index, lo), hi - lo)
            self.finished.add(segment_qid[1 if continues else 0:-1])
        # a copy: a view would keep the whole batch alive while its last query is carried over
        self.carried = [{parameter: values[last:].copy() for parameter, values in data.items()}]
        self.carried_qid = segment_qid[-1:]  # an array of one id, of the stream's type
        self.carried_start = (index, last)
        if self.pending_rows >= _PART_ROWS:
            self._evaluate_pending()

    def _check_contiguous(self, segment_qid, starts, index):
        """Refuse a query id that appeared before, in an earlier batch or an earlier run of this batch."""
        try:
            seen = self.finished.contains(segment_qid)
            order = np.argsort(segment_qid, kind="stable")
        except TypeError:
            raise InputTypeError(f"{self.roles.subject('qid')} must hold mutually comparable values (all numbers "
                                 f"or all strings). Got mixed types in batch {index} instead.") from None
        if segment_qid.size > 1:
            ordered = segment_qid[order]
            repeated = np.zeros(segment_qid.size, dtype=bool)
            repeated[order[1:][ordered[1:] == ordered[:-1]]] = True
            seen |= repeated
        if seen.any():
            at = int(np.argmax(seen))
            value = segment_qid[at]
            value = value.item() if hasattr(value, "item") else value
            raise InputValueError(
                f"qid {value!r} appears again at batch {index}, row {int(starts[at])} after other "
                "queries; the rows of a query must be contiguous in the stream (ORDER BY qid, or group "
                f"the rows by query). Got the rows of qid {value!r} split by other queries instead.")

    def _end_carried(self):
        """The carried query is complete: gather its rows."""
        self.finished.add(self.carried_qid)
        for i, chunk in enumerate(self.carried):
            self._gather(chunk, self.carried_start if i == 0 else None, len(chunk["qid"]))
        self.carried, self.carried_qid = [], None

    def _gather(self, chunk, start, rows):
        """Add rows to the pending part; ``start`` (batch, row) is None for the later rows of a query that
        spans batches, which never start a new part."""
        if start is not None and self.pending_rows and self.pending_rows + rows > _PART_ROWS:
            self._evaluate_pending()  # a part stays near _PART_ROWS rows: its temporaries stay small
        if self.pending_start is None:
            self.pending_start = start
        self.pending.append(chunk)
        self.pending_rows += rows

    def _evaluate_pending(self):
        if not self.pending:
            return
        if len(self.pending) == 1:
            rows = self.pending[0]
        else:
            rows = {parameter: np.concatenate([chunk[parameter] for chunk in self.pending])
                    for parameter in self.pending[0]}
        start = self.pending_start
        self.pending, self.pending_rows, self.pending_start = [], 0, None
        arguments = {parameter: rows[parameter] for parameter in ("qid", "sample_weight", "exclude", "unjudged")
                     if parameter in rows}
        try:
            part = self.evaluation.part(rows["label"], rows["score"], n_jobs=self.n_jobs, **arguments)
        except ValueError as exc:
            if str(exc) == ALL_EXCLUDED:
                # every candidate of these queries was excluded: they drop out, as in `evaluate`
                self.excluded_part = exc
                self.dropped.append(np.unique(rows["qid"]))  # not a view: the batch may go
                return
            _note(exc, f"(evaluate_batches: row numbers count from batch {start[0]}, row {start[1]}.)")
            raise
        except TypeError as exc:
            _note(exc, f"(evaluate_batches: in the rows from batch {start[0]}, row {start[1]}.)")
            raise
        self.results.add(part)
        qid = rows["qid"]
        changes = np.flatnonzero(qid[1:] != qid[:-1]) + 1
        if part.n_queries != changes.size + 1:  # queries whose every candidate was excluded dropped out
            self.dropped.append(np.setdiff1d(qid[np.r_[0, changes]], part.qid))

    def _finished_ids(self):
        """Every query id whose rows ended, in stream order: evaluated, pending or dropped."""
        ids = [ids for ids in [self.results.ids()] + [chunk["qid"] for chunk in self.pending] + self.dropped
               if ids.size]
        return np.concatenate(ids) if ids else np.zeros(0)

    def finish(self):
        if self.carried_qid is not None:
            self._end_carried()
        self._evaluate_pending()
        if self.n_rows == 0:
            raise InputValueError("`batches` must hold at least one row. Got an empty stream instead.")
        if not self.results.n_queries:
            raise self.excluded_part
        self.finished = None  # the contiguity check is over: its ids go before the reduction
        part, self.results = self.results.finish(), None
        return self.evaluation.reduce([part], consume=True)


def _note(exc, text):
    if hasattr(exc, "add_note"):  # Python 3.11+
        exc.add_note(text)


class _Finished:
    """The ids of the queries whose rows ended, for refusing a query that comes back.

    While the stream ascends (a stream sorted by query id), only the last id is kept: a new id
    above it cannot have been seen, and the ids themselves are kept anyway, by the evaluated parts
    and the pending rows (``source`` returns them). At the first id that does not ascend they are
    copied, sorted, and from then on kept as sorted arrays of doubling sizes (a membership test
    costs log n per level).
    """

    def __init__(self, source):
        self.source = source
        self.last = None  # the largest id while the stream ascends
        self.levels = None  # sorted arrays, once it stopped ascending

    def _materialize(self):
        ids = np.sort(self.source(), kind="stable")
        self.levels = [ids] if ids.size else []

    def add(self, values):
        if not values.size:
            return
        if self.levels is None:
            if (self.last is None or values[0] > self.last) and (
                    values.size == 1 or bool((values[1:] > values[:-1]).all())):
                self.last = values[-1]
                return
            self._materialize()  # holds `values` already, or gets them just below (a set: repeats are harmless)
        self.levels.append(np.sort(values, kind="stable"))
        while len(self.levels) > 1 and self.levels[-2].size <= 2 * self.levels[-1].size:
            top = self.levels.pop()
            self.levels[-1] = np.sort(np.concatenate([self.levels[-1], top]), kind="stable")

    def contains(self, values):
        found = np.zeros(values.size, dtype=bool)
        if self.levels is None:
            if self.last is None or not bool((values <= self.last).any()):
                return found
            self._materialize()
        for level in self.levels:
            at = np.searchsorted(level, values)
            inside = at < level.size
            found[inside] |= level[at[inside]] == values[inside]
        return found
