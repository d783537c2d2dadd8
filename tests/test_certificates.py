"""treebound.certify: every supported tree, the compression scheme, refusals, validity."""

import json
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier as SklearnTree
from sklearn.tree import DecisionTreeRegressor as SklearnRegressor
from sklearn.tree import ExtraTreeClassifier

from _model_configs import CONFIGS
from treebound import (
    Certificate,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    DyadicTreeClassifier,
    certify,
)
from treebound._flat._storage import Tree
from treebound.certificates import deployed_tree
from treebound.certificates._compression import compress
from treebound.certificates._counting import may_grow_multiway


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return train_test_split(X, y, test_size=0.25, random_state=1)


def _mixed_frame(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "a": rng.normal(size=n),
        "b": pd.Categorical(rng.choice(list("pqrst"), size=n)),
        "c": rng.integers(0, 4, size=n).astype(float),
        "d": pd.Categorical(rng.choice(["u", "v"], size=n)),
    })
    logit = X["a"] + (X["b"].isin(["p", "q"])) * 1.5 - (X["d"] == "u") + 0.3 * X["c"]
    y = (logit + rng.normal(scale=0.7, size=n) > 0.8).astype(int)
    return X, y


# ------------------------------------------------------------------- what it certifies
@pytest.mark.parametrize("params", CONFIGS[DecisionTreeClassifier], ids=str)
def test_every_treebound_configuration_is_certified(params, cancer):
    X, _, y, _ = cancer
    model = DecisionTreeClassifier(**params).fit(X, y)
    c = certify(model, X, y)
    errors = int(np.count_nonzero(model.predict(X) != y))
    assert c.n_examples == len(y) and c.n_errors == errors
    assert c.n_leaves == model.get_n_leaves()
    assert errors / len(y) <= c.risk_upper_bound <= 1.0
    assert c.risk_lower_bound is None or 0.0 <= c.risk_lower_bound <= errors / len(y)
    # the fitted attribute is the same certificate
    assert model.certificate_.risk_upper_bound == pytest.approx(c.risk_upper_bound, rel=1e-12)


def test_auto_is_the_smaller_of_two_bounds_at_half_delta(cancer):
    X, _, y, _ = cancer
    model = DecisionTreeClassifier(growth="top_down", max_leaf_nodes=12).fit(X, y)
    auto = certify(model, X, y, delta=0.1)
    hti = certify(model, X, y, delta=0.05, method="hti")
    compression = certify(model, X, y, delta=0.05, method="compression")
    assert auto.risk_upper_bound == min(hti.risk_upper_bound, compression.risk_upper_bound)
    assert auto.details["combined"] == ("hti", "compression")
    assert certify(model, X, y, delta=0.1, method="hti").risk_upper_bound < hti.risk_upper_bound
    # the Shawe-Taylor bound that pruning minimizes is much looser
    assert certify(model, X, y, method="shawe_taylor").risk_upper_bound > hti.risk_upper_bound


def test_certificate_is_not_vacuous_on_breast_cancer(cancer):
    X, X_test, y, y_test = cancer
    model = DecisionTreeClassifier(pruning="ccp_cv", random_state=0).fit(X, y)
    c = certify(model, X, y)
    test_error = np.mean(model.predict(X_test) != y_test)
    assert test_error < c.risk_upper_bound < 0.35
    held_out = certify(model, X_test, y_test, method="test_set")
    assert held_out.risk_lower_bound <= test_error <= held_out.risk_upper_bound
    assert "at most" in str(c) and "95" in str(c)


def test_categorical_and_multiway_trees():
    X, y = _mixed_frame()
    binary = DecisionTreeClassifier(max_leaf_nodes=10, growth="top_down").fit(X, y)
    multiway = DecisionTreeClassifier(max_leaf_nodes=10, growth="top_down",
                                      categorical_split="multiway").fit(X, y)
    assert not binary.tree_.flat.is_binary or True
    assert not multiway.tree_.flat.is_binary  # the five-level feature is used
    for model in (binary, multiway):
        for method in ("auto", "hti", "compression", "shawe_taylor"):
            c = certify(model, X, y, method=method)
            assert c.n_errors / c.n_examples <= c.risk_upper_bound
        assert certify(model, X, y).risk_upper_bound < 1.0
    assert may_grow_multiway(multiway, multiway.tree_.flat.n_categories)
    assert certify(multiway, X, y, method="hti").details["growth_bound"] == "leaf_assignments"


