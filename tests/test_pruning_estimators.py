"""Pruning through the estimators and :func:`treebound.pruning.prune`: parameters, fitted
attributes, persistence."""

import json
import math

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris

from _pruning_oracles import is_pruned_subtree
from treebound import DecisionTreeClassifier, DecisionTreeRegressor, load_model, prune, save_model
from treebound._options import PAPER_ERROR_PRIOR_RATIO, VARIANTS
from treebound.pruning import METHODS, resolve_params
from treebound.theory import VARIANTS as THEORY_VARIANTS
from treebound.theory.bounds import PAPER_ERROR_PRIOR_RATIO as THEORY_RATIO


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


def test_constants_mirror_the_theory_module():
    assert VARIANTS == THEORY_VARIANTS
    assert PAPER_ERROR_PRIOR_RATIO == THEORY_RATIO


@pytest.mark.parametrize("method", METHODS)
def test_every_method_prunes_a_subtree_and_sets_attributes(cancer, method):
    X, y = cancer
    grown = DecisionTreeClassifier(random_state=0, max_leaf_nodes=30).fit(X, y)
    model = DecisionTreeClassifier(random_state=0, max_leaf_nodes=30, pruning=method).fit(X, y)
    assert model.get_n_leaves() <= 30
    assert model.pruning_time_ >= 0.0
    assert model.pruning_path_[0][0] >= model.pruning_path_[-1][0]
    assert (model.pruning_objective_ is not None) == (method in ("bound", "certified", "srm"))
    if method != "reduced_error":  # reduced_error grows on 80 % of the data
        mask = np.zeros(grown.tree_.flat.n_nodes, dtype=bool)
        result = prune(grown, X, y, method=method, random_state=None)
        mask |= result.make_leaf
        assert is_pruned_subtree(grown.tree_.flat, result.tree, result.old_to_new)
        assert np.array_equal(result.tree.first_child, model.tree_.flat.first_child)
    assert model.score(X, y) > 0.85


def test_prune_returns_a_copy_with_fitted_attributes(cancer):
    X, y = cancer
    grown = DecisionTreeClassifier(random_state=0).fit(X, y)
    before = grown.tree_.flat.n_nodes
    result = prune(grown, method="bound", variant="loose")
    assert grown.tree_.flat.n_nodes == before  # the input is untouched
    est = result.estimator
    assert est is not grown and est.tree_.flat is result.tree
    assert est.pruning_objective_ == result.objective and est.pruning_path_ == list(result.path)
    assert est.pruning is None  # constructor parameters are left as they were
    assert np.array_equal(est.predict(X), grown.classes_[result.tree.majority_class[
        result.tree.apply(X)]])


def test_prune_a_bare_tree_and_the_cv_methods_need_settings(cancer):
    X, y = cancer
    grown = DecisionTreeClassifier(random_state=0, max_leaf_nodes=20).fit(X, y)
    result = prune(grown.tree_.flat, method="srm")
    assert result.estimator is None and result.tree.n_leaves <= 20
    with pytest.raises(ValueError, match="settings"):
        prune(grown.tree_.flat, X, y, method="ccp_cv")
    from treebound.tree._classes import growth_settings

    settings = growth_settings(grown, *X.shape)
    bare = prune(grown.tree_.flat, X, y, method="ccp_cv", settings=settings, random_state=3)
    assert bare.tree.n_leaves == prune(grown, X, y, method="ccp_cv", random_state=3).n_leaves
    with pytest.raises(ValueError, match="needs the data"):
        prune(grown, method="reduced_error")
    with pytest.raises(TypeError, match="fitted treebound estimator"):
        prune("tree", method="bound")
    with pytest.raises(ValueError, match="not fitted on"):
        prune(grown, X, np.full(len(y), 7), method="reduced_error")


