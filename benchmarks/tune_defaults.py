"""Tuning runs behind the library defaults of bound pruning and dyadic trees (issue 13).

Only *tuning* data: the shared datasets that ``treebound bench pruning`` does not use
(subsampled) and synthetic data with seeds the dyadic benchmark does not draw; the benchmarks'
datasets are where the defaults are reported, never here (``treebound_lab.
defaults_tuning`` and ``defaults_tuning_dyadic`` say which). Each part takes about 5 minutes.

Usage::

    python benchmarks/tune_defaults.py --data-dir /work/shared/datasets --part bound
    python benchmarks/tune_defaults.py --data-dir /work/shared/datasets --part dyadic
"""

from __future__ import annotations

import argparse
from pathlib import Path

from treebound_lab.defaults_tuning import run_tuning

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=str(REPO.parent / "shared" / "datasets"))
    parser.add_argument("--part", choices=("bound", "dyadic"), required=True)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    out = Path(args.out or RESULTS / f"defaults_tuning_{args.part}.md")
    run_tuning(args.data_dir, args.part, out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
