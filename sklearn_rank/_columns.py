"""One column resolver for every tabular source: the command line's tables (CSV, TSV, JSON Lines,
Parquet, ``--stream``), :func:`~sklearn_rank.evaluate_batches`, ``sklearn_rank.dask`` and
``sklearn_rank.spark``.

Each source reads its columns its own way (text cells, Arrow arrays, pandas Series, a Spark
schema), then hands them here, so that the same table gets the same verdict and the same message
on every path:

- roles are distinct: one column cannot be the query id and the score (a typo in a flag must not
  turn the relevance labels into a perfect ranking);
- every named column is present, once;
- missing values (null, None, NA, NaN ids, an empty cell, an empty or blank id): never in ``qid``,
  ``label``, ``sample_weight``, ``exclude`` or ``unjudged``; in ``score`` only under
  ``nan_policy="omit"``, where a missing score is a NaN score (pandas writes NaN as a null or an
  empty cell);
- types per role: query ids are integers or strings (a float id only when it is a whole number
  within 2**53, so that it is exact), scores numbers (booleans count as 0/1; dates and times rank
  as their ticks), labels numbers or booleans, weights numbers, flags booleans (or the numbers 0
  and 1).

Messages name the role as the caller knows it (``--qid`` on the command line, ``qid`` for a
keyword) and the column, and say where (file and line, row, batch and row, or query).
"""

from __future__ import annotations

import numbers

import numpy as np

from .exceptions import InputTypeError, InputValueError

ROLES = ("qid", "score", "label", "sample_weight", "exclude", "unjudged")
FLAG_ROLES = ("exclude", "unjudged")
ID_ROLES = ("qid", "group")  # "group": the command line's `compare --group`
NUMBER_ROLES = ("score", "label", "sample_weight")
# What a text cell holds for a missing value: pandas' default `na_values` (which covers R's NA), so that a
# table written by pandas or R with missing values is refused (or its scores read as NaN), never read
# as a query named "NA".
MISSING_WORDS = frozenset(["", "NA", "N/A", "n/a", "#N/A", "#N/A N/A", "#NA", "<NA>", "NULL", "null", "None", "NaN",
                           "nan", "-NaN", "-nan", "1.#IND", "-1.#IND", "1.#QNAN", "-1.#QNAN"])
# true/false flags written as text (CSV cells, string columns)
FLAG_WORDS = {"1": True, "true": True, "yes": True, "1.0": True, "0": False, "false": False, "no": False, "0.0": False}

MISSING = "must not hold missing values (null, None, NaN or an empty cell)"
MISSING_SCORE_HINT = ("; pandas writes NaN as a null or an empty cell, and nan_policy 'omit' (--nan-policy omit) "
                      "reads a missing score as NaN, a candidate to remove")
EXACT_IDS = 2 ** 53  # float64 holds every whole number up to here, and not every one beyond


class Roles:
    """The columns of a tabular source by role, and how messages name each role."""

    def __init__(self, columns, flags=None, error=None):
        self.columns = columns  # role -> column name, for the roles given
        self.flags = flags or {}  # role -> command-line flag ("--qid"); absent: the keyword
        # the classes raised: InputValueError and InputTypeError, or one class of the caller's (the command
        # line's TableFormatError, an InputValueError)
        self.value_error, self.type_error = (error, error) if error is not None else (InputValueError,
                                                                                      InputTypeError)

    def label(self, role):
        """``--qid`` on the command line, `` `qid` `` for a keyword argument."""
        return self.flags.get(role) or f"`{role}`"

    def subject(self, role):
        """The role and its column, as messages name them: ``--score column 's'``."""
        return f"{self.label(role)} column {self.columns[role]!r}"

    def __contains__(self, role):
        return role in self.columns

    def __getitem__(self, role):
        return self.columns[role]

    def items(self):
        return self.columns.items()


def resolve(names, *, flags=None, error=None):
    """Check the column names by role (``names``: role -> name or None) and return :class:`Roles`.

    A name must be a string, and no column may play two roles. ``flags`` (role -> command-line
    flag) name the roles in messages; ``error`` replaces ValueError and TypeError.
    """
    naming = Roles({}, flags, error)
    given = {}
    for role, column in names.items():
        if column is None:
            continue
        if not isinstance(column, str):
            raise naming.type_error(f"{naming.label(role)} must be a column name (str). Got {type(column).__name__} "
                            "instead.")
        given[role] = column
    by_column = {}
    for role, column in given.items():
        by_column.setdefault(column, []).append(role)
    for column, roles in by_column.items():
        if len(roles) > 1:
            both = " and ".join(naming.label(role) for role in roles)
            raise naming.value_error(f"{both} must name different columns: a column cannot play two roles. Got {column!r} "
                             f"for {'both' if len(roles) == 2 else 'each'} instead.")
    return Roles(given, flags, error)


