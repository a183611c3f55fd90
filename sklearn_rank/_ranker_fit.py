"""What ``RankingEvaluator.fit`` gives the wrapped estimator besides X and y: rankers' query
arguments and the evaluation sets for early stopping.

- rankers (``fit`` takes ``qid``: XGBRanker; or ``group``: LGBMRanker) get their rows sorted
  stably by query, with ``qid`` codes or ``group`` sizes, and the fit parameters with one value
  per row follow their rows (XGBRanker's per-query weights follow their queries);
- evaluation sets (``eval_set``, or LightGBM's ``eval_X`` and ``eval_y``) lose their query-id
  column, and for rankers are sorted by query and get ``eval_qid`` or ``eval_group``.

:class:`RankerFitMixin` holds the two methods of ``RankingEvaluator`` that do this; the module
functions are theirs and ``fit``'s.
"""

from __future__ import annotations

import inspect

import numpy as np

from ._inputs import _query_codes
from ._sklearn_compat import safe_indexing
from .exceptions import InputTypeError, InputValueError


def _query_parameter(estimator):
    """How a ranker takes query information in fit: "qid" (XGBRanker), "group" (LGBMRanker) or None."""
    try:
        parameters = inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without signature
        return None
    if "qid" in parameters:
        return "qid"
    if "group" in parameters:
        return "group"
    return None


def _takes_parameter(method, name):
    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without signature
        return True
    return name in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def _is_row_aligned(value, n_rows):
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__"):
        return False
    shape = getattr(value, "shape", None)
    if shape is None:
        return False  # lists (eval_set, callbacks, ...) are left alone
    return len(shape) >= 1 and shape[0] == n_rows


_EVAL_DATA = ("eval_set", "eval_X", "eval_y")


def _evaluation_sets(params):
    """The evaluation sets among the fit parameters as a list of (X, y) pairs, and a function that stores
    prepared pairs back in the caller's form; (None, None) when there are none.

    ``eval_set``: a list of pairs (LightGBM also takes one pair); LightGBM >= 4.7 also takes ``eval_X``
    and ``eval_y``, each one item or a tuple of items. Forms the engines refuse (``eval_set`` with
    ``eval_X``, ``eval_X`` without ``eval_y``, tuples of different lengths) are left to their errors.
    """
    eval_set, eval_X, eval_y = (params.get(name) for name in _EVAL_DATA)
    if eval_X is not None or eval_y is not None:
        multiple = isinstance(eval_X, tuple)
        if (eval_set is not None or eval_X is None or eval_y is None or multiple != isinstance(eval_y, tuple)
                or (multiple and len(eval_X) != len(eval_y))):
            return None, None

        def store(params, pairs):
            if multiple:
                params["eval_X"], params["eval_y"] = tuple(X for X, _ in pairs), tuple(y for _, y in pairs)
            else:
                (params["eval_X"], params["eval_y"]), = pairs

        return (list(zip(eval_X, eval_y)) if multiple else [(eval_X, eval_y)]), store
    if eval_set is None:
        return None, None
    pairs = [eval_set] if isinstance(eval_set, tuple) else eval_set
    if not isinstance(pairs, list) or not all(isinstance(pair, (list, tuple)) and len(pair) == 2 for pair in pairs):
        raise InputTypeError(f"`eval_set` must be a list of (X, y) pairs. Got {type(eval_set).__name__} "
                             f"{_short_repr(eval_set)} instead.")

    def store(params, pairs):
        params["eval_set"] = pairs

    return pairs, store


# Fit parameters with one value per row, or for rankers whose fit takes `qid` (XGBRanker) one
# weight per query (see _follow_rows): checked and reordered with the rows.
_ROW_PARAMS = ("sample_weight", "init_score", "base_margin")
# The same for the entries of the per-evaluation-set lists.
_EVAL_ROW_PARAMS = ("eval_sample_weight", "eval_init_score", "sample_weight_eval_set", "base_margin_eval_set")
# XGBoost's weights: one per query group for rankers (XGBRanker.fit: "Weights are per-group for ranking
# tasks"), in the order the groups appear in the data. LightGBM's weights are per row (Dataset.set_weight).
_PER_QUERY_PARAMS = ("sample_weight", "sample_weight_eval_set")


