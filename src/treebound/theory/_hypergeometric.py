"""The hypergeometric distribution in log space and its tail inversions, the primitives of the
bounds of Leboeuf, LeBlanc & Marchand (2021), "Improving generalization bounds for VC classes
using the hypergeometric tail inversion" (arXiv 2111.00062). :mod:`treebound.theory.tail_inversion`
re-exports every public name here and builds the bounds on them."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from treebound._validation import check_integer as _check_count
from treebound.theory import _costs

__all__ = [
    "hypergeometric_tail_inversion",
    "hypergeometric_tail_lower_inversion",
    "log_hypergeometric_cdf",
    "log_hypergeometric_sf",
]

# Log-probabilities closer than this (relative, plus an absolute floor) to the threshold are
# treated as not rejected, so that rounding can only make an upper bound larger (and a lower
# bound smaller), never the other way round.
_LOG_TOLERANCE = 1e-10
# A log hypergeometric term is a sum of nine lgamma values up to lgamma(M + 1), so its rounding
# error grows with the population: about 1.6 machine epsilons of lgamma(M + 1) measured against
# exact rational arithmetic for M up to 5e7 (3e-7 in log at M = 5e7, 3e-8 at M = 5e6, far above
# the relative tolerance). The floor allows 18 epsilons of it (tests/test_tail_inversion_large.py).
_LGAMMA_ERROR = 4e-15


def _tolerance(log_threshold: float, population: int = 0) -> float:
    floor = _LGAMMA_ERROR * math.lgamma(population + 1.0) if population > 1 else 0.0
    return _LOG_TOLERANCE * (1.0 + abs(log_threshold)) + floor


# ------------------------------------------------------------------------- hypergeometric
def _log_hypergeometric_terms(m: int, K: int, M: int, j: np.ndarray) -> np.ndarray:
    """``ln [C(K, j) C(M - K, m - j) / C(M, m)]`` for valid ``j`` (``-inf`` elsewhere)."""
    valid = (j >= 0) & (j <= K) & (m - j >= 0) & (m - j <= M - K)
    jj = np.where(valid, j, 0).astype(np.float64)
    out = (gammaln(K + 1.0) - gammaln(jj + 1.0) - gammaln(K - jj + 1.0)
           + gammaln(M - K + 1.0) - gammaln(m - jj + 1.0) - gammaln(M - K - m + jj + 1.0)
           - gammaln(M + 1.0) + gammaln(m + 1.0) + gammaln(M - m + 1.0))
    return np.where(valid, out, -np.inf)


def _logsumexp(terms: np.ndarray) -> float:
    if terms.size == 0:
        return -math.inf
    top = float(terms.max())
    if top == -math.inf:
        return -math.inf
    return top + math.log(float(np.exp(terms - top).sum()))


def log_hypergeometric_cdf(n_errors: int, n_examples: int, n_bad: int, population: int) -> float:
    """``ln Hyp(k; m, K, M) = ln sum_{j <= k} C(K, j) C(M - K, m - j) / C(M, m)``.

    Parameters
    ----------
    n_errors : int
        ``k``.
    n_examples : int
        ``m``, the items drawn without replacement.
    n_bad : int
        ``K``, the "bad" items of the population.
    population : int
        ``M``.

    Returns
    -------
    float
        ``ln P(X <= k)`` for ``X ~ Hyp(m, K, M)``.

    Examples
    --------
    >>> round(math.exp(log_hypergeometric_cdf(0, 2, 2, 4)), 6)   # C(2, 2) / C(4, 2)
    0.166667
    >>> from scipy.stats import hypergeom
    >>> math.isclose(math.exp(log_hypergeometric_cdf(3, 20, 30, 100)),
    ...              hypergeom(100, 30, 20).cdf(3), rel_tol=1e-9)
    True
    """
    k, m, K, M = int(n_errors), int(n_examples), int(n_bad), int(population)
    lo = max(0, m - (M - K))
    if k < lo:
        return -math.inf
    if k >= min(m, K):
        return 0.0
    _costs.check_tail(k - lo + 1, 1, f"log_hypergeometric_cdf({k}, {m}, {K}, {M})")
    return _logsumexp(_log_hypergeometric_terms(m, K, M, np.arange(lo, k + 1)))


def log_hypergeometric_sf(n_errors: int, n_examples: int, n_bad: int, population: int) -> float:
    """``ln P(X >= k)`` for ``X ~ Hyp(m, K, M)``, the upper tail.

    Parameters
    ----------
    n_errors : int
        ``k``.
    n_examples : int
        ``m``, the items drawn without replacement.
    n_bad : int
        ``K``, the "bad" items of the population.
    population : int
        ``M``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(math.exp(log_hypergeometric_sf(1, 2, 2, 4)), 6)  # 1 - C(2, 2) / C(4, 2)
    0.833333
    """
    k, m, K, M = int(n_errors), int(n_examples), int(n_bad), int(population)
    hi = min(m, K)
    if k > hi:
        return -math.inf
    if k <= max(0, m - (M - K)):
        return 0.0
    _costs.check_tail(hi - k + 1, 1, f"log_hypergeometric_sf({k}, {m}, {K}, {M})")
    return _logsumexp(_log_hypergeometric_terms(m, K, M, np.arange(k, hi + 1)))


def _check_hypergeometric(n_errors, n_examples, population):
    k = _check_count(n_errors, "n_errors")
    m = _check_count(n_examples, "n_examples", 1)
    M = _check_count(population, "population", 1)
    if k > m:
        raise ValueError(f"n_errors ({k}) cannot exceed n_examples ({m})")
    if M < m:
        raise ValueError(f"population ({M}) cannot be smaller than n_examples ({m})")
    return k, m, M


def hypergeometric_tail_inversion(n_errors, n_examples, log_delta, population) -> int:
    """``HypInv(k, m, delta, M) = min{K : Hyp(k; m, K, M) <= delta}``.

    ``Hyp`` decreases in ``K``; the search runs over ``k <= K <= M - m + k + 1`` (the last value
    means "no K qualifies"). Log-probabilities within ``1e-10`` (relative) of ``log_delta``, plus
    an absolute floor for the rounding of ``lgamma(M + 1)`` (``4e-15`` of it: 7e-6 at
    ``M = 1e8``), count as above it, so rounding can only increase the result. The answer is
    the ``K`` where that test turns, found by a safeguarded secant search from a Chernoff guess
    (:func:`_turning_point`: a few evaluations of ``log_hypergeometric_cdf``'s values where
    bisection takes ``log2 M``), the same ``K`` as a bisection over the range.

    Parameters
    ----------
    n_errors, n_examples : int
        ``k`` and ``m``.
    log_delta : float
        ``ln delta`` (any negative value; no underflow).
    population : int
        ``M >= m``.

    Returns
    -------
    int
        The smallest ``K``, or ``M - m + k + 1`` when none qualifies.

    Examples
    --------
    >>> hypergeometric_tail_inversion(0, 1, math.log(0.6), 2)   # Hyp(0; 1, K, 2) = 1 - K / 2
    1
    >>> K = hypergeometric_tail_inversion(5, 100, math.log(0.05), 500)
    >>> K, log_hypergeometric_cdf(5, 100, K, 500) <= math.log(0.05)
    (49, True)
    >>> log_hypergeometric_cdf(5, 100, K - 1, 500) > math.log(0.05)
    True
    """
    k, m, M = _check_hypergeometric(n_errors, n_examples, population)
    log_delta = float(log_delta)
    if math.isnan(log_delta) or log_delta > 0.0:
        raise ValueError(f"log_delta must be <= 0, got {log_delta}")
    _costs.check_tail(k + 1, math.log2(M + 2), f"hypergeometric_tail_inversion({k}, {m}, M={M})")
    threshold = log_delta - _tolerance(log_delta, M)
    cdf = _LowerTail(k, m, M)
    # Hyp(k - 1) = 1 > delta (K < k); M - m + k + 1 qualifies by convention (Hyp = 0 there)
    return _turning_point(cdf, threshold, k - 1, M - m + k + 1,
                          _chernoff_guess(k, m, M, threshold),
                          lambda K: _chernoff_slope(k, m, M, K))


class _LowerTail:
    """``K -> log_hypergeometric_cdf(k, m, K, M)`` for the ``K`` of one inversion: the same
    floating-point operations in the same order, the terms that do not depend on ``K``
    (``lgamma`` of ``j + 1``, ``m - j + 1``, ``M + 1``, ...) computed once."""

    def __init__(self, k: int, m: int, M: int):
        self.k, self.m, self.M = k, m, M
        self.j = np.arange(0, k + 1).astype(np.float64)
        self.log_j = gammaln(self.j + 1.0)
        self.log_m_j = gammaln(m - self.j + 1.0)
        self.log_M = gammaln(M + 1.0)
        self.log_m = gammaln(m + 1.0)
        self.log_M_m = gammaln(M - m + 1.0)

    def __call__(self, K: int) -> float:
        k, m, M = self.k, self.m, self.M
        lo = max(0, m - (M - K))
        if k < lo:
            return -math.inf
        if k >= min(m, K):
            return 0.0
        # every j in lo..k is valid here (j <= k < min(m, K), m - j <= M - K): the terms of
        # _log_hypergeometric_terms, summed left to right as there
        jj = self.j[lo:]
        out = gammaln(K + 1.0) - self.log_j[lo:]
        out -= gammaln(K - jj + 1.0)
        out += gammaln(M - K + 1.0)
        out -= self.log_m_j[lo:]
        out -= gammaln(M - K - m + jj + 1.0)
        out -= self.log_M
        out += self.log_m
        out += self.log_M_m
        return _logsumexp(out)


def _chernoff_guess(k: int, m: int, M: int, threshold: float) -> float:
    """``M p`` with ``m KL(k / m || p) = -threshold``, ``p > k / m``: where Hoeffding's bound
    ``Hyp(k; m, M p, M) <= exp(-m KL(k / m || p))`` meets the threshold (a first point for
    the search; the answer is at most about there)."""
    q = k / m
    target = -threshold / m
    if q >= 1.0 or target <= 0.0:
        return float(k)
    if q == 0.0:  # KL(0 || p) = -ln(1 - p)
        return M * -math.expm1(-target)
    lo, hi = q, 1.0
    p = min(0.5 * (q + 1.0), q + math.sqrt(0.5 * target))  # Pinsker: KL >= 2 (p - q)^2
    for _ in range(60):  # Newton's method, safeguarded by bisection
        kl = q * math.log(q / p) + (1.0 - q) * math.log((1.0 - q) / (1.0 - p))
        if abs(kl - target) <= 1e-13 * target or hi - lo <= 1e-13 * hi:
            break
        if kl > target:
            hi = p
        else:
            lo = p
        slope = (1.0 - q) / (1.0 - p) - q / p  # d KL / dp > 0 on (q, 1)
        step = p - (kl - target) / slope if slope > 0.0 else -1.0
        p = step if lo < step < hi else 0.5 * (lo + hi)
    return M * p


def _chernoff_slope(k: int, m: int, M: int, K: int) -> float:
    """``d/dK`` of ``-m KL(k / m || K / M)``, Hoeffding's exponent (about the slope of
    ``log Hyp(k; m, K, M)`` past the mean); ``nan`` outside ``k / m < K / M < 1``."""
    q, p = k / m, K / M
    if not q < p < 1.0:
        return math.nan
    return -(m / M) * ((1.0 - q) / (1.0 - p) - q / p)


def _turning_point(value, threshold: float, lo: int, hi: int, guess: float, slope) -> int:
    """The smallest ``K`` in ``(lo, hi]`` with ``value(K) <= threshold``, for ``value``
    decreasing in ``K`` with ``value(lo) > threshold`` (``hi``: taken to qualify,
    never evaluated; ``guess``: a first point; ``slope(K)``: about the derivative of
    ``value`` there, for the second).

    A secant search: each next point is the ceiling of where the line through the last two
    values meets the threshold (the first at ``guess``, the second a Newton step with
    ``slope``), clamped inside the bracket, so once a
    point lands next to the turn the bracket closes on the following evaluation; a bisection
    step whenever the bracket failed to halve in two steps keeps the worst case within twice
    bisection's count. Every point is inside the bracket, so the answer is the one bisection
    over ``(lo, hi]`` finds.
    """
    points: list[tuple[int, float]] = []
    width_before = hi - lo
    steps_since_halving = 0
    while hi - lo > 1:
        estimate = None
        if len(points) >= 2:
            (a, fa), (b, fb) = points[-2], points[-1]
            if math.isfinite(fa) and math.isfinite(fb) and fa != fb:
                estimate = b + (threshold - fb) * (b - a) / (fb - fa)
        elif not points:
            estimate = guess
        elif math.isfinite(points[-1][1]):
            # a second point: a Newton step with the slope of the guess's approximation
            b, fb = points[-1]
            d = slope(b)
            if d < 0.0 and math.isfinite(d):
                estimate = b + (threshold - fb) / d
        if steps_since_halving >= 2 or estimate is None or not math.isfinite(estimate):
            K = (lo + hi) // 2
            steps_since_halving = 0
            width_before = hi - lo
        else:
            K = min(max(math.ceil(estimate), lo + 1), hi - 1)
        v = value(K)
        points.append((K, v))
        if v <= threshold:
            hi = K
        else:
            lo = K
        if 2 * (hi - lo) <= width_before:
            width_before = hi - lo
            steps_since_halving = 0
        else:
            steps_since_halving += 1
    return hi


def hypergeometric_tail_lower_inversion(n_errors, n_examples, log_delta, population) -> int:
    """``max{K : P(X > k) <= delta}`` for ``X ~ Hyp(m, K, M)``, the lower companion of
    :func:`hypergeometric_tail_inversion`.

    ``P(X > k)`` increases in ``K``; values within ``1e-10`` (relative) of ``log_delta``, plus
    the absolute floor of :func:`hypergeometric_tail_inversion`, count as above it, so rounding
    can only decrease the result.

    Parameters
    ----------
    n_errors, n_examples : int
        ``k`` and ``m``.
    log_delta : float
        ``ln delta`` (any negative value; no underflow).
    population : int
        ``M >= m``.

    Returns
    -------
    int
        The largest ``K`` (at least ``k``).

    Examples
    --------
    >>> K = hypergeometric_tail_lower_inversion(5, 100, math.log(0.05), 500)
    >>> K, log_hypergeometric_sf(6, 100, K, 500) <= math.log(0.05)
    (14, True)
    >>> log_hypergeometric_sf(6, 100, K + 1, 500) > math.log(0.05)
    True
    """
    k, m, M = _check_hypergeometric(n_errors, n_examples, population)
    log_delta = float(log_delta)
    if math.isnan(log_delta) or log_delta > 0.0:
        raise ValueError(f"log_delta must be <= 0, got {log_delta}")
    _costs.check_tail(m - k + 1, math.log2(M + 2),
                      f"hypergeometric_tail_lower_inversion({k}, {m}, M={M})")
    threshold = log_delta - _tolerance(log_delta, M)
    lo, hi = k, M + 1  # P(X > k | K = k) = 0 qualifies; K = M + 1 is out of range
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if log_hypergeometric_sf(k + 1, m, mid, M) <= threshold:
            lo = mid
        else:
            hi = mid
    return lo
