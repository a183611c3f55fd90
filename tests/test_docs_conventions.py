"""The claims of docs/conventions.rst and docs/metrics.rst, one test per claim.

* The conventions table: the table is parsed from the page, and each row has one test,
  parametrized over the tools whose cell is not "—". A test checks the *peer's* behaviour against
  an independent reference (scikit-learn itself; pytrec_eval, which runs trec_eval's C code; for
  ranx, PyKEEN, TGB and OGB, which are not test dependencies, their behaviour written out below from
  their source code) and checks that the sklearn-rank options named on the page reproduce it.
* The recipes ("To reproduce a peer's numbers"): one test each, named in the page.
* The metric reference tables of docs/metrics.rst against the registry, the API reference against
  the public names, and the changelog's form.

tests/test_peers.py and tests/test_trec_eval_parity.py check the engine against the same peers on
other data; the regression-file recipe calls into the latter's checks.
"""

import inspect
import itertools
import math
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.metrics as skm

import sklearn_rank as skr
from sklearn_rank.io import Qrels, Run, evaluate_trec

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
ATOL = 1e-12
POLICIES = ["expected", "realistic", "optimistic", "pessimistic", "ordinal"]


def close(actual, expected, atol=ATOL):
    np.testing.assert_allclose(actual, expected, rtol=0, atol=atol)


# ==================================================================================================
# The table, as written in docs/conventions.rst
# ==================================================================================================

TOOLS = ["sklearn-rank", "scikit-learn", "trec_eval", "ranx", "PyKEEN", "TGB / OGB", "LightGBM / XGBoost"]

# What each row test checks, cell by cell; "—" cells have no test case.
EXPECTED_TABLE = {
    "ties": ["expected (choosable)", "expected (nDCG)", "docno desc", "input order", "realistic", "realistic",
             "input order"],
    "nDCG gain": ["linear (choosable)", "linear", "linear", "linear / burges", "—", "—", "2^rel - 1"],
    "AP denominator": ["all relevant", "—", "all relevant", "all relevant", "—", "—", "min(k, relevant)"],
    "no relevant item": ["skip (choosable)", "0", "0", "0", "—", "—", "1"],
}


def conventions_table():
    """{row: [cell per tool]} of the simple table under "The table" in docs/conventions.rst."""
    lines = (DOCS / "conventions.rst").read_text(encoding="utf-8").splitlines()
    start = lines.index("The table") + 2
    borders = [i for i in range(start, len(lines)) if lines[i].startswith("=====")][:3]
    spans = [(m.start(), m.end()) for m in re.finditer(r"=+", lines[borders[0]])]

    def cells(line):
        # The last column runs to the end of the line.
        return [line[a:(spans[i + 1][0] if i + 1 < len(spans) else None)].strip() for i, (a, _) in enumerate(spans)]

    header = cells(lines[borders[0] + 1])
    assert header == ["question"] + TOOLS
    table = {}
    for line in lines[borders[1] + 1:borders[2]]:
        row = [re.sub(r"\s*\[#\w+\]_", "", cell) for cell in cells(line)]  # drop footnote references
        table[row[0]] = row[1:]
    return table


def test_tests_named_in_the_page_exist():
    named = set(re.findall(r"``(test_\w+)``", (DOCS / "conventions.rst").read_text(encoding="utf-8")))
    assert len(named) >= 10
    assert named <= set(globals()), sorted(named - set(globals()))


def row_cases(row):
    return [tool for tool, cell in zip(TOOLS, EXPECTED_TABLE[row]) if cell != "—"]


def test_conventions_table_is_the_tested_one():
    # A row or a cell changed in the docs must change here, with its test.
    assert conventions_table() == EXPECTED_TABLE


# ==================================================================================================
# Independent references for the tools that are not test dependencies
# ==================================================================================================

# ---- ranx (ranx/metrics/*.py, ranx/data_structures/common.py) --------------------------------------
# A run is sorted by decreasing score with Numba's argsort (insertion sort up to 15 documents: ties
# keep input order); qrels keep the judgements with relevance >= rel_lvl (default 1) as the relevant
# documents and their gains; a query without any scores 0 in every metric; the mean is over queries.

def ranx_ranked(run_query):
    assert len(run_query) <= 15, "ranx keeps input order among ties for lists of at most 15 documents"
    return [doc for doc, _ in sorted(run_query.items(), key=lambda item: -item[1])]  # stable, like ranx here


def ranx_relevant(qrels_query, rel_lvl=1):
    return {doc: rel for doc, rel in qrels_query.items() if rel >= rel_lvl}


def ranx_reciprocal_rank(qrels_query, run_query):
    relevant = ranx_relevant(qrels_query)
    if not relevant:
        return 0.0
    for position, doc in enumerate(ranx_ranked(run_query), start=1):
        if doc in relevant:
            return 1.0 / position
    return 0.0


def ranx_average_precision(qrels_query, run_query, k=0):
    relevant = ranx_relevant(qrels_query)
    if not relevant:
        return 0.0
    ranked = ranx_ranked(run_query)
    ranked = ranked[:k] if k else ranked
    hits, total = 0, 0.0
    for position, doc in enumerate(ranked, start=1):
        if doc in relevant:
            hits += 1
            total += hits / position
    return total / len(relevant)


def ranx_ndcg(qrels_query, run_query, k=0, burges=False):
    relevant = ranx_relevant(qrels_query)
    if not relevant:
        return 0.0

    def dcg(gains):
        gains = gains[:k] if k else gains
        return sum((2.0 ** g - 1 if burges else g) / math.log2(i + 2) for i, g in enumerate(gains))

    ideal = dcg(sorted(relevant.values(), reverse=True))
    return dcg([relevant.get(doc, 0) for doc in ranx_ranked(run_query)]) / ideal


