"""Categorical levels never seen in training: predicted by the documented rule (the child that
received the most training weight, as for the levels absent from a node), or refused with
``handle_unknown="error"``; and the certificates count the declared levels and one value for
"missing or anything else"."""

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest

from treebound import DecisionTreeClassifier, DecisionTreeRegressor, certify, load_model, save_model
from treebound.certificates._counting import counted_levels, log_test_counts, seen_levels


def _data(seed=0, n=400, levels="abcdefg", declared=False):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"x": rng.normal(size=n), "c": rng.choice(list(levels), n),
                          "d": rng.choice(["u", "v", "w"], n)})
    if declared:
        frame["c"] = frame["c"].astype(pd.CategoricalDtype(list(levels)))
        frame["d"] = frame["d"].astype(pd.CategoricalDtype(["u", "v", "w"]))
    y = np.where(frame.c.isin(["a", "b"]) ^ (frame.x > 0.3), "p", "q")
    return frame, y


def _walk(tree, codes, x):
    """Naive routing of one encoded row: the unseen code follows the heaviest child."""
    node = 0
    while tree.first_child[node] >= 0:
        start, k = int(tree.first_child[node]), int(tree.n_children[node])
        f = int(tree.feature[node])
        if tree.category_offset[node] < 0:
            slot = 0 if x[f] <= tree.threshold[node] else 1
        else:
            K = int(tree.n_categories[f])
            code = int(x[f])
            if code == K:
                weights = tree.weighted_n_node_samples[start : start + k]
                slot = int(np.flatnonzero(weights == weights.max())[0])
            else:
                slot = int(tree.category_child[tree.category_offset[node] + code])
        node = start + slot
    return node


