"""Memory and time estimates of the theory functions, checked before any work starts, and the
one cost model of Theorem 9's tables.

Each ``check_*`` function estimates what one public call will need from its arguments (and
from what a :class:`~treebound.theory.PartitioningCache` already holds) and hands the estimate
to :func:`treebound._resources.check_resources`, which refuses the call when it is over the
current limits. The tight tables are priced range by range, by the route
:mod:`treebound.theory._regimes` gives each range (:func:`log_table_work`); bound pruning
(:func:`tight_pruning_cost`) and certificates (:func:`certificate_uses_theorem9`) read the same
model. The constants are seconds of the machine they were measured on; the rules that must not
depend on the machine (bound pruning's ``variant="auto"``, whether a certificate computes
Theorem 9) read them as fixed units of work, and only the refusals compare them with a limit.
``benchmarks/results/pruning_cost.md`` compares the pruning estimate with measured times.
"""

from __future__ import annotations

import math

from treebound._resources import Deadline, check_resources, unbounded
from treebound.theory._regimes import DIRECT, SUBTRACTION, edge_width, sum_ranges

# ---- measured constants (seconds per unit of work, bytes per unit of storage)
#: exact tables: seconds per (m^2) x (child rows) for numbers of ~300 bits, growing with m
_EXACT_SECONDS = 1.0e-7
#: one step of the VC-dimension search at m points: seconds per m (two parts)
_VC_STEP_SECONDS = 1.5e-7
#: enumerated tree shapes: bytes and seconds per shape
_SHAPE_BYTES = 600
_SHAPE_SECONDS = 2.5e-5
#: log-space Wedderburn-Etherington recurrence: seconds per (n^2 / 2) element operations
_LOG_WE_SECONDS = 8e-9
#: exact Wedderburn-Etherington numbers: seconds per n^3
_EXACT_WE_SECONDS = 1.6e-10
#: binomial / hypergeometric tail sums: seconds and bytes per term (one bisection)
_TAIL_SECONDS = 5e-6
_TAIL_BYTES = 8 * 8


def _exact_tables_cost(shapes, n_parts_max: int, columns: int):
    """(bytes, seconds) of the exact tables of ``shapes`` over ``columns`` values of m."""
    memory = 0.0
    seconds = 0.0
    for t in shapes:
        rows = min(n_parts_max, t.n_leaves) + 1
        # Python integers of up to ~ m log2(rows) bits
        memory += rows * columns * (32.0 + columns * math.log2(max(rows, 2)) / 8.0)
        if t.is_leaf:
            continue
        work = (min(n_parts_max, t.left.n_leaves) + 1) * (min(n_parts_max, t.right.n_leaves) + 1)
        seconds += _EXACT_SECONDS * work * columns * columns * (1.0 + columns / 300.0)
    return memory, seconds


def _coefficient_cost(cache, n_parts_max: int):
    """(bytes, seconds) of the merge coefficients ``log C(a, c-b) C(b, c-a) (a+b-c)!``."""
    if cache is not None and cache._log_coef.shape[0] > n_parts_max:
        return 0.0, 0.0
    size = float(n_parts_max + 1)
    return 8.0 * size**3, 2e-7 * size**3


# ---- the tight tables of Theorem 9 in log space: the one model of their cost, read by the guard
# of the theory functions and by bound pruning (its "auto" variant and its refusal). Measured on
# the development machine (benchmarks/results/pruning_cost.md checks it); they only have to
# tell a second from a minute.
#: seconds per term of a direct sum (one k and one pair of part counts: an add and an exp)
DIRECT_TERM_SECONDS = 1.3e-8
#: seconds per output and row of a table range computed by FFTs (tilts, prefix sums)
FFT_CELL_SECONDS = 5e-8
#: fixed seconds per table (the calls around the kernels)
TABLE_SECONDS = 3e-4
#: bytes per table cell: the table, its prefix sums and the FFTs' temporaries
TABLE_BYTES_PER_CELL = 8 * 2.5


