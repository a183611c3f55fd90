"""evaluate_batches: a stream of record batches grouped by query gives the numbers of evaluate on all rows."""

import warnings

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")

import sklearn_rank as skr  # noqa: E402
from sklearn_rank import _batches, _engine  # noqa: E402

METRICS = ["mrr", "mrr@3", "map", "map@5", "ndcg", "ndcg@5", "dcg@3", "p@3", "r@5", "f1@3", "hits@1", "hits@10",
           "rprec", "auc", "bpref", "rbp", "err@5", "judged@5",
           "mr", "gmr", "hmr", "median_rank", "rank_std", "rank_mad", "count", "amri", "agmri", "zmrr", "ahits@3"]


LIST_METRICS = ["mrr", "map", "ndcg@5", "p@3", "r@5", "hits@1", "rprec", "mr", "gmr", "count", "hmr"]


def grouped_frame(seed, n_queries=40, qid_kind="int"):
    """Rows grouped by query (queries in a random order), many ties, optional columns."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, size=n_queries)
    ids = rng.permutation(np.arange(1000, 1000 + 7 * n_queries, 7))
    if qid_kind != "int":
        ids = np.array([f"q{i}" for i in ids], dtype=object)
    qid = np.repeat(ids, sizes)
    label = rng.integers(0, 4, size=qid.size) * (rng.random(qid.size) < 0.4)
    weight_of = dict(zip(ids.tolist(), rng.uniform(0.2, 3.0, size=n_queries)))
    return pd.DataFrame({
        "qid": qid,
        "score": rng.integers(0, 5, size=qid.size).astype(float),
        "label": label,
        "weight": [weight_of[q] for q in qid.tolist()],
        "excluded": (label == 0) & (rng.random(qid.size) < 0.2),
        "unjudged": (label == 0) & (rng.random(qid.size) < 0.3),
    })


def cut(n_rows, seed, max_rows=30):
    """Row slices of consecutive batches cut at random positions (empty batches included)."""
    rng = np.random.default_rng(seed)
    bounds = [0]
    while bounds[-1] < n_rows:
        bounds.append(min(n_rows, bounds[-1] + int(rng.integers(0, max_rows + 1))))
    return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]


def max_batches_per_query(qid, slices):
    batch_of_row = np.concatenate([np.full(s.stop - s.start, i) for i, s in enumerate(slices)])
    return max(np.unique(batch_of_row[qid == q]).size for q in np.unique(qid))


def as_batches(frame, slices, kind, qid_type=None):
    """The rows of ``frame`` cut into ``slices``, as record batches, tables or pandas frames.

    The Arrow ones hold arrays of their own (no offset into a larger one), as if each slice had been converted
    alone; with ``qid_type="dictionary"`` each is, so that each has a dictionary of its own ids.
    """
    whole = None
    if qid_type != "dictionary":  # one conversion (one per slice took seconds for one-row batches)
        table = pa.Table.from_pandas(frame, preserve_index=False)
        if qid_type is not None:
            table = table.set_column(0, "qid", table.column("qid").cast(qid_type))
        whole = table.combine_chunks().to_batches()[0]
    out = []
    for i, rows in enumerate(slices):
        chunk = frame.iloc[rows].reset_index(drop=True)
        choice = kind if kind != "mixed" else ("batch", "table", "pandas")[i % 3]
        if choice == "pandas":
            out.append(chunk)
            continue
        if whole is not None:
            batch = whole.take(np.arange(*rows.indices(len(frame))))
            out.append(pa.Table.from_batches([batch]) if choice == "table" else batch)
            continue
        # an empty batch: the first row's batch sliced to no row (old pyarrow builds no empty dictionary array)
        table = pa.Table.from_pandas(chunk if len(chunk) else frame.iloc[:1], preserve_index=False)
        if qid_type is not None:
            column = table.column("qid")
            column = column.dictionary_encode() if qid_type == "dictionary" else column.cast(qid_type)
            table = table.set_column(0, "qid", column)
        first = table.combine_chunks().to_batches()[0].slice(0, len(chunk))
        out.append(table.slice(0, len(chunk)) if choice == "table" else first)
    return out


def evaluate_all(frame, **options):
    """The oracle: the in-memory engine on every row at once."""
    columns = dict(qid=frame["qid"].to_numpy())
    for parameter, column in (("sample_weight", "weight"), ("exclude", "excluded"), ("unjudged", "unjudged")):
        if options.pop(parameter, None):
            columns[parameter] = frame[column].to_numpy()
    return skr.evaluate(frame["label"].to_numpy(), frame["score"].to_numpy(), **columns, **options)


def stream_options(options):
    names = {"sample_weight": "weight", "exclude": "excluded", "unjudged": "unjudged"}
    return {key: names[key] if key in names else value for key, value in options.items()}


def assert_same(got, expected):
    assert got.summary.keys() == expected.summary.keys()
    for name, value in expected.summary.items():
        assert got.summary[name] == pytest.approx(value, rel=1e-12, abs=1e-12, nan_ok=True), name
    np.testing.assert_array_equal(got.per_query["qid"], expected.per_query["qid"])
    for name, values in expected.per_query.items():
        if name != "qid":
            np.testing.assert_allclose(got.per_query[name], values, rtol=1e-12, atol=1e-12, err_msg=name)
    assert (got.n_queries, got.n_skipped, got.params) == (expected.n_queries, expected.n_skipped, expected.params)


def quietly(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", skr.UndefinedMetricWarning)
        return func(*args, **kwargs)


@pytest.mark.parametrize("part_rows", [0, 50, None])  # every batch a part / small parts merged / the default
@pytest.mark.parametrize("ties", ["expected", "realistic", "optimistic", "pessimistic", "ordinal"])
@pytest.mark.parametrize("options", [{}, {"targets": "all"}, {"no_relevant": "zero"}, {"convention": "lightgbm"},
                                     {"gain": "exponential", "relevance_level": 2},
                                     {"sample_weight": True, "exclude": True, "unjudged": True}])
def test_equal_to_evaluate_on_the_concatenated_rows(part_rows, ties, options, monkeypatch):
    if part_rows is not None:
        monkeypatch.setattr(_batches, "_PART_ROWS", part_rows)
    seed = len(options) * 10 + (part_rows or 7)
    frame = grouped_frame(seed)
    slices = cut(len(frame), seed)
    assert max_batches_per_query(frame["qid"].to_numpy(), slices) >= 3  # queries span 2, 3 and more batches
    expected = quietly(evaluate_all, frame, metrics=METRICS, ties=ties, **options)
    got = quietly(skr.evaluate_batches, as_batches(frame, slices, "mixed"), metrics=METRICS, ties=ties,
                  **stream_options(options))
    assert_same(got, expected)


@pytest.mark.parametrize("kind", ["batch", "table", "pandas"])
def test_one_row_batches(kind):
    frame = grouped_frame(3, n_queries=12)
    slices = [slice(i, i + 1) for i in range(len(frame))]
    options = {"sample_weight": True, "exclude": True, "targets": "all"}
    expected = quietly(evaluate_all, frame, metrics=METRICS, **options)
    got = quietly(skr.evaluate_batches, as_batches(frame, slices, kind), metrics=METRICS, **stream_options(options))
    assert_same(got, expected)


@pytest.mark.parametrize("qid_type", [None, "string", "large_string", "dictionary"])
def test_string_query_ids_compared_exactly_across_batches(qid_type):
    frame = grouped_frame(5, qid_kind="str")
    # ids that are prefixes of each other and differ only in case must stay apart
    frame["qid"] = frame["qid"].map({q: v for q, v in zip(frame["qid"].unique(), ["q1", "q10", "Q1", "q1 "] * 10)}
                                    ) + frame["qid"]
    arrow_type = {None: None, "string": pa.string(), "large_string": pa.large_string(),
                  "dictionary": "dictionary"}[qid_type]
    slices = cut(len(frame), 5)
    expected = evaluate_all(frame, metrics=["mrr", "map", "mr"])
    got = skr.evaluate_batches(as_batches(frame, slices, "batch", arrow_type), metrics=["mrr", "map", "mr"])
    assert_same(got, expected)
    if qid_type is None:  # pandas frames: object or pandas' string dtype
        for dtype in (object, "string"):
            batches = [chunk.astype({"qid": dtype}) for chunk in as_batches(frame, slices, "pandas")]
            assert_same(skr.evaluate_batches(batches, metrics=["mrr", "map", "mr"]), expected)
    # neighbouring ids that differ by case, a trailing space or a suffix are different queries, also when
    # one ends a batch and the other begins the next
    ids = ["q1", "q1 ", "Q1", "q10", "q1"[:1]]
    rows = pd.DataFrame({"qid": np.repeat(ids, 3), "score": np.tile([0.3, 0.2, 0.1], 5),
                         "label": [0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 0]})
    slices = [slice(0, 3), slice(3, 6), slice(6, 7), slice(7, 9), slice(9, 15)]
    got = skr.evaluate_batches(as_batches(rows, slices, "batch", arrow_type), metrics=["mrr", "map"])
    assert_same(got, evaluate_all(rows, metrics=["mrr", "map"]))
    assert sorted(got.per_query["qid"]) == sorted(ids)


def test_nan_scores_omitted_as_evaluate_does():
    frame = grouped_frame(8)
    rng = np.random.default_rng(8)
    frame.loc[(frame["label"] == 0) & (rng.random(len(frame)) < 0.3), "score"] = np.nan
    slices = cut(len(frame), 8)
    expected = evaluate_all(frame, metrics=METRICS[:12], nan_policy="omit")
    got = skr.evaluate_batches(as_batches(frame, slices, "pandas"), metrics=METRICS[:12], nan_policy="omit")
    assert_same(got, expected)
    with pytest.raises(ValueError, match="NaN"):
        skr.evaluate_batches(as_batches(frame, slices, "pandas"), metrics=["mrr"])


def test_a_part_whose_every_candidate_is_excluded(monkeypatch):
    monkeypatch.setattr(_batches, "_PART_ROWS", 0)
    frame = pd.DataFrame({"qid": [1, 1, 2, 2, 3, 3], "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
                          "label": [0, 1, 0, 0, 1, 0], "excluded": [False, False, True, True, False, False]})
    batches = [frame.iloc[:2], frame.iloc[2:4], frame.iloc[4:]]  # query 2 alone, every candidate excluded
    expected = evaluate_all(frame, metrics=["mrr", "mr"], exclude=True)
    assert_same(skr.evaluate_batches(batches, metrics=["mrr", "mr"], exclude="excluded"), expected)
    everything = frame.assign(excluded=frame["label"] == 0).iloc[2:4]
    with pytest.raises(ValueError, match="Every candidate was excluded"):
        skr.evaluate_batches([everything], exclude="excluded")


def test_parquet_file_batches_and_dataset_folder(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    ds = pytest.importorskip("pyarrow.dataset")
    frame = grouped_frame(11, n_queries=60).sort_values("qid", kind="stable").reset_index(drop=True)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table, tmp_path / "rows.parquet", row_group_size=100)
    options = {"sample_weight": True, "exclude": True}
    expected = evaluate_all(frame, metrics=LIST_METRICS, **options)
    for batch_size in (1, 7, 64, 10_000):
        batches = pq.ParquetFile(tmp_path / "rows.parquet").iter_batches(batch_size=batch_size)
        assert_same(skr.evaluate_batches(batches, metrics=LIST_METRICS, **stream_options(options)), expected)
    folder = tmp_path / "folder"
    folder.mkdir()
    for i, bounds in enumerate(cut(len(frame), 11, max_rows=300)):  # files split inside queries too
        pq.write_table(table.slice(bounds.start, bounds.stop - bounds.start), folder / f"part-{i:04d}.parquet")
    batches = ds.dataset(folder, format="parquet").to_batches(columns=["qid", "score", "label", "weight",
                                                                       "excluded"])
    assert_same(skr.evaluate_batches(batches, metrics=LIST_METRICS, **stream_options(options)), expected)
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=33))
    assert_same(skr.evaluate_batches(reader, metrics=LIST_METRICS, **stream_options(options)), expected)


def test_pandas_csv_chunks(tmp_path):
    frame = grouped_frame(12)
    frame.to_csv(tmp_path / "rows.csv", index=False)
    expected = evaluate_all(frame, metrics=["mrr", "ndcg@10", "mr"], sample_weight=True)
    chunks = pd.read_csv(tmp_path / "rows.csv", chunksize=17)
    assert_same(skr.evaluate_batches(chunks, metrics=["mrr", "ndcg@10", "mr"], sample_weight="weight"), expected)


def test_frames_that_convert_to_arrow():
    class Frame:  # what Polars offers: columns and to_arrow()
        def __init__(self, frame):
            self.frame, self.columns = frame, list(frame.columns)

        def to_arrow(self):
            return pa.Table.from_pandas(self.frame, preserve_index=False)

    frame = grouped_frame(13)
    expected = evaluate_all(frame, metrics=["mrr", "map"])
    got = skr.evaluate_batches([Frame(frame.iloc[s]) for s in cut(len(frame), 13)], metrics=["mrr", "map"])
    assert_same(got, expected)
    assert_same(skr.evaluate_batches(frame, metrics=["mrr", "map"]), expected)  # one frame is one batch
    assert_same(skr.evaluate_batches(pa.Table.from_pandas(frame), metrics=["mrr", "map"]), expected)


def batch(qid, score=None, label=None):
    n = len(qid)
    return pa.RecordBatch.from_pydict({"qid": qid, "score": score or [0.5] * n, "label": label or [1] * n})


@pytest.mark.parametrize("batches, where", [
    ([batch([1, 1, 2]), batch([2, 3]), batch([1])], "qid 1 appears again at batch 2, row 0"),
    ([batch([1, 2, 1])], "qid 1 appears again at batch 0, row 2"),
    ([batch([5, 5]), batch([5, 7, 5])], "qid 5 appears again at batch 1, row 2"),  # a carried query comes back
    ([batch([5, 5]), batch([]), batch([7]), batch([7, 5])], "qid 5 appears again at batch 3, row 1"),
    ([batch(["a", "b"]), batch(["c", "a"])], "qid 'a' appears again at batch 1, row 1"),
])
def test_a_query_that_comes_back_is_refused(batches, where):
    with pytest.raises(ValueError, match=where + r" after other queries; the rows of a query must be contiguous "
                                                 r"in the stream \(ORDER BY qid.* instead\."):
        skr.evaluate_batches(batches, metrics=["mrr"])


def test_an_unsorted_stream_from_a_shuffled_table_is_refused():
    frame = grouped_frame(21).sample(frac=1.0, random_state=0)
    with pytest.raises(ValueError, match="appears again at batch"):
        skr.evaluate_batches(as_batches(frame, cut(len(frame), 21), "batch"))


def test_bad_input():
    with pytest.raises(ValueError, match="at least one row. Got an empty stream instead"):
        skr.evaluate_batches([])
    with pytest.raises(ValueError, match="at least one row"):
        skr.evaluate_batches([batch([])])
    with pytest.raises(ValueError, match=r"batch 0: `score` must name a column .*\['qid', 'score', 'label'\]\). Got 's'"):
        skr.evaluate_batches([batch([1])], score="s")
    with pytest.raises(ValueError, match=r"`sample_weight` must name a column .* Got 'w' instead"):
        skr.evaluate_batches([pd.DataFrame({"qid": [1], "score": [1.0], "label": [1]})], sample_weight="w")
    for column in ("qid", "score", "label"):
        rows = {"qid": [1, 1], "score": [0.1, 0.2], "label": [1, 0]}
        rows[column] = [rows[column][0], None]
        # a missing score is a NaN score (refused unless nan_policy="omit"), a missing id or label refused
        rule = ("must hold numbers, not NaN or missing values.* Got NaN or a missing value instead" if column == "score"
                else "must not hold missing values.* Got a missing value instead")
        with pytest.raises(ValueError, match=f"batch 0, row 1: `{column}` column '{column}' {rule}"):
            skr.evaluate_batches([pa.RecordBatch.from_pydict(rows)])
        with pytest.raises(ValueError, match=f"`{column}` column '{column}' must not hold missing values" if
                           column != "score" else "NaN"):
            skr.evaluate_batches([pd.DataFrame(rows)])
    with pytest.raises(ValueError, match="`judged` .* not supported by evaluate_batches"):
        skr.evaluate_batches([batch([1])], judged=([1], [1]))
    with pytest.raises(TypeError, match="unexpected keyword argument 'tie'"):
        skr.evaluate_batches([batch([1])], tie="expected")
    with pytest.raises(TypeError, match="must keep one type across the stream"):
        skr.evaluate_batches([batch([1]), batch(["2"])])
    with pytest.raises(TypeError, match="must keep one type"):
        skr.evaluate_batches([pd.DataFrame({"qid": np.array([2**62], dtype=np.int64), "score": [1.0], "label": [1]}),
                              pd.DataFrame({"qid": np.array([2**63], dtype=np.uint64), "score": [1.0], "label": [1]})])
    with pytest.raises(TypeError, match="must be a column name"):
        skr.evaluate_batches([batch([1])], qid=0)
    with pytest.raises(TypeError, match="must yield pyarrow record batches"):
        skr.evaluate_batches([{"qid": [1]}])
    with pytest.raises(TypeError, match="Got int instead"):
        skr.evaluate_batches(3)
    with pytest.raises(ValueError, match="unknown|Unknown"):
        skr.evaluate_batches([batch([1])], metrics=["no_such_metric"])


@pytest.mark.parametrize("max_rows", [25, 300])  # batches smaller / larger than a part
def test_memory_is_one_batch_plus_the_carried_query(max_rows, monkeypatch):
    """Rows reach the engine while the stream is read: never more than a batch, a query and a part behind;
    a part holds about _PART_ROWS rows whatever the batches' size."""
    monkeypatch.setattr(_batches, "_PART_ROWS", 40)
    frame = grouped_frame(31, n_queries=200)
    slices = cut(len(frame), 31, max_rows=max_rows)
    largest_query = int(frame.groupby("qid").size().max())
    largest_batch = max(s.stop - s.start for s in slices)
    assert (largest_batch > 40 + largest_query) == (max_rows == 300)
    yielded = []

    def stream():
        for item in as_batches(frame, slices, "batch"):
            yielded.append(item.num_rows)
            yield item

    calls = []
    original = _engine.Plan.part

    def recording_part(self, y_true, y_score, **kwargs):
        calls.append((len(y_true), sum(yielded), len(yielded)))
        return original(self, y_true, y_score, **kwargs)

    expected = evaluate_all(frame, metrics=["mrr", "map"])
    monkeypatch.setattr(_engine.Plan, "part", recording_part)
    assert_same(skr.evaluate_batches(stream(), metrics=["mrr", "map"]), expected)
    assert sum(rows for rows, _, _ in calls) == len(frame)
    assert len(calls) > 10
    evaluated = 0
    for rows, rows_read, _ in calls:
        # a part: complete queries gathered up to _PART_ROWS rows (a batch is cut at query boundaries)
        # and a query whose rows spanned batches
        assert rows <= 40 + largest_query
        evaluated += rows
        # rows read but not yet evaluated: the pending part's rows and the carried query (and the rest of
        # the batch being cut, when batches are larger than a part)
        assert rows_read - evaluated <= 40 + largest_query + (largest_batch if max_rows == 300 else 0)
    assert [n for _, _, n in calls][:-1] == sorted(n for _, _, n in calls[:-1])  # parts come as the stream is read


