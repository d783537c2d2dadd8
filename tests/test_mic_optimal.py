"""OPT(F, t) by the section 7 DPs vs brute force; the MIC constants and metric."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings

from _mic_oracles import brute_force_optimal_errors, dnfs_with_distributions
from treebound.mic import (
    OptimalErrorTable,
    ProductDistribution,
    ReadOnceDNF,
    best_first,
    mic,
    mic_constants,
    optimal_errors,
    top_down,
)

SMALL_UNIFORM_FAMILY = [
    sizes
    for n_terms in range(1, 4)
    for sizes in itertools.combinations_with_replacement(range(1, 4), n_terms)
]


@pytest.mark.parametrize("sizes", SMALL_UNIFORM_FAMILY, ids=str)
def test_uniform_dp_equals_brute_force(sizes):
    # All 19 DNFs with <= 3 terms of <= 3 literals, one extra irrelevant variable the brute force
    # may also split on, negated literals and shuffled variable order (the DP sees none of it).
    n = sum(sizes) + 1
    rng = np.random.default_rng(sum(sizes) * 31 + len(sizes))
    order = rng.permutation(n)
    terms, position = [], 0
    for size in sizes:
        terms.append([(int(order[position + j]), bool(rng.integers(2))) for j in range(size)])
        position += size
    f = ReadOnceDNF(terms, n)
    d = ProductDistribution.uniform(n)
    np.testing.assert_allclose(
        optimal_errors(f, d, 4), brute_force_optimal_errors(f, d, 4), rtol=0, atol=1e-14
    )


TWO_VALUED_PROFILES = [(a, b) for a in range(3) for b in range(3) if 1 <= a + b <= 2] + [(3, 0)]


@pytest.mark.parametrize(
    "profiles",
    [
        state
        for n_terms in (1, 2)
        for state in itertools.combinations_with_replacement(TWO_VALUED_PROFILES, n_terms)
    ]
    + [((1, 0), (0, 1), (1, 1)), ((2, 1), (0, 2), (1, 0))],
    ids=str,
)
def test_two_valued_dp_equals_brute_force(profiles):
    groups, terms = [], []
    for n1, n2 in profiles:
        terms.append([(len(groups) + j, True) for j in range(n1 + n2)])
        groups += [1] * n1 + [2] * n2
    f = ReadOnceDNF(terms, len(groups))
    d = ProductDistribution.two_valued(0.2, 0.55, groups)  # p2 != 1 - p1: no hidden symmetry
    np.testing.assert_allclose(
        optimal_errors(f, d, 4), brute_force_optimal_errors(f, d, 4), rtol=0, atol=1e-14
    )


@given(case=dnfs_with_distributions(kinds=("uniform", "two_valued")))
@settings(max_examples=25, deadline=None)
def test_dp_equals_brute_force_with_negations(case):
    f, d = case
    np.testing.assert_allclose(
        optimal_errors(f, d, 3), brute_force_optimal_errors(f, d, 3), rtol=0, atol=1e-14
    )


@given(case=dnfs_with_distributions(max_terms=4, max_literals=4, kinds=("uniform", "two_valued")))
@settings(max_examples=40, deadline=None)
def test_greedy_errors_are_never_below_opt_and_opt_is_non_increasing(case):
    f, d = case
    t_max = 20
    opt = optimal_errors(f, d, t_max)
    assert opt.shape == (t_max + 1,)
    assert np.all(np.diff(opt) <= 0)
    p_negative = _p_negative(f, d)
    assert opt[0] == pytest.approx(min(p_negative, 1 - p_negative), abs=1e-15)
    for grow in (top_down, best_first):
        errors = grow(f, d, t_max).errors
        assert np.all(errors >= opt - 1e-12)
        assert errors[0] == pytest.approx(opt[0], abs=1e-15)
        assert 0.0 <= mic(errors, opt, t_max) <= opt[0]


def _p_negative(f, d):
    p0 = 1.0
    for term in f.terms:
        p0 *= 1.0 - np.prod([d.literal_probability(v, s) for v, s in term])
    return p0


def test_three_literal_probabilities_are_rejected():
    f = ReadOnceDNF.parse("(x1 & x2) | x3")
    with pytest.raises(ValueError, match="3 different probabilities"):
        optimal_errors(f, ProductDistribution([0.2, 0.5, 0.7]), 3)
    # Irrelevant variables and negations that map onto the two classes are fine.
    g = ReadOnceDNF.parse("(x1 & ~x2) | x3", n_variables=4)
    optimal_errors(g, ProductDistribution([0.3, 0.3, 0.7, 0.123]), 3)


def test_family_table_agrees_with_per_dnf_tables():
    table = OptimalErrorTable.for_family([0.4, 0.6], max_terms=2, max_literals=3, t_max=6)
    f = ReadOnceDNF.parse("(x1 & ~x2) | (x3 & x4 & x5)")
    d = ProductDistribution.two_valued(0.4, 0.6, [1, 1, 2, 2, 1])
    np.testing.assert_array_equal(table.errors_of(f, d), optimal_errors(f, d, 6))
    with pytest.raises(ValueError, match="not in this table's family"):
        table.errors_of_state(((1, 0), (1, 0), (1, 0)))
    with pytest.raises(ValueError, match="not the table's classes"):
        table.errors_of(f, ProductDistribution.two_valued(0.3, 0.7, [1, 1, 2, 2, 1]))
    with pytest.raises(ValueError, match="one .uniform. or two"):
        OptimalErrorTable.for_family([0.2, 0.4, 0.6], 2, 2, 3)
    with pytest.raises(ValueError, match="increasing"):
        OptimalErrorTable.for_family([0.6, 0.4], 2, 2, 3)
    with pytest.raises(ValueError, match="max_terms must be a positive int"):
        OptimalErrorTable.for_family([0.5], 0, 2, 3)


def test_mic_is_the_mean_gap_over_t_1_to_t_star():
    errors = np.array([0.5, 0.4, 0.3, 0.1])
    optimal = np.array([0.5, 0.25, 0.25, 0.1])
    gaps = mic_constants(errors, optimal)
    assert gaps.tolist() == pytest.approx([0.0, 0.15, 0.05, 0.0])
    for t_star in (1, 2, 3):
        assert mic(errors, optimal, t_star) == pytest.approx(
            sum(errors[t] - optimal[t] for t in range(1, t_star + 1)) / t_star
        )


def test_mic_validation_and_rounding():
    assert mic_constants([0.3, 0.2], [0.3, 0.2 + 1e-15]).tolist() == [0.0, 0.0]
    assert mic_constants([0.3, 0.2 + 1e-15], [0.3, 0.2]).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="is below optimal"):
        mic_constants([0.3, 0.1], [0.3, 0.2])
    with pytest.raises(ValueError, match="same length"):
        mic([0.3, 0.2, 0.1], [0.3, 0.2], 1)
    with pytest.raises(ValueError, match="t_star must be in 1..2"):
        mic([0.3, 0.2, 0.1], [0.3, 0.2, 0.1], 3)
    with pytest.raises(TypeError, match="t_star must be an int"):
        mic([0.3, 0.2, 0.1], [0.3, 0.2, 0.1], 1.0)
    with pytest.raises(ValueError, match="1-D"):
        mic_constants([0.3], [0.3])
    with pytest.raises(ValueError, match="finite"):
        mic_constants([0.3, np.nan], [0.3, 0.1])
