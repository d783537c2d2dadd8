"""The paper's theorems, checked on the implementation (Brutzkus, Daniely & Malach 2020)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _mic_oracles import brute_force_optimal_errors
from treebound.mic import (
    ProductDistribution,
    ReadOnceDNF,
    best_first,
    mic,
    optimal_errors,
    top_down,
)


def lemma_5_4_error(p_conjunction: np.ndarray, t: int) -> float:
    """Π_{i ∈ J_t} p_i · C(Π_{i ∈ J∖J_t} p_i), J_t = the t literals of smallest probability."""
    ordered = np.sort(p_conjunction)
    rest = np.prod(ordered[t:])
    return float(np.prod(ordered[:t]) * min(rest, 1.0 - rest))


@st.composite
def conjunctions(draw, max_literals=4):
    """A conjunction on k of n variables (signs random) under an arbitrary product distribution."""
    k = draw(st.integers(1, max_literals))
    n = k + draw(st.integers(0, 1))
    variables = draw(st.permutations(range(n)))[:k]
    signs = draw(st.lists(st.booleans(), min_size=k, max_size=k))
    p = draw(st.lists(st.floats(0.05, 0.95), min_size=n, max_size=n))
    f = ReadOnceDNF([list(zip(variables, signs, strict=True))], n)
    return f, ProductDistribution(p)


@given(case=conjunctions())
@settings(max_examples=30, deadline=None)
def test_theorem_5_1_and_lemma_5_4_conjunctions(case):
    f, d = case
    k = len(f.terms[0])
    literal_p = np.array([d.literal_probability(v, s) for v, s in f.terms[0]])
    result = top_down(f, d, k)
    opt = brute_force_optimal_errors(f, d, k)  # any product distribution: the DP does not apply
    for t in range(1, k + 1):
        assert result.errors[t] == pytest.approx(lemma_5_4_error(literal_p, t), abs=1e-14)
        assert result.errors[t] == pytest.approx(opt[t], abs=1e-14)  # ε_t = 0
        # T_t tests the t literals of smallest probability (ties: any of them, footnote 5).
        tested = sorted(literal_p[[f.variables.index(v) for v in result.trees[t].split_variables]])
        assert np.allclose(tested, np.sort(literal_p)[:t])
    assert mic(result.errors, opt, k) == 0.0


@pytest.mark.parametrize("k", [5, 8])
def test_theorem_5_1_longer_conjunctions_under_two_valued_distributions(k):
    groups = [1 + (i % 3 == 0) for i in range(k)]
    d = ProductDistribution.two_valued(0.4, 0.6, groups)
    f = ReadOnceDNF.from_term_sizes([k])
    result = top_down(f, d, k)
    opt = optimal_errors(f, d, k)
    literal_p = d.p[:k]
    for t in range(1, k + 1):
        assert result.errors[t] == pytest.approx(lemma_5_4_error(literal_p, t), abs=1e-14)
    assert mic(result.errors, opt, k) == 0.0


TWO_TERM_SIZES = [(x_size, y_size) for y_size in range(1, 7) for x_size in range(1, y_size + 1)]


@pytest.mark.parametrize("tie_break", ["least_probable", "most_probable"])
@pytest.mark.parametrize("sizes", TWO_TERM_SIZES, ids=str)
def test_theorem_6_1_top_down_is_optimal_on_two_terms(sizes, tie_break):
    x_size, y_size = sizes  # the paper's l <= m
    n = x_size + y_size
    # Interleave the two terms' variables and negate some literals: Theorem 6.1 covers them all.
    order = [v for pair in zip(range(0, n, 2), range(1, n, 2), strict=False) for v in pair]
    order += [n - 1] if n % 2 else []
    first = [(order[i], i % 2 == 0) for i in range(x_size)]
    second = [(order[x_size + i], True) for i in range(y_size)]
    f = ReadOnceDNF([first, second], n)
    d = ProductDistribution.uniform(n)
    t_max = x_size + x_size * y_size + 3  # B_t has reached zero error by then
    errors = top_down(f, d, t_max, tie_break=tie_break).errors
    opt = optimal_errors(f, d, t_max)
    np.testing.assert_allclose(errors, opt, rtol=0, atol=1e-14)
    assert errors[-1] == 0.0


def test_appendix_d_best_first_is_suboptimal_at_t5_while_top_down_is_optimal():
    f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4 & x5)")  # (x1 ∧ x2) ∨ (y1 ∧ y2 ∧ y3)
    d = ProductDistribution.uniform(5)
    opt = optimal_errors(f, d, 5)
    td, bf = top_down(f, d, 5), best_first(f, d, 5)
    assert td.errors[5] == pytest.approx(opt[5], abs=1e-15)
    assert bf.errors[5] > opt[5] + 1e-3

    def shape(tree, node=0):
        if tree.first_child[node] < 0:
            return "leaf"
        kind = "x" if tree.feature[node] in (0, 1) else "y"
        return (kind, shape(tree, tree.first_child[node]), shape(tree, tree.first_child[node] + 1))

    y_path = ("y", "leaf", ("y", "leaf", ("y", "leaf", "leaf")))
    # Figure 3b (B_5): a right x-path whose root's left subtree is the full right y-path.
    assert shape(td.trees[5]) == ("x", y_path, ("x", "leaf", "leaf"))
    # Figure 2a: the y-path hangs below the second x-node, the root's left child stays a leaf.
    assert shape(bf.trees[5]) == ("x", "leaf", ("x", y_path, "leaf"))
    # Breaking BestFirst's tie toward the more probable leaf recovers B_5 here.
    assert best_first(f, d, 5, tie_break="most_probable").errors[5] == pytest.approx(opt[5])


def test_theorem_6_1_does_not_extend_to_three_terms():
    # (x1∧x2)∨(x3∧x4)∨(x5∧x6): TopDown completes the first term with its second split, while the
    # best tree with two internal nodes (found by exhaustive search) does better.
    f = ReadOnceDNF.from_term_sizes([2, 2, 2])
    d = ProductDistribution.uniform(6)
    errors = top_down(f, d, 2).errors
    opt = brute_force_optimal_errors(f, d, 2)
    assert errors[1] == pytest.approx(opt[1], abs=1e-15)
    assert errors[2] > opt[2] + 0.01
