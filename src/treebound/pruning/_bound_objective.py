"""The inputs of bound pruning (Leboeuf et al. 2020, Algorithm 3): the objective ``eps`` of
Eq. (8) in parts, the number of features Theorem 9 sees, and the growth-function variant (a
fixed rule for ``"auto"``; the resource limits only refuse). :mod:`treebound.pruning.bound`
re-exports every name here."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from treebound._flat._features import effective_n_features
from treebound._flat._sklearn_view import as_flat
from treebound._resources import ResourceLimitError, current_limits
from treebound.theory._costs import tight_pruning_cost
from treebound.theory._fitted_shapes import pruning_table_shapes
from treebound.theory.bounds import log_structure_prior
from treebound.theory.partitioning import PartitioningCache, log_growth_function_upper_bound
from treebound.theory.structures import TreeStructure

__all__ = ["AUTO_TIGHT_BYTES", "AUTO_TIGHT_SECONDS", "BoundObjective", "VariantChoice",
           "choose_variant", "effective_n_features", "tight_table_cost"]


#: ``variant="auto"`` prunes with the tight bound when its estimated cost
#: (:func:`tight_table_cost`, seconds of the reference machine the cost model was measured on) is
#: at most this, and its memory at most :data:`AUTO_TIGHT_BYTES`; else with the loose bound. A
#: fixed rule on the tree, its classes and its rows: the machine and the resource limits play no
#: part in it.
AUTO_TIGHT_SECONDS = 10.0
AUTO_TIGHT_BYTES = 2**30


def tight_table_cost(tree, n_examples: int | None = None,
                     n_features: int | None = None) -> tuple[float, float]:
    """Estimated cost of bound pruning ``tree`` with the tight bound (Theorem 9's tables).

    The tables over ``m < 2 n_examples`` of the grown tree's subtrees and of the collapsed
    subtrees the search brackets candidates with, each priced by the routes its sums take (many
    features, e.g. categorical ones with many levels, make them direct sums, quadratic in ``m``):
    :func:`treebound.theory._costs.tight_pruning_cost`, the one cost model of the tables.

    Parameters
    ----------
    tree : Tree
        A binary classification tree.
    n_examples : int, optional
        ``m``; defaults to the training rows at the root.
    n_features : int, optional
        ``ell``; defaults to :func:`effective_n_features` of the tree.

    Returns
    -------
    memory : float
        Estimated bytes.
    seconds : float
        Estimated seconds on the reference machine (``benchmarks/results/pruning_cost.md``
        compares them with measured times).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_leaf_nodes=4, random_state=0).fit(X, y).tree_
    >>> str(TreeStructure.from_tree(tree))
    '(L,((L,L),L))'
    >>> memory, seconds = tight_table_cost(tree)  # tables of 4 + 3 rows over 2m points
    >>> memory == 20 * (4 + 3) * (2 * 150), seconds < 0.1
    (True, True)
    """
    tree = as_flat(tree)
    m = int(tree.n_node_samples[0]) if n_examples is None else int(n_examples)
    ell = effective_n_features(tree.n_categories) if n_features is None else int(n_features)
    grown, collapsed = pruning_table_shapes(tree)
    return tight_pruning_cost(grown, collapsed, tree.n_classes, m, ell)


@dataclass(frozen=True)
class VariantChoice:
    """The growth-function variant bound pruning runs, and why (made by :func:`choose_variant`).

    Parameters
    ----------
    requested : str
        The ``variant`` asked for (``"auto"``, ``"tight"``, ``"loose"``, ``"loose_paper"``).
    variant : str
        The one run.
    estimate : float or None
        :func:`tight_table_cost` seconds, when computed (``"auto"`` and ``"tight"``).
    rule : str
        One sentence: how ``variant`` was chosen (``pruning_info_["variant_rule"]``).

    Examples
    --------
    >>> choice = VariantChoice("loose", "loose", None, "variant='loose' as given")
    >>> choice.info()["variant"], "tight_estimate_seconds" in choice.info()
    ('loose', False)
    """

    requested: str
    variant: str
    estimate: float | None
    rule: str

    def info(self) -> dict:
        """The entries of ``pruning_info_`` that record the choice.

        Returns
        -------
        dict
            ``variant``, ``variant_requested``, ``variant_rule`` and, when computed,
            ``tight_estimate_seconds``.

        Examples
        --------
        >>> VariantChoice("auto", "tight", 0.25, "auto: ...").info()["tight_estimate_seconds"]
        0.25
        """
        out = {"variant": self.variant, "variant_requested": self.requested,
               "variant_rule": self.rule}
        if self.estimate is not None:
            out["tight_estimate_seconds"] = self.estimate
        return out


def choose_variant(tree, variant: str) -> VariantChoice:
    """The growth-function variant bound pruning runs: a fixed rule, then a resource check.

    ``"auto"`` is ``"tight"`` (Theorem 9) when :func:`tight_table_cost` is at most
    :data:`AUTO_TIGHT_SECONDS` seconds and :data:`AUTO_TIGHT_BYTES` bytes, else ``"loose"``
    (Leboeuf et al. 2020, end of section 6.2: valid and table-free): the same answer for the
    same tree, classes and rows on every machine, whatever the resource limits. Those limits
    (:func:`treebound.resource_limits`, ``TREEBOUND_MAX_SECONDS``, ``TREEBOUND_MAX_MEMORY``)
    then only refuse: a tight run estimated over them raises
    :class:`~treebound.ResourceLimitError` before any work, naming
    ``pruning_params={'variant': 'loose'}`` and ``max_leaf_nodes``; they never change the tree.

    Parameters
    ----------
    tree : Tree
        The grown tree to prune.
    variant : {"auto", "tight", "loose", "loose_paper"}
        The ``variant`` asked for.

    Returns
    -------
    VariantChoice

    Raises
    ------
    ResourceLimitError
        A tight run estimated over the resource limits.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from treebound import DecisionTreeClassifier, ResourceLimitError, resource_limits
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    >>> choose_variant(tree, "auto").variant, choose_variant(tree, "loose").variant
    ('tight', 'loose')
    >>> with resource_limits(max_seconds=0.001):
    ...     choose_variant(tree, "tight")
    Traceback (most recent call last):
    ...
    treebound._resources.ResourceLimitError: bound pruning with the tight bound ...
    """
    tree = as_flat(tree)
    applies = tree.is_binary and tree.task == "classification"
    if variant not in ("auto", "tight") or not applies:
        # the pruning refuses trees the bound does not apply to, with its own message
        return VariantChoice(variant, variant, None, f"variant={variant!r} as given")
    memory, seconds = tight_table_cost(tree)
    if variant == "tight":
        _check_tight(tree, memory, seconds, current_limits())
        return VariantChoice("tight", "tight", seconds, "variant='tight' as given")
    if seconds <= AUTO_TIGHT_SECONDS and memory <= AUTO_TIGHT_BYTES:
        choice = VariantChoice("auto", "tight", seconds, _AUTO_RULE.format(
            estimate=_estimate_text(seconds, memory), verdict="within"))
        _check_tight(tree, memory, seconds, current_limits())
        return choice
    return VariantChoice("auto", "loose", seconds, _AUTO_RULE.format(
        estimate=_estimate_text(seconds, memory), verdict="over"))


_AUTO_RULE = ("auto: tight when the estimated cost of its Theorem 9 tables is at most "
              f"{AUTO_TIGHT_SECONDS:g} s and {AUTO_TIGHT_BYTES / 2**30:g} GiB on the reference "
              "machine, else loose; estimate {estimate}, {verdict} that")


def _estimate_text(seconds, memory):
    return f"{seconds:.3g} s and {memory / 2**20:.3g} MiB"


def _check_tight(tree, memory, seconds, limits) -> None:
    """Refuse a tight run estimated over the resource limits (``limits``), before any work."""
    if memory <= limits.max_memory and seconds <= limits.max_seconds:
        return
    ell = effective_n_features(tree.n_categories)
    levels = int(np.max(tree.n_categories)) if tree.n_categories.size else 0
    about = (f"{tree.n_leaves} leaves, {tree.n_classes} classes, "
             f"{int(tree.n_node_samples[0])} rows, ell = {_ell_text(ell)}"
             + (f" from a categorical feature of {levels} levels" if levels > 2 else ""))
    if seconds > limits.max_seconds:
        need = f"about {seconds:.3g} s, over the time limit of {limits.max_seconds:g} s"
    else:
        need = (f"about {memory / 2**20:.3g} MiB, over the memory limit of "
                f"{limits.max_memory / 2**20:.3g} MiB")
    raise ResourceLimitError(
        f"bound pruning with the tight bound (Theorem 9 tables) of this tree ({about}) needs "
        f"{need}: prune with pruning_params={{'variant': 'loose'}} (no tables), grow a smaller "
        "tree (max_leaf_nodes), or raise the limit (TREEBOUND_MAX_SECONDS / "
        "TREEBOUND_MAX_MEMORY, or treebound.resource_limits)")


def _ell_text(ell: int) -> str:
    return f"{ell:,}" if ell < 10**12 else f"about 2^{ell.bit_length() - 1}"


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
