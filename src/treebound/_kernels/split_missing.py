"""Best threshold on one numeric feature of one node that holds missing values.

The missing rows of a feature carry its last code (``missing_code``, see
:mod:`treebound._flat._feature_coding`). scikit-learn's rule (1.3 and later): every cut between
two present values is tried with the missing rows on the right, then with them on the left, and
last the test "value present / value missing" (the present rows left, the missing rows right: a
threshold of ``+inf``); the first best is kept (ties prefer missing on the right, then the
lowest threshold). A node of the feature without missing rows is scanned by the plain scans of
:mod:`~treebound._kernels.split_numeric`, bit for bit as before.

Both scans evaluate the two placements of the missing rows at every cut in one pass: they keep
the statistics of the left child ``L``, of the right child without the missing rows ``R`` and
of the missing rows ``M``, so the children are ``(L, R + M)`` or ``(L + M, R)``. Gini and
entropy keep running sums of their per-class terms for all four vectors (O(1) per candidate
after a code's update, as the plain scans do; the sorted scan keeps them for Gini only, whose
integer counts make them independent of the order of the rows); the other criteria read the
count vectors at each cut.

Both return ``(gain, left_code, right_code, missing_slot)``: ``missing_slot`` is 0 when the
missing rows go left, 1 when they go right; ``right_code`` is the missing code for the
present / missing test; ``left_code = -1`` when no valid split exists.
"""

