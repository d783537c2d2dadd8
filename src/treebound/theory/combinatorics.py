"""Exact and log-space combinatorics used by the bounds: Stirling numbers of the second kind,
falling factorials, binomials, the Wedderburn–Etherington numbers and log-sum-exp.

Exact values are Python integers (arbitrary precision; ``math.comb`` and big-int arithmetic,
no sympy). Log-space values are natural logarithms, ``-inf`` for zero.
"""

from __future__ import annotations

import math

import numpy as np

from treebound._kernels.partitioning import log_stirling2_table as _log_stirling2_kernel
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
    """Stirling number of the second kind ``S(n, k)``: partitions of ``n`` items into ``k`` parts.

    ``S(m, c)`` is the number of ``c``-partitions of ``m`` points, the ceiling of the partitioning
    function ``pi_T^c(m)`` in Theorem 9 of Leboeuf et al. (2020) (their ``C(m, c)``). Computed by
    the explicit formula ``S(n, k) = (1/k!) sum_j (-1)^(k-j) C(k, j) j^n`` in exact integer
    arithmetic (``2^(n-1) - 1`` for ``k = 2``).

    Parameters
    ----------
    n : int
        Number of items, ``n >= 0``.
    k : int
        Number of parts, ``k >= 0``.

    Returns
    -------
    int
        ``S(n, k)`` (0 when ``k > n``; ``S(0, 0) = 1``), an exact Python integer.

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
    """Natural log of a non-negative Python integer of any size.

    Parameters
    ----------
    value : int
        ``>= 0``; may exceed the float range (``math.log`` reads big integers exactly).

    Returns
    -------
    float
        ``ln value``, ``-inf`` for 0.

    Examples
    --------
    >>> log_int(0), round(log_int(10**400), 4), round(400 * math.log(10), 4)
    (-inf, 921.034, 921.034)
    """
    if value < 0:
        raise ValueError(f"log of a negative number {value}")
    if value == 0:
        return -math.inf
    return math.log(value)


def log_stirling2(n: int, k: int) -> float:
    """``ln S(n, k)``, the natural log of :func:`stirling2` (``-inf`` when the number is 0).

    Parameters
    ----------
    n : int
        Number of items, ``n >= 0``.
    k : int
        Number of parts, ``k >= 0``.

    Returns
    -------
    float
        ``ln S(n, k)``, exact to double precision (computed from the exact integer).

    Examples
    --------
    >>> round(log_stirling2(40, 2), 6) == round(math.log(2**39 - 1), 6)
    True
    >>> log_stirling2(3, 4)
    -inf
    """
    return log_int(stirling2(n, k))


def log_stirling2_table(max_n: int, max_k: int) -> np.ndarray:
    """Table ``T[k, n] = ln S(n, k)`` for ``0 <= k <= max_k`` and ``0 <= n <= max_n``.

    Built by the recurrence ``S(n, k) = k S(n-1, k) + S(n-1, k-1)`` in log space (all terms are
    positive, so the relative error grows only like ``n`` machine epsilons): the table the
    log-space partitioning bounds read.

    Parameters
    ----------
    max_n : int
        Largest number of items ``n >= 0``.
    max_k : int
        Largest number of parts ``k >= 0``.

    Returns
    -------
    ndarray of float64, shape (max_k + 1, max_n + 1)
        ``-inf`` where ``S(n, k) = 0``.

    Examples
    --------
    >>> table = log_stirling2_table(6, 3)
    >>> table.shape, round(float(np.exp(table[2, 5])), 6)  # S(5, 2) = 15
    ((4, 7), 15.0)
    >>> bool(abs(table[3, 6] - log_stirling2(6, 3)) < 1e-12)
    True
    """
    max_n = _check_int(max_n, "max_n")
    max_k = _check_int(max_k, "max_k")
    _costs.check_table(float(max_n + 1) * (max_k + 1), f"log_stirling2_table({max_n}, {max_k})")
    return _log_stirling2_kernel(max_n, max_k)


def falling_factorial(n: int, a: int) -> int:
    """Falling factorial ``(n)_a = n (n-1) ... (n-a+1)``.

    In Eq. (4) of Leboeuf et al. (2020), ``(n)_a`` counts the ways to give ``a`` parts distinct
    labels among ``n`` classes.

    Parameters
    ----------
    n : int
        Any integer (negative values are allowed: ``(n)_a`` is a polynomial in ``n``).
    a : int
        Number of factors, ``a >= 0``.

    Returns
    -------
    int
        An exact Python integer: 1 when ``a = 0``, 0 when ``a > n >= 0``.

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
    """``ln (n)_a``, the natural log of :func:`falling_factorial`, for ``n >= 0``.

    Parameters
    ----------
    n : int
        ``n >= 0``.
    a : int
        ``a >= 0``.

    Returns
    -------
    float
        ``lgamma(n + 1) - lgamma(n - a + 1)``; ``-inf`` when ``a > n`` (the number is 0).

    Examples
    --------
    >>> round(math.exp(log_falling_factorial(10, 3)), 6)
    720.0
    >>> log_falling_factorial(3, 5)
    -inf
    """
    n = _check_int(n, "n")
    a = _check_int(a, "a")
    if a > n:
        return -math.inf
    return math.lgamma(n + 1) - math.lgamma(n - a + 1)


