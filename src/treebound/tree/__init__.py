"""Tree estimators, flat-array storage, growth and export."""

from treebound.tree._classes import DecisionTreeClassifier, DecisionTreeRegressor
from treebound.tree._export import Condition, Rule, export_text, format_rules, leaf_rules, to_rules
from treebound.tree._model_io import load_model, save_model
from treebound.tree._plot import plot_tree
from treebound.tree._prune import prune
from treebound.tree._storage import Tree

__all__ = [
    "Condition",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "Rule",
    "Tree",
    "export_text",
    "format_rules",
    "leaf_rules",
    "load_model",
    "plot_tree",
    "prune",
    "save_model",
    "to_rules",
]
