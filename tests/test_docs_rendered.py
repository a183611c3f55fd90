"""The checker of the built documentation (docs/check_rendered.py) and the docs extensions.

The checker runs in CI on the real build; here it runs on small pages written in the test, so
that each of its checks is seen to fail on what it must reject and to pass on what it must keep.
"""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


checker = _load("check_rendered", DOCS / "check_rendered.py")


def page(body, head=""):
    return f"<!DOCTYPE html><html><head>{head}</head><body><article>{body}</article></body></html>"


MATHML = ('<span class="math"><math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">'
          "<mrow><mfrac><mn>1</mn><msub><mi>p</mi><mn>1</mn></msub></mfrac></mrow></math></span>")


# ---------------------------------------------------------------------------------------------
# raw LaTeX in the rendered text
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fragment", [
    r'<span class="math notranslate nohighlight">\(x\)</span>',       # MathJax's inline output
    r'<div class="math notranslate nohighlight">\[\sum_i x_i\]</div>',  # MathJax's display output
    r"<p>the mean $$\bar x$$ of the values</p>",
    r"<p>MRR is \frac{1}{p_1} for one query</p>",
    r"<p>\begin{aligned} a &= b \end{aligned}</p>",
    r"<p>where p \le k holds</p>",
])
def test_raw_math_is_found(fragment):
    problems = checker.raw_math(page(fragment))
    assert problems and all("raw LaTeX" in problem for problem in problems)


def test_mathml_page_passes():
    assert checker.raw_math(page(f"<p>The reciprocal rank {MATHML} of the first hit.</p>")) == []


def test_latex_in_code_scripts_and_styles_is_not_prose():
    html = page(r"<pre>re.compile(r'\(\d+\)')  # \frac in code</pre>"
                r"<p>Use <code class='literal'>\sum</code> in a literal.</p>"
                r"<script>var s = '\\(x\\)'; // \frac</script><style>/* \sum */</style>",
                head=r"<script>MathJax = {tex: {inlineMath: [['\\(', '\\)']]}};</script>")
    assert checker.raw_math(html) == []
    text = checker.rendered_text(html)
    assert "Use" in text and "frac" not in text and "MathJax" not in text


def test_latex_after_a_void_element_is_still_seen():
    # <br> and <img> never close: they must not hide the text after them.
    assert checker.raw_math(page(r'<p>a<br>b<img src="x.png">c \(x\)</p>'))


def test_unrendered_formula_marker_fails():
    html = page('<span class="math"><span class="math-error">[formula not rendered]</span></span>')
    assert any("not rendered" in problem for problem in checker.raw_math(html))


# ---------------------------------------------------------------------------------------------
# metric names autolinked as e-mail addresses
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("link", [
    '<a class="reference external" href="mailto:nDCG%4010">nDCG@10</a>',
    '<a class="reference external" href="mailto:hits%401/3/10">hits@1/3/10</a>',
    '<a href="mailto:P@5">P@5</a>',
])
def test_metric_name_mailto_fails(link):
    assert checker.metric_mailto_links(page(f"<p>MRR and {link} of the model.</p>"))


def test_real_address_and_literal_metric_name_pass():
    html = page('<p>Write to <a href="mailto:dev@example.org">dev@example.org</a>; '
                '<code class="literal"><span class="pre">nDCG@10</span></code> is a metric.</p>')
    assert checker.metric_mailto_links(html) == []


# ---------------------------------------------------------------------------------------------
# the example gallery
# ---------------------------------------------------------------------------------------------

DRAWING_CODE = ('<div class="highlight-Python"><div class="highlight"><pre>'
                '<span class="kn">import</span> <span class="nn">matplotlib.pyplot</span> as plt\n'
                'fig, ax = plt.subplots()\nax.plot([1, 2])\nplt.show()</pre></div></div>')
PRINTING_CODE = '<div class="highlight"><pre>print(evaluate(y, s).summary)</pre></div>'


# What sphinx-copybutton adds to the head of every page of a build (relative to a gallery page).
COPYBUTTON_HEAD = ('<link rel="stylesheet" type="text/css" href="../_static/copybutton.css?v=76b2166b" />'
                   '<script src="../_static/copybutton.js?v=fd10adb8"></script>')


