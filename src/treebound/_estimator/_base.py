"""What every treebound tree estimator shares: encoding, routing, persistence and the
classifier outputs. The greedy estimators (:mod:`treebound.tree._classes`) and
:class:`~treebound.DyadicTreeClassifier` both build on it; neither imports the other's package."""

from __future__ import annotations

import functools

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from treebound._estimator._model_format import model_from_dict, model_to_dict
from treebound._flat._labels import fit_labels
from treebound._flat._outputs import output_predictions, output_probabilities
from treebound._flat._sklearn_view import as_flat
from treebound._flat._sparse import is_sparse
from treebound._validation import validate_parameters
from treebound.theory.structures import TreeStructure

__all__ = ["BaseTreeEstimator", "TreeClassifierMixin", "check_fit_columns", "check_two_dimensional"]


def check_two_dimensional(X, sparse: bool = False) -> None:
    """A ``ValueError`` unless ``X`` is 2-D; a ``TypeError`` for a sparse ``X`` unless
    ``sparse`` (an estimator that reads sparse matrices)."""
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        if sparse:
            return
        raise TypeError("sparse input is not supported: pass a dense array or DataFrame")
    ndim = X.ndim if hasattr(X, "ndim") else np.ndim(np.asarray(X, dtype=object))
    if ndim != 2:
        raise ValueError(
            f"Expected 2D array, got {ndim}D array instead. Reshape your data either using "
            "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) if "
            "it contains a single sample."
        )


def check_fit_columns(model, X) -> None:
    """What ``validate_data(model, X, reset=True, skip_check_array=True)`` does in ``fit``:
    ``n_features_in_`` and ``feature_names_in_`` (the column names of a DataFrame, none for an
    array). A plain 2-D array has no names: set directly, as scikit-learn sets them (its check
    of dataframe libraries costs more than the rest of the checks of a small fit)."""
    if type(X) is np.ndarray and X.ndim == 2:
        model.__dict__.pop("feature_names_in_", None)
        model.n_features_in_ = X.shape[1]
        return
    validate_data(model, X, reset=True, skip_check_array=True)


#: Types of parameter values whose acceptance depends on type and value only.
_PLAIN_TYPES = frozenset((type(None), str, bool, int, float))
#: ``(estimator class, ((type, value), ...)) -> the constraints that accepted them``.
_ACCEPTED_PARAMS: dict = {}


@functools.cache
def _param_names(cls) -> tuple[str, ...]:
    """scikit-learn's parameter names of an estimator class (from its ``__init__``)."""
    return tuple(cls._get_param_names())


