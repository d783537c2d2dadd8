"""What a user of scikit-learn's trees reads on treebound's: ``tree_`` in scikit-learn's layout,
``feature_importances_``, ``ccp_alpha`` and ``cost_complexity_pruning_path``, ``class_weight``,
one-class targets, scikit-learn's errors, and certificates that count rows whatever the weights.
Each is checked against scikit-learn itself or a naive oracle."""

import json
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from sklearn.datasets import load_iris, load_wine
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor
from sklearn.tree import export_graphviz

from treebound import DecisionTreeClassifier, DecisionTreeRegressor, certify

FAST = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _iris():
    return load_iris(return_X_y=True)


def _categorical_frame(n=120, seed=0):
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "black"], size=n)
    size = rng.normal(size=n)
    y = ((colour == "red") | (size > 1.0)).astype(int)
    return pd.DataFrame({"colour": pd.Categorical(colour), "size": size}), y


# ----------------------------------------------------------------------------------- tree_
def test_tree_has_scikit_learns_names_and_shapes():
    X, y = _iris()
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    tree, flat = model.tree_, model.tree_.flat
    n = flat.n_nodes
    leaf = flat.first_child < 0
    assert tree.node_count == tree.capacity == n
    assert tree.n_outputs == 1 and tree.n_classes.tolist() == [3] and tree.max_n_classes == 3
    assert tree.value.shape == (n, 1, 3)
    np.testing.assert_allclose(tree.value.sum(axis=2), 1.0)
    np.testing.assert_allclose(tree.value[:, 0, :] * flat.weighted_n_node_samples[:, None],
                               flat.value)  # fractions of the weighted class counts
    assert np.all(tree.feature[leaf] == -2) and np.all(tree.threshold[leaf] == -2.0)
    assert np.array_equal(tree.feature[~leaf], flat.feature[~leaf])
    assert np.array_equal(tree.children_left, np.where(leaf, -1, flat.first_child))
    assert np.array_equal(tree.children_right, np.where(leaf, -1, flat.first_child + 1))
    assert tree.max_depth == model.get_depth() and tree.n_leaves == model.get_n_leaves()
    assert np.array_equal(tree.apply(X), model.apply(X))
    assert (tree.decision_path(X) != model.decision_path(X)).nnz == 0
    assert tree.compute_node_depths()[0] == 1


def test_regression_tree_value_is_the_prediction():
    X, y = _iris()
    model = DecisionTreeRegressor(max_depth=2).fit(X, y.astype(float))
    tree = model.tree_
    assert tree.value.shape == (tree.node_count, 1, 1) and tree.n_classes.tolist() == [1]
    leaves = model.apply(X)
    np.testing.assert_array_equal(tree.value[leaves, 0, 0], model.predict(X))


def _preorder(tree):
    """Node ids of a scikit-learn-layout tree in depth-first preorder (left first)."""
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        order.append(node)
        if tree.children_left[node] != -1:
            stack += [tree.children_right[node], tree.children_left[node]]
    return np.array(order)


def _renumbered_dot(text):
    """A DOT text with its node ids replaced by their order of definition (treebound numbers
    nodes breadth-first, scikit-learn depth-first; both exporters walk depth-first and define a
    node before the edge that reaches it)."""
    import re

    ids: dict[str, str] = {}
    out = []
    for line in text.splitlines():
        node = re.match(r"(\d+) \[label", line)
        if node:
            ids[node.group(1)] = str(len(ids))
        out.append(re.sub(r"^(\d+)|(?<=-> )(\d+)", lambda m: ids[m.group(0)], line))
    return "\n".join(out)


