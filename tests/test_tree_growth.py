"""Growth policies, stopping rules and the invariants of SPEC section 1."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _oracles import impurity_mass, training_error
from treebound import DecisionTreeClassifier, DecisionTreeRegressor


def _two_groups():
    """Group A (x0 = 0, 100 rows): 5 ones at x1 = 0..4, 95 zeros. Group B (x0 = 1, 20 rows):
    16 ones at x2 = 1..16, 4 zeros at x2 = 17..20."""
    XA = np.column_stack([np.zeros(100), np.arange(100.0), np.zeros(100)])
    yA = (np.arange(100) < 5).astype(int)
    XB = np.column_stack([np.ones(20), np.full(20, 200.0), np.arange(1.0, 21.0)])
    yB = (np.arange(1, 21) <= 16).astype(int)
    return np.vstack([XA, XB]), np.concatenate([yA, yB])


def test_best_first_differs_from_top_down_as_spec_says():
    """Hand-computed case (Gini mass N * 2p(1-p)).

    Root: 21 ones / 99 zeros, mass 2*21*99/120 = 34.65; the group split x0 leaves A (mass
    2*5*95/100 = 9.5) and B (mass 2*16*4/20 = 6.4), gain 18.75, more than any other test
    (isolating A's ones on x1: right side 16 ones / 99 zeros, mass 27.55, gain 7.1).
    Then A's best split (pure children) gains 9.5 = 0.095 per example and B's gains 6.4 = 0.32
    per example. TopDown takes the larger gain (A), BestFirst the larger gain per example (B).
    """
    X, y = _two_groups()
    assert impurity_mass([99, 21], "gini") == pytest.approx(34.65)
    assert impurity_mass([95, 5], "gini") == pytest.approx(9.5)
    assert impurity_mass([4, 16], "gini") == pytest.approx(6.4)
    top = DecisionTreeClassifier(growth="top_down", max_leaf_nodes=3).fit(X, y).tree_.flat
    best = DecisionTreeClassifier(growth="best_first", max_leaf_nodes=3).fit(X, y).tree_.flat
    for tree in (top, best):
        assert tree.feature[0] == 0 and tree.n_leaves == 3
    # which root child was split: A is child slot 0 (x0 <= 0.5), B slot 1
    assert top.first_child[top.first_child[0]] >= 0 and top.first_child[top.first_child[0] + 1] < 0
    assert top.feature[top.first_child[0]] == 1
    assert best.first_child[best.first_child[0]] < 0 and best.first_child[best.first_child[0] + 1] >= 0
    assert best.feature[best.first_child[0] + 1] == 2


def test_depth_first_with_budget_behaves_like_top_down():
    X, y = _two_groups()
    a = DecisionTreeClassifier(growth="depth_first", max_leaf_nodes=3).fit(X, y)
    b = DecisionTreeClassifier(growth="top_down", max_leaf_nodes=3).fit(X, y)
    assert a.to_dict()["tree"] == b.to_dict()["tree"]


def test_purest_children_picks_lowest_normalised_child_impurity():
    """Group P (x0 = 0, 17 rows): x1 = 0 holds 6 ones / 4 zeros, x1 = 1 holds 7 ones. Group Q
    (x0 = 1, 99 rows): x2 = 0 holds 57 zeros, x2 = 1 holds 12 ones / 30 zeros. The root splits on
    x0 (gain 12.02 against at most 10.41 for any other test). Then (Gini masses):

    * P: mass 2*13*4/17 = 6.118, best split leaves 4.8 + 0 -> gain 1.318 (0.0775 per row),
      normalised child impurity 4.8/17 = 0.282;
    * Q: mass 2*12*87/99 = 21.091, best split leaves 0 + 17.143 -> gain 3.948 (0.0399 per row),
      normalised child impurity 17.143/99 = 0.173.

    top_down splits Q (3.95 > 1.32), best_first splits P (0.0775 > 0.0399), purest_children
    splits Q (0.173 < 0.282): the three orders of SPEC section 1 are really different.
    """
    rows = ([(0, 0, 2, 1)] * 6 + [(0, 0, 2, 0)] * 4 + [(0, 1, 2, 1)] * 7
            + [(1, 2, 0, 0)] * 57 + [(1, 2, 1, 1)] * 12 + [(1, 2, 1, 0)] * 30)
    data = np.array(rows, dtype=float)
    X, y = data[:, :3], data[:, 3].astype(int)
    assert impurity_mass([4, 13], "gini") == pytest.approx(6.1176, abs=1e-4)
    assert impurity_mass([87, 12], "gini") == pytest.approx(21.0909, abs=1e-4)
    split_group = {}
    for growth in ("top_down", "best_first", "purest_children"):
        tree = DecisionTreeClassifier(growth=growth, max_leaf_nodes=3).fit(X, y).tree_.flat
        assert tree.feature[0] == 0
        p_node, q_node = tree.first_child[0], tree.first_child[0] + 1
        assert (tree.first_child[p_node] >= 0) != (tree.first_child[q_node] >= 0)
        split_group[growth] = "P" if tree.first_child[p_node] >= 0 else "Q"
    assert split_group == {"top_down": "Q", "best_first": "P", "purest_children": "Q"}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), growth=st.sampled_from(["top_down", "best_first",
                                                              "purest_children"]))
def test_training_error_never_increases_with_a_split(seed, growth):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] * X[:, 1] + 0.5 * rng.normal(size=120) > 0).astype(int)
    errors = []
    for leaves in range(2, 16):
        model = DecisionTreeClassifier(growth=growth, max_leaf_nodes=leaves).fit(X, y)
        assert model.get_n_leaves() <= leaves
        errors.append(training_error(model.tree_.flat, X, y))
    assert all(b <= a for a, b in zip(errors, errors[1:], strict=False))


def test_max_leaf_nodes_is_reached_when_possible():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = rng.integers(0, 3, 300)
    for growth in ("depth_first", "top_down", "best_first"):
        for k in (2, 7, 31):
            assert DecisionTreeClassifier(growth=growth, max_leaf_nodes=k).fit(X, y) \
                .get_n_leaves() == k


_TRANSFORMS = [np.exp, np.arctan, lambda v: v**3 + v, lambda v: 10.0 * v - 3.0]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), transform=st.sampled_from(range(len(_TRANSFORMS))),
       splitter=st.sampled_from(["best", "hist"]), growth=st.sampled_from(
           ["depth_first", "top_down", "best_first", "purest_children"]))
def test_predictions_invariant_to_increasing_transforms(seed, transform, splitter, growth):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(80, 3)), 2)
    y = (X[:, 0] + X[:, 2] > rng.normal(size=80) * 0.3).astype(int)
    f = _TRANSFORMS[transform]
    kw = dict(splitter=splitter, growth=growth, max_leaf_nodes=12, max_bins=16)
    a = DecisionTreeClassifier(**kw).fit(X, y)
    b = DecisionTreeClassifier(**kw).fit(f(X), y)
    np.testing.assert_array_equal(a.predict(X), b.predict(f(X)))
    np.testing.assert_array_equal(a.tree_.flat.feature, b.tree_.flat.feature)
    np.testing.assert_array_equal(a.tree_.flat.n_node_samples, b.tree_.flat.n_node_samples)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), splitter=st.sampled_from(["best", "hist"]))
def test_row_order_does_not_change_the_tree(seed, splitter):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(60, 4)).astype(float)  # many ties on purpose
    y = rng.integers(0, 3, 60)
    perm = rng.permutation(60)
    a = DecisionTreeClassifier(splitter=splitter).fit(X, y)
    b = DecisionTreeClassifier(splitter=splitter).fit(X[perm], y[perm])
    assert a.to_dict()["tree"] == b.to_dict()["tree"]


def test_stopping_rules():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 4))
    y = rng.integers(0, 2, 400)
    tree = DecisionTreeClassifier(max_depth=3).fit(X, y).tree_.flat
    assert tree.max_depth <= 3
    tree = DecisionTreeClassifier(min_samples_split=50).fit(X, y).tree_.flat
    assert tree.n_node_samples[tree.first_child >= 0].min() >= 50
    tree = DecisionTreeClassifier(min_samples_leaf=0.05).fit(X, y).tree_.flat
    assert tree.n_node_samples[tree.first_child < 0].min() >= 20
    mid = 0.01
    model = DecisionTreeClassifier(min_impurity_decrease=mid).fit(X, y)
    tree = model.tree_.flat
    for node in np.flatnonzero(tree.first_child >= 0):
        children = tree.children(node)
        gain = tree.impurity[node] * tree.weighted_n_node_samples[node] - sum(
            tree.impurity[c] * tree.weighted_n_node_samples[c] for c in children)
        assert gain / 400 >= mid - 1e-12


def test_max_features_is_seeded():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 8))
    y = (X[:, 0] + X[:, 5] > 0).astype(int)
    a = DecisionTreeClassifier(max_features=3, random_state=7).fit(X, y)
    b = DecisionTreeClassifier(max_features=3, random_state=7).fit(X, y)
    assert a.to_dict()["tree"] == b.to_dict()["tree"]
    others = {tuple(DecisionTreeClassifier(max_features=3, random_state=s).fit(X, y)
                    .tree_.flat.feature[:3]) for s in range(8)}
    assert len(others) > 1  # the seed really changes which features are examined


def test_regression_tree_predicts_leaf_means():
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(200, 2))
    y = np.sin(6 * X[:, 0]) + 0.1 * rng.normal(size=200)
    for growth in ("depth_first", "top_down", "best_first", "purest_children"):
        model = DecisionTreeRegressor(growth=growth, max_leaf_nodes=10).fit(X, y)
        leaves = model.apply(X)
        for leaf in np.unique(leaves):
            assert model.tree_.flat.value[leaf, 0] == pytest.approx(y[leaves == leaf].mean())
        assert model.score(X, y) > 0.8


@pytest.mark.parametrize("criterion", ["gini", "entropy", "log_loss", "scaled_entropy", "sqrt",
                                       "misclassification"])
def test_node_impurities_follow_spec_definitions(criterion):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(150, 3))
    y = rng.integers(0, 3, 150)
    tree = DecisionTreeClassifier(criterion=criterion, max_leaf_nodes=6).fit(X, y).tree_.flat
    for node in range(tree.n_nodes):
        counts = tree.value[node]
        expected = impurity_mass(counts, criterion) / counts.sum()
        assert tree.impurity[node] == pytest.approx(expected)
    # binary forms quoted in SPEC: 2p(1-p), H(p)/2 (scaled entropy; scikit-learn's "entropy" and
    # "log_loss" are H(p)), sqrt(p(1-p)), min(p, 1-p)
    p = 0.3
    entropy = -(p * np.log2(p) + (1 - p) * np.log2(1 - p))
    binary = {"gini": 2 * p * (1 - p), "entropy": entropy, "log_loss": entropy,
              "scaled_entropy": entropy / 2,
              "sqrt": np.sqrt(p * (1 - p)), "misclassification": min(p, 1 - p)}
    assert impurity_mass([7, 3], criterion) / 10 == pytest.approx(binary[criterion])
