"""Naive reference implementations for the pruning tests (slow, obviously correct)."""

from __future__ import annotations

import math

import numpy as np

from treebound._flat._storage import Tree
from treebound.theory import (
    PartitioningCache,
    TreeStructure,
    log_error_prior,
    log_growth_function_upper_bound,
    log_structure_prior,
    shawe_taylor_bound,
)


def make_tree(spec, n_features=2, n_classes=2, impurity=None) -> Tree:
    """Tree from a nested spec: a leaf is a list of class counts, a node is
    ``(feature, threshold, left, right)``; a node's counts are the sum of its children's.
    Node ids are breadth-first (children contiguous)."""
    order = [spec]
    head = 0
    first_child, feature, threshold = [], [], []
    while head < len(order):
        s = order[head]
        if isinstance(s, tuple):
            first_child.append(len(order))
            feature.append(s[0])
            threshold.append(float(s[1]))
            order.extend([s[2], s[3]])
        else:
            first_child.append(-1)
            feature.append(-1)
            threshold.append(np.nan)
        head += 1

    def counts(s):
        if isinstance(s, tuple):
            return counts(s[2]) + counts(s[3])
        return np.asarray(s, dtype=np.float64)

    value = np.array([counts(s) for s in order])
    n = len(order)
    fc = np.asarray(first_child, dtype=np.int64)
    w = value.sum(axis=1)
    p = value / np.maximum(w, 1)[:, None]
    gini = 1.0 - (p**2).sum(axis=1) if impurity is None else np.asarray(impurity, float)
    return Tree(first_child=fc, n_children=np.where(fc >= 0, 2, 0).astype(np.int64),
                feature=np.asarray(feature, dtype=np.int64),
                threshold=np.asarray(threshold, dtype=np.float64),
                category_offset=np.full(n, -1, dtype=np.int64),
                category_child=np.empty(0, dtype=np.int64), value=value, impurity=gini,
                n_node_samples=np.rint(w).astype(np.int64), weighted_n_node_samples=w,
                n_categories=np.zeros(n_features, dtype=np.int64)).validate()


def sklearn_to_tree(sk_tree, n_features) -> Tree:
    """A fitted scikit-learn ``tree_`` as a treebound :class:`Tree` (breadth-first renumbering
    so that children are contiguous)."""
    left, right = sk_tree.children_left, sk_tree.children_right
    order = [0]
    head = 0
    while head < len(order):
        v = order[head]
        if left[v] >= 0:
            order.extend([left[v], right[v]])
        head += 1
    new_id = {old: i for i, old in enumerate(order)}
    n = len(order)
    fc = np.full(n, -1, dtype=np.int64)
    for i, old in enumerate(order):
        if left[old] >= 0:
            fc[i] = new_id[left[old]]
    keep = np.asarray(order)
    w = sk_tree.weighted_n_node_samples[keep]
    value = sk_tree.value[keep, 0, :]
    regression = sk_tree.n_classes[0] == 1
    if not regression and np.allclose(value.sum(axis=1), 1.0):  # recent scikit-learn: fractions
        value = value * w[:, None]
    internal = fc >= 0
    return Tree(first_child=fc, n_children=np.where(internal, 2, 0).astype(np.int64),
                feature=np.where(internal, sk_tree.feature[keep], -1).astype(np.int64),
                threshold=np.where(internal, sk_tree.threshold[keep], np.nan),
                category_offset=np.full(n, -1, dtype=np.int64),
                category_child=np.empty(0, dtype=np.int64), value=value.astype(np.float64),
                impurity=sk_tree.impurity[keep].astype(np.float64),
                n_node_samples=sk_tree.n_node_samples[keep].astype(np.int64),
                weighted_n_node_samples=w.astype(np.float64),
                n_categories=np.zeros(n_features, dtype=np.int64),
                task="regression" if regression else "classification").validate()


