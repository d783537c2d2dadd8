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
from functools import partial

import numpy as np

from treebound._options import VARIANTS as _VARIANTS
from treebound._validation import check_integer as _check_int
from treebound.theory import _costs, _tables, _tails
from treebound.theory._cache import PartitioningCache
from treebound.theory._loose import loose_log_values
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


# ------------------------------------------------------------------------ tight, log space
def ensure_log_tables(structure, n_parts_max, max_m, n_features, cache):
    """Make sure ``cache`` holds tight log tables of ``structure`` and all its subtrees.

    Each table covers ``c <= min(n_parts_max, L)`` and ``m <= max_m``. Returns the root's table.
    """
    store = cache._store("tight_log", n_features)

    def done(t):
        table = store.get(t)
        return table is not None and table.shape[0] > min(n_parts_max, t.n_leaves) and \
            table.shape[1] > max_m

    todo = structure._postorder(done)
    if todo:
        log_stirling = cache._log_stirling_upto(max_m, n_parts_max)
        log_coef = cache._log_coef_upto(n_parts_max)
        prefix_store = cache._store("tight_log_prefix", n_features)
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
                prefix_sums)
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


def _tight_log_values(structure, n_parts_max, m, n_features, cache, clip=True, tails=True):
    """``log pi^c(m)`` for ``c = 0..C`` at one ``m`` (root evaluated without building its table).

    With ``clip=False`` returns the unclipped, halved sums ``log 2^{-[l=r]} N_c(m)`` for
    ``m > L`` (used by the VC-dimension search). With ``tails`` (and ``clip``), from the
    subtrees' polynomial tails where they reach ``m`` (:mod:`._tails`: no table beyond their
    anchors); ``tails=False`` builds the children's tables up to ``m - 1`` (the tests' oracle).
    """
    L = structure.n_leaves
    C = min(n_parts_max, L)
    store = cache._store("tight_log", n_features)
    table = store.get(structure)
    if clip and table is not None and table.shape[0] > C and table.shape[1] > m:
        return table[: C + 1, m].copy()
    if structure.is_leaf or m <= L:
        return cache._log_stirling_upto(m, C)[: C + 1, m].copy()
    if clip and tails:
        values = _tails.tail_root_values(structure, C, m, n_features, cache)
        if values is not None:
            return values
    log_stirling = cache._log_stirling_upto(m, C)
    left, right = structure.left, structure.right
    ensure_log_tables(left, C, m - 1, n_features, cache)
    ensure_log_tables(right, C, m - 1, n_features, cache)
    log_coef = cache._log_coef_upto(C)
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
    store = cache._store("tight_exact", n_features)

    def done(t):
        rows = store.get(t)
        return rows is not None and len(rows) > min(n_parts_max, t.n_leaves) and \
            len(rows[0]) > max_m

    todo = structure._postorder(done)
    if todo:
        stirling = cache._stirling_rows_upto(max_m, n_parts_max)
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
def _loose_exact_values(structure, n_parts_max, m, n_features, cache, paper):
    """Loose bound values at one ``m`` for ``c <= min(C, L)``, exact integers; iterative over the
    structure (the log-space values: :func:`treebound.theory._loose.loose_log_values`)."""
    store = cache._store("loose_paper_exact" if paper else "loose_exact", n_features)
    stirling_cache = {}

    def stirling_values(mm, C):
        key = (mm, C)
        if key not in stirling_cache:
            stirling_cache[key] = [stirling2(mm, c) for c in range(C + 1)]
        return stirling_cache[key]

    def base(t, mm, C):
        if mm <= t.n_leaves:
            return stirling_values(mm, C)
        if t.is_leaf:  # pi^1(m) = 1, pi^0(m) = 0 for m >= 1
            return [0, 1]
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
            stirling_values(mm, C), paper)
        values[0] = 0
        values[1] = 1
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


def _tail_values(structure, n_parts_max, m, n_features, cache, what):
    """The root's values from the polynomial tails when their starts reach ``m`` (priced by
    their own cost, not the tables'); ``None`` otherwise."""
    if structure.is_leaf or m <= structure.n_leaves or m > _tails.MAX_POINTS:
        return None
    starts = _tails.tail_starts(structure, n_features)
    if starts[structure] > m:
        return None
    _costs.check_tail_route(starts, min(n_parts_max, structure.n_leaves),
                            f"{what} ({structure.n_leaves} leaves, m={m}, tight)")
    try:
        return _tails.tail_root_values(structure, min(n_parts_max, structure.n_leaves), m,
                                       n_features, cache)
    finally:
        cache.trim()


