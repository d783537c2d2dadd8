"""Routing examples through a flat tree: the kernels behind ``predict``, ``apply``, ``decision_path``.

The kernels read a routing table built from :class:`~treebound.tree.Tree`: ``next_base[i]`` (the
first child, or ``i`` itself at a leaf), ``feature[i]`` (0 at a leaf), ``threshold[i]`` (``+inf``
at a leaf) and ``category_offset[i]``. With leaves pointing at themselves, one step is
``node = next_base[node] + (x > threshold[node])`` for a numeric test and a no-op at a leaf, so
eight rows advance together, level by level, without data-dependent branches in the step: the
CPU overlaps the memory latency of several rows instead of stalling on one row's path, and a
row at its leaf hands its lane to the next row. A categorical test looks
the child slot up in ``category_child[category_offset[i] + code]``. A missing value (NaN) takes
the child slot ``missing_child[i]`` (0 at a leaf); for a numeric test that is the branch-free
``(x > t) | (x != x) & missing_child`` (NaN compares false).
"""

from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_INLINE_JIT_OPTIONS, NO_NRT_JIT_OPTIONS, njit

#: Rows routed at once by the numeric kernels (their scratch holds 2 x _LANES integers).
_LANES = 8


@njit(**NO_NRT_JIT_OPTIONS)
def apply_numeric(next_base, feature, threshold, X, lanes, out):
    """Leaf id of every row of ``X`` for a tree with numeric tests only (``lanes``: scratch of
    at least 16 integers).

    Eight rows are routed at once, one level per sweep without data-dependent branches in the
    step, so the CPU overlaps their memory latencies; a row that reaches its leaf hands its lane
    to the next row at once (a batch that waits for its deepest row wasted 2-3x the steps on
    trees with a few deep paths). ``X`` holds no NaN (see :func:`apply_numeric_missing`).
    """
    n = X.shape[0]
    m = _start_lanes(lanes, n)
    next_row = m
    while m > 0:
        for j in range(m):
            node = lanes[j]
            lanes[j] = next_base[node] + np.int64(
                X[lanes[_LANES + j], feature[node]] > threshold[node])
        m, next_row = _refill(next_base, lanes, m, next_row, n, out)


@njit(**NO_NRT_JIT_OPTIONS)
def apply_numeric_missing(next_base, feature, threshold, missing_child, X, lanes, out):
    """:func:`apply_numeric` for an ``X`` with missing values (NaN): a NaN takes the child slot
    ``missing_child[node]``. A third slower than :func:`apply_numeric`, which serves NaN-free
    rows."""
    n = X.shape[0]
    m = _start_lanes(lanes, n)
    next_row = m
    while m > 0:
        for j in range(m):
            node = lanes[j]
            x = X[lanes[_LANES + j], feature[node]]
            lanes[j] = next_base[node] + (np.int64(x > threshold[node])
                                          | (np.int64(x != x) & missing_child[node]))
        m, next_row = _refill(next_base, lanes, m, next_row, n, out)


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def _start_lanes(lanes, n):
    """Put the first rows (at most ``_LANES`` of the ``n``) at the root, one per lane; returns
    how many lanes are in use."""
    m = min(_LANES, n)
    for j in range(m):
        lanes[j] = 0
        lanes[_LANES + j] = j
    return m


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def _refill(next_base, lanes, m, next_row, n, out):
    """Write the rows of ``lanes[:m]`` that sit at a leaf (leaves point at themselves) and give
    their lanes to the next rows (or drop the lanes when none is left); returns
    ``(m, next_row)``. ``lanes[j]`` is a lane's node, ``lanes[_LANES + j]`` its row."""
    j = 0
    while j < m:
        node = lanes[j]
        if next_base[node] != node:
            j += 1
        elif next_row < n:
            out[lanes[_LANES + j]] = node
            lanes[j] = 0
            lanes[_LANES + j] = next_row
            next_row += 1
            j += 1
        else:
            out[lanes[_LANES + j]] = node
            m -= 1
            lanes[j] = lanes[m]
            lanes[_LANES + j] = lanes[_LANES + m]
    return m, next_row


