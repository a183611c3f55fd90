"""Input validation: every bad input raises ValueError or TypeError naming the parameter.

Messages are matched on the parameter name and a key phrase, in any order, so that
the exact wording stays free.
"""

import re

import numpy as np
import pytest
import scipy.sparse

import sklearn_rank as skr
import sklearn_rank.io  # noqa: F401 (skr.io)
from sklearn_rank.exceptions import InputError, InputTypeError, InputValueError

# Small valid inputs in each layout.
Y_GROUPED = np.array([1, 0, 0, 1, 0])
S_GROUPED = np.array([0.9, 0.1, 0.5, 0.3, 0.2])
QID = np.array([1, 1, 1, 2, 2])

Y_MATRIX = np.array([[1, 0, 0], [0, 2, 0]])
S_MATRIX = np.array([[0.9, 0.1, 0.5], [0.3, 0.2, 0.8]])

Y_INDEX = np.array([0, 2])
S_INDEX = S_MATRIX


def _with(array, index, value):
    array = np.array(array, dtype=float if isinstance(value, float) else array.dtype)
    array[index] = value
    return array


def _mask(shape, *cells):
    mask = np.zeros(shape, dtype=bool)
    for cell in cells:
        mask[cell] = True
    return mask


K = r"\bk\b"
NOT_FINITE = r"nan|finite|infinit|inf\b"
SHAPE = r"shape|length|size|inconsistent|same|match|number|one .{0,40}per"
TARGET = r"target|true|relevant|own"
EMPTY = r"empty|at least|zero|\bno\b|\b0\b"
OUT_OF_RANGE = r"range|bound|column|index|candidates|between"


