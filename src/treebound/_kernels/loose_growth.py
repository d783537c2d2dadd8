"""numba kernels of bound pruning with the loose growth-function bound (Leboeuf et al. 2020,
end of section 6.2) on the flat arrays of a tree being pruned.

The loose recursion evaluates node ``v`` of a tree with ``L`` leaves at the single size
``mm(v) = M - L + L_v`` (every child is evaluated at its parent's size minus its sibling's
leaves), so with ``D = M - L`` a subtree's values depend only on its shape and ``D``. Values are
memoized by (canonical shape id, ``D``) across candidates and steps; a candidate "``u`` made a
leaf" only recomputes its root path, its siblings being read from (or added to) the memo.

Canonical shape ids (AHU): a leaf is 0, an internal node is the id of the unordered pair of its
children's ids, looked up in an exact table (key ``min id * 2^31 + max id``). Two subtrees get
the same id iff they are isomorphic as unordered binary trees, which is when Theorem 9 halves
(``T_l = T_r``). A candidate's new root-path shapes are only looked up: a shape missing from the
table is new, differs from every existing shape, and so does every shape containing it.

Tables are open-addressing hash maps in two arrays (``keys``, ``-1`` = empty; ``vals``) compared
on the exact key, grown by the top-level kernels, which return the (possibly new) arrays.
Nothing here knows about trees as objects: plain arrays in, arrays out.
"""

from __future__ import annotations

import math

import numpy as np

from treebound._config import INLINE_JIT_OPTIONS, JIT_OPTIONS, njit
from treebound._kernels.array_copy import copy_rows

NEG_INF = -np.inf
LOG2 = math.log(2.0)
EMPTY = -1
#: Shape ids must stay below this (pair keys are ``lo * PAIR_BASE + hi``).
PAIR_BASE = 2**31
#: Row of the value buffer that holds a leaf's values (``pi^0 = 0``, ``pi^1 = 1``).
LEAF_ROW = 0
LEAF_SHAPE = 0


# ------------------------------------------------------------------------ exact hash maps
@njit(**INLINE_JIT_OPTIONS)
def _slot(keys, key):
    """Index of ``key`` in ``keys``, or of the empty slot where it would go."""
    mask = keys.shape[0] - 1
    h = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    i = np.int64(h >> np.uint64(33)) & mask
    while True:
        k = keys[i]
        if k == key or k == EMPTY:
            return i
        i = (i + 1) & mask


@njit(**INLINE_JIT_OPTIONS)
def map_get(keys, vals, key):
    """Value stored under ``key``, ``-1`` when absent."""
    i = _slot(keys, key)
    if keys[i] == key:
        return vals[i]
    return -1


@njit(**INLINE_JIT_OPTIONS)
def map_put(keys, vals, key, value):
    """Store ``value`` under ``key`` (the table must have room); returns 1 if the key is new."""
    i = _slot(keys, key)
    new = 1 if keys[i] == EMPTY else 0
    keys[i] = key
    vals[i] = value
    return new


@njit(**JIT_OPTIONS)
def map_reserve(keys, vals, count, extra):
    """The same map with room for ``extra`` more keys at load <= 1/2 (new arrays if grown)."""
    capacity = keys.shape[0]
    if 2 * (count + extra) <= capacity:
        return keys, vals
    while 2 * (count + extra) > capacity:
        capacity *= 2
    new_keys = np.full(capacity, EMPTY, dtype=np.int64)
    new_vals = np.empty(capacity, dtype=np.int64)
    for i in range(keys.shape[0]):
        if keys[i] != EMPTY:
            map_put(new_keys, new_vals, keys[i], vals[i])
    return new_keys, new_vals


