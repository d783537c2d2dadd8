"""Adapters reading optimal sparse trees (STreeD, GOSDT) into treebound's flat tree.

Both libraries learn a tree over *binary* features derived from the real-valued ones, and both
derive them with data-dependent thresholds (STreeD: its built-in ``Binarizer``; GOSDT:
``ThresholdGuessBinarizer`` or ``NumericBinarizer``). A tree over features ``[x_j <= t]`` is
still a tree of real-valued threshold tests ``x_j <= t`` on the *original* features, so the
adapters express every test that way and the certificate is over the original feature space:

* ``hti`` holds uniformly over every tree of the shape with any real thresholds on the ``d``
  original features, so the thresholds being chosen on the training data (by a binarizer, a
  boosted reference model, column elimination ...) costs nothing: the class it is uniform over
  already contains them;
* ``compression`` rebuilds each threshold from two training values with the binarizer's own
  rule: scikit-learn trees compute it as ``a / 2 + b / 2`` on float32 values (STreeD's
  ``"tree"`` strategy and GOSDT's threshold guessing both read it off scikit-learn trees),
  ``(a + b) / 2`` in float64 otherwise (quantile cut points of few-valued columns, GOSDT's
  ``NumericBinarizer``); a threshold no such pair gives (a true quantile, a uniform grid point)
  makes the tree non-compressible and ``auto`` reports ``hti`` at ``delta / 2``.

A column the binarizer passes through as binary (STreeD: every value in ``{0, 1}``; GOSDT's
classifier fed binary features directly) is tested as ``x <= 0.5``. The libraries test it as
"nonzero" (STreeD after truncation to an integer), which is the same on ``{0, 1}``, so the
adapter refuses rows with other values in such a column: there the two classifiers differ.

The adapters never import ``pystreed`` or ``gosdt`` (they read fitted attributes, and
recognise a model by the module of its class).
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_array

from treebound._flat._storage import Tree
from treebound.certificates._deployed import DeployedTree, sklearn_midpoint, treebound_midpoint

__all__ = ["float32_sklearn_midpoint", "from_gosdt", "from_streed", "is_gosdt", "is_streed"]


def float32_sklearn_midpoint(low, high) -> np.ndarray:
    """scikit-learn's threshold between two values a tree saw as float32: the float64 values
    rounded to float32, then :func:`sklearn_midpoint`."""
    low = np.asarray(low, dtype=np.float64).astype(np.float32)
    high = np.asarray(high, dtype=np.float64).astype(np.float32)
    return sklearn_midpoint(low, high)


def _library(model) -> str:
    return type(model).__module__.split(".")[0]


def is_streed(model) -> bool:
    """A ``pystreed`` classifier (recognised by its module, without importing pystreed)."""
    return _library(model) == "pystreed" and hasattr(model, "classes_") \
        and hasattr(model, "fit_result")


def is_gosdt(model) -> bool:
    """A ``GOSDTClassifier``, or a scikit-learn ``Pipeline`` ending in one."""
    if _library(model) == "gosdt" and type(model).__name__ == "GOSDTClassifier":
        return True
    steps = getattr(model, "steps", None)
    if type(model).__name__ != "Pipeline" or not steps:
        return False
    last = steps[-1][1]
    return _library(last) == "gosdt" and type(last).__name__ == "GOSDTClassifier"


# ------------------------------------------------------------------------ the flat tree
class _Node:
    """One node while reading a foreign tree: a leaf (``label``) or a test ``x[feature] <=
    threshold`` with the child taking that side first."""

    __slots__ = ("feature", "threshold", "low", "high", "label")

    def __init__(self, feature=-1, threshold=np.nan, low=None, high=None, label=-1):
        self.feature, self.threshold, self.low, self.high, self.label = (
            feature, threshold, low, high, label)


def _flat_tree(root: _Node, features: np.ndarray, n_classes: int, n_features: int):
    """The :class:`Tree` (breadth first, children contiguous) and the class of every node.

    ``value`` holds the counts of the rows of ``features`` reaching each node in the column of
    the class the node predicts (a foreign tree keeps no class counts the adapters trust), so
    ``majority_class`` is the prediction at a leaf; ``n_node_samples`` counts those rows.
    """
    order = [root]
    reach = [np.ones(features.shape[0], dtype=bool)]
    first_child, feature, threshold, label = [], [], [], []
    head = 0
    while head < len(order):
        node, rows = order[head], reach[head]
        if node.low is None:
            first_child.append(-1)
            feature.append(-1)
            threshold.append(np.nan)
        else:
            first_child.append(len(order))
            feature.append(node.feature)
            threshold.append(node.threshold)
            goes_low = features[:, node.feature] <= node.threshold
            order += [node.low, node.high]
            reach += [rows & goes_low, rows & ~goes_low]
        label.append(node.label)
        head += 1
    first_child = np.asarray(first_child, dtype=np.int64)
    internal = first_child >= 0
    counts = np.asarray([np.count_nonzero(r) for r in reach], dtype=np.int64)
    leaf_class = np.asarray(label, dtype=np.int64)
    # an internal node "predicts" the class of its first leaf (only leaves are ever read)
    for i in range(len(order) - 1, -1, -1):
        if internal[i]:
            leaf_class[i] = leaf_class[first_child[i]]
    value = np.zeros((len(order), n_classes), dtype=np.float64)
    value[np.arange(len(order)), leaf_class] = np.maximum(counts, 1)
    tree = Tree(
        first_child=first_child,
        n_children=np.where(internal, 2, 0).astype(np.int64),
        feature=np.asarray(feature, dtype=np.int64),
        threshold=np.asarray(threshold, dtype=np.float64),
        category_offset=np.full(len(order), -1, dtype=np.int64),
        category_child=np.empty(0, dtype=np.int64),
        value=value,
        impurity=np.zeros(len(order), dtype=np.float64),
        n_node_samples=counts,
        weighted_n_node_samples=counts.astype(np.float64),
        n_categories=np.zeros(n_features, dtype=np.int64),
    )
    return tree, leaf_class


def _numeric_matrix(X, n_features: int, what: str) -> np.ndarray:
    values = check_array(X, dtype=np.float64, ensure_all_finite=True)
    if values.shape[1] != n_features:
        raise ValueError(f"X has {values.shape[1]} features, but this {what} was fit on "
                         f"{n_features}")
    return values


def _require_binary(features: np.ndarray, columns, what: str) -> None:
    for j in columns:
        column = features[:, j]
        if not np.all((column == 0) | (column == 1)):
            bad = np.unique(column[(column != 0) & (column != 1)])[:3].tolist()
            raise ValueError(
                f"feature {j} was binary when the {what} was fit and is tested as nonzero; X "
                f"holds {bad} there, where that test and x <= 0.5 differ: certify needs the "
                "rows the model was fit on")


def _midpoint_rule(sklearn_made: bool):
    """The rule that rebuilds the thresholds from two training values (module docstring)."""
    return float32_sklearn_midpoint if sklearn_made else treebound_midpoint


# ------------------------------------------------------------------------------ STreeD
def from_streed(model, X) -> DeployedTree:
    """A fitted ``pystreed.STreeDClassifier`` over its original (pre-binarization) features.

    STreeD sends a row whose binary feature is *not* satisfied to ``left_child``; a binarized
    continuous feature is ``x_j <= t``, so ``x_j <= t`` leads to ``right_child``.
    """
    if not hasattr(model, "tree_"):
        raise ValueError(f"this {type(model).__name__} is not fitted (or found no feasible tree)")
    binarizer = model.binarizer_
    if getattr(binarizer, "categorical_columns", None):
        raise ValueError("certify reads STreeD trees over numeric features only; this one "
                         f"one-hot encodes categorical columns {binarizer.categorical_columns}")
    if getattr(binarizer, "binary_feature_limiter", None) is not None:
        raise ValueError("certify cannot read a STreeD tree fit with max_num_binary_features")
    if any(isinstance(c, str) for c in list(binarizer.binary_columns)
           + list(binarizer.continuous_columns)):
        raise ValueError("certify reads STreeD trees fit on arrays, not on named DataFrame "
                         "columns: refit it on X.to_numpy()")
    n_features = int(model.n_features_in_) if hasattr(model, "n_features_in_") else None
    # the matrix STreeD binarized: n_features_in_ of a STreeD model counts binary features
    n_original = len(binarizer.binary_columns) + len(binarizer.continuous_columns)
    features = _numeric_matrix(X, n_original, "STreeD model")
    # binary feature index -> (original column, threshold, does x <= t satisfy it?)
    tests = [(int(j), 0.5, False) for j in binarizer.binary_columns]
    continuous = binarizer.continuous_binarizer
    strategy = getattr(continuous, "strategy", None)
    if continuous is not None:
        for jj, column in enumerate(binarizer.continuous_columns):
            for t in continuous.thresholds_[jj][: continuous.n_thresholds_[jj]]:
                tests.append((int(column), float(t), True))
    if n_features is not None and n_features != len(tests):
        raise ValueError(f"STreeD model has {n_features} binary features but its binarizer "
                         f"describes {len(tests)}")
    _require_binary(features, binarizer.binary_columns, "STreeD model")
    classes = np.asarray(model.classes_)

    def read(node) -> _Node:
        if node.is_leaf_node():
            position = np.flatnonzero(classes == node.label)
            if position.size == 0:
                raise ValueError(f"STreeD leaf predicts {node.label!r}, not one of its classes")
            return _Node(label=int(position[0]))
        column, t, low_satisfies = tests[int(node.feature)]
        satisfied, unsatisfied = read(node.right_child), read(node.left_child)
        if low_satisfies:
            return _Node(column, t, satisfied, unsatisfied)
        return _Node(column, t, unsatisfied, satisfied)

    tree, leaf_class = _flat_tree(read(model.tree_), features, classes.shape[0], n_original)
    midpoint = _midpoint_rule(strategy == "tree")
    return DeployedTree(tree=tree, features=features, classes=classes, leaf_class=leaf_class,
                        n_categories=np.zeros(n_original, dtype=np.int64), midpoint=midpoint,
                        family="streed", n_fit_rows=int(np.asarray(model.train_y_).shape[0]),
                        model=model)


# ------------------------------------------------------------------------------- GOSDT
def from_gosdt(model, X) -> DeployedTree:
    """A fitted ``gosdt.GOSDTClassifier`` (``X``: the binary features it was fit on) or a
    ``Pipeline`` of a gosdt binarizer and a ``GOSDTClassifier`` (``X``: original features).

    GOSDT sends a row whose binary feature is true (nonzero) to the ``"true"`` child; a guessed
    feature is ``x_j <= t``, so ``x_j <= t`` leads to the ``"true"`` child.
    """
    binarizer = None
    classifier = model
    if type(model).__name__ == "Pipeline":
        if len(model.steps) != 2:
            raise ValueError("certify reads a GOSDT Pipeline of exactly two steps: a gosdt "
                             "binarizer (ThresholdGuessBinarizer or NumericBinarizer) and a "
                             "GOSDTClassifier")
        binarizer, classifier = model.steps[0][1], model.steps[1][1]
    if not hasattr(classifier, "trees_"):
        raise ValueError("this GOSDTClassifier is not fitted")
    if len(classifier.trees_) != 1:
        raise ValueError(f"certify reads one tree; this GOSDTClassifier holds "
                         f"{len(classifier.trees_)} (model_limit > 1)")
    n_binary = int(classifier.n_features_)
    if binarizer is None:
        features = _numeric_matrix(X, n_binary, "GOSDTClassifier")
        _require_binary(features, range(n_binary), "GOSDTClassifier")
        tests = [(j, 0.5, False) for j in range(n_binary)]
        sklearn_made = False
    else:
        kind = type(binarizer).__name__
        if kind == "ThresholdGuessBinarizer":
            pairs = [(int(j), float(t)) for j, t in binarizer.thresholds_]
            sklearn_made = True
        elif kind == "NumericBinarizer":
            pairs = []
            for j, values in enumerate(binarizer.column_values_):
                values = np.asarray(values, dtype=np.float64)
                pairs += [(j, float(v)) for v in (values[:-1] + values[1:]) / 2]
            sklearn_made = False
        else:
            raise ValueError(f"certify reads GOSDT pipelines binarized by ThresholdGuessBinarizer "
                             f"or NumericBinarizer, not {kind}")
        if len(pairs) != n_binary:
            raise ValueError(f"the binarizer makes {len(pairs)} features but the GOSDTClassifier "
                             f"was fit on {n_binary}")
        features = _numeric_matrix(X, int(binarizer.n_features_in_), "GOSDT pipeline")
        tests = [(j, t, True) for j, t in pairs]
    n_original = features.shape[1]
    classes = np.asarray(classifier.classes_)

    def read(node) -> _Node:
        if hasattr(node, "prediction"):
            return _Node(label=int(node.prediction))
        column, t, low_is_true = tests[int(node.feature)]
        true_child, false_child = read(node.left_child), read(node.right_child)
        if low_is_true:
            return _Node(column, t, true_child, false_child)
        return _Node(column, t, false_child, true_child)

    tree, leaf_class = _flat_tree(read(classifier.trees_[0].tree), features, classes.shape[0],
                                  n_original)
    return DeployedTree(tree=tree, features=features, classes=classes, leaf_class=leaf_class,
                        n_categories=np.zeros(n_original, dtype=np.int64),
                        midpoint=_midpoint_rule(sklearn_made), family="gosdt",
                        n_fit_rows=int(classifier.n_samples_), model=model)
