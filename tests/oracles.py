"""Slow, obviously-correct reference implementations for the metric engine.

Everything here is written straight from the definitions: one Python loop per
query, brute-force enumeration of tie orderings, exact fractions for the random
baselines. Nothing is imported from ``sklearn_rank``; the tests compare the
vectorised engine against these functions.

Conventions (from the package design):

* positions are 1-based; the discount of position ``p`` is ``1 / log2(1 + p)``;
* an item is relevant when ``rel > 0``, or ``rel >= relevance_level`` when given;
* DCG gains are ``rel`` (``gain="linear"``) or ``2**rel - 1`` (``"exponential"``);
* ``n_relevant`` (R) may exceed the number of relevant items in the list
  (retrieval setting: judged relevant items that were never retrieved);
* tie policies: ``"ordinal"`` (input order), ``"optimistic"`` (higher relevance
  first), ``"pessimistic"`` (lower relevance first), ``"expected"`` (mean over
  every permutation of every tie block), ``"realistic"`` (binary metrics: each
  relevant item's position is the mean of its optimistic and pessimistic
  positions; (n)DCG: the same rule with the items that have a gain in place of
  the relevant ones, taken in decreasing order of gain).
"""

import decimal
import functools
import itertools
import math
import statistics
from collections import Counter
from fractions import Fraction

TIE_POLICIES = ("expected", "realistic", "optimistic", "pessimistic", "ordinal")

# scipy.stats.median_abs_deviation(scale="normal") divides by Phi^{-1}(3/4).
NORMAL_MAD_SCALE = statistics.NormalDist().inv_cdf(0.75)

MAX_BLOCK_PERMUTATIONS = math.factorial(9)


# ---------------------------------------------------------------------------
# relevance helpers
# ---------------------------------------------------------------------------


def binary_labels(rels, relevance_level=None):
    """0/1 relevance of every item."""
    labels = []
    for rel in rels:
        if relevance_level is None:
            labels.append(1 if rel > 0 else 0)
        else:
            labels.append(1 if rel >= relevance_level else 0)
    return labels


def gain_values(rels, gain="linear"):
    """DCG gain of every item."""
    gains = []
    for rel in rels:
        if gain == "linear":
            gains.append(float(rel))
        elif gain == "exponential":
            gains.append(float(2.0**rel - 1.0))
        else:
            raise ValueError(gain)
    return gains


# ---------------------------------------------------------------------------
# one query in a fixed total order (labels / gains listed in rank order)
# ---------------------------------------------------------------------------


def reciprocal_rank(labels, k=None):
    for position, label in enumerate(labels, start=1):
        if label:
            return 1.0 / position if k is None or position <= k else 0.0
    return 0.0


def first_relevant_position(labels):
    for position, label in enumerate(labels, start=1):
        if label:
            return position
    return None


def average_precision(labels, n_relevant, k=None, denominator="relevant"):
    """Sum of precision@i over the relevant positions i <= k, divided by R.

    ``denominator="capped"`` divides by min(k, R) (Spark, LightGBM), ``"retrieved"`` by the
    relevant items in the top k (torchmetrics); 0 when the denominator is 0.
    """
    total = 0.0
    seen = 0
    for position, label in enumerate(labels, start=1):
        if k is not None and position > k:
            break
        if label:
            seen += 1
            total += seen / position
    divide_by = {"relevant": n_relevant, "capped": n_relevant if k is None else min(n_relevant, k),
                 "retrieved": seen}[denominator]
    return total / divide_by if divide_by else 0.0


def relevant_retrieved(labels, k=None):
    """Relevant items among the first k (all when k is None)."""
    return float(sum(1 for label in (labels if k is None else labels[:k]) if label))


def precision_at_k(labels, k):
    found = 0
    for position, label in enumerate(labels, start=1):
        if position > k:
            break
        found += label
    return found / k


def recall_at_k(labels, n_relevant, k):
    if n_relevant == 0:
        return 0.0
    found = 0
    for position, label in enumerate(labels, start=1):
        if position > k:
            break
        found += label
    return found / n_relevant


