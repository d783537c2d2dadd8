import math

import pytest

from treebound.theory import (
    TreeStructure,
    log_error_prior,
    log_growth_function_upper_bound,
    log_structure_prior,
    shawe_taylor_bound,
    vapnik_srm_bound,
    wedderburn_etherington,
)
from treebound.theory.bounds import PAPER_ERROR_PRIOR_RATIO


def test_shawe_taylor_formula():
    m, k, delta = 200, 7, 0.05
    log_tau, log_q, log_p = 50.0, log_error_prior(k), log_structure_prior(5)
    expected = (2 * k + 4 * math.log(4 * math.exp(log_tau) / (delta * math.exp(log_q) * math.exp(log_p)))) / m
    assert math.isclose(shawe_taylor_bound(m, n_errors=k, log_growth=log_tau, log_q=log_q,
                                           log_p=log_p, delta=delta), expected, rel_tol=1e-12)
    # More errors, a larger class or more confidence can only loosen the bound.
    base = shawe_taylor_bound(m, n_errors=k, log_growth=log_tau, log_q=log_q, log_p=log_p)
    assert shawe_taylor_bound(m, n_errors=k + 1, log_growth=log_tau, log_q=log_error_prior(k + 1),
                              log_p=log_p) > base
    assert shawe_taylor_bound(m, n_errors=k, log_growth=log_tau + 1, log_q=log_q,
                              log_p=log_p) > base
    assert shawe_taylor_bound(m, n_errors=k, log_growth=log_tau, log_q=log_q, log_p=log_p,
                              delta=0.01) > base


def test_shawe_taylor_with_growth_bound_at_2m():
    t = TreeStructure.parse("((L,L),(L,L))")
    m = 150
    log_tau = log_growth_function_upper_bound(t, n_examples=2 * m, n_features=4, n_classes=3)
    eps = shawe_taylor_bound(m, n_errors=10, log_growth=log_tau, log_q=log_error_prior(10),
                             log_p=log_structure_prior(t.n_leaves))
    assert 0 < eps < math.inf


def test_priors_are_normalised():
    r = 0.3
    assert math.isclose(sum(math.exp(log_error_prior(k, r=r)) for k in range(200)), 1.0,
                        rel_tol=1e-12)
    assert log_error_prior(0) == math.log1p(-PAPER_ERROR_PRIOR_RATIO)
    assert math.isclose(log_error_prior(3, r=r) - log_error_prior(2, r=r), math.log(r))
    # Every structure with L leaves gets p_L; summing over structures and sizes gives ~1.
    total = sum(math.exp(math.log(wedderburn_etherington(L)) + log_structure_prior(L))
                for L in range(1, 301))
    assert math.isclose(total, 6 / math.pi**2 * sum(1 / L**2 for L in range(1, 301)), rel_tol=1e-12)
    assert 0.99 < total < 1.0
    assert math.isclose(log_structure_prior(4), math.log(6 / math.pi**2 / 16 / 2))


def test_vapnik_srm_bound():
    e = vapnik_srm_bound(0.1, n_examples=1000, vcdim=10)
    eps = 0.1 * (10 * (math.log(2 * 1000 / 10) + 1) + 0.5 * math.log(1000)) / 1000
    assert math.isclose(e, 0.1 + eps / 2 * (1 + math.sqrt(1 + 4 * 0.1 / eps)))
    assert vapnik_srm_bound(0.1, n_examples=1000, vcdim=10) > 0.1
    assert vapnik_srm_bound(0.1, n_examples=10000, vcdim=10) < vapnik_srm_bound(0.1, n_examples=1000, vcdim=10)
    assert vapnik_srm_bound(0.1, n_examples=1000, vcdim=20) > vapnik_srm_bound(0.1, n_examples=1000, vcdim=10)
    assert vapnik_srm_bound(0.0, n_examples=1000, vcdim=1) > 0.0
    assert vapnik_srm_bound(0.0, n_examples=10, vcdim=100) == math.inf  # V far above N: vacuous


@pytest.mark.parametrize(
    "call",
    [
        lambda: shawe_taylor_bound(0, n_errors=0, log_growth=1.0, log_q=-1.0, log_p=-1.0),
        lambda: shawe_taylor_bound(10, n_errors=11, log_growth=1.0, log_q=-1.0, log_p=-1.0),
        lambda: shawe_taylor_bound(10, n_errors=1, log_growth=1.0, log_q=0.5, log_p=-1.0),
        lambda: shawe_taylor_bound(10, n_errors=1, log_growth=-1.0, log_q=-1.0, log_p=-1.0),
        lambda: shawe_taylor_bound(10, n_errors=1, log_growth=1.0, log_q=-1.0, log_p=-1.0,
                                   delta=1.5),
        lambda: log_error_prior(-1),
        lambda: log_error_prior(1, r=1.0),
        lambda: log_structure_prior(0),
        lambda: vapnik_srm_bound(1.5, n_examples=100, vcdim=3),
        lambda: vapnik_srm_bound(0.1, n_examples=0, vcdim=3),
        lambda: vapnik_srm_bound(0.1, n_examples=100, vcdim=0),
    ],
)
def test_bad_input(call):
    with pytest.raises(ValueError):
        call()