def log_table_work(left_leaves: int, right_leaves: int, n_parts: int, max_m: int,
                   n_features: int) -> tuple[float, float]:
    """``(direct terms, FFT cells)`` of one node's tight log table over ``m <= max_m``, ranges
    priced by the route :func:`~treebound.theory._regimes.sum_ranges` gives them."""
    n_leaves = left_leaves + right_leaves
    rows = min(n_parts, n_leaves)
    if max_m <= n_leaves or rows < 2:
        return 0.0, 0.0
    pairs = float(min(rows, left_leaves) * min(rows, right_leaves))
    direct = cells = 0.0
    for lo, hi, route, _ in sum_ranges(n_leaves + 1, max_m, n_features):
        count = hi - lo + 1.0
        if route == DIRECT:  # k runs over m - L + 1 values at m
            direct += pairs * count * ((lo + hi) / 2.0 - n_leaves + 1.0)
        else:  # FFT, and the constant-weight part of SUBTRACTION
            cells += count * (rows + 1.0)
            if route == SUBTRACTION:  # the ends' deficits
                direct += pairs * count * 2.0 * edge_width(lo, 2 * n_features)
    return direct, cells


def log_tables_cost(shapes, n_parts: int, max_m: int, n_features: int) -> tuple[float, float]:
    """``(bytes, seconds)`` of the tight log tables over ``m <= max_m`` of ``shapes``:
    :class:`~treebound.theory.TreeStructure` objects, or ``(left leaves, right leaves)`` pairs
    of internal nodes."""
    memory = seconds = 0.0
    for t in shapes:
        left, right = (t, None) if isinstance(t, tuple) else (None, t)
        if right is not None:
            if right.is_leaf:
                memory += 2 * (max_m + 1.0) * TABLE_BYTES_PER_CELL
                continue
            left = (right.left.n_leaves, right.right.n_leaves)
        n_leaves = left[0] + left[1]
        memory += (min(n_parts, n_leaves) + 1) * (max_m + 1.0) * TABLE_BYTES_PER_CELL
        direct, cells = log_table_work(left[0], left[1], n_parts, max_m, n_features)
        seconds += TABLE_SECONDS + DIRECT_TERM_SECONDS * direct + FFT_CELL_SECONDS * cells
    return memory, seconds


#: The search's tables of collapsed subtrees are priced at most this many times the grown
#: tree's (it builds from a fifth to twice the collapsed shapes of its first step, more the
#: more collapses it accepts; benchmarks/results/pruning_cost.md).
SEARCH_TABLES_CAP = 3.0


def tight_pruning_cost(subtrees, collapsed, n_classes: int, n_examples: int,
                       n_features: int) -> tuple[float, float]:
    """``(bytes, seconds)`` of bound pruning with the tight bound (Algorithm 3 with Theorem 9).

    Its work is the tables over ``m < 2 n_examples`` of the grown tree's subtrees below the root
    (``subtrees``), plus those of the collapsed subtrees its search brackets candidates with
    (``collapsed``: the shapes of its first step; both as
    :func:`~treebound.theory._fitted_shapes.pruning_table_shapes` gives them; at most
    :data:`SEARCH_TABLES_CAP` times the first part), plus the root evaluated at ``2 n_examples``.
    Memory: the grown tree's tables, held together while the bound of the whole tree is
    computed.
    """
    max_m = 2 * n_examples - 1
    memory, seconds = log_tables_cost(subtrees, n_classes, max_m, n_features)
    search = log_tables_cost(collapsed, n_classes, max_m, n_features)[1]
    # the root, evaluated at 2m alone: a direct sum over its children's rows
    root = TABLE_SECONDS + DIRECT_TERM_SECONDS * (n_classes**2) * 2.0 * n_examples
    return memory, seconds + min(search, SEARCH_TABLES_CAP * seconds) + root


#: The growth function of a certificate uses Theorem 9 when its tables have at most this many
#: cells (tree nodes x parts x points; about 0.1 s of FFTs) and are estimated at most
#: CERTIFICATE_TABLE_SECONDS (many-level categorical features make their sums direct, seconds
#: per table); else the closed-form bound alone (same guarantee, a few percent looser in log).
CERTIFICATE_TABLE_CELLS = 3_000_000
CERTIFICATE_TABLE_SECONDS = 1.0


