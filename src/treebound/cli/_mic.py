"""``treebound bench mic``: the MIC experiments of Brutzkus, Daniely & Malach (2020), Figure 4."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


class Sweep(StrEnum):
    """Names of ``treebound.experiments.mic.SWEEPS`` (spelled out so ``--help`` stays light)."""

    uniform = "uniform"
    p03_07 = "p0.3-0.7"
    p04_06 = "p0.4-0.6"


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add ``bench mic`` to the ``treebound`` command."""

    @bench_app.command("mic")
    def bench_mic(
        sweep: Annotated[
            Sweep,
            typer.Option(
                help="DNF family and distribution: uniform (<= 8 terms of <= 8 literals) or a "
                "two-valued product distribution (<= 5 terms of <= 5 literals)."
            ),
        ] = Sweep.uniform,
        t_max: Annotated[
            int, typer.Option(min=1, help="Iterations t = 1..t_max; reports m(t_max).")
        ] = 100,
        jobs: Annotated[int, typer.Option(help="Threads for the greedy runs (-1: all cores).")] = 1,
        out: Annotated[Path, typer.Option(help="Output directory.")] = Path("mic-results"),
    ) -> None:
        """Population-setting MIC of TopDown vs BestFirst over every read-once DNF of a family.

        Writes mic_<sweep>.csv (per DNF: terms, OPT, m(t_max) and the largest gap of each algorithm under both tie-break rules) and mic_<sweep>.png (the Figure 4 panel).
        """
        _population_sweep(sweep.value, t_max, jobs, out)


def _population_sweep(sweep: str, t_max: int, jobs: int, out: Path) -> None:
    """Run one population sweep, write its CSV and PNG, print the Figure 4 shares."""
    from rich.console import Console
    from rich.table import Table

    from treebound.experiments.mic import run_population_sweep, write_sweep_outputs

    console = Console()
    result = run_population_sweep(sweep, t_max, jobs=jobs, progress=True)
    paths = write_sweep_outputs(result, out)
    table = Table(title=f"MIC m({t_max}) over {len(result.states):,} DNFs ({sweep})")
    for column in ("algorithm", "ties to", "m < 0.01", "m > 0.05", "mean m", "max m"):
        table.add_column(column, justify="left" if column in ("algorithm", "ties to") else "right")
    for (policy, tie_break), share in result.shares().items():
        table.add_row(
            policy,
            tie_break.replace("_", " "),
            f"{share['below_0.01']:.1%}",
            f"{share['above_0.05']:.1%}",
            f"{share['mean']:.4f}",
            f"{share['max']:.4f}",
        )
    console.print(table)
    console.print(f"{result.seconds['total']:.1f} s; wrote {paths['csv']} and {paths['png']}")