def tree_errors(tree: Tree) -> int:
    leaves = tree.first_child < 0
    v = tree.value[leaves]
    return int(round(float((v.sum(axis=1) - v.max(axis=1)).sum())))


def naive_bound(tree: Tree, m, n_features, delta=0.05, r=2.0**-13.7, variant="tight") -> float:
    """Eq. (8) of the whole tree, everything recomputed from scratch (fresh cache)."""
    structure = TreeStructure.from_tree(tree)
    k = tree_errors(tree)
    log_growth = log_growth_function_upper_bound(structure, n_examples=2 * m,
                                                 n_features=n_features, n_classes=tree.n_classes,
                                                 variant=variant, cache=PartitioningCache())
    return shawe_taylor_bound(m, n_errors=k, log_growth=log_growth, log_q=log_error_prior(k, r=r),
                              log_p=log_structure_prior(tree.n_leaves), delta=delta)


def naive_collapse_bounds(tree: Tree, m, n_features, **kw) -> dict[int, float]:
    """``{node: eps of tree with node collapsed}`` for every internal node, each candidate
    rebuilt from scratch with Tree.collapse."""
    out = {}
    for v in np.flatnonzero(tree.first_child >= 0).tolist():
        mask = np.zeros(tree.n_nodes, dtype=bool)
        mask[v] = True
        out[v] = naive_bound(tree.collapse(mask)[0], m, n_features, **kw)
    return out


def naive_weakest_link(tree: Tree, risk: str = "error"):
    """Weakest-link alphas by brute force: at each step rebuild the pruned tree and recompute
    every link's g(t) from scratch. Returns the list of alphas (one per collapse)."""
    def node_risk(t):
        if risk == "error":
            loss = t.value.sum(axis=1) - t.value.max(axis=1)
        else:
            loss = t.impurity * t.weighted_n_node_samples
        return loss / tree.weighted_n_node_samples[0]

    alphas = []
    current = tree
    while current.n_nodes > 1:
        r = node_risk(current)
        best, best_v = math.inf, None
        for v in np.flatnonzero(current.first_child >= 0).tolist():
            below = _subtree(current, v)
            leaves = [u for u in below if current.first_child[u] < 0]
            g = (r[v] - r[leaves].sum()) / (len(leaves) - 1)
            if g < best - 1e-15:
                best, best_v = g, v
        alphas.append(best)
        mask = np.zeros(current.n_nodes, dtype=bool)
        mask[best_v] = True
        current = current.collapse(mask)[0]
    return alphas


def _subtree(tree, v):
    out, stack = [], [v]
    while stack:
        u = stack.pop()
        out.append(u)
        if tree.first_child[u] >= 0:
            stack.extend(range(tree.first_child[u], tree.first_child[u] + tree.n_children[u]))
    return out


def is_pruned_subtree(grown: Tree, pruned: Tree, old_to_new) -> bool:
    """``pruned`` keeps a root-containing, parent-closed set of ``grown``'s nodes with the same
    tests and statistics, and every kept internal node keeps all its children."""
    kept = np.flatnonzero(old_to_new >= 0)
    if old_to_new[0] != 0:
        return False
    for old in kept.tolist():
        new = old_to_new[old]
        p = grown.parent[old]
        if p >= 0 and old_to_new[p] < 0:
            return False
        if not np.array_equal(grown.value[old], pruned.value[new]):
            return False
        if pruned.first_child[new] >= 0:
            if grown.first_child[old] < 0 or grown.feature[old] != pruned.feature[new]:
                return False
            kids = range(grown.first_child[old], grown.first_child[old] + grown.n_children[old])
            if any(old_to_new[c] < 0 for c in kids):
                return False
    return len(kept) == pruned.n_nodes