def test_sklearn_trees_are_read_from_tree_(cancer):
    X, X_test, y, _ = cancer
    for model in (SklearnTree(max_leaf_nodes=9, random_state=0),
                  SklearnTree(ccp_alpha=0.01, random_state=0),
                  SklearnTree(max_depth=3, class_weight="balanced", random_state=0)):
        model.fit(X, y)
        deployed = deployed_tree(model, X_test)
        assert np.array_equal(deployed.classes[deployed.predict_index()], model.predict(X_test))
        assert deployed.tree.n_leaves == model.get_n_leaves()
        c = certify(model, X, y)
        assert c.n_leaves == model.get_n_leaves() and c.risk_upper_bound < 0.4


def test_sklearn_tree_and_treebound_tree_agree_when_identical():
    X, y = load_iris(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)  # same floats for both libraries
    ours = DecisionTreeClassifier(max_depth=2).fit(X, y)
    theirs = SklearnTree(max_depth=2, random_state=0).fit(X, y)
    assert np.array_equal(ours.predict(X), theirs.predict(X))
    for method in ("hti", "shawe_taylor"):
        assert certify(ours, X, y, method=method).risk_upper_bound == pytest.approx(
            certify(theirs, X, y, method=method).risk_upper_bound, rel=1e-9)


def test_random_thresholds_have_no_compression_set(cancer):
    X, _, y, _ = cancer
    model = ExtraTreeClassifier(max_leaf_nodes=6, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="not the midpoint"):
        certify(model, X, y, method="compression")
    c = certify(model, X, y)
    assert c.details["combined"] == ("hti",) and "compression_not_applicable" in c.details
    # still hti at delta / 2 (the split of delta is fixed in advance)
    assert c.risk_upper_bound == certify(model, X, y, delta=0.025, method="hti").risk_upper_bound


def test_dyadic_trees_get_the_prefix_code_bound():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(600, 2))
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.75)).astype(int)
    y[rng.uniform(size=600) < 0.1] ^= 1
    model = DyadicTreeClassifier(max_resolution=3, penalty_scale=0.3).fit(X, y)
    c = certify(model, X, y, method="prefix_code")
    assert c.details["compression_size"] <= 4  # min and max of the split features
    assert c.n_errors / 600 <= c.risk_upper_bound < 0.3
    auto = certify(model, X, y)
    assert auto.details["combined"] == ("prefix_code", "hti")
    assert model.certificate_.risk_upper_bound == auto.risk_upper_bound
    with pytest.raises(ValueError, match="prefix_code"):
        certify(DecisionTreeClassifier().fit(X, y), X, y, method="prefix_code")
    # the grid is rebuilt from the compression set: min/max of every split feature
    used = np.unique(model.tree_.flat.feature[model.tree_.flat.first_child >= 0])
    for f in used:
        assert X[:, f].min() == model.data_min_[f]
        assert X[:, f].max() - X[:, f].min() == model.data_range_[f]


# ------------------------------------------------------------- the compression scheme
def _rebuilt_tree(deployed, compression):
    """The tree rebuilt from the compression pairs alone: thresholds from the pairs' values."""
    tree = deployed.tree
    features = deployed.features
    rebuilt = tree.copy()
    values = features[compression.pairs, tree.feature[compression.nodes][:, None]]
    rebuilt.threshold[compression.nodes] = deployed.midpoint(values[:, 0], values[:, 1])
    return rebuilt


@pytest.mark.parametrize("kind", ["exact", "hist", "sklearn", "categorical", "multiway",
                                  "purity"])
def test_compression_rebuilds_the_deployed_tree_on_every_input(kind, cancer):
    X, X_test, y, _ = cancer
    if kind in ("categorical", "multiway"):
        X, y = _mixed_frame(seed=3)
        X_test = _mixed_frame(seed=4)[0]
        model = DecisionTreeClassifier(
            max_leaf_nodes=12, growth="top_down",
            categorical_split="multiway" if kind == "multiway" else "binary").fit(X, y)
    elif kind == "sklearn":
        model = SklearnTree(max_leaf_nodes=15, random_state=0).fit(X, y)
    else:
        model = DecisionTreeClassifier(
            splitter="hist" if kind == "hist" else "best", max_bins=16,
            max_leaf_nodes=None if kind == "purity" else 15, growth="top_down").fit(X, y)
    deployed = deployed_tree(model, X)
    wrong = deployed.predict_index() != np.searchsorted(deployed.classes, np.asarray(y))
    compression = compress(deployed, wrong, may_grow_multiway(model, deployed.n_categories))
    assert not isinstance(compression, str), compression
    assert compression.size <= 2 * compression.nodes.shape[0]
    assert set(compression.pairs.ravel()) == set(compression.rows)
    rebuilt = _rebuilt_tree(deployed, compression)
    assert np.array_equal(rebuilt.threshold[compression.nodes],
                          deployed.tree.threshold[compression.nodes])
    # every input: new rows, and values exactly at and next to every threshold
    probe = deployed_tree(model, X_test).features
    rng = np.random.default_rng(0)
    rows = probe[rng.integers(0, probe.shape[0], size=4 * len(compression.nodes) + 10)].copy()
    for s, node in enumerate(compression.nodes):
        t = deployed.tree.threshold[node]
        for r, value in enumerate((t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf))):
            rows[(3 * s + r) % rows.shape[0], deployed.tree.feature[node]] = value
    assert np.array_equal(rebuilt.apply(rows), deployed.tree.apply(rows))


