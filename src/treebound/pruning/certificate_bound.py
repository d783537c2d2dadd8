"""Bound pruning with a certificate as its objective: ``pruning_params={"objective": "hti"}``
or ``{"objective": "compression"}`` of ``pruning="bound"``.

The search is Algorithm 3 of Leboeuf et al. (2020) with another objective: repeat — evaluate,
for every internal node ``u`` of the current tree, the certificate of the tree with ``u``
collapsed; take the smallest; accept it if it is ``<=`` the current one, else stop. Every
candidate is evaluated exactly, in ``O(1)`` for ``"hti"`` and in time proportional to the rows
and nodes below ``u`` for ``"compression"``:

* ``"hti"`` — :func:`~treebound.theory.hypergeometric_tail_inversion_bound` (ghost sample
  ``4 m``) with the shape prior of Leboeuf et al. and the closed-form growth bound
  :func:`~treebound.theory.log_leaf_assignment_growth_bound` (it depends on the number of
  leaves only, so no table is built);
* ``"compression"`` — the sample-compression bound of :mod:`treebound.certificates`: the pairs
  of training examples that carry every threshold are fixed once on the grown tree; a
  candidate keeps the pairs of its remaining tests, so its compression set, its errors outside
  it and its message prior follow.

Errors are counted on the rows (each row once, whatever its weight), like the certificates.
The final ``bound`` is the objective's value for the pruned tree at ``delta``.
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np

from treebound._flat._sklearn_view import as_flat
from treebound.certificates._compression import compress, log_surjections_bound
from treebound.certificates._counting import log_test_counts, seen_levels
from treebound.certificates._deployed import DeployedTree, has_missing, treebound_midpoint
from treebound.pruning._core import finish
from treebound.theory.bounds import log_structure_prior
from treebound.theory.tail_inversion import (
    hypergeometric_tail_inversion_bound,
    log_leaf_assignment_growth_bound,
    sample_compression_bound,
)

__all__ = ["CRITERIA", "OBJECTIVES", "prune_by_certificate"]

#: The certificates bound pruning can minimize (``objective`` of ``pruning="bound"``).
OBJECTIVES = ("hti", "compression")
#: Former name of :data:`OBJECTIVES`.
CRITERIA = OBJECTIVES


class _Rows:
    """Row-level bookkeeping of the working tree: which rows reach which node."""

    def __init__(self, tree, X, y):
        path = tree.decision_path(X).tocsc()
        self.indptr, self.rows = path.indptr, path.indices
        majority = tree.majority_class
        self.y = np.asarray(y, dtype=np.int64)
        # errors of node i if it were a leaf, counted on rows
        self.leaf_errors = np.array([np.count_nonzero(self.y[self.rows_at(i)] != majority[i])
                                     for i in range(tree.n_nodes)])
        self.majority = majority

    def rows_at(self, node: int) -> np.ndarray:
        return self.rows[self.indptr[node]:self.indptr[node + 1]]


def prune_by_certificate(tree, X, y, *, objective: str | None = None, delta: float = 0.05,
                         criterion: str | None = None):
    """Prune ``tree`` by Algorithm 3 of Leboeuf et al. (2020) with a certificate as the
    objective in place of the Shawe-Taylor bound (``pruning_params={"objective": objective}``).

    Parameters
    ----------
    tree : Tree
        A binary classification tree.
    X : array-like of float64, shape (n_rows, n_features)
        The encoded rows it was grown on (the errors are counted on them).
    y : array-like of int, shape (n_rows,)
        Their class indices.
    objective : {"hti", "compression"}
        The hypergeometric tail inversion (Leboeuf, LeBlanc & Marchand 2021, Theorem 5) with
        the leaf-assignment growth bound, or the sample-compression bound (Marchand & Sokolova
        2005); :func:`treebound.certify` computes the same numbers.
    delta : float in (0, 1), default=0.05
        Confidence of the bound.
    criterion : {"hti", "compression"}, optional
        Former name of ``objective`` (``FutureWarning``; removed in the next release).

    Returns
    -------
    PruningResult
        ``bound`` is the certificate of the pruned tree; ``path`` lists ``(n_leaves, bound)``
        of the grown tree and after every accepted collapse; ``info["objective"]`` names the
        certificate.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_leaf_nodes=20, random_state=0).fit(X, y).tree_
    >>> result = prune_by_certificate(tree, X, y, objective="hti")
    >>> result.n_leaves, round(result.objective, 4)
    (2, 0.1705)
    >>> model = DecisionTreeClassifier(max_leaf_nodes=20, random_state=0, pruning="bound",
    ...                                pruning_params={"objective": "hti"}).fit(X, y)
    >>> model.pruning_objective_ == result.objective
    True
    """
    tree = as_flat(tree)
    started = time.perf_counter()
    if criterion is not None:
        if objective is not None:
            raise ValueError("give objective=, not also its former name criterion=")
        warnings.warn("prune_by_certificate(criterion=...) is now objective=...; criterion= "
                      "will stop working in the next release", FutureWarning, stacklevel=2)
        objective = criterion
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown bound pruning objective {objective!r}: expected one of "
                         f"('shawe_taylor', {', '.join(map(repr, OBJECTIVES))})")
    if tree.task != "classification" or not tree.is_binary:
        raise ValueError("pruning='bound' needs a binary classification tree")
    if X is None or y is None:
        raise ValueError(f"pruning_params objective={objective!r} counts errors on the "
                         "training rows: pass X and y")
    rows = _Rows(tree, X, y)
    m = rows.y.shape[0]
    n_classes = tree.n_classes
    # the levels seen in training and "unseen": an objective to rank subtrees (the certificate
    # of the kept tree counts the declared levels)
    n_levels = seen_levels(tree.n_categories)
    # rows with a missing value: their routing is counted, as the certificate counts it
    missing = has_missing(X)
    node_log_w = log_test_counts(tree, n_levels, missing)
    first_child = tree.first_child
    parent = tree.parent
    # working tree: current leaves / internal nodes, subtree leaf counts and errors
    internal = first_child >= 0  # internal in the working tree (False below a collapse)
    leaves = np.ones(tree.n_nodes, dtype=np.int64)
    errors = rows.leaf_errors.copy()
    log_w_below = node_log_w.copy()  # sum of ln W over the internal nodes of each subtree
    for i in range(tree.n_nodes - 1, -1, -1):
        if internal[i]:
            c = first_child[i]
            leaves[i] = leaves[c] + leaves[c + 1]
            errors[i] = errors[c] + errors[c + 1]
            log_w_below[i] += log_w_below[c] + log_w_below[c + 1]

    if objective == "hti":
        evaluate = _HtiObjective(m, n_classes, delta, rows.leaf_errors)
    else:
        deployed = DeployedTree(tree=tree, features=np.asarray(X, dtype=np.float64),
                                classes=np.arange(n_classes), leaf_class=tree.majority_class,
                                n_categories=tree.n_categories, midpoint=treebound_midpoint,
                                family="treebound", n_fit_rows=m, n_levels=n_levels,
                                missing=missing)
        evaluate = _CompressionObjective(deployed, rows, delta)

    def value(collapse=None):
        return evaluate.value(collapse, internal, leaves, errors, log_w_below)

    current = value()
    collapsed: list[int] = []
    path = [(int(leaves[0]), current)]
    initial = current
    steps = 0
    while leaves[0] > 1:
        best = None
        for u in np.flatnonzero(internal).tolist():
            eps = value(u)
            key = (eps, -int(leaves[u]), u)
            if best is None or key < best:
                best = key
        if best is None or best[0] > current * (1 + 1e-12) + 1e-15:
            break
        u = best[2]
        evaluate.accept(u, internal)
        collapsed.append(u)
        gained_leaves = leaves[u] - 1
        gained_errors = rows.leaf_errors[u] - errors[u]
        gained_w = log_w_below[u]
        _drop_subtree(u, first_child, internal, tree.n_children)
        leaves[u], errors[u], log_w_below[u] = 1, rows.leaf_errors[u], 0.0
        p = parent[u]
        while p >= 0:
            leaves[p] -= gained_leaves
            errors[p] += gained_errors
            log_w_below[p] -= gained_w
            p = parent[p]
        current = best[0]
        steps += 1
        path.append((int(leaves[0]), current))
    make_leaf = np.zeros(tree.n_nodes, dtype=bool)
    make_leaf[collapsed] = True
    info = {"initial_bound": initial, "steps": steps, "collapsed": tuple(collapsed),
            "objective": objective, "n_examples": m}
    return finish(tree, make_leaf, "bound", path, current, started, info)


def _drop_subtree(u, first_child, internal, n_children):
    """Mark ``u`` and every node below it as no longer internal."""
    stack = [u]
    while stack:
        v = stack.pop()
        internal[v] = False
        if first_child[v] >= 0:
            stack.extend(range(int(first_child[v]), int(first_child[v]) + int(n_children[v])))


class _HtiObjective:
    def __init__(self, m, n_classes, delta, leaf_errors):
        self.m, self.n, self.delta = m, n_classes, delta
        self.ghost = 4 * m
        self.leaf_errors = leaf_errors
        self._prior = {}

    def prior(self, n_leaves):
        if n_leaves not in self._prior:
            self._prior[n_leaves] = log_structure_prior(n_leaves)
        return self._prior[n_leaves]

    def value(self, u, internal, leaves, errors, log_w_below):
        L, k, log_w = int(leaves[0]), int(errors[0]), float(log_w_below[0])
        if u is not None:
            L -= int(leaves[u]) - 1
            k += int(self.leaf_errors[u]) - int(errors[u])
            log_w -= float(log_w_below[u])
        log_growth = log_leaf_assignment_growth_bound(self.m + self.ghost, n_leaves=L,
                                                      n_classes=self.n,
                                                      log_test_choices=max(log_w, 0.0))
        return hypergeometric_tail_inversion_bound(self.m, n_errors=k, log_growth=log_growth,
                                                   delta=self.delta,
                                                   ghost_size=self.ghost, log_prior=self.prior(L))

    def accept(self, u, internal):
        pass


class _CompressionObjective:
    """Compression bound of candidate trees; the pairs are those of the grown tree."""

    def __init__(self, deployed, rows: _Rows, delta):
        self.rows = rows
        self.delta = delta
        self.tree = deployed.tree
        self.n = deployed.n_classes
        wrong = deployed.predict_index() != rows.y
        found = compress(deployed, wrong, False)
        if isinstance(found, str):
            raise ValueError(f"pruning_params objective='compression': {found}")
        self.pair_of = {int(node): tuple(int(r) for r in pair)
                        for node, pair in zip(found.nodes, found.pairs, strict=True)}
        m = rows.y.shape[0]
        self.use = np.zeros(m, dtype=np.int64)
        for pair in self.pair_of.values():
            for r in pair:
                self.use[r] += 1
        self.pred = deployed.predict_index().copy()
        self.wrong = self.pred != rows.y

    def _numeric_internal_below(self, u, internal):
        """Current internal numeric nodes of the subtree of ``u`` (``u`` included)."""
        tree = self.tree
        out, stack = [], [u]
        while stack:
            v = stack.pop()
            if not internal[v]:
                continue
            if v in self.pair_of:
                out.append(v)
            c = int(tree.first_child[v])
            stack.extend(range(c, c + int(tree.n_children[v])))
        return out

    def value(self, u, internal, leaves, errors, log_w_below):
        m = self.rows.y.shape[0]
        use = self.use
        in_set = use > 0
        L, log_w = int(leaves[0]), float(log_w_below[0])
        n_numeric = sum(1 for v in self.pair_of if internal[v])
        wrong_outside = int(np.count_nonzero(self.wrong & ~in_set))
        d = int(np.count_nonzero(in_set))
        if u is not None:
            removed = self._numeric_internal_below(u, internal)
            counts: dict[int, int] = {}
            for v in removed:
                for r in self.pair_of[v]:
                    counts[r] = counts.get(r, 0) + 1
            leaving = {r for r, c in counts.items() if use[r] == c}
            rows_u = self.rows.rows_at(u)
            now_wrong = self.rows.y[rows_u] != self.rows.majority[u]
            outside_now = np.array([not in_set[r] or r in leaving for r in rows_u.tolist()],
                                   dtype=bool)
            outside_before = ~in_set[rows_u]
            delta_errors = int(np.count_nonzero(now_wrong & outside_now)) - int(
                np.count_nonzero(self.wrong[rows_u] & outside_before))
            below = set(rows_u.tolist())
            delta_errors += sum(int(self.wrong[r]) for r in leaving if r not in below)
            wrong_outside += delta_errors
            d -= len(leaving)
            n_numeric -= len(removed)
            L -= int(leaves[u]) - 1
            log_w -= float(log_w_below[u])
        log_p = log_structure_prior(L) - log_w - L * math.log(self.n)
        if n_numeric > 0:
            log_p -= math.log(2 * n_numeric - 1)
            log_p -= log_surjections_bound(2 * n_numeric, d) - n_numeric * math.log(2.0)
        return sample_compression_bound(m, n_errors_outside=wrong_outside, compression_size=d,
                                        log_message_prior=log_p, delta=self.delta)

    def accept(self, u, internal):
        for v in self._numeric_internal_below(u, internal):
            for r in self.pair_of[v]:
                self.use[r] -= 1
        rows_u = self.rows.rows_at(u)
        self.pred[rows_u] = self.rows.majority[u]
        self.wrong[rows_u] = self.rows.y[rows_u] != self.rows.majority[u]
