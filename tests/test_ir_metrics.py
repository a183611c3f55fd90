"""bpref, rbp, err@k and judged@k: per-query loops written from the papers, brute force over tie orders,
trec_eval (pytrec_eval and its regression files), ranx, and the command line."""

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

import sklearn_rank as skr
from sklearn_rank import _inputs as inputs
from sklearn_rank import evaluate, get_metric
from sklearn_rank.io import Qrels, Run, evaluate_trec

from oracles import block_arrangements, ordering, realistic_gain_positions, realistic_positions, tie_blocks

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "trec_eval"
POLICIES = ("expected", "realistic", "optimistic", "pessimistic", "ordinal")


# ------------------------------------------------------------------------------------------------
# per-query loops from the definitions (one ranked list at a time)
# ------------------------------------------------------------------------------------------------
def bpref_loop(ranked, n_rel, n_nonrel, level=1):
    """trec_eval's bpref (Buckley & Voorhees 2004) for ``ranked`` = [(grade, unjudged), ...] in rank order."""
    if n_rel == 0:
        return 0.0
    nonrel_so_far, total = 0, 0.0
    for grade, unjudged in ranked:
        if unjudged:
            continue
        if grade < level:
            nonrel_so_far += 1
        elif nonrel_so_far > 0:
            total += 1.0 - min(nonrel_so_far, n_rel) / min(n_nonrel, n_rel)
        else:
            total += 1.0
    return total / n_rel


def rbp_loop(relevant, p):
    """Moffat & Zobel 2008: (1 - p) sum_i r_i p^(i - 1), r_i in {0, 1}."""
    return (1 - p) * math.fsum(p ** i for i, r in enumerate(relevant) if r)


def rbp_from_positions(positions, p):
    return (1 - p) * math.fsum(p ** (x - 1) for x in positions)


def err_loop(grades, k, top):
    """Chapelle et al. 2009: sum_{r<=k} R_r / r prod_{i<r} (1 - R_i), R = (2^g - 1) / 2^top."""
    total, reach = 0.0, 1.0
    for r, g in enumerate(grades[:k] if k else grades, start=1):
        stop = (2.0 ** g - 1) / 2.0 ** top
        total += reach * stop / r
        reach *= 1 - stop
    return total


def err_from_positions(positioned, k, top):
    """ERR of (position, grade) pairs at (possibly fractional) positions."""
    total, reach = 0.0, 1.0
    for position, g in sorted(positioned):
        if k is not None and position > k:
            break
        stop = (2.0 ** g - 1) / 2.0 ** top
        total += reach * stop / position
        reach *= 1 - stop
    return total


def judged_loop(judged_flags, k):
    return sum(bool(f) for f in judged_flags[:k]) / k


# ------------------------------------------------------------------------------------------------
# the names
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("written, name, param, k", [
    ("bpref", "bpref", None, None), ("BPREF", "bpref", None, None),
    ("rbp", "rbp", 0.8, None), ("rbp(p=0.8)", "rbp", 0.8, None), ("RBP(p=0.95)", "rbp(p=0.95)", 0.95, None),
    ("rbp.95", "rbp(p=0.95)", 0.95, None), ("rbp.5", "rbp(p=0.5)", 0.5, None), ("rbp(0.9)", "rbp(p=0.9)", 0.9, None),
    ("rank_biased_precision(p=0.9)", "rbp(p=0.9)", 0.9, None),
    ("err", "err", None, None), ("err@20", "err@20", None, 20), ("ERR@5", "err@5", None, 5),
    ("err(max_grade=4)@20", "err(max_grade=4)@20", 4.0, 20), ("err(maxgrade=4)", "err(max_grade=4)", 4.0, None),
    ("expected_reciprocal_rank@10", "err@10", None, 10),
    ("judged@10", "judged@10", None, 10), ("Judged@5", "judged@5", None, 5),
    ("success@5", "hits@5", None, 5),
])
def test_names(written, name, param, k):
    spec = get_metric(written)
    assert (spec.name, spec.param, spec.k) == (name, param, k)
    assert get_metric(spec.name) == spec  # the canonical name reads back


