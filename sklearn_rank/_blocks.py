"""Row blocks of one matrix-layout evaluation: :func:`evaluate_blocks`.

Each block is consecutive rows of one score matrix (a relevance matrix, or a label index), evaluated
as one part of the engine's plan (``_engine.Plan.part``) as it comes; its queries are numbered by
their row in the stacked matrix. Only the parts' per-query values and target records are kept
(``_parts.PartStore``) and reduced at the end (``Plan.reduce``), which gives the report of
:func:`~sklearn_rank.evaluate` on the stacked matrix.
"""

from __future__ import annotations

import numpy as np

from . import _engine, _parts
from ._inputs import ALL_EXCLUDED
from ._threads import check_n_jobs
from .exceptions import InputError, InputTypeError, InputValueError

__all__ = ["evaluate_blocks"]

# The options of ``evaluate`` that hold for every block alike (``labels`` names the columns).
_OPTIONS = (*_engine.PLAN_OPTIONS, "labels")
# The options of ``evaluate`` that evaluate_blocks does not take, and why.
_REFUSED = {
    "exclude": "comes with each block, as its third item: (y_true, y_score, exclude)",
    "sample_weight": "comes with each block, as its fourth item: (y_true, y_score, exclude, sample_weight)",
    "qid": "is the grouped layout's; each row of a block is one query, numbered by its row in the stacked matrix",
    "judged": "needs query ids: use evaluate in the grouped layout",
    "missing": "needs query ids: use evaluate in the grouped layout",
    "unjudged": "is not supported by evaluate_blocks: use evaluate",
}
_LAYOUTS = {1: "the label-index layout (1-D y_true)", 2: "the relevance-matrix layout (2-D y_true)"}
_ITEMS = "(y_true, y_score), (y_true, y_score, exclude) or (y_true, y_score, exclude, sample_weight)"
_END = object()


def evaluate_blocks(blocks, *, metrics=("mrr", "map", "ndcg@10"), n_jobs=None, **options):
    """Evaluate a score matrix given as consecutive blocks of rows.

    For score matrices too large to hold at once, such as the scores of
    every user against every item of a factor model, computed 1,000 users
    at a time (``U[i:j] @ V.T``). Each block is evaluated as it comes and
    only its per-query values (and the ranks the rank statistics pool) are
    kept, so memory holds about one block; the report is that of
    :func:`evaluate` on the blocks stacked vertically.

    Read more in the :ref:`User Guide <scaling_blocks>`.

    Parameters
    ----------
    blocks : iterable of tuple
        The blocks, in row order: tuples ``(y_true, y_score)``,
        ``(y_true, y_score, exclude)`` or
        ``(y_true, y_score, exclude, sample_weight)``, each consecutive rows
        of one matrix-layout evaluation (see :func:`evaluate`). ``y_score``
        is a 2-D array of shape (n_rows, n_candidates); ``y_true`` is its
        relevance matrix (2-D, the shape of ``y_score``) or the column index
        of each row's true candidate (1-D, the label-index layout).
        ``exclude`` (or None) marks candidates removed before ranking;
        ``sample_weight`` (or None) holds one weight per row. Every block
        has the same layout and number of columns, and either every block or
        none carries weights. A generator is read once. Blocks of 0 rows are
        checked, then skipped.
    metrics : str or sequence of str, default=("mrr", "map", "ndcg@10")
        Metric names (see :func:`metric_names`).
    n_jobs : int, default=None
        Threads that rank parts of each block's rows at once (None: 1, -1: every
        core); the numbers are the same for every value.
    **options : dict
        The options of :func:`evaluate` that hold for every block: ``ties``,
        ``relevance_level``, ``gain``, ``no_relevant``, ``targets``, the
        definition options (``ap_denominator``, ``precision_denominator``,
        ``recall_denominator``, ``discount``, ``ideal_dcg``), ``nan_policy``,
        ``convention`` and ``labels`` (the class label of each column,
        label-index layout). ``exclude`` and ``sample_weight`` come with each
        block; ``qid``, ``judged``, ``missing`` and ``unjudged`` are refused.

    Returns
    -------
    report : RankingReport
        As :func:`evaluate` on the stacked blocks: the same summary and
        per-query values, and ``report.per_query["qid"]`` is each query's
        row number in the stacked matrix (0 for the first row of the first
        block).

    Raises
    ------
    ValueError
        When ``blocks`` yields no block or no row, an item that is not a
        tuple of 2 to 4 items, blocks of different widths or layouts, or a
        block that :func:`evaluate` refuses; the message names the block,
        counted from 0. An exception raised by ``blocks`` itself (a
        generator failing midway) propagates as it is, with a note naming
        the block it was producing: no report is returned for part of the
        data.
    TypeError
        When ``blocks`` is not iterable, an item is not a tuple, or an
        option is unknown.

    See Also
    --------
    evaluate : The same numbers from a matrix in memory.
    evaluate_batches : Rows grouped by query, streamed as record batches.

    Notes
    -----
    The queries are the rows of the stacked matrix, so every query lies in
    one block whole, and the rows of a block are ranked a chunk at a time
    as :func:`evaluate` ranks a matrix: the values of each query, and the
    pooled rank statistics, are those of :func:`evaluate` to the last bit,
    however the rows are cut into blocks.

    Examples
    --------
    A factor model scores 10 users against 30 items, 4 users at a time;
    each user has one held-out item (the label-index layout):

    >>> import numpy as np
    >>> from sklearn_rank import evaluate, evaluate_blocks
    >>> rng = np.random.default_rng(0)
    >>> users, items = rng.normal(size=(10, 4)), rng.normal(size=(30, 4))
    >>> held_out = rng.integers(0, 30, size=10)
    >>> def blocks(size=4):
    ...     for start in range(0, len(users), size):
    ...         rows = slice(start, start + size)
    ...         yield held_out[rows], users[rows] @ items.T
    >>> report = evaluate_blocks(blocks(), metrics=["mrr", "hits@10"])
    >>> report.per_query["qid"]
    array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])

    The report of :func:`evaluate` on the same blocks stacked:

    >>> scores = np.vstack([block_scores for _, block_scores in blocks()])
    >>> stacked = evaluate(held_out, scores, metrics=["mrr", "hits@10"])
    >>> report.summary == stacked.summary
    True
    """
    labels = _check_options(options)
    evaluation = _engine.plan(metrics=metrics, **options)
    return _evaluate(evaluation, blocks, labels, check_n_jobs(n_jobs))


