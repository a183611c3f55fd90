"""The checker of the built documentation (docs/check_rendered.py) and the docs extensions.

The checker runs in CI on the real build; here it runs on small pages written in the test, so
that each of its checks is seen to fail on what it must reject and to pass on what it must keep.
"""

import importlib.util
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


def build(tmp_path, examples, index_body=None, images=()):
    """A fake build: auto_examples/<name>.html for each example, an index, some image files."""
    gallery = tmp_path / "auto_examples"
    (tmp_path / "_images").mkdir(parents=True)
    gallery.mkdir()
    for name in images:
        (tmp_path / "_images" / name).write_bytes(b"\x89PNG")
    for name, body in examples.items():
        (gallery / f"{name}.html").write_text(page(body), encoding="utf-8")
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