@pytest.mark.parametrize("written, match", [
    ("rbp(p=1)", "strictly between 0 and 1. Got '1' instead"),
    ("rbp(p=0)", "strictly between 0 and 1"),
    ("rbp(p=-0.5)", "strictly between 0 and 1"),
    ("rbp(p=nan)", "strictly between 0 and 1"),
    ("rbp(p=x)", "strictly between 0 and 1. Got 'x' instead"),
    ("rbp(q=0.5)", "takes the parameter 'p'"),
    ("rbp@0", "must be a positive integer"),
    ("bpref(p=0.5)", "takes no parameter"),
    ("bpref@10", "takes no cut-off"),
    ("err(max_grade=0)@10", "maximum relevance grade"),
    ("err(max_grade=inf)", "maximum relevance grade"),
    ("judged", "needs a cut-off"),
    ("judged@0", "positive integer"),
])
def test_bad_names(written, match):
    with pytest.raises(ValueError, match=match):
        get_metric(written)


def test_listed():
    names = skr.metric_names()
    assert {"bpref", "rbp", "err", "err@k", "judged@k", "hits@k"} <= set(names)
    assert "success@k" not in names  # a synonym


def test_success_is_hits_on_values():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    s = rng.integers(0, 5, 60).astype(float)
    q = np.repeat(np.arange(10), 6)
    for ties in POLICIES:
        a = evaluate(y, s, qid=q, metrics=["success@3", "hits@3"], ties=ties, no_relevant="zero")
        np.testing.assert_array_equal(a.per_query["success@3"], a.per_query["hits@3"])


# ------------------------------------------------------------------------------------------------
# every tie policy against a loop over the tie orders
# ------------------------------------------------------------------------------------------------
def _random_query(rng, n, max_grade=3, unjudged_share=0.3):
    scores = rng.integers(0, 4, n).astype(float)  # many ties
    grades = rng.integers(0, max_grade + 1, n) * (rng.random(n) < 0.6)
    unjudged = (grades == 0) & (rng.random(n) < unjudged_share)
    return scores, grades.astype(float), unjudged


def _orders(scores, values, ties):
    """The rank orders a deterministic policy gives (``values``: what ranks first under optimistic)."""
    return ordering(list(scores), list(values), ties)


