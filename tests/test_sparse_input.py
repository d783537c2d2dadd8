"""scipy.sparse X: fit on CSC/CSR/COO, prediction on CSR, and the sparse growth kernel (which
never densifies) against the dense kernels: the same trees."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import treebound._flat._sparse as sparse_module
from treebound import DecisionTreeClassifier, DecisionTreeRegressor, DyadicTreeClassifier
from treebound.certificates import deployed_tree
from treebound.certificates._compression import compress

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


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_rows=st.integers(2, 150), n_features=st.integers(1, 8),
       density=st.sampled_from([0.02, 0.1, 0.4, 1.0]), splitter=st.sampled_from(["best", "hist"]),
       max_leaf_nodes=st.integers(2, 16), seed=st.integers(0, 2**16))
def test_the_sparse_path_gives_the_dense_tree_and_certificate(n_rows, n_features, density,
                                                             splitter, max_leaf_nodes, seed):
    """The lean path (sparse coding and growth, the certificate's evidence read entry by entry
    from the tested columns, never densified) against the dense fit of the same matrix: the
    same tree, the same compression set, the same certificate."""
    rng = np.random.default_rng(seed)
    dense = np.round(rng.normal(size=(n_rows, n_features)), 1)  # ties, and some zeros
    dense[rng.random(dense.shape) >= density] = 0.0
    y = (dense[:, 0] + rng.normal(scale=0.5, size=n_rows) > 0).astype(int)
    X = sp.csc_matrix(dense)
    params = dict(splitter=splitter, max_bins=6, max_leaf_nodes=max_leaf_nodes,
                  growth="top_down")
    reference = DecisionTreeClassifier(**params).fit(dense, y)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sparse_module, "DENSE_CELLS", 0)  # every sparse X stays sparse
        model = DecisionTreeClassifier(**params).fit(X, y)
        assert sp.issparse(model.encode(X))
        lean = deployed_tree(model, X)
    _same_tree(model, reference)
    assert sp.issparse(lean.features)  # the tested columns, still sparse
    assert model.certificate_ == reference.certificate_
    assert model.certificate_.details == reference.certificate_.details
    full = deployed_tree(reference, dense)
    wrong = full.predict_index() != y
    np.testing.assert_array_equal(lean.predict_index(), full.predict_index())
    found, expected = compress(lean, wrong, False), compress(full, wrong, False)
    assert not isinstance(expected, str), expected
    np.testing.assert_array_equal(found.rows, expected.rows)
    np.testing.assert_array_equal(found.pairs, expected.pairs)
    assert found.log_message_prior == expected.log_message_prior


def test_the_sparse_certificate_is_the_eager_one_after_x_changes(always_sparse):
    """A sparse fit gathers its evidence in fit (no copy of X is kept): changing X afterwards
    changes neither the certificate nor its evidence."""
    X, dense, y = _sparse_problem(seed=4)
    X = X.tocsc()
    model = DecisionTreeClassifier(max_leaf_nodes=8, growth="top_down").fit(X, y)
    expected = DecisionTreeClassifier(max_leaf_nodes=8, growth="top_down").fit(dense, y)
    X.data[:] = 0.0  # the caller's matrix changes after fit
    assert model.certificate_ == expected.certificate_


@settings(max_examples=60, deadline=None)
@given(n_rows=st.integers(1, 80), n_features=st.integers(1, 6), density=st.floats(0.0, 1.0),
       decimals=st.integers(0, 2), seed=st.integers(0, 2**16))
def test_the_sparse_codes_are_the_ranks_of_the_dense_columns(n_rows, n_features, density,
                                                            decimals, seed):
    """The column-by-column coding against a naive oracle: every stored nonzero entry's code is
    its value's rank among the dense column's distinct values (zero included when present),
    the entries come sorted by (feature, code, row), and each code's value is that value."""
    from treebound._flat._sparse_coding import code_sparse_features

    rng = np.random.default_rng(seed)
    dense = np.round(rng.normal(size=(n_rows, n_features)), decimals)
    dense[rng.random(dense.shape) >= density] = 0.0
    X = sp.csc_matrix(dense)
    X.data[::5] = 0.0  # explicit zeros are zeros
    dense = X.toarray()
    coded = code_sparse_features(X, "best", 255, 2)
    feat, code, row = (a.astype(np.int64) for a in (coded.seg_feat, coded.seg_code,
                                                     coded.seg_sample))
    assert feat.shape[0] == np.count_nonzero(dense)
    assert np.all(np.diff(feat * 10**9 + code * 10**5 + row) > 0)
    for j in range(n_features):
        distinct = np.unique(dense[:, j])
        mine = feat == j
        expected = np.searchsorted(distinct, dense[row[mine], j])
        np.testing.assert_array_equal(code[mine], expected)
        assert coded.n_codes[j] == distinct.shape[0]
        assert coded.zero_code[j] == (np.searchsorted(distinct, 0.0) if (dense[:, j] == 0).any()
                                      else -1)
        low, high = coded.code_values(j)
        np.testing.assert_array_equal(low, distinct)
        np.testing.assert_array_equal(high, distinct)


@pytest.mark.parametrize(("n_features", "n_distinct", "dtype"), [
    (40, 30, np.int16), (33_000, 30, np.int32), (40, 33_000, np.int32)])
def test_feature_and_code_indices_take_one_width(n_features, n_distinct, dtype):
    """The entries' feature and code indices are both 16-bit or both 32-bit (the growth kernel
    then has two compiled variants, not four), the narrowest holding the larger of the two."""
    from treebound._flat._sparse_coding import code_sparse_features

    rows = np.arange(n_distinct)  # n_distinct values in the first column, one in the last
    X = sp.csc_matrix((np.append(rows + 1.0, 1.0), (np.append(rows, 0),
                                                    np.append(rows * 0, n_features - 1))),
                      shape=(n_distinct, n_features))
    coded = code_sparse_features(X, "best", 255, 2)
    assert coded.seg_feat.dtype == dtype and coded.seg_code.dtype == dtype


@pytest.mark.slow
def test_wide_indices_past_16_bits_give_the_same_tree():
    """Past 32,767 features or codes a column the entries' indices are 32-bit: the same tree
    as the dense fit of the columns that hold values (the empty ones are constant)."""
    rng = np.random.default_rng(5)
    n, d = 40_000, 33_000
    dense = np.zeros((n, 4))
    dense[:, 0] = rng.normal(size=n)  # 40,000 distinct values: codes past int16
    dense[:, 1] = np.where(rng.random(n) < 0.05, 1.0, 0.0)
    dense[:, 2] = np.where(rng.random(n) < 0.1, rng.normal(size=n), 0.0)
    y = (dense[:, 0] + dense[:, 2] + 0.3 * rng.normal(size=n) > 0).astype(int)
    X = sp.hstack([sp.csc_matrix(dense), sp.csc_matrix((n, d - 4))], format="csc")
    from treebound._flat._sparse_coding import code_sparse_features

    coded = code_sparse_features(X, "best", 255, 2)
    assert coded.seg_feat.dtype == np.int32 and coded.seg_code.dtype == np.int32
    params = dict(max_leaf_nodes=12, growth="top_down")
    _same_tree(DecisionTreeClassifier(**params).fit(X, y),
               DecisionTreeClassifier(**params).fit(dense, y))
