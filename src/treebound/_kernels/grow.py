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
:func:`grow_tree` whenever an array must grow. The first call creates the root
(:func:`_create_root`). One split is a sequence of steps, each its own kernel inlined into the
loop: check room and take the next leaf (:func:`_room_for_next_split`, :func:`_take_leaf`), route its samples to the children and partition the sample rows
(:mod:`~treebound._kernels.sample_partition`), give the children histogram blocks
(:func:`_child_blocks`), create the children (:func:`_create_children`), search their tests
(:func:`_search_new_nodes`) and put them on the frontier (:func:`_push_children`).
"""

from __future__ import annotations

import numpy as np

from treebound._config import (
    JIT_OPTIONS,
    NO_NRT_JIT_OPTIONS,
    STEP_JIT_OPTIONS,
    njit,
)
from treebound._kernels.criteria import (
    TASK_REGRESSION,
    add_sample_stats,
    stats_mass,
    stats_weight,
)
from treebound._kernels.extended_search import find_best_test_extended
from treebound._kernels.frontier import heap_pop, heap_push
from treebound._kernels.growth_extensions import extend_children, extend_root
from treebound._kernels.growth_state import (
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
    I_P_MAP_OFFSET,
    I_P_N_CHILDREN,
    I_SEG_START,
    KIND_CATEGORICAL,
    KIND_PRESORTED,
    N_FLOAT_COLUMNS,
    N_INT_COLUMNS,
    S_MAP_USED,
    S_N_FREE_BLOCKS,
    S_N_FREE_CONST,
    S_N_FRONTIER,
    S_N_LEAVES,
    S_N_NODES,
    GrowthParams,
    SampleOrder,
    TrainingData,
    all_unit_weights,
    feature_layout,
    grown_for_split,
    new_nodes,
    new_pools,
    new_scratch,
)
from treebound._kernels.histograms import build_block, remove_samples, subtract_block
from treebound._kernels.node_search import block_worth_it, find_best_test, stays_leaf
from treebound._kernels.sample_partition import partition_rows, route_binary, route_kway


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


@njit(**STEP_JIT_OPTIONS)
def _room_for_next_split(params, layout, nodes, pools):
    """Whether every array has room for the children of the next leaf on the frontier (heap
    top, or stack top). Nothing changes otherwise: the caller grows the arrays and calls
    again."""
    st = pools.counters
    if params.max_leaf_nodes > 0:
        node = pools.frontier[0]
    else:
        node = pools.frontier[st[S_N_FRONTIER] - 1]
    k = nodes.ints[node, I_P_N_CHILDREN]
    block_rows = pools.blocks.shape[0] // layout.block_size if layout.block_size > 0 else 0
    return not (st[S_N_NODES] + k > nodes.ints.shape[0] or st[S_N_FREE_CONST] < k
                or st[S_MAP_USED] + layout.cat_codes * k > nodes.maps.shape[0]
                or st[S_N_FRONTIER] + k > pools.frontier.shape[0]
                or (nodes.ints[node, I_BLOCK_ROW] >= 0 and st[S_N_FREE_BLOCKS] < k - 1
                    and block_rows < layout.max_block_rows))


@njit(**STEP_JIT_OPTIONS)
def _release_rows(node, ni, pools):
    """Return the node's constant-flag row and histogram block (if any) to their pools."""
    st = pools.counters
    pools.free_const[st[S_N_FREE_CONST]] = ni[node, I_CONST_ROW]
    st[S_N_FREE_CONST] += 1
    if ni[node, I_BLOCK_ROW] >= 0:
        pools.free_blocks[st[S_N_FREE_BLOCKS]] = ni[node, I_BLOCK_ROW]
        st[S_N_FREE_BLOCKS] += 1
        ni[node, I_BLOCK_ROW] = -1


