"""numba kernels behind :mod:`treebound.theory.partitioning` (log-space partitioning tables).

Conventions: a *log table* ``T[c, m]`` holds ``log pi^c(m)`` (natural log, ``-inf`` for 0) of one
tree structure for ``0 <= c <= C`` and ``0 <= m <= M``. Children tables are passed as plain 2-D
float arrays together with the children's numbers of leaves. Nothing here knows about structures.
"""

from __future__ import annotations

import math

import numpy as np

from treebound._config import JIT_OPTIONS, njit

NEG_INF = -np.inf


@njit(**JIT_OPTIONS)
def log_add(x, y):
    """``log(exp(x) + exp(y))`` without overflow."""
    if x == NEG_INF:
        return y
    if y == NEG_INF:
        return x
    if x > y:
        return x + math.log1p(math.exp(y - x))
    return y + math.log1p(math.exp(x - y))


@njit(**JIT_OPTIONS)
def log_stirling2_table(max_n, max_k):
    """``T[k, n] = log S(n, k)`` by ``S(n, k) = k S(n-1, k) + S(n-1, k-1)`` in log space."""
    out = np.full((max_k + 1, max_n + 1), NEG_INF)
    out[0, 0] = 0.0
    for n in range(1, max_n + 1):
        top = min(n, max_k)
        for k in range(1, top + 1):
            out[k, n] = log_add(math.log(k) + out[k, n - 1], out[k - 1, n - 1])
    return out


@njit(**JIT_OPTIONS)
def log_cumsum(log_values, start):
    """``out[J] = log sum_{j=start}^{J} exp(log_values[j])`` (``-inf`` for ``J < start``).

    Linear-space running sum relative to a running scale (one ``exp`` and one ``log`` per entry;
    rescaled whenever a term exceeds the scale, so nothing overflows).
    """
    n = log_values.shape[0]
    out = np.full(n, NEG_INF)
    scale = NEG_INF
    acc = 0.0
    for j in range(max(start, 0), n):
        v = log_values[j]
        if v > scale:
            acc = acc * math.exp(scale - v) + 1.0 if scale != NEG_INF else 1.0
            scale = v
        elif v != NEG_INF:
            acc += math.exp(v - scale)
        if scale != NEG_INF:
            out[j] = scale + math.log(acc)
    return out


@njit(**JIT_OPTIONS)
def upper_hull(values):
    """Indices of the vertices of the upper concave hull of ``(k, values[k])`` (finite entries)."""
    n = values.shape[0]
    idx = np.empty(n, dtype=np.int64)
    h = 0
    for k in range(n):
        if values[k] == NEG_INF:
            continue
        # Drop the last vertex while it lies on or below the chord to the new point.
        while h >= 2:
            a = idx[h - 2]
            b = idx[h - 1]
            if (values[b] - values[a]) * (k - b) <= (values[k] - values[b]) * (b - a):
                h -= 1
            else:
                break
        idx[h] = k
        h += 1
    return idx[:h]


@njit(**JIT_OPTIONS)
def finite_spans(table):
    """Per row: first and last index of a finite entry (``(0, -1)`` for an all ``-inf`` row)."""
    n_rows, n_cols = table.shape
    spans = np.empty((n_rows, 2), dtype=np.int64)
    for r in range(n_rows):
        first = 0
        last = -1
        for k in range(n_cols):
            if table[r, k] != NEG_INF:
                first = k
                break
        for k in range(n_cols - 1, -1, -1):
            if table[r, k] != NEG_INF:
                last = k
                break
        spans[r, 0] = first
        spans[r, 1] = last
    return spans