def test_part_merging_keeps_few_parts_for_many_small_batches(monkeypatch):
    frame = grouped_frame(41, n_queries=300)
    calls = []
    original = _engine.Plan.part

    def recording_part(self, y_true, y_score, **kwargs):
        calls.append(len(y_true))
        return original(self, y_true, y_score, **kwargs)

    expected = evaluate_all(frame, metrics=["mrr"])
    monkeypatch.setattr(_engine.Plan, "part", recording_part)
    slices = [slice(i, i + 3) for i in range(0, len(frame), 3)]
    assert_same(skr.evaluate_batches(as_batches(frame, slices, "batch"), metrics=["mrr"]), expected)
    assert len(calls) == 1  # fewer rows than _PART_ROWS: one part


def test_integer_ids_of_different_widths_across_batches():
    first = pd.DataFrame({"qid": np.array([1, 1, 2], dtype=np.int32), "score": [0.2, 0.9, 0.5], "label": [1, 0, 0]})
    second = pd.DataFrame({"qid": np.array([2, 2**40, 2**40], dtype=np.int64), "score": [0.7, 0.1, 0.3],
                           "label": [1, 1, 0]})
    both = pd.concat([first, second], ignore_index=True)
    got = skr.evaluate_batches([first, second], metrics=["mrr", "map"])
    assert_same(got, evaluate_all(both, metrics=["mrr", "map"]))
    assert got.per_query["qid"].tolist() == [1, 2, 2**40]


