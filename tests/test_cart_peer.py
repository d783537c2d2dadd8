"""The lab's one scikit-learn CART + CCP CV peer against the procedures it replaced, written out
plainly: ``GridSearchCV`` over the pruning path (certify, peers, bound speed) and Breiman's
thinned geometric means with a hand-written CV loop (pruning, dyadic, tuning)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, load_wine, make_classification
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.tree import DecisionTreeClassifier

from treebound_lab.cart_peer import SklearnCartCV


def _datasets():
    X, y = load_breast_cancer(return_X_y=True)
    noisy = make_classification(n_samples=160, n_features=6, n_informative=3, n_classes=3,
                                flip_y=0.2, random_state=4)
    rare_X, rare_y = make_classification(n_samples=200, n_features=5, weights=[0.97, 0.03],
                                         random_state=2)  # 6 rows of the rare class
    return {"iris": load_iris(return_X_y=True), "wine": load_wine(return_X_y=True),
            "breast_cancer": (X[:160], y[:160]), "noisy": noisy, "rare": (rare_X, rare_y)}


DATASETS = _datasets()


def grid_search_oracle(X, y, seed, n_folds=10):
    """What ``bench certify`` and ``bench peers`` ran before: GridSearchCV over the path."""
    path = DecisionTreeClassifier(random_state=seed).cost_complexity_pruning_path(X, y)
    alphas = np.unique(path.ccp_alphas[:-1]) if path.ccp_alphas.shape[0] > 1 else [0.0]
    smallest = int(np.unique(y, return_counts=True)[1].min())
    search = GridSearchCV(DecisionTreeClassifier(random_state=seed), {"ccp_alpha": alphas},
                          cv=max(2, min(n_folds, smallest)))
    search.fit(X, y)
    return search.best_params_["ccp_alpha"], search.best_estimator_


def breiman_oracle(X, y, seed, n_folds=10, max_candidates=30):
    """What ``bench pruning``, ``bench dyadic`` and the tuning ran before (its own class)."""
    def tree(alpha=0.0):
        return DecisionTreeClassifier(ccp_alpha=alpha, random_state=seed)

    alphas = tree().cost_complexity_pruning_path(X, y).ccp_alphas
    candidates = np.sqrt(np.maximum(alphas[:-1], 0.0) * alphas[1:])
    if len(candidates) == 0:
        candidates = np.zeros(1)
    if len(candidates) > max_candidates:
        keep = np.linspace(0, len(candidates) - 1, max_candidates).round().astype(int)
        candidates = np.asarray(candidates)[np.unique(keep)]
    smallest = int(np.unique(y, return_counts=True)[1].min())
    folds = StratifiedKFold(max(2, min(n_folds, smallest)), shuffle=True, random_state=seed)
    errors = np.array([1.0 - cross_val_score(tree(a), X, y, cv=folds) for a in candidates])
    alpha = float(candidates[int(np.argmin(errors.mean(axis=1)))])
    return alpha, tree(alpha).fit(X, y)


@pytest.mark.parametrize("name", sorted(DATASETS))
@pytest.mark.parametrize("protocol, oracle", [("grid_search", grid_search_oracle),
                                              ("breiman", breiman_oracle)])
def test_the_peer_chooses_what_the_old_procedures_chose(name, protocol, oracle):
    X, y = DATASETS[name]
    seed = 10 * sorted(DATASETS).index(name) + 1
    alpha, tree = oracle(X, y, seed, n_folds=5)
    peer = SklearnCartCV(protocol, n_folds=5, random_state=seed).fit(X, y)
    assert peer.alpha_ == alpha
    assert peer.get_n_leaves() == tree.get_n_leaves()
    assert np.array_equal(peer.predict(X), tree.predict(X))


def test_explicit_folds_and_a_leaf_budget_are_used_as_given():
    X, y = DATASETS["noisy"]
    folds = StratifiedKFold(4, shuffle=True, random_state=3)
    peer = SklearnCartCV("grid_search", cv=folds, max_leaf_nodes=12, random_state=0).fit(X, y)
    tree = DecisionTreeClassifier(max_leaf_nodes=12, random_state=0)
    alphas = np.unique(tree.cost_complexity_pruning_path(X, y).ccp_alphas[:-1])
    search = GridSearchCV(tree, {"ccp_alpha": alphas}, cv=folds).fit(X, y)
    assert peer.alpha_ == search.best_params_["ccp_alpha"]
    assert peer.n_splits_ == 4 and peer.get_n_leaves() <= 12


def test_the_peer_prunes_a_noisy_tree():
    X, y = DATASETS["noisy"]
    full = DecisionTreeClassifier(random_state=0).fit(X, y)
    for protocol in ("grid_search", "breiman"):
        peer = SklearnCartCV(protocol, n_folds=5, max_candidates=10).fit(X, y)
        assert 2 <= peer.get_n_leaves() < full.get_n_leaves()
        assert peer.alpha_ > 0 and peer.n_candidates_ <= 10 and peer.n_splits_ == 5
        assert peer.get_depth() <= full.get_depth()


def test_folds_follow_the_rarest_class_and_a_single_leaf_has_one_candidate():
    X, y = DATASETS["rare"]
    assert SklearnCartCV(n_folds=10).folds(y).get_n_splits() == 6
    one_class = np.zeros(len(y), dtype=int)
    one_class[:2] = 1
    assert SklearnCartCV().folds(one_class).get_n_splits() == 2
    constant = np.zeros((20, 2))
    labels = np.arange(20) % 2
    assert SklearnCartCV().candidates(constant, labels).tolist() == [0.0]
    with pytest.raises(ValueError, match="protocol"):
        SklearnCartCV("min")
    assert math.isfinite(SklearnCartCV("breiman").fit(constant, labels).alpha_)
