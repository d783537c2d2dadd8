"""``treebound vcdim`` and ``treebound bench figure3``: the theory part of the command line."""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add the theory commands to the main and the ``bench`` applications."""

    @app.command("vcdim")
    def vcdim(
        structure: Annotated[str, typer.Argument(help="Tree shape, e.g. '((L,L),L)' (L = leaf).")],
        features: Annotated[int, typer.Option("--features", "-l", help="Number of real-valued features.")],
        classes: Annotated[int, typer.Option("--classes", "-n", help="Number of classes.")] = 2,
        examples: Annotated[
            int | None, typer.Option("--examples", "-m", help="Sample size m for the growth bound.")
        ] = None,
        variant: Annotated[str, typer.Option(help="tight, loose or loose_paper.")] = "tight",
    ) -> None:
        """VC-dimension bounds and the log growth-function bound of a tree structure."""
        from rich.console import Console
        from rich.table import Table

        from treebound.cli._notes import announce_compilation
        from treebound.theory import (
            PartitioningCache,
            TreeStructure,
            log_growth_function_upper_bound,
            stump_vcdim,
            vcdim_lower_bound,
            vcdim_upper_bound,
        )

        announce_compilation(("theory",))
        try:
            shape = TreeStructure.parse(structure)
            cache = PartitioningCache()
            rows = [
                ("structure", str(shape)),
                ("leaves / internal nodes / height",
                 f"{shape.n_leaves} / {shape.n_internal} / {shape.height}"),
                (f"stump VC dimension (ell={features})", str(stump_vcdim(features))),
                ("VC lower bound (Yildiz recursion, exact stump base)",
                 str(vcdim_lower_bound(shape, features))),
                ("VC upper bound (Leboeuf et al. Algorithm 2)",
                 str(vcdim_upper_bound(shape, features, cache=cache))),
            ]
            if examples is not None:
                value = log_growth_function_upper_bound(shape, examples, features, classes,
                                                        variant=variant, cache=cache)
                rows.append((f"ln growth-function bound (m={examples}, n={classes}, {variant})",
                             f"{value:.6f}"))
        except (ValueError, TypeError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=2) from None
        table = Table(title="treebound vcdim", show_header=False)
        table.add_column("quantity")
        table.add_column("value", justify="right")
        for name, value in rows:
            table.add_row(name, value)
        Console().print(table)

    @bench_app.command("figure3")
    def figure3(
        output: Annotated[str, typer.Option(help="Markdown file to write.")] = "docs/vcdim.md",
        features: Annotated[int, typer.Option("--features", "-l")] = 10,
    ) -> None:
        """Leboeuf et al. (2020) Figure 3: VC bounds of the first 11 tree shapes (writes markdown)."""
        from treebound.experiments.vcdim_table import write_figure3

        path = write_figure3(output, n_features=features)
        typer.echo(f"wrote {path}")
