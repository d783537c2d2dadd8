"""Exhaustive shattering checks: the oracles the VC bounds are tested against.

* Stumps on real-valued features (Leboeuf et al. 2020, appendix A): a sample is described by its
  *permutation representation* — one ordering of the ``m`` points per feature — and a stump
  realizes exactly the 2-partitions "first ``k`` points of one ordering vs the rest".
  :func:`count_stump_bipartitions` counts them for a given representation (used to verify
  Theorem 7's equality on the matrices of appendix A.4, :data:`APPENDIX_A4_PERMUTATIONS`), and
  :func:`stump_shatters` decides by exhaustive search whether *some* sample of ``m`` points is
  shattered by stumps on ``ell`` features.
* Trees on binary features (Yıldız 2015, section 4.1): :func:`exact_vcdim` enumerates point sets
  of ``{0,1}^d`` and every assignment of tests; tiny cases only.
"""

from __future__ import annotations

import itertools

from treebound._validation import check_integer as _check_int
from treebound.theory.structures import TreeStructure

__all__ = [
    "APPENDIX_A4_PERMUTATIONS",
    "EXACT_VCDIM_MAX_FEATURES",
    "EXACT_VCDIM_MAX_INTERNAL",
    "brute_force_stump_vcdim",
    "count_stump_bipartitions",
    "exact_vcdim",
    "stump_shatters",
]

#: Permutation representations of appendix A.4 (rows are orderings of the points ``1..m``):
#: the first ``ell`` rows realize ``(1/2) sum_k min(2 ell, C(m, k))`` 2-partitions (Eq. 11).
APPENDIX_A4_PERMUTATIONS: dict[int, tuple[tuple[int, ...], ...]] = {
    1: ((1,),),
    2: ((1, 2),),
    3: ((1, 2, 3), (1, 3, 2)),
    4: ((1, 2, 4, 3), (2, 3, 1, 4), (1, 3, 2, 4)),
    5: ((1, 2, 3, 5, 4), (2, 3, 4, 1, 5), (3, 4, 1, 2, 5), (1, 3, 5, 2, 4), (1, 4, 2, 3, 5)),
    6: ((1, 2, 3, 6, 5, 4), (2, 3, 4, 1, 6, 5), (3, 4, 5, 2, 1, 6), (1, 3, 6, 5, 4, 2),
        (3, 5, 2, 1, 6, 4), (5, 1, 4, 3, 2, 6), (1, 4, 3, 6, 2, 5), (3, 6, 5, 1, 2, 4),
        (1, 2, 5, 3, 4, 6), (1, 3, 5, 2, 4, 6)),
    7: ((1, 2, 3, 4, 5, 6, 7), (2, 3, 4, 7, 1, 5, 6), (3, 4, 7, 6, 2, 1, 5),
        (4, 7, 6, 2, 5, 1, 3), (1, 4, 3, 7, 6, 2, 5), (5, 7, 4, 3, 2, 1, 6),
        (3, 7, 5, 6, 1, 2, 4), (2, 7, 4, 1, 6, 3, 5), (2, 6, 3, 7, 1, 4, 5),
        (1, 7, 3, 5, 2, 4, 6), (3, 6, 7, 1, 2, 4, 5), (1, 4, 7, 6, 2, 3, 5),
        (1, 2, 7, 3, 4, 5, 6), (1, 5, 7, 2, 3, 4, 6), (1, 6, 7, 2, 3, 4, 5),
        (2, 3, 7, 5, 1, 4, 6), (2, 5, 7, 4, 3, 6, 1), (2, 6, 7, 1, 3, 4, 5)),
}

EXACT_VCDIM_MAX_FEATURES = 4
EXACT_VCDIM_MAX_INTERNAL = 4


def _bipartition_key(mask: int, full: int) -> int:
    # A 2-partition {A, S \ A} is identified by the side that holds point 0.
    return mask if mask & 1 else full ^ mask


