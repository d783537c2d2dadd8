"""Impurity criteria as numba functions over per-node statistics.

Statistics layout (``stats``, one row per node or bin):

* classification: weighted class counts ``c_0 .. c_{C-1}``;
* regression: ``(sum w, sum w*y, sum w*y**2)``.

Every criterion is written as an impurity *mass* ``N * phi(node)`` (``N`` the node's weight), so a
split's gain is ``mass(parent) - sum mass(children)`` exactly as in the lecture notes on tree predictors (Cesa-Bianchi), and the
impurity of a node is ``mass / N``. With ``p_k = c_k / N``:

* gini:  ``phi = 1 - sum p_k^2`` (binary: ``2 p (1 - p)``)
* entropy (base 2, scikit-learn's ``"entropy"`` / ``"log_loss"``): ``phi = -sum p_k log2 p_k``
  (binary: ``H(p)``; the lecture notes' scaled entropy is half of it, and splits are the same)
* sqrt (Kearns-Mansour): ``phi = 1/2 sum_k sqrt(p_k (1 - p_k))`` which is ``sqrt(p (1 - p))`` for
  two classes
* misclassification: ``phi = 1 - max_k p_k`` (binary: ``min(p, 1 - p)``)
* squared_error (regression): the weighted variance of the target;
* poisson (regression): the half Poisson deviance ``1/N sum w y log(y / mean)`` (scikit-learn's);
  its mass is evaluated from the samples (:mod:`~treebound._kernels.growth_extensions`), the
  statistics give the gain ``mass(parent) - mass(children)`` through :func:`poisson_proxy_mass`
  (``-S log(S / N)``: the ``sum w y log y`` terms cancel);
* absolute_error (regression): ``1/N sum w |y - median|``, from the samples only
  (:mod:`~treebound._kernels.absolute_error`).

The split scans (:mod:`~treebound._kernels.split_numeric`) take all their per-criterion
arithmetic from here: the mass of a count vector (every classification criterion), and, for the
criteria whose mass is ``f(N, sum_k t(c_k))`` (Gini: ``t(c) = c^2``, entropy: ``t(c) = c log2
c``), running sums of the per-class terms, so that a candidate cut costs O(1) after moving its
samples. A new criterion is added here only: :func:`classification_mass`, and, if it has such a
form, :func:`running_sums`, :func:`running_term_change` and :func:`running_children_mass`.
"""

from __future__ import annotations

import math

import numpy as np

from treebound._config import NO_NRT_INLINE_JIT_OPTIONS, njit

GINI = 0
ENTROPY = 1
SQRT = 2
MISCLASSIFICATION = 3
SQUARED_ERROR = 4
POISSON = 5
ABSOLUTE_ERROR = 6

#: A Poisson child whose target sum is at most this has no positive mean: the split is refused
#: (scikit-learn's ``EPSILON`` of its Poisson criterion, which absorbs the rounding of
#: ``sum_right = sum_total - sum_left``).
POISSON_EPSILON = 10.0 * 2.220446049250313e-16

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
        return xlog2x(weight) - s
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


#: :func:`running_sums` answers: no running sums, sums updated at every cell, sums updated at
#: non-empty cells only (whose terms cost more than a mispredicted branch).
NO_RUNNING_SUMS = 0
RUNNING_SUMS = 1
RUNNING_SUMS_SKIP_EMPTY = 2


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def running_sums(criterion, per_sample):
    """Whether the scans keep the children's masses as running sums of per-class terms (one of
    the constants above).

    ``per_sample``: the sums would be updated sample by sample in the node's row order (sorted
    scans) rather than code by code. They must then not depend on the order of rows sharing a
    code, or exact ties between cuts would break differently when the rows are permuted: Gini's
    squares of integer counts are exact, entropy's ``c log c`` terms are not (its sorted scans
    compute the mass from the count vectors at each cut). An empty cell changes no term, which
    costs two logarithms for entropy but less than a mispredicted branch for Gini.
    """
    if criterion == GINI:
        return RUNNING_SUMS
    if criterion == ENTROPY and not per_sample:
        return RUNNING_SUMS_SKIP_EMPTY
    return NO_RUNNING_SUMS


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def running_term_change(criterion, count, delta):
    """``t(count + delta) - t(count)`` for the per-class term ``t`` of the running sums (``t(c)``
    itself is the change from 0)."""
    if criterion == GINI:
        return delta * (2.0 * count + delta)
    return xlog2x(count + delta) - xlog2x(count)


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def running_children_mass(criterion, weight_left, weight_right, sum_left, sum_right):
    """Impurity mass of two children from their weights and running sums of class terms."""
    if criterion == GINI:
        child = 0.0
        if weight_left > 0.0:
            child += weight_left - sum_left / weight_left
        if weight_right > 0.0:
            child += weight_right - sum_right / weight_right
        return child
    return xlog2x(weight_left) - sum_left + xlog2x(weight_right) - sum_right


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def squared_error_gain(weight_left, sum_y_left, weight, sum_y):
    """Squared-error gain of a cut from weighted target sums: ``mass(parent) - mass(children)``
    written as ``S_l^2 / W_l + S_r^2 / W_r - S^2 / W`` (the ``sum w y^2`` terms cancel), what the
    sorted scans evaluate at each cut."""
    weight_right = weight - weight_left
    gain = 0.0
    if weight_left > 0.0:
        gain += sum_y_left * sum_y_left / weight_left
    if weight_right > 0.0:
        sum_y_right = sum_y - sum_y_left
        gain += sum_y_right * sum_y_right / weight_right
    if weight > 0.0:
        gain -= sum_y * sum_y / weight
    return gain


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def regression_mass(sum_w, sum_wy, sum_wy2):
    """Sum of weighted squared deviations from the mean: ``N * variance``."""
    if sum_w <= 0.0:
        return 0.0
    mass = sum_wy2 - sum_wy * sum_wy / sum_w
    return mass if mass > 0.0 else 0.0


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def poisson_proxy_mass(sum_w, sum_wy):
    """``-S log(S / N)``: the Poisson mass of a node up to its ``sum w y log y`` term, which
    cancels in every gain; ``inf`` when ``S <= POISSON_EPSILON`` (no positive mean, so any split
    leaving such a child has gain ``-inf``, as scikit-learn refuses it)."""
    if sum_w <= 0.0:
        return 0.0
    if sum_wy <= POISSON_EPSILON:
        return np.inf
    return -sum_wy * math.log(sum_wy / sum_w)


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def add_sample_stats(stats, base, s, y_cls, y_val, w, task):
    """Add sample ``s``'s statistics to the row at ``stats[base]``."""
    if task == TASK_REGRESSION:
        ws = w[s]
        yv = y_val[s]
        stats[base] += ws
        stats[base + 1] += ws * yv
        stats[base + 2] += ws * yv * yv
    else:
        stats[base + y_cls[s]] += w[s]


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
        if criterion == POISSON:
            return poisson_proxy_mass(stats[offset], stats[offset + 1])
        return regression_mass(stats[offset], stats[offset + 1], stats[offset + 2])
    weight = stats_weight(stats, offset, width, task)
    return classification_mass(stats, offset, width, weight, criterion)
