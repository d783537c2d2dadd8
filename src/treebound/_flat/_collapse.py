"""Collapsing nodes of a flat tree into leaves: the one rebuild every pruning method ends with
(:meth:`treebound.tree.Tree.collapse`)."""

from __future__ import annotations

import numpy as np

from treebound._kernels.prunings import collapse_order

__all__ = ["collapse_tree"]


def collapse_tree(tree, make_leaf) -> tuple:
    """:meth:`treebound.tree.Tree.collapse` (its docstring): a copy of ``tree`` where every node
    with ``make_leaf[i]`` is a leaf, the kept nodes renumbered breadth-first, and the new id of
    every old node (``-1``: dropped)."""
    make_leaf = np.asarray(make_leaf, dtype=bool)
    if make_leaf.shape != (tree.n_nodes,):
        raise ValueError(
            f"make_leaf must have one entry per node ({tree.n_nodes}), got {make_leaf.shape}"
        )
    n = tree.n_nodes
    keep = np.empty(n, dtype=np.int64)
    new_first_child = np.empty(n, dtype=np.int64)
    new_n_children = np.empty(n, dtype=np.int64)
    old_to_new = np.empty(n, dtype=np.int64)
    # the breadth-first walk compiled (a Python loop over the nodes took most of the time)
    n_kept = collapse_order(np.ascontiguousarray(tree.first_child, dtype=np.int64),
                            np.ascontiguousarray(tree.n_children, dtype=np.int64), make_leaf,
                            keep, new_first_child, new_n_children, old_to_new)
    keep = keep[:n_kept].copy()
    first_child = new_first_child[:n_kept].copy()
    internal = first_child >= 0
    feature = np.where(internal, tree.feature[keep], -1)
    threshold = np.where(internal, tree.threshold[keep], np.nan)
    missing_child = np.where(internal, tree.missing_child[keep], -1)
    # Re-pool the category maps of the kept categorical tests.
    category_offset = np.full(keep.shape[0], -1, dtype=np.int64)
    pieces = []
    pos = 0
    for new_id in np.flatnonzero(internal & (tree.category_offset[keep] >= 0)):
        old = keep[new_id]
        width = int(tree.n_categories[tree.feature[old]])
        off = tree.category_offset[old]
        pieces.append(tree.category_child[off : off + width])
        category_offset[new_id] = pos
        pos += width
    category_child = (np.concatenate(pieces) if pieces else np.empty(0, dtype=np.int64))
    pruned = type(tree)(
        first_child=first_child,
        n_children=new_n_children[:n_kept].copy(),
        feature=feature.astype(np.int64),
        threshold=threshold.astype(np.float64),
        category_offset=category_offset,
        category_child=category_child.astype(np.int64),
        value=tree.value[keep].copy(),
        impurity=tree.impurity[keep].copy(),
        n_node_samples=tree.n_node_samples[keep].copy(),
        weighted_n_node_samples=tree.weighted_n_node_samples[keep].copy(),
        n_categories=tree.n_categories.copy(),
        task=tree.task,
        missing_child=missing_child.astype(np.int64),
    )
    return pruned, old_to_new
