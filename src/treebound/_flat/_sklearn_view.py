"""The fitted tree in scikit-learn's layout: what ``sklearn.tree``'s ``Tree`` exposes, read from
a flat :class:`~treebound._flat._storage.Tree`.

The greedy estimators' ``tree_`` is a :class:`SklearnTree`, so code written for scikit-learn's
``tree_`` (``sklearn.tree.export_graphviz``, loops over ``children_left``, ``value[node]``)
reads a treebound tree unchanged. treebound's own code reads the flat tree (:attr:`SklearnTree.
flat`, :func:`as_flat`): its ``value`` holds weighted class *counts*, its leaves have ``-1``
and NaN where scikit-learn has ``-2``, and it describes categorical and multiway tests, which
scikit-learn's layout cannot.
"""

from __future__ import annotations

import numpy as np

from treebound._flat._storage import Tree

__all__ = ["TREE_LEAF", "TREE_UNDEFINED", "SklearnTree", "as_flat", "feature_importances"]

#: scikit-learn's markers: a leaf's child ids, a leaf's feature and threshold.
TREE_LEAF = -1
TREE_UNDEFINED = -2

_EXPORTERS = "treebound.export_text or treebound.plot_tree"


def as_flat(tree) -> Tree:
    """The flat :class:`Tree` behind ``tree`` (a :class:`SklearnTree` or a flat tree).

    Examples
    --------
    >>> from treebound import DecisionTreeClassifier
    >>> model = DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], [0, 1, 1])
    >>> as_flat(model.tree_) is model.tree_.flat, as_flat(model.tree_.flat) is model.tree_.flat
    (True, True)
    """
    return tree.flat if isinstance(tree, SklearnTree) else tree


def feature_importances(tree: Tree, normalize: bool = True) -> np.ndarray:
    """Total impurity decrease brought by each feature, scikit-learn's ``feature_importances_``.

    A test at node ``t`` on feature ``j`` adds ``w_t i_t - sum_c w_c i_c`` to feature ``j`` (``w``
    the weighted rows, ``i`` the impurity, ``c`` over the children: two for a threshold or a
    categorical subset test, one per child of a multiway test), divided by the root's weight.

    Parameters
    ----------
    tree : Tree
        A flat tree.
    normalize : bool, default=True
        Scale to sum 1 (a tree without a split stays all zeros).

    Returns
    -------
    ndarray of float64, shape (n_features,)

    Examples
    --------
    >>> from treebound import DecisionTreeClassifier
    >>> model = DecisionTreeClassifier().fit([[0.0, 5.0], [1.0, 5.0], [2.0, 5.0]], [0, 1, 1])
    >>> feature_importances(model.tree_.flat).tolist()
    [1.0, 0.0]
    """
    tree = as_flat(tree)
    out = np.zeros(tree.n_features, dtype=np.float64)
    weighted = tree.weighted_n_node_samples * tree.impurity
    internal = np.flatnonzero(tree.first_child >= 0)
    for node in internal:
        start = int(tree.first_child[node])
        children = weighted[start : start + int(tree.n_children[node])].sum()
        out[tree.feature[node]] += weighted[node] - children
    if tree.n_nodes:
        out /= tree.weighted_n_node_samples[0]
    if normalize:
        total = out.sum()
        if total > 0.0:
            out /= total
    return out