def test_same_splits_give_scikit_learns_tree_and_graphviz():
    """On wine the first three levels are unique best splits: both libraries grow the same
    tree, so every array of ``tree_`` (taken in the same node order) and scikit-learn's own
    exporter agree."""
    X, y = load_wine(return_X_y=True)
    ours = DecisionTreeClassifier(max_depth=3).fit(X, y)
    theirs = SkClassifier(max_depth=3, random_state=0).fit(X, y)
    a, b = _preorder(ours.tree_), _preorder(theirs.tree_)
    for name in ("feature", "n_node_samples"):
        np.testing.assert_array_equal(getattr(ours.tree_, name)[a], getattr(theirs.tree_, name)[b])
    for name in ("threshold", "impurity", "weighted_n_node_samples", "value"):
        np.testing.assert_allclose(getattr(ours.tree_, name)[a], getattr(theirs.tree_, name)[b])
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_)
    for kwargs in ({}, {"filled": True, "proportion": True, "class_names": list("abc")}):
        assert _renumbered_dot(export_graphviz(ours, **kwargs)) == \
            _renumbered_dot(export_graphviz(theirs, **kwargs))


def test_multiway_and_categorical_trees_refuse_scikit_learns_layout_in_one_line():
    X, y = _categorical_frame()
    multiway = DecisionTreeClassifier(categorical_split="multiway").fit(X, y)
    assert not multiway.tree_.flat.is_binary
    with pytest.raises(ValueError, match="multiway splits.*treebound.export_text") as info:
        export_graphviz(multiway)
    assert "\n" not in str(info.value)
    binary = DecisionTreeClassifier().fit(X, y)
    assert binary.tree_.children_left.shape == (binary.tree_.node_count,)
    with pytest.raises(ValueError, match="categorical tests.*treebound.plot_tree"):
        export_graphviz(binary)
    # the arrays that mean the same in both layouts still read
    assert binary.tree_.value.shape[0] == binary.tree_.node_count


def test_tree_pickles_with_every_attribute():
    X, y = _iris()
    model = DecisionTreeClassifier(random_state=0).fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    for name in ("node_count", "capacity", "n_classes", "children_left", "children_right",
                 "n_leaves", "feature", "threshold", "impurity", "n_node_samples",
                 "weighted_n_node_samples", "value", "max_depth"):
        np.testing.assert_array_equal(getattr(again.tree_, name), getattr(model.tree_, name))
    assert again.certificate_ == model.certificate_
    fits = [DecisionTreeClassifier(random_state=0).fit(X, y) for _ in range(2)]
    assert pickle.dumps(fits[0]) == pickle.dumps(fits[1])


def test_flat_tree_readers_accept_the_view():
    """Every function of treebound that takes a tree reads the flat tree behind ``tree_``."""
    from treebound.pruning.cost_complexity import weakest_link_sequence
    from treebound.theory import TreeStructure

    X, y = _iris()
    tree = DecisionTreeClassifier(max_leaf_nodes=6, growth="top_down").fit(X, y).tree_
    a, b = weakest_link_sequence(tree), weakest_link_sequence(tree.flat)
    assert a.alphas.tolist() == b.alphas.tolist()
    assert str(TreeStructure.from_tree(tree)) == str(TreeStructure.from_tree(tree.flat))
    assert tree.flat.flat is tree.flat


# ------------------------------------------------------------------ feature_importances_
def _naive_importances(tree):
    out = np.zeros(tree.n_features)
    w, imp = tree.weighted_n_node_samples, tree.impurity
    for node in range(tree.n_nodes):
        children = tree.children(node)
        if children.size:
            out[tree.feature[node]] += w[node] * imp[node] - sum(w[c] * imp[c] for c in children)
    return out / out.sum() if out.sum() > 0 else out


@pytest.mark.parametrize("split", ["binary", "multiway"])
def test_feature_importances_are_the_normalized_impurity_decrease(split):
    X, y = _categorical_frame(seed=3)
    model = DecisionTreeClassifier(categorical_split=split, max_depth=3).fit(X, y)
    np.testing.assert_allclose(model.feature_importances_, _naive_importances(model.tree_.flat))
    assert model.feature_importances_.sum() == pytest.approx(1.0)


def test_feature_importances_before_fit_raise_not_fitted():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        DecisionTreeClassifier().feature_importances_  # noqa: B018


