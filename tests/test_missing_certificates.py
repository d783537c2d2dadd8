"""Missing values end to end: certificates of trees fitted on rows with NaN (treebound's and
scikit-learn's), the compression scheme rebuilding their routing, the model file's format 2 and
the refusals (dyadic trees, NaN targets, infinity)."""

import json
import math

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.tree import DecisionTreeClassifier as SklearnTree

from treebound import DecisionTreeClassifier, DecisionTreeRegressor, DyadicTreeClassifier, certify
from treebound.certificates import deployed_tree
from treebound.certificates._compression import compress
from treebound.certificates._counting import counted_n_features, log_test_counts


@pytest.fixture(scope="module")
def holes():
    """Breast cancer with 20 % of the values removed at random (seeded)."""
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    X = X.copy()
    X[rng.random(X.shape) < 0.2] = np.nan
    return X, y


def _presence_problem(n=300, seed=1):
    """Rows whose class is "feature 0 is missing" (the test "value present" wins at the root)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (rng.random(n) < 0.5).astype(int)
    X[y == 1, 0] = np.nan
    X[rng.random((n, 3)) < 0.05] = np.nan
    return X, y


def _rebuilt_tree(deployed, compression):
    """The tree rebuilt from the compression pairs and the message alone: every threshold from
    its pair (a missing second value: the test "value present", threshold +inf), the routing of
    missing values from the message (the deployed tree's ``missing_child``)."""
    tree = deployed.tree
    rebuilt = tree.copy()
    values = deployed.features[compression.pairs, tree.feature[compression.nodes][:, None]]
    assert not np.isnan(values[:, 0]).any()
    with np.errstate(invalid="ignore"):
        midpoints = deployed.midpoint(values[:, 0], np.nan_to_num(values[:, 1]))
    rebuilt.threshold[compression.nodes] = np.where(np.isnan(values[:, 1]), np.inf, midpoints)
    rebuilt.missing_child[:] = np.where(tree.first_child >= 0, rebuilt.missing_child, -1)
    return rebuilt


@pytest.mark.parametrize("kind", ["best", "hist", "sklearn", "presence"])
def test_compression_rebuilds_the_routing_of_missing_values_on_every_input(kind, holes):
    X, y = holes
    if kind == "presence":
        X, y = _presence_problem()
        model = DecisionTreeClassifier(max_leaf_nodes=8, growth="top_down").fit(X, y)
        assert np.isinf(model.tree_.threshold).any()
    elif kind == "sklearn":
        model = SklearnTree(max_leaf_nodes=15, random_state=0).fit(X, y)
    else:
        model = DecisionTreeClassifier(splitter=kind, max_bins=16, max_leaf_nodes=15,
                                       growth="top_down").fit(X, y)
    deployed = deployed_tree(model, X)
    assert deployed.missing
    wrong = deployed.predict_index() != np.searchsorted(deployed.classes, y)
    compression = compress(deployed, wrong, False)
    assert not isinstance(compression, str), compression
    assert set(compression.pairs.ravel()) == set(compression.rows)
    rebuilt = _rebuilt_tree(deployed, compression)
    nodes = compression.nodes
    assert np.array_equal(rebuilt.threshold[nodes], deployed.tree.threshold[nodes])
    # every input: new rows with holes, and values at and next to every threshold
    rng = np.random.default_rng(2)
    rows = rng.normal(size=(4 * len(nodes) + 200, X.shape[1])) * np.nanstd(X, axis=0)
    rows += np.nanmean(X, axis=0)
    for s, node in enumerate(nodes):
        t = deployed.tree.threshold[node]
        for r, value in enumerate((t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf))):
            rows[(3 * s + r) % rows.shape[0], deployed.tree.feature[node]] = value
    rows[~np.isfinite(rows)] = 0.0
    rows[rng.random(rows.shape) < 0.3] = np.nan
    assert np.array_equal(rebuilt.apply(rows), deployed.tree.apply(rows))
    if kind == "sklearn":  # the routing read from scikit-learn is its predict's
        as_read = deployed_tree(model, rows).features  # float32, as scikit-learn reads them
        assert np.array_equal(deployed.classes[deployed.leaf_class[deployed.tree.apply(as_read)]],
                              model.predict(rows))


