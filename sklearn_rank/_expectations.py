"""Exact expectations over tie orders.

Under ``ties="expected"`` the position of the best of ``r`` relevant items in a tie block of ``m``
candidates that starts after ``s`` others is ``s + X``, with ``X`` the minimum of ``r`` positions drawn
without replacement from ``1..m`` (McSherry & Najork, ECIR 2008). The functions here give the moments
the kernels need of that distribution, per target and vectorised: E[1 / (s + X)], P(s + X <= k),
E[s + X], Var[X] and E[(s + X)**a]; the random baselines of the adjusted metrics are the same
distribution with s = 0 and m the number of candidates.
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial

import numpy as np
from scipy.special import digamma, gammaln, polygamma


def harmonic(x):
    """H(x) = sum_{j<=x} 1/j, extended to real x >= 0 through the digamma function."""
    return digamma(np.asarray(x, dtype=np.float64) + 1.0) + np.euler_gamma


def harmonic2(x):
    """Second-order harmonic number sum_{j<=x} 1/j**2 (real x >= 0)."""
    return np.pi ** 2 / 6 - polygamma(1, np.asarray(x, dtype=np.float64) + 1.0)


def _expand(s, m, r):
    """Probability mass of s + X for targets with r > 1: (owner, value, probability)."""
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


def expect_reciprocal(s, m, r, power=1, k=None):
    """E[1 / (s + X)**power] for power 1 or 2; with a cut-off ``k``, E[1{s + X <= k} / (s + X)**power]."""
    s, m, r = (np.asarray(a, dtype=np.float64) for a in (s, m, r))
    out = np.empty(s.shape)
    # positions of the block inside the cut-off: s + 1 .. s + t
    t = m if k is None else np.clip(np.floor(k - s), 0, m)
    point = m == 1
    out[point] = t[point] / (s[point] + 1) ** power
    uni = (~point) & (r == 1)
    h = harmonic if power == 1 else harmonic2
    out[uni] = (h(s[uni] + t[uni]) - h(s[uni])) / m[uni]
    many = (~point) & (r > 1)
    if many.any():
        idx = np.flatnonzero(many)
        owner, value, p = _expand(s[idx], m[idx], r[idx])
        if k is not None:
            p = np.where(value <= k, p, 0.0)
        out[idx] = np.bincount(owner, weights=p / value ** power, minlength=idx.size)
    return out


def expect_hits(s, m, r, k):
    """P(s + X <= k)."""
    s, m, r = (np.asarray(a, dtype=np.float64) for a in (s, m, r))
    t = np.clip(np.floor(k - s), 0, m)
    out = np.where(m == 1, t, t / m)
    many = (m > 1) & (r > 1)
    if many.any():
        mm, rr, tt = m[many], r[many], t[many]
        # 1 - C(m - t, r) / C(m, r)
        ok = mm - tt >= rr
        log_ratio = (gammaln(mm - tt + 1) - gammaln(mm - tt - rr + 1)
                     - gammaln(mm + 1) + gammaln(mm - rr + 1))
        out[many] = np.where(ok, -np.expm1(np.where(ok, log_ratio, 0.0)), 1.0)
    return out


def expect_rank(s, m, r):
    return np.asarray(s, dtype=np.float64) + (np.asarray(m, dtype=np.float64) + 1) / (np.asarray(r) + 1.0)


def variance_rank(m, r):
    """Var[X] of the best of r positions among m (s does not matter)."""
    m = np.asarray(m, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
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


def _power_sum_excess(s, m, a):
    """sum_{t=1}^{m} ((s + t)**a - 1), one exponent per target (a >= 0, s >= 0, m >= 1).

    The first ``_DIRECT_TERMS`` terms are added one by one; beyond them (x from
    A = s + 9 to B = s + m, where the derivatives of x**a are small) the Euler-Maclaurin
    formula with ten Bernoulli corrections leaves a remainder below 1e-17 of the sum for
    0 <= a <= 2. Every piece is a sum of nonnegative terms or a small correction, so the
    result keeps a few ulps of relative precision whatever s, m and a are. No loop over
    targets or over distinct exponents: a fixed number of array operations.
    """
    total = np.zeros(s.shape)
    for t in range(1, _DIRECT_TERMS + 1):
        total += np.where(t <= m, np.expm1(a * np.log(s + t)), 0.0)
    tail = np.flatnonzero(m > _DIRECT_TERMS)
    if tail.size:
        at = a[tail]
        lo = s[tail] + (_DIRECT_TERMS + 1)
        hi = s[tail] + m[tail]
        log_lo, log_hi = np.log(lo), np.log(hi)
        g_lo, g_hi = np.expm1(at * log_lo), np.expm1(at * log_hi)
        # integral of x**a - 1 from lo to hi = (hi - lo) phi(hi) + lo (phi(hi) - phi(lo)) with
        # phi(x) = x**a / (1 + a) - 1, positive for x >= 3: both parts are nonnegative.
        phi_hi = np.expm1(at * log_hi - np.log1p(at))
        span = hi - lo
        integral = span * phi_hi + lo * (g_lo + 1) * np.expm1(at * np.log1p(span / lo)) / (1 + at)
        value = integral + (g_lo + g_hi) / 2
        # sum_k B_2k / (2k)! (f^(2k-1)(hi) - f^(2k-1)(lo)), f^(n)(x) = a (a-1) ... (a-n+1) x**(a-n)
        falling = at.copy()
        pow_lo, pow_hi = (g_lo + 1) / lo, (g_hi + 1) / hi
        inv_lo2, inv_hi2 = 1.0 / (lo * lo), 1.0 / (hi * hi)
        for k, coef in enumerate(_EULER_MACLAURIN, start=1):
            value += coef * falling * (pow_hi - pow_lo)
            falling = falling * (at - (2 * k - 1)) * (at - 2 * k)
            pow_lo = pow_lo * inv_lo2
            pow_hi = pow_hi * inv_hi2
        total[tail] += value
    return total


def expect_power_excess(s, m, r, a):
    """E[(s + X)**a] - 1, with a per target, to full relative precision (see ``_power_sum_excess``)."""
    s, m, r, a = (np.asarray(v, dtype=np.float64) for v in (s, m, r, a))
    out = np.empty(s.shape)
    point = m == 1
    out[point] = np.expm1(a[point] * np.log(s[point] + 1))
    uni = (~point) & (r == 1)
    if uni.any():
        idx = np.flatnonzero(uni)
        su, mu, au = s[idx], m[idx], a[idx]
        if idx.size > 1024 and (au == au[0]).all() and (su == su[0]).all():
            # One exponent and one start (the random baseline of unweighted targets): each
            # candidate count once. The same values as term by term, at a fraction of the cost.
            sizes, inverse = np.unique(mu, return_inverse=True)
            su, mu, au = np.full(sizes.size, su[0]), sizes, np.full(sizes.size, au[0])
            out[idx] = (_power_sum_excess(su, mu, au) / mu)[inverse]
        else:
            out[idx] = _power_sum_excess(su, mu, au) / mu
    many = (~point) & (r > 1)
    if many.any():
        idx = np.flatnonzero(many)
        owner, value, p = _expand(s[idx], m[idx], r[idx])
        out[idx] = np.bincount(owner, weights=p * np.expm1(a[idx][owner] * np.log(value)), minlength=idx.size)
    return out


def log_expect_power(s, m, r, a):
    """log E[(s + X)**a], with a per target (a = weight share of the target, for geometric means)."""
    s, m, r, a = (np.asarray(v, dtype=np.float64) for v in (s, m, r, a))
    out = np.log1p(expect_power_excess(s, m, r, a))
    point = m == 1
    out[point] = a[point] * np.log(s[point] + 1)  # exact doubling with 2a: no spread for a point mass
    return out


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


def expect_order_reciprocal(s, m, g, i, k):
    """E[1 / (s + T); s + T <= k], T the i-th smallest of g places drawn without replacement from 1..m.

    ``k`` per entry (inf: no cut-off). A point (m == 1) and g == 1 (T uniform: harmonic numbers) are in
    closed form; otherwise P(T = j) = C(j - 1, i - 1) C(m - j, g - i) / C(m, g) is summed over the places
    j <= k - s, a bounded number of terms at a time.
    """
    s, m, g, i, k = (np.asarray(a, dtype=np.float64) for a in (s, m, g, i, k))
    out = np.zeros(s.shape)
    point = m == 1
    out[point] = np.where(s[point] + 1 <= k[point], 1.0 / (s[point] + 1), 0.0)
    uni = ~point & (g == 1)
    su, mu = s[uni], m[uni]
    top = np.maximum(np.floor(np.minimum(k[uni], su + mu)), su)
    out[uni] = (harmonic(top) - harmonic(su)) / mu
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
            out[part] = np.bincount(owner, weights=np.exp(log_p) / (s[part][owner] + j), minlength=part.size)
            start = stop
    return out
