import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound.theory import (
    PartitioningCache,
    TreeStructure,
    brute_force_stump_vcdim,
    enumerate_structures,
    exact_vcdim,
    partitioning_upper_bound,
    stump_shatters,
    stump_vcdim,
    vcdim_lower_bound,
    vcdim_upper_bound,
    yildiz_full_tree_lower_bound,
    yildiz_path_tree_lower_bound,
    yildiz_stump_vcdim,
)
from treebound_lab.vcdim_table import FIGURE3_STRUCTURES, figure3_markdown, figure3_rows

P = TreeStructure.parse

#: Leboeuf et al. (2020) Figure 3 (ell = 10), in the order of FIGURE3_STRUCTURES. The figure's
#: numbers did not survive the paper's text extraction: trees 1-3 are the values the paper's
#: reference code asserts (its tests/test_vcdim.py); trees 4-11 are a REGRESSION SNAPSHOT of
#: treebound's own output, not an independent check. What is independent: every upper bound is
#: verified against Eq. (5) with the exact big-integer Theorem 9 (test_figure3_values), a code
#: path separate from the log-space tables Algorithm 2 runs on, and the lower bounds against the
#: brute-force exact VC dimension where it is feasible (test_bounds_bracket_exact_vcdim).
FIGURE3_LOWER = [1, 6, 7, 12, 8, 13, 13, 14, 18, 19, 24]
FIGURE3_UPPER = [1, 6, 16, 21, 25, 31, 32, 40, 38, 47, 52]


def shapes(max_leaves):
    return st.recursive(
        st.just(TreeStructure.leaf()),
        lambda children: st.tuples(children, children).map(lambda lr: TreeStructure.node(*lr)),
        max_leaves=max_leaves,
    )