def certificate_uses_theorem9(n_nodes: int, shapes, n_parts: int, n_points: int,
                              n_features: int) -> bool:
    """Whether a certificate computes Theorem 9 for a tree with ``n_nodes`` nodes whose
    subtree shapes (canonical, below the root) are ``shapes``: a rule on the tree, the classes
    and the points only (see :data:`CERTIFICATE_TABLE_CELLS`)."""
    if n_nodes * (n_parts + 1) * n_points > CERTIFICATE_TABLE_CELLS:
        return False
    return log_tables_cost(shapes, n_parts, n_points - 1, n_features)[1] <= \
        CERTIFICATE_TABLE_SECONDS


def check_tight_log(structure, n_parts_max: int, m: int, n_features: int, cache,
                    what: str) -> Deadline:
    """Tight tables in log space of the children of ``structure`` up to ``m - 1``."""
    if unbounded():  # inside fitting and pruning: no estimate needed
        return check_resources(what)
    if structure.is_leaf or m <= structure.n_leaves:
        return check_resources(what)
    store = cache._store("tight_log", n_features)

    def done(t):
        table = store.get(t)
        return table is not None and table.shape[0] > min(n_parts_max, t.n_leaves) and \
            table.shape[1] > m - 1

    shapes = {t: None for child in (structure.left, structure.right)
              for t in child._postorder(done)}
    memory, seconds = log_tables_cost(shapes, n_parts_max, m - 1, n_features)
    coef_memory, coef_seconds = _coefficient_cost(cache, n_parts_max)
    stirling = 8.0 * (n_parts_max + 1) * 2 * (m + 1)  # the Stirling table (grown by doubling)
    # the root is evaluated at m alone: one direct sum over its children's rows
    seconds += DIRECT_TERM_SECONDS * (n_parts_max + 1) ** 2 * m
    return check_resources(what, memory=memory + coef_memory + stirling,
                           seconds=seconds + coef_seconds)


def tail_route_cost(starts, n_parts: int) -> tuple[float, float]:
    """``(bytes, seconds)`` of the polynomial tails (:mod:`treebound.theory._tails`) of the
    shapes of ``starts`` (their starts, :func:`~treebound.theory._tails.tail_starts`): each
    internal shape's table below its start by direct sums over the pairs of its children's
    rows (priced like the tables' direct sums, an upper estimate: the tails' kernel runs in
    linear space), its children's values up to there, and ``O(C^2 L^2)`` coefficients."""
    memory = seconds = 0.0
    for t, first in starts.items():
        if t.is_leaf:
            continue
        rows = min(n_parts, t.n_leaves) + 1.0
        pairs = float(min(n_parts, t.left.n_leaves) * min(n_parts, t.right.n_leaves))
        memory += 3 * rows * (first + 1.0) * TABLE_BYTES_PER_CELL
        seconds += TABLE_SECONDS + DIRECT_TERM_SECONDS * pairs * (
            first * first / 2.0 + t.n_leaves * t.n_leaves)
    return memory, seconds


def check_tail_route(starts, n_parts_max: int, what: str) -> Deadline:
    """The polynomial tails of the shapes of ``starts`` (see :func:`tail_route_cost`)."""
    if unbounded():  # inside fitting and pruning: no estimate needed
        return check_resources(what)
    memory, seconds = tail_route_cost(starts, n_parts_max)
    return check_resources(what, memory=memory, seconds=seconds)


def check_exact(structure, n_parts_max: int, m: int, what: str) -> Deadline:
    """Exact (Python integer) tables of ``structure`` and its subtrees up to ``m``."""
    if unbounded():  # inside fitting and pruning: no estimate needed
        return check_resources(what)
    shapes = structure.subtrees()
    memory, seconds = _exact_tables_cost(shapes, n_parts_max, m + 1)
    return check_resources(what, memory=memory, seconds=seconds)


