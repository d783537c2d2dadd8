"""The loose bound of Leboeuf et al. (2020, end of section 6.2) in log space: one route, the
kernels of :mod:`treebound._kernels.loose_growth` on flat tree arrays.

* :class:`LooseGrowth` — ``ln tau(2m)`` of every pruning candidate of a step in one kernel call
  (bound pruning, ``variant="loose"`` / ``"loose_paper"``), with canonical shape ids kept up to
  date along the root path of each accepted collapse;
* :func:`loose_log_values` — ``ln pi^c(m)`` of one :class:`~treebound.theory.TreeStructure`
  (the log-space theory functions), its shape laid out as flat arrays.

The recursion in Python (exact integers, :func:`treebound.theory._tables.loose_node_values`)
serves the exact functions; in log space it is the oracle of the tests
(``tests/_theory_oracles.py``).
"""

from __future__ import annotations

import math

import numpy as np

from treebound._kernels.loose_growth import (
    EMPTY,
    LEAF_ROW,
    PAIR_BASE,
    assign_shape_ids,
    collapse_shape_ids,
    loose_candidates_log_growth,
    loose_tree_row,
)
from treebound.theory import _costs
from treebound.theory.combinatorics import log_falling_factorial

#: The memo of subtree values is dropped (between steps) once its rows take more than this.
MEMO_BYTES = 256 * 2**20


class LooseGrowth:
    """``ln tau(2m)`` (loose or loose_paper bound) of the candidates of a tree being pruned.

    Parameters
    ----------
    first_child, parent : ndarray of int
        The grown tree (children ``first_child[v]`` and ``first_child[v] + 1``).
    collapsed, leaves : ndarray
        Nodes made leaves so far and the current leaves under each node: the caller's arrays,
        updated in place (read at every call: update them, then call :meth:`collapse`).
    structure : TreeStructure
        The grown tree's shape (for the resource check).
    n_examples : int
        ``m`` (the bound is evaluated at ``M = 2m``).
    n_features : int
        ``ell`` of Theorem 9.
    n_classes : int
        ``n``.
    paper : bool
        ``"loose_paper"`` instead of ``"loose"``.
    cache : PartitioningCache
        Source of the log-Stirling table and of the merge coefficients.
    """

    def __init__(self, first_child, parent, collapsed, leaves, structure, n_examples,
                 n_features, n_classes, paper, cache):
        self.collapsed = collapsed
        self.leaves = leaves
        self.M = 2 * int(n_examples)
        self.n_classes = int(n_classes)
        self.paper = bool(paper)
        n_leaves = int(leaves[0])
        self.n_parts = max(1, min(self.n_classes, n_leaves, self.M))
        _costs.check_loose(structure, self.n_parts, self.M, True,
                           f"bound pruning, loose growth function ({n_leaves} leaves, "
                           f"m={self.M})")
        self.log_stirling = cache._log_stirling_upto(self.M, self.n_parts)
        self.log_coef = cache._log_coef_upto(self.n_parts)
        self.log_falling = np.array([log_falling_factorial(self.n_classes, a)
                                     for a in range(self.n_parts + 1)])
        self.log_two_ell = math.log(2 * int(n_features))
        self.first_child = np.ascontiguousarray(first_child, dtype=np.int64)
        self.parent = np.ascontiguousarray(parent, dtype=np.int64)
        n = self.first_child.shape[0]
        if n >= PAIR_BASE // 4:
            raise ValueError(f"tree too large for the loose kernel ({n} nodes)")
        self.shape_id = np.zeros(n, dtype=np.int64)
        self.height = np.zeros(n, dtype=np.int64)
        self.table_keys = np.full(16, EMPTY, dtype=np.int64)
        self.table_vals = np.empty(16, dtype=np.int64)
        self.n_shapes = 1  # 0 is the leaf
        self.table_keys, self.table_vals, self.n_shapes = assign_shape_ids(
            self.first_child, collapsed, self.shape_id, self.height, self.table_keys,
            self.table_vals, self.n_shapes)
        self._reset_memo()

    def _reset_memo(self):
        self.memo_keys = np.full(1024, EMPTY, dtype=np.int64)
        self.memo_vals = np.empty(1024, dtype=np.int64)
        self.memo_count = 0
        self.values = np.full((1024, self.n_parts + 1), -np.inf)
        self.values[LEAF_ROW, 1] = 0.0  # a leaf: pi^1 = 1, pi^c = 0 for c != 1
        self.n_rows = LEAF_ROW + 1

    def log_growth(self, candidates) -> np.ndarray:
        """``ln tau(2m)`` of the current tree with each node of ``candidates`` made a leaf
        (``-1``: the current tree itself)."""
        if self.n_rows * (self.n_parts + 1) * 8 > MEMO_BYTES:
            self._reset_memo()
        if self.n_shapes * (self.M + 1) >= 2**62:  # memo keys are id * (M + 1) + size
            raise OverflowError(f"{self.n_shapes} shapes at M={self.M}: memo keys overflow")
        candidates = np.ascontiguousarray(candidates, dtype=np.int64)
        (out, self.memo_keys, self.memo_vals, self.memo_count, self.values,
         self.n_rows) = loose_candidates_log_growth(
            candidates, self.first_child, self.parent, self.collapsed, self.leaves,
            self.shape_id, self.height, self.table_keys, self.table_vals, self.memo_keys,
            self.memo_vals, self.memo_count, self.values, self.n_rows, self.M, self.n_classes,
            self.n_parts, self.paper, self.log_two_ell, self.log_stirling, self.log_coef,
            self.log_falling)
        return out

    def collapse(self, node: int) -> None:
        """Update the shape ids after the caller made ``node`` a leaf."""
        self.table_keys, self.table_vals, self.n_shapes = collapse_shape_ids(
            int(node), self.first_child, self.parent, self.shape_id, self.height,
            self.table_keys, self.table_vals, self.n_shapes)


