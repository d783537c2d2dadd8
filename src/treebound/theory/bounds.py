"""Bounds on the true risk used for bound-based and SRM pruning (Leboeuf et al. 2020 Eq. 8; Yıldız
2015 Eqs. 2-3).

* :func:`shawe_taylor_bound` — Theorem 2.3 of Shawe-Taylor et al. (1998) as Eq. (8) of Leboeuf
  et al. (2020), with the growth function in place of Sauer's lemma.
* Priors of Leboeuf et al. section 6.2: :func:`log_error_prior` (``q_k``) and
  :func:`log_structure_prior` (``p_d``, indexed by the number of leaves).
* :func:`vapnik_srm_bound` — Vapnik's bound in the Cherkassky–Mulier form, Eqs. (2)–(3) of
  Yıldız (2015).
"""

from __future__ import annotations

import math

from treebound._options import PAPER_ERROR_PRIOR_RATIO as _PAPER_ERROR_PRIOR_RATIO
from treebound._validation import check_integer as _check_int
from treebound.theory.combinatorics import log_wedderburn_etherington

__all__ = [
    "PAPER_ERROR_PRIOR_RATIO",
    "REFERENCE_CODE_ERROR_PRIOR_RATIO",
    "log_error_prior",
    "log_structure_prior",
    "shawe_taylor_bound",
    "vapnik_srm_bound",
]

#: ``r`` of the error prior ``q_k = (1 - r) r^k`` chosen in the paper (section 6.2).
PAPER_ERROR_PRIOR_RATIO = _PAPER_ERROR_PRIOR_RATIO
#: ``r`` the paper's reference code uses by default in its experiments.
REFERENCE_CODE_ERROR_PRIOR_RATIO = 2.0**-13.1




def _check_probability(value, name, open_low=True, open_high=True):
    value = float(value)
    if not (0.0 < value if open_low else 0.0 <= value) or not (value < 1.0 if open_high else value <= 1.0):
        raise ValueError(f"{name} must be in {'(' if open_low else '['}0, 1{')' if open_high else ']'}, got {value}")
    return value


def shawe_taylor_bound(n_examples, *, n_errors, log_growth, log_q, log_p, delta=0.05) -> float:
    """Shawe-Taylor et al. (1998) Theorem 2.3, Leboeuf et al. (2020) Eq. (8).

    ``eps(m, k, d, delta) = (1/m) (2k + 4 ln(4 tau_{H_d}(2m) / (delta q_k p_d)))``.

    Parameters
    ----------
    n_examples : int
        ``m``, the number of *training* examples.
    n_errors : int
        ``k``, training errors of the predictor.
    log_growth : float
        ``ln tau_{H_d}(2m)``: the log growth function of the class **at twice the sample size**,
        e.g. ``log_growth_function_upper_bound(structure, 2 * n_examples, ...)``.
    log_q, log_p : float
        ``ln q_k`` and ``ln p_d`` (see :func:`log_error_prior`, :func:`log_structure_prior`).
    delta : float
        Confidence parameter in ``(0, 1)``; the bound holds with probability ``1 - delta``.

    Examples
    --------
    >>> round(shawe_taylor_bound(100, n_errors=5, log_growth=math.log(1000.0), log_q=math.log(0.5), log_p=math.log(0.5)), 4)
    0.607
    """
    m = _check_int(n_examples, "n_examples")
    k = _check_int(n_errors, "n_errors")
    if m == 0:
        raise ValueError("n_examples must be >= 1")
    if k > m:
        raise ValueError(f"n_errors ({k}) cannot exceed n_examples ({m})")
    delta = _check_probability(delta, "delta")
    for name, value in (("log_q", log_q), ("log_p", log_p)):
        if not value <= 0.0:
            raise ValueError(f"{name} is the log of a probability and must be <= 0, got {value}")
    if math.isnan(log_growth) or log_growth < 0.0:
        raise ValueError(f"log_growth must be >= 0 (the growth function is >= 1), got {log_growth}")
    return (2 * k + 4 * (math.log(4.0) + log_growth - math.log(delta) - log_q - log_p)) / m


