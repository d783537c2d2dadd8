"""MIC sweeps of Brutzkus, Daniely & Malach (2020), section 8.2 and Figure 4.

For every read-once DNF of a family (uniform distribution: <= 8 terms of <= 8 literals; two-valued
product distributions (p1, p2) ∈ {(0.3, 0.7), (0.4, 0.6)}: <= 5 terms of <= 5 literals, each
literal a Bernoulli(p1) or Bernoulli(p2) variable) compute OPT(F, t) and the errors of TopDown and
BestFirst for t = 0..t_max, then m(t_max) for both.

Under these distributions a DNF is determined, up to renaming and negating variables, by the
multiset of its term profiles (sizes, or (n1, n2) pairs), and every quantity here is invariant
under those symmetries, so the sweep enumerates multisets (12,869 uniform DNFs; 53,129 per
two-valued setting). One DP table serves the whole family because the family is closed under
conditioning (section 7); the greedy runs go through the batch kernel in ``--jobs`` threads.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from treebound._kernels.mic import grow_population_batch
from treebound.mic._states import family_states
from treebound.mic.optimal import GAP_TOLERANCE, OptimalErrorTable
from treebound.mic.population import POLICIES, TIE_BREAKS, TIE_TOLERANCE

__all__ = [
    "SWEEPS",
    "PopulationSweep",
    "SweepResult",
    "figure4_panel",
    "plot_mic_histograms",
    "run_population_sweep",
    "write_sweep_outputs",
]

#: Thresholds of m(t*) reported by the paper's discussion of Figure 4.
NEAR_OPTIMAL = 0.01
FAR_FROM_OPTIMAL = 0.05

#: Greedy runs per kernel call (one progress step).
BATCH_SIZE = 512

#: Legend names of the growth policies, in plotting order.
POLICY_LABELS = {"top_down": "TopDown", "best_first": "BestFirst"}


@dataclass(frozen=True)
class PopulationSweep:
    """A family of read-once DNFs and the distribution they are learned under."""

    name: str
    class_probabilities: tuple[float, ...]
    max_terms: int
    max_literals: int
    description: str

    def states(self) -> list[tuple[tuple[int, ...], ...]]:
        """One class-count state (sorted tuple of term profiles) per DNF of the family."""
        return family_states(len(self.class_probabilities), self.max_terms, self.max_literals)

    def describe_terms(self, state) -> str:
        """Term sizes ("2 3 5") or (n1, n2) pairs ("(1,2) (0,3)") of one DNF."""
        if len(self.class_probabilities) == 1:
            return " ".join(str(profile[0]) for profile in state)
        return " ".join("(" + ",".join(map(str, profile)) + ")" for profile in state)


SWEEPS: dict[str, PopulationSweep] = {
    "uniform": PopulationSweep(
        "uniform", (0.5,), 8, 8, "uniform distribution, <= 8 terms of <= 8 literals"
    ),
    "p0.3-0.7": PopulationSweep(
        "p0.3-0.7", (0.3, 0.7), 5, 5, "two-valued product (0.3, 0.7), <= 5 terms of <= 5 literals"
    ),
    "p0.4-0.6": PopulationSweep(
        "p0.4-0.6", (0.4, 0.6), 5, 5, "two-valued product (0.4, 0.6), <= 5 terms of <= 5 literals"
    ),
}


@dataclass
class SweepResult:
    """Error curves of every DNF of a sweep (rows follow ``states``; columns are t = 0..t_max)."""

    sweep: PopulationSweep
    t_max: int
    states: list
    optimal: np.ndarray
    errors: dict[tuple[str, str], np.ndarray]
    seconds: dict[str, float] = field(default_factory=dict)

    def gaps(self, policy: str, tie_break: str) -> np.ndarray:
        """MIC constants ε_t (Definition 4.1) of every DNF, shape (n_dnf, t_max + 1)."""
        gaps = self.errors[(policy, tie_break)] - self.optimal
        if gaps.min() < -GAP_TOLERANCE:
            raise RuntimeError(f"{policy} beats OPT by {-gaps.min():.3g}: the DP or growth is wrong")
        # Same rounding convention as treebound.mic.mic_constants.
        return np.where(gaps <= GAP_TOLERANCE, 0.0, gaps)

    def mic(self, policy: str, tie_break: str, t_star: int | None = None) -> np.ndarray:
        """m(t*) (Definition 4.2) of every DNF; ``t_star`` defaults to ``t_max``."""
        t_star = self.t_max if t_star is None else t_star
        return self.gaps(policy, tie_break)[:, 1 : t_star + 1].mean(axis=1)

    def summary_frame(self):
        """One row per DNF: its terms, OPT at t = 0 and t_max, m(t_max) per policy and tie-break."""
        import pandas as pd

        columns = {
            "terms": [self.sweep.describe_terms(s) for s in self.states],
            "n_terms": [len(s) for s in self.states],
            "n_literals": [sum(map(sum, s)) for s in self.states],
            "single_leaf_error": self.optimal[:, 0],
            f"opt_error_t{self.t_max}": self.optimal[:, self.t_max],
        }
        for policy, tie_break in self.errors:
            suffix = "" if tie_break == "least_probable" else f"_{tie_break}"
            columns[f"mic_{policy}{suffix}"] = self.mic(policy, tie_break)
            columns[f"max_gap_{policy}{suffix}"] = self.gaps(policy, tie_break)[:, 1:].max(axis=1)
        return pd.DataFrame(columns)

    def shares(self) -> dict[tuple[str, str], dict[str, float]]:
        """Per (policy, tie-break): share of DNFs with m(t_max) < 0.01 and > 0.05, mean, max."""
        out = {}
        for key in self.errors:
            values = self.mic(*key)
            out[key] = {
                "below_0.01": float(np.mean(values < NEAR_OPTIMAL)),
                "above_0.05": float(np.mean(values > FAR_FROM_OPTIMAL)),
                "exactly_optimal": float(np.mean(values == 0.0)),
                "mean": float(values.mean()),
                "max": float(values.max()),
            }
        return out


def run_population_sweep(
    sweep: PopulationSweep | str,
    t_max: int = 100,
    *,
    jobs: int = 1,
    tie_breaks: tuple[str, ...] = ("least_probable", "most_probable"),
    progress: bool = False,
) -> SweepResult:
    """OPT, TopDown and BestFirst error curves for every DNF of ``sweep`` (section 8.2).

    Parameters
    ----------
    sweep : PopulationSweep or a key of :data:`SWEEPS`
    t_max : int
        Largest number of iterations; m(t_max) is the MIC reported (the paper uses 100).
    jobs : int
        Threads for the greedy runs (the numba kernels release the GIL); -1 for all cores.
    tie_breaks : tuple of str
        Tie-break rules of the greedy growth to run (see ``treebound.mic.population``).
    progress : bool
        Show a rich progress bar.
    """
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TimeElapsedColumn

    if isinstance(sweep, str):
        if sweep not in SWEEPS:
            raise ValueError(f"sweep must be one of {sorted(SWEEPS)}, got {sweep!r}")
        sweep = SWEEPS[sweep]
    if isinstance(t_max, bool) or not isinstance(t_max, (int, np.integer)) or t_max < 1:
        raise ValueError(f"t_max must be an int >= 1, got {t_max!r}")
    for tie_break in tie_breaks:
        if tie_break not in TIE_BREAKS:
            raise ValueError(f"tie_break must be one of {sorted(TIE_BREAKS)}, got {tie_break!r}")
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    states = sweep.states()
    counts, n_terms = _pad_states(states, len(sweep.class_probabilities))
    probabilities = np.asarray(sweep.class_probabilities, dtype=np.float64)
    errors: dict[tuple[str, str], np.ndarray] = {}
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        disable=not progress,
    ) as bar:
        task = bar.add_task(f"{sweep.name}: OPT (section 7 DP)", total=1)
        table = OptimalErrorTable.for_family(
            sweep.class_probabilities, sweep.max_terms, sweep.max_literals, int(t_max)
        )
        optimal = table.values[np.array([table.space.index[s] for s in states], dtype=np.int64)]
        bar.update(task, completed=1)
        seconds["optimal"] = time.perf_counter() - start
        for tie_break in tie_breaks:
            for policy in POLICIES:
                run_start = time.perf_counter()
                task = bar.add_task(f"{sweep.name}: {policy} ({tie_break})")
                errors[(policy, tie_break)] = _greedy_errors(
                    counts, n_terms, probabilities, policy, tie_break, int(t_max), jobs,
                    advance=lambda fraction, task=task: bar.update(task, completed=fraction),
                )
                seconds[f"{policy}/{tie_break}"] = time.perf_counter() - run_start
    seconds["total"] = time.perf_counter() - start
    return SweepResult(sweep, int(t_max), states, optimal, errors, seconds)


def write_sweep_outputs(result: SweepResult, out_dir: Path) -> dict[str, Path]:
    """Write ``mic_<sweep>.csv`` (one row per DNF) and ``mic_<sweep>.png`` (a Figure 4 panel)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / f"mic_{result.sweep.name}.csv"
    result.summary_frame().to_csv(csv_path, index_label="dnf")
    png_path = out_dir / f"mic_{result.sweep.name}.png"
    panel = figure4_panel(
        result.sweep.name,
        {label: result.mic(policy, "least_probable") for policy, label in POLICY_LABELS.items()},
    )
    plot_mic_histograms([panel], png_path, t_star=result.t_max)
    return {"csv": csv_path, "png": png_path}


