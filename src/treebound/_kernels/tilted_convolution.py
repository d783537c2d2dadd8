"""numba kernels of one tilt of :func:`treebound.theory._convolutions.tilted_fft_convolutions`
(and of one round of :func:`~treebound.theory._convolutions.row_tilted_convolutions`).

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

from treebound._config import JIT_OPTIONS, njit

NEG_INF = -np.inf


@njit(**JIT_OPTIONS)
def _row_window(values, length, theta, window):
    """``(s, first, last)`` of one row: ``s = max_k z[k]``, ``z[k] = values[k] - theta k``
    (``k < length``), and the range of the ``k`` with ``z[k] >= s - window`` (``-1`` if none)."""
    s = NEG_INF
    for k in range(length):
        v = values[k]
        if v != NEG_INF and v - theta * k > s:
            s = v - theta * k
    first = -1
    last = -1
    if s == NEG_INF:
        return s, first, last
    cut = s - window
    for k in range(length):
        v = values[k]
        if v != NEG_INF and v - theta * k >= cut:
            if first < 0:
                first = k
            last = k
    return s, first, last


@njit(**JIT_OPTIONS)
def _window_spans(table, rows, length, theta, window, first, last, scale):
    """:func:`_row_window` of each row ``rows[i]`` into ``scale[i]``, ``first[i]``, ``last[i]``.
    Returns the smallest ``first`` and the largest ``last + 1`` (``-1, -1`` when no row has a
    window)."""
    lo = -1
    hi = -1
    for i in range(rows.shape[0]):
        scale[i], first[i], last[i] = _row_window(table[rows[i]], length, theta, window)
        if first[i] < 0:
            continue
        if lo < 0 or first[i] < lo:
            lo = first[i]
        if last[i] + 1 > hi:
            hi = last[i] + 1
    return lo, hi


@njit(**JIT_OPTIONS)
def _fill_windows(table, rows, theta, first, last, scale, lo, block, row_offset, n2, n1):
    """Write ``exp(z[k] - s)`` of each row's window into ``block[row_offset + i, k - lo]``; the
    rows' 2- and 1-norms into ``n2``/``n1`` (same offset)."""
    for i in range(rows.shape[0]):
        if first[i] < 0:
            continue
        values = table[rows[i]]
        s = scale[i]
        sq = 0.0
        ab = 0.0
        for k in range(first[i], last[i] + 1):
            v = values[k]
            x = 0.0 if v == NEG_INF else math.exp(v - theta * k - s)
            block[row_offset + i, k - lo] = x
            sq += x * x
            ab += x
        n2[row_offset + i] = math.sqrt(sq)
        n1[row_offset + i] = ab


@njit(**JIT_OPTIONS)
def tilted_window_pair(table_f, rows_f, length_f, table_g, rows_g, length_g, theta, window):
    """Tilted, rescaled peak windows of both tables' rows, stacked for one batched transform.

    For each row ``r`` of a side: ``z[k] = table[r, k] - theta k`` (``k < length``), ``s = max
    z``; the window is the smallest index range holding every ``k`` with ``z[k] >= s - window``
    (entries below are dropped; the caller's error bound accounts for them). Returns
    ``(lo_f, width_f, lo_g, width_g, block, scale, n2, n1)``: rows ``0..len(rows_f) - 1`` of
    ``block`` hold ``exp(z[k] - s)`` of the first table at column ``k - lo_f`` (zero outside the
    window), the next rows those of the second table at ``k - lo_g``; ``lo``/``width`` span a
    side's windows; ``scale``, ``n2``, ``n1`` are the rows' ``s`` and 2- and 1-norms. A row
    without a finite entry gets ``s = -inf`` and a zero row; ``lo_f`` or ``lo_g`` is ``-1`` (and
    ``block`` empty) when a side has no window at all.
    """
    n_f = rows_f.shape[0]
    n_g = rows_g.shape[0]
    first = np.empty(n_f + n_g, dtype=np.int64)
    last = np.empty(n_f + n_g, dtype=np.int64)
    scale = np.empty(n_f + n_g)
    n2 = np.zeros(n_f + n_g)
    n1 = np.zeros(n_f + n_g)
    lo_f, hi_f = _window_spans(table_f, rows_f, length_f, theta, window, first[:n_f],
                               last[:n_f], scale[:n_f])
    lo_g, hi_g = _window_spans(table_g, rows_g, length_g, theta, window, first[n_f:],
                               last[n_f:], scale[n_f:])
    if lo_f < 0 or lo_g < 0:
        return lo_f, 0, lo_g, 0, np.zeros((n_f + n_g, 0)), scale, n2, n1
    block = np.zeros((n_f + n_g, max(hi_f - lo_f, hi_g - lo_g)))
    _fill_windows(table_f, rows_f, theta, first[:n_f], last[:n_f], scale[:n_f], lo_f, block, 0,
                  n2, n1)
    _fill_windows(table_g, rows_g, theta, first[n_f:], last[n_f:], scale[n_f:], lo_g, block,
                  n_f, n2, n1)
    return lo_f, hi_f - lo_f, lo_g, hi_g - lo_g, block, scale, n2, n1


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


