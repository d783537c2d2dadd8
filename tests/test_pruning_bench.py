"""The pruning and SRM benchmarks on tiny synthetic datasets: loader, grid, resume, Dask, CLI."""

import gzip
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from treebound.cli.main import app
from treebound_lab.datasets import load_dataset, read_feature_types
from treebound_lab.grid import read_rows
from treebound_lab.paper_cart import paper_cart_cv
from treebound_lab.pruning_bench import default_datasets, run_benchmark
from treebound_lab.srm_bench import run_srm_benchmark

META = """#Generated automatically
dataset: {name}
task: classification
target:
  type: binary
features: # list of features in the dataset
  - name: a
    type: {kind}
    description: null
  - name: b
    type: {kind}
"""


def _write(dir_, name, X, y, kind="continuous"):
    lines = ["a\tb\ttarget"] + [f"{r[0]}\t{r[1]}\t{t}" for r, t in zip(X, y, strict=True)]
    with gzip.open(dir_ / f"{name}.tsv.gz", "wt") as handle:
        handle.write("\n".join(lines) + "\n")
    (dir_ / f"{name}.metadata.yaml").write_text(META.format(name=name, kind=kind))


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("datasets")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(160, 2)).round(3)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    y[rng.random(160) < 0.15] ^= 1
    _write(d, "toy", X, y)
    Xn = rng.integers(0, 3, size=(120, 2))
    yn = ((Xn[:, 0] == 1) | (Xn[:, 1] == 2)).astype(int)
    _write(d, "nominal", Xn, yn, kind="categorical")
    return d


def test_loader_and_metadata(data_dir):
    data = load_dataset(data_dir, "nominal")
    assert data.X.shape == (120, 2) and data.n_classes == 2
    assert data.feature_types == ("categorical", "categorical")
    assert read_feature_types(data_dir / "toy.metadata.yaml") == [("a", "continuous"),
                                                                   ("b", "continuous")]
    assert default_datasets(data_dir, max_rows=150) == ["nominal"]
    with pytest.raises(ValueError, match="not found"):
        load_dataset(data_dir, "missing")
    small = load_dataset(data_dir, "toy@40")
    assert small.n_samples == 40 and small.name == "toy@40"
    assert abs(small.y.mean() - load_dataset(data_dir, "toy").y.mean()) < 0.05  # stratified
    with pytest.raises(ValueError, match="NAME@ROWS"):
        load_dataset(data_dir, "toy@many")


MODELS = ("original", "ccp_cv", "ccp_cv_1se", "ccp_cv_paper", "bound", "srm", "reduced_error")


def test_pruning_benchmark_writes_tables_plot_and_resumes(data_dir, tmp_path):
    out = tmp_path / "pruning.md"
    rows = run_benchmark(data_dir, datasets=["toy"], n_splits=2, max_leaves=12,
                         protocols=("purest_children",), models=MODELS, out_md=out,
                         plot=tmp_path / "p.png", echo=lambda *_: None)
    assert len(rows) == 2 * len(MODELS)
    text = out.read_text()
    assert "## Protocol `purest_children`" in text and "| toy |" in text
    assert (tmp_path / "p.png").stat().st_size > 1000
    bound = [r for r in rows if r["model"] == "bound"]
    assert all(float(r["bound"]) > 0 for r in bound)
    # Resume: only the third split runs; the first two rows are kept as they were.
    seen = []
    run_benchmark(data_dir, datasets=["toy"], n_splits=3, max_leaves=12,
                  protocols=("purest_children",), models=MODELS, out_md=out, resume=True,
                  echo=seen.append)
    assert seen[0].startswith("1 splits to run (2 already")
    assert len(read_rows(out.with_suffix(".csv"))) == 3 * len(MODELS)


