"""Sphinx configuration of the sklearn-rank documentation.

Build (warnings are errors):

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The build needs no network. sphinx-gallery runs the example scripts of ``examples/``
once each and builds the gallery (``auto_examples/``, generated, not committed) with their
printed output and figures; the command-line session of ``docs/cli.rst`` runs once too, and
its output is included in that page, so every number shown comes from the code as it is.
Formulas are converted to MathML at build time (``_ext/mathml.py``): the pages need no
JavaScript and no network to show them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# Document the checkout this file belongs to, installed or not.
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))
# One OpenMP thread for the examples sphinx-gallery runs in this process: on a busy machine the
# thread pools of HistGradientBoosting, LightGBM and XGBoost spin against each other and a
# four-second example takes a minute. Set before any of them is imported.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import sklearn_rank  # noqa: E402

# -- Project -------------------------------------------------------------------------------
project = "sklearn-rank"
author = "sklearn-rank developers"
copyright = "sklearn-rank developers"
# The version lives in one place, sklearn_rank/__init__.py (pyproject.toml reads it too).
release = sklearn_rank.__version__
version = release

# -- General -------------------------------------------------------------------------------
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "mathml",  # docs/_ext/mathml.py: formulas as MathML, rendered by the browser without JavaScript
    "metric_names",  # docs/_ext/metric_names.py: ndcg@10 is a metric, not an e-mail address
    "offline_inventories",  # docs/_ext/offline_inventories.py: intersphinx without network
    "scoring_names",  # docs/_ext/scoring_names.py: the table of scorer names, from the registry
    "api_summary",  # docs/_ext/api_summary.py: the API index's one-line summaries
    "sphinx_copybutton",  # a copy button on code blocks that leaves out prompts and output
]
html_math_renderer = "mathml"
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "_scaling_*.rst",  # included by scaling.rst
                    "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip"]
default_role = "literal"
nitpicky = False

# API pages are written by hand (one page per role) with autosummary tables and
# autodoc entries on the same page: no stub files are generated into the source tree.
autosummary_generate = False
autodoc_typehints = "none"
autodoc_member_order = "bysource"

# numpydoc: conservative settings. The members of each class are listed explicitly
# in the API pages, so numpydoc does not add member tables of its own.
numpydoc_show_class_members = False
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# numpydoc validation: a docstring that no longer matches its object fails the build (-W).
# tests/test_docstrings.py checks the parameter names of every public callable in the test
# suite too, without needing Sphinx.
numpydoc_validation_checks = {
    # General layout.
    "GL01", "GL02", "GL03", "GL05", "GL06", "GL07", "GL08", "GL09", "GL10",
    # Summary line.
    "SS01", "SS02", "SS03", "SS04", "SS06",
    # Parameters: documented exactly as in the signature (PR01-PR03), with a type and a
    # description (PR04, PR07), written the numpydoc way (PR05, PR06, PR08-PR10).
    "PR01", "PR02", "PR03", "PR04", "PR05", "PR06", "PR07", "PR08", "PR09", "PR10",
    # Returns and Yields sections present and well formed.
    "RT01", "RT04", "RT05", "YD01",
    # See Also entries.
    "SA02", "SA04",
}
# Left off:
# - ES01 (extended summary), EX01 (examples), SA01 (See Also): completeness, not correctness;
#   short methods (``fit``, ``get_n_splits``, ...) are clear without them.
# - RT02 (Returns line holds only the type): the project names its return values,
#   scikit-learn style (``mrr : float in [0, 1]``).
# - RT03 (return value has a description): always fails on ``set_score_request``, whose
#   docstring scikit-learn writes (and today on a few one-line Returns entries of ours).
# - SS05 (summary starts with an infinitive): a heuristic on the first word's last letter that
#   flags noun-phrase summaries ("Scorers for multi-metric search, ...").
# - SA03 (See Also descriptions capitalised): style only.
numpydoc_validation_overrides = {
    # A record class (a dataclass, a result object) whose constructor only stores each argument
    # as the attribute of the same name documents its fields once, under "Attributes", without a
    # "Parameters" section. tests/test_docstrings.py checks that those attributes are exactly the
    # constructor's parameters.
    "PR01": [r"(?ms)\A(?!.*^Parameters\n-{3,}$)(?=.*^Attributes\n-{3,}$)"],
}

# Intersphinx without network: the build must not fetch anything, and none of these projects
# ships its objects.inv. docs/_ext/offline_inventories.py writes each inventory below from the
# names these docs refer to, with the URL the project's documentation gives them; intersphinx
# reads the files. A name the files lack stays plain text (nothing fails, nothing is fetched).
intersphinx_mapping = {
    "sklearn": ("https://scikit-learn.org/stable/", "_build/intersphinx/sklearn.inv"),
    "numpy": ("https://numpy.org/doc/stable/", "_build/intersphinx/numpy.inv"),
    "scipy": ("https://docs.scipy.org/doc/scipy/", "_build/intersphinx/scipy.inv"),
    "pandas": ("https://pandas.pydata.org/docs/", "_build/intersphinx/pandas.inv"),
}
intersphinx_timeout = 5  # seconds; only reached if a location above is ever made a URL

# sphinx-copybutton: copy a ``>>>`` example without its prompts (``>>> ``, ``... ``) and without
# the output lines, and a shell session (``$ ``) as its commands alone.
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True

# -- Example gallery (sphinx-gallery) ----------------------------------------------------------
# Every script of examples/ runs (filename_pattern matches them all): a new script joins the
# gallery by being there. Figures are drawn with matplotlib on the Agg backend and scraped.
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*\.py$",
    "ignore_pattern": r"__init__\.py$",
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "download_all_examples": False,
    "show_signature": False,
    "remove_config_comments": True,
    "write_computation_times": False,
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "thumbnail_size": (320, 224),
    "min_reported_time": 3600,  # the running time of a script depends on the machine: not shown
}

# -- HTML ------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"sklearn-rank {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    # No right-hand sidebar: at a 1280 px window it would leave the text column about 70
    # characters of code wide. The page's table of contents heads the left sidebar instead.
    "secondary_sidebar_items": [],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"**": ["page-toc", "sidebar-nav-bs"], "index": [], "changelog": []}
html_show_sourcelink = False


# -- Output produced at build time -------------------------------------------------------------
GENERATED = DOCS / "_build" / "generated"
CLI_FILES = DOCS / "_static" / "cli"

# The command-line session shown in cli.rst, and the demo of quickstart.rst:
# (output file, arguments after `sklearn-rank`).
CLI_SESSION = [
    ("evaluate_trec", ["evaluate", "qrels.txt", "bm25.run", "-m", "map", "mrr", "ndcg@10", "P@5"]),
    ("evaluate_trec_per_query", ["evaluate", "qrels.txt", "bm25.run", "-m", "map", "ndcg@10", "--per-query"]),
    ("evaluate_table_json", ["evaluate", "scores.csv", "--qid", "query", "--score", "score", "--label",
                             "relevant", "-m", "mrr", "hits@1", "--format", "json"]),
    ("compare_runs", ["compare", "qrels.txt", "bm25.run", "dense.run", "-m", "ndcg@10"]),
    ("demo", ["demo"]),
]
# Figures written by --plot and shown in cli.rst: (file name, arguments after `sklearn-rank`).
CLI_FIGURES = [
    ("evaluate_bm25.png", ["evaluate", "qrels.txt", "bm25.run", "-m", "map", "ndcg@10"]),
    ("compare_runs.png", ["compare", "qrels.txt", "bm25.run", "dense.run", "-m", "ndcg@10"]),
]


def _run(arguments, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    # One OpenMP thread: on a busy machine the thread pools of HistGradientBoosting, LightGBM and
    # XGBoost spin against each other and a four-second example takes a minute.
    env.setdefault("OMP_NUM_THREADS", "1")
    done = subprocess.run([sys.executable, *arguments], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"`{' '.join(arguments)}` failed with exit code {done.returncode}:\n{done.stderr}")
    return done.stdout


def generate_outputs(app):
    """Run the command-line session; keep what it prints (sphinx-gallery runs the examples)."""
    (GENERATED / "cli").mkdir(parents=True, exist_ok=True)
    for name, arguments in CLI_SESSION:
        output = _run(["-m", "sklearn_rank", *arguments], cwd=CLI_FILES)
        text = "$ sklearn-rank " + " ".join(arguments) + "\n" + output
        (GENERATED / "cli" / f"{name}.txt").write_text(text, encoding="utf-8")
    for name, arguments in CLI_FIGURES:
        _run(["-m", "sklearn_rank", *arguments, "--plot", str(GENERATED / "cli" / name)], cwd=CLI_FILES)


# A break opportunity after each underscore between two word characters of an identifier, in the
# <span class="pre"> words of the inline code of a table.
_UNDERSCORE_BREAK = re.compile(r"(?<=\w_)(?=\w)")
_TABLE = re.compile(r"<table\b.*?</table>", re.DOTALL)
_CODE_WORD = re.compile(r'<span class="pre">([^<]*)</span>')


def break_identifiers_in_tables(app, pagename, templatename, context, doctree):
    """Let a long identifier in a table cell wrap after an underscore, never inside a word.

    The stylesheet keeps each word of inline code on one line (a phone showed
    ``mean_reciprocal_ran`` and ``k`` on two lines); on its own that made the metric tables wider
    than the text column at 1280 px (``adjusted_geometric_mean_rank_index``). In the page's HTML,
    the word is cut into spans after each inner underscore with a ``<wbr>`` between them, so the
    identifier wraps between its words. The doctree is untouched: the search index, the text and
    what a reader copies stay the same.
    """
    body = context.get("body")
    if not body or "<table" not in body:
        return

    def cut(match):
        parts = _UNDERSCORE_BREAK.split(match.group(1))
        return '<span class="pre">' + '</span><wbr><span class="pre">'.join(parts) + "</span>"

    context["body"] = _TABLE.sub(lambda table: _CODE_WORD.sub(cut, table.group()), body)


def setup(app):
    app.connect("builder-inited", generate_outputs)
    app.connect("html-page-context", break_identifiers_in_tables)