def figure4_panel(title: str, values: dict[str, np.ndarray]) -> tuple[str, dict[str, np.ndarray]]:
    """One panel of Figure 4: a title and m(t*) over all DNFs per algorithm."""
    first = next(iter(values.values()))
    return f"{title} ({first.size:,} DNFs)", values


def plot_mic_histograms(panels, path: Path, t_star: int, suptitle: str | None = None) -> Path:
    """Figure 4: histograms of m(t*) over all DNFs of each sweep, TopDown vs BestFirst, log y.

    ``panels`` is a list of :func:`figure4_panel` outputs, drawn side by side.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
    for ax, (title, values) in zip(axes[0], panels, strict=True):
        top = max(float(v.max()) for v in values.values())
        bins = np.linspace(0.0, max(top, FAR_FROM_OPTIMAL) * 1.02, 41)
        ax.hist(list(values.values()), bins=bins, label=list(values), log=True)
        for threshold in (NEAR_OPTIMAL, FAR_FROM_OPTIMAL):
            ax.axvline(threshold, color="0.5", linestyle=":", linewidth=1)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(f"m({t_star})")
        ax.set_ylabel("number of DNFs")
        ax.legend(fontsize=8)
    if suptitle:
        fig.suptitle(suptitle, fontsize=10)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _greedy_errors(counts, n_terms, probabilities, policy, tie_break, t_max, jobs, advance):
    """Errors of one growth policy on every DNF, in batches over ``jobs`` threads."""
    from joblib import Parallel, delayed

    n_dnf = counts.shape[0]
    batches = [slice(lo, min(lo + BATCH_SIZE, n_dnf)) for lo in range(0, n_dnf, BATCH_SIZE)]

    def run_batch(batch):
        return batch, grow_population_batch(
            counts[batch],
            n_terms[batch],
            probabilities,
            POLICIES[policy],
            TIE_BREAKS[tie_break],
            t_max,
            TIE_TOLERANCE,
        )

    errors = np.empty((n_dnf, t_max + 1))
    done = 0
    # Threads, not processes: the kernel releases the GIL and nothing needs pickling.
    for batch, part in Parallel(n_jobs=jobs, prefer="threads", return_as="generator")(
        delayed(run_batch)(batch) for batch in batches
    ):
        errors[batch] = part
        done += part.shape[0]
        advance(100.0 * done / n_dnf)
    return errors


def _pad_states(states, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    max_terms = max(len(s) for s in states)
    counts = np.zeros((len(states), max_terms, n_classes), dtype=np.int64)
    n_terms = np.zeros(len(states), dtype=np.int64)
    for d, state in enumerate(states):
        n_terms[d] = len(state)
        for i, profile in enumerate(state):
            counts[d, i] = profile
    return counts, n_terms
