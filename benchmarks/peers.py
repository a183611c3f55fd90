"""The peers: loading and running ranx and pytrec_eval on the benchmarks' data.

Peers are optional: ``load_peers`` returns the ones that import and a note for each one that does not.
scikit-learn's ``ndcg_score`` (workload 3) is imported where it is used, in ``measure.py``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import workloads as wl
from harness import run_command

HERE = Path(__file__).resolve().parent

METRICS = ["mrr", "map", "ndcg@10"]                       # sklearn-rank names
RANX_METRICS = {"mrr": "mrr", "map": "map", "ndcg@10": "ndcg@10"}
TREC_METRICS = {"mrr": "recip_rank", "map": "map", "ndcg@10": "ndcg_cut_10"}


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
