"""The certificate holds as often as it promises: a simulation with the true error known
exactly (issue 27).

The distribution is uniform over a finite population of labelled points, so a tree's true error
is its error rate on the whole population. Each trial draws an i.i.d. sample from it (with
replacement), fits a tree, reads its certificate (``certificate_``: method ``auto``) and counts
a failure when the true error exceeds it. At most ``delta`` of the trials may fail — for greedy
trees, trees fit with sample weights, histogram trees, declared categorical levels and dyadic
trees. The labels are noisy (a Bayes error of 0.15) so that the certificates are not far from
the true error."""

import numpy as np
import pandas as pd
import pytest

from treebound import DecisionTreeClassifier, DyadicTreeClassifier

N_POPULATION = 3000
N_TRIALS = 120
SAMPLE = 300


def _population(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(N_POPULATION, 3))
    level = rng.integers(0, 8, size=N_POPULATION)
    clean = (X[:, 0] + 0.5 * X[:, 1] > 0.8) ^ np.isin(level, [1, 5])
    y = np.where(rng.random(N_POPULATION) < 0.15, ~clean, clean).astype(int)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame["level"] = pd.Categorical(level, categories=range(8))
    return frame, y


def _fit(kind, X, y, rng):
    if kind == "greedy":
        return DecisionTreeClassifier(max_leaf_nodes=12, growth="top_down").fit(
            X[["a", "b", "c"]], y)
    if kind == "weighted":
        weights = rng.uniform(0.0, 2.0, size=y.shape[0])
        weights[rng.random(y.shape[0]) < 0.1] = 0.0
        return DecisionTreeClassifier(max_leaf_nodes=12, growth="top_down").fit(
            X[["a", "b", "c"]], y, sample_weight=weights)
    if kind == "hist":
        return DecisionTreeClassifier(max_leaf_nodes=12, splitter="hist", max_bins=16).fit(
            X[["a", "b", "c"]], y)
    if kind == "categorical":
        return DecisionTreeClassifier(max_leaf_nodes=12, growth="top_down").fit(X, y)
    return DyadicTreeClassifier(penalty_scale=0.3, max_resolution=6).fit(
        X[["a", "b", "c"]].to_numpy(), y)


def _predict(kind, model, X):
    if kind == "categorical":
        return model.predict(X)
    if kind == "dyadic":
        return model.predict(X[["a", "b", "c"]].to_numpy())
    return model.predict(X[["a", "b", "c"]])


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["greedy", "weighted", "hist", "categorical", "dyadic"])
def test_certificates_fail_at_most_delta_of_the_time(kind):
    population, labels = _population()
    rng = np.random.default_rng(1)
    failures, lower_failures, slack = 0, 0, []
    for _ in range(N_TRIALS):
        rows = rng.integers(0, N_POPULATION, size=SAMPLE)
        X, y = population.iloc[rows].reset_index(drop=True), labels[rows]
        model = _fit(kind, X, y, rng)
        certificate = model.certificate_
        assert not certificate.is_vacuous, str(certificate)
        true_error = float(np.mean(_predict(kind, model, population) != labels))
        failures += true_error > certificate.risk_upper_bound
        slack.append(certificate.risk_upper_bound - true_error)
        if certificate.risk_lower_bound is not None:
            lower_failures += true_error < certificate.risk_lower_bound
    assert failures <= certificate.delta * N_TRIALS, (failures, np.min(slack))
    assert lower_failures <= certificate.lower_bound_delta * N_TRIALS
