"""The weakest-link sequence of CART's cost-complexity pruning (Breiman et al., 1984, section
3.3) and M-CART's complexity (Leboeuf et al., 2020, section 6.2): the nested trees
``T_0 > T_1 > ... > root`` that :mod:`.cost_complexity` prunes to and cross-validates (its
docstring gives the link strength ``g(t)``). Re-exported there.
"""

from __future__ import annotations

import math

import numpy as np

from treebound._flat._sklearn_view import as_flat
from treebound._options import RISKS
from treebound.pruning._core import misclassified_weight, node_statistics

__all__ = ["COMPLEXITIES", "WeakestLinkSequence", "mcart_complexity", "weakest_link_sequence"]


def mcart_complexity(n_examples: int, n_features: int):
    """The complexity of M-CART (Leboeuf et al. 2020, section 6.2): ``c(L) = d ln(m / d)`` with
    ``d = L ln(L ell)``, in place of CART's ``c(L) = L``.

    Parameters
    ----------
    n_examples : int
        ``m``, the training examples.
    n_features : int
        ``ell``, the features.

    Returns
    -------
    callable
        ``c(n_leaves)``, vectorized over an array of leaf counts (0 where ``d <= 0``).

    Examples
    --------
    >>> c = mcart_complexity(150, 4)
    >>> c([1, 2, 5]).round(3).tolist()  # 1 leaf: ln(4) ln(150 / ln 4)
    [6.493, 14.911, 34.511]
    """
    m, ell = float(n_examples), float(n_features)

    def c(n_leaves):
        L = np.asarray(n_leaves, dtype=np.float64)
        d = L * np.log(L * ell)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = d * np.log(m / d)
        return np.where(d > 0, out, 0.0)

    return c


#: Method -> factory ``(m, ell) -> c(L)``; ``None`` is CART's ``c(L) = L`` (the classic
#: ``g = (R(t) - R(T_t)) / (L - 1)``, computed without a callable).
COMPLEXITIES = {"ccp_cv": None, "mcart_cv": mcart_complexity}


class WeakestLinkSequence:
    """The weakest-link pruning sequence of a tree (:func:`weakest_link_sequence` builds it).

    The constructor stores its arguments as attributes of the same names.

    Parameters
    ----------
    links : list of (alpha, node)
        Every single collapse in order (ties at the same alpha are separate entries, as in
        scikit-learn's ``cost_complexity_pruning_path``).
    alphas : ndarray
        The distinct alphas ``alpha_0 = 0 < alpha_1 < ...``; tree ``T_k`` is the tree after all
        links with ``alpha <= alphas[k]``.
    step_of_node : ndarray of int
        Index ``k`` of the first tree in which each internal node is a leaf (``-1`` for the
        grown tree's leaves, a large value for nodes never collapsed themselves).
    n_leaves, risk : ndarray
        Leaves and total risk of every ``T_k``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    >>> seq = weakest_link_sequence(tree)
    >>> len(seq), seq.n_leaves.tolist()
    (6, [9, 7, 4, 3, 2, 1])
    >>> seq.alphas.round(4).tolist()
    [0.0, 0.0033, 0.0067, 0.0133, 0.2933, 0.3333]
    """

    def __init__(self, links, alphas, step_of_node, n_leaves, risk):
        self.links = links
        self.alphas = alphas
        self.step_of_node = step_of_node
        self.n_leaves = n_leaves
        self.risk = risk

    def __len__(self) -> int:
        return int(self.alphas.shape[0])

    def make_leaf(self, k: int) -> np.ndarray:
        """Collapse mask of ``T_k`` over the grown tree's nodes.

        Parameters
        ----------
        k : int
            Index of the tree in the sequence (0 is the grown tree with its zero-gain links
            collapsed).

        Returns
        -------
        ndarray of bool, shape (n_nodes,)
            ``make_leaf`` for :meth:`treebound.tree.Tree.collapse`.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
        >>> seq = weakest_link_sequence(tree)
        >>> pruned, _ = tree.collapse(seq.make_leaf(2))
        >>> pruned.n_leaves, int(seq.n_leaves[2])
        (4, 4)
        """
        return (self.step_of_node >= 0) & (self.step_of_node <= k)

    def index_at(self, alpha: float) -> int:
        """Index of the tree of the sequence that is optimal at ``alpha``.

        Parameters
        ----------
        alpha : float
            Complexity parameter, ``>= 0``.

        Returns
        -------
        int
            The last ``k`` with ``alphas[k] <= alpha``.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> seq = weakest_link_sequence(DecisionTreeClassifier(random_state=0).fit(X, y).tree_)
        >>> seq.index_at(0.0), seq.index_at(0.01), seq.index_at(1.0)
        (0, 2, 5)
        """
        return int(np.searchsorted(self.alphas, alpha, side="right") - 1)


