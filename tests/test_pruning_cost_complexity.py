"""Weakest-link sequence and cost-complexity CV (CART, M-CART)."""

import math

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris, load_wine
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from _pruning_oracles import is_pruned_subtree, naive_weakest_link, sklearn_to_tree
from treebound.pruning.cost_complexity import (
    cost_complexity_path,
    fold_losses,
    mcart_complexity,
    prune_cost_complexity_cv,
    weakest_link_sequence,
)
from treebound.tree._builder import GrowthSettings, grow


@pytest.mark.parametrize("loader,seed", [(load_iris, 0), (load_wine, 1),
                                         (load_breast_cancer, 2)])
def test_alpha_path_matches_scikit_learn(loader, seed):
    X, y = loader(return_X_y=True)
    sk = SkClassifier(random_state=seed).fit(X, y)
    expected = sk.cost_complexity_pruning_path(X, y)
    tree = sklearn_to_tree(sk.tree_, X.shape[1])
    alphas, impurities = cost_complexity_path(tree, risk="impurity")
    assert alphas.shape == expected.ccp_alphas.shape
    assert np.allclose(alphas, expected.ccp_alphas, rtol=1e-9, atol=1e-12)
    assert np.allclose(impurities, expected.impurities, rtol=1e-9, atol=1e-12)


def test_alpha_path_matches_scikit_learn_regression():
    X, y = load_diabetes(return_X_y=True)
    sk = SkRegressor(random_state=0, max_leaf_nodes=60).fit(X, y)
    expected = sk.cost_complexity_pruning_path(X, y)
    tree = sklearn_to_tree(sk.tree_, X.shape[1])
    tree.task = "regression"
    tree.value = tree.value[:, :1]
    alphas, impurities = cost_complexity_path(tree, risk="impurity")
    assert np.allclose(alphas, expected.ccp_alphas, rtol=1e-7, atol=1e-9)
    assert np.allclose(impurities, expected.impurities, rtol=1e-7)


def _grown(seed, n=200, n_classes=3, max_leaves=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.digitize(X[:, 0] + 0.4 * X[:, 1], [-0.5, 0.5][: n_classes - 1]).astype(np.int32)
    flip = rng.random(n) < 0.2
    y[flip] = rng.integers(0, n_classes, flip.sum())
    settings = GrowthSettings(max_leaf_nodes=max_leaves)
    return X, y, settings, grow(X, y, np.ones(n), np.zeros(3, dtype=np.int64), settings,
                                n_classes=n_classes)


@pytest.mark.parametrize("seed,risk", [(0, "error"), (1, "impurity"), (2, "error")])
def test_weakest_link_matches_the_naive_oracle(seed, risk):
    _, _, _, tree = _grown(seed, max_leaves=30)
    seq = weakest_link_sequence(tree, risk)
    oracle = naive_weakest_link(tree, risk)
    # Links tied at one alpha may be taken in another order (a parent first removes its tied
    # child's link); the sequence of trees T_k, i.e. the distinct alphas, is what must agree.
    distinct = [oracle[0]]
    for a in oracle[1:]:
        if not math.isclose(a, distinct[-1], rel_tol=1e-9, abs_tol=1e-13):
            distinct.append(a)
    if distinct[0] != 0.0:
        distinct.insert(0, 0.0)
    assert np.allclose(seq.alphas, distinct, rtol=1e-9, atol=1e-13)


def test_sequence_trees_are_nested_and_alphas_increase():
    _, _, _, tree = _grown(3)
    seq = weakest_link_sequence(tree, "error")
    assert seq.alphas[0] == 0.0 and np.all(np.diff(seq.alphas) > 0)
    assert seq.n_leaves[-1] == 1 and np.all(np.diff(seq.n_leaves) < 0)
    previous = np.zeros(tree.n_nodes, dtype=bool)
    for k in range(len(seq)):
        mask = seq.make_leaf(k)
        assert np.all(mask[previous])  # nested: once a leaf, always a leaf
        pruned, old_to_new = tree.collapse(mask)
        assert pruned.n_leaves == seq.n_leaves[k]
        assert is_pruned_subtree(tree, pruned, old_to_new)
        errors = pruned.value[pruned.first_child < 0]
        risk = (errors.sum(axis=1) - errors.max(axis=1)).sum() / tree.weighted_n_node_samples[0]
        assert risk == pytest.approx(seq.risk[k])
        previous = mask


def test_fold_losses_match_rebuilt_trees():
    X, y, _, tree = _grown(4, n=150)
    seq = weakest_link_sequence(tree, "error")
    rng = np.random.default_rng(0)
    Xv = rng.normal(size=(80, 3))
    yv = rng.integers(0, 3, 80)
    alphas = [0.0, float(seq.alphas[len(seq) // 2]) * 1.01, math.inf]
    sums, _ = fold_losses(tree, seq, alphas, Xv, yv, np.ones(80))
    for alpha, got in zip(alphas, sums, strict=True):
        k = len(seq) - 1 if math.isinf(alpha) else seq.index_at(alpha)
        pruned = tree.collapse(seq.make_leaf(k))[0]
        wrong = np.sum(pruned.majority_class[pruned.apply(Xv)] != yv)
        assert got == wrong


def test_cv_selection_rules():
    X, y, settings, tree = _grown(5, n=300)
    folds = []
    rng = np.random.default_rng(1)
    parts = np.array_split(rng.permutation(len(y)), 5)
    for i in range(5):
        val = parts[i]
        tr = np.concatenate([parts[j] for j in range(5) if j != i])
        ft = grow(X[tr], y[tr], np.ones(len(tr)), np.zeros(3, dtype=np.int64), settings,
                  n_classes=3)
        folds.append((ft, X[val], y[val], np.ones(len(val))))
    best = prune_cost_complexity_cv(tree, folds, rule="min")
    one_se = prune_cost_complexity_cv(tree, folds, rule="1se")
    info = best.info
    cv = np.array(info["cv_error"])
    assert info["index_min"] == int(np.argmin(cv))
    assert info["index_1se"] >= info["index_min"]
    assert cv[info["index_1se"]] <= cv.min() + info["cv_se"][info["index_min"]] + 1e-12
    assert one_se.tree.n_leaves <= best.tree.n_leaves
    assert best.tree.n_leaves == info["n_leaves_min"]
    assert one_se.tree.n_leaves == info["n_leaves_1se"]
    assert len(best.path) == len(info["alphas"])


def test_mcart_complexity_and_sequence():
    c = mcart_complexity(200, 4)
    L = np.array([1, 2, 5])
    d = L * np.log(L * 4)
    assert np.allclose(c(L), d * np.log(200 / d))
    assert mcart_complexity(100, 1)(np.array([1]))[0] == 0.0  # d = 0 for one leaf, one feature
    _, _, _, tree = _grown(6, max_leaves=20)
    seq = weakest_link_sequence(tree, "error", c)
    assert np.all(np.diff(seq.alphas) > 0)
    assert np.all(np.diff(seq.n_leaves) < 0)
