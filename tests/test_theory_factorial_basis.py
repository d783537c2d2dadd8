"""Theorem 9's sums of three or more parts in the falling-factorial basis, against the pair-by-pair
sums: the basis change, the triangular solve back, the row-by-row tilted FFTs."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_theory_partitioning import random_shape
from treebound._kernels.factorial_basis import (
    falling_factorial_rows,
    node_sums_direct_rows_factorial,
    solve_falling_factorial,
)
from treebound._kernels.partitioning import node_sums_direct, node_sums_direct_rows
from treebound.theory import PartitioningCache
from treebound.theory._convolutions import (
    _masked_rows,
    factorial_basis_convolutions,
    row_tilted_convolutions,
)
from treebound.theory._tables import log_merge_coefficients
from treebound.theory.partitioning import ensure_log_tables


def _log_sum(values):
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return -math.inf
    top = values.max()
    return -math.inf if top == -math.inf else top + math.log(np.exp(values - top).sum())


def _log_falling(n, a):
    return math.lgamma(n + 1) - math.lgamma(n - a + 1)


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 9), st.integers(0, 2**32 - 1))
def test_solve_recovers_rows_from_their_falling_factorial_sums(C, seed):
    # Rows with a wide spread (row c up to 200 nats above or below row c - 1), some zero.
    rng = np.random.default_rng(seed)
    rows = np.full((C + 1, 30), -np.inf)
    rows[2:] = np.cumsum(rng.normal(0.0, 60.0, size=(C - 1, 30)), axis=0)
    rows[rng.random(rows.shape) < 0.1] = -np.inf
    rows[:2] = -np.inf
    basis = np.full_like(rows, -np.inf)
    for n in range(2, C + 1):
        for j in range(rows.shape[1]):
            basis[n, j] = _log_sum([_log_falling(n, c) + rows[c, j] for c in range(2, n + 1)])
    # The basis is stored as logs of up to ~300 nats: each holds an absolute error of a few ulp
    # of its magnitude, i.e. a relative error of that size in the sum (not 1e-15).
    basis_error = 4 * np.finfo(float).eps * max(1.0, np.abs(basis[np.isfinite(basis)]).max())
    out, bad = solve_falling_factorial(basis, basis_error, 1e-11)
    assert not bad[:2].any()
    # Solved entries are accurate; a bad entry makes every row above it bad.
    good = ~bad
    assert np.array_equal(np.isfinite(out[good]), np.isfinite(rows[good]))
    finite = good & np.isfinite(rows)
    assert np.allclose(np.exp(out[finite] - rows[finite]), 1.0, rtol=1e-10, atol=0)
    assert np.all(bad[2:-1] <= bad[3:])
    # A row far below the sum of those under it is not solved: the subtraction would amplify
    # the basis error beyond the tolerance 1e-11.
    ratio = np.array([[math.exp(_log_sum([_log_falling(c, a) + rows[a, j] for a in range(2, c)])
                                - basis[c, j]) if np.isfinite(basis[c, j]) else 0.0
                       for j in range(rows.shape[1])] for c in range(2, C + 1)])
    with np.errstate(divide="ignore"):
        amplification = 1.0 / (1.0 - ratio)
    assert not (good[2:] & (amplification * basis_error > 1e-11)).any()
    assert bad.any()  # the spread makes some


def _assert_same_sums(fast, direct, rtol=1e-10):
    finite = np.isfinite(direct)
    assert np.array_equal(np.isfinite(fast), finite)
    assert np.allclose(np.exp(fast[finite] - direct[finite]), 1.0, rtol=rtol, atol=0)


def _children_tables(t, C, M, ell):
    """The children's tight log tables of ``t``, as stored and masked as the FFT path takes them
    (rows below 2 and columns below the leaves left out), and the merge coefficients."""
    cache = PartitioningCache()
    ensure_log_tables(t, C, M, ell, cache)
    store = cache._store("tight_log", ell)
    left, right = store[t.left], store[t.right]
    masked = (_masked_rows(left, t.left.n_leaves, min(C, left.shape[0] - 1)),
              _masked_rows(right, t.right.n_leaves, min(C, right.shape[0] - 1)))
    return (left, right), masked, log_merge_coefficients(C)


def _random_rows(rng, n_rows, length, leaves):
    """Log rows growing like high-degree polynomials from ``leaves`` on (a huge dynamic range)."""
    k = np.arange(length, dtype=float)
    out = np.full((n_rows + 1, length), -np.inf)
    for r in range(2, n_rows + 1):
        degree = rng.uniform(1.0, 300.0)
        out[r, leaves:] = degree * np.log1p(k[leaves:]) + rng.normal(0.0, 0.01, length - leaves)
    return out


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 6), st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_row_tilted_convolutions_match_direct_sums(n_rows, left_leaves, right_leaves, seed):
    rng = np.random.default_rng(seed)
    M = 700
    F = _random_rows(rng, n_rows, M + 1, left_leaves)
    G = _random_rows(rng, n_rows, M + 1, right_leaves)
    m_start = left_leaves + right_leaves
    fast = row_tilted_convolutions(F, G, left_leaves, right_leaves, m_start, M)
    diagonal = np.full((n_rows + 1,) * 3, -np.inf)
    for r in range(2, n_rows + 1):
        diagonal[r, r, r] = 0.0
    _assert_same_sums(fast, node_sums_direct(F, G, left_leaves, right_leaves, 0.0, m_start, M,
                                             False, diagonal, n_rows))


@pytest.mark.parametrize("seed", range(3))
def test_factorial_basis_convolutions_match_pair_sums(seed):
    # Children's real tables, masked as the FFT path takes them; a few subtrees with fewer leaves
    # than parts (rows near their leaf count are solved pair by pair).
    rng = np.random.default_rng(400 + seed)
    t = random_shape(int(rng.integers(6, 16)), rng).canonical()
    C, M, ell = int(rng.integers(3, 10)), 600, int(rng.integers(1, 20))
    _, (F, G), coef = _children_tables(t, C, M, ell)
    m_start = t.n_leaves + 1
    fast = factorial_basis_convolutions(F, G, t.left.n_leaves, t.right.n_leaves, C, m_start, M,
                                        coef)
    _assert_same_sums(fast, node_sums_direct(F, G, t.left.n_leaves, t.right.n_leaves, 0.0,
                                             m_start, M, False, coef, C))


@pytest.mark.parametrize("seed", range(4))
def test_direct_sums_in_the_falling_factorial_basis_match_pair_sums(seed):
    # One sum per row, then a triangular solve (ill-conditioned entries summed pair by pair):
    # the same sums as the pair-by-pair oracle, to the accuracy the amplification limit allows.
    rng = np.random.default_rng(300 + seed)
    t = random_shape(int(rng.integers(4, 14)), rng).canonical()
    C, M, ell = int(rng.integers(3, 8)), 400, int(rng.integers(1, 20))
    stored, masked, coef = _children_tables(t, C, M, ell)
    for (left, right), binomial in zip((stored, masked), (True, False), strict=True):
        log_two_ell = math.log(2 * ell) if binomial else 0.0
        wanted = rng.random(C + 1) < 0.7
        wanted[0] = False
        wanted[C] = True
        args = (left, right, t.left.n_leaves, t.right.n_leaves, log_two_ell, t.n_leaves + 1, M,
                binomial, coef, wanted, -np.inf)
        oracle = node_sums_direct_rows(*args)
        bases = [falling_factorial_rows(x, C, x.shape[1]) for x in (left, right)]
        for limit in (64.0, 2.0):  # 2: most entries of the upper rows summed pair by pair
            fast = node_sums_direct_rows_factorial(left, right, *bases, *args[2:], limit)
            assert np.all(fast[~wanted] == -np.inf)
            _assert_same_sums(fast[wanted], oracle[wanted], rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 400), ties=st.booleans())
def test_tilt_selector_merge_is_the_stable_sort_of_the_hull_edges(seed, n, ties):
    """The two hulls' edges merged in one pass: the same slopes and ends, to the bit, as the
    stable sort of both hulls' edges by decreasing slope (ties: the first hull's first)."""
    from treebound._kernels.partitioning import upper_hull
    from treebound._kernels.tilted_convolution import merged_hull_edges
    from treebound.theory._convolutions import _TiltSelector

    rng = np.random.default_rng(seed)
    k = np.arange(n, dtype=np.float64)
    env_f = rng.uniform(1, 4) * np.log1p(k) * 10 - rng.uniform(0, 0.01) * k
    env_g = rng.uniform(1, 4) * np.log1p(k) * 10 - rng.uniform(0, 0.01) * k
    if ties:  # exactly equal edges on both sides (piecewise linear envelopes)
        env_f = np.floor(env_f)
        env_g = env_f.copy()
    env_f[: int(rng.integers(0, 3))] = -np.inf
    hf, hg = upper_hull(env_f), upper_hull(env_g)
    slopes, lengths = [], []
    for env, hull in ((env_f, hf), (env_g, hg)):
        if hull.shape[0] > 1:
            dk = np.diff(hull)
            slopes.append(np.diff(env[hull]) / dk)
            lengths.append(dk)
    s = np.concatenate(slopes)
    order = np.argsort(-s, kind="stable")
    selector = _TiltSelector(env_f, env_g)
    assert merged_hull_edges(env_f, env_g, hf, hg)[2]  # hull slopes decrease here
    assert np.array_equal(selector.slopes, s[order])
    assert np.array_equal(selector.ends, np.cumsum(np.concatenate(lengths)[order]))
    assert selector.start == int(hf[0] + hg[0])
