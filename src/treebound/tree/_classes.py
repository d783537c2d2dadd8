"""Greedy tree estimators: they validate, encode and dispatch to the functional core.

``DecisionTreeClassifier`` and ``DecisionTreeRegressor`` share one constructor and one
parameter documentation; growth and pruning run in :func:`treebound.tree._fit.fit_tree`.

Examples
--------
>>> from sklearn.datasets import load_iris
>>> from treebound import DecisionTreeClassifier
>>> X, y = load_iris(return_X_y=True)
>>> model = DecisionTreeClassifier(growth="top_down", max_leaf_nodes=4).fit(X, y)
>>> model.get_n_leaves()
4
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import column_or_1d, validate_data

from treebound._estimator._base import BaseTreeEstimator, TreeClassifierMixin, check_two_dimensional
from treebound._flat._encoding import HANDLE_UNKNOWN, FeatureEncoder, resolve_categorical
from treebound._validation import InstanceOf, Interval, Options, RealNotInt, check_sample_weight
from treebound.certificates import fit_certificate
from treebound.pruning._registry import METHODS as PRUNING_METHODS
from treebound.tree._builder import (
    CATEGORICAL_SPLITS,
    CLASSIFICATION_CRITERIA,
    GROWTH_POLICIES,
    REGRESSION_CRITERIA,
    SPLITTERS,
    GrowthSettings,
)
from treebound.tree._fit import fit_tree

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "GreedyTree", "auto_leaf_budget",
           "growth_settings", "set_pruning_state"]

_COMMON_CONSTRAINTS = {
    "growth": [Options(tuple(GROWTH_POLICIES))],
    "splitter": [Options(SPLITTERS)],
    "max_bins": [Interval(int, 2, 65535)],
    "max_depth": [None, Interval(int, 0, None)],
    "max_leaf_nodes": [None, Interval(int, 2, None), Options(("auto",))],
    "min_samples_split": [Interval(int, 2, None), Interval(RealNotInt, 0.0, 1.0, "right")],
    "min_samples_leaf": [Interval(int, 1, None), Interval(RealNotInt, 0.0, 1.0, "neither")],
    "min_impurity_decrease": [Interval(float, 0.0, None)],
    "max_features": [None, Interval(int, 1, None), Interval(RealNotInt, 0.0, 1.0, "right"),
                     Options(("sqrt", "log2"))],
    "categorical_features": [None, Options(("auto",)),
                             InstanceOf((list, tuple, np.ndarray), "a list of column indices, "
                                        "names or a boolean mask")],
    "categorical_split": [Options(CATEGORICAL_SPLITS)],
    "random_state": [None, Interval(int, 0, 2**32 - 1),
                     InstanceOf((np.random.RandomState,), "a numpy RandomState")],
    "pruning": [None, Options(PRUNING_METHODS)],
    "pruning_params": [None, InstanceOf((dict,), "a dict of options of the pruning method")],
    "handle_unknown": [Options(HANDLE_UNKNOWN)],
}


def auto_leaf_budget(n_samples: int) -> int:
    """Leaf budget of ``max_leaf_nodes="auto"`` before bound pruning: ``ceil(2 sqrt(n))``, at
    least 2.

    Bound pruning (Leboeuf et al. Algorithm 3) removes little from a tree grown in ``top_down``
    order, so the budget sets the size; ``2 sqrt(n)`` is the best of the rules measured on the
    tuning data whose slowest fit stays under 10 s (``benchmarks/results/defaults_tuning_bound.md``,
    ``docs/pruning.md``); trees grown to purity take minutes to prune.

    >>> auto_leaf_budget(100), auto_leaf_budget(6093)
    (20, 157)
    """
    return max(2, math.ceil(2.0 * math.sqrt(n_samples)))


def _json_ready(value):
    """Plain Python numbers, lists and dicts (what the JSON model format stores)."""
    if isinstance(value, dict):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [_json_ready(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _check_pruning_path(path, tree) -> None:
    """A stored pruning path: ``[n_leaves, objective]`` pairs of the trees pruning visited, so
    ``n_leaves`` never increases and never exceeds the training rows at the root (every leaf
    of the grown tree held one); the length follows (checked first: a hostile file may hold
    millions of entries)."""
    what = "model field extra.pruning_path"
    if not isinstance(path, list):
        raise ValueError(f"{what} must be a list of [n_leaves, objective] pairs")
    rows = int(tree.n_node_samples[0])
    if len(path) > rows + 1:
        raise ValueError(f"{what} has {len(path)} entries, more than the {rows} training rows "
                         "allow")
    previous = rows
    for p in path:
        if not (isinstance(p, list) and len(p) == 2 and isinstance(p[0], int)
                and not isinstance(p[0], bool)
                and (p[1] is None or (isinstance(p[1], int | float)
                                      and not isinstance(p[1], bool)))):
            raise ValueError(f"{what} must be a list of [n_leaves, objective] pairs")
        if not 1 <= p[0] <= previous:
            raise ValueError(f"{what}: n_leaves must stay between 1 and the {rows} training "
                             f"rows and never increase, got {p[0]} after {previous}")
        previous = p[0]
    if path and len(path) > path[0][0] + 1:
        raise ValueError(f"{what} has {len(path)} entries for a tree grown with {path[0][0]} "
                         "leaves")



def growth_settings(model, n_samples: int, n_features: int) -> GrowthSettings:
    """The :class:`GrowthSettings` a greedy estimator's parameters resolve to on data of this
    size (fractions of rows, ``max_features`` names, ``"auto"`` budgets, the seed)."""
    min_split = model.min_samples_split
    if isinstance(min_split, float):
        min_split = max(2, math.ceil(min_split * n_samples))
    min_leaf = model.min_samples_leaf
    if isinstance(min_leaf, float):
        min_leaf = max(1, math.ceil(min_leaf * n_samples))
    mf = model.max_features
    if mf is None:
        max_features = n_features
    elif mf == "sqrt":
        max_features = max(1, int(math.sqrt(n_features)))
    elif mf == "log2":
        max_features = max(1, int(math.log2(n_features)))
    elif isinstance(mf, numbers.Integral):
        max_features = min(int(mf), n_features)
    else:
        max_features = max(1, int(mf * n_features))
    seed = int(check_random_state(model.random_state).randint(np.iinfo(np.int32).max))
    max_leaf_nodes = model.max_leaf_nodes
    if max_leaf_nodes == "auto":
        max_leaf_nodes = auto_leaf_budget(n_samples) if model.pruning == "bound" else None
    return GrowthSettings(
        criterion=model.criterion,
        growth=model.growth,
        splitter=model.splitter,
        max_bins=int(model.max_bins),
        max_depth=model.max_depth,
        max_leaf_nodes=max_leaf_nodes,
        min_samples_split=int(min_split),
        min_samples_leaf=int(min_leaf),
        min_impurity_decrease=float(model.min_impurity_decrease),
        max_features=int(max_features),
        categorical_split=model.categorical_split,
        seed=seed,
    )


def set_pruning_state(model, result) -> None:
    """Store a pruning's outcome on a fitted greedy estimator (``tree_`` and the fitted
    ``bound_``, ``pruning_path_``, ``pruning_time_``, ``pruning_info_``); None = no pruning."""
    if result is None:
        model.bound_, model.pruning_path_, model.pruning_time_, model.pruning_info_ = \
            None, [], 0.0, {}
        return
    model.tree_ = result.tree
    model.bound_ = result.bound
    model.pruning_path_ = [(int(n), float(obj)) for n, obj in result.path]
    model.pruning_time_ = float(result.time)
    model.pruning_info_ = _json_ready(result.info)


class GreedyTree(BaseTreeEstimator):
    """Greedy growth (criteria, growth orders, stopping rules) and pruning, shared by the
    classifier and the regressor."""

    def _encode_fit(self, X):
        check_two_dimensional(X)
        validate_data(self, X, reset=True, skip_check_array=True)
        n_features = self.n_features_in_
        mask = resolve_categorical(X, self.categorical_features, n_features)
        encoder, X_enc = FeatureEncoder.fit(X, mask)
        self.encoder_ = encoder
        return X_enc

    def _fit_encoded(self, X_enc, y_enc, sample_weight, n_classes):
        settings = growth_settings(self, X_enc.shape[0], X_enc.shape[1])
        tree, result = fit_tree(X_enc, y_enc, sample_weight, self.encoder_.n_categories,
                                settings, n_classes=n_classes, pruning=self.pruning,
                                pruning_params=self.pruning_params)
        self.tree_ = tree
        set_pruning_state(self, result)
        return self

    def _extra_state(self) -> dict:
        return {"bound": getattr(self, "bound_", None),
                "pruning_path": [list(p) for p in getattr(self, "pruning_path_", [])],
                "pruning_info": getattr(self, "pruning_info_", {})}

    def _restore_extra_state(self, extra: dict) -> None:
        bound = extra.get("bound")
        if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int | float)):
            raise ValueError("model field extra.bound must be a number or null")
        path = extra.get("pruning_path", [])
        _check_pruning_path(path, self.tree_)
        # Timings are not part of the model (same data and seed -> identical file); a file may
        # still carry one.
        seconds = extra.get("pruning_time", math.nan)
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
            raise ValueError("model field extra.pruning_time must be a non-negative number")
        info = extra.get("pruning_info", {})
        if not isinstance(info, dict):
            raise ValueError("model field extra.pruning_info must be an object")
        self.bound_ = None if bound is None else float(bound)
        self.pruning_path_ = [(int(n), math.nan if obj is None else float(obj))
                              for n, obj in path]
        self.pruning_time_ = float(seconds)
        self.pruning_info_ = info


def _greedy_init(default_criterion: str):
    """The constructor of a greedy estimator (one body; the default criterion differs)."""

    def __init__(self, *, criterion=default_criterion, growth="depth_first", splitter="exact",
                 max_bins=255, max_depth=None, max_leaf_nodes="auto", min_samples_split=2,
                 min_samples_leaf=1, min_impurity_decrease=0.0, max_features=None,
                 categorical_features="auto", categorical_split="binary", random_state=None,
                 pruning=None, pruning_params=None, handle_unknown="heaviest_child"):
        self.criterion = criterion
        self.growth = growth
        self.splitter = splitter
        self.max_bins = max_bins
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.categorical_features = categorical_features
        self.categorical_split = categorical_split
        self.random_state = random_state
        self.pruning = pruning
        self.pruning_params = pruning_params
        self.handle_unknown = handle_unknown

    return __init__


class DecisionTreeClassifier(TreeClassifierMixin, ClassifierMixin, GreedyTree):
    __doc__ = None  # set from the shared template below

    _parameter_constraints = {
        "criterion": [Options(tuple(CLASSIFICATION_CRITERIA))],
        **_COMMON_CONSTRAINTS,
    }
    __init__ = _greedy_init("gini")

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on ``X`` and class labels ``y`` (then prune it, when ``pruning`` is
        set, and certify it).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric and categorical columns (see ``categorical_features``); no NaN in numeric
            columns.
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights; a row of weight 0 is removed.

        Returns
        -------
        self : DecisionTreeClassifier
            Fitted: ``tree_``, ``classes_``, ``certificate_`` and the pruning attributes.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> X, y = load_iris(return_X_y=True)
        >>> model = DecisionTreeClassifier(pruning="bound").fit(X, y)
        >>> model.certificate_.risk_upper_bound < 0.5
        True
        """
        self._validate_stored_params()
        X_enc = self._encode_fit(X)
        y_enc = self._encode_target(y, X_enc.shape[0])
        weights = check_sample_weight(sample_weight, X_enc.shape[0])
        self._fit_encoded(X_enc, y_enc, weights, len(self.classes_))
        # Every row with positive weight counts once: the certificate is on the rows, whatever
        # their weights.
        positive = weights > 0
        rows = slice(None) if positive.all() else positive  # no copy in the usual case
        self.certificate_ = fit_certificate(self, X_enc[rows], y_enc[rows])
        return self


