"""Theorem 9's bound of a tree from the bound of one of its prunings, without the tree's tables.

If ``T'`` is obtained from ``T`` by turning internal nodes into leaves (a pruning of its shape),
then for every ``c >= 1`` and ``m`` the values of Theorem 9 (Leboeuf et al. 2020, as computed
by :mod:`treebound.theory.partitioning`) satisfy

    ``pi_T^c(m) >= 2^-s pi_T'^c(m - d)``,  ``d = L_T - L_T'``,

with ``s`` the internal nodes of ``T'`` whose two subtrees have the same shape in ``T`` and not
in ``T'`` (there ``T`` halves its sum and ``T'`` does not). By induction on ``T'``: at a leaf
of ``T'`` both sides are ``1`` for ``c = 1``, ``0`` for ``c >= 2`` once ``m - d >= 2`` and
Stirling numbers below, which grow with ``m``; at an internal node the map ``k = k' + d_l``
(``d_l``, ``d_r`` the children's differences) sends the range ``L_l' <= k' <= m - d - L_r'`` of
``T'``'s sum onto ``T``'s range ``L_l <= k <= m - L_r``, every term of ``T'`` is at most the
matching term of ``T`` (the children by induction, the weight because
``min(2 ell, C(m, k))`` grows when ``m`` and ``k`` do), ``T`` has every pair ``(a, b)`` of
``T'`` and more, and the clip ``S(m, c)`` grows with ``m``; ``m - d <= L_T'`` exactly when
``m <= L_T`` (both values Stirling numbers then). The growth bound (Eq. 4) is a sum of these
values with positive weights (``T`` has at least ``T'``'s terms), so

    ``ln tau_T(M) >= ln tau_T'(M - d) - s ln 2``,

which certified selection reads from the tables the chosen candidate already computed.
"""

from __future__ import annotations

import math

import numpy as np

from treebound._kernels.block_bounds import block_lower_sums
from treebound.theory._tables import LOG2
from treebound.theory.combinatorics import log_falling_factorial, logsumexp
from treebound.theory.partitioning import log_growth_function_upper_bound
from treebound.theory.structures import TreeStructure

__all__ = ["lost_halvings", "pruned_log_growth_lower_bound", "block_log_growth_lower_bound"]


def lost_halvings(outer: TreeStructure, inner: TreeStructure) -> int | None:
    """``s`` of the module docstring when ``inner`` is a pruning of ``outer`` (children matched
    in their order), ``None`` when it is not."""
    lost = 0
    stack = [(outer, inner)]
    while stack:
        big, small = stack.pop()
        if small.is_leaf:
            continue
        if big.is_leaf:
            return None
        same_big = big.left.canonical() is big.right.canonical()
        same_small = small.left.canonical() is small.right.canonical()
        lost += int(same_big and not same_small)
        stack.append((big.left, small.left))
        stack.append((big.right, small.right))
    return lost


def pruned_log_growth_lower_bound(outer: TreeStructure, inner: TreeStructure, *,
                                  n_examples: int, n_features: int, n_classes: int,
                                  cache=None) -> float | None:
    """A number at most ``log_growth_function_upper_bound(outer, n_examples, ...)`` (tight
    variant), from ``inner``'s bound at ``n_examples - (L_outer - L_inner)`` points: with a
    ``cache`` holding ``inner``'s tables, one evaluation of its root (``O(m)``).

    Parameters
    ----------
    outer, inner : TreeStructure
        Two shapes, ``inner`` a pruning of ``outer`` (else ``None`` is returned).
    n_examples : int
        ``M``, the points ``outer``'s bound is taken at.
    n_features, n_classes : int
        As in :func:`~treebound.theory.log_growth_function_upper_bound`.
    cache : PartitioningCache, optional
        Tables of ``inner`` (computed when absent).

    Returns
    -------
    float or None
        The lower bound (exact values; the computed ones carry a relative error below
        ``1e-9``), or ``None`` when ``inner`` is not a pruning of ``outer``.

    Examples
    --------
    >>> from treebound.theory import TreeStructure, growth_function_upper_bound
    >>> big, small = TreeStructure.parse("((L,L),(L,L))"), TreeStructure.parse("((L,L),L)")
    >>> low = pruned_log_growth_lower_bound(big, small, n_examples=30, n_features=3, n_classes=2)
    >>> low <= math.log(growth_function_upper_bound(big, n_examples=30, n_features=3,
    ...                                             n_classes=2))
    True
    """
    lost = lost_halvings(outer, inner)
    if lost is None:
        return None
    points = n_examples - (outer.n_leaves - inner.n_leaves)
    if points <= 0:
        return 0.0
    value = log_growth_function_upper_bound(inner, n_examples=points, n_features=n_features,
                                            n_classes=n_classes, cache=cache)
    return max(value - lost * math.log(2.0), 0.0)



