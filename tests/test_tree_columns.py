"""The one-pass tree columns of tree assembly against the numpy selections they replaced."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound._kernels import growth_state as layout
from treebound._kernels.tree_columns import node_columns


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 30), st.integers(0, 2**32 - 1))
def test_node_columns_match_numpy(n_nodes, seed):
    rng = np.random.default_rng(seed)
    ni = rng.integers(-3, 50, size=(n_nodes, layout.N_INT_COLUMNS)).astype(np.int64)
    nf = rng.normal(size=(n_nodes, layout.N_FLOAT_COLUMNS))
    internal = ni[:, layout.I_FIRST_CHILD] >= 0
    categorical = internal & (ni[:, layout.I_CATEGORY_OFFSET] >= 0)
    out = [np.full(n_nodes, -7, dtype=np.int64) for _ in range(5)]
    threshold, weighted = np.zeros(n_nodes), np.zeros(n_nodes)
    got = node_columns(ni, nf, *out, threshold, weighted)
    assert got == bool(categorical.any())
    first_child, n_children, feature, missing_child, n_node_samples = out
    np.testing.assert_array_equal(first_child, ni[:, layout.I_FIRST_CHILD])
    np.testing.assert_array_equal(n_children, np.where(internal, ni[:, layout.I_N_CHILDREN], 0))
    np.testing.assert_array_equal(feature, np.where(internal, ni[:, layout.I_FEATURE], -1))
    np.testing.assert_array_equal(missing_child, np.where(internal, ni[:, layout.I_MISSING], -1))
    np.testing.assert_array_equal(n_node_samples, ni[:, layout.I_N_SAMPLES])
    np.testing.assert_array_equal(
        threshold, np.where(internal & ~categorical, nf[:, layout.F_THRESHOLD], np.nan))
    np.testing.assert_array_equal(weighted, nf[:, layout.F_WEIGHT])
