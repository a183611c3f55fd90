"""``sklearn-rank demo``: the main job on built-in data, no files and no network."""

from __future__ import annotations

import numpy as np

from ._inputs import TIE_POLICIES
from .metrics import evaluate


def demo_table():
    """Return the demo table as a string (five queries, some scores tied)."""
    # Five queries of six candidates; graded relevance; scores rounded, so some tie.
    y_true = np.array([[2, 0, 1, 0, 0, 0],
                       [0, 0, 0, 1, 0, 0],
                       [0, 3, 0, 0, 1, 0],
                       [1, 0, 0, 0, 0, 1],
                       [0, 0, 2, 0, 0, 0]])
    y_score = np.array([[0.9, 0.9, 0.4, 0.1, 0.3, 0.2],
                        [0.5, 0.5, 0.5, 0.5, 0.1, 0.0],
                        [0.2, 0.8, 0.1, 0.7, 0.8, 0.3],
                        [0.6, 0.6, 0.6, 0.1, 0.2, 0.3],
                        [0.1, 0.2, 0.9, 0.3, 0.4, 0.5]])
    metrics = ["mrr", "map", "ndcg@3", "hits@1", "mr"]
    lines = ["sklearn-rank demo: 5 queries x 6 candidates, graded relevance, tied scores",
             f"{'ties':<12}" + "".join(f"{m:>9}" for m in metrics)]
    for ties in TIE_POLICIES:
        report = evaluate(y_true, y_score, metrics=metrics, ties=ties)
        lines.append(f"{ties:<12}" + "".join(f"{report.summary[m]:>9.4f}" for m in metrics))
    return "\n".join(lines)


def run_demo():
    """Return the demo's printed text."""
    return demo_table() + "\n"
