"""Every selection rule against its guarantee: the Pareto table and plot of mean test error
against mean certificate (issue 26).

Usage::

    nice -n 10 python benchmarks/bench_selection.py --data-dir /work/shared/datasets \
        [--splits 5] [--tuning-splits 5] [--groups tuning report] [--jobs 2] [--resume]
        [--redo MODEL ...] [--report-only]

Writes ``benchmarks/results/selection.md``, ``selection.png`` and the rows ``selection.csv``
(``--report-only`` rewrites the page and the plot from that CSV). Tuning data (the eight large
shared datasets the report data does not use, subsampled at four sizes taken from the report
datasets' row counts) and report data (the 21 datasets of ``peers.md``) are kept apart:
:mod:`treebound_lab.selection_bench` says which is which and what runs where. ``--groups
tuning`` then, once the defaults are chosen from its page, ``--groups report --resume`` runs
them in that order. About 20 minutes of CPU for the tuning data and 3 minutes per report split.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from treebound_lab.certify_bench import default_datasets
from treebound_lab.provenance import current_commit, results_header
from treebound_lab.selection_bench import (
    peer_folds,
    peer_rows,
    read_rows,
    run_selection,
    tuning_datasets,
    tuning_sizes,
)
from treebound_lab.selection_report import selection_plot, selection_report

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
TITLE = "Selection rules: test error against certificate"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=str(HERE.parent.parent / "shared" / "datasets"))
    parser.add_argument("--splits", type=int, default=5, help="splits of each report dataset")
    parser.add_argument("--tuning-splits", type=int, default=5,
                        help="splits of each tuning dataset and size")
    parser.add_argument("--datasets", nargs="*", default=None,
                        help="report datasets (default: the 21 of peers.md)")
    parser.add_argument("--tuning", nargs="*", default=None,
                        help="tuning datasets (default: every shared dataset the report "
                             "data does not use)")
    parser.add_argument("--groups", nargs="+", choices=("tuning", "report"),
                        default=["tuning", "report"], help="the groups to run")
    parser.add_argument("--jobs", type=int, default=1, help="processes (one split each)")
    parser.add_argument("--skip", nargs="*", default=(),
                        help="models to leave for a later --resume run")
    parser.add_argument("--redo", nargs="*", default=(),
                        help="models whose rows of the groups run are made again (a changed "
                             "library default), the others kept (with --resume)")
    parser.add_argument("--no-peer-check", action="store_true",
                        help="do not refit scikit-learn's tree with the folds of peers.csv")
    parser.add_argument("--out", default=str(RESULTS / "selection.md"))
    parser.add_argument("--resume", action="store_true",
                        help="keep the splits already in the CSV, run the others")
    parser.add_argument("--report-only", action="store_true",
                        help="rewrite the page and the plot from the CSV")
    args = parser.parse_args(argv)
    out = Path(args.out)
    csv_path, png_path = out.with_suffix(".csv"), out.with_suffix(".png")
    report_names = args.datasets if args.datasets is not None else default_datasets(
        args.data_dir)
    tuning_names = list(args.tuning if args.tuning is not None else tuning_datasets(
        args.data_dir, report_names))
    sizes = tuning_sizes(args.data_dir, report_names)
    cells = [f"{name}@{size}" for name in tuning_names for size in sizes]
    header = results_header(TITLE)
    started = time.perf_counter()
    folds = peer_folds(RESULTS / "peers.csv")
    if args.report_only:
        rows = read_rows(csv_path)
        seconds = float("nan")
    else:
        if csv_path.is_file() and not args.resume:
            csv_path.unlink()
        rows = run_selection(args.data_dir,
                             report_names if "report" in args.groups else [],
                             cells if "tuning" in args.groups else [], args.splits,
                             args.tuning_splits, current_commit(), csv_path=csv_path,
                             check_folds=None if args.no_peer_check else folds,
                             jobs=args.jobs, skip=set(args.skip),
                             redo=set(args.redo))
        seconds = time.perf_counter() - started
    # a CSV may hold more splits than asked for (an earlier, longer run): the page is of these
    rows = [r for r in rows if r["split"] < (args.splits if r["group"] == "report"
                                             else args.tuning_splits)]
    peers, peers_commit = peer_rows(RESULTS / "peers.csv", report_names, args.splits)
    everything = rows + peers
    out.write_text(selection_report(everything, header, n_splits_report=args.splits,
                                    n_splits_tuning=args.tuning_splits,
                                    tuning_names=tuning_names, tuning_sizes=sizes,
                                    report_names=report_names,
                                    peers_commit=peers_commit, seconds=seconds,
                                    peers_folds=folds))
    selection_plot(everything, png_path)
    print(f"wrote {out}, {png_path} and {csv_path}")


if __name__ == "__main__":
    main()
