"""treebound certify and the certificate printed by treebound fit."""

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from treebound.cli.main import app

runner = CliRunner()


@pytest.fixture
def fitted(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=400).round(3), "b": rng.normal(size=400)})
    frame["label"] = np.where(frame["a"] + 0.3 * rng.normal(size=400) > 0, "yes", "no")
    csv = tmp_path / "data.csv"
    frame.to_csv(csv, index=False)
    model = tmp_path / "m.json"
    result = runner.invoke(app, ["fit", str(csv), "--target", "label", "--growth", "top_down",
                                 "--max-leaf-nodes", "5", "--save", str(model),
                                 "--no-show-tree"])
    assert result.exit_code == 0, result.output
    assert "certificate: With probability at least 0.95" in result.output
    return csv, model, result.output


def test_certify_rebuilds_the_fit_split_and_matches_fit(fitted):
    csv, model, fit_output = fitted
    result = runner.invoke(app, ["certify", str(model), str(csv), "--target", "label"])
    assert result.exit_code == 0, result.output
    line = result.output.splitlines()[0]
    assert line in fit_output  # the same certificate fit printed
    assert "hti upper bound at delta / 2 = 0.025:" in result.output
    assert "compression upper bound at delta / 2 = 0.025:" in result.output
    result = runner.invoke(app, ["certify", str(model), str(csv), "--target", "label",
                                 "--rows", "test"])
    assert result.exit_code == 0 and "test_set" in result.output and "100 rows" in result.output
    result = runner.invoke(app, ["certify", str(model), str(csv), "--target", "label",
                                 "--method", "hti", "--delta", "0.1"])
    assert result.exit_code == 0 and "at least 0.9 " in result.output


@pytest.mark.parametrize("extra, message", [
    (["--test-size", "0"], "the model was fit with --test-size 0.25"),
    (["--method", "nope"], "--method must be one of"),
    (["--delta", "1.5"], "delta"),
    (["--rows", "both"], "--rows must be"),
    (["--method", "test_set"], "--rows test"),
    (["--rows", "test", "--method", "hti"], "test-set bound"),
    (["--method", "prefix_code"], "DyadicTreeClassifier"),
    (["--target", "zzz"], "not found"),
])
def test_certify_errors_are_one_line(fitted, extra, message):
    csv, model, _ = fitted
    args = ["certify", str(model), str(csv), "--target", "label", *extra]
    if "--target" in extra:
        args = ["certify", str(model), str(csv), *extra]
    result = runner.invoke(app, args)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def test_certify_refuses_a_regressor(tmp_path):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"a": rng.normal(size=100)})
    frame["y"] = frame["a"] * 1.3 + 0.05
    csv = tmp_path / "r.csv"
    frame.to_csv(csv, index=False)
    model = tmp_path / "r.json"
    assert runner.invoke(app, ["fit", str(csv), "--target", "y", "--save", str(model)]).exit_code \
        == 0
    result = runner.invoke(app, ["certify", str(model), str(csv), "--target", "y"])
    assert result.exit_code != 0 and "regressor" in result.output
