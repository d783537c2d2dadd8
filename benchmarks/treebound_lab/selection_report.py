"""The page and the plot of ``benchmarks/bench_selection.py`` (:mod:`.selection_bench`)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from treebound_lab.selection_bench import (
    BOUND_VARIANTS,
    CERTIFIED_VARIANTS,
    CHECK_MODEL,
    PEER_ROWS,
    RULES,
    SECOND_ROUND,
    TUNING_QUANTILES,
)

__all__ = ["pareto_front", "selection_plot", "selection_report", "summarize"]

PEER_LABELS = {"sklearn_cart_cv": "scikit-learn CART, `ccp_alpha` by 10-fold GridSearchCV",
               "streed_cv": "STreeD, depth and cost-complexity by {folds}-fold CV (from "
                            "peers.csv)",
               "gosdt_cv": "GOSDT, regularization by {folds}-fold CV (from peers.csv)"}


def _auxiliary(model) -> bool:
    """Rows kept only to check peers.csv, not models of the page."""
    return model.endswith("_stored") or model == CHECK_MODEL



def summarize(rows, group) -> dict[str, dict]:
    """model -> means over the splits of each dataset, then over the datasets of ``group``
    (``n_datasets``, ``test_error``, ``certificate``, ``n_leaves``; ``seconds``: the total)."""
    by = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if row["group"] == group:
            by[row["model"]][row["dataset"]].append(row)
    out = {}
    for model, datasets in by.items():
        def mean(key, datasets=datasets):
            return float(np.mean([np.mean([r[key] for r in rs]) for rs in datasets.values()]))
        out[model] = {"n_datasets": len(datasets), "test_error": mean("test_error"),
                      "certificate": mean("certificate"), "n_leaves": mean("n_leaves"),
                      "seconds": float(sum(r["seconds"] for rs in datasets.values()
                                           for r in rs)),
                      "per_dataset": {d: (float(np.mean([r["test_error"] for r in rs])),
                                          float(np.mean([r["certificate"] for r in rs])),
                                          float(np.mean([r["seconds"] for r in rs])))
                                      for d, rs in datasets.items()}}
    return out


def pareto_front(summary) -> list[str]:
    """Models no other model beats on both mean test error and mean certificate."""
    front = []
    for a, sa in summary.items():
        dominated = any(sb["test_error"] <= sa["test_error"] and sb["certificate"]
                        <= sa["certificate"] and (sb["test_error"], sb["certificate"])
                        != (sa["test_error"], sa["certificate"])
                        for b, sb in summary.items() if b != a)
        if not dominated:
            front.append(a)
    return sorted(front, key=lambda m: summary[m]["test_error"])


def _what(model, folds="?") -> str:
    if model in RULES:
        return RULES[model][1]
    if model in CERTIFIED_VARIANTS:
        n_se = CERTIFIED_VARIANTS[model]["pruning_params"]["n_se"]
        return f"`pruning=\"certified\"`, band of {n_se:g} SE (decided on the tuning data)"
    if model in BOUND_VARIANTS:
        params = dict(BOUND_VARIANTS[model])
        return "tuning only: " + ", ".join(f"{k}={v}" for k, v in params.items()
                                           if k != "pruning")
    return PEER_LABELS.get(model, model).format(folds=folds)


def _summary_table(summary, complete, group, folds="?") -> list[str]:
    front = set(pareto_front({m: s for m, s in summary.items() if m in complete}))
    reference = summary.get("sklearn_cart_cv")
    lines = ["| model | what | datasets | mean test error | mean certificate | vs scikit-learn "
             "CV: error (points), certificate | leaves | CPU s (total) | Pareto front |",
             "|---|---|---|---|---|---|---|---|---|"]
    for model, s in sorted(summary.items(), key=lambda kv: kv[1]["test_error"]):
        versus = ""
        if reference is not None and model in complete:
            versus = (f"{100 * (s['test_error'] - reference['test_error']):+.2f}, "
                      f"{s['certificate'] / reference['certificate']:.3f}x")
        stored = group == "report" and model in PEER_ROWS
        seconds = f"({s['seconds']:.0f} wall)" if stored else f"{s['seconds']:.1f}"
        lines.append(f"| `{model}` | {_what(model, folds)} | {s['n_datasets']} | "
                     f"{s['test_error']:.4f} "
                     f"| {s['certificate']:.4f} | {versus} | {s['n_leaves']:.1f} | {seconds} | "
                     f"{'yes' if model in front else ''} |")
    return lines


def _time_lines(rows, summary) -> list[str]:
    """CPU time of certified against ccp_cv (same folds, same grown tree), per dataset."""
    if "certified" not in summary or "ccp_cv" not in summary:
        return []
    ours, theirs = summary["certified"], summary["ccp_cv"]
    ratios = {d: ours["per_dataset"][d][2] / theirs["per_dataset"][d][2]
              for d in ours["per_dataset"] if theirs["per_dataset"][d][2] > 0}
    worst = max(ratios, key=ratios.get)
    median = float(np.median(list(ratios.values())))
    return [f"- **Time** of `certified` against `ccp_cv` with the same folds (CPU seconds of fit "
            f"plus reading `certificate_`, summed over the report splits): "
            f"{ours['seconds']:.1f} s against {theirs['seconds']:.1f} s, "
            f"**{ours['seconds'] / theirs['seconds']:.2f}x** (target: at most 1x); per dataset "
            f"median {median:.2f}x, largest {ratios[worst]:.2f}x ({worst})."]


def _targets(summary) -> list[str]:
    ref = summary.get("sklearn_cart_cv")
    if ref is None:
        return []
    out = []
    for model, target in (("certified", "error within 0.5 points, certificate at most 0.92x"),
                          ("bound", "error within 0.5 points, certificate at most 1x"),
                          ("ccp_cv_1se", "for comparison")):
        if model not in summary:
            continue
        d_err, ratio, margin = _versus(summary, model, ref)
        if model == "certified":
            met = d_err <= 0.5 and ratio <= 0.92
        elif model == "bound":
            met = d_err <= 0.5 and ratio <= 1.0
        else:
            met = None
        verdict = "" if met is None else (" — **met**" if met else " — **not met**")
        out.append(f"- `{model}`: test error {d_err:+.2f} points (standard error {margin:.2f} "
                   f"over the datasets, paired) against scikit-learn's CV tree, certificate "
                   f"{ratio:.3f}x its ({target}){verdict}.")
    return out


def _per_dataset(summary, models) -> list[str]:
    present = [m for m in models if m in summary]
    datasets = list(summary[present[0]]["per_dataset"])
    lines = ["| dataset | " + " | ".join(f"`{m}`" for m in present) + " |",
             "|---|" + "---|" * len(present)]
    for d in datasets:
        cells = []
        for m in present:
            cell = summary[m]["per_dataset"].get(d)
            cells.append("—" if cell is None else f"{cell[0]:.3f} [{cell[1]:.3f}]")
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    return lines


def selection_report(rows, header, *, n_splits_report, n_splits_tuning, tuning_names,
                     report_names, peers_commit, seconds, peers_folds=None,
                     tuning_sizes=()) -> str:
    """The Markdown page (``peers_folds``: the folds of the rows of peers.csv;
    ``tuning_sizes``: the rows of the tuning subsamples)."""
    lines = list(header)
    folds = "?" if peers_folds is None else str(peers_folds)
    made = sorted({r["commit"] for r in rows if r["model"] not in PEER_ROWS
                   and not _auxiliary(r["model"])})
    if made:
        lines += [f"Commit of the code that produced the rows: {', '.join(made)}.", ""]
    lines += [
        "Mean test error against mean certificate (`certificate_` / `treebound.certify`, method "
        "`auto`, delta = 0.05, on the training rows) of every selection rule of the library and "
        "of the peers of `peers.md`. Means over the splits of each dataset, then over the "
        "datasets. " + (f"Run time {seconds / 60:.1f} min (wall)." if seconds == seconds
                         else "Rewritten from `selection.csv` (`--report-only`)."), "",
        f"- **Tuning data** ({len(tuning_names)} datasets: every shared dataset that no "
        f"report dataset is drawn from — {', '.join(tuning_names)}), each subsampled "
        f"(stratified) to {', '.join(f'{s:,}' for s in tuning_sizes)} rows: the row counts "
        f"of the report datasets at the quantiles "
        f"{', '.join(f'{q:.3g}' for q in TUNING_QUANTILES)} (the midpoints of their four "
        f"quarters; a rule fixed before any report result was looked at), so the tuning "
        f"cells are as small as the report data and each size stands for a quarter of it. "
        f"{n_splits_tuning} splits per dataset and size, each with its own subsample and 75/25 "
        f"split (seeds 1000 + i): {len(tuning_names) * len(tuning_sizes)} cells, "
        f"{len(tuning_names) * len(tuning_sizes) * n_splits_tuning} splits. Means are over "
        f"the splits of each cell, then over the cells. The bands of `certified` and the "
        f"variants of `bound` are chosen here only.",
        f"  - {SECOND_ROUND}",
        f"- **Report data** ({len(report_names)} datasets of `peers.md`), the first "
        f"{n_splits_report} splits of its protocol (75/25, seeds 10 i + 1, every feature "
        f"real-valued).",
        f"- scikit-learn's CV tree (10 folds, as every CV of this page) is refitted here on "
        f"every split (CPU seconds). STreeD and GOSDT are read from "
        f"`benchmarks/results/peers.csv` (same splits; made at commit {peers_commit or 'n/a'} "
        f"with {folds}-fold CV; their times are wall seconds of that run).", ""]
    short = _short_cells(rows, n_splits_tuning)
    if short:
        lines += [f"Cells of the tuning data with fewer splits than {n_splits_tuning} (the run "
                  f"was stopped before they finished; their means are over the splits done): "
                  + ", ".join(f"{cell} ({n})" for cell, n in short) + ".", ""]
    lines += _peer_check(rows, folds)
    rows = [r for r in rows if not _auxiliary(r["model"])]
    for group, title in (("report", "Report data"), ("tuning", "Tuning data")):
        summary = summarize(rows, group)
        if not summary:
            continue
        n_data = max(s["n_datasets"] for s in summary.values())
        complete = {m for m, s in summary.items() if s["n_datasets"] == n_data}
        front = pareto_front({m: s for m, s in summary.items() if m in complete})
        lines += [f"## {title}", ""] + _summary_table(summary, complete, group, folds) + [""]
        lines += ["Pareto front (lowest mean test error first): "
                  + ", ".join(f"`{m}`" for m in front) + ".", ""]
        if group == "report":
            lines += ["### Targets (issue 26)", ""] + _targets(summary) + \
                _time_lines(rows, summary) + [""] + _certified_frontier(summary)
            lines += ["### Per dataset: test error [certificate]", ""]
            lines += _per_dataset(summary, ["ccp_cv", "ccp_cv_1se", "certified", "bound",
                                            "sklearn_cart_cv", "streed_cv"]) + [""]
        else:
            lines += ["### The band of `pruning=\"certified\"`, chosen here", ""]
            lines += _certified_verdict(summary) + [""] + _by_size(summary)
            lines += ["### The `pruning=\"bound\"` default, re-examined here", ""]
            lines += _bound_verdict(summary) + [""]
    return "\n".join(lines) + "\n"


def _short_cells(rows, n_splits) -> list[tuple[str, int]]:
    """Tuning cells whose scikit-learn reference has fewer than ``n_splits`` splits."""
    splits = defaultdict(set)
    for r in rows:
        if r["group"] == "tuning" and r["model"] == "sklearn_cart_cv":
            splits[r["dataset"]].add(r["split"])
    return sorted((cell, len(s)) for cell, s in splits.items() if len(s) < n_splits)


def _peer_check(rows, folds) -> list[str]:
    """The scikit-learn trees refitted with the folds of peers.csv against its rows."""
    stored = {(r["dataset"], r["split"]): r for r in rows
              if r["model"] == "sklearn_cart_cv_stored"}
    pairs = [(r, stored[(r["dataset"], r["split"])]) for r in rows
             if r["model"] == CHECK_MODEL and (r["dataset"], r["split"]) in stored]
    tenfold = {(r["dataset"], r["split"]): r for r in rows
               if r["model"] == "sklearn_cart_cv" and r["group"] == "report"}
    if not pairs:
        return []

    def same(a, b):
        return a["n_leaves"] == b["n_leaves"] and a["test_error"] == b["test_error"]

    agree = [(a, b) for a, b in pairs if same(a, b)]
    d_cert = max((abs(a["certificate"] - b["certificate"]) for a, b in agree), default=0.0)
    differ = sorted({f"{a['dataset']} split {a['split']}" for a, b in pairs if not same(a, b)})
    moved = sum(1 for a, _ in pairs if (a["dataset"], a["split"]) in tenfold
                and not same(a, tenfold[(a["dataset"], a["split"])]))
    return [f"Check of the stored rows: the rows of `peers.csv` were made with {folds}-fold "
            f"cross-validation (its `n_fits`: {folds} + 1 for `ccp_cv`, {folds} per alpha + 1 "
            f"for scikit-learn), although `peers.md` describes 10 folds. scikit-learn's CV tree "
            f"refitted here with {folds} folds, the protocol of those rows, is the stored tree "
            f"(leaves and test error) on {len(agree)} of {len(pairs)} splits, whose "
            f"certificates differ by at most {d_cert:.2g}; a different tree on "
            f"{len(pairs) - len(agree)} ({', '.join(differ) or 'none'}). With 10 folds, the "
            f"protocol of this page, the tree changes on {moved} of {len(pairs)} splits: the "
            f"fold count alone made the earlier mismatch, and the STreeD and GOSDT rows are "
            f"{folds}-fold too.", ""]


#: Tolerance of issue 26's targets on the test error against scikit-learn's CV tree (points).
TOLERANCE = 0.5


def _versus(summary, model, ref) -> tuple[float, float, float]:
    """``(error difference, certificate ratio, margin)`` of ``model`` against ``ref``: the
    difference of the mean test errors in points, the ratio of the mean certificates, and the
    standard error (points) of the mean difference over the cells (datasets, or tuning
    datasets and sizes) of the paired per-cell differences — the margin for noise."""
    s = summary[model]
    diffs = [100 * (s["per_dataset"][d][0] - ref["per_dataset"][d][0])
             for d in s["per_dataset"] if d in ref["per_dataset"]]
    margin = float(np.std(diffs, ddof=1) / np.sqrt(len(diffs))) if len(diffs) > 1 else 0.0
    return (100 * (s["test_error"] - ref["test_error"]), s["certificate"] / ref["certificate"],
            margin)


def _eligible(summary, model, ref) -> bool:
    """The error target with its margin: the mean difference plus one standard error of it is
    at most :data:`TOLERANCE`."""
    d_err, _, margin = _versus(summary, model, ref)
    return d_err + margin <= TOLERANCE


def _band_line(summary, model, ref) -> str:
    d_err, ratio, margin = _versus(summary, model, ref)
    return (f"- `{model}`: {d_err:+.2f} points (one standard error {margin:.2f}: "
            f"{d_err + margin:+.2f} with it), certificate {ratio:.3f}x, "
            f"{summary[model]['n_leaves']:.1f} leaves")


def _certified_names(summary) -> list[str]:
    return [n for n in ("certified", *CERTIFIED_VARIANTS) if n in summary]


_RULE_MARGIN = (f"within {TOLERANCE} points of scikit-learn's CV tree *with a margin for "
                f"noise*: the mean error difference plus one standard error of it (over the "
                f"cells, paired) at most {TOLERANCE} points")


def _certified_verdict(summary) -> list[str]:
    """The rule fixed before the run: among the explicit bands, the one with the smallest mean
    certificate whose error difference, with its margin, is within the tolerance becomes the
    default; with none, the band with the smallest error difference."""
    ref = summary.get("sklearn_cart_cv")
    present = [n for n in CERTIFIED_VARIANTS if n in summary]
    if ref is None or not present:
        return []
    lines = ["Decision rule, fixed before the run (issue 26's target itself): among the bands "
             "of `certified`, the one with the smallest mean certificate whose mean test error "
             f"is {_RULE_MARGIN}, becomes the default of `pruning=\"certified\"`; if none is, "
             "the band with the smallest error difference.", ""]
    lines += [_band_line(summary, n, ref) for n in present]
    eligible = [n for n in present if _eligible(summary, n, ref)]
    lines.append("")
    if not eligible:
        best = min(present, key=lambda n: _versus(summary, n, ref)[0])
        lines.append(f"No band meets the error target with its margin here: the most accurate, "
                     f"`{best}`, is chosen.")
        return lines
    best = min(eligible, key=lambda n: summary[n]["certificate"])
    lines.append(f"Chosen: **`{best}`** ({_versus(summary, best, ref)[1]:.3f}x).")
    return lines


def _by_size(summary) -> list[str]:
    """The bands and scikit-learn's tree per tuning size (cells ``NAME@ROWS``): error
    difference (points) and certificate ratio of the means over the datasets of each size."""
    ref = summary.get("sklearn_cart_cv")
    present = [n for n in CERTIFIED_VARIANTS if n in summary]
    if ref is None or not present:
        return []
    sizes = sorted({int(d.partition("@")[2]) for d in ref["per_dataset"] if "@" in d})
    if not sizes:
        return []

    def at(model, size, k):
        cells = summary[model]["per_dataset"]
        return float(np.mean([v[k] for d, v in cells.items() if d.endswith(f"@{size}")]))

    lines = ["Per size (mean over the tuning datasets at that size): error difference "
             "(points), certificate ratio against scikit-learn's CV tree.", "",
             "| band | " + " | ".join(f"{s:,} rows" for s in sizes) + " |",
             "|---|" + "---|" * len(sizes)]
    for n in [*present, "ccp_cv", "bound"]:
        if n not in summary:
            continue
        cells = [f"{100 * (at(n, s, 0) - at('sklearn_cart_cv', s, 0)):+.2f}, "
                 f"{at(n, s, 1) / at('sklearn_cart_cv', s, 1):.3f}x" for s in sizes]
        lines.append(f"| `{n}` | " + " | ".join(cells) + " |")
    return lines + [""]


def _certified_frontier(summary) -> list[str]:
    """The bands of certified on the report data: the frontier they reach (not a choice)."""
    ref = summary.get("sklearn_cart_cv")
    present = _certified_names(summary)
    if ref is None or len(present) < 2:
        return []
    lines = ["The bands of `certified` on these data (the frontier the rule reaches; the band "
             "was chosen on the tuning data, not here):", ""]
    for n in sorted(present, key=lambda n: summary[n]["test_error"]):
        s = summary[n]
        d_err = 100 * (s["test_error"] - ref["test_error"])
        ratio = s["certificate"] / ref["certificate"]
        met = d_err <= 0.5 and ratio <= 0.92
        lines.append(f"- `{n}`: {d_err:+.2f} points, certificate {ratio:.3f}x, "
                     f"{s['n_leaves']:.1f} leaves{' — both targets met' if met else ''}")
    return lines + [""]


def _bound_verdict(summary) -> list[str]:
    """The rule fixed before the run: the bound variant (the default included) with the smallest
    mean certificate among those within the error tolerance with its margin; it replaces the
    default only if its certificate is at most scikit-learn's CV tree's."""
    ref = summary.get("sklearn_cart_cv")
    names = ["bound", *BOUND_VARIANTS, "bound_hti", "bound_compression"]
    present = [n for n in names if n in summary]
    if ref is None or not present:
        return []
    lines = ["Decision rule, fixed before the run: among `bound` and its variants, the one "
             f"with the smallest mean certificate whose mean test error is {_RULE_MARGIN}; it "
             "replaces the default only if that certificate is also at most the CV tree's.", ""]
    lines += [_band_line(summary, n, ref) for n in present]
    eligible = [n for n in present if _eligible(summary, n, ref)]
    lines.append("")
    if not eligible:
        lines.append("No variant of `bound` meets the error target with its margin on the "
                     "tuning data: the default stays, and the frontier is the list above.")
        return lines
    best = min(eligible, key=lambda n: summary[n]["certificate"])
    ratio = _versus(summary, best, ref)[1]
    if ratio <= 1.0:
        lines.append(f"`{best}` meets both ({ratio:.3f}x).")
    else:
        lines.append(f"The best eligible variant, `{best}`, still has a certificate "
                     f"{ratio:.3f}x the CV tree's: no variant of `bound` reaches the target on "
                     f"the tuning data, and the default stays.")
    return lines


def selection_plot(rows, path) -> None:
    """Mean test error against mean certificate, one panel per group, the Pareto front drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in rows if not _auxiliary(r["model"])]
    groups = [g for g in ("report", "tuning") if summarize(rows, g)]
    fig, axes = plt.subplots(1, len(groups), figsize=(6.5 * len(groups), 5.2), squeeze=False)
    for ax, group in zip(axes[0], groups, strict=True):
        summary = summarize(rows, group)
        n_data = max(s["n_datasets"] for s in summary.values())
        complete = {m: s for m, s in summary.items() if s["n_datasets"] == n_data}
        front = pareto_front(complete)
        for model, s in complete.items():
            color = ("tab:red" if model == "certified" else "tab:gray" if model in PEER_ROWS
                     or model == "sklearn_cart_cv" else "tab:blue")
            ax.scatter(s["certificate"], s["test_error"], color=color, s=30, zorder=3)
            ax.annotate(model, (s["certificate"], s["test_error"]), fontsize=7,
                        xytext=(4, 2), textcoords="offset points")
        fx = [complete[m]["certificate"] for m in front]
        fy = [complete[m]["test_error"] for m in front]
        ax.plot(fx, fy, color="tab:red", alpha=0.4, lw=1, zorder=2, label="Pareto front")
        ax.set_xlabel("mean certificate (delta = 0.05)")
        ax.set_ylabel("mean test error")
        ax.set_title(f"{group} data ({n_data} datasets)")
        ax.legend(loc="upper right", fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
