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
    """``HypInv(k, m, delta, M) = min{K : Hyp(k; m, K, M) <= delta}`` by integer bisection.

    ``Hyp`` decreases in ``K``; the search runs over ``k <= K <= M - m + k + 1`` (the last value
    means "no K qualifies"). Log-probabilities within ``1e-10`` (relative) of ``log_delta``, plus
    an absolute floor for the rounding of ``lgamma(M + 1)`` (``4e-15`` of it: 7e-6 at
    ``M = 1e8``), count as above it, so rounding can only increase the result.

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
    lo, hi = k - 1, M - m + k + 1  # Hyp(lo) > delta (or lo < k); hi qualifies by convention
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if log_hypergeometric_cdf(k, m, mid, M) <= threshold:
            hi = mid
        else:
            lo = mid
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
