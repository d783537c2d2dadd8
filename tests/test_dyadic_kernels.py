"""Kernel pieces of the dyadic search: cell keys, the memo table, the split lower bound."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _dyadic_oracles import leaf_penalty
from treebound._kernels.dyadic import (
    PENALTY_PER_LEAF,
    PENALTY_SPATIALLY_ADAPTIVE,
    child_key,
    find_slot,
    grow_table,
    key_layout,
    leaf_cost,
    new_table,
    split_lower_bound,
    table_lookup,
    write_key,
)
from treebound.dyadic import DyadicScaling, DyadicSettings, fit_dyadic_tree
from treebound.dyadic._penalty import depth_constants


@settings(max_examples=60, deadline=None)
@given(d=st.integers(1, 12), resolution=st.integers(1, 30), seed=st.integers(0, 10_000))
def test_cell_keys_are_injective_and_child_keys_agree(d, resolution, seed):
    rng = np.random.default_rng(seed)
    bits, per_word, n_words = key_layout(d, resolution)
    assert n_words == math.ceil(d / (64 // (resolution + 1)))
    levels = rng.integers(0, resolution, size=(2, d))
    heaps = (1 << levels) + rng.integers(0, 1 << levels)
    keys = np.zeros((2, n_words), dtype=np.uint64)
    for row in range(2):
        write_key(heaps[row], bits, per_word, keys[row])
    assert np.array_equal(keys[0], keys[1]) == np.array_equal(heaps[0], heaps[1])
    s = int(rng.integers(0, d))
    child = heaps[0].copy()
    child[s] = 2 * heaps[0, s] + 1
    expected = np.zeros(n_words, dtype=np.uint64)
    write_key(child, bits, per_word, expected)
    out = np.zeros(n_words, dtype=np.uint64)
    child_key(keys[0], s, heaps[0, s], child[s], bits, per_word, out)
    assert np.array_equal(out, expected)


def test_memo_table_keeps_entries_through_growth():
    keys, values, splits, exact = new_table(16, 2)
    stored = {}
    rng = np.random.default_rng(0)
    for i in range(200):
        key = rng.integers(1, 2**40, size=2).astype(np.uint64)
        if 2 * (len(stored) + 1) > keys.shape[0]:
            keys, values, splits, exact = grow_table(keys, values, splits, exact)
        slot = find_slot(keys, key)
        keys[slot] = key
        values[slot] = i
        splits[slot] = i % 7
        exact[slot] = i % 2 == 0
        stored[tuple(key.tolist())] = i
    for key, i in stored.items():
        slot = table_lookup(keys, np.array(key, dtype=np.uint64))
        assert values[slot] == i and splits[slot] == i % 7 and exact[slot] == (i % 2 == 0)
    assert table_lookup(keys, np.array([3, 3], dtype=np.uint64)) == -1


def _subtree_costs(counts, depth, n, d, delta, scale, max_leaves=4):
    """Costs of every way to cut a cell's examples into 2..max_leaves leaves at depth >= j+1
    (geometry ignored: any grouping of the examples, any deeper depths)."""
    examples = np.repeat(np.arange(len(counts)), counts)
    costs = []
    for k in range(2, max_leaves + 1):
        for labels in itertools.product(range(k), repeat=len(examples)):
            labels = np.asarray(labels)
            for depths in itertools.product((depth + 1, depth + 2), repeat=k):
                total = 0.0
                for leaf, leaf_depth in enumerate(depths):
                    members = examples[labels == leaf]
                    errors = members.size - (np.bincount(members).max() if members.size else 0)
                    total += errors / n + scale * leaf_penalty(members.size, leaf_depth, n, d,
                                                               delta)
                costs.append(total)
    return costs


@pytest.mark.parametrize("counts", [(3, 1), (2, 2), (4, 0), (1, 1, 2), (0, 0)])
@pytest.mark.parametrize("scale", [0.05, 1.0])
def test_split_lower_bound_is_below_every_split_subtree(counts, scale):
    n, d, delta, depth = 8, 3, 1 / 8, 1
    pen_a, pen_b = depth_constants(6, n, d, delta, scale)
    counts = np.asarray(counts, dtype=np.int64)
    bound = split_lower_bound(PENALTY_SPATIALLY_ADAPTIVE, counts, depth, pen_a, pen_b, 0.0, 1 / n)
    assert bound <= min(_subtree_costs(counts, depth, n, d, delta, scale)) + 1e-12
    leaf = leaf_cost(PENALTY_SPATIALLY_ADAPTIVE, counts, depth, pen_a, pen_b, 0.0, 1 / n)
    assert leaf == pytest.approx((counts.sum() - counts.max()) / n
                                 + scale * leaf_penalty(counts.sum(), depth, n, d, delta))
    per_leaf = split_lower_bound(PENALTY_PER_LEAF, counts, depth, pen_a, pen_b, 0.03, 1 / n)
    assert per_leaf >= 0.06 - 1e-15


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), data=st.data())
def test_objective_does_not_depend_on_the_order_of_features(seed, data):
    # d = 7 with L = 9 packs cell keys into two 64-bit words; permuting the features moves the
    # coordinates between the words
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(150, 7))
    y = ((X[:, 0] + X[:, 3] > 1) ^ (rng.uniform(size=150) < 0.1)).astype(int)
    permutation = np.asarray(data.draw(st.permutations(range(7))))
    objectives = []
    for columns in (np.arange(7), permutation):
        scaling, varying = DyadicScaling.fit(X[:, columns], 9)
        fit = fit_dyadic_tree(scaling.grid(X[:, columns]), y, 2, varying,
                              DyadicSettings(resolution=9, delta=1 / 150, penalty_scale=0.05))
        objectives.append(fit.objective)
        assert fit.n_cells_evaluated > 50  # a real search, not a single provable leaf
    assert objectives[0] == pytest.approx(objectives[1], abs=1e-12)
