"""VC dimension of binary tree structures: exact for stumps, upper and lower bounds otherwise.

* :func:`stump_vcdim` — Leboeuf et al. (2020) Corollary 8, exact for real-valued features.
* :func:`vcdim_upper_bound` — their Algorithm 2 (appendix D) on top of Theorem 9.
* :func:`vcdim_lower_bound` — Yıldız (2015) Figures 4 and 5 (Theorems 1, 4, 5, 6), with the exact
  stump value as the base case for real-valued features (Leboeuf et al., Figure 3).
* Yıldız's closed forms for stumps, degenerate (path) trees and full trees (Theorems 1–3).

Exhaustive checks (:func:`exact_vcdim`, Theorem 7's permutation matrices) live in
:mod:`treebound.theory.shattering`.
"""

from __future__ import annotations

import math

from treebound._validation import check_integer as _check_int
from treebound.theory._costs import check_big_integer, check_vcdim_search
from treebound.theory.partitioning import (
    PartitioningCache,
    _tight_exact_values,
    _tight_log_values,
    ensure_log_tables,
)
from treebound.theory.structures import TreeStructure

__all__ = [
    "stump_vcdim",
    "vcdim_lower_bound",
    "vcdim_upper_bound",
    "yildiz_full_tree_lower_bound",
    "yildiz_path_tree_lower_bound",
    "yildiz_stump_vcdim",
]

FEATURE_TYPES = ("real", "binary")


