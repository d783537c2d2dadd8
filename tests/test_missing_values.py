"""Missing values (NaN) in the growth kernels against the naive oracle (tests/_oracles.py: every
cut with the missing rows sent each way, and the present / missing test), and their routing."""

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from _oracles import best_gain, node_samples, split_gain
from treebound import DecisionTreeClassifier, DecisionTreeRegressor
from treebound._flat._feature_coding import FEATURE_THRESHOLD

CRITERIA = ["gini", "entropy", "sqrt", "misclassification"]


@st.composite
def problem_with_holes(draw, max_classes=4, continuous=False):
    n = draw(st.integers(4, 40))
    d = draw(st.integers(1, 3))
    if continuous:
        X = np.array(draw(st.lists(st.floats(-4, 4, allow_nan=False, width=32), min_size=n * d,
                                   max_size=n * d)), dtype=float).reshape(n, d)
    else:
        levels = draw(st.integers(1, 6))  # ties and duplicates on purpose
        X = np.array(draw(st.lists(st.integers(0, levels), min_size=n * d, max_size=n * d)),
                     dtype=float).reshape(n, d)
    holes = np.array(draw(st.lists(st.booleans(), min_size=n * d, max_size=n * d))).reshape(n, d)
    X[holes] = np.nan
    n_classes = draw(st.integers(2, max_classes))
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    if len(np.unique(y)) < 2:
        y[0], y[-1] = 0, 1
    return X, y


def _check_splits(model, X, y, w, criterion, n_classes, min_samples_leaf=1, rel=1e-9,
                  full=True):
    tree = model.tree_
    samples = node_samples(tree, X)
    # As in scikit-learn, the present values of a column spanning at most FEATURE_THRESHOLD
    # are one value (only "present / missing" can split it); the oracle sees them so too.
    X = X.copy()
    for col in X.T:
        present = ~np.isnan(col)
        if present.any() and np.ptp(col[present]) <= FEATURE_THRESHOLD:
            col[present] = col[present].min()
    for node in range(tree.n_nodes):
        idx = samples[node]
        oracle = best_gain(X[idx], y[idx], w[idx], criterion=criterion, n_classes=n_classes,
                           min_samples_leaf=min_samples_leaf)
        if tree.first_child[node] >= 0:
            got = split_gain(tree, node, samples, y, w, criterion, n_classes)
            assert got == pytest.approx(oracle, rel=rel, abs=1e-9), node
        elif full and criterion != "squared_error":
            assert len(np.unique(y[idx])) <= 1 or oracle <= 1e-9 or \
                len(idx) < 2 * min_samples_leaf, node


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problem_with_holes(), criterion=st.sampled_from(CRITERIA),
       splitter=st.sampled_from(["best", "hist"]), min_samples_leaf=st.integers(1, 3))
def test_every_split_is_the_best_with_missing_rows_on_either_side(problem, criterion, splitter,
                                                                  min_samples_leaf):
    X, y = problem
    _, y_idx = np.unique(y, return_inverse=True)
    model = DecisionTreeClassifier(criterion=criterion, splitter=splitter,
                                   min_samples_leaf=min_samples_leaf).fit(X, y)
    _check_splits(model, X, y_idx, np.ones(len(y)), criterion, len(np.unique(y)),
                  min_samples_leaf)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problem_with_holes(max_classes=3, continuous=True),
       criterion=st.sampled_from(CRITERIA), weighted=st.booleans())
def test_sorted_scans_and_weights_with_missing_rows(problem, criterion, weighted):
    """Continuous values (the sorted scans) and unequal weights (the counted histograms)."""
    X, y = problem
    _, y_idx = np.unique(y, return_inverse=True)
    w = np.linspace(0.5, 2.0, len(y)) if weighted else np.ones(len(y))
    model = DecisionTreeClassifier(criterion=criterion).fit(X, y, sample_weight=w)
    _check_splits(model, X, y_idx, w, criterion, len(np.unique(y)), rel=1e-7)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problem_with_holes(continuous=True), splitter=st.sampled_from(["best", "hist"]))
@example(problem=(np.array([[0.0], [5.3e-11], [np.nan], [0.0], [5.3e-11]]),
                  np.array([0, 1, 1, 0, 0])), splitter="best")  # a column under the threshold
def test_regression_splits_with_missing_rows(problem, splitter):
    X, y = problem
    y = y.astype(float) * 1.5 + np.nan_to_num(X[:, 0])
    model = DecisionTreeRegressor(splitter=splitter).fit(X, y)
    _check_splits(model, X, y, np.ones(len(y)), "squared_error", 0, rel=1e-7)
    samples = node_samples(model.tree_, X)
    for node in range(model.tree_.n_nodes):
        assert model.tree_.value[node, 0] == pytest.approx(y[samples[node]].mean())


