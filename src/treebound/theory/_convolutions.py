"""Convolutions of Theorem 9's table rows with a huge dynamic range, by exponentially tilted FFTs.

Internal module of :mod:`treebound.theory._tables` (the constant-weight region of a node's
table): :func:`convolution_sums` takes the children's rows ``a, b >= 2`` and returns, per part
count ``c``, ``sum_{a,b} coef(a, b, c) sum_k pi_l^a(k) pi_r^b(m - k)``. Two routes:

* :func:`tilted_fft_convolutions` — every pair of rows, one tilt for all rows at a time, with
  an a-posteriori error bound; outputs a tilt leaves unresolved are summed directly.
* :func:`factorial_basis_convolutions` — three or more parts on larger subtrees: the rows in
  the falling-factorial basis, where each output row is one convolution
  (:func:`row_tilted_convolutions`, each row tilted along its own envelope), then a triangular
  solve back with its own error bound.
"""

from __future__ import annotations

import math

import numpy as np

from treebound._kernels.factorial_basis import (
    falling_factorial_rows,
    node_sums_direct_rows_factorial,
    solve_falling_factorial,
)
from treebound._kernels.partitioning import node_sums_direct_rows, upper_hull
from treebound._kernels.tilted_convolution import (
    accept_row_outputs,
    accept_tilted_outputs,
    combine_tilted_spectra,
    last_pending_column,
    merged_hull_edges,
    next_row_targets,
    next_tilt_target,
    pending_parts,
    row_tilted_windows,
    row_tops,
    tilted_window_pair,
)

#: Target relative error of every convolution output computed by FFT (before the log).
FFT_RELATIVE_TOLERANCE = 1e-11
# Bound on the max-norm error of an FFT convolution of non-negative x, y (see
# tilted_fft_convolutions): |err| <= FFT_ERROR_FACTOR * eps * log2(N) * ||x||_2 * ||y||_2.
FFT_ERROR_FACTOR = 15.0
#: Terms this many nats below the largest of a sum summed directly beside the FFTs are left out
#: (a relative error below 1e-21 per term, against the FFT outputs' tolerance of 1e-11).
DIRECT_TERM_CUTOFF = -60.0


def _masked_rows(table, first_valid, n_rows):
    """Copy of rows ``0..n_rows`` with rows 0, 1 and columns ``< first_valid`` set to ``-inf``."""
    out = np.full((n_rows + 1, table.shape[1]), -np.inf)
    out[2:] = table[2 : n_rows + 1]
    out[:, :first_valid] = -np.inf
    return out


def convolution_sums(left_leaves, right_leaves, log_left, log_right, n_parts_max, m_start,
                     m_end, log_coef):
    """``log sum_{a,b>=2} coef(a,b,c) sum_{k=L_l}^{m-L_r} pi_l^a(k) pi_r^b(m-k)`` per ``c, m``."""
    C = n_parts_max
    Cl = min(C, log_left.shape[0] - 1)
    Cr = min(C, log_right.shape[0] - 1)
    F = _masked_rows(log_left, left_leaves, Cl)
    G = _masked_rows(log_right, right_leaves, Cr)
    if C < 3 or left_leaves + right_leaves < FACTORIAL_BASIS_MIN_LEAVES * C:
        return tilted_fft_convolutions(F, G, left_leaves, right_leaves, C, m_start, m_end,
                                       log_coef)
    return factorial_basis_convolutions(F, G, left_leaves, right_leaves, C, m_start, m_end,
                                        log_coef)


