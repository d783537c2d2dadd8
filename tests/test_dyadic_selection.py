"""penalty_scale="cv": row-order-free folds, the descent over scales against a brute-force
oracle, the refit fallback, persistence and bad input."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound import DyadicTreeClassifier
from treebound.dyadic import DEFAULT_PENALTY_SCALES, row_order_free_folds
from treebound.dyadic._selection import n_folds_for, select_penalty_scale


def _noisy_square(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 2))
    y = ((X[:, 0] > 0.4) & (X[:, 1] < 0.7)).astype(int)
    flip = rng.uniform(size=n) < 0.15
    y[flip] = 1 - y[flip]
    return X, y


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(6, 60), k=st.integers(2, 5))
def test_folds_follow_the_rows_and_are_stratified(seed, n, k):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, 2)).astype(float)  # many equal rows
    y = rng.integers(0, 3, size=n)
    folds = row_order_free_folds(X, y, k)
    perm = rng.permutation(n)
    moved = row_order_free_folds(X[perm], y[perm], k)
    # equal (row, label) pairs are interchangeable: compare fold counts per distinct pair
    for row, label in {(tuple(r), c) for r, c in zip(X.tolist(), y.tolist(), strict=True)}:
        here = np.all(X == row, axis=1) & (y == label)
        there = np.all(X[perm] == row, axis=1) & (y[perm] == label)
        assert sorted(folds[here].tolist()) == sorted(moved[there].tolist())
    assert folds.min() >= 0 and folds.max() < k
    for label in np.unique(y):
        counts = np.bincount(folds[y == label], minlength=k)
        assert counts.max() - counts.min() <= 1
    sizes = np.bincount(folds, minlength=k)
    assert sizes.max() - sizes.min() <= 1


def _oracle(X, y, scales, fit_predict):
    """Every scale's CV accuracy on the same folds, then the documented rule by hand: descend
    from the largest scale, stop at the first drop below the best so far, ties to the larger."""
    ordered = sorted(scales, reverse=True)
    k = n_folds_for(y)
    folds = row_order_free_folds(X, y, k)
    accuracy = []
    for scale in ordered:
        correct = sum(int(np.sum(fit_predict(scale, X[folds != f], y[folds != f],
                                             X[folds == f]) == y[folds == f]))
                      for f in range(k))
        accuracy.append(correct / len(y))
    best = 0
    for i in range(1, len(ordered)):
        if accuracy[i] < accuracy[best]:
            break
        if accuracy[i] > accuracy[best]:
            best = i
    return ordered[best], accuracy


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_selection_matches_the_brute_force_oracle(seed):
    X, y = _noisy_square(300, seed)

    def fit_predict(scale, X_tr, y_tr, X_te):
        model = DyadicTreeClassifier(penalty_scale=scale, max_resolution=4)
        return model.fit(X_tr, y_tr).predict(X_te)

    scales = (1.0, 0.5, 0.2, 0.1, 0.05, 0.02)
    chosen = select_penalty_scale(X, y, scales, fit_predict, lambda exc: False)
    expected, accuracy = _oracle(X, y, scales, fit_predict)
    assert chosen.scale == expected
    evaluated = [a for a in chosen.accuracy if not np.isnan(a)]
    assert evaluated == accuracy[:len(evaluated)]
    model = DyadicTreeClassifier(penalty_scale=list(scales), max_resolution=4).fit(X, y)
    assert model.penalty_scale_ == expected
    fixed = DyadicTreeClassifier(penalty_scale=expected, max_resolution=4).fit(X, y)
    assert model.to_dict()["tree"] == fixed.to_dict()["tree"]


def test_default_is_cv_and_beats_the_theory_constant_on_noisy_data():
    X, y = _noisy_square(1500, 7)
    X_test, y_test = _noisy_square(4000, 8)
    default = DyadicTreeClassifier().fit(X, y)
    theory = DyadicTreeClassifier(penalty_scale=1.0).fit(X, y)
    assert default.penalty_scale == "cv" and default.penalty_scale_ in DEFAULT_PENALTY_SCALES
    assert theory.penalty_scale_ == 1.0 and theory.cv_scores_ == []
    assert [s for s, _ in default.cv_scores_] == sorted(DEFAULT_PENALTY_SCALES, reverse=True)
    assert default.score(X_test, y_test) > theory.score(X_test, y_test) + 0.05


def test_row_order_does_not_change_the_cv_choice():
    X, y = _noisy_square(400, 3)
    perm = np.random.default_rng(0).permutation(400)
    a = DyadicTreeClassifier().fit(X, y)
    b = DyadicTreeClassifier().fit(X[perm], y[perm])
    assert a.cv_scores_ == b.cv_scores_
    assert a.to_dict()["tree"] == b.to_dict()["tree"]


def test_descent_stops_at_the_cell_budget_and_the_refit_falls_back():
    X, y = _noisy_square(600, 4)
    big = DyadicTreeClassifier(penalty_scale=[1.0, 0.1, 0.01], max_resolution=5).fit(X, y)
    small_cells = DyadicTreeClassifier(penalty_scale=0.01, max_resolution=5).fit(X, y)
    budget = small_cells.n_cells_evaluated_ - 1  # the full-data search at 0.01 cannot fit
    model = DyadicTreeClassifier(penalty_scale=[1.0, 0.1, 0.01], max_resolution=5,
                                 max_cells=budget).fit(X, y)
    assert model.penalty_scale_ in (1.0, 0.1)
    assert model.n_cells_evaluated_ <= budget
    assert big.penalty_scale_ in (1.0, 0.1, 0.01)


def test_fold_count_follows_the_size_and_the_smallest_class():
    assert n_folds_for(np.array([0, 1] * 50)) == 5
    assert n_folds_for(np.array([0, 1] * 3000)) == 3
    assert n_folds_for(np.array([0] * 100 + [1])) == 5  # a rare class does not cut the folds
    assert n_folds_for(np.array([0, 1, 1, 0, 1, 0, 1])) == 3


def test_a_rare_class_does_not_switch_the_cv_off():
    X, y = _noisy_square(300, 9)
    y[0] = 2  # one row of a third class
    model = DyadicTreeClassifier(max_resolution=4).fit(X, y)
    assert all(a is not None for _, a in model.cv_scores_[:2])


def test_too_few_rows_use_the_largest_scale():
    X = np.array([[0.0], [1.0], [2.0]])
    model = DyadicTreeClassifier().fit(X, [0, 0, 1])
    assert model.penalty_scale_ == 1.0
    assert all(a is None for _, a in model.cv_scores_)


def test_cv_state_survives_the_json_round_trip():
    X, y = _noisy_square(200, 5)
    model = DyadicTreeClassifier(max_resolution=3).fit(X, y)
    again = DyadicTreeClassifier.from_dict(json.loads(json.dumps(model.to_dict())))
    assert again.penalty_scale_ == model.penalty_scale_
    assert again.cv_scores_ == model.cv_scores_
    old = json.loads(json.dumps(DyadicTreeClassifier(penalty_scale=0.5).fit(X, y).to_dict()))
    del old["extra"]["penalty_scale_"], old["extra"]["cv_scores_"]  # a file written before
    assert DyadicTreeClassifier.from_dict(old).penalty_scale_ == 0.5
    bad = json.loads(json.dumps(model.to_dict()))
    bad["extra"]["cv_scores_"] = [["x", 0.5]]
    with pytest.raises(ValueError, match="cv_scores_"):
        DyadicTreeClassifier.from_dict(bad)


@pytest.mark.parametrize("scale", [[], [0.5, -1.0], [float("nan")], ["a"], "auto"])
def test_bad_candidate_scales_are_named(scale):
    with pytest.raises((ValueError, TypeError), match="penalty_scale"):
        DyadicTreeClassifier(penalty_scale=scale).fit(np.eye(6), [0, 1] * 3)
