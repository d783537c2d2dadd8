"""Yıldız (2015) section 4.2, Tables 1–2: NOprune, CVprune and SRMprune by 10 x 10-fold CV.

Every feature of these datasets is discrete and is treated as nominal. For each repetition
``r`` (seed ``r``) and fold of a stratified 10-fold split, a tree is grown to purity with the
entropy criterion (ID3-like) and

* ``noprune`` — kept as grown;
* ``cvprune`` — reduced-error pruning: grown on 80 % of the training folds, pruned on 20 %;
* ``srmprune`` — SRM pruning with ``a1 = 0.1``, ``a2 = 2.0`` and Yıldız's VC lower bound.

Two split protocols: ``multiway`` (one child per category, the L-ary trees of the paper) and
``binary`` (subset splits). Reported: test error in percent and tree size in nodes (internal
nodes and leaves), the quantities of the paper's Tables 1 and 2.
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["PAPER_NAMES", "SRM_DATASETS", "SRM_FIELDS", "SrmTask", "run_srm_benchmark",
           "run_srm_fold"]

SRM_DATASETS = ("kr_vs_kp", "monk1", "monk2", "monk3", "mushroom",
                "molecular_biology_promoters", "spect", "tic_tac_toe", "titanic", "vote")
#: Our dataset -> Yıldız's abbreviation (the paper has a single "Mon" row for the monks).
PAPER_NAMES = {"kr_vs_kp": "Krv", "monk1": "Mon", "monk2": "Mon", "monk3": "Mon",
               "mushroom": "Mus", "molecular_biology_promoters": "Pro", "spect": "Spe",
               "tic_tac_toe": "Tic", "titanic": "Tit", "vote": "Vot"}
SRM_MODELS = ("noprune", "cvprune", "srmprune")
SPLITS = ("multiway", "binary")
SRM_FIELDS = ["dataset", "split_kind", "repetition", "fold", "model", "error_pct", "n_nodes",
              "n_leaves", "prune_seconds"]


@dataclass(frozen=True)
class SrmTask:
    dataset: str
    split_kind: str
    repetition: int
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    n_folds: int = 10

    @property
    def key(self):
        return (self.dataset, self.split_kind, self.repetition)


def run_srm_fold(task: SrmTask) -> list[dict]:
    """All folds of one repetition: one row per (fold, model)."""
    from sklearn.model_selection import StratifiedKFold

    from treebound import DecisionTreeClassifier

    rows = []
    folds = StratifiedKFold(task.n_folds, shuffle=True, random_state=task.repetition)
    categorical = list(range(task.X.shape[1]))
    for fold, (tr, te) in enumerate(folds.split(task.X, task.y)):
        X_test = _unseen_to_mode(task.X[tr], task.X[te])
        common = {"criterion": "entropy", "categorical_features": categorical,
                  "categorical_split": task.split_kind, "random_state": task.repetition}
        for model, extra in (("noprune", {}), ("cvprune", {"pruning": "reduced_error"}),
                             ("srmprune", {"pruning": "srm",
                                           "pruning_params": {"a1": 0.1, "a2": 2.0}})):
            started = time.perf_counter()
            est = DecisionTreeClassifier(**common, **extra).fit(task.X[tr], task.y[tr])
            del started
            error = 100.0 * float(np.mean(est.predict(X_test) != task.y[te]))
            rows.append({"dataset": task.dataset, "split_kind": task.split_kind,
                         "repetition": task.repetition, "fold": fold, "model": model,
                         "error_pct": error, "n_nodes": est.tree_.flat.n_nodes,
                         "n_leaves": est.tree_.flat.n_leaves, "prune_seconds": est.pruning_time_})
    return rows


def _unseen_to_mode(X_train, X_test):
    """Test values of a nominal feature never seen in the training folds are replaced by the
    feature's most frequent training value (the estimators reject unseen categories)."""
    X_test = X_test.copy()
    for j in range(X_train.shape[1]):
        values, counts = np.unique(X_train[:, j], return_counts=True)
        unseen = ~np.isin(X_test[:, j], values)
        if unseen.any():
            X_test[unseen, j] = values[np.argmax(counts)]
    return X_test


def _paper(reference_dir):
    out = {}
    for table, key in (("yildiz_table1_error_rates.csv", "error"),
                       ("yildiz_table2_tree_complexity.csv", "nodes")):
        path = Path(reference_dir) / table if reference_dir else None
        if path is None or not path.is_file():
            continue
        with path.open(newline="") as handle:
            for rec in csv.DictReader(handle):
                cols = [c for c in rec if c.endswith("_mean")]
                out[(rec["dataset"], rec["model"], key)] = (
                    float(rec[cols[0]]), float(rec[cols[0].replace("_mean", "_std")]))
    return out


TITLE = "SRM pruning: Yıldız (2015) Tables 1–2 protocol"


