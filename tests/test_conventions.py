"""``convention=`` presets against the peers they name.

Installed peers are run directly (LightGBM, XGBoost, scikit-learn, pytrec_eval, ranx); for the others
(torchmetrics, Spark, PyKEEN, OGB, TGB) their published definitions are written out below as slow
per-query loops, independently of the engine. Each preset is one row of docs/conventions.rst.
"""

import math
import re
import warnings

import numpy as np
import pytest

import sklearn_rank as skr
from sklearn_rank._conventions import PRESETS, Default
from sklearn_rank._engine import DEFINITION_OPTIONS

SEEDS = range(4)


def letor_like(seed, n_queries=30, max_size=40, n_levels=4, n_score_values=4):
    """Graded relevance, few distinct scores (many ties), some queries without a relevant item."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    y = rng.integers(0, n_levels, size=qid.size)
    y[np.isin(qid, rng.choice(n_queries, size=4, replace=False))] = 0
    scores = rng.integers(0, n_score_values, size=qid.size).astype(np.float64)
    return y, scores, qid, sizes


# ---------------------------------------------------------------- LightGBM and XGBoost (their own eval)
def _lightgbm_recorded(y, scores, sizes, metrics, eval_at):
    lgb = pytest.importorskip("lightgbm")
    X = np.zeros((y.size, 1))  # no split is possible: the model adds one constant to the initial scores
    data = lgb.Dataset(X, y, group=sizes, init_score=scores, free_raw_data=False)
    record = {}
    lgb.train(dict(objective="lambdarank", metric=metrics, eval_at=eval_at, learning_rate=1e-10, verbose=-1),
              data, num_boost_round=1, valid_sets=[data], valid_names=["data"],
              callbacks=[lgb.record_evaluation(record)])
    return {name: values[0] for name, values in record["data"].items()}


@pytest.mark.parametrize("seed", SEEDS)
def test_lightgbm_ndcg_and_map(seed):
    y, scores, qid, sizes = letor_like(seed)
    recorded = _lightgbm_recorded(y, scores, sizes, ["ndcg", "map"], [1, 3, 5, 10])
    names = [f"{m}@{k}" for m in ("ndcg", "map") for k in (1, 3, 5, 10)]
    got = skr.evaluate(y, scores, qid=qid, metrics=names, convention="lightgbm").summary
    for name in names:
        assert got[name] == pytest.approx(recorded[name], rel=1e-12, abs=1e-15), name
    # the defaults give other numbers on this data: the preset is what makes them equal
    plain = skr.evaluate(y, scores, qid=qid, metrics=names).summary
    assert any(abs(plain[name] - recorded[name]) > 1e-6 for name in names)


def _xgboost_recorded(y, scores, sizes, objective, metrics):
    xgb = pytest.importorskip("xgboost")
    data = xgb.DMatrix(np.zeros((y.size, 1)), y, base_margin=scores)
    data.set_group(sizes)
    record = {}
    xgb.train(dict(objective=objective, eval_metric=metrics, eta=0.0), data, 1, evals=[(data, "data")],
              evals_result=record, verbose_eval=False)
    return {name: values[0] for name, values in record["data"].items()}


@pytest.mark.parametrize("seed", SEEDS)
def test_xgboost_ndcg(seed):
    y, scores, qid, sizes = letor_like(seed, max_size=60)  # longer than XGBoost's default cut of 32
    metrics = ["ndcg@1", "ndcg@3", "ndcg@10", "ndcg"]
    recorded = _xgboost_recorded(y, scores, sizes, "rank:ndcg", metrics + ["ndcg@3-"])
    got = skr.evaluate(y, scores, qid=qid, metrics=metrics, convention="xgboost").summary
    for name in metrics:
        assert got[name] == pytest.approx(recorded[name], rel=1e-12, abs=1e-15), name
    # "ndcg" without a cut-off is XGBoost's ndcg@32, and the report keeps the name as written
    assert got["ndcg"] == skr.evaluate(y, scores, qid=qid, metrics=["ndcg@32"], convention="xgboost").summary[
        "ndcg@32"]
    # XGBoost's "-" suffix scores a query without a relevant item 0: an explicit keyword beats the preset
    minus = skr.evaluate(y, scores, qid=qid, metrics=["ndcg@3"], convention="xgboost", no_relevant="zero")
    assert minus.summary["ndcg@3"] == pytest.approx(recorded["ndcg@3-"], rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_xgboost_map(seed):
    y, scores, qid, sizes = letor_like(seed, max_size=60)
    y = (y >= 2).astype(np.float64)  # XGBoost's map takes binary labels
    metrics = ["map@1", "map@3", "map@10", "map"]
    recorded = _xgboost_recorded(y, scores, sizes, "rank:map", metrics)
    got = skr.evaluate(y, scores, qid=qid, metrics=metrics, convention="xgboost").summary
    for name in metrics:
        assert got[name] == pytest.approx(recorded[name], rel=1e-12, abs=1e-15), name


# ---------------------------------------------------------------- scikit-learn
@pytest.mark.parametrize("seed", SEEDS)
def test_sklearn_ndcg_score(seed):
    from sklearn.metrics import ndcg_score

    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 3, size=(12, 8))
    y_true[:3] = 0  # rows without a relevant item score 0 in scikit-learn
    y_score = rng.integers(0, 3, size=(12, 8)).astype(float)
    for k in (None, 1, 3):
        got = skr.ndcg_score(y_true, y_score, k=k, convention="sklearn")
        assert got == pytest.approx(ndcg_score(y_true, y_score, k=k), rel=1e-12)


def test_sklearn_top_k_accuracy_recipe():
    # top_k_accuracy_score breaks ties by the highest column: reversed columns under input order
    from sklearn.metrics import top_k_accuracy_score

    rng = np.random.default_rng(0)
    y_score = rng.integers(0, 3, size=(200, 5)).astype(float)
    y = rng.integers(0, 5, size=200)
    for k in (1, 2, 3):
        expected = top_k_accuracy_score(y, y_score, k=k, labels=np.arange(5))
        got = skr.hits_at_k(y, y_score[:, ::-1], labels=np.arange(5)[::-1], k=k, ties="ordinal")
        assert got == pytest.approx(expected, rel=1e-12)


# ---------------------------------------------------------------- trec_eval (pytrec_eval)
def _runs(seed, n_queries=15):
    """TREC-style dicts and the same data as grouped rows; distinct scores (no tie order question)."""
    rng = np.random.default_rng(seed)
    qrels, run, rows = {}, {}, []
    for q in range(n_queries):
        size = int(rng.integers(1, 25))
        rels = rng.integers(0, 3, size=size)
        if q % 5 == 0:
            rels[:] = 0
        scores = rng.permutation(size) + rng.uniform(0, 0.5)
        qrels[f"q{q}"] = {f"d{i}": int(rels[i]) for i in range(size)}
        run[f"q{q}"] = {f"d{i}": float(scores[i]) for i in range(size)}
        rows += [(q, int(rels[i]), float(scores[i])) for i in range(size)]
    qid, y, s = (np.array(col) for col in zip(*rows))
    return qrels, run, y, s, qid


@pytest.mark.parametrize("seed", SEEDS)
def test_trec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run, y, s, qid = _runs(seed)
    measures = {"map", "recip_rank", "ndcg", "ndcg_cut_5", "P_5", "recall_5", "Rprec", "num_rel_ret",
                "map_cut_5"}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    ours = {"map": "map", "recip_rank": "mrr", "ndcg": "ndcg", "ndcg_cut_5": "ndcg@5", "P_5": "p@5",
            "recall_5": "r@5", "Rprec": "rprec", "num_rel_ret": "num_rel_ret", "map_cut_5": "map@5"}
    got = skr.evaluate(y, s, qid=qid, metrics=list(ours.values()), convention="trec_eval").summary
    for measure, name in ours.items():
        expected = math.fsum(per_query[q][measure] for q in per_query) / len(per_query)
        assert got[name] == pytest.approx(expected, rel=1e-12, abs=1e-15), name


# ---------------------------------------------------------------- ranx
@pytest.mark.parametrize("seed", SEEDS)
def test_ranx(seed, ranx):
    qrels, run, y, s, qid = _runs(seed)
    names = ["hits@5", "hit_rate@5", "mrr", "mrr@3", "map", "map@5", "ndcg@5", "precision@10", "recall@5",
             "r-precision", "f1@5"]
    expected = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), names)
    got = skr.evaluate(y, s, qid=qid, metrics=names, convention="ranx").summary
    for name in names:
        assert got[name] == pytest.approx(expected[name], rel=1e-9, abs=1e-12), name
    # ranx's hits@k counts the relevant items in the top k: more than 1 where several are found
    assert got["hits@5"] > got["hit_rate@5"]
    # ranx's ndcg_burges is ndcg with the exponential gain
    burges = skr.evaluate(y, s, qid=qid, metrics=["ndcg@5"], convention="ranx", gain="exponential")
    assert burges.summary["ndcg@5"] == pytest.approx(
        ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "ndcg_burges@5"), rel=1e-9)


def test_ranx_ties_in_short_lists_keep_input_order(ranx):
    qrels = {"q": {"a": 1, "c": 1}}
    run = {"q": {"a": 0.5, "b": 0.5, "c": 0.5, "d": 0.1}}
    expected = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["mrr", "map", "ndcg@2"])
    got = skr.evaluate([1, 0, 1, 0], [0.5, 0.5, 0.5, 0.1], metrics=["mrr", "map", "ndcg@2"],
                       convention="ranx").summary
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, rel=1e-12), name


# ---------------------------------------------------------------- torchmetrics (published definitions)
def _torch_query(metric, rels, scores, k):
    """torchmetrics' retrieval functions (src/torchmetrics/functional/retrieval), distinct scores."""
    order = np.argsort(-np.asarray(scores), kind="stable")
    ranked = [rels[i] > 0 for i in order]
    top = ranked[: len(ranked) if k is None else k]
    if not any(ranked):
        return 0.0  # empty_target_action="neg"
    if metric == "ap":  # mean precision over the relevant items found in the top k
        hits = [i + 1 for i, r in enumerate(top) if r]
        return sum((j + 1) / p for j, p in enumerate(hits)) / len(hits) if hits else 0.0
    if metric == "rr":
        return next((1.0 / (i + 1) for i, r in enumerate(top) if r), 0.0)
    if metric == "precision":
        return sum(top) / (len(ranked) if k is None else k)
    if metric == "recall":
        return sum(top) / sum(ranked)
    if metric == "hit_rate":
        return float(any(top))
    if metric == "ndcg":
        gains = [rels[i] for i in order]
        ideal = sorted(rels, reverse=True)
        cut = len(gains) if k is None else k
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains[:cut]))
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:cut]))
        return dcg / idcg if idcg else 0.0
    raise ValueError(metric)


