"""The selection benchmark (bench_selection.py) on tiny synthetic datasets: rows, page, plot."""

import gzip
import itertools

import numpy as np
import pytest

from treebound_lab.selection_bench import RULES, run_selection
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
    assert report == {*RULES, "sklearn_cart_cv"}
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
    assert "re-examined here" in page and "**Time**" in page
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
