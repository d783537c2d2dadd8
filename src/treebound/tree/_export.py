"""Human-readable forms of a fitted tree: its rules (a DNF per class), and the names and
conditions that :mod:`treebound.tree._sklearn_text` writes as scikit-learn's text.

They accept a fitted estimator (feature names, categories and class labels come from it) or a
bare :class:`~treebound.tree.Tree` with optional names.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from treebound._flat._missing import default_missing_child
from treebound._flat._sklearn_view import as_flat
from treebound._flat._storage import Tree


@dataclass(frozen=True)
class Condition:
    """One test on a path: ``feature <= value``, ``feature > value``, ``feature in {...}``, or
    whether the feature is present or missing (NaN).

    Parameters
    ----------
    feature : str
        Name of the tested feature.
    op : {"<=", ">", "in", "present", "missing"}
        The comparison (``"present"``/``"missing"``: the test "value present", a threshold
        ``+inf``; ``value`` is then unused).
    value : float or tuple
        The threshold, or the categories sent this way (``"in"``).
    or_missing : bool, default=False
        Whether a missing value of a numeric feature takes this way too (``x <= t or missing``).

    Examples
    --------
    >>> str(Condition("petal length", "<=", 2.45)), str(Condition("color", "in", ("red", "blue")))
    ('petal length <= 2.45', 'color in {red, blue}')
    >>> str(Condition("color", "in", ("red",)))
    'color = red'
    >>> str(Condition("age", "<=", 40.5, or_missing=True)), str(Condition("age", "missing", None))
    ('age <= 40.5 or missing', 'age is missing')
    """

    feature: str
    op: str  # "<=", ">", "in", "present", "missing"
    value: float | tuple | None
    or_missing: bool = False

    def __str__(self) -> str:
        if self.op in ("present", "missing"):
            return f"{self.feature} is {self.op}"
        if self.op == "in":
            if len(self.value) == 1:
                return f"{self.feature} = {_fmt_category(self.value[0])}"
            return f"{self.feature} in {{{', '.join(_fmt_category(v) for v in self.value)}}}"
        text = f"{self.feature} {self.op} {_fmt_number(self.value)}"
        return text + " or missing" if self.or_missing else text


@dataclass(frozen=True)
class Rule:
    """A conjunction of conditions (one root-to-leaf path) and what its leaf predicts.

    Parameters
    ----------
    conditions : tuple of Condition
        The tests on the path, simplified (one interval or set per feature).
    prediction : object
        The leaf's class label (classification) or mean target (regression).
    n_samples : int
        Training rows reaching the leaf.
    confidence : float, default=nan
        Share of the leaf's training weight in the predicted class (NaN for regression and for
        an empty leaf).

    Examples
    --------
    >>> rule = Rule((Condition("x2", ">", 2.45), Condition("x3", "<=", 1.75)), 1, 54, 0.907)
    >>> str(rule), rule.prediction
    ('(x2 > 2.45) and (x3 <= 1.75)', 1)
    """

    conditions: tuple[Condition, ...]
    prediction: object
    n_samples: int
    confidence: float = field(default=float("nan"))

    def __str__(self) -> str:
        body = " and ".join(f"({c})" for c in self.conditions) if self.conditions else "(always)"
        return body


@dataclass
class _View:
    tree: Tree
    feature_names: list[str]
    categories: list[list | None]
    classes: list | None
    #: whether the conditions say where a missing value goes (:func:`shows_missing`)
    missing: bool = False


def routes_missing_learned(tree: Tree) -> bool:
    """Whether a tree routes missing values other than by the default rule somewhere (a node
    whose ``missing_child`` is not the child with more training rows, or a test "value
    present"): the trace that it was fitted on rows with missing values."""
    internal = (tree.first_child >= 0) & (tree.category_offset < 0)
    if not internal.any():
        return False
    if np.any(tree.threshold[internal] == np.inf):
        return True
    return bool(np.any(tree.missing_child[internal] != default_missing_child(tree)[internal]))


def shows_missing(tree: Tree, show_missing, fitted_with_missing=None) -> bool:
    """``show_missing`` of the exporters: ``True``, ``False``, or ``"auto"``: shown when the
    estimator was fitted on rows with a missing value (``fitted_with_missing``), and for a
    bare tree or a model that does not say, when the tree's routing of missing values is not
    the default rule's (:func:`routes_missing_learned`)."""
    if isinstance(show_missing, bool | np.bool_):
        return bool(show_missing)
    if isinstance(show_missing, str) and show_missing == "auto":
        if fitted_with_missing is not None:
            return bool(fitted_with_missing)
        return routes_missing_learned(tree)
    raise ValueError(f"show_missing must be True, False or 'auto', got {show_missing!r}")


def _view(model, feature_names=None, class_names=None, show_missing=False) -> _View:
    model = as_flat(model)
    if isinstance(model, Tree):
        tree = model
        names = feature_names or [f"x{j}" for j in range(tree.n_features)]
        cats = [None if q == 0 else list(range(q)) for q in tree.n_categories]
        classes = None if tree.task == "regression" else (
            list(class_names) if class_names is not None else list(range(tree.n_classes)))
        return _View(tree, list(names), cats, classes, shows_missing(tree, show_missing))
    tree = as_flat(model.tree_)
    if feature_names is None:
        if hasattr(model, "feature_names_in_"):
            feature_names = [str(n) for n in model.feature_names_in_]
        elif getattr(model.encoder_, "feature_names", None):
            feature_names = list(model.encoder_.feature_names)
        else:
            feature_names = [f"x{j}" for j in range(tree.n_features)]
    classes = None
    if tree.task == "classification" and class_names is not None:
        classes = list(class_names)
    elif tree.task == "classification":  # several outputs: one array of labels each
        classes = (list(model.classes_) if isinstance(model.classes_, list)
                   else list(model.classes_.tolist()))
    return _View(tree, list(feature_names), list(model.encoder_.categories), classes,
                 shows_missing(tree, show_missing, model.__dict__.get("_missing_in_fit")))


def _rules_view(model, feature_names, class_names, show_missing=False) -> _View:
    """:func:`_view` for the rules, which give every leaf one prediction: a tree of several
    outputs has one per output, and is refused."""
    view = _view(model, feature_names, class_names, show_missing)
    if view.tree.n_outputs > 1:
        raise ValueError(f"this tree has {view.tree.n_outputs} outputs and the rules give one "
                         "prediction per leaf: use export_text or plot_tree")
    return view


def _fmt_number(v: float) -> str:
    return f"{v:.6g}"


def _fmt_category(v) -> str:
    return "<missing>" if v is None else str(v)


def _child_conditions(view: _View, node: int) -> list[Condition]:
    """The condition leading to each child of ``node``, in slot order."""
    tree = view.tree
    f = int(tree.feature[node])
    name = view.feature_names[f]
    k = int(tree.n_children[node])
    off = int(tree.category_offset[node])
    if off < 0:
        thr = float(tree.threshold[node])
        missing_slot = int(tree.missing_child[node])
        if thr == np.inf and missing_slot == 1:  # the test "value present"
            return [Condition(name, "present", None), Condition(name, "missing", None)]
        shown = [view.missing and missing_slot == j for j in range(2)]
        return [Condition(name, "<=", thr, shown[0]), Condition(name, ">", thr, shown[1])]
    cats = view.categories[f]
    width = int(tree.n_categories[f])
    slots = tree.category_child[off : off + width]
    return [Condition(name, "in", tuple(cats[c] for c in range(width) if slots[c] == j))
            for j in range(k)]


def _simplify(conditions: list[Condition]) -> tuple[Condition, ...]:
    """Merge repeated tests of a feature on one path (tightest bounds, intersected sets; a
    bound lets missing values through only if every test it merges does)."""
    upper: dict[str, float] = {}
    lower: dict[str, float] = {}
    sets: dict[str, tuple] = {}
    missing: dict[tuple[str, str], bool] = {}
    order: list[tuple[str, str]] = []
    for c in conditions:
        key = (c.feature, c.op)
        if key not in order:
            order.append(key)
        missing[key] = missing.get(key, True) and c.or_missing
        if c.op == "<=":
            upper[c.feature] = min(upper.get(c.feature, np.inf), c.value)
        elif c.op == ">":
            lower[c.feature] = max(lower.get(c.feature, -np.inf), c.value)
        elif c.op == "in":
            prev = sets.get(c.feature)
            sets[c.feature] = c.value if prev is None else tuple(v for v in prev if v in c.value)
    out = []
    for feature, op in order:
        if op == "<=":
            out.append(Condition(feature, "<=", upper[feature], missing[feature, op]))
        elif op == ">":
            out.append(Condition(feature, ">", lower[feature], missing[feature, op]))
        elif op == "in":
            out.append(Condition(feature, "in", sets[feature]))
        else:
            out.append(Condition(feature, op, None))
    return tuple(out)


def leaf_rules(model, *, feature_names=None, class_names=None, show_missing="auto") -> list[Rule]:
    """One rule per leaf (left-to-right order), with the leaf's prediction and confidence.

    Parameters
    ----------
    model : fitted estimator or Tree
        A fitted treebound estimator (feature names, categories and class labels come from it)
        or a bare :class:`~treebound.tree.Tree` (features ``x0, x1, ...``, category codes,
        class indices).
    feature_names : list of str, optional
        Override the feature names.
    class_names : list, optional
        Override the class labels (classification).
    show_missing : bool or "auto", default="auto"
        Say where a missing value (NaN) of a numeric feature goes: ``x <= t or missing``.
        ``"auto"``: when the tree was fitted on rows with missing values (its routing of them
        is not everywhere the default, the child with more training rows). A test "value
        present" always reads ``x is present`` / ``x is missing``.

    Returns
    -------
    list of Rule

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(max_depth=2).fit(X, y)
    >>> for rule in leaf_rules(model):
    ...     print(rule, "->", rule.prediction, rule.n_samples, round(rule.confidence, 3))
    (x2 <= 2.45) -> 0 50 1.0
    (x2 > 2.45) and (x3 <= 1.75) -> 1 54 0.907
    (x2 > 2.45) and (x3 > 1.75) -> 2 46 0.978
    """
    view = _rules_view(model, feature_names, class_names, show_missing)
    tree = view.tree
    rules: list[Rule] = []
    # Iterative preorder (leaves left to right); each item carries its path's conditions.
    stack: list = [(0, [])]
    while stack:
        node, path = stack.pop()
        if tree.first_child[node] < 0:
            value = tree.value[node]
            if view.classes is None:
                prediction, confidence = float(value[0]), float("nan")
            else:
                k = int(np.argmax(value))
                total = float(value.sum())
                prediction = view.classes[k]
                confidence = float(value[k] / total) if total > 0 else float("nan")
            rules.append(Rule(_simplify(path), prediction, int(tree.n_node_samples[node]),
                              confidence))
            continue
        conds = _child_conditions(view, node)
        children = tree.children(node)
        for j in range(len(children) - 1, -1, -1):
            stack.append((int(children[j]), path + [conds[j]]))
    return rules


def to_rules(model, *, feature_names=None, class_names=None, show_missing="auto"):
    """The tree as rules: a DNF per class.

    Parameters
    ----------
    model : fitted estimator or Tree
        A fitted treebound estimator (feature names, categories and class labels come from it)
        or a bare :class:`~treebound.tree.Tree` (features ``x0, x1, ...``, category codes,
        class indices).
    feature_names : list of str, optional
        Override the feature names.
    class_names : list, optional
        Override the class labels (classification).
    show_missing : bool or "auto", default="auto"
        Say where a missing value (NaN) of a numeric feature goes: ``x <= t or missing``.
        ``"auto"``: when the tree was fitted on rows with missing values (its routing of them
        is not everywhere the default, the child with more training rows). A test "value
        present" always reads ``x is present`` / ``x is missing``.

    Returns
    -------
    list of Rule or dict
        For a binary classifier, the conjunctions (one per path to a leaf predicting the
        positive class, ``classes_[1]``): their disjunction is the tree's positive region.
        Otherwise a dict mapping each class (or, for regression, each leaf value) to its rules.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from treebound import DecisionTreeClassifier, to_rules
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> rules = to_rules(DecisionTreeClassifier(max_depth=2).fit(X, y))
    >>> print(" OR ".join(str(r) for r in rules))
    (x20 <= 16.795) and (x27 <= 0.1358) OR (x20 > 16.795) and (x1 <= 16.11)
    """
    rules = leaf_rules(model, feature_names=feature_names, class_names=class_names,
                       show_missing=show_missing)
    view = _rules_view(model, feature_names, class_names)
    if view.classes is not None and len(view.classes) == 2:
        positive = view.classes[1]
        return [r for r in rules if r.prediction == positive]
    grouped: dict = {}
    for r in rules:
        grouped.setdefault(r.prediction, []).append(r)
    return grouped


def format_rules(model, *, feature_names=None, class_names=None, show_missing="auto") -> str:
    """Readable text of :func:`to_rules`: ``IF ... THEN class`` lines with the leaf's training
    rows and the share of them it classifies right (training accuracy).

    Parameters
    ----------
    model : fitted estimator or Tree
        A fitted treebound estimator (feature names, categories and class labels come from it)
        or a bare :class:`~treebound.tree.Tree` (features ``x0, x1, ...``, category codes,
        class indices).
    feature_names : list of str, optional
        Override the feature names.
    class_names : list, optional
        Override the class labels (classification).
    show_missing : bool or "auto", default="auto"
        Say where a missing value (NaN) of a numeric feature goes: ``x <= t or missing``.
        ``"auto"``: when the tree was fitted on rows with missing values (its routing of them
        is not everywhere the default, the child with more training rows). A test "value
        present" always reads ``x is present`` / ``x is missing``.

    Returns
    -------
    str
        For a binary classifier, the DNF of the positive class then ``ELSE`` the other; otherwise
        one ``IF ... THEN ...`` line per leaf.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(max_depth=2).fit(X, y)
    >>> print(format_rules(model))
    IF (x2 <= 2.45) THEN 0   [training accuracy 1.000, 50 training rows]
    IF (x2 > 2.45) and (x3 <= 1.75) THEN 1   [training accuracy 0.907, 54 training rows]
    IF (x2 > 2.45) and (x3 > 1.75) THEN 2   [training accuracy 0.978, 46 training rows]
    """
    rules = leaf_rules(model, feature_names=feature_names, class_names=class_names,
                       show_missing=show_missing)
    view = _rules_view(model, feature_names, class_names)
    lines = []
    if view.classes is not None and len(view.classes) == 2:
        positive = view.classes[1]
        dnf = [r for r in rules if r.prediction == positive]
        lines.append(f"class {positive} IF")
        for i, r in enumerate(dnf):
            lines.append(f"  {'   ' if i == 0 else 'OR '}{r}   [{_rows(r.n_samples)}, "
                         f"training accuracy {r.confidence:.3f}]")
        if not dnf:
            lines.append("  (never)")
        lines.append(f"ELSE class {view.classes[0]}")
        return "\n".join(lines)
    for r in rules:
        extra = f"training accuracy {r.confidence:.3f}, " if view.classes is not None else ""
        pred = _fmt_number(r.prediction) if view.classes is None else r.prediction
        lines.append(f"IF {r} THEN {pred}   [{extra}{_rows(r.n_samples)}]")
    return "\n".join(lines)


def _rows(n) -> str:
    return f"{n:g} training row{'' if n == 1 else 's'}"