def log_error_prior(n_errors, *, r=PAPER_ERROR_PRIOR_RATIO) -> float:
    """``ln q_k`` for the geometric prior ``q_k = (1 - r) r^k`` (Leboeuf et al. section 6.2).

    The paper uses ``r = 2^-13.7``; its reference code defaults to ``2^-13.1``
    (:data:`REFERENCE_CODE_ERROR_PRIOR_RATIO`).

    Examples
    --------
    >>> log_error_prior(0, r=0.5) == math.log(0.5)
    True
    """
    k = _check_int(n_errors, "n_errors")
    r = _check_probability(r, "r")
    return math.log1p(-r) + k * math.log(r)


def log_structure_prior(n_leaves) -> float:
    """``ln p_d`` with ``p_d = 6 / (pi^2 L^2) * 1 / WE(L)`` for a tree with ``L`` leaves.

    Every one of the ``WE(L)`` structures with ``L`` leaves gets the same mass and the masses
    of the sizes sum to 1 (``sum 6 / (pi^2 L^2) = 1``); Leboeuf et al. section 6.2.

    Examples
    --------
    >>> round(math.exp(log_structure_prior(1)), 6) == round(6 / math.pi**2, 6)
    True
    """
    L = _check_int(n_leaves, "n_leaves")
    if L == 0:
        raise ValueError("n_leaves must be >= 1")
    return math.log(6.0 / math.pi**2) - 2.0 * math.log(L) - log_wedderburn_etherington(L)


def vapnik_srm_bound(training_error, *, n_examples, vcdim, a1=0.1, a2=2.0, nu=None) -> float:
    """Vapnik's bound in Cherkassky & Mulier's form (Yıldız 2015, Eqs. 2–3), for SRM pruning.

    ``E_g = E_t + (eps/2) (1 + sqrt(1 + 4 E_t / eps))`` with
    ``eps = a1 (V (ln(a2 N / V) + 1) - ln nu) / N``.

    Parameters
    ----------
    training_error : float
        ``E_t``, the training error *rate* in ``[0, 1]``.
    n_examples : int
        ``N >= 1``, the number of examples (at the node, for bottom-up SRM pruning).
    vcdim : int
        ``V >= 1``, the VC dimension (or a bound on it) of the model.
    a1, a2 : float
        Constants; Yıldız uses ``a1 = 0.1``, ``a2 = 2.0``.
    nu : float, optional
        Confidence level; defaults to ``1 / sqrt(N)`` as recommended for large samples.

    Returns
    -------
    float
        The bound; ``inf`` when ``eps <= 0`` (``V`` far above ``N``: the bound is vacuous).

    Examples
    --------
    >>> round(vapnik_srm_bound(0.1, n_examples=1000, vcdim=10), 4)
    0.1293
    """
    E_t = float(training_error)
    if not 0.0 <= E_t <= 1.0:
        raise ValueError(f"training_error must be a rate in [0, 1], got {E_t}")
    N = _check_int(n_examples, "n_examples")
    V = _check_int(vcdim, "vcdim")
    if N < 1 or V < 1:
        raise ValueError(f"n_examples and vcdim must be >= 1, got N={N}, V={V}")
    if a1 <= 0 or a2 <= 0:
        raise ValueError(f"a1 and a2 must be positive, got a1={a1}, a2={a2}")
    nu = 1.0 / math.sqrt(N) if nu is None else _check_probability(nu, "nu", open_high=False)
    eps = a1 * (V * (math.log(a2 * N / V) + 1.0) - math.log(nu)) / N
    if eps <= 0.0:
        return math.inf
    return E_t + 0.5 * eps * (1.0 + math.sqrt(1.0 + 4.0 * E_t / eps))
