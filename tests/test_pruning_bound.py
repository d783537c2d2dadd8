"""Bound-based pruning (Leboeuf et al. Algorithm 3) against a naive rebuild-every-candidate
oracle."""

import math

import numpy as np
import pytest

from _pruning_oracles import (
    is_pruned_subtree,
    make_tree,
    naive_bound,
    naive_collapse_bounds,
)
from treebound.pruning.bound import effective_n_features, prune_bound
from treebound.theory import PartitioningCache
from treebound.tree._builder import GrowthSettings, grow


def _grown(seed, n=120, n_features=3, n_classes=2, max_leaves=14, noise=0.25,
           growth="depth_first"):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int32)
    if n_classes > 2:
        y = np.digitize(X[:, 0] + 0.3 * X[:, 1], np.linspace(-1, 1, n_classes - 1)).astype(
            np.int32)
    flip = rng.random(n) < noise
    y[flip] = rng.integers(0, n_classes, flip.sum())
    settings = GrowthSettings(growth=growth, max_leaf_nodes=max_leaves)
    return grow(X, y, np.ones(n), np.zeros(n_features, dtype=np.int64), settings,
                n_classes=n_classes)


CASES = [(0, 2, "tight"), (1, 3, "tight"), (2, 2, "loose"), (3, 2, "loose_paper"),
         (4, 4, "tight")]


@pytest.mark.parametrize("seed,n_classes,variant", CASES)
def test_bound_never_increases_and_stops_at_a_local_minimum(seed, n_classes, variant):
    tree = _grown(seed, n_classes=n_classes)
    m, ell = int(tree.n_node_samples[0]), tree.n_features
    result = prune_bound(tree, variant=variant)
    start = naive_bound(tree, m, ell, variant=variant)
    final = naive_bound(result.tree, m, ell, variant=variant)
    assert result.info["initial_bound"] == pytest.approx(start, rel=1e-9)
    assert result.objective == pytest.approx(final, rel=1e-9)
    assert final <= start * (1 + 1e-12)
    # Local minimum: no single collapse of the pruned tree does at least as well.
    if result.tree.n_leaves > 1:
        candidates = naive_collapse_bounds(result.tree, m, ell, variant=variant)
        assert min(candidates.values()) > final * (1 + 1e-12)
    # The path records every accepted collapse with a non-increasing bound.
    bounds = [b for _, b in result.path]
    assert all(b2 <= b1 * (1 + 1e-12) for b1, b2 in zip(bounds, bounds[1:], strict=False))
    assert result.path[0][0] == tree.n_leaves and result.path[-1][0] == result.tree.n_leaves


@pytest.mark.parametrize("seed,n_classes", [(5, 2), (6, 3)])
def test_each_step_takes_the_best_collapse(seed, n_classes):
    """Replaying the path: every accepted tree has the minimum bound over all single collapses
    of the previous tree (Algorithm 3's inner loop), found by the naive oracle."""
    tree = _grown(seed, n_classes=n_classes, max_leaves=10)
    m, ell = int(tree.n_node_samples[0]), tree.n_features
    result = prune_bound(tree)
    current = tree
    for n_leaves, eps in result.path[1:]:
        candidates = naive_collapse_bounds(current, m, ell)
        best_v = min(candidates, key=candidates.get)
        assert eps == pytest.approx(candidates[best_v], rel=1e-9)
        mask = np.zeros(current.n_nodes, dtype=bool)
        mask[best_v] = True
        current = current.collapse(mask)[0]
        assert current.n_leaves == n_leaves


@pytest.mark.parametrize("variant", ["tight", "loose"])
def test_collapsed_lists_the_accepted_collapses_in_order(variant):
    """``info["collapsed"]`` replayed on the grown tree gives every tree of the path."""
    tree = _grown(24, n=300, n_classes=3, max_leaves=24, noise=0.1)
    m, ell = int(tree.n_node_samples[0]), tree.n_features
    result = prune_bound(tree, variant=variant)
    order = result.info["collapsed"]
    assert len(order) == result.info["steps"] == len(result.path) - 1 >= 2
    mask = np.zeros(tree.n_nodes, dtype=bool)
    for u, (n_leaves, eps) in zip(order, result.path[1:], strict=True):
        assert tree.first_child[u] >= 0 and not mask[u]
        mask[u] = True
        pruned = tree.collapse(mask)[0]
        assert pruned.n_leaves == n_leaves
        assert naive_bound(pruned, m, ell, variant=variant) == pytest.approx(eps, rel=1e-9)
    assert np.array_equal(mask & (tree.first_child >= 0), result.make_leaf)


