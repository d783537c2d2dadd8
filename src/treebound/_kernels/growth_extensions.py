"""What growth needs beyond its fast path: scikit-learn's random thresholds, monotonic
constraints, ``min_weight_fraction_leaf``, the ``poisson`` and ``absolute_error`` criteria and
multi-output targets.

A fit that uses none of them passes ``ext=None`` to the growth kernels, which are then compiled
without any of this (numba drops the branches on ``ext is None``): the default fit is the fast
path, unchanged. Otherwise :class:`Extensions` carries the settings and work arrays, the best
test of a node is searched by :mod:`~treebound._kernels.extended_search`, and the growth loop
calls the hooks at the end of this module when it creates nodes.

Statistics per node (``width`` of them):

* one output: as the fast path (class counts; ``sum w, sum w y, sum w y^2``), so the
  categorical searches and the sample routing read them unchanged;
* ``n_outputs > 1``, classification: ``[W, counts of output 0, counts of output 1, ...]``
  (output ``k``'s counts start at ``class_offset[k]``);
* ``n_outputs > 1``, regression: ``[W, S_1 .. S_K, Q_1 .. Q_K]`` (weighted sums of ``y_k`` and
  ``y_k^2``).

With ``absolute_error`` the sums ``S_k`` of a node are replaced by its weighted medians when the
node is created (the leaf values; nothing else reads the sums). Masses of several outputs are
averaged over the outputs, as scikit-learn averages impurities: every gain, impurity and
``min_impurity_decrease`` test then has its meaning.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treebound._config import NO_NRT_INLINE_JIT_OPTIONS, NO_NRT_JIT_OPTIONS, njit
from treebound._kernels.absolute_error import prefix_absolute_errors, rank_targets
from treebound._kernels.criteria import (
    ABSOLUTE_ERROR,
    POISSON,
    POISSON_EPSILON,
    TASK_REGRESSION,
    classification_mass,
    poisson_proxy_mass,
    regression_mass,
    stats_mass,
    stats_weight,
)
from treebound._kernels.growth_state import (
    F_IMPURITY,
    F_LOWER_BOUND,
    F_UPPER_BOUND,
    F_WEIGHT,
    I_FEATURE,
    I_N_SAMPLES,
    I_SEG_START,
)


class Extensions(NamedTuple):
    """Settings and work arrays of the extended growth (see the module docstring)."""

    random_splitter: bool  # one uniform threshold per feature (scikit-learn's "random")
    min_weight_leaf: float  # every child keeps at least this weight
    #: per feature, +1 / -1 / 0 on the value the kernels constrain: the mean (regression), the
    #: median (absolute_error) or the fraction of class 0 (scikit-learn's choice: signs of the
    #: classifier's constraints are flipped by the caller)
    monotonic: np.ndarray
    has_monotonic: bool
    n_outputs: int
    class_offset: np.ndarray  # (n_outputs + 1,) first statistic of each output's counts
    y_cls: np.ndarray  # (n, n_outputs) int32 class index per output ((1, 1) for regression)
    y_val: np.ndarray  # (n, n_outputs) float64 targets ((1, 1) for classification)
    left: np.ndarray  # (width,) statistics of a left child during a scan
    right: np.ndarray
    miss: np.ndarray  # (width,) statistics of the node's missing rows of the scanned feature
    mixed: np.ndarray  # (width,) a child's statistics with the missing rows added
    # absolute_error work arrays (length 1 otherwise)
    keys: np.ndarray  # (n,) float64
    perm: np.ndarray  # (n,) int64
    perm_scratch: np.ndarray
    sorted_y: np.ndarray  # (n,) float64
    rank_of: np.ndarray  # (n,) int64, by sample
    tree_w: np.ndarray  # (n + 1,) Fenwick tree
    tree_wy: np.ndarray
    left_err: np.ndarray  # (n,) prefix / suffix errors and medians of an order
    right_err: np.ndarray
    left_med: np.ndarray
    right_med: np.ndarray
    #: the same for the node's rows with the missing ones first (missing rows sent left)
    order_missing_first: np.ndarray  # (1, n) int32
    left_err_m: np.ndarray
    right_err_m: np.ndarray
    left_med_m: np.ndarray
    right_med_m: np.ndarray
    medians: np.ndarray  # (n_outputs,) medians of the node being created
    #: (n_outputs,) rows with a positive target, in the node and sent left (poisson scans)
    positive_total: np.ndarray
    positive_left: np.ndarray
    positive_miss: np.ndarray


def new_extensions(n, width, *, random_splitter, min_weight_leaf, monotonic, n_outputs,
                   class_offset, y_cls, y_val, absolute_error) -> Extensions:
    """Allocate the :class:`Extensions` of a fit on ``n`` rows."""
    m = n if absolute_error else 1
    monotonic = np.asarray(monotonic, dtype=np.int8)
    return Extensions(
        random_splitter=bool(random_splitter),
        min_weight_leaf=float(min_weight_leaf),
        monotonic=monotonic,
        has_monotonic=bool(np.any(monotonic != 0)),
        n_outputs=int(n_outputs),
        class_offset=np.asarray(class_offset, dtype=np.int64),
        y_cls=np.ascontiguousarray(y_cls, dtype=np.int32),
        y_val=np.ascontiguousarray(y_val, dtype=np.float64),
        left=np.empty(width, dtype=np.float64),
        right=np.empty(width, dtype=np.float64),
        miss=np.empty(width, dtype=np.float64),
        mixed=np.empty(width, dtype=np.float64),
        keys=np.empty(m, dtype=np.float64),
        perm=np.empty(m, dtype=np.int64),
        perm_scratch=np.empty(m, dtype=np.int64),
        sorted_y=np.empty(m, dtype=np.float64),
        rank_of=np.empty(m, dtype=np.int64),
        tree_w=np.empty(m + 1, dtype=np.float64),
        tree_wy=np.empty(m + 1, dtype=np.float64),
        left_err=np.empty(m, dtype=np.float64),
        right_err=np.empty(m, dtype=np.float64),
        left_med=np.empty(m, dtype=np.float64),
        right_med=np.empty(m, dtype=np.float64),
        order_missing_first=np.empty((1, m), dtype=np.int32),
        left_err_m=np.empty(m, dtype=np.float64),
        right_err_m=np.empty(m, dtype=np.float64),
        left_med_m=np.empty(m, dtype=np.float64),
        right_med_m=np.empty(m, dtype=np.float64),
        medians=np.empty(max(int(n_outputs), 1), dtype=np.float64),
        positive_total=np.zeros(max(int(n_outputs), 1), dtype=np.int64),
        positive_left=np.zeros(max(int(n_outputs), 1), dtype=np.int64),
        positive_miss=np.zeros(max(int(n_outputs), 1), dtype=np.int64),
    )


# ----------------------------------------------------------------------------- statistics


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def ext_add_sample(stats, base, s, w, task, ext):
    """Add sample ``s``'s statistics to the row at ``stats[base]``."""
    ws = w[s]
    n_out = ext.n_outputs
    if task == TASK_REGRESSION:
        if n_out == 1:
            yv = ext.y_val[s, 0]
            stats[base] += ws
            stats[base + 1] += ws * yv
            stats[base + 2] += ws * yv * yv
        else:
            stats[base] += ws
            for k in range(n_out):
                yv = ext.y_val[s, k]
                stats[base + 1 + k] += ws * yv
                stats[base + 1 + n_out + k] += ws * yv * yv
    elif n_out == 1:
        stats[base + ext.y_cls[s, 0]] += ws
    else:
        stats[base] += ws
        for k in range(n_out):
            stats[base + ext.class_offset[k] + ext.y_cls[s, k]] += ws


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def ext_weight(stats, offset, width, task, ext):
    """Total weight of a statistics row."""
    if ext.n_outputs > 1:
        return stats[offset]
    return stats_weight(stats, offset, width, task)


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def ext_mass(stats, offset, width, task, criterion, ext):
    """Impurity mass of a statistics row (Poisson: up to its ``sum w y log y`` term, see
    :func:`~treebound._kernels.criteria.poisson_proxy_mass`), averaged over the outputs."""
    n_out = ext.n_outputs
    if n_out == 1:
        return stats_mass(stats, offset, width, task, criterion)
    weight = stats[offset]
    total = 0.0
    if task == TASK_REGRESSION:
        for k in range(n_out):
            if criterion == POISSON:
                total += poisson_proxy_mass(weight, stats[offset + 1 + k])
            else:
                total += regression_mass(weight, stats[offset + 1 + k],
                                         stats[offset + 1 + n_out + k])
    else:
        for k in range(n_out):
            first = ext.class_offset[k]
            total += classification_mass(stats, offset + first, ext.class_offset[k + 1] - first,
                                         weight, criterion)
    return total / n_out


