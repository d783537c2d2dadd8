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
calls (and compiled into itself) changes. treebound therefore stamps each kernel's cached code
with the hash of its *kernel group*: its own module, every ``treebound._kernels`` module it
imports (transitively) and this file. Editing a MIC kernel recompiles the MIC kernels only; the
growth kernels, which never import it, keep their cache. The cache lives in
``<cache dir>/treebound-kernels/`` (one directory for every version: the group hash is part of
each file name, so checkouts or installs with the same kernel sources share files and different
ones never overwrite each other's). If that directory cannot be written, numba's own locations
are used (``__pycache__`` next to the sources, or its user-wide cache, with numba's per-file
invalidation). Only treebound's kernels are redirected; other numba code in the process keeps
numba's settings.

How: numba has no public way to choose where one function is cached, so each of treebound's
dispatchers gets its own cache object (numba's ``FunctionCache`` with a locator of treebound's),
set as ``enable_caching`` sets numba's; numba's global state is not touched. Should numba's
caching classes change, kernels fall back to numba's plain ``cache=True``.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import sys
from pathlib import Path

NUMBA_CACHE: bool = os.environ.get("TREEBOUND_NUMBA_CACHE", "1") not in ("0", "false", "False")
_KERNEL_DIR = Path(__file__).resolve().parent / "_kernels"
_KERNEL_IMPORT = re.compile(r"^\s*from\s+treebound\._kernels\.(\w+)\s+import", re.MULTILINE)


@functools.cache
def _kernel_imports() -> dict[str, frozenset[str]]:
    """``module -> kernel modules it imports`` for every module of ``treebound._kernels``."""
    return {path.stem: frozenset(_KERNEL_IMPORT.findall(path.read_text()))
            for path in _KERNEL_DIR.glob("*.py")}


def kernel_group(module: str) -> list[str]:
    """``module`` and the kernel modules it imports, transitively (sorted names).

    Examples
    --------
    >>> kernel_group("mic")
    ['array_copy', 'mic']
    >>> "criteria" in kernel_group("grow") and "mic" not in kernel_group("grow")
    True
    """
    imports = _kernel_imports()
    group, todo = set(), [module]
    while todo:
        name = todo.pop()
        if name not in group:
            group.add(name)
            todo.extend(imports.get(name, ()))
    return sorted(group)


@functools.cache
def kernel_group_hash(module: str) -> str:
    """Hash of the sources of :func:`kernel_group` of ``module`` and of this file: the stamp of
    that module's cached kernels."""
    digest = hashlib.sha256()
    paths = [Path(__file__).resolve(), *(_KERNEL_DIR / f"{name}.py" for name in
                                         kernel_group(module))]
    for path in paths:
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
    """Directory of the compiled kernels (every version: file names carry the group hash)."""
    return cache_root() / "treebound-kernels"


def kernels_cached(module: str, function: str) -> bool:
    """Whether ``treebound._kernels.<module>.<function>`` has compiled code in the cache for
    the current sources of its kernel group.

    The command line uses it to say so before a first, slow compilation.
    """
    if not NUMBA_CACHE or os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return True  # nothing will be written to the cache: nothing to announce
    pattern = f"{module}.{function}-*-{kernel_group_hash(module)}.*nbi"
    return any(kernel_cache_dir().glob(pattern))


@functools.cache
def _kernel_cache_class():
    """numba's ``FunctionCache`` locating treebound's kernels in :func:`kernel_cache_dir`
    (``None`` if numba's caching classes are not the expected ones)."""
    try:
        # numba is loaded by the first kernel module, not by reading this module's settings
        from numba.core import caching

        locator_base = getattr(caching, "_CacheLocator", None) or caching.CacheLocator
        impl_base = caching.FunctionCache._impl_class
    except (ImportError, AttributeError):
        return None

    class KernelCacheLocator(locator_base):
        def __init__(self, py_func, py_file):
            self._lineno = py_func.__code__.co_firstlineno
            self._stamp = kernel_group_hash(Path(py_file).stem)
            self._cache_path = str(kernel_cache_dir())

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            return self._stamp

        def get_disambiguator(self):
            # the group hash in the file name: versions side by side, never overwritten
            return f"{self._lineno}-{self._stamp}"

        @classmethod
        def from_function(cls, py_func, py_file):
            locator = cls(py_func, py_file)
            try:
                locator.ensure_cache_path()
            except OSError:  # not writable: numba's own locations
                return None
            return locator

    class KernelCacheImpl(impl_base):
        _locator_classes = [KernelCacheLocator]

    class KernelFunctionCache(caching.FunctionCache):
        _impl_class = KernelCacheImpl

    return KernelFunctionCache


def _enable_kernel_cache(dispatcher) -> None:
    """Cache ``dispatcher`` in :func:`kernel_cache_dir`, else where numba would."""
    cache_class = _kernel_cache_class()
    try:
        if cache_class is None:
            raise RuntimeError("numba's caching classes changed")
        dispatcher._cache = cache_class(dispatcher.py_func)
    except RuntimeError:  # no usable location of ours (numba raises this): numba's own
        dispatcher.enable_caching()


def njit(*args, **options):
    """``numba.njit`` for treebound's kernels.

    Two changes, both on treebound's own dispatchers only:

    * with ``cache=True``, a kernel of ``treebound._kernels`` is cached with the stamp of its
      kernel group (see the module docstring);
    * a kernel called from another kernel is compiled for the *non-literal* types of its
      arguments. numba would otherwise compile a separate copy for every call with a constant
      argument (``find_best_test(0, ...)``) and for the constant types a variable has in early
      rounds of type inference. Measured on a cold cache (a breast-cancer fit with bound
      pruning and its certificate, one process): 68 compiled signatures and 53 s of CPU with
      this change, 80 signatures (14 of them literal) and 60 s without. numba offers no option
      for it, so the dispatcher's ``get_call_template`` is wrapped. Calls from Python already
      drop literal types.
    """
    # numba is loaded by the first kernel module, not by reading this module's settings
    import numba
    from numba.core import types

    def unliteral(t):
        return types.unliteral(t)

    cache = options.pop("cache", False)

    def decorate(py_func):
        dispatcher = numba.njit(**options)(py_func)
        base = getattr(dispatcher, "get_call_template", None)
        if base is not None and cache:  # None when NUMBA_DISABLE_JIT=1 (plain function)
            if Path(py_func.__code__.co_filename).resolve().parent == _KERNEL_DIR:
                _enable_kernel_cache(dispatcher)
            else:  # a kernel outside treebound._kernels (tests): numba's own cache
                dispatcher.enable_caching()
        if base is not None:
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


def read_only(array):
    """``array`` itself if it is read-only, else a read-only view of it (no copy).

    numba compiles a kernel once for writable and once more for read-only arrays (scikit-learn
    hands estimators read-only memory maps): callers pass the arrays a kernel only reads through
    this, so each such kernel has one compiled variant.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.zeros(3)
    >>> view = read_only(a)
    >>> view.flags.writeable, a.flags.writeable, view.base is a
    (False, True, True)
    >>> read_only(view) is view
    True
    """
    if not array.flags.writeable:
        return array
    view = array.view()
    view.flags.writeable = False
    return view


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
