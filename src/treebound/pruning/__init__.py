"""Pruning grown trees: bound-based (no cross-validation) and the classical baselines.

Methods (``method=`` of :func:`prune`, ``pruning=`` of the estimators):

* ``"bound"`` — Leboeuf et al. (2020) Algorithm 3: greedy collapses minimizing the
  Shawe-Taylor risk bound with the growth-function bound of Theorem 9 (:mod:`.bound`);
* ``"ccp_cv"`` / ``"mcart_cv"`` — CART cost-complexity pruning with K-fold cross-validation
  (Breiman et al. 1984, chapter 3) and its M-CART variant (:mod:`.cost_complexity`);
* ``"srm"`` — Yıldız (2015) SRM pruning with VC-dimension bounds (:mod:`.srm`);
* ``"reduced_error"`` — reduced-error pruning on a held-out set (:mod:`.reduced_error`).

Every method is one generic pass (:mod:`._core`): a controller marks the nodes to turn into
leaves, then a single :meth:`~treebound.tree.Tree.collapse` builds the pruned tree.

Examples
--------
>>> from sklearn.datasets import load_iris
>>> from treebound import DecisionTreeClassifier
>>> from treebound.pruning import prune
>>> X, y = load_iris(return_X_y=True)
>>> grown = DecisionTreeClassifier(random_state=0).fit(X, y)
>>> result = prune(grown, method="bound")
>>> result.tree.n_leaves <= grown.get_n_leaves(), result.bound < result.info["initial_bound"]
(True, True)
>>> result.estimator.get_n_leaves() == result.tree.n_leaves
True
"""

from __future__ import annotations

import copy

import numpy as np

from treebound.pruning._params import METHODS, PARAMETERS, REGRESSION_METHODS, resolve_params
from treebound.pruning.plot import plot_pruning_path

__all__ = ["METHODS", "PARAMETERS", "REGRESSION_METHODS", "PruningResult", "plot_pruning_path",
           "prune", "resolve_params"]


def __getattr__(name):
    if name == "PruningResult":
        from treebound.pruning._core import PruningResult

        return PruningResult
    raise AttributeError(f"module 'treebound.pruning' has no attribute {name!r}")


def prune(model_or_tree, X=None, y=None, *, method: str = "bound", sample_weight=None,
          settings=None, random_state=None, cache=None, **params):
    """Prune a fitted estimator or a :class:`~treebound.tree.Tree` without refitting it.

    Parameters
    ----------
    model_or_tree : DecisionTreeClassifier, DecisionTreeRegressor or Tree
        A fitted treebound estimator, or a bare tree (then ``X`` must already be encoded and
        ``y`` given as class indices / float targets).
    X, y : array-like, optional
        "ccp_cv"/"mcart_cv": the training data the tree was grown on (fold trees are regrown on
        it with the estimator's growth settings). "reduced_error": the held-out pruning set.
        "bound" and "srm" do not read them: they use the training statistics stored in the
        tree's nodes.
    method : {"bound", "ccp_cv", "mcart_cv", "srm", "reduced_error"}
    sample_weight : array-like, optional
        Weights of ``X``.
    settings : treebound.tree._builder.GrowthSettings, optional
        Growth settings for the CV methods on a bare tree (an estimator supplies its own).
    random_state : int, optional
        Seeds the CV folds (default: the estimator's growth seed, or 0).
    cache : treebound.theory.PartitioningCache, optional
        Memo tables shared across calls ("bound", and "srm" with ``vc_bound="upper"``).
    **params
        Options of the method (``pruning_params`` of the estimators), validated.

    Returns
    -------
    PruningResult
        A frozen record: ``tree`` (the pruned copy; the input is unchanged), ``make_leaf`` and
        ``old_to_new`` (relating it to the input tree), ``path`` (``(n_leaves, objective)``
        visited), ``bound`` (final bound of "bound"/"srm", else None), ``time`` (seconds),
        ``info`` (method details) and, when an estimator was given, ``estimator``: a deep copy
        of it holding the pruned tree with ``bound_``, ``pruning_path_``, ``pruning_time_`` and
        ``pruning_info_`` set (its ``pruning``/``pruning_params`` are left as they were).
    """
    from treebound.pruning._dispatch import (
        run_pruning,
        weights_are_uniform,
        withhold_weighted_bound,
    )
    from treebound.tree._storage import Tree

    if isinstance(model_or_tree, Tree):
        model, tree = None, model_or_tree
        X_enc = None if X is None else np.asarray(X, dtype=np.float64)
        y_enc = None if y is None else np.asarray(y)
        n_categories = tree.n_categories
        classes = None
    elif hasattr(model_or_tree, "tree_") and hasattr(model_or_tree, "encoder_"):
        model, tree = model_or_tree, model_or_tree.tree_
        X_enc = None if X is None else model._encode(X)
        y_enc = None if y is None else _encode_target(model, y)
        n_categories = model.encoder_.n_categories
        classes = getattr(model, "classes_", None)
    else:
        raise TypeError("prune expects a fitted treebound estimator or a treebound Tree, got "
                        f"{type(model_or_tree).__name__}")
    if X_enc is not None and y_enc is not None and X_enc.shape[0] != y_enc.shape[0]:
        raise ValueError(f"X has {X_enc.shape[0]} samples but y has {y_enc.shape[0]}")
    weights = None
    if sample_weight is not None and X_enc is not None:
        from treebound._validation import check_sample_weight

        weights = check_sample_weight(sample_weight, X_enc.shape[0])
    grow_fn = None
    seed = 0 if random_state is None else int(random_state)
    if method in ("ccp_cv", "mcart_cv") and X_enc is not None:
        if settings is None and model is not None:
            settings = model._settings(X_enc.shape[0], X_enc.shape[1])
            seed = settings.seed if random_state is None else seed
        if settings is None:
            raise ValueError(f"method={method!r} on a bare Tree needs settings= (the "
                             "GrowthSettings the tree was grown with) to regrow fold trees")
        from treebound.tree._builder import grow

        n_classes = None if tree.task == "regression" else tree.n_classes

        def grow_fn(Xf, yf, wf):
            keep = wf > 0
            return grow(Xf[keep], yf[keep], wf[keep], n_categories, settings,
                        n_classes=n_classes)

    result = run_pruning(tree, method, params, X=X_enc, y=y_enc, sample_weight=weights,
                         grow=grow_fn, seed=seed, cache=cache)
    # "bound"/"srm" read the node statistics: weights that differ between rows void them
    result = withhold_weighted_bound(result, weights_are_uniform(tree))
    if model is not None:
        pruned = copy.deepcopy(model)
        pruned._set_pruned(result)
        result = _with_estimator(result, pruned)
    del classes
    return result


def _encode_target(model, y):
    y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y).ravel()
    classes = getattr(model, "classes_", None)
    if classes is None:
        return y.astype(np.float64)
    idx = np.searchsorted(classes, y)
    idx = np.clip(idx, 0, len(classes) - 1)
    if not np.all(classes[idx] == y):
        unknown = sorted(set(np.asarray(y)[classes[idx] != y].tolist()))[:5]
        raise ValueError(f"y has labels the model was not fitted on: {unknown}")
    return idx.astype(np.int32)


def _with_estimator(result, estimator):
    import dataclasses

    return dataclasses.replace(result, estimator=estimator)
