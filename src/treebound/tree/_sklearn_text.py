"""scikit-learn's text of a tree, for every treebound tree: :func:`export_text` and the text of
one node in a drawing (:func:`node_label`, what scikit-learn's ``plot_tree`` writes in a box).

scikit-learn's ``export_text`` and ``plot_tree`` accept only its own classes (``docs/sklearn.md``
says why treebound's do not subclass them). These take the same arguments and write the same
text for the same splits -- every character, tested against scikit-learn's on trees both libraries
grow alike -- and extend it to what scikit-learn's layout cannot hold: a categorical test is
written ``color in {red, blue}`` (``color = red`` for one level), and a multiway test gets one
line (one edge) per child. Unlike scikit-learn, feature names default to those ``X`` had in
``fit`` (``feature_names_in_``); scikit-learn's generic names are used when it had none.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from treebound._flat._sklearn_view import SklearnTree, as_flat
from treebound._flat._storage import Tree
from treebound._validation import InstanceOf, Interval, external_stacklevel, validate_parameters
from treebound.tree._export import _child_conditions, _View, _view

__all__ = ["export_text", "node_label", "resolve_names", "sklearn_values", "subtree_depths"]

_TEXT_CONSTRAINTS = {
    "max_depth": [None, Interval(int, 0, None)],
    "spacing": [Interval(int, 1, None)],
    "decimals": [Interval(int, 0, None)],
    "show_weights": [InstanceOf((bool, np.bool_), "a bool")],
}


def _check_fitted(decision_tree) -> None:
    if not isinstance(decision_tree, Tree | SklearnTree):
        check_is_fitted(decision_tree, "tree_")


def resolve_names(decision_tree, feature_names, class_names, default_feature: str,
                  owner: str, show_missing="auto") -> _View:
    """The tree with the names its text shows: ``feature_names`` (checked against the number of
    features), else those of ``fit``, else ``default_feature.format(j)``; ``class_names``
    (checked against the classes), else ``classes_``, else the class indices."""
    _check_fitted(decision_tree)
    flat = as_flat(decision_tree if isinstance(decision_tree, Tree | SklearnTree)
                   else decision_tree.tree_)
    if feature_names is not None:
        feature_names = [str(name) for name in np.asarray(feature_names, dtype=object).ravel()]
        if len(feature_names) != flat.n_features:
            raise ValueError(f"feature_names must contain {flat.n_features} elements, got "
                             f"{len(feature_names)}")
    elif getattr(decision_tree, "feature_names_in_", None) is None:
        feature_names = [default_feature.format(j) for j in range(flat.n_features)]
    if class_names is not None and class_names is not True and flat.task == "classification":
        class_names = list(np.asarray(class_names, dtype=object).ravel())
        # scikit-learn compares with len(classes_): the outputs, when there are several
        expected = flat.n_outputs if flat.n_outputs > 1 else flat.n_classes
        if len(class_names) != expected:
            raise ValueError(f"{owner}: when `class_names` is an array, it should contain as many "
                             f"items as `decision_tree.classes_`. Got {len(class_names)} while "
                             f"the tree was fitted with {expected} classes.")
    return _view(decision_tree, feature_names,
                 None if class_names is True else class_names, show_missing)


def sklearn_values(decision_tree, flat: Tree) -> np.ndarray:
    """scikit-learn's ``tree_.value``: weighted class fractions (or predictions) per node and
    output, shape ``(n_nodes, n_outputs, max_n_classes)``."""
    if not isinstance(decision_tree, Tree):
        tree = decision_tree if isinstance(decision_tree, SklearnTree) else decision_tree.tree_
        if isinstance(tree, SklearnTree):
            return tree.value
    n_classes = [1 if flat.task == "regression" else flat.n_classes] * flat.n_outputs
    return SklearnTree(flat, n_classes).value


def subtree_depths(flat: Tree) -> np.ndarray:
    """Levels of the subtree under every node (1 for a leaf), without recursion."""
    height = np.ones(flat.n_nodes, dtype=np.int64)
    for node in np.argsort(-flat.node_depth, kind="stable"):
        if flat.first_child[node] >= 0:
            height[node] = 1 + int(height[flat.children(node)].max())
    return height


def _fixed(value: float, decimals: int) -> str:
    return f"{value:.{decimals}f}"


def _or_missing(cond) -> str:
    return " or missing" if cond.or_missing else ""


def _child_lines(view: _View, node: int, decimals: int) -> list[str]:
    """The test outcome leading to each child of ``node``, as scikit-learn writes it."""
    lines = []
    for cond in _child_conditions(view, node):
        if cond.op == "<=":
            lines.append(f"{cond.feature} <= {_fixed(cond.value, decimals)}{_or_missing(cond)}")
        elif cond.op == ">":
            lines.append(f"{cond.feature} >  {_fixed(cond.value, decimals)}{_or_missing(cond)}")
        else:
            lines.append(str(cond))
    return lines


def export_text(decision_tree, *, feature_names=None, class_names=None, max_depth=10, spacing=3,
                decimals=2, show_weights=False, show_counts=None, show_missing="auto") -> str:
    """Text report of the rules of a tree: scikit-learn's ``export_text``, for treebound's trees.

    Parameters
    ----------
    decision_tree : fitted estimator or Tree
        A fitted treebound estimator or a bare :class:`~treebound.tree.Tree` (its ``tree_``).
    feature_names : array-like of str, optional
        Names of the features. By default those ``X`` had in ``fit``, else ``feature_0``,
        ``feature_1``... (scikit-learn's).
    class_names : array-like, optional
        Names of the classes, in the order of ``classes_`` (by default ``classes_``).
    max_depth : int or None, default=10
        Levels printed below the root's test, as in scikit-learn (``0``: the root's test only);
        deeper internal nodes print ``truncated branch of depth d``. ``None``: every level.
    spacing : int, default=3
        Characters per level of indentation.
    decimals : int, default=2
        Decimals of thresholds, weights and values.
    show_weights : bool, default=False
        Write each leaf's weighted class counts (classification).
    show_counts : bool, optional
        Former name of ``show_weights`` (deprecated, removed in the next release).
    show_missing : bool or "auto", default="auto"
        Write where a missing value (NaN) goes: ``feature_3 <= 0.50 or missing``. ``"auto"``:
        when the tree was fitted on rows with missing values (its routing of them is not
        everywhere the default, the child with more training rows); scikit-learn's text has
        no such words. A test "value present" reads ``feature_3 is present`` / ``is missing``.

    Returns
    -------
    str
        One line per test outcome and leaf, each ending with a newline.

    Raises
    ------
    ValueError
        ``feature_names`` or ``class_names`` of the wrong length, or a bad parameter.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> iris = load_iris()
    >>> model = DecisionTreeClassifier(max_depth=2).fit(iris.data, iris.target)
    >>> print(export_text(model, feature_names=iris.feature_names, show_weights=True))
    |--- petal length (cm) <= 2.45
    |   |--- weights: [50.00, 0.00, 0.00] class: 0
    |--- petal length (cm) >  2.45
    |   |--- petal width (cm) <= 1.75
    |   |   |--- weights: [0.00, 49.00, 5.00] class: 1
    |   |--- petal width (cm) >  1.75
    |   |   |--- weights: [0.00, 1.00, 45.00] class: 2
    <BLANKLINE>
    """
    if show_counts is not None:
        warnings.warn("export_text's show_counts is now show_weights, scikit-learn's name; "
                      "show_counts will be removed in the next release", FutureWarning,
                      stacklevel=external_stacklevel())
        show_weights = bool(show_counts)
    validate_parameters("export_text", {"max_depth": max_depth, "spacing": spacing,
                                        "decimals": decimals, "show_weights": show_weights},
                        _TEXT_CONSTRAINTS)
    view = resolve_names(decision_tree, feature_names, class_names, "feature_{}", "export_text",
                         show_missing)
    flat = view.tree
    values = sklearn_values(decision_tree, flat)
    heights = subtree_depths(flat)
    classifier = flat.task == "classification"

    def leaf(node: int, indent: str) -> str:
        value = values[node][0] if values.shape[1] == 1 else values[node].T[0]
        if not classifier:
            return f"{indent} value: [{', '.join(_fixed(v, decimals) for v in value)}]"
        k = int(np.argmax(value))
        name = view.classes[k] if values.shape[1] == 1 and view.classes is not None else k
        text = f"{indent} class: {name}"
        if show_weights:
            weight = flat.weighted_n_node_samples[node]
            counts = ", ".join(_fixed(v * weight, decimals) for v in value)
            text = f"{indent} weights: [{counts}] class: {name}"
        return text

    lines: list[str] = []
    # iterative preorder (a tree of any depth prints without recursion); depth counts from 1
    # at the root, as in scikit-learn, so that max_depth means what it means there
    stack: list = [(0, 1)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            lines.append(item)
            continue
        node, depth = item
        indent = ("|" + " " * spacing) * depth
        indent = indent[:-spacing] + "-" * spacing
        if flat.first_child[node] < 0 or (max_depth is not None and depth > max_depth + 1
                                          and heights[node] == 1):
            lines.append(leaf(node, indent))
        elif max_depth is not None and depth > max_depth + 1:
            lines.append(f"{indent} truncated branch of depth {int(heights[node])}")
        else:
            todo: list = []
            for child, outcome in zip(flat.children(node), _child_lines(view, node, decimals),
                                      strict=True):
                todo += [f"{indent} {outcome}", (int(child), depth + 1)]
            stack.extend(reversed(todo))
    return "".join(line + "\n" for line in lines)


def _value_text(value: np.ndarray, precision: int, regression: bool, proportion: bool,
                single_output: bool) -> str:
    # scikit-learn's formatting of a node's values, step by step
    if regression or proportion:
        value_text = np.around(value, precision)
    elif np.all(np.equal(np.mod(value, 1), 0)):
        value_text = value.astype(int)
    else:
        value_text = np.around(value, precision)
    value_text = str(value_text.astype("S32")).replace("b'", "'")
    value_text = value_text.replace("' '", ", ").replace("'", "")
    if regression and single_output:
        value_text = value_text.replace("[", "").replace("]", "")
    return value_text.replace("\n ", "\n")


def node_label(view: _View, values: np.ndarray, node: int, criterion: str, *, labels: bool,
               class_names, impurity: bool, node_ids: bool, proportion: bool,
               precision: int) -> str:
    """What scikit-learn's ``plot_tree`` writes in the box of ``node`` (its ``node_to_str``);
    a categorical test writes the outcome of its first child (``color in {red, blue}``), a
    multiway test the feature's name (its edges carry the levels)."""
    flat = view.tree
    single = values.shape[1] == 1
    value = values[node][0, :] if single else values[node]
    regression = flat.task == "regression"
    text = ""
    if node_ids:
        text += ("node " if labels else "") + f"#{node}\n"
    if flat.first_child[node] >= 0:
        first, second = _child_conditions(view, node)[:2]
        if first.op == "<=":
            text += f"{first.feature} <= {round(float(first.value), precision)}\n"
            if first.or_missing or second.or_missing:
                text += f"missing: {'left' if first.or_missing else 'right'}\n"
        elif first.op == "present":
            text += f"{first.feature} is present\n"
        elif flat.n_children[node] == 2:
            text += f"{first}\n"
        else:
            text += f"{first.feature}\n"
    if impurity:
        name = criterion if isinstance(criterion, str) else "impurity"
        text += (f"{name} = " if labels else "") + \
            f"{round(float(flat.impurity[node]), precision)}\n"
    text += "samples = " if labels else ""
    if proportion:
        percent = 100.0 * flat.n_node_samples[node] / float(flat.n_node_samples[0])
        text += f"{round(percent, 1)}%\n"
    else:
        text += f"{int(flat.n_node_samples[node])}\n"
    if not proportion and not regression:
        value = value * flat.weighted_n_node_samples[node]
    text += ("value = " if labels else "") + \
        _value_text(value, precision, regression, proportion, single) + "\n"
    if class_names is not None and not regression and single:
        text += "class = " if labels else ""
        k = int(np.argmax(value))
        text += f"y[{k}]" if class_names is True else str(class_names[k])
    return text[:-1] if text.endswith("\n") else text
