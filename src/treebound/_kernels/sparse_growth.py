"""Tree growth on a sparse matrix, without densifying it.

The features arrive coded as for the dense kernels (:mod:`treebound._flat._sparse_coding`: the
same codes, value ranges and thresholds), but only the rows' *stored* entries are kept; every
other row of feature ``f`` holds the value 0, code ``zero_code[f]``. Every leaf holds its rows' entries as one segment
sorted by (feature, code, row) (the root's from the coding; a split partitions its node's
segment stably between the children, O(entries of the node), so no node gathers or sorts); a
feature without entries there is constant (all zeros) and costs nothing. A feature's entries,
in code order, and the node's zeros (the node's statistics minus its entries') form its
histogram, scanned in code order with the arithmetic of
:func:`~treebound._kernels.split_numeric.scan_histogram`. Growth itself — the order of the
frontier, the features' (seeded) random order under ``max_features``, the constant-feature
flags, the tie rules and the stopping rules — is that of :mod:`treebound._kernels.grow`, so the
tree is the dense kernels' tree (bit for bit for the counting criteria under unit weights,
where every statistic is an integer; up to rounding of sums otherwise).

Numeric features only, without missing values (scikit-learn refuses NaN in a sparse ``X``
too). Memory: the entries once and a half (the leaves' segments, and the partition's scratch
for the smaller side), O(n) per sample array, and a bitset of constant features per frontier
node. The entries' indices are the narrowest that hold them
(:mod:`treebound._flat._sparse_coding`).
"""

from __future__ import annotations

import numpy as np

from treebound._config import JIT_OPTIONS, NO_NRT_INLINE_JIT_OPTIONS, njit
from treebound._kernels.array_copy import copy_prefix
from treebound._kernels.criteria import (
    NO_RUNNING_SUMS,
    RUNNING_SUMS,
    TASK_REGRESSION,
    add_sample_stats,
    running_children_mass,
    running_sums,
    running_term_change,
    stats_mass,
    stats_weight,
)
from treebound._kernels.feature_draw import first_candidates, next_candidate
from treebound._kernels.frontier import heap_pop, heap_push
from treebound._kernels.growth_state import (
    F_IMPURITY,
    F_P_THRESHOLD,
    F_PRIORITY,
    F_THRESHOLD,
    F_WEIGHT,
    I_CONST_ROW,
    I_DEPTH,
    I_FEATURE,
    I_FIRST_CHILD,
    I_MISSING,
    I_N_CHILDREN,
    I_N_SAMPLES,
    I_P_FEATURE,
    I_P_LO_CODE,
    I_SEG_START,
    N_FLOAT_COLUMNS,
    N_INT_COLUMNS,
)
from treebound._kernels.node_search import _record_test, stays_leaf
from treebound._kernels.sparse_coding import code_value
from treebound._kernels.split_numeric import midpoint_threshold