@pytest.mark.parametrize("seed", SEEDS)
def test_torchmetrics(seed):
    qrels, run, y, s, qid = _runs(seed)
    ours = {("ap", 5): "map@5", ("ap", None): "map", ("rr", 3): "mrr@3", ("precision", 5): "p@5",
            ("recall", 5): "r@5", ("hit_rate", 3): "hits@3", ("ndcg", 5): "ndcg@5", ("ndcg", None): "ndcg"}
    got = skr.evaluate(y, s, qid=qid, metrics=list(ours.values()), convention="torchmetrics").summary
    for (metric, k), name in ours.items():
        values = [_torch_query(metric, y[qid == q], s[qid == q], k) for q in np.unique(qid)]
        assert got[name] == pytest.approx(math.fsum(values) / len(values), rel=1e-12, abs=1e-15), name


# ---------------------------------------------------------------- Spark's RankingMetrics (Scala source)
def _spark_query(metric, predictions, labels, k):
    """mllib RankingMetrics on one (prediction list, label set) pair."""
    if not labels:
        return 0.0
    n = len(predictions)
    if metric == "precisionAt":
        return sum(1 for p in predictions[:k] if p in labels) / k
    if metric == "recallAt":
        return sum(1 for p in predictions[:k] if p in labels) / len(labels)
    if metric in ("meanAveragePrecisionAt", "meanAveragePrecision"):
        cut = min(k, n) if metric == "meanAveragePrecisionAt" else n
        hits, total = 0, 0.0
        for i, p in enumerate(predictions[:cut]):
            if p in labels:
                hits += 1
                total += hits / (i + 1)
        return total / (min(len(labels), k) if metric == "meanAveragePrecisionAt" else len(labels))
    if metric == "ndcgAt":
        cut = min(max(n, len(labels)), k)
        dcg = sum(1 / math.log(i + 2) for i in range(min(n, cut)) if predictions[i] in labels)
        ideal = sum(1 / math.log(i + 2) for i in range(min(len(labels), cut)))
        return dcg / ideal
    raise ValueError(metric)


