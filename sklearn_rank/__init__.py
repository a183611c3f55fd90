"""sklearn-rank: rank-based evaluation for scikit-learn.

One metric engine for MRR, MAP, nDCG, hits@k, precision/recall@k,
R-precision, per-query AUC and the rank-statistics family, over four input
layouts, with explicit tie policies and the filtered protocol.
"""

from ._evaluator import RankingEvaluator
from ._kernels import UndefinedMetricWarning
from ._ranks import Ranks
from ._registry import MetricSpec, get_metric, metric_names
from ._report import RankingReport
from ._scorer import RankingScorer, get_scorer, make_ranking_scorer, make_scorers
from .metrics import (compute_ranks, dcg_score, evaluate, evaluate_ranks, hits_at_k, mean_average_precision,
                      mean_rank, mean_reciprocal_rank, ndcg_score, positive_vs_negatives, precision_at_k,
                      r_precision, recall_at_k)

__version__ = "0.1.0"

__all__ = [
    "MetricSpec",
    "RankingEvaluator",
    "RankingReport",
    "RankingScorer",
    "Ranks",
    "UndefinedMetricWarning",
    "__version__",
    "compute_ranks",
    "dcg_score",
    "evaluate",
    "evaluate_ranks",
    "get_metric",
    "get_scorer",
    "hits_at_k",
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
]