def factorial_basis_convolutions(F, G, left_leaves, right_leaves, n_parts_max, m_start, m_end,
                                 log_coef):
    """:func:`tilted_fft_convolutions` of three or more rows through the falling-factorial basis.

    The merge counts are those of falling factorials, ``(n)_a (n)_b = sum_c coef(a, b, c)
    (n)_c``, so with ``f(n, k) = sum_a (n)_a pi^a(k)`` the sums ``F(n, m) = sum_c (n)_c N_c(m)``
    are single convolutions ``sum_k f_l(n, k) f_r(n, m - k)``, one per row ``n``, each tilted
    along its own envelope (rows of many classes lie far apart, and one tilt for every row
    leaves the low ones unresolved). They are computed with the tolerance
    ``FFT_RELATIVE_TOLERANCE / FACTORIAL_BASIS_ERROR_SHARE`` and solved back for ``N_c``
    (:func:`solve_falling_factorial`) with an a-posteriori error bound; entries whose bound is
    above ``FFT_RELATIVE_TOLERANCE`` (a row far below the ones under it, e.g. ``c`` near a
    subtree's number of leaves) are computed pair by pair as before.
    """
    C = n_parts_max
    basis_f = falling_factorial_rows(F, C, F.shape[1])
    basis_g = falling_factorial_rows(G, C, G.shape[1])
    error = FFT_RELATIVE_TOLERANCE / FACTORIAL_BASIS_ERROR_SHARE
    basis = row_tilted_convolutions(basis_f, basis_g, left_leaves, right_leaves, m_start, m_end,
                                    tolerance=error)
    out, bad = solve_falling_factorial(basis, error, FFT_RELATIVE_TOLERANCE)
    if bad.any():
        pairwise = tilted_fft_convolutions(F, G, left_leaves, right_leaves, C, m_start, m_end,
                                           log_coef, wanted=bad, bases=(basis_f, basis_g))
        out[bad] = pairwise[bad]
    return out


