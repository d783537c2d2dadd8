"""Best cut of one numeric feature of one node on the extended growth path
(:mod:`~treebound._kernels.extended_search`), missing values included.

:func:`scan_extended` walks the node's rows in code order and evaluates each cut with every
rule of the extended path: ``min_samples_leaf``, the children's weights, the monotonic constraint
of the feature (scikit-learn's test: both children's values inside the node's bounds, and
ordered as the constraint says) and the criterion.

Missing values carry the feature's last code, so a node's missing rows are the last ``n_miss``
rows of the order. scikit-learn's rule (1.3 and later), as the fast path's scans
(:mod:`~treebound._kernels.split_numeric`) apply it: every cut between two present values is
tried with the missing rows on the right, then with them on the left, and last the test
"value present / value missing"; the first best is kept (every missing-right cut before every
missing-left one, then the lowest threshold). With the children ``L`` (present rows left of the
cut), ``R`` (present rows right of it) and ``M`` (missing rows) the candidates are
``(L, R + M)`` and ``(L + M, R)``. Absolute error reads the errors of prefixes and suffixes of
two orders: the rows as sorted (missing last: ``L`` and ``R + M``) and the same rows with the
missing ones first (``L + M`` and ``R``).

A node without missing rows of the feature (``n_miss = 0``) is scanned with the arithmetic of
the scan before missing values were supported, so its trees are unchanged bit for bit.
"""

from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_INLINE_JIT_OPTIONS, NO_NRT_JIT_OPTIONS, njit
from treebound._kernels.absolute_error import prefix_absolute_errors, rank_targets
from treebound._kernels.criteria import (
    ABSOLUTE_ERROR,
    POISSON,
    TASK_REGRESSION,
    classification_mass,
    poisson_proxy_mass,
    squared_error_gain,
)
from treebound._kernels.growth_extensions import ext_add_sample, ext_mass
from treebound._kernels.split_numeric import code_of, combine_missing_sides

#: which rows the left child holds, for :func:`_admissible`'s Poisson test
_LEFT_CUT = 0  # the present rows left of the cut
_LEFT_CUT_AND_MISSING = 1  # those and the missing rows
_LEFT_PRESENT = 2  # every present row (the present / missing test)


@njit(**NO_NRT_JIT_OPTIONS)
def absolute_errors_of_order(rows, row, start, end, w, ext, ranked, left_err, right_err,
                             left_med, right_med):
    """Prefix and suffix absolute errors (summed over the outputs) and medians of the rows
    ``rows[row, start:end]`` in their order, into the four given arrays. With one output the
    node's ranks are computed once (``ranked``); otherwise for each output here."""
    n = end - start
    for i in range(n):
        left_err[i] = 0.0
        right_err[i] = 0.0
    for k in range(ext.n_outputs):
        if not ranked:
            rank_targets(rows, row, start, end, ext.y_val, k, ext.keys, ext.perm,
                         ext.perm_scratch, ext.sorted_y, ext.rank_of)
        prefix_absolute_errors(rows, row, start, end, True, w, ext.sorted_y, ext.rank_of,
                               ext.tree_w, ext.tree_wy, left_err, left_med)
        prefix_absolute_errors(rows, row, start, end, False, w, ext.sorted_y, ext.rank_of,
                               ext.tree_w, ext.tree_wy, right_err, right_med)


