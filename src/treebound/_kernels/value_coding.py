"""Compiled coding of numeric columns from their distinct values, every column in one call
(:mod:`treebound._flat._feature_coding`).

The rule is the one of ``_feature_coding._code_values`` (the reference, also used by the sparse
coding and the compression scheme): a column spanning at most ``feature_threshold`` has one
code; with ``hist`` and more than ``max_bins`` distinct values, distinct values are grouped into
bins of about equal sample count; otherwise every distinct value is a code. Here the distinct
values come from a sorted copy of each column (one ``np.sort(..., axis=1)`` over all columns,
which numpy vectorises) or from the value tables of small-range integer columns, so coding costs
no Python per column. Each row's code is the first code whose largest value is ``>=`` its value,
found by a bucket table over the column's range (the codes a bucket's values can have) and a
binary search among those few codes.
"""

from __future__ import annotations

import numpy as np

from treebound._config import JIT_OPTIONS, njit
from treebound._kernels.growth_state import KIND_HISTOGRAM, KIND_PRESORTED


@njit(**JIT_OPTIONS)
def _code_distinct(uniq, counts, m, hist, max_bins, width, extra_codes, hist_cells,
                   feature_threshold, code_of_unique):
    """Code of each of the ``m`` sorted distinct values ``uniq[:m]`` (with ``counts[:m]``
    samples) into ``code_of_unique[:m]``; returns ``(n_codes, kind)``."""
    if m > 1 and uniq[m - 1] - uniq[0] <= feature_threshold:
        for u in range(m):
            code_of_unique[u] = 0
        total = 1 + extra_codes
        use_hist = hist or (total <= 256 and total * width <= hist_cells)
        return 1, KIND_HISTOGRAM if use_hist else KIND_PRESORTED
    if hist and m > max_bins:
        n = np.int64(0)
        for u in range(m):
            n += counts[u]
        before = np.int64(0)
        last_raw = np.int64(-1)
        code = np.int64(-1)
        for u in range(m):
            raw = min((before * max_bins) // n, max_bins - 1)
            if raw != last_raw:  # dense renumbering of the (non-decreasing) raw bins
                code += 1
                last_raw = raw
            code_of_unique[u] = code
            before += counts[u]
        return code + 1, KIND_HISTOGRAM
    for u in range(m):
        code_of_unique[u] = u
    total = m + extra_codes
    use_hist = hist or (total <= 256 and total * width <= hist_cells)
    return m, KIND_HISTOGRAM if use_hist else KIND_PRESORTED


@njit(**JIT_OPTIONS)
def _value_ranges(uniq, code_of_unique, m, lo_out, hi_out, base):
    """``lo_out[base + c]`` / ``hi_out[base + c]``: smallest / largest distinct value of code
    ``c``."""
    for u in range(m):
        c = code_of_unique[u]
        if u == 0 or c != code_of_unique[u - 1]:
            lo_out[base + c] = uniq[u]
        hi_out[base + c] = uniq[u]


@njit(**JIT_OPTIONS)
def _bucket(v, low, scale, n_buckets):
    """Bucket of ``v``: non-decreasing in ``v`` (overflow and NaN go to the last bucket)."""
    t = (v - low) * scale
    if not t < n_buckets:
        return n_buckets - 1
    return np.int64(t)


@njit(**JIT_OPTIONS)
def _assign_codes(col, n_rows, uniq, code_of_unique, m, q, hi, base, missing, out,
                  first_code, last_code):
    """``out[i]``: the first code ``c`` with ``hi[base + c] >= col[i]`` (every value of ``col``
    is one of ``uniq[:m]``), or ``missing`` for NaN."""
    if q <= 1:  # one code (or none: every value missing)
        for i in range(n_rows):
            out[i] = missing if np.isnan(col[i]) else 0
        return
    low = uniq[0]
    n_buckets = min(max(4 * q, n_rows), first_code.shape[0])
    scale = n_buckets / (uniq[m - 1] - low)  # q > 1: the range exceeds feature_threshold
    for b in range(n_buckets):
        first_code[b] = q
        last_code[b] = -1
    for u in range(m):
        b = _bucket(uniq[u], low, scale, n_buckets)
        c = code_of_unique[u]
        if c < first_code[b]:
            first_code[b] = c
        last_code[b] = c
    for i in range(n_rows):
        v = col[i]
        if np.isnan(v):
            out[i] = missing
            continue
        b = _bucket(v, low, scale, n_buckets)
        a = first_code[b]
        span = last_code[b] - a + 1
        while span > 1:  # the value's code lies in [a, a + span): branch-free halving
            half = span >> 1
            a = a + half if hi[base + a + half - 1] < v else a
            span -= half
        out[i] = a


@njit(**JIT_OPTIONS)
def code_sorted_columns(columns, sorted_columns, rows, hist, max_bins, width, hist_cells,
                        feature_threshold, codes, n_codes, kind, missing_code, lo_out, hi_out,
                        starts):
    """Codes of numeric columns from their sorted copies (NaN last, as ``np.sort`` puts them).

    For ``h`` in ``range(len(rows))``, ``columns[h]`` is feature ``j = rows[h]``:
    ``codes[j]`` gets its codes, ``n_codes[j]``, ``kind[j]`` and ``missing_code[j]`` (the code
    after the values' when the column holds NaN, else -1) are set, and its codes' value ranges
    go to ``lo_out`` / ``hi_out`` from ``starts[h]`` (NaN for the missing code); returns the
    number of entries written.
    """
    k, n = sorted_columns.shape
    uniq = np.empty(n, dtype=np.float64)
    counts = np.empty(n, dtype=np.int64)
    code_of_unique = np.empty(n, dtype=np.int64)
    first_code = np.empty(4 * n + 4, dtype=np.int64)
    last_code = np.empty(4 * n + 4, dtype=np.int64)
    pos = 0
    for h in range(k):
        j = rows[h]
        s = sorted_columns[h]
        n_valid = n
        while n_valid > 0 and np.isnan(s[n_valid - 1]):
            n_valid -= 1
        m = 0
        for i in range(n_valid):
            v = s[i]
            if m == 0 or v != uniq[m - 1]:
                uniq[m] = v
                counts[m] = 1
                m += 1
            else:
                counts[m - 1] += 1
        extra = 1 if n_valid < n else 0
        if m == 0:  # every value missing: only the missing code
            q, kd = 0, KIND_HISTOGRAM
        else:
            q, kd = _code_distinct(uniq, counts, m, hist, max_bins, width, extra, hist_cells,
                                   feature_threshold, code_of_unique)
        starts[h] = pos
        _value_ranges(uniq, code_of_unique, m, lo_out, hi_out, pos)
        kind[j] = kd
        if extra:
            lo_out[pos + q] = np.nan
            hi_out[pos + q] = np.nan
            missing_code[j] = q
            n_codes[j] = q + 1
        else:
            missing_code[j] = -1
            n_codes[j] = q
        _assign_codes(columns[h], n, uniq, code_of_unique, m, q, hi_out, pos, q, codes[j],
                      first_code, last_code)
        pos += q + extra
    return pos


@njit(**JIT_OPTIONS)
def code_table_columns(table_cols, sizes, low, narrow, narrow_present, table, table_offset,
                       hist, max_bins, width, hist_cells, feature_threshold, n_codes, kind,
                       lo_out, hi_out, starts, mapping, remap):
    """Codes of the small-range integer columns from their value tables.

    Column ``j = table_cols[h]`` spans ``sizes[h]`` integers from ``low[j]``; its table is
    ``narrow_present[j, :sizes[h]]`` (presence flags) when ``narrow[h]``, else
    ``table[table_offset[h]:][:sizes[h]]`` (counts, or presence flags when the values are not
    binned). Sets ``n_codes[j]``, ``kind[j]``, the value ranges (from ``starts[h]`` in
    ``lo_out`` / ``hi_out``) and turns each table into the map from ``value - low[j]`` to code:
    ``mapping[j, :]`` (uint8, identity on entry) for a narrow column, the table itself
    otherwise; ``remap[h]``: whether any code differs from ``value - low[j]``.
    """
    size_max = 1
    for h in range(table_cols.shape[0]):
        size_max = max(size_max, sizes[h])
    uniq = np.empty(size_max, dtype=np.float64)
    counts = np.empty(size_max, dtype=np.int64)
    present = np.empty(size_max, dtype=np.int64)
    code_of_unique = np.empty(size_max, dtype=np.int64)
    pos = 0
    for h in range(table_cols.shape[0]):
        j = table_cols[h]
        size = sizes[h]
        base = table_offset[h]
        m = 0
        for v in range(size):
            c = narrow_present[j, v] if narrow[h] else table[base + v]
            if c != 0:
                present[m] = v
                uniq[m] = low[j] + np.float64(v)
                counts[m] = c
                m += 1
        q, kd = _code_distinct(uniq, counts, m, hist, max_bins, width, 0, hist_cells,
                               feature_threshold, code_of_unique)
        starts[h] = pos
        _value_ranges(uniq, code_of_unique, m, lo_out, hi_out, pos)
        pos += q
        n_codes[j] = q
        kind[j] = kd
        remap[h] = q < size
        if q < size:  # codes hold value - low: map them to ranks / bins
            for u in range(m):
                if narrow[h]:
                    mapping[j, present[u]] = code_of_unique[u]
                else:
                    table[base + present[u]] = code_of_unique[u]


@njit(**JIT_OPTIONS)
def map_narrow_codes(small, mapping):
    """``small[i, j] = mapping[j, small[i, j]]`` for every row, in one row-major pass."""
    n, d = small.shape
    for i in range(n):
        for j in range(d):
            small[i, j] = mapping[j, small[i, j]]


@njit(**JIT_OPTIONS)
def map_table_codes(codes, table_cols, wide, table, table_offset):
    """``codes[j, i] = table[table_offset[h] + codes[j, i]]`` for ``j = table_cols[h]`` with
    ``wide[h]`` (the columns whose table now maps values to codes)."""
    for h in range(table_cols.shape[0]):
        if wide[h]:
            j = table_cols[h]
            base = table_offset[h]
            for i in range(codes.shape[1]):
                codes[j, i] = table[base + codes[j, i]]