# ------------------------------------------------------------------- ccp_alpha and the path
def test_cost_complexity_path_and_ccp_alpha_match_scikit_learn():
    X, y = _iris()
    ours = DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(X, y)
    theirs = SkClassifier(random_state=0).cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(ours.ccp_alphas, theirs.ccp_alphas)
    np.testing.assert_allclose(ours.impurities, theirs.impurities)
    for alpha in theirs.ccp_alphas[1:-1]:
        a = DecisionTreeClassifier(ccp_alpha=alpha).fit(X, y)
        b = SkClassifier(ccp_alpha=alpha, random_state=0).fit(X, y)
        assert a.get_n_leaves() == b.get_n_leaves()
        np.testing.assert_array_equal(a.predict(X), b.predict(X))


def _effective_alphas(tree):
    """Naive ``(R(t) - R(T_t)) / (leaves(T_t) - 1)`` of every internal node (impurity risk)."""
    risk = tree.impurity * tree.weighted_n_node_samples / tree.weighted_n_node_samples[0]

    def below(node):  # (risk of the leaves, number of leaves) under node
        children = tree.children(node)
        if not children.size:
            return risk[node], 1
        parts = [below(c) for c in children]
        return sum(r for r, _ in parts), sum(n for _, n in parts)

    return [(risk[v] - below(v)[0]) / (below(v)[1] - 1)
            for v in range(tree.n_nodes) if tree.children(v).size]


@FAST
@given(seed=st.integers(0, 10_000), alpha=st.floats(0.001, 0.05))
def test_ccp_alpha_leaves_no_link_weaker_than_alpha(seed, alpha):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(80, 3)), 1)
    y = (X[:, 0] + 0.5 * rng.normal(size=80) > 0).astype(int)
    grown = DecisionTreeClassifier().fit(X, y)
    pruned = DecisionTreeClassifier(ccp_alpha=alpha).fit(X, y)
    assert pruned.get_n_leaves() <= grown.get_n_leaves()
    # scikit-learn's rule: pruning stops when the weakest link left is stronger than alpha
    assert all(g > alpha for g in _effective_alphas(pruned.tree_.flat))
    # the certificate of a ccp_alpha tree is like any other's: on the same rows
    assert pruned.certificate_ == certify(pruned, X, y)


def test_ccp_alpha_and_pruning_exclude_each_other():
    X, y = _iris()
    with pytest.raises(ValueError, match="ccp_alpha=0.01 fixes .* pruning='ccp_cv'"):
        DecisionTreeClassifier(ccp_alpha=0.01, pruning="ccp_cv").fit(X, y)
    with pytest.raises(ValueError, match="'ccp_alpha' parameter"):
        DecisionTreeClassifier(ccp_alpha=-1.0).fit(X, y)
    # the default ccp_alpha=0.0 leaves pruning alone
    assert DecisionTreeClassifier(pruning="ccp_cv", random_state=0).fit(X, y).get_n_leaves() > 1


