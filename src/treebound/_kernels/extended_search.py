"""Best test of one node on the extended growth path (:mod:`~treebound._kernels.growth_extensions`):
scikit-learn's random thresholds, monotonic constraints, ``min_weight_fraction_leaf``, the
``poisson`` and ``absolute_error`` criteria and several outputs.

Numeric features are scanned in code order (a presorted row, or the node's rows sorted by code)
by :func:`~treebound._kernels.extended_scan.scan_extended`, which evaluates each cut with every
rule: ``min_samples_leaf``, the children's weights, the monotonic constraint of the feature and
the criterion, with the node's missing rows on each side (scikit-learn's rule). With random
thresholds a feature gets one threshold, uniform between its smallest and largest present value
in the node (scikit-learn's ``splitter="random"``), and only that cut is evaluated, with the
missing rows on the better side (scikit-learn draws the side at random; trying both is the
issue's rule for every splitter and costs one more evaluation). Categorical
features (one output only) keep the fast path's subset search, whatever the splitter.

Features are visited as the fast path visits them (index order, or scikit-learn's draws when
``max_features`` is below the number of features), and ties keep the first feature and the
lowest threshold, so that with neutral settings this search finds the fast path's tests.
"""

from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_JIT_OPTIONS, njit
from treebound._kernels.absolute_error import rank_targets
from treebound._kernels.criteria import (
    ABSOLUTE_ERROR,
    POISSON,
    SQUARED_ERROR,
    TASK_REGRESSION,
)
from treebound._kernels.extended_scan import (
    absolute_errors_of_order,
    order_missing_first,
    scan_extended,
)
from treebound._kernels.feature_draw import (
    code_threshold,
    first_candidates,
    keep_test,
    next_candidate,
    next_random,
)
from treebound._kernels.growth_extensions import ext_mass
from treebound._kernels.growth_state import (
    F_IMPURITY,
    F_LOWER_BOUND,
    F_UPPER_BOUND,
    F_WEIGHT,
    I_CONST_ROW,
    I_DEPTH,
    I_N_SAMPLES,
    I_P_FEATURE,
    I_P_MISSING,
    I_SEG_START,
    KIND_CATEGORICAL,
    KIND_PRESORTED,
    S_MAP_USED,
)
from treebound._kernels.node_search import _record_test, stays_leaf
from treebound._kernels.split_categorical import best_binary_subset, best_multiway
from treebound._kernels.split_numeric import (
    argsort_node,
    code_of,
    counting_sort_node,
    fill_histogram,
    midpoint_threshold,
)

_EPSILON = np.finfo(np.float64).eps
_TWO_POW_53 = 9007199254740992


@njit(**NO_NRT_JIT_OPTIONS)
def next_uniform(state):
    """Uniform float in ``[0, 1)`` (53 random bits of the splitmix64 stream)."""
    return next_random(state, _TWO_POW_53) / _TWO_POW_53


@njit(**NO_NRT_JIT_OPTIONS)
def extended_stays_leaf(n_node, depth, weight, impurity, sum_wy, task, criterion, params, ext):
    """Whether a node is a leaf whatever its data: the fast path's rules (one output, Gini and
    friends or squared error), scikit-learn's ``impurity <= eps`` for the others, and a weight
    below twice ``min_weight_leaf``."""
    if weight < 2.0 * ext.min_weight_leaf:
        return True
    if ext.n_outputs == 1 and (task != TASK_REGRESSION or criterion == SQUARED_ERROR):
        return stays_leaf(n_node, depth, weight, impurity, sum_wy, task, params.max_depth,
                          params.min_samples_split, params.min_samples_leaf)
    if params.max_depth >= 0 and depth >= params.max_depth:
        return True
    if n_node < params.min_samples_split or n_node < 2 * params.min_samples_leaf:
        return True
    return impurity <= _EPSILON