def test_defaults_protocol_fits_the_no_argument_classifier_beside_sklearn(data_dir, tmp_path):
    import math

    from sklearn.model_selection import train_test_split

    from treebound import DecisionTreeClassifier

    out = tmp_path / "defaults.md"
    rows = run_benchmark(data_dir, datasets=["toy"], n_splits=2, max_leaves=12,
                         protocols=("top_down", "defaults"), models=("bound", "defaults",
                                                                      "sklearn_ccp_cv"),
                         out_md=out, echo=lambda *_: None)
    mine = [r for r in rows if r["model"] == "defaults"]
    assert len(mine) == 2 and {r["protocol"] for r in mine} == {"defaults"}
    assert {r["model"] for r in rows if r["protocol"] == "top_down"} == {"bound"}
    data = load_dataset(data_dir, "toy")
    X_tr, X_te, y_tr, y_te = train_test_split(data.X, data.y, test_size=0.25, random_state=1)
    by_hand = DecisionTreeClassifier(pruning="bound").fit(X_tr, y_tr)
    first = next(r for r in mine if int(r["split"]) == 0)
    assert float(first["test_acc"]) == np.mean(by_hand.predict(X_te) == y_te)
    assert int(first["n_leaves"]) == by_hand.get_n_leaves() <= math.ceil(2 * math.sqrt(len(y_tr)))
    assert float(first["fit_seconds"]) > 0
    text = out.read_text()
    assert "## Protocol `defaults`" in text and "Mean over the 1 datasets of (`defaults`" in text
    assert "reporting" in text and "## Protocol `top_down`" in text


def test_dask_local_cluster_gives_the_same_runs(data_dir, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    kwargs = {"datasets": ["toy"], "n_splits": 2, "max_leaves": 10,
              "protocols": ("top_down",), "models": ("original", "bound", "srm"),
              "echo": lambda *_: None}
    serial = run_benchmark(data_dir, out_md=tmp_path / "a.md", **kwargs)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        remote = run_benchmark(data_dir, out_md=tmp_path / "b.md",
                               scheduler=cluster.scheduler_address, **kwargs)

    def key(r):
        return (r["split"], r["model"])

    assert [(k, r["test_acc"], r["n_leaves"]) for k, r in sorted((key(r), r) for r in serial)] \
        == [(k, r["test_acc"], r["n_leaves"]) for k, r in sorted((key(r), r) for r in remote)]


def _reference_paper_cart(tree, X, y, grow, n_folds):
    """The reference code's CART-CV on the library's pruning internals (the lab's first version,
    kept as the oracle of its public-API one): class indices, fold trees from ``grow``."""
    from sklearn.model_selection import KFold

    from treebound.pruning._core import WorkingTree, node_statistics

    def strengths(work):
        nodes = work.internal_nodes()
        gain = work.stats.leaf_loss[nodes] - work.loss[nodes]
        return nodes, gain / (work.stats.total_weight * (work.leaves[nodes] - 1.0))

    def cut(work, threshold):
        nodes, g = strengths(work)
        for v in nodes[g <= threshold].tolist():
            if work.alive[v] and not work.collapsed[v]:
                work.collapse(v)

    work = WorkingTree(tree, node_statistics(tree))
    nodes, coefs = strengths(work)
    thresholds = np.sort(coefs)
    errors = np.zeros(thresholds.shape[0])
    for train_idx, val_idx in KFold(n_splits=n_folds).split(X):
        fold = grow(X[train_idx], y[train_idx])
        fold_work = WorkingTree(fold)
        for k, threshold in enumerate(thresholds.tolist()):
            cut(fold_work, threshold)
            pruned = fold.collapse(fold_work.make_leaf_mask())[0]
            pred = pruned.majority_class[pruned.apply(X[val_idx])]
            errors[k] += np.count_nonzero(pred != y[val_idx])
    best = np.flatnonzero(errors == errors.min())
    threshold = (thresholds[best[0]] + thresholds[best[-1]]) / 2.0
    make_leaf = np.zeros(tree.n_nodes, dtype=bool)
    make_leaf[nodes[coefs <= threshold]] = True
    return tree.collapse(make_leaf)[0], float(threshold)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_paper_cart_matches_its_reference(seed):
    from treebound import DecisionTreeClassifier

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(240, 3))
    y = np.where(X[:, 0] > 0, "up", np.where(X[:, 1] > 0.5, "side", "down"))
    flip = rng.random(240) < 0.2
    y[flip] = rng.choice(["up", "side", "down"], size=flip.sum())
    model = DecisionTreeClassifier(growth="purest_children", max_leaf_nodes=20,
                                   categorical_features=None, random_state=seed).fit(X, y)
    pruned, threshold = paper_cart_cv(model, X, y, n_folds=5)
    assert pruned.n_leaves < model.get_n_leaves() and threshold >= 0.0

    index = np.searchsorted(model.classes_, y)

    def fold_grow(Xf, yf):  # the fold's classes are all three: indices agree with the model's
        fold = DecisionTreeClassifier(**model.get_params()).fit(Xf, model.classes_[yf])
        assert fold.classes_.tolist() == model.classes_.tolist()
        return fold.tree_.flat

    reference, ref_threshold = _reference_paper_cart(model.tree_.flat, X, index, fold_grow, 5)
    assert threshold == ref_threshold
    assert pruned.n_leaves == reference.n_leaves
    assert np.array_equal(pruned.apply(X), reference.apply(X))


