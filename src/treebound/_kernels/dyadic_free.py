"""Free dyadic decision trees: the exact dynamic program of section VI, as a bounded search.

The DP of the paper is ``best(A) = min(leaf cost of A, min_s best(A^{s,1}) + best(A^{s,2}))``
over the cells ``A`` of ``A_M`` (at most ``L`` splits per coordinate). Most cells are empty or
pure, and most of the rest are provably leaves
(:func:`treebound._kernels.dyadic.split_lower_bound`); the search below visits the remaining cells depth-first, memoized by cell, and in addition cuts
branches with upper bounds, in the manner of the DL8.5 / MurTree optimal-tree searches:

* ``solve(A, ub)`` returns ``best(A)`` exactly when it is below ``ub``; otherwise it returns a
  lower bound ``>= ub`` (and proves ``best(A) >=`` that bound);
* the splits of ``A`` are tried in increasing order of ``LB(A^{s,1}) + LB(A^{s,2})`` (children's
  lower bounds: exact values of solved or leaf cells, bounds otherwise), and a split is dropped as
  soon as its lower bound reaches ``min(best so far, ub)``;
* the first child is solved with ``ub - LB(second)``, the second with ``ub - best(first)``.

The memo keeps, per cell, either the exact optimum and its split, or the best lower bound proved
so far (a later call with a larger ``ub`` searches again). Every value returned for the root is
therefore the exact minimum of Eq. (1) over ``T_M``. Ties go to the leaf, then to the split tried
first (lowest bound, then lowest coordinate).
"""

from __future__ import annotations

import numpy as np

from treebound._config import JIT_OPTIONS, njit
from treebound._kernels.array_copy import copy_prefix, copy_row
from treebound._kernels.dyadic import (
    COST_TOLERANCE,
    EMPTY_KEY,
    STATUS_BUDGET_EXCEEDED,
    STATUS_OK,
    child_key,
    find_slot,
    grow_table,
    heap_level,
    key_layout,
    leaf_cost,
    new_nodes,
    new_table,
    partition_by_bit,
    split_lower_bound,
    table_lookup,
    write_key,
)

_INFINITY = 1e300

# Frame phases of the depth-first search.
_ENTER = 0
_NEXT_SPLIT = 1
_WAIT_LOWER = 2
_WAIT_UPPER = 3


@njit(**JIT_OPTIONS)
def _count_children(grid, points, lo, class_counts, levels, splittable, resolution, out):
    """``out[s, side, k]``: class-k examples of the cell in half ``side`` along coordinate s.

    The cell's examples ``points[lo:]`` are grouped by class (``class_counts[k]`` of class k, in
    class order), so each count is a plain sum over a contiguous run.
    """
    start = lo
    for k in range(class_counts.shape[0]):
        stop = start + class_counts[k]
        for s in range(grid.shape[1]):
            if splittable[s]:
                shift = resolution - 1 - levels[s]
                upper = 0
                for p in range(start, stop):
                    upper += (grid[points[p], s] >> shift) & 1
                out[s, 0, k] = class_counts[k] - upper
                out[s, 1, k] = upper
        start = stop


@njit(**JIT_OPTIONS)
def _can_split(levels, active, resolution, raised):
    """Whether a cell (with coordinate ``raised`` one level deeper, if >= 0) can be split."""
    for t in range(levels.shape[0]):
        if active[t] and levels[t] + (1 if t == raised else 0) < resolution:
            return True
    return False


@njit(**JIT_OPTIONS)
def _with_room(points, needed):
    """``points``, or a copy twice as long when fewer than ``needed`` entries fit."""
    if needed <= points.shape[0]:
        return points
    size = points.shape[0]
    while size < needed:
        size *= 2
    grown = np.empty(size, dtype=points.dtype)
    copy_prefix(points, grown, points.shape[0])
    return grown


@njit(**JIT_OPTIONS)
def _push(grid, points, f, s, side, resolution, heap, levels, frame_key, key, seg_lo, seg_hi,
          upper, phase, ub, counts, class_counts):
    """Open frame ``f + 1`` for half ``side`` of frame f's cell along ``s``, bounded by ``ub``.

    The stable partition keeps the child's examples grouped by class.
    """
    shift = resolution - 1 - levels[f, s]
    lo = seg_hi[f]
    top = lo
    for p in range(seg_lo[f], seg_hi[f]):
        i = points[p]
        if (grid[i, s] >> shift) & 1 == side:
            points[top] = i
            top += 1
    c = f + 1
    copy_row(heap, f, heap, c)
    copy_row(levels, f, levels, c)
    heap[c, s] = 2 * heap[f, s] + side
    levels[c, s] += 1
    for j in range(key.shape[0]):
        frame_key[c, j] = key[j]
    seg_lo[c] = lo
    seg_hi[c] = top
    upper[c] = ub
    phase[c] = _ENTER
    for j in range(class_counts.shape[1]):
        class_counts[c, j] = counts[f, s, side, j]
    return c


