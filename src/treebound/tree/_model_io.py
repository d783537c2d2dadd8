"""Model files: :func:`save_model` writes a fitted estimator's JSON description
(:mod:`treebound._estimator._model_format`, ``docs/model_format.md``) atomically,
:func:`load_model` reads one back into the estimator class it names, within a size limit.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
import warnings
from pathlib import Path

from treebound._resources import format_bytes, parse_memory
from treebound.dyadic._classes import DyadicTreeClassifier
from treebound.tree._classes import DecisionTreeClassifier, DecisionTreeRegressor

__all__ = ["DEFAULT_MAX_MODEL_BYTES", "MAX_MODEL_BYTES_ENV", "load_model", "save_model"]

#: The estimators a model file may name.
_ESTIMATORS = {cls.__name__: cls for cls in (DecisionTreeClassifier, DecisionTreeRegressor,
                                             DyadicTreeClassifier)}

def save_model(model, path) -> None:
    """Write ``model.to_dict()`` as JSON, atomically and without following planted links.

    The text goes to a new temporary file created in the target directory with ``O_EXCL``
    (``tempfile.mkstemp``: a fresh, unpredictable name, never an existing file or symlink),
    is flushed and ``fsync``-ed, then renamed over ``path`` with ``os.replace`` (atomic; a
    symlink at ``path`` itself is replaced, not followed). On any failure the temporary file is
    removed and ``path`` is left as it was. The format is described in ``docs/model_format.md``;
    a file over :func:`load_model`'s default size limit is written with a warning.

    Parameters
    ----------
    model : fitted treebound estimator
        ``DecisionTreeClassifier``, ``DecisionTreeRegressor`` or ``DyadicTreeClassifier``.
    path : str or Path
        The file to write (replaced if it exists).

    Returns
    -------
    None

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(max_depth=2).fit(X, y)
    >>> path = Path(tempfile.mkdtemp()) / "iris_tree.json"
    >>> save_model(model, path)
    >>> bool((load_model(path).predict(X) == model.predict(X)).all())
    True
    """
    if not (type(model).__module__.startswith("treebound.") and hasattr(model, "to_dict")):
        raise TypeError(f"save_model writes treebound estimators; a "
                        f"{type(model).__module__.split('.')[0]} {type(model).__name__} is not "
                        "one (certify it with treebound.certify; save it with its own library)")
    path = Path(path)
    text = json.dumps(model.to_dict(), allow_nan=False)
    if len(text) > DEFAULT_MAX_MODEL_BYTES:
        warnings.warn(f"the model file is {format_bytes(len(text))}, over load_model's default "
                      f"limit of {format_bytes(DEFAULT_MAX_MODEL_BYTES)}: load it with "
                      f"load_model(path, max_bytes=...) or {MAX_MODEL_BYTES_ENV}=<size>",
                      stacklevel=2)
    directory = path.parent
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates the file readable by its owner only; a model file is ordinary data
        os.chmod(tmp_name, 0o666 & ~_current_umask())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable where supported
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _current_umask() -> int:
    try:  # Linux: read it without changing it (os.umask would, briefly, for every thread)
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: Largest model file :func:`load_model` reads unless told otherwise (bytes). Parsing JSON
#: costs up to ~17 times the file's size in memory (a long list of short lists), so 64 MB keeps
#: a hostile file near 1 GB; a tree of 500,000 nodes takes about 60 MB.
DEFAULT_MAX_MODEL_BYTES = 64 * 2**20
MAX_MODEL_BYTES_ENV = "TREEBOUND_MAX_MODEL_BYTES"


def _max_model_bytes(max_bytes):
    if max_bytes is _DEFAULT:
        raw = os.environ.get(MAX_MODEL_BYTES_ENV)
        return DEFAULT_MAX_MODEL_BYTES if raw is None else parse_memory(raw,
                                                                         MAX_MODEL_BYTES_ENV)
    return parse_memory(max_bytes, "max_bytes")


_DEFAULT = object()


def load_model(path, *, max_bytes=_DEFAULT):
    """Read a model file written by :func:`save_model` (any treebound estimator).

    Every field is validated before the model is rebuilt (a hostile or corrupted file raises
    ``ValueError``, it does not run code: the format is JSON, not pickle).

    Parameters
    ----------
    path : str or Path
        The model file.
    max_bytes : int, str or None, optional
        Refuse files larger than this (bytes, or ``"512M"``, ``"2G"``; ``None``: no limit).
        Default: the environment variable ``TREEBOUND_MAX_MODEL_BYTES``, else 64 MB.

    Returns
    -------
    estimator
        A fitted instance of the class named in the file, with its ``certificate_`` and pruning
        attributes (``pruning_time_`` is NaN: timings are not saved).

    Raises
    ------
    ValueError
        Naming what is wrong with the file (too large, not JSON, a field that fails
        validation).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> path = Path(tempfile.mkdtemp()) / "iris_tree.json"
    >>> save_model(DecisionTreeClassifier(max_depth=2).fit(X, y), path)
    >>> model = load_model(path)
    >>> type(model).__name__, model.get_n_leaves()
    ('DecisionTreeClassifier', 3)
    >>> load_model(path, max_bytes=100)
    Traceback (most recent call last):
    ...
    ValueError: model file '...' is ..., over the limit of 100 bytes; ...
    """
    path = Path(path)
    limit = _max_model_bytes(max_bytes)
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > limit:
                raise _too_large(path, size, limit, exact=True)
            # read at most limit + 1 bytes: special files (a pipe, /dev/zero) have no size
            raw = handle.read() if math.isinf(limit) else handle.read(int(limit) + 1)
    except OSError as exc:
        raise ValueError(f"cannot read model file {str(path)!r}: {exc}") from None
    if len(raw) > limit:
        raise _too_large(path, len(raw), limit, exact=False)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"cannot read model file {str(path)!r}: {exc}") from None
    del raw
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"model file {str(path)!r} is not valid JSON: {exc}") from None
    del text
    if not isinstance(data, dict):
        raise ValueError(f"model file {str(path)!r} does not hold a JSON object")
    name = data.get("estimator")
    if not isinstance(name, str) or name not in _ESTIMATORS:
        raise ValueError(f"model file names unknown estimator {name!r}")
    return _ESTIMATORS[name].from_dict(data)


def _too_large(path, size, limit, exact: bool) -> ValueError:
    return ValueError(
        f"model file {str(path)!r} is {'' if exact else 'more than '}{format_bytes(size - (not exact))}, "
        f"over the limit of {format_bytes(limit)}; if you trust it, raise the limit with "
        f"load_model(path, max_bytes=...) or {MAX_MODEL_BYTES_ENV}=<size>")
