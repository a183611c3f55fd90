"""The ``evaluate`` subcommand: TREC files, a table, or a Parquet table streamed (``--stream``)."""

from __future__ import annotations

import os

from .._conventions import Default
from ..io import evaluate_trec, read_qrels, read_run
from ..io._tables import TableFormatError, parquet_batches, table_roles
from ..metrics import evaluate
from ._figures import _plot_setup, _save_figure, _table_figure, _trec_figure
from ._options import (UsageError, _gain, _is_input_error, _nan_policy, _read_table_inputs, _read_trec,
                       _refuse_table_options, _require_table_columns, _table_ties, _trec_ties, _with_query_ids)
from ._output import _format_report, _write


def _run_evaluate(args):
    if args.plot:
        _plot_setup(args)  # before any reading: a missing matplotlib fails fast
    if len(args.inputs) == 2:
        _refuse_table_options(args, "QRELS RUN")
        if args.stream:
            raise UsageError("--stream reads one Parquet table a batch at a time. Got --stream with QRELS RUN "
                             "instead.")
        qrels_path, run_path = args.inputs
        qrels, run = _read_trec(read_qrels, qrels_path), _read_trec(read_run, run_path)
        report = evaluate_trec(qrels, run, metrics=args.metrics, relevance_level=args.relevance_level,
                               missing=args.missing, ties=_trec_ties(args), gain=_gain(args),
                               convention=args.convention)
        if args.plot:
            figure = _trec_figure(args, qrels, run)
    elif len(args.inputs) == 1 and args.stream:
        if args.plot:
            raise UsageError("--plot needs the whole table in memory; --stream reads it a batch at a time. "
                             "Got --plot with --stream instead.")
        report = _evaluate_parquet_stream(args, args.inputs[0])
    elif len(args.inputs) == 1:
        path = args.inputs[0]
        ties = _table_ties(args)
        table = _read_table_inputs(args, path)
        report = evaluate(table.label, table.score, qid=table.qid, metrics=args.metrics, ties=ties,
                          exclude=table.exclude, relevance_level=args.relevance_level, gain=_gain(args),
                          no_relevant="zero" if args.missing == "zero" else Default("skip"),
                          nan_policy=_nan_policy(args), convention=args.convention)
        report = _with_query_ids(report, table.qid_values)
        if args.plot:
            figure = _table_figure(args, table, ties)
    else:
        raise UsageError("evaluate takes QRELS RUN (TREC files) or one TABLE. Got "
                         f"{len(args.inputs)} paths instead.")
    _write(_format_report(report, args.format, args.per_query, report.params.get("missing", args.missing)),
           args.output)
    if args.plot:
        _save_figure(figure, args.plot)


_STREAM_BATCH_ROWS = 1 << 16


def _evaluate_parquet_stream(args, path):
    """``evaluate TABLE.parquet --stream``: the table's rows, grouped by query, read a batch at a time."""
    path = os.fspath(path)
    if not path.endswith((".parquet", ".pq")):
        raise UsageError(f"--stream reads Parquet tables (.parquet, .pq) a batch at a time. Got {path} instead.")
    _require_table_columns(args)
    ties, nan_policy = _table_ties(args), _nan_policy(args)
    roles = table_roles(qid=args.qid_col, score=args.score_col, label=args.label_col, exclude=args.exclude_col)
    batches = parquet_batches(path, roles, batch_rows=_STREAM_BATCH_ROWS)
    from .._batches import evaluate_stream

    try:
        return evaluate_stream(batches, roles, metrics=args.metrics, ties=ties,
                               relevance_level=args.relevance_level, gain=_gain(args),
                               no_relevant="zero" if args.missing == "zero" else Default("skip"),
                               nan_policy=nan_policy, convention=args.convention)
    except (ValueError, TypeError) as exc:
        if not _is_input_error(exc) or str(exc).startswith(f"{path}:"):
            raise
        raise TableFormatError(f"{path}: {exc}") from None
