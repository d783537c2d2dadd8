"""Fits that ``test_pure_python_kernels.py`` runs twice: with the kernels compiled, and in a
subprocess with ``NUMBA_DISABLE_JIT=1``. Prints one JSON document of their results."""

from __future__ import annotations

import json
import sys

import numpy as np
from scipy import sparse
from sklearn.datasets import load_iris

from treebound import DecisionTreeClassifier, DecisionTreeRegressor

SPLITTERS = ("best", "random", "hist")
GROWTHS = ("depth_first", "top_down", "best_first")


def data():
    """Iris with a noisy copy of the class: 150 distinct values (histogram codes up to 149: a code times the
    class count passes 255) and one value in ten missing (seeded), so every NaN path runs."""
    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(0)
    X = np.column_stack([X, y + rng.normal(0.0, 0.7, X.shape[0])])
    holes = rng.random(X.shape) < 0.1
    X_missing = X.copy()
    X_missing[holes] = np.nan
    return X, X_missing, y


def results() -> dict:
    """Every fitted model's JSON form, predictions and certificate, keyed by its settings."""
    X, X_missing, y = data()
    out = {}
    for splitter in SPLITTERS:
        for growth in GROWTHS:
            for name, rows in (("dense", X), ("missing", X_missing), ("sparse", sparse.csr_matrix(X))):
                if name == "sparse" and splitter == "random":
                    continue
                params = dict(splitter=splitter, growth=growth, max_leaf_nodes=8, random_state=0)
                clf = DecisionTreeClassifier(**params).fit(rows, y)
                reg = DecisionTreeRegressor(**params).fit(rows, y.astype(np.float64) / 2.0)
                out[f"{splitter}/{growth}/{name}"] = {
                    "classifier": clf.tree_.to_dict(),
                    "proba": clf.predict_proba(rows).tolist(),
                    "certificate": clf.certificate_.to_dict(),
                    "regressor": reg.tree_.to_dict(),
                    "prediction": reg.predict(rows).tolist(),
                }
    return out


if __name__ == "__main__":
    json.dump(results(), sys.stdout, sort_keys=True)
