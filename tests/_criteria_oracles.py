"""Naive oracles of scikit-learn's criteria and split rules, in plain numpy.

Every impurity is computed from the rows of a node, straight from its definition (scikit-learn's
documentation and ``sklearn/tree/_criterion.pyx``), and the best split by trying every threshold
of every feature: what the growth kernels compute incrementally must agree with these.
"""

from __future__ import annotations

import numpy as np

CLASSIFICATION = ("gini", "entropy", "log_loss")
REGRESSION = ("squared_error", "poisson", "absolute_error")


def weighted_median(y, w) -> float:
    """scikit-learn's weighted median: the smallest target whose cumulative weight (targets
    sorted) exceeds half the total; the midpoint of two targets when the cumulative weight is
    exactly half between them."""
    order = np.argsort(y, kind="stable")
    y, w = np.asarray(y, dtype=float)[order], np.asarray(w, dtype=float)[order]
    cumulative = np.cumsum(w)
    half = cumulative[-1] / 2
    i = int(np.flatnonzero(cumulative > half)[0])
    if i > 0 and cumulative[i - 1] == half:
        return (y[i - 1] + y[i]) / 2
    return float(y[i])


def _one_output(y, w, criterion, n_classes) -> float:
    weight = w.sum()
    if criterion in CLASSIFICATION:
        p = np.bincount(y.astype(int), weights=w, minlength=n_classes) / weight
        if criterion == "gini":
            return 1.0 - np.sum(p**2)
        nz = p[p > 0]
        return float(-np.sum(nz * np.log2(nz)))
    if criterion == "squared_error":
        mean = np.sum(w * y) / weight
        return float(np.sum(w * (y - mean) ** 2) / weight)
    if criterion == "poisson":
        mean = np.sum(w * y) / weight
        if np.sum(w * y) <= 0:
            return np.inf
        nz = y > 0
        return float(np.sum(w[nz] * y[nz] * np.log(y[nz] / mean)) / weight)
    if criterion == "absolute_error":
        return float(np.sum(w * np.abs(y - weighted_median(y, w))) / weight)
    raise ValueError(criterion)


def impurity(y, w, criterion, n_classes=None) -> float:
    """Impurity of a node (several outputs: the mean over the outputs, as scikit-learn)."""
    y = np.asarray(y)
    w = np.asarray(w, dtype=float)
    if y.ndim == 1:
        return _one_output(y, w, criterion, n_classes)
    return float(np.mean([_one_output(y[:, k], w, criterion,
                                      None if n_classes is None else n_classes[k])
                          for k in range(y.shape[1])]))


def node_value(y, w, criterion) -> float:
    """A regression node's prediction: the weighted median (absolute_error) or mean."""
    if criterion == "absolute_error":
        return weighted_median(y, w)
    return float(np.sum(w * y) / np.sum(w))


def all_splits(X, y, w, criterion, n_classes=None, min_samples_leaf=1, min_weight_leaf=0.0,
               monotonic=None, bounds=(-np.inf, np.inf), classification=False):
    """Every valid split ``(gain, feature, threshold)`` of a node by brute force; the gain is
    the decrease of the weighted impurity ``W_node imp(node) - W_l imp(l) - W_r imp(r)``.

    Valid: both children keep ``min_samples_leaf`` rows and ``min_weight_leaf`` weight, and on a
    feature with a monotonic constraint (+1 / -1, on the mean or median, or for a classifier on
    the probability of class 1) the children's values lie in ``bounds`` and are ordered as the
    constraint says (scikit-learn's test).

    Missing values (NaN, scikit-learn's rule): on a feature with missing rows in the node every
    cut is tried with them on the right and on the left (``threshold`` is then
    ``(midpoint, "missing right" | "missing left")``), and the test "value present / missing"
    is one more (``(inf, "missing right")``).
    """
    w = np.asarray(w, dtype=float)
    parent = w.sum() * impurity(y, w, criterion, n_classes)
    out = []
    for f in range(X.shape[1]):
        col = X[:, f]
        nan = np.isnan(col)
        values = np.unique(col[~nan])
        candidates = []
        for a, b in zip(values[:-1], values[1:], strict=True):
            cut = col <= a  # a missing value compares False: right
            if nan.any():
                candidates += [(cut, (a / 2 + b / 2, "missing right")),
                               (cut | nan, (a / 2 + b / 2, "missing left"))]
            else:
                candidates.append((cut, a / 2 + b / 2))
        if nan.any() and values.size:
            candidates.append((~nan, (np.inf, "missing right")))
        for left, threshold in candidates:
            gain = split_gain(left, y, w, criterion, n_classes, parent, min_samples_leaf,
                              min_weight_leaf, None if monotonic is None else monotonic[f],
                              bounds, classification)
            if gain is not None:
                out.append((gain, f, threshold))
    return out


def split_gain(left, y, w, criterion, n_classes=None, parent=None, min_samples_leaf=1,
               min_weight_leaf=0.0, sign=None, bounds=(-np.inf, np.inf),
               classification=False):
    """Gain of the split sending the rows ``left`` (a boolean mask) left, or None when it is
    not valid (see :func:`all_splits`; ``sign`` is the feature's monotonic constraint)."""
    w = np.asarray(w, dtype=float)
    if parent is None:
        parent = w.sum() * impurity(y, w, criterion, n_classes)
    if min(left.sum(), (~left).sum()) < min_samples_leaf:
        return None
    if min(w[left].sum(), w[~left].sum()) < min_weight_leaf:
        return None
    if sign:
        if classification:
            # scikit-learn constrains the fraction of class 0, with the sign flipped
            v_l = np.sum(w[left] * (y[left] == 0)) / w[left].sum()
            v_r = np.sum(w[~left] * (y[~left] == 0)) / w[~left].sum()
            sign = -sign
        else:
            v_l = node_value(y[left], w[left], criterion)
            v_r = node_value(y[~left], w[~left], criterion)
        lo, hi = bounds
        if not (lo <= v_l <= hi and lo <= v_r <= hi and (v_l - v_r) * sign <= 0):
            return None
    child = (w[left].sum() * impurity(y[left], w[left], criterion, n_classes)
             + w[~left].sum() * impurity(y[~left], w[~left], criterion, n_classes))
    return parent - child
