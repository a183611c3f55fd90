"""The one module that touches scikit-learn's private names or branches on its version.

sklearn-rank supports scikit-learn 1.4 to 1.9. Everything below either imports a name with a
leading underscore, implements a private hook that scikit-learn reads, or picks between versions;
the rest of the package uses only scikit-learn's public API and the names defined here
(``tests/test_sklearn_compat.py`` checks that). When a supported version changes one of these,
this is the only file to change.

What each scikit-learn version needs:

- ``_safe_indexing`` (all versions): rows or columns of arrays, sparse matrices, DataFrames and
  lists. Private by name, but in scikit-learn's API reference and kept importable from
  ``sklearn.utils`` for third-party estimators.
- Feature checks: ``sklearn.utils.validation.validate_data`` from 1.6 on; the
  ``BaseEstimator._validate_data`` method in 1.4 and 1.5.
- Estimator tags: ``__sklearn_tags__`` (dataclasses, ``sklearn.utils.get_tags``) from 1.6 on;
  the ``_more_tags`` / ``_get_tags`` dictionaries, ``_xfail_checks`` and ``_estimator_type``
  in 1.4 and 1.5.
- A pipeline's last step: the private property ``Pipeline._final_estimator`` (all versions), read
  with ``getattr`` from whatever estimator a scorer is given.
- Array API dispatch (all versions): whether ``sklearn.get_config()["array_api_dispatch"]`` is on,
  and the namespace of an array under it (:func:`array_namespace`) through ``array_api_compat``:
  the installed package (which scikit-learn 1.4 and 1.5 require for dispatch), else the copy
  scikit-learn vendors from 1.6 on (``sklearn.externals.array_api_compat``).
- Metadata routing of a scorer: the private base ``_MetadataRequester`` and its hook
  ``_get_metadata_request`` (all versions); ``_accept_sample_weight``, read by
  ``_MultimetricScorer`` and the searches when routing is off (1.7 on); ``_routing_repr``, the
  scorer's name in routing messages (1.8 on). Older versions ignore the hooks they do not know.
- The cross-validation loop (all versions): :func:`fitted_for_own_score_in_cv` recognises a ``fit``
  called by ``sklearn.model_selection._validation._fit_and_score`` whose scorer is (or, in a
  ``_MultimetricScorer``, includes) the private ``_PassthroughScorer`` of ``scoring=None``, by looking
  at the caller's frames.
- Tools that hand an estimator other columns than those of X (all versions):
  :func:`column_tool_on_stack` recognises, by the modules of the caller's frames, scikit-learn's
  ``permutation_importance`` (``sklearn.inspection._permutation_importance``), which permutes every
  column of X, and the feature selectors ``SequentialFeatureSelector`` and ``RFE``/``RFECV``
  (``sklearn.feature_selection._sequential`` and ``_rfe``), which pass column subsets.
- One prediction for a dict of scorers (all versions): ``_MultimetricScorer`` shares the response
  of an estimator between the scorers of a dict that are instances of the private ``_BaseScorer``
  and name their response method in ``_response_method``, calling their ``_score(method_caller,
  estimator, X, y, **kwargs)`` with ``method_caller = functools.partial(_cached_call, cache)``;
  ``cache`` is a dict for one scoring call, or None when nothing is shared.
  :class:`SharedResponseScorer` takes part: :func:`response_cache` reads that dict, in which the
  scorer keeps the estimator's raw responses under keys of its own.
- Metadata routing of the feature selectors: :func:`selectors_route_metadata` says whether
  ``SequentialFeatureSelector.fit`` takes ``**params`` (scikit-learn >= 1.6, as RFE and RFECV).

Not here, because they are scikit-learn's documented extension points in every supported version:
the ``__metadata_request__<method>`` class attributes of a consumer (``RankingEvaluator``,
``QueryGroupKFold``) and the public ``sklearn.utils.metadata_routing`` names.
"""

from __future__ import annotations

import copy
import functools
import inspect
import sys

from sklearn.base import BaseEstimator
from sklearn.utils import _safe_indexing
from sklearn.utils.metadata_routing import MetadataRequest, _MetadataRequester, get_routing_for_object

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _validate_data
except ImportError:  # pragma: no cover - scikit-learn 1.4 and 1.5
    _validate_data = None