def test_the_engine_checks_a_carried_query_whole():
    # the weights of query 2 differ on both sides of the batch boundary: refused, as evaluate refuses them
    first = pa.RecordBatch.from_pydict({"qid": [1, 2], "score": [0.5, 0.4], "label": [1, 0], "w": [1.0, 2.0]})
    second = pa.RecordBatch.from_pydict({"qid": [2, 3], "score": [0.3, 0.2], "label": [1, 1], "w": [3.0, 1.0]})
    with pytest.raises(ValueError, match="`sample_weight` must be constant within each query") as caught:
        skr.evaluate_batches([first, second], sample_weight="w")
    assert any("batch 0, row 0" in note for note in getattr(caught.value, "__notes__", ["batch 0, row 0"]))
    with pytest.raises(ValueError, match="`sample_weight` must be constant within each query"):
        skr.evaluate(np.array([1, 0, 1, 1]), np.array([0.5, 0.4, 0.3, 0.2]), qid=[1, 2, 2, 3],
                     sample_weight=[1.0, 2.0, 3.0, 1.0])
    with pytest.raises(ValueError, match="batch 0, row 0: `exclude` column 'x' must not exclude a relevant row"):
        skr.evaluate_batches([pd.DataFrame({"qid": [1, 1], "score": [0.1, 0.2], "label": [1, 0],
                                            "x": [True, False]})], exclude="x")


