"""Check the built HTML documentation as a reader would see it.

Usage: ``python docs/check_rendered.py BUILD_DIR`` (the directory ``sphinx -b html`` wrote).
Exit status 0 when every check passes, 1 otherwise (each problem is printed with its page).

The checks:

* no raw LaTeX in the rendered text of any page (the HTML without its scripts, styles and code
  blocks, tags stripped): no ``\\(``, ``\\)``, ``\\[``, ``\\]``, ``$$``, no command such as
  ``\\frac`` or ``\\sum``, and no formula the MathML extension failed to render;
* every page of the example gallery (``auto_examples/*.html``) whose code draws a figure shows
  an image, every image a gallery page references exists, and the gallery index has one
  existing thumbnail per example;
* no ``mailto:`` link that is a metric name autolinked as an e-mail address (``nDCG@10``);
* tables keep their rows: no body row whose only filled cell is the first (the mark of a cell of
  several lines that a simple table split into rows of its own), and the tables named in
  ``TABLE_ROWS`` have exactly their number of body rows;
* every page that shows a code block loads sphinx-copybutton's script and style sheet, and both
  files exist in the build;
* figures are present on the pages that draw: a page whose source (``_sources/`` of the build)
  has image, figure or plot directives, sphinx-gallery's images or gallery thumbnails renders at
  least as many ``<img>`` whose file exists; a guide page whose code draws (matplotlib, a
  Display) shows at least one; no page refers to an image file that does not exist;
* code width: no line of a code block (program output aside) on a page of the gallery or of the
  guides (the top-level pages) is longer than ``CODE_WIDTH`` (88) characters; each long line is
  reported with its block and line number.

Standard library only, so that it runs wherever the docs were built.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

# Elements whose text a reader does not see as prose: scripts and styles are not shown, and the
# content of code blocks and literals may hold backslashes legitimately.
SKIPPED = {"script", "style", "pre", "code", "kbd", "samp", "tt", "textarea"}
# Void elements never get an end tag: they must not open a skipped region.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}

# Math delimiters and LaTeX commands that must not survive into the rendered text.
RAW_MATH = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\begin\{|\\end\{|\\[A-Za-z]{2,}")
# What draws a figure in an example script.
DRAWS = re.compile(r"\bplt\.|\bmatplotlib\b|\.plot\(|\bDisplay\.from_|\.from_(?:predictions|estimator|reports)\(")
# A link text that is a metric name with a cut-off, as Sphinx autolinks ``nDCG@10`` to mailto:.
METRIC_NAME = re.compile(r"[A-Za-z][\w.-]*@(?:\d+|[A-Za-z])")
# Tables whose number of body rows is known: {page: {table class: rows}}. The entry-point table of
# the architecture page has one row per entry point; a cell of several lines must not add rows.
TABLE_ROWS = {"architecture.html": {"entry-points": 9}}
# The assets of sphinx-copybutton, loaded by every page that shows a code block.
COPYBUTTON = ("copybutton.js", "copybutton.css")
# What puts a figure on a page, in its reStructuredText source: each directive renders one image
# at least (a plot directive whose code draws nothing renders none), as does each thumbnail of a
# gallery index (raw HTML that sphinx-gallery writes around an image directive of its own, so a
# thumbnail and its directive count once).
FIGURE_DIRECTIVE = re.compile(r"^[ \t]*\.\. (?:image|figure|plot|image-sg)::", re.MULTILINE)
THUMBNAIL = re.compile(r'class="sphx-glr-thumbcontainer"')
# The widest code line a reader sees without scrolling: 88 characters (about 105 fit the text
# column at a 1280 px window; a phone scrolls anyway).
CODE_WIDTH = 88
# Code blocks that hold a program's output rather than code: the gallery's printed output and the
# command-line session (their wrapping is the stylesheet's business, docs/_static/custom.css).
OUTPUT_CLASSES = {"sphx-glr-script-out", "program-output"}


class _Page(HTMLParser):
    """One pass over a page: its visible prose, code text, images, links, thumbnails."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text = []            # visible text outside code
        self.code = []            # text inside <pre>
        self.images = []          # src of every <img>
        self.mailto = []          # (href, text) of every mailto: link
        self.thumbnails = []      # src of the first <img> in each gallery thumbnail
        self.math_errors = 0      # formulas the MathML extension could not render
        self._skip = []           # stack of open skipped elements
        self._pre = 0
        self._link = None         # [href, text] of the open mailto: link
        self._thumb_depth = None  # depth of the open thumbnail container
        self._thumb_has_image = False
        self._depth = 0
        self.tables = []          # {"classes": [...], "rows": [[cell text, ...], ...]} of every table
        self.assets = []          # src of every <script>, href of every <link rel="stylesheet">
        self.code_blocks = 0      # <div class="highlight..."> blocks
        self.blocks = []          # {"output": bool, "text": str} of every <pre> of a code block
        self._tables = []         # stack of open tables (nested tables are tables of their own)
        self._classes = []        # classes of each open element, outermost first
        self._block = None        # the entry of self.blocks whose <pre> is open

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        self._table_start(tag, attributes, classes)
        if tag == "script" and attributes.get("src"):
            self.assets.append(attributes["src"])
        if tag == "link" and "stylesheet" in (attributes.get("rel") or "").split() and attributes.get("href"):
            self.assets.append(attributes["href"])
        if tag == "div" and any(name.startswith("highlight") for name in classes):
            self.code_blocks += 1
        if tag == "img":
            src = attributes.get("src") or ""
            self.images.append(src)
            if self._thumb_depth is not None and not self._thumb_has_image:
                self.thumbnails.append(src)
                self._thumb_has_image = True
            return
        if tag in VOID:
            return
        self._depth += 1
        self._classes.append(classes)
        if tag == "pre":
            enclosing = {name for open_classes in self._classes for name in open_classes}
            if any(name.startswith("highlight") for name in enclosing):
                self._block = {"output": bool(enclosing & OUTPUT_CLASSES), "text": ""}
                self.blocks.append(self._block)
        if "math-error" in classes:
            self.math_errors += 1
        if "sphx-glr-thumbcontainer" in classes and self._thumb_depth is None:
            self._thumb_depth = self._depth
            self._thumb_has_image = False
        if tag in SKIPPED:
            self._skip.append(tag)
        if tag == "pre":
            self._pre += 1
        if tag == "a" and (attributes.get("href") or "").lower().startswith("mailto:"):
            self._link = [attributes["href"], ""]

    def _table_start(self, tag, attributes, classes):
        if tag == "table":
            self._tables.append({"classes": classes, "rows": [], "body": False, "row": None, "cell": None})
        elif not self._tables:
            return
        table = self._tables[-1]
        if tag == "tbody":
            table["body"] = True
        elif tag == "tr" and table["body"]:
            table["row"] = []
        elif tag in ("td", "th") and table["row"] is not None:
            table["cell"] = []

    def _table_end(self, tag):
        if not self._tables:
            return
        table = self._tables[-1]
        if tag in ("td", "th") and table["cell"] is not None:
            table["row"].append(" ".join("".join(table["cell"]).split()))
            table["cell"] = None
        elif tag == "tr" and table["row"] is not None:
            table["rows"].append(table["row"])
            table["row"] = None
        elif tag == "tbody":
            table["body"] = False
        elif tag == "table":
            self._tables.pop()
            self.tables.append({"classes": table["classes"], "rows": table["rows"]})

    def handle_endtag(self, tag):
        self._table_end(tag)
        if tag in VOID:
            return
        if self._skip and self._skip[-1] == tag:
            self._skip.pop()
        if tag == "pre" and self._pre:
            self._pre -= 1
            self._block = None
        if tag == "a" and self._link is not None:
            self.mailto.append(tuple(self._link))
            self._link = None
        if self._thumb_depth is not None and self._depth == self._thumb_depth:
            if not self._thumb_has_image:
                self.thumbnails.append("")
            self._thumb_depth = None
        if self._classes:
            self._classes.pop()
        self._depth -= 1

    def handle_data(self, data):
        if self._tables and self._tables[-1]["cell"] is not None:
            self._tables[-1]["cell"].append(data)
        if self._link is not None:
            self._link[1] += data
        if self._pre:
            self.code.append(data)
            if self._block is not None:
                self._block["text"] += data
        if not self._skip:
            self.text.append(data)


