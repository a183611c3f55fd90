"""Where sklearn-rank's time goes: cProfile and line-level timings of the engine on the benchmark's workloads.

Usage::

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/profile_engine.py            # workloads 1 and 2
    python benchmarks/profile_engine.py --quick --workloads 1 2 3 5 --min-share 2

For each workload: the best wall time of ``evaluate`` (after a warm-up), the
cProfile table of the functions with the most own time, then, with
line_profiler installed (``pip install line_profiler``), every line of the
engine's functions (``sklearn_rank._inputs``, ``_ranks``, ``_lists``, ``_rank_stats``,
``metrics``, ``_report``, ``_evaluator``, ``_scorer``, ``io``, ``cli``) that takes at least
``--min-share`` percent of the call. Line timings carry the profiler's overhead
on Python-level lines; NumPy calls are timed nearly unchanged.

With ``--memory``: the peak of traced allocations (tracemalloc, which sees
NumPy's buffers), the engine line during which it was reached, and what was
still allocated right after that line, by the line that allocated it.
``--workloads cli`` profiles ``sklearn-rank evaluate`` on TREC files of
workload 1 (1,000 x 1,000 rows; 10,000 x 1,000 without ``--quick``).
"""

from __future__ import annotations

import argparse
import cProfile
import inspect
import io
import linecache
import pstats
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import workloads as wl  # noqa: E402

import sklearn_rank  # noqa: E402
from sklearn_rank import evaluate  # noqa: E402

ENGINE_MODULES = ["sklearn_rank._engine", "sklearn_rank._inputs", "sklearn_rank._ranks", "sklearn_rank._expectations",
                  "sklearn_rank._lists", "sklearn_rank._rank_stats", "sklearn_rank._segments", "sklearn_rank._registry", "sklearn_rank.metrics", "sklearn_rank._report",
                  "sklearn_rank._evaluator", "sklearn_rank._scorer", "sklearn_rank.io", "sklearn_rank.io._trec_lines",
                  "sklearn_rank.io._trec_fast", "sklearn_rank.io._trec_keys", "sklearn_rank.io._trec_eval",
                  "sklearn_rank.io._trec_files", "sklearn_rank.io._tables", "sklearn_rank.cli"]


def engine_functions():
    """Every function and method defined in the engine's modules."""
    import importlib

    found = []
    for name in ENGINE_MODULES:
        module = importlib.import_module(name)
        for _, obj in vars(module).items():
            if inspect.isfunction(obj) and obj.__module__ == name:
                found.append(obj)
            elif inspect.isclass(obj) and obj.__module__ == name:
                for attr in vars(obj).values():
                    func = getattr(attr, "__func__", attr)
                    if isinstance(attr, property):
                        func = attr.fget
                    # dataclass-generated methods (``__repr__`` wrapped by reprlib) are not engine code
                    if inspect.isfunction(func) and not hasattr(func, "__wrapped__"):
                        found.append(func)
    return found


def calls(workload, quick):
    """(label, zero-argument callable) for a workload."""
    if workload == "1":
        nq, nc = (1_000, 1_000) if quick else (10_000, 1_000)
        w = wl.grouped_rows(nq, nc)
        return f"workload 1: grouped rows {nq:,} x {nc:,}, mrr + map + ndcg@10", \
            lambda: evaluate(w.y_true, w.y_score, qid=w.qid, metrics=["mrr", "map", "ndcg@10"])
    if workload == "2":
        nq, ne = (2_000, 15_000) if quick else (20_000, 15_000)
        w = wl.label_index(nq, ne)
        return f"workload 2: label index {nq:,} x {ne:,} float32, sparse filter", \
            lambda: evaluate(w.target, w.scores, exclude=w.exclude, metrics=["mr", "mrr", "hits@1", "hits@3",
                                                                              "hits@10"])
    if workload == "3":
        y_true, y_score, _ = wl.relevance_matrix(10_000, 100)
        return "workload 3: relevance matrix 10,000 x 100, ndcg_score(k=10)", \
            lambda: sklearn_rank.ndcg_score(y_true, y_score, k=10)
    if workload == "cli":
        from sklearn_rank import cli

        nq, nc = (1_000, 1_000) if quick else (10_000, 1_000)
        w = wl.grouped_rows(nq, nc)
        folder = Path(tempfile.mkdtemp(prefix="skr-profile-"))
        wl.write_trec_files(w, folder / "bench.qrels", folder / "bench.run")
        argv = ["evaluate", str(folder / "bench.qrels"), str(folder / "bench.run"), "-m", "mrr", "map", "ndcg@10",
                "--format", "json", "-o", str(folder / "out.json")]
        return f"command line: sklearn-rank evaluate on TREC files of {nq:,} x {nc:,} rows", lambda: cli.main(argv)
    if workload == "5":
        from sklearn.linear_model import Ridge

        from sklearn_rank import RankingEvaluator
        from sklearn_rank.datasets import make_ranking
        from sklearn_rank.model_selection import QueryGroupKFold

        X, y, _ = make_ranking(n_queries=2_000, n_candidates=50, n_features=20, random_state=0, as_frame=True)
        train, test = next(QueryGroupKFold(5).split(X, y))
        model = RankingEvaluator(Ridge(), metric="ndcg@10").fit(X.iloc[train], y.iloc[train])
        X_test, y_test = X.iloc[test], y.iloc[test]
        return "workload 5: one RankingEvaluator.score on a test fold (20,000 rows)", \
            lambda: model.score(X_test, y_test)
    raise ValueError(workload)


