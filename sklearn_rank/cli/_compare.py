"""The ``compare`` subcommand: per-query significance tests between runs or groups, and their output."""

from __future__ import annotations

import math
import os
import sys
import textwrap
import warnings

import numpy as np

from ..io import evaluate_trec, read_qrels, read_run
from ..metrics import evaluate
from ._figures import _comparison_figure, _plot_setup, _save_figure
from ._options import (UsageError, _gain, _is_input_error, _nan_policy, _read_table_inputs, _read_trec,
                       _refuse_table_options, _table_ties, _trec_ties, _with_query_ids)
from ._output import _csv_text, _json, _jsonable, _write


# The width the footer and the notes under each comparison table are wrapped to: an 88-column terminal.
FOOTER_WIDTH = 88


class _Values:
    """The per-query values of one metric with a value (not NaN): what the tests compare."""

    def __init__(self, qid, values, metric):
        self.per_query = {"qid": qid, metric: values}


def _run_compare(args):
    from dataclasses import replace

    from .. import stats
    from ..stats._multiple import adjust_pvalues

    if args.plot:
        _plot_setup(args)

    metrics = list(args.metrics)
    repeated = [name for i, name in enumerate(metrics) if name in metrics[:i]]
    if repeated:
        raise UsageError(f"compare -m names {', '.join(dict.fromkeys(repeated))} more than once; name each metric "
                         f"once. Got -m {' '.join(metrics)} instead.")
    reports = {}
    if args.group:
        if len(args.inputs) != 1:
            raise UsageError(f"compare --group takes one TABLE. Got {len(args.inputs)} paths instead.")
        path = args.inputs[0]
        ties = _table_ties(args)
        table = _read_table_inputs(args, path, group=args.group)
        for name, rows in table.groups():
            try:
                report = evaluate(table.label[rows], table.score[rows], qid=table.qid[rows], metrics=metrics,
                                  exclude=None if table.exclude is None else table.exclude[rows], ties=ties,
                                  relevance_level=args.relevance_level, gain=_gain(args),
                                  nan_policy=_nan_policy(args), convention=args.convention)
            except (ValueError, TypeError) as exc:
                if not _is_input_error(exc):
                    raise
                # the rows of one group refused: say which group, in the class the engine raised
                raise type(exc)(f"{path}: group {str(name)!r} of --group {args.group}: {exc}") from None
            reports[str(name)] = _with_query_ids(report, table.qid_values)
    else:
        if len(args.inputs) < 3:
            raise UsageError("compare takes QRELS RUN_A RUN_B [RUN_C ...] or one TABLE with --group. Got "
                             f"{len(args.inputs)} paths instead.")
        _refuse_table_options(args, "QRELS RUN_A RUN_B ...")
        qrels = _read_trec(read_qrels, args.inputs[0])
        for path in args.inputs[1:]:
            run = _read_trec(read_run, path)
            name = run.name if run.name not in reports else os.path.basename(path)
            reports[name] = evaluate_trec(qrels, run, metrics=metrics, relevance_level=args.relevance_level,
                                          missing="zero", ties=_trec_ties(args), gain=_gain(args),
                                          convention=args.convention)
    if len(reports) < 2:
        raise UsageError(f"compare needs at least two runs or groups. Got {len(reports)} instead.")
    correction = None if args.correction == "none" else args.correction
    # one stream for the resampling tests of every metric, in output order: the first metric's draws are
    # those of a run with that metric alone
    generator = np.random.default_rng(args.seed)
    compared = []
    for metric in metrics:
        # A rank statistic (mr, gmr, ...) has no value for a query whose relevant items were not retrieved
        # (NaN, as in `evaluate`): such queries are left out of the comparisons, and counted.
        values, n_undefined = {}, {}
        for name, report in reports.items():
            per_query = np.asarray(report.per_query[metric], dtype=np.float64)
            defined = ~np.isnan(per_query)
            if np.count_nonzero(defined) < 2:
                what = f"group {name!r} of --group {args.group}" if args.group else f"run {name!r}"
                raise UsageError(f"compare needs at least two queries with a value of {metric} in each run or group "
                                 f"to test a difference. Got {int(np.count_nonzero(defined))} in {what} instead.")
            values[name] = _Values(np.asarray(report.per_query["qid"])[defined], per_query[defined], metric)
            n_undefined[name] = int(per_query.size - np.count_nonzero(defined))
        with warnings.catch_warnings():
            # the output counts the queries left out, and says when most paired differences are zero
            warnings.simplefilter("ignore", stats.UnpairedQueriesWarning)
            warnings.filterwarnings("ignore", message=r"\d+ of \d+ paired differences are zero",
                                    category=stats.DegenerateDataWarning)
            table = stats.compare_many(values, metric=metric, baseline=args.baseline, test=args.test,
                                       correction=correction if len(metrics) == 1 else None, rng=generator)
        compared.append((metric, table, n_undefined))
    if len(metrics) > 1:  # one family: every comparison of every metric, adjusted together
        adjusted = iter(adjust_pvalues([row.pvalue for _, table, _ in compared for row in table], correction))
        compared = [(metric, stats.ComparisonTable([replace(row, pvalue_adjusted=float(next(adjusted)))
                                                    for row in table], correction=correction,
                                                   alternative=table.alternative), n_undefined)
                    for metric, table, n_undefined in compared]
    _write(_format_comparison(compared, reports, args.format), args.output)
    if args.plot:
        metric, table, _ = compared[0]
        if len(metrics) > 1:
            sys.stderr.write(f"sklearn-rank: note: --plot draws the first metric, {metric}, and leaves out "
                             f"{', '.join(metrics[1:])}; run compare with one -m METRIC for each figure.\n")
        _save_figure(_comparison_figure(args, table, reports, metric), args.plot)


