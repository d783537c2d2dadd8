"""Flat-array storage of a fitted tree: what every other part of treebound reads.

A :class:`Tree` is a handful of parallel arrays indexed by node id (root ``0``). Children of an
internal node are *contiguous* ids ``first_child[i] .. first_child[i] + n_children[i] - 1`` and
always larger than ``i``; leaves have ``first_child == -1``. This one layout covers binary numeric
tests, binary categorical subset tests and multiway categorical tests, and makes a tree cheap to
copy, to serialise and to prune (prune = keep-mask -> one rebuild, :meth:`Tree.collapse`).

Layout contract (checked by :meth:`Tree.validate`):

* ``first_child``  int64 (n_nodes,)  first child id, ``-1`` for a leaf
* ``n_children``   int64 (n_nodes,)  0 for a leaf, >= 2 otherwise
* ``feature``      int64 (n_nodes,)  tested feature, ``-1`` for a leaf
* ``threshold``    float64 (n_nodes,) numeric test ``x <= threshold`` -> slot 0; NaN otherwise
* ``category_offset`` int64 (n_nodes,) ``-1`` unless the test is categorical; then
  ``category_child[category_offset[i] + code]`` is the child slot of category ``code``
  (``n_categories[feature[i]]`` entries; categories absent from the node at training time go to
  the child that received the most training weight; a level never seen in training, which the
  estimators encode as ``n_categories[feature[i]]``, follows the same rule at prediction time:
  :attr:`Tree.unseen_child`)
* ``category_child`` int64 (pooled)
* ``value``        float64 (n_nodes, n_classes): weighted class counts (classification) or
  (n_nodes, 1): weighted mean of the target (regression)
* ``impurity``     float64 (n_nodes,) impurity of the node under the growth criterion
* ``n_node_samples`` int64, ``weighted_n_node_samples`` float64
* ``n_categories`` int64 (n_features,): 0 for a numeric feature
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from treebound._kernels.apply import apply_general, apply_numeric, fill_paths, path_lengths

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
)

_INT_ARRAYS = ("first_child", "n_children", "feature", "category_offset", "category_child",
               "n_node_samples", "n_categories")


@dataclass(eq=False)
class Tree:
    """A fitted decision tree as flat parallel arrays (see the module docstring for the layout)."""

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
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------------ shape
    @property
    def n_nodes(self) -> int:
        return int(self.first_child.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.n_categories.shape[0])

    @property
    def n_classes(self) -> int:
        """Number of classes (1 for regression)."""
        return int(self.value.shape[1])

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

    def _require_binary(self, what: str) -> None:
        if not self.is_binary:
            raise ValueError(
                f"{what} is only defined for binary trees; this tree has multiway splits "
                "(use first_child / n_children)"
            )

    def children(self, node: int) -> np.ndarray:
        """Ids of the children of ``node`` (empty for a leaf)."""
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
        """Index of the heaviest class at every node (ties: smallest index)."""
        if "majority" not in self._cache:
            self._cache["majority"] = np.argmax(self.value, axis=1)
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
        """``category_offset`` and ``category_child`` with one more entry per categorical
        test: code ``n_categories[feature]`` (a level never seen in training) goes to
        :attr:`unseen_child`. The encoders of the estimators give unseen levels that code."""
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
            )
        return self._cache["route"]

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Leaf id of every row of the encoded matrix ``X`` (float64, codes for categories)."""
        X = _as_float_matrix(X)
        out = np.empty(X.shape[0], dtype=np.int64)
        next_base, feature, threshold, category_offset, category_child = self._routing_arrays()
        if np.any(category_offset >= 0):
            apply_general(next_base, feature, threshold, category_offset, category_child, X, out)
        else:
            apply_numeric(next_base, feature, threshold, X, np.empty(64, dtype=np.int64), out)
        return out

    def decision_path(self, X: np.ndarray):
        """Sparse CSR indicator (n_rows, n_nodes) of the nodes each row passes through."""
        from scipy.sparse import csr_matrix

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
        breadth-first order (so children stay contiguous and larger than their parent). Returns
        the new tree and ``old_to_new`` (``-1`` for dropped nodes). Node statistics are kept, so a
        collapsed node predicts from its own class counts.
        """
        make_leaf = np.asarray(make_leaf, dtype=bool)
        if make_leaf.shape != (self.n_nodes,):
            raise ValueError(
                f"make_leaf must have one entry per node ({self.n_nodes}), got {make_leaf.shape}"
            )
        old_to_new = np.full(self.n_nodes, -1, dtype=np.int64)
        order = [0]
        old_to_new[0] = 0
        head = 0
        new_first_child = [-1]
        new_n_children = [0]
        while head < len(order):
            old = order[head]
            start = self.first_child[old]
            if start >= 0 and not make_leaf[old]:
                k = int(self.n_children[old])
                new_first_child[head] = len(order)
                new_n_children[head] = k
                for c in range(start, start + k):
                    old_to_new[c] = len(order)
                    order.append(c)
                    new_first_child.append(-1)
                    new_n_children.append(0)
            head += 1
        keep = np.asarray(order, dtype=np.int64)
        first_child = np.asarray(new_first_child, dtype=np.int64)
        internal = first_child >= 0
        feature = np.where(internal, self.feature[keep], -1)
        threshold = np.where(internal, self.threshold[keep], np.nan)
        # Re-pool the category maps of the kept categorical tests.
        category_offset = np.full(keep.shape[0], -1, dtype=np.int64)
        pieces = []
        pos = 0
        for new_id in np.flatnonzero(internal & (self.category_offset[keep] >= 0)):
            old = keep[new_id]
            width = int(self.n_categories[self.feature[old]])
            off = self.category_offset[old]
            pieces.append(self.category_child[off : off + width])
            category_offset[new_id] = pos
            pos += width
        category_child = (np.concatenate(pieces) if pieces else np.empty(0, dtype=np.int64))
        tree = Tree(
            first_child=first_child,
            n_children=np.asarray(new_n_children, dtype=np.int64),
            feature=feature.astype(np.int64),
            threshold=threshold.astype(np.float64),
            category_offset=category_offset,
            category_child=category_child.astype(np.int64),
            value=self.value[keep].copy(),
            impurity=self.impurity[keep].copy(),
            n_node_samples=self.n_node_samples[keep].copy(),
            weighted_n_node_samples=self.weighted_n_node_samples[keep].copy(),
            n_categories=self.n_categories.copy(),
            task=self.task,
        )
        return tree, old_to_new

    def copy(self) -> Tree:
        return Tree(**{name: getattr(self, name).copy() for name in TREE_ARRAYS}, task=self.task)

    def structure(self):
        """The shape of this (binary) tree as a :class:`treebound.theory.TreeStructure`."""
        from treebound.theory.structures import TreeStructure

        return TreeStructure.from_tree(self)

    # ------------------------------------------------------------ validation
    def validate(self) -> Tree:
        """Check the layout contract; raise ``ValueError`` naming the first problem found."""
        n = self.n_nodes
        if n == 0:
            raise ValueError("tree has no nodes")
        for name in TREE_ARRAYS:
            arr = getattr(self, name)
            if not isinstance(arr, np.ndarray):
                raise ValueError(f"tree array {name!r} is not a numpy array")
            expected_len = None
            if name not in ("category_child", "n_categories"):
                expected_len = n
            if expected_len is not None and arr.shape[0] != expected_len:
                raise ValueError(
                    f"tree array {name!r} has length {arr.shape[0]}, expected {expected_len}"
                )
        if self.value.ndim != 2 or self.value.shape[1] < 1:
            raise ValueError(f"tree array 'value' must be 2-D (n_nodes, n_classes), got {self.value.shape}")
        if self.task not in ("classification", "regression"):
            raise ValueError(f"tree task must be 'classification' or 'regression', got {self.task!r}")
        for name in ("threshold", "impurity", "weighted_n_node_samples"):
            if getattr(self, name).dtype.kind != "f":
                raise ValueError(f"tree array {name!r} must be floating point")
        if not np.all(np.isfinite(self.value)):
            raise ValueError("tree array 'value' holds NaN or infinite entries")
        if self.task == "classification" and np.any(self.value < 0):
            raise ValueError("tree array 'value' holds negative class counts")
        for name in ("impurity", "weighted_n_node_samples"):
            arr = getattr(self, name)
            # files written before impurities were clipped may hold rounding noise (-1e-16)
            floor = -1e-9 if name == "impurity" else 0.0
            if not np.all(np.isfinite(arr)) or np.any(arr < floor):
                raise ValueError(f"tree array {name!r} must be finite and non-negative")
        if np.any(self.n_node_samples < 0):
            raise ValueError("tree array 'n_node_samples' holds negative counts")
        internal = np.flatnonzero(self.first_child >= 0)
        leaves = self.first_child < 0
        if np.any(self.first_child < -1):
            raise ValueError("first_child holds negative ids other than -1")
        if np.any(self.n_children[leaves] != 0):
            raise ValueError("a leaf has a nonzero n_children")
        if np.any(self.feature[leaves] != -1):
            raise ValueError("a leaf has a feature other than -1")
        n_features = self.n_features
        if n_features == 0:
            raise ValueError("n_categories is empty: the tree has no features")
        if np.any(self.n_categories < 0):
            raise ValueError("n_categories holds a negative count")
        covered = np.zeros(n, dtype=np.int64)
        for i in internal:
            start, k = int(self.first_child[i]), int(self.n_children[i])
            if k < 2:
                raise ValueError(f"internal node {i} has {k} children (at least 2 required)")
            if start <= i or start + k > n:
                raise ValueError(
                    f"node {i} has children {start}..{start + k - 1}, outside ({i}, {n - 1}]"
                )
            covered[start : start + k] += 1
            f = int(self.feature[i])
            if not 0 <= f < n_features:
                raise ValueError(f"node {i} tests feature {f}, not in [0, {n_features})")
            off = int(self.category_offset[i])
            if off < 0:
                if self.n_categories[f] != 0:
                    raise ValueError(f"node {i} has a numeric test on categorical feature {f}")
                if k != 2:
                    raise ValueError(f"numeric test at node {i} must have 2 children, has {k}")
                if not np.isfinite(self.threshold[i]):
                    raise ValueError(f"node {i} has a non-finite threshold")
            else:
                width = int(self.n_categories[f])
                if width == 0:
                    raise ValueError(f"node {i} has a categorical test on numeric feature {f}")
                if off + width > self.category_child.shape[0]:
                    raise ValueError(f"category map of node {i} runs past category_child")
                slots = self.category_child[off : off + width]
                if np.any(slots < 0) or np.any(slots >= k):
                    raise ValueError(f"category map of node {i} names a child slot outside 0..{k - 1}")
        if covered[0] != 0 or np.any(covered[1:] != 1):
            raise ValueError("child ranges do not form a tree (a node has zero or several parents)")
        with np.errstate(over="ignore", invalid="ignore"):  # overflowing sums are refused
            self._validate_statistics(internal)
        return self

    def _validate_statistics(self, internal: np.ndarray) -> None:
        """Node statistics agree between every parent and its children (the bounds read them:
        an edited count must not pass for training data)."""
        n_samples = self.n_node_samples
        weight = self.weighted_n_node_samples
        if n_samples[0] < 1:
            raise ValueError("the root's n_node_samples must be at least 1")
        if np.any((n_samples > 0) != (weight > 0)):
            bad = int(np.flatnonzero((n_samples > 0) != (weight > 0))[0])
            raise ValueError(f"node {bad} has n_node_samples {int(n_samples[bad])} but weight "
                             f"{float(weight[bad])!r} (a node has rows iff it has weight)")
        if internal.size == 0:
            return
        k = self.n_children[internal]
        parents = np.repeat(internal, k)
        # the children of each internal node, in order: first_child + 0, 1, ..., k - 1
        steps = np.arange(parents.shape[0]) - np.repeat(np.cumsum(k) - k, k)
        children = self.first_child[parents] + steps
        child_samples = np.zeros(self.n_nodes, dtype=np.int64)
        np.add.at(child_samples, parents, n_samples[children])
        wrong = np.flatnonzero(child_samples[internal] != n_samples[internal])
        if wrong.size:
            i = int(internal[wrong[0]])
            raise ValueError(f"node {i} has n_node_samples {int(n_samples[i])} but its children "
                             f"hold {int(child_samples[i])}")
        child_weight = np.zeros(self.n_nodes)
        np.add.at(child_weight, parents, weight[children])
        _check_close(weight[internal], child_weight[internal], internal,
                     "weighted_n_node_samples")
        if self.task == "classification":
            # a node without training rows (a dyadic tree's empty cell) predicts with its
            # parent's class frequencies: a row of at most 1 in total, not counts
            empty = weight == 0
            if np.any(self.value[empty].sum(axis=1) > 1.0 + 1e-9):
                raise ValueError("a node without training rows holds class counts (its value "
                                 "row must be frequencies summing to at most 1)")
            totals = self.value.sum(axis=1)
            _check_close(weight[~empty], totals[~empty], np.flatnonzero(~empty),
                         "class counts ('value' rows) against weighted_n_node_samples")
            held = np.where(empty[children][:, None], 0.0, self.value[children])
            child_value = np.zeros_like(self.value)
            np.add.at(child_value, parents, held)
            scale = np.repeat(weight[internal][:, None], self.n_classes, axis=1)
            _check_close(self.value[internal], child_value[internal], internal,
                         "class counts ('value')", scale=scale)
        else:
            # a regression node's value is the weighted mean of its children's values
            held = self.value[children, 0] * weight[children]
            child_sum = np.zeros(self.n_nodes)
            np.add.at(child_sum, parents, held)
            mean = child_sum[internal] / np.where(weight[internal] > 0, weight[internal], 1.0)
            magnitude = np.zeros(self.n_nodes)
            np.maximum.at(magnitude, parents, np.abs(self.value[children, 0]))
            _check_close(self.value[internal, 0], mean, internal, "mean targets ('value')",
                         scale=np.maximum(magnitude[internal], np.abs(self.value[internal, 0])))

    # ---------------------------------------------------------- persistence
    def to_dict(self) -> dict:
        """Plain-JSON form: lists of numbers (NaN thresholds written as null)."""
        out = {"task": self.task}
        for name in TREE_ARRAYS:
            arr = getattr(self, name)
            if name == "threshold":
                out[name] = [None if not np.isfinite(v) else float(v) for v in arr]
            else:
                out[name] = arr.tolist()
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Tree:
        """Inverse of :meth:`to_dict`; validates types, lengths and the tree shape."""
        if not isinstance(data, dict):
            raise ValueError(f"tree must be a JSON object, got {type(data).__name__}")
        missing = [name for name in TREE_ARRAYS if name not in data]
        if missing:
            raise ValueError(f"tree is missing the arrays {missing}")
        arrays = {}
        for name in TREE_ARRAYS:
            raw = data[name]
            if not isinstance(raw, list):
                raise ValueError(f"tree array {name!r} must be a list")
            try:
                if name == "threshold":
                    arr = np.array([np.nan if v is None else v for v in raw], dtype=np.float64)
                elif name in _INT_ARRAYS:
                    arr = _int_array(raw, name)
                else:
                    arr = np.array(raw, dtype=np.float64)
            except (TypeError, ValueError, OverflowError) as exc:
                raise ValueError(f"tree array {name!r} has entries of the wrong type: {exc}") from None
            arrays[name] = arr
        value = arrays["value"]
        if value.ndim == 1 and value.shape[0] == 0:
            value = value.reshape(0, 1)
        if value.ndim != 2:
            raise ValueError("tree array 'value' must be a list of equal-length lists")
        arrays["value"] = value
        for name in ("first_child", "n_children", "feature", "category_offset", "category_child",
                     "n_node_samples", "n_categories", "threshold", "impurity",
                     "weighted_n_node_samples"):
            if arrays[name].ndim != 1:
                raise ValueError(f"tree array {name!r} must be a flat list")
        task = data.get("task", "classification")
        if not isinstance(task, str):
            raise ValueError("tree 'task' must be a string")
        return cls(**arrays, task=task).validate()


def _int_array(raw: list, name: str) -> np.ndarray:
    for v in raw:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"tree array {name!r} must hold integers, found {v!r}")
        if not -(2**62) < v < 2**62:
            raise ValueError(f"tree array {name!r} holds the out-of-range integer {v}")
    return np.array(raw, dtype=np.int64) if raw else np.empty(0, dtype=np.int64)


#: Relative tolerance of the parent/children consistency checks (sums in another order).
_STAT_RTOL = 1e-6


def _check_close(expected, found, nodes, what: str, scale=None) -> None:
    """``found`` within ``_STAT_RTOL * scale`` of ``expected`` everywhere (``scale``: the
    magnitude to compare to, default ``|expected|``); else a ValueError naming a node."""
    expected = np.asarray(expected, dtype=np.float64)
    found = np.asarray(found, dtype=np.float64)
    scale = np.abs(expected) if scale is None else np.asarray(scale, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        bad = ~(np.abs(expected - found) <= _STAT_RTOL * scale)
    if bad.any():
        row = np.flatnonzero(bad.reshape(bad.shape[0], -1).any(axis=1))[0]
        raise ValueError(f"node {int(nodes[row])}: its {what} disagree with its children's "
                         f"(or with its own totals): the statistics were edited or corrupted")


def _as_float_matrix(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"expected a 2-D matrix, got {X.ndim} dimension(s)")
    return np.ascontiguousarray(X)
