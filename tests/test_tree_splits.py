"""The growth kernels against the naive split oracle (tests/_oracles.py)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _oracles import all_splits, best_gain, node_samples, split_gain
from treebound import DecisionTreeClassifier, DecisionTreeRegressor

CRITERIA = ["gini", "entropy", "sqrt", "misclassification"]


@st.composite
def small_problem(draw, max_classes=4):
    n = draw(st.integers(4, 40))
    d = draw(st.integers(1, 4))
    levels = draw(st.integers(2, 6))  # few distinct values: ties and duplicates on purpose
    X = np.array(draw(st.lists(st.integers(0, levels), min_size=n * d, max_size=n * d)),
                 dtype=float).reshape(n, d)
    n_classes = draw(st.integers(2, max_classes))
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    if len(np.unique(y)) < 2:
        y[0], y[-1] = 0, 1
    return X, y


def _check_every_split_is_optimal(model, X, y, criterion, n_classes, categorical=(),
                                  multiway=False, min_samples_leaf=1):
    tree = model.tree_.flat
    X_enc = model.encoder_.transform(X) if hasattr(model, "encoder_") else X
    w = np.ones(len(y))
    samples = node_samples(tree, X_enc)
    for node in range(tree.n_nodes):
        idx = samples[node]
        kw = dict(criterion=criterion, n_classes=n_classes, categorical=categorical,
                  min_samples_leaf=min_samples_leaf, multiway=multiway)
        oracle = best_gain(X_enc[idx], y[idx], w[idx], **kw)
        if tree.first_child[node] >= 0:
            got = split_gain(tree, node, samples, y, w, criterion, n_classes)
            assert got == pytest.approx(oracle, rel=1e-9, abs=1e-9), node
        else:
            # a leaf: pure, or no test left that decreases the impurity (full growth, no other
            # stopping rule); a test of zero gain (up to rounding) is not progress
            pure = len(np.unique(y[idx])) <= 1 if criterion != "squared_error" else \
                np.ptp(y[idx]) == 0
            assert pure or oracle <= 1e-12, node


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=small_problem(), criterion=st.sampled_from(CRITERIA),
       splitter=st.sampled_from(["best", "hist"]))
def test_numeric_splits_match_oracle(problem, criterion, splitter):
    X, y = problem
    n_classes = len(np.unique(y))
    _, y_idx = np.unique(y, return_inverse=True)
    model = DecisionTreeClassifier(criterion=criterion, splitter=splitter).fit(X, y)
    _check_every_split_is_optimal(model, X, y_idx, criterion, n_classes)


@settings(max_examples=30, deadline=None)
@given(problem=small_problem(max_classes=3), min_samples_leaf=st.integers(1, 4))
def test_min_samples_leaf_respected_and_optimal(problem, min_samples_leaf):
    X, y = problem
    _, y_idx = np.unique(y, return_inverse=True)
    model = DecisionTreeClassifier(min_samples_leaf=min_samples_leaf).fit(X, y)
    tree = model.tree_.flat
    assert tree.n_node_samples[tree.first_child < 0].min() >= min(min_samples_leaf, len(y))
    samples = node_samples(tree, X)
    w = np.ones(len(y))
    for node in np.flatnonzero(tree.first_child >= 0):
        idx = samples[node]
        oracle = best_gain(X[idx], y_idx[idx], w[idx], criterion="gini",
                           n_classes=len(np.unique(y)), min_samples_leaf=min_samples_leaf)
        got = split_gain(tree, node, samples, y_idx, w, "gini", len(np.unique(y)))
        assert got == pytest.approx(oracle, rel=1e-9, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(problem=small_problem())
def test_regression_splits_match_oracle(problem):
    X, y = problem
    y = y.astype(float) * 1.5 + X[:, 0]
    model = DecisionTreeRegressor().fit(X, y)
    tree = model.tree_.flat
    samples = node_samples(tree, X)
    w = np.ones(len(y))
    for node in range(tree.n_nodes):
        idx = samples[node]
        oracle = best_gain(X[idx], y[idx], w[idx], criterion="squared_error", n_classes=0)
        if tree.first_child[node] >= 0:
            got = split_gain(tree, node, samples, y, w, "squared_error", 0)
            assert got == pytest.approx(oracle, rel=1e-7, abs=1e-7)
        else:
            # a leaf is pure or no split lowers its squared error; a zero gain can come out
            # of the oracle's sums as -1e-14 (hypothesis found such a leaf)
            assert np.ptp(y[idx]) == 0 or oracle <= 1e-7
        assert tree.value[node, 0] == pytest.approx(y[idx].mean())


@st.composite
def categorical_problem(draw):
    n = draw(st.integers(6, 40))
    q = draw(st.integers(2, 7))
    n_classes = draw(st.integers(2, 4))
    cats = draw(st.lists(st.integers(0, q - 1), min_size=n, max_size=n))
    num = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    if len(np.unique(y)) < 2:
        y[0], y[-1] = 0, 1
    frame = pd.DataFrame({"color": pd.Categorical([f"c{c}" for c in cats]),
                          "size": np.array(num, dtype=float)})
    return frame, y


@settings(max_examples=50, deadline=None)
@given(problem=categorical_problem(), criterion=st.sampled_from(["gini", "entropy"]),
       multiway=st.booleans())
def test_categorical_splits_match_exhaustive_oracle(problem, criterion, multiway):
    """Breiman's ordering (two classes) and the exhaustive search (<= 10 categories) are optimal."""
    frame, y = problem
    _, y_idx = np.unique(y, return_inverse=True)
    model = DecisionTreeClassifier(
        criterion=criterion, categorical_split="multiway" if multiway else "binary").fit(frame, y)
    _check_every_split_is_optimal(model, frame, y_idx, criterion, len(np.unique(y)),
                                  categorical=(0,), multiway=multiway)