@njit(**NO_NRT_JIT_OPTIONS)
def random_cut(data, f, first_code, last_code, rng):
    """scikit-learn's random threshold of feature ``f`` in a node whose codes span ``first_code
    .. last_code``: uniform in ``[min, max)`` of its values there (``min`` if it rounds to
    ``max``). Returns ``(threshold, cut_code)``, the largest code whose values are at most the
    threshold; a threshold inside the value range of the next code (values closer than the
    coding's tie threshold share a code) moves between the two codes, so that ``x <= threshold``
    is the training partition."""
    off = data.value_offset[f]
    low = data.lo_values[off + first_code]
    high = data.hi_values[off + last_code]
    threshold = (high - low) * next_uniform(rng) + low
    if threshold >= high:
        threshold = low
    lo = first_code
    hi = last_code  # invariant: the values of code hi exceed the threshold
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if data.hi_values[off + mid] <= threshold:
            lo = mid
        else:
            hi = mid
    if not data.hi_values[off + lo] <= threshold < data.lo_values[off + lo + 1]:
        threshold = midpoint_threshold(data.lo_values[off + lo + 1], data.hi_values[off + lo])
    return threshold, lo


@njit(**NO_NRT_JIT_OPTIONS)
def find_best_test_extended(node, data, layout, params, nodes, order, pools, scratch, cat, ext):
    """Find and record the best test of ``node`` on the extended path (the counterpart of
    :func:`~treebound._kernels.node_search.find_best_test`, same contract; ``cat`` is None
    when no feature is categorical)."""
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
    min_weight_leaf = ext.min_weight_leaf
    cand = scratch.candidates
    const_flags = pools.const_flags
    ni[node, I_P_FEATURE] = -1
    n_node = ni[node, I_N_SAMPLES]
    weight = nf[node, F_WEIGHT]
    impurity = nf[node, F_IMPURITY]
    poff = node * width
    sum_wy = nv[poff + 1] if task == TASK_REGRESSION else 0.0
    if extended_stays_leaf(n_node, ni[node, I_DEPTH], weight, impurity, sum_wy, task, criterion,
                           params, ext):
        return
    start = ni[node, I_SEG_START]
    end = start + n_node
    mae = criterion == ABSOLUTE_ERROR
    proxy_parent = 0.0 if mae else ext_mass(nv, poff, width, task, criterion, ext)
    if criterion == POISSON or mae:
        parent_mass = impurity * weight
    else:
        parent_mass = proxy_parent
    tie_tolerance = 1e-9 * parent_mass if task == TASK_REGRESSION else 0.0
    lower = nf[node, F_LOWER_BOUND]
    upper = nf[node, F_UPPER_BOUND]
    ranked = False
    if mae and ext.n_outputs == 1:
        rank_targets(samples, 0, start, end, ext.y_val, 0, ext.keys, ext.perm, ext.perm_scratch,
                     ext.sorted_y, ext.rank_of)
        ranked = True
    const_row = ni[node, I_CONST_ROW]
    map_used = pools.counters[S_MAP_USED]
    n_features = codes.shape[0]
    max_features = params.max_features
    # scikit-learn's draws (see find_best_test): with max_features below the number of
    # features, features known constant are drawn too and count as visited
    shuffle = max_features < n_features
    n_cand, n_unknown = first_candidates(const_flags, const_row, n_features, shuffle, False,
                                         cand)
    visited = 0
    n_constant_seen = 0
    best_gain = -np.inf
    best_feature = -1
    best_lo = -1
    best_threshold = np.nan
    best_children = 0
    best_map_offset = -1
    best_missing = -1
    i = 0
    while True:
        f, i, n_unknown, visited, n_constant_seen = next_candidate(
            cand, i, n_cand, n_unknown, visited, n_constant_seen, max_features, shuffle,
            const_flags, const_row, False, scratch.rng)
        if f < 0:
            break
        nc = n_codes[f]
        h = block_slot[f]
        gain = -np.inf
        lo = -1
        n_children = 2
        threshold = np.nan
        missing_slot = -1
        constant = False
        if kind[f] == KIND_CATEGORICAL:
            hist = scratch.hist
            hcount = scratch.hist_counts
            fill_histogram(samples, start, end, codes, codes_t, f, h, data.y_cls, data.y_val,
                           data.w, task, width, hist, hcount, nc)
            n_present = 0
            for b in range(nc):
                if hcount[b] > 0:
                    n_present += 1
            if n_present <= 1 or cat is None:
                # (cat is None: no categorical feature, this never runs and is not compiled)
                constant = True
            elif params.multiway:
                gain, n_children = best_multiway(hist, 0, hcount, 0, nc, width, task, criterion,
                                                 proxy_parent, min_samples_leaf,
                                                 scratch.slot_map, min_weight_leaf)
            else:
                gain, n_children = best_binary_subset(
                    hist, 0, hcount, 0, nc, n_node, width, task, criterion, nv, poff,
                    proxy_parent, min_samples_leaf, scratch.left, scratch.right,
                    scratch.slot_map, cat.present, cat.keys, cat.in_left, cat.order,
                    cat.best_order, scratch.perm, scratch.perm_scratch, min_weight_leaf)
        else:
            if kind[f] == KIND_PRESORTED:
                rows = presorted
                row = layout.presort_row[f]
                r_start = start
                r_end = end
                h_scan = -1
            else:
                if nc <= 4 * n_node:
                    counting_sort_node(samples, start, end, codes, codes_t, f, h, nc,
                                       scratch.sort_counts, scratch.sort_out)
                else:
                    argsort_node(samples, start, end, codes, codes_t, f, h, scratch.sort_keys,
                                 scratch.sort_out, scratch.perm, scratch.perm_scratch)
                rows = scratch.sort_out
                row = 0
                r_start = 0
                r_end = n_node
                h_scan = h
            # the node's missing rows of the feature are sorted last (the last code)
            n_miss = 0
            mcode = data.missing_code[f]
            if mcode >= 0:
                while (n_miss < r_end - r_start and code_of(
                        codes, codes_t, f, h_scan, rows[row, r_end - 1 - n_miss]) == mcode):
                    n_miss += 1
            first_code = code_of(codes, codes_t, f, h_scan, rows[row, r_start])
            if n_miss == r_end - r_start or (n_miss == 0 and first_code == code_of(
                    codes, codes_t, f, h_scan, rows[row, r_end - 1])):
                constant = True
            else:
                last_code = code_of(codes, codes_t, f, h_scan, rows[row, r_end - 1 - n_miss])
                cut_code = -1
                if ext.random_splitter and first_code != last_code:
                    threshold, cut_code = random_cut(data, f, first_code, last_code,
                                                     scratch.rng)
                if mae:
                    absolute_errors_of_order(rows, row, r_start, r_end, data.w, ext, ranked,
                                             ext.left_err, ext.right_err, ext.left_med,
                                             ext.right_med)
                    if n_miss > 0:
                        order_missing_first(rows, row, r_start, r_end, n_miss,
                                            ext.order_missing_first)
                        absolute_errors_of_order(ext.order_missing_first, 0, 0, r_end - r_start,
                                                 data.w, ext, ranked, ext.left_err_m,
                                                 ext.right_err_m, ext.left_med_m,
                                                 ext.right_med_m)
                # random thresholds: the present / missing test only where the present values
                # are one (scikit-learn's draw then cuts at that value)
                gain, lo, hi, missing_slot = scan_extended(
                    rows, row, r_start, r_end, n_miss, mcode, codes, codes_t, f, h_scan, data.w,
                    task, width, criterion, nv, poff, weight, parent_mass, proxy_parent,
                    min_samples_leaf, min_weight_leaf, ext.monotonic[f], lower, upper, cut_code,
                    not ext.random_splitter or first_code == last_code, ext)
                if lo >= 0 and cut_code < 0:
                    threshold = code_threshold(data, f, lo, hi)
        if constant:
            const_flags[const_row, f] = 1
            if shuffle:
                n_constant_seen += 1
            continue
        if kind[f] != KIND_CATEGORICAL and lo < 0:
            continue
        if kind[f] == KIND_CATEGORICAL and n_children == 0:
            continue
        if gain > best_gain + tie_tolerance:
            best_gain = gain
            best_feature = f
            best_children = n_children
            best_missing = missing_slot
            best_map_offset, map_used, best_lo, best_threshold = keep_test(
                kind[f] == KIND_CATEGORICAL, nc, scratch.slot_map, nodes.maps, map_used, lo,
                threshold)
            if gain >= parent_mass:
                break
    pools.counters[S_MAP_USED] = map_used
    if best_feature >= 0:
        _record_test(node, ni, nf, params, weight, impurity, best_feature, best_lo,
                     best_threshold, best_children, best_map_offset, best_gain)
        # where the node's missing rows go (-1: it has none, see
        # sample_partition.route_binary)
        ni[node, I_P_MISSING] = best_missing