@pytest.mark.parametrize("seed", SEEDS)
def test_spark(seed):
    rng = np.random.default_rng(seed)
    pairs, rows, judged = [], [], ([], [])
    for q in range(20):
        predictions = [int(x) for x in rng.choice(50, size=int(rng.integers(1, 15)), replace=False)]
        labels = set(int(x) for x in rng.choice(50, size=int(rng.integers(0, 8)), replace=False))
        labels |= set(rng.choice(predictions, size=min(2, len(predictions)), replace=False).tolist()) \
            if q % 3 else set()
        pairs.append((predictions, labels))
        rows += [(q, float(p in labels), float(len(predictions) - i)) for i, p in enumerate(predictions)]
        judged[0].extend([q] * len(labels))
        judged[1].extend([1.0] * len(labels))
    qid, y, s = (np.array(col) for col in zip(*rows))
    names = {("precisionAt", 5): "p@5", ("recallAt", 5): "r@5", ("meanAveragePrecisionAt", 5): "map@5",
             ("meanAveragePrecision", None): "map", ("ndcgAt", 5): "ndcg@5", ("ndcgAt", 10): "ndcg@10"}
    # the labels missing from the predictions are judged relevant items never retrieved
    got = skr.evaluate(y, s, qid=qid, metrics=list(names.values()), convention="spark",
                       judged=(np.array(judged[0]), np.array(judged[1]))).summary
    for (metric, k), name in names.items():
        values = [_spark_query(metric, p, lab, k if k is not None else 0) for p, lab in pairs]
        assert got[name] == pytest.approx(math.fsum(values) / len(values), rel=1e-12, abs=1e-15), name


