"""The one registry of pruning methods: what each needs, its options, how it runs.

Every caller — the estimators' ``fit`` (:func:`treebound.tree._fit.fit_tree`),
:func:`treebound.prune` and :func:`~treebound.pruning.run_pruning` — reads a method's
:class:`PruningMethod` here and nowhere else:

* :attr:`PruningMethod.parameters` — its options (``pruning_params``) with their defaults and
  accepted values, validated by :func:`resolve_params`;
* :meth:`PruningMethod.needs` — what it needs besides the grown tree (:class:`Needs`): the
  training rows, rows held out from growth, a regrow function for cross-validation folds, and
  whether its objective is read from the weighted class counts of the tree's nodes;
* :attr:`PruningMethod.run` — the pruner itself.

Words keep one meaning: ``"bound"`` is the method (Algorithm 3 of Leboeuf et al. 2020), its
``objective`` option is the quantity the search minimizes (the Shawe-Taylor bound or a
certificate), and a fitted estimator's ``pruning_objective_`` is that quantity's final value.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from treebound._options import (
    OBJECTIVES,
    PAPER_ERROR_PRIOR_RATIO,
    PRUNING_VARIANTS,
    RISKS,
    RULES,
    VC_BOUNDS,
)
from treebound._validation import (
    InstanceOf,
    Interval,
    Options,
    external_stacklevel,
    validate_parameters,
)
from treebound.pruning._core import PruningResult
from treebound.pruning._optimal_candidates import optimal_candidates, optimal_unavailable
from treebound.pruning.bound import choose_variant, prune_bound
from treebound.pruning.certificate_bound import prune_by_certificate
from treebound.pruning.certified import prune_certified
from treebound.pruning.cost_complexity import prune_cost_complexity_cv
from treebound.pruning.reduced_error import prune_reduced_error
from treebound.pruning.srm import prune_srm

__all__ = ["METHODS", "PARAMETERS", "REGISTRY", "REGRESSION_METHODS", "Needs", "PruningData",
           "PruningMethod", "cv_folds", "holdout_split", "pruning_method", "resolve_params"]


@dataclass(frozen=True)
class Needs:
    """What a pruning method needs besides the grown tree, and what it reads from it.

    Parameters
    ----------
    rows : bool
        The training rows ``X, y`` (and their weights): an objective that counts errors on
        rows, or the data of cross-validation.
    holdout : bool
        Rows held out from growth: ``fit`` grows on the rest (its ``holdout`` option), and
        :func:`treebound.prune` is given them as ``X, y``.
    regrow : bool
        A ``regrow(X, y, w) -> Tree`` function with the tree's own growth settings (the trees
        of cross-validation folds) and the seed of the folds.
    node_statistics : bool
        The objective is read from the weighted class counts stored in the tree's nodes: under
        non-uniform weights its value bounds nothing and is withheld.

    Examples
    --------
    >>> pruning_method("ccp_cv").needs(resolve_params("ccp_cv", None))
    Needs(rows=True, holdout=False, regrow=True, node_statistics=False)
    """

    rows: bool = False
    holdout: bool = False
    regrow: bool = False
    node_statistics: bool = False

    @property
    def data(self) -> bool:
        """Whether the method reads rows at all (``X`` and ``y`` must be given)."""
        return self.rows or self.holdout or self.regrow


@dataclass(frozen=True)
class PruningData:
    """The rows and growth a method may need (:class:`Needs`), encoded.

    Parameters
    ----------
    X : ndarray of float64, shape (n_rows, n_features) or None
        Encoded rows: the training rows, or the held-out rows of ``holdout`` methods.
    y : ndarray or None
        Their class indices (classification) or targets (regression).
    sample_weight : ndarray of float64
        Their weights.
    grow : callable or None
        ``grow(X, y, w) -> Tree`` with the tree's growth settings.
    seed : int
        Seeds the cross-validation folds.
    started : float
        ``time.perf_counter()`` when pruning started (the fold trees' growth counts in the
        pruning time).

    Examples
    --------
    >>> import numpy as np
    >>> PruningData(np.zeros((2, 1)), np.array([0, 1]), np.ones(2), None, 0, 0.0).seed
    0
    """

    X: np.ndarray | None
    y: np.ndarray | None
    sample_weight: np.ndarray | None
    grow: Callable | None
    seed: int
    started: float


@dataclass(frozen=True)
class PruningMethod:
    """One pruning method of the registry.

    Parameters
    ----------
    name : str
        The method's name (``pruning=`` of the estimators, ``method=`` of ``prune``).
    summary : str
        One line saying what it does.
    parameters : dict
        ``option -> (default, accepted values)`` (:mod:`treebound._validation` constraints).
    tasks : tuple of str
        ``"classification"`` and/or ``"regression"``.
    needs : callable
        ``needs(params) -> Needs`` for resolved options.
    run : callable
        ``run(tree, params, data, cache) -> PruningResult``.
    objective : callable
        ``objective(info) -> str``: what the values of its path are (the plot's axis label),
        from the result's ``info``.
    renamed : dict, optional
        ``old option -> new option`` still accepted, with a ``FutureWarning``.
    finish : callable, optional
        ``finish(merged, given) -> merged``: method-specific checks and conversions of the
        validated options.
    prepare : callable, optional
        ``prepare(tree, params) -> params``: choices made on the grown tree before pruning.

    Examples
    --------
    >>> method = pruning_method("srm")
    >>> method.tasks, sorted(method.parameters)
    (('classification',), ['a1', 'a2', 'vc_bound'])
    """

    name: str
    summary: str
    parameters: dict[str, tuple]
    tasks: tuple[str, ...]
    needs: Callable[[dict], Needs]
    run: Callable[..., PruningResult]
    objective: Callable[[dict], str]
    renamed: dict[str, str] = field(default_factory=dict)
    finish: Callable[[dict, dict], dict] | None = None
    prepare: Callable | None = None


# ----------------------------------------------------------------------------- row splits
def cv_folds(y, n_folds: int, seed: int, classification: bool):
    """``(train_idx, val_idx)`` pairs: stratified, shuffled K folds (plain K folds when a class
    has fewer than ``n_folds`` samples, and for regression).

    Parameters
    ----------
    y : array-like of shape (n_rows,)
        Class indices or targets.
    n_folds : int
        Number of folds.
    seed : int
        Seeds the shuffle.
    classification : bool
        Stratify by class when every class allows it.

    Returns
    -------
    list of (ndarray, ndarray)

    Examples
    --------
    >>> [len(val) for _, val in cv_folds([0, 0, 1, 1, 0, 1], 2, 0, True)]
    [3, 3]
    """
    # sklearn.model_selection takes ~0.2 s to import: loaded by the CV methods only
    from sklearn.model_selection import KFold, StratifiedKFold

    n = len(y)
    if n_folds > n:
        raise ValueError(f"n_folds={n_folds} cross-validation needs at least {n_folds} "
                         f"samples, got n_samples={n}")
    if classification:
        counts = np.bincount(np.asarray(y, dtype=np.int64))
        if counts[counts > 0].min() >= n_folds:
            return list(StratifiedKFold(n_folds, shuffle=True, random_state=seed)
                        .split(np.zeros(n), y))
    return list(KFold(n_folds, shuffle=True, random_state=seed).split(np.zeros(n)))


def holdout_split(y, fraction: float, seed: int, classification: bool):
    """``(grow_idx, holdout_idx)``: a shuffled split, stratified when every class allows it.

    Parameters
    ----------
    y : array-like of shape (n_rows,)
        Class indices or targets.
    fraction : float in (0, 1)
        Share of the rows held out.
    seed : int
        Seeds the shuffle.
    classification : bool
        Stratify by class when every class allows it.

    Returns
    -------
    grow_idx, holdout_idx : ndarray of int
        Sorted row indices.

    Examples
    --------
    >>> grow_rows, held_out = holdout_split([0, 1] * 5, 0.2, 0, True)
    >>> len(grow_rows), len(held_out)
    (8, 2)
    """
    # sklearn.model_selection takes ~0.2 s to import: loaded by the hold-out method only
    from sklearn.model_selection import train_test_split

    n = len(y)
    n_hold = int(round(fraction * n))
    if n_hold < 1 or n - n_hold < 1:
        raise ValueError(f"holdout={fraction} leaves an empty part with {n} samples")
    idx = np.arange(n)
    stratify = None
    if classification:
        counts = np.bincount(np.asarray(y, dtype=np.int64))
        counts = counts[counts > 0]
        if counts.min() >= 2 and n_hold >= len(counts) and n - n_hold >= len(counts):
            stratify = y
    grow_idx, hold_idx = train_test_split(idx, test_size=n_hold, random_state=seed,
                                          stratify=stratify)
    return np.sort(grow_idx), np.sort(hold_idx)


# ----------------------------------------------------------------------------- the methods
def _bound_finish(merged: dict, given: dict) -> dict:
    exponent = merged.pop("error_prior_exponent")
    if exponent is not None:
        if "r" in given:
            raise ValueError("give either pruning_params['r'] or "
                             "pruning_params['error_prior_exponent'], not both")
        merged["r"] = 2.0 ** (-float(exponent))
    merged["r"] = float(merged["r"])
    if not 0.0 < merged["r"] < 1.0 or math.isnan(merged["r"]):
        raise ValueError(f"error prior ratio r must be in (0, 1), got {merged['r']}")
    return merged


def _bound_prepare(tree, params: dict) -> dict:
    if params["objective"] == "shawe_taylor":
        # "auto" is chosen by a fixed rule on the tree; a tight run estimated over the resource
        # limits is refused here, before any work (choose_variant).
        return dict(params, variant=choose_variant(tree, params["variant"]))
    return params


def _run_bound(tree, params, data: PruningData, cache):
    if params["objective"] != "shawe_taylor":
        return prune_by_certificate(tree, data.X, data.y, objective=params["objective"],
                                    delta=params["delta"])
    return prune_bound(tree, delta=params["delta"], r=params["r"], variant=params["variant"],
                       search=params["search"], cache=cache)


def _bound_objective_label(info: dict) -> str:
    return {"hti": "hti certificate (Leboeuf, LeBlanc & Marchand 2021, Theorem 5)",
            "compression": "sample-compression certificate (Marchand & Sokolova 2005)"}.get(
        info.get("objective", "shawe_taylor"), "Shawe-Taylor risk bound ε (Leboeuf et al. Eq. 8)")


def _fold_trees(tree, n_folds: int, data: PruningData, splits=None) -> list:
    """``(fold tree, X_val, y_val, w_val)`` of every fold: the tree regrown on the other folds
    (``splits``: the folds' ``(train_idx, val_idx)``, default :func:`cv_folds`)."""
    classification = tree.task == "classification"
    if splits is None:
        splits = cv_folds(data.y, n_folds, data.seed, classification)
    folds = []
    for train_idx, val_idx in splits:
        fold_tree = data.grow(data.X[train_idx], data.y[train_idx],
                              data.sample_weight[train_idx])
        folds.append((fold_tree, data.X[val_idx], data.y[val_idx],
                      data.sample_weight[val_idx]))
    return folds


def _run_cost_complexity(tree, params, data: PruningData, cache):
    folds = _fold_trees(tree, params["n_folds"], data)
    return prune_cost_complexity_cv(tree, folds, method=params["method"], rule=params["rule"],
                                    risk=params["risk"], started=data.started)


def _run_certified(tree, params, data: PruningData, cache):
    splits = cv_folds(data.y, params["n_folds"], data.seed, True)
    folds = _fold_trees(tree, params["n_folds"], data, splits)
    optimal = None
    if params["optimal_candidates"]:
        reason = optimal_unavailable(data.X, data.sample_weight, tree.n_categories)
        if reason is not None:
            warnings.warn("pruning='certified' runs on the cost-complexity path alone: "
                          f"optimal_candidates needs STreeD's trees, and {reason}",
                          UserWarning, stacklevel=external_stacklevel())
        else:
            def optimal(path_leaves: int) -> list:
                return optimal_candidates(
                    data.X, data.y, splits, n_classes=tree.n_classes, seed=data.seed,
                    max_leaves=min(params["optimal_max_leaves"], path_leaves),
                    max_depth=params["optimal_max_depth"], sample_weight=data.sample_weight)
    return prune_certified(tree, folds, data.X, data.y, n_se=params["n_se"],
                           risk=params["risk"], delta=params["delta"], started=data.started,
                           cache=cache, optimal=optimal)


def _cost_complexity(name: str, summary: str) -> PruningMethod:
    def run(tree, params, data, cache):
        return _run_cost_complexity(tree, dict(params, method=name), data, cache)

    return PruningMethod(
        name=name, summary=summary,
        parameters={"n_folds": (10, [Interval(int, 2, None)]),
                    "rule": ("min", [Options(RULES)]),
                    "risk": ("error", [Options(RISKS)])},
        tasks=("classification", "regression"),
        needs=lambda params: Needs(rows=True, regrow=True),
        run=run, objective=lambda info: "cross-validated error of T_k")


#: name -> method, in the order the documentation lists them.
REGISTRY: dict[str, PruningMethod] = {m.name: m for m in (
    PruningMethod(
        name="bound",
        summary="Leboeuf et al. (2020) Algorithm 3: greedy collapses minimizing a risk bound "
                "(no cross-validation)",
        parameters={
            "delta": (0.05, [Interval(float, 0.0, 1.0, "neither")]),
            "r": (PAPER_ERROR_PRIOR_RATIO, [Interval(float, 0.0, 1.0, "neither")]),
            "error_prior_exponent": (None, [None, Interval(float, 0.0, None, "neither")]),
            "variant": ("auto", [Options(PRUNING_VARIANTS)]),
            "search": ("lazy", [Options(("lazy", "all"))]),
            "objective": ("shawe_taylor", [Options(OBJECTIVES)]),
        },
        tasks=("classification",),
        needs=lambda params: Needs(rows=params["objective"] != "shawe_taylor",
                                   node_statistics=params["objective"] == "shawe_taylor"),
        run=_run_bound, objective=_bound_objective_label,
        renamed={"bound": "objective"}, finish=_bound_finish, prepare=_bound_prepare),
    _cost_complexity("ccp_cv", "CART cost-complexity pruning with K-fold cross-validation "
                               "(Breiman et al. 1984)"),
    _cost_complexity("mcart_cv", "M-CART: cost-complexity with a VC-based complexity, K-fold "
                                 "cross-validation"),
    PruningMethod(
        name="certified",
        summary="the smallest certificate among the cost-complexity trees within n_se standard "
                "errors (default 0.6) of the best K-fold CV error",
        parameters={"n_folds": (10, [Interval(int, 2, None)]),
                    "n_se": (0.6, [Interval(float, 0.0, None, "left")]),
                    "risk": ("error", [Options(RISKS)]),
                    "delta": (0.05, [Interval(float, 0.0, 1.0, "neither")]),
                    "optimal_candidates": (False, [InstanceOf((bool, np.bool_), "a bool")]),
                    "optimal_max_depth": (4, [Interval(int, 1, None)]),
                    "optimal_max_leaves": (15, [Interval(int, 2, None)])},
        tasks=("classification",),
        needs=lambda params: Needs(rows=True, regrow=True),
        run=_run_certified,
        objective=lambda info: "cross-validated error of T_k (the candidates: within "
                               f"{info.get('n_se', 0.6):g} SE of the smallest)"),
    PruningMethod(
        name="srm",
        summary="Yildiz (2015) SRM pruning with VC-dimension bounds",
        parameters={"a1": (0.1, [Interval(float, 0.0, None, "neither")]),
                    "a2": (2.0, [Interval(float, 0.0, None, "neither")]),
                    "vc_bound": ("lower", [Options(VC_BOUNDS)])},
        tasks=("classification",),
        needs=lambda params: Needs(node_statistics=True),
        run=lambda tree, params, data, cache: prune_srm(
            tree, a1=params["a1"], a2=params["a2"], vc_bound=params["vc_bound"], cache=cache),
        objective=lambda info: "SRM penalized risk E_g (Yıldız; not a bound on the error)"),
    PruningMethod(
        name="reduced_error",
        summary="reduced-error pruning on rows held out from growth (Yildiz's CVprune)",
        parameters={"holdout": (0.2, [Interval(float, 0.0, 1.0, "neither")])},
        tasks=("classification", "regression"),
        needs=lambda params: Needs(holdout=True),
        run=lambda tree, params, data, cache: prune_reduced_error(
            tree, data.X, data.y, data.sample_weight),
        objective=lambda info: "error on the held-out rows"),
)}

#: The method names.
METHODS = tuple(REGISTRY)
#: Methods that apply to regression trees ("bound" and "srm" bound the 0-1 risk).
REGRESSION_METHODS = tuple(name for name, m in REGISTRY.items() if "regression" in m.tasks)
#: name -> {option: (default, constraints)} (the registry's parameters).
PARAMETERS: dict[str, dict[str, tuple]] = {name: m.parameters for name, m in REGISTRY.items()}


def pruning_method(name: str) -> PruningMethod:
    """The registry entry of a method.

    Parameters
    ----------
    name : str
        One of :data:`METHODS`.

    Returns
    -------
    PruningMethod

    Raises
    ------
    ValueError
        For an unknown method.

    Examples
    --------
    >>> pruning_method("reduced_error").needs({"holdout": 0.2}).holdout
    True
    """
    if name not in REGISTRY:
        raise ValueError(f"unknown pruning method {name!r}: expected one of {METHODS}")
    return REGISTRY[name]


def resolve_params(method: str, params: dict | None, *, task: str = "classification") -> dict:
    """The options of a pruning method: defaults merged with ``params``, validated.

    Parameters
    ----------
    method : {"bound", "ccp_cv", "mcart_cv", "certified", "srm", "reduced_error"}
        The pruning method (:data:`METHODS`).
    params : dict or None
        ``pruning_params`` as the user gave them; keys must be options of ``method`` (see
        :data:`PARAMETERS`). For "bound", ``error_prior_exponent`` is turned into
        ``r = 2**-exponent`` (the ratio of the error prior of Leboeuf et al. 2020, section 6.2),
        and the former name ``bound`` of ``objective`` is accepted with a ``FutureWarning``.
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
    entry = pruning_method(method)
    if task not in entry.tasks:
        raise ValueError(
            f"pruning={method!r} applies to classification only (its bound is on the 0-1 "
            f"risk); a regressor supports {REGRESSION_METHODS}")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise TypeError(f"pruning_params must be a dict or None, got {type(params).__name__}")
    params = _renamed(method, entry, params)
    spec = entry.parameters
    unknown = sorted(str(k) for k in params if k not in spec)
    if unknown:
        raise ValueError(f"unknown pruning_params {unknown} for pruning={method!r}; "
                         f"accepted: {sorted(spec)}")
    merged = {name: params.get(name, default) for name, (default, _) in spec.items()}
    constraints = {name: rules for name, (_, rules) in spec.items()}
    validate_parameters(f"pruning={method!r}", merged, constraints)
    return merged if entry.finish is None else entry.finish(merged, params)


def _renamed(method: str, entry: PruningMethod, params: dict) -> dict:
    """``params`` with the options' former names replaced (a ``FutureWarning`` each)."""
    old = [key for key in entry.renamed if key in params]
    if not old:
        return params
    params = dict(params)
    for key in old:
        new = entry.renamed[key]
        if new in params:
            raise ValueError(f"give either pruning_params[{new!r}] or its former name "
                             f"pruning_params[{key!r}], not both")
        warnings.warn(f"pruning_params[{key!r}] of pruning={method!r} is now called {new!r}; "
                      f"the old name will stop working in the next release", FutureWarning,
                      stacklevel=external_stacklevel())
        params[new] = params.pop(key)
    return params
