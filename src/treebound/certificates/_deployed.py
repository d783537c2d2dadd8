"""A fitted classification tree as the certificates see it, and the readers of treebound's and
scikit-learn's trees.

:class:`DeployedTree` holds the tree as flat arrays (:class:`~treebound.tree.Tree`), the
feature matrix its tests compare against, the class labels, the kind of every feature and the
rule that computed its numeric thresholds from two training values (the sample-compression
bound rebuilds every threshold from two training examples with that rule). The adapters here
read treebound's classifiers (by what they have: a flat ``Tree`` as ``tree_``, ``classes_`` and
the ``encode`` method, never by importing the estimators) and scikit-learn's
``DecisionTreeClassifier`` (read from ``tree_``); :mod:`._peers` reads the optimal sparse trees
of ``pystreed`` and ``gosdt``, and :func:`~treebound.certificates._adapters.deployed_tree` picks
the adapter for a model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted, validate_data

from treebound._flat._sklearn_view import as_flat
from treebound._flat._sparse import canonical_csr, is_sparse
from treebound._flat._storage import Tree
from treebound.certificates._counting import UNDECLARED, counted_levels

__all__ = ["DeployedTree", "from_sklearn", "from_treebound", "has_missing", "is_dyadic",
           "sklearn_midpoint", "treebound_deployed", "treebound_midpoint"]


def treebound_midpoint(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """treebound's threshold between the values ``low < high``: ``low / 2 + high / 2`` in
    float64 (the same number as ``(low + high) / 2`` unless that overflows), or ``low`` when it
    rounds up to ``high`` (``_kernels.split_numeric``)."""
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        mid = low / 2.0 + high / 2.0
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

    Built by an adapter (:func:`~treebound.certificates.deployed_tree`) from a supported model; the certificates read nothing else.

    Parameters
    ----------
    tree : Tree
        Flat arrays; ``threshold`` and the category maps are the deployed tests.
    features : ndarray of float64 or scipy.sparse.csr_matrix, shape (n_rows, n_features)
        The matrix the tests read (treebound's encoding; float32 values for scikit-learn); a
        sparse one in compressed rows with sorted indices (:func:`tested_columns`).
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
    n_levels : ndarray of int, optional
        The values the bounds count per feature
        (:func:`~treebound.certificates._counting.counted_levels`): ``U + 1`` for a categorical
        feature with ``U`` declared levels, ``-1`` for one without declared levels, ``0`` for
        a numeric one. Default: numeric features as ``0``, categorical ones undeclared.
    missing : bool, default=False
        Whether the rows hold a missing value (NaN) in a numeric feature: the hypothesis class
        then holds every routing of missing values
        (:mod:`~treebound.certificates._counting`), and the compression scheme rebuilds the
        tree's (``Tree.missing_child``).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(max_leaf_nodes=4, growth="top_down").fit(X, y)
    >>> deployed = from_treebound(model, X)
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
    n_levels: np.ndarray | None = None
    missing: bool = False

    def __post_init__(self):
        if self.n_levels is None:
            object.__setattr__(self, "n_levels", np.where(
                np.asarray(self.n_categories) > 0, UNDECLARED, 0).astype(np.int64))

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
        >>> deployed = from_treebound(model, X)
        >>> bool((deployed.classes[deployed.predict_index()] == model.predict(X)).all())
        True
        """
        return self.leaf_class[self.tree.apply(self.features)]


# ----------------------------------------------------------------------------- adapters
def is_dyadic(model) -> bool:
    """Whether a treebound classifier is a dyadic tree: it has the dyadic grid it was fit on
    (``resolution_`` and ``data_range_``)."""
    return hasattr(model, "resolution_") and hasattr(model, "data_range_")


def from_treebound(model, X) -> DeployedTree:
    """A fitted treebound classifier (greedy or dyadic) evaluated on the rows ``X``.

    Parameters
    ----------
    model : DecisionTreeClassifier or DyadicTreeClassifier
        Fitted (``NotFittedError`` otherwise).
    X : array-like or DataFrame of shape (n_rows, n_features)
        The rows, in the model's input format (``model.encode`` reads them).

    Returns
    -------
    DeployedTree

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> from_treebound(DecisionTreeClassifier(max_depth=2).fit(X, y), X).family
    'treebound'
    """
    check_is_fitted(model, "tree_")
    tree = as_flat(model.tree_)
    if not isinstance(tree, Tree):
        raise TypeError(f"certify reads a treebound tree from tree_; this {type(model).__name__}"
                        f" holds a {type(model.tree_).__name__}")
    return treebound_deployed(model, model.encode(X), n_fit_rows=int(tree.n_node_samples[0]))