def tilted_fft_convolutions(F, G, left_leaves, right_leaves, n_parts_max, m_start, m_end,
                            log_coef, tolerance=FFT_RELATIVE_TOLERANCE, wanted=None, bases=None):
    """Convolutions of positive sequences with a huge dynamic range, by tilted FFTs.

    The sequences ``f_a = exp(F[a])`` grow like polynomials of high degree, far beyond what one
    FFT can resolve. With a tilt ``theta``, ``f_a(k) e^{-theta k}`` and ``g_b(j) e^{-theta j}``
    (each rescaled to a maximum of 1) convolve to ``e^{-theta m}`` times the wanted sums, and the
    output whose dominant term lies at both tilted peaks is computed with full relative accuracy.
    The tilt for a target output is read off the sup-convolution of the upper concave hulls of
    the two envelopes (its slope at the target). Entries more than ``TILT_WINDOW`` nats below a
    tilted sequence's maximum are dropped (a window around the peak), which keeps transforms
    short for high-degree subtrees.

    Error control: with ``eta ~ 5 eps log2 N`` the normwise relative error of one transform
    (Higham, *Accuracy and Stability*, section 24.1), the errors of the two forward spectra
    contribute at most ``(1/N) sum_j |dX_j| |Y_j| <= eta ||x||_2 ||y||_2`` each to any output
    (Cauchy–Schwarz and Parseval), and the inverse transform, whose outputs are butterfly sums,
    at most ``eta (1/N) sum_j |X_j Y_j| <= eta ||x||_2 ||y||_2``. So every output is off by at most
    ``E = sum_{a,b} w_ab (15 eps log2(N) ||x_a||_2 ||y_b||_2 + e^{-W} (n_f ||y_b||_1 + n_g
    ||x_a||_1))``, the second part covering the dropped entries, and is accepted only when
    ``E <= tolerance * value``; all terms are positive, so nothing cancels below that bound.
    Outputs no tilt resolves are summed directly. Tilts are placed from the top output
    downwards, each centred just below the band the previous one resolved.

    Per tilt, the rows of both sides are windowed into one block and transformed by one batched
    real FFT (each row's transform is the same computation as alone, so ``eta`` is unchanged); the
    spectra of all output rows ``c`` are combined in a kernel, which also sums ``E`` per row
    ``c`` with the same weights, and inverted by one batched transform.

    ``wanted`` (optional boolean ``(C + 1, m_end - m_start + 1)``): only those outputs are
    computed (the others are ``-inf``). ``bases``: :func:`falling_factorial_rows` of ``F`` and
    ``G`` when the caller has them (else computed on the first direct sum that needs them).
    """
    import scipy.fft  # ~0.3 s to import: loaded only when a sum needs the FFT

    C = n_parts_max
    n_out = m_end - m_start + 1
    out = np.full((C + 1, n_out), -np.inf)
    rows_a = np.array([a for a in range(2, F.shape[0]) if np.any(np.isfinite(F[a]))],
                      dtype=np.int64)
    rows_b = np.array([b for b in range(2, G.shape[0]) if np.any(np.isfinite(G[b]))],
                      dtype=np.int64)
    # Output rows c with at least one pair (a, b) of finite rows and a nonzero merge count.
    has_pairs = np.zeros(C + 1, dtype=bool)
    if rows_a.size and rows_b.size:
        has_pairs[2:] = np.isfinite(log_coef[np.ix_(rows_a, rows_b)][:, :, 2 : C + 1]).any(
            axis=(0, 1))
    pending = np.zeros((C + 1, n_out), dtype=bool)
    pending[has_pairs] = True
    if wanted is not None:
        pending &= wanted
    if not pending.any():
        return out
    tilt = _TiltSelector(np.max(F[rows_a], axis=0), np.max(G[rows_b], axis=0))
    direct_sums = _DirectRows(F, G, C, bases)
    eps = np.finfo(np.float64).eps
    drop = math.exp(-TILT_WINDOW)
    target = m_end
    n_pending = int(np.count_nonzero(pending))
    top = m_start + last_pending_column(pending)
    n_a = rows_a.shape[0]
    while True:
        target = min(target, top)
        theta = tilt(target)
        len_f = top - right_leaves + 1
        len_g = top - left_leaves + 1
        # Every row's window of both sides in one block: one batched transform.
        lo_f, width_f, lo_g, width_g, block, scale, n2, n1 = tilted_window_pair(
            F, rows_a, len_f, G, rows_b, len_g, theta, TILT_WINDOW)
        if lo_f < 0 or lo_g < 0:
            break
        N = scipy.fft.next_fast_len(width_f + width_g - 1, real=True)
        # Conv index i holds output m = i + lo_f + lo_g.
        i_lo = max(m_start - lo_f - lo_g, 0)
        i_hi = min(top - lo_f - lo_g, N - 1)
        parts = pending_parts(pending, has_pairs, top - m_start)
        pending_per_row = np.count_nonzero(pending, axis=1)
        accepted = 0
        if i_hi >= i_lo and parts.size:
            spectra = scipy.fft.rfft(block, N, axis=1)
            spec, shift, bound, usable = combine_tilted_spectra(
                spectra[:n_a], spectra[n_a:], rows_a, rows_b, scale[:n_a], scale[n_a:],
                n2[:n_a], n2[n_a:], n1[:n_a], n1[n_a:], log_coef, parts,
                FFT_ERROR_FACTOR * eps * math.log2(N), drop, len_f, len_g)
            h = scipy.fft.irfft(spec, N, axis=1)
            accepted = accept_tilted_outputs(h, parts, usable, shift, bound, i_lo, i_hi,
                                             lo_f + lo_g, m_start, theta, tolerance, pending,
                                             out)
        n_pending -= accepted
        # Rows whose top output this tilt did not resolve are summed directly there: just the top
        # one when the tilt made progress in those rows, else a block below it, every row (a
        # corner of the envelopes that no single tilt centres, e.g. where a subtree's bound leaves
        # the Stirling regime, or a row of many classes far below the envelope the tilts follow).
        stuck = pending[:, top - m_start].copy()
        if stuck.any():
            progress = np.count_nonzero(pending[stuck], axis=1) < pending_per_row[stuck]
            size = 1 if progress.any() else DIRECT_BLOCK
            lo = max(m_start, top - size + 1)
            sl = slice(lo - m_start, top - m_start + 1)
            # The stuck rows, or every row pending in the block (often one or two rows: fewer
            # pairs to sum).
            rows = stuck if size == 1 else pending[:, sl].any(axis=1)
            direct = direct_sums.rows(left_leaves, right_leaves, lo, top, log_coef, rows)
            summed = pending[:, sl] & rows[:, None]
            out[:, sl] = np.where(summed, direct, out[:, sl])
            n_pending -= int(np.count_nonzero(summed))
            pending[:, sl] &= ~summed
        if not n_pending:
            break
        # Centre the next tilt just below the band this one resolved (bands scale with m).
        top, target = next_tilt_target(pending, m_start, target)
    # Anything left (no usable window) is summed directly.
    for col in np.flatnonzero(pending.any(axis=0)):
        direct = direct_sums.rows(left_leaves, right_leaves, m_start + col, m_start + col,
                                  log_coef, pending[:, col])
        out[pending[:, col], col] = direct[pending[:, col], 0]
    return out


