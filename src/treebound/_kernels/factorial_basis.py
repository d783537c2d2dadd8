"""numba kernels of Theorem 9's sums in the falling-factorial basis.

The merge counts of two partitions are those of falling factorials, ``(n)_a (n)_b = sum_c
coef(a, b, c) (n)_c``, so with ``f(n, k) = sum_a (n)_a pi^a(k)`` a node's sums ``F(n, m) =
sum_c (n)_c N_c(m)`` combine its children row by row instead of pair by pair of rows; the rows
``N_c`` are then solved back from ``F`` (a triangular system) with an error bound. Plain arrays
only, like :mod:`treebound._kernels.partitioning`, whose log-space helpers these use.
"""

from __future__ import annotations

import math

import numpy as np

from treebound._config import JIT_OPTIONS, njit
from treebound._kernels.partitioning import (
    NEG_INF,
    combine_pairs,
    finite_spans,
    log_add,
    node_sums_direct_rows,
    pair_sums_at,
)


@njit(**JIT_OPTIONS)
def falling_factorial_rows(log_table, n_rows_max, n_cols):
    """``out[n, k] = log sum_{a=1}^{n} (n)_a exp(log_table[a, k])`` for ``1 <= n <= n_rows_max``
    and ``k < n_cols`` (``(n)_a = n! / (n - a)!``): a table in the falling-factorial basis.

    Per column the terms are scaled by the column's largest entry (one ``exp`` per entry); a sum
    that this underflows (rows ``a <= n`` all far below a higher row) is summed in log space.
    """
    n_a = log_table.shape[0]
    top_row = min(n_rows_max, n_a - 1)
    out = np.full((n_rows_max + 1, n_cols), NEG_INF)
    falling = np.zeros((n_rows_max + 1, n_rows_max + 1))
    log_falling = np.zeros((n_rows_max + 1, n_rows_max + 1))
    for n in range(1, n_rows_max + 1):
        for a in range(1, n + 1):
            log_falling[n, a] = math.lgamma(n + 1.0) - math.lgamma(n - a + 1.0)
            falling[n, a] = math.exp(log_falling[n, a])
    scaled = np.zeros(n_a)
    for k in range(n_cols):
        top = NEG_INF
        for a in range(1, top_row + 1):
            if log_table[a, k] > top:
                top = log_table[a, k]
        if top == NEG_INF:
            continue
        for a in range(1, top_row + 1):
            scaled[a] = math.exp(log_table[a, k] - top)
        for n in range(1, n_rows_max + 1):
            acc = 0.0
            finite = False
            for a in range(1, min(n, top_row) + 1):
                acc += falling[n, a] * scaled[a]
                finite = finite or log_table[a, k] != NEG_INF
            if acc > 1e-280:
                out[n, k] = top + math.log(acc)
            elif finite:
                total = NEG_INF
                for a in range(1, min(n, top_row) + 1):
                    if log_table[a, k] != NEG_INF:
                        total = log_add(total, log_falling[n, a] + log_table[a, k])
                out[n, k] = total
    return out


@njit(**JIT_OPTIONS)
def solve_falling_factorial(log_basis, basis_error, tolerance):
    """Rows ``N_c`` (``c >= 2``) from ``F(n) = sum_{c=2}^{n} (n)_c N_c`` given in ``log_basis``
    (each entry with a relative error at most ``basis_error``), by ``N_c = (F(c) - sum_{a<c}
    (c)_a N_a) / c!``, with an a-posteriori bound on each entry's relative error.

    Returns ``(out, bad)``: ``out[c, j] = log N_c`` where its error bound is at most
    ``tolerance``; elsewhere ``bad`` is true (with every row above it in that column, since they
    are solved from it) and ``out`` is ``-inf``. Rows 0 and 1 are ``-inf`` and not bad. Every
    term ``(c)_a N_a`` is at most ``F(c)``, so the sums are taken relative to ``F(c)`` (no
    overflow; what underflows is below ``1e-308 F(c)``).
    """
    n_rows, n_cols = log_basis.shape
    out = np.full((n_rows, n_cols), NEG_INF)
    bad = np.zeros((n_rows, n_cols), dtype=np.bool_)
    log_ff = np.full((n_rows, n_rows), NEG_INF)
    for n in range(n_rows):
        for a in range(n + 1):
            log_ff[n, a] = math.lgamma(n + 1.0) - math.lgamma(n - a + 1.0)
    error = np.zeros(n_rows)  # each solved row's relative error bound (this column)
    for j in range(n_cols):
        for c in range(2, n_rows):
            total = log_basis[c, j]
            if total == NEG_INF:  # F(c) = 0: every term, N_c included, is 0
                error[c] = 0.0
                continue
            below = 0.0    # sum_a (c)_a N_a / F(c)
            carried = 0.0  # sum_a (c)_a N_a r_a / F(c): the lower rows' errors
            for a in range(2, c):
                v = out[a, j]
                if v != NEG_INF:
                    term = math.exp(log_ff[c, a] + v - total)
                    below += term
                    carried += term * error[a]
            share = 1.0 - below  # c! N_c / F(c)
            if share <= 0.0 or (basis_error + carried) > tolerance * share:
                for r in range(c, n_rows):
                    bad[r, j] = True
                break
            out[c, j] = total + math.log(share) - log_ff[c, c]
            error[c] = (basis_error + carried) / share
    return out, bad