def test_stump_vcdim_values():
    assert [stump_vcdim(ell) for ell in (1, 2, 3, 10)] == [2, 3, 4, 6]
    for ell in range(1, 200):
        d = stump_vcdim(ell)
        assert math.comb(d, d // 2) <= 2 * ell < math.comb(d + 1, (d + 1) // 2)


@pytest.mark.parametrize("ell", [1, 2, 3, 4])
def test_stump_vcdim_matches_brute_force_shattering(ell):
    assert brute_force_stump_vcdim(ell) == stump_vcdim(ell)
    assert stump_shatters(stump_vcdim(ell), n_features=ell)
    assert not stump_shatters(stump_vcdim(ell) + 1, n_features=ell)


def test_upper_bound_is_exact_for_stumps():
    cache = PartitioningCache()
    for ell in range(1, 40):
        assert vcdim_upper_bound(TreeStructure.stump(), n_features=ell,
                                 cache=cache) == stump_vcdim(ell)


def test_figure3_values():
    cache = PartitioningCache()
    for text, lower, upper in zip(FIGURE3_STRUCTURES, FIGURE3_LOWER, FIGURE3_UPPER, strict=True):
        t = P(text)
        assert vcdim_lower_bound(t, n_features=10) == lower
        assert vcdim_upper_bound(t, n_features=10, cache=cache) == upper
        if not t.is_leaf:  # Eq. (5) checked in exact integers at the returned value
            assert partitioning_upper_bound(t, n_parts=2, n_examples=upper,
                                            n_features=10) == 2 ** (upper - 1) - 1
            assert partitioning_upper_bound(t, n_parts=2, n_examples=upper + 1,
                                            n_features=10) < 2**upper - 1
    rows = figure3_rows(10)
    assert [r["lower"] for r in rows] == FIGURE3_LOWER and [r["upper"] for r in rows] == FIGURE3_UPPER
    assert "| 11 | `(((L,L),(L,L)),((L,L),(L,L)))` | 8 | 3 | 24 | 52 | 16 |" in figure3_markdown(10)


def test_upper_bound_follows_algorithm2_definition():
    # The returned d satisfies pi^2(d) = 2^(d-1) - 1 and pi^2(d+1) < 2^d - 1 (Eq. 5).
    for text in FIGURE3_STRUCTURES[1:6]:
        t = P(text)
        for ell in (1, 3):
            d = vcdim_upper_bound(t, n_features=ell)
            assert partitioning_upper_bound(t, n_parts=2, n_examples=d,
                                            n_features=ell) == 2 ** (d - 1) - 1
            assert partitioning_upper_bound(t, n_parts=2, n_examples=d + 1,
                                            n_features=ell) < 2**d - 1


@pytest.mark.parametrize("n_leaves", [1, 2, 3, 4, 5])
def test_lower_exact_upper_on_binary_features(n_leaves):
    for t in enumerate_structures(n_leaves):
        for d in range(1, 5):
            exact = exact_vcdim(t, n_features=d)
            assert vcdim_lower_bound(t, n_features=d, feature_type="binary") <= exact <= vcdim_upper_bound(t, n_features=d)
            if t.is_stump:
                assert exact == yildiz_stump_vcdim(d)  # Yıldız Theorem 1 is exact


def test_exact_vcdim_limits():
    with pytest.raises(ValueError, match="exhaustive"):
        exact_vcdim(TreeStructure.stump(), n_features=5)
    with pytest.raises(ValueError, match="exhaustive"):
        exact_vcdim(TreeStructure.full(3), n_features=2)
    with pytest.raises(ValueError):
        stump_shatters(8, n_features=3)


@settings(max_examples=40, deadline=None)
@given(shapes(12), st.integers(1, 30))
def test_real_lower_bound_below_upper_bound(t, ell):
    assert 1 <= vcdim_lower_bound(t, n_features=ell) <= vcdim_upper_bound(t, n_features=ell)
    assert vcdim_lower_bound(t, n_features=ell, feature_type="binary") <= vcdim_lower_bound(t, n_features=ell)


@pytest.mark.parametrize("d", range(1, 12))
def test_yildiz_closed_forms_match_recursion(d):
    for n in range(1, d + 2):
        for side in ("left", "right"):
            path = TreeStructure.path(n, side=side)
            assert vcdim_lower_bound(path, n_features=d, feature_type="binary") == yildiz_path_tree_lower_bound(n, n_features=d)
    for h in range(1, min(d + 1, 6) + 1):
        assert vcdim_lower_bound(TreeStructure.full(h), n_features=d, feature_type="binary") == yildiz_full_tree_lower_bound(h, n_features=d)
    assert vcdim_lower_bound(TreeStructure.stump(), n_features=d,
                             feature_type="binary") == yildiz_stump_vcdim(d)
    assert yildiz_stump_vcdim(d) == math.floor(math.log2(d + 1)) + 1


def test_yildiz_examples_and_arities():
    assert yildiz_path_tree_lower_bound(5, n_features=7) == 7  # Yıldız Figure 2: d = 7, m = 7
    assert yildiz_full_tree_lower_bound(3, n_features=5) == 12  # Yıldız Figure 3: d = 5, m = 12
    stump = TreeStructure.stump()
    # Theorem 5: a node on features with 3 and 4 values: floor(log2(3 + 7 + 1)) + 1 = 4.
    assert vcdim_lower_bound(stump, n_features=2, feature_type="binary", arities=[3, 4]) == 4
    assert vcdim_lower_bound(stump, n_features=3, feature_type="binary",
                             arities=[2, 2, 2]) == vcdim_lower_bound(stump, n_features=3,
                                                                     feature_type="binary")
    # The root of ((L,L),L) uses the 2-valued feature; the stump keeps the 4-valued one (7 cuts).
    assert vcdim_lower_bound(P("((L,L),L)"), n_features=2, feature_type="binary",
                             arities=[4, 2]) == 1 + 4
    with pytest.raises(ValueError):
        yildiz_path_tree_lower_bound(5, n_features=2)
    with pytest.raises(ValueError):
        yildiz_full_tree_lower_bound(4, n_features=1)


@pytest.mark.parametrize(
    "call, exc",
    [
        (lambda: vcdim_lower_bound(TreeStructure.stump(), n_features=3, feature_type="complex"),
         ValueError),
        (lambda: vcdim_lower_bound(TreeStructure.stump(), n_features=3, arities=[2, 2, 2]),
         ValueError),
        (lambda: vcdim_lower_bound(TreeStructure.stump(), n_features=3, feature_type="binary",
                                   arities=[2, 2]), ValueError),
        (lambda: vcdim_lower_bound(TreeStructure.stump(), n_features=2, feature_type="binary",
                                   arities=[2, 1]), ValueError),
        (lambda: vcdim_upper_bound("(L,L)", n_features=3), TypeError),
        (lambda: vcdim_upper_bound(TreeStructure.stump(), n_features=0), ValueError),
        (lambda: stump_vcdim(-2), ValueError),
    ],
)
def test_bad_input(call, exc):
    with pytest.raises(exc):
        call()
