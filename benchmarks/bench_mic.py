"""The MIC experiments of Brutzkus, Daniely & Malach (2020): Figures 4 and 5, and OPT's timing.

Writes ``benchmarks/results/mic.md`` with its figures and CSVs
(``treebound_lab.mic_report``): the three population sweeps of Figure 4 (one
``treebound bench mic --sweep S`` process each), the finite-sample experiment of Figure 5
(``treebound bench mic --finite-sample``) and the timing of ``optimal_errors``. A few minutes;
``--reference-timing`` adds the previous OPT state enumeration (minutes per two-valued
distribution).

Usage::

    python benchmarks/bench_mic.py [--jobs 2] [--t-max 100]
        [--work-dir /tmp/treebound-mic-sweeps] [--reference-timing]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from treebound_lab.mic_report import run_mic_report

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--t-max", type=int, default=100)
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/treebound-mic-sweeps"))
    parser.add_argument("--reference-timing", action="store_true",
                        help="also time the previous OPT state enumeration (minutes)")
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    run_mic_report(args.results_dir, jobs=args.jobs, t_max=args.t_max, work_dir=args.work_dir,
                   reference_timing=args.reference_timing,
                   echo=lambda text: print(text, flush=True))
    print(f"wrote {args.results_dir / 'mic.md'}")


if __name__ == "__main__":
    main()