def parse(html):
    """Parse one page; the parser's attributes hold what the checks need."""
    page = _Page()
    page.feed(html)
    page.close()
    return page


def rendered_text(html):
    """The text a reader sees: no scripts, styles or code blocks, tags stripped."""
    return "".join(parse(html).text)


def raw_math(html):
    """Raw LaTeX left in the rendered text of a page: a list of problems (empty when clean)."""
    page = parse(html)
    text = " ".join("".join(page.text).split())
    problems = []
    for match in RAW_MATH.finditer(text):
        start, end = max(0, match.start() - 30), match.end() + 30
        problems.append(f"raw LaTeX {match.group()!r} in the text: ...{text[start:end]}...")
    if page.math_errors:
        problems.append(f"{page.math_errors} formula(s) not rendered (math-error)")
    return problems


def metric_mailto_links(html):
    """The ``mailto:`` links of a page that are metric names (``nDCG@10``), not addresses."""
    problems = []
    for href, text in parse(html).mailto:
        address = unquote(href[len("mailto:"):])
        domain = address.rpartition("@")[2]
        if METRIC_NAME.fullmatch(text.strip()) or METRIC_NAME.fullmatch(address) or "." not in domain:
            problems.append(f"metric name autolinked as an e-mail address: {text.strip()!r} ({href})")
    return problems


