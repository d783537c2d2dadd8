"""certificate_ computed on first read: fit keeps the evidence, not the rows, and the value is
the one certify computes; the compiled grouping of rows by needed value against a plain loop."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_iris

import treebound.certificates as certificates_module
from _theory_oracles import log_tables
from treebound import DecisionTreeClassifier, DyadicTreeClassifier, certify
from treebound._kernels.compression import _SCAN, count_rows_by_value, fill_rows_by_value


@pytest.mark.parametrize("make", [
    lambda: DecisionTreeClassifier(max_leaf_nodes=12, growth="top_down"),
    lambda: DecisionTreeClassifier(splitter="hist", max_bins=16),
    lambda: DyadicTreeClassifier(),
])
def test_pending_certificate_keeps_no_rows_and_equals_certify(make, monkeypatch):
    """Rows above DEFER_BYTES: the evidence is gathered in fit and no row is kept."""
    monkeypatch.setattr(certificates_module, "DEFER_BYTES", 0)
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :4] if isinstance(make(), DyadicTreeClassifier) else X
    model = make().fit(X, y)
    pending = model.__dict__["_certificate"]
    assert pending.deferred is None
    assert pending.sample.deployed.features is None and pending.sample.deployed.model is None
    copy = pickle.loads(pickle.dumps(model))  # pickled before the first read
    assert model.certificate_ == certify(model, X, y)
    assert copy.certificate_ == model.certificate_
    assert model.__dict__["_certificate"] is model.certificate_  # computed once, then kept


@pytest.mark.parametrize("make", [
    lambda: DecisionTreeClassifier(max_leaf_nodes=12, growth="top_down"),
    lambda: DecisionTreeClassifier(splitter="hist", max_bins=16, pruning="bound"),
    lambda: DecisionTreeClassifier(categorical_features=[0], max_depth=4),
    lambda: DyadicTreeClassifier(),
])
def test_deferred_evidence_equals_the_evidence_gathered_in_fit(make, monkeypatch):
    """Small rows: fit keeps a copy and gathers the evidence on the first read; the
    certificate is the one gathered in fit, whatever happens to X or the parameters between,
    and a model pickled or saved before the first read holds no rows."""
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :4].copy() if isinstance(make(), DyadicTreeClassifier) else X.copy()
    X[:, 0] = np.round(X[:, 0])  # a few levels: a categorical column without declared
    # levels gets the refused certificate, deferred like the others
    with monkeypatch.context() as patch:
        patch.setattr(certificates_module, "DEFER_BYTES", 0)
        eager = make().fit(X, y)
        eager_certificate = eager.certificate_
    lazy = make().fit(X, y)
    pending = lazy.__dict__["_certificate"]
    assert pending.sample is None and pending.deferred is not None  # fit was growth alone
    assert pending.n_examples == X.shape[0]
    original = X.copy()
    X[:] = 0.0  # the caller's rows change after fit
    if "max_bins" in lazy.get_params():
        lazy.set_params(max_bins=4)  # not refitted: the certificate is still the fit's
    pickled = pickle.dumps(lazy)  # before the first read: the evidence, not the rows
    assert pending.deferred is None
    assert pending.sample is None or pending.sample.deployed.features is None  # None: refused
    assert len(pickled) < original.nbytes
    assert pickle.loads(pickled).certificate_ == eager_certificate
    assert lazy.certificate_ == eager_certificate
    if eager.get_params().get("categorical_features") is None:  # else certify refuses
        assert certify(eager, original, y) == eager_certificate
    saved = make().fit(original, y)
    assert saved.__dict__["_certificate"].deferred is not None
    data = saved.to_dict()  # saving before the first read
    assert type(saved).from_dict(data).certificate_ == eager_certificate


def test_refits_do_not_keep_earlier_rows():
    X, y = load_iris(return_X_y=True)
    model = DecisionTreeClassifier(max_depth=2).fit(X, y)
    model.fit(X, y)
    kept_model = model.__dict__["_certificate"].deferred[0]
    assert "_certificate" not in kept_model.__dict__


def test_certificate_before_fit_is_an_attribute_error():
    with pytest.raises(AttributeError, match="fit"):
        DecisionTreeClassifier().certificate_  # noqa: B018
    assert not hasattr(DecisionTreeClassifier(), "certificate_")


def test_refit_replaces_the_certificate():
    X, y = load_iris(return_X_y=True)
    model = DecisionTreeClassifier(max_leaf_nodes=2).fit(X, y)
    first = model.certificate_
    model.set_params(max_leaf_nodes=5).fit(X, y)
    assert model.certificate_.n_leaves == 5 and first.n_leaves == 2


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 700), st.integers(1, 4), st.integers(0, 3), st.integers(0, 10_000))
def test_rows_by_value_groups_like_a_plain_loop(n_rows, n_cols, spread, seed):
    # few distinct values over many rows: ranges fill up to the _SCAN rows choose_rows reads
    rng = np.random.default_rng(seed)
    X = rng.integers(-spread, spread + 1, size=(n_rows, n_cols)).astype(np.float64)
    X[rng.random(X.shape) < 0.1] = -0.0  # equal to 0.0
    columns = np.sort(rng.choice(n_cols, size=rng.integers(1, n_cols + 1), replace=False))
    needed = [np.unique(rng.integers(-3, 4, size=rng.integers(1, 5)).astype(np.float64))
              for _ in columns]
    offset = np.concatenate([[0], np.cumsum([v.size for v in needed])]).astype(np.int64)
    pooled = np.concatenate(needed)
    start = np.empty(pooled.size + 1, dtype=np.int64)
    count_rows_by_value(X, columns.astype(np.int64), pooled, offset, start)
    rows = np.empty(start[-1], dtype=np.int64)
    fill_rows_by_value(X, columns.astype(np.int64), pooled, offset, start, start[:-1].copy(),
                       rows)
    for f, j in enumerate(columns):
        for i, value in enumerate(needed[f]):
            at = offset[f] + i
            expected = [r for r in range(n_rows) if X[r, j] == value][:_SCAN]
            assert rows[start[at]:start[at + 1]].tolist() == expected


def test_many_level_categorical_trees_get_theorem9_computed_like_the_direct_sums():
    # ell = 3 (2^11 - 1): Theorem 9's weight min(2 ell, C(m, k)) varies over the whole range,
    # summed by subtraction (constant-weight FFT sums minus the edge deficits), not directly.
    from treebound.pruning.bound import effective_n_features
    from treebound.theory import PartitioningCache
    from treebound.theory._fitted_shapes import subtree_structures
    from treebound.theory.partitioning import log_growth_function_upper_bound

    rng = np.random.default_rng(0)
    X = rng.integers(0, 12, size=(600, 3)).astype(float)
    y = (X[:, 0] % 3 == 0).astype(int) ^ (rng.random(600) < 0.05)
    cat = DecisionTreeClassifier(max_leaf_nodes=6, growth="top_down", categorical_features=[0, 1, 2],
                                 categorical_split="binary",
                                 categorical_levels={0: 12, 1: 12, 2: 12}).fit(X, y)
    certificate = cat.certificate_
    assert certificate.details["growth_bound"] == "theorem9"
    ell = effective_n_features([13, 13, 13])  # 12 declared levels and "anything else" each
    points = 5 * 600  # m + the default ghost sample 4m
    assert 2 * ell > points
    shape = subtree_structures(cat.tree_.flat)[0].canonical()
    cache = PartitioningCache()
    for child in (shape.left, shape.right):
        log_tables(child, 2, points - 1, ell, "direct", cache)
    direct = log_growth_function_upper_bound(shape, n_examples=points, n_features=ell,
                                             n_classes=2, cache=cache)
    fast = log_growth_function_upper_bound(shape, n_examples=points, n_features=ell, n_classes=2)
    assert fast == pytest.approx(direct, rel=1e-10)


def test_prune_certifies_the_pruned_tree_not_the_grown_one():
    from treebound import prune

    X, y = load_breast_cancer(return_X_y=True)
    grown = DecisionTreeClassifier(random_state=0).fit(X, y)
    result = prune(grown, X, y, method="ccp_cv", n_folds=3)
    pruned = result.estimator
    assert pruned.certificate_.n_leaves == pruned.get_n_leaves() < grown.get_n_leaves()
    assert pruned.certificate_ == certify(pruned, X, y)
    assert grown.certificate_.n_leaves == grown.get_n_leaves()  # the input is unchanged
    assert prune(grown, method="bound").estimator.certificate_ is None  # no rows given


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3000), st.integers(1, 5000), st.sampled_from(["exact", "hist"]),
       st.integers(0, 10_000))
def test_feature_codes_are_value_ranks_whatever_the_number_of_distinct_values(n_rows, n_values,
                                                                             splitter, seed):
    # both coding paths (argsort ranks for mostly distinct values, search otherwise) agree
    # with the plain definition: a row's code is the first code whose largest value is >= it
    from treebound._flat._feature_coding import code_features

    rng = np.random.default_rng(seed)
    column = rng.choice(rng.normal(size=n_values) * 1e3, size=n_rows) + 0.5
    coded = code_features(column[:, None], np.zeros(1, dtype=np.int64), splitter, 255, 2)
    hi = coded.hi_values[: coded.n_codes[0]]
    expected = np.array([np.flatnonzero(hi >= x)[0] for x in column])
    codes = coded.codes[0] if coded.codes_t.shape[1] == 0 else coded.codes_t[:, 0]
    assert np.array_equal(codes, expected)
