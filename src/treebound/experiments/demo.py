"""The demo behind ``make demo`` / ``treebound demo``: the main job on bundled data, in a minute.

Grow a tree, compute its generalization bound, set it beside CART with cross-validated
cost-complexity pruning (accuracy, leaves, bound, time) and print its rules.
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


def run_demo(seed: int = 0, echo=print) -> list[DemoRow]:
    """Run the demo on scikit-learn's breast-cancer data and print a comparison table."""
    from rich.console import Console
    from rich.table import Table
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    from treebound import DecisionTreeClassifier, format_rules

    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target.map(dict(enumerate(data.target_names)))
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, random_state=seed, stratify=y)
    rows: list[DemoRow] = []

    start = time.perf_counter()
    grown = DecisionTreeClassifier(growth="top_down").fit(X_train, y_train)
    seconds = time.perf_counter() - start
    rows.append(DemoRow("treebound, grown to purity", grown.score(X_test, y_test),
                        grown.score(X_train, y_train), grown.get_n_leaves(),
                        tree_risk_bound(grown, X_train, y_train), seconds))

    start = time.perf_counter()
    small = DecisionTreeClassifier(growth="top_down", max_leaf_nodes=8).fit(X_train, y_train)
    seconds = time.perf_counter() - start
    rows.append(DemoRow("treebound, 8 leaves (top_down)", small.score(X_test, y_test),
                        small.score(X_train, y_train), small.get_n_leaves(),
                        tree_risk_bound(small, X_train, y_train), seconds))

    start = time.perf_counter()
    cart = _cart_cv(X_train.to_numpy(), y_train.to_numpy(), seed)
    seconds = time.perf_counter() - start
    rows.append(DemoRow("scikit-learn CART + 10-fold CV", cart.score(X_test.to_numpy(), y_test),
                        cart.score(X_train.to_numpy(), y_train), cart.get_n_leaves(), math.nan,
                        seconds))

    console = Console()
    table = Table(title=f"Breast cancer (569 rows, 30 features), 75/25 split, seed {seed}")
    for column in ("model", "test acc", "train acc", "leaves", "risk bound", "fit time"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for r in rows:
        bound = "-" if math.isnan(r.bound) else f"{r.bound:.3f}"
        table.add_row(r.model, f"{r.test_accuracy:.3f}", f"{r.train_accuracy:.3f}",
                      str(r.n_leaves), bound, f"{r.seconds * 1000:.0f} ms")
    console.print(table)
    console.print("risk bound: Shawe-Taylor bound (Leboeuf et al. Eq. 8) on the true error, "
                  "holds with probability 0.95; '-' = no bound available.")
    console.print("\nRules of the 8-leaf tree:")
    console.print(format_rules(small), markup=False)
    return rows
