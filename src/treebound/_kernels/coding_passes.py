"""Compiled passes over the training matrix behind feature coding
(:mod:`treebound._flat._feature_coding`): column ranges, value tables of small-range integer
columns, ``uint8`` codes, and layout changes done in cache-friendly blocks.

Turning the feature-major codes into sample-major ``uint8`` rows (for the histogram blocks) is a
transpose; a naive strided copy touches a new cache line per element, tiles of 64 x 64 do not.
(The row-major user matrix becomes feature rows by numpy's transposing copy, which is faster
than such a kernel.)
"""

from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_JIT_OPTIONS, njit

_TILE = 64


@njit(**NO_NRT_JIT_OPTIONS)
def gather_codes_t(codes, features, out):
    """``out[s, h] = codes[features[h], s]`` as uint8 (codes below 256)."""
    n = codes.shape[1]
    n_sel = features.shape[0]
    for s0 in range(0, n, _TILE):
        s1 = min(s0 + _TILE, n)
        for h in range(n_sel):
            f = features[h]
            for s in range(s0, s1):
                out[s, h] = codes[f, s]


@njit(**NO_NRT_JIT_OPTIONS)
def column_ranges(X, lo, hi, integral):
    """Smallest and largest value of every column of the (n, d) matrix ``X`` (NaN left out:
    ``inf`` and ``-inf`` for a column of NaN only) and whether all its values are integers (a
    NaN is not one); returns whether ``X`` holds a NaN. No transposed copy of ``X`` is needed.

    Four columns at a time, down the rows, with the running values in local variables: stored
    to the output arrays on every row (which the compiler must assume ``X`` may alias), they
    cost three times as much. The NaN test costs nothing more: the pass waits on memory."""
    n, d = X.shape
    nan = False
    for j in range(0, d - d % 4, 4):
        l0 = l1 = l2 = l3 = np.inf
        h0 = h1 = h2 = h3 = -np.inf
        f0 = f1 = f2 = f3 = True
        m0 = m1 = m2 = m3 = False
        for i in range(n):
            v0, v1, v2, v3 = X[i, j], X[i, j + 1], X[i, j + 2], X[i, j + 3]
            # selects, not branches: the four columns go in one vector
            m0 |= v0 != v0
            m1 |= v1 != v1
            m2 |= v2 != v2
            m3 |= v3 != v3
            f0 &= v0 == np.floor(v0)
            f1 &= v1 == np.floor(v1)
            f2 &= v2 == np.floor(v2)
            f3 &= v3 == np.floor(v3)
            l0 = v0 if v0 < l0 else l0
            l1 = v1 if v1 < l1 else l1
            l2 = v2 if v2 < l2 else l2
            l3 = v3 if v3 < l3 else l3
            h0 = v0 if v0 > h0 else h0
            h1 = v1 if v1 > h1 else h1
            h2 = v2 if v2 > h2 else h2
            h3 = v3 if v3 > h3 else h3
        lo[j], lo[j + 1], lo[j + 2], lo[j + 3] = l0, l1, l2, l3
        hi[j], hi[j + 1], hi[j + 2], hi[j + 3] = h0, h1, h2, h3
        integral[j], integral[j + 1], integral[j + 2], integral[j + 3] = f0, f1, f2, f3
        nan |= m0 | m1 | m2 | m3
    for j in range(d - d % 4, d):
        low, high = np.inf, -np.inf
        whole = True
        for i in range(n):
            v = X[i, j]
            nan |= v != v
            whole &= v == np.floor(v)
            low = v if v < low else low
            high = v if v > high else high
        lo[j], hi[j], integral[j] = low, high, whole
    return nan


@njit(**NO_NRT_JIT_OPTIONS)
def offset_codes(X, cols, lo, counted, table_offset, table, codes):
    """``codes[j, i] = X[i, j] - lo[j]`` for the small-range integer columns ``j = cols[h]``,
    and a value table per column: counts when ``counted[h]``, otherwise presence flags (a plain
    store: no dependency chain on repeated values)."""
    n = X.shape[0]
    # Transposing read: blocks of 8 rows (one cache line of codes per column), which the
    # compiler unrolls; wider tiles were slower here.
    n8 = n - n % 8
    for i0 in range(0, n8, 8):
        for h in range(cols.shape[0]):
            j = cols[h]
            low = lo[j]
            for k in range(8):
                codes[j, i0 + k] = np.int32(X[i0 + k, j] - low)
    for h in range(cols.shape[0]):
        j = cols[h]
        low = lo[j]
        for i in range(n8, n):
            codes[j, i] = np.int32(X[i, j] - low)
        base = table_offset[h]
        if counted[h]:
            for i in range(n):
                table[base + codes[j, i]] += 1
        else:
            for i in range(n):
                table[base + codes[j, i]] = 1


