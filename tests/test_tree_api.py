"""scikit-learn conformance, input validation and the JSON model format of the tree estimators."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris, load_wine

from treebound import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    load_model,
    save_model,
)


@pytest.mark.parametrize("splitter", ["best", "hist"])
@pytest.mark.parametrize("growth", ["depth_first", "top_down", "best_first", "purest_children"])
def test_real_data_sanity(splitter, growth):
    for loader in (load_iris, load_wine):
        X, y = loader(return_X_y=True)
        model = DecisionTreeClassifier(splitter=splitter, growth=growth).fit(X, y)
        assert model.score(X, y) == 1.0  # no duplicate rows with conflicting labels
        proba = model.predict_proba(X)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        assert model.get_depth() >= 2


def _frame():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "x": rng.normal(size=120),
        "color": pd.Categorical(rng.choice(["a", "b", "c"], 120)),
        "name": rng.choice(["u", "v"], 120).astype(object),
        "flag": rng.choice([True, False], 120),
    })
    y = np.where(frame.color == "a", "hot", np.where(frame.x > 0, "warm", "cold"))
    return frame, y


@pytest.mark.parametrize(
    "make_X, message",
    [
        (lambda X: X[:0], "0 sample"),
        (lambda X: np.where(X > 1, np.inf, X), "infinity"),
        (lambda X: X[:, 0], "2D"),
        (lambda X: X.astype(str).astype(object) + "z", "string"),
    ],
)
def test_bad_training_data_gets_a_clear_error(make_X, message):
    X, y = load_iris(return_X_y=True)
    with pytest.raises((ValueError, TypeError), match=message):
        DecisionTreeClassifier().fit(make_X(X), y[: len(make_X(X))])


def test_bad_targets_and_options():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="150 samples but y has 149"):
        DecisionTreeClassifier().fit(X, y[:-1])
    with pytest.raises(ValueError, match="Unknown label type"):
        DecisionTreeClassifier().fit(X, X[:, 0] + 0.5)
    with pytest.raises(ValueError, match="'criterion' parameter of DecisionTreeClassifier must be one of"):
        DecisionTreeClassifier(criterion="gain").fit(X, y)
    with pytest.raises(ValueError, match="'growth' parameter of DecisionTreeClassifier must be one of"):
        DecisionTreeClassifier(growth="breadth").fit(X, y)
    with pytest.raises(ValueError, match="'max_depth'"):
        DecisionTreeClassifier(max_depth=-1).fit(X, y)
    with pytest.raises(TypeError, match="'max_leaf_nodes'"):
        DecisionTreeClassifier(max_leaf_nodes=[10]).fit(X, y)
    with pytest.raises(ValueError, match="'max_leaf_nodes'"):  # a string, but not "auto"
        DecisionTreeClassifier(max_leaf_nodes="10").fit(X, y)
    with pytest.raises(ValueError, match="'criterion'"):
        DecisionTreeRegressor(criterion="gini").fit(X, y)
    with pytest.raises(ValueError, match="sample_weight contains negative"):
        DecisionTreeClassifier().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="NaN or infinity"):
        DecisionTreeRegressor().fit(X, np.where(y > 1, np.nan, y))


def test_bad_prediction_data_gets_a_clear_error():
    frame, y = _frame()
    model = DecisionTreeClassifier(handle_unknown="error").fit(frame, y)
    with pytest.raises(ValueError, match="not seen during fit"):
        model.predict(frame.assign(color=pd.Categorical(["a", "zz"] * 60)))
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(frame.rename(columns={"x": "y"}))
    X, yy = load_iris(return_X_y=True)
    clf = DecisionTreeClassifier().fit(X, yy)
    with pytest.raises(ValueError, match="4 features"):
        clf.predict(X[:, :3])
    with pytest.raises(ValueError, match="infinity"):
        clf.predict(np.full((2, 4), np.inf))
    # NaN is a missing value: routed, not refused
    assert clf.predict(np.full((2, 4), np.nan)).shape == (2,)


def test_mixed_dataframe_with_string_categories():
    frame, y = _frame()
    model = DecisionTreeClassifier().fit(frame, y)
    assert list(model.feature_names_in_) == ["x", "color", "name", "flag"]
    assert model.encoder_.is_categorical.tolist() == [False, True, True, True]
    assert model.score(frame, y) == 1.0
    by_index = DecisionTreeClassifier(categorical_features=[1]).fit(
        frame[["x", "color"]].assign(color=frame.color.cat.codes), y)
    assert by_index.encoder_.is_categorical.tolist() == [False, True]
    numpy_input = DecisionTreeClassifier(categorical_features=[1]).fit(
        frame[["x", "color"]].to_numpy(dtype=object), y)
    assert numpy_input.score(frame[["x", "color"]].to_numpy(dtype=object), y) == 1.0


def test_missing_categorical_values_are_a_category():
    frame, y = _frame()
    frame = frame.astype({"name": object})
    frame.loc[::7, "name"] = None
    model = DecisionTreeClassifier().fit(frame, y)
    assert model.encoder_.categories[2][-1] is None
    model.predict(frame)
    without = frame.dropna()
    clean = DecisionTreeClassifier(handle_unknown="error").fit(without, y[without.index])
    with pytest.raises(ValueError, match="missing values"):
        clean.predict(frame)
    # by default a missing value never seen in training is routed like an unseen level
    lenient = DecisionTreeClassifier().fit(without, y[without.index])
    assert len(lenient.predict(frame)) == len(frame)


@pytest.mark.parametrize("split", ["binary", "multiway"])
def test_json_round_trip_is_exact(tmp_path, split):
    frame, y = _frame()
    model = DecisionTreeClassifier(categorical_split=split, max_leaf_nodes=9,
                                   growth="best_first").fit(frame, y)
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert type(loaded) is DecisionTreeClassifier
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict(frame), model.predict(frame))
    assert loaded.predict(frame).dtype == model.predict(frame).dtype
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))
    assert json.loads(path.read_text())["format_version"] == 3
    again = DecisionTreeClassifier.from_dict(json.loads(json.dumps(model.to_dict())))
    assert again.to_dict() == model.to_dict()


def test_regressor_json_round_trip():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 3))
    y = X[:, 0] * 2.5 + rng.normal(size=100) / 3
    model = DecisionTreeRegressor(max_depth=4).fit(X, y)
    loaded = DecisionTreeRegressor.from_dict(json.loads(json.dumps(model.to_dict())))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    with pytest.raises(ValueError, match="DecisionTreeRegressor, not a DecisionTreeClassifier"):
        DecisionTreeClassifier.from_dict(model.to_dict())


@pytest.mark.parametrize(
    "corrupt, message",
    [
        (lambda d: d.update(format="other"), "not a treebound model"),
        (lambda d: d.update(format_version=99), "not supported"),
        (lambda d: d["params"].update(bogus=1), "unknown parameters"),
        (lambda d: d["params"].update(criterion="bad"), "criterion"),
        (lambda d: d.update(classes=["a"]), "class"),
        (lambda d: d.update(classes=[0, 1]), "2 classes but the tree has 3"),
        (lambda d: d["tree"].update(first_child=d["tree"]["first_child"][:-1]), "length"),
        (lambda d: d["tree"]["threshold"].__setitem__(0, "x"), "wrong type"),
        (lambda d: d.update(n_features_in=3), "features"),
        (lambda d: d.update(classes_dtype="V8"), "classes_dtype"),
    ],
)
def test_malformed_model_files_raise_value_errors(corrupt, message):
    X, y = load_iris(return_X_y=True)
    data = DecisionTreeClassifier(max_depth=3).fit(X, y).to_dict()
    corrupt(data)
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier.from_dict(data)


def test_load_model_rejects_non_models(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_model(bad)
    bad.write_text("[1, 2]")
    with pytest.raises(ValueError, match="JSON object"):
        load_model(bad)
    with pytest.raises(ValueError, match="cannot read"):
        load_model(tmp_path / "missing.json")


def test_fractions_are_floats_that_are_not_integers():
    """scikit-learn's RealNotInt: min_samples_split=1 is an int below 2 (an error), 1.0 is the
    fraction of all rows."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="min_samples_split"):
        DecisionTreeClassifier(min_samples_split=1).fit(X, y)
    with pytest.raises(ValueError, match="max_features"):
        DecisionTreeClassifier(max_features=0).fit(X, y)
    assert DecisionTreeClassifier(min_samples_split=1.0).fit(X, y).get_n_leaves() == 2  # root only
    assert DecisionTreeClassifier(max_features=1.0).fit(X, y).get_n_leaves() > 1
