"""Bound-based pruning without cross-validation (Leboeuf et al., 2020, section 6.1, Algorithm 3).

Repeat: for every internal node ``u`` of the current tree ``T``, evaluate the Shawe-Taylor bound
(Eq. 8) of ``T_u`` = "``T`` with ``u`` turned into a leaf",

    eps(T_u) = (1/m) (2 k_u + 4 ln(4 tau_{T_u}(2m) / (delta q_{k_u} p_{L_u}))),

take the best candidate and accept it if its bound is ``<=`` the current one; stop otherwise.
``k_u`` are the training errors, ``L_u`` the leaves, ``q_k = (1 - r) r^k`` and
``p_L = 6 / (pi^2 L^2 WE(L))`` the priors of section 6.2, ``tau`` the growth-function bound of
Eq. (4) with Theorem 9 ("tight", default) or the section 6.2 simplification ("loose", or
"loose_paper" = the printed formula used by the paper's experiments, not a valid bound).

The search for the best candidate is exact but lazy (branch and bound). Everything in ``eps``
but the growth function is known for every candidate in ``O(1)``. For the tight bound a
candidate's ``ln tau(T_u)`` is bracketed without evaluating the whole candidate tree:

* ``ln tau(T_u) >= ln n`` (the single-part term of Eq. 4), for free;
* ``ln tau(T_u) >= ln tau(T) - Gamma_j(u)``, where ``Gamma_j(u)`` is the largest log-ratio
  ``ln pi_{A_j}^c(k) - ln pi_{A'_j}^c(k)`` between the partitioning tables of ``u``'s ``j``-th
  ancestor ``A_j`` and of the same subtree with ``u`` collapsed, ``A'_j``, over the entries its
  ancestors read (``c <= n``, ``L_{A_j} <= k < 2m``). Theorem 9's recursion is a sum of
  non-negative products of the children's entries (over a range of ``k`` that only widens when a
  child loses leaves), then clipped by ``S(m, c)``: if every entry of a child shrinks by at most
  a factor ``rho <= 1``, so does every entry of the parent, and so does Eq. (4) at the root. The
  one exception is the halving of identical children: a parent whose children become identical
  loses a further factor 2, accounted for as ``ln 2`` per ancestor where the sizes allow it. At
  ``k = L_A`` the original entry is the base case ``S(L_A, c)`` while ``A'`` uses the recursion;
  the recursion's single term there is ``>= S(L_A, c)`` (every c-partition of the ``L_A``
  points splits uniquely into partitions of the two sides), so the argument still holds. When
  ``A'_j`` has fewer than ``n`` leaves (multiclass), its rows ``c > L_{A'_j}`` are zero; rows
  ``c <= r`` of every table only depend on rows ``<= r`` of the children, so the comparison is
  restricted to ``r = L_{A'_j}`` rows and bounds the part of Eq. (4) with at most ``r`` parts,
  itself a lower bound of ``tau``;
* exact: the candidate's whole structure (only its root path is new; every other subtree table
  is memoized in the shared :class:`~treebound.theory.PartitioningCache`).

Candidates are refined in order of their lower bound until the smallest lower bound is an exact
value: that candidate is the best. Refining level by level costs the same tables as the exact
evaluation (each ``A'_j`` table is needed by ``A'_{j+1}``) and the ratios are cached by pair of
shapes across steps, so the search never costs more than the plain loop and usually evaluates a
handful of candidates exactly per step.

Lower bounds also survive an accepted collapse ``v``: the next tree with ``u`` cut is the current
one with ``u`` cut and then ``v`` cut, and the second cut lowers ``ln tau`` by at most ``v``'s own
``Gamma_i`` (already computed) at any valid level ``i`` below the common ancestor of ``u`` and
``v``, plus the halving allowance (:meth:`_BoundSearch._transfer`). A candidate therefore starts
the next step from its previous bound minus that amount instead of from ``ln n``.

The loose variants need no tables and no branch and bound: every candidate of a step is
evaluated exactly by one numba kernel on the working tree's flat arrays
(:mod:`treebound.theory._loose`), which recomputes only each candidate's root path and
memoizes subtree values by canonical shape and size; ``search="all"`` builds each candidate's
structure and calls :func:`~treebound.theory.log_growth_function_upper_bound` (the oracle).
"""

