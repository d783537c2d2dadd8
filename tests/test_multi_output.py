"""Several outputs (a 2-D ``y``) in the estimators: scikit-learn's attributes, shapes and
predictions, its class_weight per output, ccp_alpha and the pruning path; one certificate per
output (the union bound), the refused options, the model file and the exporters."""

import json

import matplotlib
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor
from sklearn.tree import export_text as sk_export_text
from sklearn.utils import compute_sample_weight

from treebound import DecisionTreeClassifier, DecisionTreeRegressor, certify, prune
from treebound.certificates import certify_deployed
from treebound.certificates._deployed import DeployedTree, treebound_midpoint
from treebound.pruning import METHODS as PRUNING_METHODS
from treebound.tree import Tree, export_text, leaf_rules, plot_tree, to_rules

matplotlib.use("Agg")


def _data(seed, n=300, d=3):
    """Two outputs (2 and 3 classes) of continuous features: at depth 2 the best split of every
    node is unique, so scikit-learn and treebound grow the same tree."""
    rng = np.random.default_rng(seed)
    # float32-representable values: scikit-learn splits on float32 copies of X
    X = rng.normal(size=(n, d)).astype(np.float32).astype(np.float64)
    first = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    second = np.digitize(X[:, 1] - 0.5 * X[:, 2] + 0.3 * rng.normal(size=n), [-0.5, 0.5])
    return X, np.column_stack([first, second])


# ------------------------------------------------------------------ against scikit-learn
@pytest.mark.filterwarnings("ignore:divide by zero")  # scikit-learn's log of 0
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(4))
def test_classifier_predicts_as_scikit_learns_on_a_tree_both_grow(seed, criterion):
    X, Y = _data(seed)
    ours = DecisionTreeClassifier(criterion=criterion, max_depth=2, random_state=0).fit(X, Y)
    theirs = SkClassifier(criterion=criterion, max_depth=2, random_state=0).fit(X, Y)
    assert ours.n_outputs_ == theirs.n_outputs_ == 2
    np.testing.assert_array_equal(ours.n_classes_, theirs.n_classes_)
    for mine, its in zip(ours.classes_, theirs.classes_, strict=True):
        np.testing.assert_array_equal(mine, its)
    predicted = ours.predict(X)
    assert predicted.shape == (len(X), 2) and predicted.dtype == theirs.predict(X).dtype
    np.testing.assert_array_equal(predicted, theirs.predict(X))
    for mine, its in zip(ours.predict_proba(X), theirs.predict_proba(X), strict=True):
        np.testing.assert_allclose(mine, its)
    for mine, its in zip(ours.predict_log_proba(X), theirs.predict_log_proba(X), strict=True):
        np.testing.assert_allclose(mine, its)
    assert ours.tree_.value.shape == (ours.tree_.node_count, 2, 3)
    np.testing.assert_array_equal(ours.tree_.n_classes, theirs.tree_.n_classes)
    np.testing.assert_allclose(np.sort(ours.tree_.value.reshape(-1, 6), axis=0),
                               np.sort(theirs.tree_.value.reshape(-1, 6), axis=0))
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_)
    assert export_text(ours, show_weights=True) == sk_export_text(theirs, show_weights=True)
    ours_path = ours.cost_complexity_pruning_path(X, Y)
    theirs_path = theirs.cost_complexity_pruning_path(X, Y)
    np.testing.assert_allclose(ours_path.ccp_alphas, theirs_path.ccp_alphas, atol=1e-12)
    np.testing.assert_allclose(ours_path.impurities, theirs_path.impurities, atol=1e-12)
    # between two alphas of the path: a subtree of it, away from the rounding at a boundary
    alpha = float(ours_path.ccp_alphas[-2] + ours_path.ccp_alphas[-3]) / 2.0
    pruned = DecisionTreeClassifier(max_depth=2, criterion=criterion, ccp_alpha=alpha).fit(X, Y)
    sk_pruned = SkClassifier(max_depth=2, criterion=criterion, ccp_alpha=alpha,
                             random_state=0).fit(X, Y)
    assert pruned.get_n_leaves() == sk_pruned.get_n_leaves()
    np.testing.assert_array_equal(pruned.predict(X), sk_pruned.predict(X))


