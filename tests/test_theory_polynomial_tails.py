"""Theorem 9's values at one large ``m`` from polynomial tails (:mod:`treebound.theory._tails`):
the same numbers as the full tables (themselves checked against exact integers), and exact
integers directly on small cases; the kernels against plain binomial sums."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _theory_oracles import random_shape
from treebound.theory import PartitioningCache, TreeStructure, _tables, _tails
from treebound.theory.partitioning import (
    _tight_exact_values,
    _tight_log_values,
    ensure_log_tables,
    log_growth_function_upper_bound,
)

P = TreeStructure.parse


def _tail_values(shape, n_parts, m, n_features, cache=None):
    cache = PartitioningCache() if cache is None else cache
    return _tails.tail_root_values(shape.canonical(), n_parts, m, n_features, cache)


def _table_values(shape, n_parts, m, n_features):
    return _tight_log_values(shape.canonical(), n_parts, m, n_features, PartitioningCache(),
                             tails=False)


def _assert_same_logs(got, want, tolerance=1e-10):
    got, want = np.asarray(got), np.asarray(want)
    assert np.array_equal(np.isfinite(got), np.isfinite(want)), (got, want)
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=0,
                               atol=tolerance * max(1.0, float(np.max(np.abs(want[finite])))))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_leaves=st.integers(2, 9), seed=st.integers(0, 2**32 - 1), n_features=st.integers(1, 6),
       n_parts=st.integers(2, 6), m=st.integers(300, 3000))
def test_tails_equal_the_tables(n_leaves, seed, n_features, n_parts, m):
    shape = random_shape(n_leaves, np.random.default_rng(seed))
    got = _tail_values(shape, n_parts, m, n_features)
    assert got is not None  # every anchor is below m here (2 ell <= 12, at most 9 leaves)
    _assert_same_logs(got, _table_values(shape, n_parts, m, n_features))


@pytest.mark.parametrize("text,n_features,n_parts,m", [
    ("(L,L)", 1, 2, 12),
    ("((L,L),L)", 1, 3, 30),
    ("((L,L),(L,L))", 2, 4, 40),
    ("(((L,L),L),(L,(L,L)))", 1, 5, 60),
    ("((((L,L),L),L),L)", 2, 5, 45),
])
def test_tails_equal_exact_integers(text, n_features, n_parts, m):
    shape = P(text).canonical()
    got = _tail_values(shape, n_parts, m, n_features)
    assert got is not None
    exact = _tight_exact_values(shape, n_parts, m, n_features, PartitioningCache())
    want = [math.log(v) if v > 0 else -math.inf for v in exact]
    _assert_same_logs(got, want, tolerance=1e-12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_leaves=st.integers(2, 8), seed=st.integers(0, 2**32 - 1), n_features=st.integers(1, 4),
       n_parts=st.integers(2, 8))
def test_every_subtree_values_equal_its_table(n_leaves, seed, n_features, n_parts):
    """What a parent reads of a child (the table below the polynomial's start, the clipped
    polynomial from there) is the child's full table at every ``k``, including where the clip
    still binds above the start (many parts, few features)."""
    shape = random_shape(n_leaves, np.random.default_rng(seed)).canonical()
    cache = PartitioningCache()
    assert _tail_values(shape, n_parts, 2000, n_features, cache) is not None
    store = cache._store("tight_tail", n_features)
    for sub in shape._postorder():
        tail = store[sub]
        assert tail.first <= tail.anchor
        width = tail.anchor + 4 * sub.n_leaves + 10
        rows = min(n_parts, sub.n_leaves)
        want = ensure_log_tables(sub, n_parts, width, n_features, PartitioningCache())
        got = tail.values(width, cache._log_stirling_upto(width, n_parts), rows + 1)
        _assert_same_logs(got, want[: rows + 1])


def test_the_clip_moves_an_anchor():
    """With many parts and one feature, ``S(m, c)`` is below the polynomial just past its start
    for the high ``c``: the anchor moves, and the values still equal the tables there."""
    shape = P("(((L,L),(L,L)),((L,L),(L,L)))").canonical()
    cache = PartitioningCache()
    got = _tail_values(shape, 8, 400, 1, cache)
    tail = cache._store("tight_tail", 1)[shape]
    assert tail.anchor > tail.first
    _assert_same_logs(got, _table_values(shape, 8, 400, 1))
    for m in (tail.first, tail.anchor - 1, tail.anchor):
        _assert_same_logs(_tail_values(shape, 8, m, 1), _table_values(shape, 8, m, 1))


def test_no_tail_when_an_anchor_passes_m():
    """Many-level categorical features: ``2 ell`` above ``m``; the tables answer instead."""
    shape = P("((L,L),L)")
    assert _tail_values(shape, 2, 500, 300) is None
    cache = PartitioningCache()
    got = _tight_log_values(shape.canonical(), 2, 500, 300, cache)
    _assert_same_logs(got, _table_values(shape, 2, 500, 300))


@pytest.mark.parametrize("first_parts,then_parts", [(2, 5), (5, 2), (3, 3)])
def test_stored_tails_serve_other_sizes_and_parts(first_parts, then_parts):
    """Tails do not depend on ``m``: a cache that stored them answers any ``m`` and any number
    of parts (more parts than stored: computed again) with the same numbers as a fresh one."""
    shape = P("(((L,L),L),((L,L),(L,(L,L))))")
    cache = PartitioningCache()
    log_growth_function_upper_bound(shape, n_examples=4000, n_features=5,
                                    n_classes=first_parts, cache=cache)
    assert cache._store("tight_tail", 5).get(shape.canonical()) is not None
    for m in (900, 5000):
        again = log_growth_function_upper_bound(shape, n_examples=m, n_features=5,
                                                n_classes=then_parts, cache=cache)
        fresh = log_growth_function_upper_bound(shape, n_examples=m, n_features=5,
                                                n_classes=then_parts)
        assert again == fresh


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n_features=st.integers(1, 40), n_parts=st.integers(1, 6),
       width=st.integers(2, 400), same=st.booleans())
def test_low_node_table_equals_the_tables_route(seed, n_features, n_parts, width, same):
    """The linear-space kernel below a tail's start against the tables route's node table,
    on the children's own tables (binomial weights below ``2 ell`` included)."""
    rng = np.random.default_rng(seed)
    left = random_shape(int(rng.integers(1, 5)), rng).canonical()
    right = left if same else random_shape(int(rng.integers(1, 5)), rng).canonical()
    node = TreeStructure.node(left, right).canonical()
    left, right = node.left, node.right  # canonical order
    rows = min(n_parts, node.n_leaves)
    cache = PartitioningCache()
    low_left = ensure_log_tables(left, rows, max(width, 1), n_features, cache)
    low_right = ensure_log_tables(right, rows, max(width, 1), n_features, cache)
    log_stirling = cache._log_stirling_upto(width, rows)
    log_coef = cache._log_coef_upto(rows)
    want = _tables.log_node_table(node.n_leaves, left.n_leaves, right.n_leaves, node.left is
                                  node.right, low_left, low_right, rows, width, n_features,
                                  log_stirling, log_coef)
    got = _tails._low_table(node, low_left, low_right, rows, width, n_features, log_stirling,
                            log_coef)
    _assert_same_logs(got, want, tolerance=1e-12)


