"""Optimal trees of each size as extra candidates of certified selection (issue 26).

With ``pruning_params={"optimal_candidates": True}``, ``pruning="certified"`` adds to the trees
of the cost-complexity path the minimum-error tree of every leaf count ``L = 2 ..
min(optimal_max_leaves, the path's largest)`` with depth at most ``optimal_max_depth``, found by
STreeD (``pystreed``, the ``bench`` extra: ``STreeDClassifier("accuracy", max_depth=D,
max_num_nodes=L - 1)`` over its binary features, its ``"tree"`` binarizer with 5 thresholds a
feature). Each candidate is scored like the path's trees: STreeD is fit at the same size on the
training part of every CV fold, and that tree's held-out 0-1 loss gives the candidate's CV error
and standard error (the same folds, weights and formula as
:func:`~treebound.pruning.cost_complexity.cross_validated_path`).

STreeD's tree is read into treebound's flat tree (:func:`streed_tree`): its structure, its tests
re-placed at treebound's midpoint between the two training values on either side of STreeD's
threshold (the rows are routed as before, and the sample-compression bound can rebuild the
test), its leaves labelled by the majority of the training rows reaching them (never more
training errors than STreeD's labels) and its node statistics counted on those rows, impurity
under Gini. The certificate covers such a tree as any other: ``hti`` is uniform over every tree
of the shape on the features, whatever chose its tests.

Applies to numeric features without missing values and unit weights; otherwise (and without
pystreed) the selection runs on the path alone and a warning says why. STreeD runs without a
time limit (a result must not depend on the machine's speed), so deep or wide searches take
long: ``benchmarks/results/greedy_vs_optimal.md`` measures its cost. The labels reach STreeD
encoded ``0 .. K-1`` (pystreed 1.4 dies on labels -1/+1).
"""

from __future__ import annotations

import functools
import importlib.util
import warnings
from dataclasses import dataclass

import numpy as np

from treebound._flat._labels import fit_labels
from treebound._flat._storage import Tree
from treebound.certificates._deployed import treebound_midpoint
from treebound.certificates._peers import from_streed

__all__ = ["OptimalCandidate", "optimal_candidates", "optimal_unavailable", "streed_tree"]

#: Thresholds a feature of STreeD's ``"tree"`` binarizer (as ``peers.md``).
STREED_THRESHOLDS = 5


@dataclass(frozen=True)
class OptimalCandidate:
    """One optimal tree and its cross-validation sums.

    ``loss`` and ``square``: the weighted held-out 0-1 loss, and of its square, summed over the
    folds (as :func:`~treebound.pruning.cost_complexity.fold_losses` returns them).
    """

    n_leaves: int
    tree: Tree
    loss: float
    square: float


def optimal_unavailable(X, sample_weight, n_categories) -> str | None:
    """Why the optimal candidates cannot run on these rows (``None``: they can)."""
    if importlib.util.find_spec("pystreed") is None:
        return ("pystreed is not installed (the bench extra: pip install 'treebound[bench]')")
    if np.any(np.asarray(n_categories) > 0):
        return "they are read over numeric features only, and a feature is categorical"
    if np.isnan(X).any():
        return "STreeD takes no missing values, and the rows hold some"
    if sample_weight is not None and not np.all(sample_weight == sample_weight.flat[0]):
        return "STreeD fits unweighted rows, and the sample weights differ"
    return None


@functools.cache
def _streed_class():
    """STreeD's classifier, fit on rows binarized once for every size.

    STreeD's binarizer (its ``"tree"`` strategy: a scikit-learn tree of at most
    ``STREED_THRESHOLDS + 1`` leaves on each feature alone) depends on the rows and labels
    only, so every size fit on the same rows gets the same binary features: the subclass takes
    them from :func:`_binarized` instead of binarizing again for each size (the same trees;
    binarizing was about half of the time)."""
    # an optional dependency (the bench extra): imported only when the option runs
    from pystreed import STreeDClassifier

    class Prebinarized(STreeDClassifier):
        prebinarized = None  # (binarizer, binary rows) of the rows fit next

        def _binarize_data(self, X, y=None, categorical_columns=None, reset=True):
            if reset and self.prebinarized is not None:
                self.binarizer_, binary = self.prebinarized
                return binary
            return super()._binarize_data(X, y, categorical_columns, reset)

    return Prebinarized


def _binarized(X, y):
    """``(binarizer, binary rows)``: STreeD's own binarization of these rows (as its ``fit``
    does with the options of :func:`_fit_streed`)."""
    # the optional dependency again (the bench extra), imported only when the option runs
    from pystreed.binarizer import Binarizer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its binarizer's notes on constant columns
        binarizer = Binarizer("tree", STREED_THRESHOLDS, 5, None, None)
        binarizer.fit(X, y)
        return binarizer, binarizer.transform(X)


def _fit_streed(X, y, n_leaves: int, max_depth: int, seed: int, binarized=None):
    model = _streed_class()("accuracy", max_depth=max_depth, max_num_nodes=n_leaves - 1,
                            continuous_binarize_strategy="tree",
                            n_thresholds=STREED_THRESHOLDS, random_seed=seed)
    model.prebinarized = binarized
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its binarizer's notes on constant columns
        return model.fit(X, y)


