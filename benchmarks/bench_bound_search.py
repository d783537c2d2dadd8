"""Bound pruning: branch and bound (search="lazy") against every candidate (search="all").

On the 40-leaf trees of ``treebound bench pruning``, checks that both searches return the same
tree and times them against each other in one process
(``treebound_lab.bound_search_bench``; writes ``benchmarks/results/bound_search.md``).
About 8 minutes on 2 shared cores (25 splits per dataset).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_bound_search.py --data-dir /work/shared/datasets
"""

from __future__ import annotations

import argparse
from pathlib import Path

from treebound_lab.bound_search_bench import run_bound_search_benchmark

RESULTS = Path(__file__).resolve().parent / "results" / "bound_search.md"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--datasets", default=None,
                        help="comma-separated names (default: the pruning benchmark's set)")
    parser.add_argument("--splits", type=int, default=25)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    datasets = [d for d in args.datasets.split(",") if d] if args.datasets else None
    run_bound_search_benchmark(args.data_dir, args.out, datasets=datasets, n_splits=args.splits,
                               echo=lambda text: print(text, flush=True))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
