"""The memo tables of the partitioning-function bounds (:class:`PartitioningCache`).

Tables are keyed by canonical tree structure, so every tree and every pruning candidate that
contains a shape shares its table (Leboeuf, LeBlanc & Marchand 2020 compute the bound of
Theorem 9 recursively over subtrees).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from treebound._kernels.partitioning import log_stirling2_table
from treebound.theory._tables import log_merge_coefficients
from treebound.theory.combinatorics import stirling2

__all__ = ["PartitioningCache"]


class PartitioningCache:
    """Memo tables of partitioning-function bounds, keyed by (canonical) tree structure.

    One object serves any number of trees, numbers of features, variants and sizes: tables are
    stored per ``(kind, n_features)`` and grown when a later call needs more examples ``m`` or
    more parts ``c``. Every function of this module takes ``cache=None`` meaning "a fresh cache
    for this call only"; pass one explicitly to reuse work across calls (pruning, VC dimension,
    many candidate trees sharing subtrees). Not thread-safe.

    Parameters
    ----------
    max_bytes : int or None, default=2**30
        Memory budget of the stored tables, in bytes (a tight table of a shape costs about
        ``8 (C + 1) (M + 1)`` bytes). After each top-level call the least recently used entries
        beyond the budget are dropped, so long pruning runs that create many one-off candidate
        shapes stay bounded. ``None`` keeps everything.

    Attributes
    ----------
    nbytes : int
        Approximate memory held by the stored entries.

    Examples
    --------
    >>> from treebound.theory import TreeStructure, log_growth_function_upper_bound
    >>> cache = PartitioningCache()
    >>> t = TreeStructure.parse("((L,L),(L,L))")
    >>> log_tau = log_growth_function_upper_bound(t, n_examples=1000, n_features=5, n_classes=2,
    ...                                           cache=cache)
    >>> log_tau > 0, len(cache) > 0
    (True, True)
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
        """Drop every stored table (the budget ``max_bytes`` is kept).

        Returns
        -------
        None

        Examples
        --------
        >>> from treebound.theory import TreeStructure, log_partitioning_upper_bound
        >>> cache = PartitioningCache()
        >>> _ = log_partitioning_upper_bound(TreeStructure.parse("((L,L),L)"), n_parts=2,
        ...                                  n_examples=20, n_features=3, cache=cache)
        >>> len(cache) > 0
        True
        >>> cache.clear()
        >>> len(cache), cache.nbytes
        (0, 0)
        """
        self.__init__(self.max_bytes)

    def __len__(self) -> int:
        """Number of stored entries (tables or single values), over all settings."""
        return len(self._entries)

    @property
    def nbytes(self) -> int:
        """Approximate memory held by the stored entries."""
        return self._nbytes

    def _store(self, kind: str, n_features: int) -> _Store:
        """Dictionary-like view of the entries of one kind of value and one number of features."""
        return _Store(self, (kind, n_features))

    def trim(self) -> None:
        """Drop least recently used entries until :attr:`nbytes` fits ``max_bytes``.

        Every function of this module calls it when it returns; call it yourself after lowering
        ``max_bytes``.

        Returns
        -------
        None

        Examples
        --------
        >>> from treebound.theory import TreeStructure, log_growth_function_upper_bound
        >>> cache = PartitioningCache()
        >>> _ = log_growth_function_upper_bound(TreeStructure.full(3), n_examples=500, n_features=4,
        ...                                     n_classes=2, cache=cache)
        >>> cache.nbytes > 1000
        True
        >>> cache.max_bytes = 1000
        >>> cache.trim()
        >>> cache.nbytes <= 1000
        True
        """
        if self.max_bytes is None:
            return
        while self._nbytes > self.max_bytes and self._entries:
            _, (_, size) = self._entries.popitem(last=False)
            self._nbytes -= size

    def _log_stirling_upto(self, max_m: int, max_c: int) -> np.ndarray:
        """``log S(m, c)`` for ``m <= max_m``, ``c <= max_c`` (grown on demand)."""
        have = self._log_stirling
        if have.shape[0] <= max_c or have.shape[1] <= max_m:
            # Grow geometrically only along an axis that is too short: growing the rows must
            # not double m (repeated calls with more parts made m grow without end).
            width, rows = have.shape[1] - 1, have.shape[0] - 1
            size_m = width if max_m <= width else max(max_m, 2 * width)
            size_c = rows if max_c <= rows else max(max_c, min(2 * rows, size_m))
            self._log_stirling = _shared_log_stirling(size_m, size_c)
        return self._log_stirling

    def _log_coef_upto(self, max_c: int) -> np.ndarray:
        if self._log_coef.shape[0] <= max_c:
            self._log_coef = _shared_log_coef(max_c)
        return self._log_coef

    def _stirling_rows_upto(self, max_m: int, max_c: int) -> list[list[int]]:
        """Exact ``S(m, c)`` as ``rows[c][m]`` (grown on demand)."""
        rows = self._stirling_rows
        if len(rows) <= max_c or len(rows[0]) <= max_m:
            size_m = max(max_m, len(rows[0]) - 1)
            size_c = max(max_c, len(rows) - 1)
            self._stirling_rows = [[stirling2(m, c) for m in range(size_m + 1)]
                                   for c in range(size_c + 1)]
        return self._stirling_rows


#: Largest log Stirling table kept between caches (cells): every certificate with Theorem 9's
#: tables starts from a fresh cache and would otherwise rebuild the same table (~3 ms at 5,545
#: points and 9 parts). At most 8 MB held: the tables certificates use are ~50,000 cells.
SHARED_STIRLING_CELLS = 1_000_000
_shared = {"log_stirling": np.zeros((1, 1)), "log_coef": {}}


def _shared_log_stirling(size_m: int, size_c: int) -> np.ndarray:
    """``log_stirling2_table(size_m, size_c)``, copied from the largest one this process
    computed when that one covers it (a copy: callers and kernels get the plain contiguous
    array they always got). The same numbers to the bit: each entry is the same recursion from
    ``S(0, 0)`` whatever the table's size."""
    have = _shared["log_stirling"]
    if have.shape[0] > size_c and have.shape[1] > size_m:
        return have[: size_c + 1, : size_m + 1].copy()
    table = log_stirling2_table(size_m, size_c)
    if SHARED_STIRLING_CELLS >= table.size > have.size:
        _shared["log_stirling"] = table.copy()
    return table


def _shared_log_coef(max_c: int) -> np.ndarray:
    """``log_merge_coefficients(max_c)``, computed once a process for each ``max_c`` (a copy)."""
    tables = _shared["log_coef"]
    if max_c not in tables:
        tables[max_c] = log_merge_coefficients(max_c)
    return tables[max_c].copy()


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
    if isinstance(value, np.ndarray) or hasattr(value, "nbytes"):
        return int(value.nbytes)
    if value and isinstance(value[0], list):
        return 32 * sum(len(row) for row in value)
    return 32 * len(value)
