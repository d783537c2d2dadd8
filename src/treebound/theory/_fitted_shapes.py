"""The structures of fitted trees, for pruning: every subtree's shape, and the shape of each
pruning candidate.

:func:`subtree_structures` gives the structure rooted at every node of a fitted
:class:`~treebound.tree.Tree` in one pass, and :func:`collapsed_structure` builds the structure
of "the tree with node ``v`` turned into a leaf" by re-interning only the nodes on the path from
``v`` to the root (``O(depth)`` dictionary look-ups, not ``O(tree size)``): bound pruning
(Leboeuf, LeBlanc & Marchand 2020, Algorithm 3) evaluates every candidate this way.
"""

from __future__ import annotations

from treebound.theory.structures import TreeStructure, node_structures

__all__ = ["collapsed_path_structures", "collapsed_structure", "collapsed_structures",
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
    subtrees = subtree_structures(tree)
    parent = tree.parent
    if nodes is None:
        nodes = [i for i in range(len(subtrees)) if not subtrees[i].is_leaf]
    return {int(v): collapsed_structure(tree, int(v), subtrees, parent) for v in nodes}


def collapsed_path_structures(tree, subtrees: list[TreeStructure] | None = None) -> set:
    """Every canonical shape ``A'`` of an ancestor subtree of a collapsed node below the root:
    the subtrees (other than whole candidates) whose tables the first step of bound pruning's
    search may build when it brackets the candidates (:mod:`treebound.pruning.bound`), minus the
    shapes the tree already has.

    Parameters
    ----------
    tree : treebound.tree.Tree
        A binary fitted tree.
    subtrees : list of TreeStructure, optional
        ``subtree_structures(tree)``.

    Returns
    -------
    set of TreeStructure

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_leaf_nodes=6, random_state=0).fit(X, y).tree_
    >>> str(tree.structure())
    '(L,(((L,L),(L,L)),L))'
    >>> sorted(str(s) for s in collapsed_path_structures(tree))  # a stump of the pair cut
    ['(((L,L),L),L)', '((L,L),L)']
    """
    if subtrees is None:
        subtrees = subtree_structures(tree)
    fc = tree.first_child.tolist()
    parent = tree.parent.tolist()
    grown = {s.canonical() for s in subtrees}
    out = set()
    for u, first in enumerate(fc):
        if first < 0:
            continue
        t = TreeStructure._leaf
        child, p = u, parent[u]
        while p >= 0 and parent[p] >= 0:  # below the root: a whole candidate is not tabulated
            left = fc[p]
            t = TreeStructure.node(t, subtrees[left + 1]) if child == left else \
                TreeStructure.node(subtrees[left], t)
            out.add(t.canonical())
            child, p = p, parent[p]
    return out - grown
