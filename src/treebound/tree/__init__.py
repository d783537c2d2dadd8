"""The greedy tree estimators, growth, ``prune``, export, plots and model files.

``Tree``, the flat tree every layer reads, lives below in :mod:`treebound._flat` and is public
here. Names are loaded on first access (PEP 562): ``import treebound.tree`` costs nothing until
a name is read (``docs/architecture.md``).
"""

from __future__ import annotations

import importlib

#: Public name -> module that defines it.
_EXPORTS = {
    "Condition": "treebound.tree._export",
    "DecisionTreeClassifier": "treebound.tree._classes",
    "DecisionTreeRegressor": "treebound.tree._regressor",
    "Rule": "treebound.tree._export",
    "Tree": "treebound._flat._storage",
    "export_text": "treebound.tree._sklearn_text",
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
