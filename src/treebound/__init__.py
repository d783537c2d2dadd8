"""treebound: decision trees whose size is chosen by learning theory instead of cross-validation."""

from treebound._resources import ResourceLimitError, resource_limits
from treebound.dyadic import DyadicTreeClassifier
from treebound.pruning import plot_pruning_path, prune
from treebound.tree import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    Tree,
    export_text,
    format_rules,
    load_model,
    plot_tree,
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
    "ResourceLimitError",
    "Tree",
    "__version__",
    "export_text",
    "format_rules",
    "load_model",
    "plot_pruning_path",
    "plot_tree",
    "prune",
    "resource_limits",
    "save_model",
    "to_rules",
]

# Theory: tree structures and their VC-dimension / growth-function bounds, loaded on first access
# (PEP 562) so that ``import treebound`` stays light.
_THEORY_EXPORTS = (
    "PartitioningCache",
    "TreeStructure",
    "log_growth_function_upper_bound",
    "vcdim_lower_bound",
    "vcdim_upper_bound",
)
__all__ += list(_THEORY_EXPORTS)


# Certificates (bounds on the true error of any fitted tree), also loaded on first access.
_CERTIFICATE_EXPORTS = ("Certificate", "certify")
__all__ += list(_CERTIFICATE_EXPORTS)


def __getattr__(name):
    if name in _THEORY_EXPORTS:
        from treebound import theory

        return getattr(theory, name)
    if name in _CERTIFICATE_EXPORTS:
        from treebound import certificates

        return getattr(certificates, name)
    raise AttributeError(f"module 'treebound' has no attribute {name!r}")
