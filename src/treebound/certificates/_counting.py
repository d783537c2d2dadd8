"""What the certificates count about a tree: its tests and its shape.

A categorical feature is counted over its **declared** levels — the levels it can take in the
population, fixed before the data is seen (a pandas ``CategoricalDtype``'s categories, two for a
boolean column, or ``categorical_levels``) — plus one value for "missing, or anything else":
``L = U + 1`` values for ``U`` declared levels. The hypothesis class is then fixed in advance,
as Theorem 5 and the compression theorem require: a tree's categorical test is a subset of
those ``L`` values, however it was learned. The deployed tree routes a level absent from the
training rows by a rule that depends on the data (to the child that received the most training
weight, ``Tree.unseen_child``); that routing is one of the subsets counted, so the bounds hold
for the deployed tree on every input. A feature whose levels were not declared has no fixed
class to count: the certificate is refused (:func:`undeclared_message`; the argument is in
``docs/certificates.md``).

A numeric feature is counted twice when the certified rows hold a missing value (NaN,
``missing=True``): once with the missing values read as ``-inf``, once as ``+inf``. A binary
test on it is a threshold test on one of the two, so the side a missing value takes at every
node (``Tree.missing_child``: at most one bit per node) and the test "value present / missing"
(threshold ``+inf``, missing values right) are in the hypothesis class. Rows without a missing
value count every feature once, as before: the certificate then speaks of a population whose
inputs have no missing value (one that had them in a fraction ``p`` of its rows would show none
among ``m`` i.i.d. rows with probability ``(1 - p)^m``).

The functions take ``n_levels``: per feature, ``L`` for a categorical one, ``0`` for a numeric
one (:func:`counted_levels`).

* :func:`log_test_counts` — for every internal node, ``ln W``: how many distinct tests that node
  could hold, with the other nodes fixed. A binary node: ``2`` per numeric feature (a
  threshold splits the sorted values; the side tells which child gets the low values) plus
  ``2^L - 2`` per categorical feature (the non-trivial subsets of its ``L`` values sent to
  the first child) — i.e. ``2 ell_eff`` of Leboeuf et al.'s Theorem 9 with a categorical
  feature counted as ``2^(L-1) - 1`` real ones. A multiway node with ``a`` children on a
  feature with ``L >= a`` values (treebound's ID3 tests: one child per value present at the
  node, in level order; the absent values go to one of the children): ``C(L, a)`` choices of
  the present values times ``a`` choices of the child the others join, summed over the
  features.
* :func:`log_shape_prior` — the prior weight of the tree's shape, fixed before the data is
  seen: Leboeuf et al.'s ``p_T = 6 / (pi^2 L^2) / WE(L)`` over binary shapes up to swapping
  children, or, for model families that can grow multiway nodes, a prefix code (every node in
  preorder: a leaf with probability 1/2, else one of the possible arities ``2 .. max L``
  uniformly).
"""

from __future__ import annotations

import math

import numpy as np

from treebound._flat._features import effective_n_features
from treebound.theory.bounds import log_structure_prior

__all__ = ["UNDECLARED", "counted_levels", "counted_n_features", "log_shape_prior",
           "log_test_counts", "may_grow_multiway", "seen_levels", "undeclared_message"]

#: ``n_levels`` entry of a categorical feature whose levels were not declared.
UNDECLARED = -1

#: Up to this many levels the multiway counts are exact integers; beyond, lgamma with a margin.
_EXACT_LEVELS = 1000
_LOG_MARGIN = 1e-9


def counted_levels(n_categories, declared_levels) -> np.ndarray:
    """``n_levels`` of the module docstring: ``U + 1`` for a categorical feature with ``U``
    declared levels, :data:`UNDECLARED` for one without, ``0`` for a numeric feature.

    ``n_categories``: the levels seen in training per feature (``0``: numeric);
    ``declared_levels``: the declared number per feature (``None``: undeclared or numeric).
    """
    out = np.zeros(len(n_categories), dtype=np.int64)
    for j, (seen, declared) in enumerate(zip(np.asarray(n_categories).tolist(), declared_levels,
                                             strict=True)):
        if seen > 0:
            out[j] = UNDECLARED if declared is None else int(declared) + 1
    return out


def seen_levels(n_categories) -> np.ndarray:
    """``K + 1`` for a categorical feature with ``K`` levels seen in training (the seen ones and
    "unseen"), ``0`` for a numeric one: what bound *pruning* counts (an objective to rank
    subtrees, not a promise; the certificate counts the declared levels)."""
    n_categories = np.asarray(n_categories, dtype=np.int64)
    return np.where(n_categories > 0, n_categories + 1, 0)


def undeclared_message(n_levels, feature_names=None) -> str | None:
    """Why no certificate can be computed (a categorical feature without declared levels), or
    ``None`` when every categorical feature has them."""
    missing = np.flatnonzero(np.asarray(n_levels) == UNDECLARED).tolist()
    if not missing:
        return None
    names = [repr(str(feature_names[j])) if feature_names is not None else f"column {j}"
             for j in missing]
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    first = names[0].strip("'")
    return (f"categorical feature{'s' if len(names) > 1 else ''} {shown} "
            f"{'have' if len(names) > 1 else 'has'} no declared levels, only the ones seen in "
            "training, and a certificate must count every level a feature can take: declare "
            "them before fitting (a pandas CategoricalDtype listing every level, or "
            f"categorical_levels={{'{first}': N}}; on the command line --levels {first}=N)")


