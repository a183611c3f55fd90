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

from ..exceptions import TableFormatError


_CHUNK_ROWS = 16384
_STREAM_LINE_LIMIT = 1 << 26  # characters per line of a pipe or device, whose size is unknown
_FLAG_VALUES = {"1": True, "true": True, "yes": True, "1.0": True,
                "0": False, "false": False, "no": False, "0.0": False, "": False}


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
        values = list(self.index)
        order = sorted(range(len(values)), key=values.__getitem__)
        rank = np.empty(len(values), dtype=np.int64)
        rank[order] = np.arange(len(values))
        codes = rank[np.frombuffer(self.codes, dtype=np.int64)] if len(self.codes) else np.zeros(0, np.int64)
        sorted_values = np.empty(len(values), dtype=object)
        sorted_values[:] = [values[i] for i in order]
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
    names = {"--qid": qid, "--score": score, "--label": label, "--exclude-col": exclude, "--group": group}
    if path.endswith((".parquet", ".pq")):
        return _read_parquet(path, names, nan_policy)
    return _read_csv(path, names, progress, nan_policy)


def _column_index(location, header, names, what="header"):
    """Position of each named column in ``header``; ``location`` (file and line) and ``what`` for errors."""
    index = {}
    for flag, column in names.items():
        if column is None:
            continue
        count = header.count(column)
        if count == 0:
            raise TableFormatError(f"{location}: no column {column!r} ({flag}) in the {what}. "
                                   f"Got columns {_preview(header)} instead.")
        if count > 1:
            raise TableFormatError(f"{location}: column {column!r} ({flag}) appears {count} times in the {what}, so "
                                   "it is ambiguous. Got a repeated column name instead.")
        index[flag] = header.index(column)
    return index


def _preview(items, limit=20):
    items = list(items)
    shown = ", ".join(repr(item[:40] + "..." if isinstance(item, str) and len(item) > 43 else item)
                      for item in items[:limit])
    return f"[{shown}{', ...' if len(items) > limit else ''}]"


def _short(value, limit=40):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "...'"


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


def _read_csv(path, names, progress, nan_policy):
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
            return _read_csv_rows(reader, path, names, handle, size, progress, nan_policy)
    except UnicodeDecodeError:
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


def _read_csv_rows(reader, path, names, handle, size, progress, nan_policy):
    header = next(reader, None)
    if header is None:
        raise TableFormatError(f"{path}:1: the table is empty. Got no header line instead.")
    index = _column_index(f"{path}:1", header, names)
    width = len(header)
    qid_at, score_at, label_at = index["--qid"], index["--score"], index["--label"]
    exclude_at, group_at = index.get("--exclude-col"), index.get("--group")
    qid, group = _Codes(), _Codes() if group_at is not None else None
    columns = _NumberColumns(path, names, nan_policy)
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
            code = qid_index[value] = len(qid_index)
        qid_codes.append(code)
        if group is not None:
            value = row[group_at]
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


