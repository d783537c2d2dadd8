"""The numpydoc Examples of ``treebound.dyadic`` run and print what they claim."""

import doctest
import importlib

import pytest

MODULES = [
    "treebound.dyadic._classes",
    "treebound.dyadic._penalty",
    "treebound.dyadic._scaling",
    "treebound.dyadic._search",
    "treebound.dyadic._selection",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
