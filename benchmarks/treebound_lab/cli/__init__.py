"""``treebound bench``: the lab's commands (the papers' experiments and the benchmarks).

The installed ``treebound`` command finds this package in a checkout and mounts :data:`app` as
its ``bench`` group (``treebound.cli._bench``). Each module here adds its commands with a
``register(app)`` function; heavy imports stay inside the command bodies, so ``treebound --help``
stays fast.
"""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="bench",
    help="Reproduce the papers' experiments and benchmarks (from a treebound checkout).",
    no_args_is_help=True,
)

#: Modules that contribute commands (each defines ``register(app)``).
COMMAND_MODULES: tuple[str, ...] = (
    "treebound_lab.cli._certify",
    "treebound_lab.cli._dyadic",
    "treebound_lab.cli._figure3",
    "treebound_lab.cli._mic",
    "treebound_lab.cli._peers",
    "treebound_lab.cli._pruning",
)

for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(app)
