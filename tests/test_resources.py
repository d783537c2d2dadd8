"""Resource limits: every guarded entry point refuses an oversized request before any work,
with one line naming the limit and how to raise it; normal requests are not refused.

"Before any work" is checked by making the worker behind each guard fail if it is reached."""

import math

import numpy as np
import pytest

import treebound
from treebound import DecisionTreeClassifier, ResourceLimitError, resource_limits
from treebound._resources import (
    DEFAULT_MAX_MEMORY,
    DEFAULT_MAX_SECONDS,
    MEMORY_ENV,
    SECONDS_ENV,
    current_limits,
    parse_memory,
    parse_seconds,
)
from treebound.theory import (
    PartitioningCache,
    TreeStructure,
    binomial_tail_inversion,
    binomial_tail_lower_inversion,
    enumerate_structures,
    falling_factorial,
    growth_function_upper_bound,
    hypergeometric_tail_inversion_bound,
    log_growth_function_upper_bound,
    log_partitioning_upper_bound,
    log_stirling2_table,
    log_structure_prior,
    partitioning_upper_bound,
    stirling2,
    stump_partitioning_upper_bound,
    vcdim_lower_bound,
    vcdim_upper_bound,
    wedderburn_etherington,
    yildiz_full_tree_lower_bound,
)