@njit(**JIT_OPTIONS)
def pair_sums_at(log_left, log_right, n_left, n_right, log_two_ell, m, use_binomial, out,
                 left_spans, right_spans, needed, log_int, cutoff):
    """Theorem 9's inner sums for one ``m`` and every pair of part counts ``(a, b)``.

    ``out[a, b] = log sum_{k=n_left}^{m-n_right} w(m, k) pi_l^a(k) pi_r^b(m-k)`` with
    ``w = min(2 ell, C(m, k))`` when ``use_binomial`` else ``w = 2 ell``. Two passes: the largest
    term, then the sum of ``exp(term - largest)`` (every term is positive, so this is accurate to a
    few ulps per term and costs one ``exp`` per term). ``*_spans`` (:func:`finite_spans` of the
    tables) only narrow the loops to the ``k`` where both factors can be finite: the terms
    skipped are zero, so the result is the same to the bit. Pairs with ``needed[a, b]`` false
    are not summed (left ``-inf``). ``log_int[i] = math.log(i)`` for ``1 <= i <= m`` (read
    when ``use_binomial``). Terms more than ``-cutoff`` nats below a sum's largest one are left
    out (``cutoff = -inf``: none; ``-60``: a relative error below ``1e-21`` per term).
    """
    n_a = out.shape[0]
    n_b = out.shape[1]
    for a in range(n_a):
        for b in range(n_b):
            out[a, b] = NEG_INF
    k_lo = n_left
    k_hi = m - n_right
    if k_hi < k_lo:
        return
    n_k = k_hi - k_lo + 1
    log_w = np.full(n_k, log_two_ell)
    if use_binomial:
        log_binom = 0.0  # log C(m, k), updated incrementally along k
        for k in range(1, k_hi + 1):
            log_binom += log_int[m - k + 1] - log_int[k]
            if k >= k_lo and log_binom < log_two_ell:
                log_w[k - k_lo] = log_binom
    for a in range(1, n_a):
        for b in range(1, n_b):
            if not needed[a, b]:
                continue
            i_lo = max(0, left_spans[a, 0] - k_lo, m - right_spans[b, 1] - k_lo)
            i_hi = min(n_k - 1, left_spans[a, 1] - k_lo, m - right_spans[b, 0] - k_lo)
            top = NEG_INF
            for i in range(i_lo, i_hi + 1):
                k = k_lo + i
                t = log_left[a, k] + log_right[b, m - k]
                if t > NEG_INF:
                    t += log_w[i]
                    if t > top:
                        top = t
            if top == NEG_INF:
                continue
            acc = 0.0
            for i in range(i_lo, i_hi + 1):
                k = k_lo + i
                t = log_left[a, k] + log_right[b, m - k] + log_w[i] - top
                if t > cutoff:
                    acc += math.exp(t)
            out[a, b] = top + math.log(acc)


@njit(**JIT_OPTIONS)
def combine_pairs(pair_logs, log_coef, n_parts_max, out):
    """``out[c] = log sum_{a,b} coef(a, b, c) exp(pair_logs[a, b])`` for ``1 <= c <= C``.

    ``log_coef[a, b, c]`` is ``log`` of the merge count of appendix B (``-inf`` when zero).
    """
    n_a = pair_logs.shape[0]
    n_b = pair_logs.shape[1]
    for c in range(1, n_parts_max + 1):
        acc = NEG_INF
        for a in range(1, min(c, n_a - 1) + 1):
            for b in range(max(1, c - a), min(c, n_b - 1) + 1):
                p = pair_logs[a, b]
                if p == NEG_INF:
                    continue
                acc = log_add(acc, log_coef[a, b, c] + p)
        out[c] = acc


@njit(**JIT_OPTIONS)
def node_sums_direct(log_left, log_right, n_left, n_right, log_two_ell, m_start, m_end,
                     use_binomial, log_coef, n_parts_max):
    """Unclipped Theorem 9 sums ``log N_c(m)`` for ``m_start <= m <= m_end`` by direct summation.

    Returns an array ``(n_parts_max + 1, m_end - m_start + 1)``; before halving and before the
    minimum with ``S(m, c)``. Cost ``O(sum_m m * pairs)``: used for small ``m`` (where
    ``min(2 ell, C(m, k))`` is not constant), as the oracle of the FFT path, and for single values.
    """
    wanted = np.ones(n_parts_max + 1, dtype=np.bool_)
    return node_sums_direct_rows(log_left, log_right, n_left, n_right, log_two_ell, m_start,
                                 m_end, use_binomial, log_coef, wanted, NEG_INF)