def ranx_precision(qrels_query, run_query, k):
    relevant = ranx_relevant(qrels_query)
    return sum(doc in relevant for doc in ranx_ranked(run_query)[:k]) / k


def ranx_recall(qrels_query, run_query, k):
    relevant = ranx_relevant(qrels_query)
    if not relevant:
        return 0.0
    return sum(doc in relevant for doc in ranx_ranked(run_query)[:k]) / len(relevant)


def ranx_hit_rate(qrels_query, run_query, k):
    relevant = ranx_relevant(qrels_query)
    return float(any(doc in relevant for doc in ranx_ranked(run_query)[:k]))


def ranx_mean(metric, qrels, run, **kwargs):
    assert qrels.keys() == run.keys()  # ranx.evaluate requires the same query ids
    return float(np.mean([metric(qrels[q], run[q], **kwargs) for q in qrels]))


def ranx_data(seed, n_queries=12, levels=4, no_relevant_queries=2):
    """Runs of at most 15 documents on a few score levels (ties), graded qrels, unretrieved relevant
    documents, and queries without any relevant judgement."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        n_docs = int(rng.integers(3, 16))
        docs = [f"{qid}d{j}" for j in rng.permutation(n_docs)]  # input order is not docno order
        run[qid] = {doc: float(rng.integers(0, levels)) / levels for doc in docs}
        grades = rng.choice([0, 0, 1, 2, 3], size=n_docs)
        if q < no_relevant_queries:
            grades[:] = 0
        elif not grades.any():
            grades[0] = 2
        qrels[qid] = {doc: int(g) for doc, g in zip(docs, grades) if g > 0 or rng.random() < 0.5}
        if q >= no_relevant_queries and rng.random() < 0.6:
            qrels[qid][f"{qid}missing"] = int(rng.integers(1, 4))  # relevant, never retrieved
        if not qrels[qid]:
            qrels[qid][docs[0]] = 0
    return qrels, run


def as_grouped(qrels, run):
    """Grouped rows in the run's document order, and the qrels as ``judged``."""
    qid = np.array([q for q, docs in run.items() for _ in docs])
    y_score = np.array([s for docs in run.values() for s in docs.values()])
    y_true = np.array([qrels[q].get(d, 0) for q, docs in run.items() for d in docs], dtype=float)
    judged = (np.array([q for q, docs in qrels.items() for _ in docs]),
              np.array([r for docs in qrels.values() for r in docs.values()], dtype=float))
    return y_true, y_score, qid, judged


# ---- PyKEEN (pykeen/evaluation/ranks.py, rank_based_evaluator.py) --------------------------------------
# Filtered candidates get a NaN score; optimistic = #{score > true} + 1, pessimistic = #{score >= true}
# (the true entity included), realistic = their mean; number of options = finite scores. "both" pools
# the head and the tail ranks. MR, MRR (inverse harmonic mean rank) and hits@k are means over ranks;
# AMR = MR / mean((N + 1) / 2); AMRI = 1 - (MR - 1) / (mean((N + 1) / 2) - 1).

def pykeen_ranks(scores, true_column, known):
    filtered = np.where(known, np.nan, scores)
    true_score = scores[np.arange(len(scores)), true_column][:, None]
    optimistic = np.sum(filtered > true_score, axis=1) + 1
    pessimistic = np.sum(filtered >= true_score, axis=1)
    return (optimistic + pessimistic) * 0.5, np.isfinite(filtered).sum(axis=1)


def pykeen_metrics(ranks, number_of_options):
    expected_mr = float(np.mean(0.5 * (number_of_options + 1)))
    mr = float(np.mean(ranks))
    values = {"mr": mr, "mrr": float(np.mean(1.0 / ranks)), "amr": mr / expected_mr,
              "amri": 1.0 - (mr - 1.0) / (expected_mr - 1.0)}
    for k in (1, 3, 10):
        values[f"hits@{k}"] = float(np.mean(ranks <= k))
    return values


def kg_data(seed, n_entities=40, n_queries=30):
    """Head- or tail-prediction queries (score rows over all entities, tied scores), each with one to
    three test answers and a few other known (training) answers."""
    rng = np.random.default_rng(seed)
    scores = np.round(rng.normal(size=(n_queries, n_entities)), 1)  # rounding makes ties
    test_answers = np.zeros(scores.shape, dtype=bool)
    known = np.zeros(scores.shape, dtype=bool)
    for row in range(n_queries):
        chosen = rng.choice(n_entities, size=int(rng.integers(1, 4)) + int(rng.integers(0, 5)), replace=False)
        n_test = int(rng.integers(1, 4))
        test_answers[row, chosen[:n_test]] = True
        known[row, chosen[n_test:]] = True
        scores[row, chosen[:n_test]] += 0.5  # a model that knows something
    return scores, test_answers, known


def pykeen_evaluate(scores, test_answers, known):
    """PyKEEN's filtered evaluation: one rank per test triple, the other true entities filtered."""
    rows, columns = np.nonzero(test_answers)
    other_true = (test_answers | known)[rows]
    other_true[np.arange(len(rows)), columns] = False
    return pykeen_metrics(*pykeen_ranks(scores[rows], columns, other_true))


# ---- TGB / OGB (tgb/linkproppred/evaluate.py; ogb/linkproppred/evaluate.py) ---------------------------

def tgb_ogb_mrr_hits(y_pred_pos, y_pred_neg, ks=(1, 3, 10)):
    optimistic = np.sum(y_pred_neg > y_pred_pos[:, None], axis=1)
    pessimistic = np.sum(y_pred_neg >= y_pred_pos[:, None], axis=1)
    ranking_list = 0.5 * (optimistic + pessimistic) + 1
    values = {"mrr": float(np.mean(1.0 / ranking_list))}
    for k in ks:
        values[f"hits@{k}"] = float(np.mean(ranking_list <= k))
    return values


