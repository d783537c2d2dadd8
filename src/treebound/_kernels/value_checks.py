"""One pass over a float matrix for what its checks ask: NaN present, an infinite value, a
finite value beyond a limit (float32's largest, which scikit-learn's trees refuse).

numpy's checks (``np.isnan(X).any()``, ``np.abs(X) > limit``, ``np.isfinite(X.sum())``) each
pass over ``X`` and allocate a temporary as large as it; on the rows of a ``predict`` they cost
as much as routing the rows through a tree.
"""

from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_JIT_OPTIONS, njit

#: flags of :func:`value_flags`
HAS_NAN = 1
HAS_INFINITE = 2
HAS_BEYOND_LIMIT = 4


@njit(**NO_NRT_JIT_OPTIONS)
def value_flags(X, columns, limit):
    """Bit flags of the values of the columns ``columns`` (int64 indices, or all columns when
    empty) of the 2-D float64 ``X``: :data:`HAS_NAN`, :data:`HAS_INFINITE` (the scan stops at
    the first) and :data:`HAS_BEYOND_LIMIT` (a finite value of magnitude above ``limit``)."""
    n, d = X.shape
    largest = 0.0
    nan = False
    if columns.shape[0] == 0:
        for i in range(n):
            row_largest = 0.0
            for j in range(d):
                x = X[i, j]
                a = abs(x)
                # NaN compares false: it leaves the maximum alone and is counted here
                row_largest = a if a > row_largest else row_largest
                nan |= x != x
            if row_largest == np.inf:
                return HAS_INFINITE | (HAS_NAN if nan else 0)
            largest = row_largest if row_largest > largest else largest
    else:
        for i in range(n):
            row_largest = 0.0
            for c in range(columns.shape[0]):
                x = X[i, columns[c]]
                a = abs(x)
                row_largest = a if a > row_largest else row_largest
                nan |= x != x
            if row_largest == np.inf:
                return HAS_INFINITE | (HAS_NAN if nan else 0)
            largest = row_largest if row_largest > largest else largest
    flags = HAS_NAN if nan else 0
    if largest > limit:
        flags |= HAS_BEYOND_LIMIT
    return flags


@njit(**NO_NRT_JIT_OPTIONS)
def has_nan(X):
    """Whether the 2-D float64 ``X`` holds a NaN (stops at the first)."""
    n, d = X.shape
    for i in range(n):
        found = False
        for j in range(d):
            found |= X[i, j] != X[i, j]
        if found:
            return True
    return False


@njit(**NO_NRT_JIT_OPTIONS)
def range_flags(lo, hi, nan, limit):
    """The :func:`value_flags` (all columns) of a matrix from its columns' ranges (``lo`` /
    ``hi``: smallest and largest value with NaN left out, ``inf`` / ``-inf`` for a column of NaN
    only, as :func:`~treebound._kernels.coding_passes.column_ranges` gives them) and whether it
    holds a NaN, without a pass over the matrix. As with :func:`value_flags`, once a value is
    infinite :data:`HAS_BEYOND_LIMIT` says nothing of the finite ones (every caller refuses the
    infinite value first)."""
    flags = HAS_NAN if nan else 0
    for j in range(lo.shape[0]):
        low, high = lo[j], hi[j]
        if low > high:  # NaN only
            continue
        if low == -np.inf or high == np.inf:
            flags |= HAS_INFINITE
        elif -low > limit or high > limit:
            flags |= HAS_BEYOND_LIMIT
    return flags
