"""The loose growth-function bound of every pruning candidate at once (bound pruning,
``variant="loose"`` / ``"loose_paper"``).

Evaluating each candidate through :func:`treebound.theory.log_growth_function_upper_bound`
builds its :class:`~treebound.theory.TreeStructure` and runs a Python recursion; here the
candidates of a step are evaluated by one kernel call (:mod:`treebound._kernels.loose_growth`)
on the working tree's flat arrays, with canonical shape ids kept up to date along the root path
of each accepted collapse. Same recursion, same clipping, same halving rule; the Python path is
the oracle of the tests (``prune_bound(..., search="all")``).
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
)
from treebound.theory import _costs
from treebound.theory.combinatorics import log_falling_factorial

#: The memo of subtree values is dropped (between steps) once its rows take more than this.
MEMO_BYTES = 256 * 2**20


class LooseGrowth:
    """``ln tau(2m)`` (loose or loose_paper bound) of the candidates of a :class:`WorkingTree`.

    Parameters
    ----------
    work : WorkingTree
        The tree being pruned (read at every call: collapse it, then call :meth:`collapse`).
    structure : TreeStructure
        The grown tree's shape (for the resource check, as the Python path does per call).
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

    def __init__(self, work, structure, n_examples, n_features, n_classes, paper, cache):
        tree = work.tree
        self.work = work
        self.M = 2 * int(n_examples)
        self.n_classes = int(n_classes)
        self.paper = bool(paper)
        n_leaves = int(work.leaves[0])
        self.n_parts = max(1, min(self.n_classes, n_leaves, self.M))
        _costs.check_loose(structure, self.n_parts, self.M, True,
                           f"bound pruning, loose growth function ({n_leaves} leaves, "
                           f"m={self.M})")
        self.log_stirling = cache._log_stirling_upto(self.M, self.n_parts)
        self.log_coef = cache._log_coef_upto(self.n_parts)
        self.log_falling = np.array([log_falling_factorial(self.n_classes, a)
                                     for a in range(self.n_parts + 1)])
        self.log_two_ell = math.log(2 * int(n_features))
        self.first_child = np.ascontiguousarray(tree.first_child, dtype=np.int64)
        self.parent = np.ascontiguousarray(tree.parent, dtype=np.int64)
        n = self.first_child.shape[0]
        if n >= PAIR_BASE // 4:
            raise ValueError(f"tree too large for the loose kernel ({n} nodes)")
        self.shape_id = np.zeros(n, dtype=np.int64)
        self.height = np.zeros(n, dtype=np.int64)
        self.table_keys = np.full(16, EMPTY, dtype=np.int64)
        self.table_vals = np.empty(16, dtype=np.int64)
        self.n_shapes = 1  # 0 is the leaf
        self.table_keys, self.table_vals, self.n_shapes = assign_shape_ids(
            self.first_child, work.collapsed, self.shape_id, self.height, self.table_keys,
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
            candidates, self.first_child, self.parent, self.work.collapsed, self.work.leaves,
            self.shape_id, self.height, self.table_keys, self.table_vals, self.memo_keys,
            self.memo_vals, self.memo_count, self.values, self.n_rows, self.M, self.n_classes,
            self.n_parts, self.paper, self.log_two_ell, self.log_stirling, self.log_coef,
            self.log_falling)
        return out

    def collapse(self, node: int) -> None:
        """Update the shape ids after ``work.collapse(node)``."""
        self.table_keys, self.table_vals, self.n_shapes = collapse_shape_ids(
            int(node), self.first_child, self.parent, self.shape_id, self.height,
            self.table_keys, self.table_vals, self.n_shapes)