def balanced(n_leaves: int) -> TreeStructure:
    """A balanced shape, built bottom-up without recursion."""
    sizes = {n_leaves}
    frontier = [n_leaves]
    while frontier:
        n = frontier.pop()
        for part in ((n + 1) // 2, n // 2):
            if part > 1 and part not in sizes:
                sizes.add(part)
                frontier.append(part)
    built = {1: TreeStructure.leaf()}
    for n in sorted(sizes):
        if n > 1:
            built[n] = TreeStructure.node(built[(n + 1) // 2], built[n // 2])
    return built[n_leaves]


def deep_path_text(depth: int) -> str:
    return "(" * depth + "L,L)" + ",L)" * (depth - 1)


@pytest.fixture
def no_work(monkeypatch):
    """Make the table builders, the enumeration and the tail sums fail if they are reached."""
    from treebound.theory import _tables, partitioning, tail_inversion, vcdim

    def boom(*args, **kwargs):
        raise AssertionError("work started before the resource check")

    monkeypatch.setattr(partitioning, "ensure_log_tables", boom)
    monkeypatch.setattr(vcdim, "ensure_log_tables", boom)
    monkeypatch.setattr(partitioning, "_ensure_exact_tables", boom)
    monkeypatch.setattr(_tables, "log_node_table", boom)
    monkeypatch.setattr(tail_inversion, "_bisect_probability", boom)
    monkeypatch.setattr(tail_inversion, "gammaln", boom)


# ----------------------------------------------------------------------------- the limits
def test_limits_come_from_the_context_then_the_environment_then_the_defaults(monkeypatch):
    monkeypatch.delenv(MEMORY_ENV, raising=False)
    monkeypatch.delenv(SECONDS_ENV, raising=False)
    assert current_limits().max_memory == DEFAULT_MAX_MEMORY
    assert current_limits().max_seconds == DEFAULT_MAX_SECONDS
    monkeypatch.setenv(MEMORY_ENV, "3G")
    monkeypatch.setenv(SECONDS_ENV, "none")
    assert current_limits().max_memory == 3 * 2**30
    assert current_limits().max_seconds == math.inf
    with resource_limits(max_memory="512M"):
        assert current_limits().max_memory == 512 * 2**20
        assert current_limits().max_seconds == math.inf  # kept
        with resource_limits(max_seconds=2):
            assert current_limits().max_seconds == 2.0
    assert current_limits().max_memory == 3 * 2**30
    monkeypatch.setenv(MEMORY_ENV, "lots")
    with pytest.raises(ValueError, match=MEMORY_ENV):
        current_limits()


@pytest.mark.parametrize("text, expected", [("1024", 1024.0), ("1k", 1024.0), ("1.5G", 1.5 * 2**30),
                                            ("2 GiB", 2.0 * 2**30), ("none", math.inf),
                                            (None, math.inf), (4096, 4096.0)])
def test_parse_memory(text, expected):
    assert parse_memory(text) == expected


@pytest.mark.parametrize("bad", ["", "-1G", "0", "1Q", "G", True, [1]])
def test_parse_memory_rejects(bad):
    with pytest.raises(ValueError):
        parse_memory(bad)


def test_parse_seconds():
    assert parse_seconds("30") == 30.0 and parse_seconds("2.5s") == 2.5
    assert parse_seconds(None) == math.inf and parse_seconds("unlimited") == math.inf
    for bad in ("soon", "-3", 0, True):
        with pytest.raises(ValueError):
            parse_seconds(bad)


def _assert_one_line_refusal(exc_info, limit_text):
    message = str(exc_info.value)
    assert "\n" not in message
    assert limit_text in message
    assert "treebound.resource_limits" in message and ("TREEBOUND_MAX_" in message)


# ---------------------------------------------------------------- the cases refuse
@pytest.mark.parametrize("leaves", [10, 100])
def test_growth_function_at_ten_million_examples_answers_without_tables(leaves, no_work):
    """Ten million points once needed gigabytes of tables (refused); the polynomial tails
    answer without building any table beyond their starts (no_work: the tables route fails)."""
    value = log_growth_function_upper_bound(balanced(leaves), n_examples=10**7, n_features=10,
                                            n_classes=2)
    assert math.isfinite(value) and value > 0


def test_a_billion_examples_answer_and_beyond_64_bits_refuse(no_work):
    value = log_growth_function_upper_bound(TreeStructure.parse("((L,L),L)"), n_examples=10**9,
                                            n_features=10, n_classes=2)
    assert math.isfinite(value)
    m = 10**20
    with pytest.raises(ResourceLimitError):
        log_growth_function_upper_bound(TreeStructure.parse("((L,L),L)"), n_examples=m,
                                        n_features=10, n_classes=2)
    with pytest.raises(ResourceLimitError):
        log_partitioning_upper_bound(TreeStructure.parse("((L,L),L)"), n_parts=2, n_examples=m,
                                     n_features=10)


def test_exact_tables_refuse_large_m(no_work):
    with pytest.raises(ResourceLimitError, match="growth_function_upper_bound"):
        growth_function_upper_bound(balanced(10), n_examples=5000, n_features=10, n_classes=2)
    with pytest.raises(ResourceLimitError, match="partitioning_upper_bound"):
        partitioning_upper_bound(balanced(10), n_parts=2, n_examples=5000, n_features=10)


def test_enumerate_22_leaves_refuses(monkeypatch):
    from treebound.theory import structures

    def boom(*args):
        raise AssertionError("shapes built before the resource check")

    monkeypatch.setattr(structures.TreeStructure, "node", boom)
    with pytest.raises(ResourceLimitError, match=r"enumerate_structures\(22\)"):
        enumerate_structures(22)


def test_deep_and_balanced_structures(no_work):
    deep = TreeStructure.parse(deep_path_text(10_000))  # iterative: no recursion limit
    assert deep.n_leaves == 10_001 and deep.height == 10_000
    assert vcdim_lower_bound(deep, n_features=10) > 0
    with pytest.raises(ResourceLimitError, match="memory"):
        vcdim_upper_bound(deep, n_features=10)
    wide = balanced(10_000)
    assert vcdim_lower_bound(wide, n_features=10) > 10_000
    with pytest.raises(ResourceLimitError, match="vcdim_upper_bound"):
        vcdim_upper_bound(wide, n_features=10)
    with pytest.raises(ResourceLimitError):
        log_growth_function_upper_bound(deep, n_examples=10**6, n_features=10, n_classes=2)


def test_a_huge_structure_string_is_refused_before_parsing():
    with pytest.raises(ResourceLimitError, match="10,000,000-character tree structure"):
        TreeStructure.parse("(" * 10_000_000)
    with pytest.raises(ValueError, match="empty"):
        TreeStructure.parse("  \n")


def test_structure_text_is_guarded_and_repr_is_lazy():
    huge = TreeStructure.full(60)
    with pytest.raises(ResourceLimitError, match="text"):
        str(huge)
    assert repr(huge).endswith("...')") and len(repr(huge)) < 100
    assert str(TreeStructure.full(3)).count("L") == 8
    with pytest.raises(ResourceLimitError):
        TreeStructure.path(10**9)


def test_combinatorics_refuse_huge_integers():
    with pytest.raises(ResourceLimitError, match="stirling2"):
        stirling2(10**7, 50)
    with pytest.raises(ResourceLimitError, match="Wedderburn"):
        wedderburn_etherington(20_000)
    with pytest.raises(ResourceLimitError, match="ln WE"):
        log_structure_prior(10**6)
    with pytest.raises(ResourceLimitError):
        falling_factorial(10**9, 10**7)
    with pytest.raises(ResourceLimitError, match="log_stirling2_table"):
        log_stirling2_table(10**9, 10)
    with pytest.raises(ResourceLimitError):
        yildiz_full_tree_lower_bound(10**12, n_features=10**12)


def test_tail_inversions_refuse_huge_samples(no_work):
    with pytest.raises(ResourceLimitError, match="binomial_tail_inversion"):
        binomial_tail_inversion(10**8, n_examples=10**9)
    with pytest.raises(ResourceLimitError, match="lower"):
        binomial_tail_lower_inversion(10, n_examples=10**9)
    with pytest.raises(ResourceLimitError, match="hypergeometric"):
        hypergeometric_tail_inversion_bound(10**9, n_errors=10**8, log_growth=100.0)


def test_time_limit_refuses_too():
    with resource_limits(max_memory=None, max_seconds=0.5):
        with pytest.raises(ResourceLimitError, match="time limit of 0.5 s"):
            vcdim_upper_bound(balanced(2000), n_features=10)


# ------------------------------------------------------------ ordinary requests still run
def test_ordinary_requests_are_not_refused():
    assert log_structure_prior(10_000) < 0  # the log-space recurrence: well under a second
    assert len(enumerate_structures(10)) == 98
    stump = TreeStructure.stump()
    assert vcdim_upper_bound(stump, n_features=10) == 6
    assert log_growth_function_upper_bound(balanced(40), n_examples=7000, n_features=57,
                                           n_classes=2) > 0
    assert growth_function_upper_bound(stump, n_examples=12, n_features=10, n_classes=3) > 0
    assert binomial_tail_inversion(50, n_examples=1000) > 0.05


def test_raised_limits_let_the_work_run():
    with resource_limits(max_memory="64G", max_seconds=None):
        # the check passes; the computation itself is small enough to run here
        assert log_growth_function_upper_bound(balanced(4), n_examples=2000, n_features=3,
                                               n_classes=2) > 0


def test_fitting_and_certificates_are_not_limited_tight_pruning_is_refused():
    """Growth and certificates work on data already in memory: not under the limits. Bound
    pruning's tight tables can take minutes: estimated first, refused over the limits (never
    replaced by another variant)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    y = (X[:, 0] + 0.3 * rng.normal(size=400) > 0).astype(int)
    reference = DecisionTreeClassifier(pruning="bound", random_state=0).fit(X, y)
    with resource_limits(max_memory=2**20, max_seconds=1e-3):
        grown = DecisionTreeClassifier(random_state=0).fit(X, y)
        again = treebound.certify(grown, X, y)
        with pytest.raises(ResourceLimitError, match="variant"):
            DecisionTreeClassifier(pruning="bound", random_state=0).fit(X, y)
        loose = DecisionTreeClassifier(pruning="bound", pruning_params={"variant": "loose"},
                                       random_state=0).fit(X, y)
    assert again.risk_upper_bound < 1 and loose.pruning_objective_ is not None
    assert reference.pruning_info_["variant"] == "tight"


def test_stump_partitioning_bound_is_exact_and_fast():
    for m in range(0, 30):
        for ell in (1, 2, 3, 7, 100, 10**9):
            naive = sum(min(2 * ell, math.comb(m, k)) for k in range(1, m)) // 2
            assert stump_partitioning_upper_bound(m, n_features=ell) == naive
    assert stump_partitioning_upper_bound(10**15, n_features=3) == 3 * (10**15 - 1)


def test_binary_lower_bound_without_arities_equals_all_two_arities():
    for text in ("((L,L),L)", "(((L,L),(L,L)),((L,L),L))", deep_path_text(30)):
        t = TreeStructure.parse(text)
        for ell in (1, 2, 5, 40):
            assert vcdim_lower_bound(t, n_features=ell, feature_type="binary") == \
                vcdim_lower_bound(t, n_features=ell, feature_type="binary", arities=[2] * ell)
    assert vcdim_lower_bound(TreeStructure.stump(), n_features=10**12, feature_type="binary") == 40


def test_a_cache_that_holds_the_tables_is_not_refused():
    t = balanced(6)
    cache = PartitioningCache()
    value = log_growth_function_upper_bound(t, n_examples=3000, n_features=4, n_classes=2,
                                            cache=cache)
    with resource_limits(max_memory=2**20 + 1):  # tables already built: only the root is new
        assert log_growth_function_upper_bound(t, n_examples=3000, n_features=4, n_classes=2,
                                               cache=cache) == value
