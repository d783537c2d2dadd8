"""The demo behind ``make demo`` / ``treebound demo``: the main job on bundled data, in a minute.

Grow a tree, prune it by its generalization bound (no cross-validation), set it beside
cost-complexity pruning with cross-validation (ours and scikit-learn's CART) on accuracy,
leaves, bound and time, and print the pruned tree's rules. The ``demo`` command imports this
module when it runs, so what it imports here costs nothing to the other commands.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from rich.console import Console
from rich.table import Table
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.tree import DecisionTreeClassifier as SkTree

from treebound import DecisionTreeClassifier, certify, format_rules
from treebound.certificates import format_bound


@dataclass
class DemoRow:
    model: str
    test_accuracy: float
    train_accuracy: float
    n_leaves: int
    bound: float  # Shawe-Taylor (Leboeuf et al. Eq. 8), what bound pruning minimizes
    certificate: float  # treebound.certify, method "auto"
    seconds: float


def _bounds(model, X_train, y_train) -> tuple[float, float]:
    """Shawe-Taylor bound and certificate of any fitted tree (treebound's or scikit-learn's)."""
    shawe_taylor = certify(model, X_train, y_train, method="shawe_taylor").risk_upper_bound
    return shawe_taylor, certify(model, X_train, y_train).risk_upper_bound


def _cart_cv(X_train, y_train, seed: int):
    """scikit-learn CART pruned by 10-fold cross-validation over its cost-complexity path."""
    path = SkTree(random_state=seed).cost_complexity_pruning_path(X_train, y_train)
    alphas = np.unique(path.ccp_alphas[:-1])
    search = GridSearchCV(SkTree(random_state=seed), {"ccp_alpha": alphas}, cv=10)
    search.fit(X_train, y_train)
    return search.best_estimator_


def compare_on_split(X, y, seed: int) -> tuple[list[DemoRow], object]:
    """Fit the five models on one stratified 75/25 split; return their rows and the pruned tree."""
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, random_state=seed, stratify=y)
    rows: list[DemoRow] = []

    def add(name, model, seconds, X_tr=X_train, X_te=X_test):
        rows.append(DemoRow(name, model.score(X_te, y_test), model.score(X_tr, y_train),
                            model.get_n_leaves(), *_bounds(model, X_tr, y_train), seconds))

    start = time.perf_counter()
    grown = DecisionTreeClassifier().fit(X_train, y_train)
    add("treebound: grown to purity", grown, time.perf_counter() - start)

    start = time.perf_counter()
    pruned = DecisionTreeClassifier(pruning="bound").fit(X_train, y_train)  # library defaults
    add("treebound: bound-pruned, no CV", pruned, time.perf_counter() - start)

    start = time.perf_counter()
    ccp = DecisionTreeClassifier(pruning="ccp_cv", random_state=seed).fit(X_train, y_train)
    add("treebound: CCP + 10-fold CV", ccp, time.perf_counter() - start)

    start = time.perf_counter()  # the same folds; the smallest certificate within one SE
    certified = DecisionTreeClassifier(pruning="certified", random_state=seed).fit(
        X_train, y_train)
    add("treebound: certified selection", certified, time.perf_counter() - start)

    start = time.perf_counter()
    cart = _cart_cv(X_train.to_numpy(), y_train.to_numpy(), seed)
    add("sklearn CART + 10-fold CV", cart, time.perf_counter() - start, X_train.to_numpy(),
        X_test.to_numpy())
    return rows, pruned


def run_demo(seed: int = 0, n_splits: int = 10, echo=print) -> list[DemoRow]:
    """Run the demo on scikit-learn's breast-cancer data and print the comparison.

    One split in detail (seed ``seed``), then means over ``n_splits`` splits (seeds ``seed``,
    ``seed + 1``, ...), then the rules of the bound-pruned tree of the first split.
    """
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target.map(dict(enumerate(data.target_names)))
    # Load the compiled kernels first so that no row's time includes it.
    DecisionTreeClassifier(pruning="bound").fit(X[:60], y[:60])
    rows, pruned = compare_on_split(X, y, seed)
    n_train = len(y) - math.ceil(0.25 * len(y))  # train_test_split rounds the test part up

    console = Console(width=max(Console().width, 130))
    table = Table(title=f"Breast cancer (569 rows, 30 features), one 75/25 split (seed {seed})")
    for column in ("model", "test acc", "train acc", "leaves", "Shawe-Taylor", "certificate",
                   "fit time"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for r in rows:
        table.add_row(r.model, f"{r.test_accuracy:.3f}", f"{r.train_accuracy:.3f}",
                      str(r.n_leaves), format_bound(r.bound), format_bound(r.certificate),
                      f"{r.seconds * 1000:.0f} ms")
    console.print(table)

    runs = [rows] + [compare_on_split(X, y, seed + i)[0] for i in range(1, n_splits)]
    summary = Table(title=f"Mean ± std over {n_splits} splits (seeds {seed}..{seed + n_splits - 1})")
    for column in ("model", "test acc", "leaves", "Shawe-Taylor", "certificate",
                   "test error <= cert.", "fit time"):
        summary.add_column(column, justify="left" if column == "model" else "right")
    for j, r in enumerate(rows):
        acc = np.array([run[j].test_accuracy for run in runs])
        leaves = np.array([run[j].n_leaves for run in runs])
        bounds = np.array([run[j].bound for run in runs])
        certificates = np.array([run[j].certificate for run in runs])
        secs = np.array([run[j].seconds for run in runs])
        covered = np.count_nonzero(1.0 - acc <= certificates)
        summary.add_row(r.model, f"{acc.mean():.3f} ± {acc.std():.3f}",
                        f"{leaves.mean():.1f} ± {leaves.std():.1f}", format_bound(bounds.mean()),
                        format_bound(certificates.mean()), f"{covered}/{n_splits}",
                        f"{secs.mean() * 1000:.0f} ms")
    console.print(summary)
    console.print(
        "certificate: treebound.certify, with probability 0.95 the tree's error on new data is "
        "at most this (rounded up; hypergeometric tail inversion or sample compression, each at "
        "delta/2, "
        f"valid for any tree fit on these {n_train} rows, scikit-learn's included). "
        "Shawe-Taylor: the bound of Leboeuf et al. Eq. 8 that bound pruning minimizes; above 1 "
        "it promises nothing, but it still ranks trees, with no cross-validation. "
        "CCP = cost-complexity pruning. Certified selection: among the trees of the CCP path "
        "whose CV error is within 0.6 standard errors of the best, the smallest certificate. "
        "Which rule: certified selection (its default) for the best guarantee at near-best "
        "accuracy, certified selection with pruning_params={'n_se': 0} (or CCP + CV) for the "
        "best accuracy (benchmarks/results/selection.md, 21 datasets).")
    console.print(f"\nCertificate of the bound-pruned tree (split seed {seed}): "
                  f"{pruned.certificate_}", markup=False)
    path = ", ".join(f"{n}: {format_bound(obj)}" for n, obj in pruned.pruning_path_)
    console.print(f"bound along the pruning path (leaves: bound): {path}", markup=False)
    console.print(f"\nRules of the tree pruned by the bound ({pruned.get_n_leaves()} leaves, "
                  f"split seed {seed}):")
    console.print(format_rules(pruned), markup=False)
    return [r for run in runs for r in run]
