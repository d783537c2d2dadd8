"""Exact and log-space combinatorics used by the bounds: Stirling numbers of the second kind,
falling factorials, binomials, the Wedderburn–Etherington numbers and log-sum-exp.

Exact values are Python integers (arbitrary precision; ``math.comb`` and big-int arithmetic,
no sympy). Log-space values are natural logarithms, ``-inf`` for zero.
"""

from __future__ import annotations

import math

import numpy as np

from treebound._validation import check_integer as _check_int
from treebound.theory import _costs

__all__ = [
    "WEDDERBURN_ETHERINGTON",
    "WedderburnEtheringtonNumbers",
    "falling_factorial",
    "log_comb",
    "log_falling_factorial",
    "log_int",
    "log_stirling2",
    "log_stirling2_table",
    "log_wedderburn_etherington",
    "logsumexp",
    "partition_merge_count",
    "stirling2",
    "wedderburn_etherington",
]




def stirling2(n: int, k: int) -> int:
    """Stirling number of the second kind S(n, k): partitions of n items into k non-empty parts.

    Uses the explicit formula ``S(n, k) = (1/k!) sum_j (-1)^(k-j) C(k, j) j^n`` in exact integer
    arithmetic.

    Examples
    --------
    >>> stirling2(5, 2), stirling2(10, 3), stirling2(0, 0), stirling2(3, 0)
    (15, 9330, 1, 0)
    """
    n = _check_int(n, "n")
    k = _check_int(k, "k")
    if k > n:
        return 0
    if k == 0:
        return 1 if n == 0 else 0
    if k == 1 or k == n:
        return 1
    _costs.check_big_integer(n * math.log2(k), k + 1, f"stirling2({n}, {k})")
    if k == 2:
        return 2 ** (n - 1) - 1
    total = 0
    for j in range(k + 1):
        term = math.comb(k, j) * j**n
        total += -term if (k - j) % 2 else term
    return total // math.factorial(k)


def log_int(value: int) -> float:
    """Natural log of a non-negative Python integer of any size (``-inf`` for 0)."""
    if value < 0:
        raise ValueError(f"log of a negative number {value}")
    if value == 0:
        return -math.inf
    return math.log(value)


def log_stirling2(n: int, k: int) -> float:
    """``log S(n, k)`` (``-inf`` when the number is 0), exact to double precision.

    Examples
    --------
    >>> round(log_stirling2(40, 2), 6) == round(math.log(2**39 - 1), 6)
    True
    """
    return log_int(stirling2(n, k))


def log_stirling2_table(max_n: int, max_k: int) -> np.ndarray:
    """Array ``T[k, n] = log S(n, k)`` for ``0 <= k <= max_k``, ``0 <= n <= max_n``.

    Built by the recurrence ``S(n, k) = k S(n-1, k) + S(n-1, k-1)`` in log space (all terms are
    positive, so the relative error grows only like ``n`` machine epsilons).
    """
    from treebound._kernels.partitioning import log_stirling2_table as kernel

    max_n = _check_int(max_n, "max_n")
    max_k = _check_int(max_k, "max_k")
    _costs.check_table(float(max_n + 1) * (max_k + 1), f"log_stirling2_table({max_n}, {max_k})")
    return kernel(max_n, max_k)


def falling_factorial(n: int, a: int) -> int:
    """``(n)_a = n (n-1) ... (n-a+1)`` (1 when ``a = 0``, 0 when ``a > n >= 0``).

    Examples
    --------
    >>> falling_factorial(10, 3), falling_factorial(3, 5)
    (720, 0)
    """
    n = _check_int(n, "n", minimum=None)
    a = _check_int(a, "a")
    if 0 <= n < a:
        return 0
    _costs.check_big_integer(a * math.log2(max(abs(n), 2)), a, f"falling_factorial({n}, {a})",
                             by_small=abs(n) < 2**63)
    out = 1
    for i in range(a):
        out *= n - i
    return out


def log_falling_factorial(n: int, a: int) -> float:
    """``log (n)_a`` for ``n >= 0`` (``-inf`` when ``a > n``)."""
    n = _check_int(n, "n")
    a = _check_int(a, "a")
    if a > n:
        return -math.inf
    return math.lgamma(n + 1) - math.lgamma(n - a + 1)


def log_comb(n: int, k: int) -> float:
    """``log C(n, k)`` via ``lgamma`` (``-inf`` outside ``0 <= k <= n``)."""
    n = _check_int(n, "n")
    k = _check_int(k, "k", minimum=None)
    if k < 0 or k > n:
        return -math.inf
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def logsumexp(values, axis=None):
    """``log(sum(exp(values)))`` computed stably; ``-inf`` for an empty or all ``-inf`` input.

    Examples
    --------
    >>> round(logsumexp([math.log(2), math.log(3)]), 12) == round(math.log(5), 12)
    True
    """
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 0:
        return -math.inf if axis is None else np.full(np.delete(arr.shape, axis), -np.inf)
    top = np.max(arr, axis=axis, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(arr - safe), axis=axis, keepdims=True)) + safe
    out = np.where(np.isneginf(top), -np.inf, out)
    if axis is None:
        return float(out.reshape(()))
    return np.squeeze(out, axis=axis)


