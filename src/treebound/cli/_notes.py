"""Short progress notes of the command line on stderr (the first run's kernel compilation).

A command calls :func:`announce_compilation` with the kernel groups it is about to use; when one
of them has no compiled code in the cache yet, one line says so, since the first run pauses for
numba's compiler. Notes go to stderr only when it is a terminal and ``treebound --quiet`` was not
given, so scripts and pipes see nothing.
"""

from __future__ import annotations

import importlib
import sys

#: Set by ``treebound --quiet`` (see ``treebound.cli.main``).
QUIET = False

#: Kernel group -> (kernel module, a compiled function whose cache entry marks the group as
#: compiled, seconds it takes to compile on the machine of benchmarks/results/startup.md).
KERNEL_GROUPS: dict[str, tuple[str, str, float]] = {
    "growth": ("grow", "_split_loop", 17.0),
    "prediction": ("apply", "apply_numeric", 1.0),
    "bound pruning": ("partitioning", "node_sums_direct", 8.0),
    "certificates": ("compression", "count_rows_by_value", 1.5),
    "theory": ("partitioning", "log_stirling2_table", 4.0),
    "dyadic": ("dyadic_free", "solve_free", 12.0),
}


def pending_compilation(groups) -> list[str]:
    """The groups among ``groups`` whose kernels are not in the on-disk cache yet."""
    # numba's cache settings only when a command asks
    from treebound._config import kernels_cached

    pending = []
    for group in groups:
        module, function, _ = KERNEL_GROUPS[group]
        kernels = importlib.import_module(f"treebound._kernels.{module}")
        if hasattr(kernels, function) and not kernels_cached(module, function):
            pending.append(group)
    return pending


def compile_note(groups, background=()) -> str | None:
    """The line announcing a first compilation of ``groups``, or None when all are cached.

    ``background``: groups compiled meanwhile by another process (their time overlaps).
    """
    pending = pending_compilation(groups)
    if not pending:
        return None
    here = sum(KERNEL_GROUPS[g][2] for g in pending if g not in background)
    elsewhere = sum(KERNEL_GROUPS[g][2] for g in pending if g in background)
    seconds = max(here, elsewhere) if here else elsewhere
    return (f"treebound: compiling numba kernels ({', '.join(pending)}); first run only, "
            f"about {seconds:.0f} s...")


def announce_compilation(groups, stream=None, background=()) -> None:
    """Print :func:`compile_note` on stderr (or ``stream``) when it is a terminal and not quiet.

    The groups in ``background`` are compiled by a separate process (``treebound.cli._warmup``)
    while this one compiles the others, when both are still to compile.
    """
    background = tuple(g for g in background if g in groups)
    if background:
        pending = pending_compilation(groups)
        if any(g in pending for g in background) and any(g not in background for g in pending):
            # the warm-up runner only when a second process is worth starting
            from treebound.cli._warmup import start_background

            if start_background([g for g in background if g in pending]) is None:
                background = ()
        else:
            background = ()
    stream = sys.stderr if stream is None else stream
    if QUIET or not getattr(stream, "isatty", lambda: False)():
        return
    note = compile_note(groups, background)
    if note is not None:
        print(note, file=stream, flush=True)
