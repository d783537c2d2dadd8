"""CART cost-complexity pruning with K-fold cross-validation (Breiman et al., 1984, chapter 3),
and M-CART (Leboeuf et al., 2020, section 6.2).

Weakest link: with ``R(t)`` the risk of node ``t`` as a leaf and ``R(T_t)`` that of the subtree
below it (both as fractions of the root's weight), the link strength of ``t`` is

    g(t) = (R(t) - R(T_t)) / (c(L_{T_t}) - c(1)),

``L_{T_t}`` the subtree's leaves. CART has ``c(L) = L`` (so ``g = (R(t) - R(T_t)) / (L - 1)``).
Repeatedly collapsing the weakest link gives the nested sequence ``T_0 > T_1 > ... > root`` and
the increasing ``alpha_0 = 0 < alpha_1 < ...`` at which each tree becomes optimal. M-CART uses
``c(L) = d ln(m / d)`` with ``d = L ln(L ell)`` (``ell`` features, ``m`` examples), per subtree
as in the paper's reference code.

``R`` is the misclassification rate (``risk="error"``, Breiman chapter 3 and the paper) or the
criterion's impurity (``risk="impurity"``, what scikit-learn's ``cost_complexity_pruning_path``
uses); regression uses the squared error either way.

Choosing ``alpha`` (Breiman section 3.4): every tree ``T_k`` stands for
``alpha'_k = sqrt(alpha_k alpha_{k+1})``; trees regrown on ``K - 1`` folds with the same growth
settings are pruned at ``alpha'_k`` and scored on the held-out fold. The "min" rule takes the
``T_k`` of smallest CV error (the first one on ties, i.e. the largest tree), the "1se" rule the
smallest tree whose CV error is within one standard error of that minimum.
"""

from __future__ import annotations

import math
import time

import numpy as np

from treebound._flat._sklearn_view import as_flat
from treebound._options import RULES
from treebound.pruning._core import finish, node_statistics
from treebound.pruning._weakest_link import (
    COMPLEXITIES,
    WeakestLinkSequence,
    mcart_complexity,
    node_risk,
    weakest_link_sequence,
)

__all__ = [
    "COMPLEXITIES",
    "RULES",
    "WeakestLinkSequence",
    "cost_complexity_path",
    "cross_validated_path",
    "mcart_complexity",
    "prune_at_alpha",
    "prune_cost_complexity_cv",
    "weakest_link_sequence",
    "within_standard_errors",
]


def cost_complexity_path(tree, risk: str = "impurity"):
    """The cost-complexity path, like scikit-learn's ``cost_complexity_pruning_path``.

    Parameters
    ----------
    tree : Tree
        A fitted tree.
    risk : {"impurity", "error"}, default="impurity"
        ``R(t)`` (scikit-learn uses the impurity).

    Returns
    -------
    ccp_alphas : ndarray of float64
        The alpha of every single collapse, starting with 0 (ties are separate entries).
    impurities : ndarray of float64
        The total risk of the tree after each of them, as a fraction of the root's weight.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier as SklearnTree
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> alphas, impurities = cost_complexity_path(DecisionTreeClassifier(random_state=0)
    ...                                           .fit(X, y).tree_)
    >>> theirs = SklearnTree(random_state=0).cost_complexity_pruning_path(X, y)
    >>> np.allclose(alphas, theirs.ccp_alphas), np.allclose(impurities, theirs.impurities)
    (True, True)
    """
    tree = as_flat(tree)
    seq = weakest_link_sequence(tree, risk)
    stats_risk = node_risk(tree, risk)
    alphas = [0.0] + [a for a, _ in seq.links]
    # Recompute the total risk after every single collapse.
    leaf_mask = tree.first_child < 0
    total = [float(stats_risk[leaf_mask].sum())]
    stats = node_statistics(tree)
    current = np.where(leaf_mask, stats_risk, 0.0)
    alive = np.ones(tree.n_nodes, dtype=bool)
    for _, v in seq.links:
        below = stats.order[stats.preorder[v] : stats.subtree_end[v]]
        current[below[alive[below]]] = 0.0
        alive[below[1:]] = False
        current[v] = stats_risk[v]
        total.append(float(current.sum()))
    return np.asarray(alphas), np.asarray(total)