def _check_options(options):
    """``labels`` taken out of ``options`` (the plan's options); options evaluate_blocks does not take refused."""
    for name in options:
        if name in _REFUSED:
            raise InputTypeError(f"`{name}` {_REFUSED[name]}. Got {name}= as a keyword of evaluate_blocks instead.")
        if name not in _OPTIONS:
            raise InputTypeError(f"evaluate_blocks takes the options {list(_OPTIONS)}. Got an unexpected keyword "
                                 f"argument {name!r} instead.")
    return options.pop("labels", None)


def _evaluate(evaluation, blocks, labels, n_jobs=1):
    """The report of every block (``evaluate_blocks`` with its options checked).

    No reference to a block is held while the next is produced (a generator computing the next block
    then meets at most the one it yields), and the report is reduced here, two calls below the user's
    (the depth the engine's warnings are raised for).
    """
    if isinstance(blocks, (str, bytes)) or not hasattr(blocks, "__iter__"):
        raise InputTypeError(f"`blocks` must be an iterable of tuples {_ITEMS}. Got {type(blocks).__name__} "
                             "instead.")
    iterator = iter(blocks)
    store = _parts.PartStore()
    first = None  # (layout, width, weighted, index) of the first block, which every block must match
    n_rows = 0  # rows of the blocks before: the first query id of the next block
    all_excluded = False
    index = 0
    while True:
        item = _next_block(iterator, index)
        if item is _END:
            break
        y_true, y_score, exclude, weight = _unpack(item, index)
        del item
        rows, kind = _check_block(y_true, y_score, weight, index, first)
        if first is None:
            first = kind
        if rows:
            part = _part(evaluation, index, y_true, y_score, exclude, weight, labels, n_jobs)
            if part is None:
                all_excluded = True  # its queries drop out, as in evaluate
            else:
                part.qid = part.qid + n_rows  # the row numbers of the stacked matrix
                store.add(part)
            del part
        del y_true, y_score, exclude, weight
        n_rows += rows
        index += 1
    if not store.n_queries:
        if all_excluded:
            raise InputValueError(ALL_EXCLUDED)
        got = "an empty iterable" if index == 0 else f"{index} block{'s' if index > 1 else ''} of 0 rows"
        raise InputValueError(f"`blocks` must hold at least one row. Got {got} instead.")
    return evaluation.reduce([store.finish()], consume=True)