def ogb_shared_negatives_hits(y_pred_pos, y_pred_neg, k):
    if len(y_pred_neg) < k:
        return 1.0
    kth_score_in_negative_edges = np.sort(y_pred_neg)[-k]
    return float(np.sum(y_pred_pos > kth_score_in_negative_edges)) / len(y_pred_pos)


def link_data(seed, n=80, n_negatives=25, levels=6):
    rng = np.random.default_rng(seed)
    y_pred_pos = rng.integers(1, levels + 1, size=n).astype(float)
    y_pred_neg = rng.integers(0, levels, size=(n, n_negatives)).astype(float)
    return y_pred_pos, y_pred_neg


# ---- trec_eval through pytrec_eval ------------------------------------------------------------------

def pytrec(qrels, run, measures):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    return pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)


def as_qrels_run(qrels, run):
    return (Qrels(np.array([q for q, docs in qrels.items() for _ in docs]),
                  np.array([d for docs in qrels.values() for d in docs]),
                  np.array([r for docs in qrels.values() for r in docs.values()])),
            Run(np.array([q for q, docs in run.items() for _ in docs]),
                np.array([d for docs in run.values() for d in docs]),
                np.array([s for docs in run.values() for s in docs.values()], dtype=float)))


def docno_descending_rows(qrels, run):
    """Grouped rows in trec_eval's order (score, then docno, descending) for ties="ordinal"."""
    # Two stable sorts: docno descending, then score descending.
    ordered = {q: dict(sorted(sorted(docs.items(), reverse=True), key=lambda item: -item[1]))
               for q, docs in run.items()}
    return as_grouped(qrels, ordered)


# ---- LightGBM and XGBoost: their own metric code on fixed scores -----------------------------------
def boosting_metrics(y, scores, sizes, lightgbm_metrics=(), xgboost_metrics=(), xgboost_objective="rank:ndcg"):
    """The engines' recorded metrics of ``scores``: one round that cannot change the ranking."""
    out = {}
    X = np.zeros((len(y), 1))  # no split is possible: the round adds one constant to every score
    if lightgbm_metrics:
        lgb = pytest.importorskip("lightgbm")
        data = lgb.Dataset(X, y, group=sizes, init_score=scores, free_raw_data=False)
        record = {}
        names = sorted({m.split("@")[0] for m in lightgbm_metrics})
        cuts = sorted({int(m.split("@")[1]) for m in lightgbm_metrics})
        lgb.train(dict(objective="lambdarank", metric=names, eval_at=cuts, learning_rate=1e-10, verbose=-1),
                  data, num_boost_round=1, valid_sets=[data], valid_names=["d"],
                  callbacks=[lgb.record_evaluation(record)])
        out.update({f"lightgbm {m}": record["d"][m][0] for m in lightgbm_metrics})
    if xgboost_metrics:
        xgb = pytest.importorskip("xgboost")
        data = xgb.DMatrix(X, y, base_margin=scores)
        data.set_group(sizes)
        record = {}
        xgb.train(dict(objective=xgboost_objective, eval_metric=list(xgboost_metrics), eta=0.0), data, 1,
                  evals=[(data, "d")], evals_result=record, verbose_eval=False)
        out.update({f"xgboost {m}": record["d"][m][0] for m in xgboost_metrics})
    return out


# ==================================================================================================
# One test per row of the table
# ==================================================================================================

