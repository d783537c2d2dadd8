"""The bound over blocks of points (certified selection skips candidates with it): Theorem 9's
values are nondecreasing in ``m`` (the lemma it rests on), and the bound is never above the
exact growth bound, whatever the cache holds, and equals it with one point a block."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _theory_oracles import random_pruning, random_shape
from treebound._kernels.block_bounds import block_lower_sums
from treebound.theory import (
    PartitioningCache,
    TreeStructure,
    growth_function_upper_bound,
    log_growth_function_upper_bound,
    partitioning_upper_bound,
)
from treebound.theory._pruned_shapes import block_log_growth_lower_bound
from treebound.theory._tables import log_merge_coefficients

P = TreeStructure.parse


def _fill(cache, shape, rng, how, n_examples, n_features, n_classes):
    """Tables of nothing, of a pruning of ``shape``, or of some of its subtrees, in ``cache``."""
    if how == "pruning":
        inner = random_pruning(shape, rng, 0.3)
        log_growth_function_upper_bound(inner, n_examples=n_examples, n_features=n_features,
                                        n_classes=n_classes, cache=cache)
    elif how == "subtrees":
        for sub in shape.subtrees():
            if rng.random() < 0.5:
                log_growth_function_upper_bound(sub, n_examples=n_examples,
                                                n_features=n_features, n_classes=n_classes,
                                                cache=cache)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), n_leaves=st.integers(1, 9), n_features=st.integers(1, 4),
       n_classes=st.integers(2, 5))
def test_theorem9_values_are_nondecreasing_in_m(seed, n_leaves, n_features, n_classes):
    """The lemma: ``pi_T^c(m + 1) >= pi_T^c(m)`` for ``c >= 1``, on exact integers, across
    ``m = L`` (Stirling numbers below, Theorem 9's sums above) too."""
    shape = random_shape(n_leaves, np.random.default_rng(seed))
    cache = PartitioningCache()
    for c in range(1, min(n_classes, n_leaves) + 1):
        values = [partitioning_upper_bound(shape, n_parts=c, n_examples=m,
                                           n_features=n_features, cache=cache)
                  for m in range(0, n_leaves + 25)]
        assert all(values[i + 1] >= values[i] for i in range(len(values) - 1)), (str(shape), c)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), n_leaves=st.integers(2, 9), n_features=st.integers(1, 4),
       n_classes=st.integers(2, 5), n_examples=st.integers(10, 60),
       n_blocks=st.integers(1, 80), how=st.sampled_from(["none", "pruning", "subtrees"]))
def test_block_bound_never_above_the_exact_growth_bound(seed, n_leaves, n_features, n_classes,
                                                        n_examples, n_blocks, how):
    rng = np.random.default_rng(seed)
    shape = random_shape(n_leaves, rng)
    cache = PartitioningCache()
    _fill(cache, shape, rng, how, n_examples, n_features, n_classes)
    low = block_log_growth_lower_bound(shape, n_examples=n_examples, n_features=n_features,
                                       n_classes=n_classes, cache=cache, n_blocks=n_blocks)
    if n_examples <= n_leaves:
        assert low is None
        return
    exact = growth_function_upper_bound(shape, n_examples=n_examples, n_features=n_features,
                                        n_classes=n_classes)
    assert low <= math.log(exact) * (1 + 1e-9), (str(shape), how)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), n_leaves=st.integers(4, 30), n_features=st.integers(1, 40),
       n_examples=st.integers(50, 3000), n_classes=st.integers(2, 8),
       how=st.sampled_from(["none", "pruning", "subtrees"]))
def test_block_bound_below_the_log_space_bound(seed, n_leaves, n_features, n_examples,
                                               n_classes, how):
    rng = np.random.default_rng(seed)
    shape = random_shape(n_leaves, rng)
    cache = PartitioningCache()
    _fill(cache, shape, rng, how, n_examples, n_features, n_classes)
    low = block_log_growth_lower_bound(shape, n_examples=n_examples, n_features=n_features,
                                       n_classes=n_classes, cache=cache)
    value = log_growth_function_upper_bound(shape, n_examples=n_examples,
                                            n_features=n_features, n_classes=n_classes,
                                            cache=PartitioningCache())
    assert low <= value * (1 + 1e-9)


