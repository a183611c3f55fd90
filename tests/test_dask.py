"""sklearn_rank.dask: the same report as the in-memory engine, on a local Dask cluster.

The oracle is :func:`sklearn_rank.evaluate` on the same rows in one process (itself checked against
brute force and peers elsewhere); here the rows lie in 1, 3 or 7 partitions with the rows of each
query scattered over them. The grid-search tests run scikit-learn's searches under joblib's dask
backend and compare every entry of ``cv_results_`` with the default backend.
"""

import sys
import warnings

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import sklearn_rank as skr  # noqa: E402
import sklearn_rank.dask as skd  # noqa: E402

METRICS = ["mrr", "map", "ndcg@5", "p@3", "r@5", "hits@1", "auc", "bpref", "judged@5", "mr", "gmr", "rank_std",
           "amri", "zmrr", "ahits@3", "count"]


# The `client` fixture (tests/conftest.py): a client of one LocalCluster per process, two worker processes.


def rows(seed, *, string_qid=False, n_queries=30):
    """A frame of (query, candidate) rows: many ties, queries without a relevant item, rows shuffled."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, size=n_queries)
    ids = rng.permutation(np.arange(100, 100 + 3 * n_queries, 3))
    qid = np.repeat(ids, sizes)
    label = rng.integers(0, 4, size=qid.size) * (rng.random(qid.size) < 0.4)
    label[qid == ids[0]] = 0  # at least one query without a relevant item
    score = rng.integers(0, 4, size=qid.size).astype(float)  # many ties
    weight_of = dict(zip(ids, rng.uniform(0.2, 3.0, size=n_queries)))
    frame = pd.DataFrame({
        "query": np.array([f"q{q}" for q in qid], dtype=object) if string_qid else qid,
        "score": score,
        "label": label,
        "weight": [weight_of[q] for q in qid],
        "excluded": (label == 0) & (rng.random(qid.size) < 0.2),
        "unjudged": (label == 0) & (rng.random(qid.size) < 0.3),
    })
    return frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)  # rows of a query scattered


def in_memory(frame, **kwargs):
    columns = {"sample_weight": "weight", "exclude": "excluded", "unjudged": "unjudged"}
    arrays = {name: frame[column].to_numpy() for name, column in columns.items() if kwargs.pop(name, False)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", skr.UndefinedMetricWarning)
        return skr.evaluate(frame["label"].to_numpy(), frame["score"].to_numpy(), qid=frame["query"].to_numpy(),
                            **arrays, **kwargs)


def on_dask(ddf, **kwargs):
    for name, column in {"sample_weight": "weight", "exclude": "excluded", "unjudged": "unjudged"}.items():
        if kwargs.pop(name, False):
            kwargs[name] = column
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", skr.UndefinedMetricWarning)
        return skd.evaluate(ddf, qid="query", **kwargs)


def assert_same(got, expected):
    assert list(got.summary) == list(expected.summary)
    for name, value in expected.summary.items():
        assert got.summary[name] == pytest.approx(value, rel=1e-12, abs=1e-12, nan_ok=True), name
    np.testing.assert_array_equal(got.per_query["qid"], expected.per_query["qid"])
    for name, values in expected.per_query.items():
        if name == "qid":
            continue
        np.testing.assert_allclose(got.per_query[name], values, rtol=1e-12, atol=1e-12, err_msg=name)
    assert (got.n_queries, got.n_skipped, got.params) == (expected.n_queries, expected.n_skipped, expected.params)


CASES = {
    "default": {},
    "weights-exclude-unjudged": {"sample_weight": True, "exclude": True, "unjudged": True},
    "realistic-all-targets": {"ties": "realistic", "targets": "all"},
    "exponential-zero": {"gain": "exponential", "no_relevant": "zero", "relevance_level": 2},
    "ordinal": {"ties": "ordinal", "sample_weight": True},
    "convention-lightgbm": {"convention": "lightgbm"},
}


# one partition, and several (3 partitions run the code of 7: they are in
# test_the_summary_is_identical_whatever_the_partitioning, with weights, exclusions and unjudged rows)
@pytest.mark.parametrize("npartitions", [1, 7])
@pytest.mark.parametrize("string_qid", [False, True], ids=["int-qid", "str-qid"])
@pytest.mark.parametrize("case", list(CASES))
def test_equal_to_the_in_memory_engine(client, npartitions, string_qid, case):
    options = CASES[case]
    frame = rows(npartitions + 10 * len(case), string_qid=string_qid)
    ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    assert ddf.npartitions == npartitions
    # the rows of (almost) every query lie in several input partitions: the shuffle brings them together
    # (the input partitions read here, in this process: a round trip to the cluster cost 0.3 s)
    if npartitions > 1:
        spread = ddf.map_partitions(lambda part: part["query"].drop_duplicates()).compute(scheduler="sync")
        assert spread.duplicated().sum() > 5
    assert_same(on_dask(ddf, metrics=METRICS, **options), in_memory(frame, metrics=METRICS, **options))


@pytest.mark.parametrize("shuffle_method", ["tasks", "p2p", "disk"])
def test_ordinal_ties_follow_the_frames_row_order(client, shuffle_method):
    # Every score is tied: under ties="ordinal" only the row order decides, and the shuffle must not change
    # it (the disk shuffle does not keep the rows of a partition in their order).
    import dask

    frame = rows(5, n_queries=60)
    frame["score"] = 0.0
    ddf = dd.from_pandas(frame, npartitions=7, sort=False)
    with dask.config.set({"dataframe.shuffle.method": shuffle_method}):
        got = on_dask(ddf, metrics=["mrr", "map"], ties="ordinal")
    assert_same(got, in_memory(frame, metrics=["mrr", "map"], ties="ordinal"))
    reversed_rows = frame.iloc[::-1]
    assert in_memory(reversed_rows, metrics=["mrr"], ties="ordinal").summary["mrr"] != got.summary["mrr"]


def test_a_qid_index_with_known_divisions_needs_no_shuffle(client):
    frame = rows(7)
    ddf = dd.from_pandas(frame, npartitions=4, sort=False).set_index("query")
    assert ddf.known_divisions and ddf.npartitions > 1
    expected = in_memory(frame, metrics=METRICS, sample_weight=True)
    assert_same(on_dask(ddf, metrics=METRICS, sample_weight=True), expected)
    # the same frame with unknown divisions is shuffled on its index
    assert_same(on_dask(ddf.clear_divisions(), metrics=METRICS, sample_weight=True), expected)
    # a frame that is partitioned by query but does not say so
    assert_same(on_dask(ddf.reset_index(), metrics=METRICS, sample_weight=True, partitioned_by_qid=True), expected)


def test_a_frame_wrongly_declared_partitioned_by_qid_is_refused(client):
    # Without the shuffle each partition would see parts of queries: silently wrong values. Refused instead.
    frame = rows(8)
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    with pytest.raises(ValueError, match=r"Every query must lie in one part .*partitioned_by_qid=False shuffles"):
        on_dask(ddf, metrics=["mrr"], partitioned_by_qid=True)
    # and the naive map_partitions route is indeed wrong on this frame
    naive = [skr.evaluate(p["label"].to_numpy(), p["score"].to_numpy(), qid=p["query"].to_numpy(), metrics=["mrr"])
             for p in (ddf.get_partition(i).compute(scheduler="sync") for i in range(3))]
    assert np.concatenate([r.per_query["qid"] for r in naive]).size > in_memory(frame, metrics=["mrr"]).n_queries


def test_nullable_and_arrow_columns_read_as_their_numbers(client):
    frame = rows(12, string_qid=True)
    typed = frame.astype({"label": "Int64", "score": "Float64", "excluded": "boolean", "query": "string[pyarrow]",
                          "weight": "float64[pyarrow]"})
    ddf = dd.from_pandas(typed, npartitions=3, sort=False)
    assert_same(on_dask(ddf, metrics=METRICS, exclude=True, sample_weight=True),
                in_memory(frame, metrics=METRICS, exclude=True, sample_weight=True))


def test_empty_partitions_are_skipped(client):
    frame = rows(9, n_queries=3)
    ddf = dd.from_pandas(frame, npartitions=1, sort=False).repartition(npartitions=1)
    many = dd.from_pandas(frame, npartitions=1, sort=False).shuffle("query", npartitions=12)
    assert (many.map_partitions(len).compute() == 0).any()
    expected = in_memory(frame, metrics=METRICS)
    assert_same(on_dask(ddf, metrics=METRICS), expected)
    assert_same(on_dask(many, metrics=METRICS), expected)


def test_skipped_queries_and_global_checks(client):
    frame = rows(11)
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    report = on_dask(ddf, metrics=["mrr"])
    assert report.n_skipped == in_memory(frame, metrics=["mrr"]).n_skipped > 0
    with pytest.raises(ValueError, match="no_relevant='error'"):
        on_dask(ddf, metrics=["mrr"], no_relevant="error")
    with pytest.raises(ValueError, match="No query has a relevant item"):
        on_dask(dd.from_pandas(frame.assign(label=0), npartitions=3, sort=False), metrics=["mrr"])


@pytest.mark.parametrize("parameter, value", [("qid", "nope"), ("score", "Score"), ("label", "y"),
                                              ("sample_weight", "w"), ("exclude", "mask"), ("unjudged", "a")])
def test_a_missing_column_is_named(parameter, value):
    ddf = dd.from_pandas(rows(1), npartitions=2, sort=False)
    kwargs = {"qid": "query", parameter: value}
    with pytest.raises(ValueError, match=rf"`{parameter}` must name a column of `ddf` \(its columns: \['query', "
                                         rf"'score'.*\]\)\. Got .* instead\."):
        skd.evaluate(ddf, **kwargs)
    # a value that is not a column name at all (as evaluate_batches and spark.evaluate say)
    with pytest.raises(TypeError, match=rf"`{parameter}` must be a column name \(str\). Got list instead."):
        skd.evaluate(ddf, **{**kwargs, parameter: ["a"]})


def test_bad_calls_are_refused():
    ddf = dd.from_pandas(rows(1), npartitions=2, sort=False)
    with pytest.raises(TypeError, match="`ddf` must be a dask.dataframe.DataFrame. Got DataFrame instead."):
        skd.evaluate(rows(1), qid="query")
    with pytest.raises(ValueError, match=r"`judged` .* not supported .* Got judged= instead\."):
        skd.evaluate(ddf, qid="query", judged=([1], [1]))
    with pytest.raises(ValueError, match=r"`missing` .* Got missing= instead\."):
        skd.evaluate(ddf, qid="query", missing="zero")
    with pytest.raises(TypeError, match=r"takes the options .* Got \['k'\] instead\."):
        skd.evaluate(ddf, qid="query", k=3)
    with pytest.raises(ValueError, match=r"`per_query` must be 'pandas' .* Got 'dask' instead\."):
        skd.evaluate(ddf, qid="query", per_query="dask")
    with pytest.raises(ValueError, match=r"`partitioned_by_qid` must be None, True or False\. Got 'yes' instead\."):
        skd.evaluate(ddf, qid="query", partitioned_by_qid="yes")
    with pytest.raises(ValueError, match="must name different columns"):
        skd.evaluate(ddf, qid="query", label="score")
    with pytest.raises(ValueError, match="`ties` must be one of"):  # checked before any data is read
        skd.evaluate(ddf, qid="query", ties="random")


def test_engine_errors_come_from_the_partitions(client):
    frame = rows(2)
    frame.loc[0, "weight"] += 1.0  # the weight of a query is no longer constant
    with pytest.raises(ValueError, match="sample_weight"):
        skd.evaluate(dd.from_pandas(frame, npartitions=3, sort=False), qid="query", sample_weight="weight")


def test_missing_dask_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)
    with pytest.raises(ImportError, match=r'pip install "sklearn-rank\[dask\]"'):
        skd.evaluate(None)


# `import sklearn_rank` loads neither this module nor Dask: tests/test_cli.py checks it in the fresh interpreter of
# its import checks.


# --------------------------------------------------------------------------------------------
# Grid search with joblib's dask backend
# --------------------------------------------------------------------------------------------
def _search_data():
    from sklearn_rank.datasets import make_ranking

    X, y, qid = make_ranking(n_queries=30, n_candidates=8, n_features=5, noise=3.0, random_state=0)
    return X, y, qid


def _search(name):
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV, GroupKFold

    alphas = [0.01, 30.0, 3000.0]
    if name == "scorer":
        return GridSearchCV(Ridge(), {"alpha": alphas}, scoring=skr.make_ranking_scorer("mrr"), cv=GroupKFold(3))
    if name == "multimetric":
        return GridSearchCV(Ridge(), {"alpha": alphas}, scoring=skr.make_multimetric_scorer(["ndcg@5", "map"]),
                            cv=GroupKFold(3), refit="map")
    return GridSearchCV(skr.RankingEvaluator(Ridge(), metric="ndcg@5", qid=None), {"estimator__alpha": alphas},
                        cv=GroupKFold(3))


@pytest.mark.parametrize("name", ["scorer", "multimetric", "evaluator"])
def test_grid_search_under_the_dask_backend_equals_the_default_backend(client, name):
    import joblib
    from sklearn import config_context

    X, y, qid = _search_data()
    with config_context(enable_metadata_routing=True):  # qid reaches the scorer on the workers by routing
        default = _search(name).fit(X, y, groups=qid, qid=qid)
        with joblib.parallel_config(backend="dask"):
            distributed_search = _search(name).set_params(n_jobs=2).fit(X, y, groups=qid, qid=qid)
    assert default.cv_results_.keys() == distributed_search.cv_results_.keys()
    for key, expected in default.cv_results_.items():
        if "time" in key:
            continue
        if key == "params":
            assert distributed_search.cv_results_[key] == expected
        else:
            np.testing.assert_allclose(np.asarray(distributed_search.cv_results_[key], dtype=float),
                                       np.asarray(expected, dtype=float), rtol=0, atol=1e-12, err_msg=key)
    assert np.unique(np.round(default.cv_results_[next(k for k in default.cv_results_ if k.startswith("mean_test"))],
                              10)).size > 1  # the candidates were told apart


def _routing_flag():
    import sklearn

    return sklearn.get_config()["enable_metadata_routing"]


def test_routing_config_reaches_workers_only_through_sklearns_delayed(client):
    # What the docs warn about: joblib.delayed does not carry scikit-learn's configuration to a dask
    # worker; sklearn.utils.parallel.delayed (which scikit-learn's own searches use) does.
    import joblib
    from sklearn import config_context
    from sklearn.utils.parallel import Parallel, delayed

    with config_context(enable_metadata_routing=True), joblib.parallel_config(backend="dask"):
        through_sklearn = Parallel(n_jobs=2)(delayed(_routing_flag)() for _ in range(2))
        through_joblib = joblib.Parallel(n_jobs=2)(joblib.delayed(_routing_flag)() for _ in range(2))
    assert through_sklearn == [True, True]
    assert through_joblib == [False, False]


def test_a_partition_whose_candidates_are_all_excluded_drops_out(client):
    frame = rows(14)
    gone = frame["query"] % 2 == 0
    frame.loc[gone, "excluded"] = True  # every candidate of some queries (none of them relevant)
    frame.loc[gone, "label"] = 0
    expected = in_memory(frame, metrics=METRICS, exclude=True)
    ddf = dd.from_pandas(frame.sort_values("query").set_index("query", drop=False).rename_axis(None),
                         npartitions=7)
    assert_same(on_dask(ddf, metrics=METRICS, exclude=True), expected)
    assert_same(on_dask(dd.from_pandas(frame, npartitions=7), metrics=METRICS, exclude=True), expected)
    with pytest.raises(ValueError, match="Every candidate was excluded"):
        on_dask(dd.from_pandas(frame.assign(excluded=True, label=0), npartitions=3), exclude=True)


ALL_METRICS = [name.replace("@k", "@10") for name in skr.metric_names()]


@pytest.mark.parametrize("targets", ["first", "all"])
def test_the_summary_is_identical_whatever_the_partitioning(client, targets):
    # Partition independence (DESIGN): 1, 3 or 7 partitions give the in-memory numbers bit for bit, every
    # metric of the registry (the pooled rank tables were joined in partition order: the adjusted metrics,
    # which amplify rounding by 1 / (1 - e), differed by up to 5e-12)
    frame = rows(5, n_queries=300)
    options = {"sample_weight": True, "exclude": True, "unjudged": True, "targets": targets}
    expected = in_memory(frame, metrics=ALL_METRICS, **options)
    for npartitions in (1, 3, 7):
        got = on_dask(dd.from_pandas(frame, npartitions=npartitions, sort=False), metrics=ALL_METRICS, **options)
        differ = {name: (got.summary[name], value) for name, value in expected.summary.items()
                  if not (got.summary[name] == value or (np.isnan(value) and np.isnan(got.summary[name])))}
        assert not differ, (npartitions, differ)
        for name, values in expected.per_query.items():
            np.testing.assert_array_equal(got.per_query[name], values, err_msg=f"{name}, {npartitions} partitions")


@pytest.mark.parametrize("ties", ["expected", "ordinal"])
def test_a_nan_score_is_located_by_query_id_not_by_a_partition_row(client, ties):
    # a row number within a shuffled partition means nothing to the user ("row 2 / 39 / 59" on different
    # runs for the frame's row 5): the query id does, and the frame's own row where it is carried (ordinal)
    frame = rows(4)
    frame.loc[5, "score"] = np.nan
    named = frame["query"].tolist()[5]
    for npartitions in (1, 3):
        ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
        with pytest.raises(ValueError, match="must hold numbers, not NaN") as info:
            on_dask(ddf, metrics=["mrr"], ties=ties)
        message = str(info.value)
        assert "row 5 (" not in message, message
        if ties == "ordinal":
            assert message.startswith(f"qid {named!r}, row 5 of `ddf`: `score` column 'score'"), message
        else:
            assert message.startswith(f"qid {named!r}: `score` column 'score'"), message
