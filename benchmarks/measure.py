"""The five measured workloads: each builds its data with ``workloads.py``, times sklearn-rank and its
peers on it in this process, and records how far their values agree.

Each ``workload_N(cfg, ...)`` returns a dictionary of measurements (the ``results`` of ``run.py``'s
JSON file); ``cfg`` is ``run.FULL`` or ``run.QUICK``.
"""

from __future__ import annotations

import gc
import json
import shutil
import sys
import time

import numpy as np

import sklearn_rank
import workloads as wl
from harness import best_of, fmt_bytes, fmt_s, log, max_abs_diff, run_command, traced_peak
from peers import METRICS, RANX_METRICS, TREC_METRICS, pytrec_evaluate, ranx_evaluate, ranx_first_use
from sklearn_rank import evaluate

LINK_METRICS = ["mr", "mrr", "hits@1", "hits@3", "hits@10"]


# ------------------------------------------------------------------------------------------------
# Workload 1: grouped rows (and the TREC command line)
# ------------------------------------------------------------------------------------------------
def workload_1(cfg, peers, workdir):
    n_queries, n_candidates = cfg["w1"]
    R, Rs = cfg["repeat"], cfg["repeat_slow"]
    log(f"[1] grouped rows: {n_queries:,} queries x {n_candidates:,} candidates")
    w = wl.grouped_rows(n_queries, n_candidates)
    res = {"n_queries": n_queries, "n_candidates": n_candidates, "n_rows": w.n_rows,
           "relevant_per_query": float((w.y_true > 0).sum() / n_queries),
           "tied_pairs": wl.count_tied_pairs(w.y_score, n_queries, n_candidates),
           "input_bytes": w.nbytes, "times": {}, "agreement": {}}
    T = res["times"]

    def skr():
        return evaluate(w.y_true, w.y_score, qid=w.qid, metrics=METRICS)

    T["sklearn-rank evaluate"], res["sklearn-rank runs"], report = best_of(skr, R, warmup=1)
    res["summary"] = dict(report.summary)
    res["sklearn-rank peak_bytes"] = traced_peak(skr)
    log(f"    sklearn-rank evaluate        {fmt_s(T['sklearn-rank evaluate'])}  "
        f"(peak extra memory {fmt_bytes(res['sklearn-rank peak_bytes'])})")
    T["numpy argsort"] = best_of(lambda: np.argsort(w.y_score), R, warmup=1)[0]
    T["numpy argsort stable"] = best_of(lambda: np.argsort(w.y_score, kind="stable"), Rs, warmup=1)[0]
    log(f"    numpy argsort (default kind) {fmt_s(T['numpy argsort'])}; stable {fmt_s(T['numpy argsort stable'])}")

    if peers:
        start = time.perf_counter()
        run_dict, qrels_dict = wl.peer_dicts(w)
        T["arrays to dicts"] = time.perf_counter() - start
        log(f"    arrays -> string-keyed dicts {fmt_s(T['arrays to dicts'])} (ranx and pytrec_eval input)")
    if "ranx" in peers:
        ranx = peers["ranx"]
        res["ranx first use"] = ranx_first_use(ranx)
        T["ranx build"], _, (run, qrels) = best_of(
            lambda: (ranx.Run.from_dict(run_dict), ranx.Qrels.from_dict(qrels_dict)), cfg["repeat_build"])
        T["ranx evaluate"], _, ranx_means = best_of(lambda: ranx_evaluate(ranx, qrels, run), R, warmup=1)
        T["ranx end to end"] = T["arrays to dicts"] + T["ranx build"] + T["ranx evaluate"]
        names = wl.query_names(n_queries)
        res["agreement"]["ranx"] = {
            m: max(abs(float(ranx_means[RANX_METRICS[m]]) - report.summary[m]),
                   max_abs_diff([run.scores[RANX_METRICS[m]][q] for q in names], report.per_query[m]))
            for m in METRICS}
        log(f"    ranx build {fmt_s(T['ranx build'])}, evaluate {fmt_s(T['ranx evaluate'])}, "
            f"first use +{fmt_s(res['ranx first use']['first_use_overhead'])}; "
            f"max |diff| {max(res['agreement']['ranx'].values()):.1e}")
        del run, qrels
        gc.collect()
    if "pytrec_eval" in peers:
        pytrec_eval = peers["pytrec_eval"]
        T["pytrec_eval evaluate"], _, (means, per_query) = best_of(
            lambda: pytrec_evaluate(pytrec_eval, qrels_dict, run_dict), Rs, warmup=1)
        T["pytrec_eval end to end"] = T["arrays to dicts"] + T["pytrec_eval evaluate"]
        names = wl.query_names(n_queries)
        res["agreement"]["pytrec_eval"] = {
            m: max(abs(means[m] - report.summary[m]),
                   max_abs_diff([per_query[q][TREC_METRICS[m]] for q in names], report.per_query[m]))
            for m in METRICS}
        log(f"    pytrec_eval evaluate {fmt_s(T['pytrec_eval evaluate'])}; "
            f"max |diff| {max(res['agreement']['pytrec_eval'].values()):.1e}")
        del per_query
    if peers:
        del run_dict, qrels_dict
        gc.collect()
    res["cli"] = workload_1_cli(w, cfg, peers, workdir, report)
    return res


