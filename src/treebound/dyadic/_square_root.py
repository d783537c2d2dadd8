"""Exact minimisation of ``R̂_n(T) + g(k)`` for the square-root penalty of Proposition 1.

``g(k) = scale sqrt(([T] ln 2 + ln(1/δ)) / (2n))`` with ``[T] = 3k - 1 + (k - 1) log2 d`` is a
concave increasing function of the number of leaves ``k``, so the penalty is not a sum over
leaves and the cell-by-cell search cannot use it directly. It can solve the additive problems
``min_T errors(T) / n + λ k(T)``; each solution ``(k_λ, e_λ)`` certifies the *line*

    ``errors(T) / n >= e_λ / n + λ (k_λ - k(T))``   for every tree T,

and the solutions are the vertices of the lower convex hull of the points (leaves, fewest errors).
The search is a branch and bound over ranges of ``k``:

* a range is dropped when ``max(0, lines) + g(k)`` (concave on each piece of the lines' upper
  envelope, so its minimum is at a piece end) is no lower than the best objective found;
* between two hull vertices the slope of their chord finds the vertex in between, if any;
  points on or above a chord cost at least the cheaper end (``g`` lies above its chords);
* beyond the vertex with the most leaves, ``λ`` is halved until the range is dropped, and no
  tree with more than ``k_max`` leaves (``g(k) - g(1)`` above the single leaf's risk) can win.

Small ``λ`` problems are the expensive ones (little is provably a leaf); the bound keeps them few.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from treebound.dyadic._penalty import square_root_penalty

__all__ = ["largest_useful_leaf_count", "minimise_square_root"]

#: Objectives closer than this are ties (ties go to fewer leaves).
_TOLERANCE = 1e-12


def _leaves_and_errors(nodes) -> tuple[int, int]:
    leaf_counts = nodes[3][nodes[0] < 0]
    errors = int((leaf_counts.sum(axis=1) - leaf_counts.max(axis=1)).sum())
    return int(leaf_counts.shape[0]), errors


def largest_useful_leaf_count(n_samples: int, n_features: int, delta: float, scale: float,
                              root_errors: int) -> int:
    """``k_max``: beyond it ``g(k) - g(1)`` exceeds the risk of the single leaf.

    From ``g(k)^2 = scale^2 (A k + B) / (2n)`` with ``A = (3 + log2 d) ln 2`` and
    ``B = ln(1/δ) - (1 + log2 d) ln 2``; one more leaf than the formula gives, so float rounding
    cannot make it too small. ``2**60`` when the scale is too small to bound anything.
    """
    if scale <= 0:
        return 2**60
    log2_d = math.log2(n_features)
    slope_a = (3.0 + log2_d) * math.log(2.0)
    offset_b = math.log(1.0 / delta) - (1.0 + log2_d) * math.log(2.0)
    g1 = square_root_penalty(1, n_samples, n_features, delta, scale)
    ceiling = (g1 + root_errors / n_samples) / scale
    if ceiling >= 1e100:
        return 2**60
    k_bound = (2.0 * n_samples * ceiling**2 - offset_b) / slope_a
    return int(min(2**60, max(1, math.floor(k_bound) + 1)))


def minimise_square_root(solve: Callable[[float], tuple], n_samples: int, n_features: int,
                         delta: float, scale: float, root_errors: int) -> tuple:
    """Node arrays of a tree minimising ``errors / n + g(k)``; ``solve(λ)`` returns the node
    arrays of a minimiser of ``errors / n + λ k``."""
    def g(k):
        return square_root_penalty(k, n_samples, n_features, delta, scale)

    if scale == 0 or root_errors == 0:
        return solve(0.0 if root_errors else 2.0)
    k_max = largest_useful_leaf_count(n_samples, n_features, delta, scale, root_errors)
    # lines (intercept a, slope λ): errors(T)/n >= a - λ k(T); the root's holds for
    # λ = root_errors / n (no tree beats the single leaf there).
    root_slope = root_errors / n_samples
    lines = [(0.0, 0.0), (root_errors / n_samples + root_slope, root_slope)]
    best = {"cost": root_errors / n_samples + g(1), "k": 1, "nodes": None}

    def lower_bound(k_low: int, k_high: int) -> float:
        if k_low > k_high:
            return math.inf
        candidates = {k_low, k_high}
        for i, (a1, l1) in enumerate(lines):
            for a2, l2 in lines[i + 1:]:
                if l1 != l2:
                    x = (a1 - a2) / (l1 - l2)
                    if k_low < x < k_high:
                        candidates.update((math.floor(x), math.ceil(x)))
        return min(max(a - lam * k for a, lam in lines) + g(k) for k in candidates)

    def run(lam: float) -> tuple[int, int]:
        nodes = solve(lam)
        k, e = _leaves_and_errors(nodes)
        lines.append((e / n_samples + lam * k, lam))
        cost = e / n_samples + g(k)
        if cost < best["cost"] - _TOLERANCE or (
                cost <= best["cost"] + _TOLERANCE and k < best["k"]):
            best.update(cost=cost, k=k, nodes=nodes)
        return k, e

    # Beyond the vertex with the most leaves: halve λ until the range cannot win.
    vertices = [(1, root_errors)]
    lam = g(2) - g(1)
    while lower_bound(vertices[-1][0] + 1, k_max) < best["cost"] - _TOLERANCE:
        k, e = run(lam)
        if k > vertices[-1][0]:
            vertices.append((k, e))
        if lam == 0.0:
            break
        lam = lam / 2 if lam > 1e-15 else 0.0
    # Between consecutive vertices: chords, pruned by the lines.
    pending = list(zip(vertices[:-1], vertices[1:], strict=True))
    while pending:
        (k1, e1), (k2, e2) = pending.pop()
        if k2 <= k1 + 1 or lower_bound(k1 + 1, k2 - 1) >= best["cost"] - _TOLERANCE:
            continue
        lam = (e1 - e2) / (n_samples * (k2 - k1))
        k, e = run(lam)
        if e / n_samples + lam * k < e1 / n_samples + lam * k1 - _TOLERANCE:
            pending += [((k1, e1), (k, e)), ((k, e), (k2, e2))]
    if best["nodes"] is None:  # the single leaf: optimal once λ >= 1 > any empirical risk
        return solve(2.0)
    return best["nodes"]
