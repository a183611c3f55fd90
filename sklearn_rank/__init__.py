"""sklearn-rank: rank-based evaluation for scikit-learn.

One metric engine for MRR, MAP, nDCG, ``hits@k``, precision/recall@k,
R-precision, per-query AUC and the rank-statistics family, over four input
layouts, with explicit tie policies and the filtered protocol.
"""

import importlib

from .exceptions import UndefinedMetricWarning
from ._ranks import Ranks
from ._registry import MetricSpec, get_metric, metric_names
from ._report import RankingReport
from .metrics import (compute_ranks, dcg_score, evaluate, evaluate_ranks, hits_at_k, mean_average_precision,
                      mean_rank, mean_reciprocal_rank, ndcg_score, positive_vs_negatives, precision_at_k,
                      r_precision, recall_at_k)

__version__ = "0.1.0"

# The scikit-learn integration is imported on first use: the metric functions and the command
# line start without loading scikit-learn.
_LAZY = {
    "LightGBMMetric": "._boosting",
    "MultimetricRankingScorer": "._scorer",
    "RankingEvaluator": "._evaluator",
    "RankingScorer": "._scorer",
    "get_scorer": "._scorer",
    "make_multimetric_scorer": "._scorer",
    "make_ranking_scorer": "._scorer",
    "make_scorers": "._scorer",
    "XGBoostMetric": "._boosting",
    "evaluate_batches": "._batches",
    "evaluate_blocks": "._blocks",
    "exclude_from_pairs": "._filters",
    "exclude_known_triples": "._filters",
    "lightgbm_metric": "._boosting",
    "xgboost_metric": "._boosting",
}


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "LightGBMMetric",
    "MetricSpec",
    "MultimetricRankingScorer",
    "RankingEvaluator",
    "RankingReport",
    "RankingScorer",
    "Ranks",
    "UndefinedMetricWarning",
    "XGBoostMetric",
    "__version__",
    "compute_ranks",
    "dcg_score",
    "evaluate",
    "evaluate_batches",
    "evaluate_blocks",
    "evaluate_ranks",
    "exclude_from_pairs",
    "exclude_known_triples",
    "get_metric",
    "get_scorer",
    "hits_at_k",
    "lightgbm_metric",
    "make_multimetric_scorer",
    "make_ranking_scorer",
    "make_scorers",
    "mean_average_precision",
    "mean_rank",
    "mean_reciprocal_rank",
    "metric_names",
    "ndcg_score",
    "positive_vs_negatives",
    "precision_at_k",
    "r_precision",
    "recall_at_k",
    "xgboost_metric",
]
