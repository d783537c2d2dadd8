"""How the numba kernels are compiled and where their compiled code is kept.

Switches, read once from the environment:

* ``TREEBOUND_NUMBA_CACHE=0`` turns off the on-disk cache of compiled kernels (on by default, so
  compile time is paid once per machine, not once per process);
* ``TREEBOUND_CACHE_DIR`` (else ``NUMBA_CACHE_DIR``, else the user cache directory:
  ``$XDG_CACHE_HOME/treebound`` or ``~/.cache/treebound``; ``%LOCALAPPDATA%\\treebound`` on
  Windows, ``~/Library/Caches/treebound`` on macOS) is where the cache goes;
* ``NUMBA_DISABLE_JIT=1`` (numba's own switch) runs every kernel as plain Python, which is how
  coverage and debuggers see them.

numba invalidates a cached kernel only when *its own* source file changes, not when a kernel it
calls (and compiled into itself) changes. The kernels' cache therefore lives in a directory named
after a hash of every kernel source file, ``<cache dir>/treebound-<hash>/``: a change anywhere in
``treebound._kernels`` starts a fresh cache, and checkouts or installs with the same kernel
sources share one. If that directory cannot be written, numba's own locations are used
(``__pycache__`` next to the sources, or its user-wide cache). Only treebound's kernels are
redirected; other numba code in the process keeps numba's settings.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

NUMBA_CACHE: bool = os.environ.get("TREEBOUND_NUMBA_CACHE", "1") not in ("0", "false", "False")
_KERNEL_DIR = Path(__file__).resolve().parent / "_kernels"


@functools.cache
def kernel_source_hash() -> str:
    """Hash of the kernel sources (and this file), identifying compatible cached kernels."""
    digest = hashlib.sha256()
    for path in [Path(__file__).resolve(), *sorted(_KERNEL_DIR.glob("*.py"))]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    """The directory under which treebound keeps compiled kernels (see the module docstring)."""
    for variable in ("TREEBOUND_CACHE_DIR", "NUMBA_CACHE_DIR"):
        if os.environ.get(variable):
            return Path(os.environ[variable]).expanduser()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "treebound"


def kernel_cache_dir() -> Path:
    """Directory of the compiled kernels of this exact kernel source."""
    return cache_root() / f"treebound-{kernel_source_hash()}"


def kernels_cached(module: str, function: str) -> bool:
    """Whether ``treebound._kernels.<module>.<function>`` has compiled code in the cache.

    The command line uses it to say so before a first, slow compilation.
    """
    if not NUMBA_CACHE or os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return True  # nothing will be written to the cache: nothing to announce
    return any(kernel_cache_dir().glob(f"{module}.{function}-*.nbi"))


def _install_cache_locator() -> None:
    """Put the kernels' cache in :func:`kernel_cache_dir` (ahead of numba's own locators)."""
    # numba is loaded by the first kernel module, not by reading this module's settings
    from numba.core import caching

    base = getattr(caching, "_CacheLocator", None) or caching.CacheLocator

    class KernelCacheLocator(base):
        def __init__(self, py_func, py_file):
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(kernel_cache_dir())

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            # the directory name already pins every kernel source
            return kernel_source_hash()

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            if Path(py_file).resolve().parent != _KERNEL_DIR:
                return None
            locator = cls(py_func, py_file)
            try:
                locator.ensure_cache_path()
            except OSError:  # not writable: fall back to numba's locations
                return None
            return locator

    # numba renamed these classes over versions (_CacheImpl -> CacheImpl)
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    classes = impl._locator_classes
    if not any(c.__name__ == KernelCacheLocator.__name__ for c in classes):
        classes.insert(0, KernelCacheLocator)


def njit(*args, **options):
    """``numba.njit`` for treebound's kernels.

    One change: a kernel called from another kernel is compiled for the *non-literal* types of
    its arguments. numba would otherwise compile a separate copy for every call with a constant
    argument (``find_best_test(0, ...)``) and for the constant types a variable has in early
    rounds of type inference, which once made the first fit compile ``find_best_test`` four
    times. Calls from Python already drop literal types.
    """
    # numba is loaded by the first kernel module, not by reading this module's settings
    import numba
    from numba.core import types

    def unliteral(t):
        return types.unliteral(t)

    def decorate(py_func):
        dispatcher = numba.njit(**options)(py_func)
        base = getattr(dispatcher, "get_call_template", None)
        if base is not None:  # None when NUMBA_DISABLE_JIT=1 (plain Python function)
            def get_call_template(call_args, kws):
                return base(tuple(unliteral(a) for a in call_args),
                            {k: unliteral(v) for k, v in kws.items()})

            dispatcher.get_call_template = get_call_template
        return dispatcher

    if args and callable(args[0]) and len(args) == 1:
        return decorate(args[0])
    if args:
        raise TypeError("treebound's njit takes keyword options only (no eager signatures)")
    return decorate


if NUMBA_CACHE:
    _install_cache_locator()

#: Keyword arguments every ``@njit`` in ``treebound._kernels`` uses.
JIT_OPTIONS: dict = {"cache": NUMBA_CACHE, "nogil": True}

#: Options for small hot helpers: LLVM inlines them into their callers (no call overhead on
#: array arguments in the innermost loops).
INLINE_JIT_OPTIONS: dict = {**JIT_OPTIONS, "forceinline": True}

#: Options for kernels that never allocate: compiled without numba's reference counting, which
#: would otherwise add an atomic increment/decrement per array argument per call.
NO_NRT_JIT_OPTIONS: dict = {**JIT_OPTIONS, "_nrt": False}
NO_NRT_INLINE_JIT_OPTIONS: dict = {**INLINE_JIT_OPTIONS, "_nrt": False}

#: Options for the steps of a larger kernel, each called from one place: numba inlines their code
#: into the caller before typing, so they are not compiled on their own (a separately compiled
#: step would have its callees optimized once more, in its own module, which was seconds of a
#: first fit's compile time).
STEP_JIT_OPTIONS: dict = {**NO_NRT_JIT_OPTIONS, "inline": "always"}
