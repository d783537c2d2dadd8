"""``treebound bench certify``: certificates of three kinds of tree against their test error.

Protocol of ``treebound bench pruning``: for every dataset and split ``i`` (seed ``10 i + 1``,
75/25 ``train_test_split``, every feature taken as real-valued), fit

* ``bound`` — treebound, 40 leaves grown in ``top_down`` order, pruned by the bound (no CV);
* ``ccp_cv`` — the same grown tree pruned by cost-complexity with 10-fold CV;
* ``sklearn_cart_cv`` — scikit-learn's CART grown to purity, ``ccp_alpha`` chosen by 10-fold
  ``GridSearchCV`` over its pruning path (how its users select a tree);
* ``bound_hti`` / ``bound_compression`` — as ``bound`` with a certificate as the selection
  criterion (``pruning_params={"objective": ...}``), to measure which criterion selects better;

then certify each on its training quarter-three with every method (``shawe_taylor``, ``hti``,
``compression``, ``auto``, each at ``delta = 0.05``) and on the held-out quarter with the
test-set bound, and record the test error.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from treebound_lab.cart_peer import SklearnCartCV

__all__ = ["CERTIFICATE_COLUMNS", "MODELS", "RUN_FIELDS", "CertifyTask", "default_datasets",
           "run_split"]

MODELS = ("bound", "ccp_cv", "sklearn_cart_cv", "bound_hti", "bound_compression")
#: Certificate columns: the training-sample methods and the held-out test-set bound.
CERTIFICATE_COLUMNS = ("shawe_taylor", "hti", "compression", "auto", "test_set")
RUN_FIELDS = ["commit", "dataset", "split", "seed", "model", "n_train", "n_test", "n_features",
              "n_classes", "train_error", "test_error", "n_leaves", "fit_seconds",
              "certify_seconds", *CERTIFICATE_COLUMNS]
DELTA = 0.05


@dataclass(frozen=True)
class CertifyTask:
    dataset: str
    split: int
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    models: tuple[str, ...] = MODELS
    max_leaves: int = 40
    growth: str = "top_down"
    commit: str = "unknown"

    @property
    def seed(self) -> int:
        return 10 * self.split + 1

    @property
    def key(self) -> tuple[str, int]:
        return (self.dataset, self.split)


def _fit(model_name: str, task: CertifyTask, X_tr, y_tr):
    from treebound import DecisionTreeClassifier

    settings = {"growth": task.growth, "max_leaf_nodes": task.max_leaves,
                "categorical_features": None, "random_state": task.seed}
    if model_name == "bound":
        return DecisionTreeClassifier(**settings, pruning="bound").fit(X_tr, y_tr)
    if model_name in ("bound_hti", "bound_compression"):
        criterion = model_name.removeprefix("bound_")
        return DecisionTreeClassifier(**settings, pruning="bound",
                                      pruning_params={"objective": criterion}).fit(X_tr, y_tr)
    if model_name == "ccp_cv":
        return DecisionTreeClassifier(**settings, pruning="ccp_cv").fit(X_tr, y_tr)
    if model_name == "sklearn_cart_cv":
        return SklearnCartCV("grid_search", random_state=task.seed).fit(X_tr, y_tr).estimator_
    raise ValueError(f"unknown model {model_name!r}: expected one of {MODELS}")


def run_split(task: CertifyTask) -> list[dict]:
    """Fit every model of the task on one split and certify it; one row per model."""
    from sklearn.model_selection import train_test_split

    from treebound import certify

    X_tr, X_te, y_tr, y_te = train_test_split(task.X, task.y, test_size=0.25,
                                              random_state=task.seed)
    rows = []
    for name in task.models:
        start = time.perf_counter()
        model = _fit(name, task, X_tr, y_tr)
        fit_seconds = time.perf_counter() - start
        row = {"commit": task.commit, "dataset": task.dataset, "split": task.split, "seed": task.seed, "model": name,
               "n_train": len(y_tr), "n_test": len(y_te), "n_features": task.X.shape[1],
               "n_classes": len(np.unique(task.y)),
               "train_error": float(np.mean(model.predict(X_tr) != y_tr)),
               "test_error": float(np.mean(model.predict(X_te) != y_te)),
               "n_leaves": int(model.get_n_leaves()), "fit_seconds": fit_seconds}
        for method in ("shawe_taylor", "hti", "compression"):
            try:
                row[method] = certify(model, X_tr, y_tr, delta=DELTA,
                                      method=method).risk_upper_bound
            except ValueError:  # no compression set (thresholds not midpoints)
                row[method] = math.nan
        start = time.perf_counter()
        row["auto"] = certify(model, X_tr, y_tr, delta=DELTA).risk_upper_bound
        row["certify_seconds"] = time.perf_counter() - start
        row["test_set"] = certify(model, X_te, y_te, delta=DELTA,
                                  method="test_set").risk_upper_bound
        rows.append(row)
    return rows


def default_datasets(data_dir) -> list[str]:
    """The 21 datasets of ``bench pruning``: every shared dataset with at most 10,000 rows,
    plus ``segmentation@210`` (the size Leboeuf et al. used)."""
    from treebound_lab.pruning_bench import default_datasets as pruning_datasets

    names = pruning_datasets(data_dir)
    if "segmentation" in names:
        names.append("segmentation@210")
    return names
