"""The exporters say where missing values go: export_text ("x <= t or missing"), the rules
(DNF), plot_tree ("missing: left"); checked against the tree's own routing (every row satisfies
exactly the rule of its leaf, NaN included)."""

import json
import math

import matplotlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    export_text,
    format_rules,
    plot_tree,
    to_rules,
)
from treebound.tree._export import leaf_rules

matplotlib.use("Agg")


def _holds(condition, row, names):
    """A condition read as the rules' text says, on one row (NaN: missing)."""
    x = row[names.index(condition.feature)]
    if condition.op == "present":
        return not math.isnan(x)
    if condition.op == "missing":
        return math.isnan(x)
    if math.isnan(x):
        return condition.or_missing
    return x <= condition.value if condition.op == "<=" else x > condition.value


def _problem(seed, n=300, d=3, holes=0.2, presence=False):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 2)
    y = (X[:, 0] + X[:, 1] * (rng.random(n) < 0.7) > 0).astype(int) + (X[:, 2] > 1)
    X[rng.random(X.shape) < holes] = np.nan
    if presence:
        X[y == 1, 0] = np.nan
    return X, y


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), holes=st.sampled_from([0.05, 0.3]), presence=st.booleans(),
       depth=st.integers(1, 4), regression=st.booleans())
def test_every_row_satisfies_exactly_the_rule_of_its_leaf(seed, holes, presence, depth,
                                                          regression):
    X, y = _problem(seed, holes=holes, presence=presence)
    model = (DecisionTreeRegressor if regression else DecisionTreeClassifier)(
        max_depth=depth).fit(X, y)
    rules = leaf_rules(model)
    names = [f"x{j}" for j in range(X.shape[1])]
    tree = model.tree_.flat
    leaves, stack = [], [0]  # preorder, left to right: the order of leaf_rules
    while stack:
        node = stack.pop()
        if tree.first_child[node] < 0:
            leaves.append(node)
        else:
            stack.extend(reversed(tree.children(node).tolist()))
    assert len(leaves) == len(rules)
    rows, _ = _problem(seed + 1, n=200, holes=0.4)
    reached = model.apply(rows)
    for row, leaf in zip(rows, reached, strict=True):
        matches = [k for k, rule in enumerate(rules)
                   if all(_holds(c, row, names) for c in rule.conditions)]
        assert matches == [leaves.index(leaf)]


def test_export_text_and_plot_say_where_missing_values_go():
    X, y = _problem(0)
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    tree = model.tree_.flat
    internal = np.flatnonzero(tree.first_child >= 0)
    text = export_text(model)
    # one child per test (a test "value present": its "is missing" child)
    assert text.count(" or missing") + text.count(" is missing") == internal.size
    for node in internal.tolist():
        assert tree.missing_child[node] in (0, 1)
    # the root's line is its first child's: "or missing" there iff missing values go left
    first = text.splitlines()[0]
    assert first.endswith(" or missing") == (tree.missing_child[0] == 0)
    assert " or missing" not in export_text(model, show_missing=False)
    ax = plot_tree(model, max_depth=None)
    boxes = [t.get_text() for t in ax.texts if "samples" in t.get_text()]
    said = [b for b in boxes if "missing: " in b or " is present" in b]
    assert len(said) == internal.size
    assert ("missing: left" in boxes[0]) == (tree.missing_child[0] == 0)
    with pytest.raises(ValueError, match="show_missing"):
        export_text(model, show_missing="sometimes")


def test_without_missing_values_in_fit_nothing_changes():
    X, y = _problem(1, holes=0.0)
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    assert "missing" not in export_text(model) + format_rules(model)
    assert "or missing" in export_text(model, show_missing=True)  # where they would go
    assert all(not c.or_missing for rules in to_rules(model).values() for r in rules
               for c in r.conditions)


def test_presence_tests_and_model_files():
    X, y = _problem(2, presence=True)
    model = DecisionTreeClassifier(max_depth=2).fit(X, y)
    assert "x0 is missing" in format_rules(model) or "x0 is present" in format_rules(model)
    assert "feature_0 is present" in export_text(model)
    loaded = DecisionTreeClassifier.from_dict(json.loads(json.dumps(model.to_dict())))
    assert export_text(loaded) == export_text(model)
    clean = DecisionTreeClassifier(max_depth=2).fit(np.nan_to_num(X), y)
    data = clean.to_dict()
    assert data["extra"]["missing_values"] is False
    data["extra"]["missing_values"] = "yes"
    with pytest.raises(ValueError, match="missing_values"):
        DecisionTreeClassifier.from_dict(data)