def _parse_numbers(cells, where, name, *, integers=False, empty_is_nan=False):
    """Cells of one column (strings) as numbers; ``where(i)`` locates cell ``i`` for an error.

    ``empty_is_nan``: an empty cell is NaN (scores under ``nan_policy="omit"``: pandas writes NaN as an
    empty cell); otherwise it is refused, with a word on ``--nan-policy`` for the score column.
    """
    text = "".join(cells)
    # float() also reads '1_0' and non-ASCII digits; a table's numbers are plain ASCII.
    if "_" in text or not text.isascii():
        for i, cell in enumerate(cells):
            if "_" in cell or not cell.isascii():
                raise TableFormatError(f"{where(i)}: column {name} must hold numbers. Got {_short(cell)} instead.")
    if integers:
        try:  # integer scores keep every digit: float64 would tie 2**60 and 2**60 + 1
            return np.fromiter(map(int, cells), dtype=np.int64, count=len(cells))
        except (ValueError, OverflowError):
            pass
    try:
        values = np.fromiter(map(float, cells), dtype=np.float64, count=len(cells))
    except ValueError:
        if empty_is_nan:
            cells = [cell if cell.strip() else "nan" for cell in cells]
        for i, cell in enumerate(cells):
            try:
                float(cell)
            except ValueError:
                if not cell.strip():
                    hint = (" (pandas writes NaN as an empty cell; --nan-policy omit removes NaN-scored rows)"
                            if "--score" in name else "")
                    raise TableFormatError(f"{where(i)}: column {name} must hold numbers{hint}. Got an empty "
                                           "cell instead.") from None
                raise TableFormatError(f"{where(i)}: column {name} must hold numbers. Got {_short(cell)} instead.") \
                    from None
        values = np.fromiter(map(float, cells), dtype=np.float64, count=len(cells))  # empty cells read as NaN
    infinite = np.isinf(values)
    if infinite.any():
        # "inf", "-Infinity", ... are infinite scores; "1e999" is a number float64 cannot hold.
        for i in np.flatnonzero(infinite):
            if cells[i].strip().lstrip("+-").lower() not in ("inf", "infinity"):
                raise TableFormatError(f"{where(i)}: column {name} must hold numbers within the float64 range "
                                       f"(write inf or -inf for an infinite value). Got {_short(cells[i])} instead.")
    return values


def _parse_flags(cells, where, name):
    values = [_FLAG_VALUES.get(cell.strip().lower()) for cell in cells]
    if None in values:
        i = values.index(None)
        raise TableFormatError(f"{where(i)}: column {name} must hold true/false flags (1/0, true/false, yes/no). "
                               f"Got {_short(cells[i])} instead.")
    return np.array(values, dtype=bool)


def _described(names, flag):
    return f"{names[flag]!r} ({flag})"


class _NumberColumns:
    """Scores, labels and exclude flags of a CSV, converted and checked a chunk of rows at a time."""

    def __init__(self, path, names, nan_policy="raise"):
        self.path, self.names, self.nan_policy = path, names, nan_policy
        self.scores, self.labels, self.flags = [], [], []
        self.integer_scores = True

    def add(self, scores, labels, flags, lines):
        def where(i):
            return f"{self.path}:{lines[i]}"

        names = self.names
        score = _parse_numbers(scores, where, _described(names, "--score"), integers=self.integer_scores,
                               empty_is_nan=self.nan_policy == "omit")
        if score.dtype.kind == "f":
            self.integer_scores = False
        label = _parse_numbers(labels, where, _described(names, "--label"))
        exclude = _parse_flags(flags, where, _described(names, "--exclude-col")) if flags is not None else None
        check_values(score, label, exclude, names, where, self.nan_policy)
        self.scores.append(score)
        self.labels.append(label)
        if exclude is not None:
            self.flags.append(exclude)

    def finish(self):
        if self.integer_scores:
            score = np.concatenate(self.scores)
        else:  # a column with a non-integer somewhere is a float column
            score = np.concatenate([chunk.astype(np.float64) for chunk in self.scores])
        label = np.concatenate(self.labels)
        exclude = np.concatenate(self.flags) if self.flags else None
        return score, label, exclude


