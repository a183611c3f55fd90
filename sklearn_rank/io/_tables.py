"""Tables for the command line: CSV and TSV files always, Parquet with pyarrow.

Every bad value is reported with the file, the line (CSV) or row (Parquet) and the
column, named as on the command line (``--score``, ``--label``, ...).
"""

from __future__ import annotations

from array import array
import csv
import os
import stat

import numpy as np

from .. import _columns
from .._factorize import factorize
from ..exceptions import TableFormatError


_CHUNK_ROWS = 16384
_STREAM_LINE_LIMIT = 1 << 26  # characters per line of a pipe or device, whose size is unknown
# The command line's flags name the roles in messages; every check is the column resolver's (_columns).
FLAGS = {"qid": "--qid", "score": "--score", "label": "--label", "exclude": "--exclude-col", "group": "--group"}


class Table:
    """The columns of a table that the command line uses, read and checked.

    ``qid`` and ``group`` are integer codes into ``qid_values`` and
    ``group_values`` (sorted, so that codes order as the values do): strings are
    factorised while reading, so that memory follows the size of the file and
    not the longest value times the number of rows.
    """

    def __init__(self, qid, qid_values, score, label, exclude=None, group=None, group_values=None):
        self.qid, self.qid_values = qid, qid_values
        self.score, self.label, self.exclude = score, label, exclude
        self.group, self.group_values = group, group_values

    def groups(self):
        """(value, rows) for each distinct value of the group column, in the order of the values."""
        order = np.argsort(self.group, kind="stable")
        bounds = np.searchsorted(self.group[order], np.arange(len(self.group_values) + 1))
        for code, value in enumerate(self.group_values):
            yield value, order[bounds[code]:bounds[code + 1]]


class _Codes:
    """Factorise strings while reading: one dict entry per distinct value, one int per row."""

    def __init__(self):
        self.index = {}
        self.codes = array("q")

    def finish(self):
        """(codes into the sorted values, the sorted values): the codes of first appearance renumbered."""
        values = np.empty(len(self.index), dtype=object)
        values[:] = list(self.index)
        sorted_values, rank = factorize(values)  # the values are distinct: rank is each one's sorted position
        codes = rank.astype(np.int64)[np.frombuffer(self.codes, dtype=np.int64)]
        return codes, sorted_values


def read_table(path, *, qid, score, label, exclude=None, group=None, progress=None, nan_policy="raise"):
    """Read and check the columns of a CSV/TSV (or Parquet) table.

    Every bad value is reported with the file, the line (CSV) or row (Parquet)
    and the column: scores must be numbers, not NaN unless the row is excluded
    (or ``nan_policy="omit"``, then not NaN on a relevant row); labels finite
    and non-negative; an excluded row must not be relevant. Infinite scores
    (``inf``, ``-inf``, ``Infinity`` in a CSV file, as Python and NumPy read
    them) are ordinary scores; a number too large for float64 (``1e999``) is
    refused, as it would read as infinite.

    Parameters
    ----------
    path : str or path-like
        The table: Parquet when the name ends in ``.parquet`` or ``.pq``,
        tab-separated when it ends in ``.tsv`` or ``.tab``, else CSV.
    qid, score, label : str
        The names of the query id, score and relevance columns.
    exclude : str, default=None
        The name of a column of true/false flags: candidates removed before
        ranking.
    group : str, default=None
        The name of a column whose values name groups (``compare --group``).
    progress : callable, default=None
        Called now and then as ``progress(bytes_read, file_size)`` while a
        CSV file is read.
    nan_policy : {"raise", "omit"}, default="raise"
        NaN scores: an error, or rows to remove before ranking (``--nan-policy``).

    Returns
    -------
    table : Table

    Raises
    ------
    TableFormatError
        (a ``ValueError``) naming the file, the line or row and the column of
        a bad value, a missing or repeated column, or an unreadable file.
    """
    path = os.fspath(path)
    roles = table_roles(qid=qid, score=score, label=label, exclude=exclude, group=group)
    if path.endswith(_JSON_SUFFIXES):
        return _read_arrow(path, roles, nan_policy, _json_table)
    if path.endswith((".parquet", ".pq")):
        return _read_arrow(path, roles, nan_policy, _parquet_table)
    return _read_csv(path, roles, progress, nan_policy)


_JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")


def table_roles(*, qid, score, label, exclude=None, group=None):
    """The resolved columns of a table read by the command line (its messages name the flags)."""
    return _columns.resolve({"qid": qid, "score": score, "label": label, "exclude": exclude, "group": group},
                            flags=FLAGS, error=TableFormatError)


