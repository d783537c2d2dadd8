"""``treebound bench figure3``: Leboeuf et al. (2020) Figure 3, the page ``docs/vcdim.md``."""

from __future__ import annotations

from typing import Annotated

import typer

from treebound_lab.cli._common import fail


def register(bench_app: typer.Typer) -> None:
    bench_app.command("figure3")(figure3)


def figure3(
    output: Annotated[str, typer.Option(help="Markdown file to write.")] = "docs/vcdim.md",
    features: Annotated[int, typer.Option("--features", "-l")] = 10,
) -> None:
    """Leboeuf et al. (2020) Figure 3: VC bounds of the first 11 tree shapes (writes markdown)."""
    import shlex
    import sys

    from treebound_lab.vcdim_table import write_figure3

    if features < 1:
        fail(f"--features must be at least 1, got {features}")
    try:
        path = write_figure3(output, n_features=features,
                             command=shlex.join(["treebound", *sys.argv[1:]]))
    except OSError as exc:
        fail(f"cannot write {output!r}: {exc}")
    typer.echo(f"wrote {path}")
