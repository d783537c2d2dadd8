"""Flat-array storage of a fitted tree: what every other part of treebound reads.

A :class:`Tree` is a handful of parallel arrays indexed by node id (root ``0``). Children of an
internal node are *contiguous* ids ``first_child[i] .. first_child[i] + n_children[i] - 1`` and
always larger than ``i``; leaves have ``first_child == -1``. This one layout covers binary numeric
tests, binary categorical subset tests and multiway categorical tests, and makes a tree cheap to
copy, to serialise and to prune (prune = keep-mask -> one rebuild, :meth:`Tree.collapse`).

The layout contract, array by array, is the Parameters section of :class:`Tree` (checked by
:meth:`Tree.validate`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.sparse import csr_matrix, vstack

from treebound._config import read_only
from treebound._flat._collapse import collapse_tree
from treebound._flat._missing import default_missing_child
from treebound._flat._sparse import canonical_csr, is_sparse, row_blocks
from treebound._flat._storage_checks import check_tree
from treebound._flat._storage_io import tree_from_dict, tree_to_dict
from treebound._kernels.apply import (
    apply_csr,
    apply_general,
    apply_numeric,
    apply_numeric_missing,
    fill_paths,
    path_lengths,
)
from treebound._kernels.value_checks import has_nan

TREE_ARRAYS = (
    "first_child",
    "n_children",
    "feature",
    "threshold",
    "category_offset",
    "category_child",
    "value",
    "impurity",
    "n_node_samples",
    "weighted_n_node_samples",
    "n_categories",
    "missing_child",
)

#: Arrays a tree dict may omit (files written before them): ``None`` gives the default.
OPTIONAL_ARRAYS = ("missing_child",)

_INT_ARRAYS = ("first_child", "n_children", "feature", "category_offset", "category_child",
               "n_node_samples", "n_categories", "missing_child")


@dataclass(eq=False)
class Tree:
    """A fitted decision tree as flat parallel arrays indexed by node id (root ``0``).

    Estimators keep theirs in ``tree_``; pruning, certificates, export and the theory functions
    read nothing else. Children of an internal node are *contiguous* ids ``first_child[i] ..
    first_child[i] + n_children[i] - 1``, always larger than ``i``.

    Parameters
    ----------
    first_child : ndarray of int64, shape (n_nodes,)
        Id of the first child, ``-1`` for a leaf.
    n_children : ndarray of int64, shape (n_nodes,)
        0 for a leaf, ``>= 2`` otherwise (2 for a numeric test).
    feature : ndarray of int64, shape (n_nodes,)
        Tested feature, ``-1`` for a leaf.
    threshold : ndarray of float64, shape (n_nodes,)
        Numeric test ``x <= threshold`` sends a row to child slot 0; NaN for leaves and
        categorical tests; ``+inf`` for the test "value present" (every value to slot 0, a
        missing one to slot 1: scikit-learn's split of the missing rows from the others).
    category_offset : ndarray of int64, shape (n_nodes,)
        ``-1`` unless the test is categorical; then ``category_child[category_offset[i] + code]``
        is the child slot of category ``code`` (``n_categories[feature[i]]`` entries; categories
        absent from the node at training time go to the child that received the most training
        weight; a level never seen in training, which the estimators encode as
        ``n_categories[feature[i]]``, follows the same rule: :attr:`unseen_child`).
    category_child : ndarray of int64, shape (n_pooled,)
        The category maps of every categorical test, pooled.
    value : ndarray of float64, shape (n_nodes, n_classes) or (n_nodes, 1)
        Weighted class counts (classification) or weighted mean of the target (regression).
        A tree of several outputs (a 2-D ``y``) has shape ``(n_nodes, n_outputs,
        max_n_classes)``: per output, its class counts padded with zeros (or its mean target,
        ``max_n_classes = 1``); :meth:`output` is the tree of one output.
    impurity : ndarray of float64, shape (n_nodes,)
        Impurity of the node under the growth criterion.
    n_node_samples : ndarray of int64, shape (n_nodes,)
        Training rows reaching the node.
    weighted_n_node_samples : ndarray of float64, shape (n_nodes,)
        Their total weight.
    n_categories : ndarray of int64, shape (n_features,)
        Levels of every feature, 0 for a numeric one.
    task : {"classification", "regression"}, default="classification"
        What ``value`` holds.
    missing_child : ndarray of int64, shape (n_nodes,), optional
        Child slot that a missing value (NaN) of the tested feature takes at every internal
        node, ``-1`` at leaves. Growth decides it where the node had missing training rows;
        elsewhere it is the child that received the most training rows (the second on ties,
        scikit-learn's rule) for a numeric test, and :attr:`unseen_child` for a categorical
        one. Omitted (trees of older model files), it is that rule everywhere
        (:func:`~treebound._flat._missing.default_missing_child`).

    Examples
    --------
    >>> from treebound import DecisionTreeClassifier
    >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], [0, 1, 1]).tree_.flat
    >>> tree.n_nodes, tree.n_leaves, tree.first_child.tolist(), float(tree.threshold[0])
    (3, 2, [1, -1, -1], 0.5)
    >>> tree.value.tolist()  # class counts of the root and of its two leaves
    [[1.0, 2.0], [1.0, 0.0], [0.0, 2.0]]
    """

    first_child: np.ndarray
    n_children: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    category_offset: np.ndarray
    category_child: np.ndarray
    value: np.ndarray
    impurity: np.ndarray
    n_node_samples: np.ndarray
    weighted_n_node_samples: np.ndarray
    n_categories: np.ndarray
    task: str = "classification"
    missing_child: np.ndarray | None = None
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.missing_child is None:
            self.missing_child = default_missing_child(self)

    # ------------------------------------------------------------------ shape
    @property
    def flat(self) -> Tree:
        """The tree itself: ``tree_.flat`` reads the flat tree both from a flat tree and from
        the greedy estimators' ``tree_``, a scikit-learn-shaped view of one."""
        return self

    @property
    def n_nodes(self) -> int:
        return int(self.first_child.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.n_categories.shape[0])

    @property
    def n_classes(self) -> int:
        """Number of classes (1 for regression; the most of any output with several)."""
        return int(self.value.shape[-1])

    @property
    def n_outputs(self) -> int:
        """Number of outputs (columns of ``y``): 1 unless ``value`` is 3-D."""
        return int(self.value.shape[1]) if self.value.ndim == 3 else 1

    def output(self, k: int, n_classes: int | None = None) -> Tree:
        """The tree of output ``k`` alone: the same nodes and tests, ``value`` of that output
        (its first ``n_classes`` columns; all of them by default).

        Parameters
        ----------
        k : int
            An output, ``0 .. n_outputs - 1``.
        n_classes : int, optional
            Classes of that output (the rest of its row is padding).

        Returns
        -------
        Tree
            A one-output tree sharing this tree's arrays (but ``value``).

        Examples
        --------
        >>> import numpy as np
        >>> from treebound import DecisionTreeClassifier
        >>> y = np.array([[0, 1], [1, 1], [1, 0]])
        >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], y).tree_.flat
        >>> tree.n_outputs, tree.output(1).value.tolist()
        (2, [[1.0, 2.0], [0.0, 1.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
        """
        if self.value.ndim != 3:
            if k != 0:
                raise ValueError(f"output {k}: this tree has one output")
            return self
        if not 0 <= k < self.n_outputs:
            raise ValueError(f"output {k}: this tree has {self.n_outputs} outputs")
        width = self.value.shape[2] if n_classes is None else int(n_classes)
        arrays = {name: getattr(self, name) for name in TREE_ARRAYS}
        arrays["value"] = np.ascontiguousarray(self.value[:, k, :width])
        return Tree(**arrays, task=self.task)

    @property
    def is_leaf(self) -> np.ndarray:
        return self.first_child < 0

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.first_child < 0))

    @property
    def is_binary(self) -> bool:
        """True when every internal node has exactly two children."""
        return bool(np.all(self.n_children[self.first_child >= 0] == 2))

    @property
    def children_left(self) -> np.ndarray:
        """scikit-learn style left-child array (binary trees only; -1 at leaves)."""
        self._require_binary("children_left")
        return self.first_child.copy()

    @property
    def children_right(self) -> np.ndarray:
        """scikit-learn style right-child array (binary trees only; -1 at leaves)."""
        self._require_binary("children_right")
        return np.where(self.first_child >= 0, self.first_child + 1, -1)

    @property
    def missing_go_to_left(self) -> np.ndarray:
        """scikit-learn style: 1 where a missing value goes to the left child (binary trees
        only; 0 at leaves)."""
        self._require_binary("missing_go_to_left")
        return ((self.first_child >= 0) & (self.missing_child == 0)).astype(np.uint8)

    def _require_binary(self, what: str) -> None:
        if not self.is_binary:
            raise ValueError(
                f"{what} is only defined for binary trees; this tree has multiway splits "
                "(use first_child / n_children)"
            )

    def children(self, node: int) -> np.ndarray:
        """Ids of the children of ``node``, in slot order.

        Parameters
        ----------
        node : int
            A node id.

        Returns
        -------
        ndarray of int64
            Empty for a leaf.

        Examples
        --------
        >>> from treebound import DecisionTreeClassifier
        >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], [0, 1, 1]).tree_.flat
        >>> tree.children(0).tolist(), tree.children(1).tolist()
        ([1, 2], [])
        """
        start = self.first_child[node]
        if start < 0:
            return np.empty(0, dtype=np.int64)
        return np.arange(start, start + self.n_children[node], dtype=np.int64)

    @property
    def parent(self) -> np.ndarray:
        """Parent id of every node (``-1`` for the root)."""
        if "parent" not in self._cache:
            parent = np.full(self.n_nodes, -1, dtype=np.int64)
            internal = np.flatnonzero(self.first_child >= 0)
            for i in internal:
                parent[self.first_child[i] : self.first_child[i] + self.n_children[i]] = i
            self._cache["parent"] = parent
        return self._cache["parent"]

    @property
    def node_depth(self) -> np.ndarray:
        """Depth of every node (root 0). Children ids exceed their parent's, so one pass works."""
        if "depth" not in self._cache:
            depth = np.zeros(self.n_nodes, dtype=np.int64)
            parent = self.parent
            for i in range(1, self.n_nodes):
                depth[i] = depth[parent[i]] + 1
            self._cache["depth"] = depth
        return self._cache["depth"]

    @property
    def max_depth(self) -> int:
        return int(self.node_depth.max()) if self.n_nodes else 0

    @property
    def majority_class(self) -> np.ndarray:
        """Index of the heaviest class at every node (ties: smallest index); shape
        ``(n_nodes, n_outputs)`` with several outputs."""
        if "majority" not in self._cache:
            self._cache["majority"] = np.argmax(self.value, axis=-1)
        return self._cache["majority"]

    # ------------------------------------------------------------ prediction
    @property
    def unseen_child(self) -> np.ndarray:
        """Child slot that a categorical level never seen in training takes at every node
        (``-1`` where the test is not categorical): the child that received the most training
        weight (``weighted_n_node_samples``; the first child on ties) — the rule that places
        the levels absent from a node during training."""
        if "unseen" not in self._cache:
            out = np.full(self.n_nodes, -1, dtype=np.int64)
            weight = self.weighted_n_node_samples
            for i in np.flatnonzero((self.first_child >= 0) & (self.category_offset >= 0)):
                start = int(self.first_child[i])
                out[i] = int(np.argmax(weight[start : start + int(self.n_children[i])]))
            self._cache["unseen"] = out
        return self._cache["unseen"]

    def category_maps_with_unseen(self) -> tuple[np.ndarray, np.ndarray]:
        """``category_offset`` and ``category_child`` with one more entry per categorical test.

        Code ``n_categories[feature]`` (a level never seen in training) goes to
        :attr:`unseen_child`. The encoders of the estimators give unseen levels that code; the
        prediction kernels read these maps.

        Returns
        -------
        offsets : ndarray of int64, shape (n_nodes,)
            Offset of each categorical test's map in ``pooled`` (``-1`` elsewhere).
        pooled : ndarray of int64
            The maps, each ``n_categories[feature] + 1`` entries long.

        Examples
        --------
        >>> import pandas as pd
        >>> from treebound import DecisionTreeClassifier
        >>> X = pd.DataFrame({"color": pd.Categorical(["red", "blue", "green", "red"])})
        >>> tree = DecisionTreeClassifier().fit(X, [0, 1, 1, 0]).tree_.flat
        >>> tree.category_child.tolist()  # blue, green -> slot 1; red -> slot 0
        [1, 1, 0]
        >>> offsets, pooled = tree.category_maps_with_unseen()
        >>> pooled.tolist()  # an unseen color takes slot 0, the heaviest child (ties: the first)
        [1, 1, 0, 0]
        """
        if "unseen_maps" not in self._cache:
            offsets = np.full(self.n_nodes, -1, dtype=np.int64)
            pieces = []
            pos = 0
            unseen = self.unseen_child
            for i in np.flatnonzero((self.first_child >= 0) & (self.category_offset >= 0)):
                width = int(self.n_categories[self.feature[i]])
                off = int(self.category_offset[i])
                pieces.append(self.category_child[off : off + width])
                pieces.append(unseen[i : i + 1])
                offsets[i] = pos
                pos += width + 1
            pooled = np.concatenate(pieces) if pieces else np.empty(0, dtype=np.int64)
            self._cache["unseen_maps"] = (offsets, np.ascontiguousarray(pooled, dtype=np.int64))
        return self._cache["unseen_maps"]

    def _routing_arrays(self):
        """Routing table of :mod:`treebound._kernels.apply` (leaves point at themselves)."""
        if "route" not in self._cache:
            leaf = self.first_child < 0
            ids = np.arange(self.n_nodes, dtype=np.int64)
            offsets, pooled = self.category_maps_with_unseen()
            self._cache["route"] = (
                np.where(leaf, ids, self.first_child).astype(np.int64),
                np.where(leaf, 0, self.feature).astype(np.int64),
                np.where(leaf | np.isnan(self.threshold), np.inf, self.threshold),
                offsets,
                pooled,
                np.where(leaf, 0, self.missing_child).astype(np.int64),
            )
        return self._cache["route"]

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Leaf id of every row of an encoded matrix.

        Parameters
        ----------
        X : array-like of float64, shape (n_rows, n_features)
            Encoded rows (numeric values, category codes): what an estimator's ``encode`` returns.

        Returns
        -------
        ndarray of int64, shape (n_rows,)
            The leaf each row ends in.

        Examples
        --------
        >>> from treebound import DecisionTreeClassifier
        >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], [0, 1, 1]).tree_.flat
        >>> tree.apply([[0.2], [1.5]]).tolist()
        [1, 2]
        """
        if is_sparse(X):  # entry by entry from compressed rows: nothing is densified
            X = canonical_csr(X)
            out = np.empty(X.shape[0], dtype=np.int64)
            apply_csr(*self._routing_arrays(), X.indptr, X.indices, X.data, out)
            return out
        X = read_only(_as_float_matrix(X))  # one compiled variant of each kernel below
        out = np.empty(X.shape[0], dtype=np.int64)
        next_base, feature, threshold, category_offset, category_child, missing = \
            self._routing_arrays()
        if np.any(category_offset >= 0):
            apply_general(next_base, feature, threshold, category_offset, category_child,
                          missing, X, out)
        else:
            scratch = np.empty(16, dtype=np.int64)  # two per lane of the kernels
            if has_nan(X):  # a pass over X costs ~1/40 of the routing it spares
                apply_numeric_missing(next_base, feature, threshold, missing, X, scratch, out)
            else:
                apply_numeric(next_base, feature, threshold, X, scratch, out)
        return out

    def decision_path(self, X: np.ndarray):
        """The nodes each row of an encoded matrix visits, from the root to its leaf.

        Parameters
        ----------
        X : array-like of float64, shape (n_rows, n_features)
            Encoded rows.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_rows, n_nodes)
            Entry ``(i, j)`` is 1 when row ``i`` passes through node ``j``.

        Examples
        --------
        >>> from treebound import DecisionTreeClassifier
        >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], [0, 1, 1]).tree_.flat
        >>> tree.decision_path([[0.2], [1.5]]).toarray().tolist()
        [[1, 1, 0], [1, 0, 1]]
        """
        if is_sparse(X):  # by blocks of dense rows
            parts = [self.decision_path(block) for _, block in row_blocks(X)]
            return (vstack(parts, format="csr") if parts
                    else csr_matrix((0, self.n_nodes), dtype=np.int64))
        X = _as_float_matrix(X)
        lengths = np.empty(X.shape[0], dtype=np.int64)
        path_lengths(*self._routing_arrays(), X, lengths)
        indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        indices = np.empty(indptr[-1], dtype=np.int64)
        fill_paths(*self._routing_arrays(), X, indptr, indices)
        data = np.ones(indices.shape[0], dtype=np.int64)
        return csr_matrix((data, indices, indptr), shape=(X.shape[0], self.n_nodes))

    # --------------------------------------------------------------- pruning
    def collapse(self, make_leaf: np.ndarray) -> tuple[Tree, np.ndarray]:
        """Copy of the tree where every node with ``make_leaf[i]`` is turned into a leaf.

        Descendants of a collapsed node are dropped and the kept nodes are renumbered in
        breadth-first order (so children stay contiguous and larger than their parent). Node
        statistics are kept, so a collapsed node predicts from its own class counts. Every pruning
        method ends with one call (scikit-learn's ``_build_pruned_tree`` pattern).

        Parameters
        ----------
        make_leaf : array-like of bool, shape (n_nodes,)
            Nodes to turn into leaves (``True`` on a leaf changes nothing).

        Returns
        -------
        tree : Tree
            The pruned copy (this tree is unchanged).
        old_to_new : ndarray of int64, shape (n_nodes,)
            New id of every node of this tree, ``-1`` for dropped nodes.

        Examples
        --------
        >>> from treebound import DecisionTreeClassifier
        >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], [0, 1, 1]).tree_.flat
        >>> pruned, old_to_new = tree.collapse([True, False, False])
        >>> pruned.n_leaves, pruned.value.tolist(), old_to_new.tolist()
        (1, [[1.0, 2.0]], [0, -1, -1])
        """
        return collapse_tree(self, make_leaf)

    def copy(self) -> Tree:
        """A deep copy (every array copied).

        Returns
        -------
        Tree

        Examples
        --------
        >>> from treebound import DecisionTreeClassifier
        >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], [0, 1, 1]).tree_.flat
        >>> twin = tree.copy()
        >>> twin is tree, twin.to_dict() == tree.to_dict()
        (False, True)
        """
        return Tree(**{name: getattr(self, name).copy() for name in TREE_ARRAYS}, task=self.task)

    # ------------------------------------------------------------ validation
    def validate(self) -> Tree:
        """Check the layout contract and the node statistics.

        The contract is the Parameters section of :class:`Tree`; the statistics must agree between
        every parent and its children (the bounds read them, so an edited count must not pass for
        training data).

        Returns
        -------
        Tree
            ``self``, when every check passes.

        Raises
        ------
        ValueError
            Naming the first problem found.

        Examples
        --------
        >>> from treebound import DecisionTreeClassifier
        >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], [0, 1, 1]).tree_.flat
        >>> tree.validate() is tree
        True
        >>> broken = tree.copy()
        >>> broken.n_node_samples[1] = 5
        >>> broken.validate()
        Traceback (most recent call last):
        ...
        ValueError: node 0 has n_node_samples 3 but its children hold 7
        """
        check_tree(self, TREE_ARRAYS)
        return self

    # ---------------------------------------------------------- persistence
    def to_dict(self) -> dict:
        """Plain-JSON form of the arrays (NaN thresholds written as null, ``+inf`` as the
        string ``"+inf"``).

        Returns
        -------
        dict
            ``"task"`` and one list per array; :meth:`from_dict` reads it back.

        Examples
        --------
        >>> from treebound import DecisionTreeClassifier
        >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], [0, 1, 1]).tree_.flat
        >>> data = tree.to_dict()
        >>> data["first_child"], data["threshold"]
        ([1, -1, -1], [0.5, None, None])
        """
        return tree_to_dict(self, TREE_ARRAYS)

    @classmethod
    def from_dict(cls, data: dict) -> Tree:
        """Inverse of :meth:`to_dict`; validates types, lengths and the tree shape.

        Parameters
        ----------
        data : dict
            The output of :meth:`to_dict` (e.g. read from a model file).

        Returns
        -------
        Tree
            A validated tree (:meth:`validate`).

        Raises
        ------
        ValueError
            Naming the first field that is missing, of the wrong type or inconsistent.

        Examples
        --------
        >>> from treebound import DecisionTreeClassifier
        >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], [0, 1, 1]).tree_.flat
        >>> Tree.from_dict(tree.to_dict()).apply([[0.2], [1.5]]).tolist()
        [1, 2]
        """
        arrays, task = tree_from_dict(data, TREE_ARRAYS, _INT_ARRAYS, OPTIONAL_ARRAYS)
        return cls(**arrays, task=task).validate()


def _as_float_matrix(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"expected a 2-D matrix, got {X.ndim} dimension(s)")
    return np.ascontiguousarray(X)
