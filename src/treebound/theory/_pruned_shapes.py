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

from treebound.theory.partitioning import log_growth_function_upper_bound
from treebound.theory.structures import TreeStructure

__all__ = ["lost_halvings", "pruned_log_growth_lower_bound"]


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
