"""Cold and warm start of treebound: import time and the first call of each main entry point.

Usage::

    python benchmarks/bench_startup.py [--before-commit REV | --before /path/to/checkout]
        [--repeats 5] [--entries fit,bound,...] [--out benchmarks/results/startup.md]

Every measurement runs in a fresh subprocess with ``PYTHONPATH`` pointing at the checkout's
``src``; with ``--before`` another checkout, or with ``--before-commit`` a revision of this
repository exported with ``git archive``, is measured in the same run on the same machine
(``treebound_lab.startup_bench``). About 5 minutes per checkout on 2 shared cores.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from treebound_lab.startup_bench import ENTRIES, run_startup_benchmark

HERE = Path(__file__).resolve().parent


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    before = parser.add_mutually_exclusive_group()
    before.add_argument("--before", type=Path,
                        help="Another checkout (e.g. a clone of main) measured in the same run.")
    before.add_argument("--before-commit",
                        help="A revision of this repository, exported with git archive and "
                             "measured in the same run.")
    parser.add_argument("--entries", default=",".join(ENTRIES),
                        help=f"Comma-separated entry points (default all: {','.join(ENTRIES)}).")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "startup.md")
    args = parser.parse_args(argv)
    try:
        run_startup_benchmark(args.out, entries=[e for e in args.entries.split(",") if e],
                              repeats=args.repeats, before=args.before,
                              before_commit=args.before_commit,
                              echo=lambda text: print(text, flush=True))
    except ValueError as exc:
        parser.error(str(exc))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