def check_values(score, label, exclude, names, where, nan_policy="raise"):
    """Refuse, with ``where(row)`` (file and line or row), what the engine would refuse without a location."""
    problems = []
    keep = None if exclude is None else ~exclude
    if score.dtype.kind == "f":
        bad = np.isnan(score) if keep is None else keep & np.isnan(score)
        if nan_policy == "omit":
            bad &= label > 0
            if bad.any():
                i = int(np.argmax(bad))
                problems.append((i, f"column {_described(names, '--score')} must not be NaN on a relevant row "
                                    "(--nan-policy omit removes NaN-scored rows, and the filtered protocol removes "
                                    f"other known answers only). Got nan with relevance {label[i].item()!r} "
                                    "instead."))
        elif bad.any():
            i = int(np.argmax(bad))
            problems.append((i, f"column {_described(names, '--score')} must hold numbers, not NaN (NaN does not "
                                "rank; --nan-policy omit removes NaN-scored rows). Got nan instead."))
    bad = ~np.isfinite(label)
    if bad.any():
        i = int(np.argmax(bad))
        problems.append((i, f"column {_described(names, '--label')} must hold finite relevance values. "
                            f"Got {label[i].item()!r} instead."))
    bad = label < 0
    if bad.any():
        i = int(np.argmax(bad))
        problems.append((i, f"column {_described(names, '--label')} must hold non-negative relevance values. "
                            f"Got {label[i].item()!r} instead."))
    if exclude is not None:
        bad = exclude & (label > 0)
        if bad.any():
            i = int(np.argmax(bad))
            problems.append((i, f"column {_described(names, '--exclude-col')} must not exclude a relevant "
                                f"row (the filtered protocol removes other known answers only). Got an excluded row "
                                f"with relevance {label[i].item()!r} instead."))
    if problems:
        i, message = min(problems, key=lambda problem: problem[0])
        raise TableFormatError(f"{where(i)}: {message}")


def parquet_batches(path, names, *, batch_rows, nan_policy="raise"):
    """The record batches of a Parquet table's named columns, read ``batch_rows`` rows at a time.

    ``names`` maps the command line's flags (``"--qid"``, ``"--score"``, ...) to column names (None: not
    used); missing columns raise as for :func:`read_table`. Under ``nan_policy="omit"`` a null score is a
    NaN score (pandas writes NaN as a null), as :func:`read_table` reads it.
    """
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise TableFormatError(f"{path}: reading Parquet needs pyarrow (pip install pyarrow).") from None
    os.stat(path)  # a missing file: the OSError names it
    try:
        table = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises many types for a file that is not Parquet
        raise TableFormatError(f"{path}: cannot read the Parquet table: {exc}") from None
    _column_index(path, list(table.schema_arrow.names), names, "schema")
    batches = table.iter_batches(batch_size=batch_rows,
                                 columns=list(dict.fromkeys(c for c in names.values() if c is not None)))
    return _nulls_as_nan(batches, names["--score"]) if nan_policy == "omit" else batches


def _nulls_as_nan(batches, column):
    import pyarrow as pa
    import pyarrow.compute as pc

    for batch in batches:
        at = batch.schema.get_field_index(column)
        if batch.column(at).null_count:
            arrays = list(batch.columns)
            arrays[at] = pc.fill_null(arrays[at].cast(pa.float64()), float("nan"))
            batch = pa.RecordBatch.from_arrays(arrays, names=batch.schema.names)
        yield batch


