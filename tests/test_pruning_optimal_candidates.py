"""Optimal trees as extra candidates of certified selection (``optimal_candidates``, issue 26).

The tests that run STreeD skip when pystreed (the ``bench`` extra) is not installed; the path
alone, its warning and the refusals run everywhere."""

import importlib.util
import warnings

import numpy as np
import pytest

from treebound import DecisionTreeClassifier, certify
from treebound.pruning import _optimal_candidates as optimal_module
from treebound.pruning._optimal_candidates import optimal_candidates, optimal_unavailable
from treebound.pruning._registry import cv_folds
from treebound.pruning.cost_complexity import weakest_link_sequence

HAS_STREED = importlib.util.find_spec("pystreed") is not None
needs_streed = pytest.mark.skipif(not HAS_STREED, reason="pystreed not installed (the bench "
                                  "extra: pip install 'treebound[bench]')")
OPTIMAL = {"optimal_candidates": True, "optimal_max_depth": 3, "optimal_max_leaves": 6,
           "n_folds": 4}


def _binary(seed, n=160, d=5):
    """Binary features (STreeD then sees every threshold a greedy tree can use) and a noisy
    rule of three of them."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, d)).astype(np.float64)
    y = ((X[:, 0] == 1) & (X[:, 1] == 1) | (X[:, 2] == 1)).astype(np.int64)
    flip = rng.random(n) < 0.15
    y[flip] ^= 1
    return X, y


def _noisy(seed, n=150):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)).round(2)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)
    y[rng.random(n) < 0.2] ^= 1
    return X, y


def test_without_pystreed_the_path_alone_with_a_warning(monkeypatch):
    X, y = _noisy(0)
    kw = {"random_state": 0, "max_leaf_nodes": 12}
    path_only = DecisionTreeClassifier(pruning="certified", pruning_params={"n_folds": 4},
                                       **kw).fit(X, y)
    real = importlib.util.find_spec
    monkeypatch.setattr(optimal_module.importlib.util, "find_spec",
                        lambda name, *a: None if name == "pystreed" else real(name, *a))
    with pytest.warns(UserWarning, match="path alone.*pystreed is not installed"):
        model = DecisionTreeClassifier(pruning="certified", pruning_params=OPTIMAL,
                                       **kw).fit(X, y)
    assert model.certificate_ == path_only.certificate_
    assert model.pruning_info_["candidates"] == path_only.pruning_info_["candidates"]
    assert "optimal_candidates" not in model.pruning_info_
    np.testing.assert_array_equal(model.predict(X), path_only.predict(X))


def test_why_the_optimal_candidates_cannot_run():
    X = np.zeros((4, 2))
    ones = np.ones(4)
    if HAS_STREED:
        assert optimal_unavailable(X, ones, np.zeros(2, dtype=np.int64)) is None
    assert "categorical" in optimal_unavailable(X, ones, np.array([0, 3]))
    X_nan = X.copy()
    X_nan[1, 0] = np.nan
    assert "missing" in optimal_unavailable(X_nan, ones, np.zeros(2, dtype=np.int64))
    assert "weights" in optimal_unavailable(X, np.array([1.0, 2, 1, 1]),
                                            np.zeros(2, dtype=np.int64))
    with pytest.raises(TypeError, match="optimal_candidates"):
        DecisionTreeClassifier(pruning="certified",
                               pruning_params={"optimal_candidates": "yes"}).fit(X, [0, 1] * 2)
    with pytest.raises(ValueError, match="optimal_max_leaves"):
        DecisionTreeClassifier(pruning="certified",
                               pruning_params={"optimal_max_leaves": 1}).fit(X, [0, 1] * 2)


def test_categorical_features_warn_and_run_on_the_path():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(120, 2)).astype(np.float64)
    y = (X[:, 0] == 1).astype(np.int64)
    with pytest.warns(UserWarning, match="categorical"):
        model = DecisionTreeClassifier(pruning="certified", categorical_features=[0],
                                       pruning_params=OPTIMAL, random_state=0).fit(X, y)
    assert model.get_n_leaves() >= 1


@needs_streed
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_an_optimal_candidate_is_never_worse_than_the_path_tree_of_its_size(seed):
    """On binary features STreeD tests every split a greedy tree can make: its tree of at most
    L leaves and depth at most D has no more training errors than the tree of L leaves of the
    cost-complexity path of a greedy tree of depth at most D."""
    X, y = _binary(seed)
    depth = 3
    grown = DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(X, y).tree_.flat
    sequence = weakest_link_sequence(grown, "error")
    path_errors = {}
    for k, leaves in enumerate(sequence.n_leaves.tolist()):
        tree = grown.collapse(sequence.make_leaf(k))[0]
        path_errors[leaves] = int(np.count_nonzero(tree.majority_class[tree.apply(X)] != y))
    splits = cv_folds(y, 3, 0, True)
    found = optimal_candidates(X, y, splits, max_leaves=8, max_depth=depth, n_classes=2)
    assert found, "no optimal candidate"
    compared = 0
    for candidate in found:
        tree = candidate.tree
        errors = int(np.count_nonzero(tree.majority_class[tree.apply(X)] != y))
        assert tree.n_leaves == candidate.n_leaves
        assert int(tree.node_depth.max()) <= depth
        if candidate.n_leaves in path_errors:
            assert errors <= path_errors[candidate.n_leaves]
            compared += 1
    assert compared >= 1


@needs_streed
def test_streed_tree_keeps_streeds_partition_and_midpoint_thresholds():
    from pystreed import STreeDClassifier

    from treebound.pruning._optimal_candidates import streed_tree

    X, y = _noisy(3, n=120)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = STreeDClassifier("accuracy", max_depth=3, max_num_nodes=4,
                                 continuous_binarize_strategy="tree", n_thresholds=5).fit(X, y)
    tree = streed_tree(model, X, y, 2)
    mine = tree.majority_class[tree.apply(X)]
    # the majority of every leaf: never more errors than STreeD's own labels
    assert np.count_nonzero(mine != y) <= np.count_nonzero(model.predict(X) != y)
    # the same partition of the rows: rows in one of my leaves share STreeD's prediction path
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        assert len(np.unique(model.predict(X[leaves == leaf]))) == 1
    # every test at the midpoint of the two values of the rows reaching it on either side
    reach = {0: np.ones(len(y), dtype=bool)}
    for i in np.flatnonzero(tree.first_child >= 0).tolist():
        column = X[:, tree.feature[i]]
        goes_low = column <= tree.threshold[i]
        rows, t = reach[i], tree.threshold[i]
        below, above = column[rows & goes_low], column[rows & ~goes_low]
        assert t == below.max() / 2 + above.min() / 2
        first = int(tree.first_child[i])
        reach[first], reach[first + 1] = rows & goes_low, rows & ~goes_low
    assert tree.n_node_samples[0] == len(y) and tree.value[0].tolist() == np.bincount(y).tolist()


@needs_streed
@pytest.mark.parametrize(("data", "seed"), [("noisy", 0), ("noisy", 4), ("iris", 0)])
def test_with_optimal_candidates_the_choice_is_certifying_every_candidate(data, seed):
    """The band over the path and the optimal trees, each candidate certified with
    ``treebound.certify``: the smallest certificate is chosen (fewer leaves, then the path's
    tree, on ties: the noisy data tie a path tree with an optimal one; on iris an optimal tree
    wins) and a skipped candidate could not have been chosen."""
    from sklearn.datasets import load_iris

    X, y = _noisy(seed) if data == "noisy" else load_iris(return_X_y=True)
    kw = {"random_state": seed, "max_leaf_nodes": 10}
    model = DecisionTreeClassifier(pruning="certified", pruning_params=dict(OPTIMAL, n_se=2.0),
                                   **kw).fit(X, y)
    info = model.pruning_info_
    grown = DecisionTreeClassifier(**kw).fit(X, y)
    flat = grown.tree_.flat
    sequence = weakest_link_sequence(flat, "error")
    n_path = len(sequence)
    assert info["candidates"] == sorted(info["candidates"])
    cv = np.concatenate([info["cv_error"], [c["cv_error"] for c in info["optimal_candidates"]]])
    se = np.concatenate([info["cv_se"], [c["cv_se"] for c in info["optimal_candidates"]]])
    best = int(np.argmin(cv))
    assert info["candidates"] == np.flatnonzero(cv <= cv[best] + 2.0 * se[best] + 1e-12).tolist()
    # the optimal trees rebuilt on all the rows (no folds: their CV sums are not needed here)
    extra = optimal_candidates(X, y, [], max_leaves=min(6, int(sequence.n_leaves[0])),
                               max_depth=3, n_classes=int(y.max()) + 1,
                               seed=_fold_seed(seed))
    certificates, ranks = {}, {}
    for k in info["candidates"]:
        tree = flat.collapse(sequence.make_leaf(k))[0] if k < n_path else extra[k - n_path].tree
        grown.tree_ = tree
        certificates[k] = certify(grown, X, y).risk_upper_bound
        ranks[k] = (certificates[k], tree.n_leaves, int(k >= n_path))
    chosen = min(info["candidates"], key=lambda k: ranks[k])
    assert info["chosen"] == chosen and info["chosen_optimal"] == (chosen >= n_path)
    assert info["chosen_optimal"] == (data == "iris")
    assert model.certificate_.risk_upper_bound == certificates[chosen]
    assert model.pruning_objective_ == certificates[chosen]
    for k, value, lower in zip(info["candidates"], info["certificates"],
                               info["certificate_lower_bounds"], strict=True):
        if lower is not None:  # None: the first certified, no bound needed
            assert lower <= certificates[k] * (1 + 1e-12)
        if value is None:
            assert lower > certificates[chosen]
        else:
            assert value == pytest.approx(certificates[k], rel=1e-12)


def _fold_seed(random_state):
    # the estimators seed their folds (and STreeD) with one draw of their random_state
    return int(np.random.RandomState(random_state).randint(np.iinfo(np.int32).max))


@needs_streed
def test_labels_minus_one_plus_one_and_a_chosen_optimal_tree_is_a_working_model():
    """pystreed 1.4 dies on labels -1/+1: they reach it as 0/1. A model holding an optimal
    tree predicts, gives probabilities and importances, and certifies as ``certify`` does."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 2)).round(3)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
    y[rng.random(200) < 0.1] *= -1
    model = DecisionTreeClassifier(pruning="certified", pruning_params=OPTIMAL,
                                   random_state=0).fit(X, y)
    assert set(model.predict(X)) <= {-1, 1}
    assert np.allclose(model.predict_proba(X).sum(axis=1), 1.0)
    assert model.feature_importances_.shape == (2,)
    assert model.certificate_ == certify(model, X, y)
    assert model.score(X, y) > 0.7


@needs_streed
def test_a_model_holding_an_optimal_tree_saves_and_loads(tmp_path):
    from sklearn.datasets import load_iris

    from treebound import load_model, save_model

    X, y = load_iris(return_X_y=True)
    model = DecisionTreeClassifier(pruning="certified", pruning_params=dict(OPTIMAL, n_se=2.0),
                                   random_state=0, max_leaf_nodes=10).fit(X, y)
    assert model.pruning_info_["chosen_optimal"]
    save_model(model, tmp_path / "model.json")
    loaded = load_model(tmp_path / "model.json")
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert loaded.certificate_ == model.certificate_