@pytest.mark.parametrize("tool", row_cases("ties"))
def test_row_ties(tool):
    if tool == "sklearn-rank":
        # "expected (choosable)": the default of every entry point, and every policy is accepted.
        for function in (skr.evaluate, skr.mean_reciprocal_rank, skr.ndcg_score, skr.mean_rank):
            assert inspect.signature(function).parameters["ties"].default == "expected", function.__name__
        # the estimator's None (scikit-learn wants plain defaults) is "expected" unless a convention says otherwise
        assert inspect.signature(skr.RankingEvaluator).parameters["ties"].default is None
        assert skr.RankingEvaluator(None)._metric_params()["ties"] == "expected"
        values = {policy: skr.mean_reciprocal_rank([0, 1, 0, 0], [0.9, 0.5, 0.5, 0.5], ties=policy)
                  for policy in POLICIES}
        close(values["expected"], (1 / 2 + 1 / 3 + 1 / 4) / 3)
        assert len(set(np.round(list(values.values()), 12))) == 4  # realistic = ordinal here, 1/3
    elif tool == "scikit-learn":
        # "expected (nDCG)": sklearn.metrics.ndcg_score averages over every order of tied items.
        rng = np.random.default_rng(1)
        y_true = rng.integers(0, 4, size=(6, 6))
        y_true[:, 0] = np.maximum(y_true[:, 0], 1)
        y_score = rng.integers(0, 3, size=(6, 6)).astype(float)
        brute_force = []
        for relevance, scores in zip(y_true, y_score):
            blocks = [[i for i in range(6) if scores[i] == level] for level in sorted(set(scores), reverse=True)]
            ideal = sum(g / math.log2(p + 2) for p, g in enumerate(sorted(relevance, reverse=True)))
            values = [sum(relevance[i] / math.log2(p + 2) for p, i in enumerate(itertools.chain(*order))) / ideal
                      for order in itertools.product(*[itertools.permutations(b) for b in blocks])]
            brute_force.append(np.mean(values))
        close(skm.ndcg_score(y_true, y_score), np.mean(brute_force))
        close(skr.ndcg_score(y_true, y_score), np.mean(brute_force))
    elif tool == "trec_eval":
        # "docno desc": of two tied documents, the larger docno (as a string) comes first.
        for relevant, expected_rr in (("d1", 0.5), ("d2", 1.0)):
            trec = pytrec({"q": {relevant: 1}}, {"q": {"d1": 0.5, "d2": 0.5}}, {"recip_rank"})
            assert trec["q"]["recip_rank"] == expected_rr
        qrels, run = ranx_data(seed=3, no_relevant_queries=0)
        trec = pytrec(qrels, run, {"recip_rank", "map", "ndcg"})
        report = evaluate_trec(*as_qrels_run(qrels, run), metrics=["mrr", "map", "ndcg"])
        order = report.per_query["qid"].tolist()
        for trec_name, name in (("recip_rank", "mrr"), ("map", "map"), ("ndcg", "ndcg")):
            close(report.per_query[name], [trec[q][trec_name] for q in order])
    elif tool == "ranx":
        # "input order": ties keep the run's document order (lists of at most 15 documents).
        qrels, run = ranx_data(seed=4, no_relevant_queries=0)
        y_true, y_score, qid, judged = as_grouped(qrels, run)
        report = skr.evaluate(y_true, y_score, qid=qid, judged=judged, ties="ordinal",
                              metrics=["mrr", "map", "ndcg"])
        close(report.summary["mrr"], ranx_mean(ranx_reciprocal_rank, qrels, run))
        close(report.summary["map"], ranx_mean(ranx_average_precision, qrels, run))
        close(report.summary["ndcg"], ranx_mean(ranx_ndcg, qrels, run))
        expected = skr.evaluate(y_true, y_score, qid=qid, judged=judged, metrics=["mrr"]).summary["mrr"]
        assert abs(expected - report.summary["mrr"]) > 1e-3  # the data have ties that matter
    elif tool == "PyKEEN":
        # "realistic": PyKEEN's rank is the mean of the optimistic and the pessimistic rank.
        scores, test_answers, known = kg_data(seed=5)
        pykeen = pykeen_evaluate(scores, test_answers, known)
        for policy in POLICIES:
            got = skr.evaluate(test_answers.astype(int), scores, exclude=known, ties=policy, targets="all",
                               metrics=["mrr", "mr"]).summary
            if policy == "realistic":
                close(got["mrr"], pykeen["mrr"])
                close(got["mr"], pykeen["mr"])
            elif policy != "expected":
                assert abs(got["mrr"] - pykeen["mrr"]) > 1e-3, policy
    elif tool == "TGB / OGB":
        # "realistic": ranking_list = 0.5 * (optimistic + pessimistic) + 1.
        y_pred_pos, y_pred_neg = link_data(seed=6)
        reference = tgb_ogb_mrr_hits(y_pred_pos, y_pred_neg)
        y_true, y_score = skr.positive_vs_negatives(y_pred_pos, y_pred_neg)
        for policy in POLICIES:
            got = skr.evaluate(y_true, y_score, ties=policy, metrics=["mrr"]).summary["mrr"]
            if policy == "realistic":
                close(got, reference["mrr"])
            else:
                assert abs(got - reference["mrr"]) > 1e-3, policy
    elif tool == "LightGBM / XGBoost":
        # "input order": of tied documents the first row ranks higher (stable sorts in both engines).
        y = np.array([0, 1, 0, 1, 1, 0, 0, 1])
        scores = np.array([1.0, 1.0, 2.0, 0.0, 1.0, 1.0, 1.0, 1.0])
        sizes = [4, 4]
        qid = np.repeat([0, 1], sizes)
        recorded = boosting_metrics(y, scores, sizes, ["ndcg@2"], ["ndcg@2"])
        for engine in ("lightgbm", "xgboost"):
            close(skr.ndcg_score(y, scores, qid=qid, k=2, ties="ordinal"), recorded[f"{engine} ndcg@2"])
            assert abs(skr.ndcg_score(y, scores, qid=qid, k=2) - recorded[f"{engine} ndcg@2"]) > 1e-3


@pytest.mark.parametrize("tool", row_cases("nDCG gain"))
def test_row_ndcg_gain(tool):
    # One query without ties: relevance in ranked order 3, 0, 2, 1 (and a judged 3 never retrieved).
    ranked_relevance = np.array([3, 0, 2, 1])
    scores = np.array([4.0, 3.0, 2.0, 1.0])
    discount = 1 / np.log2(np.arange(2, 6))

    def ndcg(gain, judged_gains):
        ideal = np.sort(judged_gains)[::-1][:4] @ discount[:min(4, len(judged_gains))]
        return gain(ranked_relevance) @ discount / ideal

    linear = ndcg(lambda r: r.astype(float), np.array([3, 2, 1, 3.0]))
    exponential = ndcg(lambda r: 2.0 ** r - 1, 2.0 ** np.array([3, 2, 1, 3]) - 1)
    judged = (np.array(["q"] * 5), np.array([3, 0, 2, 1, 3]))
    qid = np.array(["q"] * 4)
    if tool == "sklearn-rank":
        # "linear (choosable)"
        close(skr.ndcg_score(ranked_relevance, scores, qid=qid, judged=judged), linear)
        close(skr.ndcg_score(ranked_relevance, scores, qid=qid, judged=judged, gain="exponential"), exponential)
        assert skr.ndcg_score.__kwdefaults__["gain"] == "linear"
    elif tool == "scikit-learn":
        # "linear": scikit-learn's DCG uses the relevance itself as the gain.
        close(skm.dcg_score([ranked_relevance], [scores]), ranked_relevance @ discount)
        close(skr.dcg_score([ranked_relevance], [scores]), ranked_relevance @ discount)
    elif tool == "trec_eval":
        # "linear", the ideal DCG over every judged document.
        trec = pytrec({"q": {"a": 3, "b": 0, "c": 2, "d": 1, "z": 3}}, {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}},
                      {"ndcg"})
        close(trec["q"]["ndcg"], linear)
        close(skr.ndcg_score(ranked_relevance, scores, qid=qid, judged=judged), linear)
    elif tool == "ranx":
        # "linear / burges": ranx's ndcg and ndcg_burges.
        qrels, run = ranx_data(seed=7, no_relevant_queries=0)
        y_true, y_score, qid, judged = as_grouped(qrels, run)
        for gain, burges in (("linear", False), ("exponential", True)):
            for k in (0, 5):
                got = skr.ndcg_score(y_true, y_score, qid=qid, judged=judged, ties="ordinal", gain=gain, k=k or None)
                close(got, ranx_mean(ranx_ndcg, qrels, run, k=k, burges=burges))
    elif tool == "LightGBM / XGBoost":
        # "2^rel - 1": label_gain's default in LightGBM, ndcg_exp_gain's in XGBoost.
        recorded = boosting_metrics(ranked_relevance, scores, [4], ["ndcg@4"], ["ndcg@4"])
        complete = ndcg(lambda r: 2.0 ** r - 1, 2.0 ** ranked_relevance - 1)  # the list is all they know
        for engine in ("lightgbm", "xgboost"):
            close(recorded[f"{engine} ndcg@4"], complete)
            close(skr.ndcg_score(ranked_relevance, scores, qid=qid, k=4, gain="exponential"), complete)


