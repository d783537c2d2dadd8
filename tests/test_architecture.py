"""The layers of ``docs/architecture.md``, checked on the source.

Every module of ``src/treebound`` is parsed with :mod:`ast`; its imports (at the top and inside
functions, ``if TYPE_CHECKING:`` blocks aside, and the entries of a lazy ``_EXPORTS`` table,
which are imports made on first access) are mapped to layers. The tests fail on

* an import of a higher layer (:func:`test_no_module_imports_a_higher_layer`);
* a cycle between subpackages, however long (:func:`test_no_cycle_between_subpackages`);
* an import inside a function that is neither an optional dependency nor a deliberate lazy load
  listed in :data:`LAZY_IMPORTS`, or that has no comment saying why
  (:func:`test_imports_inside_functions_are_listed_and_explained`).

``from treebound import NAME`` (and the same from a package with a lazy ``_EXPORTS`` table) is
an import of the module that defines ``NAME``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "treebound"

#: Layers, lowest first: a module may import from its own layer and the layers below it.
#: A unit is a subpackage (``treebound.tree``) or a top-level module (``treebound._options``).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("treebound._version", "treebound._config", "treebound._validation",
                    "treebound._resources", "treebound._options", "treebound._format")),
    ("kernels", ("treebound._kernels",)),
    ("flat tree and feature coding", ("treebound._flat",)),
    ("theory", ("treebound.theory", "treebound.mic")),
    ("certificates", ("treebound.certificates",)),
    ("pruning", ("treebound.pruning",)),
    ("estimators", ("treebound._estimator", "treebound.dyadic", "treebound.tree")),
    ("command line", ("treebound.cli",)),
    ("package root", ("treebound",)),
]

#: Modules on their way out of the installed package (none left: the lab, once
#: ``treebound.experiments``, lives in ``benchmarks/treebound_lab`` and imports treebound like
#: any user): not checked, and imports of them are not counted.
LEAVING: tuple[str, ...] = ()

#: Third-party packages that are optional (extras): imported where they are used.
OPTIONAL = ("matplotlib", "dask", "distributed", "lightgbm", "pystreed", "gosdt")

#: Deliberate lazy loads inside functions: (importing module or package, imported module or
#: package) -> why. Each site also carries a one-line comment.
LAZY_IMPORTS: dict[tuple[str, str], str] = {
    ("treebound.cli", "treebound"): "a command loads what it runs when it runs: `treebound "
    "--help` and the theory commands load neither scikit-learn nor pandas (test_startup)",
    ("treebound.cli", "rich"): "rich tables only for the commands that print one",
    ("treebound.cli", "pandas"): "pandas only for the commands that read a table",
    ("treebound.cli", "numpy"): "numpy only for the commands that need it",
    ("treebound.cli", "sklearn"): "scikit-learn only for the commands that fit",
    ("treebound.theory", "scipy"): "scipy.fft / scipy.special cost ~0.3 s to import: loaded "
    "only by the sums that need them",
    ("treebound.theory", "treebound.theory.tail_inversion"): "PEP 562: the tail inversions "
    "(and scipy.special) load on first use",
    ("treebound.pruning", "sklearn.model_selection"): "~0.2 s to import: only the "
    "cross-validated and hold-out methods split rows",
    ("treebound._config", "numba"): "numba's internals, read only when the kernel cache is set up",
}


# ----------------------------------------------------------------------------- the graph
@dataclass(frozen=True)
class Import:
    module: str      # the importing module
    target: str      # the imported module (resolved through lazy _EXPORTS tables)
    line: int
    in_function: bool
    commented: bool  # a comment on the line or on the line above


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def modules() -> dict[str, Path]:
    found = {module_name(p): p for p in SRC.rglob("*.py")}
    return {m: p for m, p in found.items() if not m.startswith(LEAVING)}


def lazy_exports(tree: ast.Module) -> dict[str, str]:
    """A package's ``_EXPORTS = {name: module}`` table (PEP 562 lazy names), if any."""
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if isinstance(target, ast.Name) and target.id == "_EXPORTS" and node.value is not None:
            return ast.literal_eval(node.value)
    return {}


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _absolute(module: str, node: ast.ImportFrom, package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str, path: Path, exports: dict[str, dict[str, str]],
               known: set[str]) -> list[Import]:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    found: list[Import] = []

    def says_why(text: str) -> bool:
        """A comment with words in it (a bare ``# noqa`` or ``# type:`` pragma says nothing)."""
        comment = text.split("#", 1)[1].strip() if "#" in text else ""
        return bool(comment) and not comment.startswith(("noqa", "type:", "pragma"))

    def commented(first: int, last: int) -> bool:
        """A comment on the line above ``first`` or at the end of a line of the group."""
        above = lines[first - 2].strip() if first >= 2 else ""
        return (above.startswith("#") and says_why(above)) or any(
            says_why(lines[n - 1]) for n in range(first, last + 1))

    def add(target: str, node: ast.stmt, in_function: bool, group: tuple[int, int]) -> None:
        found.append(Import(module, target, node.lineno, in_function, commented(*group)))

    def visit(node: ast.AST, in_function: bool) -> None:
        group = (0, 0)  # first and last line of the run of imports the statement belongs to
        previous_end = -10
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for sub in child.orelse:
                    visit(sub, in_function)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                # consecutive imports (isort's blank line between sections allowed) share the
                # comment above the first
                if child.lineno > previous_end + 2:
                    group = (child.lineno, child.end_lineno)
                group = (group[0], child.end_lineno)
                previous_end = child.end_lineno
            if isinstance(child, ast.Import):
                for alias in child.names:
                    add(alias.name, child, in_function, group)
            elif isinstance(child, ast.ImportFrom):
                base = _absolute(module, child, is_package(path))
                for alias in child.names:
                    full = f"{base}.{alias.name}"
                    if full in known:
                        add(full, child, in_function, group)  # a submodule
                    elif alias.name in exports.get(base, {}):
                        add(exports[base][alias.name], child, in_function, group)  # lazy name
                    else:
                        add(base, child, in_function, group)
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef
                                              | ast.Lambda)
            visit(child, inner)

    visit(tree, False)
    if is_package(path):
        for target in lazy_exports(tree).values():
            found.append(Import(module, target, 1, False, True))
    return found


