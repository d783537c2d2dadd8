"""Reduced-error pruning on a held-out pruning set (Quinlan, 1987; Yıldız's "CVprune").

One bottom-up pass over the grown tree: a node is collapsed when, as a leaf predicting from its
*training* statistics, it makes no more held-out errors (or squared error, for regression) than
its current subtree. Nodes reached by no held-out sample are therefore collapsed. In the
estimators (``pruning="reduced_error"``) the tree is grown on the other part of the training data
(80 % by default), as in Yıldız (2015) section 4.2.
"""

from __future__ import annotations

import time

import numpy as np

from treebound._flat._sklearn_view import as_flat
from treebound.pruning._core import WorkingTree, finish, node_statistics

__all__ = ["holdout_node_losses", "prune_reduced_error"]


def holdout_node_losses(tree, X_hold, y_hold, w_hold=None) -> tuple[np.ndarray, float]:
    """Held-out loss of every node as a leaf, and the held-out weight.

    Parameters
    ----------
    tree : Tree
        A fitted tree.
    X_hold : array-like of float64, shape (n_rows, n_features)
        Held-out rows, encoded like the tree's training data.
    y_hold : array-like of shape (n_rows,)
        Class indices ``0 .. n_classes - 1`` (classification) or targets (regression).
    w_hold : array-like of shape (n_rows,), optional
        Row weights (default 1).

    Returns
    -------
    node_loss : ndarray of float64, shape (n_nodes,)
        Weighted held-out errors (classification) or squared error (regression) of the rows
        reaching each node, had it predicted from its training statistics.
    weight : float
        Total held-out weight.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> order = np.random.default_rng(0).permutation(150)
    >>> grow, hold = order[:120], order[120:]
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X[grow], y[grow]).tree_
    >>> node_loss, weight = holdout_node_losses(tree, X[hold], y[hold])
    >>> node_loss[:3].tolist(), weight  # the root as a leaf misclassifies 22 of 30
    ([22.0, 0.0, 12.0], 30.0)
    """
    tree = as_flat(tree)
    X_hold = np.asarray(X_hold, dtype=np.float64)
    y_hold = np.asarray(y_hold)
    n = X_hold.shape[0]
    w = np.ones(n) if w_hold is None else np.asarray(w_hold, dtype=np.float64)
    if y_hold.shape[0] != n or w.shape[0] != n:
        raise ValueError(f"held-out X has {n} rows but y has {y_hold.shape[0]} and weights "
                         f"{w.shape[0]}")
    leaves = tree.apply(X_hold) if n else np.empty(0, dtype=np.int64)
    parent = tree.parent
    if tree.task == "classification":
        y = y_hold.astype(np.int64)
        if n and (y.min() < 0 or y.max() >= tree.n_classes):
            raise ValueError("held-out class indices must be in 0..n_classes-1")
        counts = np.zeros((tree.n_nodes, tree.n_classes))
        np.add.at(counts, (leaves, y), w)
        for i in range(tree.n_nodes - 1, 0, -1):
            counts[parent[i]] += counts[i]
        right = counts[np.arange(tree.n_nodes), tree.majority_class]
        return counts.sum(axis=1) - right, float(w.sum())
    y = y_hold.astype(np.float64)
    sums = np.zeros((tree.n_nodes, 3))
    np.add.at(sums, leaves, np.column_stack([w, w * y, w * y * y]) if n else np.empty((0, 3)))
    for i in range(tree.n_nodes - 1, 0, -1):
        sums[parent[i]] += sums[i]
    mu = tree.value[:, 0]
    sse = sums[:, 2] - 2.0 * mu * sums[:, 1] + mu * mu * sums[:, 0]
    return np.maximum(sse, 0.0), float(w.sum())


def prune_reduced_error(tree, X_hold, y_hold, w_hold=None):
    """Prune ``tree`` with reduced-error pruning on the held-out ``(X_hold, y_hold)``.

    Parameters
    ----------
    tree : Tree
        A tree grown on the other rows.
    X_hold : array-like of float64, shape (n_rows, n_features)
        Held-out rows, encoded like the tree's training data.
    y_hold : array-like of shape (n_rows,)
        Class indices (classification) or targets (regression).
    w_hold : array-like of shape (n_rows,), optional
        Row weights (default 1).

    Returns
    -------
    PruningResult
        ``path`` lists ``(n_leaves, held-out error)`` of the grown tree and after every
        collapse (error rate for classification, mean squared error for regression); ``info``
        has ``holdout_weight`` and ``holdout_loss``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> order = np.random.default_rng(0).permutation(150)
    >>> grow, hold = order[:120], order[120:]
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X[grow], y[grow]).tree_
    >>> result = prune_reduced_error(tree, X[hold], y[hold])
    >>> tree.n_leaves, result.n_leaves  # ties collapse: same held-out error, fewer leaves
    (8, 4)
    >>> round(result.path[0][1], 4), round(result.path[-1][1], 4)
    (0.0333, 0.0333)
    """
    tree = as_flat(tree)
    started = time.perf_counter()
    node_loss, weight = holdout_node_losses(tree, X_hold, y_hold, w_hold)
    stats = node_statistics(tree)
    work = WorkingTree(tree, stats)
    current = np.where(tree.first_child < 0, node_loss, 0.0)
    for i in range(tree.n_nodes - 1, 0, -1):
        current[stats.parent[i]] += current[i]
    scale = 1.0 / weight if weight > 0 else 0.0
    total = float(current[0])
    path = [(work.n_leaves, total * scale)]
    fc, nc = tree.first_child, tree.n_children
    for v in range(tree.n_nodes - 1, -1, -1):
        if fc[v] < 0:
            continue
        below = float(current[fc[v] : fc[v] + nc[v]].sum())
        current[v] = below
        # Ties collapse (Quinlan: prune unless the subtree is strictly better); the tolerance
        # absorbs float noise in the squared-error sums.
        if node_loss[v] <= below + 1e-9 * max(1.0, abs(below)):
            total += float(node_loss[v]) - below
            work.collapse(v)
            current[v] = node_loss[v]
            path.append((work.n_leaves, total * scale))
    info = {"holdout_weight": weight, "holdout_loss": total * scale}
    return finish(tree, work.make_leaf_mask(), "reduced_error", path, None, started, info)