@pytest.mark.parametrize("tool", row_cases("AP denominator"))
def test_row_ap_denominator(tool):
    # "all relevant": AP divides by every relevant judgement, retrieved or not.
    qrels = {"q": {"a": 1, "b": 0, "c": 1, "x": 1, "y": 1}}  # x and y are never retrieved
    run = {"q": {"a": 0.9, "b": 0.8, "c": 0.7}}
    all_relevant = (1 / 1 + 2 / 3) / 4
    retrieved_only = (1 / 1 + 2 / 3) / 2
    y_true, y_score, qid, judged = as_grouped(qrels, run)
    if tool == "sklearn-rank":
        close(skr.mean_average_precision(y_true, y_score, qid=qid, judged=judged), all_relevant)
        # Without `judged`, the candidate list is taken as complete.
        close(skr.mean_average_precision(y_true, y_score, qid=qid), retrieved_only)
        close(skr.mean_average_precision(y_true, y_score, qid=qid, judged=judged, k=2), (1 / 1) / 4)  # map_cut
    elif tool == "trec_eval":
        trec = pytrec(qrels, run, {"map", "map_cut.2"})
        close(trec["q"]["map"], all_relevant)
        close(trec["q"]["map_cut_2"], (1 / 1) / 4)
        close(evaluate_trec(*as_qrels_run(qrels, run), metrics=["map"]).summary["map"], all_relevant)
    elif tool == "ranx":
        close(ranx_average_precision(qrels["q"], run["q"]), all_relevant)
        close(ranx_average_precision(qrels["q"], run["q"], k=2), (1 / 1) / 4)
        qrels, run = ranx_data(seed=8)
        y_true, y_score, qid, judged = as_grouped(qrels, run)
        got = skr.mean_average_precision(y_true, y_score, qid=qid, judged=judged, ties="ordinal", no_relevant="zero")
        close(got, ranx_mean(ranx_average_precision, qrels, run))
    elif tool == "LightGBM / XGBoost":
        # "min(k, relevant)": relevant at ranks 1 and 3 of 4 relevant among 6, cut at 2 and 3.
        y = np.array([1, 0, 1, 0, 1, 1])
        s = np.arange(6.0)[::-1].copy()
        recorded = boosting_metrics(y, s, [6], ["map@2", "map@3"], ["map@2", "map@3"], "rank:map")
        for engine in ("lightgbm", "xgboost"):
            close(recorded[f"{engine} map@2"], (1 / 1) / 2)
            close(recorded[f"{engine} map@3"], (1 / 1 + 2 / 3) / 3)
        for k in (2, 3):
            close(skr.mean_average_precision(y, s, k=k, ap_denominator="capped"), recorded[f"lightgbm map@{k}"])