@njit(**JIT_OPTIONS)
def node_sums_direct_rows(log_left, log_right, n_left, n_right, log_two_ell, m_start, m_end,
                          use_binomial, log_coef, wanted_rows, cutoff):
    """:func:`node_sums_direct` for the rows ``c`` with ``wanted_rows[c]`` only (others ``-inf``).

    Only the pairs ``(a, b)`` that some wanted row combines are summed; the wanted rows are the
    same to the bit as in the full computation. ``cutoff``: see :func:`pair_sums_at`.
    """
    n_parts_max = wanted_rows.shape[0] - 1
    n_m = m_end - m_start + 1
    out = np.full((n_parts_max + 1, max(n_m, 0)), NEG_INF)
    n_a = log_left.shape[0]
    n_b = log_right.shape[0]
    needed = np.zeros((n_a, n_b), dtype=np.bool_)
    for c in range(1, n_parts_max + 1):  # the pairs combine_pairs reads for row c
        if wanted_rows[c]:
            for a in range(1, min(c, n_a - 1) + 1):
                for b in range(max(1, c - a), min(c, n_b - 1) + 1):
                    if log_coef[a, b, c] != NEG_INF:
                        needed[a, b] = True
    pairs = np.empty((n_a, n_b))
    col = np.empty(n_parts_max + 1)
    left_spans = finite_spans(log_left)
    right_spans = finite_spans(log_right)
    # log C(m, k) is built from these along k: one table instead of two logs per term.
    log_int = np.zeros(max(m_end, 0) + 2 if use_binomial else 1)
    for i in range(1, log_int.shape[0]):
        log_int[i] = math.log(i)
    for i in range(n_m):
        m = m_start + i
        pair_sums_at(log_left, log_right, n_left, n_right, log_two_ell, m, use_binomial, pairs,
                     left_spans, right_spans, needed, log_int, cutoff)
        combine_pairs(pairs, log_coef, n_parts_max, col)
        for c in range(1, n_parts_max + 1):
            if wanted_rows[c]:
                out[c, i] = col[c]
    return out


@njit(**JIT_OPTIONS)
def edge_deficit_sums(log_left, log_right, n_left, n_right, two_ell, m_start, m_end, log_coef,
                      n_parts_max):
    """``log D_c(m)``: Theorem 9's terms whose weight ``C(m, k)`` is below ``2 ell``, each
    weighted by the deficit ``2 ell - C(m, k)``, combined per ``c`` like the sums.

    Only the ``k`` near both ends qualify once ``C(m, floor(m/2)) >= 2 ell`` (the callers' range):
    ``k = 1, 2, ...`` while ``C(m, k) < 2 ell`` and their mirrors ``m - k``, within
    ``[n_left, m - n_right]``. ``log C(m, k)`` is accumulated along ``k`` exactly as in
    :func:`pair_sums_at`, so the same terms count as "below ``2 ell``".
    """
    n_m = m_end - m_start + 1
    out = np.full((n_parts_max + 1, max(n_m, 0)), NEG_INF)
    n_a = log_left.shape[0]
    n_b = log_right.shape[0]
    log_two_ell = math.log(two_ell)
    pairs = np.empty((n_a, n_b))
    col = np.empty(n_parts_max + 1)
    edge_k = np.empty(2 * 64, dtype=np.int64)  # callers keep the ends within 60 terms
    edge_w = np.empty(2 * 64)
    for i in range(n_m):
        m = m_start + i
        n_edge = 0
        log_binom = 0.0
        k = 0
        while 2 * (k + 1) < m and n_edge + 2 <= edge_k.shape[0]:
            k += 1
            log_binom += math.log(m - k + 1) - math.log(k)
            if log_binom >= log_two_ell:
                break
            log_deficit = math.log(two_ell - math.exp(log_binom))
            for kk in (k, m - k):
                if n_left <= kk <= m - n_right:
                    edge_k[n_edge] = kk
                    edge_w[n_edge] = log_deficit
                    n_edge += 1
        if n_edge == 0:
            continue
        for a in range(n_a):
            for b in range(n_b):
                pairs[a, b] = NEG_INF
        for a in range(1, n_a):
            for b in range(1, n_b):
                top = NEG_INF
                for e in range(n_edge):
                    t = log_left[a, edge_k[e]] + log_right[b, m - edge_k[e]] + edge_w[e]
                    if t > top:
                        top = t
                if top == NEG_INF:
                    continue
                acc = 0.0
                for e in range(n_edge):
                    t = log_left[a, edge_k[e]] + log_right[b, m - edge_k[e]] + edge_w[e]
                    if t > NEG_INF:
                        acc += math.exp(t - top)
                pairs[a, b] = top + math.log(acc)
        combine_pairs(pairs, log_coef, n_parts_max, col)
        for c in range(1, n_parts_max + 1):
            out[c, i] = col[c]
    return out


