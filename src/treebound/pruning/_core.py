"""The generic pruning pass shared by every method: controller -> collapse mask -> one rebuild.

Every pruner in :mod:`treebound.pruning` works on the grown :class:`~treebound.tree.Tree` without
copying it: a *controller* (the method) decides, node by node, which internal nodes become
leaves, on top of the per-node statistics computed here once (:class:`NodeStatistics`) and of a
mutable :class:`WorkingTree` that keeps subtree leaf counts and training errors up to date along
the root path of each collapse. The result is a boolean ``make_leaf`` mask over the grown tree's
nodes, turned into the pruned tree by a single :meth:`Tree.collapse` call (the pattern of
scikit-learn's ``_cost_complexity_prune`` + ``_build_pruned_tree``).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from treebound._flat._sklearn_view import as_flat
from treebound._flat._storage import Tree

__all__ = ["NodeStatistics", "PruningResult", "WorkingTree", "finish", "misclassified_weight",
           "node_statistics"]


@dataclass(frozen=True, eq=False)
class PruningResult:
    """What :func:`treebound.prune` and :func:`treebound.pruning.run_pruning` return.

    A frozen record; the fields below are its attributes.

    Parameters
    ----------
    tree : Tree
        The pruned tree: a new object, the input tree is left untouched.
    make_leaf : ndarray of bool, shape (n_nodes_of_input_tree,)
        ``True`` for the internal nodes of the input tree that were turned into leaves (their
        descendants are dropped). ``tree == input.collapse(make_leaf)[0]``, except when
        certified selection chose one of its optimal candidates (``info["chosen_optimal"]``),
        a tree that is not a pruning of the input: then every entry is ``False``.
    old_to_new : ndarray of int
        Node id in ``tree`` of every node of the input tree (``-1`` for dropped nodes; every
        entry ``-1`` for an optimal candidate).
    method : str
        The pruning method.
    path : tuple of (int, float)
        The sequence of ``(n_leaves, objective)`` visited, in order (see each method for what
        the objective is: the bound ``eps`` for "bound", the root's ``E_g`` for "srm", the
        held-out error for "reduced_error", the cross-validated error of each tree of the
        weakest-link sequence for "ccp_cv"/"mcart_cv"/"certified").
    objective : float or None
        The final value of the objective the method minimized, when that is a risk bound:
        "bound" — the Shawe-Taylor ``eps`` (Eq. 8 of Leboeuf et al. 2020, may exceed 1) or the
        certificate its ``objective`` option names; "srm" — Vapnik's ``E_g`` of the whole tree
        (Yıldız 2015 Eqs. 2-3); "certified" — the chosen tree's certificate; ``None`` for the
        other methods. (``bound`` is its deprecated
        alias.)
    time : float
        Wall-clock seconds spent pruning (for the CV methods this includes growing the fold
        trees; it never includes growing the input tree).
    info : dict, optional
        Method-specific details (e.g. the alphas and CV errors of "ccp_cv", the candidate
        evaluation counts of "bound").
    estimator : object or None, optional
        When an estimator was pruned: a copy of it holding the pruned tree and the fitted
        attributes ``pruning_objective_``, ``pruning_path_``, ``pruning_time_``. ``None`` for a
        bare tree.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> grown = DecisionTreeClassifier(random_state=0).fit(X, y)
    >>> from treebound.pruning import run_pruning
    >>> result = run_pruning(grown.tree_, "bound")
    >>> result.method, grown.get_n_leaves(), result.n_leaves, int(result.make_leaf.sum())
    ('bound', 9, 7, 1)
    >>> [n for n, _ in result.path], round(result.objective, 4)
    ([9, 7], 1.7789)
    """

    tree: Tree
    make_leaf: np.ndarray
    old_to_new: np.ndarray
    method: str
    path: tuple
    objective: float | None
    time: float
    info: dict = field(default_factory=dict)
    estimator: object | None = None

    @property
    def n_leaves(self) -> int:
        return self.tree.n_leaves

    @property
    def bound(self) -> float | None:
        """Deprecated alias of :attr:`objective` (removed in the next release)."""
        warnings.warn("PruningResult.bound is now called objective: bound will stop working in "
                      "the next release", FutureWarning, stacklevel=2)
        return self.objective


@dataclass(frozen=True)
class NodeStatistics:
    """Per-node quantities of a grown tree that every pruner needs (computed once).

    ``leaf_loss[i]`` is the training loss of node ``i`` if it were a leaf: weighted
    misclassified mass (classification) or sum of squared errors (regression).
    ``subtree_loss[i]`` and ``subtree_leaves[i]`` are the loss and the leaf count of the full
    subtree rooted at ``i``. ``preorder``/``subtree_end`` locate subtrees: the nodes of the
    subtree of ``i`` are ``order[preorder[i] : subtree_end[i]]`` with ``order`` the preorder.
    """

    parent: np.ndarray
    depth: np.ndarray
    leaf_loss: np.ndarray
    subtree_loss: np.ndarray
    subtree_leaves: np.ndarray
    order: np.ndarray
    preorder: np.ndarray
    subtree_end: np.ndarray
    total_weight: float


def misclassified_weight(value: np.ndarray) -> np.ndarray:
    """Weight of the rows every node misclassifies as a leaf, from its class counts ``value``;
    with several outputs (3-D ``value``) the mean over the outputs, as the criteria average.

    >>> misclassified_weight(np.array([[3.0, 1.0], [0.0, 2.0]])).tolist()
    [1.0, 0.0]
    >>> misclassified_weight(np.array([[[3.0, 1.0], [2.0, 2.0]]])).tolist()
    [1.5]
    """
    loss = value.sum(axis=-1) - value.max(axis=-1)
    return loss.mean(axis=1) if loss.ndim == 2 else loss


def leaf_loss(tree: Tree) -> np.ndarray:
    """Training loss of every node as a leaf (weighted errors, or SSE for regression)."""
    tree = as_flat(tree)
    if tree.task == "classification":
        return misclassified_weight(tree.value)
    return tree.impurity * tree.weighted_n_node_samples


def node_statistics(tree: Tree) -> NodeStatistics:
    """Compute :class:`NodeStatistics` in ``O(n_nodes)``."""
    tree = as_flat(tree)
    n = tree.n_nodes
    fc, nc = tree.first_child, tree.n_children
    loss = leaf_loss(tree)
    sub_loss = np.where(fc < 0, loss, 0.0)
    sub_leaves = (fc < 0).astype(np.int64)
    parent = tree.parent
    # Children ids exceed their parent's: one pass in decreasing id order accumulates subtrees.
    for i in range(n - 1, 0, -1):
        p = parent[i]
        sub_loss[p] += sub_loss[i]
        sub_leaves[p] += sub_leaves[i]
    order = np.empty(n, dtype=np.int64)
    preorder = np.empty(n, dtype=np.int64)
    stack = [0]
    pos = 0
    fcl, ncl = fc.tolist(), nc.tolist()
    while stack:
        v = stack.pop()
        order[pos] = v
        preorder[v] = pos
        pos += 1
        start = fcl[v]
        if start >= 0:
            stack.extend(range(start + ncl[v] - 1, start - 1, -1))
    subtree_end = preorder + 2 * sub_leaves - 1 if tree.is_binary else _subtree_ends(
        preorder, parent, n)
    return NodeStatistics(parent=parent, depth=tree.node_depth, leaf_loss=loss,
                          subtree_loss=sub_loss, subtree_leaves=sub_leaves, order=order,
                          preorder=preorder, subtree_end=subtree_end,
                          total_weight=float(tree.weighted_n_node_samples[0]))


def _subtree_ends(preorder, parent, n):
    size = np.ones(n, dtype=np.int64)
    for i in range(n - 1, 0, -1):
        size[parent[i]] += size[i]
    return preorder + size


class WorkingTree:
    """A grown tree being pruned in place: current leaves, subtree leaf counts and losses.

    Collapsing node ``v`` costs ``O(depth(v) + size of v's subtree)``; the grown tree's arrays
    are never copied.
    """

    def __init__(self, tree: Tree, stats: NodeStatistics | None = None):
        self.tree = tree
        self.stats = node_statistics(tree) if stats is None else stats
        self.collapsed = np.zeros(tree.n_nodes, dtype=bool)   # turned into a leaf by pruning
        self.alive = np.ones(tree.n_nodes, dtype=bool)        # still in the pruned tree
        self.leaves = self.stats.subtree_leaves.copy()
        self.loss = self.stats.subtree_loss.copy()

    @property
    def n_leaves(self) -> int:
        return int(self.leaves[0])

    def is_leaf(self, v: int) -> bool:
        return self.collapsed[v] or self.tree.first_child[v] < 0

    def internal_nodes(self) -> np.ndarray:
        """Ids of the current internal nodes, increasing."""
        return np.flatnonzero(self.alive & ~self.collapsed & (self.tree.first_child >= 0))

    def ancestors(self, v: int) -> list[int]:
        """Proper ancestors of ``v``, from its parent up to the root."""
        out = []
        parent = self.stats.parent
        p = int(parent[v])
        while p >= 0:
            out.append(p)
            p = int(parent[p])
        return out

    def subtree_nodes(self, v: int) -> np.ndarray:
        """All nodes of the grown subtree rooted at ``v`` (alive or not)."""
        s = self.stats
        return s.order[s.preorder[v] : s.subtree_end[v]]

    def collapse(self, v: int) -> None:
        """Turn internal node ``v`` into a leaf and update its ancestors' counts."""
        d_leaves = int(self.leaves[v]) - 1
        d_loss = float(self.stats.leaf_loss[v] - self.loss[v])
        for a in self.ancestors(v):
            self.leaves[a] -= d_leaves
            self.loss[a] += d_loss
        below = self.subtree_nodes(v)[1:]
        self.alive[below] = False
        self.collapsed[v] = True
        self.leaves[v] = 1
        self.loss[v] = self.stats.leaf_loss[v]

    def make_leaf_mask(self) -> np.ndarray:
        return self.collapsed & self.alive


def finish(tree: Tree, make_leaf: np.ndarray, method: str, path, objective, started: float,
           info: dict | None = None, collapsed: tuple | None = None) -> PruningResult:
    """The single rebuild: ``tree.collapse(make_leaf)`` packaged as a :class:`PruningResult`
    (``collapsed``: that ``(tree, old_to_new)`` when the caller has it already)."""
    make_leaf = np.asarray(make_leaf, dtype=bool) & (tree.first_child >= 0)
    pruned, old_to_new = tree.collapse(make_leaf) if collapsed is None else collapsed
    path = tuple((int(n), float(obj)) for n, obj in path)
    return PruningResult(tree=pruned, make_leaf=make_leaf, old_to_new=old_to_new, method=method,
                         path=path, objective=None if objective is None else float(objective),
                         time=time.perf_counter() - started, info=dict(info or {}))


def integer_errors(loss, total_weight: float, n_examples: int) -> np.ndarray:
    """Weighted misclassified mass rescaled to a count out of ``n_examples`` (exact for unit
    weights), as the risk bounds need an integer number of errors."""
    scaled = np.asarray(loss, dtype=np.float64) * (n_examples / total_weight)
    return np.clip(np.rint(scaled), 0, n_examples).astype(np.int64)