def test_ccp_alpha_regressor_matches_scikit_learn():
    X, y = _iris()
    target = X[:, 3] * 2.0 + y
    path = SkRegressor(random_state=0, max_leaf_nodes=20).cost_complexity_pruning_path(X, target)
    alpha = float(path.ccp_alphas[len(path.ccp_alphas) // 2])
    a = DecisionTreeRegressor(ccp_alpha=alpha, max_leaf_nodes=20, growth="top_down").fit(X, target)
    b = SkRegressor(ccp_alpha=alpha, max_leaf_nodes=20, random_state=0).fit(X, target)
    assert a.get_n_leaves() == b.get_n_leaves()
    np.testing.assert_allclose(a.predict(X), b.predict(X))


# -------------------------------------------------------------------------- class_weight
def test_class_weight_is_a_sample_weight_factor():
    X, y = _iris()
    weights = np.where(y == 1, 100.0, 1.0)
    a = DecisionTreeClassifier(class_weight={0: 1.0, 1: 100.0, 2: 1.0}).fit(X, y)
    b = DecisionTreeClassifier().fit(X, y, sample_weight=weights)
    assert json.dumps(a.to_dict()["tree"]) == json.dumps(b.to_dict()["tree"])
    balanced = DecisionTreeClassifier(class_weight="balanced").fit(X[:120], y[:120])
    from sklearn.utils import compute_sample_weight

    c = DecisionTreeClassifier().fit(X[:120], y[:120],
                                     sample_weight=compute_sample_weight("balanced", y[:120]))
    np.testing.assert_array_equal(balanced.tree_.flat.value, c.tree_.flat.value)


@pytest.mark.parametrize("class_weight", ["balanced", {0: 5.0, 1: 1.0}, {0: 1e-6, 1: 1e6}])
def test_class_weight_changes_the_tree_never_the_counts_a_bound_reads(class_weight):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + rng.normal(size=300) > 1.0).astype(int)  # imbalanced
    weighted = DecisionTreeClassifier(class_weight=class_weight, max_leaf_nodes=6,
                                      growth="top_down").fit(X, y)
    cert = weighted.certificate_
    assert cert.n_examples == 300  # rows, whatever their weights
    errors = int(np.sum(weighted.predict(X) != y))
    assert cert.n_errors == errors
    assert cert == certify(weighted, X, y)


def test_class_weight_zero_for_a_class_still_certifies_every_row():
    X, y = _iris()
    model = DecisionTreeClassifier(class_weight={0: 0.0, 1: 1.0, 2: 1.0}).fit(X, y)
    assert model.tree_.flat.n_node_samples[0] == 100  # class 0 removed from growth
    assert model.certificate_.n_examples == 150  # but counted by the certificate
    assert model.certificate_.n_errors == int(np.sum(model.predict(X) != y))
    with pytest.raises(ValueError, match="no row with positive weight"):
        DecisionTreeClassifier(class_weight={0: 0.0, 1: 0.0, 2: 0.0}).fit(X, y)


def test_bad_class_weight_is_refused():
    X, y = _iris()
    with pytest.raises(ValueError, match="'class_weight' parameter"):
        DecisionTreeClassifier(class_weight="auto").fit(X, y)
    with pytest.raises(TypeError, match="'class_weight' parameter"):
        DecisionTreeClassifier(class_weight=3).fit(X, y)


# ---------------------------------------------------------------------------- targets
def test_one_class_fits_one_leaf_with_a_certificate():
    X, _ = _iris()
    model = DecisionTreeClassifier().fit(X, np.full(150, "a"))
    assert model.get_n_leaves() == 1 and model.n_classes_ == 1
    assert model.predict(X[:3]).tolist() == ["a", "a", "a"]
    assert model.predict_proba(X[:2]).tolist() == [[1.0], [1.0]]
    assert model.certificate_.n_errors == 0 and model.certificate_.risk_upper_bound < 0.05
    again = DecisionTreeClassifier.from_dict(json.loads(json.dumps(model.to_dict())))
    assert again.predict(X[:1]).tolist() == ["a"]


def test_fitted_attributes_survive_the_model_file():
    X, y = _iris()
    model = DecisionTreeClassifier(max_features="sqrt", random_state=0).fit(X, y)
    assert (model.n_classes_, model.n_outputs_, model.max_features_) == (3, 1, 2)
    again = DecisionTreeClassifier.from_dict(json.loads(json.dumps(model.to_dict())))
    assert (again.n_classes_, again.n_outputs_, again.max_features_) == (3, 1, 2)
    np.testing.assert_array_equal(again.tree_.value, model.tree_.value)
    np.testing.assert_array_equal(again.feature_importances_, model.feature_importances_)


# ------------------------------------------------------------------ renamed splitter name
def test_exact_is_the_former_name_of_best():
    X, y = _iris()
    with pytest.warns(FutureWarning, match='splitter="exact" is now called splitter="best"'):
        old = DecisionTreeClassifier(splitter="exact").fit(X, y)
    new = DecisionTreeClassifier(splitter="best").fit(X, y)
    assert json.dumps(old.to_dict()["tree"]) == json.dumps(new.to_dict()["tree"])
    data = new.to_dict()
    data["params"]["splitter"] = "exact"  # a file written before the rename
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = DecisionTreeClassifier.from_dict(data)
    assert loaded.splitter == "best"


# ------------------------------------------------------------------------- bad input
def test_values_beyond_float32_are_refused_as_scikit_learn_does():
    X = np.array([[0.0], [1.0], [1e39], [2.0]])
    y = [0, 1, 0, 1]
    for estimator in (DecisionTreeClassifier(), DecisionTreeRegressor(), SkClassifier()):
        with pytest.raises(ValueError, match="too large for dtype\\('float32'\\)"):
            estimator.fit(X, y)
    model = DecisionTreeClassifier().fit(X[[0, 1, 3]], [0, 1, 1])
    with pytest.raises(ValueError, match="too large for dtype"):
        model.predict(X)
    # the largest float32 is fine, and its thresholds are finite
    big = np.float32(np.finfo(np.float32).max)
    Xb = np.array([[-big], [0.0], [big]], dtype=np.float64)
    tree = DecisionTreeRegressor().fit(Xb, [0.0, 1.0, 2.0]).tree_
    assert np.all(np.isfinite(tree.threshold))


def test_sparse_y_and_zero_dimensional_weights_are_type_errors():
    X, y = _iris()
    with pytest.raises(TypeError, match="sparse"):
        DecisionTreeClassifier().fit(X, csr_matrix(y.reshape(-1, 1)))
    with pytest.raises(TypeError, match="at least 1 dimension"):
        DecisionTreeClassifier().fit(X, y, sample_weight=np.array(0.0))
    with pytest.raises(ValueError, match="'min_samples_split' parameter of DecisionTreeRegressor "
                                         r"must be an int in the range \[2, inf\)"):
        DecisionTreeRegressor(min_samples_split=1).fit(X, y)


# ------------------------------------------------------------------------- signatures
@pytest.mark.parametrize("ours, theirs", [(DecisionTreeClassifier, SkClassifier),
                                          (DecisionTreeRegressor, SkRegressor)])
def test_every_public_method_of_scikit_learns_tree_takes_its_arguments(ours, theirs):
    import inspect

    for name in dir(theirs):
        method = getattr(theirs, name)
        if name.startswith("_") or not callable(method) or isinstance(method, type):
            continue
        assert hasattr(ours, name), name
        expected = set(inspect.signature(method).parameters)
        assert expected <= set(inspect.signature(getattr(ours, name)).parameters), name


def test_check_input_is_accepted_and_changes_nothing():
    X, y = _iris()
    model = DecisionTreeClassifier(max_depth=3).fit(X, y, check_input=False)
    np.testing.assert_array_equal(model.predict(X, check_input=False), model.predict(X))
    np.testing.assert_array_equal(model.apply(X, check_input=False), model.apply(X))
    np.testing.assert_array_equal(model.predict_proba(X, check_input=False),
                                  model.predict_proba(X))
    assert (model.decision_path(X, check_input=False) != model.decision_path(X)).nnz == 0
    reg = DecisionTreeRegressor(max_depth=2).fit(X, X[:, 0], check_input=False)
    np.testing.assert_array_equal(reg.predict(X, check_input=False), reg.predict(X))


def test_class_weight_that_does_not_fit_the_outputs_is_scikit_learns_error():
    X, y = _iris()
    two = np.column_stack([y, 2 * y])
    for model in (DecisionTreeClassifier(class_weight=[{0: 1.0}]),
                  SkClassifier(class_weight=[{0: 1.0}])):
        with pytest.raises(ValueError, match="number of elements in class_weight should match "
                                             "number of outputs"):
            model.fit(X, two)
    for model in (DecisionTreeClassifier(class_weight={0: 2.0}),
                  SkClassifier(class_weight={0: 2.0})):
        with pytest.raises(ValueError, match="class_weight should be a list of dicts"):
            model.fit(X, two)


def test_methods_answer_as_scikit_learns_on_the_same_tree():
    """apply, decision_path, predict_proba, predict_log_proba, get_depth, get_n_leaves on a tree
    both libraries grow alike: the same answers, node ids mapped through the preorder."""
    X, y = load_wine(return_X_y=True)
    ours = DecisionTreeClassifier(max_depth=3).fit(X, y)
    theirs = SkClassifier(max_depth=3, random_state=0).fit(X, y)
    a, b = _preorder(ours.tree_), _preorder(theirs.tree_)
    to_ours = np.empty_like(a)
    to_ours[b] = a  # scikit-learn's node id -> treebound's
    np.testing.assert_array_equal(ours.apply(X), to_ours[theirs.apply(X)])
    path = ours.decision_path(X).toarray()
    np.testing.assert_array_equal(path[:, a], theirs.decision_path(X).toarray()[:, b])
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X))
    with np.errstate(divide="ignore"):  # scikit-learn's log of a zero probability
        np.testing.assert_allclose(ours.predict_log_proba(X), theirs.predict_log_proba(X))
    assert ours.get_depth() == theirs.get_depth() and ours.get_n_leaves() == theirs.get_n_leaves()


