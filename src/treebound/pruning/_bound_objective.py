"""The inputs of bound pruning (Leboeuf et al. 2020, Algorithm 3): the objective ``eps`` of
Eq. (8) in parts, the number of features Theorem 9 sees, and which growth-function variant fits
the resource limits. :mod:`treebound.pruning.bound` re-exports every name here."""

from __future__ import annotations

import math
import warnings

import numpy as np

from treebound._flat._features import effective_n_features
from treebound._resources import ResourceLimitError, check_resources, unbounded
from treebound._validation import external_stacklevel
from treebound.theory._fitted_shapes import subtree_structures
from treebound.theory.bounds import log_structure_prior
from treebound.theory.partitioning import PartitioningCache, log_growth_function_upper_bound
from treebound.theory.structures import TreeStructure

__all__ = ["BoundObjective", "choose_variant", "effective_n_features", "tight_table_cost"]


# Cost model of the tight tables (measured on this machine, bench_certify_speed.py era): about
# 1 microsecond and 16 bytes (table and prefix sums) per entry, plus the merges of Theorem 9,
# cubic in the parts, for many classes.
_SECONDS_PER_ENTRY = 1.5e-6
_SECONDS_PER_MERGE = 3e-9
_BYTES_PER_ENTRY = 16


def tight_table_cost(tree, n_examples: int | None = None) -> tuple[float, float]:
    """Rough cost of the tight partitioning tables (Theorem 9) the first evaluation of
    ``tree``'s bound builds.

    One table of ``min(n_classes, L_s) + 1`` rows over ``2m + 1`` points per distinct subtree
    shape ``s``; the search then adds tables for the candidates' root paths, within the same
    order of magnitude per step.

    Parameters
    ----------
    tree : Tree
        A binary classification tree.
    n_examples : int, optional
        ``m``; defaults to the training rows at the root.

    Returns
    -------
    memory : float
        Estimated bytes.
    seconds : float
        Estimated seconds.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_leaf_nodes=4, random_state=0).fit(X, y).tree_
    >>> str(TreeStructure.from_tree(tree))
    '(L,((L,L),L))'
    >>> memory, seconds = tight_table_cost(tree)  # tables of 3 + 4 + 4 rows over 2m + 1 points
    >>> memory == 16 * (3 + 4 + 4) * (2 * 150 + 1), seconds < 0.1
    (True, True)
    """
    m = int(tree.n_node_samples[0]) if n_examples is None else int(n_examples)
    n = tree.n_classes
    parts = np.array([min(n, s.n_leaves) + 1 for s in
                      {t.canonical() for t in subtree_structures(tree)} if not s.is_leaf],
                     dtype=np.float64)
    points = 2.0 * m + 1.0
    entries = float(parts.sum()) * points
    merges = float((parts**3).sum()) * points
    return (_BYTES_PER_ENTRY * entries,
            _SECONDS_PER_ENTRY * entries + _SECONDS_PER_MERGE * merges)


def choose_variant(tree, variant: str) -> str:
    """The growth-function variant bound pruning runs.

    ``"auto"`` is ``"tight"`` (Theorem 9) when its tables (:func:`tight_table_cost`) fit the
    resource limits (:func:`treebound.resource_limits`), else ``"loose"`` (the bound of
    Leboeuf et al. 2020, end of section 6.2: valid and table-free) with a warning; an explicit
    ``"tight"`` over the limits raises :class:`~treebound.ResourceLimitError` naming the
    estimate and how to raise the limit.

    Parameters
    ----------
    tree : Tree
        The grown tree to prune.
    variant : {"auto", "tight", "loose", "loose_paper"}
        The ``variant`` asked for.

    Returns
    -------
    str
        The variant to run (``variant`` itself unless it is ``"auto"``; also for trees the bound
        does not apply to, which the pruning then refuses).

    Raises
    ------
    ResourceLimitError
        ``variant="tight"`` over the limits.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from treebound import DecisionTreeClassifier, ResourceLimitError, resource_limits
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    >>> choose_variant(tree, "auto"), choose_variant(tree, "loose")
    ('tight', 'loose')
    >>> with resource_limits(max_seconds=0.01):
    ...     choose_variant(tree, "tight")
    Traceback (most recent call last):
    ...
    treebound._resources.ResourceLimitError: bound pruning (tight Theorem 9 tables) ...
    """
    if variant not in ("auto", "tight") or not tree.is_binary or tree.task != "classification":
        return variant
    if unbounded():
        return "tight"
    memory, seconds = tight_table_cost(tree)
    what = (f"bound pruning (tight Theorem 9 tables) of a tree with {tree.n_leaves} leaves and "
            f"{tree.n_classes} classes at m = {int(tree.n_node_samples[0])}")
    try:
        check_resources(what, memory=memory, seconds=seconds)
    except ResourceLimitError as exc:
        if variant == "tight":
            raise ResourceLimitError(f"{exc}; or prune with variant='loose' (no tables)") \
                from None
        warnings.warn(f"{exc}. pruning_params variant='auto' uses the loose bound instead "
                      "(Leboeuf et al. section 6.2, valid, no tables); raise the limit or ask "
                      "for variant='tight' to keep Theorem 9", UserWarning,
                      stacklevel=external_stacklevel())
        return "loose"
    return "tight"



