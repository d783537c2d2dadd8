"""Switches for the numba kernels, read once from the environment.

``TREEBOUND_NUMBA_CACHE=0`` turns off numba's on-disk cache (it is on by default so compile
time is paid once per machine, not once per process). ``NUMBA_DISABLE_JIT=1`` (numba's own
switch) runs every kernel as plain Python, which is how coverage and debuggers see them.
"""

from __future__ import annotations

import os

NUMBA_CACHE: bool = os.environ.get("TREEBOUND_NUMBA_CACHE", "1") not in ("0", "false", "False")

#: Keyword arguments every ``@njit`` in ``treebound._kernels`` uses.
JIT_OPTIONS: dict = {"cache": NUMBA_CACHE, "nogil": True}

#: Options for small hot helpers: LLVM inlines them into their callers (no call overhead on
#: array arguments in the innermost loops).
INLINE_JIT_OPTIONS: dict = {**JIT_OPTIONS, "forceinline": True}

#: Options for kernels that never allocate: compiled without numba's reference counting, which
#: would otherwise add an atomic increment/decrement per array argument on every call.
NO_NRT_JIT_OPTIONS: dict = {**JIT_OPTIONS, "_nrt": False}
NO_NRT_INLINE_JIT_OPTIONS: dict = {**INLINE_JIT_OPTIONS, "_nrt": False}
