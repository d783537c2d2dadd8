"""Drawing a fitted tree with matplotlib (imported lazily).

Internal nodes show their test and sample count; edges carry the outcome (``yes``/``no`` for a
threshold, the category set for a categorical test); leaves show the prediction and the class
counts. Leaves are spread evenly left to right and every internal node sits above the middle of
its children, so the picture stays readable for trees of a few dozen leaves.
"""

from __future__ import annotations

import numpy as np

from treebound._flat._sklearn_view import as_flat
from treebound._resources import check_resources
from treebound.tree._export import _child_conditions, _fmt_number, _view

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
    if isinstance(max_leaves, bool) or not isinstance(max_leaves, int | np.integer) or \
            max_leaves < 1:
        raise ValueError(f"max_leaves must be a positive integer, got {max_leaves!r}")
    if isinstance(max_depth, str):
        if max_depth != "auto":
            raise ValueError(f"max_depth must be an integer, 'auto' or None, got {max_depth!r}")
        return auto_max_depth(tree, int(max_leaves))
    if max_depth is not None and (isinstance(max_depth, bool) or
                                  not isinstance(max_depth, int | np.integer) or max_depth < 0):
        raise ValueError(f"max_depth must be a non-negative integer, 'auto' or None, got "
                         f"{max_depth!r}")
    return max_depth


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


def plot_tree(model, ax=None, *, max_depth: int | str | None = "auto",
              max_leaves: int = DEFAULT_MAX_LEAVES, feature_names=None,
              class_names=None, fontsize: float | None = None, show_counts: bool = True):
    """Draw a fitted treebound estimator (or a bare :class:`~treebound.tree.Tree`).

    Parameters
    ----------
    model : fitted estimator or Tree
    ax : matplotlib Axes, optional
        Drawn into a new figure sized to the tree when omitted.
    max_depth : int, "auto" or None, default="auto"
        Draw only this many levels (deeper subtrees are shown as "..."). ``"auto"``: the whole
        tree when it has at most ``max_leaves`` leaves, else the deepest level that fits in
        ``max_leaves`` columns. ``None``: every level, however big (the figure is capped at
        ``MAX_FIGURE_INCHES`` inches a side; text may then overlap).
    max_leaves : int, default=64
        Columns of the drawing under ``max_depth="auto"``.
    feature_names, class_names : list of str, optional
        Override the names stored in the model.
    fontsize : float, optional
        Text size; by default it shrinks with the number of leaves.
    show_counts : bool
        Show class counts (classification) or sample counts (regression) at the leaves.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier, plot_tree
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> ax = plot_tree(DecisionTreeClassifier(max_depth=2).fit(X, y))
    >>> len(ax.texts) > 3
    True
    """
    # matplotlib (~0.5 s to import) only when a figure is drawn
    import matplotlib.pyplot as plt

    view = _view(model, feature_names, class_names)
    tree = view.tree
    max_depth = _resolve_max_depth(tree, max_depth, max_leaves)
    x, depth, drawn = _layout(tree, max_depth)
    _check_drawing(drawn)
    n_columns = int(np.nanmax(x)) + 1
    n_levels = int(depth[drawn].max()) + 1
    if ax is None:
        _, ax = plt.subplots(figsize=_figure_inches(n_columns, n_levels))
    if fontsize is None:
        fontsize = max(5.0, min(10.0, 120.0 / max(n_columns, 1)))
    box = dict(boxstyle="round,pad=0.35", linewidth=0.8)
    for node in np.flatnonzero(drawn):
        cut = max_depth is not None and depth[node] >= max_depth and tree.first_child[node] >= 0
        if tree.first_child[node] >= 0 and not cut:
            conds = _child_conditions(view, node)
            first = conds[0]
            if first.op == "<=":
                label = f"{_short(first.feature)} <= {_fmt_number(first.value)}"
            else:
                label = f"{_short(first.feature)}?"
            label += f"\nn = {int(tree.n_node_samples[node])}"
            ax.text(x[node], -depth[node], label, ha="center", va="center", fontsize=fontsize,
                    bbox={**box, "facecolor": "#eef3fb", "edgecolor": "#4a6fa5"})
            for slot, child in enumerate(tree.children(node)):
                child = int(child)
                ax.annotate("", xy=(x[child], -depth[child] + 0.18),
                            xytext=(x[node], -depth[node] - 0.18),
                            arrowprops=dict(arrowstyle="-", color="#888888", linewidth=0.8))
                cond = conds[slot]
                if cond.op == "<=":
                    edge = "yes"
                elif cond.op == ">":
                    edge = "no"
                else:
                    edge = _short(", ".join("<missing>" if v is None else str(v)
                                            for v in cond.value), 22)
                ax.text((x[node] + x[child]) / 2, -(depth[node] + depth[child]) / 2, edge,
                        ha="center", va="center", fontsize=fontsize * 0.85, color="#555555",
                        bbox=dict(boxstyle="square,pad=0.1", facecolor="white",
                                  edgecolor="none"))
        else:
            value = tree.value[node]
            if cut:
                label = f"...\nn = {int(tree.n_node_samples[node])}"
                color = "#f2f2f2"
            elif view.classes is None:
                label = f"{_fmt_number(float(value[0]))}"
                if show_counts:
                    label += f"\nn = {int(tree.n_node_samples[node])}"
                color = "#f7f2e6"
            else:
                k = int(np.argmax(value))
                label = _short(str(view.classes[k]), 16)
                if show_counts:
                    label += "\n" + "/".join(_fmt_number(float(v)) for v in value)
                color = plt.cm.Pastel1(k % 9)
            ax.text(x[node], -depth[node], label, ha="center", va="center", fontsize=fontsize,
                    bbox={**box, "facecolor": color, "edgecolor": "#777777"})
    ax.set_xlim(-0.7, n_columns - 0.3)
    ax.set_ylim(-(n_levels - 1) - 0.6, 0.6)
    ax.axis("off")
    return ax