def test_pruning_params_validation(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match=r"unknown pruning_params \['alpha', 'folds'\]"):
        DecisionTreeClassifier(pruning="ccp_cv", pruning_params={"folds": 5, "alpha": 1}).fit(X, y)
    with pytest.raises(ValueError, match="'rule'"):
        DecisionTreeClassifier(pruning="ccp_cv", pruning_params={"rule": "2se"}).fit(X, y)
    with pytest.raises(ValueError, match="'delta'"):
        DecisionTreeClassifier(pruning="bound", pruning_params={"delta": 1.5}).fit(X, y)
    with pytest.raises(ValueError, match="'n_folds'"):
        DecisionTreeClassifier(pruning="ccp_cv", pruning_params={"n_folds": 2.5}).fit(X, y)
    with pytest.raises(ValueError, match="'pruning'"):
        DecisionTreeClassifier(pruning="cv").fit(X, y)
    with pytest.raises(TypeError, match="'pruning_params'"):
        DecisionTreeClassifier(pruning="bound", pruning_params=[("delta", 0.1)]).fit(X, y)
    with pytest.raises(ValueError, match="not both"):
        resolve_params("bound", {"r": 0.01, "error_prior_exponent": 13.1})
    assert resolve_params("bound", {"error_prior_exponent": 13.1})["r"] == 2.0**-13.1
    assert resolve_params("srm", None) == {"a1": 0.1, "a2": 2.0, "vc_bound": "lower"}


def test_regressor_methods(cancer):
    X, y = load_diabetes(return_X_y=True)
    for method in ("ccp_cv", "mcart_cv", "reduced_error"):
        model = DecisionTreeRegressor(random_state=0, pruning=method).fit(X, y)
        assert model.get_n_leaves() < 100
    for method in ("bound", "srm"):
        with pytest.raises(ValueError, match="classification only"):
            DecisionTreeRegressor(pruning=method).fit(X, y)


def test_ccp_rules_and_random_state(cancer):
    X, y = cancer
    a = DecisionTreeClassifier(random_state=1, pruning="ccp_cv").fit(X, y)
    b = DecisionTreeClassifier(random_state=1, pruning="ccp_cv").fit(X, y)
    assert a.pruning_info_["cv_error"] == b.pruning_info_["cv_error"]
    se = DecisionTreeClassifier(random_state=1, pruning="ccp_cv",
                                pruning_params={"rule": "1se"}).fit(X, y)
    assert se.get_n_leaves() == a.pruning_info_["n_leaves_1se"] <= a.get_n_leaves()


def test_multiway_trees_bound_raises_srm_works():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(200, 3)).astype(float)
    y = ((X[:, 0] == 1) | (X[:, 1] == 2)).astype(int)
    y[rng.random(200) < 0.1] ^= 1
    kw = {"categorical_features": [0, 1, 2], "categorical_split": "multiway"}
    with pytest.raises(ValueError, match="binary tree"):
        DecisionTreeClassifier(pruning="bound", **kw).fit(X, y)
    model = DecisionTreeClassifier(pruning="srm", **kw).fit(X, y)
    assert model.pruning_objective_ is not None
    # Binary subset splits on categorical features: "bound" uses the documented extension.
    binary = DecisionTreeClassifier(pruning="bound", categorical_features=[0, 1, 2]).fit(X, y)
    assert binary.pruning_info_["n_features_effective"] == 3 * (2**3 - 1)


@pytest.mark.parametrize("method", [None, "bound", "ccp_cv", "srm"])
def test_json_round_trip_of_pruned_models(tmp_path, method):
    X, y = load_iris(return_X_y=True)
    model = DecisionTreeClassifier(random_state=0, pruning=method,
                                   pruning_params={"n_folds": 5} if method == "ccp_cv" else None
                                   ).fit(X, y)
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert loaded.pruning == method and loaded.pruning_params == model.pruning_params
    assert loaded.pruning_objective_ == model.pruning_objective_
    assert loaded.pruning_path_ == model.pruning_path_
    assert math.isnan(loaded.pruning_time_) and "pruning_time" not in model.to_dict()["extra"]
    assert loaded.pruning_info_ == json.loads(json.dumps(model.pruning_info_))
    assert np.array_equal(loaded.predict(X), model.predict(X))


