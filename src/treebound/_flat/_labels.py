"""Class labels and class indices: the one label encoding of the package.

A classifier's ``classes_`` are its training labels, sorted and unique (:func:`fit_labels`);
every label is then known by its index into them, the integer the flat tree's class counts,
``majority_class`` and the bounds use. :func:`label_indices` turns the labels of other rows
(the rows :func:`treebound.prune` and :func:`treebound.certify` are given) into those indices,
``-1`` for a label the classifier never saw; each caller decides whether that is an error.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from treebound._config import read_only
from treebound._kernels.label_counts import label_range, mark_labels

__all__ = ["fit_labels", "label_indices", "label_vector", "unknown_labels"]


def _first_of_each(values) -> str:
    seen: dict = {}
    for v in values:
        seen.setdefault(type(v), v)
    return ", ".join(repr(v) for v in seen.values())


def _missing_labels(y: np.ndarray) -> np.ndarray:
    """Positions of the missing labels (NaN, None, pd.NA) of a 1-D array."""
    if y.dtype.kind == "f":
        return np.flatnonzero(np.isnan(y))
    if y.dtype == object:
        return np.flatnonzero(pd.isna(y))
    return np.empty(0, dtype=np.int64)


def fit_labels(y, n_samples: int, owner: str,
               min_classes: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """The classes of a classifier's training labels and the index of every row's label.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels of one type (numbers, strings or booleans); a one-column 2-D array is
        accepted with scikit-learn's ``DataConversionWarning``.
    n_samples : int
        Rows of ``X`` (``y`` must have as many).
    owner : str
        The estimator's name, for the error messages.
    min_classes : int, default=2
        Fewest distinct labels accepted (1: a single class is a one-leaf tree).

    Returns
    -------
    classes : ndarray of shape (n_classes,)
        The distinct labels, sorted (``classes_``).
    indices : ndarray of int32, shape (n_samples,)
        ``classes[indices] == y``.

    Raises
    ------
    ValueError
        ``y`` missing, a label missing (the error names its row), of another length, mixing
        label types, continuous, or with fewer than ``min_classes`` classes.

    Examples
    --------
    >>> classes, indices = fit_labels(["b", "a", "b"], 3, "DecisionTreeClassifier")
    >>> classes.tolist(), indices.tolist()
    (['a', 'b'], [1, 0, 1])
    """
    if y is None:
        raise ValueError(f"{owner} requires y to be passed, but the target y is None")
    y = np.asarray(y) if not hasattr(y, "to_numpy") else y.to_numpy()
    # integer and boolean labels in one dimension are always scikit-learn's "binary" or
    # "multiclass" targets: its checks (a few passes and a copy) are skipped for them
    plain = y.ndim == 1 and y.dtype.kind in "biu"
    if not plain:
        y = column_or_1d(y, warn=True)
    if y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} samples but y has {y.shape[0]}")
    missing = _missing_labels(y)
    if missing.size:
        raise ValueError(f"y is missing (NaN or None) at row {int(missing[0])} (0-based"
                         f"{f'; {missing.size} rows in all' if missing.size > 1 else ''}): "
                         "a class label is needed for every row; drop or label those rows")
    if y.dtype == object:
        kinds = {"text" if isinstance(v, str) else "number"
                 if isinstance(v, numbers.Number) else type(v).__name__ for v in y}
        if len(kinds) > 1:
            raise ValueError(f"class labels mix {' and '.join(sorted(kinds))} (e.g. "
                             f"{_first_of_each(y)}): use one label type")
    if not plain:
        check_classification_targets(y)
    if y.ndim == 1 and y.dtype.kind in "iu" and y.shape[0]:
        classes, indices = _small_integer_labels(y)
    else:
        classes, indices = None, None
    if classes is None:
        try:
            classes, indices = np.unique(y, return_inverse=True)
        except TypeError as exc:
            raise TypeError(f"class labels cannot be ordered ({exc}); use one label type") \
                from None
    if classes.shape[0] < min_classes:
        raise ValueError(
            f"y contains only one class ({classes[0]!r}): a classifier needs samples of at "
            "least 2 classes"
        )
    return classes, indices.astype(np.int32)


def _small_integer_labels(y: np.ndarray):
    """``np.unique(y, return_inverse=True)`` of integer labels spanning a small range, by
    counting instead of sorting; ``(None, None)`` when the range is too wide to count.

    >>> classes, indices = _small_integer_labels(np.array([7, 3, 7, 5]))
    >>> classes.tolist(), indices.tolist()
    ([3, 5, 7], [2, 0, 2, 1])
    """
    # int64 labels (the usual case) by compiled passes; the other types are rare enough not to
    # be worth a compiled variant each
    compiled = y.dtype == np.int64 and y.flags.c_contiguous
    low, high = map(int, label_range(read_only(y))) if compiled else (int(y.min()), int(y.max()))
    span = 2 * y.shape[0] + 1024
    if high - low > span:
        return None, None
    if 0 <= low and high <= span and (y.dtype.itemsize < 8 or y.dtype == np.intp):
        offset, low = y, 0  # counted as they are (labels 0 .. k-1, the usual case)
    elif y.dtype.kind == "u":  # y - low stays in range
        offset = (y - y.dtype.type(low)).astype(np.intp)
    else:  # in int64: int8 -128 .. 127 spans 255
        offset = y.astype(np.int64) - low
    if compiled and offset is y:
        seen = np.zeros(high + 1, dtype=np.bool_)
        mark_labels(read_only(y), seen)
        present = np.flatnonzero(seen)
    else:
        present = np.flatnonzero(np.bincount(offset, minlength=high - low + 1))
    if low == 0 and present.shape[0] == high + 1:  # every label 0 .. high present
        return present.astype(y.dtype), offset
    index_of = np.zeros(high - low + 1, dtype=np.intp)
    index_of[present] = np.arange(present.shape[0])
    classes = (present.astype(y.dtype) + y.dtype.type(low) if y.dtype.kind == "u"
               else (present + low).astype(y.dtype))
    return classes, index_of[offset]


def label_vector(y) -> np.ndarray:
    """``y`` as a one-dimensional array (a pandas Series or a one-column 2-D array accepted).

    Parameters
    ----------
    y : array-like
        Labels.

    Returns
    -------
    ndarray of shape (n_rows,)

    Examples
    --------
    >>> label_vector([[0], [1]]).tolist()
    [0, 1]
    """
    y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional, got shape {y.shape}")
    return y


def label_indices(classes: np.ndarray, y) -> np.ndarray:
    """The index of every label of ``y`` into ``classes``, ``-1`` for a label not among them.

    Parameters
    ----------
    classes : ndarray
        A classifier's ``classes_`` (sorted, unique).
    y : array-like of shape (n_rows,)
        Labels (:func:`label_vector` reads them).

    Returns
    -------
    ndarray of int64, shape (n_rows,)

    Raises
    ------
    ValueError
        For labels that cannot be compared with the classes (text against numbers).

    Examples
    --------
    >>> import numpy as np
    >>> label_indices(np.array(["a", "b"]), ["b", "c", "a"]).tolist()
    [1, -1, 0]
    """
    y = label_vector(y)
    try:
        pos = np.searchsorted(classes, y)
    except TypeError as exc:
        raise ValueError(f"y labels cannot be compared with the model's classes ({exc})") \
            from None
    pos = np.clip(pos, 0, classes.shape[0] - 1)
    known = classes[pos] == y
    return np.where(known, pos, -1).astype(np.int64)


def unknown_labels(y, indices: np.ndarray, limit: int = 5) -> list:
    """The first ``limit`` distinct labels of ``y`` that :func:`label_indices` marked ``-1``,
    sorted (for error messages).

    Parameters
    ----------
    y : array-like of shape (n_rows,)
        The labels given.
    indices : ndarray of int, shape (n_rows,)
        Their indices (:func:`label_indices`).
    limit : int, default=5
        How many to list.

    Returns
    -------
    list

    Examples
    --------
    >>> import numpy as np
    >>> y = ["b", "c", "a", "d", "c"]
    >>> unknown_labels(y, label_indices(np.array(["a", "b"]), y))
    ['c', 'd']
    """
    y = label_vector(y)
    return np.unique(y[indices < 0])[:limit].tolist()
