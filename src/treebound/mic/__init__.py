"""MIC: how far greedy tree growth is from the optimal tree (Brutzkus, Daniely & Malach 2020).

Population setting: the target is a read-once DNF, ``x`` follows a product distribution and every
probability is computed exactly. :func:`top_down` and :func:`best_first` grow trees greedily,
:func:`optimal_errors` computes OPT(D, t) by the paper's dynamic programs, and :func:`mic` turns
both into the mean iteration statistical consistency m(t*).

Examples
--------
>>> from treebound.mic import ReadOnceDNF, ProductDistribution, top_down, best_first
>>> from treebound.mic import optimal_errors, mic
>>> f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4 & x5)")
>>> d = ProductDistribution.uniform(f.n_variables)
>>> opt = optimal_errors(f, d, 10)
>>> mic(top_down(f, d, 10).errors, opt, 10), mic(best_first(f, d, 10).errors, opt, 10)
(0.0, 0.009375)
"""

from treebound.mic.distributions import ProductDistribution, probability_positive
from treebound.mic.dnf import Literal, ReadOnceDNF
from treebound.mic.optimal import OptimalErrorTable, mic, mic_constants, optimal_errors
from treebound.mic.population import GrowthResult, PopulationTree, best_first, grow, top_down

__all__ = [
    "GrowthResult",
    "Literal",
    "OptimalErrorTable",
    "PopulationTree",
    "ProductDistribution",
    "ReadOnceDNF",
    "best_first",
    "grow",
    "mic",
    "mic_constants",
    "optimal_errors",
    "probability_positive",
    "top_down",
]