@njit(**NO_NRT_JIT_OPTIONS)
def order_missing_first(rows, row, start, end, n_miss, out):
    """``out[0, :end - start]``: the rows ``rows[row, start:end]`` with their last ``n_miss``
    (the missing ones) moved to the front, the others after them in their order."""
    n_present = end - start - n_miss
    for t in range(n_miss):
        out[0, t] = rows[row, start + n_present + t]
    for t in range(n_present):
        out[0, n_miss + t] = rows[row, start + t]


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def _admissible(weight_left, weight_right, min_weight_leaf, poisson, left_rows, ext):
    """Whether both children keep ``min_weight_leaf`` and, for Poisson, a positive target for
    every output (counted in rows: the right child's sum is the parent's minus the left's, whose
    rounding would hide a zero)."""
    if not (weight_left >= min_weight_leaf and weight_right >= min_weight_leaf):
        return False
    if poisson:
        for k in range(ext.n_outputs):
            if left_rows == _LEFT_CUT:
                positive = ext.positive_left[k]
            elif left_rows == _LEFT_CUT_AND_MISSING:
                positive = ext.positive_left[k] + ext.positive_miss[k]
            else:
                positive = ext.positive_total[k] - ext.positive_miss[k]
            if positive == 0 or positive == ext.positive_total[k]:
                return False
    return True


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def _children_gain(left, weight_left, parent, poff, parent_weight, parent_mass, proxy_parent,
                   task, width, criterion, sign, lower, upper, err_left, i_left, err_right,
                   i_right, med_left, med_right, ext):
    """Gain of the cut whose left child has the statistics ``left`` (weight ``weight_left``),
    the right child being the rest of the node; ``-inf`` when the monotonic constraint ``sign``
    refuses the children's values. Absolute error reads the children's errors and medians at
    ``err_left[i_left]``, ``err_right[i_right]`` (those arrays are not read otherwise)."""
    right = ext.right
    n_out = ext.n_outputs
    regression = task == TASK_REGRESSION
    mae = criterion == ABSOLUTE_ERROR
    weight_right = parent_weight - weight_left
    if not mae:
        for k in range(width):
            right[k] = parent[poff + k] - left[k]
    if sign != 0:
        if mae:
            value_left = med_left[i_left]
            value_right = med_right[i_right]
        elif regression:
            value_left = left[1] / weight_left
            value_right = right[1] / weight_right
        else:
            value_left = left[0] / weight_left
            value_right = right[0] / weight_right
        if not (value_left >= lower and value_right >= lower and value_left <= upper
                and value_right <= upper and (value_left - value_right) * sign <= 0):
            return -np.inf
    if mae:
        return parent_mass - (err_left[i_left] + err_right[i_right]) / n_out
    if regression and criterion != POISSON:
        if n_out == 1:
            return squared_error_gain(weight_left, left[1], parent_weight, parent[poff + 1])
        gain = 0.0
        for k in range(n_out):
            gain += squared_error_gain(weight_left, left[1 + k], parent_weight,
                                       parent[poff + 1 + k])
        return gain / n_out
    if regression and n_out == 1:
        return proxy_parent - poisson_proxy_mass(weight_left, left[1]) - \
            poisson_proxy_mass(weight_right, right[1])
    if n_out == 1:
        return parent_mass - (classification_mass(left, 0, width, weight_left, criterion)
                              + classification_mass(right, 0, width, weight_right, criterion))
    return proxy_parent - (ext_mass(left, 0, width, task, criterion, ext)
                           + ext_mass(right, 0, width, task, criterion, ext))


