"""The threshold-pair search of the compression set against brute force over every pair."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from treebound._kernels.compression import value_pairs
from treebound.certificates._compression import _compiled_rule, _value_pair
from treebound.certificates._deployed import sklearn_midpoint, treebound_midpoint
from treebound.certificates._peers import float32_sklearn_midpoint

RULES = (treebound_midpoint, sklearn_midpoint, float32_sklearn_midpoint)


def _brute_force(column, t, midpoint):
    """Largest ``a <= t`` for which some ``b > t`` has ``midpoint(a, b) == t``."""
    best = None
    for a in column:
        for b in column:
            if a <= t < b and midpoint(np.array([a]), np.array([b]))[0] == t:
                best = a if best is None else max(best, a)
    return best


@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.one_of(st.integers(-30, 30).map(float),
                                 st.floats(-5, 5, allow_nan=False, width=32)),
                       min_size=2, max_size=60),
       pick=st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)),
       rule=st.sampled_from(RULES))
def test_value_pair_matches_brute_force(values, pick, rule):
    midpoint = rule
    column = np.sort(np.asarray(values, dtype=np.float64))
    a, b = column[pick[0] % column.size], column[pick[1] % column.size]
    lo, hi = min(a, b), max(a, b)
    # a threshold from some pair (often not neighbours), or one no pair gives
    t = float(midpoint(np.array([lo]), np.array([hi]))[0]) if lo < hi else float(lo) + 0.123
    expected = _brute_force(column, t, midpoint)
    found = _value_pair(column, t, midpoint)
    if expected is None:
        # only the adjacent-float fallback may still answer, and then validly
        assert found is None or (found[0] == t and found[1] > t)
        return
    assert found is not None
    assert found[0] == expected
    assert found[0] <= t < found[1]
    assert midpoint(np.array([found[0]]), np.array([found[1]]))[0] == t
    # the compiled search gives the same pair
    low, high = np.empty(1), np.empty(1)
    value_pairs(column, np.array([t]), _compiled_rule(midpoint), low, high)
    assert (low[0], high[0]) == found


def test_value_pair_far_from_the_threshold_uses_the_larger_chunks():
    column = np.sort(np.concatenate([np.arange(1000.0), [5000.0]]))
    # 2500 = midpoint(0, 5000): the only pair lies 2,500 values below t
    assert _value_pair(column, 2500.0, treebound_midpoint) == (0.0, 5000.0)
    assert _value_pair(column, 5000.5, treebound_midpoint) is None
    low, high = np.empty(2), np.empty(2)
    value_pairs(column, np.array([2500.0, 5000.5]), _compiled_rule(treebound_midpoint), low, high)
    assert (low[0], high[0]) == (0.0, 5000.0) and np.isnan(low[1]) and np.isnan(high[1])


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.one_of(st.integers(-50, 50).map(float),
                                 st.floats(-5, 5, allow_nan=False, width=32)),
                       min_size=1, max_size=400),
       max_bins=st.integers(2, 40))
@example(values=[0.0] * 5 + [1.0, 2.0, 3.0] + [4.0] * 5, max_bins=4)
def test_bin_extremes_are_the_fit_binning_value_ranges(values, max_bins):
    from treebound._flat._feature_coding import code_features
    from treebound.certificates._compression import bin_extremes

    column = np.asarray(values, dtype=np.float64)
    coded = code_features(column[:, None], np.zeros(1, dtype=np.int64), "hist", max_bins, 2)
    expected = np.unique(np.concatenate([coded.lo_values, coded.hi_values]))
    np.testing.assert_array_equal(bin_extremes(np.sort(column), max_bins), expected)


def test_histogram_tree_thresholds_come_from_bin_extremes():
    from treebound import DecisionTreeClassifier, certify

    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 4))
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=3000) > 1).astype(int)
    model = DecisionTreeClassifier(splitter="hist", max_bins=32).fit(X, y)
    certificate = certify(model, X, y, method="compression")
    assert 0 < certificate.risk_upper_bound <= 1
    assert model.certificate_.risk_upper_bound <= 1
