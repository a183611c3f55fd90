"""The presets of round 2 (issue 24) against the peers' own outputs, recorded on 40 seeded cases by the
scripts in tests/data/peers/ (each names the peer's version and how a case was fed).

A case is a user x item matrix: scores, grades, training items (filtered: not candidates). sklearn-rank gets
each user's candidates as the rows of one query, with the preset alone (no other keyword). Where the peer
breaks ties in an order of its own that no option describes (LensKit's and cornac's argpartition, implicit's
heap), the tied cases are fed in the order the peer used (recorded), as distinct scores; the tie-free cases
are fed their scores as they are.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from sklearn_rank import evaluate

DATA = Path(__file__).parent / "data" / "peers"


def _load(peer):
    path = DATA / f"{peer}.json"
    if not path.exists():  # pragma: no cover - the files are in the repository
        pytest.skip(f"{path} is missing")
    return json.loads(path.read_text())


def _candidates(case, user):
    return [i for i in range(case["n_items"]) if not case["train"][user][i]]


def _rows(case, order=None, top=None):
    """(y_true, y_score, qid) of every user with candidates; ``order(user, candidates)`` the row order (default:
    item id); ``top[user]``: the peer's own top list, given distinct scores above every other candidate."""
    y_true, y_score, qid = [], [], []
    for user in range(case["n_users"]):
        items = _candidates(case, user)
        if order is not None:
            items = order(user, items)
        for item in items:
            score = case["scores"][user][item]
            if top is not None and top[user] is not None and item in top[user]:
                score = 1e6 - top[user].index(item)
            y_true.append(case["labels"][user][item])
            y_score.append(score)
            qid.append(user)
    return np.array(y_true, dtype=float), np.array(y_score), np.array(qid)


def _per_user(report, name, n_users):
    """The report's per-query values by user (NaN: no value)."""
    out = np.full(n_users, np.nan)
    out[report.per_query["qid"]] = report.per_query[name]
    return out


def _compare(got, recorded, rtol=1e-12, atol=1e-14, where=""):
    expected = np.array([np.nan if v is None else v for v in recorded], dtype=float)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)


def _cases(peer):
    return [pytest.param(peer, i, id=f"{peer}-{i}") for i in range(40)]


# ----------------------------------------------------------------------------------------------------------
# RecTools: the recommendation order is the ranking, fed as is (ties="ordinal")
RECTOOLS = {"NDCG": "ndcg", "MAP": "map", "MRR": "mrr", "Precision": "p", "Recall": "r", "HitRate": "hits"}


@pytest.mark.parametrize("peer, index", _cases("rectools"))
def test_rectools(peer, index):
    case = _load(peer)["cases"][index]
    k = case["k"]
    y_true, y_score, qid = _rows(case, order=lambda user, items: case["ranking"][user])
    names = {f"{peer_name}(k={k})": f"{ours}@{k}" for peer_name, ours in RECTOOLS.items()}
    report = evaluate(y_true, y_score, qid=qid, metrics=list(names.values()), convention="rectools")
    for peer_name, ours in names.items():
        recorded = case["outputs"][peer_name]
        _compare(_per_user(report, ours, case["n_users"]), recorded["per_query"], where=peer_name)
        assert report.summary[ours] == pytest.approx(recorded["mean"], rel=1e-12), peer_name
    # Precision(r_precision=True) is the option precision_denominator="capped"
    capped = evaluate(y_true, y_score, qid=qid, metrics=[f"p@{k}"], convention="rectools",
                      precision_denominator="capped")
    _compare(_per_user(capped, f"p@{k}", case["n_users"]),
             case["outputs"][f"Precision(k={k}, r_precision=True)"]["per_query"])


# ----------------------------------------------------------------------------------------------------------
# LensKit: its top-N list (argpartition: its own tie order) is fed as it ranked it
LENSKIT = {"NDCG": "ndcg", "DCG": "dcg", "Precision": "p", "Recall": "r", "AveragePrecision": "map",
           "RecipRank": "mrr", "RBP": "rbp", "Hit": "hits"}