_EPSILON = np.finfo(np.float64).eps


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def _first_at_least(a, lo, hi, v):
    """First position in ``a[lo:hi]`` (sorted) holding a value ``>= v`` (``hi`` if none)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def _apply_group(h, width, running, criterion, left, right, sums, weight_left):
    """Move a code's statistics ``h`` from the right child to the left one (scan_histogram's
    update); returns the new left weight (``sums``: running sums of left and right)."""
    if running == RUNNING_SUMS:
        for k in range(width):
            v = h[k]
            cl = left[k]
            cr = right[k]
            sums[0] += running_term_change(criterion, cl, v)
            sums[1] += running_term_change(criterion, cr, -v)
            left[k] = cl + v
            right[k] = cr - v
            weight_left += v
    elif running != NO_RUNNING_SUMS:
        for k in range(width):
            v = h[k]
            if v != 0.0:
                cl = left[k]
                cr = right[k]
                sums[0] += running_term_change(criterion, cl, v)
                sums[1] += running_term_change(criterion, cr, -v)
                left[k] = cl + v
                right[k] = cr - v
                weight_left += v
    else:
        for k in range(width):
            left[k] += h[k]
            right[k] -= h[k]
    return weight_left


@njit(**JIT_OPTIONS)
def _scan_feature(codes, samples_of, m, order, zero, n_node, y_cls, y_val, w, task, width,
                  criterion, parent, parent_off, parent_weight, parent_mass, min_samples_leaf,
                  left, right, h, zeros, sums):
    """Best cut of one feature at a node from its ``m`` entries (``codes``/``samples_of``,
    visited in ``order``: by code) and its zeros (code ``zero``; statistics ``zeros``, count
    ``n_node - m``): ``(gain, left_code, right_code, n_present)``, as scan_histogram."""
    regression = task == TASK_REGRESSION
    running = NO_RUNNING_SUMS if regression else running_sums(criterion, False)
    sums[0] = 0.0
    sums[1] = 0.0
    for k in range(width):
        left[k] = 0.0
        right[k] = parent[parent_off + k]
        if running != NO_RUNNING_SUMS:
            sums[1] += running_term_change(criterion, 0.0, right[k])
    weight_left = 0.0
    best_gain = -np.inf
    best_lo = -1
    best_hi = -1
    prev = -1
    n_left = 0
    n_present = 0
    n_zero = n_node - m
    zero_done = n_zero == 0
    p = 0
    while p < m or not zero_done:
        # the next code in order: the entries' next code, or the zeros' when it comes first
        entry_code = np.int64(codes[order[p]]) if p < m else np.int64(1) << 62
        for k in range(width):
            h[k] = 0.0
        count = 0
        if not zero_done and zero <= entry_code:
            b = zero
            for k in range(width):
                h[k] = zeros[k]
            count = n_zero
            zero_done = True
        else:
            b = entry_code
        while p < m and np.int64(codes[order[p]]) == b:
            add_sample_stats(h, 0, samples_of[order[p]], y_cls, y_val, w, task)
            count += 1
            p += 1
        n_present += 1
        if prev >= 0:
            if n_node - n_left < min_samples_leaf:
                # no later cut leaves enough rows on the right (counting continues)
                prev = b
                n_left += count
                continue
            if n_left >= min_samples_leaf:
                if running != NO_RUNNING_SUMS:
                    child = running_children_mass(criterion, weight_left,
                                                  parent_weight - weight_left, sums[0], sums[1])
                else:
                    child = stats_mass(left, 0, width, task, criterion) + \
                        stats_mass(right, 0, width, task, criterion)
                gain = parent_mass - child
                if gain > best_gain:
                    best_gain = gain
                    best_lo = prev
                    best_hi = b
        weight_left = _apply_group(h, width, running, criterion, left, right, sums, weight_left)
        n_left += count
        prev = b
    return best_gain, best_lo, best_hi, n_present


@njit(**JIT_OPTIONS)
def _buckets(seg_feat, es, ec, count, touched, fstart):
    """The features of a node's segment ``[es, es + ec)`` (sorted by feature): feature ``f``'s
    entries are ``fstart[f] : fstart[f] + count[f]``; returns how many features (``touched[:t]``,
    increasing)."""
    t = 0
    e = es
    end = es + ec
    while e < end:
        f = seg_feat[e]
        b = e
        while e < end and seg_feat[e] == f:
            e += 1
        touched[t] = f
        fstart[f] = b
        count[f] = e - b
        t += 1
    return t


@njit(**JIT_OPTIONS)
def _search(node, ints, floats, stats, params, seg_feat, seg_code, seg_sample, ent_start,
            ent_count, zero_code, tables, y_cls, y_val, w, const_flags, n_features, flagged,
            rng, ws):
    """Find and record the best test of ``node`` (node_search.find_best_test for sparse rows)
    from its segment of entries: ``ws`` holds the work arrays, ``tables`` the binned columns'
    value tables and the input matrix (a rank code's value)."""
    (count, touched, fstart, cand, left, right, h, zeros, sums, identity) = ws
    lo_values, hi_values, value_offset, x_indptr, x_indices, x_data = tables
    task = params.task
    width = params.width
    criterion = params.criterion
    ints[node, I_P_FEATURE] = -1
    n_node = ints[node, I_N_SAMPLES]
    weight = floats[node, F_WEIGHT]
    impurity = floats[node, F_IMPURITY]
    poff = node * width
    sum_wy = stats[poff + 1] if task == TASK_REGRESSION else 0.0
    if stays_leaf(n_node, ints[node, I_DEPTH], weight, impurity, sum_wy, task, params.max_depth,
                  params.min_samples_split, params.min_samples_leaf):
        return
    parent_mass = stats_mass(stats, poff, width, task, criterion)
    tie_tolerance = 1e-9 * parent_mass if task == TASK_REGRESSION else 0.0
    t = _buckets(seg_feat, ent_start[node], ent_count[node], count, touched, fstart)
    const_row = ints[node, I_CONST_ROW]
    # The candidates in index order: every feature not yet known constant (as the dense
    # kernel); without a random subset only the features with entries here can be split.
    n_cand = 0
    n_unknown = 0
    if flagged:
        # scikit-learn's draws, as the dense kernel: among every feature, those known constant
        # here included (they count as visited)
        n_cand, n_unknown = first_candidates(const_flags, const_row, n_features, True, True,
                                             cand)
    else:
        for j in range(t):  # increasing already
            cand[j] = touched[j]
        n_cand = t
    best_gain = -np.inf
    best_feature = -1
    best_lo = -1
    best_threshold = np.nan
    visited = 0
    n_constant_seen = 0
    i = 0
    max_features = params.max_features
    shuffle = flagged
    while True:
        f, i, n_unknown, visited, n_constant_seen = next_candidate(
            cand, i, n_cand, n_unknown, visited, n_constant_seen, max_features, shuffle,
            const_flags, const_row, True, rng)
        if f < 0:
            break
        m = count[f]
        base = fstart[f]
        n_present = 0
        gain = -np.inf
        lo = -1
        hi = -1
        if m > 0:
            for k in range(width):
                zeros[k] = stats[poff + k]
            for e in range(m):
                s = seg_sample[base + e]
                if task == TASK_REGRESSION:
                    zeros[0] -= w[s]
                    zeros[1] -= w[s] * y_val[s]
                    zeros[2] -= w[s] * y_val[s] * y_val[s]
                else:
                    zeros[y_cls[s]] -= w[s]
            gain, lo, hi, n_present = _scan_feature(
                seg_code[base:], seg_sample[base:], m, identity, zero_code[f], n_node, y_cls,
                y_val,
                w, task, width, criterion, stats, poff, weight, parent_mass,
                params.min_samples_leaf, left, right, h, zeros, sums)
        if n_present <= 1:
            if flagged:
                const_flags[const_row, f >> 6] |= np.uint64(1) << np.uint64(f & 63)
                n_constant_seen += 1
            continue
        if lo < 0:
            continue
        if gain > best_gain + tie_tolerance:
            best_gain = gain
            best_feature = f
            best_lo = lo
            off = value_offset[f]
            if off >= 0:  # a binned column: its bins' value ranges
                best_threshold = midpoint_threshold(lo_values[off + hi], hi_values[off + lo])
            else:  # rank codes: the values of the node's entries with those codes
                best_threshold = midpoint_threshold(
                    code_value(x_indptr, x_indices, x_data, f, hi, zero_code[f], seg_code,
                               seg_sample, base, base + m),
                    code_value(x_indptr, x_indices, x_data, f, lo, zero_code[f], seg_code,
                               seg_sample, base, base + m))
            if gain >= parent_mass:
                break
    for j in range(t):
        count[touched[j]] = 0
    if best_feature >= 0:
        _record_test(node, ints, floats, params, weight, impurity, best_feature, best_lo,
                     best_threshold, 2, -1, best_gain)


@njit(**JIT_OPTIONS)
def _grown(a, rows):
    out = np.empty((rows,) + a.shape[1:], dtype=a.dtype)
    # both C-contiguous: a's rows are the start of out's, element for element
    copy_prefix(a.reshape(a.size), out.reshape(out.size), a.size)
    return out


@njit(**JIT_OPTIONS)
def grow_sparse(seg_feat, seg_code, seg_sample, zero_code, n_features, tables, y_cls, y_val, w,
                params, seed):
    """Grow a tree on sparse rows; returns the node arrays of
    :func:`treebound._kernels.grow.grow_tree` (int columns, float columns, statistics, an empty
    map pool). ``seg_*``: the stored entries sorted by (feature, code, row), the root's
    segment; they are partitioned in place as the nodes split."""
    n = y_cls.shape[0]
    task = params.task
    width = params.width
    max_leaf_nodes = params.max_leaf_nodes
    cap = 64
    ints = np.empty((cap, N_INT_COLUMNS), dtype=np.int64)
    floats = np.empty((cap, N_FLOAT_COLUMNS), dtype=np.float64)
    stats = np.empty(cap * width, dtype=np.float64)
    samples = np.arange(n).astype(np.int32)
    tmp = np.empty(n, dtype=np.int32)
    nnz = seg_feat.shape[0]
    side = np.zeros(max(n, 1), dtype=np.int8)
    half = nnz // 2 + 1  # a partition's smaller side
    tmp_feat = np.empty(half, dtype=seg_feat.dtype)
    tmp_code = np.empty(half, dtype=seg_code.dtype)
    tmp_sample = np.empty(half, dtype=seg_sample.dtype)
    ent_start = np.empty(cap, dtype=np.int64)
    ent_count = np.empty(cap, dtype=np.int64)
    flagged = params.max_features < n_features
    n_words = (n_features + 63) // 64 if flagged else 1
    const_flags = np.zeros((16, n_words), dtype=np.uint64)
    free_const = list(range(15, -1, -1))
    rng = np.array([seed], dtype=np.int64).view(np.uint64)
    ws = (np.zeros(n_features, dtype=np.int64), np.empty(n_features, dtype=np.int64),
          np.empty(n_features, dtype=np.int64), np.empty(n_features, dtype=np.int64),
          np.empty(width), np.empty(width), np.empty(width), np.empty(width), np.empty(2),
          np.arange(max(n, 1)))
    child_stats = np.empty(2 * width)
    frontier = np.empty(64, dtype=np.int64)
    frontier_keys = np.empty(64, dtype=np.float64)
    n_frontier = 0
    # the root
    for col in range(N_INT_COLUMNS):
        ints[0, col] = -1
    for col in range(N_FLOAT_COLUMNS):
        floats[0, col] = 0.0
    for k in range(width):
        stats[k] = 0.0
    for s in range(n):
        add_sample_stats(stats, 0, s, y_cls, y_val, w, task)
    root_weight = stats_weight(stats, 0, width, task)
    ints[0, I_N_CHILDREN] = 0
    ints[0, I_N_SAMPLES] = n
    ints[0, I_DEPTH] = 0
    ints[0, I_SEG_START] = 0
    ent_start[0] = 0
    ent_count[0] = nnz
    floats[0, F_WEIGHT] = root_weight
    floats[0, F_IMPURITY] = stats_mass(stats, 0, width, task, params.criterion) / root_weight
    floats[0, F_THRESHOLD] = np.nan
    ints[0, I_CONST_ROW] = free_const.pop()
    n_nodes = 1
    n_leaves = 1
    first = 0
    k_new = 1
    while True:
        for c in range(first, first + k_new):
            _search(c, ints, floats, stats, params, seg_feat, seg_code, seg_sample, ent_start,
                    ent_count, zero_code, tables, y_cls, y_val, w, const_flags, n_features,
                    flagged, rng, ws)
            if ints[c, I_P_FEATURE] < 0:
                free_const.append(ints[c, I_CONST_ROW])
        if n_frontier + k_new > frontier.shape[0]:
            frontier = _grown(frontier, 2 * (n_frontier + k_new))
            frontier_keys = _grown(frontier_keys, 2 * (n_frontier + k_new))
        if max_leaf_nodes > 0:
            for c in range(first, first + k_new):
                if ints[c, I_P_FEATURE] >= 0:
                    n_frontier = heap_push(frontier_keys, frontier, n_frontier,
                                           -floats[c, F_PRIORITY], c)
        else:
            for c in range(first + k_new - 1, first - 1, -1):
                if ints[c, I_P_FEATURE] >= 0:
                    frontier[n_frontier] = c
                    n_frontier += 1
        if n_frontier == 0 or (max_leaf_nodes > 0 and n_leaves >= max_leaf_nodes):
            break
        if max_leaf_nodes > 0:
            node, n_frontier = heap_pop(frontier_keys, frontier, n_frontier)
        else:
            n_frontier -= 1
            node = frontier[n_frontier]
        # route the node's rows (stable partition) and sum the children's statistics
        f = ints[node, I_P_FEATURE]
        lo_code = ints[node, I_P_LO_CODE]
        start = ints[node, I_SEG_START]
        end = start + ints[node, I_N_SAMPLES]
        for k in range(2 * width):
            child_stats[k] = 0.0
        # every row's side: the zeros' side, then the node's entries of f (its bucket in the
        # segment, found by binary search: the segment is sorted by feature)
        es = ent_start[node]
        ec = ent_count[node]
        zero_slot = 0 if zero_code[f] <= lo_code else 1
        for i in range(start, end):
            side[samples[i]] = zero_slot
        b = _first_at_least(seg_feat, es, es + ec, f)
        e_end = _first_at_least(seg_feat, b, es + ec, f + 1)
        for e in range(b, e_end):
            side[seg_sample[e]] = 0 if seg_code[e] <= lo_code else 1
        write = start
        n_right = 0
        for i in range(start, end):
            s = samples[i]
            slot = side[s]
            add_sample_stats(child_stats, slot * width, s, y_cls, y_val, w, task)
            if slot == 0:
                samples[write] = s
                write += 1
            else:
                tmp[n_right] = s
                n_right += 1
        for j in range(n_right):
            samples[write + j] = tmp[j]
        n_left = write - start
        ints[node, I_MISSING] = 0 if n_left > n_right else 1
        # the node's entries between the children, stably: each keeps (feature, code, row);
        # the smaller side goes through the scratch (half the entries at most)
        n_right_e = 0
        for e in range(es, es + ec):
            n_right_e += side[seg_sample[e]]
        write_e = es + ec - n_right_e
        if n_right_e <= ec - n_right_e:  # the left entries forward in place, then the right
            at = es
            k = 0
            for e in range(es, es + ec):
                if side[seg_sample[e]] == 0:
                    seg_feat[at] = seg_feat[e]
                    seg_code[at] = seg_code[e]
                    seg_sample[at] = seg_sample[e]
                    at += 1
                else:
                    tmp_feat[k] = seg_feat[e]
                    tmp_code[k] = seg_code[e]
                    tmp_sample[k] = seg_sample[e]
                    k += 1
            for j in range(k):
                seg_feat[write_e + j] = tmp_feat[j]
                seg_code[write_e + j] = tmp_code[j]
                seg_sample[write_e + j] = tmp_sample[j]
        else:  # the right entries backward in place (to positions already read), then the left
            at = es + ec
            k = 0
            for e in range(es + ec - 1, es - 1, -1):
                if side[seg_sample[e]] == 1:
                    at -= 1
                    seg_feat[at] = seg_feat[e]
                    seg_code[at] = seg_code[e]
                    seg_sample[at] = seg_sample[e]
                else:
                    tmp_feat[k] = seg_feat[e]
                    tmp_code[k] = seg_code[e]
                    tmp_sample[k] = seg_sample[e]
                    k += 1
            for j in range(k):
                seg_feat[es + j] = tmp_feat[k - 1 - j]
                seg_code[es + j] = tmp_code[k - 1 - j]
                seg_sample[es + j] = tmp_sample[k - 1 - j]
        # the children
        if n_nodes + 2 > ints.shape[0]:
            rows = 2 * (n_nodes + 2)
            ints = _grown(ints, rows)
            floats = _grown(floats, rows)
            ent_start = _grown(ent_start, rows)
            ent_count = _grown(ent_count, rows)
            stats = _grown(stats.reshape(-1, width), rows).reshape(-1)
        if len(free_const) < 2:
            old = const_flags.shape[0]
            const_flags = _grown(const_flags, 2 * old)
            for r in range(2 * old - 1, old - 1, -1):
                free_const.append(r)
        first = n_nodes
        n_nodes += 2
        n_leaves += 1
        ints[node, I_FIRST_CHILD] = first
        ints[node, I_N_CHILDREN] = 2
        ints[node, I_FEATURE] = f
        floats[node, F_THRESHOLD] = floats[node, F_P_THRESHOLD]
        parent_row = ints[node, I_CONST_ROW]
        for j in range(2):
            c = first + j
            for col in range(N_INT_COLUMNS):
                ints[c, col] = -1
            for col in range(N_FLOAT_COLUMNS):
                floats[c, col] = 0.0
            floats[c, F_THRESHOLD] = np.nan
            ints[c, I_N_CHILDREN] = 0
            ints[c, I_N_SAMPLES] = n_left if j == 0 else n_right
            ints[c, I_DEPTH] = ints[node, I_DEPTH] + 1
            ints[c, I_SEG_START] = start if j == 0 else start + n_left
            ent_start[c] = es if j == 0 else write_e
            ent_count[c] = write_e - es if j == 0 else n_right_e
            for k in range(width):
                stats[c * width + k] = child_stats[j * width + k]
            cw = stats_weight(stats, c * width, width, task)
            floats[c, F_WEIGHT] = cw
            floats[c, F_IMPURITY] = (stats_mass(stats, c * width, width, task, params.criterion)
                                     / cw if cw > 0 else 0.0)
            row = free_const.pop()
            for q in range(n_words):
                const_flags[row, q] = const_flags[parent_row, q]
            ints[c, I_CONST_ROW] = row
        free_const.append(parent_row)
        k_new = 2
    return (ints[:n_nodes].copy(), floats[:n_nodes].copy(),
            stats[: n_nodes * width].copy().reshape((n_nodes, width)),
            np.empty(0, dtype=np.int64))
