"""The structures of fitted trees, for pruning: every subtree's shape, and the shape of each
pruning candidate.

:func:`subtree_structures` gives the structure rooted at every node of a fitted
:class:`~treebound.tree.Tree` in one pass, and :func:`collapsed_structure` builds the structure
of "the tree with node ``v`` turned into a leaf" by re-interning only the nodes on the path from
``v`` to the root (``O(depth)`` dictionary look-ups, not ``O(tree size)``): bound pruning
(Leboeuf, LeBlanc & Marchand 2020, Algorithm 3) evaluates every candidate this way.
"""

from __future__ import annotations

from treebound._flat._sklearn_view import as_flat
from treebound.theory.structures import TreeStructure, node_structures

__all__ = ["collapsed_structure", "collapsed_structures", "pruning_table_shapes",
           "subtree_structures"]


def subtree_structures(tree) -> list[TreeStructure]:
    """Structure of the subtree rooted at every node of a fitted tree (index = node id).

    One pass over the nodes in decreasing id order (children always have larger ids than their
    parent in :class:`~treebound.tree.Tree`).

    Parameters
    ----------
    tree : treebound.tree.Tree
        A fitted binary tree.

    Returns
    -------
    list of TreeStructure
        ``out[i]`` is the shape of the subtree rooted at node ``i`` (``out[0]``: the whole tree).

    Raises
    ------
    ValueError
        For a node with other than two children (multiway split).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_depth=2).fit(X, y).tree_
    >>> [str(s) for s in subtree_structures(tree)]
    ['(L,(L,L))', 'L', '(L,L)', 'L', 'L']
    """
    tree = as_flat(tree)
    return node_structures(tree.first_child, tree.n_children)


def collapsed_structure(tree, node: int, subtrees: list[TreeStructure] | None = None,
                        parent=None) -> TreeStructure:
    """Structure of ``tree`` with ``node`` turned into a leaf, rebuilt along one root path.

    Only the ``depth(node)`` ancestors are re-interned: ``O(depth)`` dictionary look-ups, not
    ``O(tree size)`` — how bound pruning (Leboeuf et al. 2020, Algorithm 3) gets the shape of
    each candidate.

    Parameters
    ----------
    tree : treebound.tree.Tree
        A binary fitted tree.
    node : int
        Node id to collapse (collapsing a leaf returns the tree's own structure).
    subtrees : list of TreeStructure, optional
        ``subtree_structures(tree)``; pass it when evaluating many candidates of the same tree.
    parent : array of int, optional
        ``tree.parent``; computed when omitted.

    Returns
    -------
    TreeStructure
        The shape of the pruned tree.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_depth=2).fit(X, y).tree_
    >>> str(collapsed_structure(tree, 2)), str(collapsed_structure(tree, 0))
    ('(L,L)', 'L')
    """
    tree = as_flat(tree)
    if subtrees is None:
        subtrees = subtree_structures(tree)
    if parent is None:
        parent = tree.parent
    n = len(subtrees)
    if not 0 <= node < n:
        raise ValueError(f"node {node} is not in the tree (0..{n - 1})")
    fc = tree.first_child
    t = TreeStructure._leaf
    child = int(node)
    p = int(parent[child])
    while p >= 0:
        left_id = int(fc[p])
        if child == left_id:
            t = TreeStructure.node(t, subtrees[left_id + 1])
        else:
            t = TreeStructure.node(subtrees[left_id], t)
        child = p
        p = int(parent[p])
    return t


def collapsed_structures(tree, nodes=None) -> dict[int, TreeStructure]:
    """:func:`collapsed_structure` of every internal node (or of the given nodes).

    Parameters
    ----------
    tree : treebound.tree.Tree
        A binary fitted tree.
    nodes : iterable of int, optional
        Node ids to collapse; default every internal node.

    Returns
    -------
    dict of int to TreeStructure
        ``{node: structure of the tree with node turned into a leaf}``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_depth=2).fit(X, y).tree_
    >>> {node: str(s) for node, s in collapsed_structures(tree).items()}
    {0: 'L', 2: '(L,L)'}
    """
    tree = as_flat(tree)
    subtrees = subtree_structures(tree)
    parent = tree.parent
    if nodes is None:
        nodes = [i for i in range(len(subtrees)) if not subtrees[i].is_leaf]
    return {int(v): collapsed_structure(tree, int(v), subtrees, parent) for v in nodes}


def pruning_table_shapes(tree) -> tuple[list, list]:
    """The shapes whose Theorem 9 tables bound pruning builds, as ``(left leaves, right leaves)``
    pairs, one per distinct shape up to swapping children.

    First, the subtrees of the grown tree below its root (the root itself is evaluated at one
    ``m``, not tabulated); second, the subtrees ``A'`` that the first step of the search may
    bracket candidates with (:mod:`treebound.pruning.bound`): an ancestor of a candidate, below
    the root, with the candidate turned into a leaf, when the tree does not already have that
    shape. Shapes are told apart by canonical ids (a leaf is 0, a node the id of the unordered
    pair of its children's ids), without building :class:`TreeStructure` objects: fast enough
    for the cost estimate of trees with thousands of leaves.

    Parameters
    ----------
    tree : treebound.tree.Tree
        A binary fitted tree.

    Returns
    -------
    grown, collapsed : list of tuple of int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_leaf_nodes=6, random_state=0).fit(X, y).tree_
    >>> str(TreeStructure.from_tree(tree))
    '(L,(((L,L),(L,L)),L))'
    >>> pruning_table_shapes(tree)  # a cut stump gives ((L,L),L) and then (((L,L),L),L)
    ([(1, 1), (2, 2), (4, 1)], [(2, 1), (3, 1)])
    """
    first_child = tree.first_child.tolist()
    parent = tree.parent.tolist()
    n = len(first_child)
    ids: dict = {}
    shape_id = [0] * n
    leaves = [1] * n
    grown: dict = {}
    for v in range(n - 1, -1, -1):
        c = first_child[v]
        if c < 0:
            continue
        a, b = shape_id[c], shape_id[c + 1]
        key = (a, b) if a <= b else (b, a)
        shape_id[v] = ids.setdefault(key, len(ids) + 1)
        leaves[v] = leaves[c] + leaves[c + 1]
        if v > 0 and shape_id[v] not in grown:
            grown[shape_id[v]] = _larger_first(leaves[c], leaves[c + 1])
    present = set(shape_id)
    collapsed: dict = {}
    for u in range(n):
        if first_child[u] < 0:
            continue
        cur, cur_leaves = 0, 1
        child, p = u, parent[u]
        while p >= 0 and parent[p] >= 0:  # below the root: a whole candidate is not tabulated
            c = first_child[p]
            sibling = c + 1 if child == c else c
            s = shape_id[sibling]
            key = (cur, s) if cur <= s else (s, cur)
            new = ids.setdefault(key, len(ids) + 1)
            if new not in present and new not in collapsed:
                collapsed[new] = _larger_first(cur_leaves, leaves[sibling])
            cur, cur_leaves = new, cur_leaves + leaves[sibling]
            child, p = p, parent[p]
    return list(grown.values()), list(collapsed.values())


def _larger_first(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a >= b else (b, a)