# ------------------------------------------------------------------ cost-complexity CV, naively
def all_prunings(tree: Tree, node: int = 0) -> list[frozenset]:
    """Every pruned subtree of ``tree`` below ``node``, as the set of its leaves (nodes of
    ``tree``); exponential, for trees of a dozen leaves."""
    if tree.first_child[node] < 0:
        return [frozenset([node])]
    kids = range(tree.first_child[node], tree.first_child[node] + tree.n_children[node])
    combos = [frozenset()]
    for child in kids:
        combos = [c | p for c in combos for p in all_prunings(tree, child)]
    return [frozenset([node]), *combos]


def _leaf_errors(tree: Tree, leaves) -> int:
    v = tree.value[sorted(leaves)]
    return int(round(float((v.sum(axis=1) - v.max(axis=1)).sum())))


def ccp_sequence(tree: Tree):
    """CART's sequence ``T_0 > T_1 > ...`` from every pruned subtree: ``T_k`` is the smallest
    subtree minimizing ``errors + a * leaves`` (``a`` in errors per leaf; exact fractions) on
    ``[a_k, a_{k+1})``. Returns ``[(a_k, leaves of T_k)]``, ``a`` as a fraction of the rows."""
    from fractions import Fraction

    cands = [(_leaf_errors(tree, p), len(p), p) for p in all_prunings(tree)]

    def best(a):
        return min(cands, key=lambda c: (c[0] + a * c[1], c[1]))

    breaks = {Fraction(0)}
    for e1, l1, _ in cands:
        for e2, l2, _ in cands:
            if l1 > l2 and e2 > e1:
                breaks.add(Fraction(e2 - e1, l1 - l2))
    sequence = []
    for a in sorted(breaks):
        chosen = best(a)[2]
        if not sequence or chosen != sequence[-1][1]:
            sequence.append((a, chosen))
    m = int(round(float(tree.weighted_n_node_samples[0])))
    return [(float(a / m), leaves) for a, leaves in sequence]


def predict_pruned(tree: Tree, leaves, X) -> np.ndarray:
    """Classes a pruned subtree (its leaf set) predicts: the first leaf on each row's path."""
    path = tree.decision_path(X).toarray().astype(bool)
    is_leaf = np.zeros(tree.n_nodes, dtype=bool)
    is_leaf[list(leaves)] = True
    stop = np.argmax(path & is_leaf[None, :], axis=1)
    return tree.majority_class[stop]


def naive_ccp_cv(tree: Tree, fold_trees) -> dict:
    """CART's K-fold CV selection (Breiman et al. 1984, sections 3.4 and 11.5) from scratch:
    every tree's sequence by enumeration, each fold tree pruned at the geometric means of the
    full tree's consecutive alphas, the CV error and its standard error
    ``sqrt(R (1 - R) / N)``, the minimum (the largest tree on ties) and the 1-SE tree (the
    smallest within one standard error of the minimum). ``fold_trees``: ``(tree, X_val,
    y_val)``, unit weights."""
    seq = ccp_sequence(tree)
    alphas = [a for a, _ in seq]
    reps = [math.sqrt(a * b) for a, b in zip(alphas, alphas[1:], strict=False)] + [math.inf]
    wrong = np.zeros(len(seq))
    n = 0
    for fold, X_val, y_val in fold_trees:
        fold_seq = ccp_sequence(fold)
        for k, rep in enumerate(reps):
            leaves = [lv for a, lv in fold_seq if a <= rep][-1]
            wrong[k] += np.count_nonzero(predict_pruned(fold, leaves, X_val) != y_val)
        n += len(y_val)
    cv = wrong / n
    se = np.sqrt(cv * (1 - cv) / n)
    index_min = int(np.argmin(cv))
    index_1se = max(k for k in range(len(seq)) if cv[k] <= cv[index_min] + se[index_min] + 1e-12)
    return {"alphas": alphas, "n_leaves": [len(lv) for _, lv in seq], "cv_error": cv,
            "cv_se": se, "index_min": index_min, "index_1se": index_1se}