try:  # scikit-learn 1.4 to 1.9: the scorer of scoring=None, which calls estimator.score
    from sklearn.metrics._scorer import _PassthroughScorer
except ImportError:  # pragma: no cover - a future version without it: the check below answers False
    _PassthroughScorer = None

try:  # scikit-learn 1.4 to 1.9: what _MultimetricScorer shares a response between
    from sklearn.metrics._scorer import _BaseScorer, _cached_call
except ImportError:  # pragma: no cover - a future version without them: each scorer predicts on its own
    _BaseScorer = _cached_call = None

__all__ = ["FINAL_ESTIMATOR", "SKLEARN_TAGS", "EvaluatorTagsMixin", "ScorerRequester",
           "SharedResponseScorer", "array_device", "array_namespace", "check_features", "column_tool_on_stack",
           "fitted_for_own_score_in_cv", "is_namespace_array", "namespace_of", "response_cache", "safe_indexing",
           "selectors_route_metadata"]

# scikit-learn >= 1.6: tags are dataclasses built by __sklearn_tags__; before, dictionaries (_more_tags).
SKLEARN_TAGS = hasattr(BaseEstimator, "__sklearn_tags__")

# Rows (axis=0) or columns (axis=1) of arrays, sparse matrices, DataFrames and lists; the same
# signature in scikit-learn 1.4 to 1.9.
safe_indexing = _safe_indexing

# The attribute holding a pipeline's last step ("passthrough" when there is none); scikit-learn 1.4 to 1.9.
FINAL_ESTIMATOR = "_final_estimator"


def _array_api_compat():
    """The ``array_api_compat`` module: the installed one, else scikit-learn's vendored copy (>= 1.6)."""
    try:
        import array_api_compat
    except ImportError:  # pragma: no cover - depends on the environment
        try:
            from sklearn.externals import array_api_compat
        except ImportError:
            return None
    return array_api_compat


def array_namespace(y_score):
    """The Array API namespace to compute in, or None for the NumPy path.

    A namespace is returned only when scikit-learn's ``array_api_dispatch`` is on and ``y_score`` is
    an array of another library than NumPy (torch, CuPy, array-api-strict, ...): NumPy arrays,
    lists, sparse matrices and DataFrames take the NumPy path, under dispatch or not. The namespace
    is ``array_api_compat``'s wrapper (``array_api_compat.torch`` for a tensor).
    """
    from sklearn import get_config

    if not get_config().get("array_api_dispatch", False):
        return None
    compat = _array_api_compat()
    if compat is None or not compat.is_array_api_obj(y_score) or compat.is_numpy_array(y_score):
        return None
    return compat.array_namespace(y_score)


def namespace_of(*arrays):
    """``array_api_compat.array_namespace``: the one namespace of ``arrays`` (a TypeError if they mix)."""
    return _array_api_compat().array_namespace(*arrays)


def array_device(x):
    """The device of a namespace array (``array_api_compat.device``)."""
    return _array_api_compat().device(x)


def is_namespace_array(x):
    """Whether ``x`` is an array of an Array API library other than NumPy."""
    compat = _array_api_compat()
    return compat is not None and compat.is_array_api_obj(x) and not compat.is_numpy_array(x)


def check_features(estimator, X, *, reset):
    """Record (``reset=True``) or check ``n_features_in_`` and ``feature_names_in_`` without converting X.

    scikit-learn's own errors and warnings for a mismatch (number of features, feature names).
    """
    if _validate_data is not None:  # scikit-learn >= 1.6
        return _validate_data(estimator, X, reset=reset, skip_check_array=True)
    return estimator._validate_data(X, reset=reset, cast_to_ndarray=False)  # pragma: no cover - 1.4, 1.5


_CV_LOOP_MODULE, _CV_LOOP_FUNCTION = "sklearn.model_selection._validation", "_fit_and_score"


