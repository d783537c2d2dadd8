"""The rows fit keeps for the certificate's evidence as their codes (CodedRows): feature coding
says its codes give the rows only when they do (against the matrix itself: bit for bit, a
-0.0 as +0.0), a certificate does not see the sign of a zero, and a certificate whose evidence
waits on coded rows is the one gathered in fit, whatever happens to the caller's X."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import treebound.certificates as certificates_module
from treebound import DecisionTreeClassifier, certify
from treebound._flat._feature_coding import CodedRows, code_features
from treebound.certificates import fit_certificate

SMALL_INTEGERS = st.integers(-3, 3).map(float)
VALUES = (SMALL_INTEGERS | st.sampled_from(
    [-0.0, 0.5, np.nan, 2.0**53, 2.0**53 + 2, 2.0**62, -(2.0**62), 1e30, 255.0, -256.0]))


def _same_values(decoded: np.ndarray, X: np.ndarray) -> bool:
    """Equal bit for bit, except a -0.0 of ``X`` decoded as +0.0."""
    expected = np.where(X == 0, 0.0, X)  # +0.0 for both zeros
    return decoded.shape == X.shape and np.array_equal(decoded.view(np.uint64),
                                                       expected.view(np.uint64))


@settings(max_examples=300, deadline=None)
@given(X=arrays(np.float64, st.tuples(st.integers(1, 9), st.integers(1, 5)), elements=VALUES),
       shift=st.sampled_from([0.0, 100.0, -1000.0, 2.0**40]),
       splitter=st.sampled_from(["hist", "best"]), max_bins=st.sampled_from([2, 4, 255]))
def test_coded_rows_are_the_rows_whenever_coding_says_so(X, shift, splitter, max_bins):
    X = X + shift
    coded = code_features(X, np.zeros(X.shape[1], dtype=np.int64), splitter, max_bins, 2)
    rows = coded.coded_rows()
    if rows is not None:
        assert _same_values(rows.toarray(), np.ascontiguousarray(X))
    integers = not np.isnan(X).any() and bool(np.all(X == np.floor(X)))
    span = float((X.max(axis=0) - X.min(axis=0)).max()) if integers else np.inf
    # every column of integers spanning at most 256 values (in hist mode: fewer than
    # max_bins, none binned): the codes give the rows
    assert (rows is not None) == (span <= 255 and (splitter == "best" or span < max_bins))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), splitter=st.sampled_from(["hist", "best"]),
       budget=st.sampled_from([None, 4]))
def test_certificates_do_not_see_the_sign_of_a_zero(seed, splitter, budget):
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(60, 3)).astype(np.float64)
    y = ((X[:, 0] + rng.integers(-1, 2, size=60)) > 0).astype(int)
    flipped = X.copy()
    zeros = (X == 0) & (rng.random(X.shape) < 0.5)
    flipped[zeros] = -0.0
    model = DecisionTreeClassifier(splitter=splitter, max_leaf_nodes=budget, growth="top_down",
                                   random_state=0).fit(X, y)
    again = DecisionTreeClassifier(splitter=splitter, max_leaf_nodes=budget, growth="top_down",
                                   random_state=0).fit(flipped, y)
    assert again.tree_.flat.n_nodes == model.tree_.flat.n_nodes
    y_idx = np.searchsorted(model.classes_, y)
    eager = fit_certificate(model, X, y_idx, defer=False).resolve()
    assert fit_certificate(model, flipped, y_idx, defer=False).resolve() == eager
    assert again.certificate_ == eager == certify(model, flipped, y)


def test_coded_rows_of_a_dataset_of_levels():
    rng = np.random.default_rng(0)
    X = rng.integers(-2, 9, size=(500, 6)).astype(np.float64)
    X[:, 2] += 1e6  # far from 0: the codes are offsets from the smallest value
    coded = code_features(X, np.zeros(6, dtype=np.int64), "hist", 255, 2)
    rows = coded.coded_rows()
    assert isinstance(rows, CodedRows) and rows.shape == X.shape
    assert rows.codes.nbytes * 8 == X.nbytes
    assert _same_values(rows.toarray(), X)


@pytest.mark.parametrize("splitter", ["hist", "best"])
def test_fit_keeps_small_integer_rows_as_codes_and_certifies_them_as_in_fit(splitter,
                                                                           monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.integers(0, 6, size=(400, 5)).astype(np.float64)
    X[::3, 2] = -0.0
    y = ((X[:, 0] + X[:, 1] > 5) ^ (rng.random(400) < 0.1)).astype(int)
    with monkeypatch.context() as patch:
        patch.setattr(certificates_module, "DEFER_BYTES", 0)
        eager = DecisionTreeClassifier(splitter=splitter, random_state=0).fit(X, y)
        eager_certificate = eager.certificate_
    lazy = DecisionTreeClassifier(splitter=splitter, random_state=0).fit(X, y)
    kept = lazy.__dict__["_certificate"].deferred[1]
    assert isinstance(kept, CodedRows)  # an eighth of a copy of X
    assert not np.shares_memory(kept.codes, X)
    original = X.copy()
    X[:] = -1.0  # the caller's rows change after fit
    assert lazy.certificate_ == eager_certificate == certify(eager, original, y)


def test_rows_grown_on_part_or_not_small_integers_are_copied():
    X = np.array([[0.0, 1.0], [0.0, 2.0], [1.0, 1.0], [2.0, 2.0]] * 5)
    y = np.array([0, 0, 1, 1] * 5)
    model = DecisionTreeClassifier(splitter="hist").fit(X, y)
    assert isinstance(model.__dict__["_certificate"].deferred[1], CodedRows)
    w = np.ones(len(y))
    w[0] = 0.0  # the tree is grown on other rows than X: a copy of the rows with weight
    model = DecisionTreeClassifier(splitter="hist").fit(X, y, sample_weight=w)
    assert isinstance(model.__dict__["_certificate"].deferred[1], np.ndarray)
    assert model.certificate_ == certify(model, X[1:], y[1:])
    X[0, 0] = 0.5  # not integers
    model = DecisionTreeClassifier(splitter="hist").fit(X, y)
    assert isinstance(model.__dict__["_certificate"].deferred[1], np.ndarray)
    assert model.certificate_ == certify(model, X, y)
