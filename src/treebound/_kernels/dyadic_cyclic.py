"""Cyclic dyadic decision trees (Scott & Nowak 2006, sections II-A and VI-A).

In a cyclic DDT the node at depth ``j`` splits coordinate ``j mod d`` at its midpoint, so
``T_M`` holds one maximal tree (depth ``d L``) and penalized ERM reduces to pruning it. As in
section VI-A only cells holding two classes are grown (T_INIT); cells that
:func:`treebound._kernels.dyadic.split_lower_bound` proves to be leaves are not grown either.
T_INIT has ``O(n d L)`` nodes and is pruned bottom-up in one pass.
"""

from __future__ import annotations

import numpy as np

from treebound._config import JIT_OPTIONS, njit
from treebound._kernels.array_copy import copy_prefix, copy_row, copy_rows
from treebound._kernels.dyadic import (
    COST_TOLERANCE,
    STATUS_BUDGET_EXCEEDED,
    STATUS_OK,
    leaf_cost,
    majority_errors,
    new_nodes,
    partition_by_bit,
    split_lower_bound,
)


@njit(**JIT_OPTIONS)
def _doubled(first_child, feature, boundary, counts, depth, seg_lo, seg_hi, cost):
    capacity = 2 * first_child.shape[0]
    n = first_child.shape[0]
    grown = new_nodes(capacity, counts.shape[1])
    copy_prefix(first_child, grown[0], n)
    copy_prefix(feature, grown[1], n)
    copy_prefix(boundary, grown[2], n)
    copy_rows(counts, grown[3], n)
    copy_prefix(depth, grown[4], n)
    new_lo = np.zeros(capacity, dtype=np.int64)
    new_hi = np.zeros(capacity, dtype=np.int64)
    new_cost = np.zeros(capacity, dtype=np.float64)
    copy_prefix(seg_lo, new_lo, n)
    copy_prefix(seg_hi, new_hi, n)
    copy_prefix(cost, new_cost, n)
    return grown[0], grown[1], grown[2], grown[3], grown[4], new_lo, new_hi, new_cost


@njit(**JIT_OPTIONS)
def solve_cyclic(columns, y, n_classes, resolution, kind, pen_a, pen_b, per_leaf, inv_n, max_nodes):
    """Minimum of Eq. (1) over cyclic DDTs in ``T_M``: grow T_INIT, prune it bottom-up.

    ``columns`` is the grid transposed (see :mod:`treebound._kernels.dyadic`).

    Returns ``(status, root_cost, first_child, feature, boundary, counts, depth, n_grown)``: the
    pruned tree as node arrays in breadth-first order (see
    :func:`treebound._kernels.dyadic.new_nodes`) and the number of T_INIT nodes; ``status`` is
    ``STATUS_BUDGET_EXCEEDED`` when T_INIT would exceed ``max_nodes`` nodes.
    """
    grid = columns.T
    n_samples, n_features = grid.shape
    max_depth = resolution * n_features
    first_child, feature, boundary, counts, depth = new_nodes(64, n_classes)
    seg_lo = np.zeros(64, dtype=np.int64)
    seg_hi = np.zeros(64, dtype=np.int64)
    cost = np.zeros(64, dtype=np.float64)
    order = np.arange(n_samples)
    scratch = np.empty(n_samples, dtype=np.int64)
    seg_hi[0] = n_samples
    n_nodes = 1
    head = 0
    while head < n_nodes:
        for p in range(seg_lo[head], seg_hi[head]):
            counts[head, y[order[p]]] += 1
        j = depth[head]
        cost[head] = leaf_cost(kind, counts[head], j, pen_a, pen_b, per_leaf, inv_n)
        if (majority_errors(counts[head]) > 0 and j < max_depth
                and cost[head] > split_lower_bound(kind, counts[head], j, pen_a, pen_b,
                                                   per_leaf, inv_n)):
            if n_nodes + 2 > max_nodes:
                return (STATUS_BUDGET_EXCEEDED, 0.0, first_child[:0], feature[:0],
                        boundary[:0], counts[:0], depth[:0], n_nodes)
            if n_nodes + 2 > first_child.shape[0]:
                (first_child, feature, boundary, counts, depth, seg_lo, seg_hi,
                 cost) = _doubled(first_child, feature, boundary, counts, depth, seg_lo, seg_hi,
                                  cost)
            s = j % n_features
            level = j // n_features  # earlier splits of s on this path: depths s, s + d, ...
            shift = resolution - 1 - level
            index = grid[order[seg_lo[head]], s] >> (resolution - level)
            middle = partition_by_bit(grid, order, seg_lo[head], seg_hi[head], s, shift, scratch)
            feature[head] = s
            boundary[head] = (2 * index + 1) << shift
            first_child[head] = n_nodes
            depth[n_nodes] = j + 1
            depth[n_nodes + 1] = j + 1
            seg_lo[n_nodes] = seg_lo[head]
            seg_hi[n_nodes] = middle
            seg_lo[n_nodes + 1] = middle
            seg_hi[n_nodes + 1] = seg_hi[head]
            n_nodes += 2
        head += 1

    # Children have larger ids than their parent, so one reverse pass prunes bottom-up.
    best = cost[:n_nodes].copy()
    keep = np.zeros(n_nodes, dtype=np.bool_)
    for i in range(n_nodes - 1, -1, -1):
        c = first_child[i]
        if c >= 0 and best[c] + best[c + 1] < cost[i] - COST_TOLERANCE:
            best[i] = best[c] + best[c + 1]
            keep[i] = True

    # Copy the kept part breadth-first.
    out_first, out_feature, out_boundary, out_counts, out_depth = new_nodes(n_nodes, n_classes)
    source = np.zeros(n_nodes, dtype=np.int64)
    n_out = 1
    head = 0
    while head < n_out:
        old = source[head]
        copy_row(counts, old, out_counts, head)
        out_depth[head] = depth[old]
        if keep[old]:
            out_first[head] = n_out
            out_feature[head] = feature[old]
            out_boundary[head] = boundary[old]
            source[n_out] = first_child[old]
            source[n_out + 1] = first_child[old] + 1
            n_out += 2
        head += 1
    return (STATUS_OK, best[0], out_first[:n_out], out_feature[:n_out], out_boundary[:n_out],
            out_counts[:n_out], out_depth[:n_out], n_nodes)