def require_present(roles, available, *, where, source):
    """Every column of ``roles`` appears in ``available`` (a list of names) exactly once; ``where``
    (or None) starts a message, ``source`` names what holds the columns."""
    available = list(available)
    location = f"{where}: " if where else ""
    for role, column in roles.items():
        count = available.count(column)
        if count == 0:
            raise roles.value_error(f"{location}{roles.label(role)} must name a column of {source} (its columns: "
                        f"{preview(available)}). Got {column!r} instead.")
        if count > 1:
            raise roles.value_error(f"{location}{roles.label(role)} names column {column!r}, which appears {count} times in "
                        f"{source}, so it is ambiguous. Got a repeated column name instead.")


def preview(items, limit=20):
    items = list(items)
    shown = ", ".join(repr(item[:40] + "..." if isinstance(item, str) and len(item) > 43 else item)
                      for item in items[:limit])
    return f"[{shown}{', ...' if len(items) > limit else ''}]"


def short(value, limit=40):
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= limit else text[:limit] + "..."


def missing_error(roles, role, where, got="a missing value", nan_policy="raise"):
    """The error for a missing value of ``role`` at ``where`` (a location, or None when unknown)."""
    hint = MISSING_SCORE_HINT if role == "score" and nan_policy != "omit" else ""
    location = f"{where}: " if where else ""
    return roles.value_error(f"{location}{roles.subject(role)} {MISSING}{hint}. Got {got} instead.")


def type_error(roles, role, where, got):
    rule = {"qid": "must hold integers or strings (query ids)",
            "group": "must hold integers or strings (group names)",
            "score": "must hold numbers",
            "label": "must hold numbers (relevance) or booleans",
            "sample_weight": "must hold numbers",
            "exclude": "must hold true/false flags",
            "unjudged": "must hold true/false flags"}[role]
    location = f"{where}: " if where else ""
    return roles.type_error(f"{location}{roles.subject(role)} {rule}. Got {got} instead.")


# The NumPy kinds each role accepts (b: booleans, i/u: integers, f: floats, O/U/S: text, m/M: times and dates,
# scores only, which rank as their ticks); text flags are words (FLAG_WORDS), text ids are ids.
KINDS = {"qid": "iufOUS", "group": "iufOUS", "score": "iufbmM", "label": "iufb", "sample_weight": "iuf",
         "exclude": "biufOUS", "unjudged": "biufOUS"}


def require_kind(roles, role, kind, got, where=None):
    """Refuse a column whose type (a NumPy kind, for sources that know types before the values: a Spark
    schema) the role does not accept; ``got`` describes the type for the message."""
    if kind not in KINDS[role]:
        raise type_error(roles, role, where, got)