def treebound_deployed(model, features, n_fit_rows: int) -> DeployedTree:
    """A fitted treebound classifier (greedy or dyadic) and its encoded rows ``features``."""
    tree = as_flat(model.tree_)
    family = "dyadic" if is_dyadic(model) else "treebound"
    n_categories = tree.n_categories.copy()
    n_levels = counted_levels(tree.n_categories, model.encoder_.declared_levels)
    if is_sparse(features):
        tree, features = tested_columns(tree, features)
    return DeployedTree(tree=tree, features=features, classes=np.asarray(model.classes_),
                        leaf_class=tree.majority_class, n_categories=n_categories,
                        midpoint=None if family == "dyadic" else treebound_midpoint,
                        family=family, n_fit_rows=n_fit_rows, model=model,
                        n_levels=n_levels, missing=has_missing(features))


def tested_columns(tree: Tree, features) -> tuple[Tree, sp.csr_matrix]:
    """A sparse feature matrix as the columns the tree tests, and the tree reading them (its
    ``feature`` renumbered): what the bounds read of the rows. The columns stay sparse, in
    compressed rows (sorted indices): routing and the compression set read them entry by entry
    (an absent entry is the value 0), so no array of rows x tested columns exists. The counts
    (``n_categories``, ``n_levels``) stay those of every feature."""
    internal = tree.first_child >= 0
    used = np.unique(tree.feature[internal])
    if used.size == 0:
        used = np.zeros(1, dtype=np.int64)
    renumbered = replace(tree, feature=np.where(internal, np.searchsorted(used, tree.feature),
                                                -1).astype(np.int64),
                         n_categories=tree.n_categories[used].copy(), _cache={})
    # a private copy of the tested columns (slicing copies): a later change to X changes nothing
    columns = sp.csc_matrix(features)[:, used]
    return renumbered, canonical_csr(columns.tocsr())


def has_missing(features) -> bool:
    """Whether a feature matrix (dense or sparse) holds a missing value (NaN); ``False`` for
    ``None`` (a tree read without its rows)."""
    if features is None:
        return False
    if is_sparse(features):
        return bool(np.isnan(features.data).any())
    return bool(np.isnan(np.asarray(features, dtype=np.float64)).any())


def from_sklearn(model, X) -> DeployedTree:
    """A fitted scikit-learn ``DecisionTreeClassifier`` evaluated on the rows ``X``.

    Parameters
    ----------
    model : sklearn.tree.DecisionTreeClassifier or ExtraTreeClassifier
        Fitted, single-output.
    X : array-like or scipy.sparse matrix of shape (n_rows, n_features)
        The rows (read as float32, as scikit-learn's trees do); NaN is a missing value when the
        model routes missing values (scikit-learn 1.3 and later: ``tree_.missing_go_to_left``),
        as its ``predict`` does. A sparse ``X`` is read as the columns the tree tests
        (:func:`tested_columns`), never densified.

    Returns
    -------
    DeployedTree

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier as SklearnTree
    >>> X, y = load_iris(return_X_y=True)
    >>> deployed = from_sklearn(SklearnTree(max_depth=2, random_state=0).fit(X, y), X)
    >>> deployed.family, deployed.tree.n_leaves
    ('scikit-learn', 3)
    """
    check_is_fitted(model, "tree_")
    if getattr(model, "n_outputs_", 1) != 1:
        raise ValueError(f"certify needs a single-output classifier; this "
                         f"{type(model).__name__} has {model.n_outputs_} outputs")
    # scikit-learn's predict: float32 values, a sparse X as compressed rows (NaN refused there)
    allow_nan = _routes_missing(model) and not is_sparse(X)
    X32 = validate_data(model, X, reset=False, dtype=np.float32, accept_sparse="csr",
                        ensure_all_finite="allow-nan" if allow_nan else True)
    tree = _tree_from_sklearn(model.tree_)
    if is_sparse(X32):
        tree, features = tested_columns(tree, X32)
    else:
        features = np.asarray(X32, dtype=np.float64)
    return DeployedTree(tree=tree, features=features, classes=np.asarray(model.classes_),
                        leaf_class=tree.majority_class,
                        n_categories=np.zeros(model.n_features_in_, dtype=np.int64),
                        midpoint=sklearn_midpoint, family="scikit-learn",
                        n_fit_rows=int(model.tree_.n_node_samples[0]), model=model,
                        missing=has_missing(features))


def _routes_missing(model) -> bool:
    """Whether a scikit-learn tree's ``predict`` accepts NaN (it stores
    ``missing_go_to_left`` and supports missing values with its settings)."""
    if not hasattr(model.tree_, "missing_go_to_left"):
        return False
    supports = getattr(model, "_support_missing_values", None)
    if supports is None:
        return False
    probe = np.zeros((1, model.n_features_in_), dtype=np.float32)
    return bool(supports(probe))


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
    go_left = getattr(sk_tree, "missing_go_to_left", None)
    if go_left is None:  # before scikit-learn 1.3 a missing value was refused
        missing_child = None
    else:
        missing_child = np.where(internal, np.where(np.asarray(go_left)[keep] != 0, 0, 1), -1)
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
        missing_child=None if missing_child is None else missing_child.astype(np.int64),
    )
