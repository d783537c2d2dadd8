"""The numpydoc Examples of the tree package, the fit core, prune() and the certificates run."""

import doctest
import importlib

import pytest

MODULES = [
    "treebound.tree._base",
    "treebound.tree._classes",
    "treebound.tree._fit",
    "treebound.tree._prune",
    "treebound.certificates._deployed",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    if name != "treebound.certificates._deployed":
        assert result.attempted > 0