def _bpref_reference(scores, grades, unjudged, ties, n_rel, n_nonrel, level=1):
    items = list(zip(grades.tolist(), unjudged.tolist()))
    if ties == "expected":
        total, count = 0.0, 0
        for multiplicity, seq in block_arrangements(list(scores), items):
            total += multiplicity * bpref_loop(seq, n_rel, n_nonrel, level)
            count += multiplicity
        return total / count
    if ties == "realistic":
        # each relevant item has the judged non-relevant items of earlier blocks above it, and half of
        # those tied with it
        if n_rel == 0:
            return 0.0
        total, before = 0.0, 0
        for block in tie_blocks(list(scores)):
            nonrel = sum(1 for i in block if not unjudged[i] and grades[i] < level)
            n = before + nonrel / 2
            for i in block:
                if grades[i] >= level:
                    total += 1.0 - min(n, n_rel) / min(n_nonrel, n_rel) if n_nonrel and n_rel else 1.0
            before += nonrel
        return total / n_rel
    key = [float(g >= level) for g in grades]
    return bpref_loop([items[i] for i in _orders(scores, key, ties)], n_rel, n_nonrel, level)


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("seed", range(12))
def test_bpref_against_tie_orders(ties, seed):
    rng = np.random.default_rng(seed)
    queries = [_random_query(rng, int(rng.integers(1, 8))) for _ in range(4)]
    level = 2 if seed % 3 == 0 else None
    lvl = level or 1
    scores = np.concatenate([q[0] for q in queries])
    grades = np.concatenate([q[1] for q in queries])
    unjudged = np.concatenate([q[2] for q in queries])
    qid = np.repeat(np.arange(len(queries)), [len(q[0]) for q in queries])
    report = evaluate(grades, scores, qid=qid, unjudged=unjudged, metrics=["bpref"], ties=ties,
                      no_relevant="zero", relevance_level=level)
    for i, (s, g, u) in enumerate(queries):
        n_rel = int((g >= lvl).sum())
        n_nonrel = int(((g < lvl) & ~u).sum())
        expected = _bpref_reference(s, g, u, ties, n_rel, n_nonrel, lvl)
        assert report.per_query["bpref"][i] == pytest.approx(expected, abs=1e-12), (ties, i)


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_rbp_against_tie_orders(ties, p):
    rng = np.random.default_rng(int(p * 100))
    for _ in range(6):
        scores, grades, _ = _random_query(rng, int(rng.integers(1, 8)))
        rel = (grades > 0).astype(float)
        got = evaluate(grades, scores, metrics=[f"rbp(p={p})"], ties=ties, no_relevant="zero").summary[f"rbp(p={p})"]
        if ties == "expected":
            total, count = 0.0, 0
            for multiplicity, seq in block_arrangements(list(scores), list(rel)):
                total += multiplicity * rbp_loop(seq, p)
                count += multiplicity
            expected = total / count
        elif ties == "realistic":
            pos = realistic_positions(list(scores), list(rel))
            expected = rbp_from_positions([pos[i] for i in range(rel.size) if rel[i]], p)
        else:
            expected = rbp_loop([rel[i] for i in _orders(scores, rel, ties)], p)
        assert got == pytest.approx(expected, abs=1e-12), ties


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("k", [None, 1, 3])
def test_err_against_tie_orders(ties, k):
    rng = np.random.default_rng(7 + (k or 0))
    name = "err" if k is None else f"err@{k}"
    for _ in range(10):
        scores, grades, _ = _random_query(rng, int(rng.integers(1, 8)))
        if not grades.any():
            continue
        top = grades.max()
        report = {t: evaluate(grades, scores, metrics=[name], ties=t).summary[name] for t in POLICIES}
        got = report[ties]
        every = [err_loop(seq, k, top) for _, seq in block_arrangements(list(scores), list(grades))]
        if ties == "optimistic":  # the best order of each tie block
            assert got == pytest.approx(max(every), abs=1e-12)
        elif ties == "pessimistic":
            assert got == pytest.approx(min(every), abs=1e-12)
        if ties == "expected":  # the mean over every order of the tied items
            total, count = 0.0, 0
            for multiplicity, seq in block_arrangements(list(scores), list(grades)):
                total += multiplicity * err_loop(seq, k, top)
                count += multiplicity
            expected = total / count
        elif ties == "realistic":  # the gain items in their best order in the middle of their tie block
            pos = realistic_gain_positions(list(scores), list(grades))
            expected = err_from_positions([(pos[i], grades[i]) for i in range(grades.size) if grades[i] > 0], k, top)
            assert min(every) - 1e-12 <= got <= max(every) + 1e-12
        elif ties == "ordinal":
            expected = err_loop([grades[i] for i in _orders(scores, grades, "ordinal")], k, top)
        else:
            expected = err_loop([grades[i] for i in _orders(scores, grades, ties)], k, top)
        assert got == pytest.approx(expected, abs=1e-12), ties


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("k", [1, 2, 4, 9])
def test_judged_against_tie_orders(ties, k):
    rng = np.random.default_rng(11 + k)
    queries = [_random_query(rng, int(rng.integers(1, 8)), unjudged_share=0.6) for _ in range(5)]
    scores = np.concatenate([q[0] for q in queries])
    grades = np.concatenate([q[1] for q in queries])
    unjudged = np.concatenate([q[2] for q in queries])
    qid = np.repeat(np.arange(len(queries)), [len(q[0]) for q in queries])
    name = f"judged@{k}"
    report = evaluate(grades, scores, qid=qid, unjudged=unjudged, metrics=[name], ties=ties, no_relevant="zero")
    for i, (s, g, u) in enumerate(queries):
        judged = (~u).astype(float)
        if ties == "expected":
            total, count = 0.0, 0
            for multiplicity, seq in block_arrangements(list(s), list(judged)):
                total += multiplicity * judged_loop(seq, k)
                count += multiplicity
            expected = total / count
        elif ties == "realistic":
            pos = realistic_positions(list(s), list(judged))
            expected = sum(1 for j in range(s.size) if judged[j] and pos[j] <= k) / k
        else:  # optimistic: the judged candidates first among ties, pessimistic: last
            expected = judged_loop([judged[j] for j in _orders(s, judged, ties)], k)
        assert report.per_query[name][i] == pytest.approx(expected, abs=1e-12), (ties, i)