@njit(**STEP_JIT_OPTIONS)
def _take_leaf(params, nodes, pools):
    """Remove the next leaf from the frontier; returns it, or -1 when its test is too wide for
    the remaining leaf budget (it then stays a leaf and its rows go back to the pools)."""
    st = pools.counters
    ni = nodes.ints
    if params.max_leaf_nodes > 0:
        node, n_frontier = heap_pop(pools.frontier_keys, pools.frontier, st[S_N_FRONTIER])
        st[S_N_FRONTIER] = n_frontier
        if st[S_N_LEAVES] + ni[node, I_P_N_CHILDREN] - 1 > params.max_leaf_nodes:
            # a multiway test too wide for the remaining leaf budget
            ni[node, I_P_FEATURE] = -1
            _release_rows(node, ni, pools)
            return -1
        return node
    st[S_N_FRONTIER] -= 1
    return pools.frontier[st[S_N_FRONTIER]]


@njit(**STEP_JIT_OPTIONS)
def _child_blocks(node, largest, data, layout, params, nodes, order, pools, split):
    """Histogram blocks of the children (``split.child_rows``, -1 for none).

    A child gets one only if it will be searched and is large enough (block_worth_it). The
    parent's block becomes the largest child's after the smaller children's blocks are
    subtracted (or their samples removed, for children keeping no block); when the largest
    child keeps no block, the smaller ones are just built. Only the parent's non-constant
    features are touched.
    """
    ni = nodes.ints
    k = ni[node, I_P_N_CHILDREN]
    child_rows = split.child_rows
    for j in range(k):
        child_rows[j] = -1
    parent_block = ni[node, I_BLOCK_ROW]
    if parent_block < 0:
        return
    st = pools.counters
    start = ni[node, I_SEG_START]
    const_row = ni[node, I_CONST_ROW]
    block_slot = layout.block_slot
    block_size = layout.block_size
    count_size = layout.count_size
    task = params.task
    width = params.width
    with_counts = not params.unit_weights
    active = split.active
    child_stats = split.child_stats
    child_counts = split.child_counts
    child_keep = split.child_keep
    n_active = 0
    for g in range(block_slot.shape[0]):
        if block_slot[g] >= 0 and pools.const_flags[const_row, g] == 0:
            active[n_active] = block_slot[g]
            n_active += 1
    for j in range(k):
        cw = stats_weight(child_stats, j * width, width, task)
        imp = (stats_mass(child_stats, j * width, width, task, params.criterion) / cw
               if cw > 0 else 0.0)
        wy = child_stats[j * width + 1] if task == TASK_REGRESSION else 0.0
        child_keep[j] = block_worth_it(child_counts[j], layout.n_block, block_size,
                                       layout.min_cells) and not stays_leaf(
            child_counts[j], ni[node, I_DEPTH] + 1, cw, imp, wy, task, params.max_depth,
            params.min_samples_split, params.min_samples_leaf)
    keep = child_keep[largest]
    if st[S_N_FREE_BLOCKS] >= k - 1:
        for j in range(k):
            if j == largest:
                continue
            cstart = start + split.child_offsets[j]
            if not child_keep[j]:
                if keep:
                    remove_samples(order.samples, cstart, cstart + child_counts[j],
                                   data.codes_t, data.y_cls, data.y_val, data.w, task, width,
                                   layout.hist_offset, layout.count_offset, active, n_active,
                                   pools.blocks, parent_block * block_size, pools.block_counts,
                                   parent_block * count_size, with_counts)
                continue
            st[S_N_FREE_BLOCKS] -= 1
            r = pools.free_blocks[st[S_N_FREE_BLOCKS]]
            child_rows[j] = r
            build_block(order.samples, cstart, cstart + child_counts[j], data.codes_t,
                        data.y_cls, data.y_val, data.w, task, width, layout.hist_offset,
                        layout.count_offset, layout.slot_codes, active, n_active, pools.blocks,
                        r * block_size, pools.block_counts, r * count_size, with_counts)
            if keep:
                subtract_block(width, layout.hist_offset, layout.count_offset,
                               layout.slot_codes, active, n_active, pools.blocks,
                               parent_block * block_size, r * block_size, pools.block_counts,
                               parent_block * count_size, r * count_size, with_counts)
    else:  # memory budget reached: these children go without blocks
        keep = False
    if keep:
        child_rows[largest] = parent_block
    else:
        pools.free_blocks[st[S_N_FREE_BLOCKS]] = parent_block
        st[S_N_FREE_BLOCKS] += 1
    ni[node, I_BLOCK_ROW] = -1


