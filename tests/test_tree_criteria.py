"""scikit-learn's criteria: entropy / log_loss, poisson, absolute_error (and squared_error), each
against a brute-force oracle and against scikit-learn where the best split is unique."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from _criteria_oracles import all_splits, impurity, node_value, weighted_median
from treebound.tree._builder import GrowthSettings, grow

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def fit(X, y, criterion, w=None, n_classes=None, **kw):
    X = np.asarray(X, dtype=float)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    return grow(X, np.asarray(y), w, np.zeros(X.shape[1], dtype=np.int64),
                GrowthSettings(criterion=criterion, **kw), n_classes=n_classes)


def node_rows(tree, X):
    path = tree.decision_path(np.asarray(X, dtype=float)).tocsc()
    return [path.indices[path.indptr[i]:path.indptr[i + 1]] for i in range(tree.n_nodes)]


@st.composite
def regression_problem(draw, positive=False):
    n = draw(st.integers(6, 24))
    d = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    X = rng.integers(0, draw(st.integers(2, 6)), size=(n, d)).astype(float)
    y = rng.integers(0 if positive else -5, 8, size=n).astype(float)
    if positive and y.sum() == 0:
        y[0] = 1.0
    w = rng.choice([0.5, 1.0, 2.0, 3.0], size=n) if draw(st.booleans()) else np.ones(n)
    return X, y, w


@pytest.mark.parametrize("criterion", ["poisson", "absolute_error", "squared_error"])
@settings(max_examples=30, **SETTINGS)
@given(data=st.data())
def test_regression_root_split_and_impurities_match_oracle(criterion, data):
    X, y, w = data.draw(regression_problem(positive=criterion == "poisson"))
    tree = fit(X, y, criterion, w, max_depth=1)
    assert tree.impurity[0] == pytest.approx(impurity(y, w, criterion), rel=1e-9, abs=1e-12)
    assert tree.value[0, 0] == pytest.approx(node_value(y, w, criterion), rel=1e-12)
    splits = all_splits(X, y, w, criterion)
    best = max((g for g, _, _ in splits), default=-np.inf)
    if tree.n_nodes == 1:
        assert best <= 1e-9 * max(1.0, abs(w.sum() * tree.impurity[0])) or not np.isfinite(best)
        return
    rows = node_rows(tree, X)
    gain = w.sum() * tree.impurity[0] - sum(w[rows[c]].sum() * tree.impurity[c] for c in (1, 2))
    assert gain == pytest.approx(best, rel=1e-7, abs=1e-9)
    for c in (1, 2):
        assert tree.impurity[c] == pytest.approx(impurity(y[rows[c]], w[rows[c]], criterion),
                                                 rel=1e-9, abs=1e-12)
        assert tree.value[c, 0] == pytest.approx(node_value(y[rows[c]], w[rows[c]], criterion))


@pytest.mark.parametrize("criterion", ["entropy", "log_loss", "gini"])
@settings(max_examples=30, **SETTINGS)
@given(seed=st.integers(0, 2**31), n=st.integers(6, 30))
def test_classification_root_split_and_impurities_match_oracle(criterion, seed, n):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, 3)).astype(float)
    y = rng.integers(0, 3, size=n)
    w = np.ones(n)
    tree = fit(X, y, criterion, n_classes=3, max_depth=1)
    assert tree.impurity[0] == pytest.approx(impurity(y, w, criterion, 3), abs=1e-12)
    splits = all_splits(X, y, w, criterion, 3)
    if tree.n_nodes > 1:
        rows = node_rows(tree, X)
        gain = n * tree.impurity[0] - sum(len(rows[c]) * tree.impurity[c] for c in (1, 2))
        assert gain == pytest.approx(max(g for g, _, _ in splits), abs=1e-9)


def test_entropy_and_log_loss_are_one_criterion_and_scaled_entropy_is_half():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(200, 4)), rng.integers(0, 3, 200)
    a, b = fit(X, y, "entropy", n_classes=3), fit(X, y, "log_loss", n_classes=3)
    c = fit(X, y, "scaled_entropy", n_classes=3)
    for name in ("feature", "threshold", "value", "impurity"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    np.testing.assert_array_equal(a.threshold, c.threshold)
    np.testing.assert_allclose(c.impurity, a.impurity / 2)
    # min_impurity_decrease is read in the criterion's own units
    d = fit(X, y, "scaled_entropy", n_classes=3, min_impurity_decrease=0.02)
    e = fit(X, y, "entropy", n_classes=3, min_impurity_decrease=0.04)
    np.testing.assert_array_equal(d.threshold, e.threshold)


def test_weighted_median_definition():
    # the examples of scikit-learn's test_mae
    assert weighted_median([6, 7, 3, 4, 3], [0.6, 0.3, 0.1, 1.0, 0.3]) == 4
    assert weighted_median([6, 3], [1, 1]) == 4.5
    assert weighted_median([1, 1, 3, 1, 2], [3, 3, 2, 1, 2]) == 1


def test_absolute_error_toy_values_as_scikit_learn():
    """scikit-learn's own test_mae numbers: impurities and medians exactly."""
    X, y = [[3], [5], [3], [8], [5]], [6, 7, 3, 4, 3]
    tree = fit(X, y, "absolute_error", w=[0.6, 0.3, 0.1, 1.0, 0.3], max_leaf_nodes=2)
    np.testing.assert_allclose(tree.impurity, [2.5 / 2.3, 0.3 / 0.7, 1.2 / 1.6])
    np.testing.assert_array_equal(tree.value.ravel(), [4.0, 6.0, 4.0])
    tree = fit(X, y, "absolute_error", max_leaf_nodes=2)
    np.testing.assert_array_equal(tree.impurity, [1.4, 1.5, 4.0 / 3.0])
    np.testing.assert_array_equal(tree.value.ravel(), [4.0, 4.5, 4.0])
    tree = fit([[1], [2], [3], [4], [5]], [1, 1, 3, 1, 2], "absolute_error",
               w=[3, 3, 2, 1, 2], max_depth=1)
    np.testing.assert_allclose(tree.impurity, [6 / 11, 0, 3 / 5])
    np.testing.assert_array_equal(tree.value.ravel(), [1, 1, 2])


