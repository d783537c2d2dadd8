"""What the certificates count about a tree: its tests and its shape.

A categorical feature with ``K`` levels known to the model is counted with ``K + 1`` levels:
the ``K`` known and "unseen". A level never seen in training is routed by a rule that depends
on the data (to the child that received the most training weight, ``Tree.unseen_child``), so
the hypothesis class must contain every way of routing it: the bounds hold for the deployed
tree on the whole input space, not only on the levels seen in training.

* :func:`log_test_counts` — for every internal node, ``ln W``: how many distinct tests that node
  could hold, with the other nodes fixed. A binary node: ``2`` per numeric feature (a
  threshold splits the sorted values; the side tells which child gets the low values) plus
  ``2^(K+1) - 2`` per categorical feature (the non-trivial subsets of its ``K + 1`` levels sent
  to the first child) — i.e. ``2 ell_eff`` of Leboeuf et al.'s Theorem 9 with a categorical
  feature counted as ``2^K - 1`` real ones. A multiway node with ``a`` children on a feature
  with ``K >= a`` known levels (treebound's ID3 tests: one child per level present at the
  node, in level order; the absent levels, and the unseen one, go to one of the children):
  ``C(K, a)`` choices of the present levels times ``a`` choices of the child the others join
  (also when ``a = K``: the unseen level still picks a child), summed over the features.
* :func:`log_shape_prior` — the prior weight of the tree's shape, fixed before the data is
  seen: Leboeuf et al.'s ``p_T = 6 / (pi^2 L^2) / WE(L)`` over binary shapes up to swapping
  children, or, for model families that can grow multiway nodes, a prefix code (every node in
  preorder: a leaf with probability 1/2, else one of the possible arities uniformly).
"""

from __future__ import annotations

import math

import numpy as np

from treebound.theory.bounds import log_structure_prior

__all__ = ["certified_levels", "log_shape_prior", "log_test_counts", "may_grow_multiway"]

#: Up to this many levels the multiway counts are exact integers; beyond, lgamma with a margin.
_EXACT_LEVELS = 1000
_LOG_MARGIN = 1e-9


def certified_levels(n_categories) -> np.ndarray:
    """The levels each feature is counted with: ``K + 1`` for a categorical feature with ``K``
    known levels (the known ones and "unseen"), ``0`` for a numeric one."""
    n_categories = np.asarray(n_categories, dtype=np.int64)
    return np.where(n_categories > 0, n_categories + 1, 0)


def may_grow_multiway(model, n_categories) -> bool:
    """Whether the model's family (its settings, not its data) can grow a node with more than
    two children: treebound with ``categorical_split="multiway"`` and a categorical feature of
    at least three levels."""
    if getattr(model, "categorical_split", "binary") != "multiway":
        return False
    return bool(np.any(np.asarray(n_categories) >= 3))


def log_test_counts(tree, n_categories) -> np.ndarray:
    """``ln W`` of every node (``0`` at leaves); see the module docstring.

    Raises ``ValueError`` when a node's test is none of the counted kinds (a category map that
    is trivial, or a multiway map not of the ID3 form: a tampered or foreign model).
    """
    n_categories = np.asarray(n_categories, dtype=np.int64)
    log_binary = _log_binary_count(n_categories)
    out = np.zeros(tree.n_nodes)
    multiway_cache: dict[int, float] = {}
    for i in np.flatnonzero(tree.first_child >= 0).tolist():
        arity = int(tree.n_children[i])
        offset = int(tree.category_offset[i])
        if offset >= 0:
            K = int(n_categories[tree.feature[i]])
            _check_category_map(tree.category_child[offset : offset + K], arity, i)
        if arity == 2:
            out[i] = log_binary
            continue
        if arity not in multiway_cache:
            multiway_cache[arity] = _log_multiway_count(n_categories, arity, i)
        out[i] = multiway_cache[arity]
    return out


def _log_binary_count(n_categories: np.ndarray) -> float:
    """``ln(2 n_numeric + sum over categorical features of (2^(K+1) - 2))``, in log space
    (a feature with thousands of levels, an identifier column, must not overflow)."""
    categorical = n_categories[n_categories > 0]
    n_numeric = int(np.count_nonzero(n_categories == 0))
    if categorical.size == 0 or int(categorical.max()) <= _EXACT_LEVELS:
        total = 2 * n_numeric + sum(2 ** (int(K) + 1) - 2 for K in categorical.tolist())
        if total == 0:
            raise ValueError("a tree with a binary test needs at least one feature")
        return math.log(total)
    terms = [math.log(2.0 * n_numeric)] if n_numeric else []
    # ln(2^(K+1) - 2) = ln 2 + K ln 2 + ln(1 - 2^-K), K >= 1
    terms += [math.log(2.0) + K * math.log(2.0) + math.log1p(-(2.0 ** -K))
              for K in categorical.tolist()]
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms)) + _LOG_MARGIN * abs(top)


def _log_multiway_count(n_categories: np.ndarray, arity: int, node: int) -> float:
    """``ln sum_{K >= a} C(K, a) a`` over the categorical features (module docstring)."""
    levels = n_categories[n_categories >= arity].tolist()
    if not levels:
        raise ValueError(f"node {node} has {arity} children but no categorical feature has "
                         f"that many levels")
    if max(levels) <= _EXACT_LEVELS:
        return math.log(sum(math.comb(int(K), arity) * arity for K in levels))
    terms = [math.lgamma(K + 1) - math.lgamma(arity + 1) - math.lgamma(K - arity + 1)
             + math.log(arity) for K in levels]
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms)) + _LOG_MARGIN * abs(top) + 1e-9


def _check_category_map(slots: np.ndarray, arity: int, node: int) -> None:
    used = np.unique(slots)
    if used.shape[0] != arity:
        raise ValueError(f"node {node}: its category map uses {used.shape[0]} of its {arity} "
                         "children (a trivial test)")
    if arity == 2:
        return
    # ID3 form: the children are the present levels in level order, absent levels share one.
    counts = np.bincount(slots, minlength=arity)
    shared = np.flatnonzero(counts > 1)
    if shared.shape[0] > 1:
        raise ValueError(f"node {node}: its multiway category map is not one child per level "
                         "with the absent levels in one child")
    if shared.shape[0] == 0:
        ok = bool(np.all(np.diff(slots) > 0))
    else:
        s = int(shared[0])
        level = {int(c): int(np.flatnonzero(slots == c)[0]) for c in range(arity) if c != s}
        below = level.get(s - 1, -1)
        above = level.get(s + 1, slots.shape[0])
        singles = [level[c] for c in sorted(level)]
        # the shared child's present level must sit between its neighbours' levels
        ok = bool(np.all(np.diff(singles) > 0)) and any(
            below < p < above for p in np.flatnonzero(slots == s).tolist())
    if not ok:
        raise ValueError(f"node {node}: its multiway category map is not one child per present "
                         "level in level order with the absent levels in one child")


def log_shape_prior(tree, n_categories, multiway: bool) -> float:
    """``ln`` prior weight of the tree's shape (module docstring)."""
    if not multiway:
        if not tree.is_binary:
            raise ValueError("a multiway tree from a family declared binary")
        return log_structure_prior(tree.n_leaves)
    n_categories = np.asarray(n_categories, dtype=np.int64)
    n_arities = max(int(n_categories.max(initial=2)), 2) - 1  # arities 2 .. K_max
    n_internal = int(np.count_nonzero(tree.first_child >= 0))
    return -tree.n_nodes * math.log(2.0) - n_internal * math.log(n_arities)
