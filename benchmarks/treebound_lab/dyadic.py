"""Benchmark of dyadic decision trees (Scott & Nowak 2006) against CART and greedy trees.

Two registries drive ``treebound bench dyadic``:

* :data:`MODELS`: name -> :class:`BenchModel` (a label and a factory of a fresh estimator with
  ``fit``, ``predict`` and ``get_n_leaves``). Adding a model is one entry.
* :data:`DATASETS`: name -> :class:`BenchDataset`. Shared datasets are read from
  ``DATA_DIR/NAME.tsv.gz`` (last column ``target``) and evaluated by stratified 5-fold
  cross-validation; synthetic ones (a banknote-like set and the paper's settings: a smooth Bayes
  boundary in ``[0, 1]^2`` with label noise, then the same with irrelevant features) are drawn
  afresh per repetition and evaluated on a large independent test sample.

Fit times exclude numba compilation (every estimator is fitted once on a tiny sample first).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from treebound_lab.cart_peer import SklearnCartCV

__all__ = [
    "DATASETS",
    "DEFAULT_DATASETS",
    "DEFAULT_MODELS",
    "MODELS",
    "BenchDataset",
    "BenchModel",
    "BenchResult",
    "banknote_like",
    "markdown_tables",
    "results_table",
    "run_benchmark",
    "smooth_boundary",
    "speed_targets",
    "time_fit",
]

N_FOLDS = 5
N_SYNTHETIC_REPEATS = 5
N_SYNTHETIC_TEST = 20_000


# ----------------------------------------------------------------------------- models
@dataclass(frozen=True)
class BenchModel:
    """A benchmarked learner: table label, factory ``make(seed)``, and the largest d and n it is
    run on (beyond them the search would be too slow for a benchmark)."""

    label: str
    make: Callable[[int], object]
    max_features: int | None = None
    max_samples: int | None = None
    note: str = ""


# The theory's settings, pinned (the library defaults moved to penalty_scale="cv" and
# max_resolution="auto"): penalty constant 1, L = floor(log2(n / ln n)).
THEORY = {"penalty_scale": 1.0, "max_resolution": None}


def _free_ddt(seed):
    from treebound import DyadicTreeClassifier

    return DyadicTreeClassifier(variant="free", **THEORY)


def _ddt_defaults(seed):
    from treebound import DyadicTreeClassifier

    return DyadicTreeClassifier()


def _bound_defaults(seed):
    from treebound import DecisionTreeClassifier

    return DecisionTreeClassifier(pruning="bound")


def _free_ddt_coarse(seed):
    return _Theorem6DDT()


def _cyclic_ddt(seed):
    from treebound import DyadicTreeClassifier

    return DyadicTreeClassifier(variant="cyclic", **THEORY)


def _bound_pruned(seed):
    from treebound import DecisionTreeClassifier

    # Leboeuf et al.'s protocol: grow 40 leaves in the reference code's order, prune by the bound
    return DecisionTreeClassifier(growth="purest_children", max_leaf_nodes=40, pruning="bound",
                                  random_state=seed)


def _bound_pruned_top_down(seed):
    from treebound import DecisionTreeClassifier

    # the second protocol: 40 leaves in TopDown (best impurity decrease) order
    return DecisionTreeClassifier(growth="top_down", max_leaf_nodes=40, pruning="bound",
                                  random_state=seed)


def _greedy(seed):
    from treebound import DecisionTreeClassifier

    return DecisionTreeClassifier(growth="depth_first", random_state=seed)


class _Theorem6DDT:
    """Free DDT with ``L = ceil(log2(n / ln n) / d)``: ``M ≍ (n / log n)^{1/d}`` of Theorem 6."""

    def fit(self, X, y):
        from treebound import DyadicTreeClassifier
        from treebound.dyadic import theorem6_resolution

        level = theorem6_resolution(*X.shape)
        self.model_ = DyadicTreeClassifier(max_resolution=level, penalty_scale=1.0).fit(X, y)
        return self

    def predict(self, X):
        return self.model_.predict(X)

    def get_n_leaves(self) -> int:
        return self.model_.get_n_leaves()


MODELS: dict[str, BenchModel] = {
    "ddt_defaults": BenchModel(
        "free DDT, library defaults", _ddt_defaults,
        note="`DyadicTreeClassifier()`: penalty_scale by 5-fold CV over 1, 0.3, 0.1, 0.03, "
             "0.01 (largest first, stopping at the first drop), L = ceil(2 log2(n/ln n)/d), "
             "L d <= 20"),
    "free_ddt": BenchModel("free DDT, theory", _free_ddt,
                           note="penalty_scale = 1, L = floor(log2(n/ln n)) (M ≍ n/log n): the "
                                "defaults before issue 13"),
    "free_ddt_coarse": BenchModel("free DDT, Theorem 6 L", _free_ddt_coarse,
                                  note="penalty_scale = 1, L = ceil(log2(n/ln n)/d) "
                                       "(M ≍ (n/log n)^(1/d))"),
    "cyclic_ddt": BenchModel("cyclic DDT", _cyclic_ddt, note="penalty_scale = 1, same L as free "
                                                             "DDT, theory"),
    "cart_ccp_cv": BenchModel("CART + ccp_cv", lambda seed: SklearnCartCV("breiman", random_state=seed),
                              note="scikit-learn CART, α by 10-fold CV (min error)"),
    "bound": BenchModel("bound-pruned tree", _bound_pruned,
                        note="Gini, 40 leaves in purest_children order, pruned by the "
                             "Shawe-Taylor bound (Leboeuf et al. Algorithm 3, no CV)"),
    "bound_top_down": BenchModel("bound-pruned tree, top_down", _bound_pruned_top_down,
                                 note="the same with 40 leaves grown in top_down order"),
    "bound_defaults": BenchModel(
        "bound-pruned tree, library defaults", _bound_defaults,
        note="`DecisionTreeClassifier(pruning=\"bound\")`: ceil(2 sqrt(n)) leaves grown in "
             "top_down order, pruned by the bound"),
    "greedy": BenchModel("treebound greedy", _greedy, note="Gini, grown to purity (unpruned)"),
}
DEFAULT_MODELS = ("ddt_defaults", "free_ddt", "free_ddt_coarse", "cyclic_ddt", "cart_ccp_cv",
                  "bound_defaults", "bound", "bound_top_down", "greedy")


# --------------------------------------------------------------------------- datasets
def smooth_boundary(n: int, seed: int, noise: float = 0.1, n_irrelevant: int = 0):
    """The paper's setting: ``x ~ U[0, 1]^(2 + k)``, label 1 above the smooth boundary
    ``x2 = 0.5 + 0.25 sin(2π x1)``, flipped with probability ``noise`` (the Bayes error); the
    ``k = n_irrelevant`` extra coordinates are independent of the label."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 2 + n_irrelevant))
    y = (X[:, 1] > 0.5 + 0.25 * np.sin(2 * np.pi * X[:, 0])).astype(int)
    flip = rng.uniform(size=n) < noise
    y[flip] = 1 - y[flip]
    return X, y