def test_low_table_falls_back_before_overflow(monkeypatch):
    """Sums that could pass the linear kernel's limit go to the tables route (the limit lowered
    here so that small sums reach it), with the same values."""
    node = P("((L,L),(L,(L,L)))").canonical()
    cache = PartitioningCache()
    low_left = ensure_log_tables(node.left, 3, 300, 3, cache)
    low_right = ensure_log_tables(node.right, 3, 300, 3, cache)
    calls = []
    tables_route = _tables.log_node_table

    def route(*args):
        calls.append(args)
        return tables_route(*args)

    monkeypatch.setattr(_tables, "log_node_table", route)
    args = (node, low_left, low_right, 3, 300, 3, cache._log_stirling_upto(300, 3),
            cache._log_coef_upto(3))
    linear = _tails._low_table(*args)
    assert not calls
    monkeypatch.setattr(_tails, "LINEAR_LOG_LIMIT", 5.0)
    fallback = _tails._low_table(*args)
    assert len(calls) == 1
    _assert_same_logs(linear, fallback, tolerance=1e-12)


def test_huge_samples_are_priced_by_the_tails():
    """A million or a hundred million points: the tables up to m would need gigabytes (and
    are refused under the default limit), the tails answer at once, increasing in m."""
    shape = random_shape(50, np.random.default_rng(1))
    values = [log_growth_function_upper_bound(shape, n_examples=m, n_features=10, n_classes=3)
              for m in (10**4, 10**6, 10**8)]
    assert all(math.isfinite(v) for v in values)
    assert values[0] < values[1] < values[2]
    # at 10**4 points the tables route is affordable: the same number
    cache = PartitioningCache()
    want = _table_values(shape, 3, 10**4, 10)
    got = _tight_log_values(shape.canonical(), 3, 10**4, 10, cache)
    _assert_same_logs(got, want)
