"""DyadicTreeClassifier: API conformance, routing, persistence, penalties by hand, bad input."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import check_estimator

from _model_configs import ESTIMATORS
from treebound import DyadicTreeClassifier, export_text, load_model, save_model
from treebound.dyadic import (
    CellBudgetExceeded,
    DyadicScaling,
    cell_code_length,
    default_resolution,
    spatially_adaptive_penalty,
    square_root_penalty,
    theorem6_resolution,
    tree_code_length,
)


def test_passes_scikit_learn_checks():
    check_estimator(DyadicTreeClassifier())
    check_estimator(DyadicTreeClassifier(variant="cyclic", penalty="square_root"))


def test_is_registered():
    assert DyadicTreeClassifier in ESTIMATORS


# ----------------------------------------------------------------- penalties
def test_spatially_adaptive_penalty_of_a_hand_built_tree():
    # d = 2, n = 100, δ = 0.01; leaves: 50 examples at depth 1, 30 and 20 at depth 2.
    # [A] = 2j + 1 + j log2 2 = 3j + 1: 4 bits at depth 1, 7 bits at depth 2.
    # depth 1: ln(1/δ) = 4.605170, 4 ln 2 = 2.772589 -> p' = 4 max(0.5, 0.073778) = 2;
    #          term = sqrt(2 * 2 * (2.772589 + 5.298317) / 100) = sqrt(0.3228362) = 0.5681868
    # depth 2: 7 ln 2 = 4.852030; p' = 4 max(0.3, 0.094572) = 1.2 and 4 max(0.2, ...) = 0.8;
    #          terms sqrt(2 * 1.2 * 10.150348 / 100) = 0.4935670,
    #                sqrt(2 * 0.8 * 10.150348 / 100) = 0.4029957
    expected = 0.5681868 + 0.4935670 + 0.4029957
    assert spatially_adaptive_penalty([50, 30, 20], [1, 2, 2], 100, 2, 0.01) == pytest.approx(
        expected, abs=1e-6)
    assert spatially_adaptive_penalty([50, 30, 20], [1, 2, 2], 100, 2, 0.01, scale=0.5) == (
        pytest.approx(expected / 2, abs=1e-6))


def test_small_leaves_use_the_floor_of_p_prime():
    # 1 example at depth 3 of d = 4, n = 1000, δ = 1/1000: [A] = 6 + 1 + 6 = 13 bits;
    # p' = 4 (13 ln 2 + ln 1000) / 1000 = 4 * 15.918 / 1000;
    # term = sqrt(2 p' (13 ln 2 + ln 2000) / n)
    bits = 13 * math.log(2)
    p_prime = 4 * (bits + math.log(1000)) / 1000
    expected = math.sqrt(2 * p_prime * (bits + math.log(2000)) / 1000)
    assert cell_code_length(3, 4) == 13
    assert spatially_adaptive_penalty([1], [3], 1000, 4, 1e-3) == pytest.approx(expected)
    assert spatially_adaptive_penalty([0], [3], 1000, 4, 1e-3) == pytest.approx(expected)


def test_square_root_penalty_by_hand():
    # k = 5 leaves, d = 8: [T] = 15 - 1 + 4 * 3 = 26 bits; n = 200, δ = 0.05
    assert tree_code_length(5, 8) == 26
    expected = math.sqrt((26 * math.log(2) + math.log(20)) / 400)
    assert square_root_penalty(5, 200, 8, 0.05) == pytest.approx(expected)


def test_fitted_objective_is_risk_plus_penalty_of_the_returned_tree():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(300, 2))
    y = ((X[:, 0] - 0.5) ** 2 + (X[:, 1] - 0.5) ** 2 < 0.1).astype(int)
    for penalty in ("spatially_adaptive", "square_root"):
        model = DyadicTreeClassifier(max_resolution=3, penalty=penalty, penalty_scale=0.3)
        model.fit(X, y)
        errors = np.count_nonzero(model.predict(X) != y)
        assert model.empirical_risk_ == pytest.approx(errors / 300)
        assert model.objective_ == pytest.approx(model.empirical_risk_ + model.penalty_)
        if penalty == "square_root":
            assert model.penalty_ == pytest.approx(
                0.3 * square_root_penalty(model.get_n_leaves(), 300, 2, 1 / 300))


# ------------------------------------------------------------------ behaviour
@pytest.mark.parametrize("scale", [1.0, 0.3])
def test_irrelevant_features_are_never_split(scale):
    # only x1 matters (10 % label noise); x2..x5 are independent of the label
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(4000, 5))
    y = (X[:, 0] > 0.3).astype(int)
    flip = rng.uniform(size=4000) < 0.1
    y[flip] = 1 - y[flip]
    model = DyadicTreeClassifier(max_resolution=4, penalty_scale=scale).fit(X, y)
    used = set(model.tree_.flat.feature[model.tree_.flat.feature >= 0].tolist())
    assert used == {0}
    assert model.score(X, y) > 0.85


def test_default_resolutions_follow_the_theorems():
    # M ≍ n / log n (Theorems 7, 8): L = floor(log2(n / ln n))
    assert default_resolution(1000) == math.floor(math.log2(1000 / math.log(1000))) == 7
    assert default_resolution(19020) == 10
    # M ≍ (n / log n)^{1/d} (Theorem 6): L = ceil(log2(n / ln n) / d)
    assert theorem6_resolution(1000, 2) == 4
    assert theorem6_resolution(19020, 10) == 2
    assert theorem6_resolution(208, 60) == 1
    model = DyadicTreeClassifier().fit(np.arange(40.0).reshape(20, 2), [0, 1] * 10)
    assert model.resolution_ == default_resolution(20) == 2
    assert model.delta_ == pytest.approx(1 / 20)


def _leaf_of_grid_cell(model, grid_row, resolution):
    """Walk the tree by grid indices only (the search's view of a cell)."""
    tree = model.tree_.flat
    scaling = DyadicScaling(model.data_min_, model.data_range_, resolution)
    node = 0
    while tree.first_child[node] >= 0:
        f = tree.feature[node]
        # recover the boundary index m from the stored threshold: t = nextafter(b(m), -inf)
        m = np.searchsorted(scaling.threshold(f, np.arange(1, 2**resolution)),
                            tree.threshold[node]) + 1
        node = tree.first_child[node] + (0 if grid_row[f] < m else 1)
    return node


@pytest.mark.parametrize("variant", ["free", "cyclic"])
def test_training_points_are_routed_to_the_cells_of_the_search(variant):
    # awkward units: values exactly on dyadic boundaries of a shifted, stretched range
    rng = np.random.default_rng(5)
    resolution = 4
    lo, width = 0.1, 0.7
    X = lo + width * rng.integers(0, 2**resolution + 1, size=(500, 2)) / 2**resolution
    X[:, 1] = rng.uniform(-3e5, 7e5, size=500)
    y = ((X[:, 0] > 0.45) ^ (X[:, 1] > 2e5)).astype(int)
    model = DyadicTreeClassifier(max_resolution=resolution, variant=variant,
                                 penalty_scale=0.2).fit(X, y)
    tree = model.tree_.flat
    leaves = model.apply(X)
    for node in np.flatnonzero(tree.is_leaf):
        routed = y[leaves == node]
        assert routed.shape[0] == tree.n_node_samples[node]
        if routed.size:
            assert np.array_equal(np.bincount(routed, minlength=2), tree.value[node])
    scaling = DyadicScaling(model.data_min_, model.data_range_, resolution)
    grid = scaling.grid(X)
    by_grid = [_leaf_of_grid_cell(model, row, resolution) for row in grid]
    assert np.array_equal(by_grid, leaves)


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=30),
       resolution=st.integers(1, 12))
