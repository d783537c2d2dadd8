"""The lane-refilling routing kernels (treebound._kernels.apply) against a naive walk of each
row from the root, on random trees and rows (NaN included)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound._kernels.apply import apply_numeric, apply_numeric_missing


def random_routing(rng, n_internal: int, n_features: int):
    """Routing arrays of a random binary tree: children stored next to each other, leaves
    pointing at themselves (threshold +inf, missing slot 0)."""
    next_base, feature, threshold, missing = [0], [0], [np.inf], [0]
    leaves = [0]
    for _ in range(n_internal):
        node = leaves.pop(int(rng.integers(len(leaves))))
        first = len(next_base)
        next_base[node] = first
        feature[node] = int(rng.integers(n_features))
        threshold[node] = float(rng.normal())
        missing[node] = int(rng.integers(2))
        for child in (first, first + 1):
            next_base.append(child)
            feature.append(0)
            threshold.append(np.inf)
            missing.append(0)
            leaves.append(child)
    return (np.array(next_base, dtype=np.int64), np.array(feature, dtype=np.int64),
            np.array(threshold), np.array(missing, dtype=np.int64))


def naive_apply(next_base, feature, threshold, missing, X):
    out = np.empty(X.shape[0], dtype=np.int64)
    for r in range(X.shape[0]):
        node = 0
        while next_base[node] != node:
            x = X[r, feature[node]]
            slot = missing[node] if np.isnan(x) else int(x > threshold[node])
            node = next_base[node] + slot
        out[r] = node
    return out


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 60), st.integers(0, 200), st.integers(1, 4), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_apply_kernels_match_a_walk_from_the_root(n_internal, n_rows, n_features, with_nan, seed):
    rng = np.random.default_rng(seed)
    next_base, feature, threshold, missing = random_routing(rng, n_internal, n_features)
    X = rng.normal(size=(n_rows, n_features))
    lanes = np.empty(16, dtype=np.int64)
    if not with_nan:
        out = np.full(n_rows, -1, dtype=np.int64)
        apply_numeric(next_base, feature, threshold, X, lanes, out)
        np.testing.assert_array_equal(out, naive_apply(next_base, feature, threshold, missing, X))
    X[rng.random(X.shape) < 0.3] = np.nan
    out = np.full(n_rows, -1, dtype=np.int64)
    apply_numeric_missing(next_base, feature, threshold, missing, X, lanes, out)
    np.testing.assert_array_equal(out, naive_apply(next_base, feature, threshold, missing, X))