# ---------------------------------------------------------------- OGB, TGB and PyKEEN (evaluator source)
def _mid_rank(positive, negatives):
    """OGB/TGB: 0.5 * (#neg > pos + #neg >= pos) + 1; PyKEEN's realistic rank is the same."""
    optimistic = sum(1 for v in negatives if v > positive)
    pessimistic = sum(1 for v in negatives if v >= positive)
    return 0.5 * (optimistic + pessimistic) + 1


@pytest.mark.parametrize("convention", ["ogb", "tgb", "pykeen"])
def test_link_prediction_mid_ranks(convention):
    rng = np.random.default_rng(1)
    pos = rng.integers(0, 5, size=300).astype(float)
    neg = rng.integers(0, 5, size=(300, 20)).astype(float)
    ranks = [_mid_rank(p, n) for p, n in zip(pos, neg)]
    y_true, y_score = skr.positive_vs_negatives(pos, neg)
    got = skr.evaluate(y_true, y_score, metrics=["mrr", "hits@1", "hits@10", "mr"], convention=convention).summary
    assert got["mrr"] == pytest.approx(np.mean([1 / r for r in ranks]), rel=1e-12)
    assert got["hits@1"] == pytest.approx(np.mean([r <= 1 for r in ranks]), rel=1e-12)
    assert got["hits@10"] == pytest.approx(np.mean([r <= 10 for r in ranks]), rel=1e-12)
    assert got["mr"] == pytest.approx(np.mean(ranks), rel=1e-12)


def test_ogb_hits_evaluator_recipe():
    # OGB's Hits@K evaluator (ogbl-collab, -ddi, -ppa): a hit when the positive beats the K-th best
    # negative strictly, i.e. the pessimistic rank is at most K
    rng = np.random.default_rng(2)
    pos = rng.integers(0, 6, size=200).astype(float)
    neg = rng.integers(0, 6, size=(200, 30)).astype(float)
    for k in (1, 5, 10):
        kth = np.sort(neg, axis=1)[:, ::-1][:, k - 1]
        expected = np.mean(pos > kth)
        y_true, y_score = skr.positive_vs_negatives(pos, neg)
        assert skr.hits_at_k(y_true, y_score, k=k, ties="pessimistic") == pytest.approx(expected, rel=1e-12)


def test_pykeen_pools_every_true_entity_against_the_non_true_ones():
    # PyKEEN: each true tail of (h, r, ?) is ranked with the other true tails filtered out, ranks pooled
    rng = np.random.default_rng(3)
    y = (rng.random((40, 12)) < 0.2).astype(int)
    y[:, 0] = 1
    s = rng.integers(0, 4, size=(40, 12)).astype(float)
    ranks = [_mid_rank(s[i, j], s[i, y[i] == 0]) for i in range(40) for j in np.flatnonzero(y[i])]
    got = skr.evaluate(y, s, metrics=["mrr", "hits@3"], convention="pykeen").summary
    assert got["mrr"] == pytest.approx(np.mean([1 / r for r in ranks]), rel=1e-12)
    assert got["hits@3"] == pytest.approx(np.mean([r <= 3 for r in ranks]), rel=1e-12)


# ---------------------------------------------------------------- the mechanism
def test_explicit_keywords_beat_the_preset():
    y, s, qid, _ = letor_like(0)
    preset = skr.evaluate(y, s, qid=qid, metrics=["ndcg@5"], convention="lightgbm")
    assert preset.params["gain"] == "exponential" and preset.params["ties"] == "ordinal"
    mine = skr.evaluate(y, s, qid=qid, metrics=["ndcg@5"], convention="lightgbm", gain="linear",
                        ties="expected", no_relevant="skip")
    plain = skr.evaluate(y, s, qid=qid, metrics=["ndcg@5"])
    assert mine.summary == plain.summary
    assert (mine.params["gain"], mine.params["ties"]) == ("linear", "expected")
    # the written default value counts as written
    assert skr.evaluate(y, s, qid=qid, metrics=["ndcg@5"], convention="lightgbm",
                        ties="expected").params["ties"] == "expected"


def test_every_preset_resolves_and_reports_its_options():
    y, s, qid, _ = letor_like(1)
    for name, preset in PRESETS.items():
        metrics = [m for m in ("mrr", "map@5", "ndcg@5") if preset.metrics is None
                   or skr.get_metric(m).base in preset.metrics]  # a peer's own metrics only
        report = skr.evaluate(y, s, qid=qid, metrics=metrics, convention=name)
        assert report.params["convention"] == name
        for option, value in preset.options.items():
            if option in report.params:
                assert report.params[option] == value, (name, option)
            assert type(report.params.get(option, "")) is str  # no Default marker leaks out


def test_unknown_convention():
    with pytest.raises(ValueError, match=r"`convention` must be one of .*'lightgbm'.* Got 'lgbm' instead"):
        skr.evaluate([1, 0], [0.5, 0.2], metrics=["mrr"], convention="lgbm")


