"""``treebound vcdim``: the theory part of the command line."""

from __future__ import annotations

from typing import Annotated

import typer


def _count(text: str, option: str) -> int:
    """A non-negative integer written as ``5000`` or ``1e6``."""
    try:
        value = int(text)
    except ValueError:
        pass
    else:
        if value < 0:
            raise ValueError(f"{option} must be a non-negative whole number, got {text!r}")
        return value
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{option} must be a whole number such as 5000 or 1e6, got "
                         f"{text!r}") from None
    if not value.is_integer() or value < 0:
        raise ValueError(f"{option} must be a non-negative whole number, got {text!r}")
    return int(value)


def register(app: typer.Typer) -> None:
    """Add the theory commands to the ``treebound`` command."""

    @app.command("vcdim")
    def vcdim(
        structure: Annotated[str, typer.Argument(help="Tree shape, e.g. '((L,L),L)' (L = leaf).")],
        features: Annotated[int, typer.Option("--features", "-l", help="Number of real-valued features.")],
        classes: Annotated[int, typer.Option("--classes", "-n", help="Number of classes.")] = 2,
        examples: Annotated[
            str | None, typer.Option("--examples", "-m",
                                     help="Sample size m for the growth bound (e.g. 5000 or 1e6).")
        ] = None,
        variant: Annotated[str, typer.Option(help="tight, loose or loose_paper.")] = "tight",
    ) -> None:
        """VC-dimension bounds and the log growth-function bound of a tree structure.

        Requests that would need more than TREEBOUND_MAX_MEMORY (default 1 GB) or
        TREEBOUND_MAX_SECONDS (default 10 s) are refused before any work; set those
        environment variables to raise the limits."""
        # commands load what they run when they run: --help and the theory commands stay light
        from rich.console import Console
        from rich.table import Table

        from treebound._format import format_bound
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
            if classes < 1:
                raise ValueError(f"--classes must be at least 1, got {classes}")
            shape = TreeStructure.parse(structure)
            cache = PartitioningCache()
            rows = [
                ("structure", repr(shape)[len("TreeStructure("):-1]),
                ("leaves / internal nodes / height",
                 f"{shape.n_leaves} / {shape.n_internal} / {shape.height}"),
                (f"stump VC dimension (ell={features})", str(stump_vcdim(features))),
                ("VC lower bound (Yildiz recursion, exact stump base)",
                 str(vcdim_lower_bound(shape, n_features=features))),
                ("VC upper bound (Leboeuf et al. Algorithm 2)",
                 str(vcdim_upper_bound(shape, n_features=features, cache=cache))),
            ]
            if examples is not None:
                examples = _count(examples, "--examples")
                value = log_growth_function_upper_bound(shape, n_examples=examples,
                                                        n_features=features, n_classes=classes,
                                                        variant=variant, cache=cache)
                rows.append((f"ln growth-function bound (m={examples}, n={classes}, {variant})",
                             format_bound(value, digits=10)))  # rounded up: still a bound
        except (ValueError, TypeError, OverflowError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=2) from None
        table = Table(title="treebound vcdim", show_header=False)
        table.add_column("quantity")
        table.add_column("value", justify="right")
        for name, value in rows:
            table.add_row(name, value)
        Console().print(table)