def test_without_unjudged_every_candidate_is_judged():
    y = [1, 0, 0, 0, 2]
    s = [5, 4, 3, 2, 1]
    q = [1, 1, 1, 2, 2]
    report = evaluate(y, s, qid=q, metrics=["judged@2", "judged@5", "bpref"], no_relevant="zero")
    assert report.per_query["judged@2"].tolist() == [1.0, 1.0]
    assert report.per_query["judged@5"].tolist() == [3 / 5, 2 / 5]
    # q1: the relevant item first (1); q2: one non-relevant of N = 1 above the only relevant one (0)
    assert report.per_query["bpref"].tolist() == [1.0, 0.0]


# ------------------------------------------------------------------------------------------------
# err's maximum grade; rbp's graded input
# ------------------------------------------------------------------------------------------------
def test_err_max_grade_conventions():
    y = np.array([2, 0, 1, 4, 0, 1, 1, 0])
    s = np.array([8, 7, 6, 5, 4, 3, 2, 1], dtype=float)
    q = np.array([1, 1, 1, 1, 2, 2, 2, 2])
    report = evaluate(y, s, qid=q, metrics=["err@3", "err(max_grade=4)@3", "err"])
    # default: each query's largest judged grade (4 for q1, 1 for q2)
    assert report.per_query["err@3"][0] == pytest.approx(err_loop([2, 0, 1], 3, 4))
    assert report.per_query["err@3"][1] == pytest.approx(err_loop([0, 1, 1], 3, 1))
    assert report.per_query["err(max_grade=4)@3"][1] == pytest.approx(err_loop([0, 1, 1], 3, 4))
    assert report.per_query["err"][0] == pytest.approx(err_loop([2, 0, 1, 4], None, 4))
    # the largest grade counts judged items that were not retrieved
    judged = (np.array([1, 1, 1, 1, 1, 2, 2, 2, 2]), np.array([2, 0, 1, 4, 4, 0, 1, 1, 3]))
    with_judged = evaluate(y, s, qid=q, metrics=["err@3"], judged=judged)
    assert with_judged.per_query["err@3"][1] == pytest.approx(err_loop([0, 1, 1], 3, 3))
    # gain= does not change ERR
    assert evaluate(y, s, qid=q, metrics=["err@3"], gain="exponential").summary["err@3"] == report.summary["err@3"]
    with pytest.raises(ValueError, match=r"err\(max_grade=2\) needs every relevance grade to be at most 2. "
                                         r"Got grade 4.0 instead"):
        evaluate(y, s, qid=q, metrics=["err(max_grade=2)@3"])


def test_rbp_is_binary_under_relevance_level():
    y = np.array([3, 1, 0, 2])
    s = np.array([4.0, 3.0, 2.0, 1.0])
    value = evaluate(y, s, metrics=["rbp(p=0.5)"]).summary["rbp(p=0.5)"]
    assert value == pytest.approx(rbp_loop([1, 1, 0, 1], 0.5))
    level = evaluate(y, s, metrics=["rbp(p=0.5)"], relevance_level=2).summary["rbp(p=0.5)"]
    assert level == pytest.approx(rbp_loop([1, 0, 0, 1], 0.5))


