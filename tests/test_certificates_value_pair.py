"""The threshold-pair search of the compression set against brute force over every pair."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
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
