"""Functional core of tree growing: encoded data + settings -> :class:`Tree`.

The estimators validate and dispatch to :func:`grow`; the CLI, the pruning module and the
experiments call it too. Option strings become kernel constants through the registries below.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from treebound._flat._feature_coding import code_features
from treebound._flat._storage import Tree
from treebound._kernels import criteria as _crit
from treebound._kernels import grow as _grow
from treebound._kernels import growth_state as _layout

CLASSIFICATION_CRITERIA = {
    "gini": _crit.GINI,
    "entropy": _crit.ENTROPY,
    "sqrt": _crit.SQRT,
    "misclassification": _crit.MISCLASSIFICATION,
}
REGRESSION_CRITERIA = {"squared_error": _crit.SQUARED_ERROR}
GROWTH_POLICIES = {
    "depth_first": _layout.GROWTH_DEPTH_FIRST,
    "top_down": _layout.GROWTH_TOP_DOWN,
    "best_first": _layout.GROWTH_BEST_FIRST,
    "purest_children": _layout.GROWTH_PUREST_CHILDREN,
}
SPLITTERS = ("exact", "hist")

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


def grow(X_enc: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, n_categories: np.ndarray,
         settings: GrowthSettings, *, n_classes: int | None) -> Tree:
    """Grow a tree on encoded data.

    ``y`` holds class indices ``0 .. n_classes - 1`` (classification) or float targets
    (``n_classes=None``: regression). Categorical columns of ``X_enc`` hold category codes and
    ``n_categories[j]`` is their count (0 for numeric columns).
    """
    regression = n_classes is None
    n_samples, n_features = X_enc.shape
    if regression:
        task, width = _crit.TASK_REGRESSION, 3
        criterion = REGRESSION_CRITERIA[settings.criterion]
        y_cls = np.zeros(n_samples, dtype=np.int32)
        y_val = np.ascontiguousarray(y, dtype=np.float64)
    else:
        task, width = _crit.TASK_CLASSIFICATION, int(n_classes)
        criterion = CLASSIFICATION_CRITERIA[settings.criterion]
        y_cls = np.ascontiguousarray(y, dtype=np.int32)
        y_val = np.zeros(1, dtype=np.float64)
    max_features = n_features if settings.max_features is None else settings.max_features
    coded = code_features(X_enc, n_categories, settings.splitter, settings.max_bins, width)
    _check_memory(coded, width, n_samples, settings)
    in_block = (coded.kind != _layout.KIND_PRESORTED) & (coded.n_codes <= 256)
    block_bytes = 8 * int(coded.n_codes[in_block].sum()) * (width + 1)
    max_block_rows = max(0, HISTOGRAM_MEMORY // max(block_bytes, 1))
    ni, nf, nv, map_pool = _grow.grow_tree(
        coded.codes, coded.codes_t, coded.n_codes, coded.kind, coded.lo_values, coded.hi_values,
        coded.value_offset, y_cls, y_val, np.ascontiguousarray(sample_weight, dtype=np.float64),
        task, width, criterion, GROWTH_POLICIES[settings.growth],
        -1 if settings.max_depth is None else int(settings.max_depth),
        int(settings.min_samples_split), int(settings.min_samples_leaf),
        float(settings.min_impurity_decrease),
        -1 if settings.max_leaf_nodes is None else int(settings.max_leaf_nodes),
        int(max_features), settings.categorical_split == "multiway", int(settings.seed),
        int(max_block_rows), coded.missing_code,
    )
    return _to_tree(ni, nf, nv, map_pool, n_categories, regression, coded.missing_code)


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


def _to_tree(ni, nf, nv, map_pool, n_categories, regression: bool, missing_code) -> Tree:
    first_child = ni[:, _layout.I_FIRST_CHILD].copy()
    internal = first_child >= 0
    # Keep only the category maps of tests that were applied, pooled in node order.
    old_offsets = ni[:, _layout.I_CATEGORY_OFFSET]
    feature = np.where(internal, ni[:, _layout.I_FEATURE], -1)
    category_offset = np.full(first_child.shape[0], -1, dtype=np.int64)
    # numeric tests: the child of the missing rows (route_binary); categorical ones: the slot
    # of the missing code in the growth map (after the levels') when the feature had missing
    # values, else the default rule (Tree.missing_child)
    missing_child = np.where(internal, ni[:, _layout.I_MISSING], -1)
    categorical_missing = []
    pieces, pos = [], 0
    for node in np.flatnonzero(internal & (old_offsets >= 0)):
        width = int(n_categories[feature[node]])
        pieces.append(map_pool[old_offsets[node] : old_offsets[node] + width])
        category_offset[node] = pos
        pos += width
        if missing_code[feature[node]] >= 0:
            categorical_missing.append((node, map_pool[old_offsets[node] + width]))
    category_child = np.concatenate(pieces) if pieces else np.empty(0, dtype=np.int64)
    if regression:
        weight = nv[:, 0]
        mean = np.divide(nv[:, 1], weight, out=np.zeros_like(weight), where=weight > 0)
        value = mean.reshape(-1, 1)
    else:
        value = nv.copy()
    tree = Tree(
        first_child=first_child,
        n_children=np.where(internal, ni[:, _layout.I_N_CHILDREN], 0).astype(np.int64),
        feature=feature.astype(np.int64),
        threshold=np.where(internal & (category_offset < 0), nf[:, _layout.F_THRESHOLD], np.nan),
        category_offset=category_offset,
        category_child=category_child.astype(np.int64),
        value=value,
        # 1 - sum p^2 and friends can round to -1e-16 on a pure node: an impurity is >= 0
        impurity=np.maximum(nf[:, _layout.F_IMPURITY], 0.0),
        n_node_samples=ni[:, _layout.I_N_SAMPLES].copy(),
        weighted_n_node_samples=nf[:, _layout.F_WEIGHT].copy(),
        n_categories=np.asarray(n_categories, dtype=np.int64).copy(),
        task="regression" if regression else "classification",
    )
    default = tree.missing_child  # the rule for nodes without missing rows
    missing_child = np.where(internal & (category_offset < 0), missing_child, default)
    for node, slot in categorical_missing:
        missing_child[node] = slot
    tree.missing_child = missing_child.astype(np.int64)
    return tree
