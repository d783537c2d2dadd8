"""The bound of a tree from one of its prunings (certified selection skips candidates with
it): checked against Theorem 9's exact integer tables."""

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _theory_oracles import random_pruning, random_shape
from treebound.theory import (
    PartitioningCache,
    TreeStructure,
    growth_function_upper_bound,
    log_growth_function_upper_bound,
    partitioning_upper_bound,
)
from treebound.theory._pruned_shapes import lost_halvings, pruned_log_growth_lower_bound

P = TreeStructure.parse


def test_lost_halvings_counts_symmetry_broken_by_the_pruning():
    assert lost_halvings(P("((L,L),(L,L))"), P("((L,L),L)")) == 1
    assert lost_halvings(P("((L,L),(L,L))"), P("(L,L)")) == 0  # both halve at the root
    assert lost_halvings(P("((L,L),(L,L))"), P("((L,L),(L,L))")) == 0
    assert lost_halvings(P("((L,L),L)"), P("(L,(L,L))")) is None  # not a pruning in order
    assert lost_halvings(P("(L,L)"), P("L")) == 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), n_leaves=st.integers(2, 9), n_features=st.integers(1, 3),
       n_classes=st.integers(2, 4), p=st.sampled_from([0.2, 0.5]))
def test_every_partitioning_value_dominates_the_prunings_shifted_value(
        seed, n_leaves, n_features, n_classes, p):
    """``pi_T^c(m) 2^s >= pi_T'^c(m - d)`` on exact integers for every ``c, m`` (the lemma),
    and the growth bound from the pruning never above the tree's own."""
    rng = np.random.default_rng(seed)
    outer = random_shape(n_leaves, rng)
    inner = random_pruning(outer, rng, p)
    lost = lost_halvings(outer, inner)
    assert lost is not None
    d = outer.n_leaves - inner.n_leaves
    cache = PartitioningCache()
    for m in range(d + 1, d + 26):
        for c in range(1, min(n_classes, inner.n_leaves) + 1):
            big = partitioning_upper_bound(outer, n_parts=c, n_examples=m,
                                           n_features=n_features, cache=cache)
            small = partitioning_upper_bound(inner, n_parts=c, n_examples=m - d,
                                             n_features=n_features, cache=cache)
            assert big * 2**lost >= small, (str(outer), str(inner), c, m)
        exact = growth_function_upper_bound(outer, n_examples=m, n_features=n_features,
                                            n_classes=n_classes)
        low = pruned_log_growth_lower_bound(outer, inner, n_examples=m, n_features=n_features,
                                            n_classes=n_classes)
        assert low <= math.log(exact) * (1 + 1e-9)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), n_leaves=st.integers(4, 30), n_features=st.integers(1, 40),
       n_examples=st.integers(50, 3000))
def test_log_space_lower_bound_below_the_log_space_bound(seed, n_leaves, n_features,
                                                        n_examples):
    rng = np.random.default_rng(seed)
    outer = random_shape(n_leaves, rng)
    inner = random_pruning(outer, rng, 0.15)
    cache = PartitioningCache()
    low = pruned_log_growth_lower_bound(outer, inner, n_examples=n_examples,
                                        n_features=n_features, n_classes=2, cache=cache)
    value = log_growth_function_upper_bound(outer, n_examples=n_examples,
                                            n_features=n_features, n_classes=2, cache=cache)
    assert low <= value * (1 + 1e-9)


def test_not_a_pruning_gives_none():
    assert pruned_log_growth_lower_bound(P("(L,L)"), P("((L,L),L)"), n_examples=20,
                                         n_features=2, n_classes=2) is None