def _column_index(location, header, roles, what="header"):
    """Position of each role's column in ``header``; ``location`` (file and line) and ``what`` for errors."""
    _columns.require_present(roles, header, where=location, source=f"the {what}")
    return {role: header.index(column) for role, column in roles.items()}


def _short(value, limit=40):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "...'"


def _missing_cell(value):
    """How a message shows a missing id cell: a blank one by its characters, so that the user sees why."""
    return f"a blank id {_short(value)}" if value.isspace() else _short(value)


def _csv_lines(handle, path, limit):
    """The lines of a pipe or device, each at most ``limit`` characters (their total size is unknown)."""
    number = 0
    while True:
        line = handle.readline(limit)
        if not line:
            return
        number += 1
        if len(line) == limit and not line.endswith(("\n", "\r")):
            raise TableFormatError(f"{path}:{number}: a line is longer than {limit} characters. Got a longer line "
                                   "instead.")
        yield line


# The first bytes of the files that a table is often packed into, and what to do about each.
_DECOMPRESS = "decompress it first: gunzip -k, bunzip2 -k, unzip, unxz -k or unzstd"
_PACKED = ((b"\x1f\x8b", "gzip-compressed bytes", _DECOMPRESS), (b"BZh", "bzip2-compressed bytes", _DECOMPRESS),
           (b"PK\x03\x04", "zip-compressed bytes (a zip archive)", _DECOMPRESS),
           (b"\xfd7zXZ\x00", "xz-compressed bytes", _DECOMPRESS),
           (b"\x28\xb5\x2f\xfd", "zstd-compressed bytes", _DECOMPRESS),
           (b"PAR1", "a Parquet file", "a Parquet table is read when its name ends in .parquet or .pq"))


def _packed_kind(path):
    """(what the file is, what to do) when its first bytes are those of a compressed file or of Parquet."""
    try:
        with open(path, "rb") as raw:
            start = raw.read(8)
    except OSError:
        return None
    return next(((kind, advice) for magic, kind, advice in _PACKED if start.startswith(magic)), None)


def _decode_error_line(path):
    """(line number, offending bytes) of the first bytes that are not UTF-8, or None (not seekable)."""
    try:
        with open(path, "rb") as raw:
            for number, line in enumerate(raw, start=1):
                try:
                    line.decode("utf-8")
                except UnicodeDecodeError as exc:
                    return number, line[exc.start:exc.end]
    except OSError:
        return None
    return None


def _read_csv(path, roles, progress, nan_policy):
    delimiter = "\t" if path.endswith((".tsv", ".tab")) else ","
    try:
        handle = open(path, newline="", encoding="utf-8-sig")  # -sig: a byte-order mark is not a character
        regular = stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
    except OSError as exc:
        raise TableFormatError(f"{path}: {exc.strerror}.") from None
    size = os.fstat(handle.fileno()).st_size if regular else 0
    # A field can be as long as the file; csv's default limit (128 KiB) would reject a long query id.
    limit = min(max(size + 1, csv.field_size_limit()), 2**31 - 1) if regular else _STREAM_LINE_LIMIT
    previous_limit = csv.field_size_limit(limit)
    reader = None
    try:
        with handle:
            reader = csv.reader(handle if regular else _csv_lines(handle, path, limit), delimiter=delimiter)
            return _read_csv_rows(reader, path, roles, handle, size, progress, nan_policy)
    except UnicodeDecodeError:
        packed = _packed_kind(path) if regular else None
        if packed is not None:
            kind, advice = packed
            raise TableFormatError(f"{path}: the table must be plain CSV or TSV text ({advice}). Got {kind} "
                                   "instead.") from None
        found = _decode_error_line(path) if regular else None
        if found is None:
            raise TableFormatError(f"{path}: the table must be UTF-8 text. Got bytes that are not UTF-8 "
                                   "instead.") from None
        number, data = found
        raise TableFormatError(f"{path}:{number}: the table must be UTF-8 text. Got the bytes {data!r} "
                               "instead.") from None
    except csv.Error as exc:
        line = reader.line_num if reader is not None else 1
        raise TableFormatError(f"{path}:{line}: cannot read the CSV line: {exc}.") from None
    finally:
        csv.field_size_limit(previous_limit)


