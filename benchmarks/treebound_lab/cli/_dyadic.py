"""``treebound bench dyadic``: dyadic decision trees (Scott & Nowak 2006) vs CART and greedy."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from treebound_lab.cli._common import option_values


def register(bench_app: typer.Typer) -> None:
    """Add ``bench dyadic`` to the ``treebound`` command."""

    @bench_app.command("dyadic")
    def bench_dyadic(
        data_dir: Annotated[
            Path, typer.Option(help="Directory of the shared NAME.tsv.gz datasets.")
        ],
        datasets: Annotated[
            list[str] | None,
            typer.Option(help="Dataset to run, repeated for several (default: all of "
                              "magic, haberman, titanic, iris, wdbc, banknote_like, "
                              "smooth_boundary, irrelevant)."),
        ] = None,
        models: Annotated[
            list[str] | None,
            typer.Option(help="Model to run, repeated for several (default: ddt_defaults, free_ddt, "
                              "free_ddt_coarse, cyclic_ddt, cart_ccp_cv, bound_defaults, bound, "
                              "bound_top_down, greedy)."),
        ] = None,
        speed: Annotated[
            bool, typer.Option(help="Also time the speed targets (free DDT d=10 L=4 on magic, "
                                    "cyclic DDT on sonar, DyadicTreeClassifier() at d=5, "
                                    "n=10,000 and on titanic).")
        ] = False,
        out: Annotated[
            Path | None, typer.Option(help="Write the tables as markdown to this file.")
        ] = None,
    ) -> None:
        """Accuracy, leaves and fit time of free and cyclic DDTs, CART + ccp_cv and greedy trees.

        Shared datasets: stratified 5-fold CV. Synthetic ones: 5 fresh training samples, each
        scored on 20,000 independent test points.
        """
        if not data_dir.is_dir():
            typer.echo(f"error: --data-dir {str(data_dir)!r} is not a directory", err=True)
            raise typer.Exit(code=2)
        _run(data_dir, option_values(datasets, "--datasets"), option_values(models, "--models"),
             speed, out)


def _run(data_dir: Path, datasets, models, speed: bool, out: Path | None) -> None:
    from rich.console import Console
    from rich.table import Table

    from treebound.cli._notes import announce_compilation
    from treebound_lab.dyadic import (
        DATASETS,
        DEFAULT_DATASETS,
        DEFAULT_MODELS,
        MODELS,
        markdown_tables,
        results_table,
        run_benchmark,
        speed_targets,
    )

    datasets = datasets or list(DEFAULT_DATASETS)
    models = models or list(DEFAULT_MODELS)
    for kind, names, known in (("dataset", datasets, DATASETS), ("model", models, MODELS)):
        unknown = [name for name in names if name not in known]
        if unknown:
            raise typer.BadParameter(f"unknown {kind}(s) {unknown}; choose from {list(known)}")
    header = None
    if out is not None:  # the provenance of the code that runs, taken before the run
        import shlex
        import sys

        from treebound_lab.dyadic_report import TITLE
        from treebound_lab.provenance import results_header

        header = results_header(TITLE, shlex.join(["treebound", *sys.argv[1:]]))
    console = Console()
    announce_compilation(("growth", "prediction", "dyadic"))
    rows = results_table(run_benchmark(data_dir, datasets, models, progress=True))
    sections = [("Accuracy, leaves and fit time", rows)]
    if speed:
        sections.append(("Speed targets (best of 3 fits on the full data)",
                         speed_targets(data_dir)))
    for title, section in sections:
        table = Table(title=title)
        for column in section[0]:
            table.add_column(column, justify="left" if column in ("dataset", "model", "fit")
                             else "right")
        for row in section:
            table.add_row(*row.values())
        console.print(table)
    if out is not None:
        text = "\n\n".join(f"## {title}\n\n{markdown_tables(section)}"
                           for title, section in sections)
        out.write_text("\n".join(header) + "\n" + text + "\n")
        console.print(f"wrote {out}")
