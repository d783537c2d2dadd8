"""Compiled passes of the sparse feature coding (:mod:`treebound._flat._sparse_coding`): every
column of a matrix in compressed columns is ranked on its own, so the coding needs the outputs
and one column's scratch, never a sort of all the entries at once.

A column's code of a nonzero value is its rank among the column's distinct nonzero values,
after the zero when the column holds one (an implicit or explicit zero); the entries are laid
out sorted by (feature, code, row).
"""

from __future__ import annotations

import numpy as np

from treebound._config import JIT_OPTIONS, njit


@njit(**JIT_OPTIONS)
def _stored_by_value(indptr, indices, data, j):
    """The nonzero entries of column ``j`` as (values, rows), sorted by value, then row (the
    rows increase within a compressed column and the sort is stable)."""
    start, stop = indptr[j], indptr[j + 1]
    values = np.empty(stop - start, dtype=np.float64)
    rows = np.empty(stop - start, dtype=np.int32)
    k = 0
    for e in range(start, stop):
        if data[e] != 0.0:  # explicit zeros are zeros
            values[k] = data[e]
            rows[k] = indices[e]
            k += 1
    order = np.argsort(values[:k], kind="mergesort")
    return values[:k][order], rows[:k][order]


@njit(**JIT_OPTIONS)
def count_sparse_codes(indptr, indices, data, n_rows, n_codes, zero_code, n_stored):
    """Per column: ``n_codes`` (distinct nonzero values, plus one for the zero when the column
    holds one), ``zero_code`` (the zero's code, ``-1`` without a zero) and ``n_stored`` (its
    nonzero entries)."""
    for j in range(indptr.shape[0] - 1):
        values, _ = _stored_by_value(indptr, indices, data, j)
        k = values.shape[0]
        distinct = 0
        negative = 0
        for p in range(k):
            if p == 0 or values[p] != values[p - 1]:
                distinct += 1
                if values[p] < 0.0:
                    negative += 1
        has_zero = n_rows - k > 0
        n_codes[j] = distinct + (1 if has_zero else 0)
        zero_code[j] = negative if has_zero else -1
        n_stored[j] = k


@njit(**JIT_OPTIONS)
def fill_sparse_codes(indptr, indices, data, zero_code, seg_start, seg_feat, seg_code,
                      seg_sample):
    """Write every column's nonzero entries, sorted by (code, row), at ``seg_start[j]`` of the
    ``seg_*`` arrays."""
    for j in range(indptr.shape[0] - 1):
        values, rows = _stored_by_value(indptr, indices, data, j)
        shift = 1 if zero_code[j] >= 0 else 0
        rank = -1
        at = seg_start[j]
        for p in range(values.shape[0]):
            v = values[p]
            if p == 0 or v != values[p - 1]:
                rank += 1
            seg_feat[at] = j
            seg_code[at] = rank + (shift if v > 0.0 else 0)
            seg_sample[at] = rows[p]
            at += 1


@njit(**JIT_OPTIONS)
def code_value(x_indptr, x_indices, x_data, f, code, zero_code, seg_code, seg_sample, start,
               stop):
    """The value of feature ``f``'s rank code ``code`` at a node whose entries of ``f`` are
    ``start:stop`` of the segment (sorted by code): 0 for the zero's code, else the input's
    value of a row holding that code (read from the compressed columns); NaN when no entry of
    the node has it."""
    if code == zero_code:
        return 0.0
    lo = start
    hi = stop
    while lo < hi:  # the first entry with that code
        mid = (lo + hi) >> 1
        if np.int64(seg_code[mid]) < code:
            lo = mid + 1
        else:
            hi = mid
    if lo >= stop or np.int64(seg_code[lo]) != code:
        return np.nan
    row = seg_sample[lo]
    a = x_indptr[f]
    b = x_indptr[f + 1]
    while a < b:  # the row in the column's sorted rows
        mid = (a + b) >> 1
        if x_indices[mid] < row:
            a = mid + 1
        else:
            b = mid
    return x_data[a]