@njit(**JIT_OPTIONS)
def reserve_rows(values, n_rows, extra):
    """The value buffer with room for ``extra`` more rows (a new array if grown)."""
    capacity = values.shape[0]
    if n_rows + extra <= capacity:
        return values
    while n_rows + extra > capacity:
        capacity *= 2
    out = np.empty((capacity, values.shape[1]))
    copy_rows(values, out, n_rows)
    return out


# ------------------------------------------------------------------------ canonical shape ids
@njit(**INLINE_JIT_OPTIONS)
def pair_key(id_a, id_b):
    if id_a <= id_b:
        return id_a * PAIR_BASE + id_b
    return id_b * PAIR_BASE + id_a


@njit(**INLINE_JIT_OPTIONS)
def _is_leaf(v, first_child, collapsed):
    return first_child[v] < 0 or collapsed[v]


@njit(**INLINE_JIT_OPTIONS)
def _intern(node, first_child, shape_id, height, table_keys, table_vals, n_shapes):
    """Give ``node`` the id of its children's pair (a new id when the pair is new)."""
    left = first_child[node]
    a, b = shape_id[left], shape_id[left + 1]
    key = pair_key(a, b)
    found = map_get(table_keys, table_vals, key)
    if found < 0:
        found = n_shapes
        map_put(table_keys, table_vals, key, found)
        n_shapes += 1
    shape_id[node] = found
    height[node] = 1 + max(height[left], height[left + 1])
    return n_shapes


@njit(**JIT_OPTIONS)
def assign_shape_ids(first_child, collapsed, shape_id, height, table_keys, table_vals, n_shapes):
    """Canonical ids and heights of every node (children have larger ids than their parent).

    Returns ``(table_keys, table_vals, n_shapes)``.
    """
    n = first_child.shape[0]
    table_keys, table_vals = map_reserve(table_keys, table_vals, n_shapes, n)
    for v in range(n - 1, -1, -1):
        if _is_leaf(v, first_child, collapsed):
            shape_id[v] = LEAF_SHAPE
            height[v] = 0
        else:
            n_shapes = _intern(v, first_child, shape_id, height, table_keys, table_vals,
                               n_shapes)
    return table_keys, table_vals, n_shapes


@njit(**JIT_OPTIONS)
def collapse_shape_ids(node, first_child, parent, shape_id, height, table_keys, table_vals,
                       n_shapes):
    """Update ids and heights after ``node`` became a leaf (its root path only).

    Returns ``(table_keys, table_vals, n_shapes)``.
    """
    depth = 0
    p = parent[node]
    while p >= 0:
        depth += 1
        p = parent[p]
    table_keys, table_vals = map_reserve(table_keys, table_vals, n_shapes, depth)
    shape_id[node] = LEAF_SHAPE
    height[node] = 0
    p = parent[node]
    while p >= 0:
        n_shapes = _intern(p, first_child, shape_id, height, table_keys, table_vals, n_shapes)
        p = parent[p]
    return table_keys, table_vals, n_shapes


# ------------------------------------------------------------------------ one node's values
@njit(**JIT_OPTIONS)
def loose_combine(left, n_left_rows, right, n_right_rows, out, n_rows, n_leaves, mm, same,
                  paper, log_two_ell, log_stirling, log_coef, scratch):
    """The loose bound of a node at size ``mm`` from its children's values (logs).

    ``left[a] = ln pi_l^a(mm - L_r)`` for ``a <= n_left_rows``, likewise ``right``; writes
    ``out[c]`` for ``c <= n_rows``: ``min(S(mm, c), 2^-[same] 2 ell (mm - L + 1)
    sum_{a,b} coef(a, b, c) pi_l^a pi_r^b)`` (``mm - L`` when ``paper``), ``out[1] = 0``. The
    sum is taken as the Python oracle of the tests takes it (``tests/_theory_oracles.py``):
    largest finite term factored out, the rest added in order.
    """
    out[0] = NEG_INF
    if n_rows >= 1:
        out[1] = 0.0
    count = mm - n_leaves if paper else mm - n_leaves + 1
    log_count = math.log(count) if count > 0 else NEG_INF
    for c in range(2, n_rows + 1):
        n_terms = 0
        top = NEG_INF
        for a in range(1, min(c, n_left_rows) + 1):
            for b in range(max(1, c - a), min(c, n_right_rows) + 1):
                x = log_coef[a, b, c] + left[a] + right[b]
                scratch[n_terms] = x
                n_terms += 1
                if x > top:
                    top = x
        if top == NEG_INF:
            inner = NEG_INF
        else:
            total = 0.0
            for i in range(n_terms):
                x = scratch[i]
                if x != NEG_INF:
                    total += math.exp(x - top)
            inner = top + math.log(total)
        value = inner + log_two_ell + log_count
        if same:
            value -= LOG2
        bound = log_stirling[c, mm]
        out[c] = bound if bound < value else value