def _shuffled_parquet_folder(tmp_path, frame, n_files=3):
    """The rows in a random order (queries scattered) over several Parquet files."""
    pq = pytest.importorskip("pyarrow.parquet")
    rows = frame.sample(frac=1.0, random_state=0).reset_index(drop=True)
    folder = tmp_path / "lake"
    folder.mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(rows)), n_files)):
        pq.write_table(pa.Table.from_pandas(rows.iloc[part], preserve_index=False), folder / f"part-{i:04d}.parquet")
    return folder


def test_duckdb_recipe_order_by_qid(tmp_path):
    """The documented DuckDB recipe: ORDER BY qid over a folder whose rows are scattered, as a reader."""
    duckdb = pytest.importorskip("duckdb")
    frame = grouped_frame(51, n_queries=60)
    folder = _shuffled_parquet_folder(tmp_path, frame)
    connection = duckdb.connect()
    reader = connection.sql(f"SELECT qid, score, label FROM read_parquet('{folder}/*.parquet') ORDER BY qid"
                            ).to_arrow_reader(16)  # small batches: queries span batches
    expected = quietly(evaluate_all, frame, metrics=LIST_METRICS)
    assert_same(quietly(skr.evaluate_batches, reader, metrics=LIST_METRICS), expected)
    # without the ORDER BY the scattered rows are refused, never evaluated as split queries
    reader = connection.sql(f"SELECT qid, score, label FROM read_parquet('{folder}/*.parquet')").to_arrow_reader(16)
    with pytest.raises(ValueError, match="must be contiguous"):
        skr.evaluate_batches(reader, metrics=LIST_METRICS)