def banknote_like(n: int, seed: int):
    """Four correlated Gaussian features around the class means of the UCI banknote data
    (wavelet variance, skewness, curtosis, entropy), two classes of 55 % / 45 %, nearly separable
    like the real data."""
    rng = np.random.default_rng(seed)
    y = (rng.uniform(size=n) < 0.45).astype(int)
    means = np.array([[2.3, 4.3, 0.8, -1.1], [-1.9, -1.0, 2.1, -1.2]])
    scales = np.array([[1.0, 2.6, 1.6, 1.0], [0.95, 2.7, 2.5, 1.0]])
    correlation = np.array([[1.0, 0.25, -0.4, 0.3], [0.25, 1.0, -0.8, -0.5],
                            [-0.4, -0.8, 1.0, 0.3], [0.3, -0.5, 0.3, 1.0]])
    z = rng.multivariate_normal(np.zeros(4), correlation, size=n)
    return means[y] + scales[y] * z, y


@dataclass(frozen=True)
class BenchDataset:
    """A benchmark dataset: a shared file (``file``, optional feature subset) or a generator
    ``draw(n, seed) -> (X, y)`` with training size ``n`` and known Bayes error if any."""

    label: str
    file: str | None = None
    features: tuple[int, ...] | None = None
    draw: Callable | None = None
    n: int = 0
    bayes_error: float | None = None
    note: str = ""

    def load(self, data_dir: Path):
        import pandas as pd

        path = Path(data_dir) / f"{self.file}.tsv.gz"
        if not path.exists():
            raise FileNotFoundError(f"dataset {self.file!r} not found: {path}")
        frame = pd.read_csv(path, sep="\t")
        X = frame.drop(columns="target").to_numpy(dtype=np.float64)
        if self.features is not None:
            X = X[:, list(self.features)]
        return X, frame["target"].to_numpy()