def f1_at_k(labels, n_relevant, k):
    precision = precision_at_k(labels, k)
    recall = recall_at_k(labels, n_relevant, k)
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def hits_at_k(labels, k):
    for position, label in enumerate(labels, start=1):
        if position > k:
            break
        if label:
            return 1.0
    return 0.0


def r_precision(labels, n_relevant):
    if n_relevant == 0:
        return 0.0
    return precision_at_k(labels, n_relevant)


def dcg_at_k(gains, k=None):
    total = 0.0
    for position, gain in enumerate(gains, start=1):
        if k is not None and position > k:
            break
        total += gain / math.log2(1 + position)
    return total


def ndcg_at_k(gains, ideal_gains, k=None):
    ideal = dcg_at_k(sorted(ideal_gains, reverse=True), k)
    if ideal == 0:
        return 0.0
    return dcg_at_k(gains, k) / ideal


def roc_auc(labels):
    """Fraction of (relevant, non-relevant) pairs with the relevant item first."""
    correct = 0
    pairs = 0
    for i, label_i in enumerate(labels):
        for j, label_j in enumerate(labels):
            if label_i and not label_j:
                pairs += 1
                if i < j:
                    correct += 1
    if pairs == 0:
        return float("nan")
    return correct / pairs


# ---------------------------------------------------------------------------
# tie handling for one query given scores
# ---------------------------------------------------------------------------


def tie_blocks(scores):
    """Indices grouped by equal score, blocks by decreasing score, input order inside."""
    blocks = []
    for value in sorted(set(scores), reverse=True):
        blocks.append([i for i, score in enumerate(scores) if score == value])
    return blocks


def ordering(scores, values, ties):
    """One total order (list of indices) for the deterministic tie policies.

    ``values`` is the relevance the metric sees (binary labels or gains).
    """
    order = []
    for block in tie_blocks(scores):
        if ties == "ordinal":
            order.extend(block)
        elif ties == "optimistic":
            order.extend(sorted(block, key=lambda i: (-values[i], i)))
        elif ties == "pessimistic":
            order.extend(sorted(block, key=lambda i: (values[i], i)))
        else:
            raise ValueError(ties)
    return order


def block_arrangements(scores, values):
    """Every permutation of every tie block, as (multiplicity, values in rank order).

    The permutations of each block are enumerated one by one
    (``itertools.permutations``) and identical value sequences are merged with
    their count, so the returned weights sum to the number of total orders,
    prod over blocks of (block size)!.
    """
    per_block = []
    for block in tie_blocks(scores):
        if math.factorial(len(block)) > MAX_BLOCK_PERMUTATIONS:
            raise ValueError("tie block too large to enumerate")
        counts = Counter()
        for perm in itertools.permutations(block):
            counts[tuple(values[i] for i in perm)] += 1
        per_block.append(list(counts.items()))
    for combo in itertools.product(*per_block):
        multiplicity = 1
        sequence = []
        for arrangement, count in combo:
            multiplicity *= count
            sequence.extend(arrangement)
        yield multiplicity, sequence


def number_of_orderings(scores):
    total = 1
    for block in tie_blocks(scores):
        total *= math.factorial(len(block))
    return total


_ARRANGEMENTS_CACHE = {}


def _cached_arrangements(scores, values):
    key = (tuple(scores), tuple(values))
    if key not in _ARRANGEMENTS_CACHE:
        if len(_ARRANGEMENTS_CACHE) > 20000:
            _ARRANGEMENTS_CACHE.clear()
        _ARRANGEMENTS_CACHE[key] = list(block_arrangements(scores, values))
    return _ARRANGEMENTS_CACHE[key]


def expected_over_orderings(metric_of_sequence, scores, values):
    """Mean of ``metric_of_sequence(values in rank order)`` over all total orders."""
    weighted = []
    total = 0
    for multiplicity, sequence in _cached_arrangements(scores, values):
        weighted.append(multiplicity * metric_of_sequence(sequence))
        total += multiplicity
    return math.fsum(weighted) / total