def line_report(profiler, min_share, total):
    """Lines taking at least ``min_share`` percent of ``total`` seconds, grouped by function."""
    stats = profiler.get_stats()
    out = io.StringIO()
    rows = []
    for (filename, first_line, name), timings in stats.timings.items():
        func_total = sum(t for _, _, t in timings) * stats.unit
        if func_total < min_share / 100 * total:
            continue
        rows.append((func_total, filename, first_line, name, timings))
    for func_total, filename, first_line, name, timings in sorted(rows, key=lambda r: (r[1], r[2])):
        short = filename.split("sklearn_rank/")[-1]
        out.write(f"\n  {short}:{first_line} {name}  total {func_total * 1e3:.1f} ms "
                  f"({100 * func_total / total:.0f}% of the call)\n")
        for lineno, hits, t in sorted(timings):
            seconds = t * stats.unit
            if seconds >= min_share / 100 * total:
                source = linecache.getline(filename, lineno).strip()
                out.write(f"    {lineno:>5} {hits:>6}x {seconds * 1e3:>9.1f} ms {100 * seconds / total:>5.1f}%  "
                          f"{source[:100]}\n")
    return out.getvalue()


def memory_report(fn, top=8):
    """Peak traced memory of ``fn()``, the engine line running when it was reached, and the live set after it."""
    engine_dir = str(Path(sklearn_rank.__file__).parent)
    state = {"peak": 0, "where": None, "snapshot": None, "snapshot_peak": 0, "last": None}

    def tracer(frame, event, arg):
        if not frame.f_code.co_filename.startswith(engine_dir):
            return None
        if event in ("line", "return"):
            peak = tracemalloc.get_traced_memory()[1]
            if state["last"] is not None and peak > state["peak"]:
                # A snapshot costs milliseconds: take one only when the peak grows by 2% or more.
                if state["snapshot"] is None or peak > 1.02 * state["snapshot_peak"]:
                    state["snapshot"], state["snapshot_peak"] = tracemalloc.take_snapshot(), peak
                state["peak"], state["where"] = peak, state["last"]
            tracemalloc.reset_peak()
            state["last"] = (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
        return tracer

    gc_base = tracemalloc.is_tracing()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
        tracemalloc.stop() if not gc_base else None
    out = [f"memory: peak {(state['peak'] - base) / 2**20:.1f} MiB above the inputs (tracemalloc)"]
    if state["where"]:
        filename, lineno, name = state["where"]
        out.append(f"  reached during {filename.split('sklearn_rank/')[-1]}:{lineno} ({name}): "
                   f"{linecache.getline(filename, lineno).strip()[:90]}")
        out.append("  still allocated after that line (within 2% of the peak), by allocating line:")
        stats = state["snapshot"].filter_traces([tracemalloc.Filter(True, engine_dir + "/*")]).statistics("lineno")
        for stat in stats[:top]:
            frame = stat.traceback[0]
            where = f"{frame.filename.split('sklearn_rank/')[-1]}:{frame.lineno}"
            out.append(f"    {stat.size / 2**20:>8.1f} MiB  {where}  "
                       f"{linecache.getline(frame.filename, frame.lineno).strip()[:80]}")
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="workload sizes of run.py --quick")
    parser.add_argument("--workloads", nargs="+", default=["1", "2"], choices=["1", "2", "3", "5", "cli"])
    parser.add_argument("--memory", action="store_true", help="also report the peak of traced memory and its lines")
    parser.add_argument("--min-share", type=float, default=1.0,
                        help="print lines taking at least this percent of the call (default: 1)")
    parser.add_argument("--top", type=int, default=15, help="rows of the cProfile table (default: 15)")
    args = parser.parse_args(argv)
    print(f"sklearn-rank {sklearn_rank.__version__} from {Path(sklearn_rank.__file__).parent}; numpy {np.__version__}")
    for workload in args.workloads:
        label, fn = calls(workload, args.quick)
        fn()  # warm-up
        times = []
        for _ in range(3):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        best = min(times)
        runs = ", ".join(f"{t * 1e3:.0f}" for t in times)
        print(f"\n{'=' * 100}\n{label}: best of 3 {best * 1e3:.1f} ms (runs {runs} ms)")
        if args.memory:
            print(memory_report(fn))
        profile = cProfile.Profile()
        profile.runcall(fn)
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(args.top)
        body = text.getvalue()
        print("cProfile, by own time:\n" + body[body.find("   ncalls"):].rstrip())
        try:
            from line_profiler import LineProfiler
        except ImportError:
            print("line_profiler is not installed: no line-level timings (pip install line_profiler)")
            continue
        profiler = LineProfiler()
        for func in engine_functions():
            profiler.add_function(func)
        start = time.perf_counter()
        profiler.runcall(fn)
        total = time.perf_counter() - start
        print(f"line-level ({total * 1e3:.1f} ms under the line profiler), lines >= {args.min_share}% of the call:")
        print(line_report(profiler, args.min_share, total).rstrip())


if __name__ == "__main__":
    main()
