"""The pruning path as a picture: the method's objective against the number of leaves.

Every method records the ``(n_leaves, objective)`` pairs it visited (``pruning_path_`` of a
fitted estimator, ``PruningResult.path``); this draws them and marks the tree that was kept.
"""

from __future__ import annotations

import math

from treebound.pruning._registry import REGISTRY

#: What each method's objective is (the y-axis label), with its default options.
OBJECTIVES = {name: method.objective({}) for name, method in REGISTRY.items()}


def _path_of(model):
    """``(method, [(n_leaves, objective)], final n_leaves, info)`` of an estimator or a
    result."""
    if hasattr(model, "pruning_path_"):
        method = getattr(model, "pruning", None)
        if method is None:
            raise ValueError("the model was not pruned (pruning=None): there is no path to plot")
        return (method, list(model.pruning_path_), int(model.tree_.n_leaves),
                getattr(model, "pruning_info_", {}))
    if hasattr(model, "path") and hasattr(model, "method"):
        return model.method, list(model.path), int(model.tree.n_leaves), model.info
    raise TypeError("plot_pruning_path expects a pruned treebound estimator or a PruningResult, "
                    f"got {type(model).__name__}")


def plot_pruning_path(model, ax=None, *, label: str | None = None, color=None):
    """Draw the pruning path of a pruned estimator (or :class:`PruningResult`) into ``ax``.

    The objective (see :data:`OBJECTIVES`) is plotted against the number of leaves of each
    tree the method visited, with the kept tree marked by a star. Call it again on the same
    ``ax`` to compare several models or methods. matplotlib is imported on the first call.

    Parameters
    ----------
    model : pruned estimator or PruningResult
        A treebound estimator fitted with ``pruning=...`` (its ``pruning_path_``), or the result
        of :func:`treebound.prune`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure is created when omitted.
    label : str, optional
        Legend label of the curve (default: the method's name).
    color : matplotlib color, optional
        Color of the curve and of its star.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import load_breast_cancer
    >>> from treebound import DecisionTreeClassifier, plot_pruning_path
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = DecisionTreeClassifier(pruning="bound").fit(X, y)
    >>> ax = plot_pruning_path(model)
    >>> ax.get_xlabel(), ax.get_title()
    ('leaves', 'pruning path (bound)')
    """
    # matplotlib (~0.5 s to import) only when a figure is drawn
    import matplotlib.pyplot as plt

    method, path, kept, info = _path_of(model)
    points = [(n, obj) for n, obj in path if obj is not None and math.isfinite(obj)]
    if not points:
        raise ValueError(f"the {method!r} pruning path has no finite objective to plot")
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.0))
    leaves = [n for n, _ in points]
    values = [obj for _, obj in points]
    order = sorted(range(len(points)), key=lambda i: leaves[i])
    (line,) = ax.plot([leaves[i] for i in order], [values[i] for i in order], marker="o",
                      markersize=3.5, linewidth=1.2, color=color, label=label or method)
    kept_values = [obj for n, obj in points if n == kept]
    if kept_values:
        ax.plot([kept], [min(kept_values)], marker="*", markersize=14, color=line.get_color(),
                markeredgecolor="black", linestyle="none",
                label=f"kept: {kept} leaves" if label is None else None)
    ax.set_xlabel("leaves")
    ax.set_ylabel(REGISTRY[method].objective(info) if method in REGISTRY else "objective")
    ax.set_title(f"pruning path ({method})")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return ax
