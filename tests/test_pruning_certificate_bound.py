"""pruning_params={"objective": "hti" | "compression"}: Algorithm 3 with a certificate as objective,
checked against a naive loop that collapses and re-evaluates every candidate tree."""

import math

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine

from treebound import DecisionTreeClassifier, prune
from treebound.certificates import deployed_tree
from treebound.certificates._compression import compress, log_surjections_bound
from treebound.pruning.certificate_bound import prune_by_certificate
from treebound.theory import (
    hypergeometric_tail_inversion_bound,
    log_leaf_assignment_growth_bound,
    log_structure_prior,
    sample_compression_bound,
)


def _hti(tree, X, y, ell_log_w):
    m = len(y)
    k = int(np.count_nonzero(tree.majority_class[tree.apply(X)] != y))
    L = tree.n_leaves
    log_growth = log_leaf_assignment_growth_bound(5 * m, n_leaves=L, n_classes=tree.n_classes,
                                                  log_test_choices=(L - 1) * ell_log_w)
    return hypergeometric_tail_inversion_bound(m, n_errors=k, log_growth=log_growth, delta=0.05,
                                               ghost_size=4 * m,
                                               log_prior=log_structure_prior(L))


def _compression(tree, old_to_new, X, y, pairs, ell_log_w):
    m = len(y)
    kept = [node for node in pairs if old_to_new[node] >= 0
            and tree.first_child[old_to_new[node]] >= 0]
    in_set = np.zeros(m, dtype=bool)
    for node in kept:
        in_set[list(pairs[node])] = True
    d = int(in_set.sum())
    wrong = tree.majority_class[tree.apply(X)] != y
    L, N = tree.n_leaves, len(kept)
    log_p = log_structure_prior(L) - (L - 1) * ell_log_w - L * math.log(tree.n_classes)
    if N:
        log_p -= math.log(2 * N - 1) + log_surjections_bound(2 * N, d) - N * math.log(2.0)
    return sample_compression_bound(m, n_errors_outside=int(np.count_nonzero(wrong & ~in_set)),
                                    compression_size=d, log_message_prior=log_p, delta=0.05)


def _naive(grown, X, y, objective):
    tree = grown.tree_.flat
    ell_log_w = math.log(2 * X.shape[1])
    pairs = None
    if objective == "compression":
        deployed = deployed_tree(grown, X)
        found = compress(deployed, deployed.predict_index() != y, False)
        pairs = {int(n): tuple(p) for n, p in zip(found.nodes, found.pairs, strict=True)}

    def value(mask):
        collapsed, old_to_new = tree.collapse(mask)
        if objective == "hti":
            return _hti(collapsed, X, y, ell_log_w)
        return _compression(collapsed, old_to_new, X, y, pairs, ell_log_w)

    mask = np.zeros(tree.n_nodes, dtype=bool)
    current = value(mask)
    order = []
    while True:
        collapsed, old_to_new = tree.collapse(mask)
        candidates = [i for i in range(tree.n_nodes)
                      if old_to_new[i] >= 0 and collapsed.first_child[old_to_new[i]] >= 0]
        if not candidates:
            break
        scored = []
        for u in candidates:
            trial = mask.copy()
            trial[u] = True
            scored.append((value(trial), -int(tree.n_node_samples[u] * 0), u, trial))
        best = min(scored, key=lambda s: (s[0], -collapsed.n_leaves, s[2]))
        if best[0] > current * (1 + 1e-12) + 1e-15:
            break
        current, mask = best[0], best[3]
        order.append(best[2])
    return tree.collapse(mask)[0], current, order


@pytest.mark.parametrize("objective", ["hti", "compression"])
@pytest.mark.parametrize("leaves", [6, 14])
def test_certificate_criteria_match_a_naive_loop(objective, leaves):
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[::2], y[::2]
    grown = DecisionTreeClassifier(max_leaf_nodes=leaves, growth="top_down").fit(X, y)
    result = prune(grown, X, y, method="bound", objective=objective)
    expected, value, order = _naive(grown, X, y, objective)
    assert result.objective == pytest.approx(value, rel=1e-12)
    assert list(result.info["collapsed"]) == order
    assert result.tree.n_leaves == expected.n_leaves
    assert np.array_equal(result.tree.apply(X), expected.apply(X))
    assert result.path[0][1] >= result.objective


def test_certificate_criteria_in_the_estimator():
    X, y = load_wine(return_X_y=True)
    for objective in ("hti", "compression"):
        model = DecisionTreeClassifier(max_leaf_nodes=12, growth="top_down", pruning="bound",
                                       pruning_params={"objective": objective}).fit(X, y)
        assert model.pruning_objective_ <= 1.0 and model.get_n_leaves() >= 1
        assert model.pruning_info_["objective"] == objective
    with pytest.raises(ValueError, match="objective"):
        DecisionTreeClassifier(pruning="bound", pruning_params={"objective": "vc"}).fit(X, y)
    with pytest.raises(ValueError, match="X and y"):
        prune(DecisionTreeClassifier(max_leaf_nodes=4).fit(X, y), method="bound", objective="hti")


def test_the_former_names_of_objective_still_work_with_a_future_warning():
    X, y = load_wine(return_X_y=True)
    kwargs = {"max_leaf_nodes": 12, "growth": "top_down", "pruning": "bound"}
    now = DecisionTreeClassifier(**kwargs, pruning_params={"objective": "hti"}).fit(X, y)
    with pytest.warns(FutureWarning, match="'bound'.*now called 'objective'") as caught:
        before = DecisionTreeClassifier(**kwargs, pruning_params={"bound": "hti"}).fit(X, y)
    assert caught[0].filename == __file__  # the warning names the user's line
    with pytest.warns(FutureWarning) as caught:
        prune(DecisionTreeClassifier(max_leaf_nodes=4).fit(X, y), X, y, method="bound",
              bound="hti")
    assert caught[0].filename == __file__
    assert before.to_dict()["tree"] == now.to_dict()["tree"]
    assert before.to_dict()["extra"] == now.to_dict()["extra"]
    with pytest.raises(ValueError, match="not both"):
        DecisionTreeClassifier(**kwargs, pruning_params={"bound": "hti", "objective": "hti"}
                               ).fit(X, y)
    grown = DecisionTreeClassifier(max_leaf_nodes=12, growth="top_down").fit(X, y)
    with pytest.warns(FutureWarning, match="criterion"):
        old = prune_by_certificate(grown.tree_.flat, grown.encode(X), y, criterion="compression")
    new = prune_by_certificate(grown.tree_.flat, grown.encode(X), y, objective="compression")
    assert old.objective == new.objective and old.path == new.path
