"""Layout changes of the training matrix, done in cache-friendly blocks.

Turning the row-major user matrix into feature rows (for sorting and coding each feature) and the
feature-major codes into sample-major ``uint8`` rows (for the histogram blocks) are transposes; a
naive strided copy touches a new cache line per element, tiles of 64 x 64 do not.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treebound._config import JIT_OPTIONS, NO_NRT_JIT_OPTIONS

_TILE = 64


@njit(**NO_NRT_JIT_OPTIONS)
def transpose_into(X, out):
    """``out[j, i] = X[i, j]`` for a (n, d) matrix ``X`` and a (d, n) matrix ``out``."""
    n, d = X.shape
    for i0 in range(0, n, _TILE):
        i1 = min(i0 + _TILE, n)
        for j0 in range(0, d, _TILE):
            j1 = min(j0 + _TILE, d)
            for i in range(i0, i1):
                for j in range(j0, j1):
                    out[j, i] = X[i, j]


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


@njit(**JIT_OPTIONS)
def small_integer_ranks(col, ranks):
    """Distinct values and ranks of a column of small-range integers, in O(n + range).

    Returns the sorted distinct values and fills ``ranks`` (int64), or returns an empty array
    (and leaves ``ranks`` unspecified) when the column holds a non-integer or its range is
    larger than ``4 n + 1024`` — the caller then sorts instead.
    """
    n = col.shape[0]
    lo = col[0]
    hi = col[0]
    for i in range(n):
        v = col[i]
        if v != np.floor(v):
            return np.empty(0, dtype=np.float64)
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    span = hi - lo
    if span > 4 * n + 1024:
        return np.empty(0, dtype=np.float64)
    size = np.int64(span) + 1
    table = np.zeros(size, dtype=np.int64)
    for i in range(n):
        table[np.int64(col[i] - lo)] = 1
    n_unique = 0
    for v in range(size):
        if table[v]:
            table[v] = n_unique
            n_unique += 1
        else:
            table[v] = -1
    uniq = np.empty(n_unique, dtype=np.float64)
    for v in range(size):
        if table[v] >= 0:
            uniq[table[v]] = lo + v
    for i in range(n):
        ranks[i] = table[np.int64(col[i] - lo)]
    return uniq
