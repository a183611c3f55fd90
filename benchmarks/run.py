"""Time sklearn-rank against its peers on the same data, in the same process (issue 6).

Usage::

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/run.py            # full, ~10 min
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/run.py --quick    # smaller sizes, < 1 min
    python benchmarks/run.py --workloads 1 2 --json results.json --plot scaling.png

Workloads (seeded, see ``workloads.py``):

1. grouped rows, 10,000 queries x 1,000 candidates (10 M rows), graded 0-3, about
   5 relevant per query: MRR + MAP + nDCG@10, against ranx and pytrec_eval, and
   against one NumPy argsort of 10 M float64 keys; then the same from TREC files
   through the ``sklearn-rank evaluate`` command line (trec_eval semantics).
2. label index, 20,000 x 15,000 float32 scores, one true column per row, a sparse
   filter mask (~20 entries per row): MR + MRR + hits@1/3/10, against one pass over
   the matrix (``scores.sum()``); extra memory traced.
3. relevance matrix, 10,000 x 100 graded: nDCG@10 against
   ``sklearn.metrics.ndcg_score`` (identical values required).
4. scaling: workload 1's generator from 10^4 to 10^7 rows (1,000 candidates per query).
5. GridSearchCV over 20 candidates x 5 folds of Ridge, scored by nDCG@10: the
   share of the search's wall time spent in scoring, for RankingEvaluator on a
   DataFrame and for a ranking scorer on arrays, each against a predict-only
   baseline search.

Every time is the best of several runs after a warm-up (the machine may be
busy: the minimum is the least disturbed run); each peer's first use (numba
compilation for ranx) is timed separately. Cross-library checks use continuous
scores without ties, since the libraries break ties differently. Peers are
optional: a missing one is skipped with a message (``pip install ranx
pytrec-eval-terrier``). Exit status: 1 if any cross-check disagrees, or, with
``--check-targets``, if a target of the issue is missed.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import tracemalloc
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import workloads as wl  # noqa: E402

import sklearn_rank  # noqa: E402
from sklearn_rank import evaluate  # noqa: E402

METRICS = ["mrr", "map", "ndcg@10"]                       # sklearn-rank names
RANX_METRICS = {"mrr": "mrr", "map": "map", "ndcg@10": "ndcg@10"}
TREC_METRICS = {"mrr": "recip_rank", "map": "map", "ndcg@10": "ndcg_cut_10"}
LINK_METRICS = ["mr", "mrr", "hits@1", "hits@3", "hits@10"]
AGREEMENT_TOL = 1e-9   # cross-library: different summation orders
IDENTICAL_TOL = 1e-12  # "identical values" of workload 3

FULL = dict(
    w1=(10_000, 1_000), w2=(20_000, 15_000, 20), w3=(10_000, 100),
    w4=[10**4, 3 * 10**4, 10**5, 3 * 10**5, 10**6, 3 * 10**6, 10**7], w4_peer_max=3 * 10**6,
    w5=dict(n_queries=2_000, n_candidates=50, n_features=20),
    repeat=5, repeat_slow=3, repeat_build=2, repeat_cli=2, cold_compile=True,
)
QUICK = dict(
    w1=(1_000, 1_000), w2=(2_000, 15_000, 20), w3=(10_000, 100),
    w4=[10**4, 10**5, 10**6], w4_peer_max=10**5,
    w5=dict(n_queries=500, n_candidates=50, n_features=20),
    repeat=3, repeat_slow=2, repeat_build=1, repeat_cli=1, cold_compile=False,
)


# ------------------------------------------------------------------------------------------------
# Measuring
# ------------------------------------------------------------------------------------------------
def best_of(fn, repeat, warmup=0):
    """Best wall time of ``repeat`` calls after ``warmup`` untimed ones; returns (seconds, times, result)."""
    result = None
    for _ in range(warmup):
        result = fn()
    times = []
    gc.collect()  # once: a full collection costs ~0.2 s once numba is loaded
    for _ in range(repeat):
        result = None
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), times, result


def traced_peak(fn):
    """Peak of traced allocations during ``fn()`` above what was allocated before (bytes).

    tracemalloc sees NumPy's array buffers (NumPy reports them to it), so this is
    the extra memory the call needs on top of its inputs, result included.
    """
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - before


def run_command(argv, env=None):
    """Run a command; return (seconds, stdout, stderr, returncode, peak RSS in bytes of that child)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return seconds, out.read().decode(), err.read().decode(), proc.returncode, usage.ru_maxrss * 1024


def log(message=""):
    print(message, flush=True)


def fmt_s(seconds):
    if seconds is None:
        return "-"
    if seconds >= 100:
        return f"{seconds:.0f} s"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} us"


def fmt_bytes(n):
    return f"{n / 2**20:.1f} MiB" if n < 2**30 else f"{n / 2**30:.2f} GiB"


def max_abs_diff(a, b):
    return float(np.max(np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))))