def test_corrupt_pruning_state_is_rejected():
    X, y = load_iris(return_X_y=True)
    data = DecisionTreeClassifier(pruning="bound").fit(X, y).to_dict()
    for field, bad in (("bound", "small"), ("pruning_path", [[1.5, 0.2]]),
                       ("pruning_time", -1), ("pruning_info", [])):
        broken = json.loads(json.dumps(data))
        broken["extra"][field] = bad
        with pytest.raises(ValueError, match=f"extra.{field}"):
            DecisionTreeClassifier.from_dict(broken)


# ------------------------------------------------------- default leaf budget ("auto")
def _tree_arrays(model):
    return model.to_dict()["tree"]


def test_bound_pruning_by_default_grows_2_sqrt_n_leaves_in_top_down_order():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + rng.normal(size=400) > 0).astype(int)  # noisy: purity needs many leaves
    budget = math.ceil(2 * math.sqrt(400))
    model = DecisionTreeClassifier(pruning="bound").fit(X, y)
    assert model.max_leaf_nodes == "auto"
    top_down = DecisionTreeClassifier(growth="top_down", max_leaf_nodes=budget).fit(X, y)
    assert top_down.get_n_leaves() == budget
    assert model.pruning_path_[0][0] == budget
    explicit = DecisionTreeClassifier(growth="top_down", max_leaf_nodes=budget,
                                      pruning="bound").fit(X, y)
    assert _tree_arrays(model) == _tree_arrays(explicit)
    # the default depth_first order under a budget is the top_down order
    assert _tree_arrays(DecisionTreeClassifier(max_leaf_nodes=budget).fit(X, y)) == \
        _tree_arrays(top_down)


def test_the_old_default_stays_reachable_and_auto_means_no_budget_elsewhere():
    X, y = load_breast_cancer(return_X_y=True)
    full = DecisionTreeClassifier().fit(X, y)
    assert _tree_arrays(full) == _tree_arrays(DecisionTreeClassifier(max_leaf_nodes=None).fit(X, y))
    pure = DecisionTreeClassifier(pruning="bound", max_leaf_nodes=None).fit(X, y)
    assert pure.pruning_path_[0][0] == full.get_n_leaves()
    for method in ("ccp_cv", "srm"):
        auto = DecisionTreeClassifier(pruning=method, random_state=0).fit(X, y)
        assert auto.pruning_path_[0][0] == full.get_n_leaves()
    reg = DecisionTreeRegressor(max_leaf_nodes="auto").fit(*load_diabetes(return_X_y=True))
    assert reg.get_n_leaves() == DecisionTreeRegressor().fit(
        *load_diabetes(return_X_y=True)).get_n_leaves()


def test_auto_leaf_budget_values():
    from treebound.tree._classes import auto_leaf_budget

    assert [auto_leaf_budget(n) for n in (1, 4, 5, 100, 101, 6093)] == [2, 4, 5, 20, 21, 157]
    with pytest.raises(ValueError, match="max_leaf_nodes"):
        DecisionTreeClassifier(max_leaf_nodes="sqrt").fit([[0.0], [1.0]], [0, 1])


