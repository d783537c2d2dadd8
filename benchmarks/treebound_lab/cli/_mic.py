"""``treebound bench mic``: the MIC experiments of Brutzkus, Daniely & Malach (2020), Figures 4-5."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from treebound_lab.cli._common import option_values


class Sweep(StrEnum):
    """Names of ``treebound_lab.mic.SWEEPS`` (spelled out so ``--help`` stays light)."""

    uniform = "uniform"
    p03_07 = "p0.3-0.7"
    p04_06 = "p0.4-0.6"


def register(bench_app: typer.Typer) -> None:
    """Add ``bench mic`` to the ``treebound`` command."""

    @bench_app.command("mic")
    def bench_mic(
        sweep: Annotated[
            Sweep | None,
            typer.Option(
                help="DNF family and distribution: uniform (<= 8 terms of <= 8 literals) or a "
                "two-valued product distribution (<= 5 terms of <= 5 literals). Default: uniform."
            ),
        ] = None,
        finite_sample: Annotated[
            bool,
            typer.Option(
                "--finite-sample",
                help="Run the finite-sample experiment (Figure 5) instead of a population sweep.",
            ),
        ] = False,
        t_max: Annotated[
            int | None,
            typer.Option(
                min=1,
                help="Iterations t = 1..t_max: reports m(t_max) of a sweep (default 100), or the "
                "split budget of the finite-sample trees (default 20).",
            ),
        ] = None,
        repetitions: Annotated[
            int | None,
            typer.Option(min=1, help="Finite sample: draws per training-set size (default 10)."),
        ] = None,
        sizes: Annotated[
            list[str] | None,
            typer.Option(
                help="Finite sample: a training-set size, repeated for several (default the "
                "paper's 50, 100, 1000, 2000, 3000, 4000, 10000, 20000, 50000)."
            ),
        ] = None,
        test_size: Annotated[
            int | None,
            typer.Option(min=1, help="Finite sample: test-set size (default 10000)."),
        ] = None,
        term_sizes: Annotated[
            list[str] | None,
            typer.Option(
                help="Finite sample: a term size of the target DNF, repeated for each term "
                "(default the paper's 3, 3, 4, 5, 3, 4, 3, 5, 4, 4)."
            ),
        ] = None,
        seed: Annotated[int, typer.Option(min=0, help="Finite sample: random seed.")] = 0,
        jobs: Annotated[int, typer.Option(help="Threads (-1: all cores).")] = 1,
        out: Annotated[Path, typer.Option(help="Output directory.")] = Path("mic-results"),
    ) -> None:
        """MIC of TopDown vs BestFirst: population sweeps (Figure 4) or finite samples (Figure 5).

        A sweep writes mic_<sweep>.csv (per DNF: terms, OPT, m(t_max) and the largest gap of each algorithm under both tie-break rules) and mic_<sweep>.png (the Figure 4 panel).

        --finite-sample fits treebound's DecisionTreeClassifier (entropy, growth top_down vs best_first, at most t_max splits, min_samples_split=20) on samples of a read-once DNF (default the paper's 10 terms on n = 38 variables) under the uniform and the (0.3, 0.7), (0.4, 0.6) product distributions, and writes mic_finite_sample.csv (every fit), mic_finite_sample_summary.csv (mean and std), mic_finite_sample_population.csv (exact TopDown, BestFirst and OPT errors at t_max) and mic_figure5.png.
        """
        if finite_sample:
            if sweep is not None:
                raise typer.BadParameter(
                    "--sweep chooses a population sweep; it cannot be combined with "
                    "--finite-sample",
                    param_hint="--sweep",
                )
            _finite_sample(
                t_max=20 if t_max is None else t_max,
                repetitions=10 if repetitions is None else repetitions,
                sizes=sizes,
                term_sizes=term_sizes,
                test_size=10000 if test_size is None else test_size,
                seed=seed,
                jobs=jobs,
                out=out,
            )
            return
        for name, value in (
            ("--repetitions", repetitions),
            ("--sizes", sizes),
            ("--test-size", test_size),
            ("--term-sizes", term_sizes),
        ):
            if value is not None:
                raise typer.BadParameter(
                    "only applies to the finite-sample experiment (add --finite-sample)",
                    param_hint=name,
                )
        _population_sweep(
            (sweep or Sweep.uniform).value, 100 if t_max is None else t_max, jobs, out
        )


def _population_sweep(sweep: str, t_max: int, jobs: int, out: Path) -> None:
    """Run one population sweep, write its CSV and PNG, print the Figure 4 shares."""
    from rich.console import Console
    from rich.table import Table

    from treebound_lab.mic import run_population_sweep, write_sweep_outputs

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


def _parse_integers(values: list[str] | None, option: str) -> tuple[int, ...] | None:
    """``["50", "100"]`` -> ``(50, 100)``; None stays None."""
    values = option_values(values, option)
    if values is None:
        return None
    try:
        return tuple(int(value) for value in values)
    except ValueError:
        raise typer.BadParameter(
            f"expected integers, one per option (e.g. {option} 50 {option} 100), got "
            f"{' '.join(values)!r}",
            param_hint=option,
        ) from None


def _finite_sample(
    *, t_max: int, repetitions: int, sizes: list[str] | None, term_sizes: list[str] | None,
    test_size: int,
    seed: int, jobs: int, out: Path,
) -> None:
    """Run the finite-sample experiment, write its CSVs and Figure 5, print the mean errors."""
    from rich.console import Console
    from rich.table import Table

    from treebound_lab.mic_finite_sample import (
        PAPER_TERM_SIZES,
        PAPER_TRAIN_SIZES,
        FiniteSampleExperiment,
        run_finite_sample,
        write_finite_sample_outputs,
    )

    train_sizes = _parse_integers(sizes, "--sizes")
    terms = _parse_integers(term_sizes, "--term-sizes")
    try:
        experiment = FiniteSampleExperiment(
            term_sizes=PAPER_TERM_SIZES if terms is None else terms,
            train_sizes=PAPER_TRAIN_SIZES if train_sizes is None else train_sizes,
            test_size=test_size,
            repetitions=repetitions,
            max_splits=t_max,
            seed=seed,
        )
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    console = Console()
    result = run_finite_sample(experiment, jobs=jobs, progress=True)
    paths = write_finite_sample_outputs(result, out)
    summary = result.summary()
    for name, part in summary.groupby("distribution", sort=False):
        table = Table(title=f"test error, {name} (mean ± std over {repetitions} draws)")
        table.add_column("train size", justify="right")
        for algorithm in ("TopDown", "BestFirst"):
            table.add_column(algorithm, justify="right")
        for size, rows in part.groupby("train_size", sort=False):
            cells = {
                row.algorithm: f"{row.test_error_mean:.4f} ± {row.test_error_std:.4f}"
                for row in rows.itertuples()
            }
            table.add_row(f"{size:,}", cells["TopDown"], cells["BestFirst"])
        reference = result.reference[result.reference["distribution"] == name]
        table.caption = f"population, t = {t_max}: " + ", ".join(
            f"{row.algorithm} {row.population_error:.4f}" for row in reference.itertuples()
        )
        console.print(table)
    console.print(
        f"{result.seconds['total']:.1f} s; wrote {', '.join(str(p) for p in paths.values())}"
    )
