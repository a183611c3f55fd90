"""Ranking metrics of a Dask DataFrame: whole queries per partition, the engine on each, one reduction.

``import sklearn_rank`` does not import this module, and this module imports Dask only when
:func:`evaluate` runs (install it with ``pip install "sklearn-rank[dask]"``).

How it works: the rows of each query are brought into one partition by a shuffle on the query id
(``ddf.shuffle(qid)``), unless the frame is already partitioned by query id. Each partition is
evaluated on the workers by the same engine as :func:`sklearn_rank.evaluate` (one ``Plan``,
checked once in the driver and sent to every partition); only the per-query values and the rank
distributions of the targets travel back (``PartialReport``), never the rows, and the driver
reduces them into the report. A query whose rows still lie in two partitions is an error, never
a silently split query.
"""

from __future__ import annotations

import numpy as np

from . import _columns, _engine
from ._inputs import ALL_EXCLUDED
from .exceptions import InputTypeError, InputValueError

__all__ = ["evaluate"]

# Options of the engine's plan that every back end forwards.
_OPTIONS = _engine.PLAN_OPTIONS
# A column added (only under ties="ordinal") to keep the input order of the rows through the shuffle.
_ROW = "__sklearn_rank_row__"
_SPLIT = "Every query must lie in one part"


def _import_dask():
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as exc:
        raise ImportError('sklearn_rank.dask needs Dask with its DataFrame: pip install "sklearn-rank[dask]" '
                          f"(or pip install \"dask[dataframe]\"). The import failed with: {exc}") from exc
    return dask, dd


def evaluate(ddf, *, qid="qid", score="score", label="label", metrics=("mrr", "map", "ndcg@10"), sample_weight=None,
             exclude=None, unjudged=None, per_query="pandas", partitioned_by_qid=None, **options):
    """Compute ranking metrics of a Dask DataFrame of (query, candidate) rows.

    The same numbers as :func:`sklearn_rank.evaluate` on the same rows
    collected into one process, without collecting them: the rows of each
    query are brought into one partition by a shuffle on ``qid`` (skipped
    when the frame is already partitioned by query id), every partition is
    evaluated on the workers by the same engine, and only per-query values
    come back to be reduced into the report.

    Read more in the :ref:`User Guide <scaling_dask>`.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per (query, candidate) pair.
    qid : str, default="qid"
        The column of query ids (any values that sort: integers, strings),
        or the name of the index when the query id is the index. Dask turns
        ``object`` columns into strings by default (its
        ``dataframe.convert-string`` setting): give integer ids an integer
        dtype (see :ref:`the pitfalls <scaling_dask>`).
    score : str, default="score"
        The column of scores (higher ranks first).
    label : str, default="label"
        The column of relevance grades (``y_true``).
    metrics : str or sequence of str, default=("mrr", "map", "ndcg@10")
        Metric names (see :func:`sklearn_rank.metric_names`).
    sample_weight : str, default=None
        The column of weights: one per query (per row, constant within a
        query).
    exclude : str, default=None
        A column of booleans: candidates removed before ranking (filtered
        protocol).
    unjudged : str, default=None
        A column of booleans: candidates without a relevance judgement
        (for ``bpref`` and ``judged@k``).
    per_query : {"pandas"}, default="pandas"
        Where the per-query values go: ``report.per_query`` holds them as
        NumPy arrays in the driver, as :func:`sklearn_rank.evaluate` does
        (``report.to_frame()`` gives a pandas frame). They come back to the
        driver in any case, as the reduction needs them, so a Dask frame of
        them is ``dask.dataframe.from_pandas(report.to_frame(),
        npartitions=...)``.
    partitioned_by_qid : bool, default=None
        Whether every partition already holds whole queries, so that no
        shuffle is needed. ``None``: yes when ``qid`` is the index and its
        divisions are known (as after ``set_index(qid)``), else shuffle.
        ``True``: trust the partitioning (for example Parquet files written
        one query range per file); a query found in two partitions then
        raises a ``ValueError``. ``False``: always shuffle.
    **options : dict
        The options of :func:`sklearn_rank.evaluate`: ``ties``, ``gain``,
        ``relevance_level``, ``no_relevant``, ``targets``, the definition
        options (``ap_denominator``, ``precision_denominator``,
        ``recall_denominator``, ``discount``, ``ideal_dcg``), ``nan_policy``
        and ``convention``. ``judged`` and ``missing`` (judged queries without
        rows) are not supported.

    Returns
    -------
    report : RankingReport
        As :func:`sklearn_rank.evaluate` returns on the same rows.

    Raises
    ------
    ValueError
        A column name that is not in the frame, a bad option, or a query
        whose rows lie in two partitions under ``partitioned_by_qid=True``.

    See Also
    --------
    sklearn_rank.evaluate : The same on arrays in memory.

    Notes
    -----
    With ``ties="ordinal"`` (input order breaks ties), a row position is
    carried through the shuffle so that ties are broken in the frame's
    own row order, as in memory.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> import sklearn_rank.dask
    >>> frame = pd.DataFrame({"qid": [1, 1, 1, 2, 2, 2],
    ...                       "score": [0.9, 0.8, 0.1, 0.3, 0.6, 0.2],
    ...                       "label": [0, 1, 0, 1, 0, 0]})
    >>> ddf = dd.from_pandas(frame, npartitions=2)
    >>> report = sklearn_rank.dask.evaluate(ddf, metrics=["mrr", "hits@1", "map"])
    >>> report.summary
    {'mrr': 0.5, 'hits@1': 0.0, 'map': 0.5}
    >>> report.per_query["mrr"]
    array([0.5, 0.5])
    """
    dask, dd = _import_dask()
    if not isinstance(ddf, dd.DataFrame):
        raise InputTypeError(f"`ddf` must be a dask.dataframe.DataFrame. Got {type(ddf).__name__} instead.")
    for name in ("judged", "missing"):
        if name in options:
            raise InputValueError(
                f"`{name}` (judged queries without candidate rows) needs every query in one process and "
                f"is not supported by sklearn_rank.dask.evaluate. Got {name}= instead.")
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise InputTypeError(f"sklearn_rank.dask.evaluate() takes the options {list(_OPTIONS)}. Got {unknown} instead.")
    if per_query != "pandas":
        raise InputValueError("`per_query` must be 'pandas' (for a Dask frame of the per-query values: "
                              "dask.dataframe.from_pandas(report.to_frame(), npartitions=...)). "
                              f"Got {per_query!r} instead.")
    if partitioned_by_qid not in (None, True, False):
        raise InputValueError(f"`partitioned_by_qid` must be None, True or False. Got {partitioned_by_qid!r} instead.")
    evaluation = _engine.plan(metrics=metrics, **options)  # options checked once, before any data is read

    columns = list(ddf.columns)
    index_name = ddf.index.name
    roles = _columns.resolve({"qid": qid, "score": score, "label": label, "sample_weight": sample_weight,
                              "exclude": exclude, "unjudged": unjudged})
    if roles["qid"] not in columns and roles["qid"] == index_name:  # the query id as the index
        present = _columns.Roles({role: column for role, column in roles.items() if role != "qid"})
    else:
        present = roles
    _columns.require_present(present, columns, where=None, source="`ddf`")
    for role, column in present.items():  # numbers that Dask turned into text, refused before any work
        if role in _columns.NUMBER_ROLES and _is_text_dtype(ddf.dtypes[column]):
            raise _columns.type_error(roles, role, None, f"text (Dask's string dtype {ddf.dtypes[column]}; Dask "
                                      "turns a column of dtype object into strings when it builds a frame, its "
                                      "dataframe.convert-string setting, numbers with a None among them too: give "
                                      "the column a numeric dtype first, e.g. astype(float), or turn the setting "
                                      "off with dask.config.set({'dataframe.convert-string': False}))")
    wanted = [column for _, column in roles.items()]
    on_index = qid not in columns
    frame = ddf[[column for column in wanted if column != qid or not on_index]]

    if partitioned_by_qid is None:
        partitioned_by_qid = on_index and ddf.known_divisions
    if not partitioned_by_qid:
        if evaluation.ties == "ordinal":
            # the shuffle need not keep the rows of a query in their order: carry the position through
            frame = frame.assign(**{_ROW: 1})
            frame[_ROW] = frame[_ROW].cumsum()
        if on_index:
            frame = frame.reset_index()
        frame = frame.shuffle(qid)
        on_index = False

    parts = [dask.delayed(_evaluate_partition, pure=True)(evaluation, partition, roles, on_index)
             for partition in frame.to_delayed()]
    computed = dask.compute(*parts)
    parts = [part for part in computed if part is not None and not isinstance(part, str)]
    if not parts:
        if any(part == _EXCLUDED for part in computed if isinstance(part, str)):
            raise InputValueError(ALL_EXCLUDED)
        raise InputValueError(f"`ddf` must have at least one row. Got {ddf.npartitions} empty partitions instead.")
    try:
        return evaluation.reduce(parts)
    except ValueError as exc:
        if str(exc).startswith(_SPLIT):
            raise InputValueError(f"{exc} With partitioned_by_qid=True (or a qid index with known divisions) every "
                                  "partition must hold whole queries; partitioned_by_qid=False shuffles the rows by "
                                  "query id first.") from None
        raise