class BoundObjective:
    """``eps`` of Eq. (8) of Leboeuf et al. (2020) as a function of (errors, leaves, log
    growth), vectorized over candidate trees.

    ``eps(T) = (1/m) (2k + 4 ln(4 tau_T(2m) / (delta q_k p_L)))`` with the error prior
    ``q_k = (1 - r) r^k`` and the structure prior ``p_L`` of section 6.2: the part without
    ``tau`` (:meth:`constant_part`) is known for every candidate at once, the growth part
    (:meth:`growth_part` of :meth:`log_growth`) needs the candidate's shape.

    Parameters
    ----------
    n_examples : int
        ``m``, the training rows.
    n_features : int
        ``ell`` of Theorem 9 (:func:`effective_n_features`).
    n_classes : int
        ``n``, the labels.
    delta : float in (0, 1)
        Confidence of the bound.
    r : float in (0, 1)
        Ratio of the error prior (the paper's ``2**-13.7``).
    variant : {"tight", "loose", "loose_paper"}
        Growth-function bound (:func:`treebound.theory.log_growth_function_upper_bound`).
    cache : PartitioningCache
        Tables shared by every candidate.

    Examples
    --------
    >>> from treebound.theory import PartitioningCache, TreeStructure
    >>> objective = BoundObjective(150, 4, 3, 0.05, 2**-13.7, "tight", PartitioningCache())
    >>> shape = TreeStructure.parse("((L,L),L)")
    >>> eps = objective.constant_part([2], [3]) + objective.growth_part(objective.log_growth(shape))
    >>> [round(float(e), 4) for e in eps]  # k = 2 errors, L = 3 leaves, m = 150
    [1.1768]
    """

    def __init__(self, n_examples: int, n_features: int, n_classes: int, delta: float, r: float,
                 variant: str, cache: PartitioningCache):
        self.m = int(n_examples)
        self.n_features = int(n_features)
        self.n_classes = int(n_classes)
        self.delta = float(delta)
        self.r = float(r)
        self.variant = variant
        self.cache = cache
        self._log_prior = [math.nan]  # ln p_L for L = 1, 2, ...

    def log_structure_priors(self, n_leaves) -> np.ndarray:
        """``ln p_L``, the structure prior of section 6.2, for each number of leaves.

        Parameters
        ----------
        n_leaves : array-like of int
            Leaf counts, at least 1.

        Returns
        -------
        ndarray of float64
            Same shape as ``n_leaves`` (values memoized across calls).

        Examples
        --------
        >>> from treebound.theory import PartitioningCache
        >>> objective = BoundObjective(150, 4, 3, 0.05, 2**-13.7, "tight", PartitioningCache())
        >>> objective.log_structure_priors([1, 2, 4]).round(4).tolist()
        [-0.4977, -1.884, -3.9634]
        """
        top = int(np.max(n_leaves))
        while len(self._log_prior) <= top:
            self._log_prior.append(log_structure_prior(len(self._log_prior)))
        return np.asarray(self._log_prior)[np.asarray(n_leaves, dtype=np.int64)]

    def constant_part(self, n_errors, n_leaves) -> np.ndarray:
        """``eps`` without the growth-function term:
        ``(2k + 4 (ln 4 - ln delta - ln q_k - ln p_L)) / m``.

        Parameters
        ----------
        n_errors : array-like of float
            Training errors ``k`` of each candidate (integers, or weighted errors scaled to
            rows).
        n_leaves : array-like of int
            Leaves ``L`` of each candidate.

        Returns
        -------
        ndarray of float64

        Examples
        --------
        >>> from treebound.theory import PartitioningCache
        >>> objective = BoundObjective(150, 4, 3, 0.05, 2**-13.7, "tight", PartitioningCache())
        >>> objective.constant_part([0, 3], [4, 4]).round(4).tolist()
        [0.2225, 1.0222]
        """
        k = np.asarray(n_errors, dtype=np.float64)
        log_q = math.log1p(-self.r) + k * math.log(self.r)
        log_p = self.log_structure_priors(n_leaves)
        return (2.0 * k + 4.0 * (math.log(4.0) - math.log(self.delta) - log_q - log_p)) / self.m

    def growth_part(self, log_growth):
        """The growth-function term of ``eps``: ``4 ln tau_T(2m) / m``.

        Parameters
        ----------
        log_growth : float or array-like of float
            ``ln tau_T(2m)`` (:meth:`log_growth`).

        Returns
        -------
        ndarray of float64

        Examples
        --------
        >>> from treebound.theory import PartitioningCache
        >>> objective = BoundObjective(150, 4, 3, 0.05, 2**-13.7, "tight", PartitioningCache())
        >>> float(objective.growth_part(15.0))
        0.4
        """
        return 4.0 * np.asarray(log_growth, dtype=np.float64) / self.m

    def log_growth(self, structure: TreeStructure) -> float:
        """``ln tau_T(2m)`` (Eq. 8 evaluates the growth function at twice the sample size).

        Parameters
        ----------
        structure : TreeStructure
            The candidate's shape.

        Returns
        -------
        float

        Examples
        --------
        >>> from treebound.theory import PartitioningCache, TreeStructure
        >>> objective = BoundObjective(150, 4, 3, 0.05, 2**-13.7, "tight", PartitioningCache())
        >>> round(objective.log_growth(TreeStructure.parse("((L,L),L)")), 4)
        17.0609
        """
        return log_growth_function_upper_bound(structure, n_examples=2 * self.m,
                                               n_features=self.n_features,
                                               n_classes=self.n_classes, variant=self.variant,
                                               cache=self.cache)