def node_risk(tree, risk: str) -> np.ndarray:
    """``R(t)`` of every node as a leaf, as a fraction of the root's weight."""
    tree = as_flat(tree)
    if risk not in RISKS:
        raise ValueError(f"risk must be one of {RISKS}, got {risk!r}")
    w = tree.weighted_n_node_samples
    if tree.task == "classification" and risk == "error":
        loss = misclassified_weight(tree.value)
    else:
        loss = tree.impurity * w
    return loss / w[0]


def weakest_link_sequence(tree, risk: str = "error", complexity=None) -> WeakestLinkSequence:
    """Weakest-link sequence of ``tree`` (Breiman et al. 1984, section 3.3; see the module
    docstring).

    Links whose denominator is not positive are never weak (``g = inf``); if only such links
    remain, the sequence stops before the root.

    Parameters
    ----------
    tree : Tree
        A fitted tree.
    risk : {"error", "impurity"}, default="error"
        ``R(t)``: the misclassification rate or the criterion's impurity (regression trees use
        the squared error either way).
    complexity : callable or None, default=None
        ``c(L)``, vectorized over leaf counts (:func:`mcart_complexity`); ``None`` is CART's
        ``c(L) = L``.

    Returns
    -------
    WeakestLinkSequence

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    >>> seq = weakest_link_sequence(tree)
    >>> seq.n_leaves.tolist(), seq.risk.round(4).tolist()  # training error of every T_k
    ([9, 7, 4, 3, 2, 1], [0.0, 0.0067, 0.0267, 0.04, 0.3333, 0.6667])
    >>> weakest_link_sequence(tree, complexity=mcart_complexity(150, 4)).n_leaves.tolist()
    [9, 7, 4, 3, 2, 1]
    """
    tree = as_flat(tree)
    stats = node_statistics(tree)
    r_node = node_risk(tree, risk)
    n = tree.n_nodes
    fc = tree.first_child
    r_branch = np.where(fc < 0, r_node, 0.0)
    for i in range(n - 1, 0, -1):
        r_branch[stats.parent[i]] += r_branch[i]
    leaves = stats.subtree_leaves.copy()
    candidate = fc >= 0
    c1 = 1.0 if complexity is None else float(complexity(np.array([1]))[0])
    parent = stats.parent
    links = []
    step_alpha = []
    collapsed_at = np.full(n, -1, dtype=np.int64)
    totals = [(int(leaves[0]), float(r_branch[0]))]
    while candidate.any():
        idx = np.flatnonzero(candidate)
        gain = r_node[idx] - r_branch[idx]
        if complexity is None:
            denom = leaves[idx] - 1.0
        else:
            denom = complexity(leaves[idx]) - c1
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(denom > 0, gain / denom, np.inf)
        best = int(np.argmin(g))
        alpha = float(g[best])
        if not math.isfinite(alpha):
            break
        v = int(idx[best])
        links.append((alpha, v))
        step_alpha.append(alpha)
        collapsed_at[v] = len(links) - 1
        d_leaves = int(leaves[v]) - 1
        d_risk = float(r_node[v] - r_branch[v])
        p = int(parent[v])
        while p >= 0:
            leaves[p] -= d_leaves
            r_branch[p] += d_risk
            p = int(parent[p])
        below = stats.order[stats.preorder[v] : stats.subtree_end[v]]
        candidate[below] = False
        leaves[v] = 1
        r_branch[v] = r_node[v]
        totals.append((int(leaves[0]), float(r_branch[0])))
    # Group equal alphas into the trees T_k of the sequence (alpha_0 = 0 is the grown tree
    # with its zero-gain links already collapsed).
    raw = np.asarray(step_alpha, dtype=np.float64)
    alphas = [0.0]
    tree_of_link = np.empty(len(links), dtype=np.int64)
    for i, a in enumerate(raw.tolist()):
        if a > alphas[-1] and not math.isclose(a, alphas[-1], rel_tol=1e-9, abs_tol=1e-15):
            alphas.append(a)
        tree_of_link[i] = len(alphas) - 1
    big = np.iinfo(np.int64).max // 2
    step_of_node = np.where(fc < 0, -1, big).astype(np.int64)
    for i, (_, v) in enumerate(links):
        step_of_node[v] = tree_of_link[i]
    n_leaves = np.empty(len(alphas), dtype=np.int64)
    risk_k = np.empty(len(alphas), dtype=np.float64)
    n_leaves[0], risk_k[0] = totals[0]
    for i in range(len(links)):
        n_leaves[tree_of_link[i]], risk_k[tree_of_link[i]] = totals[i + 1]
    return WeakestLinkSequence(links, np.asarray(alphas), step_of_node, n_leaves, risk_k)