def table_row_problems(html, expected=None):
    """Tables that lost their rows: a body row with only its first cell filled, a wrong row count.

    ``expected`` maps a table's class to its number of body rows (``TABLE_ROWS`` of the page).
    """
    tables = parse(html).tables
    problems = []
    for table in tables:
        for row in table["rows"]:
            if len(row) > 1 and row[0] and not any(row[1:]):
                problems.append(f"table row {row[0]!r} has only its first cell: a cell of several lines "
                                f"split into rows?")
    for name, rows in (expected or {}).items():
        found = [len(table["rows"]) for table in tables if name in table["classes"]]
        if not found:
            problems.append(f"no table of class {name!r}")
        problems += [f"table {name!r} has {count} rows, expected {rows}" for count in found if count != rows]
    return problems


def copybutton_problems(html, page_path):
    """A page that shows code must load sphinx-copybutton's script and style sheet, and both must exist."""
    page = parse(html)
    if not page.code_blocks:
        return []
    problems = []
    for asset in COPYBUTTON:
        sources = [src for src in page.assets if urlsplit(src).path.endswith(asset)]
        if not sources:
            problems.append(f"the page shows code but does not load {asset} (sphinx-copybutton)")
        problems += [f"{src!r} does not exist" for src in sources
                     if not (_local_file(src, page_path) or Path()).is_file()]
    return problems


def _local_file(src, page_path):
    """The file an <img src> of a page refers to, or None for a remote or data: URL."""
    parts = urlsplit(src)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    return (page_path.parent / unquote(parts.path)).resolve()


def missing_images(html, page_path):
    """Images of a page whose file does not exist (local references only)."""
    problems = []
    for src in parse(html).images:
        path = _local_file(src, page_path)
        if path is not None and not path.is_file():
            problems.append(f"image {src!r} does not exist")
    return problems


def gallery_example_problems(html, page_path):
    """An example page whose code draws must show at least one existing image."""
    page = parse(html)
    problems = missing_images(html, page_path)
    if DRAWS.search("".join(page.code)):
        shown = [src for src in page.images
                 if "sphx_glr_" in src and (_local_file(src, page_path) or Path()).is_file()]
        if not shown:
            problems.append("the script draws a figure but the page shows no image")
    return problems


def figure_problems(html, page_path, source=None, guide=False):
    """Figures missing from a page that draws.

    ``source`` is the page's source as Sphinx copied it (None when the build has none): each
    image, figure or plot directive and each gallery thumbnail in it must render an ``<img>``
    whose file exists. On a guide page (``guide=True``), code that draws (matplotlib, a Display)
    must come with at least one such image.
    """
    page = parse(html)
    shown = [src for src in page.images if (_local_file(src, page_path) or Path()).is_file()]
    problems = []
    if source is not None:
        declared = max(len(FIGURE_DIRECTIVE.findall(source)), len(THUMBNAIL.findall(source)))
        if len(shown) < declared:
            problems.append(f"the source puts {declared} figure(s) on the page (image, figure or plot "
                            f"directives, gallery images or thumbnails) but it shows {len(shown)} "
                            f"existing image(s)")
    if guide and not shown and DRAWS.search("".join(page.code)):
        problems.append("the page's code draws a figure but the page shows no image")
    return problems


