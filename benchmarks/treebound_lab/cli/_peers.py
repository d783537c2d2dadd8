"""``treebound bench peers``: treebound against scikit-learn, STreeD and GOSDT."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from treebound_lab.certify_bench import default_datasets
from treebound_lab.cli._common import fail as _fail
from treebound_lab.cli._common import option_values
from treebound_lab.datasets import load_dataset
from treebound_lab.grid import append_rows, read_rows, run_grid
from treebound_lab.peers_bench import MODELS, RUN_FIELDS, PeersTask, missing_extras, run_split
from treebound_lab.peers_report import plot_peers, write_peers_markdown
from treebound_lab.provenance import current_commit, results_header


def register(bench_app: typer.Typer) -> None:
    bench_app.command("peers")(bench_peers)


def bench_peers(
    data_dir: Annotated[str, typer.Option(help="Directory of the PMLB NAME.tsv.gz files.")],
    datasets: Annotated[list[str] | None, typer.Option(
        help="Dataset name, repeated for several (default: the 21 of bench certify).")] = None,
    splits: Annotated[int, typer.Option(min=1, help="Random 75/25 splits per dataset.")] = 10,
    models: Annotated[list[str] | None, typer.Option(
        help="Model, repeated for several (default: bound, ccp_cv, ddt, sklearn_cart_cv, "
             "streed_cv, gosdt_cv).")] = None,
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

    names = option_values(datasets, "--datasets")
    chosen = tuple(option_values(models, "--models") or MODELS)
    command = shlex.join(["treebound", *sys.argv[1:]])
    try:
        run_benchmark(data_dir, datasets=names, n_splits=splits, models=chosen, n_folds=folds,
                      streed_time_limit=streed_time_limit, gosdt_time_limit=gosdt_time_limit,
                      jobs=jobs, resume=resume, report_only=report_only, out_md=out,
                      out_csv=csv, plot=plot, command=command, echo=typer.echo)
    except (ValueError, ImportError) as exc:
        _fail(str(exc))
    typer.echo(f"wrote {out}" + (f" and {plot}" if plot else ""))


def run_benchmark(data_dir, *, datasets=None, n_splits=10, models=MODELS, n_folds=10,
                  streed_time_limit=2.0, gosdt_time_limit=2, jobs=1, resume=False,
                  report_only=False, out_md="benchmarks/results/peers.md", out_csv=None,
                  plot=None, command=None, echo=print):
    """Run the grid (resumable through ``out_csv``), write the Markdown page and the plot
    (``report_only``: only rewrite them from the runs already in the CSV)."""
    # the provenance of the code that runs, taken before the (long) run
    header = results_header("Against the alternatives: optimal sparse trees and scikit-learn, "
                            "each with its certificate", command)
    unknown = sorted(set(models) - set(MODELS))
    if unknown:
        raise ValueError(f"unknown models {unknown}: expected some of {MODELS}")
    missing = missing_extras(models)
    if missing:
        raise ImportError(f"models {missing} need the bench extra: pip install "
                          "'treebound[bench]'")
    out_csv = Path(out_csv) if out_csv else Path(out_md).with_suffix(".csv")
    names = list(datasets) if datasets else default_datasets(data_dir)
    if not names:
        raise ValueError(f"no dataset to run in {data_dir}")
    previous = read_rows(out_csv) if resume or report_only else []
    if not (resume or report_only) and out_csv.exists():
        out_csv.unlink()
    done = {(r["dataset"], int(r["split"])) for r in previous}
    loaded = {name: load_dataset(data_dir, name) for name in names}
    # split by split over the datasets, so that an interrupted run covers every dataset
    commit = current_commit()
    tasks = [PeersTask(name, i, loaded[name].X, loaded[name].y, tuple(models), n_folds,
                       streed_time_limit, gosdt_time_limit, commit)
             for i in range(n_splits) for name in names
             if (name, i) not in done and not report_only]
    echo(f"{len(tasks)} splits to run ({len(done)} already in {out_csv})")
    run_grid(run_split, tasks, jobs=jobs,
             on_result=lambda rows: append_rows(out_csv, rows, RUN_FIELDS),
             description="peers bench")
    rows = [r for r in read_rows(out_csv) if r["dataset"] in names and int(r["split"]) < n_splits
            and r["model"] in models]
    settings = {"n_folds": n_folds, "streed_time_limit": streed_time_limit,
                "gosdt_time_limit": gosdt_time_limit, "n_splits": n_splits,
                "splits_done": {name: len({int(r["split"]) for r in rows if r["dataset"] == name})
                                for name in names}}
    if report_only:
        # the page states the folds the stored rows were made with (ccp_cv fits folds + 1)
        fits = {int(r["n_fits"]) for r in rows if r["model"] == "ccp_cv"}
        if len(fits) == 1:
            settings["n_folds"] = fits.pop() - 1
        made = sorted({r.get("commit") or "" for r in rows} - {""})
        header = [*header[:-1], "This page was rewritten (`--report-only`) from the runs in "
                  f"`{out_csv}`, made by this command without `--report-only` "
                  + (f"at commit {', '.join(f'`{c}`' for c in made)}." if made else
                     "(the CSV predates its commit column; see the git history of the CSV)."),
                  ""]
    write_peers_markdown(rows, out_md, names=names, models=models, settings=settings,
                         header=header)
    if plot:
        plot_peers(rows, plot, models=models)
    return rows
