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
    grown = DecisionTreeClassifier(**kw).fit(X, y).tree_.flat
    folds = []
    for train, val in StratifiedKFold(4, shuffle=True, random_state=_fold_seed(seed)).split(X, y):
        fold = DecisionTreeClassifier(**kw).fit(X[train], y[train]).tree_.flat
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


# ------------------------------------------------------------------------- certified selection
def _naive_certified(X, y, kw, n_folds, random_state, n_se=1.0):
    """Certified selection from scratch: CART's CV path by enumeration, the band of ``n_se``
    standard errors, every tree of the band refit as an estimator and certified with
    ``treebound.certify`` (the public function, on the training rows)."""
    from treebound import certify

    grown = DecisionTreeClassifier(**kw).fit(X, y)
    folds = []
    for train, val in StratifiedKFold(n_folds, shuffle=True,
                                      random_state=_fold_seed(random_state)).split(X, y):
        fold = DecisionTreeClassifier(**kw).fit(X[train], y[train]).tree_.flat
        folds.append((fold, X[val], y[val]))
    flat = grown.tree_.flat
    oracle = naive_ccp_cv(flat, folds)
    cv, se, best = oracle["cv_error"], oracle["cv_se"], oracle["index_min"]
    band = [k for k in range(len(cv)) if cv[k] <= cv[best] + n_se * se[best] + 1e-12]
    certificates = {}
    for k in band:
        pruned = DecisionTreeClassifier(**kw, pruning="ccp_cv").fit(X, y)  # any pruned copy
        pruned.tree_ = flat.collapse(
            np.isin(np.arange(flat.n_nodes), _collapsed(flat, oracle, k)))[0]
        certificates[k] = certify(pruned, X, y).risk_upper_bound
    chosen = min(band, key=lambda k: (certificates[k], -k))
    return oracle, band, certificates, chosen


def _collapsed(tree, oracle, k):
    """Nodes of ``tree`` that are leaves of the k-th tree of the oracle's sequence and internal
    in ``tree``."""
    from _pruning_oracles import ccp_sequence

    leaves = ccp_sequence(tree)[k][1]
    return [v for v in leaves if tree.first_child[v] >= 0]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n_se=st.sampled_from([0.0, 1.0, 2.0]))
def test_certified_matches_a_naive_selection(seed, n_se):
    X, y = _noisy(seed, n=80)
    kw = {"max_leaf_nodes": 8, "random_state": seed}
    model = DecisionTreeClassifier(pruning="certified",
                                   pruning_params={"n_folds": 4, "n_se": n_se}, **kw).fit(X, y)
    oracle, band, certificates, chosen = _naive_certified(X, y, kw, 4, seed, n_se)
    _check_against_oracle(model, oracle, band, certificates, chosen)


def test_certified_default_band_is_the_one_chosen_on_tuning_data():
    """No ``n_se``: the band of 0.6 SE (``benchmarks/results/selection.md``), for the estimator
    and for ``prune_certified`` alike."""
    import inspect

    from treebound.pruning.certified import prune_certified

    assert inspect.signature(prune_certified).parameters["n_se"].default == 0.6
    for seed in (3, 4):
        X, y = _noisy(seed, n=80)
        kw = {"max_leaf_nodes": 8, "random_state": seed}
        model = DecisionTreeClassifier(pruning="certified", pruning_params={"n_folds": 4},
                                       **kw).fit(X, y)
        assert model.pruning_info_["n_se"] == 0.6
        _check_against_oracle(model, *_naive_certified(X, y, kw, 4, seed, 0.6))


def _check_against_oracle(model, oracle, band, certificates, chosen):
    info = model.pruning_info_
    assert info["candidates"] == band
    assert info["chosen"] == chosen
    assert model.get_n_leaves() == oracle["n_leaves"][chosen]
    # the objective is the chosen tree's certificate, and the estimator's own certificate_
    assert model.pruning_objective_ == certificates[chosen]
    assert model.certificate_.risk_upper_bound == certificates[chosen]
    for k, value, lower in zip(band, info["certificates"], info["certificate_lower_bounds"],
                               strict=True):
        if lower is not None:  # None: the first certified, no bound needed
            assert lower <= certificates[k] * (1 + 1e-12)  # a lower bound of every certificate
        if value is None:  # skipped: it could not have been chosen
            assert lower > certificates[chosen]
        else:
            assert value == pytest.approx(certificates[k], rel=1e-12)


