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
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from harness import describe_environment, log  # noqa: E402
from measure import workload_1, workload_2, workload_3, workload_4, workload_5  # noqa: E402
from peers import load_peers, ranx_cold_compile  # noqa: E402
from report import agreement_failures, plot, print_report, rst_tables, targets  # noqa: E402

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