@pytest.mark.parametrize("criterion", ["squared_error", "poisson"])
@pytest.mark.parametrize("seed", range(3))
def test_regressor_predicts_as_scikit_learns_on_a_tree_both_grow(seed, criterion):
    X, Y = _data(seed)
    Y = np.column_stack([2.0 * X[:, 0] + Y[:, 0] + 10.0, Y[:, 1] + 1.0])
    ours = DecisionTreeRegressor(criterion=criterion, max_depth=2).fit(X, Y)
    theirs = SkRegressor(criterion=criterion, max_depth=2, random_state=0).fit(X, Y)
    assert ours.n_outputs_ == 2 and ours.predict(X).shape == (len(X), 2)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X))
    assert ours.score(X, Y) == pytest.approx(theirs.score(X, Y))
    assert ours.tree_.value.shape == (ours.tree_.node_count, 2, 1)
    assert export_text(ours) == sk_export_text(theirs)
    path = ours.cost_complexity_pruning_path(X, Y).ccp_alphas
    np.testing.assert_allclose(path, theirs.cost_complexity_pruning_path(X, Y).ccp_alphas,
                               rtol=1e-9)


@pytest.mark.filterwarnings("error")  # and no DataConversionWarning, as in scikit-learn
def test_one_column_y_is_one_output_as_in_scikit_learn():
    X, Y = _data(0)
    model = DecisionTreeClassifier(max_depth=2).fit(X, Y[:, :1])
    assert model.n_outputs_ == 1 and model.n_classes_ == 2
    assert model.classes_.tolist() == [0, 1] and model.predict(X).shape == (len(X),)
    reg = DecisionTreeRegressor(max_depth=2).fit(X, X[:, :1])
    assert reg.n_outputs_ == 1 and reg.predict(X).shape == (len(X),)


def test_labels_of_every_kind_per_output():
    X, Y = _data(1)
    labels = np.column_stack([np.where(Y[:, 0] == 1, "yes", "no"),
                              np.array(["a", "b", "c"])[Y[:, 1]]])
    model = DecisionTreeClassifier(max_depth=2).fit(X, labels)
    assert [c.tolist() for c in model.classes_] == [["no", "yes"], ["a", "b", "c"]]
    assert np.mean(model.predict(X) == labels) > 0.7
    with pytest.raises(ValueError, match="missing"):
        DecisionTreeClassifier().fit(X, np.where(labels == "a", None, labels).astype(object))


def test_class_weight_per_output_is_scikit_learns_product_of_weights():
    X, Y = _data(2)
    for class_weight in ([{0: 1.0, 1: 3.0}, {0: 2.0, 1: 1.0, 2: 5.0}], "balanced"):
        weighted = DecisionTreeClassifier(max_depth=3, class_weight=class_weight).fit(X, Y)
        factors = compute_sample_weight(class_weight, Y)
        by_hand = DecisionTreeClassifier(max_depth=3).fit(X, Y, sample_weight=factors)
        np.testing.assert_array_equal(weighted.tree_.value, by_hand.tree_.value)
        # the weights change the tree, never the rows a certificate counts
        assert [c.n_examples for c in weighted.certificate_] == [len(X)] * 2


def test_sparse_x_with_several_outputs_grows_the_dense_tree():
    X, Y = _data(3)
    X[np.abs(X) < 0.8] = 0.0
    dense = DecisionTreeClassifier(random_state=0).fit(X, Y)
    for container in (sp.csr_matrix, sp.csc_matrix):
        sparse = DecisionTreeClassifier(random_state=0).fit(container(X), Y)
        np.testing.assert_array_equal(sparse.tree_.value, dense.tree_.value)
        np.testing.assert_array_equal(sparse.predict(container(X)), dense.predict(X))
        assert sparse.certificate_ == dense.certificate_


def test_sparse_x_beyond_the_densified_size_with_several_outputs_is_refused_in_one_line():
    rng = np.random.default_rng(0)
    n = 8192  # 2^26 cells: beyond the size that is densified
    rows, cols = rng.integers(0, n, 2000), rng.integers(0, n, 2000)
    X = sp.csr_matrix((rng.normal(size=2000), (rows, cols)), shape=(n, n))
    Y = rng.integers(0, 2, size=(n, 2))
    with pytest.raises(ValueError, match="several outputs") as info:
        DecisionTreeClassifier(max_depth=2).fit(X, Y)
    assert "\n" not in str(info.value)


def test_score_is_scikit_learns():
    X, Y = _data(4)
    labels = np.column_stack([Y[:, 0], Y[:, 1] > 0])  # two binary outputs: multi-label
    ours = DecisionTreeClassifier(max_depth=2).fit(X, labels)
    theirs = SkClassifier(max_depth=2, random_state=0).fit(X, labels)
    assert ours.score(X, labels) == theirs.score(X, labels)  # subset accuracy
    for model in (DecisionTreeClassifier(max_depth=2), SkClassifier(max_depth=2)):
        with pytest.raises(ValueError, match="multiclass-multioutput is not supported"):
            model.fit(X, Y).score(X, Y)


