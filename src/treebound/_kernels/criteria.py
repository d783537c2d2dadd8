"""Impurity criteria as numba functions over per-node statistics.

Statistics layout (``stats``, one row per node or bin):

* classification: weighted class counts ``c_0 .. c_{C-1}``;
* regression: ``(sum w, sum w*y, sum w*y**2)``.

Every criterion is written as an impurity *mass* ``N * phi(node)`` (``N`` the node's weight), so a
split's gain is ``mass(parent) - sum mass(children)`` exactly as in the lecture notes on tree predictors (Cesa-Bianchi), and the
impurity of a node is ``mass / N``. With ``p_k = c_k / N``:

* gini:  ``phi = 1 - sum p_k^2`` (binary: ``2 p (1 - p)``)
* entropy (scaled, base 2): ``phi = -1/2 sum p_k log2 p_k`` (binary: ``H(p) / 2``)
* sqrt (Kearns-Mansour): ``phi = 1/2 sum_k sqrt(p_k (1 - p_k))`` which is ``sqrt(p (1 - p))`` for
  two classes
* misclassification: ``phi = 1 - max_k p_k`` (binary: ``min(p, 1 - p)``)
* squared_error (regression): the weighted variance of the target.
"""

from __future__ import annotations

import math

from treebound._config import NO_NRT_INLINE_JIT_OPTIONS, njit

GINI = 0
ENTROPY = 1
SQRT = 2
MISCLASSIFICATION = 3
SQUARED_ERROR = 4

TASK_CLASSIFICATION = 0
TASK_REGRESSION = 1

_LN2 = math.log(2.0)


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def xlog2x(c):
    """``c * log2(c)`` with the convention ``0 log 0 = 0`` (also for round-off negatives)."""
    if c <= 0.0:
        return 0.0
    return c * math.log(c) / _LN2


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def classification_mass(stats, offset, n_classes, weight, criterion):
    """Impurity mass ``N * phi`` of the class counts ``stats[offset : offset + n_classes]``."""
    if weight <= 0.0:
        return 0.0
    if criterion == GINI:
        sq = 0.0
        for k in range(n_classes):
            c = stats[offset + k]
            sq += c * c
        return weight - sq / weight
    if criterion == ENTROPY:
        s = 0.0
        for k in range(n_classes):
            s += xlog2x(stats[offset + k])
        return 0.5 * (xlog2x(weight) - s)
    if criterion == SQRT:
        s = 0.0
        for k in range(n_classes):
            c = stats[offset + k]
            rest = weight - c
            if c > 0.0 and rest > 0.0:
                s += math.sqrt(c * rest)
        return 0.5 * s
    # misclassification
    best = 0.0
    for k in range(n_classes):
        if stats[offset + k] > best:
            best = stats[offset + k]
    return weight - best


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def regression_mass(sum_w, sum_wy, sum_wy2):
    """Sum of weighted squared deviations from the mean: ``N * variance``."""
    if sum_w <= 0.0:
        return 0.0
    mass = sum_wy2 - sum_wy * sum_wy / sum_w
    return mass if mass > 0.0 else 0.0


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def stats_weight(stats, offset, width, task):
    """Total weight ``N`` held by a statistics row."""
    if task == TASK_REGRESSION:
        return stats[offset]
    total = 0.0
    for k in range(width):
        total += stats[offset + k]
    return total


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def stats_mass(stats, offset, width, task, criterion):
    """Impurity mass of a statistics row for either task."""
    if task == TASK_REGRESSION:
        return regression_mass(stats[offset], stats[offset + 1], stats[offset + 2])
    weight = stats_weight(stats, offset, width, task)
    return classification_mass(stats, offset, width, weight, criterion)
