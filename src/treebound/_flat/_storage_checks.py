"""The checks behind :meth:`treebound.tree.Tree.validate`: the layout contract of the flat
arrays and the consistency of the node statistics (the bounds read them, so an edited count
must not pass for training data)."""

from __future__ import annotations

import numpy as np

__all__ = ["check_tree"]


def check_tree(tree, array_names) -> None:
    """Raise ``ValueError`` naming the first violation of the layout contract of ``tree``
    (``array_names``: the names of its arrays) or of the consistency of its statistics."""
    n = tree.n_nodes
    if n == 0:
        raise ValueError("tree has no nodes")
    for name in array_names:
        arr = getattr(tree, name)
        if not isinstance(arr, np.ndarray):
            raise ValueError(f"tree array {name!r} is not a numpy array")
        expected_len = None
        if name not in ("category_child", "n_categories"):
            expected_len = n
        if expected_len is not None and arr.shape[0] != expected_len:
            raise ValueError(
                f"tree array {name!r} has length {arr.shape[0]}, expected {expected_len}"
            )
    if tree.value.ndim not in (2, 3) or min(tree.value.shape[1:]) < 1:
        raise ValueError("tree array 'value' must be 2-D (n_nodes, n_classes) or 3-D (n_nodes, "
                         f"n_outputs, max_n_classes), got {tree.value.shape}")
    if tree.task not in ("classification", "regression"):
        raise ValueError(f"tree task must be 'classification' or 'regression', got {tree.task!r}")
    for name in ("threshold", "impurity", "weighted_n_node_samples"):
        if getattr(tree, name).dtype.kind != "f":
            raise ValueError(f"tree array {name!r} must be floating point")
    if not np.all(np.isfinite(tree.value)):
        raise ValueError("tree array 'value' holds NaN or infinite entries")
    if tree.task == "classification" and np.any(tree.value < 0):
        raise ValueError("tree array 'value' holds negative class counts")
    for name in ("impurity", "weighted_n_node_samples"):
        arr = getattr(tree, name)
        # files written before impurities were clipped may hold rounding noise (-1e-16)
        floor = -1e-9 if name == "impurity" else 0.0
        if not np.all(np.isfinite(arr)) or np.any(arr < floor):
            raise ValueError(f"tree array {name!r} must be finite and non-negative")
    if np.any(tree.n_node_samples < 0):
        raise ValueError("tree array 'n_node_samples' holds negative counts")
    internal = np.flatnonzero(tree.first_child >= 0)
    leaves = tree.first_child < 0
    if np.any(tree.first_child < -1):
        raise ValueError("first_child holds negative ids other than -1")
    if np.any(tree.n_children[leaves] != 0):
        raise ValueError("a leaf has a nonzero n_children")
    if np.any(tree.feature[leaves] != -1):
        raise ValueError("a leaf has a feature other than -1")
    n_features = tree.n_features
    if n_features == 0:
        raise ValueError("n_categories is empty: the tree has no features")
    if np.any(tree.n_categories < 0):
        raise ValueError("n_categories holds a negative count")
    covered = np.zeros(n, dtype=np.int64)
    for i in internal:
        start, k = int(tree.first_child[i]), int(tree.n_children[i])
        if k < 2:
            raise ValueError(f"internal node {i} has {k} children (at least 2 required)")
        if start <= i or start + k > n:
            raise ValueError(
                f"node {i} has children {start}..{start + k - 1}, outside ({i}, {n - 1}]"
            )
        covered[start : start + k] += 1
        f = int(tree.feature[i])
        if not 0 <= f < n_features:
            raise ValueError(f"node {i} tests feature {f}, not in [0, {n_features})")
        off = int(tree.category_offset[i])
        if off < 0:
            if tree.n_categories[f] != 0:
                raise ValueError(f"node {i} has a numeric test on categorical feature {f}")
            if k != 2:
                raise ValueError(f"numeric test at node {i} must have 2 children, has {k}")
            # +inf: the test "value present" (scikit-learn's split of the missing rows)
            if not (np.isfinite(tree.threshold[i]) or tree.threshold[i] == np.inf):
                raise ValueError(f"node {i} has a threshold of {tree.threshold[i]!r}")
        else:
            width = int(tree.n_categories[f])
            if width == 0:
                raise ValueError(f"node {i} has a categorical test on numeric feature {f}")
            if off + width > tree.category_child.shape[0]:
                raise ValueError(f"category map of node {i} runs past category_child")
            slots = tree.category_child[off : off + width]
            if np.any(slots < 0) or np.any(slots >= k):
                raise ValueError(f"category map of node {i} names a child slot outside 0..{k - 1}")
    missing = tree.missing_child
    if np.any(missing[leaves] != -1):
        raise ValueError("a leaf has a missing_child other than -1")
    bad = internal[(missing[internal] < 0) | (missing[internal] >= tree.n_children[internal])]
    if bad.size:
        raise ValueError(f"missing_child of node {int(bad[0])} names a child slot outside "
                         f"0..{int(tree.n_children[bad[0]]) - 1}")
    if covered[0] != 0 or np.any(covered[1:] != 1):
        raise ValueError("child ranges do not form a tree (a node has zero or several parents)")
    with np.errstate(over="ignore", invalid="ignore"):  # overflowing sums are refused
        for k in range(tree.n_outputs):  # each output's statistics on its own
            _check_statistics(tree.output(k), internal)


