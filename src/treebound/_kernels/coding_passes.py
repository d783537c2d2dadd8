"""Compiled passes over the training matrix behind feature coding
(:mod:`treebound._flat._feature_coding`): column ranges, value tables of small-range integer
columns, ``uint8`` codes, and layout changes done in cache-friendly blocks.

Turning the row-major user matrix into feature rows (for sorting and coding each feature) and the
feature-major codes into sample-major ``uint8`` rows (for the histogram blocks) are transposes; a
naive strided copy touches a new cache line per element, tiles of 64 x 64 do not.
"""

from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_JIT_OPTIONS, njit

_TILE = 64


@njit(**NO_NRT_JIT_OPTIONS)
def transpose_columns(X, cols, out):
    """``out[h, i] = X[i, cols[h]]`` for a (n, d) matrix ``X`` and a (len(cols), n) ``out``."""
    n = X.shape[0]
    k = cols.shape[0]
    for i0 in range(0, n, _TILE):
        i1 = min(i0 + _TILE, n)
        for h0 in range(0, k, _TILE):
            h1 = min(h0 + _TILE, k)
            for i in range(i0, i1):
                for h in range(h0, h1):
                    out[h, i] = X[i, cols[h]]


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
    """Smallest and largest value of every column of the (n, d) matrix ``X`` and whether all its
    values are integers, in one row-major pass (no transposed copy of ``X`` is needed)."""
    n, d = X.shape
    for j in range(d):
        lo[j] = X[0, j]
        hi[j] = X[0, j]
        integral[j] = True
    for i in range(n):
        for j in range(d):
            v = X[i, j]
            # unconditional stores (selects): the loop over columns vectorises
            integral[j] &= v == np.floor(v)  # NaN is not an integer
            lo[j] = v if v < lo[j] else lo[j]
            hi[j] = v if v > hi[j] else hi[j]


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
