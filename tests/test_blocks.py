"""evaluate_blocks: row blocks of one matrix-layout evaluation give the report of evaluate on the stacked matrix."""

import itertools
import re
import tracemalloc
import warnings

import numpy as np
import pytest

import sklearn_rank as skr
from sklearn_rank._inputs import ALL_EXCLUDED
from sklearn_rank.exceptions import InputTypeError, InputValueError

TIES = ("expected", "realistic", "optimistic", "pessimistic", "ordinal")
METRICS = ["mrr", "mrr@3", "map", "map@5", "ndcg", "ndcg@5", "dcg@3", "p@3", "r@5", "f1@3", "hits@1", "hits@10",
           "rprec", "auc", "bpref", "rbp", "err@5",
           "mr", "gmr", "hmr", "median_rank", "rank_std", "rank_mad", "count", "amri", "agmri", "zmrr", "ahits@3"]
N_QUERIES = 23


def matrix_case(seed, n_candidates=9):
    """A relevance matrix with many ties; queries without relevant items, with a single one, with only their
    relevant candidates left, and rows 11-13 whose every candidate is excluded."""
    rng = np.random.default_rng(seed)
    shape = (N_QUERIES, n_candidates)
    score = rng.integers(0, 4, shape).astype(float)
    rel = (rng.integers(0, 4, shape) * (rng.random(shape) < 0.35)).astype(float)
    rel[2] = 0
    rel[6] = 0
    rel[6, 0] = 3
    exclude = (rng.random(shape) < 0.25) & (rel == 0)
    exclude[9] = rel[9] == 0
    rel[11:14] = 0
    exclude[11:14] = True
    return rel, score, exclude


def label_case(seed, n_candidates=9):
    """A label index (one true column per row) with many ties; the targets are never excluded."""
    rng = np.random.default_rng(seed)
    shape = (N_QUERIES, n_candidates)
    score = rng.integers(0, 5, shape).astype(float)
    target = rng.integers(0, n_candidates, N_QUERIES)
    exclude = rng.random(shape) < 0.3
    exclude[np.arange(N_QUERIES), target] = False
    return target, score, exclude


CASES = {"matrix": matrix_case, "label": label_case}


def cuts(seed):
    """Row bounds of blocks: one block, blocks of one row, uneven blocks (one of 0 rows), and rows 11-13
    (every candidate excluded in the relevance matrix) a block of their own."""
    rng = np.random.default_rng(seed)
    uneven = np.unique(np.concatenate(([0, N_QUERIES], rng.integers(1, N_QUERIES, 5))))
    uneven = np.insert(uneven, 2, uneven[1])  # a block of 0 rows
    return {"one block": [0, N_QUERIES], "one row each": list(range(N_QUERIES + 1)), "uneven": uneven.tolist(),
            "excluded rows alone": [0, 5, 11, 14, 20, N_QUERIES]}


def blocks_of(bounds, *arrays):
    """A generator of blocks: the arrays' rows between consecutive bounds (None stays None)."""
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        yield tuple(None if a is None else a[lo:hi] for a in arrays)


