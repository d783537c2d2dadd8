"""Finite-sample TopDown vs BestFirst, Brutzkus, Daniely & Malach (2020), §8.3, Appendix F, Figure 5.

The target is the read-once DNF with 10 terms of sizes [3, 3, 4, 5, 3, 4, 3, 5, 4, 4] on n = 38
variables, ``x`` follows the uniform distribution or a two-valued product distribution in which
half of the variables (chosen at random) are Bernoulli(p1) and the others Bernoulli(p2),
(p1, p2) ∈ {(0.3, 0.7), (0.4, 0.6)}. For every training-set size |S| ∈ {50, 100, 1000, 2000,
3000, 4000, 10000, 20000, 50000} and each of 10 repetitions, a training set and a 10,000-point
test set are drawn, and the main estimator (:class:`treebound.DecisionTreeClassifier`, entropy,
``growth="top_down"`` or ``"best_first"``, at most 20 splits, only leaves with >= 20 points split)
is fitted on the same training set with both growth orders and scored on the same test set.

Besides the test-set error of the paper, every row records the tree's exact error under the
distribution (the sum over its leaves of P[leaf] · P[label wrong | leaf], from
``treebound.mic.probability_positive``), free of test-set noise. The population-setting curves of
``treebound.mic`` at t = 20 (TopDown, BestFirst under both tie-break rules, and OPT(20)) are the
limits the finite-sample errors are compared with.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from treebound.mic import ProductDistribution, ReadOnceDNF, best_first, optimal_errors, top_down
from treebound.mic.distributions import probability_positive

if TYPE_CHECKING:  # pandas is imported by the functions that build frames
    import pandas as pd

__all__ = [
    "FINITE_SAMPLE_DISTRIBUTIONS",
    "PAPER_TERM_SIZES",
    "PAPER_TRAIN_SIZES",
    "FiniteSampleExperiment",
    "FiniteSampleResult",
    "plot_figure5",
    "run_finite_sample",
    "tree_population_error",
    "write_finite_sample_outputs",
]

#: Appendix F's target DNF (n = 38) and training-set sizes.
PAPER_TERM_SIZES: tuple[int, ...] = (3, 3, 4, 5, 3, 4, 3, 5, 4, 4)
PAPER_TRAIN_SIZES: tuple[int, ...] = (50, 100, 1000, 2000, 3000, 4000, 10000, 20000, 50000)

#: Distribution name -> literal probabilities: (1/2,) uniform, (p1, p2) two-valued (section 7.2).
FINITE_SAMPLE_DISTRIBUTIONS: dict[str, tuple[float, ...]] = {
    "uniform": (0.5,),
    "p0.3-0.7": (0.3, 0.7),
    "p0.4-0.6": (0.4, 0.6),
}

# Seeds use a distribution's position here, so they do not depend on which ones are run.
_DISTRIBUTION_KEYS = tuple(FINITE_SAMPLE_DISTRIBUTIONS)

#: Estimator growth order -> legend name, in plotting order.
ALGORITHMS = {"top_down": "TopDown", "best_first": "BestFirst"}


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class FiniteSampleExperiment:
    """The protocol of Appendix F; the defaults are the paper's.

    Parameters
    ----------
    term_sizes : tuple of int
        Sizes of the terms of the monotone target DNF on consecutive variables.
    train_sizes : tuple of int
        Training-set sizes, each >= 2.
    test_size : int
    repetitions : int
        Independent (training set, test set) draws per size.
    max_splits : int
        Iterations t of both algorithms (``max_leaf_nodes = max_splits + 1``).
    min_samples_split : int
        A leaf is split only if at least this many training points reach it.
    distributions : tuple of str
        Keys of :data:`FINITE_SAMPLE_DISTRIBUTIONS`.
    seed : int
        Seeds the two-valued groups and every draw (a draw depends only on the seed, the
        distribution, the training-set size and the repetition, not on ``--jobs`` or on which
        other sizes and distributions are run).
    """

    term_sizes: tuple[int, ...] = PAPER_TERM_SIZES
    train_sizes: tuple[int, ...] = PAPER_TRAIN_SIZES
    test_size: int = 10000
    repetitions: int = 10
    max_splits: int = 20
    min_samples_split: int = 20
    distributions: tuple[str, ...] = tuple(FINITE_SAMPLE_DISTRIBUTIONS)
    seed: int = 0

    def __post_init__(self):
        for name in ("test_size", "repetitions", "max_splits", "min_samples_split"):
            _positive_int(name, getattr(self, name))
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or (
            self.seed < 0
        ):
            raise ValueError(f"seed must be an int >= 0, got {self.seed!r}")
        if not self.term_sizes:
            raise ValueError("term_sizes must list at least one term")
        for size in self.term_sizes:
            _positive_int("every term size", size)
        if not self.train_sizes:
            raise ValueError("train_sizes must list at least one size")
        for size in self.train_sizes:
            if _positive_int("every training-set size", size) < 2:
                raise ValueError(f"training-set sizes must be >= 2, got {size}")
        if list(self.train_sizes) != sorted(set(self.train_sizes)):
            raise ValueError(f"train_sizes must be increasing, got {list(self.train_sizes)}")
        unknown = [d for d in self.distributions if d not in FINITE_SAMPLE_DISTRIBUTIONS]
        if unknown or not self.distributions:
            raise ValueError(
                f"distributions must be among {sorted(FINITE_SAMPLE_DISTRIBUTIONS)}, got "
                f"{list(self.distributions)}"
            )

    @property
    def target(self) -> ReadOnceDNF:
        return ReadOnceDNF.from_term_sizes(self.term_sizes)

    def distribution(self, name: str) -> ProductDistribution:
        """The product distribution ``name``; two-valued groups are a seeded half/half split."""
        n = self.target.n_variables
        probabilities = FINITE_SAMPLE_DISTRIBUTIONS[name]
        if len(probabilities) == 1:
            return ProductDistribution.uniform(n)
        rng = np.random.default_rng([self.seed, _DISTRIBUTION_KEYS.index(name), 0xD157])
        groups = rng.permutation(np.repeat([1, 2], [n // 2, n - n // 2]))
        return ProductDistribution.two_valued(*probabilities, groups)

    def task_rng(self, name: str, size_index: int, repetition: int) -> np.random.Generator:
        """Generator of one (training set, test set) draw."""
        return np.random.default_rng(
            [self.seed, _DISTRIBUTION_KEYS.index(name), self.train_sizes[size_index], repetition]
        )


@dataclass
class FiniteSampleResult:
    """Rows of :func:`run_finite_sample`.

    Attributes
    ----------
    experiment : FiniteSampleExperiment
    rows : pandas.DataFrame
        One row per (distribution, train_size, repetition, algorithm): ``test_error`` (on the
        test set), ``exact_error`` (under the distribution), ``n_leaves``, ``depth``,
        ``fit_seconds``.
    reference : pandas.DataFrame
        One row per (distribution, algorithm) with the exact population-setting error at
        t = ``max_splits``: ``TopDown``, ``BestFirst`` (ties to the least probable leaf),
        ``BestFirst (ties to most probable)`` and ``OPT``.
    seconds : dict
    """

    experiment: FiniteSampleExperiment
    rows: pd.DataFrame
    reference: pd.DataFrame
    seconds: dict[str, float] = field(default_factory=dict)

    def summary(self) -> pd.DataFrame:
        """Mean and standard deviation over repetitions per distribution, size and algorithm."""
        grouped = self.rows.groupby(["distribution", "train_size", "algorithm"], sort=False)
        columns = ["test_error", "exact_error", "n_leaves", "depth"]
        summary = grouped[columns].agg(["mean", "std"])
        summary.columns = [f"{column}_{stat}" for column, stat in summary.columns]
        return summary.reset_index()


def tree_population_error(tree, classes, dnf: ReadOnceDNF, dist: ProductDistribution) -> float:
    """Exact error of a fitted binary tree on 0/1 features: Σ_leaves P[leaf] P[label wrong | leaf].

    Parameters
    ----------
    tree : treebound.tree.Tree
        Fitted on the 0/1 matrix of ``dist.sample`` (every test is ``x_v <= threshold`` with
        0 <= threshold < 1, so the first child is ``x_v = 0``).
    classes : ndarray
        The estimator's ``classes_`` (labels 0 and 1, or only one of them).
    """
    if not np.all(np.isin(classes, (0, 1))):
        raise ValueError(f"classes must be 0/1 labels, got {list(classes)}")
    total = 0.0
    stack: list[tuple[int, dict[int, int]]] = [(0, {})]
    while stack:
        node, path = stack.pop()
        if tree.first_child[node] < 0:
            label = int(classes[int(np.argmax(tree.value[node]))])
            q = probability_positive(dnf, dist, path)
            total += dist.path_probability(path) * (q if label == 0 else 1.0 - q)
            continue
        if tree.n_children[node] != 2 or not 0.0 <= tree.threshold[node] < 1.0:
            raise ValueError(f"node {node} is not a binary test x <= t with 0 <= t < 1")
        variable = int(tree.feature[node])
        for value in (0, 1):
            stack.append((int(tree.first_child[node]) + value, {**path, variable: value}))
    return total


def _fit_and_score(experiment, dnf, dist, name, size_index, repetition):
    """Draw one training and test set and score both growth orders on them."""
    from treebound import DecisionTreeClassifier

    rng = experiment.task_rng(name, size_index, repetition)
    train_size = experiment.train_sizes[size_index]
    X_train = dist.sample(train_size, rng)
    y_train = dnf.evaluate(X_train)
    X_test = dist.sample(experiment.test_size, rng)
    y_test = dnf.evaluate(X_test)
    rows = []
    for algorithm in ALGORITHMS:
        model = DecisionTreeClassifier(
            criterion="entropy",
            growth=algorithm,
            max_leaf_nodes=experiment.max_splits + 1,
            min_samples_split=experiment.min_samples_split,
            categorical_features=None,
        )
        start = time.perf_counter()
        model.fit(X_train, y_train)
        fit_seconds = time.perf_counter() - start
        rows.append(
            {
                "distribution": name,
                "train_size": train_size,
                "repetition": repetition,
                "algorithm": ALGORITHMS[algorithm],
                "test_error": float(np.mean(model.predict(X_test) != y_test)),
                "exact_error": tree_population_error(model.tree_.flat, model.classes_, dnf, dist),
                "n_leaves": model.get_n_leaves(),
                "depth": model.get_depth(),
                "fit_seconds": fit_seconds,
            }
        )
    return rows


def _population_reference(experiment, dnf, name):
    dist = experiment.distribution(name)
    t = experiment.max_splits
    curves = {
        "TopDown": top_down(dnf, dist, t).errors,
        "BestFirst": best_first(dnf, dist, t).errors,
        "BestFirst (ties to most probable)": best_first(
            dnf, dist, t, tie_break="most_probable"
        ).errors,
        "OPT": optimal_errors(dnf, dist, t),
    }
    return [
        {"distribution": name, "algorithm": algorithm, "t": t, "population_error": float(c[t])}
        for algorithm, c in curves.items()
    ]


def run_finite_sample(
    experiment: FiniteSampleExperiment | None = None, *, jobs: int = 1, progress: bool = False
) -> FiniteSampleResult:
    """Run the finite-sample experiment (Appendix F) and its population-setting references.

    Parameters
    ----------
    experiment : FiniteSampleExperiment, optional
        Defaults to the paper's protocol.
    jobs : int
        Threads for the (distribution, size, repetition) tasks; the tree kernels release the GIL.
    progress : bool
        Show a rich progress bar.
    """
    import pandas as pd
    from joblib import Parallel, delayed
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TimeElapsedColumn

    experiment = FiniteSampleExperiment() if experiment is None else experiment
    if not isinstance(experiment, FiniteSampleExperiment):
        raise TypeError(
            f"experiment must be a FiniteSampleExperiment, got {type(experiment).__name__}"
        )
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or jobs == 0:
        raise ValueError(f"jobs must be a non-zero int (-1: all cores), got {jobs!r}")
    dnf = experiment.target
    tasks = [
        (name, size_index, repetition)
        for name in experiment.distributions
        for size_index in range(len(experiment.train_sizes))
        for repetition in range(experiment.repetitions)
    ]
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    rows: list[dict] = []
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        disable=not progress,
    ) as bar:
        fits = bar.add_task("finite sample: fit TopDown and BestFirst", total=len(tasks))
        dists = {name: experiment.distribution(name) for name in experiment.distributions}
        # Threads: the growth kernel releases the GIL and nothing needs pickling.
        for task_rows in Parallel(n_jobs=jobs, prefer="threads", return_as="generator")(
            delayed(_fit_and_score)(experiment, dnf, dists[name], name, size_index, repetition)
            for name, size_index, repetition in tasks
        ):
            rows.extend(task_rows)
            bar.advance(fits)
        seconds["fits"] = time.perf_counter() - start
        reference_start = time.perf_counter()
        references = bar.add_task(
            f"population TopDown / BestFirst / OPT at t = {experiment.max_splits}",
            total=len(experiment.distributions),
        )
        reference_rows = []
        for name in experiment.distributions:
            reference_rows.extend(_population_reference(experiment, dnf, name))
            bar.advance(references)
        seconds["population"] = time.perf_counter() - reference_start
    seconds["total"] = time.perf_counter() - start
    return FiniteSampleResult(
        experiment, pd.DataFrame(rows), pd.DataFrame(reference_rows), seconds
    )


def write_finite_sample_outputs(result: FiniteSampleResult, out_dir: Path) -> dict[str, Path]:
    """Write the rows, the summary, the population references (CSV) and Figure 5 (PNG)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "rows": out_dir / "mic_finite_sample.csv",
        "summary": out_dir / "mic_finite_sample_summary.csv",
        "reference": out_dir / "mic_finite_sample_population.csv",
        "png": out_dir / "mic_figure5.png",
    }
    result.rows.to_csv(paths["rows"], index=False, float_format="%.6g")
    result.summary().to_csv(paths["summary"], index=False, float_format="%.6g")
    result.reference.to_csv(paths["reference"], index=False, float_format="%.6g")
    plot_figure5(result.summary(), result.reference, paths["png"], result.experiment)
    return paths