def realistic_positions(scores, values):
    """Each item's position: mean of its optimistic and pessimistic positions."""
    optimistic = ordering(scores, values, "optimistic")
    pessimistic = ordering(scores, values, "pessimistic")
    position = [0.0] * len(scores)
    for rank, index in enumerate(optimistic, start=1):
        position[index] += rank / 2
    for rank, index in enumerate(pessimistic, start=1):
        position[index] += rank / 2
    return position


def realistic_gain_positions(scores, gains):
    """Realistic positions for (n)DCG: in each tie block of m items holding g items
    with a positive gain, the j-th of those (by decreasing gain) sits at
    s + (m - g)/2 + j; the items without gain are split half before and half
    after them. Items without gain get ``None``. With 0/1 gains this is the
    binary rule (mean of the optimistic and pessimistic positions)."""
    position = [None] * len(scores)
    before = 0
    for block in tie_blocks(scores):
        with_gain = sorted((i for i in block if gains[i] > 0), key=lambda i: (-gains[i], i))
        for j, index in enumerate(with_gain, start=1):
            position[index] = before + (len(block) - len(with_gain)) / 2 + j
        before += len(block)
    return position


def _binary_metric_from_positions(metric, relevant_positions, n_relevant, k, ap_denominator="relevant"):
    """Binary metrics from (possibly fractional) positions of the relevant items."""
    positions = sorted(relevant_positions)
    if metric == "rr":
        return 1.0 / positions[0] if positions and (k is None or positions[0] <= k) else 0.0
    if metric == "relret":
        return float(sum(1 for position in positions if k is None or position <= k))
    if metric == "rank":
        return positions[0] if positions else None
    if metric == "ap":
        total = 0.0
        seen = 0
        for count, position in enumerate(positions, start=1):
            if k is None or position <= k:
                total += count / position
                seen += 1
        divide_by = {"relevant": n_relevant, "capped": n_relevant if k is None else min(n_relevant, k),
                     "retrieved": seen}[ap_denominator]
        return total / divide_by if divide_by else 0.0
    if metric in ("p", "r", "f1", "hits"):
        found = sum(1 for position in positions if position <= k)
        precision = found / k
        recall = found / n_relevant if n_relevant else 0.0
        if metric == "p":
            return precision
        if metric == "r":
            return recall
        if metric == "hits":
            return 1.0 if found else 0.0
        if precision + recall == 0:
            return 0.0
        return 2 * precision * recall / (precision + recall)
    if metric == "rprec":
        if n_relevant == 0:
            return 0.0
        found = sum(1 for position in positions if position <= n_relevant)
        return found / n_relevant
    raise ValueError(metric)


def _fixed_order_metric(metric, sequence, n_relevant, ideal_gains, k, ap_denominator="relevant"):
    if metric == "rr":
        return reciprocal_rank(sequence, k)
    if metric == "relret":
        return relevant_retrieved(sequence, k)
    if metric == "rank":
        return first_relevant_position(sequence)
    if metric == "ap":
        return average_precision(sequence, n_relevant, k, ap_denominator)
    if metric == "p":
        return precision_at_k(sequence, k)
    if metric == "r":
        return recall_at_k(sequence, n_relevant, k)
    if metric == "f1":
        return f1_at_k(sequence, n_relevant, k)
    if metric == "hits":
        return hits_at_k(sequence, k)
    if metric == "rprec":
        return r_precision(sequence, n_relevant)
    if metric == "dcg":
        return dcg_at_k(sequence, k)
    if metric == "ndcg":
        return ndcg_at_k(sequence, ideal_gains, k)
    if metric == "auc":  # relevant items judged, none retrieved: every pair is ordered wrong
        return 0.0 if n_relevant and not any(sequence) else roc_auc(sequence)
    raise ValueError(metric)


