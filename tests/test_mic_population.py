"""TopDown / BestFirst in the population setting: kernel vs naive oracle, trees, invariants."""

import numpy as np
import pytest
from hypothesis import given, settings

from _mic_oracles import TruthTable, dnfs_with_distributions, naive_growth_errors
from treebound.mic import ProductDistribution, ReadOnceDNF, best_first, grow, top_down

POLICIES = ["top_down", "best_first"]
TIE_BREAKS = ["least_probable", "most_probable"]


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
@pytest.mark.parametrize("policy", POLICIES)
@given(case=dnfs_with_distributions())
@settings(max_examples=25, deadline=None)
def test_growth_matches_the_naive_oracle(policy, tie_break, case):
    f, d = case
    fast = grow(f, d, 10, policy=policy, tie_break=tie_break).errors
    naive = naive_growth_errors(f, d, 10, policy, tie_break)
    np.testing.assert_allclose(fast, naive, rtol=0, atol=1e-12)


@pytest.mark.parametrize("policy", POLICIES)
@given(case=dnfs_with_distributions(max_terms=3, max_literals=4))
@settings(max_examples=30, deadline=None)
def test_trees_are_consistent_with_errors(policy, case):
    f, d = case
    t_max = 8
    result = grow(f, d, t_max, policy=policy)
    table = TruthTable(f, d)
    assert len(result.trees) == t_max + 1 and result.errors.shape == (t_max + 1,)
    assert np.all(np.diff(result.errors) <= 1e-15)  # a split never increases the error
    for t, tree in enumerate(result.trees):
        assert tree.n_internal == min(t, result.n_splits)
        assert tree.error == pytest.approx(result.errors[t], abs=1e-12)
        # The tree's predictions, weighted by the exact point masses, give the same error.
        wrong = tree.predict(table.X) != table.y
        assert float(table.weight[wrong].sum()) == pytest.approx(result.errors[t], abs=1e-12)
        # No variable is tested twice on a path (features restricted to F_l).
        stack = [(0, frozenset())]
        while stack:
            node, on_path = stack.pop()
            if tree.first_child[node] >= 0:
                assert tree.feature[node] not in on_path
                for value in (0, 1):
                    stack.append((tree.first_child[node] + value, on_path | {tree.feature[node]}))
        if t > 0:  # T_t extends T_{t-1} by one split
            previous = result.trees[t - 1]
            n = previous.n_nodes
            grown = (previous.first_child < 0) & (tree.first_child[:n] >= 0)
            assert np.array_equal(tree.feature[:n][~grown], previous.feature[~grown])
            assert grown.sum() == (1 if t <= result.n_splits else 0)


def test_growth_stops_when_every_leaf_is_pure():
    f = ReadOnceDNF.parse("x1 & ~x2")
    result = top_down(f, ProductDistribution([0.3, 0.6]), 5)
    assert result.n_splits == 2
    assert result.errors[2:].tolist() == [0.0] * 4
    assert result.trees[5] is not result.trees[2] and result.trees[5].n_internal == 2


def test_irrelevant_variables_are_never_split():
    f = ReadOnceDNF.parse("(x2 & x4) | x5", n_variables=6)
    result = best_first(f, ProductDistribution([0.2, 0.4, 0.6, 0.8, 0.3, 0.5]), 10)
    assert set(result.trees[-1].split_variables.tolist()) <= {1, 3, 4}


def test_top_down_prefers_the_heavier_leaf_where_best_first_ties():
    # (x1 ∧ x2) ∨ (y1 ∧ y2 ∧ y3): after x1 and x2 the leaves x1=0 and (x1=1, x2=0) both carry the
    # y-term alone, so their unweighted gains are equal; only TopDown's p(l) separates them.
    f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4 & x5)")
    d = ProductDistribution.uniform(5)

    def probability_of_third_split(result):
        before, after = result.trees[2], result.trees[3]
        n = before.n_nodes
        (node,) = np.flatnonzero((before.first_child < 0) & (after.first_child[:n] >= 0))
        return after.probability[node]

    assert probability_of_third_split(top_down(f, d, 3)) == 0.5  # the leaf x1 = 0
    assert probability_of_third_split(best_first(f, d, 3)) == 0.25  # the leaf x1 = 1, x2 = 0
    most = best_first(f, d, 3, tie_break="most_probable")
    assert probability_of_third_split(most) == 0.5


def test_validation():
    f = ReadOnceDNF.parse("x1 | x2")
    d = ProductDistribution.uniform(2)
    with pytest.raises(ValueError, match="policy must be one of"):
        grow(f, d, 3, policy="depth_first")
    with pytest.raises(ValueError, match="tie_break must be one of"):
        top_down(f, d, 3, tie_break="random")
    with pytest.raises(ValueError, match="t_max must be >= 0"):
        top_down(f, d, -1)
    with pytest.raises(TypeError, match="t_max must be an int"):
        best_first(f, d, 2.0)
    with pytest.raises(ValueError, match="has 1 variables"):
        top_down(f, ProductDistribution([0.5]), 2)
    with pytest.raises(TypeError, match="dnf must be a ReadOnceDNF"):
        top_down("x1 | x2", d, 2)
    with pytest.raises(ValueError, match="columns"):
        top_down(f, d, 2).trees[2].predict(np.zeros((2, 1)))


def test_zero_iterations_give_the_single_leaf():
    f = ReadOnceDNF.parse("(x1 & x2) | x3")
    result = top_down(f, ProductDistribution.uniform(3), 0)
    assert result.errors.tolist() == [0.375]
    assert result.trees[0].n_nodes == 1 and result.n_splits == 0
    assert "leaf: label 1" in str(result.trees[0])
