"""``DyadicTreeClassifier``: penalized empirical risk minimisation over dyadic decision trees."""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import validate_data

from treebound._estimator._base import BaseTreeEstimator, TreeClassifierMixin, check_two_dimensional
from treebound._flat._encoding import FeatureEncoder, column_names, resolve_categorical
from treebound._flat._storage import Tree
from treebound._validation import InstanceOf, Interval, Options
from treebound.certificates import fit_certificate
from treebound.dyadic._scaling import MAX_RESOLUTION, DyadicScaling
from treebound.dyadic._search import (
    PENALTIES,
    VARIANTS,
    CellBudgetExceeded,
    DyadicSettings,
    DyadicTreeArrays,
    auto_resolution,
    default_resolution,
    fit_dyadic_tree,
)
from treebound.dyadic._selection import DEFAULT_PENALTY_SCALES, select_penalty_scale

#: Default ``max_cells``: about 100 MB of memo table (roughly 50 bytes per stored cell) and at
#: most a few minutes of search on tens of thousands of examples.
DEFAULT_MAX_CELLS = 2_000_000

_EXTRA_FLOATS = ("objective_", "empirical_risk_", "penalty_", "delta_", "penalty_scale_")
_EXTRA_INTS = ("resolution_", "n_cells_evaluated_")