def run(func, *args, **kwargs):
    """The report, and the warnings raised (category and message)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = func(*args, **kwargs)
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], [str(w.message) for w in caught]
    return report, [(w.category, str(w.message)) for w in caught]


def assert_identical(got, expected):
    """Per-query values identical (NaN where NaN), the summary ==, and the counts and params."""
    assert list(got.summary) == list(expected.summary)
    for name, value in expected.summary.items():
        assert got.summary[name] == value or (np.isnan(value) and np.isnan(got.summary[name])), name
    assert list(got.per_query) == list(expected.per_query)
    for name, values in expected.per_query.items():
        assert got.per_query[name].dtype == values.dtype, name
        np.testing.assert_array_equal(got.per_query[name], values, err_msg=name)
    assert (got.n_queries, got.n_skipped, got.params) == (expected.n_queries, expected.n_skipped, expected.params)
    if expected.sample_weight is None:
        assert got.sample_weight is None
    else:
        np.testing.assert_array_equal(got.sample_weight, expected.sample_weight)


def check_equal(bounds, y_true, score, exclude=None, weight=None, **options):
    expected, expected_warnings = run(skr.evaluate, y_true, score, exclude=exclude, sample_weight=weight, **options)
    arrays = (y_true, score) + ((exclude,) if exclude is not None or weight is not None else ()) + (
        (weight,) if weight is not None else ())
    got, got_warnings = run(skr.evaluate_blocks, blocks_of(bounds, *arrays), **options)
    assert_identical(got, expected)
    # The same warnings. The per-query values of a degenerate adjusted statistic are computed block by
    # block, and its warning names the causes found in each block holding such queries: compared by metric.
    assert distinct(got_warnings) == distinct(expected_warnings)


def distinct(caught):
    per_query = re.compile(r"^(\S+) is undefined where ")
    return {(category, per_query.match(message).group(1) if per_query.match(message) else message)
            for category, message in caught}


# ------------------------------------------------------------------------------------------------
# the report of evaluate on the stacked matrix
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", sorted(CASES))
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("targets", ["first", "all"])
@pytest.mark.parametrize("no_relevant, with_exclude", [("skip", True), ("zero", True), ("skip", False)])
def test_equal_to_evaluate_on_the_stacked_matrix(layout, ties, targets, no_relevant, with_exclude):
    seed = len(layout) + 10 * TIES.index(ties)
    y_true, score, exclude = CASES[layout](seed)
    if not with_exclude:
        exclude = None
        if layout == "matrix":
            y_true[11:14, 0] = 1  # rows 11-13 ranked, with a relevant item each
    for name, bounds in cuts(seed).items():
        try:
            check_equal(bounds, y_true, score, exclude, metrics=METRICS, ties=ties, targets=targets,
                        no_relevant=no_relevant)
        except AssertionError as error:
            raise AssertionError(f"blocks cut {name}: {bounds}") from error


@pytest.mark.parametrize("layout", sorted(CASES))
@pytest.mark.parametrize("options", [
    {"gain": "exponential", "relevance_level": 2}, {"ap_denominator": "capped"}, {"convention": "trec_eval"},
    {"convention": "pykeen"}, {"convention": "lightgbm"}, {"no_relevant": "one"}, {"nan_policy": "omit"}])
def test_options_as_evaluate(layout, options):
    y_true, score, exclude = CASES[layout](5)
    if options.get("nan_policy") == "omit":  # NaN scores of non-relevant candidates, excluded or not
        rng = np.random.default_rng(5)
        relevant = (y_true > 0) if layout == "matrix" else np.eye(score.shape[1], dtype=bool)[y_true]
        score[(rng.random(score.shape) < 0.2) & ~relevant] = np.nan
    metrics = ["mrr", "map", "ndcg@5", "p@3", "hits@3", "mr", "amri"]
    for bounds in cuts(5).values():
        check_equal(bounds, y_true, score, exclude, metrics=metrics, **options)


def test_labels_name_the_columns_of_every_block():
    target, score, exclude = label_case(3)
    labels = np.array([f"item{j}" for j in range(score.shape[1])])[::-1]
    for bounds in cuts(3).values():
        check_equal(bounds, labels[target], score, exclude, metrics=["mrr", "hits@3", "mr"], labels=labels)


@pytest.mark.parametrize("layout", sorted(CASES))
def test_sample_weight_as_a_fourth_item(layout):
    y_true, score, exclude = CASES[layout](7)
    weight = np.random.default_rng(7).uniform(0.2, 3.0, N_QUERIES)
    for targets in ("first", "all"):
        for bounds in cuts(7).values():
            check_equal(bounds, y_true, score, exclude, weight, metrics=METRICS, targets=targets)
    # a fourth item None in every block: no weights
    got = skr.evaluate_blocks(blocks_of([0, 10, N_QUERIES], y_true, score, exclude, None), metrics=["mrr", "mr"])
    assert_identical(got, skr.evaluate(y_true, score, exclude=exclude, metrics=["mrr", "mr"]))


@pytest.mark.parametrize("ties, targets", [("expected", "all"), ("ordinal", "first")])
def test_blocks_across_the_chunks_of_the_stacked_matrix(ties, targets):
    """A matrix that evaluate ranks in many chunks of rows (dense relevance: reduced chunk by chunk), cut
    into blocks across the chunks' bounds."""
    rng = np.random.default_rng(12)
    score = rng.integers(0, 50, (300, 2000)).astype(np.float32)
    rel = (rng.integers(0, 3, score.shape) * (rng.random(score.shape) < 0.5)).astype(np.int8)
    exclude = (rng.random(score.shape) < 0.1) & (rel == 0)
    metrics = ["mrr", "map", "ndcg@10", "err@5", "auc", "mr", "gmr", "amri", "zhits@10"]
    check_equal([0, 7, 130, 131, 299, 300], rel, score, exclude, metrics=metrics, ties=ties, targets=targets)


