"""The dyadic benchmark: registries, synthetic settings and the CLI command (its CART + ccp_cv
peer: tests/test_cart_peer.py)."""

import numpy as np
import pytest
from typer.testing import CliRunner

from treebound.cli.main import app
from treebound_lab.dyadic import (
    DATASETS,
    DEFAULT_DATASETS,
    DEFAULT_MODELS,
    MODELS,
    BenchModel,
    banknote_like,
    markdown_tables,
    results_table,
    run_benchmark,
    smooth_boundary,
)


def test_registries_name_every_default():
    assert set(DEFAULT_MODELS) <= set(MODELS)
    assert set(DEFAULT_DATASETS) <= set(DATASETS)
    assert {"magic", "haberman", "iris", "wdbc"} <= set(DATASETS)
    assert DATASETS["wdbc"].features == tuple(range(10))


def test_smooth_boundary_has_the_stated_bayes_error_and_irrelevant_features():
    X, y = smooth_boundary(50_000, seed=0, noise=0.1, n_irrelevant=3)
    above = X[:, 1] > 0.5 + 0.25 * np.sin(2 * np.pi * X[:, 0])
    assert X.shape == (50_000, 5)
    assert np.mean(y != above) == pytest.approx(0.1, abs=0.005)
    for j in (2, 3, 4):  # independent of the label
        assert abs(np.corrcoef(X[:, j], y)[0, 1]) < 0.02


def test_banknote_like_is_nearly_separable():
    from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis

    X, y = banknote_like(4000, seed=0)
    X_test, y_test = banknote_like(4000, seed=1)
    assert X.shape == (4000, 4)
    assert 0.4 < y.mean() < 0.5
    assert QuadraticDiscriminantAnalysis().fit(X, y).score(X_test, y_test) > 0.95


def test_a_failing_model_is_reported_not_fatal(monkeypatch):
    from treebound import DyadicTreeClassifier

    monkeypatch.setitem(MODELS, "tiny_budget", BenchModel(
        "tiny budget", lambda seed: DyadicTreeClassifier(penalty_scale=0.01, max_cells=2)))
    results = run_benchmark(None, datasets=["smooth_boundary"], models=["tiny_budget", "greedy"])
    rows = results_table(results)
    assert rows[0]["accuracy"].startswith("dyadic tree search stopped")
    assert rows[1]["model"] == "treebound greedy" and rows[1]["accuracy"] != "-"
    assert markdown_tables(rows).count("\n") == 3


def test_cli_writes_the_table(tmp_path):
    out = tmp_path / "dyadic.md"
    result = CliRunner().invoke(app, [
        "bench", "dyadic", "--data-dir", str(tmp_path), "--datasets", "smooth_boundary",
        "--models", "ddt_defaults", "--models", "free_ddt", "--models", "cyclic_ddt",
        "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "deprecated" not in result.output
    text = out.read_text()
    assert "| smooth boundary, d = 2 | 2,000 | 2 | free DDT, theory |" in text
    assert "| smooth boundary, d = 2 | 2,000 | 2 | free DDT, library defaults |" in text
    assert "cyclic DDT" in text


def test_cli_rejects_unknown_names_and_missing_files(tmp_path):
    result = CliRunner().invoke(app, ["bench", "dyadic", "--data-dir", str(tmp_path),
                                      "--models", "optimal_tree"])
    assert result.exit_code != 0
    assert "unknown model(s) ['optimal_tree']" in result.output
    with pytest.raises(FileNotFoundError, match="dataset 'iris' not found"):
        run_benchmark(tmp_path, datasets=["iris"], models=["free_ddt"])
