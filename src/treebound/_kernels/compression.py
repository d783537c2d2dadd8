"""Kernels of the sample-compression certificate: node-local neighbours of every threshold and
the choice of the rows that carry them (``treebound.certificates._compression``)."""

from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_JIT_OPTIONS, njit
from treebound._kernels.apply import csr_value, sorted_position

#: Rows scanned, per value, for an already chosen or a misclassified row to prefer.
_SCAN = 256


@njit(**NO_NRT_JIT_OPTIONS)
def _neighbour_slot(node, x, threshold, category_offset, category_child, missing_child, low,
                    high):
    """The child slot of ``node`` that ``x`` takes; a numeric value also moves the node's
    closest value on its side of the threshold (``low`` at most, ``high`` above)."""
    if category_offset[node] >= 0:
        return category_child[category_offset[node] + np.int64(x)]
    if np.isnan(x):
        return missing_child[node]
    if x <= threshold[node]:
        if x > low[node]:
            low[node] = x
        return 0
    if x < high[node]:
        high[node] = x
    return 1


@njit(**NO_NRT_JIT_OPTIONS)
def threshold_neighbours(first_child, feature, threshold, category_offset, category_child,
                         missing_child, X, low, high):
    """``low[i]`` / ``high[i]``: the largest value ``<= t`` / smallest value ``> t`` of the
    tested feature among the rows reaching numeric node ``i`` (``-inf`` / ``+inf`` when none;
    a missing value, NaN, takes ``missing_child`` and is neither). The caller fills ``low``
    with ``-inf`` and ``high`` with ``+inf``."""
    for r in range(X.shape[0]):
        node = 0
        while first_child[node] >= 0:
            x = X[r, feature[node]]
            node = first_child[node] + _neighbour_slot(node, x, threshold, category_offset,
                                                       category_child, missing_child, low, high)


@njit(**NO_NRT_JIT_OPTIONS)
def threshold_neighbours_csr(first_child, feature, threshold, category_offset, category_child,
                             missing_child, indptr, indices, data, low, high):
    """:func:`threshold_neighbours` on a matrix in compressed rows (sorted unique indices; an
    absent entry is the value 0)."""
    for r in range(indptr.shape[0] - 1):
        node = 0
        while first_child[node] >= 0:
            x = csr_value(indptr, indices, data, r, feature[node])
            node = first_child[node] + _neighbour_slot(node, x, threshold, category_offset,
                                                       category_child, missing_child, low, high)


@njit(**NO_NRT_JIT_OPTIONS)
def choose_rows(range_start, range_end, order, wrong, chosen, pick_of_range, out):
    """For every slot ``s``, one row among ``order[range_start[s]:range_end[s]]`` (rows sharing
    the value the slot needs): a row already chosen if one is seen, else a misclassified one,
    else the first. ``pick_of_range`` (filled with ``-1``) remembers the pick of each range so
    a value needed again reuses its row. Marks the picks in ``chosen``."""
    for s in range(range_start.shape[0]):
        start = range_start[s]
        end = range_end[s]
        pick = pick_of_range[start]
        if pick < 0:
            stop = min(end, start + _SCAN)
            for p in range(start, stop):
                if chosen[order[p]]:
                    pick = order[p]
                    break
            if pick < 0:
                for p in range(start, stop):
                    if wrong[order[p]]:
                        pick = order[p]
                        break
            if pick < 0:
                pick = order[start]
            pick_of_range[start] = pick
        chosen[pick] = True
        out[s] = pick


#: Midpoint rules the compiled pair search knows (``treebound.certificates._deployed``).
MIDPOINT_TREEBOUND = 0
MIDPOINT_SKLEARN = 1
MIDPOINT_SKLEARN_FLOAT32 = 2


@njit(**NO_NRT_JIT_OPTIONS)
def _midpoint(low, high, rule):
    if rule == MIDPOINT_SKLEARN_FLOAT32:
        low = np.float64(np.float32(low))
        high = np.float64(np.float32(high))
    mid = low / 2.0 + high / 2.0
    if rule == MIDPOINT_TREEBOUND:
        if mid >= high or not np.isfinite(mid):
            return low
        return mid
    if mid == high or not np.isfinite(mid):
        return low
    return mid


