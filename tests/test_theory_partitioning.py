import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _theory_oracles import log_tables, random_shape
from treebound._kernels.partitioning import edge_deficit_sums, subtract_deficits
from treebound.theory import (
    APPENDIX_A4_PERMUTATIONS,
    VARIANTS,
    PartitioningCache,
    TreeStructure,
    count_stump_bipartitions,
    falling_factorial,
    growth_function_upper_bound,
    log_growth_function_upper_bound,
    log_partitioning_upper_bound,
    partitioning_upper_bound,
    stirling2,
    stump_partitioning_upper_bound,
)
from treebound.theory._regimes import edge_width, first_mixed_m
from treebound.theory._tables import log_merge_coefficients
from treebound.theory.partitioning import _ensure_exact_tables, ensure_log_tables

P = TreeStructure.parse
STUMP = TreeStructure.stump()


def shapes(max_leaves):
    return st.recursive(
        st.just(TreeStructure.leaf()),
        lambda children: st.tuples(children, children).map(lambda lr: TreeStructure.node(*lr)),
        max_leaves=max_leaves,
    )


def close_in_log(approx, exact_int):
    if exact_int == 0:
        return approx == -math.inf
    exact = math.log(exact_int)
    return abs(approx - exact) <= 1e-9 * max(1.0, abs(exact))


# ----------------------------------------------------------------- brute-force oracle
def realizable_partitions(structure, X):
    """Every c-partition of the rows of X a tree of this shape realizes (dict c -> count).

    Each internal node tries every feature, every cut between consecutive values (and the two
    degenerate cuts) and both orientations; leaves are then grouped in every possible way.
    """
    m, ell = X.shape
    cuts = []
    for f in range(ell):
        order = np.argsort(X[:, f], kind="stable")
        for k in range(m + 1):
            low = frozenset(order[:k].tolist())
            cuts.append(low)
    memo = {}

    def cells(t, points):
        key = (t, points)
        if key in memo:
            return memo[key]
        if t.is_leaf:
            out = {frozenset([points])} if points else {frozenset()}
        else:
            out = set()
            for low in cuts:
                for left in (points & low, points - low):
                    right = points - left
                    for a in cells(t.left, left):
                        for b in cells(t.right, right):
                            out.add(a | b)
        memo[key] = out
        return out

    partitions = set()
    for cell_partition in cells(structure, frozenset(range(m))):
        blocks = list(cell_partition)
        for grouping in _set_partitions(blocks):
            partitions.add(frozenset(frozenset().union(*g) for g in grouping))
    counts = {}
    for p in partitions:
        counts[len(p)] = counts.get(len(p), 0) + 1
    return counts


def _set_partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _set_partitions(rest):
        yield [[first], *part]
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1 :]]


@pytest.mark.parametrize("text", ["(L,L)", "((L,L),L)", "((L,L),(L,L))", "(((L,L),L),L)"])
@pytest.mark.parametrize("ell", [1, 2])
def test_bound_dominates_brute_force_on_random_samples(text, ell):
    rng = np.random.default_rng(7)
    t = P(text)
    for m in range(1, 7):
        for _ in range(3):
            X = rng.permuted(np.tile(np.arange(m, dtype=float), (ell, 1)), axis=1).T
            counts = realizable_partitions(t, X)
            for c, count in counts.items():
                assert count <= partitioning_upper_bound(t, n_parts=c, n_examples=m,
                                                         n_features=ell), (text, ell, m, c)


def test_brute_force_matches_theorem7_samples():
    # The two oracles agree on the appendix A.4 samples (x of point sigma_j on feature i = j).
    for m, rows in APPENDIX_A4_PERMUTATIONS.items():
        if m < 2 or m > 5:
            continue
        X = np.zeros((m, len(rows)))
        for i, row in enumerate(rows):
            for j, point in enumerate(row):
                X[point - 1, i] = j
        assert realizable_partitions(STUMP, X).get(2, 0) == count_stump_bipartitions(rows)