def test_feature_importances_select_features_as_scikit_learns():
    from sklearn.feature_selection import SelectFromModel

    X, y = load_wine(return_X_y=True)
    ours = SelectFromModel(DecisionTreeClassifier(max_depth=3)).fit(X, y)
    theirs = SelectFromModel(SkClassifier(max_depth=3, random_state=0)).fit(X, y)
    np.testing.assert_array_equal(ours.get_support(), theirs.get_support())
    assert ours.transform(X).shape[1] == ours.get_support().sum() > 0


# wrong types (TypeError) and wrong values (ValueError): scikit-learn refuses every one of them
# (its InvalidParameterError is both); max_depth=0 is treebound's one-leaf tree, documented
BAD_TYPES = {"criterion": [1, None], "splitter": [1], "max_depth": ["3", True],
             "min_samples_split": ["2", True], "min_samples_leaf": ["1"],
             "min_impurity_decrease": ["0"], "ccp_alpha": ["0"], "random_state": ["x"]}
BAD_VALUES = {"criterion": ["foo"], "splitter": ["foo"], "max_depth": [-1, 1.5],
              "min_samples_split": [0, 1, 1.5, 0.0, -0.5], "min_samples_leaf": [0, 0.0, 1.5, -1],
              "max_features": ["auto", 0, 0.0, 1.5, -1, "foo"], "max_leaf_nodes": [0, 1, 1.5],
              "min_impurity_decrease": [-1.0], "ccp_alpha": [-1.0], "random_state": [-1, 1.5]}