@pytest.mark.parametrize("peer, index", _cases("lenskit"))
def test_lenskit(peer, index):
    case = _load(peer)["cases"][index]
    k = case["k"]
    top = case["peer_rankings"][f"top_n({k})"] if case["ties"] else None
    y_true, y_score, qid = _rows(case, top=top)
    names = {f"{peer_name}@{k}": f"{ours}@{k}" for peer_name, ours in LENSKIT.items()}
    report = evaluate(y_true, y_score, qid=qid, metrics=list(names.values()), convention="lenskit")
    for peer_name, ours in names.items():
        recorded = case["outputs"][peer_name]
        got = _per_user(report, ours, case["n_users"])
        has_test = np.array([any(case["labels"][u][i] > 0 for i in _candidates(case, u))
                             for u in range(case["n_users"])])
        # LensKit's value of a user without a test item is NaN (AP: an error); its RunAnalysis summary
        # counts such a user 0, as the preset does: compare the users LensKit scores
        expected = [v if has else None for v, has in zip(recorded["per_query"], has_test)]
        _compare(np.where(has_test, got, np.nan), expected, where=peer_name)
        if recorded.get("mean") is not None:
            assert report.summary[ours] == pytest.approx(recorded["mean"], rel=1e-12), peer_name


# ----------------------------------------------------------------------------------------------------------
# CatBoost: eval_metric per group (a user's candidates in item id order); its ties are pessimistic
def _catboost_names(k):
    return {"NDCG": "ndcg", f"NDCG:top={k}": f"ndcg@{k}", f"DCG:top={k}": f"dcg@{k}",
            f"PrecisionAt:top={k}": f"p@{k}", f"RecallAt:top={k}": f"r@{k}", f"MAP:top={k}": f"map@{k}",
            "MRR": "mrr"}


@pytest.mark.parametrize("peer, index", _cases("catboost"))
def test_catboost(peer, index):
    _check_catboost(_load(peer)["cases"][index])


def _check_catboost(case):
    y_true, y_score, qid = _rows(case)
    names = _catboost_names(case["k"])
    report = evaluate(y_true, y_score, qid=qid, metrics=list(names.values()), convention="catboost")
    for peer_name, ours in names.items():
        recorded = case["outputs"][peer_name]
        _compare(_per_user(report, ours, case["n_users"]), recorded["per_query"], where=peer_name)
        assert report.summary[ours] == pytest.approx(recorded["mean"], rel=1e-12), peer_name
    # ERR and PFound read the label as the chance of stopping: grades / 3 (float32 labels in CatBoost)
    k = case["k"]
    cascades = {"ERR [label=grade/3]": "err", "PFound [label=grade/3]": "pfound",
                f"PFound:top={k} [label=grade/3]": f"pfound@{k}"}
    scaled = evaluate(y_true / 3, y_score, qid=qid, metrics=list(cascades.values()), convention="catboost")
    for peer_name, ours in cascades.items():
        recorded = case["outputs"][peer_name]
        _compare(_per_user(scaled, ours, case["n_users"]), recorded["per_query"], rtol=2e-7, atol=1e-8,
                 where=peer_name)
        assert scaled.summary[ours] == pytest.approx(recorded["mean"], rel=2e-7), peer_name
    # on grades above 1 CatBoost's ERR and PFound are no chances (its ERR can exceed 1): the preset refuses them
    if y_true.max() > 1:
        with pytest.raises(ValueError, match=r"labels must lie in \[0, 1\]"):
            evaluate(y_true, y_score, qid=qid, metrics=["err"], convention="catboost")
    # QueryAUC (type=Classic, labels 0 and 1): a tied pair counts half, a query without a pair scores 0; the
    # preset refuses graded labels (CatBoost's Classic refuses labels above 1, reads those in (0, 1) as chances)
    relevant = (y_true > 0).astype(float)
    auc = evaluate(relevant, y_score, qid=qid, metrics=["auc", "ndcg"], convention="catboost")
    _compare(_per_user(auc, "auc", case["n_users"]), case["outputs"]["QueryAUC [label=relevant]"]["per_query"],
             where="QueryAUC")
    assert auc.summary["auc"] == pytest.approx(case["outputs"]["QueryAUC [label=relevant]"]["mean"], rel=1e-12)
    assert auc.params["ties_for"] == {"auc": "expected"} and auc.params["ties"] == "pessimistic"
    if (y_true > 1).any():
        with pytest.raises(ValueError, match="AUC of labels 0 and 1 only"):
            evaluate(y_true, y_score, qid=qid, metrics=["auc"], convention="catboost")
    # NDCG:denominator=Position is the option discount="reciprocal"
    position = evaluate(y_true, y_score, qid=qid, metrics=["ndcg"], convention="catboost", discount="reciprocal")
    _compare(_per_user(position, "ndcg", case["n_users"]), case["outputs"]["NDCG:denominator=Position"]["per_query"])


