"""Missing values (NaN) on the extended growth path: the absolute_error and poisson criteria,
min_weight_fraction_leaf, monotonic constraints and random thresholds, each against the naive
oracle (tests/_criteria_oracles.py: every cut with the missing rows on each side, and the test
"value present / missing")."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _criteria_oracles import all_splits, split_gain
from test_tree_criteria import fit, node_rows
from treebound import DecisionTreeClassifier, DecisionTreeRegressor

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
REGRESSION = ("squared_error", "absolute_error", "poisson")


@st.composite
def problem_with_holes(draw, classification=False, positive=False):
    """Few distinct values (ties), about a third of them missing, weights or not."""
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(6, 30))
    d = draw(st.integers(1, 3))
    X = rng.integers(0, draw(st.integers(2, 6)), size=(n, d)).astype(float)
    X[rng.random((n, d)) < draw(st.sampled_from([0.1, 0.35, 0.6]))] = np.nan
    if classification:
        y = rng.integers(0, 2, n)
        y[0], y[-1] = 0, 1
    else:
        y = rng.integers(0 if positive else -5, 8, size=n).astype(float)
        if positive and y.sum() == 0:
            y[0] = 1.0
    w = rng.choice([0.5, 1.0, 2.0, 3.0], size=n) if draw(st.booleans()) else np.ones(n)
    return X, y, w


def _gain(tree, rows, w, node):
    children = (tree.first_child[node], tree.first_child[node] + 1)
    return (w[rows[node]].sum() * tree.impurity[node]
            - sum(w[rows[c]].sum() * tree.impurity[c] for c in children))


def _check_every_split(tree, X, y, w, criterion, n_classes, min_weight_leaf,
                       min_samples_leaf=1):
    """Every split of the tree has the best gain the oracle finds in its node's rows."""
    rows = node_rows(tree, X)
    assert all(len(r) == n for r, n in zip(rows, tree.n_node_samples, strict=True))
    for node in np.flatnonzero(tree.first_child >= 0):
        r = rows[node]
        splits = all_splits(X[r], y[r], w[r], criterion, n_classes,
                            min_samples_leaf=min_samples_leaf, min_weight_leaf=min_weight_leaf)
        best = max(g for g, _, _ in splits if np.isfinite(g))
        scale = max(1.0, w[r].sum() * abs(tree.impurity[node]))
        assert _gain(tree, rows, w, node) == pytest.approx(best, rel=1e-7, abs=1e-9 * scale)


@pytest.mark.parametrize("criterion", REGRESSION)
@settings(max_examples=30, **SETTINGS)
@given(data=st.data(), fraction=st.sampled_from([0.0, 0.1, 0.25]),
       min_samples_leaf=st.integers(1, 3))
def test_regression_splits_with_missing_rows_match_the_oracle(criterion, data, fraction,
                                                              min_samples_leaf):
    X, y, w = data.draw(problem_with_holes(positive=criterion == "poisson"))
    tree = fit(X, y, criterion, w, max_depth=3, min_weight_fraction_leaf=fraction,
               min_samples_leaf=min_samples_leaf)
    _check_every_split(tree, X, y, w, criterion, None, fraction * w.sum(), min_samples_leaf)
    if criterion == "absolute_error":  # the leaves predict the weighted median of their rows
        from _criteria_oracles import node_value

        rows = node_rows(tree, X)
        for leaf in np.flatnonzero(tree.is_leaf):
            assert tree.value[leaf, 0] == node_value(y[rows[leaf]], w[rows[leaf]], criterion)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@settings(max_examples=25, **SETTINGS)
@given(data=st.data(), fraction=st.sampled_from([0.1, 0.3]))
def test_min_weight_fraction_leaf_with_missing_rows(criterion, data, fraction):
    X, y, w = data.draw(problem_with_holes(classification=True))
    tree = fit(X, y, criterion, w, n_classes=2, min_weight_fraction_leaf=fraction)
    _check_every_split(tree, X, y, w, criterion, 2, fraction * w.sum())
    assert tree.weighted_n_node_samples[tree.is_leaf].min() >= fraction * w.sum() - 1e-12