def _read_csv_rows(reader, path, roles, handle, size, progress, nan_policy):
    header = next(reader, None)
    if header is None:
        raise TableFormatError(f"{path}:1: the table is empty. Got no header line instead.")
    index = _column_index(f"{path}:1", header, roles)
    width = len(header)
    qid_at, score_at, label_at = index["qid"], index["score"], index["label"]
    exclude_at, group_at = index.get("exclude"), index.get("group")
    qid, group = _Codes(), _Codes() if group_at is not None else None
    columns = _NumberColumns(path, roles, nan_policy)
    scores, labels, flags, lines = [], [], [], []
    qid_index, qid_codes = qid.index, qid.codes
    last_line = reader.line_num
    for row in reader:
        line = last_line + 1
        last_line = reader.line_num
        if len(row) != width:
            if not row:
                continue
            raise TableFormatError(f"{path}:{line}: expected {width} columns as in the header. Got {len(row)} instead.")
        value = row[qid_at]
        code = qid_index.get(value)
        if code is None:
            # what pandas and R write for a missing value, or a blank cell: never a query
            if value in _columns.MISSING_WORDS or value.isspace():
                raise _columns.missing_error(roles, "qid", f"{path}:{line}", _missing_cell(value))
            code = qid_index[value] = len(qid_index)
        qid_codes.append(code)
        if group is not None:
            value = row[group_at]
            if value in _columns.MISSING_WORDS or value.isspace():
                raise _columns.missing_error(roles, "group", f"{path}:{line}", _missing_cell(value))
            code = group.index.get(value)
            if code is None:
                code = group.index[value] = len(group.index)
            group.codes.append(code)
        scores.append(row[score_at])
        labels.append(row[label_at])
        if exclude_at is not None:
            flags.append(row[exclude_at])
        lines.append(line)
        if len(lines) == _CHUNK_ROWS:
            columns.add(scores, labels, flags if exclude_at is not None else None, lines)
            scores, labels, flags, lines = [], [], [], []
            if progress is not None:
                try:
                    done = handle.buffer.tell()
                except (AttributeError, OSError, ValueError):  # a pipe
                    done = None
                if done is not None:
                    progress(done, size)
    if lines:
        columns.add(scores, labels, flags if exclude_at is not None else None, lines)
    if not len(qid.codes):
        raise TableFormatError(f"{path}: the table has a header but no rows.")
    score, label, exclude = columns.finish()
    qid_codes, qid_values = qid.finish()
    group_codes, group_values = group.finish() if group is not None else (None, None)
    return Table(qid_codes, qid_values, score, label, exclude, group_codes, group_values)


def _parse_numbers(cells, where, roles, role, *, integers=False):
    """Cells of one column (strings) as numbers; ``where(i)`` locates cell ``i`` for an error.

    A missing cell (empty, ``NA``, ``null``, ...: ``_columns.MISSING_WORDS``, what pandas and R write for
    a missing value) is a NaN score, which ``check_rows`` refuses on a row that is not excluded unless
    ``--nan-policy omit``, and a missing value elsewhere, refused. A label may be ``true`` or ``false``.
    """
    text = "".join(cells)
    # float() also reads '1_0' and non-ASCII digits; a table's numbers are plain ASCII.
    if "_" in text or not text.isascii():
        for i, cell in enumerate(cells):
            if "_" in cell or not cell.isascii():
                raise _columns.type_error(roles, role, where(i), _short(cell))
    if integers:  # integer scores keep every digit: float64 would tie 2**60 and 2**60 + 1
        try:
            return np.fromiter(map(int, cells), dtype=np.int64, count=len(cells))
        except ValueError:
            pass
        except OverflowError:
            whole = list(map(int, cells))
            # checked here: NumPy 1.26 wraps a negative Python int into uint64 (with a DeprecationWarning)
            if not (0 <= min(whole) and max(whole) < 2 ** 64):
                raise TableFormatError(f"{where(0)}: {roles.subject(role)} holds integers beyond the int64 range "
                                       "that uint64 cannot hold either (negative ones, or beyond 2**64), which "
                                       "float64 would tie. Got such integers in the lines from here instead.") \
                    from None
            return np.fromiter(whole, dtype=np.uint64, count=len(whole))
    try:
        values = np.fromiter(map(float, cells), dtype=np.float64, count=len(cells))
    except ValueError:
        cells = list(cells)
        for i, cell in enumerate(cells):
            try:
                float(cell)
                continue
            except ValueError:
                pass
            word = cell.strip()
            if word in _columns.MISSING_WORDS:
                if role != "score":
                    raise _columns.missing_error(roles, role, where(i), _short(cell)) from None
                cells[i] = "nan"
            elif role == "label" and word.lower() in ("true", "false"):
                cells[i] = "1" if word.lower() == "true" else "0"
            else:
                raise _columns.type_error(roles, role, where(i), _short(cell)) from None
        values = np.fromiter(map(float, cells), dtype=np.float64, count=len(cells))
    if role == "score":
        _refuse_inexact_integers(cells, values, where, roles)
    infinite = np.isinf(values)
    if infinite.any():
        # "inf", "-Infinity", ... are infinite scores; "1e999" is a number float64 cannot hold.
        for i in np.flatnonzero(infinite):
            if cells[i].strip().lstrip("+-").lower() not in ("inf", "infinity"):
                raise TableFormatError(f"{where(i)}: {roles.subject(role)} must hold numbers within the float64 "
                                       f"range (write inf or -inf for an infinite value). Got {_short(cells[i])} "
                                       "instead.")
    return values


