"""Tail inversions, the hypergeometric and compression bounds, the closed-form growth bound."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import beta

from _certificate_oracles import (
    binomial_cdf,
    binomial_sf,
    hypergeometric_tail_inversion,
    hypergeometric_tail_lower_inversion,
    tree_labelings,
)
from treebound.theory import (
    TreeStructure,
    binomial_tail_inversion,
    binomial_tail_lower_inversion,
    hypergeometric_tail_inversion_bound,
    hypergeometric_tail_inversion_lower_bound,
    log_growth_function_upper_bound,
    log_leaf_assignment_growth_bound,
    log_structure_prior,
    log_wedderburn_etherington,
    sample_compression_bound,
    wedderburn_etherington,
)
from treebound.theory import tail_inversion as ti


# ------------------------------------------------------------------ binomial tail inversion
@pytest.mark.parametrize("k,n,delta", [(0, 10, 0.05), (3, 10, 0.05), (7, 50, 0.01),
                                       (1, 5, 0.5), (12, 30, 0.2), (9, 10, 0.05)])
def test_binomial_inversion_matches_exact_fractions(k, n, delta):
    upper = binomial_tail_inversion(k, n_examples=n, delta=delta)
    lower = binomial_tail_lower_inversion(k, n_examples=n, delta=delta)
    d = Fraction(delta)
    # rounded outwards: just past the exact limits, within 1e-9
    assert binomial_cdf(k, n, Fraction(upper)) <= d
    assert binomial_cdf(k, n, Fraction(upper - 1e-9)) >= d
    if k > 0:
        assert binomial_sf(k, n, Fraction(lower)) <= d
        assert binomial_sf(k, n, Fraction(lower + 1e-9)) >= d
    else:
        assert lower == 0.0


def test_binomial_inversion_is_clopper_pearson():
    for k, n in [(0, 20), (4, 20), (19, 20), (30, 1000)]:
        assert binomial_tail_inversion(k, n_examples=n, delta=0.05) == pytest.approx(beta.ppf(0.95, k + 1, n - k),
                                                                    abs=1e-9)
        if k:
            assert binomial_tail_lower_inversion(k, n_examples=n, delta=0.05) == pytest.approx(
                beta.ppf(0.05, k, n - k + 1), abs=1e-9)


def test_binomial_inversion_in_log_space_for_tiny_confidence():
    # delta * prior far below the smallest double: still finite, monotone in the prior
    values = [binomial_tail_inversion(5, n_examples=1000, delta=0.05, log_prior=-lp) for lp in (0, 100, 1000, 5000)]
    assert all(0.005 < v <= 1.0 for v in values)
    assert values == sorted(values)
    assert values[-1] < 1.0


def test_binomial_inversion_edge_cases_and_errors():
    assert binomial_tail_inversion(10, n_examples=10, delta=0.05) == 1.0
    assert binomial_tail_inversion(0, n_examples=1, delta=0.05) == pytest.approx(0.95)
    with pytest.raises(ValueError, match="delta"):
        binomial_tail_inversion(1, n_examples=10, delta=1.0)
    with pytest.raises(ValueError, match="cannot exceed"):
        binomial_tail_inversion(11, n_examples=10, delta=0.05)
    with pytest.raises(ValueError, match="log_prior"):
        binomial_tail_inversion(1, n_examples=10, delta=0.05, log_prior=0.5)
    with pytest.raises(TypeError):
        binomial_tail_inversion(1.5, n_examples=10, delta=0.05)


# --------------------------------------------------------------- hypergeometric inversion
@pytest.mark.parametrize("k,m,M,delta", [(0, 5, 20, 0.05), (2, 5, 20, 0.05), (3, 10, 30, 0.01),
                                         (5, 10, 15, 0.2), (0, 1, 2, 0.6), (8, 10, 40, 0.001)])
def test_hypergeometric_inversion_matches_exact_scan(k, m, M, delta):
    log_delta = math.log(delta)
    d = Fraction(delta)
    assert ti.hypergeometric_tail_inversion(k, m, log_delta, M) == \
        hypergeometric_tail_inversion(k, m, d, M)
    assert ti.hypergeometric_tail_lower_inversion(k, m, log_delta, M) == \
        hypergeometric_tail_lower_inversion(k, m, d, M)


def test_hypergeometric_inversion_ties_round_outwards():
    # Hyp(0; 1, K=1, 2) = 1/2 exactly: a tie with delta is not trusted to rounding
    assert ti.hypergeometric_tail_inversion(0, 1, math.log(0.5), 2) == 2


def test_hti_bound_reproduces_the_authors_value():
    log_tau = math.log(sum(math.comb(500, i) for i in range(25)))
    assert round(hypergeometric_tail_inversion_bound(100, n_errors=8, log_growth=log_tau,
                                                     delta=0.05, ghost_size=400), 4) == 0.8075


def test_hti_bound_follows_theorem_5_formula():
    # Theorem 5 written out with the exact inversion, small enough to scan every K
    m, ghost, k, log_tau, delta = 12, 24, 2, math.log(50.0), 0.1
    d = Fraction(delta) / (4 * 50)
    K = hypergeometric_tail_inversion(k, m, d, m + ghost)
    assert hypergeometric_tail_inversion_bound(m, n_errors=k, log_growth=log_tau, delta=delta,
                                               ghost_size=ghost) == \
        max(1, K - 1 - k) / ghost
    K_low = hypergeometric_tail_lower_inversion(k - 1, m, d, m + ghost)
    assert hypergeometric_tail_inversion_lower_bound(m, n_errors=k, log_growth=log_tau,
                                                     delta=delta, ghost_size=ghost) == \
        max(0, min(ghost - 1, K_low + 1 - k)) / ghost


@settings(max_examples=60, deadline=None)
@given(m=st.integers(5, 300), frac=st.floats(0.0, 0.6), log_tau=st.floats(0.0, 200.0),
       delta=st.sampled_from([0.01, 0.05, 0.2]))
def test_hti_bound_properties(m, frac, log_tau, delta):
    k = int(frac * m)
    upper = hypergeometric_tail_inversion_bound(m, n_errors=k, log_growth=log_tau, delta=delta)
    lower = hypergeometric_tail_inversion_lower_bound(m, n_errors=k, log_growth=log_tau,
                                                      delta=delta)
    assert k / m <= upper <= 1.0
    assert 0.0 <= lower <= k / m
    if k < m:  # monotone in k and in the growth function
        assert hypergeometric_tail_inversion_bound(m, n_errors=k + 1, log_growth=log_tau,
                                                   delta=delta) >= upper
    assert hypergeometric_tail_inversion_bound(m, n_errors=k, log_growth=log_tau + 5.0,
                                               delta=delta) >= upper
    # more data at the same error rate gives a smaller bound
    assert hypergeometric_tail_inversion_bound(4 * m, n_errors=4 * k, log_growth=log_tau,
                                               delta=delta) <= upper


def test_hti_bound_errors():
    with pytest.raises(ValueError, match="log_growth"):
        hypergeometric_tail_inversion_bound(10, n_errors=1, log_growth=-1.0)
    with pytest.raises(ValueError, match="ghost_size"):
        hypergeometric_tail_inversion_bound(10, n_errors=1, log_growth=1.0, ghost_size=0)
    with pytest.raises(ValueError, match="delta"):
        hypergeometric_tail_inversion_bound(10, n_errors=1, log_growth=1.0, delta=0.0)
    assert hypergeometric_tail_inversion_bound(10, n_errors=10, log_growth=1.0) == 1.0


# ------------------------------------------------------------------ sample compression
def test_sample_compression_is_a_binomial_inversion_with_the_prior():
    m, k, d, log_p = 200, 7, 6, -20.0
    expected = binomial_tail_inversion(k, n_examples=m - d, delta=0.05,
                                       log_prior=log_p - math.log(math.comb(m, d)))
    assert sample_compression_bound(m, n_errors_outside=k, compression_size=d, log_message_prior=log_p, delta=0.05) == pytest.approx(expected, rel=1e-12)
    assert sample_compression_bound(m, n_errors_outside=k, compression_size=d + 1,
                                    log_message_prior=log_p, delta=0.05) > sample_compression_bound(
        m, n_errors_outside=k, compression_size=d, log_message_prior=log_p, delta=0.05)
    assert sample_compression_bound(10, n_errors_outside=0, compression_size=10,
                                    log_message_prior=0.0) == 1.0


# ------------------------------------------------------------- closed-form growth bound
@pytest.mark.parametrize("shape", ["(L,L)", "((L,L),L)", "((L,L),(L,L))", "(((L,L),L),L)"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_closed_form_growth_bound_dominates_brute_force(shape, n_classes):
    rng = np.random.default_rng(len(shape) + n_classes)
    structure = TreeStructure.parse(shape)
    for n_points, n_features in [(4, 1), (5, 2)]:
        if structure.n_leaves == 4 and n_points == 5 and n_classes == 3:
            continue  # brute force too slow
        points = rng.normal(size=(n_points, n_features))
        true = tree_labelings(structure, points, n_classes)
        closed = log_leaf_assignment_growth_bound(
            n_points, n_leaves=structure.n_leaves, n_classes=n_classes,
            log_test_choices=(structure.n_leaves - 1) * math.log(2 * n_features))
        tight = log_growth_function_upper_bound(structure, n_examples=n_points,
                                                n_features=n_features, n_classes=n_classes)
        assert math.log(true) <= closed + 1e-9
        assert math.log(true) <= tight + 1e-9


def test_closed_form_growth_bound_is_close_to_theorem_9():
    structure = TreeStructure.parse("(((L,L),(L,L)),((L,L),L))")
    tight = log_growth_function_upper_bound(structure, n_examples=2000, n_features=10, n_classes=2)
    closed = log_leaf_assignment_growth_bound(2000, n_leaves=7, n_classes=2,
                                              log_test_choices=6 * math.log(20))
    assert tight <= closed <= 1.1 * tight


# ------------------------------------------------------------------------ priors
def test_log_wedderburn_etherington_matches_exact_and_is_fast():
    for n in (1, 2, 11, 500, 1000, 1001, 1200):
        assert log_wedderburn_etherington(n) == pytest.approx(
            math.log(wedderburn_etherington(n)), rel=1e-12)
    assert log_structure_prior(10_000) < log_structure_prior(9_999) < 0