def test_grid_index_and_threshold_agree(values, resolution):
    x = np.asarray(values)
    scaling, _ = DyadicScaling.fit(x[:, None], resolution)
    index = scaling.grid(x[:, None])[:, 0]
    boundaries = scaling.boundary(0, np.arange(1, 2**resolution))
    assert np.array_equal(index, np.searchsorted(boundaries, x, side="right"))
    for m in (1, 2 ** (resolution - 1), 2**resolution - 1):
        assert np.array_equal(x <= scaling.threshold(0, m), index < m)


def test_values_outside_the_training_range_are_clipped():
    rng = np.random.default_rng(2)
    X = rng.uniform(size=(400, 2))
    y = (X[:, 0] > 0.6).astype(int)
    model = DyadicTreeClassifier(max_resolution=3).fit(X, y)
    far = np.array([[-50.0, 0.5], [50.0, 0.5], [0.5, 1e9]])
    clipped = np.clip(far, X.min(axis=0), X.max(axis=0))
    assert np.array_equal(model.predict(far), model.predict(clipped))


def test_constant_features_are_handled():
    rng = np.random.default_rng(4)
    X = np.column_stack([np.full(300, 2.5), rng.uniform(size=300), np.zeros(300)])
    X[:2, 1] = [0.0, 1.0]  # so the midpoint of feature 1 is 0.5
    y = (X[:, 1] >= 0.5).astype(int)
    free = DyadicTreeClassifier(max_resolution=2).fit(X, y)
    assert free.score(X, y) == 1.0
    assert set(free.tree_.flat.feature[free.tree_.flat.feature >= 0].tolist()) == {1}
    assert np.array_equal(free.data_range_, [1.0, 1.0, 1.0])
    # a cyclic tree must split the constant coordinate first: everything goes to one side
    cyclic = DyadicTreeClassifier(max_resolution=2, variant="cyclic", penalty_scale=0.3)
    cyclic.fit(X, y)
    assert cyclic.tree_.flat.feature[0] == 0
    assert cyclic.score(X, y) == 1.0


