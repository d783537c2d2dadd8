"""Same splits as scikit-learn wherever the best split is unique (SPEC section 1)."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from _oracles import all_splits
from treebound import DecisionTreeClassifier, DecisionTreeRegressor


def _unique_best(X, y, criterion, n_classes) -> bool:
    """The best gain beats every other candidate (of any feature) by a clear margin."""
    w = np.ones(len(y))
    gains = sorted((g for g, _, _ in all_splits(X, y, w, criterion=criterion,
                                                n_classes=n_classes)), reverse=True)
    if len(gains) < 2:
        return len(gains) == 1
    return gains[0] - gains[1] > 1e-7 * max(1.0, abs(gains[0]))


def _compare(ours, theirs, X, y, criterion, n_classes):
    """Walk both trees in parallel; where the best split is unique they must agree.
    Returns the number of nodes compared."""
    t, s = ours.tree_, theirs.tree_
    compared = 0
    stack = [(0, 0, np.arange(len(y)))]
    while stack:
        i, j, idx = stack.pop()
        s_leaf = s.children_left[j] < 0
        t_leaf = t.first_child[i] < 0
        if s_leaf or t_leaf:
            if s_leaf and t_leaf:
                continue
            # one stopped: only allowed when no unique best split exists
            assert not _unique_best(X[idx], y[idx], criterion, n_classes)
            continue
        if not _unique_best(X[idx], y[idx], criterion, n_classes):
            continue  # a tie: the two libraries may break it differently below this node
        assert t.feature[i] == s.feature[j]
        assert t.threshold[i] == pytest.approx(s.threshold[j], rel=1e-6)
        compared += 1
        go_left = X[idx, s.feature[j]] <= s.threshold[j]
        stack.append((t.first_child[i], s.children_left[j], idx[go_left]))
        stack.append((t.first_child[i] + 1, s.children_right[j], idx[~go_left]))
    return compared


def _data(seed, n=160, d=4, n_classes=3):
    rng = np.random.default_rng(seed)
    # float32-representable values: scikit-learn splits on float32 copies of X
    X = rng.normal(size=(n, d)).astype(np.float32).astype(np.float64)
    score = X[:, 0] - 0.7 * X[:, 1] + 0.4 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(6))
def test_depth_first_matches_sklearn_on_unique_splits(criterion, seed):
    X, y = _data(seed)
    ours = DecisionTreeClassifier(criterion=criterion).fit(X, y)
    theirs = SkClassifier(criterion=criterion, random_state=0).fit(X, y)
    assert _compare(ours, theirs, X, y, criterion, 3) >= 5


@pytest.mark.parametrize("seed", range(6))
def test_top_down_with_leaf_budget_matches_sklearn(seed):
    """scikit-learn grows best-first by weighted impurity decrease: the same order as top_down."""
    X, y = _data(seed, n=400)
    for k in (2, 5, 9):
        ours = DecisionTreeClassifier(growth="top_down", max_leaf_nodes=k).fit(X, y)
        theirs = SkClassifier(max_leaf_nodes=k, random_state=0).fit(X, y)
        assert ours.get_n_leaves() == theirs.get_n_leaves() == k
        assert _compare(ours, theirs, X, y, "gini", 3) >= k - 2
        np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_regressor_matches_sklearn():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(200, 3)).astype(np.float32).astype(np.float64)
    y = X[:, 0] ** 2 + X[:, 1] + 0.1 * rng.normal(size=200)
    for k in (None, 12):
        ours = DecisionTreeRegressor(max_leaf_nodes=k, growth="top_down").fit(X, y)
        theirs = SkRegressor(max_leaf_nodes=k, random_state=0).fit(X, y)
        np.testing.assert_allclose(ours.predict(X), theirs.predict(X))