@njit(**INLINE_JIT_OPTIONS)
def _comes_first(leaves_a, height_a, id_a, leaves_b, height_b, id_b):
    """Child order of the sums: larger first by (leaves, height, id), as in canonical shapes."""
    if leaves_a != leaves_b:
        return leaves_a > leaves_b
    if height_a != height_b:
        return height_a > height_b
    return id_a >= id_b


# ------------------------------------------------------------------------ memoized subtrees
@njit(**INLINE_JIT_OPTIONS)
def _child_row(child, offset, first_child, collapsed, shape_id, memo_keys, memo_vals, M):
    if _is_leaf(child, first_child, collapsed):
        return LEAF_ROW
    return map_get(memo_keys, memo_vals, shape_id[child] * (M + 1) + offset)


@njit(**JIT_OPTIONS)
def _subtree_row(root, offset, first_child, collapsed, leaves, shape_id, height, memo_keys,
                 memo_vals, values, n_rows, n_parts, M, paper, log_two_ell, log_stirling,
                 log_coef, stack, scratch):
    """Row of ``values`` holding the subtree of ``root`` at size ``offset + L_root``; every
    node of it missing from the memo is computed children first and memoized.

    The caller reserves room for one memo key and one row per node of the subtree. Returns
    ``(row, n_rows, n_new_keys)``.
    """
    if _is_leaf(root, first_child, collapsed):
        return LEAF_ROW, n_rows, 0
    key = shape_id[root] * (M + 1) + offset
    found = map_get(memo_keys, memo_vals, key)
    if found >= 0:
        return found, n_rows, 0
    n_new = 0
    sp = 0
    stack[sp] = root
    sp += 1
    while sp > 0:
        sp -= 1
        entry = stack[sp]
        expanded = entry < 0
        v = -entry - 1 if expanded else entry
        key = shape_id[v] * (M + 1) + offset
        if map_get(memo_keys, memo_vals, key) >= 0:
            continue
        left = first_child[v]
        right = left + 1
        if not expanded:
            stack[sp] = -v - 1
            sp += 1
            if not _is_leaf(right, first_child, collapsed):
                stack[sp] = right
                sp += 1
            if not _is_leaf(left, first_child, collapsed):
                stack[sp] = left
                sp += 1
            continue
        row_left = _child_row(left, offset, first_child, collapsed, shape_id, memo_keys,
                              memo_vals, M)
        row_right = _child_row(right, offset, first_child, collapsed, shape_id, memo_keys,
                               memo_vals, M)
        if not _comes_first(leaves[left], height[left], shape_id[left], leaves[right],
                            height[right], shape_id[right]):
            left, right = right, left
            row_left, row_right = row_right, row_left
        L = leaves[v]
        loose_combine(values[row_left], min(n_parts, leaves[left]), values[row_right],
                      min(n_parts, leaves[right]), values[n_rows], min(n_parts, L), L,
                      offset + L, shape_id[left] == shape_id[right], paper, log_two_ell,
                      log_stirling, log_coef, scratch)
        map_put(memo_keys, memo_vals, key, n_rows)
        n_rows += 1
        n_new += 1
    return map_get(memo_keys, memo_vals, shape_id[root] * (M + 1) + offset), n_rows, n_new