def test_poisson_refuses_negative_targets_and_a_zero_sum():
    X = np.arange(4.0).reshape(-1, 1)
    with pytest.raises(ValueError, match="negative"):
        fit(X, np.array([1.0, -1.0, 2.0, 0.0]), "poisson")
    with pytest.raises(ValueError, match="Sum of y is not positive"):
        fit(X, np.zeros(4), "poisson")


def test_poisson_never_leaves_a_child_with_zero_sum():
    """A child whose targets sum to 0 would predict 0, outside the Poisson mean's range:
    scikit-learn refuses such splits, so do we (test_poisson_zero_nodes)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(300, 3))
    y = np.where(X[:, 0] < 0.3, 0.0, rng.poisson(3.0, 300).astype(float))
    tree = fit(X, y, "poisson")
    leaves = tree.is_leaf
    assert np.all(tree.value[leaves, 0] > 0)
    # a lone zero target on the right: its sum, parent minus left, rounds to about 1e-15
    for seed in range(3):
        X = np.random.default_rng(seed).normal(size=(400, 4))
        y = np.abs(X @ [1.0, 0.5, 0.0, 2.0] + np.random.default_rng(seed).normal(size=400))
        y[y < 0.3] = 0.0
        tree = fit(X, y, "poisson")
        assert np.all(tree.value[tree.is_leaf, 0] > 0)
        assert np.all(np.isfinite(tree.impurity))


def _unique_best(X, y, w, criterion, n_classes, **rules):
    """The best split of these rows, or None when two splits tie (or none gains)."""
    splits = sorted(all_splits(X, y, w, criterion, n_classes, **rules), reverse=True)
    if not splits or splits[0][0] <= 1e-9 * max(1.0, abs(splits[0][0])):
        return None
    if len(splits) > 1 and splits[0][0] - splits[1][0] <= 1e-7 * abs(splits[0][0]):
        return None
    return splits[0]


def compare_where_unique(tree, sk, X, y, w, criterion, n_classes=None, **rules):
    """Walk both trees in parallel from the root: every node reached the same way has the same
    rows, so the same impurity, weight and value; below a node whose best split is unique both
    split it the same way (below a tie they may differ: not descended). ``rules`` are the
    oracle's split rules (``min_weight_leaf``...). Returns the number of splits compared."""
    s = sk.tree_
    stack = [(0, 0, np.arange(len(y)))]
    compared = 0
    while stack:
        i, j, idx = stack.pop()
        assert tree.impurity[i] == pytest.approx(s.impurity[j], rel=1e-9, abs=1e-12)
        assert tree.weighted_n_node_samples[i] == pytest.approx(s.weighted_n_node_samples[j])
        if tree.task == "regression":
            assert tree.value[i, 0] == pytest.approx(s.value[j, 0, 0], rel=1e-12)
        t_leaf, s_leaf = tree.first_child[i] < 0, s.children_left[j] < 0
        best = _unique_best(X[idx], y[idx], w[idx], criterion, n_classes, **rules)
        if t_leaf or s_leaf:
            assert t_leaf == s_leaf or best is None
            continue
        if best is None:
            continue
        assert tree.feature[i] == s.feature[j] == best[1]
        assert tree.threshold[i] == pytest.approx(s.threshold[j], rel=1e-6)
        compared += 1
        left = X[idx, s.feature[j]] <= s.threshold[j]
        stack.append((tree.first_child[i], s.children_left[j], idx[left]))
        stack.append((tree.first_child[i] + 1, s.children_right[j], idx[~left]))
    return compared