def test_polars_recipes(tmp_path):
    """The documented Polars recipes: a sorted frame in slices, and a lazy sort sunk to Parquet, streamed."""
    pl = pytest.importorskip("polars")
    pq = pytest.importorskip("pyarrow.parquet")
    frame = grouped_frame(52, n_queries=60)
    expected = quietly(evaluate_all, frame, metrics=LIST_METRICS)
    rows = pl.from_pandas(frame[["qid", "score", "label"]].sample(frac=1.0, random_state=1))
    sorted_rows = rows.sort("qid")
    assert_same(quietly(skr.evaluate_batches, sorted_rows.iter_slices(n_rows=7), metrics=LIST_METRICS), expected)
    assert_same(quietly(skr.evaluate_batches, sorted_rows, metrics=LIST_METRICS), expected)  # one batch
    folder = _shuffled_parquet_folder(tmp_path, frame)
    sorted_path = tmp_path / "sorted.parquet"
    pl.scan_parquet(str(folder / "*.parquet")).select("qid", "score", "label").sort("qid").sink_parquet(
        str(sorted_path))
    batches = pq.ParquetFile(sorted_path).iter_batches(batch_size=16)
    assert_same(quietly(skr.evaluate_batches, batches, metrics=LIST_METRICS), expected)


@pytest.mark.parametrize("types", [("int64", "float64", "int64", "bool"), ("uint32", "float32", "int8", "bool"),
                                   ("int16", "float16", "uint8", "bool")])