def test_metric_functions_keep_their_own_meaning_under_a_name_reading_preset():
    # ranx reads "hits@k" as a count; hits_at_k is still the hit rate
    y, s, qid, _ = letor_like(2)
    assert skr.hits_at_k(y, s, qid=qid, k=5, convention="ranx") == skr.evaluate(
        y, s, qid=qid, metrics=["hit_rate@5"], convention="ranx").summary["hit_rate@5"]


def test_defaults_are_plain_strings_to_the_user():
    import inspect

    default = inspect.signature(skr.ndcg_score).parameters["ties"].default
    assert isinstance(default, Default) and default == "expected" and repr(default) == "'expected'"
    import pickle

    assert isinstance(pickle.loads(pickle.dumps(default)), Default)


def test_mrr_at_k_function():
    y_score = [[0.2, 0.9, 0.1], [0.8, 0.1, 0.3], [0.1, 0.2, 0.6]]  # true column 0: ranks 2, 1, 3
    assert skr.mean_reciprocal_rank([0, 0, 0], y_score, k=2) == pytest.approx((1 / 2 + 1) / 3, rel=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert skr.mean_reciprocal_rank([0, 0, 0], y_score, k=3) == skr.mean_reciprocal_rank([0, 0, 0], y_score)


def _documented_presets():
    """{convention: (options, readings)} from the list-table of docs/conventions.rst."""
    from pathlib import Path
    import re

    text = (Path(__file__).resolve().parents[1] / "docs" / "conventions.rst").read_text(encoding="utf-8")
    section = text[text.index("Presets: ``convention=``"):text.index("What the presets cannot do")]
    rows = {}
    for row in section.split("   * - ")[2:]:  # [0]: before the table, [1]: the header
        cells = [cell.strip() for cell in row.split("\n     - ")]
        name = cells[0].strip("`")
        shared, *own = re.split(r";\s+for\s+", cells[1])  # "; for ``p`` only: ...": one metric's options
        options = dict(re.findall(r'``(\w+)="(\w+)"``', shared))
        per_metric = {re.match(r"``(\w+)``", text).group(1): dict(re.findall(r'``(\w+)="(\w+)"``', text))
                      for text in own}
        readings = dict(re.findall(r"``(\w+)(?:@k)?`` is ``([\w@().=]+?)(?:@k)?``", cells[2]))
        exceptions = {}
        for value, bases in re.findall(r'\(``"(\w+)"`` for ((?:``\w+``(?:,\s+|\s+and\s+)?)+)\)', cells[1]):
            exceptions.update({base: value for base in re.findall(r"``(\w+)``", bases)})
        # "``ties="pessimistic"`` (``auc``: ``"expected"``)": a metric ranked under another tie policy
        ties_for = dict(re.findall(r'\(``(\w+)``: ``"(\w+)"``\)', cells[1]))
        rows[name] = (options, readings, exceptions, per_metric, ties_for)
    return rows


def test_the_documented_presets_are_the_presets():
    from sklearn_rank._registry import normalise_name

    documented = _documented_presets()
    assert list(documented) == list(PRESETS)
    for name, preset in PRESETS.items():
        options, readings, exceptions, per_metric, ties_for = documented[name]
        assert options == preset.options, name
        # (the options a user can write; CatBoost's auc_labels="binary" is in the table's last column)
        public = {base: {option: value for option, value in values.items() if option in DEFINITION_OPTIONS}
                  for base, values in preset.definitions_for.items()}
        assert per_metric == {base: values for base, values in public.items() if values}, name
        assert exceptions == preset.no_relevant_for, name
        assert ties_for == preset.ties_for, name
        aliases = {}
        for written, meaning in readings.items():
            base, _, k = meaning.partition("@")
            base, _, param = base.partition("(")  # rbp(p=0.85): the peer's parameter
            if param:
                aliases[normalise_name(written)] = (normalise_name(base), int(k) if k else None,
                                                    float(param.rstrip(")").partition("=")[2]))
                continue
            aliases[normalise_name(written)] = (normalise_name(base), int(k)) if k else normalise_name(base)
        assert aliases == preset.aliases, name


# ---------------------------------------------------------------- the command line
def _cli(capsys, *args):
    """The command line in this process (tests/test_cli.py runs it in processes of its own): (exit code,
    standard output, standard error)."""
    from sklearn_rank.cli import main

    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_command_line_table_with_a_convention_matches_lightgbm(tmp_path, capsys):
    import json

    y, scores, qid, sizes = letor_like(5)
    table = tmp_path / "letor.csv"
    table.write_text("qid,score,label\n" + "".join(f"{q},{s},{r}\n" for q, s, r in zip(qid, scores, y)))
    code, out, err = _cli(capsys, "evaluate", table, "--qid", "qid", "--score", "score", "--label", "label", "-m",
                          "ndcg@3", "ndcg@10", "map@5", "--convention", "lightgbm", "--format", "json")
    assert code == 0, err
    summary = json.loads(out)["summary"]
    recorded = _lightgbm_recorded(y, scores, sizes, ["ndcg", "map"], [3, 5, 10])
    for name in ("ndcg@3", "ndcg@10", "map@5"):
        assert summary[name] == pytest.approx(recorded[name], rel=1e-12), name
    # an explicit option wins over the preset on the command line too
    code, out, err = _cli(capsys, "evaluate", table, "--qid", "qid", "--score", "score", "--label", "label", "-m",
                          "ndcg@3", "--convention", "lightgbm", "--gain", "linear", "--format", "json")
    expected = skr.evaluate(y, scores, qid=qid, metrics=["ndcg@3"], convention="lightgbm", gain="linear")
    assert json.loads(out)["summary"]["ndcg@3"] == pytest.approx(expected.summary["ndcg@3"], rel=1e-15)


def test_command_line_trec_files_with_the_ranx_convention(tmp_path, capsys, ranx):
    import json

    qrels, run, *_ = _runs(7)
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items()))
    run_path.write_text("".join(f"{q} Q0 {d} 0 {s!r} tag\n" for q, docs in run.items() for d, s in docs.items()))
    names = ["hits@5", "hit_rate@5", "map@5", "mrr@3"]
    code, out, err = _cli(capsys, "evaluate", qrels_path, run_path, "-m", *names, "--convention", "ranx", "--format",
                          "json")
    assert code == 0, err
    summary = json.loads(out)["summary"]
    expected = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), names)
    for name in names:
        assert summary[name] == pytest.approx(expected[name], rel=1e-9), name


