"""One convention for the options that take several values: repeat the option
(``--categorical color --categorical size``), typer's native list.

The former spelling, one value with commas (``--categorical color,size``), is still split for
one release, with a warning on stderr; a value that names an existing column is kept whole.
"""

from __future__ import annotations

from collections.abc import Collection

import typer

__all__ = ["option_values"]


def option_values(values: list[str] | None, option: str, *,
                  keep: Collection = ()) -> list[str] | None:
    """The values of a repeatable option, in order (None when it was not given).

    Parameters
    ----------
    values : list of str or None
        What typer collected for the option.
    option : str
        Its name, for the warning (``"--categorical"``).
    keep : collection of str, optional
        Values taken whole even when they hold a comma (the columns of the data file).

    Returns
    -------
    list of str or None

    Examples
    --------
    >>> option_values(["a", "b"], "--drop")
    ['a', 'b']
    >>> option_values(["a,b"], "--drop", keep={"a,b"})
    ['a,b']
    """
    if not values:
        return None
    out: list[str] = []
    for value in values:
        if "," not in value or value in keep:
            out.append(value)
            continue
        parts = [part.strip() for part in value.split(",") if part.strip()]
        typer.echo(f"warning: {option} {value}: comma-separated values are deprecated and will "
                   f"be read as one value in the next release; repeat the option instead: "
                   + " ".join(f"{option} {part}" for part in parts), err=True)
        out.extend(parts)
    return out
