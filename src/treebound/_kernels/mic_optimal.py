"""Kernels of ``treebound.mic.optimal``: the states reachable from one DNF and the OPT(F, t) DP.

A formula under a product distribution is described by the multiset of its term *profiles* (the
counts of its remaining literals per probability class, see ``treebound.mic._states``). Here a
profile is a small integer id: ``0`` means "no term", ``1`` is the all-zero profile of a satisfied
term, and ids ``2, 3, …`` follow the lexicographic order of the profiles. A state is a row of
``k`` ids (``k`` = the root's number of terms) sorted ascending, so absent terms come first:

* the constant 0 (no term left) is the all-zero row,
* the constant 1 (a satisfied term) is ``[0, …, 0, 1]``,
* ascending ids are ascending profiles, so reading a row left to right visits the terms in the
  order of ``treebound.mic._states.canonical_state``.

Rows are stored in a ``uint16`` matrix and found again through an open-addressing hash table of
row indices; both grow by doubling. Enumerating a state's splits costs a sort of ``k`` small
integers and two table probes per split, instead of building and hashing Python tuples.
"""

from __future__ import annotations

import numpy as np

from treebound._config import JIT_OPTIONS, njit
from treebound._kernels.array_copy import copy_prefix, copy_row

#: Profile id of "no term" and of the satisfied (all-zero) profile.
ABSENT = 0
SATISFIED = 1

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@njit(**JIT_OPTIONS)
def _row_key(row, bits):
    """A non-negative int64 key of a row of ids.

    With ``bits > 0`` the ids packed ``bits`` bits each (the caller checks they fit in 63 bits):
    equal keys mean equal rows. With ``bits == 0`` a 63-bit FNV-1a hash, to be confirmed by
    comparing rows.
    """
    if bits > 0:
        key = np.int64(0)
        for value in row:
            key = (key << bits) | np.int64(value)
        return key
    h = _FNV_OFFSET
    for value in row:
        h = (h ^ np.uint64(value)) * _FNV_PRIME
    return np.int64(h >> np.uint64(1))


@njit(**JIT_OPTIONS)
def _slot_of(key, n_slots):
    """First probe of ``key`` (splitmix64's finalizer spreads packed keys over the table)."""
    z = np.uint64(key)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z & np.uint64(n_slots - 1))


@njit(**JIT_OPTIONS)
def _same_row(a, b):
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    return True


@njit(**JIT_OPTIONS)
def _find_or_add(row, bits, rows, n_rows, n_literals, profile_literals, slots):
    """Index of ``row`` in ``rows[:n_rows]``, appending it if new; returns ``(index, n_rows)``.

    ``slots`` is an open-addressing table (linear probing) of ``(key, row index)`` pairs, side by
    side so that a probe touches one cache line; index -1 marks an empty slot. The caller
    guarantees room for one more row and a table at most half full.
    """
    key = _row_key(row, bits)
    n_slots = slots.shape[0]
    slot = _slot_of(key, n_slots)
    while True:
        index = slots[slot, 1]
        if index < 0:
            break
        if slots[slot, 0] == key and (bits > 0 or _same_row(rows[index], row)):
            return index, n_rows
        slot = (slot + 1) & (n_slots - 1)
    slots[slot, 0] = key
    slots[slot, 1] = n_rows
    for j in range(row.shape[0]):
        rows[n_rows, j] = row[j]
    literals = 0
    for value in row:
        literals += profile_literals[value]
    n_literals[n_rows] = literals
    return n_rows, n_rows + 1


@njit(**JIT_OPTIONS)
def _empty_slots(n_slots):
    slots = np.zeros((n_slots, 2), dtype=np.int64)
    slots[:, 1] = -1
    return slots


@njit(**JIT_OPTIONS)
def _rehash(slots, n_slots):
    """The same entries in a table of ``n_slots`` slots."""
    new = _empty_slots(n_slots)
    for old in range(slots.shape[0]):
        if slots[old, 1] < 0:
            continue
        slot = _slot_of(slots[old, 0], n_slots)
        while new[slot, 1] >= 0:
            slot = (slot + 1) & (n_slots - 1)
        new[slot, 0] = slots[old, 0]
        new[slot, 1] = slots[old, 1]
    return new


@njit(**JIT_OPTIONS)
def _grown(array, new_length):
    """``array`` copied into a larger one along the first axis (the rest left uninitialised)."""
    out = np.empty((new_length,) + array.shape[1:], dtype=array.dtype)
    # both C-contiguous: array's rows are the start of out's, element for element
    copy_prefix(array.reshape(array.size), out.reshape(out.size), array.size)
    return out


