"""Regression tests for reading and writing TREC files (sklearn_rank.io), issue 11.

Every file is written to disk and read through both readers: the line-by-line reader (``_FAST_READ`` off)
and the fast path for large regular files, forced on small files as in test_io_paths.py. Reference values
come from a plain Python evaluation written here (trec_eval's order, then tests/oracles.py), never from the
package's own output.
"""

import os
import re
import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np
import pytest

from sklearn_rank.io import (Qrels, Run, TrecFormatError, evaluate_trec, read_qrels, read_run, write_qrels,
                             write_run)
from sklearn_rank.io import _trec_eval, _trec_fast, _trec_lines

try:
    from . import oracles
except ImportError:
    import oracles

READERS = {"qrels": read_qrels, "run": read_run}
BOM = b"\xef\xbb\xbf"


def _outcome(read, path):
    try:
        return read(path)
    except Exception as exc:
        return (type(exc), str(exc))


def read_both(path, kind, monkeypatch):
    """(fast path's result or None, line-by-line reader's result, public reader's result)."""
    fast = _trec_fast._read_fast(str(path), kind, None)
    with monkeypatch.context() as m:
        m.setattr(_trec_fast, "_FAST_READ", False)
        lines = _outcome(READERS[kind], path)
    return fast, lines, _outcome(READERS[kind], path)


def as_lists(record):
    fields = ("qid", "docno", "relevance") if isinstance(record, Qrels) else ("qid", "docno", "score")
    return {name: getattr(record, name).tolist() for name in fields}


def oracle_trec(qrels_lines, run_lines):
    """{qid: (reciprocal rank, average precision)} by trec_eval's rules, straight from the text lines.

    Run queries with judgements only; ranked by decreasing score, ties by decreasing docno; AP over every
    judged relevant document (rel > 0), retrieved or not.
    """
    judged = {}
    for line in qrels_lines:
        q, _, d, rel = line.split()
        judged.setdefault(q, {})[d] = int(rel)
    ranked = {}
    for line in run_lines:
        q, _, d, _, score, _ = line.split()
        ranked.setdefault(q, []).append((float(score), d))
    result = {}
    for q, rows in ranked.items():
        if q not in judged:
            continue
        rows.sort(reverse=True)  # decreasing score, then decreasing docno
        labels = [judged[q].get(d, 0) > 0 for _, d in rows]
        n_relevant = sum(rel > 0 for rel in judged[q].values())
        result[q] = (oracles.reciprocal_rank(labels), oracles.average_precision(labels, n_relevant))
    return result


QRELS_LINES = ["q1 0 d1 1", "q1 0 d2 0", "q1 0 d9 2", "q2 0 d3 1", "q3 0 d1 1"]
RUN_LINES = ["q1 Q0 d2 1 3.5 r", "q1 Q0 d1 2 3.5 r", "q1 Q0 d7 3 1.0 r", "q2 Q0 d3 1 9.0 r", "q2 Q0 d4 2 8.0 r"]


# ------------------------------------------------------------------------------------------------
# Item 5: a UTF-8 byte-order mark is not part of the first query id
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_a_byte_order_mark_is_skipped_on_both_paths(tmp_path, monkeypatch, small_fast_path, kind):
    lines = QRELS_LINES if kind == "qrels" else RUN_LINES
    text = ("\n".join(lines) + "\n").encode()
    (tmp_path / "plain").write_bytes(text)
    (tmp_path / "bom").write_bytes(BOM + text)
    fast, by_lines, public = read_both(tmp_path / "bom", kind, monkeypatch)
    assert fast is not None, "a BOM must not send a regular file to the line-by-line reader"
    expected = {"qid": [line.split()[0] for line in lines], "docno": [line.split()[2] for line in lines]}
    for record in (fast, by_lines, public):
        assert not isinstance(record, tuple), record
        assert as_lists(record)["qid"] == expected["qid"] and as_lists(record)["docno"] == expected["docno"]
        assert record.qid.dtype == read_qrels(tmp_path / "plain").qid.dtype if kind == "qrels" else True
    if kind == "run":
        assert fast.name == by_lines.name == "r"