from __future__ import annotations

import heapq
import math
import time
import warnings

import numpy as np

from treebound._flat._sklearn_view import as_flat
from treebound._kernels.partitioning import max_log_ratio
from treebound._validation import external_stacklevel
from treebound.pruning._bound_objective import (
    AUTO_TIGHT_BYTES,
    AUTO_TIGHT_SECONDS,
    BoundObjective,
    VariantChoice,
    choose_variant,
    effective_n_features,
    tight_table_cost,
)
from treebound.pruning._core import WorkingTree, finish, integer_errors, node_statistics
from treebound.theory._fitted_shapes import subtree_structures
from treebound.theory._loose import LooseGrowth
from treebound.theory.bounds import PAPER_ERROR_PRIOR_RATIO
from treebound.theory.combinatorics import log_falling_factorial
from treebound.theory.partitioning import (
    VARIANTS,
    PartitioningCache,
    _tight_log_values,  # the root's per-row values at one m (no public equivalent)
    ensure_log_tables,
)
from treebound.theory.structures import TreeStructure

__all__ = ["AUTO_TIGHT_BYTES", "AUTO_TIGHT_SECONDS", "BoundObjective", "VariantChoice",
           "choose_variant", "effective_n_features", "prune_bound", "tight_table_cost"]

# Relative slack on logs read from the tight tables (their relative error is below 1e-9).
_TABLE_TOLERANCE = 1e-8
# Two bounds closer than this (relative) are a tie.
_TIE_TOLERANCE = 1e-12


