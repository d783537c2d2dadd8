"""Best threshold on one numeric feature of one node.

Features arrive as integer *codes* (dense ranks of the distinct training values in exact mode, bin
indices in histogram mode); a split "code <= b" puts every code up to ``b`` left. Two scans find
the best ``b``:

* :func:`scan_sorted` walks the node's samples in code order (a presorted row, or a per-node sort)
  and updates the criterion in O(1) per sample for Gini and squared error (entropy is computed
  from the count vectors at each cut: see :func:`~treebound._kernels.criteria.running_sums`);
* :func:`scan_histogram` walks per-code statistics, cheaper when the node has many samples and
  the feature few codes.

Both return the best gain ``mass(parent) - mass(children)``, the last code sent left and the first
code sent right (``-1`` when no valid split exists). Ties keep the lowest threshold.

Missing values: the missing rows of a feature carry its last code (``missing_code``, see
:mod:`treebound._flat._feature_coding`). scikit-learn's rule (1.3 and later): every cut between
two present values is tried with the missing rows on the right, then with them on the left, and
last the test "value present / value missing" (the present rows left, the missing rows right: a
threshold of ``+inf``); the first best is kept (ties prefer missing on the right, then the
lowest threshold). Both scans evaluate the two placements at every cut in one pass: they keep
the statistics of the left child ``L``, of the right child without the missing rows ``R`` and
of the missing rows ``M``, so the children are ``(L, R + M)`` or ``(L + M, R)``. Gini and
entropy keep running sums of their per-class terms for all four vectors (O(1) per candidate
after a code's update; the sorted scan keeps them for Gini only, whose integer counts make them
independent of the order of the rows); the other criteria read the count vectors at each cut. A
node without missing rows is scanned with the arithmetic of the plain scan (no ``M``), bit for
bit.

Performance note: these kernels index 2-D arrays with explicit rows and flat arrays with explicit
offsets instead of taking slices; array views in hot loops cost an atomic reference-count update
each in numba.
"""
from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_INLINE_JIT_OPTIONS, NO_NRT_JIT_OPTIONS, njit
from treebound._kernels.criteria import (
    NO_RUNNING_SUMS,
    RUNNING_SUMS,
    TASK_REGRESSION,
    add_sample_stats,
    classification_mass,
    running_children_mass,
    running_sums,
    running_term_change,
    squared_error_gain,
    stats_mass,
    stats_weight,
)
from treebound._kernels.sorting import stable_argsort


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def code_of(codes, codes_t, f, h, s):
    """Code of feature ``f`` for sample ``s``. A block feature (slot ``h >= 0``) is read from the
    sample-major ``codes_t``: its row of the feature-major ``codes`` is not filled."""
    if h >= 0:
        return np.int64(codes_t[s, h])
    return np.int64(codes[f, s])


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def combine_missing_sides(gain_r, lo_r, hi_r, gain_l, lo_l, hi_l, gain_inf, lo_inf,
                          missing_code):
    """scikit-learn's order of the candidates with missing rows: missing right (every cut),
    then missing left, then present / missing; a later candidate must be strictly better.
    Returns ``(gain, left_code, right_code, missing_slot)``."""
    gain, lo, hi, slot = gain_r, lo_r, hi_r, 1
    if gain_l > gain:
        gain, lo, hi, slot = gain_l, lo_l, hi_l, 0
    if gain_inf > gain:
        gain, lo, hi, slot = gain_inf, lo_inf, missing_code, 1
    return gain, lo, hi, slot


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def scan_sorted(order, order_row, start, end, codes, codes_t, f, h, y_cls, y_val, w, task, width,
                criterion, parent, parent_off, parent_weight, parent_mass, min_samples_leaf, left,
                right, miss, mixed, missing_code):
    """Scan samples ``order[order_row, start:end]`` (sorted by ``codes[f]``) for the best cut.

    The node's missing rows (code ``missing_code``, sorted last; ``-1``: the feature has none)
    are tried on each side of every cut, then the test present / missing (see the module
    docstring); ``miss`` and ``mixed`` are work rows of ``width``. Returns ``(gain, left_code,
    right_code, missing_slot)``: ``right_code`` is the missing code for the present / missing
    test, ``missing_slot`` 0 (left) or 1 (right), -1 when the node has no missing rows.
    """
    regression = task == TASK_REGRESSION
    running = not regression and running_sums(criterion, True) != NO_RUNNING_SUMS
    end_real = end
    if missing_code >= 0:
        for k in range(width):
            miss[k] = 0.0
        while end_real > start and code_of(codes, codes_t, f, h,
                                           order[order_row, end_real - 1]) == missing_code:
            end_real -= 1
            add_sample_stats(miss, 0, order[order_row, end_real], y_cls, y_val, w, task)
    n = end - start
    n_miss = end - end_real
    with_missing = n_miss > 0
    weight_miss = stats_weight(miss, 0, width, task) if with_missing else 0.0
    sum_y = parent[parent_off + 1] if regression else 0.0
    sum_y_miss = miss[1] if regression and with_missing else 0.0
    # running sums of L and R (without the missing rows), and of L + M and R + M
    sum_left = 0.0
    sum_right = 0.0
    sum_left_m = 0.0
    sum_right_m = 0.0
    for k in range(width):
        left[k] = 0.0
        right[k] = parent[parent_off + k] - miss[k] if with_missing else parent[parent_off + k]
        if running:
            sum_right += running_term_change(criterion, 0.0, right[k])
            if with_missing:
                sum_left_m += running_term_change(criterion, 0.0, miss[k])
                sum_right_m += running_term_change(criterion, 0.0, parent[parent_off + k])
    weight_left = 0.0
    sum_y_left = 0.0
    gain_r, lo_r, hi_r = -np.inf, -1, -1
    gain_l, lo_l, hi_l = -np.inf, -1, -1
    if end_real == start:
        return -np.inf, -1, -1, 1
    s = order[order_row, start]
    code_here = code_of(codes, codes_t, f, h, s)
    for i in range(start, end_real - 1):
        ws = w[s]
        weight_left += ws
        if regression:
            sum_y_left += ws * y_val[s]
        else:
            k = y_cls[s]
            cl = left[k]
            cr = right[k]
            if running:
                sum_left += running_term_change(criterion, cl, ws)
                sum_right += running_term_change(criterion, cr, -ws)
                if with_missing:
                    m = miss[k]
                    sum_left_m += running_term_change(criterion, cl + m, ws)
                    sum_right_m += running_term_change(criterion, cr + m, -ws)
            left[k] = cl + ws
            right[k] = cr - ws
        n_left = i - start + 1
        if n - n_left < min_samples_leaf:
            break
        s_next = order[order_row, i + 1]
        code_next = code_of(codes, codes_t, f, h, s_next)
        if code_here != code_next:
            weight_right = parent_weight - weight_left  # R + M
            if n_left >= min_samples_leaf:
                # the missing rows right (all of the node's rows when it has none)
                if regression:
                    gain = squared_error_gain(weight_left, sum_y_left, parent_weight, sum_y)
                elif running:
                    gain = parent_mass - running_children_mass(
                        criterion, weight_left, weight_right, sum_left,
                        sum_right_m if with_missing else sum_right)
                elif with_missing:
                    for k in range(width):
                        mixed[k] = right[k] + miss[k]
                    gain = parent_mass - (
                        classification_mass(left, 0, width, weight_left, criterion)
                        + classification_mass(mixed, 0, width, weight_right, criterion))
                else:
                    # entropy and the others: from the count vectors (see running_sums)
                    gain = parent_mass - (
                        classification_mass(left, 0, width, weight_left, criterion)
                        + classification_mass(right, 0, width, weight_right, criterion))
                if gain > gain_r:
                    gain_r, lo_r, hi_r = gain, code_here, code_next
            if (with_missing and n_left + n_miss >= min_samples_leaf
                    and n - n_left - n_miss >= min_samples_leaf):
                # the missing rows left
                if regression:
                    gain = squared_error_gain(weight_left + weight_miss, sum_y_left + sum_y_miss,
                                              parent_weight, sum_y)
                elif running:
                    gain = parent_mass - running_children_mass(
                        criterion, weight_left + weight_miss, weight_right - weight_miss,
                        sum_left_m, sum_right)
                else:
                    for k in range(width):
                        mixed[k] = left[k] + miss[k]
                    gain = parent_mass - (
                        classification_mass(mixed, 0, width, weight_left + weight_miss,
                                            criterion)
                        + classification_mass(right, 0, width, weight_right - weight_miss,
                                              criterion))
                if gain > gain_l:
                    gain_l, lo_l, hi_l = gain, code_here, code_next
        s = s_next
        code_here = code_next
    if not with_missing:
        return gain_r, lo_r, hi_r, -1
    gain_inf = -np.inf
    last_present = code_of(codes, codes_t, f, h, order[order_row, end_real - 1])
    if n_miss >= min_samples_leaf and n - n_miss >= min_samples_leaf:
        if regression:
            gain_inf = squared_error_gain(parent_weight - weight_miss, sum_y - sum_y_miss,
                                          parent_weight, sum_y)
        else:
            for k in range(width):
                mixed[k] = parent[parent_off + k] - miss[k]
            gain_inf = parent_mass - (
                classification_mass(mixed, 0, width, parent_weight - weight_miss, criterion)
                + classification_mass(miss, 0, width, weight_miss, criterion))
    return combine_missing_sides(gain_r, lo_r, hi_r, gain_l, lo_l, hi_l, gain_inf,
                                 last_present, missing_code)