def prune_at_alpha(tree, ccp_alpha: float):
    """Minimal cost-complexity pruning at a fixed ``ccp_alpha``, as scikit-learn applies its
    ``ccp_alpha`` after growth: the weakest links (``R`` the criterion's impurity) are collapsed
    one at a time while the weakest has an effective alpha ``<= ccp_alpha``; ``ccp_alpha = 0``
    prunes nothing. An alpha within rounding of ``ccp_alpha`` (the relative ``1e-9`` that
    groups equal alphas in :func:`weakest_link_sequence`) counts as equal, so an alpha printed
    by scikit-learn's ``cost_complexity_pruning_path`` prunes the same subtree here.

    Parameters
    ----------
    tree : Tree
        A fitted tree.
    ccp_alpha : float
        Complexity parameter, ``>= 0``.

    Returns
    -------
    Tree
        The pruned tree (``tree`` itself when nothing is collapsed).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    >>> [prune_at_alpha(tree, a).n_leaves for a in (0.0, 0.01, 0.5)]
    [9, 5, 1]
    """
    tree = as_flat(tree)
    if ccp_alpha <= 0.0 or tree.n_leaves == 1:
        return tree
    make_leaf = np.zeros(tree.n_nodes, dtype=bool)
    for alpha, node in weakest_link_sequence(tree, "impurity").links:
        if alpha > ccp_alpha and not math.isclose(alpha, ccp_alpha, rel_tol=1e-9,
                                                  abs_tol=1e-15):
            break
        make_leaf[node] = True
    return tree.collapse(make_leaf)[0] if make_leaf.any() else tree


