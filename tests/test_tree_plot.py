"""plot_tree draws every node with readable labels."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from treebound import DecisionTreeClassifier, DecisionTreeRegressor, plot_tree  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_every_node_gets_a_label_with_names_and_counts():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.integers(18, 80, 200).astype(float),
                          "color": rng.choice(["red", "green", "blue"], 200)})
    y = np.where(frame.color.eq("red") & (frame.age > 40), "yes", "no")
    model = DecisionTreeClassifier(max_depth=3, categorical_split="multiway").fit(frame, y)
    ax = plot_tree(model)
    texts = [t.get_text() for t in ax.texts]
    node_texts = [t for t in texts if "samples = " in t]
    assert len(node_texts) == model.tree_.flat.n_nodes
    assert any(t.startswith("age <= ") for t in texts)
    assert any(t.startswith("color\n") for t in texts)  # a multiway test names its feature
    assert "red" in texts  # and each edge its level


def test_max_depth_cuts_the_drawing_and_regression_values_show():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    model = DecisionTreeRegressor(max_depth=5).fit(X, X[:, 0])
    _, ax = plt.subplots()
    assert plot_tree(model, ax=ax, max_depth=1) is ax
    # levels 0 and 1 in full, level 2 as "(...)", as scikit-learn draws it
    assert sum("(...)" in t.get_text() for t in ax.texts) == 4
    assert sum("squared_error = " in t.get_text() for t in ax.texts) == 3
    assert plot_tree(model.tree_.flat) is not None  # a bare Tree works too


def _path_tree(depth: int):
    """A valid tree that is one long path: node 2i + 1 is a leaf, node 2i + 2 goes on."""
    from treebound import Tree

    n = 2 * depth + 1
    first_child = np.full(n, -1, dtype=np.int64)
    internal = np.arange(0, n - 1, 2)
    first_child[internal] = internal + 1
    rows = np.ones(n, dtype=np.int64)
    for i in internal[::-1]:
        rows[i] = rows[i + 1] + rows[i + 2]
    value = np.column_stack([rows, np.zeros(n)]).astype(float)
    return Tree(first_child=first_child, n_children=np.where(first_child >= 0, 2, 0),
                feature=np.where(first_child >= 0, 0, -1),
                threshold=np.where(first_child >= 0, np.arange(n, dtype=float), np.nan),
                category_offset=np.full(n, -1, dtype=np.int64),
                category_child=np.empty(0, dtype=np.int64), value=value, impurity=np.zeros(n),
                n_node_samples=rows, weighted_n_node_samples=rows.astype(float),
                n_categories=np.zeros(1, dtype=np.int64)).validate()


def test_deep_trees_are_laid_out_and_printed_without_recursion():
    from treebound import export_text
    from treebound.tree._export import leaf_rules
    from treebound.tree._plot import _layout, auto_max_depth

    tree = _path_tree(1500)  # deeper than Python's recursion limit
    x, depth, drawn = _layout(tree, None)
    assert drawn.all() and not np.isnan(x).any() and depth.max() == 1500
    # a line per edge and a line per leaf
    assert len(export_text(tree, max_depth=None).splitlines()) == tree.n_nodes - 1 + tree.n_leaves
    assert len(leaf_rules(tree)) == tree.n_leaves
    assert auto_max_depth(tree, 64) == 63  # 63 leaves above level 63, one node at it
    ax = plot_tree(tree)  # "auto": the first levels only
    assert len(ax.texts) <= 2 * 64 + 2  # a box per drawn node and the root's two edge labels


def test_big_trees_get_a_default_depth_and_a_bounded_figure():
    from treebound.tree._plot import MAX_FIGURE_INCHES, auto_max_depth, tree_figure_inches

    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 4))
    y = rng.integers(0, 2, 3000)
    model = DecisionTreeClassifier(max_leaf_nodes=615, growth="top_down").fit(X, y)
    depth = auto_max_depth(model.tree_.flat, 64)
    assert depth is not None and depth < model.get_depth()
    ax = plot_tree(model)
    width, height = ax.figure.get_size_inches()
    assert width <= 1.9 * 64 + 1 and height <= MAX_FIGURE_INCHES
    assert tree_figure_inches(model) == (width, height)
    assert max(tree_figure_inches(model, max_depth=None)) <= MAX_FIGURE_INCHES
    from treebound import ResourceLimitError

    with pytest.raises(ResourceLimitError, match="plot_tree of"):
        plot_tree(model, max_depth=None)  # 1,229 nodes: refused before drawing
    small = DecisionTreeClassifier(max_leaf_nodes=6).fit(X, y)
    assert auto_max_depth(small.tree_.flat) is None  # small trees are drawn whole
    for bad in ("deep", -1, 2.5):
        with pytest.raises(ValueError, match="max_depth"):
            plot_tree(small, max_depth=bad)