class DecisionTreeRegressor(RegressorMixin, GreedyTree):
    __doc__ = None  # set from the shared template below

    _parameter_constraints = {
        "criterion": [Options(tuple(REGRESSION_CRITERIA))],
        **_COMMON_CONSTRAINTS,
    }
    __init__ = _greedy_init("squared_error")

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on ``X`` and real targets ``y`` (then prune it, when ``pruning`` is set).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric and categorical columns (see ``categorical_features``); no NaN in numeric
            columns.
        y : array-like of shape (n_samples,)
            Finite real targets.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights; a row of weight 0 is removed.

        Returns
        -------
        self : DecisionTreeRegressor
            Fitted: ``tree_`` (leaves hold the weighted mean target) and the pruning attributes.

        Examples
        --------
        >>> from sklearn.datasets import load_diabetes
        >>> X, y = load_diabetes(return_X_y=True)
        >>> model = DecisionTreeRegressor(max_leaf_nodes=4, growth="top_down").fit(X, y)
        >>> model.get_n_leaves(), model.get_depth()
        (4, 2)
        """
        self._validate_stored_params()
        X_enc = self._encode_fit(X)
        if y is None:
            raise ValueError("DecisionTreeRegressor requires y to be passed, but the target y is None")
        y = column_or_1d(np.asarray(y) if not hasattr(y, "to_numpy") else y.to_numpy(), warn=True)
        try:
            y = y.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"regression targets must be numeric: {exc}") from None
        if y.shape[0] != X_enc.shape[0]:
            raise ValueError(f"X has {X_enc.shape[0]} samples but y has {y.shape[0]}")
        if not np.all(np.isfinite(y)):
            raise ValueError("Input y contains NaN or infinity")
        weights = check_sample_weight(sample_weight, X_enc.shape[0])
        return self._fit_encoded(X_enc, y, weights, None)

    def predict(self, X) -> np.ndarray:
        """Mean target of the leaf each row reaches (weighted by ``sample_weight`` at fit).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features_in_)
            Rows with the features the model was fitted on.

        Returns
        -------
        ndarray of float64, shape (n_samples,)

        Examples
        --------
        >>> model = DecisionTreeRegressor(max_depth=1).fit([[0.0], [1.0], [2.0], [3.0]],
        ...                                                 [1.0, 1.0, 3.0, 3.0])
        >>> model.predict([[0.5], [2.5]]).tolist()
        [1.0, 3.0]
        """
        leaves = self.apply(X)
        return self.tree_.value[leaves, 0].copy()

_CLASSIFIER_CRITERION = """    criterion : {"gini", "entropy", "sqrt", "misclassification"}, default="gini"
        Impurity: Gini ``1 - sum p_k^2``, scaled entropy ``-1/2 sum p_k log2 p_k``,
        Kearns-Mansour ``1/2 sum_k sqrt(p_k (1 - p_k))`` (``sqrt(p(1-p))`` for two classes) or
        the misclassification rate ``1 - max p_k``."""
_REGRESSOR_CRITERION = """    criterion : {"squared_error"}, default="squared_error"
        Variance of the targets (the sum of squared errors to the leaf mean)."""
_CLASSIFIER_ATTRIBUTES = """    Attributes
    ----------
    tree_ : treebound.tree.Tree
        The fitted tree as flat arrays; ``value`` holds the weighted class counts of each node.
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted; the columns of :meth:`predict_proba` follow them.
    n_features_in_ : int
        Number of columns of ``X`` at fit.
    feature_names_in_ : ndarray of str of shape (n_features_in_,)
        Column names, only when fitted on a DataFrame with string column names.
    encoder_ : object
        The fitted encoding of ``X`` (numeric columns as floats, categorical columns as level
        codes) that :meth:`encode` applies.
    bound_ : float or None
        Final risk bound of "bound" (Shawe-Taylor eps) and "srm" (Vapnik E_g); None otherwise.
        Both are computed from the weighted node statistics, so under a non-uniform
        ``sample_weight`` they bound nothing (one row weighted 1e308 makes them anything):
        ``bound_`` is then None, with a warning; ``certificate_`` counts every row with
        positive weight once and stays valid.
    certificate_ : treebound.certificates.Certificate
        A bound on the error rate on new data (method "auto", delta 0.05) on the training rows
        (see ``docs/certificates.md``). ``fit`` gathers what it reads from the rows (the
        compression set); its bounds are computed on the first read, then kept.
    pruning_path_ : list of (int, float)
        ``(n_leaves, objective)`` of the trees the pruning visited (empty without pruning).
    pruning_time_ : float
        Seconds spent pruning (including the fold trees of the CV methods); not saved in the
        model file (a loaded model has NaN), so that equal fits give identical files.
    pruning_info_ : dict
        Method-specific details (e.g. alphas and CV errors, the 1-SE choice).

    See Also
    --------
    treebound.prune : prune a fitted estimator or a bare tree afterwards.
    treebound.certify : a risk certificate for any fitted tree.

    Notes
    -----
    ``score``, ``get_params`` and ``set_params`` are scikit-learn's (``score`` is the accuracy
    on ``X, y``).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = DecisionTreeClassifier(pruning="bound").fit(X, y)
    >>> model.get_n_leaves() <= 24, model.certificate_.risk_upper_bound < 0.35
    (True, True)
    >>> model.score(X, y) > 0.9  # training accuracy
    True
