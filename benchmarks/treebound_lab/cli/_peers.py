"""``treebound bench peers``: treebound against scikit-learn, STreeD and GOSDT."""

from __future__ import annotations

from typing import Annotated

import typer

from treebound_lab.cli._common import fail as _fail


def register(bench_app: typer.Typer) -> None:
    bench_app.command("peers")(bench_peers)


def bench_peers(
    data_dir: Annotated[str, typer.Option(help="Directory of the PMLB NAME.tsv.gz files.")],
    datasets: Annotated[str | None, typer.Option(
        help="Comma-separated dataset names (default: the 21 of bench certify).")] = None,
    splits: Annotated[int, typer.Option(min=1, help="Random 75/25 splits per dataset.")] = 10,
    models: Annotated[str | None, typer.Option(
        help="Comma-separated models (default: bound, ccp_cv, ddt, sklearn_cart_cv, streed_cv, "
             "gosdt_cv).")] = None,
    folds: Annotated[int, typer.Option(
        min=2, help="Folds of every cross-validation (the same budget for every model).")] = 10,
    streed_time_limit: Annotated[float, typer.Option(
        min=0.01, help="Seconds per STreeD fit (its time_limit).")] = 2.0,
    gosdt_time_limit: Annotated[int, typer.Option(
        min=1, help="Seconds per GOSDT fit (its time_limit).")] = 2,
    jobs: Annotated[int, typer.Option(min=1, help="Parallel worker processes (joblib).")] = 1,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Keep the runs already in the CSV and run only the missing ones.")
    ] = False,
    report_only: Annotated[bool, typer.Option(
        "--report-only", help="Run nothing: rewrite the page and plot from the CSV's runs.")
    ] = False,
    out: Annotated[str, typer.Option(help="Markdown results page.")
                   ] = "benchmarks/results/peers.md",
    csv: Annotated[str | None, typer.Option(
        help="CSV of every run (default: the --out path with .csv).")] = None,
    plot: Annotated[str | None, typer.Option(
        help="PNG: accuracy and guaranteed accuracy against leaves.")
    ] = "benchmarks/results/peers.png",
) -> None:
    """treebound's trees against scikit-learn's CART, STreeD and GOSDT, each with its model
    selection, its time and its certificate (STreeD and GOSDT need the bench extra)."""
    import shlex
    import sys

    from treebound_lab.peers_bench import MODELS, run_benchmark

    names = [n.strip() for n in datasets.split(",") if n.strip()] if datasets else None
    chosen = tuple(m.strip() for m in models.split(",") if m.strip()) if models else MODELS
    command = shlex.join(["treebound", *sys.argv[1:]])
    try:
        run_benchmark(data_dir, datasets=names, n_splits=splits, models=chosen, n_folds=folds,
                      streed_time_limit=streed_time_limit, gosdt_time_limit=gosdt_time_limit,
                      jobs=jobs, resume=resume, report_only=report_only, out_md=out,
                      out_csv=csv, plot=plot, command=command, echo=typer.echo)
    except (ValueError, ImportError) as exc:
        _fail(str(exc))
    typer.echo(f"wrote {out}" + (f" and {plot}" if plot else ""))
