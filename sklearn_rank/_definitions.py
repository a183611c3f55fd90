"""The options that choose between a metric's published definitions, as one record (docs/conventions.rst).

The engine's plan (``_engine.plan``) builds one :class:`Definitions` from the options in force (a preset's
and the caller's); the kernels of every layout and namespace read it (``_lists.ListKernels``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Definitions:
    """The options that choose between a metric's published definitions (docs/conventions.rst).

    ``ap_denominator``: ``"relevant"`` (every relevant item), ``"capped"`` (min(k, relevant)),
    ``"retrieved"`` (the relevant items in the top k) or ``"list"`` (min(relevant, k, candidates)).
    ``precision_denominator``: ``"k"``, ``"list"`` (min(k, candidates)) or ``"capped"`` (min(k, relevant)).
    ``recall_denominator``: ``"relevant"`` or ``"capped"`` (min(relevant, k)). ``discount`` of (n)DCG at
    rank i: ``"log2"`` 1/log2(i + 1), ``"log2_max2"`` 1/log2(max(i, 2)), ``"reciprocal"`` 1/i.
    ``ideal_dcg``: ``"relevant"`` (the query's gains in decreasing order) or ``"k"`` (k items of gain 1).
    ``stop_probability`` of ERR and pFound at an item of grade g: ``"graded"`` (2^g - 1) / 2^g_max, or
    ``"label"``, g itself (a label in [0, 1]: CatBoost). ``average``: ``"macro"`` (the mean of the
    per-query values) or ``"micro"`` (the count metrics of :data:`MICRO_METRICS`: the sum of their
    numerators over the sum of their denominators, a mean weighted by :meth:`ListKernels.denominator`).
    ``all_relevant``: the AUC of a query whose candidates are all relevant (no pair to order): ``"skip"``
    (NaN, out of the mean), ``"zero"`` (torchmetrics, CatBoost) or ``"one"``. ``ap_ties``: the places of
    tied items in AP: ``"follow"`` (the tie policy's) or ``"max"`` (every item of a tie block at the
    block's last place, and every relevant item of the block counted at it: scipy's
    ``rankdata(method="max")``, cornac's MAP, scikit-learn's label ranking average precision).

    ``auc_labels`` is set by presets only: ``"binary"`` refuses AUC on labels other than 0 and 1, where
    the peer reads a label another way (CatBoost's QueryAUC: as a probability).
    """

    ap_denominator: str = "relevant"
    precision_denominator: str = "k"
    recall_denominator: str = "relevant"
    discount: str = "log2"
    ideal_dcg: str = "relevant"
    stop_probability: str = "graded"
    average: str = "macro"
    all_relevant: str = "skip"
    ap_ties: str = "follow"
    auc_labels: str = "any"
    # the definitions of some metrics where they differ (a preset's): ((registry base name, Definitions), ...)
    by_metric: tuple = ()

    def for_metric(self, base):
        """The definitions of the metric ``base``."""
        return next((own for name, own in self.by_metric if name == base), self)


DEFAULT_DEFINITIONS = Definitions()


def kernel_ties(base, k, definitions, ties):
    """The tie policy whose blocks the kernel of the list metric ``base`` (cut at ``k``) reads under
    ``ties``: the tie blocks themselves (``"expected"``) where the metric's definition places tied items
    its own way (AP with ``ap_ties="max"``), or where ``ties="realistic"`` has no places for the top k of
    ``auc@k`` to choose from (the tied items of its mid ranks share a place); else ``ties``."""
    if base == "map" and definitions.for_metric(base).ap_ties == "max":
        return "expected"
    if base == "auc" and k is not None and ties == "realistic":
        return "expected"
    return ties
