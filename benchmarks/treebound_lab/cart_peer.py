"""scikit-learn's CART with ``ccp_alpha`` chosen by cross-validation: the lab's one helper for
that peer.

Every experiment measures treebound against the library's own cost-complexity pruning with
cross-validation (``pruning="ccp_cv"``, :func:`treebound.prune`). Where a page also has a column
for what scikit-learn's users run ("scikit-learn CART + CCP CV"), it comes from
:class:`SklearnCartCV`, with one of two protocols, as the pages describe them:

* ``"grid_search"`` — ``GridSearchCV`` over every distinct alpha of the grown tree's pruning path
  but the last (the root alone), unshuffled stratified folds, the first alpha of best mean
  accuracy: how scikit-learn's users tune it (``bench certify``, ``bench peers``,
  ``bench_bound_speed.py``);
* ``"breiman"`` — Breiman's representatives ``sqrt(alpha_k alpha_{k+1})`` of the trees of the
  path, thinned to :data:`BREIMAN_CANDIDATES` evenly spaced ones, shuffled stratified folds, the
  alpha of smallest mean CV error (``bench pruning``'s ``sklearn_ccp_cv``, ``bench dyadic``'s
  ``cart_ccp_cv`` and the reference of the defaults tuning).

Either way the folds number ``n_folds``, fewer when the rarest class has fewer rows (at least 2),
unless ``cv`` gives them; the chosen alpha is refitted on all the rows.
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["BREIMAN_CANDIDATES", "PROTOCOLS", "SklearnCartCV"]

PROTOCOLS = ("grid_search", "breiman")
#: Candidate alphas of the ``"breiman"`` protocol.
BREIMAN_CANDIDATES = 30


class SklearnCartCV:
    """scikit-learn's ``DecisionTreeClassifier`` (Gini), ``ccp_alpha`` by K-fold CV.

    Parameters
    ----------
    protocol : {"grid_search", "breiman"}
        Candidates, folds and choice (see the module docstring).
    n_folds : int, default=10
        Folds, lowered to the rarest class's row count (at least 2).
    cv : int or cross-validation splitter, optional
        The folds as given (``n_folds`` then unused).
    max_candidates : int, optional
        Thin the candidates to this many evenly spaced ones (default: all for
        ``"grid_search"``, :data:`BREIMAN_CANDIDATES` for ``"breiman"``).
    max_leaf_nodes : int, optional
        Leaf budget of the grown trees (default: grown to purity).
    random_state : int, default=0
        Seed of the trees and of the shuffled folds.
    """

    def __init__(self, protocol: str = "grid_search", *, n_folds: int = 10, cv=None,
                 max_candidates: int | None = None, max_leaf_nodes: int | None = None,
                 random_state: int = 0):
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
        self.protocol = protocol
        self.n_folds = n_folds
        self.cv = cv
        self.max_candidates = max_candidates
        self.max_leaf_nodes = max_leaf_nodes
        self.random_state = random_state

    def _tree(self, alpha=0.0):
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(ccp_alpha=alpha, max_leaf_nodes=self.max_leaf_nodes,
                                      random_state=self.random_state)

    def candidates(self, X, y) -> np.ndarray:
        """The candidate alphas on ``X``, ``y``, in increasing order."""
        path = self._tree().cost_complexity_pruning_path(X, y).ccp_alphas
        if self.protocol == "grid_search":
            alphas = np.unique(path[:-1])
        else:
            alphas = np.sqrt(np.maximum(path[:-1], 0.0) * path[1:])
        if len(alphas) == 0:  # a single-leaf tree
            alphas = np.zeros(1)
        limit = self.max_candidates or (BREIMAN_CANDIDATES if self.protocol == "breiman" else 0)
        if limit and len(alphas) > limit:
            keep = np.linspace(0, len(alphas) - 1, limit).round().astype(int)
            alphas = alphas[np.unique(keep)]
        return alphas

    def folds(self, y):
        """The cross-validation folds on labels ``y``."""
        from sklearn.model_selection import StratifiedKFold

        if self.cv is not None:
            return self.cv
        smallest = int(np.unique(y, return_counts=True)[1].min())
        shuffle = self.protocol == "breiman"
        return StratifiedKFold(max(2, min(self.n_folds, smallest)), shuffle=shuffle,
                               random_state=self.random_state if shuffle else None)

    def fit(self, X, y):
        """Choose ``alpha_`` by cross-validation and refit ``estimator_`` on all the rows."""
        from sklearn.model_selection import cross_val_score

        alphas = self.candidates(X, y)
        folds = self.folds(y)
        with warnings.catch_warnings():  # folds with few rows of a class: expected here
            warnings.simplefilter("ignore")
            scores = np.array([cross_val_score(self._tree(a), X, y, cv=folds) for a in alphas])
        if self.protocol == "grid_search":
            best = int(np.argmax(scores.mean(axis=1)))  # GridSearchCV: first of best mean
        else:
            best = int(np.argmin((1.0 - scores).mean(axis=1)))  # first of least mean error
        self.alpha_ = float(alphas[best])
        self.n_candidates_ = len(alphas)
        self.n_splits_ = scores.shape[1]
        self.estimator_ = self._tree(alphas[best]).fit(X, y)
        return self

    def predict(self, X):
        return self.estimator_.predict(X)

    def get_n_leaves(self) -> int:
        return int(self.estimator_.get_n_leaves())

    def get_depth(self) -> int:
        return int(self.estimator_.get_depth())
