"""The tree-growing loop: one compiled loop for every growth policy.

Each node's best test is found when the node is created (so its priority is known). Without a
leaf budget every splittable node is eventually split and the order is irrelevant, so a stack is
used; with ``max_leaf_nodes`` a heap picks the next leaf by the policy's priority (Brutzkus et al. 2020, section 2):

* ``top_down`` (Kearns-Mansour): the gain ``N_l phi(l) - N_l' phi(l') - N_l'' phi(l'')`` (the
  decrease of the tree's total impurity); ``depth_first`` with a budget behaves the same, like
  scikit-learn;
* ``best_first`` (Shi): the gain divided by ``N_l``;
* ``purest_children`` (Leboeuf et al. reference code): the lowest size-normalised child impurity,
  i.e. ``gain / N_l - phi(l)`` largest, and only strictly improving splits.

Heap ties go to the older node (smaller id), so the tree does not depend on the order of the
training rows.

:func:`grow_tree` (plain Python) allocates and owns every array; the splitting itself runs in
:func:`_split_loop`, compiled without numba's reference counting, which returns to
:func:`grow_tree` whenever an array must grow.
"""

from __future__ import annotations

import numpy as np

from treebound._config import JIT_OPTIONS, NO_NRT_INLINE_JIT_OPTIONS, NO_NRT_JIT_OPTIONS, njit
from treebound._kernels.criteria import TASK_REGRESSION, stats_mass, stats_weight
from treebound._kernels.frontier import heap_pop, heap_push
from treebound._kernels.histograms import build_block, remove_samples, subtract_block
from treebound._kernels.node_search import (
    BLOCK_MAX_CODES,
    F_IMPURITY,
    F_P_THRESHOLD,
    F_PRIORITY,
    F_THRESHOLD,
    F_WEIGHT,
    I_BLOCK_ROW,
    I_CATEGORY_OFFSET,
    I_CONST_ROW,
    I_DEPTH,
    I_FEATURE,
    I_FIRST_CHILD,
    I_N_CHILDREN,
    I_N_SAMPLES,
    I_P_FEATURE,
    I_P_LO_CODE,
    I_P_MAP_OFFSET,
    I_P_N_CHILDREN,
    I_SEG_START,
    KIND_CATEGORICAL,
    KIND_HISTOGRAM,
    KIND_PRESORTED,
    N_FLOAT_COLUMNS,
    N_INT_COLUMNS,
    block_worth_it,
    find_best_test,
    stays_leaf,
)
from treebound._kernels.partition import partition_binary, partition_kway
from treebound._kernels.prefetch import prefetch
from treebound._kernels.split_numeric import code_of

# scalar growth state shared between grow_tree and _split_loop
S_N_NODES = 0
S_N_LEAVES = 1
S_N_FRONTIER = 2
S_N_FREE_CONST = 3
S_N_FREE_BLOCKS = 4
S_MAP_USED = 5
N_STATE = 6
#: How many samples ahead the routing loop prefetches codes_t rows.
_PREFETCH = 16


@njit(**JIT_OPTIONS)
def presort_rows(codes, n_codes, presort_row, n_presorted):
    """Samples of every presorted feature sorted by code (counting sort: stable, O(n + codes))."""
    n = codes.shape[1]
    rows = np.empty((max(n_presorted, 1), n), dtype=np.int32)
    for f in range(codes.shape[0]):
        r = presort_row[f]
        if r < 0:
            continue
        counts = np.zeros(n_codes[f] + 1, dtype=np.int64)
        for s in range(n):
            counts[codes[f, s] + 1] += 1
        for j in range(n_codes[f]):
            counts[j + 1] += counts[j]
        for s in range(n):
            c = codes[f, s]
            rows[r, counts[c]] = s
            counts[c] += 1
    return rows


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def _add_sample(stats, base, s, y_cls, y_val, w, task):
    if task == TASK_REGRESSION:
        ws = w[s]
        yv = y_val[s]
        stats[base] += ws
        stats[base + 1] += ws * yv
        stats[base + 2] += ws * yv * yv
    else:
        stats[base + y_cls[s]] += w[s]