_INEXACT = ("holds integers beyond 2**53 that float64 cannot hold exactly, beside cells that are not integers "
            "(fractions, or missing scores read as NaN), so the column is read as float64, where distinct "
            "integers may become equal (a false tie)")


def _refuse_inexact_integers(cells, values, where, roles):
    """Refuse a score cell written as an integer that its float64 value ``values[i]`` does not equal."""
    large = np.flatnonzero(np.abs(values) > _columns.EXACT_IDS)
    for i in large[np.isfinite(values[large])]:
        whole = _integer(cells[i])
        if whole is not None and whole != int(values[i]):
            raise TableFormatError(f"{where(i)}: {roles.subject('score')} {_INEXACT}. Got {cells[i].strip()} "
                                   "instead.")


def _integer(cell):
    try:
        return int(cell)
    except ValueError:
        return None


def _first_inexact(score):
    """The position of the first integer score that float64 would change, or None."""
    large = np.flatnonzero((score > _columns.EXACT_IDS) | (score < -_columns.EXACT_IDS))
    return next((int(i) for i in large if int(float(score[i])) != int(score[i])), None)


class _NumberColumns:
    """Scores, labels and exclude flags of a CSV, converted and checked a chunk of rows at a time."""

    def __init__(self, path, roles, nan_policy="raise"):
        self.path, self.roles, self.nan_policy = path, roles, nan_policy
        self.scores, self.labels, self.flags = [], [], []
        self.integer_scores = True
        self.inexact = None  # (line, value) of the first integer score float64 would change, while all are integers

    def add(self, scores, labels, flags, lines):
        def where(i):
            return f"{self.path}:{lines[i]}"

        roles, nan_policy = self.roles, self.nan_policy
        score = _parse_numbers(scores, where, roles, "score", integers=self.integer_scores)
        if score.dtype.kind in "iu" and self.inexact is None:
            i = _first_inexact(score)
            if i is not None:
                self.inexact = (where(i), int(score[i]))
        if score.dtype.kind == "f":
            self.integer_scores = False
            if self.inexact is not None:  # the integers of earlier lines are about to become float64
                location, value = self.inexact
                raise TableFormatError(f"{location}: {roles.subject('score')} {_INEXACT}. Got {value} instead.")
        label = _parse_numbers(labels, where, roles, "label")
        exclude = _columns.flags(roles, "exclude", flags, where) if flags is not None else None
        _columns.check_rows(roles, score, label, exclude, where=where, nan_policy=nan_policy)
        self.scores.append(score)
        self.labels.append(label)
        if exclude is not None:
            self.flags.append(exclude)

    def finish(self):
        if self.integer_scores:
            kinds = {chunk.dtype for chunk in self.scores}
            if len(kinds) > 1:  # int64 and uint64 chunks: one uint64 column, or no exact column at all
                if any(chunk.dtype == np.int64 and chunk.size and chunk.min() < 0 for chunk in self.scores):
                    raise TableFormatError(f"{self.path}: {self.roles.subject('score')} holds negative integers "
                                           "and integers beyond the int64 range, which no integer type holds "
                                           "together and float64 would tie. Got both instead.")
                self.scores = [chunk.astype(np.uint64) for chunk in self.scores]
            score = np.concatenate(self.scores)
        else:  # a column with a non-integer somewhere is a float column
            score = np.concatenate([chunk.astype(np.float64) for chunk in self.scores])
        label = np.concatenate(self.labels)
        exclude = np.concatenate(self.flags) if self.flags else None
        return score, label, exclude


def _pyarrow(path, what):
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise TableFormatError(f"{path}: reading {what} needs pyarrow (pip install pyarrow).") from None


