"""Certified selection (``pruning="certified"``): among the trees of the cost-complexity path
whose cross-validated error is within ``n_se`` standard errors of the best (default 0.6, chosen
on tuning data: ``benchmarks/results/selection.md``), the one with the smallest certificate.

The candidates are the trees ``T_k`` of CART's weakest-link sequence of the grown tree
(:mod:`.cost_complexity`), each with its K-fold CV error and the standard error of that error
over the held-out rows (the same folds and numbers as ``pruning="ccp_cv"``). The trees whose CV
error is at most the smallest plus ``n_se`` of its standard errors are kept; each is certified
on the training rows with the default certificate of :func:`treebound.certify` (method
``"auto"``: the smaller of the ``hti`` and sample-compression bounds, each at ``delta / 2``),
and the tree of smallest certificate is returned (the smaller tree on ties).

Why the certificate of the returned tree is still a certificate, although the training rows
chose it: both bounds of ``"auto"`` hold, with probability at least ``1 - delta / 2`` each,
*simultaneously for every tree of the class they cover*, a union bound over that class with a
prior fixed before the rows are drawn. ``hti`` covers every classification tree over the
features, of every shape (the prior ``6 / (pi^2 L^2) / WE(L)`` over shapes with ``L`` leaves,
Leboeuf et al. 2020, section 6.2), of every choice of tests and leaf labels (the growth function
of the shape on the ``m`` rows and a ghost sample of ``4 m``, Leboeuf, LeBlanc & Marchand
2021, Theorem 5); compression covers every tree its scheme can rebuild from a subset of the
rows and a message (each threshold rebuilt from two rows; the message prior over the tests and
labels). On the event of probability at least ``1 - delta`` where both hold, every tree's error
on new data is at most its certificate, so whatever chose the tree — the CV folds, the band
of ``n_se`` standard errors, the minimum over the candidates — its certificate holds. The selection
may look at the data because the bound never paid for a single tree.

With ``optimal`` (``pruning_params={"optimal_candidates": True}``), optimal trees of each
size join the path's trees as candidates, scored by the same folds
(:mod:`._optimal_candidates`); the argument above covers them unchanged.

The candidates are ranked with the categorical levels seen in training (as bound pruning's
certificate objectives do); the estimator's ``certificate_`` counts the declared levels, the
same number when every feature is numeric.
"""

from __future__ import annotations

import math
import time
from types import SimpleNamespace

import numpy as np

from treebound._flat._sklearn_view import as_flat
from treebound._kernels.prunings import pruning_stops
from treebound._resources import unlimited
from treebound.certificates._compression import compress, threshold_rows
from treebound.certificates._counting import log_shape_prior, seen_levels
from treebound.certificates._deployed import DeployedTree, treebound_midpoint
from treebound.certificates._memo import CertifiedTrees
from treebound.certificates._methods import (
    DEFAULT_TABLE_BUDGET,
    NotApplicable,
    Sample,
    block_growth_lower_bound,
    bound_compression,
    compression_at_least,
    hti_key,
    log_growth_bound,
    log_growth_lower_bound,
    pruned_growth_lower_bound,
    theorem9_shape,
)
from treebound.pruning._core import PruningResult, finish
from treebound.pruning.cost_complexity import cross_validated_path, within_standard_errors
from treebound.theory import PartitioningCache
from treebound.theory.tail_inversion import hypergeometric_tail_inversion_bound

__all__ = ["candidate_certificate", "prune_certified"]


#: A candidate's compression bound before it is computed.
_UNKNOWN = object()


