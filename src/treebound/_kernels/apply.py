"""Routing examples through a flat tree: the kernels behind ``predict``, ``apply``, ``decision_path``.

A node ``i`` is a leaf when ``first_child[i] == -1``. Otherwise its children are the contiguous
ids ``first_child[i] + slot``; a numeric test sends ``x <= threshold`` to slot 0 and the rest to
slot 1, a categorical test looks the slot up in ``category_child[category_offset[i] + code]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treebound._config import JIT_OPTIONS


@njit(**JIT_OPTIONS)
def child_slot(x_value, threshold, category_offset, category_child):
    """The slot (0-based) of the child that an example with this feature value goes to."""
    if category_offset < 0:
        return 0 if x_value <= threshold else 1
    return category_child[category_offset + np.int64(x_value)]


@njit(**JIT_OPTIONS)
def apply_rows(first_child, feature, threshold, category_offset, category_child, X):
    """Leaf id reached by every row of ``X`` (float64, categorical columns hold category codes)."""
    n_rows = X.shape[0]
    out = np.empty(n_rows, dtype=np.int64)
    for r in range(n_rows):
        node = 0
        while first_child[node] >= 0:
            slot = child_slot(
                X[r, feature[node]], threshold[node], category_offset[node], category_child
            )
            node = first_child[node] + slot
        out[r] = node
    return out


@njit(**JIT_OPTIONS)
def path_lengths(first_child, feature, threshold, category_offset, category_child, X):
    """Number of nodes on each row's root-to-leaf path (for sizing the decision-path matrix)."""
    n_rows = X.shape[0]
    out = np.empty(n_rows, dtype=np.int64)
    for r in range(n_rows):
        node = 0
        length = 1
        while first_child[node] >= 0:
            slot = child_slot(
                X[r, feature[node]], threshold[node], category_offset[node], category_child
            )
            node = first_child[node] + slot
            length += 1
        out[r] = length
    return out


@njit(**JIT_OPTIONS)
def fill_paths(first_child, feature, threshold, category_offset, category_child, X, indptr, indices):
    """Write every row's visited node ids into ``indices`` (CSR layout given by ``indptr``)."""
    for r in range(X.shape[0]):
        node = 0
        pos = indptr[r]
        indices[pos] = 0
        while first_child[node] >= 0:
            slot = child_slot(
                X[r, feature[node]], threshold[node], category_offset[node], category_child
            )
            node = first_child[node] + slot
            pos += 1
            indices[pos] = node
