"""Exact expectations over tie orders, in any array namespace.

Under ``ties="expected"`` the position of the best of ``r`` relevant items in a tie block of ``m``
candidates that starts after ``s`` others is ``s + X``, with ``X`` the minimum of ``r`` positions drawn
without replacement from ``1..m`` (McSherry & Najork, ECIR 2008). The functions here give the moments
the kernels need of that distribution, per target and elementwise: E[1 / (s + X)], P(s + X <= k),
E[s + X], Var[X] and E[(s + X)**a]; the random baselines of the adjusted metrics are the same
distribution with s = 0 and m the number of candidates.

Each formula is written once against the namespace ``xp`` (NumPy by default, arrays of any shape).
Where the standard lacks a primitive, a helper gives it for every namespace with a NumPy branch
inside: digamma and trigamma (``scipy.special`` for NumPy, their series otherwise), and the
r > 1 expectations (for NumPy, the log-gamma probabilities of the entries concerned only, added by
``np.bincount``; otherwise the terms laid out as a matrix per group of entries).
"""

from __future__ import annotations

import math
from fractions import Fraction
from math import factorial

import numpy as np
from scipy.special import digamma, gammaln, polygamma

from ._xp import NUMPY, is_numpy


def _floats(xp, *arrays):
    """NumPy: the arguments as float64 arrays (lists and integer arrays accepted); other namespaces:
    as they come (float64 arrays of the caller)."""
    if is_numpy(xp):
        return tuple(np.asarray(a, dtype=np.float64) for a in arrays)
    return arrays


def _any(xp, mask):
    return bool(xp.any(mask))


def _clip(xp, x, low, high):
    return xp.minimum(xp.maximum(x, low), high)


def _some_many(xp, m, r):
    """The entries with r > 1 in a block of m > 1 (their X has no closed-form moments); None if none.
    ``r`` may be the number 1 (one relevant item everywhere)."""
    if not hasattr(r, "shape"):
        return None
    many = (m > 1) & (r > 1)
    return many if _any(xp, many) else None


_EULER_GAMMA = 0.57721566490153286061  # == np.euler_gamma
_SHIFT = 10  # psi(y) = psi(y + 10) - sum_{j<10} 1 / (y + j); the series is used from 10 on


def _digamma(y, xp):
    """psi(y) for y >= 1: scipy for NumPy; else Abramowitz & Stegun 6.3.18, eight Bernoulli terms
    (error below 1e-17)."""
    if is_numpy(xp):
        return digamma(y)
    correction = xp.zeros_like(y)
    for j in range(_SHIFT):
        correction = correction + 1.0 / (y + j)
    z = y + _SHIFT
    w = 1.0 / (z * z)
    series = w * (1 / 12 - w * (1 / 120 - w * (1 / 252 - w * (1 / 240 - w * (1 / 132 - w * (691 / 32760
                                                                                      - w / 12))))))
    return xp.log(z) - 0.5 / z - series - correction


def _trigamma(y, xp):
    """psi'(y) for y >= 1: scipy for NumPy; else Abramowitz & Stegun 6.4.12, eight Bernoulli terms."""
    if is_numpy(xp):
        return polygamma(1, y)
    correction = xp.zeros_like(y)
    for j in range(_SHIFT):
        correction = correction + 1.0 / ((y + j) * (y + j))
    z = y + _SHIFT
    w = 1.0 / (z * z)
    series = (1 / 6 - w * (1 / 30 - w * (1 / 42 - w * (1 / 30 - w * (5 / 66 - w * (691 / 2730 - w * 7 / 6))))))
    return 1.0 / z + 0.5 * w + series * w / z + correction


def harmonic(x, *, xp=NUMPY):
    """H(x) = sum_{j<=x} 1/j, extended to real x >= 0 through the digamma function."""
    (x,) = _floats(xp, x)
    return _digamma(x + 1.0, xp) + _EULER_GAMMA


def harmonic2(x, *, xp=NUMPY):
    """Second-order harmonic number sum_{j<=x} 1/j**2 (real x >= 0)."""
    (x,) = _floats(xp, x)
    return math.pi ** 2 / 6 - _trigamma(x + 1.0, xp)


_EXPAND_ENTRIES = 1 << 16  # positions expanded at once by the NumPy branch of _best_of_many