def plot_figure5(summary, reference, path: Path, experiment: FiniteSampleExperiment) -> Path:
    """Figure 5: test error vs training-set size (log x), one panel per distribution.

    Lines are the mean over repetitions with a ± one standard deviation band. Horizontal lines are
    the population-setting errors at t = ``max_splits``: dashed in each algorithm's colour
    (BestFirst dash-dotted with ties to the most probable leaf) and dotted black for OPT(t).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(summary["distribution"]))
    fig, axes = plt.subplots(1, len(names), figsize=(4.4 * len(names), 3.9), squeeze=False)
    t = experiment.max_splits
    curves = {"TopDown": "tab:blue", "BestFirst": "tab:orange"}
    # (reference row, colour, line style, legend label)
    limits = [
        ("TopDown", "tab:blue", "--", f"TopDown, population, t = {t}"),
        ("BestFirst", "tab:orange", "--", f"BestFirst, population, t = {t}"),
        ("BestFirst (ties to most probable)", "tab:orange", "-.",
         "BestFirst, population, ties to most probable"),
        ("OPT", "black", ":", f"OPT({t})"),
    ]
    for ax, name in zip(axes[0], names, strict=True):
        for algorithm, color in curves.items():
            part = summary[(summary["distribution"] == name) & (summary["algorithm"] == algorithm)]
            mean = part["test_error_mean"].to_numpy()
            std = np.nan_to_num(part["test_error_std"].to_numpy())
            ax.plot(part["train_size"], mean, "o-", color=color, markersize=4,
                    label=f"{algorithm}, test error (mean ± std)")
            ax.fill_between(part["train_size"], mean - std, mean + std, color=color, alpha=0.2)
        for algorithm, color, style, label in limits:
            value = reference[(reference["distribution"] == name)
                              & (reference["algorithm"] == algorithm)]["population_error"]
            if len(value):
                ax.axhline(float(value.iloc[0]), color=color, linestyle=style, linewidth=1,
                           label=label)
        ax.set_xscale("log")
        ax.set_title(_panel_title(name), fontsize=10)
        ax.set_xlabel("training-set size")
        ax.set_ylabel("test error")
        ax.grid(True, which="major", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    fig.suptitle(
        f"{len(experiment.term_sizes)}-term read-once DNF, n = {sum(experiment.term_sizes)}, "
        f"<= {t} splits, min {experiment.min_samples_split} points to split, "
        f"{experiment.repetitions} repetitions, test set {experiment.test_size:,}",
        fontsize=9,
    )
    fig.tight_layout(rect=(0.0, 0.13, 1.0, 1.0))
    path = Path(path)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _panel_title(name: str) -> str:
    probabilities = FINITE_SAMPLE_DISTRIBUTIONS[name]
    if len(probabilities) == 1:
        return "uniform distribution"
    return f"product distribution, p1 = {probabilities[0]}, p2 = {probabilities[1]}"
