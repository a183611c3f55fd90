"""The benchmarks' harness: timing, memory measurement, output formatting and the machine description.

Every time is the best of several runs after a warm-up (``best_of``); memory is the tracemalloc peak
above what was allocated before (``traced_peak``) or, for a command run in a new process, that
process's peak resident memory (``run_command``). ``describe_environment`` records the CPU, the
versions, the BLAS kernel and the git commit beside the measurements.
"""

from __future__ import annotations

import gc
import os
import platform
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


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