def build(tmp_path, examples, index_body=None, images=()):
    """A fake build: auto_examples/<name>.html for each example, an index, some image files."""
    gallery = tmp_path / "auto_examples"
    (tmp_path / "_images").mkdir(parents=True)
    (tmp_path / "_static").mkdir()
    for asset in ("copybutton.js", "copybutton.css"):
        (tmp_path / "_static" / asset).write_text("/* sphinx-copybutton */", encoding="utf-8")
    gallery.mkdir()
    for name in images:
        (tmp_path / "_images" / name).write_bytes(b"\x89PNG")
    for name, body in examples.items():
        (gallery / f"{name}.html").write_text(page(body, head=COPYBUTTON_HEAD), encoding="utf-8")
    if index_body is not None:
        (gallery / "index.html").write_text(page(index_body), encoding="utf-8")
    (tmp_path / "index.html").write_text(page(f"<p>Home {MATHML}</p>"), encoding="utf-8")
    return tmp_path


def thumbnail(name):
    return (f'<div class="sphx-glr-thumbcontainer" tooltip="x"><img alt="" '
            f'src="../_images/sphx_glr_{name}_thumb.png" /><p>{name}</p></div>')


def test_gallery_with_images_and_thumbnails_passes(tmp_path):
    examples = {
        "plot_curve": DRAWING_CODE + '<img alt="curve" class="sphx-glr-single-img" '
                                     'src="../_images/sphx_glr_plot_curve_001.png" />',
        "report": PRINTING_CODE,   # prints only: no image needed
    }
    root = build(tmp_path, examples, index_body=thumbnail("plot_curve") + thumbnail("report"),
                 images=["sphx_glr_plot_curve_001.png", "sphx_glr_plot_curve_thumb.png",
                         "sphx_glr_report_thumb.png"])
    assert checker.check(root) == []
    assert checker.main([str(root)]) == 0


def test_drawing_example_without_image_fails(tmp_path):
    root = build(tmp_path, {"plot_curve": DRAWING_CODE}, index_body=thumbnail("plot_curve"),
                 images=["sphx_glr_plot_curve_thumb.png"])
    problems = checker.check(root)
    assert problems == [("auto_examples/plot_curve.html",
                         "the script draws a figure but the page shows no image")]
    assert checker.main([str(root)]) == 1


def test_example_image_file_missing_fails(tmp_path):
    body = DRAWING_CODE + '<img class="sphx-glr-single-img" src="../_images/sphx_glr_plot_curve_001.png" />'
    root = build(tmp_path, {"plot_curve": body}, index_body=thumbnail("plot_curve"),
                 images=["sphx_glr_plot_curve_thumb.png"])
    problems = [problem for _, problem in checker.check(root)]
    assert "image '../_images/sphx_glr_plot_curve_001.png' does not exist" in problems
    assert "the script draws a figure but the page shows no image" in problems


def test_gallery_index_without_thumbnails_fails(tmp_path):
    root = build(tmp_path, {"report": PRINTING_CODE}, index_body="<p>Examples</p>")
    assert checker.check(root) == [("auto_examples/index.html", "0 thumbnails for 1 examples")]


def test_gallery_thumbnail_file_missing_fails(tmp_path):
    root = build(tmp_path, {"report": PRINTING_CODE}, index_body=thumbnail("report"))
    problems = checker.check(root)
    assert problems == [("auto_examples/index.html",
                         "thumbnail '../_images/sphx_glr_report_thumb.png' does not exist")]


def test_missing_gallery_fails(tmp_path):
    (tmp_path / "index.html").write_text(page("<p>Home</p>"), encoding="utf-8")
    assert checker.check(tmp_path) == [("auto_examples/index.html", "the example gallery was not built")]


def test_empty_directory_fails(tmp_path):
    assert checker.main([str(tmp_path)]) == 1


# ---------------------------------------------------------------------------------------------
# tables keep their rows
# ---------------------------------------------------------------------------------------------

def table(rows, cls="entry-points"):
    body = "".join("<tr>" + "".join(f"<td><p>{cell}</p></td>" for cell in row) + "</tr>" for row in rows)
    return (f'<table class="table {cls}"><thead><tr><th>entry point</th><th>path</th></tr></thead>'
            f"<tbody>{body}</tbody></table>")


ENTRY_POINTS = [["metric functions", "<code>metrics.py</code> calls the engine"],
                ["<code>compute_ranks</code>, <code>evaluate_ranks</code>", "metrics.py -&gt; _engine"],
                ["scorers", "_scorer.py turns (estimator, X, y) into the engine's inputs"]]


def test_table_with_whole_rows_passes():
    assert checker.table_row_problems(page(table(ENTRY_POINTS)), {"entry-points": 3}) == []


def test_cell_split_into_rows_fails():
    # What a simple table makes of a first cell written on two lines: a row of its own.
    split = [ENTRY_POINTS[0], ["<code>compute_ranks</code>,", "metrics.py -&gt; _engine"],
             ["<code>evaluate_ranks</code>", ""], ENTRY_POINTS[2]]
    problems = checker.table_row_problems(page(table(split)), {"entry-points": 3})
    assert problems == ["table row 'evaluate_ranks' has only its first cell: a cell of several lines "
                        "split into rows?", "table 'entry-points' has 4 rows, expected 3"]


