"""``sklearn-rank demo``: the main job on built-in data, no files and no network.

1. Learning to rank on :func:`sklearn_rank.datasets.make_ranking`: the queries
   are split once (by query) into a search set and a held-out set. Two model
   families are grid-searched on ``nDCG@10`` with :class:`QueryGroupKFold` over the
   search set only; the chosen models, refitted on the whole search set, are
   then scored on the held-out queries: a leaderboard with the spread over
   queries, and a paired significance test of the best model against the
   runner-up. The cross-validated scores that chose the hyper-parameters are
   printed as such, never reused as the comparison (they are optimistic: the
   maximum over the grid).
2. "How high did the classifier rank the true class": two classifiers with
   fixed hyper-parameters on scikit-learn's digits, the same leaderboard in the
   label-index layout from out-of-fold probabilities (nothing is tuned on
   those folds).

Each leaderboard is followed by what no model gets: the exact expectation of
every metric under a uniformly random order of each query's candidates (a
constant scorer under ``ties="expected"``, computed by the engine), and the
same constant scorer under the demo's own tie policy (one line saying so when
that policy is ``"expected"``: the same numbers). The header marks each
metric's direction from the metric registry (``↑`` higher is better, ``↓``
lower is better).
"""

from __future__ import annotations

import textwrap
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, GroupShuffleSplit, StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from threadpoolctl import threadpool_limits

from . import stats
from ._evaluator import RankingEvaluator
from ._registry import get_metric
from .datasets import make_ranking
from .metrics import evaluate
from .model_selection import QueryGroupKFold

LTR_METRICS = ["mrr", "map", "ndcg@10", "hits@10"]
CLASS_METRICS = ["mrr", "hits@1", "hits@3", "mr"]
ALPHA = 0.05
HELD_OUT_FRACTION = 1 / 3  # of the queries, for the leaderboard and the significance test
# The demo's prose is wrapped to an 88-column terminal, its continuation lines indented by four spaces
# (deeper than the tables' two, so that a reader and a parser tell a wrapped sentence from a row).
WIDTH = 88
CONTINUATION = " " * 4


def _direction(metric):
    """The metric's name with its direction from the registry: ``↑`` higher is better, ``↓`` lower."""
    return f"{metric} {'↑' if get_metric(metric).greater_is_better else '↓'}"


def _directions_legend(metrics):
    """What the arrows of ``_direction`` mean, for the directions among ``metrics``."""
    directions = {get_metric(m).greater_is_better for m in metrics}
    return "; ".join(text for better, text in ((True, "↑ higher is better"), (False, "↓ lower is better"))
                     if better in directions)


def _wrap(text, indent="", continuation=CONTINUATION):
    """``text`` as lines of at most ``WIDTH`` characters; words and hyphenated names are never cut."""
    return textwrap.wrap(text, width=WIDTH, initial_indent=indent, subsequent_indent=continuation,
                         break_long_words=False, break_on_hyphens=False)


def _leaderboard(reports, metrics, baselines):
    """The models' rows (mean ± std over queries), then the baselines' (``_baselines``) under a line of
    their own, in the same columns: the means only (a random order's spread over queries is not the
    spread of the per-query expectations printed here)."""
    random_report, constant_report = baselines
    ties = constant_report.params["ties"]
    rows = {"random ranking": random_report}
    if ties != "expected":
        rows[f"constant score ({ties})"] = constant_report
    name_width = max(len(n) for n in [*reports, *rows]) + 2
    header = f"{'model':<{name_width}}" + "".join(f"{_direction(m):>18}" for m in metrics)
    lines = [header, "-" * len(header)]
    for name, report in reports.items():
        cells = []
        for m in metrics:
            values = report.per_query[m]
            cells.append(f"{report.summary[m]:>10.4f} ± {np.std(values):<5.3f}")
        lines.append(f"{name:<{name_width}}" + "".join(f"{c:>18}" for c in cells))
    lines = ["  " + line for line in lines]
    # not indented: the caption ends the models' rows, for a reader and for a parser of the table
    lines += _wrap("Baselines without a model (exact means over the same queries; random ranking: the expectation "
                   "under a uniformly random order of each query's candidates):")
    lines += ["  " + (f"{name:<{name_width}}" + "".join(f"{report.summary[m]:>10.4f}" + " " * 8
                                                          for m in metrics)).rstrip()
              for name, report in rows.items()]
    if ties == "expected":
        # the sentence in the row's value columns, wrapped there
        lines += _wrap("the same numbers: under the demo's ties='expected' tied candidates count in every order, "
                       "equally likely", indent=f"  {'constant score':<{name_width}}",
                       continuation=" " * (name_width + 2))
    return lines


