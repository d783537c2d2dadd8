"""Routing examples through a flat tree: the kernels behind ``predict``, ``apply``, ``decision_path``.

The kernels read a routing table built from :class:`~treebound.tree.Tree`: ``next_base[i]`` (the
first child, or ``i`` itself at a leaf), ``feature[i]`` (0 at a leaf), ``threshold[i]`` (``+inf``
at a leaf) and ``category_offset[i]``. With leaves pointing at themselves, one step is
``node = next_base[node] + (x > threshold[node])`` for a numeric test and a no-op at a leaf, so
rows are advanced in batches, level by level, without data-dependent branches: the CPU overlaps
the memory latency of many rows instead of stalling on one row's path. A categorical test looks
the child slot up in ``category_child[category_offset[i] + code]``. A missing value (NaN) takes
the child slot ``missing_child[i]`` (0 at a leaf); for a numeric test that is the branch-free
``(x > t) | (x != x) & missing_child`` (NaN compares false).
"""

from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_JIT_OPTIONS, njit

_BATCH = 64


@njit(**NO_NRT_JIT_OPTIONS)
def apply_numeric(next_base, feature, threshold, X, nodes, out):
    """Leaf id of every row of ``X`` for a tree with numeric tests only (``nodes``: scratch of
    at least 64 integers).

    Rows advance in batches, eight levels at a time without any check (leaves stay put), then
    the batch stops once every row sits at a leaf. ``X`` holds no NaN (see
    :func:`apply_numeric_missing`).
    """
    n = X.shape[0]
    for start in range(0, n, _BATCH):
        m = min(_BATCH, n - start)
        for j in range(m):
            nodes[j] = 0
        done = False
        while not done:
            for _ in range(8):
                for j in range(m):
                    node = nodes[j]
                    nodes[j] = next_base[node] + np.int64(
                        X[start + j, feature[node]] > threshold[node])
            done = True
            for j in range(m):
                if next_base[nodes[j]] != nodes[j]:
                    done = False
                    break
        for j in range(m):
            out[start + j] = nodes[j]


@njit(**NO_NRT_JIT_OPTIONS)
def apply_numeric_missing(next_base, feature, threshold, missing_child, X, nodes, out):
    """:func:`apply_numeric` for an ``X`` with missing values (NaN): a NaN takes the child slot
    ``missing_child[node]``. A third slower than :func:`apply_numeric`, which serves NaN-free
    rows.

    Rows advance in batches, eight levels at a time without any check (leaves stay put), then
    the batch stops once every row sits at a leaf.
    """
    n = X.shape[0]
    for start in range(0, n, _BATCH):
        m = min(_BATCH, n - start)
        for j in range(m):
            nodes[j] = 0
        done = False
        while not done:
            for _ in range(8):
                for j in range(m):
                    node = nodes[j]
                    x = X[start + j, feature[node]]
                    nodes[j] = next_base[node] + (np.int64(x > threshold[node])
                                                  | (np.int64(x != x) & missing_child[node]))
            done = True
            for j in range(m):
                if next_base[nodes[j]] != nodes[j]:
                    done = False
                    break
        for j in range(m):
            out[start + j] = nodes[j]


@njit(**NO_NRT_JIT_OPTIONS)
def _step(next_base, feature, threshold, category_offset, category_child, missing_child, X, r,
          node):
    offset = category_offset[node]
    x = X[r, feature[node]]
    if x != x:
        return next_base[node] + missing_child[node]
    if offset < 0:
        return next_base[node] + np.int64(x > threshold[node])
    return next_base[node] + category_child[offset + np.int64(x)]


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
    lo = indptr[r]
    end = indptr[r + 1]
    hi = end
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < j:
            lo = mid + 1
        else:
            hi = mid
    if lo < end and indices[lo] == j:
        return np.float64(data[lo])
    return 0.0


@njit(**NO_NRT_JIT_OPTIONS)
def _step_csr(next_base, feature, threshold, category_offset, category_child, missing_child,
              indptr, indices, data, r, node):
    offset = category_offset[node]
    x = csr_value(indptr, indices, data, r, feature[node])
    if x != x:
        return next_base[node] + missing_child[node]
    if offset < 0:
        return next_base[node] + np.int64(x > threshold[node])
    return next_base[node] + category_child[offset + np.int64(x)]


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