def _check_statistics(tree, internal: np.ndarray) -> None:
    """Node statistics agree between every parent and its children."""
    n_samples = tree.n_node_samples
    weight = tree.weighted_n_node_samples
    if n_samples[0] < 1:
        raise ValueError("the root's n_node_samples must be at least 1")
    if np.any((n_samples > 0) != (weight > 0)):
        bad = int(np.flatnonzero((n_samples > 0) != (weight > 0))[0])
        raise ValueError(f"node {bad} has n_node_samples {int(n_samples[bad])} but weight "
                         f"{float(weight[bad])!r} (a node has rows iff it has weight)")
    if internal.size == 0:
        return
    k = tree.n_children[internal]
    parents = np.repeat(internal, k)
    # the children of each internal node, in order: first_child + 0, 1, ..., k - 1
    steps = np.arange(parents.shape[0]) - np.repeat(np.cumsum(k) - k, k)
    children = tree.first_child[parents] + steps
    child_samples = np.zeros(tree.n_nodes, dtype=np.int64)
    np.add.at(child_samples, parents, n_samples[children])
    wrong = np.flatnonzero(child_samples[internal] != n_samples[internal])
    if wrong.size:
        i = int(internal[wrong[0]])
        raise ValueError(f"node {i} has n_node_samples {int(n_samples[i])} but its children "
                         f"hold {int(child_samples[i])}")
    child_weight = np.zeros(tree.n_nodes)
    np.add.at(child_weight, parents, weight[children])
    _check_close(weight[internal], child_weight[internal], internal,
                 "weighted_n_node_samples")
    if tree.task == "classification":
        # a node without training rows (a dyadic tree's empty cell) predicts with its
        # parent's class frequencies: a row of at most 1 in total, not counts
        empty = weight == 0
        if np.any(tree.value[empty].sum(axis=1) > 1.0 + 1e-9):
            raise ValueError("a node without training rows holds class counts (its value "
                             "row must be frequencies summing to at most 1)")
        totals = tree.value.sum(axis=1)
        _check_close(weight[~empty], totals[~empty], np.flatnonzero(~empty),
                     "class counts ('value' rows) against weighted_n_node_samples")
        held = np.where(empty[children][:, None], 0.0, tree.value[children])
        child_value = np.zeros_like(tree.value)
        np.add.at(child_value, parents, held)
        scale = np.repeat(weight[internal][:, None], tree.n_classes, axis=1)
        _check_close(tree.value[internal], child_value[internal], internal,
                     "class counts ('value')", scale=scale)
    else:
        # a regression node's value is the weighted mean of its children's values
        held = tree.value[children, 0] * weight[children]
        child_sum = np.zeros(tree.n_nodes)
        np.add.at(child_sum, parents, held)
        mean = child_sum[internal] / np.where(weight[internal] > 0, weight[internal], 1.0)
        magnitude = np.zeros(tree.n_nodes)
        np.maximum.at(magnitude, parents, np.abs(tree.value[children, 0]))
        _check_close(tree.value[internal, 0], mean, internal, "mean targets ('value')",
                     scale=np.maximum(magnitude[internal], np.abs(tree.value[internal, 0])))


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