@njit(**NO_NRT_JIT_OPTIONS)
def _split_loop(st, ni, nf, nv, const_pool, free_const, blocks, block_counts, free_blocks,
                max_block_rows, block_size, stored_counts, map_pool, frontier, heap_keys,
                samples, presorted, codes, codes_t, n_codes, kind, presort_row, block_slot,
                hist_offset, count_offset, slot_codes, min_cells, active, n_block, cat_codes,
                lo_values, hi_values, value_offset, y_cls, y_val, w, task, width, criterion,
                growth, max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease,
                root_weight, max_leaf_nodes, max_features, multiway, rng, unit_weights, slot_of,
                tmp, cand, left, right, hist, hcount, sort_out, sort_keys, sort_counts, present,
                cat_keys, in_left, slot_map, child_stats, child_counts, child_offsets,
                child_rows, child_keep, positions, order_buf, best_order_buf, perm_buf,
                perm_scratch, node_y):
    """Split frontier nodes until done (returns 0) or an array is too small (returns 1).

    Before each split the capacities needed for its children are checked; on failure nothing
    is changed and the caller grows the arrays and calls again.
    """
    n_features = codes.shape[0]
    n_presorted = 0
    for g in range(n_features):
        if presort_row[g] >= 0:
            n_presorted += 1
    use_heap = max_leaf_nodes > 0
    block_rows = blocks.shape[0] // block_size if block_size > 0 else 0
    while st[S_N_FRONTIER] > 0:
        if use_heap and st[S_N_LEAVES] >= max_leaf_nodes:
            return 0
        node = frontier[0] if use_heap else frontier[st[S_N_FRONTIER] - 1]
        k = ni[node, I_P_N_CHILDREN]
        parent_block = ni[node, I_BLOCK_ROW]
        if (st[S_N_NODES] + k > ni.shape[0] or st[S_N_FREE_CONST] < k
                or st[S_MAP_USED] + cat_codes * k > map_pool.shape[0]
                or st[S_N_FRONTIER] + k > frontier.shape[0]
                or (parent_block >= 0 and st[S_N_FREE_BLOCKS] < k - 1
                    and block_rows < max_block_rows)):
            return 1
        if use_heap:
            node, n_frontier = heap_pop(heap_keys, frontier, st[S_N_FRONTIER])
            st[S_N_FRONTIER] = n_frontier
        else:
            st[S_N_FRONTIER] -= 1
        f = ni[node, I_P_FEATURE]
        const_row = ni[node, I_CONST_ROW]
        if use_heap and st[S_N_LEAVES] + k - 1 > max_leaf_nodes:
            # a multiway test too wide for the remaining leaf budget: the node stays a leaf
            ni[node, I_P_FEATURE] = -1
            free_const[st[S_N_FREE_CONST]] = const_row
            st[S_N_FREE_CONST] += 1
            if parent_block >= 0:
                free_blocks[st[S_N_FREE_BLOCKS]] = parent_block
                st[S_N_FREE_BLOCKS] += 1
                ni[node, I_BLOCK_ROW] = -1
            continue
        start = ni[node, I_SEG_START]
        n_node = ni[node, I_N_SAMPLES]
        end = start + n_node
        map_offset = ni[node, I_P_MAP_OFFSET]
        lo_code = ni[node, I_P_LO_CODE]
        for j in range(k * width):
            child_stats[j] = 0.0
        for j in range(k):
            child_counts[j] = 0
        if k == 2:
            # Route, count and partition the sample list in one pass. A block feature's code is
            # read from the sample's codes_t row, which building the children's block reads next
            # (the feature's own code row would be one more cache miss per sample).
            write = start
            n_right = 0
            h_route = block_slot[f]
            # Class counts of the children straight from the parent's histogram of the split
            # feature when it has one (exact: integer counts), not sample by sample.
            stats_from_block = (parent_block >= 0 and h_route >= 0 and unit_weights
                                and task != TASK_REGRESSION)
            if stats_from_block:
                base = parent_block * block_size + hist_offset[h_route]
                for code in range(n_codes[f]):
                    if map_offset >= 0:
                        slot = map_pool[map_offset + code]
                    else:
                        slot = 0 if code <= lo_code else 1
                    for col in range(width):
                        child_stats[slot * width + col] += blocks[base + code * width + col]
            for i in range(start, end):
                if h_route >= 0 and i + _PREFETCH < end:
                    prefetch(codes_t, samples[0, i + _PREFETCH] * n_block + h_route)
                s = samples[0, i]
                code = np.int64(codes_t[s, h_route]) if h_route >= 0 else np.int64(codes[f, s])
                if map_offset >= 0:
                    slot = map_pool[map_offset + code]
                else:
                    slot = 0 if code <= lo_code else 1
                if n_presorted > 0:
                    slot_of[s] = slot
                if not stats_from_block:
                    if unit_weights and task != TASK_REGRESSION:
                        child_stats[slot * width + y_cls[s]] += 1.0
                    else:
                        _add_sample(child_stats, slot * width, s, y_cls, y_val, w, task)
                if slot == 0:
                    samples[0, write] = s
                    write += 1
                else:
                    tmp[n_right] = s
                    n_right += 1
            for j in range(n_right):
                samples[0, write + j] = tmp[j]
            child_counts[0] = write - start
            child_counts[1] = n_right
        else:
            for i in range(start, end):
                s = samples[0, i]
                slot = map_pool[map_offset + code_of(codes, codes_t, f, block_slot[f], s)]
                slot_of[s] = slot
                child_counts[slot] += 1
                _add_sample(child_stats, slot * width, s, y_cls, y_val, w, task)
        offset = 0
        largest = 0
        for j in range(k):
            child_offsets[j] = offset
            offset += child_counts[j]
            if child_counts[j] > child_counts[largest]:
                largest = j
        if k == 2:
            for g in range(n_features):
                if presort_row[g] >= 0 and const_pool[const_row, g] == 0:
                    partition_binary(presorted, presort_row[g], start, end, slot_of, tmp)
        else:
            partition_kway(samples, 0, start, end, slot_of, child_offsets, k, positions, tmp)
            for g in range(n_features):
                if presort_row[g] >= 0 and const_pool[const_row, g] == 0:
                    partition_kway(presorted, presort_row[g], start, end, slot_of,
                                   child_offsets, k, positions, tmp)
        # Histogram blocks of the children. A child gets one only if it will be searched and is
        # large enough (block_worth_it). The parent's block becomes the largest child's after
        # the smaller children's blocks are subtracted (or their samples removed, for children
        # keeping no block); when the largest child keeps no block, the smaller ones are just
        # built. Only the parent's non-constant features are touched.
        for j in range(k):
            child_rows[j] = -1
        if parent_block >= 0:
            n_active = 0
            for g in range(n_features):
                if block_slot[g] >= 0 and const_pool[const_row, g] == 0:
                    active[n_active] = block_slot[g]
                    n_active += 1
            for j in range(k):
                cw = stats_weight(child_stats, j * width, width, task)
                imp = (stats_mass(child_stats, j * width, width, task, criterion) / cw
                       if cw > 0 else 0.0)
                wy = child_stats[j * width + 1] if task == TASK_REGRESSION else 0.0
                child_keep[j] = block_worth_it(child_counts[j], n_block, block_size,
                                               min_cells) and not stays_leaf(
                    child_counts[j], ni[node, I_DEPTH] + 1, cw, imp, wy, task, max_depth,
                    min_samples_split, min_samples_leaf)
            keep = child_keep[largest]
            if st[S_N_FREE_BLOCKS] >= k - 1:
                for j in range(k):
                    if j == largest:
                        continue
                    cstart = start + child_offsets[j]
                    if not child_keep[j]:
                        if keep:
                            remove_samples(samples, cstart, cstart + child_counts[j], codes_t,
                                           y_cls, y_val, w, task, width, hist_offset,
                                           count_offset, active, n_active, blocks,
                                           parent_block * block_size, block_counts,
                                           parent_block * stored_counts, not unit_weights)
                        continue
                    st[S_N_FREE_BLOCKS] -= 1
                    r = free_blocks[st[S_N_FREE_BLOCKS]]
                    child_rows[j] = r
                    build_block(samples, cstart, cstart + child_counts[j], codes_t, y_cls, y_val,
                                w, task, width, hist_offset, count_offset, slot_codes, active,
                                n_active, blocks, r * block_size, block_counts,
                                r * stored_counts, not unit_weights)
                    if keep:
                        subtract_block(width, hist_offset, count_offset, slot_codes, active,
                                       n_active, blocks, parent_block * block_size,
                                       r * block_size, block_counts,
                                       parent_block * stored_counts, r * stored_counts,
                                       not unit_weights)
            else:  # memory budget reached: these children go without blocks
                keep = False
            if keep:
                child_rows[largest] = parent_block
            else:
                free_blocks[st[S_N_FREE_BLOCKS]] = parent_block
                st[S_N_FREE_BLOCKS] += 1
            ni[node, I_BLOCK_ROW] = -1
        first = st[S_N_NODES]
        st[S_N_NODES] += k
        ni[node, I_FIRST_CHILD] = first
        ni[node, I_N_CHILDREN] = k
        ni[node, I_FEATURE] = f
        ni[node, I_CATEGORY_OFFSET] = map_offset
        nf[node, F_THRESHOLD] = nf[node, F_P_THRESHOLD]
        st[S_N_LEAVES] += k - 1
        for j in range(k):
            c = first + j
            for col in range(N_INT_COLUMNS):
                ni[c, col] = -1
            for col in range(N_FLOAT_COLUMNS):
                nf[c, col] = 0.0
            nf[c, F_THRESHOLD] = np.nan
            ni[c, I_N_CHILDREN] = 0
            ni[c, I_N_SAMPLES] = child_counts[j]
            ni[c, I_DEPTH] = ni[node, I_DEPTH] + 1
            ni[c, I_SEG_START] = start + child_offsets[j]
            ni[c, I_BLOCK_ROW] = child_rows[j]
            for col in range(width):
                nv[c * width + col] = child_stats[j * width + col]
            cw = stats_weight(nv, c * width, width, task)
            nf[c, F_WEIGHT] = cw
            nf[c, F_IMPURITY] = (stats_mass(nv, c * width, width, task, criterion) / cw
                                 if cw > 0 else 0.0)
            st[S_N_FREE_CONST] -= 1
            row = free_const[st[S_N_FREE_CONST]]
            for g in range(n_features):
                const_pool[row, g] = const_pool[const_row, g]
            ni[c, I_CONST_ROW] = row
            st[S_MAP_USED] = find_best_test(
                c, ni, nf, nv, const_pool, blocks, block_counts, block_size, stored_counts,
                samples, presorted, codes, codes_t, n_codes, kind, presort_row, block_slot,
                hist_offset, count_offset, lo_values, hi_values, value_offset, y_cls, y_val, w,
                task, width, criterion, growth, max_depth, min_samples_split, min_samples_leaf,
                min_impurity_decrease, root_weight, max_features, multiway, rng, cand, left,
                right, hist, hcount, sort_out, sort_keys, sort_counts, present, cat_keys,
                in_left, slot_map, map_pool, st[S_MAP_USED], unit_weights, order_buf,
                best_order_buf, perm_buf, perm_scratch, node_y)
            if ni[c, I_P_FEATURE] < 0:
                free_const[st[S_N_FREE_CONST]] = row
                st[S_N_FREE_CONST] += 1
                if ni[c, I_BLOCK_ROW] >= 0:
                    free_blocks[st[S_N_FREE_BLOCKS]] = ni[c, I_BLOCK_ROW]
                    st[S_N_FREE_BLOCKS] += 1
                    ni[c, I_BLOCK_ROW] = -1
        free_const[st[S_N_FREE_CONST]] = const_row
        st[S_N_FREE_CONST] += 1
        if use_heap:
            for j in range(k):
                c = first + j
                if ni[c, I_P_FEATURE] >= 0:
                    st[S_N_FRONTIER] = heap_push(heap_keys, frontier, st[S_N_FRONTIER],
                                                 -nf[c, F_PRIORITY], c)
        else:
            for j in range(k - 1, -1, -1):
                if ni[first + j, I_P_FEATURE] >= 0:
                    frontier[st[S_N_FRONTIER]] = first + j
                    st[S_N_FRONTIER] += 1
    return 0