class DyadicTreeClassifier(TreeClassifierMixin, ClassifierMixin, BaseTreeEstimator):
    """Dyadic decision tree chosen by penalized empirical risk minimisation (Scott & Nowak 2006).

    Features are rescaled to ``[0, 1]^d`` by the training minimum and range. A dyadic decision
    tree (DDT) splits a cell at the midpoint of one coordinate; ``T_M`` holds the DDTs that split
    no coordinate more than ``L`` times on any root-to-leaf path (``M = 2**L``). The fitted tree is
    the exact minimiser of Eq. (1), ``R̂_n(T) + Φ_n(T)`` over ``T_M`` (Scott & Nowak 2006, Eq. 1).

    Parameters
    ----------
    max_resolution : int, "auto" or None, default="auto"
        ``L``, the most splits of one coordinate on a path (cells down to side ``2**-L``).
        ``"auto"`` uses ``L = ceil(2 log2(n / ln n) / d)``, at least 1, at most the ``None``
        value and at most ``20 // d`` (``treebound.dyadic.auto_resolution``): as fine as
        ``None`` for d <= 2, coarser beyond, so that the search at the small scales
        cross-validation picks stays fast.
        ``None`` (the default before ``"auto"``) uses ``L = max(1, floor(log2(n / ln n)))``,
        i.e. ``M ≍ n / log n``: the choice of Theorems 7 and 8 and section VII, with which the
        penalized DDT adapts at once to the noise level, the data's intrinsic dimension,
        irrelevant features and boundary smoothness. Theorem 6 (noise level in full dimension)
        uses the coarser ``M ≍ (n / log n)^{1/d}``:
        ``treebound.dyadic.theorem6_resolution(n, d)``. Finer resolutions cost the search
        little at ``penalty_scale=1`` (deep cells are provably leaves) but much more at small
        scales.
    penalty : {"spatially_adaptive", "square_root"}, default="spatially_adaptive"
        ``Φ_n`` of Eq. (9), a sum over leaves of
        ``sqrt(2 p'_A ([A] ln 2 + ln(2/δ)) / n)`` with ``[A] = 2j + 1 + j log2 d`` bits for a leaf
        at depth ``j``, ``p'_A = 4 max(p̂_A, ([A] ln 2 + ln(1/δ)) / n)`` and ``p̂_A`` its share of
        the training examples; or the square-root penalty of Proposition 1,
        ``sqrt(([T] ln 2 + ln(1/δ)) / (2n))`` with ``[T] = 3k - 1 + (k - 1) log2 d`` for k leaves.
    variant : {"free", "cyclic"}, default="free"
        Free DDTs choose any coordinate at every split (exact dynamic program over the non-empty
        dyadic cells, section VI); cyclic DDTs split coordinate ``j mod d`` at depth ``j``
        (grow only cells holding two classes, then prune bottom-up, section VI-A).
    delta : float in (0, 1] or None, default=None
        Confidence parameter of the penalty; ``None`` uses ``δ = 1/n`` (Remark 3).
    penalty_scale : "cv", float >= 0 or list of floats, default="cv"
        Multiplies the penalty. ``1.0`` is the theory's constant: Theorem 2 (the oracle
        inequality) and the rates of Theorems 6-8 hold for it, but at a few thousand rows it
        usually leaves a single leaf or two. ``"cv"`` (default) chooses the scale among
        ``treebound.dyadic.DEFAULT_PENALTY_SCALES`` = (1, 0.3, 0.1, 0.03, 0.01) by stratified
        cross-validation (5 folds; 3 above 5,000 rows), as the DDT experiments of the
        literature do (Blanchard, Schäfer, Rozenholc & Müller 2007): the scales are tried from
        the largest down, stopping at the first one whose CV accuracy falls below the best so
        far or whose search exceeds ``max_cells``; the folds depend on the data, not on the row
        order. A list of scales cross-validates those instead. Smaller scales give larger
        trees and cost the free search more cells. The guarantee of Theorem 2 is for a fixed
        scale: with ``"cv"`` the tree is chosen like any cross-validated model.
    max_cells : int, default=2_000_000
        Budget of one search: the free DDT search stores one memo entry (about 50 bytes) per
        dyadic cell it solves, the cyclic one grows one node per cell. Fitting raises
        ``treebound.dyadic.CellBudgetExceeded`` (a ``ValueError``) naming the budget and an
        estimate of the cells instead of exceeding it. The free search usually stores far fewer
        cells than the non-empty cells of ``A_M`` (magic, d = 10, L = 4: 39,078 of up to
        1.7e11), but more as ``penalty_scale`` shrinks.

    Attributes
    ----------
    tree_ : treebound.tree.Tree
        The fitted tree, thresholds in original feature units: the dyadic cell
        ``{x^s < midpoint}`` is the test ``x <= nextafter(midpoint, -inf)``. An empty leaf (no
        training example) predicts like its parent: its ``value`` row holds the parent's class
        frequencies and ``n_node_samples`` is 0.
    classes_ : ndarray
        Class labels.
    objective_ : float
        Empirical risk plus penalty of the returned tree (Eq. (1)); ``empirical_risk_`` and
        ``penalty_`` are its two parts.
    n_cells_evaluated_ : int
        Free: cells the search stored (solved exactly or bounded), summed over searches.
        Cyclic: nodes of the grown tree T_INIT.
    penalty_scale_ : float
        The scale used: ``penalty_scale`` itself, or the one chosen by cross-validation.
    cv_scores_ : list of [float, float or None]
        ``[scale, CV accuracy]`` of every candidate scale, largest first (``None``: not
        evaluated, below the stopping point); empty for a fixed ``penalty_scale``.
    resolution_ : int
        ``L`` used. ``delta_``: δ used.
    data_min_, data_range_ : ndarray
        The rescaling ``(x - data_min_) / data_range_`` to ``[0, 1]`` (range 1 for a constant
        feature).
    n_features_in_ : int
    feature_names_in_ : ndarray of str (only when fitted on a DataFrame with string columns)

    Notes
    -----
    Only numeric features: dyadic splits are midpoints of coordinates, so categorical columns
    must be encoded first. ``sample_weight`` is not supported (the penalty counts examples).

    Examples
    --------
    >>> import numpy as np
    >>> from treebound import DyadicTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(400, 2))
    >>> y = (X[:, 0] > 0.5).astype(int)
    >>> model = DyadicTreeClassifier(max_resolution=3).fit(X, y)
    >>> model.get_n_leaves(), int(model.tree_.feature[0])
    (2, 0)
    """

    _parameter_constraints = {
        "max_resolution": [None, Interval(int, 0, MAX_RESOLUTION), Options(("auto",))],
        "penalty": [Options(PENALTIES)],
        "variant": [Options(VARIANTS)],
        "delta": [None, Interval(float, 0.0, 1.0, "right")],
        "penalty_scale": [Interval(float, 0.0, None), Options(("cv",)),
                          InstanceOf((list, tuple), "a list of candidate scales")],
        "max_cells": [Interval(int, 1, None)],
    }

    def __init__(self, *, max_resolution="auto", penalty="spatially_adaptive", variant="free",
                 delta=None, penalty_scale="cv", max_cells=DEFAULT_MAX_CELLS):
        self.max_resolution = max_resolution
        self.penalty = penalty
        self.variant = variant
        self.delta = delta
        self.penalty_scale = penalty_scale
        self.max_cells = max_cells

    def _encode_fit(self, X):
        """Numeric features only; a categorical column is an error naming it."""
        check_two_dimensional(X)
        validate_data(self, X, reset=True, skip_check_array=True)
        categorical = resolve_categorical(X, "auto", self.n_features_in_)
        if categorical.any():
            names = column_names(X)
            bad = [names[j] if names else j for j in np.flatnonzero(categorical)]
            raise ValueError(
                f"{type(self).__name__} needs numeric features, but columns {bad} are "
                "categorical: dyadic trees split coordinates at midpoints, so encode categories "
                "as numbers (for example one-hot) first"
            )
        encoder, X_enc = FeatureEncoder.fit(X, categorical)
        self.encoder_ = encoder
        return self._refuse_missing(X_enc)

    def fit(self, X, y):
        """Fit the optimal dyadic tree of Eq. (1) (Scott & Nowak 2006) on ``X`` and labels ``y``.

        The features are rescaled to ``[0, 1]^d``, the resolution and (with ``penalty_scale="cv"``)
        the penalty scale are chosen, the exact penalized ERM is solved, and the tree is certified
        (``certificate_``).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric features only (a categorical column raises ``ValueError``); no NaN.
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).

        Returns
        -------
        self : DyadicTreeClassifier
            Fitted: ``tree_``, ``classes_``, ``certificate_``, ``objective_``, ``penalty_scale_``,
            ``resolution_`` and the other attributes of the class.

        Raises
        ------
        treebound.dyadic.CellBudgetExceeded
            When the search would store more than ``max_cells`` cells.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(size=(400, 2))
        >>> y = (X[:, 0] > 0.5).astype(int)
        >>> model = DyadicTreeClassifier(max_resolution=3, penalty_scale=1.0).fit(X, y)
        >>> model.get_n_leaves(), model.resolution_, round(model.empirical_risk_, 4)
        (2, 3, 0.0025)
        """
        self._validate_stored_params()
        candidates = self._candidate_scales()
        X_enc = self._encode_fit(X)
        y_enc = self._encode_target(y, X_enc.shape[0])
        n_samples = X_enc.shape[0]
        if self.max_resolution == "auto":
            resolution = auto_resolution(n_samples, X_enc.shape[1])
        elif self.max_resolution is None:
            resolution = default_resolution(n_samples)
        else:
            resolution = int(self.max_resolution)
        self.cv_scores_ = []
        if candidates is None:
            fitted, arrays, settings = self._fit_arrays(X_enc, y_enc, resolution,
                                                        float(self.penalty_scale))
            scale = float(self.penalty_scale)
        else:
            selection = select_penalty_scale(
                X_enc, y_enc, candidates,
                lambda s, X_tr, y_tr, X_te: self._fit_arrays(X_tr, y_tr, resolution, s)[0]
                .predict_indices(X_te),
                lambda exc: isinstance(exc, CellBudgetExceeded))
            self.cv_scores_ = [[s, None if math.isnan(a) else a]
                               for s, a in zip(selection.scales, selection.accuracy, strict=True)]
            scale, (fitted, arrays, settings) = self._refit(X_enc, y_enc, resolution, selection)
        self.tree_ = fitted.tree
        self.penalty_scale_ = scale
        self.resolution_ = resolution
        self.delta_ = settings.delta
        self.data_min_ = fitted.scaling.data_min
        self.data_range_ = fitted.scaling.data_range
        self.objective_ = arrays.objective
        self.empirical_risk_ = arrays.empirical_risk
        self.penalty_ = arrays.penalty
        self.n_cells_evaluated_ = arrays.n_cells_evaluated
        self.certificate_ = fit_certificate(self, X_enc, y_enc)
        return self

    def _refit(self, X_enc, y_enc, resolution, selection):
        """Fit on all the data at the chosen scale; if that search exceeds ``max_cells`` (the
        folds held fewer rows), at the next larger scale instead."""
        chosen = selection.scales.index(selection.scale)
        for i in range(chosen, -1, -1):
            try:
                return selection.scales[i], self._fit_arrays(X_enc, y_enc, resolution,
                                                             selection.scales[i])
            except CellBudgetExceeded:
                if i == 0:
                    raise
        raise AssertionError("unreachable")

    def _candidate_scales(self) -> tuple[float, ...] | None:
        """The scales to cross-validate, or None for one fixed ``penalty_scale``."""
        scale = self.penalty_scale
        if isinstance(scale, str):
            return DEFAULT_PENALTY_SCALES
        if isinstance(scale, list | tuple):
            ok = len(scale) > 0 and all(
                isinstance(s, int | float) and not isinstance(s, bool) and math.isfinite(s)
                and s >= 0 for s in scale)
            if not ok:
                raise ValueError(f"{type(self).__name__} parameter 'penalty_scale' given as a "
                                 "list must hold one or more finite floats >= 0; got "
                                 f"{scale!r}")
            return tuple(float(s) for s in scale)
        return None

    def _fit_arrays(self, X_enc, y_enc, resolution, scale):
        """One DDT at a fixed scale on encoded data: (fitted cells, node arrays, settings)."""
        n_samples = X_enc.shape[0]
        scaling, varying = DyadicScaling.fit(X_enc, resolution)
        settings = DyadicSettings(
            resolution=resolution,
            variant=self.variant,
            penalty=self.penalty,
            delta=float(self.delta) if self.delta is not None else 1.0 / n_samples,
            penalty_scale=float(scale),
            max_cells=int(self.max_cells),
        )
        arrays = fit_dyadic_tree(scaling.grid(X_enc), y_enc, len(self.classes_), varying,
                                 settings)
        return _FittedCells(build_tree(arrays, scaling), scaling), arrays, settings

    # ------------------------------------------------------------- persistence
    def _extra_state(self) -> dict:
        state = {name: getattr(self, name) for name in _EXTRA_FLOATS + _EXTRA_INTS}
        state["data_min_"] = self.data_min_.tolist()
        state["data_range_"] = self.data_range_.tolist()
        state["cv_scores_"] = [list(pair) for pair in self.cv_scores_]
        return state

    def _restore_extra_state(self, extra: dict) -> None:
        problems = []
        extra = dict(extra)
        if "penalty_scale_" not in extra and isinstance(self.penalty_scale, int | float):
            extra["penalty_scale_"] = self.penalty_scale  # a file from before penalty_scale_
        scores = extra.get("cv_scores_", [])
        def number(v):
            return isinstance(v, int | float) and not isinstance(v, bool)

        if not isinstance(scores, list) or not all(
                isinstance(p, list) and len(p) == 2 and number(p[0])
                and (p[1] is None or number(p[1])) for p in scores):
            problems.append("cv_scores_ must be a list of [scale, accuracy or null] pairs")
        for name in _EXTRA_FLOATS:
            value = extra.get(name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
                    value):
                problems.append(f"{name} must be a finite number")
        for name in _EXTRA_INTS:
            value = extra.get(name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                problems.append(f"{name} must be a non-negative integer")
        arrays = {}
        for name in ("data_min_", "data_range_"):
            value = extra.get(name)
            try:
                arrays[name] = np.asarray(value, dtype=np.float64)
            except (TypeError, ValueError):
                problems.append(f"{name} must be a list of numbers")
                continue
            if arrays[name].shape != (self.n_features_in_,) or not np.all(
                    np.isfinite(arrays[name])):
                problems.append(f"{name} must list {self.n_features_in_} finite numbers")
        if "data_range_" in arrays and not problems and np.any(arrays["data_range_"] <= 0):
            problems.append("data_range_ must be positive")
        if problems:
            raise ValueError("invalid DyadicTreeClassifier state: " + "; ".join(problems))
        for name in _EXTRA_FLOATS:
            setattr(self, name, float(extra[name]))
        for name in _EXTRA_INTS:
            setattr(self, name, int(extra[name]))
        self.data_min_ = arrays["data_min_"]
        self.data_range_ = arrays["data_range_"]
        self.cv_scores_ = [[float(s), None if a is None else float(a)] for s, a in scores]


class _FittedCells:
    """A fitted DDT on encoded data: predicts class indices (used inside the CV folds)."""

    def __init__(self, tree: Tree, scaling: DyadicScaling):
        self.tree = tree
        self.scaling = scaling

    def predict_indices(self, X_enc) -> np.ndarray:
        return self.tree.majority_class[self.tree.apply(X_enc)]


def build_tree(arrays: DyadicTreeArrays, scaling: DyadicScaling) -> Tree:
    """The fitted dyadic tree as a :class:`~treebound.tree.Tree` with thresholds in original units.

    The dyadic cell ``{x^s < midpoint}`` becomes the test ``x <= nextafter(b, -inf)`` with ``b``
    the midpoint in original units (:meth:`DyadicScaling.threshold`). An empty leaf (no training
    example) predicts like its parent: its ``value`` row holds the parent's class frequencies.

    Parameters
    ----------
    arrays : DyadicTreeArrays
        The output of :func:`~treebound.dyadic.fit_dyadic_tree`.
    scaling : DyadicScaling
        The scaling the grid indices were computed with.

    Returns
    -------
    Tree
        A validated tree.

    Examples
    --------
    >>> from treebound.dyadic import DyadicSettings, fit_dyadic_tree
    >>> X = np.array([[0.0, 0.0], [1.0, 3.0], [2.0, 1.0], [3.0, 2.0]] * 10)
    >>> y = (X[:, 0] >= 2).astype(int)
    >>> scaling, varying = DyadicScaling.fit(X, resolution=2)
    >>> arrays = fit_dyadic_tree(scaling.grid(X), y, 2, varying,
    ...                          DyadicSettings(resolution=2, penalty_scale=0.5))
    >>> tree = build_tree(arrays, scaling)
    >>> tree.n_leaves, int(tree.feature[0]), float(np.nextafter(tree.threshold[0], np.inf))
    (2, 0, 1.5)
    """
    n_nodes = arrays.first_child.shape[0]
    internal = arrays.first_child >= 0
    counts = arrays.counts.astype(np.float64)
    sizes = counts.sum(axis=1)
    value = counts.copy()
    parent = np.full(n_nodes, -1, dtype=np.int64)
    for i in np.flatnonzero(internal):
        parent[arrays.first_child[i]: arrays.first_child[i] + 2] = i
    for i in np.flatnonzero(sizes == 0):  # an empty cell is a leaf below a non-empty parent
        value[i] = counts[parent[i]] / sizes[parent[i]]
    threshold = np.full(n_nodes, np.nan)
    threshold[internal] = scaling.threshold(arrays.feature[internal], arrays.boundary[internal])
    with np.errstate(invalid="ignore", divide="ignore"):
        impurity = np.where(sizes > 0, 1.0 - counts.max(axis=1) / sizes, 0.0)
    return Tree(
        first_child=arrays.first_child.astype(np.int64),
        n_children=np.where(internal, 2, 0).astype(np.int64),
        feature=arrays.feature.astype(np.int64),
        threshold=threshold,
        category_offset=np.full(n_nodes, -1, dtype=np.int64),
        category_child=np.empty(0, dtype=np.int64),
        value=value,
        impurity=impurity,
        n_node_samples=sizes.astype(np.int64),
        weighted_n_node_samples=sizes,
        n_categories=np.zeros(scaling.data_min.shape[0], dtype=np.int64),
    ).validate()
