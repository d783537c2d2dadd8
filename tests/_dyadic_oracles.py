"""Brute-force oracles for dyadic decision trees: enumerate every DDT of T_M, score each one.

Written from SPEC section 6 independently of ``treebound.dyadic``: cells are tuples of
per-coordinate ``(level, index)`` pairs on ``[0, 1]^d``, membership is tested on the scaled
coordinates ``u`` directly (``u^s < midpoint`` is the lower half), and the penalties are
re-derived here. Only for tiny problems (d = 2 with L <= 2 has 22,899 free DDTs).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np


def _halves(cell, s):
    level, index = cell[s]
    lower = cell[:s] + ((level + 1, 2 * index),) + cell[s + 1:]
    upper = cell[:s] + ((level + 1, 2 * index + 1),) + cell[s + 1:]
    return lower, upper


def all_trees(n_features: int, resolution: int, cyclic: bool = False) -> list[tuple]:
    """Every DDT of T_M as a tuple of leaves ``(cell, depth)``.

    Free DDTs split any coordinate below level ``resolution``; cyclic DDTs split coordinate
    ``depth mod d`` at ``depth``. Empty cells may be split too: the enumeration ignores the data.
    """

    @cache
    def trees(cell, depth):
        found = [((cell, depth),)]
        coordinates = [depth % n_features] if cyclic else range(n_features)
        for s in coordinates:
            if cell[s][0] >= resolution:
                continue
            lower, upper = _halves(cell, s)
            for left in trees(lower, depth + 1):
                for right in trees(upper, depth + 1):
                    found.append(left + right)
        return found

    root = tuple((0, 0) for _ in range(n_features))
    return trees(root, 0)


def in_cell(u: np.ndarray, cell) -> np.ndarray:
    """Rows of ``u`` (scaled to [0, 1]) inside the cell; the cell's upper faces at 1 are closed."""
    inside = np.ones(u.shape[0], dtype=bool)
    for s, (level, index) in enumerate(cell):
        width = 1.0 / 2**level
        low, high = index * width, (index + 1) * width
        upper_ok = u[:, s] < high if high < 1.0 else u[:, s] <= 1.0
        inside &= (u[:, s] >= low) & upper_ok
    return inside


def leaf_penalty(m: int, depth: int, n: int, d: int, delta: float) -> float:
    """sqrt(2 p'_A ([A] ln 2 + ln(2/δ)) / n), p'_A = 4 max(m/n, ([A] ln 2 + ln(1/δ)) / n)."""
    code = 2 * depth + 1 + depth * math.log2(d)
    p_prime = 4.0 * max(m / n, (code * math.log(2) + math.log(1 / delta)) / n)
    return math.sqrt(2.0 * p_prime * (code * math.log(2) + math.log(2 / delta)) / n)


def sqrt_penalty(k: int, n: int, d: int, delta: float) -> float:
    """sqrt(([T] ln 2 + ln(1/δ)) / (2n)), [T] = 3k - 1 + (k - 1) log2 d."""
    code = 3 * k - 1 + (k - 1) * math.log2(d)
    return math.sqrt((code * math.log(2) + math.log(1 / delta)) / (2 * n))


def best_objective(u: np.ndarray, y: np.ndarray, resolution: int, *, penalty: str,
                   delta: float, scale: float, cyclic: bool = False) -> tuple[float, tuple]:
    """Minimum over all DDTs of empirical risk + scale * penalty, and one minimising tree."""
    n, d = u.shape
    n_classes = int(y.max()) + 1
    stats = {}

    def leaf_terms(leaf):
        # a leaf's errors and penalty, computed once: the trees share their leaves
        if leaf not in stats:
            cell, depth = leaf
            counts = np.bincount(y[in_cell(u, cell)], minlength=n_classes)
            m = int(counts.sum())
            stats[leaf] = (m - int(counts.max()), leaf_penalty(m, depth, n, d, delta))
        return stats[leaf]

    best, best_tree = math.inf, None
    for tree in all_trees(d, resolution, cyclic):
        errors = 0
        pen = 0.0
        for leaf in tree:
            e, leaf_pen = leaf_terms(leaf)
            errors += e
            if penalty == "spatially_adaptive":
                pen += leaf_pen
        if penalty == "square_root":
            pen = sqrt_penalty(len(tree), n, d, delta)
        value = errors / n + scale * pen
        if value < best:
            best, best_tree = value, tree
    return best, best_tree


def nonempty_cells(u: np.ndarray, resolution: int) -> int:
    """Number of cells of A_M holding at least one row of ``u``."""
    n, d = u.shape
    index = np.minimum((u * 2**resolution).astype(np.int64), 2**resolution - 1)
    total = 0
    for levels in np.ndindex(*([resolution + 1] * d)):
        codes = np.stack([index[:, s] >> (resolution - levels[s]) for s in range(d)], axis=1)
        total += len({tuple(row) for row in codes})
    return total
