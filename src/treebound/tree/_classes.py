"""The greedy tree classifier, ``DecisionTreeClassifier`` (the regressor is in
:mod:`treebound.tree._regressor`): it validates, encodes and hands the rows to the functional
core (:func:`treebound.tree._fit.fit_tree`, through :class:`~treebound.tree._greedy.GreedyTree`).

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

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import column_or_1d

from treebound._estimator._base import TreeClassifierMixin
from treebound._flat._outputs import (
    check_multi_output_options,
    classification_targets,
    is_multi_output,
    target_array,
)
from treebound._validation import InstanceOf, Options, check_sample_weight
from treebound.certificates import fit_certificate
from treebound.certificates._memo import CertifiedTrees
from treebound.tree._builder import (
    CLASSIFICATION_CRITERIA,
)
from treebound.tree._greedy import (
    COMMON_CONSTRAINTS,
    GreedyTree,
    auto_leaf_budget,
    growth_settings,
    set_pruning_state,
)
from treebound.tree._regressor import DecisionTreeRegressor  # its home before the split
from treebound.tree._sklearn_api import (
    check_class_weight_outputs,
    check_target_not_sparse,
    class_weight_factors,
)

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "GreedyTree", "auto_leaf_budget",
           "growth_settings", "set_pruning_state"]


class DecisionTreeClassifier(TreeClassifierMixin, ClassifierMixin, GreedyTree):
    """Decision tree classifier (binary and multiway tests, four criteria, four growth orders),
    certified at the end of ``fit``.

    Two numbers come with a pruned classifier, and they answer different questions:

    * ``certificate_`` is the **promise**: with probability at least 95 %, the error rate of
      this tree on new data from the same distribution is at most
      ``certificate_.risk_upper_bound``, a number in ``[0, 1]`` (``treebound.certify`` for
      other methods and confidence levels);
    * ``pruning_objective_`` is **what pruning minimized** to choose the tree (``pruning=
      "bound"``: the Shawe-Taylor bound of Leboeuf et al. by default, a sum of penalties that
      often exceeds 1; ``"srm"``: Vapnik's penalized risk ``E_g``, not a bound on the error).
      It compares candidate trees; it is not the guarantee to report.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss", "scaled_entropy", "sqrt", \
"misclassification"}, default="gini"
        Impurity: Gini ``1 - sum p_k^2``, entropy ``-sum p_k log2 p_k`` (scikit-learn's
        ``"entropy"`` and ``"log_loss"``), the lecture notes' scaled entropy (half of it: the
        same splits), Kearns-Mansour ``1/2 sum_k sqrt(p_k (1 - p_k))`` (``sqrt(p(1-p))`` for
        two classes) or the misclassification rate ``1 - max p_k``.
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
    pruning : {None, "bound", "ccp_cv", "mcart_cv", "certified", "srm", "reduced_error"}, \