@njit(**JIT_OPTIONS)
def _without_term(row, position, out):
    """``row`` with the term at ``position`` removed: shift the ids before it right by one."""
    out[0] = ABSENT
    for i in range(position):
        out[i + 1] = row[i]
    for i in range(position + 1, row.shape[0]):
        out[i] = row[i]


@njit(**JIT_OPTIONS)
def _with_term_reduced(row, position, reduced, out):
    """``row`` with the id at ``position`` replaced by ``reduced``, kept sorted.

    Reducing a profile makes it lexicographically smaller, so the new id only moves left. A
    satisfied term makes the whole formula the constant 1.
    """
    if reduced == SATISFIED:
        out[:] = ABSENT
        out[out.shape[0] - 1] = SATISFIED
        return
    copy_prefix(row, out, row.shape[0])
    i = position
    while i > 0 and out[i - 1] > reduced:
        out[i] = out[i - 1]
        i -= 1
    out[i] = reduced


@njit(**JIT_OPTIONS)
def reachable_states(root, profile_literals, profile_reduced, term_probability):
    """Every state reachable from ``root`` by splits, topologically ordered, with its moves.

    Parameters
    ----------
    root : uint16 (k,)
        The root formula's profile ids, sorted ascending.
    profile_literals : int64 (n_ids,)
        Number of literals of each profile id (0 for ``ABSENT`` and ``SATISFIED``).
    profile_reduced : int64 (n_ids, K)
        Id of the profile with one literal of class ``c`` removed; -1 if it has none.
    term_probability : float64 (n_ids,)
        P[term satisfied] of each profile id (the product of its literals' probabilities).

    Returns
    -------
    rows : uint16 (n_states, k)
        The states; every move's children come before it (ordered by number of literals, the
        root last).
    leaf_error : float64 (n_states,)
        min(P[F=1], P[F=0]) of each state.
    move_start, move_false, move_true, move_class : int64
        CSR list of each state's distinct splits (one per distinct profile and class): literal
        false (the term dropped) and literal true (one literal of class ``move_class`` removed).
    """
    k = root.shape[0]
    n_classes = profile_reduced.shape[1]
    per_state = k * n_classes  # most splits (and at most twice as many new states) per state
    rows = np.zeros((1024, k), dtype=np.uint16)
    n_literals = np.zeros(1024, dtype=np.int64)
    move_start = np.zeros(1025, dtype=np.int64)
    move_false = np.empty(4096, dtype=np.int64)
    move_true = np.empty(4096, dtype=np.int64)
    move_class = np.empty(4096, dtype=np.int64)
    slots = _empty_slots(2048)
    bits = 1
    while (1 << bits) < profile_literals.shape[0]:
        bits += 1
    if bits * k > 63:
        bits = 0  # rows do not pack into a key: hash them and compare rows on key matches
    child = np.empty(k, dtype=np.uint16)
    _, n_rows = _find_or_add(
        root, bits, rows, 0, n_literals, profile_literals, slots
    )
    n_moves = 0
    head = 0
    # Breadth-first: rows are processed in insertion order, so the moves of row ``head`` are
    # contiguous and ``move_start`` is filled in order.
    while head < n_rows:
        if n_rows + 2 * per_state > rows.shape[0]:
            rows = _grown(rows, 2 * rows.shape[0])
            n_literals = _grown(n_literals, rows.shape[0])
            move_start = _grown(move_start, rows.shape[0] + 1)
        if 2 * (n_rows + 2 * per_state) > slots.shape[0]:
            slots = _rehash(slots, 2 * slots.shape[0])
        if n_moves + per_state > move_false.shape[0]:
            move_false = _grown(move_false, 2 * move_false.shape[0])
            move_true = _grown(move_true, move_false.shape[0])
            move_class = _grown(move_class, move_false.shape[0])
        move_start[head] = n_moves
        row = rows[head]
        if row[k - 1] > SATISFIED:  # not a constant
            for position in range(k):
                term = row[position]
                if term == ABSENT or (position > 0 and row[position - 1] == term):
                    continue
                _without_term(row, position, child)
                false_index, n_rows = _find_or_add(
                    child, bits, rows, n_rows, n_literals, profile_literals, slots
                )
                for c in range(n_classes):
                    reduced = profile_reduced[term, c]
                    if reduced < 0:
                        continue
                    _with_term_reduced(row, position, reduced, child)
                    true_index, n_rows = _find_or_add(
                        child, bits, rows, n_rows, n_literals, profile_literals, slots
                    )
                    move_false[n_moves] = false_index
                    move_true[n_moves] = true_index
                    move_class[n_moves] = c
                    n_moves += 1
        head += 1
    move_start[n_rows] = n_moves
    return _topological(
        rows[:n_rows], n_literals[:n_rows], move_start[: n_rows + 1], move_false[:n_moves],
        move_true[:n_moves], move_class[:n_moves], term_probability,
    )


