"""Leboeuf et al. (2020) section 6 / Table 1 protocol: pruning methods compared on random splits.

For every dataset and split ``i`` (seed ``10 i + 1`` as in the paper's code, 75/25
``train_test_split``): grow a Gini tree to purity or ``max_leaves`` leaves in the reference
code's order (``growth="purest_children"``; a second protocol uses ``"top_down"``), all features
taken as real-valued as in the paper, then prune the *same* grown tree with every method:

* ``original`` — no pruning;
* ``ccp_cv`` / ``ccp_cv_1se`` — CART cost-complexity, 10-fold CV, min-error and 1-SE rules
  (one cross-validation gives both);
* ``ccp_cv_paper`` — the paper's "CART" column: its reference code's CART-CV
  (:mod:`treebound_lab.paper_cart`), kept to explain the paper's CART numbers;
* ``mcart_cv`` — M-CART;
* ``bound`` — Algorithm 3 with treebound's defaults (tight bound, ``r = 2^-13.7``, delta 0.05);
* ``bound_paper`` — Algorithm 3 as the paper's code ran it (``loose_paper``, ``r = 2^-13.1``);
* ``srm`` — Yıldız's SRM pruning (real-feature VC lower bound);
* ``reduced_error`` — grown on 80 % of the training split, pruned on the other 20 %.

Times are the pruning call only (for the CV methods: including growing the 10 fold trees), wall
clock and thread CPU time.

The ``defaults`` protocol grows no shared tree: on the same splits it fits what a user gets
without setting anything,

* ``defaults`` — ``DecisionTreeClassifier(pruning="bound")``, no other argument (the library's
  default growth, leaf budget, criterion and bound; features typed as the loader gives them);
* ``sklearn_ccp_cv`` — scikit-learn's CART grown to purity, ``ccp_alpha`` by 10-fold CV
  (:class:`treebound_lab.cart_peer.SklearnCartCV`, protocol ``"breiman"``), the usual tuned
  baseline;

and times the whole fit (``fit_seconds``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

__all__ = ["DEFAULTS_MODELS", "MODELS", "PROTOCOLS", "RUN_FIELDS", "SplitTask", "make_tasks",
           "run_split"]

PROTOCOLS = ("purest_children", "top_down", "defaults")
#: Models of the ``defaults`` protocol (whole fits); the others prune one shared grown tree.
DEFAULTS_MODELS = ("defaults", "sklearn_ccp_cv")
MODELS = ("original", "ccp_cv", "ccp_cv_1se", "ccp_cv_paper", "mcart_cv", "bound", "bound_paper",
          "srm", "reduced_error") + DEFAULTS_MODELS
RUN_FIELDS = ["dataset", "protocol", "split", "seed", "model", "n_train", "n_test", "n_features",
              "n_classes", "train_acc", "test_acc", "n_leaves", "height", "prune_seconds",
              "prune_cpu_seconds", "bound", "fit_seconds"]


@dataclass(frozen=True)
class SplitTask:
    """One (dataset, protocol, split): everything a worker needs, data included."""

    dataset: str
    protocol: str
    split: int
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    max_leaves: int | None = 40
    models: tuple[str, ...] = MODELS
    n_folds: int = 10

    @property
    def seed(self) -> int:
        return 10 * self.split + 1

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.dataset, self.protocol, self.split)


def make_tasks(datasets, protocols, n_splits, max_leaves, models=MODELS, done=frozenset()):
    """Tasks of the grid, skipping the ``(dataset, protocol, split)`` keys in ``done``."""
    tasks = []
    for data in datasets:
        for protocol in protocols:
            if protocol not in PROTOCOLS:
                raise ValueError(f"unknown protocol {protocol!r}: expected one of {PROTOCOLS}")
            wanted = set(DEFAULTS_MODELS) if protocol == "defaults" else \
                set(MODELS) - set(DEFAULTS_MODELS)
            if not wanted & set(models):
                continue
            for i in range(n_splits):
                task = SplitTask(data.name, protocol, i, data.X, data.y, max_leaves,
                                 tuple(models))
                if task.key not in done:
                    tasks.append(task)
    return tasks


def _timed(function):
    wall, cpu = time.perf_counter(), time.thread_time()
    out = function()
    return out, time.perf_counter() - wall, time.thread_time() - cpu


def _base_row(task: SplitTask, n_train: int, n_test: int) -> dict:
    return {"dataset": task.dataset, "protocol": task.protocol, "split": task.split,
            "seed": task.seed, "n_train": n_train, "n_test": n_test,
            "n_features": task.X.shape[1], "n_classes": len(np.unique(task.y))}


def run_defaults_split(task: SplitTask, X_tr, X_te, y_tr, y_te) -> list[dict]:
    """The ``defaults`` protocol: whole fits of the no-argument classifier and of scikit-learn
    CART + CCP CV; one row per model."""
    from treebound import DecisionTreeClassifier
    from treebound_lab.cart_peer import SklearnCartCV

    makers = {"defaults": lambda: DecisionTreeClassifier(pruning="bound"),
              "sklearn_ccp_cv": lambda: SklearnCartCV("breiman", random_state=task.seed)}
    rows = []
    for name in DEFAULTS_MODELS:
        if name not in task.models:
            continue
        model, wall, cpu = _timed(lambda m=makers[name]: m().fit(X_tr, y_tr))
        depth = model.get_depth()
        bound = getattr(model, "pruning_objective_", None)
        rows.append({**_base_row(task, len(y_tr), len(y_te)), "model": name,
                     "train_acc": float(np.mean(model.predict(X_tr) == y_tr)),
                     "test_acc": float(np.mean(model.predict(X_te) == y_te)),
                     "n_leaves": int(model.get_n_leaves()), "height": int(depth),
                     "prune_seconds": "", "prune_cpu_seconds": "",
                     "bound": "" if bound is None else bound, "fit_seconds": wall})
    return rows


def run_split(task: SplitTask) -> list[dict]:
    """Grow once, prune with every model of the task; one row per model."""
    from sklearn.model_selection import train_test_split

    from treebound import DecisionTreeClassifier, prune

    X_tr, X_te, y_tr, y_te = train_test_split(task.X, task.y, test_size=0.25,
                                              random_state=task.seed)
    if task.protocol == "defaults":
        return run_defaults_split(task, X_tr, X_te, y_tr, y_te)
    settings = {"criterion": "gini", "growth": task.protocol, "max_leaf_nodes": task.max_leaves,
                "categorical_features": None, "random_state": task.seed}
    grown = DecisionTreeClassifier(**settings).fit(X_tr, y_tr)
    base = _base_row(task, len(y_tr), len(y_te))

    def row(model, tree, seconds=0.0, cpu=0.0, bound=None):
        def accuracy(X, y):
            pred = grown.classes_[tree.majority_class[tree.apply(grown.encode(X))]]
            return float(np.mean(pred == y))

        return {**base, "model": model, "train_acc": accuracy(X_tr, y_tr),
                "test_acc": accuracy(X_te, y_te), "n_leaves": tree.n_leaves,
                "height": tree.max_depth, "prune_seconds": seconds, "prune_cpu_seconds": cpu,
                "bound": "" if bound is None or not math.isfinite(bound) else bound}

    rows = []
    models = task.models
    if "original" in models:
        rows.append(row("original", grown.tree_.flat))
    for method in ("ccp_cv", "mcart_cv"):
        if method in models or (method == "ccp_cv" and "ccp_cv_1se" in models):
            result, wall, cpu = _timed(lambda m=method: prune(
                grown, X_tr, y_tr, method=m, random_state=task.seed, n_folds=task.n_folds))
            if method in models:
                rows.append(row(method, result.tree, wall, cpu))
            if method == "ccp_cv" and "ccp_cv_1se" in models:
                mask = np.zeros(grown.tree_.flat.n_nodes, dtype=bool)
                mask[result.info["collapsed_1se"]] = True
                rows.append(row("ccp_cv_1se", grown.tree_.flat.collapse(mask)[0], wall, cpu))
    if "ccp_cv_paper" in models:
        from treebound_lab.paper_cart import paper_cart_cv

        (tree, _), wall, cpu = _timed(lambda: paper_cart_cv(grown, X_tr, y_tr, task.n_folds))
        rows.append(row("ccp_cv_paper", tree, wall, cpu))
    for model, params in (("bound", {}),
                          ("bound_paper", {"variant": "loose_paper",
                                           "error_prior_exponent": 13.1})):
        if model in models:
            result, wall, cpu = _timed(lambda p=params: prune(grown, method="bound", **p))
            rows.append(row(model, result.tree, wall, cpu, result.objective))
    if "srm" in models:
        result, wall, cpu = _timed(lambda: prune(grown, method="srm"))
        rows.append(row("srm", result.tree, wall, cpu, result.objective))
    if "reduced_error" in models:
        rep = DecisionTreeClassifier(**settings, pruning="reduced_error").fit(X_tr, y_tr)
        rows.append(row("reduced_error", rep.tree_.flat, rep.pruning_time_, rep.pruning_time_))
    return rows


def default_datasets(data_dir, max_rows: int = 10_000) -> list[str]:
    """Datasets of ``data_dir`` with at most ``max_rows`` rows (counted without loading)."""
    import gzip

    from treebound_lab.datasets import available_datasets

    names = []
    for name in available_datasets(data_dir):
        with gzip.open(f"{data_dir}/{name}.tsv.gz", "rt") as handle:
            n = -1  # header
            for n, _ in enumerate(handle):
                if n > max_rows:
                    break
        if n <= max_rows:
            names.append(name)
    return names


def run_benchmark(data_dir, *, datasets=None, n_splits=25, max_leaves=40,
                  protocols=PROTOCOLS, models=MODELS, jobs=1, scheduler=None, resume=False,
                  out_md="benchmarks/results/pruning.md", out_csv=None, plot=None,
                  paper_csv=None, echo=print, command=None):
    """Run the grid (resumable through ``out_csv``), then write the Markdown page and plot."""
    from pathlib import Path

    from treebound_lab.datasets import load_dataset
    from treebound_lab.grid import append_rows, read_rows, run_grid
    from treebound_lab.provenance import results_header
    from treebound_lab.pruning_report import TITLE, plot_accuracy, write_pruning_markdown

    # the provenance of the code that runs, taken before the (long) run
    header = results_header(TITLE, command)
    out_csv = Path(out_csv) if out_csv else Path(out_md).with_suffix(".csv")
    names = list(datasets) if datasets else default_datasets(data_dir)
    if not names:
        raise ValueError(f"no dataset to run in {data_dir}")
    unknown = sorted(set(models) - set(MODELS))
    if unknown:
        raise ValueError(f"unknown models {unknown}: expected some of {MODELS}")
    # the data first: a wrong --data-dir must fail before the results of an earlier run go
    loaded = [load_dataset(data_dir, name) for name in names]
    previous = read_rows(out_csv) if resume else []
    if not resume and out_csv.exists():
        out_csv.unlink()
    done = {(r["dataset"], r["protocol"], int(r["split"])) for r in previous}
    tasks = make_tasks(loaded, protocols, n_splits, max_leaves, models, frozenset(done))
    echo(f"{len(tasks)} splits to run ({len(done)} already in {out_csv})")
    run_grid(run_split, tasks, jobs=jobs, scheduler=scheduler,
             on_result=lambda rows: append_rows(out_csv, rows, RUN_FIELDS),
             description="pruning bench")
    rows = [r for r in read_rows(out_csv) if r["dataset"] in names and r["protocol"] in protocols
            and int(r["split"]) < n_splits]
    settings = {"splits": n_splits, "max leaves": max_leaves or "none (purity)",
                "growth": "Gini, " + " / ".join(p for p in protocols if p != "defaults"),
                "split": "75/25, seeds 10 i + 1", "features": "all real-valued",
                "datasets": len(names)}
    shown = [m for m in MODELS if m in models]
    write_pruning_markdown(rows, out_md, paper_csv=paper_csv, models=shown, settings=settings,
                           header=header)
    if plot:
        plot_accuracy(rows, plot, models=[m for m in shown if m not in DEFAULTS_MODELS],
                      paper_csv=paper_csv)
    return rows
