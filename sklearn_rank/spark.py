"""Ranking metrics of a Spark DataFrame, computed where the rows are.

``evaluate`` shuffles the rows by query id (``repartition``), sorts each partition by query id, and
streams every partition's Arrow batches through the metric engine (``mapInArrow``): a chunk of whole
queries at a time becomes the per-query values of those queries (a ``PartialReport``), and only those
travel back to the driver, pickled in a binary column, to be reduced into one ``RankingReport``. The raw
rows are never collected. ``pyspark`` is imported only when ``evaluate`` runs (the ``spark`` extra:
``pip install "sklearn-rank[spark]"``); ``import sklearn_rank`` does not import this module.
"""

from __future__ import annotations

import functools
import pickle
import warnings

import numpy as np

from . import _columns, _engine
from ._inputs import ALL_EXCLUDED
from .exceptions import InputTypeError, InputValueError

__all__ = ["evaluate"]

# Rows evaluated at once in a worker (plus the rows of the query that crosses the boundary): bounds a
# worker's memory whatever the partition size, and keeps the number of parts sent back small.
_CHUNK_ROWS = 1 << 20

_ENGINE_OPTIONS = _engine.PLAN_OPTIONS
_ROW_COLUMN = "__sklearn_rank_row__"


def _import_pyspark():
    try:
        import pyspark  # noqa: F401
        from pyspark.sql import DataFrame, functions, types
    except ImportError as error:
        raise ImportError('sklearn_rank.spark needs pyspark (with pyarrow): install the "spark" extra, '
                          'pip install "sklearn-rank[spark]".') from error
    try:
        # mapInArrow needs PySpark's own pandas and pyarrow floors (PySpark 4.3: pandas >= 2.2, pyarrow >= 18)
        from pyspark.sql.pandas.utils import require_minimum_pandas_version, require_minimum_pyarrow_version

        require_minimum_pandas_version()
        require_minimum_pyarrow_version()
    except ImportError as error:
        raise ImportError(f'sklearn_rank.spark needs the pandas and pyarrow versions of PySpark\'s "sql" extra '
                          f'(install the "spark" extra, pip install "sklearn-rank[spark]"): {error}') from error
    return DataFrame, functions, types


