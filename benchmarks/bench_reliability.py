"""Every case of issue 16 ("Reliability 2") with what it ends in now.

Each case runs in a fresh process (``treebound_lab.reliability_bench``): its wall time,
its extra peak memory, and its outcome beside what the issue reported.

Run: ``.venv/bin/python benchmarks/bench_reliability.py`` (writes
``benchmarks/results/reliability.md``; about two minutes, one case at a time).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from treebound_lab.reliability_bench import run_reliability_benchmark

RESULTS = Path(__file__).resolve().parent / "results" / "reliability.md"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=str(RESULTS))
    args = parser.parse_args(argv)
    run_reliability_benchmark(args.output, echo=lambda text: print(text, flush=True))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
