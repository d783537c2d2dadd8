"""Functional core of tree growing: encoded data + settings -> :class:`Tree`.

The estimators validate and dispatch to :func:`grow`; the CLI, the pruning module and the
experiments call it too. Option strings become kernel constants through the registries below.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from treebound._flat._feature_coding import code_features
from treebound._flat._sparse import is_sparse
from treebound._flat._sparse_coding import code_sparse_features
from treebound._flat._storage import Tree
from treebound._kernels import criteria as _crit
from treebound._kernels import grow as _grow
from treebound._kernels import growth_extensions as _ext
from treebound._kernels import growth_state as _layout
from treebound._kernels.sparse_growth import grow_sparse
from treebound._kernels.tree_columns import node_columns

CLASSIFICATION_CRITERIA = {
    "gini": _crit.GINI,
    # scikit-learn's two names of -sum p_k log2 p_k
    "entropy": _crit.ENTROPY,
    "log_loss": _crit.ENTROPY,
    # the lecture notes' -1/2 sum p_k log2 p_k (SPEC section 1): the same splits, half the
    # impurities (grown as "entropy", see IMPURITY_SCALE)
    "scaled_entropy": _crit.ENTROPY,
    "sqrt": _crit.SQRT,
    "misclassification": _crit.MISCLASSIFICATION,
}
#: Criteria grown with another's kernel whose impurities are a constant times its own: the
#: impurities are scaled back, and min_impurity_decrease is compared in the kernel's units.
IMPURITY_SCALE = {"scaled_entropy": 0.5}
REGRESSION_CRITERIA = {
    "squared_error": _crit.SQUARED_ERROR,
    # scikit-learn 1.9 maps "friedman_mse" to "squared_error" (same splits for one output)
    "friedman_mse": _crit.SQUARED_ERROR,
    "absolute_error": _crit.ABSOLUTE_ERROR,
    "poisson": _crit.POISSON,
}
GROWTH_POLICIES = {
    "depth_first": _layout.GROWTH_DEPTH_FIRST,
    "top_down": _layout.GROWTH_TOP_DOWN,
    "best_first": _layout.GROWTH_BEST_FIRST,
    "purest_children": _layout.GROWTH_PUREST_CHILDREN,
}
#: "best": every threshold (scikit-learn's exact greedy search; "exact" is its former name),
#: "random": one uniform threshold per feature (scikit-learn's), "hist": binned thresholds.
SPLITTERS = ("best", "exact", "random", "hist")

#: Memory allowed for the per-node histogram blocks kept for the subtraction trick (bytes).
HISTOGRAM_MEMORY = 256 * 2**20
#: Largest node-statistics and scratch memory a fit may need before it is refused (bytes).
STATISTICS_MEMORY = 4 * 2**30
CATEGORICAL_SPLITS = ("binary", "multiway")


@dataclass(frozen=True)
class GrowthSettings:
    """Everything that decides the grown tree, already resolved to plain values."""

    criterion: str = "gini"
    growth: str = "depth_first"
    splitter: str = "exact"
    max_bins: int = 255
    max_depth: int | None = None
    max_leaf_nodes: int | None = None
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    min_impurity_decrease: float = 0.0
    max_features: int | None = None
    categorical_split: str = "binary"
    seed: int = 0
    #: every leaf keeps at least this fraction of the total sample weight
    min_weight_fraction_leaf: float = 0.0
    #: per feature -1 / 0 / 1: the prediction (regression) or the probability of the second
    #: class (binary classification) decreases / is free / increases with the feature
    monotonic_cst: tuple | None = None


def grow(X_enc: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, n_categories: np.ndarray,
         settings: GrowthSettings, *, n_classes, column_ranges=None,
         rows_out: list | None = None) -> Tree:
    """Grow a tree on encoded data.

    ``y`` holds class indices ``0 .. n_classes - 1`` (classification) or float targets
    (``n_classes=None``: regression); a 2-D ``y`` has one column per output (``n_classes`` then
    lists the classes of each output). Categorical columns of ``X_enc`` hold category codes and
    ``n_categories[j]`` is their count (0 for numeric columns). ``column_ranges``: the
    ``(lo, hi, integral)`` of the columns of ``X_enc`` when the caller has them
    (:func:`~treebound._flat._feature_coding.code_features` then does not read them again).
    ``rows_out``: a list to which the rows are appended as
    :class:`~treebound._flat._feature_coding.CodedRows` when their codes give them exactly (a
    dense matrix of small-range integers), so that the caller can keep them in an eighth of the
    memory (the certificate's evidence pass reads them).
    """
    regression = n_classes is None
    n_samples, n_features = X_enc.shape
    y = np.asarray(y)
    n_outputs = 1 if y.ndim == 1 else int(y.shape[1])
    classes = None if regression else np.atleast_1d(np.asarray(n_classes, dtype=np.int64))
    criterion = (REGRESSION_CRITERIA if regression else CLASSIFICATION_CRITERIA)[settings.criterion]
    cst = _check_extended_options(y, n_categories, settings, classes, criterion)
    if regression:
        task = _crit.TASK_REGRESSION
        width = 3 if n_outputs == 1 else 1 + 2 * n_outputs
    else:
        task = _crit.TASK_CLASSIFICATION
        width = int(classes[0]) if n_outputs == 1 else 1 + int(classes.sum())
    if n_outputs == 1:
        y_cls = (np.zeros(n_samples, dtype=np.int32) if regression
                 else np.ascontiguousarray(y, dtype=np.int32))
        y_val = (np.ascontiguousarray(y, dtype=np.float64) if regression
                 else np.zeros(1, dtype=np.float64))
    else:
        # the routing step adds one output's statistics: the extended hooks recompute them
        y_cls = np.zeros(n_samples, dtype=np.int32)
        y_val = np.zeros(n_samples, dtype=np.float64)
    sample_weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
    ext = _extensions(y, sample_weight, settings, n_samples, n_features, width, n_outputs,
                      classes, criterion, regression, cst)
    max_features = n_features if settings.max_features is None else settings.max_features
    scale = IMPURITY_SCALE.get(settings.criterion, 1.0)
    if is_sparse(X_enc):
        if ext is not None:
            # the sparse kernel searches as the fast dense path does, without the extensions
            raise ValueError(
                "a sparse X is not supported yet with splitter='random', monotonic_cst, "
                "min_weight_fraction_leaf, several outputs or criterion "
                "'absolute_error'/'poisson': pass X.toarray() or drop those options")
        return _grow_sparse(X_enc, y_cls, y_val, sample_weight, n_categories, settings, task,
                            width, criterion, int(max_features), regression, scale, classes)
    coded = code_features(X_enc, n_categories, settings.splitter, settings.max_bins, width,
                          column_ranges)
    _check_memory(coded, width, n_samples, settings)
    if rows_out is not None and coded.exact:
        rows_out.append(coded.coded_rows())
    in_block = (coded.kind != _layout.KIND_PRESORTED) & (coded.n_codes <= 256)
    block_bytes = 8 * int(coded.n_codes[in_block].sum()) * (width + 1)
    # the extended search keeps no histogram blocks
    max_block_rows = 0 if ext is not None else max(0, HISTOGRAM_MEMORY // max(block_bytes, 1))
    ni, nf, nv, map_pool = _grow.grow_tree(
        coded.codes, coded.codes_t, coded.n_codes, coded.kind, coded.lo_values, coded.hi_values,
        coded.value_offset, y_cls, y_val, sample_weight,
        task, width, criterion, GROWTH_POLICIES[settings.growth],
        -1 if settings.max_depth is None else int(settings.max_depth),
        int(settings.min_samples_split), int(settings.min_samples_leaf),
        float(settings.min_impurity_decrease) / scale,
        -1 if settings.max_leaf_nodes is None else int(settings.max_leaf_nodes),
        int(max_features), settings.categorical_split == "multiway", int(settings.seed),
        int(max_block_rows), coded.missing_code, ext,
    )
    if scale != 1.0:
        nf[:, _layout.F_IMPURITY] *= scale
    return _to_tree(ni, nf, nv, map_pool, n_categories, regression, coded.missing_code,
                    n_outputs=n_outputs,
                    classes=classes, criterion=criterion, monotonic=ext is not None
                    and ext.has_monotonic)


def _monotonic(settings: GrowthSettings, n_features: int) -> np.ndarray | None:
    """The constraints as an int8 array (None when there are none)."""
    if settings.monotonic_cst is None:
        return None
    cst = np.asarray(settings.monotonic_cst)
    if cst.shape != (n_features,):
        shape = cst.shape[0] if cst.ndim == 1 else cst.shape
        raise ValueError(f"monotonic_cst has shape {shape} but the input data X has "
                         f"{n_features} features.")
    if not np.all(np.isin(cst, (-1, 0, 1))):
        raise ValueError("monotonic_cst must be None or an array-like of -1, 0 or 1, but got "
                         f"{np.unique(cst)}")
    return cst.astype(np.int8)


def _check_extended_options(y, n_categories, settings, classes, criterion) -> np.ndarray | None:
    """Refuse the combinations growth cannot serve, with scikit-learn's messages where it has
    them; the monotonic constraints as an int8 array (None when there are none)."""
    n_features = int(np.asarray(n_categories).shape[0])
    cst = _monotonic(settings, n_features)
    categorical = np.asarray(n_categories) > 0
    multi = y.ndim == 2 and y.shape[1] > 1
    if cst is not None and np.any(cst != 0):
        if multi:
            raise ValueError("Monotonicity constraints are not supported with multiple outputs.")
        if classes is not None and classes[0] > 2:
            raise ValueError("Monotonicity constraints are not supported with multiclass "
                             "classification")
        if np.any(cst[categorical] != 0):
            raise ValueError("monotonic_cst must be 0 for categorical features (a category "
                             f"has no order): features {np.flatnonzero(cst * categorical)}")
    if categorical.any() and multi:
        raise ValueError("multi-output y with categorical features is not supported: encode "
                         "the categorical features (one-hot) or fit one tree per output")
    if categorical.any() and criterion == _crit.ABSOLUTE_ERROR:
        raise ValueError('criterion="absolute_error" does not support categorical features: '
                         "encode them (one-hot)")
    if criterion == _crit.POISSON:
        check_poisson_target(y)
    return cst


def check_poisson_target(y: np.ndarray) -> None:
    """Refuse targets half the Poisson deviance is not defined for (scikit-learn's messages)."""
    if np.any(y < 0):
        raise ValueError("Some value(s) of y are negative which is not allowed for Poisson "
                         "regression.")
    if np.sum(y) <= 0:
        raise ValueError("Sum of y is not positive which is necessary for Poisson regression.")


def _extensions(y, sample_weight, settings, n_samples, n_features, width, n_outputs, classes,
                criterion, regression, cst):
    """The :class:`~treebound._kernels.growth_extensions.Extensions` of a fit, or None when it
    needs none (the fast path). ``cst``: the monotonic constraints (None: none)."""
    extended = (settings.splitter == "random" or settings.min_weight_fraction_leaf > 0
                or (cst is not None and bool(np.any(cst != 0))) or n_outputs > 1
                or criterion in (_crit.POISSON, _crit.ABSOLUTE_ERROR))
    if not extended:
        return None
    if cst is None:
        cst = np.zeros(n_features, dtype=np.int8)
    if not regression:
        # scikit-learn constrains the probability of class 0: the signs are flipped
        cst = -cst
    y2 = y.reshape(n_samples, n_outputs)
    if regression:
        y_cls, y_val = np.zeros((1, 1), dtype=np.int32), y2
        class_offset = np.zeros(n_outputs + 1, dtype=np.int64)
    else:
        y_cls, y_val = y2, np.zeros((1, 1))
        class_offset = np.concatenate([[1], 1 + np.cumsum(classes)]).astype(np.int64)
    return _ext.new_extensions(
        n_samples, width, random_splitter=settings.splitter == "random",
        min_weight_leaf=settings.min_weight_fraction_leaf * float(np.sum(sample_weight)),
        monotonic=cst, n_outputs=n_outputs, class_offset=class_offset, y_cls=y_cls, y_val=y_val,
        absolute_error=criterion == _crit.ABSOLUTE_ERROR)


def _grow_sparse(X, y_cls, y_val, sample_weight, n_categories, settings, task, width,
                 criterion, max_features, regression, scale, classes) -> Tree:
    """:func:`grow` on a sparse matrix of numeric features (the kernel of
    :mod:`treebound._kernels.sparse_growth`: the same tree as on the dense matrix)."""
    if np.any(n_categories > 0):
        raise ValueError("a sparse X holds numeric features only")
    coded = code_sparse_features(X, settings.splitter, settings.max_bins, width)
    params = _layout.GrowthParams(
        task=task, width=width, criterion=criterion,
        growth=GROWTH_POLICIES[settings.growth],
        max_depth=-1 if settings.max_depth is None else int(settings.max_depth),
        min_samples_split=int(settings.min_samples_split),
        min_samples_leaf=int(settings.min_samples_leaf),
        min_impurity_decrease=float(settings.min_impurity_decrease) / scale,
        max_leaf_nodes=-1 if settings.max_leaf_nodes is None else int(settings.max_leaf_nodes),
        max_features=max_features, multiway=False,
        unit_weights=bool(np.all(sample_weight == 1.0)))
    ni, nf, nv, map_pool = grow_sparse(
        coded.seg_feat, coded.seg_code, coded.seg_sample, coded.zero_code, int(X.shape[1]),
        (coded.lo_values, coded.hi_values, coded.value_offset, coded.x_indptr, coded.x_indices,
         coded.x_data), y_cls, y_val,
        np.ascontiguousarray(sample_weight, dtype=np.float64), params, int(settings.seed))
    if scale != 1.0:
        nf[:, _layout.F_IMPURITY] *= scale
    return _to_tree(ni, nf, nv, map_pool, n_categories, regression,
                    np.full(X.shape[1], -1, dtype=np.int64), classes=classes,
                    criterion=criterion)


def _check_memory(coded, width: int, n_samples: int, settings: GrowthSettings) -> None:
    """Refuse fits whose per-node statistics cannot fit in memory (e.g. 10^5 classes)."""
    max_nodes = 2 * n_samples - 1
    if settings.max_leaf_nodes is not None:
        max_nodes = min(max_nodes, 2 * settings.max_leaf_nodes - 1)
    searched = coded.n_codes[coded.kind != _layout.KIND_PRESORTED]
    scratch = int(searched.max()) * width * 8 * 3 if searched.size else 0
    needed = max_nodes * width * 8 + scratch
    if needed > STATISTICS_MEMORY:
        raise ValueError(
            f"a tree with {width} classes/statistics per node on {n_samples} samples may need "
            f"{needed / 2**30:.1f} GiB of node statistics (limit {STATISTICS_MEMORY / 2**30:.0f} "
            "GiB): merge rare classes or set max_leaf_nodes"
        )


def _node_values(nf, nv, regression: bool, n_outputs: int, classes, criterion: int,
                 monotonic: bool) -> np.ndarray:
    """What each node predicts: class counts (classification), the weighted mean or median of
    the target (regression); ``(n_nodes, n_outputs, max_n_classes)`` with several outputs.

    Under monotonic constraints the value is clipped to the node's bounds, as scikit-learn
    clips it: the mean, or the fraction of class 0 (the counts of a clipped node are then the
    clipped fractions times a power of two within a factor 2 of its weight).
    """
    if n_outputs == 1 and not regression:
        return _class_counts(nv, nf, monotonic)
    weight = nv[:, 0]
    if n_outputs > 1:
        n_nodes = nv.shape[0]
        if regression:
            sums = nv[:, 1 : 1 + n_outputs]
            if criterion == _crit.ABSOLUTE_ERROR:
                return sums.reshape(n_nodes, n_outputs, 1).copy()
            mean = np.divide(sums, weight[:, None], out=np.zeros_like(sums),
                             where=weight[:, None] > 0)
            return mean.reshape(n_nodes, n_outputs, 1)
        value = np.zeros((n_nodes, n_outputs, int(classes.max())))
        offset = 1
        for k, n_k in enumerate(classes):
            value[:, k, :n_k] = nv[:, offset : offset + n_k]
            offset += n_k
        return value
    # one output of regression
    if criterion == _crit.ABSOLUTE_ERROR:
        value = nv[:, 1].copy()
    else:
        value = np.divide(nv[:, 1], weight, out=np.zeros_like(weight), where=weight > 0)
    if monotonic:
        value = np.clip(value, nf[:, _layout.F_LOWER_BOUND], nf[:, _layout.F_UPPER_BOUND])
    return value.reshape(-1, 1)


def _class_counts(nv, nf, monotonic: bool) -> np.ndarray:
    """The class counts of one output's nodes (clipped to the monotonic bounds)."""
    value = nv.copy()
    if monotonic:
        weight = nv.sum(axis=1)
        fraction = np.divide(nv[:, 0], weight, out=np.zeros_like(weight), where=weight > 0)
        clipped = np.clip(fraction, nf[:, _layout.F_LOWER_BOUND], nf[:, _layout.F_UPPER_BOUND])
        moved = clipped != fraction
        # scaled by a power of two near the weight (exact), so that predict_proba's division
        # gives every leaf clipped to the same bound the same probability, to the last bit
        # (leaf weights would round differently and break monotonicity by 1e-16)
        scale = np.ldexp(1.0, np.frexp(weight[moved])[1])
        value[moved, 0] = clipped[moved] * scale
        value[moved, 1] = (1.0 - clipped[moved]) * scale
    return value


def _to_tree(ni, nf, nv, map_pool, n_categories, regression: bool, missing_code, *,
             n_outputs: int = 1, classes=None, criterion: int = -1,
             monotonic: bool = False) -> Tree:
    n_nodes = ni.shape[0]
    first_child, n_children, feature, missing_child, n_node_samples = (
        np.empty(n_nodes, dtype=np.int64) for _ in range(5))
    threshold, weighted = np.empty(n_nodes), np.empty(n_nodes)
    # numeric tests: the child of the missing rows (route_binary), decided by growth
    categorical_test = node_columns(ni, nf, first_child, n_children, feature, missing_child,
                                    n_node_samples, threshold, weighted)
    category_offset = np.full(n_nodes, -1, dtype=np.int64)
    categorical_missing = []
    category_child = np.empty(0, dtype=np.int64)
    if categorical_test:
        # Keep only the category maps of tests that were applied, pooled in node order.
        # Categorical tests: the slot of the missing code in the growth map (after the
        # levels') when the feature had missing values, else the default rule
        # (Tree.missing_child).
        old_offsets = ni[:, _layout.I_CATEGORY_OFFSET]
        pieces, pos = [], 0
        for node in np.flatnonzero((first_child >= 0) & (old_offsets >= 0)):
            width = int(n_categories[feature[node]])
            pieces.append(map_pool[old_offsets[node] : old_offsets[node] + width])
            category_offset[node] = pos
            pos += width
            if missing_code[feature[node]] >= 0:
                categorical_missing.append((node, map_pool[old_offsets[node] + width]))
        category_child = np.concatenate(pieces).astype(np.int64)
    tree = Tree(
        first_child=first_child,
        n_children=n_children,
        feature=feature,
        threshold=threshold,
        category_offset=category_offset,
        category_child=category_child,
        value=_node_values(nf, nv, regression, n_outputs, classes, criterion, monotonic),
        # 1 - sum p^2 and friends can round to -1e-16 on a pure node: an impurity is >= 0
        impurity=np.maximum(nf[:, _layout.F_IMPURITY], 0.0),
        n_node_samples=n_node_samples,
        weighted_n_node_samples=weighted,
        n_categories=np.array(n_categories, dtype=np.int64),
        task="regression" if regression else "classification",
        # growth decided every numeric test's missing child; the default rule
        # (Tree.missing_child) is needed only for categorical tests
        missing_child=None if categorical_test else missing_child,
    )
    if not categorical_test:
        return tree
    default = tree.missing_child  # the rule for nodes without missing rows
    numeric_test = (first_child >= 0) & (category_offset < 0)
    missing_child = np.where(numeric_test, missing_child, default)
    for node, slot in categorical_missing:
        missing_child[node] = slot
    tree.missing_child = missing_child.astype(np.int64)
    return tree