# ------------------------------------------------------------------ bounds count rows
@pytest.mark.parametrize("method", ["bound", "srm"])
@pytest.mark.parametrize("heavy", [1e308, 1e300, 1e6])
def test_weighted_node_statistics_give_no_bound(method, heavy):
    """One row weighted far above the others: the weighted statistics say the 1-leaf tree
    makes almost no error, which the row counts deny. pruning_objective_ is withheld; the certificate
    counts rows."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    weights = np.ones(len(y))
    weights[0] = heavy
    with pytest.warns(UserWarning, match="pruning_objective_ is None.*certificate_ bounds the error rate"):
        model = DecisionTreeClassifier(pruning=method, max_depth=4).fit(X, y,
                                                                        sample_weight=weights)
    assert model.pruning_objective_ is None
    assert model.pruning_info_["bound_withheld"] == "non-uniform sample_weight"
    training_error = np.mean(model.predict(X) != y)
    assert model.certificate_.risk_upper_bound >= training_error
    assert np.all(np.isfinite(model.tree_.flat.impurity))  # extreme weights are rescaled exactly
    DecisionTreeClassifier.from_dict(model.to_dict())


@pytest.mark.parametrize("method", ["bound", "srm"])
def test_equal_weights_keep_the_bound(method):
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    plain = DecisionTreeClassifier(pruning=method, random_state=0).fit(X, y)
    for weight in (2.0, 1e-3, 1e200):
        weighted = DecisionTreeClassifier(pruning=method, random_state=0).fit(
            X, y, sample_weight=np.full(len(y), weight))
        assert weighted.pruning_objective_ == pytest.approx(plain.pruning_objective_, rel=1e-12)
        assert weighted.get_n_leaves() == plain.get_n_leaves()


def test_prune_withholds_the_bound_of_a_weighted_tree():
    from treebound import prune

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int)
    weights = rng.exponential(size=300)
    grown = DecisionTreeClassifier(max_depth=5).fit(X, y, sample_weight=weights)
    with pytest.warns(UserWarning, match="pruning_objective_ is None"):
        result = prune(grown, method="bound")
    assert result.objective is None and result.estimator.pruning_objective_ is None
    assert result.info["weighted_objective"] > 0
    # the certificate criteria count rows: their bound stands under weights
    by_certificate = DecisionTreeClassifier(pruning="bound", pruning_params={"objective": "hti"},
                                            max_depth=5).fit(X, y, sample_weight=weights)
    assert by_certificate.pruning_objective_ is not None


def test_extreme_weights_grow_the_same_tree_as_moderate_ones():
    from treebound._validation import rescale_extreme_weights

    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    weights = rng.exponential(size=200)
    base = DecisionTreeClassifier(criterion="entropy").fit(X, y, sample_weight=weights)
    for scale in (2.0**300, 2.0**-300):
        scaled = DecisionTreeClassifier(criterion="entropy").fit(X, y,
                                                                 sample_weight=weights * scale)
        assert np.array_equal(scaled.tree_.flat.threshold, base.tree_.flat.threshold, equal_nan=True)
        assert np.array_equal(scaled.tree_.flat.feature, base.tree_.flat.feature)
    assert rescale_extreme_weights(np.array([1e308, 1e-308]))[1] > 0
    moderate = np.array([1.0, 3.0])
    assert rescale_extreme_weights(moderate) is moderate


def test_log_stirling_table_grows_only_along_the_short_axis():
    from treebound.theory import PartitioningCache

    cache = PartitioningCache()
    for parts in range(1, 60):
        table = cache._log_stirling_upto(100, parts)
        assert table.shape[0] > parts and table.shape[1] <= 2 * 101


def test_bound_is_the_former_name_of_pruning_objective(cancer):
    X, y = cancer
    model = DecisionTreeClassifier(pruning="bound", max_leaf_nodes=12, growth="top_down")
    assert not hasattr(model, "bound_")  # unfitted: no attribute, no warning
    model.fit(X, y)
    with pytest.warns(FutureWarning, match="pruning_objective_"):
        assert model.bound_ == model.pruning_objective_
    # the objective is a selection score; the certificate is the bound on new data
    assert model.pruning_objective_ > model.certificate_.risk_upper_bound
    result = prune(DecisionTreeClassifier(max_leaf_nodes=12, growth="top_down").fit(X, y))
    assert result.objective == model.pruning_objective_
    with pytest.warns(FutureWarning, match="objective"):
        assert result.bound == result.objective


def test_the_registry_is_the_one_place_that_knows_each_method():
    from treebound.pruning import REGISTRY, resolve_params

    needs = {name: method.needs(resolve_params(name, None, task=method.tasks[0]))
             for name, method in REGISTRY.items()}
    assert [name for name, n in needs.items() if n.regrow] == ["ccp_cv", "mcart_cv", "certified"]
    assert [name for name, n in needs.items() if n.holdout] == ["reduced_error"]
    assert [name for name, n in needs.items() if n.node_statistics] == ["bound", "srm"]
    hti = REGISTRY["bound"].needs(resolve_params("bound", {"objective": "hti"}))
    assert hti.rows and not hti.node_statistics