def evaluate(sdf, *, qid="qid", score="score", label="label", metrics=("mrr", "map", "ndcg@10"),
             sample_weight=None, exclude=None, unjudged=None, **options):
    """Compute ranking metrics of a Spark DataFrame, one partition of whole queries at a time.

    The rows of a query are brought together by ``sdf.repartition(qid)``
    and sorted within each partition; every partition streams through the
    metric engine in chunks of whole queries (``mapInArrow``), and only the
    per-query values come back to the driver. The result equals
    :func:`sklearn_rank.evaluate` on the same rows (to rounding).

    Read more in the :ref:`User Guide <scaling_spark>`.

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        One row per (query, candidate).
    qid : str, default="qid"
        Column of query ids: an integer column (``long`` ids are kept
        exact, beyond 2**53 too) or a string column.
    score : str, default="score"
        Numeric column of predicted scores (higher ranks first). A null
        score is a NaN score (see ``nan_policy``).
    label : str, default="label"
        Numeric (or boolean) column of relevance; graded values are kept.
    metrics : str or sequence of str, default=("mrr", "map", "ndcg@10")
        Metric names (see :func:`sklearn_rank.metric_names`).
    sample_weight : str, default=None
        Numeric column of weights, constant within a query.
    exclude : str, default=None
        Boolean column: True marks a candidate removed before ranking (the
        filtered protocol).
    unjudged : str, default=None
        Boolean column: True marks a candidate without a relevance
        judgement (``bpref``, ``judged@k``).
    **options : dict
        The options of :func:`sklearn_rank.evaluate`: ``ties``, ``gain``,
        ``relevance_level``, ``no_relevant``, ``targets``, the definition
        options (``ap_denominator``, ``precision_denominator``,
        ``recall_denominator``, ``discount``, ``ideal_dcg``), ``nan_policy``
        and ``convention``. Under ``ties="ordinal"`` (or a preset that sets
        it) ties are broken by the DataFrame's row order, as
        ``monotonically_increasing_id`` numbers the rows. ``judged`` and
        ``missing`` (judged queries without rows) are refused: a split
        evaluation cannot see them.

    Returns
    -------
    report : RankingReport
        As :func:`sklearn_rank.evaluate` returns it: ``summary`` and
        ``per_query`` (numpy arrays in the driver, sorted by query id).

    See Also
    --------
    sklearn_rank.evaluate : The same metrics on arrays in one process.

    Examples
    --------
    >>> from pyspark.sql import SparkSession  # doctest: +SKIP
    >>> from sklearn_rank import spark as skr_spark
    >>> session = SparkSession.builder.master("local[1]").getOrCreate()  # doctest: +SKIP
    >>> sdf = session.createDataFrame(  # doctest: +SKIP
    ...     [(1, 0.9, 0), (1, 0.8, 1), (1, 0.1, 0), (2, 0.3, 2), (2, 0.6, 0), (2, 0.2, 1)],
    ...     schema="qid long, score double, label long")
    >>> report = skr_spark.evaluate(sdf, metrics=["mrr", "ndcg@2"])  # doctest: +SKIP
    >>> {name: round(value, 4) for name, value in report.summary.items()}  # doctest: +SKIP
    {'mrr': 0.5, 'ndcg@2': 0.5553}
    >>> report.per_query["qid"]  # doctest: +SKIP
    array([1, 2])
    """
    DataFrame, F, T = _import_pyspark()
    if not isinstance(sdf, DataFrame):
        raise InputTypeError(f"`sdf` must be a pyspark.sql.DataFrame. Got {type(sdf).__name__} instead.")
    for refused in ("judged", "missing"):
        if refused in options:
            raise InputValueError(f"`{refused}` (judged queries without candidate rows) is not supported by a split "
                            f"evaluation: evaluate such queries in memory with sklearn_rank.evaluate. Got "
                            f"{refused}={options[refused]!r} instead.")
    unknown = sorted(set(options) - set(_ENGINE_OPTIONS))
    if unknown:
        raise InputTypeError(f"evaluate() takes the options {', '.join(_ENGINE_OPTIONS)}. Got {', '.join(unknown)} "
                             "instead.")
    evaluation = _engine.plan(metrics=metrics, **options)  # options checked before any Spark job

    schema = {field.name: field.dataType for field in sdf.schema.fields}
    roles = _columns.resolve({"qid": qid, "score": score, "label": label, "sample_weight": sample_weight,
                              "exclude": exclude, "unjudged": unjudged})
    _columns.require_present(roles, list(schema), where=None, source="`sdf`")
    for role, name in roles.items():  # the types, from the schema, before any Spark job
        kind = next((kind for types, kind in ((T.BooleanType, "b"), (T.IntegralType, "i"),
                                              ((T.FloatType, T.DoubleType, T.DecimalType), "f"),
                                              (T.StringType, "U"), ((T.DateType, T.TimestampType,
                                                                     T.TimestampNTZType), "M"))
                     if isinstance(schema[name], types)), "V")
        _columns.require_kind(roles, role, kind, f"the Spark type {schema[name].simpleString()}")
    columns = dict(roles.items())
    order = [columns["qid"]]
    selected = list(dict.fromkeys(columns.values()))
    frame = sdf
    if evaluation.ties == "ordinal":
        # input order among tied scores: number the rows of the frame as it is (before any column is
        # dropped, which can change how Spark places rows), sort by that number after the shuffle
        frame = frame.withColumn(_ROW_COLUMN, F.monotonically_increasing_id())
        order.append(_ROW_COLUMN)
        selected.append(_ROW_COLUMN)
    frame = frame.select(*[F.col(name) for name in selected])
    frame = frame.repartition(columns["qid"]).sortWithinPartitions(*order)
    worker = functools.partial(_evaluate_partition, evaluation=evaluation, columns=roles,
                               chunk_rows=_CHUNK_ROWS)
    rows = frame.mapInArrow(worker, "part binary").collect()

    parts, caught = [], []
    excluded = False
    for row in rows:
        kind, payload, messages = pickle.loads(row[0])
        if kind == "error":
            raise payload
        if kind == "excluded":
            excluded = True
            continue
        parts.append(payload)
        caught.extend(messages)
    for category, message in dict.fromkeys(caught):  # the workers' warnings, each once
        warnings.warn(message, category, stacklevel=2)
    if not parts:
        if excluded:
            raise InputValueError(ALL_EXCLUDED)
        raise InputValueError("`sdf` must hold at least one row. Got an empty DataFrame instead.")
    return evaluation.reduce(parts)