def test_arrow_columns_read_from_their_buffers_at_any_offset(types):
    """Batches sliced out of one batch (buffers shared, non-zero offsets) of narrow and wide types."""
    frame = grouped_frame(53, n_queries=50)
    qid_type, score_type, label_type, flag_type = types
    # NumPy arrays of each type (old pyarrow casts no float64 to float16)
    whole = pa.RecordBatch.from_pydict({
        "qid": pa.array((frame["qid"].to_numpy() - 990).astype(qid_type)),
        "score": pa.array(frame["score"].to_numpy().astype(score_type)),
        "label": pa.array(frame["label"].to_numpy().astype(label_type)),
        "excluded": pa.array(frame["excluded"].to_numpy().astype(flag_type))})
    assert [str(field.type) for field in whole.schema] == [qid_type, {"float16": "halffloat", "float32": "float",
                                                                      "float64": "double"}[score_type],
                                                           label_type, flag_type]
    slices = cut(whole.num_rows, 53, max_rows=13)
    batches = [whole.slice(s.start, s.stop - s.start) for s in slices]
    assert any(batch.column(3).offset % 8 for batch in batches)  # bit offsets inside a byte
    expected = skr.evaluate(frame["label"].to_numpy(), frame["score"].to_numpy().astype(score_type),
                            qid=frame["qid"].to_numpy() - 990, exclude=frame["excluded"].to_numpy(),
                            metrics=LIST_METRICS)
    got = skr.evaluate_batches(batches, metrics=LIST_METRICS, exclude="excluded")
    assert_same(got, expected)


