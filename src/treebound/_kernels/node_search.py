"""Best test of one node over all candidate features (the inner step of tree growth).

The node layout and the structures the kernels take are in
:mod:`treebound._kernels.growth_state`.

Feature search kinds: ``KIND_PRESORTED`` (many distinct values: a presorted sample row kept
sorted by stable partitions), ``KIND_HISTOGRAM`` (few codes: per-node histograms, shared in a
block with subtraction, or a per-node sort for small nodes) and ``KIND_CATEGORICAL``.

Features are visited in index order (or drawn at random as scikit-learn draws them when
``max_features`` is smaller than the number of features); ties keep the first feature and the
lowest threshold.

These kernels never allocate and are compiled without numba's reference counting (an atomic
update per array argument per call would otherwise dominate small nodes).
"""

from __future__ import annotations

import numpy as np

from treebound._config import (
    NO_NRT_INLINE_JIT_OPTIONS,
    STEP_JIT_OPTIONS,
    njit,
)
from treebound._kernels.criteria import TASK_REGRESSION, stats_mass
from treebound._kernels.feature_draw import (
    code_threshold,
    first_candidates,
    keep_test,
    next_candidate,
)
from treebound._kernels.growth_state import (
    F_IMPURITY,
    F_P_GAIN,
    F_P_THRESHOLD,
    F_PRIORITY,
    F_WEIGHT,
    GROWTH_BEST_FIRST,
    GROWTH_PUREST_CHILDREN,
    I_BLOCK_ROW,
    I_CONST_ROW,
    I_DEPTH,
    I_N_SAMPLES,
    I_P_FEATURE,
    I_P_LO_CODE,
    I_P_MAP_OFFSET,
    I_P_MISSING,
    I_P_N_CHILDREN,
    I_SEG_START,
    KIND_CATEGORICAL,
    KIND_HISTOGRAM,
    KIND_PRESORTED,
    S_MAP_USED,
)
from treebound._kernels.histograms import counts_from_stats
from treebound._kernels.split_categorical import best_binary_subset, best_multiway
from treebound._kernels.split_numeric import (
    argsort_node,
    counting_order,
    counting_sort_node,
    fill_histogram,
    gather_node_codes,
    scan_histogram,
    scan_sorted,
    scan_sorted_local,
)

_EPSILON = np.finfo(np.float64).eps


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def block_worth_it(n_node, n_block, block_floats, min_cells):
    """A histogram block pays off when filling it costs about as much as scanning it, and only
    if the node is large enough to search some feature by histogram (``2 n >= codes x width``,
    see :func:`find_best_test`): smaller nodes, and so all their descendants, sort instead."""
    return n_block > 0 and block_floats <= 16 * n_node * n_block and 2 * n_node >= min_cells


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def stays_leaf(n_node, depth, weight, impurity, sum_wy, task, max_depth, min_samples_split,
               min_samples_leaf):
    """Whether a node is a leaf whatever its data (depth, size, purity): no test is searched."""
    if max_depth >= 0 and depth >= max_depth:
        return True
    if n_node < min_samples_split or n_node < 2 * min_samples_leaf:
        return True
    if impurity <= _EPSILON:
        return True
    if task == TASK_REGRESSION:
        # sum w y^2 - (sum w y)^2 / w cancels: below ~64 eps (mean^2 + var) the variance is
        # rounding noise (it would depend on the order of the rows), so the node is pure
        mean = sum_wy / weight
        if impurity <= 64.0 * _EPSILON * (mean * mean + impurity):
            return True
    return False


@njit(**STEP_JIT_OPTIONS)
def _constant_in_node(samples, start, end, codes, codes_t, f, h):
    """Whether feature ``f`` (block slot ``h``, or -1) has one code over the node's samples. A
    block feature is read from the sample's ``codes_t`` row (one cache line for all the
    features) rather than from the feature's own code row."""
    if h >= 0:
        first_code = np.int64(codes_t[samples[0, start], h])
        for i in range(start + 1, end):
            if np.int64(codes_t[samples[0, i], h]) != first_code:
                return False
    else:
        first_code = np.int64(codes[f, samples[0, start]])
        for i in range(start + 1, end):
            if np.int64(codes[f, samples[0, i]]) != first_code:
                return False
    return True


