"""Convention presets: the options under which sklearn-rank returns a peer's numbers.

``convention="lightgbm"`` (and the other names of :data:`PRESETS`) sets every option a peer's
definitions need; an option the caller writes explicitly wins over the preset. To tell "written"
from "left at its default", the public signatures use :class:`Default` values: strings equal to
the documented default that a preset may replace (``ties="expected"`` in a signature is a
``Default``; ``ties="expected"`` written by the caller is a plain ``str`` and stays).

A preset may also read metric names the peer's way (ranx's ``hits@k`` is the number of relevant
items in the top k, sklearn-rank's ``num_rel_ret@k``): ``aliases`` maps a name as the peer spells it
(normalised as the registry does, without ``@k``) to a registry base name, or to ``(base, k)`` where
the peer cuts a name written without ``@k`` (XGBoost's ``ndcg`` is ``ndcg@32``); the report keeps the
name as written.

docs/conventions.rst has one row per preset; tests/test_conventions.py checks each against the
peer (installed) or the peer's published definition.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .exceptions import InputValueError


class Default(str):
    """A default option value: a ``convention=`` preset may replace it, an explicit value may not."""

    __slots__ = ()

    def __reduce__(self):
        return (Default, (str(self),))


@dataclass(frozen=True)
class Preset:
    """The options (and metric-name readings) of one peer."""

    description: str
    options: dict
    aliases: dict = field(default_factory=dict)
    # the peer's score of a query without a relevant item where it differs by metric (registry base names)
    no_relevant_for: dict = field(default_factory=dict)
    # definition options (``_engine.DEFINITION_OPTIONS``) the peer sets for some metrics only
    definitions_for: dict = field(default_factory=dict)
    # the registry base names of the metrics the peer has (None: every metric); another metric is refused
    metrics: frozenset | None = None
    peer: str = ""  # the peer's name as its users write it, for messages
    # metrics the peer has, defined in a way no option reproduces: base name (or "base@k", the metric
    # with a cut-off) -> what the peer does
    refused: dict = field(default_factory=dict)
    # list metrics the peer ranks under another tie policy than its others (base name -> policy): they are
    # ranked apart under it, unless the caller writes ``ties=``
    ties_for: dict = field(default_factory=dict)


PRESETS = {
    "sklearn": Preset(
        "scikit-learn's ndcg_score / dcg_score: exact tie expectation, linear gain, a row without a "
        "relevant item scores 0",
        dict(ties="expected", gain="linear", no_relevant="zero")),
    "trec_eval": Preset(
        "trec_eval: input order among ties (sort rows by docno descending first, or use "
        "io.evaluate_trec), linear gain, 0 for a query without a relevant item, AP over all relevant",
        dict(ties="ordinal", gain="linear", no_relevant="zero", ap_denominator="relevant")),
    "ranx": Preset(
        "ranx: input order among ties, linear gain, 0 for a query without a relevant item; hits@k is "
        "the number of relevant items in the top k (hit_rate@k is sklearn-rank's hits@k)",
        dict(ties="ordinal", gain="linear", no_relevant="zero", ap_denominator="relevant"),
        aliases={"hits": "numrelret"}),
    "pykeen": Preset(
        "PyKEEN: realistic (mid) ranks, every true entity ranked against the non-true ones (filtered), "
        "NaN scores are filtered candidates",
        dict(ties="realistic", targets="all", nan_policy="omit")),
    "ogb": Preset(
        "OGB link prediction: realistic (mid) ranks of the positive against its negatives",
        dict(ties="realistic")),
    "tgb": Preset(
        "TGB link prediction: realistic (mid) ranks of the positive against its negatives",
        dict(ties="realistic")),
    "lightgbm": Preset(
        "LightGBM's ndcg@k and map@k: gain 2**rel - 1, input order among ties, a query without a "
        "relevant item scores 1 in nDCG and MAP (0 elsewhere), AP@k divided by min(k, relevant)",
        dict(ties="ordinal", gain="exponential", no_relevant="zero", ap_denominator="capped"),
        no_relevant_for={"ndcg": "one", "map": "one"}),
    "xgboost": Preset(
        "XGBoost's ndcg@k and map@k: gain 2**rel - 1, input order among ties, a query without a "
        "relevant item scores 1 in nDCG and MAP (0 elsewhere, as XGBoost's pre@k), AP@k divided by "
        "min(k, relevant); ndcg and map without @k are cut at 32",
        dict(ties="ordinal", gain="exponential", no_relevant="zero", ap_denominator="capped"),
        aliases={"ndcg": ("ndcg", 32), "map": ("map", 32)}, no_relevant_for={"ndcg": "one", "map": "one"}),
    "torchmetrics": Preset(
        "torchmetrics' retrieval metrics: input order among ties, linear gain, a query without a "
        "relevant item scores 0 (empty_target_action='neg'), AP@k divided by the relevant items in the "
        "top k; its AUROC counts a tied pair half (auc and auc@k ranked under ties='expected')",
        dict(ties="ordinal", gain="linear", no_relevant="zero", ap_denominator="retrieved", all_relevant="zero"),
        peer="torchmetrics", ties_for={"auc": "expected"}),
    "spark": Preset(
        "Spark's RankingMetrics: the prediction order is the ranking (input order among ties), a query "
        "without a relevant item scores 0, MAP@k divided by min(k, relevant), graded nDCG gain "
        "2**rel - 1 (the same as binary relevance for 0/1 labels)",
        dict(ties="ordinal", gain="exponential", no_relevant="zero", ap_denominator="capped")),
    "catboost": Preset(
        "CatBoost's eval_metric with group_id: relevant items last among tied ones (pessimistic), linear "
        "gain, precision@k and AP@k divided by the list's length when shorter than k (AP: and by the "
        "relevant items), a query without a relevant item scores 1 in NDCG and RecallAt and 0 elsewhere, "
        "ERR and PFound read each label as the chance of stopping there, QueryAUC counts a tied pair half "
        "and scores 0 a query without a pair (labels 0 and 1)",
        dict(ties="pessimistic", gain="linear", no_relevant="zero", precision_denominator="list",
             ap_denominator="list", stop_probability="label", all_relevant="zero"),
        no_relevant_for={"ndcg": "one", "r": "one"}, ties_for={"auc": "expected"},
        definitions_for={"auc": {"auc_labels": "binary"}},
        metrics=frozenset({"ndcg", "dcg", "p", "r", "map", "mrr", "err", "pfound", "auc"}), peer="CatBoost",
        refused={"auc@k": "CatBoost's QueryAUC has no cut-off"}),
    "lenskit": Preset(
        "LensKit's top-N metrics: binary gain, discount 1/log2(max(rank, 2)), precision divided by the "
        "list's length, recall by min(relevant, k), AP by min(relevant, list length), RBP with patience "
        "0.85; a user without a test item scores 0, as LensKit's RunAnalysis summary counts it (its "
        "per-user value is NaN)",
        dict(gain="binary", discount="log2_max2", precision_denominator="list", recall_denominator="capped",
             ap_denominator="list", no_relevant="zero"),
        aliases={"rbp": ("rbp", None, 0.85)},
        metrics=frozenset({"ndcg", "dcg", "p", "r", "map", "mrr", "rbp", "hits"}), peer="LensKit"),
    "rectools": Preset(
        "RecTools' metrics: the recommendation order is the ranking (input order among ties), binary "
        "relevance, nDCG@k divided by the DCG of k hits, MAP@k by every held-out item",
        dict(ties="ordinal", gain="binary", ideal_dcg="k", ap_denominator="relevant", no_relevant="skip"),
        metrics=frozenset({"ndcg", "map", "mrr", "p", "r", "hits"}), peer="RecTools"),
    "cornac": Preset(
        "cornac's ranking_eval: binary gain, positives last among tied items (as its AUC counts a tie "
        "0), MAP with every tied item at its block's last place (rankdata 'max'), users without a test "
        "positive left out",
        dict(ties="pessimistic", gain="binary", no_relevant="skip", ap_ties="max"),
        metrics=frozenset({"ndcg", "p", "r", "f1", "hits", "mrr", "auc", "map"}), peer="cornac",
        refused={"auc@k": "cornac's AUC has no cut-off"}),
    "implicit": Preset(
        "implicit's ranking_metrics_at_k: binary gain, AP@K divided by min(K, relevant), precision pooled "
        "over users (the sum of hits over the sum of min(K, relevant)), users without a test item left out",
        dict(gain="binary", ap_denominator="capped", no_relevant="skip"),
        definitions_for={"p": {"precision_denominator": "capped", "average": "micro"}},
        metrics=frozenset({"ndcg", "map", "p"}), peer="implicit",
        refused={"auc": "implicit's AUC@K counts the training items as negatives and the slots past a short "
                        "list as misses"}),
    "ir_measures": Preset(
        "ir_measures (pytrec_eval and its own providers): trec_eval's conventions, a judged query absent "
        "from the run scored 0, Judged@k divided by min(k, run length), ERR with grades out of 4, RBP "
        "with p = 0.8",
        dict(ties="ordinal", gain="linear", no_relevant="zero", ap_denominator="relevant", missing="zero"),
        aliases={"err": ("err", None, 4.0)}, definitions_for={"judged": {"precision_denominator": "list"}},
        metrics=frozenset({"ndcg", "p", "r", "map", "mrr", "rprec", "bpref", "hits", "judged", "err", "rbp",
                           "numrelret"}), peer="ir_measures"),
}

CONVENTIONS = tuple(PRESETS)


def check_preset_metrics(convention, resolved):
    """Refuse a metric the preset's peer does not have, or defines in a way no option reproduces: its number
    would be sklearn-rank's, not the peer's."""
    preset = check_convention(convention)
    if preset is None:
        return
    if preset.metrics is None:
        return
    for written, spec, _ in resolved:
        # a refusal of the metric, or of the metric with a cut-off only ("auc@k")
        key = next((key for key in (spec.base, f"{spec.base}@k" if spec.k is not None else None)
                    if key in preset.refused), None)
        if key is not None:
            raise InputValueError(
                f"convention={normalise_convention(convention)!r} cannot reproduce {key!r} as {preset.peer} "
                f"computes it: {preset.refused[key]}. Evaluate it without the preset or with the options written out "
                f"(see the conventions page). Got metric {written!r} instead.")
        if spec.base not in preset.metrics:
            have = ", ".join(sorted(preset.metrics))
            raise InputValueError(
                f"convention={normalise_convention(convention)!r} reproduces {preset.peer}'s metrics ({have}); "
                f"{preset.peer} has no {spec.base!r} of its own to reproduce. Evaluate it without the preset or "
                f"with the options written out. Got metric {written!r} instead.")


def check_convention(convention):
    """The preset of ``convention`` (None: no preset)."""
    if convention is None:
        return None
    key = normalise_convention(convention)
    if key not in PRESETS:
        raise InputValueError(f"`convention` must be one of {', '.join(map(repr, CONVENTIONS))} or None (case, "
                              f"'-' and '_' aside). Got {convention!r} instead.")
    return PRESETS[key]


_BY_NORMALISED = {name.replace("_", ""): name for name in PRESETS}


def normalise_convention(convention):
    """The preset name of ``convention`` read as metric names are (case, ``-``, ``_`` and spaces aside)."""
    if not isinstance(convention, str):
        return None
    text = "".join(ch for ch in convention.lower() if ch not in "-_ ")
    return _BY_NORMALISED.get(text)


def resolve(convention, options):
    """``options`` with the preset's values where the caller left a :class:`Default`, as plain values.

    Returns the resolved options and the preset's metric-name aliases. When ``no_relevant`` is among
    ``options`` and left to the preset, ``out["no_relevant_for"]`` holds the preset's per-metric
    exceptions (LightGBM and XGBoost score such a query 1 in nDCG and MAP only).
    """
    preset = check_convention(convention)
    out = {}
    if "no_relevant" in options:
        out["no_relevant_for"] = dict(preset.no_relevant_for) if (
            preset is not None and isinstance(options["no_relevant"], Default)) else {}
    out["ties_for"] = dict(preset.ties_for) if (
        preset is not None and isinstance(options.get("ties"), Default)) else {}
    # a preset's per-metric definitions, for the options the caller left to it
    out["definitions_for"] = {} if preset is None else {
        base: {name: value for name, value in values.items()
               if isinstance(options.get(name, Default()), Default)}  # (auc_labels: a preset's only)
        for base, values in preset.definitions_for.items()}
    for name, value in options.items():
        if isinstance(value, Default):
            value = preset.options.get(name, value) if preset is not None else value
            value = str(value)
        out[name] = value
    return out, ({} if preset is None else preset.aliases)


def default_options(**values):
    """``Default`` markers for signature defaults, e.g. ``TIES = default_options(ties="expected")["ties"]``."""
    return {name: Default(value) for name, value in values.items()}