@pytest.mark.parametrize("seed,n_classes,growth", [(7, 3, "purest_children"),
                                                  (8, 3, "purest_children"),
                                                  (9, 3, "top_down"), (12, 2, "top_down"),
                                                  (13, 2, "purest_children"),
                                                  (14, 4, "top_down"), (20, 2, "top_down"),
                                                  (22, 3, "top_down")])
def test_lazy_search_matches_exhaustive_search(seed, n_classes, growth):
    """Branch and bound (with bounds carried across steps) = the plain loop, collapse by
    collapse."""
    n, leaves, noise = (400, 40, 0.1) if seed >= 20 else (300, 30, 0.15)
    tree = _grown(seed, n=n, n_classes=n_classes, max_leaves=leaves, noise=noise, growth=growth)
    lazy = prune_bound(tree, search="lazy")
    full = prune_bound(tree, search="all")
    assert np.array_equal(lazy.make_leaf, full.make_leaf)
    assert np.allclose(np.array(lazy.path), np.array(full.path), rtol=1e-12)
    assert lazy.info["exact_evaluations"] <= full.info["exact_evaluations"]


def test_pruned_tree_is_a_subtree_of_the_grown_tree():
    tree = _grown(10, n_classes=3, max_leaves=20)
    result = prune_bound(tree)
    assert result.tree.n_leaves < tree.n_leaves
    assert is_pruned_subtree(tree, result.tree, result.old_to_new)
    assert np.array_equal(result.tree.value, tree.collapse(result.make_leaf)[0].value)


def test_shared_cache_gives_the_same_result():
    tree = _grown(11, n_classes=2)
    cache = PartitioningCache()
    a = prune_bound(tree, cache=cache)
    b = prune_bound(tree, cache=cache)
    c = prune_bound(tree)
    assert a.path == b.path == c.path


def test_hand_computed_stump_collapse():
    """A stump whose split removes a single error on m = 10: eps of both trees by hand."""
    stump = make_tree((0, 0.5, [5, 1], [0, 4]), n_features=1)
    leaf_eps = naive_bound(stump.collapse(np.array([True, False, False]))[0], 10, 1)
    stump_eps = naive_bound(stump, 10, 1)
    result = prune_bound(stump)
    assert result.objective == pytest.approx(min(leaf_eps, stump_eps))
    assert result.tree.n_leaves == (1 if leaf_eps <= stump_eps else 2)
    # By hand: a leaf has tau(20) = n = 2 (one part, two labels), k = 5 errors (of 10).
    r = 2.0**-13.7
    by_hand = (2 * 5 + 4 * (math.log(4) + math.log(2) - math.log(0.05)
                            - (math.log1p(-r) + 5 * math.log(r))
                            - math.log(6 / math.pi**2))) / 10
    assert leaf_eps == pytest.approx(by_hand)


def test_effective_number_of_features():
    assert effective_n_features(np.array([0, 0, 0])) == 3
    assert effective_n_features(np.array([0, 2])) == 2  # a two-category feature = one real one
    assert effective_n_features(np.array([4])) == 7     # (2^4 - 2) nontrivial subsets / 2


def test_bound_rejects_multiway_and_regression_trees():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(60, 2)).astype(float)
    y = (X[:, 0] == 1).astype(np.int32)
    multiway = grow(X, y, np.ones(60), np.array([3, 3]),
                    GrowthSettings(categorical_split="multiway"), n_classes=2)
    with pytest.raises(ValueError, match="binary tree"):
        prune_bound(multiway)
    reg = grow(X, X[:, 0], np.ones(60), np.array([0, 0]), GrowthSettings(criterion="squared_error"),
               n_classes=None)
    with pytest.raises(ValueError, match="classification"):
        prune_bound(reg)
    with pytest.raises(ValueError, match="variant"):
        prune_bound(_grown(0), variant="medium")
