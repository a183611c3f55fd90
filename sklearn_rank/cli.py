"""The ``sklearn-rank`` command line: ``evaluate``, ``compare`` and ``demo``.

Exit codes: 0 on success, 2 on bad usage or bad input (a one-line message on
stderr, no traceback).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
import time

import numpy as np

from ._inputs import GAINS, TIE_POLICIES
from .io import TrecFormatError, evaluate_trec, read_qrels, read_run
from .metrics import evaluate

__all__ = ["main"]

DEFAULT_METRICS = ["mrr", "map", "ndcg@10", "p@10", "r@100", "hits@10"]


class UsageError(Exception):
    """Bad usage or bad input: reported in one line with exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")


# --------------------------------------------------------------------------------------------
# Progress on stderr, only for a terminal and only once an operation has taken a second.
# --------------------------------------------------------------------------------------------
class Progress:
    def __init__(self, label, stream=None, delay=1.0):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.monotonic()
        self.delay = delay
        self.shown = False

    def update(self, done, total):
        if not self.enabled or time.monotonic() - self.start < self.delay:
            return
        self.shown = True
        share = done / total if total else 1.0
        bar = "#" * int(30 * share)
        self.stream.write(f"\r{self.label} [{bar:<30}] {100 * share:5.1f}%")
        self.stream.flush()

    def close(self):
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


# --------------------------------------------------------------------------------------------
# Tables (CSV/TSV always, Parquet with pyarrow)
# --------------------------------------------------------------------------------------------
def read_table(path, columns):
    """Read the named columns of a CSV/TSV (or Parquet) table as lists of strings/values."""
    path = os.fspath(path)
    if path.endswith((".parquet", ".pq")):
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise UsageError(f"{path}: reading Parquet needs pyarrow (pip install pyarrow).") from None
        try:
            table = pq.read_table(path, columns=[c for c in columns if c])
        except Exception as exc:  # pyarrow raises many types for a bad file or column
            raise UsageError(f"{path}: cannot read the Parquet table: {exc}") from None
        return {c: np.asarray(table.column(c).to_numpy(zero_copy_only=False)) for c in columns if c}
    delimiter = "\t" if path.endswith((".tsv", ".tab")) else ","
    try:
        handle = open(path, newline="", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror}.") from None
    with handle:
        reader = csv.reader(handle, delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            raise UsageError(f"{path}:1: the table is empty. Got no header line instead.")
        index = {}
        for col in columns:
            if col and col not in header:
                raise UsageError(f"{path}:1: no column {col!r} in the header. Got columns {header} instead.")
            if col:
                index[col] = header.index(col)
        values = {col: [] for col in index}
        size = os.path.getsize(path)
        progress = Progress(f"reading {os.path.basename(path)}")
        for number, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) != len(header):
                raise UsageError(f"{path}:{number}: expected {len(header)} columns as in the header. "
                                 f"Got {len(row)} instead.")
            for col, i in index.items():
                values[col].append(row[i])
            if number % 65536 == 0:
                progress.update(handle.tell(), size)
        progress.close()
    if not values or not next(iter(values.values())):
        raise UsageError(f"{path}: the table has a header but no rows.")
    return {col: np.array(v) for col, v in values.items()}


def _numbers(values, path, column):
    try:
        return values.astype(np.float64)
    except ValueError:
        for i, v in enumerate(values):
            try:
                float(v)
            except ValueError:
                raise UsageError(f"{path}:{i + 2}: column {column!r} must hold numbers. Got {v!r} instead.") \
                    from None
        raise


