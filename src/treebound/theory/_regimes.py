"""Which numerical route computes each range of a tight Theorem 9 table: decided here only.

The table builder (:mod:`treebound.theory._tables`) splits the sums ``log N_c(m)`` of a node,
``m_start <= m <= m_end``, into the ranges :func:`sum_ranges` returns and computes each by its
route; the cost model (:mod:`treebound.theory._costs`) prices the same ranges. Routes:

* ``DIRECT`` — direct sums (``O(m)`` terms per output and pair of part counts): below
  :data:`FFT_MIN_OUTPUTS` outputs, and wherever the weight ``min(2 ell, C(m, k))`` is a binomial
  for too many ``k`` to subtract (below :func:`first_mixed_m`, or ends wider than
  :data:`MAX_EDGE_TERMS`: many-level categorical features);
* ``SUBTRACTION`` — below ``m = 2 ell``, the constant-weight sums (FFTs) minus the deficits of
  the few ``k`` near both ends whose weight is a binomial (``edge_deficit_sums``), each entry
  summed directly instead where that cancels too much;
* ``FFT`` — from ``m = 2 ell`` on, where the weight is the constant ``2 ell``: prefix sums for a
  single part, tilted FFT convolutions for the rest (pairwise, or in the falling-factorial basis
  for three or more parts: :mod:`treebound.theory._convolutions`).

Tests force a route on small inputs by patching the thresholds (``FFT_MIN_OUTPUTS = 0``: FFTs and
subtraction whatever the length; a huge value: direct sums everywhere, the oracle of the others).
"""

from __future__ import annotations

import functools
import math

__all__ = ["DIRECT", "FFT", "FFT_MIN_OUTPUTS", "MAX_EDGE_TERMS", "SUBTRACTION", "edge_width",
           "first_mixed_m", "sum_ranges"]

DIRECT = "direct"
SUBTRACTION = "subtraction"
FFT = "fft"

#: Below this many outputs in a range, direct summation is used instead of FFTs.
FFT_MIN_OUTPUTS = 256
#: Most ``k`` per end with ``C(m, k) < 2 ell`` that ``edge_deficit_sums`` takes (its buffer).
MAX_EDGE_TERMS = 60


@functools.lru_cache(maxsize=256)
def edge_width(m: int, two_ell: int) -> int:
    """Number of ``k >= 1`` (at one end, ``k < m/2``) with ``C(m, k) < 2 ell``."""
    k = 0
    while 2 * (k + 1) < m and math.comb(m, k + 1) < two_ell:
        k += 1
    return k


@functools.lru_cache(maxsize=64)
def first_mixed_m(two_ell: int) -> int:
    """Smallest ``m`` with ``C(m, floor(m/2)) >= 2 ell``: from there on the weight
    ``min(2 ell, C(m, k))`` is ``2 ell`` in the middle and ``C(m, k)`` only near both ends."""
    m = 1
    while math.comb(m, m // 2) < two_ell:
        m += 1
    return m


def sum_ranges(m_start: int, m_end: int, n_features: int) -> list[tuple[int, int, str, bool]]:
    """The ranges ``(lo, hi, route, binomial)`` that cover ``m_start <= m <= m_end`` in order.

    ``binomial``: the weight is ``min(2 ell, C(m, k))`` (below ``m = 2 ell``), else ``2 ell``.

    Examples
    --------
    >>> sum_ranges(5, 1000, 3)  # 2 ell = 6: one direct sum, then the constant weight
    [(5, 5, 'direct', True), (6, 1000, 'fft', False)]
    >>> sum_ranges(8, 2000, 600)[1:]  # 2 ell = 1200: subtraction from m = 13 on
    [(13, 1199, 'subtraction', True), (1200, 2000, 'fft', False)]
    """
    two_ell = 2 * n_features
    out = []
    m_mid = max(m_start, min(two_ell, m_end + 1))
    if m_mid > m_start:  # the varying weight min(2 ell, C(m, k)) below m = 2 ell
        hi = m_mid - 1
        lo = max(m_start, first_mixed_m(two_ell))
        # The ends are widest at the smallest m (over about 120 levels in one categorical
        # feature, 2 ell > 1e35, they outgrow the kernel's buffer: direct sums then).
        if lo > hi or hi - lo + 1 < FFT_MIN_OUTPUTS or edge_width(lo, two_ell) > MAX_EDGE_TERMS:
            out.append((m_start, hi, DIRECT, True))
        else:
            if lo > m_start:
                out.append((m_start, lo - 1, DIRECT, True))
            out.append((lo, hi, SUBTRACTION, True))
    if m_mid <= m_end:
        short = m_end - m_mid + 1 < FFT_MIN_OUTPUTS
        out.append((m_mid, m_end, DIRECT if short else FFT, False))
    return out
