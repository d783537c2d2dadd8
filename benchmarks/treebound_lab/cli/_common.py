"""What the lab's commands share: the one-line error."""

from __future__ import annotations

import typer


def fail(message: str) -> None:
    """One-line error on stderr and exit code 2, no traceback."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)
