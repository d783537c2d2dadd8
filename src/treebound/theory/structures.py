"""Binary tree *structures*: the shape of a decision tree without its rules or labels.

Every bound of :mod:`treebound.theory` depends on a tree only through its shape (Leboeuf et al.,
2020, section 3: "the number of nodes and leaves and the underlying graph are fixed"). A
:class:`TreeStructure` is immutable and *interned* (hash-consed): building the same shape twice
returns the same object, so a memo table keyed by structure (see
:class:`treebound.theory.PartitioningCache`) is shared by every tree, and by every pruning
candidate, that contains that shape.

The intern table holds weak references only: a shape that nobody uses any more is dropped, so it
is not a cache of results and never needs clearing.

The shapes of fitted trees and of their pruning candidates are in
:mod:`treebound.theory._fitted_shapes` (:func:`~treebound.theory.subtree_structures`,
:func:`~treebound.theory.collapsed_structure`).
"""

from __future__ import annotations

import itertools
import math
import weakref

from treebound._resources import check_resources
from treebound._validation import check_integer as _check_count
from treebound.theory._costs import check_parse, check_shapes
from treebound.theory.combinatorics import log_wedderburn_etherington

__all__ = ["TreeStructure", "enumerate_structures"]

# Structural hash of a leaf; node hashes mix the children's hashes (deterministic across runs).
_LEAF_HASH = 0x2545F4914F6CDD1D
_MASK = (1 << 61) - 1


class TreeStructure:
    """An immutable, interned binary tree shape.

    Build with :meth:`leaf`, :meth:`node`, :meth:`stump`, :meth:`path`, :meth:`full`,
    :meth:`parse` or :meth:`from_tree`; the direct constructor is disabled so that every shape
    is interned (identical shapes are the identical object, hence ``==`` is ``is`` and hashing
    is O(1)).

    The string form is ``'L'`` for a leaf and ``'(A,B)'`` for a node with left subtree ``A`` and
    right subtree ``B``. Every bound of Leboeuf et al. (2020) depends on a tree only through
    this shape.

    Parameters
    ----------
    *args, **kwargs
        None accepted: ``TreeStructure(...)`` raises ``TypeError`` (use the class methods
        above).

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
        """The single-leaf structure (always the same object).

        Returns
        -------
        TreeStructure
            ``'L'``: one leaf, no internal node.

        Examples
        --------
        >>> leaf = TreeStructure.leaf()
        >>> str(leaf), leaf.n_leaves, leaf.is_leaf, leaf is TreeStructure.parse("L")
        ('L', 1, True, True)
        """
        return cls._leaf

    @classmethod
    def node(cls, left: TreeStructure, right: TreeStructure) -> TreeStructure:
        """The structure with a root node whose left and right subtrees are ``left`` and ``right``.

        Parameters
        ----------
        left : TreeStructure
            Subtree of the root's first child.
        right : TreeStructure
            Subtree of the root's second child.

        Returns
        -------
        TreeStructure
            The interned ``'(left,right)'`` shape (the same object on every call).

        Examples
        --------
        >>> t = TreeStructure.node(TreeStructure.stump(), TreeStructure.leaf())
        >>> str(t), t.n_leaves, t is TreeStructure.parse("((L,L),L)")
        ('((L,L),L)', 3, True)
        """
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
        """The decision stump ``(L,L)``: one internal node, two leaves.

        Returns
        -------
        TreeStructure

        Examples
        --------
        >>> s = TreeStructure.stump()
        >>> str(s), s.n_leaves, s.is_stump
        ('(L,L)', 2, True)
        """
        return cls.node(cls._leaf, cls._leaf)

    @classmethod
    def path(cls, n_internal: int, side: str = "left") -> TreeStructure:
        """A degenerate ("path") tree with ``n_internal`` internal nodes (Yıldız 2015, Theorem 2).

        Each internal node has one leaf child; the other child continues the path on ``side``.

        Parameters
        ----------
        n_internal : int
            Number of internal nodes, ``>= 0`` (0 gives the leaf).
        side : {"left", "right"}, default="left"
            Which child continues the path.

        Returns
        -------
        TreeStructure
            A shape with ``n_internal + 1`` leaves and height ``n_internal``.

        Examples
        --------
        >>> str(TreeStructure.path(3)), str(TreeStructure.path(2, side="right"))
        ('(((L,L),L),L)', '(L,(L,L))')
        """
        n_internal = _check_count(n_internal, "n_internal", minimum=0)
        if side not in ("left", "right"):
            raise ValueError(f"side must be 'left' or 'right', got {side!r}")
        check_shapes(n_internal, f"TreeStructure.path({n_internal})")
        t = cls._leaf
        for _ in range(n_internal):
            t = cls.node(t, cls._leaf) if side == "left" else cls.node(cls._leaf, t)
        return t

    @classmethod
    def full(cls, height: int) -> TreeStructure:
        """The full (complete) binary tree of the given height (Yıldız 2015, Theorem 3).

        Parameters
        ----------
        height : int
            Number of internal levels, ``>= 0`` (0 gives the leaf).

        Returns
        -------
        TreeStructure
            A shape with ``2**height`` leaves.

        Examples
        --------
        >>> t = TreeStructure.full(2)
        >>> str(t), t.n_leaves, t.height
        ('((L,L),(L,L))', 4, 2)
        """
        height = _check_count(height, "height", minimum=0)
        t = cls._leaf
        for _ in range(height):
            t = cls.node(t, t)
        return t

    @classmethod
    def parse(cls, text: str) -> TreeStructure:
        """Parse the ``'L'`` / ``'(A,B)'`` notation (whitespace ignored); iterative, any depth.

        Parameters
        ----------
        text : str
            ``'L'`` for a leaf, ``'(A,B)'`` for a node with left subtree ``A`` and right subtree
            ``B`` (the form ``str(structure)`` writes).

        Returns
        -------
        TreeStructure
            The interned shape.

        Raises
        ------
        ValueError
            For malformed text, naming the position of the first unexpected character.

        Examples
        --------
        >>> t = TreeStructure.parse("( (L,L) , L )")
        >>> str(t), t.n_leaves
        ('((L,L),L)', 3)
        """
        if not isinstance(text, str):
            raise TypeError(f"TreeStructure.parse expects a string, got {type(text).__name__}")
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
        """The structure of a fitted binary :class:`treebound.tree.Tree`.

        Multiway categorical splits have no structure in the sense of Leboeuf et al. (2020): an
        internal node with other than two children raises ``ValueError``.

        Parameters
        ----------
        tree : treebound.tree.Tree
            A fitted tree (``model.tree_``) whose internal nodes all have two children.

        Returns
        -------
        TreeStructure
            The shape of the whole tree (``model.structure()`` returns the same).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> tree = DecisionTreeClassifier(max_depth=2).fit(X, y).tree_
        >>> str(TreeStructure.from_tree(tree))  # setosa is one leaf: the root's left child
        '(L,(L,L))'
        """
        return node_structures(tree.first_child, tree.n_children)[0]

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
        """The representative of this shape up to swapping children (every bound is swap-invariant).

        Children are ordered larger first: by number of leaves, then height, then string form. The
        caches of :mod:`treebound.theory` key on this form, so mirrored shapes share their tables.

        Returns
        -------
        TreeStructure
            The canonical shape (``self`` when already canonical).

        Examples
        --------
        >>> str(TreeStructure.parse("(L,(L,L))").canonical())
        '((L,L),L)'
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

        Only the nodes on the path are rebuilt (``O(depth)``): the shape of a pruning candidate.

        Parameters
        ----------
        path : sequence of {0, 1, "l", "r", "left", "right"}
            Moves from the root: ``0``/``'l'`` goes to the left child, ``1``/``'r'`` to the right.

        Returns
        -------
        TreeStructure

        Examples
        --------
        >>> t = TreeStructure.parse("((L,L),(L,L))")
        >>> str(t.with_leaf_at("r")), str(t.with_leaf_at([])), str(t.with_leaf_at([0]))
        ('((L,L),L)', 'L', '(L,(L,L))')
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
        """Distinct sub-structures (including this one), children before parents.

        Returns
        -------
        list of TreeStructure
            Each distinct shape once, in post-order (iterative: any depth).

        Examples
        --------
        >>> [str(s) for s in TreeStructure.parse("((L,L),(L,L))").subtrees()]
        ['L', '(L,L)', '((L,L),(L,L))']
        """
        return list(self._postorder())

    def _postorder(self, done=None):
        """Distinct sub-structures in post-order (children first), without recursion; with
        ``done``, those with ``done(t)`` false only (a done subtree is not entered: the shapes
        whose tables a computation still has to build)."""
        seen = set()
        out = []
        stack = [(self, False)]
        while stack:
            t, expanded = stack.pop()
            if t._uid in seen or (done is not None and done(t)):
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