def test_command_line_refuses_an_unknown_convention(tmp_path, capsys):
    code, out, err = _cli(capsys, "evaluate", tmp_path / "t.csv", "--convention", "lgbm")
    assert code == 2 and "--convention" in err and "lgbm" in err


# ---------------------------------------------------------------- scorers and RankingEvaluator
def test_scorer_and_evaluator_with_the_lightgbm_convention_match_lgbmrankers_own_log():
    import inspect

    lgb = pytest.importorskip("lightgbm")
    from sklearn_rank.datasets import make_ranking

    X, y, qid = make_ranking(n_queries=60, n_candidates=(3, 25), random_state=0)
    train, test = qid < 40, qid >= 40
    _, sizes_train = np.unique(qid[train], return_counts=True)
    _, sizes_test = np.unique(qid[test], return_counts=True)
    params = dict(n_estimators=5, num_leaves=4, min_child_samples=2, deterministic=True, n_jobs=1, verbose=-1)
    # LightGBM >= 4.7 takes eval_X and eval_y (eval_set is deprecated there); older versions only eval_set
    evaluation = (dict(eval_X=(X[test],), eval_y=(y[test],))
                  if "eval_X" in inspect.signature(lgb.LGBMRanker.fit).parameters else dict(eval_set=[(X[test], y[test])]))
    ranker = lgb.LGBMRanker(**params).fit(X[train], y[train], group=sizes_train, eval_group=[sizes_test], eval_at=[5],
                                          **evaluation)
    recorded = ranker.evals_result_["valid_0"]["ndcg@5"][-1]
    scorer = skr.make_ranking_scorer("ndcg@5", qid=None, convention="lightgbm")
    assert scorer(ranker, X[test], y[test], qid=qid[test]) == pytest.approx(recorded, rel=1e-12)
    evaluator = skr.RankingEvaluator(lgb.LGBMRanker(**params), metric="ndcg@5", qid=None,
                                     convention="lightgbm").fit(X[train], y[train], qid=qid[train])
    assert evaluator.score(X[test], y[test], qid=qid[test]) == pytest.approx(recorded, rel=1e-12)
    # without the preset, the same predictions score otherwise (linear gain)
    plain = skr.make_ranking_scorer("ndcg@5", qid=None)
    assert abs(plain(ranker, X[test], y[test], qid=qid[test]) - recorded) > 1e-6


def test_scorer_keeps_an_explicit_default_under_a_preset():
    y, s, qid, _ = letor_like(3)

    class Fixed:
        def predict(self, X):
            return s

    scorer = skr.make_ranking_scorer("ndcg@5", qid=None, convention="lightgbm", gain="linear")
    expected = skr.evaluate(y, s, qid=qid, metrics=["ndcg@5"], convention="lightgbm", gain="linear")
    assert scorer(Fixed(), np.zeros((y.size, 1)), y, qid=qid) == pytest.approx(expected.summary["ndcg@5"], rel=1e-15)
    assert "convention='lightgbm'" in repr(scorer) and "gain='linear'" in repr(scorer)
    with pytest.raises(ValueError, match="`convention` must be one of"):
        skr.make_ranking_scorer("ndcg@5", convention="LightGBM ranker")