# ----------------------------------------------------------------- paper's numbers
def test_reference_values():
    leaf = TreeStructure.leaf()
    assert partitioning_upper_bound(leaf, n_parts=1, n_examples=4, n_features=10) == 1
    assert partitioning_upper_bound(leaf, n_parts=2, n_examples=4, n_features=10) == 0
    assert partitioning_upper_bound(STUMP, n_parts=1, n_examples=4, n_features=10) == 1
    assert partitioning_upper_bound(STUMP, n_parts=1, n_examples=50, n_features=10) == 1
    assert partitioning_upper_bound(STUMP, n_parts=2, n_examples=1, n_features=10) == 0
    assert partitioning_upper_bound(STUMP, n_parts=2, n_examples=6, n_features=10) == 2**5 - 1
    assert partitioning_upper_bound(STUMP, n_parts=2, n_examples=7, n_features=10) < 2**6 - 1
    t = P("((L,L),L)")
    assert partitioning_upper_bound(t, n_parts=2, n_examples=16, n_features=10) == 2**15 - 1
    assert partitioning_upper_bound(t, n_parts=2, n_examples=17, n_features=10) < 2**16 - 1
    assert growth_function_upper_bound(STUMP, n_examples=1, n_features=10, n_classes=3) == 3
    assert growth_function_upper_bound(STUMP, n_examples=2, n_features=10, n_classes=3) == 3 + 6


@pytest.mark.parametrize("ell", range(1, 7))
def test_stump_bound_is_theorem7(ell):
    for m in range(0, 60):
        assert partitioning_upper_bound(STUMP, n_parts=2, n_examples=m, n_features=ell) == min(
            stump_partitioning_upper_bound(m, n_features=ell), stirling2(m, 2))
        if m >= 2 * ell:  # Theorem 7 reduces to the trivial bound ell (m - 1)
            assert stump_partitioning_upper_bound(m, n_features=ell) == ell * (m - 1)
    assert stump_partitioning_upper_bound(100, n_features=3) == 3 * 99


def test_theorem7_equality_on_appendix_a4_matrices():
    for m, rows in APPENDIX_A4_PERMUTATIONS.items():
        for ell in range(1, len(rows) + 2):
            assert count_stump_bipartitions(rows[:ell]) == stump_partitioning_upper_bound(m, n_features=ell)
            assert partitioning_upper_bound(STUMP, n_parts=2, n_examples=m, n_features=ell) == stump_partitioning_upper_bound(m, n_features=ell)


def test_loose_paper_is_not_a_bound():
    t = P("((L,L),(L,L))")
    # 4 distinct 4-partitions of 5 points on a line are realizable: brute force on one feature.
    X = np.arange(5, dtype=float).reshape(-1, 1)
    assert realizable_partitions(t, X)[4] == 4
    assert partitioning_upper_bound(t, n_parts=4, n_examples=5, n_features=1, variant="tight") == 4
    assert partitioning_upper_bound(t, n_parts=4, n_examples=5, n_features=1, variant="loose") == 8
    assert partitioning_upper_bound(t, n_parts=4, n_examples=5, n_features=1,
                                    variant="loose_paper") == 1
    for ell in (1, 2, 5):
        for m in range(2 * ell + 1, 40):
            # Theorem 7 is an equality for 2 ell <= m: the true count is ell (m - 1).
            assert partitioning_upper_bound(STUMP, n_parts=2, n_examples=m, n_features=ell,
                                            variant="loose_paper") == ell * (m - 2)
            assert partitioning_upper_bound(STUMP, n_parts=2, n_examples=m, n_features=ell,
                                            variant="loose") == ell * (m - 1)


# ----------------------------------------------------------------- invariants
@settings(max_examples=40, deadline=None)
@given(shapes(7), st.integers(1, 40), st.integers(1, 5), st.integers(1, 4))
def test_log_matches_exact_and_tight_below_loose(t, m, ell, c):
    cache = PartitioningCache()
    values = {}
    for variant in VARIANTS:
        exact = partitioning_upper_bound(t, n_parts=c, n_examples=m, n_features=ell,
                                         variant=variant, cache=cache)
        approx = log_partitioning_upper_bound(t, n_parts=c, n_examples=m, n_features=ell,
                                              variant=variant, cache=cache)
        assert close_in_log(approx, exact)
        assert 0 <= exact <= stirling2(m, c)
        values[variant] = exact
    assert values["tight"] <= values["loose"]
    assert values["loose_paper"] <= values["loose"]