def counted_n_features(n_levels, missing: bool = False) -> int:
    """``ell`` of Theorem 9 for the counted feature space: categorical features with their
    ``n_levels`` values, numeric ones counted twice with ``missing`` (module docstring)."""
    n_levels = np.asarray(n_levels, dtype=np.int64)
    extra = int(np.count_nonzero(n_levels == 0)) if missing else 0
    return effective_n_features(n_levels) + extra


def may_grow_multiway(model, n_levels) -> bool:
    """Whether the model's family (its settings, not its data) can grow a node with more than
    two children: treebound with ``categorical_split="multiway"`` and a categorical feature of
    at least three values."""
    if getattr(model, "categorical_split", "binary") != "multiway":
        return False
    return bool(np.any(np.abs(np.asarray(n_levels)) >= 3))


def log_test_counts(tree, n_levels, missing: bool = False) -> np.ndarray:
    """``ln W`` of every node (``0`` at leaves); see the module docstring (``missing``: the
    rows hold a missing value, every numeric feature counts twice).

    Raises ``ValueError`` when a node's test is none of the counted kinds (a category map that
    is trivial, or a multiway map not of the ID3 form: a tampered or foreign model), or when a
    categorical feature has no declared levels.
    """
    n_levels = _check_levels(n_levels)
    log_binary = _log_binary_count(n_levels, missing)
    out = np.zeros(tree.n_nodes)
    internal = tree.first_child >= 0
    # every binary numeric test counts the same: set at once; the nodes with a category map to
    # check or more than two children are walked in order (the first bad one is reported)
    out[internal] = log_binary
    multiway_cache: dict[int, float] = {}
    walked = internal & ((tree.category_offset >= 0) | (tree.n_children != 2))
    for i in np.flatnonzero(walked).tolist():
        arity = int(tree.n_children[i])
        offset = int(tree.category_offset[i])
        if offset >= 0:
            K = int(tree.n_categories[tree.feature[i]])  # the map's slots: the seen levels
            _check_category_map(tree.category_child[offset : offset + K], arity, i)
        if arity == 2:
            out[i] = log_binary
            continue
        if arity not in multiway_cache:
            multiway_cache[arity] = _log_multiway_count(n_levels, arity, i)
        out[i] = multiway_cache[arity]
    return out


def _check_levels(n_levels) -> np.ndarray:
    n_levels = np.asarray(n_levels, dtype=np.int64)
    if np.any(n_levels == UNDECLARED):
        raise ValueError(undeclared_message(n_levels))
    if np.any((n_levels != 0) & (n_levels < 2)):
        raise ValueError("a categorical feature is counted with at least 2 values")
    return n_levels


def _log_binary_count(n_levels: np.ndarray, missing: bool = False) -> float:
    """``ln(2 n_numeric + sum over categorical features of (2^L - 2))``, in log space
    (a feature with thousands of levels, an identifier column, must not overflow); the numeric
    features count twice with ``missing``."""
    categorical = n_levels[n_levels > 0]
    n_numeric = int(np.count_nonzero(n_levels == 0)) * (2 if missing else 1)
    if categorical.size == 0 or int(categorical.max()) <= _EXACT_LEVELS:
        total = 2 * n_numeric + sum(2 ** int(L) - 2 for L in categorical.tolist())
        if total == 0:
            raise ValueError("a tree with a binary test needs at least one feature")
        return math.log(total)
    terms = [math.log(2.0 * n_numeric)] if n_numeric else []
    # ln(2^L - 2) = ln 2 + (L - 1) ln 2 + ln(1 - 2^-(L-1)), L >= 2
    terms += [math.log(2.0) + (L - 1) * math.log(2.0) + math.log1p(-(2.0 ** -(L - 1)))
              for L in categorical.tolist()]
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms)) + _LOG_MARGIN * abs(top)


def _log_multiway_count(n_levels: np.ndarray, arity: int, node: int) -> float:
    """``ln sum_{L >= a} C(L, a) a`` over the categorical features (module docstring)."""
    levels = n_levels[n_levels >= arity].tolist()
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


def log_shape_prior(tree, n_levels, multiway: bool) -> float:
    """``ln`` prior weight of the tree's shape (module docstring)."""
    if not multiway:
        if not tree.is_binary:
            raise ValueError("a multiway tree from a family declared binary")
        return log_structure_prior(tree.n_leaves)
    n_levels = _check_levels(n_levels)
    n_arities = max(int(n_levels.max(initial=2)), 2) - 1  # arities 2 .. L_max
    n_internal = int(np.count_nonzero(tree.first_child >= 0))
    return -tree.n_nodes * math.log(2.0) - n_internal * math.log(n_arities)
