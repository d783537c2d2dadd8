"""Entry point of the ``treebound`` command.

Each area of the library keeps its commands in its own module under ``treebound.cli`` with a
``register(app)`` function; this file only assembles them, so areas never edit each other's
command code. ``treebound bench`` mounts the lab of a checkout (``treebound.cli._bench``). Modules import heavy dependencies inside the command bodies to keep
``treebound --help`` fast, and call ``treebound.cli._notes.announce_compilation`` before work
that needs compiled kernels (one line on a first run, nothing once they are cached).
"""

from __future__ import annotations

import importlib
import warnings

import typer

from treebound.cli._errors import OneLineErrorGroup, one_line_warning

app = typer.Typer(
    cls=OneLineErrorGroup,
    name="treebound",
    help="Decision trees whose size is chosen by learning theory instead of cross-validation.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _options(
    quiet: bool = typer.Option(
        False, "--quiet", "-q",
        help="No progress notes on stderr (such as the first run's kernel compilation)."),
) -> None:
    """Decision trees whose size is chosen by learning theory instead of cross-validation."""
    # the notes module reads the kernel cache, loaded on use
    from treebound.cli import _notes

    _notes.QUIET = quiet
    warnings.showwarning = one_line_warning


#: Modules that contribute commands (each defines ``register(app)``).
COMMAND_MODULES: tuple[str, ...] = (
    "treebound.cli._bench",
    "treebound.cli._certify",
    "treebound.cli._core",
    "treebound.cli._theory",
)

for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(app)