def test_sklearn_binary_top_k_accuracy_recipe():
    # scikit-learn reads a 1-D score of two classes as the second class's; sklearn-rank reads 1-D input as
    # one query. The recipe: the two columns, with labels.
    from sklearn.metrics import top_k_accuracy_score

    y, p = np.array([0, 1, 1, 0]), np.array([0.9, 0.8, 0.2, 0.1])
    assert top_k_accuracy_score(y, p, k=1) == 0.5
    assert skr.hits_at_k(y, np.c_[1 - p, p], labels=[0, 1], k=1) == 0.5
    rng = np.random.default_rng(0)
    y, p = rng.integers(0, 2, size=300), rng.random(300)
    assert skr.hits_at_k(y, np.c_[1 - p, p], labels=[0, 1], k=1) == pytest.approx(
        top_k_accuracy_score(y, p, k=1), rel=1e-12)


def test_sklearn_lrap_rows_without_labels_score_one():
    from sklearn.metrics import label_ranking_average_precision_score

    rng = np.random.default_rng(4)
    y = (rng.random((50, 7)) < 0.3).astype(int)
    y[:5] = 0  # rows without a relevant label: 1 in scikit-learn
    y[5:8] = 1  # rows with every label relevant: 1 in both
    s = rng.random((50, 7))  # no ties (LRAP's tie rule matches no policy; see the conventions page)
    assert skr.mean_average_precision(y, s, no_relevant="one") == pytest.approx(
        label_ranking_average_precision_score(y, s), rel=1e-12)


def test_evaluator_options_left_at_none_take_the_preset():
    from sklearn.base import clone
    from sklearn.linear_model import Ridge

    y, s, qid, _ = letor_like(6)
    X = s[:, None]
    for options in ({}, {"gain": "linear"}, {"gain": "linear", "ties": "expected"}):
        model = skr.RankingEvaluator(Ridge(), metric="ndcg@5", qid=None, convention="lightgbm", **options)
        model = clone(model).fit(X, s, qid=qid)
        expected = skr.evaluate(y, model.predict(X), qid=qid, metrics=["ndcg@5"], convention="lightgbm", **options)
        assert model.score(X, y, qid=qid) == pytest.approx(expected.summary["ndcg@5"], rel=1e-15), options


def test_scorers_and_evaluator_read_names_as_written_under_a_preset():
    # ranx's hit_rate@k is the hit rate and its hits@k the count; every entry point reads the name as written
    from sklearn.linear_model import LinearRegression

    y = np.array([1, 1, 0, 0, 1, 0, 0, 0])
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.1, 0.9, 0.8, 0.7])
    qid = np.array([0] * 4 + [1] * 4)
    X = np.c_[qid, s]
    model = LinearRegression().fit(s[:, None], s)  # predicts s exactly
    for written in ("hit_rate@2", "success@2", "hits@2", "hits@3"):
        expected = skr.evaluate(y, s, qid=qid, metrics=[written], convention="ranx").summary[written]
        scorer = skr.make_ranking_scorer(written, qid=0, convention="ranx")
        assert scorer(model, X[:, 1:], y, qid=qid) == pytest.approx(expected, rel=1e-12), written
        multi = skr.make_multimetric_scorer([written, "mrr"], qid=0, convention="ranx")
        assert list(multi(model, X[:, 1:], y, qid=qid).values())[0] == pytest.approx(expected, rel=1e-12)
        evaluator = skr.RankingEvaluator(LinearRegression(), metric=written, qid=0, convention="ranx").fit(X, s)
        assert evaluator.score(X, y) == pytest.approx(expected, rel=1e-12), written
    counts = skr.evaluate(y, s, qid=qid, metrics=["hits@2", "hit_rate@2"], convention="ranx").summary
    assert counts == {"hits@2": 1.0, "hit_rate@2": 0.5}  # (2 + 0) / 2 relevant in the top 2; (1 + 0) / 2


@pytest.mark.parametrize("seed", SEEDS)
def test_xgboost_precision_scores_a_query_without_relevant_items_zero(seed):
    # XGBoost's pre@k: relevant in the top k / min(k, list length), 0 without a relevant item (lists >= k
    # here, where it equals p@k); nDCG and MAP score such a query 1 in the same run
    y, scores, qid, sizes = letor_like(seed, max_size=40)
    y = (y >= 2).astype(np.float64)
    keep = np.isin(qid, np.flatnonzero(sizes >= 5))
    y, scores, qid = y[keep], scores[keep], qid[keep]
    _, sizes = np.unique(qid, return_counts=True)
    recorded = _xgboost_recorded(y, scores, sizes, "rank:map", ["pre@5", "map@5", "ndcg@5"])
    got = skr.evaluate(y, scores, qid=qid, metrics=["p@5", "map@5", "ndcg@5"], convention="xgboost").summary
    assert not np.bincount(np.unique(qid, return_inverse=True)[1], weights=y).all()  # some without relevant
    for ours, theirs in (("p@5", "pre@5"), ("map@5", "map@5"), ("ndcg@5", "ndcg@5")):
        assert got[ours] == pytest.approx(recorded[theirs], rel=1e-12, abs=1e-15), ours


