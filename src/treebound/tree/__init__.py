"""Tree estimators, flat-array storage, growth and export.

Names are loaded on first access (PEP 562), so that importing a leaf module such as
``treebound._flat._storage`` (which :mod:`treebound.pruning` reads) does not import the
estimators, which import the pruning package in turn.
"""

from __future__ import annotations

import importlib

#: Public name -> module that defines it.
_EXPORTS = {
    "Condition": "treebound.tree._export",
    "DecisionTreeClassifier": "treebound.tree._classes",
    "DecisionTreeRegressor": "treebound.tree._classes",
    "Rule": "treebound.tree._export",
    "Tree": "treebound._flat._storage",
    "export_text": "treebound.tree._export",
    "format_rules": "treebound.tree._export",
    "leaf_rules": "treebound.tree._export",
    "load_model": "treebound.tree._model_io",
    "plot_tree": "treebound.tree._plot",
    "prune": "treebound.tree._prune",
    "save_model": "treebound.tree._model_io",
    "to_rules": "treebound.tree._export",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'treebound.tree' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value  # later accesses skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
