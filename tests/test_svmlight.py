"""SVMlight / LETOR ranking files: load_svmlight_ranking and dump_svmlight_ranking.

Oracles: the arrays written (round trips), scikit-learn's own SVMlight reader, LightGBM's and XGBoost's
readers of the same files, and group sizes counted in the tests with np.unique.
"""

import bz2
import gzip
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

import sklearn_rank.datasets
import sklearn_rank.io
from sklearn_rank.datasets import dump_svmlight_ranking, load_svmlight_ranking, make_ranking


def ranking_data(seed=0, n_queries=12, n_features=7):
    """Graded relevance, contiguous integer query ids (not 0..n-1), sparse-ish float64 features with
    values that need 17 significant digits."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=n_queries)
    qid = np.repeat(rng.choice(np.arange(100, 1000), size=n_queries, replace=False), sizes)
    n_rows = qid.size
    X = rng.standard_normal((n_rows, n_features))
    X[rng.random(X.shape) < 0.4] = 0.0
    X[0, 0] = 0.1 + 0.2  # 0.30000000000000004: "%.16g" would write 0.3
    X[:, -1] = rng.standard_normal(n_rows)  # the last column has values: n_features is read back whole
    y = rng.integers(0, 5, size=n_rows).astype(np.float64)
    return X, y, qid, sizes


def write(path, text):
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


# ------------------------------------------------------------------------------------------------
# Round trips
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sparse_input", [False, True])
@pytest.mark.parametrize("zero_based", [False, True])
def test_round_trip_qid_tokens(tmp_path, sparse_input, zero_based):
    X, y, qid, _ = ranking_data()
    path = tmp_path / "train.txt"
    dump_svmlight_ranking(sp.csr_matrix(X) if sparse_input else X, y, qid, path, zero_based=zero_based)
    X_read, y_read, qid_read = load_svmlight_ranking(path, zero_based=zero_based)
    assert sp.issparse(X_read) and X_read.format == "csr"
    np.testing.assert_array_equal(X_read.toarray(), X)  # exact, 17-digit values included
    np.testing.assert_array_equal(y_read, y)
    np.testing.assert_array_equal(qid_read, qid)
    assert y_read.dtype == np.float64 and qid_read.dtype == np.int64
    # scikit-learn's reader alone reads the same file the same way
    X_sk, y_sk, qid_sk = load_svmlight_file(str(path), query_id=True, zero_based=zero_based)
    np.testing.assert_array_equal(X_sk.toarray(), X)
    np.testing.assert_array_equal(y_sk, y)
    np.testing.assert_array_equal(qid_sk, qid)


@pytest.mark.parametrize("sparse_input", [False, True])
def test_round_trip_query_sidecar(tmp_path, sparse_input):
    X, y, qid, sizes = ranking_data(seed=1)
    path = tmp_path / "train.txt"
    dump_svmlight_ranking(sp.csr_matrix(X) if sparse_input else X, y, qid, path, query_file=True)
    assert "qid:" not in path.read_text()
    assert (tmp_path / "train.txt.query").read_text().split() == [str(size) for size in sizes]
    X_read, y_read, qid_read = load_svmlight_ranking(path, dense=True)
    assert isinstance(X_read, np.ndarray)
    np.testing.assert_array_equal(X_read, X)
    np.testing.assert_array_equal(y_read, y)
    np.testing.assert_array_equal(qid_read, np.repeat(np.arange(sizes.size), sizes))


def test_round_trip_float32_int_and_bool_inputs(tmp_path):
    rng = np.random.default_rng(3)
    X32 = rng.standard_normal((20, 4)).astype(np.float32)
    y = rng.integers(0, 3, size=20)
    qid = np.repeat(np.arange(4, dtype=np.uint32), 5)
    path = tmp_path / "f32.txt"
    dump_svmlight_ranking(X32, y, qid, path)
    X_read, y_read, qid_read = load_svmlight_ranking(path, dtype=np.float32, dense=True)
    np.testing.assert_array_equal(X_read, X32)  # float32 values, read back as float32 exactly
    X64 = load_svmlight_ranking(path, dense=True)[0]
    np.testing.assert_array_equal(X64, X32.astype(np.float64))  # and as float64: the same numbers
    np.testing.assert_array_equal(y_read, y)
    assert path.read_text().split("\n")[0].split()[0] == str(y[0])  # integer labels written as integers
    dump_svmlight_ranking(np.array([[True, False], [False, True]]), [1, 0], [5, 5], path)
    assert path.read_text() == "1 qid:5 1:1\n0 qid:5 2:1\n"


def test_sidecar_at_a_chosen_path_and_many_chunks(tmp_path, monkeypatch):
    from sklearn_rank.io import _svmlight

    monkeypatch.setattr(_svmlight, "_ROWS_PER_CHUNK", 7)  # several chunks, rows without features between
    X, y, qid, sizes = ranking_data(seed=2, n_queries=9)
    X[5:9] = 0.0
    path, groups = tmp_path / "data.svm", tmp_path / "sizes.txt"
    dump_svmlight_ranking(X, y, qid, path, query_file=groups)
    assert not (tmp_path / "data.svm.query").exists()
    X_read, y_read, qid_read = load_svmlight_ranking(path, query_file=groups, n_features=X.shape[1])
    np.testing.assert_array_equal(X_read.toarray(), X)
    np.testing.assert_array_equal(y_read, y)
    np.testing.assert_array_equal(np.unique(qid_read, return_counts=True)[1], sizes)


def test_writer_leaves_its_inputs_alone(tmp_path):
    # A CSR matrix with unsorted indices, a duplicate entry and an explicit zero.
    X = sp.csr_matrix((np.array([2.0, 1.0, 0.0, 0.5, 0.25]), np.array([1, 0, 2, 1, 1]), np.array([0, 3, 5])),
                      shape=(2, 3))
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    y, qid = np.array([1.0, 0.0]), np.array([3, 3])
    dump_svmlight_ranking(X, y, qid, tmp_path / "f.txt")
    for now, then in zip((X.data, X.indices, X.indptr), before):
        np.testing.assert_array_equal(now, then)
    assert (tmp_path / "f.txt").read_text() == "1 qid:3 1:1 2:2\n0 qid:3 2:0.75\n"


def test_compressed_files(tmp_path):
    X, y, qid, sizes = ranking_data(seed=4)
    path = tmp_path / "plain.txt"
    dump_svmlight_ranking(X, y, qid, path, query_file=True)
    content = path.read_bytes()
    for suffix, compress in ((".gz", gzip.compress), (".bz2", bz2.compress)):
        packed = tmp_path / ("packed.txt" + suffix)
        packed.write_bytes(compress(b"\xef\xbb\xbf" + content))
        (tmp_path / ("packed.txt" + suffix + ".query")).write_bytes((tmp_path / "plain.txt.query").read_bytes())
        X_read, y_read, qid_read = load_svmlight_ranking(packed, dense=True)
        np.testing.assert_array_equal(X_read, X)
        np.testing.assert_array_equal(qid_read, np.repeat(np.arange(sizes.size), sizes))


# ------------------------------------------------------------------------------------------------
# Sidecars
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("suffix", [".query", ".group"])
def test_sidecar_found_automatically(tmp_path, suffix):
    path = write(tmp_path / "train.txt", "2 1:0.5\n0 2:0.2\n1 1:0.9\n1 2:1\n")
    write(tmp_path / ("train.txt" + suffix), "1\n3\n")
    _, _, qid = load_svmlight_ranking(path)
    np.testing.assert_array_equal(qid, [0, 1, 1, 1])
    # Not found under another name
    with pytest.raises(ValueError, match="has no query ids"):
        load_svmlight_ranking(write(tmp_path / "other.txt", "2 1:0.5\n"))


def test_sidecar_lines_blank_lines_crlf_and_bom(tmp_path):
    path = write(tmp_path / "train.txt", "2 1:0.5\n0 2:0.2\n1 1:0.9\n")
    write(tmp_path / "train.txt.query", b"\xef\xbb\xbf 2 \r\n\r\n1\r\n\n")
    np.testing.assert_array_equal(load_svmlight_ranking(path)[2], [0, 0, 1])


def test_both_sidecars_that_agree_are_fine(tmp_path):
    path = write(tmp_path / "train.txt", "2 1:0.5\n0 2:0.2\n1 1:0.9\n")
    write(tmp_path / "train.txt.query", "2\n1\n")
    write(tmp_path / "train.txt.group", "2\n\n1")
    np.testing.assert_array_equal(load_svmlight_ranking(path)[2], [0, 0, 1])


def test_tokens_and_sidecar_that_agree_give_the_tokens(tmp_path):
    path = write(tmp_path / "train.txt", "2 qid:8 1:0.5\n0 qid:8 2:0.2\n1 qid:3 1:0.9\n")
    write(tmp_path / "train.txt.group", "2\n1\n")
    np.testing.assert_array_equal(load_svmlight_ranking(path)[2], [8, 8, 3])


def test_query_file_false_ignores_sidecars(tmp_path):
    path = write(tmp_path / "train.txt", "2 qid:8 1:0.5\n0 qid:8 2:0.2\n1 qid:3 1:0.9\n")
    write(tmp_path / "train.txt.query", "1\n2\n")  # stale: disagrees with the tokens
    with pytest.raises(ValueError, match="must group the rows alike"):
        load_svmlight_ranking(path)
    np.testing.assert_array_equal(load_svmlight_ranking(path, query_file=False)[2], [8, 8, 3])


# ------------------------------------------------------------------------------------------------
# Peers: LightGBM and XGBoost read the same files into the same groups
# ------------------------------------------------------------------------------------------------

def test_groups_equal_lightgbm_reading_the_query_sidecar(tmp_path):
    lightgbm = pytest.importorskip("lightgbm")
    X, y, qid, sizes = ranking_data(seed=5, n_queries=25)
    path = tmp_path / "train.txt"
    dump_svmlight_ranking(X, y, qid, path, query_file=True, zero_based=True)
    with (tmp_path / "train.txt.query").open("a") as handle:
        handle.write("\n")  # a trailing blank line, which LightGBM skips too
    dataset = lightgbm.Dataset(str(path), params={"verbose": -1}).construct()
    _, y_read, qid_read = load_svmlight_ranking(path)
    np.testing.assert_array_equal(np.unique(qid_read, return_counts=True)[1], dataset.get_group())
    np.testing.assert_array_equal(sizes, dataset.get_group())  # the sizes the data were generated with
    np.testing.assert_array_equal(y_read, dataset.get_label())


def _xgboost_group_ptr(path):
    xgboost = pytest.importorskip("xgboost")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # text input is deprecated since XGBoost 3.1
        return xgboost.DMatrix(f"{path}?format=libsvm").get_uint_info("group_ptr")


def test_groups_equal_xgboost_reading_qid_tokens(tmp_path):
    X, y, qid, sizes = ranking_data(seed=6, n_queries=25)
    path = tmp_path / "train.txt"
    dump_svmlight_ranking(X, y, qid, path, zero_based=True)
    _, _, qid_read = load_svmlight_ranking(path)
    group_ptr = _xgboost_group_ptr(path)
    np.testing.assert_array_equal(np.diff(group_ptr), sizes)
    starts = np.flatnonzero(np.r_[True, qid_read[1:] != qid_read[:-1]])
    np.testing.assert_array_equal(group_ptr, np.r_[starts, qid_read.size])


def test_split_queries_warn_as_xgboost_reads_runs(tmp_path):
    path = write(tmp_path / "train.txt", "2 qid:1 1:1\n0 qid:2 1:2\n1 qid:1 1:3\n1 qid:1 1:4\n0 qid:3 1:5\n")
    with pytest.warns(UserWarning, match="rows of 1 of the 3 queries .* are not contiguous"):
        _, _, qid = load_svmlight_ranking(path)
    np.testing.assert_array_equal(qid, [1, 2, 1, 1, 3])  # as read
    # XGBoost makes 4 groups of the 3 queries: the warning is no false alarm.
    np.testing.assert_array_equal(_xgboost_group_ptr(path), [0, 1, 2, 4, 5])


def test_contiguous_queries_do_not_warn(tmp_path):
    path = write(tmp_path / "train.txt", "2 qid:5 1:1\n0 qid:5 1:2\n1 qid:1 1:3\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_svmlight_ranking(path)


# ------------------------------------------------------------------------------------------------
# The byte-order mark: scikit-learn's reader alone refuses the first line
# ------------------------------------------------------------------------------------------------

def test_byte_order_mark_is_skipped(tmp_path):
    text = b"1 qid:3 1:0.5 2:1\n0 qid:3 2:2\n2 qid:4 1:1\n"
    plain = load_svmlight_ranking(write(tmp_path / "plain.txt", text))
    marked = load_svmlight_ranking(write(tmp_path / "marked.txt", b"\xef\xbb\xbf" + text))
    for a, b in zip(plain, marked):
        np.testing.assert_array_equal(a.toarray() if sp.issparse(a) else a, b.toarray() if sp.issparse(b) else b)
    assert marked[1][0] == 1.0 and marked[2][0] == 3


# ------------------------------------------------------------------------------------------------
# Errors: every bad file names the file and the problem
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("data, sidecars, match", [
    ("1 1:1\n0 1:2\n", {}, r"has no query ids: .*qid: tokens.*sidecar.*'\.query' or '\.group'.*Got no qid: token"),
    ("1 qid:1 1:1\n# comment\n\n0 1:2\n1 qid:2 1:1\n", {}, r"qid: tokens on 2 of its 3 data lines.*Got line 4 "),
    ("1 1:1\n0 qid:1 1:2\n", {}, r"qid: tokens on 1 of its 2 data lines.*Got line 1 "),
    ("1 1:1\n0 1:2\n1 1:3\n", {".query": "2\n2\n"}, r"must add up to the 3 data lines.*Got 2 groups of 4 rows"),
    ("1 1:1\n0 1:2\n1 1:3\n", {".group": "1\n1\n"}, r"must add up to the 3 data lines.*Got 2 groups of 2 rows"),
    ("1 1:1\n0 1:2\n", {".query": "1\n1.0\n"}, r"train\.txt\.query.*positive integer.*Got '1\.0' on line 2"),
    ("1 1:1\n0 1:2\n", {".query": "2\n0\n"}, r"positive integer.*Got '0' on line 2"),
    ("1 1:1\n0 1:2\n", {".group": "-2\n"}, r"train\.txt\.group.*positive integer.*Got '-2' on line 1"),
    ("1 1:1\n0 1:2\n", {".query": "1 1\n"}, r"positive integer.*Got '1 1' on line 1"),
    ("1 1:1\n0 1:2\n", {".query": "\n\n"}, r"train\.txt\.query.*Got an empty file"),
    ("1 1:1\n0 1:2\n", {".query": "2\n", ".group": "1\n1\n"}, r"'.*train\.txt\.query' and '.*train\.txt\.group'"
                                                               r".*must hold the same group sizes"),
    ("1 qid:1 1:1\n0 qid:1 1:2\n1 qid:2 1:3\n", {".query": "1\n2\n"},
     r"must group the rows alike.*Got qid:1 then qid:2 on data lines 2 and 3, both in group 2 of the sidecar"),
    ("1 qid:1 1:1\n0 qid:1 1:2\n1 qid:1 1:3\n", {".query": "2\n1\n"},
     r"must group the rows alike.*Got qid:1 in groups 1 and 2 of the sidecar"),
    ("1 qid:1 1:1\nnan qid:1 1:2\n", {}, r"relevance labels .* must be finite numbers. Got nan on data line 2"),
    ("inf qid:1 1:1\n", {}, r"relevance labels .* must be finite numbers. Got inf on data line 1"),
    ("# nothing but a comment\n\n", {}, r"holds no data line"),
    ("", {}, r"holds no data line"),
    ("1 qid:1 2:1 1:1\n", {}, r"not a valid SVMlight ranking file: .*sorted"),
    ("x qid:1 1:1\n", {}, r"not a valid SVMlight ranking file"),
    ("1 qid:a 1:1\n", {}, r"not a valid SVMlight ranking file"),
    ("1 qid:1.5 1:1\n", {}, r"not a valid SVMlight ranking file"),
    ("1,2 qid:1 1:1\n", {}, r"not a valid SVMlight ranking file"),
    ("1 qid:1 1:1\n".encode("utf-16"), {}, r"not a valid SVMlight ranking file"),
])
def test_bad_files(tmp_path, data, sidecars, match):
    path = write(tmp_path / "train.txt", data)
    for suffix, content in sidecars.items():
        write(tmp_path / ("train.txt" + suffix), content)
    with pytest.raises(ValueError, match=match) as info:
        load_svmlight_ranking(path)
    assert str(path) in str(info.value) or "train.txt" in str(info.value)


def test_explicit_sidecar_errors_name_it(tmp_path):
    path = write(tmp_path / "train.txt", "1 1:1\n0 1:2\n")
    sizes = write(tmp_path / "sizes", "3\n")
    with pytest.raises(ValueError, match=r"sizes' must add up to the 2 data lines"):
        load_svmlight_ranking(path, query_file=sizes)
    with pytest.raises(FileNotFoundError):
        load_svmlight_ranking(path, query_file=tmp_path / "missing")
    with pytest.raises(FileNotFoundError):
        load_svmlight_ranking(tmp_path / "missing")


def test_neither_way_names_both_with_query_file_false(tmp_path):
    path = write(tmp_path / "train.txt", "1 1:1\n")
    write(tmp_path / "train.txt.query", "1\n")
    with pytest.raises(ValueError, match=r"no query ids.*query_file=False"):
        load_svmlight_ranking(path, query_file=False)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"n_features": 0}, ValueError, r"`n_features` must be None or an integer >= 1. Got 0 instead"),
    ({"n_features": 1.5}, ValueError, r"`n_features`"),
    ({"n_features": 1}, ValueError, r"not a valid SVMlight ranking file: n_features"),
    ({"zero_based": "yes"}, ValueError, r"`zero_based` must be True, False or 'auto'. Got 'yes' instead"),
    ({"dense": "no"}, TypeError, r"`dense` must be True or False"),
    ({"query_file": 3}, TypeError, r"`query_file` must be a str or path-like"),
    ({"query_file": True}, TypeError, r"`query_file` must be a str or path-like"),
])
def test_bad_reader_arguments(tmp_path, kwargs, error, match):
    path = write(tmp_path / "train.txt", "1 qid:1 1:1 2:3\n")
    with pytest.raises(error, match=match):
        load_svmlight_ranking(path, **kwargs)


def test_bad_path_type():
    with pytest.raises(TypeError, match=r"`path` must be a str or path-like object naming a file. Got 3"):
        load_svmlight_ranking(3)
    with pytest.raises(TypeError, match=r"`path` must be a str or path-like"):
        dump_svmlight_ranking([[1.0]], [1], [1], b"bytes-path")


@pytest.mark.parametrize("change, error, match", [
    ({"qid": np.array([1.0, 1.0, 2.0])}, TypeError, r"`qid` must hold integers .*query_file=True.*Got dtype float64"),
    ({"qid": np.array(["a", "a", "b"])}, TypeError, r"`qid` must hold integers"),
    ({"qid": [1, 2, 1], "query_file": True}, ValueError, r"contiguous.*Got 1 queries split in more than one run"),
    ({"qid": [1, 1]}, ValueError, r"`qid` must be 1-D with one entry per row of X \(3\). Got shape \(2,\)"),
    ({"y": [[1], [0], [1]]}, ValueError, r"`y` must be 1-D with one entry per row of X \(3\). Got shape \(3, 1\)"),
    ({"y": [1.0, np.nan, 0.0]}, ValueError, r"`y` must hold finite numbers.*Got 1 non-finite"),
    ({"y": ["a", "b", "c"]}, TypeError, r"`y` must hold numbers. Got dtype <U1"),
    ({"X": np.array([[1.0], [np.inf], [0.0]])}, ValueError, r"`X` must hold finite numbers"),
    ({"X": sp.csr_matrix(np.array([[1.0], [np.nan], [0.0]]))}, ValueError, r"`X` must hold finite numbers"),
    ({"X": np.array([1.0, 2.0, 3.0])}, ValueError, r"`X` must be 2-D \(n_rows, n_features\). Got shape \(3,\)"),
    ({"X": np.zeros((0, 2)), "y": [], "qid": []}, ValueError, r"`X` must have at least one row. Got 0"),
    ({"zero_based": 1}, TypeError, r"`zero_based` must be True or False. Got 1 instead"),
    ({"query_file": 2}, TypeError, r"`query_file` must be a str or path-like"),
])
def test_bad_writer_arguments(tmp_path, change, error, match):
    arguments = {"X": np.array([[1.0], [2.0], [0.0]]), "y": [1, 0, 2], "qid": [4, 4, 5]}
    arguments.update(change)
    X, y, qid = arguments.pop("X"), arguments.pop("y"), arguments.pop("qid")
    with pytest.raises(error, match=match):
        dump_svmlight_ranking(X, y, qid, tmp_path / "out.txt", **arguments)


def test_non_contiguous_qid_tokens_are_written_as_given(tmp_path):
    path = tmp_path / "t.txt"
    dump_svmlight_ranking(np.eye(3), [1, 0, 2], [9, 4, 9], path)
    with pytest.warns(UserWarning, match="not contiguous"):
        np.testing.assert_array_equal(load_svmlight_ranking(path)[2], [9, 4, 9])


def test_public_names():
    assert sklearn_rank.io.load_svmlight_ranking is load_svmlight_ranking
    assert sklearn_rank.io.dump_svmlight_ranking is dump_svmlight_ranking
    assert {"load_svmlight_ranking", "dump_svmlight_ranking"} <= set(sklearn_rank.datasets.__all__)


# ------------------------------------------------------------------------------------------------
# Sparse X from the loader works where a dense one does
# ------------------------------------------------------------------------------------------------

@pytest.fixture
def letor_file(tmp_path):
    X, y, qid = make_ranking(n_queries=24, n_candidates=(3, 12), n_features=6, random_state=0)
    X[np.abs(X) < 0.6] = 0.0
    path = tmp_path / "letor.txt"
    dump_svmlight_ranking(X, y, qid, path)
    X_sparse, y_read, qid_read = load_svmlight_ranking(path, n_features=X.shape[1])
    np.testing.assert_array_equal(X_sparse.toarray(), X)
    return X_sparse, X, y_read, qid_read


def test_sparse_x_in_query_group_kfold(letor_file):
    from sklearn_rank.model_selection import QueryGroupKFold

    X_sparse, X_dense, _, qid = letor_file
    sparse_folds = list(QueryGroupKFold(4).split(X_sparse, groups=qid))
    dense_folds = list(QueryGroupKFold(4).split(X_dense, groups=qid))
    assert len(sparse_folds) == 4
    for (train_s, test_s), (train_d, test_d) in zip(sparse_folds, dense_folds):
        np.testing.assert_array_equal(train_s, train_d)
        np.testing.assert_array_equal(test_s, test_d)
        assert not set(qid[train_s]) & set(qid[test_s])


def _estimators():
    from sklearn.linear_model import Ridge

    yield Ridge(alpha=1.0, tol=1e-12)  # sparse X takes an iterative solver: a tight tolerance
    lightgbm = pytest.importorskip("lightgbm")
    yield lightgbm.LGBMRanker(n_estimators=8, min_child_samples=2, verbose=-1)


@pytest.mark.parametrize("index", [0, 1])
def test_sparse_x_in_ranking_evaluator(letor_file, index):
    from sklearn_rank import RankingEvaluator, evaluate

    estimator = list(_estimators())[index]
    X_sparse, X_dense, y, qid = letor_file
    sparse_model = RankingEvaluator(estimator, qid=None, metric="ndcg@5").fit(X_sparse, y, qid=qid)
    dense_model = RankingEvaluator(estimator, qid=None, metric="ndcg@5").fit(X_dense, y, qid=qid)
    score = sparse_model.score(X_sparse, y, qid=qid)
    # Oracle: the wrapped model's predictions evaluated directly, and the dense twin.
    predictions = sparse_model.predict(X_sparse)
    expected = evaluate(y, predictions, qid=qid, metrics=["ndcg@5"]).summary["ndcg@5"]
    assert score == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(predictions, dense_model.predict(X_dense), rtol=1e-8, atol=1e-10)
    assert score == pytest.approx(dense_model.score(X_dense, y, qid=qid), rel=1e-9)


@pytest.mark.parametrize("index", [0, 1])
def test_sparse_x_in_cross_validate_with_metadata_routing(letor_file, index):
    import sklearn
    from sklearn.model_selection import cross_validate

    from sklearn_rank import RankingEvaluator
    from sklearn_rank.model_selection import QueryGroupKFold

    estimator = list(_estimators())[index]
    X_sparse, X_dense, y, qid = letor_file
    results = []
    with sklearn.config_context(enable_metadata_routing=True):
        for X in (X_sparse, X_dense):
            scores = cross_validate(RankingEvaluator(estimator, qid=None), X, y, cv=QueryGroupKFold(3),
                                    params={"qid": qid, "groups": qid})["test_score"]
            results.append(scores)
    assert np.all(np.isfinite(results[0])) and results[0].shape == (3,)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-9)


def test_qid_beyond_int64_is_refused_when_written_and_read(tmp_path):
    from sklearn_rank.datasets import dump_svmlight_ranking, load_svmlight_ranking

    path = tmp_path / "big.txt"
    with pytest.raises(ValueError, match="signed 64-bit.*Got 9223372036854775808 instead"):
        dump_svmlight_ranking(np.ones((2, 1)), [1, 0], np.array([2**63, 2**63], dtype=np.uint64), path)
    path.write_text("1 qid:9223372036854775808 1:0.5\n0 qid:9223372036854775808 1:0.2\n")
    with pytest.raises(ValueError, match="signed 64-bit"):
        load_svmlight_ranking(path)
