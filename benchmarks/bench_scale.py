"""Memory and time of a histogram-mode fit on 1 000 000 rows x 50 numeric features, and of a
sparse fit (100 000 x 10 000 at 0.1 % density) against scikit-learn.

Usage::

    python benchmarks/bench_scale.py [--rows 1000000] [--features 50] [--no-sparse]
        [--out results/scale.md]

Each configuration runs in a fresh subprocess and reports its peak resident memory above the
input (``treebound_lab.scale_bench``). Targets: the fit needs at most 2 GB above the input
(issue 7); on the sparse matrix treebound takes less time and memory than scikit-learn's
``DecisionTreeClassifier`` (issue 24).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from treebound_lab.scale_bench import SPARSE_SHAPE, run_scale_benchmark


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--no-sparse", action="store_true",
                        help="skip the sparse rows (treebound and scikit-learn)")
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).parent / "results" / "scale.md")
    args = parser.parse_args(argv)
    run_scale_benchmark(args.out, rows=args.rows, features=args.features,
                        sparse_shape=None if args.no_sparse else SPARSE_SHAPE)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