LIST_METRICS = ("rr", "ap", "p", "r", "f1", "hits", "rprec", "dcg", "ndcg", "auc", "rank", "relret")
GRADED_METRICS = ("dcg", "ndcg")


def query_metric(
    metric,
    scores,
    rels,
    *,
    ties="expected",
    k=None,
    relevance_level=None,
    gain="linear",
    judged_rels=None,
    ap_denominator="relevant",
):
    """One metric of one query given its candidates' scores and relevance.

    ``metric`` is one of ``LIST_METRICS``; ``"rank"`` is the position of the
    first relevant item (``None`` when no relevant item is in the list).
    ``judged_rels`` lists the relevance of every judged item of the query
    (retrieved or not); it sets R and the ideal gains.
    """
    labels = binary_labels(rels, relevance_level)
    if judged_rels is None:
        n_relevant = sum(labels)
        ideal_gains = gain_values(rels, gain)
    else:
        n_relevant = sum(binary_labels(judged_rels, relevance_level))
        ideal_gains = gain_values(judged_rels, gain)
    values = gain_values(rels, gain) if metric in GRADED_METRICS else labels

    def of_sequence(sequence):
        return _fixed_order_metric(metric, sequence, n_relevant, ideal_gains, k, ap_denominator)

    if ties in ("ordinal", "optimistic", "pessimistic"):
        order = ordering(scores, values, ties)
        return of_sequence([values[i] for i in order])
    if ties == "expected":
        if metric == "rank" and not any(labels):
            return None
        return expected_over_orderings(of_sequence, scores, values)
    if ties == "realistic":
        if metric == "auc":  # (relevant items judged, none retrieved: every pair is ordered wrong)
            return 0.0 if n_relevant and not any(labels) else auc_ties_half(scores, labels)
        if metric in GRADED_METRICS:
            position = realistic_gain_positions(scores, values)
            total = 0.0
            for index, gain_value in enumerate(values):
                if position[index] is not None and (k is None or position[index] <= k):
                    total += gain_value / math.log2(1 + position[index])
            if metric == "dcg":
                return total
            ideal = dcg_at_k(sorted(ideal_gains, reverse=True), k)
            return total / ideal if ideal else 0.0
        position = realistic_positions(scores, values)
        relevant_positions = [position[i] for i, label in enumerate(labels) if label]
        return _binary_metric_from_positions(metric, relevant_positions, n_relevant, k, ap_denominator)
    raise ValueError(ties)


def auc_ties_half(scores, labels):
    """Per-query ROC AUC counting tied (relevant, non-relevant) pairs as 1/2."""
    total = 0.0
    pairs = 0
    for i, label_i in enumerate(labels):
        for j, label_j in enumerate(labels):
            if label_i and not label_j:
                pairs += 1
                if scores[i] > scores[j]:
                    total += 1.0
                elif scores[i] == scores[j]:
                    total += 0.5
    if pairs == 0:
        return float("nan")
    return total / pairs


# ---------------------------------------------------------------------------
# ranks of targets
# ---------------------------------------------------------------------------


class TargetRank:
    """Rank of one target under every tie policy.

    ``distribution`` is the exact law of the rank under a uniformly random
    order of the tied items: a list of (probability as Fraction, rank).
    ``expected`` is its mean.
    """

    def __init__(
        self, optimistic, pessimistic, ordinal, distribution, num_candidates,
        num_relevant=1, tied_relevant=1,
    ):  # fmt: skip
        self.optimistic = optimistic
        self.pessimistic = pessimistic
        self.realistic = (optimistic + pessimistic) / 2
        self.ordinal = ordinal
        self.distribution = distribution
        self.num_candidates = num_candidates
        # relevant candidates competing for this rank (the random baseline is
        # the best of that many random positions)
        self.num_relevant = num_relevant
        # relevant candidates in the target's tie block (itself included)
        self.tied_relevant = tied_relevant

    def rank(self, ties):
        if ties == "optimistic":
            return self.optimistic
        if ties == "pessimistic":
            return self.pessimistic
        if ties == "ordinal":
            return self.ordinal
        if ties in ("realistic", "expected"):
            return self.realistic
        raise ValueError(ties)

    def expectation(self, function):
        return float(sum(p * Fraction(function(r)) for p, r in self.distribution))

    def float_expectation(self, function):
        return math.fsum(float(p) * function(r) for p, r in self.distribution)

    @property
    def expected(self):
        return self.expectation(lambda r: r)

    def __repr__(self):
        return (
            f"TargetRank(opt={self.optimistic}, pes={self.pessimistic}, "
            f"ord={self.ordinal}, N={self.num_candidates})"
        )


