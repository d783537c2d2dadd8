"""The certificate methods: each turns a deployed tree and its rows into a risk bound.

Every training-sample method holds with probability at least ``1 - delta`` simultaneously for
every tree of every shape (a union bound with a prior fixed before the data is seen), so it
certifies a tree chosen in any way — by bound pruning, cross-validation or another library —
but only on the i.i.d. sample the tree was fit on.

* ``hti`` — Theorem 5 of Leboeuf, LeBlanc & Marchand (2021) with ``delta p_T`` for the tree's
  shape and the growth function of that shape at ``m + m'`` (Theorem 9 of Leboeuf et al. 2020
  when its tables are affordable, else the closed form
  :func:`~treebound.theory.log_leaf_assignment_growth_bound`; the smaller of the two when
  both are computed — both bound the same growth function);
* ``compression`` — the sample-compression scheme of :mod:`._compression`;
* ``shawe_taylor`` — Eq. (8) of Leboeuf et al. (2020), the bound that bound pruning minimizes;
* ``prefix_code`` — dyadic trees: Scott & Nowak's prefix code over dyadic trees as the prior
  of an Occam bound. The dyadic grid is placed by the minimum and the maximum of every feature
  in the training data, so those examples form a compression set (see :func:`bound_prefix_code`);
* ``test_set`` — Langford's test-set bound, for rows that played no part in fitting or
  choosing the tree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from treebound.certificates._compression import (
    compress,
    log_message_prior,
    log_surjections_bound,
)
from treebound.certificates._counting import (
    counted_n_features,
    log_shape_prior,
    log_test_counts,
    may_grow_multiway,
)
from treebound.theory._costs import CERTIFICATE_TABLE_CELLS, certificate_uses_theorem9
from treebound.theory._fitted_shapes import subtree_structures
from treebound.theory._pruned_shapes import (
    block_log_growth_lower_bound,
    pruned_log_growth_lower_bound,
)
from treebound.theory.bounds import PAPER_ERROR_PRIOR_RATIO, shawe_taylor_bound
from treebound.theory.partitioning import log_growth_function_upper_bound
from treebound.theory.tail_inversion import (
    binomial_tail_inversion,
    binomial_tail_lower_inversion,
    hypergeometric_tail_inversion_bound,
    hypergeometric_tail_inversion_lower_bound,
    log_leaf_assignment_growth_bound,
    sample_compression_bound,
)

__all__ = ["BoundValue", "Sample", "compression_at_least", "gather_evidence",
           "log_growth_bound", "hti_key", "log_growth_lower_bound", "pruned_growth_lower_bound",
           "theorem9_shape", "block_growth_lower_bound"]

#: Theorem 9 is computed when (tree nodes) x (parts) x (points) is below this (about 0.1 s) and
#: its tables are estimated cheap (many-level categorical features); otherwise the closed-form
#: growth bound is used alone (a few percent looser in log): one rule, in the cost model
#: (treebound.theory._costs.certificate_uses_theorem9).
DEFAULT_TABLE_BUDGET = CERTIFICATE_TABLE_CELLS


class NotApplicable(ValueError):
    """A method that cannot certify this tree (the message says why)."""


@dataclass(frozen=True)
class Sample:
    """The rows a bound counts: the deployed tree, true class indices and its mistakes.

    ``evidence`` holds what the bounds read from the rows' feature values, once gathered
    (:func:`gather_evidence`): a sample with it needs no features (``certificate_`` computes
    its bounds on first read from such a sample)."""

    deployed: object
    y: np.ndarray
    wrong: np.ndarray
    evidence: dict = field(default_factory=dict)

    @property
    def m(self) -> int:
        return int(self.y.shape[0])

    @property
    def k(self) -> int:
        return int(np.count_nonzero(self.wrong))

    @property
    def multiway(self) -> bool:
        if "multiway" in self.evidence:
            return self.evidence["multiway"]
        return may_grow_multiway(self.deployed.model, self.deployed.n_levels)


@dataclass(frozen=True)
class BoundValue:
    upper: float
    lower: float | None
    details: dict


def theorem9_shape(deployed, n_points: int, multiway: bool, table_budget: int):
    """The closed-form ``ln tau_T(n_points)`` of the deployed tree's shape, and the shape and
    counted features when Theorem 9's tables are affordable too (else ``None``)."""
    tree = deployed.tree
    n = deployed.n_classes
    L = tree.n_leaves
    log_test_choices = float(log_test_counts(tree, deployed.n_levels, deployed.missing).sum())
    closed = log_leaf_assignment_growth_bound(n_points, n_leaves=L, n_classes=n,
                                              log_test_choices=log_test_choices)
    if multiway or L == 1 or not tree.is_binary:
        return closed, None
    # Tables cost about (distinct subtree shapes) x (parts) x (points); the nodes bound the
    # shapes from above without building them.
    if tree.n_nodes * (min(n, L) + 1) * n_points > table_budget:
        return closed, None
    # categorical features with their declared levels and "anything else" (see _counting)
    # numeric ones twice when the rows hold missing values
    n_features = counted_n_features(deployed.n_levels, deployed.missing)
    shapes = subtree_structures(tree)
    root = shapes[0].canonical()
    below = {s.canonical() for s in shapes if not s.is_leaf} - {root}
    # many-level categorical features make the tables direct sums (seconds each): priced too
    if not certificate_uses_theorem9(tree.n_nodes, below, min(n, L), n_points, n_features):
        return closed, None
    return closed, (shapes[0], n_features)