def _left_out(record, reports):
    """Queries evaluated for a or b that the comparison did not use."""
    qid_a, qid_b = (np.asarray(reports[name].per_query["qid"]) for name in (record["a"], record["b"]))
    if record["paired"]:
        return int(np.union1d(qid_a, qid_b).size - record["n_a"])
    return int(qid_a.size + qid_b.size - record["n_a"] - record["n_b"])


def _wrapped(note):
    """A note under a comparison table (in parentheses) as lines of at most ``FOOTER_WIDTH`` characters.

    One line took 107 to about 200 characters; the continuation is indented inside the parenthesis, and
    words and hyphenated names (p-values, run names) are never cut.
    """
    return textwrap.wrap(note, width=FOOTER_WIDTH, subsequent_indent=" ", break_long_words=False,
                         break_on_hyphens=False)


def _format_comparison(compared, reports, fmt):
    """The output of compare: ``compared`` holds ``(metric, table, n_undefined)`` for each metric.

    One metric: one table (json: one object). Several: one table each, their p-values adjusted as one
    family (json: the object of each metric under "results"; csv: a leading "metric" column).
    """
    several = len(compared) > 1
    correction = compared[0][1].correction
    n_comparisons = sum(len(table) for _, table, _ in compared)
    blocks = []
    for metric, table, n_undefined in compared:
        records = table.to_records()
        for record in records:
            record["n_left_out"] = _left_out(record, reports)
        means = {}
        for name, report in reports.items():
            per_query = np.asarray(report.per_query[metric], dtype=np.float64)
            defined = per_query[~np.isnan(per_query)]
            means[name] = float(defined.mean()) if defined.size else math.nan
        blocks.append((metric, records, means, n_undefined))
    if fmt == "json":
        payloads = [{"metric": metric, "means": {n: _jsonable(m) for n, m in means.items()},
                     "n_undefined": n_undefined, "correction": correction,
                     "comparisons": [{k: _jsonable(v) for k, v in r.items()} for r in records]}
                    for metric, records, means, n_undefined in blocks]
        if not several:
            return _json(payloads[0])
        for payload in payloads:
            del payload["correction"]
        return _json({"metrics": [metric for metric, *_ in blocks], "correction": correction,
                      "n_comparisons": n_comparisons, "results": payloads})
    from ..stats._results import TABLE_COLUMNS  # compare has loaded stats already

    # the comparison table's columns, less those the output says otherwise (names, the unpaired counts
    # summed into n_left_out)
    columns = [c for c in TABLE_COLUMNS if c not in ("n_unpaired_a", "n_unpaired_b", "estimate_name",
                                                     "effect_size_name")]
    columns.insert(columns.index("n_b") + 1, "n_left_out")
    if fmt == "csv":
        rows = [(["metric"] if several else []) + columns]
        for metric, records, _, _ in blocks:
            rows += [([metric] if several else []) + [repr(r[c]) if isinstance(r[c], float) else r[c]
                                                      for c in columns] for r in records]
        return _csv_text(rows)
    adjusted = (f"{correction or 'no correction'} across all {n_comparisons} comparisons of the "
                f"{len(compared)} metrics" if several else correction or "no correction")
    texts = []
    for metric, records, means, n_undefined in blocks:
        lines = [f"{metric} (mean over queries): " + ", ".join(f"{n} {m:.4f}" for n, m in means.items())]
        # the name columns as wide as the names (a fixed 14 made lines of 113 characters that wrapped in a terminal)
        wa = max([1] + [len(str(r["a"])) for r in records])
        wb = max([1] + [len(str(r["b"])) for r in records])
        lines.append(f"{'a':<{wa}} {'b':<{wb}} {'test':<13} {'queries':>7} {'left out':>8} {'p-value':>9} "
                     f"{'adjusted':>9} {'estimate':>9} {'effect':>8}  win/tie/loss")
        for r in records:
            queries = str(r["n_a"]) if r["paired"] else f"{r['n_a']}+{r['n_b']}"
            lines.append(f"{str(r['a']):<{wa}} {str(r['b']):<{wb}} {r['test']:<13} {queries:>7} {r['n_left_out']:>8} "
                         f"{r['pvalue']:>9.4g} {r['pvalue_adjusted']:>9.4g} {r['estimate']:>9.4f} "
                         f"{r['effect_size']:>8.4f}  {r['wins']}/{r['ties']}/{r['losses']}")
        paired = any(r["paired"] for r in records)
        unpaired = not all(r["paired"] for r in records)
        counts = ", ".join(part + (f" ({kind})" if paired and unpaired else "") for part, kind, used in (
            ("queries where a is higher, equal, lower", "paired", paired),
            ("all cross pairs of values a_i, b_j", "unpaired", unpaired)) if used)
        footer = (f"(p-values adjusted with {adjusted}; effect: "
                  f"{records[0]['effect_size_name'] if records else ''}; win/tie/loss: {counts})")
        lines += _wrapped(footer)
        # a small p-value beside an estimate near 0: most pairs are equal, and Wilcoxon ranks the others
        for r in records:
            if r["paired"] and 0 < r["ties"] < r["n_a"] and 2 * r["ties"] > r["n_a"]:
                rest = ("the Wilcoxon test ranks only" if r["test"] == "wilcoxon" else "the test rests on")
                lines += _wrapped(f"({r['a']} - {r['b']}: {r['ties']} of {r['n_a']} paired differences are zero; "
                                  f"{rest} the other {r['n_a'] - r['ties']})")
        if any(n_undefined.values()):
            lines += _wrapped(f"({metric} has no value for a query whose relevant documents were not retrieved: "
                              + ", ".join(f"{n} in {name}" for name, n in n_undefined.items() if n)
                              + "; those queries are left out)")
        texts.append("\n".join(lines) + "\n")
    return "\n".join(texts)
