"""The core commands: treebound fit / predict / demo."""

import gzip

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from treebound.cli.main import app

runner = CliRunner()


@pytest.fixture
def data_files(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "size": rng.normal(size=200).round(3),
        "shape": rng.choice(["round", "square", "star"], 200),
    })
    frame["label"] = np.where((frame["size"] > 0) | (frame["shape"] == "star"), "big", "small")
    csv = tmp_path / "train.csv"
    frame.to_csv(csv, index=False)
    tsv = tmp_path / "train.tsv.gz"
    with gzip.open(tsv, "wt") as fh:
        frame.to_csv(fh, sep="\t", index=False)
    return frame, csv, tsv


def test_fit_prints_scores_tree_and_rules_and_saves(data_files, tmp_path):
    frame, csv, tsv = data_files
    model_path = tmp_path / "m.json"
    result = runner.invoke(app, ["fit", str(tsv), "--target", "label", "--growth", "top_down",
                                 "--max-leaf-nodes", "6", "--save", str(model_path)])
    assert result.exit_code == 0, result.output
    assert "training accuracy" in result.output and "test accuracy" in result.output
    assert "shape" in result.output and "IF" in result.output
    assert model_path.exists()
    out = tmp_path / "pred.csv"
    result = runner.invoke(app, ["predict", str(model_path), str(csv), "--out", str(out)])
    assert result.exit_code == 0, result.output
    predictions = pd.read_csv(out)["prediction"]
    assert (predictions == frame["label"]).mean() > 0.95
    result = runner.invoke(app, ["predict", str(model_path), str(csv), "--proba"])
    assert result.exit_code == 0 and "p(big)" in result.output


def test_regression_is_detected(tmp_path):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"a": rng.normal(size=100), "b": rng.normal(size=100)})
    frame["y"] = frame["a"] * 1.7 + 0.1
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    result = runner.invoke(app, ["fit", str(path), "--target", "y", "--no-show-tree"])
    assert result.exit_code == 0, result.output
    assert "DecisionTreeRegressor" in result.output and "R^2" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["fit", "missing.csv", "--target", "x"], "does not exist"),
        (["fit", "{csv}", "--target", "nope"], "target column 'nope' not found"),
        (["fit", "{csv}", "--target", "label", "--criterion", "bad"], "criterion"),
        (["fit", "{csv}", "--target", "label", "--test-size", "2"], "test-size"),
        (["predict", "{csv}", "{csv}"], "not valid JSON"),
    ],
)
def test_errors_are_one_line_without_traceback(data_files, args, message):
    _, csv, _ = data_files
    args = [a.replace("{csv}", str(csv)) for a in args]
    result = runner.invoke(app, args)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def test_predict_with_wrong_columns(data_files, tmp_path):
    frame, csv, _ = data_files
    model_path = tmp_path / "m.json"
    runner.invoke(app, ["fit", str(csv), "--target", "label", "--save", str(model_path)])
    other = tmp_path / "other.csv"
    frame.rename(columns={"size": "weight"}).to_csv(other, index=False)
    result = runner.invoke(app, ["predict", str(model_path), str(other)])
    assert result.exit_code != 0 and "lacks the model's feature columns" in result.output


def test_demo_runs_and_compares_with_cart():
    result = runner.invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    assert "CART" in result.output and "Shawe-Taylor" in result.output
    assert "certificate" in result.output and "10/10" in result.output  # covers the test error
    assert "IF" in result.output
    assert "certified selection" in result.output


def test_plot_command_writes_an_image(data_files, tmp_path):
    _, csv, _ = data_files
    model_path = tmp_path / "m.json"
    runner.invoke(app, ["fit", str(csv), "--target", "label", "--max-leaf-nodes", "5",
                        "--save", str(model_path)])
    image = tmp_path / "tree.png"
    result = runner.invoke(app, ["plot", str(model_path), str(image)])
    assert result.exit_code == 0, result.output
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = runner.invoke(app, ["plot", str(csv), str(image)])
    assert bad.exit_code != 0 and "Traceback" not in bad.output


def test_fit_prunes_by_the_bound_and_saves_the_bound(tmp_path):
    from sklearn.datasets import load_breast_cancer

    from treebound import load_model

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    csv = tmp_path / "bc.csv"
    X.assign(label=y).to_csv(csv, index=False)
    model_path = tmp_path / "m.json"
    result = runner.invoke(app, ["fit", str(csv), "--target", "label", "--growth",
                                 "purest_children", "--pruning", "bound", "--pruning-param",
                                 "delta=0.1", "--save", str(model_path)])
    assert result.exit_code == 0, result.output
    assert "pruned by bound from" in result.output
    assert "its Shawe-Taylor bound (the objective bound pruning minimizes" in result.output
    model = load_model(model_path)
    assert model.pruning_objective_ is not None and model.pruning_path_[0][0] > model.get_n_leaves()
    assert model.get_params()["pruning_params"] == {"delta": 0.1}


@pytest.mark.parametrize("args, message", [
    (["--pruning", "nope"], "'pruning' parameter"),
    (["--pruning", "bound", "--pruning-param", "x"], "KEY=VALUE"),
    (["--pruning", "bound", "--pruning-param", "bogus=1"], "unknown --pruning-param ['bogus']"),
])
def test_fit_rejects_bad_pruning_options(data_files, args, message):
    _, csv, _ = data_files
    result = runner.invoke(app, ["fit", str(csv), "--target", "label", *args])
    assert result.exit_code != 0 and message in result.output
    assert "Traceback" not in result.output


def test_plot_pruning_path_command(tmp_path, data_files):
    _, csv, _ = data_files
    pruned, grown = tmp_path / "pruned.json", tmp_path / "grown.json"
    runner.invoke(app, ["fit", str(csv), "--target", "label", "--pruning", "ccp_cv",
                        "--save", str(pruned)])
    runner.invoke(app, ["fit", str(csv), "--target", "label", "--save", str(grown)])
    image = tmp_path / "path.png"
    result = runner.invoke(app, ["plot", str(pruned), str(image), "--pruning-path"])
    assert result.exit_code == 0, result.output
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = runner.invoke(app, ["plot", str(grown), str(image), "--pruning-path"])
    assert bad.exit_code != 0 and "not pruned" in bad.output and "Traceback" not in bad.output