def _expand(s, m, r):
    """NumPy: probability mass of s + X for targets with r > 1: (owner, value, probability)."""
    length = (m - r + 1).astype(np.int64)
    owner = np.repeat(np.arange(len(s)), length)
    offsets = np.cumsum(length) - length
    x = np.arange(owner.size) - offsets[owner] + 1.0
    mo, ro = m[owner], r[owner]
    # P(X = x) = C(m - x, r - 1) / C(m, r)
    logp = (gammaln(mo - x + 1) - gammaln(mo - x - ro + 2) - gammaln(ro)
            - gammaln(mo + 1) + gammaln(mo - ro + 1) + gammaln(ro + 1))
    p = np.exp(logp)
    total = np.bincount(owner, weights=p, minlength=len(s))
    p /= total[owner]  # renormalise: removes the rounding of the log-gamma terms
    return owner, s[owner] + x, p


def _best_of_many(xp, s, m, r, many, kind, k=None, power=1, a=None):
    """E[1{s + X <= k} / (s + X)**power] (``kind="reciprocal"``) or E[(s + X)**a] - 1 (``"power"``) where
    ``many`` holds (r > 1 in a block of m > 1); other entries are left meaningless.

    NumPy: the mass of the entries concerned (``_expand``), summed per entry by ``np.bincount``. Other
    namespaces: P(X = x) = C(m - x, r - 1) / C(m, r) over x, each probability from the previous one (ratio
    (m - x - r + 1) / (m - x)) through a cumulative sum of logarithms, then renormalised as ``_expand``
    does; the terms of a group of entries are one matrix (entries x the longest support), groups bounded
    as the score chunks.
    """
    if is_numpy(xp):
        out = np.zeros(s.shape)
        s_many, m_many, r_many = s[many], m[many], r[many]
        a_many = a[many] if kind == "power" else None
        values = np.empty(s_many.shape)
        # groups of entries whose supports add up to about _EXPAND_ENTRIES: the expansion's arrays stay bounded
        # (a dense relevance matrix has m - r + 1 positions per target); each entry's sum is the same
        ends = np.cumsum(m_many - r_many + 1)
        cuts = np.searchsorted(ends, np.arange(_EXPAND_ENTRIES, ends[-1] if ends.size else 0, _EXPAND_ENTRIES))
        for lo, hi in zip(np.r_[0, cuts + 1], np.r_[cuts + 1, s_many.size]):
            if hi <= lo:
                continue
            owner, value, p = _expand(s_many[lo:hi], m_many[lo:hi], r_many[lo:hi])
            if kind == "power":
                terms = p * np.expm1(a_many[lo:hi][owner] * np.log(value))
            else:
                if k is not None:
                    p = np.where(value <= k, p, 0.0)
                terms = p / value ** power
            values[lo:hi] = np.bincount(owner, weights=terms, minlength=hi - lo)
        out[many] = values
        return out
    from ._namespace_inputs import namespace_chunk
    from ._sklearn_compat import array_device

    shape, device = s.shape, array_device(s)
    flat = (lambda v: xp.reshape(v, (-1,)))
    s, m, many = flat(s), flat(m), flat(many)
    r = xp.where(many, flat(r), 2.0)  # harmless stand-ins elsewhere
    a = None if a is None else flat(a)
    support = xp.where(many, m - r + 1, 1.0)
    length = int(xp.max(support))
    group = max(1, namespace_chunk(device) // (8 * length))  # a few float64 matrices of group x length
    parts = []
    for lo in range(0, s.shape[0], group):
        hi = min(s.shape[0], lo + group)
        parts.append(_expanded(xp, s[lo:hi], m[lo:hi], r[lo:hi], support[lo:hi], length, k, kind, power,
                               None if a is None else a[lo:hi], device))
    return xp.reshape(parts[0] if len(parts) == 1 else xp.concat(parts), shape)


def _expanded(xp, s, m, r, support, length, k, kind, power, a, device):
    x = xp.arange(1, length + 1, dtype=xp.float64, device=device)[None, :]
    mm, rr, ss = m[:, None], r[:, None], s[:, None]
    inside = x <= support[:, None]
    # log P(X = x + 1) - log P(X = x) for x = 1..length - 1, 0 outside the support
    i = x[:, :-1]
    step = xp.where(i < support[:, None], xp.log(xp.maximum(mm - i - rr + 1, 1.0)) - xp.log(xp.maximum(mm - i, 1.0)),
                    0.0)
    log_p = xp.log(rr / mm) + xp.concat([xp.zeros((s.shape[0], 1), dtype=xp.float64, device=device),
                                         xp.cumulative_sum(step, axis=1)], axis=1)
    p = xp.where(inside, xp.exp(log_p), 0.0)
    p = p / xp.sum(p, axis=1, keepdims=True)
    value = ss + x
    if kind == "power":
        return xp.sum(p * xp.expm1(a[:, None] * xp.log(value)), axis=1)
    reach = xp.ones_like(value) if k is None else xp.astype(value <= k, xp.float64)
    return xp.sum(p * reach / value ** power, axis=1)


def _hits_of_best(xp, m, r, t, many):
    """P(X <= t) = 1 - C(m - t, r) / C(m, r) where ``many`` holds, exactly 1 where m - t < r.

    NumPy: the log-gamma form on the entries concerned. Other namespaces: the ratio as the product of
    (m - t - i) / (m - i) over i < r (a sum of logarithms, r terms per entry, groups bounded as the
    score chunks)."""
    if is_numpy(xp):
        out = np.zeros(m.shape)
        mm, rr, tt = m[many], r[many], t[many]
        ok = mm - tt >= rr
        log_ratio = (gammaln(mm - tt + 1) - gammaln(mm - tt - rr + 1)
                     - gammaln(mm + 1) + gammaln(mm - rr + 1))
        # t = 0 (the block starts at or beyond k): exactly 0, which the log-gamma terms leave a rounding off
        out[many] = np.where(tt <= 0, 0.0, np.where(ok, -np.expm1(np.where(ok, log_ratio, 0.0)), 1.0))
        return out
    from ._namespace_inputs import namespace_chunk
    from ._sklearn_compat import array_device

    shape, device = m.shape, array_device(m)
    flat = (lambda v: xp.reshape(v, (-1,)))
    m, t, many = flat(m), flat(t), flat(many)
    r = xp.where(many, flat(r), 2.0)
    ok = m - t >= r
    length = int(xp.max(r))
    group = max(1, namespace_chunk(device) // (8 * length))
    i = xp.arange(length, dtype=xp.float64, device=device)[None, :]
    parts = []
    for lo in range(0, m.shape[0], group):
        hi = min(m.shape[0], lo + group)
        mm, tt, rr = m[lo:hi, None], t[lo:hi, None], r[lo:hi, None]
        inside = (i < rr) & (mm - tt - i >= 1)
        terms = xp.where(inside, xp.log(xp.maximum(mm - tt - i, 1.0)) - xp.log(xp.maximum(mm - i, 1.0)), 0.0)
        parts.append(xp.sum(terms, axis=1))
    log_ratio = parts[0] if len(parts) == 1 else xp.concat(parts)
    return xp.reshape(xp.where(ok, -xp.expm1(log_ratio), 1.0), shape)


def expect_reciprocal(s, m, r, power=1, k=None, *, xp=NUMPY):
    """E[1 / (s + X)**power] for power 1 or 2; with a cut-off ``k``, E[1{s + X <= k} / (s + X)**power]."""
    s, m, r = _floats(xp, s, m, r)
    # positions of the block inside the cut-off: s + 1 .. s + t
    t = m if k is None else _clip(xp, xp.floor(k - s), 0.0, m)
    out = t / (s + 1) ** power  # a point mass (m == 1)
    if _any(xp, m > 1):
        h = harmonic if power == 1 else harmonic2
        out = xp.where(m == 1, out, (h(s + t, xp=xp) - h(s, xp=xp)) / m)  # X uniform (r == 1)
        many = _some_many(xp, m, r)
        if many is not None:
            out = xp.where(many, _best_of_many(xp, s, m, r, many, "reciprocal", k=k, power=power), out)
    return out


def expect_hits(s, m, r, k, *, xp=NUMPY):
    """P(s + X <= k)."""
    s, m, r = _floats(xp, s, m, r)
    t = _clip(xp, xp.floor(k - s), 0.0, m)
    out = xp.where(m == 1, t, t / m)
    many = _some_many(xp, m, r)
    if many is not None:
        out = xp.where(many, _hits_of_best(xp, m, r, t, many), out)
    return out


def expect_rank(s, m, r, *, xp=NUMPY):
    s, m, r = _floats(xp, s, m, r)
    return s + (m + 1) / (r + 1.0)


def variance_rank(m, r, *, xp=NUMPY):
    """Var[X] of the best of r positions among m (s does not matter)."""
    m, r = _floats(xp, m, r)
    return r * (m + 1) * (m - r) / ((r + 1) ** 2 * (r + 2))


# Power means for the geometric mean rank.  The variance of the GMR of a random ranking is
# E[G^2] - E[G]^2 with E[G] = prod_i E[(s_i + X_i)**a_i]: with thousands of targets each factor
# is 1 + O(a_i) and the variance sits far below the rounding of "1 + something".  So every
# factor is carried as its excess over one, E[(s + X)**a] - 1 = E[expm1(a log(s + X))], to full
# relative precision, and log E = log1p(excess).
_DIRECT_TERMS = 8     # the first positions of a uniform X are summed term by term ...
_EULER_MACLAURIN = tuple(float(Fraction(n, d) / factorial(2 * k)) for k, (n, d) in enumerate(
    [(1, 6), (-1, 30), (1, 42), (-1, 30), (5, 66), (-691, 2730), (7, 6), (-3617, 510), (43867, 798),
     (-174611, 330)], start=1))  # ... the rest by Euler-Maclaurin (Abramowitz & Stegun 23.1.30): B_2k / (2k)!


def _power_sum_excess(s, m, a, *, xp=NUMPY):
    """sum_{t=1}^{m} ((s + t)**a - 1), one exponent per target (a >= 0, s >= 0, m >= 1).

    The first ``_DIRECT_TERMS`` terms are added one by one; beyond them (x from
    A = s + 9 to B = s + m, where the derivatives of x**a are small) the Euler-Maclaurin
    formula with ten Bernoulli corrections leaves a remainder below 1e-17 of the sum for
    0 <= a <= 2. Every piece is a sum of nonnegative terms or a small correction, so the
    result keeps a few ulps of relative precision whatever s, m and a are. No loop over
    targets or over distinct exponents: a fixed number of array operations.
    """
    total = xp.zeros_like(s)
    for t in range(1, _DIRECT_TERMS + 1):
        total = total + xp.where(t <= m, xp.expm1(a * xp.log(s + t)), 0.0)
    tail = m > _DIRECT_TERMS
    if not _any(xp, tail):
        return total
    lo = s + (_DIRECT_TERMS + 1)
    hi = xp.where(tail, s + m, lo + 1.0)  # a harmless stand-in where the tail is empty
    log_lo, log_hi = xp.log(lo), xp.log(hi)
    g_lo, g_hi = xp.expm1(a * log_lo), xp.expm1(a * log_hi)
    # integral of x**a - 1 from lo to hi = (hi - lo) phi(hi) + lo (phi(hi) - phi(lo)) with
    # phi(x) = x**a / (1 + a) - 1, positive for x >= 3: both parts are nonnegative.
    phi_hi = xp.expm1(a * log_hi - xp.log1p(a))
    span = hi - lo
    integral = span * phi_hi + lo * (g_lo + 1) * xp.expm1(a * xp.log1p(span / lo)) / (1 + a)
    value = integral + (g_lo + g_hi) / 2
    # sum_k B_2k / (2k)! (f^(2k-1)(hi) - f^(2k-1)(lo)), f^(n)(x) = a (a-1) ... (a-n+1) x**(a-n)
    falling = a
    pow_lo, pow_hi = (g_lo + 1) / lo, (g_hi + 1) / hi
    inv_lo2, inv_hi2 = 1.0 / (lo * lo), 1.0 / (hi * hi)
    for k, coef in enumerate(_EULER_MACLAURIN, start=1):
        value = value + coef * falling * (pow_hi - pow_lo)
        falling = falling * (a - (2 * k - 1)) * (a - 2 * k)
        pow_lo = pow_lo * inv_lo2
        pow_hi = pow_hi * inv_hi2
    return total + xp.where(tail, value, 0.0)


def _uniform_power_excess(xp, s, m, a, uniform):
    """E[(s + X)**a] - 1 for X uniform on 1..m, where ``uniform`` holds (other entries meaningless).

    NumPy evaluates the entries concerned only and, with one exponent and one start for all of them
    (the random baseline of unweighted targets), each candidate count once: the same values as entry by
    entry, at a fraction of the cost."""
    if xp is not np:
        return _power_sum_excess(s, m, a, xp=xp) / m
    out = np.zeros(s.shape)
    su, mu, au = s[uniform], m[uniform], a[uniform]
    if su.size > 1024 and (au == au[0]).all() and (su == su[0]).all():
        sizes, inverse = np.unique(mu, return_inverse=True)
        out[uniform] = (_power_sum_excess(np.full(sizes.size, su[0]), sizes, np.full(sizes.size, au[0]))
                        / sizes)[inverse]
    else:
        out[uniform] = _power_sum_excess(su, mu, au) / mu
    return out


def expect_power_excess(s, m, r, a, *, xp=NUMPY):
    """E[(s + X)**a] - 1, with a per target, to full relative precision (see ``_power_sum_excess``)."""
    s, m, r, a = _floats(xp, s, m, r, a)
    out = xp.expm1(a * xp.log(s + 1))  # a point mass (m == 1)
    uniform = (m > 1) & (r == 1)
    if _any(xp, uniform):
        out = xp.where(uniform, _uniform_power_excess(xp, s, m, a, uniform), out)
    many = _some_many(xp, m, r)
    if many is not None:
        out = xp.where(many, _best_of_many(xp, s, m, r, many, "power", a=a), out)
    return out


def log_expect_power(s, m, r, a, *, xp=NUMPY):
    """log E[(s + X)**a], with a per target (a = weight share of the target, for geometric means)."""
    s, m, r, a = _floats(xp, s, m, r, a)
    # a point mass directly: exact doubling with 2a, no spread
    return xp.where(m == 1, a * xp.log(s + 1), xp.log1p(expect_power_excess(s, m, r, a, xp=xp)))


# ERR under ties="expected" (``ListKernels.err``). In a tie block of m candidates after s others, holding
# G items with stopping chances R_1..R_G (the other m - G stop nobody), a random order is a random order
# of the G items placed on a random G-subset of the m places, the two independent. The cascade stops at
# the i-th of them with chance ebar_{i-1} - ebar_i, ebar_i the mean of prod (1 - R) over the i-subsets of
# the G items (the elementary symmetric mean), and that item sits at s + T_i, T_i the i-th smallest of G
# places drawn without replacement from 1..m. So the block adds
#     sum_i (ebar_{i-1} - ebar_i) E[1 / (s + T_i); s + T_i <= k]
# times the chance that every item of the earlier blocks failed to stop.
_EXPAND_TERMS = 1 << 20  # terms of the order-statistic sums expanded at once


def symmetric_means(q, block, sizes):
    """ebar_i = e_i(q) / C(G, i), i = 0..G, of each block's values ``q`` (sorted by ``block``; ``sizes``: G).

    Returned flat, block after block (block b at ``cumsum(G + 1) - (G + 1)``). Each value joins by
    ebar_i <- ((n - i) ebar_i + i q_n ebar_{i-1}) / n, a convex combination: no cancellation, no overflow.
    The loop runs over the place of an item within its block (up to the largest G), not over blocks.
    """
    g = sizes.astype(np.int64)
    offsets = np.cumsum(g + 1) - (g + 1)
    out = np.zeros(int((g + 1).sum()))
    out[offsets] = 1.0
    rank = np.arange(q.size) - (np.cumsum(g) - g)[block]
    by_rank = np.argsort(rank, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(rank, minlength=int(g.max(initial=0))))))
    for n in range(1, int(g.max(initial=0)) + 1):
        at = by_rank[bounds[n - 1]:bounds[n]]
        i = np.arange(1, n + 1, dtype=np.float64)
        idx = offsets[block[at]][:, None] + np.arange(1, n + 1)
        out[idx] = ((n - i) * out[idx] + i * q[at][:, None] * out[idx - 1]) / n
    return out


