"""The loose growth-function kernel (``treebound._kernels.loose_growth``) against the plain
Python recursion (``tests/_theory_oracles.py``, the oracle), per candidate, per structure and
through bound pruning."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _theory_oracles import loose_log_growth, loose_log_values
from treebound._kernels.loose_growth import (
    EMPTY,
    LEAF_ROW,
    assign_shape_ids,
    collapse_shape_ids,
    loose_candidates_log_growth,
)
from treebound.pruning.bound import prune_bound
from treebound.theory import PartitioningCache, TreeStructure
from treebound.theory import _loose as _loose_growth
from treebound.theory.combinatorics import log_falling_factorial
from treebound.theory.partitioning import (
    log_growth_function_upper_bound,
    log_partitioning_upper_bound,
)

node = TreeStructure.node
leaf = TreeStructure.leaf()


def _mirror(t):
    return t if t.is_leaf else node(_mirror(t.right), _mirror(t.left))


def shapes(max_leaves=24):
    """Random shapes, with identical and mirrored sibling subtrees (Theorem 9's halving)."""
    return st.recursive(
        st.just(leaf),
        lambda children: st.one_of(
            st.tuples(children, children).map(lambda lr: node(*lr)),
            children.map(lambda t: node(t, t)),
            children.map(lambda t: node(t, _mirror(t)))),
        max_leaves=max_leaves)


def _flatten(structure):
    """Breadth-first flat arrays (children contiguous, ids above their parent's) and the
    structure of every node."""
    order = [structure]
    first_child, head = [], 0
    while head < len(order):
        t = order[head]
        if t.is_leaf:
            first_child.append(-1)
        else:
            first_child.append(len(order))
            order.extend([t.left, t.right])
        head += 1
    first_child = np.array(first_child, dtype=np.int64)
    parent = np.full(len(order), -1, dtype=np.int64)
    for v, c in enumerate(first_child.tolist()):
        if c >= 0:
            parent[c] = parent[c + 1] = v
    return first_child, parent


def _current(first_child, collapsed):
    """Structure and leaf count of every node of the tree with ``collapsed`` nodes as leaves."""
    n = first_child.shape[0]
    shape, leaves = [None] * n, np.ones(n, dtype=np.int64)
    for v in range(n - 1, -1, -1):
        c = first_child[v]
        if c < 0 or collapsed[v]:
            shape[v] = leaf
        else:
            shape[v] = node(shape[c], shape[c + 1])
            leaves[v] = leaves[c] + leaves[c + 1]
    return shape, leaves


def _alive(first_child, collapsed):
    out, stack = [], [0]
    while stack:
        v = stack.pop()
        out.append(v)
        if first_child[v] >= 0 and not collapsed[v]:
            stack.extend([first_child[v], first_child[v] + 1])
    return sorted(out)


def _kernel_values(first_child, parent, collapsed, leaves, shape_id, height, table, M,
                   n_classes, n_features, paper, candidates, cache):
    n_parts = max(1, min(n_classes, int(leaves[0]), M))
    values = np.full((4, n_parts + 1), -np.inf)
    values[LEAF_ROW, 1] = 0.0
    memo = (np.full(4, EMPTY, dtype=np.int64), np.empty(4, dtype=np.int64))
    log_falling = np.array([log_falling_factorial(n_classes, a) for a in range(n_parts + 1)])
    out = loose_candidates_log_growth(
        np.asarray(candidates, dtype=np.int64), first_child, parent, collapsed, leaves,
        shape_id, height, table[0], table[1], memo[0], memo[1], 0, values, 1, M, n_classes,
        n_parts, paper, math.log(2 * n_features), cache._log_stirling_upto(M, n_parts),
        cache._log_coef_upto(n_parts), log_falling)
    return out[0]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes(), st.integers(2, 10), st.sampled_from([1, 3, 17, 60, 4000]),
       st.integers(1, 6), st.booleans(), st.randoms(use_true_random=False))
def test_kernel_matches_python_on_every_candidate(structure, n_classes, M, n_features, paper,
                                                  rng):
    first_child, parent = _flatten(structure)
    internal = np.flatnonzero(first_child >= 0)
    collapsed = np.zeros(first_child.shape[0], dtype=bool)
    for v in internal.tolist():  # a working tree part-way through pruning
        if v > 0 and rng.random() < 0.2:
            collapsed[v] = True
    shape, leaves = _current(first_child, collapsed)
    shape_id = np.zeros_like(first_child)
    height = np.zeros_like(first_child)
    table_keys, table_vals, _ = assign_shape_ids(
        first_child, collapsed, shape_id, height, np.full(4, EMPTY, dtype=np.int64),
        np.empty(4, dtype=np.int64), 1)
    alive = _alive(first_child, collapsed)
    # Canonical ids: equal iff the shapes are isomorphic as unordered trees.
    for a in alive:
        for b in alive:
            assert (shape_id[a] == shape_id[b]) == (shape[a].canonical() is shape[b].canonical())
        assert height[a] == shape[a].height
    candidates = [-1] + [v for v in alive if first_child[v] >= 0 and not collapsed[v]]
    cache = PartitioningCache()
    got = _kernel_values(first_child, parent, collapsed, leaves, shape_id, height,
                         (table_keys, table_vals), M, n_classes, n_features, paper, candidates,
                         cache)
    for u, value in zip(candidates, got.tolist(), strict=True):
        t = shape[0] if u < 0 else _collapse(structure, first_child, parent, collapsed, u)
        want = loose_log_growth(t, M, n_features, n_classes, paper)
        assert value == pytest.approx(want, rel=1e-12, abs=1e-12), (str(t), u)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes(), st.integers(1, 10), st.sampled_from([0, 1, 3, 17, 60, 4000]),
       st.integers(1, 6), st.booleans())
