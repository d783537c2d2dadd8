"""certificate_ of certified selection reads the chosen candidate's evidence (predictions,
compression set, hti bound) only when it counts the same hypothesis class; it is always the
number treebound.certify gives."""

import numpy as np
import pytest

import treebound.certificates as certificates_module
from treebound import DecisionTreeClassifier, certify, prune
from treebound.certificates._memo import CertifiedTrees, reusable


def _noisy(seed, n=300, n_features=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features)).round(2)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.6 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _categorical(seed, n=300):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 4, size=n), rng.normal(size=n).round(2)])
    y = ((X[:, 0] == 1) ^ (X[:, 1] > 0.3)).astype(int)
    y[rng.random(n) < 0.1] ^= 1
    return X, y


def _gathered(monkeypatch):
    calls = []
    original = certificates_module.gather_evidence

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(certificates_module, "gather_evidence", counting)
    return calls


CASES = {
    # name: (data, estimator options, fit options, whether certificate_ reuses the evidence)
    "numeric": (_noisy(0), {}, {}, True),
    "seen levels declared": (_categorical(1), {"categorical_features": [0],
                                               "categorical_levels": {0: 4}}, {}, True),
    "more levels declared than seen": (_categorical(2), {"categorical_features": [0],
                                                         "categorical_levels": {0: 9}}, {},
                                       False),
    "multiway family, binary tree": (_categorical(3), {"categorical_features": [0],
                                                       "categorical_levels": {0: 4},
                                                       "categorical_split": "multiway"}, {},
                                     None),
    "zero weights": (_noisy(4), {}, {"zero_weights": True}, True),
}


@pytest.mark.parametrize("case", list(CASES))
def test_certificate_is_certifys_whether_or_not_the_evidence_is_reused(case, monkeypatch):
    (X, y), options, fit_options, reused = CASES[case]
    weights = None
    if fit_options.get("zero_weights"):
        weights = np.ones(len(y))
        weights[::7] = 0.0
    calls = _gathered(monkeypatch)
    model = DecisionTreeClassifier(pruning="certified", random_state=0, max_leaf_nodes=20,
                                   pruning_params={"n_se": 1.0}, **options)
    model.fit(X, y, sample_weight=weights)
    certificate = model.certificate_
    if reused is not None:
        assert bool(calls) != reused
    keep = slice(None) if weights is None else weights > 0
    assert certificate == certify(model, X[keep], y[keep])
    assert certificate.details == certify(model, X[keep], y[keep]).details


def test_missing_values_are_counted_not_reused(monkeypatch):
    X, y = _noisy(5)
    X[::11, 1] = np.nan
    calls = _gathered(monkeypatch)
    model = DecisionTreeClassifier(pruning="certified", random_state=0, max_leaf_nodes=20).fit(
        X, y)
    assert calls  # the candidates do not count missing routings: certificate_ gathers its own
    assert model.certificate_ == certify(model, X, y)


def test_prune_certified_reuses_and_matches_certify(monkeypatch):
    X, y = _noisy(6)
    grown = DecisionTreeClassifier(random_state=0, max_leaf_nodes=25).fit(X, y)
    assert grown.certificate_.risk_upper_bound <= 1  # read: copying it gathers nothing more
    calls = _gathered(monkeypatch)
    result = prune(grown, X, y, method="certified")
    assert not calls
    assert result.estimator.certificate_ == certify(result.estimator, X, y)


def test_reusable_refuses_other_rows_labels_or_trees():
    from treebound.pruning.certified import _Candidate

    X, y = _noisy(7)
    model = DecisionTreeClassifier(random_state=0, max_leaf_nodes=6).fit(X, y)
    other = DecisionTreeClassifier(random_state=0, max_leaf_nodes=4).fit(X, y)
    sample = _Candidate(model.tree_.flat, X, y, 0.05).sample
    deployed = sample.deployed
    assert reusable(sample, deployed, y, False)
    assert not reusable(sample, deployed, 1 - y, False)
    assert not reusable(sample, deployed, y, True)
    from dataclasses import replace
    assert not reusable(sample, replace(deployed, features=X + 1.0), y, False)
    assert not reusable(sample, replace(deployed, tree=other.tree_.flat), y, False)
    memo = CertifiedTrees()
    memo.remember(model.tree_.flat, sample)
    assert memo.recall(model.tree_.flat) is sample and memo.recall(other.tree_.flat) is None