def check(roles, role, values, *, missing=None, nan_policy="raise", where=None):
    """The values of one role's column as a NumPy array, checked: missing values and types.

    ``values`` is a 1-D NumPy array (missing entries hold anything), ``missing`` a boolean mask of
    the missing entries or None, ``where(i)`` the location of entry ``i`` for a message (None: no
    location). Under ``nan_policy="omit"`` a missing score becomes NaN.
    """
    def at(i):
        return _at(where, i)

    kind, original = values.dtype.kind, values
    if kind == "O" and role in NUMBER_ROLES:  # Python numbers (Decimal included) in an object column
        values = _object_numbers(values, missing)
        kind = values.dtype.kind if values is not None else "O"
    if missing is not None and missing.any() and values is not None:
        if role == "score" and kind in "iufb":
            # a missing score is a NaN score: check_rows refuses it on a row that is not excluded, unless
            # nan_policy="omit" (pandas writes NaN as a null or an empty cell)
            return _nan_where(roles, values, missing, where)
        raise missing_error(roles, role, at(int(np.argmax(missing))), nan_policy=nan_policy)
    if role in ID_ROLES:
        # a NaN id is a missing id; an empty or blank id is one too (a CSV file cannot tell it from a missing
        # cell, and a blank cell looks like one)
        if kind == "f":
            missing = np.isnan(values)
        elif kind in "US":
            missing = np.char.str_len(np.char.strip(values)) == 0
        elif kind == "O":
            missing = np.fromiter((v is None or (isinstance(v, (str, bytes)) and not v.strip()) for v in values),
                                  dtype=bool, count=values.size)
        if missing is not None and missing.any():
            i = int(np.argmax(missing))
            raise missing_error(roles, role, at(i), _missing_id(values[i]))
    if role in ID_ROLES:
        if kind == "f":
            whole = (values == np.round(values)) & (np.abs(values) <= EXACT_IDS)
            if not whole.all():
                i = int(np.argmin(whole))
                raise type_error(roles, role, at(i), f"the float {short(values[i])} (a float id must be a whole "
                                                     f"number within 2**53 to be exact)")
        elif kind not in "iuOUS":
            raise type_error(roles, role, at(None), f"values of type {values.dtype}")
        return values
    if role in FLAG_ROLES:
        if kind == "b":
            return values
        if kind in "iuf":
            bad = (values != 0) & (values != 1)
            if bad.any():
                i = int(np.argmax(bad))
                raise type_error(roles, role, at(i), short(values[i]))
            return values == 1
        if kind in "OUS":
            return flags(roles, role, values, where)
        raise type_error(roles, role, at(None), f"values of type {values.dtype}")
    allowed = "iufb" if role in ("score", "label") else "iuf"
    if values is None:  # an object column holding something that is not a number
        i = _first_not_number(original, missing)
        raise type_error(roles, role, at(i), f"text ({short(original[i])})" if isinstance(original[i], str)
                         else f"{type(original[i]).__name__} {short(original[i])}")
    if kind not in allowed:
        if kind in "US" and values.size:
            raise type_error(roles, role, at(0), f"text ({short(values[0])})")
        raise type_error(roles, role, at(None), f"values of type {values.dtype}")
    return values


