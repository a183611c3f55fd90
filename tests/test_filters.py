"""exclude_from_pairs and exclude_known_triples: sparse filter masks from index pairs and triples.

Each helper is checked against a brute-force oracle (Python loops over the pairs or triples filling
a dense mask) on random inputs, the engine's numbers with the sparse mask against the same call with
the dense one, the knowledge-graph filter against PyKEEN's filtered ranks written out from its
definition, and the refusals of bad input.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_rank import compute_ranks, evaluate, exclude_from_pairs, exclude_known_triples
from sklearn_rank.exceptions import InputTypeError, InputValueError

SIDES = ("tail", "head", "both")


# --------------------------------------------------------------------------------------------
# Oracles
# --------------------------------------------------------------------------------------------
def pairs_oracle(rows, columns, shape):
    mask = np.zeros(shape, dtype=bool)
    for row, column in zip(rows, columns):
        mask[row, column] = True
    return mask


def triples_oracle(triples, known, n_entities, side):
    """One dense row per evaluated triple and side: the other true answers of its query."""
    true = {tuple(int(x) for x in triple) for triple in list(known) + list(triples)}
    tail_rows, head_rows = [], []
    for head, relation, tail in triples:
        tail_row = np.zeros(n_entities, dtype=bool)
        head_row = np.zeros(n_entities, dtype=bool)
        for entity in range(n_entities):
            tail_row[entity] = entity != tail and (head, relation, entity) in true
            head_row[entity] = entity != head and (entity, relation, tail) in true
        tail_rows.append(tail_row)
        head_rows.append(head_row)
    rows = {"tail": tail_rows, "head": head_rows, "both": tail_rows + head_rows}[side]
    return np.array(rows, dtype=bool).reshape(len(rows), n_entities)


def true_columns(triples, side):
    triples = np.asarray(triples)
    return {"tail": triples[:, 2], "head": triples[:, 0],
            "both": np.concatenate([triples[:, 2], triples[:, 0]])}[side]


def random_graph(rng, n_entities, n_relations, n_known, n_triples, inside):
    """Known triples with duplicates; evaluated triples drawn from them (inside) or anywhere."""
    known = np.column_stack([rng.integers(0, n_entities, n_known), rng.integers(0, n_relations, n_known),
                             rng.integers(0, n_entities, n_known)])
    known = np.concatenate([known, known[rng.integers(0, n_known, n_known // 4)]])  # duplicates
    if inside:
        triples = known[rng.integers(0, len(known), n_triples)]
    else:
        triples = np.column_stack([rng.integers(0, n_entities, n_triples),
                                   rng.integers(0, n_relations, n_triples),
                                   rng.integers(0, n_entities, n_triples)])
    return triples, known


def graph_and_scores(seed, side, *, n_entities, n_known, n_triples):
    """A random graph (evaluated triples inside ``known`` for odd seeds), the true columns of ``side``
    and tied random scores."""
    rng = np.random.default_rng(seed)
    triples, known = random_graph(rng, n_entities, 3, n_known, n_triples, inside=bool(seed % 2))
    y_true = true_columns(triples, side)
    scores = np.round(rng.normal(size=(len(y_true), n_entities)), 1)  # rounding makes ties
    return triples, known, y_true, scores


def check_canonical(mask, shape):
    assert isinstance(mask, sp.csr_array)
    assert mask.dtype == bool and mask.shape == shape
    assert mask.has_canonical_format
    assert mask.data.all()


def check_sparse_evaluates_as_dense(y_true, scores, mask, metrics, ties):
    """evaluate and compute_ranks give the same numbers with the sparse mask and with mask.toarray()."""
    for tie_policy in ties:
        sparse_report = evaluate(y_true, scores, exclude=mask, metrics=metrics, ties=tie_policy)
        dense_report = evaluate(y_true, scores, exclude=mask.toarray(), metrics=metrics, ties=tie_policy)
        assert sparse_report.summary == dense_report.summary
    sparse_ranks = compute_ranks(y_true, scores, exclude=mask)
    dense_ranks = compute_ranks(y_true, scores, exclude=mask.toarray())
    for field in ("optimistic", "pessimistic", "realistic", "num_candidates"):
        np.testing.assert_array_equal(getattr(sparse_ranks, field), getattr(dense_ranks, field))


# --------------------------------------------------------------------------------------------
# exclude_from_pairs
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (40, 25), (200, 500)])
def test_pairs_equal_the_oracle(seed, shape):
    rng = np.random.default_rng(seed)
    n_pairs = int(rng.integers(0, 3 * shape[0] * shape[1] // 4 + 2))
    rows = rng.integers(0, shape[0], n_pairs)
    columns = rng.integers(0, shape[1], n_pairs)
    mask = exclude_from_pairs(rows, columns, shape=shape)
    check_canonical(mask, shape)
    np.testing.assert_array_equal(mask.toarray(), pairs_oracle(rows, columns, shape))


@pytest.mark.parametrize("rows, columns", [
    ([0, 1, 1, 0], [2, 0, 0, 2]),                                     # lists, duplicates
    (np.array([0, 1], dtype=np.uint8), np.array([2, 0], dtype=np.uint64)),
    (np.array([0.0, 1.0]), np.array([2.0, 0.0])),                      # integral floats
    ((0, 1), range(2, -1, -2)),
])
def test_pairs_accept_integer_array_likes(rows, columns):
    mask = exclude_from_pairs(rows, columns, shape=(2, 3))
    check_canonical(mask, (2, 3))
    np.testing.assert_array_equal(mask.toarray(), [[False, False, True], [True, False, False]])


@pytest.mark.parametrize("shape", [(0, 0), (0, 4), (3, 0), (3, 4), [3, 4], np.array([3, 4])])
def test_pairs_without_pairs(shape):
    mask = exclude_from_pairs([], [], shape=shape)
    check_canonical(mask, tuple(int(size) for size in shape))
    assert mask.nnz == 0


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", ["realistic", "optimistic", "pessimistic", "expected"])
def test_pairs_mask_evaluates_as_the_dense_mask(seed, ties):
    rng = np.random.default_rng(seed)
    n_users, n_items = 30, 50
    scores = np.round(rng.random((n_users, n_items)), 1)  # ties
    held_out = rng.integers(0, n_items, n_users)
    n_pairs = 300
    rows = rng.integers(0, n_users, n_pairs)
    columns = rng.integers(0, n_items, n_pairs)
    keep = columns != held_out[rows]  # a held-out item is never a training item
    mask = exclude_from_pairs(rows[keep], columns[keep], shape=(n_users, n_items))
    check_sparse_evaluates_as_dense(held_out, scores, mask, ["mrr", "map", "ndcg@10", "hits@5", "mr", "amri", "auc"],
                                    [ties])


# --------------------------------------------------------------------------------------------
# exclude_known_triples
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("size", [(1, 1, 1, 1), (4, 2, 10, 5), (12, 3, 80, 30), (60, 5, 900, 200)])
@pytest.mark.parametrize("inside", [True, False])
@pytest.mark.parametrize("side", SIDES)
def test_triples_equal_the_oracle(seed, size, inside, side):
    n_entities, n_relations, n_known, n_triples = size
    triples, known = random_graph(np.random.default_rng(seed), n_entities, n_relations, n_known, n_triples,
                                  inside)
    mask = exclude_known_triples(triples, known, n_entities=n_entities, side=side)
    n_rows = 2 * n_triples if side == "both" else n_triples
    check_canonical(mask, (n_rows, n_entities))
    np.testing.assert_array_equal(mask.toarray(), triples_oracle(triples, known, n_entities, side))


@pytest.mark.parametrize("side", SIDES)
def test_triples_evaluated_ones_filter_each_other(side):
    # No known triple: the evaluated triples of one query filter each other, and a repeated triple
    # filters nothing (its own entity stays).
    triples = np.array([[0, 0, 1], [0, 0, 2], [0, 0, 2], [3, 1, 2]])
    mask = exclude_known_triples(triples, np.empty((0, 3), dtype=int), n_entities=4, side=side)
    np.testing.assert_array_equal(mask.toarray(), triples_oracle(triples, [], 4, side))
    tail_rows = [[False, False, True, False], [False, True, False, False], [False, True, False, False],
                 [False, False, False, False]]
    if side == "tail":
        np.testing.assert_array_equal(mask.toarray(), tail_rows)


@pytest.mark.parametrize("known", [[], np.empty((0, 3)), np.empty((0, 3), dtype=np.int32)])
def test_triples_with_no_known_triple(known):
    mask = exclude_known_triples([[0, 0, 1], [1, 0, 1]], known, n_entities=2, side="head")
    np.testing.assert_array_equal(mask.toarray(), [[False, True], [True, False]])


@pytest.mark.parametrize("side", SIDES)
def test_triples_without_evaluated_triples(side):
    mask = exclude_known_triples([], [[0, 0, 1]], n_entities=3, side=side)
    check_canonical(mask, (0, 3))


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("relation_ids", [np.array([5, 2**62, 2**63 - 1], dtype=np.uint64),
                                          np.array([2**62, 0, 3]), np.array([0, 7, 2**40])])
def test_triples_with_huge_relation_ids(side, relation_ids):
    # Relation ids 0, 1, 2 renamed: the filter is the same. relation * n_entities overflows int64 for
    # the first two, whose relations are renumbered inside.
    triples, known = random_graph(np.random.default_rng(0), 15, 3, 60, 20, inside=True)
    renamed = [np.column_stack([t[:, 0].astype(relation_ids.dtype), relation_ids[t[:, 1]],
                                t[:, 2].astype(relation_ids.dtype)]) for t in (triples, known)]
    mask = exclude_known_triples(*renamed, n_entities=15, side=side)
    np.testing.assert_array_equal(mask.toarray(), triples_oracle(triples, known, 15, side))


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("n_entities", [2**31, 2**33, 2**40])
def test_triples_with_many_entities(side, n_entities):
    # (relation * n_entities + entity) * n_entities overflows int64: the queries are renumbered inside;
    # the filter holds the same entries as over the entities the triples name.
    triples, known = random_graph(np.random.default_rng(1), 15, 3, 60, 20, inside=False)
    triples[:, [0, 2]] *= n_entities // 16  # ids spread over the whole range
    known[:, [0, 2]] *= n_entities // 16
    mask = exclude_known_triples(triples, known, n_entities=n_entities, side=side)
    small = exclude_known_triples(triples // [n_entities // 16, 1, n_entities // 16],
                                  known // [n_entities // 16, 1, n_entities // 16], n_entities=15, side=side)
    assert mask.shape == (small.shape[0], n_entities)
    np.testing.assert_array_equal(mask.indptr, small.indptr)
    np.testing.assert_array_equal(mask.indices, small.indices * (n_entities // 16))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.uint64, np.float32, np.float64])
def test_triples_accept_integer_dtypes(dtype):
    triples = np.array([[0, 1, 2], [2, 1, 0]], dtype=dtype)
    known = np.array([[0, 1, 1], [2, 1, 0]], dtype=dtype)
    mask = exclude_known_triples(triples, known, n_entities=3, side="both")
    np.testing.assert_array_equal(mask.toarray(), triples_oracle(triples.astype(int), known.astype(int), 3,
                                                                 "both"))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("side", SIDES)
def test_triples_mask_evaluates_as_the_dense_mask(seed, side):
    triples, known, y_true, scores = graph_and_scores(seed, side, n_entities=40, n_known=400, n_triples=60)
    mask = exclude_known_triples(triples, known, n_entities=40, side=side)
    check_sparse_evaluates_as_dense(y_true, scores, mask, ["mrr", "hits@1", "hits@10", "mr", "amr", "amri", "zmrr",
                                                           "ndcg@10"], ["realistic", "expected"])


# --------------------------------------------------------------------------------------------
# PyKEEN's filtered evaluation, written out from its definition
# --------------------------------------------------------------------------------------------
def pykeen_filtered_ranks(triples, known, scores_of, n_entities, side):
    """PyKEEN's RankBasedEvaluator with filtered=True: the scores of every true triple of the query
    but the evaluated one become NaN (its own score is written back); optimistic = 1 + #{score >
    true}, pessimistic = #{score >= true} (the true entity included), realistic = their mean,
    number of options = #finite scores. "both": the tail ranks, then the head ranks."""
    true = {tuple(int(x) for x in triple) for triple in list(known) + list(triples)}
    realistic, options = [], []
    sides = ("tail", "head") if side == "both" else (side,)
    row = 0
    for current in sides:
        for head, relation, tail in triples:
            scores = scores_of[row].astype(float)
            answer = tail if current == "tail" else head
            true_score = scores[answer]
            for entity in range(n_entities):
                triple = (head, relation, entity) if current == "tail" else (entity, relation, tail)
                if triple in true:
                    scores[entity] = np.nan
            scores[answer] = true_score
            optimistic = 1 + np.sum(scores > true_score)
            pessimistic = np.sum(scores >= true_score)
            realistic.append((optimistic + pessimistic) / 2)
            options.append(np.sum(np.isfinite(scores)))
            row += 1
    return np.array(realistic), np.array(options)