@pytest.mark.parametrize("text", ["((L,L),(L,L))", "(((L,L),L),((L,L),(L,(L,L))))",
                                  "((((L,L),L),L),(L,L))"])
def test_one_point_a_block_gives_the_exact_bound(text):
    """With one ``k`` a block and ``2 ell <= m`` wherever a sum is taken (one feature), every
    term is Theorem 9's own: the bound is the growth bound itself (not a loose number)."""
    shape = P(text)
    for n_examples in (20, 57):
        low = block_log_growth_lower_bound(shape, n_examples=n_examples, n_features=1,
                                           n_classes=3, cache=PartitioningCache(),
                                           n_blocks=n_examples)
        exact = math.log(growth_function_upper_bound(shape, n_examples=n_examples, n_features=1,
                                                     n_classes=3))
        assert low == pytest.approx(exact, rel=1e-12)


def test_block_bound_close_to_the_exact_one_with_a_pruning_in_the_cache():
    """The use in certified selection: a pruning's tables cached, the bound within a
    tenth of the exact one at 64 blocks (not merely below it)."""
    rng = np.random.default_rng(5)
    outer = random_shape(20, rng)
    inner = random_pruning(outer, rng, 0.15)
    cache = PartitioningCache()
    kw = {"n_examples": 2000, "n_features": 6, "n_classes": 5}
    log_growth_function_upper_bound(inner, cache=cache, **kw)
    low = block_log_growth_lower_bound(outer, cache=cache, n_blocks=64, **kw)
    value = log_growth_function_upper_bound(outer, cache=PartitioningCache(), **kw)
    assert 0.9 * value <= low <= value * (1 + 1e-9)


def test_block_sums_kernel_against_a_direct_sum():
    """The kernel's blocks on one step: the products of the grid values, counted per block."""
    rng = np.random.default_rng(0)
    low_left = np.log(rng.uniform(1, 5, size=(3, 6)))
    low_right = np.log(rng.uniform(1, 5, size=(3, 6)))
    low_left[0] = low_right[0] = -np.inf
    log_coef = log_merge_coefficients(2)
    step, n_left, n_right, p = 3, 2, 1, 13
    got = block_lower_sums(low_left, low_right, n_left, n_right, step, np.array([p]),
                           np.array([0.0]), log_coef, 2)[:, 0]
    pair = np.zeros((3, 3))
    for k in range(n_left, p - n_right + 1):  # each term at its block's grid values
        j = k // step
        e = min((j + 1) * step - 1, p - n_right)
        for a in (1, 2):
            for b in (1, 2):
                pair[a, b] += math.exp(low_left[a, j] + low_right[b, (p - e) // step])
    expected = sum(math.exp(log_coef[a, b, 2]) * pair[a, b] for a in (1, 2) for b in (1, 2)
                   if np.isfinite(log_coef[a, b, 2]))
    assert got[2] == pytest.approx(math.log(expected), rel=1e-12)
    assert got[0] == -np.inf and got[1] == -np.inf


def test_shared_tables_are_the_freshly_computed_ones_to_the_bit():
    """Caches share the log Stirling and merge-coefficient tables between them (a fresh cache
    per certificate): slices of a larger table are the smaller table itself, and nothing a
    cache does to its copy reaches the next cache."""
    from treebound._kernels.partitioning import log_stirling2_table
    from treebound.theory import _cache

    first = PartitioningCache()._log_stirling_upto(700, 6)
    assert np.array_equal(first, log_stirling2_table(700, 6))
    first[:] = 0.0  # a caller's own copy
    smaller = PartitioningCache()._log_stirling_upto(300, 4)
    assert np.array_equal(smaller, log_stirling2_table(300, 4))  # a slice of the shared one
    assert smaller.flags.c_contiguous and smaller.flags.writeable
    assert _cache._shared["log_stirling"].shape[1] > 300
    coef = PartitioningCache()._log_coef_upto(5)
    coef[:] = 0.0
    assert np.array_equal(PartitioningCache()._log_coef_upto(5), log_merge_coefficients(5))