"""
_REGRESSOR_ATTRIBUTES = """    Attributes
    ----------
    tree_ : treebound.tree.Tree
        The fitted tree as flat arrays; ``value[:, 0]`` holds the weighted mean target of each
        node.
    n_features_in_ : int
        Number of columns of ``X`` at fit.
    feature_names_in_ : ndarray of str of shape (n_features_in_,)
        Column names, only when fitted on a DataFrame with string column names.
    encoder_ : object
        The fitted encoding of ``X`` (numeric columns as floats, categorical columns as level
        codes) that :meth:`encode` applies.
    bound_ : None
        Regression trees have no risk bound ("bound" and "srm" bound the 0-1 risk of
        classifiers and raise a ``ValueError`` here).
    pruning_path_ : list of (int, float)
        ``(n_leaves, objective)`` of the trees the pruning visited ("ccp_cv", "mcart_cv" with
        squared error, "reduced_error"); empty without pruning.
    pruning_time_ : float
        Seconds spent pruning (NaN in a loaded model).
    pruning_info_ : dict
        Method-specific details (alphas and CV errors of the CV methods).

    See Also
    --------
    treebound.prune : prune a fitted estimator afterwards.

    Notes
    -----
    ``score``, ``get_params`` and ``set_params`` are scikit-learn's (``score`` is the
    coefficient of determination R^2 on ``X, y``). There is no certificate: the bounds of
    :mod:`treebound.certificates` are for the 0-1 risk of classifiers.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from treebound import DecisionTreeRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = DecisionTreeRegressor(max_leaf_nodes=8, growth="top_down").fit(X, y)
    >>> model.get_n_leaves()
    8
    >>> pruned = DecisionTreeRegressor(pruning="ccp_cv", random_state=0).fit(X, y)
    >>> pruned.get_n_leaves() < DecisionTreeRegressor().fit(X, y).get_n_leaves()
    True
    >>> 0.0 < model.score(X, y) < 1.0  # R^2 on the training rows
    True