@pytest.mark.parametrize("tool", row_cases("no relevant item"))
def test_row_no_relevant_item(tool):
    if tool == "sklearn-rank":
        # "skip (choosable)": skipped and counted by default; "zero" and "error" on request.
        y_true = [1, 0, 0, 0, 0, 0]
        y_score = [0.2, 0.9, 0.1, 0.5, 0.4, 0.3]
        qid = [1, 1, 1, 2, 2, 2]
        report = skr.evaluate(y_true, y_score, qid=qid, metrics=["mrr"])
        assert (report.summary["mrr"], report.n_queries, report.n_skipped) == (0.5, 1, 1)
        assert skr.evaluate(y_true, y_score, qid=qid, metrics=["mrr"], no_relevant="zero").summary["mrr"] == 0.25
        with pytest.raises(ValueError, match="no_relevant='error'"):
            skr.evaluate(y_true, y_score, qid=qid, metrics=["mrr"], no_relevant="error")
    elif tool == "scikit-learn":
        # "0": a row without relevant items scores 0 and stays in the mean.
        y_true = np.array([[0, 2, 1, 0], [0, 0, 0, 0], [1, 0, 0, 3]])
        y_score = np.array([[0.3, 0.9, 0.1, 0.2], [0.4, 0.3, 0.2, 0.1], [0.1, 0.8, 0.3, 0.2]])
        assert skm.ndcg_score(y_true[1:2], y_score[1:2]) == 0.0
        per_row = [skm.ndcg_score(y_true[i:i + 1], y_score[i:i + 1]) for i in range(3)]
        close(skm.ndcg_score(y_true, y_score), np.mean(per_row))
        close(skr.ndcg_score(y_true, y_score, no_relevant="zero"), np.mean(per_row))
        close(skr.ndcg_score(y_true, y_score), np.mean([per_row[0], per_row[2]]))
    elif tool == "trec_eval":
        # "0": a query whose judgements hold no relevant document is evaluated, and scores 0.
        qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 0, "d": 0}}
        run = {"q1": {"a": 0.2, "b": 0.9}, "q2": {"c": 0.5, "d": 0.4}}
        trec = pytrec(qrels, run, {"map", "recip_rank", "ndcg", "num_q"})
        assert trec["q2"] == {"map": 0.0, "recip_rank": 0.0, "ndcg": 0.0, "num_q": 1.0}
        y_true, y_score, qid, judged = docno_descending_rows(qrels, run)
        report = skr.evaluate(y_true, y_score, qid=qid, judged=judged, ties="ordinal", no_relevant="zero",
                              metrics=["map", "mrr", "ndcg"])
        for trec_name, name in (("map", "map"), ("recip_rank", "mrr"), ("ndcg", "ndcg")):
            close(report.summary[name], np.mean([trec[q][trec_name] for q in ("q1", "q2")]))
    elif tool == "ranx":
        qrels, run = ranx_data(seed=9, no_relevant_queries=3)
        assert sum(not ranx_relevant(docs) for docs in qrels.values()) == 3
        y_true, y_score, qid, judged = as_grouped(qrels, run)
        report = skr.evaluate(y_true, y_score, qid=qid, judged=judged, ties="ordinal", no_relevant="zero",
                              metrics=["mrr", "map"])
        close(report.summary["mrr"], ranx_mean(ranx_reciprocal_rank, qrels, run))
        close(report.summary["map"], ranx_mean(ranx_average_precision, qrels, run))
    elif tool == "LightGBM / XGBoost":
        # "1": a query without a relevant document scores 1 in nDCG (and in MAP).
        y = np.array([0, 0, 0, 1, 0, 2])
        s = np.array([0.3, 0.2, 0.1, 0.1, 0.9, 0.4])
        sizes = [3, 3]
        qid = np.repeat([0, 1], sizes)
        recorded = boosting_metrics(y, s, sizes, ["ndcg@3", "map@3"], ["ndcg@3"])
        second = skr.ndcg_score(y[3:], s[3:], k=3, gain="exponential")
        for name in ("lightgbm ndcg@3", "xgboost ndcg@3"):
            close(recorded[name], (1 + second) / 2)
        close(skr.ndcg_score(y, s, qid=qid, k=3, gain="exponential", no_relevant="one"), (1 + second) / 2)
        close(recorded["lightgbm map@3"], (1 + skr.mean_average_precision(y[3:], s[3:], k=3)) / 2)


# ==================================================================================================
# The recipes
# ==================================================================================================

def test_recipe_scikit_learn_ndcg_and_dcg():
    rng = np.random.default_rng(10)
    y_true = rng.integers(0, 4, size=(15, 8))
    y_true[:4] = 0  # rows without relevant items
    y_score = rng.integers(0, 4, size=(15, 8)).astype(float)
    weight = rng.uniform(0.5, 2.0, size=15)
    for k in (None, 3):
        for sample_weight in (None, weight):
            close(skr.ndcg_score(y_true, y_score, k=k, sample_weight=sample_weight, no_relevant="zero"),
                  skm.ndcg_score(y_true, y_score, k=k, sample_weight=sample_weight))
            close(skr.dcg_score(y_true, y_score, k=k, sample_weight=sample_weight),
                  skm.dcg_score(y_true, y_score, k=k, sample_weight=sample_weight))


def test_recipe_scikit_learn_top_k_accuracy():
    rng = np.random.default_rng(11)
    labels = np.array(["ant", "bee", "cat", "dog", "eel"])
    y_true = labels[rng.integers(0, 5, size=50)]
    y_score = rng.normal(size=(50, 5))
    for k in (1, 2, 4):
        close(skr.hits_at_k(y_true, y_score, k=k, labels=labels),
              skm.top_k_accuracy_score(y_true, y_score, k=k, labels=labels))


def test_recipe_scikit_learn_lrap():
    rng = np.random.default_rng(12)
    y_true = (rng.random((20, 7)) < 0.4).astype(int)
    y_true[:, 0], y_true[:, 1] = 1, 0  # LRAP scores rows without relevant (or non-relevant) labels 1
    y_score = rng.normal(size=(20, 7))
    close(skr.mean_average_precision(y_true, y_score), skm.label_ranking_average_precision_score(y_true, y_score))
    # With ties, LRAP puts a tied item at the worst position of its block: none of the policies.
    y_true = np.array([[1, 0, 1, 1, 0, 0]])
    y_score = np.array([[0.5, 0.5, 0.5, 0.9, 0.5, 0.1]])
    lrap = skm.label_ranking_average_precision_score(y_true, y_score)
    for policy in POLICIES:
        assert abs(skr.mean_average_precision(y_true, y_score, ties=policy) - lrap) > 1e-3, policy


def test_recipe_scikit_learn_average_precision():
    rng = np.random.default_rng(13)
    for _ in range(5):
        y_true = (rng.random(30) < 0.3).astype(int)
        y_true[0] = 1
        y_score = rng.normal(size=30)
        close(skr.mean_average_precision(y_true, y_score), skm.average_precision_score(y_true, y_score))


