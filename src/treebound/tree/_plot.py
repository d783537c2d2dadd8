"""Drawing a fitted tree with matplotlib (imported lazily), as scikit-learn's ``plot_tree``.

Every box holds scikit-learn's text (:func:`~treebound.tree._sklearn_text.node_label`); the
layout is treebound's: leaves spread evenly left to right, every internal node above the middle
of its children, without recursion, and cut to a readable depth for big trees.
"""

from __future__ import annotations

import warnings

import numpy as np

from treebound._flat._sklearn_view import as_flat
from treebound._resources import check_resources
from treebound._validation import Interval, Options, external_stacklevel, validate_parameters
from treebound.tree._export import _child_conditions, _view
from treebound.tree._sklearn_text import node_label, resolve_names, sklearn_values

_PLOT_CONSTRAINTS = {"label": [Options(("all", "root", "none"))],
                     "precision": [Interval(int, 0, None)]}

#: With ``max_depth="auto"``, trees with more leaves than this are drawn down to the deepest
#: level that fits in this many columns (deeper subtrees are drawn as "...").
DEFAULT_MAX_LEAVES = 64
#: Largest figure drawn (inches, each direction) when plot_tree creates the figure.
MAX_FIGURE_INCHES = 120.0


def _layout(tree, max_depth: int | None):
    """x (leaf order) and y (depth) of every drawn node; nodes below max_depth are cut.

    Iterative: a tree of any depth is laid out without recursion.
    """
    x = np.full(tree.n_nodes, np.nan)
    depth = tree.node_depth
    drawn = np.zeros(tree.n_nodes, dtype=bool)
    next_leaf = 0.0
    first_child, n_children = tree.first_child, tree.n_children
    stack = [(0, False)]
    while stack:
        node, done = stack.pop()
        if done:
            start = first_child[node]
            x[node] = float(np.mean(x[start : start + n_children[node]]))
            continue
        drawn[node] = True
        if first_child[node] < 0 or (max_depth is not None and depth[node] >= max_depth):
            x[node] = next_leaf
            next_leaf += 1.0
            continue
        stack.append((node, True))
        start = int(first_child[node])
        stack.extend((c, False) for c in range(start + int(n_children[node]) - 1, start - 1, -1))
    return x, depth, drawn


def auto_max_depth(tree, max_leaves: int = DEFAULT_MAX_LEAVES) -> int | None:
    """The deepest level whose drawing has at most ``max_leaves`` columns (``None``: the whole
    tree fits). A column is a leaf above that level or a node at that level."""
    tree = as_flat(tree)
    if tree.n_leaves <= max_leaves:
        return None
    depth = tree.node_depth
    leaf_depths = np.bincount(depth[tree.first_child < 0], minlength=int(depth.max()) + 1)
    per_level = np.bincount(depth, minlength=int(depth.max()) + 1)
    leaves_above = np.concatenate(([0], np.cumsum(leaf_depths)[:-1]))
    columns = leaves_above + per_level  # columns when cut at each level
    fits = np.flatnonzero(columns <= max_leaves)
    return int(fits[-1]) if fits.size else 0


def _resolve_max_depth(tree, max_depth, max_leaves):
    """The level at which the drawing stops (its nodes are drawn as ``(...)``), or None."""
    if isinstance(max_leaves, bool) or not isinstance(max_leaves, int | np.integer) or \
            max_leaves < 1:
        raise ValueError(f"max_leaves must be a positive integer, got {max_leaves!r}")
    if isinstance(max_depth, str):
        if max_depth != "auto":
            raise ValueError(f"max_depth must be an integer, 'auto' or None, got {max_depth!r}")
        cut = auto_max_depth(tree, int(max_leaves))
        return None if cut is None else max(cut, 1)
    if max_depth is not None and (isinstance(max_depth, bool) or
                                  not isinstance(max_depth, int | np.integer) or max_depth < 0):
        raise ValueError(f"max_depth must be a non-negative integer, 'auto' or None, got "
                         f"{max_depth!r}")
    # scikit-learn's max_depth: levels 0..max_depth drawn in full, the next one as "(...)"
    return None if max_depth is None else int(max_depth) + 1


def _figure_inches(n_columns: int, n_levels: int) -> tuple[float, float]:
    return (min(MAX_FIGURE_INCHES, max(4.0, 1.9 * n_columns)),
            min(MAX_FIGURE_INCHES, max(2.5, 1.5 * n_levels)))


def _check_drawing(drawn) -> None:
    n_drawn = int(np.count_nonzero(drawn))
    # matplotlib: about 12 ms and tens of kilobytes per drawn node (box, edges, labels, and
    # rendering them), measured on a 2-core Xeon
    check_resources(f"plot_tree of {n_drawn} nodes (pass a smaller max_depth)",
                    memory=60e3 * n_drawn, seconds=12e-3 * n_drawn)


