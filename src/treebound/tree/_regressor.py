"""The greedy tree regressor, ``DecisionTreeRegressor``: it validates the targets, encodes the
rows and hands them to the functional core (:func:`treebound.tree._fit.fit_tree`, through
:class:`~treebound.tree._greedy.GreedyTree`), as the classifier of :mod:`treebound.tree._classes`
does.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils.validation import column_or_1d

from treebound._flat._outputs import check_multi_output_options, is_multi_output, target_array
from treebound._validation import Options, check_sample_weight
from treebound.tree._builder import REGRESSION_CRITERIA, check_poisson_target
from treebound.tree._greedy import COMMON_CONSTRAINTS, GreedyTree
from treebound.tree._sklearn_api import check_target_not_sparse

__all__ = ["DecisionTreeRegressor"]


class DecisionTreeRegressor(RegressorMixin, GreedyTree):
    """Decision tree regressor (squared error); the same growth options as the classifier.

    Parameters
    ----------
    criterion : {"squared_error", "absolute_error", "poisson", "friedman_mse"}, \
default="squared_error"
        scikit-learn's: the variance of the targets (leaves predict the weighted mean), their
        mean absolute deviation from the weighted median (leaves predict that median) or half
        the Poisson deviance (``y`` non-negative with a positive sum; no child whose targets
        sum to 0). ``"friedman_mse"`` is ``"squared_error"`` (a ``FutureWarning``, as in
        scikit-learn 1.9).
    growth : {"depth_first", "top_down", "best_first", "purest_children"}, \