def prune_bound(tree, *, delta: float = 0.05, r: float = PAPER_ERROR_PRIOR_RATIO,
                variant: str = "auto", n_examples: int | None = None,
                n_features: int | None = None, cache: PartitioningCache | None = None,
                search: str = "lazy"):
    """Prune ``tree`` with Algorithm 3 of Leboeuf et al. (2020) (see the module docstring).

    Parameters
    ----------
    tree : Tree
        A grown binary classification tree; its per-node class counts are the training
        statistics (errors ``k``).
    delta : float
        Confidence of the bound.
    r : float
        Ratio of the error prior ``q_k = (1 - r) r^k`` (paper: ``2^-13.7``).
    variant : {"auto", "tight", "loose", "loose_paper"} or VariantChoice
        Partitioning-function bound (``treebound.theory``); "auto" is "tight" when its tables'
        estimated cost is within a fixed budget, else "loose" (:func:`choose_variant`: a rule on
        the tree, classes and rows; a tight run estimated over the resource limits is refused);
        or the choice :func:`choose_variant` already made.
    n_examples : int, optional
        ``m``; defaults to the number of training samples at the root.
    n_features : int, optional
        ``ell`` of Theorem 9; defaults to :func:`effective_n_features` of the tree.
    cache : PartitioningCache, optional
        Memo tables shared with other calls (a fresh one per call otherwise).
    search : {"lazy", "all"}
        "lazy" = the fast exact search (the default): branch and bound for "tight", one
        kernel call per step over every candidate's flat arrays for "loose"/"loose_paper";
        "all" = evaluate every candidate's structure with
        :func:`~treebound.theory.log_growth_function_upper_bound` at every step (the plain
        loop of Algorithm 3, for checking).

    Returns
    -------
    PruningResult
        ``bound`` is the final ``eps``; ``path`` lists ``(n_leaves, eps)`` of the grown tree and
        of every accepted collapse; ``info`` has ``initial_bound``, ``steps``, ``objective``
        (``"shawe_taylor"``), ``collapsed``
        (the ids, in ``tree``, of the nodes turned into leaves, in the order accepted),
        ``exact_evaluations``, ``candidates_seen``, the variant run and how it was chosen
        (``variant``, ``variant_requested``, ``variant_rule``, ``tight_estimate_seconds``), and
        ``pruned_nothing`` when no collapse was accepted (with a warning when ``"auto"`` chose
        the loose bound: it cannot prune this tree).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> grown = DecisionTreeClassifier(max_leaf_nodes=20, random_state=0).fit(X, y).tree_
    >>> lazy, full = prune_bound(grown), prune_bound(grown, search="all")
    >>> bool(np.array_equal(lazy.make_leaf, full.make_leaf)), lazy.objective <= lazy.path[0][1]
    (True, True)
    >>> lazy.info["exact_evaluations"] < full.info["exact_evaluations"]
    True
    """
    tree = as_flat(tree)
    started = time.perf_counter()
    if tree.task != "classification":
        raise ValueError("pruning='bound' needs a classification tree: the Shawe-Taylor bound "
                         "is on the 0-1 risk")
    if not tree.is_binary:
        raise ValueError(
            "pruning='bound' needs a binary tree: the growth-function bound (Leboeuf et al. "
            "Theorem 9) is proved for binary trees, and multiway categorical splits have no such "
            "bound; grow with categorical_split='binary', or use pruning='srm' (Yildiz's L-ary "
            "VC lower bound)")
    choice = variant if isinstance(variant, VariantChoice) else choose_variant(tree, variant)
    variant = choice.variant
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}: expected one of {VARIANTS}")
    if search not in ("lazy", "all"):
        raise ValueError(f"search must be 'lazy' or 'all', got {search!r}")
    stats = node_statistics(tree)
    m = int(tree.n_node_samples[0]) if n_examples is None else int(n_examples)
    ell = effective_n_features(tree.n_categories) if n_features is None else int(n_features)
    objective = BoundObjective(m, ell, tree.n_classes, delta, r, variant,
                               PartitioningCache() if cache is None else cache)
    state = _BoundSearch(tree, stats, objective, lazy=(search == "lazy" and variant == "tight"),
                         loose_kernel=(search == "lazy" and variant != "tight"))
    path = [(state.work.n_leaves, state.eps)]
    collapsed = []
    initial = state.eps
    while state.work.n_leaves > 1:
        best = state.best_candidate()
        if best is None:
            break
        u, eps_u, log_growth_u = best
        state.accept(u, eps_u, log_growth_u)
        collapsed.append(u)
        path.append((state.work.n_leaves, eps_u))
    info = {"initial_bound": initial, "steps": len(path) - 1, "collapsed": tuple(collapsed),
            "objective": "shawe_taylor", **choice.info(), "n_features_effective": ell,
            "n_examples": m,
            "exact_evaluations": state.n_exact, "candidates_seen": state.n_candidates,
            "log_growth": state.log_growth}
    if not collapsed and tree.n_leaves > 1:
        info["pruned_nothing"] = True
        if choice.requested == "auto" and variant != "tight":
            warnings.warn(
                f"bound pruning kept all {tree.n_leaves} leaves: variant='auto' chose the loose "
                f"bound (the tight one estimated at {choice.estimate:.3g} s, over "
                f"{AUTO_TIGHT_SECONDS:g} s) and no collapse lowers it on this tree; grow a "
                "smaller tree (max_leaf_nodes), prune with pruning='ccp_cv', or ask for "
                "pruning_params={'variant': 'tight'}", UserWarning,
                stacklevel=external_stacklevel())
    return finish(tree, state.work.make_leaf_mask(), "bound", path, state.eps, started, info)


