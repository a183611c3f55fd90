"""Every public callable documents exactly its own parameters.

For each name in ``__all__`` of ``sklearn_rank`` and of its public modules, the names in the
numpydoc "Parameters" (and "Other Parameters") section are compared with ``inspect.signature``:
functions, each class's constructor (against the class docstring) and each public method the
package defines. A record class, whose constructor only stores each argument under the same
name, may document its fields once, in "Attributes", instead of repeating them under
"Parameters"; then the "Attributes" names must equal the constructor's parameters.

The sections are read by the small parser below, so the test runs without numpydoc (which only
the ``docs`` extra installs); where numpydoc is importable, the parser is checked against
``numpydoc.docscrape`` on every docstring it reads.
"""

import importlib
import inspect
import re

import pytest

import sklearn_rank

PUBLIC_MODULES = ["sklearn_rank", "sklearn_rank.io", "sklearn_rank.stats", "sklearn_rank.model_selection",
                  "sklearn_rank.datasets", "sklearn_rank.exceptions", "sklearn_rank.dask", "sklearn_rank.spark",
                  "sklearn_rank.plot", "sklearn_rank.inspection", "sklearn_rank.feature_selection"]
PARAMETER_SECTIONS = ("Parameters", "Other Parameters")


# --------------------------------------------------------------------------------------------
# A numpydoc section reader (names only).
# --------------------------------------------------------------------------------------------
def _is_header(lines, i):
    return (i + 1 < len(lines) and bool(lines[i].strip())
            and re.fullmatch(r"-{3,}", lines[i + 1].strip()) is not None)


def section_names(doc, titles):
    """Names documented in the numpydoc sections ``titles`` of ``doc``, in order; None without any of them.

    An entry is a line at the section's own indentation, ``name : type``, ``name`` or
    ``x, y : type`` (a combined entry of several names); the lines indented under it are its
    description.
    """
    if not doc:
        return None
    lines = inspect.cleandoc(doc).splitlines()
    names, found = [], False
    for i in range(len(lines)):
        if not (_is_header(lines, i) and lines[i].strip() in titles):
            continue
        found = True
        body = []
        for j in range(i + 2, len(lines)):
            if _is_header(lines, j):
                break
            body.append(lines[j])
        filled = [line for line in body if line.strip()]
        if not filled:
            continue
        indent = min(len(line) - len(line.lstrip()) for line in filled)
        for line in filled:
            if len(line) - len(line.lstrip()) == indent:
                header = line.strip().split(":", 1)[0].replace("\\", "")
                names.extend(name.strip() for name in header.split(",") if name.strip())
    return names if found else None


# --------------------------------------------------------------------------------------------
# The public callables.
# --------------------------------------------------------------------------------------------
def _ours(obj):
    return (getattr(obj, "__module__", None) or "").split(".")[0] == "sklearn_rank"


def _signature_names(func, *, drop_first=False):
    """Parameter names as numpydoc writes them: ``*args`` and ``**kwargs`` with their stars."""
    stars = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    names = [stars.get(p.kind, "") + p.name for p in inspect.signature(func).parameters.values()]
    return names[1:] if drop_first else names


def _public_methods(cls):
    """(name, function, drop_first) of the public methods the package defines, overrides first."""
    seen = set()
    for klass in cls.__mro__:
        for name, raw in vars(klass).items():
            if name in seen:
                continue
            seen.add(name)
            if not _ours(klass) or (name.startswith("_") and name != "__call__"):
                continue
            if isinstance(raw, staticmethod):
                yield name, raw.__func__, False
            elif isinstance(raw, classmethod):
                yield name, raw.__func__, True
            elif inspect.isfunction(raw):
                yield name, raw, True


def _constructor_owner(cls):
    """The class whose ``__init__`` or ``__new__`` (a named tuple's) builds instances of ``cls``."""
    return next(klass for klass in cls.__mro__ if "__init__" in vars(klass) or "__new__" in vars(klass))


def _cases():
    """(label, docstring, signature names or None, kind) for every public callable, each once."""
    cases, done = [], set()
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if not callable(obj) or id(obj) in done:
                continue
            done.add(id(obj))
            label = f"{module_name}.{name}"
            if not inspect.isclass(obj):
                cases.append((label, obj.__doc__, _signature_names(obj), "function"))
                continue
            # A constructor the package does not define (Exception's, object's) has nothing to document.
            signature = _signature_names(obj) if _ours(_constructor_owner(obj)) else None
            cases.append((label, obj.__doc__, signature, "class"))
            for method_name, func, drop_first in _public_methods(obj):
                cases.append((f"{label}.{method_name}", func.__doc__, _signature_names(func, drop_first=drop_first),
                              "method"))
    return cases


