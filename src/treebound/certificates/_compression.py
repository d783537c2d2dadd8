"""A sample-compression scheme for decision trees (Marchand & Sokolova 2005; Shah 2007).

The scheme rebuilds the *deployed* tree — the same prediction on every input, not only on the
training rows — from a few training examples (the compression set) and a message.

**Message** (its prior ``P(sigma, d)`` is fixed before the data is seen):

1. the tree's shape up to swapping children, with the prior of
   :func:`~treebound.certificates._counting.log_shape_prior`;
2. for every internal node, in the preorder of that canonical shape, its test among the
   ``W`` tests the node can hold, uniformly
   (:func:`~treebound.certificates._counting.log_test_counts`: ``W = 2 ell_eff`` for a binary
   node, as in Theorem 9, a categorical feature counted with its ``U`` declared levels and
   one value for "missing or anything else"; a binary node's test says which child is the
   ``x <= t`` side);
3. the class of every leaf (``n^L``);
4. the size ``d`` of the compression set, uniform over ``2 .. 2 N_num`` (``N_num`` numeric
   tests; ``d = 0`` without one);
5. for every numeric test, in the same order, the unordered pair ``{a, b}`` of compression
   examples whose values ``x_a[j] <= t < x_b[j]`` give its threshold ``t = midpoint(x_a[j],
   x_b[j])`` — the same function the learning library used, applied to the same floats. The
   pairs cover the compression set, so the number of such sequences is at most
   ``d! S(2 N_num, d) / 2^N_num`` (surjections of the ``2 N_num`` slots onto the ``d``
   examples; the order inside a pair does not matter).

**Missing values.** When the rows hold a missing value (NaN), every numeric feature counts
twice among a node's ``W`` tests (:mod:`~treebound.certificates._counting`: missing read as
``-inf`` or ``+inf``), so step 2 also says which child a missing value takes at every numeric
node (``Tree.missing_child``): at most one bit per node. The test "value present / missing"
(threshold ``+inf``) gets its pair like any other: ``x_a[j]`` a value and ``x_b[j]`` missing,
read as threshold ``+inf``. The rebuilt tree then routes missing values as the deployed one
does, on every input.

**Reconstruction**: build the shape, put the tests in (the categorical maps are the message's
subsets over the ``U + 1`` values of a feature, its declared levels in their declared order and
"missing or anything else": the code does not depend on which levels the sample happened to
hold, and levels never seen at a node or in training follow the subset too, so they are
covered), compute
every numeric threshold from its pair, label the leaves. Every step is a function of the
message and of the compression examples only, so the rebuilt tree *is* the deployed one.

A threshold that is not ``midpoint(a, b)`` of two training values of its feature (a random
split, a rounded threshold, a dyadic midpoint) cannot be rebuilt: the tree is then not
compressible by this scheme and :func:`compress` says why.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from treebound._flat._feature_coding import _code_values
from treebound._flat._sparse import canonical_csr, is_sparse
from treebound._kernels import compression as kernels
from treebound._kernels.compression import (
    choose_rows,
    count_rows_by_value,
    count_rows_by_value_csr,
    fill_rows_by_value,
    fill_rows_by_value_csr,
    threshold_neighbours,
    threshold_neighbours_csr,
    value_pairs,
)
from treebound.certificates._counting import log_shape_prior, log_test_counts
from treebound.certificates._deployed import sklearn_midpoint, treebound_midpoint
from treebound.certificates._peers import float32_sklearn_midpoint
from treebound.theory.combinatorics import log_stirling2

__all__ = ["Compression", "ThresholdRows", "compress", "log_message_prior",
           "log_surjections_bound", "threshold_rows"]

#: Up to this many slots the Stirling number is exact; beyond, a closed-form upper bound.
_EXACT_STIRLING_SLOTS = 200


@dataclass(frozen=True)
class Compression:
    """A compression set and the log prior of its message.

    Attributes
    ----------
    rows : ndarray of int
        Indices (into the training rows) of the compression set, sorted.
    pairs : ndarray of int, shape (n_numeric_tests, 2)
        For every numeric test (node ids in ``nodes``), the rows giving its threshold.
    nodes : ndarray of int
        The numeric test nodes, in tree order.
    log_message_prior : float
        ``ln P(sigma, d)``.
    """

    rows: np.ndarray
    pairs: np.ndarray
    nodes: np.ndarray
    log_message_prior: float

    @property
    def size(self) -> int:
        return int(self.rows.shape[0])


def log_surjections_bound(n_slots: int, n_targets: int) -> float:
    """``ln`` of an upper bound on ``d! S(s, d)``, the surjections of ``s`` slots onto ``d``
    examples: exact for ``s <= 200``, else ``C(s, d) d! d^(s - d)`` (choose the slots of the
    first occurrences, order the examples by first occurrence, fill the rest freely); equal
    to ``s!`` when ``d = s``."""
    return _log_surjections_bound(int(n_slots), int(n_targets))


@functools.lru_cache(maxsize=4096)
def _log_surjections_bound(s: int, d: int) -> float:
    # memoized: the exact Stirling number is a big-integer sum, and the candidates of one
    # selection ask for the same few (slots, examples)
    if d > s or (d == 0 and s > 0):
        return -math.inf
    if s == 0:
        return 0.0
    if s <= _EXACT_STIRLING_SLOTS:
        return float(gammaln(d + 1.0)) + log_stirling2(s, d)
    return float(gammaln(s + 1.0) - gammaln(s - d + 1.0)) + (s - d) * math.log(d)


def log_message_prior(tree, n_levels, n_classes: int, multiway: bool, n_numeric: int,
                      size: int, missing: bool = False) -> float:
    """``ln P(sigma, d)`` of the module docstring's message (``n_levels``: the values counted
    per feature, :func:`~treebound.certificates._counting.counted_levels`; ``missing``: the
    rows hold a missing value, so the message says where missing values go)."""
    log_p = log_shape_prior(tree, n_levels, multiway)
    log_p -= float(log_test_counts(tree, n_levels, missing).sum())
    log_p -= tree.n_leaves * math.log(n_classes)
    if n_numeric > 0:
        log_p -= math.log(2 * n_numeric - 1)
        log_p -= log_surjections_bound(2 * n_numeric, size) - n_numeric * math.log(2.0)
    return log_p


# ----------------------------------------------------------------------------- the search
def _value_pair(column_sorted, t, midpoint):
    """Two training values ``a <= t < b`` with ``midpoint(a, b) == t`` (histogram splits and
    other libraries, whose thresholds need not sit between a node's neighbours): the largest
    such ``a`` (the pair closest to ``t``), with ``b`` the value nearest ``2 t - a``.

    The values ``<= t`` are tried from the largest down in chunks that grow fourfold, so the
    usual case (the pair is near ``t``) costs ``O(log n)`` instead of a pass over the column.
    """
    n = column_sorted.shape[0]
    end = int(np.searchsorted(column_sorted, t, side="right"))  # the values <= t
    size = 64
    while end > 0:
        begin = max(0, end - size)
        lows = column_sorted[begin:end]
        pos = np.searchsorted(column_sorted, 2.0 * t - lows)
        best, best_high = -1, 0.0
        for shift in (-1, 0, 1):
            highs = column_sorted[np.clip(pos + shift, 0, n - 1)]
            ok = np.flatnonzero((highs > t) & (midpoint(lows, highs) == t))
            if ok.size and ok[-1] > best:
                best, best_high = int(ok[-1]), float(highs[ok[-1]])
        if best >= 0:
            return float(lows[best]), best_high
        end, size = begin, 4 * size
    # The fallback ``midpoint(a, b) = a`` (adjacent floats): a = t and b the next value.
    above = column_sorted[column_sorted > t]
    if above.size and np.any(column_sorted == t) and midpoint(t, above[0]) == t:
        return float(t), float(above[0])
    return None


def _histogram_bins(deployed):
    """``max_bins`` of a treebound tree grown with the histogram splitter, else None."""
    model = deployed.model
    if deployed.family == "treebound" and getattr(model, "splitter", None) == "hist":
        return int(model.max_bins)
    return None


def bin_extremes(column_sorted: np.ndarray, max_bins: int) -> np.ndarray:
    """The smallest and largest value of every code of treebound's histogram coding of a sorted
    column (``_flat._feature_coding._code_values``, the fit's own rule), sorted."""
    if column_sorted.shape[0] == 0:
        return column_sorted
    first = np.flatnonzero(np.r_[True, column_sorted[1:] != column_sorted[:-1]])
    counts = np.diff(np.r_[first, column_sorted.shape[0]])
    _, lo, hi, _, _ = _code_values(column_sorted[first], counts, "hist", max_bins, 2)
    return np.unique(np.concatenate([lo, hi]))


def _compiled_rule(midpoint):
    """The code of a midpoint rule the compiled pair search knows, or None."""
    return {treebound_midpoint: kernels.MIDPOINT_TREEBOUND,
            sklearn_midpoint: kernels.MIDPOINT_SKLEARN,
            float32_sklearn_midpoint: kernels.MIDPOINT_SKLEARN_FLOAT32}.get(midpoint)


def compress(deployed, wrong: np.ndarray, multiway: bool) -> Compression | str:
    """The compression set of a :class:`~treebound.certificates._deployed.DeployedTree`.

    Each numeric threshold is rebuilt from the node's neighbours (the largest value sent left
    and the smallest sent right among the rows reaching it) when ``midpoint`` of them gives it,
    else from any two training values that do. Among equal-valued rows the scheme prefers rows
    already in the set, then misclassified rows (``wrong``: a misclassified row in the
    compression set no longer counts as an error outside it). ``multiway`` says whether the
    model's family can grow multiway nodes (shape prior). Returns the reason as a string when
    the tree cannot be compressed.
    """
    found = _threshold_rows(deployed)
    if isinstance(found, str):
        return found
    return found.choose(deployed, np.arange(found.nodes.shape[0]), wrong, multiway)


class ThresholdRows:
    """What :func:`compress` reads from the rows for the numeric tests of one tree: each
    test's pair of values and, for every value needed, the first rows holding it (row order).

    A node's pair depends only on the rows reaching it, its feature and threshold, and a
    value's rows only on the value, so the same object serves every pruning of the tree on the
    same rows (:meth:`choose` with the positions of the pruning's tests): the compression sets
    of nested candidates without a pass over the rows each (certified selection).
    """

    def __init__(self, nodes, values, node_feature, needed, needed_offset, range_start,
                 flat_order, n_rows):
        self.nodes = nodes  # the numeric test nodes of the tree the rows were read for
        self.values = values
        self.node_feature = node_feature
        self.range_start = range_start
        self.flat_order = flat_order
        self.n_rows = n_rows
        # each node's two values as indices into the pooled needed values
        at = np.empty((nodes.shape[0], 2), dtype=np.int64)
        for f, j in enumerate(np.unique(node_feature).tolist()):
            mine = np.flatnonzero(node_feature == j)
            at[mine] = needed_offset[f] + np.searchsorted(needed[f], values[mine])
        self.at = at

    def choose(self, deployed, positions: np.ndarray, wrong: np.ndarray,
               multiway: bool) -> Compression:
        """The compression set of ``deployed``, whose numeric test nodes, in their order, are
        those at ``positions`` of :attr:`nodes` (the same tests, reached by the same rows)."""
        tree = deployed.tree
        nodes = np.flatnonzero((tree.first_child >= 0) & (tree.category_offset < 0))
        at = self.at[positions]
        starts, ends = self.range_start[at], self.range_start[at + 1]
        chosen = np.zeros(self.n_rows, dtype=np.bool_)
        pairs = np.empty(2 * nodes.shape[0], dtype=np.int64)
        choose_rows(starts.ravel(), ends.ravel(), self.flat_order,
                    np.ascontiguousarray(wrong, dtype=np.bool_), chosen,
                    np.full(max(self.flat_order.shape[0], 1), -1, dtype=np.int64), pairs)
        rows = np.flatnonzero(chosen)
        log_p = log_message_prior(tree, deployed.n_levels, deployed.n_classes, multiway,
                                  int(nodes.shape[0]), int(rows.shape[0]), deployed.missing)
        return Compression(rows=rows, pairs=pairs.reshape(-1, 2), nodes=nodes,
                           log_message_prior=log_p)


def threshold_rows(deployed) -> ThresholdRows | str:
    """:class:`ThresholdRows` of a deployed tree, or why it cannot be compressed (as
    :func:`compress`)."""
    return _threshold_rows(deployed)


def _threshold_rows(deployed) -> ThresholdRows | str:
    tree = deployed.tree
    if deployed.midpoint is None:
        return (f"{deployed.family} thresholds are not midpoints of training values, so no "
                "compression set rebuilds them")
    features = _readable(deployed.features)
    nodes = np.flatnonzero((tree.first_child >= 0) & (tree.category_offset < 0))
    low = np.full(tree.n_nodes, -np.inf)
    high = np.full(tree.n_nodes, np.inf)
    if nodes.size:
        # the maps with the unseen-level slot: rows of levels the tree never saw route too
        offsets, pooled = tree.category_maps_with_unseen()
        routing = (tree.first_child, np.where(tree.feature < 0, 0, tree.feature),
                   np.nan_to_num(tree.threshold, posinf=np.inf), offsets, pooled,
                   np.where(tree.first_child >= 0, tree.missing_child, 0))
        if is_sparse(features):
            threshold_neighbours_csr(*routing, features.indptr, features.indices,
                                     features.data, low, high)
        else:
            threshold_neighbours(*routing, features, low, high)
    values = np.column_stack([low[nodes], high[nodes]])
    t = tree.threshold[nodes]
    with np.errstate(invalid="ignore"):
        good = np.isfinite(values).all(axis=1) & (deployed.midpoint(values[:, 0],
                                                                   values[:, 1]) == t)
    node_feature = tree.feature[nodes]
    sorted_columns: dict[int, np.ndarray] = {}
    by_column = features.tocsc() if is_sparse(features) else None

    def column(j):
        """The present values of feature ``j``, sorted (NaN sorts last)."""
        if by_column is not None:  # built again on each call: n values, not n x columns
            values_j = sorted_sparse_column(by_column, j)
            return values_j[: np.searchsorted(values_j, np.nan)]
        if j not in sorted_columns:
            values_j = np.sort(features[:, j])
            sorted_columns[j] = values_j[: np.searchsorted(values_j, np.nan)]
        return sorted_columns[j]

    if np.any(t == np.inf):
        # the test "value present / missing": a present value and a missing one (a missing
        # value is sought as +inf below: the rows hold no infinity, it is refused)
        found = _presence_pairs(deployed, nodes, t, low, column)
        if isinstance(found, str):
            return found
        present = t == np.inf
        values[present, 0] = found
        values[present, 1] = np.inf
        good[present] = True
        features = _nan_as_inf(features)

    rule = _compiled_rule(deployed.midpoint)
    missing = np.flatnonzero(~good)
    if rule is not None and missing.size:
        # the pair search compiled, one call per feature (a histogram tree's thresholds are
        # rarely midpoints of a node's neighbours, so this runs for most of its nodes)
        max_bins = _histogram_bins(deployed)
        for j in np.unique(node_feature[missing]).tolist():
            mine = missing[node_feature[missing] == j]
            thresholds = np.ascontiguousarray(t[mine], dtype=np.float64)
            # contiguous outputs: one compiled signature whatever the number of nodes
            low, high = np.full(mine.size, np.nan), np.full(mine.size, np.nan)
            if max_bins is not None:
                # A histogram threshold is the midpoint of two bin extremes: search those
                # first (a few hundred values instead of every value in the node's gap).
                value_pairs(bin_extremes(column(j), max_bins), thresholds, rule, low, high)
            todo = np.flatnonzero(np.isnan(low))
            if todo.size:
                rest_low, rest_high = np.empty(todo.size), np.empty(todo.size)
                value_pairs(column(j), np.ascontiguousarray(thresholds[todo]), rule, rest_low,
                            rest_high)
                low[todo], high[todo] = rest_low, rest_high
            solved = ~np.isnan(low)
            values[mine[solved], 0] = low[solved]
            values[mine[solved], 1] = high[solved]
            good[mine[solved]] = True
    for s in np.flatnonzero(~good).tolist():
        found = _value_pair(column(int(node_feature[s])), float(t[s]), deployed.midpoint)
        if found is None:
            return (f"node {int(nodes[s])}: threshold {float(t[s])!r} on feature "
                    f"{int(node_feature[s])} is not the midpoint of two training values, so no "
                    "compression set rebuilds it")
        values[s] = found
    # Rows holding each needed value, grouped by value (a counting sort in two compiled passes
    # over the rows, in memory order): the range of a node's value holds its candidate rows,
    # the first _SCAN of them (all that choose_rows reads).
    used = np.unique(node_feature)
    needed = [np.unique(values[node_feature == j].ravel()) for j in used.tolist()]
    needed_offset = np.concatenate([[0], np.cumsum([v.shape[0] for v in needed])]).astype(np.int64)
    pooled = np.concatenate(needed) if needed else np.empty(0)
    range_start = np.empty(pooled.shape[0] + 1, dtype=np.int64)
    columns = used.astype(np.int64)
    rows_of = (features.indptr, features.indices, features.data) if is_sparse(features) \
        else (features,)
    count = count_rows_by_value_csr if is_sparse(features) else count_rows_by_value
    fill = fill_rows_by_value_csr if is_sparse(features) else fill_rows_by_value
    count(*rows_of, columns, pooled, needed_offset, range_start)
    flat_order = np.empty(range_start[-1], dtype=np.int64)
    fill(*rows_of, columns, pooled, needed_offset, range_start, range_start[:-1].copy(),
         flat_order)
    return ThresholdRows(nodes, values, node_feature, needed, needed_offset, range_start,
                         flat_order, int(features.shape[0]))


def _readable(features):
    """The rows as the kernels read them: dense float64 in row order, or sparse in compressed
    rows with sorted indices (never densified)."""
    if is_sparse(features):
        return canonical_csr(features)
    return np.ascontiguousarray(features, dtype=np.float64)


def _nan_as_inf(features):
    """The rows with every missing value (NaN) as ``+inf`` (a copy)."""
    if is_sparse(features):
        features = features.copy()
        features.data = np.where(np.isnan(features.data), np.inf, features.data)
        return features
    return np.where(np.isnan(features), np.inf, features)


def sorted_sparse_column(by_column, j: int) -> np.ndarray:
    """Column ``j`` of a sparse matrix in compressed columns, every value (implicit zeros
    included) sorted as ``np.sort`` sorts the dense column."""
    start, stop = by_column.indptr[j], by_column.indptr[j + 1]
    stored = np.sort(np.asarray(by_column.data[start:stop], dtype=np.float64))
    n_zero = by_column.shape[0] - stored.shape[0]
    below = np.searchsorted(stored, 0.0)  # the implicit zeros go with the stored ones
    return np.concatenate([stored[:below], np.zeros(n_zero), stored[below:]])


def _presence_pairs(deployed, nodes, t, low, column) -> np.ndarray | str:
    """The present value of the pair of every test "value present / missing" (threshold
    ``+inf``): the largest among the rows reaching the node, else the largest of the feature."""
    tree = deployed.tree
    out = []
    for s in np.flatnonzero(t == np.inf).tolist():
        node, j = int(nodes[s]), int(tree.feature[nodes[s]])
        if not deployed.missing:
            return (f"node {node} tests whether feature {j} is present, but no row has a "
                    "missing value to rebuild it from")
        value = low[node]
        if not np.isfinite(value):
            present = column(j)
            if present.shape[0] == 0:
                return (f"node {node}: feature {j} has no present value to rebuild its test "
                        "from")
            value = present[-1]
        out.append(float(value))
    return np.asarray(out, dtype=np.float64)
