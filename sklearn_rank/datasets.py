"""Learning-to-rank data: a seeded generator, and SVMlight / LETOR ranking files."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

from ._checks import check_positive_int
from .io._svmlight import dump_svmlight_ranking, load_svmlight_ranking
from .exceptions import InputValueError

__all__ = ["make_ranking", "load_svmlight_ranking", "dump_svmlight_ranking"]

# The file functions live in sklearn_rank.io (io/ holds the file formats); their documented home is here.
for _public in (load_svmlight_ranking, dump_svmlight_ranking):
    _public.__module__ = __name__
del _public


def make_ranking(n_queries=100, n_candidates=20, n_features=10, *, n_informative=None, n_relevance_levels=4,
                 noise=1.0, relevant_fraction=0.3, random_state=None, as_frame=False):
    """Generate a learning-to-rank problem: features, graded relevance and query ids.

    Each candidate has Gaussian features; its latent utility is a sparse linear
    function of them plus a per-query offset and Gaussian noise. Within each
    query the candidates are graded by their utility: the top
    ``relevant_fraction`` share is relevant, split into
    ``n_relevance_levels - 1`` grades of equal size, the rest get grade 0. A
    model that learns the linear function ranks well; ``noise`` controls how
    well it can.

    Read more in the :ref:`User Guide <quickstart_grid_search>`.

    Parameters
    ----------
    n_queries : int, default=100
        Number of queries.
    n_candidates : int or tuple of (int, int), default=20
        Candidates per query, or the inclusive range to draw each query's count from.
    n_features : int, default=10
        Number of features.
    n_informative : int, default=None
        Features with a non-zero weight (default: all).
    n_relevance_levels : int, default=4
        Grades ``0 .. n_relevance_levels - 1``; 2 gives binary relevance.
    noise : float, default=1.0
        Standard deviation of the Gaussian noise added to the utility
        (the signal has unit standard deviation).
    relevant_fraction : float in (0, 1], default=0.3
        Share of each query's candidates with a positive grade (at least one).
    random_state : int, RandomState instance or None, default=None
        Seed, as in scikit-learn's generators.
    as_frame : bool, default=False
        Return ``X`` as a :class:`pandas.DataFrame` with a ``qid`` column
        first and ``y`` as a :class:`pandas.Series`.

    Returns
    -------
    X : ndarray of shape (n_rows, n_features) or DataFrame
        Features (with a ``qid`` column when ``as_frame=True``).
    y : ndarray of shape (n_rows,) of int
        Graded relevance.
    qid : ndarray of shape (n_rows,) of int
        Query id of each row; rows of a query are contiguous.

    Examples
    --------
    >>> from sklearn_rank.datasets import make_ranking
    >>> X, y, qid = make_ranking(n_queries=3, n_candidates=5, n_features=4, random_state=0)
    >>> X.shape, y.shape, qid.tolist()
    ((15, 4), (15,), [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2])
    >>> set(y.tolist()) <= {0, 1, 2, 3}
    True
    """
    n_queries = check_positive_int(n_queries, "n_queries")
    n_features = check_positive_int(n_features, "n_features")
    n_relevance_levels = check_positive_int(n_relevance_levels, "n_relevance_levels", minimum=2)
    n_informative = n_features if n_informative is None else check_positive_int(n_informative, "n_informative")
    if n_informative > n_features:
        raise InputValueError(f"`n_informative` must be <= n_features ({n_features}). Got {n_informative} instead.")
    if not isinstance(noise, numbers.Real) or not noise >= 0:
        raise InputValueError(f"`noise` must be a non-negative number. Got {noise!r} instead.")
    if not isinstance(relevant_fraction, numbers.Real) or not 0 < relevant_fraction <= 1:
        raise InputValueError(f"`relevant_fraction` must lie in (0, 1]. Got {relevant_fraction!r} instead.")
    rng = check_random_state(random_state)
    if isinstance(n_candidates, tuple):
        if len(n_candidates) != 2:
            raise InputValueError(f"`n_candidates` must be an int or a (low, high) pair. Got {n_candidates!r} instead.")
        low = check_positive_int(n_candidates[0], "n_candidates[0]")
        high = check_positive_int(n_candidates[1], "n_candidates[1]", minimum=low)
        sizes = rng.randint(low, high + 1, size=n_queries)
    else:
        sizes = np.full(n_queries, check_positive_int(n_candidates, "n_candidates"))
    n_rows = int(sizes.sum())
    qid = np.repeat(np.arange(n_queries), sizes)

    X = rng.standard_normal((n_rows, n_features))
    weights = np.zeros(n_features)
    informative = rng.choice(n_features, n_informative, replace=False)
    weights[informative] = rng.standard_normal(n_informative)
    weights /= np.linalg.norm(weights) or 1.0
    offset = rng.standard_normal(n_queries)[qid]  # per-query shift: only the order within a query matters
    utility = X @ weights + offset + noise * rng.standard_normal(n_rows)

    # Grade within each query by the rank of the utility (rank 0 = best).
    order = np.lexsort((-utility, qid))
    starts = np.cumsum(sizes) - sizes
    position = np.empty(n_rows, dtype=np.int64)
    position[order] = np.arange(n_rows) - np.repeat(starts, sizes)
    n_relevant = np.maximum(1, np.floor(relevant_fraction * sizes).astype(np.int64))[qid]
    levels = n_relevance_levels - 1
    grade_from_top = (position * levels) // n_relevant  # 0 for the best band
    y = np.where(position < n_relevant, levels - grade_from_top, 0).astype(np.int64)

    if as_frame:
        import pandas as pd

        frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(n_features)])
        frame.insert(0, "qid", qid)
        return frame, pd.Series(y, name="relevance"), qid
    return X, y, qid
