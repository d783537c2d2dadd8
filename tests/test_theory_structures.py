import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound._flat._storage import Tree
from treebound.theory import (
    TreeStructure,
    collapsed_structure,
    collapsed_structures,
    enumerate_structures,
    subtree_structures,
    wedderburn_etherington,
)

P = TreeStructure.parse


def structures(max_leaves=12):
    """Hypothesis strategy: random binary shapes with up to ``max_leaves`` leaves."""
    return st.recursive(
        st.just(TreeStructure.leaf()),
        lambda children: st.tuples(children, children).map(lambda lr: TreeStructure.node(*lr)),
        max_leaves=max_leaves,
    )


def tree_from_structure(structure: TreeStructure, n_features: int = 2) -> Tree:
    """A fitted-looking flat Tree with the given shape (breadth-first ids, contiguous children)."""
    order = [structure]
    first_child = []
    head = 0
    while head < len(order):
        t = order[head]
        if t.is_leaf:
            first_child.append(-1)
        else:
            first_child.append(len(order))
            order.extend([t.left, t.right])
        head += 1
    n = len(order)
    fc = np.array(first_child, dtype=np.int64)
    internal = fc >= 0
    # one training row per leaf: every node holds the rows of its leaves (validate checks it)
    rows = np.where(internal, 0, 1).astype(np.int64)
    for i in range(n - 1, -1, -1):
        if internal[i]:
            rows[i] = rows[fc[i]] + rows[fc[i] + 1]
    return Tree(
        first_child=fc,
        n_children=np.where(internal, 2, 0).astype(np.int64),
        feature=np.where(internal, 0, -1).astype(np.int64),
        threshold=np.where(internal, 0.5, np.nan),
        category_offset=np.full(n, -1, dtype=np.int64),
        category_child=np.empty(0, dtype=np.int64),
        value=np.column_stack([rows, np.zeros(n)]).astype(np.float64),
        impurity=np.zeros(n),
        n_node_samples=rows,
        weighted_n_node_samples=rows.astype(np.float64),
        n_categories=np.zeros(n_features, dtype=np.int64),
    ).validate()


def test_parse_and_properties():
    t = P("((L,L),L)")
    assert (t.n_leaves, t.n_internal, t.n_nodes, t.height) == (3, 2, 5, 2)
    assert str(t) == "((L,L),L)" and str(t.left) == "(L,L)" and t.right.is_leaf
    assert t.left.is_stump and not t.is_stump and not t.is_leaf
    leaf = TreeStructure.leaf()
    assert leaf.left is None and leaf.right is None and leaf.height == 0 and leaf.n_nodes == 1
    assert P(" ( ( L , L ) ,\nL ) ") is t


def test_interning_identity_and_hash():
    a = TreeStructure.node(TreeStructure.stump(), TreeStructure.leaf())
    b = P("((L,L),L)")
    assert a is b and a == b and hash(a) == hash(b)
    assert P("(L,(L,L))") != a
    assert len({a, b, P("(L,(L,L))")}) == 2


def test_constructor_and_immutability_errors():
    with pytest.raises(TypeError, match="interned"):
        TreeStructure()
    t = P("(L,L)")
    with pytest.raises(AttributeError):
        t._n_leaves = 5
    with pytest.raises(TypeError):
        TreeStructure.node(t, "L")


@pytest.mark.parametrize("text", ["", "(L,L", "(L)", "X", "(L,L))", "L L", "(,L)", "((L,L)L)", "(L;L)"])
def test_parse_errors(text):
    with pytest.raises(ValueError):
        P(text)


def test_parse_rejects_non_string():
    with pytest.raises(TypeError):
        P(3)


@settings(max_examples=60, deadline=None)
@given(structures())
def test_roundtrip_pickle_copy(t):
    assert P(str(t)) is t
    assert pickle.loads(pickle.dumps(t)) is t
    assert copy.deepcopy(t) is t and copy.copy(t) is t
    assert t.n_nodes == 2 * t.n_leaves - 1
    assert t.height == (0 if t.is_leaf else 1 + max(t.left.height, t.right.height))


@settings(max_examples=60, deadline=None)
@given(structures(), structures())
def test_canonical_is_swap_invariant(a, b):
    assert TreeStructure.node(a, b).canonical() is TreeStructure.node(b, a).canonical()
    c = TreeStructure.node(a, b).canonical()
    assert c.canonical() is c and c.n_leaves == a.n_leaves + b.n_leaves


def test_deep_structures_do_not_recurse():
    t = TreeStructure.path(5000)
    text = str(t)
    assert P(text) is t and t.height == 5000 and t.n_leaves == 5001
    assert t.canonical().n_leaves == 5001
    assert TreeStructure.path(3, side="right") is P("(L,(L,(L,L)))")


def test_full_and_path_constructors():
    assert TreeStructure.full(2) is P("((L,L),(L,L))")
    assert TreeStructure.full(0).is_leaf and TreeStructure.path(0).is_leaf
    assert TreeStructure.path(2) is P("((L,L),L)")
    with pytest.raises(ValueError):
        TreeStructure.path(-1)
    with pytest.raises(ValueError):
        TreeStructure.path(2, side="up")


@pytest.mark.parametrize("n", range(1, 11))
def test_enumerate_structures_counts_are_wedderburn_etherington(n):
    shapes = enumerate_structures(n)
    assert len(shapes) == len(set(shapes)) == wedderburn_etherington(n)
    assert all(s.n_leaves == n and s.canonical() is s for s in shapes)


def test_with_leaf_at():
    t = P("((L,(L,L)),(L,L))")
    assert t.with_leaf_at([0, 1]) is P("((L,L),(L,L))")
    assert t.with_leaf_at("r") is P("((L,(L,L)),L)")
    assert t.with_leaf_at([]) is TreeStructure.leaf()
    with pytest.raises(ValueError):
        t.with_leaf_at([1, 0, 0])
    with pytest.raises(ValueError):
        t.with_leaf_at(["x"])


@settings(max_examples=40, deadline=None)
@given(structures(max_leaves=20))
def test_from_tree_and_collapsed_structures_match_a_rebuild(t):
    tree = tree_from_structure(t)
    assert TreeStructure.from_tree(tree) is t
    subs = subtree_structures(tree)
    assert all(subs[i].n_leaves == 1 for i in np.flatnonzero(tree.first_child < 0))
    candidates = collapsed_structures(tree)
    internal = np.flatnonzero(tree.first_child >= 0)
    assert sorted(candidates) == internal.tolist()
    for v in internal:
        make_leaf = np.zeros(tree.n_nodes, dtype=bool)
        make_leaf[v] = True
        rebuilt, _ = tree.collapse(make_leaf)
        assert TreeStructure.from_tree(rebuilt) is candidates[v]
        assert collapsed_structure(tree, int(v), subs) is candidates[v]


def test_from_tree_rejects_multiway():
    tree = tree_from_structure(P("(L,L)"))
    tree.first_child = np.array([1, -1, -1, -1], dtype=np.int64)
    tree.n_children = np.array([3, 0, 0, 0], dtype=np.int64)
    with pytest.raises(ValueError, match="binary"):
        TreeStructure.from_tree(tree)


def test_collapsed_structure_bad_node():
    tree = tree_from_structure(P("(L,L)"))
    with pytest.raises(ValueError):
        collapsed_structure(tree, 7)
