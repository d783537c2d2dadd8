"""Best test on one categorical feature of one node, from its per-category statistics.

Binary subset tests ("some categories left, the rest right"):

* two classes or regression: Breiman's ordering. Sorting the categories by their positive rate
  (or mean target) and cutting the sorted list is optimal for every concave impurity, so only
  ``q - 1`` cuts of the ``q`` present categories are examined;
* more classes: every bipartition when ``q <= MAX_EXHAUSTIVE_CATEGORIES`` (Gray-code order,
  O(classes) per subset); beyond that, one-vs-rest orderings: for each class the categories are
  sorted by that class's rate and every cut is examined, which contains Breiman's ordering of any
  class-vs-rest problem. This heuristic is documented in the user guide.

Multiway tests (ID3): one child per category present at the node.

Results are written into ``slot_map`` (child slot of every category code); categories absent from
the node go to the child holding the most training weight. Functions return
``(gain, n_children)`` with ``n_children == 0`` when no valid test exists.
"""

from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_JIT_OPTIONS, njit
from treebound._kernels.criteria import TASK_REGRESSION, stats_mass, stats_weight
from treebound._kernels.sorting import stable_argsort

MAX_EXHAUSTIVE_CATEGORIES = 10


@njit(**NO_NRT_JIT_OPTIONS)
def _present(hcount, coff, n_codes, present):
    q = 0
    for b in range(n_codes):
        if hcount[coff + b] > 0:
            present[q] = b
            q += 1
    return q


@njit(**NO_NRT_JIT_OPTIONS)
def _light_child(left, right, width, task, min_weight_leaf):
    """Whether a child of the statistics ``left`` / ``right`` weighs less than
    ``min_weight_leaf``."""
    return (stats_weight(left, 0, width, task) < min_weight_leaf
            or stats_weight(right, 0, width, task) < min_weight_leaf)


@njit(**NO_NRT_JIT_OPTIONS)
def _finish_binary_map(slot_map, n_codes, hist, hoff, hcount, coff, width, task, in_left):
    """Slot 0 for categories in ``in_left``; absent categories follow the heavier child."""
    w_left = 0.0
    w_right = 0.0
    for b in range(n_codes):
        if hcount[coff + b] == 0:
            continue
        wb = stats_weight(hist, hoff + b * width, width, task)
        if in_left[b]:
            w_left += wb
        else:
            w_right += wb
    default = 0 if w_left >= w_right else 1
    for b in range(n_codes):
        if hcount[coff + b] == 0:
            slot_map[b] = default
        else:
            slot_map[b] = 0 if in_left[b] else 1


@njit(**NO_NRT_JIT_OPTIONS)
def _scan_ordering(order, q, hist, hoff, hcount, coff, n_node, width, task, criterion, parent,
                   parent_off, parent_mass, min_samples_leaf, left, right, min_weight_leaf):
    """Best cut of categories taken in ``order[:q]``; returns (gain, number sent left)."""
    for k in range(width):
        left[k] = 0.0
        right[k] = parent[parent_off + k]
    best_gain = -np.inf
    best_cut = -1
    n_left = 0
    for j in range(q - 1):
        b = order[j]
        base = hoff + b * width
        for k in range(width):
            left[k] += hist[base + k]
            right[k] -= hist[base + k]
        n_left += hcount[coff + b]
        if n_node - n_left < min_samples_leaf:
            break
        if n_left < min_samples_leaf:
            continue
        if min_weight_leaf > 0.0 and _light_child(left, right, width, task, min_weight_leaf):
            continue
        gain = parent_mass - stats_mass(left, 0, width, task, criterion) - \
            stats_mass(right, 0, width, task, criterion)
        if gain > best_gain:
            best_gain = gain
            best_cut = j + 1
    return best_gain, best_cut