def test_one_vs_rest_categorical_search_is_valid_beyond_exhaustive_limit():
    """More than 10 categories and 3 classes: the heuristic must still return a valid,
    non-trivial subset test that is at least as good as the best one-vs-rest Breiman cut."""
    rng = np.random.default_rng(0)
    n, q = 300, 14
    cats = rng.integers(0, q, n)
    y = (cats % 3 + (rng.random(n) < 0.2)) % 3
    frame = pd.DataFrame({"c": pd.Categorical([f"k{c:02d}" for c in cats])})
    model = DecisionTreeClassifier(max_depth=1).fit(frame, y)
    tree = model.tree_.flat
    assert tree.category_offset[0] >= 0 and tree.n_children[0] == 2
    samples = node_samples(tree, model.encoder_.transform(frame))
    got = split_gain(tree, 0, samples, y, np.ones(n), "gini", 3)
    # oracle over the orderings the heuristic promises (each class's rate)
    X_enc = model.encoder_.transform(frame)
    best = -np.inf
    for k in range(3):
        rates = [np.mean(y[X_enc[:, 0] == c] == k) for c in range(q)]
        order = np.argsort(rates, kind="stable")
        for cut in range(1, q):
            mask = np.isin(X_enc[:, 0], order[:cut])
            gains = [g for g, _, _ in all_splits(mask[:, None].astype(float), y, np.ones(n),
                                                 criterion="gini", n_classes=3)]
            best = max(best, max(gains))
    assert got >= best - 1e-9


def test_unweighted_and_unit_weighted_fits_are_identical():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    a = DecisionTreeClassifier().fit(X, y)
    b = DecisionTreeClassifier().fit(X, y, sample_weight=np.ones(200))
    assert a.to_dict()["tree"] == b.to_dict()["tree"]


def test_integer_weights_equal_repeated_rows():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 20, size=(60, 3)).astype(float)
    y = rng.integers(0, 3, 60)
    weights = rng.integers(0, 4, 60)
    weights[0] = 1
    a = DecisionTreeClassifier(splitter="hist").fit(X, y, sample_weight=weights)
    b = DecisionTreeClassifier(splitter="hist").fit(np.repeat(X, weights, axis=0),
                                                    np.repeat(y, weights))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))
