"""Tuning runs behind the library defaults of bound pruning and dyadic trees (issue 13), run by
``benchmarks/tune_defaults.py``.

Defaults are judged on data they were not tuned on, so this script only touches *tuning* data:

* the shared datasets that ``treebound bench pruning`` does **not** use (more than 10,000 rows:
  magic, nursery, letter, adult, shuttle, connect_4), subsampled to several sizes, and
* synthetic data (the smooth-boundary setting of Scott & Nowak, with seeds the dyadic benchmark
  does not use).

The 21 datasets of ``treebound bench pruning`` (and haberman, iris, titanic, wdbc, the
banknote-like and smooth-boundary sets of ``treebound bench dyadic``, with their seeds) are the
*reporting* data: the chosen defaults are measured there by those benchmarks, never here.

``--part bound``: for every tuning set, size and split, scikit-learn CART grown to purity with
``ccp_alpha`` by 10-fold CV (the reference), and ``DecisionTreeClassifier(pruning="bound")``
grown in ``top_down`` order with each candidate leaf budget (plus the paper's 40 leaves in
``purest_children`` order). ``--part dyadic``: free DDTs with ``penalty_scale`` chosen by 5-fold
CV over candidate grids, for candidate resolution rules, on low-dimensional (d <= 5) tuning
sets, beside the same CART reference.

The dyadic part lives in :mod:`treebound_lab.defaults_tuning_dyadic`.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from treebound_lab.provenance import results_header

__all__ = ["BOUND_SIZES", "BOUND_SPLITS", "BOUND_TUNING", "BOUND_TITLE", "bound_report",
           "budget_rules", "run_bound", "run_tuning"]

BOUND_TITLE = "Tuning the bound-pruning defaults (tuning data only)"
#: Tuning datasets of the bound-pruning defaults: none is among the 21 of bench pruning.
BOUND_TUNING = ("magic", "nursery", "letter", "adult", "shuttle", "connect_4")
BOUND_SIZES = (500, 2000, 8000)
BOUND_SPLITS = 2


def budget_rules():
    """Candidate leaf budgets as functions of the number of training rows ``n``."""
    return {
        "20": lambda n: 20,
        "40": lambda n: 40,
        "sqrt(n)": lambda n: max(2, math.ceil(math.sqrt(n))),
        "2 sqrt(n)": lambda n: max(2, math.ceil(2 * math.sqrt(n))),
    }


def _timed_fit(model, X, y):
    start = time.perf_counter()
    model.fit(X, y)
    return model, time.perf_counter() - start


def run_bound(data_dir, names, sizes, n_splits, echo=print):
    """Rows ``(dataset, n_train, split, model, accuracy, leaves, seconds)``."""
    from sklearn.model_selection import train_test_split

    from treebound import DecisionTreeClassifier
    from treebound_lab.cart_peer import SklearnCartCV
    from treebound_lab.datasets import load_dataset, subsample

    rules = budget_rules()
    rows = []
    for name in names:
        data = load_dataset(data_dir, name)
        for size in sizes:
            X_all, y_all = subsample(data.X, data.y, size, seed=size)
            for split in range(n_splits):
                seed = 1000 + split
                counts = np.bincount(y_all)
                strat = y_all if counts[counts > 0].min() >= 2 else None
                X_tr, X_te, y_tr, y_te = train_test_split(X_all, y_all, test_size=0.25,
                                                          random_state=seed, stratify=strat)
                n = len(y_tr)
                models = {"sklearn CART + CCP CV": SklearnCartCV("breiman", random_state=seed)}
                models["purest_children, 40"] = DecisionTreeClassifier(
                    growth="purest_children", max_leaf_nodes=40, pruning="bound",
                    random_state=seed)
                for label, rule in rules.items():
                    models[f"top_down, {label}"] = DecisionTreeClassifier(
                        growth="top_down", max_leaf_nodes=rule(n), pruning="bound",
                        random_state=seed)
                for label, model in models.items():
                    model, seconds = _timed_fit(model, X_tr, y_tr)
                    accuracy = float(np.mean(model.predict(X_te) == y_te))
                    rows.append((name, n, split, label, accuracy, model.get_n_leaves(), seconds))
                echo(f"{name} n={n} split {split}: " + ", ".join(
                    f"{r[3]} {r[4]:.3f}/{r[5]}/{r[6]:.2f}s" for r in rows[-len(models):]))
    return rows


def bound_report(rows, seconds, header) -> str:
    """The page of the bound part: ``header`` (:func:`~treebound_lab.provenance.
    results_header`), the protocol and the tables."""
    reference = "sklearn CART + CCP CV"
    models = list(dict.fromkeys(r[3] for r in rows))
    keys = list(dict.fromkeys((r[0], r[1]) for r in rows))
    table = {}
    for name, n, _, model, acc, leaves, sec in rows:
        table.setdefault((name, n, model), []).append((acc, leaves, sec))
    lines = list(header) + [
        f"Total wall time {seconds / 60:.1f} min.", "",
        "Protocol: tuning datasets only — the shared datasets that `treebound bench pruning` "
        f"does not use ({', '.join(BOUND_TUNING)}), each subsampled (stratified, seed = size) "
        f"to {', '.join(f'{s:,}' for s in BOUND_SIZES)} rows, {BOUND_SPLITS} stratified 75/25 "
        "splits each (seeds 1000 + i, not the benchmark's 10 i + 1). The 21 datasets of "
        "`treebound bench pruning` are never used here: they are where the chosen default is "
        "reported (`benchmarks/results/pruning.md`, model `defaults`).", "",
        "Reference: scikit-learn CART grown to purity, `ccp_alpha` by 10-fold CV (min error, "
        "30 candidate alphas). Candidates: `DecisionTreeClassifier(pruning=\"bound\")` grown in "
        "the given order with the given leaf budget (n = training rows). Seconds = whole fit "
        "(growth + pruning, or the whole CV selection), wall clock.", "",
        "## Mean test accuracy minus the reference, points (per tuning set and size)", "",
        "| dataset | n_train | " + " | ".join(f"`{m}`" for m in models if m != reference)
        + f" | {reference} accuracy |",
        "|---|---|" + "---|" * len(models),
    ]
    per_model = {m: [] for m in models}
    for name, n in keys:
        ref = np.mean([a for a, _, _ in table[(name, n, reference)]])
        cells = []
        for m in models:
            if m == reference:
                continue
            diff = 100 * (np.mean([a for a, _, _ in table[(name, n, m)]]) - ref)
            per_model[m].append(diff)
            cells.append(f"{diff:+.2f}")
        lines.append(f"| {name} | {n} | " + " | ".join(cells) + f" | {ref:.3f} |")
    lines += ["", "## Summary over the tuning sets", "",
              "| model | mean difference (points) | worst (points) | mean leaves | max fit s |",
              "|---|---|---|---|---|"]
    for m in models:
        leaves = [lv for k, v in table.items() if k[2] == m for _, lv, _ in v]
        secs = [s for k, v in table.items() if k[2] == m for _, _, s in v]
        diffs = per_model[m]
        lines.append(f"| `{m}` | {np.mean(diffs):+.2f} | {min(diffs):+.2f} | "
                     f"{np.mean(leaves):.1f} | {max(secs):.2f} |" if diffs else
                     f"| `{m}` | (reference) | | {np.mean(leaves):.1f} | {max(secs):.2f} |")
    slowest = {m: max(s for k, v in table.items() if k[2] == m for _, _, s in v) for m in models}
    fast = [m for m in models if m != reference and slowest[m] <= 10.0]
    if fast:
        best = max(fast, key=lambda m: np.mean(per_model[m]))
        lines += ["", "Decision rule: the candidate with the best mean difference among those "
                      f"whose slowest fit took at most 10 s: **`{best}`**."]
    return "\n".join(lines) + "\n"


def run_tuning(data_dir, part: str, out, *, command=None, echo=print) -> str:
    """Run one part (``"bound"`` or ``"dyadic"``), write its page to ``out``, return the text."""
    from treebound_lab import defaults_tuning_dyadic

    titles = {"bound": BOUND_TITLE, "dyadic": defaults_tuning_dyadic.TITLE}
    if part not in titles:
        raise ValueError(f"part must be one of {sorted(titles)}, got {part!r}")
    header = results_header(titles[part], command)  # the provenance of the code that runs, first
    start = time.perf_counter()
    if part == "bound":
        rows = run_bound(data_dir, BOUND_TUNING, BOUND_SIZES, BOUND_SPLITS, echo=echo)
        text = bound_report(rows, time.perf_counter() - start, header)
    else:
        rows = defaults_tuning_dyadic.run_dyadic(data_dir, echo=echo)
        text = defaults_tuning_dyadic.dyadic_report(rows, time.perf_counter() - start, header)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(text)
    return text