def test_blocks_with_and_without_exclude():
    """A block without ``exclude`` (a pair, or None as its third item) excludes nothing."""
    rel, score, exclude = matrix_case(2)
    exclude[:4] = False
    exclude[15:] = False
    blocks = [(rel[:4], score[:4]), (rel[4:15], score[4:15], exclude[4:15]), (rel[15:], score[15:], None)]
    got = skr.evaluate_blocks(iter(blocks), metrics=["mrr", "map", "mr"])
    assert_identical(got, skr.evaluate(rel, score, exclude=exclude, metrics=["mrr", "map", "mr"]))


def test_query_ids_are_rows_of_the_stacked_matrix():
    target, score, _ = label_case(4)
    report = skr.evaluate_blocks(blocks_of([0, 1, 8, 8, 20, N_QUERIES], target, score), metrics=["mrr"])
    np.testing.assert_array_equal(report.per_query["qid"], np.arange(N_QUERIES))
    rel, score, exclude = matrix_case(4)
    report = skr.evaluate_blocks(blocks_of([0, 12, N_QUERIES], rel, score, exclude), metrics=["mrr"],
                                 no_relevant="zero")
    kept = np.flatnonzero(~exclude.all(axis=1))  # rows 11-13 dropped out, as in evaluate
    np.testing.assert_array_equal(report.per_query["qid"], kept)


def test_lists_and_float32_blocks():
    rng = np.random.default_rng(9)
    score = rng.random((12, 6)).astype(np.float32)
    rel = (rng.random((12, 6)) < 0.3).astype(np.int8)
    rel[:, 0] = 1
    blocks = [(rel[:5].tolist(), score[:5].tolist()), (rel[5:], score[5:])]
    got = skr.evaluate_blocks(blocks, metrics=["mrr", "ndcg@3"])
    assert_identical(got, skr.evaluate(np.vstack([rel[:5].astype(float), rel[5:]]),
                                       np.vstack([score[:5].astype(float), score[5:]]), metrics=["mrr", "ndcg@3"]))


def test_warnings_point_at_the_caller():
    """The summary's warnings name the caller's line, as evaluate's do."""
    rel, score = np.zeros((6, 4)), np.arange(24.0).reshape(6, 4)
    with pytest.warns(skr.UndefinedMetricWarning, match="no query has a retrieved relevant item") as caught:
        skr.evaluate_blocks([(rel[:2], score[:2]), (rel[2:], score[2:])], metrics=["mrr", "mr"], no_relevant="zero")
    assert [w.filename for w in caught] == [__file__]


# ------------------------------------------------------------------------------------------------
# memory: one block at a time
# ------------------------------------------------------------------------------------------------
N_USERS, N_ITEMS, BLOCK_ROWS = 4000, 5000, 250


def _factor_model():
    rng = np.random.default_rng(0)
    users = rng.normal(size=(N_USERS, 32)).astype(np.float32)
    items = rng.normal(size=(N_ITEMS, 32)).astype(np.float32)
    held_out = rng.integers(0, N_ITEMS, N_USERS)
    liked = np.sort(rng.integers(0, N_ITEMS, (N_USERS, 8)), axis=1)
    return users, items, held_out, liked


def _label_blocks(users, items, held_out, liked, dtype):
    for lo in range(0, N_USERS, BLOCK_ROWS):
        yield held_out[lo:lo + BLOCK_ROWS], users[lo:lo + BLOCK_ROWS] @ items.T


def _matrix_blocks(users, items, held_out, liked, dtype):
    for lo in range(0, N_USERS, BLOCK_ROWS):
        rel = np.zeros((BLOCK_ROWS, N_ITEMS), dtype=dtype)
        np.put_along_axis(rel, liked[lo:lo + BLOCK_ROWS], 1, axis=1)
        yield rel, users[lo:lo + BLOCK_ROWS] @ items.T


@pytest.mark.parametrize("make_blocks, dtype, ties, targets", [
    (_label_blocks, None, "expected", "first"), (_label_blocks, None, "realistic", "all"),
    (_matrix_blocks, np.int8, "realistic", "all"), (_matrix_blocks, np.int8, "ordinal", "first"),
    (_matrix_blocks, bool, "expected", "first")])
