"""scikit-learn's private names are used in ``sklearn_rank/_sklearn_compat.py`` only.

Every other module of the package uses scikit-learn's public API and the compatibility module's
names, so a new scikit-learn version changes one file. The scan reads the source with ``ast``:
imports of underscore names or ``sklearn.<x>._<y>`` modules, attribute access to underscore
names of anything imported from scikit-learn (``sklearn.__version__``,
``BaseEstimator._validate_data``), the same through ``getattr``/``hasattr`` with a string, and
module paths written as strings (``importlib.import_module("sklearn.utils._indexing")``).
"""

import ast
import pathlib
import re

import pytest

import sklearn_rank

PACKAGE = pathlib.Path(sklearn_rank.__file__).parent
COMPAT = PACKAGE / "_sklearn_compat.py"

# Dunders every object has: reading them says nothing about scikit-learn's internals.
_GENERIC_DUNDERS = {"__name__", "__qualname__", "__module__", "__doc__", "__class__", "__init__", "__call__"}
_MODULE_STRING = re.compile(r"sklearn(\.[A-Za-z_][A-Za-z0-9_]*)+")


def _is_sklearn(module):
    return module == "sklearn" or module.startswith("sklearn.")


def _private(name):
    return name.startswith("_") and name not in _GENERIC_DUNDERS


def _private_path(module):
    return any(_private(part) for part in module.split("."))


def _root_name(node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def private_sklearn_uses(source, filename="<source>"):
    """``line: what`` for every use of a private scikit-learn name in ``source``."""
    tree = ast.parse(source, filename)
    imported = set()  # names bound to scikit-learn modules or objects
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_sklearn(alias.name):
                    imported.add(alias.asname or alias.name.split(".")[0])
                    if _private_path(alias.name):
                        found.append(f"{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and _is_sklearn(node.module):
            for alias in node.names:
                imported.add(alias.asname or alias.name)
                if _private_path(node.module) or _private(alias.name):
                    found.append(f"{node.lineno}: from {node.module} import {alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and _root_name(node.value) in imported:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "hasattr", "setattr", "delattr") and len(node.args) >= 2
              and _root_name(node.args[0]) in imported and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str) and _private(node.args[1].value)):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and _MODULE_STRING.fullmatch(node.value) and _private_path(node.value)):
            found.append(f"{node.lineno}: {node.value!r}")
    return sorted(set(found))


def _package_files():
    return sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def test_no_module_but_the_compat_module_uses_sklearn_privates():
    files = _package_files()
    assert COMPAT in files
    offenders = {}
    for path in files:
        if path == COMPAT:
            continue
        uses = private_sklearn_uses(path.read_text(encoding="utf-8"), str(path))
        if uses:
            offenders[str(path.relative_to(PACKAGE.parent))] = uses
    assert offenders == {}, ("scikit-learn private names belong in sklearn_rank/_sklearn_compat.py; move these "
                             f"behind a name there: {offenders}")


def test_the_scan_sees_the_compat_modules_own_private_imports():
    # The scan is not vacuous: run on the compatibility module, it finds what that module is for.
    uses = private_sklearn_uses(COMPAT.read_text(encoding="utf-8"))
    assert any("import _safe_indexing" in use for use in uses)
    assert any("import _MetadataRequester" in use for use in uses)


@pytest.mark.parametrize("source", [
    "from sklearn.utils import _safe_indexing",
    "from sklearn.utils import check_random_state, _safe_indexing as take",
    "from sklearn.utils._indexing import resample",
    "import sklearn.utils._indexing",
    "import sklearn.utils._indexing as indexing",
    "from sklearn import __version__",
    "import sklearn\nsklearn.__version__",
    "import sklearn as sk\nsk.utils._safe_indexing(X, [0])",
    "from sklearn.base import BaseEstimator\nBaseEstimator._validate_data",
    "from sklearn.base import BaseEstimator\nhasattr(BaseEstimator, '_more_tags')",
    "import importlib\nimportlib.import_module('sklearn.utils._indexing')",
    "def f():\n    from sklearn.utils.metadata_routing import _MetadataRequester",
])
def test_the_scan_finds_private_uses(source):
    assert private_sklearn_uses(source)


@pytest.mark.parametrize("source", [
    "from sklearn.utils import check_random_state",
    "from sklearn.utils.metadata_routing import UNCHANGED, MetadataRequest",
    "from sklearn.base import BaseEstimator\nBaseEstimator.__name__",
    "from ._sklearn_compat import safe_indexing as _take",
    "from sklearn.exceptions import UndefinedMetricWarning as _Base",
    "from . import _inputs\n_inputs._query_codes",
    "import numpy as np\nnp._NoValue",
    "'see sklearn.utils._safe_indexing in the docs'",
    "class A:\n    __metadata_request__fit = {'qid': True}\n    def _more_tags(self):\n        return {}",
])
def test_the_scan_leaves_public_uses_alone(source):
    assert private_sklearn_uses(source) == []
