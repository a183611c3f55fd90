"""trec_eval's own regression files (../shared/conformance/trec_eval) through sklearn_rank.io."""

from pathlib import Path

import pytest

from sklearn_rank.io import evaluate_trec, read_qrels, read_run

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "trec_eval"
pytestmark = pytest.mark.skipif(
    not (CONFORMANCE / "qrels.test").exists(),
    reason=f"trec_eval conformance data not found at {CONFORMANCE} (it lives in the project's shared/ folder)",
)

# trec_eval measure -> sklearn-rank metric name
MEASURES = {
    "map": "map", "recip_rank": "mrr", "ndcg": "ndcg", "ndcg_cut_10": "ndcg@10", "ndcg_cut_20": "ndcg@20",
    "P_5": "p@5", "P_10": "p@10", "P_20": "p@20", "recall_5": "r@5", "recall_10": "r@10",
    "recall_100": "r@100", "Rprec": "rprec", "success_1": "hits@1", "success_5": "hits@5",
    "success_10": "hits@10", "map_cut_10": "map@10", "map_cut_100": "map@100",
}


def _expected(name):
    table = {}
    for line in (CONFORMANCE / name).read_text().splitlines():
        measure, topic, value = line.split()
        if measure in MEASURES:
            table[(measure, topic)] = float(value)
    return table


def _check(report, expected):
    checked = 0
    qids = report.per_query["qid"].tolist()
    for (measure, topic), value in expected.items():
        name = MEASURES[measure]
        got = report.summary[name] if topic == "all" else report.per_query[name][qids.index(topic)]
        # trec_eval prints 4 decimals
        assert got == pytest.approx(value, abs=5e-5), (measure, topic, got, value)
        checked += 1
    return checked


def test_default_run_matches_out_test_and_per_topic():
    report = evaluate_trec(CONFORMANCE / "qrels.test", CONFORMANCE / "results.test", metrics=list(MEASURES.values()))
    assert _check(report, _expected("out.test.a")) >= 15
    assert _check(report, _expected("out.test.aq")) >= 60
    assert _check(report, _expected("out.test")) >= 4


def test_truncated_run_with_missing_topic_counted_as_zero():
    report = evaluate_trec(CONFORMANCE / "qrels.test", CONFORMANCE / "results.trunc",
                           metrics=list(MEASURES.values()), missing="zero")
    assert _check(report, _expected("out.test.aqc")) >= 60


def test_relevance_level():
    report = evaluate_trec(CONFORMANCE / "qrels.rel_level", CONFORMANCE / "results.test",
                           metrics=list(MEASURES.values()), relevance_level=2)
    assert _check(report, _expected("out.test.aql")) >= 60


def test_readers_on_regression_files():
    qrels = read_qrels(CONFORMANCE / "qrels.test")
    run = read_run(CONFORMANCE / "results.test")
    assert len(run) == 1500 and run.name == "STANDARD"
    assert set(qrels.qid.tolist()) == {"301", "302", "303"}
    trunc = read_run(CONFORMANCE / "results.trunc")  # extra trailing columns are tolerated
    assert "302" not in set(trunc.qid.tolist())