@njit(**NO_NRT_JIT_OPTIONS)
def best_binary_subset(hist, hoff, hcount, coff, n_codes, n_node, width, task, criterion, parent,
                       parent_off, parent_mass, min_samples_leaf, left, right, slot_map, present,
                       keys, in_left, order, best_order, perm, perm_scratch, min_weight_leaf):
    """Best subset test; see the module docstring for the search used.

    ``order``, ``best_order``, ``perm`` and ``perm_scratch`` are scratch arrays of at least
    ``n_codes`` integers. Both children keep at least ``min_weight_leaf`` of weight.
    """
    q = _present(hcount, coff, n_codes, present)
    if q < 2:
        return -np.inf, 0
    for b in range(n_codes):
        in_left[b] = False
    n_classes = width
    if task == TASK_REGRESSION or n_classes == 2 or q > MAX_EXHAUSTIVE_CATEGORIES:
        n_orderings = 1 if (task == TASK_REGRESSION or n_classes == 2) else n_classes
        best_gain = -np.inf
        best_cut = -1
        for o in range(n_orderings):
            for j in range(q):
                b = present[j]
                base = hoff + b * width
                if task == TASK_REGRESSION:
                    keys[j] = hist[base + 1] / hist[base] if hist[base] > 0.0 else 0.0
                else:
                    total = stats_weight(hist, base, width, task)
                    cls = 1 if n_classes == 2 else o
                    keys[j] = hist[base + cls] / total if total > 0.0 else 0.0
            stable_argsort(keys, q, perm, perm_scratch)
            for j in range(q):
                order[j] = present[perm[j]]
            gain, cut = _scan_ordering(order, q, hist, hoff, hcount, coff, n_node, width, task,
                                       criterion, parent, parent_off, parent_mass,
                                       min_samples_leaf, left, right, min_weight_leaf)
            if cut > 0 and gain > best_gain:
                best_gain = gain
                best_cut = cut
                for j in range(q):
                    best_order[j] = order[j]
        if best_cut < 0:
            return -np.inf, 0
        for j in range(best_cut):
            in_left[best_order[j]] = True
        _finish_binary_map(slot_map, n_codes, hist, hoff, hcount, coff, width, task, in_left)
        return best_gain, 2
    # Exhaustive search over bipartitions: the last present category always stays right, the
    # others follow the bits of a Gray code so each step moves one category.
    for k in range(width):
        left[k] = 0.0
        right[k] = parent[parent_off + k]
    n_left = 0
    mask = 0
    best_gain = -np.inf
    best_mask = 0
    for i in range(1, 1 << (q - 1)):
        gray = i ^ (i >> 1)
        flipped = gray ^ mask
        bit = 0
        while (flipped >> bit) != 1:
            bit += 1
        b = present[bit]
        base = hoff + b * width
        if gray & flipped:
            for k in range(width):
                left[k] += hist[base + k]
                right[k] -= hist[base + k]
            n_left += hcount[coff + b]
        else:
            for k in range(width):
                left[k] -= hist[base + k]
                right[k] += hist[base + k]
            n_left -= hcount[coff + b]
        mask = gray
        if n_left < min_samples_leaf or n_node - n_left < min_samples_leaf:
            continue
        if min_weight_leaf > 0.0 and _light_child(left, right, width, task, min_weight_leaf):
            continue
        gain = parent_mass - stats_mass(left, 0, width, task, criterion) - \
            stats_mass(right, 0, width, task, criterion)
        if gain > best_gain:
            best_gain = gain
            best_mask = gray
    if best_mask == 0:
        return -np.inf, 0
    for j in range(q - 1):
        if (best_mask >> j) & 1:
            in_left[present[j]] = True
    _finish_binary_map(slot_map, n_codes, hist, hoff, hcount, coff, width, task, in_left)
    return best_gain, 2


@njit(**NO_NRT_JIT_OPTIONS)
def best_multiway(hist, hoff, hcount, coff, n_codes, width, task, criterion, parent_mass,
                  min_samples_leaf, slot_map, min_weight_leaf):
    """One child per present category (ID3); invalid if any child is below
    ``min_samples_leaf`` rows or ``min_weight_leaf`` weight."""
    q = 0
    child_mass = 0.0
    heaviest = -1
    heaviest_weight = -1.0
    for b in range(n_codes):
        if hcount[coff + b] == 0:
            continue
        if hcount[coff + b] < min_samples_leaf:
            return -np.inf, 0
        wb = stats_weight(hist, hoff + b * width, width, task)
        if wb < min_weight_leaf:
            return -np.inf, 0
        if wb > heaviest_weight:
            heaviest_weight = wb
            heaviest = q
        child_mass += stats_mass(hist, hoff + b * width, width, task, criterion)
        q += 1
    if q < 2:
        return -np.inf, 0
    slot = 0
    for b in range(n_codes):
        if hcount[coff + b] == 0:
            slot_map[b] = heaviest
        else:
            slot_map[b] = slot
            slot += 1
    return parent_mass - child_mass, q
