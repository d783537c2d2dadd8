"""Fit and predict speed of treebound against scikit-learn, in the same process.

Usage::

    python benchmarks/bench_fit.py --data-dir ../shared/datasets [--datasets adult,magic]
        [--splits 3] [--repeats 3] [--out benchmarks/results/fit.md]
    python benchmarks/bench_fit.py --data-dir ../shared/datasets --before-commit REV
        [--rounds 2] [--out benchmarks/results/fit_before_after.md]

For every dataset, train/test split (75/25, seeds 0..splits-1) and setting (full depth;
``max_leaf_nodes=255``), it times ``fit`` of scikit-learn's ``DecisionTreeClassifier``,
treebound's exact splitter and treebound's histogram splitter (``max_bins=255``), and ``predict``
of both exact models; times are the minimum over ``--repeats`` runs (CPU time of this process,
single-threaded: BLAS threads are pinned to 1) and speed is reported as the ratio treebound /
scikit-learn of the summed times.

With the ``bench`` extra installed (``pip install -e ".[bench]"``), LightGBM is a second peer in
the ``max_leaf_nodes=255`` setting: one boosting round of ``num_leaves=255`` with learning rate 1,
no bagging or feature sampling, ``min_child_samples=1`` and ``min_child_weight=0`` (like
treebound's ``min_samples_leaf=1``), ``max_bin=255``, one thread; its binning is part of its fit
time, as treebound's is of ours. One round is one tree for two classes and one tree per class
otherwise (LightGBM grows no multi-class tree). Without LightGBM that table is skipped with a
message. Test accuracy is the mean over the splits. Numba compile time
is excluded from the ratios and reported separately (cold compile in a fresh cache directory,
and loading the on-disk cache).

With ``--before-commit REV`` it compares treebound's fit and predict speed with an older revision in
one run (:func:`before_after`): the revision is exported with ``git archive``, and both checkouts
are timed in child processes that alternate (``--rounds`` each, order swapped every round, each
checkout with its own numba cache), on the same splits and settings, with scikit-learn timed in
every child as a peer. The page also says whether both checkouts grew identical trees (a hash of
every tree's arrays).

Targets (issue 2): exact fit <= 1.0x, histogram fit <= 0.3x with test accuracy within 0.5
points of scikit-learn's, predict <= 1.0x. Target (issue 12): histogram fit <= 1.0x LightGBM.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import hashlib  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from functools import partial  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

DEFAULT_DATASETS = ("adult", "magic", "letter", "connect_4", "shuttle", "kddcup")
SETTINGS = (("full depth", None), ("max_leaf_nodes=255", 255))
#: The setting LightGBM is timed in (a leaf-wise tree of 255 leaves, like treebound's top_down).
LIGHTGBM_BUDGET = 255
LIGHTGBM_PARAMS = dict(n_estimators=1, num_leaves=255, learning_rate=1.0, max_bin=255,
                       min_child_samples=1, min_child_weight=0.0, subsample=1.0, subsample_freq=0,
                       colsample_bytree=1.0, n_jobs=1, deterministic=True, verbose=-1)


def lightgbm_or_none():
    """The lightgbm module, or None (with a message) when the ``bench`` extra is missing."""
    try:
        import lightgbm
    except ImportError:
        print("LightGBM is not installed: skipping it as a peer "
              "(pip install -e \".[bench]\" to include it)")
        return None
    return lightgbm


def best_time(fn, repeats: int) -> tuple[float, object]:
    best, result = np.inf, None
    for _ in range(repeats):
        start = time.process_time()
        result = fn()
        best = min(best, time.process_time() - start)
    return best, result


def compile_times() -> tuple[float, float]:
    """Seconds for a first tiny fit+predict: cold (empty numba cache) and warm (cache on disk)."""
    code = ("import time, numpy as np; t = time.perf_counter(); "
            "from treebound import DecisionTreeClassifier as T; "
            "X = np.random.rand(60, 3); y = np.arange(60) % 2; "
            "[T(max_leaf_nodes=m, **s).fit(X, y).predict(X) "
            "for s in ({}, {'splitter': 'hist'}) for m in (None, 8)]; "
            "print(time.perf_counter() - t)")
    results = []
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for _ in range(2):  # first run compiles into the empty cache, second loads it
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                 text=True, check=True)
            results.append(float(out.stdout.strip().splitlines()[-1]))
    return results[0], results[1]


def load(data_dir: Path, name: str):
    frame = pd.read_csv(data_dir / f"{name}.tsv.gz", sep="\t")
    X = frame.drop(columns="target").to_numpy(dtype=np.float64)
    y = frame["target"].to_numpy()
    return X, y


def _estimator_splitter(kind: str, Tree) -> str:
    """The estimator's splitter for a timed kind: "hist", or the exact greedy search, which is
    the default of every revision (named "exact" before scikit-learn's "best"), so that
    ``--before-commit`` runs an older revision with the name it knows."""
    if kind == "hist":
        return "hist"
    return inspect.signature(Tree).parameters["splitter"].default


def _fit(kind: str, budget, growth: str, seed: int, X, y, lightgbm=None):
    from sklearn.tree import DecisionTreeClassifier as SkTree

    from treebound import DecisionTreeClassifier as Tree

    if kind == "sk":
        return SkTree(max_leaf_nodes=budget, random_state=seed).fit(X, y)
    if kind == "lgbm":
        return lightgbm.LGBMClassifier(random_state=seed, **LIGHTGBM_PARAMS).fit(X, y)
    splitter = _estimator_splitter(kind, Tree)
    return Tree(max_leaf_nodes=budget, growth=growth, splitter=splitter, max_bins=255).fit(X, y)


def _n_leaves(kind: str, model) -> float:
    if kind == "lgbm":  # leaves per tree (one tree per class for more than two classes)
        trees = model.booster_.dump_model()["tree_info"]
        return float(np.mean([tree["num_leaves"] for tree in trees]))
    return model.get_n_leaves()


def run(data_dir: Path, datasets, splits: int, repeats: int, echo=print,
        lightgbm=None) -> list[dict]:
    from sklearn.model_selection import train_test_split

    from treebound import DecisionTreeClassifier as Tree

    # warm up every kernel signature used below (compile time is reported separately)
    Xw, yw = np.random.default_rng(0).random((80, 3)), np.arange(80) % 3
    for kind in ("exact", "hist"):
        for budget in (None, 8):
            Tree(splitter=_estimator_splitter(kind, Tree), max_leaf_nodes=budget,
                 growth="top_down").fit(Xw, yw) \
                .predict(Xw)
    rows = []
    for name in datasets:
        X, y = load(data_dir, name)
        for label, budget in SETTINGS:
            kinds = ("sk", "exact", "hist")
            if lightgbm is not None and budget == LIGHTGBM_BUDGET:
                kinds += ("lgbm",)
            acc = {key: [] for key in kinds}
            t = {key: 0.0 for key in kinds} | {"sk_pred": 0.0, "exact_pred": 0.0}
            leaves = {key: [] for key in kinds}
            for seed in range(splits):
                X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25,
                                                          random_state=seed)
                growth = "depth_first" if budget is None else "top_down"
                fitted = {}
                for key in kinds:
                    make = partial(_fit, key, budget, growth, seed, X_tr, y_tr, lightgbm)
                    seconds, fitted[key] = best_time(make, repeats)
                    t[key] += seconds
                    acc[key].append(fitted[key].score(X_te, y_te))
                    leaves[key].append(_n_leaves(key, fitted[key]))
                for key in ("sk", "exact"):
                    seconds, _ = best_time(partial(fitted[key].predict, X_te), repeats + 2)
                    t[f"{key}_pred"] += seconds
            row = {
                "dataset": name, "rows": X.shape[0], "features": X.shape[1],
                "classes": len(np.unique(y)), "setting": label,
                "sk_fit_s": t["sk"] / splits, "exact_fit_s": t["exact"] / splits,
                "hist_fit_s": t["hist"] / splits,
                "exact_ratio": t["exact"] / t["sk"], "hist_ratio": t["hist"] / t["sk"],
                "predict_ratio": t["exact_pred"] / t["sk_pred"],
                "sk_acc": float(np.mean(acc["sk"])), "exact_acc": float(np.mean(acc["exact"])),
                "hist_acc": float(np.mean(acc["hist"])),
                "sk_leaves": float(np.mean(leaves["sk"])),
                "exact_leaves": float(np.mean(leaves["exact"])),
                "hist_leaves": float(np.mean(leaves["hist"])),
            }
            if "lgbm" in kinds:
                row |= {"lgbm_fit_s": t["lgbm"] / splits, "lgbm_ratio": t["hist"] / t["lgbm"],
                        "lgbm_acc": float(np.mean(acc["lgbm"])),
                        "lgbm_leaves": float(np.mean(leaves["lgbm"])),
                        "lgbm_trees": fitted["lgbm"].booster_.num_trees()}
            rows.append(row)
            echo(f"{name:10s} {label:20s} exact {row['exact_ratio']:.2f}x  "
                 f"hist {row['hist_ratio']:.2f}x  predict {row['predict_ratio']:.2f}x  "
                 f"acc sk {row['sk_acc']:.4f} exact {row['exact_acc']:.4f} "
                 f"hist {row['hist_acc']:.4f}" + (
                     f"  | hist / LightGBM {row['lgbm_ratio']:.2f}x acc {row['lgbm_acc']:.4f}"
                     if "lgbm" in kinds else ""))
    return rows


def to_markdown(rows, header: list[str], cold: float, warm: float, splits: int, repeats: int,
                lightgbm_version: str | None = None) -> str:
    """The page: ``header`` (:func:`~treebound_lab.provenance.results_header`, taken
    before the run), the protocol, the table against scikit-learn and the LightGBM section."""
    out = [
        *header,
        f"Each cell: 75/25 splits with seeds 0..{splits - 1}; fit/predict times are the minimum "
        f"CPU time over {repeats} runs, summed over the splits; ratio = treebound / "
        "scikit-learn in the same process (lower is faster). Accuracy: mean test accuracy "
        "over the splits. Full depth: treebound `growth=\"depth_first\"`; "
        "`max_leaf_nodes=255`: treebound `growth=\"top_down\"` (scikit-learn's best-first order "
        "by impurity decrease). Histogram mode: `splitter=\"hist\", max_bins=255`.",
        "",
        "| dataset | rows | feat | classes | setting | sklearn fit (s) | exact fit | hist fit "
        "| predict | acc sklearn | acc exact | acc hist | leaves sk / ex / hist |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['dataset']} | {r['rows']} | {r['features']} | {r['classes']} | "
            f"{r['setting']} | {r['sk_fit_s']:.3f} | {r['exact_ratio']:.2f}x | "
            f"{r['hist_ratio']:.2f}x | {r['predict_ratio']:.2f}x | {r['sk_acc']:.4f} | "
            f"{r['exact_acc']:.4f} | {r['hist_acc']:.4f} | "
            f"{r['sk_leaves']:.0f} / {r['exact_leaves']:.0f} / {r['hist_leaves']:.0f} |")
    exact_ok = all(r["exact_ratio"] <= 1.0 for r in rows)
    hist_ok = all(r["hist_ratio"] <= 0.3 for r in rows)
    acc_ok = all(r["hist_acc"] >= r["sk_acc"] - 0.005 for r in rows)
    pred_ok = all(r["predict_ratio"] <= 1.0 for r in rows)
    worst = lambda key: max(r[key] for r in rows)  # noqa: E731
    out += [
        "",
        "Targets (issue 2):",
        "",
        f"- exact fit <= 1.0x: {'met' if exact_ok else 'NOT met'} (worst "
        f"{worst('exact_ratio'):.2f}x)",
        f"- histogram fit <= 0.3x: {'met' if hist_ok else 'NOT met'} (worst "
        f"{worst('hist_ratio'):.2f}x)",
        f"- histogram accuracy within 0.5 points of scikit-learn: "
        f"{'met' if acc_ok else 'NOT met'} (largest shortfall "
        f"{max(r['sk_acc'] - r['hist_acc'] for r in rows) * 100:.2f} points)",
        f"- predict <= 1.0x: {'met' if pred_ok else 'NOT met'} (worst "
        f"{worst('predict_ratio'):.2f}x)",
        "",
    ]
    out += _lightgbm_section(rows, lightgbm_version)
    out += [
        f"Numba compile time (excluded above): {cold:.1f} s for the first fit with an empty "
        f"cache, {warm:.1f} s to load the cached kernels in a new process.",
        "",
    ]
    return "\n".join(out)


def _lightgbm_section(rows, version: str | None) -> list[str]:
    peer = [r for r in rows if "lgbm_ratio" in r]
    if version is None or not peer:
        return ["LightGBM: not installed when this file was generated (the `bench` extra), so "
                "not compared.", ""]
    ok = all(r["lgbm_ratio"] <= 1.0 for r in peer)
    out = [
        f"## Histogram fit against LightGBM {version} (`max_leaf_nodes=255`)",
        "",
        "Same splits, same process, same timing as above. LightGBM: one boosting round with "
        "`num_leaves=255`, learning rate 1, no bagging or feature sampling, "
        "`min_child_samples=1`, `min_child_weight=0`, `max_bin=255`, one thread (binning "
        "included in its fit, as ours is). One round is one tree for two classes and one tree "
        "per class otherwise. Ratio = treebound `splitter=\"hist\"` / LightGBM.",
        "",
        "| dataset | classes | LightGBM fit (s) | hist / LightGBM | acc hist | acc LightGBM "
        "| trees | leaves per tree (LightGBM) | leaves (hist) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in peer:
        out.append(
            f"| {r['dataset']} | {r['classes']} | {r['lgbm_fit_s']:.3f} | {r['lgbm_ratio']:.2f}x "
            f"| {r['hist_acc']:.4f} | {r['lgbm_acc']:.4f} | {r['lgbm_trees']} | "
            f"{r['lgbm_leaves']:.0f} | {r['hist_leaves']:.0f} |")
    out += ["", f"- histogram fit <= 1.0x LightGBM on every dataset: "
                f"{'met' if ok else 'NOT met'} (worst {max(r['lgbm_ratio'] for r in peer):.2f}x)",
            ""]
    return out


TITLE = "Fit and predict speed against scikit-learn"
BEFORE_AFTER_TITLE = "Fit speed before and after a change"
#: What the before/after comparison times: scikit-learn (the in-process peer), treebound's
#: ``fit`` with each splitter, the growth alone (``fit`` also certifies the tree), and
#: ``predict`` of scikit-learn's and treebound's exact trees on the test rows.
_COMPARED = ("sk", "exact", "hist", "exact_grow", "hist_grow", "sk_pred", "exact_pred")
_LABELS = {"exact": "exact fit", "exact_grow": "exact growth", "hist": "hist fit",
           "hist_grow": "hist growth", "exact_pred": "exact predict"}
#: The scikit-learn time each timed step is compared with (its fit, or its predict).
_PEER = {"exact_pred": "sk_pred"}
#: The tree arrays hashed to compare two revisions: those every revision has (a later array
#: such as ``missing_child``, derived from these on data without NaN, would make every hash
#: differ).
_HASHED_ARRAYS = ("first_child", "n_children", "feature", "threshold", "category_offset",
                  "category_child", "value", "impurity", "n_node_samples",
                  "weighted_n_node_samples", "n_categories")


def _grow_only(splitter: str, budget, growth: str, X, y_index, n_classes: int):
    """treebound's growth alone (coding the features and growing, no certificate)."""
    from treebound.tree._builder import GrowthSettings, grow

    settings = GrowthSettings(growth=growth, splitter=splitter, max_bins=255,
                              max_leaf_nodes=budget)
    return grow(X, y_index, np.ones(X.shape[0]), np.zeros(X.shape[1], dtype=np.int64), settings,
                n_classes=n_classes)


def fit_timings(data_dir: Path, datasets, splits: int, repeats: int) -> dict:
    """Fit times of scikit-learn and of treebound's two splitters, and treebound's growth
    alone (one child process of :func:`before_after`, running whichever treebound
    ``PYTHONPATH`` points at), with a hash of every fitted tree's arrays per cell and the time
    of the first (warm-up) fits."""
    from sklearn.model_selection import train_test_split

    from treebound import DecisionTreeClassifier as Tree

    wall, cpu = time.perf_counter(), time.process_time()
    Xw, yw = np.random.default_rng(0).random((80, 3)), np.arange(80) % 3
    for kind in ("exact", "hist"):
        for budget in (None, 8):
            Tree(splitter=_estimator_splitter(kind, Tree), max_leaf_nodes=budget,
                 growth="top_down").fit(Xw, yw)
    result = {"warmup_wall": time.perf_counter() - wall, "warmup_cpu": time.process_time() - cpu,
              "cells": []}
    for name in datasets:
        X, y = load(data_dir, name)
        for label, budget in SETTINGS:
            growth = "depth_first" if budget is None else "top_down"
            seconds = dict.fromkeys(_COMPARED, 0.0)
            digest = hashlib.sha256()
            for seed in range(splits):
                X_tr, X_te, y_tr, _ = train_test_split(X, y, test_size=0.25, random_state=seed)
                classes, y_index = np.unique(y_tr, return_inverse=True)
                y_index = y_index.astype(np.int32)
                models = {}
                for key in _COMPARED:
                    if key.endswith("_pred"):
                        t, _ = best_time(partial(models[key.removesuffix("_pred")].predict,
                                                 X_te), repeats + 2)
                        seconds[key] += t
                        continue
                    if key.endswith("_grow"):
                        make = partial(_grow_only, key.removesuffix("_grow"), budget, growth,
                                       X_tr, y_index, len(classes))
                    else:
                        make = partial(_fit, key, budget, growth, seed, X_tr, y_tr)
                    t, fitted = best_time(make, repeats)
                    seconds[key] += t
                    models[key] = fitted
                    if key != "sk":
                        tree = fitted if key.endswith("_grow") else fitted.tree_
                        tree = getattr(tree, "flat", tree)  # the flat tree of any revision
                        for array in _HASHED_ARRAYS:
                            digest.update(np.ascontiguousarray(getattr(tree, array)).tobytes())
            result["cells"].append({"dataset": name, "setting": label, **seconds,
                                    "trees": digest.hexdigest()})
    return result


def before_after(data_dir: Path, datasets, splits: int, repeats: int, rounds: int,
                 before_commit: str, out: Path, echo=print) -> str:
    """Time this checkout and ``before_commit`` in alternating child processes; write the page
    to ``out`` and return its text."""
    from treebound_lab.machine import load_averages
    from treebound_lab.provenance import results_header
    from treebound_lab.startup_bench import exported_commit

    root = Path(__file__).resolve().parents[1]
    before_short = subprocess.run(["git", "rev-parse", "--short=12", before_commit], cwd=root,
                                  capture_output=True, text=True, check=True).stdout.strip()
    header = results_header(BEFORE_AFTER_TITLE)  # before the run: the load it starts under
    load_before = load_averages()
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    with contextlib.ExitStack() as stack:
        sources = {"before": stack.enter_context(exported_commit(before_commit)) / "src",
                   "after": root / "src"}
        caches = {label: stack.enter_context(tempfile.TemporaryDirectory()) for label in runs}
        for r in range(rounds):
            for label in ("before", "after") if r % 2 == 0 else ("after", "before"):
                env = {k: v for k, v in os.environ.items()
                       if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR", "TREEBOUND_CACHE_DIR")}
                env.update(PYTHONPATH=str(sources[label]), NUMBA_CACHE_DIR=caches[label])
                command = [sys.executable, str(Path(__file__).resolve()), "--child",
                           "--data-dir", str(data_dir), "--datasets", ",".join(datasets),
                           "--splits", str(splits), "--repeats", str(repeats)]
                done = subprocess.run(command, env=env, capture_output=True, text=True,
                                      check=True)
                runs[label].append(json.loads(done.stdout.strip().splitlines()[-1]))
                cells = runs[label][-1]["cells"]
                echo(f"round {r + 1} {label:6s}: exact {sum(c['exact'] for c in cells):.2f} s, "
                     f"hist {sum(c['hist'] for c in cells):.2f} s, scikit-learn "
                     f"{sum(c['sk'] for c in cells):.2f} s")
    load_after = load_averages()
    text = before_after_markdown(runs, header, before_short, (load_before, load_after), splits,
                                 repeats, rounds)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return text


def before_after_markdown(runs: dict, header: list[str], before: str, loads: tuple[str, str],
                          splits: int, repeats: int, rounds: int) -> str:
    """The page of :func:`before_after`: per cell and timed step, the fastest time of each
    checkout over the rounds, after / before, and each checkout's time over scikit-learn's."""
    def best(label, i, key):
        return min(run["cells"][i][key] for run in runs[label])

    cells = runs["after"][0]["cells"]
    out = list(header) + [
        f"**before** = commit `{before}` (exported with `git archive`); **after** = the commit "
        "above. Load average (1, 5, 15 min) before the run: "
        f"{loads[0]}; after: {loads[1]} (2 cores shared with other jobs).",
        "",
        f"Both checkouts run in child processes that alternate, {rounds} per checkout (the order "
        "swapped every round), each checkout with its own numba cache; the first child of each "
        "compiles its kernels (outside the timings). Each child times scikit-learn's "
        "`DecisionTreeClassifier.fit`, treebound's `fit` with `splitter=\"exact\"` and "
        "`splitter=\"hist\", max_bins=255` (which also certifies the tree), and treebound's "
        "growth alone (`treebound.tree._builder.grow`: coding the features and growing the "
        f"tree) on 75/25 splits with seeds 0..{splits - 1}: minimum CPU time over {repeats} "
        "runs, summed over the splits; a cell shows the fastest child of each checkout. "
        "*after / before* compares the two checkouts directly; */ sklearn* is each checkout's "
        "time over scikit-learn's in the same child (less sensitive to the load): its fit, or "
        f"for *exact predict* its `predict` of the same test rows (minimum over {repeats + 2} "
        "runs). Full depth: `growth=\"depth_first\"`; `max_leaf_nodes=255`: "
        "`growth=\"top_down\"`.",
        "",
        "| dataset | setting | timed | sklearn (s) | before (s) | after (s) | after / before "
        "| before / sklearn | after / sklearn | identical trees |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    totals = {(label, key): 0.0 for label in runs for key in _COMPARED}
    log_ratios: dict[str, list[float]] = {key: [] for key in _LABELS}
    identical_all = True
    for i, cell in enumerate(cells):
        t = {(label, key): best(label, i, key) for label in runs for key in _COMPARED}
        for k, v in t.items():
            totals[k] += v
        digests = {run["cells"][i]["trees"] for label in runs for run in runs[label]}
        identical = len(digests) == 1
        identical_all &= identical
        for key, what in _LABELS.items():
            peer = _PEER.get(key, "sk")
            ratio = t["after", key] / t["before", key]
            log_ratios[key].append(float(np.log(ratio)))
            out.append(
                f"| {cell['dataset']} | {cell['setting']} | {what} | {t['after', peer]:.4f} | "
                f"{t['before', key]:.4f} | {t['after', key]:.4f} | {ratio:.3f} | "
                f"{t['before', key] / t['before', peer]:.3f} | "
                f"{t['after', key] / t['after', peer]:.3f} | {'yes' if identical else 'NO'} |")
    out += ["", "Summary (all cells):", ""]
    for key, what in _LABELS.items():
        total = totals["after", key] / totals["before", key]
        mean = float(np.exp(np.mean(log_ratios[key])))
        peer = _PEER.get(key, "sk")
        out.append(
            f"- {what}: after / before {total:.3f} (sum of times), geometric mean of the cells "
            f"{mean:.3f}; over scikit-learn: before "
            f"{totals['before', key] / totals['before', peer]:.3f}, after "
            f"{totals['after', key] / totals['after', peer]:.3f}")
    out.append("- identical trees (every array of every tree, fitted and grown) in every cell "
               f"and round: {'yes' if identical_all else 'NO'}")
    first = {label: runs[label][0] for label in runs}
    later = {label: [run["warmup_wall"] for run in runs[label][1:]] for label in runs}
    out.append(
        "- first fits in a new process (kernels compiled into an empty cache): before "
        f"{first['before']['warmup_wall']:.1f} s wall ({first['before']['warmup_cpu']:.1f} s "
        f"CPU), after {first['after']['warmup_wall']:.1f} s wall "
        f"({first['after']['warmup_cpu']:.1f} s CPU)" + (
            f"; with the cache loaded: before {min(later['before']):.1f} s, after "
            f"{min(later['after']):.1f} s wall" if later["before"] and later["after"] else ""))
    out.append("")
    return "\n".join(out)

def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--datasets", default=",".join(DEFAULT_DATASETS))
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path,
                        help="Results page (default results/fit.md, or "
                             "results/fit_before_after.md with --before-commit).")
    parser.add_argument("--before-commit",
                        help="Compare treebound's fit speed with this revision (exported with "
                             "git archive) in one run, instead of the comparison with peers.")
    parser.add_argument("--rounds", type=int, default=2,
                        help="Child processes per checkout with --before-commit.")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    datasets = [d for d in args.datasets.split(",") if d]
    missing = [d for d in datasets if not (args.data_dir / f"{d}.tsv.gz").exists()]
    if missing:
        parser.error(f"datasets not found in {args.data_dir}: {missing}")
    results = Path(__file__).parent / "results"
    if args.child:  # one child process of before_after: timings as JSON on the last line
        print(json.dumps(fit_timings(args.data_dir, datasets, args.splits, args.repeats)))
        return
    if args.before_commit:
        if args.rounds < 1:
            parser.error("--rounds must be at least 1")
        out = args.out or results / "fit_before_after.md"
        before_after(args.data_dir, datasets, args.splits, args.repeats, args.rounds,
                     args.before_commit, out, echo=lambda text: print(text, flush=True))
        print(f"wrote {out}")
        return
    from treebound_lab.provenance import results_header

    args.out = args.out or results / "fit.md"
    lightgbm = lightgbm_or_none()
    header = results_header(TITLE)  # before the run: the load it starts under
    cold, warm = compile_times()
    rows = run(args.data_dir, datasets, args.splits, args.repeats, lightgbm=lightgbm)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(to_markdown(rows, header, cold, warm, args.splits, args.repeats,
                                    lightgbm and lightgbm.__version__))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
