"""Functional core shared by the estimators and :func:`treebound.pruning.prune`.

Encoded data in, :class:`~treebound.pruning._core.PruningResult` out; a registry maps each
method name to its pruner.
"""

from __future__ import annotations

import dataclasses
import time
import warnings

import numpy as np

from treebound._options import resolve_params
from treebound._resources import unlimited
from treebound.pruning.bound import choose_variant, prune_bound
from treebound.pruning.certificate_bound import prune_by_certificate
from treebound.pruning.cost_complexity import prune_cost_complexity_cv
from treebound.pruning.reduced_error import prune_reduced_error
from treebound.pruning.srm import prune_srm

__all__ = ["cv_folds", "holdout_split", "run_pruning"]


def cv_folds(y, n_folds: int, seed: int, classification: bool):
    """``(train_idx, val_idx)`` pairs: stratified, shuffled K folds (plain K folds when a class
    has fewer than ``n_folds`` samples, and for regression)."""
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
    """``(grow_idx, holdout_idx)``: a shuffled split, stratified when every class allows it."""
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


def run_pruning(tree, method: str, params: dict | None = None, *, X=None, y=None,
                sample_weight=None, grow=None, seed: int = 0, cache=None):
    """Prune a bare :class:`~treebound.tree.Tree` with ``method``: the functional core.

    :func:`treebound.prune` and the estimators' ``pruning=`` option call it; it knows trees and,
    for the cross-validated methods, a regrow callable only. "bound" (Leboeuf et al. 2020,
    Algorithm 3) and "srm" (Yıldız 2015) read the training statistics stored in the tree's nodes;
    "reduced_error" reads a pruning set; "ccp_cv"/"mcart_cv" (Breiman et al. 1984) regrow trees
    on cross-validation folds of the training data.

    Parameters
    ----------
    tree : treebound.tree.Tree
        The grown tree (left untouched).
    method : {"bound", "ccp_cv", "mcart_cv", "srm", "reduced_error"}
        The pruning method (:data:`METHODS`).
    params : dict, optional
        Options of the method (``pruning_params`` of the estimators), validated and completed
        with the defaults by :func:`resolve_params`.
    X : ndarray of float64, shape (n_samples, n_features), optional
        Encoded rows: the training data of the CV methods, the pruning set of "reduced_error".
    y : ndarray, shape (n_samples,), optional
        Class indices (classification) or float targets (regression) of ``X``.
    sample_weight : ndarray of shape (n_samples,), optional
        Weights of ``X`` (default: all 1).
    grow : callable, optional
        ``grow(X, y, w) -> Tree``: regrows a fold tree with the tree's own growth settings (CV
        methods only).
    seed : int, default=0
        Seeds the CV folds.
    cache : treebound.theory.PartitioningCache, optional
        Memo tables shared across calls ("bound", and "srm" with ``vc_bound="upper"``).

    Returns
    -------
    PruningResult

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> grown = DecisionTreeClassifier(random_state=0).fit(X, y)
    >>> result = run_pruning(grown.tree_, "srm", {"vc_bound": "upper"})
    >>> result.n_leaves, round(result.bound, 4)
    (7, 0.0976)
    """
    params = resolve_params(method, params, task=tree.task)
    if method == "bound" and params["bound"] == "shawe_taylor":
        # The tight bound's partitioning tables grow with the tree, the classes and 2m: checked
        # against the resource limits here, before any work ("auto" falls back to "loose").
        params = dict(params, variant=choose_variant(tree, params["variant"]))
    # Past that check the work is sized by the tree and its training rows, already in memory:
    # the resource limits of the theory functions (treebound.resource_limits) do not apply.
    with unlimited():
        return _run_pruning(tree, method, params, X=X, y=y, sample_weight=sample_weight,
                            grow=grow, seed=seed, cache=cache)


def _run_pruning(tree, method, params, *, X, y, sample_weight, grow, seed, cache):
    started = time.perf_counter()
    if method == "bound" and params["bound"] != "shawe_taylor":
        return prune_by_certificate(tree, X, y, criterion=params["bound"],
                                    delta=params["delta"])
    if method == "bound":
        return prune_bound(tree, delta=params["delta"], r=params["r"], variant=params["variant"],
                           search=params["search"], cache=cache)
    if method == "srm":
        return prune_srm(tree, a1=params["a1"], a2=params["a2"], vc_bound=params["vc_bound"],
                         cache=cache)
    if X is None or y is None:
        raise ValueError(f"pruning={method!r} needs the data: X and y "
                         + ("(the pruning set)" if method == "reduced_error"
                            else "(the training data, to regrow the fold trees)"))
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    if method == "reduced_error":
        return prune_reduced_error(tree, X, y, w)
    if grow is None:
        raise ValueError(f"pruning={method!r} regrows trees on the CV folds: pass the growth "
                         "function (or prune a fitted estimator, which knows its settings)")
    classification = tree.task == "classification"
    folds = []
    for train_idx, val_idx in cv_folds(y, params["n_folds"], seed, classification):
        fold_tree = grow(X[train_idx], y[train_idx], w[train_idx])
        folds.append((fold_tree, X[val_idx], y[val_idx], w[val_idx]))
    return prune_cost_complexity_cv(tree, folds, method=method, rule=params["rule"],
                                    risk=params["risk"], started=started)


#: Why ``bound`` is withheld under non-uniform weights (the estimators warn with this text).
WEIGHTED_BOUND_MESSAGE = (
    "bound_ is None: pruning={method!r} computes its bound from weighted class counts, which a "
    "non-uniform sample_weight can make arbitrarily small, so the value would bound nothing; "
    "certificate_ bounds the error rate on new data counting every row with positive weight "
    "once (the weights play no part in it)")


def weights_are_uniform(tree) -> bool:
    """Whether the tree's statistics look like equal weights on every row: the weight per row
    is the same at every node that has rows (a tree grown with non-uniform weights can still
    pass, when every node happens to average to the same weight)."""
    rows = tree.n_node_samples > 0
    per_row = tree.weighted_n_node_samples[rows] / tree.n_node_samples[rows]
    # sums of equal weights in different orders agree to far better than 1e-6
    return bool(per_row.size == 0 or np.ptp(per_row) <= 1e-6 * np.max(per_row))


def withhold_weighted_bound(result, uniform: bool, stacklevel: int = 3):
    """``result`` with ``bound`` set to None (and a warning) when it was computed from weighted
    statistics of non-uniformly weighted rows ("bound" with the Shawe-Taylor objective, "srm")."""
    if uniform or result.bound is None:
        return result
    if result.method == "bound" and result.info.get("criterion", "shawe_taylor") != \
            "shawe_taylor":
        return result  # the certificate criteria count rows, not weights
    warnings.warn(WEIGHTED_BOUND_MESSAGE.format(method=result.method), UserWarning,
                  stacklevel=stacklevel)
    info = dict(result.info, bound_withheld="non-uniform sample_weight",
                weighted_objective=result.bound)
    return dataclasses.replace(result, bound=None, info=info)
