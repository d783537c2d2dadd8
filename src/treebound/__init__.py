"""treebound: decision trees whose size is chosen by learning theory instead of cross-validation."""

from treebound.dyadic import DyadicTreeClassifier
from treebound.tree import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    Tree,
    export_text,
    format_rules,
    load_model,
    save_model,
    to_rules,
)

__version__ = "0.1.0"

#: Every public estimator; the common test module runs each through scikit-learn's checks.
ESTIMATORS = (DecisionTreeClassifier, DecisionTreeRegressor, DyadicTreeClassifier)

__all__ = [
    "ESTIMATORS",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "DyadicTreeClassifier",
    "Tree",
    "__version__",
    "export_text",
    "format_rules",
    "load_model",
    "save_model",
    "to_rules",
]
