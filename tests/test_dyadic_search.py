"""The DDT searches against brute force: every objective equals the minimum over all DDTs."""

import math
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _dyadic_oracles import all_trees, best_objective, nonempty_cells
from treebound import DyadicTreeClassifier
from treebound.dyadic import (
    DyadicScaling,
    DyadicSettings,
    count_nonempty_cells_bound,
    fit_dyadic_tree,
)


def dyadic_data(seed, n, d, n_classes=2, denominator=8, noise=0.2):
    """Points on the grid k / denominator of [0, 1]^d (rows 0 and 1 pin min 0 and max 1, so the
    scaled coordinates equal the data exactly, midpoints included) with a noisy label rule."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, denominator + 1, size=(n, d)) / denominator
    X[0], X[1] = 0.0, 1.0
    score = X[:, 0] + 0.5 * X[:, -1] ** 2
    y = np.minimum((score * n_classes / 1.5).astype(int), n_classes - 1)
    flip = rng.uniform(size=n) < noise
    y[flip] = rng.integers(0, n_classes, size=int(flip.sum()))
    return X, y


def search(X, y, resolution, *, variant="free", penalty="spatially_adaptive", scale=1.0,
           delta=None):
    n, d = X.shape
    scaling, varying = DyadicScaling.fit(X, resolution)
    settings = DyadicSettings(resolution=resolution, variant=variant, penalty=penalty,
                              delta=delta if delta is not None else 1.0 / n,
                              penalty_scale=scale)
    classes, y_enc = np.unique(y, return_inverse=True)
    return fit_dyadic_tree(scaling.grid(X), y_enc, len(classes), varying, settings)


def test_enumeration_counts_match_the_recursion():
    # T(A) = 1 + sum_s T(A^{s,1}) T(A^{s,2}): 22,899 free DDTs for d = 2, L = 2 (see the oracle)
    assert len(all_trees(2, 2)) == 22_899
    assert len(all_trees(2, 1)) == 9
    assert len(all_trees(3, 1)) == 244
    # cyclic, d = 2, L = 1: the root, the root split, and its three prunings below
    assert len(all_trees(2, 1, cyclic=True)) == 5


@pytest.mark.parametrize("variant", ["free", "cyclic"])
@pytest.mark.parametrize("penalty", ["spatially_adaptive", "square_root"])
@pytest.mark.parametrize("resolution", [1, 2])
@pytest.mark.parametrize("scale", [0.05, 0.3, 1.0])
def test_objective_equals_brute_force_minimum(variant, penalty, resolution, scale):
    for seed in range(3):
        X, y = dyadic_data(seed, 60, 2)
        fit = search(X, y, resolution, variant=variant, penalty=penalty, scale=scale)
        expected, _ = best_objective(X, y, resolution, penalty=penalty, delta=1 / 60,
                                     scale=scale, cyclic=variant == "cyclic")
        assert fit.objective == pytest.approx(expected, abs=1e-9), seed


@pytest.mark.parametrize("variant", ["free", "cyclic"])
@pytest.mark.parametrize("penalty", ["spatially_adaptive", "square_root"])
def test_small_improvements_are_not_lost_on_larger_samples(variant, penalty):
    # one example is worth 1/600 of risk here, far below the gaps of the tiny problems above
    X, y = dyadic_data(7, 600, 2, n_classes=3, denominator=64, noise=0.3)
    fit = search(X, y, 2, variant=variant, penalty=penalty, scale=0.05)
    expected, _ = best_objective(X, y, 2, penalty=penalty, delta=1 / 600, scale=0.05,
                                 cyclic=variant == "cyclic")
    assert fit.objective == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("penalty", ["spatially_adaptive", "square_root"])
def test_three_features_and_three_classes_against_brute_force(penalty):
    for seed in range(3):
        X, y = dyadic_data(seed, 90, 3, n_classes=3, denominator=4)
        fit = search(X, y, 1, penalty=penalty, scale=0.1)
        expected, _ = best_objective(X, y, 1, penalty=penalty, delta=1 / 90, scale=0.1)
        assert fit.objective == pytest.approx(expected, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), scale=st.floats(0.0, 1.5), n=st.integers(2, 40),
       penalty=st.sampled_from(["spatially_adaptive", "square_root"]))
def test_free_search_matches_brute_force_on_random_problems(seed, scale, n, penalty):
    X, y = dyadic_data(seed, n, 2, denominator=4, noise=0.4)
    if len(np.unique(y)) < 2:
        y[0] = 1 - y[1]
    fit = search(X, y, 2, penalty=penalty, scale=scale)
    expected, _ = best_objective(X, y, 2, penalty=penalty, delta=1 / n, scale=scale)
    assert fit.objective == pytest.approx(expected, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), scale=st.floats(0.0, 1.0), d=st.integers(1, 4),
       resolution=st.integers(0, 3),
       penalty=st.sampled_from(["spatially_adaptive", "square_root"]))
def test_free_objective_never_exceeds_cyclic(seed, scale, d, resolution, penalty):
    # every cyclic DDT of T_M is a free DDT of T_M
    X, y = dyadic_data(seed, 80, d, n_classes=3, denominator=16)
    free = search(X, y, resolution, penalty=penalty, scale=scale)
    cyclic = search(X, y, resolution, variant="cyclic", penalty=penalty, scale=scale)
    assert free.objective <= cyclic.objective + 1e-12


def test_free_is_strictly_better_than_cyclic_when_the_boundary_needs_the_second_coordinate():
    # the label depends on x2 only: a cyclic tree must split x1 first and pay for it
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(400, 2))
    y = (X[:, 1] > 0.5).astype(int)
    free = search(X, y, 2)
    cyclic = search(X, y, 2, variant="cyclic")
    assert free.objective < cyclic.objective - 1e-3
    assert free.n_leaves == 2 and free.feature[0] == 1


def test_returned_objective_is_the_search_value_and_recomputes_from_the_tree():
    X, y = dyadic_data(1, 200, 2, denominator=64)
    model = DyadicTreeClassifier(max_resolution=4, penalty_scale=0.2).fit(X, y)
    tree = model.tree_.flat
    leaves = tree.is_leaf
    sizes = tree.n_node_samples[leaves]
    errors = sizes - np.where(sizes > 0, tree.value[leaves].max(axis=1), 0)
    depth = tree.node_depth[leaves]
    n, d = X.shape
    code = 2 * depth + 1 + depth * math.log2(d)
    bits = code * math.log(2)
    p_prime = 4 * np.maximum(sizes / n, (bits + math.log(n)) / n)
    penalty = 0.2 * np.sqrt(2 * p_prime * (bits + math.log(2 * n)) / n).sum()
    assert model.empirical_risk_ == pytest.approx(errors.sum() / n)
    assert model.penalty_ == pytest.approx(penalty)
    assert model.objective_ == pytest.approx(errors.sum() / n + penalty)


def test_cell_count_bound_covers_the_nonempty_cells_and_the_search():
    X, y = dyadic_data(0, 150, 2, denominator=32)
    scaling, varying = DyadicScaling.fit(X, 3)
    bound = count_nonempty_cells_bound(scaling.grid(X), varying, 3)
    exact = nonempty_cells(X, 3)
    assert exact <= bound <= 150 * 4**2
    fit = search(X, y, 3, scale=0.01)
    assert 0 < fit.n_cells_evaluated <= exact


def test_deep_zoom_into_a_cluster():
    # everything but two pinned points sits in a 1/256-wide corner: the search must follow
    # chains of cells whose other half is empty down to the finest level
    rng = np.random.default_rng(8)
    X = np.vstack([[0.0, 0.0], [1.0, 1.0], rng.uniform(0, 1 / 256, size=(300, 2))])
    y = np.append([0, 1], (X[2:, 0] > 1 / 512).astype(int))
    free = search(X, y, 10, scale=0.05)
    cyclic = search(X, y, 10, variant="cyclic", scale=0.05)
    assert free.objective <= cyclic.objective + 1e-12
    assert free.empirical_risk == 0.0
    assert free.depth.max() == 9  # the label boundary x1 = 2**-9 needs nine halvings of x1


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"),
                    reason="counts numba's compiled variants")
def test_one_and_several_features_share_one_compiled_search():
    # a one-column grid is both C- and F-contiguous: passed as is, every search kernel compiled a
    # second variant for it (~25 s of a cold start)
    from treebound._kernels.dyadic_cyclic import solve_cyclic
    from treebound._kernels.dyadic_free import extract_free, solve_free

    for d in (1, 3):
        X, y = dyadic_data(d, 40, d)
        search(X, y, 2)
        search(X, y, 2, variant="cyclic")
    for kernel in (solve_free, extract_free, solve_cyclic):
        assert len(kernel.signatures) == 1, kernel.signatures