def _read_parquet(path, names, nan_policy):
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq
    except ImportError:
        raise TableFormatError(f"{path}: reading Parquet needs pyarrow (pip install pyarrow).") from None
    wanted = {flag: column for flag, column in names.items() if column is not None}
    try:
        os.stat(path)
    except OSError as exc:
        raise TableFormatError(f"{path}: {exc.strerror}.") from None
    try:
        schema = pq.read_schema(path)
    except Exception as exc:  # pyarrow raises many types for a file that is not Parquet
        raise TableFormatError(f"{path}: cannot read the Parquet table: {exc}") from None
    _column_index(path, list(schema.names), wanted, "schema")
    try:
        table = pq.read_table(path, columns=list(dict.fromkeys(wanted.values())))
    except Exception as exc:  # a damaged file: pyarrow's message says what
        raise TableFormatError(f"{path}: cannot read the Parquet table: {exc}") from None
    if table.num_rows == 0:
        raise TableFormatError(f"{path}: the table has no rows.")

    def where(i):
        return f"{path}: row {i + 1}"

    def column(flag):
        data = table.column(names[flag]).combine_chunks()
        if isinstance(data.type, pa.DictionaryType):
            data = data.dictionary_decode() if hasattr(data, "dictionary_decode") else data.cast(data.type.value_type)
        if data.null_count:
            if flag == "--score" and nan_policy == "omit" and (pa.types.is_floating(data.type)
                                                               or pa.types.is_integer(data.type)):
                # a missing score is a NaN score (pandas writes NaN as a null): a row to remove
                data = pc.fill_null(data.cast(pa.float64()), float("nan"))
            else:
                i = int(np.argmax(pc.is_null(data).to_numpy(zero_copy_only=False)))
                hint = (" (pandas writes NaN as a null; --nan-policy omit removes NaN-scored rows)"
                        if flag == "--score" else "")
                raise TableFormatError(f"{where(i)}: column {_described(names, flag)} must not hold nulls (missing "
                                       f"values){hint}. Got a null instead.")
        kind = data.type
        if pa.types.is_nested(kind) or pa.types.is_map(kind):
            raise TableFormatError(f"{path}: column {_described(names, flag)} must hold one plain value per row. "
                                   f"Got the Parquet type {kind} instead.")
        return data, kind

    def identifiers(flag):
        """Integer codes of the values of a column, and the sorted distinct values."""
        data, kind = column(flag)
        if pa.types.is_integer(kind) or pa.types.is_floating(kind):
            values = data.to_numpy()
            if values.dtype.kind == "f" and np.isnan(values).any():
                i = int(np.argmax(np.isnan(values)))
                raise TableFormatError(f"{where(i)}: column {_described(names, flag)} must not hold NaN. Got nan "
                                       "instead.")
            uniques, codes = np.unique(values, return_inverse=True)
            return codes.reshape(-1).astype(np.int64), uniques
        encoded = data.dictionary_encode()  # strings: each distinct value once, whatever the number of rows
        values = encoded.dictionary.to_numpy(zero_copy_only=False)
        values = np.asarray(values, dtype=object)
        order = np.argsort(values, kind="stable")
        rank = np.empty(order.size, dtype=np.int64)
        rank[order] = np.arange(order.size)
        return rank[encoded.indices.to_numpy(zero_copy_only=False)], values[order]

    def numbers(flag, keep_integers):
        data, kind = column(flag)
        if pa.types.is_boolean(kind):
            return data.to_numpy(zero_copy_only=False).astype(np.float64)
        if pa.types.is_temporal(kind) and keep_integers:  # times rank as their integer ticks
            try:
                return data.cast(pa.int64()).to_numpy()
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                pass
        if pa.types.is_decimal(kind):
            return data.cast(pa.float64()).to_numpy()
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
            raise TableFormatError(f"{path}: column {_described(names, flag)} must hold numbers. Got the Parquet type "
                                   f"{kind} instead.")
        values = data.to_numpy()
        if not keep_integers or values.dtype.kind == "f":
            values = values.astype(np.float64)
        return values

    qid, qid_values = identifiers("--qid")
    score = numbers("--score", keep_integers=True)
    label = numbers("--label", keep_integers=False)
    exclude = None
    if names["--exclude-col"] is not None:
        data, kind = column("--exclude-col")
        if pa.types.is_boolean(kind):
            exclude = data.to_numpy(zero_copy_only=False).astype(bool)
        elif pa.types.is_integer(kind) or pa.types.is_floating(kind):
            values = data.to_numpy()
            bad = (values != 0) & (values != 1)
            if bad.any():
                i = int(np.argmax(bad))
                raise TableFormatError(f"{where(i)}: column {_described(names, '--exclude-col')} must hold true/false "
                                       f"flags. Got {values[i].item()!r} instead.")
            exclude = values == 1
        else:
            exclude = _parse_flags(data.cast(pa.string()).to_pylist(), where, _described(names, "--exclude-col"))
    group, group_values = identifiers("--group") if names["--group"] is not None else (None, None)
    check_values(score, label, exclude, names, where, nan_policy)
    return Table(qid, qid_values, score, label, exclude, group, group_values)
