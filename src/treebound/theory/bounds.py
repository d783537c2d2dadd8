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
    """Risk bound of Shawe-Taylor et al. (1998), Theorem 2.3, as Eq. (8) of Leboeuf et al. (2020).

    ``eps(m, k, d, delta) = (1/m) (2k + 4 ln(4 tau_{H_d}(2m) / (delta q_k p_d)))``: with
    probability at least ``1 - delta`` over a sample of ``m`` examples, every tree of every
    structure ``d`` that makes ``k`` training errors has a true risk of at most ``eps``
    (uniformly, thanks to the priors ``q_k`` over errors and ``p_d`` over structures). This is
    the objective that bound-based pruning (Leboeuf et al. Algorithm 3) minimizes.

    Parameters
    ----------
    n_examples : int
        ``m >= 1``, the number of *training* examples.
    n_errors : int
        ``k``, training errors of the predictor (``0 <= k <= m``).
    log_growth : float
        ``ln tau_{H_d}(2m) >= 0``: the log growth function of the class **at twice the sample
        size**, e.g. ``log_growth_function_upper_bound(structure, n_examples=2 * m, ...)``.
    log_q : float
        ``ln q_k <= 0``, the log prior of ``k`` errors (:func:`log_error_prior`).
    log_p : float
        ``ln p_d <= 0``, the log prior of the structure (:func:`log_structure_prior`).
    delta : float, default=0.05
        Confidence parameter in ``(0, 1)``; the bound holds with probability ``1 - delta``.

    Returns
    -------
    float
        ``eps``, a bound on the true risk (an error rate). It is not clipped: values above 1
        are possible and say that the bound is vacuous.

    Examples
    --------
    >>> eps = shawe_taylor_bound(100, n_errors=5, log_growth=math.log(1000.0),
    ...                          log_q=math.log(0.5), log_p=math.log(0.5))
    >>> round(eps, 4)  # (2 * 5 + 4 ln(4 * 1000 / (0.05 * 0.5 * 0.5))) / 100
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
    """``ln q_k`` of the geometric prior ``q_k = (1 - r) r^k`` over numbers of errors.

    Leboeuf et al. (2020), section 6.2: the prior of Eq. (8) over the number ``k`` of training
    errors; the masses sum to 1 over ``k >= 0``. The paper uses ``r = 2^-13.7``
    (:data:`PAPER_ERROR_PRIOR_RATIO`); its reference code defaults to ``2^-13.1``
    (:data:`REFERENCE_CODE_ERROR_PRIOR_RATIO`).

    Parameters
    ----------
    n_errors : int
        ``k >= 0``, the number of training errors.
    r : float, default=2**-13.7
        Ratio of the geometric prior, in ``(0, 1)``.

    Returns
    -------
    float
        ``ln(1 - r) + k ln r`` (natural log, ``<= 0``).

    Examples
    --------
    >>> log_error_prior(0, r=0.5) == math.log(0.5)
    True
    >>> round(math.exp(log_error_prior(2, r=0.5)), 6)  # (1 - 1/2) (1/2)^2
    0.125
    """
    k = _check_int(n_errors, "n_errors")
    r = _check_probability(r, "r")
    return math.log1p(-r) + k * math.log(r)


def log_structure_prior(n_leaves) -> float:
    """``ln p_d`` of the prior over tree structures, ``p_d = 6 / (pi^2 L^2) * 1 / WE(L)``.

    Leboeuf et al. (2020), section 6.2: every one of the ``WE(L)`` structures with ``L`` leaves
    (Wedderburn-Etherington number, :func:`~treebound.theory.wedderburn_etherington`) gets the
    same mass and the masses of the sizes sum to 1 (``sum_L 6 / (pi^2 L^2) = 1``).

    Parameters
    ----------
    n_leaves : int
        ``L >= 1``, the number of leaves of the structure.

    Returns
    -------
    float
        ``ln p_d`` (natural log, ``< 0``); fast for any ``L`` (exact to double precision below
        1,000 leaves, a log-space recurrence beyond).

    Examples
    --------
    >>> round(math.exp(log_structure_prior(1)), 6) == round(6 / math.pi**2, 6)
    True
    >>> round(math.exp(log_structure_prior(4)), 6)  # 6 / (pi^2 16) / 2: two shapes of 4 leaves
    0.018998
    """
    L = _check_int(n_leaves, "n_leaves")
    if L == 0:
        raise ValueError("n_leaves must be >= 1")
    return math.log(6.0 / math.pi**2) - 2.0 * math.log(L) - log_wedderburn_etherington(L)


def vapnik_srm_bound(training_error, *, n_examples, vcdim, a1=0.1, a2=2.0, nu=None) -> float:
    """Vapnik's bound in Cherkassky & Mulier's form (Yıldız 2015, Eqs. 2-3), for SRM pruning.

    ``E_g = E_t + (eps/2) (1 + sqrt(1 + 4 E_t / eps))`` with
    ``eps = a1 (V (ln(a2 N / V) + 1) - ln nu) / N``: with probability at least ``1 - nu`` the
    generalization error ``E_g`` of a model of VC dimension ``V`` with training error rate
    ``E_t`` on ``N`` examples is at most this value.

    Parameters
    ----------
    training_error : float
        ``E_t``, the training error *rate* in ``[0, 1]``.
    n_examples : int
        ``N >= 1``, the number of examples (at the node, for bottom-up SRM pruning).
    vcdim : int
        ``V >= 1``, the VC dimension (or a bound on it) of the model.
    a1 : float, default=0.1
        Positive constant multiplying ``eps`` (Eq. 3; 0.1 is the value Yıldız uses).
    a2 : float, default=2.0
        Positive constant inside the logarithm of ``eps`` (Eq. 3; 2.0 is Yıldız's value).
    nu : float, optional
        Confidence level in ``(0, 1]``; defaults to ``1 / sqrt(N)`` as recommended for large
        samples.

    Returns
    -------
    float
        The bound ``E_g``; ``inf`` when ``eps <= 0`` (``V`` far above ``N``: the bound is
        vacuous).

    Examples
    --------
    >>> round(vapnik_srm_bound(0.1, n_examples=1000, vcdim=10), 4)
    0.1293
    >>> vapnik_srm_bound(0.0, n_examples=10, vcdim=100)
    inf
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
