"""The two TREC readers of sklearn_rank.io agree, and trec_eval's order and the relevance join are exact.

``read_qrels`` and ``read_run`` take a fast path (pandas' C tokenizer plus NumPy checks) on large regular
files and the line-by-line reader otherwise. Here every file is read both ways, whatever its size
(``_FAST_MIN_BYTES = 0``), with tiny chunks and samples so that small files go through the chunking, the
widening of the string arrays and the re-read of strings longer than their guessed width.
"""

import math
import random
import re
import sys
import warnings

import numpy as np
import pytest

from sklearn_rank import UndefinedMetricWarning
from sklearn_rank.io import _trec_eval, _trec_fast, _trec_keys, _trec_lines
from sklearn_rank.io import (Qrels, Run, TrecFormatError, evaluate_trec, read_qrels, read_run, write_qrels,
                             write_run)

READERS = {"qrels": read_qrels, "run": read_run}
METRICS = ["map", "mrr", "ndcg@10", "p@5", "r@10", "rprec", "mr", "hits@3"]


def _outcome(read, path):
    try:
        return read(path)
    except Exception as exc:  # the comparison is on the exception's type and message
        return (type(exc), str(exc))


def read_both(path, kind, monkeypatch):
    """(fast path's result or None, public reader's result, line-by-line reader's result); results are
    Qrels/Run or (exception type, message)."""
    fast = _trec_fast._read_fast(str(path), kind, None)
    public = _outcome(READERS[kind], path)
    with monkeypatch.context() as m:
        m.setattr(_trec_fast, "_FAST_READ", False)
        pure = _outcome(READERS[kind], path)
    return fast, public, pure


def assert_same_arrays(a, b):
    assert type(a) is type(b)
    fields = ("qid", "docno", "relevance") if isinstance(a, Qrels) else ("qid", "docno", "score")
    for name in fields:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, (name, x.dtype, y.dtype, x.shape, y.shape)
        if x.dtype.kind == "f":
            assert np.array_equal(x.view(np.int64), y.view(np.int64)), name  # bit for bit
        else:
            assert np.array_equal(x, y), name
    if isinstance(a, Run):
        assert a.name == b.name and type(a.name) is str


def assert_same_report(a, b):
    assert a.summary == b.summary
    assert list(a.per_query) == list(b.per_query)
    for key in a.per_query:
        x, y = np.asarray(a.per_query[key]), np.asarray(b.per_query[key])
        assert x.dtype == y.dtype and x.shape == y.shape, key
        np.testing.assert_array_equal(x, y)
    assert (a.n_queries, a.n_skipped, a.params) == (b.n_queries, b.n_skipped, b.params)