@njit(**STEP_JIT_OPTIONS)
def _create_children(node, params, nodes, pools, split):
    """Turn ``node`` into an internal node and create its children (statistics, impurity,
    constant-feature flags copied from the parent); returns the first child's id."""
    ni = nodes.ints
    nf = nodes.floats
    nv = nodes.stats
    st = pools.counters
    const_flags = pools.const_flags
    k = ni[node, I_P_N_CHILDREN]
    start = ni[node, I_SEG_START]
    const_row = ni[node, I_CONST_ROW]
    width = params.width
    first = st[S_N_NODES]
    st[S_N_NODES] += k
    ni[node, I_FIRST_CHILD] = first
    ni[node, I_N_CHILDREN] = k
    ni[node, I_FEATURE] = ni[node, I_P_FEATURE]
    ni[node, I_CATEGORY_OFFSET] = ni[node, I_P_MAP_OFFSET]
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
        ni[c, I_N_SAMPLES] = split.child_counts[j]
        ni[c, I_DEPTH] = ni[node, I_DEPTH] + 1
        ni[c, I_SEG_START] = start + split.child_offsets[j]
        ni[c, I_BLOCK_ROW] = split.child_rows[j]
        for col in range(width):
            nv[c * width + col] = split.child_stats[j * width + col]
        cw = stats_weight(nv, c * width, width, params.task)
        nf[c, F_WEIGHT] = cw
        nf[c, F_IMPURITY] = (stats_mass(nv, c * width, width, params.task, params.criterion)
                             / cw if cw > 0 else 0.0)
        st[S_N_FREE_CONST] -= 1
        row = pools.free_const[st[S_N_FREE_CONST]]
        for g in range(const_flags.shape[1]):
            const_flags[row, g] = const_flags[const_row, g]
        ni[c, I_CONST_ROW] = row
    pools.free_const[st[S_N_FREE_CONST]] = const_row
    st[S_N_FREE_CONST] += 1
    return first


@njit(**STEP_JIT_OPTIONS)
def _search_new_nodes(first, k, data, layout, params, nodes, order, pools, scratch, cat, ext):
    """Search the best test of the nodes ``first .. first + k - 1`` just created, in order
    (the random feature order of ``max_features`` is drawn node after node); the nodes that
    stay leaves give their rows back to the pools.

    The only call of :func:`find_best_test`, which is inlined here (a second inlined copy
    would double its share of the compile time). With extensions (``ext`` not None) the
    extended search runs instead, and the fast one is not compiled.
    """
    for c in range(first, first + k):
        if ext is None:
            find_best_test(c, data, layout, params, nodes, order, pools, scratch, cat)
        else:
            find_best_test_extended(c, data, layout, params, nodes, order, pools, scratch, cat,
                                    ext)
        if nodes.ints[c, I_P_FEATURE] < 0:
            _release_rows(c, nodes.ints, pools)


@njit(**STEP_JIT_OPTIONS)
def _push_children(first, k, params, nodes, pools):
    """Put the new nodes that have a test on the frontier (the stack pops the first child
    first)."""
    st = pools.counters
    if params.max_leaf_nodes > 0:
        for j in range(k):
            c = first + j
            if nodes.ints[c, I_P_FEATURE] >= 0:
                st[S_N_FRONTIER] = heap_push(pools.frontier_keys, pools.frontier,
                                             st[S_N_FRONTIER], -nodes.floats[c, F_PRIORITY], c)
    else:
        for j in range(k - 1, -1, -1):
            if nodes.ints[first + j, I_P_FEATURE] >= 0:
                pools.frontier[st[S_N_FRONTIER]] = first + j
                st[S_N_FRONTIER] += 1


