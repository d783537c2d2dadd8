"""Damaged or hostile model files: a ValueError naming the problem, never anything else.

Hypothesis mutates valid model files (replace a value anywhere with junk of another type, drop a
key, shorten or extend a list, swap values between places) and checks that loading either
raises ``ValueError`` or yields a model whose prediction works.
"""

import functools
import json
from collections.abc import Mapping

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


class _FittedOnFirstUse(Mapping):
    """:func:`_valid_models`, fitted when a test first reads it, not when the module is imported:
    fitting at import made every test process compile the growth kernels during collection,
    before any test could run."""

    NAMES = ("categorical", "multiway", "numeric", "regressor")

    def __getitem__(self, name):
        return _models()[name]

    def __iter__(self):
        return iter(self.NAMES)

    def __len__(self):
        return len(self.NAMES)


@functools.cache
def _models():
    models = _valid_models()
    assert tuple(sorted(models)) == _FittedOnFirstUse.NAMES  # every model is drawn
    return models


MODELS = _FittedOnFirstUse()
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


# ------------------------------------------------------- edited statistics, sizes and files
def _doc(name="numeric"):
    model, _ = MODELS[name]
    return json.loads(json.dumps(model.to_dict()))


def _leaf(doc):
    return next(i for i, c in enumerate(doc["tree"]["first_child"]) if c < 0)


def test_edited_class_counts_are_refused():
    doc = _doc()
    doc["tree"]["value"][_leaf(doc)] = [1e308, 1e308]  # the edit
    with pytest.raises(ValueError, match="edited or corrupted"):
        DecisionTreeClassifier.from_dict(doc)
    # the same edit carried up to the root overflows the root's counts (or its weights)
    tree = doc["tree"]
    parent = {c + k: i for i, c in enumerate(tree["first_child"]) if c >= 0 for k in range(2)}
    node = _leaf(doc)
    while node in parent:
        node = parent[node]
        tree["value"][node] = [1e308, 1e308]
    with pytest.raises(ValueError):
        DecisionTreeClassifier.from_dict(doc)


@pytest.mark.parametrize("field, factor", [("n_node_samples", 2), ("n_node_samples", 0),
                                           ("weighted_n_node_samples", 1.5),
                                           ("weighted_n_node_samples", 0.0), ("value", 3.0),
                                           ("value", -1.0)])
def test_parent_and_children_must_agree(field, factor):
    for name in ("numeric", "categorical", "multiway", "regressor"):
        doc = _doc(name)
        tree = doc["tree"]
        node = 0 if field != "value" or name == "regressor" else _leaf(doc)
        if field == "value":
            tree["value"][node] = [v * factor + (1.0 if name == "regressor" else 0.0)
                                   for v in tree["value"][node]]
        elif field == "n_node_samples":
            tree[field][node] = int(tree[field][node] * factor)
        else:
            tree[field][node] = tree[field][node] * factor
        cls = type(MODELS[name][0])
        with pytest.raises(ValueError):
            cls.from_dict(doc)


def test_a_consistent_rescaling_loads_and_gives_a_sane_bound():
    """Every weight times 1e300 (equal per row): a valid file, and pruning reads rows."""
    from treebound import prune

    doc = _doc()
    tree = doc["tree"]
    tree["value"] = [[v * 1e300 for v in row] for row in tree["value"]]
    tree["weighted_n_node_samples"] = [w * 1e300 for w in tree["weighted_n_node_samples"]]
    model = DecisionTreeClassifier.from_dict(doc)
    result = prune(model, method="bound")
    assert 0.0 <= result.objective < 10.0
    assert result.objective == pytest.approx(prune(MODELS["numeric"][0], method="bound").objective)