def count_stump_bipartitions(permutations) -> int:
    """Number of distinct 2-partitions a stump realizes on a sample given by its orderings.

    The permutation representation of Leboeuf et al. (2020), appendix A: each row is the ordering
    of the points ``1..m`` along one feature (all values distinct); a stump splits some row after
    its first ``k`` points, ``1 <= k <= m - 1``. On the matrices of appendix A.4
    (:data:`APPENDIX_A4_PERMUTATIONS`) the count equals Theorem 7's bound.

    Parameters
    ----------
    permutations : sequence of sequences of int
        One ordering of ``1..m`` per feature.

    Returns
    -------
    int
        The number of distinct 2-partitions ``{A, S - A}``.

    Examples
    --------
    >>> count_stump_bipartitions([(1, 2, 3), (1, 3, 2)])  # {1}{23}, {12}{3}, {13}{2}
    3
    """
    rows = [tuple(int(v) for v in row) for row in permutations]
    if not rows:
        raise ValueError("need at least one ordering")
    m = len(rows[0])
    for row in rows:
        if sorted(row) != list(range(1, m + 1)):
            raise ValueError(f"{row} is not an ordering of the points 1..{m}")
    full = (1 << m) - 1
    seen = set()
    for row in rows:
        mask = 0
        for v in row[:-1]:
            mask |= 1 << (v - 1)
            seen.add(_bipartition_key(mask, full))
    return len(seen)


def _chains(m: int) -> list[int]:
    """For each ordering of ``m`` points (up to reversal), the bitset of bipartitions it cuts."""
    full = (1 << m) - 1
    index: dict[int, int] = {}
    chains = set()
    for perm in _permutations(m):
        if perm[0] > perm[-1]:
            continue  # a reversed ordering realizes the same bipartitions
        bits = 0
        mask = 0
        for v in perm[:-1]:
            mask |= 1 << v
            key = _bipartition_key(mask, full)
            bits |= 1 << index.setdefault(key, len(index))
        chains.add(bits)
    return sorted(chains)


def _permutations(m):
    return itertools.permutations(range(m))


def stump_shatters(n_points: int, *, n_features: int) -> bool:
    """Whether *some* sample of ``n_points`` points is shattered by stumps on ``ell`` features.

    Exhaustive search over permutation representations (Leboeuf et al. 2020, appendix A):
    shattering means every one of the ``2^(m-1) - 1`` bipartitions is a prefix split of one of
    the ``ell`` orderings, i.e. an exact set cover by ``ell`` "chains"; depth-first search
    branching on the first uncovered bipartition. An oracle for :func:`stump_vcdim`.

    Parameters
    ----------
    n_points : int
        ``1 <= m <= 7`` (the search enumerates all ``m!`` orderings).
    n_features : int
        ``ell >= 1`` real-valued features.

    Returns
    -------
    bool
        True when some sample of ``m`` points in general position is shattered.

    Examples
    --------
    >>> stump_shatters(3, n_features=1), stump_shatters(3, n_features=2)
    (False, True)
    """
    m = _check_int(n_points, "n_points", 1)
    ell = _check_int(n_features, "n_features", 1)
    if m > 7:
        raise ValueError(f"stump_shatters enumerates all orderings of the points: n_points <= 7, got {m}")
    if m == 1:
        return True
    chains = _chains(m)
    n_bip = 2 ** (m - 1) - 1
    target = (1 << n_bip) - 1
    per_chain = m - 1
    by_bit = [[c for c in chains if c >> i & 1] for i in range(n_bip)]

    def search(covered: int, left: int) -> bool:
        if covered == target:
            return True
        missing = n_bip - bin(covered).count("1")
        if left == 0 or missing > left * per_chain:
            return False
        first = (~covered & target & -(~covered & target)).bit_length() - 1
        return any(search(covered | c, left - 1) for c in by_bit[first])

    return search(0, ell)


