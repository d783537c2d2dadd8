import math

import numpy as np
import pytest

from treebound.theory import (
    WEDDERBURN_ETHERINGTON,
    falling_factorial,
    log_comb,
    log_falling_factorial,
    log_stirling2,
    log_stirling2_table,
    logsumexp,
    partition_merge_count,
    stirling2,
    wedderburn_etherington,
)


def set_partitions(items):
    """All set partitions of a list (naive oracle)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in set_partitions(rest):
        yield [[first], *part]
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1 :]]


@pytest.mark.parametrize("n", range(0, 8))
def test_stirling2_counts_set_partitions(n):
    counts = [0] * (n + 1)
    for p in set_partitions(list(range(n))):
        counts[len(p)] += 1
    assert [stirling2(n, k) for k in range(n + 1)] == counts
    assert stirling2(n, n + 1) == 0


def test_stirling2_known_values_and_recurrence():
    assert stirling2(10, 3) == 9330 and stirling2(0, 0) == 1 and stirling2(4, 0) == 0
    for n in range(1, 60):
        assert stirling2(n, 2) == 2 ** (n - 1) - 1
        for k in range(1, 12):
            assert stirling2(n, k) == k * stirling2(n - 1, k) + stirling2(n - 1, k - 1)


def test_log_stirling_table_matches_exact():
    table = log_stirling2_table(300, 12)
    for n in range(0, 301, 7):
        for k in range(0, 13):
            exact = log_stirling2(n, k)
            if exact == -math.inf:
                assert table[k, n] == -math.inf
            else:
                assert abs(table[k, n] - exact) <= 1e-12 * max(1.0, exact)
    big = log_stirling2_table(20000, 10)
    assert abs(big[10, 20000] - math.log(stirling2(20000, 10))) <= 1e-12 * big[10, 20000]


def test_falling_factorial_and_logs():
    assert falling_factorial(10, 3) == 720 and falling_factorial(3, 5) == 0
    assert falling_factorial(5, 0) == 1
    for n in range(0, 12):
        for a in range(0, 14):
            ff = falling_factorial(n, a)
            assert ff == (math.perm(n, a) if a <= n else 0)
            lf = log_falling_factorial(n, a)
            assert (lf == -math.inf) if ff == 0 else math.isclose(lf, math.log(ff), abs_tol=1e-12)
            lc = log_comb(n, a)
            c = math.comb(n, a)
            assert (lc == -math.inf) if c == 0 else math.isclose(lc, math.log(c), abs_tol=1e-12)
    with pytest.raises(ValueError):
        falling_factorial(3, -1)
    with pytest.raises(TypeError):
        stirling2(3.0, 1)
    with pytest.raises(ValueError):
        stirling2(-1, 1)


def test_logsumexp():
    assert logsumexp([]) == -math.inf
    assert logsumexp([-math.inf, -math.inf]) == -math.inf
    assert math.isclose(logsumexp([math.log(2), math.log(3)]), math.log(5))
    assert math.isclose(logsumexp([1000.0, 1000.0]), 1000.0 + math.log(2))
    rows = logsumexp(np.array([[0.0, 0.0], [-np.inf, 1.0]]), axis=1)
    assert np.allclose(rows, [math.log(2), 1.0])


def _merge_count_oracle(a, b, c):
    # Definition 12: group the a parts of alpha and the b parts of beta into c blocks, each block
    # being one alpha part, one beta part, or the union of one of each.
    parts = [("A", i) for i in range(a)] + [("B", j) for j in range(b)]
    count = 0
    for blocks in set_partitions(parts):
        if len(blocks) != c:
            continue
        if all(len(blk) == 1 or (len(blk) == 2 and {blk[0][0], blk[1][0]} == {"A", "B"})
               for blk in blocks):
            count += 1
    return count


@pytest.mark.parametrize("a,b,c", [(a, b, c) for a in range(1, 5) for b in range(1, 5) for c in range(1, 9)])
def test_partition_merge_count_matches_enumeration(a, b, c):
    assert partition_merge_count(a, b, c) == _merge_count_oracle(a, b, c)


def test_wedderburn_etherington_numbers():
    assert [wedderburn_etherington(n) for n in range(1, 12)] == [1, 1, 1, 2, 3, 6, 11, 23, 46, 98, 207]
    # Independent count: distinct canonical shapes built by brute force (interning dedups them).
    from treebound.theory import TreeStructure

    shapes = {1: {TreeStructure.leaf()}}
    for n in range(2, 14):
        shapes[n] = {TreeStructure.node(a, b).canonical()
                     for k in range(1, n) for a in shapes[k] for b in shapes[n - k]}
        assert len(shapes[n]) == wedderburn_etherington(n)
    WEDDERBURN_ETHERINGTON.clear()
    assert len(WEDDERBURN_ETHERINGTON) == 1
    assert wedderburn_etherington(12) == 451
    with pytest.raises(ValueError):
        wedderburn_etherington(0)