def stump_vcdim(n_features: int) -> int:
    """Exact VC dimension of decision stumps on ``ell`` real-valued features.

    Corollary 8 of Leboeuf et al. (2020): the largest ``d`` with ``2 ell >= C(d, floor(d/2))``
    (from the equality case of Theorem 7).

    Parameters
    ----------
    n_features : int
        ``ell >= 1`` real-valued features.

    Returns
    -------
    int
        The VC dimension.

    Examples
    --------
    >>> [stump_vcdim(ell) for ell in (1, 2, 3, 4, 10)]
    [2, 3, 4, 4, 6]
    """
    ell = _check_int(n_features, "n_features", 1)
    d = 1
    while math.comb(d + 1, (d + 1) // 2) <= 2 * ell:
        d += 1
    return d


def vcdim_upper_bound(structure: TreeStructure, *, n_features: int, cache=None) -> int:
    """Upper bound on the VC dimension of a tree structure on real-valued features.

    Algorithm 2 (appendix D) of Leboeuf et al. (2020) on top of Theorem 9: a leaf has VC
    dimension 1; otherwise start at ``m = L_T + 1`` and increase ``m`` while the Theorem 9 bound on
    ``pi_T^2(m)`` reaches ``2^(m-1) - 1 = S(m, 2)`` (Eq. 5); return the last such ``m - 1``. The
    comparison is made on the unclipped bound in log space; when it falls within ``1e-9``
    (relative) of ``S(m, 2)`` it is redone in exact integers, so the answer is exact.

    Parameters
    ----------
    structure : TreeStructure
        The tree shape.
    n_features : int
        ``ell >= 1`` real-valued features.
    cache : PartitioningCache, optional
        Memo tables to reuse (share one across shapes with common subtrees); a fresh one is used
        when omitted.

    Returns
    -------
    int
        The upper bound (exact for stumps: :func:`stump_vcdim`).

    Examples
    --------
    >>> vcdim_upper_bound(TreeStructure.stump(), n_features=10)
    6
    >>> vcdim_upper_bound(TreeStructure.parse("((L,L),L)"), n_features=10)
    16
    """
    if not isinstance(structure, TreeStructure):
        raise TypeError(f"structure must be a TreeStructure, got {type(structure).__name__}")
    ell = _check_int(n_features, "n_features", 1)
    if cache is None:
        cache = PartitioningCache()
    structure = structure.canonical()
    if structure.is_leaf:
        return 1
    deadline = check_vcdim_search(
        structure, vcdim_lower_bound(structure, n_features=ell), ell,
        f"vcdim_upper_bound ({structure.n_leaves} leaves)")
    try:
        return _first_unshattered(structure, ell, cache, max(4 * structure.n_leaves, 64),
                                  deadline) - 1
    finally:
        cache.trim()


def _first_unshattered(structure, ell, cache, horizon, deadline):
    """Smallest ``m > L_T`` at which the Theorem 9 bound is below ``S(m, 2)`` (Algorithm 2)."""
    m = structure.n_leaves + 1
    for child in (structure.left, structure.right):
        ensure_log_tables(child, 2, horizon, ell, cache)
    while True:
        deadline.check()
        if m > horizon:
            horizon *= 2
            for child in (structure.left, structure.right):
                ensure_log_tables(child, 2, horizon, ell, cache)
        log_bound = _tight_log_values(structure, 2, m, ell, cache, clip=False)[2]
        log_target = math.log(2.0 ** (m - 1) - 1) if m < 1000 else (m - 1) * math.log(2.0)
        gap = log_bound - log_target
        if abs(gap) <= 1e-9 * max(1.0, abs(log_target)):
            shattered = _tight_exact_values(structure, 2, m, ell, cache)[2] >= 2 ** (m - 1) - 1
        else:
            shattered = gap > 0
        if not shattered:
            return m
        m += 1


def _binary_base(remaining_arities) -> int:
    # Yıldız Theorem 5 (Theorem 1 when every arity is 2).
    total = sum(2 ** (a - 1) - 1 for a in remaining_arities)
    return (total + 1).bit_length() - 1 + 1


def vcdim_lower_bound(structure: TreeStructure, *, n_features: int, feature_type: str = "real",
                      arities=None) -> int:
    """Lower bound on the VC dimension of a tree structure (Yıldız 2015, Figures 4 and 5).

    ``LB(leaf) = 1``; ``LB(stump) =`` the stump's VC dimension; otherwise
    ``LB(T) = LB(T_l) + LB(T_r)`` (Theorems 4 and 6 of Yıldız 2015).

    Parameters
    ----------
    structure : TreeStructure
        The tree shape.
    n_features : int
        Number of features ``d`` (``ell``), ``>= 1``.
    feature_type : {"real", "binary"}, default="real"
        ``"real"``: the stump base is the exact :func:`stump_vcdim` (Leboeuf et al., Figure 3),
        and children keep all ``ell`` features: with real values the root's test can reuse any
        feature, since a strictly increasing shift of one side's values on that feature leaves
        the subtrees' shattering intact — this is what the paper's reference code (and
        Figure 3) computes. ``"binary"``: discrete features; the stump base is Theorem 1
        (``floor(log2(d+1)) + 1``) or Theorem 5 with ``arities``, and each level consumes one
        feature (``LB(T_l, d-1) + LB(T_r, d-1)``); with no feature left a subtree counts 1.
    arities : sequence of int, optional
        Number of values of each discrete feature (``feature_type="binary"`` only; default all
        2). The root's test takes the feature with the fewest values, the children keep the rest.

    Returns
    -------
    int
        The lower bound (at least 1).

    Examples
    --------
    >>> t = TreeStructure.parse("((L,L),L)")
    >>> vcdim_lower_bound(t, n_features=10)
    7
    >>> vcdim_lower_bound(t, n_features=10, feature_type="binary")
    5
    """
    if not isinstance(structure, TreeStructure):
        raise TypeError(f"structure must be a TreeStructure, got {type(structure).__name__}")
    ell = _check_int(n_features, "n_features", 1)
    if feature_type not in FEATURE_TYPES:
        raise ValueError(f"unknown feature_type {feature_type!r}: expected one of {FEATURE_TYPES}")
    if feature_type == "real":
        if arities is not None:
            raise ValueError("arities only apply to feature_type='binary' (discrete features)")
        base = stump_vcdim(ell)
        values: dict = {}
        for t in structure.subtrees():
            if t.is_leaf:
                values[t] = 1
            elif t.is_stump:
                values[t] = base
            else:
                values[t] = values[t.left] + values[t.right]
        return values[structure]
    if arities is None:
        def stump_base(used):  # Theorem 1 on the ell - used two-valued features left
            return yildiz_stump_vcdim(ell - used)
    else:
        arities = sorted(_check_int(a, "arity", 2) for a in arities)
        if len(arities) != ell:
            raise ValueError(f"arities has {len(arities)} entries but n_features is {ell}")

        def stump_base(used):
            return _binary_base(arities[used:])
    # State (subtree, number of features already used above it); iterative post-order.
    memo: dict = {}
    stack = [(structure, 0, False)]
    while stack:
        t, used, expanded = stack.pop()
        key = (t, used)
        if key in memo:
            continue
        if t.is_leaf:
            memo[key] = 1
        elif t.is_stump:
            memo[key] = stump_base(used)
        elif used >= ell:
            memo[key] = 1
        elif not expanded:
            stack.append((t, used, True))
            stack.append((t.right, used + 1, False))
            stack.append((t.left, used + 1, False))
        else:
            memo[key] = memo[(t.left, used + 1)] + memo[(t.right, used + 1)]
    return memo[(structure, 0)]


def yildiz_stump_vcdim(n_features: int) -> int:
    """VC dimension of a stump on ``d`` binary features (Yıldız 2015, Theorem 1).

    ``floor(log2(d + 1)) + 1``.

    Parameters
    ----------
    n_features : int
        ``d >= 0`` binary features.

    Returns
    -------
    int
        The VC dimension.

    Examples
    --------
    >>> [yildiz_stump_vcdim(d) for d in (1, 2, 3, 7)]
    [2, 2, 3, 4]
    """
    d = _check_int(n_features, "n_features", 0)
    return (d + 1).bit_length() - 1 + 1


def yildiz_path_tree_lower_bound(n_internal: int, *, n_features: int) -> int:
    """Lower bound for a degenerate ("path") tree on binary features (Yıldız 2015, Theorem 2).

    A degenerate tree with ``N`` internal nodes (each with one leaf child,
    :meth:`TreeStructure.path`) on ``d`` binary features has VC dimension at least
    ``floor(log2(d - N + 2)) + N`` (needs ``d >= N - 1``).

    Parameters
    ----------
    n_internal : int
        ``N >= 1`` internal nodes.
    n_features : int
        ``d >= N - 1`` binary features.

    Returns
    -------
    int
        The lower bound.

    Examples
    --------
    >>> yildiz_path_tree_lower_bound(3, n_features=7)  # floor(log2(6)) + 3
    5
    """
    N = _check_int(n_internal, "n_internal", 1)
    d = _check_int(n_features, "n_features", 0)
    if d - N + 2 < 1:
        raise ValueError(f"Theorem 2 needs n_features >= n_internal - 1, got d={d}, N={N}")
    return (d - N + 2).bit_length() - 1 + N


def yildiz_full_tree_lower_bound(height: int, *, n_features: int) -> int:
    """Lower bound for a full tree on binary features (Yıldız 2015, Theorem 3).

    A full tree of height ``h`` (:meth:`TreeStructure.full`) on ``d`` binary features has VC
    dimension at least ``2^(h-1) (floor(log2(d - h + 2)) + 1)`` (needs ``d >= h - 1``).

    Parameters
    ----------
    height : int
        ``h >= 1``, the number of internal levels.
    n_features : int
        ``d >= h - 1`` binary features.

    Returns
    -------
    int
        The lower bound.

    Examples
    --------
    >>> yildiz_full_tree_lower_bound(2, n_features=5)  # 2 * (floor(log2(5)) + 1)
    6
    """
    h = _check_int(height, "height", 1)
    d = _check_int(n_features, "n_features", 0)
    if d - h + 2 < 1:
        raise ValueError(f"Theorem 3 needs n_features >= height - 1, got d={d}, h={h}")
    check_big_integer(h, 1, f"yildiz_full_tree_lower_bound (height {h})")
    return 2 ** (h - 1) * ((d - h + 2).bit_length() - 1 + 1)
