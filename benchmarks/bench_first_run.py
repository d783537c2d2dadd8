"""The first ``make demo`` of a fresh clone: installing, compiling the kernels, running the demo.

Usage::

    python benchmarks/bench_first_run.py [--out benchmarks/results/first_run.md]

Clones the repository's ``HEAD`` into a temporary directory (uncommitted changes are not in
the clone), then times, each in a new process tree: ``make .venv/.installed`` (the virtual
environment and ``pip install -e .``), ``make demo`` with the clone's empty kernel cache (cold:
numba compiles every kernel the demo needs), and ``make demo`` again (warm: the kernels cached).
Cold minus warm is what the first run pays for compilation. Wall times on a shared machine are
noisy: the page also gives the CPU seconds of each step and the load average. About 3 to 10
minutes.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from treebound_lab.provenance import results_header

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _step(command: list[str], cwd: Path, env: dict) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system of the whole process tree) and the output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n"
                           f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "results" / "first_run.md")
    args = parser.parse_args(argv)
    header = results_header("The first `make demo` of a fresh clone",
                            "python benchmarks/bench_first_run.py")
    load_before = os.getloadavg()
    workdir = Path(tempfile.mkdtemp(prefix="treebound-first-run-"))
    try:
        clone = workdir / "treebound"
        subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)],
                       check=True)
        env = {k: v for k, v in os.environ.items()
               if k not in ("NUMBA_CACHE_DIR", "VIRTUAL_ENV", "PYTHONPATH")}
        cache = clone / ".numba_cache"
        assert not cache.exists(), "a fresh clone has no kernel cache"
        rows = []
        for label, command in (("install: `make .venv/.installed` (venv, pip install -e .)",
                                ["make", ".venv/.installed"]),
                               ("`make demo`, empty kernel cache (first run)", ["make", "demo"]),
                               ("`make demo` again, kernels cached", ["make", "demo"])):
            wall, cpu, output = _step(command, clone, env)
            rows.append((label, wall, cpu))
            print(f"{label}: {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
        compiled = len(list(cache.rglob("*.nbi"))) if cache.exists() else 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    load_after = os.getloadavg()
    (_, install_wall, install_cpu), (_, cold_wall, cold_cpu), (_, warm_wall, warm_cpu) = rows
    lines = header + [
        "",
        f"Load average (1, 5, 15 min) before the run: {', '.join(f'{v:.2f}' for v in load_before)}"
        f"; after: {', '.join(f'{v:.2f}' for v in load_after)} (2 cores shared with other "
        "jobs: wall times are noisy, CPU times less so).",
        "",
        "A fresh `git clone` of the commit above in a temporary directory, then each step in "
        "a new process tree; CPU = user + system seconds of the step's processes. The kernel "
        f"cache of the clone was empty before the first `make demo` and held {compiled} "
        "compiled kernel indexes after it.",
        "",
        "| step | wall (s) | CPU (s) |",
        "|---|---|---|",
        *[f"| {label} | {wall:.1f} | {cpu:.1f} |" for label, wall, cpu in rows],
        "",
        f"- First `make demo` of a fresh clone, install included: {install_wall + cold_wall:.0f} s"
        f" wall ({install_cpu + cold_cpu:.0f} s CPU).",
        f"- Compilation on the first run (first `make demo` minus the second): "
        f"{cold_wall - warm_wall:.0f} s wall, {cold_cpu - warm_cpu:.0f} s CPU.",
        "",
    ]
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
