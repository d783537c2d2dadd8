"""Certified selection compares a candidate's ``hti`` bound with its compression bound without
inverting the binomial tail where a point probability shows the compression bound is the larger
(``compression_at_least``): never wrong against the inversion itself, and the selection's
numbers the ones computing every compression bound gives."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_wine

from treebound import DecisionTreeClassifier
from treebound.certificates._compression import Compression
from treebound.certificates._methods import Sample, bound_compression, compression_at_least
from treebound.pruning import certified


def _sample(m, d, k_in, k_out, log_message_prior):
    """A sample of ``m`` rows whose compression set is the first ``d``, ``k_in`` of them and
    ``k_out`` of the others misclassified."""
    wrong = np.zeros(m, dtype=bool)
    wrong[:k_in] = True
    wrong[d:d + k_out] = True
    found = Compression(rows=np.arange(d), pairs=np.empty((0, 2), dtype=np.int64),
                        nodes=np.empty(0, dtype=np.int64), log_message_prior=log_message_prior)
    return Sample(None, np.zeros(m, dtype=np.int64), wrong, {"compression": found})


@settings(max_examples=300, deadline=None)
@given(m=st.integers(2, 3000), d_share=st.floats(0, 1), k_share=st.floats(0, 1),
       in_share=st.floats(0, 1), log_prior=st.floats(-400, 0),
       delta=st.sampled_from([0.025, 0.05, 0.5]), value=st.floats(1e-6, 1 - 1e-6))
def test_compression_at_least_only_when_the_inversion_is(m, d_share, k_share, in_share,
                                                         log_prior, delta, value):
    d = min(m, int(d_share * 40))
    k_out = int(k_share * (m - d))
    sample = _sample(m, d, int(in_share * d), k_out, log_prior)
    bound = bound_compression(sample, delta).upper
    if compression_at_least(sample, delta, value):
        assert bound >= value
    n = m - d
    if 0 < k_out < n and n > 0:
        # at the errors' share the point probability is ~ 1 / sqrt(2 pi n p (1 - p)): shown
        # whenever delta' is far below that (the test is not vacuous)
        log_choose = math.lgamma(m + 1) - math.lgamma(d + 1) - math.lgamma(n + 1)
        if math.log(delta) + log_prior - log_choose < -0.5 * math.log(2 * math.pi * n) - 3:
            assert compression_at_least(sample, delta, k_out / n)


def test_compression_at_least_without_a_compression_set_says_nothing():
    sample = _sample(50, 4, 0, 5, -10.0)
    assert not compression_at_least(Sample(None, sample.y, sample.wrong, {}), 0.05, 0.2)
    refused = Sample(None, sample.y, sample.wrong, {"compression": "not midpoints"})
    assert not compression_at_least(refused, 0.05, 0.2)
    assert not compression_at_least(sample, 0.05, 1.0)


@pytest.mark.parametrize("load, n_se", [(load_breast_cancer, 2.0), (load_wine, 3.0)])
def test_selection_numbers_are_those_of_every_compression_bound(monkeypatch, load, n_se):
    X, y = load(return_X_y=True)
    kw = {"pruning": "certified", "random_state": 0, "max_leaf_nodes": 30,
          "pruning_params": {"n_se": n_se, "n_folds": 5}}
    shown = []
    monkeypatch.setattr(certified, "compression_at_least",
                        lambda *args: shown.append(compression_at_least(*args)) or shown[-1])
    lazy = DecisionTreeClassifier(**kw).fit(X, y)
    assert any(shown)  # some compression bound was skipped
    monkeypatch.setattr(certified, "compression_at_least", lambda *args: False)
    every = DecisionTreeClassifier(**kw).fit(X, y)
    assert lazy.pruning_info_ == every.pruning_info_
    assert lazy.certificate_.to_dict() == every.certificate_.to_dict()
    assert len(lazy.pruning_info_["candidates"]) > 1