class SklearnTree:
    """A fitted tree with the attribute names, shapes and meanings of scikit-learn's ``Tree``.

    Parameters
    ----------
    flat : Tree
        The flat tree (treebound's own layout).
    n_classes : array-like of int, shape (n_outputs,)
        Classes of each output; ones for a regression tree.

    Notes
    -----
    Names scikit-learn's ``Tree`` has mean what they mean there (``value`` holds weighted class
    *fractions*, shape ``(node_count, n_outputs, max_n_classes)``; ``feature`` and
    ``threshold`` are ``-2`` at leaves; ``n_classes`` is an array). Every other public name is
    the flat tree's (``first_child``, ``n_children``, ``category_child``, ``collapse``...).
    ``children_left``/``children_right`` exist for binary trees and ``threshold`` for trees of
    threshold tests only: a multiway or categorical test has no place in scikit-learn's layout,
    so those raise a ``ValueError`` naming treebound's own exporters.

    Examples
    --------
    >>> from treebound import DecisionTreeClassifier
    >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], [0, 1, 1]).tree_
    >>> tree.node_count, tree.children_left.tolist(), tree.feature.tolist()
    (3, [1, -1, -1], [0, -2, -2])
    >>> tree.value.shape, tree.value[0].round(3).tolist()  # fractions, one row per output
    ((3, 1, 2), [[0.333, 0.667]])
    >>> tree.flat.value[0].tolist()  # the flat tree keeps the weighted counts
    [1.0, 2.0]
    """

    def __init__(self, flat: Tree, n_classes):
        self.flat = flat
        self._n_classes = np.asarray(n_classes, dtype=np.intp).reshape(-1)

    def __getattr__(self, name: str):
        # everything scikit-learn's Tree does not have is the flat tree's
        if name.startswith("_") or "flat" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self.flat, name)

    def __repr__(self) -> str:
        return (f"SklearnTree(node_count={self.node_count}, n_outputs={self.n_outputs}, "
                f"n_classes={self.n_classes.tolist()})")

    # ------------------------------------------------------------------ shape
    @property
    def node_count(self) -> int:
        """Number of nodes."""
        return self.flat.n_nodes

    @property
    def capacity(self) -> int:
        """Allocated nodes: ``node_count`` (the arrays are exactly that long)."""
        return self.flat.n_nodes

    @property
    def n_features(self) -> int:
        return self.flat.n_features

    @property
    def n_outputs(self) -> int:
        return int(self._n_classes.shape[0])

    @property
    def n_classes(self) -> np.ndarray:
        """Classes of each output (ones for regression), shape ``(n_outputs,)``."""
        return self._n_classes.copy()

    @property
    def max_n_classes(self) -> int:
        return int(self._n_classes.max())

    @property
    def max_depth(self) -> int:
        return self.flat.max_depth

    @property
    def n_leaves(self) -> int:
        return self.flat.n_leaves

    # ------------------------------------------------------------- node arrays
    def _binary_only(self, what: str) -> None:
        if not self.flat.is_binary:
            raise ValueError(f"tree_.{what}: this tree has multiway splits, which scikit-learn's "
                             f"tree layout cannot describe: use {_EXPORTERS} (or tree_.flat)")

    @property
    def children_left(self) -> np.ndarray:
        """Left child of every node (``-1`` at leaves); binary trees only."""
        self._binary_only("children_left")
        return self.flat.first_child.copy()

    @property
    def children_right(self) -> np.ndarray:
        """Right child of every node (``-1`` at leaves); binary trees only."""
        self._binary_only("children_right")
        first = self.flat.first_child
        return np.where(first >= 0, first + 1, TREE_LEAF)

    @property
    def feature(self) -> np.ndarray:
        """Feature tested at every node, ``-2`` at leaves."""
        flat = self.flat
        return np.where(flat.first_child >= 0, flat.feature, TREE_UNDEFINED).astype(np.intp)

    @property
    def threshold(self) -> np.ndarray:
        """Threshold of every test (``x <= threshold`` goes left), ``-2`` at leaves; trees of
        threshold tests only."""
        flat = self.flat
        internal = flat.first_child >= 0
        if np.any(internal & (flat.category_offset >= 0)):
            raise ValueError("tree_.threshold: this tree has categorical tests, which "
                             "scikit-learn's tree layout cannot describe: use "
                             f"{_EXPORTERS} (or tree_.flat)")
        return np.where(internal, flat.threshold, float(TREE_UNDEFINED))

    @property
    def value(self) -> np.ndarray:
        """Per node and output: the weighted class fractions (classification) or the
        prediction (regression); shape ``(node_count, n_outputs, max_n_classes)``."""
        raw = self.flat.value
        if self.flat.task == "regression":
            return raw.reshape(raw.shape[0], self.n_outputs, 1).astype(np.float64)
        counts = raw.reshape(raw.shape[0], self.n_outputs, -1)
        totals = counts.sum(axis=2, keepdims=True)
        return np.divide(counts, totals, out=np.zeros_like(counts, dtype=np.float64),
                         where=totals > 0)

    @property
    def impurity(self) -> np.ndarray:
        return self.flat.impurity.copy()

    @property
    def n_node_samples(self) -> np.ndarray:
        return self.flat.n_node_samples.astype(np.intp)

    @property
    def weighted_n_node_samples(self) -> np.ndarray:
        return self.flat.weighted_n_node_samples.copy()

    # ----------------------------------------------------------------- methods
    def apply(self, X) -> np.ndarray:
        """Leaf id of every row (rows as the estimator's ``encode`` gives them: numeric
        features as they are)."""
        return self.flat.apply(X).astype(np.intp)

    def decision_path(self, X):
        """The nodes each row visits (``scipy.sparse.csr_matrix`` of 0/1)."""
        return self.flat.decision_path(X)

    def compute_feature_importances(self, normalize: bool = True) -> np.ndarray:
        """Total impurity decrease per feature (:func:`feature_importances`)."""
        return feature_importances(self.flat, normalize)

    def compute_node_depths(self) -> np.ndarray:
        """Depth of every node, the root at 1 (scikit-learn's convention)."""
        return self.flat.node_depth + 1