def test_recipe_scikit_learn_roc_auc():
    rng = np.random.default_rng(14)
    qid = np.repeat(np.arange(8), 9)
    y_true = (rng.random(qid.size) < 0.4).astype(int)
    y_true[::9], y_true[1::9] = 1, 0  # both classes in every query
    y_score = rng.integers(0, 4, size=qid.size).astype(float)  # ties count half in both
    report = skr.evaluate(y_true, y_score, qid=qid, metrics="auc")
    close(report.per_query["auc"], [skm.roc_auc_score(y_true[qid == q], y_score[qid == q]) for q in range(8)])


def test_recipe_trec_eval_regression_files():
    import test_trec_eval_parity as parity  # trec_eval's expected output, parsed by its checks

    if not (parity.CONFORMANCE / "qrels.test").exists():
        pytest.skip(f"trec_eval conformance data not found at {parity.CONFORMANCE} (the project's shared/ folder)")
    report = evaluate_trec(parity.CONFORMANCE / "qrels.test", parity.CONFORMANCE / "results.test",
                           metrics=sorted(set(parity.MEASURES.values())))
    assert parity._check(report, parity._expected("out.test.aq")) >= 60


def trec_names_table():
    text = (DOCS / "conventions.rst").read_text(encoding="utf-8")
    block = text[text.index("trec_eval measure names"):]
    return re.findall(r"^``(\w+)``\s+``([\w@]+)``\s*$", block, flags=re.MULTILINE)


def test_trec_eval_measure_names():
    pairs = trec_names_table()
    assert len(pairs) == 9
    qrels, run = ranx_data(seed=15, no_relevant_queries=0)
    for trec_name, name in pairs:
        for k in ((5, 10) if trec_name.endswith("_k") else (None,)):
            measure = trec_name[:-2] if k else trec_name
            request = f"{measure}.{k}" if k else measure
            key = f"{measure}_{k}" if k else measure
            trec = pytrec(qrels, run, {request})
            report = evaluate_trec(*as_qrels_run(qrels, run), metrics=[name.replace("@k", f"@{k}")])
            order = report.per_query["qid"].tolist()
            close(report.per_query[report_key(report)], [trec[q][key] for q in order])


def report_key(report):
    (name,) = [key for key in report.per_query if key != "qid"]
    return name


def test_recipe_trec_eval_pytrec_eval():
    # Ties, unretrieved relevant documents, graded judgements: evaluate_trec is trec_eval per query.
    measures = {"map": "map", "recip_rank": "mrr", "ndcg": "ndcg", "ndcg_cut_10": "ndcg@10", "P_5": "p@5",
                "recall_10": "r@10", "Rprec": "rprec", "success_1": "hits@1", "map_cut_10": "map@10"}
    for seed in (16, 17):
        qrels, run = ranx_data(seed=seed, no_relevant_queries=0)
        trec = pytrec(qrels, run, {"map", "recip_rank", "ndcg", "ndcg_cut.10", "P.5", "recall.10", "Rprec",
                                   "success.1", "map_cut.10"})
        report = evaluate_trec(*as_qrels_run(qrels, run), metrics=list(measures.values()))
        order = report.per_query["qid"].tolist()
        assert sorted(order) == sorted(trec)
        for trec_name, name in measures.items():
            close(report.per_query[name], [trec[q][trec_name] for q in order])


def test_recipe_trec_eval_queries_without_relevant_documents():
    # trec_eval scores a judged query without relevant documents 0 and keeps it in the mean.
    qrels, run = ranx_data(seed=18, no_relevant_queries=3)
    trec = pytrec(qrels, run, {"map", "ndcg"})
    report = evaluate_trec(*as_qrels_run(qrels, run), metrics=["map", "ndcg"])
    assert report.n_skipped == 0 and report.n_queries == len(trec)
    for name in ("map", "ndcg"):
        close(report.summary[name], np.mean([values[name] for values in trec.values()]))
        close(report.per_query[name], [trec[q][name] for q in report.per_query["qid"]])


def test_recipe_ranx():
    for seed in (19, 20):
        qrels, run = ranx_data(seed=seed)
        y_true, y_score, qid, judged = as_grouped(qrels, run)
        report = skr.evaluate(y_true, y_score, qid=qid, judged=judged, ties="ordinal", no_relevant="zero",
                              metrics=["map", "map@5", "mrr", "ndcg", "ndcg@5", "p@5", "p@20", "r@5", "hit_rate@3"])
        close(report.summary["map"], ranx_mean(ranx_average_precision, qrels, run))
        close(report.summary["map@5"], ranx_mean(ranx_average_precision, qrels, run, k=5))
        close(report.summary["mrr"], ranx_mean(ranx_reciprocal_rank, qrels, run))
        close(report.summary["ndcg"], ranx_mean(ranx_ndcg, qrels, run))
        close(report.summary["ndcg@5"], ranx_mean(ranx_ndcg, qrels, run, k=5))
        close(report.summary["p@5"], ranx_mean(ranx_precision, qrels, run, k=5))
        close(report.summary["p@20"], ranx_mean(ranx_precision, qrels, run, k=20))  # divides by k
        close(report.summary["r@5"], ranx_mean(ranx_recall, qrels, run, k=5))
        close(report.summary["hit_rate@3"], ranx_mean(ranx_hit_rate, qrels, run, k=3))


def test_recipe_pykeen():
    for seed in (21, 22):
        scores, test_answers, known = kg_data(seed=seed)
        pykeen = pykeen_evaluate(scores, test_answers, known)
        got = skr.evaluate(test_answers.astype(int), scores, exclude=known, ties="realistic", targets="all",
                           metrics=list(pykeen)).summary
        for name, value in pykeen.items():
            close(got[name], value)
        # The same ranks from one label-index row per test triple, with a sparse filter.
        rows, columns = np.nonzero(test_answers)
        other_true = (test_answers | known)[rows]
        other_true[np.arange(len(rows)), columns] = False
        per_triple = skr.evaluate(columns, scores[rows], exclude=sp.csr_matrix(other_true), ties="realistic",
                                  metrics=list(pykeen)).summary
        for name, value in pykeen.items():
            close(per_triple[name], value)


