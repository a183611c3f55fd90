"""The scoring share of a multi-metric grid search: one-metric scorers against the one-pass scorer (issue 13).

Usage::

    python benchmarks/scoring_share.py            # 100,000 rows, 6 alphas x 5 folds, 4 metrics, ~1 minute
    python benchmarks/scoring_share.py --quick    # 25,000 rows
    python benchmarks/scoring_share.py --json benchmarks/results/scoring_share.json

The same ``GridSearchCV`` of ``Ridge`` (``QueryGroupKFold``, query ids routed, data from
``sklearn_rank.datasets.make_ranking``) is scored three ways:

- ``make_scorers(METRICS)``: a dict of one-metric scorers; scikit-learn calls each, so every
  fold is predicted and ranked once per metric;
- ``make_multimetric_scorer(METRICS)``: one predict and one engine call per fold;
- a function that only calls ``predict``: the floor, what any scoring costs with this model.

For each, scikit-learn's own timings are summed over candidates and folds
(``mean_fit_time`` and ``mean_score_time`` times the number of folds), and the scoring share is
scoring / (fitting + scoring). Each set-up runs once to warm up, then ``--repeat`` times,
interleaved with the others (so a busy moment of the machine hits all of them); the run with
the least wall time is reported. The two ranking set-ups must agree on every ``cv_results_``
value (exit status 1 otherwise).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from harness import describe_environment, fmt_s, log  # noqa: E402

METRICS = ["mrr", "map", "ndcg@10", "hits@5"]
FULL = dict(n_queries=2_000, n_candidates=50, n_features=20)
QUICK = dict(n_queries=500, n_candidates=50, n_features=20)


def predict_only(estimator, X, y):
    """The floor: what scoring costs when it only calls the model's predict."""
    return float(estimator.predict(X)[0])


def run(size, alphas, n_splits, repeat):
    import sklearn
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV

    from sklearn_rank import make_multimetric_scorer, make_scorers
    from sklearn_rank.datasets import make_ranking
    from sklearn_rank.model_selection import QueryGroupKFold

    X, y, qid = make_ranking(**size, random_state=0)
    setups = {
        "one-metric scorers": ("make_scorers(METRICS)", lambda: make_scorers(METRICS)),
        "one-pass scorer": ("make_multimetric_scorer(METRICS)", lambda: make_multimetric_scorer(METRICS)),
        "predict only": ("a function calling predict", lambda: predict_only),
    }

    def search(make_scoring):
        scoring = make_scoring()
        ranking = scoring is not predict_only
        routed = {"groups": qid, "qid": qid} if ranking else {"groups": qid}  # the floor requests no qid
        with sklearn.config_context(enable_metadata_routing=True):
            start = time.perf_counter()
            fitted = GridSearchCV(Ridge(), {"alpha": alphas}, scoring=scoring, refit=METRICS[2] if ranking else True,
                                  cv=QueryGroupKFold(n_splits), n_jobs=1).fit(X, y, **routed)
            return time.perf_counter() - start, fitted

    runs = {key: [] for key in setups}
    for key, (_, make_scoring) in setups.items():
        search(make_scoring)  # warm-up
    for _ in range(repeat):
        for key, (_, make_scoring) in setups.items():
            runs[key].append(search(make_scoring))

    n_scorings = len(alphas) * n_splits
    out = {"n_rows": int(len(y)), "n_queries": size["n_queries"], "n_features": size["n_features"],
           "alphas": list(alphas), "n_splits": n_splits, "metrics": METRICS, "repeat": repeat, "setups": {}}
    best = {}
    for key, (label, _) in setups.items():
        wall, fitted = min(runs[key], key=lambda run_: run_[0])
        best[key] = fitted
        cv = fitted.cv_results_
        fit_total = float(np.sum(cv["mean_fit_time"]) * n_splits)
        score_total = float(np.sum(cv["mean_score_time"]) * n_splits)
        out["setups"][key] = {
            "scoring": label, "wall": wall, "walls": [seconds for seconds, _ in runs[key]], "fit_total": fit_total,
            "score_total": score_total, "score_share": score_total / (fit_total + score_total),
            "score_share_of_wall": score_total / wall, "per_scoring_call": score_total / n_scorings,
        }
    # The two ranking set-ups report the same numbers.
    diffs = [float(np.max(np.abs(best["one-metric scorers"].cv_results_[f"mean_test_{name}"]
                                 - best["one-pass scorer"].cv_results_[f"mean_test_{name}"]))) for name in METRICS]
    out["max_abs_difference"] = max(diffs)
    out["same_best_params"] = best["one-metric scorers"].best_params_ == best["one-pass scorer"].best_params_
    before, after = out["setups"]["one-metric scorers"], out["setups"]["one-pass scorer"]
    out["scoring_speedup"] = before["score_total"] / after["score_total"]
    return out


def print_table(res):
    log(f"GridSearchCV(Ridge(), {len(res['alphas'])} alphas) x QueryGroupKFold({res['n_splits']}), "
        f"{res['n_rows']:,} rows ({res['n_queries']:,} queries, {res['n_features']} features), metrics "
        f"{', '.join(res['metrics'])}; best wall of {res['repeat']} runs")
    header = f"{'set-up':<20} {'wall':>9} {'fitting':>9} {'scoring':>9} {'share':>7} {'per call':>9}"
    log(header)
    log("-" * len(header))
    for key, row in res["setups"].items():
        log(f"{key:<20} {fmt_s(row['wall']):>9} {fmt_s(row['fit_total']):>9} {fmt_s(row['score_total']):>9} "
            f"{100 * row['score_share']:>6.1f}% {fmt_s(row['per_scoring_call']):>9}")
    log(f"scoring {res['scoring_speedup']:.2f}x faster with the one-pass scorer; same best parameters: "
        f"{res['same_best_params']}; largest difference of a mean test score: {res['max_abs_difference']:.1e}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="500 queries instead of 2,000")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per set-up (default: 3)")
    parser.add_argument("--json", help="write the measurements and the machine description to this JSON file")
    args = parser.parse_args(argv)
    command = " ".join(["python", "benchmarks/scoring_share.py", *(argv if argv is not None else sys.argv[1:])])
    started = time.perf_counter()
    res = run(QUICK if args.quick else FULL, list(np.logspace(-2, 3, 6)), 5, args.repeat)
    print_table(res)
    log(f"total {time.perf_counter() - started:.0f} s; command: {command}")
    if args.json:
        payload = {"command": command, "environment": describe_environment(), "results": res}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(payload, indent=1, default=str))
        log(f"results written to {args.json}")
    agree = res["max_abs_difference"] <= 1e-12 and res["same_best_params"]
    if not agree:
        log("DISAGREEMENT between the one-metric scorers and the one-pass scorer")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