def _flags(values, path, column):
    text = np.char.lower(values.astype(str)) if values.dtype.kind in "US" else values
    if values.dtype.kind in "US":
        true = np.isin(text, ["1", "true", "yes", "1.0"])
        false = np.isin(text, ["0", "false", "no", "0.0", ""])
        bad = ~(true | false)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise UsageError(f"{path}:{i + 2}: column {column!r} must hold true/false flags. Got {values[i]!r} "
                             "instead.")
        return true
    return values.astype(bool)


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------
def _format_report(report, fmt, per_query):
    names = list(report.summary)
    if fmt == "json":
        payload = {"summary": report.summary, "n_queries": report.n_queries, "n_skipped": report.n_skipped}
        if per_query:
            payload["per_query"] = {k: [_jsonable(x) for x in v] for k, v in report.per_query.items()}
        return json.dumps(payload, indent=2) + "\n"
    if fmt == "csv":
        lines = ["qid," + ",".join(names)]
        if per_query:
            for i, q in enumerate(report.per_query["qid"]):
                lines.append(f"{q}," + ",".join(repr(float(report.per_query[n][i])) for n in names))
        lines.append("all," + ",".join(repr(report.summary[n]) for n in names))
        return "\n".join(lines) + "\n"
    width = max(len(n) for n in names + ["metric"])
    lines = []
    if per_query:
        qwidth = max(len(str(q)) for q in list(report.per_query["qid"]) + ["qid"])
        lines.append(f"{'qid':<{qwidth}}  " + "  ".join(f"{n:>{max(len(n), 8)}}" for n in names))
        for i, q in enumerate(report.per_query["qid"]):
            lines.append(f"{str(q):<{qwidth}}  "
                         + "  ".join(f"{report.per_query[n][i]:>{max(len(n), 8)}.4f}" for n in names))
        lines.append(f"{'all':<{qwidth}}  " + "  ".join(f"{report.summary[n]:>{max(len(n), 8)}.4f}" for n in names))
    else:
        lines.append(f"{'metric':<{width}}  {'value':>8}")
        for n in names:
            lines.append(f"{n:<{width}}  {report.summary[n]:>8.4f}")
    lines.append(f"({report.n_queries} queries evaluated, {report.n_skipped} skipped without relevant items)")
    return "\n".join(lines) + "\n"


def _jsonable(x):
    if isinstance(x, (np.floating, float)):
        return None if np.isnan(x) else float(x)
    if isinstance(x, np.integer):
        return int(x)
    return x if isinstance(x, (str, int)) else str(x)


def _write(text, output):
    """Write all or nothing: a temporary file renamed into place."""
    if output is None:
        sys.stdout.write(text)
        return
    directory = os.path.dirname(os.path.abspath(output))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".sklearn-rank-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, output)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# --------------------------------------------------------------------------------------------
# Subcommands
# --------------------------------------------------------------------------------------------
def _metric_options(parser):
    parser.add_argument("-m", "--metrics", nargs="+", default=DEFAULT_METRICS, metavar="METRIC",
                        help="metric names, e.g. mrr map ndcg@10 p@5 (default: %(default)s)")
    parser.add_argument("--ties", choices=TIE_POLICIES + ("trec",), default=None,
                        help="tie policy (default: trec for TREC files, i.e. docno descending; expected for tables)")
    parser.add_argument("-l", "--relevance-level", type=float, default=None,
                        help="minimum grade that counts as relevant (trec_eval -l)")
    parser.add_argument("--gain", choices=GAINS, default="linear", help="nDCG gain (default: linear)")


def _table_options(parser):
    parser.add_argument("--qid", dest="qid_col", help="query id column (tables)")
    parser.add_argument("--score", dest="score_col", help="score column (tables)")
    parser.add_argument("--label", dest="label_col", help="relevance column (tables)")
    parser.add_argument("--exclude-col", help="column of true/false flags: candidates removed before ranking")


def _table_inputs(args, path, extra=()):
    missing = [flag for flag, col in (("--qid", args.qid_col), ("--score", args.score_col),
                                      ("--label", args.label_col)) if not col]
    if missing:
        raise UsageError(f"evaluating a table needs {', '.join(missing)} (the column names).")
    cols = read_table(path, [args.qid_col, args.score_col, args.label_col, args.exclude_col, *extra])
    y_true = _numbers(cols[args.label_col], path, args.label_col)
    y_score = _numbers(cols[args.score_col], path, args.score_col)
    exclude = _flags(cols[args.exclude_col], path, args.exclude_col) if args.exclude_col else None
    return cols, y_true, y_score, exclude