def test_compression_prefers_shared_and_misclassified_rows():
    X = np.array([[0.0], [1.0], [1.0], [2.0], [3.0], [3.0]])
    y = np.array([0, 1, 0, 1, 0, 1])
    model = DecisionTreeClassifier(max_leaf_nodes=3, growth="top_down").fit(X, y)
    deployed = deployed_tree(model, X)
    wrong = deployed.predict_index() != y
    compression = compress(deployed, wrong, False)
    for row in compression.rows:
        value_rows = np.flatnonzero(X[:, 0] == X[row, 0])
        if wrong[value_rows].any():
            assert wrong[row]


# ---------------------------------------------------------------------------- refusals
def test_what_cannot_be_certified_is_refused(cancer):
    X, X_test, y, _ = cancer
    model = DecisionTreeClassifier(max_leaf_nodes=5).fit(X, y)
    with pytest.raises(TypeError, match="regressor"):
        certify(DecisionTreeRegressor().fit(X, y.astype(float)), X, y)
    with pytest.raises(TypeError, match="regressor"):
        certify(SklearnRegressor().fit(X, y), X, y)
    with pytest.raises(TypeError, match="cannot read"):
        certify(object(), X, y)
    with pytest.raises(NotFittedError):
        certify(DecisionTreeClassifier(), X, y)
    with pytest.raises(NotFittedError):
        certify(SklearnTree(), X, y)
    with pytest.raises(ValueError, match="features"):
        certify(model, X[:, :5], y)
    with pytest.raises(ValueError, match="features"):
        certify(SklearnTree().fit(X, y), X[:, :5], y)
    for delta in (0.0, 1.0, -0.1, 2.0, float("nan")):
        with pytest.raises(ValueError, match="delta"):
            certify(model, X, y, delta=delta)
    with pytest.raises(ValueError, match="unknown certificate method"):
        certify(model, X, y, method="magic")
    with pytest.raises(ValueError, match="training sample"):
        certify(model, X_test, y[: len(X_test)])
    with pytest.raises(ValueError, match="never saw"):
        certify(model, X, np.where(y == 1, 7, y))
    with pytest.raises(ValueError, match="rows"):
        certify(model, X, y[:-1])
    two = SklearnTree(max_depth=2).fit(X, np.column_stack([y, y]))
    with pytest.raises(ValueError, match="single-output"):
        certify(two, X, y)


def test_test_set_method_counts_unseen_labels_as_errors(cancer):
    X, X_test, y, y_test = cancer
    model = DecisionTreeClassifier(max_leaf_nodes=5).fit(X, y)
    y_odd = y_test.copy()
    y_odd[:3] = 9
    with pytest.warns(UserWarning, match="never saw"):
        c = certify(model, X_test, y_odd, method="test_set")
    assert c.n_errors >= 3


# -------------------------------------------------------------------- weights and files
def test_certificate_counts_rows_not_weights(cancer):
    X, _, y, _ = cancer
    weights = np.ones(len(y))
    weights[0] = 1e300  # one row outweighs all the others
    weights[1:4] = 0.0  # zero weight removes a row
    with pytest.warns(UserWarning, match="pruning_objective_ is None"):
        model = DecisionTreeClassifier(pruning="bound").fit(X, y, sample_weight=weights)
    assert model.pruning_objective_ is None  # the Shawe-Taylor value reads weighted counts
    c = model.certificate_
    keep = weights > 0
    assert c.n_examples == int(keep.sum())
    assert c.n_errors == int(np.count_nonzero(model.predict(X[keep]) != y[keep]))
    assert c.risk_upper_bound >= c.n_errors / c.n_examples
    assert certify(model, X[keep], y[keep]).risk_upper_bound == c.risk_upper_bound


def test_certificate_round_trips_through_model_files(cancer, tmp_path):
    from treebound import load_model, save_model

    X, _, y, _ = cancer
    model = DecisionTreeClassifier(max_leaf_nodes=7).fit(X, y)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.certificate_ == model.certificate_
    assert dict(loaded.certificate_.details) == json.loads(json.dumps(
        dict(model.certificate_.details)))
    data = model.to_dict()
    data["extra"]["certificate"]["risk_upper_bound"] = 1.5
    with pytest.raises(ValueError, match="certificate"):
        DecisionTreeClassifier.from_dict(data)
    data["extra"]["certificate"] = None
    assert DecisionTreeClassifier.from_dict(data).certificate_ is None
    assert pickle.loads(pickle.dumps(model)).certificate_ == model.certificate_


