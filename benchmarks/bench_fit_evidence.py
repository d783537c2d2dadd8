"""Fit time with the certificate's evidence pass, against scikit-learn, in the same process.

Usage::

    python benchmarks/bench_fit_evidence.py --data-dir ../shared/datasets
        [--min-rows 4000] [--max-rows 10000] [--splits 3] [--repeats 5]
        [--out benchmarks/results/fit_evidence.md]

``DecisionTreeClassifier.fit`` grows the tree; the evidence pass (what ``certificate_`` reads
from the training rows: every row's prediction, the compression set) and the bounds wait for the
first read of ``certificate_`` when the rows are small (``fit`` keeps a copy of them, or of
their one-byte codes for rows of small-range integers; larger rows are gathered in ``fit``).
For every shared dataset with between ``--min-rows`` and ``--max-rows`` rows, 75/25 splits
(seeds ``0 .. splits - 1``) and two
settings (full depth; ``max_leaf_nodes=255``, treebound ``growth="top_down"``), it times with
CPU time of this process (the minimum over ``--repeats`` runs, summed over the splits):

- scikit-learn's ``DecisionTreeClassifier.fit``;
- treebound's ``fit`` with ``splitter="hist"`` (``max_bins=255``);
- the evidence pass alone (``fit_certificate(..., defer=False)`` on the fitted model, what
  ``fit`` ran last before the evidence waited for the first read);
- the first read of ``certificate_`` (evidence pass and bounds; not part of ``fit``).

Ratios are treebound / scikit-learn (lower is faster). Target (issue 24): ``fit`` at most 0.3x
scikit-learn's; the page also shows ``fit`` plus the evidence pass (the cost of an eager one).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from treebound_lab.datasets import available_datasets, load_dataset  # noqa: E402
from treebound_lab.provenance import results_header  # noqa: E402

SETTINGS = (("full depth", None), ("max_leaf_nodes=255", 255))
TARGET = 0.3


def best_cpu(fn, repeats: int) -> tuple[float, object]:
    """Smallest CPU time of ``fn()`` over ``repeats`` runs, and its last result."""
    best, result = np.inf, None
    for _ in range(repeats):
        start = time.process_time()
        result = fn()
        best = min(best, time.process_time() - start)
    return best, result


def best_cpu_alternating(first, second, repeats: int) -> tuple[float, object, float, object]:
    """Smallest CPU times of ``first()`` and ``second()`` over ``repeats`` runs each, run in
    turns (so that both see the machine in the same state: on this shared virtual machine the
    speed of a fit drifts by up to half over seconds, and timing one block of runs after the
    other put that drift into the ratio), and their last results."""
    best_first = best_second = np.inf
    result_first = result_second = None
    for _ in range(repeats):
        start = time.process_time()
        result_first = first()
        best_first = min(best_first, time.process_time() - start)
        start = time.process_time()
        result_second = second()
        best_second = min(best_second, time.process_time() - start)
    return best_first, result_first, best_second, result_second


def time_split(X_train, y_train, budget, seed: int, repeats: int) -> dict:
    """CPU seconds of scikit-learn's fit, treebound's fit, its evidence pass and the first read
    of its certificate on one training set."""
    from sklearn.tree import DecisionTreeClassifier as SklearnTree

    from treebound import DecisionTreeClassifier
    from treebound.certificates import fit_certificate

    growth = "depth_first" if budget is None else "top_down"

    def treebound_fit():
        return DecisionTreeClassifier(splitter="hist", max_bins=255, max_leaf_nodes=budget,
                                      growth=growth).fit(X_train, y_train)

    sk, sk_model, fit, model = best_cpu_alternating(
        lambda: SklearnTree(max_leaf_nodes=budget, random_state=seed).fit(X_train, y_train),
        treebound_fit, repeats)
    features = model.encode(X_train)
    y_idx = np.searchsorted(model.classes_, y_train)
    evidence, _ = best_cpu(lambda: fit_certificate(model, features, y_idx, defer=False),
                           repeats)
    pending = model.__dict__["_certificate"]
    bounds, certificate = best_cpu(pending.resolve, 1)  # the first read of certificate_
    assert certificate == fit_certificate(model, features, y_idx, defer=False).resolve()
    return {"sk": sk, "fit": fit, "evidence": evidence, "bounds": bounds,
            "leaves_sk": sk_model.get_n_leaves(), "leaves": model.get_n_leaves()}


def run(data_dir: Path, min_rows: int, max_rows: int, splits: int, repeats: int, echo=print):
    from sklearn.model_selection import train_test_split

    # warm the compiled kernels outside the timings
    from treebound import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    for budget in (None, 8):
        warm = DecisionTreeClassifier(splitter="hist", max_leaf_nodes=budget,
                                      growth="depth_first" if budget is None else "top_down")
        assert warm.fit(rng.normal(size=(200, 3)), np.arange(200) % 2).certificate_ is not None
    rows = []
    for name in available_datasets(data_dir):
        data = load_dataset(data_dir, name)
        if not min_rows <= data.n_samples <= max_rows:
            continue
        for label, budget in SETTINGS:
            total: dict = {}
            for seed in range(splits):
                X_train, _, y_train, _ = train_test_split(data.X, data.y, test_size=0.25,
                                                          random_state=seed, stratify=data.y)
                one = time_split(X_train, y_train, budget, seed, repeats)
                for key, value in one.items():
                    total[key] = total.get(key, 0) + value
            total.update(dataset=name, rows=data.n_samples, features=data.n_features,
                         setting=label)
            rows.append(total)
            echo(f"{name} {label}: fit {total['fit'] / total['sk']:.2f}x, evidence "
                 f"{total['evidence'] / total['sk']:.2f}x")
    return rows


def render(rows, header, splits: int, repeats: int) -> str:
    lines = header + [
        f"75/25 splits with seeds 0..{splits - 1}; every time is the minimum CPU time over "
        f"{repeats} runs (first read of `certificate_`: one run), summed over the splits; ratios "
        "are treebound / scikit-learn's `DecisionTreeClassifier.fit` in the same process, the "
        "two fits run in turns (one of each per run). "
        "treebound: `splitter=\"hist\", max_bins=255`, `growth=\"depth_first\"` at full depth, "
        "`\"top_down\"` (scikit-learn's best-first order) with `max_leaf_nodes=255`. `fit`: "
        "growth, and a copy of the rows (or of their one-byte codes) for the evidence pass (what "
        "the certificate reads from "
        "the rows: every row's prediction and the compression set), which runs on the first "
        "read of `certificate_` with the bounds; `evidence`: that pass timed alone; `fit + "
        "evidence`: what an eager `fit` costs.",
        "",
        "| dataset | rows | feat | setting | sklearn fit (s) | fit | evidence | fit + evidence | "
        "first read of certificate_ | leaves sk / tb (summed over the splits) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    worst = 0.0
    for r in rows:
        sk = r["sk"]
        ratio = r["fit"] / sk
        worst = max(worst, ratio)
        lines.append(
            f"| {r['dataset']} | {r['rows']} | {r['features']} | {r['setting']} | {sk:.3f} | "
            f"{ratio:.2f}x | {r['evidence'] / sk:.2f}x | "
            f"{(r['fit'] + r['evidence']) / sk:.2f}x | {r['bounds'] / sk:.2f}x | "
            f"{r['leaves_sk']} / {r['leaves']} |")
    met = "met" if rows and worst <= TARGET else "NOT met"
    lines += ["", f"Target (issue 24): `fit` with `splitter=\"hist\"` <= {TARGET}x scikit-learn: "
              f"{met} (worst {worst:.2f}x).", ""]
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--min-rows", type=int, default=4000)
    parser.add_argument("--max-rows", type=int, default=10000)
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).parent / "results" / "fit_evidence.md")
    args = parser.parse_args(argv)
    header = results_header("Fit with the certificate's evidence pass against scikit-learn")
    rows = run(args.data_dir, args.min_rows, args.max_rows, args.splits, args.repeats)
    if not rows:
        raise SystemExit(f"no dataset in {args.data_dir} has {args.min_rows} to {args.max_rows} "
                         "rows")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(rows, header, args.splits, args.repeats))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