def test_peak_memory_within_four_blocks(make_blocks, dtype, ties, targets):
    """4,000 x 5,000 float32 scores in blocks of 250 rows from a generator: the peak of new allocations,
    beyond the report's per-query values, within 4 blocks of scores (measured: label index 1.1 blocks,
    int8 relevance 1.6-2.0, boolean relevance 3.6-3.9, which the engine copies to float64)."""
    model = _factor_model()
    metrics = ["mrr", "map", "ndcg@10", "hits@10", "mr", "amri"]
    skr.evaluate_blocks(itertools.islice(make_blocks(*model, dtype), 2), metrics=metrics, ties=ties,
                        targets=targets)  # lazy imports
    block_bytes = BLOCK_ROWS * N_ITEMS * np.dtype(np.float32).itemsize
    tracemalloc.start()
    try:
        report = skr.evaluate_blocks(make_blocks(*model, dtype), metrics=metrics, ties=ties, targets=targets)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.n_queries == N_USERS
    per_query = sum(values.nbytes for values in report.per_query.values())
    blocks = (peak - per_query) / block_bytes
    assert blocks <= 4, f"peak {peak / 1e6:.1f} MB: {blocks:.2f} blocks of scores beyond the per-query values"


# ------------------------------------------------------------------------------------------------
# errors
# ------------------------------------------------------------------------------------------------
REL, SCORE, EXCLUDE = matrix_case(0)
TARGET, LABEL_SCORE, _ = label_case(0)


def _generator(*blocks):
    yield from blocks