@njit(**JIT_OPTIONS)
def subtract_deficits(log_full, log_deficit, max_ratio):
    """``log(exp(log_full) - exp(log_deficit))`` entrywise, kept where the deficit is at most
    ``max_ratio`` times the full sum (else ``kept`` is false and the entry ``-inf``)."""
    n_rows, n_cols = log_full.shape
    kept = np.ones((n_rows, n_cols), dtype=np.bool_)
    out = np.full((n_rows, n_cols), NEG_INF)
    for r in range(n_rows):
        for j in range(n_cols):
            full = log_full[r, j]
            deficit = log_deficit[r, j]
            if full == NEG_INF:
                kept[r, j] = deficit == NEG_INF
                continue
            if deficit == NEG_INF:
                out[r, j] = full
                continue
            ratio = math.exp(deficit - full)
            if ratio <= max_ratio:
                out[r, j] = full + math.log1p(-ratio)
            else:
                kept[r, j] = False
    return out, kept


@njit(**JIT_OPTIONS)
def log_prefix_rows(log_table, start):
    """:func:`log_cumsum` of every row ``>= 2`` of a log table from ``start`` (rows 0, 1 ``-inf``).

    The prefix sums of a child's rows that :func:`constant_weight_sums` reads; they depend on the
    child only, so callers may keep them with the child's table.
    """
    out = np.full(log_table.shape, NEG_INF)
    for r in range(2, log_table.shape[0]):
        row = log_cumsum(log_table[r], start)
        # an element loop: a row assignment compiles numba's broadcasting (seconds, first run)
        for j in range(row.shape[0]):
            out[r, j] = row[j]
    return out