@pytest.mark.parametrize("criterion", ["squared_error", "poisson", "absolute_error"])
@pytest.mark.parametrize("seed", range(4))
def test_regression_matches_scikit_learn(criterion, seed):
    rng = np.random.default_rng(seed)
    n = 120
    X = rng.normal(size=(n, 3)).astype(np.float32).astype(np.float64)
    y = np.exp(0.5 * X[:, 0]) * 3 + rng.poisson(2, n)
    w = rng.uniform(0.5, 2.0, n)
    ours = fit(X, y, criterion, w, max_depth=3)
    theirs = SkRegressor(criterion=criterion, max_depth=3).fit(X, y, sample_weight=w)
    assert compare_where_unique(ours, theirs, X, y, w, criterion) >= 3


@pytest.mark.parametrize("criterion", ["entropy", "log_loss"])
@pytest.mark.parametrize("seed", range(4))
def test_classification_matches_scikit_learn(criterion, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(150, 4)).astype(np.float32).astype(np.float64)
    y = (X[:, 0] + 0.6 * X[:, 1] + 0.5 * rng.normal(size=150) > 0).astype(int)
    w = np.ones(150)
    ours = fit(X, y, criterion, n_classes=2, max_depth=3)
    theirs = SkClassifier(criterion=criterion, max_depth=3).fit(X, y)
    assert compare_where_unique(ours, theirs, X, y, w, criterion, 2) >= 3


# ------------------------------------------------------------------------------ multi-output


@pytest.mark.parametrize("criterion", ["gini", "log_loss", "squared_error", "poisson",
                                       "absolute_error"])
