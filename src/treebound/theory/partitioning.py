"""Upper bounds on the partitioning functions and the growth function of tree structures.

Implements Theorem 9 / Algorithm 1 of Leboeuf, LeBlanc & Marchand (2020), "Decision trees as
partitioning machines to characterize their generalization properties", and the growth-function
bound of their Eq. (4). With ``T_l``, ``T_r`` the subtrees, ``L_T`` the number of leaves and
``S(m, c)`` the Stirling number of the second kind (the paper's ``C(m, c)`` in Theorem 9 and
Algorithm 1 is an OCR rendering of it):

* ``pi_T^c(m) = 0`` if ``c > m`` or ``c > L_T``; ``1`` if ``c = m`` or ``c = 1``;
  ``S(m, c)`` if ``m <= L_T``;
* otherwise ``pi_T^c(m) <= min(S(m, c), 2^{-[T_l = T_r]} N)`` with
  ``N = sum_{k=L_{T_l}}^{m-L_{T_r}} min(2 ell, C(m, k)) sum_{a,b} C(a, c-b) C(b, c-a) (a+b-c)!
  pi_{T_l}^a(k) pi_{T_r}^b(m-k)``.

Variants: ``"tight"`` is the formula above; ``"loose"`` replaces the sum over ``k`` by its number
of terms ``m - L_T + 1`` times ``2 ell`` times the inner sum at ``k = m - L_{T_r}`` and
``m - k = m - L_{T_l}`` (section 6.2, a valid bound, never below ``"tight"``);
``"loose_paper"`` multiplies by the printed ``m - L_T`` — what the paper's experiments used, kept
to reproduce them, and **not** a valid bound (it can fall below the true count).

Every value depends on the structure only, so results are memoized per structure in a
:class:`PartitioningCache`; pass the same cache to all calls (and all trees) that share
``n_features``. The bounds are invariant under swapping children, so the cache keys on the
canonical shape. Tight values are computed once per shape as a whole table over ``m``, in log
space (numba kernels plus tilted FFT convolutions, relative error below ``1e-9`` on the log),
or exactly in Python integers by :func:`partitioning_upper_bound`.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from functools import partial

import numpy as np

from treebound._options import VARIANTS as _VARIANTS
from treebound._validation import check_integer as _check_int
from treebound.theory import _costs, _tables
from treebound.theory.combinatorics import (
    falling_factorial,
    log_falling_factorial,
    logsumexp,
    stirling2,
)
from treebound.theory.structures import TreeStructure

__all__ = [
    "VARIANTS",
    "PartitioningCache",
    "growth_function_upper_bound",
    "log_growth_function_upper_bound",
    "log_partitioning_upper_bound",
    "partitioning_upper_bound",
    "stump_partitioning_upper_bound",
]

#: Accepted values of ``variant`` (defined with the other option names in ``treebound._options``).
VARIANTS = _VARIANTS


class PartitioningCache:
    """Memo tables of partitioning-function bounds, keyed by (canonical) tree structure.

    One object serves any number of trees, numbers of features, variants and sizes: tables are
    stored per ``(kind, n_features)`` and grown when a later call needs more examples ``m`` or
    more parts ``c``. Every function of this module takes ``cache=None`` meaning "a fresh cache
    for this call only"; pass one explicitly to reuse work across calls (pruning, VC dimension,
    many candidate trees sharing subtrees). Not thread-safe.

    Parameters
    ----------
    max_bytes : int or None
        Memory budget of the stored tables (a tight table of a shape costs about
        ``8 (C + 1) (M + 1)`` bytes). After each top-level call the least recently used entries
        beyond the budget are dropped, so long pruning runs that create many one-off candidate
        shapes stay bounded. ``None`` keeps everything. Default 1 GiB.

    Examples
    --------
    >>> cache = PartitioningCache()
    >>> t = TreeStructure.parse("((L,L),(L,L))")
    >>> round(log_growth_function_upper_bound(t, n_examples=1000, n_features=5, n_classes=2, cache=cache), 6) > 0
    True
    >>> len(cache) > 0
    True
    >>> cache.clear(); len(cache)
    0
    """

    def __init__(self, max_bytes: int | None = 2**30):
        if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, int)
                                      or max_bytes < 0):
            raise ValueError(f"max_bytes must be a non-negative integer or None, got {max_bytes!r}")
        self.max_bytes = max_bytes
        self._entries: OrderedDict = OrderedDict()  # (kind, n_features, key) -> (value, nbytes)
        self._nbytes = 0
        self._log_stirling = np.zeros((1, 1))
        self._log_coef = np.zeros((1, 1, 1))
        self._stirling_rows: list[list[int]] = [[1]]

    def clear(self) -> None:
        """Drop every stored table."""
        self.__init__(self.max_bytes)

    def __len__(self) -> int:
        """Number of stored entries (tables or single values), over all settings."""
        return len(self._entries)

    @property
    def nbytes(self) -> int:
        """Approximate memory held by the stored entries."""
        return self._nbytes

    def store(self, kind: str, n_features: int) -> _Store:
        """Dictionary-like view of the entries of one kind of value and one number of features."""
        return _Store(self, (kind, n_features))

    def trim(self) -> None:
        """Drop least recently used entries until :attr:`nbytes` fits ``max_bytes``."""
        if self.max_bytes is None:
            return
        while self._nbytes > self.max_bytes and self._entries:
            _, (_, size) = self._entries.popitem(last=False)
            self._nbytes -= size

    def log_stirling(self, max_m: int, max_c: int) -> np.ndarray:
        """``log S(m, c)`` for ``m <= max_m``, ``c <= max_c`` (grown on demand)."""
        have = self._log_stirling
        if have.shape[0] <= max_c or have.shape[1] <= max_m:
            from treebound._kernels.partitioning import log_stirling2_table

            size_m = max(max_m, have.shape[1] - 1, 2 * (have.shape[1] - 1))
            self._log_stirling = log_stirling2_table(size_m, max(max_c, have.shape[0] - 1))
        return self._log_stirling

    def log_coef(self, max_c: int) -> np.ndarray:
        if self._log_coef.shape[0] <= max_c:
            self._log_coef = _tables.log_merge_coefficients(max_c)
        return self._log_coef

    def stirling_rows(self, max_m: int, max_c: int) -> list[list[int]]:
        """Exact ``S(m, c)`` as ``rows[c][m]`` (grown on demand)."""
        rows = self._stirling_rows
        if len(rows) <= max_c or len(rows[0]) <= max_m:
            size_m = max(max_m, len(rows[0]) - 1)
            size_c = max(max_c, len(rows) - 1)
            self._stirling_rows = [[stirling2(m, c) for m in range(size_m + 1)]
                                   for c in range(size_c + 1)]
        return self._stirling_rows


class _Store:
    """Mapping view of one ``(kind, n_features)`` slice of a cache; reads refresh recency."""

    __slots__ = ("_cache", "_prefix")

    def __init__(self, cache, prefix):
        self._cache = cache
        self._prefix = prefix

    def get(self, key, default=None):
        entries = self._cache._entries
        full = (*self._prefix, key)
        item = entries.get(full)
        if item is None:
            return default
        entries.move_to_end(full)
        return item[0]

    def __getitem__(self, key):
        value = self.get(key, _MISSING)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def __contains__(self, key):
        return (*self._prefix, key) in self._cache._entries

    def discard(self, key) -> None:
        """Drop the entry of ``key`` if there is one."""
        cache = self._cache
        old = cache._entries.pop((*self._prefix, key), None)
        if old is not None:
            cache._nbytes -= old[1]

    def __setitem__(self, key, value):
        cache = self._cache
        full = (*self._prefix, key)
        old = cache._entries.pop(full, None)
        if old is not None:
            cache._nbytes -= old[1]
        size = _size_of(value)
        cache._entries[full] = (value, size)
        cache._nbytes += size


_MISSING = object()


def _size_of(value) -> int:
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if value and isinstance(value[0], list):
        return 32 * sum(len(row) for row in value)
    return 32 * len(value)


# ------------------------------------------------------------------------ validation


def _check_common(structure, n_examples, n_features, variant, cache):
    if not isinstance(structure, TreeStructure):
        raise TypeError(f"structure must be a TreeStructure, got {type(structure).__name__}")
    n_examples = _check_int(n_examples, "n_examples", 0)
    n_features = _check_int(n_features, "n_features", 1)
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}: expected one of {VARIANTS}")
    if cache is None:
        cache = PartitioningCache()
    elif not isinstance(cache, PartitioningCache):
        raise TypeError(f"cache must be a PartitioningCache, got {type(cache).__name__}")
    return structure.canonical(), n_examples, n_features, cache


def _missing_postorder(root, done):
    """Sub-structures of ``root`` not yet ``done``, children first; never enters done subtrees."""
    out, seen = [], set()
    stack = [(root, False)]
    while stack:
        t, expanded = stack.pop()
        if t in seen or done(t):
            continue
        if expanded or t.is_leaf:
            seen.add(t)
            out.append(t)
        else:
            stack.append((t, True))
            stack.append((t.right, False))
            stack.append((t.left, False))
    return out


# ------------------------------------------------------------------------ tight, log space
def ensure_log_tables(structure, n_parts_max, max_m, n_features, cache, method="auto"):
    """Make sure ``cache`` holds tight log tables of ``structure`` and all its subtrees.

    Each table covers ``c <= min(n_parts_max, L)`` and ``m <= max_m``. Returns the root's table.
    """
    store = cache.store("tight_log", n_features)

    def done(t):
        table = store.get(t)
        return table is not None and table.shape[0] > min(n_parts_max, t.n_leaves) and \
            table.shape[1] > max_m

    todo = _missing_postorder(structure, done)
    if todo:
        log_stirling = cache.log_stirling(max_m, n_parts_max)
        log_coef = cache.log_coef(n_parts_max)
        prefix_store = cache.store("tight_log_prefix", n_features)
    for t in todo:
        C = min(n_parts_max, t.n_leaves)
        if t.is_leaf:
            table = np.full((C + 1, max_m + 1), -np.inf)
            table[:, : min(1, max_m) + 1] = log_stirling[: C + 1, : min(1, max_m) + 1]
            table[1, 1:] = 0.0
        else:
            # A subtree is the child of many candidate shapes: its rows' prefix sums are kept.
            prefix_sums = (partial(_log_prefix_rows, t.left, store, prefix_store),
                           partial(_log_prefix_rows, t.right, store, prefix_store))
            table = _tables.log_node_table(
                t.n_leaves, t.left.n_leaves, t.right.n_leaves, t.left is t.right,
                store[t.left], store[t.right], C, max_m, n_features, log_stirling, log_coef,
                method, prefix_sums)
        store[t] = table
        prefix_store.discard(t)  # prefix sums of a replaced table are stale
    return store[structure]


def _log_prefix_rows(structure, store, prefix_store):
    """Memoized ``log_prefix_rows`` of the stored table of ``structure`` (dropped whenever that
    table is stored again)."""
    prefix = prefix_store.get(structure)
    if prefix is None:
        prefix = _tables.log_prefix_rows(store[structure], structure.n_leaves)
        prefix_store[structure] = prefix
    return prefix


def _tight_log_values(structure, n_parts_max, m, n_features, cache, clip=True):
    """``log pi^c(m)`` for ``c = 0..C`` at one ``m`` (root evaluated without building its table).

    With ``clip=False`` returns the unclipped, halved sums ``log 2^{-[l=r]} N_c(m)`` for
    ``m > L`` (used by the VC-dimension search).
    """
    L = structure.n_leaves
    C = min(n_parts_max, L)
    store = cache.store("tight_log", n_features)
    table = store.get(structure)
    if clip and table is not None and table.shape[0] > C and table.shape[1] > m:
        return table[: C + 1, m].copy()
    log_stirling = cache.log_stirling(m, C)
    if structure.is_leaf or m <= L:
        return log_stirling[: C + 1, m].copy()
    left, right = structure.left, structure.right
    ensure_log_tables(left, C, m - 1, n_features, cache)
    ensure_log_tables(right, C, m - 1, n_features, cache)
    log_coef = cache.log_coef(C)
    sums = _tables.node_sums_direct(
        store[left], store[right], left.n_leaves, right.n_leaves, math.log(2 * n_features),
        m, m, True, log_coef, C)[:, 0]
    if left is right:
        sums = sums - _tables.LOG2
    out = log_stirling[: C + 1, m].copy()
    out[1] = 0.0
    if clip:
        out[2:] = np.minimum(sums[2:], log_stirling[2 : C + 1, m])
    else:
        out[2:] = sums[2:]
    return out


# ------------------------------------------------------------------------ tight, exact
def _ensure_exact_tables(structure, n_parts_max, max_m, n_features, cache):
    store = cache.store("tight_exact", n_features)

    def done(t):
        rows = store.get(t)
        return rows is not None and len(rows) > min(n_parts_max, t.n_leaves) and \
            len(rows[0]) > max_m

    todo = _missing_postorder(structure, done)
    if todo:
        stirling = cache.stirling_rows(max_m, n_parts_max)
    for t in todo:
        C = min(n_parts_max, t.n_leaves)
        if t.is_leaf:
            store[t] = [[stirling[c][m] if m <= 1 else int(c == 1) for m in range(max_m + 1)]
                        for c in range(C + 1)]
        else:
            store[t] = _tables.exact_node_table(
                t.n_leaves, t.left.n_leaves, t.right.n_leaves, t.left is t.right,
                store[t.left], store[t.right], C, max_m, n_features, stirling)
    return store[structure]


def _tight_exact_values(structure, n_parts_max, m, n_features, cache):
    rows = _ensure_exact_tables(structure, n_parts_max, m, n_features, cache)
    return [rows[c][m] for c in range(min(n_parts_max, structure.n_leaves) + 1)]


# ------------------------------------------------------------------------ loose
def _loose_values(structure, n_parts_max, m, n_features, cache, paper, log_space):
    """Loose bound values at one ``m`` for ``c <= min(C, L)``; iterative over the structure."""
    kind = ("loose_paper" if paper else "loose") + ("_log" if log_space else "_exact")
    store = cache.store(kind, n_features)
    stirling_cache = {}

    def stirling_values(mm, C):
        key = (mm, C)
        if key not in stirling_cache:
            if log_space:
                stirling_cache[key] = list(cache.log_stirling(mm, C)[: C + 1, mm])
            else:
                stirling_cache[key] = [stirling2(mm, c) for c in range(C + 1)]
        return stirling_cache[key]

    def base(t, mm, C):
        if mm <= t.n_leaves:
            return stirling_values(mm, C)
        if t.is_leaf:  # pi^1(m) = 1, pi^0(m) = 0 for m >= 1
            return [-math.inf, 0.0] if log_space else [0, 1]
        return None

    root_key = (structure, m, n_parts_max)
    stack = [(structure, m, False)]
    while stack:
        t, mm, expanded = stack.pop()
        C = min(n_parts_max, t.n_leaves)
        key = (t, mm, n_parts_max)
        if key in store:
            continue
        values = base(t, mm, C)
        if values is not None:
            store[key] = values
            continue
        lkey = (t.left, mm - t.right.n_leaves, n_parts_max)
        rkey = (t.right, mm - t.left.n_leaves, n_parts_max)
        if not expanded:
            stack.append((t, mm, True))
            stack.append((t.right, mm - t.left.n_leaves, False))
            stack.append((t.left, mm - t.right.n_leaves, False))
            continue
        values = _tables.loose_node_values(
            t.n_leaves, t.left is t.right, mm, store[lkey], store[rkey], C, n_features,
            stirling_values(mm, C), paper, log_space)
        values[0] = -math.inf if log_space else 0
        values[1] = 0.0 if log_space else 1
        store[key] = values
    return store[root_key]


# ------------------------------------------------------------------------ public API
def _check_cost(structure, n_parts_max, m, n_features, variant, cache, log_space, what):
    """Refuse before any work when the tables would exceed the resource limits."""
    what = f"{what} ({structure.n_leaves} leaves, m={m}, {variant})"
    if variant == "tight":
        if log_space:
            return _costs.check_tight_log(structure, n_parts_max, m, n_features, cache, what)
        return _costs.check_exact(structure, n_parts_max, m, what)
    return _costs.check_loose(structure, n_parts_max, m, log_space, what)


def _values(structure, n_parts_max, m, n_features, variant, cache, log_space, what):
    _check_cost(structure, n_parts_max, m, n_features, variant, cache, log_space, what)
    try:
        if variant == "tight":
            if log_space:
                return list(_tight_log_values(structure, n_parts_max, m, n_features, cache))
            return _tight_exact_values(structure, n_parts_max, m, n_features, cache)
        return _loose_values(structure, n_parts_max, m, n_features, cache,
                             paper=(variant == "loose_paper"), log_space=log_space)
    finally:
        # Evict only between calls, never while a computation still reads children's tables.
        cache.trim()


def partitioning_upper_bound(structure, *, n_parts, n_examples, n_features, variant="tight",
                             cache=None) -> int:
    """Upper bound on ``pi_T^c(m)`` as an exact integer (Theorem 9 / Algorithm 1).

    Parameters
    ----------
    structure : TreeStructure
    n_parts : int
        ``c >= 1``, the number of parts.
    n_examples : int
        ``m >= 0``.
    n_features : int
        ``ell >= 1`` real-valued features.
    variant : {"tight", "loose", "loose_paper"}
        See the module docstring; ``"loose_paper"`` is not a valid bound.
    cache : PartitioningCache, optional
        Memo tables to reuse; a fresh one is used when omitted.

    Notes
    -----
    Exact big-integer arithmetic: the tight variant costs ``O(m^2)`` integer operations per
    distinct subtree shape, so use :func:`log_partitioning_upper_bound` beyond a few hundred
    examples.

    Examples
    --------
    >>> stump = TreeStructure.stump()
    >>> partitioning_upper_bound(stump, n_parts=2, n_examples=6, n_features=10), 2**5 - 1
    (31, 31)
    >>> partitioning_upper_bound(TreeStructure.parse("((L,L),L)"), n_parts=2, n_examples=16, n_features=10) == 2**15 - 1
    True
    """
    structure, m, ell, cache = _check_common(structure, n_examples, n_features, variant, cache)
    c = _check_int(n_parts, "n_parts", 1)
    if c > m or c > structure.n_leaves:
        return 0
    return int(_values(structure, c, m, ell, variant, cache, log_space=False,
                         what="partitioning_upper_bound")[c])


def log_partitioning_upper_bound(structure, *, n_parts, n_examples, n_features, variant="tight",
                                 cache=None) -> float:
    """Natural log of :func:`partitioning_upper_bound`, computed in log space (``-inf`` for 0).

    Examples
    --------
    >>> t = TreeStructure.parse("((L,L),(L,L))")
    >>> x = log_partitioning_upper_bound(t, n_parts=2, n_examples=50, n_features=3)
    >>> abs(x - math.log(partitioning_upper_bound(t, n_parts=2, n_examples=50, n_features=3))) < 1e-9 * x
    True
    """
    structure, m, ell, cache = _check_common(structure, n_examples, n_features, variant, cache)
    c = _check_int(n_parts, "n_parts", 1)
    if c > m or c > structure.n_leaves:
        return -math.inf
    return float(_values(structure, c, m, ell, variant, cache, log_space=True,
                         what="log_partitioning_upper_bound")[c])


def _check_classes(n_classes):
    return _check_int(n_classes, "n_classes", 1)


def growth_function_upper_bound(structure, *, n_examples, n_features, n_classes, variant="tight",
                                cache=None) -> int:
    """Upper bound on the growth function ``tau_T(m)`` as an exact integer (Eq. 4).

    ``tau_T(m) <= sum_{a=1}^{min(n, L_T, m)} (n)_a pi_T^a(m)`` with ``(n)_a`` the falling
    factorial; for ``m = 0`` the growth function is 1 (the empty restriction).

    Examples
    --------
    >>> stump = TreeStructure.stump()
    >>> growth_function_upper_bound(stump, n_examples=1, n_features=10, n_classes=3), growth_function_upper_bound(stump, n_examples=2, n_features=10, n_classes=3)
    (3, 9)
    """
    structure, m, ell, cache = _check_common(structure, n_examples, n_features, variant, cache)
    n = _check_classes(n_classes)
    if m == 0:
        return 1
    top = min(n, structure.n_leaves, m)
    values = _values(structure, top, m, ell, variant, cache, log_space=False,
                     what="growth_function_upper_bound")
    return sum(falling_factorial(n, a) * int(values[a]) for a in range(1, top + 1))


def log_growth_function_upper_bound(structure, *, n_examples, n_features, n_classes,
                                    variant="tight", cache=None) -> float:
    """Natural log of :func:`growth_function_upper_bound`, in log space (Eq. 4).

    This is the quantity bound-based pruning needs at ``m = 2 * n_train`` (Eq. 8 uses
    ``tau(2m)``). Pass one :class:`PartitioningCache` for all candidate trees: only the
    subtree shapes not seen before are computed, and the root itself is evaluated at the single
    ``m`` asked (``O(m)``), not tabulated.

    Examples
    --------
    >>> t = TreeStructure.parse("((L,L),L)")
    >>> x = log_growth_function_upper_bound(t, n_examples=40, n_features=4, n_classes=3)
    >>> abs(x - math.log(growth_function_upper_bound(t, n_examples=40, n_features=4, n_classes=3))) < 1e-9 * x
    True
    """
    structure, m, ell, cache = _check_common(structure, n_examples, n_features, variant, cache)
    n = _check_classes(n_classes)
    if m == 0:
        return 0.0
    top = min(n, structure.n_leaves, m)
    values = _values(structure, top, m, ell, variant, cache, log_space=True,
                     what="log_growth_function_upper_bound")
    return logsumexp([log_falling_factorial(n, a) + values[a] for a in range(1, top + 1)])


def stump_partitioning_upper_bound(n_examples, *, n_features) -> int:
    """Theorem 7: ``pi^2(m) <= (1/2) sum_{k=1}^{m-1} min(2 ell, C(m, k))`` for decision stumps.

    An equality for ``2 ell <= m``, for ``2 ell >= C(m, floor(m/2))`` and for ``m <= 7``.

    Examples
    --------
    >>> stump_partitioning_upper_bound(6, n_features=10), stump_partitioning_upper_bound(100, n_features=3)
    (31, 297)
    """
    m = _check_int(n_examples, "n_examples", 0)
    ell = _check_int(n_features, "n_features", 1)
    # C(m, k) grows with k up to m / 2 and is symmetric, so the terms are C(m, k) for k below
    # the first k* with C(m, k*) >= 2 ell (and mirrored above m - k*), 2 ell in between: only
    # k* = O(log ell) binomials are needed, whatever m.
    if m < 2:
        return 0
    below = 0  # sum of C(m, k) for 1 <= k < k*
    comb = 1
    k = 1
    while 2 * k <= m:
        comb = comb * (m - k + 1) // k
        if comb >= 2 * ell:
            return (2 * below + 2 * ell * (m - 2 * k + 1)) // 2
        below += comb
        k += 1
    return (2**m - 2) // 2  # every term is C(m, k) < 2 ell
