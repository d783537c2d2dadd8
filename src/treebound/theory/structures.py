"""Binary tree *structures*: the shape of a decision tree without its rules or labels.

Every bound of :mod:`treebound.theory` depends on a tree only through its shape (Leboeuf et al.,
2020, section 3: "the number of nodes and leaves and the underlying graph are fixed"). A
:class:`TreeStructure` is immutable and *interned* (hash-consed): building the same shape twice
returns the same object, so a memo table keyed by structure (see
:class:`treebound.theory.PartitioningCache`) is shared by every tree, and by every pruning
candidate, that contains that shape.

The intern table holds weak references only: a shape that nobody uses any more is dropped, so it
is not a cache of results and never needs clearing.

Pruning support: :func:`subtree_structures` gives the structure rooted at every node of a fitted
:class:`~treebound.tree._storage.Tree` in one pass, and :func:`collapsed_structure` builds the
structure of "the tree with node ``v`` turned into a leaf" by re-interning only the nodes on the
path from ``v`` to the root (``O(depth)`` dictionary look-ups, not ``O(tree size)``).
"""

from __future__ import annotations

import itertools
import math
import weakref

from treebound._validation import check_integer as _check_count

__all__ = [
    "TreeStructure",
    "collapsed_structure",
    "collapsed_structures",
    "enumerate_structures",
    "subtree_structures",
]

# Structural hash of a leaf; node hashes mix the children's hashes (deterministic across runs).
_LEAF_HASH = 0x2545F4914F6CDD1D
_MASK = (1 << 61) - 1


