"""Cold start: lazy imports, one compiled signature per kernel call, the kernel cache location and
the command line's first-run note."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

import treebound
from treebound import _config
from treebound.cli import _notes
from treebound.cli.main import app

JIT_DISABLED = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


def _modules_after(code: str) -> set[str]:
    """Top-level packages imported by ``code`` in a fresh interpreter."""
    probe = code + "\nimport sys; print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    return set(out.stdout.split())


def test_import_treebound_loads_no_heavy_dependency():
    loaded = _modules_after("import treebound")
    assert not loaded & {"numba", "sklearn", "pandas", "scipy", "matplotlib", "rich"}


def test_theory_command_loads_no_estimator_dependency():
    loaded = _modules_after(
        "from treebound.cli.main import app\n"
        "app(['vcdim', '((L,L),L)', '--features', '3', '--examples', '50'],"
        " standalone_mode=False)")
    assert "treebound" in loaded and "numba" in loaded
    assert not loaded & {"sklearn", "pandas", "matplotlib"}


def test_theory_command_leaves_the_tail_inversions_unloaded():
    probe = ("from treebound.cli.main import app\n"
             "app(['vcdim', '(L,L)', '--features', '2', '--examples', '20'], standalone_mode=False)\n"
             "import sys; print('scipy.special' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split()[-1] == "False"
    from treebound import theory

    assert theory.binomial_tail_inversion(0, n_examples=10, delta=0.05) > 0
    assert set(theory.__all__) <= set(dir(theory))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        theory.nope  # noqa: B018


@pytest.mark.parametrize("module", [
    "treebound.pruning", "treebound.pruning.bound", "treebound.tree", "treebound._flat._storage",
    "treebound.certificates", "treebound.dyadic", "treebound.theory", "treebound.mic",
    "treebound.cli.main", "treebound.cli._demo",
])
def test_every_package_imports_first_in_a_fresh_interpreter(module):
    # an import cycle only shows when its other end has not been imported yet
    result = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr


def test_tree_namespace_is_lazy_and_complete():
    from treebound import tree

    assert set(tree.__all__) <= set(dir(tree))
    for name in tree.__all__:
        assert getattr(tree, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        tree.nope  # noqa: B018


def test_lazy_namespace_matches_the_defining_modules():
    from treebound import dyadic, theory, tree

    assert treebound.DecisionTreeClassifier is tree.DecisionTreeClassifier
    assert treebound.prune is tree.prune
    assert treebound.DyadicTreeClassifier is dyadic.DyadicTreeClassifier
    assert treebound.TreeStructure is theory.TreeStructure
    assert "ESTIMATORS" not in treebound.__all__  # a test helper (tests/_model_configs.py)
    with pytest.warns(FutureWarning, match="ESTIMATORS"):
        assert treebound.ESTIMATORS == (tree.DecisionTreeClassifier,
                                        tree.DecisionTreeRegressor, dyadic.DyadicTreeClassifier)
    assert set(treebound.__all__) <= set(dir(treebound))
    for name in treebound.__all__:
        assert getattr(treebound, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        treebound.nope  # noqa: B018


@_config.njit(cache=False)
def _add_at(values, k):
    return values[k] + 1.0


@_config.njit(cache=False)
def _calls_with_constants(values):
    offset = 0  # a constant that becomes int64 only later in type inference
    for _ in range(2):
        offset += 1
    return _add_at(values, 0) + _add_at(values, 1) + _add_at(values, offset)


@pytest.mark.skipif(JIT_DISABLED, reason="needs numba's compiler")
def test_kernel_called_with_constants_is_compiled_once():
    # plain numba.njit would compile _add_at for Literal[int](0), Literal[int](1) and int64
    assert _calls_with_constants(np.arange(3.0)) == 1.0 + 2.0 + 3.0
    signatures = list(_add_at.overloads)
    assert len(signatures) == 1
    assert "Literal" not in str(signatures[0])


def test_njit_refuses_eager_signatures():
    with pytest.raises(TypeError, match="keyword options only"):
        _config.njit("float64(float64)")


def test_cache_root_precedence(monkeypatch, tmp_path):
    for variable in ("TREEBOUND_CACHE_DIR", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert _config.cache_root() == tmp_path / "home" / ".cache" / "treebound"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _config.cache_root() == tmp_path / "xdg" / "treebound"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert _config.cache_root() == tmp_path / "numba"
    monkeypatch.setenv("TREEBOUND_CACHE_DIR", str(tmp_path / "tb"))
    assert _config.cache_root() == tmp_path / "tb"
    assert _config.kernel_cache_dir() == tmp_path / "tb" / "treebound-kernels"


def test_a_kernel_edit_invalidates_its_group_only(monkeypatch, tmp_path):
    # a copy of the kernel sources: editing mic.py changes the stamp of the kernels that import
    # it (none but itself), not the growth kernels'
    import shutil

    copy = tmp_path / "_kernels"
    shutil.copytree(_config._KERNEL_DIR, copy)
    monkeypatch.setattr(_config, "_KERNEL_DIR", copy)
    for cached in (_config._kernel_imports, _config.kernel_group_hash):
        cached.cache_clear()
    try:
        before = {m: _config.kernel_group_hash(m) for m in ("mic", "grow", "partitioning",
                                                             "factorial_basis")}
        assert "node_search" in _config.kernel_group("grow")
        assert _config.kernel_group("factorial_basis") == ["factorial_basis", "partitioning"]
        (copy / "mic.py").write_text((copy / "mic.py").read_text() + "\n# edited\n")
        (copy / "partitioning.py").write_text((copy / "partitioning.py").read_text() + "\n#\n")
        _config.kernel_group_hash.cache_clear()
        after = {m: _config.kernel_group_hash(m) for m in before}
    finally:
        monkeypatch.undo()
        for cached in (_config._kernel_imports, _config.kernel_group_hash):
            cached.cache_clear()
    assert after["grow"] == before["grow"]
    assert all(after[m] != before[m] for m in ("mic", "partitioning", "factorial_basis"))


@pytest.mark.skipif(JIT_DISABLED or not _config.NUMBA_CACHE, reason="needs the kernel cache")
def test_kernels_are_cached_in_the_kernel_cache_dir():
    from treebound import DecisionTreeClassifier
    from treebound._kernels.apply import apply_numeric

    X = np.random.default_rng(0).random((40, 2))
    DecisionTreeClassifier(max_depth=2).fit(X, X[:, 0] > 0.5).predict(X)
    assert apply_numeric._cache._cache_path == str(_config.kernel_cache_dir())
    assert _config.kernels_cached("apply", "apply_numeric")
    assert not _config.kernels_cached("apply", "no_such_kernel")


def test_every_kernel_group_names_an_existing_kernel():
    import importlib

    for module, function, seconds in _notes.KERNEL_GROUPS.values():
        assert callable(getattr(importlib.import_module(f"treebound._kernels.{module}"), function))
        assert seconds > 0


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_compile_note_only_before_a_first_compilation(monkeypatch, tmp_path):
    monkeypatch.setenv("TREEBOUND_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    monkeypatch.setattr(_config, "NUMBA_CACHE", True)
    note = _notes.compile_note(("growth", "bound pruning"))
    assert note.startswith("treebound: compiling numba kernels (growth, bound pruning)")
    assert "first run only" in note
    # the growth kernels in the cache: only bound pruning is left to announce
    directory = _config.kernel_cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    stamp = _config.kernel_group_hash("grow")
    (directory / f"grow._split_loop-123-{stamp}.py311.nbi").write_bytes(b"")
    assert "(bound pruning)" in _notes.compile_note(("growth", "bound pruning"))
    assert _notes.compile_note(("growth",)) is None

    terminal, pipe = _Terminal(), io.StringIO()
    _notes.announce_compilation(("bound pruning",), stream=terminal)
    _notes.announce_compilation(("bound pruning",), stream=pipe)
    assert terminal.getvalue().count("\n") == 1 and pipe.getvalue() == ""
    monkeypatch.setattr(_notes, "QUIET", True)
    quiet = _Terminal()
    _notes.announce_compilation(("bound pruning",), stream=quiet)
    assert quiet.getvalue() == ""


def test_quiet_option(monkeypatch):
    monkeypatch.setattr(_notes, "QUIET", False)
    result = CliRunner().invoke(app, ["--quiet", "vcdim", "(L,L)", "--features", "2"])
    assert result.exit_code == 0, result.output
    assert _notes.QUIET is True


def test_background_compilation_only_when_the_command_compiles_too(monkeypatch, tmp_path):
    from treebound.cli import _warmup

    started = []
    monkeypatch.setattr(_warmup, "start_background", lambda groups: started.append(groups) or 1)
    monkeypatch.setenv("TREEBOUND_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    monkeypatch.setattr(_config, "NUMBA_CACHE", True)
    terminal = _Terminal()
    _notes.announce_compilation(("growth", "bound pruning"), stream=terminal,
                                background=("bound pruning",))
    assert started == [["bound pruning"]]
    # growth (here) and bound pruning (elsewhere, shorter) overlap
    growth, bound = _notes.KERNEL_GROUPS["growth"][2], _notes.KERNEL_GROUPS["bound pruning"][2]
    assert growth > bound and f"about {growth:.0f} s" in terminal.getvalue()
    # with the growth kernels cached there is nothing to overlap: no second process
    directory = _config.kernel_cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    stamp = _config.kernel_group_hash("grow")
    (directory / f"grow._split_loop-1-{stamp}.py311.nbi").write_bytes(b"")
    _notes.announce_compilation(("growth", "bound pruning"), stream=io.StringIO(),
                                background=("bound pruning",))
    assert len(started) == 1


def test_bound_pruning_warmup_prunes_a_built_tree():
    from treebound import prune
    from treebound.cli import _warmup

    tree = _warmup._binary_tree(3, 60, 30, seed=3)
    assert tree.n_leaves == 8 and tree.n_node_samples[0] == tree.value[0].sum()
    assert np.array_equal(tree.value[0], tree.value[1] + tree.value[2])
    result = prune(tree, method="bound")
    assert 1 <= result.tree.n_leaves <= 8
    _warmup.main(["bound pruning"])  # what the background process runs
    assert _warmup.start_background(["no such group"]) is None


def test_certificates_warmup_runs_the_whole_compression_path(monkeypatch):
    from treebound.certificates import _compression as compression  # where the kernels are called
    from treebound.cli import _warmup

    called = set()
    for name in ("threshold_neighbours", "value_pairs", "count_rows_by_value",
                 "fill_rows_by_value", "choose_rows"):
        kernel = getattr(compression, name)
        monkeypatch.setattr(compression, name,
                            lambda *a, _k=kernel, _n=name: called.add(_n) or _k(*a))
    _warmup.main(["certificates"])  # what the background process runs
    assert called == {"threshold_neighbours", "value_pairs", "count_rows_by_value",
                      "fill_rows_by_value", "choose_rows"}