DATASETS: dict[str, BenchDataset] = {
    "magic": BenchDataset("magic", file="magic"),
    "haberman": BenchDataset("haberman", file="haberman"),
    "titanic": BenchDataset("titanic", file="titanic"),
    "iris": BenchDataset("iris", file="iris"),
    "wdbc": BenchDataset("wdbc", file="wdbc", features=tuple(range(10)),
                         note="features 1-10 of 30 (the cell means)"),
    "banknote_like": BenchDataset("banknote-like (synthetic)", draw=banknote_like, n=1372),
    "smooth_boundary": BenchDataset(
        "smooth boundary, d = 2", draw=smooth_boundary, n=2000, bayes_error=0.1,
        note="x2 = 0.5 + 0.25 sin(2π x1), 10 % label noise"),
    "irrelevant": BenchDataset(
        "smooth boundary + 3 irrelevant, d = 5",
        draw=lambda n, seed: smooth_boundary(n, seed, n_irrelevant=3), n=2000, bayes_error=0.1,
        note="as above plus 3 independent uniform features"),
}
DEFAULT_DATASETS = tuple(DATASETS)


# ------------------------------------------------------------------------ running
@dataclass
class BenchResult:
    """One (dataset, model) cell of the table: per-split accuracy, leaves and fit seconds."""

    dataset: str
    model: str
    n_samples: int
    n_features: int
    accuracy: list[float] = field(default_factory=list)
    leaves: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    error: str | None = None


def _splits(dataset: BenchDataset, data_dir: Path | None):
    """Yield ``(X_train, y_train, X_test, y_test)`` for every evaluation split."""
    if dataset.draw is None:
        from sklearn.model_selection import StratifiedKFold

        X, y = dataset.load(data_dir)
        folds = StratifiedKFold(N_FOLDS, shuffle=True, random_state=0)
        for train, test in folds.split(X, y):
            yield X[train], y[train], X[test], y[test]
    else:
        for seed in range(N_SYNTHETIC_REPEATS):
            X, y = dataset.draw(dataset.n, seed)
            X_test, y_test = dataset.draw(N_SYNTHETIC_TEST, 10_000 + seed)
            yield X, y, X_test, y_test


def time_fit(model, X, y) -> float:
    """Seconds of ``model.fit(X, y)`` (wall clock)."""
    start = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - start


