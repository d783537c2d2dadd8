"""Cold and warm start of treebound: import time and the first call of each main entry point
(``benchmarks/bench_startup.py``).

Every measurement runs in a fresh subprocess of this interpreter with ``PYTHONPATH`` pointing at
a checkout's ``src`` (this checkout, and optionally another one or an exported commit, so both
are measured in one run on the same machine). For every entry point:

* cold: a new, empty ``NUMBA_CACHE_DIR``, so the call compiles every kernel it needs;
* warm: the same call again in a new process, loading the kernels that run just cached.

Reported per run: wall time from starting the process until the entry point is done (for the
demo: until its first table is printed), and the CPU time numba spent compiling before that
(summed over top-level compilations, from numba's compile events). ``import treebound`` and the
warm ``treebound vcdim`` are timed ``repeats`` times (median).
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from treebound_lab.machine import load_averages
from treebound_lab.provenance import results_header

__all__ = ["ENTRIES", "TITLE", "exported_commit", "git_commit", "measure", "run_entry",
           "run_startup_benchmark", "time_import", "to_markdown"]

TITLE = "Start-up time: import, first calls, kernel compilation"
#: The checkout treebound runs from.
ROOT = Path(__file__).resolve().parents[2]

# Registered in every measured process: adds up numba's top-level compile CPU time and keeps
# the running total in a file, which the parent reads when the entry point is done.
_PRELUDE = r"""
import os, sys, time
from numba.core import event as _event

class _CompileClock(_event.Listener):
    depth = 0
    total = 0.0
    def on_start(self, ev):
        if self.depth == 0:
            self.t0 = time.process_time()
        self.depth += 1
    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0:
            self.total += time.process_time() - self.t0
            path = os.environ["STARTUP_COMPILE_FILE"]
            with open(path + ".tmp", "w") as f:
                f.write(repr(self.total))
            os.replace(path + ".tmp", path)

