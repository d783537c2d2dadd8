"""save_model writes through a fresh temporary file (O_EXCL, never a planted link) and an
atomic rename; nothing outside the output path is touched and a failed save leaves no file."""

import os
import tempfile

import numpy as np
import pytest
from sklearn.datasets import load_iris

from treebound import DecisionTreeClassifier, load_model, save_model


@pytest.fixture(scope="module")
def model():
    X, y = load_iris(return_X_y=True)
    return DecisionTreeClassifier(max_depth=3).fit(X, y)


def _victim(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    victim = outside / "precious.txt"
    victim.write_text("do not overwrite")
    return victim


def _directory_entries(path):
    return sorted(p.name for p in path.iterdir())


def test_a_planted_link_at_the_old_temporary_name_is_not_followed(tmp_path, model):
    victim = _victim(tmp_path)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    os.symlink(victim, out_dir / "model.json.tmp")  # the predictable name of older releases
    save_model(model, out_dir / "model.json")
    assert victim.read_text() == "do not overwrite"
    assert load_model(out_dir / "model.json").get_depth() == model.get_depth()
    assert _directory_entries(out_dir) == ["model.json", "model.json.tmp"]


def test_a_planted_link_at_a_guessed_name_is_skipped(tmp_path, model, monkeypatch):
    """Even a link planted at exactly the name the generator draws is not followed: O_EXCL
    fails on it and the next name is used."""
    victim = _victim(tmp_path)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    guessed = ["guess1", "guess2", "guess3"]
    for name in guessed[:2]:
        os.symlink(victim, out_dir / f".model.json.{name}.tmp")
    monkeypatch.setattr(tempfile, "_get_candidate_names", lambda: iter(guessed))
    save_model(model, out_dir / "model.json")
    assert victim.read_text() == "do not overwrite"
    assert sorted(_directory_entries(out_dir)) == sorted(
        [".model.json.guess1.tmp", ".model.json.guess2.tmp", "model.json"])
    assert not (out_dir / "model.json").is_symlink()


def test_a_link_at_the_output_path_is_replaced_not_followed(tmp_path, model):
    victim = _victim(tmp_path)
    out = tmp_path / "model.json"
    os.symlink(victim, out)
    save_model(model, out)
    assert victim.read_text() == "do not overwrite"
    assert not out.is_symlink() and load_model(out).get_depth() == model.get_depth()


def test_a_failed_save_leaves_no_temporary_file_and_the_old_model(tmp_path, model, monkeypatch):
    out = tmp_path / "model.json"
    save_model(model, out)
    before = out.read_bytes()

    def failing_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="No space left"):
        save_model(DecisionTreeClassifier(max_depth=1).fit(*load_iris(return_X_y=True)), out)
    assert _directory_entries(tmp_path) == ["model.json"]
    assert out.read_bytes() == before
    monkeypatch.undo()
    with pytest.raises(OSError):
        save_model(model, tmp_path / "missing" / "model.json")
    assert _directory_entries(tmp_path) == ["model.json"]


def test_saved_files_are_ordinary_and_identical_across_saves(tmp_path, model):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    save_model(model, a)
    save_model(model, b)
    assert a.read_bytes() == b.read_bytes()
    mode = a.stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask
    assert np.array_equal(load_model(a).predict(load_iris().data), model.predict(load_iris().data))
