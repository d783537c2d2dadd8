"""Node loops over the prunings of a flat tree: the breadth-first renumbering every pruning
ends with (:func:`treebound._flat._collapse.collapse_tree`, which certified selection runs once
per candidate) and where a pruning stops the rows that reach each node of the tree it prunes
(certified selection's predictions of its nested candidates)."""

from __future__ import annotations

from treebound._config import NO_NRT_JIT_OPTIONS, njit


@njit(**NO_NRT_JIT_OPTIONS)
def collapse_order(first_child, n_children, make_leaf, keep, new_first_child, new_n_children,
                   old_to_new):
    """The nodes a pruning keeps, renumbered breadth-first from the root.

    A node is kept when its parent is kept and is not a leaf of the pruning (``make_leaf`` or
    a leaf already). Writes, for the first ``n_kept`` entries (the return value) of ``keep``,
    ``new_first_child`` and ``new_n_children`` (each at least ``len(first_child)`` long): the
    old id of each kept node, its first child's new id (``-1``: a leaf) and its number of
    children; ``old_to_new`` gets the new id of every old node, ``-1`` where it is dropped.
    """
    for i in range(first_child.shape[0]):
        old_to_new[i] = -1
    keep[0] = 0
    old_to_new[0] = 0
    new_first_child[0] = -1
    new_n_children[0] = 0
    size = 1
    head = 0
    while head < size:
        old = keep[head]
        start = first_child[old]
        if start >= 0 and not make_leaf[old]:
            k = n_children[old]
            new_first_child[head] = size
            new_n_children[head] = k
            for c in range(start, start + k):
                old_to_new[c] = size
                keep[size] = c
                new_first_child[size] = -1
                new_n_children[size] = 0
                size += 1
        head += 1
    return size


@njit(**NO_NRT_JIT_OPTIONS)
def pruning_stops(first_child, n_children, stop):
    """Where a pruning stops a row reaching each node of the tree it prunes: on entry
    ``stop[i]`` is node ``i``'s id in the pruning, ``-1`` where the pruning drops it; on
    return a dropped node holds the id of its closest kept ancestor (a leaf of the pruning).
    ``first_child`` / ``n_children``: the pruned tree's nodes (children after their parent,
    so one pass in id order sees every parent's answer before its children); its root is
    kept."""
    for i in range(stop.shape[0]):
        start = first_child[i]
        if start >= 0:
            for c in range(start, start + n_children[i]):
                if stop[c] < 0:
                    stop[c] = stop[i]