def _next_block(iterator, index):
    """The next item of ``blocks`` (``_END`` after the last); an exception of ``blocks`` itself goes on with a note."""
    try:
        return next(iterator)
    except StopIteration:
        return _END
    except Exception as exc:
        if hasattr(exc, "add_note"):  # Python 3.11+
            done = {0: "no block was read", 1: "block 0 was read"}.get(index, f"blocks 0 to {index - 1} were read")
            exc.add_note(f"(evaluate_blocks: `blocks` raised this while producing block {index}; {done}, and no "
                         "report is returned for part of the data.)")
        raise


def _unpack(item, index):
    """(y_true, y_score, exclude, sample_weight) of one item of ``blocks``."""
    if not isinstance(item, tuple):
        raise InputTypeError(f"`blocks` must yield tuples {_ITEMS} (one block alone: [(y_true, y_score)]). Got "
                             f"{type(item).__name__} as block {index} instead.")
    if not 2 <= len(item) <= 4:
        raise InputValueError(f"`blocks` must yield tuples {_ITEMS}. Got a tuple of {len(item)} items as block "
                              f"{index} instead.")
    return item + (None,) * (4 - len(item))


def _shape(values):
    """The shape of an array-like (sparse matrices included), or None if it has none (the engine says why)."""
    shape = getattr(values, "shape", None)
    if shape is None:
        try:
            shape = np.shape(values)
        except (ValueError, TypeError):  # ragged nested lists
            return None
    try:
        return tuple(int(n) for n in shape)
    except TypeError:
        return None


def _check_block(y_true, y_score, weight, index, first):
    """The block's number of rows and (layout, width, weighted, index), checked against the first block's."""
    score_shape = _shape(y_score)
    if score_shape is None or len(score_shape) != 2:
        got = f"shape {score_shape}" if score_shape is not None else type(y_score).__name__
        raise InputValueError("`blocks` must yield score matrices: `y_score` of shape (n_rows, n_candidates). Got "
                              f"{got} in block {index} instead.")
    true_shape = _shape(y_true)
    layout = None if true_shape is None else len(true_shape)
    kind = (layout, score_shape[1], weight is not None, index)
    if first is None:
        return score_shape[0], kind
    first_layout, first_width, first_weighted, first_index = first
    if layout in _LAYOUTS and first_layout in _LAYOUTS and layout != first_layout:
        raise InputValueError(f"`blocks` must all have one layout. Got {_LAYOUTS[first_layout]} in block {first_index} "
                              f"and {_LAYOUTS[layout]} in block {index} instead.")
    if score_shape[1] != first_width:
        raise InputValueError(f"`blocks` must all have the same number of columns (candidates). Got {first_width} "
                              f"columns in block {first_index} and {score_shape[1]} in block {index} instead.")
    if kind[2] != first_weighted:
        has = {True: "a sample_weight", False: "no sample_weight"}
        raise InputValueError(f"`blocks` must give a sample_weight with every block or with none. Got "
                              f"{has[first_weighted]} in block {first_index} and {has[kind[2]]} in block {index} "
                              "instead.")
    return score_shape[0], kind


def _part(evaluation, index, y_true, y_score, exclude, weight, labels, n_jobs):
    """The engine's part of one block, as it came (None when every candidate was excluded); the block is named in
    the engine's errors."""
    try:
        return evaluation.part(y_true, y_score, exclude=exclude, labels=labels, sample_weight=weight, n_jobs=n_jobs)
    except InputError as exc:
        if isinstance(exc, ValueError) and str(exc) == ALL_EXCLUDED:
            return None
        if exc.args and isinstance(exc.args[0], str):
            exc.args = (f"In block {index} of `blocks`: {exc.args[0]}",) + exc.args[1:]
        raise
    except Exception as exc:
        if hasattr(exc, "add_note"):
            exc.add_note(f"(evaluate_blocks: raised while evaluating block {index}.)")
        raise
