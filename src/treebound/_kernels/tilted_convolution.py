"""numba kernels of one tilt of :func:`treebound.theory._tables.tilted_fft_convolutions`.

One tilt ``theta`` needs: the tilted, rescaled peak windows of every row of both tables (one
2-D block per table, so each side takes a single batched FFT), the spectra of every output row
``c`` combined from the rows' spectra with the merge weights (plus each row's a-posteriori error
bound), and, after the batched inverse FFT, the outputs whose error bound meets the tolerance.
The FFTs themselves stay in scipy; these kernels replace the per-row and per-pair Python loops
around them. Plain arrays only: nothing here knows about structures.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from treebound._config import JIT_OPTIONS

NEG_INF = -np.inf


@njit(**JIT_OPTIONS)
def tilted_window_block(table, rows, length, theta, window):
    """Tilted, rescaled peak windows of ``exp(table[r, k] - theta k)``, ``k < length``, per row.

    For each ``r = rows[i]``: ``z[k] = table[r, k] - theta k``, ``s_i = max z`` and the window is
    the smallest index range holding every ``k`` with ``z[k] >= s_i - window`` (entries below are
    dropped; the caller's error bound accounts for them). Returns ``(lo, X, s, n2, n1)``: row ``i``
    of ``X`` holds ``exp(z[k] - s_i)`` at column ``k - lo`` (zero outside its window), ``lo`` is
    the smallest window start, ``n2``/``n1`` are the rows' 2- and 1-norms. Rows without a finite
    entry get ``s = -inf`` and a zero row; ``lo = -1`` (and an empty ``X``) when no row has one.
    """
    n_rows = rows.shape[0]
    first = np.full(n_rows, -1, dtype=np.int64)
    last = np.full(n_rows, -1, dtype=np.int64)
    scale = np.full(n_rows, NEG_INF)
    n2 = np.zeros(n_rows)
    n1 = np.zeros(n_rows)
    lo = -1
    hi = -1
    for i in range(n_rows):
        values = table[rows[i]]
        s = NEG_INF
        for k in range(length):
            v = values[k]
            if v != NEG_INF:
                z = v - theta * k
                if z > s:
                    s = z
        if s == NEG_INF:
            continue
        cut = s - window
        for k in range(length):
            v = values[k]
            if v != NEG_INF and v - theta * k >= cut:
                if first[i] < 0:
                    first[i] = k
                last[i] = k
        scale[i] = s
        if lo < 0 or first[i] < lo:
            lo = first[i]
        if last[i] + 1 > hi:
            hi = last[i] + 1
    if lo < 0:
        return -1, np.zeros((n_rows, 0)), scale, n2, n1
    block = np.zeros((n_rows, hi - lo))
    for i in range(n_rows):
        if first[i] < 0:
            continue
        values = table[rows[i]]
        s = scale[i]
        sq = 0.0
        ab = 0.0
        for k in range(first[i], last[i] + 1):
            v = values[k]
            x = 0.0 if v == NEG_INF else math.exp(v - theta * k - s)
            block[i, k - lo] = x
            sq += x * x
            ab += x
        n2[i] = math.sqrt(sq)
        n1[i] = ab
    return lo, block, scale, n2, n1


@njit(**JIT_OPTIONS)
def combine_tilted_spectra(spec_f, spec_g, rows_a, rows_b, scale_f, scale_g, n2_f, n2_g,
                           n1_f, n1_g, log_coef, parts, error_factor, drop, len_f, len_g):
    """Spectra of the output rows ``c = parts[j]`` and their error bounds, for one tilt.

    Row ``j`` of the result is ``sum_{a,b} w_ab X_a Y_b`` over the pairs with a finite merge
    coefficient and a window on both sides, ``w_ab = exp(log_coef[a, b, c] + s_a + s_b - shift_j)``
    (``shift_j`` = the largest exponent, so the largest weight is 1); ``bound[j] = sum_ab w_ab
    (error_factor ||x_a||_2 ||y_b||_2 + drop (len_f ||y_b||_1 + len_g ||x_a||_1))`` is the
    a-posteriori bound on the error of every output of that row (see the caller). ``usable[j]``
    is false when no pair has both windows (the row is then left zero).
    """
    n_parts = parts.shape[0]
    n_freq = spec_f.shape[1]
    spec = np.zeros((n_parts, n_freq), dtype=np.complex128)
    shift = np.full(n_parts, NEG_INF)
    bound = np.zeros(n_parts)
    usable = np.zeros(n_parts, dtype=np.bool_)
    for j in range(n_parts):
        c = parts[j]
        for i in range(rows_a.shape[0]):
            if scale_f[i] == NEG_INF:
                continue
            for t in range(rows_b.shape[0]):
                if scale_g[t] == NEG_INF:
                    continue
                coef = log_coef[rows_a[i], rows_b[t], c]
                if coef == NEG_INF:
                    continue
                usable[j] = True
                logw = coef + scale_f[i] + scale_g[t]
                if logw > shift[j]:
                    shift[j] = logw
        if not usable[j]:
            continue
        for i in range(rows_a.shape[0]):
            if scale_f[i] == NEG_INF:
                continue
            for t in range(rows_b.shape[0]):
                if scale_g[t] == NEG_INF:
                    continue
                coef = log_coef[rows_a[i], rows_b[t], c]
                if coef == NEG_INF:
                    continue
                w = math.exp(coef + scale_f[i] + scale_g[t] - shift[j])
                if w == 0.0:
                    continue
                for q in range(n_freq):
                    spec[j, q] += w * spec_f[i, q] * spec_g[t, q]
                bound[j] += w * (error_factor * n2_f[i] * n2_g[t]
                                 + drop * (len_f * n1_g[t] + len_g * n1_f[i]))
    return spec, shift, bound, usable


@njit(**JIT_OPTIONS)
def accept_tilted_outputs(h, parts, usable, shift, bound, i_lo, i_hi, offset, m_start, theta,
                          tolerance, pending, out):
    """Store the outputs of one tilt whose error bound is within ``tolerance`` of their value.

    ``h[j, i]`` is the tilted convolution of output row ``parts[j]`` at ``m = i + offset``; an
    entry still ``pending`` is accepted when ``h * tolerance > bound[j]`` and stored as
    ``log h + shift[j] + theta m`` (undoing the rescaling and the tilt). Returns how many were.
    """
    accepted = 0
    for j in range(parts.shape[0]):
        if not usable[j]:
            continue
        c = parts[j]
        for i in range(i_lo, i_hi + 1):
            m = i + offset
            col = m - m_start
            value = h[j, i]
            if pending[c, col] and value * tolerance > bound[j]:
                out[c, col] = math.log(value) + shift[j] + theta * m
                pending[c, col] = False
                accepted += 1
    return accepted