# ------------------------------------------------------------------------------------------------
# layouts and input checks
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ties", POLICIES)
def test_relevance_matrix_equals_grouped_and_blocks(monkeypatch, ties):
    rng = np.random.default_rng(3)
    rel = rng.integers(0, 3, (9, 6)) * (rng.random((9, 6)) < 0.5)
    score = rng.integers(0, 3, (9, 6)).astype(float)
    unjudged = (rel == 0) & (rng.random((9, 6)) < 0.4)
    metrics = ["bpref", "rbp(p=0.7)", "err@3", "err", "judged@2", "judged@4", "ndcg@3"]
    kwargs = dict(metrics=metrics, ties=ties, no_relevant="zero")
    matrix = evaluate(rel, score, unjudged=unjudged, **kwargs)
    qid = np.repeat(np.arange(9), 6)
    grouped = evaluate(rel.ravel(), score.ravel(), qid=qid, unjudged=unjudged.ravel(), **kwargs)
    monkeypatch.setattr(inputs, "MATRIX_CHUNK", 2 * score.shape[1])  # blocks of two queries
    blocks = evaluate(rel, score, unjudged=unjudged, **kwargs)
    for name in metrics:
        np.testing.assert_allclose(matrix.per_query[name], grouped.per_query[name], rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(blocks.per_query[name], grouped.per_query[name], rtol=1e-13, atol=1e-15)


def test_label_index_layout():
    score = np.array([[0.1, 0.5, 0.5, 0.2], [0.9, 0.3, 0.2, 0.1]])
    report = evaluate([1, 0], score, metrics=["bpref", "rbp(p=0.5)", "err", "judged@3"], ties="optimistic")
    # one relevant item: bpref is hits@1; ERR with R = 1/2 is 1 / (2 rank)
    assert report.per_query["bpref"].tolist() == [1.0, 1.0]
    assert report.per_query["rbp(p=0.5)"].tolist() == [0.5, 0.5]
    assert report.per_query["err"].tolist() == [0.5, 0.5]
    assert report.per_query["judged@3"].tolist() == [1.0, 1.0]
    pessimistic = evaluate([1, 0], score, metrics=["bpref", "err"], ties="pessimistic")
    assert pessimistic.per_query["bpref"].tolist() == [0.0, 1.0]
    assert pessimistic.per_query["err"].tolist() == [0.25, 0.5]
    with pytest.raises(ValueError, match="`unjudged` is for the grouped and relevance-matrix layouts"):
        evaluate([1, 0], score, metrics=["bpref"], unjudged=np.zeros(score.shape, bool))


def test_unjudged_checks():
    y, s, q = [1, 0, 0], [3.0, 2.0, 1.0], [1, 1, 1]
    with pytest.raises(ValueError, match=r"`unjudged` must have the shape of `y_score` \(3,\). Got \(2,\) instead"):
        evaluate(y, s, qid=q, unjudged=[True, False], metrics=["bpref"])
    with pytest.raises(TypeError, match="`unjudged` must be a boolean mask. Got dtype float64 instead"):
        evaluate(y, s, qid=q, unjudged=[0.5, 0, 0], metrics=["bpref"])
    with pytest.raises(ValueError, match=r"`unjudged` must mark only candidates whose `y_true` is 0 .* "
                                         r"Got an unjudged candidate with y_true=1.0 at row 0 instead"):
        evaluate(y, s, qid=q, unjudged=[True, False, False], metrics=["bpref"])
    import scipy.sparse as sp
    with pytest.raises(TypeError, match="`unjudged` may be a sparse matrix nowhere"):
        evaluate([[1, 0]], [[1.0, 0.5]], unjudged=sp.csr_matrix([[False, True]]), metrics=["bpref"])
    unjudged = np.array([False, True, False])
    evaluate(y, s, qid=q, unjudged=unjudged, metrics=["bpref"], exclude=[False, False, True])
    assert unjudged.tolist() == [False, True, False]  # never modified


def test_metrics_that_do_not_use_unjudged_ignore_it():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 40) * (rng.random(40) < 0.5)
    s = rng.integers(0, 4, 40).astype(float)
    q = np.repeat(np.arange(8), 5)
    unjudged = (y == 0) & (rng.random(40) < 0.5)
    metrics = ["mrr", "map", "ndcg@3", "p@2", "rbp", "err@3", "hits@2", "auc"]
    for ties in POLICIES:
        a = evaluate(y, s, qid=q, metrics=metrics, ties=ties, no_relevant="zero", unjudged=unjudged)
        b = evaluate(y, s, qid=q, metrics=metrics, ties=ties, no_relevant="zero")
        for name in metrics:
            np.testing.assert_array_equal(a.per_query[name], b.per_query[name])