@settings(max_examples=30, deadline=None)
@given(shapes(6), shapes(6), st.integers(1, 30), st.integers(1, 4), st.integers(2, 4))
def test_bound_is_invariant_under_swapping_children(a, b, m, ell, c):
    for variant in VARIANTS:
        x = partitioning_upper_bound(TreeStructure.node(a, b), n_parts=c, n_examples=m,
                                     n_features=ell, variant=variant)
        y = partitioning_upper_bound(TreeStructure.node(b, a), n_parts=c, n_examples=m,
                                     n_features=ell, variant=variant)
        assert x == y


@settings(max_examples=25, deadline=None)
@given(shapes(8), st.integers(1, 50), st.integers(1, 4), st.integers(1, 5))
def test_growth_bound_log_matches_exact(t, m, ell, n):
    exact = growth_function_upper_bound(t, n_examples=m, n_features=ell, n_classes=n)
    assert close_in_log(log_growth_function_upper_bound(t, n_examples=m, n_features=ell,
                                                        n_classes=n), exact)
    if m <= t.n_leaves:
        assert exact == n**m  # every labelling of m <= L points is realizable
    if n == 2:
        assert exact == 2 + 2 * partitioning_upper_bound(t, n_parts=2, n_examples=m,
                                                         n_features=ell) if m >= 2 else exact == 2


def test_growth_bound_at_zero_examples():
    assert growth_function_upper_bound(STUMP, n_examples=0, n_features=3, n_classes=2) == 1
    assert log_growth_function_upper_bound(STUMP, n_examples=0, n_features=3, n_classes=2) == 0.0


def test_growth_bound_multiclass_sum():
    t = P("(((L,L),L),(L,L))")
    cache = PartitioningCache()
    m, ell, n = 30, 3, 4
    expected = sum(falling_factorial(n, a) * partitioning_upper_bound(t, n_parts=a, n_examples=m,
                                                                      n_features=ell, cache=cache)
                   for a in range(1, 5))
    assert growth_function_upper_bound(t, n_examples=m, n_features=ell, n_classes=n,
                                       cache=cache) == expected


@pytest.mark.parametrize("seed", range(4))
def test_fft_tables_match_exact_integers(seed):
    # Force the tilted-FFT path on sizes where exact integers still run.
    rng = np.random.default_rng(seed)
    t = random_shape(int(rng.integers(5, 9)), rng).canonical()
    ell, C, M = int(rng.integers(1, 4)), 3, 90
    table = log_tables(t, C, M, ell, "fft")
    exact = _ensure_exact_tables(t, C, M, ell, PartitioningCache())
    assert partitioning_upper_bound(t, n_parts=C, n_examples=M, n_features=ell) == exact[C][M]
    for c in range(1, C + 1):
        for m in range(0, M + 1):
            assert close_in_log(table[c, m], exact[c][m])


def assert_fft_tables_match_direct_sums(t, C, M, ell):
    fft = log_tables(t, C, M, ell, "fft")
    direct = log_tables(t, C, M, ell, "direct")
    finite = np.isfinite(direct)
    assert np.array_equal(np.isfinite(fft), finite)
    rel = np.abs(fft[finite] - direct[finite]) / np.maximum(1.0, np.abs(direct[finite]))
    assert rel.max() < 1e-11


@pytest.mark.parametrize("seed", range(3))
def test_fft_tables_match_direct_sums(seed):
    rng = np.random.default_rng(100 + seed)
    t = random_shape(int(rng.integers(10, 18)), rng).canonical()
    ell, C, M = int(rng.integers(1, 30)), int(rng.integers(2, 5)), 1200
    assert_fft_tables_match_direct_sums(t, C, M, ell)


@pytest.mark.parametrize("seed", range(2))
def test_many_class_fft_tables_match_direct_sums(seed):
    # Nine parts: rows far apart, where tilts stall and blocks are summed directly instead.
    rng = np.random.default_rng(300 + seed)
    t = random_shape(int(rng.integers(14, 20)), rng).canonical()
    assert_fft_tables_match_direct_sums(t, 9, 700, 8)