class _BoundSearch:
    """State of Algorithm 3 between steps: the working tree, its shapes and its bound."""

    def __init__(self, tree, stats, objective: BoundObjective, lazy: bool,
                 loose_kernel: bool = False):
        self.tree = tree
        self.obj = objective
        self.lazy = lazy
        self.work = WorkingTree(tree, stats)
        self.shapes = subtree_structures(tree)
        self.first_child = tree.first_child.tolist()
        self.parent = stats.parent.tolist()
        self.scale = objective.m / stats.total_weight
        self.ratio_cache: dict = {}   # (A_j, A'_j) canonical shapes -> Gamma, across steps
        self._exact_cache: dict = {}  # candidate -> ln tau, within one step
        self._paths: dict = {}        # candidate -> collapsed root path, within one step
        self.glb: dict = {}           # candidate -> lower bound on ln tau(current tree, u cut)
        self._root_rows = None        # running log-sums of Eq. (4)'s terms, current tree
        self.n_exact = 0
        self.n_candidates = 0
        # Loose variants: every candidate of a step in one kernel call on the flat arrays.
        self.loose = LooseGrowth(tree.first_child, tree.parent, self.work.collapsed,
                                 self.work.leaves, self.shapes[0], objective.m,
                                 objective.n_features,
                                 objective.n_classes, objective.variant == "loose_paper",
                                 objective.cache) if loose_kernel else None
        if self.loose is not None:
            self.log_growth = float(self.loose.log_growth([-1])[0])
        else:
            self.log_growth = objective.log_growth(self.shapes[0])
        self.eps = float(self._eps(self._errors(self.work.loss[0]), self.work.n_leaves,
                                   self.log_growth))
        self.n_parts = objective.n_classes

    # ------------------------------------------------------------------ pieces of eps
    def _errors(self, loss):
        return integer_errors(loss, self.obj.m / self.scale, self.obj.m)

    def _eps(self, k, L, log_growth):
        return self.obj.constant_part(k, L) + self.obj.growth_part(log_growth)

    def _collapsed_path(self, u: int):
        """Ancestors of ``u`` (parent first), their siblings' shapes and the collapsed shapes
        ``A'_1 .. A'_d`` (the last one is the whole candidate tree's structure)."""
        found = self._paths.get(u)
        if found is not None:
            return found
        shapes, fc, parent = self.shapes, self.first_child, self.parent
        t = TreeStructure.leaf()
        child = u
        p = parent[u]
        rebuilt, ancestors, siblings = [], [], []
        while p >= 0:
            left = fc[p]
            if child == left:
                sib = shapes[left + 1]
                t = TreeStructure.node(t, sib)
            else:
                sib = shapes[left]
                t = TreeStructure.node(sib, t)
            ancestors.append(p)
            siblings.append(sib)
            rebuilt.append(t)
            child = p
            p = parent[p]
        if not rebuilt:
            rebuilt.append(t)  # u is the root: the candidate is a single leaf
        self._paths[u] = (ancestors, siblings, rebuilt)
        return ancestors, siblings, rebuilt

    # ------------------------------------------------------------------ the search
    def best_candidate(self):
        """Best single collapse ``(u, eps, ln tau)`` if its bound is ``<=`` the current one."""
        internal = self.work.internal_nodes()
        self._paths.clear()
        if internal.size == 0:
            return None
        self.n_candidates += int(internal.size)
        k_now = self.work.loss[0]
        loss_u = k_now - self.work.loss[internal] + self.work.stats.leaf_loss[internal]
        k_u = self._errors(loss_u)
        L_u = self.work.n_leaves - self.work.leaves[internal] + 1
        base = self.obj.constant_part(k_u, L_u)
        limit = self.eps * (1.0 + _TIE_TOLERANCE) + 1e-15
        if not self.lazy:
            return self._best_exhaustive(internal, base, limit)
        return self._best_lazy(internal, base, limit)

    def _exact(self, u):
        _, _, rebuilt = self._collapsed_path(u)
        self.n_exact += 1
        return self.obj.log_growth(rebuilt[-1])

    def _best_exhaustive(self, internal, base, limit):
        best = None
        if self.loose is not None:
            growth = self.loose.log_growth(internal)
            self.n_exact += int(internal.size)
            eps_all = base + self.obj.growth_part(growth)
            leaves = self.work.leaves[internal]
            for u, eps, g, n in zip(internal.tolist(), eps_all.tolist(), growth.tolist(),
                                    leaves.tolist(), strict=True):
                best = _better(best, (eps, -n, u, g))
        else:
            for i, u in enumerate(internal.tolist()):
                g = self._exact(u)
                eps = float(base[i] + self.obj.growth_part(g))
                best = _better(best, (eps, -int(self.work.leaves[u]), u, g))
        if best is None or best[0] > limit:
            return None
        return best[2], best[0], best[3]

    def _best_lazy(self, internal, base, limit):
        n = self.obj.n_classes
        floor = math.log(min(n, 2 * self.obj.m))
        glb = self.glb
        heap = [(float(b + self.obj.growth_part(max(floor, glb.get(u, floor)))), int(u), 0)
                for b, u in zip(base.tolist(), internal.tolist(), strict=True)]
        heapq.heapify(heap)
        base_of = dict(zip(internal.tolist(), base.tolist(), strict=True))
        best = None
        while heap:
            lb, u, level = heapq.heappop(heap)
            threshold = limit if best is None else min(limit, best[0] * (1 + _TIE_TOLERANCE))
            if lb > threshold:
                break
            if level < 0:  # exact value (compared as computed, not as the running bound)
                g = self._exact_cache[u]
                eps = float(base_of[u] + self.obj.growth_part(g))
                best = _better(best, (eps, -int(self.work.leaves[u]), u, g))
                continue
            new_lb, new_level, g_low = self._refine(u, level, base_of[u])
            if new_level < 0:
                self._exact_cache[u] = g_low
            glb[u] = max(glb.get(u, -math.inf), g_low)
            heapq.heappush(heap, (max(lb, new_lb), u, new_level))
        self._exact_cache.clear()
        if best is None:
            return None
        return best[2], best[0], best[3]

    def _refine(self, u, level, base):
        """Next lower bound of candidate ``u`` after ``level`` (``-1`` = exact)."""
        ancestors, siblings, rebuilt = self._collapsed_path(u)
        d = len(ancestors)
        d_leaves = int(self.work.leaves[u]) - 1
        leaves = self.work.leaves
        j = level + 1
        while j < d:
            parts = rebuilt[j - 1].n_leaves
            if parts >= 2:
                # With fewer leaves than classes, only the rows c <= parts are compared and the
                # bound is on the part of Eq. (4) with at most that many parts (rows <= c of
                # every table depend on rows <= c of the children only).
                rows = None if parts >= self.n_parts else parts
                gamma = self._gamma(self.shapes[ancestors[j - 1]], rebuilt[j - 1], rows)
                if math.isfinite(gamma):
                    # Halving penalty: ancestors above j whose children may become identical.
                    penalty = 0
                    for i in range(j, d):
                        if siblings[i].n_leaves == int(leaves[ancestors[i - 1]]) - d_leaves:
                            penalty += 1
                    reference = self.log_growth if rows is None else self._partial_growth(rows)
                    g_low = reference - gamma - penalty * math.log(2.0)
                    return float(base + self.obj.growth_part(g_low)), j, g_low
            j += 1
        self.n_exact += 1
        g = self.obj.log_growth(rebuilt[-1])
        return float(base + self.obj.growth_part(g)), -1, g

    def _partial_growth(self, rows: int) -> float:
        """``ln sum_{a <= rows} (n)_a pi_T^a(2m)`` of the current tree (Eq. 4 truncated)."""
        if self._root_rows is None:
            structure = self.shapes[0].canonical()
            n, M = self.obj.n_classes, 2 * self.obj.m
            top = min(n, structure.n_leaves, M)
            values = _tight_log_values(structure, top, M, self.obj.n_features, self.obj.cache)
            terms = np.array([log_falling_factorial(n, a) + values[a] for a in range(1, top + 1)])
            self._root_rows = np.logaddexp.accumulate(terms)
        return float(self._root_rows[min(rows, self._root_rows.shape[0]) - 1])

    def _gamma(self, original: TreeStructure, collapsed: TreeStructure, rows=None) -> float:
        """Largest log-ratio of the tight tables of ``original`` over ``collapsed`` on the
        entries the ancestors read (``inf`` when a needed entry of ``collapsed`` is 0); only
        the rows ``c <= rows`` when given."""
        a, b = original.canonical(), collapsed.canonical()
        key = (a, b, rows)
        value = self.ratio_cache.get(key)
        if value is not None:
            return value
        M = 2 * self.obj.m - 1
        C = min(self.n_parts, a.n_leaves) if rows is None else min(rows, a.n_leaves)
        cache, ell = self.obj.cache, self.obj.n_features
        ta = ensure_log_tables(a, self.n_parts, M, ell, cache)
        tb = ensure_log_tables(b, self.n_parts, M, ell, cache)
        if tb.shape[0] < C + 1:
            value = math.inf
        else:
            ratio, scale, bounded = max_log_ratio(ta, tb, C + 1, a.n_leaves, M)
            if not bounded:
                value = math.inf
            else:
                value = max(0.0, float(ratio)) + _TABLE_TOLERANCE * (float(scale) + 1.0)
        self.ratio_cache[key] = value
        return value

    # ------------------------------------------------------------------ accepting
    def _transfer(self, v: int) -> None:
        """Carry every candidate's lower bound over the collapse of ``v`` (before it is made).

        For a candidate ``u`` outside ``v``'s subtree, the next tree with ``u`` cut is the
        current tree with ``u`` cut, then ``v`` cut. The second cut lowers ``ln tau`` by at most
        ``Gamma_i(v)`` plus ``ln 2`` per ancestor above level ``i`` whose children may become
        identical (the argument of the module docstring applied to that tree), for any valid
        level ``i`` of ``v`` whose subtree does not hold ``u`` (then its pair of tables is the
        one already computed for ``v``). An ancestor ``u`` of ``v`` is unaffected.
        """
        ancestors, siblings, rebuilt = self._collapsed_path(v)
        d = len(ancestors)
        leaves = self.work.leaves
        d_v = int(leaves[v]) - 1
        stats = self.work.stats
        level_of = {a: t + 1 for t, a in enumerate(ancestors)}  # A_t = ancestors[t - 1]
        gammas = [math.inf] * d
        for i in range(1, d):
            if rebuilt[i - 1].n_leaves >= self.n_parts:
                gammas[i] = self._gamma(self.shapes[ancestors[i - 1]], rebuilt[i - 1])
        lo, hi = stats.preorder[v], stats.subtree_end[v]
        parent = self.parent
        log2 = math.log(2.0)
        for u in list(self.glb):
            if u in level_of:
                continue  # an ancestor of v: cutting u removes v anyway
            if lo <= stats.preorder[u] < hi:
                del self.glb[u]  # inside v's subtree: gone
                continue
            w = parent[u]
            while w not in level_of:
                w = parent[w]
            top = level_of[w]  # LCA(u, v) = A_top; usable levels of v: i < top
            i = top - 1
            while i >= 1 and not math.isfinite(gammas[i]):
                i -= 1
            if i < 1:
                del self.glb[u]
                continue
            d_u = int(leaves[u]) - 1
            penalty = 0
            for t in range(i + 1, d + 1):
                child = ancestors[t - 2] if t >= 2 else v
                path_leaves = int(leaves[child]) - (d_u if t > top else 0)
                sibling_leaves = siblings[t - 1].n_leaves - (d_u if t == top else 0)
                if sibling_leaves == path_leaves - d_v:
                    penalty += 1
            self.glb[u] -= gammas[i] + penalty * log2

    def accept(self, u: int, eps: float, log_growth: float) -> None:
        if self.lazy:
            self._transfer(u)
        self.work.collapse(u)
        if self.loose is not None:
            self.loose.collapse(u)
        shapes, fc, parent = self.shapes, self.first_child, self.parent
        shapes[u] = TreeStructure.leaf()
        p = parent[u]
        while p >= 0:
            left = fc[p]
            shapes[p] = TreeStructure.node(shapes[left], shapes[left + 1])
            p = parent[p]
        self.eps = float(eps)
        self.log_growth = float(log_growth)
        self._root_rows = None


def _better(best, candidate):
    """Smallest eps; ties (relative 1e-12) go to the bigger collapse, then the smaller id."""
    if best is None:
        return candidate
    eps, neg_leaves, u = candidate[0], candidate[1], candidate[2]
    if eps < best[0] * (1 - _TIE_TOLERANCE) - 1e-15:
        return candidate
    if eps <= best[0] * (1 + _TIE_TOLERANCE) + 1e-15 and (neg_leaves, u) < (best[1], best[2]):
        return candidate
    return best