@pytest.mark.parametrize("score_type", ["float64", "float32", "int64", "uint16"])
@pytest.mark.parametrize("kind", ["batch", "pandas"])
def test_null_scores_are_nan_under_omit(score_type, kind):
    """A missing score (an Arrow null, a pandas NA) is a NaN score under nan_policy="omit", as read_table and
    the command line read it; under "raise" it is refused."""
    frame = grouped_frame(54, n_queries=30)
    rng = np.random.default_rng(54)
    missing = (frame["label"].to_numpy() == 0) & (rng.random(len(frame)) < 0.3)
    scores = pa.array(frame["score"].to_numpy().astype(score_type), mask=missing)
    table = pa.table({"qid": frame["qid"].to_numpy(), "score": scores, "label": frame["label"].to_numpy()})
    batches = [table.slice(s.start, s.stop - s.start) for s in cut(len(frame), 54, max_rows=17)]
    if kind == "pandas":  # nullable pandas columns (Float64, Int64)
        nullable = "Float64" if "float" in score_type else "Int64"
        batches = [pd.DataFrame({"qid": b.column("qid").to_numpy(), "label": b.column("label").to_numpy(),
                                 "score": pd.array(b.column("score").to_pylist(), dtype=nullable)})
                   for b in batches]
    # the oracle: the missing rows removed before ranking (what NaN under "omit" means)
    expected = skr.evaluate(frame["label"].to_numpy(), frame["score"].to_numpy(), qid=frame["qid"].to_numpy(),
                            exclude=missing, metrics=LIST_METRICS)
    got = skr.evaluate_batches(batches, metrics=LIST_METRICS, nan_policy="omit")
    for name, value in expected.summary.items():
        assert got.summary[name] == pytest.approx(value, rel=1e-12), name
    with pytest.raises(ValueError, match="`score` column 'score' must hold numbers, not NaN or missing values"):
        skr.evaluate_batches(batches, metrics=LIST_METRICS)


def test_null_integer_scores_beyond_float64_are_refused_under_omit():
    scores = pa.array([2 ** 60, 2 ** 60 + 1, None, 3], type=pa.int64())
    batch = pa.RecordBatch.from_pydict({"qid": [1, 1, 1, 1], "score": scores, "label": [1, 0, 0, 0]})
    with pytest.raises(ValueError, match="2\\*\\*53"):
        skr.evaluate_batches([batch], metrics=["mrr"], nan_policy="omit")
    exact = pa.RecordBatch.from_pydict({"qid": [1, 1, 1], "score": pa.array([2 ** 60, 2 ** 60 + 1, 3]),
                                        "label": [1, 0, 0]})
    assert skr.evaluate_batches([exact], metrics=["mrr"], nan_policy="omit").summary["mrr"] == 0.5


def test_one_column_in_two_roles_is_refused():
    batch = pa.RecordBatch.from_pydict({"qid": [1, 1], "score": [0.5, 0.2], "label": [1, 0]})
    with pytest.raises(ValueError, match="`score` and `label` must name different columns: a column cannot play two roles. Got 'score' for both"):
        skr.evaluate_batches([batch], label="score")


