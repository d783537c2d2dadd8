"""TopDown and BestFirst in the population setting (Brutzkus, Daniely & Malach 2020, §3 and §8.1).

Both algorithms start from a single leaf and, at every iteration, replace one leaf ``l`` by a test
on a variable ``x_i`` with ``i ∈ F_l`` (not yet on the path to ``l``). With exact probabilities
and the entropy criterion:

* TopDown (Kearns & Mansour, Figure 1) maximizes the weighted gain of Eq. (1),
  ``p(l) (H(q(l)) - (1 - τ_i) H(q(l_0)) - τ_i H(q(l_1)))``, the decrease of H(T);
* BestFirst (Shi, Figure 6) maximizes the same gain without the factor ``p(l)``.

Within a leaf both pick the variable of largest gain, so they differ only in which leaf they
split. The growth runs in a numba kernel (``treebound._kernels.mic``) on a class-count encoding of
the leaves; this module validates, calls it, and replays its moves to build the concrete trees.

Deterministic tie-breaking (gains within a relative :data:`TIE_TOLERANCE` count as equal):

1. among leaves with a maximal key, ``tie_break="least_probable"`` (default) takes the leaf with
   the smallest p(l), ``"most_probable"`` the largest; then the smallest canonical formula state;
   then the leaf created first (kernel slot order);
2. within a leaf, among maximal-gain literals, the term with the lexicographically smallest
   remaining-literal counts per class, then the class of smaller truth probability, then the
   earliest term, and within it the smallest variable index.

Figures 1 and 6 keep the *last* maximizer scanned (``Δ >= Δ_best``); scanning leaves in order of
creation, that is the newest leaf, and Appendix D's example (BestFirst building Figure 2a at t = 5)
needs the deeper of two equal-gain leaves: ``"least_probable"`` is the labelling-invariant version
of that rule. Only criteria invariant under renaming or negating variables decide between
non-equivalent candidates, so ``errors`` depend only on the multiset of term profiles.

The paper's loops split even when every gain is 0; such splits change no error, so here growth
stops once every leaf is constant (pure) and the remaining trees repeat the last one (they still
have at most ``t`` internal nodes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from treebound._kernels.mic import grow_population
from treebound.mic._checks import check_t_max
from treebound.mic._states import literal_classes
from treebound.mic.distributions import ProductDistribution, probability_positive
from treebound.mic.dnf import ReadOnceDNF

__all__ = ["GrowthResult", "PopulationTree", "best_first", "grow", "top_down"]

#: Relative gap under which two gains (or two leaf probabilities) are treated as equal.
TIE_TOLERANCE = 1e-12

#: Growth policy -> whether the gain is weighted by p(l) (Eq. (1)) or not (§8.1).
POLICIES: dict[str, bool] = {"top_down": True, "best_first": False}

#: Tie-break rule -> whether equal-key leaves of smaller p(l) win.
TIE_BREAKS: dict[str, bool] = {"least_probable": True, "most_probable": False}


@dataclass(frozen=True)
class PopulationTree:
    """A decision tree over Boolean variables with exact node statistics, as flat arrays.

    Root ``0``; an internal node ``i`` tests ``feature[i]`` and sends ``x = 0`` to
    ``first_child[i]`` and ``x = 1`` to ``first_child[i] + 1``; leaves have ``first_child = -1``
    and ``feature = -1`` (the layout of :class:`treebound.tree.Tree`). The trees of
    :class:`GrowthResult`.

    Parameters
    ----------
    first_child : ndarray of int64, shape (n_nodes,)
        First child id, ``-1`` for a leaf.
    feature : ndarray of int64, shape (n_nodes,)
        Tested variable (0-based), ``-1`` for a leaf.
    probability : ndarray of float64, shape (n_nodes,)
        ``p(v)``, the probability of reaching the node.
    positive_rate : ndarray of float64, shape (n_nodes,)
        ``q(v) = P[F = 1 | reach v]``.

    Examples
    --------
    >>> from treebound.mic import ProductDistribution, ReadOnceDNF, top_down
    >>> f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4 & x5)")
    >>> result = top_down(f, ProductDistribution.uniform(5), 3)
    >>> tree = result.trees[2]
    >>> print(tree)
    x1 = 0:
      leaf: label 0, p = 0.5, q = 0.125
    x1 = 1:
      x2 = 0:
        leaf: label 0, p = 0.25, q = 0.125
      x2 = 1:
        leaf: label 1, p = 0.25, q = 1
    >>> tree.n_internal, tree.error  # E(T) = sum_leaves p(l) min(q(l), 1 - q(l))
    (2, 0.09375)
    """

    first_child: np.ndarray
    feature: np.ndarray
    probability: np.ndarray
    positive_rate: np.ndarray

    @property
    def n_nodes(self) -> int:
        return int(self.feature.size)

    @property
    def n_internal(self) -> int:
        return int((self.first_child >= 0).sum())

    @property
    def is_leaf(self) -> np.ndarray:
        return self.first_child < 0

    @property
    def labels(self) -> np.ndarray:
        """Majority label of every node: 1 if q(v) >= 1/2 (section 3)."""
        return (self.positive_rate >= 0.5).astype(np.uint8)

    @property
    def error(self) -> float:
        """E(T) = Σ_{leaves} p(l) C(q(l)) with C(x) = min(x, 1 - x) (section 3)."""
        leaves = self.is_leaf
        q = self.positive_rate[leaves]
        return float(np.sum(self.probability[leaves] * np.minimum(q, 1.0 - q)))

    @property
    def split_variables(self) -> np.ndarray:
        """The (0-based) variable tested at each internal node, in node order."""
        return self.feature[self.first_child >= 0]

    def predict(self, X) -> np.ndarray:
        """Labels of the leaves reached by the rows of a 0/1 matrix.

        Parameters
        ----------
        X : array-like of 0/1, shape (n_samples, n_variables)
            Assignments (at least as many columns as the largest variable tested).

        Returns
        -------
        ndarray of uint8, shape (n_samples,)
            The majority label of each row's leaf (1 where ``q >= 1/2``).

        Examples
        --------
        >>> from treebound.mic import ProductDistribution, ReadOnceDNF, top_down
        >>> f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4 & x5)")
        >>> result = top_down(f, ProductDistribution.uniform(5), 3)
        >>> result.trees[2].predict([[1, 1, 0, 0, 0], [0, 1, 1, 1, 1], [1, 0, 1, 1, 1]]).tolist()
        [1, 0, 0]
        """
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D 0/1 matrix, got shape {X.shape}")
        used = self.feature[self.feature >= 0]
        if used.size and used.max() >= X.shape[1]:
            raise ValueError(f"X has {X.shape[1]} columns but the tree tests x{used.max() + 1}")
        node = np.zeros(X.shape[0], dtype=np.int64)
        for _ in range(self.n_nodes):
            inner = self.first_child[node] >= 0
            if not inner.any():
                break
            rows = np.flatnonzero(inner)
            values = X[rows, self.feature[node[rows]]].astype(np.int64)
            node[rows] = self.first_child[node[rows]] + values
        return self.labels[node]

    def __str__(self) -> str:
        lines: list[str] = []

        def visit(node: int, indent: str) -> None:
            if self.first_child[node] < 0:
                q = self.positive_rate[node]
                lines.append(
                    f"{indent}leaf: label {int(q >= 0.5)}, p = {self.probability[node]:.6g}, "
                    f"q = {q:.6g}"
                )
                return
            for value in (0, 1):
                lines.append(f"{indent}x{self.feature[node] + 1} = {value}:")
                visit(int(self.first_child[node] + value), indent + "  ")

        visit(0, "")
        return "\n".join(lines)


@dataclass(frozen=True)
class GrowthResult:
    """Outcome of :func:`top_down` / :func:`best_first`: the trees ``T_0 .. T_t_max`` and errors.

    Parameters
    ----------
    policy : {"top_down", "best_first"}
        The growth policy.
    tie_break : {"least_probable", "most_probable"}
        The tie-break rule among equal-gain leaves.
    errors : ndarray of float64, shape (t_max + 1,)
        ``errors[t] = E(T_t)``; ``errors[0]`` is the single leaf's error.
    trees : tuple of PopulationTree
        ``T_0 .. T_t_max`` (``T_t`` has at most ``t`` internal nodes).
    n_splits : int
        Splits actually made (fewer than ``t_max`` once every leaf is pure).

    Examples
    --------
    >>> from treebound.mic import ProductDistribution, ReadOnceDNF, top_down
    >>> f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4 & x5)")
    >>> result = top_down(f, ProductDistribution.uniform(5), 3)
    >>> result.policy, result.n_splits, result.errors.tolist()
    ('top_down', 3, [0.34375, 0.28125, 0.09375, 0.09375])
    """

    policy: str
    tie_break: str
    errors: np.ndarray
    trees: tuple[PopulationTree, ...]
    n_splits: int


def top_down(
    dnf: ReadOnceDNF, dist: ProductDistribution, t_max: int, *, tie_break: str = "least_probable"
) -> GrowthResult:
    """Kearns–Mansour TopDown_D(t) (Figure 1) for t = 0..t_max, with exact probabilities.

    Parameters
    ----------
    dnf : ReadOnceDNF
        The target f.
    dist : ProductDistribution
        Any product distribution with at least ``dnf.n_variables`` variables.
    t_max : int
        Number of iterations (internal nodes of the last tree).
    tie_break : {"least_probable", "most_probable"}
        Which of several leaves with equal weighted gain to split (see the module docstring).

    Returns
    -------
    GrowthResult

    Examples
    --------
    >>> f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4 & x5)")
    >>> result = top_down(f, ProductDistribution.uniform(5), 5)
    >>> result.errors.round(5).tolist()
    [0.34375, 0.28125, 0.09375, 0.09375, 0.09375, 0.03125]
    >>> (result.trees[5].split_variables + 1).tolist()
    [1, 3, 2, 4, 5]
    """
    return grow(dnf, dist, t_max, policy="top_down", tie_break=tie_break)


def best_first(
    dnf: ReadOnceDNF, dist: ProductDistribution, t_max: int, *, tie_break: str = "least_probable"
) -> GrowthResult:
    """Shi's BestFirst_D(t) (Brutzkus, Daniely & Malach 2020, Figure 6) for ``t = 0..t_max``.

    Exact probabilities; the leaf to split is chosen by the unweighted gain (section 8.1), the
    variable within it by the largest gain, as in :func:`top_down`.

    Parameters
    ----------
    dnf : ReadOnceDNF
        The target ``f``.
    dist : ProductDistribution
        Any product distribution with at least ``dnf.n_variables`` variables.
    t_max : int
        Number of iterations (internal nodes of the last tree).
    tie_break : {"least_probable", "most_probable"}, default="least_probable"
        Which of several leaves with equal gain to split (see the module docstring).

    Returns
    -------
    GrowthResult

    Examples
    --------
    Appendix D: on (x1∧x2)∨(y1∧y2∧y3) BestFirst grows the subtree of the deeper of two equal-gain
    leaves and ends at t = 5 with Figure 2a, whose error 1/16 is twice TopDown's optimal 1/32.

    >>> f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4 & x5)")
    >>> float(best_first(f, ProductDistribution.uniform(5), 5).errors[5])
    0.0625
    """
    return grow(dnf, dist, t_max, policy="best_first", tie_break=tie_break)


def grow(
    dnf: ReadOnceDNF,
    dist: ProductDistribution,
    t_max: int,
    *,
    policy: str,
    tie_break: str = "least_probable",
) -> GrowthResult:
    """Run the growth policy ``policy`` for ``t = 0..t_max`` (what :func:`top_down` and
    :func:`best_first` call).

    Parameters
    ----------
    dnf : ReadOnceDNF
        The target ``f``.
    dist : ProductDistribution
        Any product distribution with at least ``dnf.n_variables`` variables.
    t_max : int
        Number of iterations (internal nodes of the last tree).
    policy : {"top_down", "best_first"}
        Gain weighted by ``p(l)`` (Kearns & Mansour's TopDown, Eq. 1) or not (Shi's BestFirst).
    tie_break : {"least_probable", "most_probable"}, default="least_probable"
        Which of several leaves with equal gain to split (see the module docstring).

    Returns
    -------
    GrowthResult

    Examples
    --------
    >>> f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4 & x5)")
    >>> grow(f, ProductDistribution.uniform(5), 3, policy="best_first").errors.tolist()
    [0.34375, 0.28125, 0.09375, 0.09375]
    """
    t_max = check_t_max(t_max)
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {sorted(POLICIES)}, got {policy!r}")
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"tie_break must be one of {sorted(TIE_BREAKS)}, got {tie_break!r}")
    classes = literal_classes(dnf, dist)
    errors, split_slot, split_term, split_class, n_splits = grow_population(
        classes.term_counts,
        classes.term_counts.shape[0],
        classes.probabilities,
        POLICIES[policy],
        TIE_BREAKS[tie_break],
        t_max,
        TIE_TOLERANCE,
    )
    trees = _replay(dnf, dist, classes, split_slot, split_term, split_class, int(n_splits), t_max)
    errors.setflags(write=False)
    return GrowthResult(policy, tie_break, errors, trees, int(n_splits))


def _replay(dnf, dist, classes, split_slot, split_term, split_class, n_splits, t_max):
    """Turn the kernel's (slot, term, class) moves into concrete trees T_0 .. T_t_max.

    Slot bookkeeping mirrors the kernel: the literal-true child stays in the split slot and the
    literal-false child is appended. The variable tested is the smallest-index literal of the
    chosen class in the chosen term that is still off the path.
    """
    paths: list[dict[int, int]] = [{}]
    feature = [-1]
    first_child = [-1]
    split_at = [t_max + 1]  # iteration at which each node was split (t_max + 1: never)
    slot_node = [0]
    for t in range(n_splits):
        slot, term, klass = int(split_slot[t]), int(split_term[t]), int(split_class[t])
        node = slot_node[slot]
        path = paths[node]
        literal = min(
            (
                literal
                for literal, c in zip(dnf.terms[term], classes.literal_class[term], strict=True)
                if c == klass and literal.variable not in path
            ),
            key=lambda lit: lit.variable,
        )
        feature[node] = literal.variable
        first_child[node] = len(feature)
        split_at[node] = t + 1
        for value in (0, 1):
            paths.append({**path, literal.variable: value})
            feature.append(-1)
            first_child.append(-1)
            split_at.append(t_max + 1)
        true_child = first_child[node] + (1 if literal.positive else 0)
        false_child = first_child[node] + (0 if literal.positive else 1)
        slot_node[slot] = true_child
        slot_node.append(false_child)

    feature_all = np.array(feature, dtype=np.int64)
    first_child_all = np.array(first_child, dtype=np.int64)
    split_at_all = np.array(split_at, dtype=np.int64)
    probability_all = np.array([dist.path_probability(path) for path in paths])
    positive_all = np.array([probability_positive(dnf, dist, path) for path in paths])
    for array in (probability_all, positive_all):
        array.setflags(write=False)
    trees = []
    for t in range(t_max + 1):
        n_nodes = 1 + 2 * min(t, n_splits)
        internal = split_at_all[:n_nodes] <= t
        first_child_t = np.where(internal, first_child_all[:n_nodes], -1)
        feature_t = np.where(internal, feature_all[:n_nodes], -1)
        first_child_t.setflags(write=False)
        feature_t.setflags(write=False)
        trees.append(
            PopulationTree(
                first_child=first_child_t,
                feature=feature_t,
                probability=probability_all[:n_nodes],
                positive_rate=positive_all[:n_nodes],
            )
        )
    return tuple(trees)