def workload_1_cli(w, cfg, peers, workdir, report):
    """The same workload from TREC files: sklearn-rank's command line (a new process each time,
    trec_eval's tie rule) against the peers' file readers in this process."""
    qrels_path, run_path = workdir / "bench.qrels", workdir / "bench.run"
    start = time.perf_counter()
    wl.write_trec_files(w, qrels_path, run_path)
    res = {"run_file_bytes": run_path.stat().st_size, "write_seconds": time.perf_counter() - start,
           "times": {}, "agreement": {}}
    T = res["times"]
    log(f"    TREC files written ({fmt_bytes(res['run_file_bytes'])} run file) in {fmt_s(res['write_seconds'])}")
    argv = [sys.executable, "-m", "sklearn_rank", "evaluate", str(qrels_path), str(run_path),
            "-m", *METRICS, "--format", "json"]
    res["command"] = "sklearn-rank evaluate bench.qrels bench.run -m mrr map ndcg@10 --format json"
    runs = [run_command(argv) for _ in range(cfg["repeat_cli"])]
    seconds, out, err, code, rss = min(runs, key=lambda r: r[0])
    if code != 0:
        res["error"] = err.strip()
        log(f"    sklearn-rank CLI failed: {err.strip()[-300:]}")
        return res
    T["sklearn-rank CLI"] = seconds
    res["sklearn-rank CLI peak_rss_bytes"] = rss
    cli_summary = json.loads(out)["summary"]
    res["agreement"]["in-memory evaluate"] = {m: abs(cli_summary[m] - report.summary[m]) for m in METRICS}
    log(f"    sklearn-rank CLI {fmt_s(seconds)} (new process, peak RSS {fmt_bytes(rss)})")
    if "pytrec_eval" in peers:
        pytrec_eval = peers["pytrec_eval"]

        def from_files():
            with open(qrels_path) as fq, open(run_path) as fr:
                qrels_dict, run_dict = pytrec_eval.parse_qrel(fq), pytrec_eval.parse_run(fr)
            return pytrec_evaluate(pytrec_eval, qrels_dict, run_dict)[0]

        T["pytrec_eval from files"], _, means = best_of(from_files, cfg["repeat_cli"])
        res["agreement"]["pytrec_eval"] = {m: abs(cli_summary[m] - means[m]) for m in METRICS}
        log(f"    pytrec_eval parse + evaluate {fmt_s(T['pytrec_eval from files'])}")
    if "ranx" in peers:
        ranx = peers["ranx"]

        def ranx_files():
            qrels = ranx.Qrels.from_file(str(qrels_path), kind="trec")
            run = ranx.Run.from_file(str(run_path), kind="trec")
            return ranx_evaluate(ranx, qrels, run)

        T["ranx from files"], _, means = best_of(ranx_files, 1)
        res["agreement"]["ranx"] = {m: abs(cli_summary[m] - float(means[RANX_METRICS[m]])) for m in METRICS}
        log(f"    ranx from_file + evaluate {fmt_s(T['ranx from files'])}")
    trec_eval = shutil.which("trec_eval")
    if trec_eval:
        argv = [trec_eval, "-m", "recip_rank", "-m", "map", "-m", "ndcg_cut.10", str(qrels_path), str(run_path)]
        T["trec_eval binary"] = min(run_command(argv)[0] for _ in range(cfg["repeat_cli"]))
    else:
        res["trec_eval binary"] = "not on PATH: not timed"
    for path in (qrels_path, run_path):
        path.unlink()
    return res


