"""Speed of bound-based pruning (Algorithm 3, tight bound) next to 10-fold ccp_cv.

For each dataset (default: every classification dataset of ``--data-dir`` with at most 10,000
rows, plus ``segmentation@210``, as in ``treebound bench pruning``), grows
``DecisionTreeClassifier(growth="purest_children", max_leaf_nodes=40)`` on ``--splits`` 75 %
splits (``random_state = 10 i + 1``, the paper's seeds) and times, in the same process,
``prune(model, method="bound")`` (warm: after one untimed warm-up call, each timed call with a
fresh partitioning cache) and ``prune(model, X, y, method="ccp_cv", n_folds=10)``. Writes
``benchmarks/results/bound_speed.md``.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_bound_speed.py --data-dir ../shared/datasets
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from treebound_lab.cart_peer import SklearnCartCV
from treebound_lab.provenance import results_header

N_SPLITS = 25
REPO = Path(__file__).resolve().parent.parent


def sklearn_cart_cv(X, y, seed):
    """What a scikit-learn user runs for CART + 10-fold CV: the same 40-leaf budget, then
    ``GridSearchCV`` over the tree's cost-complexity alphas (shuffled folds)."""
    import numpy as np
    from sklearn.model_selection import StratifiedKFold

    folds = StratifiedKFold(10, shuffle=True, random_state=seed) if np.bincount(y).min() >= 10 \
        else 10
    return SklearnCartCV("grid_search", cv=folds, max_leaf_nodes=40, random_state=0).fit(X, y)


def time_dataset(data_dir, name, repeats, n_splits=N_SPLITS):
    """Per split: (best-of-``repeats`` bound seconds, ccp_cv seconds, leaves after bound)."""
    from sklearn.model_selection import train_test_split

    from treebound import DecisionTreeClassifier, prune
    from treebound_lab.datasets import load_dataset

    data = load_dataset(data_dir, name)
    rows = []
    for i in range(n_splits):
        X_tr, _, y_tr, _ = train_test_split(data.X, data.y, test_size=0.25,
                                            random_state=10 * i + 1)
        model = DecisionTreeClassifier(growth="purest_children", max_leaf_nodes=40,
                                       random_state=0).fit(X_tr, y_tr)
        prune(model, method="bound")  # warm-up (numba dispatch, Stirling tables, imports)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            result = prune(model, method="bound")
            times.append(time.perf_counter() - start)
        start = time.perf_counter()
        prune(model, X_tr, y_tr, method="ccp_cv", n_folds=10)
        ccp = time.perf_counter() - start
        start = time.perf_counter()
        sklearn_cart_cv(X_tr, y_tr, seed=10 * i + 1)
        sk = time.perf_counter() - start
        rows.append((min(times), ccp, result.tree.n_leaves, result.objective, len(y_tr), sk))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=str(REPO.parent / "shared" / "datasets"))
    parser.add_argument("--datasets", default="all",
                        help="comma-separated names, or 'all' (the pruning benchmark's set)")
    parser.add_argument("--splits", type=int, default=N_SPLITS)
    parser.add_argument("--repeats", type=int, default=1,
                        help="timed bound calls per split (the minimum is kept)")
    parser.add_argument("--out", default=str(REPO / "benchmarks/results/bound_speed.md"))
    args = parser.parse_args()

    lines = [*results_header("Speed of bound-based pruning"),
             "`DecisionTreeClassifier(growth=\"purest_children\", max_leaf_nodes=40)` grown on "
             f"{args.splits} 75 % splits (random_state = 10 i + 1); `prune(model, "
             "method=\"bound\")` timed warm (one untimed call first; fresh partitioning cache "
             f"per call; best of {args.repeats}), `prune(model, X, y, method=\"ccp_cv\", "
             "n_folds=10)` (treebound's CART cost-complexity pruning with 10-fold CV, fold trees "
             "regrown with treebound) and scikit-learn's CART + 10-fold CV as its users run it "
             "(40-leaf budget, `GridSearchCV` over the cost-complexity alphas) timed once per "
             "split. Ratios = mean peer time / mean bound time (wall clock, all in one process).",
             "",
             "| dataset | n_train | classes | bound mean s | bound max s | ccp_cv mean s | "
             "ccp_cv / bound | sklearn CART + CV mean s | sklearn / bound | "
             "mean leaves after bound | mean eps |", "|" + "---|" * 11]
    from treebound_lab.datasets import load_dataset
    from treebound_lab.pruning_bench import default_datasets

    names = (default_datasets(args.data_dir) + ["segmentation@210"] if args.datasets == "all"
             else args.datasets.split(","))
    all_bound, ratios, sk_ratios = [], [], []
    for name in names:
        rows = time_dataset(args.data_dir, name, args.repeats, args.splits)
        all_bound += [r[0] for r in rows]
        bound = [r[0] for r in rows]
        ccp = [r[1] for r in rows]
        n_classes = int(load_dataset(args.data_dir, name).y.max()) + 1
        mean_b, mean_c = statistics.mean(bound), statistics.mean(ccp)
        ratios.append((mean_c / mean_b, name))
        mean_s = statistics.mean(r[5] for r in rows)
        sk_ratios.append((mean_s / mean_b, name))
        lines.append(
            f"| {name} | {rows[0][4]} | {n_classes} | {mean_b:.4f} | {max(bound):.4f} | "
            f"{mean_c:.4f} | {mean_c / mean_b:.1f} | {mean_s:.4f} | {mean_s / mean_b:.1f} | "
            f"{statistics.mean(r[2] for r in rows):.1f} | "
            f"{statistics.mean(r[3] for r in rows):.6f} |")
        print(lines[-1], flush=True)
    ratios.sort()
    sk_ratios.sort()
    lines += ["", f"- `bound` per split: at most {max(all_bound):.3f} s over all "
              f"{len(all_bound)} splits; {sum(t < 1.0 for t in all_bound)} of them under 1 s.",
              f"- ccp_cv / bound (mean times): median {statistics.median(r for r, _ in ratios):.1f}, "
              f"from {ratios[0][0]:.1f} ({ratios[0][1]}) to {ratios[-1][0]:.1f} "
              f"({ratios[-1][1]}); >= 10 on {sum(r >= 10 for r, _ in ratios)} of "
              f"{len(ratios)} datasets.",
              f"- sklearn CART + CV / bound: median "
              f"{statistics.median(r for r, _ in sk_ratios):.1f}, from {sk_ratios[0][0]:.1f} "
              f"({sk_ratios[0][1]}) to {sk_ratios[-1][0]:.1f} ({sk_ratios[-1][1]}); >= 10 on "
              f"{sum(r >= 10 for r, _ in sk_ratios)} of {len(sk_ratios)} datasets."]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
