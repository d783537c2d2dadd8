"""Dyadic decision trees (Scott & Nowak 2006): exact penalized ERM over dyadic partitions.

``DyadicTreeClassifier`` is the estimator; the penalties of section III and the search behind
it are plain functions here too, for experiments and tests.
"""

from treebound.dyadic._classes import DyadicTreeClassifier, build_tree
from treebound.dyadic._penalty import (
    cell_code_length,
    default_delta,
    spatially_adaptive_penalty,
    square_root_penalty,
    tree_code_length,
)
from treebound.dyadic._scaling import DyadicScaling
from treebound.dyadic._search import (
    CellBudgetExceeded,
    DyadicSettings,
    DyadicTreeArrays,
    auto_resolution,
    count_nonempty_cells_bound,
    default_resolution,
    fit_dyadic_tree,
    theorem6_resolution,
    tree_objective,
)
from treebound.dyadic._selection import (
    DEFAULT_PENALTY_SCALES,
    ScaleSelection,
    row_order_free_folds,
    select_penalty_scale,
)

__all__ = [
    "DEFAULT_PENALTY_SCALES",
    "CellBudgetExceeded",
    "DyadicScaling",
    "DyadicSettings",
    "DyadicTreeArrays",
    "DyadicTreeClassifier",
    "ScaleSelection",
    "auto_resolution",
    "build_tree",
    "cell_code_length",
    "count_nonempty_cells_bound",
    "default_delta",
    "default_resolution",
    "row_order_free_folds",
    "select_penalty_scale",
    "fit_dyadic_tree",
    "spatially_adaptive_penalty",
    "square_root_penalty",
    "theorem6_resolution",
    "tree_code_length",
    "tree_objective",
]