def test_recipe_tgb_ogb_mrr_and_hits():
    for seed in (23, 24):
        y_pred_pos, y_pred_neg = link_data(seed=seed)
        reference = tgb_ogb_mrr_hits(y_pred_pos, y_pred_neg, ks=(1, 3, 10, 20))
        y_true, y_score = skr.positive_vs_negatives(y_pred_pos, y_pred_neg)
        got = skr.evaluate(y_true, y_score, ties="realistic", metrics=list(reference)).summary
        for name, value in reference.items():
            close(got[name], value)


def test_recipe_ogb_hits_with_shared_negatives():
    rng = np.random.default_rng(25)
    for n_negatives, k in ((40, 1), (40, 10), (40, 20), (5, 20)):  # the last: fewer negatives than K
        y_pred_pos = rng.integers(0, 8, size=30).astype(float)
        y_pred_neg = rng.integers(0, 8, size=n_negatives).astype(float)
        y_true, y_score = skr.positive_vs_negatives(y_pred_pos, np.tile(y_pred_neg, (len(y_pred_pos), 1)))
        close(skr.hits_at_k(y_true, y_score, k=k, ties="pessimistic"),
              ogb_shared_negatives_hits(y_pred_pos, y_pred_neg, k))


# ==================================================================================================
# docs/metrics.rst: the reference tables against the registry
# ==================================================================================================

def list_table_rows(text):
    """Rows of every ``list-table`` of a page, as lists of cell texts (header rows included)."""
    rows = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("* - "):
            rows.append([stripped[4:]])
        elif rows and line.startswith("     -"):
            rows[-1].append(stripped[1:].strip())
        elif stripped and rows and line.startswith("       ") and not stripped.startswith(".."):
            rows[-1][-1] += " " + stripped
    return rows


def names_in(cell):
    return [name.replace("@k", "@10") for name in re.findall(r"``([^`]+)``", cell)]


def test_metric_reference_tables_match_the_registry():
    rows = [row for row in list_table_rows((DOCS / "metrics.rst").read_text(encoding="utf-8"))
            if row[0] != "metric"]
    documented = set()
    for names, synonyms, _formula, value_range, direction, _origin in rows:
        specs = [skr.get_metric(name) for name in names_in(names)]
        assert specs, names
        for spec in specs:
            documented.add(spec.name.replace("@10", "@k"))
            assert direction == ("higher is better" if spec.greater_is_better else "lower is better"), spec.name
            bounds = re.fullmatch(r"[\[(](-?∞|-?[\d.]+), (-?∞|-?[\d.]+)[\])]", value_range)
            assert bounds, value_range
            lower, upper = (float(b.replace("∞", "inf")) for b in bounds.groups())
            assert (lower, upper) == (spec.lower, spec.upper), spec.name
            for synonym in names_in(synonyms):
                assert skr.get_metric(synonym).base == spec.base, synonym
    # Every metric of the registry has a row (``ndcg``, ``ndcg@k`` and the like share one).
    assert set(skr.metric_names()) <= documented, sorted(set(skr.metric_names()) - documented)


# ==================================================================================================
# docs/api: every public name has an entry
# ==================================================================================================

def test_api_reference_documents_every_public_name():
    import sklearn_rank.datasets
    import sklearn_rank.exceptions
    import sklearn_rank.io
    import sklearn_rank.model_selection
    import sklearn_rank.stats

    documented = set()
    for page in (DOCS / "api").glob("*.rst"):
        module = None
        for line in page.read_text(encoding="utf-8").splitlines():
            current = re.match(r"\.\. currentmodule:: (\S+)", line)
            if current:
                module = current.group(1)
            entry = re.match(r"\.\. auto(?:function|class|data):: (\S+)", line)
            if entry:
                documented.add(f"{module}.{entry.group(1)}")
    public = {f"sklearn_rank.{name}" for name in skr.__all__ if name != "__version__"}
    for module in (sklearn_rank.stats, sklearn_rank.io, sklearn_rank.model_selection, sklearn_rank.datasets,
                   sklearn_rank.exceptions):
        public |= {f"{module.__name__}.{name}" for name in module.__all__}
    assert public <= documented, sorted(public - documented)
    for qualified in documented:  # and nothing documented that does not exist
        module, _, name = qualified.rpartition(".")
        assert hasattr(__import__(module, fromlist=[name]), name), qualified


# ==================================================================================================
# CHANGELOG.md and the version
# ==================================================================================================

def test_changelog_keeps_a_changelog():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    assert "https://keepachangelog.com/" in text
    releases = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert releases and releases[0] == "[Unreleased]"
    for release in releases[1:]:
        assert re.fullmatch(r"\[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}", release), release
    for section in re.findall(r"^### (.+)$", text, flags=re.MULTILINE):
        assert section in {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, section


def test_version_lives_in_one_place():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject
    assert 'version = { attr = "sklearn_rank.__version__" }' in pyproject
    assert "release = sklearn_rank.__version__" in (DOCS / "conf.py").read_text(encoding="utf-8")
    version = skr.__version__
    for path in [*ROOT.glob("*.md"), *DOCS.glob("*.rst"), *DOCS.glob("*.py"), *(ROOT / "sklearn_rank").glob("*.py")]:
        # The changelog names its releases; nothing else repeats the version.
        if path.name not in ("__init__.py", "CHANGELOG.md"):
            assert version not in path.read_text(encoding="utf-8"), path
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{version}]" in changelog or "dev" in version
