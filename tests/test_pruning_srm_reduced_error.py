"""SRM pruning (Yıldız section 4.2) and reduced-error pruning on hand-computed small trees."""

import math

import numpy as np
import pytest

from _pruning_oracles import make_tree
from treebound._flat._storage import Tree
from treebound.pruning.reduced_error import prune_reduced_error
from treebound.pruning.srm import prune_srm, subtree_vcdim_bounds
from treebound.theory import TreeStructure, vcdim_lower_bound, vcdim_upper_bound
from treebound.tree._builder import GrowthSettings, grow


def vapnik(rate, n, v, a1=0.1, a2=2.0):
    """Yıldız Eqs. (2)-(3) written out, nu = 1 / sqrt(N)."""
    eps = a1 * (v * (math.log(a2 * n / v) + 1) + 0.5 * math.log(n)) / n
    return rate + eps / 2 * (1 + math.sqrt(1 + 4 * rate / eps))


def test_srm_on_a_hand_computed_three_leaf_tree():
    # root [20, 12] -> left (x0 <= 0) [18, 2] split again into [15, 0] / [3, 2]; right [2, 10].
    tree = make_tree((0, 0.0, (1, 0.5, [15, 0], [3, 2]), [2, 10]), n_features=2)
    # VC lower bound with 2 real features: stump -> 3 (2 ell = 4 >= C(3, 1)), leaf -> 1.
    v_left = 3
    keep_left = vapnik(2 / 20, 20, v_left)
    cut_left = vapnik(2 / 20, 20, 1)
    assert cut_left <= keep_left  # same error, lower complexity: the left stump goes
    # then the root is a stump [18, 2] / [2, 10]: 4 errors on 32 vs 12 as a leaf.
    keep_root = vapnik(4 / 32, 32, 3)
    cut_root = vapnik(12 / 32, 32, 1)
    assert keep_root < cut_root
    result = prune_srm(tree)
    assert result.tree.n_leaves == 2
    assert result.info["collapsed"] == 1
    assert result.objective == pytest.approx(keep_root)
    assert result.path[-1] == (2, pytest.approx(keep_root))


def test_srm_keeps_a_useful_split_and_collapses_with_large_a1():
    tree = make_tree((0, 0.0, [30, 1], [1, 30]), n_features=1)
    assert prune_srm(tree).tree.n_leaves == 2
    # A huge complexity weight makes any split worse than a leaf.
    assert prune_srm(tree, a1=50.0).tree.n_leaves == 1


def _multiway_tree():
    """Root tests feature 0 (3 categories) -> three children; the first tests feature 1
    (2 categories) -> two leaves."""
    first_child = np.array([1, 4, -1, -1, -1, -1])
    n_children = np.array([3, 2, 0, 0, 0, 0])
    feature = np.array([0, 1, -1, -1, -1, -1])
    value = np.array([[9, 9], [6, 3], [1, 5], [2, 1], [5, 0], [1, 3]], dtype=float)
    return Tree(first_child=first_child, n_children=n_children, feature=feature,
                threshold=np.full(6, np.nan), category_offset=np.array([0, 3, -1, -1, -1, -1]),
                category_child=np.array([0, 1, 2, 0, 1]), value=value, impurity=np.zeros(6),
                n_node_samples=value.sum(axis=1).astype(np.int64),
                weighted_n_node_samples=value.sum(axis=1),
                n_categories=np.array([3, 2])).validate()


def test_lary_lower_bound_by_hand():
    tree = _multiway_tree()
    vc = subtree_vcdim_bounds(tree, "lower")
    # Arities sorted [2, 3]. Node 1 as a stand-alone stump: Theorem 5 over both features,
    # (2^1 - 1) + (2^2 - 1) = 4 -> floor(log2 5) + 1 = 3.
    assert vc[1] == 3
    # Root: sum over its children with one feature used: leaf 1 + leaf 1 + stump over the
    # remaining feature [3]: (2^2 - 1) = 3 -> floor(log2 4) + 1 = 3; total 5.
    assert vc[0] == 5
    assert vc[2] == 1
    with pytest.raises(ValueError, match="binary"):
        subtree_vcdim_bounds(tree, "upper")


@pytest.mark.parametrize("seed", [0, 1])
def test_vc_bounds_of_binary_trees_match_the_theory_module(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(150, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(np.int32)
    tree = grow(X, y, np.ones(150), np.zeros(3, dtype=np.int64),
                GrowthSettings(max_leaf_nodes=9), n_classes=2)
    shape = TreeStructure.from_tree(tree)
    assert subtree_vcdim_bounds(tree, "lower")[0] == vcdim_lower_bound(shape, n_features=3)
    assert subtree_vcdim_bounds(tree, "upper")[0] == vcdim_upper_bound(shape, n_features=3)


def test_srm_rejects_regression_trees_and_bad_options():
    reg = make_tree((0, 0.0, [1, 0], [0, 1]))
    reg.task = "regression"
    with pytest.raises(ValueError, match="classification"):
        prune_srm(reg)
    with pytest.raises(ValueError, match="vc_bound"):
        prune_srm(make_tree((0, 0.0, [1, 0], [0, 1])), vc_bound="exact")


def test_reduced_error_by_hand():
    tree = make_tree((0, 0.5, [5, 1], [0, 4]), n_features=1)
    # Held-out: left (x <= 0.5) labels 0, 0, 1; right labels 1, 0.
    X = np.array([[0.0], [0.1], [0.2], [1.0], [2.0]])
    tie = prune_reduced_error(tree, X, np.array([0, 0, 1, 1, 0]))
    # Subtree: 1 + 1 errors; root as a leaf predicts class 0 (tie 5/5 -> smallest index): 2.
    assert tie.tree.n_leaves == 1
    assert tie.path == ((2, pytest.approx(2 / 5)), (1, pytest.approx(2 / 5)))
    better = prune_reduced_error(tree, X, np.array([0, 0, 0, 1, 1]))
    assert better.tree.n_leaves == 2 and better.path == ((2, 0.0),)


def test_reduced_error_collapses_unreached_nodes_and_handles_regression():
    tree = make_tree((0, 0.5, (0, 0.2, [8, 0], [0, 2]), [0, 5]), n_features=1)
    # Held-out samples only reach the right leaf; the root as a leaf would predict class 0.
    result = prune_reduced_error(tree, np.array([[3.0], [4.0]]), np.array([1, 1]))
    assert result.tree.n_leaves == 2  # the unreached inner split goes, the root split stays
    reg = make_tree((0, 0.5, [1, 0], [1, 0]), n_features=1)
    reg.task = "regression"
    reg.value = np.array([[2.0], [1.0], [3.0]])
    X = np.array([[0.0], [1.0]])
    assert prune_reduced_error(reg, X, np.array([1.0, 3.0])).tree.n_leaves == 2
    assert prune_reduced_error(reg, X, np.array([2.0, 2.0])).tree.n_leaves == 1