def _evaluate_partition(batches, *, evaluation, columns, chunk_rows):
    """The PartialReports of one partition (rows sorted by query id), a chunk of whole queries at a time.

    Batches are gathered until ``chunk_rows`` rows; the rows of the last query of a chunk may continue
    in the next batch, so they are carried over to the next chunk. Each batch's ids are scanned once, as
    it comes (where its last query starts), and each row is copied once, in the chunk that evaluates it:
    linear time however many batches one query spans. Each yielded record batch holds one
    pickled ``(kind, payload, warnings)``: ``("part", PartialReport, ...)`` or ``("error", exception, [])``
    (re-raised in the driver as it was raised here).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    pending, n_pending = [], 0  # the batches not evaluated yet (views), and their rows
    first_of_last, last = 0, None  # where the pending rows' last query starts, and its id
    try:
        for batch in batches:
            if batch.num_rows == 0:
                continue
            qid = batch.column(columns["qid"])
            if qid.null_count:  # nulls sort first: a chunk may hold nothing else
                raise _columns.missing_error(columns, "qid", None)
            end = qid[batch.num_rows - 1]
            if end.as_py() != last:  # a later query ends the rows: it starts in this batch
                # rows are sorted by qid, so the last query's rows end the batch
                first_of_last = n_pending + batch.num_rows - int(pc.sum(pc.equal(qid, end)).as_py())
                last = end.as_py()
            pending.append(batch)
            n_pending += batch.num_rows
            if n_pending < chunk_rows or first_of_last == 0:  # below a chunk, or one query so far: it may go on
                continue
            chunk, pending = _cut(pa, pending, first_of_last)
            yield _part_batch(evaluation, chunk, columns)
            n_pending -= first_of_last
            first_of_last = 0
        if n_pending:
            yield _part_batch(evaluation, _cut(pa, pending, n_pending)[0], columns)
    except Exception as error:  # noqa: BLE001 - sent to the driver and re-raised there
        yield _record(pa, ("error", error, []))


def _cut(pa, batches, at):
    """The first ``at`` rows of ``batches`` as one table (copied: a chunk to evaluate) and the rows after
    them as batches (views: the carried rows of the last query)."""
    table = pa.Table.from_batches(batches)
    return table.slice(0, at).combine_chunks(), table.slice(at).to_batches()


def _part_batch(evaluation, table, columns):
    """The part of a chunk of whole queries; ``columns``: the resolved roles (``_columns.Roles``)."""
    import pyarrow as pa

    # checked by the column resolver, as every tabular source is
    arrays = {role: _columns.arrow_column(columns, role, table.column(name), nan_policy=evaluation.nan_policy)
              for role, name in columns.items()}
    _columns.check_rows(columns, arrays["score"], arrays["label"], arrays.get("exclude"),
                        nan_policy=evaluation.nan_policy, where=_columns.by_query(arrays["qid"]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            part = evaluation.part(arrays.pop("label"), arrays.pop("score"), **arrays)
        except ValueError as exc:
            if str(exc) != ALL_EXCLUDED:
                raise
            # every candidate of these queries was excluded: they drop out, as in `evaluate`
            return _record(pa, ("excluded", None, []))
    messages = [(w.category, str(w.message)) for w in caught]
    return _record(pa, ("part", part, messages))


def _record(pa, payload):
    return pa.RecordBatch.from_arrays([pa.array([pickle.dumps(payload)], type=pa.binary())], names=["part"])
