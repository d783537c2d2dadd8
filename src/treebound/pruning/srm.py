"""Structural risk minimization pruning (Yıldız, 2015, section 4.2, "SRMprune").

One bottom-up pass. At every internal node ``v`` (children first) compare Vapnik's bound in the
Cherkassky–Mulier form (Eqs. 2–3, :func:`treebound.theory.vapnik_srm_bound`) of

* the current subtree below ``v``: ``E_t`` its training error rate on the ``N`` examples that
  reach ``v``, ``V`` a bound on its VC dimension, and
* ``v`` as a leaf: ``E_t`` the leaf's error rate, ``V = 1``,

and collapse ``v`` when the leaf's bound is ``<=`` the subtree's.

VC dimension of a subtree (``vc_bound``):

* ``"lower"`` (default, Yıldız's Figures 4–5): ``LB(leaf) = 1``, a node whose children are all
  leaves gets the single-node value, otherwise the sum over its children. Binary trees on
  real-valued features use the exact stump VC dimension of Leboeuf et al. (Corollary 8) and
  keep all features below (as :func:`treebound.theory.vcdim_lower_bound` with
  ``feature_type="real"``); trees with categorical features (binary subset splits or multiway
  splits, the L-ary trees of section 3) use Theorem 5, ``floor(log2(sum_i (2^{L_i - 1} - 1) +
  1)) + 1`` over the ``d`` remaining features, one feature less per level (numeric features of
  a mixed tree count as two-valued);
* ``"upper"``: Algorithm 2 of Leboeuf et al. (binary trees only; categorical features through
  :func:`treebound.pruning.bound.effective_n_features`).
"""

from __future__ import annotations

import time

import numpy as np

from treebound._flat._sklearn_view import as_flat
from treebound._options import VC_BOUNDS
from treebound.pruning._core import WorkingTree, finish, node_statistics
from treebound.pruning.bound import effective_n_features
from treebound.theory.bounds import vapnik_srm_bound
from treebound.theory.partitioning import PartitioningCache
from treebound.theory.structures import TreeStructure
from treebound.theory.vcdim import stump_vcdim, vcdim_upper_bound

__all__ = ["VC_BOUNDS", "prune_srm", "subtree_vcdim_bounds"]



def _theorem5(arities) -> int:
    # Yıldız Theorem 5 (Theorem 1 when every arity is 2): single decision node.
    total = sum(2 ** (int(a) - 1) - 1 for a in arities)
    return (total + 1).bit_length()


class _LowerBound:
    """Yıldız's recursive lower bound, maintained node by node for the current tree."""

    def __init__(self, tree):
        self.tree = tree
        cats = tree.n_categories
        self.real = bool(np.all(cats == 0)) and tree.is_binary
        if self.real:
            self.base = stump_vcdim(tree.n_features)
        else:
            self.arities = np.sort(np.where(cats > 0, np.maximum(cats, 2), 2))
            ell = len(self.arities)
            # base[used] = Theorem 5 over the features left after `used` levels.
            self.base_vec = np.array([_theorem5(self.arities[u:]) for u in range(ell + 1)]
                                     + [1], dtype=np.int64)
            self.ell = ell
        self.values: dict[int, object] = {}

    def leaf_value(self):
        return 1 if self.real else np.ones(self.ell + 2, dtype=np.int64)

    def node_value(self, children_values, children_are_leaves: bool):
        if self.real:
            return self.base if children_are_leaves else int(sum(children_values))
        if children_are_leaves:
            return self.base_vec.copy()
        # value[used] = sum over children of child[used + 1]; no feature left -> 1.
        out = np.ones(self.ell + 2, dtype=np.int64)
        total = np.zeros(self.ell + 1, dtype=np.int64)
        for child in children_values:
            total += child[1:]
        out[: self.ell] = total[: self.ell]
        return out

    @staticmethod
    def at_root(value) -> int:
        return int(value) if np.ndim(value) == 0 else int(value[0])


def subtree_vcdim_bounds(tree, vc_bound: str = "lower", cache=None) -> np.ndarray:
    """VC-dimension bound of the full subtree rooted at every node of ``tree``.

    Parameters
    ----------
    tree : Tree
        A fitted tree.
    vc_bound : {"lower", "upper"}, default="lower"
        Yıldız's recursive lower bound (2015, Theorems 1-5; any arity) or the upper bound of
        Leboeuf et al. (2020, Algorithm 2; binary trees only).
    cache : PartitioningCache, optional
        Tables of the upper bound, shared with other calls.

    Returns
    -------
    ndarray of int64, shape (n_nodes,)
        1 at the leaves.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    >>> subtree_vcdim_bounds(tree)[:4].tolist(), subtree_vcdim_bounds(tree, "upper")[:4].tolist()
    ([15, 1, 14, 9], [56, 1, 47, 26])
    """
    tree = as_flat(tree)
    work = WorkingTree(tree)
    out = np.empty(tree.n_nodes, dtype=np.int64)
    vc = _VCTracker(work, vc_bound, cache)
    for v in range(tree.n_nodes - 1, -1, -1):
        out[v] = vc.update(v)
    return out


