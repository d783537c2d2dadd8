"""Oracles of the Theorem 9 tables: the same recursion by the plain routes.

The production builder picks a route per range of ``m`` (:mod:`treebound.theory._regimes`);
these helpers force one route everywhere by moving its threshold: direct sums on every range
(the naive oracle of the FFT, subtraction and falling-factorial routes), or the fast routes
even on ranges too short to need them (so small inputs, where exact integers still run, check
them).
"""

from __future__ import annotations

import contextlib
import math

from treebound.theory import PartitioningCache, _regimes
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