@njit(**NO_NRT_JIT_OPTIONS)
def value_pairs(column_sorted, thresholds, rule, out_low, out_high):
    """For each threshold ``t``: the largest value ``a <= t`` of the sorted column for which the
    value ``b`` nearest ``2 t - a`` (the one just below, at, then just above its insertion
    point) has ``b > t`` and ``midpoint(a, b) == t``. Writes ``a``, ``b`` (NaN when no value
    pairs up) and scans the values below ``t`` from the nearest down, one per distinct value."""
    n = column_sorted.shape[0]
    for q in range(thresholds.shape[0]):
        t = thresholds[q]
        out_low[q] = np.nan
        out_high[q] = np.nan
        i = np.searchsorted(column_sorted, t, side="right") - 1
        while i >= 0:
            a = column_sorted[i]
            pos = np.searchsorted(column_sorted, 2.0 * t - a)
            found = False
            for shift in range(-1, 2):
                j = min(max(pos + shift, 0), n - 1)
                b = column_sorted[j]
                if b > t and _midpoint(a, b, rule) == t:
                    out_low[q] = a
                    out_high[q] = b
                    found = True
                    break
            if found:
                break
            while i >= 0 and column_sorted[i] == a:  # equal values pair up alike
                i -= 1


@njit(**NO_NRT_JIT_OPTIONS)
def count_rows_by_value(X, columns, needed, needed_offset, range_start):
    """First pass of a counting sort of the rows by needed value.

    ``needed[needed_offset[f]:needed_offset[f + 1]]`` are the sorted values wanted of column
    ``columns[f]``. On return the first ``_SCAN`` rows (in row order) whose value of that column
    is ``needed[i]`` will be ``rows[range_start[i]:range_start[i + 1]]``
    (:func:`fill_rows_by_value`); ``range_start`` has one more entry than ``needed``, and
    ``rows`` needs ``range_start[-1]`` entries."""
    n_values = needed.shape[0]
    for i in range(n_values + 1):
        range_start[i] = 0
    full = 0
    for r in range(X.shape[0]):  # row-major: X is read in memory order
        for f in range(columns.shape[0]):
            at = sorted_position(needed, needed_offset[f], needed_offset[f + 1], X[r, columns[f]])
            # choose_rows reads the first _SCAN rows of a value only: keep no more
            if at >= 0 and range_start[at + 1] < _SCAN:
                range_start[at + 1] += 1
                if range_start[at + 1] == _SCAN:
                    full += 1
        if full == n_values:  # every value has its rows: the later rows change nothing
            break
    for i in range(n_values):
        range_start[i + 1] += range_start[i]


@njit(**NO_NRT_JIT_OPTIONS)
def fill_rows_by_value(X, columns, needed, needed_offset, range_start, fill, rows):
    """Second pass: ``fill`` starts as ``range_start[:-1]`` (a copy); the rows of each needed
    value go to their range in increasing order, until it is full."""
    left = rows.shape[0]
    for r in range(X.shape[0]):
        if left == 0:  # every range is full
            break
        for f in range(columns.shape[0]):
            at = sorted_position(needed, needed_offset[f], needed_offset[f + 1], X[r, columns[f]])
            if at >= 0 and fill[at] < range_start[at + 1]:
                rows[fill[at]] = r
                fill[at] += 1
                left -= 1


@njit(**NO_NRT_JIT_OPTIONS)
def count_rows_by_value_csr(indptr, indices, data, columns, needed, needed_offset,
                            range_start):
    """:func:`count_rows_by_value` on a matrix in compressed rows (sorted unique indices; an
    absent entry is the value 0)."""
    n_values = needed.shape[0]
    for i in range(n_values + 1):
        range_start[i] = 0
    full = 0
    for r in range(indptr.shape[0] - 1):
        for f in range(columns.shape[0]):
            x = csr_value(indptr, indices, data, r, columns[f])
            at = sorted_position(needed, needed_offset[f], needed_offset[f + 1], x)
            if at >= 0 and range_start[at + 1] < _SCAN:
                range_start[at + 1] += 1
                if range_start[at + 1] == _SCAN:
                    full += 1
        if full == n_values:
            break
    for i in range(n_values):
        range_start[i + 1] += range_start[i]


@njit(**NO_NRT_JIT_OPTIONS)
def fill_rows_by_value_csr(indptr, indices, data, columns, needed, needed_offset, range_start,
                           fill, rows):
    """:func:`fill_rows_by_value` on a matrix in compressed rows."""
    left = rows.shape[0]
    for r in range(indptr.shape[0] - 1):
        if left == 0:
            break
        for f in range(columns.shape[0]):
            x = csr_value(indptr, indices, data, r, columns[f])
            at = sorted_position(needed, needed_offset[f], needed_offset[f + 1], x)
            if at >= 0 and fill[at] < range_start[at + 1]:
                rows[fill[at]] = r
                fill[at] += 1
                left -= 1
