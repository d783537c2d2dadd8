"""Per-estimator configurations for the registry-driven tests (imodels style).

Every public estimator (:data:`ESTIMATORS`: the scikit-learn estimators among the root's public
names) must have an entry: a list of parameter sets to run the common invariants with, and the
properties that apply to it.
"""

from sklearn.base import BaseEstimator

import treebound
from treebound import DecisionTreeClassifier, DecisionTreeRegressor, DyadicTreeClassifier

#: Every public estimator: the classes among ``treebound.__all__`` that are scikit-learn
#: estimators (a new one is found here without being listed).
ESTIMATORS = tuple(obj for obj in (getattr(treebound, name) for name in treebound.__all__)
                   if isinstance(obj, type) and issubclass(obj, BaseEstimator))

CONFIGS = {
    DecisionTreeClassifier: [
        {},
        {"growth": "best_first", "max_leaf_nodes": 6},
        {"growth": "purest_children", "max_leaf_nodes": 9, "criterion": "entropy"},
        {"splitter": "hist", "max_bins": 8, "criterion": "sqrt"},
        {"max_features": 2, "random_state": 3, "min_samples_leaf": 2},
        {"growth": "purest_children", "pruning": "bound"},
        {"pruning": "bound", "pruning_params": {"variant": "loose", "delta": 0.2}},
        {"pruning": "ccp_cv", "pruning_params": {"n_folds": 4}, "random_state": 1},
        {"pruning": "mcart_cv", "pruning_params": {"n_folds": 3, "rule": "1se"}, "random_state": 0},
        {"pruning": "certified", "pruning_params": {"n_folds": 3}, "random_state": 0},
        {"pruning": "srm"},
        {"pruning": "reduced_error", "random_state": 2},
    ],
    DyadicTreeClassifier: [
        {},
        {"variant": "cyclic", "penalty_scale": 0.3},
        {"penalty": "square_root", "max_resolution": 2},
        {"penalty_scale": 0.2, "max_resolution": 3},
    ],
    DecisionTreeRegressor: [
        {},
        {"growth": "top_down", "max_leaf_nodes": 7},
        {"splitter": "hist", "max_bins": 8},
        {"pruning": "ccp_cv", "pruning_params": {"n_folds": 4}, "random_state": 1},
        {"pruning": "reduced_error", "random_state": 2},
    ],
}

#: estimator instances run through scikit-learn's checks besides each class's defaults
EXTRA_SKLEARN_CHECKED = [
    DecisionTreeClassifier(pruning="bound"),
    DecisionTreeClassifier(pruning="ccp_cv", pruning_params={"n_folds": 3}),
    DecisionTreeRegressor(pruning="ccp_cv", pruning_params={"n_folds": 3}),
]

#: estimators whose predictions do not change under strictly increasing feature transforms
#: (dyadic trees cut cells at midpoints of the rescaled range: only affine maps keep them)
MONOTONE_INVARIANT = {DecisionTreeClassifier, DecisionTreeRegressor}