def row_tilted_convolutions(F, G, left_leaves, right_leaves, m_start, m_end,
                            tolerance=FFT_RELATIVE_TOLERANCE):
    """``log sum_k exp(F[r, k] + G[r, m - k])`` for every row ``r >= 2`` and ``m_start <= m <=
    m_end``: one convolution per row, each row tilted along its own envelope.

    The method and error bound of :func:`tilted_fft_convolutions` with one pair per output row,
    but every round gives each row with pending outputs its own tilt (centred on its own top
    pending output) in one batched transform, so rows far apart progress together.
    """
    import scipy.fft  # lazily, as above

    C = F.shape[0] - 1
    n_out = m_end - m_start + 1
    out = np.full((C + 1, n_out), -np.inf)
    pending = np.zeros((C + 1, n_out), dtype=bool)
    rows = [r for r in range(2, min(C, G.shape[0] - 1) + 1)
            if np.isfinite(F[r]).any() and np.isfinite(G[r]).any()]
    pending[rows] = True
    diagonal = np.full((C + 1, C + 1, C + 1), -np.inf)
    for r in rows:
        diagonal[r, r, r] = 0.0
    selectors = {r: _TiltSelector(F[r], G[r]) for r in rows}
    target_of = np.full(C + 1, m_end, dtype=np.int64)
    eps = np.finfo(np.float64).eps
    drop = math.exp(-TILT_WINDOW)
    active = np.flatnonzero(pending.any(axis=1))
    while active.size:
        top = row_tops(pending, active, m_start)
        targets = np.minimum(target_of[active], top)
        theta = np.array([selectors[r](t) for r, t in zip(active.tolist(), targets.tolist(),
                                                           strict=True)])
        len_f = top - right_leaves + 1
        len_g = top - left_leaves + 1
        first_f, first_g, scale_f, scale_g, block, n2, n1, longest = row_tilted_windows(
            F, G, active, theta, len_f, len_g, TILT_WINDOW)
        N = scipy.fft.next_fast_len(int(longest), real=True)
        spectra = scipy.fft.rfft(block, N, axis=1)
        h = scipy.fft.irfft(spectra[: active.size] * spectra[active.size :], N, axis=1)
        accepted = accept_row_outputs(h, active, first_f, first_g, scale_f, scale_g, n2, n1,
                                      theta, len_f, len_g, top, m_start,
                                      FFT_ERROR_FACTOR * eps * math.log2(N), drop, tolerance,
                                      pending, out)
        stuck = pending[active, top - m_start]
        for i in np.flatnonzero(stuck).tolist():  # top output unresolved: summed directly
            r, t = int(active[i]), int(top[i])
            lo = t if accepted[i] else max(m_start, t - DIRECT_BLOCK + 1)
            wanted = np.zeros(C + 1, dtype=bool)
            wanted[r] = True
            direct = node_sums_direct_rows(F, G, left_leaves, right_leaves, 0.0, lo, t, False,
                                           diagonal, wanted, DIRECT_TERM_CUTOFF)
            sl = slice(lo - m_start, t - m_start + 1)
            out[r, sl] = np.where(pending[r, sl], direct[r], out[r, sl])
            pending[r, sl] = False
        target_of[active] = targets
        active = active[pending[active].any(axis=1)]
        # Centre each row's next tilt just below the band this one resolved.
        target_of[active] = next_row_targets(pending, active, m_start, target_of[active])
    return out


#: Sums of ``C >= 3`` rows go through the falling-factorial basis when the two children have at
#: least this many leaves per row between them (below, rows near the leaf count are far below
#: the ones under them and most entries would be solved pair by pair anyway; chosen on yeast and
#: segmentation: 4 was faster than 0, 1, 2 and 16 on both, same tables).
FACTORIAL_BASIS_MIN_LEAVES = 4
#: Relative tolerance of the basis sums, as a share of FFT_RELATIVE_TOLERANCE: the solve back
#: may then amplify their error this many times and still meet the tolerance.
FACTORIAL_BASIS_ERROR_SHARE = 8.0

