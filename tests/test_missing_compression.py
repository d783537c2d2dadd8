"""The compression scheme rebuilds the deployed tree, missing-value routing included, from its
compression set and message alone: property-based, over learners (treebound's exact and
histogram splitters, scikit-learn's tree), holes, and dense or sparse X. Equality is checked on
every kind of input: values at, just above and just below every threshold, training values,
new values and NaN."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier as SklearnTree

import treebound._flat._sparse as sparse_module
from treebound import DecisionTreeClassifier, certify
from treebound.certificates import deployed_tree
from treebound.certificates._compression import compress


def _rebuild(deployed, compression):
    """The tree rebuilt from the message and the compression examples only: the shape, every
    node's feature, side and missing-value child (message bits), the leaf classes, and every
    numeric threshold as ``midpoint`` of its pair's values (a missing second value: the test
    "value present", threshold ``+inf``). Nothing is read from the deployed thresholds."""
    tree = deployed.tree
    rebuilt = tree.copy()
    numeric = (tree.first_child >= 0) & (tree.category_offset < 0)
    assert np.array_equal(np.flatnonzero(numeric), compression.nodes)
    rebuilt.threshold[numeric] = np.nan
    j = tree.feature[compression.nodes]
    # the pairs are rows of the compression set: the reconstruction sees those rows only
    kept = _dense(deployed.features)[compression.rows]
    where = np.searchsorted(compression.rows, compression.pairs)
    low, high = kept[where[:, 0], j], kept[where[:, 1], j]
    assert not np.isnan(low).any()
    with np.errstate(invalid="ignore"):
        mids = deployed.midpoint(low, np.nan_to_num(high))
    rebuilt.threshold[compression.nodes] = np.where(np.isnan(high), np.inf, mids)
    if not deployed.missing:  # the message says nothing of missing values then
        rebuilt.missing_child[:] = -1
    return rebuilt


def _dense(features):
    """The deployed rows as a dense array (a sparse X is kept as its tested columns, sparse)."""
    return features.toarray() if sp.issparse(features) else features


def _inputs(deployed, rng, n_random, missing):
    """Rows that probe every threshold: the value, its two float neighbours, training values,
    values never seen, and (with ``missing``) NaN."""
    tree, X = deployed.tree, _dense(deployed.features)
    d = X.shape[1]
    probes = [np.nan_to_num(X[rng.integers(0, X.shape[0], n_random)], nan=0.0)]
    internal = np.flatnonzero(tree.first_child >= 0)
    for node in internal.tolist():
        t = tree.threshold[node]
        if not np.isfinite(t):
            continue
        block = np.repeat(probes[0][:3], 1, axis=0).copy()
        block[:, tree.feature[node]] = [t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf)]
        probes.append(block)
    rows = np.concatenate(probes)
    fresh = rng.random(rows.shape) < 0.2
    rows[fresh] = rng.normal(size=int(fresh.sum())) * (np.nanstd(X) + 1.0)
    if missing:
        rows[rng.random(rows.shape) < 0.25] = np.nan
    assert rows.shape[1] == d
    return rows


def _learner(kind, max_leaf_nodes):
    if kind == "sklearn":
        return SklearnTree(max_leaf_nodes=max_leaf_nodes, random_state=0)
    return DecisionTreeClassifier(splitter=kind, max_bins=8, max_leaf_nodes=max_leaf_nodes,
                                  growth="top_down")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(["best", "hist", "sklearn"]), layout=st.sampled_from(
    ["dense", "dense", "sparse"]), n_rows=st.integers(20, 160), n_features=st.integers(1, 4),
    holes=st.sampled_from([0.0, 0.1, 0.4]), presence=st.booleans(),
    max_leaf_nodes=st.integers(2, 12), seed=st.integers(0, 2**16))
def test_the_rebuilt_tree_is_the_deployed_tree_on_every_input(kind, layout, n_rows, n_features,
                                                               holes, presence, max_leaf_nodes,
                                                               seed):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n_rows, n_features)), 1)  # ties
    y = (X[:, 0] + rng.normal(scale=0.7, size=n_rows) > 0).astype(int)
    if layout == "sparse":
        X[rng.random(X.shape) < 0.6] = 0.0
        X = sp.csr_matrix(X)
    else:
        X[rng.random(X.shape) < holes] = np.nan
        if presence:  # the class is "feature 0 is missing": the test "value present" wins
            X[y == 1, 0] = np.nan
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sparse_module, "DENSE_CELLS", 0)  # sparse X stays sparse
        model = _learner(kind, max_leaf_nodes).fit(X, y)
        deployed = deployed_tree(model, X)
    assert deployed.missing == (layout == "dense" and bool(np.isnan(X).any()))
    wrong = deployed.predict_index() != np.searchsorted(deployed.classes, y)
    compression = compress(deployed, wrong, False)
    assert not isinstance(compression, str), compression
    rebuilt = _rebuild(deployed, compression)
    rows = _inputs(deployed, rng, 40, deployed.missing)
    # equal as functions: the same leaf (same class) on every probe, NaN included
    assert np.array_equal(rebuilt.apply(rows), deployed.tree.apply(rows))
    assert 0.0 < certify(model, X, y, method="compression").risk_upper_bound <= 1.0


def test_scikit_learn_trees_on_sparse_x_are_certified_as_on_dense_x():
    rng = np.random.default_rng(0)
    X = sp.random(400, 30, density=0.1, format="csc", random_state=1)
    y = (X[:, 0].toarray().ravel() + 0.2 * rng.random(400) > 0.15).astype(int)
    cart = SklearnTree(max_depth=4, random_state=0).fit(X, y)
    assert np.array_equal(cart.tree_.threshold, SklearnTree(max_depth=4, random_state=0).fit(
        X.toarray(), y).tree_.threshold)
    deployed = deployed_tree(cart, X)
    tested = np.unique(cart.tree_.feature[cart.tree_.feature >= 0])
    assert deployed.features.shape == (400, tested.size)  # the tested columns, not all 30
    assert np.array_equal(deployed.classes[deployed.predict_index()], cart.predict(X))
    for method in ("auto", "hti", "compression", "shawe_taylor"):
        assert certify(cart, X, y, method=method) == certify(cart, X.toarray(), y,
                                                             method=method)
    with pytest.raises(ValueError, match="NaN"):
        bad = X.tocsr(copy=True)
        bad.data[0] = np.nan
        certify(cart, bad, y)
