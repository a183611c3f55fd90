"""Keys that order and join TREC rows without sorting strings: 64-bit row hashes, trec_eval's order."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .._factorize import factorize
from .._ranks import _small_codes
from .._segments import is_nondecreasing

# ------------------------------------------------------------------------------------------------
# 64-bit row keys: a hash of (query code, strings) per row, for sorting and joining
# ------------------------------------------------------------------------------------------------
_HASH_BLOCK = 1 << 15       # rows per block of the string hash


@lru_cache(maxsize=32)
def _multipliers(width):
    """Odd 64-bit constants (splitmix64): [0] for the code, [1 + j] for character position j."""
    mask, state, out = (1 << 64) - 1, 0, []
    for _ in range(width + 1):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out.append((z ^ (z >> 31)) | 1)
    return np.array(out, dtype=np.uint64)


def _row_keys(codes, columns, offsets=(1,)):
    """A 64-bit hash per row of (code, the strings of each column); equal rows give equal keys, whatever the
    widths of the arrays, for str and bytes alike (characters: code points and bytes).

    The hash is code * constant plus, for each character, character * the constant of its position
    (``offsets``: the position of each column's first character; padding characters are 0). It is a sort
    and join key only: every match is checked on the strings themselves.
    """
    n = columns[0].shape[0]
    keys = np.zeros(n, dtype=np.uint64)
    if codes is not None:
        keys[...] = codes
        keys *= _multipliers(0)[0]
    term = np.empty(min(n, _HASH_BLOCK), dtype=np.uint64)
    for strings, offset in zip(columns, offsets):
        chars = _char_matrix(strings)
        width = chars.shape[1]
        while width and not chars[:, width - 1].any():
            width -= 1
        constants = _multipliers(offset + width)[offset:]
        for start in range(0, n, _HASH_BLOCK):  # blocks of rows that stay in the cache
            block, out = chars[start:start + _HASH_BLOCK], keys[start:start + _HASH_BLOCK]
            part = term[:out.size]
            for j in range(width):
                part[...] = block[:, j]
                part *= constants[j]
                out += part
    return keys


def _char_matrix(strings):
    """The characters of a str (code points) or bytes array as a 2-D unsigned array, padded with zeros."""
    strings = np.ascontiguousarray(strings)
    n = strings.shape[0]
    if strings.dtype.kind == "U":
        return strings.view(np.uint32).reshape(n, strings.itemsize // 4)
    return strings.view(np.uint8).reshape(n, strings.itemsize)


def _has_duplicate_keys(keys, qid, docno):
    """Whether any (qid, docno) pair occurs twice, from their hash keys (suspects checked exactly)."""
    ordered = np.sort(keys)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    del ordered
    if not repeated.size:
        return False
    suspects = np.unique(repeated)
    at = np.minimum(np.searchsorted(suspects, keys), suspects.size - 1)
    rows = np.flatnonzero(suspects[at] == keys)
    pairs = set(zip(qid[rows].tolist(), docno[rows].tolist()))
    return len(pairs) < rows.size


# ------------------------------------------------------------------------------------------------
# trec_eval's order: by query, decreasing score, ties broken by decreasing docno
# ------------------------------------------------------------------------------------------------
_SIGN = np.uint64(1 << 63)
_MIN_SCORE_BITS = 16  # below, the packed sort key is given up for an exact lexsort


def _trec_order(run):
    # trec_eval: by query, decreasing score, then decreasing docno (string comparison).
    if _plain_rows(run.qid, run.docno, run.score):
        uniques, codes = factorize(run.qid, compact=True)
        return _order_rows(codes, uniques.size, run.score, run.docno)
    _, docno_code = factorize(run.docno)
    return np.lexsort((-docno_code, -run.score, run.qid))


def _plain_rows(qid, docno, score):
    """Arrays the vectorised code handles (anything else takes the generic NumPy code)."""
    arrays = (qid, docno, score)
    return (all(isinstance(a, np.ndarray) and a.ndim == 1 and a.shape == score.shape for a in arrays)
            and score.size > 0 and score.dtype == np.float64
            and qid.dtype.kind in "USiub" and docno.dtype.kind in "USiub")


def _score_keys(score):
    """uint64 keys in increasing order of -score: equal keys for equal scores (0.0 and -0.0 too), NaN last."""
    negated = -score
    negated += 0.0  # -0.0 becomes 0.0: both zeros tie, as in a float sort
    keys = negated.view(np.uint64)
    negative = keys >= _SIGN
    np.invert(keys, out=keys, where=negative)
    np.bitwise_or(keys, _SIGN, out=keys, where=~negative)
    nan = np.isnan(score)
    if nan.any():
        keys[nan] = np.uint64(np.iinfo(np.uint64).max)
    return keys


def _order_rows(codes, n_codes, score, docno):
    """np.lexsort((-docno_rank, -score, qid)) without sorting strings: query code, then score, then the
    docno of tied rows only."""
    n = score.shape[0]
    index_bits = max(1, (n - 1).bit_length())
    code_bits = (n_codes - 1).bit_length()
    score_bits = 64 - index_bits - code_bits
    if score_bits < _MIN_SCORE_BITS:
        keys = _score_keys(score)
        perm = np.lexsort((keys, codes))
        return _break_ties(perm, np.arange(n), codes[perm], score, docno, ordered=True)
    # one uint64 per row: query code | leading bits of the score key | row; sorted by value
    packed = _score_keys(score)
    packed >>= np.uint64(64 - score_bits)
    packed <<= np.uint64(index_bits)
    for start in range(0, n, _HASH_BLOCK):
        stop = min(n, start + _HASH_BLOCK)
        block = packed[start:stop]
        block |= np.arange(start, stop, dtype=np.uint64)
        if code_bits:
            block |= codes[start:stop].astype(np.uint64) << np.uint64(64 - code_bits)
    packed.sort()
    perm = (packed & np.uint64((1 << index_bits) - 1)).view(np.int64).astype(np.intp, copy=False)
    packed >>= np.uint64(index_bits)
    same = packed[1:] == packed[:-1]
    del packed
    # rows sharing query and leading score bits: ordered by the full score key, then by docno
    pairs = np.flatnonzero(same)
    if not pairs.size:
        return perm
    members = np.zeros(n, dtype=bool)
    members[pairs] = True
    members[pairs + 1] = True
    members = np.flatnonzero(members)
    new_group = np.ones(members.size, dtype=bool)
    new_group[1:] = ~same[members[1:] - 1]
    return _break_ties(perm, members, np.cumsum(new_group), score, docno, ordered=False)


def _break_ties(perm, members, groups, score, docno, ordered):
    """Order the rows perm[members] within each group: decreasing score, then decreasing docno, then row."""
    rows = perm[members]
    row_keys = _score_keys(score[rows])
    if not ordered:
        by_score = np.lexsort((rows, row_keys, groups))
        rows, row_keys = rows[by_score], row_keys[by_score]
    tie = (groups[1:] == groups[:-1]) & (row_keys[1:] == row_keys[:-1])
    pairs = np.flatnonzero(tie)
    if pairs.size:
        tied = np.zeros(rows.size, dtype=bool)
        tied[pairs] = True
        tied[pairs + 1] = True
        tied = np.flatnonzero(tied)
        new_group = np.ones(tied.size, dtype=bool)
        new_group[1:] = ~tie[tied[1:] - 1]
        tied_rows = rows[tied]
        _, docno_code = factorize(docno[tied_rows])
        rows[tied] = tied_rows[np.lexsort((tied_rows, -docno_code, np.cumsum(new_group)))]
    perm[members] = rows
    return perm


def _query_order(codes, n_codes):
    """np.argsort(qid, kind="stable") from the query codes."""
    if is_nondecreasing(codes):
        return np.arange(codes.size)
    return np.argsort(_small_codes(codes, n_codes), kind="stable")  # 16-bit keys: a radix sort