def log_growth_bound(deployed, n_points: int, multiway: bool,
                     table_budget: int = DEFAULT_TABLE_BUDGET, cache=None,
                     shape=None) -> tuple[float, str]:
    """``ln tau_T(n_points)`` of the deployed tree's shape and the name of the bound used
    (``cache``: a :class:`~treebound.theory.PartitioningCache` shared by trees certified on the
    same rows, e.g. the nested candidates of certified selection; ``shape``:
    :func:`theorem9_shape` of the same arguments, when the caller has it)."""
    closed, theorem9 = shape or theorem9_shape(deployed, n_points, multiway, table_budget)
    if theorem9 is None:
        return closed, "leaf_assignments"
    shape, n_features = theorem9
    tight = log_growth_function_upper_bound(shape, n_examples=n_points, n_features=n_features,
                                            n_classes=deployed.n_classes, cache=cache)
    if tight <= closed:
        return tight, "theorem9"
    return closed, "leaf_assignments"


def log_growth_lower_bound(deployed, n_points: int, multiway: bool,
                           table_budget: int = DEFAULT_TABLE_BUDGET, shape=None) -> float:
    """A number at most :func:`log_growth_bound`'s value, computed without Theorem 9's tables
    (certified selection skips the candidates whose certificate cannot be the smallest).

    Where the tables are not used, the closed form itself. Where they are, the smaller of the
    closed form and a count of labelings that trees of the shape realize, which Theorem 9 (an
    upper bound on the labelings) cannot undercut: ``M`` points on one real feature, any
    ``L - 1`` of the ``M - 1`` gaps between them as thresholds placed in the internal nodes in
    symmetric order (the tree is then a search tree whose ``L`` leaves are the intervals), and
    labels that differ between neighbouring intervals — ``n (n - 1)^(L - 1) C(M - 1, L - 1)``
    distinct labelings, each fixing its thresholds. (``shape``: as in
    :func:`log_growth_bound`.)
    """
    closed, theorem9 = shape or theorem9_shape(deployed, n_points, multiway, table_budget)
    if theorem9 is None:
        return closed
    n, L = deployed.n_classes, deployed.tree.n_leaves
    if n < 2 or n_points < L:
        return 0.0
    counted = (math.log(n) + (L - 1) * math.log(n - 1) + math.lgamma(n_points)
               - math.lgamma(L) - math.lgamma(n_points - L + 1))
    # Theorem 9's values carry a relative error below 1e-9 (log space): keep clear of it
    return min(closed, counted * (1.0 - 1e-7))


def pruned_growth_lower_bound(deployed, inner, n_points: int, multiway: bool,
                              table_budget: int = DEFAULT_TABLE_BUDGET, cache=None, shape=None,
                              inner_shape=None) -> float | None:
    """A number at most :func:`log_growth_bound`'s value for ``deployed``, from the Theorem 9
    tables of ``inner``, a tree on the same rows whose shape is a pruning of ``deployed``'s
    (:func:`~treebound.theory._pruned_shapes.pruned_log_growth_lower_bound`: one evaluation of
    ``inner``'s root when ``cache`` holds its tables); ``None`` when it does not apply (not a
    pruning, or ``inner`` not counted by the tables). ``shape``, ``inner_shape``:
    :func:`theorem9_shape` of each, when the caller has them."""
    closed, theorem9 = shape or theorem9_shape(deployed, n_points, multiway, table_budget)
    if theorem9 is None:
        return closed
    _, inner9 = inner_shape or theorem9_shape(inner, n_points, multiway, table_budget)
    if inner9 is None or inner9[1] != theorem9[1] or inner.n_classes != deployed.n_classes:
        return None
    low = pruned_log_growth_lower_bound(theorem9[0], inner9[0], n_examples=n_points,
                                        n_features=theorem9[1], n_classes=deployed.n_classes,
                                        cache=cache)
    if low is None:
        return None
    # Theorem 9's values carry a relative error below 1e-9 (log space): keep clear of it
    return min(closed, low * (1.0 - 1e-7))


