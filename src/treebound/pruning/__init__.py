"""Pruning grown trees: bound-based (no cross-validation) and the classical baselines.

Methods (``method=`` of :func:`treebound.prune`, ``pruning=`` of the estimators):

* ``"bound"`` — Leboeuf et al. (2020) Algorithm 3: greedy collapses minimizing an
  ``objective``, the Shawe-Taylor risk bound with the growth-function bound of Theorem 9
  (:mod:`.bound`, the default) or a certificate (:mod:`.certificate_bound`);
* ``"ccp_cv"`` / ``"mcart_cv"`` — CART cost-complexity pruning with K-fold cross-validation
  (Breiman et al. 1984, chapter 3) and its M-CART variant (:mod:`.cost_complexity`);
* ``"certified"`` — among the trees of the cost-complexity path within ``n_se`` standard errors
  of the best CV error (default 0.6), the one with the smallest certificate
  (:mod:`.certified`);
* ``"srm"`` — Yıldız (2015) SRM pruning with VC-dimension bounds (:mod:`.srm`);
* ``"reduced_error"`` — reduced-error pruning on a held-out set (:mod:`.reduced_error`).

:data:`REGISTRY` (:mod:`._registry`) is the one place that knows each method: its options and
defaults (:data:`PARAMETERS`), what it needs besides the grown tree (the training rows, rows
held out from growth, a regrow function) and the function that runs it; ``fit``,
:func:`treebound.prune` and :func:`run_pruning` all read it. Every method is one generic pass
(:mod:`._core`): a controller marks the nodes to turn into
leaves, then a single :meth:`~treebound.tree.Tree.collapse` builds the pruned tree. The package
knows trees (:class:`~treebound.tree.Tree`) and, for the cross-validated methods, a *regrow*
callable; estimators reach it through :func:`treebound.prune` and the fit core.

Examples
--------
>>> from sklearn.datasets import load_iris
>>> from treebound import DecisionTreeClassifier, prune
>>> X, y = load_iris(return_X_y=True)
>>> grown = DecisionTreeClassifier(random_state=0).fit(X, y)
>>> result = prune(grown, method="bound")
>>> result.tree.n_leaves <= grown.get_n_leaves(), result.objective < result.info["initial_bound"]
(True, True)
>>> result.estimator.get_n_leaves() == result.tree.n_leaves
True
"""

from __future__ import annotations

from treebound.pruning._core import PruningResult
from treebound.pruning._dispatch import run_pruning
from treebound.pruning._registry import (
    METHODS,
    PARAMETERS,
    REGISTRY,
    REGRESSION_METHODS,
    PruningMethod,
    resolve_params,
)
from treebound.pruning.plot import plot_pruning_path

__all__ = ["METHODS", "PARAMETERS", "REGISTRY", "REGRESSION_METHODS", "PruningMethod",
           "PruningResult", "plot_pruning_path", "resolve_params", "run_pruning"]
