"""Class-count encoding of a read-once DNF under a product distribution, and its state spaces.

Section 7 observes that under the uniform distribution only the term sizes matter, and under a
two-valued product distribution only each term's pair (n1, n2). The common generalization used
here: group the literals into classes by their probability of being *true* (``p_i`` for ``x_i``,
``1 - p_i`` for ``~x_i``), describe a term by its counts per class (its "profile") and a formula
by the multiset of its term profiles (its "state"). A state is a sorted tuple of profiles; the
constant 0 is ``()`` and the constant 1 is ``((0, …, 0),)`` (a satisfied term).

Two state spaces feed the DP: :class:`StateSpace` holds states as tuples (whole formula families
for the sweeps, and the plain reference enumeration of one DNF), :class:`ReachableStateSpace`
holds the states reachable from one DNF as rows of profile ids enumerated by a kernel (the
10-term DNF of the finite-sample experiment has ~10^6 of them under a two-valued distribution).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from treebound._kernels.mic_optimal import ABSENT, SATISFIED, find_row, reachable_states
from treebound.mic.distributions import ProductDistribution, check_compatible
from treebound.mic.dnf import ReadOnceDNF

#: Literal probabilities closer than this are one class (1 - 0.3 and 0.7 differ by one ulp).
CLASS_TOLERANCE = 1e-12

State = tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class LiteralClasses:
    """The classes of a DNF's literals under a distribution.

    Attributes
    ----------
    probabilities : float64 (K,)  ascending probability of a literal of each class being true
    term_counts : int64 (k, K)    counts of each term's literals per class, in the DNF's term order
    literal_class : per term, the class of each literal (same order as ``dnf.terms``)
    """

    probabilities: np.ndarray
    term_counts: np.ndarray
    literal_class: tuple[tuple[int, ...], ...]

    @property
    def n_classes(self) -> int:
        return int(self.probabilities.size)

    def root_state(self) -> State:
        return canonical_state(tuple(tuple(int(n) for n in row) for row in self.term_counts))


def literal_classes(dnf: ReadOnceDNF, dist: ProductDistribution) -> LiteralClasses:
    """Group ``dnf``'s literals by truth probability (within :data:`CLASS_TOLERANCE`)."""
    check_compatible(dnf, dist)
    values = sorted(
        dist.literal_probability(v, positive) for term in dnf.terms for v, positive in term
    )
    representatives: list[float] = []
    for value in values:
        if not representatives or value - representatives[-1] > CLASS_TOLERANCE:
            representatives.append(value)
    probabilities = np.array(representatives)

    def class_of(probability: float) -> int:
        return int(np.argmin(np.abs(probabilities - probability)))

    literal_class = tuple(
        tuple(class_of(dist.literal_probability(v, positive)) for v, positive in term)
        for term in dnf.terms
    )
    term_counts = np.zeros((len(dnf.terms), probabilities.size), dtype=np.int64)
    for i, classes in enumerate(literal_class):
        for c in classes:
            term_counts[i, c] += 1
    return LiteralClasses(probabilities, term_counts, literal_class)


def canonical_state(profiles) -> State:
    """Sorted tuple of profiles; any satisfied (all-zero) term makes the constant-1 state."""
    profiles = tuple(tuple(int(n) for n in p) for p in profiles)
    for profile in profiles:
        if not any(profile):
            return (profile,)
    return tuple(sorted(profiles))


def _order_key(state: State) -> tuple:
    # Every move strictly lowers the number of remaining literals, so sorting by it first makes
    # the index order a topological order of the DP (children before parents).
    return (sum(map(sum, state)), len(state), state)


def state_moves(state: State, class_probs: np.ndarray):
    """Yield ``(false_child, true_child, probability_true)`` for each distinct split of a state.

    Splitting on a literal of class ``c`` in a term with profile ``P``: literal false kills the
    term, literal true leaves ``P - e_c``. Equal profiles give equal splits, so each distinct
    (profile, class) is listed once.
    """
    if len(state) == 0 or not any(state[0]):
        return
    for position, profile in enumerate(state):
        if position > 0 and state[position - 1] == profile:
            continue
        rest = state[:position] + state[position + 1 :]
        for c, count in enumerate(profile):
            if count == 0:
                continue
            reduced = profile[:c] + (count - 1,) + profile[c + 1 :]
            yield rest, canonical_state(rest + (reduced,)), float(class_probs[c])


def term_probability(profile: tuple[int, ...], class_probs: np.ndarray) -> float:
    """P[a term with this profile is satisfied] = Π_c class_probs[c] ** profile[c]."""
    term = 1.0
    for c, count in enumerate(profile):
        power = 1.0
        for _ in range(count):  # repeated products, rounded like the kernels' power table
            power *= float(class_probs[c])
        term *= power
    return term