def enumerate_structures(n_leaves: int) -> list[TreeStructure]:
    """All shapes with ``n_leaves`` leaves up to swapping children (canonical representatives).

    Their number is the Wedderburn-Etherington number ``WE(n_leaves)``
    (:func:`~treebound.theory.wedderburn_etherington`); Figure 3 of Leboeuf et al. (2020) lists
    the shapes up to 5 leaves.

    Parameters
    ----------
    n_leaves : int
        ``>= 1``.

    Returns
    -------
    list of TreeStructure
        Canonical shapes, each once.

    Raises
    ------
    treebound.ResourceLimitError
        When the shapes would not fit the current :func:`treebound.resource_limits`.

    Examples
    --------
    >>> [str(t) for t in enumerate_structures(4)]
    ['(((L,L),L),L)', '((L,L),(L,L))']
    >>> len(enumerate_structures(11))
    207
    """
    n_leaves = _check_count(n_leaves, "n_leaves", minimum=1)
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
        return log_wedderburn_etherington(n_leaves)
    return (math.log(0.3187766258717) + n_leaves * math.log(2.4832535361726)
            - 1.5 * math.log(n_leaves))


def node_structures(first_child, n_children) -> list[TreeStructure]:
    """The structure rooted at every node of a flat binary tree (``first_child``, ``-1`` at a
    leaf, and ``n_children`` as :class:`~treebound.tree.Tree` stores them; children after their
    parent): one pass in decreasing node id. Other than two children raise ``ValueError``."""
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
            raise ValueError(f"node {i} has {nc[i]} children: tree structures (and the "
                             "partitioning bounds) are defined for binary trees only")
        if c <= i or c + 1 >= n:
            raise ValueError(f"node {i} has children {c}..{c + 1} outside ({i}, {n - 1}]")
        out[i] = TreeStructure.node(out[c], out[c + 1])
    return out
