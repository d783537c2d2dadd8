"""Whether this checkout grows the same trees as an older revision, bit for bit.

Usage::

    python benchmarks/check_same_trees.py --before-commit REV [--out benchmarks/results/same_trees.md]

Fits treebound's classifier and regressor on scikit-learn's bundled datasets (iris, wine,
breast_cancer, digits for classification; diabetes and the first target of linnerud for
regression), each dataset also with 15 % of its values removed at random (seeded), under a grid
of options: every criterion, the splitters ``best``, ``random`` and ``hist``, ``max_features``,
``min_weight_fraction_leaf``, ``monotonic_cst``, ``min_samples_leaf``, sample weights, growth
orders with a leaf budget. Each fit's tree arrays (features, thresholds, values, children, ...)
are hashed; a fit the revision refuses records the refusal. Both checkouts run in child processes
(``PYTHONPATH`` pointing at each), each with its own numba cache; the page lists every
configuration whose trees differ, and counts the identical ones.

A refactoring of the growth kernels must leave every tree unchanged: the page says so or names
the differences. The revision is exported with ``git archive``.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import itertools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

TITLE = "Same trees before and after a change"
CLASSIFICATION = ("iris", "wine", "breast_cancer", "digits")
REGRESSION = ("diabetes", "linnerud")


def _datasets():
    from sklearn import datasets

    out = {}
    for name in CLASSIFICATION + REGRESSION:
        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
        y = y[:, 0] if y.ndim == 2 else y
        out[name] = (np.ascontiguousarray(X, dtype=np.float64), y)
        holes = np.random.default_rng(0).random(X.shape) < 0.15
        X_nan = np.array(X, dtype=np.float64)
        X_nan[holes] = np.nan
        out[f"{name}+nan"] = (X_nan, y)
    return out


def configurations():
    """``(label, task, options, weighted)`` of every fit (the same list in both checkouts)."""
    common = [
        {}, {"splitter": "random"}, {"splitter": "hist", "max_bins": 32}, {"max_features": 3},
        {"min_weight_fraction_leaf": 0.02}, {"min_samples_leaf": 3, "max_depth": 6},
        {"max_leaf_nodes": 20, "growth": "top_down"}, {"max_leaf_nodes": 20,
                                                      "growth": "best_first"},
        {"splitter": "random", "max_features": 2}, {"splitter": "hist", "max_features": 3},
    ]
    out = []
    for criterion, extra in itertools.product(("gini", "entropy"), common):
        out.append((f"classifier {criterion} {extra}", "classification",
                    {"criterion": criterion, **extra}, False))
    out.append(("classifier gini weighted", "classification", {}, True))
    out.append(("classifier gini monotonic", "classification", {"monotonic_cst": "first+"},
                False))
    for criterion, extra in itertools.product(("squared_error", "absolute_error", "poisson"),
                                              common[:7]):
        out.append((f"regressor {criterion} {extra}", "regression",
                    {"criterion": criterion, "max_depth": 8, **extra}, False))
    out.append(("regressor squared_error weighted", "regression", {"max_depth": 8}, True))
    out.append(("regressor squared_error monotonic", "regression",
                {"max_depth": 8, "monotonic_cst": "first+"}, False))
    return out


def _digest(tree) -> str:
    from treebound._flat._storage import TREE_ARRAYS

    tree = getattr(tree, "flat", tree)
    digest = hashlib.sha256()
    for name in (*TREE_ARRAYS, "missing_child"):
        if hasattr(tree, name):
            digest.update(np.ascontiguousarray(getattr(tree, name)).tobytes())
    return digest.hexdigest()[:16]


def child() -> dict:
    """Every configuration's tree hash (or refusal) in this process's treebound."""
    import warnings

    from treebound import DecisionTreeClassifier, DecisionTreeRegressor

    warnings.simplefilter("ignore")
    result = {}
    data = _datasets()
    for name, (X, y) in data.items():
        classification = name.split("+")[0] in CLASSIFICATION
        if not classification and name.startswith("linnerud"):
            y = np.asarray(y, dtype=float)
        for label, task, options, weighted in configurations():
            if (task == "classification") != classification:
                continue
            options = dict(options)
            if options.get("monotonic_cst") == "first+":
                if classification and len(np.unique(y)) > 2:
                    continue
                options["monotonic_cst"] = [1] + [0] * (X.shape[1] - 1)
            if options.get("criterion") == "poisson" and np.min(y) < 0:
                continue
            Tree = DecisionTreeClassifier if classification else DecisionTreeRegressor
            w = np.linspace(0.5, 2.0, X.shape[0]) if weighted else None
            key = f"{name} | {label}"
            try:
                model = Tree(random_state=3, **options)
                model.fit(X, y, sample_weight=w)
                result[key] = _digest(model.tree_)
            except (ValueError, TypeError) as error:
                result[key] = f"refused: {type(error).__name__}: {str(error)[:80]}"
    return result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before-commit", required=False)
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).parent / "results" / "same_trees.md")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child()))
        return
    if not args.before_commit:
        parser.error("--before-commit is required")
    sys.path.insert(0, str(Path(__file__).parent))
    from treebound_lab.provenance import results_header
    from treebound_lab.startup_bench import exported_commit

    root = Path(__file__).resolve().parents[1]
    before = subprocess.run(["git", "rev-parse", "--short=12", args.before_commit], cwd=root,
                            capture_output=True, text=True, check=True).stdout.strip()
    header = results_header(TITLE)
    runs = {}
    with contextlib.ExitStack() as stack:
        sources = {"before": stack.enter_context(exported_commit(args.before_commit)) / "src",
                   "after": root / "src"}
        for label, source in sources.items():
            env = {k: v for k, v in os.environ.items()
                   if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR", "TREEBOUND_CACHE_DIR")}
            env.update(PYTHONPATH=str(source),
                       NUMBA_CACHE_DIR=stack.enter_context(tempfile.TemporaryDirectory()))
            done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child"],
                                  env=env, capture_output=True, text=True, check=True)
            runs[label] = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{label}: {len(runs[label])} fits", flush=True)
    keys = sorted(set(runs["before"]) | set(runs["after"]))
    same = [k for k in keys if runs["before"].get(k) == runs["after"].get(k)]
    refused = [k for k in same if runs["before"][k].startswith("refused")]
    differ = [k for k in keys if k not in same]
    lines = [
        *header,
        f"**before** = commit `{before}` (exported with `git archive`); **after** = the commit "
        "above. Each checkout fits every configuration in a child process with its own numba "
        "cache; a fit's tree arrays are hashed (sha256).",
        "",
        f"- configurations: {len(keys)}; identical trees: {len(same) - len(refused)}; refused "
        f"by both: {len(refused)}; different: {len(differ)}.",
        "",
    ]
    if differ:
        lines += ["| configuration | before | after |", "|---|---|---|"]
        lines += [f"| {k} | {runs['before'].get(k, '-')} | {runs['after'].get(k, '-')} |"
                  for k in differ]
        lines.append("")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out}: {len(differ)} different of {len(keys)}")


if __name__ == "__main__":
    main()
