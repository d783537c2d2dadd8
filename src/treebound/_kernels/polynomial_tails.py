"""numba kernels of Theorem 9's tables beyond the point where they are polynomials in ``m``.

From an anchor ``K`` on (weights ``2 ell``, no Stirling clip, the children's values polynomial
themselves), every row of a shape's table is a polynomial of degree at most ``L - 1`` in ``m``;
:mod:`treebound.theory._tails` derives it. Here it is held by its coefficients in the basis
``C(m - K, v)``, all non-negative, as logs (``coef[c, v]``, ``-inf`` for zero). Every sum below
adds non-negative terms, so nothing cancels. Plain arrays in and out, like
:mod:`treebound._kernels.partitioning`.
"""

from __future__ import annotations

import math

import numpy as np

from treebound._config import JIT_OPTIONS, njit
from treebound._kernels.partitioning import NEG_INF, log_add


@njit(**JIT_OPTIONS)
def _log_binomials(s, t_max, out):
    """``out[t] = log C(s, t)`` for ``t = 0 .. t_max`` (``-inf`` above ``s``), as a running sum
    of logs: its error grows with ``t`` only, not with the size of ``s`` (``lgamma`` differences
    would lose about ``eps log(s!)``)."""
    out[0] = 0.0
    for t in range(1, t_max + 1):
        if t > s:
            out[t] = NEG_INF
        else:
            out[t] = out[t - 1] + math.log(s - t + 1.0) - math.log(float(t))


@njit(**JIT_OPTIONS)
def shift_tail(coef, shift):
    """Coefficients in ``C(x, v)`` of the polynomials whose coefficients in ``C(x + shift, u)`` are
    ``coef`` (``shift >= 0``): Vandermonde, ``C(x + s, u) = sum_v C(s, u - v) C(x, v)``."""
    n_rows, width = coef.shape
    out = np.full((n_rows, width), NEG_INF)
    binom = np.empty(width)
    _log_binomials(shift, width - 1, binom)
    for c in range(n_rows):
        for v in range(width):
            acc = NEG_INF
            for u in range(v, width):
                if coef[c, u] != NEG_INF and binom[u - v] != NEG_INF:
                    acc = log_add(acc, coef[c, u] + binom[u - v])
            out[c, v] = acc
    return out


@njit(**JIT_OPTIONS)
def _log_sum_of_sums(x, y):
    """``log sum_i exp(x[i] + y[i])`` over ``x``'s length in two passes (the largest term,
    then one ``exp`` per term); ``-inf`` when every term is."""
    top = NEG_INF
    for i in range(x.shape[0]):
        v = x[i] + y[i]
        if v > top:
            top = v
    if top == NEG_INF:
        return NEG_INF
    acc = 0.0
    for i in range(x.shape[0]):
        v = x[i] + y[i]
        if v != NEG_INF:
            acc += math.exp(v - top)
    return top + math.log(acc)


@njit(**JIT_OPTIONS)
def _edge_weights(low, first, last, shift_base, degree, n_rows):
    """``W[a, t] = log sum_{k=first}^{last} pi^a(k) C(shift_base - k, t)``, ``t <= degree``
    (``low[a, k] = log pi^a(k)``); the rows' binomials computed once per ``k``."""
    n_k = last - first + 1
    out = np.full((n_rows + 1, degree + 1), NEG_INF)
    if n_k <= 0:
        return out
    binom = np.empty((n_k, degree + 1))
    for i in range(n_k):
        _log_binomials(shift_base - (first + i), degree, binom[i])
    for a in range(1, n_rows + 1):
        for t in range(degree + 1):
            out[a, t] = _log_sum_of_sums(low[a, first : last + 1], binom[:, t])
    return out


