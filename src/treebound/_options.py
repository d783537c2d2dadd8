"""Option names shared across layers: the growth-function variants, the paper's error prior and
the values of the pruning methods' options.

A leaf module (it imports nothing of treebound): the theory functions read the variants and the
error prior here, the pruning registry (:mod:`treebound.pruning._registry`, each method's
options and defaults) the accepted values of its options.
"""

from __future__ import annotations

__all__ = ["OBJECTIVES", "PAPER_ERROR_PRIOR_RATIO", "PRUNING_VARIANTS", "RISKS", "RULES",
           "VARIANTS", "VC_BOUNDS"]

#: Variants of the partitioning-function bound (``treebound.theory.partitioning``).
VARIANTS = ("tight", "loose", "loose_paper")
#: ``variant`` of bound pruning: a variant above, or "auto" = "tight" when its partitioning
#: tables fit the resource limits (``treebound.resource_limits``), else "loose".
PRUNING_VARIANTS = ("auto", *VARIANTS)
#: ``r = 2^-13.7`` of the error prior ``q_k = (1 - r) r^k``, Leboeuf et al. section 6.2.
PAPER_ERROR_PRIOR_RATIO = 2.0**-13.7
RULES = ("min", "1se")
RISKS = ("error", "impurity")
VC_BOUNDS = ("lower", "upper")
#: ``objective`` of bound pruning, the quantity its search minimizes: the Shawe-Taylor bound
#: (Eq. 8 of Leboeuf et al. 2020) or a certificate (``pruning.certificate_bound.OBJECTIVES``).
OBJECTIVES = ("shawe_taylor", "hti", "compression")