# ------------------------------------------------------------------------------------------------
# trec_eval: pytrec_eval, the regression files, the command line; ranx
# ------------------------------------------------------------------------------------------------
def _trec_case(seed):
    """Qrels and a run with judged non-relevant, unjudged and negatively judged retrieved documents,
    relevant documents never retrieved, a query without relevant documents, a judged query the run
    lacks and a run query without judgements; a few tied scores."""
    rng = np.random.default_rng(seed)
    q_rows, r_rows = [], []
    for qi in range(7):
        qid = f"q{qi}"
        docs = [f"d{j:02d}" for j in range(int(rng.integers(3, 15)))]
        for d in docs:
            if rng.random() < 0.7:
                grade = int(rng.choice([-1, 0, 0, 1, 2, 3])) if qi != 2 else int(rng.choice([-1, 0]))
                q_rows.append((qid, d, grade))
        if qi != 5:  # q5 is judged but never retrieved
            retrieved = [d for d in docs if rng.random() < 0.8] + [f"x{j}" for j in range(int(rng.integers(0, 4)))]
            for d in retrieved:
                r_rows.append((qid, d, float(rng.integers(0, 6))))
    r_rows.append(("q9", "d00", 1.0))  # a run query without judgements
    q_rows.append(("q0", "dzz", 1))  # relevant, never retrieved
    qrels = Qrels(np.array([r[0] for r in q_rows]), np.array([r[1] for r in q_rows]),
                  np.array([r[2] for r in q_rows]))
    run = Run(np.array([r[0] for r in r_rows]), np.array([r[1] for r in r_rows]), np.array([r[2] for r in r_rows]))
    return q_rows, r_rows, qrels, run


def _pytrec(q_rows, r_rows, measures, *, judged_as_relevant=False, level=None):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {}
    for qid, doc, grade in q_rows:
        if judged_as_relevant:
            grade = 1 if grade >= 0 else -1
        qrels.setdefault(qid, {})[doc] = grade
    run = {}
    for qid, doc, score in r_rows:
        run.setdefault(qid, {})[doc] = score
    kwargs = {} if level is None else {"relevance_level": level}
    return pytrec_eval.RelevanceEvaluator(qrels, measures, **kwargs).evaluate(run)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", [None, 2])
def test_bpref_and_judged_equal_pytrec_eval(seed, level):
    q_rows, r_rows, qrels, run = _trec_case(seed)
    report = evaluate_trec(qrels, run, metrics=["bpref", "judged@5", "judged@10", "map"], relevance_level=level)
    ours = {qid: i for i, qid in enumerate(report.per_query["qid"].tolist())}
    theirs = _pytrec(q_rows, r_rows, {"bpref", "map"}, level=level)
    assert set(ours) == set(theirs)
    for qid, values in theirs.items():
        assert report.per_query["bpref"][ours[qid]] == pytest.approx(values["bpref"], abs=1e-12), qid
        assert report.per_query["map"][ours[qid]] == pytest.approx(values["map"], abs=1e-12), qid
    # judged@k is trec_eval's P@k once every judged document counts as relevant
    judged = _pytrec(q_rows, r_rows, {"P.5,10"}, judged_as_relevant=True)
    for qid, values in judged.items():
        assert report.per_query["judged@5"][ours[qid]] == pytest.approx(values["P_5"], abs=1e-12), qid
        assert report.per_query["judged@10"][ours[qid]] == pytest.approx(values["P_10"], abs=1e-12), qid


@pytest.mark.parametrize("seed", range(4))
def test_evaluate_trec_other_tie_policies_agree_with_the_engine(seed):
    q_rows, r_rows, qrels, run = _trec_case(seed)
    grades = {(q, d): g for q, d, g in q_rows}
    run_q = [r for r in r_rows if r[0] in {q for q, _, _ in q_rows}]
    y = np.array([max(grades.get((q, d), 0), 0) for q, d, _ in run_q], dtype=float)
    unjudged = np.array([grades.get((q, d), -1) < 0 for q, d, _ in run_q])
    s = np.array([r[2] for r in run_q])
    qid = np.array([r[0] for r in run_q])
    judged = (np.array([q for q, _, g in q_rows if g >= 0]), np.array([g for _, _, g in q_rows if g >= 0], float))
    for ties in ("expected", "realistic", "optimistic", "pessimistic"):
        report = evaluate_trec(qrels, run, metrics=["bpref", "judged@5"], ties=ties)
        engine = evaluate(y, s, qid=qid, unjudged=unjudged, judged=judged, metrics=["bpref", "judged@5"],
                          ties=ties, no_relevant="zero")
        for name in ("bpref", "judged@5"):
            np.testing.assert_allclose(report.per_query[name], engine.per_query[name], rtol=1e-13)


@pytest.mark.skipif(not (CONFORMANCE / "qrels.test").exists(),
                    reason=f"trec_eval conformance data not found at {CONFORMANCE}")
