"""The compiled node loops over prunings against the Python loops they replaced (the oracles):
the breadth-first renumbering of ``Tree.collapse``, on random shapes and on fitted trees with
category maps, and where a pruning stops the rows reaching each node of the tree it prunes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound import DecisionTreeClassifier
from treebound._flat._sklearn_view import as_flat
from treebound._kernels.prunings import collapse_order, pruning_stops


def naive_order(first_child, n_children, make_leaf):
    """``(keep, first_child, n_children, old_to_new)`` of the pruning, by a Python walk."""
    old_to_new = np.full(first_child.shape[0], -1, dtype=np.int64)
    order, new_first_child, new_n_children = [0], [-1], [0]
    old_to_new[0] = 0
    head = 0
    while head < len(order):
        old = order[head]
        start = first_child[old]
        if start >= 0 and not make_leaf[old]:
            k = int(n_children[old])
            new_first_child[head] = len(order)
            new_n_children[head] = k
            for c in range(start, start + k):
                old_to_new[c] = len(order)
                order.append(c)
                new_first_child.append(-1)
                new_n_children.append(0)
        head += 1
    return (np.asarray(order), np.asarray(new_first_child), np.asarray(new_n_children),
            old_to_new)


@st.composite
def shapes_and_masks(draw):
    """A flat tree's ``first_child`` / ``n_children`` (children contiguous, after the parent,
    breadth-first) with arities 0 (leaf), 2 or 3, and a random ``make_leaf``."""
    arities = draw(st.lists(st.sampled_from([0, 2, 3]), min_size=1, max_size=40))
    first_child, n_children = [], []
    n_nodes = 1
    for i in range(len(arities)):
        if i >= n_nodes:
            break
        a = arities[i]
        first_child.append(n_nodes if a else -1)
        n_children.append(a)
        n_nodes += a
    first_child += [-1] * (n_nodes - len(first_child))
    n_children += [0] * (n_nodes - len(n_children))
    make_leaf = draw(st.lists(st.booleans(), min_size=n_nodes, max_size=n_nodes))
    return (np.asarray(first_child, dtype=np.int64), np.asarray(n_children, dtype=np.int64),
            np.asarray(make_leaf, dtype=bool))


@settings(max_examples=200, deadline=None)
@given(shapes_and_masks())
def test_collapse_order_is_the_python_walk(case):
    first_child, n_children, make_leaf = case
    n = first_child.shape[0]
    keep, new_first, new_n = (np.full(n, -9, dtype=np.int64) for _ in range(3))
    old_to_new = np.full(n, -9, dtype=np.int64)
    n_kept = collapse_order(first_child, n_children, make_leaf, keep, new_first, new_n,
                            old_to_new)
    want = naive_order(first_child, n_children, make_leaf)
    np.testing.assert_array_equal(keep[:n_kept], want[0])
    np.testing.assert_array_equal(new_first[:n_kept], want[1])
    np.testing.assert_array_equal(new_n[:n_kept], want[2])
    np.testing.assert_array_equal(old_to_new, want[3])


@pytest.mark.parametrize("split", ["binary", "multiway"])
def test_collapse_of_fitted_trees_keeps_the_python_walks_nodes(split):
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.integers(0, 5, 400), rng.normal(size=400), rng.integers(0, 3, 400)])
    y = (X[:, 0] + (X[:, 1] > 0) + X[:, 2] + rng.integers(0, 2, 400)) % 3
    model = DecisionTreeClassifier(categorical_features=[0, 2], categorical_split=split,
                                   random_state=0).fit(X, y)
    tree = as_flat(model.tree_)
    assert np.any(tree.category_offset >= 0)
    for seed in range(20):
        make_leaf = np.random.default_rng(seed).random(tree.n_nodes) < 0.15
        pruned, old_to_new = tree.collapse(make_leaf)
        keep, first_child, n_children, want_old_to_new = naive_order(
            tree.first_child, tree.n_children, make_leaf)
        np.testing.assert_array_equal(old_to_new, want_old_to_new)
        np.testing.assert_array_equal(pruned.first_child, first_child)
        np.testing.assert_array_equal(pruned.n_children, n_children)
        internal = first_child >= 0
        np.testing.assert_array_equal(pruned.feature, np.where(internal, tree.feature[keep], -1))
        np.testing.assert_array_equal(pruned.value, tree.value[keep])
        for new, old in enumerate(keep.tolist()):  # each kept categorical test keeps its map
            if internal[new] and tree.category_offset[old] >= 0:
                width = int(tree.n_categories[tree.feature[old]])
                got = pruned.category_child[pruned.category_offset[new]:][:width]
                start = tree.category_offset[old]
                np.testing.assert_array_equal(got, tree.category_child[start:start + width])
            else:
                assert pruned.category_offset[new] == -1


@settings(max_examples=200, deadline=None)
@given(shapes_and_masks())
def test_pruning_stops_are_the_closest_kept_ancestors(case):
    first_child, n_children, make_leaf = case
    n = first_child.shape[0]
    _, _, _, old_to_new = naive_order(first_child, n_children, make_leaf)
    parent = np.full(n, -1, dtype=np.int64)
    for i in np.flatnonzero(first_child >= 0).tolist():
        parent[first_child[i]:first_child[i] + n_children[i]] = i
    want = old_to_new.copy()
    for node in range(n):  # walk up to the closest ancestor the pruning keeps
        up = node
        while old_to_new[up] < 0:
            up = parent[up]
        want[node] = old_to_new[up]
    stop = old_to_new.copy()
    pruning_stops(first_child, n_children, stop)
    np.testing.assert_array_equal(stop, want)