def pykeen_metrics(ranks, options):
    expected_mr = float(np.mean((options + 1) / 2))
    mr = float(np.mean(ranks))
    values = {"mrr": float(np.mean(1 / ranks)), "mr": mr, "amr": mr / expected_mr,
              "amri": 1 - (mr - 1) / (expected_mr - 1)}
    for k in (1, 3, 10):
        values[f"hits@{k}"] = float(np.mean(ranks <= k))
    return values


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("side", SIDES)
def test_triples_give_pykeen_filtered_ranks(seed, side):
    n_entities = 30
    test, train, y_true, scores = graph_and_scores(seed, side, n_entities=n_entities, n_known=250, n_triples=25)
    known = np.concatenate([train, test])  # train + validation + test, as PyKEEN filters
    scores[np.arange(len(y_true)), y_true] += 0.5  # a model that knows something
    ranks, options = pykeen_filtered_ranks(test, known, scores, n_entities, side)

    for filter_triples in (known, train):  # the evaluated triples are filtered whether in `known` or not
        mask = exclude_known_triples(test, filter_triples, n_entities=n_entities, side=side)
        assert mask.nnz > 0
        computed = compute_ranks(y_true, scores, exclude=mask)
        np.testing.assert_array_equal(computed.realistic, ranks)
        np.testing.assert_array_equal(computed.num_candidates, options)
        report = evaluate(y_true, scores, exclude=mask, ties="realistic",
                          metrics=["mrr", "mr", "amr", "amri", "hits@1", "hits@3", "hits@10"])
        expected = pykeen_metrics(ranks, options)
        for name, value in report.summary.items():
            assert value == pytest.approx(expected[name], rel=1e-12, abs=1e-15), name


