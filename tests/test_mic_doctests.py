"""The numpydoc Examples of ``treebound.mic`` run and print what they claim."""

import doctest
import importlib

import pytest

MODULES = [
    "treebound.mic",
    "treebound.mic.dnf",
    "treebound.mic.distributions",
    "treebound.mic.optimal",
    "treebound.mic.population",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
