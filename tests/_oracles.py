"""Naive reference implementations used as test oracles for the fast kernels.

Everything here is written for clarity, in plain numpy/Python, straight from SPEC section 1.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def impurity_mass(stats: np.ndarray, criterion: str) -> float:
    """``N * phi`` of one node from its class counts (or (w, wy, wy2) for squared_error)."""
    stats = np.asarray(stats, dtype=float)
    if criterion == "squared_error":
        w, wy, wy2 = stats
        return 0.0 if w <= 0 else max(wy2 - wy * wy / w, 0.0)
    n = stats.sum()
    if n <= 0:
        return 0.0
    p = stats / n
    if criterion == "gini":
        phi = 1.0 - np.sum(p**2)
    elif criterion in ("entropy", "log_loss"):
        nz = p[p > 0]
        phi = -np.sum(nz * np.log2(nz))
    elif criterion == "scaled_entropy":
        nz = p[p > 0]
        phi = -0.5 * np.sum(nz * np.log2(nz))
    elif criterion == "sqrt":
        phi = 0.5 * np.sum(np.sqrt(p * (1 - p)))
    elif criterion == "misclassification":
        phi = 1.0 - p.max()
    else:
        raise ValueError(criterion)
    return n * phi


def node_stats(y, w, n_classes, criterion):
    if criterion == "squared_error":
        return np.array([w.sum(), (w * y).sum(), (w * y * y).sum()])
    return np.bincount(y, weights=w, minlength=n_classes).astype(float)


def all_splits(X, y, w, *, criterion, n_classes, categorical=(), min_samples_leaf=1,
               multiway=False):
    """Every valid test of a node with its gain: list of (gain, feature, description).

    Numeric features: every cut between consecutive distinct values (description = threshold
    midpoint). Categorical features: every bipartition of the present categories (description =
    frozenset of categories sent left), or the multiway test (description = "multiway").

    Missing values (NaN): a numeric cut is tried with the missing rows on the right and on the
    left (description ``(threshold, "missing right" | "missing left")``), and the test "value
    present / missing" is one more (description ``(inf, "missing right")``); in a categorical
    feature a missing value is one more category (``"missing"``).
    """
    parent = impurity_mass(node_stats(y, w, n_classes, criterion), criterion)
    out = []
    n, d = X.shape
    for f in range(d):
        col = X[:, f]
        nan = np.isnan(col)
        if f in categorical and nan.any():
            col = np.where(nan, -1.0, col)  # "missing": one more category
        values = np.unique(col[~nan]) if f not in categorical else np.unique(col)
        if f in categorical:
            if multiway:
                if len(values) < 2:
                    continue
                groups = [col == v for v in values]
                if any(g.sum() < min_samples_leaf for g in groups):
                    continue
                child = sum(impurity_mass(node_stats(y[g], w[g], n_classes, criterion),
                                          criterion) for g in groups)
                out.append((parent - child, f, "multiway"))
                continue
            rest = list(values[1:])
            for r in range(0, len(rest) + 1):
                for combo in itertools.combinations(rest, r):
                    left_set = frozenset([values[0], *combo])
                    if len(left_set) == len(values):
                        continue
                    mask = np.isin(col, list(left_set))
                    out.extend(_two_way(parent, mask, y, w, n_classes, criterion,
                                        min_samples_leaf, f, left_set))
            continue
        for a, b in zip(values[:-1], values[1:], strict=True):
            mask = col <= a
            if not nan.any():
                out.extend(_two_way(parent, mask, y, w, n_classes, criterion, min_samples_leaf,
                                    f, (a + b) / 2))
                continue
            for side, routed in (("missing right", mask), ("missing left", mask | nan)):
                out.extend(_two_way(parent, routed, y, w, n_classes, criterion,
                                    min_samples_leaf, f, ((a + b) / 2, side)))
        if nan.any() and values.size:
            out.extend(_two_way(parent, ~nan, y, w, n_classes, criterion, min_samples_leaf, f,
                                (math.inf, "missing right")))
    return out


def _two_way(parent, mask, y, w, n_classes, criterion, min_samples_leaf, f, description):
    if mask.sum() < min_samples_leaf or (~mask).sum() < min_samples_leaf:
        return []
    child = impurity_mass(node_stats(y[mask], w[mask], n_classes, criterion), criterion) + \
        impurity_mass(node_stats(y[~mask], w[~mask], n_classes, criterion), criterion)
    return [(parent - child, f, description)]


def best_gain(X, y, w, **kw) -> float:
    splits = all_splits(X, y, w, **kw)
    return max(g for g, _, _ in splits) if splits else -math.inf


def node_samples(tree, X_enc) -> list[np.ndarray]:
    """Indices of the rows of ``X_enc`` reaching every node (via the decision path)."""
    path = tree.decision_path(X_enc).tocsc()
    return [path.indices[path.indptr[i] : path.indptr[i + 1]] for i in range(tree.n_nodes)]


def split_gain(tree, node, samples, y, w, criterion, n_classes):
    """Gain of the test actually stored at ``node`` (mass of parent minus mass of children)."""
    parent = impurity_mass(node_stats(y[samples[node]], w[samples[node]], n_classes, criterion),
                           criterion)
    child = sum(impurity_mass(node_stats(y[samples[c]], w[samples[c]], n_classes, criterion),
                              criterion) for c in tree.children(node))
    return parent - child


def training_error(tree, X_enc, y) -> int:
    """Misclassified training rows of a classification tree."""
    leaves = tree.apply(X_enc)
    return int(np.sum(np.argmax(tree.value[leaves], axis=1) != y))
