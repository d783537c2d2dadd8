"""Array min-heap of (key, node) pairs: the frontier of best-first growth.

Ties on the key go to the smaller node id (the older node), so growth is deterministic.
"""

from __future__ import annotations

from treebound._config import NO_NRT_INLINE_JIT_OPTIONS, NO_NRT_JIT_OPTIONS, njit


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def heap_less(key_a, node_a, key_b, node_b):
    return key_a < key_b or (key_a == key_b and node_a < node_b)


@njit(**NO_NRT_JIT_OPTIONS)
def heap_push(keys, nodes, size, key, node):
    """Push onto the array min-heap ordered by (key, node); returns the new size."""
    i = size
    keys[i] = key
    nodes[i] = node
    while i > 0:
        parent = (i - 1) // 2
        if heap_less(keys[i], nodes[i], keys[parent], nodes[parent]):
            keys[i], keys[parent] = keys[parent], keys[i]
            nodes[i], nodes[parent] = nodes[parent], nodes[i]
            i = parent
        else:
            break
    return size + 1


@njit(**NO_NRT_JIT_OPTIONS)
def heap_pop(keys, nodes, size):
    """Remove the smallest entry; returns (node, new size)."""
    top = nodes[0]
    size -= 1
    keys[0] = keys[size]
    nodes[0] = nodes[size]
    i = 0
    while True:
        left = 2 * i + 1
        right = left + 1
        best = i
        if left < size and heap_less(keys[left], nodes[left], keys[best], nodes[best]):
            best = left
        if right < size and heap_less(keys[right], nodes[right], keys[best], nodes[best]):
            best = right
        if best == i:
            break
        keys[i], keys[best] = keys[best], keys[i]
        nodes[i], nodes[best] = nodes[best], nodes[i]
        i = best
    return top, size
