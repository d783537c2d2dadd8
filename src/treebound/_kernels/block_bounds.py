"""numba kernel of a lower bound on Theorem 9's sums from a coarse grid of points.

Theorem 9's values ``pi^c(m)`` of a shape are nondecreasing in ``m`` (the proof is in
:mod:`treebound.theory._pruned_shapes`), so over a block of ``k`` a term ``pi_l^a(k)
pi_r^b(m - k)`` is at least the left value at the block's first ``k`` times the right value
at the grid point at or below ``m`` minus its last ``k``: a sum over ``k`` is at least a sum
over blocks of these products times the block's number of terms. Plain arrays in and out, like
:mod:`treebound._kernels.partitioning`, whose ``combine_pairs`` this uses.
"""

from __future__ import annotations

import math

import numpy as np

from treebound._config import JIT_OPTIONS, njit
from treebound._kernels.partitioning import NEG_INF, combine_pairs


@njit(**JIT_OPTIONS)
def block_lower_sums(low_left, low_right, n_left, n_right, step, points, log_weight, log_coef,
                     n_parts_max):
    """Numbers at most Theorem 9's unclipped sums ``log N_c(p)`` at each ``p`` of ``points``.

    ``low_left[a, j]`` is at most ``log pi_l^a(j step)`` and ``low_right[b, j]`` at most
    ``log pi_r^b(j step)`` (grid points ``j step``; values nondecreasing in the number of
    points). Block ``j`` holds the ``k`` of ``[j step, (j + 1) step - 1]`` within Theorem 9's
    range ``[n_left, p - n_right]``, from ``s`` to ``e``: its terms are at least ``exp(
    low_left[a, j] + low_right[b, (p - e) // step])`` each, ``e - s + 1`` of them.
    ``log_weight[i]`` is at most the log of every weight ``min(2 ell, C(p, k))`` of ``points[i]``.
    Returns ``(n_parts_max + 1, len(points))``, rows 0 and 1 ``-inf`` (row 1 is the constant 1).
    Each pair's sum is taken relative to its largest term (one ``exp`` per term).
    """
    n_points = points.shape[0]
    n_a = min(low_left.shape[0], n_parts_max + 1)
    n_b = min(low_right.shape[0], n_parts_max + 1)
    n_grid = low_left.shape[1]
    out = np.full((n_parts_max + 1, n_points), NEG_INF)
    pairs = np.empty((n_a, n_b))
    col = np.empty(n_parts_max + 1)
    block_left = np.empty(n_grid, dtype=np.int64)
    block_right = np.empty(n_grid, dtype=np.int64)
    block_log_count = np.empty(n_grid)
    for i in range(n_points):
        p = points[i]
        n_blocks = 0
        for j in range(n_grid):
            s = max(j * step, n_left)
            e = min((j + 1) * step - 1, p - n_right)
            if s > e:
                continue
            block_left[n_blocks] = j
            block_right[n_blocks] = (p - e) // step
            block_log_count[n_blocks] = math.log(e - s + 1.0)
            n_blocks += 1
        for a in range(n_a):
            for b in range(n_b):
                pairs[a, b] = NEG_INF
        if n_blocks == 0:
            continue
        for a in range(1, n_a):
            for b in range(1, n_b):
                top = NEG_INF
                for t in range(n_blocks):
                    v = (low_left[a, block_left[t]] + low_right[b, block_right[t]]
                         + block_log_count[t])
                    if v > top:
                        top = v
                if top == NEG_INF:
                    continue
                acc = 0.0
                for t in range(n_blocks):
                    v = (low_left[a, block_left[t]] + low_right[b, block_right[t]]
                         + block_log_count[t])
                    if v > NEG_INF:
                        acc += math.exp(v - top)
                pairs[a, b] = top + math.log(acc) + log_weight[i]
        combine_pairs(pairs, log_coef, n_parts_max, col)
        for c in range(2, n_parts_max + 1):
            out[c, i] = col[c]
    return out
