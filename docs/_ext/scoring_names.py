"""The table of every metric name the scorers accept, written from the registry at build time.

``.. scoring-names::`` writes one row per metric of ``sklearn_rank._registry``: the names it is
written with (``@k`` where it takes a cut-off), the other spellings the registry accepts, its
direction, the scorer's name (``neg_...`` for a lower-is-better metric, whose scorer is negated) and
a link to the row that defines it on the metrics page. The table is built from the registry each time the docs are
built, so a metric added, renamed or given a synonym appears without an edit.

The links: this extension gives each row of the metric tables of the metrics page (the tables of
class ``metric-table``) the id ``metric-<base>`` of the metric it defines, and registers it as a
label. A metric of the registry that no table defines leaves its link unresolved, which fails the
build under ``-W``.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList
from sphinx.util import logging

from sklearn_rank._registry import _SPECS, _display, _ranx_persistence, get_metric

logger = logging.getLogger(__name__)

TABLE_CLASS = "metric-table"


def label(base):
    """The label of the row that defines the metric ``base`` (a registry key)."""
    return f"metric-{base}"


def _row_metric(row):
    """The registry key of the metric a table row defines (its first literal), or None."""
    entries = list(row.findall(nodes.entry))
    if not entries:
        return None
    literal = next(iter(entries[0].findall(nodes.literal)), None)
    if literal is None:
        return None
    name = literal.astext().replace("@k", "@10")
    try:
        return get_metric(name).base
    except ValueError:
        return None


def label_metric_rows(app, doctree):
    """Give each metric's defining row an id and a label (its first row in the page's tables)."""
    std = app.env.domains.standard_domain
    docname = app.env.docname
    for table in doctree.findall(nodes.table):
        if TABLE_CLASS not in table.get("classes", []):
            continue
        parent = table.parent
        while parent is not None and not isinstance(parent, nodes.section):
            parent = parent.parent
        title = parent[0].astext() if parent is not None and len(parent) else "Metrics"
        for body in table.findall(nodes.tbody):
            for row in body.findall(nodes.row):
                base = _row_metric(row)
                if base is None or label(base) in std.anonlabels:
                    continue
                row["ids"].append(label(base))
                std.anonlabels[label(base)] = (docname, label(base))
                std.labels[label(base)] = (docname, label(base), title)


def _names(base):
    """How the metric is written: ``mrr``, ``mrr@k``; ``rbp``, ``rbp(p=...)``."""
    entry = _SPECS[base]
    plain = _display(base, None)
    names = []
    if entry.takes_k in ("no", "optional"):
        names.append(plain)
    if entry.takes_k in ("optional", "required"):
        names.append(f"{plain}@k")
    if entry.param is not None:
        names.append(f"{plain}({entry.param}=...)")
    return names


def rows():
    """One ``(names, other spellings, direction, scorer names, base)`` tuple per metric of the registry."""
    table = []
    for base, entry in _SPECS.items():
        names = _names(base)
        cut = "@k" if entry.takes_k == "required" else ""
        spellings = [synonym + cut for synonym in entry.synonyms if synonym != base]
        if _ranx_persistence(f"{base}.95")[0] == base:  # ranx's spelling of the parameter
            spellings.append(f"{base}.95")
        if entry.greater_is_better:
            direction, scorers = "greater is better", names
        else:
            direction, scorers = "lower is better", [f"neg_{name}" for name in names]
            spellings += scorers
        table.append((names, spellings, direction, scorers, base))
    return table


def table_rst():
    """The list-table of every name, as reStructuredText lines."""
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 18 32 14 14 22",
        "   :class: scoring-names",
        "",
        "   * - name",
        "     - also accepted",
        "     - direction",
        "     - scorer name",
        "     - defined in",
    ]
    for names, spellings, direction, scorers, base in rows():
        lines += [
            "   * - " + ", ".join(f"``{name}``" for name in names),
            "     - " + (", ".join(f"``{spelling}``" for spelling in spellings) or "\\-"),
            "     - " + direction,
            "     - " + ", ".join(f"``{scorer}``" for scorer in scorers),
            f"     - :ref:`{label(base)}`",
        ]
    return lines


class ScoringNames(Directive):
    """``.. scoring-names::``: the table of every metric name, from the registry."""

    has_content = False

    def run(self):
        container = nodes.container()
        self.state.nested_parse(StringList(table_rst(), source="<scoring-names>"), self.content_offset,
                                container)
        return container.children


def setup(app):
    app.add_directive("scoring-names", ScoringNames)
    app.connect("doctree-read", label_metric_rows)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