from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_INLINE_JIT_OPTIONS, njit
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
from treebound._kernels.split_numeric import code_of


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def _pair_mass(a, b, mixed, width, task, criterion):
    """``mass(a) + mass(b + mixed)``, ``mixed`` holding the missing rows' statistics on entry
    (overwritten)."""
    for k in range(width):
        mixed[k] = b[k] + mixed[k]
    return stats_mass(a, 0, width, task, criterion) + stats_mass(mixed, 0, width, task,
                                                                 criterion)


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def combine_missing_sides(gain_r, lo_r, hi_r, gain_l, lo_l, hi_l, gain_inf, lo_inf, missing_code):
    """scikit-learn's order: missing right, then missing left, then present / missing; a later
    candidate must be strictly better."""
    gain, lo, hi, slot = gain_r, lo_r, hi_r, 1
    if gain_l > gain:
        gain, lo, hi, slot = gain_l, lo_l, hi_l, 0
    if gain_inf > gain:
        gain, lo, hi, slot = gain_inf, lo_inf, missing_code, 1
    return gain, lo, hi, slot


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def scan_histogram_missing(hist, hoff, hcount, coff, counts_in_hist, n_codes, missing_code,
                           n_node, task, width, criterion, parent, parent_off, parent_weight,
                           parent_mass, min_samples_leaf, left, right, miss, mixed):
    """:func:`~treebound._kernels.split_numeric.scan_histogram` with the missing rows (code
    ``missing_code``, the last) tried on both sides. Returns ``(gain, left_code, right_code,
    missing_slot, n_present)``; ``n_present`` counts the non-empty codes, the missing one
    included."""
    regression = task == TASK_REGRESSION
    running = NO_RUNNING_SUMS if regression else running_sums(criterion, False)
    mbase = hoff + missing_code * width
    if counts_in_hist:
        if regression:
            n_miss = np.int64(hist[mbase] + 0.5)
        else:
            total = 0.0
            for k in range(width):
                total += hist[mbase + k]
            n_miss = np.int64(total + 0.5)
    else:
        n_miss = hcount[coff + missing_code]
    weight_miss = stats_weight(hist, mbase, width, task)
    s_l = 0.0  # running sums of L, R, L + M and R + M
    s_r = 0.0
    s_lm = 0.0
    s_rm = 0.0
    for k in range(width):
        m = hist[mbase + k]
        miss[k] = m
        left[k] = 0.0
        right[k] = parent[parent_off + k] - m
        if running != NO_RUNNING_SUMS:
            s_r += running_term_change(criterion, 0.0, right[k])
            s_lm += running_term_change(criterion, 0.0, m)
            s_rm += running_term_change(criterion, 0.0, parent[parent_off + k])
    weight_left = 0.0
    gain_r, lo_r, hi_r = -np.inf, -1, -1
    gain_l, lo_l, hi_l = -np.inf, -1, -1
    prev = -1
    last_present = -1
    n_left = 0
    n_present = 0
    for b in range(missing_code):
        base = hoff + b * width
        if counts_in_hist:
            if regression:
                count = np.int64(hist[base] + 0.5)
            else:
                total = 0.0
                for k in range(width):
                    total += hist[base + k]
                count = np.int64(total + 0.5)
        else:
            count = hcount[coff + b]
        if count == 0:
            continue
        n_present += 1
        last_present = b
        if prev >= 0 and n_node - n_left >= min_samples_leaf:
            weight_rest = parent_weight - weight_left  # R + M
            if n_left >= min_samples_leaf:
                if running != NO_RUNNING_SUMS:
                    child = running_children_mass(criterion, weight_left, weight_rest, s_l, s_rm)
                else:
                    for k in range(width):
                        mixed[k] = miss[k]
                    child = _pair_mass(left, right, mixed, width, task, criterion)
                if parent_mass - child > gain_r:
                    gain_r, lo_r, hi_r = parent_mass - child, prev, b
            if (n_left + n_miss >= min_samples_leaf
                    and n_node - n_left - n_miss >= min_samples_leaf):
                if running != NO_RUNNING_SUMS:
                    child = running_children_mass(criterion, weight_left + weight_miss,
                                                  weight_rest - weight_miss, s_lm, s_r)
                else:
                    for k in range(width):
                        mixed[k] = miss[k]
                    child = _pair_mass(right, left, mixed, width, task, criterion)
                if parent_mass - child > gain_l:
                    gain_l, lo_l, hi_l = parent_mass - child, prev, b
        for k in range(width):
            h = hist[base + k]
            if running == RUNNING_SUMS or (running != NO_RUNNING_SUMS and h != 0.0):
                cl = left[k]
                cr = right[k]
                m = miss[k]
                s_l += running_term_change(criterion, cl, h)
                s_r += running_term_change(criterion, cr, -h)
                s_lm += running_term_change(criterion, cl + m, h)
                s_rm += running_term_change(criterion, cr + m, -h)
            left[k] += h
            right[k] -= h
            weight_left += h if not regression or k == 0 else 0.0
        n_left += count
        prev = b
    if n_miss > 0:
        n_present += 1
    gain_inf = -np.inf
    if (n_miss > 0 and last_present >= 0 and n_miss >= min_samples_leaf
            and n_node - n_miss >= min_samples_leaf):
        for k in range(width):
            mixed[k] = parent[parent_off + k] - miss[k]
        gain_inf = parent_mass - (stats_mass(mixed, 0, width, task, criterion)
                                  + stats_mass(miss, 0, width, task, criterion))
    gain, lo, hi, slot = combine_missing_sides(gain_r, lo_r, hi_r, gain_l, lo_l, hi_l, gain_inf,
                                  last_present, missing_code)
    return gain, lo, hi, slot, n_present


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def scan_sorted_missing(order, order_row, start, end, codes, codes_t, f, h, y_cls, y_val, w,
                        task, width, criterion, parent, parent_off, parent_weight, parent_mass,
                        min_samples_leaf, left, right, miss, mixed, missing_code):
    """:func:`~treebound._kernels.split_numeric.scan_sorted` with the missing rows (code
    ``missing_code``, sorted last) tried on both sides: ``(gain, left_code, right_code,
    missing_slot)``."""
    regression = task == TASK_REGRESSION
    running = not regression and running_sums(criterion, True) != NO_RUNNING_SUMS
    for k in range(width):
        miss[k] = 0.0
    end_real = end
    while end_real > start and code_of(codes, codes_t, f, h, order[order_row, end_real - 1]) \
            == missing_code:
        end_real -= 1
        add_sample_stats(miss, 0, order[order_row, end_real], y_cls, y_val, w, task)
    n = end - start
    n_miss = end - end_real
    weight_miss = stats_weight(miss, 0, width, task)
    sum_y = parent[parent_off + 1] if regression else 0.0
    sum_y_miss = miss[1] if regression else 0.0
    s_l = 0.0
    s_r = 0.0
    s_lm = 0.0
    s_rm = 0.0
    for k in range(width):
        left[k] = 0.0
        right[k] = parent[parent_off + k] - miss[k]
        if running:
            s_r += running_term_change(criterion, 0.0, right[k])
            s_lm += running_term_change(criterion, 0.0, miss[k])
            s_rm += running_term_change(criterion, 0.0, parent[parent_off + k])
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
                m = miss[k]
                s_l += running_term_change(criterion, cl, ws)
                s_r += running_term_change(criterion, cr, -ws)
                s_lm += running_term_change(criterion, cl + m, ws)
                s_rm += running_term_change(criterion, cr + m, -ws)
            left[k] = cl + ws
            right[k] = cr - ws
        n_left = i - start + 1
        if n - n_left < min_samples_leaf:
            break
        s_next = order[order_row, i + 1]
        code_next = code_of(codes, codes_t, f, h, s_next)
        if code_here != code_next:
            weight_rest = parent_weight - weight_left
            if n_left >= min_samples_leaf:
                if regression:
                    gain = squared_error_gain(weight_left, sum_y_left, parent_weight, sum_y)
                elif running:
                    gain = parent_mass - running_children_mass(criterion, weight_left,
                                                               weight_rest, s_l, s_rm)
                else:
                    for k in range(width):
                        mixed[k] = right[k] + miss[k]
                    gain = parent_mass - (
                        classification_mass(left, 0, width, weight_left, criterion)
                        + classification_mass(mixed, 0, width, weight_rest, criterion))
                if gain > gain_r:
                    gain_r, lo_r, hi_r = gain, code_here, code_next
            if n_left + n_miss >= min_samples_leaf and n - n_left - n_miss >= min_samples_leaf:
                if regression:
                    gain = squared_error_gain(weight_left + weight_miss, sum_y_left + sum_y_miss,
                                              parent_weight, sum_y)
                elif running:
                    gain = parent_mass - running_children_mass(
                        criterion, weight_left + weight_miss, weight_rest - weight_miss, s_lm,
                        s_r)
                else:
                    for k in range(width):
                        mixed[k] = left[k] + miss[k]
                    gain = parent_mass - (
                        classification_mass(mixed, 0, width, weight_left + weight_miss,
                                            criterion)
                        + classification_mass(right, 0, width, weight_rest - weight_miss,
                                              criterion))
                if gain > gain_l:
                    gain_l, lo_l, hi_l = gain, code_here, code_next
        s = s_next
        code_here = code_next
    gain_inf = -np.inf
    last_present = code_of(codes, codes_t, f, h, order[order_row, end_real - 1])
    if n_miss > 0 and n_miss >= min_samples_leaf and n - n_miss >= min_samples_leaf:
        if regression:
            gain_inf = squared_error_gain(parent_weight - weight_miss, sum_y - sum_y_miss,
                                          parent_weight, sum_y)
        else:
            for k in range(width):
                mixed[k] = parent[parent_off + k] - miss[k]
            gain_inf = parent_mass - (
                classification_mass(mixed, 0, width, parent_weight - weight_miss, criterion)
                + classification_mass(miss, 0, width, weight_miss, criterion))
    return combine_missing_sides(gain_r, lo_r, hi_r, gain_l, lo_l, hi_l, gain_inf, last_present,
                    missing_code)