def test_empty_leaves_predict_like_their_parent():
    # all data in the lower-left quarter except a few points: zooming in leaves empty cells
    rng = np.random.default_rng(6)
    X = np.vstack([rng.uniform(0, 0.2, size=(300, 2)), [[1.0, 1.0]]])
    y = np.append((X[:-1, 0] > 0.1).astype(int), 1)
    model = DyadicTreeClassifier(max_resolution=4, penalty_scale=0.1).fit(X, y)
    tree = model.tree_.flat
    empty = np.flatnonzero(tree.is_leaf & (tree.n_node_samples == 0))
    assert empty.size > 0
    for node in empty:
        parent = tree.parent[node]
        assert np.allclose(tree.value[node], tree.value[parent] / tree.value[parent].sum())


# ---------------------------------------------------------------- persistence
def test_json_round_trip_gives_identical_predictions(tmp_path):
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    y = np.where(X["a"] + X["b"] ** 2 > 0.5, "yes", "no")
    model = DyadicTreeClassifier(max_resolution=3, penalty_scale=0.3).fit(X, y)
    path = tmp_path / "ddt.json"
    save_model(model, path)
    loaded = load_model(path)
    assert isinstance(loaded, DyadicTreeClassifier)
    X_new = pd.DataFrame(rng.normal(scale=2, size=(200, 3)), columns=["a", "b", "c"])
    assert np.array_equal(loaded.predict(X_new), model.predict(X_new))
    assert np.array_equal(loaded.predict_proba(X_new), model.predict_proba(X_new))
    for name in ("objective_", "penalty_", "empirical_risk_", "resolution_", "delta_",
                 "n_cells_evaluated_"):
        assert getattr(loaded, name) == getattr(model, name)
    assert np.array_equal(loaded.data_min_, model.data_min_)
    assert export_text(loaded) == export_text(model)


def test_loading_rejects_a_damaged_state():
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(100, 2))
    model = DyadicTreeClassifier().fit(X, (X[:, 0] > 0.5).astype(int))
    data = json.loads(json.dumps(model.to_dict()))
    data["extra"]["data_range_"] = [1.0]
    data["extra"]["resolution_"] = -2
    with pytest.raises(ValueError, match="data_range_ must list 2.*|resolution_"):
        DyadicTreeClassifier.from_dict(data)


# ------------------------------------------------------------------ bad input
def test_categorical_columns_are_rejected_by_name():
    X = pd.DataFrame({"x": [0.1, 0.5, 0.9, 0.3], "colour": pd.Categorical(["r", "g", "r", "b"])})
    with pytest.raises(ValueError, match=r"columns \['colour'\] are categorical"):
        DyadicTreeClassifier().fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="could not convert"):
        DyadicTreeClassifier().fit(np.array([["a", 1.0], ["b", 2.0]], dtype=object), [0, 1])


def test_budget_exceeded_names_the_estimated_cell_count():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(500, 3))
    y = (X.sum(axis=1) + rng.normal(scale=0.3, size=500) > 1.5).astype(int)
    with pytest.raises(CellBudgetExceeded,
                       match=r"max_cells=10 cells \(the full dynamic program over A_M would "
                             r"visit up to [0-9.e+]+ non-empty cells\)"):
        DyadicTreeClassifier(max_resolution=4, penalty_scale=0.1, max_cells=10).fit(X, y)
    with pytest.raises(ValueError, match="T_INIT nodes"):
        DyadicTreeClassifier(variant="cyclic", max_resolution=4, penalty_scale=0.1,
                             max_cells=5).fit(X, y)


@pytest.mark.parametrize("params, message", [
    ({"penalty": "bound"}, "'penalty' parameter of DyadicTreeClassifier must be one of 'spatially_adaptive'"),
    ({"variant": "random"}, "'variant' parameter of DyadicTreeClassifier must be one of 'free', 'cyclic'"),
    ({"max_resolution": -1}, "'max_resolution' parameter"),
    ({"max_resolution": 31}, "'max_resolution' parameter"),
    ({"delta": 0.0}, "'delta' parameter"),
    ({"penalty_scale": -1.0}, "'penalty_scale' parameter"),
    ({"max_cells": 0}, "'max_cells' parameter"),
])
def test_bad_parameters_are_named(params, message):
    X = np.arange(20.0).reshape(10, 2)
    with pytest.raises(ValueError, match=message):
        DyadicTreeClassifier(**params).fit(X, [0, 1] * 5)


def test_wrong_parameter_types_are_type_errors():
    with pytest.raises(TypeError, match="max_resolution"):
        DyadicTreeClassifier(max_resolution=[4]).fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="max_resolution"):  # a string, but not "auto"
        DyadicTreeClassifier(max_resolution="4").fit(np.eye(4), [0, 1, 0, 1])
