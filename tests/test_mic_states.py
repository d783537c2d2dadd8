"""The kernel's reachable-state enumeration against the plain tuple enumeration it replaces."""

import numpy as np
import pytest
from hypothesis import given, settings

from _mic_oracles import brute_force_optimal_errors, dnfs_with_distributions
from treebound.mic import OptimalErrorTable, ProductDistribution, ReadOnceDNF, optimal_errors
from treebound.mic._states import (
    ProfileIds,
    ReachableStateSpace,
    StateSpace,
    literal_classes,
)


def both_spaces(dnf, dist):
    classes = literal_classes(dnf, dist)
    root = classes.root_state()
    return (
        StateSpace.reachable(root, classes.probabilities),
        ReachableStateSpace.of(root, classes.probabilities),
    )


def moves_by_state(space, state_of):
    """{state: sorted list of (false child, true child, probability)} of a space."""
    moves = {}
    for s in range(space.leaf_error.size):
        moves[state_of(s)] = sorted(
            (state_of(int(space.move_false[m])), state_of(int(space.move_true[m])),
             float(space.move_prob[m]))
            for m in range(space.move_start[s], space.move_start[s + 1])
        )
    return moves


def assert_same_space_and_table(dnf, dist, t_max):
    reference, space = both_spaces(dnf, dist)
    assert space.n_states == len(reference.states)
    # Same states, same splits, bit-identical leaf errors and DP rows.
    assert moves_by_state(space, space.state) == moves_by_state(
        reference, lambda s: reference.states[s]
    )
    reference_table = OptimalErrorTable(reference, t_max)
    table = OptimalErrorTable(space, t_max)
    for s, state in enumerate(reference.states):
        index = space.index_of(state)
        assert index >= 0 and space.state(index) == state
        assert space.leaf_error[index] == reference.leaf_error[s]
        np.testing.assert_array_equal(table.values[index], reference_table.values[s])


def random_two_valued(rng, n_terms, max_size, probabilities):
    sizes = rng.integers(1, max_size + 1, size=n_terms)
    f = ReadOnceDNF.from_term_sizes(sizes)
    groups = rng.integers(1, 3, size=f.n_variables)
    return f, ProductDistribution.two_valued(*probabilities, groups)


@pytest.mark.parametrize("seed", range(6))
def test_kernel_enumeration_equals_tuple_enumeration_on_random_dnfs(seed):
    rng = np.random.default_rng(seed)
    probabilities = [(0.3, 0.7), (0.4, 0.6), (0.2, 0.55)][seed % 3]
    f, d = random_two_valued(rng, n_terms=int(rng.integers(3, 6)), max_size=4,
                             probabilities=probabilities)
    assert_same_space_and_table(f, d, t_max=12)


@given(case=dnfs_with_distributions(max_terms=4, max_literals=4, kinds=("uniform", "two_valued")))
@settings(max_examples=30, deadline=None)
def test_kernel_enumeration_handles_negations_and_irrelevant_variables(case):
    f, d = case
    assert_same_space_and_table(f, d, t_max=6)


def test_rows_that_do_not_pack_into_a_key_are_hashed():
    # 22 terms of <= 3 literals: ids 0..4 need 3 bits, 22 * 3 = 66 > 63 bits, so the kernel
    # falls back to hashing rows and comparing them.
    sizes = [1, 2, 3] * 7 + [3]
    f = ReadOnceDNF.from_term_sizes(sizes)
    d = ProductDistribution.uniform(f.n_variables)
    _, space = both_spaces(f, d)
    ids = space.profile_ids
    assert space.rows.shape[1] * int(np.ceil(np.log2(ids.literals.size))) > 63
    assert_same_space_and_table(f, d, t_max=5)


def test_states_are_topologically_ordered_with_the_root_last():
    f, d = random_two_valued(np.random.default_rng(7), 5, 4, (0.3, 0.7))
    classes = literal_classes(f, d)
    _, space = both_spaces(f, d)
    assert space.state(space.n_states - 1) == classes.root_state()
    parents = np.repeat(np.arange(space.n_states), np.diff(space.move_start))
    assert np.all(space.move_false < parents) and np.all(space.move_true < parents)
    # The constants 0 and 1 are reachable and have no splits.
    for constant in ((), ((0, 0),)):
        index = space.index_of(constant)
        assert index >= 0 and space.move_start[index] == space.move_start[index + 1]
        assert space.leaf_error[index] == 0.0


def test_unreachable_states_are_not_found():
    f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4)")
    d = ProductDistribution.two_valued(0.3, 0.7, [1, 2, 1, 2])
    table = OptimalErrorTable.for_dnf(f, d, 3)
    space = table.space
    assert space.index_of(((1, 1), (1, 1), (1, 1))) == -1  # too many terms
    assert space.index_of(((2, 0),)) == -1  # a profile outside the root's box
    assert space.index_of(((1, 0),)) >= 0
    with pytest.raises(ValueError, match="not in this table's family"):
        table.errors_of_state(((0, 2),))


def test_profile_ids_follow_lexicographic_order_and_reduce_one_literal():
    ids = ProfileIds.covering(((2, 1), (0, 3)), [0.3, 0.7])
    assert ids.limits == (2, 3)
    profiles = [ids.profile_of(i) for i in range(1, ids.literals.size)]
    assert profiles == sorted(profiles) and profiles[0] == (0, 0)
    for i, profile in enumerate(profiles, start=1):
        assert ids.id_of(profile) == i and ids.literals[i] == sum(profile)
        for c in range(2):
            if profile[c] == 0:
                assert ids.reduced[i, c] == -1
            else:
                smaller = list(profile)
                smaller[c] -= 1
                assert ids.profile_of(ids.reduced[i, c]) == tuple(smaller)
    assert ids.id_of((3, 0)) == -1
    with pytest.raises(ValueError, match="profile ids"):
        ProfileIds.covering(((300, 300),), [0.3, 0.7])


def test_paper_sized_two_valued_dnf_matches_brute_force_at_small_t():
    # Five terms with both classes, big enough for thousands of states, small enough to brute force.
    f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4) | (x5 & x6 & x7) | x8 | (x9 & x10)")
    d = ProductDistribution.two_valued(0.3, 0.7, [1, 2, 2, 2, 1, 1, 2, 1, 2, 1])
    np.testing.assert_allclose(
        optimal_errors(f, d, 3), brute_force_optimal_errors(f, d, 3), rtol=0, atol=1e-14
    )