def brute_force_stump_vcdim(n_features: int) -> int:
    """Largest ``m`` with :func:`stump_shatters`: an exhaustive oracle for :func:`stump_vcdim`.

    Parameters
    ----------
    n_features : int
        ``ell >= 1`` real-valued features (small: the search stops at 7 points, so ``ell``
        must keep the VC dimension below 7, i.e. ``ell <= 17``).

    Returns
    -------
    int
        The VC dimension of stumps on ``ell`` real-valued features.

    Examples
    --------
    >>> [brute_force_stump_vcdim(ell) for ell in (1, 2, 3)]
    [2, 3, 4]
    """
    m = 1
    while m < 7 and stump_shatters(m + 1, n_features=n_features):
        m += 1
    if m == 7:
        raise ValueError("the exhaustive search stops at 7 points; n_features is too large")
    return m


# ---------------------------------------------------------------------------- binary features
def exact_vcdim(structure: TreeStructure, *, n_features: int) -> int:
    """Exact VC dimension of a tree structure on ``d`` binary features, by exhaustive search.

    The class of Yıldız (2015), section 4.1: every internal node tests one feature and sends
    ``x_i == s`` left (``s`` in ``{0, 1}``), leaves carry labels in ``{0, 1}``. A set of points
    of ``{0,1}^d`` is shattered when every labeling is realized; shattering is hereditary, so a
    depth-first search extends shattered sets one point at a time, and by the bit-flip symmetry
    of the class the sets can be taken to contain the point ``0``. Realizable labelings of a point
    set are computed per sub-structure and memoized by point set. The oracle of
    :func:`vcdim_lower_bound` with ``feature_type="binary"``.

    Parameters
    ----------
    structure : TreeStructure
        The tree shape, at most 4 internal nodes.
    n_features : int
        ``1 <= d <= 4`` binary features.

    Returns
    -------
    int
        The VC dimension.

    Raises
    ------
    ValueError
        Beyond 4 features or 4 internal nodes (the range of Yıldız's exhaustive search).

    Examples
    --------
    >>> exact_vcdim(TreeStructure.stump(), n_features=3)  # Yıldız Theorem 1: floor(log2 4) + 1
    3
    """
    if not isinstance(structure, TreeStructure):
        raise TypeError(f"structure must be a TreeStructure, got {type(structure).__name__}")
    d = _check_int(n_features, "n_features", 1)
    if d > EXACT_VCDIM_MAX_FEATURES or structure.n_internal > EXACT_VCDIM_MAX_INTERNAL:
        raise ValueError(
            f"exact_vcdim is an exhaustive search limited to n_features <= "
            f"{EXACT_VCDIM_MAX_FEATURES} and <= {EXACT_VCDIM_MAX_INTERNAL} internal nodes; got "
            f"n_features={d}, {structure.n_internal} internal nodes"
        )
    n_points = 1 << d
    # side[i][s]: bitmask (over the 2^d points) of points with x_i == s.
    side = []
    for i in range(d):
        ones = sum(1 << p for p in range(n_points) if p >> i & 1)
        side.append(((~ones) & ((1 << n_points) - 1), ones))
    memo: dict = {}

    def labelings(t: TreeStructure, points: int) -> frozenset:
        key = (t, points)
        found = memo.get(key)
        if found is not None:
            return found
        if t.is_leaf:
            out = frozenset((0, points))
        else:
            acc = set()
            for i in range(d):
                for s in (0, 1):
                    left = points & side[i][s]
                    right = points & ~left
                    lab_r = labelings(t.right, right)
                    for p in labelings(t.left, left):
                        acc.update(p | q for q in lab_r)
            out = frozenset(acc)
        memo[key] = out
        return out

    best = 1
    stack = [(1, 0, 1)]  # (point set containing point 0, largest point, size)
    while stack:
        points, last, size = stack.pop()
        best = max(best, size)
        for p in range(last + 1, n_points):
            extended = points | (1 << p)
            if len(labelings(structure, extended)) == 1 << (size + 1):
                stack.append((extended, p, size + 1))
    return best