# --------------------------------------------------------------------------------------------
# Refusals
# --------------------------------------------------------------------------------------------
PAIR_ERRORS = [
    (dict(rows=[0, 1], columns=[0]), InputValueError, r"`rows` and `columns` must have the same length.*Got 2 rows "
                                                      r"and 1 columns instead"),
    (dict(rows=[[0, 1]], columns=[0, 1]), InputValueError, r"`rows` must be 1-D\. Got shape \(1, 2\) instead"),
    (dict(rows=[0, 1], columns=5), InputValueError, r"`columns` must be 1-D\. Got shape \(\) instead"),
    (dict(rows=[True, False], columns=[0, 1]), InputTypeError, r"`rows` must hold integer row indices\. "
                                                               r"Got dtype bool instead"),
    (dict(rows=[0, 1], columns=[0.5, 1]), InputValueError, r"`columns` must hold integer column indices\. "
                                                           r"Got \[0\.5\] instead"),
    (dict(rows=[0, np.nan], columns=[0, 1]), InputValueError, r"`rows` must hold integer row indices\. "
                                                              r"Got \[nan\] instead"),
    (dict(rows=["a", "b"], columns=[0, 1]), InputTypeError, r"`rows` must hold integer row indices\. "
                                                            r"Got dtype <U1 instead"),
    (dict(rows=[0, 2], columns=[0, 1]), InputValueError, r"`rows` must hold row indices in \[0, 2\)\. "
                                                         r"Got \[2\] instead"),
    (dict(rows=[0, 1], columns=[-1, 3]), InputValueError, r"`columns` must hold column indices in \[0, 3\)\. "
                                                          r"Got \[-1, 3\] instead"),
    (dict(rows=np.array([2**64 - 1], dtype=np.uint64), columns=[0]), InputValueError,
     r"`rows` must hold row indices in \[0, 2\)\. Got \[18446744073709551615\] instead"),
    (dict(rows=[[0], [1, 2]], columns=[0, 1]), InputValueError, r"`rows` must be a rectangular array"),
    (dict(rows=sp.csr_array(np.eye(2, 3)), columns=[0]), InputTypeError,
     r"`rows` must be an array-like of integer row indices\. A sparse matrix is already a mask: pass it as "
     r"`exclude=` directly\. Got a scipy sparse csr_array of shape \(2, 3\) instead"),
]
SHAPE_RULE = r"`shape` must be a pair of non-negative integers \(n_rows, n_columns\)\. "
SHAPE_ERRORS = [
    ((2,), InputValueError, SHAPE_RULE + r"Got \(2,\) instead"),
    ((2, 3, 1), InputValueError, SHAPE_RULE + r"Got \(2, 3, 1\) instead"),
    ((2, -3), InputValueError, SHAPE_RULE + r"Got \(2, -3\) instead"),
    ((2, 3.0), InputTypeError, SHAPE_RULE + r"Got \(2, 3\.0\) instead"),
    ((True, 3), InputTypeError, SHAPE_RULE + r"Got \(True, 3\) instead"),
    (6, InputTypeError, SHAPE_RULE + r"Got 6 of type int instead"),
    ("23", InputTypeError, SHAPE_RULE + r"Got '23' of type str instead"),
    (None, InputTypeError, SHAPE_RULE + r"Got None of type NoneType instead"),
]