def _band_certificates(kw, X, y, band):
    """The oracle of certified selection's choice: the weakest-link sequence of the tree grown
    with ``kw`` and ``treebound.certify``'s certificate of each of its prunings in ``band``."""
    from treebound import certify
    from treebound.pruning.cost_complexity import weakest_link_sequence

    grown = DecisionTreeClassifier(**kw).fit(X, y)
    flat = grown.tree_.flat
    sequence = weakest_link_sequence(flat, "error")
    certificates = {}
    for k in band:
        grown.tree_ = flat.collapse(sequence.make_leaf(k))[0]
        certificates[k] = certify(grown, X, y).risk_upper_bound
    return sequence, certificates


@pytest.mark.parametrize("seed", [0, 1])
def test_certified_branch_and_bound_matches_every_candidate_certified(seed):
    """Larger trees, where Theorem 9's tables are computed and candidates are skipped: the
    choice is that of certifying every candidate of the band with ``treebound.certify`` (the
    path and its CV errors are checked against brute force above)."""

    X, y = _noisy(seed, n=300)
    kw = {"max_leaf_nodes": 25, "random_state": seed}
    model = DecisionTreeClassifier(pruning="certified", pruning_params={"n_folds": 5, "n_se": 2},
                                   **kw).fit(X, y)
    band = model.pruning_info_["candidates"]
    sequence, certificates = _band_certificates(kw, X, y, band)
    chosen = min(band, key=lambda k: (certificates[k], -k))
    oracle = {"n_leaves": sequence.n_leaves.tolist()}
    _check_against_oracle(model, oracle, band, certificates, chosen)
    assert None in model.pruning_info_["certificates"]  # the bound did skip some


def test_certified_block_bounds_skip_only_candidates_that_cannot_win(monkeypatch):
    """Multiclass rows, where the candidates' cheaper lower bounds fall short and the bounds
    over blocks of points decide: every lower bound below the candidate's certificate from
    ``treebound.certify``, and the choice that of certifying the whole band."""
    from treebound.pruning import certified

    calls = []
    block = certified._Candidate.block_lower_bound
    monkeypatch.setattr(certified._Candidate, "block_lower_bound",
                        lambda self, *a: calls.append(1) or block(self, *a))
    rng = np.random.default_rng(3)
    X = rng.normal(size=(700, 3)).round(2)
    y = (np.digitize(X[:, 0] + 0.7 * X[:, 1], [-1.0, 0.0, 1.0]) + (rng.random(700) < 0.3)) % 4
    kw = {"max_leaf_nodes": 30, "random_state": 0}
    model = DecisionTreeClassifier(pruning="certified", pruning_params={"n_folds": 5, "n_se": 3},
                                   **kw).fit(X, y)
    band = model.pruning_info_["candidates"]
    sequence, certificates = _band_certificates(kw, X, y, band)
    chosen = min(band, key=lambda k: (certificates[k], -k))
    _check_against_oracle(model, {"n_leaves": sequence.n_leaves.tolist()}, band, certificates,
                          chosen)
    assert calls  # the bounds over blocks were needed


def test_certified_never_worse_than_the_one_se_tree_in_certificate():
    X, y = _noisy(11, n=400)
    kw = {"random_state": 0, "max_leaf_nodes": 40}
    certified = DecisionTreeClassifier(pruning="certified", pruning_params={"n_se": 1.0},
                                       **kw).fit(X, y)
    one_se = DecisionTreeClassifier(pruning="ccp_cv", pruning_params={"rule": "1se"},
                                    **kw).fit(X, y)
    best = DecisionTreeClassifier(pruning="ccp_cv", **kw).fit(X, y)
    # both CV trees are in the band; the same folds give the same path
    assert certified.pruning_info_["cv_error"] == best.pruning_info_["cv_error"]
    bound = certified.certificate_.risk_upper_bound
    assert bound <= one_se.certificate_.risk_upper_bound
    assert bound <= best.certificate_.risk_upper_bound
    assert min(c for c in certified.pruning_info_["certificates"] if c is not None) == bound


