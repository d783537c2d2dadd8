"""Figure 4 of Brutzkus, Daniely & Malach (2020): MIC of TopDown vs BestFirst over DNF families.

Runs ``treebound bench mic`` once per sweep (a separate process each, as a user would, timing the
wall clock including start-up and numba cache loading), reads the CSVs it writes, and produces

* ``benchmarks/results/mic.md``: shares of DNFs with m(t_max) < 0.01 and > 0.05 per setting,
  runtimes, machine and date;
* ``benchmarks/results/mic_figure4.png``: the three Figure 4 panels (ties toward the least
  probable leaf, the default);
* ``benchmarks/results/mic_figure4_most_probable.png``: the same with BestFirst's ties broken
  toward the most probable leaf.

Usage::

    python benchmarks/bench_mic.py [--jobs 2] [--t-max 100] [--work-dir /tmp/mic-sweeps]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from treebound.experiments.mic import (
    FAR_FROM_OPTIMAL,
    NEAR_OPTIMAL,
    POLICY_LABELS,
    SWEEPS,
    figure4_panel,
    plot_mic_histograms,
)

RESULTS = Path(__file__).resolve().parent / "results"
TIE_BREAK_SUFFIX = {"least_probable": "", "most_probable": "_most_probable"}


def run_sweeps(t_max: int, jobs: int, work_dir: Path) -> dict[str, float]:
    seconds = {}
    for name in SWEEPS:
        command = [
            sys.executable, "-m", "treebound.cli", "bench", "mic", "--sweep", name,
            "--t-max", str(t_max), "--jobs", str(jobs), "--out", str(work_dir),
        ]
        start = time.perf_counter()
        subprocess.run(command, check=True)
        seconds[name] = time.perf_counter() - start
    return seconds


def machine_description() -> str:
    cpu = platform.processor() or "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    import numba

    return (
        f"{cpu}, {cores} cores available, {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}"
    )


def git_commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def share_row(frame: pd.DataFrame, tie_break: str) -> dict[str, float]:
    row = {}
    for policy, label in POLICY_LABELS.items():
        values = frame[f"mic_{policy}{TIE_BREAK_SUFFIX[tie_break]}"].to_numpy()
        row[f"{label} < 0.001"] = np.mean(values < 0.001)  # the paper's "m ≪ 0.01"
        row[f"{label} < {NEAR_OPTIMAL}"] = np.mean(values < NEAR_OPTIMAL)
        row[f"{label} > {FAR_FROM_OPTIMAL}"] = np.mean(values > FAR_FROM_OPTIMAL)
        row[f"{label} = 0"] = np.mean(values == 0.0)
        row[f"{label} mean"] = values.mean()
        row[f"{label} max"] = values.max()
    return row


def markdown_table(frames, seconds, tie_break: str, t_max: int) -> list[str]:
    header = (
        "| setting | DNFs | wall time | TopDown m<0.001 | BestFirst m<0.001 "
        f"| TopDown m<{NEAR_OPTIMAL} | BestFirst m<{NEAR_OPTIMAL} "
        f"| TopDown m>{FAR_FROM_OPTIMAL} | BestFirst m>{FAR_FROM_OPTIMAL} | TopDown m=0 "
        f"| BestFirst m=0 | TopDown mean / max | BestFirst mean / max |"
    )
    lines = [header, "|" + "---|" * 13]
    for name, frame in frames.items():
        r = share_row(frame, tie_break)
        lines.append(
            f"| {name} | {len(frame):,} | {seconds[name]:.0f} s "
            f"| {r['TopDown < 0.001']:.1%} | {r['BestFirst < 0.001']:.1%} "
            f"| {r['TopDown < 0.01']:.1%} | {r['BestFirst < 0.01']:.1%} "
            f"| {r['TopDown > 0.05']:.1%} | {r['BestFirst > 0.05']:.1%} "
            f"| {r['TopDown = 0']:.1%} | {r['BestFirst = 0']:.1%} "
            f"| {r['TopDown mean']:.4f} / {r['TopDown max']:.4f} "
            f"| {r['BestFirst mean']:.4f} / {r['BestFirst max']:.4f} |"
        )
    return lines


def write_report(frames, seconds, t_max: int, jobs: int) -> str:
    default = {name: share_row(frame, "least_probable") for name, frame in frames.items()}
    other = {name: share_row(frame, "most_probable") for name, frame in frames.items()}
    td_low = min(r["TopDown < 0.01"] for r in default.values())
    td_tiny = [f"{name} {r['TopDown < 0.001']:.1%}" for name, r in default.items()]
    td_zero = [f"{name} {r['TopDown = 0']:.1%}" for name, r in default.items()]
    td_high = max(r["TopDown > 0.05"] for r in default.values())
    td_max = max(r["TopDown max"] for r in default.values())
    bf_high = [f"{name} {r['BestFirst > 0.05']:.1%}" for name, r in default.items()]
    bf_high_other = [f"{name} {r['BestFirst > 0.05']:.1%}" for name, r in other.items()]
    same = all(
        np.array_equal(frame["mic_top_down"], frame["mic_top_down_most_probable"])
        for frame in frames.values()
    )
    top_down_sentence = (
        "TopDown's m is identical under both rules in every setting (its weighted gains do not "
        "tie across non-equivalent leaves here)."
        if same
        else "TopDown's m changes for some DNFs too (see the table)."
    )
    lines = [
        "# MIC of TopDown vs BestFirst (Brutzkus, Daniely & Malach 2020, section 8.2, Figure 4)",
        "",
        "Generated by `benchmarks/bench_mic.py`, which runs "
        f"`treebound bench mic --sweep S --t-max {t_max} --jobs {jobs}` once per setting.",
        "",
        f"- Date: {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}; commit {git_commit()}",
        f"- Machine: {machine_description()}",
        "- Wall time: one process per setting (OPT plus both algorithms under both tie-break rules), "
        "including start-up and loading numba's cache "
        "(a cold numba cache adds roughly 10-15 s of compilation).",
        "",
        "Population setting: every probability is exact. For each DNF, OPT(F, t) comes from the "
        "section 7 DPs and TopDown / BestFirst from exact greedy growth (entropy), t = 0.."
        f"{t_max}; m({t_max}) = mean of ε_t = E(T_t) - OPT(F, t) over t = 1..{t_max}. "
        "A DNF is identified, up to renaming and negating variables, with the multiset of its term "
        "sizes (uniform) or (n1, n2) pairs (two-valued); every quantity is invariant under those "
        "symmetries, so each multiset is counted once. `m=0`: optimal at every t up to 1e-12 "
        "rounding.",
        "",
        "## Ties broken toward the least probable leaf (default; Figures 1 and 6 keep the last "
        "maximizer)",
        "",
        *markdown_table(frames, seconds, "least_probable", t_max),
        "",
        "![Figure 4](mic_figure4.png)",
        "",
        "## Ties broken toward the most probable leaf",
        "",
        top_down_sentence,
        "BestFirst's unweighted gain depends on the leaf's formula alone, so every two leaves "
        "carrying the same sub-formula at different depths tie, and this rule splits the more "
        "probable one first.",
        "",
        *markdown_table(frames, seconds, "most_probable", t_max),
        "",
        "![Figure 4, ties toward the most probable leaf](mic_figure4_most_probable.png)",
        "",
        "## Comparison with the paper",
        "",
        "The paper reports that for the vast majority of read-once DNFs TopDown has "
        "m(100) ≪ 0.01, while for many DNFs BestFirst is far from optimal with m(100) > 0.05 "
        "(Figure 4 shows histograms only; it gives no shares). Here TopDown has m < 0.01 for at "
        f"least {td_low:.1%} of the DNFs of every setting, m > 0.05 for at most {td_high:.1%}, "
        f"and never exceeds {td_max:.4f}; m < 0.001 holds for {', '.join(td_tiny)}. TopDown is "
        f"exactly optimal at every t (m = 0) only for {', '.join(td_zero)} of the DNFs: "
        "beyond Theorem 6.1's two terms it is often slightly suboptimal at some t (e.g. "
        "(x1∧x2)∨(x3∧x4)∨(x5∧x6) at t = 2: 0.328 vs OPT 0.297, confirmed by brute force in "
        "the tests' oracle). BestFirst has m > 0.05 for "
        f"{', '.join(bf_high)} of the DNFs with the default tie-break "
        f"({', '.join(bf_high_other)} when ties go to the most probable leaf). So TopDown is far "
        "closer to optimal than BestFirst under both tie-break rules, but how often BestFirst "
        "exceeds 0.05 depends on the rule, which the paper leaves to the scan order behind the "
        "`>=` of Figures 1 and 6.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--t-max", type=int, default=100)
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/treebound-mic-sweeps"))
    args = parser.parse_args()

    seconds = run_sweeps(args.t_max, args.jobs, args.work_dir)
    frames = {name: pd.read_csv(args.work_dir / f"mic_{name}.csv") for name in SWEEPS}
    RESULTS.mkdir(parents=True, exist_ok=True)
    for tie_break, filename, suptitle in (
        ("least_probable", "mic_figure4.png", None),
        ("most_probable", "mic_figure4_most_probable.png", "ties toward the most probable leaf"),
    ):
        panels = [
            figure4_panel(
                name,
                {
                    label: frame[f"mic_{policy}{TIE_BREAK_SUFFIX[tie_break]}"].to_numpy()
                    for policy, label in POLICY_LABELS.items()
                },
            )
            for name, frame in frames.items()
        ]
        plot_mic_histograms(panels, RESULTS / filename, t_star=args.t_max, suptitle=suptitle)
    (RESULTS / "mic.md").write_text(write_report(frames, seconds, args.t_max, args.jobs))
    print(f"wrote {RESULTS / 'mic.md'}")


if __name__ == "__main__":
    main()