@njit(**NO_NRT_JIT_OPTIONS)
def sample_mass(rows, row, start, end, w, criterion, ext):
    """Impurity mass of the rows ``rows[row, start:end]`` computed from their targets, for the
    criteria whose statistics do not give it: Poisson (``sum w y log(y / mean)``, ``inf`` when a
    target sum is at most ``POISSON_EPSILON``) and absolute error (``sum w |y - median|``, the
    medians written to ``ext.medians``). Averaged over the outputs."""
    n_out = ext.n_outputs
    y = ext.y_val
    total = 0.0
    if criterion == POISSON:
        weight = 0.0
        for i in range(start, end):
            weight += w[rows[row, i]]
        for k in range(n_out):
            sum_wy = 0.0
            for i in range(start, end):
                s = rows[row, i]
                sum_wy += w[s] * y[s, k]
            if sum_wy <= POISSON_EPSILON:
                return np.inf
            mean = sum_wy / weight
            for i in range(start, end):
                s = rows[row, i]
                yv = y[s, k]
                if yv != 0.0:
                    total += w[s] * yv * np.log(yv / mean)
        return total / n_out
    # absolute error
    n = end - start
    for k in range(n_out):
        rank_targets(rows, row, start, end, y, k, ext.keys, ext.perm, ext.perm_scratch,
                     ext.sorted_y, ext.rank_of)
        ext.left_err[n - 1] = 0.0
        prefix_absolute_errors(rows, row, start, end, True, w, ext.sorted_y, ext.rank_of,
                               ext.tree_w, ext.tree_wy, ext.left_err, ext.left_med)
        total += ext.left_err[n - 1]
        ext.medians[k] = ext.left_med[n - 1]
    return total / n_out


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def constrained_value(stats, offset, weight, task, criterion):
    """The value a monotonic constraint bounds: the fraction of class 0, the mean, or the
    median (absolute_error keeps it in place of the target sum)."""
    if task != TASK_REGRESSION:
        return stats[offset] / weight
    if criterion == ABSOLUTE_ERROR:
        return stats[offset + 1]
    return stats[offset + 1] / weight


