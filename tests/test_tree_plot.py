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
    model = DecisionTreeClassifier(max_depth=3).fit(frame, y)
    ax = plot_tree(model)
    texts = [t.get_text() for t in ax.texts]
    node_texts = [t for t in texts if "n = " in t or "/" in t]
    assert len(node_texts) >= model.tree_.n_nodes
    assert any("age <= " in t for t in texts)
    assert any("color?" in t for t in texts)
    assert any("red" in t for t in texts)  # the category set on an edge


def test_max_depth_cuts_the_drawing_and_regression_values_show():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    model = DecisionTreeRegressor(max_depth=5).fit(X, X[:, 0])
    _, ax = plt.subplots()
    assert plot_tree(model, ax=ax, max_depth=2) is ax
    assert any(t.get_text().startswith("...") for t in ax.texts)
    assert plot_tree(model.tree_) is not None  # a bare Tree works too
