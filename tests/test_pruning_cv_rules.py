"""The selection rules of cost-complexity CV ("min", "1se") against a brute-force CART."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.model_selection import StratifiedKFold

from _pruning_oracles import naive_ccp_cv
from treebound import DecisionTreeClassifier


def _noisy(seed, n=60):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)).round(2)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)
    flip = rng.random(n) < 0.25
    y[flip] ^= 1
    return X, y


def _fold_seed(random_state):
    # the estimators seed their folds with one draw of their random_state (GrowthSettings.seed)
    return int(np.random.RandomState(random_state).randint(np.iinfo(np.int32).max))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), rule=st.sampled_from(["min", "1se"]))
def test_ccp_cv_rules_match_a_brute_force_cart(seed, rule):
    X, y = _noisy(seed)
    kw = {"max_leaf_nodes": 8, "random_state": seed}
    model = DecisionTreeClassifier(pruning="ccp_cv", pruning_params={"n_folds": 4, "rule": rule},
                                   **kw).fit(X, y)
    grown = DecisionTreeClassifier(**kw).fit(X, y).tree_
    folds = []
    for train, val in StratifiedKFold(4, shuffle=True, random_state=_fold_seed(seed)).split(X, y):
        fold = DecisionTreeClassifier(**kw).fit(X[train], y[train]).tree_
        folds.append((fold, X[val], y[val]))
    oracle = naive_ccp_cv(grown, folds)
    info = model.pruning_info_
    np.testing.assert_allclose(info["alphas"], oracle["alphas"], rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(info["cv_error"], oracle["cv_error"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(info["cv_se"], oracle["cv_se"], rtol=1e-9, atol=1e-15)
    assert (info["index_min"], info["index_1se"]) == (oracle["index_min"], oracle["index_1se"])
    chosen = oracle["index_min"] if rule == "min" else oracle["index_1se"]
    assert model.get_n_leaves() == oracle["n_leaves"][chosen]
    assert info["rule"] == rule


@pytest.mark.parametrize("method", ["ccp_cv", "mcart_cv"])
def test_one_se_tree_is_the_smallest_within_one_standard_error(method):
    X, y = _noisy(3, n=300)
    base = {"random_state": 0, "pruning": method}
    best = DecisionTreeClassifier(**base, pruning_params={"rule": "min"}).fit(X, y)
    one_se = DecisionTreeClassifier(**base, pruning_params={"rule": "1se"}).fit(X, y)
    info = best.pruning_info_
    cv, se = np.array(info["cv_error"]), np.array(info["cv_se"])
    leaves = [n for n, _ in best.pruning_path_]
    within = [k for k in range(len(cv)) if cv[k] <= cv.min() + se[np.argmin(cv)] + 1e-12]
    assert one_se.get_n_leaves() == min(leaves[k] for k in within)
    assert best.get_n_leaves() == leaves[int(np.argmin(cv))]
    assert one_se.pruning_info_["cv_error"] == info["cv_error"]  # same folds, same path