class _Candidate:
    """One candidate tree with what its certificate reads from the rows (the predictions, the
    compression set): the bounds on demand, the compression bound only where a comparison
    needs its value (:func:`~treebound.certificates._methods.compression_at_least` shows most
    of them without it)."""

    def __init__(self, tree, X, y, delta, compression=compress, predicted=None):
        tree = as_flat(tree)
        multiway = not tree.is_binary  # the settings are not known here (certificate_ reads them)
        deployed = _deployed(tree, X, y)
        wrong = (deployed.predict_index() if predicted is None else predicted) != y
        # the compression set as evidence: certificate_ reuses it for the chosen tree
        self.sample = Sample(deployed, y, wrong, {"multiway": multiway,
                                                   "compression": compression(deployed, wrong,
                                                                              multiway)})
        self.multiway = multiway
        self.half = delta / 2.0
        self.ghost = 4 * self.sample.m
        self.log_prior = log_shape_prior(tree, deployed.n_levels, multiway)
        # the closed form and the shape Theorem 9 counts (read by every bound below)
        self.shape = theorem9_shape(deployed, self.sample.m + self.ghost, multiway,
                                    DEFAULT_TABLE_BUDGET)
        self._compression = _UNKNOWN

    @property
    def compression(self) -> float | None:
        """The compression bound at ``delta / 2`` (``None``: no compression set for this tree,
        ``hti`` alone, as ``certify``)."""
        if self._compression is _UNKNOWN:
            try:
                found = bound_compression(self.sample, self.half)
            except NotApplicable:
                self._compression = None
            else:
                self._compression = found.upper
                # kept with the evidence: certificate_ of the chosen tree reads it
                self.sample.evidence["compression_bound"] = {float(self.half): found}
        return self._compression

    def _compression_below(self, hti: float) -> bool:
        """Whether the compression bound is below ``hti`` (computed only when
        :func:`~treebound.certificates._methods.compression_at_least` cannot rule it out)."""
        if self._compression is _UNKNOWN and compression_at_least(self.sample, self.half, hti):
            return False
        return self.compression is not None and self.compression < hti

    def _hti(self, log_growth: float) -> float:
        # hti's upper side only (certify also inverts its lower side, which ranks nothing)
        return hypergeometric_tail_inversion_bound(
            self.sample.m, n_errors=self.sample.k, log_growth=log_growth, delta=self.half,
            ghost_size=self.ghost, log_prior=self.log_prior)

    def _at_most(self, hti: float) -> float:
        return self.compression if self._compression_below(hti) else hti

    def certificate(self, cache=None) -> tuple[float, str]:
        """The certificate and the bound that gave it (``"hti"`` on ties, as ``certify``)."""
        log_growth, how = log_growth_bound(self.sample.deployed, self.sample.m + self.ghost,
                                           self.multiway, DEFAULT_TABLE_BUDGET, cache,
                                           self.shape)
        hti = self._hti(log_growth)
        # kept with the evidence: certificate_ of the chosen tree reads it (the same numbers)
        self.sample.evidence.setdefault("hti", {})[
            hti_key(self.half, self.ghost, DEFAULT_TABLE_BUDGET)] = (log_growth, how, hti)
        if self._compression_below(hti):
            return self.compression, "compression"
        return hti, "hti"

    def lower_bound(self) -> float:
        """A number the certificate cannot be below, without Theorem 9's tables: ``hti``
        grows with the log growth function, bounded from below by
        :func:`~treebound.certificates._methods.log_growth_lower_bound`."""
        log_growth = log_growth_lower_bound(self.sample.deployed, self.sample.m + self.ghost,
                                            self.multiway, DEFAULT_TABLE_BUDGET, self.shape)
        return self._at_most(self._hti(log_growth))

    def lower_bound_from(self, inner: _Candidate, cache) -> float | None:
        """A lower bound of the certificate from the tables of ``inner``, a candidate whose
        certificate was computed with ``cache`` and whose shape is a pruning of this one's
        (:func:`~treebound.certificates._methods.pruned_growth_lower_bound`); ``None`` when
        that does not apply."""
        if inner.sample.deployed.tree.n_leaves >= self.sample.deployed.tree.n_leaves:
            return None
        log_growth = pruned_growth_lower_bound(
            self.sample.deployed, inner.sample.deployed, self.sample.m + self.ghost,
            self.multiway, DEFAULT_TABLE_BUDGET, cache, self.shape, inner.shape)
        return None if log_growth is None else self._at_most(self._hti(log_growth))

    def block_lower_bound(self, cache, n_blocks: int | None = None) -> float:
        """A lower bound of the certificate from the Theorem 9 tables ``cache`` holds and sums
        over blocks of points for the subtrees it does not
        (:func:`~treebound.certificates._methods.block_growth_lower_bound`)."""
        log_growth = block_growth_lower_bound(self.sample.deployed, self.sample.m + self.ghost,
                                              self.multiway, DEFAULT_TABLE_BUDGET, cache,
                                              self.shape, n_blocks)
        return self._at_most(self._hti(log_growth))


