"""Partitioning functions, growth-function bounds and VC dimension of tree structures.

Sources: Leboeuf, LeBlanc & Marchand (2020), "Decision trees as partitioning machines to
characterize their generalization properties" (Theorems 7 and 9, Algorithms 1 and 2, Eqs. 4, 5
and 8); Yıldız (2015), "On the VC-dimension of univariate decision trees" (Theorems 1–6,
Eqs. 2–3); and, for risk bounds that are not vacuous (:mod:`treebound.theory.tail_inversion`),
Leboeuf, LeBlanc & Marchand (2021), "Improving generalization bounds for VC classes using the
hypergeometric tail inversion" (Theorems 5 and 7), Langford (2005) and Marchand & Sokolova
(2005).
"""

from treebound.theory._fitted_shapes import (
    collapsed_structure,
    collapsed_structures,
    subtree_structures,
)
from treebound.theory.bounds import (
    log_error_prior,
    log_structure_prior,
    shawe_taylor_bound,
    vapnik_srm_bound,
)
from treebound.theory.combinatorics import (
    WEDDERBURN_ETHERINGTON,
    falling_factorial,
    log_comb,
    log_falling_factorial,
    log_stirling2,
    log_stirling2_table,
    log_wedderburn_etherington,
    logsumexp,
    partition_merge_count,
    stirling2,
    wedderburn_etherington,
)
from treebound.theory.partitioning import (
    VARIANTS,
    PartitioningCache,
    growth_function_upper_bound,
    log_growth_function_upper_bound,
    log_partitioning_upper_bound,
    partitioning_upper_bound,
    stump_partitioning_upper_bound,
)
from treebound.theory.shattering import (
    APPENDIX_A4_PERMUTATIONS,
    brute_force_stump_vcdim,
    count_stump_bipartitions,
    exact_vcdim,
    stump_shatters,
)
from treebound.theory.structures import TreeStructure, enumerate_structures
from treebound.theory.vcdim import (
    stump_vcdim,
    vcdim_lower_bound,
    vcdim_upper_bound,
    yildiz_full_tree_lower_bound,
    yildiz_path_tree_lower_bound,
    yildiz_stump_vcdim,
)

__all__ = [
    "APPENDIX_A4_PERMUTATIONS",
    "VARIANTS",
    "WEDDERBURN_ETHERINGTON",
    "PartitioningCache",
    "TreeStructure",
    "binomial_tail_inversion",
    "binomial_tail_lower_inversion",
    "brute_force_stump_vcdim",
    "collapsed_structure",
    "collapsed_structures",
    "count_stump_bipartitions",
    "enumerate_structures",
    "exact_vcdim",
    "falling_factorial",
    "growth_function_upper_bound",
    "hypergeometric_tail_inversion_bound",
    "hypergeometric_tail_inversion_lower_bound",
    "log_comb",
    "log_error_prior",
    "log_falling_factorial",
    "log_growth_function_upper_bound",
    "log_leaf_assignment_growth_bound",
    "log_partitioning_upper_bound",
    "log_stirling2",
    "log_stirling2_table",
    "log_structure_prior",
    "log_wedderburn_etherington",
    "logsumexp",
    "partition_merge_count",
    "partitioning_upper_bound",
    "sample_compression_bound",
    "shawe_taylor_bound",
    "stirling2",
    "stump_partitioning_upper_bound",
    "stump_shatters",
    "stump_vcdim",
    "subtree_structures",
    "vapnik_srm_bound",
    "vcdim_lower_bound",
    "vcdim_upper_bound",
    "wedderburn_etherington",
    "yildiz_full_tree_lower_bound",
    "yildiz_path_tree_lower_bound",
    "yildiz_stump_vcdim",
]

#: The tail inversions need scipy.special (about 0.2 s to import): loaded on first access
#: (PEP 562), so that the commands that only count partitions (``treebound vcdim``) start faster.
_TAIL_INVERSION = frozenset({
    "binomial_tail_inversion",
    "binomial_tail_lower_inversion",
    "hypergeometric_tail_inversion_bound",
    "hypergeometric_tail_inversion_lower_bound",
    "log_leaf_assignment_growth_bound",
    "sample_compression_bound",
})


def __getattr__(name: str):
    if name in _TAIL_INVERSION:
        # PEP 562: the tail inversions (and scipy.special) load on first use
        from treebound.theory import tail_inversion

        value = getattr(tail_inversion, name)
        globals()[name] = value  # later accesses skip this function
        return value
    raise AttributeError(f"module 'treebound.theory' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