@njit(**NO_NRT_JIT_OPTIONS)
def fill_histogram(samples, start, end, codes, codes_t, f, h, y_cls, y_val, w, task, width, hist,
                   hcount, n_codes):
    """Per-code statistics (``hist[code * width + k]``) and counts of one feature of one node."""
    for j in range(n_codes * width):
        hist[j] = 0.0
    for j in range(n_codes):
        hcount[j] = 0
    if task == TASK_REGRESSION:
        for i in range(start, end):
            s = samples[0, i]
            c = code_of(codes, codes_t, f, h, s)
            ws = w[s]
            yv = y_val[s]
            base = c * 3
            hist[base] += ws
            hist[base + 1] += ws * yv
            hist[base + 2] += ws * yv * yv
            hcount[c] += 1
    else:
        for i in range(start, end):
            s = samples[0, i]
            c = code_of(codes, codes_t, f, h, s)
            hist[c * width + y_cls[s]] += w[s]
            hcount[c] += 1


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def _code_count(hist, base, hcount, coff, counts_in_hist, b, width, regression):
    """Rows with code ``b`` (as :func:`scan_histogram` reads them)."""
    if counts_in_hist:
        if regression:
            return np.int64(hist[base] + 0.5)
        total = 0.0
        for k in range(width):
            total += hist[base + k]
        return np.int64(total + 0.5)
    return hcount[coff + b]


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def _list_present_codes(hist, hoff, n_codes, width, present):
    """``present[:m]`` = the codes ``b < n_codes`` with rows in the unit-weight statistics
    ``hist[hoff + b * width + k]``; returns ``m``. No branch depends on the data, and the
    codes are flagged before they are listed: listing them in the same pass made every store
    wait for the previous code's float sum."""
    for b in range(n_codes):
        total = 0.0
        for k in range(width):
            total += hist[hoff + b * width + k]
        present[b] = np.int64(total + 0.5) != 0
    m = 0
    for b in range(n_codes):
        nonempty = present[b]
        present[m] = b  # m <= b: the flags not read yet are not overwritten
        m += nonempty
    return m


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def scan_histogram(hist, hoff, hcount, coff, counts_in_hist, n_codes, missing_code, n_node, task,
                   width, criterion, parent, parent_off, parent_weight, parent_mass,
                   min_samples_leaf, left, right, miss, mixed, present):
    """Scan per-code statistics ``hist[hoff + code * width + k]`` in code order.

    With ``counts_in_hist`` (unit sample weights) a code's sample count is read off its
    statistics, otherwise from ``hcount[coff + code]``. Criteria with running sums (Gini,
    entropy) cost O(1) per candidate after their code's O(classes) update. The missing rows
    (code ``missing_code``, the last; ``-1``: the feature has none) are tried on each side of
    every cut, then the test present / missing (see the module docstring); ``miss`` and
    ``mixed`` are work rows of ``width``, ``present`` one of ``n_codes`` integers. Returns
    ``(gain, left_code, right_code, missing_slot, n_present)``: ``missing_slot`` as
    :func:`scan_sorted`; ``n_present`` counts non-empty codes, the missing one included (>= 2
    unless the feature is constant in the node; the scan may stop counting at the second).
    """
    regression = task == TASK_REGRESSION
    running = NO_RUNNING_SUMS if regression else running_sums(criterion, False)
    n_miss = 0
    n_scan = n_codes
    if missing_code >= 0:
        n_scan = missing_code
        n_miss = _code_count(hist, hoff + missing_code * width, hcount, coff, counts_in_hist,
                             missing_code, width, regression)
    with_missing = n_miss > 0
    weight_miss = 0.0
    if with_missing:
        mbase = hoff + missing_code * width
        weight_miss = stats_weight(hist, mbase, width, task)
        for k in range(width):
            miss[k] = hist[mbase + k]
    # running sums of L and R (without the missing rows), and of L + M and R + M
    sum_left = 0.0
    sum_right = 0.0
    sum_left_m = 0.0
    sum_right_m = 0.0
    for k in range(width):
        left[k] = 0.0
        right[k] = parent[parent_off + k] - miss[k] if with_missing else parent[parent_off + k]
        if running != NO_RUNNING_SUMS:
            sum_right += running_term_change(criterion, 0.0, right[k])
            if with_missing:
                sum_left_m += running_term_change(criterion, 0.0, miss[k])
                sum_right_m += running_term_change(criterion, 0.0, parent[parent_off + k])
    weight_left = 0.0
    gain_r, lo_r, hi_r = -np.inf, -1, -1
    gain_l, lo_l, hi_l = -np.inf, -1, -1
    prev = -1
    n_left = 0
    n_present = 0
    if running == RUNNING_SUMS and counts_in_hist and not with_missing:
        # Gini on unit weights without missing rows, the common case, on its own loop (the
        # same arithmetic in the same order): the non-empty codes are listed first without a
        # branch per code (in small nodes most codes are empty, in no predictable pattern)
        n_present = _list_present_codes(hist, hoff, n_scan, width, present)
        for t in range(n_present):
            b = present[t]
            base = hoff + b * width
            if t > 0:
                if n_node - n_left < min_samples_leaf:
                    break
                if n_left >= min_samples_leaf:
                    child = running_children_mass(criterion, weight_left,
                                                  parent_weight - weight_left, sum_left, sum_right)
                    if parent_mass - child > gain_r:
                        gain_r, lo_r, hi_r = parent_mass - child, prev, b
            total = 0.0
            for k in range(width):
                h = hist[base + k]
                cl = left[k]
                cr = right[k]
                sum_left += running_term_change(criterion, cl, h)
                sum_right += running_term_change(criterion, cr, -h)
                left[k] = cl + h
                right[k] = cr - h
                weight_left += h
                total += h
            n_left += np.int64(total + 0.5)
            prev = b
        return gain_r, lo_r, hi_r, -1, n_present
    for b in range(n_scan):
        base = hoff + b * width
        count = _code_count(hist, base, hcount, coff, counts_in_hist, b, width, regression)
        if count == 0:
            continue
        n_present += 1
        if prev >= 0:
            if n_node - n_left < min_samples_leaf:
                break
            if n_left >= min_samples_leaf:
                # the missing rows right (all of the node's rows when it has none)
                if running != NO_RUNNING_SUMS:
                    child = running_children_mass(criterion, weight_left,
                                                  parent_weight - weight_left, sum_left,
                                                  sum_right_m if with_missing else sum_right)
                elif with_missing:
                    for k in range(width):
                        mixed[k] = right[k] + miss[k]
                    child = stats_mass(left, 0, width, task, criterion) + \
                        stats_mass(mixed, 0, width, task, criterion)
                else:
                    child = stats_mass(left, 0, width, task, criterion) + \
                        stats_mass(right, 0, width, task, criterion)
                if parent_mass - child > gain_r:
                    gain_r, lo_r, hi_r = parent_mass - child, prev, b
            if (with_missing and n_left + n_miss >= min_samples_leaf
                    and n_node - n_left - n_miss >= min_samples_leaf):
                # the missing rows left
                if running != NO_RUNNING_SUMS:
                    child = running_children_mass(criterion, weight_left + weight_miss,
                                                  parent_weight - weight_left - weight_miss,
                                                  sum_left_m, sum_right)
                else:
                    for k in range(width):
                        mixed[k] = left[k] + miss[k]
                    child = stats_mass(mixed, 0, width, task, criterion) + \
                        stats_mass(right, 0, width, task, criterion)
                if parent_mass - child > gain_l:
                    gain_l, lo_l, hi_l = parent_mass - child, prev, b
        if running == RUNNING_SUMS:
            # branch-free: an empty class adds exactly 0 to every sum (no mispredictions on
            # the many empty class cells of wide histograms)
            for k in range(width):
                h = hist[base + k]
                cl = left[k]
                cr = right[k]
                sum_left += running_term_change(criterion, cl, h)
                sum_right += running_term_change(criterion, cr, -h)
                if with_missing:
                    m = miss[k]
                    sum_left_m += running_term_change(criterion, cl + m, h)
                    sum_right_m += running_term_change(criterion, cr + m, -h)
                left[k] = cl + h
                right[k] = cr - h
                weight_left += h
        elif running != NO_RUNNING_SUMS:
            for k in range(width):
                h = hist[base + k]
                if h != 0.0:
                    cl = left[k]
                    cr = right[k]
                    sum_left += running_term_change(criterion, cl, h)
                    sum_right += running_term_change(criterion, cr, -h)
                    if with_missing:
                        m = miss[k]
                        sum_left_m += running_term_change(criterion, cl + m, h)
                        sum_right_m += running_term_change(criterion, cr + m, -h)
                    left[k] = cl + h
                    right[k] = cr - h
                    weight_left += h
        else:
            for k in range(width):
                left[k] += hist[base + k]
                right[k] -= hist[base + k]
        n_left += count
        prev = b
    if not with_missing:
        return gain_r, lo_r, hi_r, -1, n_present
    n_present += 1
    last_present = n_scan - 1
    while last_present >= 0 and _code_count(hist, hoff + last_present * width, hcount, coff,
                                            counts_in_hist, last_present, width,
                                            regression) == 0:
        last_present -= 1
    gain_inf = -np.inf
    if last_present >= 0 and n_miss >= min_samples_leaf and n_node - n_miss >= min_samples_leaf:
        for k in range(width):
            mixed[k] = parent[parent_off + k] - miss[k]
        gain_inf = parent_mass - (stats_mass(mixed, 0, width, task, criterion)
                                  + stats_mass(miss, 0, width, task, criterion))
    gain, lo, hi, slot = combine_missing_sides(gain_r, lo_r, hi_r, gain_l, lo_l, hi_l, gain_inf,
                                               last_present, missing_code)
    return gain, lo, hi, slot, n_present


