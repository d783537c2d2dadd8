"""OPT(D, t), the MIC constants and the MIC metric (Brutzkus, Daniely & Malach 2020).

OPT(F, t) is the smallest test error of a tree with at most ``t`` internal nodes (section 4). It
is computed by the dynamic programs of section 7: under the uniform distribution the state is the
multiset of term sizes,

    OPT(F, t) = min_{i, 0<=j<=t-1} ½ OPT(F∖{c_i}, j) + ½ OPT((F∖{c_i}) ∪ {c_i⁻}, t-1-j),

and under a two-valued product distribution (Eq. 4) the state is the multiset of pairs (n1, n2),
with the weights (1-p_k, p_k) of the class k of the split literal. Both are the same recursion
over class-count states (see ``treebound.mic._states``); Appendix E shows that splits on
variables outside the formula never help, so only the formula's literals are tried.
"""

from __future__ import annotations

import numpy as np

from treebound._kernels.mic_optimal import optimal_error_table
from treebound.mic._checks import check_t_max
from treebound.mic._states import (
    ReachableStateSpace,
    State,
    StateSpace,
    canonical_state,
    literal_classes,
)
from treebound.mic.distributions import ProductDistribution
from treebound.mic.dnf import ReadOnceDNF

__all__ = ["OptimalErrorTable", "mic", "mic_constants", "optimal_errors"]

#: |ε_t| up to this is rounding: the greedy errors and OPT sum the same leaf errors in different
#: orders. A gap further below zero means ``optimal`` is not optimal.
GAP_TOLERANCE = 1e-12