def block_growth_lower_bound(deployed, n_points: int, multiway: bool,
                             table_budget: int = DEFAULT_TABLE_BUDGET, cache=None, shape=None,
                             n_blocks: int | None = None) -> float:
    """A number at most :func:`log_growth_bound`'s value for ``deployed``, from the Theorem 9
    tables ``cache`` holds and sums over blocks of points for the subtrees it does not
    (:func:`~treebound.theory._pruned_shapes.block_log_growth_lower_bound`: a few
    milliseconds where the tree's own tables take tens when ``cache`` holds those of a pruning
    of it). Where the tables are not used, the closed form itself. ``shape``: as in
    :func:`log_growth_bound`; ``n_blocks``: grid points (default
    :data:`~treebound.theory._pruned_shapes.LOWER_BOUND_BLOCKS`)."""
    closed, theorem9 = shape or theorem9_shape(deployed, n_points, multiway, table_budget)
    if theorem9 is None:
        return closed
    options = {} if n_blocks is None else {"n_blocks": n_blocks}
    low = block_log_growth_lower_bound(theorem9[0], n_examples=n_points,
                                       n_features=theorem9[1], n_classes=deployed.n_classes,
                                       cache=cache, **options)
    if low is None:
        return closed  # at most L points: Theorem 9 is not computed for such a tree
    # Theorem 9's values carry a relative error below 1e-9 (log space): keep clear of it
    return min(closed, max(low, 0.0) * (1.0 - 1e-7))


def bound_hti(sample: Sample, delta: float, ghost_size: int | None,
              table_budget: int = DEFAULT_TABLE_BUDGET, cache=None) -> BoundValue:
    ghost = 4 * sample.m if ghost_size is None else ghost_size
    known = sample.evidence.get("hti", {}).get(hti_key(delta, ghost, table_budget))
    return hti_from_counts(sample.deployed, sample.m, sample.k, sample.multiway, delta,
                           ghost_size, table_budget, cache, known)


def hti_key(delta: float, ghost: int, table_budget: int) -> tuple:
    """Key of ``Sample.evidence["hti"]``: ``(log_growth, growth_bound, upper)`` of the ``hti``
    bound a selection already computed on the sample (certified selection's chosen tree)."""
    return (float(delta), int(ghost), int(table_budget))


def hti_from_counts(deployed, m: int, k: int, multiway: bool, delta: float,
                    ghost_size: int | None,
                    table_budget: int = DEFAULT_TABLE_BUDGET, cache=None,
                    known=None) -> BoundValue:
    """The ``hti`` bound from the counts alone: ``m`` rows, ``k`` errors, the tree's shape
    (``cache``: as in :func:`log_growth_bound`; ``known``: ``(log_growth, growth_bound,
    upper)`` already computed for these arguments, see :func:`hti_key`)."""
    ghost = 4 * m if ghost_size is None else ghost_size  # an int (certify checks it)
    log_prior = log_shape_prior(deployed.tree, deployed.n_levels, multiway)
    if known is not None:
        log_growth, how, upper = known
    else:
        log_growth, how = log_growth_bound(deployed, m + ghost, multiway, table_budget, cache)
        upper = hypergeometric_tail_inversion_bound(m, n_errors=k, log_growth=log_growth,
                                                    delta=delta, ghost_size=ghost,
                                                    log_prior=log_prior)
    lower = hypergeometric_tail_inversion_lower_bound(m, n_errors=k, log_growth=log_growth,
                                                      delta=delta, ghost_size=ghost,
                                                      log_prior=log_prior)
    return BoundValue(upper, lower, {"hti": upper, "ghost_size": ghost, "growth_bound": how,
                                     "log_growth": log_growth, "log_shape_prior": log_prior})


def bound_shawe_taylor(sample: Sample, delta: float,
                       table_budget: int = DEFAULT_TABLE_BUDGET) -> BoundValue:
    return shawe_taylor_from_counts(sample.deployed, sample.m, sample.k, sample.multiway, delta,
                                    table_budget)