def tree_figure_inches(model, max_depth="auto", max_leaves: int = DEFAULT_MAX_LEAVES):
    """Width and height (inches) of the figure :func:`plot_tree` creates for ``model`` with
    these options, without drawing anything (to check an image size before drawing)."""
    tree = _view(model).tree
    x, depth, drawn = _layout(tree, _resolve_max_depth(tree, max_depth, max_leaves))
    return _figure_inches(int(np.nanmax(x)) + 1, int(depth[drawn].max()) + 1)


def _short(text: str, width: int = 28) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def color_brew(n: int) -> list[list[int]]:
    """scikit-learn's ``n`` colours of equally spaced hues (its ``filled`` palette)."""
    colors = []
    s, v = 0.75, 0.9
    c = s * v
    m = v - c
    for h in np.arange(25, 385, 360.0 / n).astype(int):
        h_bar = h / 60.0
        x = c * (1 - abs((h_bar % 2) - 1))
        rgb = [(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x), (c, x, 0)]
        r, g, b = rgb[int(h_bar)]
        colors.append([int(255 * (r + m)), int(255 * (g + m)), int(255 * (b + m))])
    return colors


class _Filler:
    """scikit-learn's fill colour of a node: the majority class, as strong as it leads
    (classification), the value between the extreme ones (regression), or the purity
    (multi-output)."""

    def __init__(self, tree, values: np.ndarray):
        self.values = values
        self.impurity = tree.impurity
        n_classes = 1 if tree.task == "regression" else values.shape[2]
        self.rgb = color_brew(n_classes)
        self.bounds = None
        if values.shape[1] != 1:
            self.bounds = (-np.max(tree.impurity), -np.min(tree.impurity))
        elif n_classes == 1 and len(np.unique(values)) != 1:
            self.bounds = (np.min(values), np.max(values))
        self.regression = n_classes == 1

    def __call__(self, node: int) -> str:
        if self.values.shape[1] == 1:
            value = self.values[node][0, :]
            if self.regression and self.bounds is not None:
                value = value.item()
        else:
            value = -self.impurity[node]
        if self.bounds is None:
            color = list(self.rgb[int(np.argmax(value))])
            ranked = sorted(value, reverse=True)
            alpha = 0.0 if len(ranked) == 1 else (ranked[0] - ranked[1]) / (1 - ranked[1])
        else:
            color = list(self.rgb[0])
            alpha = (value - self.bounds[0]) / (self.bounds[1] - self.bounds[0])
        color = [int(round(alpha * c + (1 - alpha) * 255, 0)) for c in color]
        return "#" + "".join(f"{c:02x}" for c in color)


def _edge_label(view, node: int, slot: int) -> tuple[str, str] | None:
    """Text and alignment on the edge to the ``slot``-th child: ``True``/``False`` under the
    root's binary test (as scikit-learn), the levels of every child of a multiway test."""
    tree = view.tree
    if tree.n_children[node] == 2:
        if node != 0:
            return None
        return ("True  ", "right") if slot == 0 else ("  False", "left")
    cond = _child_conditions(view, node)[slot]
    return _short(", ".join("<missing>" if v is None else str(v) for v in cond.value), 22), \
        "center"