CASES = _cases()


def test_the_public_surface_is_found():
    labels = {label for label, *_ in CASES}
    # One of each kind, so that a change in how the names are collected cannot empty the test.
    assert {"sklearn_rank.ndcg_score", "sklearn_rank.RankingEvaluator", "sklearn_rank.RankingEvaluator.fit",
            "sklearn_rank.io.read_run", "sklearn_rank.stats.compare",
            "sklearn_rank.model_selection.QueryGroupKFold.split", "sklearn_rank.datasets.make_ranking",
            "sklearn_rank.dask.evaluate",
            "sklearn_rank.exceptions.TrecFormatError"} <= labels
    assert len(labels) == len(CASES)


@pytest.mark.parametrize("label, doc, signature, kind", CASES, ids=[case[0] for case in CASES])
def test_docstring_documents_exactly_its_parameters(label, doc, signature, kind):
    documented = section_names(doc, PARAMETER_SECTIONS)
    if kind == "class" and signature is None:
        assert documented is None, f"{label} documents {documented}, but its constructor is not the package's."
        return
    if kind == "class" and documented is None:
        # A record class documents its constructor's arguments once, as its attributes.
        attributes = section_names(doc, ("Attributes",))
        assert attributes == signature, (
            f"{label}: the constructor takes {signature}, but the class docstring has no 'Parameters' "
            f"section and its 'Attributes' ({attributes}) are not exactly those: document the "
            f"constructor under 'Parameters' (or, for a record class, list exactly its fields under "
            f"'Attributes').")
        return
    documented = documented or []
    missing = [name for name in signature if name not in documented]
    extra = [name for name in documented if name not in signature]
    assert not missing and not extra, f"{label}: not documented {missing}; documented but not taken {extra}."
    assert documented == signature, f"{label}: documented in the order {documented}, signature order {signature}."


# --------------------------------------------------------------------------------------------
# The reader agrees with numpydoc.
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("Summary.\n\n    Parameters\n    ----------\n    x, y : array-like\n        Data.\n\n"
     "        More about it.\n    k : int\n        Cut-off.\n    **kwargs : dict\n        Passed on.\n\n"
     "    Returns\n    -------\n    z : float\n        Not a parameter.\n", ["x", "y", "k", "**kwargs"]),
    ("Summary.\n\nParameters\n----------\nx\n    No type.\n\\*args : tuple\n    Escaped stars.\n",
     ["x", "*args"]),
    ("Summary.\n\n    Parameters\n    ----------\n    a : int\n\n    Other Parameters\n    ----------------\n"
     "    b : int\n        Rarely used.\n", ["a", "b"]),
    ("Summary.\n\n    Parameters\n    ----------\n\n    Returns\n    -------\n    r : int\n", []),
    ("Summary without sections.", None),
], ids=["combined-and-kwargs", "unindented-escaped", "other-parameters", "empty", "none"])
def test_section_reader(text, expected):
    assert section_names(text, PARAMETER_SECTIONS) == expected


def test_section_reader_agrees_with_numpydoc():
    docscrape = pytest.importorskip("numpydoc.docscrape", reason="numpydoc (docs extra) is not installed")
    compared = 0
    for label, doc, _, _ in CASES:
        if not doc:
            continue
        parsed = docscrape.NumpyDocString(doc)
        for titles in (PARAMETER_SECTIONS, ("Attributes",)):
            expected = [name.strip().replace("\\", "") for title in titles for entry in parsed[title]
                        for name in entry.name.split(",")]
            assert (section_names(doc, titles) or []) == expected, label
            compared += 1
    assert compared > 50


# --------------------------------------------------------------------------------------------
# The docstring machinery of the metric functions.
# --------------------------------------------------------------------------------------------
def _entries(doc):
    """Parameter entries of a docstring: name header -> (type line, description lines)."""
    lines = inspect.cleandoc(doc).splitlines()
    start = next(i for i in range(len(lines)) if lines[i] == "Parameters") + 2
    stop = next((i for i in range(start, len(lines)) if _is_header(lines, i)), len(lines))
    entries, current = {}, None
    for line in lines[start:stop]:
        if line and not line.startswith(" "):
            current = entries[line.split(" : ")[0]] = [line]
        elif line.strip():
            current.append(line.strip())
    return entries