def leaf_error(state: State, class_probs: np.ndarray) -> float:
    """min(P[F=1], P[F=0]) of the formula ``state`` (the error of a single leaf, Eq. (3))."""
    p0 = 1.0
    for profile in state:
        p0 *= 1.0 - term_probability(profile, class_probs)
    return min(p0, 1.0 - p0)


@dataclass(frozen=True)
class StateSpace:
    """A set of states closed under splitting, topologically ordered, with its moves as CSR."""

    class_probs: np.ndarray
    states: tuple[State, ...]
    index: dict
    leaf_error: np.ndarray
    move_start: np.ndarray
    move_false: np.ndarray
    move_true: np.ndarray
    move_prob: np.ndarray

    @classmethod
    def build(cls, states, class_probs) -> StateSpace:
        class_probs = np.asarray(class_probs, dtype=np.float64)
        n_classes = class_probs.size
        base = {(), ((0,) * n_classes,)}
        ordered = tuple(sorted(base | set(states), key=_order_key))
        index = {state: i for i, state in enumerate(ordered)}
        move_start = [0]
        move_false, move_true, move_prob = [], [], []
        for state in ordered:
            for false_child, true_child, probability in state_moves(state, class_probs):
                move_false.append(index[false_child])
                move_true.append(index[true_child])
                move_prob.append(probability)
            move_start.append(len(move_false))
        return cls(
            class_probs=class_probs,
            states=ordered,
            index=index,
            leaf_error=np.array([leaf_error(s, class_probs) for s in ordered]),
            move_start=np.array(move_start, dtype=np.int64),
            move_false=np.array(move_false, dtype=np.int64),
            move_true=np.array(move_true, dtype=np.int64),
            move_prob=np.array(move_prob, dtype=np.float64),
        )

    def index_of(self, state: State) -> int:
        """Row of a canonical ``state`` in the table, or -1 if it is not in this space."""
        return self.index.get(state, -1)

    @classmethod
    def reachable(cls, root: State, class_probs) -> StateSpace:
        """Every state reachable from ``root`` by splits, enumerated with Python tuples.

        The plain reference for :class:`ReachableStateSpace`, which enumerates the same states
        and moves in a kernel (tens of times faster on large DNFs) and is what
        ``OptimalErrorTable.for_dnf`` uses.
        """
        class_probs = np.asarray(class_probs, dtype=np.float64)
        seen = {root}
        frontier = [root]
        while frontier:
            state = frontier.pop()
            for false_child, true_child, _ in state_moves(state, class_probs):
                for child in (false_child, true_child):
                    if child not in seen:
                        seen.add(child)
                        frontier.append(child)
        return cls.build(seen, class_probs)

    @classmethod
    def family(cls, class_probs, max_terms: int, max_literals: int) -> StateSpace:
        """All formulas with at most ``max_terms`` terms of at most ``max_literals`` literals."""
        class_probs = np.asarray(class_probs, dtype=np.float64)
        return cls.build(family_states(class_probs.size, max_terms, max_literals), class_probs)


def family_profiles(n_classes: int, max_literals: int) -> list[tuple[int, ...]]:
    """Every non-empty term profile with at most ``max_literals`` literals, sorted."""
    return sorted(
        profile
        for profile in itertools.product(range(max_literals + 1), repeat=n_classes)
        if 1 <= sum(profile) <= max_literals
    )


def family_states(n_classes: int, max_terms: int, max_literals: int) -> list[State]:
    """Every formula (state) with 1..``max_terms`` terms of 1..``max_literals`` literals."""
    profiles = family_profiles(n_classes, max_literals)
    return [
        state
        for n_terms in range(1, max_terms + 1)
        for state in itertools.combinations_with_replacement(profiles, n_terms)
    ]


#: The kernel stores profile ids as uint16.
MAX_PROFILE_IDS = np.iinfo(np.uint16).max


