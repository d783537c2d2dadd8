"""Copies of array parts as plain loops, for the kernels that grow or duplicate arrays.

numba compiles a slice assignment from an array (``out[:n] = a``, ``b[i, :] = a[j, :]``) with a
shape check whose error message is formatted at run time: building it compiles numba's string
formatting (``str`` of integers, joins, f-strings), several seconds per process that compiles
such a kernel, and that part is not kept in the on-disk cache. These loops copy the same
elements in the same order, with no check: every caller copies between parts of equal shape.
"""

from __future__ import annotations

from treebound._config import NO_NRT_INLINE_JIT_OPTIONS, njit


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def copy_prefix(src, dst, n):
    """``dst[:n] = src[:n]`` for one-dimensional arrays."""
    for i in range(n):
        dst[i] = src[i]


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def copy_rows(src, dst, n):
    """``dst[:n, :] = src[:n, :]`` for two-dimensional arrays of ``src``'s row length."""
    for i in range(n):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def copy_row(src, i, dst, k):
    """``dst[k, :] = src[i, :]`` for two-dimensional arrays of ``src``'s row length."""
    for j in range(src.shape[1]):
        dst[k, j] = src[i, j]