@njit(**NO_NRT_JIT_OPTIONS)
def _child(next_base, threshold, category_offset, category_child, missing_child, node, x):
    """The child of ``node`` that the value ``x`` of its tested feature goes to."""
    offset = category_offset[node]
    if x != x:
        return next_base[node] + missing_child[node]
    if offset < 0:
        return next_base[node] + np.int64(x > threshold[node])
    return next_base[node] + category_child[offset + np.int64(x)]


@njit(**NO_NRT_JIT_OPTIONS)
def _step(next_base, feature, threshold, category_offset, category_child, missing_child, X, r,
          node):
    return _child(next_base, threshold, category_offset, category_child, missing_child, node,
                  X[r, feature[node]])


@njit(**NO_NRT_JIT_OPTIONS)
def apply_general(next_base, feature, threshold, category_offset, category_child, missing_child,
                  X, out):
    """Leaf id of every row of ``X`` (categorical columns hold validated category codes)."""
    for r in range(X.shape[0]):
        node = 0
        nxt = _step(next_base, feature, threshold, category_offset, category_child, missing_child,
                    X, r, node)
        while nxt != node:
            node = nxt
            nxt = _step(next_base, feature, threshold, category_offset, category_child,
                        missing_child, X, r, node)
        out[r] = node


@njit(**NO_NRT_JIT_OPTIONS)
def path_lengths(next_base, feature, threshold, category_offset, category_child, missing_child,
                 X, out):
    """Number of nodes on each row's root-to-leaf path."""
    for r in range(X.shape[0]):
        node = 0
        length = 1
        nxt = _step(next_base, feature, threshold, category_offset, category_child, missing_child,
                    X, r, node)
        while nxt != node:
            node = nxt
            length += 1
            nxt = _step(next_base, feature, threshold, category_offset, category_child,
                        missing_child, X, r, node)
        out[r] = length


@njit(**NO_NRT_JIT_OPTIONS)
def fill_paths(next_base, feature, threshold, category_offset, category_child, missing_child,
               X, indptr, indices):
    """Every row's visited node ids, written into ``indices`` (CSR layout given by ``indptr``)."""
    for r in range(X.shape[0]):
        node = 0
        pos = indptr[r]
        indices[pos] = 0
        nxt = _step(next_base, feature, threshold, category_offset, category_child, missing_child,
                    X, r, node)
        while nxt != node:
            node = nxt
            pos += 1
            indices[pos] = node
            nxt = _step(next_base, feature, threshold, category_offset, category_child,
                        missing_child, X, r, node)


@njit(**NO_NRT_JIT_OPTIONS)
def csr_value(indptr, indices, data, r, j):
    """The value of column ``j`` in row ``r`` of a matrix in compressed rows with sorted,
    unique column indices: the stored value, or 0 (a binary search of the row's entries)."""
    at = sorted_position(indices, indptr[r], indptr[r + 1], j)
    return np.float64(data[at]) if at >= 0 else 0.0


@njit(**NO_NRT_JIT_OPTIONS)
def sorted_position(values, start, stop, x):
    """Index in ``values[start:stop]`` (sorted) of ``x``, or ``-1`` when absent (a binary
    search)."""
    lo = start
    hi = stop
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    if lo < stop and values[lo] == x:
        return lo
    return -1


@njit(**NO_NRT_JIT_OPTIONS)
def _step_csr(next_base, feature, threshold, category_offset, category_child, missing_child,
              indptr, indices, data, r, node):
    return _child(next_base, threshold, category_offset, category_child, missing_child, node,
                  csr_value(indptr, indices, data, r, feature[node]))


@njit(**NO_NRT_JIT_OPTIONS)
def apply_csr(next_base, feature, threshold, category_offset, category_child, missing_child,
              indptr, indices, data, out):
    """:func:`apply_general` on a matrix in compressed rows (``indptr``, ``indices`` sorted and
    unique within a row, ``data``): every absent entry is the value 0, nothing is densified."""
    for r in range(out.shape[0]):
        node = 0
        nxt = _step_csr(next_base, feature, threshold, category_offset, category_child,
                        missing_child, indptr, indices, data, r, node)
        while nxt != node:
            node = nxt
            nxt = _step_csr(next_base, feature, threshold, category_offset, category_child,
                            missing_child, indptr, indices, data, r, node)
        out[r] = node