class BaseTreeEstimator(BaseEstimator):
    """Encoding, routing and persistence of a fitted flat tree (``tree_``, ``encoder_``).

    Subclasses declare ``_parameter_constraints`` and fit ``tree_`` and ``encoder_``.
    """

    _parameter_constraints: dict = {}

    def _validate_stored_params(self) -> None:
        # get_params(deep=False) reads the same attributes but inspects the signature each call
        cls, constraints = type(self), self._parameter_constraints
        params = {name: getattr(self, name) for name in _param_names(cls)}
        # Plain values (None, str, bool, int, float; the type is in the key, so True is not 1)
        # accepted once by these constraints are accepted again without the checks: refits
        # and fits of many estimators with the same parameters validate them once.
        key = None
        if all(type(v) in _PLAIN_TYPES for v in params.values()):
            key = (cls, tuple((type(v), v) for v in params.values()))
            if _ACCEPTED_PARAMS.get(key) is constraints:
                return
        validate_parameters(cls.__name__, params, constraints)
        if key is not None and len(_ACCEPTED_PARAMS) < 256:
            _ACCEPTED_PARAMS[key] = constraints

    #: Whether NaN in X is a missing value the tree routes (else it is refused).
    _accepts_missing = False
    #: Whether X may be a scipy.sparse matrix (numeric features).
    _accepts_sparse = False

    def _encode(self, X) -> np.ndarray:
        check_is_fitted(self, "tree_")
        check_two_dimensional(X, self._accepts_sparse)
        validate_data(self, X, reset=False, skip_check_array=True)
        return self._refuse_missing(
            self.encoder_.transform(X, getattr(self, "handle_unknown", "error")))

    def _refuse_missing(self, X_enc: np.ndarray) -> np.ndarray:
        """``X_enc``, or a one-line ``ValueError`` when it holds NaN and this estimator does not
        route missing values."""
        if not self._accepts_missing and not is_sparse(X_enc) and np.isnan(X_enc).any():
            column = int(np.flatnonzero(np.isnan(X_enc).any(axis=0))[0])
            raise ValueError(
                f"Input X contains NaN (column {column}): {type(self).__name__} places its cells "
                "by coordinates and has no rule for a missing one; impute it first")
        return X_enc

    # -------------------------------------------------------------- routing
    def encode(self, X) -> np.ndarray:
        """The float64 matrix the tree's tests read: numeric columns as given, categorical
        columns as level codes (the order of ``encoder_``'s categories; a level never seen in
        training gets the code ``K``, the number of known levels, under
        ``handle_unknown="heaviest_child"``).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features_in_)

        Returns
        -------
        ndarray of float64, shape (n_samples, n_features_in_)

        Examples
        --------
        >>> import pandas as pd
        >>> from treebound import DecisionTreeClassifier
        >>> X = pd.DataFrame({"size": [1.0, 2.0, 3.0, 4.0],
        ...                   "color": pd.Categorical(["red", "blue", "red", "blue"])})
        >>> model = DecisionTreeClassifier().fit(X, [0, 0, 1, 1])
        >>> model.encode(X).tolist()  # blue = 0, red = 1
        [[1.0, 1.0], [2.0, 0.0], [3.0, 1.0], [4.0, 0.0]]
        """
        return self._encode(X)

    def apply(self, X, check_input: bool = True) -> np.ndarray:
        """Node id of the leaf each row ends in.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features_in_)
            Rows with the features the model was fitted on.
        check_input : bool, default=True
            scikit-learn's switch to skip the checks of ``X``; accepted for its signature,
            while treebound always checks and encodes the rows.

        Returns
        -------
        ndarray of int64, shape (n_samples,)
            Ids into the arrays of ``tree_`` (leaves only).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> model = DecisionTreeClassifier(max_depth=1).fit(X, y)
        >>> sorted(set(model.apply(X).tolist()))
        [1, 2]
        """
        X_enc = self._encode(X)
        return self.tree_.apply(X_enc)

    def decision_path(self, X, check_input: bool = True):
        """The nodes each row visits, from the root to its leaf.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features_in_)
            Rows with the features the model was fitted on.
        check_input : bool, default=True
            scikit-learn's switch to skip the checks of ``X``; accepted for its signature,
            while treebound always checks and encodes the rows.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            Entry ``(i, j)`` is 1 when row ``i`` passes through node ``j``.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> path = DecisionTreeClassifier(max_depth=1).fit(X, y).decision_path(X[:2])
        >>> path.toarray().tolist()
        [[1, 1, 0], [1, 1, 0]]
        """
        X_enc = self._encode(X)
        return self.tree_.decision_path(X_enc)

    def get_depth(self) -> int:
        """Depth of the tree: the longest root-to-leaf path (a single leaf has depth 0).

        Returns
        -------
        int

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> DecisionTreeClassifier(max_depth=2).fit(X, y).get_depth()
        2
        """
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves.

        Returns
        -------
        int

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> DecisionTreeClassifier(max_leaf_nodes=5, growth="top_down").fit(X, y).get_n_leaves()
        5
        """
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    def structure(self):
        """The tree's shape, for the theory functions (binary trees only).

        Returns
        -------
        treebound.theory.TreeStructure

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> str(DecisionTreeClassifier(max_depth=1).fit(X, y).structure())
        '(L,L)'
        """
        check_is_fitted(self, "tree_")
        return TreeStructure.from_tree(self.tree_)

    # ---------------------------------------------------------- persistence
    def to_dict(self) -> dict:
        """JSON-ready description of the fitted model (``docs/model_format.md``).

        Returns
        -------
        dict
            Plain lists, numbers and strings: ``json.dumps`` writes it as it is.

        Examples
        --------
        >>> import json
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> model = DecisionTreeClassifier(max_depth=2).fit(X, y)
        >>> again = DecisionTreeClassifier.from_dict(json.loads(json.dumps(model.to_dict())))
        >>> bool((again.predict(X) == model.predict(X)).all())
        True
        """
        check_is_fitted(self, "tree_")
        return model_to_dict(self)

    @classmethod
    def from_dict(cls, data: dict):
        """Rebuild a fitted model from :meth:`to_dict` output.

        Parameters
        ----------
        data : dict
            A model description (``docs/model_format.md``); every field is validated
            (``ValueError`` naming the first problem).

        Returns
        -------
        estimator
            A fitted instance of this class.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> data = DecisionTreeClassifier(max_depth=2).fit(X, y).to_dict()
        >>> model = DecisionTreeClassifier.from_dict(data)
        >>> model.get_n_leaves(), model.certificate_.n_examples
        (3, 150)
        """
        return model_from_dict(cls, data)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # the greedy trees route missing values; a dyadic tree needs coordinates
        tags.input_tags.allow_nan = getattr(self, "_accepts_missing", False)
        tags.input_tags.sparse = getattr(self, "_accepts_sparse", False)
        return tags


class TreeClassifierMixin:
    """Class-label handling and probability outputs shared by treebound's tree classifiers.

    Needs ``tree_`` (class counts in ``value``), ``classes_`` and ``apply``.
    """

    @property
    def certificate_(self):
        """The certificate of the fitted tree on its training rows (:class:`~treebound.
        certificates.Certificate`, method ``"auto"``, ``delta = 0.05``): with probability at
        least 0.95 the error rate on new data is at most ``risk_upper_bound`` (at most 1). This
        is the promise to report; a pruned tree's ``pruning_objective_`` is only the score its
        pruning minimized.

        ``fit`` gathers what the bounds read from the training rows; the bounds are computed on
        the first read of this attribute (like scikit-learn's ``feature_importances_``), then
        kept (``pruning="certified"``, which computed the bounds of its candidates, computes
        this one at the end of ``fit``). Equal to ``treebound.certify(model, X, y)`` on the
        training rows. A classifier of several outputs has a list of them, one per output, each
        at ``delta = 0.05 / n_outputs`` (together they hold with probability at least 0.95).
        """
        if "_certificate" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__} has no certificate_: call fit first")
        state = self.__dict__["_certificate"]  # None for a model file saved without one
        if isinstance(state, list):  # several outputs: one certificate each
            state = [c.resolve() if hasattr(c, "resolve") else c for c in state]
            self.__dict__["_certificate"] = state
        elif hasattr(state, "resolve"):  # a PendingCertificate from fit
            state = state.resolve()
            self.__dict__["_certificate"] = state
        return state

    @certificate_.setter
    def certificate_(self, value) -> None:
        self.__dict__["_certificate"] = value

    #: Fewest classes ``fit`` accepts (the greedy classifier fits a one-leaf tree on one class).
    _min_classes = 2

    def _encode_target(self, y, n_samples: int) -> np.ndarray:
        self.classes_, y_enc = fit_labels(y, n_samples, type(self).__name__,
                                          min_classes=self._min_classes)
        return y_enc

    def predict_proba(self, X, check_input: bool = True) -> np.ndarray:
        """Class frequencies (weighted) of the leaf each row reaches.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features_in_)
            Rows with the features the model was fitted on.
        check_input : bool, default=True
            scikit-learn's switch to skip the checks of ``X``; accepted for its signature,
            while treebound always checks and encodes the rows.

        Returns
        -------
        ndarray of float64, shape (n_samples, n_classes)
            Rows sum to 1; columns follow ``classes_`` (uniform at an empty leaf).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> DecisionTreeClassifier(max_depth=1).fit(X, y).predict_proba(X[:1]).tolist()
        [[1.0, 0.0, 0.0]]
        """
        leaves = self.apply(X)
        counts = as_flat(self.tree_).value[leaves]
        if counts.ndim == 3:  # several outputs: a list, one array per output
            return output_probabilities(counts, [len(c) for c in self.classes_])
        totals = counts.sum(axis=1, keepdims=True)
        uniform = np.full_like(counts, 1.0 / counts.shape[1])
        return np.divide(counts, totals, out=uniform, where=totals > 0)

    def predict_log_proba(self, X) -> np.ndarray:
        """Natural log of :meth:`predict_proba` (``-inf`` for a class absent from the leaf).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features_in_)
            Rows with the features the model was fitted on.

        Returns
        -------
        ndarray of float64, shape (n_samples, n_classes)
            Columns follow ``classes_``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> model = DecisionTreeClassifier(max_depth=1).fit(X, y)
        >>> np.round(model.predict_log_proba(X[[0, 100]]), 4).tolist()  # ln(1/2) = -0.6931
        [[0.0, -inf, -inf], [-inf, -0.6931, -0.6931]]
        """
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            if isinstance(proba, list):
                return [np.log(p) for p in proba]
            return np.log(proba)

    def predict(self, X, check_input: bool = True) -> np.ndarray:
        """Majority class of the leaf each row reaches (ties go to the smallest class index).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features_in_)
            Rows with the features the model was fitted on.
        check_input : bool, default=True
            scikit-learn's switch to skip the checks of ``X``; accepted for its signature,
            while treebound always checks and encodes the rows.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> DecisionTreeClassifier(max_depth=1).fit(X, y).predict(X[[0, 100]]).tolist()
        [0, 1]
        """
        leaves = self.apply(X)
        majority = as_flat(self.tree_).majority_class[leaves]
        if majority.ndim == 2:  # several outputs: one column each
            return output_predictions(self.classes_, majority)
        return self.classes_[majority]
