"""Stable k-way partition of index segments after a node is split.

The node's samples occupy ``arr[row, start:end]`` (the sample list, and every presorted feature
row); ``slot_of[sample]`` says which child each goes to. Partitioning is stable, so presorted rows
stay sorted inside every child segment and children occupy consecutive sub-segments in slot order.
"""

from __future__ import annotations

from treebound._config import NO_NRT_JIT_OPTIONS, njit


@njit(**NO_NRT_JIT_OPTIONS)
def partition_binary(arr, row, start, end, slot_of, tmp):
    """Stable two-way partition in place (slot 0 first); returns the size of slot 0."""
    write = start
    n_right = 0
    for i in range(start, end):
        s = arr[row, i]
        if slot_of[s] == 0:
            arr[row, write] = s
            write += 1
        else:
            tmp[n_right] = s
            n_right += 1
    for j in range(n_right):
        arr[row, write + j] = tmp[j]
    return write - start


@njit(**NO_NRT_JIT_OPTIONS)
def partition_kway(arr, row, start, end, slot_of, child_offsets, n_children, positions, tmp):
    """Stable k-way partition; ``child_offsets[j]`` is child j's start relative to ``start``."""
    for j in range(n_children):
        positions[j] = child_offsets[j]
    for i in range(start, end):
        s = arr[row, i]
        slot = slot_of[s]
        tmp[positions[slot]] = s
        positions[slot] += 1
    for i in range(end - start):
        arr[row, start + i] = tmp[i]
