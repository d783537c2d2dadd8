"""Memory and time of a histogram-mode fit on 1 000 000 rows x 50 numeric features.

Usage::

    python benchmarks/bench_scale.py [--rows 1000000] [--features 50] [--out results/scale.md]

Each configuration runs in a fresh subprocess and reports its peak resident memory above the
input (``treebound_lab.scale_bench``). Target (issue 7): the fit needs at most 2 GB above
the input.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from treebound_lab.scale_bench import run_scale_benchmark


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).parent / "results" / "scale.md")
    args = parser.parse_args(argv)
    run_scale_benchmark(args.out, rows=args.rows, features=args.features)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
