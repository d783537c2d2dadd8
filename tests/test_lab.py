"""The library apart from its lab: ``benchmarks/treebound_lab`` imports treebound like a user, the
installed package holds none of it, the lab has no import cycles, and ``treebound bench`` finds
it in a checkout and says what to do elsewhere."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from treebound.cli import _bench
from treebound.cli.main import app

ROOT = Path(__file__).resolve().parents[1]
LAB = ROOT / "benchmarks" / "treebound_lab"
SRC = ROOT / "src" / "treebound"


def _module_name(path: Path, root: Path, package: str) -> str:
    parts = (package, *path.relative_to(root).with_suffix("").parts)
    return ".".join(parts).removesuffix(".__init__")


def _imports(path: Path):
    """Every module named by an import statement of ``path``, in functions too."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def _lab_graph() -> dict[str, set[str]]:
    modules = {_module_name(p, LAB, "treebound_lab"): p for p in LAB.rglob("*.py")}
    return {name: {m for m in _imports(path) if m in modules and m != name}
            for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (a list of modules), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_the_lab_has_no_import_cycle():
    graph = _lab_graph()
    assert len(graph) > 20  # the whole lab was read
    assert _cycle(graph) is None


def test_the_installed_package_never_imports_the_lab():
    for path in SRC.rglob("*.py"):
        lab = [m for m in _imports(path) if m.split(".")[0] == "treebound_lab"]
        assert not lab, f"{path.relative_to(ROOT)} imports {lab}"
    assert not (SRC / "experiments").exists()


def test_the_lab_imports_on_its_own():
    # outside pytest's pythonpath: as the scripts and treebound bench load it
    modules = sorted(_lab_graph())
    code = f"import importlib\nfor m in {modules!r}:\n    importlib.import_module(m)\n"
    env = {**os.environ, "PYTHONPATH": str(LAB.parent)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr


def test_bench_finds_the_lab_of_this_checkout(tmp_path):
    # editable install: the lab beside the imported package, from any working directory
    assert _bench.lab_directory(tmp_path) == LAB.parent
    result = CliRunner().invoke(app, ["bench", "--help"])
    assert result.exit_code == 0
    for command in ("pruning", "srm", "certify", "peers", "dyadic", "mic", "figure3"):
        assert command in result.output


def test_bench_without_a_checkout_says_where_the_lab_is(tmp_path):
    # the package as a wheel installs it: no benchmarks/ beside it, none above the directory
    site = tmp_path / "site"
    shutil.copytree(SRC, site / "treebound", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(site)}
    for args in (["bench", "pruning", "--data-dir", "x"], ["bench"]):
        done = subprocess.run([sys.executable, "-m", "treebound.cli", *args], cwd=tmp_path,
                              capture_output=True, text=True, env=env)
        assert done.returncode == 2, done.stderr
        message = " ".join(done.stderr.replace("│", " ").split())
        assert "treebound bench runs the lab of a treebound source checkout" in message
        assert "Traceback" not in done.stderr
    help_text = subprocess.run([sys.executable, "-m", "treebound.cli", "bench", "--help"],
                               cwd=tmp_path, capture_output=True, text=True, env=env)
    assert help_text.returncode == 0 and "checkout" in help_text.stdout


#: The library internals the lab still reads, each for a reason (everything else it imports is
#: the public API): the MIC sweeps grow whole DNF families in one compiled batch and enumerate
#: their reachable states, and ``bench dyadic`` prints the command line's first-run note.
LAB_INTERNALS = {"treebound._kernels.mic", "treebound.mic._states", "treebound.cli._notes"}


def test_the_lab_reads_only_the_listed_internals():
    used = set()
    for path in LAB.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            used |= {name for name in names if name.split(".")[0] == "treebound"
                     and any(part.startswith("_") for part in name.split(".")[1:])}
    assert used == LAB_INTERNALS
