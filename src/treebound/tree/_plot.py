"""Drawing a fitted tree with matplotlib (imported lazily).

Internal nodes show their test and sample count; edges carry the outcome (``yes``/``no`` for a
threshold, the category set for a categorical test); leaves show the prediction and the class
counts. Leaves are spread evenly left to right and every internal node sits above the middle of
its children, so the picture stays readable for trees of a few dozen leaves.
"""

from __future__ import annotations

import numpy as np

from treebound.tree._export import _child_conditions, _fmt_number, _view


def _layout(tree, max_depth: int | None):
    """x (leaf order) and y (depth) of every drawn node; nodes below max_depth are cut."""
    x = np.full(tree.n_nodes, np.nan)
    depth = tree.node_depth
    drawn = np.zeros(tree.n_nodes, dtype=bool)
    next_leaf = [0.0]

    def visit(node: int) -> None:
        drawn[node] = True
        children = tree.children(node)
        if len(children) == 0 or (max_depth is not None and depth[node] >= max_depth):
            x[node] = next_leaf[0]
            next_leaf[0] += 1.0
            return
        for child in children:
            visit(int(child))
        x[node] = float(np.mean(x[children]))

    visit(0)
    return x, depth, drawn


def _short(text: str, width: int = 28) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def plot_tree(model, ax=None, *, max_depth: int | None = None, feature_names=None,
              class_names=None, fontsize: float | None = None, show_counts: bool = True):
    """Draw a fitted treebound estimator (or a bare :class:`~treebound.tree.Tree`).

    Parameters
    ----------
    model : fitted estimator or Tree
    ax : matplotlib Axes, optional
        Drawn into a new figure sized to the tree when omitted.
    max_depth : int, optional
        Draw only this many levels (deeper subtrees are shown as "...").
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
    import matplotlib.pyplot as plt

    view = _view(model, feature_names, class_names)
    tree = view.tree
    x, depth, drawn = _layout(tree, max_depth)
    n_columns = int(np.nanmax(x)) + 1
    n_levels = int(depth[drawn].max()) + 1
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4.0, 1.9 * n_columns), max(2.5, 1.5 * n_levels)))
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