@njit(**NO_NRT_JIT_OPTIONS)
def counting_sort_node(samples, start, end, codes, codes_t, f, h, n_codes, counts, out):
    """Node samples sorted by ``codes[f]`` into ``out[0, 0 : end - start]`` (stable, O(n + codes))."""
    for j in range(n_codes + 1):
        counts[j] = 0
    for i in range(start, end):
        counts[code_of(codes, codes_t, f, h, samples[0, i]) + 1] += 1
    for j in range(n_codes):
        counts[j + 1] += counts[j]
    for i in range(start, end):
        s = samples[0, i]
        c = code_of(codes, codes_t, f, h, s)
        out[0, counts[c]] = s
        counts[c] += 1


@njit(**NO_NRT_JIT_OPTIONS)
def argsort_node(samples, start, end, codes, codes_t, f, h, keys, out, perm, perm_scratch):
    """Node samples sorted by ``codes[f]`` into ``out[0, 0 : end - start]`` (stable)."""
    n = end - start
    if n <= 48:
        # insertion sort: fastest for the tiny nodes this path serves
        for i in range(n):
            s = samples[0, start + i]
            c = code_of(codes, codes_t, f, h, s)
            j = i - 1
            while j >= 0 and keys[j] > c:
                keys[j + 1] = keys[j]
                out[0, j + 1] = out[0, j]
                j -= 1
            keys[j + 1] = c
            out[0, j + 1] = s
        return
    for i in range(n):
        keys[i] = code_of(codes, codes_t, f, h, samples[0, start + i])
    stable_argsort(keys, n, perm, perm_scratch)
    for i in range(n):
        out[0, i] = samples[0, start + perm[i]]


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def midpoint_threshold(lo_value_right, hi_value_left):
    """Threshold between the largest value sent left and the smallest sent right.

    A sum of halves, as scikit-learn computes it: ``0.5 * (a + b)`` overflows to infinity for
    values near the largest float, the halves do not (and are otherwise the same number: halving
    is exact). The midpoint can round up to the right value when the two are adjacent floats;
    fall back to the left value then, so ``x <= threshold`` reproduces the training partition
    exactly.
    """
    threshold = hi_value_left / 2.0 + lo_value_right / 2.0
    if threshold >= lo_value_right or not np.isfinite(threshold):
        threshold = hi_value_left
    return threshold