def test_table_row_count_and_presence_are_checked():
    assert checker.table_row_problems(page(table(ENTRY_POINTS[:2])), {"entry-points": 3}) == [
        "table 'entry-points' has 2 rows, expected 3"]
    assert checker.table_row_problems(page("<p>no table</p>"), {"entry-points": 3}) == [
        "no table of class 'entry-points'"]
    # An empty cell elsewhere in a row is a table's business (a metric without other names).
    assert checker.table_row_problems(page(table([["ndcg", "", "higher is better"]]))) == []


def test_architecture_page_is_checked_for_its_entry_points():
    assert checker.TABLE_ROWS["architecture.html"] == {"entry-points": 9}
    source = (DOCS / "architecture.rst").read_text(encoding="utf-8")
    entry_points = source[source.index(":class: entry-points"):source.index("The module map")]
    assert entry_points.count("\n   * - ") == 1 + 9         # the header row and one row per entry point


def test_real_page_is_checked_for_rows(tmp_path):
    root = build(tmp_path, {"report": PRINTING_CODE}, index_body=thumbnail("report"),
                 images=["sphx_glr_report_thumb.png"])
    (root / "architecture.html").write_text(page(table(ENTRY_POINTS)), encoding="utf-8")
    assert checker.check(root) == [("architecture.html", "table 'entry-points' has 3 rows, expected 9")]


# ---------------------------------------------------------------------------------------------
# the copy button
# ---------------------------------------------------------------------------------------------

def test_code_page_without_copybutton_fails(tmp_path):
    path = tmp_path / "page.html"
    problems = checker.copybutton_problems(page(PRINTING_CODE), path)
    assert problems == ["the page shows code but does not load copybutton.js (sphinx-copybutton)",
                        "the page shows code but does not load copybutton.css (sphinx-copybutton)"]
    head = COPYBUTTON_HEAD.replace("../", "")
    assert checker.copybutton_problems(page(PRINTING_CODE, head=head), path) == [
        "'_static/copybutton.js?v=fd10adb8' does not exist", "'_static/copybutton.css?v=76b2166b' does not exist"]
    (tmp_path / "_static").mkdir()
    for asset in ("copybutton.js", "copybutton.css"):
        (tmp_path / "_static" / asset).write_text("", encoding="utf-8")
    assert checker.copybutton_problems(page(PRINTING_CODE, head=head), path) == []
    assert checker.copybutton_problems(page("<p>prose only</p>"), path) == []


# ---------------------------------------------------------------------------------------------
# the docs extensions
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mathml():
    pytest.importorskip("latex2mathml")
    pytest.importorskip("sphinx")
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        yield _load("mathml", DOCS / "_ext" / "mathml.py")
    finally:
        sys.path.remove(str(DOCS / "_ext"))


def test_latex_to_mathml_converts(mathml):
    out = mathml.latex_to_mathml(r"\frac{1}{R}\sum_j j / p_j")
    assert out.startswith("<math") and "<mfrac>" in out and "\\" not in out
    # The checker accepts what the extension writes.
    assert checker.raw_math(page(f'<p><span class="math">{out}</span></p>')) == []
    assert 'display="block"' in mathml.latex_to_mathml("x^2", "block")


@pytest.mark.parametrize("latex", [r"\notacommand{x}", r"x \undefinedmacro y"])
def test_latex_to_mathml_refuses_unknown_commands(mathml, latex):
    with pytest.raises(ValueError, match="does not know"):
        mathml.latex_to_mathml(latex)


def test_metric_names_are_not_mailto_links():
    pytest.importorskip("docutils")
    from docutils.core import publish_doctree

    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        metric_names = _load("metric_names", DOCS / "_ext" / "metric_names.py")
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    doctree = publish_doctree('MRR and nDCG@10 of a model, default=("mrr", "ndcg@10"); '
                              "mail dev@example.org.", settings_overrides={"report_level": 5})
    from docutils import nodes

    before = [node["refuri"] for node in doctree.findall(nodes.reference)]
    assert before == ["mailto:nDCG@10", "mailto:ndcg@10", "mailto:dev@example.org"]
    metric_names.unlink_metric_names(None, doctree)
    after = [node["refuri"] for node in doctree.findall(nodes.reference)]
    assert after == ["mailto:dev@example.org"]
    literals = [node.astext() for node in doctree.findall(nodes.literal)]
    assert literals == ["nDCG@10"]                       # running text: a literal
    assert '"ndcg@10"' in doctree.astext()               # inside a quoted default: plain text