def _log_binomial(a, b):
    return gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)


def _place_weight(x, decay):
    """The weight of 1-based place ``x``: 1 / x (ERR), or ``decay ** (x - 1)`` (PFound)."""
    return 1.0 / x if decay is None else np.exp((x - 1.0) * np.log(decay))


def _place_weight_sum(lo, hi, decay):
    """The weights of places lo + 1 .. hi summed (hi >= lo), in closed form."""
    if decay is None:
        return harmonic(hi) - harmonic(lo)
    log_decay = np.log(decay)
    return (np.exp(lo * log_decay) - np.exp(hi * log_decay)) / (1.0 - decay)


def expect_order_reciprocal(s, m, g, i, k, decay=None):
    """E[w(s + T); s + T <= k], T the i-th smallest of g places drawn without replacement from 1..m.

    ``w`` is the place weight: 1 / place (ERR), or ``decay ** (place - 1)`` (PFound). ``k`` per entry
    (inf: no cut-off). A point (m == 1) and g == 1 (T uniform: sums of the weights in closed form) are
    exact in one step; otherwise P(T = j) = C(j - 1, i - 1) C(m - j, g - i) / C(m, g) is summed over the
    places j <= k - s, a bounded number of terms at a time.
    """
    s, m, g, i, k = (np.asarray(a, dtype=np.float64) for a in (s, m, g, i, k))
    out = np.zeros(s.shape)
    point = m == 1
    out[point] = np.where(s[point] + 1 <= k[point], _place_weight(s[point] + 1, decay), 0.0)
    uni = ~point & (g == 1)
    su, mu = s[uni], m[uni]
    top = np.maximum(np.floor(np.minimum(k[uni], su + mu)), su)
    out[uni] = _place_weight_sum(su, top, decay) / mu
    many = np.flatnonzero(~point & (g > 1))
    if many.size:
        last = np.minimum(m[many] - g[many] + i[many], np.floor(np.minimum(k[many] - s[many], m[many])))
        length = np.maximum(last - i[many] + 1, 0).astype(np.int64)
        ends = np.cumsum(length)
        start = 0
        while start < many.size:
            stop = int(np.searchsorted(ends, (ends[start - 1] if start else 0) + _EXPAND_TERMS, side="right"))
            stop = max(stop, start + 1)
            part = many[start:stop]
            n_terms = length[start:stop]
            owner = np.repeat(np.arange(part.size), n_terms)
            j = np.arange(owner.size) - (np.cumsum(n_terms) - n_terms)[owner] + i[part][owner]
            mo, go, io = m[part][owner], g[part][owner], i[part][owner]
            log_p = _log_binomial(j - 1, io - 1) + _log_binomial(mo - j, go - io) - _log_binomial(mo, go)
            weight = _place_weight(s[part][owner] + j, decay)
            out[part] = np.bincount(owner, weights=np.exp(log_p) * weight, minlength=part.size)
            start = stop
    return out


