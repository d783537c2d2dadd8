"""Naive reference implementations for ``treebound.mic`` — test oracles, deliberately slow.

Everything here works on the full truth table of {0, 1}^n (n <= ~10): probabilities are sums of
point masses, a leaf is the set of points agreeing with its path, and nothing uses the class-count
encoding, the independence of terms or the paper's DPs.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import strategies as st

from treebound.mic import Literal, ProductDistribution, ReadOnceDNF

TOLERANCE = 1e-12


@st.composite
def read_once_dnfs(draw, max_terms=4, max_literals=4, max_extra=2):
    """Hypothesis strategy: any read-once DNF (shuffled variables, random signs, unused variables)."""
    sizes = draw(st.lists(st.integers(1, max_literals), min_size=1, max_size=max_terms))
    n = sum(sizes) + draw(st.integers(0, max_extra))
    variables = draw(st.permutations(range(n)))
    signs = draw(st.lists(st.booleans(), min_size=sum(sizes), max_size=sum(sizes)))
    terms, position = [], 0
    for size in sizes:
        terms.append(
            [Literal(variables[position + j], signs[position + j]) for j in range(size)]
        )
        position += size
    return ReadOnceDNF(terms, n)


@st.composite
def dnfs_with_distributions(draw, max_terms=3, max_literals=3, kinds=("uniform", "two_valued", "any")):
    """A small read-once DNF and a uniform, two-valued or arbitrary product distribution."""
    f = draw(read_once_dnfs(max_terms, max_literals, max_extra=1))
    n = f.n_variables
    kind = draw(st.sampled_from(kinds))
    if kind == "uniform":
        return f, ProductDistribution.uniform(n)
    if kind == "two_valued":
        # p2 = 1 - p1 keeps negated literals inside the two classes (the DP's domain).
        p1, p2 = draw(st.sampled_from([(0.3, 0.7), (0.4, 0.6), (0.25, 0.75)]))
        groups = draw(st.lists(st.sampled_from([1, 2]), min_size=n, max_size=n))
        return f, ProductDistribution.two_valued(p1, p2, groups)
    return f, ProductDistribution(draw(st.lists(st.floats(0.1, 0.9), min_size=n, max_size=n)))


class TruthTable:
    """All 2^n points with their probabilities and labels."""

    def __init__(self, dnf: ReadOnceDNF, dist: ProductDistribution):
        n = dist.n_variables
        self.dnf = dnf
        self.n = n
        self.X = np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.uint8)
        self.weight = np.prod(np.where(self.X == 1, dist.p, 1.0 - dist.p), axis=1)
        padded = self.X[:, : dnf.n_variables]
        self.y = np.array(
            [
                any(all(row[v] == int(positive) for v, positive in term) for term in dnf.terms)
                for row in padded
            ],
            dtype=np.uint8,
        )
        # Index of each point with one bit flipped, to test whether a variable matters locally.
        powers = 1 << np.arange(n - 1, -1, -1)
        index = self.X.astype(np.int64) @ powers
        self.flipped = [index ^ int(powers[v]) for v in range(n)]

    def mask(self, path: dict[int, int]) -> np.ndarray:
        mask = np.ones(len(self.X), dtype=bool)
        for variable, value in path.items():
            mask &= self.X[:, variable] == value
        return mask

    def mass(self, mask) -> float:
        return float(self.weight[mask].sum())

    def positive_rate(self, mask) -> float:
        total = self.weight[mask].sum()
        return float(self.weight[mask & (self.y == 1)].sum() / total)

    def leaf_error_mass(self, mask) -> float:
        positive = self.weight[mask & (self.y == 1)].sum()
        negative = self.weight[mask & (self.y == 0)].sum()
        return float(min(positive, negative))

    def matters(self, mask, variable: int) -> bool:
        """Whether flipping ``variable`` changes F somewhere in the leaf."""
        rows = np.flatnonzero(mask)
        return bool(np.any(self.y[rows] != self.y[self.flipped[variable][rows]]))


def brute_force_optimal_errors(dnf, dist, t_max: int) -> np.ndarray:
    """OPT(t) by exhaustive search over every tree with <= t internal nodes on any variable.

    The minimum over trees decomposes over the root test and the split of the budget between the
    two subtrees (their errors add); that is the definition, not the paper's DP.
    """
    table = TruthTable(dnf, dist)
    memo: dict[tuple, float] = {}

    def best(path: tuple, budget: int) -> float:
        key = (path, budget)
        if key in memo:
            return memo[key]
        mask = table.mask(dict(path))
        value = table.leaf_error_mass(mask)
        if budget > 0 and value > 0:
            on_path = {v for v, _ in path}
            for variable in range(table.n):
                if variable in on_path:
                    continue
                zero = tuple(sorted(path + ((variable, 0),)))
                one = tuple(sorted(path + ((variable, 1),)))
                for j in range(budget):
                    value = min(value, best(zero, j) + best(one, budget - 1 - j))
        memo[key] = value
        return value

    return np.array([best((), t) for t in range(t_max + 1)])


def _entropy(q: float) -> float:
    return sum(-x * math.log2(x) for x in (q, 1.0 - q) if x > 0.0)


def literal_class_probabilities(dnf, dist) -> list[float]:
    values = sorted(
        dist.literal_probability(v, positive) for term in dnf.terms for v, positive in term
    )
    classes: list[float] = []
    for value in values:
        if not classes or value - classes[-1] > TOLERANCE:
            classes.append(value)
    return classes


def naive_growth_errors(dnf, dist, t_max: int, policy: str, tie_break: str) -> np.ndarray:
    """TopDown / BestFirst by scanning every (leaf, variable) pair of an explicit tree.

    Gains come from truth-table sums; a variable that changes F nowhere in the leaf has gain 0.
    Ties follow the documented rule of ``treebound.mic.population``: near-maximal key, then the
    least (or most) probable leaf, then the smallest canonical state; within the leaf the smallest
    (term remaining-literal counts per class, class).
    """
    table = TruthTable(dnf, dist)
    classes = literal_class_probabilities(dnf, dist)

    def class_of(variable: int, positive: bool) -> int:
        probability = dist.literal_probability(variable, positive)
        return min(range(len(classes)), key=lambda c: abs(classes[c] - probability))

    def profiles(path):
        """Remaining-literal class counts of every term the path has not falsified."""
        rows = []
        for term in dnf.terms:
            if any(v in path and path[v] != int(positive) for v, positive in term):
                continue
            row = [0] * len(classes)
            for v, positive in term:
                if v not in path:
                    row[class_of(v, positive)] += 1
            rows.append(tuple(row))
        return rows

    def literal_key(path, variable):
        for term in dnf.terms:
            for v, positive in term:
                if v == variable:
                    row = [0] * len(classes)
                    for w, sign in term:
                        if w not in path:
                            row[class_of(w, sign)] += 1
                    return (tuple(row), class_of(v, positive))
        raise AssertionError("a variable outside the formula cannot have a positive gain")

    def evaluate(path):
        mask = table.mask(path)
        q = table.positive_rate(mask)
        gains = {}
        for variable in range(table.n):
            if variable in path or not table.matters(mask, variable):
                continue
            m0, m1 = mask & (table.X[:, variable] == 0), mask & (table.X[:, variable] == 1)
            tau = table.mass(m1) / table.mass(mask)
            gains[variable] = (
                _entropy(q)
                - tau * _entropy(table.positive_rate(m1))
                - (1 - tau) * _entropy(table.positive_rate(m0))
            )
        if not gains:
            return 0.0, None
        g_max = max(gains.values())
        near = [v for v, g in gains.items() if g >= g_max * (1 - TOLERANCE)]
        return g_max, min(near, key=lambda v: (literal_key(path, v), v))

    leaves = [{}]
    info = [evaluate({})]
    errors = [sum(table.leaf_error_mass(table.mask(p)) for p in leaves)]
    for _ in range(t_max):
        masses = [table.mass(table.mask(p)) for p in leaves]
        keys = [
            gain * mass if policy == "top_down" else gain
            for (gain, _), mass in zip(info, masses, strict=True)
        ]
        k_max = max(keys)
        if k_max <= 0:
            errors.append(errors[-1])
            continue
        near = [i for i, k in enumerate(keys) if k >= k_max * (1 - TOLERANCE)]
        pick = min if tie_break == "least_probable" else max
        extreme = pick(masses[i] for i in near)
        near = [i for i in near if abs(masses[i] - extreme) <= TOLERANCE * extreme]
        chosen = min(near, key=lambda i: (len(profiles(leaves[i])), sorted(profiles(leaves[i]))))
        path = leaves.pop(chosen)
        _, variable = info.pop(chosen)
        for value in (0, 1):
            child = {**path, variable: value}
            leaves.append(child)
            info.append(evaluate(child))
        errors.append(sum(table.leaf_error_mass(table.mask(p)) for p in leaves))
    return np.array(errors)