def test_paper_cart_of_a_single_leaf_is_that_leaf():
    from treebound import DecisionTreeClassifier

    X = np.zeros((20, 2))
    model = DecisionTreeClassifier().fit(X, np.arange(20) % 2)
    pruned, threshold = paper_cart_cv(model, X, np.arange(20) % 2, n_folds=5)
    assert pruned.n_leaves == 1 and threshold == 0.0


def test_srm_benchmark_on_nominal_data(data_dir, tmp_path):
    out = tmp_path / "srm.md"
    rows = run_srm_benchmark(data_dir, datasets=["nominal"], repetitions=1, out_md=out,
                             echo=lambda *_: None)
    assert {r["model"] for r in rows} == {"noprune", "cvprune", "srmprune"}
    assert len(rows) == 2 * 10 * 3  # two split kinds, ten folds, three models
    text = out.read_text()
    assert "## multiway splits — Test error (%)" in text and "| nominal |" in text
    assert text.startswith("# SRM pruning") and "at commit `" in text.splitlines()[2]


def test_cli_bench_pruning_and_errors(data_dir, tmp_path, monkeypatch):
    runner = CliRunner()
    out = tmp_path / "cli.md"
    args = ["bench", "pruning", "--data-dir", str(data_dir), "--datasets", "toy", "--splits", "1",
            "--max-leaves", "8", "--models", "original", "--models", "bound", "--protocols",
            "top_down", "--out", str(out)]
    monkeypatch.setattr(sys, "argv", ["treebound", *args])  # what the header records
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "deprecated" not in result.output
    # the former spelling, one comma-separated value, still works for a release, with a warning
    old = runner.invoke(app, ["bench", "pruning", "--data-dir", str(data_dir), "--datasets",
                              "toy", "--splits", "1", "--max-leaves", "8", "--models",
                              "original,bound", "--protocols", "top_down", "--resume", "--out",
                              str(out)])
    assert old.exit_code == 0, old.output
    assert "--models original,bound: comma-separated values are deprecated" in old.output
    assert out.is_file() and "wrote" in result.output
    header = out.read_text().splitlines()[2]  # the provenance of results_header
    assert header.startswith("Generated by `treebound bench pruning --data-dir ") and \
        "Machine: " in header
    bad = runner.invoke(app, ["bench", "pruning", "--data-dir", str(tmp_path / "nowhere")])
    assert bad.exit_code == 2 and "does not exist" in bad.output
    bad = runner.invoke(app, ["bench", "pruning", "--data-dir", str(data_dir), "--models",
                              "magic", "--out", str(out)])
    assert bad.exit_code == 2 and "unknown models" in bad.output


def test_appending_with_new_columns_rewrites_an_older_csv(tmp_path):
    from treebound_lab.grid import append_rows

    path = tmp_path / "runs.csv"
    append_rows(path, [{"a": 1, "b": 2}], ["a", "b"])
    append_rows(path, [{"a": 3, "b": 4, "c": 5}], ["a", "b", "c"])
    assert read_rows(path) == [{"a": "1", "b": "2", "c": ""}, {"a": "3", "b": "4", "c": "5"}]
