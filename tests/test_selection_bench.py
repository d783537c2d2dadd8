"""The selection benchmark (bench_selection.py) on tiny synthetic datasets: rows, page, plot."""

import gzip
import itertools

import numpy as np
import pytest

from treebound_lab.selection_bench import (
    CERTIFIED_VARIANTS,
    CHECK_MODEL,
    RULES,
    peer_folds,
    run_selection,
)
from treebound_lab.selection_report import pareto_front, selection_plot, selection_report


def _write(dir_, name, X, y):
    lines = ["a\tb\ttarget"] + [f"{r[0]}\t{r[1]}\t{t}" for r, t in zip(X, y, strict=True)]
    with gzip.open(dir_ / f"{name}.tsv.gz", "wt") as handle:
        handle.write("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("datasets")
    rng = np.random.default_rng(0)
    for name, n in (("toy", 160), ("tune", 140)):
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
    rows = run_selection(data_dir, ["toy"], ["tune"], 1, 1, "test", echo=lambda *_: None)
    report = {r["model"] for r in rows if r["group"] == "report"}
    tuning = {r["model"] for r in rows if r["group"] == "tuning"}
    assert report == {*RULES, *CERTIFIED_VARIANTS, "sklearn_cart_cv"}
    assert tuning > set(RULES) and "sklearn_cart_cv" in tuning
    assert any(m.startswith("bound e=") for m in tuning)
    for row in rows:
        assert 0 <= row["test_error"] <= 1 and 0 < row["certificate"] <= 1
    by = {r["model"]: r for r in rows if r["group"] == "report"}
    assert by["certified"]["certificate"] <= by["ccp_cv"]["certificate"]
    assert by["certified"]["certificate"] <= by["ccp_cv_1se"]["certificate"]
    page = selection_report(rows, ["# title", ""], n_splits_report=1, n_splits_tuning=1,
                            tuning_names=["tune"], report_names=["toy"], peers_commit="",
                            seconds=1.0)
    assert "## Report data" in page and "## Tuning data" in page and "Pareto front" in page
    assert "re-examined here" in page and "**Time**" in page and "chosen here" in page
    assert "The bands of `certified` on these data" in page
    # resuming skips the splits already written
    csv_path = tmp_path / "rows.csv"
    first = run_selection(data_dir, ["toy"], [], 1, 1, "test", echo=lambda *_: None,
                          csv_path=csv_path)
    again = run_selection(data_dir, ["toy"], [], 1, 1, "test", echo=lambda *_: None,
                          csv_path=csv_path)
    assert [r["model"] for r in again] == [r["model"] for r in first]
    assert [r["seconds"] for r in again] == pytest.approx([r["seconds"] for r in first])
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