def _bad(table):
    return [(cls, name, value) for cls in ("DecisionTreeClassifier", "DecisionTreeRegressor")
            for name, values in table.items() for value in values]


@pytest.mark.parametrize("cls, name, value", _bad(BAD_TYPES) + [
    ("DecisionTreeClassifier", "class_weight", 1)])
def test_a_wrong_type_is_a_type_error_refused_by_both(cls, name, value):
    import sklearn.tree

    import treebound

    X, y = _iris()
    with pytest.raises(TypeError, match=name):
        getattr(treebound, cls)(**{name: value}).fit(X, y)
    if value is not True:  # scikit-learn takes True for the integer 1
        with pytest.raises(TypeError):
            getattr(sklearn.tree, cls)(**{name: value}).fit(X, y)


@pytest.mark.parametrize("cls, name, value", _bad(BAD_VALUES) + [
    ("DecisionTreeClassifier", "class_weight", "foo")])
def test_a_wrong_value_is_a_value_error_refused_by_both(cls, name, value):
    import sklearn.tree

    import treebound

    X, y = _iris()
    with pytest.raises(ValueError, match=name):
        getattr(treebound, cls)(**{name: value}).fit(X, y)
    with pytest.raises(ValueError):
        getattr(sklearn.tree, cls)(**{name: value}).fit(X, y)