def _values(structure, n_parts_max, m, n_features, variant, cache, log_space, what):
    if variant == "tight" and log_space:
        values = _tail_values(structure, n_parts_max, m, n_features, cache, what)
        if values is not None:
            return list(values)
    _check_cost(structure, n_parts_max, m, n_features, variant, cache, log_space, what)
    try:
        if variant == "tight":
            if log_space:
                return list(_tight_log_values(structure, n_parts_max, m, n_features, cache,
                                              tails=False))
            return _tight_exact_values(structure, n_parts_max, m, n_features, cache)
        paper = variant == "loose_paper"
        if log_space:
            return loose_log_values(structure, n_parts_max, m, n_features, paper, cache)
        return _loose_exact_values(structure, n_parts_max, m, n_features, cache, paper)
    finally:
        # Evict only between calls, never while a computation still reads children's tables.
        cache.trim()


def partitioning_upper_bound(structure, *, n_parts, n_examples, n_features, variant="tight",
                             cache=None) -> int:
    """Upper bound on the partitioning function ``pi_T^c(m)``, as an exact integer.

    Theorem 9 / Algorithm 1 of Leboeuf, LeBlanc & Marchand (2020): ``pi_T^c(m)`` is the largest
    number of distinct ``c``-partitions that trees of structure ``T`` on ``ell`` real-valued
    features can realize on ``m`` points. A structure with ``L`` leaves shatters ``m`` points
    (in the 2-partition sense of Eq. 5) when ``pi_T^2(m) = 2^(m-1) - 1``.

    Parameters
    ----------
    structure : TreeStructure
        The tree shape ``T`` (the bound depends on nothing else; children may be swapped).
    n_parts : int
        ``c >= 1``, the number of (non-empty) parts.
    n_examples : int
        ``m >= 0``, the number of points.
    n_features : int
        ``ell >= 1`` real-valued features.
    variant : {"tight", "loose", "loose_paper"}, default="tight"
        See the module docstring; ``"loose_paper"`` reproduces the paper's experiments and is not
        a valid bound.
    cache : PartitioningCache, optional
        Memo tables to reuse; a fresh one is used when omitted.

    Returns
    -------
    int
        The bound (0 when ``c > m`` or ``c > L``), an exact Python integer.

    Notes
    -----
    Exact big-integer arithmetic: the tight variant costs ``O(m^2)`` integer operations per
    distinct subtree shape, so use :func:`log_partitioning_upper_bound` beyond a few hundred
    examples.

    Examples
    --------
    A stump on 10 features realizes every 2-partition of 6 points (Theorem 7):

    >>> stump = TreeStructure.stump()
    >>> partitioning_upper_bound(stump, n_parts=2, n_examples=6, n_features=10), 2**5 - 1
    (31, 31)
    >>> t = TreeStructure.parse("((L,L),L)")
    >>> partitioning_upper_bound(t, n_parts=2, n_examples=16, n_features=10) == 2**15 - 1
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
    """Natural log of :func:`partitioning_upper_bound`, computed in log space.

    Theorem 9 / Algorithm 1 of Leboeuf et al. (2020) evaluated on logarithms (numba kernels and
    tilted FFT convolutions), so that sizes of many thousands of examples cost milliseconds; the
    relative error on the log is below ``1e-9``.

    Parameters
    ----------
    structure : TreeStructure
        The tree shape ``T``.
    n_parts : int
        ``c >= 1``, the number of parts.
    n_examples : int
        ``m >= 0``, the number of points.
    n_features : int
        ``ell >= 1`` real-valued features.
    variant : {"tight", "loose", "loose_paper"}, default="tight"
        See the module docstring.
    cache : PartitioningCache, optional
        Memo tables to reuse; a fresh one is used when omitted.

    Returns
    -------
    float
        ``ln pi_T^c(m)`` (upper bound); ``-inf`` when the bound is 0.

    Examples
    --------
    >>> t = TreeStructure.parse("((L,L),(L,L))")
    >>> x = log_partitioning_upper_bound(t, n_parts=2, n_examples=50, n_features=3)
    >>> exact = partitioning_upper_bound(t, n_parts=2, n_examples=50, n_features=3)
    >>> abs(x - math.log(exact)) < 1e-9 * x
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
    """Upper bound on the growth function ``tau_T(m)`` of a tree structure, as an exact integer.

    Eq. (4) of Leboeuf et al. (2020): ``tau_T(m) <= sum_{a=1}^{min(n, L_T, m)} (n)_a pi_T^a(m)``
    with ``(n)_a`` the falling factorial and ``pi_T^a`` the partitioning-function bound of
    Theorem 9. ``tau_T(m)`` is the number of distinct labelings of ``m`` points by the trees of
    structure ``T`` with ``n`` classes; for ``m = 0`` it is 1 (the empty restriction).

    Parameters
    ----------
    structure : TreeStructure
        The tree shape ``T``.
    n_examples : int
        ``m >= 0``, the number of points.
    n_features : int
        ``ell >= 1`` real-valued features.
    n_classes : int
        ``n >= 1`` class labels.
    variant : {"tight", "loose", "loose_paper"}, default="tight"
        Which partitioning bound to sum (see the module docstring).
    cache : PartitioningCache, optional
        Memo tables to reuse; a fresh one is used when omitted.

    Returns
    -------
    int
        The bound, an exact Python integer (thousands of digits for real sizes: use
        :func:`log_growth_function_upper_bound` there).

    Examples
    --------
    >>> stump = TreeStructure.stump()
    >>> growth_function_upper_bound(stump, n_examples=1, n_features=10, n_classes=3)
    3
    >>> growth_function_upper_bound(stump, n_examples=2, n_features=10, n_classes=3)  # 3 + 3 * 2
    9
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
    """Natural log of :func:`growth_function_upper_bound`, computed in log space (Eq. 4).

    This is the quantity bound-based pruning needs at ``m = 2 * n_train`` (Eq. 8 of Leboeuf et
    al. 2020 uses ``tau(2m)``, see :func:`~treebound.theory.shawe_taylor_bound`). Pass one
    :class:`PartitioningCache` for all candidate trees: only the subtree shapes not seen before
    are computed, and the root itself is evaluated at the single ``m`` asked (``O(m)``), not
    tabulated.

    Parameters
    ----------
    structure : TreeStructure
        The tree shape ``T``.
    n_examples : int
        ``m >= 0``, the number of points.
    n_features : int
        ``ell >= 1`` real-valued features.
    n_classes : int
        ``n >= 1`` class labels.
    variant : {"tight", "loose", "loose_paper"}, default="tight"
        Which partitioning bound to sum (see the module docstring).
    cache : PartitioningCache, optional
        Memo tables to reuse; a fresh one is used when omitted.

    Returns
    -------
    float
        ``ln tau_T(m)`` (upper bound), ``>= 0``; relative error below ``1e-9``.

    Raises
    ------
    treebound.ResourceLimitError
        When the tables would need more memory or time than the current
        :func:`treebound.resource_limits`.

    Examples
    --------
    >>> t = TreeStructure.parse("((L,L),L)")
    >>> x = log_growth_function_upper_bound(t, n_examples=40, n_features=4, n_classes=3)
    >>> exact = growth_function_upper_bound(t, n_examples=40, n_features=4, n_classes=3)
    >>> abs(x - math.log(exact)) < 1e-9 * x
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
    """Theorem 7 of Leboeuf et al. (2020): the 2-partitions decision stumps realize on ``m`` points.

    ``pi^2(m) <= (1/2) sum_{k=1}^{m-1} min(2 ell, C(m, k))`` for stumps on ``ell`` real-valued
    features; an equality for ``2 ell <= m``, for ``2 ell >= C(m, floor(m/2))`` and for
    ``m <= 7`` (appendix A.4). Only ``O(log ell)`` binomials are computed, whatever ``m``.

    Parameters
    ----------
    n_examples : int
        ``m >= 0``, the number of points.
    n_features : int
        ``ell >= 1`` real-valued features.

    Returns
    -------
    int
        The bound, an exact Python integer (0 for ``m < 2``).

    Examples
    --------
    >>> stump_partitioning_upper_bound(6, n_features=10)  # every 2-partition: 2**5 - 1
    31
    >>> stump_partitioning_upper_bound(100, n_features=3)  # 2 ell <= m: ell (m - 1)
    297
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