def test_the_theory_functions_loose_values_match_the_python_recursion(structure, n_parts, m,
                                                                       n_features, paper):
    # the public log-space functions run the kernel on the structure laid out flat
    variant = "loose_paper" if paper else "loose"
    want = loose_log_values(structure, n_parts, m, n_features, paper)
    for c in range(1, min(n_parts, structure.n_leaves, max(m, 1)) + 1):
        got = log_partitioning_upper_bound(structure, n_parts=c, n_examples=m,
                                           n_features=n_features, variant=variant)
        assert got == pytest.approx(want[c], rel=1e-12, abs=1e-12) or got == want[c]
    growth = log_growth_function_upper_bound(structure, n_examples=m, n_features=n_features,
                                             n_classes=n_parts, variant=variant)
    assert growth == pytest.approx(loose_log_growth(structure, m, n_features, n_parts, paper),
                                   rel=1e-12, abs=1e-12)


def _collapse(structure, first_child, parent, collapsed, u):
    mask = collapsed.copy()
    mask[u] = True
    return _current(first_child, mask)[0][0]


@settings(max_examples=30, deadline=None)
@given(shapes(), st.randoms(use_true_random=False))
def test_shape_ids_follow_collapses(structure, rng):
    """Ids updated along the root path of each collapse equal ids assigned from scratch."""
    first_child, parent = _flatten(structure)
    n = first_child.shape[0]
    collapsed = np.zeros(n, dtype=bool)
    shape_id, height = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    keys, vals, n_shapes = assign_shape_ids(first_child, collapsed, shape_id, height,
                                            np.full(4, EMPTY, dtype=np.int64),
                                            np.empty(4, dtype=np.int64), 1)
    while True:
        internal = [v for v in _alive(first_child, collapsed)
                    if first_child[v] >= 0 and not collapsed[v]]
        if not internal:
            break
        v = rng.choice(internal)
        collapsed[v] = True
        keys, vals, n_shapes = collapse_shape_ids(v, first_child, parent, shape_id, height,
                                                  keys, vals, n_shapes)
        shape, _ = _current(first_child, collapsed)
        alive = _alive(first_child, collapsed)
        for a in alive:
            assert height[a] == shape[a].height
            for b in alive:
                assert (shape_id[a] == shape_id[b]) == \
                    (shape[a].canonical() is shape[b].canonical())


def _fitted_trees():
    from sklearn.datasets import load_breast_cancer, load_iris, load_wine

    from treebound import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X_syn = rng.normal(size=(600, 4))
    y_syn = np.digitize(X_syn[:, 0] + 0.5 * X_syn[:, 1] ** 2 + 0.7 * rng.normal(size=600),
                        [-1.0, -0.2, 0.4, 1.0, 1.6])
    data = [load_iris(return_X_y=True), load_wine(return_X_y=True),
            load_breast_cancer(return_X_y=True), (X_syn, y_syn)]
    trees = []
    for i, (X, y) in enumerate(data):
        for seed, leaves, growth in [(0, 8, "depth_first"), (1, 20, "purest_children"),
                                     (2, 30, "top_down")]:
            pick = np.random.default_rng(10 * i + seed).random(len(y)) < 0.8
            model = DecisionTreeClassifier(max_leaf_nodes=leaves, growth=growth,
                                           random_state=seed).fit(X[pick], y[pick])
            trees.append(model.tree_.flat)
    return trees


TREES = _fitted_trees()


@pytest.mark.parametrize("variant", ["loose", "loose_paper"])
@pytest.mark.parametrize("index", range(len(TREES)))
def test_pruning_matches_the_python_path(index, variant):
    tree = TREES[index]
    fast = prune_bound(tree, variant=variant)
    slow = prune_bound(tree, variant=variant, search="all")
    assert np.array_equal(fast.make_leaf, slow.make_leaf)
    assert fast.objective == pytest.approx(slow.objective, rel=1e-9)
    assert [n for n, _ in fast.path] == [n for n, _ in slow.path]
    for (_, a), (_, b) in zip(fast.path, slow.path, strict=True):
        assert a == pytest.approx(b, rel=1e-9)
    assert fast.info["exact_evaluations"] == slow.info["exact_evaluations"]
    assert fast.info["log_growth"] == pytest.approx(slow.info["log_growth"], rel=1e-9)


@pytest.mark.parametrize("n_examples,n_features", [(1, 1), (6, 2), (40, 50)])
def test_pruning_matches_with_few_examples(n_examples, n_features):
    """Sizes at which the root's Stirling base case decides (``2m <= L``) and ``2 ell`` large."""
    tree = TREES[5]
    fast = prune_bound(tree, variant="loose", n_examples=n_examples, n_features=n_features)
    slow = prune_bound(tree, variant="loose", n_examples=n_examples, n_features=n_features,
                       search="all")
    assert np.array_equal(fast.make_leaf, slow.make_leaf)
    assert fast.objective == pytest.approx(slow.objective, rel=1e-9)


def test_dropping_the_memo_changes_nothing(monkeypatch):
    tree = TREES[8]
    kept = prune_bound(tree, variant="loose")
    monkeypatch.setattr(_loose_growth, "MEMO_BYTES", 0)  # reset before every step
    dropped = prune_bound(tree, variant="loose")
    assert np.array_equal(kept.make_leaf, dropped.make_leaf)
    assert kept.path == dropped.path
