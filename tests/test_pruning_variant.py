"""Bound pruning's variant: a fixed rule for "auto", resource limits that only refuse, and the
cost model that prices many-level categorical features."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer

from treebound import DecisionTreeClassifier, ResourceLimitError, prune, resource_limits
from treebound.pruning.bound import (
    AUTO_TIGHT_SECONDS,
    choose_variant,
    effective_n_features,
    tight_table_cost,
)
from treebound.theory import PartitioningCache, TreeStructure, _costs, _regimes
from treebound.theory._fitted_shapes import pruning_table_shapes, subtree_structures


def many_level_data(levels, n, seed=0):
    rng = np.random.default_rng(seed)
    codes = rng.permutation(np.arange(n) % levels)  # every level seen
    X = pd.DataFrame({"c": pd.Categorical(codes.astype(str)),
                      "x0": rng.normal(size=n), "x1": rng.normal(size=n)})
    y = (X["x0"] + (X["c"].cat.codes % 3 == 0) + rng.normal(size=n) > 0.5).astype(int)
    return X, y


@pytest.fixture(scope="module")
def cancer_grown():
    X, y = load_breast_cancer(return_X_y=True)
    return DecisionTreeClassifier(max_leaf_nodes=20, growth="top_down").fit(X, y)


@pytest.fixture(scope="module")
def many_level_grown():
    # one categorical feature of 600 levels: ell = 2^599 + 2, every table a direct sum
    X, y = many_level_data(600, 2000)
    return DecisionTreeClassifier(max_leaf_nodes=40, random_state=0).fit(X, y)


def test_auto_is_a_fixed_rule_and_the_limits_only_refuse(cancer_grown):
    tight = prune(cancer_grown, method="bound")
    assert tight.info["variant"] == "tight" and tight.info["variant_requested"] == "auto"
    assert tight.info["variant_rule"].startswith("auto: tight when")
    memory, seconds = tight_table_cost(cancer_grown.tree_)
    assert tight.info["tight_estimate_seconds"] == seconds <= AUTO_TIGHT_SECONDS
    with resource_limits(max_memory=memory / 4, max_seconds=None):
        # the rule still says tight: the limit refuses it instead of changing the tree
        with pytest.raises(ResourceLimitError, match=r"pruning_params=\{'variant': 'loose'\}"):
            prune(cancer_grown, method="bound")
        with pytest.raises(ResourceLimitError, match="max_leaf_nodes"):
            prune(cancer_grown, method="bound", variant="tight")
        loose = prune(cancer_grown, method="bound", variant="loose")
        assert loose.info["variant"] == "loose" and "tight_estimate_seconds" not in loose.info
    with resource_limits(max_memory=None, max_seconds=None):
        lifted = prune(cancer_grown, method="bound")
    assert lifted.objective == tight.objective and lifted.info == tight.info


@pytest.mark.parametrize("seconds,memory", [("none", "none"), ("1000", "64G"), ("0.5", "1G")])
def test_the_same_fit_with_the_environment_variables_set_and_unset(monkeypatch, seconds, memory):
    # the limits are read from the environment at every check
    X, y = load_breast_cancer(return_X_y=True)

    def fits():
        out = []
        for leaves in (20, None):
            model = DecisionTreeClassifier(pruning="bound", max_leaf_nodes=leaves,
                                           random_state=0).fit(X, y)
            out.append((model.pruning_info_, repr(model.pruning_objective_), model.tree_.n_leaves,
                        model.tree_.feature.tolist(), repr(model.tree_.threshold.tolist())))
        return out

    monkeypatch.delenv("TREEBOUND_MAX_SECONDS", raising=False)
    monkeypatch.delenv("TREEBOUND_MAX_MEMORY", raising=False)
    unset = fits()
    monkeypatch.setenv("TREEBOUND_MAX_SECONDS", seconds)
    monkeypatch.setenv("TREEBOUND_MAX_MEMORY", memory)
    assert fits() == unset
    assert [info["variant"] for info, *_ in unset] == ["tight", "tight"]


def test_many_level_categorical_trees_are_priced_and_auto_takes_the_loose_bound(
        many_level_grown):
    tree = many_level_grown.tree_
    assert effective_n_features(tree.n_categories) > 2**598
    choice = choose_variant(tree, "auto")
    assert choice.variant == "loose" and choice.estimate > AUTO_TIGHT_SECONDS
    assert "over that" in choice.rule
    # an explicit tight run is refused before any work, naming what avoids it
    with pytest.raises(ResourceLimitError, match="categorical feature of 600 levels") as error:
        prune(many_level_grown, method="bound", variant="tight")
    assert "pruning_params={'variant': 'loose'}" in str(error.value)
    result = prune(many_level_grown, method="bound")
    assert result.info["variant"] == "loose" and result.info["variant_requested"] == "auto"


def test_a_loose_fallback_that_prunes_nothing_says_so():
    X, y = many_level_data(600, 2000, seed=1)
    grown = DecisionTreeClassifier(random_state=0, max_leaf_nodes=300).fit(X, y)
    with pytest.warns(UserWarning, match="kept all .* leaves: variant='auto' chose the loose"):
        result = prune(grown, method="bound")
    assert result.n_leaves == grown.tree_.n_leaves and result.info["pruned_nothing"] is True
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # asked for: recorded, not warned
        asked = prune(grown, method="bound", variant="loose")
    assert asked.info["pruned_nothing"] is True


def test_table_work_prices_each_range_by_its_route():
    # numeric features: short direct head, then FFTs
    direct, cells = _costs.log_table_work(3, 2, 2, 2000, 5)
    assert cells == pytest.approx((2000 - 10 + 1) * 3) and direct > 0
    # a 600-level categorical feature: every range a direct sum, quadratic in m
    direct, cells = _costs.log_table_work(3, 2, 2, 2000, 2**599 + 2)
    assert cells == 0
    expected = sum(2 * 2 * (m - 5 + 1) for m in range(6, 2001))
    assert direct == pytest.approx(expected)
    assert all(route == _regimes.DIRECT
               for *_, route, _ in [(0, *r) for r in _regimes.sum_ranges(6, 2000, 2**599)])


def test_the_pruning_estimate_covers_the_collapsed_shapes_the_search_builds(many_level_grown):
    tree = many_level_grown.tree_
    grown, collapsed = pruning_table_shapes(tree)
    # the same shapes as built from TreeStructure objects
    subtrees = subtree_structures(tree)
    root = subtrees[0].canonical()
    internal = {s.canonical() for s in subtrees if not s.is_leaf} - {root}
    assert sorted(grown) == sorted((s.left.n_leaves, s.right.n_leaves) for s in internal)
    expected = set()
    parent, first_child = tree.parent, tree.first_child
    for u in np.flatnonzero(first_child >= 0).tolist():
        t, child, p = TreeStructure.leaf(), u, parent[u]
        while p >= 0 and parent[p] >= 0:
            c = first_child[p]
            t = TreeStructure.node(t, subtrees[c + 1]) if child == c else \
                TreeStructure.node(subtrees[c], t)
            expected.add(t.canonical())
            child, p = p, parent[p]
    expected -= {s.canonical() for s in subtrees}
    assert sorted(collapsed) == sorted((s.left.n_leaves, s.right.n_leaves) for s in expected)
    m, ell = int(tree.n_node_samples[0]), effective_n_features(tree.n_categories)
    memory, seconds = tight_table_cost(tree)
    grown_cost = _costs.log_tables_cost(internal, 2, 2 * m - 1, ell)
    searched = _costs.log_tables_cost(expected, 2, 2 * m - 1, ell)[1]
    assert memory == pytest.approx(grown_cost[0])
    # the search's tables: those of the collapsed shapes, at most SEARCH_TABLES_CAP times more
    extra = seconds - grown_cost[1]
    assert extra == pytest.approx(min(searched, _costs.SEARCH_TABLES_CAP * grown_cost[1]),
                                  abs=0.01)


def test_certificates_take_the_closed_form_where_theorem9_is_priced_too_high(many_level_grown):
    certificate = many_level_grown.certificate_
    assert certificate.details["growth_bound"] == "leaf_assignments"
    shape = TreeStructure.parse("((L,L),(L,L))")
    assert _costs.certificate_uses_theorem9(7, [shape], 2, 10000, 10)
    assert not _costs.certificate_uses_theorem9(7, [shape], 2, 10000, 2**599)
    assert not _costs.certificate_uses_theorem9(10**6, [shape.left], 2, 500, 10)


def test_the_guard_of_the_theory_functions_reads_the_same_model():
    shape = TreeStructure.full(3)
    with resource_limits(max_seconds=0.5):
        with pytest.raises(ResourceLimitError, match="log_growth_function_upper_bound"):
            from treebound.theory import log_growth_function_upper_bound

            log_growth_function_upper_bound(shape, n_examples=20000, n_features=2**599,
                                            n_classes=2, cache=PartitioningCache())