@njit(**INLINE_JIT_OPTIONS)
def _log_growth_from_row(row, top, log_falling):
    """``ln sum_{a=1}^{top} (n)_a exp(row[a])`` (Eq. 4 of Leboeuf et al.)."""
    peak = NEG_INF
    for a in range(1, top + 1):
        x = log_falling[a] + row[a]
        if x > peak:
            peak = x
    if peak == NEG_INF:
        return NEG_INF
    total = 0.0
    for a in range(1, top + 1):
        total += math.exp(log_falling[a] + row[a] - peak)
    return math.log(total) + peak


# ------------------------------------------------------------------------ candidates
@njit(**JIT_OPTIONS)
def loose_candidates_log_growth(candidates, first_child, parent, collapsed, leaves, shape_id,
                                height, table_keys, table_vals, memo_keys, memo_vals,
                                memo_count, values, n_rows, M, n_classes, n_parts, paper,
                                log_two_ell, log_stirling, log_coef, log_falling):
    """``ln tau(2m)`` bound (loose variant) of every candidate tree "node ``u`` made a leaf".

    Parameters
    ----------
    candidates : int64 array
        Internal nodes to collapse; ``-1`` stands for the current tree itself.
    first_child, parent : int64 arrays
        The grown tree (children ``first_child[v]``, ``first_child[v] + 1``; ``-1`` = leaf).
    collapsed : bool array
        Nodes made leaves by pruning so far.
    leaves, shape_id, height : int64 arrays
        Current subtree leaf counts, canonical shape ids (:func:`assign_shape_ids`), heights.
    table_keys, table_vals : int64 arrays
        Shape-id table (read only here).
    memo_keys, memo_vals, memo_count, values, n_rows
        Memo of subtree values by (shape id, ``D``): key ``id * (M + 1) + D`` -> row of
        ``values`` (row 0 = leaf); grown as needed.
    M : int
        Size at which the growth function is evaluated (``2 m``).
    n_classes : int
        ``n``.
    n_parts : int
        Rows kept per node, ``min(n, L_tree, M)`` (``>= 1``).
    paper : bool
        ``"loose_paper"`` (count ``mm - L`` instead of ``mm - L + 1``).
    log_two_ell : float
        ``ln(2 ell)``.
    log_stirling : float array
        ``ln S(mm, c)``, at least ``(n_parts + 1, M + 1)``.
    log_coef : float array
        ``ln`` merge counts ``[a, b, c]`` (:func:`treebound.theory._tables.log_merge_coefficients`).
    log_falling : float array
        ``ln (n)_a`` for ``a <= n_parts``.

    Returns
    -------
    (log_growth, memo_keys, memo_vals, memo_count, values, n_rows)
    """
    n_nodes = first_child.shape[0]
    out = np.empty(candidates.shape[0])
    stack = np.empty(n_nodes + 1, dtype=np.int64)
    width = n_parts + 1
    scratch = np.empty(width * width)
    path_rows = np.empty((2, width))
    n_leaves = leaves[0]
    for i in range(candidates.shape[0]):
        u = candidates[i]
        L = n_leaves if u < 0 else n_leaves - leaves[u] + 1
        top = min(n_classes, L, M)
        if M == 0:  # tau(0) = 1: the empty restriction
            out[i] = 0.0
            continue
        if M <= L:  # the root's base case: Stirling numbers, nothing below is read
            out[i] = _log_growth_from_row(log_stirling[:, M], top, log_falling)
            continue
        offset = M - L
        # Room for every node of the tree in the memo and the buffer (at most once each).
        memo_keys, memo_vals = map_reserve(memo_keys, memo_vals, memo_count, n_nodes)
        values = reserve_rows(values, n_rows, n_nodes)
        if u < 0:
            row, n_rows, n_new = _subtree_row(
                0, offset, first_child, collapsed, leaves, shape_id, height, memo_keys,
                memo_vals, values, n_rows, n_parts, M, paper, log_two_ell, log_stirling,
                log_coef, stack, scratch)
            memo_count += n_new
            out[i] = _log_growth_from_row(values[row], top, log_falling)
            continue
        # Walk up from u (now a leaf) rebuilding the root path's values; siblings are memoized.
        cur = values[LEAF_ROW]
        cur_id = LEAF_SHAPE
        cur_leaves = 1
        cur_height = 0
        flip = 0
        child = u
        p = parent[u]
        while p >= 0:
            first = first_child[p]
            sib = first + 1 if child == first else first
            sib_row, n_rows, n_new = _subtree_row(
                sib, offset, first_child, collapsed, leaves, shape_id, height, memo_keys,
                memo_vals, values, n_rows, n_parts, M, paper, log_two_ell, log_stirling,
                log_coef, stack, scratch)
            memo_count += n_new
            sib_id = shape_id[sib]
            same = cur_id == sib_id  # cur_id is -1 once the path shape is new
            new_leaves = cur_leaves + leaves[sib]
            dst = path_rows[flip]
            if _comes_first(cur_leaves, cur_height, cur_id, leaves[sib], height[sib], sib_id):
                loose_combine(cur, min(n_parts, cur_leaves), values[sib_row],
                              min(n_parts, leaves[sib]), dst, min(n_parts, new_leaves),
                              new_leaves, offset + new_leaves, same, paper, log_two_ell,
                              log_stirling, log_coef, scratch)
            else:
                loose_combine(values[sib_row], min(n_parts, leaves[sib]), cur,
                              min(n_parts, cur_leaves), dst, min(n_parts, new_leaves),
                              new_leaves, offset + new_leaves, same, paper, log_two_ell,
                              log_stirling, log_coef, scratch)
            if cur_id >= 0:
                cur_id = map_get(table_keys, table_vals, pair_key(cur_id, sib_id))
            cur = dst
            flip = 1 - flip
            cur_leaves = new_leaves
            cur_height = 1 + max(cur_height, height[sib])
            child = p
            p = parent[p]
        out[i] = _log_growth_from_row(cur, top, log_falling)
    return out, memo_keys, memo_vals, memo_count, values, n_rows