@pytest.mark.parametrize("seed", range(4))
def test_varying_weight_sums_by_subtraction_match_exact_integers(seed):
    # 2 ell > m everywhere: every weight is min(2 ell, C(m, k)), and "fft" forces the
    # constant-weight sums minus the edge deficits from first_mixed_m on.
    rng = np.random.default_rng(20 + seed)
    t = random_shape(int(rng.integers(3, 9)), rng).canonical()
    ell, C, M = int(rng.integers(46, 60)), int(rng.integers(2, 4)), 90
    assert first_mixed_m(2 * ell) < M < 2 * ell
    table = log_tables(t, C, M, ell, "fft")
    exact = _ensure_exact_tables(t, C, M, ell, PartitioningCache())
    for c in range(1, C + 1):
        for m in range(M + 1):
            assert close_in_log(table[c, m], exact[c][m])


@settings(max_examples=15, deadline=None)
@given(shapes(12), st.integers(150, 3000), st.integers(2, 4), st.integers(300, 1500))
def test_many_feature_tables_match_direct_sums(t, ell, C, M):
    # ell in the hundreds or thousands (many-level categorical features): the long range
    # below m = 2 ell is summed by subtraction, checked against the direct sums.
    auto = ensure_log_tables(t, C, M, ell, PartitioningCache())
    direct = log_tables(t, C, M, ell, "direct")
    finite = np.isfinite(direct)
    assert np.array_equal(np.isfinite(auto), finite)
    rel = np.abs(auto[finite] - direct[finite]) / np.maximum(1.0, np.abs(direct[finite]))
    assert rel.max() < 1e-9


def test_edge_deficits_match_their_definition():
    rng = np.random.default_rng(7)
    two_ell, C, n_left, n_right = 60, 3, 2, 3
    left = np.log(rng.uniform(1, 50, size=(C + 1, 40)))
    right = np.log(rng.uniform(1, 50, size=(C + 1, 40)))
    left[0], right[0] = -np.inf, -np.inf
    left[:, :n_left], right[:, :n_right] = -np.inf, -np.inf
    log_coef = log_merge_coefficients(C)
    m_start, m_end = first_mixed_m(two_ell), 39
    got = edge_deficit_sums(left, right, n_left, n_right, float(two_ell), m_start, m_end,
                            log_coef, C)
    for m in range(m_start, m_end + 1):
        for c in range(1, C + 1):
            total = 0.0
            for k in range(n_left, m - n_right + 1):
                if math.comb(m, k) >= two_ell:
                    continue
                for a in range(1, c + 1):
                    for b in range(max(1, c - a), c + 1):
                        total += ((two_ell - math.comb(m, k)) * math.exp(log_coef[a, b, c])
                                  * math.exp(left[a, k] + right[b, m - k]))
            value = got[c, m - m_start]
            if total == 0:
                assert value == -np.inf
            else:
                assert value == pytest.approx(math.log(total), rel=1e-12, abs=1e-12)


