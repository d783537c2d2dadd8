"""``treebound bench pruning`` and ``treebound bench srm``: the pruning papers' tables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from treebound_lab.cli._common import option_values


def _reference_dir(data_dir: str, reference: str | None) -> Path | None:
    path = Path(reference) if reference else Path(data_dir).resolve().parent / "reference"
    return path if path.is_dir() else None


def register(bench_app: typer.Typer) -> None:
    """Add ``bench pruning`` and ``bench srm`` to the ``treebound`` command."""

    @bench_app.command("pruning")
    def bench_pruning(
        data_dir: Annotated[str, typer.Option(help="Directory of the PMLB NAME.tsv.gz files.")],
        datasets: Annotated[list[str] | None, typer.Option(
            help="Dataset name, repeated for several (default: every dataset with <= 10000 "
            "rows).")] = None,
        splits: Annotated[int, typer.Option(min=1, help="Random 75/25 splits per dataset.")] = 25,
        max_leaves: Annotated[int, typer.Option(
            min=0, help="Leaf budget of the grown trees (0: grow to purity).")] = 40,
        protocols: Annotated[list[str] | None, typer.Option(
            help="Protocol, repeated for several (default all three): purest_children (the "
            "paper's code), top_down (growth orders of the shared tree), defaults (the "
            "no-argument bound-pruned classifier beside scikit-learn CART + CCP CV).")] = None,
        models: Annotated[list[str] | None, typer.Option(
            help="Model, repeated for several (default all: original, ccp_cv, ccp_cv_1se, "
            "ccp_cv_paper, mcart_cv, bound, bound_paper, srm, reduced_error; defaults, "
            "sklearn_ccp_cv in the defaults protocol).")] = None,
        jobs: Annotated[int, typer.Option(min=1, help="Parallel worker processes (joblib).")] = 1,
        scheduler: Annotated[str | None, typer.Option(
            help="Dask scheduler address (e.g. tcp://host:8786): run the grid on that cluster.")
        ] = None,
        resume: Annotated[bool, typer.Option(
            "--resume", help="Keep the runs already in the CSV and run only the missing ones.")
        ] = False,
        plot: Annotated[str | None, typer.Option(
            help="PNG: per dataset, test accuracy by method.")] = None,
        out: Annotated[str, typer.Option(help="Markdown results page.")
                       ] = "benchmarks/results/pruning.md",
        csv: Annotated[str | None, typer.Option(
            help="CSV of every run (default: the --out path with .csv).")] = None,
        reference: Annotated[str | None, typer.Option(
            help="Directory of the papers' reference tables (default: DATA_DIR/../reference).")
        ] = None,
    ) -> None:
        """Leboeuf et al. (2020) Table 1: original, CART-CV, M-CART, bound, SRM, reduced error."""
        import shlex
        import sys

        from treebound_lab.pruning_bench import MODELS, PROTOCOLS, run_benchmark

        ref = _reference_dir(data_dir, reference)
        paper_csv = ref / "leboeuf2020_table1_test_accuracy.csv" if ref else None
        try:
            run_benchmark(data_dir, datasets=option_values(datasets, "--datasets"),
                          n_splits=splits, max_leaves=max_leaves or None,
                          protocols=tuple(option_values(protocols, "--protocols")
                                          or PROTOCOLS),
                          models=tuple(option_values(models, "--models") or MODELS), jobs=jobs,
                          scheduler=scheduler, resume=resume, out_md=out, out_csv=csv,
                          plot=plot, paper_csv=paper_csv, echo=typer.echo,
                          command=shlex.join(["treebound", *sys.argv[1:]]))
        except (ValueError, ImportError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=2) from None
        typer.echo(f"wrote {out}" + (f" and {plot}" if plot else ""))

    @bench_app.command("srm")
    def bench_srm(
        data_dir: Annotated[str, typer.Option(help="Directory of the PMLB NAME.tsv.gz files.")],
        datasets: Annotated[list[str] | None, typer.Option(
            help="Dataset name, repeated for several (default: Yildiz's ten).")] = None,
        repetitions: Annotated[int, typer.Option(min=1, help="Repetitions of 10-fold CV.")] = 10,
        split_kinds: Annotated[list[str] | None, typer.Option(
            help="Categorical splits, repeated for both (default): multiway (as in the paper), "
            "binary.")] = None,
        jobs: Annotated[int, typer.Option(min=1, help="Parallel worker processes.")] = 1,
        scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address.")] = None,
        resume: Annotated[bool, typer.Option("--resume")] = False,
        out: Annotated[str, typer.Option(help="Markdown results page.")
                       ] = "benchmarks/results/srm.md",
        csv: Annotated[str | None, typer.Option(help="CSV of every fold.")] = None,
        reference: Annotated[str | None, typer.Option(
            help="Directory of the papers' reference tables.")] = None,
    ) -> None:
        """Yildiz (2015) Tables 1-2: NOprune, CVprune (reduced error), SRMprune."""
        import shlex
        import sys

        from treebound_lab.srm_bench import SPLITS, run_srm_benchmark

        try:
            run_srm_benchmark(data_dir, datasets=option_values(datasets, "--datasets"),
                              repetitions=repetitions,
                              split_kinds=tuple(option_values(split_kinds, "--split-kinds")
                                                or SPLITS), jobs=jobs,
                              scheduler=scheduler, resume=resume, out_md=out, out_csv=csv,
                              reference_dir=_reference_dir(data_dir, reference),
                              command=shlex.join(["treebound", *sys.argv[1:]]),
                              echo=typer.echo)
        except (ValueError, ImportError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=2) from None
        typer.echo(f"wrote {out}")