@njit(**NO_NRT_JIT_OPTIONS)
def scan_extended(rows, row, start, end, n_miss, missing_code, codes, codes_t, f, h, w, task,
                  width, criterion, parent, poff, parent_weight, parent_mass, proxy_parent,
                  min_samples_leaf, min_weight_leaf, sign, lower, upper, cut_code,
                  present_missing, ext):
    """Best cut of the rows ``rows[row, start:end]`` (sorted by the codes of feature ``f``, the
    last ``n_miss`` of them missing), or, with ``cut_code >= 0``, only the cut
    ``code <= cut_code``; with ``present_missing`` the present / missing test is a candidate
    too. Returns ``(gain, last code sent left, first code sent right, missing_slot)``: ``-1``
    codes when no cut is valid, the right code ``missing_code`` for the present / missing test,
    ``missing_slot`` 0 (left) or 1 (right), -1 without missing rows.

    ``sign`` is the feature's monotonic constraint on the children's values (0: none), checked
    against the node's bounds ``lower``, ``upper``; absolute error reads the errors and medians
    of :func:`absolute_errors_of_order` for the rows' order (``ext.left_err`` ...) and, with
    missing rows, for :func:`order_missing_first` (``ext.left_err_m`` ...).
    """
    left = ext.left
    miss = ext.miss
    mixed = ext.mixed
    for k in range(width):
        left[k] = 0.0
    n = end - start
    end_present = end - n_miss
    n_out = ext.n_outputs
    mae = criterion == ABSOLUTE_ERROR
    poisson = criterion == POISSON
    weight_left = 0.0
    if poisson:
        for k in range(n_out):
            ext.positive_total[k] = 0
            ext.positive_left[k] = 0
            ext.positive_miss[k] = 0
        for i in range(start, end):
            for k in range(n_out):
                if ext.y_val[rows[row, i], k] > 0.0:
                    ext.positive_total[k] += 1
                    if i >= end_present:
                        ext.positive_miss[k] += 1
    weight_miss = 0.0
    if n_miss > 0:
        for k in range(width):
            miss[k] = 0.0
        for i in range(end_present, end):
            s = rows[row, i]
            if not mae:
                ext_add_sample(miss, 0, s, w, task, ext)
            weight_miss += w[s]
    gain_r, lo_r, hi_r = -np.inf, -1, -1
    gain_l, lo_l, hi_l = -np.inf, -1, -1
    s = rows[row, start]
    code_here = code_of(codes, codes_t, f, h, s)
    for i in range(start, end_present - 1):
        if not mae:
            ext_add_sample(left, 0, s, w, task, ext)
        if poisson:
            for k in range(n_out):
                if ext.y_val[s, k] > 0.0:
                    ext.positive_left[k] += 1
        weight_left += w[s]
        n_left = i - start + 1
        if n - n_left < min_samples_leaf:
            break
        s_next = rows[row, i + 1]
        code_next = code_of(codes, codes_t, f, h, s_next)
        at_cut = code_here != code_next and (cut_code < 0 or code_next > cut_code)
        if at_cut:
            j = i - start
            # the missing rows right (all the node's rows when it has none)
            if n_left >= min_samples_leaf and _admissible(
                    weight_left, parent_weight - weight_left, min_weight_leaf, poisson,
                    _LEFT_CUT, ext):
                gain = _children_gain(left, weight_left, parent, poff, parent_weight,
                                      parent_mass, proxy_parent, task, width, criterion, sign,
                                      lower, upper, ext.left_err, j, ext.right_err, j + 1,
                                      ext.left_med, ext.right_med, ext)
                if gain > gain_r:
                    gain_r, lo_r, hi_r = gain, code_here, code_next
            # the missing rows left
            weight_lm = weight_left + weight_miss
            if (n_miss > 0 and n_left + n_miss >= min_samples_leaf
                    and n - n_left - n_miss >= min_samples_leaf
                    and _admissible(weight_lm, parent_weight - weight_lm, min_weight_leaf,
                                    poisson, _LEFT_CUT_AND_MISSING, ext)):
                if not mae:
                    for k in range(width):
                        mixed[k] = left[k] + miss[k]
                gain = _children_gain(mixed, weight_lm, parent, poff, parent_weight,
                                      parent_mass, proxy_parent, task, width, criterion, sign,
                                      lower, upper, ext.left_err_m, n_miss + j, ext.right_err_m,
                                      n_miss + j + 1, ext.left_med_m, ext.right_med_m, ext)
                if gain > gain_l:
                    gain_l, lo_l, hi_l = gain, code_here, code_next
        if at_cut and cut_code >= 0:
            break
        s = s_next
        code_here = code_next
    if n_miss == 0:
        return gain_r, lo_r, hi_r, -1
    gain_inf = -np.inf
    n_present = n - n_miss
    weight_present = parent_weight - weight_miss
    if (present_missing and n_present > 0 and n_miss >= min_samples_leaf
            and n_present >= min_samples_leaf
            and _admissible(weight_present, weight_miss, min_weight_leaf, poisson,
                            _LEFT_PRESENT, ext)):
        if not mae:
            for k in range(width):
                mixed[k] = parent[poff + k] - miss[k]
        gain_inf = _children_gain(mixed, weight_present, parent, poff, parent_weight,
                                  parent_mass, proxy_parent, task, width, criterion, sign,
                                  lower, upper, ext.left_err, n_present - 1, ext.left_err_m,
                                  n_miss - 1, ext.left_med, ext.left_med_m, ext)
    last_present = code_of(codes, codes_t, f, h, rows[row, end_present - 1]) \
        if n_present > 0 else -1
    return combine_missing_sides(gain_r, lo_r, hi_r, gain_l, lo_l, hi_l, gain_inf,
                                 last_present, missing_code)
