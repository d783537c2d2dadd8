"""Weighted medians and absolute errors of every prefix and suffix of a row order: the
``absolute_error`` criterion, with scikit-learn's numerics.

For the rows of a node taken in some order (sorted by a feature), :func:`prefix_absolute_errors`
gives for every prefix ``rows[:i + 1]`` (forward) or suffix ``rows[i:]`` (backward) its weighted
median and its absolute error ``sum w |y - median|`` in O(n log n): each row is activated at the
rank of its target in a Fenwick tree of weights and weighted targets, the median is where the
cumulative weight crosses half the total, and the error follows from the pinball identity
``(S_right - m W_right) + (m W_left - S_left)``. This is scikit-learn's method (its
``WeightedFenwickTree`` and ``precompute_absolute_errors``), and the median is its definition:
the smallest target whose cumulative weight exceeds half the total, or the midpoint of two
targets when the cumulative weight is exactly half between them.

A cut between positions ``i`` and ``i + 1`` of the order then costs O(1): left error at ``i``,
right error at ``i + 1``.
"""

from __future__ import annotations

from treebound._config import NO_NRT_INLINE_JIT_OPTIONS, NO_NRT_JIT_OPTIONS, njit
from treebound._kernels.sorting import stable_argsort


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def fenwick_reset(tree_w, tree_wy, size):
    """Empty Fenwick tree over ranks ``0 .. size - 1``; returns the largest power of two
    ``<= size`` (where the search starts)."""
    for i in range(size + 1):
        tree_w[i] = 0.0
        tree_wy[i] = 0.0
    p = 1
    while p <= size:
        p <<= 1
    return p >> 1


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def fenwick_add(tree_w, tree_wy, size, rank, y, w):
    """Activate a row of target ``y`` and weight ``w`` at ``rank``."""
    wy = w * y
    i = rank + 1
    while i <= size:
        tree_w[i] += w
        tree_wy[i] += wy
        i += i & -i


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def fenwick_search(tree_w, tree_wy, size, max_pow2, target):
    """``(rank, prev_rank, w_below, wy_below)``: the smallest activated rank whose cumulative
    weight exceeds ``target`` with the weight and weighted target strictly below it; when the
    cumulative weight equals ``target`` exactly at some rank, ``prev_rank`` is that rank (the
    median is then the midpoint of the two), else ``prev_rank == rank``."""
    current = 0
    cum_w = 0.0
    cum_wy = 0.0
    bit = max_pow2
    equal_bit = 0
    equal_target = 0.0
    exact = False
    while bit != 0:
        nxt = current + bit
        if nxt <= size:
            node_w = tree_w[nxt]
            if target == node_w:
                equal_target = target
                equal_bit = bit
                exact = True
                break
            elif target > node_w:
                target -= node_w
                current = nxt
                cum_w += node_w
                cum_wy += tree_wy[nxt]
        bit >>= 1
    if not exact:
        return current, current, cum_w, cum_wy
    # the largest rank whose cumulative weight is below the original target
    prev = current
    while bit != 0:
        nxt = prev + bit
        if nxt <= size:
            node_w = tree_w[nxt]
            if target > node_w:
                target -= node_w
                prev = nxt
        bit >>= 1
    # then the largest rank whose cumulative weight is at most the target
    bit = equal_bit
    target = equal_target
    while bit != 0:
        nxt = current + bit
        if nxt <= size:
            node_w = tree_w[nxt]
            if target >= node_w:
                target -= node_w
                current = nxt
                cum_w += node_w
                cum_wy += tree_wy[nxt]
        bit >>= 1
    return current, prev, cum_w, cum_wy


@njit(**NO_NRT_JIT_OPTIONS)
def rank_targets(rows, row, start, end, y, k, keys, perm, perm_scratch, sorted_y, rank_of):
    """Sort the targets ``y[s, k]`` of ``rows[row, start:end]``: ``sorted_y[:n]`` and the rank of
    each row's target, ``rank_of[s]`` (ties get distinct ranks in row order)."""
    n = end - start
    for i in range(n):
        keys[i] = y[rows[row, start + i], k]
    stable_argsort(keys, n, perm, perm_scratch)
    for r in range(n):
        i = perm[r]
        sorted_y[r] = keys[i]
        rank_of[rows[row, start + i]] = r


@njit(**NO_NRT_JIT_OPTIONS)
def prefix_absolute_errors(rows, row, start, end, forward, w, sorted_y, rank_of, tree_w, tree_wy,
                           errors, medians):
    """Median and absolute error of every prefix (``forward``) or suffix of
    ``rows[row, start:end]``: position ``i`` (0-based in the segment) gets the set ending
    (forward) or starting (backward) there. ``errors`` are incremented (outputs add up),
    ``medians`` overwritten. Ranks come from :func:`rank_targets` on the same rows."""
    n = end - start
    max_pow2 = fenwick_reset(tree_w, tree_wy, n)
    total_w = 0.0
    total_wy = 0.0
    for step in range(n):
        i = step if forward else n - 1 - step
        s = rows[row, start + i]
        ws = w[s]
        r = rank_of[s]
        fenwick_add(tree_w, tree_wy, n, r, sorted_y[r], ws)
        total_w += ws
        total_wy += ws * sorted_y[r]
        rank, prev, w_left, wy_left = fenwick_search(tree_w, tree_wy, n, max_pow2,
                                                     0.5 * total_w)
        if rank != prev:
            median = (sorted_y[prev] + sorted_y[rank]) / 2
        else:
            median = sorted_y[rank]
        w_right = total_w - w_left
        wy_right = total_wy - wy_left
        medians[i] = median
        errors[i] += (wy_right - median * w_right) + (median * w_left - wy_left)