# ------------------------------------------------------------------------------------------------
# Workload 2: label index (link prediction)
# ------------------------------------------------------------------------------------------------
def workload_2(cfg):
    n_queries, n_entities, n_filtered = cfg["w2"]
    R = cfg["repeat"]
    log(f"[2] label index: {n_queries:,} x {n_entities:,} float32 scores, ~{n_filtered} filtered per row")
    w = wl.label_index(n_queries, n_entities, n_filtered=n_filtered)
    res = {"n_queries": n_queries, "n_entities": n_entities, "matrix_bytes": w.scores.nbytes,
           "mask_nnz": int(w.exclude.nnz), "mask_bytes": w.mask_nbytes, "times": {}}
    T = res["times"]

    def skr():
        return evaluate(w.target, w.scores, exclude=w.exclude, metrics=LINK_METRICS)

    T["sklearn-rank evaluate"], _, report = best_of(skr, R, warmup=1)
    res["summary"] = dict(report.summary)
    res["extra_peak_bytes"] = traced_peak(skr)
    T["sklearn-rank evaluate, no filter"] = best_of(
        lambda: evaluate(w.target, w.scores, metrics=LINK_METRICS), R, warmup=1)[0]
    # The same filter as a dense boolean mask (a quarter of the float32 matrix's bytes).
    dense = w.exclude.toarray()
    T["sklearn-rank evaluate, dense filter"], _, dense_report = best_of(
        lambda: evaluate(w.target, w.scores, exclude=dense, metrics=LINK_METRICS), R, warmup=1)
    del dense
    T["scores.sum()"] = best_of(w.scores.sum, R, warmup=1)[0]
    reference, tied_rows = wl.label_index_reference(w)
    res["tied_rows"] = tied_rows
    res["agreement"] = {"reference": {m: abs(reference[m] - report.summary[m]) / max(1.0, abs(reference[m]))
                                      for m in LINK_METRICS},
                        "reference (dense filter)": {
                            m: abs(reference[m] - dense_report.summary[m]) / max(1.0, abs(reference[m]))
                            for m in LINK_METRICS}}
    log(f"    sklearn-rank {fmt_s(T['sklearn-rank evaluate'])} "
        f"(no filter {fmt_s(T['sklearn-rank evaluate, no filter'])}, "
        f"dense filter {fmt_s(T['sklearn-rank evaluate, dense filter'])}),"
        f" scores.sum() {fmt_s(T['scores.sum()'])}, extra memory {fmt_bytes(res['extra_peak_bytes'])} "
        f"({100 * res['extra_peak_bytes'] / w.scores.nbytes:.1f}% of the matrix)")
    return res


# ------------------------------------------------------------------------------------------------
# Workload 3: relevance matrix against scikit-learn
# ------------------------------------------------------------------------------------------------
def workload_3(cfg):
    from sklearn.metrics import ndcg_score as sk_ndcg

    n_queries, n_candidates = cfg["w3"]
    R = cfg["repeat"]
    log(f"[3] relevance matrix: {n_queries:,} x {n_candidates:,} graded, nDCG@10")
    y_true, y_score, y_tied = wl.relevance_matrix(n_queries, n_candidates)
    res = {"n_queries": n_queries, "n_candidates": n_candidates, "times": {}, "agreement": {}}
    T = res["times"]
    for label, scores in (("", y_score), (" (tied scores)", y_tied)):
        T["sklearn-rank ndcg_score" + label], _, ours = best_of(
            lambda: sklearn_rank.ndcg_score(y_true, scores, k=10), R, warmup=1)
        T["sklearn ndcg_score" + label], _, theirs = best_of(
            lambda: sk_ndcg(y_true, scores, k=10), cfg["repeat_slow"], warmup=1)
        res["agreement"]["sklearn" + label] = abs(ours - theirs)
        if not label:
            T["sklearn ndcg_score ignore_ties=True"], _, fast = best_of(
                lambda: sk_ndcg(y_true, scores, k=10, ignore_ties=True), R, warmup=1)
            res["agreement"]["sklearn ignore_ties=True"] = abs(ours - fast)
            res["ndcg@10"] = ours
        log(f"    sklearn-rank {fmt_s(T['sklearn-rank ndcg_score' + label])}, "
            f"sklearn {fmt_s(T['sklearn ndcg_score' + label])}{label}; |diff| {abs(ours - theirs):.1e}")
    return res


