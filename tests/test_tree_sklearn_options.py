"""scikit-learn's growth options on treebound's estimators: monotonic_cst,
min_weight_fraction_leaf, splitter="random", the regressor's criteria and their errors and
warnings, and the certificates of the trees they grow."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from treebound import DecisionTreeClassifier, DecisionTreeRegressor, certify


def _classification(n=600, seed=42):
    return make_classification(n_samples=n, n_classes=2, n_features=5, n_informative=5,
                               n_redundant=0, random_state=seed)


def _shifted(X, feature, by):
    Z = X.copy()
    Z[:, feature] += by
    return Z


@pytest.mark.parametrize("pruning", [None, "bound", "ccp_cv"])
def test_monotonic_classifier_probabilities_are_monotone_to_the_last_bit(pruning):
    # seed 42: two leaves clipped to the same bound; weighted counts made their probabilities
    # differ by 1e-16 (scikit-learn's test compares them exactly)
    X, y = _classification(1000)
    X, y = X[:900], y[:900]
    cst = [1, -1, 0, 0, 0]
    model = DecisionTreeClassifier(monotonic_cst=cst, pruning=pruning, random_state=42)
    model.fit(X, y)
    p = model.predict_proba(X)[:, 1]
    assert np.all(model.predict_proba(_shifted(X, 0, 10))[:, 1] >= p)
    assert np.all(model.predict_proba(_shifted(X, 0, -10))[:, 1] <= p)
    assert np.all(model.predict_proba(_shifted(X, 1, 10))[:, 1] <= p)
    assert np.all(model.predict_proba(_shifted(X, 1, -10))[:, 1] >= p)


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error", "poisson"])
def test_monotonic_regressor_through_the_estimator(criterion):
    X, y = make_regression(n_samples=400, n_features=4, random_state=0)
    if criterion == "poisson":
        y = np.exp(y / np.abs(y).max())
    model = DecisionTreeRegressor(criterion=criterion, monotonic_cst=np.array([1, -1, 0, 0]),
                                  max_depth=6).fit(X, y)
    p = model.predict(X)
    assert np.all(model.predict(_shifted(X, 0, 5)) >= p)
    assert np.all(model.predict(_shifted(X, 1, 5)) <= p)


def test_monotonic_cst_errors_are_scikit_learns():
    X, y = [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]], [1, 0, 1, 0, 1]
    with pytest.raises(ValueError, match="monotonic_cst has shape 3 but the input data X has 2"):
        DecisionTreeClassifier(monotonic_cst=[-1, 1, 0]).fit(X, y)
    with pytest.raises(ValueError, match=r"-1, 0 or 1, but got \[-2  2\]"):
        DecisionTreeClassifier(monotonic_cst=[-2, 2]).fit(X, y)
    with pytest.raises(ValueError, match="multiclass"):
        DecisionTreeClassifier(monotonic_cst=[1, 0]).fit(X, [0, 1, 2, 0, 1])
    with pytest.raises(TypeError, match="'monotonic_cst' parameter .* must be None or an arr"):
        DecisionTreeClassifier(monotonic_cst="increasing").fit(X, y)


def test_min_weight_fraction_leaf_through_the_estimator():
    X, y = _classification(300)
    w = np.random.default_rng(0).uniform(0.1, 3.0, size=300)
    model = DecisionTreeRegressor(min_weight_fraction_leaf=0.1).fit(X, y.astype(float), w)
    flat = model.tree_.flat
    assert np.all(flat.weighted_n_node_samples[flat.is_leaf] >= 0.1 * w.sum() * (1 - 1e-12))
    assert model.get_n_leaves() > 2
    with pytest.raises(ValueError, match="min_weight_fraction_leaf"):
        DecisionTreeClassifier(min_weight_fraction_leaf=0.6).fit(X, y)


def test_friedman_mse_warns_and_is_squared_error():
    X, y = make_regression(n_samples=200, n_features=3, random_state=1)
    with pytest.warns(FutureWarning, match="friedman_mse"):
        model = DecisionTreeRegressor(criterion="friedman_mse", max_depth=4)
    assert model.criterion == "squared_error"
    expected = DecisionTreeRegressor(max_depth=4).fit(X, y).predict(X)
    np.testing.assert_array_equal(model.fit(X, y).predict(X), expected)


def test_poisson_target_is_checked_before_the_shapes():
    # scikit-learn validates X and y separately, then the Poisson target, then their lengths
    model = DecisionTreeRegressor(criterion="poisson")
    with pytest.raises(ValueError, match="Some value.*y are negative.*Poisson"):
        model.fit([[0, 1, 2]], [5, -0.1, 2])
    with pytest.raises(ValueError, match="Sum of y is not positive.*Poisson"):
        model.fit([[0, 1, 2]], [0, 0, 0])


# ------------------------------------------------------------------------------ certificates


def test_random_thresholds_are_certified_by_hti_alone():
    X, y = _classification(500, seed=3)
    model = DecisionTreeClassifier(splitter="random", max_leaf_nodes=12, growth="top_down",
                                   random_state=0).fit(X, y)
    # same class of trees, same counts: hti at delta / 2 is what "auto" reports, since
    # compression cannot rebuild a drawn threshold
    with pytest.raises(ValueError, match="not the midpoint of two training values"):
        certify(model, X, y, method="compression")
    hti = certify(model, X, y, method="hti", delta=0.025)
    certificate = model.certificate_
    assert certificate.risk_upper_bound == hti.risk_upper_bound < 1
    assert certificate.n_errors == int(np.sum(model.predict(X) != y))
    assert certificate.n_leaves == model.get_n_leaves() == 12


def test_monotonic_and_weighted_trees_are_certified_on_rows_and_errors():
    X, y = _classification(500, seed=5)
    w = np.where(y == 1, 5.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bound pruning's note on unequal weights
        model = DecisionTreeClassifier(monotonic_cst=[1, -1, 0, 0, 0], class_weight="balanced",
                                       min_weight_fraction_leaf=0.02, random_state=0)
        model.fit(X, y, sample_weight=w)
    certificate = model.certificate_
    # every row once, the errors of the deployed tree (clipped leaves included)
    assert certificate.n_examples == 500
    assert certificate.n_errors == int(np.sum(model.predict(X) != y))
    # thresholds are midpoints of training values: compression applies
    compression = certify(model, X, y, method="compression")
    assert 0 < compression.risk_upper_bound < 1