def test_certified_refuses_regression_and_bad_options():
    from sklearn.datasets import load_diabetes

    from treebound import DecisionTreeRegressor

    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match="classification only"):
        DecisionTreeRegressor(pruning="certified").fit(X, y)
    X, y = _noisy(0)
    with pytest.raises(ValueError, match="n_se"):
        DecisionTreeClassifier(pruning="certified", pruning_params={"n_se": -1}).fit(X, y)
    with pytest.raises(ValueError, match="unknown pruning_params"):
        DecisionTreeClassifier(pruning="certified", pruning_params={"rule": "1se"}).fit(X, y)


def test_certified_with_multiway_categorical_trees_and_labels_minus_one_plus_one():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(300, 3)).astype(float)
    y = np.where((X[:, 0] == 1) | (X[:, 1] == 2), 1, -1)
    y[rng.random(300) < 0.1] *= -1
    for split in ("binary", "multiway"):
        model = DecisionTreeClassifier(pruning="certified", categorical_features=[0, 1, 2],
                                       categorical_split=split, random_state=0).fit(X, y)
        assert set(model.predict(X)) <= {-1, 1}
        assert 0 < model.pruning_objective_ <= 1
        assert model.certificate_.risk_upper_bound <= 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), leaves=st.integers(2, 30), n_features=st.integers(1, 6),
       n_classes=st.integers(2, 4))
def test_growth_lower_bound_never_above_the_growth_bound(seed, leaves, n_features, n_classes):
    """What certified selection skips candidates with: at most the log growth bound hti uses
    (Theorem 9's tables or the closed form), on trees of every size and class count."""
    from treebound.certificates._methods import log_growth_bound, log_growth_lower_bound
    from treebound.pruning.certified import _Candidate

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, n_features)).round(1)
    y = rng.integers(0, n_classes, size=120)
    tree = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=seed).fit(X, y).tree_.flat
    candidate = _Candidate(tree, X, y, 0.05)
    deployed, points = candidate.sample.deployed, 5 * len(y)
    lower = log_growth_lower_bound(deployed, points, candidate.multiway)
    value, _ = log_growth_bound(deployed, points, candidate.multiway)
    assert 0.0 <= lower <= value
    assert candidate.lower_bound() <= candidate.certificate()[0]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), leaves=st.integers(4, 30), n_classes=st.integers(2, 3))
def test_bound_from_a_prunings_tables_never_above_the_certificate(seed, leaves, n_classes):
    """The bound certified selection skips the band's larger trees with, read from the tables
    of a smaller tree of the path (a pruning of it), is at most the larger tree's certificate."""
    from treebound.pruning.certified import _Candidate
    from treebound.pruning.cost_complexity import weakest_link_sequence
    from treebound.theory import PartitioningCache

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(150, 3)).round(1)
    y = rng.integers(0, n_classes, size=150)
    flat = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=seed).fit(X, y).tree_.flat
    sequence = weakest_link_sequence(flat, "error")
    small, big = sorted(rng.choice(len(sequence), size=2, replace=len(sequence) < 2))[::-1]
    inner = _Candidate(flat.collapse(sequence.make_leaf(small))[0], X, y, 0.05)
    outer = _Candidate(flat.collapse(sequence.make_leaf(big))[0], X, y, 0.05)
    cache = PartitioningCache()
    inner.certificate(cache)
    bound = outer.lower_bound_from(inner, cache)
    if 2 <= inner.sample.deployed.tree.n_leaves < outer.sample.deployed.tree.n_leaves:
        assert bound is not None  # a pruning along the path, both counted by the tables
    if bound is not None:
        assert bound <= outer.certificate(cache)[0] * (1 + 1e-12)