def fitted_for_own_score_in_cv(estimator, max_depth=64):
    """Whether ``estimator.fit`` is running inside scikit-learn's cross-validation loop, which will then
    score the fitted estimator with its own ``score`` (no ``scoring=``).

    The loop is ``_fit_and_score`` (cross_validate, cross_val_score, the searches, learning_curve,
    validation_curve). Under its default ``error_score=np.nan`` an exception of ``score`` becomes a
    warning and a NaN score, and the search goes on; a ``fit`` that knows its ``score`` must fail can
    raise instead, before any training (a fit that fails in every fold ends the search with an error).
    ``estimator`` is the loop's estimator or the last step of a pipeline that is. False whenever the
    frames do not show exactly that.
    """
    if _PassthroughScorer is None:  # pragma: no cover - see the import
        return False
    frame = sys._getframe(1)
    for _ in range(max_depth):
        if frame is None:
            return False
        if frame.f_code.co_name == _CV_LOOP_FUNCTION and frame.f_globals.get("__name__") == _CV_LOOP_MODULE:
            local = frame.f_locals
            scorer = local.get("scorer")
            # cross_val_score and cross_validate pass their scorers as a dict ({"score": scorer}, scikit-learn
            # 1.4) or wrapped in a _MultimetricScorer holding that dict (1.5 on).
            scorers = scorer if isinstance(scorer, dict) else getattr(scorer, "_scorers", None)
            scorers = list(scorers.values()) if isinstance(scorers, dict) else [scorer]
            if not any(isinstance(one, _PassthroughScorer) for one in scorers):
                return False
            outer = local.get("estimator")
            try:
                return outer is estimator or getattr(outer, FINAL_ESTIMATOR, None) is estimator
            except Exception:  # a property of some meta-estimator may raise anything
                return False
        frame = frame.f_back
    return False


class EvaluatorTagsMixin:
    """Estimator tags of a meta-estimator whose ``score`` is a ranking metric.

    The tags are those of the wrapped ``self.estimator`` (estimator type, input, target,
    classifier and regressor tags, non-determinism), except that a regressor gets the
    ``poor_score`` tag: ``score`` is a ranking metric, not R², so the common checks' R² threshold
    (on targets that are not relevance grades, some negative) does not apply. Put it before
    ``BaseEstimator`` in the bases.
    """

    if SKLEARN_TAGS:  # scikit-learn >= 1.6

        def __sklearn_tags__(self):
            from sklearn.utils import get_tags

            tags = super().__sklearn_tags__()
            inner = get_tags(self.estimator)
            tags.estimator_type = inner.estimator_type
            tags.target_tags = copy.deepcopy(inner.target_tags)
            tags.input_tags = copy.deepcopy(inner.input_tags)
            tags.non_deterministic = inner.non_deterministic
            tags.classifier_tags = copy.deepcopy(inner.classifier_tags)
            tags.regressor_tags = copy.deepcopy(inner.regressor_tags)
            if tags.regressor_tags is not None:
                tags.regressor_tags.poor_score = True
            return tags

    else:  # pragma: no cover - scikit-learn 1.4 and 1.5

        @property
        def _estimator_type(self):
            return getattr(self.estimator, "_estimator_type", None)

        def _more_tags(self):
            tags = dict(self.estimator._get_tags()) if hasattr(self.estimator, "_get_tags") else {}
            tags.pop("_xfail_checks", None)
            if getattr(self.estimator, "_estimator_type", None) == "regressor":
                tags["poor_score"] = True
            return tags


class ScorerRequester(_MetadataRequester):
    """The metadata-routing side of a scorer that takes ``sample_weight``.

    A subclass lists the metadata its ``__call__`` requests by default in
    ``_default_score_requests`` (``(param, alias)`` pairs, as ``add_request`` takes them) and
    changes them with :meth:`_set_score_requests`.
    """

    _default_score_requests = ()

    def _accept_sample_weight(self):
        # Read by scikit-learn >= 1.7 (_MultimetricScorer, BaseSearchCV) when routing is off.
        return True

    def _routing_repr(self):
        # scikit-learn >= 1.8 names the scorer with it in routing messages.
        return repr(self)

    def _get_metadata_request(self):
        if hasattr(self, "_metadata_request"):
            return get_routing_for_object(self._metadata_request)
        # A string owner reads the same in the messages of every supported version.
        requests = MetadataRequest(owner=repr(self))
        for param, alias in self._default_score_requests:
            requests.score.add_request(param=param, alias=alias)
        return requests

    def _set_score_requests(self, requests):
        """Apply ``{param: alias}`` to the score requests (each alias as ``add_request`` takes it)."""
        current = self._get_metadata_request()
        for param, alias in requests.items():
            current.score.add_request(param=param, alias=alias)
        self._metadata_request = current
        return self


