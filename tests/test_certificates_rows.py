"""certify checks what it can of "these are the training rows" (issue 27), and refuses bad
arguments instead of bending them."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.tree import DecisionTreeClassifier as SklearnTree

from treebound import DecisionTreeClassifier, DyadicTreeClassifier, certify, save_model


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return X, y


def test_the_training_rows_pass_silently(wine):
    X, y = wine
    rng = np.random.default_rng(0)
    weights = rng.uniform(0.5, 2.0, size=y.shape[0])
    models = [DecisionTreeClassifier(max_leaf_nodes=8).fit(X, y),
              DecisionTreeClassifier(max_leaf_nodes=8, splitter="hist", max_bins=8).fit(X, y),
              DecisionTreeClassifier(max_leaf_nodes=8).fit(X, y, sample_weight=weights),
              DecisionTreeClassifier(pruning="reduced_error", random_state=0).fit(X, y),
              SklearnTree(max_leaf_nodes=8, random_state=0).fit(X, y),
              DyadicTreeClassifier(penalty_scale=0.5).fit(X[:, :3], y)]
    for model in models:
        rows = X[:, :3] if isinstance(model, DyadicTreeClassifier) else X
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert certify(model, rows, y, method="hti").n_examples == y.shape[0]


def test_another_dataset_of_the_same_size_is_refused(wine):
    X, y = wine
    model = DecisionTreeClassifier(max_leaf_nodes=8).fit(X, y)
    rng = np.random.default_rng(1)
    other = X[rng.integers(0, X.shape[0], size=X.shape[0])]  # a bootstrap: same size, other rows
    with pytest.raises(ValueError, match="not the training sample: leaf"):
        certify(model, other, y)
    cart = SklearnTree(max_leaf_nodes=8, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="not the training sample: leaf"):
        certify(cart, other, y)


def test_a_shuffled_label_column_warns(wine):
    X, y = wine
    model = DecisionTreeClassifier(max_leaf_nodes=8).fit(X, y)
    shuffled = np.random.default_rng(2).permutation(y)
    with pytest.warns(UserWarning, match="labels do not match the training labels"):
        certify(model, X, shuffled)


def test_a_level_never_seen_in_training_is_refused():
    rng = np.random.default_rng(3)
    n = 300
    X = pd.DataFrame({"x": rng.normal(size=n), "c": rng.choice(["a", "b", "c"], size=n)})
    y = (X["x"] > 0).astype(int)
    model = DecisionTreeClassifier(max_leaf_nodes=6).fit(X, y)
    other = X.copy()
    other.loc[:49, "c"] = "z"  # 50 rows of a level the model never saw
    with pytest.raises(ValueError, match="50 of them hold a level of categorical feature 'c'"):
        certify(model, other, y, method="hti")
    # held-out rows may hold new levels: the test-set bound does not count levels
    assert certify(model, other, y, method="test_set").n_examples == n


def test_ghost_size_must_be_an_integer(wine):
    X, y = wine
    model = DecisionTreeClassifier(max_leaf_nodes=4).fit(X, y)
    with pytest.raises(TypeError, match="ghost_size must be an integer"):
        certify(model, X, y, method="hti", ghost_size=2.5)
    assert certify(model, X, y, method="hti", ghost_size=400).details["ghost_size"] == 400


def test_save_model_refuses_other_libraries_models(tmp_path, wine):
    X, y = wine
    with pytest.raises(TypeError, match="save_model writes treebound estimators"):
        save_model(SklearnTree(max_depth=2).fit(X, y), tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()


def test_a_missing_label_names_its_row():
    X, y = load_breast_cancer(return_X_y=True)
    y = y.astype(float)
    y[17] = np.nan
    with pytest.raises(ValueError, match="y is missing .* at row 17"):
        DecisionTreeClassifier().fit(X, y)


def test_a_huge_integer_parameter_is_one_clear_error(wine):
    X, y = wine
    with pytest.raises(ValueError, match="max_leaf_nodes.*beyond the 64-bit integers"):
        DecisionTreeClassifier(max_leaf_nodes=99999999999999999999999).fit(X, y)