def _missing_id(value):
    """How a message shows a missing id: an empty or blank one by its characters, so that the user sees why."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (str, bytes)):
        return f"a blank id {short(value)}" if value else "an empty id"
    return "a missing value"


def _is_number(value):
    return isinstance(value, (numbers.Number, np.number, np.bool_)) and not isinstance(value, complex)


def _first_not_number(values, missing):
    return next(i for i, v in enumerate(values) if not _is_number(v) and (missing is None or not missing[i]))


def _object_numbers(values, missing):
    """An object column of Python numbers as float64 (integers as int64 or uint64 when they fit: exact),
    or None when some value that is not missing is not a number."""
    present = values if missing is None else values[~missing]
    if not all(_is_number(v) for v in present):
        return None
    if all(isinstance(v, (int, np.integer)) for v in present):
        for dtype in (np.int64, np.uint64):
            try:
                out = np.zeros(values.size, dtype=dtype)
                out[~missing if missing is not None else slice(None)] = np.array(list(present), dtype=dtype)
                return out
            except OverflowError:
                continue
    out = np.zeros(values.size, dtype=np.float64)
    out[~missing if missing is not None else slice(None)] = [float(v) for v in present]
    return out


def flags(roles, role, words, where=None):
    """Text flags (1/0, true/false, yes/no, any case), or Python booleans and 0/1 in an object column, as
    booleans."""
    missing = [isinstance(word, str) and word.strip() in MISSING_WORDS for word in words]
    if any(missing):
        raise missing_error(roles, role, _at(where, missing.index(True)), short(words[missing.index(True)]))
    values = [FLAG_WORDS.get(word.strip().lower()) if isinstance(word, str) else
              bool(word) if isinstance(word, (bool, np.bool_)) or (_is_number(word) and word in (0, 1)) else None
              for word in words]
    if None in values:
        i = values.index(None)
        raise type_error(roles, role, _at(where, i), f"{short(words[i])} (write 1/0, true/false or yes/no)")
    return np.array(values, dtype=bool)


def _at(where, i):
    """The location of entry ``i`` (None: of the whole column), or None when the caller gave none."""
    return where(i) if where is not None else None


def _nan_where(roles, values, missing, where):
    """Float scores with NaN where ``missing``; integer scores only where float64 keeps them exact."""
    if values.dtype.kind in "iu":
        present = values[~missing]
        if present.size:
            largest = max(abs(int(present.max())), abs(int(present.min())))
            if largest > EXACT_IDS:
                location = f"{where(None)}: " if where is not None else ""
                raise roles.value_error(f"{location}{roles.subject('score')} holds missing values (read as NaN under "
                                 "nan_policy 'omit') and integers that float64 cannot hold exactly (above 2**53), so "
                                 "the scores cannot become floats without false ties. Got integer scores up to "
                                 f"{largest} instead.")
    out = values.astype(np.float64 if values.dtype.kind in "iub" or values.dtype.itemsize < 8 else values.dtype)
    out[missing] = np.nan
    return out


def check_rows(roles, score, label, exclude=None, *, where=None, nan_policy="raise"):
    """Refuse, with ``where(row)`` (file and line, row, batch and row, or query id), what the engine would
    refuse without a location: a NaN score on a row that is not excluded (under ``nan_policy="omit"``: on a
    relevant row), a label that is not finite or negative, an excluded relevant row."""
    problems = []
    keep = None if exclude is None else ~exclude
    if score.dtype.kind == "f":
        bad = np.isnan(score) if keep is None else keep & np.isnan(score)
        if nan_policy == "omit":
            bad &= label > 0
            if bad.any():
                i = int(np.argmax(bad))
                problems.append((i, f"{roles.subject('score')} must not be NaN or missing on a relevant row "
                                    f"({_omit(roles)} removes NaN-scored rows, and the filtered "
                                    f"protocol removes other known answers only). Got nan with relevance {label[i].item()!r} "
                                    "instead."))
        elif bad.any():
            i = int(np.argmax(bad))
            problems.append((i, f"{roles.subject('score')} must hold numbers, not NaN or missing values (a null "
                                f"or an empty cell reads as NaN, and NaN does not rank; {_omit(roles)} removes "
                                "NaN-scored rows). Got NaN or a missing value instead."))
    bad = ~np.isfinite(label)
    if bad.any():
        i = int(np.argmax(bad))
        problems.append((i, f"{roles.subject('label')} must hold finite relevance values. "
                            f"Got {label[i].item()!r} instead."))
    bad = label < 0
    if bad.any():
        i = int(np.argmax(bad))
        problems.append((i, f"{roles.subject('label')} must hold non-negative relevance values. "
                            f"Got {label[i].item()!r} instead."))
    if exclude is not None:
        bad = exclude & (label > 0)
        if bad.any():
            i = int(np.argmax(bad))
            problems.append((i, f"{roles.subject('exclude')} must not exclude a relevant "
                                f"row (the filtered protocol removes other known answers only). Got an excluded row "
                                f"with relevance {label[i].item()!r} instead."))
    if problems:
        i, message = min(problems, key=lambda problem: problem[0])
        location = _at(where, i)
        raise roles.value_error(f"{location}: {message}" if location else message)


def by_query(qid, rows=None, source=None):
    """``where`` for the rows of a source whose row numbers mean nothing to the user (a shuffled
    partition, a chunk): the query id, and the source's own row where it is known."""
    def where(i):
        if i is None:
            return None
        value = qid[i]
        text = f"qid {value.item() if isinstance(value, np.generic) else value!r}"
        return text if rows is None else f"{text}, row {int(rows[i])} of {source}"
    return where


def _omit(roles):
    """How the caller asks for NaN-scored rows to be removed."""
    return "--nan-policy omit" if roles.flags else "nan_policy='omit'"


# ------------------------------------------------------------------------------------------------
# Arrow arrays and pandas Series as NumPy values and a missing mask
# ------------------------------------------------------------------------------------------------
def _bits(buffer, offset, n):
    """The ``n`` bits of an Arrow bitmap from ``offset``, least significant first, as booleans."""
    bits = np.frombuffer(buffer, dtype=np.uint8)
    return np.unpackbits(bits, count=offset + n, bitorder="little")[offset:].view(bool)


