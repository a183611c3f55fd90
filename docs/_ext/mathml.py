"""Render ``:math:`` and ``.. math::`` to MathML when the HTML is built.

The pages then carry their formulas as MathML, which browsers display natively (MathML Core):
no JavaScript, no math font from a CDN, nothing to fetch when the pages are read offline. The
conversion is done by latex2mathml (pure Python). A formula that does not convert fails the build
with its location; it is never written to the page as raw LaTeX.

Use: ``extensions = [..., "mathml"]`` with ``docs/_ext`` on ``sys.path`` (conf.py does that).
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

logger = logging.getLogger(__name__)

# A command latex2mathml does not know comes out as an identifier holding the command itself
# (``<mi>\foo</mi>``); a known one never leaves a backslash in the output (characters are
# written as entities).
_UNCONVERTED = re.compile(r"\\[A-Za-z]+|\\.")


def latex_to_mathml(latex, display="inline"):
    """Convert one LaTeX formula to a ``<math>`` element (a string).

    Parameters
    ----------
    latex : str
        The formula, without delimiters.
    display : {"inline", "block"}, default="inline"
        Inline (in the text) or block (on its own line).

    Returns
    -------
    mathml : str
        The ``<math>`` element.

    Raises
    ------
    ValueError
        When latex2mathml cannot convert the formula or leaves a LaTeX command unconverted.
    """
    from latex2mathml.converter import convert

    try:
        mathml = convert(latex.strip(), display=display)
    except Exception as error:  # latex2mathml raises its own exception types, and IndexError
        raise ValueError(f"latex2mathml cannot convert {latex!r}: {error}. Got {latex!r} instead.") from error
    left = _UNCONVERTED.findall(mathml)
    if left:
        raise ValueError(f"latex2mathml does not know {', '.join(sorted(set(left)))} in the formula "
                         f"{latex!r}: write it with commands it knows. Got {latex!r} instead.")
    return mathml


def _formula_parts(node):
    """The equations of a display block: Sphinx separates several by a blank line."""
    return [part for part in node.astext().split("\n\n") if part.strip()]


def _convert(node, display):
    """The MathML of a math node, or None after logging the failure with its location."""
    try:
        if display == "inline":
            return latex_to_mathml(node.astext(), "inline")
        parts = []
        for part in _formula_parts(node):
            if r"\\" in part and r"\begin" not in part:
                part = r"\begin{aligned}" + part + r"\end{aligned}"
            parts.append(latex_to_mathml(part, "block"))
        return "\n".join(parts)
    except ValueError as error:
        logger.error("formula not rendered: %s", error, location=node, type="mathml", subtype="convert")
        return None


def check_formulas(app, doctree, docname):
    """Convert every formula of a resolved page once; a failure is an error and fails the build."""
    for node in doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block))):
        mathml = _convert(node, "inline" if isinstance(node, nodes.math) else "block")
        if mathml is None:
            app.env.mathml_failures = getattr(app.env, "mathml_failures", 0) + 1
        else:
            node["mathml"] = mathml


def fail_on_failures(app, exception):
    failures = getattr(app.env, "mathml_failures", 0) if app.env is not None else 0
    if exception is None and failures:
        raise ExtensionError(f"{failures} formula(s) could not be converted to MathML (see the errors above)")


def html_visit_math(self, node):
    mathml = node.get("mathml") or _convert(node, "inline")
    self.body.append(self.starttag(node, "span", "", CLASS="math"))
    self.body.append(mathml if mathml is not None else '<span class="math-error">[formula not rendered]</span>')
    self.body.append("</span>")
    raise nodes.SkipNode


def html_visit_displaymath(self, node):
    mathml = node.get("mathml") or _convert(node, "block")
    self.body.append(self.starttag(node, "div", CLASS="math"))
    if node.get("number"):
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    self.body.append(mathml if mathml is not None else '<span class="math-error">[formula not rendered]</span>')
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (html_visit_math, None), (html_visit_displaymath, None))
    app.connect("doctree-resolved", check_formulas)
    app.connect("build-finished", fail_on_failures)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
