"""Shared pieces of the dyadic-decision-tree kernels (Scott & Nowak 2006): costs, bounds, cells.

Data arrive as a *grid*: ``grid[i, f]`` is the index, in ``0 .. 2**L - 1``, of the finest dyadic
interval of feature ``f`` that holds example ``i`` (``treebound.dyadic`` computes it from the
stored scaling). A dyadic cell is one dyadic interval per coordinate, each written as its *heap
index* ``h = 2**level + index`` (the whole interval is ``1``, its halves ``2h`` and ``2h + 1``).
Example ``i`` lies in the lower half ``A^{s,1} = {x^s < midpoint}`` (section II) of a cell whose
coordinate ``s`` is at level ``l`` exactly when bit ``L - l - 1`` of ``grid[i, s]`` is 0.
The searches take the grid transposed, ``columns[f, i] = grid[i, f]`` (C-contiguous), and read
``columns.T``: a one-feature grid is both C- and F-contiguous, and passed as ``grid`` it compiled
every search a second time, for C layout, next to the F layout of wider grids.

Objective, Eq. (1): empirical risk ``errors / n`` plus a penalty summed over the leaves.

* ``PENALTY_SPATIALLY_ADAPTIVE``, Eq. (9) with ``p'_A`` of section III-C: a leaf of ``m``
  examples at depth ``j`` costs ``pen_a[j] * sqrt(max(m, pen_b[j]))``, where the caller sets
  ``pen_b[j] = [A] ln 2 + ln(1/δ)``, ``pen_a[j] = scale * sqrt(8 (pen_b[j] + ln 2)) / n`` and
  ``[A] = 2j + 1 + j log2 d`` (both grow with ``j``, which the bounds below rely on).
* ``PENALTY_PER_LEAF``: the constant ``per_leaf`` per leaf. The square-root penalty of
  Proposition 1 is not additive over leaves; ``treebound.dyadic._search`` minimises it by solving
  this additive problem for a sequence of ``per_leaf`` values.

A cell is a leaf of an optimal subtree when its leaf cost is at most :func:`split_lower_bound`,
a lower bound on the cost of *every* subtree with two or more leaves; this covers empty and pure
cells, which are therefore never expanded.
"""

from __future__ import annotations

import math

import numpy as np

from treebound._config import JIT_OPTIONS, njit
from treebound._kernels.array_copy import copy_prefix, copy_row

PENALTY_SPATIALLY_ADAPTIVE = 0
PENALTY_PER_LEAF = 1

#: Status codes returned by the solvers.
STATUS_OK = 0
STATUS_BUDGET_EXCEEDED = 1

#: Costs closer than this are ties (costs are risks plus penalties, numbers of order 1).
COST_TOLERANCE = 1e-12

#: Marks a free slot of the memo table (a real key is never 0: heap indices are >= 1).
EMPTY_KEY = np.uint64(0)


# ---------------------------------------------------------------------------- costs
@njit(**JIT_OPTIONS)
def majority_errors(counts):
    """Examples of a cell outside its majority class."""
    total = 0
    best = 0
    for k in range(counts.shape[0]):
        total += counts[k]
        if counts[k] > best:
            best = counts[k]
    return total - best


@njit(**JIT_OPTIONS)
def leaf_penalty(kind, n_cell, depth, pen_a, pen_b, per_leaf):
    """Penalty of one leaf holding ``n_cell`` examples at ``depth`` (Eq. (9), or a constant)."""
    if kind == PENALTY_PER_LEAF:
        return per_leaf
    return pen_a[depth] * math.sqrt(max(float(n_cell), pen_b[depth]))


@njit(**JIT_OPTIONS)
def leaf_cost(kind, counts, depth, pen_a, pen_b, per_leaf, inv_n):
    """Empirical risk plus penalty of a cell with class ``counts`` kept as a leaf."""
    n_cell = 0
    for k in range(counts.shape[0]):
        n_cell += counts[k]
    return (majority_errors(counts) * inv_n
            + leaf_penalty(kind, n_cell, depth, pen_a, pen_b, per_leaf))


@njit(**JIT_OPTIONS)
def split_lower_bound(kind, counts, depth, pen_a, pen_b, per_leaf, inv_n):
    """Lower bound on risk + penalty of any subtree with >= 2 leaves rooted at a depth-j cell.

    Two bounds, the larger is returned. Spatially adaptive penalty (``a = pen_a[j+1]``,
    ``c = pen_b[j+1]``; every leaf ``B`` lies at depth >= j + 1 and both arrays grow with depth,
    so ``B`` costs at least ``err_B / n + a sqrt(max(m_B, c))``):

    * ignoring errors, the ``max(m_B, c)`` are >= c and sum to at least ``S = max(m_A, 2c)``;
      ``sqrt`` is concave and subadditive, so the penalties sum to at least
      ``a (sqrt(c) + sqrt(S - c))``;
    * by class, with ``T_k`` the majority examples of the leaves whose majority is class k,
      the cost is at least ``sum_k (n_k - T_k) / n + a sqrt(max(T_k, c))`` (subadditivity
      again); each term is smallest at ``T_k = 0`` or ``T_k = n_k``, giving
      ``sum_k min(n_k / n, a sqrt(max(n_k, c)))``.

    Per-leaf penalty ``λ``: ``2 λ`` and, by the same grouping, ``sum_k min(n_k / n, λ)``.
    """
    n_cell = 0
    for k in range(counts.shape[0]):
        n_cell += counts[k]
    by_class = 0.0
    if kind == PENALTY_PER_LEAF:
        for k in range(counts.shape[0]):
            by_class += min(counts[k] * inv_n, per_leaf)
        return max(2.0 * per_leaf, by_class)
    a = pen_a[depth + 1]
    c = pen_b[depth + 1]
    total = max(float(n_cell), 2.0 * c)
    two_leaves = a * (math.sqrt(c) + math.sqrt(total - c))
    for k in range(counts.shape[0]):
        if counts[k] > 0:
            by_class += min(counts[k] * inv_n, a * math.sqrt(max(float(counts[k]), c)))
    return max(two_leaves, by_class)


