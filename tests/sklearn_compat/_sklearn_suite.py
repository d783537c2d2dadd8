"""scikit-learn's own tree tests, run with treebound's estimators in place of scikit-learn's.

scikit-learn ships ``sklearn/tree/tests/test_tree.py`` and ``test_monotonic_tree.py`` with the
package. :func:`load_suite` executes such a module afresh while ``sklearn.tree.
DecisionTreeClassifier`` and ``DecisionTreeRegressor`` are treebound's, so the module's
``from sklearn.tree import ...`` and every list built from it at import time (``CLF_TREES``,
``ALL_TREES``, the ``parametrize`` lists) hold treebound's classes; the test bodies are not
touched. ``ExtraTreeClassifier``/``ExtraTreeRegressor`` and the forests stay scikit-learn's (the
forests are imported before the swap): those tests are not ours to count.

**Which tests count** (:func:`groups_of`) -- the rule that gives the issue's 130 classifier, 167
regressor and 74 ``monotonic_cst`` tests:

* a test instance whose parameters hold a tree estimator (a class, an instance or a class name)
  counts for treebound's classes among them, and for nothing when there are none (an
  ``ExtraTree*`` or forest instance);
* a test instance whose parameters hold no tree estimator counts for each of treebound's classes
  its body uses: by name, through a module-level collection holding it (``CLF_TREES``,
  ``ALL_TREES``...) or through a module-level helper it calls;
* a test of ``test_monotonic_tree.py`` that counts for either class is a ``monotonic`` test; one
  of ``test_tree.py`` is a ``classifier`` and/or ``regressor`` test.

Tests that count for neither class (scikit-learn's Cython internals, its ExtraTree*) are
deselected. Each counted test that fails today because the feature is not built yet matches a
row of :data:`EXPECTED_FAILURES` (``xfail(strict=True)``, with the owner of the fix and, where
only some instances fail, a condition on the parameters), so a fix turns it into an XPASS
failure and the fixer removes the row; the end state is an empty table. :data:`EXCLUDED` lists
the tests that read scikit-learn's private internals, each with why.

``report.py`` next to this file prints the pass counts per group.

``TREEBOUND_SKLEARN_SUITE=sklearn`` runs the same harness with scikit-learn's own classes (the
control: everything passes, ``report.py --control``).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import os
import textwrap
import types
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from sklearn.base import BaseEstimator

MODULES = {
    "test_tree": "sklearn.tree.tests.test_tree",
    "test_monotonic_tree": "sklearn.tree.tests.test_monotonic_tree",
}
CLASS_NAMES = ("DecisionTreeClassifier", "DecisionTreeRegressor")
#: group of a counted test: its file and the class it uses
GROUPS = {("test_tree", "DecisionTreeClassifier"): "classifier",
          ("test_tree", "DecisionTreeRegressor"): "regressor",
          ("test_monotonic_tree", "DecisionTreeClassifier"): "monotonic",
          ("test_monotonic_tree", "DecisionTreeRegressor"): "monotonic"}
TREE_NAMES = CLASS_NAMES + ("ExtraTreeClassifier", "ExtraTreeRegressor")


def control_run() -> bool:
    """True when the harness runs scikit-learn's own classes (the control)."""
    return os.environ.get("TREEBOUND_SKLEARN_SUITE", "treebound") == "sklearn"


def classes_under_test() -> dict[str, type]:
    if control_run():
        import sklearn.tree as sktree  # the control run: scikit-learn's own classes

        return {name: getattr(sktree, name) for name in CLASS_NAMES}
    import treebound  # treebound's classes

    return {name: getattr(treebound, name) for name in CLASS_NAMES}


def load_suite(key: str) -> types.ModuleType:
    """scikit-learn's test module ``key`` executed with the classes under test in place of
    scikit-learn's ``DecisionTreeClassifier``/``DecisionTreeRegressor``."""
    import sklearn.ensemble  # noqa: F401 - the forests keep scikit-learn's trees
    import sklearn.tree as sktree

    spec = importlib.util.find_spec(MODULES[key])
    module = importlib.util.module_from_spec(spec)
    saved = {name: getattr(sktree, name) for name in CLASS_NAMES}
    try:
        for name, cls in classes_under_test().items():
            setattr(sktree, name, cls)
        spec.loader.exec_module(module)
    finally:
        for name, cls in saved.items():
            setattr(sktree, name, cls)
    return module


def test_functions(module: types.ModuleType) -> dict[str, types.FunctionType]:
    """The module's test functions, for the harness module's namespace (pytest collects them
    there; their globals stay scikit-learn's module)."""
    return {name: obj for name, obj in vars(module).items()
            if name.startswith("test_") and inspect.isfunction(obj)}


