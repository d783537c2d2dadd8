"""The functional fit core: encoded data in, a grown (and optionally pruned) :class:`Tree` out.

The estimators, :func:`treebound.prune` and the benchmarks all call it; it knows nothing of
estimators. Pruning receives the grown tree, the data it needs and, for the cross-validated
methods, a *regrow* callable that grows a tree with the same settings on other rows — the only
thing :mod:`treebound.pruning` learns about growth.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from treebound._flat._storage import Tree
from treebound._validation import rescale_extreme_weights
from treebound.pruning._core import PruningResult
from treebound.pruning._dispatch import run_pruning, withhold_weighted_bound
from treebound.pruning._registry import holdout_split, pruning_method, resolve_params
from treebound.pruning.cost_complexity import prune_at_alpha
from treebound.tree._builder import GrowthSettings, grow

__all__ = ["fit_tree", "regrow_function"]


def regrow_function(n_categories: np.ndarray, settings: GrowthSettings,
                    n_classes: int | None) -> Callable:
    """``regrow(X, y, w) -> Tree``: a tree grown with ``settings`` on other rows (rows of zero
    weight dropped, as the estimators drop them), e.g. the folds of cross-validation."""

    def regrow(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> Tree:
        keep = w > 0
        if not keep.all():
            X, y, w = X[keep], y[keep], w[keep]
        return grow(X, y, w, n_categories, settings, n_classes=n_classes)

    return regrow


def fit_tree(X_enc: np.ndarray, y_enc: np.ndarray, sample_weight: np.ndarray,
             n_categories: np.ndarray, settings: GrowthSettings, *, n_classes: int | None,
             pruning: str | None = None, pruning_params: dict | None = None,
             ccp_alpha: float = 0.0, cache=None,
             column_ranges=None, rows_out: list | None = None
             ) -> tuple[Tree, PruningResult | None]:
    """Grow a tree on encoded rows and prune it.

    Parameters
    ----------
    X_enc : ndarray of float64, shape (n_samples, n_features)
        Encoded features (numeric values, categorical level codes).
    y_enc : ndarray
        Class indices (classification) or float targets (regression).
    sample_weight : ndarray of float64
        Row weights; rows of weight 0 are dropped (weighting a row by 0 removes it) and extreme
        weights are rescaled by an exact power of two (the tree does not change).
    n_categories : ndarray of int
        Levels of every feature, 0 for a numeric one.
    settings : GrowthSettings
        Criterion, growth order and stopping rules.
    n_classes : int or None
        Number of classes; None for regression.
    pruning : str or None
        A method of ``treebound.pruning.METHODS``; None grows only.
    pruning_params : dict or None
        Its options (validated).
    ccp_alpha : float, default=0.0
        scikit-learn's minimal cost-complexity pruning at this fixed alpha, applied to the
        grown tree (:func:`~treebound.pruning.cost_complexity.prune_at_alpha`); only without
        ``pruning`` (the estimators refuse both).
    cache : treebound.theory.PartitioningCache, optional
        Theorem 9 tables the pruning may fill and reuse (certified selection; the caller can
        certify the pruned tree from them).
    column_ranges : tuple of ndarray, optional
        ``(lo, hi, integral)`` of the columns of ``X_enc`` when the caller has them
        (:func:`~treebound._kernels.coding_passes.column_ranges`; the estimators' checks of
        the rows read them): feature coding of the tree grown on all of ``X_enc`` starts from
        them instead of reading the rows again.
    rows_out : list, optional
        Receives the rows as :class:`~treebound._flat._feature_coding.CodedRows` when the
        tree is grown on all of them (no row of weight 0, no held-out part) and their codes give
        them exactly (:func:`~treebound.tree._builder.grow`).

    Returns
    -------
    tree : Tree
        The grown tree, pruned when ``pruning`` or ``ccp_alpha`` is given.
    result : PruningResult or None
        The pruning's record (None without pruning). Its ``bound`` is None, with a warning,
        for "bound" (Shawe-Taylor) and "srm" under unequal weights: both read weighted node
        statistics.

    Examples
    --------
    >>> import numpy as np
    >>> from treebound.tree._builder import GrowthSettings
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1], dtype=np.int32)
    >>> settings = GrowthSettings(criterion="gini", growth="top_down", splitter="exact")
    >>> tree, result = fit_tree(X, y, np.ones(4), np.zeros(1, dtype=np.int64), settings,
    ...                         n_classes=2)
    >>> tree.n_leaves, result is None
    (2, True)
    """
    positive = sample_weight > 0
    if not positive.all():
        X_enc, y_enc, sample_weight = X_enc[positive], y_enc[positive], sample_weight[positive]
        column_ranges = None  # the ranges of other rows
        rows_out = None  # and the coded rows
    sample_weight = rescale_extreme_weights(sample_weight)
    if pruning is None:  # every weight is positive now: grown without regrow's check of them
        tree = grow(X_enc, y_enc, sample_weight, n_categories, settings, n_classes=n_classes,
                    column_ranges=column_ranges, rows_out=rows_out)
        return prune_at_alpha(tree, ccp_alpha), None
    regrow = regrow_function(n_categories, settings, n_classes)
    if ccp_alpha > 0.0:
        raise ValueError("ccp_alpha and pruning exclude each other: set one")
    classification = n_classes is not None
    params = resolve_params(pruning, pruning_params,
                            task="classification" if classification else "regression")
    needs = pruning_method(pruning).needs(params)
    data: dict = {}
    if needs.holdout:
        # grow on part of the training data, prune on the rest (Yildiz's CVprune)
        grow_idx, hold_idx = holdout_split(y_enc, params["holdout"], settings.seed,
                                           classification)
        tree = regrow(X_enc[grow_idx], y_enc[grow_idx], sample_weight[grow_idx])
        data = {"X": X_enc[hold_idx], "y": y_enc[hold_idx],
                "sample_weight": sample_weight[hold_idx]}
    else:
        tree = grow(X_enc, y_enc, sample_weight, n_categories, settings, n_classes=n_classes,
                    column_ranges=column_ranges, rows_out=rows_out)
        if needs.rows:
            data = {"X": X_enc, "y": y_enc, "sample_weight": sample_weight}
        if needs.regrow:
            data.update(grow=regrow, seed=settings.seed)
    result = run_pruning(tree, pruning, params, cache=cache, **data)
    # An objective read from weighted node statistics is no bound under unequal weights (one
    # row weighted 1e308 makes it anything); the certificates count rows.
    uniform = bool(np.all(sample_weight == sample_weight[0]))
    result = withhold_weighted_bound(result, uniform, stacklevel=5,
                                     node_statistics=needs.node_statistics)
    return result.tree, result
