"""Certified selection reads the rows once for the compression sets of its nested candidates:
each set is the one ``compress`` finds for the candidate alone (the oracle)."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine

from treebound import DecisionTreeClassifier
from treebound._flat._sklearn_view import as_flat
from treebound.certificates._compression import compress
from treebound.pruning import certified
from treebound.pruning._weakest_link import weakest_link_sequence


def _rows(name, missing):
    X, y = (load_breast_cancer if name == "cancer" else load_wine)(return_X_y=True)
    if missing:
        rng = np.random.default_rng(7)
        X = X.copy()
        X[rng.random(X.shape) < 0.08] = np.nan
    return X, y


@pytest.mark.parametrize("name, missing, hist, leaves", [
    ("cancer", False, False, 25), ("wine", False, False, 25), ("wine", False, True, 25),
    ("cancer", True, False, 8), ("wine", True, False, 8),  # missing values, read by the rows
    ("cancer", True, False, 25), ("wine", True, True, 25)])  # and tests "value present"
def test_nested_compression_sets_are_the_direct_ones(name, missing, hist, leaves):
    X, y = _rows(name, missing)
    model = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=0,
                                   splitter="hist" if hist else "best").fit(X, y)
    tree = as_flat(model.tree_)
    X_enc, y_idx = model.encode(X), np.searchsorted(model.classes_, y)
    seq = weakest_link_sequence(tree)
    prunings = [tree.collapse(seq.make_leaf(k)) for k in range(len(seq))]
    rng = np.random.default_rng(1)
    chosen = sorted(rng.choice(len(prunings), size=min(5, len(prunings)), replace=False))
    subset = [prunings[k] for k in chosen]
    nested = certified._nested_compression(subset, X_enc, y_idx)
    # the candidates deploy without missing values (as certified selection ranks them): a test
    # "value present" in the largest makes it incompressible, and each falls back to compress
    assert all(how is not None for how in nested) or np.any(tree.threshold == np.inf)
    for (pruned, _), how in zip(subset, nested, strict=True):
        deployed = certified._deployed(pruned, X_enc, y_idx)
        wrong = deployed.predict_index() != y_idx
        for multiway in (False, True):
            got, want = (how or compress)(deployed, wrong, multiway), compress(deployed, wrong,
                                                                            multiway)
            if isinstance(want, str):
                assert got == want
                continue
            assert np.array_equal(got.rows, want.rows)
            assert np.array_equal(got.pairs, want.pairs)
            assert np.array_equal(got.nodes, want.nodes)
            assert got.log_message_prior == want.log_message_prior


def test_one_tree_or_an_incompressible_largest_falls_back_to_compress():
    X, y = _rows("wine", False)
    model = DecisionTreeClassifier(max_leaf_nodes=6, random_state=0).fit(X, y)
    tree = as_flat(model.tree_)
    only = [tree.collapse(np.zeros(tree.n_nodes, dtype=bool))]
    assert certified._nested_compression(only, model.encode(X), y) == [None]
    shifted = tree.collapse(np.zeros(tree.n_nodes, dtype=bool))
    shifted[0].threshold[0] += 1e-3  # not a midpoint of two training values any more
    smaller = shifted[0].collapse(np.r_[True, np.zeros(shifted[0].n_nodes - 1, dtype=bool)])
    assert certified._nested_compression([shifted, smaller], model.encode(X), y) == [None, None]


@pytest.mark.parametrize("name, missing", [("cancer", False), ("wine", False), ("cancer", True),
                                           ("wine", True)])
def test_nested_predictions_are_each_trees_own(name, missing):
    X, y = _rows(name, missing)
    model = DecisionTreeClassifier(max_leaf_nodes=30, random_state=0).fit(X, y)
    tree = as_flat(model.tree_)
    X_enc, y_idx = model.encode(X), np.searchsorted(model.classes_, y)
    seq = weakest_link_sequence(tree)
    prunings = [tree.collapse(seq.make_leaf(k)) for k in range(len(seq))]
    for subset in (prunings, prunings[::3], prunings[2:5]):
        nested = certified._nested_predictions(subset, X_enc)
        for (pruned, _), predicted in zip(subset, nested, strict=True):
            want = certified._deployed(pruned, X_enc, y_idx).predict_index()
            assert np.array_equal(predicted, want)
    assert certified._nested_predictions(prunings[:1], X_enc) == [None]
