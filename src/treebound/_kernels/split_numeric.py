"""Best threshold on one numeric feature of one node.

Features arrive as integer *codes* (dense ranks of the distinct training values in exact mode, bin
indices in histogram mode); a split "code <= b" puts every code up to ``b`` left. Two scans find
the best ``b``:

* :func:`scan_sorted` walks the node's samples in code order (from a presorted row or a per-node
  sort) and updates the criterion in O(1) per sample for Gini, entropy and squared error;
* :func:`scan_histogram` walks per-code statistics (O(codes x classes)), cheaper when the node has
  many samples and the feature few distinct codes.

Both return ``(gain, left_code, right_code)``: the best gain ``mass(parent) - mass(children)``,
the last code sent left and the first code sent right (``-1`` when no valid split exists). Ties
keep the lowest threshold.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treebound._config import JIT_OPTIONS
from treebound._kernels.criteria import (
    ENTROPY,
    GINI,
    TASK_REGRESSION,
    classification_mass,
    stats_mass,
    xlog2x,
)


@njit(**JIT_OPTIONS)
def scan_sorted(order, start, end, codes_f, y_cls, y_val, w, task, width, criterion,
                parent, parent_weight, parent_mass, min_samples_leaf, left, right):
    """Scan samples ``order[start:end]`` (sorted by ``codes_f``) for the best threshold."""
    best_gain = -np.inf
    best_lo = -1
    best_hi = -1
    n = end - start
    for k in range(width):
        left[k] = 0.0
        right[k] = parent[k]
    weight_left = 0.0
    sq_left = 0.0
    sq_right = 0.0
    xl_left = 0.0
    xl_right = 0.0
    if task != TASK_REGRESSION:
        for k in range(width):
            sq_right += parent[k] * parent[k]
            xl_right += xlog2x(parent[k])
    sum_y = parent[1] if task == TASK_REGRESSION else 0.0
    sum_y_left = 0.0
    for i in range(start, end - 1):
        s = order[i]
        ws = w[s]
        weight_left += ws
        if task == TASK_REGRESSION:
            sum_y_left += ws * y_val[s]
        else:
            k = y_cls[s]
            cl = left[k]
            cr = right[k]
            if criterion == GINI:
                sq_left += ws * (2.0 * cl + ws)
                sq_right += ws * (ws - 2.0 * cr)
            elif criterion == ENTROPY:
                xl_left += xlog2x(cl + ws) - xlog2x(cl)
                xl_right += xlog2x(cr - ws) - xlog2x(cr)
            left[k] = cl + ws
            right[k] = cr - ws
        n_left = i - start + 1
        if n - n_left < min_samples_leaf:
            break
        if n_left < min_samples_leaf:
            continue
        code_here = codes_f[s]
        code_next = codes_f[order[i + 1]]
        if code_here == code_next:
            continue
        weight_right = parent_weight - weight_left
        if task == TASK_REGRESSION:
            gain = 0.0
            if weight_left > 0.0:
                gain += sum_y_left * sum_y_left / weight_left
            if weight_right > 0.0:
                sum_y_right = sum_y - sum_y_left
                gain += sum_y_right * sum_y_right / weight_right
            if parent_weight > 0.0:
                gain -= sum_y * sum_y / parent_weight
        else:
            if criterion == GINI:
                child = 0.0
                if weight_left > 0.0:
                    child += weight_left - sq_left / weight_left
                if weight_right > 0.0:
                    child += weight_right - sq_right / weight_right
            elif criterion == ENTROPY:
                child = 0.5 * (xlog2x(weight_left) - xl_left + xlog2x(weight_right) - xl_right)
            else:
                child = classification_mass(left, 0, width, weight_left, criterion) + \
                    classification_mass(right, 0, width, weight_right, criterion)
            gain = parent_mass - child
        if gain > best_gain:
            best_gain = gain
            best_lo = code_here
            best_hi = code_next
    return best_gain, best_lo, best_hi


@njit(**JIT_OPTIONS)
def fill_histogram(samples, start, end, codes_f, y_cls, y_val, w, task, width, hist, hcount,
                   n_codes):
    """Per-code statistics (``hist[code * width + k]``) and sample counts of one node."""
    for j in range(n_codes * width):
        hist[j] = 0.0
    for j in range(n_codes):
        hcount[j] = 0
    if task == TASK_REGRESSION:
        for i in range(start, end):
            s = samples[i]
            base = codes_f[s] * width
            ws = w[s]
            yv = y_val[s]
            hist[base] += ws
            hist[base + 1] += ws * yv
            hist[base + 2] += ws * yv * yv
            hcount[codes_f[s]] += 1
    else:
        for i in range(start, end):
            s = samples[i]
            hist[codes_f[s] * width + y_cls[s]] += w[s]
            hcount[codes_f[s]] += 1


@njit(**JIT_OPTIONS)
def scan_histogram(hist, hcount, n_codes, n_node, task, width, criterion, parent, parent_mass,
                   min_samples_leaf, left, right):
    """Scan per-code statistics in code order for the best threshold."""
    best_gain = -np.inf
    best_lo = -1
    best_hi = -1
    for k in range(width):
        left[k] = 0.0
        right[k] = parent[k]
    prev = -1
    n_left = 0
    for b in range(n_codes):
        if hcount[b] == 0:
            continue
        if prev >= 0:
            if n_node - n_left < min_samples_leaf:
                break
            if n_left >= min_samples_leaf:
                child = stats_mass(left, 0, width, task, criterion) + \
                    stats_mass(right, 0, width, task, criterion)
                gain = parent_mass - child
                if gain > best_gain:
                    best_gain = gain
                    best_lo = prev
                    best_hi = b
        base = b * width
        for k in range(width):
            left[k] += hist[base + k]
            right[k] -= hist[base + k]
        n_left += hcount[b]
        prev = b
    return best_gain, best_lo, best_hi


@njit(**JIT_OPTIONS)
def counting_sort_node(samples, start, end, codes_f, n_codes, counts, out):
    """Node samples sorted by code into ``out[0 : end - start]`` (stable, O(n + codes))."""
    for j in range(n_codes + 1):
        counts[j] = 0
    for i in range(start, end):
        counts[codes_f[samples[i]] + 1] += 1
    for j in range(n_codes):
        counts[j + 1] += counts[j]
    for i in range(start, end):
        s = samples[i]
        c = codes_f[s]
        out[counts[c]] = s
        counts[c] += 1


@njit(**JIT_OPTIONS)
def argsort_node(samples, start, end, codes_f, keys, out):
    """Node samples sorted by code into ``out[0 : end - start]`` (stable comparison sort)."""
    n = end - start
    for i in range(n):
        keys[i] = codes_f[samples[start + i]]
    perm = np.argsort(keys[:n], kind="mergesort")
    for i in range(n):
        out[i] = samples[start + perm[i]]


@njit(**JIT_OPTIONS)
def midpoint_threshold(lo_value_right, hi_value_left):
    """Threshold between the largest value sent left and the smallest sent right.

    The midpoint can round up to the right value when the two are adjacent floats; fall back to
    the left value then, so ``x <= threshold`` reproduces the training partition exactly.
    """
    threshold = 0.5 * (hi_value_left + lo_value_right)
    if threshold >= lo_value_right or not np.isfinite(threshold):
        threshold = hi_value_left
    return threshold
