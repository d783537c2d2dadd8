"""Switches for the numba kernels, read once from the environment.

``TREEBOUND_NUMBA_CACHE=0`` turns off numba's on-disk cache (it is on by default so compile
time is paid once per machine, not once per process). ``NUMBA_DISABLE_JIT=1`` (numba's own
switch) runs every kernel as plain Python, which is how coverage and debuggers see them.

numba invalidates a cached kernel only when *its own* source file changes, not when a kernel it
calls (and compiled into itself) changes. When ``NUMBA_CACHE_DIR`` is set (the Makefile sets it),
the cache therefore goes to a subdirectory named after a hash of every kernel source file, so a
change anywhere in ``treebound._kernels`` starts a fresh cache.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

NUMBA_CACHE: bool = os.environ.get("TREEBOUND_NUMBA_CACHE", "1") not in ("0", "false", "False")


def kernel_source_hash() -> str:
    """Hash of the kernel sources (and this file), identifying compatible cached kernels."""
    digest = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for path in [Path(__file__).resolve(), *sorted((here / "_kernels").glob("*.py"))]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


if NUMBA_CACHE and os.environ.get("NUMBA_CACHE_DIR"):
    import numba

    numba.config.CACHE_DIR = os.path.join(os.environ["NUMBA_CACHE_DIR"],
                                          f"treebound-{kernel_source_hash()}")

#: Keyword arguments every ``@njit`` in ``treebound._kernels`` uses.
JIT_OPTIONS: dict = {"cache": NUMBA_CACHE, "nogil": True}

#: Options for small hot helpers: LLVM inlines them into their callers (no call overhead on
#: array arguments in the innermost loops).
INLINE_JIT_OPTIONS: dict = {**JIT_OPTIONS, "forceinline": True}

#: Options for kernels that never allocate: compiled without numba's reference counting, which
#: would otherwise add an atomic increment/decrement per array argument per call.
NO_NRT_JIT_OPTIONS: dict = {**JIT_OPTIONS, "_nrt": False}
NO_NRT_INLINE_JIT_OPTIONS: dict = {**INLINE_JIT_OPTIONS, "_nrt": False}
