"""The command line certifies the right rows, keeps files safe and says what its numbers are
(issue 27), each case through the real command: typer's CliRunner on the real app, or the
installed entry point in a subprocess where a shell is part of the case (pipes, process
substitution, warnings)."""

import json
import os
import shutil
import subprocess
import sys
import threading

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from typer.testing import CliRunner

from treebound import DecisionTreeClassifier, load_model, save_model
from treebound.cli._core import cli_advice
from treebound.cli.main import app

runner = CliRunner()


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    root = tmp_path_factory.mktemp("trust")
    data = load_wine(as_frame=True)
    frame = data.frame.rename(columns={"target": "label"})
    csv = root / "wine.csv"
    frame.to_csv(csv, index=False)
    model = root / "m.json"
    result = runner.invoke(app, ["fit", str(csv), "--target", "label", "--seed", "3",
                                 "--save", str(model), "--no-show-tree"])
    assert result.exit_code == 0, result.output
    return root, csv, model, result.output


def _run(*args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


def _shell(command: str, cwd) -> subprocess.CompletedProcess:
    """``command`` in bash with ``treebound`` the installed entry point of this interpreter."""
    env = dict(os.environ, PATH=f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}")
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_certify_uses_the_split_fit_recorded(wine):
    _, csv, model, fit_output = wine
    record = json.loads(model.read_text())["training_rows"]
    assert record["seed"] == 3 and record["n_rows"] == 178 and record["n_train_rows"] == 133
    result = _run("certify", model, csv, "--target", "label")  # no --seed: the recorded one
    assert result.exit_code == 0, result.output
    assert "0 errors on 133 rows" in result.output
    assert result.output.splitlines()[0] in fit_output


def test_certify_refuses_another_seed_or_test_size(wine):
    _, csv, model, _ = wine
    result = _run("certify", model, csv, "--target", "label", "--seed", "0")
    assert result.exit_code == 2
    assert "the model was fit with --seed 3" in result.output and "--seed 0" in result.output
    result = _run("certify", model, csv, "--target", "label", "--test-size", "0.3")
    assert result.exit_code == 2 and "--test-size 0.25" in result.output


def test_certify_refuses_rows_that_are_not_the_fit_rows(wine):
    root, csv, model, _ = wine
    frame = pd.read_csv(csv)
    changed = frame.copy()
    changed.loc[5, "alcohol"] += 0.01  # one value of one row
    changed.to_csv(root / "changed.csv", index=False)
    result = _run("certify", model, root / "changed.csv", "--target", "label")
    assert result.exit_code == 2 and "their hash differs" in result.output
    frame.head(150).to_csv(root / "short.csv", index=False)
    result = _run("certify", model, root / "short.csv", "--target", "label")
    assert result.exit_code == 2 and "DATA has 150 rows" in result.output and "178" in result.output


def test_a_file_without_a_record_warns_and_checks_the_tree_counts(wine, tmp_path):
    _, csv, model, _ = wine
    doc = json.loads(model.read_text())
    del doc["training_rows"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc))
    result = _run("certify", old, csv, "--target", "label", "--seed", "3")
    assert result.exit_code == 0, result.output
    assert "does not record how its training rows were chosen" in result.output
    result = _run("certify", old, csv, "--target", "label")  # seed 0: other rows
    assert result.exit_code == 2 and "not the training sample" in result.output
    assert "--rows test" in result.output and "method=" not in result.output


def test_output_paths_are_checked_before_fitting(wine, tmp_path):
    _, csv, model, _ = wine
    data = tmp_path / "iris.csv"
    shutil.copy(csv, data)
    before = data.read_bytes()
    result = _run("fit", data, "--target", "label", "--save", data)
    assert result.exit_code == 2 and "is also an input of this command" in result.output
    assert data.read_bytes() == before
    result = _run("fit", data, "--target", "label", "--save", "")
    assert result.exit_code == 2 and "--save needs a file name" in result.output
    assert "leaves" not in result.output  # refused before fitting
    (tmp_path / "elsewhere.json").write_text("keep")
    (tmp_path / "link.json").symlink_to(tmp_path / "elsewhere.json")
    result = _run("fit", data, "--target", "label", "--save", tmp_path / "link.json")
    assert result.exit_code == 2 and "symbolic link" in result.output
    (tmp_path / "link.png").symlink_to(tmp_path / "planted.png")
    result = _run("plot", model, tmp_path / "link.png")
    assert result.exit_code == 2 and "symbolic link" in result.output
    assert not (tmp_path / "planted.png").exists()
    result = _run("plot", model, model)
    assert result.exit_code == 2 and "also an input" in result.output
    result = _run("predict", model, data, "--out", data)
    assert result.exit_code == 2 and "also an input" in result.output
    assert (tmp_path / "elsewhere.json").read_text() == "keep" and data.read_bytes() == before