@njit(**JIT_OPTIONS)
def tail_node_sums(low_left, low_right, tail_left, tail_right, left_leaves, right_leaves,
                   anchor_left, anchor_right, anchor, log_coef, n_parts_max):
    """Coefficients, in ``C(m - anchor, v)``, of ``N_c(m) / (2 ell)`` of Theorem 9 for ``m >=
    anchor`` (``anchor >= anchor_left + anchor_right``, every weight ``2 ell``).

    A child's ``tail[a, i]`` are its row ``a``'s coefficients in ``C(k - anchor_child, i)``,
    valid from its anchor on; ``low[a, k]`` its table below its anchor. The sum over ``k`` in
    ``[L_l, m - L_r]`` splits in three: ``k < anchor_left`` (the left child's table times the
    right child's polynomial at ``m - k``), ``k > m - anchor_right`` (the mirror image), and the
    middle, where both are polynomials and ``sum_{k=0}^{n} C(k, i) C(n - k, j) = C(n + 1, i + j
    + 1)``. Each part's binomials are shifted to ``C(m - anchor, v)`` by non-negative shifts.
    Returns ``(n_parts_max + 1, D + 1)`` with ``D = deg_l + deg_r + 1``; rows 0, 1 ``-inf``.
    """
    C = n_parts_max
    n_a = min(C, tail_left.shape[0] - 1)
    n_b = min(C, tail_right.shape[0] - 1)
    deg_l = tail_left.shape[1] - 1
    deg_r = tail_right.shape[1] - 1
    D = deg_l + deg_r + 1
    # middle part, in C(m - anchor_left - anchor_right + 1, u)
    middle = np.full((C + 1, D + 1), NEG_INF)
    conv = np.empty(D + 1)
    for a in range(1, n_a + 1):
        for b in range(1, n_b + 1):
            conv[:] = NEG_INF
            for i in range(deg_l + 1):
                if tail_left[a, i] == NEG_INF:
                    continue
                for j in range(deg_r + 1):
                    if tail_right[b, j] != NEG_INF:
                        conv[i + j + 1] = log_add(conv[i + j + 1],
                                                   tail_left[a, i] + tail_right[b, j])
            for c in range(max(a, b, 2), min(C, a + b) + 1):
                coef = log_coef[a, b, c]
                if coef == NEG_INF:
                    continue
                for u in range(1, D + 1):
                    if conv[u] != NEG_INF:
                        middle[c, u] = log_add(middle[c, u], coef + conv[u])
    out = shift_tail(middle, anchor - anchor_left - anchor_right + 1)
    # k < anchor_left: pi_l^a(k) times the right polynomial at m - k = (m - anchor) + s_k
    w_left = _edge_weights(low_left, left_leaves, anchor_left - 1, anchor - anchor_right, deg_r,
                           n_a)
    # k > m - anchor_right, j = m - k < anchor_right: the mirror image
    w_right = _edge_weights(low_right, right_leaves, anchor_right - 1, anchor - anchor_left,
                            deg_l, n_b)
    edge = np.empty(D + 1)
    for a in range(1, n_a + 1):
        for b in range(1, n_b + 1):
            edge[:] = NEG_INF
            for v in range(deg_r + 1):
                for j in range(v, deg_r + 1):
                    x = tail_right[b, j] + w_left[a, j - v]
                    if x != NEG_INF:
                        edge[v] = log_add(edge[v], x)
            for v in range(deg_l + 1):
                for i in range(v, deg_l + 1):
                    x = tail_left[a, i] + w_right[b, i - v]
                    if x != NEG_INF:
                        edge[v] = log_add(edge[v], x)
            for c in range(max(a, b, 2), min(C, a + b) + 1):
                coef = log_coef[a, b, c]
                if coef == NEG_INF:
                    continue
                for v in range(D + 1):
                    if edge[v] != NEG_INF:
                        out[c, v] = log_add(out[c, v], coef + edge[v])
    return out


@njit(**JIT_OPTIONS)
def tail_log_values_at(coef, anchor, points):
    """``log sum_v exp(coef[c, v]) C(m - anchor, v)`` at each ``m`` of ``points`` (``>= anchor``),
    shape ``(rows, len(points))``."""
    n_rows, width = coef.shape
    out = np.full((n_rows, points.shape[0]), NEG_INF)
    binom = np.empty(width)
    for i in range(points.shape[0]):
        _log_binomials(points[i] - anchor, width - 1, binom)
        for c in range(n_rows):
            out[c, i] = _log_sum_of_sums(coef[c], binom)
    return out


@njit(**JIT_OPTIONS)
def tail_log_values(coef, anchor, m_lo, m_hi):
    """:func:`tail_log_values_at` for ``m_lo <= m <= m_hi``."""
    return tail_log_values_at(coef, anchor, np.arange(m_lo, m_hi + 1))


@njit(**JIT_OPTIONS)
def _dot(x, y, lo, hi, offset):
    """``sum_{k=lo}^{hi} x[k] y[k + offset]`` in four interleaved partial sums (a fixed order,
    so the same bits on every machine, without the serial dependence of one sum)."""
    s0 = s1 = s2 = s3 = 0.0
    k = lo
    while k + 3 <= hi:
        s0 += x[k] * y[k + offset]
        s1 += x[k + 1] * y[k + 1 + offset]
        s2 += x[k + 2] * y[k + 2 + offset]
        s3 += x[k + 3] * y[k + 3 + offset]
        k += 4
    while k <= hi:
        s0 += x[k] * y[k + offset]
        k += 1
    return (s0 + s1) + (s2 + s3)