@settings(max_examples=20, **SETTINGS)
@given(seed=st.integers(0, 2**31), n=st.integers(8, 30))
def test_multi_output_root_split_matches_oracle(criterion, seed, n):
    """Several outputs: the impurity is the mean of the outputs' impurities and the split
    maximizes the decrease of their sum (scikit-learn's rule)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, 2)).astype(float)
    classification = criterion in ("gini", "log_loss")
    if classification:
        y = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 3, n)])
        n_classes = [2, 3]
    else:
        y = rng.integers(0 if criterion == "poisson" else -4, 6, size=(n, 2)).astype(float)
        y[0] = 1.0  # positive sums for Poisson
        n_classes = None
    w = np.ones(n)
    tree = fit(X, y, criterion, n_classes=n_classes, max_depth=1)
    assert tree.impurity[0] == pytest.approx(impurity(y, w, criterion, n_classes), abs=1e-12)
    splits = all_splits(X, y, w, criterion, n_classes)
    finite = [g for g, _, _ in splits if np.isfinite(g)]
    if tree.n_nodes == 1:
        assert not finite or max(finite) <= 1e-9
        return
    rows = node_rows(tree, X)
    gain = n * tree.impurity[0] - sum(len(rows[c]) * tree.impurity[c] for c in (1, 2))
    assert gain == pytest.approx(max(finite), rel=1e-7, abs=1e-9)
    if not classification:
        for c in (1, 2):
            for k in range(2):
                assert tree.value[c, k, 0] == pytest.approx(
                    node_value(y[rows[c], k], w[rows[c]], criterion))
    else:
        for c in (1, 2):
            np.testing.assert_allclose(tree.value[c, 1, :3], np.bincount(y[rows[c], 1],
                                                                         minlength=3))


@pytest.mark.parametrize("criterion", ["gini", "log_loss", "squared_error", "poisson",
                                       "absolute_error"])
def test_multi_output_toy_problem_as_scikit_learn(criterion):
    """scikit-learn's test_multioutput problem: the tree predicts its four cells exactly."""
    X = np.array([[-2, -1], [-1, -1], [-1, -2], [1, 1], [1, 2], [2, 1], [-2, 1], [-1, 1],
                  [-1, 2], [2, -1], [1, -1], [1, -2]], dtype=float)
    y = np.array([[-1, 0], [-1, 0], [-1, 0], [1, 1], [1, 1], [1, 1], [-1, 2], [-1, 2],
                  [-1, 2], [1, 3], [1, 3], [1, 3]])
    T = np.array([[-1, -1], [1, 1], [-1, 1], [1, -1]], dtype=float)
    expected = np.array([[-1, 0], [1, 1], [-1, 2], [1, 3]])
    if criterion in ("gini", "log_loss"):
        tree = fit(X, np.column_stack([(y[:, 0] + 1) // 2, y[:, 1]]), criterion,
                   n_classes=[2, 4])
        predicted = np.argmax(tree.value[tree.apply(T)], axis=2)
        np.testing.assert_array_equal(predicted, np.column_stack([(expected[:, 0] + 1) // 2,
                                                                  expected[:, 1]]))
    else:
        if criterion == "poisson":
            y = np.where(y <= 0, y + 4, y)
            expected = np.where(expected <= 0, expected + 4, expected)
        tree = fit(X, y.astype(float), criterion)
        np.testing.assert_allclose(tree.value[tree.apply(T)][:, :, 0], expected)


@pytest.mark.parametrize("criterion", ["gini", "log_loss", "squared_error", "poisson",
                                       "absolute_error"])
@pytest.mark.parametrize("budget", [2, 5, 11])
def test_leaf_budget_grows_scikit_learns_best_first_tree(criterion, budget):
    """With max_leaf_nodes, scikit-learn splits the leaf of largest weighted impurity decrease
    next: treebound's default growth under a budget (like top_down) makes the same tree."""
    rng = np.random.default_rng(budget)
    n = 300
    X = rng.normal(size=(n, 3)).astype(np.float32).astype(np.float64)
    score = X[:, 0] - 0.8 * X[:, 1] + 0.5 * np.sin(3 * X[:, 2])
    w = np.ones(n)
    if criterion in ("gini", "log_loss"):
        y = np.digitize(score + 0.3 * rng.normal(size=n), [-0.5, 0.5])
        ours = fit(X, y, criterion, n_classes=3, max_leaf_nodes=budget)
        theirs = SkClassifier(criterion=criterion, max_leaf_nodes=budget).fit(X, y)
        n_classes = 3
    else:
        y = np.exp(0.5 * score) + 0.2 * rng.uniform(size=n)
        ours = fit(X, y, criterion, max_leaf_nodes=budget)
        theirs = SkRegressor(criterion=criterion, max_leaf_nodes=budget).fit(X, y)
        n_classes = None
    assert ours.n_leaves == theirs.get_n_leaves() == budget
    assert compare_where_unique(ours, theirs, X, y, w, criterion, n_classes) >= budget - 2
