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
        "top k",
        dict(ties="ordinal", gain="linear", no_relevant="zero", ap_denominator="retrieved")),
    "spark": Preset(
        "Spark's RankingMetrics: the prediction order is the ranking (input order among ties), a query "
        "without a relevant item scores 0, MAP@k divided by min(k, relevant), graded nDCG gain "
        "2**rel - 1 (the same as binary relevance for 0/1 labels)",
        dict(ties="ordinal", gain="exponential", no_relevant="zero", ap_denominator="capped")),
}

CONVENTIONS = tuple(PRESETS)


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
    for name, value in options.items():
        if isinstance(value, Default):
            value = preset.options.get(name, value) if preset is not None else value
            value = str(value)
        out[name] = value
    return out, ({} if preset is None else preset.aliases)


def default_options(**values):
    """``Default`` markers for signature defaults, e.g. ``TIES = default_options(ties="expected")["ties"]``."""
    return {name: Default(value) for name, value in values.items()}