@pytest.mark.parametrize("split", ["binary", "multiway"])
@pytest.mark.parametrize("estimator", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_unseen_levels_follow_the_heaviest_child(split, estimator):
    frame, y = _data()
    target = y if estimator is DecisionTreeClassifier else frame.x.to_numpy() * 2 + (y == "p")
    model = estimator(categorical_split=split, max_leaf_nodes=12, growth="top_down").fit(
        frame, target)
    new = frame.head(60).copy()
    new["c"] = ["zz", "a", None] * 20  # an unseen level, a known one, a missing value
    new["d"] = ["u", "never", "w"] * 20
    codes = model.encode(new)
    assert set(codes[:, 1]) <= {0, 7} and codes[0, 1] == 7 and codes[2, 1] == 7
    leaves = model.apply(new)
    expected = [_walk(model.tree_.flat, None, row) for row in codes]
    assert leaves.tolist() == expected
    assert len(model.predict(new)) == 60
    assert model.decision_path(new).shape == (60, model.tree_.flat.n_nodes)
    strict = estimator(categorical_split=split, max_leaf_nodes=12, growth="top_down",
                       handle_unknown="error").fit(frame, target)
    with pytest.raises(ValueError, match="not seen during fit"):
        strict.predict(new.iloc[[0]])
    with pytest.raises(ValueError, match="missing values"):
        strict.predict(new.iloc[[2]])


def test_unseen_goes_where_the_absent_levels_went():
    """At a node that did not see every level, the absent levels were sent to the heaviest
    child by the split search itself: an unseen level must land in the same child."""
    rng = np.random.default_rng(2)
    n = 800
    x = rng.uniform(0, 3, n)
    # the levels seen depend on x: below a split on x some levels are absent
    levels = np.array(list("abcdefghij"))
    c = levels[np.clip((x * 3).astype(int) + rng.integers(0, 3, n), 0, 9)]
    frame = pd.DataFrame({"x": x, "c": c})
    y = np.where(np.isin(c, ["b", "e", "f", "i"]) ^ (rng.random(n) < 0.1), "p", "q")
    model = DecisionTreeClassifier(growth="top_down", max_leaf_nodes=30).fit(frame, y)
    tree = model.tree_.flat
    unseen = tree.unseen_child
    checked = 0
    for node in np.flatnonzero((tree.first_child >= 0) & (tree.category_offset >= 0)):
        rows = model.decision_path(frame).toarray()[:, node].astype(bool)
        f = int(tree.feature[node])
        present = set(model.encode(frame)[rows, f].astype(int))
        absent = [c for c in range(int(tree.n_categories[f])) if c not in present]
        start, k = int(tree.first_child[node]), int(tree.n_children[node])
        weights = tree.weighted_n_node_samples[start : start + k]
        if not absent or np.sum(weights == weights.max()) > 1:
            continue
        slots = tree.category_child[tree.category_offset[node] + np.asarray(absent)]
        assert np.all(slots == unseen[node])
        checked += 1
    assert checked > 0


def test_json_round_trip_keeps_the_rule(tmp_path):
    frame, y = _data()
    model = DecisionTreeClassifier(max_leaf_nodes=10, growth="top_down").fit(frame, y)
    strict = DecisionTreeClassifier(handle_unknown="error").fit(frame, y)
    new = frame.head(30).assign(c="zz")
    for m in (model, strict):
        save_model(m, tmp_path / "m.json")
        loaded = load_model(tmp_path / "m.json")
        assert loaded.handle_unknown == m.handle_unknown
    assert np.array_equal(load_model(tmp_path / "m.json").predict(frame), strict.predict(frame))
    save_model(model, tmp_path / "m.json")
    assert np.array_equal(load_model(tmp_path / "m.json").predict(new), model.predict(new))
    # a file written before the parameter existed: the default rule applies
    doc = model.to_dict()
    del doc["params"]["handle_unknown"]
    old = DecisionTreeClassifier.from_dict(json.loads(json.dumps(doc)))
    assert old.handle_unknown == "heaviest_child"
    assert np.array_equal(old.predict(new), model.predict(new))


def test_bad_handle_unknown_is_refused():
    frame, y = _data()
    with pytest.raises(ValueError, match="handle_unknown"):
        DecisionTreeClassifier(handle_unknown="ignore").fit(frame, y)


def test_rows_with_unseen_levels_can_be_certified_on_held_out_data():
    frame, y = _data(seed=1)
    model = DecisionTreeClassifier(max_leaf_nodes=8, growth="top_down").fit(frame, y)
    test = frame.assign(c=np.where(np.arange(len(frame)) % 3 == 0, "zz", frame.c))
    c = certify(model, test, y, method="test_set")
    assert 0 <= c.risk_lower_bound <= c.n_errors / c.n_examples <= c.risk_upper_bound


# ------------------------------------------------------------------ what the bounds count
def _id3_maps(L: int, arity: int) -> set:
    """Brute force: every map of the L values (the declared levels and "anything else") to the
    children of an ID3 node with ``arity`` children: one child per present value, in value
    order, the other values in one of them."""
    maps = set()
    for present in itertools.combinations(range(L), arity):
        for shared in range(arity):
            slot = {level: j for j, level in enumerate(present)}
            maps.add(tuple(slot.get(level, shared) for level in range(L)))
    return maps


def _binary_maps(L: int) -> set:
    """Brute force: the non-trivial subsets of the L values sent to the first child."""
    return {bits for bits in itertools.product((0, 1), repeat=L) if 0 < sum(bits) < L}


@pytest.mark.parametrize("U", [1, 2, 3, 4, 5])
def test_test_counts_match_brute_force_over_the_declared_levels(U):
    from treebound.certificates._counting import _log_binary_count, _log_multiway_count

    L = U + 1
    n_levels = counted_levels([0, 0, 2], [None, None, U])  # 2 levels seen, U declared
    assert n_levels.tolist() == [0, 0, L]
    assert math.isclose(_log_binary_count(n_levels), math.log(4 + len(_binary_maps(L))),
                        rel_tol=1e-12)
    for arity in range(2, L + 1):
        # C(L, a) a messages name every deployable map (some maps twice: an absent value in a
        # child is indistinguishable from a present one there)
        counted = _log_multiway_count(np.array([L]), arity, 0)
        assert counted >= math.log(len(_id3_maps(L, arity))) - 1e-12
        assert math.isclose(counted, math.log(math.comb(L, arity) * arity), rel_tol=1e-12)
    assert seen_levels([0, 0, 2]).tolist() == [0, 0, 3]  # what pruning's objective counts


def test_fifty_declared_levels_are_counted_as_fifty_not_the_six_seen():
    rng = np.random.default_rng(0)
    n = 400
    declared = [f"l{i}" for i in range(50)]
    frame = pd.DataFrame({"x": rng.normal(size=n),
                          "c": pd.Categorical(rng.choice(declared[:6], n), categories=declared)})
    y = np.where((frame.x > 0) ^ frame.c.isin(["l0", "l1"]), "p", "q")
    model = DecisionTreeClassifier(max_leaf_nodes=4, growth="top_down").fit(frame, y)
    assert model.tree_.n_categories.tolist() == [0, 6]
    assert model.encoder_.declared_levels == [None, 50]
    counts = log_test_counts(model.tree_, counted_levels(model.tree_.n_categories,
                                                              model.encoder_.declared_levels))
    # per binary node ln(2 + 2^51 - 2) = 35.35, where the 6 seen levels gave ln(2^7) = 4.85
    assert counts.max() == pytest.approx(51 * math.log(2), rel=1e-12)
    assert 35.3 < counts.max() < 35.4
    # the same levels declared by number instead of by the dtype: the same certificate
    by_number = DecisionTreeClassifier(max_leaf_nodes=4, growth="top_down",
                                       categorical_levels={"c": 50}).fit(
        frame.assign(c=frame.c.astype(str)), y)
    assert by_number.certificate_.risk_upper_bound == model.certificate_.risk_upper_bound


def test_undeclared_levels_get_no_certificate_and_say_how_to_declare(tmp_path):
    frame, y = _data(seed=3)
    model = DecisionTreeClassifier(max_leaf_nodes=6, growth="top_down").fit(frame, y)
    assert model.certificate_.is_vacuous and model.certificate_.risk_upper_bound == 1.0
    text = str(model.certificate_)
    assert text.startswith("no certificate: categorical features 'c', 'd' have no declared")
    assert "categorical_levels={'c': N}" in text and "--levels c=N" in text
    with pytest.raises(ValueError, match="no certificate: categorical features 'c', 'd'"):
        certify(model, frame, y)
    assert certify(model, frame, y, method="test_set").n_examples == len(y)  # held-out rows
    save_model(model, tmp_path / "m.json")
    assert "no certificate" in str(load_model(tmp_path / "m.json").certificate_)
    declared = DecisionTreeClassifier(max_leaf_nodes=6, growth="top_down").fit(
        _data(seed=3, declared=True)[0], y)
    assert not declared.certificate_.is_vacuous


def test_declared_levels_are_checked():
    frame, y = _data(seed=3)
    with pytest.raises(ValueError, match="holds 7 levels, more than the 5 declared"):
        DecisionTreeClassifier(categorical_levels={"c": 5, "d": 3}).fit(frame, y)
    with pytest.raises(ValueError, match="does not list"):
        DecisionTreeClassifier(categorical_levels={"c": list("abc"), "d": 3}).fit(frame, y)
    with pytest.raises(ValueError, match="not a categorical feature"):
        DecisionTreeClassifier(categorical_levels={"x": 3}).fit(frame, y)
    with pytest.raises(ValueError, match="unknown column"):
        DecisionTreeClassifier(categorical_levels={"nope": 3}).fit(frame, y)
    model = DecisionTreeClassifier(categorical_levels={"c": list("abcdefghij"), "d": 3}).fit(
        frame, y)
    assert model.encoder_.declared_levels == [None, 10, 3]


def test_a_high_cardinality_feature_does_not_overflow_the_counts():
    rng = np.random.default_rng(0)
    n = 3000
    frame = pd.DataFrame({"x": rng.normal(size=n), "id": [f"row{i}" for i in range(n)]})
    y = (frame.x > 0).astype(int)
    model = DecisionTreeClassifier(max_leaf_nodes=4, growth="top_down",
                                   categorical_levels={"id": n}).fit(frame, y)
    counts = log_test_counts(model.tree_.flat, counted_levels(model.tree_.flat.n_categories,
                                                              model.encoder_.declared_levels))
    assert np.all(np.isfinite(counts)) and counts.max() > 3000 * math.log(2)
    assert 0 < model.certificate_.risk_upper_bound <= 1
    multi = DecisionTreeClassifier(categorical_split="multiway", max_leaf_nodes=4,
                                   growth="top_down", categorical_levels={"id": n}).fit(frame, y)
    assert np.isfinite(multi.certificate_.risk_upper_bound)


def test_the_unseen_value_makes_categorical_certificates_larger():
    frame, y = _data(seed=4)
    model = DecisionTreeClassifier(max_leaf_nodes=6, growth="top_down").fit(frame, y)
    tree = model.tree_.flat
    with_unseen = log_test_counts(tree, seen_levels(tree.n_categories)).sum()
    # the counts of the known levels alone, as the certificates had them before issue 15
    n_cat = tree.n_categories
    known_only = math.log(2 * np.count_nonzero(n_cat == 0)
                          + sum(2**int(K) - 2 for K in n_cat[n_cat > 0]))
    assert with_unseen > known_only * (tree.n_leaves - 1)
