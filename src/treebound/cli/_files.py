"""Files the command line writes: checked before any work, written whole or not at all.

* :func:`check_output_path` — before fitting or drawing: an output path may not be empty, an
  input of the same command (``fit iris.csv --save iris.csv`` would replace the data with the
  model), a symbolic link (writing through a planted link reaches a file the user did not
  name), a directory, or in a directory that does not exist;
* :func:`write_atomically` — the bytes go to a new temporary file in the target directory,
  which then replaces the target in one rename (a failure leaves the old file);
* :func:`closed_pipe_exit` — ``treebound fit ... | head -1``: once the reader has gone, the
  command stops quietly with the exit status of a process killed by ``SIGPIPE``, as Unix
  tools do (the model was written before anything was printed).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

from treebound.tree._model_io import _current_umask as current_umask

__all__ = ["check_output_path", "closed_pipe_exit", "write_atomically"]

#: Exit status of a process killed by SIGPIPE (128 + 13), what a shell reports for ``head``'s
#: writers.
CLOSED_PIPE_STATUS = 141


class OutputPathError(ValueError):
    """An output path the command refuses to write."""


def check_output_path(path: str | None, option: str, inputs=()) -> Path | None:
    """``path`` as a Path after the checks of the module docstring (``None`` stays ``None``).

    ``inputs``: the paths the command reads (``-``, standard input, is skipped).
    """
    if path is None:
        return None
    if str(path).strip() == "":
        raise OutputPathError(f"{option} needs a file name, got an empty one")
    target = Path(path)
    if target.is_symlink():
        raise OutputPathError(f"{option} {str(path)!r} is a symbolic link; treebound does not "
                              "write through links: give the file itself")
    if target.is_dir():
        raise OutputPathError(f"{option} {str(path)!r} is a directory; give a file name")
    for source in inputs:
        if source is None or str(source) == "-":
            continue
        if _same_file(target, Path(source)):
            raise OutputPathError(f"{option} {str(path)!r} is also an input of this command; "
                                  "writing it would destroy the input: choose another file")
    parent = target.parent
    if not parent.is_dir():
        raise OutputPathError(f"{option} {str(path)!r}: the directory {str(parent)!r} does not "
                              "exist")
    return target


def _same_file(a: Path, b: Path) -> bool:
    with contextlib.suppress(OSError):
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    with contextlib.suppress(OSError):
        return a.resolve() == b.resolve()
    return False


def write_atomically(path: Path, write) -> None:
    """Call ``write(temporary_path)`` for a new file in ``path``'s directory, then rename it
    over ``path`` (a link planted at ``path`` meanwhile is replaced, not followed)."""
    directory = path.parent
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=directory)
    os.close(fd)
    try:
        write(tmp_name)
        # mkstemp creates the file readable by its owner only; an output is ordinary data
        os.chmod(tmp_name, 0o666 & ~current_umask())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise


def closed_pipe_exit() -> int:
    """Point standard output at ``/dev/null`` (so the interpreter's last flush cannot fail
    again, loudly) and return the status to exit with."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return CLOSED_PIPE_STATUS