def test_a_closed_pipe_keeps_the_model_and_exits_quietly(tmp_path):
    # a tree of hundreds of leaves prints far more than a pipe holds (64 KB), so the
    # command is still writing when head has gone
    rng = np.random.default_rng(0)
    noise = pd.DataFrame(rng.normal(size=(2000, 3)), columns=["a", "b", "c"])
    noise["label"] = rng.integers(0, 2, 2000)
    noise.to_csv(tmp_path / "noise.csv", index=False)
    result = _shell("treebound fit noise.csv --target label --save m.json | head -1; "
                    "echo status ${PIPESTATUS[0]}", tmp_path)
    assert result.stdout.splitlines()[0].startswith("DecisionTreeClassifier:")
    assert result.stdout.splitlines()[-1] == "status 141", result.stderr
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr
    assert result.stderr.strip() == ""
    assert load_model(tmp_path / "m.json").get_n_leaves() > 400


def test_data_is_read_once_from_any_stream(wine, tmp_path):
    _, csv, _, _ = wine
    result = _shell(f"treebound fit <(cat {csv}) --target label --no-show-tree", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "training accuracy" in result.stdout
    stdin = _run("fit", "-", "--target", "label", "--sep", ",", "--no-show-tree",
                 input=csv.read_text())
    assert stdin.exit_code == 0, stdin.output
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(csv.read_text()))
    writer.start()
    result = _run("fit", fifo, "--target", "label", "--sep", ",", "--no-show-tree")
    writer.join(timeout=60)
    assert result.exit_code == 0, result.output


def test_warnings_are_one_line_without_a_source_path(wine, tmp_path):
    _, csv, _, _ = wine
    assert _run("fit", csv, "--target", "label", "--test-size", "0", "--save",
                tmp_path / "all.json").exit_code == 0
    doc = json.loads((tmp_path / "all.json").read_text())
    del doc["training_rows"]  # as saved from Python: only the tree's counts can be checked
    (tmp_path / "old.json").write_text(json.dumps(doc))
    frame = pd.read_csv(csv)
    shuffled = frame.assign(label=np.random.default_rng(0).permutation(frame["label"]))
    shuffled.to_csv(tmp_path / "shuffled.csv", index=False)
    result = _shell("treebound certify old.json shuffled.csv --target label --test-size 0",
                    tmp_path)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert any("labels do not match the training labels" in line for line in lines), lines
    assert all(line.startswith("warning: ") for line in lines), lines
    assert ".py" not in result.stderr


def test_messages_say_what_every_number_is(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)})
    frame["label"] = np.where(frame.a + rng.normal(scale=1.5, size=300) > 0, "yes", "no")
    csv = tmp_path / "d.csv"
    frame.to_csv(csv, index=False)
    srm = _run("fit", csv, "--target", "label", "--pruning", "srm")
    assert srm.exit_code == 0, srm.output
    line = next(line for line in srm.output.splitlines() if line.startswith("pruned by srm"))
    assert "penalized risk" in line and "not a bound" in line
    assert "training rows" in srm.output and "conf=" not in srm.output
    stump = _run("fit", csv, "--target", "label", "--max-depth", "0", "--no-show-tree")
    assert "1 leaf," in stump.output and "1 leaves" not in stump.output


@pytest.mark.parametrize("args, message", [
    (["--max-leaf-nodes", "99999999999999999999999"], "--max-leaf-nodes must be between 0 and"),
    (["--levels", "a=0"], "--levels must look like COLUMN=N"),
])
def test_bad_options_are_one_line(wine, args, message):
    _, csv, _, _ = wine
    result = _run("fit", csv, "--target", "label", *args)
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_missing_target_names_its_row(tmp_path):
    csv = tmp_path / "nan.csv"
    csv.write_text("a,b,label\n1,2,x\n2,3,\n3,4,y\n4,5,x\n5,6,y\n")
    result = _run("fit", csv, "--target", "label")
    assert result.exit_code == 2
    assert result.output.strip() == ("error: the target column 'label' is empty in data row 2: "
                                     "every row needs a target; drop or fill those rows")


def test_categorical_levels_are_declared_on_the_command_line(tmp_path):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"x": rng.normal(size=300), "c": rng.choice(list("abcd"), 300)})
    frame["label"] = np.where((frame.x > 0) ^ frame.c.isin(["a"]), "p", "q")
    csv = tmp_path / "c.csv"
    frame.to_csv(csv, index=False)
    plain = _run("fit", csv, "--target", "label", "--no-show-tree")
    assert "certificate: no certificate: categorical feature 'c'" in plain.output
    assert "--levels c=N" in plain.output and "categorical_levels" not in plain.output
    declared = _run("fit", csv, "--target", "label", "--levels", "c=10", "--no-show-tree",
                    "--save", tmp_path / "c.json")
    assert "certificate: With probability" in declared.output
    assert load_model(tmp_path / "c.json").encoder_.declared_levels == [None, 10]


def test_cli_advice_rewrites_python_spellings():
    assert cli_advice("use method='test_set' for held-out rows") == "use --rows test for " \
        "held-out rows"
    assert "--max-leaf-nodes" in cli_advice("parameter 'max_leaf_nodes' must be")


def test_a_python_saved_model_with_a_stump_says_one_leaf(tmp_path):
    X, y = load_wine(return_X_y=True)
    model = DecisionTreeClassifier(max_depth=0).fit(X, y)
    save_model(model, tmp_path / "s.json")
    assert "1 leaf]" in str(load_model(tmp_path / "s.json").certificate_)