class _VCTracker:
    def __init__(self, work: WorkingTree, vc_bound: str, cache):
        if vc_bound not in VC_BOUNDS:
            raise ValueError(f"vc_bound must be one of {VC_BOUNDS}, got {vc_bound!r}")
        self.work = work
        tree = work.tree
        self.kind = vc_bound
        if vc_bound == "upper":
            if not tree.is_binary:
                raise ValueError("vc_bound='upper' (Leboeuf et al. Algorithm 2) needs a binary "
                                 "tree; use vc_bound='lower' for multiway splits")
            self.ell = effective_n_features(tree.n_categories)
            self.cache = PartitioningCache() if cache is None else cache
            self.shapes: dict[int, TreeStructure] = {}
            self.memo: dict[TreeStructure, int] = {}
        else:
            self.lower = _LowerBound(tree)
            self.values: dict[int, object] = {}

    def update(self, v: int) -> int:
        """Recompute node ``v`` from its children (call children first); returns its bound."""
        work = self.work
        tree = work.tree
        leaf = work.is_leaf(v)
        kids = [] if leaf else list(range(tree.first_child[v], tree.first_child[v]
                                          + tree.n_children[v]))
        if self.kind == "upper":
            if leaf:
                shape = TreeStructure.leaf()
            else:
                shape = TreeStructure.node(self.shapes[kids[0]], self.shapes[kids[1]])
            self.shapes[v] = shape
            value = self.memo.get(shape)
            if value is None:
                value = vcdim_upper_bound(shape, n_features=self.ell, cache=self.cache)
                self.memo[shape] = value
            return value
        low = self.lower
        if leaf:
            self.values[v] = low.leaf_value()
        else:
            children_leaves = all(work.is_leaf(c) for c in kids)
            self.values[v] = low.node_value([self.values[c] for c in kids], children_leaves)
        return low.at_root(self.values[v])


def prune_srm(tree, *, a1: float = 0.1, a2: float = 2.0, vc_bound: str = "lower",
              cache: PartitioningCache | None = None):
    """Prune ``tree`` bottom-up with SRM (Yıldız 2015, section 4.1; see the module docstring).

    Parameters
    ----------
    tree : Tree
        A fitted classification tree.
    a1, a2 : float, default=0.1 and 2.0
        The constants of Vapnik's bound (Yıldız Eq. 2, Cherkassky-Mulier values);
        :func:`treebound.theory.vapnik_srm_bound`.
    vc_bound : {"lower", "upper"}, default="lower"
        VC dimension of a subtree (:func:`subtree_vcdim_bounds`).
    cache : PartitioningCache, optional
        Tables of the upper bound, shared with other calls.

    Returns
    -------
    PruningResult
        ``bound`` is ``E_g`` of the whole pruned tree (``V`` its VC bound, ``E_t`` its training
        error rate, ``N`` the training examples); ``path`` has ``(n_leaves, E_g)`` of the grown
        tree and of the pruned tree; ``info`` has ``vcdim`` (of the pruned tree) and
        ``collapsed`` (the number of collapses).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    >>> result = prune_srm(tree)
    >>> tree.n_leaves, result.n_leaves, round(result.objective, 4), result.info["vcdim"]
    (9, 9, 0.0416, 15)
    """
    tree = as_flat(tree)
    started = time.perf_counter()
    if tree.task != "classification":
        raise ValueError("pruning='srm' needs a classification tree: Vapnik's bound (Yildiz "
                         "Eq. 2) is on the classification error rate")
    if a1 <= 0 or a2 <= 0:
        raise ValueError(f"a1 and a2 must be positive, got a1={a1}, a2={a2}")
    stats = node_statistics(tree)
    work = WorkingTree(tree, stats)
    vc = _VCTracker(work, vc_bound, cache)
    counts = tree.n_node_samples
    weights = tree.weighted_n_node_samples

    def bound(loss, weight, count, vcdim):
        rate = min(max(float(loss) / float(weight), 0.0), 1.0) if weight > 0 else 0.0
        return vapnik_srm_bound(rate, n_examples=max(int(count), 1), vcdim=max(int(vcdim), 1),
                                a1=a1, a2=a2)

    grown_vc = subtree_vcdim_bounds(tree, vc_bound, cache)[0]
    path = [(work.n_leaves, bound(stats.subtree_loss[0], weights[0], counts[0], grown_vc))]
    collapsed = 0
    root_vc = 1
    for v in range(tree.n_nodes - 1, -1, -1):
        value = vc.update(v)
        if work.is_leaf(v):
            root_vc = value if v == 0 else root_vc
            continue
        keep = bound(work.loss[v], weights[v], counts[v], value)
        cut = bound(stats.leaf_loss[v], weights[v], counts[v], 1)
        if cut <= keep:
            work.collapse(v)
            collapsed += 1
            value = vc.update(v)
        if v == 0:
            root_vc = value
    final = bound(work.loss[0], weights[0], counts[0], root_vc)
    path.append((work.n_leaves, final))
    info = {"vcdim": int(root_vc), "vcdim_grown": int(grown_vc), "collapsed": collapsed,
            "vc_bound": vc_bound, "a1": a1, "a2": a2}
    return finish(tree, work.make_leaf_mask(), "srm", path, final, started, info)
