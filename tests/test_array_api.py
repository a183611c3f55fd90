"""Array API dispatch: the matrix layouts computed in the input's namespace (array-api-strict, torch).

Oracle: the NumPy path of the same engine on the same data (``np.asarray`` of the inputs, dispatch
off), which the rest of the suite checks against brute force and peers. Every tie policy, with and
without an ``exclude`` mask, on integer-valued scores (ties in most rows).
"""

import pathlib
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn

import sklearn_rank as sr
from sklearn_rank import compute_ranks, evaluate, metric_names

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
TIES = ("expected", "realistic", "optimistic", "pessimistic", "ordinal")
RANK_METRICS = ["mr", "mrr", "hits@1", "hits@3", "gmr", "igmr", "hmr", "iamr", "median_rank", "inverse_median_rank",
                "rank_std", "rank_var", "rank_mad", "count", "amr", "amri", "agmri", "amrr", "ahits@3", "zmr", "zmrr",
                "zgmr", "zhits@3"]
LIST_METRICS = ["mrr", "mrr@3", "hits@3", "map", "map@2", "ndcg", "ndcg@3", "dcg@3", "p@3", "r@3", "f1@3", "rprec", "auc",
                "bpref", "rbp", "rbp@3", "err", "err@3", "pfound", "pfound@3", "judged@3", "numrelret@3"]


def _namespaces():
    out = []
    try:
        import array_api_strict

        out.append(pytest.param(array_api_strict, id="array_api_strict"))
    except ImportError:  # pragma: no cover - the test extra installs it
        out.append(pytest.param(None, id="array_api_strict",
                                marks=pytest.mark.skip(reason="array-api-strict is not installed")))
    try:
        import array_api_compat.torch as torch_namespace

        out.append(pytest.param(torch_namespace, id="torch"))
    except ImportError:
        out.append(pytest.param(None, id="torch", marks=pytest.mark.skip(reason="torch is not installed")))
    return out


NAMESPACES = _namespaces()


@pytest.fixture
def dispatch(monkeypatch):
    """scikit-learn's array_api_dispatch on for the test (scikit-learn >= 1.6 asks for SCIPY_ARRAY_API=1;
    sklearn-rank does not use SciPy under dispatch, so setting it after SciPy's import is enough)."""
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    try:
        context = sklearn.config_context(array_api_dispatch=True)
        context.__enter__()
    except (ImportError, RuntimeError) as exc:  # pragma: no cover - depends on the environment
        pytest.skip(f"scikit-learn cannot turn array_api_dispatch on here: {exc}")
    yield
    context.__exit__(None, None, None)


def _label_index_data(seed, dtype=np.float64, n_queries=40, n_candidates=13):
    rng = np.random.default_rng(seed)
    score = rng.integers(0, 6, size=(n_queries, n_candidates)).astype(dtype)  # ties in most rows
    target = rng.integers(0, n_candidates, size=n_queries)
    mask = rng.random((n_queries, n_candidates)) < 0.25
    mask[np.arange(n_queries), target] = False
    mask[0] = True  # a row left with its target alone: N = 1 (AUC undefined there, adjusted baselines degenerate)
    mask[0, target[0]] = False
    return score, target, mask


def _close(got, expected, rtol=1e-12):
    got, expected = np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol, equal_nan=True)


def _as_numpy(xp, x):
    """A namespace array's values, for comparing with the oracle (never passed to the engine)."""
    if hasattr(x, "cpu"):
        return x.cpu().numpy()
    return np.asarray(x)


def _evaluate_both(xp, y_true, score, metrics, **kwargs):
    """The NumPy path's report (dispatch off), then the namespace's (dispatch on)."""
    with sklearn.config_context(array_api_dispatch=False), warnings.catch_warnings(record=True) as expected_warnings:
        warnings.simplefilter("always")
        expected = evaluate(y_true, score, metrics=metrics, **kwargs)
    ns_kwargs = {name: (xp.asarray(value) if isinstance(value, np.ndarray) else value)
                 for name, value in kwargs.items()}
    with warnings.catch_warnings(record=True) as got_warnings:
        warnings.simplefilter("always")
        got = evaluate(xp.asarray(y_true), xp.asarray(score), metrics=metrics, **ns_kwargs)
    assert sorted({type(w.message) for w in got_warnings}, key=str) == sorted(
        {type(w.message) for w in expected_warnings}, key=str)
    return expected, got


@pytest.mark.parametrize("xp", NAMESPACES)
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_label_index_metrics_equal_numpy_path(dispatch, xp, ties, masked, dtype):
    score, target, mask = _label_index_data(1, dtype)
    kwargs = dict(ties=ties, exclude=mask if masked else None)
    for targets, metrics in (("first", LIST_METRICS), ("all", RANK_METRICS)):
        expected, got = _evaluate_both(xp, target, score, metrics, targets=targets, **kwargs)
        # float32 scores compare in float32 in both paths: the same counts, so the same float64 values
        for name in metrics:
            assert isinstance(got.summary[name], float)
            _close(got.summary[name], expected.summary[name])
            _close(_as_numpy(xp, got.per_query[name]), expected.per_query[name])
        assert got.n_queries == expected.n_queries and got.n_skipped == expected.n_skipped == 0


