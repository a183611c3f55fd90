"""Tables for a paper: comparison results as LaTeX (booktabs) or Markdown, systems as rows, metrics as columns.

The result classes (``_results``) gather what a table shows into ``_Column`` records, one per metric; this
module decides the markers and writes the text. It imports nothing from the result classes, which import it.

What a reader of an IR or RecSys paper expects of such a table: one letter per system, the mean of each
metric, the best value of each column in bold (the smallest for a lower-is-better metric, whose header says
so), and superscript letters naming the systems a value is significantly better than, with the test, the
multiple-comparison correction and the level in the caption.
"""

import math
import numbers
from dataclasses import dataclass

from .._checks import check_positive_int
from .._registry import get_metric
from ..exceptions import InputTypeError, InputValueError

# What the caption calls each test (the paired and unpaired forms where they differ).
_TEST_NAMES = {
    ("mannwhitneyu", False): "Mann-Whitney U test",
    ("wilcoxon", True): "Wilcoxon signed-rank test",
    ("ttest", True): "paired t-test",
    ("ttest", False): "Welch's t-test",
    ("permutation", True): "paired permutation test of the mean difference",
    ("permutation", False): "permutation test of the mean difference",
    ("bootstrap", True): "paired bootstrap test of the mean difference",
    ("bootstrap", False): "bootstrap test of the mean difference",
    ("corrected_ttest", True): "Nadeau-Bengio corrected resampled t-test",
}
_CORRECTION_NAMES = {
    "holm": "Holm's correction",
    "bonferroni": "Bonferroni's correction",
    "fdr_bh": "the Benjamini-Hochberg false discovery rate correction",
}
# One pass over the text: each special character of LaTeX's text mode becomes a command or an escaped form.
_LATEX_SPECIAL = str.maketrans({
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#",
    "$": r"\$", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
})
_MARKDOWN_SPECIAL = str.maketrans({character: "\\" + character for character in "\\`*_|<>[]"})


@dataclass(frozen=True)
class _Comparison:
    """One test of a column: systems ``a`` and ``b``, the p-value the markers read, and which one is larger
    ("a", "b" or None when the test gives no direction)."""

    a: str
    b: str
    pvalue: float
    larger: str | None


@dataclass(frozen=True)
class _Column:
    """What one metric's column shows: the header, the direction, each system's value, the tests behind the
    markers, and the facts the caption names."""

    label: str
    greater_is_better: bool
    values: dict
    comparisons: tuple
    tests: tuple
    correction: str | None
    alternative: str
    single: bool  # one comparison, made by compare (no correction to name)


def greater_is_better(metric):
    """The registry's direction of ``metric``; True for a name the registry does not know (or None)."""
    if metric is None:
        return True
    try:
        return get_metric(metric).greater_is_better
    except (TypeError, ValueError):
        return True


def test_name(test, paired):
    """What the caption calls ``test``."""
    return _TEST_NAMES.get((test, paired), _TEST_NAMES.get((test, not paired), test))


def larger_side(alternative, estimate, mean_a, mean_b):
    """Which of ``a`` and ``b`` a significant test finds larger: the alternative's side when one-sided, else
    the sign of the estimate (of the means when the estimate is 0); None when nothing tells them apart."""
    if alternative == "greater":
        return "a"
    if alternative == "less":
        return "b"
    difference = estimate if estimate != 0 else (mean_a - mean_b if mean_a is not None else 0.0)
    if difference > 0:
        return "a"
    return "b" if difference < 0 else None


def latex_escape(text):
    r"""``text`` with LaTeX's special characters escaped for text mode (``_`` -> ``\_``, ``%`` -> ``\%``, ...)."""
    return str(text).translate(_LATEX_SPECIAL)


def markdown_escape(text):
    """``text`` with the characters that Markdown tables and emphasis read escaped by a backslash."""
    return str(text).translate(_MARKDOWN_SPECIAL)


def _letter(index):
    """a, b, ..., z, then aa, ab, ...: the letter of the ``index``-th system."""
    letters = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        letters = chr(ord("a") + remainder) + letters
    return letters


def _check_options(alpha, digits, caption, label):
    if (isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < alpha < 1
            or math.isnan(alpha)):
        raise InputValueError(f"`alpha` must be a number strictly between 0 and 1. Got {alpha!r} instead.")
    digits = check_positive_int(digits, "digits", minimum=0, rule="a non-negative integer")
    for value, name in ((caption, "caption"), (label, "label")):
        if value is not None and not isinstance(value, str):
            raise InputTypeError(f"`{name}` must be a string or None. Got {type(value).__name__} instead.")
    return float(alpha), digits