ERRORS = [
    # (blocks, options, error class, message)
    (5, {}, InputTypeError, r"`blocks` must be an iterable of tuples .* Got int instead\."),
    ("blocks", {}, InputTypeError, r"`blocks` must be an iterable of tuples .* Got str instead\."),
    ([], {}, InputValueError, r"`blocks` must hold at least one row\. Got an empty iterable instead\."),
    (_generator(), {}, InputValueError, r"Got an empty iterable instead\."),
    ([(REL[:0], SCORE[:0]), (REL[:0], SCORE[:0])], {}, InputValueError, r"Got 2 blocks of 0 rows instead\."),
    ((REL, SCORE), {}, InputTypeError,
     r"`blocks` must yield tuples .* \(one block alone: \[\(y_true, y_score\)\]\)\. Got ndarray as block 0 instead\."),
    ([(REL[:3], SCORE[:3]), [REL[3:], SCORE[3:]]], {}, InputTypeError, r"Got list as block 1 instead\."),
    ([(REL,)], {}, InputValueError, r"`blocks` must yield tuples .* Got a tuple of 1 items as block 0 instead\."),
    ([(REL[:3], SCORE[:3]), (REL[3:], SCORE[3:], None, None, None)], {}, InputValueError,
     r"Got a tuple of 5 items as block 1 instead\."),
    ([(REL[0], SCORE[0])], {}, InputValueError,
     r"`blocks` must yield score matrices: `y_score` of shape \(n_rows, n_candidates\)\. Got shape \(9,\) in "
     r"block 0 instead\."),
    (_generator((REL[:3], SCORE[:3]), (REL[3:5], SCORE[3:5]), (REL[5:, :8], SCORE[5:, :8])), {}, InputValueError,
     r"`blocks` must all have the same number of columns \(candidates\)\. Got 9 columns in block 0 and 8 in "
     r"block 2 instead\."),
    ([(REL[:3], SCORE[:3]), (TARGET[3:], LABEL_SCORE[3:])], {}, InputValueError,
     r"`blocks` must all have one layout\. Got the relevance-matrix layout \(2-D y_true\) in block 0 and the "
     r"label-index layout \(1-D y_true\) in block 1 instead\."),
    ([(TARGET[:3], LABEL_SCORE[:3]), (REL[3:], SCORE[3:])], {}, InputValueError,
     r"Got the label-index layout \(1-D y_true\) in block 0 and the relevance-matrix layout \(2-D y_true\) in "
     r"block 1 instead\."),
    ([(REL[:3], SCORE[:3], None, np.ones(3)), (REL[3:], SCORE[3:])], {}, InputValueError,
     r"`blocks` must give a sample_weight with every block or with none\. Got a sample_weight in block 0 and no "
     r"sample_weight in block 1 instead\."),
    # the engine's errors, the block in front
    ([(REL[:3], SCORE[:3]), (REL[3:5], SCORE[3:5]), (REL[5:9], SCORE[5:10])], {}, InputValueError,
     r"^In block 2 of `blocks`: `y_true` and `y_score` must have the same shape in the relevance-matrix layout\. "
     r"Got \(4, 9\) and \(5, 9\) instead\.$"),
    ([(REL[:3], SCORE[:3]), (REL[3:].astype(str), SCORE[3:])], {}, InputTypeError,
     r"^In block 1 of `blocks`: `y_true` must hold numbers\. Got an array of dtype <U32 instead\.$"),
    ([(TARGET[:3], LABEL_SCORE[:3]), (TARGET[3:] + 100, LABEL_SCORE[3:])], {}, InputValueError,
     r"^In block 1 of `blocks`: `y_true` column indices must lie in \[0, 8\]\."),
    ([(REL[:3], SCORE[:3]), (REL[3:], np.where(REL[3:] > 0, np.nan, SCORE[3:]))], {}, InputValueError,
     r"^In block 1 of `blocks`: `y_score` must not hold NaN"),
    ([(REL[:3], SCORE[:3], EXCLUDE[:3]), (REL[3:], SCORE[3:], EXCLUDE[3:5])], {}, InputValueError,
     r"^In block 1 of `blocks`: `exclude` must have the shape of `y_score`"),
    ([(REL[11:14], SCORE[11:14], EXCLUDE[11:14])], {}, InputValueError, "^" + ALL_EXCLUDED.replace("(", r"\(")
     .replace(")", r"\)").replace(".", r"\.") + "$"),
    # options
    ([(REL, SCORE)], {"qid": np.arange(N_QUERIES)}, InputTypeError,
     r"`qid` is the grouped layout's; .* Got qid= as a keyword of evaluate_blocks instead\."),
    ([(REL, SCORE)], {"exclude": EXCLUDE}, InputTypeError, r"`exclude` comes with each block, as its third item"),
    ([(REL, SCORE)], {"sample_weight": np.ones(N_QUERIES)}, InputTypeError,
     r"`sample_weight` comes with each block, as its fourth item"),
    ([(REL, SCORE)], {"judged": None}, InputTypeError, r"`judged` needs query ids"),
    ([(REL, SCORE)], {"n_job": 2}, InputTypeError,
     r"evaluate_blocks takes the options \[.*\]\. Got an unexpected keyword argument 'n_job' instead\."),
    ([(REL, SCORE)], {"ties": "random"}, InputValueError, r"^`ties` must be one of"),
]


@pytest.mark.parametrize("blocks, options, error, message", ERRORS)
def test_errors(blocks, options, error, message):
    with pytest.raises(error, match=message):
        skr.evaluate_blocks(blocks, **options)


class _SourceFailed(RuntimeError):
    pass


@pytest.mark.parametrize("failing_block", [0, 2])
def test_an_exception_of_blocks_itself_propagates_with_a_note(failing_block):
    failure = _SourceFailed("the database connection dropped")

    def blocks():
        for i, lo in enumerate(range(0, N_QUERIES, 5)):
            if i == failing_block:
                raise failure
            yield REL[lo:lo + 5], SCORE[lo:lo + 5]

    with pytest.raises(_SourceFailed) as caught:
        skr.evaluate_blocks(blocks())
    assert caught.value is failure
    assert str(caught.value) == "the database connection dropped"
    done = "blocks 0 to 1 were read" if failing_block else "no block was read"
    assert caught.value.__notes__ == [
        f"(evaluate_blocks: `blocks` raised this while producing block {failing_block}; {done}, and no report is "
        "returned for part of the data.)"]


def test_an_input_error_of_blocks_itself_keeps_its_message():
    def blocks():
        yield REL[:5], SCORE[:5]
        raise InputValueError("`source` must be open. Got a closed file instead.")

    with pytest.raises(InputValueError) as caught:
        skr.evaluate_blocks(blocks())
    assert str(caught.value) == "`source` must be open. Got a closed file instead."
    assert caught.value.__notes__ == [
        "(evaluate_blocks: `blocks` raised this while producing block 1; block 0 was read, and no report is "
        "returned for part of the data.)"]