def log_comb(n: int, k: int) -> float:
    """``ln C(n, k)``, the natural log of the binomial coefficient, via ``lgamma``.

    Parameters
    ----------
    n : int
        ``n >= 0``.
    k : int
        Any integer (outside ``0 <= k <= n`` the coefficient is 0).

    Returns
    -------
    float
        ``ln C(n, k)``; ``-inf`` outside ``0 <= k <= n``.

    Examples
    --------
    >>> round(math.exp(log_comb(10, 3)), 6)
    120.0
    >>> log_comb(10, 11)
    -inf
    """
    n = _check_int(n, "n")
    k = _check_int(k, "k", minimum=None)
    if k < 0 or k > n:
        return -math.inf
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def logsumexp(values, axis=None):
    """``ln(sum(exp(values)))`` computed stably (the largest term is factored out).

    Parameters
    ----------
    values : array-like of float
        Natural logs of non-negative numbers (``-inf`` for 0).
    axis : int, optional
        Axis to sum over; ``None`` (default) sums every entry.

    Returns
    -------
    float or ndarray
        A float when ``axis`` is None, else an array with ``axis`` removed; ``-inf`` for an empty
        or all ``-inf`` input.

    Examples
    --------
    >>> round(logsumexp([math.log(2), math.log(3)]), 12) == round(math.log(5), 12)
    True
    >>> logsumexp([[0.0, -np.inf], [0.0, 0.0]], axis=1).round(6).tolist()
    [0.0, 0.693147]
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
    """Number of ways to merge an ``a``-partition and a ``b``-partition into a ``c``-partition.

    ``C(a, c-b) C(b, c-a) (a+b-c)!`` (Leboeuf et al. 2020, appendix B.2, Eq. 21): the inner
    coefficient of Theorem 9, which combines the parts produced by the two subtrees of a node
    (a part of the left subtree and a part of the right one may end up in the same part).

    Parameters
    ----------
    a : int
        Number of parts of the first partition.
    b : int
        Number of parts of the second partition.
    c : int
        Number of parts of the merged partition.

    Returns
    -------
    int
        The count; zero unless ``a, b <= c <= a + b``.

    Examples
    --------
    >>> partition_merge_count(1, 1, 1), partition_merge_count(1, 1, 2)
    (1, 1)
    >>> partition_merge_count(2, 2, 3)  # C(2, 1) C(2, 1) 1!
    4
    >>> partition_merge_count(2, 2, 5)
    0
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

    Examples
    --------
    >>> numbers = WedderburnEtheringtonNumbers()
    >>> [numbers[n] for n in range(1, 12)]
    [1, 1, 1, 2, 3, 6, 11, 23, 46, 98, 207]
    >>> len(numbers)  # values stored: WE(1) .. WE(11)
    11
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
        """Forget every computed value.

        Returns
        -------
        None

        Examples
        --------
        >>> numbers = WedderburnEtheringtonNumbers()
        >>> numbers[20], len(numbers)
        (293547, 20)
        >>> numbers.clear(); len(numbers)
        1
        """
        self._values = [0, 1]


#: The library's table of Wedderburn–Etherington numbers (explicit, clearable).
WEDDERBURN_ETHERINGTON = WedderburnEtheringtonNumbers()


def wedderburn_etherington(n_leaves: int) -> int:
    """``WE(n_leaves)``: the number of binary tree shapes with ``n_leaves`` leaves up to swaps.

    The Wedderburn-Etherington numbers (OEIS A001190), the count behind the structure prior
    ``p_d`` of Leboeuf et al. (2020), section 6.2 (:func:`~treebound.theory.log_structure_prior`).
    Exact integers, memoized in :data:`WEDDERBURN_ETHERINGTON`.

    Parameters
    ----------
    n_leaves : int
        ``n_leaves >= 1``.

    Returns
    -------
    int
        ``WE(n_leaves)``, an exact Python integer.

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
    """``ln WE(n_leaves)``, fast for any size.

    Exact to double precision below 1,000 leaves (from the exact integers), a log-space recurrence
    beyond (relative error about ``1e-13``); ``log_structure_prior(10_000)`` takes well under a
    second.

    Parameters
    ----------
    n_leaves : int
        ``n_leaves >= 1``.

    Returns
    -------
    float
        ``ln WE(n_leaves)``.

    Examples
    --------
    >>> round(log_wedderburn_etherington(11), 12) == round(math.log(207), 12)
    True
    """
    return _LOG_WEDDERBURN_ETHERINGTON(n_leaves)
