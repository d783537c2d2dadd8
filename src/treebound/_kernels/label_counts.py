"""Compiled passes behind the counting of integer class labels
(:func:`treebound._flat._labels.fit_labels`): numpy's ``min``, ``max`` and ``bincount`` read the
labels twice more (``bincount`` finds the range again), and only which labels occur is needed."""

from __future__ import annotations

from treebound._config import NO_NRT_JIT_OPTIONS, njit


@njit(**NO_NRT_JIT_OPTIONS)
def label_range(y):
    """Smallest and largest of the non-empty integer array ``y``, in one pass."""
    low = high = y[0]
    for i in range(1, y.shape[0]):
        v = y[i]
        low = v if v < low else low
        high = v if v > high else high
    return low, high


@njit(**NO_NRT_JIT_OPTIONS)
def mark_labels(y, seen):
    """``seen[v] = True`` for every label ``v`` of ``y`` (all in ``0 .. len(seen) - 1``): a
    plain store, without the chain of increments on the same counter that counting is."""
    for i in range(y.shape[0]):
        seen[y[i]] = True