def plot_tree(decision_tree, ax=None, *, max_depth: int | str | None = "auto",
              feature_names=None, class_names=None, label: str = "all", filled: bool = False,
              impurity: bool = True, node_ids: bool = False, proportion: bool = False,
              rounded: bool = False, precision: int = 3, fontsize: float | None = None,
              max_leaves: int = DEFAULT_MAX_LEAVES, show_counts=None, show_missing="auto"):
    """Draw a tree with matplotlib: scikit-learn's ``plot_tree``, for treebound's trees.

    Every box holds what scikit-learn writes in it (the test, the impurity, the rows, the
    value, the class; the same options choose), the root's edges read ``True``/``False``, and
    nodes below ``max_depth`` are grey ``(...)`` boxes. A categorical test writes its first
    child's levels (``color in {red, blue}``); a multiway test writes the feature's name and
    the levels on each edge. Unlike scikit-learn's, the layout needs no recursion (any depth),
    ``max_depth="auto"`` keeps a big tree readable, the figure is sized to the tree when ``ax``
    is omitted, and the Axes are returned.

    Parameters
    ----------
    decision_tree : fitted estimator or Tree
        A fitted treebound estimator or a bare :class:`~treebound.tree.Tree`.
    ax : matplotlib Axes, optional
        Drawn into a new figure sized to the tree when omitted.
    max_depth : int, "auto" or None, default="auto"
        Levels drawn in full below the root, as in scikit-learn (the next level is drawn as
        ``(...)``). ``"auto"``: the whole tree when it has at most ``max_leaves`` leaves, else
        the deepest level that fits in ``max_leaves`` columns. ``None``: every level, however
        big (the figure is capped at ``MAX_FIGURE_INCHES`` inches a side).
    feature_names : array-like of str, optional
        By default those ``X`` had in ``fit``, else scikit-learn's ``x[0]``, ``x[1]``...
    class_names : array-like or True, optional
        Names of the classes (``True``: ``y[0]``, ``y[1]``...); the class line is written only
        when given, as in scikit-learn.
    label : {"all", "root", "none"}, default="all"
        Where the lines are named (``gini = ``, ``samples = ``...).
    filled : bool, default=False
        Paint nodes by majority class (classification) or value (regression).
    impurity : bool, default=True
        Write the impurity.
    node_ids : bool, default=False
        Write the node's id (treebound's numbering, breadth-first).
    proportion : bool, default=False
        Samples as a percentage of the root's and values as fractions.
    rounded : bool, default=False
        Rounded boxes.
    precision : int, default=3
        Digits of thresholds, impurities and values.
    fontsize : float, optional
        Text size; by default it shrinks with the number of columns.
    max_leaves : int, default=64
        Columns of the drawing under ``max_depth="auto"``.
    show_counts : bool, optional
        Deprecated and without effect (the boxes hold scikit-learn's content; ``label`` and
        ``impurity`` choose it); removed in the next release.
    show_missing : bool or "auto", default="auto"
        Write under a numeric test which child a missing value (NaN) takes (``missing:
        left``). ``"auto"``: when the tree was fitted on rows with missing values (its routing
        of them is not everywhere the default, the child with more training rows).

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn into (scikit-learn returns the list of its annotations: ``ax.texts``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier, plot_tree
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> ax = plot_tree(DecisionTreeClassifier(max_depth=2).fit(X, y), filled=True)
    >>> print(ax.texts[0].get_text())
    petal length (cm) <= 2.45
    gini = 0.667
    samples = 150
    value = [50, 50, 50]
    """
    # matplotlib (~0.5 s to import) only when a figure is drawn
    import matplotlib.pyplot as plt

    if show_counts is not None:
        warnings.warn("plot_tree's show_counts has no effect any more (the boxes hold "
                      "scikit-learn's content: choose it with label= and impurity=); it will be "
                      "removed in the next release", FutureWarning,
                      stacklevel=external_stacklevel())
    validate_parameters("plot_tree", {"label": label, "precision": precision},
                        _PLOT_CONSTRAINTS)
    view = resolve_names(decision_tree, feature_names, class_names, "x[{}]", "plot_tree",
                         show_missing)
    tree = view.tree
    values = sklearn_values(decision_tree, tree)
    criterion = getattr(decision_tree, "criterion", "impurity")
    cut = _resolve_max_depth(tree, max_depth, max_leaves)
    x, depth, drawn = _layout(tree, cut)
    _check_drawing(drawn)
    n_columns = int(np.nanmax(x)) + 1
    n_levels = int(depth[drawn].max()) + 1
    if ax is None:
        _, ax = plt.subplots(figsize=_figure_inches(n_columns, n_levels))
    if fontsize is None:
        fontsize = max(5.0, min(10.0, 120.0 / max(n_columns, 1)))
    fill = _Filler(tree, values) if filled else None
    box = {"boxstyle": "round" if rounded else "square"}
    arrow = {"arrowstyle": "<-", "edgecolor": plt.rcParams["text.color"]}
    for node in np.flatnonzero(drawn):
        parent = int(tree.parent[node]) if node else -1
        spot = (x[node], -depth[node])
        where = {} if parent < 0 else {"xy": (x[parent], -depth[parent]), "xytext": spot,
                                       "arrowprops": arrow}
        where.setdefault("xy", spot)
        if cut is not None and depth[node] >= cut:
            text, face = "\n  (...)  \n", "grey"
        else:
            text = node_label(view, values, node, criterion,
                              labels=label == "all" or (label == "root" and node == 0),
                              class_names=True if class_names is True else (
                                  view.classes if class_names is not None else None),
                              impurity=impurity, node_ids=node_ids, proportion=proportion,
                              precision=precision)
            face = fill(node) if fill is not None else ax.get_facecolor()
        ax.annotate(text, ha="center", va="center", fontsize=fontsize,
                    zorder=100 - 10 * int(depth[node]), bbox={**box, "fc": face}, **where)
        if parent >= 0:
            slot = int(node - tree.first_child[parent])
            edge = _edge_label(view, parent, slot)
            if edge is not None:
                ax.text((x[parent] + x[node]) / 2, -(depth[parent] + depth[node]) / 2, edge[0],
                        ha=edge[1], va="center", fontsize=fontsize * 0.85)
    ax.set_xlim(-0.7, n_columns - 0.3)
    ax.set_ylim(-(n_levels - 1) - 0.6, 0.6)
    ax.axis("off")
    return ax