@njit(**JIT_OPTIONS)
def _topological(rows, n_literals, move_start, move_false, move_true, move_class,
                 term_probability):
    """Reorder states by number of literals (a split always removes some) and relabel moves."""
    n_states = rows.shape[0]
    # Counting sort by number of literals, stable in insertion order.
    bucket_start = np.zeros(n_literals.max() + 2, dtype=np.int64)
    for s in range(n_states):
        bucket_start[n_literals[s] + 1] += 1
    for b in range(1, bucket_start.shape[0]):
        bucket_start[b] += bucket_start[b - 1]
    position = np.empty(n_states, dtype=np.int64)
    for s in range(n_states):
        position[s] = bucket_start[n_literals[s]]
        bucket_start[n_literals[s]] += 1
    sorted_rows = np.empty_like(rows)
    leaf_error = np.empty(n_states)
    sorted_start = np.zeros(n_states + 1, dtype=np.int64)
    for s in range(n_states):
        new = position[s]
        copy_row(rows, s, sorted_rows, new)
        # Ascending ids = the canonical term order: the same products in the same order as
        # treebound.mic._states.leaf_error, hence bit-identical values.
        p0 = 1.0
        for value in rows[s]:
            if value != ABSENT:
                p0 *= 1.0 - term_probability[value]
        leaf_error[new] = min(p0, 1.0 - p0)
        sorted_start[new + 1] = move_start[s + 1] - move_start[s]
    for s in range(n_states):
        sorted_start[s + 1] += sorted_start[s]
    n_moves = move_false.shape[0]
    sorted_false = np.empty(n_moves, dtype=np.int64)
    sorted_true = np.empty(n_moves, dtype=np.int64)
    sorted_class = np.empty(n_moves, dtype=np.int64)
    for s in range(n_states):
        m_new = sorted_start[position[s]]
        for m in range(move_start[s], move_start[s + 1]):
            sorted_false[m_new] = position[move_false[m]]
            sorted_true[m_new] = position[move_true[m]]
            sorted_class[m_new] = move_class[m]
            m_new += 1
    return sorted_rows, leaf_error, sorted_start, sorted_false, sorted_true, sorted_class


@njit(**JIT_OPTIONS)
def find_row(rows, row):
    """Index of ``row`` in ``rows`` (a linear scan), or -1."""
    for index in range(rows.shape[0]):
        if _same_row(rows[index], row):
            return index
    return -1


@njit(**JIT_OPTIONS)
def optimal_error_table(leaf_error, move_start, move_false, move_true, move_prob, t_max):
    """OPT(F, t) for every state F and t = 0..t_max by the DPs of section 7 (Eq. 4).

    States must be topologically ordered (both children of a move have a smaller index). Move
    ``m`` of state ``s`` (``move_start[s] <= m < move_start[s+1]``) splits on a literal that is true
    with probability ``move_prob[m]``; its children are ``move_true[m]`` and ``move_false[m]``:

        OPT(F, t) = min(OPT(F, t-1), min_{m, 0<=j<t} (1-π_m) OPT(F_false, j) + π_m OPT(F_true, t-1-j)),
        OPT(F, 0) = leaf_error[F].

    The ``OPT(F, t-1)`` term makes "at most t internal nodes" explicit.
    """
    n_states = leaf_error.shape[0]
    table = np.empty((n_states, t_max + 1))
    weighted_false = np.empty(t_max + 1)
    weighted_true = np.empty(t_max + 1)
    for s in range(n_states):
        table[s, 0] = leaf_error[s]
        for t in range(1, t_max + 1):
            table[s, t] = table[s, t - 1]
        for m in range(move_start[s], move_start[s + 1]):
            f = move_false[m]
            r = move_true[m]
            pi = move_prob[m]
            for j in range(t_max + 1):
                weighted_false[j] = (1.0 - pi) * table[f, j]
                weighted_true[j] = pi * table[r, j]
            for t in range(1, t_max + 1):
                best = table[s, t]
                for j in range(t):
                    value = weighted_false[j] + weighted_true[t - 1 - j]
                    if value < best:
                        best = value
                table[s, t] = best
        for t in range(1, t_max + 1):
            table[s, t] = min(table[s, t], table[s, t - 1])
    return table
