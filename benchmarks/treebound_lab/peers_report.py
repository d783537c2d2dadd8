"""Markdown page and plot of ``treebound bench peers`` (from the CSV of every run)."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import numpy as np

from treebound.certificates import format_bound
from treebound_lab.peers_bench import (
    DDT_MAX_FEATURES,
    DELTA,
    GOSDT_DEPTH_BUDGET,
    GOSDT_ESTIMATORS,
    GOSDT_REGULARIZATIONS,
    PEERS,
    STREED_COST_COMPLEXITIES,
    STREED_DEPTHS,
    STREED_THRESHOLDS,
)
from treebound_lab.provenance import results_header

__all__ = ["plot_peers", "summarize", "write_peers_markdown"]

#: The model the targets hold to: treebound with no tuning at all.
RECOMMENDED = "bound"

MODEL_TEXT = {
    "bound": "treebound `DecisionTreeClassifier(pruning=\"bound\")`, library defaults, no CV",
    "ccp_cv": "treebound `DecisionTreeClassifier(pruning=\"ccp_cv\")`: default growth, "
              "cost-complexity alpha by CV",
    "ddt": f"treebound `DyadicTreeClassifier()` defaults, no CV (datasets with at most "
           f"{DDT_MAX_FEATURES} features)",
    "sklearn_cart_cv": "scikit-learn CART grown to purity, `ccp_alpha` by `GridSearchCV` over "
                       "its pruning path",
    "streed_cv": f"STreeD (`pystreed`), cost-complex-accuracy, `max_depth` in "
                 f"{list(STREED_DEPTHS)} x `cost_complexity` in "
                 f"{list(STREED_COST_COMPLEXITIES)} by CV, `\"tree\"` binarization "
                 f"({STREED_THRESHOLDS} thresholds a feature)",
    "gosdt_cv": f"GOSDT (`gosdt`) with threshold guessing and reference labels "
                f"(boosting, {GOSDT_ESTIMATORS} stumps), `depth_budget={GOSDT_DEPTH_BUDGET}`, "
                f"`regularization` in {list(GOSDT_REGULARIZATIONS)} by CV",
}
SHORT = {"bound": "bound", "ccp_cv": "ccp_cv", "ddt": "DDT", "sklearn_cart_cv": "sklearn CV",
         "streed_cv": "STreeD CV", "gosdt_cv": "GOSDT CV"}


def _float(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def summarize(rows) -> dict:
    """``{(dataset, model): statistics}``: means over the splits."""
    groups = defaultdict(list)
    for r in rows:
        groups[(r["dataset"], r["model"])].append(r)
    out = {}
    for key, runs in groups.items():
        stats = {"splits": len(runs), "n_train": int(runs[0]["n_train"]),
                 "n_features": int(runs[0]["n_features"]),
                 "n_classes": int(runs[0]["n_classes"])}
        for column in ("test_error", "train_error", "n_leaves", "depth", "fit_seconds",
                       "certificate", "n_fits", "timeouts"):
            values = np.array([_float(r.get(column)) for r in runs])
            stats[column] = float(np.nanmean(values)) if np.isfinite(values).any() else math.nan
        stats["accuracy"] = 1.0 - stats["test_error"]
        stats["fit_seconds_total"] = float(sum(_float(r["fit_seconds"]) for r in runs))
        stats["certificate_max"] = max(_float(r["certificate"]) for r in runs)
        stats["timeouts_total"] = int(sum(_float(r["timeouts"]) for r in runs))
        stats["fits_total"] = int(sum(_float(r["n_fits"]) for r in runs))
        methods = defaultdict(int)
        for r in runs:
            methods[r["certificate_method"]] += 1
        stats["methods"] = dict(methods)
        out[key] = stats
    return out


def _cell(value, digits=3) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def _model_means(stats, names, model) -> dict | None:
    mine = [stats[(n, model)] for n in names if (n, model) in stats]
    if not mine:
        return None
    return {"datasets": len(mine),
            "accuracy": float(np.mean([s["accuracy"] for s in mine])),
            "n_leaves": float(np.mean([s["n_leaves"] for s in mine])),
            "depth": float(np.mean([s["depth"] for s in mine])),
            "fit_seconds": float(np.mean([s["fit_seconds"] for s in mine])),
            "fit_seconds_total": float(sum(s["fit_seconds_total"] for s in mine)),
            "certificate": float(np.mean([s["certificate"] for s in mine])),
            "below_one": sum(s["certificate"] < 1.0 for s in mine),
            "every_split_below_one": sum(s["certificate_max"] < 1.0 for s in mine),
            "timeouts": sum(s["timeouts_total"] for s in mine),
            "fits": sum(s["fits_total"] for s in mine)}


def write_peers_markdown(rows, path, *, names, models, settings, header=None) -> None:
    """The results page: protocol, summary, per-dataset tables, targets."""
    stats = summarize(rows)
    lines = list(header or results_header("Against the alternatives: optimal sparse trees and "
                                          "scikit-learn, each with its certificate"))
    folds = settings["n_folds"]
    lines += [
        f"Protocol of `treebound bench pruning`: {len(names)} datasets x "
        f"{settings['n_splits']} splits (75/25, seeds 10 i + 1, every feature real-valued). "
        f"Model selection: every cross-validation uses the same budget of **{folds} folds** "
        "(`StratifiedKFold`, as `GridSearchCV` makes them; fewer when the rarest class has "
        "fewer rows). STreeD fits are limited to "
        f"{settings['streed_time_limit']:g} s and GOSDT fits to {settings['gosdt_time_limit']} s "
        "(each library's documented `time_limit`; past it the library returns its best tree so "
        "far, not proven optimal: counted under *timeouts*). *time* = wall seconds of the whole "
        "practice (binarization, CV, final fit), one process, jobs run one after another. "
        f"*certificate* = `treebound.certify(model, X_train, y_train)` (method auto, delta = "
        f"{DELTA}): with probability 0.95 the tree's error on new data is at most this; every "
        "tree was first read into treebound's flat tree and checked to predict exactly what "
        "its library predicts on every training and test row. Means over the splits, then "
        "over the datasets.", ""]
    done = settings.get("splits_done", {})
    short = {n: k for n, k in done.items() if k < settings["n_splits"]}
    if short:
        lines += [f"**Incomplete run**: fewer than {settings['n_splits']} splits on "
                  + ", ".join(f"{n} ({k})" for n, k in short.items())
                  + " — complete it with the same command and `--resume`.", ""]
    lines += ["## Models", ""]
    lines += [f"- `{m}`: {MODEL_TEXT.get(m, m)}" for m in models]
    lines += ["", "## Summary", "",
              "| model | datasets | test accuracy | leaves | depth | time s (mean) | "
              "time s (total) | certificate | certificate < 1 (datasets) | timeouts / fits |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    means = {m: _model_means(stats, names, m) for m in models}
    for m in models:
        s = means[m]
        if s is None:
            continue
        lines.append(f"| `{m}` | {s['datasets']} | {s['accuracy']:.4f} | {s['n_leaves']:.1f} | "
                     f"{s['depth']:.1f} | {s['fit_seconds']:.3f} | {s['fit_seconds_total']:.1f} "
                     f"| {format_bound(s['certificate'])} | {s['below_one']} / {s['datasets']} | "
                     f"{s['timeouts']} / {s['fits']} |")
    lines += ["", "## Per dataset: test accuracy (leaves) [certificate]", "",
              "| dataset | n_train | features | classes | "
              + " | ".join(SHORT.get(m, m) for m in models) + " |",
              "|---|---|---|---|" + "---|" * len(models)]
    for name in names:
        first = next((stats[(name, m)] for m in models if (name, m) in stats), None)
        if first is None:
            continue
        cells = []
        for m in models:
            s = stats.get((name, m))
            cells.append("—" if s is None else
                         f"{s['accuracy']:.3f} ({s['n_leaves']:.1f}) "
                         f"[{format_bound(s['certificate'], digits=2)}]")
        lines.append(f"| {name} | {first['n_train']} | {first['n_features']} | "
                     f"{first['n_classes']} | " + " | ".join(cells) + " |")
    lines += ["", "## Per dataset: wall seconds of fit plus model selection (timeouts)", "",
              "| dataset | " + " | ".join(SHORT.get(m, m) for m in models) + " |",
              "|---|" + "---|" * len(models)]
    for name in names:
        cells = []
        for m in models:
            s = stats.get((name, m))
            cells.append("—" if s is None else f"{s['fit_seconds']:.3f}"
                         + (f" ({s['timeouts_total']})" if s["timeouts_total"] else ""))
        if any(c != "—" for c in cells):
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", *_targets(stats, names, models, means)]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("\n".join(lines) + "\n")


def _targets(stats, names, models, means) -> list[str]:
    lines = ["## Targets", ""]
    peers = [m for m in PEERS if means.get(m)]
    mine = means.get(RECOMMENDED)
    if mine and peers:
        best = max(peers, key=lambda m: means[m]["accuracy"])
        gap = 100 * (mine["accuracy"] - means[best]["accuracy"])
        common = [n for n in names if (n, RECOMMENDED) in stats and (n, best) in stats]
        ratio = (sum(stats[(n, RECOMMENDED)]["fit_seconds_total"] for n in common)
                 / max(sum(stats[(n, best)]["fit_seconds_total"] for n in common), 1e-12))
        accuracy_met = gap >= -1.0
        time_met = ratio <= 0.1
        lines.append(
            f"- **Accuracy**: `{RECOMMENDED}` (no tuning) {100 * mine['accuracy']:.2f} % against "
            f"the best peer `{best}` {100 * means[best]['accuracy']:.2f} %: "
            f"{gap:+.2f} points (target: within 1 point) — "
            f"**{'met' if accuracy_met else 'missed'}**.")
        lines.append(
            f"- **Time**: `{RECOMMENDED}` takes {ratio:.3f} of `{best}`'s fit-plus-selection "
            f"time over the same {len(common)} datasets (target: at most 0.1) — "
            f"**{'met' if time_met else 'missed'}**.")
        behind = []
        for n in common:
            delta = 100 * (stats[(n, RECOMMENDED)]["accuracy"] - max(
                stats[(n, p)]["accuracy"] for p in peers if (n, p) in stats))
            if delta < -1.0:
                behind.append((delta, n))
        if behind:
            lines.append(f"- `{RECOMMENDED}` trails the best peer on its dataset by more than 1 "
                         f"point on {len(behind)} of {len(common)} datasets:")
            for delta, n in sorted(behind):
                lines.append("  - " + _why(stats, n, peers, delta))
    for m in models:
        s = means.get(m)
        if s is None:
            continue
        need = math.ceil(19 / 21 * s["datasets"])
        lines.append(f"- **Certificate** of `{m}`: below 1 on {s['below_one']} / {s['datasets']} "
                     f"datasets on average over the splits ({s['every_split_below_one']} on "
                     f"every split); target {need} — "
                     f"**{'met' if s['below_one'] >= need else 'missed'}**.")
    vacuous = sorted({n for n in names for m in models if (n, m) in stats
                      and stats[(n, m)]["certificate"] >= 1.0})
    if vacuous:
        lines.append(f"- Datasets where some model's certificate is 1 or more: "
                     f"{', '.join(vacuous)}.")
    return lines


def _why(stats, name, peers, delta) -> str:
    """A factual line on one dataset where the recommended model trails: sizes and errors."""
    mine = stats[(name, RECOMMENDED)]
    best = max((p for p in peers if (name, p) in stats), key=lambda p: stats[(name, p)]["accuracy"])
    other = stats[(name, best)]
    size = ("smaller" if mine["n_leaves"] < other["n_leaves"] - 0.5 else
            "larger" if mine["n_leaves"] > other["n_leaves"] + 0.5 else "about as large")
    text = (f"{name} ({mine['n_train']} training rows): {delta:+.1f} points against `{best}`; "
            f"`{RECOMMENDED}` keeps {mine['n_leaves']:.1f} leaves against {other['n_leaves']:.1f} "
            f"({size}), training error {mine['train_error']:.3f} against "
            f"{other['train_error']:.3f}")
    # the rule of max_leaf_nodes="auto" before bound pruning, as the sentence below states it
    budget = max(2, math.ceil(2.0 * math.sqrt(int(mine["n_train"]))))
    if size == "smaller" and RECOMMENDED == "bound":
        text += (f" — the default leaf budget caps it: `bound` grows at most ceil(2 sqrt(n)) = "
                 f"{budget} leaves before pruning (docs/pruning.md, Defaults) and the bound "
                 f"kept {mine['n_leaves']:.1f} of them")
    elif size == "smaller" and mine["train_error"] > other["train_error"]:
        text += " — the bound stops growth CV would allow (its penalty grows with the leaves)"
    elif size == "larger" and mine["train_error"] < other["train_error"]:
        text += " — the larger tree fits noise that the peer's selection left out"
    elif size == "about as large":
        text += " — trees of the same size with other splits"
    return text + "."


def plot_peers(rows, path, *, models) -> None:
    """Left: test accuracy against leaves; right: guaranteed accuracy (1 - certificate)
    against leaves. Small points: datasets; large: the mean over datasets."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stats = summarize(rows)
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.2), sharex=True)
    markers = {"bound": "o", "ccp_cv": "s", "ddt": "P", "sklearn_cart_cv": "^",
               "streed_cv": "D", "gosdt_cv": "v"}
    for i, m in enumerate(models):
        points = [s for (n, model), s in stats.items() if model == m]
        if not points:
            continue
        color = f"C{i}"
        leaves = np.array([s["n_leaves"] for s in points])
        accuracy = np.array([s["accuracy"] for s in points])
        guaranteed = np.clip(1.0 - np.array([s["certificate"] for s in points]), 0.0, 1.0)
        for ax, y in ((axes[0], accuracy), (axes[1], guaranteed)):
            ax.scatter(leaves, y, marker=markers.get(m, "o"), color=color, alpha=0.25, s=18)
            ax.scatter([leaves.mean()], [y.mean()], marker=markers.get(m, "o"), color=color,
                       s=110, edgecolor="black", label=f"{SHORT.get(m, m)}")
    for ax, title in ((axes[0], "test accuracy"),
                      (axes[1], f"guaranteed accuracy: 1 - certificate (delta = {DELTA})")):
        ax.set_xscale("log")
        ax.set_xlabel("leaves (mean over splits)")
        ax.set_ylabel(title)
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_title("Accuracy against size: small = one dataset, large = mean")
    axes[1].set_title("What each tree's certificate guarantees")
    axes[1].legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
