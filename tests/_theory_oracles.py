"""Oracles of Theorem 9's tables and of the loose bound: the same recursions by plain routes.

The production builder picks a route per range of ``m`` (:mod:`treebound.theory._regimes`);
these helpers force one route everywhere by moving its threshold: direct sums on every range
(the naive oracle of the FFT, subtraction and falling-factorial routes), or the fast routes
even on ranges too short to need them (so small inputs, where exact integers still run, check
them).
"""

from __future__ import annotations

import contextlib
import math

from treebound.theory import PartitioningCache, TreeStructure, _regimes
from treebound.theory.combinatorics import log_falling_factorial, logsumexp
from treebound.theory.partitioning import ensure_log_tables


@contextlib.contextmanager
def forced_route(route: str):
    """Inside the block every range is summed directly (``"direct"``) or by FFTs and
    subtraction whatever its length (``"fft"``)."""
    if route not in ("direct", "fft"):
        raise ValueError(route)
    saved = _regimes.FFT_MIN_OUTPUTS
    _regimes.FFT_MIN_OUTPUTS = math.inf if route == "direct" else 0
    try:
        yield
    finally:
        _regimes.FFT_MIN_OUTPUTS = saved


def log_tables(structure, n_parts, max_m, n_features, route, cache=None):
    """:func:`ensure_log_tables` of ``structure`` with ``route`` forced (a fresh cache unless
    one is given)."""
    with forced_route(route):
        return ensure_log_tables(structure, n_parts, max_m, n_features,
                                 PartitioningCache() if cache is None else cache)


def loose_log_values(structure, n_parts, m, n_features, paper=False, cache=None):
    """``ln pi^c(m)`` of the loose bound (Leboeuf et al. 2020, end of section 6.2), ``c <=
    min(n_parts, L)``, by the plain recursion over the structure in Python: the oracle of the
    kernels (:mod:`treebound.theory._loose`). Children at ``m - L_sibling``; the sum over ``k``
    replaced by its ``m - L + 1`` terms (``m - L`` with ``paper``) times ``2 ell`` times the
    inner sum; halved for identical children; clipped by ``S(m, c)``."""
    cache = PartitioningCache() if cache is None else cache
    structure = structure.canonical()
    log_coef = cache._log_coef_upto(n_parts)

    def values(t, mm):
        C = min(n_parts, t.n_leaves)
        if mm <= t.n_leaves:
            return list(cache._log_stirling_upto(mm, C)[: C + 1, mm])
        if t.is_leaf:
            return [-math.inf, 0.0]
        left = values(t.left, mm - t.right.n_leaves)
        right = values(t.right, mm - t.left.n_leaves)
        stirling = cache._log_stirling_upto(mm, C)[: C + 1, mm]
        count = mm - t.n_leaves if paper else mm - t.n_leaves + 1
        out = [-math.inf, 0.0] + [None] * (C - 1)
        for c in range(2, C + 1):
            logs = [log_coef[a, b, c] + left[a] + right[b]
                    for a in range(1, min(c, len(left) - 1) + 1)
                    for b in range(max(1, c - a), min(c, len(right) - 1) + 1)]
            finite = [x for x in logs if x != -math.inf]
            if finite:
                top = max(finite)
                inner = top + math.log(sum(math.exp(x - top) for x in finite))
            else:
                inner = -math.inf
            value = inner + math.log(2 * n_features) + (math.log(count) if count > 0
                                                        else -math.inf)
            if t.left is t.right:
                value -= math.log(2.0)
            out[c] = min(value, stirling[c])
        return out

    return values(structure, m)


def loose_log_growth(structure, m, n_features, n_classes, paper=False):
    """``ln tau(m)`` of the loose bound (Eq. 4 over :func:`loose_log_values`)."""
    if m == 0:
        return 0.0
    top = min(n_classes, structure.n_leaves, m)
    row = loose_log_values(structure, top, m, n_features, paper)
    return logsumexp([log_falling_factorial(n_classes, a) + row[a] for a in range(1, top + 1)])


def random_shape(n_leaves, rng):
    """A binary shape of ``n_leaves`` leaves, each split point drawn uniformly."""
    if n_leaves == 1:
        return TreeStructure.leaf()
    k = int(rng.integers(1, n_leaves))
    return TreeStructure.node(random_shape(k, rng), random_shape(n_leaves - k, rng))


def random_pruning(shape, rng, p):
    """``shape`` with each internal node turned into a leaf with probability ``p``."""
    if shape.is_leaf or rng.random() < p:
        return TreeStructure.leaf()
    return TreeStructure.node(random_pruning(shape.left, rng, p),
                              random_pruning(shape.right, rng, p))
