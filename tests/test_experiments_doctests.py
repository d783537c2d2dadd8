"""Run the docstring examples of the experiment helpers."""

import doctest
import importlib

import pytest

MODULES = ["treebound_lab.provenance"]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