# (id, call, regexes that must all occur in the message, case-insensitively)
CASES = [
    # NaN scores (infinities are ordinary scores: tests/test_nan_policy.py)
    ("nan-score-grouped",
     lambda: skr.mean_reciprocal_rank(Y_GROUPED, _with(S_GROUPED, 2, np.nan), qid=QID),
     ["y_score", NOT_FINITE]),
    ("nan-score-matrix",
     lambda: skr.ndcg_score(Y_MATRIX, _with(S_MATRIX, (1, 1), np.nan)),
     ["y_score", NOT_FINITE]),
    ("nan-score-label-index",
     lambda: skr.hits_at_k(Y_INDEX, _with(S_INDEX, (0, 2), np.nan), k=1),
     ["y_score", NOT_FINITE]),
    ("nan-score-evaluate",
     lambda: skr.evaluate(Y_MATRIX, _with(S_MATRIX, (0, 0), np.nan), metrics=["mr"]),
     ["y_score", NOT_FINITE]),
    ("nan-relevance",
     lambda: skr.ndcg_score(_with(Y_MATRIX, (0, 1), np.nan), S_MATRIX),
     ["y_true", NOT_FINITE]),
    ("non-numeric-score",
     lambda: skr.mean_reciprocal_rank(Y_GROUPED, np.array(list("abcde")), qid=QID),
     ["y_score", r"numeric|float|number|dtype|convert|string"]),
    # shapes and lengths that disagree
    ("grouped-lengths",
     lambda: skr.mean_reciprocal_rank(Y_GROUPED, S_GROUPED[:4], qid=QID),
     [r"y_true|y_score", SHAPE]),
    ("qid-length",
     lambda: skr.mean_reciprocal_rank(Y_GROUPED, S_GROUPED, qid=QID[:4]),
     ["qid", SHAPE]),
    ("matrix-shapes",
     lambda: skr.ndcg_score(Y_MATRIX, np.hstack([S_MATRIX, S_MATRIX[:, :1]])),
     [r"y_true|y_score", SHAPE]),
    ("label-index-rows",
     lambda: skr.hits_at_k(np.array([0, 1, 2]), S_INDEX, k=1),
     [r"y_true|y_score", SHAPE]),
    ("sample-weight-length",
     lambda: skr.ndcg_score(Y_MATRIX, S_MATRIX, sample_weight=np.ones(3)),
     ["sample_weight", SHAPE]),
    ("exclude-shape",
     lambda: skr.hits_at_k(Y_INDEX, S_INDEX, k=1, exclude=np.zeros((2, 4), dtype=bool)),
     ["exclude", SHAPE]),
    ("exclude-length-grouped",
     lambda: skr.mean_reciprocal_rank(Y_GROUPED, S_GROUPED, qid=QID,
                                      exclude=np.zeros(4, dtype=bool)),
     ["exclude", SHAPE]),
    ("judged-lengths",
     lambda: skr.mean_average_precision(Y_GROUPED, S_GROUPED, qid=QID,
                                        judged=(np.array([1, 1, 2]), np.array([1, 1]))),
     ["judged", SHAPE]),
    ("positive-vs-negatives-rows",
     lambda: skr.positive_vs_negatives(np.zeros(3), np.zeros((4, 5))),
     [r"y_pred_pos|y_pred_neg", SHAPE]),
    # relevance
    ("negative-relevance-grouped",
     lambda: skr.mean_average_precision(_with(Y_GROUPED, 1, -1), S_GROUPED, qid=QID),
     ["y_true", r"negative|>= ?0|non-?neg"]),
    ("negative-relevance-matrix",
     lambda: skr.ndcg_score(_with(Y_MATRIX, (1, 0), -2), S_MATRIX),
     ["y_true", r"negative|>= ?0|non-?neg"]),
    ("relevance-level-zero",
     lambda: skr.mean_reciprocal_rank(Y_MATRIX, S_MATRIX, relevance_level=0),
     ["relevance_level", r"positive|> ?0|greater"]),
    ("relevance-level-negative",
     lambda: skr.mean_reciprocal_rank(Y_MATRIX, S_MATRIX, relevance_level=-1.5),
     ["relevance_level", r"positive|> ?0|greater"]),
    # cut-offs
    ("k-zero",
     lambda: skr.hits_at_k(Y_INDEX, S_INDEX, k=0),
     [K, r"positive|>= ?1|at least|greater"]),
    ("k-negative",
     lambda: skr.ndcg_score(Y_MATRIX, S_MATRIX, k=-2),
     [K, r"positive|>= ?1|at least|greater"]),
    ("k-float",
     lambda: skr.precision_at_k(Y_MATRIX, S_MATRIX, k=2.5),
     [K, r"integer|\bint\b"]),
    ("k-bool",
     lambda: skr.hits_at_k(Y_INDEX, S_INDEX, k=True),
     [K, r"integer|\bint\b"]),
    ("k-string",
     lambda: skr.recall_at_k(Y_MATRIX, S_MATRIX, k="3"),
     [K, r"integer|\bint\b"]),
    ("metric-at-zero",
     lambda: skr.evaluate(Y_MATRIX, S_MATRIX, metrics=["ndcg@0"]),
     [r"metric|\bk\b", r"ndcg@0"]),
    # metric names
    ("unknown-metric-get-metric",
     lambda: skr.get_metric("ndgc@10"),
     ["metric", "ndgc@10", r"ndcg@10"]),
    ("unknown-metric-evaluate",
     lambda: skr.evaluate(Y_MATRIX, S_MATRIX, metrics=["mrr", "mrrr"]),
     ["metric", "mrrr", r"\bmrr\b"]),
    ("unknown-metric-close-to-hits",
     lambda: skr.evaluate(Y_MATRIX, S_MATRIX, metrics=["hit@10"]),
     ["metric", "hit@10", r"hits@10|\bh@10"]),
    ("no-metrics",
     lambda: skr.evaluate(Y_MATRIX, S_MATRIX, metrics=[]),
     ["metrics", EMPTY]),
    # options
    ("unknown-ties",
     lambda: skr.mean_reciprocal_rank(Y_MATRIX, S_MATRIX, ties="random"),
     ["ties", "random", "expected", "pessimistic"]),
    ("unknown-no-relevant",
     lambda: skr.mean_reciprocal_rank(Y_MATRIX, S_MATRIX, no_relevant="bogus"),
     ["no_relevant", "bogus", "skip"]),
    ("unknown-gain",
     lambda: skr.ndcg_score(Y_MATRIX, S_MATRIX, gain="log"),
     ["gain", r"\blog\b", "exponential"]),
    ("unknown-targets",
     lambda: skr.mean_rank(Y_MATRIX, S_MATRIX, targets="some"),
     ["targets", "some", "first"]),
    # label index layout
    ("label-index-too-large",
     lambda: skr.hits_at_k(np.array([0, 3]), S_INDEX, k=1),
     ["y_true", OUT_OF_RANGE]),
    ("label-index-negative",
     lambda: skr.mean_reciprocal_rank(np.array([-1, 0]), S_INDEX),
     ["y_true", OUT_OF_RANGE + r"|negative"]),
    ("label-not-in-labels",
     lambda: skr.hits_at_k(np.array(["a", "z"]), S_INDEX, k=1, labels=["a", "b", "c"]),
     [r"labels", r"\bz\b|not|unknown|missing"]),
    ("labels-length",
     lambda: skr.hits_at_k(np.array(["a", "b"]), S_INDEX, k=1, labels=["a", "b"]),
     ["labels", SHAPE + "|column"]),
    ("labels-duplicated",
     lambda: skr.hits_at_k(np.array(["a", "b"]), S_INDEX, k=1, labels=["a", "b", "a"]),
     ["labels", r"unique|duplicate|distinct|twice"]),
    # query ids
    ("qid-with-matrix",
     lambda: skr.ndcg_score(Y_MATRIX, S_MATRIX, qid=np.array([0, 1])),
     ["qid", r"grouped|1-d|one-dimensional|layout|shape|matrix"]),
    ("nan-qid",
     lambda: skr.mean_reciprocal_rank(Y_GROUPED, S_GROUPED,
                                      qid=np.array([1.0, 1.0, np.nan, 2.0, 2.0])),
     ["qid", r"nan|missing|finite"]),
    # the filtered protocol may not remove a query's own target
    ("exclude-own-target-label-index",
     lambda: skr.mean_reciprocal_rank(Y_INDEX, S_INDEX, exclude=_mask((2, 3), (1, 2))),
     ["exclude", TARGET]),
    ("exclude-own-target-sparse",
     lambda: skr.mean_reciprocal_rank(
         Y_INDEX, S_INDEX, exclude=scipy.sparse.csr_matrix(_mask((2, 3), (0, 0)))),
     ["exclude", TARGET]),
    ("exclude-relevant-matrix",
     lambda: skr.mean_reciprocal_rank(Y_MATRIX, S_MATRIX, exclude=_mask((2, 3), (1, 1))),
     ["exclude", TARGET]),
    ("exclude-relevant-grouped",
     lambda: skr.mean_reciprocal_rank(Y_GROUPED, S_GROUPED, qid=QID,
                                      exclude=np.array([False, False, False, True, False])),
     ["exclude", TARGET]),
    # empty input
    ("empty-grouped",
     lambda: skr.mean_reciprocal_rank(np.array([]), np.array([]), qid=np.array([])),
     [r"y_true|y_score|input", EMPTY]),
    ("empty-single-query",
     lambda: skr.ndcg_score(np.array([]), np.array([])),
     [r"y_true|y_score|input", EMPTY]),
    ("empty-matrix",
     lambda: skr.evaluate(np.zeros((0, 3)), np.zeros((0, 3)), metrics=["mrr"]),
     [r"y_true|y_score|input", EMPTY]),
    # no relevant item
    ("no-relevant-error",
     lambda: skr.mean_reciprocal_rank(np.array([1, 0, 0, 0, 0]), S_GROUPED, qid=QID,
                                      no_relevant="error"),
     ["no_relevant", r"quer"]),
    ("no-relevant-error-matrix",
     lambda: skr.ndcg_score(np.array([[0, 0, 0], [0, 1, 0]]), S_MATRIX,
                            no_relevant="error"),
     ["no_relevant", r"quer"]),
    # sample weights
    ("sample-weight-varies-within-query",
     lambda: skr.mean_reciprocal_rank(Y_GROUPED, S_GROUPED, qid=QID,
                                      sample_weight=np.array([1.0, 1.0, 2.0, 1.0, 1.0])),
     ["sample_weight", r"constant|same|within|vary|differ"]),
    ("sample-weight-nan",
     lambda: skr.ndcg_score(Y_MATRIX, S_MATRIX, sample_weight=np.array([1.0, np.nan])),
     ["sample_weight", NOT_FINITE]),
    # precomputed ranks
    ("ranks-below-one",
     lambda: skr.evaluate_ranks(np.array([0, 2]), metrics=["mrr"]),
     ["ranks", r">= ?1|at least|positive|1-based"]),
    ("ranks-above-num-candidates",
     lambda: skr.evaluate_ranks(np.array([2, 5]), num_candidates=np.array([3, 3]),
                                metrics=["amri"]),
     [r"ranks|num_candidates", r"exceed|at most|<=|larger|greater|more|bound"]),
    ("list-metric-from-ranks",
     lambda: skr.evaluate_ranks(np.array([1, 2]), metrics=["ndcg"]),
     ["ndcg", r"rank"]),
]