@pytest.mark.parametrize("criterion", [*REGRESSION, "gini"])
@settings(max_examples=25, **SETTINGS)
@given(data=st.data())
def test_monotonic_root_split_with_missing_rows_is_the_best_valid_one(criterion, data):
    classification = criterion == "gini"
    X, y, w = data.draw(problem_with_holes(classification, positive=criterion == "poisson"))
    cst = (1, -1, 1)[:X.shape[1]]
    n_classes = 2 if classification else None
    tree = fit(X, y, criterion, w, n_classes=n_classes, max_depth=1, monotonic_cst=cst)
    splits = all_splits(X, y, w, criterion, n_classes, monotonic=cst,
                        classification=classification)
    finite = [g for g, _, _ in splits if np.isfinite(g)]
    if tree.n_nodes == 1:
        assert not finite or max(finite) <= 1e-9 * max(1.0, w.sum() * tree.impurity[0])
        return
    rows = node_rows(tree, X)
    assert _gain(tree, rows, w, 0) == pytest.approx(max(finite), rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error", "gini"])
@settings(max_examples=25, **SETTINGS)
@given(data=st.data(), seed=st.integers(0, 1000))
def test_random_thresholds_send_missing_rows_to_the_better_side(criterion, data, seed):
    """At its random threshold, every split sends its missing rows where the gain is larger
    (the other side is never strictly better), and the threshold lies in the node's present
    values (infinite for the present / missing test, when they are all equal)."""
    classification = criterion == "gini"
    X, y, w = data.draw(problem_with_holes(classification))
    n_classes = 2 if classification else None
    tree = fit(X, y, criterion, w, n_classes=n_classes, splitter="random", seed=seed)
    rows = node_rows(tree, X)
    for node in np.flatnonzero(tree.first_child >= 0):
        r = rows[node]
        col = X[r, tree.feature[node]]
        nan = np.isnan(col)
        present = col[~nan]
        threshold = tree.threshold[node]
        if threshold == np.inf:
            assert nan.any() and np.unique(present).size == 1
        else:
            assert present.min() <= threshold < present.max()
        cut = col <= threshold
        if not nan.any():
            continue
        goes_left = tree.missing_child[node] == 0
        chosen = split_gain(cut | nan if goes_left else cut, y[r], w[r], criterion, n_classes)
        other = split_gain(cut if goes_left else cut | nan, y[r], w[r], criterion, n_classes)
        assert chosen is not None
        if other is not None:
            assert chosen >= other - 1e-9 * max(1.0, abs(other))
        # the missing rows went where the tree says
        child = tree.first_child[node] + tree.missing_child[node]
        assert set(r[nan]) <= set(rows[child])


@pytest.mark.parametrize("options", [dict(criterion="absolute_error"),
                                     dict(criterion="poisson"), dict(splitter="random"),
                                     dict(min_weight_fraction_leaf=0.01),
                                     dict(monotonic_cst=[1, 0])])
def test_nan_at_prediction_without_nan_in_training_goes_to_the_larger_child(options):
    """scikit-learn's ``missing_go_to_left = n_left > n_right`` on the extended path too."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = np.exp(X[:, 0]) + rng.random(200)
    model = DecisionTreeRegressor(max_depth=3, random_state=0, **options).fit(X, y)
    tree = model.tree_
    internal = np.flatnonzero(tree.children_left >= 0)
    larger_left = (tree.n_node_samples[tree.children_left[internal]]
                   > tree.n_node_samples[tree.children_right[internal]])
    np.testing.assert_array_equal(tree.missing_go_to_left[internal], larger_left)
    leaves = model.apply(np.full((1, 2), np.nan))
    node = 0
    while tree.children_left[node] >= 0:
        node = (tree.children_left[node] if tree.missing_go_to_left[node]
                else tree.children_right[node])
    assert leaves[0] == node


def test_missing_rows_with_a_constraint_and_weights_in_a_classifier():
    """NaN with monotonic_cst and min_weight_fraction_leaf through the estimator: the
    constraint holds on rows without NaN, NaN rows follow the stored routing."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 3))
    y = (X[:, 0] - X[:, 1] + rng.normal(size=500) > 0).astype(int)
    X[rng.random(X.shape) < 0.3] = np.nan
    model = DecisionTreeClassifier(monotonic_cst=[1, -1, 0], min_weight_fraction_leaf=0.02,
                                   random_state=0).fit(X, y)
    probe = rng.normal(size=(300, 3))
    base = model.predict_proba(probe)[:, 1]
    for f, sign in ((0, 1), (1, -1)):
        moved = probe.copy()
        moved[:, f] += 5
        assert np.all(sign * (model.predict_proba(moved)[:, 1] - base) >= 0)
    assert model.score(np.nan_to_num(X), y) > 0.5
