"""The plain-JSON form of a flat tree's arrays (:meth:`treebound.tree.Tree.to_dict` and
:meth:`~treebound.tree.Tree.from_dict`).

JSON has no infinity: a threshold is a number, ``null`` (NaN: a leaf or a categorical test) or
the string ``"+inf"`` (the test "value present", which sends a missing value right).
"""

from __future__ import annotations

import numpy as np

__all__ = ["tree_from_dict", "tree_to_dict"]

_INFINITE = "+inf"


def tree_to_dict(tree, names) -> dict:
    """``{"task": ..., name: list}`` for every array in ``names``."""
    out = {"task": tree.task}
    for name in names:
        arr = getattr(tree, name)
        if name == "threshold":
            out[name] = [_INFINITE if v == np.inf else None if not np.isfinite(v) else float(v)
                         for v in arr.tolist()]
        else:
            out[name] = arr.tolist()
    return out


def _threshold(v):
    if v is None:
        return np.nan
    if v == _INFINITE:
        return np.inf
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ValueError(f"tree array 'threshold' holds {v!r} (a number, null or "
                         f"{_INFINITE!r})")
    return v


def tree_from_dict(data, names, int_names, optional) -> tuple[dict, str]:
    """The arrays (``None`` for an absent optional one) and the task of a tree dict, checked
    for types and dimensions (the caller validates the tree)."""
    if not isinstance(data, dict):
        raise ValueError(f"tree must be a JSON object, got {type(data).__name__}")
    missing = [name for name in names if name not in data and name not in optional]
    if missing:
        raise ValueError(f"tree is missing the arrays {missing}")
    arrays = {}
    for name in names:
        if name not in data:
            arrays[name] = None
            continue
        raw = data[name]
        if not isinstance(raw, list):
            raise ValueError(f"tree array {name!r} must be a list")
        try:
            if name == "threshold":
                arr = np.array([_threshold(v) for v in raw], dtype=np.float64)
            elif name in int_names:
                arr = _int_array(raw, name)
            else:
                arr = np.array(raw, dtype=np.float64)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"tree array {name!r} has entries of the wrong type: {exc}") from None
        arrays[name] = arr
    value = arrays["value"]
    if value.ndim == 1 and value.shape[0] == 0:
        value = value.reshape(0, 1)
    if value.ndim not in (2, 3):
        raise ValueError("tree array 'value' must be a list of equal-length lists (of "
                         "equal-length lists for several outputs)")
    arrays["value"] = value
    for name in names:
        if name != "value" and arrays[name] is not None and arrays[name].ndim != 1:
            raise ValueError(f"tree array {name!r} must be a flat list")
    task = data.get("task", "classification")
    if not isinstance(task, str):
        raise ValueError("tree 'task' must be a string")
    return arrays, task


def _int_array(raw: list, name: str) -> np.ndarray:
    for v in raw:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"tree array {name!r} must hold integers, found {v!r}")
        if not -(2**62) < v < 2**62:
            raise ValueError(f"tree array {name!r} holds the out-of-range integer {v}")
    return np.array(raw, dtype=np.int64) if raw else np.empty(0, dtype=np.int64)