@pytest.mark.parametrize("growth", ["top_down", "best_first", "purest_children"])
@pytest.mark.parametrize("splitter", ["best", "hist"])
def test_every_growth_order_and_a_large_node(growth, splitter):
    """Many rows and distinct values: presorted rows (exact), histogram blocks and their
    subtraction (hist), under a leaf budget."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    X[rng.random(X.shape) < 0.25] = np.nan
    X[y == 1, 3] = np.nan  # a feature whose missingness predicts the class
    model = DecisionTreeClassifier(growth=growth, splitter=splitter, max_leaf_nodes=12,
                                   max_bins=16).fit(X, y)
    if splitter == "best":
        _check_splits(model, X, y, np.ones(len(y)), "gini", 2, full=False)
    assert model.tree_.feature[0] == 3
    assert model.tree_.threshold[0] == np.inf  # value present / missing
    assert model.score(X, y) > 0.8


def test_scikit_learn_examples():
    """The cases of scikit-learn's test_missing_values_best_splitter_* tests."""
    X = np.array([[np.nan] * 4 + [0, 1, 2, 3, 8, 9, 11, 12]]).T
    y = np.array([0] * 4 + [1] * 4 + [2] * 4)
    model = DecisionTreeClassifier(max_depth=2).fit(X, y)
    assert model.predict(np.array([[np.nan, 3, 12]]).T).tolist() == [0, 1, 2]
    # missing rows alone in a class: the test "present / missing" sends them right
    X = np.array([[np.nan] * 4 + [0, 1, 2, 3, 4, 5]]).T
    y = np.array([0] * 4 + [1] * 6)
    model = DecisionTreeClassifier(max_depth=2).fit(X, y)
    assert model.predict(np.array([[np.nan, 5, np.nan]]).T).tolist() == [0, 1, 0]
    assert model.tree_.threshold[0] == np.inf and model.tree_.missing_child[0] == 1
    # one missing row per class: the tie keeps the missing rows on the right
    X = np.array([[1, 2, 3, 5, np.nan, 10, 20, 30, 60, np.nan]]).T
    y = np.array([0] * 5 + [1] * 5)
    model = DecisionTreeClassifier(max_depth=1).fit(X, y)
    assert model.predict(np.array([[np.nan, 2.3, 34.2]]).T).tolist() == [1, 0, 1]
    # missing rows with the class of the high values: they go left only when that is better
    X = np.array([[np.nan] * 4 + [0, 1, 2, 3, 4, 5]]).T
    y = np.array([0] * 4 + [1] * 4 + [0] * 2)
    model = DecisionTreeClassifier(max_depth=1).fit(X, y)
    assert model.tree_.missing_child[0] == 1  # with 4 and 5, on the right


def test_a_node_without_missing_rows_sends_them_to_the_child_with_more_rows():
    """scikit-learn's ``missing_go_to_left = n_left > n_right`` (ties: right)."""
    X = np.array([[0, 1, 2, 3, 8, 9, 11, 12, 15]], dtype=float).T
    y = np.array([0.1, 0.2, 0.3, 0.2, 1.4, 1.4, 1.5, 1.6, 2.6])
    model = DecisionTreeRegressor(max_depth=1).fit(X, y)
    assert model.predict([[np.nan]]) == pytest.approx(y[-5:].mean())
    model = DecisionTreeRegressor(max_depth=1).fit(X[:-1], y[:-1])  # 4 rows each side
    assert model.predict([[np.nan]]) == pytest.approx(y[4:8].mean())
    tree = model.tree_
    assert tree.missing_go_to_left.tolist() == [0, 0, 0]


def test_missing_values_at_prediction_follow_missing_child_at_every_node():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)
    X[rng.random(X.shape) < 0.3] = np.nan
    model = DecisionTreeClassifier(max_depth=4).fit(X, y)
    tree = model.tree_
    probe = rng.normal(size=(300, 3))
    probe[rng.random(probe.shape) < 0.5] = np.nan
    leaves = model.apply(probe)
    for row, leaf in zip(probe, leaves, strict=True):  # the naive walk
        node = 0
        while tree.first_child[node] >= 0:
            x = row[tree.feature[node]]
            slot = tree.missing_child[node] if np.isnan(x) else int(x > tree.threshold[node])
            node = tree.first_child[node] + slot
        assert node == leaf
    path = model.decision_path(probe)
    assert (path[np.arange(len(leaves)), leaves] == 1).all()


def test_infinity_is_refused_and_nan_targets_too():
    X = np.array([[0.0], [1.0], [np.inf]])
    with pytest.raises(ValueError, match="infinity"):
        DecisionTreeClassifier().fit(X, [0, 1, 1])
    with pytest.raises(ValueError, match="infinity"):
        DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], [0, 1, 1]).predict(X)
