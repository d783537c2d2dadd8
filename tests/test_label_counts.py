"""Counting integer labels (compiled passes for int64) against np.unique."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound._config import read_only
from treebound._flat._labels import _small_integer_labels, fit_labels
from treebound._kernels.label_counts import label_range, mark_labels


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-5, 40), min_size=1, max_size=60),
       st.sampled_from([np.int64, np.int32, np.uint8, np.int8]), st.booleans())
def test_small_integer_labels_match_unique(labels, dtype, strided):
    y = np.array([abs(v) for v in labels] if dtype == np.uint8 else labels, dtype=dtype)
    if strided:
        y = np.repeat(y, 2)[::2]  # not contiguous: the numpy path
    classes, indices = _small_integer_labels(y)
    expected, inverse = np.unique(y, return_inverse=True)
    np.testing.assert_array_equal(classes, expected)
    assert classes.dtype == y.dtype
    np.testing.assert_array_equal(indices, inverse)
    if expected.shape[0] >= 2:
        got_classes, got_indices = fit_labels(y, y.shape[0], "DecisionTreeClassifier")
        np.testing.assert_array_equal(got_classes, expected)
        np.testing.assert_array_equal(got_indices, inverse)


@settings(deadline=None)  # the first example may compile the kernels
@given(st.lists(st.integers(0, 30), min_size=1, max_size=50))
def test_label_kernels_match_numpy(labels):
    y = read_only(np.array(labels, dtype=np.int64))  # as the callers pass labels
    assert tuple(map(int, label_range(y))) == (int(y.min()), int(y.max()))
    seen = np.zeros(int(y.max()) + 1, dtype=np.bool_)
    mark_labels(y, seen)
    np.testing.assert_array_equal(seen, np.bincount(y) > 0)
