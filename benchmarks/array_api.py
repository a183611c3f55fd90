"""Score matrices where they live: a torch matrix under Array API dispatch against the NumPy path (issue 16).

Usage::

    python benchmarks/array_api.py              # 20,000 x 15,000 float32, ~20 filtered per row
    python benchmarks/array_api.py --quick      # 2,000 x 15,000
    python benchmarks/array_api.py --json benchmarks/results/array_api.json
    python benchmarks/array_api.py --threads 1     # torch on one CPU thread (a shared machine)

A label-index workload (link prediction: each row a query, each column an entity, one true
column per row) with a dense filtered ``exclude`` mask, metrics MRR, hits@10 and mean rank, on
every device torch has here (the CPU, and CUDA when ``torch.cuda.is_available()``):

- ``namespace``: ``sklearn_rank.evaluate`` on the torch tensors under
  ``sklearn.config_context(array_api_dispatch=True)``: computed by torch, on the tensors' device;
- ``numpy + copy``: the tensors copied to the host (``.cpu().numpy()``, free on the CPU, where the
  array shares the tensor's memory) and ``evaluate`` on the NumPy arrays, the copy timed too.

Each set-up runs once to warm up, then ``--repeat`` times, interleaved; the best time is reported.
Both must give the same summary to 1e-12 (exit status 1 otherwise).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

# scikit-learn >= 1.6 turns dispatch on only with SciPy's array API support announced, before SciPy's import
os.environ.setdefault("SCIPY_ARRAY_API", "1")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from harness import describe_environment, fmt_s, log  # noqa: E402

METRICS = ["mrr", "hits@10", "mr"]
FULL = dict(n_queries=20_000, n_candidates=15_000, filtered=20)
QUICK = dict(n_queries=2_000, n_candidates=15_000, filtered=20)


def make_data(torch, n_queries, n_candidates, filtered, seed=0):
    """float32 scores (a few ties), the true column of each row, and ``filtered`` known answers per row."""
    generator = torch.Generator().manual_seed(seed)
    scores = torch.rand((n_queries, n_candidates), generator=generator, dtype=torch.float32)
    target = torch.randint(0, n_candidates, (n_queries,), generator=generator)
    known = torch.randint(0, n_candidates, (n_queries, filtered), generator=generator)
    exclude = torch.zeros((n_queries, n_candidates), dtype=torch.bool)
    exclude.scatter_(1, known, True)
    exclude[torch.arange(n_queries), target] = False  # a query's own target is never filtered
    return scores, target, exclude


def run(size, repeat):
    import sklearn
    import torch

    from sklearn_rank import evaluate

    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    host = make_data(torch, **size)
    rows = []
    for device in devices:
        scores, target, exclude = (t.to(device) for t in host)

        def sync():
            if device == "cuda":
                torch.cuda.synchronize()

        def namespace(target=target, scores=scores, exclude=exclude):
            with sklearn.config_context(array_api_dispatch=True):
                return evaluate(target, scores, metrics=METRICS, exclude=exclude).summary

        def numpy_with_copy(target=target, scores=scores, exclude=exclude):
            return evaluate(target.cpu().numpy(), scores.cpu().numpy(), metrics=METRICS,
                            exclude=exclude.cpu().numpy()).summary

        setups = {"namespace": namespace, "numpy + copy": numpy_with_copy}
        times = {name: [] for name in setups}
        results = {}
        for round_ in range(repeat + 1):  # the first round warms up
            for name, fn in setups.items():
                sync()
                start = time.perf_counter()
                results[name] = fn()
                sync()
                if round_:
                    times[name].append(time.perf_counter() - start)
        diff = max(abs(results["namespace"][m] - results["numpy + copy"][m]) for m in METRICS)
        for name in setups:
            rows.append(dict(device=device, setup=name, best_s=min(times[name]), times_s=times[name],
                             summary=results[name], max_abs_diff=diff))
        log(f"{device}: " + ", ".join(f"{name} {fmt_s(min(times[name]))}" for name in setups)
            + f"; max |diff| {diff:.1e}")
        del scores, target, exclude, setups, namespace, numpy_with_copy
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2,000 rows instead of 20,000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch's CPU threads (default: torch's own choice); on a machine whose cores are "
                             "busy with other jobs, 1 avoids threads waiting on each other")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        log("torch is not installed: nothing to measure")
        return 0
    if args.threads:
        torch.set_num_threads(args.threads)
    size = QUICK if args.quick else FULL
    log(f"label index: {size['n_queries']:,} x {size['n_candidates']:,} float32 torch scores, "
        f"{size['filtered']} filtered per row (dense exclude mask); metrics {', '.join(METRICS)}; torch "
        f"{torch.__version__}, {torch.get_num_threads()} threads")
    start = time.perf_counter()
    rows = run(size, args.repeat)
    log()
    log(f"{'device':<8}{'set-up':<16}{'best':>10}{'/ namespace':>14}")
    for row in rows:
        reference = next(r["best_s"] for r in rows if r["device"] == row["device"] and r["setup"] == "namespace")
        log(f"{row['device']:<8}{row['setup']:<16}{fmt_s(row['best_s']):>10}{row['best_s'] / reference:>13.2f}x")
    agree = all(row["max_abs_diff"] <= 1e-12 for row in rows)
    log(f"summaries agree to 1e-12: {agree}; total {time.perf_counter() - start:.0f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(dict(
            command="python benchmarks/array_api.py" + (" --quick" if args.quick else "")
            + f" --repeat {args.repeat}" + (f" --threads {args.threads}" if args.threads else ""), environment=describe_environment(), size=size, metrics=METRICS,
            torch=torch.__version__, torch_threads=torch.get_num_threads(), rows=rows, agree=agree), indent=1))
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