# ----------------------------------------------------------------------------- growth hooks


@njit(**NO_NRT_JIT_OPTIONS)
def _finish_node(c, params, nodes, order, data, ext):
    """Statistics (several outputs), weight and impurity of the new node ``c`` whose rows are
    its segment of the sample list."""
    ni = nodes.ints
    nf = nodes.floats
    nv = nodes.stats
    width = params.width
    task = params.task
    criterion = params.criterion
    base = c * width
    start = ni[c, I_SEG_START]
    end = start + ni[c, I_N_SAMPLES]
    if ext.n_outputs > 1:
        for col in range(width):
            nv[base + col] = 0.0
        for i in range(start, end):
            ext_add_sample(nv, base, order.samples[0, i], data.w, task, ext)
    weight = ext_weight(nv, base, width, task, ext)
    nf[c, F_WEIGHT] = weight
    if criterion == POISSON or criterion == ABSOLUTE_ERROR:
        mass = sample_mass(order.samples, 0, start, end, data.w, criterion, ext)
        if criterion == ABSOLUTE_ERROR:
            for k in range(ext.n_outputs):
                nv[base + 1 + k] = ext.medians[k]
    else:
        mass = ext_mass(nv, base, width, task, criterion, ext)
    nf[c, F_IMPURITY] = mass / weight if weight > 0 else 0.0


@njit(**NO_NRT_JIT_OPTIONS)
def extend_root(data, params, nodes, order, ext):
    """The root's statistics, impurity and (infinite) bounds, once :func:`_create_root` made
    it."""
    _finish_node(0, params, nodes, order, data, ext)
    nodes.floats[0, F_LOWER_BOUND] = -np.inf
    nodes.floats[0, F_UPPER_BOUND] = np.inf


@njit(**NO_NRT_JIT_OPTIONS)
def extend_children(node, first, k, data, params, nodes, order, ext):
    """Statistics, impurity and value bounds of the children ``first .. first + k - 1`` of
    ``node`` just created. A split on a constrained feature bounds its children by the middle of
    their values (scikit-learn's rule): an increasing constraint caps the left child and floors
    the right one there; every other split passes the parent's bounds down."""
    nf = nodes.floats
    for c in range(first, first + k):
        _finish_node(c, params, nodes, order, data, ext)
    lower = nf[node, F_LOWER_BOUND]
    upper = nf[node, F_UPPER_BOUND]
    for c in range(first, first + k):
        nf[c, F_LOWER_BOUND] = lower
        nf[c, F_UPPER_BOUND] = upper
    if not ext.has_monotonic or k != 2:
        return
    sign = ext.monotonic[nodes.ints[node, I_FEATURE]]
    if sign == 0:
        return
    width = params.width
    nv = nodes.stats
    value_left = constrained_value(nv, first * width, nf[first, F_WEIGHT], params.task,
                                   params.criterion)
    value_right = constrained_value(nv, (first + 1) * width, nf[first + 1, F_WEIGHT],
                                    params.task, params.criterion)
    # scikit-learn's two formulas (equal up to the last bit)
    if params.criterion == ABSOLUTE_ERROR:
        middle = (value_left + value_right) / 2
    else:
        middle = value_left / 2 + value_right / 2
    if sign > 0:
        nf[first, F_UPPER_BOUND] = middle
        nf[first + 1, F_LOWER_BOUND] = middle
    else:
        nf[first, F_LOWER_BOUND] = middle
        nf[first + 1, F_UPPER_BOUND] = middle
