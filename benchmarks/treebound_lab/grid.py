"""Running a grid of independent benchmark tasks: in process, with joblib, or on Dask.

Results come back as tasks finish (in any order) so the caller can append them to a CSV at
once, which makes long runs resumable, and advance a progress bar.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["append_rows", "read_rows", "run_grid"]


def run_grid(function: Callable, tasks: list, *, jobs: int = 1, scheduler: str | None = None,
             on_result: Callable | None = None, description: str = "tasks") -> list:
    """``[function(task) for task in tasks]`` in completion order, calling ``on_result`` on each.

    ``jobs > 1`` runs them in joblib worker processes; ``scheduler`` (a Dask scheduler address
    such as ``tcp://host:8786``) sends them to a Dask distributed cluster instead. A rich
    progress bar is shown when the output is a terminal.
    """
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    results = []
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TimeRemainingColumn(),
                        disable=not os.isatty(1) or not tasks)
    with progress:
        bar = progress.add_task(description, total=len(tasks))
        for result in _iterate(function, tasks, jobs, scheduler):
            results.append(result)
            if on_result is not None:
                on_result(result)
            progress.advance(bar)
    return results


def _iterate(function, tasks, jobs, scheduler) -> Iterable:
    if not tasks:
        return
    if scheduler:
        try:
            from dask.distributed import Client, as_completed
        except ImportError:
            raise ImportError("--scheduler needs dask.distributed: pip install "
                              "'treebound[dask]'") from None
        with Client(scheduler) as client:
            futures = client.map(function, tasks, pure=False)
            for future in as_completed(futures):
                yield future.result()
        return
    if jobs == 1:
        for task in tasks:
            yield function(task)
        return
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=jobs, return_as="generator_unordered")
    yield from parallel(delayed(function)(task) for task in tasks)


def read_rows(path) -> list[dict]:
    """Rows of a CSV written by :func:`append_rows` (empty if the file does not exist)."""
    path = Path(path)
    if not path.is_file():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def append_rows(path, rows: list[dict], fields: list[str]) -> None:
    """Append ``rows`` to a CSV (writing the header first if the file is new) and flush."""
    path = Path(path)
    new = not path.is_file() or path.stat().st_size == 0
    if not new:
        with path.open(newline="") as handle:
            header = next(csv.reader(handle), [])
        if header != list(fields):  # a CSV of an older version: rewrite it with the new columns
            old = read_rows(path)
            path.unlink()
            append_rows(path, old, fields)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, extrasaction="ignore")
        if new:
            writer.writeheader()
        writer.writerows(rows)
        handle.flush()
        os.fsync(handle.fileno())
