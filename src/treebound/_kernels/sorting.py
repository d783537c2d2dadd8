"""Allocation-free stable argsort for the split kernels (which run without numba's runtime)."""

from __future__ import annotations

from treebound._config import NO_NRT_JIT_OPTIONS, njit


@njit(**NO_NRT_JIT_OPTIONS)
def stable_argsort(keys, n, perm, scratch):
    """Write into ``perm[:n]`` the indices sorting ``keys[:n]`` (stable; ties keep index order).

    Insertion sort for short inputs, bottom-up merge sort otherwise; ``scratch`` holds ``n``
    integers.
    """
    for i in range(n):
        perm[i] = i
    if n <= 32:
        for i in range(1, n):
            p = perm[i]
            key = keys[p]
            j = i - 1
            while j >= 0 and keys[perm[j]] > key:
                perm[j + 1] = perm[j]
                j -= 1
            perm[j + 1] = p
        return
    in_scratch = False  # where the current sorted runs live
    width = 1
    while width < n:
        src = scratch if in_scratch else perm
        dst = perm if in_scratch else scratch
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            a = lo
            b = mid
            out = lo
            while a < mid and b < hi:
                if keys[src[b]] < keys[src[a]]:
                    dst[out] = src[b]
                    b += 1
                else:
                    dst[out] = src[a]
                    a += 1
                out += 1
            while a < mid:
                dst[out] = src[a]
                a += 1
                out += 1
            while b < hi:
                dst[out] = src[b]
                b += 1
                out += 1
            lo = hi
        in_scratch = not in_scratch
        width *= 2
    if in_scratch:
        for i in range(n):
            perm[i] = scratch[i]