def test_rows_with_missing_values_count_every_routing(holes):
    """A numeric feature counts twice (missing as -inf, as +inf): a node's test costs at most
    one more bit, and Theorem 9's ell grows by the numeric features."""
    X, y = holes
    model = DecisionTreeClassifier(max_leaf_nodes=6, growth="top_down").fit(X, y)
    tree = model.tree_
    internal = tree.first_child >= 0
    plain = log_test_counts(tree, tree.n_categories)
    counted = log_test_counts(tree, tree.n_categories, missing=True)
    assert np.allclose(counted[internal] - plain[internal], math.log(2.0))
    # a categorical feature counted with 4 values (3 declared, "anything else"): 2^3 - 1
    assert counted_n_features([0, 0, 4], missing=True) == 2 * 2 + 7
    assert counted_n_features([0, 0, 4]) == 2 + 7
    assert not deployed_tree(DecisionTreeClassifier(max_depth=2).fit(
        np.nan_to_num(X), y), np.nan_to_num(X)).missing


@pytest.mark.parametrize("splitter", ["best", "hist"])
def test_fit_certificate_with_missing_values_is_certify(splitter, holes):
    X, y = holes
    model = DecisionTreeClassifier(max_leaf_nodes=10, growth="top_down",
                                   splitter=splitter).fit(X, y)
    assert model.certificate_ is not None
    again = certify(model, X, y)
    assert model.certificate_.risk_upper_bound == again.risk_upper_bound
    assert 0.0 < again.risk_upper_bound < 0.5
    for method in ("hti", "compression"):
        assert 0.0 < certify(model, X, y, method=method).risk_upper_bound < 0.6
    assert np.isfinite(certify(model, X, y, method="shawe_taylor").risk_upper_bound)


def test_scikit_learn_trees_fitted_with_missing_values_are_certified(holes):
    X, y = holes
    cart = SklearnTree(max_leaf_nodes=10, random_state=0).fit(X, y)
    deployed = deployed_tree(cart, X)
    go_left = cart.tree_.missing_go_to_left
    # node 0 is the root in both numberings
    assert deployed.tree.missing_child[0] == (0 if go_left[0] else 1)
    assert np.array_equal(deployed.classes[deployed.predict_index()], cart.predict(X))
    certificate = certify(cart, X, y)
    assert 0.0 < certificate.risk_upper_bound < 0.5


def test_missing_values_through_pruning_and_model_files(holes, tmp_path):
    X, y = holes
    for pruning in ("ccp_cv", "bound"):
        model = DecisionTreeClassifier(pruning=pruning, random_state=0).fit(X, y)
        assert model.score(X, y) > 0.85
        loaded = DecisionTreeClassifier.from_dict(json.loads(json.dumps(model.to_dict())))
        assert np.array_equal(loaded.tree_.missing_child, model.tree_.missing_child)
        np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
        assert loaded.certificate_.risk_upper_bound == model.certificate_.risk_upper_bound


@pytest.mark.parametrize("old_version", [1, 2])
def test_older_files_load_with_the_default_routing(holes, old_version):
    X, y = holes
    clean = np.nan_to_num(X)
    model = DecisionTreeClassifier(max_depth=4).fit(clean, y)
    data = model.to_dict()
    assert data["format_version"] == 3 and "missing_child" in data["tree"]
    old = json.loads(json.dumps(data))
    old["format_version"] = old_version
    del old["tree"]["missing_child"]
    if old_version == 1:
        del old["encoder"]["declared_levels"]
    loaded = DecisionTreeClassifier.from_dict(old)
    # a tree fitted without missing values routes them by the default rule: the same array
    assert np.array_equal(loaded.tree_.missing_child, model.tree_.missing_child)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    broken = json.loads(json.dumps(data))
    del broken["tree"]["missing_child"]
    with pytest.raises(ValueError, match="version 3 needs the tree arrays"):
        DecisionTreeClassifier.from_dict(broken)
    mixed = json.loads(json.dumps(data))
    mixed["format_version"] = 2
    with pytest.raises(ValueError, match="version 2 has no tree arrays"):
        DecisionTreeClassifier.from_dict(mixed)


def test_what_missing_values_cannot_do():
    X = np.array([[0.0, 1.0], [1.0, np.nan], [2.0, 0.5], [3.0, 2.0]])
    y = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="contains NaN") as info:
        DyadicTreeClassifier().fit(X, y)
    assert "\n" not in str(info.value)
    fitted = DyadicTreeClassifier().fit(np.nan_to_num(X), y)
    with pytest.raises(ValueError, match="contains NaN"):
        fitted.predict(X)
    with pytest.raises(ValueError, match="NaN"):
        DecisionTreeRegressor().fit(X, [0.0, np.nan, 1.0, 2.0])
    with pytest.raises(ValueError, match="NaN"):
        DecisionTreeClassifier().fit(X, np.array([0.0, np.nan, 1.0, 0.0]))
    inf = X.copy()
    inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        DecisionTreeClassifier().fit(inf, y)
    with pytest.raises(ValueError, match="infinity"):
        certify(DecisionTreeClassifier().fit(X, y), inf, y)
