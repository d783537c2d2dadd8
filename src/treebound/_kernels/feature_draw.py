"""Which features a node's search visits, and what it keeps of the best test: the steps the
dense (:mod:`~treebound._kernels.node_search`), extended
(:mod:`~treebound._kernels.extended_search`) and sparse
(:mod:`~treebound._kernels.sparse_growth`) searches share.

Features are visited in index order, every one not known constant in the node; with
``max_features`` below the number of features they are drawn as scikit-learn draws them:
without replacement among all the features, those known constant in the node included (they
count as visited), until ``max_features`` are visited and at least one was not constant, or
none of unknown status is left. The draws come from a splitmix64 stream, so trees are the same
on every platform.
"""

from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_INLINE_JIT_OPTIONS, NO_NRT_JIT_OPTIONS, njit
from treebound._kernels.split_numeric import midpoint_threshold


@njit(**NO_NRT_JIT_OPTIONS)
def next_random(state, high):
    """Uniform integer in [0, high) from a splitmix64 stream (reproducible across platforms)."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z % np.uint64(high))


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def known_constant(const_flags, row, f, bitset):
    """Whether feature ``f`` is known constant in the node whose flags are row ``row``: one byte
    per feature, or one bit (``bitset``: 64 features per uint64, the sparse kernel's)."""
    if bitset:
        return (const_flags[row, f >> 6] >> np.uint64(f & 63)) & np.uint64(1) != 0
    return const_flags[row, f] != 0


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def first_candidates(const_flags, row, n_features, shuffle, bitset, cand):
    """Fill ``cand`` with the features a search may visit: every feature when drawing
    (``shuffle``), else those not known constant, in index order. Returns ``(n_cand,
    n_unknown)``, ``n_unknown`` counting the candidates not known constant."""
    n_cand = 0
    n_unknown = 0
    for f in range(n_features):
        constant = known_constant(const_flags, row, f, bitset)
        if shuffle or not constant:
            cand[n_cand] = f
            n_cand += 1
            if not constant:
                n_unknown += 1
    return n_cand, n_unknown


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def next_candidate(cand, i, n_cand, n_unknown, visited, n_constant_seen, max_features, shuffle,
                   const_flags, row, bitset, rng):
    """The next feature to search, drawn (``shuffle``) or in order from ``cand[i:n_cand]``.

    Returns ``(f, i, n_unknown, visited, n_constant_seen)``, the counters advanced; ``f = -1``
    when the search stops. A drawn feature known constant is skipped and counted as visited and
    constant; the caller counts in ``n_constant_seen`` the features it finds constant.
    """
    while i < n_cand:
        if shuffle:
            if n_unknown == 0 or (visited >= max_features and visited > n_constant_seen):
                return -1, i, n_unknown, visited, n_constant_seen
            j = i + next_random(rng, n_cand - i)
            tmp = cand[i]
            cand[i] = cand[j]
            cand[j] = tmp
        f = cand[i]
        i += 1
        if shuffle:
            visited += 1
            if known_constant(const_flags, row, f, bitset):
                n_constant_seen += 1
                continue
            n_unknown -= 1
        return f, i, n_unknown, visited, n_constant_seen
    return -1, i, n_unknown, visited, n_constant_seen


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def code_threshold(data, f, lo, hi):
    """Threshold of the numeric test sending feature ``f``'s codes up to ``lo`` left and from
    ``hi`` right: the midpoint between their values, ``+inf`` for the test "value present /
    missing" (``hi`` the missing code: scikit-learn's infinite threshold)."""
    if hi == data.missing_code[f]:
        return np.inf
    off = data.value_offset[f]
    return midpoint_threshold(data.lo_values[off + hi], data.hi_values[off + lo])


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def keep_test(categorical, n_codes, slot_map, maps, map_used, lo, threshold):
    """What the search keeps of a new best test: a categorical test's category map (appended to
    ``maps`` at ``map_used``), a numeric test's last code sent left and threshold. Returns
    ``(map_offset, map_used, lo, threshold)`` (``-1`` offset for a numeric test, ``-1`` code
    and NaN threshold for a categorical one)."""
    if categorical:
        for b in range(n_codes):
            maps[map_used + b] = slot_map[b]
        return map_used, map_used + n_codes, -1, np.nan
    return -1, map_used, lo, threshold
