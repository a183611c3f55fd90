"""Fixtures shared by several test files, and how pytest-xdist shares the tests out.

The suite runs on two or more worker processes (``-n auto --dist loadgroup`` in pyproject.toml). Each worker
starts at most one Spark session and one Dask cluster, for the whole session, and the tests that need one of
them, or that pay another once-per-process cost, are put in one xdist group so that a single worker pays it.
"""

import importlib.util
import logging
import os
import shutil
import signal
import subprocess
import sys

import pytest

# OpenMP threads wait asleep, not spinning (read when LightGBM, XGBoost and BLAS load, after this): LightGBM
# sizes its pool by the physical cores whatever OMP_NUM_THREADS says, and with the other worker (or another
# process) busy, its spinning threads took 44 s for a fit of 0.4 s.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
if "PYTEST_XDIST_WORKER" in os.environ:
    # As many workers as cores: one OpenMP thread each for the libraries that follow OMP_NUM_THREADS.
    os.environ.setdefault("OMP_NUM_THREADS", "1")

# Tests that share something costly per process: one group each, so that one worker pays the cost once.
# A test file named here goes whole to one worker (module fixtures, a memoized example run); a fixture
# named here takes every test that uses it, whatever its file.
_GROUP_BY_FILE = {
    "test_dask.py": "dask",          # the LocalCluster, and the default scheduler it installs
    "test_examples.py": "examples",  # run_example() is memoized: each script runs once per process
    "test_main.py": "demo",          # `sklearn-rank demo` runs once for the module
    "test_docs_rendered.py": "docs-rendered",
}
_GROUP_BY_FIXTURE = {"spark": "spark", "ranx": "ranx", "demo_run": "demo"}


@pytest.hookimpl(wrapper=True)  # marks before xdist's own hook reads them, and a look at its work after
def pytest_collection_modifyitems(config, items):
    for item in items:
        group = _GROUP_BY_FILE.get(item.path.name)
        if group is None:
            group = next((name for fixture, name in _GROUP_BY_FIXTURE.items()
                          if fixture in getattr(item, "fixturenames", ())), None)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    result = yield
    if getattr(config.option, "loadgroup", False):  # on a worker of --dist loadgroup
        _name_the_groups(items)
    return result


def _name_the_groups(items):
    """Append each item's group to its node id where pytest-xdist's hook could not.

    pytest-xdist (3.8) tells the controller a test's group by appending ``@<group>`` to the node id on the
    worker, through ``item._nodeid``; pytest 9.2 keeps the id in ``item._id`` instead, so the suffix was lost
    without a word and every group spread over every worker: a Spark session, a Dask cluster, the demo and
    each example run per worker (pytest-dev/pytest-xdist#1386). The same suffix, set where this pytest reads
    it; nothing is done where xdist's own took effect. tests/test_examples.py checks that its tests carry
    their group.
    """
    for item in items:
        names = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                 for mark in item.iter_markers("xdist_group")}
        if not names:
            continue
        suffix = "@" + "_".join(sorted(names))
        if not item.nodeid.endswith(suffix) and hasattr(item, "_id"):
            from _pytest.nodeid import NodeId

            item._id = NodeId.parse(item.nodeid + suffix)


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for every test of this process that needs one.

    ``local[2]``, 4 shuffle partitions without adaptive coalescing and Arrow batches of 16 rows, so that
    queries are scattered over partitions and cross batch boundaries (tests/test_spark.py relies on it).
    A test that changes a setting restores it. The JVM compiles with its quick compiler only and collects
    garbage on one thread: the tests' jobs are small, and its optimizing compiler took twice the CPU (36 to
    42 s against 17 to 22 s for tests/test_columns.py's Spark cases twice over) beside the other worker.
    The Python workers start from tests/spark_daemon.py, which spares PySpark 4.0 a re-read of its zip
    archives at every task (0.1 to 0.5 s a task).
    """
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("Spark needs a Java runtime, and `java` is not on PATH")
    from sklearn_rank import spark as skr_spark

    try:
        skr_spark._import_pyspark()
    except ImportError as error:  # this PySpark refuses the installed pandas or pyarrow for Arrow functions
        pytest.skip(str(error))
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    interrupt = signal.getsignal(signal.SIGINT)  # SparkContext replaces it, and keeps it after stop()
    session = (SparkSession.builder.master("local[2]").appName("sklearn-rank-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.log.level", "ERROR")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.sql.adaptive.enabled", "false")  # keep the 4 partitions (no coalescing)
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "16")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
               # the Python workers' daemon: PySpark's, without re-reading its zip archives at every task
               .config("spark.python.daemon.module", "spark_daemon")
               .config("spark.executorEnv.PYTHONPATH", os.path.dirname(__file__))
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    # PySpark's handler calls into the stopped context: an interrupt at the worker's shutdown (pytest-xdist)
    # raised an AttributeError inside it
    signal.signal(signal.SIGINT, interrupt)


@pytest.fixture(scope="session")
def dask_cluster():
    """One local Dask cluster per process: two worker processes (not threads), so that the partitions, the
    plan and the partial reports are pickled and sent, as on a real cluster, and the workers import
    sklearn_rank themselves."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def client(dask_cluster):
    """A client of the shared cluster, the default scheduler only while the module that asked runs (other
    Dask tests use Dask's own local scheduler)."""
    import distributed

    with distributed.Client(dask_cluster) as client:
        yield client


@pytest.fixture
def ranx():
    """The ranx module. Its first evaluation in a process costs seconds of numba compilation of typed
    containers (not cached on disk), so the tests that use it share one worker (see _GROUP_BY_FIXTURE)."""
    return pytest.importorskip("ranx")


@pytest.fixture
def small_fast_path(monkeypatch):
    """Every TREC file takes the fast path when it can, in chunks of a few rows, with a short sample,
    and the hash join works in blocks of a few rows."""
    pytest.importorskip("pandas")  # (without it, the line-by-line reader reads everything)
    from sklearn_rank.io import _trec_eval, _trec_fast, _trec_keys

    monkeypatch.setattr(_trec_fast, "_FAST_MIN_BYTES", 0)
    monkeypatch.setattr(_trec_fast, "_CHUNK_ROWS", 7)
    monkeypatch.setattr(_trec_fast, "_SAMPLE_LINES", 3)
    monkeypatch.setattr(_trec_fast, "_SAMPLE_BYTES", 64)
    monkeypatch.setattr(_trec_fast, "_SCAN_BLOCK", 4096)
    monkeypatch.setattr(_trec_keys, "_HASH_BLOCK", 5)
    monkeypatch.setattr(_trec_eval, "_HASH_BLOCK", 5)


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory):
    """One run of ``sklearn-rank demo`` for the session (tests/test_main.py, tests/test_demo_baselines.py), in a
    process of its own: (standard output, the PNG file of ``--plot``, or None without matplotlib). The figure
    changes nothing in what is printed."""
    plot = None
    if importlib.util.find_spec("matplotlib") is not None:
        plot = tmp_path_factory.mktemp("demo") / "demo.png"
    out = subprocess.run([sys.executable, "-m", "sklearn_rank", "demo", *(["--plot", str(plot)] if plot else [])],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout, plot