def flat_arrays(structure):
    """``(first_child, leaves)`` of ``structure`` laid out as a flat tree: nodes in breadth-first
    order, the two children of a node adjacent (``first_child``: ``-1`` at a leaf)."""
    order = [structure]
    first_child = []
    i = 0
    while i < len(order):
        t = order[i]
        if t.is_leaf:
            first_child.append(-1)
        else:
            first_child.append(len(order))
            order.append(t.left)
            order.append(t.right)
        i += 1
    leaves = np.array([t.n_leaves for t in order], dtype=np.int64)
    return np.array(first_child, dtype=np.int64), leaves


def loose_log_values(structure, n_parts, n_examples, n_features, paper, cache) -> list[float]:
    """``ln pi^c(m)`` of the loose bound for ``c <= min(n_parts, L)`` of ``structure``.

    ``m <= L`` (and a leaf) are the base cases (``S(m, c)``, ``pi^1 = 1``); above, the kernel's
    recursion. ``cache`` provides the log-Stirling table and the merge coefficients.
    """
    L, m = structure.n_leaves, int(n_examples)
    C = min(n_parts, L)
    if m <= L:
        return list(cache._log_stirling_upto(m, C)[: C + 1, m])
    if structure.is_leaf:  # pi^1(m) = 1, pi^0(m) = 0 for m >= 1
        return [-math.inf, 0.0]
    first_child, leaves = flat_arrays(structure)
    n = first_child.shape[0]
    collapsed = np.zeros(n, dtype=bool)
    shape_id = np.zeros(n, dtype=np.int64)
    height = np.zeros(n, dtype=np.int64)
    assign_shape_ids(first_child, collapsed, shape_id, height, np.full(16, EMPTY, dtype=np.int64),
                     np.empty(16, dtype=np.int64), 1)
    row = loose_tree_row(first_child, collapsed, leaves, shape_id, height, m, C, bool(paper),
                         math.log(2 * int(n_features)), cache._log_stirling_upto(m, C),
                         cache._log_coef_upto(C))
    return row.tolist()