def _baselines(evaluate_scores, shape):
    """Reports of a constant scorer on the leaderboard's queries: under ``ties="expected"`` (the engine's
    exact expectation under a uniformly random order of each query's candidates, per query) and under the
    demo's own tie policy (``evaluate_scores``'s, as for the models)."""
    constant = np.zeros(shape)
    return evaluate_scores(constant, ties="expected"), evaluate_scores(constant)


def _verdict(reports, metric, of=""):
    ordered = sorted(reports, key=lambda n: reports[n].summary[metric], reverse=True)
    best, runner_up = ordered[0], ordered[1]
    result = stats.compare(reports[best], reports[runner_up], metric=metric)
    # `best` has the higher mean; a two-sided test says whether the gap is more than chance.
    verdict = (f"{best} beats {runner_up} significantly" if result.pvalue < ALPHA else
               f"no significant difference between {best} and {runner_up}")
    return _wrap(f"{best} vs {runner_up} on per-query {metric}{of}: {result.test} (paired), p = {result.pvalue:.3g}, "
                 f"{result.effect_size_name} = {result.effect_size:.3f} -> {verdict} at {ALPHA}.")


def split_queries(qid, random_state=0):
    """Row indices of the search set and of the held-out set: every query lies in one of them."""
    splitter = GroupShuffleSplit(n_splits=1, test_size=HELD_OUT_FRACTION, random_state=random_state)
    search_rows, held_out_rows = next(splitter.split(np.zeros((len(qid), 1)), groups=qid))
    return search_rows, held_out_rows


def learning_to_rank_section(random_state=0, figure_data=None):
    X, y, qid = make_ranking(n_queries=300, n_candidates=25, n_features=20, n_informative=10, noise=2.0,
                             relevant_fraction=0.12, random_state=random_state)
    # Query ids travel as column 0 of X: QueryGroupKFold and RankingEvaluator read them there.
    Xq = np.column_stack([qid, X])
    search_rows, held_out_rows = split_queries(qid, random_state=random_state)
    n_search, n_held_out = len(np.unique(qid[search_rows])), len(np.unique(qid[held_out_rows]))
    relevant_per_query = np.count_nonzero(y) / len(np.unique(qid))
    cv = QueryGroupKFold(5, qid=0)
    families = {
        "Ridge": (Ridge(), {"estimator__alpha": [0.1, 1.0, 10.0, 100.0]}),
        "HistGradientBoosting": (HistGradientBoostingRegressor(random_state=0),
                                 {"estimator__max_iter": [30, 60], "estimator__learning_rate": [0.1, 0.3]}),
    }
    lines = [line for text in (
        f"Learning to rank: make_ranking, {len(np.unique(qid))} queries x 25 candidates, "
        f"{X.shape[1]} features, grades 0-3",
        f"A query is one search session of make_ranking: its 25 candidate documents ({relevant_per_query:g} "
        "of them relevant on average, graded 1-3) ranked by the model's scores.",
        f"Queries split once: {n_search} to choose hyper-parameters, {n_held_out} held out to compare the "
        "chosen models.",
        f"Grid search on nDCG@10 with QueryGroupKFold(5) over the {n_search} search queries (a best CV score "
        "is optimistic: it chose the winner):") for line in _wrap(text)]
    reports = {}

    def evaluate_held_out(scores, **options):
        return evaluate(y[held_out_rows], scores, qid=qid[held_out_rows], metrics=LTR_METRICS, **options)

    for name, (model, grid) in families.items():
        search = GridSearchCV(RankingEvaluator(model, metric="ndcg@10", qid=0), grid, cv=cv)
        search.fit(Xq[search_rows], y[search_rows])
        params = ", ".join(f"{k.split('__', 1)[1]}={v}" for k, v in search.best_params_.items())
        lines.append(f"  {name:<22} best {params:<32} CV nDCG@10 {search.best_score_:.4f}")
        # The best configuration, refitted on all search queries, scores queries the search never saw.
        held_out_scores = search.best_estimator_.predict(Xq[held_out_rows])
        reports[name] = evaluate_held_out(held_out_scores)
        if figure_data is not None:
            figure_data.setdefault("ltr", {})[name] = (y[held_out_rows], held_out_scores, qid[held_out_rows])
    lines += _wrap(f"Leaderboard on the {n_held_out} held-out queries (best models refitted on the search queries; "
                   f"mean ± std over queries; {_directions_legend(LTR_METRICS)}):")
    lines += _leaderboard(reports, LTR_METRICS, _baselines(evaluate_held_out, len(held_out_rows)))
    lines += _verdict(reports, "ndcg@10", of=f" of the {n_held_out} held-out queries")
    if figure_data is not None:
        figure_data["ltr_reports"] = reports
    return lines


