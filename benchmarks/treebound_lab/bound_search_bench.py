"""Branch and bound against the full search in bound pruning (``benchmarks/bench_bound_search.py``
writes ``benchmarks/results/bound_search.md``).

``prune(tree, method="bound")`` finds the candidate of smallest bound at every step either by the
exact branch and bound of :mod:`treebound.pruning.bound` (``search="lazy"``, the default) or by
evaluating every candidate in full (``search="all"``). Both must return the same tree; this
benchmark checks that they do and times them against each other in the same process, on the
40-leaf trees of ``treebound bench pruning`` (``growth="purest_children"``, 75/25 splits with
seeds 10 i + 1, the datasets of that benchmark).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np

from treebound_lab.provenance import results_header

__all__ = ["SEARCHES", "TITLE", "run_bound_search_benchmark", "time_dataset"]

TITLE = 'Bound pruning: branch and bound (search="lazy") against every candidate (search="all")'
SEARCHES = ("lazy", "all")


def _timed(tree, search):
    """The pruning result, thread CPU seconds and wall seconds of one call."""
    from treebound import prune

    cpu, wall = time.thread_time(), time.perf_counter()
    result = prune(tree, method="bound", search=search)  # a fresh partitioning cache per call
    return result, time.thread_time() - cpu, time.perf_counter() - wall


def time_dataset(data, n_splits: int, max_leaves: int = 40) -> list[dict]:
    """Per split: the seconds of both searches, their exact evaluations and whether they agree."""
    from sklearn.model_selection import train_test_split

    from treebound import DecisionTreeClassifier

    rows = []
    for i in range(n_splits):
        X_tr, _, y_tr, _ = train_test_split(data.X, data.y, test_size=0.25,
                                            random_state=10 * i + 1)
        tree = DecisionTreeClassifier(growth="purest_children", max_leaf_nodes=max_leaves,
                                      random_state=0).fit(X_tr, y_tr).tree_.flat
        if i == 0:  # untimed: numba dispatch, Stirling tables, imports
            for search in SEARCHES:
                _timed(tree, search)
        row = {"n_train": len(y_tr), "n_classes": int(data.y.max()) + 1,
               "leaves_grown": tree.n_leaves}
        results = {}
        for search in SEARCHES:
            results[search], row[f"{search}_cpu"], row[f"{search}_wall"] = _timed(tree, search)
            row[f"{search}_exact"] = results[search].info["exact_evaluations"]
        lazy, full = results["lazy"], results["all"]
        row["same_tree"] = bool(np.array_equal(lazy.make_leaf, full.make_leaf)
                                and lazy.objective == full.objective)
        row["leaves_pruned"] = lazy.tree.n_leaves
        rows.append(row)
    return rows


def run_bound_search_benchmark(data_dir, out, *, datasets=None, n_splits=25, command=None,
                               echo=print) -> str:
    """Time both searches on every dataset, write the page to ``out`` and return its text."""
    from treebound_lab.datasets import load_dataset
    from treebound_lab.pruning_bench import default_datasets

    header = results_header(TITLE, command)  # before the run: the load it starts under
    names = list(datasets) if datasets else default_datasets(data_dir) + ["segmentation@210"]
    loaded = {name: load_dataset(data_dir, name) for name in names}  # a wrong path fails first
    per_dataset = {}
    for name in names:
        per_dataset[name] = rows = time_dataset(loaded[name], n_splits)
        echo(f"{name}: lazy {statistics.mean(r['lazy_cpu'] for r in rows):.4f} s, all "
             f"{statistics.mean(r['all_cpu'] for r in rows):.4f} s CPU")
    text = _report(header, per_dataset, n_splits)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(text)
    return text


def _report(header, per_dataset, n_splits) -> str:
    lines = header + [
        "`DecisionTreeClassifier(growth=\"purest_children\", max_leaf_nodes=40)` grown on "
        f"{n_splits} 75/25 splits per dataset (random_state = 10 i + 1, as in `treebound bench "
        "pruning`); the grown tree pruned by `prune(tree, method=\"bound\", search=...)` "
        "(tight bound, delta = 0.05, r = 2^-13.7; a fresh partitioning cache per call; one "
        "untimed call of each search first). Times are thread CPU seconds (the wall clock of a "
        "shared machine is noisier), one call per split; *ratio* = mean `all` / mean `lazy` "
        "time; *exact* = candidate trees whose bound was evaluated in full, summed over the "
        "steps (mean per split), `all` evaluating every candidate; *share* = lazy exact / all "
        "exact. *same tree*: splits where both searches chose the same leaves and bound.",
        "",
        "| dataset | n_train | classes | lazy s | all s | ratio | lazy exact | all exact | "
        "share | leaves after | same tree |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    ratios, shares = [], []
    for name, rows in per_dataset.items():
        lazy = statistics.mean(r["lazy_cpu"] for r in rows)
        full = statistics.mean(r["all_cpu"] for r in rows)
        ratio = full / lazy if lazy > 0 else float("inf")
        ratios.append((ratio, name, rows[0]["n_classes"]))
        lazy_exact = statistics.mean(r["lazy_exact"] for r in rows)
        all_exact = statistics.mean(r["all_exact"] for r in rows)
        share = lazy_exact / all_exact if all_exact else 0.0
        shares.append((share, name))
        lines.append(
            f"| {name} | {rows[0]['n_train']} | {rows[0]['n_classes']} | {lazy:.4f} | "
            f"{full:.4f} | {ratio:.1f} | {lazy_exact:.1f} | {all_exact:.1f} | "
            f"{100 * share:.0f} % | {statistics.mean(r['leaves_pruned'] for r in rows):.1f} | "
            f"{sum(r['same_tree'] for r in rows)}/{len(rows)} |")
    ratios.sort()
    shares.sort()
    same = sum(r["same_tree"] for rows in per_dataset.values() for r in rows)
    total = sum(len(rows) for rows in per_dataset.values())
    many = [(ratio, name) for ratio, name, classes in ratios if classes >= 7]
    lines += [
        "",
        f"- Same tree from both searches on {same} of {total} splits.",
        f"- all / lazy (mean CPU times): median {statistics.median(r for r, _, _ in ratios):.1f}"
        f" over {len(ratios)} datasets, from {ratios[0][0]:.1f} ({ratios[0][1]}) to "
        f"{ratios[-1][0]:.1f} ({ratios[-1][1]}).",
        f"- Share of the candidates the branch and bound evaluates in full: from "
        f"{100 * shares[0][0]:.0f} % ({shares[0][1]}) to {100 * shares[-1][0]:.0f} % "
        f"({shares[-1][1]}), median {100 * statistics.median(v for v, _ in shares):.0f} %.",
    ]
    if many:
        lines.append("- With 7 classes or more: " + ", ".join(f"{name} {ratio:.1f}"
                                                             for ratio, name in many) + ".")
    return "\n".join(lines) + "\n"