def first_target_rank(scores, labels):
    """Rank of the best-ranked relevant item among all candidates (None if none)."""
    relevant = [i for i, label in enumerate(labels) if label]
    if not relevant:
        return None
    best = max(scores[i] for i in relevant)
    greater = sum(1 for s in scores if s > best)
    tied = [i for i, s in enumerate(scores) if s == best]
    tied_relevant = sum(1 for i in tied if labels[i])
    tied_other = len(tied) - tied_relevant
    optimistic = 1 + greater
    pessimistic = 1 + greater + tied_other
    # ordinal: first relevant item of the block in input order
    ordinal = 1 + greater
    for i in tied:
        if labels[i]:
            break
        ordinal += 1
    # exact law of the first relevant position: the relevant items take a
    # uniformly random set of slots of the tie block (every permutation of the
    # block maps to one slot set, each set equally often).
    counts = Counter()
    slot_sets = list(itertools.combinations(range(len(tied)), tied_relevant))
    for slots in slot_sets:
        counts[1 + greater + min(slots)] += 1
    distribution = [(Fraction(c, len(slot_sets)), r) for r, c in sorted(counts.items())]
    return TargetRank(
        optimistic, pessimistic, ordinal, distribution, len(scores), sum(labels), tied_relevant
    )


def all_target_ranks(scores, labels):
    """Each relevant item ranked against the non-relevant candidates only."""
    negatives = [i for i, label in enumerate(labels) if not label]
    ranks = []
    for t, label in enumerate(labels):
        if not label:
            continue
        greater = sum(1 for i in negatives if scores[i] > scores[t])
        equal = sum(1 for i in negatives if scores[i] == scores[t])
        equal_before = sum(1 for i in negatives if scores[i] == scores[t] and i < t)
        block = equal + 1
        distribution = [
            (Fraction(1, block), 1 + greater + slot) for slot in range(block)
        ]
        ranks.append(
            TargetRank(
                1 + greater,
                1 + greater + equal,
                1 + greater + equal_before,
                distribution,
                len(negatives) + 1,
            )
        )
    return ranks


def label_index_rank(score_row, true_column, exclude_row=None):
    """Rank of the true column against every other non-excluded column."""
    if exclude_row is None:
        exclude_row = [False] * len(score_row)
    true_score = score_row[true_column]
    greater = 0
    equal = 0
    equal_before = 0
    num_candidates = 1
    for j, score in enumerate(score_row):
        if j == true_column or exclude_row[j]:
            continue
        num_candidates += 1
        if score > true_score:
            greater += 1
        elif score == true_score:
            equal += 1
            if j < true_column:
                equal_before += 1
    block = equal + 1
    distribution = [(Fraction(1, block), 1 + greater + slot) for slot in range(block)]
    return TargetRank(
        1 + greater, 1 + greater + equal, 1 + greater + equal_before, distribution, num_candidates
    )


# ---------------------------------------------------------------------------
# rank statistics and random baselines
# ---------------------------------------------------------------------------

RANK_STATISTICS = (
    "mr", "mrr", "hits", "gmr", "igmr", "hmr", "iamr", "median_rank",
    "inverse_median_rank", "rank_std", "rank_var", "rank_mad", "count",
    "amr", "amri", "agmri", "amrr", "ahits", "zmr", "zmrr", "zgmr", "zhits",
)  # fmt: skip