def evaluate_trec_warned(*args, **kwargs):
    """evaluate_trec's report and the messages of the UndefinedMetricWarnings it gave, in order.

    Some random inputs leave a metric undefined (mr when no query retrieves a relevant document): every path
    must then warn word for word alike, as it must raise alike. Warnings of other kinds are given again.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMetricWarning)
        report = evaluate_trec(*args, **kwargs)
    for w in caught:
        if not issubclass(w.category, UndefinedMetricWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return report, [str(w.message) for w in caught if issubclass(w.category, UndefinedMetricWarning)]


def assert_same_outcome(a, b):
    """The (report, warnings) of evaluate_trec_warned are the same."""
    assert_same_report(a[0], b[0])
    assert a[1] == b[1]


# ------------------------------------------------------------------------------------------------
# Random regular files
# ------------------------------------------------------------------------------------------------
def _score_text(rng, value):
    formats = [repr, lambda v: f"{v:.3f}", lambda v: f"{v:g}", lambda v: f"{v:e}", lambda v: f"{v:.17E}"]
    text = rng.choice(formats)(value)
    if rng.random() < 0.1 and value > 0:
        text = "+" + text
    if rng.random() < 0.05 and value == int(value):
        text = str(int(value)) + rng.choice(["", "."])
    return text


SPECIAL_SCORES = ["-0", "0", "-0.0", ".5", "5.", "00012.5", "1E3", "1e-320", "0.1000000000000000055511151231257827",
                  "9007199254740993", "2.4703282292062328e-324", str(int(sys.float_info.max)),  # DBL_MAX, exactly
                  "1" * 40 + "." + "9" * 40]


def _docno(rng, number):
    style = rng.randrange(4)
    if style == 0:
        return str(number)              # "9" > "10" as strings
    if style == 1:
        return f"d{number}"
    if style == 2:
        return f"DOC-{number:05d}.x"
    return f'"{number}"'                 # quotes are ordinary characters


def random_trec(seed, kind):
    """The text of a regular TREC file: (text, has irregular-for-pandas whitespace?)."""
    rng = random.Random(seed)
    n_queries = rng.randint(1, 9)
    queries = [rng.choice(["q", "", "Q-", "topic_"]) + str(rng.randint(0, 300)) for _ in range(n_queries)]
    queries = list(dict.fromkeys(queries))
    tie_values = [rng.choice([1.0, 0.5, 2.0, 0.0, -0.0, 3.25, -1.5, 1e-300, 1e300]) for _ in range(3)]
    blocks = []
    for q in queries:
        numbers = rng.sample(range(2000), rng.randint(1, 25))
        rows = []
        for number in numbers:
            if kind == "qrels":
                value = rng.choice(["0", "1", "2", "-1", "+1", "01", "-0", "3"])
            elif rng.random() < 0.4:
                value = _score_text(rng, rng.choice(tie_values))
            elif rng.random() < 0.1:
                value = rng.choice(SPECIAL_SCORES)
            else:
                value = _score_text(rng, rng.uniform(-20, 20))
            rows.append((q, _docno(rng, number), value))
        cut = rng.randint(0, len(rows))  # a query in two separate blocks
        blocks.extend([rows[:cut], rows[cut:]])
    rng.shuffle(blocks)                  # queries in no sorted order
    extra = 0 if kind == "qrels" else rng.choice([0, 0, 1, 3])
    separators = [" "] if rng.random() < 0.5 else [" ", "\t", "  ", " \t "]
    newline = "\r\n" if rng.random() < 0.2 else "\n"
    lines = []
    if rng.random() < 0.3:
        lines.append("# a comment line")
    rank = 0
    for block in blocks:
        for q, d, value in block:
            rank += 1
            if kind == "qrels":
                fields = [q, rng.choice(["0", "Q0", "iter"]), d, value]
            else:
                fields = [q, "Q0", d, str(rank), value, rng.choice(["run-A", "x"]) if rank > 1 else "first"]
                fields += [f"extra{j}" for j in range(extra)]
            line = "".join(f + rng.choice(separators) for f in fields[:-1]) + fields[-1]
            if rng.random() < 0.1:
                line = rng.choice([" ", "\t"]) + line
            if rng.random() < 0.1:
                line += rng.choice([" ", "\t "])
            lines.append(line)
            roll = rng.random()
            if roll < 0.03:
                lines.append("")
            elif roll < 0.05:
                lines.append(" \t ")
            elif roll < 0.07:
                lines.append("#comment " + " ".join(fields))
    text = newline.join(lines)
    if rng.random() < 0.8:
        text += newline
    return text


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_regular_files_read_the_same_on_both_paths(tmp_path, monkeypatch, small_fast_path, seed, kind):
    path = tmp_path / kind
    path.write_bytes(random_trec(seed, kind).encode())
    fast, public, pure = read_both(path, kind, monkeypatch)
    assert fast is not None, "a regular file must take the fast path"
    assert_same_arrays(fast, pure)
    assert_same_arrays(public, pure)


def judgements_text(seed, run):
    """A qrels file judging some retrieved documents, some never retrieved, and queries the run lacks."""
    rng = random.Random(seed)
    pairs = {(q, d) for q, d in zip(run.qid.tolist(), run.docno.tolist()) if rng.random() < 0.4}
    pairs |= {(rng.choice(run.qid.tolist()), f"never{rng.randint(0, 9)}") for _ in range(3)}
    pairs |= {(f"unrun{rng.randint(0, 3)}", "d1") for _ in range(2)}
    pairs = sorted(pairs)
    rng.shuffle(pairs)
    separator = rng.choice([" ", "\t", " \t"])
    return "".join(separator.join([q, "0", d, rng.choice(["0", "1", "2", "-1", "+3"])]) + "\n" for q, d in pairs)


@pytest.mark.parametrize("seed", range(25))
def test_reports_are_the_same_on_both_paths(tmp_path, monkeypatch, small_fast_path, seed):
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    run_path.write_bytes(random_trec(1000 + seed, "run").encode())
    fast_run, _, pure_run = read_both(run_path, "run", monkeypatch)
    qrels_path.write_text(judgements_text(seed, pure_run))
    fast_qrels, _, qrels = read_both(qrels_path, "qrels", monkeypatch)
    assert fast_qrels is not None and fast_run is not None
    assert_same_arrays(fast_qrels, qrels)
    for ties in ("trec", "ordinal", "expected"):
        for missing in ("skip", "zero"):
            options = dict(metrics=METRICS, ties=ties, missing=missing)
            try:
                expected = evaluate_trec_warned(qrels, pure_run, **options)
            except ValueError as exc:  # e.g. no relevant document at all: both paths must say so
                with pytest.raises(ValueError, match="^" + re.escape(str(exc)) + "$"):
                    evaluate_trec(qrels, fast_run, **options)
                continue
            assert_same_outcome(evaluate_trec_warned(qrels, fast_run, **options), expected)
            with monkeypatch.context() as m:  # the generic NumPy code of the evaluation
                m.setattr(_trec_eval, "_judged_rows", lambda *args: None)
                assert_same_outcome(evaluate_trec_warned(qrels, fast_run, **options), expected)


def test_files_on_disk_evaluate_the_same_through_the_command_line_options(tmp_path, monkeypatch, small_fast_path):
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 x 1\nq3 0 z 1\n")
    run_path.write_text("q1 Q0 a 1 3.0 r\nq1 Q0 b 2 3.0 r\nq1 Q0 c 3 1.0 r\nq2 Q0 y 1 5.0 r\nq2 Q0 x 2 4.0 r\n"
                        "q9 Q0 x 1 4.0 r\n")
    fast = evaluate_trec(qrels_path, run_path, metrics=METRICS, missing="zero")
    with monkeypatch.context() as m:
        m.setattr(_trec_fast, "_FAST_READ", False)
        m.setattr(_trec_eval, "_judged_rows", lambda *args: None)
        pure = evaluate_trec(qrels_path, run_path, metrics=METRICS, missing="zero")
    assert_same_report(fast, pure)
    assert fast.per_query["qid"].tolist() == ["q1", "q2", "q3"]
    # q1: "b" and "a" tie at 3.0, trec_eval puts "b" first (decreasing docno): reciprocal rank 1/2
    assert fast.per_query["mrr"].tolist() == [0.5, 0.5, 0.0]


# ------------------------------------------------------------------------------------------------
# Files the fast path hands over to the line-by-line reader: same result, same error, same line
# ------------------------------------------------------------------------------------------------
GOOD_RUN = "q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.5 r\nq2 Q0 d1 1 0.5 r\n"
GOOD_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n"

ERRORS = [
    # (kind, content, line of the error or None for a whole-file error, start of the message)
    ("run", "q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.5\nq2 Q0 d1 1 0.5 r\n", 2, "a run line must have at least 6 columns"),
    ("run", "q1 Q0 d1 1\n" + GOOD_RUN, 1, "a run line must have at least 6 columns"),
    ("run", GOOD_RUN + "q3\n", 4, "a run line must have at least 6 columns"),
    ("run", GOOD_RUN + "q3 Q0 d1 1 abc r\n", 4, "the score must be a number"),
    ("run", GOOD_RUN + "q3 Q0 d1 1 1.5.2 r\n", 4, "the score must be a number"),
    ("run", GOOD_RUN + "q3 Q0 d1 1 0x10 r\n", 4, "the score must be a number"),
    ("run", GOOD_RUN + "q3 Q0 d1 1 1,5 r\n", 4, "the score must be a number"),
    ("run", GOOD_RUN + "q3 Q0 d1 1 inf r\n", 4, "the score must be finite"),
    ("run", GOOD_RUN + "q3 Q0 d1 1 -Infinity r\n", 4, "the score must be finite"),
    ("run", GOOD_RUN + "q3 Q0 d1 1 nan r\n", 4, "the score must be finite"),
    ("run", GOOD_RUN + "q3 Q0 d1 1 NaN r\n", 4, "the score must be finite"),
    ("run", GOOD_RUN + "q3 Q0 d1 1 1e400 r\n", 4, "the score must be finite"),
    ("run", GOOD_RUN + "q1 Q0 d2 7 9.5 r\n", 4, "duplicate document 'd2' for query 'q1'"),
    ("run", "q1 Q0 d1 1 2.5 r\n" * 2, 2, "duplicate document 'd1'"),
    ("run", "".join(f"q1 Q0 d{i} 1 {i}.5 r\n" for i in range(30)) + "q1 Q0 d3 1 0.5 r\n", 31, "duplicate document"),
    ("run", "", None, "the run file holds no line"),
    ("run", "# only\n#comments\n\n  \t\n", None, "the run file holds no line"),
    ("qrels", "q1 0 d1\n", 1, "a qrels line must have 4 columns"),
    ("qrels", GOOD_QRELS + "q1 0 d3 1 extra\n", 4, "a qrels line must have 4 columns"),
    ("qrels", "q1 0 d1 1 x\n" + GOOD_QRELS, 1, "a qrels line must have 4 columns"),
    ("qrels", GOOD_QRELS + "q3 0 d1\n", 4, "a qrels line must have 4 columns"),
    ("qrels", GOOD_QRELS + "q3 0 d1 1.0\n", 4, "the relevance must be an integer"),
    ("qrels", GOOD_QRELS + "q3 0 d1 1e3\n", 4, "the relevance must be an integer"),
    ("qrels", GOOD_QRELS + "q3 0 d1 true\n", 4, "the relevance must be an integer"),
    ("qrels", GOOD_QRELS + "q3 0 d1 +\n", 4, "the relevance must be an integer"),
    ("qrels", GOOD_QRELS + "q3 0 d1 1-\n", 4, "the relevance must be an integer"),
    ("qrels", GOOD_QRELS + "q3 0 d1 0x1\n", 4, "the relevance must be an integer"),
    ("qrels", GOOD_QRELS + "q1 0 d2 3\n", 4, "duplicate judgement of document 'd2' for query 'q1'"),
    ("qrels", "", None, "the qrels file holds no judgement"),
    ("qrels", "\n\n# x\n", None, "the qrels file holds no judgement"),
    # lenient readings of Python's int() and float(), and separators that are none to trec_eval (C isspace)
    ("run", GOOD_RUN + "q3 Q0 d9 1 1_5 r\n", 4, "the score must be a number"),            # float() reads 15.0
    ("qrels", GOOD_QRELS + "q3 0 d9 1_0\n", 4, "the relevance must be an integer"),       # int() reads 10
    ("run", GOOD_RUN + "q3 Q0 d9 1 \u0661.\u0665 r\n", 4, "the score must be a number"),  # Arabic-Indic digits
    ("run", GOOD_RUN + "q3\x1fQ0 d9 1 1.5 r\n", 4, "a run line must have at least 6 columns"),
    ("run", GOOD_RUN + "q3\u3000Q0 d9 1 1.5 r\n", 4, "a run line must have at least 6 columns"),
    ("run", GOOD_RUN + "q3 Q0 d9 1 1.5\xa0r\n", 4, "a run line must have at least 6 columns"),
    # no text: binary data, bytes that are not UTF-8; a relevance beyond 64 bits
    ("run", GOOD_RUN + "q3 Q0 d\x00 1 1.5 r\n", 4, "a NUL byte"),
    ("run", GOOD_RUN.encode() + b"q3 Q0 \xff 1 1.0 r\n", 4, "bytes that are not UTF-8"),
    ("qrels", GOOD_QRELS + "q3 0 d1 99999999999999999999\n", 4, "the relevance must be a 64-bit integer"),
]


@pytest.mark.parametrize("kind, content, line, message", ERRORS)
def test_malformed_files_raise_the_same_error_on_both_paths(tmp_path, monkeypatch, small_fast_path, kind, content,
                                                            line, message):
    path = tmp_path / f"bad.{kind}"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    fast, public, pure = read_both(path, kind, monkeypatch)
    assert fast is None
    assert public == pure
    error_type, text = pure
    assert error_type is TrecFormatError
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert text.startswith(where + message), text


IRREGULAR = [
    # files the fast path declines: the line-by-line reader reads them
    ("qrels", GOOD_QRELS + "q3 0 d9 1234567890123456789\n"),
    ("run", GOOD_RUN + "q3 Q0 d#9 1 1.5 r\n"),           # "#" inside a field is data
    ("run", GOOD_RUN + "q3 Q0 d9 1 1.5 run#2\n"),
    ("run", GOOD_RUN + "   # an indented comment\n"),
    ("run", GOOD_RUN + "q3 Q0 d9 1 1.5 r extra columns\n"),  # more columns than the first line
    ("run", "q1 Q0 d1 1 2.5 r\rq2 Q0 d1 1 0.5 r\r"),           # "\r" alone is a line break to Python
    ("run", "q1 Q0 d1 1 2.5 r\r\rq2 Q0 d1 1 0.5 r\n"),
    ("run", GOOD_RUN + "q3\fQ0 d9 1 1.5 r\n"),             # form feed, vertical tab: whitespace (C isspace)
    ("run", GOOD_RUN + "q3\vQ0 d9 1 1.5 r\n"),
    ("run", GOOD_RUN + "q3 Q0 d\x1f9 1 1.5 r\n"),           # \x1c-\x1f: part of the field, as in trec_eval
    ("run", GOOD_RUN + "q3 Q0 d\x7f 1 1.5 r\n"),
    ("run", GOOD_RUN + "q3 Q0 dé 1 1.5 r\n"),              # non-ASCII
    ("run", GOOD_RUN + "q3 Q0 d\u30009 1 1.5 r\n"),         # Unicode whitespace: part of the field
    ("qrels", "\ufeff" + GOOD_QRELS + "q3 0 d\xa09 1\n"),   # a byte order mark, and a non-ASCII line
]


@pytest.mark.parametrize("kind, content", IRREGULAR)
def test_irregular_files_are_read_by_the_line_reader(tmp_path, monkeypatch, small_fast_path, kind, content):
    path = tmp_path / f"odd.{kind}"
    path.write_bytes(content.encode())
    fast, public, pure = read_both(path, kind, monkeypatch)
    assert fast is None
    assert not isinstance(pure, tuple), pure
    assert_same_arrays(public, pure)


UNUSUAL = [
    # unusual but regular: the fast path reads them
    ("run", "q0 Q0 d0 1 9.5 r x y\n" + GOOD_RUN),           # later lines without the extra columns
    ("run", "q0 Q0 d0 1 9.5 r x y\n" * 1 + GOOD_RUN.replace(" r\n", " r x y z\n", 0)),
    ("qrels", GOOD_QRELS + "q3 0 d9 12345678901234567\n"),  # 17 digits still fit an int64
    ("qrels", GOOD_QRELS + "q3 0 d9 -00000000000000009\n"),  # 18 characters
    ("run", GOOD_RUN + "q3 Q0 d9 1 1e-400 r\n"),            # underflows to 0.0: finite
    ("run", GOOD_RUN + "q3 Q0 d9 1 -1e-400 r\n"),
    ("run", GOOD_RUN + "q3 Q0 d9 1 " + "9" * 400 + "e-400 r\n"),
    ("run", GOOD_RUN + "q3 Q0 d9 1 4.9406564584124654e-324 r\n"),
    ("run", GOOD_RUN + "q3 Q0 d9 1 2.4703282292062328e-324 r\n"),  # just above half the smallest subnormal
    ("run", GOOD_RUN + "q3 Q0 d9 1 1.7976931348623158e308 r\n"),
    ("run", GOOD_RUN + 'q3 Q0 "d9" 1 1 "r"\n'),
    ("qrels", "\ufeff" + GOOD_QRELS),                      # a byte order mark before the first qid
    ("run", "\ufeff" + GOOD_RUN),
]


@pytest.mark.parametrize("kind, content", UNUSUAL)
def test_unusual_regular_files_take_the_fast_path(tmp_path, monkeypatch, small_fast_path, kind, content):
    path = tmp_path / f"unusual.{kind}"
    path.write_bytes(content.encode())
    fast, public, pure = read_both(path, kind, monkeypatch)
    assert fast is not None
    assert_same_arrays(fast, pure)
    assert_same_arrays(public, pure)


def test_crlf_tabs_comments_and_a_missing_final_newline_take_the_fast_path(tmp_path, monkeypatch, small_fast_path):
    path = tmp_path / "run"
    path.write_bytes(b"#c1\r\n\r\n \tq1\tQ0 d1 1 2.5 r \r\n#c2\r\nq1 Q0\t\td2 2 -0 r\r\n\t\r\nq2 Q0 d1 1 .5 r")
    fast, public, pure = read_both(path, "run", monkeypatch)
    assert fast is not None
    assert_same_arrays(fast, pure)
    assert fast.qid.tolist() == ["q1", "q1", "q2"] and fast.docno.tolist() == ["d1", "d2", "d1"]
    assert math.copysign(1, fast.score[1]) == -1.0 and fast.name == "r"


def test_strings_longer_than_the_sample_are_read_again(tmp_path, monkeypatch, small_fast_path):
    calls = []
    longest_line = _trec_fast._longest_line
    monkeypatch.setattr(_trec_fast, "_longest_line", lambda handle: calls.append(1) or longest_line(handle))
    lines = [f"q{i % 3} Q0 d{i} {i} {i / 7!r} r" for i in range(40)]
    lines[25] = "q1 Q0 " + "x" * 300 + " 1 0.25 r"              # far longer than the sampled docnos
    lines[30] = "a-much-longer-query-id-than-sampled Q0 d1 1 0.5 r"
    path = tmp_path / "run"
    path.write_text("\n".join(lines) + "\n")
    fast, public, pure = read_both(path, "run", monkeypatch)
    assert calls and fast is not None
    assert_same_arrays(fast, pure)
    assert fast.docno.dtype == np.dtype("U300")


def test_values_longer_than_the_sample_widen_the_arrays(tmp_path, monkeypatch, small_fast_path):
    # longer than any sampled value (the first lines and the last bytes) but within the guessed byte width
    monkeypatch.setattr(_trec_fast, "_longest_line", None)  # no second reading
    lines = [f"q Q0 d{i} 1 {i}.5 r" for i in range(30)]
    lines[12], lines[13] = "q Q0 d12345 1 0.5 r", "qq Q0 d1 1 0.5 r"
    path = tmp_path / "run"
    path.write_text("\n".join(lines))
    fast, _, pure = read_both(path, "run", monkeypatch)
    assert fast is not None
    assert_same_arrays(fast, pure)
    assert fast.docno.dtype == np.dtype("U6") and fast.qid.dtype == np.dtype("U2")


def test_the_fast_path_reports_progress(tmp_path, monkeypatch, small_fast_path):
    path = tmp_path / "run"
    path.write_text("".join(f"q{i % 7} Q0 d{i} 0 {i}.5 r\n" for i in range(100)))
    calls = []
    run = read_run(path, progress=lambda done, total: calls.append((done, total)))
    assert len(run) == 100
    assert len(calls) >= 10 and all(0 < done <= total == path.stat().st_size for done, total in calls)


def test_without_pandas_the_line_reader_reads_everything(tmp_path, monkeypatch, small_fast_path):
    path = tmp_path / "run"
    path.write_bytes(random_trec(3, "run").encode())
    with_pandas = read_run(path)
    monkeypatch.setattr(_trec_fast, "_pandas", lambda: None)
    assert _trec_fast._read_fast(str(path), "run", None) is None
    assert_same_arrays(read_run(path), with_pandas)


def test_small_files_skip_pandas_by_default(tmp_path):
    path = tmp_path / "run"
    path.write_text(GOOD_RUN)
    assert _trec_fast._FAST_MIN_BYTES > len(GOOD_RUN)
    assert _trec_fast._read_fast(str(path), "run", None) is None


def test_a_progress_callback_error_is_not_swallowed(tmp_path, monkeypatch, small_fast_path):
    path = tmp_path / "run"
    path.write_text(GOOD_RUN * 1 + "".join(f"q5 Q0 d{i} 0 {i}.5 r\n" for i in range(50)))

    def progress(done, total):
        raise KeyError("stop")

    with pytest.raises(KeyError, match="stop"):
        read_run(path, progress=progress)


# ------------------------------------------------------------------------------------------------
# trec_eval's order against an oracle; the hash join against the generic code
# ------------------------------------------------------------------------------------------------
def oracle_order(qid, docno, score):
    """By query, decreasing score, then decreasing docno (string comparison), then input order."""
    q, d, s = qid.tolist(), docno.tolist(), score.tolist()
    rows = list(range(len(q)))
    rows.sort(key=lambda i: d[i], reverse=True)  # reverse keeps equal docnos in input order
    rows.sort(key=lambda i: (q[i], -s[i]))
    return rows


def random_run(seed, n=None, ties=True, finite=False):
    rng = np.random.default_rng(seed)
    n = n if n is not None else int(rng.integers(1, 400))
    qid = rng.choice(np.array(["q10", "q9", "q1", "2", "10", "q1x"]), n)
    docno = np.array([str(v) for v in rng.integers(0, 60, n)])  # "9" sorts after "10"
    if ties:
        pool = [0.0, -0.0, 1.0, 1.0 + 2.0 ** -40, 1.0 + 2.0 ** -39, 0.5, -2.0, 1e-310]
        pool = np.array(pool if finite else pool + [np.inf, -np.inf])
        score = rng.choice(pool, n)
        fresh = rng.random(n) < 0.3
        score[fresh] = rng.normal(size=int(fresh.sum()))
    else:
        score = rng.normal(size=n)
    return Run(qid, docno, score)


@pytest.mark.parametrize("seed", range(60))
def test_trec_order_matches_the_oracle(seed):
    run = random_run(seed)
    assert _trec_keys._trec_order(run).tolist() == oracle_order(run.qid, run.docno, run.score)


@pytest.mark.parametrize("seed", range(10))
def test_trec_order_exact_fallback_matches_the_oracle(monkeypatch, seed):
    monkeypatch.setattr(_trec_keys, "_MIN_SCORE_BITS", 64)  # no packed key: a lexsort of all rows
    run = random_run(seed)
    assert _trec_keys._trec_order(run).tolist() == oracle_order(run.qid, run.docno, run.score)


def test_trec_order_of_other_dtypes_and_nan_matches_numpys_lexsort():
    rng = np.random.default_rng(7)
    for _ in range(20):
        run = random_run(int(rng.integers(1 << 30)))
        run.score[rng.random(len(run)) < 0.2] = np.nan
        _, docno_rank = np.unique(run.docno, return_inverse=True)
        expected = np.lexsort((-docno_rank.reshape(-1), -run.score, run.qid))
        assert np.array_equal(_trec_keys._trec_order(run), expected)
        as_ints = Run(rng.integers(-3, 3, len(run)), run.docno.astype("S"), run.score)
        _, docno_rank = np.unique(as_ints.docno, return_inverse=True)
        expected = np.lexsort((-docno_rank.reshape(-1), -as_ints.score, as_ints.qid))
        assert np.array_equal(_trec_keys._trec_order(as_ints), expected)


def test_trec_order_on_a_large_run_with_few_ties():
    run = random_run(11, n=200_000, ties=False)
    run.score[::1000] = 0.25  # a few ties
    assert _trec_keys._trec_order(run).tolist() == oracle_order(run.qid, run.docno, run.score)


def test_write_run_writes_trec_eval_order(tmp_path, monkeypatch):
    run = random_run(5)
    run.name = "written"
    fast_path, generic_path = tmp_path / "fast", tmp_path / "generic"
    write_run(run, fast_path)
    with monkeypatch.context() as m:
        m.setattr(_trec_keys, "_plain_rows", lambda *args: False)
        write_run(run, generic_path)
    assert fast_path.read_text() == generic_path.read_text()
    lines = [line.split() for line in fast_path.read_text().splitlines()]
    order = oracle_order(run.qid, run.docno, run.score)
    assert [fields[2] for fields in lines] == run.docno[order].tolist()
    assert {fields[5] for fields in lines} == {"written"}


def test_write_run_and_write_qrels_read_back_exactly(tmp_path):
    # NumPy 2 prints scalars as np.float64(...): the writer must print plain numbers.
    run = unique_pairs(random_run(6, n=300, finite=True))
    run.name = "back"
    write_run(run, tmp_path / "run")
    back = read_run(tmp_path / "run")
    order = np.asarray(oracle_order(run.qid, run.docno, run.score))
    np.testing.assert_array_equal(back.qid, run.qid[order])
    np.testing.assert_array_equal(back.docno, run.docno[order])
    np.testing.assert_array_equal(back.score, run.score[order])  # bit for bit
    assert back.name == "back"
    m = min(50, len(run))
    qrels = Qrels(run.qid[:m], run.docno[:m], np.arange(m, dtype=np.int64) % 4 - 1)
    write_qrels(qrels, tmp_path / "qrels")
    again = read_qrels(tmp_path / "qrels")
    for name in ("qid", "docno", "relevance"):
        np.testing.assert_array_equal(getattr(again, name), getattr(qrels, name))


def unique_pairs(run):
    """The run without its repeated (qid, docno) pairs (files cannot hold them)."""
    _, first = np.unique(np.char.add(np.char.add(run.qid, "\x00"), run.docno), return_index=True)
    keep = np.sort(first)
    return Run(run.qid[keep], run.docno[keep], run.score[keep], run.name)


def random_judgements(seed, run):
    rng = np.random.default_rng(seed)
    pairs = sorted({(q, d) for q, d in zip(run.qid.tolist(), run.docno.tolist()) if rng.random() < 0.3}
                   | {(f"judged{int(rng.integers(3))}", str(int(rng.integers(9)))) for _ in range(5)}
                   | {(str(q), f"unretrieved{int(rng.integers(9))}") for q in run.qid[:3].tolist()})
    rng.shuffle(pairs)
    qid = np.array([p[0] for p in pairs])
    docno = np.array([p[1] for p in pairs])
    return Qrels(qid, docno, rng.integers(-1, 4, len(pairs)))


@pytest.mark.parametrize("seed", range(30))
def test_the_relevance_join_and_query_codes_match_the_generic_code(monkeypatch, seed):
    run = unique_pairs(random_run(seed, finite=True))
    qrels = random_judgements(seed, run)
    for ties in ("trec", "pessimistic"):
        for options in (dict(missing="skip"), dict(missing="zero", relevance_level=2), dict(gain="exponential")):
            try:
                with monkeypatch.context() as m:
                    m.setattr(_trec_eval, "_judged_rows", lambda *args: None)
                    expected = evaluate_trec_warned(qrels, run, metrics=METRICS, ties=ties, **options)
            except ValueError as exc:
                with pytest.raises(ValueError, match="^" + re.escape(str(exc)) + "$"):
                    evaluate_trec(qrels, run, metrics=METRICS, ties=ties, **options)
                continue
            assert _trec_eval._judged_rows(qrels, np.maximum(qrels.relevance, 0.0), run, ties == "trec") is not None
            assert_same_outcome(evaluate_trec_warned(qrels, run, metrics=METRICS, ties=ties, **options), expected)


@pytest.mark.parametrize("seed", range(15))
def test_object_columns_evaluate_as_fixed_width_columns(seed):
    # Object columns (what the readers give for a few very long values) are joined on integer codes (_coded, then
    # the integer keys of _lookup_relevance); fixed-width columns by the hash join: the same report.
    run = unique_pairs(random_run(seed, finite=True))
    qrels = random_judgements(seed, run)
    object_run = Run(run.qid.astype(object), run.docno.astype(object), run.score, run.name)
    object_qrels = Qrels(qrels.qid.astype(object), qrels.docno.astype(object), qrels.relevance)
    for ties in ("trec", "pessimistic"):
        for missing in ("skip", "zero"):
            options = dict(metrics=METRICS, ties=ties, missing=missing)
            try:
                expected = evaluate_trec(qrels, run, **options)
            except ValueError as exc:
                with pytest.raises(ValueError, match="^" + re.escape(str(exc)) + "$"):
                    evaluate_trec(object_qrels, object_run, **options)
                continue
            for judgements, ranking in ((object_qrels, object_run), (qrels, object_run), (object_qrels, run)):
                report = evaluate_trec(judgements, ranking, **options)
                assert list(report.summary) == list(expected.summary)
                np.testing.assert_array_equal(list(report.summary.values()), list(expected.summary.values()))
                assert list(report.per_query) == list(expected.per_query)
                assert report.per_query["qid"].tolist() == expected.per_query["qid"].tolist()
                for name in METRICS:
                    np.testing.assert_array_equal(report.per_query[name], expected.per_query[name])
                assert (report.n_queries, report.n_skipped, report.n_missing) == (
                    expected.n_queries, expected.n_skipped, expected.n_missing)


def test_hash_collisions_are_resolved_exactly(monkeypatch):
    run = unique_pairs(random_run(3, finite=True))
    qrels = random_judgements(3, run)
    expected = evaluate_trec(qrels, run, metrics=METRICS)
    # every key equal: the join sees a collision among the judgements and leaves the work to the generic code
    monkeypatch.setattr(_trec_eval, "_row_keys",
                        lambda codes, columns, offsets=(1,): np.zeros(len(columns[0]), np.uint64))
    assert _trec_eval._relevance_rows(qrels, qrels.relevance.astype(float), np.zeros(len(qrels), int),
                                      np.zeros(3, int), run.docno[:3]) is None
    assert_same_report(evaluate_trec(qrels, run, metrics=METRICS), expected)
    # and the duplicate check compares the suspects themselves
    keys = np.zeros(4, dtype=np.uint64)
    assert not _trec_keys._has_duplicate_keys(keys, np.array(["a", "a", "b", "b"]), np.array(["x", "y", "x", "y"]))
    assert _trec_keys._has_duplicate_keys(keys, np.array(["a", "a", "b", "a"]), np.array(["x", "y", "x", "y"]))


def test_row_keys_do_not_depend_on_width_or_on_bytes_versus_str():
    words = ["", "a", "ab", "abc", "b", "ba", "ab\x01"]
    codes = np.arange(len(words)) % 3
    reference = _trec_keys._row_keys(codes, (np.array(words, dtype="U3"),))
    for dtype in ("U9", "S3", "S12"):
        assert np.array_equal(_trec_keys._row_keys(codes, (np.array(words, dtype=dtype),)), reference)
    assert len(set(reference.tolist())) == len(words)


def test_integers_parse_as_python_int_or_decline():
    texts = ["0", "-0", "+0", "7", "+7", "-7", "007", "-007", "123456789012345678", "-12345678901234567",
             "1234567890123456789", "1_0", "1.0", "1e3", "+", "-", "", "+-1", "1-", "0x1", "true", "9a", "a9"]
    for text in texts:
        parsed = _trec_fast._parse_integers(np.array([text.encode(), b"1"], dtype="S24"))
        try:
            expected = int(text)
        except ValueError:
            assert parsed is None, text
            continue
        if parsed is not None:
            assert parsed.tolist() == [expected, 1], text
        else:
            assert "_" in text or len(text) > 18, text


def test_a_weak_hash_still_joins_exactly(monkeypatch):
    # keys that collide across documents of equal length: only the check on the strings tells them apart
    run = Run(np.array(["q1"] * 4 + ["q2"] * 2), np.array(["a", "c", "bb", "dd", "a", "zz"]),
              np.array([4.0, 3.0, 2.0, 1.0, 2.0, 1.0]))
    qrels = Qrels(np.array(["q1", "q1", "q2"]), np.array(["a", "bb", "zz"]), np.array([1, 2, 1]))
    expected = evaluate_trec(qrels, run, metrics=METRICS)

    def weak_keys(codes, columns, offsets=(1,)):
        lengths = np.char.str_len(columns[0]).astype(np.uint64)
        return lengths if codes is None else lengths + np.asarray(codes, dtype=np.uint64) * np.uint64(1000)

    monkeypatch.setattr(_trec_eval, "_row_keys", weak_keys)
    codes = np.array([0, 0, 0, 0, 1, 1], dtype=np.uint16)
    relevance = _trec_eval._relevance_rows(qrels, qrels.relevance.astype(float), np.array([0, 0, 1]), codes, run.docno)
    assert relevance.tolist() == [1.0, 0.0, 2.0, 0.0, 0.0, 1.0]
    assert_same_report(evaluate_trec(qrels, run, metrics=METRICS), expected)


@pytest.mark.parametrize("content, block, regular", [
    (b"q1 Q0 d1 1 2.5 r\r\nq2 Q0 d1 1 0.5 r\r\n", 17, True),   # "\r" ends a block, "\n" starts the next
    (b"q1 Q0 d1 1 2.5 r\r q2 Q0 d1 1 0.5 r\r\n", 17, False),  # a lone "\r" at the end of a block
    (b"q1 Q0 d1 1 2.5 r\r \r\nq2 Q0 d1 1 0.5 r\n", 4096, False),
    (b"q1 Q0 d1 1 2.5 r\r", 4096, False),                        # at the end of the file
    (b"q1 Q0 d1 1 2.5 r\n#c\nq2 Q0 d1 1 0.5 r\n", 17, True),     # "#" starts a block after a newline
    (b"q1 Q0 d1 1 2.5 r #c\nq2 Q0 d1 1 0.5 r\n", 17, False),     # "#" starts a block inside a line
    (b"#c\nq1 Q0 d1 1 2.5 r\n", 4096, True),
])
def test_the_scan_accepts_crlf_and_comments_only(tmp_path, monkeypatch, content, block, regular):
    monkeypatch.setattr(_trec_fast, "_SCAN_BLOCK", block)
    path = tmp_path / "run"
    path.write_bytes(content)
    with open(path, "rb") as handle:
        assert (_trec_fast._scan(handle, "run") is not None) == regular


class _OlderPandas:
    """pandas as versions that hold fixed-width bytes as objects, and that need float_precision="round_trip"."""

    __version__ = "2.1.0"

    def __init__(self, pandas, spoil=False):
        self.api, self._pandas, self._spoil = pandas.api, pandas, spoil

    def read_csv(self, handle, **options):
        assert options.pop("float_precision") == "round_trip"
        if _trec_fast._pandas_options(self._pandas):  # the real pandas is older than 3.1: it needs the option too
            options["float_precision"] = "round_trip"
        return _ObjectColumns(self._pandas.read_csv(handle, **options), self._spoil)


class _ObjectColumns:
    def __init__(self, chunks, spoil):
        self.chunks, self.spoil = chunks, spoil

    def __next__(self):
        frame = next(self.chunks)
        frame = frame.astype({c: object for c in frame.columns if frame[c].dtype.kind == "S"})
        if self.spoil:
            frame.iloc[0, 2] = np.nan  # a missing value must not pass for the bytes b"nan"
        return frame

    def close(self):
        self.chunks.close()


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_pandas_holding_bytes_as_objects(tmp_path, monkeypatch, small_fast_path, kind):
    import pandas

    path = tmp_path / kind
    path.write_bytes(random_trec(8, kind).encode())
    expected = _trec_fast._read_fast(str(path), kind, None)
    monkeypatch.setattr(_trec_fast, "_pandas", lambda: _OlderPandas(pandas))
    fast, public, pure = read_both(path, kind, monkeypatch)
    assert fast is not None and expected is not None
    assert_same_arrays(fast, expected)
    assert_same_arrays(fast, pure)
    monkeypatch.setattr(_trec_fast, "_pandas", lambda: _OlderPandas(pandas, spoil=True))
    assert _trec_fast._read_fast(str(path), kind, None) is None


@pytest.mark.parametrize("longest, regular", [(20, True), (31, True), (65, False), (66, False), (200, False)])
def test_the_scan_declines_lines_longer_than_the_limit(tmp_path, monkeypatch, longest, regular):
    # A newline in every aligned window of half the limit, and across blocks: no line over the limit passes, every
    # line shorter than half the limit does (between the two, the line-by-line reader may be left to decide).
    monkeypatch.setattr(_trec_fast, "_MAX_LINE_BYTES", 64)
    monkeypatch.setattr(_trec_fast, "_SCAN_BLOCK", 256)
    lines = [f"q1 Q0 d{i} 1 {i}.5 r" for i in range(60)]
    for at in (3, 17, 31, 55):  # inside blocks and across their ends
        lines[at] = f"q1 Q0 d{at}" + "x" * (longest - len(f"q1 Q0 d{at}") - len(" 1 0.5 r")) + " 1 0.5 r"
        assert len(lines[at]) == longest
        path = tmp_path / "run"
        path.write_text("\n".join(lines) + "\n")
        with open(path, "rb") as handle:
            assert (_trec_fast._scan(handle, "run") is not None) == regular, at
        lines[at] = f"q1 Q0 d{at} 1 {at}.5 r"


@pytest.mark.parametrize("block", [7, 1 << 20])
def test_the_line_reader_refuses_a_line_over_the_limit_where_it_is(tmp_path, monkeypatch, block):
    monkeypatch.setattr(_trec_fast, "_FAST_READ", False)
    monkeypatch.setattr(_trec_lines, "_MAX_LINE_BYTES", 64)
    monkeypatch.setattr(_trec_lines, "_READ_BLOCK", block)
    path = tmp_path / "run"
    good = "q1 Q0 d9 1 0.5 r" + " " * 48  # 64 bytes: just within the limit
    path.write_text(GOOD_RUN + good + "\n" + "q1 Q0 d" + "x" * 58 + " 1 0.5 r\n" + GOOD_RUN)
    with pytest.raises(TrecFormatError, match=f"^{path}:5: a line longer than 64 bytes"):
        read_run(path)
    path.write_text(GOOD_RUN + good + "\n")
    assert read_run(path).docno.tolist() == ["d1", "d2", "d1", "d9"]