def code_width_problems(html, limit=CODE_WIDTH):
    """Lines of a page's code blocks longer than ``limit`` characters (program output aside).

    Each problem names the code block (counted from 1 in page order, output blocks not counted),
    the line in it, its length and its beginning.
    """
    problems = []
    blocks = [block for block in parse(html).blocks if not block["output"]]
    for number, block in enumerate(blocks, 1):
        for line_number, line in enumerate(block["text"].splitlines(), 1):
            if len(line) > limit:
                problems.append(f"code block {number}, line {line_number}: {len(line)} characters "
                                f"(at most {limit}): {line.strip()[:60]!r}")
    return problems


def page_source(build_dir, name):
    """The source Sphinx copied for a page (``_sources/<page>.rst.txt``), or None."""
    stem = Path(name).with_suffix("")
    folder = Path(build_dir) / "_sources" / stem.parent
    for path in sorted(folder.glob(f"{stem.name}.*")):
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return None


def gallery_index_problems(html, page_path, n_examples):
    """The gallery index has one thumbnail per example, each an existing image."""
    thumbnails = parse(html).thumbnails
    problems = []
    if len(thumbnails) < n_examples:
        problems.append(f"{len(thumbnails)} thumbnails for {n_examples} examples")
    for src in thumbnails:
        path = _local_file(src, page_path) if src else None
        if path is None or not path.is_file():
            problems.append(f"thumbnail {src!r} does not exist")
    return problems


def check(build_dir, gallery="auto_examples"):
    """Every problem of a built documentation, as ``(page, problem)`` pairs."""
    build_dir = Path(build_dir)
    pages = sorted(build_dir.rglob("*.html"))
    if not pages:
        return [(str(build_dir), "no HTML pages: is this the output directory of the build?")]
    problems = []
    gallery_dir = build_dir / gallery
    examples = [path for path in sorted(gallery_dir.glob("*.html")) if path.name != "index.html"]
    for path in pages:
        if "_sources" in path.parts or "_static" in path.parts:
            continue
        html = path.read_text(encoding="utf-8")
        name = str(path.relative_to(build_dir))
        found = raw_math(html) + metric_mailto_links(html)
        found += table_row_problems(html, TABLE_ROWS.get(name))
        found += copybutton_problems(html, path)
        guide = path.parent == build_dir and path.name not in ("genindex.html", "search.html",
                                                               "py-modindex.html")
        example = path.parent == gallery_dir and path.name != "index.html"
        found += figure_problems(html, path, page_source(build_dir, name), guide=guide)
        if example:
            found += gallery_example_problems(html, path)
        elif path.parent != gallery_dir:  # the gallery's pages check their images above and below
            found += missing_images(html, path)
        if guide or example:
            found += code_width_problems(html)
        problems += [(name, problem) for problem in found]
    index = gallery_dir / "index.html"
    if not index.is_file():
        problems.append((f"{gallery}/index.html", "the example gallery was not built"))
    else:
        if not examples:
            problems.append((f"{gallery}/index.html", "the gallery has no example pages"))
        html = index.read_text(encoding="utf-8")
        problems += [(f"{gallery}/index.html", problem)
                     for problem in gallery_index_problems(html, index, len(examples))]
    return problems


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python docs/check_rendered.py BUILD_DIR", file=sys.stderr)
        return 2
    problems = check(argv[0])
    for page, problem in problems:
        print(f"{page}: {problem}")
    n_pages = sum(1 for _ in Path(argv[0]).rglob("*.html"))
    if problems:
        print(f"{len(problems)} problem(s) in the rendered documentation", file=sys.stderr)
        return 1
    print(f"rendered documentation: {n_pages} pages checked, no problem")
    return 0


if __name__ == "__main__":
    sys.exit(main())
