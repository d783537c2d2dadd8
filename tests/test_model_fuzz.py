"""Damaged or hostile model files: a ValueError naming the problem, never anything else.

Hypothesis mutates valid model files (replace a value anywhere with junk of another type, drop a
key, shorten or extend a list, swap values between places) and checks that loading either
raises ``ValueError`` or yields a model whose prediction works.
"""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treebound import DecisionTreeClassifier, DecisionTreeRegressor, load_model


def _valid_models():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=80), "b": rng.choice(["x", "y", "z"], 80)})
    y = np.where((frame.a > 0) | (frame.b == "z"), "p", "q")
    X = rng.normal(size=(80, 3))
    return {
        "numeric": (DecisionTreeClassifier(max_depth=3).fit(X, y), X),
        "categorical": (DecisionTreeClassifier(max_depth=3).fit(frame, y), frame),
        "multiway": (DecisionTreeClassifier(categorical_split="multiway").fit(frame, y), frame),
        "regressor": (DecisionTreeRegressor(max_depth=3).fit(X, X[:, 0]), X),
    }


MODELS = _valid_models()
JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=5),
    st.lists(st.integers(-3, 3), max_size=4), st.dictionaries(st.text(max_size=3), st.none(),
                                                              max_size=2),
)


def _paths(node, prefix=()):
    """Every (path) to a value inside a JSON document."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node[:6]):  # the first entries are representative
            yield from _paths(value, (*prefix, i))


def _get(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def _set(doc, path, value):
    _get(doc, path[:-1])[path[-1]] = value


def _mutate(doc, path, parent, action, draw, paths):
    if action == "junk":
        _set(doc, path, draw(JUNK))
    elif action == "drop" and isinstance(parent, dict):
        parent.pop(path[-1], None)
    elif action == "shorten" and isinstance(_get(doc, path), list):
        _set(doc, path, _get(doc, path)[: draw(st.integers(0, 3))])
    elif action == "extend" and isinstance(_get(doc, path), list):
        _get(doc, path).extend(draw(st.lists(JUNK, max_size=2)))
    elif action == "swap":
        other = draw(st.sampled_from(paths))
        _set(doc, path, json.loads(json.dumps(_get(doc, other))))
    elif action == "int" and isinstance(_get(doc, path), int):
        _set(doc, path, _get(doc, path) + draw(st.sampled_from([-10**9, -2, -1, 1, 2, 10**9])))


@st.composite
def mutation(draw):
    name = draw(st.sampled_from(sorted(MODELS)))
    model, X = MODELS[name]
    doc = json.loads(json.dumps(model.to_dict()))
    paths = [p for p in _paths(doc) if p]
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths))
        try:
            parent = _get(doc, path[:-1])
        except (KeyError, IndexError, TypeError):
            continue
        action = draw(st.sampled_from(["junk", "drop", "shorten", "extend", "swap", "int"]))
        try:
            _mutate(doc, path, parent, action, draw, paths)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed what this path pointed to
    return name, doc


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=mutation())
def test_mutated_model_files_fail_cleanly(case, tmp_path_factory):
    name, doc = case
    model, X = MODELS[name]
    path = tmp_path_factory.mktemp("fuzz") / "model.json"
    path.write_text(json.dumps(doc))
    try:
        loaded = load_model(path)
    except ValueError:
        return
    # a file that loads must give a working model
    try:
        pred = loaded.predict(X)
    except ValueError:
        return  # e.g. the mutated encoder no longer accepts this data: a clear error is fine
    assert len(pred) == len(X)


@pytest.mark.parametrize("text", ["", "null", "[]", "{}", '{"format": "treebound-model"}',
                                  "[" * 5000 + "]" * 5000, '{"a": ' * 3000 + "1" + "}" * 3000])
def test_degenerate_files(tmp_path, text):
    path = tmp_path / "m.json"
    path.write_text(text)
    with pytest.raises(ValueError):
        load_model(path)


def test_cyclic_and_shared_children_are_rejected():
    model, _ = MODELS["numeric"]
    doc = model.to_dict()
    tree = doc["tree"]
    second = next(i for i, c in enumerate(tree["first_child"]) if c > 0 and i > 0)
    tree["first_child"][second] = tree["first_child"][0]  # two parents for the same children
    with pytest.raises(ValueError, match="children"):
        DecisionTreeClassifier.from_dict(doc)