def _message_pattern(fragments):
    return "(?is)" + "".join(f"(?=.*(?:{fragment}))" for fragment in fragments)


@pytest.mark.parametrize(
    "call, fragments", [pytest.param(c, f, id=i) for i, c, f in CASES]
)
def test_bad_input_raises_naming_the_parameter(call, fragments):
    with pytest.raises((ValueError, TypeError), match=_message_pattern(fragments)) as info:
        call()
    # the package's input-error class, which the command line tells from a bug by
    assert isinstance(info.value, InputError), type(info.value).__mro__


def test_input_errors_are_value_and_type_errors():
    # code that caught ValueError or TypeError before the InputError classes catches them as before
    assert issubclass(InputValueError, ValueError) and issubclass(InputValueError, InputError)
    assert issubclass(InputTypeError, TypeError) and issubclass(InputTypeError, InputError)
    assert not issubclass(InputValueError, TypeError) and not issubclass(InputTypeError, ValueError)
    assert issubclass(skr.io.TrecFormatError, InputValueError)
    assert issubclass(skr.exceptions.TableFormatError, InputValueError)
    with pytest.raises(InputTypeError, match="`metrics`"):
        skr.evaluate(Y_GROUPED, S_GROUPED, qid=QID, metrics=3)


# Errors about a value the caller passed show it: "... Got <value> instead."
GOT_INSTEAD_CASES = [
    "k-zero", "k-negative", "k-float", "relevance-level-zero", "relevance-level-negative",
    "unknown-ties", "unknown-no-relevant", "unknown-gain", "unknown-targets",
]


