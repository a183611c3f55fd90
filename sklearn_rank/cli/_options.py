"""What the subcommands share: the usage error, their options and how they are read, reading the inputs."""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from .._conventions import CONVENTIONS, Default, normalise_convention, resolve as resolve_convention
from .._inputs import GAINS, NAN_POLICIES, TIE_POLICIES
from ..exceptions import InputError, InputValueError
from ..io._tables import read_table

DEFAULT_METRICS = ["mrr", "map", "ndcg@10", "p@10", "r@100", "hits@10"]


class UsageError(InputValueError):
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


def _metric_options(parser):
    parser.add_argument("-m", "--metrics", nargs="+", default=DEFAULT_METRICS, metavar="METRIC",
                        help="metric names, e.g. mrr map ndcg@10 p@5 (default: %(default)s)")
    parser.add_argument("--ties", choices=TIE_POLICIES + ("trec",), default=None,
                        help="tie policy (default: trec for TREC files, i.e. docno descending; expected for tables)")
    parser.add_argument("-l", "--relevance-level", type=float, default=None,
                        help="minimum grade that counts as relevant (trec_eval -l)")
    parser.add_argument("--gain", choices=GAINS, default=None, help="nDCG gain (default: linear)")
    parser.add_argument("--convention", type=_convention_name, default=None, metavar="{" + ",".join(CONVENTIONS) + "}",
                        help="a peer's conventions for the options not given (see the conventions page)")


def _convention_name(text):
    name = normalise_convention(text)
    if name is None:
        raise argparse.ArgumentTypeError(f"choose from {', '.join(CONVENTIONS)} (case, '-' and '_' aside). "
                                         f"Got {text!r} instead.")
    return name


def _gain(args):
    return args.gain or Default("linear")


def _nan_policy(args):
    """--nan-policy, else the --convention preset's (the table reader needs it before the engine)."""
    return resolve_convention(args.convention, {"nan_policy": args.nan_policy or Default("raise")})[0]["nan_policy"]


_TABLE_OPTIONS = (("--qid", "qid_col"), ("--score", "score_col"), ("--label", "label_col"),
                  ("--exclude-col", "exclude_col"), ("--nan-policy", "nan_policy"))


def _table_options(parser):
    parser.add_argument("--qid", dest="qid_col", help="query id column (tables)")
    parser.add_argument("--score", dest="score_col", help="score column (tables)")
    parser.add_argument("--label", dest="label_col", help="relevance column (tables)")
    parser.add_argument("--exclude-col", help="column of true/false flags: candidates removed before ranking (tables)")
    parser.add_argument("--nan-policy", choices=NAN_POLICIES, default=None,
                        help="NaN scores: an error (raise, the default), or rows removed as --exclude-col removes "
                             "them (omit); inf and -inf are ordinary scores (tables)")


def _refuse_table_options(args, inputs):
    for flag, dest in _TABLE_OPTIONS:
        if getattr(args, dest) is not None:
            what = ("applies to the scores of a table (TREC run files refuse NaN)" if flag == "--nan-policy"
                    else "names a column of a table")
            raise UsageError(f"{flag} {what}; it does not apply to TREC files ({inputs}). "
                             f"Got {flag} {getattr(args, dest)} instead.")


def _table_ties(args):
    if args.ties == "trec":
        raise UsageError("--ties trec breaks ties by docno, which tables do not have; choose another policy. "
                         "Got --ties trec with a table instead.")
    return args.ties or Default("expected")


def _trec_ties(args):
    return args.ties or Default("trec")


def _require_table_columns(args):
    missing = [flag for flag, col in (("--qid", args.qid_col), ("--score", args.score_col),
                                      ("--label", args.label_col)) if not col]
    if missing:
        raise UsageError(f"evaluating a table needs {', '.join(missing)} (the column names).")


def _read_table_inputs(args, path, group=None):
    _require_table_columns(args)
    progress = Progress(f"reading {os.path.basename(os.fspath(path))}")
    table = read_table(path, qid=args.qid_col, score=args.score_col, label=args.label_col, exclude=args.exclude_col,
                       group=group, progress=progress.update, nan_policy=_nan_policy(args))
    progress.close()
    return table


def _read_trec(reader, path):
    progress = Progress(f"reading {os.path.basename(os.fspath(path))}")
    try:
        return reader(path, progress=progress.update)
    finally:
        progress.close()


def _with_query_ids(report, qid_values):
    """The report of integer query codes, with the table's query ids back in ``per_query["qid"]``."""
    report.per_query["qid"] = qid_values[np.asarray(report.per_query["qid"], dtype=np.int64)]
    return report

def _is_input_error(exc):
    """Whether ``exc`` reports bad input: an :class:`~sklearn_rank.exceptions.InputError` (raised by the
    package's validation, the TREC and table readers, or the command line's usage checks), not an error
    that a bug let escape from an expression or a library."""
    return isinstance(exc, InputError)
