"""Speed of ``treebound.certify`` (writes benchmarks/results/certify_speed.md).

Warm timings of every certificate method on trees grown on synthetic data, and the share of
``fit`` its certificate takes (``treebound_lab.certify_speed_bench``). Targets
(issue 11): a 40-leaf tree on 6,000 rows with 6 classes in at most 0.1 s; a 2,000-leaf tree at
m = 30,000 in at most 2 s.

Run: ``.venv/bin/python benchmarks/bench_certify_speed.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from treebound_lab.certify_speed_bench import run_certify_speed_benchmark

RESULTS = Path(__file__).resolve().parent / "results" / "certify_speed.md"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    run_certify_speed_benchmark(args.out, repeats=args.repeats,
                                echo=lambda text: print(text, flush=True))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