# ------------------------------------------------------------------------- counting rule
def _tree_names_in(value, ours: dict[str, type]) -> set[str] | None:
    """Treebound class names a parameter value holds; None when it holds no tree estimator."""
    if isinstance(value, str):
        return {value} & set(CLASS_NAMES) if value in TREE_NAMES else None
    cls = value if isinstance(value, type) else type(value)
    if isinstance(cls, type) and issubclass(cls, BaseEstimator):
        return {name for name, c in ours.items() if cls is c}
    return None


def _names_used(function: types.FunctionType, seen: set[str]) -> set[str]:
    """Global names a function's body reads, through the module-level helpers it calls."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    found = set(names)
    for name in names - seen:
        helper = function.__globals__.get(name)
        if (inspect.isfunction(helper) and not name.startswith("test_")
                and helper.__module__ == function.__module__):
            seen.add(name)
            found |= _names_used(helper, seen)
    return found


def _classes_in(value, ours: dict[str, type]) -> set[str]:
    if isinstance(value, dict):
        value = [*value.keys(), *value.values()]
    items = value if isinstance(value, list | tuple | set | frozenset) else [value]
    out = set()
    for item in items:
        for name, cls in ours.items():
            if item is cls or (isinstance(item, str) and item == name):
                out.add(name)
    return out


def classes_used(function: types.FunctionType, params: dict) -> set[str]:
    """Treebound classes a test instance uses (the rule of the module docstring)."""
    ours = classes_under_test()
    from_params = [_tree_names_in(v, ours) for v in params.values()]
    from_params = [names for names in from_params if names is not None]
    if from_params:
        return set().union(*from_params)
    used = set()
    for name in _names_used(function, set()):
        if name in function.__globals__:
            used |= _classes_in(function.__globals__[name], ours)
    return used


def groups_of(key: str, function: types.FunctionType, params: dict) -> list[str]:
    """The groups (classifier, regressor, monotonic) a test instance counts for."""
    return sorted({GROUPS[key, name] for name in classes_used(function, params)})


# -------------------------------------------------------------------------- the tables
#: Tests that read scikit-learn's private internals: not run, each with why.
EXCLUDED: dict[str, str] = {
    "test_tree::test_build_pruned_tree_py":
        "builds scikit-learn's Cython Tree and calls its private _build_pruned_tree_py on "
        "tree_, which must be that Cython class",
    "test_tree::test_build_pruned_tree_infinite_loop":
        "the same private _build_pruned_tree_py on scikit-learn's Cython Tree",
    "test_tree::test_huge_allocations":
        "checks that the Cython builder pre-allocates max_leaf_nodes nodes and fails with "
        "MemoryError; treebound allocates per grown node, so a huge budget is no error",
}

def _sparse(params: dict) -> bool:
    """A test instance given a scipy.sparse container (or asked for sparse input)."""
    return any(getattr(v, "__module__", "").startswith("scipy.sparse") for v in params.values()
               ) or params.get("sparse_splitter") is True


def _splitter_random(params: dict) -> bool:
    return params.get("splitter") == "random"


@dataclass(frozen=True)
class Expected:
    """A counted test that fails until ``owner`` builds ``missing``; ``when`` narrows it to
    the instances whose parameters match (None: every instance)."""

    test: str
    owner: str
    missing: str
    when: Callable[[dict], bool] | None = None


#: Tests that fail today because a feature is not built yet, each with the owner of the fix
#: (api: estimator layer; kern: split kernels; nan: NaN and sparse input). The first row that
#: matches an instance applies. A fix makes its rows XPASS (strict: a failure): remove them.
#: The end state is an empty table.
EXPECTED_FAILURES: list[Expected] = [
    # ---- nan: NaN and scipy.sparse X, everywhere: every NaN and sparse test passes
    # ---- kern: criteria, random splits, monotonic constraints, several outputs: every test
    # passes
]


def marks_for(key: str, name: str, params: dict, callspec_id: str | None):
    """The skip/xfail marks of one test instance (from :data:`EXCLUDED` and
    :data:`EXPECTED_FAILURES`), or an empty list."""
    if control_run():
        return []
    test = f"{key}::{name}"
    for pattern in (f"{test}[{callspec_id}]", test):
        if pattern in EXCLUDED:
            return [pytest.mark.skip(reason=f"excluded: {EXCLUDED[pattern]}")]
    for row in EXPECTED_FAILURES:
        if row.test == test and (row.when is None or row.when(params)):
            return [pytest.mark.xfail(strict=True, reason=f"[{row.owner}] {row.missing}")]
    return []
