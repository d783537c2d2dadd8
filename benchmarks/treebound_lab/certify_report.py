"""Markdown tables and the plot of ``treebound bench certify`` (from the CSV of every run)."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import numpy as np

from treebound.certificates import format_bound
from treebound_lab.certify_bench import CERTIFICATE_COLUMNS, DELTA
from treebound_lab.provenance import results_header

__all__ = ["plot_certificates", "summarize", "write_certify_markdown"]

MODEL_TEXT = {
    "bound": "treebound, 40 leaves grown top-down, bound-pruned (no CV)",
    "ccp_cv": "treebound, the same grown tree, cost-complexity pruning with 10-fold CV",
    "sklearn_cart_cv": "scikit-learn CART grown to purity, ccp_alpha by 10-fold GridSearchCV",
    "bound_hti": "as `bound`, selecting the subtree that minimizes the hti bound",
    "bound_compression": "as `bound`, selecting the subtree that minimizes the compression bound",
}


def _float(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def summarize(rows) -> dict:
    """``{(dataset, model): statistics}``: means over the splits, coverage and slack."""
    groups = defaultdict(list)
    for r in rows:
        groups[(r["dataset"], r["model"])].append(r)
    out = {}
    for key, runs in groups.items():
        stats = {"splits": len(runs), "n_train": int(runs[0]["n_train"]),
                 "n_classes": int(runs[0]["n_classes"])}
        for column in ("test_error", "train_error", "n_leaves", "fit_seconds", "certify_seconds",
                       *CERTIFICATE_COLUMNS):
            values = np.array([_float(r.get(column)) for r in runs])
            stats[column] = float(np.nanmean(values)) if np.isfinite(values).any() else math.nan
        test = np.array([_float(r["test_error"]) for r in runs])
        train = np.array([_float(r["train_error"]) for r in runs])
        n_train = np.array([_float(r["n_train"]) for r in runs])
        n_test = np.array([_float(r["n_test"]) for r in runs])
        auto = np.array([_float(r["auto"]) for r in runs])
        held = np.array([_float(r["test_set"]) for r in runs])
        stats["coverage"] = float(np.mean(test <= auto))
        # the dataset as the population: its error rate over all rows
        everywhere = (train * n_train + test * n_test) / (n_train + n_test)
        stats["coverage_all_rows"] = float(np.mean(everywhere <= auto))
        stats["slack"] = float(np.mean(auto - test))
        stats["test_set_slack"] = float(np.mean(held - test))
        out[key] = stats
    return out


def _cell(value, digits=3) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def _bound_cell(value) -> str:
    """A bound, rounded up (treebound.certificates.format_bound): never below the computed
    one."""
    return "n/a" if value is None or not math.isfinite(value) else format_bound(value)


def write_certify_markdown(rows, path, *, names, models, n_splits, header=None) -> None:
    """The results page: one table per model, then the targets (``header``: the provenance
    lines, by default taken now)."""
    stats = summarize(rows)
    lines = list(header or results_header("Certificates of fitted trees against their test "
                                          "error"))
    commits = sorted({r.get("commit") or "not recorded" for r in rows})
    lines += [f"Commit of the code that produced the rows: {', '.join(commits)}.", ""]
    lines += [
        f"Protocol of `treebound bench pruning`: {len(names)} datasets x {n_splits} splits "
        "(75/25, seeds 10 i + 1, every feature real-valued). Certificates at delta = "
        f"{DELTA}: `shawe_taylor` (Leboeuf et al. Eq. 8, what bound pruning minimizes), `hti` "
        "(hypergeometric tail inversion, uniform over all trees), `compression` (sample "
        "compression), `auto` (the smaller of hti and compression, each at delta / 2: the "
        "certificate `treebound.certify` gives by default), all computed on the training rows; "
        "`test_set` = Langford's test-set bound on the held-out quarter (what a held-out sample "
        "buys, for comparison). `covered` = share of splits with test error <= `auto`; "
        "`covered (all rows)` = share of splits with the error over every row of the dataset "
        "<= `auto`; `slack` = mean of `auto` minus test error. Means over the splits.", "",
        "A certificate bounds the error rate under the distribution the training rows were "
        "drawn from; taking a dataset as that population, its error over all rows is the true "
        "risk, and `covered (all rows)` is the validity check (at least 95 % expected). The "
        "test error is a noisy estimate: the test quarter is the complement of the training "
        "rows, so a tree that fits the training rows closely (a one-leaf tree on a balanced "
        "dataset: the training majority is the test minority) errs more on it than the risk; "
        "small test sets (27 rows on molecular_biology_promoters) make `covered` fall below "
        "95 % while the certificate holds.", ""]
    for model in models:
        lines += [f"## `{model}`: {MODEL_TEXT.get(model, model)}", "",
                  "| dataset | n_train | classes | leaves | test error | shawe_taylor | hti | "
                  "compression | auto | test_set | covered | covered (all rows) | slack | "
                  "certify s |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for name in names:
            s = stats.get((name, model))
            if s is None:
                continue
            lines.append(
                f"| {name} | {s['n_train']} | {s['n_classes']} | {s['n_leaves']:.1f} | "
                f"{_cell(s['test_error'])} | {_bound_cell(s['shawe_taylor'])} | "
                f"{_bound_cell(s['hti'])} | {_bound_cell(s['compression'])} | "
                f"{_bound_cell(s['auto'])} | {_bound_cell(s['test_set'])} | "
                f"{100 * s['coverage']:.0f} % | {100 * s['coverage_all_rows']:.0f} % | "
                f"{_cell(s['slack'])} | "
                f"{_cell(s['certify_seconds'], 4)} |")
        mine = [stats[(n, model)] for n in names if (n, model) in stats]
        if mine:
            below = sum(s["auto"] < 1.0 for s in mine)
            st_below = sum(s["shawe_taylor"] < 1.0 for s in mine)
            lines += ["", f"Mean over datasets: test error {np.mean([s['test_error'] for s in mine]):.3f}, "
                      f"auto {np.mean([s['auto'] for s in mine]):.3f}, slack "
                      f"{np.mean([s['slack'] for s in mine]):.3f}, coverage "
                      f"{100 * np.mean([s['coverage'] for s in mine]):.1f} %; `auto` below 1 on "
                      f"{below} of {len(mine)} datasets (Shawe-Taylor: {st_below}); the "
                      f"compression bound is the smaller on "
                      f"{sum(s['compression'] < s['hti'] for s in mine)} datasets.", ""]
    lines += ["## Targets", ""]
    for model in models:
        mine = [stats[(n, model)] for n in names if (n, model) in stats]
        if not mine:
            continue
        below = sum(s["auto"] < 1.0 for s in mine)
        slack = float(np.mean([s["slack"] for s in mine]))
        lines.append(f"- `{model}`: certificate below 1 on {below} / {len(mine)} datasets "
                     f"(target: all, for `bound` and the CV trees); mean slack {slack:.3f} "
                     "(target: <= 0.25 for the CV tree); worst coverage of the test error "
                     f"{100 * min(s['coverage'] for s in mine):.0f} %, of the error over all "
                     f"rows {100 * min(s['coverage_all_rows'] for s in mine):.0f} %.")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("\n".join(lines) + "\n")


def plot_certificates(rows, path, *, models) -> None:
    """Per dataset: mean certificate (auto) against mean test error, one marker per model."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stats = summarize(rows)
    fig, ax = plt.subplots(figsize=(7, 6.5))
    markers = {"bound": "o", "ccp_cv": "s", "sklearn_cart_cv": "^", "bound_hti": "D",
               "bound_compression": "v"}
    for model in models:
        points = [(s["test_error"], s["auto"], name) for (name, m), s in stats.items()
                  if m == model]
        if not points:
            continue
        x, y, _ = zip(*points, strict=True)
        ax.scatter(x, y, marker=markers.get(model, "o"), label=model, alpha=0.8)
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="certificate = test error")
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_xlim(0, 0.7)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("mean test error")
    ax.set_ylabel(f"mean certificate (auto, delta = {DELTA})")
    ax.set_title("Certificates against test error, one point per dataset")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