default="depth_first"
        Which leaf is split next when ``max_leaf_nodes`` limits the tree (Brutzkus, Daniely &
        Malach 2020; Cesa-Bianchi's lecture notes on tree predictors): largest gain
        (``top_down``; ``depth_first`` behaves the same under a budget), largest gain per
        example (``best_first``), lowest size-normalised child impurity
        (``purest_children``). Without a budget all orders grow the same tree, except that
        ``purest_children`` only makes strictly improving splits.
    splitter : {"best", "random", "hist"}, default="best"
        ``"best"``: scikit-learn's exact greedy search over every threshold between distinct
        values; ``"random"``: scikit-learn's random thresholds (one per feature, uniform
        between its smallest and largest value in the node, seeded by ``random_state``);
        ``"hist"``: the search over at most ``max_bins`` bins per numeric feature
        (faster on large data). ``"exact"`` is the former name of ``"best"`` (accepted with a
        ``FutureWarning`` for one release).
    max_bins : int, default=255
        Bins per numeric feature in histogram mode.
    max_depth : int or None, default=None
        Most tests on a root-to-leaf path; ``None``: no limit (``0`` leaves a single leaf).
    max_leaf_nodes : int, None or "auto", default="auto"
        Leaf budget; None grows without one. ``"auto"``: no budget, except with
        ``pruning="bound"``, where the tree is grown to ``ceil(2 sqrt(n_samples))`` leaves in
        ``top_down`` order (the default ``depth_first`` order is the same under a budget) before
        it is pruned: the measured default of ``docs/pruning.md`` (set ``max_leaf_nodes=None``
        to prune a tree grown to purity, the default before ``"auto"``; CHANGELOG.md).
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
    min_weight_fraction_leaf : float in [0, 0.5], default=0.0
        Every leaf keeps at least this fraction of the total sample weight (scikit-learn's;
        it changes the tree, never what a certificate counts).
    monotonic_cst : array-like of -1, 0 or 1 of shape (n_features,) or None, default=None
        scikit-learn's monotonicity constraints: the prediction (regressor) or the
        probability of the second class (binary classifier, one output) decreases (-1), is
        free (0) or increases (1) with each feature; 0 for categorical features. Not with
        several classes or outputs.
    categorical_features : "auto", None, list or boolean mask, default="auto"
        Categorical columns: "auto" takes pandas category/object/string/bool columns; a list
        names columns by index or name.
    categorical_split : {"binary", "multiway"}, default="binary"
        Categorical tests send a subset of categories left (binary) or give every category its
        own child (ID3-style multiway).
    random_state : int, RandomState or None, default=None
        Seeds the feature sampling of ``max_features``, the cross-validation folds and the
        held-out split of the pruning methods.
    pruning : {None, "ccp_cv", "mcart_cv", "reduced_error"}, default=None
        Grow with the settings above, then prune (:mod:`treebound.pruning`): "ccp_cv" = CART
        cost-complexity with K-fold CV on the squared error (fold trees regrown with the same
        settings), "mcart_cv" = M-CART, "reduced_error" = grow on 80 %, prune on the held-out
        20 %. "bound" and "srm" bound the 0-1 risk of classifiers and raise a ``ValueError``
        here.
    pruning_params : dict or None, default=None
        Options of the pruning method (``treebound.pruning.PARAMETERS``); unknown keys raise.
        "ccp_cv"/"mcart_cv": ``n_folds`` (10), ``rule`` ("min", "1se"), ``risk`` (ignored:
        regression uses the squared error); "reduced_error": ``holdout`` (0.2).
    handle_unknown : {"heaviest_child", "error"}, default="heaviest_child"
        A categorical level never seen in training (or a missing value when training had
        none): ``"heaviest_child"`` predicts anyway, sending it at every categorical test to
        the child that received the most training weight — the rule that already places the
        levels absent from a node (``Tree.unseen_child``); ``"error"`` raises a
        ``ValueError`` naming the feature and the levels.
    categorical_levels : dict or None, default=None
        The levels each categorical feature can take, declared before the data is seen: column
        name or index -> their number, or the list of them (a pandas ``CategoricalDtype``
        declares its categories, a boolean column two levels). The classifier's certificate
        counts them; a regression tree has no certificate, and they are only checked against
        the training levels and recorded in the encoder.
    ccp_alpha : float >= 0, default=0.0
        scikit-learn's minimal cost-complexity pruning with this fixed alpha, applied after
        growth: the weakest links (impurity risk) are collapsed while their effective alpha is
        at most ``ccp_alpha`` (``cost_complexity_pruning_path`` lists the alphas). ``pruning``
        chooses a subtree by itself, so a positive ``ccp_alpha`` with ``pruning`` set raises a
        ``ValueError``: set one of the two.

    Attributes
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
    pruning_objective_ : None
        Regression pruning minimizes no risk bound (the classifier's "bound" and "srm" do).
    bound_ : None
        Deprecated alias of ``pruning_objective_`` (``FutureWarning``).
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

    _parameter_constraints = {
        "criterion": [Options(tuple(REGRESSION_CRITERIA))],
        **COMMON_CONSTRAINTS,
    }

    def __init__(self, *, criterion="squared_error", growth="depth_first", splitter="best",
                 max_bins=255, max_depth=None, max_leaf_nodes="auto", min_samples_split=2,
                 min_samples_leaf=1, min_impurity_decrease=0.0, max_features=None,
                 categorical_features="auto", categorical_split="binary", random_state=None,
                 pruning=None, pruning_params=None, handle_unknown="heaviest_child",
                 categorical_levels=None, ccp_alpha=0.0, min_weight_fraction_leaf=0.0,
                 monotonic_cst=None):
        if isinstance(criterion, str) and criterion == "friedman_mse":
            # scikit-learn 1.9 warns here, in the constructor, and stores "squared_error"
            warnings.warn('Value `"friedman_mse"` for `criterion` is deprecated (scikit-learn '
                          '1.9) and will be removed: it maps to `"squared_error"`, the same '
                          'splits. Use `criterion="squared_error"` to remove this warning.',
                          FutureWarning, stacklevel=2)
            criterion = "squared_error"
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
        self.categorical_levels = categorical_levels
        self.ccp_alpha = ccp_alpha
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.monotonic_cst = monotonic_cst

    def fit(self, X, y, sample_weight=None, check_input: bool = True):
        """Grow the tree on ``X`` and real targets ``y`` (then prune it, when ``pruning`` is set).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric and categorical columns (see ``categorical_features``); NaN in a numeric
            column is a missing value (routed by every test).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Finite real targets; a 2-D ``y`` fits one tree for all its columns (splits
            minimize the criterion averaged over the outputs, as in scikit-learn).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights; a row of weight 0 is removed.
        check_input : bool, default=True
            scikit-learn's switch to skip the checks of ``X``; accepted for its signature,
            while treebound always checks and encodes the rows.

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
        check_target_not_sparse(y)
        X_enc, ranges = self._encode_fit(X)
        if y is None:
            raise ValueError("DecisionTreeRegressor requires y to be passed, but the target y is None")
        if is_multi_output(y):
            y = target_array(y)
            check_multi_output_options(self.pruning, self.monotonic_cst, y.shape[1])
        else:
            # one column: one output, with scikit-learn's warning only where several outputs
            # are refused (a pruning method), as its one-output estimators warn
            y = column_or_1d(target_array(y), warn=self.pruning is not None)
        try:
            y = y.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"regression targets must be numeric: {exc}") from None
        if self.criterion == "poisson":  # before the shapes are compared, as in scikit-learn
            check_poisson_target(y)
        if y.shape[0] != X_enc.shape[0]:
            raise ValueError(f"X has {X_enc.shape[0]} samples but y has {y.shape[0]}")
        if not np.all(np.isfinite(y)):
            raise ValueError("Input y contains NaN or infinity")
        weights = check_sample_weight(sample_weight, X_enc.shape[0])
        self.n_outputs_ = 1 if y.ndim == 1 else int(y.shape[1])
        return self._fit_encoded(X_enc, np.ascontiguousarray(y), weights, None,
                                 column_ranges=ranges)

    def predict(self, X, check_input: bool = True) -> np.ndarray:
        """Mean target of the leaf each row reaches (weighted by ``sample_weight`` at fit).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features_in_)
            Rows with the features the model was fitted on.
        check_input : bool, default=True
            scikit-learn's switch to skip the checks of ``X``; accepted for its signature,
            while treebound always checks and encodes the rows.

        Returns
        -------
        ndarray of float64, shape (n_samples,) or (n_samples, n_outputs)

        Examples
        --------
        >>> model = DecisionTreeRegressor(max_depth=1).fit([[0.0], [1.0], [2.0], [3.0]],
        ...                                                 [1.0, 1.0, 3.0, 3.0])
        >>> model.predict([[0.5], [2.5]]).tolist()
        [1.0, 3.0]
        """
        leaves = self.apply(X)
        value = self.tree_.flat.value
        if value.ndim == 3:  # several outputs: one column each
            return value[leaves, :, 0].copy()
        return value[leaves, 0].copy()