"""


#: The parameter documentation both greedy estimators share (``{summary}``, ``{criterion}``
#: and ``{attributes}`` differ).
_DOC_TEMPLATE = """{summary}

    Parameters
    ----------
{criterion}
    growth : {{"depth_first", "top_down", "best_first", "purest_children"}}, default="depth_first"
        Which leaf is split next when ``max_leaf_nodes`` limits the tree (Brutzkus, Daniely &
        Malach 2020; Cesa-Bianchi's lecture notes on tree predictors): largest gain (``top_down``; ``depth_first`` behaves the same under a budget), largest gain
        per example (``best_first``), lowest size-normalised child impurity
        (``purest_children``). Without a budget all orders grow the same tree, except that
        ``purest_children`` only makes strictly improving splits.
    splitter : {{"exact", "hist"}}, default="exact"
        Exact threshold search over all distinct values, or histogram search over at most
        ``max_bins`` bins per numeric feature (faster on large data).
    max_bins : int, default=255
        Bins per numeric feature in histogram mode.
    max_leaf_nodes : int, None or "auto", default="auto"
        Leaf budget; None grows without one. ``"auto"``: no budget, except with
        ``pruning="bound"``, where the tree is grown to ``ceil(2 sqrt(n_samples))`` leaves in
        ``top_down`` order (the default ``depth_first`` order is the same under a budget) before
        it is pruned: the measured default of ``docs/pruning.md`` (set ``max_leaf_nodes=None``
        to prune a tree grown to purity, the default before ``"auto"``; CHANGELOG.md).
    max_depth : int or None, default=None
        Most tests on a root-to-leaf path; ``None``: no limit (``0`` leaves a single leaf).
    min_samples_split : int >= 2 or float in (0, 1], default=2
        A node with fewer training rows is not split; a float is a fraction of the rows
        (``ceil(fraction * n_samples)``, at least 2). As in scikit-learn, ``1`` is refused:
        write ``1.0`` for the fraction.
    min_samples_leaf : int >= 1 or float in (0, 1), default=1
        Every child of a split keeps at least this many training rows (a float: a fraction of
        the rows, rounded up).
    min_impurity_decrease : float >= 0, default=0.0
        A split is made only when its gain, divided by the total training weight, reaches this
        value (scikit-learn's rule).
    max_features : int, float, "sqrt", "log2" or None, default=None
        Number of features examined per split (random subset drawn with ``random_state``).
    categorical_features : "auto", None, list or boolean mask, default="auto"
        Categorical columns: "auto" takes pandas category/object/string/bool columns; a list names
        columns by index or name.
    categorical_split : {{"binary", "multiway"}}, default="binary"
        Categorical tests send a subset of categories left (binary) or give every category its
        own child (ID3-style multiway).
    random_state : int, RandomState or None, default=None
        Seeds the feature sampling of ``max_features``, the cross-validation folds and the
        held-out split of the pruning methods.
    pruning : {{None, "bound", "ccp_cv", "mcart_cv", "srm", "reduced_error"}}, default=None
        Grow with the settings above, then prune (:mod:`treebound.pruning`): "bound" =
        Leboeuf et al. Algorithm 3 (Shawe-Taylor bound, no cross-validation), "ccp_cv" = CART
        cost-complexity with K-fold CV (fold trees regrown with the same settings), "mcart_cv" =
        M-CART, "srm" = Yildiz's SRM pruning, "reduced_error" = grow on 80 %, prune on the
        held-out 20 % (Yildiz's CVprune).
    handle_unknown : {{"heaviest_child", "error"}}, default="heaviest_child"
        A categorical level never seen in training (or a missing value when training had
        none): ``"heaviest_child"`` predicts anyway, sending it at every categorical test to
        the child that received the most training weight — the rule that already places the
        levels absent from a node (``Tree.unseen_child``); ``"error"`` raises a
        ``ValueError`` naming the feature and the levels.
    pruning_params : dict or None, default=None
        Options of the pruning method; unknown keys raise. "bound": ``delta`` (0.05), ``r``
        (2**-13.7) or ``error_prior_exponent`` (r = 2**-exponent), ``variant`` ("tight",
        "loose", "loose_paper" or "auto", the default: "tight" when its tables fit
        :func:`treebound.resource_limits`, else "loose" with a warning), ``search`` ("lazy", "all"), ``bound`` (the selection
        criterion: "shawe_taylor", Eq. 8 of Leboeuf et al., or a certificate, "hti" or
        "compression", see :mod:`treebound.pruning.certificate_bound`); "ccp_cv"/"mcart_cv":
        ``n_folds``
        (10), ``rule`` ("min", "1se"), ``risk`` ("error", "impurity"); "srm": ``a1`` (0.1),
        ``a2`` (2.0), ``vc_bound`` ("lower", "upper"); "reduced_error": ``holdout`` (0.2).

{attributes}"""

DecisionTreeClassifier.__doc__ = _DOC_TEMPLATE.format(
    summary="Decision tree classifier (binary and multiway tests, four criteria, four growth "
            "orders), certified at the end of ``fit``.",
    criterion=_CLASSIFIER_CRITERION, attributes=_CLASSIFIER_ATTRIBUTES)
DecisionTreeRegressor.__doc__ = _DOC_TEMPLATE.format(
    summary="Decision tree regressor (squared error); the same growth options as the "
            "classifier.",
    criterion=_REGRESSOR_CRITERION, attributes=_REGRESSOR_ATTRIBUTES)