# --------------------------------------------------------------------------------------
# tools that permute or select the columns of X
# --------------------------------------------------------------------------------------

_COLUMN_TOOLS = {
    "sklearn.inspection._permutation_importance": "sklearn.inspection.permutation_importance",
    "sklearn.feature_selection._sequential": "SequentialFeatureSelector",
    "sklearn.feature_selection._rfe": "RFE or RFECV",
}


def selectors_route_metadata():
    """Whether ``SequentialFeatureSelector.fit``, ``RFE.fit`` and ``RFECV.fit`` route metadata (``**params``:
    scikit-learn >= 1.6); imported here, not at the top, to keep ``sklearn.feature_selection`` off the
    start-up path."""
    from sklearn.feature_selection import SequentialFeatureSelector

    return "params" in inspect.signature(SequentialFeatureSelector.fit).parameters


def column_tool_on_stack(max_depth=200):
    """The scikit-learn tool on the call stack that gives estimators other columns than those of X, or None.

    ``"sklearn.inspection.permutation_importance"`` permutes every column of X in turn (its parallel
    workers run the module's ``_calculate_permutation_scores``, so they are recognised too);
    ``"SequentialFeatureSelector"`` and ``"RFE or RFECV"`` fit, split and score column subsets. A
    query-id column of X is one more column to them: permuted, or a candidate feature. Recognised by
    the modules of the caller's frames (one dictionary look-up per frame).
    """
    frame = sys._getframe(1)
    for _ in range(max_depth):
        if frame is None:
            return None
        tool = _COLUMN_TOOLS.get(frame.f_globals.get("__name__"))
        if tool is not None:
            return tool
        frame = frame.f_back
    return None


# --------------------------------------------------------------------------------------
# one prediction for the scorers of a dict
# --------------------------------------------------------------------------------------


def response_cache(method_caller):
    """The dict in which ``_MultimetricScorer`` shares responses between the scorers of one call, or None.

    ``method_caller`` is what ``_MultimetricScorer`` passes to ``_score``:
    ``functools.partial(_cached_call, cache)``, where ``cache`` is a dict when several of its scorers
    call the same response method, else None.
    """
    if (_cached_call is not None and isinstance(method_caller, functools.partial)
            and method_caller.func is _cached_call and method_caller.args and isinstance(method_caller.args[0], dict)):
        return method_caller.args[0]
    return None


class SharedResponseScorer(ScorerRequester, *(() if _BaseScorer is None else (_BaseScorer,))):
    """A scorer that shares the estimator's responses with the other scorers of a ``scoring=`` dict.

    scikit-learn's ``_MultimetricScorer`` counts the response methods of the dict's scorers that are
    ``_BaseScorer`` instances (``_response_method``); when one is used more than once it hands each of
    them a shared cache through ``_score(method_caller, estimator, X, y, **kwargs)``. A subclass
    implements ``_score_shared(responses, estimator, X, y_true, **kwargs)``, where ``responses`` is
    that dict (or None): it stores the estimator's raw outputs there under keys of its own, so that
    scikit-learn's scorers never read them. Put it after the scorer's own bases, so that their
    ``__call__``, ``set_score_request`` and routing hooks win over ``_BaseScorer``'s.
    """

    # Counted by _MultimetricScorer._use_cache: the first of these the estimator has (predict, for every
    # regressor, ranker and classifier).
    _response_method = ("predict", "decision_function", "predict_proba")

    def _score(self, method_caller, estimator, X, y_true, **kwargs):
        return self._score_shared(response_cache(method_caller), estimator, X, y_true, **kwargs)
