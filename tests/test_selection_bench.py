"""The selection benchmark (bench_selection.py) on tiny synthetic datasets: rows, page, plot."""

import gzip
import itertools

import numpy as np
import pytest

from treebound_lab.selection_bench import (
    CERTIFIED_VARIANTS,
    CHECK_MODEL,
    RULES,
    _write_rows,
    peer_folds,
    read_rows,
    run_selection,
    tuning_datasets,
    tuning_sizes,
)
from treebound_lab.selection_report import (
    pareto_front,
    selection_plot,
    selection_report,
    summarize,
)


def _write(dir_, name, X, y):
    lines = ["a\tb\ttarget"] + [f"{r[0]}\t{r[1]}\t{t}" for r, t in zip(X, y, strict=True)]
    with gzip.open(dir_ / f"{name}.tsv.gz", "wt") as handle:
        handle.write("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("datasets")
    rng = np.random.default_rng(0)
    for name, n in (("toy", 160), ("tune", 140), ("small", 60), ("other", 90)):
        X = rng.normal(size=(n, 2)).round(3)
        y = (X[:, 0] + X[:, 1] > 0).astype(int)
        y[rng.random(n) < 0.15] ^= 1
        _write(d, name, X, y)
    return d


def test_pareto_front_matches_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(50):
        points = {f"m{i}": {"test_error": float(rng.integers(0, 4)),
                            "certificate": float(rng.integers(0, 4))} for i in range(6)}
        expected = {a for a in points if not any(
            points[b]["test_error"] <= points[a]["test_error"]
            and points[b]["certificate"] <= points[a]["certificate"]
            and (points[b]["test_error"], points[b]["certificate"])
            != (points[a]["test_error"], points[a]["certificate"])
            for b in points)}
        assert set(pareto_front(points)) == expected
        for a, b in itertools.combinations(pareto_front(points), 2):  # no one beats another
            pa, pb = points[a], points[b]
            assert not (pa["test_error"] < pb["test_error"]
                        and pa["certificate"] < pb["certificate"])


def test_selection_benchmark_rows_page_and_plot(data_dir, tmp_path):
    rows = run_selection(data_dir, ["toy"], ["tune@100"], 1, 1, "test", echo=lambda *_: None)
    report = {r["model"] for r in rows if r["group"] == "report"}
    tuning = {r["model"] for r in rows if r["group"] == "tuning"}
    assert report == {*RULES, *CERTIFIED_VARIANTS, "sklearn_cart_cv"}
    # the default band is chosen on the tuning data among explicit bands, so it runs there not
    assert tuning > set(RULES) - {"certified"} and "certified" not in tuning
    assert tuning >= set(CERTIFIED_VARIANTS) and "sklearn_cart_cv" in tuning
    assert {r["n_train"] for r in rows if r["group"] == "tuning"} == {75}  # 100 rows, 75/25
    assert any(m.startswith("bound e=") for m in tuning)
    for row in rows:
        assert 0 <= row["test_error"] <= 1 and 0 < row["certificate"] <= 1
    by = {r["model"]: r for r in rows if r["group"] == "report"}
    assert by["certified"]["certificate"] <= by["ccp_cv"]["certificate"]
    assert by["certified 1se"]["certificate"] <= by["ccp_cv_1se"]["certificate"]
    for band in CERTIFIED_VARIANTS:  # the tree of the CV minimum is in every band
        assert by[band]["certificate"] <= by["ccp_cv"]["certificate"]
    page = selection_report(rows, ["# title", ""], n_splits_report=1, n_splits_tuning=1,
                            tuning_names=["tune"], report_names=["toy"], peers_commit="",
                            seconds=1.0, tuning_sizes=[100])
    assert "## Report data" in page and "## Tuning data" in page and "Pareto front" in page
    assert "re-examined here" in page and "**Time**" in page and "chosen here" in page
    assert "The bands of `certified` on these data" in page
    assert "Per size" in page and "100 rows" in page and "with a margin for noise" in page
    # resuming skips the splits already written
    csv_path = tmp_path / "rows.csv"
    first = run_selection(data_dir, ["toy"], [], 1, 1, "test", echo=lambda *_: None,
                          csv_path=csv_path, skip={"certified"})
    assert "certified" not in {r["model"] for r in first}
    again = run_selection(data_dir, ["toy"], [], 1, 1, "test", echo=lambda *_: None,
                          csv_path=csv_path)
    assert [r["model"] for r in again] == [r["model"] for r in first] + ["certified"]
    assert [r["seconds"] for r in again][:-1] == pytest.approx([r["seconds"] for r in first])
    selection_plot(rows, tmp_path / "selection.png")
    assert (tmp_path / "selection.png").stat().st_size > 1000


def test_the_check_of_peers_csv_refits_with_its_folds(data_dir, tmp_path):
    peers = tmp_path / "peers.csv"
    header = "dataset,split,seed,model,n_fits\n"
    peers.write_text(header + "toy,0,1,ccp_cv,4\ntoy,0,1,sklearn_cart_cv,61\n")
    assert peer_folds(peers) == 3  # n_fits of ccp_cv = folds + 1
    peers.write_text(header + "toy,0,1,ccp_cv,4\ntoy,1,11,ccp_cv,11\n")
    assert peer_folds(peers) is None  # two fold counts: no single protocol
    assert peer_folds(tmp_path / "absent.csv") is None
    rows = run_selection(data_dir, ["toy"], [], 1, 1, "test", echo=lambda *_: None,
                         check_folds=3)
    check = [r for r in rows if r["model"] == CHECK_MODEL]
    assert len(check) == 1
    stored = dict(check[0], model="sklearn_cart_cv_stored")
    page = selection_report(rows + [stored], ["# title", ""], n_splits_report=1,
                            n_splits_tuning=1, tuning_names=[], report_names=["toy"],
                            peers_commit="abc", seconds=1.0, peers_folds=3)
    assert "made with 3-fold cross-validation" in page
    assert "is the stored tree (leaves and test error) on 1 of 1 splits" in page
    assert f"`{CHECK_MODEL}`" not in page  # a check, not a model of the page


def test_tuning_data_is_what_the_report_data_does_not_use_at_its_sizes(data_dir):
    assert tuning_datasets(data_dir, ["toy", "tune@50"]) == ["other", "small"]
    # row counts 60, 90, 140, 160: the quantiles 1/8, 3/8, 5/8, 7/8 are observed counts
    assert tuning_sizes(data_dir, ["small", "other", "tune", "toy"]) == [60, 90, 140, 160]
    assert tuning_sizes(data_dir, ["small", "toy"]) == [60, 160]


def test_every_split_of_a_tuning_cell_draws_its_own_subsample(data_dir):
    rows = run_selection(data_dir, [], ["tune@80"], 1, 2, "test", echo=lambda *_: None)
    by_split = {r["split"]: r for r in rows if r["model"] == "sklearn_cart_cv"}
    assert set(by_split) == {0, 1} and {r["seed"] for r in by_split.values()} == {1000, 1001}


def test_processes_give_the_rows_of_one_process(data_dir):
    one = run_selection(data_dir, ["small"], [], 2, 1, "test", echo=lambda *_: None)
    two = run_selection(data_dir, ["small"], [], 2, 1, "test", echo=lambda *_: None, jobs=2)
    key = ("dataset", "split", "model", "test_error", "certificate", "n_leaves")
    assert [tuple(r[k] for k in key) for r in one] == [tuple(r[k] for k in key) for r in two]


def test_redo_makes_the_rows_of_a_model_again_and_keeps_the_others(data_dir, tmp_path):
    csv_path = tmp_path / "rows.csv"
    quiet = {"echo": lambda *_: None, "csv_path": csv_path}
    first = run_selection(data_dir, ["small"], ["tune@80"], 1, 1, "one", **quiet)
    # mark every stored row, as if a default had changed since they were made
    rows = [dict(r, commit="old") for r in read_rows(csv_path)]
    _write_rows(csv_path, rows)
    again = run_selection(data_dir, ["small"], [], 1, 1, "two", redo={"certified", "srm"},
                          **quiet)
    stored = read_rows(csv_path)
    assert len(stored) == len(again) == len(first)
    for r in stored:
        redone = r["group"] == "report" and r["model"] in {"certified", "srm"}
        assert r["commit"] == ("two" if redone else "old")  # tuning rows kept: not run here
    fresh = {(r["group"], r["model"]): r for r in first}
    for r in stored:  # the same code makes the same rows
        assert r["test_error"] == fresh[(r["group"], r["model"])]["test_error"]
        assert r["certificate"] == fresh[(r["group"], r["model"])]["certificate"]
    # nothing to redo: the CSV is not rewritten, nothing runs
    before = csv_path.read_text()
    run_selection(data_dir, ["small"], [], 1, 1, "three", redo={"absent"}, **quiet)
    assert csv_path.read_text() == before


def _summary_rows(errors):
    """Rows of two models on cells a@1..: scikit-learn's at 0.2, a band at ``errors``."""
    rows = []
    for i, e in enumerate(errors):
        for model, err, cert in (("sklearn_cart_cv", 0.2, 0.5), ("certified 1se", e, 0.4),
                                 ("certified 0se", 0.2, 0.48)):
            rows.append({"group": "tuning", "dataset": f"d{i}@100", "split": 0, "model": model,
                         "test_error": err, "certificate": cert, "n_leaves": 3, "seconds": 0.1, "commit": "c"})
    return rows


def test_the_band_is_chosen_with_a_margin_for_noise():
    header = ["# t", ""]
    kw = {"n_splits_report": 1, "n_splits_tuning": 1, "tuning_names": ["d"],
          "report_names": [], "peers_commit": "", "seconds": 1.0, "tuning_sizes": [100]}
    # 1 SE band: +0.4 points on average, no spread: within the tolerance, smaller certificate
    steady = _summary_rows([0.204] * 4)
    assert summarize(steady, "tuning")["certified 1se"]["test_error"] == pytest.approx(0.204)
    assert "Chosen: **`certified 1se`**" in selection_report(steady, header, **kw)
    # the same mean, spread over the cells: its margin takes it past 0.5 points
    noisy = _summary_rows([0.194, 0.214, 0.194, 0.214])
    assert "Chosen: **`certified 0se`**" in selection_report(noisy, header, **kw)