def parquet_batches(path, roles, *, batch_rows):
    """The record batches of a Parquet table's columns (``roles``), read ``batch_rows`` rows at a time.

    Missing columns raise as for :func:`read_table`; a damaged page raises a ``TableFormatError``
    naming the file and pyarrow's reason, when the stream reaches it.
    """
    _pyarrow(path, "Parquet")
    import pyarrow.parquet as pq

    os.stat(path)  # a missing file: the OSError names it
    try:
        table = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises many types for a file that is not Parquet
        raise TableFormatError(f"{path}: cannot read the Parquet table: {exc}") from None
    _column_index(path, list(table.schema_arrow.names), roles, "schema")
    if table.metadata.num_rows == 0:
        raise TableFormatError(f"{path}: the table has no rows.")
    return _named_errors(path, table.iter_batches(batch_size=batch_rows,
                                                  columns=list(dict.fromkeys(column for _, column in roles.items()))))


def _named_errors(path, batches):
    """The batches; an error of pyarrow while reading them names the file (a damaged page is found late)."""
    import pyarrow as pa

    iterator = iter(batches)
    while True:
        try:
            batch = next(iterator)
        except StopIteration:
            return
        except (OSError, pa.ArrowException) as exc:
            raise TableFormatError(f"{path}: cannot read the Parquet table: {exc or type(exc).__name__}") from None
        yield batch


def _parquet_table(path, roles):
    _pyarrow(path, "Parquet")
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
    except Exception as exc:  # pyarrow raises many types for a file that is not Parquet
        raise TableFormatError(f"{path}: cannot read the Parquet table: {exc}") from None
    _column_index(path, list(schema.names), roles, "schema")
    try:
        return pq.read_table(path, columns=list(dict.fromkeys(column for _, column in roles.items())))
    except Exception as exc:  # a damaged file: pyarrow's message says what
        raise TableFormatError(f"{path}: cannot read the Parquet table: {exc}") from None


def _json_table(path, roles):
    """A JSON Lines table (one object per line, as ``DataFrame.to_json(orient="records", lines=True)``)."""
    _pyarrow(path, "JSON Lines")
    import pyarrow as pa
    import pyarrow.json as pj

    with open(path, "rb") as handle:
        start = handle.read(64).removeprefix(b"\xef\xbb\xbf").lstrip()
    if start.startswith(b"["):
        raise TableFormatError(f"{path}: a JSON table must be JSON Lines, one object per line (pandas: "
                               "DataFrame.to_json(path, orient='records', lines=True)). Got a JSON array instead.")
    try:
        table = pj.read_json(path)
    except Exception as exc:  # pyarrow raises several types for text that is not JSON Lines
        raise TableFormatError(f"{path}: cannot read the JSON Lines table: {exc}") from None
    _column_index(path, list(table.schema.names), roles, "table")
    import pyarrow.compute as pc

    for role, column in roles.items():  # pyarrow reads an integer beyond int64 as a double: not exact
        data = table.column(column)
        if role in ("qid", "group", "score") and pa.types.is_floating(data.type) and len(data):
            largest = pc.max(pc.abs(data)).as_py()
            if largest is not None and largest > _columns.EXACT_IDS:
                raise TableFormatError(f"{path}: {roles.subject(role)} holds numbers beyond 2**53, which pyarrow "
                                       "reads from JSON as float64, where distinct integers may become equal. Got "
                                       f"{largest!r} instead; write such values in CSV or Parquet (or ids as "
                                       "strings).")
    return table


def _read_arrow(path, roles, nan_policy, load):
    """A Parquet or JSON Lines table, read whole with pyarrow; every column checked by the resolver."""
    try:
        os.stat(path)
    except OSError as exc:
        raise TableFormatError(f"{path}: {exc.strerror}.") from None
    table = load(path, roles)
    if table.num_rows == 0:
        raise TableFormatError(f"{path}: the table has no rows.")

    def where(i):
        return f"{path}: row {i + 1}" if i is not None else path

    def column(role):
        return table.column(roles[role])

    qid, qid_values = _columns.arrow_ids(roles, "qid", column("qid"), where=where)
    score = _columns.arrow_column(roles, "score", column("score"), nan_policy=nan_policy, where=where)
    if score.dtype.kind == "f" and score.dtype.itemsize < 8:
        score = score.astype(np.float64)
    label = _columns.arrow_column(roles, "label", column("label"), where=where).astype(np.float64)
    exclude = _columns.arrow_column(roles, "exclude", column("exclude"), where=where) if "exclude" in roles else None
    group, group_values = (_columns.arrow_ids(roles, "group", column("group"), where=where) if "group" in roles
                           else (None, None))
    _columns.check_rows(roles, score, label, exclude, where=where, nan_policy=nan_policy)
    return Table(qid, qid_values, score, label, exclude, group, group_values)
