"""The tree-growing loop: one numba function for every growth policy.

Each node's best test is found when the node is created (so its priority is known). Without a
leaf budget every splittable node is eventually split and the order is irrelevant, so a stack is
used; with ``max_leaf_nodes`` a heap picks the next leaf by the policy's priority (SPEC section 1):

* ``top_down`` (Kearns-Mansour): the gain ``N_l phi(l) - N_l' phi(l') - N_l'' phi(l'')`` (the
  decrease of the tree's total impurity); ``depth_first`` with a budget behaves the same, like
  scikit-learn;
* ``best_first`` (Shi): the gain divided by ``N_l``;
* ``purest_children`` (Leboeuf et al. reference code): the lowest size-normalised child impurity,
  i.e. ``gain / N_l - phi(l)`` largest, and only strictly improving splits.

Heap ties go to the older node (smaller id). Features are visited in index order (or in a
seeded random order when ``max_features`` < number of features) and ties keep the first feature
and the lowest threshold, so the tree does not depend on the order of the training rows.

Feature search kinds: ``KIND_PRESORTED`` (many distinct values: a presorted sample row kept
sorted by stable partitions), ``KIND_HISTOGRAM`` (few codes: per-node histograms, shared in a
block with subtraction, or a per-node sort for small nodes) and ``KIND_CATEGORICAL``.

Node layout during growth: integer columns ``ni``, float columns ``nf`` and statistics ``nv``
(class counts, or ``sum w, sum w y, sum w y^2`` for regression); see the ``I_*``/``F_*`` names.
"""

from __future__ import annotations

import heapq

import numpy as np
from numba import njit

from treebound._config import JIT_OPTIONS
from treebound._kernels.criteria import TASK_REGRESSION, stats_mass, stats_weight
from treebound._kernels.histograms import build_block, counts_from_stats, subtract_block
from treebound._kernels.partition import partition_binary, partition_kway
from treebound._kernels.split_categorical import best_binary_subset, best_multiway
from treebound._kernels.split_numeric import (
    argsort_node,
    counting_sort_node,
    fill_histogram,
    midpoint_threshold,
    scan_histogram,
    scan_sorted,
)

KIND_PRESORTED = 0
KIND_HISTOGRAM = 1
KIND_CATEGORICAL = 2

GROWTH_DEPTH_FIRST = 0
GROWTH_TOP_DOWN = 1
GROWTH_BEST_FIRST = 2
GROWTH_PUREST_CHILDREN = 3

# integer node columns
I_FIRST_CHILD = 0
I_N_CHILDREN = 1
I_FEATURE = 2
I_N_SAMPLES = 3
I_DEPTH = 4
I_SEG_START = 5
I_P_FEATURE = 6
I_P_LO_CODE = 7
I_P_N_CHILDREN = 8
I_P_MAP_OFFSET = 9
I_CONST_ROW = 10
I_CATEGORY_OFFSET = 11
I_BLOCK_ROW = 12
N_INT_COLUMNS = 13
# float node columns
F_THRESHOLD = 0
F_IMPURITY = 1
F_WEIGHT = 2
F_P_THRESHOLD = 3
F_P_GAIN = 4
F_PRIORITY = 5
N_FLOAT_COLUMNS = 6

_EPSILON = np.finfo(np.float64).eps