@njit(**STEP_JIT_OPTIONS)
def _create_root(data, layout, params, nodes, pools, order, split):
    """Node 0 with every sample (statistics, weight, impurity, a constant-flag row, and a
    histogram block if worth it); its test is searched like any new node's."""
    ni = nodes.ints
    nf = nodes.floats
    nv = nodes.stats
    st = pools.counters
    task = params.task
    width = params.width
    n = data.y_cls.shape[0]
    for col in range(N_INT_COLUMNS):
        ni[0, col] = -1
    for col in range(N_FLOAT_COLUMNS):
        nf[0, col] = 0.0
    for col in range(width):
        nv[col] = 0.0
    for s in range(n):
        add_sample_stats(nv, 0, s, data.y_cls, data.y_val, data.w, task)
    root_weight = stats_weight(nv, 0, width, task)
    ni[0, I_N_CHILDREN] = 0
    ni[0, I_N_SAMPLES] = n
    ni[0, I_DEPTH] = 0
    ni[0, I_SEG_START] = 0
    nf[0, F_WEIGHT] = root_weight
    nf[0, F_IMPURITY] = stats_mass(nv, 0, width, task, params.criterion) / root_weight
    nf[0, F_THRESHOLD] = np.nan
    st[S_N_FREE_CONST] -= 1
    ni[0, I_CONST_ROW] = pools.free_const[st[S_N_FREE_CONST]]
    if layout.max_block_rows > 0 and block_worth_it(n, layout.n_block, layout.block_size,
                                                    layout.min_cells):
        for h in range(layout.n_block):
            split.active[h] = h
        st[S_N_FREE_BLOCKS] -= 1
        r = pools.free_blocks[st[S_N_FREE_BLOCKS]]
        build_block(order.samples, 0, n, data.codes_t, data.y_cls, data.y_val, data.w, task,
                    width, layout.hist_offset, layout.count_offset, layout.slot_codes,
                    split.active, layout.n_block, pools.blocks, r * layout.block_size,
                    pools.block_counts, r * layout.count_size, not params.unit_weights)
        ni[0, I_BLOCK_ROW] = r
    st[S_N_NODES] = 1
    st[S_N_LEAVES] = 1


@njit(**NO_NRT_JIT_OPTIONS)
def _split_loop(data, layout, params, nodes, order, pools, scratch, cat, split, ext):
    """Split frontier nodes until done (returns 0) or an array is too small (returns 1).

    The first call creates the root. Before each split the capacities needed for its children
    are checked; on failure nothing is changed and the caller grows the arrays and calls again.
    Growth is this one call from Python (plus one per growth of the arrays): every call from
    Python costs microseconds of argument unboxing, which showed on small trees.
    """
    st = pools.counters
    # nodes created by the previous step, whose tests are not searched yet
    first = 0
    k = 0
    if st[S_N_NODES] == 0:
        _create_root(data, layout, params, nodes, pools, order, split)
        if ext is not None:
            extend_root(data, params, nodes, order, ext)
        k = 1
    while True:
        if k > 0:
            _search_new_nodes(first, k, data, layout, params, nodes, order, pools, scratch, cat,
                              ext)
            _push_children(first, k, params, nodes, pools)
            k = 0
        if st[S_N_FRONTIER] == 0:
            return 0
        if params.max_leaf_nodes > 0 and st[S_N_LEAVES] >= params.max_leaf_nodes:
            return 0
        if not _room_for_next_split(params, layout, nodes, pools):
            return 1
        node = _take_leaf(params, nodes, pools)
        if node < 0:
            continue
        if nodes.ints[node, I_P_N_CHILDREN] == 2:
            route_binary(node, data, layout, params, nodes, order, pools, split)
        else:
            route_kway(node, data, layout, params, nodes, order, split)
        largest = partition_rows(node, layout, nodes, order, pools, split)
        _child_blocks(node, largest, data, layout, params, nodes, order, pools, split)
        first = _create_children(node, params, nodes, pools, split)
        k = nodes.ints[node, I_N_CHILDREN]
        if ext is not None:
            extend_children(node, first, k, data, params, nodes, order, ext)