# ------------------------------------------------------------------------ cell keys
@njit(**JIT_OPTIONS)
def key_layout(n_features, resolution):
    """(bits per coordinate, coordinates per 64-bit word, words per key) of a cell key."""
    bits = resolution + 1  # heap indices of levels 0..L are below 2**(L + 1)
    per_word = 64 // bits
    n_words = (n_features + per_word - 1) // per_word
    return bits, per_word, n_words


@njit(**JIT_OPTIONS)
def write_key(heap, bits, per_word, key):
    """Pack a cell's per-coordinate heap indices into ``key`` (never all-zero: ``heap >= 1``)."""
    key[:] = 0
    for f in range(heap.shape[0]):
        key[f // per_word] |= np.uint64(heap[f]) << np.uint64((f % per_word) * bits)


@njit(**JIT_OPTIONS)
def child_key(key, s, old_heap, new_heap, bits, per_word, out):
    """Key of the cell that differs from ``key`` only in coordinate ``s``."""
    copy_prefix(key, out, key.shape[0])
    shift = np.uint64((s % per_word) * bits)
    out[s // per_word] ^= (np.uint64(old_heap) << shift) ^ (np.uint64(new_heap) << shift)


@njit(**JIT_OPTIONS)
def heap_level(heap):
    """Level of a heap index (``1`` is level 0)."""
    level = 0
    while heap > 1:
        heap >>= 1
        level += 1
    return level


# ----------------------------------------------------------------------- hash table
@njit(**JIT_OPTIONS)
def _hash_key(key):
    h = np.uint64(0x9E3779B97F4A7C15)
    for w in range(key.shape[0]):
        h ^= key[w]
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return h


@njit(**JIT_OPTIONS)
def find_slot(keys, key):
    """Slot holding ``key``, or the empty slot where it belongs (linear probing)."""
    mask = np.uint64(keys.shape[0] - 1)
    slot = _hash_key(key) & mask
    n_words = key.shape[0]
    while True:
        if keys[slot, 0] == EMPTY_KEY:
            return np.int64(slot)
        same = True
        for w in range(n_words):
            if keys[slot, w] != key[w]:
                same = False
                break
        if same:
            return np.int64(slot)
        slot = (slot + np.uint64(1)) & mask


@njit(**JIT_OPTIONS)
def table_lookup(keys, key):
    """Slot of ``key``, ``-1`` when absent."""
    slot = find_slot(keys, key)
    if keys[slot, 0] == EMPTY_KEY:
        return np.int64(-1)
    return slot


@njit(**JIT_OPTIONS)
def new_table(capacity, n_words):
    """An empty table: ``keys``, ``values``, ``splits`` (``-1`` = leaf), ``exact`` flags."""
    size = 16
    while size < capacity:
        size *= 2
    return (np.zeros((size, n_words), dtype=np.uint64), np.empty(size, dtype=np.float64),
            np.empty(size, dtype=np.int32), np.empty(size, dtype=np.bool_))


@njit(**JIT_OPTIONS)
def grow_table(keys, values, splits, exact):
    """The same entries in a table of twice the size."""
    new_keys, new_values, new_splits, new_exact = new_table(2 * keys.shape[0], keys.shape[1])
    for old in range(keys.shape[0]):
        if keys[old, 0] != EMPTY_KEY:
            slot = find_slot(new_keys, keys[old])
            copy_row(keys, old, new_keys, slot)
            new_values[slot] = values[old]
            new_splits[slot] = splits[old]
            new_exact[slot] = exact[old]
    return new_keys, new_values, new_splits, new_exact


# ------------------------------------------------------------------- node arrays
@njit(**JIT_OPTIONS)
def new_nodes(capacity, n_classes):
    """Node arrays of an output tree: ``first_child``, ``feature``, ``boundary``, ``counts``,
    ``depth``. ``boundary[i]`` is the finest grid index ``m`` at node i's midpoint (the lower
    half holds ``grid < m``)."""
    first_child = np.full(capacity, -1, dtype=np.int64)
    feature = np.full(capacity, -1, dtype=np.int64)
    boundary = np.zeros(capacity, dtype=np.int64)
    counts = np.zeros((capacity, n_classes), dtype=np.int64)
    depth = np.zeros(capacity, dtype=np.int64)
    return first_child, feature, boundary, counts, depth


@njit(**JIT_OPTIONS)
def partition_by_bit(grid, order, lo, hi, s, shift, scratch):
    """Stable in-place partition of ``order[lo:hi]`` by bit ``shift`` of ``grid[:, s]``.

    Returns the start of the upper half.
    """
    n_lower = 0
    n_upper = 0
    for p in range(lo, hi):
        i = order[p]
        if (grid[i, s] >> shift) & 1 == 0:
            order[lo + n_lower] = i
            n_lower += 1
        else:
            scratch[n_upper] = i
            n_upper += 1
    for q in range(n_upper):
        order[lo + n_lower + q] = scratch[q]
    return lo + n_lower