_EXCLUDED = "every candidate excluded"


def _is_text_dtype(dtype):
    """Whether a frame's dtype is a string dtype (pandas' or Arrow's; not object, which may hold numbers)."""
    import pandas as pd

    if isinstance(dtype, pd.StringDtype):
        return True
    arrow = getattr(dtype, "pyarrow_dtype", None)
    if arrow is None:
        return False
    import pyarrow as pa

    return pa.types.is_string(arrow) or pa.types.is_large_string(arrow)


def _evaluate_partition(evaluation, frame, roles, on_index):
    """The PartialReport of one partition's rows (whole queries), or None for an empty partition."""
    if len(frame) == 0:
        return None
    if _ROW in frame.columns:
        frame = frame.iloc[np.argsort(frame[_ROW].to_numpy(), kind="stable")]
    # checked by the column resolver as every tabular source is (after the shuffle a row number would
    # mean nothing to the user: messages name the query id)
    rows = {role: _columns.pandas_column(roles, role, frame.index if role == "qid" and on_index else frame[column],
                                         nan_policy=evaluation.nan_policy)
            for role, column in roles.items()}
    label, score = rows.pop("label"), rows.pop("score")
    own_rows = frame[_ROW].to_numpy() - 1 if _ROW in frame.columns else None  # carried under ties="ordinal"
    _columns.check_rows(roles, score, label, rows.get("exclude"), nan_policy=evaluation.nan_policy,
                        where=_columns.by_query(rows["qid"], own_rows, "`ddf`"))
    try:
        return evaluation.part(label, score, **rows)
    except ValueError as exc:
        if str(exc) != ALL_EXCLUDED:
            raise
        return _EXCLUDED  # every candidate of these queries was excluded: they drop out, as in `evaluate`
