"""Flat storage, routing, pruning rebuilds, text export and rules."""

import numpy as np
import pandas as pd
import pytest

from treebound import DecisionTreeClassifier, DecisionTreeRegressor, Tree, export_text, to_rules
from treebound.tree import format_rules, leaf_rules


def _mixed_frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "age": rng.integers(18, 80, n).astype(float),
        "color": rng.choice(["red", "green", "blue", "black"], n),
        "member": rng.choice([True, False], n),
    })
    y = np.where((frame.color.isin(["red", "blue"])) & (frame.age > 40), "yes", "no")
    flip = rng.random(n) < 0.05
    y = np.where(flip, np.where(y == "yes", "no", "yes"), y)
    return frame, y


def _naive_apply(tree, X):
    out = []
    for row in X:
        node = 0
        while tree.first_child[node] >= 0:
            f = tree.feature[node]
            if tree.category_offset[node] >= 0:
                slot = tree.category_child[tree.category_offset[node] + int(row[f])]
            else:
                slot = 0 if row[f] <= tree.threshold[node] else 1
            node = tree.first_child[node] + slot
        out.append(node)
    return np.array(out)


@pytest.mark.parametrize("split", ["binary", "multiway"])
def test_apply_and_decision_path_agree_with_naive_routing(split):
    frame, y = _mixed_frame()
    model = DecisionTreeClassifier(categorical_split=split).fit(frame, y)
    X_enc = model.encoder_.transform(frame)
    leaves = model.apply(frame)
    np.testing.assert_array_equal(leaves, _naive_apply(model.tree_.flat, X_enc))
    path = model.decision_path(frame)
    for r in range(0, len(y), 37):
        nodes = path[r].indices
        assert nodes[0] == 0 and leaves[r] in nodes
        depth = model.tree_.flat.node_depth[leaves[r]]
        assert len(nodes) == depth + 1
    assert model.tree_.flat.validate() is model.tree_.flat


def test_numeric_tree_uses_the_batched_router():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(1000, 5))
    y = (np.sin(3 * X[:, 0]) + X[:, 1] > 0).astype(int)
    model = DecisionTreeClassifier().fit(X, y)  # deep tree, uneven depths
    np.testing.assert_array_equal(model.apply(X), _naive_apply(model.tree_.flat, X))
    X_test = rng.normal(size=(333, 5)) * 3
    np.testing.assert_array_equal(model.apply(X_test), _naive_apply(model.tree_.flat, X_test))


def test_collapse_keeps_a_valid_subtree():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 3))
    y = rng.integers(0, 3, 400)
    tree = DecisionTreeClassifier(max_leaf_nodes=30).fit(X, y).tree_.flat
    mask = np.zeros(tree.n_nodes, dtype=bool)
    internal = np.flatnonzero(tree.first_child >= 0)
    mask[internal[1::3]] = True
    pruned, old_to_new = tree.collapse(mask)
    pruned.validate()
    assert pruned.n_leaves < tree.n_leaves
    kept = np.flatnonzero(old_to_new >= 0)
    np.testing.assert_array_equal(pruned.value, tree.value[kept[np.argsort(old_to_new[kept])]])
    # every kept node is not below a collapsed node
    for node in kept:
        anc = tree.parent[node]
        while anc >= 0:
            assert not mask[anc]
            anc = tree.parent[anc]
    # routing in the pruned tree ends in the kept ancestor of the original leaf
    leaves_full = tree.apply(X)
    leaves_pruned = pruned.apply(X)
    for full_leaf, pruned_leaf in zip(leaves_full[:50], leaves_pruned[:50], strict=True):
        node = full_leaf
        while old_to_new[node] < 0 or (mask[node] is False and pruned.first_child[
                old_to_new[node]] >= 0):
            node = tree.parent[node]
        assert old_to_new[node] == pruned_leaf or pruned.first_child[old_to_new[node]] < 0


def test_tree_dict_round_trip_and_validation():
    frame, y = _mixed_frame()
    tree = DecisionTreeClassifier(categorical_split="multiway").fit(frame, y).tree_.flat
    again = Tree.from_dict(tree.to_dict())
    assert again.to_dict() == tree.to_dict()
    bad = tree.to_dict()
    bad["first_child"][0] = 0  # a node being its own child
    with pytest.raises(ValueError, match="children"):
        Tree.from_dict(bad)
    bad = tree.to_dict()
    bad["feature"][0] = 99
    with pytest.raises(ValueError, match="feature"):
        Tree.from_dict(bad)
    bad = tree.to_dict()
    bad["value"] = bad["value"][:-1]
    with pytest.raises(ValueError, match="value"):
        Tree.from_dict(bad)


def test_children_left_right_only_for_binary_trees():
    frame, y = _mixed_frame()
    binary = DecisionTreeClassifier().fit(frame, y).tree_.flat
    assert np.all(binary.children_right[binary.first_child >= 0] ==
                  binary.first_child[binary.first_child >= 0] + 1)
    multi = DecisionTreeClassifier(categorical_split="multiway").fit(frame, y).tree_.flat
    if not multi.is_binary:
        with pytest.raises(ValueError, match="multiway"):
            _ = multi.children_left


def test_export_text_names_features_thresholds_and_categories():
    frame, y = _mixed_frame()
    model = DecisionTreeClassifier(max_depth=2).fit(frame, y)
    text = export_text(model, show_weights=True)
    assert "color in {" in text or "color = " in text
    assert "age <= " in text and "class: " in text
    deep = DecisionTreeClassifier(max_depth=3).fit(frame, y)
    truncated = export_text(deep, max_depth=0)  # the root's test, then the subtrees' depths
    flat = deep.tree_.flat
    n_internal_children = sum(flat.first_child[c] >= 0 for c in flat.children(0))
    assert truncated.count("truncated branch of depth") == n_internal_children > 0


def _holds(condition, row):
    value = row[condition.feature]
    if condition.op == "<=":
        return value <= condition.value
    if condition.op == ">":
        return value > condition.value
    return value in condition.value


def test_rules_are_the_dnf_of_the_positive_class():
    frame, y = _mixed_frame()
    model = DecisionTreeClassifier(max_leaf_nodes=8).fit(frame, y)
    rules = to_rules(model)
    assert all(r.prediction == model.classes_[1] for r in rules)
    predicted_positive = model.predict(frame) == model.classes_[1]
    dnf = [any(all(_holds(c, row) for c in r.conditions) for r in rules)
           for _, row in frame.iterrows()]
    np.testing.assert_array_equal(predicted_positive, dnf)
    # every leaf rule routes exactly the rows that reach that leaf
    leaves = model.apply(frame)
    all_rules = leaf_rules(model)
    assert len(all_rules) == model.get_n_leaves()
    assert sum(r.n_samples for r in all_rules) == len(y)
    assert "IF" in format_rules(model) and "ELSE" in format_rules(model)
    assert len(np.unique(leaves)) == len(all_rules)


def test_multiclass_and_regression_rules():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 2))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    model = DecisionTreeClassifier(max_leaf_nodes=5).fit(X, y)
    grouped = to_rules(model)
    assert set(grouped) == {0, 1, 2}
    assert sum(len(v) for v in grouped.values()) == model.get_n_leaves()
    reg = DecisionTreeRegressor(max_leaf_nodes=4).fit(X, X[:, 0])
    text = format_rules(reg)
    assert text.count("IF") == 4
    assert "feature_0 <= " in export_text(reg)  # scikit-learn's name when X had none
