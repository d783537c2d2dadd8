"""What the greedy estimators add for code written against scikit-learn's trees: ``tree_`` in
scikit-learn's layout, ``feature_importances_``, ``cost_complexity_pruning_path``, scikit-learn's
checks of ``X`` and ``y`` and its ``class_weight``.

The fitted flat tree (treebound's layout, what pruning, the certificates and the model files
read) is kept once; ``tree_`` is a :class:`~treebound._flat._sklearn_view.SklearnTree` view of it,
built when the tree is set (``tree_.flat`` is the flat tree).
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import issparse
from sklearn.base import clone
from sklearn.utils import Bunch, compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from treebound._config import read_only
from treebound._flat._sklearn_view import SklearnTree, as_flat, feature_importances
from treebound._kernels.value_checks import HAS_BEYOND_LIMIT, HAS_INFINITE, value_flags
from treebound.pruning.cost_complexity import cost_complexity_path

__all__ = ["FLOAT32_MAX", "SklearnTreeMixin", "check_float32_range", "check_target_not_sparse",
           "class_weight_factors", "refuse_beyond_float32"]

#: scikit-learn reads ``X`` as float32: larger magnitudes are refused, with its message.
FLOAT32_MAX = float(np.finfo(np.float32).max)


def check_float32_range(X_enc: np.ndarray, n_categories: np.ndarray) -> None:
    """Refuse numeric values beyond float32's range, as scikit-learn does (it computes on
    float32 copies of ``X``); treebound keeps float64 values, so the trees are unchanged.

    Examples
    --------
    >>> check_float32_range(np.array([[1e40]]), np.array([0]))
    Traceback (most recent call last):
    ...
    ValueError: Input X contains infinity or a value too large for dtype('float32').
    """
    numeric = np.asarray(n_categories) == 0
    if not numeric.any():
        return
    if hasattr(X_enc, "tocsc"):  # a sparse X: its stored values (the others are 0)
        values = np.ascontiguousarray(X_enc.data, dtype=np.float64).reshape(1, -1)
        columns = np.empty(0, dtype=np.int64)
    else:
        # one pass over the numeric columns in place: no copy of X, no temporary
        values = np.asarray(X_enc, dtype=np.float64)
        if values.ndim != 2 or not values.flags.c_contiguous:
            values = np.ascontiguousarray(values).reshape(values.shape[0], -1)
        columns = (np.empty(0, dtype=np.int64) if numeric.all()
                   else np.flatnonzero(numeric).astype(np.int64))
    refuse_beyond_float32(value_flags(read_only(values), columns, FLOAT32_MAX))


def refuse_beyond_float32(flags: int) -> None:
    """scikit-learn's ``ValueError`` when the :func:`~treebound._kernels.value_checks.
    value_flags` of the numeric values against :data:`FLOAT32_MAX` found infinity or a larger
    value (:func:`check_float32_range` from flags already read)."""
    if flags & (HAS_INFINITE | HAS_BEYOND_LIMIT):
        raise ValueError("Input X contains infinity or a value too large for "
                         "dtype('float32').")


def check_target_not_sparse(y) -> None:
    """scikit-learn's trees take a dense ``y`` only: a sparse one is a ``TypeError``."""
    if issparse(y):
        raise TypeError("A sparse matrix was passed for y, but dense data is required: convert "
                        "it with y.toarray()")


def class_weight_factors(class_weight, y) -> np.ndarray | None:
    """Per-row factors of ``class_weight`` (scikit-learn's ``compute_sample_weight`` on the
    original labels: a dict, ``"balanced"``, or a list of them, one per output), or None."""
    if class_weight is None:
        return None
    return np.asarray(compute_sample_weight(class_weight, y), dtype=np.float64)


def check_class_weight_outputs(class_weight, y) -> None:
    """scikit-learn's ``ValueError`` for a ``class_weight`` that does not fit a 2-D ``y`` (a list
    of another length than the outputs, a dict for several outputs), raised before the targets
    are read, as scikit-learn raises it."""
    if class_weight is None or y is None:
        return
    shape = np.shape(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if len(shape) == 2 and shape[1] > 1:
        compute_sample_weight(class_weight, np.asarray(y))


class SklearnTreeMixin:
    """``tree_`` (scikit-learn's layout over the flat tree), ``feature_importances_`` and
    ``cost_complexity_pruning_path`` for the greedy estimators."""

    @property
    def tree_(self) -> SklearnTree:
        """The fitted tree with scikit-learn's attribute names and shapes (``tree_.flat`` is
        treebound's flat tree)."""
        view = self.__dict__.get("_sklearn_tree")
        if view is None:
            raise AttributeError(f"{type(self).__name__} has no tree_: call fit first")
        return view

    @tree_.setter
    def tree_(self, tree) -> None:
        # built once here, never on a read: predict must leave the estimator's __dict__ alone
        flat = as_flat(tree)
        self.__dict__["_flat_tree"] = flat
        self.__dict__["_sklearn_tree"] = SklearnTree(flat, self._output_classes(flat))

    def _output_classes(self, flat) -> np.ndarray:
        """Classes of each output (ones for regression), for ``tree_.n_classes``."""
        if not hasattr(self, "classes_"):
            return np.ones(flat.n_outputs, dtype=np.intp)
        if isinstance(self.classes_, list):  # one array of classes per output
            return np.array([len(c) for c in self.classes_], dtype=np.intp)
        return np.array([len(self.classes_)], dtype=np.intp)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Normalized total impurity decrease brought by each feature (scikit-learn's
        definition; a multiway test credits its feature with the parent's weighted impurity
        minus the sum over its children). All zeros for a tree without a split.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> DecisionTreeClassifier(max_depth=1).fit(X, y).feature_importances_.tolist()
        [0.0, 0.0, 1.0, 0.0]
        """
        check_is_fitted(self)
        return feature_importances(self.__dict__["_flat_tree"])

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """The minimal cost-complexity pruning path of the tree grown on ``X, y`` with these
        parameters (``ccp_alpha`` and ``pruning`` ignored), as scikit-learn computes it.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        sklearn.utils.Bunch
            ``ccp_alphas``: the effective alphas of the subtrees, increasing (ties are separate
            entries); ``impurities``: the total leaf impurity (as a fraction of the root's
            weight) of each subtree. ``ccp_alpha=ccp_alphas[i]`` gives subtree ``i``.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> path = DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(X, y)
        >>> path.ccp_alphas.round(4).tolist()[:3], float(path.impurities[-1].round(4))
        ([0.0, 0.0065, 0.0089], 0.6667)
        """
        grown = clone(self).set_params(ccp_alpha=0.0, pruning=None)
        grown.fit(X, y, sample_weight=sample_weight)
        alphas, impurities = cost_complexity_path(grown.__dict__["_flat_tree"], "impurity")
        return Bunch(ccp_alphas=alphas, impurities=impurities)
