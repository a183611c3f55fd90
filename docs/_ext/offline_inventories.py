"""Intersphinx inventories for scikit-learn, NumPy, SciPy and pandas, written without network.

The build must not fetch anything, and none of these packages ships its ``objects.inv``. So the
inventories intersphinx reads are written here, at ``config-inited``, from the names these docs
refer to (cross-reference roles in ``docs/``, the docstrings and the examples' imports, and the
"See Also" entries of the docstrings), with the URL each project's documentation gives such a
name (its ``generated/`` page, or a named page for the few that do not follow that rule). A name
not found here stays plain text, as without intersphinx; nothing fails and nothing is fetched.

conf.py points ``intersphinx_mapping`` at the files (``docs/_build/intersphinx/<project>.inv``)
and calls nothing else.
"""

from __future__ import annotations

import ast
import re
import zlib
from pathlib import Path

# project: (base URL, top-level module, {kind: URI pattern}, {name: URI of a page off the rules}).
# In a pattern, {name} is the object's full name and {owner} the class of a method.
PROJECTS = {
    "sklearn": ("https://scikit-learn.org/stable/", "sklearn", {
        "module": "api/{name}.html",
        "object": "modules/generated/{name}.html#{name}",
        "method": "modules/generated/{owner}.html#{name}",
    }, {}),
    "numpy": ("https://numpy.org/doc/stable/", "numpy", {
        "module": "reference/routines.html",
        "object": "reference/generated/{name}.html#{name}",
        "method": "reference/generated/{name}.html#{name}",
    }, {
        "numpy.random.Generator": "reference/random/generator.html#numpy.random.Generator",
        "numpy.random.default_rng": "reference/random/generator.html#numpy.random.default_rng",
        "numpy.random": "reference/random/index.html",
    }),
    "scipy": ("https://docs.scipy.org/doc/scipy/", "scipy", {
        "module": "reference/{short}.html",
        "object": "reference/generated/{name}.html#{name}",
        "method": "reference/generated/{name}.html#{name}",
    }, {}),
    "pandas": ("https://pandas.pydata.org/docs/", "pandas", {
        "module": "reference/index.html",
        "object": "reference/api/{name}.html#{name}",
        "method": "reference/api/{name}.html#{name}",
    }, {}),
}
ALIASES = {"np": "numpy", "pd": "pandas", "sp": "scipy.sparse"}
ROLE = re.compile(r":(?:py:)?(class|func|meth|mod|attr|obj|data|exc):`[~!]?(?:[^`<]*<)?([\w.]+)>?`")
SEE_ALSO_ENTRY = re.compile(r"^\s+~?((?:sklearn|numpy|scipy|pandas)\.[\w.]+)\s*(?::|,|$)", re.M)


def _kind(name, role=None):
    """``module``, ``method`` or ``object`` (a class or a function) of a dotted name."""
    if role == "mod":
        return "module"
    parts = name.split(".")
    if role == "meth" or (len(parts) >= 3 and parts[-2][:1].isupper()):
        return "method"
    return "object"


def referenced_names(paths):
    """``{name: kind}`` of the external names the sources refer to."""
    names = {}
    for path in paths:
        text = Path(path).read_text(encoding="utf-8")
        for role, name in ROLE.findall(text):
            names.setdefault(name, _kind(name, role))
        for name in SEE_ALSO_ENTRY.findall(text):
            names.setdefault(name, _kind(name))
        if path.suffix == ".py" and "examples" in path.parts:
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    for alias in node.names:
                        names.setdefault(f"{node.module}.{alias.name}", "object")
                elif isinstance(node, ast.Import):
                    for alias in node.names:
                        names.setdefault(alias.name, "module")
    resolved = {}
    for name, kind in names.items():
        head, _, rest = name.partition(".")
        name = ALIASES.get(head, head) + ("." + rest if rest else "")
        if name.split(".")[0] in PROJECTS:
            resolved[name] = kind
    return resolved


def inventory_lines(project, names):
    """The lines of a version-2 inventory for the names of one project."""
    _, top, patterns, exceptions = PROJECTS[project]
    lines = []
    for name, kind in sorted(names.items()):
        if name.split(".")[0] != top:
            continue
        owner = name.rpartition(".")[0]
        uri = exceptions.get(name) or patterns[kind].format(name=name, owner=owner,
                                                            short=name.partition(".")[2])
        role = {"module": "py:module", "method": "py:method"}.get(kind)
        if role is None:
            role = "py:class" if name.rpartition(".")[2][:1].isupper() else "py:function"
        lines.append(f"{name} {role} 1 {uri} -")
        if kind == "object":  # :obj: and :func:/:class: mix-ups resolve too
            other = "py:function" if role == "py:class" else "py:class"
            lines.append(f"{name} {other} 2 {uri} -")
    return lines


def write_inventory(path, project, names):
    header = (f"# Sphinx inventory version 2\n# Project: {project}\n# Version: \n"
              "# The remainder of this file is compressed using zlib.\n").encode()
    body = "".join(line + "\n" for line in inventory_lines(project, names)).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header + zlib.compress(body))


def sources(srcdir):
    docs = Path(srcdir)
    root = docs.parent
    return ([path for path in docs.rglob("*.rst") if "_build" not in path.parts
             and "auto_examples" not in path.parts]
            + sorted((root / "sklearn_rank").rglob("*.py")) + sorted((root / "examples").glob("*.py")))


def write_inventories(app, config):
    names = referenced_names(sources(app.srcdir))
    for project, (_, location) in config.intersphinx_mapping.items():
        if project in PROJECTS and not str(location).startswith(("http:", "https:")):
            write_inventory(Path(app.srcdir) / location, project, names)


def setup(app):
    # Before intersphinx validates and loads the mapping.
    app.connect("config-inited", write_inventories, priority=100)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
