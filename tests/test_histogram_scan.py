"""The histogram scan (treebound._kernels.split_numeric.scan_histogram) against a naive oracle.

Gini on unit weights without missing rows has a loop of its own (the non-empty codes listed
first): it must return what the general loop returns (fed the same statistics with separate
counts, which sends it down the general loop) bit for bit, and the best cut the oracle finds by
trying every cut between non-empty codes.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from _oracles import impurity_mass
from treebound._kernels.criteria import ENTROPY, GINI, TASK_CLASSIFICATION
from treebound._kernels.split_numeric import scan_histogram


@st.composite
def class_histograms(draw):
    """Per-code class counts of one node (many empty codes on purpose)."""
    n_codes = draw(st.integers(1, 40))
    width = draw(st.integers(2, 4))
    density = draw(st.sampled_from([0.1, 0.5, 1.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 4, size=(n_codes, width)) * (rng.random((n_codes, 1)) < density)
    return counts.astype(float)


def _scan(counts, criterion, counts_in_hist, min_samples_leaf):
    n_codes, width = counts.shape
    parent = counts.sum(axis=0)
    n_node = int(parent.sum())
    parent_mass = impurity_mass(parent, "gini" if criterion == GINI else "entropy")
    if criterion == GINI and n_node > 0:
        # the kernels' own arithmetic for the parent's mass: w - sum c^2 / w
        parent_mass = n_node - float(np.sum(parent**2)) / n_node
    hist = np.concatenate([np.zeros(3), counts.ravel()])  # an offset into a pool
    hcount = np.concatenate([np.zeros(5, dtype=np.int64),
                             counts.sum(axis=1).astype(np.int64)])
    work = [np.empty(width) for _ in range(4)]
    return scan_histogram(hist, 3, hcount, 5, counts_in_hist, n_codes, -1, n_node,
                          TASK_CLASSIFICATION, width, criterion, parent, 0, float(n_node),
                          parent_mass, min_samples_leaf, *work,
                          np.empty(n_codes, dtype=np.int64))


def _oracle(counts, min_samples_leaf):
    """Gini gain of every allowed cut ``(last code left, first code right)`` between
    non-empty codes, and how many codes are non-empty."""
    present = np.flatnonzero(counts.sum(axis=1) > 0)
    parent = impurity_mass(counts.sum(axis=0), "gini")
    gains = {}
    for lo, hi in itertools.pairwise(present):
        left, right = counts[: lo + 1].sum(axis=0), counts[lo + 1:].sum(axis=0)
        if min(left.sum(), right.sum()) >= min_samples_leaf:
            gains[lo, hi] = parent - impurity_mass(left, "gini") - impurity_mass(right, "gini")
    return gains, len(present)


@settings(max_examples=200, deadline=None)
@given(counts=class_histograms(), min_samples_leaf=st.integers(1, 4))
def test_gini_unit_weight_loop_matches_general_loop_and_oracle(counts, min_samples_leaf):
    fast = _scan(counts, GINI, True, min_samples_leaf)
    general = _scan(counts, GINI, False, min_samples_leaf)
    assert fast[:4] == general[:4]
    assert (fast[4] <= 1) == (general[4] <= 1)
    gains, n_present = _oracle(counts, min_samples_leaf)
    assert (fast[4] <= 1) == (n_present <= 1)
    if not gains:
        assert fast[1] == -1
    else:
        assert (fast[1], fast[2]) in gains
        assert np.isclose(fast[0], max(gains.values()), rtol=1e-9, atol=1e-9)
        assert np.isclose(gains[fast[1], fast[2]], max(gains.values()), rtol=1e-9, atol=1e-9)


@settings(max_examples=50, deadline=None)
@given(counts=class_histograms())
def test_entropy_scans_the_same_with_counts_in_the_statistics_or_apart(counts):
    """Entropy keeps the general loop: the two ways of counting rows agree."""
    a = _scan(counts, ENTROPY, True, 1)
    b = _scan(counts, ENTROPY, False, 1)
    assert a[:4] == b[:4] and (a[4] <= 1) == (b[4] <= 1)