class OptimalErrorTable:
    """Memo table of the section 7 DP: OPT(F, t) for every state of a closed family.

    Build it for one DNF (:meth:`for_dnf`, the states reachable from it) or for a whole family of
    formulas (:meth:`for_family`, e.g. all DNFs with <= 8 terms of <= 8 literals, which is closed
    under conditioning), then read rows with :meth:`errors_of`.

    Parameters
    ----------
    space : StateSpace or ReachableStateSpace
        States in topological order with their splits (``treebound.mic._states``).
    t_max : int
        Largest number of internal nodes.

    Examples
    --------
    >>> table = OptimalErrorTable.for_family([0.5], max_terms=2, max_literals=3, t_max=5)
    >>> f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4 & x5)")
    >>> table.errors_of(f, ProductDistribution.uniform(5)).round(5).tolist()
    [0.34375, 0.28125, 0.09375, 0.09375, 0.09375, 0.03125]
    """

    def __init__(self, space: StateSpace | ReachableStateSpace, t_max: int):
        self.t_max = check_t_max(t_max)
        self.space = space
        self.values = optimal_error_table(
            space.leaf_error,
            space.move_start,
            space.move_false,
            space.move_true,
            space.move_prob,
            self.t_max,
        )

    @classmethod
    def for_dnf(cls, dnf: ReadOnceDNF, dist: ProductDistribution, t_max: int):
        """Table of the states reachable from one DNF (enumerated by a kernel).

        Parameters
        ----------
        dnf : ReadOnceDNF
            The target.
        dist : ProductDistribution
            Uniform, or two-valued on the DNF's literals (see :func:`optimal_errors`).
        t_max : int
            Largest number of internal nodes.

        Returns
        -------
        OptimalErrorTable

        Examples
        --------
        >>> from treebound.mic import OptimalErrorTable, ProductDistribution, ReadOnceDNF
        >>> f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4 & x5)")
        >>> table = OptimalErrorTable.for_dnf(f, ProductDistribution.uniform(5), 5)
        >>> table.errors_of(f, ProductDistribution.uniform(5)).tolist()
        [0.34375, 0.28125, 0.09375, 0.09375, 0.09375, 0.03125]
        """
        classes = _two_valued_classes(dnf, dist)
        return cls(ReachableStateSpace.of(classes.root_state(), classes.probabilities), t_max)

    @classmethod
    def for_family(cls, class_probabilities, max_terms: int, max_literals: int, t_max: int):
        """Table for every formula of at most ``max_terms`` terms of ``<= max_literals`` literals.

        The family is closed under conditioning, so one table answers OPT for all its formulas
        (Brutzkus, Daniely & Malach 2020, section 7).

        Parameters
        ----------
        class_probabilities : sequence of float
            The literal truth probabilities, ascending: ``[0.5]`` for the uniform distribution,
            ``[p1, p2]`` for a two-valued product distribution.
        max_terms : int
            Largest number of terms.
        max_literals : int
            Largest number of literals of a term.
        t_max : int
            Largest number of internal nodes.

        Returns
        -------
        OptimalErrorTable

        Examples
        --------
        >>> table = OptimalErrorTable.for_family([0.5], max_terms=2, max_literals=3, t_max=5)
        >>> table.errors_of_state(((1,),)).tolist()  # F = x1: one split is exact
        [0.5, 0.0, 0.0, 0.0, 0.0, 0.0]
        """
        probabilities = np.asarray(class_probabilities, dtype=np.float64)
        if probabilities.ndim != 1 or not 1 <= probabilities.size <= 2:
            raise ValueError(
                "class_probabilities must hold one (uniform) or two (two-valued) probabilities, "
                f"got {class_probabilities!r}"
            )
        if not np.all(np.diff(probabilities) > 0) or not np.all(
            (probabilities > 0) & (probabilities < 1)
        ):
            raise ValueError(
                f"class_probabilities must be increasing and inside (0, 1), got {probabilities}"
            )
        for name, value in (("max_terms", max_terms), ("max_literals", max_literals)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        return cls(StateSpace.family(probabilities, max_terms, max_literals), t_max)

    def errors_of_state(self, state: State) -> np.ndarray:
        """``OPT(F, 0..t_max)`` of a class-count state (a read-only row of the table).

        Parameters
        ----------
        state : tuple of tuples of int
            One profile per term: the number of its literals in each probability class (e.g.
            ``((2,), (3,))``: a term of 2 and a term of 3 literals under the uniform distribution);
            the order of the terms does not matter.

        Returns
        -------
        ndarray of float64, shape (t_max + 1,)

        Raises
        ------
        ValueError
            If the state is not in the table's family.

        Examples
        --------
        >>> table = OptimalErrorTable.for_family([0.5], max_terms=2, max_literals=3, t_max=5)
        >>> table.errors_of_state(((3,), (2,))).tolist()
        [0.34375, 0.28125, 0.09375, 0.09375, 0.09375, 0.03125]
        """
        state = canonical_state(state)
        index = self.space.index_of(state)
        if index < 0:
            raise ValueError(f"state {state} is not in this table's family")
        row = self.values[index]
        row.setflags(write=False)
        return row

    def errors_of(self, dnf: ReadOnceDNF, dist: ProductDistribution) -> np.ndarray:
        """``OPT(F, 0..t_max)`` of ``dnf`` under ``dist`` (which must match the table's classes).

        Parameters
        ----------
        dnf : ReadOnceDNF
            A formula of the table's family.
        dist : ProductDistribution
            Its distribution; its literal probabilities must be the table's classes.

        Returns
        -------
        ndarray of float64, shape (t_max + 1,)
            Read-only.

        Examples
        --------
        >>> from treebound.mic import OptimalErrorTable, ProductDistribution, ReadOnceDNF
        >>> f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4 & x5)")
        >>> table = OptimalErrorTable.for_family([0.5], max_terms=2, max_literals=3, t_max=5)
        >>> table.errors_of(f, ProductDistribution.uniform(5)).tolist()
        [0.34375, 0.28125, 0.09375, 0.09375, 0.09375, 0.03125]
        """
        classes = _two_valued_classes(dnf, dist)
        table_probs = self.space.class_probs
        # The DNF may use only some of the table's classes; map its classes onto the table's.
        mapping = [int(np.argmin(np.abs(table_probs - p))) for p in classes.probabilities]
        if any(abs(table_probs[m] - p) > 1e-12 for m, p in zip(mapping, classes.probabilities, strict=True)):
            raise ValueError(
                f"the DNF's literal probabilities {classes.probabilities.tolist()} are not the "
                f"table's classes {table_probs.tolist()}"
            )
        profiles = []
        for row in classes.term_counts:
            profile = [0] * table_probs.size
            for c, count in enumerate(row):
                profile[mapping[c]] += int(count)
            profiles.append(tuple(profile))
        return self.errors_of_state(tuple(profiles))


def optimal_errors(dnf: ReadOnceDNF, dist: ProductDistribution, t_max: int) -> np.ndarray:
    """OPT(F, t) for t = 0..t_max, exactly, by the dynamic programs of section 7.

    Parameters
    ----------
    dnf : ReadOnceDNF
    dist : ProductDistribution
        Uniform, or two-valued on the DNF's literals: the literals' probabilities of being true
        (``p_i`` for ``x_i``, ``1 - p_i`` for ``~x_i``) take at most two distinct values. Variables
        outside the formula may have any ``p_i`` (they never help, Appendix E).
    t_max : int

    Returns
    -------
    ndarray of shape (t_max + 1,)
        ``OPT[0]`` is the single leaf's error min(P[F=1], P[F=0]); non-increasing in t.

    Raises
    ------
    ValueError
        If the literals take three or more truth probabilities: the paper's DPs cover only the
        uniform and the two-valued product distributions.

    Examples
    --------
    >>> f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4 & x5)")
    >>> optimal_errors(f, ProductDistribution.uniform(5), 8).round(5).tolist()
    [0.34375, 0.28125, 0.09375, 0.09375, 0.09375, 0.03125, 0.03125, 0.03125, 0.0]
    """
    table = OptimalErrorTable.for_dnf(dnf, dist, t_max)
    return table.errors_of(dnf, dist).copy()


def mic_constants(errors, optimal) -> np.ndarray:
    """MIC constants ``eps_t = E(A(D, t)) - OPT(D, t)`` (Definition 4.1), for ``t = 0..t_max``.

    Brutzkus, Daniely & Malach (2020): how much worse than the best tree of ``t`` internal
    nodes the greedy algorithm ``A`` is after ``t`` iterations. ``eps[0]`` compares two single
    leaves and is 0; Definition 4.1 starts at ``t = 1``. Gaps of magnitude at most
    :data:`GAP_TOLERANCE` are rounding and are returned as exactly 0.

    Parameters
    ----------
    errors : array-like of shape (t_max + 1,)
        ``errors[t] = E(A(D, t))``, from ``t = 0``.
    optimal : array-like of shape (t_max + 1,)
        ``optimal[t] = OPT(D, t)``, from ``t = 0`` (:func:`optimal_errors`).

    Returns
    -------
    ndarray of float64, shape (t_max + 1,)

    Raises
    ------
    ValueError
        If ``errors`` falls below ``optimal`` by more than rounding (``optimal`` is not optimal).

    Examples
    --------
    >>> mic_constants([0.5, 0.3, 0.2], [0.5, 0.25, 0.1]).round(12).tolist()
    [0.0, 0.05, 0.1]
    """
    errors = _as_curve(errors, "errors")
    optimal = _as_curve(optimal, "optimal")
    if errors.shape != optimal.shape:
        raise ValueError(
            f"errors and optimal must have the same length, got {errors.size} and {optimal.size}"
        )
    gaps = errors - optimal
    if gaps.min() < -GAP_TOLERANCE:
        t = int(np.argmin(gaps))
        raise ValueError(
            f"errors[{t}] = {errors[t]!r} is below optimal[{t}] = {optimal[t]!r}: "
            "'optimal' is not the optimal error"
        )
    return np.where(gaps <= GAP_TOLERANCE, 0.0, gaps)


def mic(errors, optimal, t_star: int) -> float:
    """The mean iteration statistical consistency ``m(t*) = (1/t*) sum_{t=1}^{t*} eps_t``.

    Definition 4.2 (Eq. 2) of Brutzkus, Daniely & Malach (2020): the average, over the first
    ``t*`` iterations, of the gap between the greedy tree and the optimal one
    (:func:`mic_constants`).

    Parameters
    ----------
    errors : array-like of shape (t_max + 1,)
        ``errors[t] = E(A(D, t))``, from ``t = 0``.
    optimal : array-like of shape (t_max + 1,)
        ``optimal[t] = OPT(D, t)``, from ``t = 0``.
    t_star : int
        ``1 <= t_star <= t_max``.

    Returns
    -------
    float

    Examples
    --------
    >>> mic([0.5, 0.3, 0.2], [0.5, 0.25, 0.1], 2)  # (0.05 + 0.1) / 2
    0.075
    """
    gaps = mic_constants(errors, optimal)
    if isinstance(t_star, bool) or not isinstance(t_star, (int, np.integer)):
        raise TypeError(f"t_star must be an int, got {type(t_star).__name__}")
    if not 1 <= t_star <= gaps.size - 1:
        raise ValueError(f"t_star must be in 1..{gaps.size - 1}, got {t_star}")
    return float(gaps[1 : t_star + 1].mean())


def _as_curve(values, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1 or array.size < 2:
        raise ValueError(f"{name} must be a 1-D array indexed by t = 0..t_max (t_max >= 1)")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite")
    return array


def _two_valued_classes(dnf, dist):
    classes = literal_classes(dnf, dist)
    if classes.n_classes > 2:
        raise ValueError(
            "OPT's dynamic programs (section 7) cover the uniform and the two-valued product "
            "distributions; this DNF's literals are true with "
            f"{classes.n_classes} different probabilities {classes.probabilities.round(6).tolist()}"
        )
    return classes
