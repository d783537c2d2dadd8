"""``DyadicTreeClassifier``: penalized empirical risk minimisation over dyadic decision trees."""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import validate_data

from treebound._validation import Interval, Options
from treebound.dyadic._scaling import MAX_RESOLUTION, DyadicScaling
from treebound.dyadic._search import (
    PENALTIES,
    VARIANTS,
    DyadicSettings,
    DyadicTreeArrays,
    default_resolution,
    fit_dyadic_tree,
)
from treebound.tree._classes import BaseDecisionTree, TreeClassifierMixin, _check_two_dimensional
from treebound.tree._encoding import FeatureEncoder, column_names, resolve_categorical
from treebound.tree._storage import Tree

#: Default ``max_cells``: about 100 MB of memo table (roughly 50 bytes per stored cell) and at
#: most a few minutes of search on tens of thousands of examples.
DEFAULT_MAX_CELLS = 2_000_000

_EXTRA_FLOATS = ("objective_", "empirical_risk_", "penalty_", "delta_")
_EXTRA_INTS = ("resolution_", "n_cells_evaluated_")


class DyadicTreeClassifier(TreeClassifierMixin, ClassifierMixin, BaseDecisionTree):
    """Dyadic decision tree chosen by penalized empirical risk minimisation (Scott & Nowak 2006).

    Features are rescaled to ``[0, 1]^d`` by the training minimum and range. A dyadic decision
    tree (DDT) splits a cell at the midpoint of one coordinate; ``T_M`` holds the DDTs that split
    no coordinate more than ``L`` times on any root-to-leaf path (``M = 2**L``). The fitted tree is
    the exact minimiser of Eq. (1), ``R̂_n(T) + Φ_n(T)`` over ``T_M`` (SPEC section 6).

    Parameters
    ----------
    max_resolution : int or None, default=None
        ``L``, the most splits of one coordinate on a path (cells down to side ``2**-L``).
        ``None`` uses ``L = max(1, floor(log2(n / ln n)))``, i.e. ``M ≍ n / log n``: the choice
        of Theorems 7 and 8 and section VII, with which the penalized DDT adapts at once to the
        noise level, the data's intrinsic dimension, irrelevant features and boundary
        smoothness. Theorem 6 (noise level in full dimension) uses the coarser
        ``M ≍ (n / log n)^{1/d}``: ``treebound.dyadic.theorem6_resolution(n, d)``. Finer
        resolutions cost the search little at ``penalty_scale=1`` (deep cells are provably
        leaves) but much more at small scales.
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
    penalty_scale : float >= 0, default=1.0
        Multiplies the penalty. The theory's constant is 1 (Theorem 2 holds for it); smaller
        values give larger trees but make the free search much slower.
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
        "max_resolution": [None, Interval(int, 0, MAX_RESOLUTION)],
        "penalty": [Options(PENALTIES)],
        "variant": [Options(VARIANTS)],
        "delta": [None, Interval(float, 0.0, 1.0, "right")],
        "penalty_scale": [Interval(float, 0.0, None)],
        "max_cells": [Interval(int, 1, None)],
    }

    def __init__(self, *, max_resolution=None, penalty="spatially_adaptive", variant="free",
                 delta=None, penalty_scale=1.0, max_cells=DEFAULT_MAX_CELLS):
        self.max_resolution = max_resolution
        self.penalty = penalty
        self.variant = variant
        self.delta = delta
        self.penalty_scale = penalty_scale
        self.max_cells = max_cells

    def _encode_fit(self, X):
        """Numeric features only; a categorical column is an error naming it."""
        _check_two_dimensional(X)
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
        return X_enc

    def fit(self, X, y):
        """Fit the optimal DDT of Eq. (1) on ``X`` (numeric) and class labels ``y``."""
        self._validate_stored_params()
        X_enc = self._encode_fit(X)
        y_enc = self._encode_target(y, X_enc.shape[0])
        n_samples, n_features = X_enc.shape
        resolution = (default_resolution(n_samples) if self.max_resolution is None
                      else int(self.max_resolution))
        scaling, varying = DyadicScaling.fit(X_enc, resolution)
        settings = DyadicSettings(
            resolution=resolution,
            variant=self.variant,
            penalty=self.penalty,
            delta=float(self.delta) if self.delta is not None else 1.0 / n_samples,
            penalty_scale=float(self.penalty_scale),
            max_cells=int(self.max_cells),
        )
        arrays = fit_dyadic_tree(scaling.grid(X_enc), y_enc, len(self.classes_), varying,
                                 settings)
        self.tree_ = build_tree(arrays, scaling)
        self.resolution_ = resolution
        self.delta_ = settings.delta
        self.data_min_ = scaling.data_min
        self.data_range_ = scaling.data_range
        self.objective_ = arrays.objective
        self.empirical_risk_ = arrays.empirical_risk
        self.penalty_ = arrays.penalty
        self.n_cells_evaluated_ = arrays.n_cells_evaluated
        from treebound.certificates import fit_certificate

        self.certificate_ = fit_certificate(self, X_enc, y_enc)
        return self

    # ------------------------------------------------------------- persistence
    def _extra_state(self) -> dict:
        state = {name: getattr(self, name) for name in _EXTRA_FLOATS + _EXTRA_INTS}
        state["data_min_"] = self.data_min_.tolist()
        state["data_range_"] = self.data_range_.tolist()
        return state

    def _restore_extra_state(self, extra: dict) -> None:
        problems = []
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


def build_tree(arrays: DyadicTreeArrays, scaling: DyadicScaling) -> Tree:
    """The fitted DDT as a :class:`Tree` with thresholds in original feature units."""
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
