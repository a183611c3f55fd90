"""Keep metric names with a cut-off (``nDCG@10``, ``hits@k``) from becoming e-mail links.

docutils turns a standalone ``name@host`` into a ``mailto:`` link, and ``ndcg@10`` has that
shape. Prose writes metric names as literals (````nDCG@10````); this transform is the net
under what prose cannot control, such as the defaults numpydoc prints in a parameter's type
line (``default=("mrr", "map", "ndcg@10")``): such a link becomes the text it was, a literal
in running text, plain text inside a quoted default. docs/check_rendered.py checks the result.
"""

from __future__ import annotations

import re

from docutils import nodes

# A metric name with a cut-off or a list of them, as the registry spells them: ndcg@10, P@5,
# hits@k, hits@1/3/10. A real address has a dot in its domain.
METRIC_NAME = re.compile(r"[A-Za-z][\w.-]*@(?:\d+|[A-Za-z])(?:/\d+)*")


def unlink_metric_names(app, doctree):
    for reference in list(doctree.findall(nodes.reference)):
        uri = reference.get("refuri", "")
        text = reference.astext()
        if not uri.startswith("mailto:") or not METRIC_NAME.fullmatch(text):
            continue
        parent = reference.parent
        position = parent.index(reference)
        previous = parent[position - 1] if position > 0 else None
        quoted = isinstance(previous, nodes.Text) and previous.astext()[-1:] in "\"'\u201c\u2018"
        replacement = nodes.Text(text) if quoted else nodes.literal(text, text)
        reference.replace_self(replacement)


def setup(app):
    app.connect("doctree-read", unlink_metric_names)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
