"""The public API is documented: numpydoc Parameters / Returns / Examples everywhere, and every
module holding Examples runs them under a doctest test.

Public means the names in ``__all__`` of the packages below and of every module whose dotted
path has no ``_`` component (``treebound.pruning.srm``, ``treebound.theory.tail_inversion``,
...; the command line, ``treebound.cli``, is documented by its ``--help`` instead, and the lab
beside the package, ``benchmarks/treebound_lab``, by its results pages), and the public methods of their
classes (including those inherited from treebound base classes). A function or method needs a
``Parameters`` section naming every parameter of its signature (and no other), a ``Returns``
(or ``Yields``) section and an ``Examples`` section; a class needs ``Examples`` and, when its
constructor takes arguments, ``Parameters`` naming them (the fields of a dataclass record).
Properties are documented by their one-line docstring.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import treebound

PACKAGES = ["treebound", "treebound.theory", "treebound.pruning", "treebound.certificates",
            "treebound.tree", "treebound.dyadic", "treebound.mic"]



def _public_modules() -> list[str]:
    """Modules whose dotted path has no private component, outside the CLI and benchmarks."""
    found = []
    for info in pkgutil.walk_packages(treebound.__path__, "treebound."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts) or parts[1] == "cli":
            continue
        found.append(info.name)
    return sorted(found)


DOCUMENTED_MODULES = PACKAGES + [m for m in _public_modules() if m not in PACKAGES]

DOCTEST_TEST_MODULES = ["test_theory_doctests", "test_tree_doctests", "test_pruning_doctests",
                        "test_mic_doctests", "test_dyadic_doctests", "test_experiments_doctests"]

_SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}\n", re.M)


def _sections(doc: str) -> dict[str, str]:
    """numpydoc sections of a docstring: title -> body."""
    found = list(_SECTION.finditer(doc))
    return {m.group(1): doc[m.end(): found[i + 1].start() if i + 1 < len(found) else len(doc)]
            for i, m in enumerate(found)}


def _documented_names(body: str) -> set[str]:
    """Parameter names of a Parameters section: the unindented ``name, other : type`` lines."""
    names = set()
    for line in body.splitlines():
        if not line or line[0].isspace():
            continue
        head = line.split(" : ", 1)[0]
        names.update(part.strip().lstrip("*") for part in head.split(","))
    return names


def _signature_names(func, skip_first: bool) -> list[str] | None:
    try:
        parameters = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):  # builtins and exceptions without a Python signature
        return None
    if skip_first:
        parameters = parameters[1:]
    # *args / **kwargs are pass-through (documented when they mean something, not required)
    return [p.name for p in parameters
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and not p.name.startswith("_")]


def _public_methods(cls):
    """``(name, function, takes_instance)`` of the public methods of ``cls`` and of its
    treebound bases (the first definition along the MRO wins)."""
    seen = set()
    for base in cls.__mro__:
        if not base.__module__.startswith("treebound"):
            continue
        for name, raw in vars(base).items():
            if name.startswith("_") or name in seen:
                continue
            if isinstance(raw, staticmethod):
                seen.add(name)
                yield name, raw.__func__, False
            elif isinstance(raw, classmethod):
                seen.add(name)
                yield name, raw.__func__, True
            elif inspect.isfunction(raw):
                seen.add(name)
                yield name, raw, True


def _public_callables():
    items = {}
    for package in DOCUMENTED_MODULES:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isclass(obj):
                items.setdefault(f"{obj.__module__}.{obj.__qualname__}", ("class", obj, False))
                for method, func, skip_first in _public_methods(obj):
                    items.setdefault(f"{obj.__module__}.{obj.__qualname__}.{method}",
                                     ("method", func, skip_first))
            elif inspect.isfunction(obj):
                items.setdefault(f"{obj.__module__}.{obj.__qualname__}", ("function", obj, False))
    return dict(sorted(items.items()))


PUBLIC = _public_callables()


def _problems(kind, obj, skip_first) -> list[str]:
    doc = inspect.getdoc(obj) or ""
    sections = _sections(doc)
    problems = []
    if "Examples" not in sections or ">>>" not in sections["Examples"]:
        problems.append("no Examples section with a >>> example")
    if kind != "class" and not {"Returns", "Yields"} & set(sections):
        problems.append("no Returns section")
    names = _signature_names(obj, skip_first)
    section = sections.get("Parameters")
    if names:
        if section is None:
            problems.append("no Parameters section")
        else:
            documented = _documented_names(section)
            missing = [n for n in names if n not in documented]
            if missing:
                problems.append(f"parameters not documented: {missing}")
            if kind != "class":
                unknown = sorted(documented - set(names) - {"args", "kwargs", "params"})
                if unknown:
                    problems.append(f"documented parameters not in the signature: {unknown}")
    return problems


def test_the_public_api_is_found():
    # the walk finds estimators, their methods, theory functions and dataclass records
    assert "treebound.tree._classes.DecisionTreeClassifier" in PUBLIC
    assert "treebound.tree._classes.DecisionTreeClassifier.fit" in PUBLIC
    assert "treebound.dyadic._classes.DyadicTreeClassifier.predict_proba" in PUBLIC  # inherited
    assert "treebound.theory.partitioning.log_growth_function_upper_bound" in PUBLIC
    assert "treebound.theory.structures.TreeStructure.parse" in PUBLIC
    assert "treebound.certificates._certificate.Certificate" in PUBLIC
    # names of public submodules that their package does not re-export
    assert "treebound.pruning.srm.prune_srm" in PUBLIC
    assert "treebound.theory._hypergeometric.log_hypergeometric_sf" in PUBLIC
    assert len(PUBLIC) > 150


@pytest.mark.parametrize("name", list(PUBLIC))
def test_public_callable_is_documented(name):
    kind, obj, skip_first = PUBLIC[name]
    problems = _problems(kind, obj, skip_first)
    assert not problems, f"{name}: " + "; ".join(problems)


def test_the_checker_rejects_incomplete_docstrings():
    def bare(n_examples, *, n_features):
        """One line only."""

    def complete(n_examples, *, n_features):
        """Summary.

        Parameters
        ----------
        n_examples, n_features : int
            Sizes.

        Returns
        -------
        int

        Examples
        --------
        >>> complete(1, n_features=2)
        """

    def stale(n_examples):
        """Summary.

        Parameters
        ----------
        n_examples : int
        n_classes : int
            A parameter the function no longer has.

        Returns
        -------
        int

        Examples
        --------
        >>> stale(1)
        """

    assert _problems("function", bare, False) == ["no Examples section with a >>> example",
                                                   "no Returns section",
                                                   "no Parameters section"]
    assert _problems("function", complete, False) == []
    assert _problems("function", stale, False) == [
        "documented parameters not in the signature: ['n_classes']"]


def _modules_with_examples() -> set[str]:
    root = Path(treebound.__file__).resolve().parent
    found = set()
    for path in root.rglob("*.py"):
        if ">>>" in path.read_text(encoding="utf-8"):
            parts = path.relative_to(root.parent).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found.add(".".join(parts))
    return found


def test_every_module_with_examples_runs_them():
    covered = set()
    for name in DOCTEST_TEST_MODULES:
        covered.update(importlib.import_module(name).MODULES)
    missing = sorted(_modules_with_examples() - covered)
    assert not missing, f"modules whose Examples no doctest test runs: {missing}"


def test_every_public_package_imports_on_its_own():
    # an example starting with ``from treebound.pruning import ...`` must run in a fresh
    # interpreter: no package may depend on another having been imported first (import cycle)
    code = (
        "import importlib, sys\n"
        f"for name in {PACKAGES!r}:\n"
        "    for loaded in [m for m in sys.modules if m.split('.')[0] == 'treebound']:\n"
        "        del sys.modules[loaded]\n"
        "    importlib.import_module(name)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
