"""Where a missing value goes at a node that saw none in training.

scikit-learn (1.3 and later) sends it to the child that received the most training rows, the
right one on ties (``missing_go_to_left = n_left > n_right``); treebound does the same at a
numeric test. At a categorical test a missing value goes where a level never seen in training
goes (:attr:`~treebound.tree.Tree.unseen_child`, the child of most training weight): both are
values the node never saw. Growth stores its own choice where a node had missing rows
(``Tree.missing_child``); this rule fills the rest, and the whole array for trees written before
missing values were routed.
"""

from __future__ import annotations

import numpy as np

__all__ = ["default_missing_child"]


def default_missing_child(tree) -> np.ndarray:
    """``missing_child`` of a tree whose nodes saw no missing value: ``-1`` at leaves.

    Parameters
    ----------
    tree : treebound.tree.Tree

    Returns
    -------
    ndarray of int64, shape (n_nodes,)

    Examples
    --------
    >>> from treebound import DecisionTreeClassifier
    >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], [0, 1, 1]).tree_
    >>> default_missing_child(tree).tolist()  # the right child holds 2 rows, the left 1
    [1, -1, -1]
    """
    first = np.asarray(tree.first_child)
    out = np.full(first.shape[0], -1, dtype=np.int64)
    try:
        return _fill(tree, first, out)
    except (IndexError, ValueError):
        # arrays that do not form a tree (a tampered file): Tree.validate says what is wrong
        return out


def _fill(tree, first, out):
    internal = first >= 0
    numeric = internal & (np.asarray(tree.category_offset) < 0)
    if numeric.any():
        rows = np.asarray(tree.n_node_samples)
        left = rows[first[numeric]]
        right = rows[first[numeric] + 1]
        out[numeric] = np.where(left > right, 0, 1)
    categorical = internal & ~numeric
    if categorical.any():
        out[categorical] = tree.unseen_child[categorical]
    return out