_event.register("numba:compile", _CompileClock())
"""

_DATA = ("from sklearn.datasets import load_breast_cancer; "
         "X, y = load_breast_cancer(return_X_y=True)\n")

#: name -> (what it does, code run after the prelude, or a CLI argument list).
ENTRIES: dict[str, tuple[str, str | list[str]]] = {
    "fit": ("fit a classifier (breast cancer, 569 x 30, grown to purity) and predict",
            _DATA + "from treebound import DecisionTreeClassifier as T\n"
                    "T().fit(X, y).predict(X)\n"),
    "bound": ("fit + bound pruning (`pruning=\"bound\"`, breast cancer)",
              _DATA + "from treebound import DecisionTreeClassifier as T\n"
                      "T(growth='purest_children', pruning='bound').fit(X, y)\n"),
    "theory": ("theory bound: `log_growth_function_upper_bound(((L,L),L), m=1000, ell=10, n=2)`",
               "from treebound.theory import TreeStructure, log_growth_function_upper_bound\n"
               "log_growth_function_upper_bound(TreeStructure.parse('((L,L),L)'), n_examples=1000, "
               "n_features=10, n_classes=2)\n"),
    "vcdim": ("CLI `treebound vcdim \"((L,L),L)\" --features 10 --classes 2 --examples 1000`",
              ["vcdim", "((L,L),L)", "--features", "10", "--classes", "2", "--examples",
               "1000"]),
    "demo": ("CLI `treebound demo` up to its first table (4 models on one split)", ["demo"]),
    "dyadic": ("dyadic tree: `DyadicTreeClassifier().fit` (breast cancer, first 4 features)",
               _DATA + "from treebound import DyadicTreeClassifier as D\n"
                       "D().fit(X[:, :4], y).predict(X[:, :4])\n"),
}


def _environment(src: Path, cache: str, compile_file: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("TREEBOUND_CACHE_DIR", "NUMBA_CACHE_DIR", "PYTHONPATH")}
    env.update(PYTHONPATH=str(src), NUMBA_CACHE_DIR=cache, STARTUP_COMPILE_FILE=compile_file,
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", COLUMNS="120")
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_entry(src: Path, entry: str, cache: str) -> dict:
    """Wall seconds until ``entry`` is done in a new process, the process's CPU seconds (entry
    points run to the end) and its compile CPU seconds."""
    with tempfile.TemporaryDirectory() as scratch:
        compile_file = os.path.join(scratch, "compile")
        env = _environment(src, cache, compile_file)
        body = ENTRIES[entry][1]
        if isinstance(body, list):  # the command line, stopped after its first output line
            code = (_PRELUDE + f"import runpy\nsys.argv = ['treebound', *{body!r}]\n"
                    "runpy.run_module('treebound.cli', run_name='__main__')\n")
        else:
            code = _PRELUDE + body
        cpu_start = _children_cpu()
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        if entry == "demo":
            first = proc.stdout.readline()
            wall = time.perf_counter() - start
            proc.terminate()
            proc.communicate()
            if not first:
                raise RuntimeError("treebound demo printed nothing")
        else:
            _, err = proc.communicate()
            wall = time.perf_counter() - start
            if proc.returncode != 0:
                raise RuntimeError(f"{entry} failed in {src}:\n{err}")
        cpu = _children_cpu() - cpu_start  # the demo's includes the rest of its first split
        try:
            compiled = float(Path(compile_file).read_text())
        except FileNotFoundError:
            compiled = 0.0
    return {"wall": wall, "cpu": cpu, "compile": compiled}


def time_import(src: Path, cache: str, repeats: int) -> dict:
    """Median seconds of ``import treebound`` (in process) and of the whole process."""
    code = ("import time; t = time.perf_counter(); import treebound; "
            "print(time.perf_counter() - t)")
    inner, outer = [], []
    env = _environment(src, cache, os.devnull)
    for _ in range(repeats):
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True)
        outer.append(time.perf_counter() - start)
        inner.append(float(out.stdout.strip()))
    return {"import": statistics.median(inner), "process": statistics.median(outer)}


def measure(src: Path, entries, repeats: int, echo=print) -> dict:
    results = {}
    with tempfile.TemporaryDirectory() as cache:
        results["import"] = time_import(src, cache, repeats)
        echo(f"  import treebound: {results['import']['import']:.3f} s")
    for entry in entries:
        with tempfile.TemporaryDirectory() as cache:
            cold = run_entry(src, entry, cache)
            warm = run_entry(src, entry, cache)
            if entry == "vcdim" and repeats > 1:
                runs = [warm] + [run_entry(src, entry, cache) for _ in range(repeats - 1)]
                warm = {key: statistics.median(r[key] for r in runs) for key in warm}
        results[entry] = {"cold": cold, "warm": warm}
        echo(f"  {entry:7s} cold {cold['wall']:6.1f} s (compile {cold['compile']:5.1f} s CPU)  "
             f"warm {warm['wall']:5.2f} s (CPU {warm['cpu']:.2f} s, compile {warm['compile']:.1f})")
    return results


def git_commit(path: Path) -> str:
    def git(*args):
        return subprocess.run(["git", *args], cwd=path, capture_output=True, text=True,
                              check=True).stdout.strip()
    try:
        commit = git("rev-parse", "--short", "HEAD")
        # results files regenerated by the benchmarks do not change what is measured
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".",
                    ":(exclude)benchmarks/results")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + (" (uncommitted changes)" if dirty else "")


def to_markdown(runs: list[tuple[str, str, dict]], entries, header: list[str],
                loads: tuple[str, str], repeats: int) -> str:
    """The page: ``header`` (:func:`~treebound_lab.provenance.results_header`), then
    one column group per checkout (``runs``: label, description, measurements)."""
    out = list(header) + [
        f"Load average (1, 5, 15 min) before the run: {loads[0]}; after: {loads[1]} (2 cores "
        "shared with other jobs: wall times are noisy, compile CPU times less so).",
        "",
        "Checkouts: " + "; ".join(f"**{label}** = {description}"
                                  for label, description, _ in runs) + ".",
        "",
        "Each cell is one new process. *Cold*: empty numba cache (`NUMBA_CACHE_DIR` a new "
        "directory), so the call compiles every kernel it needs; *warm*: the same call in a new "
        "process with the kernels cached by the cold run. Wall: from starting the process to "
        "the entry point's end (demo: its first table). Compile: CPU seconds numba spent "
        "compiling (top-level compilations) in that process. Warm CPU: user + system CPU "
        "seconds of the warm process (what its wall time would be on an idle machine; for the "
        "demo this includes the rest of its first split until it was stopped). `import "
        f"treebound` and the warm vcdim: median of {repeats} processes.",
        "",
    ]
    header = "| entry point |"
    rule = "|---|"
    for label, _, _ in runs:
        header += (f" {label}: cold wall (s) | {label}: compile (s CPU) | {label}: warm wall (s) "
                   f"| {label}: warm CPU (s) |")
        rule += "---|---|---|---|"
    out += [header, rule]
    row = "| `import treebound` (in process / whole process) |"
    for _, _, res in runs:
        row += f" - | - | {res['import']['import']:.3f} / {res['import']['process']:.2f} | - |"
    out.append(row)
    for entry in entries:
        row = f"| {ENTRIES[entry][0]} |"
        for _, _, res in runs:
            cold, warm = res[entry]["cold"], res[entry]["warm"]
            row += (f" {cold['wall']:.1f} | {cold['compile']:.1f} | {warm['wall']:.2f} | "
                    f"{warm['cpu']:.2f} |")
        out.append(row)
    after = runs[0][2]
    out += ["", "Targets (issue 12), for the first checkout:", ""]
    if "demo" in after:
        c = after["demo"]["cold"]["compile"]
        out.append(f"- at most 20 s of compilation before the first tree of `treebound demo`: "
                   f"{'met' if c <= 20 else 'NOT met'} ({c:.1f} s CPU of compilation in the "
                   "command's process, the bound-pruning kernels being compiled meanwhile by a "
                   f"second process; {after['demo']['cold']['wall']:.1f} s wall to the first "
                   "table on this loaded machine)")
    if "vcdim" in after:
        w, c = after["vcdim"]["warm"]["wall"], after["vcdim"]["warm"]["cpu"]
        out.append(f"- warm `treebound vcdim` in at most 1 s of wall time: "
                   f"{'met' if w <= 1 else 'NOT met'} ({w:.2f} s wall at the load above, "
                   f"{c:.2f} s of CPU)")
    out.append("")
    return "\n".join(out)




@contextlib.contextmanager
def exported_commit(revision: str, repository: Path = ROOT):
    """A temporary directory holding ``git archive REVISION`` of ``repository`` (no worktree)."""
    archive = subprocess.run(["git", "archive", "--format=tar", revision], cwd=repository,
                             capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory(prefix="treebound-before-") as directory:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4
                tar.extractall(directory, filter="data")
            else:  # our own repository's archive
                tar.extractall(directory)  # noqa: S202
        yield Path(directory)


def _short(revision: str, repository: Path = ROOT) -> str:
    return subprocess.run(["git", "rev-parse", "--short", revision], cwd=repository,
                          capture_output=True, text=True, check=True).stdout.strip()


def run_startup_benchmark(out, *, entries=tuple(ENTRIES), repeats=5, before: Path | None = None,
                          before_commit: str | None = None, command=None, echo=print) -> str:
    """Measure this checkout (and ``before``, a checkout, or ``before_commit``, a revision
    exported with ``git archive``), write the page to ``out`` and return its text."""
    unknown = [e for e in entries if e not in ENTRIES]
    if unknown:
        raise ValueError(f"unknown entry points {unknown}; choose from {list(ENTRIES)}")
    if before is not None and before_commit is not None:
        raise ValueError("give a checkout to compare with (before) or a commit "
                         "(before_commit), not both")
    if before is not None and not (Path(before) / "src" / "treebound").is_dir():
        raise ValueError(f"{before} is not a treebound checkout (no src/treebound)")
    header = results_header(TITLE, command)  # before the run: the load it starts under
    load_before = load_averages()
    with contextlib.ExitStack() as stack:
        checkouts = [("after", ROOT, f"commit {git_commit(ROOT)} (this checkout)")]
        if before is not None:
            path = Path(before).resolve()
            checkouts.append(("before", path, f"commit {git_commit(path)} (`{path}`)"))
        elif before_commit is not None:
            path = stack.enter_context(exported_commit(before_commit))
            checkouts.append(("before", path, f"commit {_short(before_commit)} (exported with "
                                              "`git archive`)"))
        runs = []
        for label, path, description in checkouts:
            echo(f"{label}: {description}")
            runs.append((label, description, measure(path / "src", entries, repeats, echo)))
    load_after = load_averages()
    text = to_markdown(runs, entries, header, (load_before, load_after), repeats)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(text)
    return text