#: Blocks of ``k`` (grid points) of :func:`block_log_growth_lower_bound`: ``m / 64`` terms a
#: block. On the band of certified selection on yeast (5,545 points, 9 classes) its bound is
#: within 1.5 of the exact log growth bound 245.6, in about a tenth of the exact tables' time.
LOWER_BOUND_BLOCKS = 64


def block_log_growth_lower_bound(outer: TreeStructure, *, n_examples: int, n_features: int,
                                 n_classes: int, cache,
                                 n_blocks: int = LOWER_BOUND_BLOCKS) -> float | None:
    """A number at most ``log_growth_function_upper_bound(outer, n_examples, ...)`` (tight
    variant), from the tables ``cache`` holds and sums over blocks of points elsewhere.

    *Monotonicity.* For every shape ``T`` and ``c >= 1``, Theorem 9's value ``pi_T^c(m)`` (as
    computed by :mod:`treebound.theory.partitioning`, in exact arithmetic) is nondecreasing in
    ``m``. By induction over ``T``. A leaf: ``pi^1`` is ``0`` at ``m = 0``, then ``1``. A node
    with ``L`` leaves: ``pi^1`` is ``0`` at ``m = 0``, then ``1``; for ``m <= L`` the values are
    Stirling numbers, and ``S(m + 1, c) = c S(m, c) + S(m, c - 1) >= S(m, c)``; from ``m = L +
    1`` on they are ``min(S(m, c), 2^-[T_l = T_r] N_c(m))``, where ``N_c(m + 1) >= N_c(m)``:
    Theorem 9's range of ``k`` only grows, each weight ``min(2 ell, C(m, k))`` grows with
    ``m``, each ``pi_r^b(m - k)`` does by induction, and every term is non-negative. The step
    from ``m = L`` to ``L + 1``: the term ``k = L_l`` of ``N_c(L + 1)`` is at least
    ``sum_{a,b} coef(a, b, c) pi_l^a(L_l) pi_r^b(L_r) = sum coef(a, b, c) S(L_l, a) S(L_r, b)``
    (weight at least 1, the children by induction), which is ``S(L, c)``: multiplying ``x^L_l =
    sum_a S(L_l, a) (x)_a`` by ``x^L_r`` and merging ``(x)_a (x)_b = sum_c coef(a, b, c)
    (x)_c`` gives ``x^L``'s expansion. With ``T_l = T_r``, the term ``k = L_l + 1`` is at least
    ``S(L, c)`` as well, so the halved sum is still at least ``S(L, c) = pi^c(L)``.

    *The bound.* Hence over a block of consecutive ``k`` from ``s`` to ``e`` (within Theorem
    9's range for ``m``) every term is at least ``w pi_l^a(g_s) pi_r^b(g_e)`` with ``g_s`` the
    grid point at or below ``s`` (the grid: multiples of ``step``, the block's first point),
    ``g_e`` the one at or below ``m - e``, and ``w = min(2 ell, m)`` (``C(m, k) >= m`` for ``1 <=
    k <= m - 1``; ``2 ell`` itself from ``m = 2 ell`` on). Putting numbers at most the
    children's values at the grid points into that sum, then ``min(S(m, c), 2^-[T_l = T_r]
    .)``, gives a number at most the node's value at ``m``: the exact values of the subtrees
    whose tables ``cache`` holds (and Stirling numbers at ``m <= L``), and by induction this
    bound for the others, at the grid points. The growth bound (Eq. 4) is a sum of the root's
    values with positive weights. What a block loses is the growth of the two values over its
    width: a fraction of a nat a level at ``m / 64`` terms a block on the trees of the report.

    Parameters
    ----------
    outer : TreeStructure
        The shape to bound.
    n_examples, n_features, n_classes : int
        As in :func:`~treebound.theory.log_growth_function_upper_bound`.
    cache : PartitioningCache
        Tables of subtrees already computed (read only).
    n_blocks : int >= 1, default=LOWER_BOUND_BLOCKS
        Grid points below ``n_examples`` (blocks of ``ceil(n_examples / n_blocks)`` points).

    Returns
    -------
    float or None
        The lower bound (exact values; the computed ones carry a relative error below
        ``1e-9``), or ``None`` when ``n_examples`` is at most the leaves of ``outer`` (the
        value is then a closed form).

    Examples
    --------
    >>> from treebound.theory import PartitioningCache, TreeStructure
    >>> big = TreeStructure.parse("(((L,L),L),(L,L))")
    >>> low = block_log_growth_lower_bound(big, n_examples=60, n_features=3, n_classes=3,
    ...                                    cache=PartitioningCache())
    >>> low <= log_growth_function_upper_bound(big, n_examples=60, n_features=3, n_classes=3)
    True
    """
    M = int(n_examples)
    top = min(int(n_classes), outer.n_leaves, M)
    if M <= outer.n_leaves or top < 1:
        return None
    step = -(-M // max(int(n_blocks), 1))
    grid = np.arange(0, M, step)  # below M: the children's tables reach M - 1
    store = cache._store("tight_log", n_features)
    tails = cache._store("tight_tail", n_features)
    log_stirling = cache._log_stirling_upto(M, top)
    log_coef = cache._log_coef_upto(top)
    two_ell = 2 * n_features
    memo = {}

    def weights(points):
        return np.log(np.minimum(points, two_ell).astype(np.float64))

    def node(t, points, low_left, low_right, C):
        """Numbers at most ``log pi_t^c(p)``, ``p`` in ``points`` (all above ``L_t``)."""
        sums = block_lower_sums(low_left, low_right, t.left.n_leaves, t.right.n_leaves, step,
                                points, weights(points), log_coef, C)
        if t.left.canonical() is t.right.canonical():
            sums -= LOG2
        out = np.minimum(sums, log_stirling[: C + 1, points])
        out[0] = -np.inf
        out[1] = 0.0
        return out

    def low(t):
        """Numbers at most ``log pi_t^c`` at the grid points."""
        key = t.canonical()
        if key in memo:
            return memo[key]
        C = min(top, t.n_leaves)
        table = store.get(key)
        tail = tails.get(key)
        if table is not None and table.shape[1] > grid[-1]:
            out = np.full((C + 1, grid.shape[0]), -np.inf)
            rows = min(C + 1, table.shape[0])
            out[:rows] = table[:rows][:, grid]
        elif tail is not None and tail.low.shape[0] > 1:
            # the polynomial tails a certified tree stored (theory/_tails.py): exact values
            out = np.full((C + 1, grid.shape[0]), -np.inf)
            rows = min(C + 1, tail.low.shape[0])
            out[:rows] = tail.values_at(grid, log_stirling, rows)
        else:
            out = log_stirling[: C + 1, grid].copy()  # exact up to L (S(m, c) there)
            above = grid > t.n_leaves
            if t.is_leaf:
                out[:, above] = -np.inf
                out[1, above] = 0.0
            elif above.any():
                out[:, above] = node(t, grid[above], low(t.left), low(t.right), C)
        memo[key] = out
        return out

    values = node(outer, np.array([M], dtype=np.int64), low(outer.left), low(outer.right),
                  top)[:, 0]
    return logsumexp([log_falling_factorial(n_classes, a) + values[a]
                      for a in range(1, top + 1)])