def classification_section(figure_data=None):
    digits = load_digits()
    X, y = digits.data / 16.0, digits.target
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    models = {"LogisticRegression": LogisticRegression(C=0.1, max_iter=300), "GaussianNB": GaussianNB()}
    reports = {}

    def evaluate_images(scores, **options):
        return evaluate(y, scores, labels=np.unique(y), metrics=CLASS_METRICS, **options)

    for name, model in models.items():
        proba = cross_val_predict(model, X, y, cv=cv, method="predict_proba")
        reports[name] = evaluate_images(proba)
        if figure_data is not None:
            figure_data.setdefault("classes", {})[name] = (y, proba, np.unique(y))
    lines = [line for text in (
        f"Rank of the true class: scikit-learn's digits, {len(y)} images x 10 classes, "
        "5-fold out-of-fold probabilities (fixed hyper-parameters, nothing tuned on these folds).",
        "A query is one image: its 10 candidate classes ranked by predicted probability, the true class the "
        "one relevant candidate (mr: its mean rank, 1 = top, lower is better).",
        f"Leaderboard (mean ± std over images; {_directions_legend(CLASS_METRICS)}):") for line in _wrap(text)]
    lines += _leaderboard(reports, CLASS_METRICS, _baselines(evaluate_images, (len(y), 10)))
    lines += _verdict(reports, "mrr")
    return lines


def run_demo(figure_data=None):
    """Run the demo and return its printed text; fill ``figure_data`` (a dict) for :func:`leaderboard_figure`."""
    start = time.perf_counter()
    lines = ["sklearn-rank demo", ""]
    # One thread per library: OpenMP workers that spin while other processes load the
    # machine slow the boosted trees down by orders of magnitude; the demo is small anyway.
    with threadpool_limits(1):
        lines += learning_to_rank_section(figure_data=figure_data)
        lines.append("")
        lines += classification_section(figure_data=figure_data)
    lines += ["", *_wrap(f"(done in {time.perf_counter() - start:.1f} s; ties='expected', queries without a "
                         "relevant item skipped)")]
    return "\n".join(lines) + "\n"


def leaderboard_figure(figure_data, figure_class):
    """The leaderboards as pictures, from the held-out scores :func:`run_demo` kept in ``figure_data``.

    Four panels: the hits@k curves of the two learning-to-rank models on the held-out queries, their
    per-query nDCG@10 (best model against the runner-up, paired by query), the hits@k curves of the
    two digit classifiers (rank of the true class) and the rank histogram of the better one.
    ``figure_class`` is :class:`matplotlib.figure.Figure` (drawn off screen, no pyplot).
    """
    from .plot import HitsAtKCurveDisplay, QueryComparisonDisplay, RankDistributionDisplay

    figure = figure_class(figsize=(13, 10.5), layout="constrained")
    (ltr_curve, ltr_pairs), (class_curve, class_ranks) = figure.subplots(2, 2)
    for i, (name, (y, scores, qid)) in enumerate(figure_data["ltr"].items()):
        HitsAtKCurveDisplay.from_predictions(y, scores, qid=qid, k=25, name=name, ax=ltr_curve,
                                             plot_baseline=i == 0)
    ltr_curve.set_title("Learning to rank: held-out queries")
    reports = figure_data["ltr_reports"]
    best, runner_up = sorted(reports, key=lambda n: reports[n].summary["ndcg@10"], reverse=True)[:2]
    QueryComparisonDisplay.from_reports(reports[best], reports[runner_up], metric="ndcg@10", name_a=best,
                                        name_b=runner_up, ax=ltr_pairs)
    ltr_pairs.set_title("Per-query nDCG@10, held-out queries")
    for i, (name, (y, proba, labels)) in enumerate(figure_data["classes"].items()):
        HitsAtKCurveDisplay.from_predictions(y, proba, labels=labels, name=name, ax=class_curve,
                                             plot_baseline=i == 0)
    class_curve.set_title("Rank of the true class: digits, out-of-fold")
    classes = figure_data["classes"]
    best_classifier = max(classes, key=lambda n: _mrr(*classes[n]))
    y, proba, labels = classes[best_classifier]
    RankDistributionDisplay.from_predictions(y, proba, labels=labels, name=best_classifier, ax=class_ranks)
    class_ranks.set_title(f"Rank of the true class: {best_classifier}")
    return figure


def _mrr(y, proba, labels):
    return evaluate(y, proba, labels=labels, metrics=["mrr"]).summary["mrr"]