def shawe_taylor_from_counts(deployed, m: int, k: int, multiway: bool, delta: float,
                             table_budget: int = DEFAULT_TABLE_BUDGET) -> BoundValue:
    """The ``shawe_taylor`` bound from the counts alone."""
    log_growth, how = log_growth_bound(deployed, 2 * m, multiway, table_budget)
    log_prior = log_shape_prior(deployed.tree, deployed.n_levels, multiway)
    r = PAPER_ERROR_PRIOR_RATIO
    log_q = math.log1p(-r) + k * math.log(r)
    value = shawe_taylor_bound(m, n_errors=k, log_growth=log_growth, log_q=log_q, log_p=log_prior,
                               delta=delta)
    # Eq. (8) is a bound on a probability: a value above 1 is reported as it is (vacuous).
    return BoundValue(value, None, {"shawe_taylor": value, "growth_bound": how,
                                    "log_growth": log_growth})


def gather_evidence(sample: Sample, methods) -> Sample:
    """The same sample without its feature values: what ``methods`` read from them (the
    compression set, the prefix code's set, the family's multiway flag) computed now, so the
    bounds can be computed later from the returned sample alone."""
    evidence = {"multiway": sample.multiway}
    if "compression" in methods:
        evidence["compression"] = compress(sample.deployed, sample.wrong, sample.multiway)
    if "prefix_code" in methods and sample.deployed.family == "dyadic":
        evidence["prefix_code"] = _prefix_code_set(sample)
    light = replace(sample.deployed, features=None, model=None)
    return Sample(light, sample.y, sample.wrong, evidence)


def bound_compression(sample: Sample, delta: float) -> BoundValue:
    """The ``compression`` bound of the sample at ``delta`` (read from
    ``sample.evidence["compression_bound"][delta]`` when a selection computed it already on
    this sample: certified selection's chosen tree)."""
    known = sample.evidence.get("compression_bound", {}).get(float(delta))
    if known is not None:
        return known
    found = sample.evidence.get("compression")
    if found is None:
        found = compress(sample.deployed, sample.wrong, sample.multiway)
    if isinstance(found, str):
        raise NotApplicable(found)
    k_out = _errors_outside(sample, found)
    value = sample_compression_bound(sample.m, n_errors_outside=k_out, compression_size=found.size,
                                     log_message_prior=found.log_message_prior,
                                     delta=delta)
    return BoundValue(value, None, {"compression": value, "compression_size": found.size,
                                    "errors_outside": k_out,
                                    "log_message_prior": found.log_message_prior})


def _errors_outside(sample: Sample, found) -> int:
    """The sample's errors outside the compression set ``found``."""
    outside = np.ones(sample.m, dtype=bool)
    outside[found.rows] = False
    return int(np.count_nonzero(sample.wrong & outside))


def compression_at_least(sample: Sample, delta: float, value: float) -> bool:
    """Whether the ``compression`` bound of the sample at ``delta`` is shown to be at least
    ``value`` without inverting the binomial tail (certified selection compares a candidate's
    ``hti`` bound with it, and the inversion costs tens of evaluations of the tail).

    The bound is ``B(k', n, delta')`` with ``n = m - d`` rows outside the compression set,
    ``k'`` errors among them and ``delta' = delta P(sigma, d) / C(m, d)`` (:func:`~treebound.
    theory.tail_inversion.sample_compression_bound`): the largest ``p`` with
    ``Bin(k'; n, p) >= delta'``, never rounded below it. ``Bin(k'; n, p)`` is at least the
    point probability ``P(X = k')``, so a point probability at ``value`` above ``delta'`` (by a
    margin far above the rounding of either) puts ``value`` at or below the bound. ``True``
    only then; ``False`` says nothing (nor does a sample without a compression set)."""
    found = sample.evidence.get("compression")
    if found is None or isinstance(found, str) or not 0.0 < value < 1.0:
        return False
    m, d = sample.m, found.size
    n = m - d
    if n <= 0:
        return True  # the bound is 1
    k = _errors_outside(sample, found)
    if k == n:
        return True  # the bound is 1
    log_choose = math.lgamma(m + 1.0) - math.lgamma(d + 1.0) - math.lgamma(n + 1.0)
    log_delta = math.log(delta) + found.log_message_prior - log_choose
    log_point = (math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)
                 + k * math.log(value) + (n - k) * math.log1p(-value))
    return log_point >= log_delta + 1e-6 * (1.0 + abs(log_delta))


def compression_from_counts(deployed, m: int, size: int, k_out: int, multiway: bool,
                            delta: float) -> BoundValue:
    """The ``compression`` bound from its counts: a compression set of ``size`` rows and
    ``k_out`` errors outside it (the message prior is a function of the tree and ``size``)."""
    tree = deployed.tree
    n_numeric = int(np.count_nonzero((tree.first_child >= 0) & (tree.category_offset < 0)))
    log_p = log_message_prior(tree, deployed.n_levels, deployed.n_classes, multiway, n_numeric,
                              size, deployed.missing)
    value = sample_compression_bound(m, n_errors_outside=k_out, compression_size=size,
                                     log_message_prior=log_p, delta=delta)
    return BoundValue(value, None, {"compression": value, "compression_size": size,
                                    "errors_outside": k_out, "log_message_prior": log_p})


