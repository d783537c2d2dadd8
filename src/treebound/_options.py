"""Option names shared across the package: the pruning methods, their options
(``pruning_params``), the growth-function variants and the paper's error prior.

A leaf module (it imports only :mod:`treebound._validation`): the estimators, the pruning
package and the theory functions all read their option names from here, so none of them needs
another to know them.
"""

from __future__ import annotations

import math

from treebound._validation import Interval, Options, validate_parameters

__all__ = ["BOUND_CRITERIA", "METHODS", "PAPER_ERROR_PRIOR_RATIO", "PARAMETERS",
           "PRUNING_VARIANTS", "REGRESSION_METHODS", "RISKS", "RULES", "VARIANTS", "VC_BOUNDS", "resolve_params"]

#: Variants of the partitioning-function bound (``treebound.theory.partitioning``).
VARIANTS = ("tight", "loose", "loose_paper")
#: ``variant`` of bound pruning: a variant above, or "auto" = "tight" when its partitioning
#: tables fit the resource limits (``treebound.resource_limits``), else "loose".
PRUNING_VARIANTS = ("auto", *VARIANTS)
#: ``r = 2^-13.7`` of the error prior ``q_k = (1 - r) r^k``, Leboeuf et al. section 6.2.
PAPER_ERROR_PRIOR_RATIO = 2.0**-13.7
RULES = ("min", "1se")
RISKS = ("error", "impurity")
VC_BOUNDS = ("lower", "upper")
#: Selection criteria of "bound" (``pruning.certificate_bound.CRITERIA`` plus Eq. 8).
BOUND_CRITERIA = ("shawe_taylor", "hti", "compression")

#: name -> {option: (default, constraints)}; see each method's module for what they mean.
PARAMETERS: dict[str, dict[str, tuple]] = {
    "bound": {
        "delta": (0.05, [Interval(float, 0.0, 1.0, "neither")]),
        "r": (PAPER_ERROR_PRIOR_RATIO, [Interval(float, 0.0, 1.0, "neither")]),
        "error_prior_exponent": (None, [None, Interval(float, 0.0, None, "neither")]),
        "variant": ("auto", [Options(PRUNING_VARIANTS)]),
        "search": ("lazy", [Options(("lazy", "all"))]),
        "bound": ("shawe_taylor", [Options(BOUND_CRITERIA)]),
    },
    "ccp_cv": {
        "n_folds": (10, [Interval(int, 2, None)]),
        "rule": ("min", [Options(RULES)]),
        "risk": ("error", [Options(RISKS)]),
    },
    "mcart_cv": {
        "n_folds": (10, [Interval(int, 2, None)]),
        "rule": ("min", [Options(RULES)]),
        "risk": ("error", [Options(RISKS)]),
    },
    "srm": {
        "a1": (0.1, [Interval(float, 0.0, None, "neither")]),
        "a2": (2.0, [Interval(float, 0.0, None, "neither")]),
        "vc_bound": ("lower", [Options(VC_BOUNDS)]),
    },
    "reduced_error": {
        "holdout": (0.2, [Interval(float, 0.0, 1.0, "neither")]),
    },
}
METHODS = tuple(PARAMETERS)
#: Methods that apply to regression trees ("bound" and "srm" bound the 0-1 risk).
REGRESSION_METHODS = ("ccp_cv", "mcart_cv", "reduced_error")


def resolve_params(method: str, params: dict | None, *, task: str = "classification") -> dict:
    """The options of a pruning method: defaults merged with ``params``, validated.

    Parameters
    ----------
    method : {"bound", "ccp_cv", "mcart_cv", "srm", "reduced_error"}
        The pruning method (:data:`METHODS`).
    params : dict or None
        ``pruning_params`` as the user gave them; keys must be options of ``method`` (see
        :data:`PARAMETERS`). For "bound", ``error_prior_exponent`` is turned into
        ``r = 2**-exponent`` (the ratio of the error prior of Leboeuf et al. 2020, section 6.2).
    task : {"classification", "regression"}, default="classification"
        Regression trees accept only :data:`REGRESSION_METHODS`.

    Returns
    -------
    dict
        Every option of the method with its value.

    Raises
    ------
    ValueError
        For an unknown method or option, a value out of range, or a method that does not apply
        to ``task``.

    Examples
    --------
    >>> resolve_params("ccp_cv", None)
    {'n_folds': 10, 'rule': 'min', 'risk': 'error'}
    >>> round(resolve_params("bound", {"error_prior_exponent": 13.1})["r"] * 2**13.1, 12)
    1.0
    >>> resolve_params("bound", {"alpha": 1})
    Traceback (most recent call last):
    ...
    ValueError: unknown pruning_params ['alpha'] for pruning='bound'; accepted: [...]
    """
    if method not in PARAMETERS:
        raise ValueError(f"unknown pruning method {method!r}: expected one of {METHODS}")
    if task == "regression" and method not in REGRESSION_METHODS:
        raise ValueError(
            f"pruning={method!r} applies to classification only (its bound is on the 0-1 "
            f"risk); a regressor supports {REGRESSION_METHODS}")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise TypeError(f"pruning_params must be a dict or None, got {type(params).__name__}")
    spec = PARAMETERS[method]
    unknown = sorted(str(k) for k in params if k not in spec)
    if unknown:
        raise ValueError(f"unknown pruning_params {unknown} for pruning={method!r}; "
                         f"accepted: {sorted(spec)}")
    merged = {name: params.get(name, default) for name, (default, _) in spec.items()}
    constraints = {name: rules for name, (_, rules) in spec.items()}
    validate_parameters(f"pruning={method!r}", merged, constraints)
    if method == "bound":
        exponent = merged.pop("error_prior_exponent")
        if exponent is not None:
            if "r" in params:
                raise ValueError("give either pruning_params['r'] or "
                                 "pruning_params['error_prior_exponent'], not both")
            merged["r"] = 2.0 ** (-float(exponent))
        merged["r"] = float(merged["r"])
        if not 0.0 < merged["r"] < 1.0 or math.isnan(merged["r"]):
            raise ValueError(f"error prior ratio r must be in (0, 1), got {merged['r']}")
    return merged
