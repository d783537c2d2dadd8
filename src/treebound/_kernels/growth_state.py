"""The state of a tree being grown, shared by :mod:`~treebound._kernels.grow` and
:mod:`~treebound._kernels.node_search`: node columns, counters and the named structures the
growth kernels take.

Nodes are rows of integer columns (``I_*``) and float columns (``F_*``), plus ``width``
statistics per node in a flat array (class counts, or ``sum w, sum w y, sum w y^2`` for
regression). Columns ``I_P_*`` / ``F_P_*`` hold the best test found for a node that is still a
leaf (the *proposed* test); the others describe the tree.

The kernels take NamedTuples of arrays and scalars (numba passes them field by field, as it does
separate arguments, so grouping costs nothing at run time). The functions at the end of this
module (plain Python) allocate them; the arrays that can grow during a fit (:class:`NodeArrays`,
:class:`Pools`) are replaced by larger copies (:func:`grown_for_split`) whenever the growth loop
runs out of room.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treebound._config import NO_NRT_JIT_OPTIONS, njit

KIND_PRESORTED = 0
KIND_HISTOGRAM = 1
KIND_CATEGORICAL = 2

GROWTH_DEPTH_FIRST = 0
GROWTH_TOP_DOWN = 1
GROWTH_BEST_FIRST = 2
GROWTH_PUREST_CHILDREN = 3

#: Features with at most this many codes can share the per-node histogram blocks (uint8 codes).
BLOCK_MAX_CODES = 256

# integer node columns
I_FIRST_CHILD = 0
I_N_CHILDREN = 1
I_FEATURE = 2
I_N_SAMPLES = 3
I_DEPTH = 4
I_SEG_START = 5
I_P_FEATURE = 6
I_P_LO_CODE = 7
I_P_N_CHILDREN = 8
I_P_MAP_OFFSET = 9
I_CONST_ROW = 10
I_CATEGORY_OFFSET = 11
I_BLOCK_ROW = 12
#: proposed / applied child slot of the missing rows of a numeric test (-1: not decided here)
I_P_MISSING = 13
I_MISSING = 14
N_INT_COLUMNS = 15
# float node columns
F_THRESHOLD = 0
F_IMPURITY = 1
F_WEIGHT = 2
F_P_THRESHOLD = 3
F_P_GAIN = 4
F_PRIORITY = 5
#: bounds of the node's value under monotonic constraints (scikit-learn's lower / upper bound)
F_LOWER_BOUND = 6
F_UPPER_BOUND = 7
N_FLOAT_COLUMNS = 8

# growth counters (Pools.counters)
S_N_NODES = 0
S_N_LEAVES = 1
S_N_FRONTIER = 2
S_N_FREE_CONST = 3
S_N_FREE_BLOCKS = 4
S_MAP_USED = 5
N_COUNTERS = 6


class TrainingData(NamedTuple):
    """The coded training set (read only)."""

    #: (n_features, n_samples) int32 codes; the rows of block features may be unfilled
    codes: np.ndarray
    #: (n_samples, n_block) uint8 codes of the block features, sample-major
    codes_t: np.ndarray
    n_codes: np.ndarray  # codes per feature
    kind: np.ndarray  # KIND_* per feature
    #: smallest / largest training value of code c of feature f at [value_offset[f] + c]
    lo_values: np.ndarray
    hi_values: np.ndarray
    value_offset: np.ndarray
    y_cls: np.ndarray  # class index per sample (zeros for regression)
    y_val: np.ndarray  # target per sample (regression; one zero otherwise)
    w: np.ndarray  # sample weights
    #: code of a missing value per feature (its last code), -1 for a feature without one
    missing_code: np.ndarray


class FeatureLayout(NamedTuple):
    """Where each feature lives in the growth arrays (fixed for a fit)."""

    presort_row: np.ndarray  # row of the feature in SampleOrder.presorted, or -1
    block_slot: np.ndarray  # slot of the feature in the histogram blocks / codes_t, or -1
    hist_offset: np.ndarray  # per slot: first float of its histogram in a block
    count_offset: np.ndarray  # per slot: first count of its codes in a block's counts
    slot_codes: np.ndarray  # per slot: its number of codes
    n_presorted: int
    n_block: int  # block slots
    block_size: int  # floats per block
    count_size: int  # sample counts stored per block (0 with unit weights: read off the stats)
    min_cells: int  # smallest histogram a block feature is searched with
    cat_codes: int  # codes of all categorical features (category-map room one node may need)
    max_block_rows: int  # blocks allowed alive at once (0: no blocks)


class GrowthParams(NamedTuple):
    """The settings of the fit, as kernel constants."""

    task: int
    width: int  # statistics per node
    criterion: int
    growth: int
    max_depth: int  # -1: unlimited
    min_samples_split: int
    min_samples_leaf: int
    min_impurity_decrease: float
    max_leaf_nodes: int  # <= 0: unlimited
    max_features: int
    multiway: bool
    unit_weights: bool  # all sample weights are 1: counts are read off the statistics


class NodeArrays(NamedTuple):
    """The tree being grown: one row per node, and the pool of category maps of its tests."""

    ints: np.ndarray  # (capacity, N_INT_COLUMNS) int64
    floats: np.ndarray  # (capacity, N_FLOAT_COLUMNS) float64
    stats: np.ndarray  # (capacity * width,) float64
    maps: np.ndarray  # child slot of every category code, pooled per categorical test


class SampleOrder(NamedTuple):
    """The samples of every node as a segment ``[I_SEG_START, + I_N_SAMPLES)`` of each row."""

    samples: np.ndarray  # (1, n) the sample list
    presorted: np.ndarray  # (n_presorted, n) samples sorted by each presorted feature
    slot_of: np.ndarray  # child slot of each sample during a split


class Pools(NamedTuple):
    """Per-node resources taken from free stacks, the frontier, and the growth counters."""

    counters: np.ndarray  # S_* values
    const_flags: np.ndarray  # (rows, n_features) uint8: feature constant in the node
    free_const: np.ndarray  # stack of free rows of const_flags
    blocks: np.ndarray  # histogram blocks, block_size floats each
    block_counts: np.ndarray  # their sample counts, count_size each
    free_blocks: np.ndarray  # stack of free block rows
    frontier: np.ndarray  # stack of nodes, or heap nodes with a leaf budget
    frontier_keys: np.ndarray  # heap keys


class SearchScratch(NamedTuple):
    """Work arrays of the best-test search of one node (find_best_test)."""

    candidates: np.ndarray  # (n_features,) features searched
    left: np.ndarray  # (width,) statistics of the left child during a scan
    right: np.ndarray
    hist: np.ndarray  # (max_codes * width,) per-code statistics of one feature
    hist_counts: np.ndarray  # (max_codes,) per-code sample counts
    sort_out: np.ndarray  # (1, n) node samples sorted by one feature
    sort_keys: np.ndarray  # (n,) codes of the node's samples
    sort_counts: np.ndarray  # (max_codes + 1,) counting-sort buckets
    perm: np.ndarray  # (max(n, max_codes),) sort permutation
    perm_scratch: np.ndarray
    node_y: np.ndarray  # (n,) classes of the node's samples
    miss: np.ndarray  # (width,) statistics of a node's missing rows (missing-value scans)
    mixed: np.ndarray  # (width,) a child's statistics with the missing rows added
    slot_map: np.ndarray  # (max_codes,) child slot per category of the current test
    present_codes: np.ndarray  # (max_codes,) the non-empty codes of a histogram scan
    rng: np.ndarray  # (1,) uint64 splitmix64 state


class CategoricalScratch(NamedTuple):
    """Work arrays of the binary subset search (``None`` when no feature is categorical: the
    kernels are then compiled without the categorical search)."""

    present: np.ndarray  # (max_codes,) categories present at the node
    keys: np.ndarray  # (max_codes,) float sort keys
    in_left: np.ndarray  # (max_codes,) bool
    order: np.ndarray  # (max_codes,) categories in scan order
    best_order: np.ndarray


class SplitScratch(NamedTuple):
    """Work arrays of one split (at most ``max_children`` children)."""

    tmp: np.ndarray  # (n,) int32 partition buffer
    active: np.ndarray  # (n_block,) block slots of the node's non-constant features
    child_stats: np.ndarray  # (max_children * width,)
    child_counts: np.ndarray
    child_offsets: np.ndarray  # child segments relative to the parent's start
    child_rows: np.ndarray  # histogram block of each child, or -1
    child_keep: np.ndarray  # bool: the child is worth a block
    positions: np.ndarray  # k-way partition cursors


def _grown(a: np.ndarray, length: int) -> np.ndarray:
    """``a`` zero-padded to ``length`` rows."""
    out = np.zeros((length, *a.shape[1:]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


_INT64_MAX = np.iinfo(np.int64).max


@njit(**NO_NRT_JIT_OPTIONS)
def _layout_pass(kind, n_codes, width, presort_row, block_slot, slot_codes, hist_offset,
                 count_offset):
    """Fills the per-feature and per-slot arrays of :func:`feature_layout` (slot arrays: the
    first ``n_block`` entries) in one pass; returns ``(n_presorted, n_block, block_size,
    count_size, min_cells, cat_codes)``."""
    n_presorted = n_block = block_size = count_size = cat_codes = 0
    min_cells = _INT64_MAX
    for f in range(kind.shape[0]):
        if kind[f] == KIND_CATEGORICAL:
            cat_codes += n_codes[f]
        presort_row[f] = block_slot[f] = -1
        if kind[f] == KIND_PRESORTED:
            presort_row[f] = n_presorted
            n_presorted += 1
        elif n_codes[f] <= BLOCK_MAX_CODES:
            block_slot[f] = n_block
            cells = n_codes[f] * width
            slot_codes[n_block] = n_codes[f]
            hist_offset[n_block] = block_size
            count_offset[n_block] = count_size
            block_size += cells
            count_size += n_codes[f]
            # smallest histogram a block feature is searched with (categorical: always)
            min_cells = min(min_cells, cells if kind[f] == KIND_HISTOGRAM else 0)
            n_block += 1
    return n_presorted, n_block, block_size, count_size, min_cells, cat_codes


@njit(**NO_NRT_JIT_OPTIONS)
def all_unit_weights(w):
    """Whether every weight is exactly 1 (``np.all(w == 1.0)`` without the temporary)."""
    for i in range(w.shape[0]):
        if w[i] != 1.0:
            return False
    return True


def feature_layout(kind, n_codes, width, unit_weights, max_block_rows) -> FeatureLayout:
    """Presorted rows and histogram-block slots (features with few codes) of the features: a
    feature's row / slot is the number of its kind before it (-1 for the other features).
    ``kind`` and ``n_codes`` are int64 arrays."""
    d = kind.shape[0]
    rows = np.empty((5, d), dtype=np.int64)
    # Python ints, also when the pass runs as plain Python (NUMBA_DISABLE_JIT=1)
    n_presorted, n_block, block_size, count_size, min_cells, cat_codes = map(int, _layout_pass(
        kind, n_codes, int(width), rows[0], rows[1], rows[2], rows[3], rows[4]))
    use_blocks = n_block > 0 and max_block_rows >= 2
    return FeatureLayout(
        presort_row=rows[0],
        block_slot=rows[1],
        hist_offset=rows[3, :n_block],
        count_offset=rows[4, :n_block],
        slot_codes=rows[2, :n_block],
        n_presorted=n_presorted,
        n_block=n_block,
        block_size=block_size,
        count_size=count_size if not unit_weights else 0,
        min_cells=min_cells,
        cat_codes=cat_codes,
        max_block_rows=max_block_rows if use_blocks else 0,
    )


def new_nodes(n, width, max_leaf_nodes, cat_codes) -> NodeArrays:
    """Node arrays sized for the largest possible tree (up to 64 MB): rows are written when
    their node is created, so untouched capacity costs no memory, while growing by copies
    showed in the profile of deep trees."""
    max_nodes = 2 * n - 1 if max_leaf_nodes <= 0 else min(2 * n - 1, 2 * max_leaf_nodes - 1)
    cap = max(64, min(max_nodes, 2**23 // (N_INT_COLUMNS + N_FLOAT_COLUMNS + width)))
    return NodeArrays(
        ints=np.empty((cap, N_INT_COLUMNS), dtype=np.int64),
        floats=np.empty((cap, N_FLOAT_COLUMNS), dtype=np.float64),
        stats=np.empty(cap * width, dtype=np.float64),
        maps=np.empty(64 + 2 * cat_codes, dtype=np.int64),
    )


def new_pools(n_features, layout) -> Pools:
    """Empty pools (all rows free), an empty frontier and zero counters."""
    st = np.zeros(N_COUNTERS, dtype=np.int64)
    # room for the usual trees from the start: growing the pools copies them (3 copies of the
    # histogram blocks, a tenth of growth, on spambase), and np.zeros leaves the rows that are
    # never used untouched (no memory)
    const_cap = 64
    st[S_N_FREE_CONST] = const_cap
    block_cap = min(32, layout.max_block_rows)
    free_blocks = np.empty(max(block_cap, 1), dtype=np.int64)
    free_blocks[:block_cap] = np.arange(block_cap - 1, -1, -1)
    st[S_N_FREE_BLOCKS] = block_cap
    return Pools(
        counters=st,
        const_flags=np.zeros((const_cap, n_features), dtype=np.uint8),
        free_const=np.arange(const_cap - 1, -1, -1, dtype=np.int64),
        blocks=np.zeros(block_cap * layout.block_size, dtype=np.float64),
        block_counts=np.zeros(block_cap * layout.count_size, dtype=np.int64),
        free_blocks=free_blocks,
        frontier=np.empty(64, dtype=np.int64),  # stack, or heap nodes
        frontier_keys=np.empty(64, dtype=np.float64),
    )


def new_scratch(n, n_features, max_codes, max_children, width, n_block, categorical, seed):
    """Work arrays of the search and of the splits, sized for the fit."""
    search = SearchScratch(
        candidates=np.empty(n_features, dtype=np.int64),
        left=np.empty(width, dtype=np.float64),
        right=np.empty(width, dtype=np.float64),
        hist=np.empty(max_codes * width, dtype=np.float64),
        hist_counts=np.empty(max_codes, dtype=np.int64),
        sort_out=np.empty((1, n), dtype=np.int32),
        sort_keys=np.empty(n, dtype=np.int64),
        sort_counts=np.empty(max_codes + 1, dtype=np.int64),
        perm=np.empty(max(n, max_codes), dtype=np.int64),
        perm_scratch=np.empty(max(n, max_codes), dtype=np.int64),
        node_y=np.empty(n, dtype=np.int32),
        miss=np.empty(width, dtype=np.float64),
        mixed=np.empty(width, dtype=np.float64),
        slot_map=np.empty(max_codes, dtype=np.int64),
        present_codes=np.empty(max_codes, dtype=np.int64),
        # the seed's 64 bits, as the kernels' splitmix64 stream expects them
        rng=np.array([seed], dtype=np.int64).view(np.uint64),
    )
    # None when no feature is categorical: the kernels are then compiled without the categorical
    # split search (a quarter of their compile time), numeric data never needs it
    cat = CategoricalScratch(
        present=np.empty(max_codes, dtype=np.int64),
        keys=np.empty(max_codes, dtype=np.float64),
        in_left=np.empty(max_codes, dtype=np.bool_),
        order=np.empty(max_codes, dtype=np.int64),
        best_order=np.empty(max_codes, dtype=np.int64),
    ) if categorical else None
    split = SplitScratch(
        tmp=np.empty(n, dtype=np.int32),
        active=np.arange(max(n_block, 1), dtype=np.int64),
        child_stats=np.empty(max_children * width, dtype=np.float64),
        child_counts=np.empty(max_children, dtype=np.int64),
        child_offsets=np.empty(max_children, dtype=np.int64),
        child_rows=np.empty(max_children, dtype=np.int64),
        child_keep=np.empty(max_children, dtype=np.bool_),
        positions=np.empty(max_children, dtype=np.int64),
    )
    return search, cat, split


def grown_for_split(nodes, pools, layout, width, need):
    """``nodes`` and ``pools`` with room for a split of ``need`` children (the arrays that are
    too small are copied into larger ones)."""
    st = pools.counters
    if st[S_N_NODES] + need > nodes.ints.shape[0]:
        cap = 2 * int(st[S_N_NODES] + need)
        nodes = nodes._replace(ints=_grown(nodes.ints, cap), floats=_grown(nodes.floats, cap),
                               stats=_grown(nodes.stats, cap * width))
    if st[S_MAP_USED] + layout.cat_codes * need > nodes.maps.shape[0]:
        nodes = nodes._replace(
            maps=_grown(nodes.maps, 2 * int(st[S_MAP_USED] + layout.cat_codes * need)))
    if st[S_N_FREE_CONST] < need:
        old = pools.const_flags.shape[0]
        new = 2 * old + need
        pools = pools._replace(const_flags=_grown(pools.const_flags, new),
                               free_const=_grown(pools.free_const, new))
        for r in range(new - 1, old - 1, -1):
            pools.free_const[st[S_N_FREE_CONST]] = r
            st[S_N_FREE_CONST] += 1
    if st[S_N_FRONTIER] + need > pools.frontier.shape[0]:
        length = 2 * int(st[S_N_FRONTIER] + need)
        pools = pools._replace(frontier=_grown(pools.frontier, length),
                               frontier_keys=_grown(pools.frontier_keys, length))
    block_size, max_rows = layout.block_size, layout.max_block_rows
    rows = pools.blocks.shape[0] // block_size if block_size > 0 else 0
    if max_rows > 0 and st[S_N_FREE_BLOCKS] < need and rows < max_rows:
        new = min(max(2 * rows, rows + need), max_rows)
        pools = pools._replace(blocks=_grown(pools.blocks, new * block_size),
                               block_counts=_grown(pools.block_counts, new * layout.count_size),
                               free_blocks=_grown(pools.free_blocks, new))
        for r in range(new - 1, rows - 1, -1):
            pools.free_blocks[st[S_N_FREE_BLOCKS]] = r
            st[S_N_FREE_BLOCKS] += 1
    return nodes, pools
