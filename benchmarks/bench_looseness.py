"""When is a certificate loose? Many classes, many categorical levels, few rows.

Usage::

    python benchmarks/bench_looseness.py [--splits 5] [--out benchmarks/results/looseness.md]

Every row of the page is a tree pruned by cross-validation (``pruning="ccp_cv"``, the usual way
to choose a tree; the certificate holds whatever chose it), fitted on 75 % of the data and
certified on it (``certificate_``: method ``auto``, ``delta = 0.05``), beside its error on the
held-out 25 %: mean over ``--splits`` random splits. Four sweeps, one factor each, the others
fixed:

* rows: a two-class problem with two numeric features and a Bayes error of 0.10;
* classes: the same number of rows, ``n`` classes by the angle of a 2-D Gaussian point
  (Bayes error 0.10 from label noise), ``n = 2 .. 50``;
* declared levels: one categorical feature whose ``U`` declared levels (a CategoricalDtype) all
  occur, the label depending on a level and a numeric feature;
* scikit-learn's bundled datasets (digits: 10 classes; wine; breast cancer).

No dataset outside scikit-learn is needed. About 5 minutes on 2 shared cores.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.model_selection import train_test_split

from treebound import DecisionTreeClassifier
from treebound.certificates import format_bound
from treebound_lab.provenance import results_header

HERE = Path(__file__).resolve().parent
NOISE = 0.10


def _flip(labels: np.ndarray, n_classes: int, rng) -> np.ndarray:
    noisy = rng.random(labels.shape[0]) < NOISE
    shifted = (labels + rng.integers(1, max(n_classes, 2), labels.shape[0])) % n_classes
    return np.where(noisy, shifted, labels)


def rows_problem(n_rows: int, rng):
    X = rng.uniform(size=(n_rows, 2))
    return pd.DataFrame(X, columns=["a", "b"]), _flip((X[:, 0] > X[:, 1]).astype(int), 2, rng)


def classes_problem(n_classes: int, n_rows: int, rng):
    X = rng.normal(size=(n_rows, 2))
    angle = (np.arctan2(X[:, 1], X[:, 0]) + np.pi) / (2 * np.pi)
    clean = np.minimum((angle * n_classes).astype(int), n_classes - 1)
    return pd.DataFrame(X, columns=["a", "b"]), _flip(clean, n_classes, rng)


def levels_problem(n_levels: int, n_rows: int, rng):
    level = np.concatenate([np.arange(n_levels), rng.integers(0, n_levels, n_rows - n_levels)])
    x = rng.uniform(size=n_rows)
    clean = ((level % 3 == 0) ^ (x > 0.5)).astype(int)
    frame = pd.DataFrame({"x": x, "level": pd.Categorical(level, categories=range(n_levels))})
    return frame, _flip(clean, 2, rng)


def measure(X, y, seed: int) -> dict:
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=seed)
    start = time.perf_counter()
    model = DecisionTreeClassifier(pruning="ccp_cv", random_state=seed).fit(X_train, y_train)
    certificate = model.certificate_
    return {"certificate": certificate.risk_upper_bound,
            "test_error": float(np.mean(model.predict(X_test) != y_test)),
            "training_error": certificate.n_errors / certificate.n_examples,
            "leaves": model.get_n_leaves(), "rows": len(y_train),
            "seconds": time.perf_counter() - start}


def sweep(name: str, settings, make, splits: int) -> list[str]:
    lines = [f"## {name}", "",
             "| setting | training rows | leaves | training error | test error | certificate "
             "(mean) | certificate (max) |",
             "|---|---|---|---|---|---|---|"]
    for label, args in settings:
        runs = []
        for seed in range(splits):
            X, y = make(*args, np.random.default_rng(1000 + seed))
            runs.append(measure(X, y, seed))
        mean = {k: float(np.mean([r[k] for r in runs])) for k in runs[0]}
        worst = max(r["certificate"] for r in runs)
        lines.append(f"| {label} | {mean['rows']:.0f} | {mean['leaves']:.1f} | "
                     f"{mean['training_error']:.3f} | {mean['test_error']:.3f} | "
                     f"{format_bound(mean['certificate'])} | {format_bound(worst)} |")
        print(lines[-1], flush=True)
    return lines + [""]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "looseness.md")
    args = parser.parse_args(argv)
    header = results_header("When a certificate is loose: classes, levels, rows")
    lines = header + [
        "",
        f"Trees pruned by `pruning=\"ccp_cv\"` on 75 % of the rows, certified on them "
        "(`certificate_`, method `auto`, delta = 0.05; certificates rounded up), beside their "
        f"error on the held-out 25 %; mean over {args.splits} random splits (max: the largest "
        f"certificate). Synthetic problems have a Bayes error of {NOISE:.2f} (label noise). "
        "A certificate of 1 promises nothing.",
        "",
    ]
    lines += sweep("Rows (2 classes, 2 numeric features)",
                   [(f"{n:,} rows", (n,)) for n in (100, 300, 1000, 3000, 10000)],
                   rows_problem, args.splits)
    lines += sweep("Classes (2,000 rows, 2 numeric features)",
                   [(f"{n} classes", (n, 2000)) for n in (2, 5, 10, 20, 50)],
                   classes_problem, args.splits)
    lines += sweep("Declared levels of one categorical feature (2,000 rows, plus one numeric "
                   "feature)",
                   [(f"{n} levels", (n, 2000)) for n in (3, 10, 50, 200, 600)],
                   levels_problem, args.splits)
    bundled = {"digits (1,797 rows, 64 features, 10 classes)": load_digits,
               "wine (178 rows, 13 features, 3 classes)": load_wine,
               "breast cancer (569 rows, 30 features, 2 classes)": load_breast_cancer}
    lines += sweep("scikit-learn's bundled datasets",
                   [(name, (loader,)) for name, loader in bundled.items()],
                   lambda loader, rng: loader(return_X_y=True), args.splits)
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