@pytest.mark.parametrize("where", ["evaluated", "pending", "dropped"])
@pytest.mark.parametrize("qid_kind", ["int", "str"])
def test_a_query_coming_back_after_an_ascending_run_is_refused(where, qid_kind, monkeypatch):
    """A sorted stream keeps no copy of its ids; at the first id that does not ascend, the ids are read
    from the evaluated parts, the pending rows and the dropped (all-excluded) queries alike."""
    monkeypatch.setattr(_batches, "_PART_ROWS", 6 if where != "pending" else 10 ** 6)
    ids = list(range(10, 30))
    back = 12
    # with where="dropped", every candidate of query `back` is excluded (none relevant): it drops out of
    # the evaluation, but it was seen
    dropped = where == "dropped"
    rows = [(q, 1.0 if j == 0 else 0.5, int(j == 0 and not (dropped and q == back)), dropped and q == back)
            for q in ids for j in range(3)]
    rows += [(back, 0.3, 1, False), (back, 0.1, 0, False)]
    frame = pd.DataFrame(rows, columns=["qid", "score", "label", "excluded"])
    if qid_kind == "str":
        frame["qid"] = [f"q{q:03d}" for q in frame["qid"]]
    batches = [pa.RecordBatch.from_pandas(frame.iloc[i:i + 4], preserve_index=False)
               for i in range(0, len(frame), 4)]
    value = back if qid_kind == "int" else f"q{back:03d}"
    with pytest.raises(ValueError, match=f"qid {value!r} appears again"):
        skr.evaluate_batches(batches, metrics=["mrr"], exclude="excluded")


def test_contiguous_streams_that_do_not_ascend_are_accepted(monkeypatch):
    monkeypatch.setattr(_batches, "_PART_ROWS", 5)
    frame = grouped_frame(55, n_queries=40)  # queries in a random order, contiguous
    ids = frame["qid"].to_numpy()
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    assert not (np.diff(ids[starts]) > 0).all()
    expected = quietly(evaluate_all, frame, metrics=LIST_METRICS)
    got = quietly(skr.evaluate_batches, as_batches(frame, cut(len(frame), 55, max_rows=9), "batch"),
                  metrics=LIST_METRICS)
    assert_same(got, expected)


def test_a_query_coming_back_after_the_stream_stopped_ascending_is_refused(monkeypatch):
    """Ascending ids, then a new lower id (fine: queries need not be sorted), then an id of the ascending
    run again: refused."""
    monkeypatch.setattr(_batches, "_PART_ROWS", 4)
    ids = list(range(10, 30)) + [5, 12]
    frame = pd.DataFrame({"qid": np.repeat(ids, 2), "score": np.tile([0.9, 0.1], len(ids)),
                          "label": np.tile([1, 0], len(ids))})
    batches = [pa.RecordBatch.from_pandas(frame.iloc[i:i + 3], preserve_index=False) for i in range(0, len(frame), 3)]
    with pytest.raises(ValueError, match="qid 12 appears again"):
        skr.evaluate_batches(batches, metrics=["mrr"])
    frame = frame.iloc[:-2]  # without the repeat: accepted, every query counted once
    batches = [pa.RecordBatch.from_pandas(frame.iloc[i:i + 3], preserve_index=False) for i in range(0, len(frame), 3)]
    report = skr.evaluate_batches(batches, metrics=["mrr"])
    np.testing.assert_array_equal(report.per_query["qid"], sorted(ids[:-1]))


@pytest.mark.parametrize("targets", ["first", "all"])
@pytest.mark.parametrize("sorted_ids", [False, True])
def test_the_summary_is_identical_whatever_the_batch_size(targets, sorted_ids, monkeypatch):
    # Partition independence (DESIGN): streams cut at 1, 7 or 1000 rows give the same numbers, bit for
    # bit, for every metric of the registry, and those of evaluate on all rows (pooled in query-id order)
    monkeypatch.setattr(_batches, "_PART_ROWS", 50)  # small parts merged: many parts of the queries
    metrics = [name.replace("@k", "@10") for name in skr.metric_names()]
    frame = grouped_frame(21, n_queries=60)
    if sorted_ids:  # queries in ascending id order (the parts joined as they come), else in any order
        frame = frame.sort_values("qid", kind="stable", ignore_index=True)
    options = {"sample_weight": True, "exclude": True, "unjudged": True, "targets": targets}
    expected = quietly(evaluate_all, frame, metrics=metrics, **options)
    for size in (1, 7, 1000):
        slices = [slice(lo, lo + size) for lo in range(0, len(frame), size)]
        got = quietly(skr.evaluate_batches, as_batches(frame, slices, "batch"), metrics=metrics,
                      **stream_options(options))
        differ = {name: (got.summary[name], value) for name, value in expected.summary.items()
                  if not (got.summary[name] == value or (np.isnan(value) and np.isnan(got.summary[name])))}
        assert not differ, (size, differ)
        for name, values in expected.per_query.items():
            np.testing.assert_array_equal(got.per_query[name], values, err_msg=f"{name}, batches of {size}")