def arrow_column(roles, role, array, *, nan_policy="raise", where=None):
    """One role's Arrow array (or chunked array) as checked NumPy values (see :func:`check`)."""
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    kind = array.type
    if pa.types.is_nested(kind) or pa.types.is_map(kind):
        raise type_error(roles, role, _at(where, None), f"the Arrow type {kind} (one plain value per row is needed)")
    if pa.types.is_null(kind):  # every value missing (or none: an empty batch)
        return check(roles, role, np.zeros(len(array), dtype=np.float64), missing=np.ones(len(array), dtype=bool),
                     nan_policy=nan_policy, where=where)
    if pa.types.is_decimal(kind):
        array = _decimals(roles, role, array, where)
        kind = array.type
    elif pa.types.is_temporal(kind):
        if role != "score":
            raise type_error(roles, role, _at(where, None), f"the Arrow type {kind}")
        array = array.view(pa.int32() if kind.bit_width == 32 else pa.int64())  # times rank as their ticks
        kind = array.type
    text = pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_binary(kind)
    if text and role in NUMBER_ROLES:
        raise type_error(roles, role, _at(where, None), f"text (the Arrow type {kind})")
    missing = ~_bits(array.buffers()[0], array.offset, len(array)) if array.null_count else None
    if pa.types.is_integer(kind) or pa.types.is_floating(kind):
        # a read-only view of the Arrow buffer (``to_numpy`` would import pandas, tens of MB)
        code = "f" if pa.types.is_floating(kind) else "i" if pa.types.is_signed_integer(kind) else "u"
        dtype = np.dtype(f"<{code}{kind.bit_width // 8}")
        values = np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array),
                               offset=array.offset * dtype.itemsize)
    elif pa.types.is_boolean(kind):
        values = _bits(array.buffers()[1], array.offset, len(array))
    else:
        values = array.to_numpy(zero_copy_only=False)
    return check(roles, role, values, missing=missing, nan_policy=nan_policy, where=where)


def _decimals(roles, role, array, where):
    """Whole decimals as int64 (exact, beyond 2**53 too); beyond the int64 range an error for scores and
    ids, which must be exact. Fractional decimals as float64 (16 significant digits), never as ids."""
    import pyarrow as pa

    if array.type.scale == 0:
        try:
            return array.cast(pa.int64())  # a checked cast
        except pa.ArrowInvalid:
            if role in ID_ROLES or role == "score":  # as floats, distinct values would tie
                raise type_error(roles, role, _at(where, None), f"whole decimals beyond the int64 range, which "
                                                                f"cannot be ranked or matched exactly (the Arrow "
                                                                f"type {array.type})") from None
    elif role in ID_ROLES:
        raise type_error(roles, role, _at(where, None), f"fractional decimals (the Arrow type {array.type})")
    return array.cast(pa.float64())


def pandas_column(roles, role, series, *, nan_policy="raise", where=None):
    """One role's pandas Series (or Index) as checked NumPy values (see :func:`check`)."""
    dtype = series.dtype
    if role == "score" and getattr(dtype, "kind", None) in ("m", "M"):
        # dates and times (time zones too) rank as their ticks, as from Arrow; NaT is a missing score
        missing = np.asarray(series.isna(), dtype=bool)
        return check(roles, role, np.asarray(series.array.asi8), missing=missing if missing.any() else None,
                     nan_policy=nan_policy, where=where)
    if isinstance(dtype, np.dtype) and dtype.kind != "O":
        values = series.to_numpy()
        missing = None  # NaN in a float column: a missing id (qid), a NaN score (the engine's rule) or a bad label
        if dtype.kind == "f" and role not in ("qid", "score"):
            nan = np.isnan(values)
            missing = nan if nan.any() else None
        return check(roles, role, values, missing=missing, nan_policy=nan_policy, where=where)
    missing = np.asarray(series.isna(), dtype=bool)
    missing = missing if missing.any() else None
    kind = getattr(dtype, "kind", "O")
    if not isinstance(dtype, np.dtype) and kind in "iufb":  # nullable numbers and booleans
        values = series.to_numpy(dtype=dtype.numpy_dtype, na_value=0 if kind != "b" else False)
    else:  # objects, strings, categories
        values = np.asarray(series.to_numpy(), dtype=object)
    return check(roles, role, values, missing=missing, nan_policy=nan_policy, where=where)


def arrow_ids(roles, role, array, *, where=None):
    """An id column (``qid``, ``group``) of Arrow as (integer codes, sorted distinct values).

    Strings are encoded by Arrow (each distinct value once, whatever the number of rows); the
    checks are those of :func:`check`.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        values = arrow_column(roles, role, array, where=where)
        uniques, codes = np.unique(values, return_inverse=True)
        return codes.reshape(-1).astype(np.int64), uniques
    missing = pc.or_kleene(pc.is_null(array), pc.equal(pc.utf8_trim_whitespace(array), ""))
    if missing.true_count:
        i = pc.index(missing, True).as_py()
        raise missing_error(roles, role, _at(where, i), _missing_id(array[i].as_py()))
    encoded = array.dictionary_encode()
    values = np.asarray(encoded.dictionary.to_numpy(zero_copy_only=False), dtype=object)
    order = np.argsort(values, kind="stable")
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank[encoded.indices.to_numpy(zero_copy_only=False)], values[order]