# ----------------------------------------------------------------------------------------------------------
# ir_measures: trec_eval's tie order (docno descending) for the pytrec_eval measures, docno ascending for
# Judged@k, run-file order for RBP; judged queries absent from the run score 0
def _ir_measures_names(k):
    # (peer name, ours, tie order of the peer: item ids "desc" or "asc" among tied scores, tolerance)
    return [(f"nDCG@{k}", f"ndcg@{k}", "desc", 1e-12), (f"P@{k}", f"p@{k}", "desc", 1e-12),
            (f"R@{k}", f"r@{k}", "desc", 1e-12), ("AP", "map", "desc", 1e-12), ("RR", "mrr", "desc", 1e-12),
            ("Rprec", "rprec", "desc", 1e-12), (f"Success@{k}", f"hits@{k}", "desc", 1e-12),
            (f"Judged@{k}", f"judged@{k}", "asc", 1e-12), (f"ERR@{k}", f"err@{k}", "desc", 5e-6),
            ("RBP(rel=1)", "rbp", "asc", 1e-12)]


@pytest.mark.parametrize("peer, index", _cases("ir_measures"))
def test_ir_measures(peer, index):
    _check_ir_measures(_load(peer)["cases"][index])


def _check_ir_measures(case):
    judged = [(u, i) for u in range(case["n_users"]) for i in range(case["n_items"]) if case["judged"][u][i]]
    judged_qid = np.array([u for u, _ in judged])
    judged_rel = np.array([case["labels"][u][i] for u, i in judged], dtype=float)
    for peer_name, ours, tie_order, tol in _ir_measures_names(case["k"]):
        # the peer's tie order: rows in that order, ranked with ties="ordinal" (the preset's)
        y_true, y_score, qid = _rows(case, order=(lambda user, items: items[::-1]) if tie_order == "desc" else None)
        unjudged = np.array([not case["judged"][u][i] for u in range(case["n_users"])
                             for i in (_candidates(case, u)[::-1] if tie_order == "desc" else _candidates(case, u))])
        report = evaluate(y_true, y_score, qid=qid, metrics=[ours], convention="ir_measures",
                          judged=(judged_qid, judged_rel), unjudged=unjudged)
        recorded = case["outputs"][peer_name]
        _compare(_per_user(report, ours, case["n_users"]), recorded["per_query"], atol=tol, where=peer_name)
        assert report.summary[ours] == pytest.approx(recorded["mean"], rel=tol, abs=tol), peer_name


