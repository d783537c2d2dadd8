"""What the lab's commands share: the one-line error."""

from __future__ import annotations

import typer


def fail(message: str) -> None:
    """One-line error on stderr and exit code 2, no traceback."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def option_values(values: list[str] | None, option: str) -> list[str] | None:
    """The values of a repeatable option (``--datasets iris --datasets wdbc``), None when it
    was not given.

    The command line's one convention for several values is the repeated option. The former
    spelling, one value with commas (``--datasets iris,wdbc``), is still split for one release,
    with a warning on stderr.
    """
    if not values:
        return None
    out: list[str] = []
    for value in values:
        if "," not in value:
            out.append(value.strip())
            continue
        parts = [part.strip() for part in value.split(",") if part.strip()]
        typer.echo(f"warning: {option} {value}: comma-separated values are deprecated and will "
                   "be read as one value in the next release; repeat the option instead: "
                   + " ".join(f"{option} {part}" for part in parts), err=True)
        out.extend(parts)
    return out