# ------------------------------------------------------------------------------- CV selection
def _depth_levels(tree) -> list[np.ndarray]:
    depth = tree.node_depth
    order = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[order], np.arange(1, depth.max() + 2))
    return [order[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def _stop_nodes(tree, seq: WeakestLinkSequence, k: int, levels) -> np.ndarray:
    """For every node, the node of ``T_k`` where a sample reaching it in the grown tree stops:
    the first node on its root path that is a leaf of ``T_k``."""
    stop = np.arange(tree.n_nodes, dtype=np.int64)
    parent = tree.parent
    is_stop = seq.step_of_node <= k  # grown leaves (-1) and nodes collapsed by T_k
    for idx in levels:  # parents before children
        p = parent[idx]
        sp = stop[p]
        stop[idx] = np.where(sp != p, sp, np.where(is_stop[p], p, idx))
    return stop


def fold_losses(tree, seq: WeakestLinkSequence, alphas_eval, X_val, y_val, w_val):
    """Weighted sums of the held-out loss and of its square, for ``tree`` pruned at every alpha
    of ``alphas_eval`` (0-1 loss for classification, squared error for regression)."""
    tree = as_flat(tree)
    leaves = tree.apply(X_val)
    levels = _depth_levels(tree)
    sums = np.empty(len(alphas_eval), dtype=np.float64)
    squares = np.empty(len(alphas_eval), dtype=np.float64)
    classification = tree.task == "classification"
    for j, alpha in enumerate(alphas_eval):
        k = seq.index_at(alpha) if math.isfinite(alpha) else len(seq) - 1
        where = _stop_nodes(tree, seq, k, levels)[leaves]
        if classification:
            loss = (tree.majority_class[where] != y_val).astype(np.float64)
        else:
            loss = (tree.value[where, 0] - y_val) ** 2
        sums[j] = float(np.dot(loss, w_val))
        squares[j] = float(np.dot(loss * loss, w_val))
    return sums, squares



def cross_validated_path(tree, fold_trees, *, method: str = "ccp_cv", risk: str = "error",
                         n_features: int | None = None):
    """The weakest-link sequence of ``tree`` with the CV error of every tree and its standard
    error (the module docstring; :func:`prune_cost_complexity_cv` selects from it).

    Parameters
    ----------
    tree : Tree
        The tree grown on all the training data.
    fold_trees : list of (Tree, X_val, y_val, w_val)
        As in :func:`prune_cost_complexity_cv`.
    method : {"ccp_cv", "mcart_cv"}, default="ccp_cv"
        CART's complexity or M-CART's.
    risk : {"error", "impurity"}, default="error"
        ``R(t)`` of the weakest link.
    n_features : int, optional
        ``ell`` of M-CART's complexity (default: the tree's number of features).

    Returns
    -------
    sequence : WeakestLinkSequence
    cv_error : ndarray
        Mean held-out loss of every ``T_k`` (weighted by the validation weights).
    cv_se : ndarray
        Its standard error over the ``N`` held-out rows of all the folds (Breiman et al.
        section 11.5): ``sqrt(R (1 - R) / N)`` for the 0-1 loss with unit weights.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.model_selection import StratifiedKFold
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    >>> folds = []
    >>> for train, val in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
    ...     fold = DecisionTreeClassifier(random_state=0).fit(X[train], y[train]).tree_
    ...     folds.append((fold, X[val], y[val], np.ones(len(val))))
    >>> seq, cv_error, se = cross_validated_path(tree, folds)
    >>> seq.n_leaves.tolist(), (cv_error * 150).round().astype(int).tolist()
    ([9, 7, 4, 3, 2, 1], [10, 10, 11, 11, 50, 100])
    """
    tree = as_flat(tree)
    if method not in COMPLEXITIES:
        raise ValueError(f"method must be one of {tuple(COMPLEXITIES)}, got {method!r}")
    ell = tree.n_features if n_features is None else int(n_features)
    factory = COMPLEXITIES[method]

    def complexity_of(t):
        if factory is None:
            return None
        return factory(int(round(t.weighted_n_node_samples[0])), ell)

    seq = weakest_link_sequence(tree, risk, complexity_of(tree))
    alphas = seq.alphas
    upper = np.append(alphas[1:], np.inf)
    with np.errstate(invalid="ignore"):
        representative = np.where(np.isfinite(upper), np.sqrt(alphas * upper), np.inf)
    total_loss = np.zeros(len(alphas))
    total_square = np.zeros(len(alphas))
    total_weight = 0.0
    for fold_tree, X_val, y_val, w_val in fold_trees:
        fold_seq = weakest_link_sequence(fold_tree, risk, complexity_of(fold_tree))
        sums, squares = fold_losses(fold_tree, fold_seq, representative, X_val, y_val, w_val)
        total_loss += sums
        total_square += squares
        total_weight += float(np.sum(w_val))
    if total_weight <= 0:
        raise ValueError("cross-validation folds hold no validation weight")
    cv_error = total_loss / total_weight
    # Standard error of the mean held-out loss (Breiman 3.4.3 / 11.5): the binomial
    # sqrt(R (1 - R) / N) for the 0-1 loss, the sample standard deviation for squared errors.
    variance = np.clip(total_square / total_weight - cv_error**2, 0.0, None)
    return seq, cv_error, np.sqrt(variance / total_weight)


def within_standard_errors(cv_error, cv_se, n_se: float = 1.0) -> np.ndarray:
    """Indices of the trees whose CV error is within ``n_se`` standard errors of the smallest
    (the standard error of the tree of smallest CV error, the first one on ties).

    Parameters
    ----------
    cv_error : array-like of float
        The CV error of every tree of the path.
    cv_se : array-like of float
        Its standard error.
    n_se : float, default=1.0
        Width of the band in standard errors (``1``: CART's one-standard-error rule).

    Returns
    -------
    ndarray of int
        The indices, increasing (the smallest tree of the band is the last).

    Examples
    --------
    >>> within_standard_errors(np.array([0.10, 0.08, 0.09, 0.2]), np.array([0.01] * 4)).tolist()
    [1, 2]
    """
    cv_error = np.asarray(cv_error, dtype=np.float64)
    index_min = int(np.argmin(cv_error))
    limit = cv_error[index_min] + n_se * float(np.asarray(cv_se)[index_min])
    return np.flatnonzero(cv_error <= limit + 1e-12)

def prune_cost_complexity_cv(tree, fold_trees, *, method: str = "ccp_cv", rule: str = "min",
                             risk: str = "error", n_features: int | None = None,
                             started: float | None = None):
    """Select a tree of ``tree``'s weakest-link sequence by cross-validation.

    Parameters
    ----------
    tree : Tree
        The tree grown on all the training data.
    fold_trees : list of (Tree, X_val, y_val, w_val)
        One tree per fold, grown with the same settings on the other folds, with its held-out
        encoded data, targets (class indices or values) and weights.
    method : {"ccp_cv", "mcart_cv"}, default="ccp_cv"
        CART's complexity ``c(L) = L`` or M-CART's (:func:`mcart_complexity`).
    rule : {"min", "1se"}, default="min"
        The tree of smallest CV error, or the smallest tree within one standard error of it
        (Breiman et al. section 3.4.3).
    risk : {"error", "impurity"}, default="error"
        ``R(t)`` of the weakest link (classification; regression always uses squared error).
    n_features : int, optional
        ``ell`` of M-CART's complexity (default: the tree's number of features).
    started : float, optional
        ``time.perf_counter()`` when the pruning started (the fold trees' growth counts in
        ``time``); default: now.

    Returns
    -------
    PruningResult
        ``path`` lists ``(n_leaves, CV error)`` of every ``T_k``; ``info`` has ``alphas``,
        ``cv_error``, ``cv_se``, ``index_min``, ``index_1se``, ``rule``, ``alpha``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.model_selection import StratifiedKFold
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)  # numeric features: encoded rows are X itself
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    >>> folds = []
    >>> for train, val in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
    ...     fold = DecisionTreeClassifier(random_state=0).fit(X[train], y[train]).tree_
    ...     folds.append((fold, X[val], y[val], np.ones(len(val))))
    >>> result = prune_cost_complexity_cv(tree, folds, rule="1se")
    >>> result.n_leaves, result.info["n_leaves_min"], result.info["n_leaves_1se"]
    (3, 9, 3)
    """
    tree = as_flat(tree)
    started = time.perf_counter() if started is None else started
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    seq, cv_error, se = cross_validated_path(tree, fold_trees, method=method, risk=risk,
                                             n_features=n_features)
    alphas = seq.alphas
    index_min = int(np.argmin(cv_error))
    index_1se = int(within_standard_errors(cv_error, se).max())
    chosen = index_min if rule == "min" else index_1se
    path = list(zip(seq.n_leaves.tolist(), cv_error.tolist(), strict=True))
    info = {"alphas": alphas.tolist(), "cv_error": cv_error.tolist(), "cv_se": se.tolist(),
            "index_min": index_min, "index_1se": index_1se, "rule": rule,
            "alpha": float(alphas[chosen]), "n_leaves_min": int(seq.n_leaves[index_min]),
            "n_leaves_1se": int(seq.n_leaves[index_1se]), "risk": risk,
            "n_folds": len(fold_trees),
            # The nodes each rule turns into leaves, so the other rule's tree can be rebuilt
            # with tree.collapse without cross-validating again.
            "collapsed_min": np.flatnonzero(seq.make_leaf(index_min)).tolist(),
            "collapsed_1se": np.flatnonzero(seq.make_leaf(index_1se)).tolist()}
    return finish(tree, seq.make_leaf(chosen), method, path, None, started, info)