@dataclass(frozen=True)
class ProfileIds:
    """Integer ids of the term profiles below a root formula's per-class maxima (kernel encoding).

    Id ``0`` is "no term", id ``1`` the all-zero (satisfied) profile, and ``2, 3, …`` the other
    profiles with ``profile[c] <= limits[c]`` in lexicographic order: id ``1 + r`` where ``r`` is
    the row-major index of the profile in the box ``Π_c [0, limits[c]]``. Every state reachable
    from the root only has profiles inside that box.

    Attributes
    ----------
    class_probs : float64 (K,)
    limits : tuple of int (K,)
    literals : int64 (n_ids,)          number of literals of each id
    reduced : int64 (n_ids, K)         id after removing one literal of class c, -1 if none
    term_probability : float64 (n_ids,)  P[term satisfied], as :func:`term_probability`
    """

    class_probs: np.ndarray
    limits: tuple[int, ...]
    literals: np.ndarray
    reduced: np.ndarray
    term_probability: np.ndarray

    @classmethod
    def covering(cls, state: State, class_probs) -> ProfileIds:
        """Ids for every profile at most ``state``'s largest count in each class."""
        class_probs = np.asarray(class_probs, dtype=np.float64)
        n_classes = class_probs.size
        limits = tuple(max((p[c] for p in state), default=0) for c in range(n_classes))
        shape = tuple(limit + 1 for limit in limits)
        n_ids = 1 + int(np.prod(shape))
        if n_ids > MAX_PROFILE_IDS:
            raise ValueError(
                f"terms with up to {limits} literals per class need {n_ids} profile ids; the "
                f"state encoding holds at most {MAX_PROFILE_IDS}"
            )
        literals = np.zeros(n_ids, dtype=np.int64)
        reduced = np.full((n_ids, n_classes), -1, dtype=np.int64)
        probability = np.zeros(n_ids)
        for r, profile in enumerate(itertools.product(*(range(n) for n in shape))):
            literals[1 + r] = sum(profile)
            probability[1 + r] = term_probability(profile, class_probs)
            for c in range(n_classes):
                if profile[c] > 0:
                    smaller = profile[:c] + (profile[c] - 1,) + profile[c + 1 :]
                    reduced[1 + r, c] = 1 + int(np.ravel_multi_index(smaller, shape))
        return cls(class_probs, limits, literals, reduced, probability)

    def id_of(self, profile: tuple[int, ...]) -> int:
        """The id of a profile, or -1 if it is outside the box."""
        if len(profile) != len(self.limits) or any(
            not 0 <= n <= limit for n, limit in zip(profile, self.limits, strict=True)
        ):
            return -1
        return 1 + int(np.ravel_multi_index(profile, tuple(n + 1 for n in self.limits)))

    def profile_of(self, profile_id: int) -> tuple[int, ...]:
        shape = tuple(n + 1 for n in self.limits)
        return tuple(int(n) for n in np.unravel_index(int(profile_id) - 1, shape))


@dataclass(frozen=True)
class ReachableStateSpace:
    """The states reachable from one formula, enumerated by the kernel, as a DP-ready space.

    Same moves and leaf errors as ``StateSpace.reachable(root, class_probs)`` (state order aside),
    stored as rows of profile ids (``treebound._kernels.mic_optimal``) instead of tuples.

    Attributes
    ----------
    class_probs : float64 (K,)
    profile_ids : ProfileIds
    rows : uint16 (n_states, k)   profile ids of each state, ascending (0 = no term)
    leaf_error, move_start, move_false, move_true, move_prob : as in :class:`StateSpace`
    """

    class_probs: np.ndarray
    profile_ids: ProfileIds
    rows: np.ndarray
    leaf_error: np.ndarray
    move_start: np.ndarray
    move_false: np.ndarray
    move_true: np.ndarray
    move_prob: np.ndarray

    @classmethod
    def of(cls, root: State, class_probs) -> ReachableStateSpace:
        """Enumerate the states reachable from the canonical state ``root``."""
        class_probs = np.asarray(class_probs, dtype=np.float64)
        root = canonical_state(root)
        ids = ProfileIds.covering(root, class_probs)
        root_row = np.array(sorted(ids.id_of(p) for p in root), dtype=np.uint16)
        rows, leaf_errors, move_start, move_false, move_true, move_class = reachable_states(
            root_row, ids.literals, ids.reduced, ids.term_probability
        )
        return cls(
            class_probs=class_probs,
            profile_ids=ids,
            rows=rows,
            leaf_error=leaf_errors,
            move_start=move_start,
            move_false=move_false,
            move_true=move_true,
            move_prob=class_probs[move_class],
        )

    @property
    def n_states(self) -> int:
        return int(self.rows.shape[0])

    def state(self, index: int) -> State:
        """The canonical state stored at ``index``."""
        return canonical_state(
            self.profile_ids.profile_of(i) for i in self.rows[index] if i != ABSENT
        )

    def index_of(self, state: State) -> int:
        """Row of a canonical ``state``, or -1 if it is not reachable from the root."""
        k = self.rows.shape[1]
        if len(state) > k:
            return -1
        ids = [self.profile_ids.id_of(p) for p in state]
        if any(i < 0 for i in ids):
            return -1
        if ids and ids[0] == SATISFIED:
            ids = [SATISFIED]
        row = np.zeros(k, dtype=np.uint16)
        row[k - len(ids) :] = sorted(ids)
        return int(find_row(self.rows, row))