@njit(**JIT_OPTIONS)
def constant_weight_sums(prefix_left, prefix_right, n_left, n_right, log_two_ell, m_start,
                         m_end, log_coef, conv, first_row=1):
    """Theorem 9's sums ``log N_c(m)`` where the weight is the constant ``2 ell``.

    The pairs with ``a = 1`` (``pi_l^1(k) = 1``) are prefix sums of ``pi_r^b`` from ``n_right``
    (for ``b = 1`` just the number of terms, ``m - L + 1``), those with ``b = 1`` prefix sums of
    ``pi_l^a`` from ``n_left`` (``prefix_*``: :func:`log_prefix_rows` of the children's tables,
    rows up to ``min(C, L_child)``); ``conv[c]`` (``-inf`` where absent) holds the pairs with
    ``a, b >= 2``, already combined per ``c``. Row ``c`` (``1 <= c < conv.shape[0]``) of the result
    is the log-sum of its terms, each weighted by ``log_coef`` and ``2 ell`` (max-shifted: one ``exp``
    per term); rows without terms stay ``-inf``, and so do the rows below ``first_row`` (a
    node's table takes ``pi^1 = 1`` instead of row 1: ``first_row=2`` skips it).
    """
    n_parts_max = conv.shape[0] - 1
    n_out = m_end - m_start + 1
    n_b = min(n_parts_max, prefix_right.shape[0] - 1)
    n_a = min(n_parts_max, prefix_left.shape[0] - 1)
    # values[t, i]: log of 2 ell times the prefix sum of pair t at m = m_start + i.
    values = np.empty((n_b + max(n_a - 1, 0), n_out))
    for i in range(n_out):
        values[0, i] = log_two_ell + math.log(m_start + i - n_left - n_right + 1.0)
    for b in range(2, n_b + 1):
        for i in range(n_out):
            values[b - 1, i] = log_two_ell + prefix_right[b, m_start + i - n_left]
    for a in range(2, n_a + 1):
        for i in range(n_out):
            values[n_b + a - 2, i] = log_two_ell + prefix_left[a, m_start + i - n_right]
    out = np.full((n_parts_max + 1, n_out), NEG_INF)
    term_row = np.empty(values.shape[0], dtype=np.int64)
    term_coef = np.empty(values.shape[0])
    for c in range(max(first_row, 1), n_parts_max + 1):
        n_terms = 0
        for b in range(1, n_b + 1):  # pair (1, b) feeds c = b and c = b + 1
            if (c == b or c == b + 1) and log_coef[1, b, c] != NEG_INF:
                term_row[n_terms] = b - 1
                term_coef[n_terms] = log_coef[1, b, c]
                n_terms += 1
        for a in range(2, n_a + 1):  # pair (a, 1) feeds c = a and c = a + 1
            if c == a or c == a + 1:
                term_row[n_terms] = n_b + a - 2
                term_coef[n_terms] = log_coef[a, 1, c]
                n_terms += 1
        use_conv = False
        if c >= 2:
            for i in range(n_out):
                if conv[c, i] != NEG_INF:
                    use_conv = True
                    break
        if n_terms == 0 and not use_conv:
            continue
        for i in range(n_out):
            top = NEG_INF
            for t in range(n_terms):
                v = term_coef[t] + values[term_row[t], i]
                if v > top:
                    top = v
            if use_conv:
                v = log_two_ell + conv[c, i]
                if v > top:
                    top = v
            if top == NEG_INF:
                continue
            acc = 0.0  # exp(0) = 1 exactly: the largest term needs no exp
            for t in range(n_terms):
                x = term_coef[t] + values[term_row[t], i] - top
                acc += 1.0 if x == 0.0 else math.exp(x)
            if use_conv:
                x = log_two_ell + conv[c, i] - top
                acc += 1.0 if x == 0.0 else math.exp(x)
            out[c, i] = top + math.log(acc)
    return out


@njit(**JIT_OPTIONS)
def max_log_ratio(log_a, log_b, n_rows, col_lo, col_hi):
    """Largest ``log_a - log_b`` over the finite entries of ``log_a`` in rows ``0..n_rows - 1``
    and columns ``col_lo..col_hi``, with the largest ``|log_a|`` there.

    Returns ``(ratio, scale, ok)``; ``ok`` is false when ``log_b`` is ``-inf`` where ``log_a`` is
    finite (the ratio is then unbounded); ``ratio = -inf`` when no entry of ``log_a`` is finite.
    """
    ratio = NEG_INF
    scale = 0.0
    for c in range(n_rows):
        for k in range(col_lo, col_hi + 1):
            a = log_a[c, k]
            if a == NEG_INF:
                continue
            b = log_b[c, k]
            if b == NEG_INF:
                return ratio, scale, False
            if a - b > ratio:
                ratio = a - b
            if abs(a) > scale:
                scale = abs(a)
    return ratio, scale, True