def _follow_rows(value, name, codes, order, mode, estimator_name):
    """``value`` (a fit parameter named ``name``) reordered as the rows are sorted by query.

    ``codes``: the query code of each row as given (codes number the sorted distinct query ids);
    ``order``: the stable sorting permutation of the rows, or None when they come sorted (then ``value``
    is returned as it is, once its length is checked). A value with one entry per row follows its row.
    For rankers whose fit takes ``qid`` (``mode == "qid"``, XGBRanker), ``sample_weight`` and the entries
    of ``sample_weight_eval_set`` may hold one weight per query, in the order the queries first appear
    in the data (XGBoost's convention); they are recognised by their length (the number of queries,
    when it differs from the number of rows: with one row per query both readings coincide) and are
    permuted to the sorted query order. That order of appearance is defined only when the rows of every
    query are contiguous: per-query weights with a query's rows scattered raise a ValueError.
    """
    n_rows = len(codes)
    n_queries = int(codes.max()) + 1 if n_rows else 0
    shape = getattr(value, "shape", None)
    if shape is not None:
        length = shape[0] if len(shape) else None
    else:
        length = len(value) if hasattr(value, "__len__") and not isinstance(value, (str, bytes, dict)) else None
    per_query = mode == "qid" and name.split("[")[0] in _PER_QUERY_PARAMS
    if length == n_rows:
        return value if order is None else safe_indexing(value, order)
    if not per_query or length != n_queries:
        expected = (f"one value per row ({n_rows}) or, for {estimator_name}, one weight per query ({n_queries})"
                    if per_query else f"one value per row ({n_rows})")
        got = f"{length} values" if length is not None else f"{type(value).__name__} {_short_repr(value)}"
        raise InputValueError(f"`{name}` must hold {expected}. Got {got} instead.")
    starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
    if len(starts) != n_queries:
        n_split = int(np.count_nonzero(np.bincount(codes[starts], minlength=n_queries) > 1))
        raise InputValueError(
            f"`{name}` holds one weight per query ({n_queries}) for {estimator_name}, given in the order the "
            "queries appear in the data; RankingEvaluator sorts the rows by query, and that order is ambiguous "
            "when the rows of a query are not contiguous. Put the rows of each query together. Got "
            f"{n_split} {'query' if n_split == 1 else 'queries'} with scattered rows instead.")
    if order is None:
        return value
    # The query of the j-th run is codes[starts[j]]; in sorted order, query k takes the weight of its run.
    return safe_indexing(value, np.argsort(codes[starts], kind="stable"))


def _reorder(entry, order, n_rows):
    """``entry`` in the row order ``order`` when it holds one value per row (n_rows); else as it is."""
    if order is None or isinstance(entry, (str, bytes, dict)) or not hasattr(entry, "__len__"):
        return entry
    if _safe_len(entry) != n_rows:
        return entry
    return safe_indexing(entry, order)


def _short_repr(value, limit=80):
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _safe_len(y):
    shape = getattr(y, "shape", None)
    return shape[0] if shape is not None else len(y)