#: Direct sums beside the FFTs go through the falling-factorial basis (one sum per row, not one
#: per pair of rows) where the triangular solve back loses at most this factor of accuracy.
FACTORIAL_BASIS_AMPLIFICATION = 64.0
#: Outputs summed directly after a tilt that resolved nothing (see tilted_fft_convolutions).
DIRECT_BLOCK = 64
#: Entries of a tilted sequence more than this many nats below its maximum are dropped.
TILT_WINDOW = 60.0


class _DirectRows:
    """Direct sums of selected rows beside the FFTs: pair by pair up to 2 rows, else in the
    falling-factorial basis (the children's tables converted on the first call, only the
    columns ``k <= m_end`` the sums read, and again with twice as many when a later call reads
    further: each column of the basis is computed from its own column alone, so these are the
    full basis's numbers; the outputs summed directly are mostly at small ``m``)."""

    def __init__(self, F, G, n_rows, bases=None):
        self.F, self.G, self.n_rows = F, G, n_rows
        self._bases = bases

    def rows(self, left_leaves, right_leaves, m_start, m_end, log_coef, rows):
        F, G = self.F, self.G
        if self.n_rows <= 2:
            return node_sums_direct_rows(F, G, left_leaves, right_leaves, 0.0, m_start, m_end,
                                         False, log_coef, rows, DIRECT_TERM_CUTOFF)
        if self._bases is None or self._bases[0].shape[1] <= m_end:
            have = 0 if self._bases is None else self._bases[0].shape[1]
            width = min(max(m_end + 1, 2 * have), F.shape[1])
            self._bases = (falling_factorial_rows(F, self.n_rows, width),
                           falling_factorial_rows(G, self.n_rows, min(width, G.shape[1])))
        return node_sums_direct_rows_factorial(F, G, *self._bases, left_leaves, right_leaves,
                                               0.0, m_start, m_end, False, log_coef, rows,
                                               DIRECT_TERM_CUTOFF, FACTORIAL_BASIS_AMPLIFICATION)


class _TiltSelector:
    """Slope of the sup-convolution of the two envelopes' upper concave hulls at an output m.

    For concave envelopes the tilted peaks ``argmax_k (F(k) - theta k)`` sit where the hull's
    slope crosses ``theta``; the output whose dominant term is at both peaks is reached by
    walking the two hulls' edges merged in decreasing slope order (Minkowski sum).
    """

    def __init__(self, env_f, env_g):
        hf, hg = upper_hull(env_f), upper_hull(env_g)
        self.start = int(hf[0] + hg[0])
        slopes, lengths, merged = merged_hull_edges(env_f, env_g, hf, hg)
        if merged:  # the two hulls' edges merged in one pass (the order a stable sort gives)
            if slopes.shape[0]:
                self.slopes, self.ends = slopes, np.cumsum(lengths)
            else:
                self.slopes = np.zeros(1)
                self.ends = np.zeros(1, dtype=np.int64)
            return
        slopes, lengths = [], []
        for env, hull in ((env_f, hf), (env_g, hg)):
            if hull.shape[0] > 1:
                dk = np.diff(hull)
                slopes.append(np.diff(env[hull]) / dk)
                lengths.append(dk)
        self.start = int(hf[0] + hg[0])
        if slopes:
            s = np.concatenate(slopes)
            order = np.argsort(-s, kind="stable")
            self.slopes = s[order]
            self.ends = np.cumsum(np.concatenate(lengths)[order])
        else:
            self.slopes = np.zeros(1)
            self.ends = np.zeros(1, dtype=np.int64)

    def __call__(self, target):
        pos = target - self.start
        if pos <= 0:
            return float(max(self.slopes[0], 0.0))
        i = int(np.searchsorted(self.ends, pos, side="left"))
        if i >= self.slopes.shape[0]:
            return float(max(self.slopes[-1], 0.0))
        if self.ends[i] == pos and i + 1 < self.slopes.shape[0]:
            # The target is a hull vertex: any slope between the two edges centres it.
            return float(max(0.5 * (self.slopes[i] + self.slopes[i + 1]), 0.0))
        return float(max(self.slopes[i], 0.0))