def _read_trec(reader, path):
    progress = Progress(f"reading {os.path.basename(os.fspath(path))}")
    try:
        return reader(path, progress=progress.update)
    finally:
        progress.close()


def _run_evaluate(args):
    if len(args.inputs) == 2:
        qrels_path, run_path = args.inputs
        qrels, run = _read_trec(read_qrels, qrels_path), _read_trec(read_run, run_path)
        report = evaluate_trec(qrels, run, metrics=args.metrics, relevance_level=args.relevance_level,
                               missing=args.missing, ties=args.ties or "trec", gain=args.gain)
    elif len(args.inputs) == 1:
        path = args.inputs[0]
        cols, y_true, y_score, exclude = _table_inputs(args, path)
        report = evaluate(y_true, y_score, qid=cols[args.qid_col], metrics=args.metrics,
                          ties=args.ties if args.ties not in (None, "trec") else "expected",
                          exclude=exclude, relevance_level=args.relevance_level, gain=args.gain,
                          no_relevant="zero" if args.missing == "zero" else "skip")
    else:
        raise UsageError("evaluate takes QRELS RUN (TREC files) or one TABLE. Got "
                         f"{len(args.inputs)} paths instead.")
    _write(_format_report(report, args.format, args.per_query), args.output)


def _run_compare(args):
    from . import stats

    metric = args.metrics[0]
    reports = {}
    if args.group:
        if len(args.inputs) != 1:
            raise UsageError("compare --group takes one TABLE.")
        path = args.inputs[0]
        cols, y_true, y_score, exclude = _table_inputs(args, path, extra=(args.group,))
        groups = cols[args.group]
        for name in np.unique(groups):
            sel = groups == name
            reports[str(name)] = evaluate(y_true[sel], y_score[sel], qid=cols[args.qid_col][sel], metrics=[metric],
                                          exclude=None if exclude is None else exclude[sel],
                                          ties=args.ties if args.ties not in (None, "trec") else "expected",
                                          relevance_level=args.relevance_level, gain=args.gain)
        paired = False
    else:
        if len(args.inputs) < 3:
            raise UsageError("compare takes QRELS RUN_A RUN_B [RUN_C ...] or one TABLE with --group.")
        qrels = _read_trec(read_qrels, args.inputs[0])
        for path in args.inputs[1:]:
            run = _read_trec(read_run, path)
            name = run.name if run.name not in reports else os.path.basename(path)
            reports[name] = evaluate_trec(qrels, run, metrics=[metric], relevance_level=args.relevance_level,
                                          missing="zero", ties=args.ties or "trec", gain=args.gain)
        paired = True
    if len(reports) < 2:
        raise UsageError(f"compare needs at least two runs or groups. Got {len(reports)} instead.")
    test = args.test
    if test == "auto":
        test = "wilcoxon" if paired else "mannwhitneyu"
    table = stats.compare_many(reports, metric=metric, baseline=args.baseline, test=test,
                               correction=None if args.correction == "none" else args.correction, rng=args.seed)
    frame_text = _format_comparison(table, metric, reports, args.format)
    _write(frame_text, args.output)


