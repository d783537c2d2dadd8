"""The hypergeometric tail inversion stays conservative beyond a million rows: checked against
exact rational arithmetic (issue 27).

A log hypergeometric term is a sum of nine ``lgamma`` values up to ``lgamma(M + 1)``; at
``M = 5e7`` its rounding error reaches 3e-7 in log, where the relative tolerance alone allowed
4e-9. The cases below put ``delta`` between the floating-point and the exact value of the CDF
at some ``K``: without the absolute floor the inversion returned that ``K`` although it does
not qualify."""

import math
from fractions import Fraction

import pytest

from treebound.theory._hypergeometric import (
    _LOG_TOLERANCE,
    hypergeometric_tail_inversion,
    hypergeometric_tail_lower_inversion,
    log_hypergeometric_cdf,
    log_hypergeometric_sf,
)
from treebound.theory.tail_inversion import hypergeometric_tail_inversion_bound


def exact_cdf(k: int, m: int, K: int, M: int) -> Fraction:
    """``P(X <= k)``, ``X ~ Hyp(m, K, M)``, exactly: ``C(M - K, m) / C(M, m)`` as a product of
    ``K`` ratios, times ``sum_j C(K, j) C(M - K, m - j) / C(M - K, m)``."""
    none_bad = Fraction(1)
    for i in range(K):
        none_bad *= Fraction(M - m - i, M - i)
    total = Fraction(0)
    for j in range(min(k, K) + 1):
        term = Fraction(math.comb(K, j))
        for t in range(j):
            term *= Fraction(m - t, M - K - m + t + 1)
        total += term
    return none_bad * total


def log_exact(value: Fraction) -> float:
    return math.log(value.numerator) - math.log(value.denominator)


@pytest.mark.parametrize("m, k, K", [(3 * 10**6, 0, 200), (3 * 10**6, 1, 200), (10**7, 1, 200),
                                     (10**7, 3, 200), (10**7, 0, 400)])
def test_the_inversion_is_conservative_where_rounding_exceeds_the_relative_tolerance(m, k, K):
    M = 5 * m  # the certificates' ghost sample: m' = 4m
    exact = log_exact(exact_cdf(k, m, K, M))
    computed = log_hypergeometric_cdf(k, m, K, M)
    error = abs(computed - exact)
    assert error > _LOG_TOLERANCE * (1 + abs(exact))  # the relative tolerance alone is too small
    assert computed < exact  # rounding makes K look as if it qualified ...
    log_delta = (computed + exact) / 2  # ... for a delta between the two
    found = hypergeometric_tail_inversion(k, m, log_delta, M)
    assert log_exact(exact_cdf(k, m, found, M)) <= log_delta  # found qualifies, exactly
    assert found > K  # K does not
    assert log_exact(exact_cdf(k, m, found - 2, M)) > log_delta  # at most one step too far


@pytest.mark.parametrize("m, k", [(200_000, 50), (400_000, 20)])  # M = 5m up to 2e6
def test_the_lower_inversion_is_conservative_against_exact_values(m, k):
    M = 5 * m
    log_delta = math.log(0.05) - 4.0
    found = hypergeometric_tail_lower_inversion(k, m, log_delta, M)
    assert found > k + 10
    # P(X > k) at the returned K is at most delta, exactly
    assert log_exact(1 - exact_cdf(k, m, found, M)) <= log_delta
    assert log_hypergeometric_sf(k + 1, m, found + 2, M) > log_delta


def test_the_risk_bound_beyond_a_million_rows_is_a_valid_inversion():
    m, k = 2 * 10**6, 1
    log_growth = 40.0
    upper = hypergeometric_tail_inversion_bound(m, n_errors=k, log_growth=log_growth, delta=0.05)
    K = round(upper * 4 * m) + 1 + k  # HypInv = m' R + 1 + k
    log_delta = math.log(0.05) - math.log(4.0) - log_growth
    assert log_exact(exact_cdf(k, m, K, 5 * m)) <= log_delta