@njit(**STEP_JIT_OPTIONS)
def _record_test(node, ni, nf, params, weight, impurity, feature, lo, threshold, n_children,
                 map_offset, gain):
    """Write the best test into the node's proposed-test columns, unless it is too weak
    (``min_impurity_decrease``, relative to the root's weight; purest_children takes only
    strictly improving tests)."""
    if gain / nf[0, F_WEIGHT] + _EPSILON < params.min_impurity_decrease:
        return
    growth = params.growth
    if growth == GROWTH_PUREST_CHILDREN and not gain > 1e-12 * weight:
        return
    ni[node, I_P_FEATURE] = feature
    ni[node, I_P_LO_CODE] = lo
    ni[node, I_P_N_CHILDREN] = n_children
    ni[node, I_P_MAP_OFFSET] = map_offset
    nf[node, F_P_THRESHOLD] = threshold
    nf[node, F_P_GAIN] = gain
    if growth == GROWTH_BEST_FIRST:
        nf[node, F_PRIORITY] = gain / weight
    elif growth == GROWTH_PUREST_CHILDREN:
        nf[node, F_PRIORITY] = gain / weight - impurity
    else:
        nf[node, F_PRIORITY] = gain


@njit(**STEP_JIT_OPTIONS)
def find_best_test(node, data, layout, params, nodes, order, pools, scratch, cat):
    """Find and record the best test of ``node`` (structures of
    :mod:`~treebound._kernels.growth_state`; ``cat`` is the :class:`CategoricalScratch`, or
    None when no feature is categorical).

    A node that must stay a leaf gets ``I_P_FEATURE = -1``. The category maps of candidate tests
    are appended to ``nodes.maps`` (``pools.counters[S_MAP_USED]`` advances; the caller
    guarantees room for every categorical feature's map).

    Inlined into its one caller (:func:`~treebound._kernels.grow._search_new_nodes`): called
    as a compiled function, taking its structures' dozens of arrays through a call per node
    cost about 5% of the growth of trees with many small nodes.
    """
    ni = nodes.ints
    nf = nodes.floats
    nv = nodes.stats
    samples = order.samples
    presorted = order.presorted
    codes = data.codes
    codes_t = data.codes_t
    n_codes = data.n_codes
    kind = data.kind
    block_slot = layout.block_slot
    task = params.task
    width = params.width
    criterion = params.criterion
    min_samples_leaf = params.min_samples_leaf
    unit_weights = params.unit_weights
    cand = scratch.candidates
    left = scratch.left
    right = scratch.right
    hist = scratch.hist
    hcount = scratch.hist_counts
    const_flags = pools.const_flags
    ni[node, I_P_FEATURE] = -1
    n_node = ni[node, I_N_SAMPLES]
    weight = nf[node, F_WEIGHT]
    impurity = nf[node, F_IMPURITY]
    sum_wy = nv[node * width + 1] if task == TASK_REGRESSION else 0.0
    if stays_leaf(n_node, ni[node, I_DEPTH], weight, impurity, sum_wy, task, params.max_depth,
                  params.min_samples_split, min_samples_leaf):
        return
    map_used = pools.counters[S_MAP_USED]
    start = ni[node, I_SEG_START]
    end = start + n_node
    poff = node * width
    parent_mass = stats_mass(nv, poff, width, task, criterion)
    tie_tolerance = 1e-9 * parent_mass if task == TASK_REGRESSION else 0.0
    const_row = ni[node, I_CONST_ROW]
    block_row = ni[node, I_BLOCK_ROW]
    n_features = codes.shape[0]
    max_features = params.max_features
    # With max_features below the number of features, scikit-learn's draws: features are drawn
    # without replacement among all of them, those known constant in the node included (they
    # count as visited), until max_features are visited and at least one was not constant, or
    # none of unknown status is left. Otherwise every non-constant feature, in index order.
    shuffle = max_features < n_features
    n_cand, n_unknown = first_candidates(const_flags, const_row, n_features, shuffle, False,
                                         cand)
    best_gain = -np.inf
    best_feature = -1
    best_lo = -1
    best_threshold = np.nan
    best_children = 0
    best_map_offset = -1
    best_missing = -1
    missing_code = data.missing_code
    visited = 0
    n_constant_seen = 0
    i = 0
    y_ready = False
    while True:
        f, i, n_unknown, visited, n_constant_seen = next_candidate(
            cand, i, n_cand, n_unknown, visited, n_constant_seen, max_features, shuffle,
            const_flags, const_row, False, scratch.rng)
        if f < 0:
            break
        nc = n_codes[f]
        gain = -np.inf
        lo = -1
        hi = -1
        n_children = 2
        missing_slot = -1
        constant = False
        # Each scan has one call site below, fed by the branches: the scans are inlined, and a
        # second copy of each would double this kernel's compile time, not its speed.
        sorted_scan = False
        sort_order, order_row, order_start, order_end, h_scan = presorted, 0, start, end, -1
        hist_scan = False
        h_src, h_src_off, h_cnt, h_coff, h_counts_in_hist = hist, 0, hcount, 0, False
        if kind[f] == KIND_PRESORTED:
            r = layout.presort_row[f]
            if codes[f, presorted[r, start]] == codes[f, presorted[r, end - 1]]:
                constant = True
            else:
                sorted_scan = True
                order_row = r
        elif (kind[f] == KIND_HISTOGRAM and nc * width > 2 * n_node and nc <= 4 * n_node
              and unit_weights and task != TASK_REGRESSION and missing_code[f] < 0):
            # Few samples for many codes: sorting the node's samples beats any histogram. The
            # node's codes (and, once per node, classes) are gathered into local arrays that
            # the counting sort and the scan then read sequentially.
            node_y = scratch.node_y
            if not y_ready:
                for i_s in range(n_node):
                    node_y[i_s] = data.y_cls[samples[0, start + i_s]]
                y_ready = True
            constant = gather_node_codes(samples, start, end, codes, codes_t, f, block_slot[f],
                                         scratch.sort_keys, nc, scratch.sort_counts)
            if not constant:
                counting_order(scratch.sort_keys, n_node, nc, scratch.sort_counts, scratch.perm)
                gain, lo, hi = scan_sorted_local(scratch.perm, scratch.sort_keys, node_y, n_node,
                                                 width, criterion, nv, poff, weight, parent_mass,
                                                 min_samples_leaf, left, right)
        elif kind[f] == KIND_HISTOGRAM and nc * width > 2 * n_node:
            # Few samples for many codes: sorting the node's samples beats any histogram. Most
            # features of small nodes are constant there: check that first, it is cheaper.
            h_f = block_slot[f]
            constant = _constant_in_node(samples, start, end, codes, codes_t, f, h_f)
            if not constant:
                if nc <= 4 * n_node:
                    counting_sort_node(samples, start, end, codes, codes_t, f, h_f, nc,
                                       scratch.sort_counts, scratch.sort_out)
                else:
                    argsort_node(samples, start, end, codes, codes_t, f, h_f, scratch.sort_keys,
                                 scratch.sort_out, scratch.perm, scratch.perm_scratch)
                sorted_scan = True
                sort_order, order_start, order_end, h_scan = scratch.sort_out, 0, n_node, h_f
        else:
            in_block = block_row >= 0 and block_slot[f] >= 0
            if in_block:
                h = block_slot[f]
                hoff = block_row * layout.block_size + layout.hist_offset[h]
                coff = block_row * layout.count_size + layout.count_offset[h]
                if kind[f] == KIND_HISTOGRAM:
                    hist_scan = True
                    h_src, h_src_off, h_cnt, h_coff = pools.blocks, hoff, pools.block_counts, coff
                    h_counts_in_hist = unit_weights
                elif unit_weights:
                    counts_from_stats(pools.blocks, hoff, nc, width, task, hcount)
                    coff = 0
            else:
                fill_histogram(samples, start, end, codes, codes_t, f, block_slot[f], data.y_cls,
                               data.y_val, data.w, task, width, hist, hcount, nc)
                hist_scan = kind[f] == KIND_HISTOGRAM
            if kind[f] == KIND_CATEGORICAL:
                if cat is None:
                    # No categorical feature in the data (the caller passes cat=None): this
                    # never runs, and numba compiles the kernel without the categorical search.
                    constant = True
                else:
                    if in_block:
                        src = pools.blocks
                        src_off = hoff
                        cnt = pools.block_counts if not unit_weights else hcount
                    else:
                        src = hist
                        src_off = 0
                        cnt = hcount
                        coff = 0
                    n_present = 0
                    for b in range(nc):
                        if cnt[coff + b] > 0:
                            n_present += 1
                            if n_present > 1:
                                break
                    if n_present <= 1:
                        constant = True
                    elif params.multiway:
                        gain, n_children = best_multiway(src, src_off, cnt, coff, nc, width, task,
                                                         criterion, parent_mass, min_samples_leaf,
                                                         scratch.slot_map, 0.0)
                    else:
                        gain, n_children = best_binary_subset(
                            src, src_off, cnt, coff, nc, n_node, width, task, criterion, nv, poff,
                            parent_mass, min_samples_leaf, left, right, scratch.slot_map,
                            cat.present, cat.keys, cat.in_left, cat.order, cat.best_order,
                            scratch.perm, scratch.perm_scratch, 0.0)
        # A feature with missing values in training is scanned with its missing rows on each
        # side in the nodes that hold some (sorted last / the last code).
        if sorted_scan:
            gain, lo, hi, missing_slot = scan_sorted(
                sort_order, order_row, order_start, order_end, codes, codes_t, f, h_scan,
                data.y_cls, data.y_val, data.w, task, width, criterion, nv, poff, weight,
                parent_mass, min_samples_leaf, left, right, scratch.miss, scratch.mixed,
                missing_code[f])
        elif hist_scan:
            gain, lo, hi, missing_slot, n_present = scan_histogram(
                h_src, h_src_off, h_cnt, h_coff, h_counts_in_hist, nc, missing_code[f], n_node,
                task, width, criterion, nv, poff, weight, parent_mass, min_samples_leaf, left,
                right, scratch.miss, scratch.mixed, scratch.present_codes)
            constant = n_present <= 1
        if constant:
            const_flags[const_row, f] = 1
            n_constant_seen += 1
            continue
        if kind[f] != KIND_CATEGORICAL and lo < 0:
            continue
        if kind[f] == KIND_CATEGORICAL and n_children == 0:
            continue
        # Regression gains are float sums whose last bits depend on the order of the rows; two
        # features inducing the same partition must tie, so only a clear improvement replaces
        # the incumbent (class counts are exact: classification compares exactly).
        if gain > best_gain + tie_tolerance:
            best_gain = gain
            best_feature = f
            best_children = n_children
            best_missing = missing_slot
            categorical = kind[f] == KIND_CATEGORICAL
            best_map_offset, map_used, best_lo, best_threshold = keep_test(
                categorical, nc, scratch.slot_map, nodes.maps, map_used, lo,
                np.nan if categorical else code_threshold(data, f, lo, hi))
            # A test leaving pure children has the largest possible gain (parent_mass): no later
            # feature can beat it (ties keep the first), so the search can stop.
            if gain >= parent_mass:
                break
    pools.counters[S_MAP_USED] = map_used
    if best_feature >= 0:
        _record_test(node, ni, nf, params, weight, impurity, best_feature, best_lo,
                     best_threshold, best_children, best_map_offset, best_gain)
        # where the node's missing rows go (-1: it has none; the split decides, see
        # sample_partition.route_binary)
        ni[node, I_P_MISSING] = best_missing