def write_srm_markdown(rows, path, reference_dir=None, header=None) -> str:
    """Write the results page and return its text (``header``: the provenance lines of
    :func:`~treebound_lab.provenance.results_header`, taken before the run; default:
    now)."""
    from collections import defaultdict

    from treebound_lab.provenance import results_header

    paper = _paper(reference_dir)
    groups = defaultdict(lambda: defaultdict(list))
    for r in rows:
        g = groups[(r["dataset"], r["split_kind"], r["model"])]
        g["error_pct"].append(float(r["error_pct"]))
        g["n_nodes"].append(float(r["n_nodes"]))
    present = {k[0] for k in groups}
    datasets = [d for d in SRM_DATASETS if d in present] + sorted(present - set(SRM_DATASETS))
    lines = list(header or results_header(TITLE)) + [
             "10 x 10-fold stratified CV (seeds 0..9); trees grown to purity with the entropy "
             "criterion, every feature nominal; `cvprune` = reduced-error pruning with 20 % of "
             "the training folds held out, `srmprune` = SRM pruning with a1 = 0.1, a2 = 2.0 and "
             "Yıldız's VC lower bound (Theorem 5 base, one feature less per level). A test value "
             "of a feature never seen in the training folds is replaced by that feature's most "
             "frequent training value. Mean ± std over all folds; the paper's numbers (Yıldız 2015) beside ours (its single "
             "\"Mon\" row is shown for each of monk1–3; the paper does not say which MONK "
             "problem it is).", ""]
    for kind in SPLITS:
        if not any(k[1] == kind for k in groups):
            continue
        for metric, title, key in (("error_pct", "Test error (%)", "error"),
                                   ("n_nodes", "Tree size (nodes)", "nodes")):
            lines += [f"## {kind} splits — {title}", "",
                      "| dataset | " + " | ".join(f"`{m}`" for m in SRM_MODELS)
                      + " | paper NOprune | paper CVprune | paper SRMprune |",
                      "|---|" + "---|" * (2 * len(SRM_MODELS))]
            for d in datasets:
                cells = [d]
                for m in SRM_MODELS:
                    v = np.asarray(groups[(d, kind, m)][metric])
                    digits = 1
                    cells.append(f"{v.mean():.{digits}f} ± {v.std():.{digits}f}" if v.size
                                 else "–")
                for m in SRM_MODELS:
                    ref = paper.get((PAPER_NAMES.get(d, ""), m, key))
                    cells.append(f"{ref[0]:g} ± {ref[1]:g}" if ref else "")
                lines.append("| " + " | ".join(cells) + " |")
            lines.append("")
        wins = []
        for d in datasets:
            e = {m: np.mean(groups[(d, kind, m)]["error_pct"]) for m in SRM_MODELS}
            wins.append(e["srmprune"] <= e["cvprune"])
        lines.append(f"- {kind}: `srmprune` error <= `cvprune` error on {sum(wins)} of "
                     f"{len(wins)} datasets.")
        lines.append("")
    text = "\n".join(lines) + "\n"
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text)
    return text


def run_srm_benchmark(data_dir, *, datasets=None, repetitions=10, split_kinds=SPLITS, jobs=1,
                      scheduler=None, resume=False, out_md="benchmarks/results/srm.md",
                      out_csv=None, reference_dir=None, command=None, echo=print):
    """Run the 10 x 10-fold grid (resumable through ``out_csv``) and write the page
    (``command``: the command line named in its header)."""
    from treebound_lab.datasets import load_dataset
    from treebound_lab.grid import append_rows, read_rows, run_grid
    from treebound_lab.provenance import results_header

    # the provenance of the code that runs, taken before the (long) run
    header = results_header(TITLE, command)
    out_csv = Path(out_csv) if out_csv else Path(out_md).with_suffix(".csv")
    names = list(datasets) if datasets else list(SRM_DATASETS)
    for kind in split_kinds:
        if kind not in SPLITS:
            raise ValueError(f"unknown split kind {kind!r}: expected one of {SPLITS}")
    # the data first: a wrong --data-dir must fail before the results of an earlier run go
    loaded = {name: load_dataset(data_dir, name) for name in names}
    previous = read_rows(out_csv) if resume else []
    if not resume and out_csv.exists():
        out_csv.unlink()
    done = {(r["dataset"], r["split_kind"], int(r["repetition"])) for r in previous}
    tasks = []
    for name in names:
        data = loaded[name]
        for kind in split_kinds:
            for rep in range(repetitions):
                task = SrmTask(name, kind, rep, data.X, data.y)
                if task.key not in done:
                    tasks.append(task)
    echo(f"{len(tasks)} repetitions to run ({len(done)} already in {out_csv})")
    run_grid(run_srm_fold, tasks, jobs=jobs, scheduler=scheduler,
             on_result=lambda rows: append_rows(out_csv, rows, SRM_FIELDS),
             description="srm bench")
    rows = [r for r in read_rows(out_csv) if r["dataset"] in names
            and r["split_kind"] in split_kinds and int(r["repetition"]) < repetitions]
    write_srm_markdown(rows, out_md, reference_dir, header=header)
    return rows