@pytest.mark.parametrize("case_id", GOT_INSTEAD_CASES)
def test_error_message_states_what_came_in(case_id):
    call = {i: c for i, c, _ in CASES}[case_id]
    with pytest.raises((ValueError, TypeError), match=r"(?s)Got .+ instead"):
        call()


def test_cases_have_unique_ids():
    ids = [i for i, _, _ in CASES]
    assert len(ids) == len(set(ids))
    for _, _, fragments in CASES:
        for fragment in fragments:
            re.compile(fragment)


# --------------------------------------------------------------------------------------
# a non-finite score on an excluded candidate is fine: it never takes part
# --------------------------------------------------------------------------------------

METRICS = ["mrr", "map", "ndcg@2", "hits@1", "mr", "auc"]


def _summary(y_true, y_score, **params):
    return skr.evaluate(y_true, y_score, metrics=METRICS, **params).summary


def _assert_same_summary(left, right):
    assert left.keys() == right.keys()
    for name in left:
        np.testing.assert_allclose(left[name], right[name], rtol=0, atol=1e-12,
                                   err_msg=name)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("ties", ["expected", "realistic", "pessimistic"])
def test_non_finite_score_excluded_label_index(bad, ties):
    y_true = np.array([0, 2, 1])
    y_score = np.array([[0.9, 0.1, 0.5, 0.5], [0.3, 0.2, 0.8, 0.3], [0.4, 0.4, 0.1, 0.7]])
    exclude = _mask(y_score.shape, (0, 3), (1, 0), (2, 3))
    with_bad = y_score.copy()
    with_bad[exclude] = bad
    got = _summary(y_true, with_bad, exclude=exclude, ties=ties)
    _assert_same_summary(got, _summary(y_true, y_score, exclude=exclude, ties=ties))
    sparse = _summary(y_true, with_bad, exclude=scipy.sparse.csr_matrix(exclude), ties=ties)
    _assert_same_summary(sparse, got)
    # excluded candidates are as if never listed
    rows, columns = np.nonzero(~exclude)
    kept_true = (columns == y_true[rows]).astype(int)
    _assert_same_summary(got, _summary(kept_true, y_score[rows, columns], qid=rows,
                                       ties=ties))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_score_excluded_matrix(bad):
    exclude = _mask(Y_MATRIX.shape, (0, 1))
    with_bad = _with(S_MATRIX, (0, 1), bad)
    _assert_same_summary(_summary(Y_MATRIX, with_bad, exclude=exclude),
                         _summary(Y_MATRIX, S_MATRIX, exclude=exclude))


@pytest.mark.parametrize("bad", [np.nan, -np.inf])
def test_non_finite_score_excluded_grouped(bad):
    exclude = np.array([False, False, True, False, False])
    with_bad = _with(S_GROUPED, 2, bad)
    got = _summary(Y_GROUPED, with_bad, qid=QID, exclude=exclude)
    _assert_same_summary(got, _summary(Y_GROUPED, S_GROUPED, qid=QID, exclude=exclude))
    kept = ~exclude
    _assert_same_summary(got, _summary(Y_GROUPED[kept], S_GROUPED[kept], qid=QID[kept]))