# ------------------------------------------------------------------ certificates
def _output_oracle(model, X, Y, k, delta, method="auto"):
    """The certificate of output ``k`` built by hand: a one-output flat tree holding that
    output's class counts, read as any one-output treebound tree is."""
    flat = model.tree_.flat
    n_k = len(model.classes_[k])
    arrays = {name: getattr(flat, name) for name in ("first_child", "n_children", "feature",
                                                     "threshold", "category_offset",
                                                     "category_child", "impurity",
                                                     "n_node_samples",
                                                     "weighted_n_node_samples",
                                                     "n_categories", "missing_child")}
    tree = Tree(**arrays, value=flat.value[:, k, :n_k].copy()).validate()
    deployed = DeployedTree(tree=tree, features=X, classes=model.classes_[k],
                            leaf_class=np.argmax(tree.value, axis=1),
                            n_categories=tree.n_categories, midpoint=treebound_midpoint,
                            family="treebound", n_fit_rows=len(X))
    y_idx = np.searchsorted(model.classes_[k], Y[:, k])
    return certify_deployed(deployed, y_idx, delta=delta, method=method)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n_outputs=st.integers(2, 4),
       max_leaf_nodes=st.integers(2, 8))
def test_certificate_of_several_outputs_is_the_union_bound_of_one_per_output(
        seed, n_outputs, max_leaf_nodes):
    rng = np.random.default_rng(seed)
    n = 120
    X = rng.normal(size=(n, 3)).round(2)
    Y = np.column_stack([(X[:, k % 3] + rng.normal(scale=0.7, size=n) > 0).astype(int)
                         + (k % 2) * (X[:, 1] > 1) for k in range(n_outputs)])
    model = DecisionTreeClassifier(max_leaf_nodes=max_leaf_nodes, growth="top_down").fit(X, Y)
    certificates = model.certificate_
    assert isinstance(certificates, list) and len(certificates) == n_outputs
    # each at delta / n_outputs: together they hold with probability at least 1 - 0.05
    assert sum(c.delta for c in certificates) == pytest.approx(0.05)
    predicted = model.predict(X)
    for k, certificate in enumerate(certificates):
        assert certificate.delta == pytest.approx(0.05 / n_outputs)
        assert certificate.n_examples == n and certificate.n_leaves == model.get_n_leaves()
        assert certificate.n_errors == int(np.sum(predicted[:, k] != Y[:, k]))
        assert certificate == _output_oracle(model, X, Y, k, 0.05 / n_outputs)
    assert certify(model, X, Y) == certificates
    for k, one in enumerate(certify(model, X, Y, delta=0.1, method="hti")):
        assert one == _output_oracle(model, X, Y, k, 0.1 / n_outputs, method="hti")


def test_certify_wants_one_column_per_output():
    X, Y = _data(4)
    model = DecisionTreeClassifier(max_depth=2).fit(X, Y)
    with pytest.raises(ValueError, match="one column per output"):
        certify(model, X, Y[:, 0])


# ------------------------------------------------------------------ refused options
@pytest.mark.parametrize("pruning", PRUNING_METHODS)
def test_every_pruning_method_is_refused_in_one_line_naming_it(pruning):
    X, Y = _data(5)
    with pytest.raises(ValueError, match=f"pruning='{pruning}' is not supported with several "
                                         "outputs") as info:
        DecisionTreeClassifier(pruning=pruning).fit(X, Y)
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="not supported with several outputs|regression"):
        DecisionTreeRegressor(pruning=pruning).fit(X, Y.astype(float))
    grown = DecisionTreeClassifier(max_depth=3).fit(X, Y)
    for target in (grown, grown.tree_):
        with pytest.raises(ValueError, match=f"prune\\(method='{pruning}'\\) is not "
                                             "supported with several outputs"):
            prune(target, X, Y, method=pruning)


def test_monotonic_cst_with_several_outputs_is_scikit_learns_error():
    X, Y = _data(5)
    for model in (DecisionTreeClassifier(monotonic_cst=[1, 0, 0]),
                  DecisionTreeRegressor(monotonic_cst=[1, 0, 0]),
                  SkClassifier(monotonic_cst=[1, 0, 0])):
        with pytest.raises(ValueError, match="Monotonicity constraints are not supported with "
                                             "multiple outputs"):
            model.fit(X, Y)