# ----------------------------------------------------------------------------------------------------------
# cornac: the ranking of its own (argpartition, then a sort of the top k) fed as it ranked; AUC counts a tied
# pair 0, as the preset's pessimistic ties do, on the scores themselves
def _cornac_names(k):
    return {f"NDCG@{k}": f"ndcg@{k}", f"Precision@{k}": f"p@{k}", f"Recall@{k}": f"r@{k}", f"F1@{k}": f"f1@{k}",
            f"HitRatio@{k}": f"hits@{k}", "MRR": "mrr"}


@pytest.mark.parametrize("peer, index", _cases("cornac"))
def test_cornac(peer, index):
    _check_cornac(_load(peer)["cases"][index])


def _check_cornac(case):
    k = case["k"]
    for peer_name, ours in _cornac_names(k).items():
        ranking = case["peer_rankings"].get(f"rank(k={-1 if ours == 'mrr' else k})") if case["ties"] else None
        y_true, y_score, qid = _rows(case, top=ranking)
        report = evaluate(y_true, y_score, qid=qid, metrics=[ours], convention="cornac")
        recorded = case["outputs"][peer_name]
        got = _per_user(report, ours, case["n_users"])
        # cornac gives no value where it raises (fewer candidates than k): compared where it gives one
        scored = np.array([v is not None for v in recorded["per_query"]])
        assert scored.sum() >= 1 or k > 5, peer_name
        _compare(got[scored], [v for v in recorded["per_query"] if v is not None], where=peer_name)
        if recorded.get("mean") is not None:
            assert report.summary[ours] == pytest.approx(recorded["mean"], rel=1e-12), peer_name
    y_true, y_score, qid = _rows(case)
    with pytest.warns(Warning, match="undefined"):  # a user whose candidates are all positive: NaN, left out
        report = evaluate(y_true, y_score, qid=qid, metrics=["auc", "map"], convention="cornac")
    _compare(_per_user(report, "auc", case["n_users"]), case["outputs"]["AUC"]["per_query"], where="AUC")
    # MAP: rankdata(-score, "max") of the scores themselves (ap_ties="max"), whatever the order of tied ones
    _compare(_per_user(report, "map", case["n_users"]), case["outputs"]["MAP"]["per_query"], where="MAP")
    assert report.summary["map"] == pytest.approx(case["outputs"]["MAP"]["mean"], rel=1e-12)


# ----------------------------------------------------------------------------------------------------------
# implicit: means only; its top K (a heap: its own tie order) fed as it ranked; scores are float32 there
@pytest.mark.parametrize("peer, index", _cases("implicit"))
def test_implicit(peer, index):
    case = _load(peer)["cases"][index]
    k = case["k"]
    outputs = case.get("outputs") or {}
    if not outputs or any(value.get("mean") is None for value in outputs.values()):
        pytest.skip(f"implicit gives no value on case {index} ({case.get('skipped') or 'it raised'})")
    top = case["peer_rankings"][f"recommend(N={k})"] if case["ties"] else None
    y_true, y_score, qid = _rows(case, top=top)
    report = evaluate(y_true, y_score, qid=qid, metrics=[f"ndcg@{k}", f"map@{k}", f"p@{k}"], convention="implicit")
    assert report.summary[f"p@{k}"] == pytest.approx(outputs["precision"]["mean"], rel=1e-12)  # pooled
    assert report.summary[f"ndcg@{k}"] == pytest.approx(outputs["ndcg"]["mean"], rel=1e-12)
    assert report.summary[f"map@{k}"] == pytest.approx(outputs["map"]["mean"], rel=1e-12)


# ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("convention, metric, match", [
    ("implicit", "mrr", "implicit has no 'mrr'"),
    ("rectools", "auc", "RecTools has no 'auc'"),
    ("cornac", "auc@5", "cannot reproduce 'auc@k' as cornac computes it.*no cut-off"),
    ("implicit", "auc", "cannot reproduce 'auc' as implicit computes it.*training items"),
    ("catboost", "auc@2", "cannot reproduce 'auc@k' as CatBoost computes it"),
    ("lenskit", "bpref", "LensKit has no 'bpref'"),
])
def test_a_metric_the_preset_cannot_reproduce_is_refused(convention, metric, match):
    with pytest.raises(ValueError, match=match):
        evaluate([1, 0, 1], [0.3, 0.2, 0.1], metrics=["ndcg@3", metric], convention=convention)