def bound_prefix_code(sample: Sample, delta: float) -> BoundValue:
    """Occam bound with Scott & Nowak's code of a dyadic tree, made valid for the data-placed
    grid by a compression set.

    Scott & Nowak (2006, section III) encode a DDT with ``k`` leaves in
    ``(2k - 1) + (k - 1) log2 d + k log2 n`` bits (one bit per node in preorder, the split
    coordinate of every internal node, the label of every leaf; their ``3k - 1 + (k - 1) log2 d``
    for two classes), a prefix code, so ``P(T) = 2^-[T]`` sums to at most 1 (Kraft). Their
    theory assumes ``[0, 1]^d`` fixed in advance; treebound places the grid at the training
    minimum and maximum of each feature, so the certificate also sends, for each of the ``u``
    features the tree splits, the example holding its minimum and the one holding its maximum
    (the compression set, of size ``c <= 2u``): the thresholds are then rebuilt exactly.
    ``R <= B(k', m - c, delta P(T) / (2u S_c C(m, c)))`` with ``k'`` errors outside the set,
    ``2u`` choices of ``c`` and ``S_c`` the surjections of the ``2u`` roles onto the set.
    """
    if sample.deployed.family != "dyadic":
        raise NotApplicable("the prefix-code bound is for DyadicTreeClassifier")
    c, _, k_out = sample.evidence.get("prefix_code") or _prefix_code_set(sample)
    return prefix_code_from_counts(sample.deployed, sample.m, c, k_out, delta)


def split_features(tree) -> np.ndarray:
    """The features the tree's tests read, sorted."""
    return np.unique(tree.feature[tree.first_child >= 0])


def prefix_code_from_counts(deployed, m: int, c: int, k_out: int, delta: float) -> BoundValue:
    """The ``prefix_code`` bound from its counts: a set of ``c`` rows holding the split
    features' extremes and ``k_out`` errors outside it."""
    if deployed.family != "dyadic":
        raise NotApplicable("the prefix-code bound is for DyadicTreeClassifier")
    tree = deployed.tree
    L = tree.n_leaves
    d = deployed.n_features
    n = deployed.n_classes
    u = int(split_features(tree).shape[0])
    log_prior = -((2 * L - 1) * math.log(2.0) + (L - 1) * math.log(d) + L * math.log(n))
    if u:
        log_prior -= math.log(2 * u) + log_surjections_bound(2 * u, c)
    value = sample_compression_bound(m, n_errors_outside=k_out, compression_size=c,
                                     log_message_prior=log_prior, delta=delta)
    return BoundValue(value, None, {"prefix_code": value, "compression_size": c,
                                    "errors_outside": k_out, "code_bits": -log_prior / math.log(2)})


def _prefix_code_set(sample: Sample) -> tuple[int, int, int]:
    """``(c, u, k')`` of the prefix-code bound: the size of its compression set (the rows
    holding each split feature's minimum and maximum), the split features, and the errors
    outside the set."""
    used = split_features(sample.deployed.tree)
    chosen = np.zeros(sample.m, dtype=bool)
    features = sample.deployed.features
    for f in used.tolist():
        column = features[:, f]
        for target in (column.min(), column.max()):
            candidates = np.flatnonzero(column == target)
            pick = candidates[np.argmax(chosen[candidates] * 2 + sample.wrong[candidates])]
            chosen[pick] = True
    return (int(np.count_nonzero(chosen)), int(used.shape[0]),
            int(np.count_nonzero(sample.wrong & ~chosen)))


def bound_test_set(sample: Sample, delta: float) -> BoundValue:
    upper = binomial_tail_inversion(sample.k, n_examples=sample.m, delta=delta)
    lower = binomial_tail_lower_inversion(sample.k, n_examples=sample.m, delta=delta)
    return BoundValue(upper, lower, {"test_set": upper})


#: Methods computed on the training sample (the others use held-out rows).
TRAINING_METHODS = ("hti", "compression", "shawe_taylor", "prefix_code")


def auto_pair(deployed) -> tuple[str, str]:
    """The two methods ``"auto"`` combines for this kind of tree."""
    if deployed.family == "dyadic":
        return ("prefix_code", "hti")
    return ("hti", "compression")
