"""The package's shape (docs/architecture.rst): no import circle among its modules, no module too big."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "sklearn_rank"
MAX_LINES = 700


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path):
    """(module, module.name) of each name ``path`` imports from the package, at the top or inside functions."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("sklearn_rank"):
                continue
            # `from . import _engine` names a module; `from ._engine import plan` a name of one
            found.update((target, f"{target}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update((alias.name, alias.name) for alias in node.names if alias.name.startswith("sklearn_rank"))
    return found


def _graph():
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        # the imported name when it is a module (`from . import _engine`), else the module it comes from
        edges = {named if named in modules else module for module, named in _imports(path)}
        graph[name] = {t for t in edges if t in modules and t != name}
    return graph


def _cycle(graph):
    """A cycle as a list of modules, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_graph_finds_a_planted_circle():
    # the check itself: a circle of three modules, and one through a package's __init__, are found
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"p": {"p.m"}, "p.m": {"p"}}) == ["p", "p.m", "p"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_circle():
    graph = _graph()
    assert "sklearn_rank._lists" in graph["sklearn_rank._parts"]  # the graph sees the imports
    cycle = _cycle(graph)
    assert cycle is None, " -> ".join(cycle)


def test_no_module_over_about_700_lines():
    sizes = {str(p.relative_to(PACKAGE.parent)): len(p.read_text().splitlines()) for p in PACKAGE.rglob("*.py")}
    big = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert not big, big
