"""One-line summaries of a page of the API reference, for the API index.

``.. api-summary:: metrics`` reads ``api/metrics.rst`` and writes one autosummary table of the
names it lists (its own ``autosummary`` tables, in order, each under the ``currentmodule`` in
force there): each public name with the first line of its docstring, linked to its entry. The
names come from the page itself, so the index lists what the pages document and nothing else.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

CURRENT_MODULE = re.compile(r"^\.\. (?:current)?module:: *(\S+)")
AUTOSUMMARY = re.compile(r"^\.\. autosummary::")


def page_names(text):
    """The names of a page's autosummary tables, each with its module (``sklearn_rank.evaluate``)."""
    module = None
    names = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        match = CURRENT_MODULE.match(line)
        if match:
            module = match.group(1)
        if AUTOSUMMARY.match(line):
            index += 1
            while index < len(lines) and (not lines[index].strip() or lines[index].startswith((" ", "\t"))):
                entry = lines[index].strip()
                if entry and not entry.startswith(":"):
                    names.append(f"{module}.{entry}" if module else entry)
                index += 1
            continue
        index += 1
    return names


class ApiSummary(Directive):
    """``.. api-summary:: PAGE``: the autosummary of the names listed on ``PAGE`` (beside this one)."""

    required_arguments = 1
    has_content = False

    def run(self):
        env = self.state.document.settings.env
        here = Path(env.doc2path(env.docname)).parent
        path = here / f"{self.arguments[0]}.rst"
        env.note_dependency(str(path))
        names = page_names(path.read_text(encoding="utf-8"))
        if not names:
            raise self.error(f"api-summary: {path.name} lists no names in an autosummary table.")
        lines = [".. autosummary::", ""] + [f"   ~{name}" for name in names]
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source=str(path)), self.content_offset, container)
        return container.children


def setup(app):
    app.add_directive("api-summary", ApiSummary)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