@njit(**JIT_OPTIONS)
def node_sums_direct_rows_factorial(log_left, log_right, basis_left, basis_right, n_left,
                                    n_right, log_two_ell, m_start, m_end, use_binomial, log_coef,
                                    wanted_rows, cutoff, max_amplification):
    """:func:`node_sums_direct_rows` with one sum per row instead of one per pair ``(a, b)``.

    The merge counts are those of falling factorials, ``(n)_a (n)_b = sum_c coef(a, b, c)
    (n)_c``, so in the basis ``F(n) = sum_c (n)_c N_c`` the children combine pointwise:
    ``F(n, m) = sum_k w(m, k) f_l(n, k) f_r(n, m - k)`` with ``f(n, k) = sum_a (n)_a pi^a(k)``.
    ``N_c = (F(c) - sum_{a<c} (c)_a N_a) / c!`` for ``c = 1, 2, ...``; the subtraction loses
    accuracy by the factor ``F(c) / (c! N_c)``, and an entry where that exceeds
    ``max_amplification`` (rows far below the ones under them, e.g. ``c`` near a subtree's
    leaves) is summed pair by pair instead, as are rows up to 2 (nothing to gain there).
    ``basis_*``: :func:`falling_factorial_rows` of the children's tables (computed once per
    table by the caller), with at least the highest wanted row and ``m_end`` columns.
    """
    n_parts_max = wanted_rows.shape[0] - 1
    top_row = 0
    for c in range(1, n_parts_max + 1):
        if wanted_rows[c]:
            top_row = c
    if top_row <= 2:
        return node_sums_direct_rows(log_left, log_right, n_left, n_right, log_two_ell, m_start,
                                     m_end, use_binomial, log_coef, wanted_rows, cutoff)
    n_m = m_end - m_start + 1
    out = np.full((n_parts_max + 1, max(n_m, 0)), NEG_INF)
    if n_m <= 0:
        return out
    basis_l = basis_left[: top_row + 1]
    basis_r = basis_right[: top_row + 1]
    diagonal = np.zeros((top_row + 1, top_row + 1), dtype=np.bool_)
    for n in range(1, top_row + 1):
        diagonal[n, n] = True
    n_a = log_left.shape[0]
    n_b = log_right.shape[0]
    row_pairs = np.zeros((n_a, n_b), dtype=np.bool_)
    basis_sums = np.empty((top_row + 1, top_row + 1))
    pairs = np.empty((n_a, n_b))
    col = np.empty(n_parts_max + 1)
    rows = np.empty(top_row + 1)
    log_ff = np.full((top_row + 1, top_row + 1), NEG_INF)
    for n in range(1, top_row + 1):
        for a in range(1, n + 1):
            log_ff[n, a] = math.lgamma(n + 1.0) - math.lgamma(n - a + 1.0)
    basis_spans_l = finite_spans(basis_l)
    basis_spans_r = finite_spans(basis_r)
    left_spans = finite_spans(log_left)
    right_spans = finite_spans(log_right)
    log_int = np.zeros(max(m_end, 0) + 2 if use_binomial else 1)
    for i in range(1, log_int.shape[0]):
        log_int[i] = math.log(i)
    log_keep = math.log1p(-1.0 / max_amplification)
    for i in range(n_m):
        m = m_start + i
        pair_sums_at(basis_l, basis_r, n_left, n_right, log_two_ell, m, use_binomial,
                     basis_sums, basis_spans_l, basis_spans_r, diagonal, log_int, cutoff)
        for c in range(1, top_row + 1):
            total = basis_sums[c, c]
            below = NEG_INF
            for a in range(1, c):
                if rows[a] != NEG_INF:
                    below = log_add(below, log_ff[c, a] + rows[a])
            if total == NEG_INF:
                rows[c] = NEG_INF
            elif below == NEG_INF:
                rows[c] = total - log_ff[c, c]
            elif below - total <= log_keep:
                rows[c] = total + math.log1p(-math.exp(below - total)) - log_ff[c, c]
            else:  # ill-conditioned: this row's pairs, summed one by one
                for a in range(n_a):
                    for b in range(n_b):
                        row_pairs[a, b] = False
                for a in range(1, min(c, n_a - 1) + 1):
                    for b in range(max(1, c - a), min(c, n_b - 1) + 1):
                        row_pairs[a, b] = True
                pair_sums_at(log_left, log_right, n_left, n_right, log_two_ell, m,
                             use_binomial, pairs, left_spans, right_spans, row_pairs, log_int,
                             cutoff)
                combine_pairs(pairs, log_coef, c, col)
                rows[c] = col[c]
            if wanted_rows[c]:
                out[c, i] = rows[c]
    return out