def _cells(systems, columns, alpha, digits):
    """Per system and column: the formatted value, whether it is (one of) the best, and its superscript."""
    letters = {system: _letter(i) for i, system in enumerate(systems)}
    table = []
    for column in columns:
        shown = {system: format(column.values[system], f".{digits}f") for system in systems}
        # the best as printed: two values that round alike are both bold
        rounded = {system: float(shown[system]) for system in systems}
        best = (max if column.greater_is_better else min)(rounded.values())
        beaten = {system: [] for system in systems}
        for comparison in column.comparisons:
            if not comparison.pvalue < alpha or comparison.larger is None:
                continue
            larger, smaller = ((comparison.a, comparison.b) if comparison.larger == "a"
                               else (comparison.b, comparison.a))
            winner, loser = (larger, smaller) if column.greater_is_better else (smaller, larger)
            beaten[winner].append(loser)
        table.append({system: (shown[system], rounded[system] == best,
                               "".join(sorted((letters[loser] for loser in beaten[system]),
                                              key=lambda letter: (len(letter), letter))))
                      for system in systems})
    return letters, table


def _caption(columns, letters, *, escape, lower_marker, alpha_text):
    """The sentences under the table: what the cells are, what bold and the letters mean, the tests."""
    sentences = ["Mean per-query values; the best value of each column in bold"]
    if not all(column.greater_is_better for column in columns):
        sentences[0] += f" ({lower_marker}: lower is better)"
    sentences[0] += "."
    tests = []
    for column in columns:
        tests.extend(name for name in column.tests if name not in tests)
    alternative = columns[0].alternative
    sided = "two-sided" if alternative == "two-sided" else "one-sided"
    if columns[0].single:
        family = "one comparison, no correction"
    elif columns[0].correction is None:
        family = "no correction for multiple comparisons"
    else:
        family = (f"{_CORRECTION_NAMES.get(columns[0].correction, columns[0].correction)} over the "
                  + ("comparisons of each metric" if len(columns) > 1 else "comparisons of the table"))
    sentences.append(f"Superscript letters name the systems a value is significantly better than "
                     f"({sided} {' and '.join(tests)}, {family}, {alpha_text}).")
    baselines = {comparison.b for column in columns for comparison in column.comparisons}
    n_comparisons = {len(column.comparisons) for column in columns}
    if len(baselines) == 1 and max(n_comparisons) > 1:
        baseline = baselines.pop()
        sentences.append(f"Each system was compared with the baseline, {escape(baseline)} ({letters[baseline]}).")
    return " ".join(sentences)


def to_latex(systems, columns, *, alpha, digits, caption, label):
    """A booktabs ``table`` of ``columns`` (``_Column``) for ``systems``, in that order."""
    alpha, digits = _check_options(alpha, digits, caption, label)
    letters, cells = _cells(systems, columns, alpha, digits)
    notes = _caption(columns, letters, escape=latex_escape, lower_marker=r"$\downarrow$",
                     alpha_text=f"adjusted $p < {alpha:g}$" if not columns[0].single else f"$p < {alpha:g}$")
    header = [latex_escape(column.label) + ("" if column.greater_is_better else r" $\downarrow$")
              for column in columns]
    lines = [r"% in the preamble: \usepackage{booktabs}",
             r"\begin{table}",
             r"  \centering",
             r"  \caption{" + (notes if caption is None else f"{caption} {notes}") + "}"]
    if label is not None:
        lines.append(r"  \label{" + label + "}")
    lines += [r"  \begin{tabular}{ll" + "r" * len(columns) + "}",
              r"    \toprule",
              "     & System & " + " & ".join(header) + r" \\",
              r"    \midrule"]
    for system in systems:
        row = [letters[system], latex_escape(system)]
        for column_cells in cells:
            shown, best, superscript = column_cells[system]
            cell = r"\textbf{" + shown + "}" if best else shown
            row.append(cell + (r"\textsuperscript{" + superscript + "}" if superscript else ""))
        lines.append("    " + " & ".join(row) + r" \\")
    lines += [r"    \bottomrule", r"  \end{tabular}", r"\end{table}"]
    return "\n".join(lines)


def to_markdown(systems, columns, *, alpha, digits, caption):
    """A Markdown (GitHub, pandoc pipe) table of ``columns`` for ``systems``, then the caption as a paragraph."""
    alpha, digits = _check_options(alpha, digits, caption, None)
    letters, cells = _cells(systems, columns, alpha, digits)
    notes = _caption(columns, letters, escape=markdown_escape, lower_marker="↓",
                     alpha_text=f"adjusted p < {alpha:g}" if not columns[0].single else f"p < {alpha:g}")
    header = [markdown_escape(column.label) + ("" if column.greater_is_better else " ↓") for column in columns]
    lines = ["|   | System | " + " | ".join(header) + " |",
             "| --- | --- | " + " | ".join("---:" for _ in columns) + " |"]
    for system in systems:
        row = [letters[system], markdown_escape(system)]
        for column_cells in cells:
            shown, best, superscript = column_cells[system]
            row.append((f"**{shown}**" if best else shown) + (f"<sup>{superscript}</sup>" if superscript else ""))
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", notes if caption is None else f"{caption} {notes}"]
    return "\n".join(lines)