def all_imports() -> list[Import]:
    found = modules()
    exports = {m: lazy_exports(ast.parse(p.read_text(encoding="utf-8")))
               for m, p in found.items() if is_package(p)}
    known = set(found)
    out = []
    for m, p in sorted(found.items()):
        out.extend(imports_of(m, p, exports, known))
    return out


def unit(module: str) -> str | None:
    """The layer unit of a treebound module (None outside treebound)."""
    parts = module.split(".")
    if parts[0] != "treebound":
        return None
    return ".".join(parts[:2])


def layer_of(module: str) -> int:
    name = unit(module)
    for rank, (_, units) in enumerate(LAYERS):
        if name in units:
            return rank
    raise AssertionError(f"{module} belongs to no layer: add its package to LAYERS")


def internal_edges() -> list[Import]:
    return [i for i in all_imports() if unit(i.target) is not None
            and not i.target.startswith(LEAVING)]


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def _where(i: Import) -> str:
    return f"{i.module}:{i.line} imports {i.target}"


# ----------------------------------------------------------------------------- the tests
def test_every_module_belongs_to_a_layer():
    for m in modules():
        layer_of(m)


def _upward(imports: list[Import]) -> list[str]:
    return sorted({f"{_where(i)} ({LAYERS[layer_of(i.target)][0]} above "
                   f"{LAYERS[layer_of(i.module)][0]})"
                   for i in imports
                   if unit(i.module) != "treebound" and layer_of(i.target) > layer_of(i.module)})


def test_no_module_imports_a_higher_layer():
    upward = _upward(internal_edges())
    assert not upward, "\n".join(upward)


def _subpackage_cycles(imports: list[Import]) -> tuple[list[list[str]], list[str]]:
    edges = [i for i in imports if unit(i.module) != unit(i.target)]
    found = cycles({(unit(i.module), unit(i.target)) for i in edges})
    detail = sorted({_where(i) for i in edges
                     if any(unit(i.module) in c and unit(i.target) in c for c in found)})
    return found, detail


def test_no_cycle_between_subpackages():
    found, detail = _subpackage_cycles(internal_edges())
    assert not found, f"cycles {found}:\n" + "\n".join(detail)


def _module_cycles(package: str) -> list[list[str]]:
    edges = {(i.module, i.target) for i in internal_edges()
             if i.module.startswith(package + ".") and i.target.startswith(package + ".")
             and i.module != i.target}
    return cycles(edges)


def test_no_cycle_between_the_modules_of_theory():
    found = _module_cycles("treebound.theory")
    assert not found, found


@pytest.mark.parametrize("package", ["treebound._flat", "treebound.certificates",
                                     "treebound.pruning", "treebound._estimator",
                                     "treebound.tree", "treebound.dyadic", "treebound.mic"])
def test_no_cycle_between_the_modules_of_a_package(package):
    found = _module_cycles(package)
    assert not found, found


def _lazy_reason(i: Import) -> str | None:
    if i.target.split(".")[0] in OPTIONAL:
        return "optional dependency"
    for (importer, imported), why in LAZY_IMPORTS.items():
        if (i.module == importer or i.module.startswith(importer + ".")) and (
                i.target == imported or i.target.startswith(imported + ".")):
            return why
    return None


def _unexplained(imports: list[Import]) -> list[str]:
    inside = [i for i in imports if i.in_function and not i.target.startswith(LEAVING)]
    unlisted = sorted({_where(i) for i in inside
                       if _lazy_reason(i) is None})
    silent = sorted({_where(i) for i in inside if not i.commented})
    return ([f"not an optional dependency nor listed in LAZY_IMPORTS: {w}" for w in unlisted]
            + [f"no one-line comment saying why: {w}" for w in silent])


def test_imports_inside_functions_are_listed_and_explained():
    problems = _unexplained(all_imports())
    assert not problems, "\n".join(problems)


# ----------------------------------------------------------------------------- the checker
def test_the_checks_catch_a_violation(tmp_path):
    # the parser sees an upward import inside a function, a lazy name and a TYPE_CHECKING block
    path = tmp_path / "probe.py"
    path.write_text("from typing import TYPE_CHECKING\n"
                    "if TYPE_CHECKING:\n    from treebound.tree import Tree\n"
                    "def f():\n    from treebound import prune  # noqa: F401\n    return prune\n"
                    "def g():\n    # matplotlib loads in 0.5 s\n    import matplotlib\n"
                    "    return matplotlib\n")
    exports = {"treebound": {"prune": "treebound.tree._prune"}}
    found = imports_of("treebound._flat.probe", path, exports, set())
    assert [(i.target, i.in_function, i.commented) for i in found] == [
        ("typing", False, False), ("treebound.tree._prune", True, False),
        ("matplotlib", True, True)]
    assert layer_of("treebound.tree._prune") > layer_of("treebound._flat.probe")
    assert _lazy_reason(found[1]) is None
    assert cycles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}) == [["a", "b", "c"]]
