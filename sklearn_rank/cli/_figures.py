"""``--plot``: figures drawn off screen (matplotlib's Agg renderer), written as PNG files."""

from __future__ import annotations

import io
import os
import sys

import numpy as np

from .._conventions import Default, resolve as resolve_convention
from ..io import evaluate_trec
from ._options import UsageError, _nan_policy, _trec_ties
from ._output import _write


def _matplotlib():
    """matplotlib with the Agg backend (files only, no window), or a usage error naming the extra."""
    try:
        import matplotlib
    except ImportError:
        raise UsageError('--plot needs matplotlib, which the `plot` extra installs: pip install "sklearn-rank[plot]" '
                         "(or pip install matplotlib). Got no matplotlib instead.") from None
    if "matplotlib.pyplot" not in sys.modules:
        # the figures here are matplotlib.figure.Figure objects that never reach pyplot; a program that has
        # already chosen its backend (pyplot imported) keeps it
        matplotlib.use("Agg")
    import matplotlib.figure  # noqa: F401 (the Figure class, used by the callers)

    return matplotlib


def _plot_setup(args):
    """Check ``--plot FILE`` before any work: the figure is a PNG, so the file name says so."""
    if os.path.splitext(os.fspath(args.plot))[1].lower() != ".png":
        raise UsageError(f"--plot writes a PNG image: the file name must end in .png. Got {args.plot!r} instead.")
    _matplotlib()


def _new_figure(n_panels, width=5.5, height=4.5):
    figure_class = _matplotlib().figure.Figure
    columns = min(n_panels, 3)
    rows = -(-n_panels // columns)
    figure = figure_class(figsize=(width * columns, height * rows), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return figure, axes[:n_panels]


def _save_figure(figure, path):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    _write(buffer.getvalue(), path)


def _rank_ties(ties):
    """The rank drawn in the histogram: the tie policy written on the command line, else the mid rank."""
    return str(ties) if not isinstance(ties, Default) and ties != "trec" else "realistic"


def _nothing_to_draw(ax, what):
    """A panel that says why it is empty (no relevant item was ranked): the report is still written."""
    ax.text(0.5, 0.5, f"no relevant item was ranked:\nno {what} to draw", ha="center", va="center",
            transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def _table_figure(args, table, ties):
    from .._engine import compute_ranks
    from ..plot import HitsAtKCurveDisplay, RankDistributionDisplay

    figure, (left, right) = _new_figure(2)
    common = dict(qid=table.qid, exclude=table.exclude, relevance_level=args.relevance_level,
                  nan_policy=_nan_policy(args), convention=args.convention)
    figure.suptitle(os.path.basename(os.fspath(args.inputs[0])))
    if not len(compute_ranks(table.label, table.score, **common)):
        _nothing_to_draw(left, "rank histogram")
        _nothing_to_draw(right, "hits@k curve")
        return figure
    RankDistributionDisplay.from_predictions(table.label, table.score, ties=_rank_ties(ties), ax=left, **common)
    HitsAtKCurveDisplay.from_predictions(table.label, table.score, ties=ties,
                                         no_relevant="zero" if args.missing == "zero" else Default("skip"),
                                         ax=right, **common)
    return figure


def _trec_figure(args, qrels, run):
    """The run's rank histogram and hits@k curve. The curve is evaluate_trec's hits@k (judged relevant
    documents that the run never retrieved count as misses); the histogram has the ranks of the relevant
    documents retrieved."""
    from .._engine import compute_ranks
    from ..io import Run
    from ..io._trec_eval import join_run
    from ..plot import DEFAULT_MAX_K, HitsAtKCurveDisplay, RankDistributionDisplay

    ties = _trec_ties(args)
    # the tie policy as evaluate_trec resolves it (a --convention preset replaces the trec default)
    resolved = resolve_convention(args.convention, {"ties": ties})[0]["ties"]
    # evaluate_trec's join: the rows its engine ranks (judged queries; trec_eval's order under ties="trec")
    rows = join_run(qrels, run, trec_ties=resolved == "trec")
    y_true, score, qid = rows.y_true, rows.score, rows.qid
    figure, (left, right) = _new_figure(2)
    rank_ties = "ordinal" if resolved == "trec" else _rank_ties(resolved)
    if len(compute_ranks(y_true, score, qid=qid, relevance_level=args.relevance_level)):
        RankDistributionDisplay.from_predictions(y_true, score, qid=qid, relevance_level=args.relevance_level,
                                                 ties=rank_ties, ax=left)
    else:  # the run retrieved no relevant document: its hits@k curve is still drawn (all misses)
        _nothing_to_draw(left, "rank histogram")
    max_k = min(DEFAULT_MAX_K, int(np.unique(qid, return_counts=True)[1].max()))
    names = [f"hits@{k}" for k in range(1, max_k + 1)]
    options = dict(metrics=names, relevance_level=args.relevance_level, missing=args.missing,
                   convention=args.convention)
    hits = evaluate_trec(qrels, run, ties=ties, **options).summary
    # the same documents in random order: a constant score under ties="expected"
    constant = Run(run.qid, run.docno, np.zeros_like(run.score, dtype=np.float64), run.name)
    baseline = evaluate_trec(qrels, constant, ties="expected", **options).summary
    display = HitsAtKCurveDisplay(k=np.arange(1, max_k + 1), hits=[hits[n] for n in names],
                                  baseline_hits=[baseline[n] for n in names], name=run.name)
    display.plot(ax=right)
    figure.suptitle(f"{run.name} ({os.path.basename(os.fspath(args.inputs[1]))})")
    return figure


def _comparison_figure(args, table, reports, metric):
    """One per-query scatter for each pair of the comparison table, its paired test in the legend: the
    table's own result (unadjusted p-value), the one printed; Wilcoxon's when the table's test is unpaired."""
    from ..plot import QueryComparisonDisplay

    figure, axes = _new_figure(len(table))
    for row, ax in zip(table, axes):
        display = QueryComparisonDisplay.from_reports(
            reports[row.a], reports[row.b], metric=metric, name_a=str(row.a), name_b=str(row.b), unpaired="drop",
            test="wilcoxon" if row.result.paired else "auto", alternative="two-sided", rng=args.seed, ax=ax)
        if row.result.paired:  # not a second draw of a permutation or bootstrap test under another stream
            display.result = row.result
            ax.cla()
            display.plot(ax=ax)
    return figure