@njit(**JIT_OPTIONS)
def loose_tree_row(first_child, collapsed, leaves, shape_id, height, M, n_parts, paper,
                   log_two_ell, log_stirling, log_coef):
    """``ln pi^c(M)`` (loose bound) for ``c <= n_parts`` of the whole current tree, which has
    fewer than ``M`` leaves; a memo of this call only (the theory functions' single trees).

    Same recursion and sums as :func:`loose_candidates_log_growth` (``n_parts`` rows kept per
    node); ids and heights from :func:`assign_shape_ids`.
    """
    n_nodes = first_child.shape[0]
    memo_keys, memo_vals = map_reserve(np.full(16, EMPTY, dtype=np.int64),
                                       np.empty(16, dtype=np.int64), 0, n_nodes)
    values = np.full((n_nodes + 1, n_parts + 1), NEG_INF)
    values[LEAF_ROW, 1] = 0.0  # a leaf: pi^1 = 1, pi^c = 0 for c != 1
    stack = np.empty(n_nodes + 1, dtype=np.int64)
    scratch = np.empty((n_parts + 1) * (n_parts + 1))
    row, _, _ = _subtree_row(0, M - leaves[0], first_child, collapsed, leaves, shape_id, height,
                             memo_keys, memo_vals, values, LEAF_ROW + 1, n_parts, M, paper,
                             log_two_ell, log_stirling, log_coef, stack, scratch)
    return values[row].copy()