class RankerFitMixin:
    """``RankingEvaluator``'s preparation of rankers' fit arguments and of evaluation sets.

    The host class provides ``estimator`` and ``qid`` (its parameters), ``_split_query(X, qid)``
    (the query ids and X without its query-id column) and ``_missing_qid(X)`` (the message for
    rows without query ids).
    """

    def _ranker_inputs(self, X, y, codes, mode, params):
        """Sort rows by query and add the ranker's query argument (``codes``: query code per row, or None)."""
        for name in ("qid", "group", "eval_group"):
            if params.get(name) is not None:
                raise InputValueError(
                    f"RankingEvaluator passes the query information to the ranker itself: give query "
                    f"ids through its `qid` column or fit(..., qid=...) (evaluation sets: their `qid` "
                    f"column or fit(..., eval_qid=[...])). Got fit parameter {name!r} instead.")
            params.pop(name, None)
        n_rows = _safe_len(y)
        if codes is None:
            if self.qid is not None:
                raise InputValueError(self._missing_qid(X))
            codes = np.zeros(n_rows, dtype=np.intp)
        # No copy when the rows already come sorted by query: then everything is passed on as it is.
        order = None if (codes[1:] >= codes[:-1]).all() else np.argsort(codes, kind="stable")
        estimator_name = type(self.estimator).__name__
        checked = {}
        for key, value in params.items():
            if key in _ROW_PARAMS and value is not None:
                # Known per-row parameters (per query for XGBRanker's sample_weight): checked, and
                # reordered whatever their type (lists included).
                checked[key] = _follow_rows(value, key, codes, order, mode, estimator_name)
            elif order is not None and key not in _EVAL_DATA and _is_row_aligned(value, n_rows):
                # Evaluation sets are sorted by their own queries (_eval_set_inputs), even when their size
                # happens to equal the training set's.
                checked[key] = safe_indexing(value, order)
            else:
                checked[key] = value
        params = checked
        if order is not None:
            X = safe_indexing(X, order)
            y = safe_indexing(y, order)
        sorted_codes = codes if order is None else codes[order]
        if mode == "qid":
            params["qid"] = sorted_codes
        else:
            params["group"] = np.bincount(sorted_codes)
        return X, y, params

    def _eval_set_inputs(self, params, eval_qid, mode):
        """Strip the query-id column from every X of ``eval_set``; for rankers (``mode``: "qid" or "group"),
        sort each evaluation set by query and add ``eval_qid`` or ``eval_group``."""
        pairs, store = _evaluation_sets(params)
        if pairs is None:
            if eval_qid is not None:
                raise InputValueError(
                    "`eval_qid` holds the query ids of the evaluation sets (the `eval_set` fit "
                    "parameter, or LightGBM's `eval_X` and `eval_y`). Got eval_qid without evaluation "
                    "sets instead.")
            return params
        if eval_qid is not None:
            if mode is None:
                raise InputValueError(f"`eval_qid` is passed on to rankers only (estimators whose fit takes `group` or "
                                      f"`qid`); {type(self.estimator).__name__}.fit takes no query information. Got "
                                      "eval_qid instead.")
            if not isinstance(eval_qid, (list, tuple)) or len(eval_qid) != len(pairs):
                length = len(eval_qid) if isinstance(eval_qid, (list, tuple)) else type(eval_qid).__name__
                raise InputValueError(f"`eval_qid` must be a list with one array of query ids (or None) per item of "
                                      f"eval_set ({len(pairs)}). Got {length} instead.")
        params = dict(params)
        source = "eval_set" if params.get("eval_set") is not None else "eval_X"
        new_pairs, orders, sorted_codes, given_codes = [], [], [], []
        for index, (X_eval, y_eval) in enumerate(pairs):
            given = None if eval_qid is None else eval_qid[index]
            query, X_eval = self._split_query(X_eval, given)
            order = None
            if mode is not None:
                n_rows = _safe_len(y_eval)
                n_X = _safe_len(X_eval) if hasattr(X_eval, "shape") or hasattr(X_eval, "__len__") else n_rows
                if n_X != n_rows:
                    what = f"eval_set[{index}]" if source == "eval_set" else f"eval_X[{index}] and eval_y[{index}]"
                    raise InputValueError(f"`{what}` must hold one label per row of X ({n_X} rows). Got {n_rows} "
                                          "labels instead.")
                if query is None:
                    if self.qid is not None:
                        raise InputValueError(
                            f"RankingEvaluator needs the query ids of eval_set[{index}] to pass its groups to "
                            f"{type(self.estimator).__name__}: give them as its query-id column "
                            f"(qid={self.qid!r}) or as fit(..., eval_qid=[...]) with one array per evaluation set. "
                            "Got neither instead.")
                    codes = np.zeros(n_rows, dtype=np.intp)
                else:
                    try:
                        _, codes, _ = _query_codes(query, n_rows)
                    except ValueError as error:
                        raise InputValueError(f"Query ids of eval_set[{index}] (`eval_qid` or its query-id column): "
                                              f"{error}") from None
                given_codes.append(codes)
                if (codes[1:] < codes[:-1]).any():
                    # The engines need the rows of a query contiguous: sort stably, as the training rows.
                    order = np.argsort(codes, kind="stable")
                    X_eval, y_eval, codes = safe_indexing(X_eval, order), safe_indexing(y_eval, order), codes[order]
                sorted_codes.append(codes)
            orders.append(order)
            new_pairs.append((X_eval, y_eval))
        store(params, new_pairs)
        if mode is None:
            return params
        estimator_name = type(self.estimator).__name__
        for key, value in params.items():
            # Lists with one entry per evaluation set (eval_sample_weight, eval_init_score,
            # base_margin_eval_set, ...): entries with one value per row follow their set's rows;
            # XGBRanker's per-query weights (sample_weight_eval_set) follow their set's queries.
            if key in _EVAL_ROW_PARAMS and value is not None and (not isinstance(value, (list, tuple))
                                                                  or len(value) != len(pairs)):
                got = f"{len(value)} entries" if isinstance(value, (list, tuple)) else type(value).__name__
                raise InputValueError(f"`{key}` must be a list with one entry (or None) per evaluation set "
                                      f"({len(pairs)}). Got {got} instead.")
            if key in _EVAL_ROW_PARAMS and value is not None:
                params[key] = [entry if entry is None else
                               _follow_rows(entry, f"{key}[{index}]", codes, order, mode, estimator_name)
                               for index, (entry, codes, order) in enumerate(zip(value, given_codes, orders))]
            elif key not in _EVAL_DATA and isinstance(value, (list, tuple)) and len(value) == len(pairs):
                params[key] = [_reorder(entry, order, _safe_len(pair[1]))
                               for entry, order, pair in zip(value, orders, new_pairs)]
        # A ranker whose fit takes no eval_qid / eval_group (and no **kwargs) gets none.
        name = "eval_qid" if mode == "qid" else "eval_group"
        if _takes_parameter(self.estimator.fit, name):
            params[name] = sorted_codes if mode == "qid" else [np.bincount(codes) for codes in sorted_codes]
        return params