def _warm_up(models: dict[str, BenchModel]) -> None:
    """Compile every numba kernel before timing (tiny fits)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(40, 3))
    y = (X[:, 0] > 0.5).astype(int)
    for spec in models.values():
        spec.make(0).fit(X, y)


def run_benchmark(data_dir: Path | None, datasets=DEFAULT_DATASETS, models=DEFAULT_MODELS,
                  progress: bool = False) -> list[BenchResult]:
    """Fit and score every model on every split of every dataset.

    A model that fails (for example a free DDT over its cell budget) is reported with its error
    instead of stopping the run.
    """
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TimeElapsedColumn

    chosen = {name: MODELS[name] for name in models}
    _warm_up(chosen)
    results = []
    with Progress("[progress.description]{task.description}", BarColumn(), TaskProgressColumn(),
                  TimeElapsedColumn(), disable=not progress) as bar:
        task = bar.add_task("dyadic bench", total=len(datasets) * len(chosen))
        for dataset_name in datasets:
            dataset = DATASETS[dataset_name]
            splits = list(_splits(dataset, data_dir))
            n, d = splits[0][0].shape[0] + splits[0][2].shape[0], splits[0][0].shape[1]
            if dataset.draw is not None:
                n = dataset.n
            for model_name, spec in chosen.items():
                bar.update(task, description=f"{dataset_name}: {model_name}")
                result = BenchResult(dataset_name, model_name, n, d)
                results.append(result)
                if spec.max_features is not None and d > spec.max_features:
                    result.error = f"not run (d > {spec.max_features})"
                elif spec.max_samples is not None and n > spec.max_samples:
                    result.error = f"not run (n > {spec.max_samples:,})"
                if result.error:
                    bar.advance(task)
                    continue
                for seed, (X, y, X_test, y_test) in enumerate(splits):
                    model = spec.make(seed)
                    try:
                        result.seconds.append(time_fit(model, X, y))
                    except ValueError as exc:
                        result.error = str(exc).split(". ")[0]
                        break
                    result.accuracy.append(float(np.mean(model.predict(X_test) == y_test)))
                    result.leaves.append(int(model.get_n_leaves()))
                bar.advance(task)
    return results


def results_table(results: list[BenchResult]) -> list[dict[str, str]]:
    """Rows of the report: dataset, n, d, model, accuracy, leaves, fit time."""
    rows = []
    for r in results:
        dataset = DATASETS[r.dataset]
        row = {"dataset": dataset.label, "n": f"{r.n_samples:,}", "d": str(r.n_features),
               "model": MODELS[r.model].label}
        if r.error or not r.accuracy:
            row.update(accuracy=r.error or "-", leaves="-", seconds="-")
        else:
            row.update(
                accuracy=f"{np.mean(r.accuracy):.3f} ± {np.std(r.accuracy):.3f}",
                leaves=f"{np.mean(r.leaves):.1f}",
                seconds=f"{np.median(r.seconds):.3f}",
            )
        rows.append(row)
    return rows


def speed_targets(data_dir: Path, repeats: int = 3) -> list[dict[str, str]]:
    """The timing targets, best of ``repeats`` fits on the full data: free DDT with d = 10,
    L = 4 on magic (target < 30 s), cyclic DDTs on sonar, d = 60 (target < 5 s), and the
    no-argument ``DyadicTreeClassifier()`` (cross-validation included) at the edge of its target
    range, d = 5 and n = 10,000 (target < 10 s), on the smooth boundary plus 3 irrelevant
    features (seed 0) and on titanic (d = 3, all 2,201 rows).

    With the theory's penalty most cells are provably leaves, so the sonar runs are repeated
    with ``penalty_scale=0``, where T_INIT is grown in full (every two-class cell down to depth
    ``d L``)."""
    from treebound import DyadicTreeClassifier

    def irrelevant(_):
        return smooth_boundary(10_000, 0, n_irrelevant=3)

    runs = [("magic", dict(variant="free", max_resolution=4, penalty_scale=1.0), 30.0),
            ("sonar", dict(variant="cyclic", **THEORY), 5.0),
            ("sonar", dict(variant="cyclic", max_resolution=4, penalty_scale=0.0), 5.0),
            ("sonar", dict(variant="cyclic", max_resolution=8, penalty_scale=0.0), 5.0),
            ("smooth boundary + 3 irrelevant", {}, 10.0),
            ("titanic", {}, 10.0)]
    _warm_up({"free": MODELS["free_ddt"], "cyclic": MODELS["cyclic_ddt"],
              "defaults": MODELS["ddt_defaults"]})
    rows = []
    for name, params, target in runs:
        if name.startswith("smooth"):
            X, y = irrelevant(None)
        else:
            X, y = BenchDataset(name, file=name).load(data_dir)
        seconds = []
        for _ in range(repeats):
            model = DyadicTreeClassifier(**params)
            seconds.append(time_fit(model, X, y))
        label = (f"{params['variant']} DDT on {name}" if params
                 else f"DyadicTreeClassifier() on {name}")
        rows.append({
            "fit": label,
            "n": f"{X.shape[0]:,}",
            "d": str(X.shape[1]),
            "L": str(model.resolution_),
            "penalty_scale": f"{model.penalty_scale_:g}" + (" (CV)" if not params else ""),
            "seconds": f"{min(seconds):.3f}",
            "target": f"< {target:g} s",
            "cells": f"{model.n_cells_evaluated_:,}",
            "leaves": str(model.get_n_leaves()),
            "train accuracy": f"{model.score(X, y):.3f}",
        })
    return rows


def markdown_tables(rows: list[dict[str, str]]) -> str:
    """A list of equal-keyed dicts as a GitHub markdown table."""
    if not rows:
        return ""
    header = list(rows[0])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row[h] for h in header) + " |" for row in rows]
    return "\n".join(lines)
