"""Sample partitioning when a node is split: routing each sample to its child, and stable
partitions of the index segments.

The node's samples occupy ``arr[row, start:end]`` (the sample list, and every presorted feature
row); ``slot_of[sample]`` says which child each goes to. Partitioning is stable, so presorted rows
stay sorted inside every child segment and children occupy consecutive sub-segments in slot order.
"""

from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_JIT_OPTIONS, STEP_JIT_OPTIONS, njit
from treebound._kernels.criteria import TASK_REGRESSION, add_sample_stats
from treebound._kernels.growth_state import (
    I_BLOCK_ROW,
    I_CONST_ROW,
    I_MISSING,
    I_N_SAMPLES,
    I_P_FEATURE,
    I_P_LO_CODE,
    I_P_MAP_OFFSET,
    I_P_MISSING,
    I_P_N_CHILDREN,
    I_SEG_START,
)
from treebound._kernels.prefetch import prefetch
from treebound._kernels.split_numeric import code_of

#: How many samples ahead the routing loop prefetches codes_t rows.
_PREFETCH = 16


@njit(**NO_NRT_JIT_OPTIONS)
def partition_binary(arr, row, start, end, slot_of, tmp):
    """Stable two-way partition in place (slot 0 first); returns the size of slot 0."""
    write = start
    n_right = 0
    for i in range(start, end):
        s = arr[row, i]
        if slot_of[s] == 0:
            arr[row, write] = s
            write += 1
        else:
            tmp[n_right] = s
            n_right += 1
    for j in range(n_right):
        arr[row, write + j] = tmp[j]
    return write - start


@njit(**NO_NRT_JIT_OPTIONS)
def partition_kway(arr, row, start, end, slot_of, child_offsets, n_children, positions, tmp):
    """Stable k-way partition; ``child_offsets[j]`` is child j's start relative to ``start``."""
    for j in range(n_children):
        positions[j] = child_offsets[j]
    for i in range(start, end):
        s = arr[row, i]
        slot = slot_of[s]
        tmp[positions[slot]] = s
        positions[slot] += 1
    for i in range(end - start):
        arr[row, start + i] = tmp[i]


@njit(**STEP_JIT_OPTIONS)
def route_kway(node, data, layout, params, nodes, order, split):
    """Child slot (``order.slot_of``), sample count and statistics of every child of a node
    split k ways (its rows are partitioned by :func:`partition_rows`)."""
    ni = nodes.ints
    k = ni[node, I_P_N_CHILDREN]
    f = ni[node, I_P_FEATURE]
    h = layout.block_slot[f]
    width = params.width
    start = ni[node, I_SEG_START]
    map_offset = ni[node, I_P_MAP_OFFSET]
    for j in range(k * width):
        split.child_stats[j] = 0.0
    for j in range(k):
        split.child_counts[j] = 0
    for i in range(start, start + ni[node, I_N_SAMPLES]):
        s = order.samples[0, i]
        slot = nodes.maps[map_offset + code_of(data.codes, data.codes_t, f, h, s)]
        order.slot_of[s] = slot
        split.child_counts[slot] += 1
        add_sample_stats(split.child_stats, slot * width, s, data.y_cls, data.y_val, data.w,
                         params.task)