def test_the_refusal_reaches_the_metric_functions():
    from sklearn_rank import mean_reciprocal_rank

    with pytest.raises(ValueError, match="implicit has no 'mrr'"):
        mean_reciprocal_rank([1, 0, 1], [0.3, 0.2, 0.1], convention="implicit")


def test_an_explicit_option_wins_over_the_new_presets():
    y_true, y_score = [1, 0, 0, 1], [0.4, 0.3, 0.2, 0.1]
    lenskit = evaluate(y_true, y_score, metrics=["ndcg@4"], convention="lenskit")
    explicit = evaluate(y_true, y_score, metrics=["ndcg@4"], convention="lenskit", discount="log2")
    plain = evaluate(y_true, y_score, metrics=["ndcg@4"], gain="binary")
    assert explicit.summary == plain.summary != lenskit.summary
    # a parameter written in the name wins over the preset's (LensKit's patience 0.85)
    assert evaluate(y_true, y_score, metrics=["rbp(p=0.8)"], convention="lenskit").summary["rbp(p=0.8)"] == \
        evaluate(y_true, y_score, metrics=["rbp"]).summary["rbp"]


# ----------------------------------------------------------------------------------------------------------
# ir_measures from TREC files, as its users evaluate: io.evaluate_trec and the command line, docno order
def _trec_files(case, tmp_path):
    qrels = "".join(f"{u} 0 {i:02d} {case['labels'][u][i]}\n" for u in range(case["n_users"])
                    for i in range(case["n_items"]) if case["judged"][u][i])
    run = "".join(f"{u} Q0 {i:02d} 0 {case['scores'][u][i]!r} peer\n" for u in range(case["n_users"])
                  for i in _candidates(case, u))
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    return tmp_path / "qrels", tmp_path / "run"


@pytest.mark.parametrize("index", [0, 1, 2, 3, 9, 17, 26, 35])
def test_ir_measures_from_trec_files(index, tmp_path):
    from sklearn_rank.cli import main
    from sklearn_rank.io import evaluate_trec

    case = _load("ir_measures")["cases"][index]
    qrels, run = _trec_files(case, tmp_path)
    trec_order = [(peer, ours, tol) for peer, ours, order, tol in _ir_measures_names(case["k"]) if order == "desc"]
    report = evaluate_trec(qrels, run, metrics=[ours for _, ours, _ in trec_order], convention="ir_measures")
    users = [int(q) for q in report.per_query["qid"]]
    for peer_name, ours, tol in trec_order:
        recorded = case["outputs"][peer_name]
        _compare(report.per_query[ours], [recorded["per_query"][u] for u in users], atol=tol, where=peer_name)
        assert report.summary[ours] == pytest.approx(recorded["mean"], rel=tol, abs=tol), peer_name
    out = tmp_path / "out.json"
    assert main(["evaluate", str(qrels), str(run), "--convention", "ir_measures", "--metrics", "map", "ndcg@3",
                 "--format", "json", "--output", str(out)]) == 0
    summary = json.loads(out.read_text())
    summary = summary.get("summary", summary)
    assert summary["map"] == pytest.approx(case["outputs"]["AP"]["mean"], rel=1e-12)


def test_catboost_err_on_grades_is_no_probability():
    """Why the preset refuses grades above 1 in ERR: CatBoost's own values leave [0, 1] there."""
    values = [v for case in _load("catboost")["cases"] for v in case["outputs"]["ERR"]["per_query"] if v is not None]
    assert max(values) > 1