def _sphinx_build(tmp_path, body):
    """Build a one-page project with the MathML extension; (exit status, HTML, stderr)."""
    from sphinx.cmd.build import build_main

    source, out = tmp_path / "src", tmp_path / "out"
    source.mkdir()
    (source / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(DOCS / '_ext')!r})\n"
        "extensions = ['mathml']\n"
        "html_math_renderer = 'mathml'\n", encoding="utf-8")
    (source / "index.rst").write_text("Page\n====\n\n" + body, encoding="utf-8")
    status = build_main(["-q", "-b", "html", str(source), str(out)])
    page_html = (out / "index.html").read_text(encoding="utf-8") if (out / "index.html").exists() else ""
    return status, page_html


def test_sphinx_build_renders_math_as_mathml(mathml, tmp_path):
    status, html = _sphinx_build(tmp_path, (
        "Inline :math:`\\frac{1}{p_1}` and a numbered block:\n\n"
        ".. math::\n   :label: reciprocal\n\n   \\mathrm{MRR} = \\frac{1}{n}\\sum_i \\frac{1}{r_i}\n\n"
        "See :eq:`reciprocal`. Two aligned lines:\n\n"
        ".. math::\n\n   a &= b \\\\\n   c &= d\n"))
    assert status == 0
    assert html.count('<math xmlns="http://www.w3.org/1998/Math/MathML"') == 3
    assert '<span class="eqno">(1)' in html and 'id="equation-reciprocal"' in html
    assert "mathjax" not in html.lower()
    assert checker.raw_math(html) == []


def test_sphinx_build_fails_on_a_formula_it_cannot_render(mathml, tmp_path, capsys):
    status, html = _sphinx_build(tmp_path, "Inline :math:`\\notacommand{x}` here.\n")
    assert status != 0
    assert "notacommand" in capsys.readouterr().err
    assert "\\notacommand" not in checker.rendered_text(html)   # never written as raw LaTeX


def _ext(name):
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        return _load(name, DOCS / "_ext" / f"{name}.py")
    finally:
        sys.path.remove(str(DOCS / "_ext"))


def test_scoring_names_table_tells_what_the_scorers_accept():
    pytest.importorskip("sphinx")
    from sklearn_rank import get_metric, get_scorer, metric_names

    scoring_names = _ext("scoring_names")
    rows = scoring_names.rows()
    written = {name for names, *_ in rows for name in names}
    assert set(metric_names()) <= written                    # every metric of the registry has its row

    def example(name):
        return name.replace("@k", "@10").replace("=...", "=0.5")

    for names, spellings, direction, scorers, base in rows:
        assert direction == ("greater is better" if get_metric(example(names[0])).greater_is_better
                             else "lower is better")
        # The scorer of each way of writing the metric is named as the table says.
        assert [get_scorer(example(name)).name for name in names] == [example(name) for name in scorers]
        for spelling in spellings:
            plain = spelling[len("neg_"):] if spelling.startswith("neg_") else spelling
            assert get_metric(example(plain)).base == base
            assert get_scorer(example(spelling)).name.startswith(example(scorers[0]).split("@")[0])
    assert {row[-1]: row[3] for row in rows}["mr"] == ["neg_mr"]    # lower is better: negated
    lines = scoring_names.table_rst()
    assert lines[0] == ".. list-table::" and sum(line.startswith("   * - ") for line in lines) == len(rows) + 1


def test_api_summary_lists_the_names_of_each_page():
    pytest.importorskip("docutils")
    api_summary = _ext("api_summary")
    text = (".. currentmodule:: sklearn_rank\n\n.. autosummary::\n\n   evaluate\n   RankingReport\n\n"
            "Prose.\n\n.. currentmodule:: sklearn_rank.stats\n\n.. autosummary::\n   :nosignatures:\n\n"
            "   compare\n")
    assert api_summary.page_names(text) == ["sklearn_rank.evaluate", "sklearn_rank.RankingReport",
                                            "sklearn_rank.stats.compare"]
    # The API index summarises every page of the reference, and so every public name.
    index = (DOCS / "api" / "index.rst").read_text(encoding="utf-8")
    pages = sorted(path.stem for path in (DOCS / "api").glob("*.rst") if path.name != "index.rst")
    assert sorted(re.findall(r"^\.\. api-summary:: (\S+)$", index, re.M)) == pages
    import sklearn_rank

    listed = {name for page in pages
              for name in api_summary.page_names((DOCS / "api" / f"{page}.rst").read_text(encoding="utf-8"))}
    assert {f"sklearn_rank.{name}" for name in sklearn_rank.__all__ if name != "__version__"} <= listed
