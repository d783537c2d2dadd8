"""The one-pass value checks of predict and fit (_kernels/value_checks.py) against numpy's,
and the rows of predict read in place."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from treebound import DecisionTreeClassifier
from treebound._flat._encoding import _numeric_matrix
from treebound._kernels.coding_passes import column_ranges
from treebound._kernels.value_checks import (
    HAS_BEYOND_LIMIT,
    HAS_INFINITE,
    HAS_NAN,
    has_nan,
    range_flags,
    value_flags,
)

LIMIT = float(np.finfo(np.float32).max)
VALUES = st.sampled_from([0.0, -1.5, 2.0, 1e300, -1e39, np.inf, -np.inf, np.nan, LIMIT])


@settings(max_examples=200, deadline=None)
@given(X=arrays(np.float64, st.tuples(st.integers(0, 6), st.integers(1, 5)), elements=VALUES),
       pick=st.lists(st.booleans(), min_size=5, max_size=5))
def test_value_flags_match_numpy(X, pick):
    columns = np.flatnonzero(pick[:X.shape[1]]).astype(np.int64)
    part = X[:, columns] if columns.size else X
    if columns.size == 0:
        columns = np.empty(0, dtype=np.int64)
    flags = value_flags(X, columns, LIMIT)
    assert bool(flags & HAS_INFINITE) == bool(np.isinf(part).any())
    if not np.isinf(part).any():  # the scan stops at an infinite value
        assert bool(flags & HAS_NAN) == bool(np.isnan(part).any())
        finite = part[np.isfinite(part)]
        assert bool(flags & HAS_BEYOND_LIMIT) == bool((np.abs(finite) > LIMIT).any())
    assert has_nan(X) == bool(np.isnan(X).any())


@settings(max_examples=200, deadline=None)
@given(X=arrays(np.float64, st.tuples(st.integers(1, 7), st.integers(1, 10)),
                elements=VALUES | st.integers(-3, 3).map(float)))
def test_column_ranges_and_their_flags_match_numpy(X):
    """The fit's one pass: each column's range without NaN, whether it holds integers only,
    whether X holds a NaN, and the value flags read off the ranges."""
    d = X.shape[1]
    lo, hi, integral = np.empty(d), np.empty(d), np.empty(d, dtype=bool)
    nan = column_ranges(X, lo, hi, integral)
    assert nan == bool(np.isnan(X).any())
    for j in range(d):
        values = X[:, j][~np.isnan(X[:, j])]
        assert lo[j] == (values.min() if values.size else np.inf)
        assert hi[j] == (values.max() if values.size else -np.inf)
        assert integral[j] == bool(np.all(X[:, j] == np.floor(X[:, j])))
    flags = range_flags(lo, hi, nan, LIMIT)
    assert bool(flags & HAS_NAN) == nan
    assert bool(flags & HAS_INFINITE) == bool(np.isinf(X).any())
    if not np.isinf(X).any():
        assert flags == value_flags(X, np.empty(0, dtype=np.int64), LIMIT)


def test_predict_reads_a_c_contiguous_float64_x_in_place():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    assert np.shares_memory(_numeric_matrix(X), X)
    fortran = np.asfortranarray(X)
    converted = _numeric_matrix(fortran)
    assert converted.flags.c_contiguous and not np.shares_memory(converted, fortran)
    model = DecisionTreeClassifier(random_state=0).fit(X, X[:, 0] > 0)
    np.testing.assert_array_equal(model.predict(fortran), model.predict(X))
    np.testing.assert_array_equal(model.predict(X.astype(np.float32)), model.predict(X))


def test_float32_range_is_checked_on_numeric_columns_only():
    X = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    model = DecisionTreeClassifier(random_state=0).fit(X, [0, 1, 1])
    with pytest.raises(ValueError, match="float32"):
        model.predict(np.array([[1e39, 0.0]]))
    with pytest.raises(ValueError, match="infinity"):
        model.predict(np.array([[np.inf, 0.0]]))
    assert model.predict(np.array([[np.nan, 0.0]])).shape == (1,)
