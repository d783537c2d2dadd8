"""Dyadic decision trees (Scott & Nowak 2006) vs CART + ccp_cv, bound-pruned and greedy trees.

Runs the experiments behind ``treebound bench dyadic --speed`` and writes
``benchmarks/results/dyadic.md`` (``treebound_lab.dyadic_report``): accuracy, leaves and
fit time per dataset and model, the issue's speed targets, and the provenance header. About 40
minutes on 2 shared cores.

Usage::

    python benchmarks/bench_dyadic.py --data-dir /work/shared/datasets
"""

from __future__ import annotations

import argparse
from pathlib import Path

from treebound_lab.dyadic_report import run_dyadic_report

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=RESULTS / "dyadic.md")
    args = parser.parse_args(argv)
    run_dyadic_report(args.data_dir, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