default=None
        Grow with the settings above, then prune (:mod:`treebound.pruning`): "bound" =
        Leboeuf et al. Algorithm 3 (minimizes a risk bound, no cross-validation), "ccp_cv" =
        CART cost-complexity with K-fold CV (fold trees regrown with the same settings),
        "mcart_cv" = M-CART, "certified" = the smallest certificate among the cost-complexity
        trees whose CV error is within ``n_se`` standard errors of the best (default 0.6),
        "srm" = Yildiz's SRM pruning,
        "reduced_error" = grow on 80 %, prune on the held-out 20 % (Yildiz's CVprune).
    pruning_params : dict or None, default=None
        Options of the pruning method (``treebound.pruning.PARAMETERS``); unknown keys raise.
        "bound": ``objective`` (what the search minimizes: "shawe_taylor", Eq. 8 of Leboeuf
        et al., the default, or a certificate, "hti" or "compression", see
        :mod:`treebound.pruning.certificate_bound`; its former name ``bound`` still works, with
        a ``FutureWarning``), ``delta`` (0.05), ``r`` (2**-13.7) or ``error_prior_exponent``
        (r = 2**-exponent), ``variant`` ("tight", "loose", "loose_paper" or "auto", the
        default: "tight" when its tables fit :func:`treebound.resource_limits`, else "loose"
        with a warning), ``search`` ("lazy", "all"); "ccp_cv"/"mcart_cv": ``n_folds`` (10),
        ``rule`` ("min", "1se"), ``risk`` ("error", "impurity"); "certified": ``n_folds`` (10),
        ``n_se`` (0.6), ``risk``, ``delta`` (0.05); "srm": ``a1`` (0.1), ``a2``
        (2.0), ``vc_bound`` ("lower", "upper"); "reduced_error": ``holdout`` (0.2).
    handle_unknown : {"heaviest_child", "error"}, default="heaviest_child"
        A categorical level never seen in training (or a missing value when training had
        none): ``"heaviest_child"`` predicts anyway, sending it at every categorical test to
        the child that received the most training weight — the rule that already places the
        levels absent from a node (``Tree.unseen_child``); ``"error"`` raises a
        ``ValueError`` naming the feature and the levels.
    categorical_levels : dict or None, default=None
        The levels each categorical feature can take, declared before the data is seen: column
        name or index -> their number, or the list of them. A pandas ``CategoricalDtype``
        declares its categories and a boolean column two levels without it. The certificate
        counts the declared levels; a categorical feature with none declared gets no
        certificate (only the levels seen in training are known, and counting those is not
        what the theorems prove: ``docs/certificates.md``).
    class_weight : dict, list of dict, "balanced" or None, default=None
        Weights of the classes, multiplied into ``sample_weight`` as scikit-learn does
        (``sklearn.utils.compute_sample_weight``): ``{label: weight}``, ``"balanced"``
        (``n_samples / (n_classes * count)``) or one of those per output. They change the
        tree, never the certificate: the bounds count rows and errors, whatever the weights.
    ccp_alpha : float >= 0, default=0.0
        scikit-learn's minimal cost-complexity pruning with this fixed alpha, applied after
        growth: the weakest links (impurity risk) are collapsed while their effective alpha is
        at most ``ccp_alpha`` (``cost_complexity_pruning_path`` lists the alphas). ``pruning``
        chooses a subtree by itself, so a positive ``ccp_alpha`` with ``pruning`` set raises a
        ``ValueError``: set one of the two.

    Attributes
    ----------
    tree_ : treebound.tree.Tree
        The fitted tree as flat arrays; ``value`` holds the weighted class counts of each node.
    classes_ : ndarray of shape (n_classes,) or list of ndarray
        Class labels, sorted; the columns of :meth:`predict_proba` follow them (one array per
        output for a 2-D ``y``).
    n_classes_ : int or ndarray of int
        Number of classes (of each output for a 2-D ``y``).
    n_outputs_ : int
        Columns of ``y`` (1 for a 1-D ``y``).
    n_features_in_ : int
        Number of columns of ``X`` at fit.
    feature_names_in_ : ndarray of str of shape (n_features_in_,)
        Column names, only when fitted on a DataFrame with string column names.
    encoder_ : object
        The fitted encoding of ``X`` (numeric columns as floats, categorical columns as level
        codes) that :meth:`encode` applies.
    certificate_ : treebound.certificates.Certificate
        The promise: a bound on the error rate on new data (method "auto", delta 0.05),
        computed on the training rows (see ``docs/certificates.md``); its
        ``risk_upper_bound`` is at most 1. ``fit`` gathers what it reads from the rows (the
        compression set); its bounds are computed on the first read, then kept. With several
        outputs: a list, one certificate per output at delta ``0.05 / n_outputs`` (together
        they hold with probability at least 0.95). ``pruning`` is refused there (every method
        scores one output's risk); ``ccp_alpha`` prunes as scikit-learn does.
    pruning_objective_ : float or None
        The value, for the tree kept, of the objective pruning minimized to choose it (the
        last value of ``pruning_path_``): "bound" — the Shawe-Taylor ``eps`` of Leboeuf et al.
        Eq. 8 (may exceed 1: a selection score, not a promise) or the certificate named by
        ``pruning_params["objective"]``; "srm" — Vapnik's penalized risk ``E_g``; None for the
        other methods and without pruning. "bound" with the Shawe-Taylor objective and "srm"
        compute it from the weighted node statistics, so under a non-uniform ``sample_weight``
        it bounds nothing (one row weighted 1e308 makes it anything): it is then None, with a
        warning.
    bound_ : float or None
        Deprecated alias of ``pruning_objective_`` (``FutureWarning``; removed in the next
        release).
    pruning_path_ : list of (int, float)
        ``(n_leaves, objective)`` of the trees the pruning visited (empty without pruning).
    pruning_time_ : float
        Seconds spent pruning (including the fold trees of the CV methods); not saved in the
        model file (a loaded model has NaN), so that equal fits give identical files.
    pruning_info_ : dict
        Method-specific details (e.g. the objective, alphas and CV errors, the 1-SE choice).

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
    >>> model.pruning_objective_ > model.certificate_.risk_upper_bound  # a score, not the promise
    True
    >>> model.score(X, y) > 0.9  # training accuracy
    True
    """

    _parameter_constraints = {
        "criterion": [Options(tuple(CLASSIFICATION_CRITERIA))],
        **COMMON_CONSTRAINTS,
        "class_weight": [None, Options(("balanced",)),
                         InstanceOf((dict, list), "a dict {class: weight} or a list of them, "
                                    "one per output")],
    }
    _min_classes = 1

    def __init__(self, *, criterion="gini", growth="depth_first", splitter="best",
                 max_bins=255, max_depth=None, max_leaf_nodes="auto", min_samples_split=2,
                 min_samples_leaf=1, min_impurity_decrease=0.0, max_features=None,
                 categorical_features="auto", categorical_split="binary", random_state=None,
                 pruning=None, pruning_params=None, handle_unknown="heaviest_child",
                 categorical_levels=None, class_weight=None, ccp_alpha=0.0,
                 min_weight_fraction_leaf=0.0, monotonic_cst=None):
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
        self.class_weight = class_weight

    def fit(self, X, y, sample_weight=None, check_input: bool = True):
        """Grow the tree on ``X`` and class labels ``y`` (then prune it, when ``pruning`` is
        set, and certify it).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric and categorical columns (see ``categorical_features``); NaN in a numeric
            column is a missing value (routed by every test).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels; a 2-D ``y`` fits one tree for all its columns (``classes_``,
            ``n_classes_``, ``predict_proba`` and ``certificate_`` are then lists, one entry
            per output, as in scikit-learn).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights; a row of weight 0 is removed.
        check_input : bool, default=True
            scikit-learn's switch to skip the checks of ``X``; accepted for its signature,
            while treebound always checks and encodes the rows.

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
        check_target_not_sparse(y)
        X_enc, ranges = self._encode_fit(X)
        check_class_weight_outputs(self.class_weight, y)
        if is_multi_output(y):
            self.classes_, y_enc = classification_targets(
                y, X_enc.shape[0], type(self).__name__, self._min_classes)
            self.n_outputs_ = y_enc.shape[1]
            self.n_classes_ = np.array([len(c) for c in self.classes_], dtype=np.intp)
            check_multi_output_options(self.pruning, self.monotonic_cst, self.n_outputs_)
            labels = target_array(y)
        else:
            if np.ndim(target_array(y)) == 2:  # one column: one output (warned as there)
                y = column_or_1d(target_array(y), warn=self.pruning is not None)
            y_enc = self._encode_target(y, X_enc.shape[0])
            self.n_outputs_ = 1
            self.n_classes_ = int(self.classes_.shape[0])
            # the labels are read by class_weight only
            labels = None if self.class_weight is None else self.classes_[y_enc]
        weights = check_sample_weight(sample_weight, X_enc.shape[0])
        factors = class_weight_factors(self.class_weight, labels)
        grow_weights = weights if factors is None else weights * factors
        # check_sample_weight leaves a positive weight: only the factors can remove the last
        if factors is not None and not np.any(grow_weights > 0):
            raise ValueError("class_weight and sample_weight leave no row with positive weight")
        # certified selection computes the candidates' Theorem 9 tables on these rows: the
        # certificate is computed from them at the end of fit rather than again on first read
        cache = CertifiedTrees() if self.pruning == "certified" else None
        # the rows as their codes when those give them exactly: what the evidence pass keeps
        # of them (an eighth of a float64 copy)
        coded_rows: list = []
        self._fit_encoded(X_enc, y_enc, grow_weights, self.n_classes_, cache, ranges,
                          coded_rows)
        # Every row given with positive sample_weight counts once: the certificate is on the
        # rows, whatever their weights (class_weight changes the tree, not the evidence).
        positive = None if sample_weight is None else weights > 0  # None: all rows
        if positive is None or positive.all():  # no copy (indexing a sparse X copies it)
            self.certificate_ = fit_certificate(self, X_enc, y_enc, cache=cache,
                                                rows=coded_rows[0] if coded_rows else None)
        else:
            self.certificate_ = fit_certificate(self, X_enc[positive], y_enc[positive],
                                                cache=cache)
        return self
