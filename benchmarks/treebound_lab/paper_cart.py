"""The CART-CV baseline *as the paper's reference code ran it* (for the benchmark only).

``shared/reference/reference_code_pruning_run.md`` describes it: the reference code's
``prune_with_cv`` differs from Breiman's procedure (:mod:`treebound.pruning.cost_complexity`)
in three ways, re-implemented here from that description and from reading the code:

* the candidate thresholds are the link strengths ``g(t) = (R(t) - R(T_t)) / (m (L_t - 1))`` of
  every internal node of the *grown* tree, computed once (no weakest-link updates), and the
  final tree collapses every node whose stored ``g(t)`` is at most the chosen threshold;
* the fold trees (unshuffled ``KFold``) are pruned cumulatively at each threshold in turn,
  recomputing their link strengths before each cut;
* the threshold is the midpoint between the first and the last threshold of minimal CV error.

It is the "CART" column of the paper's Table 1, which over-prunes (often to 1-2 leaves).
"""

from __future__ import annotations

import numpy as np

from treebound.pruning._core import WorkingTree, node_statistics

__all__ = ["paper_cart_cv"]


def _strengths(work: WorkingTree) -> tuple[np.ndarray, np.ndarray]:
    nodes = work.internal_nodes()
    stats = work.stats
    gain = stats.leaf_loss[nodes] - work.loss[nodes]
    g = gain / (stats.total_weight * (work.leaves[nodes] - 1.0))
    return nodes, g


def _cut(work: WorkingTree, threshold: float) -> None:
    nodes, g = _strengths(work)
    for v in nodes[g <= threshold].tolist():  # increasing ids: ancestors first
        if work.alive[v] and not work.collapsed[v]:
            work.collapse(v)


def paper_cart_cv(tree, X, y, grow, n_folds: int = 10):
    """``(pruned tree, threshold)`` with the reference code's CART-CV (see the module doc).

    ``X``, ``y`` are the encoded training data and class indices; ``grow(X, y) -> Tree`` grows
    a fold tree with the same settings as ``tree``.
    """
    from sklearn.model_selection import KFold

    work = WorkingTree(tree, node_statistics(tree))
    nodes, coefs = _strengths(work)
    if nodes.size == 0:
        return tree, 0.0
    thresholds = np.sort(coefs)
    errors = np.zeros(thresholds.shape[0])
    for train_idx, val_idx in KFold(n_splits=n_folds).split(X):
        fold = grow(X[train_idx], y[train_idx])
        fold_work = WorkingTree(fold)
        for k, threshold in enumerate(thresholds.tolist()):
            _cut(fold_work, threshold)
            pruned = fold.collapse(fold_work.make_leaf_mask())[0]
            pred = pruned.majority_class[pruned.apply(X[val_idx])]
            errors[k] += np.count_nonzero(pred != y[val_idx])
    best = errors.min()
    first = int(np.flatnonzero(errors == best)[0])
    last = int(np.flatnonzero(errors == best)[-1])
    threshold = (thresholds[first] + thresholds[last]) / 2.0
    make_leaf = np.zeros(tree.n_nodes, dtype=bool)
    make_leaf[nodes[coefs <= threshold]] = True
    return tree.collapse(make_leaf)[0], float(threshold)