@njit(**NO_NRT_JIT_OPTIONS)
def init_root(ni, nf, nv, y_cls, y_val, w, task, width, criterion):
    """Statistics, weight and impurity of the root (node 0); returns the root's weight."""
    n = y_cls.shape[0]
    for col in range(N_INT_COLUMNS):
        ni[0, col] = -1
    for col in range(N_FLOAT_COLUMNS):
        nf[0, col] = 0.0
    for col in range(width):
        nv[col] = 0.0
    for s in range(n):
        _add_sample(nv, 0, s, y_cls, y_val, w, task)
    root_weight = stats_weight(nv, 0, width, task)
    ni[0, I_N_CHILDREN] = 0
    ni[0, I_N_SAMPLES] = n
    ni[0, I_DEPTH] = 0
    ni[0, I_SEG_START] = 0
    nf[0, F_WEIGHT] = root_weight
    nf[0, F_IMPURITY] = stats_mass(nv, 0, width, task, criterion) / root_weight
    nf[0, F_THRESHOLD] = np.nan
    return root_weight


def _grown(a: np.ndarray, length: int) -> np.ndarray:
    """``a`` zero-padded to ``length`` rows."""
    out = np.zeros((length, *a.shape[1:]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


def grow_tree(codes, codes_t, n_codes, kind, lo_values, hi_values, value_offset, y_cls, y_val, w,
              task, width, criterion, growth, max_depth, min_samples_split, min_samples_leaf,
              min_impurity_decrease, max_leaf_nodes, max_features, multiway, seed,
              max_block_rows):
    """Grow a tree; returns the node arrays (int columns, float columns, statistics, map pool).

    ``codes`` is (n_features, n_samples) int32 and ``codes_t`` the (n_samples, n_block) uint8
    codes of the non-presorted features with at most ``BLOCK_MAX_CODES`` codes, in feature order
    (they share histogram blocks; other non-presorted features are histogrammed one by one).
    Block features are only read from ``codes_t``: their rows of ``codes`` may be unfilled;
    ``kind`` says how each feature is searched; ``lo_values[value_offset[f] + c]`` /
    ``hi_values[...]`` are the smallest / largest training value with code ``c`` (thresholds go
    midway between the largest value sent left and the smallest sent right). At most
    ``max_block_rows`` histogram blocks are alive at once.

    This driver is plain Python on purpose: it only sizes and allocates the arrays and calls the
    compiled kernels (a few calls per fit, ~15 us each). As a compiled function it would link,
    re-optimize and re-emit all of :func:`_split_loop` and :func:`find_best_test` a third time,
    which was a quarter of the first run's compile time.
    """
    n_features, n = codes.shape
    task, width, criterion, growth = int(task), int(width), int(criterion), int(growth)
    max_depth, min_samples_split = int(max_depth), int(min_samples_split)
    min_samples_leaf, max_leaf_nodes = int(min_samples_leaf), int(max_leaf_nodes)
    max_features, max_block_rows = int(max_features), int(max_block_rows)
    min_impurity_decrease, multiway = float(min_impurity_decrease), bool(multiway)
    kind = np.asarray(kind, dtype=np.int64)
    n_codes = np.asarray(n_codes, dtype=np.int64)

    # Feature layout: presorted rows, histogram-block slots (features with few codes) and the
    # sizes of the scratch arrays.
    presorted_f = kind == KIND_PRESORTED
    searched = ~presorted_f
    in_block = searched & (n_codes <= BLOCK_MAX_CODES)
    n_presorted = int(presorted_f.sum())
    n_block = int(in_block.sum())
    presort_row = np.full(n_features, -1, dtype=np.int64)
    presort_row[presorted_f] = np.arange(n_presorted)
    block_slot = np.full(n_features, -1, dtype=np.int64)
    block_slot[in_block] = np.arange(n_block)
    categorical = searched & (kind == KIND_CATEGORICAL)
    cat_codes = int(n_codes[categorical].sum())
    max_children = 2
    if multiway and categorical.any():
        max_children = max(2, int(n_codes[categorical].max()))
    # largest code count of a histogram-searched feature (sizes the scratch)
    max_codes = max(2, int(n_codes[searched].max())) if searched.any() else 2
    slot_codes = n_codes[in_block].copy()
    cells = slot_codes * width
    hist_offset = (np.cumsum(cells) - cells).astype(np.int64)
    count_offset = (np.cumsum(slot_codes) - slot_codes).astype(np.int64)
    block_size = int(cells.sum())
    count_size = int(slot_codes.sum())
    # smallest histogram a block feature is searched with (categorical features: always)
    min_cells = int(np.where(kind[in_block] == KIND_HISTOGRAM, cells, 0).min()) if n_block \
        else int(np.iinfo(np.int64).max)
    active = np.arange(max(n_block, 1), dtype=np.int64)
    presorted = presort_rows(codes, n_codes, presort_row, n_presorted)

    samples = np.arange(n, dtype=np.int32).reshape(1, n)
    slot_of = np.zeros(n, dtype=np.int32)
    tmp = np.empty(n, dtype=np.int32)
    sort_out = np.empty((1, n), dtype=np.int32)
    sort_keys = np.empty(n, dtype=np.int64)
    sort_counts = np.empty(max_codes + 1, dtype=np.int64)
    hist = np.empty(max_codes * width, dtype=np.float64)
    hcount = np.empty(max_codes, dtype=np.int64)
    present = np.empty(max_codes, dtype=np.int64)
    # None when no feature is categorical: the kernels are then compiled without the categorical
    # split search (a quarter of their compile time), numeric data never needs it
    cat_keys = np.empty(max_codes, dtype=np.float64) if categorical.any() else None
    in_left = np.empty(max_codes, dtype=np.bool_)
    slot_map = np.empty(max_codes, dtype=np.int64)
    left = np.empty(width, dtype=np.float64)
    right = np.empty(width, dtype=np.float64)
    cand = np.empty(n_features, dtype=np.int64)
    child_stats = np.empty(max_children * width, dtype=np.float64)
    child_counts = np.empty(max_children, dtype=np.int64)
    child_offsets = np.empty(max_children, dtype=np.int64)
    child_rows = np.empty(max_children, dtype=np.int64)
    child_keep = np.empty(max_children, dtype=np.bool_)
    positions = np.empty(max_children, dtype=np.int64)
    order_buf = np.empty(max_codes, dtype=np.int64)
    best_order_buf = np.empty(max_codes, dtype=np.int64)
    perm_buf = np.empty(max(n, max_codes), dtype=np.int64)
    perm_scratch = np.empty(max(n, max_codes), dtype=np.int64)
    node_y = np.empty(n, dtype=np.int32)
    # the seed's 64 bits, as the kernels' splitmix64 stream expects them
    rng = np.array([seed], dtype=np.int64).view(np.uint64)
    unit_weights = bool(np.all(w == 1.0))
    st = np.zeros(N_STATE, dtype=np.int64)

    # Node arrays sized for the largest possible tree (up to 64 MB): rows are written when
    # their node is created, so untouched capacity costs no memory, while growing by copies
    # showed in the profile of deep trees.
    max_nodes = 2 * n - 1 if max_leaf_nodes <= 0 else min(2 * n - 1, 2 * max_leaf_nodes - 1)
    cap = max(64, min(max_nodes, 2**23 // (N_INT_COLUMNS + N_FLOAT_COLUMNS + width)))
    ni = np.empty((cap, N_INT_COLUMNS), dtype=np.int64)
    nf = np.empty((cap, N_FLOAT_COLUMNS), dtype=np.float64)
    nv = np.empty(cap * width, dtype=np.float64)
    # pools of per-node rows (constant-feature flags, histogram blocks) with free stacks
    const_cap = 16
    const_pool = np.zeros((const_cap, n_features), dtype=np.uint8)
    free_const = np.arange(const_cap - 1, -1, -1, dtype=np.int64)
    st[S_N_FREE_CONST] = const_cap
    use_blocks = n_block > 0 and max_block_rows >= 2
    block_cap = min(4, max_block_rows) if use_blocks else 0
    max_rows = max_block_rows if use_blocks else 0
    stored_counts = count_size if not unit_weights else 0
    blocks = np.zeros(block_cap * block_size, dtype=np.float64)
    block_counts = np.zeros(block_cap * stored_counts, dtype=np.int64)
    free_blocks = np.empty(max(block_cap, 1), dtype=np.int64)
    free_blocks[:block_cap] = np.arange(block_cap - 1, -1, -1)
    st[S_N_FREE_BLOCKS] = block_cap
    map_pool = np.empty(64 + 2 * cat_codes, dtype=np.int64)
    frontier = np.empty(64, dtype=np.int64)  # stack, or heap nodes
    heap_keys = np.empty(64, dtype=np.float64)

    # root
    root_weight = init_root(ni, nf, nv, y_cls, y_val, w, task, width, criterion)
    st[S_N_FREE_CONST] -= 1
    ni[0, I_CONST_ROW] = free_const[st[S_N_FREE_CONST]]
    if use_blocks and block_worth_it(n, n_block, block_size, min_cells):
        st[S_N_FREE_BLOCKS] -= 1
        r = int(free_blocks[st[S_N_FREE_BLOCKS]])
        build_block(samples, 0, n, codes_t, y_cls, y_val, w, task, width, hist_offset,
                    count_offset, slot_codes, active, n_block, blocks, r * block_size,
                    block_counts, r * stored_counts, not unit_weights)
        ni[0, I_BLOCK_ROW] = r
    st[S_N_NODES] = 1
    st[S_N_LEAVES] = 1
    st[S_MAP_USED] = find_best_test(
        0, ni, nf, nv, const_pool, blocks, block_counts, block_size, stored_counts, samples,
        presorted, codes, codes_t, n_codes, kind, presort_row, block_slot, hist_offset, count_offset,
        lo_values, hi_values, value_offset, y_cls, y_val, w, task, width, criterion, growth,
        max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease, root_weight,
        max_features, multiway, rng, cand, left, right, hist, hcount, sort_out, sort_keys,
        sort_counts, present, cat_keys, in_left, slot_map, map_pool, 0, unit_weights,
        order_buf, best_order_buf, perm_buf, perm_scratch, node_y)
    if ni[0, I_P_FEATURE] >= 0:
        if max_leaf_nodes > 0:
            st[S_N_FRONTIER] = heap_push(heap_keys, frontier, 0, -nf[0, F_PRIORITY], 0)
        else:
            frontier[0] = 0
            st[S_N_FRONTIER] = 1
    while _split_loop(st, ni, nf, nv, const_pool, free_const, blocks, block_counts, free_blocks,
                      max_rows, block_size, stored_counts, map_pool, frontier, heap_keys,
                      samples, presorted, codes, codes_t, n_codes, kind, presort_row, block_slot,
                      hist_offset, count_offset, slot_codes, min_cells, active, n_block,
                      cat_codes, lo_values, hi_values, value_offset, y_cls, y_val, w, task,
                      width, criterion, growth, max_depth, min_samples_split, min_samples_leaf,
                      min_impurity_decrease, root_weight, max_leaf_nodes, max_features,
                      multiway, rng, unit_weights, slot_of, tmp, cand, left, right, hist, hcount,
                      sort_out, sort_keys, sort_counts, present, cat_keys, in_left, slot_map,
                      child_stats, child_counts, child_offsets, child_rows, child_keep,
                      positions, order_buf, best_order_buf, perm_buf, perm_scratch,
                      node_y) != 0:
        # Grow whatever is too small for the next split (it has at most max_children children).
        need = max_children
        if st[S_N_NODES] + need > ni.shape[0]:
            cap = 2 * int(st[S_N_NODES] + need)
            ni = _grown(ni, cap)
            nf = _grown(nf, cap)
            nv = _grown(nv, cap * width)
        if st[S_N_FREE_CONST] < need:
            old = const_pool.shape[0]
            new = 2 * old + need
            const_pool = _grown(const_pool, new)
            free_const = _grown(free_const, new)
            for r in range(new - 1, old - 1, -1):
                free_const[st[S_N_FREE_CONST]] = r
                st[S_N_FREE_CONST] += 1
        if st[S_MAP_USED] + cat_codes * need > map_pool.shape[0]:
            map_pool = _grown(map_pool, 2 * int(st[S_MAP_USED] + cat_codes * need))
        if st[S_N_FRONTIER] + need > frontier.shape[0]:
            frontier = _grown(frontier, 2 * int(st[S_N_FRONTIER] + need))
            heap_keys = _grown(heap_keys, frontier.shape[0])
        rows = blocks.shape[0] // block_size if block_size > 0 else 0
        if use_blocks and st[S_N_FREE_BLOCKS] < need and rows < max_rows:
            new = min(max(2 * rows, rows + need), max_rows)
            blocks = _grown(blocks, new * block_size)
            block_counts = _grown(block_counts, new * stored_counts)
            free_blocks = _grown(free_blocks, new)
            for r in range(new - 1, rows - 1, -1):
                free_blocks[st[S_N_FREE_BLOCKS]] = r
                st[S_N_FREE_BLOCKS] += 1
    n_nodes = int(st[S_N_NODES])
    nv_out = nv[: n_nodes * width].copy().reshape((n_nodes, width))
    return ni[:n_nodes].copy(), nf[:n_nodes].copy(), nv_out, map_pool[: st[S_MAP_USED]].copy()
