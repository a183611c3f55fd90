"""PySpark's daemon of Python workers for the tests' Spark session (``spark.python.daemon.module``,
tests/conftest.py), with one change: a zip archive on the workers' path is not read again when the
import caches are invalidated.

PySpark 4.0's worker calls ``importlib.invalidate_caches()`` before every task, and CPython 3.11's
zip importers then re-read their whole archive: pyspark.zip (1,220 files) for each of its dozen
package folders imported, py4j's and the 5,000-entry spark-core jar twice, at every task. That took
0.1 to 0.2 s of each task (0.5 s on a busy machine): 40 tasks of nothing ran in 7 s, 2 s without it.
PySpark 4.3 invalidates the caches only when a task adds files to the path; the tests add none,
and the archives do not change while the session runs.

Run as ``python -m spark_daemon pyspark.worker`` by Spark; importing it does nothing.
"""

import runpy
import zipimport

if __name__ == "__main__":
    zipimport.zipimporter.invalidate_caches = lambda self: None
    runpy.run_module("pyspark.daemon", run_name="__main__", alter_sys=True)