class TreeStructure:
    """An immutable, interned binary tree shape.

    Build with :meth:`leaf`, :meth:`node`, :meth:`parse` or :meth:`from_tree`; the direct
    constructor is disabled so that every shape is interned (identical shapes are the identical
    object, hence ``==`` is ``is`` and hashing is O(1)).

    The string form is ``'L'`` for a leaf and ``'(A,B)'`` for a node with left subtree ``A`` and
    right subtree ``B``.

    Examples
    --------
    >>> t = TreeStructure.parse("((L,L),L)")
    >>> t.n_leaves, t.n_internal, t.height
    (3, 2, 2)
    >>> str(t.left), t.right.is_leaf
    ('(L,L)', True)
    >>> TreeStructure.node(TreeStructure.stump(), TreeStructure.leaf()) is t
    True
    """

    __slots__ = ("_left", "_right", "_n_leaves", "_height", "_hash", "_uid", "_canonical",
                 "__weakref__")

    _intern: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
    _uids = itertools.count(1)
    _leaf: TreeStructure

    def __new__(cls, *args, **kwargs):
        raise TypeError(
            "TreeStructure is interned: use TreeStructure.leaf(), .node(left, right), "
            ".parse(text) or .from_tree(tree)"
        )

    # ------------------------------------------------------------ constructors
    @classmethod
    def _make(cls, left, right, n_leaves, height, hash_, uid) -> TreeStructure:
        obj = object.__new__(cls)
        object.__setattr__(obj, "_left", left)
        object.__setattr__(obj, "_right", right)
        object.__setattr__(obj, "_n_leaves", n_leaves)
        object.__setattr__(obj, "_height", height)
        object.__setattr__(obj, "_hash", hash_)
        object.__setattr__(obj, "_uid", uid)
        object.__setattr__(obj, "_canonical", None)
        return obj

    @classmethod
    def leaf(cls) -> TreeStructure:
        """The single-leaf structure (always the same object)."""
        return cls._leaf

    @classmethod
    def node(cls, left: TreeStructure, right: TreeStructure) -> TreeStructure:
        """The structure with a root node whose left and right subtrees are ``left``, ``right``."""
        if not isinstance(left, TreeStructure) or not isinstance(right, TreeStructure):
            raise TypeError(
                "TreeStructure.node expects two TreeStructure children, got "
                f"{type(left).__name__} and {type(right).__name__}"
            )
        key = (left._uid, right._uid)
        found = cls._intern.get(key)
        if found is not None:
            return found
        hash_ = (left._hash * 0x9E3779B97F4A7C15 + right._hash * 0xC2B2AE3D27D4EB4F + 0x165667B1) & _MASK
        obj = cls._make(left, right, left._n_leaves + right._n_leaves,
                        1 + max(left._height, right._height), hash_, next(cls._uids))
        cls._intern[key] = obj
        return obj

    @classmethod
    def stump(cls) -> TreeStructure:
        """The decision stump ``(L,L)``: one internal node, two leaves."""
        return cls.node(cls._leaf, cls._leaf)

    @classmethod
    def path(cls, n_internal: int, side: str = "left") -> TreeStructure:
        """A degenerate ("path", Yıldız 2015 Theorem 2) tree with ``n_internal`` internal nodes.

        Each internal node has one leaf child; the other child continues the path on ``side``
        (``"left"`` or ``"right"``).
        """
        n_internal = _check_count(n_internal, "n_internal", minimum=0)
        if side not in ("left", "right"):
            raise ValueError(f"side must be 'left' or 'right', got {side!r}")
        from treebound.theory._costs import check_shapes

        check_shapes(n_internal, f"TreeStructure.path({n_internal})")
        t = cls._leaf
        for _ in range(n_internal):
            t = cls.node(t, cls._leaf) if side == "left" else cls.node(cls._leaf, t)
        return t

    @classmethod
    def full(cls, height: int) -> TreeStructure:
        """The full (complete) binary tree of the given height (``2**height`` leaves)."""
        height = _check_count(height, "height", minimum=0)
        t = cls._leaf
        for _ in range(height):
            t = cls.node(t, t)
        return t

    @classmethod
    def parse(cls, text: str) -> TreeStructure:
        """Parse ``'L'`` / ``'(A,B)'`` notation (whitespace ignored); iterative, any depth."""
        if not isinstance(text, str):
            raise TypeError(f"TreeStructure.parse expects a string, got {type(text).__name__}")
        from treebound.theory._costs import check_parse

        check_parse(len(text))
        if not text or text.isspace():
            raise ValueError("cannot parse an empty tree structure")
        values: list[TreeStructure] = []
        # Each open node counts how many children it has parsed (0 -> expect ',' next, 1 -> ')').
        opened: list[int] = []
        expect_tree = True
        for pos, ch in enumerate(text):
            if ch.isspace():
                continue
            if expect_tree:
                if ch == "L":
                    values.append(cls._leaf)
                    expect_tree = False
                elif ch == "(":
                    opened.append(0)
                else:
                    raise ValueError(f"unexpected {ch!r} at position {pos} in {text!r}: expected 'L' or '('")
            else:
                if not opened:
                    raise ValueError(f"unexpected {ch!r} at position {pos} in {text!r}: structure already complete")
                if ch == "," and opened[-1] == 0:
                    opened[-1] = 1
                    expect_tree = True
                elif ch == ")" and opened[-1] == 1:
                    opened.pop()
                    right = values.pop()
                    left = values.pop()
                    values.append(cls.node(left, right))
                else:
                    want = "','" if opened[-1] == 0 else "')'"
                    raise ValueError(f"unexpected {ch!r} at position {pos} in {text!r}: expected {want}")
        if expect_tree or opened:
            raise ValueError(f"incomplete tree structure {text!r}")
        return values[0]

    @classmethod
    def from_tree(cls, tree) -> TreeStructure:
        """The structure of a fitted :class:`treebound.tree._storage.Tree` (binary trees only).

        Raises ``ValueError`` if an internal node does not have exactly two children (multiway
        categorical splits have no structure in the sense of Leboeuf et al.).
        """
        return subtree_structures(tree)[0]

    # ------------------------------------------------------------- properties
    @property
    def is_leaf(self) -> bool:
        return self._left is None

    @property
    def is_stump(self) -> bool:
        return self._n_leaves == 2

    @property
    def left(self) -> TreeStructure | None:
        """Left subtree (``None`` for a leaf)."""
        return self._left

    @property
    def right(self) -> TreeStructure | None:
        """Right subtree (``None`` for a leaf)."""
        return self._right

    @property
    def n_leaves(self) -> int:
        return self._n_leaves

    @property
    def n_internal(self) -> int:
        """Number of internal nodes (the paper's "nodes"), ``n_leaves - 1``."""
        return self._n_leaves - 1

    @property
    def n_nodes(self) -> int:
        """Number of nodes, leaves included (``2 * n_leaves - 1``), as ``Tree.n_nodes`` counts."""
        return 2 * self._n_leaves - 1

    @property
    def height(self) -> int:
        """Number of internal nodes on the longest root-to-leaf path (a leaf has height 0)."""
        return self._height

    # ------------------------------------------------------------ operations
    def canonical(self) -> TreeStructure:
        """The representative of this shape up to swapping children (bounds are swap-invariant).

        Children are ordered larger first: by number of leaves, then height, then string form.
        """
        if self._canonical is not None:
            return self._canonical
        # Iterative post-order over the nodes not canonicalized yet (a pruning candidate only has
        # new nodes on one root path), so deep structures never hit the recursion limit.
        stack = [(self, False)]
        while stack:
            t, expanded = stack.pop()
            if t._canonical is not None:
                continue
            if not expanded:
                stack.append((t, True))
                stack.append((t._right, False))
                stack.append((t._left, False))
                continue
            a, b = t._left._canonical, t._right._canonical
            if _comes_before(a, b):
                a, b = b, a
            object.__setattr__(t, "_canonical", TreeStructure.node(a, b))
        return self._canonical

    def with_leaf_at(self, path) -> TreeStructure:
        """This structure with the subtree reached by ``path`` replaced by a leaf.

        ``path`` is a sequence of ``0``/``'l'`` (go left) and ``1``/``'r'`` (go right) moves from
        the root. Only the nodes on the path are rebuilt.
        """
        stack = []
        t = self
        for step in path:
            if t._left is None:
                raise ValueError(f"path {path!r} goes below a leaf of {self}")
            if step in (0, "l", "L", "left"):
                stack.append((t, 0))
                t = t._left
            elif step in (1, "r", "R", "right"):
                stack.append((t, 1))
                t = t._right
            else:
                raise ValueError(f"path steps must be 0/'l' or 1/'r', got {step!r}")
        t = TreeStructure._leaf
        for parent, side in reversed(stack):
            t = TreeStructure.node(t, parent._right) if side == 0 else TreeStructure.node(parent._left, t)
        return t

    def subtrees(self) -> list[TreeStructure]:
        """Distinct sub-structures (including this one), children before parents."""
        return list(self._postorder())

    def _postorder(self):
        """Distinct sub-structures in post-order (children first), without recursion."""
        seen = set()
        out = []
        stack = [(self, False)]
        while stack:
            t, expanded = stack.pop()
            if t._uid in seen:
                continue
            if expanded or t._left is None:
                seen.add(t._uid)
                out.append(t)
            else:
                stack.append((t, True))
                stack.append((t._right, False))
                stack.append((t._left, False))
        return out

    # --------------------------------------------------------------- dunders
    def __setattr__(self, name, value):
        raise AttributeError("TreeStructure is immutable")

    def __delattr__(self, name):
        raise AttributeError("TreeStructure is immutable")

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        # Interning makes identical shapes the identical object.
        return self is other

    def __reduce__(self):
        return (TreeStructure.parse, (str(self),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __str__(self) -> str:
        from treebound._resources import check_resources

        # 4 L - 3 characters, built from one list entry per character
        check_resources(f"the text of a {self._n_leaves}-leaf tree structure",
                        memory=68.0 * (4 * self._n_leaves - 3),
                        seconds=2e-7 * (4 * self._n_leaves - 3))
        return "".join(self._characters())

    def _characters(self):
        """The characters of :meth:`__str__`, lazily (preorder, without recursion)."""
        stack: list = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                yield item
            elif item._left is None:
                yield "L"
            else:
                stack.extend((")", item._right, ",", item._left))
                yield "("

    def __repr__(self) -> str:
        text = "".join(itertools.islice(self._characters(), 78))
        if len(text) > 77:
            text = text[:77] + "..."
        return f"TreeStructure({text!r})"


def _comes_before(a: TreeStructure, b: TreeStructure) -> bool:
    """Strict order used by :meth:`TreeStructure.canonical` (strings only compared on ties)."""
    if (a._n_leaves, a._height) != (b._n_leaves, b._height):
        return (a._n_leaves, a._height) < (b._n_leaves, b._height)
    return a is not b and str(a) < str(b)




TreeStructure._leaf = TreeStructure._make(None, None, 1, 0, _LEAF_HASH, 0)
object.__setattr__(TreeStructure._leaf, "_canonical", TreeStructure._leaf)


# ------------------------------------------------------------------ fitted trees
def subtree_structures(tree) -> list[TreeStructure]:
    """Structure of the subtree rooted at every node of a fitted ``Tree`` (index = node id).

    One pass over the nodes in decreasing id order (children always have larger ids than their
    parent in :class:`~treebound.tree._storage.Tree`). Raises ``ValueError`` for multiway nodes.
    """
    first_child = tree.first_child
    n_children = tree.n_children
    n = int(first_child.shape[0])
    if n == 0:
        raise ValueError("tree has no nodes")
    leaf = TreeStructure._leaf
    out: list = [None] * n
    fc = first_child.tolist()
    nc = n_children.tolist()
    for i in range(n - 1, -1, -1):
        c = fc[i]
        if c < 0:
            out[i] = leaf
            continue
        if nc[i] != 2:
            raise ValueError(
                f"node {i} has {nc[i]} children: tree structures (and the partitioning bounds) "
                "are defined for binary trees only"
            )
        if c <= i or c + 1 >= n:
            raise ValueError(f"node {i} has children {c}..{c + 1} outside ({i}, {n - 1}]")
        out[i] = TreeStructure.node(out[c], out[c + 1])
    return out


def collapsed_structure(tree, node: int, subtrees: list[TreeStructure] | None = None,
                        parent=None) -> TreeStructure:
    """Structure of ``tree`` with ``node`` turned into a leaf, rebuilt along one root path.

    Parameters
    ----------
    tree : treebound.tree._storage.Tree
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
        Only the ``depth(node)`` ancestors are re-interned: cost ``O(depth)``.
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
    """``{node: collapsed_structure(tree, node)}`` for every internal node (or the given ones)."""
    subtrees = subtree_structures(tree)
    parent = tree.parent
    if nodes is None:
        nodes = [i for i in range(len(subtrees)) if not subtrees[i].is_leaf]
    return {int(v): collapsed_structure(tree, int(v), subtrees, parent) for v in nodes}


def enumerate_structures(n_leaves: int) -> list[TreeStructure]:
    """All shapes with ``n_leaves`` leaves up to swapping children (canonical representatives).

    Their number is the Wedderburn–Etherington number ``WE(n_leaves)``.

    Examples
    --------
    >>> [str(t) for t in enumerate_structures(4)]
    ['(((L,L),L),L)', '((L,L),(L,L))']
    """
    n_leaves = _check_count(n_leaves, "n_leaves", minimum=1)
    from treebound.theory._costs import check_shapes

    # Every shape of every size up to n_leaves is built and kept: sum_k WE(k) < 1.7 WE(n).
    log_count = math.log(1.7) + _log_shape_count(n_leaves)
    check_shapes(math.exp(min(log_count, 700.0)),
                 f"enumerate_structures({n_leaves}) (about {math.exp(min(log_count, 700.0)):.3g} "
                 "shapes)")
    by_size: list[list[TreeStructure]] = [[], [TreeStructure._leaf]]
    for n in range(2, n_leaves + 1):
        shapes = []
        for small in range(1, n // 2 + 1):
            big = n - small
            for i, a in enumerate(by_size[big]):
                choices = by_size[small] if small != big else by_size[small][: i + 1]
                for b in choices:
                    shapes.append(TreeStructure.node(a, b).canonical())
        by_size.append(shapes)
    return by_size[n_leaves]


def _log_shape_count(n_leaves: int) -> float:
    """``ln WE(n)``: exact up to 1,000 leaves, the asymptotic ``0.3188 n^-1.5 2.4833^n`` beyond
    (Otter 1948; within a fraction of a percent there)."""
    if n_leaves <= 1000:
        from treebound.theory.combinatorics import log_wedderburn_etherington

        return log_wedderburn_etherington(n_leaves)
    return (math.log(0.3187766258717) + n_leaves * math.log(2.4832535361726)
            - 1.5 * math.log(n_leaves))
