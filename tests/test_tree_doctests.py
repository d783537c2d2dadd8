"""The numpydoc Examples of the tree package, the flat tree and its codings, the fit core,
prune() and the certificates' readers run."""

import doctest
import importlib

import matplotlib
import pytest

matplotlib.use("Agg")

MODULES = [
    "treebound._estimator._base",
    "treebound.tree._classes",
    "treebound.tree._regressor",
    "treebound.tree._greedy",
    "treebound.tree._fit",
    "treebound.tree._prune",
    "treebound._flat._storage",
    "treebound._flat._sklearn_view",
    "treebound.tree._sklearn_api",
    "treebound._flat._missing",
    "treebound.tree._export",
    "treebound.tree._sklearn_text",
    "treebound.tree._model_io",
    "treebound.tree._plot",
    "treebound.certificates._deployed",
    "treebound.certificates._adapters",
    "treebound._flat._features",
    "treebound._flat._labels",
    "treebound._flat._outputs",
    "treebound.certificates._outputs",
    "treebound.cli._lists",
    "treebound._validation",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