# ------------------------------------------------------------------------------------------------
# Environment
# ------------------------------------------------------------------------------------------------
def _version(module_name, dist_name=None):
    try:
        from importlib.metadata import version
        return version(dist_name or module_name)
    except Exception:  # not installed
        return None


def _cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _cpu_details():
    """Family, model, vector extensions, caches and hypervisor, as far as /proc and /sys tell."""
    details = {}
    try:
        fields = {}
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if ":" in line:
                key, value = (part.strip() for part in line.split(":", 1))
                fields.setdefault(key, value)
        flags = set(fields.get("flags", "").split())
        details.update({"family": fields.get("cpu family"), "model": fields.get("model"),
                        "avx2": "avx2" in flags, "avx512f": "avx512f" in flags,
                        "hypervisor": "hypervisor" in flags})
    except OSError:
        pass
    caches = {}
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            caches[f"L{level} {kind}"] = (index / "size").read_text().strip()
        except OSError:
            continue
    details["caches_per_core"] = caches
    return details


def _git(*args):
    try:
        return subprocess.run(["git", "-C", str(HERE.parent), *args], capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _import_seconds(module):
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    seconds, out, _, code_, _ = run_command([sys.executable, "-c", code])
    return float(out) if code_ == 0 and out.strip() else None


def describe_environment():
    try:
        from threadpoolctl import threadpool_info
        blas = [{k: info.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
                for info in threadpool_info()]
    except ImportError:
        blas = "threadpoolctl not installed"
    dirty = _git("status", "--porcelain", "--", "sklearn_rank")
    return {
        "cpu": _cpu_model(),
        "cpu_details": _cpu_details(),
        "cores": os.cpu_count(),
        "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "versions": {name: _version(*spec) for name, spec in {
            "sklearn-rank": ("sklearn-rank",), "numpy": ("numpy",), "scipy": ("scipy",),
            "scikit-learn": ("scikit-learn",), "ranx": ("ranx",), "numba": ("numba",),
            "pytrec_eval": ("pytrec-eval-terrier",), "pandas": ("pandas",)}.items()},
        "git_commit": _git("rev-parse", "--short", "HEAD"),
        "engine_uncommitted_changes": bool(dirty),
        "blas": blas,
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "OPENBLAS_L2_SIZE": os.environ.get("OPENBLAS_L2_SIZE"),
        "load_average_at_start": os.getloadavg(),
        "import_seconds": {m: _import_seconds(m) for m in ("sklearn_rank", "ranx", "pytrec_eval")},
    }


# ------------------------------------------------------------------------------------------------
# Peers
# ------------------------------------------------------------------------------------------------
def load_peers(wanted):
    peers, notes = {}, {}
    if "ranx" in wanted:
        try:
            import ranx
            peers["ranx"] = ranx
        except ImportError as exc:
            notes["ranx"] = (f"ranx skipped: it cannot be imported ({exc}); pip install ranx "
                             "(it pulls numba)")
    if "pytrec_eval" in wanted:
        try:
            import pytrec_eval
            peers["pytrec_eval"] = pytrec_eval
        except ImportError as exc:
            notes["pytrec_eval"] = (f"pytrec_eval skipped: it cannot be imported ({exc}); "
                                    "pip install pytrec-eval-terrier")
    return peers, notes


def ranx_evaluate(ranx, qrels, run):
    return ranx.evaluate(qrels, run, [RANX_METRICS[m] for m in METRICS])


def pytrec_evaluate(pytrec_eval, qrels_dict, run_dict):
    """RelevanceEvaluator + evaluate + the means over queries (what a user computes)."""
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, set(TREC_METRICS.values()))
    per_query = evaluator.evaluate(run_dict)
    means = {m: float(np.mean([v[t] for v in per_query.values()])) for m, t in TREC_METRICS.items()}
    return means, per_query


def ranx_first_use(ranx):
    """Time ranx's first Run/Qrels build and evaluate in this process (numba JIT or cache load),
    then the same calls again (warm), on a tiny workload with the benchmark's id widths."""
    tiny = wl.grouped_rows(3, 20)
    run_dict, qrels_dict = wl.peer_dicts(tiny)
    out = {}
    for label in ("first", "warm"):
        start = time.perf_counter()
        run, qrels = ranx.Run.from_dict(run_dict), ranx.Qrels.from_dict(qrels_dict)
        built = time.perf_counter()
        ranx_evaluate(ranx, qrels, run)
        out[label] = (built - start, time.perf_counter() - built)
    return {"first_build": out["first"][0], "first_evaluate": out["first"][1],
            "warm_build": out["warm"][0], "warm_evaluate": out["warm"][1],
            "first_use_overhead": sum(out["first"]) - sum(out["warm"])}


RANX_COLD_SCRIPT = """
import sys, time
sys.path.insert(0, {here!r})
t0 = time.perf_counter()
import ranx
t1 = time.perf_counter()
import workloads as wl
tiny = wl.grouped_rows(3, 20)
run_dict, qrels_dict = wl.peer_dicts(tiny)
t2 = time.perf_counter()
run, qrels = ranx.Run.from_dict(run_dict), ranx.Qrels.from_dict(qrels_dict)
t3 = time.perf_counter()
ranx.evaluate(qrels, run, ["mrr", "map", "ndcg@10"])
t4 = time.perf_counter()
print(t1 - t0, t3 - t2, t4 - t3)
"""


