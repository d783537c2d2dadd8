"""treebound: decision trees whose size is chosen by learning theory instead of cross-validation.

Every public name is loaded on first access (PEP 562): ``import treebound`` costs almost
nothing, the estimators pull in scikit-learn and numba only when they are asked for, and the
theory functions never load scikit-learn at all.
"""

from __future__ import annotations

import importlib
import warnings

from treebound._version import __version__

#: Public name -> module that defines it.
_EXPORTS = {
    "DecisionTreeClassifier": "treebound.tree",
    "DecisionTreeRegressor": "treebound.tree",
    "Tree": "treebound.tree",
    "export_text": "treebound.tree",
    "format_rules": "treebound.tree",
    "load_model": "treebound.tree",
    "plot_tree": "treebound.tree",
    "save_model": "treebound.tree",
    "to_rules": "treebound.tree",
    "DyadicTreeClassifier": "treebound.dyadic",
    "plot_pruning_path": "treebound.pruning",
    "prune": "treebound.tree",
    # theory: tree structures and their VC-dimension / growth-function bounds
    "PartitioningCache": "treebound.theory",
    "TreeStructure": "treebound.theory",
    "log_growth_function_upper_bound": "treebound.theory",
    "vcdim_lower_bound": "treebound.theory",
    "vcdim_upper_bound": "treebound.theory",
    # certificates: bounds on the true error of any fitted tree
    "Certificate": "treebound.certificates",
    "certify": "treebound.certificates",
    # resource limits of the theory functions
    "ResourceLimitError": "treebound._resources",
    "resource_limits": "treebound._resources",
}

#: The theory names re-exported at the root (tree structures and their bounds).
_THEORY_EXPORTS = tuple(name for name, module in _EXPORTS.items() if module == "treebound.theory")

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str):
    if name == "ESTIMATORS":
        warnings.warn("treebound.ESTIMATORS was a test helper and will be removed in the next "
                      "release: list the estimators you need", FutureWarning, stacklevel=2)
        return (__getattr__("DecisionTreeClassifier"), __getattr__("DecisionTreeRegressor"),
                __getattr__("DyadicTreeClassifier"))
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module 'treebound' has no attribute {name!r}")
    globals()[name] = value  # later accesses skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