@pytest.mark.parametrize("qrels, run, expected, kwargs", [
    ("qrels.test", "results.test", "out.test.aq", {}),
    ("qrels.test", "results.trunc", "out.test.aqc", {"missing": "zero"}),
    ("qrels.rel_level", "results.test", "out.test.aql", {"relevance_level": 2}),
])
def test_bpref_on_trec_eval_regression_files(qrels, run, expected, kwargs):
    report = evaluate_trec(CONFORMANCE / qrels, CONFORMANCE / run, metrics=["bpref"], **kwargs)
    qids = report.per_query["qid"].tolist()
    checked = 0
    for line in (CONFORMANCE / expected).read_text().splitlines():
        measure, topic, value = line.split()
        if measure != "bpref":
            continue
        got = report.summary["bpref"] if topic == "all" else report.per_query["bpref"][qids.index(topic)]
        assert got == pytest.approx(float(value), abs=5e-5), topic
        checked += 1
    assert checked == 4


def _write_trec(tmp_path, q_rows, r_rows):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in q_rows))
    run = tmp_path / "run"
    run.write_text("".join(f"{q} Q0 {d} {i} {s!r} tag\n" for i, (q, d, s) in enumerate(r_rows)))
    return qrels, run


@pytest.mark.parametrize("seed", [0, 3])
def test_command_line_bpref_equals_pytrec_eval(tmp_path, capsys, seed):
    from sklearn_rank.cli import main

    q_rows, r_rows, _, _ = _trec_case(seed)
    qrels, run = _write_trec(tmp_path, q_rows, r_rows)
    # in this process: tests/test_cli.py runs the command line in processes of its own
    code = main(["evaluate", str(qrels), str(run), "-m", "bpref", "judged@10", "--per-query", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    payload = json.loads(out)
    theirs = _pytrec(q_rows, r_rows, {"bpref"})
    assert payload["summary"]["bpref"] == pytest.approx(np.mean([v["bpref"] for v in theirs.values()]), abs=1e-12)
    for qid, value in zip(payload["per_query"]["qid"], payload["per_query"]["bpref"]):
        assert value == pytest.approx(theirs[qid]["bpref"], abs=1e-12)
    judged = _pytrec(q_rows, r_rows, {"P.10"}, judged_as_relevant=True)
    assert payload["summary"]["judged@10"] == pytest.approx(np.mean([v["P_10"] for v in judged.values()]),
                                                            abs=1e-12)


def _ranx_case(seed):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for qi in range(6):
        qid = f"q{qi}"
        docs = [f"d{j}" for j in range(int(rng.integers(4, 12)))]
        judged = [d for d in docs if rng.random() < 0.7]
        rel = {d: int(rng.integers(0, 2)) for d in judged}
        rel[judged[0] if judged else docs[0]] = 1
        rel["never"] = 1
        # ranx needs a judged non-relevant document for bpref's min(R, N)
        rel["zz_nonrel"] = 0
        qrels[qid] = rel
        scores = rng.permutation(len(docs) + 1).astype(float)  # distinct: ranx's tie order is its own
        run[qid] = {d: float(s) for d, s in zip(docs + ["zz_nonrel"], scores)}
    return qrels, run


def _flatten(qrels, run):
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    y = np.array([max(qrels[q].get(d, 0), 0) for q, d, _ in rows], dtype=float)
    unjudged = np.array([d not in qrels[q] for q, d, _ in rows])
    judged = (np.array([q for q, docs in qrels.items() for d in docs]),
              np.array([g for docs in qrels.values() for g in docs.values()], dtype=float))
    return (y, np.array([r[2] for r in rows]), np.array([r[0] for r in rows]), unjudged, judged)


@pytest.mark.parametrize("seed", range(3))
def test_rbp_and_bpref_equal_ranx(seed, ranx):
    qrels, run = _ranx_case(seed)
    y, s, qid, unjudged, judged = _flatten(qrels, run)
    report = evaluate(y, s, qid=qid, unjudged=unjudged, judged=judged, metrics=["rbp.95", "rbp(p=0.5)", "bpref"])
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["rbp.95", "rbp.5", "bpref"], return_mean=False)
    # ranx lists the queries sorted by id, as the report does
    assert report.per_query["qid"].tolist() == sorted(qrels)
    np.testing.assert_allclose(report.per_query["rbp.95"], theirs["rbp.95"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(report.per_query["rbp(p=0.5)"], theirs["rbp.5"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(report.per_query["bpref"], theirs["bpref"], rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_rbp_err_judged_against_loops_on_untied_data(seed):
    rng = np.random.default_rng(100 + seed)
    n_q, n = 6, 9
    y = rng.integers(0, 4, (n_q, n)) * (rng.random((n_q, n)) < 0.5)
    s = rng.permutation(n_q * n).reshape(n_q, n).astype(float)
    unjudged = (y == 0) & (rng.random((n_q, n)) < 0.5)
    report = evaluate(y, s, unjudged=unjudged, metrics=["rbp(p=0.8)", "err@4", "err(max_grade=3)@10", "judged@4"],
                      no_relevant="zero")
    for i in range(n_q):
        order = np.argsort(-s[i])
        grades = y[i, order].tolist()
        top = max(grades)
        assert report.per_query["rbp(p=0.8)"][i] == pytest.approx(rbp_loop([g > 0 for g in grades], 0.8))
        assert report.per_query["err@4"][i] == pytest.approx(err_loop(grades, 4, top) if top else 0.0)
        assert report.per_query["err(max_grade=3)@10"][i] == pytest.approx(err_loop(grades, 10, 3))
        assert report.per_query["judged@4"][i] == pytest.approx(judged_loop((~unjudged[i, order]).tolist(), 4))


def test_itertools_brute_force_agrees_with_the_block_helper():
    # the oracles' block enumeration covers every permutation: check it on one tiny case
    scores, values = [1, 1, 0], ["a", "b", "c"]
    seqs = sorted(tuple(seq) for m, seq in block_arrangements(scores, values) for _ in range(m))
    assert seqs == sorted(tuple(values[i] for i in p) + ("c",) for p in itertools.permutations(range(2)))


@pytest.mark.parametrize("k", [None, 1, 2, 5, 8])
def test_err_expected_on_one_large_tie_block(monkeypatch, k):
    # a constant scorer: one tie block of 8 candidates, 5 of them graded
    grades = [3, 0, 1, 1, 0, 2, 0, 3]
    scores = [0.0] * len(grades)
    name = "err" if k is None else f"err@{k}"
    every = [(m, err_loop(seq, k, 3)) for m, seq in block_arrangements(scores, grades)]
    brute = math.fsum(m * v for m, v in every) / math.fsum(m for m, _ in every)
    got = evaluate(grades, scores, metrics=[name]).summary[name]
    assert got == pytest.approx(brute, abs=1e-13)
    from sklearn_rank import _expectations
    monkeypatch.setattr(_expectations, "_EXPAND_TERMS", 3)  # the order-statistic sums a few terms at a time
    assert evaluate(grades, scores, metrics=[name]).summary[name] == pytest.approx(brute, abs=1e-13)


def test_err_with_grades_whose_stopping_chance_rounds_to_one():
    # From grade 53 on, (2**g - 1) / 2**g rounds to 1.0 in float64: the query stops there for sure, later
    # items add nothing, and the other queries are unaffected (this was a ValueError for every query).
    report = skr.evaluate([60, 0, 1, 0], [0.3, 0.2, 0.3, 0.2], qid=[0, 0, 1, 1], metrics=["err", "err@1"])
    np.testing.assert_allclose(report.per_query["err"], [1.0, 0.5], rtol=0, atol=1e-15)
    # a grade-60 item second: the first (grade 3 of max 60) stops with 7 / 2**60, the second with ~1
    first = (2.0 ** 3 - 1) / 2.0 ** 60
    value = skr.evaluate([3, 60, 0], [0.3, 0.2, 0.1], metrics=["err"]).summary["err"]
    assert value == pytest.approx(first + (1 - first) * (1 - 2.0 ** -60) / 2, rel=1e-15)
    for ties in ("expected", "realistic", "optimistic", "pessimistic", "ordinal"):
        assert np.isfinite(skr.evaluate([60, 60, 0, 59], [1.0, 1.0, 1.0, 0.5], metrics=["err"], ties=ties)
                           .summary["err"])