@njit(**NO_NRT_JIT_OPTIONS)
def gather_node_codes(samples, start, end, codes, codes_t, f, h, out, n_codes, counts):
    """``out[i]`` = code of feature ``f`` (block slot ``h``, or -1) of the node's ``i``-th sample
    and ``counts[c + 1]`` = how many samples have code ``c``; returns whether all codes are
    equal. A block feature is read from the sample's ``codes_t`` row (one cache line for all
    features)."""
    for j in range(n_codes + 1):
        counts[j] = 0
    same = True
    if h >= 0:
        first = np.int64(codes_t[samples[0, start], h])
        for i in range(end - start):
            c = np.int64(codes_t[samples[0, start + i], h])
            out[i] = c
            counts[c + 1] += 1
            same = same and c == first
    else:
        first = np.int64(codes[f, samples[0, start]])
        for i in range(end - start):
            c = np.int64(codes[f, samples[0, start + i]])
            out[i] = c
            counts[c + 1] += 1
            same = same and c == first
    return same


@njit(**NO_NRT_JIT_OPTIONS)
def counting_order(keys, n, n_codes, counts, order):
    """``order[:n]``: local indices ``0 .. n-1`` stably sorted by ``keys``, from the counts
    ``counts[c + 1]`` of each code (counting sort)."""
    for j in range(n_codes):
        counts[j + 1] += counts[j]
    for i in range(n):
        c = keys[i]
        order[counts[c]] = i
        counts[c] += 1


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def scan_sorted_local(order, keys, node_y, n, width, criterion, parent, parent_off,
                      parent_weight, parent_mass, min_samples_leaf, left, right):
    """:func:`scan_sorted` for classification with unit weights on node-local arrays (codes
    ``keys`` and classes ``node_y`` by local index, visited in ``order``): the same arithmetic
    in the same order, without an indirect load per sample and array."""
    best_gain = -np.inf
    best_lo = -1
    best_hi = -1
    running = running_sums(criterion, True) != NO_RUNNING_SUMS
    sum_left = 0.0
    sum_right = 0.0
    for k in range(width):
        left[k] = 0.0
        right[k] = parent[parent_off + k]
        if running:
            sum_right += running_term_change(criterion, 0.0, right[k])
    weight_left = 0.0
    code_here = keys[order[0]]
    for p in range(n - 1):
        weight_left += 1.0
        k = node_y[order[p]]
        cl = left[k]
        cr = right[k]
        if running:
            sum_left += running_term_change(criterion, cl, 1.0)
            sum_right += running_term_change(criterion, cr, -1.0)
        left[k] = cl + 1.0
        right[k] = cr - 1.0
        n_left = p + 1
        if n - n_left < min_samples_leaf:
            break
        code_next = keys[order[p + 1]]
        if n_left >= min_samples_leaf and code_here != code_next:
            weight_right = parent_weight - weight_left
            if running:
                gain = parent_mass - running_children_mass(criterion, weight_left, weight_right,
                                                           sum_left, sum_right)
            else:
                gain = parent_mass - (classification_mass(left, 0, width, weight_left, criterion)
                                      + classification_mass(right, 0, width, weight_right,
                                                            criterion))
            if gain > best_gain:
                best_gain = gain
                best_lo = code_here
                best_hi = code_next
        code_here = code_next
    return best_gain, best_lo, best_hi
