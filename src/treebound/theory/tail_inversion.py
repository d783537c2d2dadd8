"""Binomial and hypergeometric tail inversions: risk bounds that are not vacuous.

Every function here works in log space, so that confidence levels far below ``1e-308`` (a
union bound over every tree shape divides ``delta`` by huge numbers) stay exact.

* :func:`binomial_tail_inversion` — ``B(k, n, delta) = max{p : Bin(k; n, p) >= delta}``, the
  one-sided Clopper–Pearson upper limit; Langford (2005), "Tutorial on practical prediction
  theory for classification", Theorem 3.3 (the *test-set bound*: ``k`` errors on ``n`` rows
  never used to choose the classifier give ``R <= B(k, n, delta)`` with probability
  ``>= 1 - delta``). :func:`binomial_tail_lower_inversion` is the lower limit.
* :func:`hypergeometric_tail_inversion` — ``HypInv(k, m, delta, M) = min{K : Hyp(k; m, K, M)
  <= delta}`` with ``Hyp`` the hypergeometric CDF (``K`` "bad" items among ``M``, ``m`` drawn).
* :func:`hypergeometric_tail_inversion_bound` and its lower companion — Theorems 5 and 7 of
  Leboeuf, LeBlanc & Marchand (2021), "Improving generalization bounds for VC classes using the
  hypergeometric tail inversion" (arXiv 2111.00062).
* :func:`sample_compression_bound` — Marchand & Sokolova (2005), Theorem 1 with a prior over
  messages: ``R <= B(k', m - d, delta P(d, sigma) / C(m, d))``.
* :func:`log_leaf_assignment_growth_bound` — a closed-form bound on the growth function of a
  tree shape, cheap for trees of any size.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import betainccinv, gammaln

from treebound._validation import check_integer as _check_count
from treebound.theory import _costs
from treebound.theory._hypergeometric import (
    _chernoff_guess,
    _tolerance,
    hypergeometric_tail_inversion,
    hypergeometric_tail_lower_inversion,
    log_hypergeometric_cdf,
    log_hypergeometric_sf,
)

__all__ = [
    "binomial_tail_inversion",
    "binomial_tail_lower_inversion",
    "hypergeometric_tail_inversion",
    "hypergeometric_tail_inversion_bound",
    "hypergeometric_tail_inversion_lower_bound",
    "hypergeometric_tail_lower_inversion",
    "log_binomial_cdf",
    "log_hypergeometric_cdf",
    "log_hypergeometric_sf",
    "log_leaf_assignment_growth_bound",
    "sample_compression_bound",
]

def _log_delta(delta, log_prior) -> float:
    """``ln(delta * prior)`` with ``delta`` in (0, 1) and ``log_prior <= 0``."""
    if isinstance(delta, bool) or not isinstance(delta, (int, float, np.floating, np.integer)):
        raise TypeError(f"delta must be a number, got {type(delta).__name__}")
    delta = float(delta)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    log_prior = float(log_prior)
    if math.isnan(log_prior) or log_prior > 0.0:
        raise ValueError(f"log_prior is the log of a probability and must be <= 0, got "
                         f"{log_prior}")
    return math.log(delta) + log_prior


#: Below this ``ln delta`` scipy's incomplete-beta inverse is not trusted (subnormal range).
_SCIPY_LOG_FLOOR = -700.0


# ----------------------------------------------------------------------------- binomial
def log_binomial_cdf(n_errors: int, n_examples: int, p: float) -> float:
    """``ln Bin(k; n, p) = ln sum_{j <= k} C(n, j) p^j (1 - p)^(n - j)``, exact in log space.

    Parameters
    ----------
    n_errors : int
        ``k``.
    n_examples : int
        ``n``.
    p : float in [0, 1]
        Success (error) probability.

    Returns
    -------
    float
        ``ln P(X <= k)`` for ``X ~ Bin(n, p)``: 0 when ``k >= n`` or ``p = 0``, ``-inf`` when
        ``p = 1`` and ``k < n``; finite far below the float range of ``P``.

    Examples
    --------
    >>> round(math.exp(log_binomial_cdf(1, 3, 0.5)), 12)
    0.5
    >>> from scipy.stats import binom
    >>> math.isclose(math.exp(log_binomial_cdf(3, 20, 0.3)), binom(20, 0.3).cdf(3))
    True
    >>> log_binomial_cdf(0, 10**6, 0.01) == 10**6 * math.log1p(-0.01)  # P = 0.99**1e6 = 0.0
    True
    """
    k, n = int(n_errors), int(n_examples)
    if k >= n:
        return 0.0
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return -math.inf
    _costs.check_tail(k + 1, 1, f"log_binomial_cdf({k}, {n})")
    log_p, log_q = math.log(p), math.log1p(-p)

    def terms(lo, hi):
        j = np.arange(lo, hi, dtype=np.float64)
        return (gammaln(n + 1.0) - gammaln(j + 1.0) - gammaln(n - j + 1.0) + j * log_p
                + (n - j) * log_q)

    if (n + 1) * p <= k or k < _CHUNK:  # the mode is inside [0, k]: sum every term
        t = terms(0, k + 1)
        top = float(t.max())
        return top + math.log(float(np.exp(t - top).sum()))
    # The terms decrease from j = k downwards (log-concave, mode above k): sum chunks until
    # they no longer matter in double precision.
    top = float(terms(k, k + 1)[0])
    total, hi = 0.0, k + 1
    while hi > 0:
        lo = max(0, hi - _CHUNK)
        t = terms(lo, hi)
        total += float(np.exp(t - top).sum())
        if float(t.max()) < top - 60.0:
            break
        hi = lo
    return top + math.log(total)


#: Terms of the binomial CDF summed per chunk from the top (most of the mass is near ``k``).
_CHUNK = 256


def _log_binomial_sf(n_errors: int, n_examples: int, p: float) -> float:
    """``ln P(X >= k)`` for ``X ~ Bin(n, p)``."""
    k, n = int(n_errors), int(n_examples)
    if k <= 0:
        return 0.0
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return 0.0
    j = np.arange(k, n + 1, dtype=np.float64)
    terms = (gammaln(n + 1.0) - gammaln(j + 1.0) - gammaln(n - j + 1.0)
             + j * math.log(p) + (n - j) * math.log1p(-p))
    top = float(terms.max())
    return top + math.log(float(np.exp(terms - top).sum()))


def _bisect_probability(predicate, lo: float, hi: float, known_true: float = -math.inf,
                        known_false: float = math.inf) -> tuple[float, float]:
    """Shrink ``[lo, hi]`` with ``predicate(lo)`` true and ``predicate(hi)`` false.

    ``predicate`` is monotone (true below a point, false above): a midpoint at most
    ``known_true`` (a point where it was seen true) is true and one at least ``known_false``
    false without evaluating it, so the same bisection costs only the midpoints between them.
    """
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi or hi - lo <= 1e-15 * hi:
            break
        if mid <= known_true or (mid < known_false and predicate(mid)):
            lo = mid
        else:
            hi = mid
    return lo, hi


def _binomial_turn(k: int, n: int, threshold: float, inside) -> tuple[float, float]:
    """A point where ``inside`` (``log_binomial_cdf(k, n, p) >= threshold``) holds and one,
    just above, where it does not, close around the turn (``-inf``, ``inf`` for a side not
    found): Newton's method on ``ln Bin(k; n, p)`` from Hoeffding's (Chernoff) point, which is
    past the turn; the CDF is log-concave in ``p``, so the steps approach it from above."""
    p = _chernoff_guess(k, n, 1, threshold)
    log_choose = float(gammaln(n) - gammaln(k + 1.0) - gammaln(n - k))
    outside = math.inf
    for _ in range(40):
        if not k / n < p < 1.0:
            break
        log_cdf = log_binomial_cdf(k, n, p)
        if not math.isfinite(log_cdf) or log_cdf >= threshold:
            break
        outside = p
        # d/dp ln Bin(k; n, p) = -n C(n - 1, k) p^k (1 - p)^(n - 1 - k) / Bin(k; n, p)
        log_density = log_choose + k * math.log(p) + (n - 1 - k) * math.log1p(-p)
        slope = -n * math.exp(log_density - log_cdf)
        step = (threshold - log_cdf) / slope if slope < 0.0 else 0.0
        if not step < 0.0 or p + step <= k / n:
            break
        if -step <= 1e-15 * p:
            break
        p += step
    if outside == math.inf or not slope < 0.0:
        return -math.inf, math.inf
    # Rounding makes the computed test noisy near the turn (the log terms err by a few ulps of
    # lgamma(n + 1)): the bracket is kept sixteen times that noise, in p, on either side,
    # so that each midpoint it decides is one whose evaluation is decided too.
    noise = 16.0 * (64.0 * math.ulp(float(gammaln(n + 1.0))) / -slope + 4.0 * math.ulp(p))
    above, below = p + noise, p - noise
    if not (k / n < below and above < 1.0) or inside(above) or not inside(below):
        return -math.inf, math.inf
    return below, above


def binomial_tail_inversion(n_errors, *, n_examples, delta=0.05, log_prior=0.0) -> float:
    """``B(k, n, delta e^log_prior) = max{p : Bin(k; n, p) >= delta e^log_prior}``.

    The one-sided Clopper-Pearson upper confidence limit of a binomial proportion, i.e.
    ``beta.ppf(1 - delta, k + 1, n - k)``; Langford (2005), Theorem 3.3: if ``k`` errors are
    counted on ``n`` i.i.d. rows that played no part in choosing the classifier, its true risk
    is at most ``B(k, n, delta)`` with probability at least ``1 - delta`` (the test-set bound).

    Parameters
    ----------
    n_errors : int
        ``k``, errors counted on the rows (``0 <= k <= n``).
    n_examples : int
        ``n >= 1``, the number of rows.
    delta : float, default=0.05
        Confidence parameter in ``(0, 1)``.
    log_prior : float, default=0.0
        ``ln`` of a prior weight (``<= 0``) multiplying ``delta`` (Occam and compression bounds
        divide the confidence among many hypotheses); kept in log space so that tiny weights are
        exact.

    Returns
    -------
    float
        The upper limit in ``[k / n, 1]``, rounded up (never below the exact value).

    Examples
    --------
    >>> round(binomial_tail_inversion(0, n_examples=100, delta=0.05), 6)  # 1 - 0.05 ** (1 / 100)
    0.029513
    >>> from scipy.stats import beta
    >>> upper = binomial_tail_inversion(7, n_examples=50, delta=0.05)
    >>> bool(abs(upper - beta.ppf(0.95, 8, 43)) < 1e-9)
    True
    """
    k = _check_count(n_errors, "n_errors")
    n = _check_count(n_examples, "n_examples", 1)
    if k > n:
        raise ValueError(f"n_errors ({k}) cannot exceed n_examples ({n})")
    log_delta = _log_delta(delta, log_prior)
    if k == n:
        return 1.0
    if k == 0:  # Bin(0; n, p) = (1 - p)^n: closed form
        return float(min(1.0, -math.expm1(log_delta / n) * (1 + 1e-12)))
    _costs.check_tail(k + 1, 60, f"binomial_tail_inversion({k}, {n})")
    threshold = log_delta - _tolerance(log_delta, n)  # a looser test: the limit can only grow

    def inside(p):
        return log_binomial_cdf(k, n, p) >= threshold

    if log_delta > _SCIPY_LOG_FLOOR:
        # scipy's inverse of the regularized incomplete beta as a guess, checked exactly: one
        # step above it that is provably past the limit is returned (within 1e-9, relative)
        guess = float(betainccinv(k + 1, n - k, math.exp(log_delta)))
        if k / n <= guess < 1.0:
            lo, hi = guess * (1 - 1e-9), min(1.0, guess * (1 + 1e-9))
            if inside(lo) and not inside(hi):
                return float(hi)
    # the bisection from [k / n, 1], its midpoints outside a close bracket of the turn known
    lo, hi = _bisect_probability(inside, k / n, 1.0, *_binomial_turn(k, n, threshold, inside))
    return float(hi)


def binomial_tail_lower_inversion(n_errors, *, n_examples, delta=0.05, log_prior=0.0) -> float:
    """``min{p : P(Bin(n, p) >= k) >= delta e^log_prior}``: the Clopper-Pearson lower limit.

    The one-sided lower confidence limit of a binomial proportion,
    ``beta.ppf(delta, k, n - k + 1)`` (``0`` when ``k = 0``): the lower side of Langford's (2005)
    test-set interval.

    Parameters
    ----------
    n_errors : int
        ``k``, errors counted on the rows (``0 <= k <= n``).
    n_examples : int
        ``n >= 1``, the number of rows.
    delta : float, default=0.05
        Confidence parameter in ``(0, 1)``.
    log_prior : float, default=0.0
        ``ln`` of a prior weight (``<= 0``) multiplying ``delta``.

    Returns
    -------
    float
        The lower limit in ``[0, k / n]``, rounded down (never above the exact value).

    Examples
    --------
    >>> from scipy.stats import beta
    >>> lower = binomial_tail_lower_inversion(7, n_examples=50, delta=0.05)
    >>> bool(abs(lower - beta.ppf(0.05, 7, 44)) < 1e-9), round(lower, 4)
    (True, 0.0676)
    """
    k = _check_count(n_errors, "n_errors")
    n = _check_count(n_examples, "n_examples", 1)
    if k > n:
        raise ValueError(f"n_errors ({k}) cannot exceed n_examples ({n})")
    log_delta = _log_delta(delta, log_prior)
    if k == 0:
        return 0.0
    if k == n:  # P(X = n) = p^n
        return float(max(0.0, math.exp(log_delta / n) * (1 - 1e-12)))
    _costs.check_tail(n - k + 1, 60, f"binomial_tail_lower_inversion({k}, {n})")
    threshold = log_delta - _tolerance(log_delta, n)  # a stricter test: the limit can only shrink
    # predicate(p): p is still below the limit (the event "X >= k" is too unlikely).
    lo, hi = _bisect_probability(lambda p: _log_binomial_sf(k, n, p) < threshold, 0.0, k / n)
    return float(lo)


def _ghost(n_examples: int, ghost_size) -> int:
    if ghost_size is None:
        return 4 * n_examples
    return _check_count(ghost_size, "ghost_size", 1)


def _check_log_growth(log_growth) -> float:
    value = float(log_growth)
    if math.isnan(value) or value < 0.0:
        raise ValueError(f"log_growth must be >= 0 (the growth function is >= 1), got {value}")
    return value


def hypergeometric_tail_inversion_bound(n_examples, *, n_errors, log_growth, delta=0.05,
                                        ghost_size=None, log_prior=0.0) -> float:
    """Upper bound on the true risk by the hypergeometric tail inversion.

    Theorem 5 of Leboeuf, LeBlanc & Marchand (2021), "Improving generalization bounds for VC
    classes using the hypergeometric tail inversion" (arXiv 2111.00062). With probability at least
    ``1 - delta`` over an i.i.d. sample of ``m`` examples, every classifier ``h`` of a class ``H``
    with growth function ``tau`` satisfies

        ``R(h) <= max(1, HypInv(k, m, delta / (4 tau(m + m')), m + m') - 1 - k) / m'``

    where ``k`` are its errors on the sample and ``m'`` the size of the ghost sample of the
    symmetrization argument. A union bound over classes ``H_T`` with prior weights ``p_T``
    (``sum p_T <= 1``) replaces ``delta`` by ``delta p_T``: pass ``log_prior = ln p_T``.

    Parameters
    ----------
    n_examples : int
        ``m >= 1``, the training sample size.
    n_errors : int
        ``k``, training errors of the classifier (``0 <= k <= m``).
    log_growth : float
        ``ln tau(m + m') >= 0``, the log growth function of the class at ``m + m'`` points.
    delta : float, default=0.05
        Confidence parameter in ``(0, 1)``.
    ghost_size : int, optional
        ``m'``; default ``4 m``. It must be fixed before the data is seen: choosing it after
        seeing ``k`` needs a union bound over the values tried (divide ``delta`` by their
        number).
    log_prior : float, default=0.0
        ``ln`` of the prior weight of the class (``<= 0``; union bound over classes).

    Returns
    -------
    float
        The bound, in ``[1/m', 1]``; ``1`` when ``k = m``.

    Examples
    --------
    The authors' check value (``tau(500) = sum_{i <= 24} C(500, i)``):

    >>> log_tau = math.log(sum(math.comb(500, i) for i in range(25)))
    >>> upper = hypergeometric_tail_inversion_bound(100, n_errors=8, log_growth=log_tau,
    ...                                             delta=0.05, ghost_size=400)
    >>> round(upper, 4)
    0.8075
    """
    m = _check_count(n_examples, "n_examples", 1)
    k = _check_count(n_errors, "n_errors")
    if k > m:
        raise ValueError(f"n_errors ({k}) cannot exceed n_examples ({m})")
    log_growth = _check_log_growth(log_growth)
    log_delta = _log_delta(delta, log_prior)
    ghost = _ghost(m, ghost_size)
    if k == m:
        return 1.0
    K = hypergeometric_tail_inversion(k, m, log_delta - math.log(4.0) - log_growth, m + ghost)
    return max(1, K - 1 - k) / ghost


def hypergeometric_tail_inversion_lower_bound(n_examples, *, n_errors, log_growth, delta=0.05,
                                              ghost_size=None, log_prior=0.0) -> float:
    """Lower bound on the true risk, the companion of :func:`hypergeometric_tail_inversion_bound`.

    Theorem 7 of Leboeuf, LeBlanc & Marchand (2021, arXiv 2111.00062). With probability at least
    ``1 - delta``, every ``h`` of the class satisfies

        ``R(h) >= min(m' - 1, HypLowInv(k - 1, m, delta / (4 tau(m + m')), m + m') + 1 - k) / m'``

    with ``HypLowInv(k, m, d, M) = max{K : P(X > k) <= d}``, ``X ~ Hyp(m, K, M)``. Together with
    the upper bound (each at ``delta``) the interval holds with probability at least
    ``1 - 2 delta``.

    Parameters
    ----------
    n_examples : int
        ``m >= 1``, the training sample size.
    n_errors : int
        ``k``, training errors of the classifier (``0 <= k <= m``).
    log_growth : float
        ``ln tau(m + m') >= 0``, the log growth function of the class at ``m + m'`` points.
    delta : float, default=0.05
        Confidence parameter in ``(0, 1)``.
    ghost_size : int, optional
        ``m'``; default ``4 m`` (fixed before the data is seen).
    log_prior : float, default=0.0
        ``ln`` of the prior weight of the class (``<= 0``).

    Returns
    -------
    float
        The bound, in ``[0, 1)``; ``0`` when ``k = 0``.

    Examples
    --------
    >>> log_tau = math.log(sum(math.comb(500, i) for i in range(25)))
    >>> lower = hypergeometric_tail_inversion_lower_bound(100, n_errors=60, log_growth=log_tau,
    ...                                                   delta=0.05, ghost_size=400)
    >>> round(lower, 3)  # 60 % training error, but a class this rich promises little
    0.015
    """
    m = _check_count(n_examples, "n_examples", 1)
    k = _check_count(n_errors, "n_errors")
    if k > m:
        raise ValueError(f"n_errors ({k}) cannot exceed n_examples ({m})")
    log_growth = _check_log_growth(log_growth)
    log_delta = _log_delta(delta, log_prior)
    ghost = _ghost(m, ghost_size)
    if k == 0:
        return 0.0
    K = hypergeometric_tail_lower_inversion(k - 1, m, log_delta - math.log(4.0) - log_growth,
                                            m + ghost)
    return max(0, min(ghost - 1, K + 1 - k)) / ghost


# ------------------------------------------------------------------------ compression
def sample_compression_bound(n_examples, *, n_errors_outside, compression_size,
                             log_message_prior, delta=0.05) -> float:
    """Sample-compression bound (Marchand & Sokolova 2005, Theorem 1; Shah 2007).

    A classifier rebuilt from ``d`` of the ``m`` training examples (the compression set) and a
    message ``sigma`` satisfies, with probability at least ``1 - delta`` simultaneously for
    every compression set and message,

        ``R <= B(k', m - d, delta P(d, sigma) / C(m, d))``

    where ``k'`` are its errors on the ``m - d`` examples outside the compression set,
    ``P(d, sigma)`` a prior over (size, message) fixed before seeing the data and ``B`` the
    binomial tail inversion (:func:`binomial_tail_inversion`).

    Parameters
    ----------
    n_examples : int
        ``m >= 1``, the training sample size.
    n_errors_outside : int
        ``k'``, errors on the examples outside the compression set.
    compression_size : int
        ``d``, the size of the compression set (``d < m``).
    log_message_prior : float
        ``ln P(d, sigma) <= 0``.
    delta : float, default=0.05
        Confidence parameter in ``(0, 1)``.

    Returns
    -------
    float
        The bound, in ``[0, 1]``; ``1`` when ``d >= m``.

    Examples
    --------
    >>> round(sample_compression_bound(1000, n_errors_outside=10, compression_size=4,
    ...                                log_message_prior=math.log(1e-6)), 4)
    0.0669
    >>> # an empty compression set and prior 1: the binomial (test-set) bound itself
    >>> bound = sample_compression_bound(1000, n_errors_outside=10, compression_size=0,
    ...                                  log_message_prior=0.0)
    >>> bound == binomial_tail_inversion(10, n_examples=1000)
    True
    """
    m = _check_count(n_examples, "n_examples", 1)
    k = _check_count(n_errors_outside, "n_errors_outside")
    d = _check_count(compression_size, "compression_size")
    if d >= m:
        return 1.0
    if k > m - d:
        raise ValueError(f"n_errors_outside ({k}) cannot exceed n_examples - compression_size "
                         f"({m - d})")
    log_choose = float(gammaln(m + 1.0) - gammaln(d + 1.0) - gammaln(m - d + 1.0))
    return binomial_tail_inversion(k, n_examples=m - d, delta=delta,
                                   log_prior=float(log_message_prior) - log_choose)


# ------------------------------------------------------------------------ growth function
def log_leaf_assignment_growth_bound(n_examples, *, n_leaves, n_classes,
                                     log_test_choices) -> float:
    """``ln`` of a closed-form bound on the growth function of a tree shape.

    ``tau_T(M) <= n^L W * C(M + L - 1, L - 1)`` with ``L`` leaves, ``n`` classes and ``W`` the
    product over internal nodes of the number of distinct tests that can send exactly ``k`` of
    the points to a given child (``2 ell`` for a binary test on ``ell`` real features: the
    ``k`` smallest or the ``k`` largest values of one feature; ``2^K - 2`` for a binary subset
    test on a ``K``-level categorical feature; the number of features of the arity for a
    multiway test).

    Proof: a labelling of ``M`` points by a tree is fixed by the leaf each point reaches and the
    leaf labels (``n^L``). By induction on the shape, the leaf assignments number at most
    ``W_T`` times the weak compositions of ``M`` into ``L`` parts: at the root, the points sent
    to each child form a set chosen among at most ``W_root`` per split of the counts, and the
    sum over counts of the children's compositions is, by Vandermonde's identity, the number of
    weak compositions of ``M`` into ``L_left + L_right`` parts. It ignores Theorem 9's finer
    counting (Leboeuf et al. 2020; usually 2-5 % higher in log) but costs ``O(1)`` for any tree.

    Parameters
    ----------
    n_examples : int
        ``M >= 0``, the number of points.
    n_leaves : int
        ``L >= 1``.
    n_classes : int
        ``n >= 1``.
    log_test_choices : float
        ``ln W >= 0``, e.g. ``(L - 1) ln(2 ell)`` for a binary tree on ``ell`` real features.

    Returns
    -------
    float
        ``L ln n + ln W + ln C(M + L - 1, L - 1)``.

    Examples
    --------
    A stump (``L = 2``, one real feature: ``W = 2``) on 3 points and 2 classes:
    ``2^2 * 2 * C(4, 1) = 32``.

    >>> round(math.exp(log_leaf_assignment_growth_bound(3, n_leaves=2, n_classes=2,
    ...                                                 log_test_choices=math.log(2))), 6)
    32.0
    """
    M = _check_count(n_examples, "n_examples")
    L = _check_count(n_leaves, "n_leaves", 1)
    n = _check_count(n_classes, "n_classes", 1)
    log_w = float(log_test_choices)
    if math.isnan(log_w) or log_w < 0.0:
        raise ValueError(f"log_test_choices must be >= 0, got {log_w}")
    log_compositions = float(gammaln(M + L) - gammaln(L) - gammaln(M + 1.0))
    return L * math.log(n) + log_w + log_compositions