@pytest.mark.parametrize("bom_in", ["qrels", "run", "both"])
@pytest.mark.parametrize("fast", [False, True])
def test_a_byte_order_mark_keeps_the_first_query_in_the_evaluation(tmp_path, monkeypatch, small_fast_path, bom_in,
                                                                     fast):
    monkeypatch.setattr(_trec_fast, "_FAST_READ", fast)
    qrels_text = ("\n".join(QRELS_LINES) + "\n").encode()
    run_text = ("\n".join(RUN_LINES) + "\n").encode()
    (tmp_path / "qrels").write_bytes(BOM + qrels_text if bom_in in ("qrels", "both") else qrels_text)
    (tmp_path / "run").write_bytes(BOM + run_text if bom_in in ("run", "both") else run_text)
    report = evaluate_trec(tmp_path / "qrels", tmp_path / "run", metrics=["mrr", "map"])
    oracle = oracle_trec(QRELS_LINES, RUN_LINES)
    assert report.per_query["qid"].tolist() == sorted(oracle)
    np.testing.assert_allclose(report.per_query["mrr"], [oracle[q][0] for q in sorted(oracle)], rtol=1e-15)
    np.testing.assert_allclose(report.per_query["map"], [oracle[q][1] for q in sorted(oracle)], rtol=1e-15)