@njit(**JIT_OPTIONS)
def pending_parts(pending, has_pairs, last_col):
    """Output rows ``c`` with pairs and a pending entry in columns ``0..last_col``."""
    n_rows = pending.shape[0]
    out = np.empty(n_rows, dtype=np.int64)
    n = 0
    for c in range(n_rows):
        if not has_pairs[c]:
            continue
        for col in range(last_col + 1):
            if pending[c, col]:
                out[n] = c
                n += 1
                break
    return out[:n]


@njit(**JIT_OPTIONS)
def last_pending_column(pending):
    """Largest column with a pending entry (``-1`` when none)."""
    for col in range(pending.shape[1] - 1, -1, -1):
        for c in range(pending.shape[0]):
            if pending[c, col]:
                return col
    return -1


@njit(**JIT_OPTIONS)
def next_tilt_target(pending, m_start, target):
    """Top pending output and the next tilt's target, just below the band the last one resolved.

    ``run`` = the number of fully resolved columns at the top of ``m_start..target``; bands scale
    with ``m``, so the target moves ``0.8 run new_top / target`` below the new top output.
    """
    new_top = m_start + last_pending_column(pending)
    last_unresolved = -1
    for col in range(target - m_start, -1, -1):
        for c in range(pending.shape[0]):
            if pending[c, col]:
                last_unresolved = col
                break
        if last_unresolved >= 0:
            break
    run = target - m_start - last_unresolved
    width = max(run - 1, 0)
    return new_top, max(m_start, new_top - int(0.8 * width * new_top / max(target, 1)))


@njit(**JIT_OPTIONS)
def row_tilted_windows(table_f, table_g, rows, theta, length_f, length_g, window):
    """Each row's own tilted peak windows of both tables, for row-by-row convolutions.

    Row ``i`` of the block holds ``exp(table_f[rows[i], k] - theta[i] k - s)`` at column ``k -
    first_f[i]`` (``k < length_f[i]``, within ``window`` nats of the maximum ``s``), row ``R + i``
    the same for ``table_g``. Returns ``(first_f, first_g, scale_f, scale_g, block, n2, n1,
    longest)``: ``n2``/``n1`` the block rows' 2- and 1-norms, ``longest`` the longest linear
    convolution of a row pair; ``first_f[i] = -1`` when row ``i`` has no window on a side.
    """
    R = rows.shape[0]
    first_f = np.full(R, -1, dtype=np.int64)
    first_g = np.full(R, -1, dtype=np.int64)
    width_f = np.zeros(R, dtype=np.int64)
    width_g = np.zeros(R, dtype=np.int64)
    scale_f = np.full(R, NEG_INF)
    scale_g = np.full(R, NEG_INF)
    widest = 1
    longest = 1
    for i in range(R):
        sf, af, bf = _row_window(table_f[rows[i]], length_f[i], theta[i], window)
        sg, ag, bg = _row_window(table_g[rows[i]], length_g[i], theta[i], window)
        if af < 0 or ag < 0:
            continue
        first_f[i], first_g[i], scale_f[i], scale_g[i] = af, ag, sf, sg
        width_f[i] = bf - af + 1
        width_g[i] = bg - ag + 1
        widest = max(widest, width_f[i], width_g[i])
        longest = max(longest, width_f[i] + width_g[i] - 1)
    block = np.zeros((2 * R, widest))
    n2 = np.zeros(2 * R)
    n1 = np.zeros(2 * R)
    for i in range(R):
        if first_f[i] < 0:
            continue
        for side in range(2):
            table = table_f if side == 0 else table_g
            first = first_f[i] if side == 0 else first_g[i]
            width = width_f[i] if side == 0 else width_g[i]
            s = scale_f[i] if side == 0 else scale_g[i]
            row = side * R + i
            sq = 0.0
            ab = 0.0
            for t in range(width):
                k = first + t
                v = table[rows[i], k]
                x = 0.0 if v == NEG_INF else math.exp(v - theta[i] * k - s)
                block[row, t] = x
                sq += x * x
                ab += x
            n2[row] = math.sqrt(sq)
            n1[row] = ab
    return first_f, first_g, scale_f, scale_g, block, n2, n1, longest