@njit(**JIT_OPTIONS)
def _next_random(state, high):
    """Uniform integer in [0, high) from a splitmix64 stream (reproducible across platforms)."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z % np.uint64(high))


@njit(**JIT_OPTIONS)
def _grow_rows(a, new_rows):
    out = np.zeros((new_rows, a.shape[1]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(**JIT_OPTIONS)
def _grow_flat(a, new_len):
    out = np.empty(new_len, dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


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


@njit(**JIT_OPTIONS)
def _block_worth_it(n_node, n_hist, block_size):
    """A histogram block pays off when filling it costs about as much as scanning it."""
    return n_hist > 0 and block_size <= 16 * n_node * n_hist


@njit(**JIT_OPTIONS)
def _evaluate_node(node, ni, nf, nv, const_pool, blocks, block_counts, samples, presorted, codes,
                   n_codes, kind, presort_row, hist_slot, hist_offset, count_offset, lo_values,
                   hi_values, value_offset, y_cls, y_val, w, task, width, criterion, growth,
                   max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease,
                   root_weight, max_features, multiway, rng, cand, left, right, hist, hcount,
                   sort_out, sort_keys, sort_counts, present, cat_keys, in_left, slot_map,
                   map_pool, map_used, unit_weights):
    """Find and record the best test of ``node``; returns the (possibly grown) map pool and its
    used length. A node that must stay a leaf gets ``I_P_FEATURE = -1``."""
    ni[node, I_P_FEATURE] = -1
    n_node = ni[node, I_N_SAMPLES]
    weight = nf[node, F_WEIGHT]
    impurity = nf[node, F_IMPURITY]
    if max_depth >= 0 and ni[node, I_DEPTH] >= max_depth:
        return map_pool, map_used
    if n_node < min_samples_split or n_node < 2 * min_samples_leaf:
        return map_pool, map_used
    if impurity <= _EPSILON:
        return map_pool, map_used
    start = ni[node, I_SEG_START]
    end = start + n_node
    parent = nv[node]
    parent_mass = stats_mass(parent, 0, width, task, criterion)
    const_row = ni[node, I_CONST_ROW]
    block_row = ni[node, I_BLOCK_ROW]
    n_features = codes.shape[0]
    n_cand = 0
    for f in range(n_features):
        if const_pool[const_row, f] == 0:
            cand[n_cand] = f
            n_cand += 1
    best_gain = -np.inf
    best_feature = -1
    best_lo = -1
    best_threshold = np.nan
    best_children = 0
    best_map_offset = -1
    visited = 0
    i = 0
    shuffle = max_features < n_cand
    while i < n_cand and visited < max_features:
        if shuffle:
            j = i + _next_random(rng, n_cand - i)
            tmp = cand[i]
            cand[i] = cand[j]
            cand[j] = tmp
        f = cand[i]
        i += 1
        codes_f = codes[f]
        nc = n_codes[f]
        gain = -np.inf
        lo = -1
        hi = -1
        n_children = 2
        constant = False
        use_hist = False
        if kind[f] == KIND_PRESORTED:
            row = presorted[presort_row[f]]
            if codes_f[row[start]] == codes_f[row[end - 1]]:
                constant = True
            else:
                gain, lo, hi = scan_sorted(row, start, end, codes_f, y_cls, y_val, w, task,
                                           width, criterion, parent, weight, parent_mass,
                                           min_samples_leaf, left, right)
        elif block_row >= 0 and hist_slot[f] >= 0:
            h = hist_slot[f]
            f_hist = blocks[block_row, hist_offset[h] : hist_offset[h] + nc * width]
            if unit_weights:
                counts_from_stats(f_hist, nc, width, task, hcount)
                f_count = hcount
            else:
                f_count = block_counts[block_row, count_offset[h] : count_offset[h] + nc]
            use_hist = True
        elif kind[f] == KIND_HISTOGRAM and nc * width > 2 * n_node:
            if nc <= 4 * n_node:
                counting_sort_node(samples, start, end, codes_f, nc, sort_counts, sort_out)
            else:
                argsort_node(samples, start, end, codes_f, sort_keys, sort_out)
            if codes_f[sort_out[0]] == codes_f[sort_out[n_node - 1]]:
                constant = True
            else:
                gain, lo, hi = scan_sorted(sort_out, 0, n_node, codes_f, y_cls, y_val, w, task,
                                           width, criterion, parent, weight, parent_mass,
                                           min_samples_leaf, left, right)
        else:
            fill_histogram(samples, start, end, codes_f, y_cls, y_val, w, task, width, hist,
                           hcount, nc)
            f_hist = hist
            f_count = hcount
            use_hist = True
        if use_hist:
            n_present = 0
            for b in range(nc):
                if f_count[b] > 0:
                    n_present += 1
                    if n_present > 1:
                        break
            if n_present <= 1:
                constant = True
            elif kind[f] == KIND_HISTOGRAM:
                gain, lo, hi = scan_histogram(f_hist, f_count, nc, n_node, task, width, criterion,
                                              parent, parent_mass, min_samples_leaf, left, right)
            elif multiway:
                gain, n_children = best_multiway(f_hist, f_count, nc, width, task, criterion,
                                                 parent_mass, min_samples_leaf, slot_map)
            else:
                gain, n_children = best_binary_subset(f_hist, f_count, nc, n_node, width, task,
                                                      criterion, parent, parent_mass,
                                                      min_samples_leaf, left, right, slot_map,
                                                      present, cat_keys, in_left)
        if constant:
            const_pool[const_row, f] = 1
            continue
        visited += 1
        if kind[f] != KIND_CATEGORICAL and lo < 0:
            continue
        if kind[f] == KIND_CATEGORICAL and n_children == 0:
            continue
        if gain > best_gain:
            best_gain = gain
            best_feature = f
            best_children = n_children
            if kind[f] == KIND_CATEGORICAL:
                if map_used + nc > map_pool.shape[0]:
                    map_pool = _grow_flat(map_pool, 2 * (map_used + nc))
                map_pool[map_used : map_used + nc] = slot_map[:nc]
                best_map_offset = map_used
                map_used += nc
                best_lo = -1
                best_threshold = np.nan
            else:
                best_map_offset = -1
                best_lo = lo
                off = value_offset[f]
                best_threshold = midpoint_threshold(lo_values[off + hi], hi_values[off + lo])
    if best_feature < 0:
        return map_pool, map_used
    if best_gain / root_weight + _EPSILON < min_impurity_decrease:
        return map_pool, map_used
    if growth == GROWTH_PUREST_CHILDREN and not best_gain > 1e-12 * weight:
        return map_pool, map_used
    ni[node, I_P_FEATURE] = best_feature
    ni[node, I_P_LO_CODE] = best_lo
    ni[node, I_P_N_CHILDREN] = best_children
    ni[node, I_P_MAP_OFFSET] = best_map_offset
    nf[node, F_P_THRESHOLD] = best_threshold
    nf[node, F_P_GAIN] = best_gain
    if growth == GROWTH_BEST_FIRST:
        nf[node, F_PRIORITY] = best_gain / weight
    elif growth == GROWTH_PUREST_CHILDREN:
        nf[node, F_PRIORITY] = best_gain / weight - impurity
    else:
        nf[node, F_PRIORITY] = best_gain
    return map_pool, map_used


@njit(**JIT_OPTIONS)
def _add_sample(stats, base, s, y_cls, y_val, w, task):
    if task == TASK_REGRESSION:
        ws = w[s]
        yv = y_val[s]
        stats[base] += ws
        stats[base + 1] += ws * yv
        stats[base + 2] += ws * yv * yv
    else:
        stats[base + y_cls[s]] += w[s]


@njit(**JIT_OPTIONS)
def _take_row(free_rows):
    if len(free_rows) == 0:
        return -1
    return free_rows.pop()


@njit(**JIT_OPTIONS)
def grow_tree(codes, codes_t, n_codes, kind, lo_values, hi_values, value_offset, y_cls, y_val, w,
              task, width, criterion, growth, max_depth, min_samples_split, min_samples_leaf,
              min_impurity_decrease, max_leaf_nodes, max_features, multiway, seed,
              max_block_rows):
    """Grow a tree; returns the node arrays (int columns, float columns, statistics, map pool).

    ``codes`` is (n_features, n_samples) int32 and ``codes_t`` the (n_samples, n_hist) uint8 codes
    of the non-presorted features with at most 256 codes, in feature order (they share histogram
    blocks; others are histogrammed one by one); ``kind`` says how each feature is
    searched; ``lo_values[value_offset[f] + c]`` / ``hi_values[...]`` are the smallest / largest
    training value with code ``c`` (thresholds go midway between the largest value sent left and
    the smallest sent right). At most ``max_block_rows`` histogram blocks are alive at once.
    """
    n_features, n = codes.shape
    presort_row = np.full(n_features, -1, dtype=np.int64)
    hist_slot = np.full(n_features, -1, dtype=np.int64)
    n_presorted = 0
    n_hist = 0
    max_codes = 2
    for f in range(n_features):
        if kind[f] == KIND_PRESORTED:
            presort_row[f] = n_presorted
            n_presorted += 1
        elif n_codes[f] <= 256:
            hist_slot[f] = n_hist
            n_hist += 1
        if n_codes[f] > max_codes:
            max_codes = n_codes[f]
    hist_offset = np.zeros(n_hist, dtype=np.int64)
    count_offset = np.zeros(n_hist, dtype=np.int64)
    block_size = 0
    count_size = 0
    for f in range(n_features):
        h = hist_slot[f]
        if h >= 0:
            hist_offset[h] = block_size
            count_offset[h] = count_size
            block_size += n_codes[f] * width
            count_size += n_codes[f]
    presorted = presort_rows(codes, n_codes, presort_row, n_presorted)
    samples = np.arange(n).astype(np.int32)
    slot_of = np.zeros(n, dtype=np.int32)
    tmp = np.empty(n, dtype=np.int32)
    sort_out = np.empty(n, dtype=np.int32)
    sort_keys = np.empty(n, dtype=np.int64)
    sort_counts = np.empty(max_codes + 1, dtype=np.int64)
    hist = np.empty(max_codes * width, dtype=np.float64)
    hcount = np.empty(max_codes, dtype=np.int64)
    present = np.empty(max_codes, dtype=np.int64)
    cat_keys = np.empty(max_codes, dtype=np.float64)
    in_left = np.empty(max_codes, dtype=np.bool_)
    slot_map = np.empty(max_codes, dtype=np.int64)
    left = np.empty(width, dtype=np.float64)
    right = np.empty(width, dtype=np.float64)
    cand = np.empty(n_features, dtype=np.int64)
    child_stats = np.empty(max_codes * width, dtype=np.float64)
    child_counts = np.empty(max_codes, dtype=np.int64)
    child_offsets = np.empty(max_codes, dtype=np.int64)
    child_rows = np.empty(max_codes, dtype=np.int64)
    positions = np.empty(max_codes, dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed)
    unit_weights = True
    for s in range(n):
        if w[s] != 1.0:
            unit_weights = False
            break

    cap = 64
    ni = np.full((cap, N_INT_COLUMNS), -1, dtype=np.int64)
    nf = np.zeros((cap, N_FLOAT_COLUMNS), dtype=np.float64)
    nv = np.zeros((cap, width), dtype=np.float64)
    const_cap = 16
    const_pool = np.zeros((const_cap, n_features), dtype=np.uint8)
    free_const = [np.int64(r) for r in range(const_cap - 1, -1, -1)]
    use_blocks = n_hist > 0 and max_block_rows >= 2
    block_cap = min(4, max_block_rows) if use_blocks else 0
    blocks = np.zeros((block_cap, block_size), dtype=np.float64)
    block_counts = np.zeros((block_cap, count_size if not unit_weights else 0), dtype=np.int64)
    free_blocks = [np.int64(r) for r in range(block_cap - 1, -1, -1)]
    map_pool = np.empty(64, dtype=np.int64)
    map_used = 0

    # root
    for s in range(n):
        _add_sample(nv[0], 0, s, y_cls, y_val, w, task)
    root_weight = stats_weight(nv[0], 0, width, task)
    ni[0, I_N_CHILDREN] = 0
    ni[0, I_N_SAMPLES] = n
    ni[0, I_DEPTH] = 0
    ni[0, I_SEG_START] = 0
    ni[0, I_CONST_ROW] = free_const.pop()
    nf[0, F_WEIGHT] = root_weight
    nf[0, F_IMPURITY] = stats_mass(nv[0], 0, width, task, criterion) / root_weight
    nf[0, F_THRESHOLD] = np.nan
    if use_blocks and _block_worth_it(n, n_hist, block_size + count_size):
        r = free_blocks.pop()
        build_block(samples, 0, n, codes_t, y_cls, y_val, w, task, width, hist_offset,
                    count_offset, blocks[r], block_counts[r], not unit_weights)
        ni[0, I_BLOCK_ROW] = r
    n_nodes = 1
    map_pool, map_used = _evaluate_node(
        0, ni, nf, nv, const_pool, blocks, block_counts, samples, presorted, codes, n_codes, kind,
        presort_row, hist_slot, hist_offset, count_offset, lo_values, hi_values, value_offset,
        y_cls, y_val, w, task, width, criterion, growth, max_depth, min_samples_split,
        min_samples_leaf, min_impurity_decrease, root_weight, max_features, multiway, rng, cand,
        left, right, hist, hcount, sort_out, sort_keys, sort_counts, present, cat_keys, in_left,
        slot_map, map_pool, map_used, unit_weights)

    use_heap = max_leaf_nodes > 0
    stack = [np.int64(0)]
    heap = [(0.0, np.int64(0))]
    heap.pop()
    if use_heap or ni[0, I_P_FEATURE] < 0:
        stack.pop()
    if use_heap and ni[0, I_P_FEATURE] >= 0:
        heapq.heappush(heap, (-nf[0, F_PRIORITY], np.int64(0)))
    n_leaves = 1
    while True:
        if use_heap:
            if len(heap) == 0 or n_leaves >= max_leaf_nodes:
                break
            node = heapq.heappop(heap)[1]
        else:
            if len(stack) == 0:
                break
            node = stack.pop()
        f = ni[node, I_P_FEATURE]
        k = ni[node, I_P_N_CHILDREN]
        parent_block = ni[node, I_BLOCK_ROW]
        const_row = ni[node, I_CONST_ROW]
        if use_heap and n_leaves + k - 1 > max_leaf_nodes:
            # a multiway test too wide for the remaining leaf budget: the node stays a leaf
            ni[node, I_P_FEATURE] = -1
            free_const.append(const_row)
            if parent_block >= 0:
                free_blocks.append(parent_block)
                ni[node, I_BLOCK_ROW] = -1
            continue
        start = ni[node, I_SEG_START]
        n_node = ni[node, I_N_SAMPLES]
        end = start + n_node
        codes_f = codes[f]
        map_offset = ni[node, I_P_MAP_OFFSET]
        lo_code = ni[node, I_P_LO_CODE]
        for j in range(k * width):
            child_stats[j] = 0.0
        for j in range(k):
            child_counts[j] = 0
        for i in range(start, end):
            s = samples[i]
            if map_offset >= 0:
                slot = map_pool[map_offset + codes_f[s]]
            else:
                slot = 0 if codes_f[s] <= lo_code else 1
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
            partition_binary(samples, start, end, slot_of, tmp)
            for g in range(n_features):
                if presort_row[g] >= 0 and const_pool[const_row, g] == 0:
                    partition_binary(presorted[presort_row[g]], start, end, slot_of, tmp)
        else:
            partition_kway(samples, start, end, slot_of, child_offsets, k, positions, tmp)
            for g in range(n_features):
                if presort_row[g] >= 0 and const_pool[const_row, g] == 0:
                    partition_kway(presorted[presort_row[g]], start, end, slot_of,
                                   child_offsets, k, positions, tmp)
        # Histogram blocks of the children: build the smaller ones, subtract them from the
        # parent's block to get the largest child's.
        for j in range(k):
            child_rows[j] = -1
        if parent_block >= 0:
            ok = True
            for j in range(k):
                if j == largest:
                    continue
                r = _take_row(free_blocks)
                if r < 0 and block_cap < max_block_rows:
                    old = block_cap
                    block_cap = min(2 * block_cap, max_block_rows)
                    blocks = _grow_rows(blocks, block_cap)
                    block_counts = _grow_rows(block_counts, block_cap)
                    for rr in range(block_cap - 1, old - 1, -1):
                        free_blocks.append(np.int64(rr))
                    r = _take_row(free_blocks)
                if r < 0:
                    ok = False
                    break
                child_rows[j] = r
                build_block(samples, start + child_offsets[j], start + child_offsets[j] + child_counts[j],
                            codes_t, y_cls, y_val, w, task, width, hist_offset, count_offset,
                            blocks[r], block_counts[r], not unit_weights)
                subtract_block(blocks[parent_block], block_counts[parent_block], blocks[r],
                               block_counts[r], not unit_weights)
            if ok:
                child_rows[largest] = parent_block
            else:
                for j in range(k):
                    if child_rows[j] >= 0:
                        free_blocks.append(child_rows[j])
                        child_rows[j] = -1
                free_blocks.append(parent_block)
            for j in range(k):
                r = child_rows[j]
                if r >= 0 and not _block_worth_it(child_counts[j], n_hist, block_size + count_size):
                    free_blocks.append(r)
                    child_rows[j] = -1
            ni[node, I_BLOCK_ROW] = -1
        if n_nodes + k > cap:
            cap = max(2 * cap, n_nodes + k)
            ni = _grow_rows(ni, cap)
            nf = _grow_rows(nf, cap)
            nv = _grow_rows(nv, cap)
        first = n_nodes
        n_nodes += k
        ni[node, I_FIRST_CHILD] = first
        ni[node, I_N_CHILDREN] = k
        ni[node, I_FEATURE] = f
        ni[node, I_CATEGORY_OFFSET] = map_offset
        nf[node, F_THRESHOLD] = nf[node, F_P_THRESHOLD]
        n_leaves += k - 1
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
                nv[c, col] = child_stats[j * width + col]
            cw = stats_weight(nv[c], 0, width, task)
            nf[c, F_WEIGHT] = cw
            nf[c, F_IMPURITY] = stats_mass(nv[c], 0, width, task, criterion) / cw if cw > 0 else 0.0
            if len(free_const) == 0:
                old = const_cap
                const_cap *= 2
                const_pool = _grow_rows(const_pool, const_cap)
                for r in range(const_cap - 1, old - 1, -1):
                    free_const.append(np.int64(r))
            row = free_const.pop()
            const_pool[row, :] = const_pool[const_row, :]
            ni[c, I_CONST_ROW] = row
            map_pool, map_used = _evaluate_node(
                c, ni, nf, nv, const_pool, blocks, block_counts, samples, presorted, codes,
                n_codes, kind, presort_row, hist_slot, hist_offset, count_offset, lo_values,
                hi_values, value_offset, y_cls, y_val, w, task, width, criterion, growth,
                max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease,
                root_weight, max_features, multiway, rng, cand, left, right, hist, hcount,
                sort_out, sort_keys, sort_counts, present, cat_keys, in_left, slot_map, map_pool,
                map_used, unit_weights)
            if ni[c, I_P_FEATURE] < 0:
                free_const.append(row)
                if ni[c, I_BLOCK_ROW] >= 0:
                    free_blocks.append(ni[c, I_BLOCK_ROW])
                    ni[c, I_BLOCK_ROW] = -1
        free_const.append(const_row)
        if use_heap:
            for j in range(k):
                c = first + j
                if ni[c, I_P_FEATURE] >= 0:
                    heapq.heappush(heap, (-nf[c, F_PRIORITY], np.int64(c)))
        else:
            for j in range(k - 1, -1, -1):
                if ni[first + j, I_P_FEATURE] >= 0:
                    stack.append(np.int64(first + j))
    return ni[:n_nodes].copy(), nf[:n_nodes].copy(), nv[:n_nodes].copy(), map_pool[:map_used].copy()
