"""The tail inversions' searches return exactly what a plain bisection over the same computed
values returns (the bisections are kept here as the oracles), on many random inputs."""

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound.theory import _hypergeometric, tail_inversion
from treebound.theory._hypergeometric import (
    _tolerance,
    hypergeometric_tail_inversion,
    log_hypergeometric_cdf,
)
from treebound.theory.tail_inversion import (
    _binomial_turn,
    _bisect_probability,
    binomial_tail_inversion,
    log_binomial_cdf,
)


def bisected_hypergeometric_inversion(k: int, m: int, log_delta: float, M: int) -> int:
    """The search before the secant one: integer bisection over ``(k - 1, M - m + k + 1]`` on
    ``log_hypergeometric_cdf``."""
    threshold = log_delta - _tolerance(log_delta, M)
    lo, hi = k - 1, M - m + k + 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if log_hypergeometric_cdf(k, m, mid, M) <= threshold:
            hi = mid
        else:
            lo = mid
    return hi


@settings(max_examples=300, deadline=None)
@given(m=st.integers(1, 3000), k_share=st.floats(0.0, 1.0), ghost_share=st.floats(0.0, 12.0),
       log_delta=st.one_of(st.floats(-8.0, 0.0), st.floats(-3000.0, 0.0)))
def test_hypergeometric_inversion_is_the_bisection(m, k_share, ghost_share, log_delta):
    k = int(k_share * m)
    M = m + int(ghost_share * m)
    assert hypergeometric_tail_inversion(k, m, log_delta, M) == \
        bisected_hypergeometric_inversion(k, m, log_delta, M)


def test_hypergeometric_inversion_is_the_bisection_on_certificate_inputs():
    # the inputs of the hti certificate: a ghost sample of 4 m, delta / (4 tau p_T)
    rng = random.Random(26)
    for _ in range(400):
        m = rng.randint(20, 4000)
        k = rng.randint(0, m // 2)
        log_delta = math.log(0.025 / 4) - rng.uniform(0.0, 2500.0)
        assert hypergeometric_tail_inversion(k, m, log_delta, 5 * m) == \
            bisected_hypergeometric_inversion(k, m, log_delta, 5 * m)


def test_the_terms_cached_per_inversion_give_the_same_values():
    rng = random.Random(3)
    for _ in range(300):
        m = rng.randint(1, 2000)
        k = rng.randint(0, m)
        M = m + rng.randint(0, 6 * m)
        cdf = _hypergeometric._LowerTail(k, m, M)
        for K in {k - 1, k, rng.randint(k, M - m + k + 1), M - m + k, M - m + k + 1}:
            if 0 <= K <= M:
                assert cdf(K) == log_hypergeometric_cdf(k, m, K, M)  # bit for bit


@pytest.mark.parametrize("guess", [-1e9, 0.0, 17.5, 1e12, math.nan])
def test_a_wrong_guess_costs_evaluations_not_the_answer(guess, monkeypatch):
    monkeypatch.setattr(_hypergeometric, "_chernoff_guess", lambda *args: guess)
    for k, m, M, log_delta in [(3, 100, 500, -40.0), (0, 50, 250, -3.0), (40, 900, 4500, -700.0)]:
        assert hypergeometric_tail_inversion(k, m, log_delta, M) == \
            bisected_hypergeometric_inversion(k, m, log_delta, M)


def bisected_binomial_inversion(k: int, n: int, log_delta: float) -> float:
    """The bisection of ``binomial_tail_inversion`` over ``[k / n, 1]``, every midpoint
    evaluated (the oracle of the bracketed one)."""
    threshold = log_delta - _tolerance(log_delta, n)
    return _bisect_probability(lambda p: log_binomial_cdf(k, n, p) >= threshold, k / n, 1.0)[1]


def bracketed_binomial_inversion(k: int, n: int, log_delta: float) -> float:
    threshold = log_delta - _tolerance(log_delta, n)

    def inside(p):
        return log_binomial_cdf(k, n, p) >= threshold

    return _bisect_probability(inside, k / n, 1.0, *_binomial_turn(k, n, threshold, inside))[1]


@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 6000), k_share=st.floats(0.0, 1.0),
       log_delta=st.one_of(st.floats(-8.0, -1e-3), st.floats(-5000.0, -1e-3)))
def test_binomial_bisection_with_a_bracket_is_the_bisection(n, k_share, log_delta):
    k = min(n - 1, max(1, int(k_share * n)))
    assert bracketed_binomial_inversion(k, n, log_delta) == \
        bisected_binomial_inversion(k, n, log_delta)  # bit for bit


def test_binomial_inversion_is_the_bisection_on_compression_inputs():
    # the compression bound's inputs: ln(delta / C(m, d) ...) far below scipy's range
    rng = random.Random(26)
    for _ in range(300):
        n = rng.randint(50, 5000)
        k = rng.randint(1, n // 3)
        log_prior = -rng.uniform(700.0, 4000.0)
        assert binomial_tail_inversion(k, n_examples=n, log_prior=log_prior) == \
            bisected_binomial_inversion(k, n, math.log(0.05) + log_prior)


def test_a_bracket_that_does_not_hold_is_not_used(monkeypatch):
    # a Chernoff point that is not past the turn: no bracket, the plain bisection
    monkeypatch.setattr(tail_inversion, "_chernoff_guess", lambda *args: 1e-9)
    k, n, log_delta = 30, 900, -800.0
    threshold = log_delta - _tolerance(log_delta, n)
    assert _binomial_turn(k, n, threshold, lambda p: True) == (-math.inf, math.inf)
    assert bracketed_binomial_inversion(k, n, log_delta) == \
        bisected_binomial_inversion(k, n, log_delta)