@pytest.mark.parametrize("mark", [b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00"])
def test_a_utf16_or_utf32_byte_order_mark_is_named(tmp_path, monkeypatch, small_fast_path, mark):
    path = tmp_path / "run"
    path.write_bytes(mark + "q1 Q0 d1 1 2.5 r\n".encode("utf-16-le"))
    fast, by_lines, public = read_both(path, "run", monkeypatch)
    assert fast is None and by_lines == public
    assert by_lines[0] is TrecFormatError
    assert by_lines[1].startswith(f"{path}:1: a UTF-16 or UTF-32 byte-order mark")


# ------------------------------------------------------------------------------------------------
# Item 8: reading is as strict as trec_eval's fields are; writing refuses what would not read back
# ------------------------------------------------------------------------------------------------
GOOD_RUN = "q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.5 r\nq2 Q0 d1 1 0.5 r\n"
GOOD_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n"

REFUSED = [
    # (kind, content, line, start of the message): both paths raise TrecFormatError "path:line: message"
    ("qrels", GOOD_QRELS + "q3 0 d9 1_0\n", 4, "the relevance must be an integer"),       # int() reads 10
    ("qrels", GOOD_QRELS + "q3 0 d9 \u0661\n", 4, "the relevance must be an integer"),   # Arabic-Indic 1
    ("qrels", GOOD_QRELS + "q3 0 d9 \uff11\n", 4, "the relevance must be an integer"),   # fullwidth 1
    ("qrels", GOOD_QRELS + "q3 0 d9 1.9\n", 4, "the relevance must be an integer"),      # atol reads 1
    ("run", GOOD_RUN + "q3 Q0 d9 1 1_5 r\n", 4, "the score must be a number"),           # float() reads 15
    ("run", GOOD_RUN + "q3 Q0 d9 1 \u0661.\u0665 r\n", 4, "the score must be a number"),
    ("run", GOOD_RUN + "q3 Q0 d9 1 0x1p3 r\n", 4, "the score must be a number"),         # atof reads 8
    ("run", GOOD_RUN + "q3 Q0 d9 1 2.5x r\n", 4, "the score must be a number"),          # atof reads 2.5
    ("run", GOOD_RUN + "q3 Q0 d9 1 infinity r\n", 4, "the score must be finite"),
    # a no-break space or an ideographic space is no separator for trec_eval (C isspace): one column less
    ("run", GOOD_RUN + "q3 Q0 d9 1 1.5\xa0r\n", 4, "a run line must have at least 6 columns"),
    ("run", GOOD_RUN + "q3\u3000Q0 d9 1 1.5 r\n", 4, "a run line must have at least 6 columns"),
    ("qrels", GOOD_QRELS + "q3 0 d9\u20021\n", 4, "a qrels line must have 4 columns"),
]


@pytest.mark.parametrize("kind, content, line, message", REFUSED)
def test_lenient_numbers_and_unicode_separators_are_refused_on_both_paths(tmp_path, monkeypatch, small_fast_path,
                                                                          kind, content, line, message):
    path = tmp_path / kind
    path.write_bytes(content.encode())
    fast, by_lines, public = read_both(path, kind, monkeypatch)
    assert fast is None and by_lines == public
    assert by_lines[0] is TrecFormatError
    assert by_lines[1].startswith(f"{path}:{line}: {message}"), by_lines[1]


def test_a_non_breaking_space_inside_a_docno_is_part_of_it(tmp_path, monkeypatch, small_fast_path):
    path = tmp_path / "run"
    path.write_bytes((GOOD_RUN + "q3 Q0 d\xa09 1 1.5 r\n").encode())
    fast, by_lines, public = read_both(path, "run", monkeypatch)
    assert fast is None
    assert as_lists(by_lines) == as_lists(public)
    assert by_lines.docno.tolist()[-1] == "d\xa09"


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_numbers_as_trec_eval_reads_them_whole_are_accepted_on_both_paths(tmp_path, monkeypatch, small_fast_path,
                                                                          kind):
    if kind == "qrels":
        texts = ["+3", "-1", "007", "-0", "9223372036854775807", "-9223372036854775808"]
        content = "".join(f"q 0 d{i} {text}\n" for i, text in enumerate(texts))
        expected = [int(text) for text in texts]
    else:
        texts = ["+3", "-1.5", "007.50", ".5", "5.", "1e3", "-2.5E-3", "1e-400"]
        content = "".join(f"q Q0 d{i} 1 {text} r\n" for i, text in enumerate(texts))
        expected = [float(text) for text in texts]
    path = tmp_path / kind
    path.write_text(content)
    _, by_lines, public = read_both(path, kind, monkeypatch)
    values = "relevance" if kind == "qrels" else "score"
    assert as_lists(by_lines)[values] == expected
    assert as_lists(public)[values] == expected


@pytest.mark.parametrize("field, bad", [("qid", "q 1"), ("qid", "q\t1"), ("qid", "q\n1"), ("qid", ""),
                                        ("qid", "#1"), ("docno", "a b"), ("docno", "a\r"), ("docno", ""),
                                        ("docno", "a\x00b"), ("docno", "x\x0by")])
def test_write_run_refuses_ids_that_would_not_read_back(tmp_path, field, bad):
    values = {"qid": np.array(["q1", "q1", "q2"], dtype=object), "docno": np.array(["a", "b", "c"], dtype=object)}
    values[field][1] = bad
    run = Run(values["qid"], values["docno"], np.array([3.0, 2.0, 1.0]))
    path = tmp_path / "run"
    with pytest.raises(ValueError, match=f"`run.{field}` .*Got {re.escape(repr(bad))} at row 1 instead."):
        write_run(run, path)
    assert not path.exists()  # checked before the file is opened


@pytest.mark.parametrize("field, bad", [("qid", "q 1"), ("docno", "a b"), ("docno", "a\tb"), ("docno", "")])
def test_write_qrels_refuses_ids_that_would_not_read_back(tmp_path, field, bad):
    values = {"qid": ["q1", "q1", "q2"], "docno": ["a", "b", "c"]}
    values[field][2] = bad
    qrels = Qrels(np.array(values["qid"]), np.array(values["docno"]), np.array([1, 0, 1]))
    path = tmp_path / "qrels"
    with pytest.raises(ValueError, match=f"`qrels.{field}` .*Got {re.escape(repr(bad))} at row 2 instead."):
        write_qrels(qrels, path)
    assert not path.exists()


def test_write_run_refuses_a_name_with_whitespace(tmp_path):
    run = Run(np.array(["q1"]), np.array(["a"]), np.array([1.0]), name="my run")
    with pytest.raises(ValueError, match="`run.name` must not contain whitespace.*Got 'my run'"):
        write_run(run, tmp_path / "run")


@pytest.mark.parametrize("bad", [1.9, 0.5, -1.5, np.nan, np.inf, 1e19, 2.0 ** 63])
def test_write_qrels_refuses_relevance_that_is_no_integer(tmp_path, bad):
    qrels = Qrels(np.array(["q1", "q1"]), np.array(["a", "b"]), np.array([1.0, bad]))
    path = tmp_path / "qrels"
    with pytest.raises(ValueError, match=r"`qrels.relevance` must hold integers.*Got .* at row 1 instead."):
        write_qrels(qrels, path)
    assert not path.exists()


def test_write_qrels_refuses_unsigned_relevance_beyond_int64(tmp_path):
    qrels = Qrels(np.array(["q1"]), np.array(["a"]), np.array([2 ** 63], dtype=np.uint64))
    with pytest.raises(ValueError, match="`qrels.relevance` must hold integers within the 64-bit range"):
        write_qrels(qrels, tmp_path / "qrels")


def test_write_refuses_columns_of_different_lengths(tmp_path):
    with pytest.raises(ValueError, match="same length. Got qrels.qid of 2, qrels.docno of 1, qrels.relevance of 2"):
        write_qrels(Qrels(np.array(["q1", "q2"]), np.array(["a"]), np.array([1, 0])), tmp_path / "qrels")
    with pytest.raises(ValueError, match="same length. Got run.qid of 1, run.docno of 1, run.score of 2"):
        write_run(Run(np.array(["q1"]), np.array(["a"]), np.array([1.0, 2.0])), tmp_path / "run")


def test_written_files_read_back_exactly_with_integral_floats_and_unusual_text(tmp_path, monkeypatch,
                                                                                 small_fast_path):
    qid = np.array(["q\xa01", "q\xa01", "é", "10"], dtype=object)  # a no-break space is no separator
    docno = np.array(["d#1", "d\x1f2", "ü", "9"], dtype=object)
    qrels = Qrels(qid, docno, np.array([1.0, -1.0, 2.0, 0.0]))
    write_qrels(qrels, tmp_path / "qrels")
    run = Run(qid, docno, np.array([0.5, 0.25, 3.0, 1e-300]), name="run\u20ac")
    write_run(run, tmp_path / "run")
    for kind in ("qrels", "run"):
        _, by_lines, public = read_both(tmp_path / kind, kind, monkeypatch)
        assert as_lists(by_lines) == as_lists(public)
    back = read_qrels(tmp_path / "qrels")
    assert back.qid.tolist() == qid.tolist() and back.docno.tolist() == docno.tolist()
    assert back.relevance.tolist() == [1, -1, 2, 0] and back.relevance.dtype == np.int64
    back = read_run(tmp_path / "run")
    assert sorted(zip(back.qid.tolist(), back.docno.tolist(), back.score.tolist())) == sorted(
        zip(qid.tolist(), docno.tolist(), run.score.tolist()))
    assert back.name == "run\u20ac"


# ------------------------------------------------------------------------------------------------
# Item 13: huge relevance levels, binary data and files without line breaks
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["100000000000000000000", "9223372036854775808", "-9223372036854775809",
                                  "-" + "9" * 400])
def test_a_relevance_beyond_64_bits_names_file_and_line_on_both_paths(tmp_path, monkeypatch, small_fast_path, text):
    path = tmp_path / "qrels"
    path.write_text(GOOD_QRELS + f"q3 0 d1 {text}\n" + GOOD_QRELS.replace("q", "x"))
    fast, by_lines, public = read_both(path, "qrels", monkeypatch)
    assert fast is None and by_lines == public
    assert by_lines[0] is TrecFormatError
    assert by_lines[1].startswith(f"{path}:4: the relevance must be a 64-bit integer"), by_lines[1]


@pytest.mark.parametrize("kind", ["qrels", "run"])
@pytest.mark.parametrize("filler", [b"\x00", b"x", b"\x00\x01\x02binary"])
def test_data_without_line_breaks_is_refused_early_on_both_paths(tmp_path, monkeypatch, small_fast_path, kind,
                                                                  filler):
    path = tmp_path / kind
    good = GOOD_QRELS if kind == "qrels" else GOOD_RUN
    size = 24 << 20
    with open(path, "wb") as handle:
        handle.write(good.encode())
        handle.write(filler * (size // len(filler)))
    tracemalloc.start()
    try:
        fast = _trec_fast._read_fast(str(path), kind, None)
        assert fast is None
        with pytest.raises(TrecFormatError) as caught:
            READERS[kind](path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = "a NUL byte: this is binary data" if b"\x00" in filler else "a line longer than 1 MiB"
    assert str(caught.value).startswith(f"{path}:4: {message}"), str(caught.value)
    assert peak < 8 << 20, f"{peak / 2 ** 20:.1f} MiB traced for a {size >> 20} MiB file"  # a block and a line


@pytest.mark.skipif(not os.path.exists("/dev/zero") or sys.platform != "linux", reason="needs Linux's /dev/zero")
def test_dev_zero_is_refused_without_reading_it_all():
    # in a child process whose address space is capped, so that a reader that reads on cannot hurt the machine
    # (one child for both readers: each of them gets the same cap above what the child uses before it reads)
    code = textwrap.dedent("""
        import resource
        from sklearn_rank import io
        for read in (io.read_qrels, io.read_run):
            with open("/proc/self/statm") as f:
                used = int(f.read().split()[0]) * resource.getpagesize()
            resource.setrlimit(resource.RLIMIT_AS, (used + (768 << 20), resource.RLIM_INFINITY))
            try:
                read("/dev/zero")
            except io.TrecFormatError as exc:
                print(exc)
        """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["/dev/zero:1: a NUL byte: this is binary data, not a TREC file."] * 2


# ------------------------------------------------------------------------------------------------
# Item 14: bytes that are not UTF-8; a run without any judged query
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind, content, line", [
    ("run", GOOD_RUN.encode() + b"q3 Q0 \xff 1 1.0 r\n", 4),
    ("run", GOOD_RUN.encode() + b"q3 Q0 d9 \xe9 1.0 r\n", 4),              # in the ignored rank column
    ("run", b"q1 Q0 d1 1 2.5 r\xc3\n" + GOOD_RUN.encode(), 1),             # a truncated sequence
    ("run", GOOD_RUN.encode() + b"#comment \xfe\n", 4),                     # even in a comment
    ("qrels", GOOD_QRELS.encode() + "q3 0 é 1\n".encode("latin-1"), 4),
    ("qrels", b"\r\n".join(GOOD_QRELS.encode().split(b"\n")[:3]) + b"\rq4 0 \xed\xa0\x80 1\n", 4),  # surrogate
])
def test_bytes_that_are_not_utf8_name_file_and_line_on_both_paths(tmp_path, monkeypatch, small_fast_path, kind,
                                                                   content, line):
    path = tmp_path / kind
    path.write_bytes(content)
    fast, by_lines, public = read_both(path, kind, monkeypatch)
    assert fast is None and by_lines == public
    assert by_lines[0] is TrecFormatError
    assert by_lines[1].startswith(f"{path}:{line}: bytes that are not UTF-8"), by_lines[1]


def test_the_first_bad_line_is_reported_whatever_the_kind_of_fault(tmp_path, monkeypatch):
    monkeypatch.setattr(_trec_fast, "_FAST_READ", False)
    path = tmp_path / "run"
    path.write_bytes(GOOD_RUN.encode() + b"q3 Q0 d9 1 x r\n" + b"q4 Q0 \xff 1 1 r\n" + b"q5 Q0 \x00 1 1 r\n")
    with pytest.raises(TrecFormatError, match=f"^{path}:4: the score must be a number"):
        read_run(path)
    path.write_bytes(GOOD_RUN.encode() + b"q4 Q0 \x00 1 1 r\n" + b"q3 Q0 \xff 1 x r\n")
    with pytest.raises(TrecFormatError, match=f"^{path}:4: a NUL byte"):
        read_run(path)


def test_line_numbers_count_lone_carriage_returns_and_crlf(tmp_path, monkeypatch):
    monkeypatch.setattr(_trec_fast, "_FAST_READ", False)
    monkeypatch.setattr(_trec_lines, "_READ_BLOCK", 5)  # line breaks across blocks, "\r" and "\n" of one "\r\n" apart
    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 d1 1 2.5 r\r\n\rq1 Q0 d2 2 1.5 r\r\r\nq2 Q0 d1 1 0.5 r\rq2 Q0 d2 1 x r\r\n")
    with pytest.raises(TrecFormatError, match=f"^{path}:6: the score must be a number"):
        read_run(path)


def _disjoint_files(tmp_path):
    (tmp_path / "qrels").write_text("x1 0 d1 1\nx2 0 d1 1\nx3 0 d2 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.5 r\nq2 Q0 d1 1 1.5 r\n")
    return tmp_path / "qrels", tmp_path / "run"


@pytest.mark.parametrize("generic", [False, True])
@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_a_run_without_any_judged_query_says_so(tmp_path, monkeypatch, generic, missing):
    if generic:
        monkeypatch.setattr(_trec_eval, "_judged_rows", lambda *args: None)
    qrels_path, run_path = _disjoint_files(tmp_path)
    message = (r"The run and the qrels must have a query in common .*: nothing to evaluate. Got a run of 2 queries "
               r"\('q1', 'q2'\) and qrels of 3 queries \('x1', 'x2', 'x3'\) instead.")
    with pytest.raises(ValueError, match=message):
        evaluate_trec(qrels_path, run_path, missing=missing)
    qrels, run = read_qrels(qrels_path), read_run(run_path)
    objects = (Qrels(qrels.qid.astype(object), qrels.docno, qrels.relevance), run)  # the coded path
    for q, r in ((qrels, run), objects):
        with pytest.raises(ValueError, match=message):
            evaluate_trec(q, r, missing=missing)
    with pytest.raises(ValueError, match="Got a run of 0 queries and qrels of 3 queries"):
        evaluate_trec(qrels, Run(np.array([], dtype=str), np.array([], dtype=str), np.array([])))


def test_the_command_line_reports_errors_of_the_io_modules_in_one_line(tmp_path, capsys):
    # sklearn_rank.io is a package: a ValueError raised by one of its modules (not a TrecFormatError) is still
    # the package's own input error on the command line, exit 2 with one line and no traceback.
    from sklearn_rank.cli import main

    qrels_path, run_path = _disjoint_files(tmp_path)
    assert main(["evaluate", str(qrels_path), str(run_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith("sklearn-rank: error: The run and the qrels must have a query in common"), line


# ------------------------------------------------------------------------------------------------
# Item 20: memory follows the size of the file, not the longest field times the rows
# ------------------------------------------------------------------------------------------------
def long_field_files(tmp_path, where):
    """A ~0.2 MiB run with one 100,000-character docno (at line ``where``), and qrels judging it."""
    long_docno = "x" * 100_000
    lines = [f"q{i % 40} Q0 d{i} {i} {((i * 7919) % 1000) / 7!r} r" for i in range(4500)]
    lines[where] = f"q1 Q0 {long_docno} 1 50.5 r"
    judgements = [f"q{i % 40} 0 d{i} {i % 3}" for i in range(0, 4500, 5)] + [f"q1 0 {long_docno} 1"]
    (tmp_path / "run").write_text("\n".join(lines) + "\n")
    (tmp_path / "qrels").write_text("\n".join(judgements) + "\n")
    return tmp_path / "qrels", tmp_path / "run", judgements, lines


def traced_peak(call):
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("where", [0, 2000, 4499])  # in the sample of the fast path, after it, at the end
@pytest.mark.parametrize("fast", [False, True])
def test_one_long_field_does_not_widen_every_row(tmp_path, monkeypatch, small_fast_path, where, fast):
    monkeypatch.setattr(_trec_fast, "_FAST_READ", fast)
    monkeypatch.setattr(_trec_fast, "_CHUNK_ROWS", 500)  # 9 chunks (of 7 rows: 643, 8 s of pandas calls)
    qrels_path, run_path, judgements, lines = long_field_files(tmp_path, where)
    size = run_path.stat().st_size
    run, peak = traced_peak(lambda: read_run(run_path))
    # padding every docno to 100,000 characters took 4500 x 400 kB = 1.8 GB
    assert peak < 32 * size, f"read_run peak {peak / size:.1f} x the file's size"
    assert run.docno.tolist() == [line.split()[2] for line in lines]
    assert run.qid.dtype.kind == "U"  # short values keep their fixed width
    report, peak = traced_peak(lambda: evaluate_trec(qrels_path, run_path, metrics=["mrr", "map"]))
    assert peak < 48 * size, f"evaluate_trec peak {peak / size:.1f} x the file's size"
    oracle = oracle_trec(judgements, lines)
    assert report.per_query["qid"].tolist() == sorted(oracle)
    np.testing.assert_allclose(report.per_query["mrr"], [oracle[q][0] for q in sorted(oracle)], rtol=1e-14)
    np.testing.assert_allclose(report.per_query["map"], [oracle[q][1] for q in sorted(oracle)], rtol=1e-14)


def test_the_fast_path_declines_before_padding_a_long_value(tmp_path, monkeypatch, small_fast_path):
    monkeypatch.setattr(_trec_fast, "_CHUNK_ROWS", 500)  # the long value in the fifth of 9 chunks
    _, run_path, _, lines = long_field_files(tmp_path, 2000)
    run, peak = traced_peak(lambda: _trec_fast._read_fast(str(run_path), "run", None))
    assert run is None and peak < 16 * run_path.stat().st_size


@pytest.mark.parametrize("fast", [False, True])
def test_fixed_width_or_objects_is_decided_the_same_on_both_paths(tmp_path, monkeypatch, small_fast_path, fast):
    # 200 rows, one docno of 30,000 characters: 6 M padded characters, more than 4 x 0.04 MB + 1 M
    lines = [f"q{i % 3} Q0 d{i} {i} {i / 3!r} r" for i in range(200)]
    lines[150] = "q0 Q0 " + "y" * 30_000 + " 1 0.5 r"
    path = tmp_path / "run"
    path.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(_trec_fast, "_FAST_READ", fast)
    # the long value in the second of 2 chunks (29 chunks of 7 rows, each as wide as the longest line, took 8 s:
    # the fast path trims a chunk's width one character position at a time)
    monkeypatch.setattr(_trec_fast, "_CHUNK_ROWS", 100)
    run = read_run(path)
    assert run.docno.dtype == object and run.qid.dtype == np.dtype("U2")
    assert run.docno.tolist() == [line.split()[2] for line in lines]
    # a shorter long value pads cheaply: a fixed width again
    lines[150] = "q0 Q0 " + "y" * 3000 + " 1 0.5 r"
    path.write_text("\n".join(lines) + "\n")
    assert read_run(path).docno.dtype == np.dtype("U3000")


@pytest.mark.parametrize("ties", ["trec", "ordinal", "pessimistic"])
@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_object_ids_evaluate_as_fixed_width_ones(ties, missing):
    rng = np.random.default_rng(4)
    n = 300
    qid = np.array([f"q{v}" for v in rng.integers(0, 7, n)])
    docno = np.array([f"d{v}" for v in rng.permutation(n)])       # "d10" < "d9": string order matters
    score = rng.integers(0, 4, n).astype(float)                    # many ties, broken by docno
    judged = rng.random(n) < 0.4
    qrels = Qrels(np.r_[qid[judged], ["q99", "q3"]], np.r_[docno[judged], ["dx", "never"]],
                  np.r_[rng.integers(-1, 3, judged.sum()), [1, 2]])
    run = Run(qid, docno, score)
    expected = evaluate_trec(qrels, run, metrics=["mrr", "map", "ndcg@5"], ties=ties, missing=missing)
    as_objects = (Qrels(qrels.qid.astype(object), qrels.docno.astype(object), qrels.relevance),
                  Run(qid.astype(object), docno, score))
    report = evaluate_trec(*as_objects, metrics=["mrr", "map", "ndcg@5"], ties=ties, missing=missing)
    assert report.summary == expected.summary
    assert report.per_query["qid"].tolist() == expected.per_query["qid"].tolist()
    for name in ("mrr", "map", "ndcg@5"):
        np.testing.assert_array_equal(report.per_query[name], expected.per_query[name])
    if ties == "trec":  # and both against the plain Python evaluation
        oracle = oracle_trec([f"{q} 0 {d} {r}" for q, d, r in zip(qrels.qid, qrels.docno, qrels.relevance)],
                             [f"{q} Q0 {d} 1 {s!r} r" for q, d, s in zip(qid, docno, score.tolist())])
        queries = sorted(oracle) if missing == "skip" else None
        if queries is not None:
            assert report.per_query["qid"].tolist() == queries
            np.testing.assert_allclose(report.per_query["mrr"], [oracle[q][0] for q in queries], rtol=1e-14)
            np.testing.assert_allclose(report.per_query["map"], [oracle[q][1] for q in queries], rtol=1e-14)


# --- judged queries absent from the run (issue 11, item 12) ----------------------------------------------
def _missing_query_files(tmp_path):
    rng = np.random.default_rng(7)
    qrels_lines, run_lines = [], []
    for q in range(6):
        for d in range(8):
            qrels_lines.append(f"q{q} 0 d{d} {int(rng.integers(0, 3))}")
    for q in (0, 2, 4):  # q1, q3 and q5 are judged but never retrieved
        for d in rng.permutation(8)[:5]:
            run_lines.append(f"q{q} Q0 d{d} 0 {rng.random():.6f} sys")
    (tmp_path / "qrels").write_text("\n".join(qrels_lines) + "\n")
    (tmp_path / "run").write_text("\n".join(run_lines) + "\n")
    return tmp_path / "qrels", tmp_path / "run"


@pytest.mark.parametrize("fast", [False, True])
def test_judged_queries_absent_from_the_run_are_counted_and_can_score_zero(tmp_path, monkeypatch, fast):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, run_path = _missing_query_files(tmp_path)
    qrels, run = read_qrels(qrels_path), read_run(run_path)
    if not fast:  # object columns take the generic join instead of the hash join
        run = Run(run.qid.astype(object), run.docno.astype(object), run.score, run.name)
    skipped = evaluate_trec(qrels, run, metrics=["map", "recip_rank"])
    zero = evaluate_trec(qrels, run, metrics=["map", "recip_rank"], missing="zero")
    assert skipped.n_missing == zero.n_missing == 3
    # trec_eval's values for the retrieved queries, from pytrec_eval (trec_eval's own C code)
    as_dict = lambda ids, docs, values: {q: {d: v for qq, d, v in zip(ids, docs, values) if qq == q}
                                         for q in set(ids.tolist())}
    reference = pytrec_eval.RelevanceEvaluator(
        as_dict(qrels.qid, qrels.docno, qrels.relevance.tolist()), {"map", "recip_rank"}).evaluate(
        as_dict(np.asarray(run.qid, dtype=str), np.asarray(run.docno, dtype=str), run.score.tolist()))
    retrieved = sorted(reference)
    assert list(skipped.per_query["qid"]) == retrieved
    for name in ("map", "recip_rank"):
        values = [reference[q][name] for q in retrieved]
        assert skipped.summary[name] == pytest.approx(np.mean(values), rel=1e-12)
        # -c: every judged query counts, the absent ones as 0
        assert zero.summary[name] == pytest.approx(sum(values) / 6, rel=1e-12)
    assert list(zero.per_query["qid"]) == [f"q{q}" for q in range(6)]
    assert zero.per_query["map"][[1, 3, 5]].tolist() == [0.0, 0.0, 0.0]
    assert zero.n_queries == 6
