"""Bound pruning with the loose growth-function bound: kernel (search="lazy") against the
per-candidate Python evaluation (search="all").

``prune(tree, method="bound", variant="loose")`` is what ``variant="auto"`` takes on large data
(the tight estimate over its budget). With ``search="lazy"`` (the default) every candidate of a
step is evaluated by one numba kernel call on the working tree's flat arrays
(``treebound._kernels.loose_growth``); ``search="all"`` builds each candidate's TreeStructure and
calls ``treebound.theory.log_growth_function_upper_bound`` on it alone (a Python recursion until
the kernels became the theory functions' route too, after the page's last regeneration). Both are run on the same
grown trees in one process, checked to return the same pruned tree, and timed (thread CPU
seconds). Writes ``benchmarks/results/loose_pruning.md``.

Cases: a 448-leaf 2-class tree grown top-down on 200,000 x 20 Gaussian rows
(``y = x0 + x1^2 + noise > 1``, ``splitter="hist"``), the same with 10 classes (the deciles of
that score), and Gini trees grown to at most ``--magic-leaves`` leaves, and to purity (kernel
only), on a 75 % split of magic (19,020 rows, 10 features, 2 classes). About 3 minutes on 2
shared cores (the Python path takes most of it).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_loose_pruning.py --data-dir /work/shared/datasets
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results" / "loose_pruning.md"


def _synthetic_tree(rows: int, leaves: int, n_classes: int = 2):
    from treebound import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, 20))
    score = X[:, 0] + X[:, 1] ** 2 + 0.5 * rng.normal(size=rows)
    if n_classes == 2:
        y = (score > 1).astype(np.int64)
    else:  # classes = deciles (or other quantiles) of the same score
        y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    model = DecisionTreeClassifier(splitter="hist", max_leaf_nodes=leaves, growth="top_down",
                                   random_state=0).fit(X, y)
    return model.tree_.flat


def _magic_tree(data_dir: str, leaves: int | None):
    from sklearn.model_selection import train_test_split

    from treebound import DecisionTreeClassifier
    from treebound_lab.datasets import load_dataset

    data = load_dataset(data_dir, "magic")
    X_tr, _, y_tr, _ = train_test_split(data.X, data.y, test_size=0.25, random_state=1)
    return DecisionTreeClassifier(max_leaf_nodes=leaves, categorical_features=None,
                                  random_state=0).fit(X_tr, y_tr).tree_.flat


def _timed(tree, variant, search):
    from treebound import prune

    cpu, wall = time.thread_time(), time.perf_counter()
    result = prune(tree, method="bound", variant=variant, search=search)
    return result, time.thread_time() - cpu, time.perf_counter() - wall


def main(argv=None) -> None:
    from treebound_lab.provenance import results_header

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="datasets (for the magic case)")
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--leaves", type=int, default=448)
    parser.add_argument("--magic-leaves", default="200,500",
                        help="leaf caps of the magic trees ('' to skip)")
    parser.add_argument("--classes", type=int, default=10,
                        help="classes of a second synthetic case (2 to skip it)")
    parser.add_argument("--no-purity", dest="purity", action="store_false",
                        help="skip magic grown to purity (kernel only)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    both = ("loose", "loose_paper")
    # (name, tree, variants, whether the Python path is run too)
    cases = [(f"synthetic {args.rows:,} x 20, top_down hist",
              _synthetic_tree(args.rows, args.leaves), both, True)]
    if args.classes > 2:
        cases.append((f"synthetic {args.rows:,} x 20, {args.classes} classes, top_down hist",
                      _synthetic_tree(args.rows, args.leaves, args.classes), ("loose",), True))
    if args.data_dir and args.magic_leaves:
        for cap in args.magic_leaves.split(","):
            cases.append((f"magic, max_leaf_nodes={cap}", _magic_tree(args.data_dir, int(cap)),
                          both, True))
    if args.data_dir and args.purity:
        cases.append(("magic, grown to purity", _magic_tree(args.data_dir, None), both, False))
    # Untimed warm-up: numba dispatch (compiled kernels come from the on-disk cache), imports.
    _timed(_synthetic_tree(2000, 30), "loose", "lazy")
    _timed(_synthetic_tree(2000, 30), "loose", "all")

    load = os.getloadavg()[0]
    lines = [*results_header("Bound pruning with the loose growth function: kernel against "
                             "per-candidate Python"),
             "Each grown tree is pruned by `prune(tree, method=\"bound\", variant=v, "
             "search=s)` (delta = 0.05, r = 2^-13.7, a fresh partitioning cache per call) with "
             "`search=\"lazy\"` (default: one kernel call per step, "
             "`treebound._kernels.loose_growth`) and `search=\"all\"` (every candidate's "
             "TreeStructure through `log_growth_function_upper_bound`, the previous path), in "
             "the same process, one untimed warm-up call of each first. Times are thread CPU "
             "seconds of one call; *ratio* = all / lazy; *evaluations* = candidate trees whose "
             "bound was computed (steps x candidates); *same tree*: same leaves and bounds "
             "within 1e-9 relative (*max rel. diff* over the bounds of the path). The tree "
             "grown to purity is pruned by the kernel only (the Python path is not run on it). "
             f"Load average at start: {load:.2f} (2 shared cores).", "",
             "| tree | leaves grown | m | variant | steps | evaluations | leaves pruned | "
             "lazy CPU s | all CPU s | ratio | lazy wall s | all wall s | bound | "
             "max rel. diff | same tree |", "|" + "---|" * 15]
    for name, tree, variants, compare in cases:
        for variant in variants:
            fast, fast_cpu, fast_wall = _timed(tree, variant, "lazy")
            cells = [name, tree.n_leaves, int(tree.n_node_samples[0]), variant,
                     fast.info["steps"], fast.info["exact_evaluations"], fast.tree.n_leaves,
                     f"{fast_cpu:.3f}"]
            if compare:
                slow, slow_cpu, slow_wall = _timed(tree, variant, "all")
                diffs = [abs(a[1] - b[1]) / abs(b[1]) for a, b in zip(fast.path, slow.path,
                                                                       strict=False)]
                diff = max([abs(fast.objective - slow.objective) / abs(slow.objective), *diffs])
                same = (np.array_equal(fast.make_leaf, slow.make_leaf)
                        and len(fast.path) == len(slow.path) and diff <= 1e-9)
                cells += [f"{slow_cpu:.2f}", f"{slow_cpu / fast_cpu:.0f}", f"{fast_wall:.3f}",
                          f"{slow_wall:.2f}", f"{fast.objective:.6f}", f"{diff:.1e}",
                          "yes" if same else "NO"]
            else:
                cells += ["not run", "", f"{fast_wall:.3f}", "", f"{fast.objective:.6f}", "", ""]
            lines.append("| " + " | ".join(str(c) for c in cells) + " |")
            print(lines[-1], flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