def _relevance_matrix_data(seed, dtype=np.float64, n_queries=30, n_candidates=11):
    rng = np.random.default_rng(seed)
    score = rng.integers(0, 4, size=(n_queries, n_candidates)).astype(dtype)  # ties in every row
    relevance = (rng.random(score.shape) < 0.3) * rng.integers(1, 4, size=score.shape)  # graded
    relevance[4] = 0  # a query without a relevant item
    relevance[6] = 0
    relevance[6, 2] = 2  # a query with one relevant candidate
    mask = (rng.random(score.shape) < 0.2) & (relevance == 0)
    mask[9] = relevance[9] == 0  # a query left with its relevant candidates only (AUC undefined)
    mask[11] = True  # a query whose every candidate is removed: dropped
    relevance[11] = 0
    return score, relevance, mask


RELEVANCE_MATRIX_LIST_METRICS = [name for name in LIST_METRICS if not name.startswith(("err", "pfound"))]


@pytest.mark.parametrize("xp", NAMESPACES)
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("options", [{}, dict(gain="exponential", no_relevant="zero", ap_denominator="capped"),
                                     dict(relevance_level=2, no_relevant="one"), dict(dtype=np.float32)],
                         ids=["default", "exponential-zero-capped", "level-one", "float32"])
def test_relevance_matrix_list_metrics_equal_numpy_path(dispatch, xp, ties, masked, options):
    options = dict(options)
    score, relevance, mask = _relevance_matrix_data(9, options.pop("dtype", np.float64))
    if not masked:
        relevance[11] = 1  # no mask: query 11 is an ordinary query
    expected, got = _evaluate_both(xp, relevance, score, RELEVANCE_MATRIX_LIST_METRICS, ties=ties,
                                   exclude=mask if masked else None, **options)
    assert (got.n_queries, got.n_skipped) == (expected.n_queries, expected.n_skipped)
    _close(_as_numpy(xp, got.per_query["qid"]), expected.per_query["qid"])
    for name in RELEVANCE_MATRIX_LIST_METRICS:
        assert isinstance(got.summary[name], float)
        _close(got.summary[name], expected.summary[name])
        _close(_as_numpy(xp, got.per_query[name]), expected.per_query[name])


@pytest.mark.parametrize("xp", NAMESPACES)
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("targets", ["first", "all"])
@pytest.mark.parametrize("options", [{}, dict(weighted=True, no_relevant="zero")], ids=["default", "weighted-zero"])
def test_relevance_matrix_rank_statistics_equal_numpy_path(dispatch, xp, ties, targets, options):
    options = dict(options)
    score, relevance, mask = _relevance_matrix_data(10)
    if options.pop("weighted", False):
        options["sample_weight"] = np.random.default_rng(11).random(score.shape[0])
    # ties of several relevant candidates (targets="first": the best of r among m), "rank" metrics and a
    # list metric together
    metrics = RANK_METRICS + ["ndcg@3"]
    expected, got = _evaluate_both(xp, relevance, score, metrics, ties=ties, targets=targets, exclude=mask,
                                   **options)
    assert (got.n_queries, got.n_skipped) == (expected.n_queries, expected.n_skipped)
    for name in metrics:
        _close(got.summary[name], expected.summary[name])
        _close(_as_numpy(xp, got.per_query[name]), expected.per_query[name])


@pytest.mark.parametrize("xp", NAMESPACES)
@pytest.mark.parametrize("ties", TIES)
def test_evaluate_ranks_in_namespace(dispatch, xp, ties):
    score, relevance, mask = _relevance_matrix_data(12)
    _, target, label_mask = _label_index_data(13)
    weight = np.random.default_rng(14).random(40)
    for y_true, y_score, exclude, targets in ((relevance, score, mask, "first"), (relevance, score, mask, "all"),
                                              (target, _label_index_data(13)[0], label_mask, "first")):
        with sklearn.config_context(array_api_dispatch=False):
            ranks = compute_ranks(y_true, y_score, exclude=exclude, targets=targets)
            expected = sr.evaluate_ranks(ranks, metrics=RANK_METRICS, ties=ties)
        got_ranks = compute_ranks(xp.asarray(y_true), xp.asarray(y_score), exclude=xp.asarray(exclude),
                                  targets=targets)
        got = sr.evaluate_ranks(got_ranks, metrics=RANK_METRICS, ties=ties)
        for name in RANK_METRICS:
            assert isinstance(got[name], float)
            _close(got[name], expected[name])
    # a plain 1-D array of ranks, with candidate counts and weights
    values = ranks.realistic
    n_cand = ranks.num_candidates
    with sklearn.config_context(array_api_dispatch=False):
        expected = sr.evaluate_ranks(values, num_candidates=n_cand, sample_weight=weight, metrics=RANK_METRICS)
    got = sr.evaluate_ranks(xp.asarray(values), num_candidates=xp.asarray(n_cand), sample_weight=xp.asarray(weight),
                            metrics=RANK_METRICS)
    for name in RANK_METRICS:
        _close(got[name], expected[name])
    with pytest.raises(ValueError, match="`ranks` must be finite and >= 1"):
        sr.evaluate_ranks(xp.asarray(values - 1), metrics="mr")
    with pytest.raises(ValueError, match="need `num_candidates`"):
        sr.evaluate_ranks(xp.asarray(values), metrics="amri")