def ranx_cold_compile():
    """ranx's first use on a fresh machine: a new process with an empty numba cache directory."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        seconds, out, err, code, _ = run_command(
            [sys.executable, "-c", RANX_COLD_SCRIPT.format(here=str(HERE))], env=env)
    if code != 0:
        return {"error": err.strip().splitlines()[-1] if err.strip() else f"exit {code}"}
    imp, build, ev = (float(x) for x in out.split())
    return {"import": imp, "first_build": build, "first_evaluate": ev, "process_wall": seconds}


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
    out.append("**Targets of issue 6**, as ratios within this one run:\n")
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
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
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
    ax.legend(fontsize=8)
    ax2.set_xlabel("rows")
    ax2.set_ylabel("nanoseconds per row")
    ax2.set_title("time per row")
    ax2.set_ylim(bottom=0)
    ax2.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    log(f"plot written to {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats (under a minute)")
    parser.add_argument("--workloads", nargs="+", default=["1", "2", "3", "4", "5"], choices=list("12345"),
                        help="which workloads to run (default: all)")
    parser.add_argument("--peers", nargs="*", default=["ranx", "pytrec_eval"], choices=["ranx", "pytrec_eval"],
                        help="peers to time when installed (default: both; none with --peers)")
    parser.add_argument("--repeat", type=int, help="timed runs per measurement (default: 5, or 3 with --quick)")
    parser.add_argument("--no-cold-compile", action="store_true",
                        help="skip timing ranx's first use with an empty numba cache (a ~1 minute subprocess)")
    parser.add_argument("--json", help="write every measurement to this JSON file")
    parser.add_argument("--plot", help="write the scaling plot (workload 4) to this PNG file")
    parser.add_argument("--rst", help="write the measured tables as reStructuredText to this file")
    parser.add_argument("--check-targets", action="store_true", help="exit with status 1 if a target is missed")
    parser.add_argument("--workdir", help="directory for the temporary TREC files (default: a temporary one)")
    args = parser.parse_args(argv)
    cfg = dict(QUICK if args.quick else FULL)
    if args.repeat:
        cfg["repeat"] = args.repeat
        cfg["repeat_slow"] = min(cfg["repeat_slow"], args.repeat)
    if args.no_cold_compile:
        cfg["cold_compile"] = False

    started = time.perf_counter()
    command = " ".join(["python", "benchmarks/run.py", *(argv if argv is not None else sys.argv[1:])])
    if os.environ.get("OPENBLAS_CORETYPE"):
        log(f"note: OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']} is set; published numbers unset it: "
            "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/run.py")
    env = describe_environment()
    log(f"environment described in {time.perf_counter() - started:.0f} s")
    peers, notes = load_peers(args.peers)
    for note in notes.values():
        log(note)
    results = {}
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        steps = {"1": lambda: workload_1(cfg, peers, Path(tmp)), "2": lambda: workload_2(cfg),
                 "3": lambda: workload_3(cfg), "4": lambda: workload_4(cfg, peers, results.get("1")),
                 "5": lambda: workload_5(cfg)}
        for key in sorted(args.workloads):
            start = time.perf_counter()
            results[key] = steps[key]()
            results[key]["benchmark_seconds"] = time.perf_counter() - start
            log(f"    ({time.perf_counter() - start:.0f} s)")
            if key == "1" and "ranx" in peers and cfg["cold_compile"]:
                log("    ranx first use with an empty numba cache (new process) ...")
                results["ranx cold compile"] = ranx_cold_compile()
    env["load_average_at_end"] = os.getloadavg()
    env["max_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    target_rows = targets(results)
    print_report(results, env, target_rows)
    failures = agreement_failures(results)
    for failure in failures:
        log(f"DISAGREEMENT: {failure}")
    log(f"total {time.perf_counter() - started:.0f} s; best of {cfg['repeat']} runs after a warm-up "
        f"({cfg['repeat_slow']} for the slow peers); command: {command}")
    if args.json:
        payload = {"command": command, "quick": args.quick, "config": cfg, "environment": env,
                   "peer_notes": notes, "results": results, "targets": target_rows, "disagreements": failures}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(payload, indent=1, default=_json_default))
        log(f"results written to {args.json}")
    if args.rst:
        Path(args.rst).parent.mkdir(parents=True, exist_ok=True)
        Path(args.rst).write_text(rst_tables(results, env, target_rows, command))
        log(f"reStructuredText tables written to {args.rst}")
    if args.plot and "4" in results:
        plot(results, args.plot)
    if failures:
        return 1
    if args.check_targets and any(row["met"] is False for row in target_rows):
        return 1
    return 0


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


if __name__ == "__main__":
    sys.exit(main())