def _deployed(tree, X, y) -> DeployedTree:
    """A candidate tree deployed on the training rows (binary or multiway as its nodes are:
    the settings are not known here, certificate_ reads them)."""
    multiway = not tree.is_binary
    return DeployedTree(
        tree=tree, features=X, classes=np.arange(tree.n_classes),
        leaf_class=tree.majority_class, n_categories=tree.n_categories.copy(),
        midpoint=treebound_midpoint, family="treebound", n_fit_rows=int(y.shape[0]),
        model=SimpleNamespace(categorical_split="multiway" if multiway else "binary"),
        n_levels=seen_levels(tree.n_categories))


def _grown_ids(old_to_new, n_nodes: int) -> np.ndarray:
    """The grown tree's id of each of the ``n_nodes`` nodes of a pruning (the inverse of
    ``Tree.collapse``'s ``old_to_new``, whose dropped nodes are ``-1``)."""
    grown = np.empty(n_nodes, dtype=np.int64)
    kept = np.flatnonzero(old_to_new >= 0)
    grown[old_to_new[kept]] = kept
    return grown


def _nested_compression(prunings, X, y):
    """``compression(deployed, wrong, multiway)`` for each of ``prunings`` (``(tree,
    old_to_new)`` of prunings of one tree, as ``Tree.collapse`` returns them), the rows read
    once for the largest (:class:`~treebound.certificates._compression.ThresholdRows`): the
    same compression sets as :func:`~treebound.certificates._compression.compress`. ``None``
    for each when that does not apply (fewer than two trees, or the largest not compressible:
    each then says why itself)."""
    if len(prunings) < 2:
        return [None] * len(prunings)
    outer_tree, outer_ids = max(prunings, key=lambda p: p[0].n_nodes)
    found = threshold_rows(_deployed(outer_tree, X, y))
    if isinstance(found, str):
        return [None] * len(prunings)
    position = np.full(outer_tree.n_nodes, -1, dtype=np.int64)
    position[found.nodes] = np.arange(found.nodes.shape[0])
    out = []
    for tree, ids in prunings:
        nodes = np.flatnonzero((tree.first_child >= 0) & (tree.category_offset < 0))
        positions = position[outer_ids[_grown_ids(ids, tree.n_nodes)[nodes]]]
        if np.any(positions < 0):  # not a pruning of the largest (cannot happen on a path)
            out.append(None)
            continue
        out.append(lambda deployed, wrong, multiway, positions=positions:
                   found.choose(deployed, positions, wrong, multiway))
    return out


def _nested_predictions(prunings, X):
    """``deployed.predict_index()`` of each of ``prunings`` (as :func:`_nested_compression`),
    the rows routed once, through the largest: a row stops in a pruning at the last node of its
    path in the largest that the pruning keeps, a leaf of the pruning. ``None`` for each of
    fewer than two trees."""
    if len(prunings) < 2:
        return [None] * len(prunings)
    outer_tree, outer_ids = max(prunings, key=lambda p: p[0].n_nodes)
    reached = outer_tree.apply(X)
    first_child = np.ascontiguousarray(outer_tree.first_child, dtype=np.int64)
    n_children = np.ascontiguousarray(outer_tree.n_children, dtype=np.int64)
    grown_of_outer = _grown_ids(outer_ids, outer_tree.n_nodes)
    out = []
    for tree, ids in prunings:
        stop = ids[grown_of_outer]  # each node of the largest in this pruning (-1: dropped)
        pruning_stops(first_child, n_children, stop)
        out.append(tree.majority_class[stop[reached]])
    return out