@njit(**JIT_OPTIONS)
def accept_row_outputs(h, rows, first_f, first_g, scale_f, scale_g, n2, n1, theta, length_f,
                       length_g, top, m_start, error_factor, drop, tolerance, pending, out):
    """Store the outputs of one round of row-by-row tilts whose error bound meets ``tolerance``.

    ``h[i, t]`` is row ``rows[i]``'s tilted convolution at ``m = t + first_f[i] + first_g[i]``
    (outputs up to ``top[i]`` only: the windows hold every term of those). Its error bound is
    ``error_factor ||x||_2 ||y||_2 + drop (length_f ||y||_1 + length_g ||x||_1)`` as in
    :func:`combine_tilted_spectra` with one pair. Returns the number accepted per row.
    """
    R = rows.shape[0]
    accepted = np.zeros(R, dtype=np.int64)
    for i in range(R):
        if first_f[i] < 0:
            continue
        r = rows[i]
        bound = (error_factor * n2[i] * n2[R + i]
                 + drop * (length_f[i] * n1[R + i] + length_g[i] * n1[i]))
        offset = first_f[i] + first_g[i]
        for m in range(max(m_start, offset), min(top[i], offset + h.shape[1] - 1) + 1):
            col = m - m_start
            value = h[i, m - offset]
            if pending[r, col] and value * tolerance > bound:
                out[r, col] = math.log(value) + scale_f[i] + scale_g[i] + theta[i] * m
                pending[r, col] = False
                accepted[i] += 1
    return accepted


@njit(**JIT_OPTIONS)
def row_tops(pending, rows, m_start):
    """Top pending output of each row ``rows[i]`` (``m_start - 1`` for a row with none)."""
    tops = np.empty(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        tops[i] = m_start + last_pending_column(pending[rows[i] : rows[i] + 1])
    return tops


@njit(**JIT_OPTIONS)
def next_row_targets(pending, rows, m_start, targets):
    """:func:`next_tilt_target` applied to each row ``rows[i]`` alone, ``targets[i]`` being the
    target of its last tilt: the next targets."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        out[i] = next_tilt_target(pending[rows[i] : rows[i] + 1], m_start, targets[i])[1]
    return out


@njit(**JIT_OPTIONS)
def merged_hull_edges(env_f, env_g, hull_f, hull_g):
    """The edges of two upper concave hulls (``upper_hull`` of ``env_f`` and ``env_g``) merged
    by decreasing slope: ``(slopes, lengths, merged)``, each edge's slope ``(env[b] - env[a]) /
    (b - a)`` and length ``b - a``. ``merged`` is false (and the arrays empty) when a hull's
    computed slopes do not decrease (rounding); the caller then sorts them itself. The merge
    takes the first hull's edge on ties, as a stable sort of the two hulls' edges in turn does.
    """
    n_f = max(hull_f.shape[0] - 1, 0)
    n_g = max(hull_g.shape[0] - 1, 0)
    slopes_f = np.empty(n_f)
    slopes_g = np.empty(n_g)
    for i in range(n_f):
        slopes_f[i] = (env_f[hull_f[i + 1]] - env_f[hull_f[i]]) / float(hull_f[i + 1] - hull_f[i])
        if i > 0 and slopes_f[i] > slopes_f[i - 1]:
            return np.empty(0), np.empty(0, dtype=np.int64), False
    for j in range(n_g):
        slopes_g[j] = (env_g[hull_g[j + 1]] - env_g[hull_g[j]]) / float(hull_g[j + 1] - hull_g[j])
        if j > 0 and slopes_g[j] > slopes_g[j - 1]:
            return np.empty(0), np.empty(0, dtype=np.int64), False
    slopes = np.empty(n_f + n_g)
    lengths = np.empty(n_f + n_g, dtype=np.int64)
    i = 0
    j = 0
    for t in range(n_f + n_g):
        if j >= n_g or (i < n_f and slopes_f[i] >= slopes_g[j]):
            slopes[t] = slopes_f[i]
            lengths[t] = hull_f[i + 1] - hull_f[i]
            i += 1
        else:
            slopes[t] = slopes_g[j]
            lengths[t] = hull_g[j + 1] - hull_g[j]
            j += 1
    return slopes, lengths, True