@njit(**STEP_JIT_OPTIONS)
def route_binary(node, data, layout, params, nodes, order, pools, split):
    """Sample count and statistics of both children of a binary split, and the sample list
    partitioned in the same pass (``order.slot_of`` is set when presorted rows must follow).

    A block feature's code is read from the sample's codes_t row, which building the children's
    block reads next (the feature's own code row would be one more cache miss per sample).

    A numeric test's missing rows (the feature's ``missing_code``) go to the child its search
    chose; when the node has none, missing values met at prediction go to the child with more
    training rows (the right one on ties: scikit-learn's ``n_left > n_right``). That child is
    recorded in ``I_MISSING``.
    """
    ni = nodes.ints
    f = ni[node, I_P_FEATURE]
    start = ni[node, I_SEG_START]
    end = start + ni[node, I_N_SAMPLES]
    map_offset = ni[node, I_P_MAP_OFFSET]
    lo_code = ni[node, I_P_LO_CODE]
    miss_code = data.missing_code[f] if map_offset < 0 else -1
    # the node's missing rows follow its search (a node without any routes none)
    miss_slot = ni[node, I_P_MISSING] if ni[node, I_P_MISSING] >= 0 else 1
    n_missing = 0
    parent_block = ni[node, I_BLOCK_ROW]
    samples = order.samples
    codes_t = data.codes_t
    task = params.task
    width = params.width
    maps = nodes.maps
    child_stats = split.child_stats
    for j in range(2 * width):
        child_stats[j] = 0.0
    write = start
    n_right = 0
    h_route = layout.block_slot[f]
    unit_classes = params.unit_weights and task != TASK_REGRESSION
    # Class counts of the children straight from the parent's histogram of the split feature
    # when it has one (exact: integer counts), not sample by sample.
    stats_from_block = parent_block >= 0 and h_route >= 0 and unit_classes
    if stats_from_block:
        base = parent_block * layout.block_size + layout.hist_offset[h_route]
        for code in range(data.n_codes[f]):
            if map_offset >= 0:
                slot = maps[map_offset + code]
            elif code == miss_code:
                slot = miss_slot
            else:
                slot = 0 if code <= lo_code else 1
            for col in range(width):
                child_stats[slot * width + col] += pools.blocks[base + code * width + col]
    n_block = layout.n_block
    track_slots = layout.n_presorted > 0
    for i in range(start, end):
        if h_route >= 0 and i + _PREFETCH < end:
            prefetch(codes_t, samples[0, i + _PREFETCH] * n_block + h_route)
        s = samples[0, i]
        code = np.int64(codes_t[s, h_route]) if h_route >= 0 else np.int64(data.codes[f, s])
        if map_offset >= 0:
            slot = maps[map_offset + code]
        elif code == miss_code:
            slot = miss_slot
            n_missing += 1
        else:
            slot = 0 if code <= lo_code else 1
        if track_slots:
            order.slot_of[s] = slot
        if not stats_from_block:
            if unit_classes:
                child_stats[slot * width + data.y_cls[s]] += 1.0
            else:
                add_sample_stats(child_stats, slot * width, s, data.y_cls, data.y_val, data.w,
                                 task)
        if slot == 0:
            samples[0, write] = s
            write += 1
        else:
            split.tmp[n_right] = s
            n_right += 1
    for j in range(n_right):
        samples[0, write + j] = split.tmp[j]
    split.child_counts[0] = write - start
    split.child_counts[1] = n_right
    if map_offset < 0:
        ni[node, I_MISSING] = miss_slot if n_missing > 0 else (
            0 if write - start > n_right else 1)


@njit(**STEP_JIT_OPTIONS)
def partition_rows(node, layout, nodes, order, pools, split):
    """Lay out the children's segments (``split.child_offsets``, relative to the parent's
    start) and partition into them, stably, the presorted rows of the node's non-constant
    features (and the sample list for a k-way split); returns the largest child (the first of
    the largest)."""
    ni = nodes.ints
    k = ni[node, I_P_N_CHILDREN]
    start = ni[node, I_SEG_START]
    end = start + ni[node, I_N_SAMPLES]
    const_row = ni[node, I_CONST_ROW]
    presort_row = layout.presort_row
    const_flags = pools.const_flags
    offset = 0
    largest = 0
    for j in range(k):
        split.child_offsets[j] = offset
        offset += split.child_counts[j]
        if split.child_counts[j] > split.child_counts[largest]:
            largest = j
    if k == 2:
        for g in range(presort_row.shape[0]):
            if presort_row[g] >= 0 and const_flags[const_row, g] == 0:
                partition_binary(order.presorted, presort_row[g], start, end, order.slot_of,
                                 split.tmp)
        return largest
    partition_kway(order.samples, 0, start, end, order.slot_of, split.child_offsets, k,
                   split.positions, split.tmp)
    for g in range(presort_row.shape[0]):
        if presort_row[g] >= 0 and const_flags[const_row, g] == 0:
            partition_kway(order.presorted, presort_row[g], start, end, order.slot_of,
                           split.child_offsets, k, split.positions, split.tmp)
    return largest