@pytest.mark.parametrize("xp", NAMESPACES)
@pytest.mark.parametrize("ties", TIES)
def test_label_index_sparse_mask(dispatch, xp, ties):
    """A SciPy sparse ``exclude`` with namespace scores: its entries are moved to the device, never the scores."""
    score, target, mask = _label_index_data(15)
    score[2, (target[2] + 3) % score.shape[1]] = np.nan
    mask[2, (target[2] + 3) % score.shape[1]] = True  # an excluded NaN: any value may sit there
    score[3, (target[3] + 1) % score.shape[1]] = np.nan
    mask[3, (target[3] + 1) % score.shape[1]] = False  # a NaN that is kept: removed under "omit"
    rows, columns = np.nonzero(mask)
    # any sparse format, an entry written twice
    sparse_mask = sp.coo_matrix((np.ones(rows.size + 1, dtype=bool), (np.r_[rows, rows[0]], np.r_[columns, columns[0]])),
                                shape=mask.shape)
    metrics = RANK_METRICS + ["ndcg@3", "auc"]
    for targets in ("first", "all"):
        with sklearn.config_context(array_api_dispatch=False), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = evaluate(target, score, metrics=metrics, exclude=mask, ties=ties, targets=targets,
                                nan_policy="omit")
            ranks = compute_ranks(target, score, exclude=mask, targets=targets, nan_policy="omit")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = evaluate(xp.asarray(target), xp.asarray(score), metrics=metrics, exclude=sparse_mask, ties=ties,
                           targets=targets, nan_policy="omit")
        for name in metrics:
            _close(got.summary[name], expected.summary[name])
            _close(_as_numpy(xp, got.per_query[name]), expected.per_query[name])
        got_ranks = compute_ranks(xp.asarray(target), xp.asarray(score), exclude=sp.csr_matrix(mask), targets=targets,
                                  nan_policy="omit")
        for field in ("optimistic", "pessimistic", "ordinal", "num_candidates"):
            _close(_as_numpy(xp, getattr(got_ranks, field)), getattr(ranks, field))


@pytest.mark.parametrize("xp", NAMESPACES)
@pytest.mark.parametrize("ties", TIES)
def test_label_index_weights_nan_and_metric_functions(dispatch, xp, ties):
    score, target, mask = _label_index_data(2, n_queries=30)
    for row, shift, value in ((3, 1, np.nan), (5, 2, np.inf)):  # NaN: removed under "omit"; inf: a score
        score[row, (target[row] + shift) % score.shape[1]] = value
        mask[row, (target[row] + shift) % score.shape[1]] = False
    weight = np.random.default_rng(3).random(30)
    metrics = ["mrr", "gmr", "median_rank", "rank_mad", "zgmr", "amri", "hits@3", "ndcg@5"]
    expected, got = _evaluate_both(xp, target, score, metrics, ties=ties, exclude=mask, sample_weight=weight,
                                   nan_policy="omit")
    for name in metrics:
        _close(got.summary[name], expected.summary[name])
    with sklearn.config_context(array_api_dispatch=False):
        reference = sr.mean_reciprocal_rank(target, score, ties=ties, exclude=mask, nan_policy="omit")
    value = sr.mean_reciprocal_rank(xp.asarray(target), xp.asarray(score), ties=ties, exclude=xp.asarray(mask),
                                    nan_policy="omit")
    assert isinstance(value, float)
    _close(value, reference)
    with pytest.raises(ValueError, match="must not hold NaN.*Got a NaN score in row 3 instead"):
        evaluate(xp.asarray(target), xp.asarray(score), metrics="mrr", exclude=xp.asarray(mask))


