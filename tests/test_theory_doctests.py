"""The numpydoc Examples of treebound.theory are runnable and correct."""

import doctest
import importlib

import pytest

MODULES = [
    "treebound.theory.structures",
    "treebound.theory._fitted_shapes",
    "treebound.theory._pruned_shapes",
    "treebound.theory._cache",
    "treebound.theory._regimes",
    "treebound.theory.combinatorics",
    "treebound.theory.partitioning",
    "treebound.theory.vcdim",
    "treebound.theory.shattering",
    "treebound.theory.bounds",
    "treebound.theory.tail_inversion",
    "treebound.theory._hypergeometric",
    "treebound.certificates",
    "treebound.certificates._certificate",
    "treebound.certificates._memo",
    "treebound._format",
    "treebound.certificates._rows",
    "treebound.certificates._stored",
    "treebound._resources",
    "treebound._config",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_package_root_reexports():
    import treebound

    for name in treebound._THEORY_EXPORTS:
        assert name in treebound.__all__
        assert getattr(treebound, name) is getattr(importlib.import_module("treebound.theory"), name)