def partition_merge_count(a: int, b: int, c: int) -> int:
    """Number of ways to merge an a-partition and a b-partition into a c-partition.

    ``C(a, c-b) C(b, c-a) (a+b-c)!`` (Leboeuf et al. 2020, appendix B.2, Eq. 21), zero unless
    ``a, b <= c <= a + b``.
    """
    if a > c or b > c or a + b < c or a < 0 or b < 0:
        return 0
    _costs.check_big_integer(c * math.log2(max(c, 2)), math.log2(max(c, 2)) + 1,
                             f"partition_merge_count({a}, {b}, {c})")
    return math.comb(a, c - b) * math.comb(b, c - a) * math.factorial(a + b - c)


class WedderburnEtheringtonNumbers:
    """The Wedderburn–Etherington numbers WE(L): unlabelled binary tree shapes with L leaves.

    ``WE(1..11) = 1, 1, 1, 2, 3, 6, 11, 23, 46, 98, 207`` (OEIS A001190 shifted so that WE(1)
    counts the single leaf). Values are exact integers computed by the recurrence
    ``WE(n) = sum_{i < n/2} WE(i) WE(n-i) + [n even] WE(n/2) (WE(n/2) + 1) / 2`` and kept in this
    object so that repeated look-ups (the structure prior of every pruning candidate) are O(1).
    The module-level instance :data:`WEDDERBURN_ETHERINGTON` is the one the library uses; call
    its :meth:`clear` to free memory.
    """

    def __init__(self):
        self._values = [0, 1]

    def __getitem__(self, n_leaves: int) -> int:
        n_leaves = _check_int(n_leaves, "n_leaves", minimum=1)
        values = self._values
        if len(values) <= n_leaves:
            _costs.check_exact_we(n_leaves, len(values),
                                  f"the Wedderburn-Etherington number WE({n_leaves})")
        while len(values) <= n_leaves:
            n = len(values)
            total = sum(values[i] * values[n - i] for i in range(1, (n + 1) // 2))
            if n % 2 == 0:
                half = values[n // 2]
                total += half * (half + 1) // 2
            values.append(total)
        return values[n_leaves]

    def __len__(self) -> int:
        return len(self._values) - 1

    def clear(self) -> None:
        """Forget every computed value."""
        self._values = [0, 1]


#: The library's table of Wedderburn–Etherington numbers (explicit, clearable).
WEDDERBURN_ETHERINGTON = WedderburnEtheringtonNumbers()


def wedderburn_etherington(n_leaves: int) -> int:
    """WE(n_leaves), the number of binary tree shapes with ``n_leaves`` leaves up to swaps.

    Examples
    --------
    >>> [wedderburn_etherington(n) for n in range(1, 12)]
    [1, 1, 1, 2, 3, 6, 11, 23, 46, 98, 207]
    """
    return WEDDERBURN_ETHERINGTON[n_leaves]


#: Exact values are used up to this many leaves; beyond, a log-space recurrence (exact big
#: integers cost O(L^2) multiplications of O(L)-digit numbers: seconds at L = 3,000).
_EXACT_WE_LIMIT = 1000


class _LogWedderburnEtherington:
    """``ln WE(L)`` for any ``L``: exact below :data:`_EXACT_WE_LIMIT`, then the same
    recurrence as :class:`WedderburnEtheringtonNumbers` evaluated in log space (relative error
    about ``1e-13``)."""

    def __init__(self):
        self._values = np.array([-np.inf, 0.0])

    def __call__(self, n_leaves: int) -> float:
        n_leaves = _check_int(n_leaves, "n_leaves", minimum=1)
        if n_leaves <= _EXACT_WE_LIMIT:
            return math.log(wedderburn_etherington(n_leaves))
        values = self._values
        if values.shape[0] <= _EXACT_WE_LIMIT:
            values = np.array([-np.inf] + [math.log(wedderburn_etherington(n))
                                           for n in range(1, _EXACT_WE_LIMIT + 1)])
        if values.shape[0] <= n_leaves:
            _costs.check_log_we(n_leaves, values.shape[0],
                                f"ln WE({n_leaves}), the number of tree shapes")
            grown = np.full(max(n_leaves + 1, 2 * values.shape[0]), -np.inf)
            grown[: values.shape[0]] = values
            for n in range(values.shape[0], grown.shape[0]):
                i = np.arange(1, (n + 1) // 2)
                terms = grown[i] + grown[n - i]
                if n % 2 == 0:
                    half = grown[n // 2]
                    # WE(n/2) (WE(n/2) + 1) / 2, in logs
                    terms = np.append(terms, half + np.logaddexp(half, 0.0) - math.log(2.0))
                grown[n] = logsumexp(terms)
            values = grown
        self._values = values
        return float(values[n_leaves])


_LOG_WEDDERBURN_ETHERINGTON = _LogWedderburnEtherington()


def log_wedderburn_etherington(n_leaves: int) -> float:
    """``ln WE(n_leaves)``, fast for any size (exact to double precision below 1,000 leaves, a
    log-space recurrence beyond; ``log_structure_prior(10_000)`` takes well under a second).

    Examples
    --------
    >>> round(log_wedderburn_etherington(11), 12) == round(math.log(207), 12)
    True
    """
    return _LOG_WEDDERBURN_ETHERINGTON(n_leaves)