def expect_top_auc(prefix, c, s, m, r, t, fill, *, xp=NUMPY):
    """The AUC of a top k that ends inside a tie block, averaged over the orders of that block's items.

    Per query: ``s`` candidates above the block, ``c`` of them relevant, whose (relevant, non-relevant)
    pairs ordered right number ``prefix``; the block of ``m`` candidates, ``r`` relevant, has ``t`` places
    (0 < t < m) in the top k. The relevant items of the block among them, X, follow the hypergeometric law
    of ``t`` draws from ``m`` with ``r`` successes, and given X the top k's AUC is

        (prefix + c (t - X) + X (t - X) / 2) / ((c + X) (s - c + t - X)),

    the tied pairs of the block counting half; 0 without a relevant item in the top k, ``fill`` (per
    query) without a non-relevant one. The law's weights come from the ratio of consecutive terms (no
    log-gamma in the array API standard), as a running sum of logarithms.
    """
    from ._sklearn_compat import array_device

    lo = xp.maximum(t - (m - r), 0.0)
    hi = xp.minimum(r, t)
    width = int(xp.max(hi - lo)) + 1 if hi.shape[0] else 1
    x = lo[:, None] + xp.arange(width, dtype=xp.float64, device=array_device(lo))[None, :]
    valid = x <= hi[:, None]
    mm, rr, tt = m[:, None], r[:, None], t[:, None]
    # P(X = x + 1) / P(X = x) = (r - x) (t - x) / ((x + 1) (m - r - t + x + 1)), positive below hi
    up = xp.where(valid, (rr - x) * (tt - x), 1.0)
    down = (x + 1.0) * xp.maximum(mm - rr - tt + x + 1.0, 1.0)
    step = xp.where(up > 0, xp.log(xp.where(up > 0, up, 1.0) / down), -math.inf)
    log_w = xp.concat([xp.zeros_like(step[:, :1]), xp.cumulative_sum(step[:, :-1], axis=1)], axis=1)
    log_w = xp.where(valid, log_w, -math.inf)
    w = xp.exp(log_w - xp.max(log_w, axis=1, keepdims=True))
    w = w / xp.sum(w, axis=1, keepdims=True)
    cc, ss = c[:, None], s[:, None]
    n_rel, n_nonrel = cc + x, ss - cc + tt - x
    ok = (n_rel > 0) & (n_nonrel > 0)
    value = (prefix[:, None] + cc * (tt - x) + x * (tt - x) / 2) / xp.where(ok, n_rel * n_nonrel, 1.0)
    value = xp.where(ok, value, xp.where(n_rel > 0, fill[:, None], 0.0))
    return xp.sum(xp.where(w > 0, w * value, 0.0), axis=1)
