"""The functional core shared by the estimators and :func:`treebound.prune`.

Encoded data in, :class:`~treebound.pruning._core.PruningResult` out; what each method needs
and how it runs comes from the registry (:mod:`treebound.pruning._registry`).
"""

from __future__ import annotations

import dataclasses
import time
import warnings

import numpy as np

from treebound._flat._sklearn_view import as_flat
from treebound._resources import unlimited
from treebound.pruning._registry import PruningData, pruning_method, resolve_params

__all__ = ["run_pruning", "weights_are_uniform", "withhold_weighted_bound"]


def run_pruning(tree, method: str, params: dict | None = None, *, X=None, y=None,
                sample_weight=None, grow=None, seed: int = 0, cache=None):
    """Prune a bare :class:`~treebound.tree.Tree` with ``method``: the functional core.

    :func:`treebound.prune` and the estimators' ``pruning=`` option call it; it knows trees and,
    for the cross-validated methods, a regrow callable only. "bound" (Leboeuf et al. 2020,
    Algorithm 3) with the Shawe-Taylor objective and "srm" (Yıldız 2015) read the training
    statistics stored in the tree's nodes; "bound" with a certificate objective counts errors
    on the training rows; "reduced_error" reads a pruning set; "ccp_cv"/"mcart_cv" (Breiman et
    al. 1984) and "certified" regrow trees on cross-validation folds of the training data (each method's
    :class:`~treebound.pruning._registry.Needs`).

    Parameters
    ----------
    tree : treebound.tree.Tree
        The grown tree (left untouched).
    method : {"bound", "ccp_cv", "mcart_cv", "certified", "srm", "reduced_error"}
        The pruning method (:data:`METHODS`).
    params : dict, optional
        Options of the method (``pruning_params`` of the estimators), validated and completed
        with the defaults by :func:`resolve_params`.
    X : ndarray of float64, shape (n_samples, n_features), optional
        Encoded rows: the training data of the CV methods and of the certificate objectives,
        the pruning set of "reduced_error".
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
    >>> result.n_leaves, round(result.objective, 4)
    (7, 0.0976)
    """
    tree = as_flat(tree)
    entry = pruning_method(method)
    params = resolve_params(method, params, task=tree.task)
    if entry.prepare is not None:
        params = entry.prepare(tree, params)
    # Past that point the work is sized by the tree and its training rows, already in memory:
    # the resource limits of the theory functions (treebound.resource_limits) do not apply.
    with unlimited():
        started = time.perf_counter()
        needs = entry.needs(params)
        data = PruningData(None, None, None, grow, seed, started)
        if needs.data:
            if X is None or y is None:
                what = ("the pruning set" if needs.holdout else
                        "the training data, to regrow the fold trees" if needs.regrow else
                        "the training rows its objective counts errors on")
                raise ValueError(f"pruning={method!r} needs the data: X and y ({what})")
            if needs.regrow and grow is None:
                raise ValueError(f"pruning={method!r} regrows trees on the CV folds: pass the "
                                 "growth function (or prune a fitted estimator, which knows its "
                                 "settings)")
            X = np.asarray(X, dtype=np.float64)
            w = np.ones(X.shape[0]) if sample_weight is None else \
                np.asarray(sample_weight, float)
            data = PruningData(X, np.asarray(y), w, grow, seed, started)
        return entry.run(tree, params, data, cache)


#: Why the objective is withheld under non-uniform weights (the estimators warn with this text).
WEIGHTED_BOUND_MESSAGE = (
    "pruning_objective_ is None: pruning={method!r} computes its bound from weighted class "
    "counts, which a non-uniform sample_weight can make arbitrarily small, so the value would "
    "bound nothing; certificate_ bounds the error rate on new data counting every row with "
    "positive weight once (the weights play no part in it)")


def weights_are_uniform(tree) -> bool:
    """Whether the tree's statistics look like equal weights on every row: the weight per row
    is the same at every node that has rows (a tree grown with non-uniform weights can still
    pass, when every node happens to average to the same weight)."""
    tree = as_flat(tree)
    rows = tree.n_node_samples > 0
    per_row = tree.weighted_n_node_samples[rows] / tree.n_node_samples[rows]
    # sums of equal weights in different orders agree to far better than 1e-6
    return bool(per_row.size == 0 or np.ptp(per_row) <= 1e-6 * np.max(per_row))


def withhold_weighted_bound(result, uniform: bool, stacklevel: int = 3, *,
                            node_statistics: bool = True):
    """``result`` with ``bound`` set to None (and a warning) when it was computed from weighted
    statistics of non-uniformly weighted rows (``node_statistics``: the method's
    :class:`~treebound.pruning._registry.Needs` says so — "bound" with the Shawe-Taylor
    objective, "srm")."""
    if uniform or result.objective is None or not node_statistics:
        return result
    warnings.warn(WEIGHTED_BOUND_MESSAGE.format(method=result.method), UserWarning,
                  stacklevel=stacklevel)
    info = dict(result.info, bound_withheld="non-uniform sample_weight",
                weighted_objective=result.objective)
    return dataclasses.replace(result, objective=None, info=info)