def test_rules_refuse_a_tree_of_several_outputs_and_name_the_exporters():
    X, Y = _data(6)
    model = DecisionTreeClassifier(max_depth=2).fit(X, Y)
    for rules in (leaf_rules, to_rules):
        with pytest.raises(ValueError, match="2 outputs.*export_text or plot_tree"):
            rules(model)
    # the boxes hold scikit-learn's text for its tree grown alike
    import matplotlib.pyplot as plt
    from sklearn.tree import plot_tree as sk_plot_tree

    for ours, theirs in ((model, SkClassifier(max_depth=2, random_state=0).fit(X, Y)),
                         (DecisionTreeRegressor(max_depth=2).fit(X, Y.astype(float)),
                          SkRegressor(max_depth=2, random_state=0).fit(X, Y.astype(float)))):
        texts = sorted(t.get_text() for t in plot_tree(ours).texts)
        plt.close("all")
        assert texts == sorted(t.get_text() for t in sk_plot_tree(theirs))
        plt.close("all")


# ------------------------------------------------------------------ model file
def test_model_file_round_trip_of_several_outputs_and_its_version(tmp_path):
    from treebound import load_model, save_model

    X, Y = _data(7)
    model = DecisionTreeClassifier(max_depth=3).fit(X, np.where(Y == 0, "zero", "other"))
    path = tmp_path / "multi.json"
    save_model(model, path)
    data = json.loads(path.read_text())
    assert data["format_version"] == 4 and len(data["extra"]["certificate"]) == 2
    again = load_model(path)
    assert [c.tolist() for c in again.classes_] == [c.tolist() for c in model.classes_]
    np.testing.assert_array_equal(again.n_classes_, model.n_classes_)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    assert again.certificate_ == model.certificate_ and again.n_outputs_ == 2
    reg = DecisionTreeRegressor(max_depth=3).fit(X, Y.astype(float))
    reg_again = DecisionTreeRegressor.from_dict(json.loads(json.dumps(reg.to_dict())))
    np.testing.assert_array_equal(reg_again.predict(X), reg.predict(X))
    assert reg_again.tree_.n_outputs == 2 and reg_again.n_outputs_ == 2
    # a one-output model keeps the version older readers know
    single = DecisionTreeClassifier(max_depth=2).fit(X, Y[:, 0]).to_dict()
    assert single["format_version"] == 3


def test_model_file_of_several_outputs_refuses_what_contradicts_it():
    X, Y = _data(8)
    data = DecisionTreeClassifier(max_depth=3).fit(X, Y).to_dict()
    cases = [
        (lambda d: d.update(format_version=3), "version 3 has one output"),
        (lambda d: d.update(classes=d["classes"][:1]), "classes for 1 outputs"),
        (lambda d: d["classes"][1].pop(), "2 classes for output 1"),
        (lambda d: d.update(classes_dtype="<i8"), "list of dtype strings"),
        (lambda d: d["extra"].update(certificate=d["extra"]["certificate"][0]),
         "one certificate per output"),
        (lambda d: d["extra"]["certificate"][1].update(risk_upper_bound=0.001,
                                                       risk_lower_bound=None), "claims"),
    ]
    for edit, message in cases:
        broken = json.loads(json.dumps(data))
        edit(broken)
        with pytest.raises(ValueError, match=message):
            DecisionTreeClassifier.from_dict(broken)


# ------------------------------------------------------------------ command line
def test_command_line_predicts_every_output_and_certify_says_what_it_needs(tmp_path):
    import pandas as pd
    from typer.testing import CliRunner

    from treebound import save_model
    from treebound.cli.main import app

    X, Y = _data(9, n=80)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = DecisionTreeClassifier(max_depth=2).fit(frame, Y)
    save_model(model, tmp_path / "m.json")
    frame.assign(y=Y[:, 0]).to_csv(tmp_path / "d.csv", index=False)
    runner = CliRunner()
    result = runner.invoke(app, ["predict", str(tmp_path / "m.json"), str(tmp_path / "d.csv")])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "prediction_0,prediction_1"
    np.testing.assert_array_equal(
        np.array([line.split(",") for line in result.output.splitlines()[1:]], dtype=int),
        model.predict(frame))
    result = runner.invoke(app, ["predict", str(tmp_path / "m.json"), str(tmp_path / "d.csv"),
                                 "--proba"])
    assert result.output.splitlines()[0] == "p0(0),p0(1),p1(0),p1(1),p1(2)"
    result = runner.invoke(app, ["certify", str(tmp_path / "m.json"), str(tmp_path / "d.csv"),
                                 "--target", "y"])
    assert result.exit_code != 0 and "one column per output (2)" in result.output