@njit(**JIT_OPTIONS)
def solve_free(columns, y, n_classes, resolution, active, kind, pen_a, pen_b, per_leaf, inv_n,
               max_cells):
    """Exact minimum of Eq. (1) over free DDTs whose splits use coordinates with ``active``.

    ``columns`` is the grid transposed (see :mod:`treebound._kernels.dyadic`).

    Returns ``(status, root_cost, keys, values, splits, exact, n_cells)``: the memo table (see
    :func:`treebound._kernels.dyadic.new_table`) and the number of cells stored in it;
    ``status`` is ``STATUS_BUDGET_EXCEEDED`` (and the rest meaningless) as soon as storing one
    more cell would exceed ``max_cells``.
    """
    grid = columns.T
    n_samples, n_features = grid.shape
    bits, per_word, n_words = key_layout(n_features, resolution)
    n_frames = resolution * n_features + 2
    keys, values, splits, exact = new_table(1024, n_words)
    n_cells = 0

    heap = np.ones((n_frames, n_features), dtype=np.int64)
    levels = np.zeros((n_frames, n_features), dtype=np.int64)
    frame_key = np.zeros((n_frames, n_words), dtype=np.uint64)
    seg_lo = np.zeros(n_frames, dtype=np.int64)
    seg_hi = np.zeros(n_frames, dtype=np.int64)
    upper = np.zeros(n_frames, dtype=np.float64)  # the ub of each frame's call
    phase = np.zeros(n_frames, dtype=np.int64)
    counts = np.zeros((n_frames, n_features, 2, n_classes), dtype=np.int64)
    splittable = np.zeros((n_frames, n_features), dtype=np.bool_)
    child_bound = np.zeros((n_frames, n_features, 2), dtype=np.float64)
    child_exact = np.zeros((n_frames, n_features, 2), dtype=np.bool_)
    child_keys = np.zeros((n_frames, n_features, 2, n_words), dtype=np.uint64)
    split_bound = np.zeros((n_frames, n_features), dtype=np.float64)
    order = np.zeros((n_frames, n_features), dtype=np.int64)
    n_order = np.zeros(n_frames, dtype=np.int64)
    position = np.zeros(n_frames, dtype=np.int64)
    best = np.zeros(n_frames, dtype=np.float64)
    best_split = np.zeros(n_frames, dtype=np.int64)
    lower_acc = np.zeros(n_frames, dtype=np.float64)  # lower bound proved if the call fails
    first_value = np.zeros(n_frames, dtype=np.float64)
    class_counts = np.zeros((n_frames, n_classes), dtype=np.int64)

    # The root's examples grouped by class (stable partitions keep every cell's list grouped);
    # each open frame's list follows its parent's, so the buffer grows only on deep paths.
    points = np.empty(4 * n_samples, dtype=np.int64)
    for i in range(n_samples):
        class_counts[0, y[i]] += 1
    starts = np.zeros(n_classes, dtype=np.int64)
    for k in range(1, n_classes):
        starts[k] = starts[k - 1] + class_counts[0, k - 1]
    for i in range(n_samples):
        points[starts[y[i]]] = i
        starts[y[i]] += 1
    root_leaf = leaf_cost(kind, class_counts[0], 0, pen_a, pen_b, per_leaf, inv_n)
    if (not _can_split(levels[0], active, resolution, -1)
            or root_leaf <= split_lower_bound(kind, class_counts[0], 0, pen_a, pen_b, per_leaf,
                                              inv_n)):
        return STATUS_OK, root_leaf, keys, values, splits, exact, n_cells

    write_key(heap[0], bits, per_word, frame_key[0])
    seg_hi[0] = n_samples
    upper[0] = _INFINITY
    phase[0] = _ENTER
    sp = 0
    returned = 0.0
    returned_exact = True
    while sp >= 0:
        f = sp
        finish = False
        if phase[f] == _ENTER:
            for s in range(n_features):
                splittable[f, s] = active[s] and levels[f, s] < resolution
            _count_children(grid, points, seg_lo[f], class_counts[f], levels[f], splittable[f],
                            resolution, counts[f])
            leaf = leaf_cost(kind, class_counts[f], f, pen_a, pen_b, per_leaf, inv_n)
            best[f] = leaf
            best_split[f] = -1
            lower_acc[f] = leaf
            cell_bound = leaf
            n = 0
            for s in range(n_features):
                if not splittable[f, s]:
                    continue
                for side in range(2):
                    c_counts = counts[f, s, side]
                    c_leaf = leaf_cost(kind, c_counts, f + 1, pen_a, pen_b, per_leaf, inv_n)
                    c_split = split_lower_bound(kind, c_counts, f + 1, pen_a, pen_b, per_leaf,
                                                inv_n)
                    child_exact[f, s, side] = True
                    child_bound[f, s, side] = c_leaf
                    if c_leaf > c_split and _can_split(levels[f], active, resolution, s):
                        key = child_keys[f, s, side]
                        child_key(frame_key[f], s, heap[f, s], 2 * heap[f, s] + side, bits,
                                  per_word, key)
                        slot = table_lookup(keys, key)
                        if slot >= 0 and exact[slot]:
                            child_bound[f, s, side] = values[slot]
                        else:
                            child_exact[f, s, side] = False
                            child_bound[f, s, side] = c_split
                            if slot >= 0 and values[slot] > c_split:
                                child_bound[f, s, side] = values[slot]
                bound_s = child_bound[f, s, 0] + child_bound[f, s, 1]
                split_bound[f, s] = bound_s
                if bound_s < cell_bound:
                    cell_bound = bound_s
                # insertion sort by bound, ties by coordinate
                q = n
                while q > 0 and split_bound[f, order[f, q - 1]] > bound_s:
                    order[f, q] = order[f, q - 1]
                    q -= 1
                order[f, q] = s
                n += 1
            n_order[f] = n
            position[f] = 0
            phase[f] = _NEXT_SPLIT
            if cell_bound >= upper[f]:
                lower_acc[f] = cell_bound
                finish = True
        elif phase[f] == _WAIT_LOWER:
            s = order[f, position[f]]
            phase[f] = _NEXT_SPLIT
            bound = min(best[f], upper[f])
            if not returned_exact:
                lower_acc[f] = min(lower_acc[f], returned + child_bound[f, s, 1])
                position[f] += 1
            elif child_exact[f, s, 1]:
                _consider(f, s, returned + child_bound[f, s, 1], best, best_split, lower_acc)
                position[f] += 1
            elif returned + child_bound[f, s, 1] >= bound:
                lower_acc[f] = min(lower_acc[f], returned + child_bound[f, s, 1])
                position[f] += 1
            else:
                first_value[f] = returned
                phase[f] = _WAIT_UPPER
                points = _with_room(points, 2 * seg_hi[f] - seg_lo[f])
                sp = _push(grid, points, f, s, 1, resolution, heap, levels, frame_key,
                           child_keys[f, s, 1], seg_lo, seg_hi, upper, phase, bound - returned,
                           counts, class_counts)
                continue
        elif phase[f] == _WAIT_UPPER:
            s = order[f, position[f]]
            phase[f] = _NEXT_SPLIT
            if returned_exact:
                _consider(f, s, first_value[f] + returned, best, best_split, lower_acc)
            else:
                lower_acc[f] = min(lower_acc[f], first_value[f] + returned)
            position[f] += 1

        # _NEXT_SPLIT: start the next split, or finish the cell
        while not finish:
            if position[f] == n_order[f]:
                finish = True
                break
            s = order[f, position[f]]
            bound = min(best[f], upper[f])
            if split_bound[f, s] >= bound:
                # sorted: no later split can reach below the bound either
                lower_acc[f] = min(lower_acc[f], split_bound[f, s])
                finish = True
                break
            if child_exact[f, s, 0] and child_exact[f, s, 1]:
                _consider(f, s, child_bound[f, s, 0] + child_bound[f, s, 1], best, best_split,
                          lower_acc)
                position[f] += 1
                continue
            if child_exact[f, s, 0]:
                first_value[f] = child_bound[f, s, 0]
                phase[f] = _WAIT_UPPER
                points = _with_room(points, 2 * seg_hi[f] - seg_lo[f])
                sp = _push(grid, points, f, s, 1, resolution, heap, levels, frame_key,
                           child_keys[f, s, 1], seg_lo, seg_hi, upper, phase,
                           bound - child_bound[f, s, 0], counts, class_counts)
            else:
                phase[f] = _WAIT_LOWER
                points = _with_room(points, 2 * seg_hi[f] - seg_lo[f])
                sp = _push(grid, points, f, s, 0, resolution, heap, levels, frame_key,
                           child_keys[f, s, 0], seg_lo, seg_hi, upper, phase,
                           bound - child_bound[f, s, 1], counts, class_counts)
            break
        if not finish:
            continue

        # store the result of this call and return it to the parent frame
        returned_exact = best[f] < upper[f]
        returned = best[f] if returned_exact else lower_acc[f]
        slot = find_slot(keys, frame_key[f])
        if keys[slot, 0] == EMPTY_KEY:
            if n_cells >= max_cells:
                return STATUS_BUDGET_EXCEEDED, 0.0, keys, values, splits, exact, n_cells
            n_cells += 1
            if 2 * n_cells > keys.shape[0]:
                keys, values, splits, exact = grow_table(keys, values, splits, exact)
                slot = find_slot(keys, frame_key[f])
            copy_row(frame_key, f, keys, slot)
        values[slot] = returned
        splits[slot] = best_split[f] if returned_exact else -1
        exact[slot] = returned_exact
        sp -= 1
    return STATUS_OK, returned, keys, values, splits, exact, n_cells


