"""The header every results file starts with: what produced it, where and when.

One helper for every benchmark: the commit (with ``+dirty`` when the work tree had uncommitted
changes outside ``benchmarks/results``), the exact command line, the machine
(:func:`machine_description`, with the load average) and the date. A benchmark takes the header
*before* its run (the provenance of the code that runs, the load it starts under) and writes it
with the results at the end.

The commit is the one of the checkout the lab sits in, read with ``git``; outside a git
checkout (a source archive) it is :data:`NO_CHECKOUT`, unless the environment variable
:data:`COMMIT_ENV` names it. When the imported treebound is not this checkout's ``src/treebound``
the header says where it came from, since the commit then does not describe it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from treebound_lab.machine import machine_description

__all__ = ["COMMIT_ENV", "NO_CHECKOUT", "command_line", "current_commit", "results_header"]

#: The checkout the lab sits in (``benchmarks/treebound_lab`` -> the repository root).
_ROOT = Path(__file__).resolve().parents[2]
_SRC = _ROOT / "src"
#: Names the commit where ``git`` cannot tell it (a source archive of a known commit).
COMMIT_ENV = "TREEBOUND_COMMIT"
NO_CHECKOUT = "unknown (not a git checkout)"


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=_ROOT, capture_output=True, text=True, check=True,
                          timeout=30).stdout.strip()


def current_commit() -> str:
    """``git`` commit of the lab's checkout (``+dirty`` if modified), the value of
    :data:`COMMIT_ENV` when set, else :data:`NO_CHECKOUT`.

    Changed results files do not make the tree dirty: regenerating them is what a benchmark
    does, and they do not change what is measured. A directory inside some other repository
    is not a checkout of treebound: its commit would be that repository's.
    """
    named = os.environ.get(COMMIT_ENV, "").strip()
    if named:
        return named
    try:
        if Path(_git("rev-parse", "--show-toplevel")).resolve() != _ROOT:
            return NO_CHECKOUT
        commit = _git("rev-parse", "--short=12", "HEAD")
        dirty = _git("status", "--porcelain", "--untracked-files=no", "--", ".",
                     ":(exclude)benchmarks/results")
    except (OSError, subprocess.SubprocessError):
        return NO_CHECKOUT
    return (commit or NO_CHECKOUT) + ("+dirty" if dirty else "")


def _foreign_treebound() -> str | None:
    """Where the imported treebound lives when it is not this checkout's ``src``."""
    import treebound

    package = Path(treebound.__file__).resolve().parent
    return None if package == _SRC / "treebound" else str(package)


def command_line(argv: list[str] | None = None) -> str:
    """The command that started this process, as one would type it again from the checkout.

    ``python benchmarks/bench_x.py ARGS`` for a script of the checkout, ``python -m module ARGS``
    for a module of the package run with ``-m``, ``treebound ARGS`` for the command line.
    """
    argv = list(sys.argv if argv is None else argv) or ["python"]
    program, args = argv[0], argv[1:]
    path = Path(program)
    if path.name == "treebound":
        return shlex.join(["treebound", *args])
    if path.suffix == ".py":
        resolved = path.resolve()
        if resolved.is_relative_to(_SRC):
            parts = list(resolved.relative_to(_SRC).with_suffix("").parts)
            if parts[-1] == "__main__":
                parts.pop()
            return shlex.join(["python", "-m", ".".join(parts), *args])
        if resolved.is_relative_to(_ROOT):
            program = resolved.relative_to(_ROOT).as_posix()
        return shlex.join(["python", program, *args])
    return shlex.join([program, *args])


def results_header(title: str, command: str | None = None, *, level: int = 1) -> list[str]:
    """Markdown lines: the title, then the commit, command, machine and date.

    Parameters
    ----------
    title : str
        The heading of the results file (or section).
    command : str, optional
        The command that regenerates the results (default: :func:`command_line`, this process's
        own command).
    level : int, default=1
        Heading level of the title (``2`` for a section of a page written in parts).

    Returns
    -------
    list of str
        The heading, a blank line, the provenance sentence and a blank line.

    Examples
    --------
    >>> lines = results_header("Speed of something", "python benchmarks/bench_x.py --quick")
    >>> lines[0]
    '# Speed of something'
    >>> "python benchmarks/bench_x.py --quick" in lines[2] and "Machine:" in lines[2]
    True
    """
    if command is None:
        command = command_line()
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    foreign = _foreign_treebound()
    origin = "" if foreign is None else f" (treebound imported from `{foreign}`)"
    return [f"{'#' * level} {title}", "",
            f"Generated by `{command}` at commit `{current_commit()}`{origin} on {when}. "
            f"Machine: {machine_description(load=True)}.", ""]
