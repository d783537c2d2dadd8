"""The demo behind ``make demo`` / ``treebound demo``: the main job on bundled data, in a minute.

Grow a tree, prune it by its generalization bound (no cross-validation), set it beside
cost-complexity pruning with cross-validation (ours and scikit-learn's CART) on accuracy,
leaves, bound and time, and print the pruned tree's rules.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass


@dataclass
class DemoRow:
    model: str
    test_accuracy: float
    train_accuracy: float
    n_leaves: int
    bound: float
    seconds: float


def tree_risk_bound(model, X, y, *, delta: float = 0.05, variant: str = "tight") -> float:
    """Shawe-Taylor risk bound (Leboeuf et al. Eq. 8) of a fitted binary treebound classifier.

    Uses the tight growth-function bound at ``2m`` and the paper's priors (``r = 2^-13.7``).
    """
    from treebound.theory import (
        log_error_prior,
        log_growth_function_upper_bound,
        log_structure_prior,
        shawe_taylor_bound,
    )

    m = len(y)
    errors = int(round((1.0 - model.score(X, y)) * m))
    log_growth = log_growth_function_upper_bound(
        model.structure(), 2 * m, model.n_features_in_, len(model.classes_), variant=variant)
    return shawe_taylor_bound(m, errors, log_growth, log_error_prior(errors),
                              log_structure_prior(model.get_n_leaves()), delta)


def _cart_cv(X_train, y_train, seed: int):
    """scikit-learn CART pruned by 10-fold cross-validation over its cost-complexity path."""
    import numpy as np
    from sklearn.model_selection import GridSearchCV
    from sklearn.tree import DecisionTreeClassifier as SkTree

    path = SkTree(random_state=seed).cost_complexity_pruning_path(X_train, y_train)
    alphas = np.unique(path.ccp_alphas[:-1])
    search = GridSearchCV(SkTree(random_state=seed), {"ccp_alpha": alphas}, cv=10)
    search.fit(X_train, y_train)
    return search.best_estimator_


def compare_on_split(X, y, seed: int) -> tuple[list[DemoRow], object]:
    """Fit the four models on one stratified 75/25 split; return their rows and the pruned tree."""
    from sklearn.model_selection import train_test_split

    from treebound import DecisionTreeClassifier

    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, random_state=seed, stratify=y)
    rows: list[DemoRow] = []

    def add(name, model, seconds, bound):
        rows.append(DemoRow(name, model.score(X_test, y_test), model.score(X_train, y_train),
                            model.get_n_leaves(), bound, seconds))

    start = time.perf_counter()
    grown = DecisionTreeClassifier(growth="purest_children").fit(X_train, y_train)
    add("treebound: grown to purity", grown, time.perf_counter() - start,
        tree_risk_bound(grown, X_train, y_train))

    start = time.perf_counter()
    pruned = DecisionTreeClassifier(growth="purest_children", pruning="bound").fit(X_train,
                                                                                  y_train)
    add("treebound: bound-pruned, no CV", pruned, time.perf_counter() - start, pruned.bound_)

    start = time.perf_counter()
    ccp = DecisionTreeClassifier(growth="purest_children", pruning="ccp_cv",
                                 random_state=seed).fit(X_train, y_train)
    add("treebound: CCP + 10-fold CV", ccp, time.perf_counter() - start,
        tree_risk_bound(ccp, X_train, y_train))

    start = time.perf_counter()
    cart = _cart_cv(X_train.to_numpy(), y_train.to_numpy(), seed)
    seconds = time.perf_counter() - start
    rows.append(DemoRow("sklearn CART + 10-fold CV", cart.score(X_test.to_numpy(), y_test),
                        cart.score(X_train.to_numpy(), y_train), cart.get_n_leaves(), math.nan,
                        seconds))
    return rows, pruned


def run_demo(seed: int = 0, n_splits: int = 10, echo=print) -> list[DemoRow]:
    """Run the demo on scikit-learn's breast-cancer data and print the comparison.

    One split in detail (seed ``seed``), then means over ``n_splits`` splits (seeds ``seed``,
    ``seed + 1``, ...), then the rules of the bound-pruned tree of the first split.
    """
    import numpy as np
    from rich.console import Console
    from rich.table import Table
    from sklearn.datasets import load_breast_cancer

    from treebound import DecisionTreeClassifier, format_rules

    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target.map(dict(enumerate(data.target_names)))
    # Load the compiled kernels first so that no row's time includes it.
    DecisionTreeClassifier(growth="purest_children", pruning="bound").fit(X[:60], y[:60])
    rows, pruned = compare_on_split(X, y, seed)
    n_train = len(y) - math.ceil(0.25 * len(y))  # train_test_split rounds the test part up

    console = Console(width=max(Console().width, 100))
    table = Table(title=f"Breast cancer (569 rows, 30 features), one 75/25 split (seed {seed})")
    for column in ("model", "test acc", "train acc", "leaves", "risk bound", "fit time"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for r in rows:
        bound = "-" if math.isnan(r.bound) else f"{r.bound:.3f}"
        table.add_row(r.model, f"{r.test_accuracy:.3f}", f"{r.train_accuracy:.3f}",
                      str(r.n_leaves), bound, f"{r.seconds * 1000:.0f} ms")
    console.print(table)

    runs = [rows] + [compare_on_split(X, y, seed + i)[0] for i in range(1, n_splits)]
    summary = Table(title=f"Mean ± std over {n_splits} splits (seeds {seed}..{seed + n_splits - 1})")
    for column in ("model", "test acc", "leaves", "risk bound", "fit time"):
        summary.add_column(column, justify="left" if column == "model" else "right")
    for j, r in enumerate(rows):
        acc = np.array([run[j].test_accuracy for run in runs])
        leaves = np.array([run[j].n_leaves for run in runs])
        bounds = np.array([run[j].bound for run in runs])
        secs = np.array([run[j].seconds for run in runs])
        bound = "-" if np.isnan(bounds).all() else f"{bounds.mean():.3f}"
        summary.add_row(r.model, f"{acc.mean():.3f} ± {acc.std():.3f}",
                        f"{leaves.mean():.1f} ± {leaves.std():.1f}", bound,
                        f"{secs.mean() * 1000:.0f} ms")
    console.print(summary)
    console.print(
        "risk bound: Shawe-Taylor bound (Leboeuf et al. Eq. 8) on the true error, holds with "
        "probability 0.95 ('-' = none). Above 1 it promises nothing for a tree alone at "
        f"{n_train} training rows, but it still ranks trees: bound pruning keeps the one "
        "that minimizes it, with no cross-validation. CCP = cost-complexity pruning.")
    path = ", ".join(f"{n}: {obj:.3f}" for n, obj in pruned.pruning_path_)
    console.print(f"bound along the pruning path (leaves: bound): {path}", markup=False)
    console.print(f"\nRules of the tree pruned by the bound ({pruned.get_n_leaves()} leaves, "
                  f"split seed {seed}):")
    console.print(format_rules(pruned), markup=False)
    return [r for run in runs for r in run]