@njit(**JIT_OPTIONS)
def _prefix_rows(values, first, n_rows, width):
    """``out[r, x] = sum_{k=first}^{x} values[r, k]`` for rows ``1 .. n_rows``, ``x < width``."""
    out = np.zeros((n_rows + 1, width + 1))
    top = min(width, values.shape[1])
    for r in range(1, n_rows + 1):
        acc = 0.0
        for k in range(first, top):
            acc += values[r, k]
            out[r, k] = acc
    return out


@njit(**JIT_OPTIONS)
def low_node_table(left, right, n_leaves, left_leaves, right_leaves, same_children, two_ell,
                   coef, log_stirling, width):
    """A node's Theorem 9 table ``log pi^c(m)``, ``m <= width``, by direct sums in linear space.

    ``left[a, k]``/``right[b, j]``: the children's values ``pi`` themselves (not logs), for
    ``k, j < width``; ``coef[a, b, c]`` the merge counts. The same recursion as the tables route
    (``S(m, c)`` up to ``L``, then ``min(N_c(m) 2^{-[l=r]}, S(m, c))`` with the weights
    ``min(2 ell, C(m, k))``), for the short ranges below a tail's start: without a log and an
    ``exp`` per term, several times faster. The caller checks that no sum can overflow; every
    term is non-negative, so nothing cancels.
    """
    C = log_stirling.shape[0] - 1
    n_a = min(C, left.shape[0] - 1)
    n_b = min(C, right.shape[0] - 1)
    out = np.full((C + 1, width + 1), NEG_INF)
    for m in range(min(width, n_leaves) + 1):
        for c in range(C + 1):
            out[c, m] = log_stirling[c, m]
    if width <= n_leaves:
        return out
    weights = np.empty(width + 1)
    scaled = np.empty((n_a + 1, width + 1))
    backward = np.zeros((n_b + 1, width + 1))
    for b in range(1, n_b + 1):
        for j in range(min(width, right.shape[1] - 1) + 1):
            backward[b, width - j] = right[b, j]
    # Row 1 is pi^1 = 1 from one point on: once every weight is 2 ell (m >= 2 ell), the pairs
    # (1, b) and (a, 1) are 2 ell times prefix sums of the other child's row, from its leaves on.
    prefix_left = _prefix_rows(left, left_leaves, n_a, width)
    prefix_right = _prefix_rows(right, right_leaves, n_b, width)
    pairs = np.zeros((n_a + 1, n_b + 1))
    halve = 0.5 if same_children else 1.0
    for m in range(n_leaves + 1, width + 1):
        out[1, m] = 0.0
        k_lo, k_hi = left_leaves, m - right_leaves
        # right[b, m - k] = backward[b, width - m + k]: both rows read forward along k
        start = width - m
        if m >= two_ell:  # C(m, k) >= m >= 2 ell for 1 <= k <= m - 1
            pairs[1, 1] = two_ell * (k_hi - k_lo + 1)
            for b in range(2, n_b + 1):
                pairs[1, b] = two_ell * prefix_right[b, m - left_leaves]
            for a in range(2, n_a + 1):
                pairs[a, 1] = two_ell * prefix_left[a, m - right_leaves]
                for b in range(2, n_b + 1):
                    pairs[a, b] = two_ell * _dot(left[a], backward[b], k_lo, k_hi, start)
        else:
            binom = 1.0  # C(m, k) for k <= m / 2, no longer updated once it reaches 2 ell
            for k in range(1, m // 2 + 1):
                if binom < two_ell:
                    binom = binom * (m - k + 1) / k
                weights[k] = binom if binom < two_ell else two_ell
            for k in range(m // 2 + 1, k_hi + 1):
                weights[k] = weights[m - k]
            for a in range(1, n_a + 1):
                for k in range(k_lo, k_hi + 1):
                    scaled[a, k] = weights[k] * left[a, k]
            for a in range(1, n_a + 1):
                for b in range(1, n_b + 1):
                    pairs[a, b] = _dot(scaled[a], backward[b], k_lo, k_hi, start)
        for c in range(2, C + 1):
            total = 0.0
            for a in range(1, min(c, n_a) + 1):
                for b in range(max(1, c - a), min(c, n_b) + 1):
                    if coef[a, b, c] > 0.0:
                        total += coef[a, b, c] * pairs[a, b]
            if total > 0.0:
                value = math.log(total * halve)
                out[c, m] = value if value < log_stirling[c, m] else log_stirling[c, m]
            else:
                out[c, m] = NEG_INF
    return out
