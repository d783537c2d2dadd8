"""The CART-CV of Leboeuf et al.'s reference code, reproduced for the paper's "CART" column.

Not a baseline: every experiment measures treebound against the library's own cost-complexity
pruning with cross-validation (``pruning="ccp_cv"``). This is the procedure *the paper's
reference code* ran, kept to explain that column of its Table 1, which over-prunes (often to 1-2
leaves). ``shared/reference/reference_code_pruning_run.md`` describes it; it differs from
Breiman's procedure in three ways, re-implemented here from that description and from reading
the code:

* the candidate thresholds are the link strengths ``g(t) = (R(t) - R(T_t)) / (m (L_t - 1))`` of
  every internal node of the *grown* tree, computed once (no weakest-link updates), and the
  final tree collapses every node whose stored ``g(t)`` is at most the chosen threshold;
* the fold trees (unshuffled ``KFold``) are pruned cumulatively at each threshold in turn,
  recomputing their link strengths before each cut;
* the threshold is the midpoint between the first and the last threshold of minimal CV error.

It reads fitted trees through the public :class:`treebound.Tree` arrays and grows the fold trees
with the public estimator, like any user.
"""

from __future__ import annotations

import numpy as np

__all__ = ["paper_cart_cv"]


class _Cuts:
    """A tree being pruned: which nodes are collapsed into leaves and which are still in it."""

    def __init__(self, tree):
        self.tree = tree
        self.internal = tree.first_child >= 0
        # weighted misclassified mass of every node as a leaf, R(t) times the root's weight
        self.leaf_loss = tree.value.sum(axis=1) - tree.value.max(axis=1)
        self.total_weight = float(tree.weighted_n_node_samples[0])
        self.deepest_first = np.argsort(-tree.node_depth, kind="stable")
        self.collapsed = np.zeros(tree.n_nodes, dtype=bool)
        self.alive = np.ones(tree.n_nodes, dtype=bool)

    def strengths(self) -> tuple[np.ndarray, np.ndarray]:
        """The current internal nodes (increasing ids) and their link strengths."""
        is_leaf = ~self.internal | self.collapsed
        loss = np.where(is_leaf, self.leaf_loss, 0.0)
        leaves = is_leaf.astype(np.int64)
        parent = self.tree.parent
        for v in self.deepest_first.tolist():  # children before parents
            p = parent[v]
            if p >= 0 and self.alive[v]:
                loss[p] += loss[v]
                leaves[p] += leaves[v]
        nodes = np.flatnonzero(self.alive & ~is_leaf)
        gain = self.leaf_loss[nodes] - loss[nodes]
        return nodes, gain / (self.total_weight * (leaves[nodes] - 1.0))

    def cut(self, threshold: float) -> None:
        """Collapse every current internal node of strength at most ``threshold``."""
        nodes, g = self.strengths()
        for v in nodes[g <= threshold].tolist():  # increasing ids: ancestors first
            if self.alive[v] and not self.collapsed[v]:
                self.collapse(v)

    def collapse(self, v: int) -> None:
        self.collapsed[v] = True
        stack = list(self.tree.children(v)) if self.internal[v] else []
        while stack:
            u = stack.pop()
            self.alive[u] = False
            if self.internal[u]:
                stack.extend(self.tree.children(u).tolist())

    def pruned(self):
        return self.tree.collapse(self.collapsed & self.alive)[0]


def paper_cart_cv(model, X, y, n_folds: int = 10):
    """``(pruned tree, threshold)`` with the reference code's CART-CV (see the module doc).

    Parameters
    ----------
    model : treebound.DecisionTreeClassifier
        The grown tree, fitted on ``X``, ``y`` (not pruned).
    X, y : array-like
        Its training rows and labels; the fold trees are fitted on them by clones of ``model``.
    n_folds : int, default=10
        Folds (unshuffled ``KFold``).

    Returns
    -------
    pruned : treebound.Tree
        ``model.tree_.flat`` with the nodes of stored strength at most the threshold collapsed.
    threshold : float
        The chosen threshold.
    """
    from sklearn.base import clone
    from sklearn.model_selection import KFold

    X, y = np.asarray(X), np.asarray(y)
    cuts = _Cuts(model.tree_.flat)
    nodes, coefs = cuts.strengths()
    if nodes.size == 0:
        return model.tree_.flat, 0.0
    thresholds = np.sort(coefs)
    errors = np.zeros(thresholds.shape[0])
    for train_idx, val_idx in KFold(n_splits=n_folds).split(X):
        fold = clone(model).fit(X[train_idx], y[train_idx])
        X_val = fold.encode(X[val_idx])
        fold_cuts = _Cuts(fold.tree_.flat)
        for k, threshold in enumerate(thresholds.tolist()):
            fold_cuts.cut(threshold)
            pruned = fold_cuts.pruned()
            pred = fold.classes_[pruned.majority_class[pruned.apply(X_val)]]
            errors[k] += np.count_nonzero(pred != y[val_idx])
    best = errors.min()
    first = int(np.flatnonzero(errors == best)[0])
    last = int(np.flatnonzero(errors == best)[-1])
    threshold = (thresholds[first] + thresholds[last]) / 2.0
    make_leaf = np.zeros(model.tree_.flat.n_nodes, dtype=bool)
    make_leaf[nodes[coefs <= threshold]] = True
    return model.tree_.flat.collapse(make_leaf)[0], float(threshold)