def test_certificate_object():
    c = Certificate(0.3, 0.1, "hti", 0.05, 100, 12, 4, {"hti": 0.3})
    with pytest.raises(AttributeError):
        c.risk_upper_bound = 0.1
    with pytest.raises(TypeError):
        c.details["hti"] = 0.2
    assert Certificate.from_dict(c.to_dict()) == c
    assert not c.is_vacuous and Certificate(1.0, None, "hti", 0.05, 10, 1, 1).is_vacuous
    bad = c.to_dict() | {"n_errors": 200}
    with pytest.raises(ValueError, match="n_errors"):
        Certificate.from_dict(bad)
    assert "at least 0.1" in str(c)


# ------------------------------------------------------------- validity by simulation
def _leaf_boxes(tree):
    """Axis-aligned box [lo, hi] of every leaf of a numeric binary tree on [0, 1]^2."""
    boxes = {}
    stack = [(0, np.zeros(2), np.ones(2))]
    while stack:
        node, lo, hi = stack.pop()
        if tree.first_child[node] < 0:
            boxes[node] = (lo, hi)
            continue
        f, t = tree.feature[node], tree.threshold[node]
        left_hi, right_lo = hi.copy(), lo.copy()
        left_hi[f] = min(hi[f], max(lo[f], t))
        right_lo[f] = max(lo[f], min(hi[f], t))
        stack.append((tree.first_child[node], lo, left_hi))
        stack.append((tree.first_child[node] + 1, right_lo, hi))
    return boxes


def _true_risk(tree, noise):
    """Exact risk under X ~ U[0,1]^2, y = f*(x) xor Bernoulli(noise), f* = [x0 > .5] xor
    [x1 > .7]."""
    cuts = [(0.0, 0.5, 1.0), (0.0, 0.7, 1.0)]
    risk = 0.0
    label = tree.majority_class
    for node, (lo, hi) in _leaf_boxes(tree).items():
        for i in range(2):
            for j in range(2):
                width = max(0.0, min(hi[0], cuts[0][i + 1]) - max(lo[0], cuts[0][i]))
                height = max(0.0, min(hi[1], cuts[1][j + 1]) - max(lo[1], cuts[1][j]))
                target = i ^ j
                risk += width * height * (noise if label[node] == target else 1 - noise)
    return risk


def test_certificates_cover_the_true_risk_in_simulation():
    noise, delta, draws = 0.15, 0.05, 200
    rng = np.random.default_rng(2026)
    covered = {"auto": 0, "test_set": 0}
    for _ in range(draws):
        X = rng.uniform(size=(400, 2))
        y = (((X[:, 0] > 0.5) ^ (X[:, 1] > 0.7)) ^ (rng.uniform(size=400) < noise)).astype(int)
        model = DecisionTreeClassifier(max_leaf_nodes=6, growth="top_down").fit(X[:200], y[:200])
        risk = _true_risk(model.tree_.flat, noise)
        covered["auto"] += risk <= certify(model, X[:200], y[:200], delta=delta).risk_upper_bound
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            held_out = certify(model, X[200:], y[200:], delta=delta, method="test_set")
        covered["test_set"] += risk <= held_out.risk_upper_bound
    assert covered["auto"] >= (1 - delta) * draws
    assert covered["test_set"] >= (1 - delta) * draws


def test_true_risk_oracle_is_right():
    # a stump on the first feature at 0.5 predicting [x0 > .5]: errs where x1 > .7 (flipped)
    tree = Tree(first_child=np.array([1, -1, -1]), n_children=np.array([2, 0, 0]),
                feature=np.array([0, -1, -1]), threshold=np.array([0.5, np.nan, np.nan]),
                category_offset=np.full(3, -1), category_child=np.empty(0, dtype=np.int64),
                value=np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 2.0]]), impurity=np.zeros(3),
                n_node_samples=np.array([4, 2, 2]), weighted_n_node_samples=np.ones(3),
                n_categories=np.zeros(2, dtype=np.int64))
    assert _true_risk(tree, 0.0) == pytest.approx(0.3)
    assert _true_risk(tree, 0.1) == pytest.approx(0.3 * 0.9 + 0.7 * 0.1)


def test_wine_multiclass_hti_has_a_lower_bound():
    X, y = load_wine(return_X_y=True)
    model = DecisionTreeClassifier(max_depth=1).fit(X, y)  # two leaves, three classes
    c = certify(model, X, y, method="hti")
    assert c.n_errors > 0 and 0.0 < c.risk_lower_bound < c.n_errors / len(y) < c.risk_upper_bound