def streed_tree(model, X, y, n_classes: int, w=None) -> Tree | None:
    """The flat tree of a fitted STreeD classifier on its training rows ``X`` with class
    indices ``y`` in ``0 .. n_classes - 1`` and weights ``w`` (module docstring); ``None`` when a
    test sends every training row one way (no midpoint re-places it)."""
    shape = from_streed(model, X).tree
    X = np.asarray(X, dtype=np.float64)
    w = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    n = shape.n_nodes
    threshold = shape.threshold.copy()
    reach = [None] * n
    reach[0] = np.ones(X.shape[0], dtype=bool)
    for i in range(n):  # breadth first: parents before children
        start = int(shape.first_child[i])
        if start < 0:
            continue
        column = X[:, shape.feature[i]]
        rows = column[reach[i]]
        low, high = rows[rows <= threshold[i]], rows[rows > threshold[i]]
        if low.size == 0 or high.size == 0:
            return None
        threshold[i] = float(treebound_midpoint(np.asarray([low.max()]),
                                                np.asarray([high.min()]))[0])
        goes_low = column <= threshold[i]
        reach[start], reach[start + 1] = reach[i] & goes_low, reach[i] & ~goes_low
    value = np.zeros((n, n_classes))
    for i in range(n):
        value[i] = np.bincount(y[reach[i]], weights=w[reach[i]], minlength=n_classes)
    total = value.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(total[:, None] > 0, value / total[:, None], 0.0)
    return Tree(first_child=shape.first_child.copy(), n_children=shape.n_children.copy(),
                feature=shape.feature.copy(), threshold=threshold,
                category_offset=shape.category_offset.copy(),
                category_child=shape.category_child.copy(), value=value,
                impurity=1.0 - np.sum(p * p, axis=1),
                n_node_samples=np.asarray([np.count_nonzero(r) for r in reach], dtype=np.int64),
                weighted_n_node_samples=total, n_categories=np.zeros(X.shape[1], dtype=np.int64))


class _Rows:
    """Rows STreeD is fit on at several sizes: their labels encoded ``0 .. K-1`` of the classes
    present (a fold may lack a class) and STreeD's binarization of them, computed once."""

    def __init__(self, X, y):
        self.X, self.y = X, y
        _, encoded = fit_labels(y, y.shape[0], "STreeD", min_classes=1)
        self.encoded = encoded.astype(np.int64)
        self.binarized = _binarized(X, self.encoded)


def _size_tree(rows: _Rows, n_leaves, max_depth, seed, n_classes, w=None):
    """STreeD's tree of at most ``n_leaves`` leaves on these rows, as a flat tree over all
    ``n_classes``."""
    model = _fit_streed(rows.X, rows.encoded, n_leaves, max_depth, seed, rows.binarized)
    # STreeD gives the structure; the leaves are labelled by the majority of all classes
    return streed_tree(model, rows.X, rows.y, n_classes, w)


def optimal_candidates(X, y, splits, *, max_leaves: int, max_depth: int, n_classes: int,
                       seed: int = 0, sample_weight=None) -> list[OptimalCandidate]:
    """STreeD's trees of ``2 .. max_leaves`` leaves on all the rows, each with its CV sums.

    Parameters
    ----------
    X : ndarray of float64, shape (n_rows, n_features)
        The training rows (numeric, no missing value: :func:`optimal_unavailable`).
    y : ndarray of int, shape (n_rows,)
        Their class indices.
    splits : list of (ndarray, ndarray)
        ``(train_idx, val_idx)`` of the CV folds (those of the path).
    max_leaves, max_depth : int
        Sizes ``L = 2 .. max_leaves``; depth limit of every tree.
    n_classes : int
        Classes of ``y`` (the trees' ``value`` columns).
    seed : int, default=0
        STreeD's ``random_seed``.
    sample_weight : ndarray, optional
        Weights of the rows (uniform: :func:`optimal_unavailable`); they weigh the CV loss.

    Returns
    -------
    list of OptimalCandidate
        One per size whose tree has exactly that many leaves (STreeD's tree of at most ``L``
        leaves with fewer is the tree of a smaller size again).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    out = []
    everything = _Rows(X, y)
    folds = None  # binarized on the first size that needs them
    for n_leaves in range(2, max_leaves + 1):
        tree = _size_tree(everything, n_leaves, max_depth, seed, n_classes, w)
        if tree is None or tree.n_leaves != n_leaves:
            continue
        if folds is None:
            folds = [_Rows(X[train], y[train]) for train, _ in splits]
        loss = square = 0.0
        for (train, val), rows in zip(splits, folds, strict=True):
            fold = _size_tree(rows, n_leaves, max_depth, seed, n_classes, w[train])
            if fold is None:  # a degenerate test: the fold's tree is the majority leaf
                predicted = np.full(val.shape[0], int(np.argmax(np.bincount(
                    y[train], weights=w[train], minlength=n_classes))))
            else:
                predicted = fold.majority_class[fold.apply(X[val])]
            wrong = (predicted != y[val]).astype(np.float64)
            loss += float(np.dot(wrong, w[val]))
            square += float(np.dot(wrong * wrong, w[val]))
        out.append(OptimalCandidate(n_leaves, tree, loss, square))
    return out
