"""Every selection rule against its guarantee: the Pareto table and plot of mean test error
against mean certificate (issue 26).

Usage::

    nice -n 10 python benchmarks/bench_selection.py --data-dir /work/shared/datasets \
        [--splits 3] [--tuning-splits 2] [--report-only]

Writes ``benchmarks/results/selection.md``, ``selection.png`` and the rows ``selection.csv``
(``--report-only`` rewrites the page and the plot from that CSV). Tuning data (six large shared
datasets, subsampled) and report data (the 21 datasets of ``peers.md``) are kept apart:
:mod:`treebound_lab.selection_bench` says which is which and what runs where. About 25 minutes
of CPU with the default splits.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from treebound_lab.certify_bench import default_datasets
from treebound_lab.defaults_tuning import BOUND_TUNING
from treebound_lab.provenance import current_commit, results_header
from treebound_lab.selection_bench import peer_folds, peer_rows, read_rows, run_selection
from treebound_lab.selection_report import selection_plot, selection_report

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
TITLE = "Selection rules: test error against certificate"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=str(HERE.parent.parent / "shared" / "datasets"))
    parser.add_argument("--splits", type=int, default=3, help="splits of each report dataset")
    parser.add_argument("--tuning-splits", type=int, default=2,
                        help="splits of each tuning dataset")
    parser.add_argument("--datasets", nargs="*", default=None,
                        help="report datasets (default: the 21 of peers.md)")
    parser.add_argument("--tuning", nargs="*", default=None,
                        help="tuning datasets (default: the six of the defaults tuning)")
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
    tuning_names = list(args.tuning if args.tuning is not None else BOUND_TUNING)
    header = results_header(TITLE)
    started = time.perf_counter()
    folds = peer_folds(RESULTS / "peers.csv")
    if args.report_only:
        rows = read_rows(csv_path)
        seconds = float("nan")
    else:
        if csv_path.is_file() and not args.resume:
            csv_path.unlink()
        rows = run_selection(args.data_dir, report_names, tuning_names, args.splits,
                             args.tuning_splits, current_commit(), csv_path=csv_path,
                             check_folds=folds)
        seconds = time.perf_counter() - started
    peers, peers_commit = peer_rows(RESULTS / "peers.csv", report_names, args.splits)
    everything = rows + peers
    out.write_text(selection_report(everything, header, n_splits_report=args.splits,
                                    n_splits_tuning=args.tuning_splits,
                                    tuning_names=tuning_names, report_names=report_names,
                                    peers_commit=peers_commit, seconds=seconds,
                                    peers_folds=folds))
    selection_plot(everything, png_path)
    print(f"wrote {out}, {png_path} and {csv_path}")


if __name__ == "__main__":
    main()
