"""A fitted classification tree as the certificates see it, read from any supported library.

:class:`DeployedTree` holds the tree as flat arrays (:class:`~treebound.tree.Tree`), the
feature matrix its tests compare against, the class labels, the kind of every feature and the
rule that computed its numeric thresholds from two training values (the sample-compression
bound rebuilds every threshold from two training examples with that rule). Adapters turn a
fitted model into one; :func:`deployed_tree` picks the adapter by the model's type.

Supported: treebound's ``DecisionTreeClassifier`` and ``DyadicTreeClassifier``,
scikit-learn's ``DecisionTreeClassifier`` (read from ``tree_``), and the optimal sparse trees of
``pystreed`` (``STreeDClassifier``) and ``gosdt`` (``GOSDTClassifier``, alone or after its
binarizer in a ``Pipeline``), read by :mod:`treebound.certificates._peers`, imported only when
such a model is given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from treebound._flat._storage import Tree

__all__ = ["DeployedTree", "deployed_tree", "sklearn_midpoint", "treebound_midpoint"]


def treebound_midpoint(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """treebound's threshold between the values ``low < high``: ``(low + high) / 2`` in float64,
    or ``low`` when that rounds up to ``high`` or overflows (``_kernels.split_numeric``)."""
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        mid = 0.5 * (low + high)
    return np.where((mid >= high) | ~np.isfinite(mid), low, mid)


def sklearn_midpoint(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """scikit-learn's threshold between two float32 values: ``low / 2 + high / 2`` in float64
    (``_splitter.pyx``); ``low`` when that equals ``high`` or is infinite (older releases)."""
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    mid = low / 2.0 + high / 2.0
    return np.where((mid == high) | ~np.isfinite(mid), low, mid)


@dataclass(frozen=True, eq=False)
class DeployedTree:
    """A fitted tree classifier, in the terms the bounds need.

    Built by :func:`deployed_tree` from a supported model; the certificates read nothing else.

    Parameters
    ----------
    tree : Tree
        Flat arrays; ``threshold`` and the category maps are the deployed tests.
    features : ndarray of float64, shape (n_rows, n_features)
        The matrix the tests read (treebound's encoding; float32 values for scikit-learn).
    classes : ndarray
        Class labels, in the order of the class indices.
    leaf_class : ndarray of int
        Class index each node predicts (what ``predict`` answers at that leaf).
    n_categories : ndarray of int
        Levels of every feature, ``0`` for a numeric one.
    midpoint : callable or None
        ``midpoint(low, high)``: how a numeric threshold is computed from the largest value sent
        left and the smallest sent right; ``None`` when thresholds are not midpoints. The
        compression bound rebuilds every threshold from two training examples with it.
    family : str
        ``"treebound"``, ``"dyadic"``, ``"scikit-learn"``, ``"streed"`` or ``"gosdt"``.
    n_fit_rows : int or None
        Rows the model was fit on (``None`` when unknown).
    model : object, optional
        The model itself (the dyadic certificate reads its scaling).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(max_leaf_nodes=4, growth="top_down").fit(X, y)
    >>> deployed = deployed_tree(model, X)
    >>> deployed.family, deployed.n_features, deployed.n_classes, deployed.n_fit_rows
    ('treebound', 4, 3, 150)
    """

    tree: Tree
    features: np.ndarray
    classes: np.ndarray
    leaf_class: np.ndarray
    n_categories: np.ndarray
    midpoint: Callable | None
    family: str
    n_fit_rows: int | None
    model: object = None

    @property
    def n_features(self) -> int:
        return int(self.n_categories.shape[0])

    @property
    def n_classes(self) -> int:
        return int(self.classes.shape[0])

    def predict_index(self) -> np.ndarray:
        """Class index predicted for every row of :attr:`features`.

        Returns
        -------
        ndarray of int64, shape (n_rows,)
            Indices into :attr:`classes` (``classes[predict_index()]`` is the model's prediction).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> model = DecisionTreeClassifier(max_leaf_nodes=4, growth="top_down").fit(X, y)
        >>> deployed = deployed_tree(model, X)
        >>> bool((deployed.classes[deployed.predict_index()] == model.predict(X)).all())
        True
        """
        return self.leaf_class[self.tree.apply(self.features)]


# ----------------------------------------------------------------------------- adapters
def _from_treebound(model, X) -> DeployedTree:
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "tree_")
    return treebound_deployed(model, model.encode(X),
                              n_fit_rows=int(model.tree_.n_node_samples[0]))


def treebound_deployed(model, features, n_fit_rows: int) -> DeployedTree:
    """A fitted treebound classifier (greedy or dyadic) and its encoded rows ``features``."""
    tree = model.tree_
    family = "dyadic" if type(model).__name__ == "DyadicTreeClassifier" else "treebound"
    return DeployedTree(tree=tree, features=features, classes=np.asarray(model.classes_),
                        leaf_class=tree.majority_class, n_categories=tree.n_categories.copy(),
                        midpoint=None if family == "dyadic" else treebound_midpoint,
                        family=family, n_fit_rows=n_fit_rows, model=model)


def _from_sklearn(model, X) -> DeployedTree:
    from sklearn.utils.validation import check_is_fitted, validate_data

    check_is_fitted(model, "tree_")
    if getattr(model, "n_outputs_", 1) != 1:
        raise ValueError(f"certify needs a single-output classifier; this "
                         f"{type(model).__name__} has {model.n_outputs_} outputs")
    X32 = validate_data(model, X, reset=False, dtype=np.float32, ensure_all_finite=True)
    tree = _tree_from_sklearn(model.tree_)
    features = np.asarray(X32, dtype=np.float64)
    return DeployedTree(tree=tree, features=features, classes=np.asarray(model.classes_),
                        leaf_class=tree.majority_class,
                        n_categories=np.zeros(model.n_features_in_, dtype=np.int64),
                        midpoint=sklearn_midpoint, family="scikit-learn",
                        n_fit_rows=int(model.tree_.n_node_samples[0]), model=model)


def _tree_from_sklearn(sk_tree) -> Tree:
    """scikit-learn's ``tree_`` renumbered breadth-first (children contiguous)."""
    left = np.asarray(sk_tree.children_left)
    right = np.asarray(sk_tree.children_right)
    n = left.shape[0]
    order = [0]
    new_id = np.full(n, -1, dtype=np.int64)
    new_id[0] = 0
    head = 0
    while head < len(order):
        old = order[head]
        if left[old] >= 0:
            for child in (left[old], right[old]):
                new_id[child] = len(order)
                order.append(int(child))
        head += 1
    keep = np.asarray(order, dtype=np.int64)
    internal = left[keep] >= 0
    first_child = np.where(internal, new_id[np.where(internal, left[keep], 0)], -1)
    value = np.asarray(sk_tree.value)[keep, 0, :].astype(np.float64)
    return Tree(
        first_child=first_child.astype(np.int64),
        n_children=np.where(internal, 2, 0).astype(np.int64),
        feature=np.where(internal, np.asarray(sk_tree.feature)[keep], -1).astype(np.int64),
        threshold=np.where(internal, np.asarray(sk_tree.threshold)[keep], np.nan),
        category_offset=np.full(keep.shape[0], -1, dtype=np.int64),
        category_child=np.empty(0, dtype=np.int64),
        value=value,
        impurity=np.asarray(sk_tree.impurity, dtype=np.float64)[keep],
        n_node_samples=np.asarray(sk_tree.n_node_samples, dtype=np.int64)[keep],
        weighted_n_node_samples=np.asarray(sk_tree.weighted_n_node_samples,
                                           dtype=np.float64)[keep],
        n_categories=np.zeros(sk_tree.n_features, dtype=np.int64),
    )


def _is_treebound_classifier(model) -> bool:
    from treebound._estimator._base import BaseTreeEstimator, TreeClassifierMixin

    return isinstance(model, BaseTreeEstimator) and isinstance(model, TreeClassifierMixin)


def _is_sklearn_tree_classifier(model) -> bool:
    try:
        from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier
    except ImportError:  # pragma: no cover - scikit-learn is a dependency
        return False
    return isinstance(model, DecisionTreeClassifier | ExtraTreeClassifier)


def _library(model) -> str:
    return type(model).__module__.split(".")[0]


def _is_peer_library(model) -> bool:
    """A model of ``pystreed`` or ``gosdt`` (or a Pipeline ending in one), told apart by the
    module of its class so that neither library is imported to ask."""
    steps = getattr(model, "steps", None)
    if type(model).__name__ == "Pipeline" and steps:
        return _library(steps[-1][1]) == "gosdt"
    return _library(model) in ("pystreed", "gosdt")


def _is_streed(model) -> bool:
    if not _is_peer_library(model):
        return False
    from treebound.certificates._peers import is_streed

    return is_streed(model)


def _is_gosdt(model) -> bool:
    if not _is_peer_library(model):
        return False
    from treebound.certificates._peers import is_gosdt

    return is_gosdt(model)


def _from_streed(model, X) -> DeployedTree:
    from treebound.certificates._peers import from_streed

    return from_streed(model, X)


def _from_gosdt(model, X) -> DeployedTree:
    from treebound.certificates._peers import from_gosdt

    return from_gosdt(model, X)


#: (predicate, adapter) pairs tried in order by :func:`deployed_tree`.
ADAPTERS: list[tuple[Callable, Callable]] = [
    (_is_treebound_classifier, _from_treebound),
    (_is_sklearn_tree_classifier, _from_sklearn),
    (_is_streed, _from_streed),
    (_is_gosdt, _from_gosdt),
]


def deployed_tree(model, X) -> DeployedTree:
    """The :class:`DeployedTree` of a fitted classifier evaluated on the rows ``X``.

    The adapter is chosen by the model's type: treebound's ``DecisionTreeClassifier`` and
    ``DyadicTreeClassifier``, scikit-learn's ``DecisionTreeClassifier`` (``tree_`` renumbered
    breadth-first), pystreed's ``STreeDClassifier`` and gosdt's ``GOSDTClassifier`` (alone or in
    a ``Pipeline`` after its binarizer; imported only when such a model is given).

    Parameters
    ----------
    model : fitted classifier
        One of the models above.
    X : array-like or DataFrame of shape (n_rows, n_features)
        The rows to certify on, in the model's input format.

    Returns
    -------
    DeployedTree

    Raises
    ------
    TypeError
        For models no adapter reads (regressors included); an unfitted model or an ``X`` with
        other features raises the model's own error.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier as SklearnTree
    >>> X, y = load_iris(return_X_y=True)
    >>> cart = SklearnTree(max_depth=2, random_state=0).fit(X, y)
    >>> deployed = deployed_tree(cart, X)
    >>> deployed.family, deployed.tree.n_leaves
    ('scikit-learn', 3)
    """
    for accepts, adapter in ADAPTERS:
        if accepts(model):
            return adapter(model, X)
    name = type(model).__name__
    if hasattr(model, "predict") and not hasattr(model, "classes_") and hasattr(model, "tree_"):
        raise TypeError(f"certify bounds the 0-1 risk of classifiers; {name} is a regressor")
    raise TypeError(f"certify cannot read a {name}: supported models are treebound's "
                    "DecisionTreeClassifier and DyadicTreeClassifier, scikit-learn's "
                    "DecisionTreeClassifier, pystreed's STreeDClassifier and gosdt's "
                    "GOSDTClassifier (alone or in a Pipeline after its binarizer)")
