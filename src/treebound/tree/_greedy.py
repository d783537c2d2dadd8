"""What the greedy estimators share: their parameter constraints, the growth settings their
parameters resolve to, and fitting and storing a pruning (:class:`GreedyTree`).

``DecisionTreeClassifier`` and ``DecisionTreeRegressor`` (:mod:`treebound.tree._classes`)
subclass :class:`GreedyTree`; growth and pruning run in :func:`treebound.tree._fit.fit_tree`.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
from sklearn.utils import check_random_state

from treebound._estimator._base import (
    BaseTreeEstimator,
    check_fit_columns,
    check_two_dimensional,
)
from treebound._flat._encoding import HANDLE_UNKNOWN, FeatureEncoder, resolve_categorical
from treebound._kernels.value_checks import HAS_NAN
from treebound._validation import InstanceOf, Interval, Options, RealNotInt, external_stacklevel
from treebound.pruning._registry import METHODS as PRUNING_METHODS
from treebound.tree._builder import CATEGORICAL_SPLITS, GROWTH_POLICIES, SPLITTERS, GrowthSettings
from treebound.tree._fit import fit_tree
from treebound.tree._sklearn_api import (
    FLOAT32_MAX,
    SklearnTreeMixin,
    check_float32_range,
    refuse_beyond_float32,
)

__all__ = ["COMMON_CONSTRAINTS", "ESTIMATOR_SPLITTERS", "GreedyTree", "auto_leaf_budget",
           "growth_settings", "set_pruning_state"]

#: The estimators' ``splitter`` values: scikit-learn's "best" (the exact greedy search, called
#: "exact" before, still accepted with a FutureWarning for one release) and "random" where
#: growth has it, treebound's "hist".
ESTIMATOR_SPLITTERS = tuple(s for s in ("best", "random", "hist", "exact")
                            if s in SPLITTERS or s == "best")
#: The growth settings' name of each estimator splitter.
_GROWTH_SPLITTER = {s: s for s in SPLITTERS} | {
    name: "best" if "best" in SPLITTERS else "exact" for name in ("best", "exact")}

#: Parameter constraints of both greedy estimators (the criterion differs).
COMMON_CONSTRAINTS = {
    "growth": [Options(tuple(GROWTH_POLICIES))],
    "splitter": [Options(ESTIMATOR_SPLITTERS)],
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
    "categorical_levels": [None, InstanceOf((dict,), "a dict of column -> number of levels "
                                            "(or list of levels)")],
    "ccp_alpha": [Interval(float, 0.0, None)],
    "min_weight_fraction_leaf": [Interval(float, 0.0, 0.5)],
    "monotonic_cst": [None, InstanceOf((list, tuple, np.ndarray),
                                       "an array-like of -1, 0 or 1, one per feature")],
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



def resolved_max_features(max_features, n_features: int) -> int:
    """The number of features examined per split that ``max_features`` means on
    ``n_features`` features (scikit-learn's ``max_features_``).

    >>> [resolved_max_features(m, 10) for m in (None, "sqrt", "log2", 3, 0.01, 0.5)]
    [10, 3, 3, 3, 1, 5]
    """
    if max_features is None:
        return n_features
    if max_features == "sqrt":
        return max(1, int(math.sqrt(n_features)))
    if max_features == "log2":
        return max(1, int(math.log2(n_features)))
    if isinstance(max_features, numbers.Integral):
        return int(max_features)
    return max(1, int(max_features * n_features))


#: The seeds drawn for growth lie in [0, 2**31 - 1) (np.iinfo(np.int32).max, a constant).
_INT32_MAX = 2**31 - 1


def growth_settings(model, n_samples: int, n_features: int) -> GrowthSettings:
    """The :class:`GrowthSettings` a greedy estimator's parameters resolve to on data of this
    size (fractions of rows, ``max_features`` names, ``"auto"`` budgets, the seed)."""
    min_split = model.min_samples_split
    if isinstance(min_split, float):
        min_split = max(2, math.ceil(min_split * n_samples))
    min_leaf = model.min_samples_leaf
    if isinstance(min_leaf, float):
        min_leaf = max(1, math.ceil(min_leaf * n_samples))
    max_features = min(resolved_max_features(model.max_features, n_features), n_features)
    seed = int(check_random_state(model.random_state).randint(_INT32_MAX))
    max_leaf_nodes = model.max_leaf_nodes
    if max_leaf_nodes == "auto":
        max_leaf_nodes = auto_leaf_budget(n_samples) if model.pruning == "bound" else None
    return GrowthSettings(
        criterion=model.criterion,
        growth=model.growth,
        splitter=_GROWTH_SPLITTER[model.splitter],
        max_bins=int(model.max_bins),
        max_depth=model.max_depth,
        max_leaf_nodes=max_leaf_nodes,
        min_samples_split=int(min_split),
        min_samples_leaf=int(min_leaf),
        min_impurity_decrease=float(model.min_impurity_decrease),
        max_features=int(max_features),
        categorical_split=model.categorical_split,
        seed=seed,
        min_weight_fraction_leaf=float(model.min_weight_fraction_leaf),
        monotonic_cst=_monotonic_cst(model.monotonic_cst),
    )


def _monotonic_cst(monotonic_cst):
    """The constraints as a tuple (growth checks their values and length, with scikit-learn's
    messages); None when every feature is free."""
    if monotonic_cst is None:
        return None
    cst = np.asarray(monotonic_cst)
    return tuple(cst.tolist()) if cst.ndim == 1 else cst


def set_pruning_state(model, result) -> None:
    """Store a pruning's outcome on a fitted greedy estimator (``tree_`` and the fitted
    ``pruning_objective_``, ``pruning_path_``, ``pruning_time_``, ``pruning_info_``); None = no
    pruning."""
    if result is None:
        model.pruning_objective_, model.pruning_path_, model.pruning_time_, \
            model.pruning_info_ = None, [], 0.0, {}
        return
    model.tree_ = result.tree
    model.pruning_objective_ = result.objective
    model.pruning_path_ = [(int(n), float(obj)) for n, obj in result.path]
    model.pruning_time_ = float(result.time)
    model.pruning_info_ = _json_ready(result.info)


class GreedyTree(SklearnTreeMixin, BaseTreeEstimator):
    """Greedy growth (criteria, growth orders, stopping rules) and pruning, shared by the
    classifier and the regressor."""

    def _validate_stored_params(self) -> None:
        super()._validate_stored_params()
        if self.splitter == "exact":
            warnings.warn('splitter="exact" is now called splitter="best" (scikit-learn\'s '
                          'name of the exact greedy search): "exact" will stop working in the '
                          "next release", FutureWarning, stacklevel=external_stacklevel())
        if self.ccp_alpha > 0.0 and self.pruning is not None:
            raise ValueError(
                f"ccp_alpha={self.ccp_alpha!r} fixes the cost-complexity pruning and "
                f"pruning={self.pruning!r} chooses one: set ccp_alpha=0.0 (the default) or "
                "pruning=None")

    @classmethod
    def _upgrade_params(cls, params: dict) -> dict:
        """Parameters of an older model file under today's names (``splitter="exact"`` is
        ``"best"``), so that loading it does not warn about a name the user never wrote."""
        if params.get("splitter") == "exact":
            params = {**params, "splitter": "best"}
        return params

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # a 2-D y fits one tree (several outputs), unless a pruning method is set
        tags.target_tags.multi_output = self.pruning is None
        return tags

    #: NaN in X is a missing value, routed by every test (scikit-learn's tag ``allow_nan``)
    _accepts_missing = True
    #: X may be sparse (numeric features; treebound._flat._sparse)
    _accepts_sparse = True

    def _encode_fit(self, X):
        check_two_dimensional(X, sparse=True)
        check_fit_columns(self, X)
        n_features = self.n_features_in_
        mask = resolve_categorical(X, self.categorical_features, n_features)
        # one pass over the rows checks them against float32's range, sees the NaN and, for a
        # plain float64 array, gives the column ranges feature coding starts from
        encoder, X_enc, flags, ranges = FeatureEncoder.fit_checked(
            X, mask, self.categorical_levels, limit=FLOAT32_MAX)
        if flags is None:  # a sparse X: its stored values (no missing value)
            check_float32_range(X_enc, encoder.n_categories)
        else:
            refuse_beyond_float32(flags)
        self.encoder_ = encoder
        self.max_features_ = resolved_max_features(self.max_features, n_features)
        # whether the rows held a missing value: the exporters then say where missing values go
        self._missing_in_fit = flags is not None and bool(flags & HAS_NAN)
        return X_enc, ranges

    def _encode(self, X) -> np.ndarray:
        X_enc = super()._encode(X)
        check_float32_range(X_enc, self.encoder_.n_categories)
        return X_enc

    def _fit_encoded(self, X_enc, y_enc, sample_weight, n_classes, cache=None,
                     column_ranges=None, rows_out=None):
        settings = growth_settings(self, X_enc.shape[0], X_enc.shape[1])
        tree, result = fit_tree(X_enc, y_enc, sample_weight, self.encoder_.n_categories,
                                settings, n_classes=n_classes, pruning=self.pruning,
                                pruning_params=self.pruning_params,
                                ccp_alpha=float(self.ccp_alpha), cache=cache,
                                column_ranges=column_ranges, rows_out=rows_out)
        self.tree_ = tree
        set_pruning_state(self, result)
        return self

    @property
    def bound_(self):
        """Deprecated alias of ``pruning_objective_`` (removed in the next release)."""
        if "pruning_objective_" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__} has no bound_: call fit first")
        warnings.warn("bound_ is now called pruning_objective_ (the objective pruning "
                      "minimized, which may exceed 1; certificate_ bounds the error on new "
                      "data): bound_ will stop working in the next release", FutureWarning,
                      stacklevel=2)
        return self.pruning_objective_

    def _extra_state(self) -> dict:
        # the model file keeps the key "bound" (format version 1)
        state = {"bound": getattr(self, "pruning_objective_", None),
                 "pruning_path": [list(p) for p in getattr(self, "pruning_path_", [])],
                 "pruning_info": getattr(self, "pruning_info_", {})}
        if "_missing_in_fit" in self.__dict__:
            state["missing_values"] = self._missing_in_fit
        return state

    def _restore_extra_state(self, extra: dict) -> None:
        if "missing_values" in extra:  # files written before it: the exporters guess
            if not isinstance(extra["missing_values"], bool):
                raise ValueError("model field extra.missing_values must be true or false")
            self._missing_in_fit = extra["missing_values"]
        bound = extra.get("bound")
        if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int | float)):
            raise ValueError("model field extra.bound must be a number or null")
        path = extra.get("pruning_path", [])
        _check_pruning_path(path, self.tree_.flat)
        # Timings are not part of the model (same data and seed -> identical file); a file may
        # still carry one.
        seconds = extra.get("pruning_time", math.nan)
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
            raise ValueError("model field extra.pruning_time must be a non-negative number")
        info = extra.get("pruning_info", {})
        if not isinstance(info, dict):
            raise ValueError("model field extra.pruning_info must be an object")
        self.max_features_ = resolved_max_features(self.max_features, self.n_features_in_)
        self.n_outputs_ = self.__dict__["_flat_tree"].n_outputs
        if isinstance(getattr(self, "classes_", None), list):  # one array per output
            self.n_classes_ = np.array([len(c) for c in self.classes_], dtype=np.intp)
        elif hasattr(self, "classes_"):
            self.n_classes_ = int(self.classes_.shape[0])
        self.pruning_objective_ = None if bound is None else float(bound)
        self.pruning_path_ = [(int(n), math.nan if obj is None else float(obj))
                              for n, obj in path]
        self.pruning_time_ = float(seconds)
        self.pruning_info_ = info