_ADJUSTED_BASE = {
    "amr": "mr", "amri": "mr", "zmr": "mr",
    "amrr": "mrr", "zmrr": "mrr",
    "ahits": "hits", "zhits": "hits",
    "agmri": "gmr", "zgmr": "gmr",
}  # fmt: skip


def _weights(n, weights):
    return [1.0] * n if weights is None else [float(w) for w in weights]


def _weighted_mean(values, weights):
    return math.fsum(w * v for w, v in zip(weights, values)) / math.fsum(weights)


def weighted_median(values, weights):
    """Frequency-weighted median.

    Sort the values; the median is the mean of the first value at which the
    cumulative weight reaches half the total and the first value at which it
    exceeds half. With integer weights this is the ordinary median of the
    values repeated ``weight`` times.
    """
    # exact arithmetic: float weights are sums of binary fractions
    pairs = sorted(zip(values, (Fraction(w) for w in weights)))
    half = sum(w for _, w in pairs) / 2
    cumulative = Fraction(0)
    low = high = None
    for value, weight in pairs:
        cumulative += weight
        if low is None and cumulative >= half:
            low = value
        if high is None and cumulative > half:
            high = value
    if high is None:
        high = low
    return (low + high) / 2


def random_rank_law(num_candidates, num_relevant=1):
    """Law of the best position of ``num_relevant`` relevant items among
    ``num_candidates`` in a uniformly random order: every set of positions the
    relevant items can take is equally likely. Returns [(Fraction, rank)]."""
    counts = Counter()
    slot_sets = list(itertools.combinations(range(1, num_candidates + 1), num_relevant))
    for slots in slot_sets:
        counts[min(slots)] += 1
    return [(Fraction(c, len(slot_sets)), r) for r, c in sorted(counts.items())]


def random_moments(statistic, num_candidates, *, k=None, weights=None, num_relevant=None):
    """Exact mean and variance of MR, MRR, hits@k or GMR under random ranking.

    Each target's rank is the best of ``num_relevant[i]`` (default 1, i.e.
    uniform on 1..N_i) random positions among N_i, independently across
    targets. Computed by summing over every value of every rank (Fractions for
    MR, MRR and hits). Remembered: the adjusted statistics of one base share the
    moments, and a test asks for the same ones several times.
    """
    def frozen(values):
        return None if values is None else tuple(values)

    return _random_moments(statistic, frozen(num_candidates), k, frozen(weights), frozen(num_relevant))


@functools.lru_cache(maxsize=1 << 14)
def _random_moments(statistic, num_candidates, k, weights, num_relevant):
    n = len(num_candidates)
    if num_relevant is None:
        num_relevant = [1] * n
    w = [Fraction(1)] * n if weights is None else [Fraction(x) for x in weights]
    total_weight = sum(w)
    laws = [random_rank_law(c, r) for c, r in zip(num_candidates, num_relevant)]
    if statistic in ("mr", "mrr", "hits"):
        if statistic == "mr":
            def f(r):
                return Fraction(r)
        elif statistic == "mrr":
            def f(r):
                return Fraction(1, r)
        else:
            def f(r):
                return Fraction(1 if r <= k else 0)
        mean = Fraction(0)
        variance = Fraction(0)
        for w_i, law in zip(w, laws):
            first = sum(p * f(r) for p, r in law)
            second = sum(p * f(r) ** 2 for p, r in law)
            mean += w_i * first
            variance += w_i**2 * (second - first**2)
        return float(mean / total_weight), float(variance / total_weight**2)
    if statistic == "gmr":
        # GMR = prod r_i^(w_i/W); independence gives E = prod E[r_i^(w_i/W)].
        # 40 significant digits: Var = E[GMR^2] - E[GMR]^2 cancels heavily.
        with decimal.localcontext() as context:
            context.prec = 40
            first = decimal.Decimal(1)
            second = decimal.Decimal(1)
            for w_i, law in zip(w, laws):
                share = w_i / total_weight
                exponent = decimal.Decimal(share.numerator) / decimal.Decimal(share.denominator)
                first *= sum(_decimal(p) * decimal.Decimal(r) ** exponent for p, r in law)
                second *= sum(_decimal(p) * decimal.Decimal(r) ** (2 * exponent) for p, r in law)
            return float(first), float(second - first**2)
    raise ValueError(statistic)


