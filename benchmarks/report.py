"""The report: targets of issue 6, cross-check failures, the printed table, the reStructuredText
tables of ``docs/performance.rst`` and the scaling figure.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import numpy as np

from harness import fmt_bytes, fmt_s, log

AGREEMENT_TOL = 1e-9   # cross-library: different summation orders
IDENTICAL_TOL = 1e-12  # "identical values" of workload 3


# ------------------------------------------------------------------------------------------------
# Targets and report
# ------------------------------------------------------------------------------------------------
def targets(results):
    """(target, measured, goal, met) rows; the ratios are taken within this one run."""
    rows = []

    def add(name, value, goal, met, fmt="{:.2f}x"):
        rows.append({"target": name, "measured": None if value is None else fmt.format(value), "goal": goal,
                     "met": met, "value": value})

    w1 = results.get("1")
    if w1:
        t = w1["times"]
        ours = t["sklearn-rank evaluate"]
        for key, goal, name in (("ranx evaluate", 3, "W1 faster than ranx warm evaluate"),
                                ("ranx end to end", 10, "W1 faster than ranx end to end from arrays"),
                                ("pytrec_eval evaluate", 5, "W1 faster than pytrec_eval evaluate")):
            if key in t:
                ratio = t[key] / ours
                add(name, ratio, f">= {goal}x", ratio >= goal)
            else:
                add(name, None, f">= {goal}x", None)
        ratio = ours / t["numpy argsort"]
        add("W1 time / one numpy argsort of as many keys", ratio, "<= 3x", ratio <= 3)
    w2 = results.get("2")
    if w2:
        ratio = w2["times"]["sklearn-rank evaluate"] / w2["times"]["scores.sum()"]
        add("W2 time / one pass over the matrix (scores.sum())", ratio, "<= 3x", ratio <= 3)
        if "sklearn-rank evaluate, dense filter" in w2["times"]:
            ratio = w2["times"]["sklearn-rank evaluate, dense filter"] / w2["times"]["scores.sum()"]
            add("W2 with a dense boolean filter / scores.sum()", ratio, "<= 3x", ratio <= 3)
        share = w2["extra_peak_bytes"] / w2["matrix_bytes"]
        add("W2 extra memory / matrix size", 100 * share, "< 10%", share < 0.10, fmt="{:.1f}%")
    w3 = results.get("3")
    if w3:
        t = w3["times"]
        ratio = t["sklearn ndcg_score"] / t["sklearn-rank ndcg_score"]
        identical = w3["agreement"]["sklearn"] <= IDENTICAL_TOL
        add("W3 faster than sklearn.metrics.ndcg_score (identical values)", ratio, ">= 5x",
            ratio >= 5 and identical)
    w4 = results.get("4")
    if w4 and w4["growth"]:
        g = w4["growth"]
        add(f"W4 growth exponent {g['range'][0]:.0e}-{g['range'][1]:.0e} rows (n log n: "
            f"{g['n log n exponent']:.3f})", g["sklearn-rank exponent"], "n log n or better",
            g["sklearn-rank exponent"] <= g["n log n exponent"] + 0.05, fmt="{:.3f}")
    w5 = results.get("5")
    if w5:
        for key, name in (("scorer", "W5 scoring share, ranking scorer on arrays"),
                          ("evaluator", "W5 scoring share, RankingEvaluator on a DataFrame")):
            share = w5["setups"][key]["search"]["score_share"]
            add(name, 100 * share, "< 10%", share < 0.10, fmt="{:.1f}%")
    return rows


def agreement_failures(results):
    failures = []
    for key, res in results.items():
        if not isinstance(res, dict):
            continue
        blocks = [("", res.get("agreement", {}))]
        if isinstance(res.get("cli"), dict):
            blocks.append(("CLI ", res["cli"].get("agreement", {})))
        for prefix, agreement in blocks:
            for peer, diffs in agreement.items():
                values = diffs.values() if isinstance(diffs, dict) else [diffs]
                tol = IDENTICAL_TOL if key == "3" else AGREEMENT_TOL
                if max(values) > tol:
                    failures.append(f"workload {key} {prefix}vs {peer}: max |diff| {max(values):.2e} > {tol:.0e}")
    return failures


def print_report(results, env, target_rows):
    log()
    log("=" * 100)
    log(f"machine: {env['cpu']}, {env['cores']} cores, {env['memory_gib']} GiB; Python {env['python']}; "
        + ", ".join(f"{k} {v}" for k, v in env["versions"].items() if v))
    blas = env["blas"]
    log(f"BLAS: {blas}; OPENBLAS_CORETYPE={env['OPENBLAS_CORETYPE']}; git {env['git_commit']}"
        f"{' + uncommitted engine changes' if env['engine_uncommitted_changes'] else ''}")
    log("import time: " + ", ".join(f"{k} {fmt_s(v)}" for k, v in env["import_seconds"].items()))
    log("=" * 100)
    w1 = results.get("1")
    if w1:
        t = w1["times"]
        ours = t["sklearn-rank evaluate"]
        log(f"Workload 1: grouped rows, {w1['n_queries']:,} x {w1['n_candidates']:,} = {w1['n_rows']:,} rows, "
            f"{w1['relevant_per_query']:.2f} relevant per query, {w1['tied_pairs']} tied pairs; "
            f"MRR + MAP + nDCG@10")
        log(f"  {'measurement':<44} {'best':>10} {'/ sklearn-rank':>15}")
        for key in ("sklearn-rank evaluate", "numpy argsort", "numpy argsort stable", "arrays to dicts",
                    "ranx build", "ranx evaluate", "ranx end to end", "pytrec_eval evaluate",
                    "pytrec_eval end to end"):
            if key in t:
                log(f"  {key:<44} {fmt_s(t[key]):>10} {t[key] / ours:>14.2f}x")
        log(f"  sklearn-rank peak extra memory (tracemalloc): {fmt_bytes(w1['sklearn-rank peak_bytes'])} "
            f"(inputs {fmt_bytes(w1['input_bytes'])})")
        if "ranx first use" in w1:
            overhead = w1["ranx first use"]["first_use_overhead"]
            log(f"  ranx first use in a process (numba cache on disk): +{fmt_s(overhead)}")
        if "ranx cold compile" in results:
            c = results["ranx cold compile"]
            if "error" in c:
                log(f"  ranx cold compile: failed ({c['error']})")
            else:
                log(f"  ranx first use with an empty numba cache: import {fmt_s(c['import'])}, first build "
                    f"{fmt_s(c['first_build'])}, first evaluate {fmt_s(c['first_evaluate'])} (tiny data)")
        cli = w1.get("cli", {})
        if cli.get("times"):
            ct = cli["times"]
            log(f"  From TREC files ({fmt_bytes(cli['run_file_bytes'])} run file):")
            for key in ("sklearn-rank CLI", "pytrec_eval from files", "ranx from files", "trec_eval binary"):
                if key in ct:
                    log(f"  {key:<44} {fmt_s(ct[key]):>10} {ct[key] / ct['sklearn-rank CLI']:>14.2f}x")
        for peer, diffs in w1["agreement"].items():
            log(f"  agreement with {peer}: max |diff| per metric " +
                ", ".join(f"{m} {d:.1e}" for m, d in diffs.items()))
        for peer, diffs in cli.get("agreement", {}).items():
            log(f"  CLI agreement with {peer}: " + ", ".join(f"{m} {d:.1e}" for m, d in diffs.items()))
    w2 = results.get("2")
    if w2:
        t = w2["times"]
        log(f"Workload 2: label index, {w2['n_queries']:,} x {w2['n_entities']:,} float32 "
            f"({fmt_bytes(w2['matrix_bytes'])}), CSR filter with {w2['mask_nnz']:,} entries "
            f"({fmt_bytes(w2['mask_bytes'])}); MR + MRR + hits@1/3/10; {w2['tied_rows']} rows with ties")
        for key in ("sklearn-rank evaluate", "sklearn-rank evaluate, no filter",
                    "sklearn-rank evaluate, dense filter", "scores.sum()"):
            if key in t:  # results saved before the dense row lack it
                log(f"  {key:<44} {fmt_s(t[key]):>10} {t[key] / t['scores.sum()']:>14.2f}x of sum")
        log(f"  extra memory (tracemalloc peak): {fmt_bytes(w2['extra_peak_bytes'])} = "
            f"{100 * w2['extra_peak_bytes'] / w2['matrix_bytes']:.2f}% of the matrix")
        for name, diffs in w2["agreement"].items():
            log(f"  agreement with the {name} (relative): " + ", ".join(f"{m} {d:.1e}" for m, d in diffs.items()))
    w3 = results.get("3")
    if w3:
        t = w3["times"]
        log(f"Workload 3: relevance matrix {w3['n_queries']:,} x {w3['n_candidates']}, nDCG@10 = {w3['ndcg@10']:.6f}")
        for key in t:
            ref = t["sklearn-rank ndcg_score" + (" (tied scores)" if "tied" in key else "")]
            log(f"  {key:<44} {fmt_s(t[key]):>10} {t[key] / ref:>14.2f}x")
        log("  |diff| with scikit-learn: " + ", ".join(f"{k} {v:.1e}" for k, v in w3["agreement"].items()))
    w4 = results.get("4")
    if w4:
        log(f"Workload 4: scaling (grouped rows, {w4['n_candidates']} candidates per query)")
        log(f"  {'rows':>11} {'sklearn-rank':>13} {'ns/row':>7} {'argsort':>10} {'ranx eval':>10} {'pytrec eval':>12}")
        for p in w4["points"]:
            log(f"  {p['n_rows']:>11,} {fmt_s(p['sklearn-rank']):>13} {1e9 * p['sklearn-rank'] / p['n_rows']:>7.0f} "
                f"{fmt_s(p['numpy argsort']):>10} {fmt_s(p.get('ranx evaluate')):>10} "
                f"{fmt_s(p.get('pytrec_eval evaluate')):>12}")
        if w4["growth"]:
            g = w4["growth"]
            log(f"  fitted exponent over {g['range'][0]:,}-{g['range'][1]:,} rows: sklearn-rank "
                f"{g['sklearn-rank exponent']:.3f}, argsort {g['numpy argsort exponent']:.3f}, "
                f"n log n {g['n log n exponent']:.3f}")
    w5 = results.get("5")
    if w5:
        log(f"Workload 5: GridSearchCV of Ridge, {w5['n_candidates']} candidates x {w5['n_splits']} folds on "
            f"{w5['n_rows']:,} rows, nDCG@10; one evaluate on {w5['test_rows']:,} rows: {fmt_s(w5['one_metric'])}")
        for key, out in w5["setups"].items():
            search_, base = out["search"], out["baseline"]
            log(f"  {key:9s}: wall {fmt_s(search_['wall'])}, fit {fmt_s(search_['fit_total'])}, score "
                f"{fmt_s(search_['score_total'])} ({100 * search_['score_share']:.1f}%); predict-only scoring "
                f"{fmt_s(base['score_total'])} ({100 * out['predict_share']:.1f}%); sklearn-rank adds "
                f"{fmt_s(out['added_per_score'])} per score ({100 * out['added_share']:.1f}%)")
    log("-" * 100)
    log(f"  {'target':<72} {'measured':>9} {'goal':>18}  status")
    for row in target_rows:
        status = {True: "met", False: "MISSED", None: "not measured"}[row["met"]]
        log(f"  {row['target']:<72} {row['measured'] or '-':>9} {row['goal']:>18}  {status}")
    log("=" * 100)


def _blas_kernels(env):
    return sorted({b["architecture"] for b in env["blas"] if isinstance(b, dict) and b.get("architecture")})


def _list_table(header, rows, widths=None):
    lines = [".. list-table::", "   :header-rows: 1"]
    if widths:
        lines.append("   :widths: " + " ".join(str(w) for w in widths))
    lines.append("")
    for row in [header, *rows]:
        lines.append("   * - " + str(row[0]))
        lines += [f"     - {cell}" for cell in row[1:]]
    return "\n".join(lines) + "\n"


def rst_tables(results, env, target_rows, command):
    """The measured tables in reStructuredText, for docs/performance.rst."""
    out = []
    v = env["versions"]
    out.append(f"Measured with ``{command}`` on {env['cpu']} ({env['cores']} cores, {env['memory_gib']} GiB), "
               f"Python {env['python']}, "
               + ", ".join(f"{k} {val}" for k, val in v.items() if val)
               + f"; sklearn-rank at git {env['git_commit']}"
               + (" with uncommitted engine changes" if env["engine_uncommitted_changes"] else "")
               + f"; OpenBLAS kernel {', '.join(_blas_kernels(env))}"
               + f"; load average {env['load_average_at_start'][0]:.2f} at the start, "
               f"{env['load_average_at_end'][0]:.2f} at the end.\n")
    w1 = results.get("1")
    if w1:
        t = w1["times"]
        ours = t["sklearn-rank evaluate"]
        labels = {
            "sklearn-rank evaluate": "sklearn-rank ``evaluate`` (from NumPy arrays)",
            "numpy argsort": "one ``np.argsort`` of as many float64 keys",
            "numpy argsort stable": "one ``np.argsort(kind=\"stable\")``",
            "arrays to dicts": "arrays to string-keyed dicts (input of both peers)",
            "ranx build": "ranx ``Run.from_dict`` + ``Qrels.from_dict``",
            "ranx evaluate": "ranx ``evaluate`` (warm)",
            "ranx end to end": "ranx end to end (dicts + build + evaluate)",
            "pytrec_eval evaluate": "pytrec_eval ``RelevanceEvaluator`` + ``evaluate`` + means",
            "pytrec_eval end to end": "pytrec_eval end to end (dicts + evaluate)",
        }
        rows = [[labels[k], fmt_s(t[k]), f"{t[k] / ours:.2f}"] for k in labels if k in t]
        out.append(f"**Workload 1** -- grouped rows, {w1['n_queries']:,} queries x {w1['n_candidates']:,} candidates "
                   f"({w1['n_rows']:,} rows, {w1['relevant_per_query']:.2f} relevant per query, graded 0-3, "
                   f"no tied scores), MRR + MAP + nDCG@10. sklearn-rank's peak extra memory: "
                   f"{fmt_bytes(w1['sklearn-rank peak_bytes'])} (tracemalloc; "
                   f"inputs {fmt_bytes(w1['input_bytes'])}).\n")
        out.append(_list_table(["measurement", "best time", "x sklearn-rank"], rows, [60, 15, 15]))
        notes = []
        if "ranx first use" in w1:
            notes.append(f"ranx's first call in a new process loads its compiled numba code from disk: "
                         f"+{fmt_s(w1['ranx first use']['first_use_overhead'])}")
        cold = results.get("ranx cold compile")
        if cold and "error" not in cold:
            notes.append(f"on a machine without that cache (empty ``NUMBA_CACHE_DIR``), its first build and "
                         f"evaluate on tiny data take {fmt_s(cold['first_build'])} and "
                         f"{fmt_s(cold['first_evaluate'])} of compilation, after {fmt_s(cold['import'])} of import")
        if notes:
            out.append("Compile time, not included above: " + "; ".join(notes) + ".\n")
        cli = w1.get("cli", {})
        if cli.get("times"):
            ct = cli["times"]
            clabels = {"sklearn-rank CLI": "``sklearn-rank evaluate qrels run`` (new process, trec_eval ties)",
                       "pytrec_eval from files": "pytrec_eval ``parse_qrel`` + ``parse_run`` + evaluate",
                       "ranx from files": "ranx ``from_file`` + evaluate",
                       "trec_eval binary": "trec_eval binary"}
            rows = [[clabels[k], fmt_s(ct[k]), f"{ct[k] / ct['sklearn-rank CLI']:.2f}"] for k in clabels if k in ct]
            out.append(f"The same from TREC files ({fmt_bytes(cli['run_file_bytes'])} run file); the command line's "
                       f"peak resident memory: {fmt_bytes(cli['sklearn-rank CLI peak_rss_bytes'])}.\n")
            out.append(_list_table(["measurement", "best time", "x command line"], rows, [60, 15, 15]))
        diffs = [max(d.values()) for d in w1["agreement"].values()] + \
            [max(d.values()) for d in cli.get("agreement", {}).values()]
        if diffs:
            out.append(f"Agreement: every per-query value and mean of the three metrics matches ranx and pytrec_eval "
                       f"within {max(diffs):.1e}; the command line's means equal the in-memory ones.\n")
    w2 = results.get("2")
    if w2:
        t = w2["times"]
        rows = [[k.replace("sklearn-rank evaluate", "sklearn-rank ``evaluate``").replace(
                     "scores.sum()", "``scores.sum()``"),
                 fmt_s(t[k]), f"{t[k] / t['scores.sum()']:.2f}"] for k in t]
        out.append(f"**Workload 2** -- label index, {w2['n_queries']:,} x {w2['n_entities']:,} float32 scores "
                   f"({fmt_bytes(w2['matrix_bytes'])}), one true column per row, a CSR filter mask of "
                   f"{w2['mask_nnz']:,} entries ({fmt_bytes(w2['mask_bytes'])}), MR + MRR + hits@1/3/10. "
                   f"Extra memory: {fmt_bytes(w2['extra_peak_bytes'])} = "
                   f"{100 * w2['extra_peak_bytes'] / w2['matrix_bytes']:.1f}% of the matrix (tracemalloc). "
                   f"{w2['tied_rows']} rows hold ties; values equal an independent count to "
                   f"{max(max(d.values()) for d in w2['agreement'].values()):.0e}.\n")
        out.append(_list_table(["measurement", "best time", "x scores.sum()"], rows, [60, 15, 15]))
    w3 = results.get("3")
    if w3:
        t = w3["times"]
        rows = []
        for k in t:
            ref = t["sklearn-rank ndcg_score" + (" (tied scores)" if "tied" in k else "")]
            label = k.replace("sklearn-rank ndcg_score", "``sklearn_rank.ndcg_score``").replace(
                "sklearn ndcg_score", "``sklearn.metrics.ndcg_score``").replace(
                "ignore_ties=True", "with ``ignore_ties=True`` (valid only without ties)")
            rows.append([label, fmt_s(t[k]), f"{t[k] / ref:.2f}"])
        out.append(f"**Workload 3** -- relevance matrix, {w3['n_queries']:,} x {w3['n_candidates']} graded, nDCG@10 "
                   f"= {w3['ndcg@10']:.6f}; the values differ from scikit-learn's by at most "
                   f"{max(w3['agreement'].values()):.1e}. \"tied scores\": the same scores rounded to steps of "
                   f"0.5, where scikit-learn averages over tied orderings.\n")
        out.append(_list_table(["measurement", "best time", "x sklearn-rank"], rows, [60, 15, 15]))
    w4 = results.get("4")
    if w4:
        rows = [[f"{p['n_rows']:,}", fmt_s(p["sklearn-rank"]), f"{1e9 * p['sklearn-rank'] / p['n_rows']:.0f}",
                 fmt_s(p["numpy argsort"]), fmt_s(p.get("ranx evaluate")), fmt_s(p.get("pytrec_eval evaluate"))]
                for p in w4["points"]]
        g = w4["growth"]
        out.append(f"**Workload 4** -- scaling, grouped rows with {w4['n_candidates']:,} candidates per query"
                   + (f"; fitted exponent of time ~ n^a over {g['range'][0]:,}-{g['range'][1]:,} rows: "
                      f"sklearn-rank {g['sklearn-rank exponent']:.3f}, one argsort {g['numpy argsort exponent']:.3f}, "
                      f"n log n {g['n log n exponent']:.3f}" if g else "") + ".\n")
        out.append(_list_table(["rows", "sklearn-rank", "ns per row", "np.argsort", "ranx evaluate",
                                "pytrec_eval evaluate"], rows))
    w5 = results.get("5")
    if w5:
        out.append(f"**Workload 5** -- ``GridSearchCV`` of ``Ridge``, {w5['n_candidates']} alphas x "
                   f"{w5['n_splits']} folds (``QueryGroupKFold``) on {w5['n_rows']:,} rows, nDCG@10, in two "
                   "set-ups. scikit-learn's ``score_time`` holds the model's predict as well as the metric, so "
                   "each set-up is also run with a scoring function that only calls predict; the difference is "
                   "what sklearn-rank adds. One ``evaluate`` call on a "
                   f"{w5['test_rows']:,}-row test fold takes {fmt_s(w5['one_metric'])} outside the search.\n")
        rows = []
        for key, out_ in w5["setups"].items():
            search_, base = out_["search"], out_["baseline"]
            rows.append([{"evaluator": "RankingEvaluator, DataFrame with qid column",
                          "scorer": "make_ranking_scorer, arrays, qid routed"}[key],
                         fmt_s(search_["wall"]), fmt_s(search_["fit_total"]),
                         f"{fmt_s(search_['score_total'])} ({100 * search_['score_share']:.1f}%)",
                         f"{fmt_s(base['score_total'])} ({100 * out_['predict_share']:.1f}%)",
                         f"{fmt_s(out_['added_per_score'])} ({100 * out_['added_share']:.1f}%)"])
        out.append(_list_table(["set-up", "wall", "fitting", "scoring (share)", "predict-only scoring",
                                "added per score (share)"], rows))
    rows = [[r["target"], r["goal"], r["measured"] or "-",
             {True: "met", False: "**missed**", None: "not measured"}[r["met"]]] for r in target_rows]
    out.append("**Targets**, as ratios within this one run:\n")
    out.append(_list_table(["target", "goal", "measured", "status"], rows, [55, 15, 15, 15]))
    # Wrap the paragraphs (not the tables) for readable sources.
    return "\n".join(part if part.startswith(".. ") else textwrap.fill(part.rstrip("\n"), 110) + "\n"
                     for part in out)


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib is not installed: no plot (pip install matplotlib)")
        return
    points = results["4"]["points"]
    # 9 x 4.4 inches at 120 dpi: shown at the width of the docs' text column (about 880 px), its
    # labels stay at about 13 px. The legend goes below both plots (it names the lines of both):
    # inside the left one it hid the ranx and pytrec_eval lines.
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9, 4.4), layout="constrained")
    styles = {"sklearn-rank": ("C0", "o", "sklearn-rank evaluate"), "numpy argsort": ("C7", "s", "one np.argsort"),
              "ranx evaluate": ("C1", "^", "ranx evaluate (warm)"),
              "pytrec_eval evaluate": ("C2", "v", "pytrec_eval evaluate")}
    for key, (color, marker, label) in styles.items():
        pts = [(p["n_rows"], p[key]) for p in points if p.get(key)]
        if not pts:
            continue
        n, t = (np.array(v, dtype=float) for v in zip(*pts))
        ax.loglog(n, t, marker=marker, color=color, label=label)
        ax2.semilogx(n, 1e9 * t / n, marker=marker, color=color, label=label)
    ref = [p for p in points if p.get("sklearn-rank")][-1]
    n = np.array([p["n_rows"] for p in points], dtype=float)
    ax.loglog(n, ref["sklearn-rank"] * (n * np.log(n)) / (ref["n_rows"] * math.log(ref["n_rows"])), "k:",
              label="n log n (through the last point)")
    ax.set_xlabel("rows (1,000 candidates per query)")
    ax.set_ylabel("seconds (best of several runs)")
    ax.set_title("MRR + MAP + nDCG@10, grouped rows")
    ax.grid(True, which="both", alpha=0.3)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=3, fontsize=9)
    ax2.set_xlabel("rows")
    ax2.set_ylabel("nanoseconds per row")
    ax2.set_title("time per row")
    ax2.set_ylim(bottom=0)
    ax2.grid(True, which="both", alpha=0.3)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    log(f"plot written to {path}")
