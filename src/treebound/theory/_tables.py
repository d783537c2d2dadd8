"""Per-node builders of the partitioning-function tables (Theorem 9 of Leboeuf et al., 2020).

Internal module: :mod:`treebound.theory.partitioning` walks a structure children-first and calls
one builder per distinct shape. Three families:

* ``log_node_table`` — the tight bound in log space for every ``m <= M`` and ``c <= C``.
  For ``m >= 2 ell`` the weight ``min(2 ell, C(m, k))`` is the constant ``2 ell``
  (``C(m, k) >= m`` for ``1 <= k <= m-1``), so the pairs with ``a = 1`` or ``b = 1`` are prefix
  sums (``pi^1 = 1``) and the pairs with ``a, b >= 2`` are plain convolutions, done by
  exponentially tilted FFTs with an a-posteriori error bound (:mod:`._convolutions`).
  Below ``2 ell`` the weight is ``C(m, k)`` only for the few ``k`` near both ends (once
  ``C(m, m/2) >= 2 ell``): those sums are the constant-weight ones minus the ends' deficits
  (:func:`subtracted_sums`), and direct sums for the smallest ``m``. Which range takes which
  route is decided in :mod:`treebound.theory._regimes`.
* ``exact_node_table`` — the same recursion in Python integers (the oracle; small sizes).
* ``loose_node_values`` — the end-of-section-6.2 bound at one ``m`` from the children's values
  at ``m - L_r`` and ``m - L_l``, exact (in log space: the kernels of :mod:`._loose`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from treebound._kernels.partitioning import (
    constant_weight_sums,
    edge_deficit_sums,
    log_prefix_rows,
    node_sums_direct,
    node_sums_direct_rows,
    subtract_deficits,
)
from treebound.theory._convolutions import convolution_sums
from treebound.theory._regimes import DIRECT, SUBTRACTION, sum_ranges
from treebound.theory.combinatorics import partition_merge_count

LOG2 = math.log(2.0)


def log_merge_coefficients(n_parts_max: int) -> np.ndarray:
    """``out[a, b, c] = log(C(a, c-b) C(b, c-a) (a+b-c)!)`` (``-inf`` when the count is 0)."""
    size = n_parts_max + 1
    out = np.full((size, size, size), -np.inf)
    for c in range(1, size):
        for a in range(1, c + 1):
            for b in range(max(1, c - a), c + 1):
                out[a, b, c] = math.log(partition_merge_count(a, b, c))
    return out


# ---------------------------------------------------------------------------- tight, log space
def log_node_table(n_leaves, left_leaves, right_leaves, same_children, log_left, log_right,
                   n_parts_max, max_m, n_features, log_stirling, log_coef, prefix_sums=None):
    """Log table ``T[c, m]`` (``c <= n_parts_max``, ``m <= max_m``) of Theorem 9's bound.

    ``log_left``/``log_right`` are the children's tables (rows up to ``min(C, L_child)``, columns
    up to ``max_m``). ``prefix_sums``, optional: two callables returning :func:`log_prefix_rows`
    of the left and right tables (a caller's memo; they are computed here otherwise).
    """
    L, C, M = n_leaves, n_parts_max, max_m
    out = np.full((C + 1, M + 1), -np.inf)
    top = min(M, L)
    out[:, : top + 1] = log_stirling[: C + 1, : top + 1]
    if M <= L:
        return out
    out[1, L + 1 :] = 0.0
    if C < 2:
        return out
    sums = log_node_sums(left_leaves, right_leaves, log_left, log_right, C, L + 1, M,
                         n_features, log_coef, prefix_sums)
    if same_children:
        sums -= LOG2
    out[2 : C + 1, L + 1 :] = np.minimum(sums[2:], log_stirling[2 : C + 1, L + 1 : M + 1])
    return out


def log_node_sums(left_leaves, right_leaves, log_left, log_right, n_parts_max, m_start, m_end,
                  n_features, log_coef, prefix_sums=None):
    """Unclipped, unhalved ``log N_c(m)`` of Theorem 9 for ``m_start <= m <= m_end``, each range
    by the route :func:`~treebound.theory._regimes.sum_ranges` gives it (``prefix_sums``: see
    :func:`log_node_table`)."""
    C = n_parts_max
    log_two_ell = math.log(2 * n_features)
    out = np.full((C + 1, m_end - m_start + 1), -np.inf)
    for lo, hi, route, binomial in sum_ranges(m_start, m_end, n_features):
        block = out[:, lo - m_start : hi - m_start + 1]
        if route == DIRECT:
            block[:] = node_sums_direct(log_left, log_right, left_leaves, right_leaves,
                                        log_two_ell, lo, hi, binomial, log_coef, C)
        elif route == SUBTRACTION:
            block[:] = subtracted_sums(left_leaves, right_leaves, log_left, log_right, C, lo,
                                       hi, n_features, log_coef, prefix_sums)
        else:
            # row 1 is not read (pi^1 = 1): only subtracted_sums needs it for its checks
            block[:] = constant_weight_sums_fft(left_leaves, right_leaves, log_left, log_right,
                                                C, lo, hi, n_features, log_coef, prefix_sums,
                                                first_row=2)
    return out


def constant_weight_sums_fft(left_leaves, right_leaves, log_left, log_right, n_parts_max,
                             m_start, m_end, n_features, log_coef, prefix_sums=None,
                             first_row=1):
    """``log`` of Theorem 9's sums with every weight ``min(2 ell, C(m, k))`` replaced by
    ``2 ell`` (the true sums from ``m = 2 ell`` on), for ``m_start <= m <= m_end``.

    The pairs with ``a = 1`` or ``b = 1`` are prefix sums (``pi^1 = 1``), those with
    ``a, b >= 2`` plain convolutions (tilted FFTs: :func:`convolution_sums`). Rows below
    ``first_row`` are left ``-inf``.
    """
    C = n_parts_max
    log_two_ell = math.log(2 * n_features)
    n_out = m_end - m_start + 1
    Cl = log_left.shape[0] - 1
    Cr = log_right.shape[0] - 1
    if Cl >= 2 and Cr >= 2:
        conv = convolution_sums(left_leaves, right_leaves, log_left, log_right, C, m_start,
                                m_end, log_coef)
    else:
        conv = np.full((C + 1, n_out), -np.inf)
    if prefix_sums is None:
        prefix_left = log_prefix_rows(log_left, left_leaves)
        prefix_right = log_prefix_rows(log_right, right_leaves)
    else:
        prefix_left, prefix_right = prefix_sums[0](), prefix_sums[1]()
    return constant_weight_sums(prefix_left, prefix_right, left_leaves, right_leaves,
                                log_two_ell, m_start, m_end, log_coef, conv, first_row)


#: A varying-weight sum obtained by subtraction is kept only when the constant-weight sum it
#: comes from is at most this many times larger (else it is summed directly; see
#: :func:`subtracted_sums`).
EDGE_CANCELLATION_LIMIT = 64.0


def subtracted_sums(left_leaves, right_leaves, log_left, log_right, n_parts_max, m_start, m_end,
                    n_features, log_coef, prefix_sums=None):
    """Theorem 9's sums ``log N_c(m)`` below ``m = 2 ell`` (weight ``min(2 ell, C(m, k))``), from
    :func:`~treebound.theory._regimes.first_mixed_m` on.

    With many features (many-level categorical ones make ``ell`` thousands) this range is long
    and direct summation is quadratic in ``m``. There ``C(m, k) < 2 ell`` only for the few ``k``
    near ``0`` and ``m``, so

        ``N_c(m) = 2 ell F_c(m) - D_c(m)``,

    with ``F`` the constant-weight sums (:func:`constant_weight_sums_fft`) and ``D`` the deficits
    ``(2 ell - C(m, k))`` of those few terms (:func:`edge_deficit_sums`). Both parts are sums of
    positive terms with small relative errors; an entry is kept when ``2 ell F`` is at most
    :data:`EDGE_CANCELLATION_LIMIT` times ``N`` (its relative error is then at most that many
    times theirs), and summed directly otherwise.
    """
    C = n_parts_max
    two_ell = 2 * n_features
    log_two_ell = math.log(two_ell)
    full = constant_weight_sums_fft(left_leaves, right_leaves, log_left, log_right, C, m_start,
                                    m_end, n_features, log_coef, prefix_sums)
    deficit = edge_deficit_sums(log_left, log_right, left_leaves, right_leaves, float(two_ell),
                                m_start, m_end, log_coef, C)
    block, kept = subtract_deficits(full, deficit, 1.0 - 1.0 / EDGE_CANCELLATION_LIMIT)
    for col in np.flatnonzero(~kept.all(axis=0)):
        rows = ~kept[:, col]
        direct = node_sums_direct_rows(log_left, log_right, left_leaves, right_leaves,
                                       log_two_ell, m_start + col, m_start + col, True, log_coef,
                                       rows, -math.inf)
        block[rows, col] = direct[rows, 0]
    return block


# ---------------------------------------------------------------------------- tight, exact
def exact_node_table(n_leaves, left_leaves, right_leaves, same_children, left, right,
                     n_parts_max, max_m, n_features, stirling_rows):
    """Exact integer version of :func:`log_node_table`: ``rows[c][m]`` for ``c <= C``, ``m <= M``.

    ``left``/``right`` are the children's rows; ``stirling_rows[c][m] = S(m, c)``.
    """
    L, C, M = n_leaves, n_parts_max, max_m
    two_ell = 2 * n_features
    rows = [[stirling_rows[c][m] if m <= L else 0 for m in range(M + 1)] for c in range(C + 1)]
    for m in range(L + 1, M + 1):
        rows[1][m] = 1
    Cl, Cr = len(left) - 1, len(right) - 1
    coef = {(a, b, c): partition_merge_count(a, b, c)
            for c in range(2, C + 1) for a in range(1, c + 1) for b in range(max(1, c - a), c + 1)}
    # Prefix sums of the children's rows (for the pairs with a = 1 or b = 1 once w = 2 ell).
    prefix_left = [list(itertools.accumulate(row[k] if k >= left_leaves else 0 for k in range(M + 1)))
                   for row in left]
    prefix_right = [list(itertools.accumulate(row[j] if j >= right_leaves else 0 for j in range(M + 1)))
                    for row in right]
    for m in range(L + 1, M + 1):
        k_lo, k_hi = left_leaves, m - right_leaves
        constant = m >= two_ell  # then min(2 ell, C(m, k)) = 2 ell for every 1 <= k <= m - 1
        weights = {k: (two_ell if constant else min(two_ell, math.comb(m, k)))
                   for k in range(k_lo, k_hi + 1)}
        pair = {}
        for a in range(1, min(C, Cl) + 1):
            fa = left[a]
            for b in range(1, min(C, Cr) + 1):
                gb = right[b]
                if constant and a == 1:
                    pair[a, b] = two_ell * prefix_right[b][m - k_lo]  # sum_{j=L_r}^{m-L_l} g_b(j)
                elif constant and b == 1:
                    pair[a, b] = two_ell * prefix_left[a][k_hi]
                else:
                    pair[a, b] = sum(w * fa[k] * gb[m - k] for k, w in weights.items())
        for c in range(2, C + 1):
            total = sum(coef[a, b, c] * pair[a, b]
                        for a in range(1, min(c, Cl) + 1)
                        for b in range(max(1, c - a), min(c, Cr) + 1))
            if same_children:
                # Exact: terms k and m-k pair up, and the middle weight C(2j, j) or 2 ell is even.
                assert total % 2 == 0
                total //= 2
            rows[c][m] = min(total, stirling_rows[c][m])
    return rows


# ---------------------------------------------------------------------------- loose
def loose_node_values(n_leaves, same_children, n_examples, left_values, right_values,
                      n_parts_max, n_features, stirling_values, paper):
    """The loose bound (Leboeuf et al. 2020, end of section 6.2) at one ``m`` for ``c <= C``, in
    exact integers (in log space: :mod:`treebound.theory._loose`, the kernels).

    ``left_values[a] = pi_l^a(m - L_r)``, ``right_values[b] = pi_r^b(m - L_l)``;
    ``stirling_values[c] = S(m, c)``. The number of terms of the sum over ``k`` is
    ``m - L_T + 1``; ``paper=True`` multiplies by the printed ``m - L_T`` instead (not a bound).
    """
    m, L, C = n_examples, n_leaves, n_parts_max
    count = m - L if paper else m - L + 1
    Cl, Cr = len(left_values) - 1, len(right_values) - 1
    out = [None] * (C + 1)
    for c in range(2, C + 1):
        inner = sum(partition_merge_count(a, b, c) * left_values[a] * right_values[b]
                    for a in range(1, min(c, Cl) + 1)
                    for b in range(max(1, c - a), min(c, Cr) + 1))
        value = count * 2 * n_features * inner
        if same_children:
            value //= 2  # 2 ell is even
        out[c] = min(value, stirling_values[c])
    return out
