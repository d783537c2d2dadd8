"""``treebound bench certify``: certificates of fitted trees against their test error."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from treebound_lab.certify_bench import MODELS, RUN_FIELDS, CertifyTask, default_datasets, run_split
from treebound_lab.certify_report import plot_certificates, write_certify_markdown
from treebound_lab.cli._common import fail, option_values
from treebound_lab.datasets import load_dataset
from treebound_lab.grid import append_rows, read_rows, run_grid
from treebound_lab.provenance import current_commit, results_header


def register(bench_app: typer.Typer) -> None:
    bench_app.command("certify")(bench_certify)


def bench_certify(
    data_dir: Annotated[str, typer.Option(help="Directory of the PMLB NAME.tsv.gz files.")],
    datasets: Annotated[list[str] | None, typer.Option(
        help="Dataset name, repeated for several (default: the 21 of bench pruning).")] = None,
    splits: Annotated[int, typer.Option(min=1, help="Random 75/25 splits per dataset.")] = 25,
    models: Annotated[list[str] | None, typer.Option(
        help="Model, repeated for several (default: bound, ccp_cv, sklearn_cart_cv, bound_hti, "
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

    names = option_values(datasets, "--datasets")
    chosen = tuple(option_values(models, "--models") or MODELS)
    command = shlex.join(["treebound", *sys.argv[1:]])
    try:
        run_benchmark(data_dir, datasets=names, n_splits=splits, models=chosen, jobs=jobs,
                      resume=resume, report_only=report_only, out_md=out, out_csv=csv,
                      plot=plot, command=command,
                      echo=typer.echo)
    except (ValueError, ImportError) as exc:
        fail(str(exc))
    typer.echo(f"wrote {out}" + (f" and {plot}" if plot else ""))


def run_benchmark(data_dir, *, datasets=None, n_splits=25, models=MODELS, jobs=1, resume=False,
                  report_only=False, out_md="benchmarks/results/certify.md", out_csv=None,
                  plot=None, command=None, echo=print):
    """Run the grid (resumable through ``out_csv``), write the Markdown page and the plot
    (``report_only``: run nothing, rewrite them from the CSV)."""
    # the provenance of the code that runs, taken before the (long) run
    header = results_header("Certificates of fitted trees against their test error", command)

    out_csv = Path(out_csv) if out_csv else Path(out_md).with_suffix(".csv")
    names = list(datasets) if datasets else default_datasets(data_dir)
    if not names:
        raise ValueError(f"no dataset to run in {data_dir}")
    unknown = sorted(set(models) - set(MODELS))
    if unknown:
        raise ValueError(f"unknown models {unknown}: expected some of {MODELS}")
    if not report_only:
        # the data first: a wrong --data-dir must fail before the results of an earlier run go
        loaded = {name: load_dataset(data_dir, name) for name in names}
        previous = read_rows(out_csv) if resume else []
        if not resume and out_csv.exists():
            out_csv.unlink()
        done = {(r["dataset"], int(r["split"])) for r in previous}
        commit = current_commit()
        tasks = []
        for name in names:
            data = loaded[name]
            tasks.extend(CertifyTask(name, i, data.X, data.y, tuple(models), commit=commit)
                         for i in range(n_splits) if (name, i) not in done)
        echo(f"{len(tasks)} splits to run ({len(done)} already in {out_csv})")
        run_grid(run_split, tasks, jobs=jobs,
                 on_result=lambda rows: append_rows(out_csv, rows, RUN_FIELDS),
                 description="certify bench")
    elif not out_csv.is_file():
        raise ValueError(f"--report-only needs the runs of an earlier run in {out_csv}")
    rows = [r for r in read_rows(out_csv) if r["dataset"] in names and int(r["split"]) < n_splits
            and r["model"] in models]
    write_certify_markdown(rows, out_md, names=names, models=models, n_splits=n_splits,
                           header=header)
    if plot:
        plot_certificates(rows, plot, models=models)
    return rows
