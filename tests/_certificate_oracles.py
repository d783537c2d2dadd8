"""Naive oracles for the certificate bounds: exact fractions and brute force on tiny cases."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np


def binomial_cdf(k: int, n: int, p: Fraction) -> Fraction:
    return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k + 1))


def binomial_sf(k: int, n: int, p: Fraction) -> Fraction:
    """P(X >= k)."""
    return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1))


def hypergeometric_cdf(k: int, m: int, K: int, M: int) -> Fraction:
    total = math.comb(M, m)
    return Fraction(sum(math.comb(K, j) * math.comb(M - K, m - j) for j in range(k + 1)), total)


def hypergeometric_tail_inversion(k: int, m: int, delta: Fraction, M: int) -> int:
    """min{K : Hyp(k; m, K, M) <= delta}, by scanning every K (M - m + k + 1 if none)."""
    for K in range(k, M - m + k + 1):
        if hypergeometric_cdf(k, m, K, M) <= delta:
            return K
    return M - m + k + 1


def hypergeometric_tail_lower_inversion(k: int, m: int, delta: Fraction, M: int) -> int:
    """max{K : P(X > k) <= delta}, by scanning every K."""
    best = k
    for K in range(k, M + 1):
        if 1 - hypergeometric_cdf(k, m, K, M) <= delta:
            best = K
    return best


def tree_labelings(structure, points: np.ndarray, n_classes: int) -> int:
    """Distinct labelings of ``points`` (rows, real features) realized by trees of this shape:
    every internal node picks a feature, a threshold among all cut positions (empty sides
    included) and which child gets the low side; leaves pick any of ``n_classes`` labels."""
    n_points, n_features = points.shape
    cuts = []
    for f in range(n_features):
        values = np.unique(points[:, f])
        edges = np.concatenate([[values[0] - 1.0], (values[:-1] + values[1:]) / 2,
                                [values[-1] + 1.0]])
        cuts.extend((f, t) for t in edges)

    def assignments(t, idx):
        """Set of tuples: leaf number (in this subtree) of every index of idx."""
        if t.is_leaf:
            return {tuple(0 for _ in idx)}
        out = set()
        n_left = t.left.n_leaves
        for f, thr in cuts:
            low = [i for i in idx if points[i, f] <= thr]
            high = [i for i in idx if points[i, f] > thr]
            for first, second in ((low, high), (high, low)):
                for a in assignments(t.left, first):
                    for b in assignments(t.right, second):
                        mapping = dict(zip(first, a, strict=True))
                        mapping.update({i: n_left + leaf for i, leaf in
                                        zip(second, b, strict=True)})
                        out.add(tuple(mapping[i] for i in idx))
        return out

    leaf_maps = assignments(structure, list(range(n_points)))
    labelings = set()
    for leaves in leaf_maps:
        for labels in itertools.product(range(n_classes), repeat=structure.n_leaves):
            labelings.add(tuple(labels[leaf] for leaf in leaves))
    return len(labelings)
