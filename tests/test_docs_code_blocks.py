"""Every ``code-block:: python`` of the docs runs as pasted, in page order.

Each page's ``.. code-block:: python`` (and ``pycon``) blocks run one after the other in one namespace,
in a fresh interpreter per page (so no import, configuration or global state of one page reaches
another), in an empty working directory. A failure names the page, the block and the page's line.
The ``>>>`` examples of the pages run as doctests in tests/test_examples.py.

A page whose blocks import an optional package that is not installed (LightGBM, XGBoost, Dask,
PySpark, matplotlib, ...) is skipped with the package's name. The few blocks that are recipes for the
reader's own cluster or data (a folder of Parquet files, a Spark session) are listed in
``NOT_RUN`` with the reason and the test that runs them on data of its own; each entry names a piece
of its block's text, so an entry that no longer matches its block fails instead of going stale.
"""

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
TIMEOUT = 120  # seconds per page; every page takes a few seconds

# Packages a page may need that the core install lacks: their absence skips the page.
OPTIONAL = {"lightgbm", "xgboost", "dask", "distributed", "pyspark", "matplotlib", "pandas", "pyarrow",
            "array_api_strict", "torch", "cupy", "duckdb", "polars", "pytrec_eval"}

# (page, block number counted from 1): (a piece of the block's text, why it is not run here).
NOT_RUN = {
    ("_scaling_spark.rst", 1): ('session.read.parquet("lake/predictions/")',
                                "reads the reader's Parquet folder on a Spark session; tests/test_spark.py "
                                "runs the docstring example and the section's claims on a local session"),
    ("_scaling_dask.rst", 1): ("Client(LocalCluster(",
                               "starts a Dask cluster; tests/test_dask.py runs the same searches on a local "
                               "cluster"),
    ("scaling.rst", 1): ("'lake/*.parquet'",
                         "reads the reader's folder of Parquet files; tests/test_batches.py runs the recipe"),
    ("scaling.rst", 2): ('pl.scan_parquet("lake/*.parquet")',
                         "reads the reader's folder of Parquet files; tests/test_batches.py runs the recipe"),
}

# Environment a page's text asks for before its blocks run.
PAGE_ENV = {
    "filtered.rst": {"SCIPY_ARRAY_API": "1"},  # "with SCIPY_ARRAY_API=1 set", says the block
}

DIRECTIVE = re.compile(r"^(?P<indent>\s*)\.\. (?:code-block|code|sourcecode)::\s*(?P<language>\S+)\s*$")
PYTHON = {"python", "python3", "py", "py3", "pycon"}


def code_blocks(text):
    """The python blocks of a page: ``(number, first line of its code, language, code)``, in order.

    The number counts the page's python blocks only (from 1), as the test's messages do.
    """
    lines = text.splitlines()
    blocks = []
    index = 0
    while index < len(lines):
        match = DIRECTIVE.match(lines[index])
        index += 1
        if not match or match.group("language").lower() not in PYTHON:
            continue
        indent = len(match.group("indent"))
        # Options (":caption: ...") then the body: every line indented deeper than the directive.
        while index < len(lines) and lines[index].strip().startswith(":") and \
                len(lines[index]) - len(lines[index].lstrip()) > indent:
            index += 1
        body = []
        start = None
        while index < len(lines) and (not lines[index].strip()
                                      or len(lines[index]) - len(lines[index].lstrip()) > indent):
            if start is None and lines[index].strip():
                start = index + 1
            body.append(lines[index])
            index += 1
        code = textwrap.dedent("\n".join(body)).strip("\n")
        if match.group("language").lower() == "pycon":
            code = "\n".join(line[4:] for line in code.splitlines() if line.startswith((">>> ", "... "))
                             or line in (">>>", "..."))
        blocks.append((len(blocks) + 1, start, match.group("language"), code))
    return blocks


def pages_with_blocks():
    return sorted(path.name for path in DOCS.glob("*.rst") if code_blocks(path.read_text(encoding="utf-8")))


# Runs in the child: the page's blocks from standard input, in one namespace. Each block is compiled
# with the page as its file name and padded to its line, so a traceback points into the page.
RUNNER = r"""
import json, sys, traceback
page, blocks, optional = json.load(sys.stdin)
namespace = {"__name__": "__main__"}
for number, line, code in blocks:
    try:
        exec(compile("\n" * (line - 1) + code, "docs/" + page, "exec"), namespace)
    except ModuleNotFoundError as error:
        top = (error.name or "").split(".")[0]
        if top in optional:
            print(json.dumps({"missing": top, "block": number}))
            sys.exit(3)
        traceback.print_exc()
        print(json.dumps({"failed": number, "line": line}))
        sys.exit(1)
    except BaseException:
        traceback.print_exc()
        print(json.dumps({"failed": number, "line": line}))
        sys.exit(1)
"""


def test_blocks_are_found():
    # The extraction itself: a block's options, its indentation, a pycon block's prompts.
    text = ("Intro\n\n.. code-block:: python\n   :caption: one\n\n   import math\n\n   x = math.pi\n"
            "back to prose\n\n.. code-block:: bash\n\n   ls\n\n  .. code-block:: pycon\n\n"
            "     >>> y = x + 1\n     >>> print(\n     ...     y)\n     4.14...\n")
    assert code_blocks(text) == [(1, 6, "python", "import math\n\nx = math.pi"),
                                 (2, 17, "pycon", "y = x + 1\nprint(\n    y)")]
    assert {"model_selection.rst", "scaling.rst"} <= set(pages_with_blocks())


def test_not_run_entries_match_their_blocks():
    for (page, number), (marker, _) in NOT_RUN.items():
        blocks = code_blocks((DOCS / page).read_text(encoding="utf-8"))
        assert number <= len(blocks), f"docs/{page} has no code block {number}: update NOT_RUN"
        assert marker in blocks[number - 1][3], (f"docs/{page}'s code block {number} no longer holds "
                                                 f"{marker!r}: update NOT_RUN")


@pytest.mark.parametrize("page", pages_with_blocks())
def test_page_code_blocks_run_as_pasted(page, tmp_path):
    blocks = code_blocks((DOCS / page).read_text(encoding="utf-8"))
    run = [(number, line, code) for number, line, _, code in blocks if (page, number) not in NOT_RUN]
    if not run:
        pytest.skip("; ".join(f"code block {number}: {NOT_RUN[page, number][1]}"
                              for number, *_ in blocks))
    env = dict(os.environ, OMP_NUM_THREADS="1", MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), **PAGE_ENV.get(page, {}))
    done = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps([page, run, sorted(OPTIONAL)]),
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    last = (done.stdout.strip().splitlines() or ["{}"])[-1]
    if done.returncode == 3:
        missing = json.loads(last)
        pytest.skip(f"docs/{page}'s code block {missing['block']} needs {missing['missing']}, not installed")
    if done.returncode != 0:
        where = json.loads(last) if last.startswith("{") else {}
        pytest.fail(f"docs/{page}: code block {where.get('failed', '?')} (line {where.get('line', '?')}) "
                    f"failed as pasted:\n{done.stderr[-4000:]}", pytrace=False)