@pytest.mark.parametrize("xp", NAMESPACES)
@pytest.mark.parametrize("targets", ["first", "all"])
@pytest.mark.parametrize("layout", ["label index", "relevance matrix"])
def test_compute_ranks_in_namespace(dispatch, xp, targets, layout):
    score, target, mask = _label_index_data(4)
    if layout == "label index":
        y_true = target
    else:
        rng = np.random.default_rng(5)
        y_true = (rng.random(score.shape) < 0.3) * rng.integers(1, 3, size=score.shape)
        y_true[7] = 0  # a query without a relevant item: no target
        mask &= y_true == 0
        score[2, np.flatnonzero(y_true[2] == 0)[:1]] = np.nan  # removed under "omit"
    for exclude in (None, mask):
        with sklearn.config_context(array_api_dispatch=False):
            expected = compute_ranks(y_true, score, exclude=exclude, targets=targets, nan_policy="omit")
        got = compute_ranks(xp.asarray(y_true), xp.asarray(score), targets=targets, nan_policy="omit",
                            exclude=None if exclude is None else xp.asarray(exclude))
        reference = xp.asarray(score)
        for field in ("optimistic", "pessimistic", "realistic", "ordinal", "expected", "num_candidates",
                      "tied_targets", "num_relevant", "query"):
            value = getattr(got, field)
            # the ranks are arrays of the input's namespace, on its device
            assert type(value) is type(reference)
            assert sr._sklearn_compat.array_device(value) == sr._sklearn_compat.array_device(reference)
            _close(_as_numpy(xp, value), getattr(expected, field))
        assert len(got) == len(expected) and repr(got) == repr(expected)


