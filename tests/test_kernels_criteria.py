"""The per-criterion arithmetic the split scans take from ``_kernels/criteria.py``.

The scans keep the children's masses as running sums of per-class terms for the criteria that
have them (:func:`running_sums`); the oracle is the mass computed from the count vectors.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound._kernels import criteria as crit

CLASSIFICATION = (crit.GINI, crit.ENTROPY, crit.SQRT, crit.MISCLASSIFICATION)
#: (criterion, per_sample) pairs whose scans use running sums
RUNNING = [(c, p) for c in CLASSIFICATION for p in (False, True)
           if crit.running_sums(c, p) != crit.NO_RUNNING_SUMS]


def _mass(counts: np.ndarray, criterion: int) -> float:
    return crit.classification_mass(counts, 0, counts.shape[0], float(counts.sum()), criterion)


def _scan(parent: np.ndarray, moves: list[int], criterion: int) -> tuple:
    """Move one sample of class ``k`` left for each ``k`` in ``moves`` as the scans do; returns
    the count vectors and the running sums."""
    left = np.zeros_like(parent)
    right = parent.copy()
    sum_left = 0.0
    sum_right = 0.0
    for k in range(parent.shape[0]):
        sum_right += crit.running_term_change(criterion, 0.0, right[k])
    for k in moves:
        sum_left += crit.running_term_change(criterion, left[k], 1.0)
        sum_right += crit.running_term_change(criterion, right[k], -1.0)
        left[k] += 1.0
        right[k] -= 1.0
    return left, right, sum_left, sum_right


def test_the_usual_criteria_have_running_sums():
    assert (crit.GINI, False) in RUNNING and (crit.GINI, True) in RUNNING
    assert (crit.ENTROPY, False) in RUNNING
    # entropy's c log c terms are not exact: its sorted scans use the count vectors
    assert (crit.ENTROPY, True) not in RUNNING


@settings(max_examples=200, deadline=None)
@given(counts=st.lists(st.integers(0, 30), min_size=2, max_size=6), data=st.data(),
       pair=st.sampled_from(RUNNING))
def test_running_sums_give_the_mass_of_the_count_vectors(counts, data, pair):
    criterion, _ = pair
    parent = np.array(counts, dtype=np.float64)
    pool = [k for k, c in enumerate(counts) for _ in range(c)]
    moves = data.draw(st.permutations(pool)) if pool else []
    n_left = data.draw(st.integers(0, len(moves)))
    left, right, sum_left, sum_right = _scan(parent, moves[:n_left], criterion)
    got = crit.running_children_mass(criterion, left.sum(), right.sum(), sum_left, sum_right)
    expected = _mass(left, criterion) + _mass(right, criterion)
    assert np.isclose(got, expected, rtol=1e-9, atol=1e-9 * max(1.0, parent.sum()))


@settings(max_examples=100, deadline=None)
@given(counts=st.lists(st.integers(0, 30), min_size=2, max_size=6), data=st.data())
def test_per_sample_running_sums_do_not_depend_on_the_row_order(counts, data):
    """What running_sums(criterion, per_sample=True) promises: exact ties between cuts break
    the same way whatever the order of the rows sharing a code."""
    pool = [k for k, c in enumerate(counts) for _ in range(c)]
    moves = data.draw(st.permutations(pool))
    other = data.draw(st.permutations(moves))
    parent = np.array(counts, dtype=np.float64)
    for criterion, per_sample in RUNNING:
        if per_sample:
            assert _scan(parent, moves, criterion)[2:] == _scan(parent, other, criterion)[2:]


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(st.floats(0.5, 3.0), st.floats(-10, 10)), min_size=2,
                     max_size=12), data=st.data())
def test_squared_error_gain_is_the_decrease_of_the_regression_mass(rows, data):
    n_left = data.draw(st.integers(0, len(rows)))
    w = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])

    def stats(sel):
        return w[sel].sum(), (w[sel] * y[sel]).sum(), (w[sel] * y[sel] ** 2).sum()

    everything, left, right = stats(slice(None)), stats(slice(0, n_left)), stats(
        slice(n_left, None))
    expected = (crit.regression_mass(*everything) - crit.regression_mass(*left)
                - crit.regression_mass(*right))
    got = crit.squared_error_gain(left[0], left[1], everything[0], everything[1])
    scale = (w * y * y).sum() + 1.0
    assert abs(got - expected) <= 1e-9 * scale