def _decimal(fraction):
    return decimal.Decimal(fraction.numerator) / decimal.Decimal(fraction.denominator)


def power_mean_excess(start, size, exponent):
    """E[(start + X)**exponent] - 1 for X uniform on 1..size, in 40-digit decimals, term by term."""
    with decimal.localcontext() as context:
        context.prec = 40
        a = decimal.Decimal(exponent)  # the float exponent, exactly
        total = sum(decimal.Decimal(start + t) ** a - 1 for t in range(1, size + 1))
        return total / size


def random_gmr_moments_by_sums(num_candidates, weights=None):
    """Mean and variance of GMR under random ranking, one uniform rank per target, for large N.

    ``random_moments("gmr")`` raises decimals to fractional powers once per rank: too slow for
    knowledge-graph sizes (thousands of targets, N ~ 10^4). Here E[r^a] - 1, the mean of
    r^a - 1 over r = 1..N, is an exactly rounded sum (``math.fsum``) of the float terms
    ``expm1(a log r)``, each within a few ulps, so it keeps full relative precision; then
    log E[G] = sum_i log(1 + excess_i) and Var = E[G]^2 (E[G^2] / E[G]^2 - 1) run in 40-digit
    decimals. The exponents are the float weight shares a_i = w_i / W (and 2 a_i).
    """
    import numpy as np  # the terms only; every sum is exact or decimal

    n = len(num_candidates)
    w = [Fraction(1)] * n if weights is None else [Fraction(x) for x in weights]
    total_weight = sum(w)
    log_r = np.log(np.arange(1, max(num_candidates) + 1, dtype=np.float64))
    with decimal.localcontext() as context:
        context.prec = 40
        log_first = decimal.Decimal(0)
        log_second = decimal.Decimal(0)
        def log_moment(exponent, size):
            excess = decimal.Decimal(math.fsum(np.expm1(exponent * log_r[:size]).tolist())) / size
            return (1 + excess).ln()

        for w_i, size in zip(w, num_candidates):
            a = float(w_i / total_weight)
            log_first += log_moment(a, size)
            log_second += log_moment(2 * a, size)
        mean = log_first.exp()
        variance = mean * mean * ((log_second - 2 * log_first).exp() - 1)
        return float(mean), float(variance)


def rank_statistic(statistic, ranks, num_candidates, *, k=None, weights=None, num_relevant=None):
    """One rank statistic of fixed ranks (one rank and one N per target)."""
    n = len(ranks)
    w = _weights(n, weights)
    if statistic == "count":
        return float(n)
    if statistic == "mr":
        return _weighted_mean(ranks, w)
    if statistic == "mrr":
        return _weighted_mean([1.0 / r if k is None or r <= k else 0.0 for r in ranks], w)
    if statistic == "hits":
        return _weighted_mean([1.0 if r <= k else 0.0 for r in ranks], w)
    if statistic == "gmr":
        return math.exp(_weighted_mean([math.log(r) for r in ranks], w))
    if statistic == "igmr":
        return 1.0 / rank_statistic("gmr", ranks, num_candidates, weights=weights)
    if statistic == "hmr":
        return 1.0 / rank_statistic("mrr", ranks, num_candidates, weights=weights)
    if statistic == "iamr":
        return 1.0 / rank_statistic("mr", ranks, num_candidates, weights=weights)
    if statistic == "median_rank":
        return float(weighted_median(ranks, w))
    if statistic == "inverse_median_rank":
        return 1.0 / weighted_median(ranks, w)
    if statistic in ("rank_var", "rank_std"):
        mean = _weighted_mean(ranks, w)
        variance = _weighted_mean([(r - mean) ** 2 for r in ranks], w)
        return variance if statistic == "rank_var" else math.sqrt(variance)
    if statistic == "rank_mad":
        median = weighted_median(ranks, w)
        return weighted_median([abs(r - median) for r in ranks], w) / NORMAL_MAD_SCALE
    value = rank_statistic(_ADJUSTED_BASE[statistic], ranks, num_candidates, k=k, weights=weights)
    return adjust(statistic, value, num_candidates, k=k, weights=weights, num_relevant=num_relevant)