def grow_tree(codes, codes_t, n_codes, kind, lo_values, hi_values, value_offset, y_cls, y_val, w,
              task, width, criterion, growth, max_depth, min_samples_split, min_samples_leaf,
              min_impurity_decrease, max_leaf_nodes, max_features, multiway, seed,
              max_block_rows, missing_code=None, ext=None):
    """Grow a tree; returns the node arrays (int columns, float columns, statistics, map pool).

    ``codes`` is (n_features, n_samples) int32 and ``codes_t`` the (n_samples, n_block) uint8
    codes of the non-presorted features with at most ``BLOCK_MAX_CODES`` codes, in feature order
    (they share histogram blocks; other non-presorted features are histogrammed one by one).
    Block features are only read from ``codes_t``: their rows of ``codes`` may be unfilled;
    ``kind`` says how each feature is searched; ``lo_values[value_offset[f] + c]`` /
    ``hi_values[...]`` are the smallest / largest training value with code ``c`` (thresholds go
    midway between the largest value sent left and the smallest sent right). At most
    ``max_block_rows`` histogram blocks are alive at once. ``missing_code[f]`` is the code of
    feature ``f``'s missing rows (its last), ``-1`` (the default, for every feature) without.

    This driver is plain Python on purpose: it only sizes and allocates the arrays and calls the
    compiled kernels (one call of :func:`_split_loop` per fit, plus one per growth of the
    arrays, ~15 us each). ``ext`` is None, or the
    :class:`~treebound._kernels.growth_extensions.Extensions` of the options beyond the fast
    path (then ``max_block_rows`` must be 0: the extended search keeps no histogram blocks).
    As a compiled function it would link,
    re-optimize and re-emit all of :func:`_split_loop` and :func:`find_best_test` a third time,
    which was a quarter of the first run's compile time.
    """
    n_features, n = codes.shape
    task, width, criterion, growth = int(task), int(width), int(criterion), int(growth)
    max_leaf_nodes, max_block_rows = int(max_leaf_nodes), int(max_block_rows)
    kind = np.asarray(kind, dtype=np.int64)
    n_codes = np.asarray(n_codes, dtype=np.int64)
    unit_weights = bool(all_unit_weights(w))
    if missing_code is None:
        missing_code = np.full(n_features, -1, dtype=np.int64)
    data = TrainingData(codes, codes_t, n_codes, kind, lo_values, hi_values, value_offset, y_cls,
                        y_val, w, np.asarray(missing_code, dtype=np.int64))
    layout = feature_layout(kind, n_codes, width, unit_weights, max_block_rows)

    searched = kind != KIND_PRESORTED
    categorical = searched & (kind == KIND_CATEGORICAL)
    max_children = 2
    if multiway and categorical.any():
        max_children = max(2, int(n_codes[categorical].max()))
    # largest code count of a histogram-searched feature (sizes the scratch)
    max_codes = max(2, int(n_codes[searched].max())) if searched.any() else 2
    # the extended search (monotonic constraints, extra criteria) always takes the categorical
    # scratch: one compiled variant of that slower path instead of two
    search, cat, split = new_scratch(n, n_features, max_codes, max_children, width,
                                     layout.n_block, bool(categorical.any()) or ext is not None,
                                     seed)
    order = SampleOrder(
        samples=np.arange(n, dtype=np.int32).reshape(1, n),
        presorted=presort_rows(codes, n_codes, layout.presort_row, layout.n_presorted),
        slot_of=np.zeros(n, dtype=np.int32),
    )

    nodes = new_nodes(n, width, max_leaf_nodes, layout.cat_codes)
    pools = new_pools(n_features, layout)
    params = GrowthParams(
        task=task, width=width, criterion=criterion, growth=growth, max_depth=int(max_depth),
        min_samples_split=int(min_samples_split), min_samples_leaf=int(min_samples_leaf),
        min_impurity_decrease=float(min_impurity_decrease), max_leaf_nodes=max_leaf_nodes,
        max_features=int(max_features), multiway=bool(multiway), unit_weights=unit_weights)
    while _split_loop(data, layout, params, nodes, order, pools, search, cat, split, ext) != 0:
        # Grow whatever is too small for the next split (it has at most max_children children).
        nodes, pools = grown_for_split(nodes, pools, layout, width, max_children)
    st = pools.counters
    n_nodes = int(st[S_N_NODES])
    stats = nodes.stats[: n_nodes * width].copy().reshape((n_nodes, width))
    return (nodes.ints[:n_nodes].copy(), nodes.floats[:n_nodes].copy(), stats,
            nodes.maps[: st[S_MAP_USED]].copy())
