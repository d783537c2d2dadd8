"""treebound's ``export_text`` and ``plot_tree`` take scikit-learn's arguments and write what
scikit-learn's write for the same splits: checked character by character against scikit-learn's
own exporters on trees both libraries grow alike (the first levels of wine and diabetes are
unique best splits), then what scikit-learn's layout cannot hold (categorical and multiway
tests, trees deeper than the recursion limit)."""

import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from sklearn.datasets import load_diabetes, load_iris, load_wine  # noqa: E402
from sklearn.tree import DecisionTreeClassifier as SkClassifier  # noqa: E402
from sklearn.tree import DecisionTreeRegressor as SkRegressor  # noqa: E402
from sklearn.tree import export_text as sk_export_text  # noqa: E402
from sklearn.tree import plot_tree as sk_plot_tree  # noqa: E402

from treebound import (  # noqa: E402
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    export_text,
    plot_tree,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _pair(kind: str, max_depth: int | None = None):
    """The same tree grown by both libraries (unique best splits on these data). scikit-learn
    splits float32 copies of X; on float32 values both put thresholds at the same midpoints.
    (On iris and breast cancer, features tie for some split: scikit-learn draws one.)"""
    max_depth = max_depth or 3
    if kind == "regressor":
        X, y = load_diabetes(return_X_y=True)
        X = X.astype(np.float32).astype(np.float64)  # scikit-learn's thresholds: float32 midpoints
        return (DecisionTreeRegressor(max_depth=max_depth).fit(X, y),
                SkRegressor(max_depth=max_depth, random_state=0).fit(X, y), X)
    X, y = load_wine(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    return (DecisionTreeClassifier(max_depth=max_depth).fit(X, y),
            SkClassifier(max_depth=max_depth, random_state=0).fit(X, y), X)


TEXT_OPTIONS = [{}, {"show_weights": True}, {"max_depth": 0}, {"max_depth": 1},
                {"spacing": 5, "decimals": 4}, {"decimals": 0, "show_weights": True}]


@pytest.mark.parametrize("kind", ["wine", "regressor"])
@pytest.mark.parametrize("options", TEXT_OPTIONS)
def test_export_text_writes_scikit_learns_text(kind, options):
    ours, theirs, X = _pair(kind)
    assert export_text(ours, **options) == sk_export_text(theirs, **options)
    names = [f"f{j} (cm)" for j in range(X.shape[1])]
    assert export_text(ours, feature_names=names, **options) == \
        sk_export_text(theirs, feature_names=names, **options)


def test_export_text_class_names_and_a_one_leaf_tree():
    ours, theirs, _ = _pair("wine")
    names = ["setosa", "versicolor", "virginica"]
    assert export_text(ours, class_names=names) == sk_export_text(theirs, class_names=names)
    with pytest.raises(ValueError, match="should contain as many items as"):
        export_text(ours, class_names=names[:2])
    with pytest.raises(ValueError, match="feature_names must contain 13 elements, got 2"):
        export_text(ours, feature_names=["a", "b"])
    X, y = load_iris(return_X_y=True)
    stump = DecisionTreeClassifier(max_depth=0).fit(X, y)
    assert export_text(stump) == "|--- class: 0\n"


def test_export_text_parameters_are_checked_as_scikit_learn_checks_them():
    ours, _, _ = _pair("wine")
    for bad in ({"spacing": 0}, {"decimals": -1}, {"max_depth": -1}):
        with pytest.raises(ValueError, match=f"'{next(iter(bad))}' parameter of export_text"):
            export_text(ours, **bad)
    with pytest.raises(TypeError, match="show_weights"):
        export_text(ours, show_weights="yes")


def test_export_text_uses_the_names_of_fit_and_deprecates_show_counts():
    X, y = load_iris(return_X_y=True, as_frame=True)
    model = DecisionTreeClassifier(max_depth=1).fit(X, y)
    assert export_text(model).startswith("|--- petal length (cm) <= 2.45\n")
    with pytest.warns(FutureWarning, match="show_weights"):
        old = export_text(model, show_counts=True)
    assert old == export_text(model, show_weights=True)


def _categorical(n=300, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"age": rng.integers(18, 80, n).astype(float),
                          "color": pd.Categorical(rng.choice(["red", "green", "blue"], n))})
    y = np.where(frame.color.eq("red") & (frame.age > 40), "yes", "no")
    return frame, y


def test_categorical_and_multiway_tests_get_one_line_per_child():
    frame, y = _categorical()
    binary = DecisionTreeClassifier(max_depth=2).fit(frame, y)
    text = export_text(binary, show_weights=True)
    assert ("color in {" in text or "color = " in text) and "age <= " in text
    assert "age >  " in text and "weights: [" in text
    multi = DecisionTreeClassifier(categorical_split="multiway", max_depth=2).fit(frame, y)
    flat = multi.tree_.flat
    assert not flat.is_binary
    lines = export_text(multi, max_depth=None).splitlines()
    # a line per edge and a line per leaf
    assert len(lines) == flat.n_nodes - 1 + flat.n_leaves
    assert sum(line.lstrip("|- ").startswith("color = ") for line in lines) == 3


def test_truncated_branches_give_their_depth():
    ours, theirs, _ = _pair("wine", max_depth=5)
    for depth in (0, 1, 2):
        assert export_text(ours, max_depth=depth) == sk_export_text(theirs, max_depth=depth)
    assert "truncated branch of depth" in export_text(ours, max_depth=0)


# ------------------------------------------------------------------------------- plot_tree
def _box_texts(annotations):
    return sorted(a.get_text() for a in annotations)


PLOT_OPTIONS = [{}, {"filled": True}, {"proportion": True, "precision": 2},
                {"label": "root", "impurity": False}, {"label": "none"},
                {"max_depth": 1}, {"rounded": True, "filled": True}]


@pytest.mark.parametrize("kind", ["wine", "regressor"])
@pytest.mark.parametrize("options", PLOT_OPTIONS)
def test_plot_tree_writes_scikit_learns_boxes(kind, options):
    ours, theirs, _ = _pair(kind)
    _, ax = plt.subplots()
    sk = sk_plot_tree(theirs, ax=ax, **options)
    _, our_ax = plt.subplots()
    assert plot_tree(ours, ax=our_ax, **options) is our_ax
    assert _box_texts(our_ax.texts) == _box_texts(sk)
    if options.get("filled"):
        def faces(texts):
            return sorted((t.get_text(), t.get_bbox_patch().get_facecolor())
                          for t in texts if t.get_bbox_patch() is not None)
        assert faces(our_ax.texts) == faces(sk)


def test_plot_tree_class_names_and_feature_names():
    ours, theirs, X = _pair("wine")
    names = [f"f{j}" for j in range(X.shape[1])]
    for class_names in (True, ["a", "b", "c"]):
        sk = sk_plot_tree(theirs, ax=plt.subplots()[1], class_names=class_names,
                          feature_names=names)
        ax = plot_tree(ours, ax=plt.subplots()[1], class_names=class_names, feature_names=names)
        assert _box_texts(ax.texts) == _box_texts(sk)


def test_plot_tree_draws_categorical_and_multiway_tests():
    frame, y = _categorical()
    binary = DecisionTreeClassifier(max_depth=3).fit(frame, y)
    texts = [t.get_text() for t in plot_tree(binary).texts]
    assert any(t.startswith(("color in {", "color = ")) for t in texts)
    assert any(t.startswith("age <= ") for t in texts)
    assert "True  " in texts and "  False" in texts
    multi = DecisionTreeClassifier(categorical_split="multiway", max_depth=2).fit(frame, y)
    texts = [t.get_text() for t in plot_tree(multi).texts]
    # the multiway test writes its feature; each edge its level
    assert any(t.split("\n")[0] == "color" for t in texts)
    assert {"red", "green", "blue"} <= set(texts)


def test_plot_tree_parameters_and_deprecated_show_counts():
    ours, _, _ = _pair("wine")
    with pytest.raises(ValueError, match="'label' parameter of plot_tree"):
        plot_tree(ours, label="some")
    with pytest.raises(ValueError, match="'precision' parameter of plot_tree"):
        plot_tree(ours, precision=-1)
    with pytest.warns(FutureWarning, match="show_counts"):
        plot_tree(ours, show_counts=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot_tree(ours)