def adjust(statistic, value, num_candidates, *, k=None, weights=None, num_relevant=None, moments=None):
    """Adjusted / z-scored form of a base statistic value (Hoyt et al. 2022).

    ``moments``: the random baseline's (mean, variance) when computed elsewhere
    (``random_gmr_moments_by_sums``); by default ``random_moments``.
    """
    if moments is None:
        moments = random_moments(
            _ADJUSTED_BASE[statistic], num_candidates, k=k, weights=weights, num_relevant=num_relevant
        )
    mean, variance = moments
    # a random ranking that can only give the best value: undefined
    if statistic in ("amri", "agmri", "amrr", "ahits") and abs(mean - 1.0) < 1e-13:
        return float("nan")
    if statistic in ("zmr", "zgmr", "zmrr", "zhits") and variance <= 1e-26:
        return float("nan")
    if statistic == "amr":
        return value / mean
    if statistic in ("amri", "agmri"):
        return 1.0 - (value - 1.0) / (mean - 1.0)
    if statistic in ("amrr", "ahits"):
        return (value - mean) / (1.0 - mean)
    if statistic in ("zmr", "zgmr"):
        return (mean - value) / math.sqrt(variance)
    if statistic in ("zmrr", "zhits"):
        return (value - mean) / math.sqrt(variance)
    raise ValueError(statistic)


def target_statistic(statistic, target_ranks, ties, *, k=None, weights=None):
    """A rank statistic of a list of ``TargetRank`` under a tie policy.

    Under ``"expected"``, MR, MRR, hits@k and GMR are exact expectations over
    the tie orderings (each target's ties broken independently; GMR =
    prod E[r_i^(w_i/W)]); ``iamr``, ``hmr``, ``igmr`` invert them and the
    adjusted forms are taken of them. Median, std, var and MAD use the mid rank.
    The random baselines use each target's ``num_relevant``.
    """
    num_candidates = [t.num_candidates for t in target_ranks]
    num_relevant = [t.num_relevant for t in target_ranks]
    if ties != "expected":
        ranks = [t.rank(ties) for t in target_ranks]
        return rank_statistic(
            statistic, ranks, num_candidates, k=k, weights=weights, num_relevant=num_relevant
        )
    w = _weights(len(target_ranks), weights)
    if statistic in ("mr", "iamr", "amr", "amri", "zmr"):
        value = _weighted_mean([t.expectation(lambda r: r) for t in target_ranks], w)
        base = "mr"
    elif statistic in ("mrr", "hmr", "amrr", "zmrr"):
        value = _weighted_mean(
            [t.expectation(lambda r: Fraction(1) / Fraction(r) if k is None or r <= k else 0)
             for t in target_ranks], w
        )
        base = "mrr"
    elif statistic in ("hits", "ahits", "zhits"):
        value = _weighted_mean([t.expectation(lambda r: 1 if r <= k else 0) for t in target_ranks], w)
        base = "hits"
    elif statistic in ("gmr", "igmr", "agmri", "zgmr"):
        total = math.fsum(w)
        value = 1.0
        for t, w_i in zip(target_ranks, w):
            value *= t.float_expectation(lambda r, a=w_i / total: r**a)
        base = "gmr"
    else:
        ranks = [t.realistic for t in target_ranks]
        return rank_statistic(statistic, ranks, num_candidates, k=k, weights=weights)
    if statistic == base:
        return value
    if statistic in ("iamr", "hmr", "igmr"):
        return 1.0 / value
    return adjust(statistic, value, num_candidates, k=k, weights=weights, num_relevant=num_relevant)