def _lower_bound(candidates, i, done, cache, beaten_above: float) -> float:
    """A lower bound of candidate ``i``'s certificate, the larger of the bounds tried in turn
    until one is above ``beaten_above`` (cheapest first): without tables; over
    :data:`BLOCK_BOUNDS` ``[0]`` blocks of points, reading the tables the certified candidates
    left in ``cache``; from the tables of the largest certified candidate that is a pruning of
    it (one evaluation of that tree's root); over the remaining, finer, blocks."""
    candidate = candidates[i]
    bound = candidate.lower_bound()
    tables = candidate.shape[1] is not None and bool(done)
    steps = [lambda: candidate.block_lower_bound(cache, BLOCK_BOUNDS[0]),
             lambda: _pruned_lower_bound(candidates, i, done, cache),
             *(lambda n=n: candidate.block_lower_bound(cache, n) for n in BLOCK_BOUNDS[1:])]
    for step in steps if tables else ():
        if bound > beaten_above:
            break
        found = step()
        if found is not None:
            bound = max(bound, found)
    return bound


def _pruned_lower_bound(candidates, i, done, cache) -> float | None:
    """The bound from the tables of the largest certified candidate that is a pruning of
    candidate ``i`` (``None`` when none is)."""
    for inner in reversed(done):
        bound = candidates[i].lower_bound_from(candidates[inner], cache)
        if bound is not None:
            return bound
    return None


#: Grid points of the bounds over blocks that certified selection tries, in turn, on a
#: candidate whose cheaper bounds fall short (each about four times the time of the one
#: before; on yeast's band, 1.8 and 15 ms against 45 ms for the candidate's own tables).
BLOCK_BOUNDS = (32, 128)


def candidate_certificate(tree, X, y, *, delta: float = 0.05, cache=None) -> tuple[float, str]:
    """The default certificate of a tree on its training rows: :func:`treebound.certify`'s
    method ``"auto"``, the smaller of the ``hti`` and compression bounds, each at ``delta / 2``.

    Parameters
    ----------
    tree : Tree
        A classification tree (grown or pruned) whose rows are ``X, y``.
    X : ndarray of float64, shape (n_rows, n_features)
        The encoded training rows (each counted once).
    y : ndarray of int, shape (n_rows,)
        Their class indices.
    delta : float in (0, 1), default=0.05
        Confidence of the certificate.
    cache : PartitioningCache, optional
        Theorem 9 tables shared by the trees certified on these rows (nested candidates share
        most of their subtree shapes); a fresh one when omitted.

    Returns
    -------
    value : float
        The certificate, ``certify(model, X, y).risk_upper_bound`` for a model holding ``tree``.
    chosen : str
        ``"hti"`` or ``"compression"``, the smaller (``"hti"`` on ties, as ``certify``).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(max_leaf_nodes=4, growth="top_down").fit(X, y)
    >>> value, chosen = candidate_certificate(model.tree_, X, y)
    >>> value == model.certificate_.risk_upper_bound, chosen == model.certificate_.details["chosen"]
    (True, True)
    """
    candidate = _Candidate(tree, np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64),
                           delta)
    with unlimited():  # sized by the rows and the table budget, like certify_deployed
        return candidate.certificate(cache)