def _format_comparison(table, metric, reports, fmt):
    records = table.to_records()
    means = {name: float(np.nanmean(r.per_query[metric])) for name, r in reports.items()}
    if fmt == "json":
        return json.dumps({"metric": metric, "means": means, "correction": table.correction,
                           "comparisons": [{k: _jsonable(v) for k, v in r.items()} for r in records]},
                          indent=2) + "\n"
    columns = ["a", "b", "test", "n_a", "n_b", "statistic", "pvalue", "pvalue_adjusted", "estimate",
               "effect_size", "wins", "ties", "losses"]
    if fmt == "csv":
        lines = [",".join(columns)]
        lines += [",".join(repr(r[c]) if isinstance(r[c], float) else str(r[c]) for c in columns) for r in records]
        return "\n".join(lines) + "\n"
    lines = [f"{metric} (mean over queries): " + ", ".join(f"{n} {m:.4f}" for n, m in means.items())]
    lines.append(f"{'a':<14} {'b':<14} {'test':<13} {'p-value':>9} {'adjusted':>9} {'estimate':>9} "
                 f"{'effect':>8}  win/tie/loss")
    for r in records:
        lines.append(f"{str(r['a']):<14} {str(r['b']):<14} {r['test']:<13} {r['pvalue']:>9.4g} "
                     f"{r['pvalue_adjusted']:>9.4g} {r['estimate']:>9.4f} {r['effect_size']:>8.4f}  "
                     f"{r['wins']}/{r['ties']}/{r['losses']}")
    lines.append(f"(p-values adjusted with {table.correction or 'no correction'}; effect: "
                 f"{records[0]['effect_size_name'] if records else ''})")
    return "\n".join(lines) + "\n"


def _run_demo(args):
    from ._demo import run_demo

    _write(run_demo(), args.output)


def build_parser():
    parser = _Parser(prog="sklearn-rank", description="Rank-based evaluation: TREC files, tables, and a demo.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    ev = sub.add_parser("evaluate", help="evaluate a TREC run against qrels, or a table")
    ev.add_argument("inputs", nargs="+", metavar="PATH", help="QRELS RUN, or one TABLE (CSV, TSV, Parquet)")
    _metric_options(ev)
    _table_options(ev)
    ev.add_argument("--missing", choices=("skip", "zero"), default="skip",
                    help="queries with relevant items but no retrieved document (TREC) or no relevant item "
                         "(tables): skip them, or count them as 0 (trec_eval -c)")
    ev.add_argument("-q", "--per-query", action="store_true", help="print one line per query as well")
    ev.add_argument("--format", choices=("table", "json", "csv"), default="table",
                    help="output format; json and csv print full precision")
    ev.add_argument("-o", "--output", help="write to this file instead of standard output")
    ev.set_defaults(func=_run_evaluate)

    cp = sub.add_parser("compare", help="per-query significance tests between runs or groups")
    cp.add_argument("inputs", nargs="+", metavar="PATH", help="QRELS RUN_A RUN_B [RUN_C ...], or one TABLE")
    _metric_options(cp)
    cp.set_defaults(metrics=["map"])
    _table_options(cp)
    cp.add_argument("--group", help="table column whose values name the groups to compare")
    cp.add_argument("--test", default="auto",
                    choices=("auto", "wilcoxon", "mannwhitneyu", "ttest", "permutation", "bootstrap"),
                    help="test (default: paired Wilcoxon for runs, Mann-Whitney for groups)")
    cp.add_argument("--correction", default="holm", choices=("holm", "bonferroni", "fdr_bh", "none"))
    cp.add_argument("--baseline", help="compare every other run with this one only")
    cp.add_argument("--seed", type=int, default=0, help="seed of the resampling tests")
    cp.add_argument("--format", choices=("table", "json", "csv"), default="table")
    cp.add_argument("-o", "--output", help="write to this file instead of standard output")
    cp.set_defaults(func=_run_compare)

    dm = sub.add_parser("demo", help="grid-search two model families on built-in data and print a leaderboard")
    dm.add_argument("-o", "--output", help="write to this file instead of standard output")
    dm.set_defaults(func=_run_demo)
    return parser


def main(argv=None):
    """Run the command line; return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        args.func(args)
    except (UsageError, TrecFormatError, ValueError, TypeError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        sys.stderr.write(f"sklearn-rank: error: {message}\n" if not message.startswith("sklearn-rank") else
                         f"{message}\n")
        return 2
    except OSError as exc:
        sys.stderr.write(f"sklearn-rank: error: {exc.filename or ''}: {exc.strerror}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