@njit(**JIT_OPTIONS)
def _consider(f, s, candidate, best, best_split, lower_acc):
    """Record the cost of split ``s`` of frame f's cell (ties keep the earlier choice)."""
    if candidate < best[f] - COST_TOLERANCE:
        best[f] = candidate
        best_split[f] = s
    if candidate < lower_acc[f]:
        lower_acc[f] = candidate


@njit(**JIT_OPTIONS)
def extract_free(columns, y, n_classes, resolution, keys, splits, exact, n_cells):
    """The optimal tree of a :func:`solve_free` memo as node arrays in breadth-first order.

    ``columns`` is the grid transposed (see :mod:`treebound._kernels.dyadic`).

    Returns ``(first_child, feature, boundary, counts, depth)`` (see
    :func:`treebound._kernels.dyadic.new_nodes`); ``counts`` are the class counts of the
    training examples routed to each node.
    """
    grid = columns.T
    n_samples, n_features = grid.shape
    bits, per_word, n_words = key_layout(n_features, resolution)
    capacity = 2 * n_cells + 1
    first_child, feature, boundary, counts, depth = new_nodes(capacity, n_classes)
    heap = np.ones((capacity, n_features), dtype=np.int64)
    seg_lo = np.zeros(capacity, dtype=np.int64)
    seg_hi = np.zeros(capacity, dtype=np.int64)
    order = np.arange(n_samples)
    scratch = np.empty(n_samples, dtype=np.int64)
    key = np.zeros(n_words, dtype=np.uint64)
    seg_hi[0] = n_samples
    n_nodes = 1
    head = 0
    while head < n_nodes:
        for p in range(seg_lo[head], seg_hi[head]):
            counts[head, y[order[p]]] += 1
        s = -1
        if n_cells > 0:
            write_key(heap[head], bits, per_word, key)
            slot = table_lookup(keys, key)
            if slot >= 0 and exact[slot]:
                s = splits[slot]
        if s >= 0:
            level = heap_level(heap[head, s])
            index = heap[head, s] - (1 << level)
            shift = resolution - 1 - level
            middle = partition_by_bit(grid, order, seg_lo[head], seg_hi[head], s, shift, scratch)
            feature[head] = s
            boundary[head] = (2 * index + 1) << shift
            first_child[head] = n_nodes
            for side in range(2):
                c = n_nodes + side
                copy_row(heap, head, heap, c)
                heap[c, s] = 2 * heap[head, s] + side
                depth[c] = depth[head] + 1
            seg_lo[n_nodes] = seg_lo[head]
            seg_hi[n_nodes] = middle
            seg_lo[n_nodes + 1] = middle
            seg_hi[n_nodes + 1] = seg_hi[head]
            n_nodes += 2
        head += 1
    return (first_child[:n_nodes], feature[:n_nodes], boundary[:n_nodes], counts[:n_nodes],
            depth[:n_nodes])