def test_no_conversion_to_numpy(dispatch, monkeypatch):
    """array-api-strict input never goes through NumPy: its conversions to NumPy raise here."""
    xp = pytest.importorskip("array_api_strict")
    score, target, mask = _label_index_data(6)
    rel = (score > 3).astype(np.float64)
    y_score, y_target, y_mask, y_rel = (xp.asarray(a) for a in (score, target, mask, rel))

    def refuse(self, *args, **kwargs):
        raise AssertionError("an array-api-strict array was converted to NumPy")

    array_type = type(y_score)
    for name in ("__array__", "__buffer__", "__dlpack__"):
        if hasattr(array_type, name):
            monkeypatch.setattr(array_type, name, refuse)
    with pytest.raises(AssertionError, match="converted to NumPy"):
        np.asarray(y_score)  # the patch is in force
    with pytest.warns(sr.exceptions.UndefinedMetricWarning, match="'auc' is undefined for 1 queries"):
        report = evaluate(y_target, y_score, metrics=LIST_METRICS + RANK_METRICS[:5], exclude=y_mask,
                          ties="ordinal")
    assert all(isinstance(value, float) for value in report.summary.values())
    assert all(type(values) is array_type for values in report.per_query.values())
    assert sr.hits_at_k(y_target, y_score, k=3, exclude=y_mask, ties="ordinal") == report.summary["hits@3"]
    for ties in TIES:
        for targets in ("first", "all"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # undefined adjusted metrics, AUC
                matrix = evaluate(y_rel, y_score, metrics=RELEVANCE_MATRIX_LIST_METRICS + RANK_METRICS, ties=ties,
                                  targets=targets, no_relevant="zero")
                ranked = sr.evaluate_ranks(compute_ranks(y_rel, y_score, targets=targets), metrics=RANK_METRICS,
                                           ties=ties)
            assert all(isinstance(value, float) for value in [*matrix.summary.values(), *ranked.values()])
    sparse = evaluate(y_target, y_score, metrics="mrr", exclude=sp.csr_matrix(mask)).summary["mrr"]
    assert sparse == evaluate(y_target, y_score, metrics="mrr", exclude=y_mask).summary["mrr"]
    for targets in ("first", "all"):
        assert type(compute_ranks(y_target, y_score, exclude=y_mask, targets=targets).realistic) is array_type
        assert type(compute_ranks(y_rel, y_score, targets=targets).expected) is array_type


@pytest.mark.parametrize("xp", NAMESPACES)
def test_numpy_only_parts_raise_under_dispatch(dispatch, xp):
    score, target, mask = _label_index_data(7)
    y_score = xp.asarray(score)
    rows = np.repeat(np.arange(3), 4)
    cases = [
        (TypeError, "grouped-rows layout.*NumPy only", dict(y_true=xp.asarray(score[0] > 3), y_score=y_score[0, ...])),
        (TypeError, "grouped-rows layout.*Got qid=", dict(y_true=xp.asarray((score[:3, :4].reshape(-1) > 3) * 1.0),
                                                          y_score=xp.reshape(y_score[:3, :4], (-1,)), qid=rows)),
        (TypeError, "`exclude` may be a sparse matrix only in the label-index layout",
         dict(y_true=xp.asarray((score > 3) * 1.0), y_score=y_score, exclude=sp.csr_matrix(mask))),
        (TypeError, "`sample_weight` must be a dense array.*scipy.sparse",
         dict(y_true=xp.asarray(target), y_score=y_score, sample_weight=sp.csr_matrix(np.ones((1, 40))))),
        (ValueError, r"must not remove a query's own target. Got the target excluded in rows \[0\]",
         dict(y_true=xp.asarray(target), y_score=y_score,
              exclude=sp.csr_matrix(np.where(np.arange(40)[:, None] == 0, True, mask)))),
        (TypeError, "`labels` is supported on NumPy input only",
         dict(y_true=xp.asarray(target), y_score=y_score, labels=np.arange(score.shape[1]))),
        (TypeError, "'err' of the relevance-matrix layout.*NumPy only",
         dict(y_true=xp.asarray((score > 3) * 1.0), y_score=y_score, metrics="err")),
        (ValueError, r"column indices must lie in \[0, 12\]. Got \[13\] instead",
         dict(y_true=xp.asarray(np.where(np.arange(40) == 4, 13, target)), y_score=y_score)),
        (ValueError, r"must not remove a query's own target. Got the target excluded in rows \[0\]",
         dict(y_true=xp.asarray(target), y_score=y_score,
              exclude=xp.asarray(np.where(np.arange(40)[:, None] == 0, True, mask)))),
    ]
    for error, message, inputs in cases:
        with pytest.raises(error, match=message):
            evaluate(**{"metrics": "mrr", **inputs})
    other = [module for module in ("array_api_strict", "array_api_compat.torch") if module != xp.__name__]
    for module in other:
        try:
            foreign = __import__(module, fromlist=["asarray"]).asarray(target)
        except ImportError:
            continue
        with pytest.raises(TypeError, match="same array library as `y_score`"):
            evaluate(foreign, y_score, metrics="mrr")


@pytest.mark.parametrize("xp", NAMESPACES)
def test_numpy_path_unchanged(xp, dispatch):
    score, target, mask = _label_index_data(8)
    with sklearn.config_context(array_api_dispatch=False):
        off = evaluate(xp.asarray(target) if xp.__name__ == "array_api_strict" else target,
                       np.asarray(score), metrics=["mrr", "mr"], exclude=mask)
    # NumPy input under dispatch is the NumPy path: NumPy per-query values
    on = evaluate(target, score, metrics=["mrr", "mr"], exclude=mask)
    assert type(on.per_query["mrr"]) is np.ndarray
    assert on.summary == off.summary
    assert type(compute_ranks(target, score).realistic) is np.ndarray


def test_every_metric_of_the_registry_is_tested():
    from sklearn_rank import get_metric

    registry = [get_metric(name.replace("@k", "@3")) for name in metric_names()]
    for family, tested in (("rank", RANK_METRICS), ("list", LIST_METRICS)):
        assert {spec.base for spec in registry if spec.family == family} <= {get_metric(name).base
                                                                              for name in tested}


def test_docs_example_runs_as_shown(dispatch):
    """The "GPU and array libraries" example of docs/filtered.rst, run, and its printed lines compared."""
    pytest.importorskip("array_api_strict")
    text = (DOCS / "filtered.rst").read_text()
    block = re.search(r"\.\. array-api-example-start\n(.*?)\.\. array-api-example-end", text, re.S).group(1)
    code = "\n".join(line[4:] for line in block.splitlines() if line.startswith("    "))
    shown = [line.split("# prints ", 1)[1].strip() for line in code.splitlines() if "# prints " in line]
    printed = []
    namespace = {"print": lambda *args: printed.append(" ".join(str(a) for a in args))}
    exec(compile(code, "docs/filtered.rst", "exec"), namespace)
    assert printed == shown and printed


def test_outputs_stay_on_the_inputs_device(dispatch):
    """array-api-strict's second device: arrays of two devices never mix, so every array the engine
    makes must be made on the input's device (NumPy inputs beside it are moved there)."""
    xp = pytest.importorskip("array_api_strict")
    device = xp.Device("device1")
    score, target, mask = _label_index_data(16)
    relevance = (score > 3) * 1.0
    on_device = (lambda a: xp.asarray(a, device=device))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # AUC and adjusted metrics undefined for the query with one candidate
        report = evaluate(on_device(target), on_device(score), exclude=mask, sample_weight=np.ones(40),
                          metrics=LIST_METRICS + RANK_METRICS, targets="first")
        with sklearn.config_context(array_api_dispatch=False):
            expected = evaluate(target, score, exclude=mask, metrics=LIST_METRICS + RANK_METRICS)
    assert all(values.device == device for values in report.per_query.values())
    for name in report.summary:
        _close(report.summary[name], expected.summary[name])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        matrix = evaluate(on_device(relevance), on_device(score), metrics=RELEVANCE_MATRIX_LIST_METRICS + RANK_METRICS,
                          sample_weight=on_device(np.ones(40)), targets="all")
    assert all(values.device == device for values in matrix.per_query.values())
    for layout_true, exclude in ((target, sp.csr_matrix(mask)), (relevance, mask & (relevance == 0))):
        ranks = compute_ranks(on_device(layout_true), on_device(score), exclude=exclude)
        assert ranks.realistic.device == ranks.num_candidates.device == ranks.qid.device == device
        assert isinstance(sr.evaluate_ranks(ranks, metrics=RANK_METRICS)["amri"], float)
    with pytest.raises(ValueError, match="must be on the device of `y_score`"):
        evaluate(xp.asarray(target), on_device(score), metrics="mrr")


@pytest.mark.parametrize("xp", NAMESPACES)
def test_positive_vs_negatives_in_namespace(dispatch, xp):
    rng = np.random.default_rng(17)
    positive, negatives = rng.integers(0, 5, size=30).astype(float), rng.integers(0, 5, size=(30, 8)).astype(float)
    y_true, y_score = sr.positive_vs_negatives(xp.asarray(positive), xp.asarray(negatives))
    assert type(y_score) is type(xp.asarray(positive)) and type(y_true) is type(y_score)
    with sklearn.config_context(array_api_dispatch=False):
        expected_true, expected_score = sr.positive_vs_negatives(positive, negatives)
        expected = sr.mean_reciprocal_rank(expected_true, expected_score, ties="realistic")
    _close(_as_numpy(xp, y_score), expected_score)
    _close(_as_numpy(xp, y_true), expected_true)
    _close(sr.mean_reciprocal_rank(y_true, y_score, ties="realistic"), expected)
    with pytest.raises(ValueError, match="`y_pred_neg` must be 2-D with one row per query"):
        sr.positive_vs_negatives(xp.asarray(positive), xp.asarray(negatives[:3]))


@pytest.mark.parametrize("xp", NAMESPACES)
@pytest.mark.parametrize("ties", ["expected", "ordinal"])
def test_many_chunks_give_the_same_values(dispatch, xp, ties, monkeypatch):
    """Chunks of a few rows (the chunk size is shrunk): every loop over rows and over expanded terms
    runs many times, and the values are those of one chunk."""
    import sklearn_rank._namespace_inputs as namespace_inputs

    monkeypatch.setattr(namespace_inputs, "NAMESPACE_CHUNK_CPU", 64)
    score, target, mask = _label_index_data(18)
    score[7, (target[7] + 1) % 13] = np.nan
    mask[7, (target[7] + 1) % 13] = False
    metrics = RANK_METRICS + LIST_METRICS[:6]
    for exclude in (mask, sp.csr_matrix(mask)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with sklearn.config_context(array_api_dispatch=False):
                expected = evaluate(target, score, metrics=metrics, exclude=mask, ties=ties, nan_policy="omit")
            got = evaluate(xp.asarray(target), xp.asarray(score), metrics=metrics, ties=ties, nan_policy="omit",
                           exclude=exclude if sp.issparse(exclude) else xp.asarray(exclude))
        for name in metrics:
            _close(got.summary[name], expected.summary[name])
            _close(_as_numpy(xp, got.per_query[name]), expected.per_query[name])
    # 15 queries (the special rows of _relevance_matrix_data among them) still make chunks of a row or
    # two: the per-chunk work is most of this test's time
    score, relevance, mask = _relevance_matrix_data(19, n_queries=15)
    for targets in ("first", "all"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected, got = _evaluate_both(xp, relevance, score, RANK_METRICS + RELEVANCE_MATRIX_LIST_METRICS,
                                           ties=ties, targets=targets, exclude=mask)
        for name in RANK_METRICS + RELEVANCE_MATRIX_LIST_METRICS:
            _close(got.summary[name], expected.summary[name])
            _close(_as_numpy(xp, got.per_query[name]), expected.per_query[name])


def _torch_or_skip():
    return pytest.importorskip("array_api_compat.torch")


@pytest.mark.parametrize("layout", ["label index", "relevance matrix"])
def test_torch_sparse_tensors_are_a_clear_error(dispatch, layout):
    """PyG keeps masks and adjacency as torch sparse tensors: they are named in a TypeError, not torch's
    internal error from slicing a sparse tensor."""
    xp = _torch_or_skip()
    score, target, mask = _label_index_data(20)
    y_true = target if layout == "label index" else (np.arange(13)[None, :] == target[:, None]).astype(float)
    sparse_mask = xp.asarray(mask).to_sparse()
    for name, kwargs in (("exclude", dict(exclude=sparse_mask)),
                         ("exclude", dict(exclude=xp.asarray(mask).to_sparse_csr())),
                         ("y_score", dict(y_score=xp.asarray(score).to_sparse())),
                         ("y_true", dict(y_true=xp.asarray(y_true).to_sparse()))):
        arguments = {"y_true": xp.asarray(y_true), "y_score": xp.asarray(score), **kwargs}
        with pytest.raises(TypeError, match=rf"`{name}` must be a dense array under array_api_dispatch.*Got a "
                                            r"tensor of layout torch.sparse_\w+ instead\."):
            evaluate(arguments["y_true"], arguments["y_score"], metrics="mrr", exclude=arguments.get("exclude"))
        with pytest.raises(TypeError, match=rf"`{name}` must be a dense array"):
            compute_ranks(arguments["y_true"], arguments["y_score"], exclude=arguments.get("exclude"))
    with pytest.raises(TypeError, match="`y_pred_neg` must be a dense array"):
        sr.positive_vs_negatives(xp.asarray(score[:, 0]), xp.asarray(score[:, 1:]).to_sparse())


@pytest.mark.parametrize("xp", NAMESPACES)
def test_positive_vs_negatives_integer_positives_with_float_negatives(dispatch, xp):
    """Integer positive scores (a list of ints, say) with float negatives: NumPy's concatenation
    promotes both to float64; the namespace does the same (array-api-strict does not promote
    across kinds, torch would promote to float32 and tie integers beyond 2**24)."""
    rng = np.random.default_rng(21)
    positive = 2 ** 25 + rng.integers(0, 3, size=20)  # distinct in float64, equal in float32
    negatives = (2 ** 25 + rng.integers(0, 3, size=(20, 6))).astype(np.float32)
    with sklearn.config_context(array_api_dispatch=False):
        expected_true, expected_score = sr.positive_vs_negatives(positive, negatives)
        expected = evaluate(expected_true, expected_score, metrics=["mrr", "hits@1", "mr"])
    for pos in (xp.asarray(positive), positive.tolist()):
        y_true, y_score = sr.positive_vs_negatives(pos, xp.asarray(negatives))
        assert y_score.dtype == xp.float64
        _close(_as_numpy(xp, y_score), expected_score)
        got = evaluate(y_true, y_score, metrics=["mrr", "hits@1", "mr"])
        for name in ("mrr", "hits@1", "mr"):
            _close(got.summary[name], expected.summary[name])


@pytest.mark.parametrize("xp", NAMESPACES)
def test_boolean_sample_weight_as_on_the_numpy_path(dispatch, xp):
    """A boolean sample_weight weighs the queries 0 or 1 on the NumPy path; the same under dispatch."""
    score, target, _ = _label_index_data(22)
    weight = np.random.default_rng(23).random(score.shape[0]) < 0.5
    expected, got = _evaluate_both(xp, target, score, ["mrr", "hits@3", "ndcg"], sample_weight=weight)
    for name in ("mrr", "hits@3", "ndcg"):
        _close(got.summary[name], expected.summary[name])
    with sklearn.config_context(array_api_dispatch=False):
        ranks = compute_ranks(target, score)
        expected_ranks = sr.evaluate_ranks(ranks, metrics=["mrr", "amri"], sample_weight=weight)
    got_ranks = sr.evaluate_ranks(compute_ranks(xp.asarray(target), xp.asarray(score)), metrics=["mrr", "amri"],
                                  sample_weight=xp.asarray(weight))
    for name in ("mrr", "amri"):
        _close(got_ranks[name], expected_ranks[name])


@pytest.mark.parametrize("xp", NAMESPACES)
def test_evaluate_ranks_errors_name_the_offending_position(dispatch, xp):
    """Impossible counts under dispatch name the position and value (the NumPy path does, or prints the
    whole array): never a message blaming a valid shape and dtype."""
    ranks = np.array([1.0, 2.0, 3.5, 4.0])
    impossible = r"Got rank 3\.5 with num_candidates=3 and num_relevant=1 at position 2 instead\."
    too_many = r"Got num_relevant=6 with num_candidates=5 at position 3 instead\."
    cases = [  # (arguments, the namespace's message, the NumPy path's)
        (dict(num_candidates=np.array([10, 10, 10.5, 10])),
         r"`num_candidates` must hold one positive integer per rank \(4\)\. Got 10\.5 at position 2 instead\.",
         r"Got array\(\[10\. , 10\. , 10\.5, 10\. \]\) instead"),
        (dict(num_candidates=np.array([10, 0, 10, 10])), r"Got 0\.0 at position 1 instead\.",
         r"Got array\(\[10,  0, 10, 10\]\) instead"),
        (dict(num_candidates=np.array([10, 10, 3, 10])), impossible, impossible),
        (dict(num_candidates=np.array([5, 5, 5, 5]), num_relevant=np.array([1, 1, 1, 6])), too_many, too_many)]
    for kwargs, message, numpy_message in cases:
        with sklearn.config_context(array_api_dispatch=False), pytest.raises(ValueError, match=numpy_message):
            sr.evaluate_ranks(ranks, metrics=["mrr"], **kwargs)
        with pytest.raises(ValueError, match=message):
            sr.evaluate_ranks(xp.asarray(ranks), metrics=["mrr"],
                              **{name: xp.asarray(value) for name, value in kwargs.items()})


@pytest.mark.parametrize("xp", NAMESPACES)
def test_invalid_inputs_raise_the_numpy_paths_errors(dispatch, xp):
    """Inputs invalid in every layout get the NumPy path's error under dispatch: not the message that the
    grouped-rows layout is NumPy-only, nor the array library's own conversion error."""
    score, target, _ = _label_index_data(24, n_queries=6, n_candidates=4)
    relevance = np.ones(score.shape)
    cases = [((target, score[:, :, None]), {}, ValueError, r"`y_score` must be 1-D or 2-D\. Got shape \(6, 4, 1\) "
                                                           r"instead\."),
             ((target, score), dict(qid=np.arange(6)), ValueError, r"`qid` is for the grouped layout.*Got qid with "
                                                                    r"2-D y_score of shape \(6, 4\) instead\."),
             ((target.astype(str), score), {}, TypeError, r"`y_true` must hold numbers\. Got an array of dtype <U\d+ "
                                                          r"instead\."),
             ((target, score), dict(sample_weight=["a"] * 6), TypeError, r"`sample_weight` must hold numbers"),
             ((relevance, score), dict(exclude=np.eye(6, 4, dtype=bool)), ValueError,
              r"must not remove a query's own relevant candidates.*Got a relevant item excluded at row 0 instead\.")]
    for (y_true, y_score), kwargs, error, message in cases:
        with sklearn.config_context(array_api_dispatch=False), pytest.raises(error, match=message):
            evaluate(y_true, y_score, metrics="mrr", **kwargs)
        with pytest.raises(error, match=message):
            evaluate(y_true if y_true.dtype.kind == "U" else xp.asarray(y_true), xp.asarray(y_score), metrics="mrr",
                     **{name: xp.asarray(value) if name == "exclude" else value for name, value in kwargs.items()})


@pytest.mark.parametrize("xp", NAMESPACES)
@pytest.mark.parametrize("ties", TIES)
def test_int64_scores_beyond_2_53_ranked_exactly(dispatch, xp, ties):
    """int64 scores that float64 would round into ties (2**60 + small offsets) are ranked exactly, as
    on the NumPy path (which compares integers as they are), in both matrix layouts."""
    rng = np.random.default_rng(25)
    score = 2 ** 60 + rng.integers(0, 4, size=(30, 9))
    score[:5] = -score[:5]
    score[5] = 2 ** 63 - 1
    assert np.unique(score.astype(np.float64)).size < np.unique(score).size  # float64 would tie them
    target = rng.integers(0, 9, size=30)
    mask = rng.random(score.shape) < 0.3
    mask[np.arange(30), target] = False
    relevance = (rng.random(score.shape) < 0.3) * 1.0
    relevance[:, 1] = 1.0
    metrics = ["mr", "mrr", "hits@1", "amri", "zmrr", "ndcg", "auc"]
    for y_true, exclude, targets in ((target, mask, "first"), (relevance, mask & (relevance == 0), "all"),
                                     (relevance, None, "first")):
        kwargs = dict(ties=ties, targets=targets) if exclude is None else dict(ties=ties, targets=targets,
                                                                                exclude=exclude)
        expected, got = _evaluate_both(xp, y_true, score, metrics, **kwargs)
        for name in metrics:
            _close(got.summary[name], expected.summary[name])
        kwargs.pop("ties")
        with sklearn.config_context(array_api_dispatch=False):
            expected_ranks = compute_ranks(y_true, score, **kwargs)
        got_ranks = compute_ranks(xp.asarray(y_true), xp.asarray(score),
                                  **{k: xp.asarray(v) if k == "exclude" else v for k, v in kwargs.items()})
        for field in ("optimistic", "pessimistic", "ordinal", "expected"):
            _close(_as_numpy(xp, getattr(got_ranks, field)), getattr(expected_ranks, field))
    score[0, 0] = -2 ** 63  # its negation overflows: the relevance matrix could not sort it
    with pytest.raises(TypeError, match=r"`y_score` integers beyond 2\*\*53 .*Got integers of dtype .*int64 "
                                        r"instead\."):
        evaluate(xp.asarray(target), xp.asarray(score), metrics="mrr")


@pytest.mark.parametrize("library", ["array_api_strict", "torch"])
def test_report_to_frame_reads_namespace_arrays_on_the_cpu(library, monkeypatch):
    """to_frame of a report computed under dispatch equals the NumPy path's frame."""
    pd = pytest.importorskip("pandas")
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    rng = np.random.default_rng(7)
    scores = rng.integers(0, 4, size=(6, 9)).astype(float)
    truth = rng.integers(0, 9, size=6)
    expected = sr.evaluate(truth, scores, metrics=["mrr", "hits@3"]).to_frame()
    xp = pytest.importorskip(library)
    with sklearn.config_context(array_api_dispatch=True):
        report = sr.evaluate(xp.asarray(truth), xp.asarray(scores), metrics=["mrr", "hits@3"])
    assert not isinstance(report.per_query["mrr"], np.ndarray)
    frame = report.to_frame()
    pd.testing.assert_frame_equal(frame, expected, check_index_type=False, check_dtype=False, rtol=1e-12)
    assert frame.dtypes.map(lambda d: d.kind).tolist() == ["f", "f"]