# ------------------------------------------------------------------------------------------------
# Workload 4: scaling
# ------------------------------------------------------------------------------------------------
def workload_4(cfg, peers, w1_result):
    n_candidates = 1_000
    log(f"[4] scaling: grouped rows, {n_candidates:,} candidates per query, "
        f"{cfg['w4'][0]:,} to {cfg['w4'][-1]:,} rows")
    points = []
    for n_rows in cfg["w4"]:
        n_queries = n_rows // n_candidates
        point = {"n_rows": n_rows, "n_queries": n_queries}
        if w1_result is not None and (w1_result["n_queries"], w1_result["n_candidates"]) == (n_queries, n_candidates):
            # The same generator and seed: workload 1 is this point.
            t = w1_result["times"]
            point.update({"sklearn-rank": t["sklearn-rank evaluate"], "numpy argsort": t["numpy argsort"],
                          "ranx evaluate": t.get("ranx evaluate"),
                          "pytrec_eval evaluate": t.get("pytrec_eval evaluate"),
                          "from": "workload 1"})
            points.append(point)
            log(f"    {n_rows:>11,} rows: from workload 1")
            continue
        w = wl.grouped_rows(n_queries, n_candidates)
        repeat = cfg["repeat"] if n_rows >= 10**6 else min(50, cfg["repeat"] * 10**6 // n_rows)
        point["sklearn-rank"] = best_of(lambda: evaluate(w.y_true, w.y_score, qid=w.qid, metrics=METRICS),
                                        repeat, warmup=1)[0]
        point["numpy argsort"] = best_of(lambda: np.argsort(w.y_score), repeat, warmup=1)[0]
        if peers and n_rows <= cfg["w4_peer_max"]:
            run_dict, qrels_dict = wl.peer_dicts(w)
            if "ranx" in peers:
                ranx = peers["ranx"]
                run, qrels = ranx.Run.from_dict(run_dict), ranx.Qrels.from_dict(qrels_dict)
                point["ranx evaluate"] = best_of(lambda: ranx_evaluate(ranx, qrels, run), repeat, warmup=1)[0]
                del run, qrels
            if "pytrec_eval" in peers:
                point["pytrec_eval evaluate"] = best_of(
                    lambda: pytrec_evaluate(peers["pytrec_eval"], qrels_dict, run_dict),
                    min(repeat, cfg["repeat_slow"]), warmup=1)[0]
            del run_dict, qrels_dict
        points.append(point)
        log(f"    {n_rows:>11,} rows: sklearn-rank {fmt_s(point['sklearn-rank'])}, "
            f"argsort {fmt_s(point['numpy argsort'])}")
    return {"n_candidates": n_candidates, "points": points, "growth": growth(points)}


def growth(points, low=10**5):
    """Fitted exponent of time ~ n^a over n >= low, next to n log n's over the same range."""
    sel = [p for p in points if p["n_rows"] >= low]
    if len(sel) < 2:
        return None
    n = np.array([p["n_rows"] for p in sel], dtype=float)
    out = {"range": [int(n.min()), int(n.max())],
           "n log n exponent": float(np.polyfit(np.log(n), np.log(n * np.log2(n)), 1)[0])}
    for key in ("sklearn-rank", "numpy argsort"):
        t = np.array([p[key] for p in sel])
        out[key + " exponent"] = float(np.polyfit(np.log(n), np.log(t), 1)[0])
        out[key + " ns per row"] = [float(x) for x in 1e9 * t / n]
    return out


# ------------------------------------------------------------------------------------------------
# Workload 5: grid search
# ------------------------------------------------------------------------------------------------
def workload_5(cfg):
    """Two ways to search a Ridge ranker, each with a predict-only baseline search.

    ``score_time`` of scikit-learn covers the model's predict as well as the metric; the baseline
    search scores with a function that only calls predict, so the difference is what
    sklearn-rank adds.
    """
    import sklearn
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV

    from sklearn_rank import RankingEvaluator, make_ranking_scorer
    from sklearn_rank.datasets import make_ranking
    from sklearn_rank.model_selection import QueryGroupKFold

    size = cfg["w5"]
    n_grid, n_splits = 20, 5
    alphas = np.logspace(-3, 3, n_grid)
    log(f"[5] GridSearchCV of Ridge, {n_grid} alphas x {n_splits} folds (QueryGroupKFold), nDCG@10, "
        f"make_ranking({size['n_queries']:,} queries x {size['n_candidates']} rows, {size['n_features']} features)")
    frame, y_frame, _ = make_ranking(**size, random_state=0, as_frame=True)
    X, y, qid = make_ranking(**size, random_state=0)

    def predict_only(estimator, X_test, y_test):
        return float(estimator.predict(X_test)[0])

    def frame_search(baseline):
        if baseline:  # the same model and frame without the query-id column, scored by predict alone
            return GridSearchCV(Ridge(), {"alpha": alphas}, cv=QueryGroupKFold(n_splits), scoring=predict_only,
                                n_jobs=1).fit(frame.drop(columns="qid"), y_frame, groups=frame["qid"])
        return GridSearchCV(RankingEvaluator(Ridge(), metric="ndcg@10"), {"estimator__alpha": alphas},
                            cv=QueryGroupKFold(n_splits), n_jobs=1).fit(frame, y_frame)

    def array_search(baseline):
        with sklearn.config_context(enable_metadata_routing=True):
            if baseline:
                return GridSearchCV(Ridge(), {"alpha": alphas}, cv=QueryGroupKFold(n_splits), scoring=predict_only,
                                    n_jobs=1).fit(X, y, groups=qid)
            return GridSearchCV(Ridge(), {"alpha": alphas}, cv=QueryGroupKFold(n_splits),
                                scoring=make_ranking_scorer("ndcg@10"), n_jobs=1).fit(X, y, qid=qid, groups=qid)

    setups = {
        "evaluator": ("GridSearchCV(RankingEvaluator(Ridge(), metric='ndcg@10')).fit(frame, y), query ids in "
                      "the frame's qid column", frame_search),
        "scorer": ("GridSearchCV(Ridge(), scoring=make_ranking_scorer('ndcg@10')).fit(X, y, qid=qid, "
                   "groups=qid), arrays, query ids routed", array_search),
    }
    res = {"n_rows": int(len(y)), "n_candidates": n_grid, "n_splits": n_splits, "setups": {}}
    n_scorings = n_grid * n_splits
    for key, (label, search) in setups.items():
        out = {"label": label}
        for part in ("search", "baseline"):
            search(part == "baseline")  # warm-up
            runs = []
            for _ in range(cfg["repeat_slow"]):
                start = time.perf_counter()
                fitted = search(part == "baseline")
                runs.append((time.perf_counter() - start, fitted))
            walls = [seconds for seconds, _ in runs]
            wall, fitted = min(runs, key=lambda run: run[0])  # the shares come from the least disturbed run
            cv = fitted.cv_results_
            fit_total = float(np.sum(cv["mean_fit_time"]) * n_splits)
            score_total = float(np.sum(cv["mean_score_time"]) * n_splits)
            out[part] = {"wall": wall, "walls": walls, "fit_total": fit_total, "score_total": score_total,
                         "score_share": score_total / wall, "one_score": score_total / n_scorings}
        search_, base = out["search"], out["baseline"]
        # What sklearn-rank adds to each scoring call, beyond the model's predict and scikit-learn's own
        # scoring machinery (both in the baseline).
        out["added_per_score"] = max(search_["one_score"] - base["one_score"], 0.0)
        out["added_share"] = out["added_per_score"] * n_scorings / search_["wall"]
        out["predict_share"] = base["score_total"] / search_["wall"]
        res["setups"][key] = out
        log(f"    {key}: wall {fmt_s(search_['wall'])}, fitting {fmt_s(search_['fit_total'])}, scoring "
            f"{fmt_s(search_['score_total'])} ({100 * search_['score_share']:.1f}%); predict-only baseline "
            f"scoring {fmt_s(base['score_total'])}; sklearn-rank adds {fmt_s(out['added_per_score'])} per "
            f"score ({100 * out['added_share']:.1f}% of the wall time)")
    # One evaluate call on a test fold's predictions, for scale.
    _, test = next(QueryGroupKFold(n_splits).split(X, y, groups=qid))
    predictions = Ridge().fit(X, y).predict(X[test])
    res["test_rows"] = int(len(test))
    res["one_metric"] = best_of(lambda: evaluate(y[test], predictions, qid=qid[test], metrics=["ndcg@10"]),
                                cfg["repeat"] * 4, warmup=1)[0]
    log(f"    one sklearn_rank.evaluate on {len(test):,} rows (outside the search): {fmt_s(res['one_metric'])}")
    return res
