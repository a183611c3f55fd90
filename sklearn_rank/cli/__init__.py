"""The ``sklearn-rank`` command line: ``evaluate``, ``compare`` and ``demo``.

Exit codes: 0 on success, 2 on bad usage or bad input (a one-line message on
stderr, no traceback).
"""

# The modules: _options (UsageError, the options evaluate and compare share, reading their inputs),
# _output (reports as text, JSON or CSV; files written all or nothing), _evaluate and _compare (the
# subcommands), _figures (--plot). This module builds the parser and runs a command.
from __future__ import annotations

import os
import sys
import warnings

from .._conventions import Default
from ._compare import _run_compare
from ._evaluate import _run_evaluate
from ._figures import _matplotlib, _plot_setup, _save_figure
from ._options import _is_input_error, _metric_options, _Parser, _table_options
from ._output import _write

# Importable from sklearn_rank.cli before it became a package. The subcommands import what they use
# themselves: a test patches evaluate or evaluate_trec in sklearn_rank.cli._evaluate or _compare.
from ._options import DEFAULT_METRICS, Progress, UsageError  # noqa: F401
from ..io import TrecFormatError, evaluate_trec, read_qrels, read_run  # noqa: F401
from ..io._tables import Table, TableFormatError, read_table  # noqa: F401
from ..metrics import evaluate  # noqa: F401

__all__ = ["main"]

_TESTS = ("auto", "mannwhitneyu", "wilcoxon", "ttest", "permutation", "bootstrap")
_CORRECTIONS = ("holm", "bonferroni", "fdr_bh", "none")


def build_parser():
    parser = _Parser(prog="sklearn-rank", description="Rank-based evaluation: TREC files, tables, and a demo.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    ev = sub.add_parser("evaluate", help="evaluate a TREC run against qrels, or a table")
    ev.add_argument("inputs", nargs="+", metavar="PATH", help="QRELS RUN, or one TABLE (CSV, TSV, Parquet)")
    _metric_options(ev)
    _table_options(ev)
    ev.add_argument("--missing", choices=("skip", "zero"), default=Default("skip"),  # a preset may set it
                    help="queries with relevant items but no retrieved document (TREC) or no relevant item "
                         "(tables): skip them, or count them as 0 (trec_eval -c)")
    ev.add_argument("--stream", action="store_true",
                    help="read a Parquet table whose rows are grouped by query (ORDER BY qid) a batch at a "
                         "time, in the memory of about one batch; a query that comes back after others is an "
                         "error")
    ev.add_argument("-q", "--per-query", action="store_true", help="print one line per query as well")
    ev.add_argument("--format", choices=("table", "json", "csv"), default="table",
                    help="output format; json and csv print full precision")
    ev.add_argument("-o", "--output", help="write to this file instead of standard output")
    ev.add_argument("--plot", metavar="FILE", help="also draw the rank histogram and the hits@k curve into this "
                                                    "PNG file (needs matplotlib: the plot extra)")
    ev.set_defaults(func=_run_evaluate)

    cp = sub.add_parser("compare", help="per-query significance tests between runs or groups")
    cp.add_argument("inputs", nargs="+", metavar="PATH", help="QRELS RUN_A RUN_B [RUN_C ...], or one TABLE")
    _metric_options(cp)
    cp.set_defaults(metrics=["map"])
    _table_options(cp)
    cp.add_argument("--group", help="table column whose values name the groups to compare")
    # stats' TESTS and CORRECTIONS, written out: importing stats here would load scipy.stats for every
    # command (a test checks that the lists agree)
    cp.add_argument("--test", default="auto", choices=_TESTS,
                    help="test (default: paired Wilcoxon on the queries both sides share, Mann-Whitney when "
                         "they share none)")
    cp.add_argument("--correction", default="holm",
                    choices=_CORRECTIONS)
    cp.add_argument("--baseline", help="compare every other run with this one only")
    cp.add_argument("--seed", type=int, default=0, help="seed of the resampling tests")
    cp.add_argument("--format", choices=("table", "json", "csv"), default="table")
    cp.add_argument("-o", "--output", help="write to this file instead of standard output")
    cp.add_argument("--plot", metavar="FILE", help="also draw the per-query comparison of each pair into this PNG "
                                                    "file (needs matplotlib: the plot extra)")
    cp.set_defaults(func=_run_compare)

    dm = sub.add_parser("demo", help="grid-search two model families on built-in data and print a leaderboard")
    dm.add_argument("-o", "--output", help="write to this file instead of standard output")
    dm.add_argument("--plot", metavar="FILE", help="also draw the leaderboard figure into this PNG file (needs "
                                                    "matplotlib: the plot extra)")
    dm.set_defaults(func=_run_demo)
    return parser


def _run_demo(args):
    from .._demo import leaderboard_figure, run_demo

    if args.plot:
        _plot_setup(args)
    figure_data = {} if args.plot else None
    _write(run_demo(figure_data), args.output)
    if args.plot:
        _save_figure(leaderboard_figure(figure_data, _matplotlib().figure.Figure), args.plot)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """A warning on one line of standard error, without the source line Python would add."""
    text = str(message).splitlines()[0] if str(message) else category.__name__
    sys.stderr.write(f"sklearn-rank: warning: {text}\n")


def _check_outputs(args):
    """``-o`` and ``--plot`` name files to write: never an input (it would be replaced by the report), and
    not the same file (the figure would replace the report)."""
    outputs = [(flag, getattr(args, dest, None)) for flag, dest in (("-o", "output"), ("--plot", "plot"))]
    outputs = [(flag, path) for flag, path in outputs if path is not None]
    for flag, path in outputs:
        for given in getattr(args, "inputs", None) or ():
            if _same_file(path, given):
                raise UsageError(f"{flag} names a file to write, and must not name an input, which it would "
                                 f"replace. Got {flag} {path} instead.")
    if len(outputs) == 2 and _same_file(outputs[0][1], outputs[1][1]):
        raise UsageError(f"-o and --plot must name different files (the figure would replace the report). Got "
                         f"{outputs[0][1]} for both instead.")


def _same_file(a, b):
    a, b = os.fspath(a), os.fspath(b)
    try:
        return os.path.samefile(a, b)
    except OSError:  # a file not written yet: the same path
        return os.path.abspath(a) == os.path.abspath(b)


def main(argv=None):
    """Run the command line; return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        _check_outputs(args)
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            args.func(args)
    except (ValueError, TypeError) as exc:
        if not _is_input_error(exc):
            raise
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        sys.stderr.write(f"sklearn-rank: error: {message}\n" if not message.startswith("sklearn-rank") else
                         f"{message}\n")
        return 2
    except OSError as exc:
        # an OSError of a library may carry no file name or reason: its text then says what
        where = f"{exc.filename}: " if exc.filename else ""
        sys.stderr.write(f"sklearn-rank: error: {where}{exc.strerror or exc or type(exc).__name__}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    return 0
