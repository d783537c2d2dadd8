"""``treebound bench certify``: certificates of fitted trees against their test error."""

from __future__ import annotations

from typing import Annotated

import typer

from treebound_lab.cli._common import fail


def register(bench_app: typer.Typer) -> None:
    bench_app.command("certify")(bench_certify)


def bench_certify(
    data_dir: Annotated[str, typer.Option(help="Directory of the PMLB NAME.tsv.gz files.")],
    datasets: Annotated[str | None, typer.Option(
        help="Comma-separated dataset names (default: the 21 of bench pruning).")] = None,
    splits: Annotated[int, typer.Option(min=1, help="Random 75/25 splits per dataset.")] = 25,
    models: Annotated[str | None, typer.Option(
        help="Comma-separated models (default: bound, ccp_cv, sklearn_cart_cv, bound_hti, "
             "bound_compression).")] = None,
    jobs: Annotated[int, typer.Option(min=1, help="Parallel worker processes (joblib).")] = 1,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Keep the runs already in the CSV and run only the missing ones.")
    ] = False,
    report_only: Annotated[bool, typer.Option(
        "--report-only", help="Run nothing: rewrite the page and plot from the CSV's runs.")
    ] = False,
    out: Annotated[str, typer.Option(help="Markdown results page.")
                   ] = "benchmarks/results/certify.md",
    csv: Annotated[str | None, typer.Option(
        help="CSV of every run (default: the --out path with .csv).")] = None,
    plot: Annotated[str | None, typer.Option(
        help="PNG: per dataset, certificate against test error.")] = None,
) -> None:
    """Certificates of bound-pruned, CV-pruned and scikit-learn trees against test error."""
    import shlex
    import sys

    from treebound_lab.certify_bench import MODELS, run_benchmark

    names = [n.strip() for n in datasets.split(",") if n.strip()] if datasets else None
    chosen = tuple(m.strip() for m in models.split(",") if m.strip()) if models else MODELS
    command = shlex.join(["treebound", *sys.argv[1:]])
    try:
        run_benchmark(data_dir, datasets=names, n_splits=splits, models=chosen, jobs=jobs,
                      resume=resume, report_only=report_only, out_md=out, out_csv=csv,
                      plot=plot, command=command,
                      echo=typer.echo)
    except (ValueError, ImportError) as exc:
        fail(str(exc))
    typer.echo(f"wrote {out}" + (f" and {plot}" if plot else ""))