def test_long_pruning_paths_are_refused_before_reading_them():
    doc = _doc()
    rows = doc["tree"]["n_node_samples"][0]
    doc["extra"]["pruning_path"] = [[1, 0.5]] * 20_000_000  # the 20-million entries
    with pytest.raises(ValueError, match="20000000 entries, more than the"):
        DecisionTreeClassifier.from_dict(doc)
    for path, match in (([[rows + 1, 0.1]], "never increase"), ([[3, 0.1], [4, 0.1]],
                                                                "never increase"),
                        ([[0, 0.1]], "between 1"), ([[2, 0.1], [2, 0.1], [2, 0.1], [1, 0.1]],
                                                     "entries for a tree grown with 2")):
        doc["extra"]["pruning_path"] = path
        with pytest.raises(ValueError, match=match):
            DecisionTreeClassifier.from_dict(doc)


def test_the_stored_certificate_must_fit_the_tree():
    model, _ = MODELS["numeric"]
    doc = _doc()
    assert doc["extra"]["certificate"]["n_examples"] == model.tree_.flat.n_node_samples[0]
    doc["extra"]["certificate"]["n_examples"] = 3
    doc["extra"]["certificate"]["n_errors"] = 0
    with pytest.raises(ValueError, match="certificate counts 3 rows"):
        DecisionTreeClassifier.from_dict(doc)


def test_oversized_files_are_refused(tmp_path, monkeypatch):
    model, _ = MODELS["numeric"]
    path = tmp_path / "m.json"
    from treebound import save_model

    save_model(model, path)
    with pytest.raises(ValueError, match="over the limit of 1 KB"):
        load_model(path, max_bytes="1K")
    assert load_model(path, max_bytes=None).get_n_leaves() == model.get_n_leaves()
    sparse = tmp_path / "sparse.json"  # reported size only: nothing is read
    with open(sparse, "wb") as fh:
        fh.truncate(65 * 2**20)
    with pytest.raises(ValueError, match="64 MB"):
        load_model(sparse)
    monkeypatch.setenv("TREEBOUND_MAX_MODEL_BYTES", "200")
    with pytest.raises(ValueError, match="TREEBOUND_MAX_MODEL_BYTES"):
        load_model(path)
    monkeypatch.delenv("TREEBOUND_MAX_MODEL_BYTES")
    with pytest.raises(ValueError, match="more than 1 KB"):  # a device has no size: read capped
        load_model("/dev/zero", max_bytes="1K")


STAT_FIELDS = ("value", "n_node_samples", "weighted_n_node_samples")


@st.composite
def statistics_edit(draw):
    name = draw(st.sampled_from(sorted(MODELS)))
    doc = json.loads(json.dumps(MODELS[name][0].to_dict()))
    tree = doc["tree"]
    for _ in range(draw(st.integers(1, 3))):
        field = draw(st.sampled_from(STAT_FIELDS))
        node = draw(st.integers(0, len(tree[field]) - 1))
        factor = draw(st.sampled_from([0.0, 0.5, 2.0, 1e308, -1.0, 1.001, 1e-300]))
        if field == "value":
            k = draw(st.integers(0, len(tree["value"][node]) - 1))
            tree["value"][node][k] *= factor
        elif field == "n_node_samples":
            tree[field][node] = int(max(min(tree[field][node] * factor, 2**61), -(2**61)))
        else:
            tree[field][node] *= factor
    return name, doc


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=statistics_edit())
def test_edited_statistics_fail_cleanly_or_stay_consistent(case):
    from treebound import prune

    name, doc = case
    cls = type(MODELS[name][0])
    try:
        loaded = cls.from_dict(doc)
    except ValueError:
        return
    loaded.tree_.flat.validate()  # whatever loads satisfies the statistics contract
    if name != "regressor" and loaded.tree_.flat.is_binary:
        result = prune(loaded, method="bound")
        assert result.objective is None or 0.0 <= result.objective < 1e6


@pytest.mark.parametrize("combined", [[[], "compression"], "hti", [None], [{"a": None}]])
def test_auto_certificate_combining_non_names_is_refused(tmp_path, combined):
    # found by the fuzzer: a list inside "combined" raised TypeError (unhashable) on load
    model, _ = MODELS["numeric"]
    doc = json.loads(json.dumps(model.to_dict()))
    certificate = doc["extra"]["certificate"]
    assert certificate["method"] == "auto"
    certificate["details"]["combined"] = combined
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="combines"):
        load_model(path)