def test_metric_functions_take_shared_entries_verbatim():
    from sklearn_rank import metrics

    snippets = {key: inspect.cleandoc(text).splitlines() for key, text in metrics._PARAMETER_DOCS.items()}
    snippets = {key: [lines[0]] + [line.strip() for line in lines[1:]] for key, lines in snippets.items()}
    used = set()
    for name in metrics.__all__:
        for header, entry in _entries(getattr(metrics, name).__doc__).items():
            if header in snippets and entry == snippets[header]:
                used.add(header)
    # Every shared entry is used, and the common options read the same wherever they appear.
    assert used == set(snippets)
    assert _entries(metrics.ndcg_score.__doc__)["ties"] == _entries(metrics.mean_rank.__doc__)["ties"]
    assert _entries(metrics.evaluate.__doc__)["missing"] == snippets["missing"]


def _function(source):
    namespace = {}
    exec(source, namespace)
    return namespace["f"]


def test_document_parameters_fills_in_signature_order():
    from sklearn_rank.metrics import _document_parameters

    f = _function('def f(y_true, y_score, *, k, ties="expected", qid=None):\n'
                  '    """Summary.\n\n    Parameters\n    ----------\n    k : int\n        The cut-off.\n\n'
                  '    Returns\n    -------\n    v : float\n        Value.\n    """\n')
    doc = _document_parameters(f).__doc__
    assert section_names(doc, PARAMETER_SECTIONS) == ["y_true", "y_score", "k", "ties", "qid"]
    entries = _entries(doc)
    assert entries["k"] == ["k : int", "The cut-off."]
    assert entries["qid"][0].startswith("qid : array-like")
    assert section_names(doc, ("Returns",)) == ["v"]
    assert doc.startswith("Summary.\n\n    Parameters\n    ----------\n    y_true, y_score : array-like\n")


def test_document_parameters_prefers_own_entries():
    from sklearn_rank.metrics import _document_parameters

    f = _function('def f(y_true, y_score, ties="expected"):\n'
                  '    """Summary.\n\n    Parameters\n    ----------\n    y_true, y_score : ndarray\n        Mine.\n'
                  '    ties : str\n        Mine too.\n    """\n')
    entries = _entries(_document_parameters(f).__doc__)
    assert entries == {"y_true, y_score": ["y_true, y_score : ndarray", "Mine."], "ties": ["ties : str", "Mine too."]}


@pytest.mark.parametrize("source, match", [
    ('def f(y_true, y_score, *, unheard_of=None):\n    """S.\n\n    Parameters\n    ----------\n    """\n',
     "'unheard_of' of .* is not documented"),
    ('def f(y_true, y_score):\n    """S.\n\n    Parameters\n    ----------\n    gain : str\n        G.\n    """\n',
     r"documents \['gain'\], which are not parameters"),
    ('def f(a, b, c):\n    """S.\n\n    Parameters\n    ----------\n    a, c : int\n        A.\n'
     '    b : int\n        B.\n    """\n', "documents a, c together, but they are not consecutive"),
    ('def f(a):\n    """S.\n\n    Parameters\n    ----------\n    a : int\n        A.\n    a : str\n'
     '        Again.\n    """\n', "a second time"),
    ('def f(a):\n    """S."""\n', "no 'Parameters' section"),
    # y_score written here: the shared "y_true, y_score" entry must not document it a second time.
    ('def f(y_true, y_score):\n    """S.\n\n    Parameters\n    ----------\n    y_score : ndarray\n'
     '        Mine.\n    """\n', "'y_true' of .* is not documented"),
], ids=["undocumented", "not-a-parameter", "not-consecutive", "twice", "no-section", "own-and-shared"])
def test_document_parameters_refuses_drift(source, match):
    from sklearn_rank.metrics import _document_parameters

    with pytest.raises(TypeError, match=match):
        _document_parameters(_function(source))


def test_document_parameters_without_docstrings():
    # python -OO: no docstring, nothing to fill, and the import still works.
    from sklearn_rank.metrics import _document_parameters

    f = _function("def f(a):\n    pass\n")
    assert _document_parameters(f) is f and f.__doc__ is None
