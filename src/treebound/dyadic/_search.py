"""Functional core of dyadic decision trees: grid data + settings -> optimal DDT (node arrays).

:func:`fit_dyadic_tree` returns the minimiser of Eq. (1), ``R̂_n(T) + Φ_n(T)`` over ``T_M``
(free DDTs, or cyclic DDTs), for either penalty of Scott & Nowak (2006, section III):

* ``spatially_adaptive`` (Eq. (9)) is additive over leaves: one call of the free-DDT search
  (:mod:`treebound._kernels.dyadic_free`) or of the cyclic grow-and-prune
  (:mod:`treebound._kernels.dyadic_cyclic`) solves it exactly;
* ``square_root`` (Proposition 1) is a concave function of the number of leaves, not a sum over
  leaves: :mod:`treebound.dyadic._square_root` finds its exact minimiser from a few additive
  problems ``errors/n + λ k`` (each one search).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from treebound._kernels.dyadic import (
    PENALTY_PER_LEAF,
    PENALTY_SPATIALLY_ADAPTIVE,
    STATUS_BUDGET_EXCEEDED,
)
from treebound._kernels.dyadic_cyclic import solve_cyclic
from treebound._kernels.dyadic_free import extract_free, solve_free
from treebound.dyadic._penalty import (
    depth_constants,
    spatially_adaptive_penalty,
    square_root_penalty,
)
from treebound.dyadic._scaling import MAX_RESOLUTION
from treebound.dyadic._square_root import minimise_square_root

__all__ = [
    "PENALTIES",
    "VARIANTS",
    "CellBudgetExceeded",
    "DyadicSettings",
    "DyadicTreeArrays",
    "auto_resolution",
    "count_nonempty_cells_bound",
    "default_resolution",
    "fit_dyadic_tree",
    "theorem6_resolution",
    "tree_objective",
]

PENALTIES = ("spatially_adaptive", "square_root")
VARIANTS = ("free", "cyclic")


class CellBudgetExceeded(ValueError):
    """The search would store more cells than the configured budget allows (a ``ValueError``).

    The message names the budget, an estimate of the cells the full search would visit, and
    the ways out (a coarser ``max_resolution``, fewer features, ``variant="cyclic"`` or a larger
    ``max_cells``).

    Examples
    --------
    >>> import numpy as np
    >>> from treebound import DyadicTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.uniform(size=(300, 3)), rng.integers(0, 2, 300)
    >>> DyadicTreeClassifier(max_resolution=4, penalty_scale=0.0, max_cells=10).fit(X, y)
    Traceback (most recent call last):
    ...
    treebound.dyadic._search.CellBudgetExceeded: dyadic tree search stopped: free DDT ...
    """


@dataclass(frozen=True)
class DyadicSettings:
    """Everything that decides the fitted dyadic tree, resolved to plain values.

    Parameters
    ----------
    resolution : int
        ``L``: no coordinate is split more than ``L`` times on a path (``M = 2**L``).
    variant : {"free", "cyclic"}, default="free"
        Free DDTs split any coordinate; cyclic DDTs split coordinate ``j mod d`` at depth ``j``
        (Scott & Nowak 2006, section VI).
    penalty : {"spatially_adaptive", "square_root"}, default="spatially_adaptive"
        Eq. (9) or Proposition 1.
    delta : float, default=0.01
        Confidence parameter of the penalty.
    penalty_scale : float, default=1.0
        Multiplies the penalty (1: the theory's constant).
    max_cells : int, default=2_000_000
        Budget of one search (:class:`CellBudgetExceeded` beyond it).

    Examples
    --------
    >>> settings = DyadicSettings(resolution=3, delta=0.001)
    >>> settings.variant, settings.penalty, settings.penalty_scale, settings.max_cells
    ('free', 'spatially_adaptive', 1.0, 2000000)
    """

    resolution: int
    variant: str = "free"
    penalty: str = "spatially_adaptive"
    delta: float = 0.01
    penalty_scale: float = 1.0
    max_cells: int = 2_000_000


@dataclass
class DyadicTreeArrays:
    """A fitted dyadic tree as node arrays in breadth-first order (children contiguous).

    :func:`fit_dyadic_tree` returns it; :func:`build_tree` turns it into a
    :class:`~treebound.tree.Tree` with thresholds in original units.

    Parameters
    ----------
    first_child : ndarray of int, shape (n_nodes,)
        First child id, ``-1`` for a leaf (children ``first_child, first_child + 1``).
    feature : ndarray of int, shape (n_nodes,)
        Coordinate split at each internal node, ``-1`` for a leaf.
    boundary : ndarray of int, shape (n_nodes,)
        Grid index of the midpoint split at internal node ``i`` (its lower child holds grid
        indices ``< boundary``).
    counts : ndarray of int, shape (n_nodes, n_classes)
        Training class counts per node.
    depth : ndarray of int, shape (n_nodes,)
        Splits above each node.
    objective : float
        ``R_n(T) + Phi_n(T)`` of Eq. (1).
    empirical_risk : float
        ``R_n(T)``, the training error rate.
    penalty : float
        ``Phi_n(T)`` (times the penalty scale).
    n_cells_evaluated : int
        Cells the free search stored (summed over searches), or nodes of the cyclic ``T_INIT``.
    n_searches : int
        Searches run (one for the spatially adaptive penalty; a few for the square-root one).

    Examples
    --------
    >>> import numpy as np
    >>> grid = np.array([[0, 0], [1, 3], [2, 1], [3, 2]] * 10)  # L = 2: indices 0..3
    >>> y = (grid[:, 0] >= 2).astype(int)  # label = upper half of coordinate 0
    >>> settings = DyadicSettings(resolution=2, penalty_scale=0.5)
    >>> fit = fit_dyadic_tree(grid, y, 2, np.ones(2, bool), settings)
    >>> fit.first_child.tolist(), fit.counts.tolist(), fit.n_leaves
    ([1, -1, -1], [[20, 20], [20, 0], [0, 20]], 2)
    """

    first_child: np.ndarray
    feature: np.ndarray
    boundary: np.ndarray
    counts: np.ndarray
    depth: np.ndarray
    objective: float
    empirical_risk: float
    penalty: float
    n_cells_evaluated: int
    n_searches: int

    @property
    def is_leaf(self) -> np.ndarray:
        return self.first_child < 0

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.first_child < 0))


def default_resolution(n_samples: int) -> int:
    """``L = floor(log2(n / ln n))``, at least 1: ``M = 2**L`` of order ``n / log n``.

    The resolution at which the penalized dyadic tree adapts at once to the noise level, the
    intrinsic dimension of the data, irrelevant features and boundary smoothness (Scott & Nowak
    2006, Theorems 7 and 8, and section VII); ``max_resolution=None`` of the estimator.

    Parameters
    ----------
    n_samples : int
        ``n``, the number of training examples.

    Returns
    -------
    int

    Examples
    --------
    >>> default_resolution(19020), default_resolution(1000)
    (10, 7)
    """
    if n_samples < 3:
        return 1
    return max(1, min(MAX_RESOLUTION, math.floor(math.log2(n_samples / math.log(n_samples)))))


#: Most splits on a root-to-leaf path of an ``"auto"``-resolution DDT (``L d <= 20``).
AUTO_MAX_DEPTH = 20


def auto_resolution(n_samples: int, n_features: int) -> int:
    """``L = ceil(2 log2(n / ln n) / d)``, capped: the default ``max_resolution="auto"``.

    At least 1, at most :func:`default_resolution` and at most ``20 // d``.
    ``M`` of order ``(n / log n)^{2/d}``, between Theorem 6's ``(n / log n)^{1/d}`` and the
    ``n / log n`` of Theorems 7-8 (Scott & Nowak 2006): in two dimensions the same as the
    latter; in more, coarse enough that the exact search at the small penalty scales chosen by
    cross-validation stays within seconds (with ``L = floor(log2(n / ln n))`` a fit takes over
    30 s at d = 5 and n = 7,500). The cap of 20 splits per path (``L d <= 20``) keeps d = 5 at
    ``L = 4`` up to n = 10,000. Measured on tuning data in
    ``benchmarks/results/defaults_tuning_dyadic.md``.

    Parameters
    ----------
    n_samples : int
        ``n``, the number of training examples.
    n_features : int
        ``d``, the dimension.

    Returns
    -------
    int

    Examples
    --------
    >>> auto_resolution(2000, 2), auto_resolution(10000, 5), auto_resolution(150, 4)
    (8, 4, 3)
    """
    if n_samples < 3:
        return 1
    coarse = math.ceil(2.0 * math.log2(n_samples / math.log(n_samples)) / n_features)
    return max(1, min(default_resolution(n_samples), coarse, AUTO_MAX_DEPTH // n_features))


def theorem6_resolution(n_samples: int, n_features: int) -> int:
    """``L = ceil(log2(n / ln n) / d)``, at least 1: ``M`` of order ``(n / log n)^{1/d}``.

    The resolution of Scott & Nowak (2006), Theorem 6 (adaptivity to the noise level in full
    dimension), rounded up to a dyadic integer.

    Parameters
    ----------
    n_samples : int
        ``n``, the number of training examples.
    n_features : int
        ``d``, the dimension.

    Returns
    -------
    int

    Examples
    --------
    >>> theorem6_resolution(10000, 2)  # ceil(log2(10000 / ln 10000) / 2)
    6
    """
    if n_samples < 3:
        return 1
    return max(1, math.ceil(math.log2(n_samples / math.log(n_samples)) / n_features))


def count_nonempty_cells_bound(grid: np.ndarray, active: np.ndarray, resolution: int) -> float:
    """Upper bound on the non-empty cells of ``A_M`` (the cells the plain dynamic program visits).

    For each vector of per-coordinate levels, the non-empty cells number at most ``n`` and at most
    the product over coordinates of the occupied intervals at that level. Summed over all level
    vectors of the ``active`` coordinates by a small dynamic program over capped products; the
    estimate :class:`CellBudgetExceeded` reports.

    Parameters
    ----------
    grid : ndarray of int, shape (n_samples, n_features)
        Grid indices (:meth:`DyadicScaling.grid`).
    active : ndarray of bool, shape (n_features,)
        Coordinates the search may split.
    resolution : int
        ``L``.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> grid = np.array([[0, 0], [1, 3], [2, 1], [3, 2]] * 10)
    >>> count_nonempty_cells_bound(grid, np.ones(2, bool), 2)
    49.0
    """
    n = grid.shape[0]
    occupied = []
    for f in np.flatnonzero(active):
        column = grid[:, f].astype(np.int64)
        occupied.append([len(np.unique(column >> (resolution - level)))
                         for level in range(resolution + 1)])
    ways = np.zeros(n + 1)
    ways[1] = 1.0
    products = np.arange(n + 1)
    for per_level in occupied:
        new = np.zeros(n + 1)
        for count in per_level:
            np.add.at(new, np.minimum(products * count, n), ways)
        ways = new
    return float(ways @ products)


def tree_objective(counts: np.ndarray, depth: np.ndarray, is_leaf: np.ndarray, n_features: int,
                   settings: DyadicSettings) -> tuple[float, float, float]:
    """``(objective, empirical risk, penalty)`` of a dyadic tree from its nodes' counts and depths.

    The objective of Eq. (1) of Scott & Nowak (2006), ``R_n(T) + Phi_n(T)``, with the penalty of
    ``settings``.

    Parameters
    ----------
    counts : ndarray of int, shape (n_nodes, n_classes)
        Training class counts per node (row 0: the root, holding every example).
    depth : ndarray of int, shape (n_nodes,)
        Splits above each node.
    is_leaf : ndarray of bool, shape (n_nodes,)
        The leaves.
    n_features : int
        ``d``, the dimension.
    settings : DyadicSettings
        Penalty, ``delta`` and scale.

    Returns
    -------
    tuple of float
        ``(objective, empirical_risk, penalty)``.

    Examples
    --------
    >>> import numpy as np
    >>> grid = np.array([[0, 0], [1, 3], [2, 1], [3, 2]] * 10)  # L = 2: indices 0..3
    >>> y = (grid[:, 0] >= 2).astype(int)  # label = upper half of coordinate 0
    >>> settings = DyadicSettings(resolution=2, penalty_scale=0.5)
    >>> fit = fit_dyadic_tree(grid, y, 2, np.ones(2, bool), settings)
    >>> tree_objective(fit.counts, fit.depth, fit.is_leaf, 2, settings) == (
    ...     fit.objective, fit.empirical_risk, fit.penalty)
    True
    """
    n = int(counts[0].sum())
    leaf_counts = counts[is_leaf]
    risk = float((leaf_counts.sum(axis=1) - leaf_counts.max(axis=1)).sum()) / n
    if settings.penalty == "spatially_adaptive":
        penalty = spatially_adaptive_penalty(leaf_counts.sum(axis=1), depth[is_leaf], n,
                                             n_features, settings.delta, settings.penalty_scale)
    else:
        penalty = square_root_penalty(int(is_leaf.sum()), n, n_features, settings.delta,
                                      settings.penalty_scale)
    return risk + penalty, risk, penalty


def fit_dyadic_tree(grid: np.ndarray, y: np.ndarray, n_classes: int, active: np.ndarray,
                    settings: DyadicSettings) -> DyadicTreeArrays:
    """Minimise Eq. (1) of Scott & Nowak (2006) over free or cyclic dyadic trees.

    The exact minimiser of ``R_n(T) + Phi_n(T)`` over the trees of resolution
    ``settings.resolution``. Free DDTs split only the ``active`` (non-constant) coordinates,
    which loses nothing: a split along a constant coordinate leaves an empty cell plus a copy of
    the cell one level deeper, which costs more than the cell itself.

    Parameters
    ----------
    grid : ndarray of int, shape (n_samples, n_features)
        Grid indices (:meth:`DyadicScaling.grid`).
    y : ndarray of int, shape (n_samples,)
        Class indices ``0 .. n_classes - 1``.
    n_classes : int
        Number of classes.
    active : ndarray of bool, shape (n_features,)
        Coordinates the free search may split.
    settings : DyadicSettings
        Resolution, variant, penalty, ``delta``, scale and cell budget.

    Returns
    -------
    DyadicTreeArrays

    Raises
    ------
    CellBudgetExceeded
        When the search would store more than ``settings.max_cells`` cells.

    Examples
    --------
    >>> import numpy as np
    >>> grid = np.array([[0, 0], [1, 3], [2, 1], [3, 2]] * 10)  # L = 2: indices 0..3
    >>> y = (grid[:, 0] >= 2).astype(int)  # label = upper half of coordinate 0
    >>> settings = DyadicSettings(resolution=2, penalty_scale=0.5)
    >>> fit = fit_dyadic_tree(grid, y, 2, np.ones(2, bool), settings)
    >>> fit.n_leaves, int(fit.feature[0]), int(fit.boundary[0]), fit.empirical_risk
    (2, 0, 2, 0.0)
    """
    grid = np.asfortranarray(grid, dtype=np.int32)
    y = np.ascontiguousarray(y, dtype=np.int32)
    n_samples, n_features = grid.shape
    active = np.ascontiguousarray(active, dtype=np.bool_)
    pen_a, pen_b = depth_constants(settings.resolution * n_features, n_samples, n_features,
                                   settings.delta, settings.penalty_scale)
    problem = _Problem(grid, y, n_classes, active, settings, pen_a, pen_b)
    if settings.penalty == "spatially_adaptive":
        nodes = problem.solve(PENALTY_SPATIALLY_ADAPTIVE, 0.0)
    else:
        class_counts = np.bincount(y, minlength=n_classes)
        nodes = minimise_square_root(
            lambda per_leaf: problem.solve(PENALTY_PER_LEAF, per_leaf), n_samples, n_features,
            settings.delta, settings.penalty_scale,
            root_errors=int(class_counts.sum() - class_counts.max()))
    objective, risk, penalty = tree_objective(nodes[3], nodes[4], nodes[0] < 0, n_features,
                                              settings)
    return DyadicTreeArrays(*nodes, objective=objective, empirical_risk=risk, penalty=penalty,
                            n_cells_evaluated=problem.n_cells_evaluated,
                            n_searches=problem.n_searches)


@dataclass
class _Problem:
    """One dataset and settings; :meth:`solve` runs one search for an additive penalty."""

    grid: np.ndarray
    y: np.ndarray
    n_classes: int
    active: np.ndarray
    settings: DyadicSettings
    pen_a: np.ndarray
    pen_b: np.ndarray
    n_cells_evaluated: int = 0
    n_searches: int = 0

    def solve(self, kind: int, per_leaf: float) -> tuple[np.ndarray, ...]:
        s = self.settings
        inv_n = 1.0 / self.grid.shape[0]
        # the kernels take the transposed grid: C-contiguous for any number of features, so one
        # compiled variant (a one-column Fortran array is also C-contiguous, numba types it C)
        args = (self.grid.T, self.y, self.n_classes, s.resolution)
        costs = (kind, self.pen_a, self.pen_b, float(per_leaf), inv_n)
        self.n_searches += 1
        if s.variant == "cyclic":
            status, _, *nodes, n_grown = solve_cyclic(*args, *costs, s.max_cells)
            self._check(status, n_grown, "T_INIT nodes")
            self.n_cells_evaluated += int(n_grown)
            return tuple(nodes)
        status, _, keys, _, splits, exact, n_cells = solve_free(*args, self.active, *costs,
                                                                s.max_cells)
        self._check(status, n_cells, "cells")
        self.n_cells_evaluated += int(n_cells)
        return extract_free(*args, keys, splits, exact, n_cells)

    def _check(self, status: int, count: int, what: str) -> None:
        if status != STATUS_BUDGET_EXCEEDED:
            return
        s = self.settings
        d = self.grid.shape[1]
        if s.variant == "cyclic":
            bound = f"T_INIT has at most about n d L = {self.grid.shape[0] * d * s.resolution:,}"
        else:
            estimate = count_nonempty_cells_bound(self.grid, self.active, s.resolution)
            bound = (f"the full dynamic program over A_M would visit up to {estimate:.3g} "
                     "non-empty cells")
        raise CellBudgetExceeded(
            f"dyadic tree search stopped: {s.variant} DDT with d={d}, L={s.resolution} needs "
            f"more than max_cells={s.max_cells:,} {what} ({bound}). Lower max_resolution, "
            "select fewer features, use variant='cyclic', or raise max_cells (each stored cell "
            "takes about 50 bytes)."
        )
