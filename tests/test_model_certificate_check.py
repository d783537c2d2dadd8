"""A certificate in a model file is a claim: checked against the tree and recomputed on load
(issue 27); format-1 files still load."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine

from treebound import DecisionTreeClassifier, DyadicTreeClassifier, load_model, save_model


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    X, y = load_wine(return_X_y=True)
    model = DecisionTreeClassifier(max_leaf_nodes=8, growth="top_down").fit(X, y)
    path = tmp_path_factory.mktemp("models") / "wine.json"
    save_model(model, path)
    return model, json.loads(path.read_text())


def _load(doc, tmp_path):
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    return load_model(path)


def test_an_untouched_file_loads_its_certificate(saved, tmp_path):
    model, doc = saved
    loaded = _load(doc, tmp_path)
    assert loaded.certificate_ == model.certificate_
    assert loaded.certificate_.details["hti"] == model.certificate_.details["hti"]


@pytest.mark.parametrize("edit, message", [
    (lambda c: c.update(risk_upper_bound=0.0001), "claims an error rate of at most 0.0001"),
    (lambda c: c["details"].update(hti=0.0001), None),  # details are recomputed, not believed
    (lambda c: c.update(n_examples=10**9), "counts 1000000000 rows but the tree was fit on"),
    (lambda c: c.update(n_examples=c["n_examples"] + 1), "rows but the tree was fit on"),
    (lambda c: c.update(n_errors=3), "counts 3 training errors, but the tree's leaf counts"),
    (lambda c: c["details"].update(compression_size=1000), "compression set of 1000 rows"),
    (lambda c: c["details"].update(errors_outside=5), "errors outside"),
    (lambda c: c["details"].update(ghost_size=2.5), "ghost_size must be an integer"),
    (lambda c: c.update(n_leaves=3), "for a tree of 3 leaves"),
])
def test_an_edited_certificate_is_refused_or_recomputed(saved, tmp_path, edit, message):
    model, doc = saved
    doc = json.loads(json.dumps(doc))
    edit(doc["extra"]["certificate"])
    if message is None:
        assert _load(doc, tmp_path).certificate_ == model.certificate_
        return
    with pytest.raises(ValueError, match=message):
        _load(doc, tmp_path)


def test_a_looser_stored_bound_is_replaced_by_the_recomputed_one(saved, tmp_path):
    model, doc = saved
    doc = json.loads(json.dumps(doc))
    doc["extra"]["certificate"]["risk_upper_bound"] = 0.9
    assert _load(doc, tmp_path).certificate_.risk_upper_bound == \
        model.certificate_.risk_upper_bound


def test_weighted_reduced_error_and_dyadic_fits_verify(tmp_path):
    X, y = load_wine(return_X_y=True)
    weights = np.random.default_rng(0).uniform(0.2, 3.0, size=y.shape[0])
    weights[:5] = 0.0
    for model in (DecisionTreeClassifier(max_leaf_nodes=8).fit(X, y, sample_weight=weights),
                  DecisionTreeClassifier(pruning="reduced_error", random_state=1).fit(X, y),
                  DecisionTreeClassifier(max_leaf_nodes=8, splitter="hist", max_bins=16).fit(X, y),
                  DecisionTreeClassifier(pruning="bound").fit(X, y),
                  DyadicTreeClassifier(penalty_scale=0.3).fit(X[:, :4], y)):
        save_model(model, tmp_path / "m.json")
        loaded = load_model(tmp_path / "m.json")
        assert math.isclose(loaded.certificate_.risk_upper_bound,
                            model.certificate_.risk_upper_bound, rel_tol=1e-12)
        assert loaded.certificate_.n_errors == model.certificate_.n_errors


def test_format_one_files_still_load(saved, tmp_path):
    model, doc = saved
    old = json.loads(json.dumps(doc))
    old["format_version"] = 1
    del old["encoder"]["declared_levels"]
    del old["tree"]["missing_child"]  # version 3
    assert _load(old, tmp_path).certificate_ == model.certificate_


def test_a_format_one_categorical_certificate_is_dropped_with_a_warning(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=200), "c": rng.choice(list("abc"), 200)})
    y = (frame.x > 0).astype(int)
    model = DecisionTreeClassifier(max_leaf_nodes=4, categorical_levels={"c": 3}).fit(frame, y)
    doc = json.loads(json.dumps(model.to_dict()))
    assert _load(doc, tmp_path).certificate_ == model.certificate_
    doc["format_version"] = 1
    del doc["encoder"]["declared_levels"]
    del doc["tree"]["missing_child"]  # version 3
    doc["params"].pop("categorical_levels")
    with pytest.warns(UserWarning, match="counted only the categorical levels seen in training") \
            as record:
        loaded = _load(doc, tmp_path)
    assert record[0].filename == __file__  # the user's line, not a line inside treebound
    assert loaded.certificate_.is_vacuous and "no certificate" in str(loaded.certificate_)