def check_loose(structure, n_parts_max: int, m: int, log_space: bool, what: str) -> Deadline:
    """The loose bound: one value per (shape, m) on the paths of the recursion."""
    if unbounded():
        return check_resources(what)
    nodes = len(structure.subtrees()) + structure.height
    rows = min(n_parts_max, structure.n_leaves) + 1
    if log_space:
        memory = 8.0 * rows * 2 * (m + 1)  # the log-Stirling table
        seconds = 2e-8 * rows * m + 2e-5 * nodes * rows * rows
    else:
        bits = m * math.log2(max(rows, 2))
        memory = 3 * bits / 8.0 * rows * nodes
        seconds = nodes * rows * rows * (1e-6 + 2e-9 * (bits / 64.0) ** 1.6)
    return check_resources(what, memory=memory, seconds=seconds)


def check_vcdim_search(structure, lower: int, n_features: int, what: str) -> Deadline:
    """Algorithm 2: tables up to a horizon of ``4 L`` (doubled as needed) and one step per
    ``m`` from ``L + 1`` past the VC dimension, which is at least ``lower`` (Yildiz's bound)."""
    if unbounded():
        return check_resources(what, watch=True)
    L = structure.n_leaves
    horizon = max(4 * L, 64)
    shapes = [t for t in structure.subtrees() if t is not structure]
    memory, seconds = log_tables_cost(shapes, 2, 2 * horizon, n_features)
    steps = max(lower - L, 0)
    seconds += _VC_STEP_SECONDS * steps * (lower + L) / 2.0
    return check_resources(what, memory=memory, seconds=seconds, watch=True)


def check_shapes(count: float, what: str) -> Deadline:
    """Building ``count`` interned tree shapes."""
    return check_resources(what, memory=_SHAPE_BYTES * count, seconds=_SHAPE_SECONDS * count)


def check_parse(n_characters: int) -> Deadline:
    """Parsing a structure string: a node object per four characters at worst (a path: every
    subtree a new shape), a few microseconds per character."""
    return check_resources(f"parsing a {n_characters:,}-character tree structure",
                           memory=_SHAPE_BYTES / 4.0 * n_characters,
                           seconds=3e-6 * n_characters)


def check_log_we(n_leaves: int, have: int, what: str) -> Deadline:
    """The log-space Wedderburn-Etherington recurrence from ``have`` to ``n_leaves``."""
    if n_leaves < have:
        return check_resources(what)
    top = float(max(n_leaves + 1, 2 * have))
    seconds = _LOG_WE_SECONDS * (top * top - float(have) ** 2) / 2.0 + 1e-5 * top
    return check_resources(what, memory=8.0 * 4 * top, seconds=seconds)


def check_exact_we(n_leaves: int, have: int, what: str) -> Deadline:
    """Exact Wedderburn-Etherington numbers (about ``1.3 n`` bits each) up to ``n_leaves``."""
    if n_leaves < have:
        return check_resources(what)
    n = float(n_leaves)
    return check_resources(what, memory=0.17 * n * n + 64 * n,
                           seconds=_EXACT_WE_SECONDS * (n**3 - float(have) ** 3))


def check_big_integer(bits: float, multiplications: float, what: str,
                      by_small: bool = False) -> Deadline:
    """``multiplications`` products of integers of up to ``bits`` bits (``by_small``: each by a
    machine-sized factor, linear in the size; else Karatsuba products of two big numbers)."""
    words = max(bits / 64.0, 1.0)
    per_product = 1e-9 * words if by_small else 2e-9 * words**1.6
    seconds = multiplications * (2e-8 + per_product)
    return check_resources(what, memory=3.0 * bits / 8.0 + 64.0, seconds=seconds)


def check_tail(terms: float, iterations: float, what: str) -> Deadline:
    """A bisection over sums of ``terms`` log-probabilities."""
    return check_resources(what, memory=_TAIL_BYTES * terms,
                           seconds=_TAIL_SECONDS * terms * iterations / 60.0)


def check_table(cells: float, what: str) -> Deadline:
    """A float64 table of ``cells`` entries filled by a compiled loop."""
    return check_resources(what, memory=8.0 * cells, seconds=5e-9 * cells)
