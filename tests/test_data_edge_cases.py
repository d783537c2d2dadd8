"""Awkward but legal data, and data the learner must refuse clearly (issue 7)."""

import numpy as np
import pandas as pd
import pytest

from treebound import DecisionTreeClassifier, DecisionTreeRegressor


def test_constant_features_are_never_split_on():
    rng = np.random.default_rng(0)
    X = np.column_stack([np.full(100, 3.0), rng.normal(size=100), np.zeros(100)])
    y = (X[:, 1] > 0).astype(int)
    tree = DecisionTreeClassifier().fit(X, y).tree_.flat
    assert set(tree.feature[tree.first_child >= 0]) == {1}
    single = DecisionTreeClassifier().fit(np.ones((20, 2)), np.arange(20) % 2)
    assert single.get_n_leaves() == 1
    np.testing.assert_allclose(single.predict_proba(np.ones((1, 2))), [[0.5, 0.5]])


def test_duplicate_rows_with_conflicting_labels():
    X = np.array([[0.0], [0.0], [0.0], [1.0], [1.0]])
    y = np.array([0, 1, 1, 0, 0])
    model = DecisionTreeClassifier().fit(X, y)
    assert model.get_n_leaves() == 2  # the duplicates cannot be separated
    np.testing.assert_array_equal(model.predict([[0.0], [1.0]]), [1, 0])
    np.testing.assert_allclose(model.predict_proba([[0.0]]), [[1 / 3, 2 / 3]])


def test_one_row_per_class():
    model = DecisionTreeClassifier().fit([[0.0], [1.0], [2.0]], ["a", "b", "c"])
    np.testing.assert_array_equal(model.predict([[0.0], [1.0], [2.0]]), ["a", "b", "c"])


def test_ties_in_majority_go_to_the_smallest_class():
    model = DecisionTreeClassifier(max_depth=0).fit([[0.0], [1.0]], ["b", "a"])
    assert model.predict([[5.0]])[0] == "a"


def test_many_classes_work_or_fail_clearly():
    rng = np.random.default_rng(1)
    n = 3000
    X = rng.normal(size=(n, 2))
    y = np.arange(n)  # every row its own class
    model = DecisionTreeClassifier(max_leaf_nodes=50).fit(X, y)
    assert model.get_n_leaves() == 50 and len(model.classes_) == n
    huge = np.arange(100_000)
    with pytest.raises(ValueError, match="classes"):
        DecisionTreeClassifier().fit(rng.normal(size=(100_000, 2)), huge)


@pytest.mark.parametrize("labels", [
    np.array([True, False] * 30),
    pd.Series(pd.Categorical(["lo", "hi", "mid"] * 20)),
    np.array(["x", "y", "z"] * 20, dtype=object),
    pd.Series(["u", "v"] * 30, dtype="string"),
])
def test_target_types(labels):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    model = DecisionTreeClassifier(max_depth=2).fit(X, labels)
    pred = model.predict(X)
    assert set(np.asarray(pred).tolist()) <= set(np.asarray(labels).tolist())


def test_pandas_nullable_and_extension_dtypes():
    frame = pd.DataFrame({
        "count": pd.array([1, 2, 3, 4, 5, 6] * 10, dtype="Int64"),
        "flag": pd.array([True, False, None] * 20, dtype="boolean"),
        "price": pd.array(np.linspace(0, 1, 60), dtype="Float64"),
        "name": pd.array(["a", "b", None, "c", "a", "b"] * 10, dtype="string"),
    })
    y = np.where(frame["count"].to_numpy() > 3, 1, 0)
    model = DecisionTreeClassifier().fit(frame, y)
    assert model.encoder_.is_categorical.tolist() == [False, True, False, True]
    assert model.encoder_.categories[1][-1] is None  # a missing boolean is its own category
    assert model.score(frame, y) == 1.0
    # pd.NA in a nullable numeric column is a missing value
    with_na = frame.assign(count=pd.array([1, None] * 30, dtype="Int64"))
    model = DecisionTreeClassifier().fit(with_na, y)
    assert np.isnan(model.encode(with_na)[1::2, 0]).all()


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int32, np.uint8])
def test_numeric_dtypes_give_the_same_tree(dtype):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 50, size=(120, 3))
    y = (X[:, 0] + X[:, 1] > 50).astype(int)
    ref = DecisionTreeClassifier().fit(X.astype(np.float64), y)
    other = DecisionTreeClassifier().fit(X.astype(dtype), y)
    assert ref.to_dict()["tree"] == other.to_dict()["tree"]


def test_non_contiguous_and_fortran_arrays():
    rng = np.random.default_rng(4)
    big = rng.normal(size=(200, 8))
    y = (big[:, 0] > 0).astype(int)
    X = big[:, ::2]  # strided view
    ref = DecisionTreeClassifier().fit(np.ascontiguousarray(X), y)
    for view in (X, np.asfortranarray(X), X[::1]):
        model = DecisionTreeClassifier().fit(view, y)
        assert model.to_dict()["tree"] == ref.to_dict()["tree"]
        np.testing.assert_array_equal(model.predict(view), ref.predict(X))


def test_regression_with_constant_target_and_integer_targets():
    X = np.arange(20.0).reshape(-1, 1)
    assert DecisionTreeRegressor().fit(X, np.full(20, 2.5)).get_n_leaves() == 1
    model = DecisionTreeRegressor().fit(X, np.arange(20) % 3)
    np.testing.assert_allclose(model.predict(X), np.arange(20) % 3)