@njit(**NO_NRT_JIT_OPTIONS)
def narrow_codes(X, lo, small, seen):
    """``small[i, j] = X[i, j] - lo[j]`` as uint8 and the values present as bit masks
    (``seen[4 j + c // 64]`` bit ``c % 64``), for every column in row-major passes that the
    compiler vectorises (no column indirection); only columns spanning <= 256 integers are
    meaningful, the others hold garbage that is never used."""
    n, d = X.shape
    for i in range(n):
        for j in range(d):
            small[i, j] = np.int32(X[i, j] - lo[j])
    # a second pass is faster than marking in the first (which then does not vectorise);
    # unsigned indices spare numba's negative-index wraparound
    for i in range(n):
        for j in range(d):
            c = np.uint64(small[i, j])
            seen[np.uint64(4 * j) + (c >> np.uint64(6))] |= np.uint64(1) << (c & np.uint64(63))


@njit(**NO_NRT_JIT_OPTIONS)
def widen_codes(small, cols, codes):
    """``codes[cols[h], i] = small[i, h]``: the feature-major int32 codes from the uint8 ones,
    in blocks of 8 rows (the uint8 matrix is several times smaller than X to read across)."""
    n = small.shape[0]
    n8 = n - n % 8
    for i0 in range(0, n8, 8):
        for h in range(cols.shape[0]):
            j = cols[h]
            for k in range(8):
                codes[j, i0 + k] = small[i0 + k, h]
    for h in range(cols.shape[0]):
        j = cols[h]
        for i in range(n8, n):
            codes[j, i] = small[i, h]


@njit(**NO_NRT_JIT_OPTIONS)
def plan_value_tables(lo, hi, integral, n_categories, limit, budget, max_bins, hist, table_cols,
                      table_size, table_offset, counted, narrow, rest):
    """Which columns get a value table, in one pass instead of a dozen numpy calls per fit.

    A column is tabled when it is numeric (``n_categories[j] == 0``), all its values are
    integers and ``hi[j] - lo[j] <= limit``, while the running total of those spans (the
    columns before it included) stays within ``budget``. Fills, for the ``k`` tabled columns in
    order: ``table_cols`` (their indices), ``table_size`` (``hi - lo + 1``), ``table_offset``
    (``k + 1`` entries: where each table starts, then the total), ``counted`` (the values may
    have to be binned: more than ``max_bins`` of them with ``hist``) and ``narrow`` (at most
    256 values, not counted), and ``rest`` the ``d - k`` other columns in order; returns
    ``k``. The output arrays hold at least ``d`` entries (``table_offset``: ``d + 1``)."""
    total = 0
    k = 0
    table_offset[0] = 0
    for j in range(lo.shape[0]):
        span = hi[j] - lo[j]
        if not (integral[j] and n_categories[j] == 0 and span <= limit):
            rest[j - k] = j
            continue
        size = np.int64(span + 1.0)
        total += size
        if size <= 0 or total > budget:
            rest[j - k] = j
            continue
        table_cols[k] = j
        table_size[k] = size
        table_offset[k + 1] = table_offset[k] + size
        counted[k] = hist and size > max_bins
        narrow[k] = size <= 256 and not counted[k]
        k += 1
    return k


@njit(**NO_NRT_JIT_OPTIONS)
def finish_layout(length, start, kind, n_codes, presorted, narrow_cols, value_offset,
                  hist_features):
    """The end of feature coding in one pass: ``value_offset[j]`` (the sum of ``length`` before
    column ``j``), ``hist_features`` (the columns whose kind is not ``presorted`` and that have
    at most 256 codes; the array holds at least ``d`` entries). Returns ``(total length, number
    of hist features, whether start == value_offset, whether hist_features == narrow_cols)``."""
    total = 0
    starts_equal = True
    n_hist = 0
    for j in range(length.shape[0]):
        value_offset[j] = total
        starts_equal &= start[j] == total
        total += length[j]
        if kind[j] != presorted and n_codes[j] <= 256:
            hist_features[n_hist] = j
            n_hist += 1
    same = n_hist == narrow_cols.shape[0]
    if same:
        for h in range(n_hist):
            if hist_features[h] != narrow_cols[h]:
                same = False
                break
    return total, n_hist, starts_equal, same
