"""Growth beyond the fast path: scikit-learn's random thresholds, monotonic constraints,
min_weight_fraction_leaf and its max_features draws."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from _criteria_oracles import all_splits
from test_tree_criteria import compare_where_unique, fit, node_rows
from treebound.tree._builder import GrowthSettings, grow

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _arrays(tree):
    return [getattr(tree, name) for name in ("first_child", "n_children", "feature", "threshold",
                                              "category_offset", "category_child", "value",
                                              "impurity", "n_node_samples",
                                              "weighted_n_node_samples")]


@pytest.mark.parametrize("splitter", ["best", "hist"])
@pytest.mark.parametrize("growth,budget", [("depth_first", None), ("top_down", 9),
                                           ("best_first", 9), ("purest_children", 9)])
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_extended_search_with_neutral_options_is_the_fast_path(splitter, growth, budget, task):
    """A minimum weight no child can miss sends the fit down the extended search: the same tree
    as the fast path, bit for bit (the oracle of the extended machinery)."""
    rng = np.random.default_rng(7)
    n = 400
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 6, n), rng.integers(0, 300, n),
                         rng.integers(0, 4, n)]).astype(float)
    categories = np.array([0, 0, 0, 4], dtype=np.int64)
    score = X[:, 0] + 0.3 * X[:, 1] - 0.01 * X[:, 2] + (X[:, 3] == 2)
    if task == "classification":
        y, n_classes, criterion = np.digitize(score, [-0.5, 0.8]), 3, "gini"
    else:
        y, n_classes, criterion = score + 0.1 * rng.normal(size=n), None, "squared_error"
    for categorical_split in ("binary", "multiway"):
        for max_features in (None, 2):
            kw = dict(criterion=criterion, splitter=splitter, growth=growth,
                      max_leaf_nodes=budget, categorical_split=categorical_split,
                      max_features=max_features, seed=5, min_samples_leaf=2)
            fast = grow(X, y, np.ones(n), categories, GrowthSettings(**kw), n_classes=n_classes)
            ext = grow(X, y, np.ones(n), categories,
                       GrowthSettings(**kw, min_weight_fraction_leaf=1e-300),
                       n_classes=n_classes)
            for a, b in zip(_arrays(fast), _arrays(ext), strict=True):
                np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------------------------ random


def test_random_thresholds_are_uniform_between_the_node_extremes():
    """One feature, one split: the threshold is uniform on [min, max) of the feature (a KS test
    over 400 seeds; deterministic, the seeds are fixed)."""
    rng = np.random.default_rng(0)
    X = np.sort(rng.uniform(2.0, 5.0, 60)).reshape(-1, 1)
    y = rng.normal(size=60)
    lo, hi = X.min(), X.max()
    thresholds = []
    for seed in range(400):
        tree = fit(X, y, "squared_error", max_depth=1, splitter="random", seed=seed)
        assert tree.n_nodes == 3
        t = tree.threshold[0]
        assert lo <= t < hi
        left = X[:, 0] <= t
        assert tree.n_node_samples[1] == left.sum()
        thresholds.append(t)
    assert stats.kstest((np.array(thresholds) - lo) / (hi - lo), "uniform").pvalue > 1e-3


@settings(max_examples=25, **SETTINGS)
@given(seed=st.integers(0, 2**31), n=st.integers(10, 80))
def test_random_trees_are_valid_and_seeded(seed, n):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 7, size=(n, 3)).astype(float)
    y = rng.integers(0, 3, n)
    a = fit(X, y, "gini", n_classes=3, splitter="random", seed=seed % 1000)
    b = fit(X, y, "gini", n_classes=3, splitter="random", seed=seed % 1000)
    for u, v in zip(_arrays(a), _arrays(b), strict=True):
        np.testing.assert_array_equal(u, v)
    rows = node_rows(a, X)
    for node in np.flatnonzero(a.first_child >= 0):
        values = X[rows[node], a.feature[node]]
        assert values.min() <= a.threshold[node] < values.max()
    # grown to purity: every leaf is pure or cannot be split
    for leaf in np.flatnonzero(a.is_leaf):
        r = rows[leaf]
        assert len(np.unique(y[r])) == 1 or len(np.unique(X[r], axis=0)) == 1


def test_random_splitter_differs_from_best_and_between_seeds():
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(300, 4)), rng.integers(0, 2, 300)
    best = fit(X, y, "gini", n_classes=2)
    trees = [fit(X, y, "gini", n_classes=2, splitter="random", seed=s) for s in range(3)]
    assert not np.array_equal(best.threshold, trees[0].threshold, equal_nan=True)
    assert not np.array_equal(trees[0].threshold, trees[1].threshold, equal_nan=True)


# ------------------------------------------------------------------------------ monotonic


def _is_monotonic(tree, X, f, sign, classification):
    """Predictions along feature ``f`` (every other feature fixed at each row) never go against
    ``sign``."""
    grid = np.unique(X[:, f])
    for row in X[:: max(1, len(X) // 25)]:
        Z = np.repeat(row[None, :], len(grid), axis=0)
        Z[:, f] = grid
        value = tree.value[tree.apply(Z)]
        pred = value[:, 1] / value.sum(axis=1) if classification else value[:, 0]
        if np.any(np.diff(pred) * sign < -1e-12):
            return False
    return True


@pytest.mark.parametrize("splitter", ["best", "random", "hist"])
@pytest.mark.parametrize("budget", [None, 12])
@pytest.mark.parametrize("classification", [False, True])
@settings(max_examples=10, **SETTINGS)
@given(seed=st.integers(0, 2**31))
def test_monotonic_constraints_hold(splitter, budget, classification, seed):
    rng = np.random.default_rng(seed)
    n = 200
    X = rng.uniform(size=(n, 3))
    score = 2 * X[:, 0] - 2 * X[:, 1] + np.sin(8 * X[:, 2]) + rng.normal(size=n)
    cst = (1, -1, 0)
    if classification:
        y, n_classes, criterion = (score > 0).astype(int), 2, "gini"
    else:
        y, n_classes, criterion = score, None, "squared_error"
    tree = fit(X, y, criterion, n_classes=n_classes, splitter=splitter, monotonic_cst=cst,
               max_leaf_nodes=budget, seed=seed % 100, max_bins=32)
    assert _is_monotonic(tree, X, 0, 1, classification)
    assert _is_monotonic(tree, X, 1, -1, classification)


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error", "poisson", "gini"])
@settings(max_examples=20, **SETTINGS)
@given(seed=st.integers(0, 2**31))
def test_monotonic_root_split_is_the_best_valid_one(criterion, seed):
    rng = np.random.default_rng(seed)
    n = 30
    X = rng.integers(0, 6, size=(n, 2)).astype(float)
    classification = criterion == "gini"
    y = (rng.integers(0, 2, n) if classification
         else rng.integers(0 if criterion == "poisson" else -3, 6, n).astype(float))
    if criterion == "poisson" and y.sum() == 0:
        y[0] = 1.0
    cst = (1, -1)
    tree = fit(X, y, criterion, n_classes=2 if classification else None, max_depth=1,
               monotonic_cst=cst)
    splits = all_splits(X, y, np.ones(n), criterion, 2 if classification else None,
                        monotonic=cst, classification=classification)
    finite = [g for g, _, _ in splits if np.isfinite(g)]
    if tree.n_nodes == 1:
        assert not finite or max(finite) <= 1e-9 * max(1.0, n * tree.impurity[0])
        return
    rows = node_rows(tree, X)
    gain = n * tree.impurity[0] - sum(len(rows[c]) * tree.impurity[c] for c in (1, 2))
    assert gain == pytest.approx(max(finite), rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("budget", [None, 10])
def test_monotonic_trees_match_scikit_learn(seed, budget):
    rng = np.random.default_rng(seed)
    n = 150
    X = rng.normal(size=(n, 3)).astype(np.float32).astype(np.float64)
    y = X[:, 0] - X[:, 1] + np.sin(3 * X[:, 2]) + 0.5 * rng.normal(size=n)
    cst = (1, -1, 0)
    ours = fit(X, y, "squared_error", monotonic_cst=cst, max_depth=4, max_leaf_nodes=budget,
               growth="top_down")
    theirs = SkRegressor(monotonic_cst=cst, max_depth=4, max_leaf_nodes=budget).fit(X, y)
    compare_where_unique_monotonic(ours, theirs)


def compare_where_unique_monotonic(ours, theirs):
    """Same tree (the bounds make near-ties rarer than usual: compare everything)."""
    s = theirs.tree_
    np.testing.assert_allclose(np.sort(ours.value[ours.is_leaf, 0]),
                               np.sort(s.value[s.children_left < 0, 0, 0]), rtol=1e-12)
    assert ours.n_leaves == int(np.sum(s.children_left < 0))


def test_monotonic_classifier_matches_scikit_learn_probabilities():
    rng = np.random.default_rng(4)
    n = 300
    X = rng.normal(size=(n, 2)).astype(np.float32).astype(np.float64)
    y = (X[:, 0] + np.sin(3 * X[:, 1]) + rng.normal(size=n) > 0).astype(int)
    ours = fit(X, y, "gini", n_classes=2, monotonic_cst=(1, 0), max_depth=5)
    theirs = SkClassifier(monotonic_cst=(1, 0), max_depth=5).fit(X, y)
    value = ours.value[ours.apply(X)]
    np.testing.assert_allclose(value[:, 1] / value.sum(axis=1), theirs.predict_proba(X)[:, 1],
                               rtol=1e-12, atol=1e-12)


def test_monotonic_refusals():
    X, y = np.zeros((6, 2)), np.arange(6) % 3
    with pytest.raises(ValueError, match="multiclass"):
        fit(X, y, "gini", n_classes=3, monotonic_cst=(1, 0))
    with pytest.raises(ValueError, match="multiple outputs"):
        fit(X, np.column_stack([y, y]).astype(float), "squared_error", monotonic_cst=(1, 0))
    with pytest.raises(ValueError, match="shape"):
        fit(X, y.astype(float), "squared_error", monotonic_cst=(1, 0, 0))
    with pytest.raises(ValueError, match="-1, 0 or 1"):
        fit(X, y.astype(float), "squared_error", monotonic_cst=(2, 0))
    with pytest.raises(ValueError, match="categorical"):
        grow(X, y.astype(float), np.ones(6), np.array([0, 3]),
             GrowthSettings(criterion="squared_error", monotonic_cst=(0, 1)), n_classes=None)


# ------------------------------------------------------------------- min_weight_fraction_leaf


@pytest.mark.parametrize("fraction", [0.05, 0.2, 0.45])
@pytest.mark.parametrize("splitter", ["best", "random"])
def test_min_weight_fraction_leaf_holds(fraction, splitter):
    rng = np.random.default_rng(1)
    n = 300
    X, y = rng.normal(size=(n, 3)), rng.integers(0, 2, n)
    w = rng.uniform(0.1, 3.0, n)
    tree = fit(X, y, "gini", w=w, n_classes=2, splitter=splitter,
               min_weight_fraction_leaf=fraction)
    assert tree.weighted_n_node_samples[tree.is_leaf].min() >= fraction * w.sum()


@settings(max_examples=25, **SETTINGS)
@given(seed=st.integers(0, 2**31), fraction=st.sampled_from([0.1, 0.25, 0.4]))
def test_min_weight_fraction_root_split_is_the_best_valid_one(seed, fraction):
    rng = np.random.default_rng(seed)
    n = 24
    X = rng.integers(0, 6, size=(n, 2)).astype(float)
    y = rng.integers(0, 2, n)
    w = rng.choice([0.5, 1.0, 4.0], n)
    tree = fit(X, y, "gini", w=w, n_classes=2, max_depth=1, min_weight_fraction_leaf=fraction)
    splits = all_splits(X, y, w, "gini", 2, min_weight_leaf=fraction * w.sum())
    if tree.n_nodes == 1:
        assert not splits or w.sum() < 2 * fraction * w.sum()
        return
    rows = node_rows(tree, X)
    gain = w.sum() * tree.impurity[0] - sum(w[rows[c]].sum() * tree.impurity[c] for c in (1, 2))
    assert gain == pytest.approx(max(g for g, _, _ in splits), abs=1e-9)


def test_min_weight_fraction_leaf_in_categorical_tests():
    rng = np.random.default_rng(5)
    n = 400
    X = np.column_stack([rng.integers(0, 6, n), rng.normal(size=n)]).astype(float)
    y = (X[:, 0] == 1).astype(int)
    for split in ("binary", "multiway"):
        tree = grow(X, y, np.ones(n), np.array([6, 0]),
                    GrowthSettings(min_weight_fraction_leaf=0.15, categorical_split=split),
                    n_classes=2)
        assert tree.weighted_n_node_samples[tree.is_leaf].min() >= 0.15 * n


@pytest.mark.parametrize("seed", range(3))
def test_min_weight_fraction_leaf_matches_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    n = 200
    X = rng.normal(size=(n, 3)).astype(np.float32).astype(np.float64)
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(int)
    w = rng.uniform(0.5, 2.0, n)
    ours = fit(X, y, "gini", w=w, n_classes=2, min_weight_fraction_leaf=0.1)
    theirs = SkClassifier(min_weight_fraction_leaf=0.1).fit(X, y, sample_weight=w)
    assert compare_where_unique(ours, theirs, X, y, w, "gini", 2,
                                min_weight_leaf=0.1 * w.sum()) >= 2


# ------------------------------------------------------------------------------ max_features


def test_max_features_keeps_drawing_until_a_feature_is_not_constant():
    """scikit-learn's rule: past max_features, the draws go on while every drawn feature was
    constant in the node (test_behaviour_constant_feature_after_splits)."""
    X = np.transpose(np.vstack(([[0, 0, 0, 0, 0, 1, 2, 4, 5, 6, 7]], np.zeros((4, 11)))))
    y = np.array([0, 0, 0, 1, 1, 2, 2, 2, 3, 3, 3])
    for seed in range(10):
        tree = fit(X, y, "gini", n_classes=4, max_features=1, seed=seed)
        assert tree.n_nodes == 5 and tree.max_depth == 2
    X = np.hstack([np.array([[1.0], [1.0], [0.0], [0.0]]), np.zeros((4, 300))])
    tree = fit(X, np.array([0, 1, 0, 1]), "gini", n_classes=2, max_features=1, seed=3)
    assert tree.max_depth == 1


@pytest.mark.parametrize("splitter", ["best", "hist", "random"])
def test_max_features_draws_are_uniform(splitter):
    """With max_features=1 and features of equal worth, the root's feature is uniform."""
    rng = np.random.default_rng(0)
    n, d = 200, 4
    base = rng.normal(size=n)
    X = np.column_stack([base] * d)
    y = (base > 0).astype(int)
    counts = np.zeros(d)
    for seed in range(400):
        counts[fit(X, y, "gini", n_classes=2, max_features=1, seed=seed, max_depth=1,
                   splitter=splitter).feature[0]] += 1
    assert stats.chisquare(counts).pvalue > 1e-3


# ------------------------------------------------------------------------- near-equal values


@pytest.mark.parametrize("splitter", ["best", "random", "hist"])
def test_a_feature_spanning_at_most_1e_7_is_constant(splitter):
    """scikit-learn's FEATURE_THRESHOLD (test_almost_constant_feature): a feature whose values
    all lie within 1e-7 is never tested. Values of a wider feature stay separable, however
    close (the invariance to increasing transforms)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(40, 2))
    X[:, 0] *= 1e-7
    y = rng.integers(0, 2, 40)
    tree = fit(X, y, "gini", n_classes=2, splitter=splitter, seed=1)
    assert 1 in tree.feature and 0 not in tree.feature
    X = np.array([[0.0], [5e-8], [1.0], [1.0 + 5e-8]])
    y = np.array([0, 1, 1, 0])
    tree = fit(X, y, "gini", n_classes=2, splitter=splitter, seed=2)
    np.testing.assert_array_equal(np.argmax(tree.value[tree.apply(X)], axis=1), y)