def test_edge_width_counts_the_small_binomials():
    assert edge_width(50, 100) == 1  # C(50, 1) = 50 < 100 <= C(50, 2)
    assert edge_width(10, 10**6) == 4  # every k < 5: C(10, 4) = 210
    assert edge_width(200, 2**200) == 99
    for m, two_ell in [(30, 400), (97, 10**9), (12, 13)]:
        expected = sum(1 for k in range(1, (m + 1) // 2) if math.comb(m, k) < two_ell)
        assert edge_width(m, two_ell) == expected


def test_huge_ell_keeps_direct_sums():
    # 2 ell far beyond C(m, m/2) for the whole range: every weight is a binomial, summed directly.
    t = TreeStructure.parse("((L,L),(L,(L,L)))")
    fast = ensure_log_tables(t, 2, 300, 2**200, PartitioningCache())
    direct = log_tables(t, 2, 300, 2**200, "direct")
    assert np.array_equal(fast, direct)


def test_subtract_deficits_keeps_only_well_conditioned_entries():
    full = np.array([[math.log(100.0)] * 3 + [-np.inf]])
    deficit = np.array([[-np.inf, math.log(40.0), math.log(99.9), -np.inf]])
    out, kept = subtract_deficits(full, deficit, 1.0 - 1.0 / 64)
    assert kept.tolist() == [[True, True, False, True]]
    assert out[0, 0] == pytest.approx(math.log(100.0))
    assert out[0, 1] == pytest.approx(math.log(60.0))
    assert out[0, 2] == -np.inf and out[0, 3] == -np.inf


def test_large_tree_log_bound_is_finite_and_ordered():
    rng = np.random.default_rng(3)
    t = random_shape(60, rng)
    cache = PartitioningCache()
    tight = log_growth_function_upper_bound(t, n_examples=5000, n_features=10, n_classes=2,
                                            cache=cache)
    loose = log_growth_function_upper_bound(t, n_examples=5000, n_features=10, n_classes=2,
                                            variant="loose", cache=cache)
    assert 0 < tight <= loose < math.inf
    assert tight <= 5000 * math.log(2)


# ----------------------------------------------------------------- cache
def test_cache_is_shared_and_clearable():
    cache = PartitioningCache()
    a = P("(((L,L),(L,L)),((L,L),L))")
    b = P("((((L,L),(L,L)),L),(L,L))")
    x = log_growth_function_upper_bound(a, n_examples=300, n_features=4, n_classes=3, cache=cache)
    n_after_a = len(cache)
    assert n_after_a > 0
    y = log_growth_function_upper_bound(b, n_examples=300, n_features=4, n_classes=3, cache=cache)
    assert len(cache) > n_after_a
    assert x == log_growth_function_upper_bound(a, n_examples=300, n_features=4, n_classes=3)
    assert y == log_growth_function_upper_bound(b, n_examples=300, n_features=4, n_classes=3)
    # Asking for more examples or parts grows the tables and keeps the values.
    assert math.isclose(log_growth_function_upper_bound(b, n_examples=600, n_features=4,
                                                        n_classes=5, cache=cache),
                        log_growth_function_upper_bound(b, n_examples=600, n_features=4,
                                                        n_classes=5), rel_tol=1e-12)
    cache.clear()
    assert len(cache) == 0


# ----------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "call, exc",
    [
        (lambda: partitioning_upper_bound(STUMP, n_parts=2, n_examples=-1, n_features=3),
         ValueError),
        (lambda: partitioning_upper_bound(STUMP, n_parts=0, n_examples=5, n_features=3),
         ValueError),
        (lambda: partitioning_upper_bound(STUMP, n_parts=2, n_examples=5, n_features=0),
         ValueError),
        (lambda: partitioning_upper_bound(STUMP, n_parts=2, n_examples=5, n_features=3,
                                          variant="medium"), ValueError),
        (lambda: partitioning_upper_bound("(L,L)", n_parts=2, n_examples=5, n_features=3),
         TypeError),
        (lambda: partitioning_upper_bound(STUMP, n_parts=2, n_examples=5.0, n_features=3),
         TypeError),
        (lambda: partitioning_upper_bound(STUMP, n_parts=True, n_examples=5, n_features=3),
         TypeError),
        (lambda: log_partitioning_upper_bound(STUMP, n_parts=2, n_examples=5, n_features=3,
                                              cache={}), TypeError),
        (lambda: growth_function_upper_bound(STUMP, n_examples=5, n_features=3, n_classes=0),
         ValueError),
        (lambda: log_growth_function_upper_bound(STUMP, n_examples=5, n_features=3, n_classes=2,
                                                 variant="x"), ValueError),
        (lambda: stump_partitioning_upper_bound(5, n_features=0), ValueError),
    ],
)
def test_bad_input(call, exc):
    with pytest.raises(exc):
        call()


def test_zero_cases():
    assert partitioning_upper_bound(STUMP, n_parts=3, n_examples=10,
                                    n_features=3) == 0  # more parts than leaves
    assert log_partitioning_upper_bound(STUMP, n_parts=3, n_examples=2, n_features=3) == -math.inf
    assert partitioning_upper_bound(P("((L,L),L)"), n_parts=3, n_examples=3,
                                    n_features=1) == 1  # c = m <= L
    for m, c in itertools.product(range(0, 5), range(1, 5)):
        assert partitioning_upper_bound(P("((L,L),(L,L))"), n_parts=c, n_examples=m,
                                        n_features=2) == stirling2(m, c)


def test_cache_memory_budget_evicts_least_recently_used():
    t = P("((((L,L),(L,L)),L),((L,L),L))")
    unlimited = PartitioningCache(max_bytes=None)
    reference = log_growth_function_upper_bound(t, n_examples=3000, n_features=5, n_classes=3,
                                                cache=unlimited)
    assert unlimited.nbytes > 0
    small = PartitioningCache(max_bytes=unlimited.nbytes // 3)
    for _ in range(2):  # recomputes what was evicted, same value
        assert log_growth_function_upper_bound(t, n_examples=3000, n_features=5, n_classes=3,
                                               cache=small) == reference
        assert small.nbytes <= small.max_bytes
    with pytest.raises(ValueError):
        PartitioningCache(max_bytes=-1)


def test_default_pipeline_matches_exact_beyond_fft_threshold():
    # m = 420 puts the constant-weight region above FFT_MIN_OUTPUTS: the default path uses FFTs.
    t = P("(((L,L),L),((L,L),(L,L)))")
    cache = PartitioningCache()
    for m in (300, 420):
        for c in (2, 3):
            exact = partitioning_upper_bound(t, n_parts=c, n_examples=m, n_features=3, cache=cache)
            assert close_in_log(log_partitioning_upper_bound(t, n_parts=c, n_examples=m,
                                                             n_features=3, cache=cache), exact)
        exact_growth = growth_function_upper_bound(t, n_examples=m, n_features=3, n_classes=4,
                                                   cache=cache)
        assert close_in_log(log_growth_function_upper_bound(t, n_examples=m, n_features=3,
                                                            n_classes=4, cache=cache), exact_growth)


@pytest.mark.parametrize("seed", range(3))
def test_direct_sums_of_selected_rows_match_all_rows(seed):
    # The FFT fallback sums only the pending rows; those must equal the full computation.
    from treebound._kernels.partitioning import node_sums_direct, node_sums_direct_rows

    rng = np.random.default_rng(200 + seed)
    t = random_shape(int(rng.integers(6, 12)), rng).canonical()
    C, M, ell = 4, 300, int(rng.integers(1, 20))
    cache = PartitioningCache()
    ensure_log_tables(t, C, M, ell, cache)
    store = cache._store("tight_log", ell)
    left, right = store[t.left], store[t.right]
    coef = cache._log_coef_upto(C)
    for binomial in (True, False):
        full = node_sums_direct(left, right, t.left.n_leaves, t.right.n_leaves, math.log(2 * ell),
                                t.n_leaves + 1, M, binomial, coef, C)
        wanted = rng.random(C + 1) < 0.5
        part = node_sums_direct_rows(left, right, t.left.n_leaves, t.right.n_leaves,
                                     math.log(2 * ell), t.n_leaves + 1, M, binomial, coef, wanted,
                                     -np.inf)
        assert np.array_equal(part[wanted], full[wanted])
        assert np.all(part[~wanted] == -np.inf)
        # Leaving out the terms 60 nats below each sum's largest changes nothing that matters.
        cut = node_sums_direct_rows(left, right, t.left.n_leaves, t.right.n_leaves,
                                    math.log(2 * ell), t.n_leaves + 1, M, binomial, coef, wanted,
                                    -60.0)
        finite = np.isfinite(full[wanted])
        assert np.array_equal(np.isfinite(cut[wanted]), finite)
        assert np.allclose(cut[wanted][finite], full[wanted][finite], rtol=1e-15, atol=1e-13)


def test_memoized_prefix_sums_follow_rebuilt_tables():
    # Tables grown in a shared cache (smaller M first, so subtrees are rebuilt) equal fresh ones.
    rng = np.random.default_rng(7)
    t = random_shape(12, rng).canonical()
    shared = PartitioningCache()
    for M in (400, 700):
        ensure_log_tables(t.left, 3, M, 5, shared)
        grown = ensure_log_tables(t, 3, M, 5, shared)
        fresh = ensure_log_tables(t, 3, M, 5, PartitioningCache())
        finite = np.isfinite(fresh)
        assert np.array_equal(np.isfinite(grown), finite)
        assert np.allclose(grown[finite], fresh[finite], rtol=1e-11, atol=0)

