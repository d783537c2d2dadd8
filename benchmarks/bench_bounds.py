"""Speed of the growth-function bounds of treebound.theory (writes benchmarks/results/bounds.md).

Cold timings (a fresh PartitioningCache per repetition) of the tight, loose and loose_paper
bounds on scikit-learn, balanced and path tree shapes; the experiment is
``treebound_lab.bounds_bench``.

Run: ``.venv/bin/python benchmarks/bench_bounds.py [--quick]`` (about a minute; ``--quick``:
one repetition, no 1000-leaf trees).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from treebound_lab.bounds_bench import run_bounds_benchmark

RESULTS = Path(__file__).resolve().parent / "results" / "bounds.md"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repetition, skip the big trees")
    parser.add_argument("--output", default=str(RESULTS))
    args = parser.parse_args(argv)
    run_bounds_benchmark(args.output, quick=args.quick, echo=lambda *a: print(*a, flush=True))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