def prune_certified(tree, fold_trees, X, y, *, n_se: float = 0.6, risk: str = "error",
                    delta: float = 0.05, started: float | None = None, cache=None,
                    optimal=None):
    """The tree of smallest certificate among the trees of the cost-complexity path within
    ``n_se`` standard errors of the smallest CV error (see the module docstring).

    Parameters
    ----------
    tree : Tree
        The classification tree grown on all the training rows.
    fold_trees : list of (Tree, X_val, y_val, w_val)
        One tree per fold, grown with the same settings on the other folds, with its held-out
        rows (as :func:`~treebound.pruning.cost_complexity.prune_cost_complexity_cv`).
    X : ndarray of float64, shape (n_rows, n_features)
        The encoded training rows ``tree`` was grown on (the certificates count them).
    y : ndarray of int, shape (n_rows,)
        Their class indices.
    n_se : float >= 0, default=0.6
        Width of the band, in standard errors of the smallest CV error (``0.6``, the default of
        ``pruning="certified"``, chosen on tuning data, ``benchmarks/results/selection.md``;
        ``0``: the trees tied with the CV minimum, a larger certificate at about the same
        accuracy; ``1``: a smaller certificate for about half a point of accuracy).
    risk : {"error", "impurity"}, default="error"
        ``R(t)`` of the weakest link.
    delta : float in (0, 1), default=0.05
        Confidence of the certificates.
    started : float, optional
        ``time.perf_counter()`` when pruning started; default: now.
    cache : PartitioningCache, optional
        Theorem 9 tables of the candidates (filled here; the caller may certify the chosen
        tree from them); a fresh one when omitted.
    optimal : callable, optional
        ``optimal(max_leaves) -> list of OptimalCandidate``: extra candidates (optimal trees
        of each size up to ``max_leaves``, the path's largest, with their CV sums on the same
        folds: :func:`~treebound.pruning._optimal_candidates.optimal_candidates`), scored by
        the same band and certified like the path's trees.

    Returns
    -------
    PruningResult
        ``objective`` is the chosen tree's certificate; ``path`` lists ``(n_leaves, CV
        error)`` of every tree of the path, as for ``"ccp_cv"``; ``info`` has the CV path
        (``alphas``, ``cv_error``, ``cv_se``, ``index_min``), the candidates (``candidates``:
        their indices in the path, then ``len(path) + j`` for the ``j``-th optimal tree;
        ``certificate_lower_bounds``, the bounds the selection skips candidates by (from a
        smaller certified candidate's tables where it is a pruning of the candidate, else or
        also without tables; ``None`` for the first candidate certified, which needs none);
        ``certificates`` and ``certificate_methods``, the
        certificate and the bound ``"auto"`` chose for each, ``None`` for a candidate skipped
        because its lower bound is above the smallest certificate), ``chosen`` (the chosen
        tree's index in that numbering) and, with ``optimal``, ``optimal_candidates`` (the
        leaves, CV error and standard error of each optimal tree) and ``chosen_optimal``.
        When an optimal tree is chosen it is not a pruning of ``tree``: ``make_leaf`` is then
        all ``False`` and ``old_to_new`` all ``-1``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.model_selection import StratifiedKFold
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> grow = lambda rows: DecisionTreeClassifier(max_leaf_nodes=30, random_state=0).fit(
    ...     X[rows], y[rows]).tree_
    >>> folds = [(grow(train), X[val], y[val], np.ones(len(val)))
    ...          for train, val in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y)]
    >>> result = prune_certified(grow(np.arange(len(y))), folds, X, y)
    >>> info = result.info
    >>> computed = [c for c in info["certificates"] if c is not None]
    >>> skipped = [b for b, c in zip(info["certificate_lower_bounds"], info["certificates"])
    ...            if c is None]  # their bounds are above the chosen certificate
    >>> result.objective == min(computed), all(b > result.objective for b in skipped)
    (True, True)
    """
    tree = as_flat(tree)
    started = time.perf_counter() if started is None else started
    if tree.task != "classification":
        raise ValueError("pruning='certified' certifies classification trees only")
    seq, cv_error, se = cross_validated_path(tree, fold_trees, risk=risk)
    extra = [] if optimal is None else optimal(int(seq.n_leaves[0]))
    n_path = len(seq)
    if extra:
        # the same folds and formula as cross_validated_path (0-1 loss, binomial SE)
        weight = float(sum(np.sum(fold[3]) for fold in fold_trees))
        extra_error = np.asarray([c.loss / weight for c in extra])
        extra_se = np.sqrt(np.clip(np.asarray([c.square / weight for c in extra])
                                   - extra_error**2, 0.0, None) / weight)
        all_error = np.concatenate([cv_error, extra_error])
        all_se = np.concatenate([se, extra_se])
    else:
        all_error, all_se = cv_error, se
    # the path's trees first: the minimum's standard error is the path's on ties
    band = within_standard_errors(all_error, all_se, n_se)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)

    def candidate_tree(k: int):
        return tree.collapse(seq.make_leaf(k)) if k < n_path else (extra[k - n_path].tree, None)

    # Branch and bound, the smallest tree first (the path's trees are nested: the smallest is a
    # pruning of every other). Each further candidate is certified exactly only when no lower
    # bound of its certificate is above the smallest certificate found (it could then neither
    # beat nor tie it: ties go to the smaller tree, and a tie would need the bound to equal the
    # certificate): first the bound read from the tables of the largest certified tree that is
    # a pruning of it (one evaluation of that tree's root), then the bound without tables.
    # Ties: fewer leaves, then the path's tree.
    collapsed = [candidate_tree(k) for k in band.tolist()]
    trees = [t for t, _ in collapsed]
    rank = [(t.n_leaves, int(k >= n_path)) for t, k in zip(trees, band.tolist(), strict=True)]
    # the path's trees are prunings of one another: their compression sets read the rows once
    path_trees = [i for i, (_, ids) in enumerate(collapsed) if ids is not None]
    compression: list = [None] * len(band)
    predicted: list = [None] * len(band)
    nested = [collapsed[i] for i in path_trees]
    for i, how, rows in zip(path_trees, _nested_compression(nested, X, y),
                            _nested_predictions(nested, X), strict=True):
        compression[i], predicted[i] = how, rows
    candidates = [_Candidate(t, X, y, delta, compression=how or compress, predicted=rows)
                  for t, how, rows in zip(trees, compression, predicted, strict=True)]
    cache = PartitioningCache() if cache is None else cache
    certificates: list = [None] * len(band)
    methods: list = [None] * len(band)
    lower: list = [None] * len(band)  # None: not needed (the first candidate certified)
    best = None  # (certificate, leaves, optimal?) of the best candidate so far, its position
    done: list[int] = []  # the candidates certified, in increasing size
    with unlimited():  # sized by the rows and the table budget, like certify_deployed
        for i in sorted(range(len(band)), key=lambda i: rank[i]):
            if best is not None:
                lower[i] = _lower_bound(candidates, i, done, cache, best[0][0])
                if lower[i] > best[0][0]:
                    continue
            certificates[i], methods[i] = candidates[i].certificate(cache)
            done.append(i)
            best = min(best or ((math.inf,), -1), ((certificates[i], *rank[i]), i))
    position = best[1]
    chosen = int(band[position])
    path = list(zip(seq.n_leaves.tolist(), cv_error.tolist(), strict=True))
    info = {"alphas": seq.alphas.tolist(), "cv_error": cv_error.tolist(), "cv_se": se.tolist(),
            "index_min": int(np.argmin(cv_error)), "candidates": band.tolist(),
            "certificates": certificates, "certificate_methods": methods,
            "certificate_lower_bounds": lower, "chosen": chosen,
            "alpha": float(seq.alphas[chosen]) if chosen < n_path else None,
            "n_se": float(n_se), "risk": risk, "delta": float(delta),
            "n_folds": len(fold_trees)}
    if optimal is not None:
        info["optimal_candidates"] = [
            {"n_leaves": c.n_leaves, "cv_error": float(e), "cv_se": float(s)}
            for c, e, s in zip(extra, all_error[n_path:], all_se[n_path:], strict=True)]
        info["chosen_optimal"] = chosen >= n_path
    if chosen < n_path:  # the candidate's own tree: collapsed once
        result = finish(tree, seq.make_leaf(chosen), "certified", path, certificates[position],
                        started, info, collapsed=collapsed[position])
    else:
        result = PruningResult(tree=trees[position],
                               make_leaf=np.zeros(tree.n_nodes, dtype=bool),
                               old_to_new=np.full(tree.n_nodes, -1, dtype=np.int64),
                               method="certified",
                               path=tuple((int(n), float(e)) for n, e in path),
                               objective=float(certificates[position]),
                               time=time.perf_counter() - started, info=info)
    if isinstance(cache, CertifiedTrees):  # the estimator's certificate_ reads its evidence
        cache.remember(result.tree, candidates[position].sample)
    return result
