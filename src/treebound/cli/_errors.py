"""No traceback on any path: the last line of defence of the ``treebound`` command.

Commands catch the errors they expect and print ``error: <what is wrong>`` (exit code 2). An
exception that escapes a command anyway is printed here as one line, with its type, and exit
code 1; ``TREEBOUND_DEBUG=1`` shows the traceback instead (for bug reports). A closed pipe on
standard output ends the command quietly with status 141, like a Unix tool killed by
``SIGPIPE``. Warnings print as one line, ``warning: <message>``, without the source path and
line that Python adds (:func:`one_line_warning`).
"""

from __future__ import annotations

import os
import sys

import typer
from typer.core import TyperGroup

DEBUG_ENV = "TREEBOUND_DEBUG"


def _click_base(cls) -> type:
    """The ``ClickException`` class of the click that typer runs on (typer >= 0.20 vendors its
    own copy, older releases use the click package)."""
    for base in cls.__mro__:
        if base.__name__ == "ClickException":
            return base
    return cls


#: Exceptions that are the command line's own way of stopping: passed through unchanged.
_STOPS = (typer.Exit, typer.Abort, _click_base(typer.BadParameter))


def one_line(exc: BaseException) -> str:
    """``exc`` as a single line (its message's first line, or its type when it has none)."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """``warnings.showwarning`` of the command line: ``warning: <first line of the message>``
    on stderr, nothing about where in treebound's (or a library's) code it was raised."""
    stream = sys.stderr if file is None else file
    try:
        stream.write(f"warning: {one_line(message)}\n")
    except (OSError, ValueError):  # stderr closed: nothing to tell anyone
        pass


class OneLineErrorGroup(TyperGroup):
    """A command group whose subcommands never end in a traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except _STOPS:
            raise
        except BrokenPipeError:
            # the reader of our output has gone (``| head``): stop quietly, as Unix tools do
            # (_files, which loads the model format, only on this path)
            from treebound.cli._files import closed_pipe_exit

            raise typer.Exit(closed_pipe_exit()) from None
        except MemoryError:
            if os.environ.get(DEBUG_ENV):
                raise
            typer.echo("error: out of memory (the request needs more memory than the machine "
                       "has; see TREEBOUND_MAX_MEMORY in the docs)", err=True)
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(130) from None
        except Exception as exc:
            if os.environ.get(DEBUG_ENV):
                raise
            typer.echo(f"error: {type(exc).__name__}: {one_line(exc)} (unexpected; set "
                       f"{DEBUG_ENV}=1 for the traceback)", err=True)
            raise typer.Exit(1) from None
