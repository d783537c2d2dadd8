"""The Examples of treebound.pruning are runnable and correct."""

import doctest
import importlib

import matplotlib
import pytest

matplotlib.use("Agg")

MODULES = [
    "treebound.pruning",
    "treebound.pruning.bound",
    "treebound.pruning._core",
    "treebound.pruning._dispatch",
    "treebound.pruning._bound_objective",
    "treebound.pruning.certificate_bound",
    "treebound.pruning.certified",
    "treebound.pruning.cost_complexity",
    "treebound.pruning._weakest_link",
    "treebound.pruning.reduced_error",
    "treebound.pruning.srm",
    "treebound.pruning.plot",
    "treebound.pruning._registry",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