@pytest.mark.parametrize("arguments, error, message", PAIR_ERRORS)
def test_pairs_refusals(arguments, error, message):
    with pytest.raises(error, match=message):
        exclude_from_pairs(**arguments, shape=(2, 3))


@pytest.mark.parametrize("shape, error, message", SHAPE_ERRORS)
def test_pairs_shape_refusals(shape, error, message):
    with pytest.raises(error, match=message):
        exclude_from_pairs([0], [0], shape=shape)


GOOD = [[0, 0, 1]]
TRIPLE_ERRORS = [
    (dict(triples=[0, 0, 1]), InputValueError, r"`triples` must be 2-D, one triple per row\. Got shape \(3,\) "
                                               r"instead"),
    (dict(known=[[0, 1], [1, 0]]), InputValueError, r"`known` must have 3 columns \(head, relation, tail\)\. "
                                                    r"Got shape \(2, 2\) instead"),
    (dict(triples=np.zeros((2, 3), dtype=bool)), InputTypeError, r"`triples` must hold integer ids\. "
                                                                 r"Got dtype bool instead"),
    (dict(known=[[0, 0.5, 1]]), InputValueError, r"`known` must hold integer ids\. Got \[0\.5\] instead"),
    (dict(known=[["a", "b", "c"]]), InputTypeError, r"`known` must hold integer ids\. Got dtype <U1 instead"),
    (dict(triples=[[0, 0, 3]]), InputValueError, r"`triples` must hold entity ids in columns 0 and 2 "
                                                 r"\(head, tail\) in \[0, 3\)\. Got \[3\] instead"),
    (dict(known=[[-1, 0, 1]]), InputValueError, r"`known` must hold entity ids .* in \[0, 3\)\. Got \[-1\] instead"),
    (dict(triples=[[0, -2, 1]]), InputValueError, r"`triples` must hold relation ids in column 1 >= 0 \(and below "
                                                  r"2\*\*63\)\. Got \[-2\] instead"),
    (dict(known=np.array([[0, 2**63, 1]], dtype=np.uint64)), InputValueError,
     r"`known` must hold relation ids in column 1 >= 0 \(and below 2\*\*63\)\. Got \[9223372036854775808\] instead"),
    (dict(known=sp.csr_array(np.eye(3))), InputTypeError, r"`known` must be an array-like of integer ids\. Got a "
                                                          r"scipy sparse csr_array of shape \(3, 3\) instead"),
    (dict(side="tails"), InputValueError, r"`side` must be one of \{'tail', 'head', 'both'\}\. Did you mean 'tail'\? "
                                          r"Got 'tails' instead"),
    (dict(side=None), InputValueError, r"`side` must be one of \{'tail', 'head', 'both'\}\. Got None instead"),
    (dict(n_entities=0), InputValueError, r"`n_entities` must be a positive integer\. Got 0 instead"),
    (dict(n_entities=3.0), InputTypeError, r"`n_entities` must be a positive integer\. Got 3\.0 of type float "
                                           r"instead"),
    (dict(n_entities=True), InputTypeError, r"`n_entities` must be a positive integer\. Got True of type bool "
                                            r"instead"),
]


@pytest.mark.parametrize("arguments, error, message", TRIPLE_ERRORS)
def test_triples_refusals(arguments, error, message):
    arguments = {"triples": GOOD, "known": GOOD, "n_entities": 3, **arguments}
    with pytest.raises(error, match=message):
        exclude_known_triples(arguments.pop("triples"), arguments.pop("known"), **arguments)