@pytest.mark.parametrize("name", ["ndcg-", "map-", "ndcg@5-", "map@10-"])
def test_xgboost_minus_suffix_is_refused_not_read_as_the_plain_name(name):
    # "-" is ignored inside names, so "ndcg-" read as "ndcg" would silently score such queries 1, not 0
    with pytest.raises(ValueError, match=r"no_relevant='zero'.*Got '" + re.escape(name) + "' instead"):
        skr.evaluate([0, 0, 1, 0], [0.5, 0.4, 0.3, 0.2], qid=[0, 0, 1, 1], metrics=[name], convention="xgboost")


def test_convention_names_are_read_as_metric_names_are():
    y, s, qid, _ = letor_like(0)
    expected = skr.evaluate(y, s, qid=qid, metrics=["ndcg@5"], convention="trec_eval").summary
    for spelling in ("trec-eval", "TREC_EVAL", "trec eval", "TrecEval"):
        assert skr.evaluate(y, s, qid=qid, metrics=["ndcg@5"], convention=spelling).summary == expected
    report = skr.evaluate(y, s, qid=qid, metrics=["ndcg@5"], convention="LightGBM")
    assert report.params["convention"] == "lightgbm"


def test_command_line_reads_convention_names_as_the_functions_do(tmp_path, capsys):
    import json

    y, scores, qid, _ = letor_like(1)
    table = tmp_path / "t.csv"
    table.write_text("qid,score,label\n" + "".join(f"{q},{s},{r}\n" for q, s, r in zip(qid, scores, y)))
    code, out, err = _cli(capsys, "evaluate", table, "--qid", "qid", "--score", "score", "--label", "label", "-m",
                          "ndcg@5", "--convention", "LightGBM", "--format", "json")
    assert code == 0, err
    expected = skr.evaluate(y, scores, qid=qid, metrics=["ndcg@5"], convention="lightgbm").summary["ndcg@5"]
    assert json.loads(out)["summary"]["ndcg@5"] == pytest.approx(expected, rel=1e-15)


def test_evaluate_ranks_keeps_the_registry_reading_of_names_under_a_preset():
    ranks = [1, 3, 12, 2]
    plain = skr.evaluate_ranks(ranks, metrics=["hits@10", "mrr"])
    assert skr.evaluate_ranks(ranks, metrics=["hits@10", "mrr"], convention="ranx") == plain
    got = skr.evaluate_ranks(skr.compute_ranks([0], [[1.0, 1.0, 0.0]]), metrics=["mrr"], convention="pykeen")
    assert got["mrr"] == pytest.approx(1 / 1.5, rel=1e-15)  # the preset's realistic tie policy applies


def test_bridges_refuse_data_arguments_as_options():
    pytest.importorskip("lightgbm")
    with pytest.raises(TypeError, match="unjudged"):
        skr.lightgbm_metric("bpref", unjudged=np.zeros(8, dtype=bool))


def test_spark_preset_against_spark_itself(spark):
    # Runs where pyspark and Java are installed (the spark extra); the formula test above runs everywhere.
    # `spark` is the session shared by the process's Spark tests (tests/conftest.py).
    from pyspark.mllib.evaluation import RankingMetrics

    rng = np.random.default_rng(0)
    pairs, rows, judged = [], [], ([], [])
    for q in range(60):
        predictions = [int(x) for x in rng.choice(40, size=int(rng.integers(1, 15)), replace=False)]
        labels = [int(x) for x in rng.choice(40, size=int(rng.integers(0, 8)), replace=False)]
        labels += [p for p in predictions[:2] if p not in labels] if q % 3 else []
        pairs.append((predictions, labels))
        rows += [(q, float(p in labels), float(len(predictions) - i)) for i, p in enumerate(predictions)]
        judged[0].extend([q] * len(labels))
        judged[1].extend([1.0] * len(labels))
    metrics = RankingMetrics(spark.sparkContext.parallelize(pairs, 2))
    expected = {"p@5": metrics.precisionAt(5), "r@5": metrics.recallAt(5), "map": metrics.meanAveragePrecision,
                "map@5": metrics.meanAveragePrecisionAt(5), "ndcg@5": metrics.ndcgAt(5),
                "ndcg@10": metrics.ndcgAt(10)}
    qid, y, s = (np.array(col) for col in zip(*rows))
    got = skr.evaluate(y, s, qid=qid, metrics=list(expected), convention="spark",
                       judged=(np.array(judged[0]), np.array(judged[1]))).summary
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, rel=1e-12, abs=1e-15), name
