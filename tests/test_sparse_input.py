"""scipy.sparse X: fit on CSC/CSR/COO, prediction on CSR, and the sparse growth kernel (which
never densifies) against the dense kernels: the same trees."""

import numpy as np
import pytest
import scipy.sparse as sp

import treebound._flat._sparse as sparse_module
from treebound import DecisionTreeClassifier, DecisionTreeRegressor, DyadicTreeClassifier

TREE_ARRAYS = ("first_child", "feature", "threshold", "n_node_samples", "missing_child")


def _sparse_problem(n=600, d=40, density=0.08, seed=0, regression=False):
    """A sparse matrix with positive and negative values, ties and explicit zeros."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed,
                  data_rvs=lambda k: np.round(rng.normal(size=k), 1))
    X.data[::7] = 0.0  # explicit zeros are zeros
    dense = X.toarray()
    signal = dense[:, 0] - dense[:, 1] + 0.5 * dense[:, 2] + rng.normal(scale=0.3, size=n)
    y = signal if regression else (signal > 0).astype(int) + (dense[:, 3] > 0)
    return X, dense, y


@pytest.fixture
def always_sparse(monkeypatch):
    """Every sparse X stays sparse (the kernels that never densify), however small."""
    monkeypatch.setattr(sparse_module, "DENSE_CELLS", 0)


def _same_tree(a, b, exact=True):
    for name in TREE_ARRAYS:
        x, y = np.asarray(getattr(a.tree_, name)), np.asarray(getattr(b.tree_, name))
        assert x.shape == y.shape, name
        if exact or name != "threshold":
            np.testing.assert_array_equal(x, y, err_msg=name)
        else:
            np.testing.assert_allclose(x, y, err_msg=name)
    np.testing.assert_allclose(a.tree_.value, b.tree_.value, rtol=1e-9)


@pytest.mark.parametrize("layout", ["csr", "csc", "coo"])
def test_small_sparse_input_fits_and_predicts_as_dense(layout):
    X, dense, y = _sparse_problem()
    model = DecisionTreeClassifier(max_depth=6).fit(X.asformat(layout), y)
    reference = DecisionTreeClassifier(max_depth=6).fit(dense, y)
    _same_tree(model, reference)
    np.testing.assert_array_equal(model.predict(X), reference.predict(dense))
    np.testing.assert_array_equal(model.predict_proba(X), reference.predict_proba(dense))
    np.testing.assert_array_equal(model.apply(X), reference.apply(dense))
    assert (model.decision_path(X) != reference.decision_path(dense)).nnz == 0
    assert model.certificate_.risk_upper_bound == reference.certificate_.risk_upper_bound


@pytest.mark.parametrize("splitter", ["best", "hist"])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_sparse_kernel_grows_the_dense_tree(always_sparse, splitter, criterion):
    X, dense, y = _sparse_problem()
    params = dict(splitter=splitter, criterion=criterion, max_bins=8)
    model = DecisionTreeClassifier(**params).fit(X.tocsc(), y)
    reference = DecisionTreeClassifier(**params).fit(dense, y)
    assert sp.issparse(model.encode(X))  # the sparse kernels ran
    _same_tree(model, reference)
    np.testing.assert_array_equal(model.predict(X), reference.predict(dense))
    np.testing.assert_array_equal(model.apply(X), reference.apply(dense))
    assert (model.decision_path(X) != reference.decision_path(dense)).nnz == 0


@pytest.mark.parametrize("growth", ["depth_first", "top_down", "best_first", "purest_children"])
def test_sparse_kernel_follows_every_growth_order(always_sparse, growth):
    X, dense, y = _sparse_problem(seed=1)
    params = dict(growth=growth, max_leaf_nodes=9, min_samples_leaf=3)
    _same_tree(DecisionTreeClassifier(**params).fit(X, y),
               DecisionTreeClassifier(**params).fit(dense, y))


def test_sparse_kernel_with_feature_sampling_weights_and_regression(always_sparse):
    X, dense, y = _sparse_problem(seed=2)
    params = dict(max_features=5, random_state=3, max_depth=5)
    _same_tree(DecisionTreeClassifier(**params).fit(X, y),
               DecisionTreeClassifier(**params).fit(dense, y))
    weights = np.random.default_rng(0).uniform(0.5, 2.0, size=y.shape[0])
    _same_tree(DecisionTreeClassifier(max_depth=4).fit(X, y, sample_weight=weights),
               DecisionTreeClassifier(max_depth=4).fit(dense, y, sample_weight=weights),
               exact=False)
    X, dense, target = _sparse_problem(seed=3, regression=True)
    model = DecisionTreeRegressor(max_depth=4).fit(X, target)
    reference = DecisionTreeRegressor(max_depth=4).fit(dense, target)
    _same_tree(model, reference, exact=False)
    np.testing.assert_allclose(model.predict(X), reference.predict(dense))


def test_a_large_sparse_matrix_is_never_densified():
    """100,000 x 20,000 at 0.01 % density: 16 GB dense, 2.4 MB stored."""
    n, d = 100_000, 20_000
    # Coordinates drawn directly: sp.random with a RandomState permutes all n * d cells (16 GB).
    rng = np.random.default_rng(0)
    stored = n * d // 10_000
    rows, cols = rng.integers(0, n, stored), rng.integers(0, d, stored)
    X = sp.coo_matrix((rng.uniform(size=stored), (rows, cols)), shape=(n, d)).tocsc()
    X.sum_duplicates()
    y = (np.asarray(X[:, :50].sum(axis=1)).ravel() > 0).astype(int)
    model = DecisionTreeClassifier(max_depth=8, splitter="hist").fit(X, y)
    assert model.score(X.tocsr(), y) > 0.95
    assert model.apply(X.tocsr()[:10]).shape == (10,)


def test_what_sparse_input_refuses():
    X, dense, y = _sparse_problem(n=60, d=5)
    bad = X.copy()
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DecisionTreeClassifier().fit(bad, y)
    bad.data[0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        DecisionTreeClassifier().fit(bad, y)
    with pytest.raises(TypeError, match="sparse"):
        DyadicTreeClassifier().fit(X, y)
    with pytest.raises(TypeError, match="numeric features only"):
        DecisionTreeClassifier(categorical_features=[0]).fit(X, y)
